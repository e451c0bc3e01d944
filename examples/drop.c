/* SPDX-License-Identifier: MIT */
/* drop.c: vsim as a library.  Load a scene from a string, compile it, step
 * it, and compare a ball's height with the analytic free fall
 *   y(t) = y0 + v0 t - g t^2 / 2,
 * which position Verlet reproduces exactly (docs/physics.md): the first step
 * starts from x_prev = x0 - v0 h + g h^2 / 2.
 *
 * Build against an installed vsim with nothing but pkg-config:
 *   cc drop.c -o drop $(pkg-config --cflags --libs libvsim)
 * (or `make` in this folder).  Prints one line per 10 frames, then the
 * largest difference; exits 1 if it is not at the level of rounding. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <vsim/vsim.h>

static const char scene_text[] =
    "vsim: 1\n"
    "name: drop\n"
    "time: {dt: 0.01, frames: 100}\n"
    "solver: {integrator: verlet}\n"
    "world: {gravity: [0, -9.81, 0]}\n"
    "bodies:\n"
    "  - particles: {name: ball, positions: [[0, 10, 0]], velocities: [[0, 2, 0]], mass: 1}\n";

int main(void) {
  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  vs_state *state = NULL;
  char msg[2048];
  int code = 1;

  /* stage by stage: text -> scene -> immutable model -> mutable state */
  if (vs_scene_load_string(scene_text, strlen(scene_text), "drop.c", NULL, 0, &scene, &err) != VS_OK ||
      vs_model_build(scene, &model, &err) != VS_OK ||
      vs_state_create(model, &state, &err) != VS_OK) {
    fprintf(stderr, "drop: %s\n", vs_error_format(&err, msg, sizeof msg));
    goto done;
  }

  const double y0 = 10.0, v0 = 2.0, g = 9.81;
  double worst = 0.0;
  printf("vsim %s: %d particle, dt %g s, %lld frames\n", vs_version(), model->n_particles,
         model->dt, (long long)model->frames);
  printf("%8s %14s %14s %10s\n", "t (s)", "y (m)", "exact (m)", "diff");
  while (state->frame < model->frames) {
    if (vs_step(model, state, &err) != VS_OK) {
      fprintf(stderr, "drop: %s\n", vs_error_format(&err, msg, sizeof msg));
      goto done;
    }
    const double t = state->time;
    const double y = state->x[1]; /* particle 0: x, y, z, inverse mass */
    const double exact = y0 + v0 * t - 0.5 * g * t * t;
    const double diff = fabs(y - exact);
    if (diff > worst) worst = diff;
    if (state->frame % 10 == 0) printf("%8.2f %14.9f %14.9f %10.2e\n", t, y, exact, diff);
  }
  printf("max |y - exact| = %.3e m over %lld frames\n", worst, (long long)state->frame);
  code = worst < 1e-9 ? 0 : 1;
  if (code) fprintf(stderr, "drop: Verlet free fall should be exact to rounding\n");

done:
  vs_state_free(state);
  vs_model_free(model);
  vs_scene_free(scene);
  return code;
}
