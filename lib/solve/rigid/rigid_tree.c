/* SPDX-License-Identifier: MIT */
/* rigid_tree.c: the joints that form trees, solved exactly.
 *
 * Sequential impulses relax a chain of joints one joint at a time: the
 * correction travels one link per sweep, and a heavy body at the end of a
 * long chain (50:1) needs hundreds of sweeps before the chain stops
 * stretching.  Joints whose graph is a forest are instead solved together
 * and exactly, in time linear in their number, by the sparse factorisation
 * of Baraff ("Linear-time dynamics using Lagrange multipliers", SIGGRAPH
 * 1996): the system
 *
 *     [ M   J^T ] [ y  ]   [ 0 ]
 *     [ J   0   ] [ mu ] = [ c ]
 *
 * whose unknowns are the bodies' velocity (or position) changes y and the
 * joints' multipliers, has the sparsity of the body-joint graph; when that
 * graph is a tree, eliminating its nodes from the leaves up fills nothing
 * in.  c = -J v gives the velocity change after which every tree joint's
 * anchors move together (J (v + y) = 0, y = -M^-1 J^T mu: the joint impulses
 * are -mu); c = -C, the joints' position errors, gives the displacement that
 * closes them to first order.
 *
 * The forest (vs_rigid_tree_build, once per model, in joint order): a
 * joint joins two vertices, each a moving body or "the ground" (the world
 * and every fixed body, one vertex); a joint that would close a loop -- two
 * bodies already connected, or a second path to the ground -- is left to the
 * sequential rows (rigid_solve.c), as are joints whose bodies are both
 * ground.  Each tree is rooted at its joint to the ground when it has one
 * (that joint then has a body below it), else at its lowest body, so that
 * every leaf is a body and every pivot block is invertible.
 *
 * Nodes are blocks: a body 6 (linear, angular; M = diag(m, I_world)), a
 * joint its rows (ball 3, distance 1, hinge and slider 5, weld 6).  Everything is in a fixed order, so the
 * results have the same bits for any thread count. */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"
#include "solve/rigid/rigid_joint_rows.h"
#include "util/alloc.h"

enum { NODE_BODY = 0, NODE_JOINT = 1 };

/* Union-find with path halving over vertices 0..n (n: the ground). */
static int32_t uf_find(int32_t *up, int32_t x) {
  while (up[x] != x) {
    up[x] = up[up[x]];
    x = up[x];
  }
  return x;
}

static int32_t ground_of(const vs_rmodel *m, int32_t b) {
  return b < 0 || m->inv_mass[b] == 0 ? m->n_bodies : b;
}

