/* observe.c: constraint error and penetration statistics of a state. */
#include <math.h>
#include <string.h>

#include "solve/solve.h"

typedef struct acc {
  double max, sum2, max_rel;
  int64_t n;
} acc;

static void add(acc *a, double e, double rest) {
  if (e > a->max) a->max = e;
  a->sum2 += e * e;
  if (rest > 0.0 && e / rest > a->max_rel) a->max_rel = e / rest;
  a->n++;
}

static vs_error_stats finish(const acc *a) {
  vs_error_stats s = {a->max, a->n ? sqrt(a->sum2 / (double)a->n) : 0.0, a->max_rel, a->n};
  return s;
}

void vs_observe(const vs_model *m, const vs_state *s, vs_observables *obs, double *per) {
  acc k[VS_KIND_COUNT], all;
  memset(k, 0, sizeof k);
  memset(&all, 0, sizeof all);
  int64_t alive = 0;
  for (int32_t id = 0; id < m->n_constraints; id++) {
    const vs_kind kind = (vs_kind)m->con_kind[id];
    double e = 0.0, rest = 0.0;
    if (!vs_kind_solver[kind].error(m, s, m->con_index[id], &e, &rest)) { /* torn */
      if (per) per[id] = 0.0;
      continue;
    }
    alive++;
    add(&k[kind], e, rest);
    add(&all, e, rest);
    if (per) per[id] = e;
  }
  for (int j = 0; j < VS_KIND_COUNT; j++) obs->kind[j] = finish(&k[j]);
  obs->all = finish(&all);
  obs->alive = alive;
  double pen = 0.0;
  if (m->n_colliders > 0)
    for (int32_t i = 0; i < m->n_particles; i++) {
      double d = vs_collide_penetration(m, s->x + 4 * (size_t)i, m->radius[i]);
      if (d > pen) pen = d;
    }
  obs->penetration_max = pen;
  /* Energy of the movable particles (pinned ones have infinite mass and do
   * not move, or move kinematically: neither is the system's energy). */
  double ke = 0.0, pe = 0.0;
  const double *g = m->gravity;
  for (int32_t i = 0; i < m->n_particles; i++) {
    if (m->x0[4 * (size_t)i + 3] == 0.0) continue;
    const double mass = m->mass[i], *x = s->x + 4 * (size_t)i;
    double v[3];
    if (m->integrator == VS_INTEGRATOR_VERLET)
      for (int d = 0; d < 3; d++) v[d] = (x[d] - s->xprev[4 * (size_t)i + d]) / m->h;
    else
      for (int d = 0; d < 3; d++) v[d] = s->v[3 * (size_t)i + d];
    ke += 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    pe -= mass * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
  }
  obs->overlap_max = m->particle_collisions ? vs_contacts_overlap(m, s) : 0.0;
  obs->kinetic = ke;
  obs->potential = pe;
}
