/* SPDX-License-Identifier: MIT */
/* observe.c: constraint error and penetration statistics of a state. */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"
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
static void rigid_observe(const vs_model *m, const vs_state *s, vs_observe_work *ow,
                          double *ke, double *pe, double *pen, vs_observables *obs) {
  const vs_rmodel *rm = m->priv->rigid;
  vs_rstate rs = {.n_bodies = m->n_rigid, .x = s->rx, .q = s->rq, .v = s->rv, .w = s->rw};
  double P[3], L[3], e = 0.0;
  vs_rigid_momentum(rm, &rs, P, L, &e);
  *ke += e;
  const double *g = m->gravity;
  for (int32_t i = 0; i < m->n_rigid; i++) {
    const double *x = s->rx + 3 * (size_t)i;
    if (rm->inv_mass[i] > 0.0) *pe -= (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) / rm->inv_mass[i];
  }
  /* the rest reads the poses alone */
  const size_t nx = 3 * (size_t)m->n_rigid, nq = 4 * (size_t)m->n_rigid;
  if (ow->pose && ow->have && !memcmp(ow->pose, s->rx, nx * sizeof(double)) &&
      !memcmp(ow->pose + nx, s->rq, nq * sizeof(double))) {
    if (ow->pen > *pen) *pen = ow->pen;
    obs->joint_error_max = ow->joint_gap;
    obs->joint_angle_error_max = ow->joint_turn;
    return;
  }
  double rpen = 0.0; /* the bodies' own: a maximum, so the same with the particles' after */
  obs->joint_error_max = obs->joint_angle_error_max = 0.0;
  for (int32_t j = 0; j < rm->n_joints; j++) {
    double gap, turn;
    vs_rjoint_errors(rm, &rs, j, &gap, &turn);
    obs->joint_error_max = fmax(obs->joint_error_max, gap);
    obs->joint_angle_error_max = fmax(obs->joint_angle_error_max, turn);
  }
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  for (int32_t i = 0; i < m->n_rigid; i++) {
    for (int32_t k = 0; k < rm->n_colliders; k++) {
      const int n = vs_rigid_collide_collider(rm, &rs, i, k, 0.0, c);
      for (int j = 0; j < n; j++)
        if (c[j].depth > rpen) rpen = c[j].depth;
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
        if (c[j].depth > rpen) rpen = c[j].depth;
    }
  }
  if (rpen > *pen) *pen = rpen;
  if (!ow->pose) return;
  memcpy(ow->pose, s->rx, nx * sizeof(double));
  memcpy(ow->pose + nx, s->rq, nq * sizeof(double));
  ow->have = 1;
  ow->pen = rpen;
  ow->joint_gap = obs->joint_error_max;
  ow->joint_turn = obs->joint_angle_error_max;
}

void vs_observe(const vs_model *m, const vs_state *s, vs_observables *obs, double *per) {
  /* the rigid solver's broad-phase arrays are free between steps */
  const struct vs_rwork *rw = m->n_rigid > 0 ? s->scratch->rigid : NULL;
  vs_observe_work ow = {rw ? rw->order : NULL, rw ? rw->tmp : NULL, rw ? rw->key : NULL, NULL, 0,
                        0.0, 0.0, 0.0};
  vs_observe_from(m, s, m->particle_collisions ? vs_contacts_overlap(m, s) : 0.0,
                  m->n_rigid > 0 ? s->scratch->rigid_contacts : 0, &ow, obs, per);
}

/* The distance links k0 .. k0+n-1, which are the constraints id0 .. id0+n-1
 * (a run of consecutive ids over consecutive links, as bodies build them):
 * their errors straight over the link table, without vs_distance_error's
 * call and the id -> index look-up, added to the kind's accumulator and to
 * `all` in id order with the same operations as add(), so every sum and
 * maximum is the same bits.  per: the run's first entry, or NULL. */