vs_status vs_rigid_tree_build(const vs_rmodel *m, vs_rtree *t) {
  memset(t, 0, sizeof *t);
  int32_t n = m->n_bodies, nj = m->n_joints;
  if (nj == 0) return VS_OK;
  size_t cap = (size_t)n + (size_t)nj + 1;
  int32_t *up = vs_calloc((size_t)n + 1, sizeof(int32_t));
  int32_t *body_node = vs_calloc((size_t)n + 1, sizeof(int32_t));
  int32_t *adj_start = vs_calloc(cap + 1, sizeof(int32_t));
  int32_t *adj = vs_calloc(4 * (size_t)nj + 1, sizeof(int32_t));
  int32_t *queue = vs_calloc(cap, sizeof(int32_t));
  t->in_tree = vs_calloc((size_t)nj + 1, sizeof(uint8_t));
  t->kind = vs_calloc(cap, sizeof(int8_t));
  t->id = vs_calloc(cap, sizeof(int32_t));
  t->dim = vs_calloc(cap, sizeof(int8_t));
  t->parent = vs_calloc(cap, sizeof(int32_t));
  t->order = vs_calloc(cap, sizeof(int32_t));
  t->dinv = vs_calloc(36 * cap, sizeof(double));
  t->lblk = vs_calloc(72 * cap, sizeof(double)); /* L, then L^T for the back solve */
  t->y = vs_calloc(6 * cap, sizeof(double));
  t->rot = vs_calloc(9 * ((size_t)n + 1), sizeof(double));
  t->axis = vs_calloc(3 * VS_RAXIS_CACHE * (size_t)nj, sizeof(double));
  t->axis_ok = vs_calloc((size_t)nj, sizeof(uint8_t));
  t->normals = vs_calloc(6 * (size_t)nj, sizeof(double));
  t->fpose = vs_calloc(7 * cap, sizeof(double));
  t->gs = vs_calloc(9 * ((size_t)n + 1), sizeof(double));
  t->gs_next = vs_calloc(9 * ((size_t)n + 1), sizeof(double));
  t->gs_bound = vs_calloc((size_t)n + 1, sizeof(double));
  t->gs_on = vs_calloc((size_t)n + 1, 1);
  t->gs_on_next = vs_calloc((size_t)n + 1, 1);
  vs_status st = VS_ERR_NOMEM;
  if (!up || !body_node || !adj_start || !adj || !queue || !t->in_tree || !t->kind || !t->id ||
      !t->dim || !t->parent || !t->order || !t->dinv || !t->lblk || !t->y || !t->rot || !t->axis ||
      !t->axis_ok || !t->normals || !t->fpose || !t->gs || !t->gs_next ||
      !t->gs_bound || !t->gs_on || !t->gs_on_next)
    goto out;
  for (int32_t j = 0; j < nj; j++) vs_rjoint_normals(m, j, &t->normals[6 * (size_t)j]);
  for (int32_t v = 0; v <= n; v++) up[v] = v, body_node[v] = -1;
  /* the forest, joints in index order */
  int32_t nn = 0, n_tree = 0;
  for (int32_t j = 0; j < nj; j++) {
    int32_t ga = ground_of(m, m->joint_ab[2 * j]), gb = ground_of(m, m->joint_ab[2 * j + 1]);
    if (ga == gb) continue;
    int32_t ra = uf_find(up, ga), rb = uf_find(up, gb);
    if (ra == rb) continue; /* a loop: the sequential rows */
    up[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    t->in_tree[j] = 1;
    n_tree++;
    t->n_tree_axes += m->joint_flags[j] != 0;
  }
  t->n_tree_joints = n_tree;
  if (n_tree == 0) {
    st = VS_OK;
    goto out;
  }
  /* nodes: the moving bodies of tree joints (by index), then the joints */
  for (int32_t j = 0; j < nj; j++) {
    if (!t->in_tree[j]) continue;
    for (int e = 0; e < 2; e++) {
      int32_t g = ground_of(m, m->joint_ab[2 * j + e]);
      if (g < n && body_node[g] < 0) body_node[g] = 0; /* mark */
    }
  }
  for (int32_t b = 0; b < n; b++)
    if (body_node[b] == 0) {
      body_node[b] = nn;
      t->kind[nn] = NODE_BODY, t->id[nn] = b, t->dim[nn] = 6;
      nn++;
    } else {
      body_node[b] = -1;
    }
  int32_t first_joint = nn;
  for (int32_t j = 0; j < nj; j++) {
    if (!t->in_tree[j]) continue;
    t->kind[nn] = NODE_JOINT, t->id[nn] = j;
    t->dim[nn] = (int8_t)vs_rjoint_rows(m->joint_kind[j]);
    nn++;
  }
  t->n_nodes = nn;
  /* adjacency (counting sort: each joint node and its one or two bodies) */
  for (int32_t k = first_joint; k < nn; k++) {
    int32_t j = t->id[k];
    for (int e = 0; e < 2; e++) {
      int32_t g = ground_of(m, m->joint_ab[2 * j + e]);
      if (g == n) continue;
      adj_start[k + 1]++;
      adj_start[body_node[g] + 1]++;
    }
  }
  for (int32_t k = 0; k < nn; k++) adj_start[k + 1] += adj_start[k];
  int32_t *fill = queue; /* scratch */
  memcpy(fill, adj_start, sizeof(int32_t) * (size_t)nn);
  for (int32_t k = first_joint; k < nn; k++) {
    int32_t j = t->id[k];
    for (int e = 0; e < 2; e++) {
      int32_t g = ground_of(m, m->joint_ab[2 * j + e]);
      if (g == n) continue;
      int32_t bn = body_node[g];
      adj[fill[k]++] = bn;
      adj[fill[bn]++] = k;
    }
  }
  /* roots: a joint to the ground, else the lowest body; breadth first */
  for (int32_t k = 0; k < nn; k++) t->parent[k] = -2; /* unvisited */
  int32_t head = 0, tail = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t r0 = pass == 0 ? first_joint : 0; r0 < (pass == 0 ? nn : first_joint); r0++) {
      if (t->parent[r0] != -2) continue;
      if (pass == 0 && adj_start[r0 + 1] - adj_start[r0] != 1) continue; /* not to the ground */
      t->parent[r0] = -1;
      queue[tail++] = r0;
      while (head < tail) {
        int32_t k = queue[head++];
        for (int32_t a = adj_start[k]; a < adj_start[k + 1]; a++) {
          int32_t c = adj[a];
          if (t->parent[c] != -2) continue;
          t->parent[c] = k;
          queue[tail++] = c;
        }
      }
    }
  }
  /* leaves first: the breadth-first order reversed; the nodes are then
   * renumbered in that order (node o is the o-th eliminated), so that the
   * factor and the solve run through the blocks in memory order (the same
   * operations on each node in the same sequence: the same bits) */
  int32_t *old = vs_calloc(3 * (size_t)nn, sizeof(int32_t));
  if (!old) goto out;
  int32_t *pos = adj_start; /* scratch: a node's new number */
  for (int32_t o = 0; o < nn; o++) pos[queue[nn - 1 - o]] = o;
  for (int32_t k = 0; k < nn; k++) {
    old[3 * k] = t->id[k], old[3 * k + 1] = t->parent[k];
    old[3 * k + 2] = t->kind[k] * 8 + t->dim[k];
  }
  for (int32_t k = 0; k < nn; k++) {
    int32_t o = pos[k], p = old[3 * k + 1];
    t->id[o] = old[3 * k], t->parent[o] = p < 0 ? p : pos[p];
    t->kind[o] = (int8_t)(old[3 * k + 2] / 8), t->dim[o] = (int8_t)(old[3 * k + 2] % 8);
    t->order[o] = o;
  }
  vs_free(old);
  st = VS_OK;
out:
  vs_free(up);
  vs_free(body_node);
  vs_free(adj_start);
  vs_free(adj);
  vs_free(queue);
  if (st != VS_OK) vs_rigid_tree_free(t);
  return st;
}

