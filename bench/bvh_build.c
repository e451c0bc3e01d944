/* SPDX-License-Identifier: MIT */
/* bvh_build.c: time vs_bvh_build on a large triangle mesh (docs/performance.md: 1M
 * triangles in under 1 s), and a closest-point query rate on it.
 *
 *   make build/bench/bvh_build && build/bench/bvh_build [TRIANGLES] [REPEATS]
 *
 * The mesh is a wavy height field of about TRIANGLES triangles (default
 * 1,000,000), with its triangles numbered in a scrambled (but fixed) order so
 * that the build cannot profit from input order.  Prints the best and the
 * median build time and a checksum of the tree (equal on every run). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>

#include "model/bvh.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long want = argc > 1 ? atol(argv[1]) : 1000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (want < 2 || reps < 1 || reps > 100) {
    fprintf(stderr, "usage: bvh_build [TRIANGLES >= 2] [REPEATS 1..100]\n");
    return 2;
  }
  int32_t g = (int32_t)ceil(sqrt((double)want / 2.0)); /* g x g cells, 2 triangles each */
  int32_t nv = (g + 1) * (g + 1), nt = 2 * g * g;
  double *v = malloc((size_t)nv * 3 * sizeof *v);
  int32_t *tri = malloc((size_t)nt * 3 * sizeof *tri);
  if (!v || !tri) return 1;
  for (int32_t j = 0; j <= g; j++)
    for (int32_t i = 0; i <= g; i++) {
      double *p = v + 3 * (size_t)(j * (g + 1) + i);
      p[0] = (double)i / g, p[2] = (double)j / g;
      p[1] = 0.05 * sin(12.0 * p[0]) * cos(9.0 * p[2]);
    }
  /* triangle k goes to slot (k * a) mod nt, a coprime with nt: a fixed shuffle */
  uint64_t a = 2654435761u % (uint64_t)nt;
  while (a < 2) a++;
  for (;;) {
    uint64_t x = a, y = (uint64_t)nt;
    while (y) { uint64_t t = x % y; x = y; y = t; }
    if (x == 1) break;
    a++;
  }
  for (int32_t k = 0; k < nt; k++) {
    int32_t c = k / 2, i = c % g, j = c / g, s = (int32_t)(((uint64_t)k * a) % (uint64_t)nt);
    int32_t v00 = j * (g + 1) + i, v10 = v00 + 1, v01 = v00 + g + 1, v11 = v01 + 1;
    int32_t *t = tri + 3 * (size_t)s;
    if (k % 2 == 0) t[0] = v00, t[1] = v10, t[2] = v11;
    else t[0] = v00, t[1] = v11, t[2] = v01;
  }
  double *times = malloc((size_t)reps * sizeof *times);
  uint64_t sum = 0;
  vs_bvh b;
  for (int r = 0; r < reps; r++) {
    vs_error e;
    double t0 = now();
    if (vs_bvh_build(&b, v, nv, tri, nt, &e) != VS_OK) {
      fprintf(stderr, "build failed: %s\n", e.message);
      return 1;
    }
    times[r] = now() - t0;
    uint64_t h = 1469598103934665603ull;
    for (int32_t i = 0; i < nt; i++) h = (h ^ (uint64_t)b.order[i]) * 1099511628211ull;
    for (int32_t i = 0; i < b.n_nodes; i++) h = (h ^ (uint64_t)b.nodes[i].start) * 1099511628211ull;
    if (r == 0) sum = h;
    else if (h != sum) {
      fprintf(stderr, "the tree differs between builds\n");
      return 1;
    }
    if (r + 1 < reps) vs_bvh_free(&b);
  }
  /* closest-point queries at random heights over the field */
  int nq = 200000, found = 0;
  uint64_t s = 12345;
  double t0 = now();
  for (int q = 0; q < nq; q++) {
    double p[3];
    for (int k = 0; k < 3; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      p[k] = (double)(s >> 11) / 9007199254740992.0;
    }
    p[1] = 0.2 * p[1] - 0.1;
    vs_bvh_hit h;
    found += vs_bvh_closest(&b, p, 0.05, &h);
  }
  double tq = now() - t0;
  qsort(times, (size_t)reps, sizeof *times, cmp_double);
  printf("bvh_build: %d triangles, %d nodes, depth %d: build best %.3f s, median %.3f s "
         "(%d runs), tree checksum %016llx\n",
         nt, b.n_nodes, b.depth, times[0], times[reps / 2], reps, (unsigned long long)sum);
  printf("bvh_closest: %d queries (max distance 0.05) in %.3f s: %.2f us each, %d found\n", nq,
         tq, 1e6 * tq / nq, found);
  vs_bvh_free(&b);
  free(times);
  free(v);
  free(tri);
  return 0;
}
