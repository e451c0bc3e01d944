/* SPDX-License-Identifier: MIT */
/* rigid_joint_rows.h (private to solve/rigid/): what the joint table
 * (rigid_joint.c) and the joints' 1-D axis rows (rigid_joint_axis.c) share:
 * the joint's pose context, the layout of its work row, and generic rows
 * given by their Jacobian blocks (rows x 6 per body: linear, angular), whose
 * impulse lambda changes a body's velocities by M^-1 J^T lambda; and the
 * small dense inverses (a ball's 3 x 3 K, the generic rows' K). */
#ifndef VSIM_SOLVE_RIGID_JOINT_ROWS_H
#define VSIM_SOLVE_RIGID_JOINT_ROWS_H

#include <string.h>

#include "solve/rigid/rigid_rows.h"
#include "util/detmath.h"

/* The two anchors' gap C = (xb + rb) - (xa + ra), the orientations, and the
 * kind's rows data. */
typedef struct jctx {
  const double *Ia, *Ib; /* inverse world inertias */
  double msum;           /* 1/ma + 1/mb */
  double ra[3], rb[3], C[3];
  const double *qa, *qb; /* orientations (the world slot: identity) */
  const double *Ra, *Rb; /* their rotation matrices (vs_quat_to_mat) */
  double rbuf[18];       /* where they are when not from the pose's cache */
  const double *pn;      /* the joint's axis normals in a's frame (w->tree.normals), or NULL */
  int rows_only;         /* 1: prepare the Jacobian's data alone (not the limits' positions) */
} jctx;

/* w->joint of weld, hinge and slider from [6] (rigid_joint.c, prepare):
 * the gap C, the axis in the world (from a), two unit row vectors (hinge:
 * axis_b x p1, axis_b x p2; slider: the normals n1, n2 of the axis), and
 * the position along the axis (hinge: angle, rad; slider: m); a hinge's
 * turn rows of its position error at the pose it was prepared from (the
 * forest's first position pass reads them with the gap). */
enum { VS_RJW_GAP = 6, VS_RJW_AXIS = 9, VS_RJW_U1 = 12, VS_RJW_U2 = 15, VS_RJW_POS = 18,
       VS_RJW_TURN = 19 };
/* A ball's with cone or twist, after its K^-1 [6..14]: the twist's row
 * (ua + ub) / (1 + ua . ub) of the two axes in the world, the swing's unit
 * normal (a's axis x b's), the twist angle about the axis and the swing
 * angle, rad. */
enum { VS_RJW_BALL_AXIS = 15, VS_RJW_BALL_CONE = 18, VS_RJW_BALL_TWIST = 21,
       VS_RJW_BALL_SWING = 22 };
/* A soft weld's (a ball with VS_RJOINT_SOFT): b's rotation vector away from
 * its held orientation, world frame. */
enum { VS_RJW_SOFT_ERR = 15 };
_Static_assert(VS_RJW_BALL_SWING < VS_RJOINT_WORK && VS_RJW_TURN + 1 < VS_RJOINT_WORK,
               "a joint's work row holds its data");

/* The 1-D angular or linear limits of joint j passed at the pose of jw
 * (prepared): their axis rows (which, as vs_rjoint_axis_row's) and how far
 * past; the count (rigid_joint_axis.c). */
VS_RPRIVATE int vs_rjoint_passed_limits(const vs_rmodel *m, int32_t j, const double *jw,
                                        int which[2], double by[2]);

/* Accumulated impulse of joint j's row r (0..2: joint_impulse, then joint_more). */
static inline double *jacc(vs_rstate *s, int32_t j, int r) {
  return r < 3 ? &s->joint_impulse[3 * (size_t)j + (size_t)r]
               : &s->joint_more[VS_RJOINT_MORE * (size_t)j + (size_t)(r - 3)];
}

/* Body i's velocity change M^-1 J^T lam for d rows J (d x 6) and impulses
 * lam; anchored (vs_rjoint_anchored): the exact zeros of J's linear part
 * left out (f's sums start from +0, never -0: the same bits). */
static inline __attribute__((always_inline)) void gen_apply_rows(
    const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i, const double *J, int d,
    int anchored, const double *lam) {
  double im = m->inv_mass[i];
  if (im == 0) return;
  double f[6] = {0, 0, 0, 0, 0, 0}, dw[3];
  for (int r = 0; r < d; r++)
    for (int q = 0; q < 6; q++)
      if (!anchored || q >= 3 || q == r) f[q] += J[r * 6 + q] * lam[r];
  vs_mat3_mul(&w->inv_iw[9 * i], f + 3, dw);
  for (int k = 0; k < 3; k++) {
    s->v[3 * i + k] += im * f[k];
    s->w[3 * i + k] += dw[k];
  }
}
static inline void gen_apply(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i,
                             const double *J, int d, const double *lam) {
  gen_apply_rows(m, s, w, i, J, d, 0, lam);
}