void vs_rigid_tree_free(vs_rtree *t) {
  vs_free(t->in_tree);
  vs_free(t->kind);
  vs_free(t->id);
  vs_free(t->dim);
  vs_free(t->parent);
  vs_free(t->order);
  vs_free(t->dinv);
  vs_free(t->lblk);
  vs_free(t->y);
  vs_free(t->rot);
  vs_free(t->axis);
  vs_free(t->axis_ok);
  vs_free(t->normals);
  vs_free(t->fpose);
  vs_free(t->gs);
  vs_free(t->gs_next);
  vs_free(t->gs_bound);
  vs_free(t->gs_on);
  vs_free(t->gs_on_next);
  memset(t, 0, sizeof *t);
}

uint64_t vs_rigid_tree_bytes(int64_t n, int64_t nj) {
  if (nj <= 0) return 0;
  uint64_t cap = (uint64_t)n + (uint64_t)nj + 1;
  return (uint64_t)nj + 1 + cap * (1 + 4 + 1 + 4 + 4 + 8 * (36 + 72 + 6 + 7)) +
         (8 * 9 * 3 + 8 + 2) * ((uint64_t)n + 1) + (uint64_t)nj * (1 + 8 * 3 * VS_RAXIS_CACHE + 8 * 6);
}

/* ---- small dense blocks (row-major, r x c) ----
 * The sizes are 6, 5, 3 and 1 only: every call below names them as constants
 * through the switch in the callers, so the compiler unrolls the loops. */

/* o = A^T B: A is k x r, B is k x c.  Each sum runs over q in order from
 * zero; the loops keep a row of sums, so that the innermost runs along B's
 * rows (vectorised, the same bits). */
static inline __attribute__((always_inline)) void mul_tn(const double *A, const double *B,
                                                         int k, int r, int c, double *o) {
  for (int i = 0; i < r; i++) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
    for (int q = 0; q < k; q++)
      for (int j = 0; j < c; j++) sum[j] += A[q * r + i] * B[q * c + j];
    for (int j = 0; j < c; j++) o[i * c + j] = sum[j];
  }
}

/* sum = A^T y over the first n columns (n even: whole vectors) of the first
 * k rows of a block A of row stride 6, mul_tn's c = 1 with the loops turned
 * so that the innermost runs along A's rows (vectorised, the same sums in
 * the same order).  A column past a block's width is zero (never written),
 * and so is its sum, which the callers carry along unread. */
static inline __attribute__((always_inline)) void mv6(const double *A, const double *y, int k,
                                                      int n, double sum[6]) {
  for (int i = 0; i < n; i++) sum[i] = 0;
  for (int q = 0; q < k; q++)
    for (int i = 0; i < n; i++) sum[i] += A[q * 6 + i] * y[q];
}

/* o = A B: A is r x k (row stride 6), B is k x c (row stride ldb); o is
 * r x c (row stride ldo); the same order of every sum. */
static inline __attribute__((always_inline)) void mul_nn(const double *A, const double *B, int ldb,
                                                         int r, int k, int c, double *o, int ldo) {
  for (int i = 0; i < r; i++) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
    for (int q = 0; q < k; q++)
      for (int j = 0; j < c; j++) sum[j] += A[i * 6 + q] * B[q * ldb + j];
    for (int j = 0; j < c; j++) o[i * ldo + j] = sum[j];
  }
}

/* Inverse of the symmetric d x d pivot A, definite of sign `sign` (+1 for
 * a body's, whose mass dominates; -1 for a joint's, -J M^-1 J^T), by the
 * Cholesky factor of sign * A.  A pivot that is not definite to rounding (a
 * joint whose bodies cannot move along one of its rows) gets zero rows and
 * columns there: that row's multiplier stays zero.  A and o have row stride
 * 6 (every block of the factor has); the factors are d x d (row stride d).
 * Only A's diagonal and lower triangle are read: the factor's updates of a
 * pivot (the symmetric H^T L, not symmetric to the bit) form those alone;
 * o is written whole. */
