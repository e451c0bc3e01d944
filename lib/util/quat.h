/* SPDX-License-Identifier: MIT */
/* quat.h (private): unit quaternions [w, x, y, z] and 3x3 rotation
 * matrices (row-major; the columns are the body axes in the world frame). */
#ifndef VSIM_UTIL_QUAT_H
#define VSIM_UTIL_QUAT_H

#include "util/private.h"

VS_PRIVATE void vs_quat_mul(const double a[4], const double b[4], double out[4]);
VS_PRIVATE void vs_quat_normalize(double q[4]);
VS_PRIVATE void vs_quat_to_mat(const double q[4], double R[9]); /* row-major */
/* Degrees about the fixed x, then y, then z axes. */
VS_PRIVATE void vs_quat_from_euler_deg(const double deg[3], double q[4]);
VS_PRIVATE void vs_quat_from_axis_angle(const double axis[3], double angle, double q[4]);
/* q <- exp(h/2 * w) q, renormalised (w in the world frame). */
VS_PRIVATE void vs_quat_integrate(double q[4], const double w[3], double h);

#endif
