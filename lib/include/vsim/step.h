/* SPDX-License-Identifier: MIT */
/* vsim/step.h: advancing the state, and measuring it.
 *
 * vs_step() advances one frame = `substeps` steps of h = dt / substeps with the
 * model's integrator and relaxation (docs/physics.md).  It never allocates.  After
 * the frame it checks every position for NaN or infinity and fails with
 * VS_ERR_NUMERIC naming the frame and the particle. */
#ifndef VSIM_STEP_H
#define VSIM_STEP_H

#include <stdint.h>

#include "vsim/error.h"
#include "vsim/model.h"
#include "vsim/state.h"

#ifdef __cplusplus
extern "C" {
#endif

vs_status vs_step(const vs_model *model, vs_state *state, vs_error *err);

/* Constraint error statistics over constraints alive now; one-sided
 * constraints count only their violation. */
typedef struct vs_error_stats {
  double max;          /* max |C|, m */
  double rms;          /* sqrt(mean C^2), m */
  double max_relative; /* max |C| / rest over constraints with rest > 0 */
  int64_t count;       /* constraints measured */
} vs_error_stats;

typedef struct vs_observables {
  vs_error_stats kind[VS_KIND_COUNT];
  vs_error_stats all;
  double penetration_max; /* deepest collider penetration (>= 0), m; rigid bodies: the
                             deepest contact (collider or body) */
  double kinetic;         /* sum of m |v|^2 / 2 over movable particles and rigid bodies
                             (plus w . I w / 2 of each body), J */
  double potential;       /* sum of -m g . x over movable particles and rigid bodies
                             (zero at the origin), J */
  double overlap_max;     /* deepest overlap of two colliding particles found in the last step, m */
  int64_t alive;          /* constraints not torn */
  int64_t rigid_contacts; /* rigid contact points found in the last step */
  double joint_error_max;       /* rigid joints: the largest gap of a joint's anchors, rows
                                   and limits along them, m */
  double joint_angle_error_max; /* rigid joints: the largest turn a joint's angular rows or
                                   angle limits forbid, rad */
} vs_observables;

/* Measure the state.  per_constraint (n_constraints) receives |C| of every
 * constraint in build order when not NULL (0 for torn links). */
void vs_observe(const vs_model *model, const vs_state *state, vs_observables *obs,
                double *per_constraint);

#ifdef __cplusplus
}
#endif
#endif