static inline __attribute__((always_inline)) void invert(const double *A, int d, double sign,
                                                         double *o) {
  double Li[36], Lt[36]; /* only their lower parts are read: no clearing but a dead one's */
  int dead[6] = {0};
  double scale = 0, linv[6] = {0};
  for (int i = 0; i < d; i++) scale = sign * A[i * 6 + i] > scale ? sign * A[i * 6 + i] : scale;
  /* sign * A = L L^T by columns, kept transposed (Lt[q * d + i] = L_iq):
   * column j's entries below the diagonal subtract their terms q = 0..j-1
   * in order side by side */
#pragma GCC unroll 6
  for (int j = 0; j < d; j++) {
    double djj = sign * A[j * 6 + j];
#pragma GCC unroll 6
    for (int q = 0; q < j; q++) djj -= Lt[q * d + j] * Lt[q * d + j];
    if (!(djj > 1e-13 * scale)) {
      dead[j] = 1;
      for (int i = j; i < d; i++) Lt[j * d + i] = 0.0; /* a zero column of L */
      continue;
    }
    double ljj = sqrt(djj), inv = 1.0 / ljj, col[6] = {0, 0, 0, 0, 0, 0};
    Lt[j * d + j] = ljj;
    linv[j] = inv;
#pragma GCC unroll 6
    for (int i = j + 1; i < d; i++) col[i] = sign * A[i * 6 + j];
#pragma GCC unroll 6
    for (int q = 0; q < j; q++)
#pragma GCC unroll 6
      for (int i = j + 1; i < d; i++) col[i] -= Lt[q * d + i] * Lt[q * d + j];
#pragma GCC unroll 6
    for (int i = j + 1; i < d; i++) Lt[j * d + i] = col[i] * inv;
  }
  /* Li = L^-1, lower triangular, by rows: entry (i, j < i) is
   * -(sum of L_iq Li_qj, q = j..i-1, in order from zero) / L_ii, the row's
   * sums side by side.  A dead row stays zero; a dead column comes out +0
   * (its L and Li entries are zero, so are its terms). */
#pragma GCC unroll 6
  for (int i = 0; i < d; i++) {
    if (dead[i]) {
      for (int j = 0; j <= i; j++) Li[i * d + j] = 0.0;
      continue;
    }
    Li[i * d + i] = linv[i]; /* 1 / L_ii */
    double sum[6] = {0, 0, 0, 0, 0, 0};
#pragma GCC unroll 6
    for (int q = 0; q < i; q++)
#pragma GCC unroll 6
      for (int j = 0; j <= q; j++) sum[j] -= Lt[q * d + i] * Li[q * d + j];
#pragma GCC unroll 6
    for (int j = 0; j < i; j++) Li[i * d + j] = sum[j] / Lt[i * d + i];
  }
  /* (sign A)^-1 = Li^T Li: entry (i, j <= i) sums q = i..d-1 in order from
   * zero, the row's sums side by side (along Li's rows) */
#pragma GCC unroll 6
  for (int i = 0; i < d; i++) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
#pragma GCC unroll 6
    for (int q = i; q < d; q++)
#pragma GCC unroll 6
      for (int j = 0; j <= i; j++) sum[j] += Li[q * d + i] * Li[q * d + j];
#pragma GCC unroll 6
    for (int j = 0; j <= i; j++) o[i * 6 + j] = o[j * 6 + i] = sign * sum[j];
  }
}

/* The Jacobian block of the edge between node k and its parent (the joint's
 * rows on the body: dim(joint) x 6); the off-diagonal block H[k][parent] is
 * J^T when k is a body under a joint, J when k is a joint under a body. */
static void edge_jacobian(const vs_rmodel *m, const vs_rwork *w, const vs_rtree *t, int32_t k,
                          double *J) {
  int32_t p = t->parent[k];
  int32_t jn = t->kind[k] == NODE_JOINT ? k : p, bn = t->kind[k] == NODE_JOINT ? p : k;
  int32_t j = t->id[jn], b = t->id[bn];
  int e = m->joint_ab[2 * j + 1] == b ? 1 : 0;
  vs_rjoint_jacobian(m, w, j, e, J);
}

/* L = D J^T for a body's inverted pivot D (6 x 6, symmetric to the bit) and
 * its joint's rows J (d x 6): mul_nn(D, J^T)'s sums in the same order (L:
 * 6 x d, row stride 6). */
static inline __attribute__((always_inline)) void mul_dj(const double *D, const double *J, int d,
                                                         double *L) {
  for (int c = 0; c < d; c++) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
    for (int q = 0; q < 6; q++)
      for (int i = 0; i < 6; i++) sum[i] += D[q * 6 + i] * J[c * 6 + q];
    for (int i = 0; i < 6; i++) L[i * 6 + c] = sum[i];
  }
}

/* L^T (c x r) after L (r x c, both row stride 6), for the back solve; the
 * entries past L's size stay zero (never written). */
static inline __attribute__((always_inline)) void transpose_(double *L, int r, int c) {
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) L[36 + j * 6 + i] = L[i * 6 + j];
}

/* The factor's products for an anchored joint (vs_rjoint_anchored: its
 * rows J are [sg I | A] over the anchors, [0 | A] after, and A's diagonal
 * over the anchors is zero, -sg skew(r)'s): each sum is mul_dj's, mul_nn's
 * or mul_tn's with the products of J's exact zeros left out and the others
 * in the same order from +0 (a sum from +0 is never -0, so adding a zero to
 * it changes no bit): the same bits, about half the products.  Of the
 * parent's pivot Dp only the lower triangle is formed (invert reads no
 * more; the unrolling pragmas make the triangular loops straight code). */

/* Body k under the joint p (dp rows J): L = D J^T (6 x dp), Dp -= J L. */
static inline __attribute__((always_inline)) void body_edge(const double *D, const double *J,
                                                            int dp, double *L, double *Dp) {
  for (int c = 0; c < dp; c++) {
    const double *Jc = &J[c * 6];
    double sum[6] = {0, 0, 0, 0, 0, 0};
    if (c < 3)
      for (int i = 0; i < 6; i++) sum[i] += D[c * 6 + i] * Jc[c];
    for (int q = 3; q < 6; q++)
      if (q != c + 3)
        for (int i = 0; i < 6; i++) sum[i] += D[q * 6 + i] * Jc[q];
    for (int i = 0; i < 6; i++) L[i * 6 + c] = sum[i];
  }
#pragma GCC unroll 6
  for (int i = 0; i < dp; i++) {
    const double *Ji = &J[i * 6];
    double sum[6] = {0, 0, 0, 0, 0, 0};
    if (i < 3)
      for (int j = 0; j <= i; j++) sum[j] += Ji[i] * L[i * 6 + j];
    for (int q = 3; q < 6; q++)
      if (q != i + 3)
#pragma GCC unroll 6
        for (int j = 0; j <= i; j++) sum[j] += Ji[q] * L[q * 6 + j];
    for (int j = 0; j <= i; j++) Dp[i * 6 + j] -= sum[j];
  }
  transpose_(L, 6, dp);
}

