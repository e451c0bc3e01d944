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
 * change.  All rows active is tried first with the inverse prepared once per
 * step (rigid_solve.c); when an impulse would come out negative, the active
 * sets are enumerated, the largest first, each solved by Gaussian elimination
 * in a fixed order (same bits on every machine), and the first that meets
 * every condition is taken; where rounding leaves none exactly (a degenerate
 * point, x_i = w_i = 0), the one that violates them least, clamped. */
#include "solve/rigid/rigid.h"

/* The relative diagonal term that makes K positive definite. */
#define VS_BLOCK_EPS 1e-9

static inline __attribute__((always_inline)) int prepare_n(const vs_rcontact *c, const int n,
                                                           double msum, double K[16],
                                                           double kinv[16]) {
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      K[4 * j + i] = K[4 * i + j] = msum + vs_dot3(c[i].an, c[j].ian) + vs_dot3(c[i].bn, c[j].ibn);
  for (int i = 0; i < n; i++) {
    if (!(K[5 * i] > 0)) return 0;
    K[5 * i] *= 1.0 + VS_BLOCK_EPS;
  }
  /* the inverse from the Cholesky factor K = L L^T: L^-1 (lower), then
   * K^-1 = L^-T L^-1 */
  double L[4][4] = {{0}}, M[4][4] = {{0}};
  for (int j = 0; j < n; j++) {
    double d = K[5 * j];
    for (int k = 0; k < j; k++) d -= L[j][k] * L[j][k];
    if (!(d > 0)) return 0;
    L[j][j] = sqrt(d);
    double id = 1.0 / L[j][j];
    for (int i = j + 1; i < n; i++) {
      double t = K[4 * i + j];
      for (int k = 0; k < j; k++) t -= L[i][k] * L[j][k];
      L[i][j] = t * id;
    }
  }
  for (int j = 0; j < n; j++) {
    M[j][j] = 1.0 / L[j][j];
    for (int i = j + 1; i < n; i++) {
      double t = 0;
      for (int k = j; k < i; k++) t -= L[i][k] * M[k][j];
      M[i][j] = t / L[i][i];
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double t = 0;
      for (int k = j; k < n; k++) t += M[k][i] * M[k][j];
      kinv[4 * j + i] = kinv[4 * i + j] = t;
    }
  return 1;
}

int vs_rigid_block_prepare(const vs_rcontact *c, int n, double msum, double K[16],
                           double kinv[16]) {
  switch (n) {
  case 4: return prepare_n(c, 4, msum, K, kinv);
  case 3: return prepare_n(c, 3, msum, K, kinv);
  case 2: return prepare_n(c, 2, msum, K, kinv);
  default: return 0;
  }
}

/* Solve A y = r (A: the rows and columns idx[0..m) of K; m <= 4) by
 * Gaussian elimination without pivoting; 0 when a pivot is not positive. */
static inline __attribute__((always_inline)) int sub_solve(const double K[16], const int *idx, int m, const double *r, double *y) {
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
static inline __attribute__((always_inline)) double try_set(const int n, const double K[16], const double kinv[16], unsigned mask,
                      unsigned S, const double *b, const double *x, double *xn) {
  int idx[4], m = 0;
  double d[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) xn[i] = x[i];
  for (int i = 0; i < n; i++) {
    if (!(mask >> i & 1)) continue;
    if (S >> i & 1) idx[m++] = i;
    else d[i] = -x[i]; /* inactive: its impulse goes to zero */
  }
  if (kinv && m == n) { /* every row: the inverse prepared for the step */
    for (int i = 0; i < n; i++) {
      double t = 0;
      for (int j = 0; j < n; j++) t -= kinv[4 * i + j] * b[j];
      d[i] = t;
    }
  } else if (m > 0) {
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

static inline __attribute__((always_inline)) void lcp_n(const int n, const double K[16],
                                                        const double kinv[16], unsigned mask,
                                                        const double *b, double *x) {
  double xn[4], best_x[4] = {0, 0, 0, 0}, best_v = INFINITY;
  mask &= (1u << n) - 1;
  /* first the rows that carry an impulse now: the active set rarely changes
   * from one sweep to the next */
  unsigned s0 = 0;
  for (int i = 0; i < n; i++)
    if ((mask >> i & 1) && x[i] > 0) s0 |= 1u << i;
  double v = try_set(n, K, kinv, mask, s0, b, x, xn);
  if (v > 0)
    for (int t = 0; t < 16; t++) {
      unsigned S = sets[t];
      if ((S & ~mask) != 0 || S == s0) continue;
      if (v < best_v) {
        best_v = v;
        for (int i = 0; i < 4; i++) best_x[i] = xn[i];
      }
      v = try_set(n, K, kinv, mask, S, b, x, xn);
      if (v <= 0) break;
    }
  if (v <= 0 || v < best_v) {
    best_v = v;
    for (int i = 0; i < 4; i++) best_x[i] = xn[i];
  }
  if (!(best_v < INFINITY)) return; /* no set solvable: the impulses stay */
  for (int i = 0; i < n; i++)
    if (mask >> i & 1) x[i] = best_x[i] > 0 ? best_x[i] : 0.0;
}

void vs_rigid_block_lcp(int n, const double K[16], const double kinv[16], unsigned mask,
                        const double *b, double *x) {
  if (n == 4) lcp_n(4, K, kinv, mask, b, x);
  else if (n == 3) lcp_n(3, K, kinv, mask, b, x);
  else lcp_n(2, K, kinv, mask, b, x);
}
