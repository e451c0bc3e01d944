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
 * gets the impulse that turns its approach into -e times it (rebound), at
 * the time into the substep at which it meets its surface (hit_time); the
 * bodies' velocities change at once, so a point that the collision sends
 * into its neighbour collides in turn, in the same pass.  Sweeps over the
 * manifolds in alternating order, at most VS_RESTITUTION_SWEEPS of them,
 * until no point collides.  Each collision is a fresh impulse of one row
 * (or a patch's block) that reverses at most its approach (with, under
 * gravity, what gravity adds to it until the collision), so the pass adds
 * no energy, and a row of touching balls struck at one end passes the blow
 * on from ball to ball: Newton's cradle.  Solved in the step's sweeps
 * instead, with the bounce after them (Box2D v3's order), the blow was
 * shared among the whole row first, and the struck contact bounced alone.
 *
 * The impulse acts at one point for both bodies (the contact point carried
 * along by their mean displacement) with lever arms from the centres of
 * the collision's time and the inverse inertia of the current orientation,
 * so that it keeps linear and angular momentum; these rows are formed
 * here, in a copy of the point (the sweeps keep the step's).  The colliding points of a
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

/* Point c's collision row at the poses of time t into the substep, into o
 * (a copy of c): lever arms, r x n, I^-1 (r x n), effective mass.  The
 * point is carried along by the bodies' mean displacement since the step's
 * start, then by the mean of its two velocities for t, each centre by its
 * own: the arms of the poses at which the collision happens, so that its
 * impulse keeps angular momentum (hit_time).  0 where the mass is not
 * finite. */
static int collision_row(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w,
                         const vs_rcontact *c, const double Ia[9], const double Ib[9], double t,
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
  if (t > 0) {
    double pa[3], pb[3];
    point_vel(s, a, o->ra, pa);
    point_vel(s, b, o->rb, pb);
    for (int q = 0; q < 3; q++) {
      double dp = 0.5 * t * (pa[q] + pb[q]);
      o->ra[q] += dp - t * s->v[3 * a + q];
      o->rb[q] += dp - t * s->v[3 * b + q];
    }
  }
  jrow(Ia, o->ra, c->n, o->an, o->ian);
  jrow(Ib, o->rb, c->n, o->bn, o->ibn);
  double kn = m->inv_mass[a] + m->inv_mass[b] + vs_dot3(o->an, o->ian) + vs_dot3(o->bn, o->ibn);
  if (!(kn > 0) || !(kn < INFINITY)) return 0;
  o->mass_n = 1.0 / kn;
  return 1;
}

/* Point c's separation left at the substep's start, as the sweeps take it
 * (point_begin): the step's, corrected by the bodies' displacement since. */
static double separation(const vs_rwork *w, const vs_rcontact *c) {
  const double *da = &w->dp[6 * c->ia], *db = &w->dp[6 * c->ib];
  const double dd[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
  return -c->depth + vs_dot3(c->n, dd) + vs_dot3(db + 3, c->bn) - vs_dot3(da + 3, c->an);
}

/* Whether a point of separation sep approaching at vn (< 0) collides in
 * this substep of length h: faster than thr, and its velocity closes the
 * separation (one touching or penetrating closes it at any speed). */
static inline int collides(double vn, double sep, double thr, double h) {
  return vn < -thr && vn < (sep > 0 ? -sep / h : 0.0);
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

/* The velocity a colliding point leaves with, from its approach vn (this
 * substep's gravity kick g in it) and f = 1 - 2 t / h for a collision t into
 * the substep: -e (v0 + 2 (t / h) g), v0 = vn - g the approach at the
 * substep's start.  For e = 1 that is the velocity that keeps symplectic
 * Euler's conserved energy v^2 / 2 + g y - g h v / 2 through the bounce
 * (positions placed by hit_time), so that a ball bounces back to the
 * height it fell from, bounce after bounce.  Reversing vn itself gained a
 * ball 0.75 % of its height at every bounce. */
static inline double rebound(double vn, double e, double g, double f) { return -e * (vn - f * g); }

/* When in the substep (0 to h) the bodies a and b collide at point c of
 * separation sep, approaching at vn - g before the substep's gravity: when
 * the approach closes the separation, or later, when the collision that
 * gave one of them its velocity took place (a blow passed on from body to
 * body happens at the time of the first collision).  The collision's
 * impulse l acts at that time: the bodies move with their approach until
 * then and with the rebound after, which the positions get through the
 * pseudo velocities (the split impulse's, rigid_solve.c): -t/h times the
 * impulse on them.  Without it a ball bounced back from up to one
 * substep's travel in front of its surface (10 cm at 50 m/s). */
static double hit_time(const vs_rmodel *m, const vs_rwork *w, int32_t a, int32_t b, double sep,
                       double vn, double g, double h) {
  double t = 0.0, closing = g - vn;
  if (sep > 0 && closing > 0) t = sep < closing * h ? sep / closing : h;
  if (m->inv_mass[a] != 0 && w->hit_t[a] > t) t = w->hit_t[a];
  if (m->inv_mass[b] != 0 && w->hit_t[b] > t) t = w->hit_t[b];
  return t;
}

/* Impulse l along row r on the pseudo velocities (moving bodies only). */
static void pseudo_push(vs_rwork *w, int32_t a, int32_t b, double ma, double mb,
                        const vs_rcontact *r, double l) {
  double *pa = &w->pv[6 * a], *pb = &w->pv[6 * b];
  for (int q = 0; q < 3; q++) {
    if (ma != 0) {
      pa[q] -= ma * l * r->n[q];
      pa[3 + q] -= l * r->ian[q];
    }
    if (mb != 0) {
      pb[q] += mb * l * r->n[q];
      pb[3 + q] += l * r->ibn[q];
    }
  }
}

/* The collision of bodies a and b at time t: both carry it on. */
static void mark_hit(const vs_rmodel *m, vs_rwork *w, int32_t a, int32_t b, double t) {
  if (m->inv_mass[a] != 0) w->hit_t[a] = t;
  if (m->inv_mass[b] != 0) w->hit_t[b] = t;
}

/* One sweep's collisions of manifold mi; returns 1 when any point collided. */
static int collide_manifold(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int rev,
                            double thr, double h) {
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1], n = k1 - k0;
  int32_t a = w->contacts[k0].ia, b = w->contacts[k0].ib;
  const double ma = m->inv_mass[a], mb = m->inv_mass[b];
  double Ia[9], Ib[9];
  int have_rows = 0, hit = 0;
  /* a patch's points as one block */
  if (w->patch[mi].on && n >= 2 && n <= 4) {
    vs_rcontact r[4];
    double bv[4] = {0, 0, 0, 0}, x[4] = {0, 0, 0, 0}, t[4] = {0, 0, 0, 0};
    unsigned mask = 0;
    for (int32_t i = 0; i < n; i++) {
      const vs_rcontact *c = &w->contacts[k0 + i];
      if (c->pn_max != 0) continue;
      if (collides(rowvel(s, a, b, c->n, c->an, c->bn), separation(w, c), thr, h)) mask |= 1u << i;
    }
    if (!mask) return 0;
    inv_inertia_now(m, s, a, Ia);
    inv_inertia_now(m, s, b, Ib);
    double K[10], g = gravity_kick(m, w, a, b, w->contacts[k0].n, h);
    int ok = 1;
    for (int32_t i = 0; i < n; i++) {
      const vs_rcontact *c = &w->contacts[k0 + i];
      if (mask >> i & 1)
        t[i] = hit_time(m, w, a, b, separation(w, c), rowvel(s, a, b, c->n, c->an, c->bn), g, h);
    }
    for (int32_t i = 0; i < n && ok; i++)
      ok = collision_row(m, s, w, &w->contacts[k0 + i], Ia, Ib, t[i], &r[i]);
    if (ok && vs_rigid_block_prepare(r, (int)n, ma + mb, K)) {
      for (int32_t i = 0; i < n; i++)
        if (mask >> i & 1) {
          double vn = rowvel(s, a, b, r[i].n, r[i].an, r[i].bn);
          bv[i] = vn - rebound(vn, r[i].restitution, g, 1.0 - 2.0 * t[i] / h);
        }
      vs_rigid_block_lcp((int)n, K, mask, bv, x, NULL, NULL);
      double tmax = 0;
      for (int32_t i = 0; i < n; i++)
        if (x[i] > 0) {
          push(s, a, b, ma, mb, r[i].n, r[i].ian, r[i].ibn, x[i]);
          pseudo_push(w, a, b, ma, mb, &r[i], -t[i] / h * x[i]);
          tmax = t[i] > tmax ? t[i] : tmax;
          hit = 1;
        }
      if (hit) mark_hit(m, w, a, b, tmax);
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
    double sep = separation(w, c), g = gravity_kick(m, w, a, b, c->n, h);
    double t = hit_time(m, w, a, b, sep, rowvel(s, a, b, c->n, c->an, c->bn), g, h);
    vs_rcontact r;
    if (!collision_row(m, s, w, c, Ia, Ib, t, &r)) continue;
    double vn = rowvel(s, a, b, r.n, r.an, r.bn);
    if (!collides(vn, sep, thr, h)) continue;
    double l = (rebound(vn, r.restitution, g, 1.0 - 2.0 * t / h) - vn) * r.mass_n;
    if (!(l > 0)) continue;
    push(s, a, b, ma, mb, r.n, r.ian, r.ibn, l);
    pseudo_push(w, a, b, ma, mb, &r, -t / h * l);
    mark_hit(m, w, a, b, t);
    hit = 1;
  }
  return hit;
}

void vs_rigid_bounce(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h) {
  const double thr = m->set.restitution_threshold;
  memset(w->hit_t, 0, sizeof(double) * ((size_t)m->n_bodies + 1));
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