/* The joint k (dk rows J, pivot D) under the body p: L = D J (dk x 6),
 * Dp -= J^T L (6 x 6). */
static inline __attribute__((always_inline)) void joint_edge(const double *D, const double *J,
                                                             int dk, double *L, double *Dp) {
  for (int i = 0; i < dk; i++) {
    const double *Di = &D[i * 6];
    double sum[6] = {0, 0, 0, 0, 0, 0};
    for (int c = 0; c < 3; c++) sum[c] += Di[c] * J[c * 6 + c];
    for (int q = 0; q < dk; q++)
      for (int c = 3; c < 6; c++) sum[c] += Di[q] * J[q * 6 + c];
    for (int c = 0; c < 6; c++) L[i * 6 + c] = sum[c];
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
    if (i < 3)
      for (int j = 0; j <= i; j++) sum[j] += J[i * 6 + i] * L[i * 6 + j];
    else
      for (int q = 0; q < dk; q++)
        if (q != i - 3)
#pragma GCC unroll 6
          for (int j = 0; j <= i; j++) sum[j] += J[q * 6 + i] * L[q * 6 + j];
    for (int j = 0; j <= i; j++) Dp[i * 6 + j] -= sum[j];
  }
  transpose_(L, dk, 6);
}

/* Whether the tree's bodies are where they were at the last factorisation,
 * bit for bit (a chain at rest, bodies asleep), and no tree joint has a
 * kinematic end: the factor reads those poses alone (through the rotations
 * and the joints' rows made from them; the ground's do not move, and the
 * masses are constant), so it would be the same to the bit.  Else the poses
 * are kept for the next call.  A fresh run (a --resume) factors once more:
 * the same bits either way. */
static int same_pose(const vs_rmodel *m, const vs_rstate *s, vs_rtree *t) {
  int same = t->fvalid;
  for (int32_t k = 0; k < t->n_nodes && same; k++) {
    if (t->kind[k] != NODE_BODY) { /* a kinematic end: ground that moves (not kept here) */
      int32_t j = t->id[k], a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
      same = !(a >= 0 && vs_rmodel_kinematic(m, a)) && !(b >= 0 && vs_rmodel_kinematic(m, b));
      continue;
    }
    int32_t b = t->id[k];
    const double *f = &t->fpose[7 * (size_t)k];
    same = !memcmp(f, &s->x[3 * b], sizeof(double) * 3) &&
           !memcmp(f + 3, &s->q[4 * b], sizeof(double) * 4);
  }
  if (same) return 1;
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] != NODE_BODY) continue;
    int32_t b = t->id[k];
    memcpy(&t->fpose[7 * (size_t)k], &s->x[3 * b], sizeof(double) * 3);
    memcpy(&t->fpose[7 * (size_t)k + 3], &s->q[4 * b], sizeof(double) * 4);
  }
  t->fvalid = 1;
  return 0;
}

