/* SPDX-License-Identifier: MIT */
/* body_tetra.c: Jakobsen's rigid body (Advanced Character Physics §5): four
 * particles at the corners of a regular tetrahedron joined by six sticks.
 * Initial velocities are those of a rigid motion: v_i = v + w x (x_i - c). */
#include <math.h>

#include "model/build.h"

vs_status vs_tetra_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                         vs_error *err) {
  out->particles = 4;
  out->links = 6;
  return VS_OK;
}

vs_status vs_tetra_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                            vs_error *err) {
  /* Alternate corners of a cube: edge length 2 sqrt(2) before scaling. */
  static const double corner[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
  const double s = b->edge / (2.0 * sqrt(2.0));
  const double *w = b->angular_velocity;
  int32_t first = bld->np;
  for (int i = 0; i < 4; i++) {
    double r[3], x[3], v[3];
    for (int k = 0; k < 3; k++) r[k] = s * corner[i][k], x[k] = b->center[k] + r[k];
    v[0] = b->velocity[0] + (w[1] * r[2] - w[2] * r[1]);
    v[1] = b->velocity[1] + (w[2] * r[0] - w[0] * r[2]);
    v[2] = b->velocity[2] + (w[0] * r[1] - w[1] * r[0]);
    vs_builder_particle(bld, x, v, b->mass / 4.0, b->radius, body);
  }
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      vs_builder_link(bld, first + i, first + j, &b->stretch, VS_ROLE_STRETCH, b->tear,
                      VS_SIDE_EQUAL, -1.0);
  return VS_OK;
}
