/* SPDX-License-Identifier: MIT */
/* test_bvh.c: the BVH (lib/model/bvh.c) against brute force: the same
 * triangles overlap a box or a ball, the same closest point and distance
 * (bitwise), the same first hit of a segment; the tree is the same on every
 * build and does not depend on where the input sits in memory. */
#include <math.h>
#include <stdint.h>

#include "testutil.h"

#include "model/bvh.h"
#include "model/meshgrid.h"

static uint64_t rng = 88172645463325252ull;
static double urand(void) { /* xorshift64*, [0, 1) */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

typedef struct soup {
  int32_t nv, nt;
  double *v;
  int32_t *t;
} soup;

/* A bumpy closed-ish surface (a sphere of quads with noise) plus random
 * free triangles of mixed sizes, some sharing exact coordinates. */
static soup make_soup(int32_t n_free) {
  const int g = 24;
  soup s;
  s.nv = g * g + 3 * n_free;
  s.nt = 2 * (g - 1) * (g - 1) + n_free;
  s.v = malloc(3 * sizeof(double) * (size_t)s.nv);
  s.t = malloc(3 * sizeof(int32_t) * (size_t)s.nt);
  int32_t k = 0;
  for (int j = 0; j < g; j++)
    for (int i = 0; i < g; i++) {
      double th = M_PI * (j + 0.5) / g, ph = 2 * M_PI * i / (g - 1);
      double r = 1.0 + 0.05 * urand();
      double *p = s.v + 3 * (size_t)(j * g + i);
      p[0] = r * sin(th) * cos(ph), p[1] = r * cos(th), p[2] = r * sin(th) * sin(ph);
    }
  for (int j = 0; j + 1 < g; j++)
    for (int i = 0; i + 1 < g; i++) {
      int32_t a = j * g + i, b = a + 1, c = a + g + 1, d = a + g;
      int32_t *t = s.t + 3 * (size_t)k;
      t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
      k += 2;
    }
  for (int32_t f = 0; f < n_free; f++) {
    double c[3] = {4 * urand() - 2, 4 * urand() - 2, 4 * urand() - 2};
    double sz = f % 10 == 0 ? 0.8 : 0.1;
    for (int q = 0; q < 3; q++) {
      double *p = s.v + 3 * (size_t)(g * g + 3 * f + q);
      for (int a = 0; a < 3; a++) p[a] = c[a] + sz * (urand() - 0.5);
      if (f % 7 == 0) p[0] = 0.25; /* many equal centroid coordinates: ties */
    }
    int32_t *t = s.t + 3 * (size_t)k++;
    t[0] = g * g + 3 * f, t[1] = t[0] + 1, t[2] = t[0] + 2;
  }
  return s;
}

static const double *C(const soup *s, int32_t t, int k) { return s->v + 3 * (size_t)s->t[3 * (size_t)t + k]; }

static int cmp_i32(const void *a, const void *b) {
  return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

static void tri_box(const soup *s, int32_t t, double lo[3], double hi[3]) {
  for (int a = 0; a < 3; a++) {
    lo[a] = fmin(C(s, t, 0)[a], fmin(C(s, t, 1)[a], C(s, t, 2)[a]));
    hi[a] = fmax(C(s, t, 0)[a], fmax(C(s, t, 1)[a], C(s, t, 2)[a]));
  }
}

START_TEST(overlap_queries_match_brute_force) {
  soup s = make_soup(3000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  int32_t *got = malloc(sizeof(int32_t) * (size_t)s.nt), *want = malloc(sizeof(int32_t) * (size_t)s.nt);
  int64_t total = 0;
  for (int q = 0; q < 3000; q++) {
    double c[3] = {5 * urand() - 2.5, 5 * urand() - 2.5, 5 * urand() - 2.5};
    double r = 0.5 * urand() * urand(), lo[3], hi[3];
    for (int a = 0; a < 3; a++) lo[a] = c[a] - r * urand(), hi[a] = c[a] + r * urand();
    for (int mode = 0; mode < 2; mode++) {
      int64_t n = mode ? vs_bvh_query_sphere(&b, c, r, got, s.nt) : vs_bvh_query_box(&b, lo, hi, got, s.nt);
      int64_t m = 0;
      for (int32_t t = 0; t < s.nt; t++) {
        double tl[3], th[3], d2 = 0.0;
        tri_box(&s, t, tl, th);
        int in = 1;
        for (int a = 0; a < 3; a++) {
          if (mode == 0 && (tl[a] > hi[a] || th[a] < lo[a])) in = 0;
          double ex = c[a] < tl[a] ? tl[a] - c[a] : c[a] > th[a] ? c[a] - th[a] : 0.0;
          d2 += ex * ex;
        }
        if (mode == 1 && !(d2 <= r * r)) in = 0;
        if (in) want[m++] = t;
      }
      ck_assert_int_eq(n, m);
      qsort(got, (size_t)n, sizeof *got, cmp_i32);
      for (int64_t i = 0; i < n; i++) ck_assert_int_eq(got[i], want[i]);
      total += n;
    }
    /* a short buffer: the count is still the whole count */
    int32_t few[2];
    ck_assert_int_eq(vs_bvh_query_sphere(&b, c, r, few, 2), vs_bvh_query_sphere(&b, c, r, NULL, 0));
  }
  ck_assert_int_gt(total, 10000); /* the queries did find things */
  free(got);
  free(want);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}
END_TEST

START_TEST(closest_point_matches_brute_force_bitwise) {
  soup s = make_soup(2000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  int found = 0;
  for (int q = 0; q < 4000; q++) {
    double p[3] = {5 * urand() - 2.5, 5 * urand() - 2.5, 5 * urand() - 2.5};
    if (q % 5 == 0) memcpy(p, C(&s, q % s.nt, q % 3), sizeof p); /* on a corner: distance 0 */
    double maxd = q % 2 ? INFINITY : 0.3 * urand();
    double best = INFINITY, bq[3] = {0};
    int32_t bt = -1;
    for (int32_t t = 0; t < s.nt; t++) {
      double qq[3];
      double d2 = vs_tri_closest(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), p, qq);
      if (d2 <= maxd * maxd && (bt < 0 || d2 < best)) best = d2, bt = t, memcpy(bq, qq, sizeof bq);
    }
    vs_bvh_hit h;
    int hit = vs_bvh_closest(&b, p, maxd, &h);
    ck_assert_int_eq(hit, bt >= 0);
    if (!hit) continue;
    found++;
    ck_assert_int_eq(h.tri, bt);
    ck_assert(h.dist == sqrt(best));
    for (int a = 0; a < 3; a++) ck_assert(h.point[a] == bq[a]);
    double n[3];
    vs_tri_normal(C(&s, bt, 0), C(&s, bt, 1), C(&s, bt, 2), n);
    ck_assert_double_eq_tol(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-12);
    for (int a = 0; a < 3; a++) ck_assert(h.normal[a] == n[a]);
  }
  ck_assert_int_gt(found, 2500);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}
END_TEST

START_TEST(segment_first_hit_matches_brute_force) {
  soup s = make_soup(2000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  int hits = 0;
  for (int q = 0; q < 4000; q++) {
    double p0[3], p1[3], d[3];
    for (int a = 0; a < 3; a++) p0[a] = 5 * urand() - 2.5;
    double len = q % 3 == 0 ? 4.0 : 0.3;
    for (int a = 0; a < 3; a++) p1[a] = p0[a] + len * (urand() - 0.5), d[a] = p1[a] - p0[a];
    double bt = INFINITY;
    int32_t best = -1;
    for (int32_t t = 0; t < s.nt; t++) {
      double tt;
      if (vs_tri_segment(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), p0, d, &tt) && (best < 0 || tt < bt))
        bt = tt, best = t;
    }
    vs_bvh_hit h;
    int hit = vs_bvh_segment(&b, p0, p1, &h);
    ck_assert_int_eq(hit, best >= 0);
    if (!hit) continue;
    hits++;
    ck_assert_int_eq(h.tri, best);
    ck_assert(h.t == bt);
  }
  ck_assert_int_gt(hits, 200);
  /* a segment through a shared edge and through a shared corner hits */
  double v[] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
  int32_t t[] = {0, 1, 2, 0, 2, 3};
  vs_bvh e2;
  ck_assert_int_eq(vs_bvh_build(&e2, v, 4, t, 2, &e), VS_OK);
  vs_bvh_hit h;
  ck_assert(vs_bvh_segment(&e2, (double[]){0.5, 1, 0.5}, (double[]){0.5, -1, 0.5}, &h));
  ck_assert_double_eq_tol(h.t, 0.5, 1e-15);
  ck_assert_int_eq(h.tri, 0); /* both: the lower number */
  ck_assert(vs_bvh_segment(&e2, (double[]){1, 1, 1}, (double[]){1, -1, 1}, &h));
  ck_assert(!vs_bvh_segment(&e2, (double[]){1.01, 1, 1}, (double[]){1.01, -1, 1}, &h));
  ck_assert(!vs_bvh_segment(&e2, (double[]){0.5, 1, 0.5}, (double[]){0.5, 0.01, 0.5}, &h));
  vs_bvh_free(&e2);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}
END_TEST

START_TEST(build_is_deterministic_and_address_free) {
  soup s = make_soup(5000);
  vs_bvh a, b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&a, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  /* the same values at other addresses */
  double *v2 = malloc(3 * sizeof(double) * (size_t)s.nv + 64);
  int32_t *t2 = malloc(3 * sizeof(int32_t) * (size_t)s.nt + 64);
  memcpy(v2 + 3, s.v, 3 * sizeof(double) * (size_t)s.nv);
  memcpy(t2 + 5, s.t, 3 * sizeof(int32_t) * (size_t)s.nt);
  ck_assert_int_eq(vs_bvh_build(&b, v2 + 3, s.nv, t2 + 5, s.nt, &e), VS_OK);
  ck_assert_int_eq(a.n_nodes, b.n_nodes);
  ck_assert_int_eq(a.depth, b.depth);
  ck_assert_mem_eq(a.order, b.order, sizeof(int32_t) * (size_t)s.nt);
  ck_assert_mem_eq(a.nodes, b.nodes, sizeof(vs_bvh_node) * (size_t)a.n_nodes);
  /* shape: median splits give a balanced tree, leaves of 2..4 */
  ck_assert_int_le(a.depth, (int)ceil(log2((double)s.nt / 2.0)) + 2);
  int64_t in_leaves = 0;
  for (int32_t i = 0; i < a.n_nodes; i++)
    if (a.nodes[i].count) {
      ck_assert_int_ge(a.nodes[i].count, 2);
      ck_assert_int_le(a.nodes[i].count, VS_BVH_LEAF);
      in_leaves += a.nodes[i].count;
    }
  ck_assert_int_eq(in_leaves, s.nt);
  int32_t *seen = calloc((size_t)s.nt, sizeof *seen);
  for (int32_t i = 0; i < s.nt; i++) seen[a.order[i]]++;
  for (int32_t i = 0; i < s.nt; i++) ck_assert_int_eq(seen[i], 1);
  free(seen);
  vs_bvh_free(&a);
  vs_bvh_free(&b);
  /* bad input */
  int32_t bad[3] = {0, 1, (int32_t)s.nv};
  ck_assert_int_eq(vs_bvh_build(&a, s.v, s.nv, bad, 1, &e), VS_ERR_USAGE);
  char want[128];
  snprintf(want, sizeof want, "vs_bvh_build: triangle 0 names vertex %d of %d", s.nv, s.nv);
  ck_assert_str_eq(e.message, want);
  ck_assert_ptr_null(a.nodes);
  ck_assert_int_eq(vs_bvh_build(&a, s.v, s.nv, s.t, 0, &e), VS_ERR_USAGE);
  /* one triangle: one leaf */
  ck_assert_int_eq(vs_bvh_build(&a, s.v, s.nv, s.t, 1, &e), VS_OK);
  ck_assert_int_eq(a.n_nodes, 1);
  vs_bvh_free(&a);
  free(v2);
  free(t2);
  free(s.v);
  free(s.t);
}
END_TEST

/* The cached-neighbourhood queries (collide_mesh.h): vs_bvh_nearest's list
 * and reach, then, for points and segments moved about inside the reach,
 * vs_bvh_closest_list and vs_bvh_segment_list give the whole BVH's answer,
 * bit for bit; nothing nearer than *clear; the k found are the k nearest. */
static void list_queries(void) {
  soup s = make_soup(2000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  int used = 0, hits = 0, crossings = 0;
  for (int q = 0; q < 3000; q++) {
    double c[3] = {3 * urand() - 1.5, 3 * urand() - 1.5, 3 * urand() - 1.5};
    if (q % 4 == 0) memcpy(c, C(&s, q % s.nt, q % 3), sizeof c); /* on the mesh */
    const int k = 1 + q % 20;
    const double cap = q % 3 ? 0.05 + 0.3 * urand() : INFINITY;
    int32_t list[64];
    double reach, clear;
    const int n = vs_bvh_nearest(&b, c, k, cap, list, &reach, &clear);
    ck_assert_int_le(n, k);
    /* brute force: every triangle outside the list lies >= reach from c,
     * every triangle >= clear, and the list holds the nearest ones */
    double worst_in = 0.0;
    for (int i = 0; i < n; i++) {
      double qq[3];
      worst_in = fmax(worst_in, sqrt(vs_tri_closest(C(&s, list[i], 0), C(&s, list[i], 1), C(&s, list[i], 2), c, qq)));
    }
    int bad = 0; /* (one assertion: check's are slow in a loop this long) */
    for (int32_t t = 0; t < s.nt; t++) {
      double qq[3];
      const double d = sqrt(vs_tri_closest(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), c, qq));
      bad += !(d >= clear);
      int in = 0;
      for (int i = 0; i < n; i++) in |= list[i] == t;
      if (!in) bad += !(d >= reach && d >= worst_in * (1 - 1e-12));
    }
    ck_assert_int_eq(bad, 0);
    if (!(reach > 0.0)) continue;
    for (int m = 0; m < 8; m++) {
      /* a point and a segment inside the reach */
      const double R = reach * urand();
      double u[3], w[3], p[3], p0[3];
      for (int a = 0; a < 3; a++) u[a] = urand() - 0.5, w[a] = urand() - 0.5;
      const double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      const double lw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
      const double room = isinf(reach) ? 1.0 : reach - R;
      const double ru = 0.999 * room * urand(), rw = 0.999 * (isinf(reach) ? 1.0 : reach) * urand();
      for (int a = 0; a < 3; a++) p[a] = c[a] + ru * u[a] / lu, p0[a] = c[a] + rw * w[a] / lw;
      vs_bvh_hit h1, h2;
      const int a1 = vs_bvh_closest(&b, p, R, &h1), a2 = vs_bvh_closest_list(&b, list, n, p, R, &h2);
      ck_assert_int_eq(a1, a2);
      used++;
      if (a1) {
        hits++;
        ck_assert_int_eq(h1.tri, h2.tri);
        ck_assert(h1.dist == h2.dist);
        for (int a = 0; a < 3; a++) ck_assert(h1.point[a] == h2.point[a] && h1.normal[a] == h2.normal[a]);
      }
      const int s1 = vs_bvh_segment(&b, p0, p, &h1), s2 = vs_bvh_segment_list(&b, list, n, p0, p, &h2);
      ck_assert_int_eq(s1, s2);
      if (s1) {
        crossings++;
        ck_assert_int_eq(h1.tri, h2.tri);
        ck_assert(h1.t == h2.t);
        for (int a = 0; a < 3; a++) ck_assert(h1.point[a] == h2.point[a] && h1.normal[a] == h2.normal[a]);
      }
    }
  }
  ck_assert_int_gt(used, 5000);
  ck_assert_int_gt(hits, 300);
  ck_assert_int_gt(crossings, 100);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}

/* with the filter built (SSE2 on x86-64), and with the portable one, the
 * only one on arm64 (bvh.c: the same answers) */
START_TEST(list_queries_match_the_whole_bvh) { list_queries(); }
END_TEST
START_TEST(list_queries_match_the_whole_bvh_portable) {
  vs_bvh__simd(0);
  list_queries();
  vs_bvh__simd(1);
}
END_TEST

/* The list queries' plane bounds (four triangles at a time in float on
 * SSE2) rule out no answer: far from the origin (2000 m: float rounds the
 * coordinates by 1e-4 m), a point just inside maxd of a triangle and a
 * segment through it near an edge get the whole BVH's answers, bit for bit,
 * from a list of every triangle near enough (brute force, up to 64). */
static void list_bounds(void) {
  soup s = make_soup(2000);
  for (int32_t i = 0; i < s.nv; i++) s.v[3 * i] += 1000.0, s.v[3 * i + 1] -= 2000.0, s.v[3 * i + 2] += 500.0;
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  int bad = 0, hits = 0, crossings = 0, long_lists = 0;
  for (int q = 0; q < 2000; q++) {
    const int32_t t = (int32_t)(urand() * s.nt);
    const double maxd = q % 2 ? 0.01 : 0.2 * urand();
    double n[3], w[3] = {urand(), urand(), 0}, x[3], p[3], p0[3], p1[3];
    if (q % 3 == 0) w[0] = 1e-13; /* next to an edge */
    if (w[0] + w[1] > 1) w[0] = 1 - w[0], w[1] = 1 - w[1];
    w[2] = 1 - w[0] - w[1];
    vs_tri_normal(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), n);
    for (int a = 0; a < 3; a++) {
      x[a] = w[0] * C(&s, t, 0)[a] + w[1] * C(&s, t, 1)[a] + w[2] * C(&s, t, 2)[a];
      p[a] = x[a] + maxd * (1 - 1e-9) * n[a];
      p0[a] = x[a] + 0.5 * maxd * n[a], p1[a] = x[a] - 0.5 * maxd * n[a];
    }
    int32_t list[64];
    int nl = 0;
    for (int32_t u = 0; u < s.nt && nl < 64; u++) {
      double qq[3];
      if (vs_tri_closest(C(&s, u, 0), C(&s, u, 1), C(&s, u, 2), x, qq) <= 4.1 * maxd * maxd) list[nl++] = u;
    }
    if (nl == 64) continue; /* (a crowded spot: the list could miss one) */
    long_lists += nl >= 8;
    vs_bvh_hit h1, h2;
    const int a1 = vs_bvh_closest(&b, p, maxd, &h1), a2 = vs_bvh_closest_list(&b, list, nl, p, maxd, &h2);
    bad += a1 != a2;
    if (a1 && a2) bad += h1.tri != h2.tri || h1.dist != h2.dist, hits++;
    const int s1 = vs_bvh_segment(&b, p0, p1, &h1), s2 = vs_bvh_segment_list(&b, list, nl, p0, p1, &h2);
    bad += s1 != s2;
    if (s1 && s2) bad += h1.tri != h2.tri || h1.t != h2.t, crossings++;
  }
  ck_assert_int_eq(bad, 0);
  ck_assert_int_gt(hits, 1500);
  ck_assert_int_gt(crossings, 1500);
  ck_assert_int_gt(long_lists, 200);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}

START_TEST(list_bounds_keep_the_answers_far_from_the_origin) { list_bounds(); }
END_TEST
START_TEST(list_bounds_keep_the_answers_far_from_the_origin_portable) {
  vs_bvh__simd(0);
  list_bounds();
  vs_bvh__simd(1);
}
END_TEST

/* The mesh grid (model/meshgrid.h): the list of a point's cell holds every
 * triangle within the margin of the point (brute force), a point outside
 * the grid has none that near, the memory bounds hold, and two builds give
 * the same arrays. */
START_TEST(grid_lists_hold_every_triangle_within_the_margin) {
  soup s = make_soup(2000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  const double margins[] = {0.01, 0.05, 0.3};
  for (int mi = 0; mi < 3; mi++) {
    vs_mesh_grid g, g2;
    ck_assert_int_eq(vs_mesh_grid_build(&g, &b, margins[mi], &e), VS_OK);
    ck_assert_int_eq(vs_mesh_grid_build(&g2, &b, margins[mi], &e), VS_OK);
    const int64_t cells = (int64_t)g.n[0] * g.n[1] * g.n[2];
    ck_assert_int_le(cells, 16 * (int64_t)s.nt + 4096);
    ck_assert_int_le(g.n_entries, 48 * (int64_t)s.nt + 65536);
    ck_assert_int_eq(g.start[cells], g.n_entries);
    ck_assert(memcmp(g.start, g2.start, (size_t)(cells + 1) * sizeof *g.start) == 0);
    ck_assert(memcmp(g.tri, g2.tri, (size_t)g.n_entries * sizeof *g.tri) == 0);
    int bad = 0, near = 0, outside = 0;
    for (int q = 0; q < 3000; q++) {
      double c[3] = {5 * urand() - 2.5, 5 * urand() - 2.5, 5 * urand() - 2.5};
      if (q % 3 == 0) { /* near the mesh */
        memcpy(c, C(&s, q % s.nt, q % 3), sizeof c);
        for (int a = 0; a < 3; a++) c[a] += 2 * margins[mi] * (urand() - 0.5);
      }
      const int64_t id = vs_mesh_grid_cell(&g, c);
      outside += id < 0;
      for (int32_t t = 0; t < s.nt; t++) {
        double qq[3];
        if (!(sqrt(vs_tri_closest(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), c, qq)) <= margins[mi])) continue;
        near++;
        int in = 0;
        if (id >= 0)
          for (int32_t k = g.start[id]; k < g.start[id + 1]; k++) in |= g.tri[k] == t;
        bad += !in;
      }
      /* each list in triangle order, without repeats */
      if (id >= 0)
        for (int32_t k = g.start[id] + 1; k < g.start[id + 1]; k++) bad += !(g.tri[k - 1] < g.tri[k]);
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_gt(near, 1000);
    ck_assert_int_gt(outside, 10);
    vs_mesh_grid_free(&g);
    vs_mesh_grid_free(&g2);
  }
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}
END_TEST

/* The grid's table budget (model/meshgrid.h): over a mesh whose lists and
 * cell bounds would pass VS_MESH_GRID_TABLE with the first cell side (the
 * mean edge or the margin), the cells grow until they fit or reach twice
 * that side, and the lists still hold every triangle within the margin. */
START_TEST(grid_cells_grow_to_fit_the_table_budget) {
  soup s = make_soup(200000);
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, s.v, s.nv, s.t, s.nt, &e), VS_OK);
  const double margin = 0.01;
  double edges = 0.0;
  for (int32_t t = 0; t < s.nt; t++)
    for (int j = 0; j < 3; j++) {
      const double *p = C(&s, t, j), *q = C(&s, t, (j + 1) % 3);
      edges += sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
    }
  const double h0 = fmax(edges / (3.0 * s.nt), margin);
  vs_mesh_grid g;
  ck_assert_int_eq(vs_mesh_grid_build(&g, &b, margin, &e), VS_OK);
  const int64_t cells = (int64_t)g.n[0] * g.n[1] * g.n[2];
  const int64_t table = 4 * (cells + 1 + g.n_entries);
  /* it grew for the budget (the memory bounds alone hold at h0: 16 cells
   * and 48 entries a triangle are far above this mesh's) */
  ck_assert_msg(g.h > 1.05 * h0, "h %g, first side %g", g.h, h0);
  ck_assert_msg(table <= VS_MESH_GRID_TABLE || g.h >= 2.0 * h0, "table %lld bytes at h %g (first side %g)",
                (long long)table, g.h, h0);
  ck_assert_double_le(g.h, 2.0 * 1.1 * h0);
  int bad = 0, near = 0;
  for (int q = 0; q < 200; q++) {
    double c[3] = {4 * urand() - 2, 4 * urand() - 2, 4 * urand() - 2};
    if (q % 2 == 0) { /* near a triangle */
      memcpy(c, C(&s, (int32_t)(urand() * s.nt) % s.nt, q % 3), sizeof c);
      for (int a = 0; a < 3; a++) c[a] += 2 * margin * (urand() - 0.5);
    }
    const int64_t id = vs_mesh_grid_cell(&g, c);
    for (int32_t t = 0; t < s.nt; t++) {
      double qq[3];
      if (!(vs_tri_closest(C(&s, t, 0), C(&s, t, 1), C(&s, t, 2), c, qq) <= margin * margin)) continue;
      near++;
      int in = 0;
      if (id >= 0)
        for (int32_t k = g.start[id]; k < g.start[id + 1]; k++) in |= g.tri[k] == t;
      bad += !in;
    }
  }
  ck_assert_int_eq(bad, 0);
  ck_assert_int_gt(near, 100);
  vs_mesh_grid_free(&g);
  vs_bvh_free(&b);
  free(s.v);
  free(s.t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bvh");
  TCase *t = tcase_create("bvh");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, overlap_queries_match_brute_force);
  tcase_add_test(t, closest_point_matches_brute_force_bitwise);
  tcase_add_test(t, segment_first_hit_matches_brute_force);
  tcase_add_test(t, build_is_deterministic_and_address_free);
  tcase_add_test(t, list_queries_match_the_whole_bvh);
  tcase_add_test(t, list_bounds_keep_the_answers_far_from_the_origin);
  tcase_add_test(t, list_queries_match_the_whole_bvh_portable);
  tcase_add_test(t, list_bounds_keep_the_answers_far_from_the_origin_portable);
  tcase_add_test(t, grid_lists_hold_every_triangle_within_the_margin);
  tcase_add_test(t, grid_cells_grow_to_fit_the_table_budget);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