void vs_rigid_tree_factor(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  vs_rtree *t = &w->tree;
  if (t->n_nodes == 0) return;
  /* the joints' geometric stiffness moves with their impulses: a new one
   * is a new factor, however still the bodies (rigid_stiff.c) */
  if (m->set.geometric_stiffness &&
      vs_rigid_stiffness(m, s, w, w->h / (m->set.substeps > 0 ? m->set.substeps : 1)))
    t->fvalid = 0;
  if (same_pose(m, s, t)) return;
  /* diagonal blocks: M for bodies, 0 for joints (kept in dinv until inverted) */
  for (int32_t k = 0; k < t->n_nodes; k++) {
    double *D = &t->dinv[36 * (size_t)k];
#pragma GCC unroll 36
    for (int i = 0; i < 36; i++) D[i] = 0; /* straight stores, not a call */
    if (t->kind[k] != NODE_BODY) continue;
    int32_t b = t->id[k];
    double mass = 1.0 / m->inv_mass[b], Iw[9];
    const double *ii = &m->inv_inertia[3 * b];
    const double *R = &t->rot[9 * (size_t)b]; /* the pose's (vs_rigid_prepare_joints) */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        Iw[3 * i + j] = R[3 * i] * (1.0 / ii[0]) * R[3 * j] + R[3 * i + 1] * (1.0 / ii[1]) * R[3 * j + 1] +
                        R[3 * i + 2] * (1.0 / ii[2]) * R[3 * j + 2];
    for (int i = 0; i < 3; i++) {
      D[i * 6 + i] = mass;
      for (int j = 0; j < 3; j++) D[(3 + i) * 6 + 3 + j] = Iw[3 * i + j];
    }
    if (m->set.geometric_stiffness && t->gs_on[b]) /* the added rotational mass (rigid_stiff.c) */
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) D[(3 + i) * 6 + 3 + j] += t->gs[9 * (size_t)b + 3 * i + j];
  }
  /* leaves up: invert the pivot, form L = D^-1 H[k][p], take H[p][k] L from the parent's pivot */
  for (int32_t o = 0; o < t->n_nodes; o++) {
    int32_t k = t->order[o], p = t->parent[k];
    int dk = t->dim[k];
    double *D = &t->dinv[36 * (size_t)k];
    if (t->kind[k] == NODE_BODY) invert(D, 6, 1.0, D);
    else if (dk == 3) invert(D, 3, -1.0, D);
    else if (dk == 1) invert(D, 1, -1.0, D);
    else if (dk == 5) invert(D, 5, -1.0, D);
    else invert(D, 6, -1.0, D);
    if (p < 0) continue;
    int dp = t->dim[p];
    double J[36], tmp[36];
    edge_jacobian(m, w, t, k, J); /* dim(joint) x 6 */
    double *L = &t->lblk[72 * (size_t)k];
    double *Dp = &t->dinv[36 * (size_t)p];
    /* L = D^-1 H; the parent's pivot loses H^T D^-1 H (dp x dp).  Under a
     * joint (H = J^T): L = D^-1 J^T, H^T L = J L; under a body (H = J):
     * L = D^-1 J, H^T L = J^T L. */
#define BODY_(DP)                            \
  mul_dj(D, J, DP, L);                       \
  mul_nn(J, L, 6, DP, 6, DP, tmp, 6);        \
  for (int i = 0; i < (DP); i++)             \
    for (int j = 0; j <= i; j++) Dp[i * 6 + j] -= tmp[i * 6 + j]; \
  transpose_(L, 6, DP);
#define JOINT_(DK)                           \
  mul_nn(D, J, 6, DK, DK, 6, L, 6);          \
  mul_tn(J, L, DK, 6, 6, tmp);               \
  for (int i = 0; i < 6; i++)                \
    for (int j = 0; j <= i; j++) Dp[i * 6 + j] -= tmp[i * 6 + j]; \
  transpose_(L, DK, 6);
    int anchored = vs_rjoint_anchored(m->joint_kind[t->id[t->kind[k] == NODE_JOINT ? k : p]]);
    if (anchored && t->kind[k] == NODE_BODY) {
      switch (dp) {
      case 3: body_edge(D, J, 3, L, Dp); break;
      case 5: body_edge(D, J, 5, L, Dp); break;
      default: body_edge(D, J, 6, L, Dp); break;
      }
    } else if (anchored) {
      switch (dk) {
      case 3: joint_edge(D, J, 3, L, Dp); break;
      case 5: joint_edge(D, J, 5, L, Dp); break;
      default: joint_edge(D, J, 6, L, Dp); break;
      }
    } else if (t->kind[k] == NODE_BODY) {
      if (dp == 3) { BODY_(3) }
      else if (dp == 1) { BODY_(1) }
      else if (dp == 5) { BODY_(5) }
      else { BODY_(6) }
    } else if (dk == 3) { JOINT_(3) }
    else if (dk == 1) { JOINT_(1) }
    else if (dk == 5) { JOINT_(5) }
    else { JOINT_(6) }
#undef BODY_
#undef JOINT_
  }
}

/* The solve's kernels at fixed sizes dk = dim(k), dp = dim(p) (the same
 * sums in the same order as the products of the factorisation): forward,
 * y_p -= L^T y_k then y_k = D^-1 y_k; back, y_k -= L y_p (through L's
 * transpose, so that both run along rows).  Every block has row stride 6
 * and zero columns past its width: the sums are formed in whole vectors
 * (a size rounded up to even), and the lanes of y past a node's size are
 * never read. */
#define EVEN_(d) ((d) + ((d) & 1))
static inline __attribute__((always_inline)) void fwd_(const double *D, const double *L,
                                                       double *yk, double *yp, int dk, int dp) {
  double sum[6];
  if (yp) {
    mv6(L, yk, dk, EVEN_(dp), sum);
    for (int i = 0; i < EVEN_(dp); i++) yp[i] -= sum[i];
  }
  mv6(D, yk, dk, EVEN_(dk), sum); /* D^-1 is symmetric to the bit (invert) */
  for (int i = 0; i < EVEN_(dk); i++) yk[i] = sum[i];
}
static inline __attribute__((always_inline)) void back_(const double *Lt, const double *yp,
                                                        double *yk, int dk, int dp) {
  double sum[6];
  mv6(Lt, yp, dp, EVEN_(dk), sum);
  for (int i = 0; i < EVEN_(dk); i++) yk[i] -= sum[i];
}
#undef EVEN_

/* An edge's sizes (dk, dp): a body (6) and its joint (1, 3, 5 or 6 rows),
 * either way up; a root is taken as under a 6 (its yp is NULL). */
#define EDGE_SIZES_(X)                                                                      \
  switch (dk * 8 + dp) {                                                                    \
  case 6 * 8 + 1: X(6, 1); break;                                                           \
  case 6 * 8 + 3: X(6, 3); break;                                                           \
  case 6 * 8 + 5: X(6, 5); break;                                                           \
  case 1 * 8 + 6: X(1, 6); break;                                                           \
  case 3 * 8 + 6: X(3, 6); break;                                                           \
  case 5 * 8 + 6: X(5, 6); break;                                                           \
  default: X(6, 6); break;                                                                  \
  }

