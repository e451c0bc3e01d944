/* estimate.h (private): the memory check vs_model_build makes after
 * counting the scene and before allocating anything sized by it. */
#ifndef VSIM_MODEL_ESTIMATE_H
#define VSIM_MODEL_ESTIMATE_H

#include "util/private.h"
#include "vsim/memory.h"

/* VS_ERR_LIMIT naming the scene's largest body when vs_estimate_memory is
 * over vs_max_memory(). */
VS_PRIVATE vs_status vs_model_check_memory(const vs_scene *s, const char *file, vs_error *err);

#endif