static int64_t distance_run(const vs_model *m, const vs_state *s, int32_t k0, int32_t n, acc *ka,
                            acc *aa, double *per) {
  double kmax = ka->max, ksum = ka->sum2, krel = ka->max_rel;
  double amax = aa->max, asum = aa->sum2, arel = aa->max_rel;
  int64_t alive = 0;
  const int32_t *ab = m->dist_ab + 2 * (size_t)k0;
  const double *restv = m->dist_rest + k0, *x = s->x;
  const uint8_t *side = m->dist_side + k0, *live = s->alive + k0;
  for (int32_t j = 0; j < n; j++) {
    if (!live[j]) { /* torn */
      if (per) per[j] = 0.0;
      continue;
    }
    const double *pa = x + 4 * (size_t)ab[2 * j], *pb = x + 4 * (size_t)ab[2 * j + 1];
    const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
    const double rest = restv[j], C = sqrt(dx * dx + dy * dy + dz * dz) - rest;
    double e;
    switch (side[j]) {
      case VS_SIDE_MIN: e = C < 0.0 ? -C : 0.0; break;
      case VS_SIDE_MAX: e = C > 0.0 ? C : 0.0; break;
      default: e = fabs(C); break;
    }
    const double e2 = e * e;
    if (e > kmax) kmax = e;
    if (e > amax) amax = e;
    ksum += e2;
    asum += e2;
    if (rest > 0.0) {
      const double q = e / rest;
      if (q > krel) krel = q;
      if (q > arel) arel = q;
    }
    alive++;
    if (per) per[j] = e;
  }
  ka->max = kmax, ka->sum2 = ksum, ka->max_rel = krel, ka->n += alive;
  aa->max = amax, aa->sum2 = asum, aa->max_rel = arel, aa->n += alive;
  return alive;
}

/* Everything but what the last step left in the scratch (overlap,
 * rigid_contacts), which is given: s needs only the persistent fields. */
void vs_observe_from(const vs_model *m, const vs_state *s, double overlap_max,
                     int64_t rigid_contacts, vs_observe_work *ow, vs_observables *obs,
                     double *per) {
  acc k[VS_KIND_COUNT], all;
  memset(k, 0, sizeof k);
  memset(&all, 0, sizeof all);
  int64_t alive = 0;
  const int32_t nc = m->n_constraints;
  for (int32_t id = 0; id < nc;) {
    const vs_kind kind = (vs_kind)m->con_kind[id];
    const int32_t k0 = m->con_index[id];
    if (kind == VS_KIND_DISTANCE) {
      int32_t end = id + 1;
      while (end < nc && m->con_kind[end] == VS_KIND_DISTANCE && m->con_index[end] == k0 + (end - id))
        end++;
      alive += distance_run(m, s, k0, end - id, &k[kind], &all, per ? per + id : NULL);
      id = end;
      continue;
    }
    double e = 0.0, rest = 0.0;
    if (!vs_kind_solver[kind].error(m, s, k0, &e, &rest)) { /* torn */
      if (per) per[id] = 0.0;
    } else {
      alive++;
      add(&k[kind], e, rest);
      add(&all, e, rest);
      if (per) per[id] = e;
    }
    id++;
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
   * not move, or move kinematically: neither is the system's energy), in
   * particle order; one loop per integrator.  Pinned is told by the mass,
   * which the loop reads anyway, not by the inverse mass in x0 (512 KiB
   * more to read at 128^2): vs_builder_pin sets both, inverse mass 0 and
   * mass +inf, and 1 / mass of a finite mass is never 0. */
  double ke = 0.0, pe = 0.0;
  const double g0 = m->gravity[0], g1 = m->gravity[1], g2 = m->gravity[2];
  const double *mass = m->mass, *xs = s->x;
  if (m->integrator == VS_INTEGRATOR_VERLET) {
    const double h = m->h, *xp = s->xprev;
    for (int32_t i = 0; i < m->n_particles; i++) {
      if (mass[i] == INFINITY) continue;
      const double *x = xs + 4 * (size_t)i, *p = xp + 4 * (size_t)i;
      const double v0 = (x[0] - p[0]) / h, v1 = (x[1] - p[1]) / h, v2 = (x[2] - p[2]) / h;
      ke += 0.5 * mass[i] * (v0 * v0 + v1 * v1 + v2 * v2);
      pe -= mass[i] * (g0 * x[0] + g1 * x[1] + g2 * x[2]);
    }
  } else {
    const double *vs = s->v;
    for (int32_t i = 0; i < m->n_particles; i++) {
      if (mass[i] == INFINITY) continue;
      const double *x = xs + 4 * (size_t)i, *v = vs + 3 * (size_t)i;
      ke += 0.5 * mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      pe -= mass[i] * (g0 * x[0] + g1 * x[1] + g2 * x[2]);
    }
  }
  obs->overlap_max = overlap_max;
  obs->rigid_contacts = rigid_contacts;
  obs->joint_error_max = obs->joint_angle_error_max = 0.0;
  if (m->n_rigid > 0) {
    rigid_observe(m, s, ow, &ke, &pe, &pen, obs);
    obs->penetration_max = pen;
  }
  obs->kinetic = ke;
  obs->potential = pe;
}
