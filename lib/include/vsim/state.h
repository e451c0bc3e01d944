/* SPDX-License-Identifier: MIT */
/* vsim/state.h: everything that changes while stepping (like MuJoCo's mjData).
 *
 * One table, VS_STATE_FIELDS, lists the persistent arrays: it drives
 * allocation, copying, checkpoints and test comparisons, so adding a field is
 * one line.  A checkpoint is exactly these fields plus the counters. */
#ifndef VSIM_STATE_H
#define VSIM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rigid-body rows have a slot more than there are bodies: the world (at rest,
 * identity pose), which colliders and world-anchored joints use. */
#define VS_RIGID_SLOTS(m) ((size_t)(m)->n_rigid + ((m)->n_rigid > 0))

/* X(name, type, width, count-expression over model m) */
#define VS_STATE_FIELDS(X)                                   \
  X(x, double, 4, (size_t)m->n_particles)     /* x, y, z, w */ \
  X(xprev, double, 4, (size_t)m->n_particles) /* start of step (pbd) / previous (verlet) */ \
  X(v, double, 3, (size_t)m->n_particles)     /* velocity (pbd, xpbd) */ \
  X(lambda, double, 1, (size_t)m->n_constraints) /* xpbd multipliers */ \
  X(alive, uint8_t, 1, (size_t)m->n_dist)     /* 0 once torn */ \
  /* rigid bodies: pose, velocities and the warm-start cache (the solver's vs_rstate) */ \
  X(rx, double, 3, VS_RIGID_SLOTS(m))        /* centre of mass */ \
  X(rq, double, 4, VS_RIGID_SLOTS(m))        /* orientation w, x, y, z */ \
  X(rv, double, 3, VS_RIGID_SLOTS(m))        /* velocity */ \
  X(rw, double, 3, VS_RIGID_SLOTS(m))        /* angular velocity, world frame */ \
  X(rn_cache, int32_t, 1, (size_t)(m->n_rigid > 0)) /* contacts in the cache */ \
  X(rcache_ab, int32_t, 2, (size_t)m->rigid_max_contacts) /* bodies (b < 0: collider -1-b) */ \
  X(rcache_feature, int32_t, 1, (size_t)m->rigid_max_contacts) /* feature id (bits) */ \
  X(rcache_impulse, double, 4, (size_t)m->rigid_max_contacts) /* normal, friction (world) */ \
  X(rjoint_impulse, double, 3, (size_t)m->n_rjoints) /* accumulated joint impulses */ \
  X(rjoint_more, double, 8, (size_t)m->n_rjoints_more) /* weld, hinge, slider: the rest */ \
  X(rsleep, double, 1, m->rigid_sleep ? VS_RIGID_SLOTS(m) : 0) /* s at rest (solver.rigid.sleep) */

typedef struct vs_solver_scratch vs_solver_scratch;

typedef struct vs_state {
  int64_t frame;   /* frames completed */
  int64_t step;    /* substeps completed */
  double time;     /* frame * dt, s */
  int threads;     /* worker threads for the relaxation (>= 1); never changes results */

#define VS_STATE_DECL(name, type, width, count) type *name;
  VS_STATE_FIELDS(VS_STATE_DECL)
#undef VS_STATE_DECL

  int64_t n_alive;  /* distance links not torn */

  /* the solver's work arrays (contacts, spatial hash, Jacobi layout):
   * owned, opaque, rewritten every step, never checkpointed */
  vs_solver_scratch *scratch;
} vs_state;

/* A state at frame 0: x = x0, v = v0, all links alive, lambdas 0. */
vs_status vs_state_create(const vs_model *model, vs_state **out, vs_error *err);
void vs_state_free(vs_state *state);

/* Copy every persistent field and counter (same model). */
void vs_state_copy(const vs_model *model, vs_state *dst, const vs_state *src);

/* Velocity of every particle into out (n_particles x 3): v for pbd/xpbd,
 * (x - xprev) / h for verlet. */
void vs_state_velocity(const vs_model *model, const vs_state *state, double *out);

#ifdef __cplusplus
}
#endif
#endif
