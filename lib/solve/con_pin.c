/* SPDX-License-Identifier: MIT */
/* con_pin.c: explicit pins.  A pinned particle has inverse mass 0, so no
 * projection moves it: the step places a kinematic pin on its key path
 * (vs_model_pin_target) before the sweeps, and the projection does nothing.
 * The error is the distance from the target at the state's time. */
#include <math.h>

#include "solve/solve.h"

void vs_pin_project(const vs_solve_ctx *c, int32_t k, int32_t id) {}

int vs_pin_error(const vs_model *m, const vs_state *s, int32_t k, double *e, double *rest) {
  double t[3];
  vs_model_pin_target(m, k, s->time, t);
  const double *p = s->x + 4 * (size_t)m->pin_p[k];
  *e = sqrt((p[0] - t[0]) * (p[0] - t[0]) + (p[1] - t[1]) * (p[1] - t[1]) + (p[2] - t[2]) * (p[2] - t[2]));
  *rest = 0.0;
  return 1;
}
