/* SPDX-License-Identifier: MIT */
/* gs_ns.c: ns per link projection of the Gauss-Seidel relaxation on the bench
 * cloth (structural links, top edge pinned, 10 iterations, one thread), min
 * over repeats, with the accuracy after the last frame (max |C| / rest): the
 * figures docs/performance.md quotes for the Gauss-Seidel order.  Time is the
 * process's CPU time (one thread), so that other load on the machine costs
 * less than it does wall time.
 *
 *   gs_ns N [FRAMES [REPEATS [pbd|xpbd]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vsim/vsim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gs_ns N [FRAMES [REPEATS [pbd|xpbd]]]\n");
    return 2;
  }
  const int n = atoi(argv[1]);
  const int frames = argc > 2 ? atoi(argv[2]) : 20, reps = argc > 3 ? atoi(argv[3]) : 3;
  const char *integ = argc > 4 ? argv[4] : "pbd";
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.016666666666666666, frames: %d}\n"
           "solver: {integrator: %s, relaxation: gauss-seidel, iterations: 10}\n"
           "bodies:\n"
           "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [%d, %d], pin: top-edge}\n",
           frames, integ, n, n);
  double best = 1e30, max_rel = 0;
  for (int r = 0; r < reps; r++) {
    vs_scene *s;
    vs_model *m;
    vs_state *st;
    vs_error e;
    vs_error_clear(&e);
    if (vs_scene_load_string(yaml, strlen(yaml), "gs_ns.yaml", NULL, 0, &s, &e) ||
        vs_model_build(s, &m, &e) || vs_state_create(m, &st, &e)) {
      char buf[2048];
      fprintf(stderr, "gs_ns: %s\n", vs_error_format(&e, buf, sizeof buf));
      return 1;
    }
    st->threads = 1;
    const double t0 = now();
    for (int f = 0; f < frames; f++)
      if (vs_step(m, st, &e) != VS_OK) return 1;
    const double ns = 1e9 * (now() - t0) / ((double)frames * m->substeps * m->iterations * m->n_dist);
    if (ns < best) best = ns;
    vs_observables o;
    vs_observe(m, st, &o, NULL);
    max_rel = o.all.max_relative;
    vs_state_free(st);
    vs_model_free(m);
    vs_scene_free(s);
  }
  printf("%d^2 %s gauss-seidel: %.2f ns/projection (min of %d), max_rel %.4e after %d frames\n", n,
         integ, best, reps, max_rel, frames);
  return 0;
}
