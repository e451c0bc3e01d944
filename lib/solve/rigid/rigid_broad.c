/* SPDX-License-Identifier: MIT */
/* rigid_broad.c: the rigid bodies' broad phase.  Axis-aligned bounding
 * boxes, sort and sweep on x (bodies sorted by (min x, index), pairs sorted
 * by (i, j)), so the order never depends on addresses; each candidate pair
 * and each body against each collider goes to the narrow phase
 * (rigid_collide.c). */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"

/* ---- broad phase ---- */

static void body_aabb(const vs_rmodel *m, const vs_rstate *s, int32_t i, double margin,
                      double *box) {
  double R[9], e[3];
  vs_quat_to_mat(&s->q[4 * i], R);
  const double *sz = &m->size[3 * i];
  vs_rshape_row_of(m->shape[i])->extent(sz, R, e);
  const double *x = &s->x[3 * i];
  for (int k = 0; k < 3; k++) {
    box[k] = x[k] - e[k] - margin;
    box[3 + k] = x[k] + e[k] + margin;
  }
}

static void msort_idx(int32_t *a, int32_t *tmp, const double *key, int32_t n) {
  for (int32_t w = 1; w < n; w *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * w) {
      int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        /* stable, ties by original index order */
        if (key[a[j]] < key[a[i]]) tmp[k++] = a[j++];
        else tmp[k++] = a[i++];
      }
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, sizeof(int32_t) * (size_t)n);
  }
}

static void msort_i64(int64_t *a, int64_t *tmp, int32_t n) {
  for (int32_t w = 1; w < n; w *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * w) {
      int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, sizeof(int64_t) * (size_t)n);
  }
}

void vs_rigid_sort_spheres(const vs_rmodel *m, const vs_rstate *s, int32_t *order,
                           int32_t *tmp, double *key) {
  for (int32_t i = 0; i < m->n_bodies; i++) {
    order[i] = i;
    key[i] = s->x[3 * i] - m->bound[i];
  }
  msort_idx(order, tmp, key, m->n_bodies);
}

static int aabb_collider(const vs_rcollider *c, const double *box) {
  switch (c->kind) {
  case VS_COLLIDER_SPHERE:
    for (int k = 0; k < 3; k++)
      if (box[k] > c->a[k] + c->radius || box[3 + k] < c->a[k] - c->radius) return 0;
    return 1;
  case VS_COLLIDER_BOX:
    for (int k = 0; k < 3; k++)
      if (box[k] > c->b[k] || box[3 + k] < c->a[k]) return 0;
    return 1;
  case VS_COLLIDER_BOUNDS:
    for (int k = 0; k < 3; k++)
      if (box[k] < c->a[k] || box[3 + k] > c->b[k]) return 1;
    return 0;
  case VS_COLLIDER_MESH: /* its BVH is walked with the body's box (rigid_collide_mesh.c) */
    return 1;
  default: { /* plane: the box's lowest corner along the normal */
    double lo = 0;
    for (int k = 0; k < 3; k++) lo += c->b[k] * ((c->b[k] >= 0 ? box[k] : box[3 + k]) - c->a[k]);
    return lo < 0;
  }
  }
}

/* What the narrow phase fills in (rigid_collide.c cpt_to_contact); prepare
 * and the substeps set the rest, so the rest of the large struct is not
 * copied. */
static inline void put(vs_rcontact *o, const vs_rcontact *c) {
  o->a = c->a;
  o->b = c->b;
  o->feature = c->feature;
  memcpy(o->n, c->n, sizeof o->n);
  memcpy(o->p, c->p, sizeof o->p);
  o->depth = c->depth;
}

/* How far body i may travel in the step h at its velocity: its centre's
 * path plus its surface's turn, |v| h + |w| bound h (with the step's
 * gravity in v).  Contacts are looked for that much farther out (speculative
 * contacts: a point found with a gap g lets the bodies close at most g in
 * the step), so that a fast body meets what lies in its path instead of
 * passing through it between two steps. */
static double reach(const vs_rmodel *m, const vs_rstate *s, int32_t i, double h) {
  if (vs_rmodel_kinematic(m, i) && h > 0) /* its path, without gravity */
    return h * (vs_len3(&s->v[3 * i]) + vs_len3(&s->w[3 * i]) * m->bound[i]);
  if (m->inv_mass[i] == 0 || !(h > 0)) return 0.0;
  const double *v = &s->v[3 * i], *av = &s->w[3 * i], *g = m->set.gravity;
  double vg[3] = {v[0] + h * g[0], v[1] + h * g[1], v[2] + h * g[2]};
  return h * (vs_len3(vg) + vs_len3(av) * m->bound[i]);
}

/* The contacts' order (rigid_solve.c): body a, then colliders by index, then bodies b. */
static int before(const vs_rcontact *c, int32_t a, int32_t b, int32_t n_colliders) {
  if (c->a != a) return c->a < a;
  int64_t k1 = c->b < 0 ? (int64_t)(-1 - c->b) : (int64_t)n_colliders + c->b;
  int64_t k2 = b < 0 ? (int64_t)(-1 - b) : (int64_t)n_colliders + b;
  return k1 < k2;
}

/* Sleeping bodies keep their contacts (rigid_sleep.c): a body asleep in the
 * last step, still at rest (not pushed since: zero velocities) and at the
 * pose and reach of the last narrow phase gets, with a collider or with
 * another such body, exactly the contacts the narrow phase gave then, which
 * are copied from the last step's list instead of computed again.  *pp
 * walks that list, in the same order as the new one.  Returns the contacts
 * copied, or -1 when the pair is not one of those. */
