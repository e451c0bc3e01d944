/* SPDX-License-Identifier: MIT */
/* rigid_bounce.c: the bounces (restitution) of the step's contacts, at the
 * start of each substep, and the impulses kept for the next step's warm
 * start, after the substeps. */
#include <string.h>

#include "solve/rigid/rigid_rows.h"

/* Restitution is a collision pass at the start of each substep, before any
 * of its impulses (Guendelman, Bridson and Fedkiw's order: collisions, then
 * contacts).  A point collides when it approaches faster than
 * restitution_threshold and meets its surface in the substep (its velocity
 * closes the separation left), and has carried no impulse in the step (a
 * point that has is in contact, and the sweeps hold it).  A colliding point
 * gets the impulse that turns its approach vn into -e vn; the bodies'
 * velocities change at once, so a point that the collision sends into its
 * neighbour collides in turn, in the same pass.  Sweeps over the manifolds
 * in alternating order, at most VS_RESTITUTION_SWEEPS of them, until no
 * point collides.  Each collision is a fresh impulse of one row (or a
 * patch's block) that reverses at most its approach, so a collision never
 * adds energy, and a row of touching balls struck at one end passes the
 * blow on from ball to ball: Newton's cradle.  Solved in the step's sweeps
 * instead, with the bounce after them (Box2D v3's order), the blow was
 * shared among the whole row first, and the struck contact bounced alone.
 *
 * The impulse acts at one point for both bodies (the contact point carried
 * along by their mean displacement) with lever arms from the current
 * centres and the inverse inertia of the current orientation, so that it
 * keeps linear and angular momentum; these rows are formed here, in a copy
 * of the point (the sweeps keep the step's).  The colliding points of a
 * patch are one block (the LCP of their rows, as the sweeps solve its
 * normal rows): the corners of a face that land together get the same
 * impulse each, and a cube dropped flat bounces flat (point by point, the
 * first landing left it turning at 2.4e-4 rad/s, and its next landings at
 * 7 rad/s at 5 substeps). */
#define VS_RESTITUTION_SWEEPS 8

/* Body i's inverse world inertia at its current orientation (the step's
 * w->inv_iw is that of the step's start: the bodies have turned since, and
 * the angular impulse must change I w by exactly r x P). */
static void inv_inertia_now(const vs_rmodel *m, const vs_rstate *s, int32_t i, double o[9]) {
  const double *d = &m->inv_inertia[3 * i];
  double R[9];
  vs_quat_to_mat(&s->q[4 * i], R);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      o[3 * r + c] = R[3 * r] * d[0] * R[3 * c] + R[3 * r + 1] * d[1] * R[3 * c + 1] +
                     R[3 * r + 2] * d[2] * R[3 * c + 2];
}

/* Point c's collision row at the current poses, into o (a copy of c):
 * lever arms, r x n, I^-1 (r x n), effective mass.  0 where the mass is
 * not finite. */
static int collision_row(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w,
                         const vs_rcontact *c, const double Ia[9], const double Ib[9],
                         vs_rcontact *o) {
  *o = *c;
  int32_t a = c->ia, b = c->ib;
  double p[3], ra[3], rb[3], sa[3], sb[3];
  for (int q = 0; q < 3; q++) {
    ra[q] = c->p[q] - (s->x[3 * a + q] - w->dp[6 * a + q]); /* from the step's centres */
    rb[q] = c->p[q] - (s->x[3 * b + q] - w->dp[6 * b + q]);
  }
  vs_cross3(&w->dp[6 * a + 3], ra, sa);
  vs_cross3(&w->dp[6 * b + 3], rb, sb);
  for (int q = 0; q < 3; q++) {
    p[q] = c->p[q] + 0.5 * (w->dp[6 * a + q] + sa[q] + w->dp[6 * b + q] + sb[q]);
    o->ra[q] = p[q] - s->x[3 * a + q];
    o->rb[q] = p[q] - s->x[3 * b + q];
  }
  jrow(Ia, o->ra, c->n, o->an, o->ian);
  jrow(Ib, o->rb, c->n, o->bn, o->ibn);
  double kn = m->inv_mass[a] + m->inv_mass[b] + vs_dot3(o->an, o->ian) + vs_dot3(o->bn, o->ibn);
  if (!(kn > 0) || !(kn < INFINITY)) return 0;
  o->mass_n = 1.0 / kn;
  return 1;
}

/* The velocity at which point c meets its surface in this substep of
 * length h: minus its separation left over h (0 when it touches or
 * penetrates), the separation taken as the sweeps take it (point_begin). */
