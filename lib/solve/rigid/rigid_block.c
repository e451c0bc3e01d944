/* SPDX-License-Identifier: MIT */
/* rigid_block.c: the normal rows of a patch (the 2 to 4 points of one body
 * pair that share one normal) solved together, as one small linear
 * complementarity problem (LCP), instead of one row after another.
 *
 * The rows of n points that share a normal n are J_i = J_c + d_i-terms: the
 * relative normal velocity at a point is affine in the point's offset in the
 * contact plane (r x n depends only on that offset), so 4 points of a face
 * have 3 independent rows (a normal force and two moments) and their matrix
 * K = J M^-1 J^T (K_ij = 1/ma + 1/mb + (ra_i x n).Ia^-1 (ra_j x n)
 * + (rb_i x n).Ib^-1 (rb_j x n)) is singular.  Solved one row after another
 * (sequential impulses), the first point of a face takes more than its share
 * and the next ones less: from a perfectly symmetric start each sweep leaves
 * a torque that the next sweep only partly takes back, and a tower of 20
 * small cubes at 2 sweeps of 8 substeps leant over and fell
 * (docs/physics.md, "Rigid bodies").  Solved as a block, the points' normal
 * velocities reach their targets together in every sweep, and a symmetric
 * load gets a symmetric answer.
 *
 * The LCP (Box2D v2's two-point block solver, generalised to four points):
 * find accumulated impulses x >= 0 with w = b + K (x - x0) >= 0 and
 * x_i w_i = 0, where b is each row's velocity less its target and x0 the
 * impulses so far.  K is made positive definite by a relative 1e-9 on its
 * diagonal (K_ii (1 + 1e-9)): the problem then has exactly one solution, and
 * where the rows are consistent (equal targets: a box at rest) the impulses
 * are those of least (K-weighted) norm -- the same at the four corners of a
 * symmetric load -- and the velocities reach their targets to 1e-9 of the
 * change.  The rows that carry an impulse are tried first: with the inverse
 * of their block kept from the sweep that found them (rigid_solve.c; the
 * active set rarely changes from sweep to sweep), else by Gaussian
 * elimination; when that set fails, the others are enumerated, the largest
 * first, each solved by Gaussian elimination in a fixed order (same bits on
 * every machine), and the first that meets every condition is taken (its
 * inverse kept); where rounding leaves none exactly (a degenerate point,
 * x_i = w_i = 0), the one that violates them least, clamped. */
#include "solve/rigid/rigid.h"

/* The relative diagonal term that makes K positive definite. */
#define VS_BLOCK_EPS 1e-9

/* K and the inverses are symmetric: kept packed, 10 entries (vs_block_at). */
static void unpack(const double *P, int n, double K[16]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) K[4 * i + j] = P[vs_block_at(i, j)];
}

int vs_rigid_block_prepare(const vs_rcontact *c, int n, double msum, double K[10]) {
  if (n < 2 || n > 4) return 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      K[vs_block_at(i, j)] = msum + vs_dot3(c[i].an, c[j].ian) + vs_dot3(c[i].bn, c[j].ibn);
  for (int i = 0; i < n; i++) {
    double *d = &K[vs_block_at(i, i)];
    if (!(*d > 0) || !(*d < INFINITY)) return 0;
    *d *= 1.0 + VS_BLOCK_EPS;
  }
  return 1;
}

/* The inverse of K's rows and columns idx[0..m) by Gauss-Jordan without
 * pivoting (positive definite), into inv (zero elsewhere); 0 when a pivot
 * is not positive.  Inlined for each m (the loops unrolled: the same
 * operations in the same order). */
static inline __attribute__((always_inline)) int inverse_m(const double Kp[10], const int *idx,
                                                           const int m, double inv[10]) {
  double a[4][8];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      a[i][j] = Kp[vs_block_at(idx[i], idx[j])];
      a[i][4 + j] = i == j ? 1.0 : 0.0;
    }
  for (int p = 0; p < m; p++) {
    double d = a[p][p];
    if (!(d > 0)) return 0;
    double id = 1.0 / d;
    for (int j = 0; j < m; j++) {
      a[p][j] *= id;
      a[p][4 + j] *= id;
    }
    for (int i = 0; i < m; i++) {
      if (i == p) continue;
      double f = a[i][p];
      for (int j = 0; j < m; j++) {
        a[i][j] -= f * a[p][j];
        a[i][4 + j] -= f * a[p][4 + j];
      }
    }
  }
  for (int k = 0; k < 10; k++) inv[k] = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++)
      inv[vs_block_at(idx[i], idx[j])] = 0.5 * (a[i][4 + j] + a[j][4 + i]);
  return 1;
}

/* The inverse of K's rows and columns in S (vs_rigid_block_inverse). */
int vs_rigid_block_inverse(const double Kp[10], int n, unsigned S, double inv[10]) {
  static const int all[4] = {0, 1, 2, 3};
  int idx[4], m = 0;
  for (int i = 0; i < n; i++)
    if (S >> i & 1) idx[m++] = i;
  switch (m) {
    case 4:
      return inverse_m(Kp, all, 4, inv); /* every row of a face */
    case 3:
      return inverse_m(Kp, idx, 3, inv);
    case 2:
      return inverse_m(Kp, idx, 2, inv);
    case 1:
      return inverse_m(Kp, idx, 1, inv);
    default:
      return inverse_m(Kp, idx, 0, inv);
  }
}

