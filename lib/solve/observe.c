/* observe.c: constraint error and penetration statistics of a state. */
#include <math.h>
#include <string.h>

#include "solve/rigid.h"
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

/* Rigid bodies: translational and rotational energy, potential energy, and
 * the deepest penetration of any body into a collider or another body (the
 * narrow phase on the current poses, for the pairs whose bounding spheres
 * meet, found by sort and sweep on x: the same pairs as testing all of
 * them, in O(n log n) for bodies spread out; the deepest is the same
 * whatever the order). */
static void rigid_observe(const vs_model *m, const vs_state *s, const vs_observe_work *ow,
                          double *ke, double *pe, double *pen) {
  const vs_rmodel *rm = m->rigid;
  vs_rstate rs = {.n_bodies = m->n_rigid, .x = s->rx, .q = s->rq, .v = s->rv, .w = s->rw};
  double P[3], L[3], e = 0.0;
  vs_rigid_momentum(rm, &rs, P, L, &e);
  *ke += e;
  const double *g = m->gravity;
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  for (int32_t i = 0; i < m->n_rigid; i++) {
    const double *x = s->rx + 3 * (size_t)i;
    if (rm->inv_mass[i] > 0.0) *pe -= (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) / rm->inv_mass[i];
    for (int32_t k = 0; k < rm->n_colliders; k++) {
      const int n = vs_rigid_collide_collider(rm, &rs, i, k, 0.0, c);
      for (int j = 0; j < n; j++)
        if (c[j].depth > *pen) *pen = c[j].depth;
    }
  }
  vs_rigid_sort_spheres(rm, &rs, ow->order, ow->tmp, ow->key);
  for (int32_t oi = 0; oi < m->n_rigid; oi++) {
    const int32_t i = ow->order[oi];
    const double *x = s->rx + 3 * (size_t)i, hi = x[0] + rm->bound[i];
    for (int32_t oj = oi + 1; oj < m->n_rigid; oj++) {
      const int32_t k = ow->order[oj];
      if (ow->key[k] > hi) break;
      const double *y = s->rx + 3 * (size_t)k;
      const double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]}, r = rm->bound[i] + rm->bound[k];
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > r * r) continue;
      const int n = vs_rigid_collide_pair(rm, &rs, i < k ? i : k, i < k ? k : i, 0.0, c);
      for (int j = 0; j < n; j++)
        if (c[j].depth > *pen) *pen = c[j].depth;
    }
  }
}

void vs_observe(const vs_model *m, const vs_state *s, vs_observables *obs, double *per) {
  /* the rigid solver's broad-phase arrays are free between steps */
  const struct vs_rwork *rw = m->n_rigid > 0 ? s->scratch->rigid : NULL;
  vs_observe_work ow = {rw ? rw->order : NULL, rw ? rw->tmp : NULL, rw ? rw->key : NULL};
  vs_observe_from(m, s, m->particle_collisions ? vs_contacts_overlap(m, s) : 0.0,
                  m->n_rigid > 0 ? s->scratch->rigid_contacts : 0, &ow, obs, per);
}

/* Everything but what the last step left in the scratch (overlap,
 * rigid_contacts), which is given: s needs only the persistent fields. */
void vs_observe_from(const vs_model *m, const vs_state *s, double overlap_max,
                     int64_t rigid_contacts, const vs_observe_work *ow, vs_observables *obs,
                     double *per) {
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
  obs->overlap_max = overlap_max;
  obs->rigid_contacts = rigid_contacts;
  if (m->n_rigid > 0) {
    rigid_observe(m, s, ow, &ke, &pe, &pen);
    obs->penetration_max = pen;
  }
  obs->kinetic = ke;
  obs->potential = pe;
}
