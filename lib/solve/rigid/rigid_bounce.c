/* SPDX-License-Identifier: MIT */
/* rigid_bounce.c: after the substeps -- the bounces (restitution) of the
 * step's contacts, and the impulses kept for the next step's warm start. */
#include <string.h>

#include "solve/rigid/rigid_rows.h"

/* Restitution comes after the positions moved: its impulse acts at one point
 * for both bodies (the contact point carried along by their mean
 * displacement), with lever arms from the current centres, so that it keeps
 * angular momentum.  The bouncing points are solved together, by
 * VS_RESTITUTION_SWEEPS Gauss-Seidel sweeps over the manifolds in
 * alternating order, each point's accumulated normal impulse clamped at
 * >= 0, a patch's points as one block (bounce_block): a manifold whose
 * points land together (a box falling flat) gets the same impulse at every
 * point, no spin.  The rows are formed here, in the
 * points' own fields (few contacts bounce, and the step is over). */
#define VS_RESTITUTION_SWEEPS 8

/* Body i's inverse world inertia at its current orientation (the step's
 * w->inv_iw is that of the step's start: restitution acts after the bodies
 * turned, and its angular impulse must change I w by exactly r x P). */
static void inv_inertia_now(const vs_rmodel *m, const vs_rstate *s, int32_t i, double o[9]) {
  const double *d = &m->inv_inertia[3 * i];
  double R[9];
  vs_quat_to_mat(&s->q[4 * i], R);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      o[3 * r + c] = R[3 * r] * d[0] * R[3 * c] + R[3 * r + 1] * d[1] * R[3 * c + 1] +
                     R[3 * r + 2] * d[2] * R[3 * c + 2];
}

/* The bouncing points of a patch (2 to 4 points of one normal) as one
 * block, as the sweeps solve its normal rows (rigid_block.c): the LCP of
 * their rows at the current orientation, the others' impulses held, so that
 * a face landing flat gets equal impulses at its corners and no spin (point
 * by point, 8 sweeps left a cube dropped flat turning at 2.4e-4 rad/s, which
 * its next landing made 7 rad/s at 5 substeps).  P->K is formed in the
 * first sweep (the step's sweeps are done with it).  Returns 0 where the
 * block cannot be formed or nothing of it bounces: then point by point. */
static int bounce_block(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, vs_rpatch *P,
                        int32_t k0, int32_t n, int32_t a, int32_t b, int first) {
  vs_rcontact *c = &w->contacts[k0];
  if (n < 2 || n > 4) return 0;
  unsigned mask = 0;
  for (int32_t i = 0; i < n; i++)
    if (c[i].target == c[i].target) mask |= 1u << i;
  if (!mask) return 1; /* nothing bounces: nothing to do */
  if (first) P->blk = vs_rigid_block_prepare(c, (int)n, m->inv_mass[a] + m->inv_mass[b], P->K);
  if (!P->blk) return 0;
  double bv[4] = {0, 0, 0, 0}, x[4];
  for (int32_t i = 0; i < n; i++) {
    x[i] = c[i].pn;
    if (mask >> i & 1) bv[i] = rowvel(s, a, b, c[i].n, c[i].an, c[i].bn) - c[i].target;
  }
  vs_rigid_block_lcp((int)n, P->K, mask, bv, x, NULL, NULL);
  for (int32_t i = 0; i < n; i++) {
    double d = x[i] - c[i].pn;
    c[i].pn = x[i];
    if (d != 0) push(s, a, b, m->inv_mass[a], m->inv_mass[b], c[i].n, c[i].ian, c[i].ibn, d);
  }
  return 1;
}

