/* SPDX-License-Identifier: MIT */
/* rigid_solve.c: sequential impulses (Catto) over contacts and joints.
 *
 * Contacts: an accumulated normal impulse clamped at >= 0, a friction impulse
 * in two tangent directions whose accumulated vector is clamped to the
 * Coulomb disc |pt| <= friction * pn (pair friction sqrt(fa fb), restitution
 * max(ea, eb)), the effective mass with its rotational terms (Catto, "Iterative dynamics
 * with temporal coherence", 2005)
 *   1/ma + 1/mb + n.((Ia^-1 (ra x n)) x ra) + n.((Ib^-1 (rb x n)) x rb),
 * a Baumgarte bias baumgarte/h * max(depth - slop, 0) (capped at
 * max_bias_velocity), speculative contacts (a gap g lets the bodies approach
 * at g/h), warm starting from the last step's impulses of the same contact
 * (body pair and feature id); restitution is a collision pass at each
 * substep's start, before these sweeps (rigid_bounce.c).  The Baumgarte
 * push is a split impulse (Catto, Bullet): it acts on pseudo velocities that
 * move the positions in this substep and are then dropped, so that it never
 * turns into momentum (no bounce from penetration, and every real impulse
 * acts before the positions move, at one point for both bodies).
 *
 * Substeps (Box2D v3's "soft step" layout): contacts are found once per step;
 * each substep's depth is the step's depth corrected by the bodies'
 * displacement since the step began (w->dp: linear and rotation vector), so
 * the narrow phase and the effective masses are paid once.  The Jacobian
 * rows r x n and I^-1 (r x n) are precomputed per contact (rigid_prepare.c);
 * a patch's normal rows are one block (rigid_block.c).
 *
 * Joints: their rows are rigid_joint.c's, the forest's rigid_tree.c's; the
 * bounces and the warm-start cache rigid_bounce.c's. */
#include <string.h>

#include "solve/rigid/rigid_rows.h"

/* The two bodies' velocities of one manifold in registers over the
 * manifold's rows: x and y of each vector as a pair (GCC/clang vector
 * extension: two doubles, plain IEEE element-wise operations, so one packed
 * multiply or add rounds exactly as the two scalar ones it replaces), z
 * alone.  Every sum is formed in the same order as the scalar expressions
 * in the comments (same bits, about a third fewer instructions). */
typedef double v2d __attribute__((vector_size(16)));

typedef struct vel2 {
  v2d va, wa, vb, wb;          /* x, y */
  double vaz, waz, vbz, wbz;   /* z */
} vel2;

static inline v2d ld2(const double *p) {
  v2d r;
  memcpy(&r, p, sizeof r);
  return r;
}

static inline void st2(double *p, v2d v) { memcpy(p, &v, sizeof v); }

static inline v2d splat(double x) { return (v2d){x, x}; }

static inline void vload(vel2 *v, const vs_rstate *s, int32_t a, int32_t b) {
  const double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  v->va = ld2(va), v->vaz = va[2];
  v->wa = ld2(wa), v->waz = wa[2];
  v->vb = ld2(vb), v->vbz = vb[2];
  v->wb = ld2(wb), v->wbz = wb[2];
}

/* Never writes a body of zero inverse mass (the world slot, a fixed body):
 * its velocity cannot change, and the coloured solve relies on it (two
 * constraints of a colour may share a static body). */
static inline void vstore(const vel2 *v, vs_rstate *s, int32_t a, int32_t b, double ma, double mb) {
  if (ma != 0) {
    double *va = &s->v[3 * a], *wa = &s->w[3 * a];
    st2(va, v->va), va[2] = v->vaz;
    st2(wa, v->wa), wa[2] = v->waz;
  }
  if (mb != 0) {
    double *vb = &s->v[3 * b], *wb = &s->w[3 * b];
    st2(vb, v->vb), vb[2] = v->vbz;
    st2(wb, v->wb), wb[2] = v->wbz;
  }
}

/* d0 (vbx - vax) + d1 (vby - vay) + d2 (vbz - vaz)
 *   + (wbx bd0 + wby bd1 + wbz bd2) - (wax ad0 + way ad1 + waz ad2) */
