/* SPDX-License-Identifier: MIT */
/* rigid_prepare.c: a step's contact rows, once per step before the substeps
 * (rigid_solve.c sweeps them): the manifolds (runs of contacts of one body
 * pair) and which of them are patches (one normal: their friction at the
 * centre, their normal rows one block), each point's r x n, I^-1 (r x n) and
 * effective mass, the per-point friction rows of the other points, and the
 * warm-start impulses found in the cache (body pair and feature id). */
#include <string.h>

#include "solve/rigid/rigid_rows.h"

static void tangents(const double n[3], double t1[3], double t2[3]) {
  static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
  vs_cross3(n, fabs(n[0]) < 0.57 ? ex : ey, t1);
  double l = vs_len3(t1);
  t1[0] /= l;
  t1[1] /= l;
  t1[2] /= l;
  vs_cross3(n, t1, t2);
}

/* The contact order: body a, then colliders (by index), then bodies b, then feature. */
static int ckey_cmp(int32_t a1, int32_t b1, uint32_t f1, int32_t a2, int32_t b2, uint32_t f2,
                    int32_t nc) {
  if (a1 != a2) return a1 < a2 ? -1 : 1;
  int64_t k1 = b1 < 0 ? (int64_t)(-1 - b1) : (int64_t)nc + b1;
  int64_t k2 = b2 < 0 ? (int64_t)(-1 - b2) : (int64_t)nc + b2;
  if (k1 != k2) return k1 < k2 ? -1 : 1;
  if (f1 != f2) return f1 < f2 ? -1 : 1;
  return 0;
}

/* The friction rows' target: a moving surface (surface_velocity) is matter
 * moving along the body, so friction drives the relative velocity of the
 * bodies' points, v_b - v_a, towards s_a - s_b instead of zero (Box2D's
 * tangent speed, Bullet's contact surface velocity); only its tangential
 * part reaches the rows.  Zero targets leave every row's bits as they were
 * (x - 0 is x). */
static void surface_target(const vs_rmodel *m, const vs_rstate *s, int32_t a, int32_t b,
                           const double t1[3], const double t2[3], double *s1, double *s2) {
  *s1 = *s2 = 0.0;
  if (!m->motion || !m->motion->any_surface) return;
  double sa[3], sb[3], d[3];
  vs_rigid_surface_velocity(m, &s->q[4 * a], a, sa);
  vs_rigid_surface_velocity(m, &s->q[4 * b], b, sb);
  vs_sub3(sa, sb, d);
  *s1 = vs_dot3(d, t1);
  *s2 = vs_dot3(d, t2);
}

/* Friction rows of a patch at its centre (manifolds whose points share one
 * normal: box-box faces, a box or capsule on a plane): two tangent rows and a
 * twist row about the normal, solved once per manifold instead of two rows
 * per point (Coulomb: |(pt1, pt2)| <= friction * sum pn, |ptw| <= friction *
 * sum pn * mean radius of the points about the centre). */
static void prepare_patch(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi) {
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1], cnt = k1 - k0;
  vs_rpatch *P = &w->patch[mi];
  const vs_rcontact *c0 = &w->contacts[k0];
  int32_t a = c0->ia, b = c0->ib;
  double pc[3] = {0, 0, 0}, f[3] = {0, 0, 0};
  for (int32_t k = k0; k < k1; k++)
    for (int q = 0; q < 3; q++) {
      pc[q] += w->contacts[k].p[q];
      f[q] += w->contacts[k].fcache[q];
    }
  for (int q = 0; q < 3; q++) pc[q] /= cnt;
  double rt = 0;
  for (int32_t k = k0; k < k1; k++) {
    double d[3];
    vs_sub3(w->contacts[k].p, pc, d);
    rt += vs_len3(d);
  }
  P->rtw = rt / cnt;
  P->friction = c0->friction;
  memcpy(P->n, c0->n, sizeof P->n);
  double ra[3], rb[3];
  vs_sub3(pc, &s->x[3 * a], ra);
  vs_sub3(pc, &s->x[3 * b], rb);
  tangents(c0->n, P->t1, P->t2);
  double msum = m->inv_mass[a] + m->inv_mass[b];
  const double *Ia = &w->inv_iw[9 * a], *Ib = &w->inv_iw[9 * b];
  jrow(Ia, ra, P->t1, P->a1, P->ia1);
  jrow(Ib, rb, P->t1, P->b1, P->ib1);
  jrow(Ia, ra, P->t2, P->a2, P->ia2);
  jrow(Ib, rb, P->t2, P->b2, P->ib2);
  double k1m = msum + vs_dot3(P->a1, P->ia1) + vs_dot3(P->b1, P->ib1);
  double k2m = msum + vs_dot3(P->a2, P->ia2) + vs_dot3(P->b2, P->ib2);
  P->mass_t1 = k1m > 0 ? 1.0 / k1m : 0.0;
  P->mass_t2 = k2m > 0 ? 1.0 / k2m : 0.0;
  vs_mat3_mul(Ia, c0->n, P->iaw);
  vs_mat3_mul(Ib, c0->n, P->ibw);
  double kw = vs_dot3(c0->n, P->iaw) + vs_dot3(c0->n, P->ibw);
  P->mass_tw = kw > 0 ? 1.0 / kw : 0.0;
  P->pt1 = vs_dot3(f, P->t1);
  P->pt2 = vs_dot3(f, P->t2);
  surface_target(m, s, a, b, P->t1, P->t2, &P->s1, &P->s2);
  P->ptw = P->rtw > 0 ? vs_dot3(f, c0->n) : 0.0;
  /* the block's matrix is formed when a sweep first needs it (a manifold
   * that never carries a load, a box's side at a gap, never does) */
  P->blk = cnt >= 2 && cnt <= 4 && msum > 0 ? 2 : 0;
  double sum = 0;
  for (int32_t k = k0; k < k1; k++) sum += w->contacts[k].pn;
  P->psum = sum;
}