/* Solve A y = r (A: the rows and columns idx[0..m) of K; m <= 4) by
 * Gaussian elimination without pivoting; 0 when a pivot is not positive. */
static inline __attribute__((always_inline)) int sub_solve(const double K[16], const int *idx,
                                                           int m, const double *r, double *y) {
  double a[4][5];
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < m; j++) a[i][j] = K[4 * idx[i] + idx[j]];
    a[i][4] = r[i];
  }
  for (int p = 0; p < m; p++) {
    if (!(a[p][p] > 0)) return 0;
    for (int i = p + 1; i < m; i++) {
      double f = a[i][p] / a[p][p];
      for (int j = p; j < m; j++) a[i][j] -= f * a[p][j];
      a[i][4] -= f * a[p][4];
    }
  }
  for (int i = m - 1; i >= 0; i--) {
    double t = a[i][4];
    for (int j = i + 1; j < m; j++) t -= a[i][j] * y[j];
    y[i] = t / a[i][i];
  }
  return 1;
}

/* Active set S of the rows in mask: the impulses of the rows of S solve
 * their rows' equations (w_i = 0), the others' go to zero.  Writes the new
 * impulses to xn and returns how far the conditions are violated (x >= 0
 * on S, w >= 0 elsewhere, w in impulse units w_i / K_ii): <= 0 when S is
 * the solution; INFINITY when S cannot be solved. */
static inline __attribute__((always_inline)) double try_set(const int n, const double K[16],
                                                            unsigned mask, unsigned S,
                                                            const double *b, const double *x,
                                                            double *xn) {
  int idx[4], m = 0;
  double d[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) xn[i] = x[i];
  for (int i = 0; i < n; i++) {
    if (!(mask >> i & 1)) continue;
    if (S >> i & 1)
      idx[m++] = i;
    else
      d[i] = -x[i]; /* inactive: its impulse goes to zero */
  }
  if (m > 0) {
    double r[4], y[4];
    for (int q = 0; q < m; q++) {
      int i = idx[q];
      double s = -b[i];
      for (int j = 0; j < n; j++)
        if (d[j] != 0) s -= K[4 * i + j] * d[j];
      r[q] = s;
    }
    if (!sub_solve(K, idx, m, r, y)) return INFINITY;
    for (int q = 0; q < m; q++) d[idx[q]] = y[q];
  }
  double v = -INFINITY;
  for (int i = 0; i < n; i++) {
    if (!(mask >> i & 1)) continue;
    if (S >> i & 1) {
      xn[i] = x[i] + d[i];
      if (-xn[i] > v) v = -xn[i];
    } else {
      double wi = b[i];
      for (int j = 0; j < n; j++) wi += K[4 * i + j] * d[j];
      wi /= K[5 * i];
      if (-wi > v) v = -wi;
      xn[i] = 0.0;
    }
  }
  return v;
}

/* The active sets of four rows, the largest first (then by bits). */
static const unsigned char sets[16] = {15, 7, 11, 13, 14, 3, 5, 6, 9, 10, 12, 1, 2, 4, 8, 0};

/* vs_rigid_block_lcp for n rows (inlined for each n: its loops unrolled,
 * the same operations in the same order). */
static inline __attribute__((always_inline)) void lcp_n(const int n, const double Kp[10],
                                                        unsigned mask, const double *b, double *x,
                                                        unsigned *aset, double ainv[10]) {
  double K[16];
  unpack(Kp, n, K);
  double xn[4], best_x[4] = {0, 0, 0, 0}, best_v = INFINITY;
  unsigned best_s = 0;
  mask &= (1u << n) - 1;
  /* first the rows that carry an impulse now */
  unsigned s0 = 0;
  for (int i = 0; i < n; i++)
    if ((mask >> i & 1) && x[i] > 0) s0 |= 1u << i;
  unsigned S = s0;
  double v = try_set(n, K, mask, s0, b, x, xn);
  if (v > 0)
    for (int t = 0; t < 16; t++) {
      if ((sets[t] & ~mask) != 0 || sets[t] == s0) continue;
      if (v < best_v) {
        best_v = v;
        best_s = S;
        for (int i = 0; i < 4; i++) best_x[i] = xn[i];
      }
      S = sets[t];
      v = try_set(n, K, mask, S, b, x, xn);
      if (v <= 0) break;
    }
  if (v <= 0 || v < best_v) {
    best_v = v;
    best_s = S;
    for (int i = 0; i < 4; i++) best_x[i] = xn[i];
  }
  if (!(best_v < INFINITY)) return; /* no set solvable: the impulses stay */
  for (int i = 0; i < n; i++)
    if (mask >> i & 1) x[i] = best_x[i] > 0 ? best_x[i] : 0.0;
  /* the set found, for the next sweep (the whole block's rows only) */
  if (aset && mask == (1u << n) - 1 && best_s != *aset) {
    *aset = 0; /* none, until its inverse is there */
    if (best_s && vs_rigid_block_inverse(Kp, n, best_s, ainv)) *aset = best_s;
  }
}

void vs_rigid_block_lcp(int n, const double Kp[10], unsigned mask, const double *b, double *x,
                        unsigned *aset, double ainv[10]) {
  if (n == 4)
    lcp_n(4, Kp, mask, b, x, aset, ainv);
  else if (n == 3)
    lcp_n(3, Kp, mask, b, x, aset, ainv);
  else
    lcp_n(2, Kp, mask, b, x, aset, ainv);
}