static inline double lrow(const vel2 *v, const double *restrict d, const double *restrict ad,
                          const double *restrict bd) {
  v2d p = ld2(d) * (v->vb - v->va), pb = v->wb * ld2(bd), pa = v->wa * ld2(ad);
  double lin = p[0] + p[1] + d[2] * (v->vbz - v->vaz);
  double rb = pb[0] + pb[1] + v->wbz * bd[2];
  double ra = pa[0] + pa[1] + v->waz * ad[2];
  return lin + rb - ra;
}

static inline void lpush(vel2 *v, double ma, double mb, const double *restrict d,
                         const double *restrict iad, const double *restrict ibd, double l) {
  double la = ma * l, lb = mb * l;
  v2d d2 = ld2(d), l2 = splat(l);
  v->va -= splat(la) * d2, v->vaz -= la * d[2];
  v->wa -= l2 * ld2(iad), v->waz -= l * iad[2];
  v->vb += splat(lb) * d2, v->vbz += lb * d[2];
  v->wb += l2 * ld2(ibd), v->wbz += l * ibd[2];
}

/* The twist row of a patch: angular only, about the normal. */
static inline void twist(vel2 *v, const vs_rpatch *P, double l) {
  v2d l2 = splat(l);
  v->wa -= l2 * ld2(P->iaw), v->waz -= l * P->iaw[2];
  v->wb += l2 * ld2(P->ibw), v->wbz += l * P->ibw[2];
}

/* One tangent row of a friction point or patch (vs_rfric, vs_rpatch): its
 * direction, r x t of each body, their I^-1 (r x t), its effective mass and
 * its accumulated impulse. */
typedef struct trow {
  const double *t, *a, *b, *ia, *ib;
  double mass;
  double s;   /* target relative velocity along t (a moving surface; 0 otherwise) */
  double *pt;
} trow;
#define TROW(F, i) ((trow){(F)->t##i, (F)->a##i, (F)->b##i, (F)->ia##i, (F)->ib##i, (F)->mass_t##i, \
                           (F)->s##i, &(F)->pt##i})

/* Coulomb friction of two tangent rows: each row's impulse for zero
 * tangent velocity, their accumulated sum clamped to the disc of radius lim,
 * the change applied. */
static inline __attribute__((always_inline)) void friction_disc(vel2 *v, double ma, double mb,
                                                                double lim, trow r1, trow r2) {
  double l1 = -(lrow(v, r1.t, r1.a, r1.b) - r1.s) * r1.mass;
  double l2 = -(lrow(v, r2.t, r2.a, r2.b) - r2.s) * r2.mass;
  double n1 = *r1.pt + l1, n2 = *r2.pt + l2;
  double len2 = n1 * n1 + n2 * n2;
  if (len2 > lim * lim) {
    double sc = len2 > 0 ? lim / sqrt(len2) : 0.0;
    n1 *= sc;
    n2 *= sc;
  }
  l1 = n1 - *r1.pt;
  l2 = n2 - *r2.pt;
  *r1.pt = n1;
  *r2.pt = n2;
  lpush(v, ma, mb, r1.t, r1.ia, r1.ib, l1);
  lpush(v, ma, mb, r2.t, r2.ia, r2.ib, l2);
}

/* Friction of a patch: the two tangent rows clamped to the disc of radius
 * friction * (sum of the points' normal impulses: kept by a block's sweeps,
 * P->psum, with the same sum's bits), then the twist row. */
static inline __attribute__((always_inline)) void patch_friction(const vs_rwork *w, vs_rpatch *P, vel2 *v, double ma, double mb,
                           int32_t k0, int32_t k1) {
  double sum = P->psum;
  if (!P->blk) {
    sum = 0;
    for (int32_t k = k0; k < k1; k++) sum += w->contacts[k].pn;
  }
  double lim = P->friction * sum;
  if (!(lim > 0) && P->pt1 == 0 && P->pt2 == 0 && P->ptw == 0) return;
  friction_disc(v, ma, mb, lim, TROW(P, 1), TROW(P, 2));
  if (P->rtw > 0) {
    v2d pn2 = ld2(P->n), tb = v->wb * pn2, ta = v->wa * pn2;
    double vt = (tb[0] + tb[1] + v->wbz * P->n[2]) - (ta[0] + ta[1] + v->waz * P->n[2]);
    double tl = lim * P->rtw, nt = P->ptw - vt * P->mass_tw;
    if (nt > tl) nt = tl;
    if (nt < -tl) nt = -tl;
    double lt = nt - P->ptw;
    P->ptw = nt;
    twist(v, P, lt);
  }
}