void vs_rigid_prepare(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies;
  const vs_rsettings *st = &m->set;
  int32_t ci = 0; /* walk of the (sorted) cache */
  w->matched = 0;
  w->n_bouncy = 0;
  /* manifolds, and which of them are patches (one normal, bit for bit) */
  w->n_man = 0;
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    int32_t a = c->a, b = c->b < 0 ? n : c->b;
    c->ia = a;
    c->ib = b;
    if (k == 0 || w->contacts[k - 1].ia != a || w->contacts[k - 1].ib != b) {
      w->man[w->n_man] = k;
      w->patch[w->n_man++].on = 1;
    } else if (memcmp(c->n, w->contacts[k - 1].n, sizeof c->n) != 0) {
      w->patch[w->n_man - 1].on = 0;
    }
  }
  w->man[w->n_man] = w->n_contacts;
  int32_t mi = -1;
  double fr = 0.0, re = 0.0; /* the manifold's pair friction and restitution */
  int idle = 0;              /* the manifold sleeps (rigid_sleep.c): its impulses only */
  const int sleep = st->sleep != 0; /* without sleeping no manifold sleeps: no call */
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    int32_t a = c->ia, b = c->ib;
    if (k == w->man[mi + 1]) {
      mi++;
      double fb, eb;
      if (c->b < 0) {
        fb = m->colliders[-1 - c->b].friction;
        eb = m->colliders[-1 - c->b].restitution;
      } else {
        fb = m->friction[b];
        eb = m->restitution[b];
      }
      fr = sqrt(m->friction[a] * fb);
      re = m->restitution[a] > eb ? m->restitution[a] : eb;
      idle = sleep && vs_rigid_manifold_asleep(m, w, mi);
    }
    int patch = w->patch[mi].on;
    c->friction = fr;
    c->restitution = re;
    vs_rfric *fc = &w->fric[k];
    if (!idle) {
      vs_sub3(c->p, &s->x[3 * a], c->ra);
      vs_sub3(c->p, &s->x[3 * b], c->rb);
      double msum = m->inv_mass[a] + m->inv_mass[b];
      const double *Ia = &w->inv_iw[9 * a], *Ib = &w->inv_iw[9 * b];
      jrow(Ia, c->ra, c->n, c->an, c->ian);
      jrow(Ib, c->rb, c->n, c->bn, c->ibn);
      double kn = msum + vs_dot3(c->an, c->ian) + vs_dot3(c->bn, c->ibn);
      c->mass_n = kn > 0 ? 1.0 / kn : 0.0;
      if (!patch) {
        tangents(c->n, fc->t1, fc->t2);
        jrow(Ia, c->ra, fc->t1, fc->a1, fc->ia1);
        jrow(Ib, c->rb, fc->t1, fc->b1, fc->ib1);
        jrow(Ia, c->ra, fc->t2, fc->a2, fc->ia2);
        jrow(Ib, c->rb, fc->t2, fc->b2, fc->ib2);
        double k1 = msum + vs_dot3(fc->a1, fc->ia1) + vs_dot3(fc->b1, fc->ib1);
        double k2 = msum + vs_dot3(fc->a2, fc->ia2) + vs_dot3(fc->b2, fc->ib2);
        fc->mass_t1 = k1 > 0 ? 1.0 / k1 : 0.0;
        fc->mass_t2 = k2 > 0 ? 1.0 / k2 : 0.0;
        fc->pt1 = fc->pt2 = 0.0;
        surface_target(m, s, a, b, fc->t1, fc->t2, &fc->s1, &fc->s2);
      }
      if (re != 0) w->n_bouncy++;
    }
    c->pn = c->pn_max = c->pp = 0.0;
    c->fcache[0] = c->fcache[1] = c->fcache[2] = 0.0;
    if (st->warm_start) {
      while (ci < s->n_cache &&
             ckey_cmp(s->cache_ab[2 * ci], s->cache_ab[2 * ci + 1], s->cache_feature[ci], c->a,
                      c->b, c->feature, m->n_colliders) < 0)
        ci++;
      if (ci < s->n_cache && ckey_cmp(s->cache_ab[2 * ci], s->cache_ab[2 * ci + 1],
                                      s->cache_feature[ci], c->a, c->b, c->feature,
                                      m->n_colliders) == 0) {
        const double *imp = &s->cache_impulse[4 * ci];
        w->matched++;
        c->pn = imp[0];
        memcpy(c->fcache, imp + 1, sizeof c->fcache);
        if (!patch && !idle) {
          fc->pt1 = vs_dot3(imp + 1, fc->t1);
          fc->pt2 = vs_dot3(imp + 1, fc->t2);
        }
      }
    }
  }
  for (mi = 0; mi < w->n_man; mi++)
    if (w->patch[mi].on && !(sleep && vs_rigid_manifold_asleep(m, w, mi)))
      prepare_patch(m, s, w, mi);
}
