/* SPDX-License-Identifier: MIT */
/* rigid_pyramid.c: the 20-level pyramid of make bench (210 boxes of 0.2 m,
 * friction 0.6, mass 1, dt 1/60, on a ground plane), stepped 600 frames by
 * vsim's rigid solver.  Prints ms per frame and the largest distance of any
 * box from its start (the goal: every box within 2 cm).
 *   build/bench/rigid_pyramid [levels] [frames] [substeps] [iterations] [baumgarte] [threads]
 * threads > 0: the coloured solve of relaxation: jacobi on that many threads
 * (the time is CPU time, all threads summed); a hash of the final poses is
 * printed to compare runs. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

#include "solve/rigid/rigid.h"

/* CPU time of this process: on a shared machine the wall clock measures the
 * neighbours too; bench/bullet_pyramid.cpp measures the same way. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int levels = argc > 1 ? atoi(argv[1]) : 20;
  int frames = argc > 2 ? atoi(argv[2]) : 600;
  int substeps = argc > 3 ? atoi(argv[3]) : -1; /* -1: the solver's defaults */
  int iters = argc > 4 ? atoi(argv[4]) : -1;
  if (levels < 1 || frames < 1 || substeps == 0 || iters == 0) {
    fprintf(stderr, "usage: rigid_pyramid [levels] [frames] [substeps] [iterations]\n");
    return 2;
  }
  int n = levels * (levels + 1) / 2;
  const double e = 0.2;
  vs_rmodel *m;
  vs_rstate *s;
  vs_rwork *w;
  if (vs_rmodel_create(n, 1, 0, &m) != VS_OK) return 1;
  if (iters > 0) m->set.iterations = iters;
  if (substeps > 0) m->set.substeps = substeps;
  if (argc > 5 && atof(argv[5]) > 0) m->set.baumgarte = atof(argv[5]);
  int threads = argc > 6 ? atoi(argv[6]) : 0;
  m->set.colored = threads > 0;
  substeps = m->set.substeps;
  iters = m->set.iterations;
  m->colliders[0].kind = VS_COLLIDER_PLANE;
  m->colliders[0].b[1] = 1.0;
  m->colliders[0].friction = 0.6;
  double size[3] = {e, e, e};
  for (int i = 0; i < n; i++) vs_rmodel_set_body(m, i, VS_RIGID_BOX, size, 1.0, 0, 0, 0.6, 0.0);
  if (vs_rstate_create(m, &s) != VS_OK || vs_rwork_create(m, &w) != VS_OK) return 1;
  w->threads = threads > 0 ? threads : 1;
  double *x0 = malloc(sizeof(double) * 3 * (size_t)n);
  int k = 0;
  for (int row = 0; row < levels; row++) {
    int cnt = levels - row;
    for (int i = 0; i < cnt; i++, k++) {
      s->x[3 * k] = (i - 0.5 * (cnt - 1)) * e;
      s->x[3 * k + 1] = 0.5 * e + row * e;
      s->x[3 * k + 2] = 0.0;
    }
  }
  for (int i = 0; i < 3 * n; i++) x0[i] = s->x[i];
  double h = 1.0 / 60.0;
  double t0 = now();
  for (int f = 0; f < frames; f++) vs_rigid_step(m, s, w, h);
  double t1 = now();
  double drift = 0;
  int worst = 0;
  for (int i = 0; i < n; i++) {
    double d[3] = {s->x[3 * i] - x0[3 * i], s->x[3 * i + 1] - x0[3 * i + 1],
                   s->x[3 * i + 2] - x0[3 * i + 2]};
    double l = sqrt(vs_dot3(d, d));
    if (l > drift) drift = l, worst = i;
  }
  uint64_t hash = 1469598103934665603ull; /* FNV-1a over the poses' bytes */
  const unsigned char *px = (const unsigned char *)s->x, *pq = (const unsigned char *)s->q;
  for (size_t i = 0; i < sizeof(double) * 3 * (size_t)n; i++) hash = (hash ^ px[i]) * 1099511628211ull;
  for (size_t i = 0; i < sizeof(double) * 4 * (size_t)n; i++) hash = (hash ^ pq[i]) * 1099511628211ull;
  printf("vsim rigid pyramid: %d levels, %d boxes, %d frames, %d substeps, %d iterations, %s: "
         "%.3f ms/frame (CPU), max drift %.4f m, contacts %d (dropped %d), poses %016llx\n",
         levels, n, frames, substeps, iters,
         threads > 0 ? "coloured" : "sequential", 1e3 * (t1 - t0) / frames, drift,
         w->n_contacts, w->dropped, (unsigned long long)hash);
  if (getenv("RIGID_PYRAMID_WORST"))
    printf("worst box %d: moved (%.4f, %.4f, %.4f)\n", worst, s->x[3 * worst] - x0[3 * worst],
           s->x[3 * worst + 1] - x0[3 * worst + 1], s->x[3 * worst + 2] - x0[3 * worst + 2]);
  free(x0);
  vs_rwork_free(w);
  vs_rstate_free(s);
  vs_rmodel_free(m);
  return 0;
}