/* Solves the factored system for right-hand side c (per joint node, its
 * rows; zero for the bodies); the bodies' changes are left in t->y, the
 * joints' multipliers too. */
static void tree_solve(vs_rtree *t) {
  /* forward, leaves first (its children are done before it) */
  for (int32_t o = 0; o < t->n_nodes; o++) {
    int32_t k = t->order[o], p = t->parent[k];
    const double *D = &t->dinv[36 * (size_t)k], *L = &t->lblk[72 * (size_t)k];
    double *yk = &t->y[6 * (size_t)k], *yp = p >= 0 ? &t->y[6 * (size_t)p] : NULL;
    int dk = t->dim[k], dp = p >= 0 ? t->dim[p] : 6;
#define F_(DK, DP) fwd_(D, L, yk, yp, DK, DP)
    EDGE_SIZES_(F_)
#undef F_
  }
  for (int32_t o = t->n_nodes - 1; o >= 0; o--) { /* backward: y_k -= L y_p */
    int32_t k = t->order[o], p = t->parent[k];
    if (p < 0) continue;
    const double *Lt = &t->lblk[72 * (size_t)k + 36];
    double *yk = &t->y[6 * (size_t)k];
    const double *yp = &t->y[6 * (size_t)p];
    int dk = t->dim[k], dp = t->dim[p];
#define B_(DK, DP) back_(Lt, yp, yk, DK, DP)
    EDGE_SIZES_(B_)
#undef B_
  }
}
#undef EDGE_SIZES_

void vs_rigid_tree_warm(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  /* The forest's solve makes J v = 0 exactly in every sweep, whatever the
   * velocities it starts from, so its rows need no warm start; applied
   * again, the last substep's impulses were a kick that the sweeps had to
   * take back against the contacts' own: after an impact (a chain's end
   * mass on the ground) the two fed each other, and the chain blew up
   * within a frame (docs/physics.md, "Joints").  Their accumulators restart
   * from zero: at the substep's end they hold its impulse. */
  int d = vs_rjoint_rows(m->joint_kind[j]);
  memset(&s->joint_impulse[3 * (size_t)j], 0, sizeof(double) * (size_t)(d < 3 ? d : 3));
  if (d > 3) memset(&s->joint_more[VS_RJOINT_MORE * (size_t)j], 0, sizeof(double) * (size_t)(d - 3));
  vs_rjoint_warm_axis(m, s, w, j);
}

/* Whether body b moves (a node of the tree may touch the ground side). */
static const double *moving(const vs_rmodel *m, int32_t b, const double *x) {
  /* a kinematic body is ground that moves: its velocities are on the right-hand side */
  return b >= 0 && (m->inv_mass[b] != 0 || vs_rmodel_kinematic(m, b)) ? x : NULL;
}

void vs_rigid_tree_velocity(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int first) {
  vs_rtree *t = &w->tree;
  if (t->n_nodes == 0) return;
  /* After the substep's first sweep, with no other rows in the sweeps (no
   * contacts, no loop joints, no axis rows), nothing has moved the forest's
   * velocities since its last solve, which left J v = 0 up to rounding and
   * the change of the rows' pose since the factorisation (the last position
   * pass's correction): the solve is skipped. */
  if (!first && w->n_man == 0 && m->n_joints == t->n_tree_joints && t->n_tree_axes == 0) return;
  /* the trees of sleeping islands (rigid_sleep.c): zero right-hand sides,
   * so their nodes' solution is zero (a tree is one island); nothing to
   * solve when every tree sleeps */
  int awake = 0;
  for (int32_t k = 0; k < t->n_nodes; k++) {
    double *y = &t->y[6 * (size_t)k];
    memset(y, 0, sizeof(double) * 6);
    if (t->kind[k] != NODE_JOINT || vs_rigid_joint_asleep(m, w, t->id[k])) continue;
    awake = 1;
    int32_t j = t->id[k], a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    double va[6], vb[6];
    if (a >= 0) memcpy(va, &s->v[3 * a], 24), memcpy(va + 3, &s->w[3 * a], 24);
    if (b >= 0) memcpy(vb, &s->v[3 * b], 24), memcpy(vb + 3, &s->w[3 * b], 24);
    double c[VS_RJOINT_MAX_ROWS];
    vs_rjoint_apply_rows(m, w, j, moving(m, a, va), moving(m, b, vb), c);
    for (int i = 0; i < t->dim[k]; i++) y[i] = -c[i];
  }
  if (!awake) return;
  /* (M + G) v+ = M v + J^T l in the substep's first solve (rigid_stiff.c) */
  if (first && m->set.geometric_stiffness) vs_rigid_stiffness_rhs(m, s, w);
  tree_solve(t);
  for (int32_t k = 0; k < t->n_nodes; k++) {
    const double *y = &t->y[6 * (size_t)k];
    if (t->kind[k] == NODE_BODY) {
      int32_t b = t->id[k];
      if (w->asleep[b]) continue;
      double *v = &s->v[3 * b], *av = &s->w[3 * b]; /* read first: no aliasing with y */
      const double v0 = v[0] + y[0], v1 = v[1] + y[1], v2 = v[2] + y[2];
      const double w0 = av[0] + y[3], w1 = av[1] + y[4], w2 = av[2] + y[5];
      v[0] = v0, v[1] = v1, v[2] = v2, av[0] = w0, av[1] = w1, av[2] = w2;
    } else {
      /* impulse on b: -mu (ball: a vector; distance: along u) */
      int32_t j = t->id[k], d = t->dim[k];
      if (vs_rigid_joint_asleep(m, w, j)) continue;
      double *ji = &s->joint_impulse[3 * j];
      for (int i = 0; i < (d < 3 ? d : 3); i++) ji[i] -= y[i];
      for (int i = 3; i < d; i++)
        s->joint_more[VS_RJOINT_MORE * (size_t)j + (size_t)(i - 3)] -= y[i];
    }
  }
}

