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

/* X(name, type, width, count-expression over model m) */
#define VS_STATE_FIELDS(X)                                   \
  X(x, double, 4, (size_t)m->n_particles)     /* x, y, z, w */ \
  X(xprev, double, 4, (size_t)m->n_particles) /* start of step (pbd) / previous (verlet) */ \
  X(v, double, 3, (size_t)m->n_particles)     /* velocity (pbd, xpbd) */ \
  X(lambda, double, 1, (size_t)m->n_constraints) /* xpbd multipliers */ \
  X(alive, uint8_t, 1, (size_t)m->n_dist)     /* 0 once torn */

typedef struct vs_state {
  int64_t frame;   /* frames completed */
  int64_t step;    /* substeps completed */
  double time;     /* frame * dt, s */
  int threads;     /* worker threads for the relaxation (>= 1); never changes results */

#define VS_STATE_DECL(name, type, width, count) type *name;
  VS_STATE_FIELDS(VS_STATE_DECL)
#undef VS_STATE_DECL

  int64_t n_alive;  /* distance links not torn */

  /* scratch, reused every step (no allocation inside the step) */
  double *contact;  /* (n_particles x 4) contact normal and accumulated normal push */
  int32_t *contact_collider; /* (n_particles) collider that pushed it last, -1 = none */
  double *vpre;     /* (n_particles x 3) velocity before the solve (restitution) */

  /* particle-particle contacts, found anew every step (particle_collisions);
   * scratch too: a checkpoint does not need them */
  int32_t pc_n, pc_cap;      /* contacts this step, capacity */
  int32_t *pc_pairs;         /* (pc_cap x 2) particle pairs i < j */
  int32_t *pc_color;         /* (pc_cap) jacobi colour of each contact */
  int32_t *pc_order;         /* (pc_cap) contacts grouped by colour */
  double *pc_key;            /* (pc_cap) sort key: height of the lower particle */
  uint8_t *supported;        /* (n_particles) shock propagation: resting on something this sweep */
  int32_t *pc_tmp;           /* (pc_cap x 2) sort scratch */
  int32_t pc_start[66];      /* colour offsets into pc_order (64 colours + overflow) */
  int32_t pc_ncolors;
  uint64_t *pc_mask;         /* (n_particles) colours taken, zero between steps */
  int32_t hash_size;         /* spatial hash buckets (a power of two) */
  int32_t *hash_start;       /* (hash_size + 1) */
  int32_t *hash_fill;        /* (hash_size) */
  int32_t *hash_items;       /* (n_particles) */
  int32_t *pcell;            /* (n_particles x 3) cell of each particle */
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
