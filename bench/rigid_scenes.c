/* SPDX-License-Identifier: MIT */
/* rigid_scenes.c: vsim's column of `make bench-rigid`.  Loads one scene of
 * bench/rigid/ through the library (scene -> model -> state), steps it with
 * vs_step at the scene's settings (the solver's defaults: the scenes set
 * none) and prints one line of JSON: CPU time per frame of the stepping alone
 * (vs_step; the measuring after each frame is outside the clock, and no file
 * is written) and the metrics of bench/rigid_metrics.h.
 *
 *   build/bench/rigid_scenes SCENE.yaml [--frames N] [--trace K] [--set KEY=VALUE]...
 *
 * --trace K prints body K's centre and velocities after every frame on stderr;
 * --set overrides a scene key as `vsim run --set` does (at most 8).
 * A run that vs_step fails (a body not finite, or faster than
 * solver.runaway_speed), or whose bodies the metrics find not finite, stops
 * there and says "blew up" with the frame and the reason; the metrics are
 * those measured up to that frame.  Exit status 0 whenever the line was
 * printed (a blow-up is a result, not an error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_metrics.h"
#include "solve/solve.h"

int main(int argc, char **argv) {
  const char *path = NULL;
  long long frames = -1;
  int trace = -1;
  vs_override ov[9];
  size_t n_ov = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--trace") && i + 1 < argc)
      trace = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && n_ov < 9)
      ov[n_ov++].text = argv[++i];
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      path = NULL;
      break;
    }
  }
  if (!path || frames == 0 || frames < -1) {
    fprintf(stderr, "usage: rigid_scenes SCENE.yaml [--frames N] [--trace K] [--set KEY=VALUE]...\n");
    return 2;
  }
  char set[64];
  snprintf(set, sizeof set, "time.frames=%lld", frames);
  ov[0].text = set;
  vs_error err;
  memset(&err, 0, sizeof err);
  vs_scene *sc = NULL;
  vs_model *m = NULL;
  vs_state *s = NULL;
  char buf[2048];
  if (vs_scene_load_file(path, frames > 0 ? ov : ov + 1, frames > 0 ? n_ov : n_ov - 1, &sc, &err) != VS_OK ||
      vs_model_build(sc, &m, &err) != VS_OK || vs_state_create(m, &s, &err) != VS_OK) {
    fprintf(stderr, "rigid_scenes: %s\n", vs_error_format(&err, buf, sizeof buf));
    return 1;
  }
  if (m->n_rigid == 0) {
    fprintf(stderr, "rigid_scenes: %s has no rigid bodies\n", path);
    return 1;
  }
  rbm r;
  if (rbm_init(&r, m, sc->name, m->frames, s->rx, s->rq, s->rv, s->rw)) {
    fprintf(stderr, "rigid_scenes: out of memory\n");
    return 1;
  }
  const char *why = NULL;
  double cpu = 0;
  int64_t f = 0;
  while (f < m->frames) {
    double t0 = rbm_cpu();
    vs_status st = vs_step(m, s, &err);
    cpu += rbm_cpu() - t0;
    f++;
    if (st != VS_OK) {
      why = vs_error_format(&err, buf, sizeof buf);
      r.blew = 1, r.blew_frame = f;
      break;
    }
    if (trace >= 0 && trace < m->n_rigid) rbm_trace(f, trace, s->rx, s->rv, s->rw);
    if (rbm_frame(&r, f, s->rx, s->rq, s->rv, s->rw)) {
      why = "a body's pose or velocity is not finite, or faster than 10000 m/s";
      break;
    }
  }
  int asleep = 0; /* bodies asleep in the last step (Bullet's line says the same) */
  const struct vs_rwork *rw = s->scratch ? s->scratch->rigid : NULL;
  for (int32_t i = 0; rw && i < m->n_rigid; i++)
    asleep += isfinite(m->rigid_mass[i]) && rw->asleep[i];
  printf("{\"engine\": \"vsim\", \"version\": \"%s\", \"scene\": \"", vs_version());
  rbm_str(stdout, sc->name);
  printf("\", \"bodies\": %d, \"joints\": %d, \"frames\": %lld, \"frames_done\": %lld, "
         "\"dt\": %.17g, \"rigid_iterations\": %d, \"rigid_substeps\": %d, "
         "\"asleep_at_end\": %d, \"ms_per_frame\": %.6f, \"status\": \"%s\", \"blew_frame\": %lld, \"why\": \"",
         m->n_rigid, m->n_rjoints, (long long)m->frames, (long long)f, m->dt,
         m->priv->rigid->set.iterations, m->priv->rigid->set.substeps, asleep, f > 0 ? 1e3 * cpu / (double)f : 0.0,
         r.blew ? "blew up" : "ok", (long long)(r.blew ? r.blew_frame : -1));
  rbm_str(stdout, why ? why : "");
  printf("\", \"metrics\": {");
  rbm_print(&r, stdout);
  printf("}}\n");
  rbm_free(&r);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
  return 0;
}
