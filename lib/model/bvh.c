/* SPDX-License-Identifier: MIT */
/* bvh.c: the bounding volume hierarchy over static triangles (model/bvh.h).
 *
 * Build: per-triangle centroid sums once, then a recursive median split.
 * The median is found by quickselect (median-of-three pivot) under the total
 * order (centroid on the axis, triangle number): the two halves are
 * fixed sets, and the order inside them is fixed by the algorithm, so the
 * tree is a function of the input values alone.  O(n log n); 1M triangles in
 * well under a second (bench/bvh_build.c).
 *
 * Queries: an explicit stack (depth <= ~log2(n) + 2), no allocation. */
#include "model/bvh.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/alloc.h"
#include "util/vec3.h"

#define STACK 96 /* > the depth of any tree of <= 2^26 triangles, leaves of >= 2 */

/* One triangle during the build: its centroid (times 3) travels with it, so
 * that the split loops read memory in order, never through the ids. */
typedef struct item_t {
  double c[3]; /* a + b + c */
  int32_t id;  /* triangle number: breaks ties */
  int32_t pad;
} item_t;

typedef struct build_t {
  vs_bvh *b;
  item_t *item; /* n, permuted in place by the splits */
  int32_t next; /* nodes used */
} build_t;

/* (c[k], id) < (c'[k], id') */
static inline int before(const item_t *a, const item_t *b, int k) {
  return a->c[k] < b->c[k] || (a->c[k] == b->c[k] && a->id < b->id);
}

static inline void swap_item(item_t *a, item_t *b) {
  item_t t = *a;
  *a = *b, *b = t;
}

/* Rearrange o[0..n) so that o[m] is the m-th smallest on axis k and
 * everything before (after) it is smaller (larger): quickselect with a
 * median-of-three pivot and a branch-free Lomuto partition. */
static void select_kth(item_t *o, int32_t n, int32_t m, int k) {
  int32_t lo = 0, hi = n - 1;
  while (hi > lo) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (before(&o[mid], &o[lo], k)) swap_item(&o[mid], &o[lo]);
    if (before(&o[hi], &o[lo], k)) swap_item(&o[hi], &o[lo]);
    if (before(&o[mid], &o[hi], k)) swap_item(&o[mid], &o[hi]); /* median to o[hi] */
    const item_t pivot = o[hi];
    int32_t s = lo;
    for (int32_t i = lo; i < hi; i++) {
      const item_t x = o[i];
      const int lt = before(&x, &pivot, k);
      o[i] = o[s];
      o[s] = x;
      s += lt;
    }
    swap_item(&o[s], &o[hi]);
    if (s == m) return;
    if (s < m) lo = s + 1;
    else hi = s - 1;
  }
}

static inline const double *corner(const vs_bvh *b, int32_t t, int k) {
  return b->v + 3 * (size_t)b->tri[3 * (size_t)t + k];
}

static void tri_box(const vs_bvh *b, int32_t t, double lo[3], double hi[3]) {
  const double *p0 = corner(b, t, 0), *p1 = corner(b, t, 1), *p2 = corner(b, t, 2);
  for (int k = 0; k < 3; k++) {
    lo[k] = p0[k], hi[k] = p0[k];
    if (p1[k] < lo[k]) lo[k] = p1[k];
    if (p1[k] > hi[k]) hi[k] = p1[k];
    if (p2[k] < lo[k]) lo[k] = p2[k];
    if (p2[k] > hi[k]) hi[k] = p2[k];
  }
}

/* The planes of triangle t (bvh.h, vs_bvh.planes).  A sliver (its corner
 * angle's sine under 1e-4, so that its computed normal could be off by more
 * than 1e-12 rad) or a degenerate triangle gets all zeros: its bounds are 0
 * and the list queries always test it exactly. */
