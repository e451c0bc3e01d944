/* SPDX-License-Identifier: MIT */
/* jacobi_ns.c: ns per link projection of the coloured-Jacobi relaxation on
 * the bench cloth (structural links, top edge pinned, pbd or xpbd, 10
 * iterations), min over repeats: the figure docs/performance.md quotes for the
 * kernel paths; then the CPU time per projection (min over repeats; with T
 * threads, T busy threads count T times).  VSIM_KERNEL picks the path as for vsim.
 *
 *   jacobi_ns N THREADS [FRAMES [REPEATS [pbd|xpbd]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vsim/vsim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU time of the whole process (all threads): on a shared machine the wall
 * clock also counts the time other programs held the core. */
static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: jacobi_ns N THREADS [FRAMES [REPEATS [pbd|xpbd]]]\n");
    return 2;
  }
  const int n = atoi(argv[1]), threads = atoi(argv[2]);
  const int frames = argc > 3 ? atoi(argv[3]) : 20, reps = argc > 4 ? atoi(argv[4]) : 5;
  const char *integ = argc > 5 ? argv[5] : "pbd";
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.016666666666666666, frames: %d}\n"
           "solver: {integrator: %s, relaxation: jacobi, iterations: 10}\n"
           "bodies:\n"
           "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [%d, %d], pin: top-edge}\n",
           frames, integ, n, n);
  double best = 1e30, best_cpu = 1e30;
  for (int r = 0; r < reps; r++) {
    vs_scene *s;
    vs_model *m;
    vs_state *st;
    vs_error e;
    vs_error_clear(&e);
    if (vs_scene_load_string(yaml, strlen(yaml), "jacobi_ns.yaml", NULL, 0, &s, &e) ||
        vs_model_build(s, &m, &e) || vs_state_create(m, &st, &e)) {
      char buf[2048];
      fprintf(stderr, "jacobi_ns: %s\n", vs_error_format(&e, buf, sizeof buf));
      return 1;
    }
    st->threads = threads;
    const double t0 = now(), c0 = cpu();
    for (int f = 0; f < frames; f++)
      if (vs_step(m, st, &e) != VS_OK) return 1;
    const double per = 1e9 / ((double)frames * m->substeps * m->iterations * m->n_dist);
    const double ns = (now() - t0) * per, ns_cpu = (cpu() - c0) * per;
    if (ns < best) best = ns;
    if (ns_cpu < best_cpu) best_cpu = ns_cpu;
    vs_state_free(st);
    vs_model_free(m);
    vs_scene_free(s);
  }
  printf("%d^2 %s threads=%d kernel=%s: %.2f ns/projection (min of %d); cpu %.2f ns\n", n, integ, threads,
         getenv("VSIM_KERNEL") ? getenv("VSIM_KERNEL") : "auto", best, reps, best_cpu);
  return 0;
}
