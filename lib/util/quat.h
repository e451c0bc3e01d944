/* SPDX-License-Identifier: MIT */
/* quat.h (private): unit quaternions [w, x, y, z] and 3x3 rotation
 * matrices (row-major; the columns are the body axes in the world frame). */
#ifndef VSIM_UTIL_QUAT_H
#define VSIM_UTIL_QUAT_H

#include <math.h>

#include "util/private.h"

/* The three small ones are inline: the rigid solver calls them for every
 * body in every substep (the same bits as out of line: contraction is off
 * everywhere, and nothing here can be reassociated). */
static inline void vs_quat_mul(const double a[4], const double b[4], double o[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  o[0] = w;
  o[1] = x;
  o[2] = y;
  o[3] = z;
}

static inline void vs_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    double inv = 1.0 / n;
    for (int k = 0; k < 4; k++) q[k] *= inv;
  } else {
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
  }
}

static inline void vs_quat_to_mat(const double q[4], double R[9]) { /* row-major */
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

/* Degrees about the fixed x, then y, then z axes. */
VS_PRIVATE void vs_quat_from_euler_deg(const double deg[3], double q[4]);
VS_PRIVATE void vs_quat_from_axis_angle(const double axis[3], double angle, double q[4]);
/* q <- exp(h/2 * w) q, renormalised (w in the world frame). */
VS_PRIVATE void vs_quat_integrate(double q[4], const double w[3], double h);

#endif
