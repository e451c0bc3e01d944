/* SPDX-License-Identifier: MIT */
/* vsim/vsim.h: the whole public API.  Pipeline:
 *   scene text -> vs_scene (scene.h) -> vs_model (model.h) -> vs_state (state.h)
 *   stepped by vs_step (step.h) -> result file (h5.h) -> compare (compare.h);
 *   result files read back frame by frame (frames.h) and drawn (render.h). */
#ifndef VSIM_VSIM_H
#define VSIM_VSIM_H

#include "vsim/alloc.h"
#include "vsim/compare.h"
#include "vsim/error.h"
#include "vsim/frames.h"
#include "vsim/h5.h"
#include "vsim/memory.h"
#include "vsim/model.h"
#include "vsim/render.h"
#include "vsim/scene.h"
#include "vsim/state.h"
#include "vsim/step.h"
#include "vsim/sweep.h"

#define VSIM_VERSION "0.1.0"
#define VSIM_FORMAT_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0" */
const char *vs_version(void);

/* The version of libyaml the library was built with ("0.2.5"). */
const char *vs_yaml_library_version(void);

#ifdef __cplusplus
}
#endif
#endif