/* Body i moved by the positional impulse J^T lam: x += m^-1 f, turned by I^-1 t. */
static inline void gen_shift(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i,
                             const double *J, int d, const double *lam) {
  double im = m->inv_mass[i];
  if (im == 0) return;
  double f[6] = {0, 0, 0, 0, 0, 0}, dth[3];
  for (int r = 0; r < d; r++)
    for (int q = 0; q < 6; q++) f[q] += J[r * 6 + q] * lam[r];
  vs_mat3_mul(&w->inv_iw[9 * i], f + 3, dth);
  for (int k = 0; k < 3; k++) s->x[3 * i + k] += im * f[k];
  vs_quat_integrate(&s->q[4 * i], dth, 1.0);
}

/* J u for body i's velocities (d rows). */
static inline void gen_rows(const vs_rstate *s, int32_t i, const double *J, int d, double *out) {
  const double *v = &s->v[3 * i], *av = &s->w[3 * i];
  for (int r = 0; r < d; r++) {
    const double *Jr = &J[r * 6];
    out[r] += Jr[0] * v[0] + Jr[1] * v[1] + Jr[2] * v[2] + Jr[3] * av[0] + Jr[4] * av[1] +
              Jr[5] * av[2];
  }
}

/* out += J u for one body's d rows J and velocities u (linear, angular),
 * leaving out an anchored block's exact zeros (its linear part off the
 * anchor rows' diagonal; the sums start from +0: the same bits). */
static inline __attribute__((always_inline)) void rows_apply(const double *J, const double *u,
                                                             int d, int anchored, double *out) {
  for (int i = 0; i < d; i++)
    for (int q = 0; q < 6; q++)
      if (!anchored || q >= 3 || q == i) out[i] += J[i * 6 + q] * u[q];
}

/* K += J M^-1 J^T for body i (d x d). */
static inline __attribute__((always_inline)) void gen_mass(const vs_rmodel *m, const vs_rwork *w,
                                                           int32_t i, const double *J, int d,
                                                           double *K) {
  double im = m->inv_mass[i];
  if (im == 0) return;
  const double *Iw = &w->inv_iw[9 * i];
  double IJ[18];
  for (int r = 0; r < d; r++) vs_mat3_mul(Iw, &J[r * 6 + 3], &IJ[3 * r]);
  for (int r = 0; r < d; r++)
    for (int c = 0; c < d; c++)
      K[r * d + c] += im * (J[r * 6] * J[c * 6] + J[r * 6 + 1] * J[c * 6 + 1] +
                            J[r * 6 + 2] * J[c * 6 + 2]) +
                      vs_dot3(&J[r * 6 + 3], &IJ[3 * c]);
}

/* c[r] += J[r] M^-1 v^T for body i (d rows J, one row v). */
static inline void gen_cross(const vs_rmodel *m, const vs_rwork *w, int32_t i, const double *J,
                             int d, const double v[6], double *c) {
  double im = m->inv_mass[i];
  if (im == 0) return;
  double Iv[3];
  vs_mat3_mul(&w->inv_iw[9 * i], v + 3, Iv);
  for (int r = 0; r < d; r++)
    c[r] += im * (J[r * 6] * v[0] + J[r * 6 + 1] * v[1] + J[r * 6 + 2] * v[2]) +
            vs_dot3(&J[r * 6 + 3], Iv);
}

/* Inverse of the 3 x 3 K by its cofactors (zero when K is singular). */
static inline void invert3(const double K[9], double o[9]) {
  double c0 = K[4] * K[8] - K[5] * K[7], c1 = K[5] * K[6] - K[3] * K[8],
         c2 = K[3] * K[7] - K[4] * K[6];
  double det = K[0] * c0 + K[1] * c1 + K[2] * c2;
  if (det == 0) {
    memset(o, 0, sizeof(double) * 9);
    return;
  }
  double id = 1.0 / det;
  o[0] = c0 * id;
  o[1] = (K[2] * K[7] - K[1] * K[8]) * id;
  o[2] = (K[1] * K[5] - K[2] * K[4]) * id;
  o[3] = c1 * id;
  o[4] = (K[0] * K[8] - K[2] * K[6]) * id;
  o[5] = (K[2] * K[3] - K[0] * K[5]) * id;
  o[6] = c2 * id;
  o[7] = (K[1] * K[6] - K[0] * K[7]) * id;
  o[8] = (K[0] * K[4] - K[1] * K[3]) * id;
}

/* K += S^T I S with S = skew(r) (S v = r x v), S's zeros (its diagonal)
 * left out of both products: a left-out product is a zero, which changes a
 * sum only when the sum is itself a zero (its sign); K's entries start from
 * msum or +0 and a sum from +0 is never -0, so K has the same bits. */
