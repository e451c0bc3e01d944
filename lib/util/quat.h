/* SPDX-License-Identifier: MIT */
/* quat.h (private): unit quaternions [w, x, y, z] and 3x3 rotation
 * matrices (row-major; the columns are the body axes in the world frame). */
#ifndef VSIM_UTIL_QUAT_H
#define VSIM_UTIL_QUAT_H

#include <math.h>

#include "util/private.h"

/* The three small ones are inline: the rigid solver calls them for every
 * body in every substep (the same bits as out of line: contraction is off
 * everywhere, and nothing here can be reassociated).  The product and the
 * normalisation read their operands into locals first: the same operations,
 * but GCC then keeps them in registers as scalar code (reading through the
 * pointers, which may alias the output, it vectorised them into shuffles
 * and formed the product twice: 40% more instructions in
 * vs_quat_integrate). */
static inline void vs_quat_mul(const double a[4], const double b[4], double o[4]) {
  const double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  const double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
  double w = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3;
  double x = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2;
  double y = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1;
  double z = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0;
  o[0] = w;
  o[1] = x;
  o[2] = y;
  o[3] = z;
}

static inline void vs_quat_normalize(double q[4]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  double n = sqrt(w * w + x * x + y * y + z * z);
  if (n > 0) {
    double inv = 1.0 / n;
    q[0] = w * inv;
    q[1] = x * inv;
    q[2] = y * inv;
    q[3] = z * inv;
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
