/* SPDX-License-Identifier: MIT */
/* vsim/memory.h: the memory a run may take.  vs_model_build estimates the
 * model's and the run's memory from the scene's counts before it allocates
 * anything sized by them, and refuses (VS_ERR_LIMIT, exit 2) a scene whose
 * estimate is over the limit, saying how much it would take. */
#ifndef VSIM_MEMORY_H
#define VSIM_MEMORY_H

#include <stdint.h>

#include "vsim/error.h"
#include "vsim/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vs_memory_estimate {
  uint64_t model; /* the compiled model's arrays (and the colouring's work space) */
  uint64_t run;   /* state, solver scratch and one frame of output */
  uint64_t total; /* model + run */
} vs_memory_estimate;

/* The limit for this process, in bytes: 0 restores the default, half of
 * the physical memory (sysconf).  Set it before building a model (not
 * thread-safe against a build in progress). */
void vs_set_max_memory(uint64_t bytes);
/* The limit in force (the default computed when none was set). */
uint64_t vs_max_memory(void);

/* The estimate for a scene, from its counts alone (nothing big allocated);
 * a body whose counts cannot be computed is the error vs_model_build gives.
 * Mesh bodies and colliders are counted from their OBJ files (read once
 * through a small buffer; links bounded above); an OBJ that cannot be
 * opened counts nothing (vs_model_build reports it). */
vs_status vs_estimate_memory(const vs_scene *s, vs_memory_estimate *out, vs_error *err);

#ifdef __cplusplus
}
#endif
#endif
