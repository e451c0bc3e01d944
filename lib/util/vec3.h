/* SPDX-License-Identifier: MIT */
/* vec3.h (private): the small vector helpers every stage uses: 3-vectors
 * as double[3], 3x3 matrices as row-major double[9].  Each is written out
 * in one fixed order of operations (the results' bits depend on it). */
#ifndef VSIM_UTIL_VEC3_H
#define VSIM_UTIL_VEC3_H

#include <math.h>

static inline void vs_sub3(const double a[3], const double b[3], double o[3]) {
  o[0] = a[0] - b[0];
  o[1] = a[1] - b[1];
  o[2] = a[2] - b[2];
}
static inline double vs_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void vs_cross3(const double a[3], const double b[3], double o[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
/* R is row-major; columns are the body axes in the world frame. */
static inline void vs_mat3_mul(const double R[9], const double v[3], double o[3]) {
  double x = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
  double y = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
  double z = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
static inline void vs_mat3_mul_t(const double R[9], const double v[3], double o[3]) {
  double x = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
  double y = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
  double z = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
static inline double vs_len3(const double a[3]) { return sqrt(vs_dot3(a, a)); }
/* a + t (b - a) */
static inline void vs_lerp3(const double a[3], const double b[3], double t, double o[3]) {
  for (int k = 0; k < 3; k++) o[k] = a[k] + t * (b[k] - a[k]);
}

#endif