/* Warm start of manifold mi: its accumulated impulses applied again. */
static inline __attribute__((always_inline)) void warm_manifold(const vs_rmodel *m, vs_rstate *s,
                                                                vs_rwork *w, int32_t mi) {
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
  int32_t a = w->contacts[k0].ia, b = w->contacts[k0].ib;
  double ma = m->inv_mass[a], mb = m->inv_mass[b];
  vel2 v;
  vload(&v, s, a, b);
  const vs_rpatch *P = &w->patch[mi];
  if (P->on) {
    if (P->pt1 != 0 || P->pt2 != 0 || P->ptw != 0) {
      lpush(&v, ma, mb, P->t1, P->ia1, P->ib1, P->pt1);
      lpush(&v, ma, mb, P->t2, P->ia2, P->ib2, P->pt2);
      twist(&v, P, P->ptw);
    }
    if (P->blk) { /* the block's impulses together, as its sweeps apply them */
      double l = 0;
      v2d la = splat(0.0), lb = splat(0.0);
      double laz = 0, lbz = 0;
      for (int32_t k = k0; k < k1; k++) {
        const vs_rcontact *c = &w->contacts[k];
        double d = c->pn;
        l += d;
        la += splat(d) * ld2(c->ian), laz += d * c->ian[2];
        lb += splat(d) * ld2(c->ibn), lbz += d * c->ibn[2];
      }
      if (l != 0) {
        const double *nn = w->contacts[k0].n;
        double lma = ma * l, lmb = mb * l;
        v2d n2 = ld2(nn);
        v.va -= splat(lma) * n2, v.vaz -= lma * nn[2];
        v.wa -= la, v.waz -= laz;
        v.vb += splat(lmb) * n2, v.vbz += lmb * nn[2];
        v.wb += lb, v.wbz += lbz;
      }
      vstore(&v, s, a, b, ma, mb);
      return;
    }
    for (int32_t k = k0; k < k1; k++) {
      const vs_rcontact *c = &w->contacts[k];
      if (c->pn != 0) lpush(&v, ma, mb, c->n, c->ian, c->ibn, c->pn);
    }
    vstore(&v, s, a, b, ma, mb);
    return;
  }
  for (int32_t k = k0; k < k1; k++) {
    const vs_rcontact *c = &w->contacts[k];
    const vs_rfric *fc = &w->fric[k];
    if (c->pn == 0 && fc->pt1 == 0 && fc->pt2 == 0) continue;
    lpush(&v, ma, mb, c->n, c->ian, c->ibn, c->pn);
    lpush(&v, ma, mb, fc->t1, fc->ia1, fc->ib1, fc->pt1);
    lpush(&v, ma, mb, fc->t2, fc->ia2, fc->ib2, fc->pt2);
  }
  vstore(&v, s, a, b, ma, mb);
}

/* Each point's separation from the step's and the bodies' displacement
 * since (the positions do not move during a substep's sweeps), its
 * speculative target velocity and its position bias: computed in the first
 * sweep of each substep (vs_rigid_substep_begin marks it), while the point
 * is in cache anyway. */