static double meet_velocity(const vs_rwork *w, const vs_rcontact *c, double inv_h) {
  const double *da = &w->dp[6 * c->ia], *db = &w->dp[6 * c->ib];
  const double dd[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
  double sep = -c->depth + vs_dot3(c->n, dd) + vs_dot3(db + 3, c->bn) - vs_dot3(da + 3, c->an);
  return sep > 0 ? -sep * inv_h : 0.0;
}

/* The change of the normal velocity along n that this substep's gravity
 * (of length h) made, already in the velocities: on the moving bodies that
 * are awake (the others get none). */
static double gravity_kick(const vs_rmodel *m, const vs_rwork *w, int32_t a, int32_t b,
                           const double n[3], double h) {
  const double gn = h * vs_dot3(m->set.gravity, n);
  const int fa = m->inv_mass[a] != 0 && !w->asleep[a], fb = m->inv_mass[b] != 0 && !w->asleep[b];
  return (fb ? gn : 0.0) - (fa ? gn : 0.0);
}

/* The velocity a colliding point leaves with: its approach at the
 * substep's start, before the substep's gravity kick g, reversed and scaled
 * by e.  The collision takes place at the substep's start, so that with
 * e = 1 the positions retrace, substep by substep, the way down (symplectic
 * Euler is reversible): a ball bounces back to the height it fell from,
 * bounce after bounce.  Reversing the approach with the kick in it gained
 * the ball 0.75 % of its height at every bounce, and reversing it without
 * the kick, then giving the kick again, lost as much. */
static inline double rebound(double vn, double e, double g) { return -e * (vn - g); }

/* One sweep's collisions of manifold mi; returns 1 when any point collided. */
static int collide_manifold(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t mi,
                            int rev, double thr, double h) {
  const double inv_h = 1.0 / h;
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1], n = k1 - k0;
  int32_t a = w->contacts[k0].ia, b = w->contacts[k0].ib;
  const double ma = m->inv_mass[a], mb = m->inv_mass[b];
  double Ia[9], Ib[9];
  int have_rows = 0, hit = 0;
  /* a patch's points as one block */
  if (w->patch[mi].on && n >= 2 && n <= 4) {
    vs_rcontact r[4];
    double bv[4] = {0, 0, 0, 0}, x[4] = {0, 0, 0, 0};
    unsigned mask = 0;
    for (int32_t i = 0; i < n; i++) {
      const vs_rcontact *c = &w->contacts[k0 + i];
      if (c->pn_max != 0) continue;
      double vn = rowvel(s, a, b, c->n, c->an, c->bn);
      if (vn < -thr && vn < meet_velocity(w, c, inv_h)) mask |= 1u << i;
    }
    if (!mask) return 0;
    inv_inertia_now(m, s, a, Ia);
    inv_inertia_now(m, s, b, Ib);
    double K[10];
    int ok = 1;
    for (int32_t i = 0; i < n && ok; i++) ok = collision_row(m, s, w, &w->contacts[k0 + i], Ia, Ib, &r[i]);
    if (ok && vs_rigid_block_prepare(r, (int)n, ma + mb, K)) {
      for (int32_t i = 0; i < n; i++)
        if (mask >> i & 1) {
          double vn = rowvel(s, a, b, r[i].n, r[i].an, r[i].bn);
          bv[i] = vn - rebound(vn, r[i].restitution, gravity_kick(m, w, a, b, r[i].n, h));
        }
      vs_rigid_block_lcp((int)n, K, mask, bv, x, NULL, NULL);
      for (int32_t i = 0; i < n; i++)
        if (x[i] > 0) {
          push(s, a, b, ma, mb, r[i].n, r[i].ian, r[i].ibn, x[i]);
          hit = 1;
        }
      return hit;
    }
    have_rows = 1; /* the block cannot be formed: point by point */
  }
  for (int32_t kk = 0; kk < n; kk++) {
    const vs_rcontact *c = &w->contacts[rev ? k1 - 1 - kk : k0 + kk];
    if (c->pn_max != 0) continue;
    if (!(rowvel(s, a, b, c->n, c->an, c->bn) < -thr)) continue;
    if (!have_rows) {
      inv_inertia_now(m, s, a, Ia);
      inv_inertia_now(m, s, b, Ib);
      have_rows = 1;
    }
    vs_rcontact r;
    if (!collision_row(m, s, w, c, Ia, Ib, &r)) continue;
    double vn = rowvel(s, a, b, r.n, r.an, r.bn);
    if (!(vn < -thr && vn < meet_velocity(w, c, inv_h))) continue;
    double l = (rebound(vn, r.restitution, gravity_kick(m, w, a, b, r.n, h)) - vn) * r.mass_n;
    if (!(l > 0)) continue;
    push(s, a, b, ma, mb, r.n, r.ian, r.ibn, l);
    hit = 1;
  }
  return hit;
}

void vs_rigid_bounce(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h) {
  const double thr = m->set.restitution_threshold;
  for (int sweep = 0; sweep < VS_RESTITUTION_SWEEPS; sweep++) {
    int hit = 0;
    for (int32_t t = 0; t < w->n_man; t++) {
      int32_t mi = (sweep & 1) ? w->n_man - 1 - t : t;
      if (w->contacts[w->man[mi]].restitution == 0 || vs_rigid_manifold_asleep(m, w, mi)) continue;
      hit |= collide_manifold(m, s, w, mi, sweep & 1, thr, h);
    }
    if (!hit) return;
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
