/* SPDX-License-Identifier: MIT */
/* state.c: allocation, reset and copying of the mutable state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/solve.h"

void vs_state_free(vs_state *s) {
  if (!s) return;
#define VS_STATE_FREE(name, type, width, count) vs_free(s->name);
  VS_STATE_FIELDS(VS_STATE_FREE)
#undef VS_STATE_FREE
  vs_solver_scratch_free(s->scratch);
  vs_free(s);
}

vs_status vs_state_create(const vs_model *m, vs_state **out, vs_error *err) {
  *out = NULL;
  vs_state *s = vs_calloc(1, sizeof *s);
  if (!s) return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory allocating the state");
  int ok = 1;
#define VS_STATE_ALLOC(name, type, width, count) \
  ok &= (s->name = vs_calloc_aligned((width) * (count) + 1, sizeof(type))) != NULL;
  VS_STATE_FIELDS(VS_STATE_ALLOC)
#undef VS_STATE_ALLOC
  size_t n = (size_t)m->n_particles;
  if (!ok) {
    vs_state_free(s);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0,
                        "out of memory allocating the state for %d particles", m->n_particles);
  }
  vs_status st = vs_solver_scratch_create(m, &s->scratch, err);
  if (st != VS_OK) {
    vs_state_free(s);
    return st;
  }
  s->threads = 1;
  memcpy(s->x, m->x0, 4 * n * sizeof(double));
  memcpy(s->v, m->v0, 3 * n * sizeof(double));
  memcpy(s->xprev, m->x0, 4 * n * sizeof(double));
  if (m->integrator == VS_INTEGRATOR_VERLET) {
    /* docs/physics.md (integrators): x_prev = x0 - v0 h + g h^2 / 2 makes free fall exact. */
    const double h = m->h;
    for (size_t i = 0; i < n; i++) {
      if (m->x0[4 * i + 3] == 0.0) continue;
      for (int k = 0; k < 3; k++)
        s->xprev[4 * i + k] = m->x0[4 * i + k] - m->v0[3 * i + k] * h + 0.5 * m->gravity[k] * h * h;
    }
  }
  memset(s->alive, 1, (size_t)m->n_dist);
  const size_t nr = (size_t)m->n_rigid;
  memcpy(s->rx, m->rigid_x0, 3 * nr * sizeof(double));
  memcpy(s->rq, m->rigid_q0, 4 * nr * sizeof(double));
  memcpy(s->rv, m->rigid_v0, 3 * nr * sizeof(double));
  memcpy(s->rw, m->rigid_w0, 3 * nr * sizeof(double));
  if (nr) s->rq[4 * nr] = 1.0; /* the world slot: identity */
  s->n_alive = m->n_dist;
  *out = s;
  return VS_OK;
}

void vs_state_copy(const vs_model *m, vs_state *dst, const vs_state *src) {
  dst->frame = src->frame;
  dst->step = src->step;
  dst->time = src->time;
  dst->n_alive = src->n_alive;
#define VS_STATE_COPY(name, type, width, count) \
  memcpy(dst->name, src->name, (width) * (count) * sizeof(type));
  VS_STATE_FIELDS(VS_STATE_COPY)
#undef VS_STATE_COPY
}

void vs_state_velocity(const vs_model *m, const vs_state *s, double *out) {
  const size_t n = (size_t)m->n_particles;
  if (m->integrator != VS_INTEGRATOR_VERLET) {
    memcpy(out, s->v, 3 * n * sizeof(double));
    return;
  }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) out[3 * i + k] = (s->x[4 * i + k] - s->xprev[4 * i + k]) / m->h;
}