static int reuse(const vs_rmodel *m, vs_rwork *w, int32_t a, int32_t b, int32_t *pp, int32_t *nc) {
  if (!w->frozen || !w->frozen[a] || (b >= 0 && !w->frozen[b])) return -1;
  const vs_rcontact *pc = w->prev_contacts;
  while (*pp < w->n_prev && before(&pc[*pp], a, b, m->n_colliders)) (*pp)++;
  int k = 0;
  for (; *pp < w->n_prev && pc[*pp].a == a && pc[*pp].b == b; (*pp)++, k++) {
    if (*nc < w->max_contacts) w->contacts[(*nc)++] = pc[*pp];
    else w->dropped++;
  }
  return k;
}

static void freeze(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  if (!w->frozen) return;
  /* the last step's list, to copy from (it kept every contact: none dropped) */
  vs_rcontact *t = w->prev_contacts;
  w->prev_contacts = w->contacts;
  w->contacts = t;
  w->n_prev = w->n_contacts;
  const int all = w->dropped == 0;
  for (int32_t i = 0; i < m->n_bodies; i++) {
    const double *v = &s->v[3 * i], *av = &s->w[3 * i];
    w->frozen[i] = all && m->inv_mass[i] != 0 && w->asleep[i] && v[0] == 0 && v[1] == 0 &&
                   v[2] == 0 && av[0] == 0 && av[1] == 0 && av[2] == 0 &&
                   !memcmp(&s->x[3 * i], &w->last_x[3 * i], 3 * sizeof(double)) &&
                   !memcmp(&s->q[4 * i], &w->last_q[4 * i], 4 * sizeof(double)) &&
                   reach(m, s, i, w->h) == w->reach[i];
  }
  memcpy(w->last_x, s->x, 3 * sizeof(double) * (size_t)m->n_bodies);
  memcpy(w->last_q, s->q, 4 * sizeof(double) * (size_t)m->n_bodies);
}

void vs_rigid_find_contacts(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies, nc = 0, pp = 0;
  double margin = m->set.margin;
  freeze(m, s, w);
  w->dropped = 0;
  double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
  for (int32_t i = 0; i < n; i++) {
    w->reach[i] = reach(m, s, i, w->h);
    body_aabb(m, s, i, 0.5 * margin + w->reach[i], &w->aabb[6 * i]);
    w->order[i] = i;
    for (int k = 0; k < 3; k++) {
      double c = 0.5 * (w->aabb[6 * i + k] + w->aabb[6 * i + 3 + k]);
      sum[k] += c;
      sq[k] += c * c;
    }
  }
  /* sort and sweep along the axis on which the bodies spread most (a tower
   * along y swept on x was quadratic); the pairs are sorted afterwards, so
   * the axis changes no result */
  int ax = 0;
  double best = -1;
  for (int k = 0; k < 3; k++) {
    double var = n > 0 ? sq[k] - sum[k] * sum[k] / n : 0;
    if (var > best) best = var, ax = k;
  }
  int a1 = (ax + 1) % 3, a2 = (ax + 2) % 3;
  for (int32_t i = 0; i < n; i++) w->key[i] = w->aabb[6 * i + ax];
  msort_idx(w->order, w->tmp, w->key, n);
  int32_t np = 0;
  w->broad_tests = 0;
  for (int32_t oi = 0; oi < n; oi++) {
    int32_t i = w->order[oi];
    const double *bi = &w->aabb[6 * i];
    for (int32_t oj = oi + 1; oj < n; oj++) {
      int32_t j = w->order[oj];
      const double *bj = &w->aabb[6 * j];
      if (bj[ax] > bi[3 + ax]) break;
      w->broad_tests++;
      if (bj[a1] > bi[3 + a1] || bj[3 + a1] < bi[a1] || bj[a2] > bi[3 + a2] || bj[3 + a2] < bi[a2])
        continue;
      if (m->inv_mass[i] == 0 && m->inv_mass[j] == 0) continue;
      if (!vs_rmodel_may_collide(m, i, j)) continue;
      if (np >= w->max_contacts) {
        w->dropped++;
        continue;
      }
      int32_t lo = i < j ? i : j, hi = i < j ? j : i;
      w->pairs[np++] = (int64_t)lo * n + hi;
    }
  }
  msort_i64(w->pairs, w->pair_tmp, np);
  w->n_pairs = np;
  /* narrow phase in (a, colliders, then b) order */
  vs_rcontact buf[VS_RIGID_PAIR_MAX];
  int32_t pi = 0;
  for (int32_t a = 0; a < n; a++) {
    if (m->inv_mass[a] != 0) {
      for (int32_t c = 0; c < m->n_colliders; c++) {
        if (!aabb_collider(&m->colliders[c], &w->aabb[6 * a])) continue;
        if (reuse(m, w, a, -1 - c, &pp, &nc) >= 0) continue;
        int k = vs_rigid_collide_collider(m, s, a, c, margin + w->reach[a], buf);
        for (int q = 0; q < k; q++) {
          if (nc < w->max_contacts) put(&w->contacts[nc++], &buf[q]);
          else w->dropped++;
        }
      }
    }
    while (pi < np && w->pairs[pi] / n == a) {
      int32_t b = (int32_t)(w->pairs[pi] % n);
      pi++;
      if (reuse(m, w, a, b, &pp, &nc) >= 0) continue;
      int k = vs_rigid_collide_pair(m, s, a, b, margin + w->reach[a] + w->reach[b], buf);
      for (int q = 0; q < k; q++) {
        if (nc < w->max_contacts) put(&w->contacts[nc++], &buf[q]);
        else w->dropped++;
      }
    }
  }
  w->n_contacts = nc;
}