static inline __attribute__((always_inline)) void point_begin(const vs_rsettings *st,
                                                              vs_rcontact *c, const double dd[3],
                                                              const double *ra, const double *rb,
                                                              double inv_h, double beta,
                                                              int moved) {
  /* dd: body b's displacement less body a's, ra and rb their rotation
   * vectors (w->dp; the same for every point of the manifold) */
  double sep = -c->depth;
  if (moved) sep = -c->depth + vs_dot3(c->n, dd) + vs_dot3(rb, c->bn) - vs_dot3(ra, c->an);
  /* !moved (the step's first substep, no displacement yet): the sums above
   * add only zeros to -depth, which leaves it unchanged but for the sign of
   * a zero depth, and that changes neither the target nor the bias */
  c->pp = 0.0;
  c->target = sep > 0 ? -sep * inv_h : 0.0;
  c->bias = 0.0;
  if (sep < -st->slop) {
    double tp = beta * (-sep - st->slop);
    c->bias = tp > st->max_bias_velocity ? st->max_bias_velocity : tp;
  }
}

void vs_rigid_substep_begin(const vs_rmodel *m, vs_rwork *w, double h) {
  (void)m;
  (void)h;
  w->fresh = 1;
}

/* One manifold's sweep in three parts (start, one point, finish), so that
 * two independent manifolds can be swept in lockstep (solve_two).  Each part
 * does the same arithmetic in the same order as a plain sweep: same bits. */
typedef struct msweep {
  vel2 v;
  double ma, mb;
  double *pa, *pb;
  vs_rpatch *P;
  vs_rcontact *c;        /* the next point in sweep order */
  int32_t step;          /* +1, or -1 in reversed sweeps */
  int32_t a, b, k0, k1;
  int blk;               /* the normal rows as one block (msweep_block) */
} msweep;