static inline void add_rot_block(double K[9], const double *I, const double r[3]) {
  const double s01 = -r[2], s02 = r[1], s10 = r[2], s12 = -r[0], s20 = -r[1], s21 = r[0];
  double IS[9];
  for (int i = 0; i < 3; i++) {
    const double *Ii = &I[3 * i];
    IS[3 * i] = Ii[1] * s10 + Ii[2] * s20;
    IS[3 * i + 1] = Ii[0] * s01 + Ii[2] * s21;
    IS[3 * i + 2] = Ii[0] * s02 + Ii[1] * s12;
  }
  for (int j = 0; j < 3; j++) {
    K[j] += s10 * IS[3 + j] + s20 * IS[6 + j];
    K[3 + j] += s01 * IS[j] + s21 * IS[6 + j];
    K[6 + j] += s02 * IS[j] + s12 * IS[3 + j];
  }
}

/* conj(a) */
static inline void quat_conj(const double a[4], double o[4]) {
  o[0] = a[0], o[1] = -a[1], o[2] = -a[2], o[3] = -a[3];
}

/* Inverse of the symmetric positive semi-definite d x d K (d <= 7), by its
 * Cholesky factor; a row that is not definite to rounding (nothing can move
 * along it) gets zero rows and columns: its impulse stays zero. */
static inline __attribute__((always_inline)) void sym_inverse(const double *K, int d,
                                                              double *o) {
  double Lt[49], Li[49], scale = 0, linv[7] = {0}; /* lower parts read alone: see the dead */
  int dead[7] = {0};
  if (d > 7) d = 7; /* never (GEN_MAX): bounds the unrolled loops for the compiler */
  for (int i = 0; i < d; i++) scale = K[i * d + i] > scale ? K[i * d + i] : scale;
  /* K = L L^T by columns, L kept transposed (Lt[q * 7 + i] = L_iq): column
   * j's entries below the diagonal subtract their terms q = 0..j-1 in order,
   * side by side (vectorised: the same operations) */
#pragma GCC unroll 7
  for (int j = 0; j < d; j++) {
    double djj = K[j * d + j];
#pragma GCC unroll 7
    for (int q = 0; q < j; q++) djj -= Lt[q * 7 + j] * Lt[q * 7 + j];
    if (!(djj > 1e-13 * scale)) {
      dead[j] = 1;
      for (int i = j; i < d; i++) Lt[j * 7 + i] = 0.0; /* a zero column of L */
      continue;
    }
    double ljj = sqrt(djj), inv = 1.0 / ljj, col[7] = {0, 0, 0, 0, 0, 0, 0};
    Lt[j * 7 + j] = ljj;
    linv[j] = inv;
#pragma GCC unroll 7
    for (int i = j + 1; i < d; i++) col[i] = K[i * d + j];
#pragma GCC unroll 7
    for (int q = 0; q < j; q++)
#pragma GCC unroll 7
      for (int i = j + 1; i < d; i++) col[i] -= Lt[q * 7 + i] * Lt[q * 7 + j];
#pragma GCC unroll 7
    for (int i = j + 1; i < d; i++) Lt[j * 7 + i] = col[i] * inv;
  }
  /* Li = L^-1 by rows: entry (i, j < i) is -(sum of L_iq Li_qj, q = j..i-1,
   * in order from zero) / L_ii, the row's sums side by side; a dead row
   * stays zero, a dead column comes out +0 (its entries and terms are zero) */
#pragma GCC unroll 7
  for (int i = 0; i < d; i++) {
    if (dead[i]) {
      for (int j = 0; j <= i; j++) Li[i * 7 + j] = 0.0;
      continue;
    }
    Li[i * 7 + i] = linv[i];
    double sum[7] = {0, 0, 0, 0, 0, 0, 0};
#pragma GCC unroll 7
    for (int q = 0; q < i; q++)
#pragma GCC unroll 7
      for (int j = 0; j <= q; j++) sum[j] -= Lt[q * 7 + i] * Li[q * 7 + j];
#pragma GCC unroll 7
    for (int j = 0; j < i; j++) Li[i * 7 + j] = sum[j] / Lt[i * 7 + i];
  }
  /* K^-1 = Li^T Li: entry (i, j <= i) sums q = i..d-1 in order from zero */
#pragma GCC unroll 7
  for (int i = 0; i < d; i++) {
    double sum[7] = {0, 0, 0, 0, 0, 0, 0};
#pragma GCC unroll 7
    for (int q = i; q < d; q++)
#pragma GCC unroll 7
      for (int j = 0; j <= i; j++) sum[j] += Li[q * 7 + i] * Li[q * 7 + j];
#pragma GCC unroll 7
    for (int j = 0; j <= i; j++) o[i * d + j] = o[j * d + i] = sum[j];
  }
}

#endif