static void tri_planes(const vs_bvh *b, int32_t t, float *pl) {
  const double *p[3] = {corner(b, t, 0), corner(b, t, 1), corner(b, t, 2)};
  double e1[3], e2[3], c[3];
  memset(pl, 0, VS_BVH_PLANES * sizeof *pl);
  vs_sub3(p[1], p[0], e1), vs_sub3(p[2], p[0], e2), vs_cross3(e1, e2, c);
  const double c2 = vs_dot3(c, c);
  if (!(c2 > 1e-8 * vs_dot3(e1, e1) * vs_dot3(e2, e2))) return;
  const double inv = 1.0 / sqrt(c2);
  const double n[3] = {c[0] * inv, c[1] * inv, c[2] * inv};
  for (int k = 0; k < 3; k++) pl[k] = (float)n[k];
  pl[3] = (float)vs_dot3(n, p[0]);
  for (int j = 0; j < 3; j++) {
    double e[3], m[3];
    vs_sub3(p[(j + 1) % 3], p[j], e), vs_cross3(e, n, m);
    const double l = sqrt(vs_dot3(m, m));
    if (!(l > 0.0)) { /* cannot happen past the sliver test; stay safe */
      memset(pl, 0, VS_BVH_PLANES * sizeof *pl);
      return;
    }
    float *q = pl + 4 + 4 * j;
    const double il = 1.0 / l, u[3] = {m[0] * il, m[1] * il, m[2] * il};
    for (int k = 0; k < 3; k++) q[k] = (float)u[k];
    q[3] = (float)vs_dot3(u, p[j]);
  }
}

/* Build the subtree over item[first, first + n); returns its node. */
static int32_t build(build_t *B, int32_t first, int32_t n, int32_t level) {
  vs_bvh *b = B->b;
  const int32_t id = B->next++;
  vs_bvh_node *nd = &b->nodes[id];
  item_t *o = B->item + first;
  if (level > b->depth) b->depth = level;
  if (n <= VS_BVH_LEAF) {
    for (int k = 0; k < 3; k++) nd->lo[k] = INFINITY, nd->hi[k] = -INFINITY;
    for (int32_t i = 0; i < n; i++) {
      double lo[3], hi[3];
      tri_box(b, o[i].id, lo, hi);
      b->order[first + i] = o[i].id;
      for (int k = 0; k < 3; k++) {
        if (lo[k] < nd->lo[k]) nd->lo[k] = lo[k];
        if (hi[k] > nd->hi[k]) nd->hi[k] = hi[k];
      }
    }
    nd->start = first, nd->count = n;
    return id;
  }
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      if (o[i].c[k] < clo[k]) clo[k] = o[i].c[k];
      if (o[i].c[k] > chi[k]) chi[k] = o[i].c[k];
    }
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
  const int32_t half = n / 2;
  select_kth(o, n, half, axis);
  build(B, first, half, level + 1);
  const int32_t right = build(B, first + half, n - half, level + 1);
  const vs_bvh_node *l = &b->nodes[id + 1], *r = &b->nodes[right];
  for (int k = 0; k < 3; k++) {
    nd->lo[k] = l->lo[k] < r->lo[k] ? l->lo[k] : r->lo[k];
    nd->hi[k] = l->hi[k] > r->hi[k] ? l->hi[k] : r->hi[k];
  }
  nd->start = right, nd->count = 0;
  return id;
}

vs_status vs_bvh_build(vs_bvh *b, const double *v, int32_t nv, const int32_t *tri, int32_t nt,
                       vs_error *err) {
  if (!b) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_bvh_build: no BVH");
  memset(b, 0, sizeof *b);
  if (!v || !tri || nv < 1 || nt < 1)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_bvh_build: no triangles");
  if ((int64_t)nt > VS_BVH_MAX_TRIANGLES)
    return vs_error_set(err, VS_ERR_LIMIT, NULL, 0, 0, "%d triangles, over the limit of %lld",
                        nt, (long long)VS_BVH_MAX_TRIANGLES);
  for (int64_t i = 0; i < 3 * (int64_t)nt; i++)
    if (tri[i] < 0 || tri[i] >= nv)
      return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                          "vs_bvh_build: triangle %lld names vertex %d of %d", (long long)(i / 3),
                          tri[i], nv);
  /* Leaves hold >= 2 triangles when nt >= 2, so there are < nt nodes. */
  build_t B = {.b = b};
  b->nodes = vs_malloc((size_t)nt * sizeof *b->nodes);
  b->order = vs_malloc((size_t)nt * sizeof *b->order);
  /* (malloc aligns to 16 bytes: each 64-byte record would straddle two
   * cache lines) */
  b->planes_mem = vs_malloc((size_t)nt * VS_BVH_PLANES * sizeof *b->planes + 63);
  if (b->planes_mem)
    b->planes = (float *)(((uintptr_t)b->planes_mem + 63) & ~(uintptr_t)63);
  B.item = vs_malloc((size_t)nt * sizeof *B.item);
  if (!b->nodes || !b->order || !b->planes || !B.item) {
    vs_free(B.item);
    vs_bvh_free(b);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory for a BVH of %d triangles",
                        nt);
  }
  b->v = v, b->tri = tri, b->n_tri = nt;
  for (int32_t t = 0; t < nt; t++) {
    const double *p0 = corner(b, t, 0), *p1 = corner(b, t, 1), *p2 = corner(b, t, 2);
    for (int k = 0; k < 3; k++) B.item[t].c[k] = p0[k] + p1[k] + p2[k];
    B.item[t].id = t, B.item[t].pad = 0;
  }
  build(&B, 0, nt, 1);
  b->n_nodes = B.next;
  double big = 0.0;
  for (int64_t i = 0; i < 3 * (int64_t)nv; i++)
    if (fabs(v[i]) > big) big = fabs(v[i]);
  b->scale = 1.0 + big;
  for (int k = 0; k < 3; k++)
    if (b->nodes[0].hi[k] - b->nodes[0].lo[k] > b->extent) b->extent = b->nodes[0].hi[k] - b->nodes[0].lo[k];
  /* each triangle's own: the same on any number of threads */