static inline __attribute__((always_inline)) void msweep_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi,
                                int rev, msweep *x, double inv_h, double beta, int first) {
  x->k0 = w->man[mi];
  x->k1 = w->man[mi + 1];
  x->a = w->contacts[x->k0].ia;
  x->b = w->contacts[x->k0].ib;
  x->ma = m->inv_mass[x->a];
  x->mb = m->inv_mass[x->b];
  vload(&x->v, s, x->a, x->b);
  x->pa = &w->pv[6 * x->a];
  x->pb = &w->pv[6 * x->b];
  x->P = &w->patch[mi];
  x->c = &w->contacts[rev ? x->k1 - 1 : x->k0];
  x->step = rev ? -1 : 1;
  x->blk = x->P->on && x->P->blk;
  if (first) {
    /* each point's separation, target and bias for this substep */
    const double *da = &w->dp[6 * x->a], *db = &w->dp[6 * x->b];
    const double dd[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
    for (int32_t k = x->k0; k < x->k1; k++)
      point_begin(&m->set, &w->contacts[k], dd, da + 3, db + 3, inv_h, beta, first == 1);
  }
  if (x->P->on) patch_friction(w, x->P, &x->v, x->ma, x->mb, x->k0, x->k1);
}

/* Point kk (0-based, in sweep order) of the manifold. */
static inline __attribute__((always_inline)) void msweep_point(const vs_rmodel *m, vs_rwork *w, msweep *x, int32_t kk, int rev,
                                double inv_h, double beta, int use_bias, int first) {
  const double ma = x->ma, mb = x->mb;
  double *pa = x->pa, *pb = x->pb;
  vel2 *v = &x->v;
  /* the points of a manifold in alternating order from sweep to sweep, so
   * that the order does not leave a systematic torque */
  vs_rcontact *c = x->c;
  x->c += x->step;
  /* friction, limited by the current normal impulse (nothing to do on
   * an idle speculative point) */
  if (!x->P->on) {
    vs_rfric *f = &w->fric[c - w->contacts];
    double lim = c->friction * c->pn;
    if (lim > 0 || f->pt1 != 0 || f->pt2 != 0) {
      friction_disc(v, ma, mb, lim, TROW(f, 1), TROW(f, 2));
    }
  }
  /* normal: the current separation (vs_rigid_substep_begin) */
  double target = c->target; /* speculative: may close the gap */
  if (use_bias && c->bias > 0) {
    /* split impulse: the push acts on the pseudo velocities only */
    double tp = c->bias;
    double vp = c->n[0] * (pb[0] - pa[0]) + c->n[1] * (pb[1] - pa[1]) +
                c->n[2] * (pb[2] - pa[2]) + vs_dot3(pb + 3, c->bn) - vs_dot3(pa + 3, c->an);
    double lp = (tp - vp) * c->mass_n, npp = c->pp + lp;
    if (npp < 0) npp = 0;
    lp = npp - c->pp;
    c->pp = npp;
    double la = ma * lp, lb = mb * lp;
    for (int q = 0; q < 3; q++) {
      if (ma != 0) {
        pa[q] -= la * c->n[q];
        pa[3 + q] -= lp * c->ian[q];
      }
      if (mb != 0) {
        pb[q] += lb * c->n[q];
        pb[3 + q] += lp * c->ibn[q];
      }
    }
  }
  double vn = lrow(v, c->n, c->an, c->bn);
  double ln = (target - vn) * c->mass_n;
  double np = c->pn + ln;
  np = 0.0 > np ? 0.0 : np; /* maxsd, no branch: the same value as if (np < 0) np = 0 */
  ln = np - c->pn;
  if (ln != 0) {
    c->pn = np;
    c->pn_max = np > c->pn_max ? np : c->pn_max;
    lpush(v, ma, mb, c->n, c->ian, c->ibn, ln);
  }
}

/* The block's impulses x (in/out, from the accumulated x0) for the residuals
 * b of its n rows, all of them in the problem.  The common cases here: none
 * carried an impulse and none approaches faster than its target (nothing to
 * do: returns 0), and the rows that carry one are the last sweep's active
 * set (its inverse kept in the patch: d_S = -inv b_S) and stay the
 * solution (x >= 0 on the set, w >= 0 off it); else rigid_block.c's
 * enumeration, which keeps the set it finds.  Returns 1 when x changed. */
static inline __attribute__((always_inline)) int block_solve(vs_rpatch *P, const vs_rcontact *c,
                                                             double msum, const int n,
                                                             const double *b, double *x) {
  unsigned s0 = 0;
  #pragma GCC unroll 4
  for (int i = 0; i < n; i++) s0 |= (unsigned)(x[i] > 0) << i;
  if (!s0) {
    int ok = 1;
    #pragma GCC unroll 4
    for (int i = 0; i < n; i++) ok &= b[i] >= 0;
    if (ok) return 0;
  }
  if (P->blk == 2) { /* the step's first use: its matrix (rigid_block.c) */
    P->blk = vs_rigid_block_prepare(c, n, msum, P->K);
    P->aset = 0;
    if (!P->blk) return 0; /* not finite: the points one by one from the next sweep */
  }
  if (s0 && s0 != P->aset) /* the rows carrying impulses changed (or the step began) */
    P->aset = vs_rigid_block_inverse(P->K, n, s0, P->ainv) ? s0 : 0;
  if (s0 && s0 == P->aset) {
    double d[4], t[4];
    int ok = 1;
    #pragma GCC unroll 4
    for (int i = 0; i < n; i++) {
      double e = P->ainv[vs_block_at(i, 0)] * b[0];
      #pragma GCC unroll 4
      for (int j = 1; j < n; j++) e += P->ainv[vs_block_at(i, j)] * b[j];
      d[i] = -e; /* 0 off the set */
    }
    #pragma GCC unroll 4
    for (int i = 0; i < n; i++) { /* off the set x_i = d_i = 0 */
      t[i] = x[i] + d[i];
      ok &= t[i] >= 0;
    }
    if (ok && s0 != (1u << n) - 1)
      #pragma GCC unroll 4
      for (int i = 0; i < n; i++) {
        if (s0 >> i & 1) continue;
        double wi = b[i];
        #pragma GCC unroll 4
        for (int j = 0; j < n; j++) wi += P->K[vs_block_at(i, j)] * d[j];
        ok &= wi >= 0;
      }
    if (ok) {
      #pragma GCC unroll 4
      for (int i = 0; i < n; i++) x[i] = t[i];
      return 1;
    }
  }
  vs_rigid_block_lcp(n, P->K, (1u << n) - 1, b, x, &P->aset, P->ainv);
  return 1;
}

/* The normal rows of a patch as one block (rigid_block.c): first the
 * split-impulse rows of the points that have a bias, on the pseudo
 * velocities (a few substeps' work: by enumeration alone), then the real
 * rows; each as the LCP of its rows, and the
 * impulses' changes applied together (one normal, the angular parts
 * summed in point order). */
static inline __attribute__((always_inline)) void block_n(vs_rwork *w, msweep *x, int use_bias,
                                                          const int n) {
  const double ma = x->ma, mb = x->mb;
  vs_rpatch *P = x->P;
  vs_rcontact *c = &w->contacts[x->k0];
  const double *nn = c[0].n;
  double b[4], xn[4];
  if (use_bias) {
    unsigned mask = 0;
    #pragma GCC unroll 4
    for (int i = 0; i < n; i++)
      if (c[i].bias > 0) mask |= 1u << i;
    if (mask) {
      double *pa = x->pa, *pb = x->pb;
      #pragma GCC unroll 4
      for (int i = 0; i < n; i++) {
        xn[i] = c[i].pp;
        b[i] = nn[0] * (pb[0] - pa[0]) + nn[1] * (pb[1] - pa[1]) + nn[2] * (pb[2] - pa[2]) +
               vs_dot3(pb + 3, c[i].bn) - vs_dot3(pa + 3, c[i].an) - c[i].bias;
      }
      if (P->blk == 2) {
        P->blk = vs_rigid_block_prepare(c, n, ma + mb, P->K);
        P->aset = 0;
      }
      if (!P->blk) return;
      vs_rigid_block_lcp(n, P->K, mask, b, xn, NULL, NULL);
      double l = 0, la[3] = {0, 0, 0}, lb[3] = {0, 0, 0};
      #pragma GCC unroll 4
      for (int i = 0; i < n; i++) {
        double d = xn[i] - c[i].pp;
        c[i].pp = xn[i];
        l += d;
        for (int q = 0; q < 3; q++) {
          la[q] += d * c[i].ian[q];
          lb[q] += d * c[i].ibn[q];
        }
      }
      for (int q = 0; q < 3; q++) {
        if (ma != 0) {
          pa[q] -= ma * l * nn[q];
          pa[3 + q] -= la[q];
        }
        if (mb != 0) {
          pb[q] += mb * l * nn[q];
          pb[3 + q] += lb[q];
        }
      }
    }
  }
  vel2 *v = &x->v;
  /* lrow of each point, its linear part (one normal) formed once */
  v2d p = ld2(nn) * (v->vb - v->va);
  const double lin = p[0] + p[1] + nn[2] * (v->vbz - v->vaz);
  #pragma GCC unroll 4
  for (int i = 0; i < n; i++) {
    v2d pb = v->wb * ld2(c[i].bn), pa = v->wa * ld2(c[i].an);
    double rb = pb[0] + pb[1] + v->wbz * c[i].bn[2];
    double ra = pa[0] + pa[1] + v->waz * c[i].an[2];
    b[i] = (lin + rb - ra) - c[i].target;
    xn[i] = c[i].pn;
  }
  if (!block_solve(P, c, ma + mb, n, b, xn)) return;
  double l = 0, sum = 0;
  v2d la = splat(0.0), lb = splat(0.0);
  double laz = 0, lbz = 0;
  #pragma GCC unroll 4
  for (int i = 0; i < n; i++) {
    double d = xn[i] - c[i].pn;
    c[i].pn = xn[i];
    sum += xn[i];
    c[i].pn_max = xn[i] > c[i].pn_max ? xn[i] : c[i].pn_max;
    l += d;
    la += splat(d) * ld2(c[i].ian), laz += d * c[i].ian[2];
    lb += splat(d) * ld2(c[i].ibn), lbz += d * c[i].ibn[2];
  }
  P->psum = sum; /* the next sweep's friction limit (patch_friction) */
  double lma = ma * l, lmb = mb * l;
  v2d n2 = ld2(nn);
  v->va -= splat(lma) * n2, v->vaz -= lma * nn[2];
  v->wa -= la, v->waz -= laz;
  v->vb += splat(lmb) * n2, v->vbz += lmb * nn[2];
  v->wb += lb, v->wbz += lbz;
}

/* The block of 4 points (a face: unrolled), or of 2 or 3.  Inlined in each
 * of the sweeps' variants: 5% fewer instructions than one shared copy (the
 * sweep's state stays in registers) and, measured with -O3 (make
 * bench-rigid), no loss to the instruction cache. */
static inline __attribute__((always_inline)) void msweep_block(vs_rwork *w, msweep *x,
                                                               int use_bias) {
  int n = x->k1 - x->k0;
  if (n == 4) block_n(w, x, use_bias, 4);
  else if (n == 2) block_n(w, x, use_bias, 2);
  else block_n(w, x, use_bias, 3);
}

/* One sweep over the points of manifold mi (same body pair, consecutive). */
static inline __attribute__((always_inline)) void sweep_one(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int rev,
                           double inv_h, double beta, int use_bias, int first) {
  msweep x;
  msweep_start(m, s, w, mi, rev, &x, inv_h, beta, first);
  if (x.blk)
    msweep_block(w, &x, use_bias);
  else
    for (int32_t kk = 0; kk < x.k1 - x.k0; kk++)
      msweep_point(m, w, &x, kk, rev, inv_h, beta, use_bias, first);
  vstore(&x.v, s, x.a, x.b, x.ma, x.mb);
}

/* Manifolds mi and mj, which share no body of non-zero inverse mass, swept
 * in lockstep: neither reads what the other writes, so the result is that of
 * mi then mj, while the CPU overlaps their two dependency chains. */
static inline __attribute__((always_inline)) void sweep_two(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int32_t mj,
                      int rev, double inv_h, double beta, int use_bias, int first) {
  msweep x, y;
  msweep_start(m, s, w, mi, rev, &x, inv_h, beta, first);
  msweep_start(m, s, w, mj, rev, &y, inv_h, beta, first);
  if (x.blk) msweep_block(w, &x, use_bias);
  if (y.blk) msweep_block(w, &y, use_bias);
  int32_t nx = x.blk ? 0 : x.k1 - x.k0, ny = y.blk ? 0 : y.k1 - y.k0, nmax = nx > ny ? nx : ny;
  for (int32_t kk = 0; kk < nmax; kk++) {
    if (kk < nx) msweep_point(m, w, &x, kk, rev, inv_h, beta, use_bias, first);
    if (kk < ny) msweep_point(m, w, &y, kk, rev, inv_h, beta, use_bias, first);
  }
  vstore(&x.v, s, x.a, x.b, x.ma, x.mb);
  vstore(&y.v, s, y.a, y.b, y.ma, y.mb);
}

static void solve_manifold(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int rev,
                           double inv_h, double beta, int use_bias, int first) {
  sweep_one(m, s, w, mi, rev, inv_h, beta, use_bias, first);
}

/* The sequential sweep over the manifolds in w->sorder; compiled three
 * times, for a substep's first sweep (first = 1: separations computed from
 * the displacements; 2: the step's first substep, no displacement yet) and
 * the others, so that none carries another's branches. */
static inline __attribute__((always_inline)) void seq_sweep(const vs_rmodel *m, vs_rstate *s,
                                                            vs_rwork *w, int rev, double inv_h,
                                                            double beta, int use_bias, int first) {
  const int32_t *ord = w->sorder;
  for (int32_t t = 0; t < w->n_sorder;) {
    if (ord[t] & VS_RORDER_PAIR) { /* it and the next share no moving body (rigid_order.c) */
      sweep_two(m, s, w, ord[t] & VS_RORDER_ID, ord[t + 1] & VS_RORDER_ID, rev, inv_h, beta,
                use_bias, first);
      t += 2;
    } else {
      sweep_one(m, s, w, ord[t], rev, inv_h, beta, use_bias, first);
      t++;
    }
  }
}

/* One item of the coloured order: a joint (item < 0: joint -1 - item) or a
 * manifold.  warm: warm start instead of a sweep. */
typedef struct pass {
  int warm, rev, use_bias, first;
  double inv_h, beta; /* contacts: baumgarte / h as baumgarte * (1 / h) */
} pass;

static void do_item(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t item, const pass *p) {
  if (item < 0 && vs_rigid_joint_asleep(m, w, -1 - item)) return; /* rigid_sleep.c */
  if (item < 0) {
    if (p->warm) vs_rigid_warm_joint(m, s, w, -1 - item);
    else vs_rigid_solve_joint(m, s, w, -1 - item);
  } else if (p->warm) {
    warm_manifold(m, s, w, item);
  } else {
    solve_manifold(m, s, w, item, p->rev, p->inv_h, p->beta, p->use_bias, p->first);
  }
}


/* The coloured pass (relaxation: jacobi): colour after colour, the items of
 * one colour on the team in parallel -- they share no body of non-zero
 * inverse mass, so none reads what another writes and the result has the
 * same bits for any number of threads -- then the overflow colour in order
 * on one thread. */
static void colored_pass(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, const pass *p) {
  const int32_t *start = w->color_start, *items = w->color_items;
  int threads = w->threads > 1 ? w->threads : 1;
  if (threads == 1 || start[VS_RCOLORS] < VS_RPAR_ITEMS) { /* the same order, one thread */
    for (int32_t i = 0; i < start[VS_RCOLORS + 1]; i++) do_item(m, s, w, items[i], p);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    for (int c = 0; c <= VS_RCOLORS;) {
      int32_t i0 = start[c], i1 = start[c + 1];
      if (c < VS_RCOLORS && i1 - i0 >= VS_RPAR_ITEMS) {
#pragma omp for schedule(static)
        for (int32_t i = i0; i < i1; i++) do_item(m, s, w, items[i], p);
        c++;
      } else {
        /* a run of small colours (and the overflow) in order on one thread:
         * one barrier for the run */
        while (c < VS_RCOLORS && start[c + 1] - start[c] < VS_RPAR_ITEMS) c++;
        if (c == VS_RCOLORS) c++;
        i1 = start[c];
#pragma omp single
        for (int32_t i = i0; i < i1; i++) do_item(m, s, w, items[i], p);
      }
    }
  }
}

void vs_rigid_warm_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  if (m->set.colored) {
    const pass p = {1, 0, 0, 0, 0.0, 0.0};
    for (int32_t j = 0; j < m->n_joints; j++) /* the forest's joints are not coloured */
      if (w->tree.n_tree_joints && w->tree.in_tree[j] && !vs_rigid_joint_asleep(m, w, j))
        vs_rigid_tree_warm(m, s, w, j);
    colored_pass(m, s, w, &p);
    return;
  }
  for (int32_t j = 0; j < m->n_joints; j++) { /* a sleeping island's joints keep their impulses */
    if (vs_rigid_joint_asleep(m, w, j)) continue;
    if (w->tree.n_tree_joints && w->tree.in_tree[j]) vs_rigid_tree_warm(m, s, w, j);
    else vs_rigid_warm_joint(m, s, w, j);
  }
  /* in the sweeps' order (rigid_order.c): the same bits as identity order,
   * and consecutive manifolds share no moving body where the graph allows,
   * so the CPU overlaps them instead of waiting on body a's velocities */
  for (int32_t t = 0; t < w->n_sorder; t++) warm_manifold(m, s, w, w->sorder[t] & VS_RORDER_ID);
}

void vs_rigid_solve_iteration(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h,
                              int use_bias) {
  double inv_h = 1.0 / h, beta = m->set.baumgarte * inv_h;
  w->sweep++;
  int rev = (int)(w->sweep & 1), first = w->fresh;
  w->fresh = 0;
  if (m->set.colored) {
    const pass p = {0, rev, use_bias, first, inv_h, beta};
    /* serial, before the colours (rigid_color.c leaves them out) */
    vs_rigid_tree_velocity(m, s, w, first);
    vs_rigid_tree_axes(m, s, w);
    colored_pass(m, s, w, &p);
    return;
  }
  vs_rigid_tree_velocity(m, s, w, first);
  vs_rigid_tree_axes(m, s, w);
  for (int32_t j = 0; j < m->n_joints; j++)
    if ((!w->tree.n_tree_joints || !w->tree.in_tree[j]) && !vs_rigid_joint_asleep(m, w, j))
      vs_rigid_solve_joint(m, s, w, j);
  if (first == 1) seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 1);
  else if (first == 2) seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 2);
  else seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 0);
}
