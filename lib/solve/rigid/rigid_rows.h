/* SPDX-License-Identifier: MIT */
/* rigid_rows.h (private to solve/rigid/): one constraint row's pieces that
 * the contact sweeps, the joints and the bounces share: a point's velocity,
 * an impulse at a point, the rows r x d and I^-1 (r x d), an impulse along a
 * row and the relative velocity along it. */
#ifndef VSIM_SOLVE_RIGID_ROWS_H
#define VSIM_SOLVE_RIGID_ROWS_H

#include "solve/rigid/rigid.h"

/* Velocity of the point r (relative to the centre) of body i. */
static inline void point_vel(const vs_rstate *s, int32_t i, const double r[3], double o[3]) {
  const double *v = &s->v[3 * i], *w = &s->w[3 * i];
  double x[3];
  vs_cross3(w, r, x);
  o[0] = v[0] + x[0];
  o[1] = v[1] + x[1];
  o[2] = v[2] + x[2];
}

/* Impulse P at r on body i (sign +1) or -P (sign -1). */
static inline void apply(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i,
                         const double r[3], const double P[3], double sign) {
  double im = m->inv_mass[i] * sign;
  if (im == 0) return;
  double *v = &s->v[3 * i], *wv = &s->w[3 * i];
  v[0] += im * P[0];
  v[1] += im * P[1];
  v[2] += im * P[2];
  double t[3], dw[3];
  vs_cross3(r, P, t);
  vs_mat3_mul(&w->inv_iw[9 * i], t, dw);
  wv[0] += sign * dw[0];
  wv[1] += sign * dw[1];
  wv[2] += sign * dw[2];
}

/* n.((I^-1 (r x n)) x r) = (r x n).I^-1 (r x n) */
static inline double ang_mass(const double *Iw, const double r[3], const double n[3]) {
  double rn[3], t[3];
  vs_cross3(r, n, rn);
  vs_mat3_mul(Iw, rn, t);
  return vs_dot3(rn, t);
}

static inline void jrow(const double *Iw, const double r[3], const double d[3], double rd[3],
                        double ird[3]) {
  vs_cross3(r, d, rd);
  vs_mat3_mul(Iw, rd, ird);
}

/* Impulse along one row: linear part l*d, angular parts l*I^-1(r x d). */
static inline void push(vs_rstate *s, int32_t a, int32_t b, double ma, double mb, const double d[3],
                        const double iad[3], const double ibd[3], double l) {
  double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  double la = ma * l, lb = mb * l;
  va[0] -= la * d[0];
  va[1] -= la * d[1];
  va[2] -= la * d[2];
  wa[0] -= l * iad[0];
  wa[1] -= l * iad[1];
  wa[2] -= l * iad[2];
  vb[0] += lb * d[0];
  vb[1] += lb * d[1];
  vb[2] += lb * d[2];
  wb[0] += l * ibd[0];
  wb[1] += l * ibd[1];
  wb[2] += l * ibd[2];
}

/* Relative velocity along a row: d.(vb - va) + wb.(rb x d) - wa.(ra x d). */
static inline double rowvel(const vs_rstate *s, int32_t a, int32_t b, const double d[3],
                            const double ad[3], const double bd[3]) {
  const double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  return d[0] * (vb[0] - va[0]) + d[1] * (vb[1] - va[1]) + d[2] * (vb[2] - va[2]) +
         vs_dot3(wb, bd) - vs_dot3(wa, ad);
}

#endif