#pragma omp parallel for schedule(static) if (nt > 65536)
  for (int32_t t = 0; t < nt; t++) tri_planes(b, t, b->planes + (size_t)t * VS_BVH_PLANES);
  vs_free(B.item);
  return VS_OK;
}

void vs_bvh_free(vs_bvh *b) {
  if (!b) return;
  vs_free(b->nodes);
  vs_free(b->order);
  vs_free(b->planes_mem);
  memset(b, 0, sizeof *b);
}

/* ---- per-triangle tests ---- */


void vs_tri_normal(const double *a, const double *b, const double *c, double n[3]) {
  double u[3], w[3];
  vs_sub3(b, a, u), vs_sub3(c, a, w), vs_cross3(u, w, n);
  const double l = sqrt(vs_dot3(n, n));
  if (l > 0.0) n[0] /= l, n[1] /= l, n[2] /= l;
}

/* Closest point q of triangle abc to p (Ericson, Real-Time Collision
 * Detection §5.1.5); returns |p - q|^2.  A zero-area triangle falls back to
 * its edges' regions through the same tests. */
double vs_tri_closest(const double *a, const double *b, const double *c, const double p[3],
                      double q[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3], d[3];
  vs_sub3(b, a, ab), vs_sub3(c, a, ac), vs_sub3(p, a, ap);
  const double d1 = vs_dot3(ab, ap), d2 = vs_dot3(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) {
    memcpy(q, a, 3 * sizeof(double));
    goto done;
  }
  vs_sub3(p, b, bp);
  const double d3 = vs_dot3(ab, bp), d4 = vs_dot3(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {
    memcpy(q, b, 3 * sizeof(double));
    goto done;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
    const double v = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k];
    goto done;
  }
  vs_sub3(p, c, cp);
  const double d5 = vs_dot3(ab, cp), d6 = vs_dot3(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) {
    memcpy(q, c, 3 * sizeof(double));
    goto done;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
    const double w = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) q[k] = a[k] + w * ac[k];
    goto done;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) q[k] = b[k] + w * (c[k] - b[k]);
    goto done;
  }
  const double den = va + vb + vc;
  if (den > 0.0) {
    const double v = vb / den, w = vc / den;
    for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
  } else {
    memcpy(q, a, 3 * sizeof(double)); /* zero area, all corners equal */
  }
done:
  vs_sub3(p, q, d);
  return vs_dot3(d, d);
}

/* Möller-Trumbore: segment p0 + t d, t in [0, 1], against abc; edges count. */
int vs_tri_segment(const double *a, const double *b, const double *c, const double p0[3],
                   const double d[3], double *t) {
  const double tol = 1e-10;
  double e1[3], e2[3], pv[3], tv[3], qv[3];
  vs_sub3(b, a, e1), vs_sub3(c, a, e2), vs_cross3(d, e2, pv);
  const double det = vs_dot3(e1, pv);
  if (det == 0.0) return 0;
  const double inv = 1.0 / det;
  vs_sub3(p0, a, tv);
  const double u = vs_dot3(tv, pv) * inv;
  if (u < -tol || u > 1.0 + tol) return 0;
  vs_cross3(tv, e1, qv);
  const double v = vs_dot3(d, qv) * inv;
  if (v < -tol || u + v > 1.0 + tol) return 0;
  const double tt = vs_dot3(e2, qv) * inv;
  if (!(tt >= 0.0 && tt <= 1.0)) return 0;
  *t = tt;
  return 1;
}