void vs_rigid_restitution(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  double thr = m->set.restitution_threshold;
  int32_t nb = 0;
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    if (c->restitution == 0 || c->vn0 > -thr || c->pn_max == 0) {
      c->target = NAN; /* not bouncing */
      continue;
    }
    int32_t a = c->ia, b = c->ib;
    double p[3], ra[3], rb[3];
    for (int q = 0; q < 3; q++) {
      ra[q] = c->p[q] - (s->x[3 * a + q] - w->dp[6 * a + q]); /* from the step's centres */
      rb[q] = c->p[q] - (s->x[3 * b + q] - w->dp[6 * b + q]);
    }
    double sa[3], sb[3];
    vs_cross3(&w->dp[6 * a + 3], ra, sa);
    vs_cross3(&w->dp[6 * b + 3], rb, sb);
    for (int q = 0; q < 3; q++) {
      p[q] = c->p[q] + 0.5 * (w->dp[6 * a + q] + sa[q] + w->dp[6 * b + q] + sb[q]);
      c->ra[q] = p[q] - s->x[3 * a + q];
      c->rb[q] = p[q] - s->x[3 * b + q];
    }
    double Ia[9], Ib[9];
    inv_inertia_now(m, s, a, Ia);
    inv_inertia_now(m, s, b, Ib);
    jrow(Ia, c->ra, c->n, c->an, c->ian);
    jrow(Ib, c->rb, c->n, c->bn, c->ibn);
    double kn = m->inv_mass[a] + m->inv_mass[b] + vs_dot3(c->an, c->ian) + vs_dot3(c->bn, c->ibn);
    if (!(kn > 0)) {
      c->target = NAN;
      continue;
    }
    c->mass_n = 1.0 / kn;
    c->target = -c->restitution * c->vn0;
    nb++;
  }
  if (nb == 0) return;
  for (int sweep = 0; sweep < VS_RESTITUTION_SWEEPS; sweep++) {
    for (int32_t mm = 0; mm < w->n_man; mm++) {
      int32_t mi = (sweep & 1) ? w->n_man - 1 - mm : mm;
      int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
      int32_t n = k1 - k0, a = w->contacts[k0].ia, b = w->contacts[k0].ib;
      vs_rpatch *P = &w->patch[mi];
      if (P->on && P->blk && bounce_block(m, s, w, P, k0, n, a, b, sweep == 0)) continue;
      for (int32_t kk = 0; kk < n; kk++) {
        vs_rcontact *c = &w->contacts[(sweep & 1) ? k1 - 1 - kk : k0 + kk];
        if (!(c->target == c->target)) continue;
        double vn = rowvel(s, a, b, c->n, c->an, c->bn);
        double ln = (c->target - vn) * c->mass_n;
        double np = c->pn + ln;
        if (np < 0) np = 0;
        ln = np - c->pn;
        c->pn = np;
        push(s, a, b, m->inv_mass[a], m->inv_mass[b], c->n, c->ian, c->ibn, ln);
      }
    }
  }
}

/* The approach speed a bounce reverses is the fastest at which a point met
 * its surface: the approach at the step's start (prepare), or in a later
 * substep of the step where the point's velocity closes the separation
 * left (a speculative point found with a gap meets its surface later in the
 * step, after more gravity).  It is taken before any impulse of the
 * substep, and only while the point has carried no impulse in the step:
 * once it has, its approach is what the solve pushed into it, not an
 * impact.  Taken after other impulses -- as the sweeps once did, manifold
 * by manifold -- a push counted as an impact: in a row of touching balls
 * struck at one end every contact then bounced from the speed at which the
 * sweeps had pushed each ball into the next, and the row gained energy at
 * each stroke (a cradle of five: 4.9 J to 15 J in 3 s). */
void vs_rigid_approach(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w, double h) {
  const double inv_h = 1.0 / h;
  for (int32_t mi = 0; mi < w->n_man; mi++) {
    int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
    if (w->contacts[k0].restitution == 0 || vs_rigid_manifold_asleep(m, w, mi)) continue;
    int32_t a = w->contacts[k0].ia, b = w->contacts[k0].ib;
    const double *da = &w->dp[6 * a], *db = &w->dp[6 * b];
    const double dd[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
    for (int32_t k = k0; k < k1; k++) {
      vs_rcontact *c = &w->contacts[k];
      if (c->pn_max != 0) continue;
      /* the separation left, as the sweeps take it (point_begin) */
      double sep = -c->depth + vs_dot3(c->n, dd) + vs_dot3(db + 3, c->bn) - vs_dot3(da + 3, c->an);
      double meet = sep > 0 ? -sep * inv_h : 0.0;
      double vn = rowvel(s, a, b, c->n, c->an, c->bn);
      if (vn < meet && vn < c->vn0) c->vn0 = vn;
    }
  }
}

/* The cache holds, per point, the normal impulse and a friction vector: a
 * point's own, or its equal share of its patch's (the tangent impulse plus
 * the twist impulse along the normal, which a tangent vector leaves free);
 * prepare sums the shares of the points it finds again. */
void vs_rigid_store_impulses(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w) {
  for (int32_t mi = 0; mi < w->n_man; mi++) {
    int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
    const vs_rpatch *P = &w->patch[mi];
    /* a sleeping manifold's rows were not prepared: it keeps its impulses */
    const int idle = m->set.sleep && vs_rigid_manifold_asleep(m, w, mi);
    double share[3] = {0, 0, 0};
    if (P->on && !idle)
      for (int q = 0; q < 3; q++)
        share[q] = (P->pt1 * P->t1[q] + P->pt2 * P->t2[q] + P->ptw * P->n[q]) / (k1 - k0);
    for (int32_t k = k0; k < k1; k++) {
      const vs_rcontact *c = &w->contacts[k];
      s->cache_ab[2 * k] = c->a;
      s->cache_ab[2 * k + 1] = c->b;
      s->cache_feature[k] = c->feature;
      double *imp = &s->cache_impulse[4 * k];
      imp[0] = c->pn;
      for (int q = 0; q < 3; q++)
        imp[1 + q] = idle    ? c->fcache[q]
                     : P->on ? share[q]
                           : w->fric[k].pt1 * w->fric[k].t1[q] + w->fric[k].pt2 * w->fric[k].t2[q];
    }
  }
  s->n_cache = w->n_contacts;
}