/* A ball's error, the anchors' gap C = (xb + rb) - (xa + ra): vs_rjoint_error's
 * operations on the same values, from the anchors in w->joint when they are
 * those of this pose (posed: prepared from it), else turned here by the
 * pose's rotations (vs_rjoint_pose), without the rest of a joint's context. */
static void ball_gap(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w, int32_t j,
                     int posed, double *e) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  double r[6];
  if (posed) {
    memcpy(r, jw, sizeof r);
  } else {
    vs_mat3_mul(&w->tree.rot[9 * (size_t)a], &m->joint_pa[3 * j], r);
    vs_mat3_mul(&w->tree.rot[9 * (size_t)b], &m->joint_pb[3 * j], r + 3);
  }
  for (int k = 0; k < 3; k++) e[k] = s->x[3 * b + k] + r[3 + k] - s->x[3 * a + k] - r[k];
}

/* A hinge's error at the pose it was prepared from: the gap and the turn
 * rows its prepare kept (rigid_joint.c: hinge_error's values). */
static void hinge_posed(const vs_rwork *w, int32_t j, double *e) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  memcpy(e, jw + VS_RJW_GAP, sizeof(double) * 3);
  e[3] = jw[VS_RJW_TURN], e[4] = jw[VS_RJW_TURN + 1];
}

/* The largest turn (rad) of a body in one Newton pass of the forest's
 * position correction.  The pass closes the joints to first order, with
 * their rows at the moved pose; a turn of dθ leaves an error of about
 * dθ² |r| / 2 at an anchor r, so a pass that would turn a body by much more
 * is no longer a good step.  A net of 14 x 14 spheres on ball joints pinned
 * at two corners and released from horizontal asked for passes of tenths
 * of a radian at the bottom of its swing (its first row, pulled straight
 * between the pins, must stretch to carry it), then of radians, and ran
 * away at frame 111.  A pass that would turn a body further is shortened
 * as a whole to this turn (a damped Newton step: the same direction, the
 * error closed in the passes that follow); the net then holds within
 * 13 cm.  No scene of make bench-rigid or of the goldens reaches it, at 1
 * to 8 substeps. */
#define TREE_TURN_MAX 0.2

int vs_rigid_tree_position(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int posed,
                           double tol) {
  vs_rtree *t = &w->tree;
  if (t->n_nodes == 0) return 0;
  if (!posed) vs_rjoint_pose(m, s, w);
  int above = 0; /* an error row past tol: a decision from the state alone */
  for (int32_t k = 0; k < t->n_nodes; k++) {
    double *y = &t->y[6 * (size_t)k];
    memset(y, 0, sizeof(double) * 6);
    if (t->kind[k] != NODE_JOINT || vs_rigid_joint_asleep(m, w, t->id[k])) continue;
    double e[VS_RJOINT_MAX_ROWS];
    int32_t j = t->id[k];
    if (m->joint_kind[j] == VS_JOINT_BALL) ball_gap(m, s, w, j, posed, e);
    else if (posed && m->joint_kind[j] == VS_JOINT_HINGE) hinge_posed(w, j, e);
    else vs_rjoint_error(m, s, w, j, e);
    for (int q = 0; q < t->dim[k]; q++) {
      y[q] = -e[q];
      above |= !(fabs(e[q]) <= tol); /* NaN too: the solve then shows it */
    }
  }
  if (!above) return 0;
  tree_solve(t);
  double turn2 = 0; /* the largest turn, squared */
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] != NODE_BODY || w->asleep[t->id[k]]) continue;
    const double *y = &t->y[6 * (size_t)k];
    double d = y[3] * y[3] + y[4] * y[4] + y[5] * y[5];
    turn2 = d > turn2 ? d : turn2;
  }
  /* (NaN: not shortened; the solve shows it) */
  const double alpha = turn2 > TREE_TURN_MAX * TREE_TURN_MAX ? TREE_TURN_MAX / sqrt(turn2) : 1.0;
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] != NODE_BODY || w->asleep[t->id[k]]) continue;
    int32_t b = t->id[k];
    double *y = &t->y[6 * (size_t)k];
    if (alpha < 1.0)
      for (int q = 0; q < 6; q++) y[q] *= alpha;
    for (int q = 0; q < 3; q++) s->x[3 * b + q] += y[q];
    vs_quat_integrate(&s->q[4 * b], y + 3, 1.0);
  }
  return 1;
}