/* ---- queries ---- */

static inline int box_overlap(const double *lo, const double *hi, const double *qlo,
                              const double *qhi) {
  return lo[0] <= qhi[0] && hi[0] >= qlo[0] && lo[1] <= qhi[1] && hi[1] >= qlo[1] &&
         lo[2] <= qhi[2] && hi[2] >= qlo[2];
}

/* squared distance from p to the box (0 inside) */
static inline double box_dist2(const double *lo, const double *hi, const double *p) {
  double s = 0.0;
  for (int k = 0; k < 3; k++) {
    double e = 0.0;
    if (p[k] < lo[k]) e = lo[k] - p[k];
    else if (p[k] > hi[k]) e = p[k] - hi[k];
    s += e * e;
  }
  return s;
}

/* mode 0: box [q0, q1]; mode 1: ball (q0, r) */
static int64_t query_overlap(const vs_bvh *b, int mode, const double *q0, const double *q1,
                             double r, int32_t *out, int64_t cap) {
  if (!b || !b->nodes) return 0;
  int32_t stack[STACK];
  int sp = 0;
  int64_t found = 0;
  const double r2 = r * r;
  stack[sp++] = 0;
  while (sp > 0) {
    const vs_bvh_node *nd = &b->nodes[stack[--sp]];
    if (mode == 0 ? !box_overlap(nd->lo, nd->hi, q0, q1) : !(box_dist2(nd->lo, nd->hi, q0) <= r2))
      continue;
    if (nd->count == 0) {
      stack[sp++] = nd->start;               /* right, visited second */
      stack[sp++] = (int32_t)(nd - b->nodes) + 1; /* left, first */
      continue;
    }
    for (int32_t i = 0; i < nd->count; i++) {
      const int32_t t = b->order[nd->start + i];
      double lo[3], hi[3];
      tri_box(b, t, lo, hi);
      if (mode == 0 ? box_overlap(lo, hi, q0, q1) : box_dist2(lo, hi, q0) <= r2) {
        if (found < cap) out[found] = t;
        found++;
      }
    }
  }
  return found;
}

int64_t vs_bvh_query_box(const vs_bvh *b, const double lo[3], const double hi[3], int32_t *out,
                         int64_t cap) {
  return query_overlap(b, 0, lo, hi, 0.0, out, cap);
}

int64_t vs_bvh_query_sphere(const vs_bvh *b, const double c[3], double r, int32_t *out,
                            int64_t cap) {
  return query_overlap(b, 1, c, NULL, r, out, cap);
}

/* A node is skipped only when its box is farther than the best distance by
 * more than rounding could explain, so that ties and near-ties are decided
 * as brute force decides them. */
#define SLACK (1.0 + 1e-9)

int vs_bvh_closest(const vs_bvh *b, const double p[3], double maxd, vs_bvh_hit *hit) {
  if (!b || !b->nodes || !(maxd >= 0.0)) return 0;
  const double max2 = maxd * maxd;
  double best2 = INFINITY, bq[3] = {0, 0, 0};
  int32_t best = -1;
  int32_t stack[STACK];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const int32_t ni = stack[--sp];
    const vs_bvh_node *nd = &b->nodes[ni];
    const double lim = (best >= 0 ? best2 : max2) * SLACK;
    if (box_dist2(nd->lo, nd->hi, p) > lim) continue;
    if (nd->count == 0) {
      const int32_t l = ni + 1, r = nd->start;
      const double dl = box_dist2(b->nodes[l].lo, b->nodes[l].hi, p);
      const double dr = box_dist2(b->nodes[r].lo, b->nodes[r].hi, p);
      if (dl <= dr) stack[sp++] = r, stack[sp++] = l; /* nearer first */
      else stack[sp++] = l, stack[sp++] = r;
      continue;
    }
    for (int32_t i = 0; i < nd->count; i++) {
      const int32_t t = b->order[nd->start + i];
      double q[3];
      const double d2 = vs_tri_closest(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p, q);
      if (d2 > max2) continue;
      if (best < 0 || d2 < best2 || (d2 == best2 && t < best)) {
        best = t, best2 = d2;
        memcpy(bq, q, sizeof bq);
      }
    }
  }
  if (best < 0) return 0;
  if (hit) {
    hit->tri = best;
    hit->t = 0.0;
    hit->dist = sqrt(best2);
    memcpy(hit->point, bq, sizeof bq);
    vs_tri_normal(corner(b, best, 0), corner(b, best, 1), corner(b, best, 2), hit->normal);
  }
  return 1;
}

/* Entry parameter of p0 + t d into the box grown by rounding slack; 0 if
 * the segment misses it.  inv: 1 / d per axis (multiplying by it rounds a
 * little differently from dividing by d, far inside the slack). */
static int seg_box(const double *lo, const double *hi, const double *p0, const double *d,
                   const double *inv, double *tin) {
  double t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < 3; k++) {
    const double pad = 1e-9 * (fabs(lo[k]) + fabs(hi[k]) + (hi[k] - lo[k])) + 1e-300;
    const double l = lo[k] - pad, h = hi[k] + pad;
    if (d[k] == 0.0) {
      if (p0[k] < l || p0[k] > h) return 0;
      continue;
    }
    double ta = (l - p0[k]) * inv[k], tb = (h - p0[k]) * inv[k];
    if (ta > tb) {
      const double s = ta;
      ta = tb, tb = s;
    }
    if (ta > t0) t0 = ta;
    if (tb < t1) t1 = tb;
    if (t0 > t1) return 0;
  }
  *tin = t0;
  return 1;
}

/* The segment queries' answer: 0 when no triangle (best < 0), else 1 with
 * *hit (when given) at parameter best_t along p0 + t d. */
static int segment_hit(const vs_bvh *b, int32_t best, double best_t, const double p0[3],
                       const double d[3], vs_bvh_hit *hit) {
  if (best < 0) return 0;
  if (hit) {
    hit->tri = best;
    hit->t = best_t;
    hit->dist = 0.0;
    for (int k = 0; k < 3; k++) hit->point[k] = p0[k] + best_t * d[k];
    vs_tri_normal(corner(b, best, 0), corner(b, best, 1), corner(b, best, 2), hit->normal);
  }
  return 1;
}

int vs_bvh_segment(const vs_bvh *b, const double p0[3], const double p1[3], vs_bvh_hit *hit) {
  if (!b || !b->nodes) return 0;
  const double d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  const double inv[3] = {d[0] != 0.0 ? 1.0 / d[0] : 0.0, d[1] != 0.0 ? 1.0 / d[1] : 0.0,
                         d[2] != 0.0 ? 1.0 / d[2] : 0.0};
  double best_t = INFINITY;
  int32_t best = -1;
  int32_t stack[STACK];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const int32_t ni = stack[--sp];
    const vs_bvh_node *nd = &b->nodes[ni];
    double tin;
    if (!seg_box(nd->lo, nd->hi, p0, d, inv, &tin)) continue;
    if (best >= 0 && tin > best_t + 1e-9) continue;
    if (nd->count == 0) {
      stack[sp++] = nd->start;
      stack[sp++] = ni + 1;
      continue;
    }
    for (int32_t i = 0; i < nd->count; i++) {
      const int32_t t = b->order[nd->start + i];
      double tt;
      if (!vs_tri_segment(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p0, d, &tt))
        continue;
      if (best < 0 || tt < best_t || (tt == best_t && t < best)) best = t, best_t = tt;
    }
  }
  return segment_hit(b, best, best_t, p0, d, hit);
}

/* ---- the list queries (a particle's cached neighbourhood) ---- */

#define NEAREST_MAX 64 /* the largest k of vs_bvh_nearest */

static inline double max_abs3(const double *p) {
  double m = fabs(p[0]);
  if (fabs(p[1]) > m) m = fabs(p[1]);
  if (fabs(p[2]) > m) m = fabs(p[2]);
  return m;
}

int vs_bvh_nearest(const vs_bvh *b, const double p[3], int k, double maxd, int32_t *out,
                   double *reach, double *clear) {
  *reach = 0.0, *clear = 0.0;
  if (!b || !b->nodes || k < 1 || k >= NEAREST_MAX || !(maxd >= 0.0)) return 0;
  const double max2 = maxd * maxd;
  /* the k + 1 best so far, ascending by (d2, triangle) */
  double bd[NEAREST_MAX + 1];
  int32_t bt[NEAREST_MAX + 1];
  int cnt = 0;
  int32_t stack[STACK];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const int32_t ni = stack[--sp];
    const vs_bvh_node *nd = &b->nodes[ni];
    const double lim = (cnt == k + 1 ? bd[k] : max2) * SLACK;
    if (box_dist2(nd->lo, nd->hi, p) > lim) continue;
    if (nd->count == 0) {
      const int32_t l = ni + 1, r = nd->start;
      const double dl = box_dist2(b->nodes[l].lo, b->nodes[l].hi, p);
      const double dr = box_dist2(b->nodes[r].lo, b->nodes[r].hi, p);
      if (dl <= dr) stack[sp++] = r, stack[sp++] = l;
      else stack[sp++] = l, stack[sp++] = r;
      continue;
    }
    for (int32_t i = 0; i < nd->count; i++) {
      const int32_t t = b->order[nd->start + i];
      double q[3];
      const double d2 = vs_tri_closest(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p, q);
      if (d2 > max2) continue;
      if (cnt == k + 1 && !(d2 < bd[k] || (d2 == bd[k] && t < bt[k]))) continue;
      int j = cnt == k + 1 ? k : cnt++;
      while (j > 0 && (d2 < bd[j - 1] || (d2 == bd[j - 1] && t < bt[j - 1]))) {
        bd[j] = bd[j - 1], bt[j] = bt[j - 1];
        j--;
      }
      bd[j] = d2, bt[j] = t;
    }
  }
  const int n = cnt < k ? cnt : k;
  memcpy(out, bt, (size_t)n * sizeof *out);
  /* every other triangle's computed distance is >= sqrt(bd[k]); the true
   * one, and any later computation's, differ from it by far less than the
   * margin taken off */
  const double tol = 1e-9 * (b->scale + max_abs3(p));
  const double far = cnt <= k ? maxd : sqrt(bd[k]); /* every other triangle: >= far */
  const double r = far * (1.0 - 1e-9) - tol;
  *reach = r > 0.0 ? r : 0.0;
  const double c = (cnt > 0 ? sqrt(bd[0]) : maxd) * (1.0 - 1e-9) - tol;
  *clear = c > 0.0 ? c : 0.0;
  return n;
}

/* Bounds from the planes of triangle t (pl): *pd, p's signed distance from
 * its plane, and the return value, how far p lies outside the edges' slabs
 * (0 inside): |p - triangle|^2 >= pd^2 + that^2.  All zeros for slivers. */
static inline double fdot(const float *a, const double *b) {
  return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
}

static inline double lateral(const float *pl, const double p[3], double *pd) {
  *pd = fdot(pl, p) - pl[3];
  double e = 0.0;
  const double e0 = fdot(pl + 4, p) - pl[7], e1 = fdot(pl + 8, p) - pl[11], e2 = fdot(pl + 12, p) - pl[15];
  if (e0 > e) e = e0;
  if (e1 > e) e = e1;
  if (e2 > e) e = e2;
  return e;
}

/* The list queries rule triangles out four at a time with SSE2 where it is
 * built (x86-64), one at a time elsewhere (arm64) and for the rest of a
 * list.  Both bounds are beyond rounding, so both keep every triangle that
 * can be the answer, and the exact tests that follow decide: the same
 * answers, bit for bit.  The tests turn the four-at-a-time filter off to
 * hold the portable one to that on x86-64 too (vs_bvh__simd). */
static int simd_filter = 1;

void vs_bvh__simd(int on) { simd_filter = on; }

#if defined(__SSE2__)
/* The same bounds for four triangles at once, in float: the point rounded
 * to float (6e-8 of its coordinates) and five float operations (6e-8 of
 * |p| + |n.a| each) add about 5e-7 (scale + |p|) to the planes' own
 * rounding, far inside the queries' allowance tol = 4e-6 (scale + |p|).
 * A NaN (coordinates beyond float) keeps the triangle for the exact test. */
typedef struct bounds4_t {
  __m128 x, y, z, lim, lim2;
} bounds4_t;

static inline void bounds4_init(bounds4_t *q, const double p[3], double lim) {
  float l = (float)lim;
  if ((double)l < lim) l = nextafterf(l, INFINITY);
  float l2 = l * l;
  if ((double)l2 < (double)l * (double)l) l2 = nextafterf(l2, INFINITY);
  q->x = _mm_set1_ps((float)p[0]), q->y = _mm_set1_ps((float)p[1]), q->z = _mm_set1_ps((float)p[2]);
  q->lim = _mm_set1_ps(l), q->lim2 = _mm_set1_ps(l2);
}

/* Row k (0: the plane, 1-3: the edges) of four triangles, transposed:
 * r[0..2] the four normals' x, y, z, r[3] their offsets. */
static inline void bounds4_load(const float *pl0, const float *pl1, const float *pl2,
                                const float *pl3, int k, __m128 r[4]) {
  __m128 r0 = _mm_loadu_ps(pl0 + 4 * k), r1 = _mm_loadu_ps(pl1 + 4 * k),
         r2 = _mm_loadu_ps(pl2 + 4 * k), r3 = _mm_loadu_ps(pl3 + 4 * k);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3;
}

/* n.p - n.a for the four rows r */
static inline __m128 bounds4_eval(const bounds4_t *q, const __m128 r[4]) {
  return _mm_sub_ps(
      _mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], q->x), _mm_mul_ps(r[1], q->y)), _mm_mul_ps(r[2], q->z)),
      r[3]);
}

static inline __m128 bounds4_row(const bounds4_t *q, const float *pl0, const float *pl1,
                                 const float *pl2, const float *pl3, int k) {
  __m128 r[4];
  bounds4_load(pl0, pl1, pl2, pl3, k, r);
  return bounds4_eval(q, r);
}

/* closest_list's filter for list[0..4): bit j set when triangle j may lie
 * within lim of p, its bound pd^2 + e^2 in l2[j]. */
static inline int bounds4_closest(const bounds4_t *q, const float *planes, const int32_t *list,
                                  float l2[4]) {
  const float *pl[4];
  for (int j = 0; j < 4; j++) pl[j] = planes + (size_t)list[j] * VS_BVH_PLANES;
  const __m128 pd = bounds4_row(q, pl[0], pl[1], pl[2], pl[3], 0);
  __m128 e = _mm_max_ps(bounds4_row(q, pl[0], pl[1], pl[2], pl[3], 1), _mm_setzero_ps());
  e = _mm_max_ps(e, bounds4_row(q, pl[0], pl[1], pl[2], pl[3], 2));
  e = _mm_max_ps(e, bounds4_row(q, pl[0], pl[1], pl[2], pl[3], 3));
  const __m128 d2 = _mm_add_ps(_mm_mul_ps(pd, pd), _mm_mul_ps(e, e));
  _mm_storeu_ps(l2, d2);
  return _mm_movemask_ps(_mm_cmpngt_ps(d2, q->lim2));
}

/* segment_list's filter: bit j set unless both ends lie beyond lim on the
 * same side of triangle j's plane. */
static inline int bounds4_segment(const bounds4_t *qa, const bounds4_t *qb, const float *planes,
                                  const int32_t *list) {
  const float *pl[4];
  for (int j = 0; j < 4; j++) pl[j] = planes + (size_t)list[j] * VS_BVH_PLANES;
  __m128 r[4];
  bounds4_load(pl[0], pl[1], pl[2], pl[3], 0, r);
  const __m128 sa = bounds4_eval(qa, r), sb = bounds4_eval(qb, r);
  const __m128 nlim = _mm_sub_ps(_mm_setzero_ps(), qa->lim);
  const __m128 above = _mm_and_ps(_mm_cmpgt_ps(sa, qa->lim), _mm_cmpgt_ps(sb, qa->lim)),
               below = _mm_and_ps(_mm_cmplt_ps(sa, nlim), _mm_cmplt_ps(sb, nlim));
  return ~_mm_movemask_ps(_mm_or_ps(above, below)) & 15;
}
#endif

int vs_bvh_closest_list(const vs_bvh *b, const int32_t *list, int n, const double p[3], double maxd,
                        vs_bvh_hit *hit) {
  if (!b || !b->nodes || !(maxd >= 0.0) || n < 1 || n > NEAREST_MAX) return 0;
  /* tol: far above the rounding of the bounds (float planes: about 4e-7
   * of the coordinates) and of vs_tri_closest */
  const double tol = 4e-6 * (b->scale + max_abs3(p)), lim = maxd + tol, max2 = maxd * maxd;
  double lb2[NEAREST_MAX];
  int32_t ct[NEAREST_MAX];
  int nc = 0, first = -1, i = 0;
#if defined(__SSE2__)
  /* four triangles at a time in float (see bounds4) */
  if (simd_filter) {
    bounds4_t q;
    bounds4_init(&q, p, lim);
    for (; i + 4 <= n; i += 4) {
      float l2[4];
      int keep = bounds4_closest(&q, b->planes, list + i, l2);
      for (int j = 0; keep; j++, keep >>= 1) {
        if (!(keep & 1)) continue;
        if (first < 0 || (double)l2[j] < lb2[first]) first = nc;
        lb2[nc] = (double)l2[j], ct[nc++] = list[i + j];
        /* (its corners' numbers: the exact test below waits on them) */
        __builtin_prefetch(b->tri + 3 * (size_t)list[i + j]);
      }
    }
  }
#endif
  for (; i < n; i++) {
    const int32_t t = list[i];
    double pd;
    const double e = lateral(b->planes + (size_t)t * VS_BVH_PLANES, p, &pd);
    if (fabs(pd) > lim || e > lim) continue;
    const double l2 = pd * pd + e * e;
    if (l2 > lim * lim) continue;
    if (first < 0 || l2 < lb2[first]) first = nc;
    lb2[nc] = l2, ct[nc++] = t;
    __builtin_prefetch(b->tri + 3 * (size_t)t);
  }
  if (nc == 0) return 0;
  double best2 = INFINITY, thr2 = INFINITY, bq[3] = {0, 0, 0};
  int32_t best = -1;
  /* the most promising first: its distance rules most of the others out */
  for (int j = -1; j < nc; j++) {
    const int c = j < 0 ? first : j;
    if (j == first) continue;
    if (lb2[c] > thr2) continue; /* farther than the best, beyond rounding */
    const int32_t t = ct[c];
    double q[3];
    const double d2 = vs_tri_closest(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p, q);
    if (d2 > max2) continue;
    if (best < 0 || d2 < best2 || (d2 == best2 && t < best)) {
      best = t, best2 = d2;
      memcpy(bq, q, sizeof bq);
      const double th = sqrt(best2) + tol;
      thr2 = th * th;
    }
  }
  if (best < 0) return 0;
  if (hit) {
    hit->tri = best;
    hit->t = 0.0;
    hit->dist = sqrt(best2);
    memcpy(hit->point, bq, sizeof bq);
    vs_tri_normal(corner(b, best, 0), corner(b, best, 1), corner(b, best, 2), hit->normal);
  }
  return 1;
}

int vs_bvh_segment_list(const vs_bvh *b, const int32_t *list, int n, const double p0[3],
                        const double p1[3], vs_bvh_hit *hit) {
  if (!b || !b->nodes || n < 1) return 0;
  const double d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  const double tol = 4e-6 * (b->scale + max_abs3(p0) + max_abs3(p1)); /* as closest_list */
  double best_t = INFINITY;
  int32_t best = -1;
  int i = 0;
#if defined(__SSE2__)
  if (simd_filter) {
    bounds4_t qa, qb;
    bounds4_init(&qa, p0, tol), bounds4_init(&qb, p1, tol);
    for (; i + 4 <= n; i += 4) {
      int cross = bounds4_segment(&qa, &qb, b->planes, list + i);
      for (int j = 0; cross; j++, cross >>= 1) {
        if (!(cross & 1)) continue;
        const int32_t t = list[i + j];
        double tt;
        if (!vs_tri_segment(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p0, d, &tt)) continue;
        if (best < 0 || tt < best_t || (tt == best_t && t < best)) best = t, best_t = tt;
      }
    }
  }
#endif
  for (; i < n; i++) {
    const int32_t t = list[i];
    const float *pl = b->planes + (size_t)t * VS_BVH_PLANES;
    const double sa = fdot(pl, p0) - pl[3], sb = fdot(pl, p1) - pl[3];
    if ((sa > tol && sb > tol) || (sa < -tol && sb < -tol)) continue; /* one side: no crossing */
    double tt;
    if (!vs_tri_segment(corner(b, t, 0), corner(b, t, 1), corner(b, t, 2), p0, d, &tt)) continue;
    if (best < 0 || tt < best_t || (tt == best_t && t < best)) best = t, best_t = tt;
  }
  return segment_hit(b, best, best_t, p0, d, hit);
}
