/* SPDX-License-Identifier: MIT */
/* quat.c: unit quaternions [w, x, y, z] (util/quat.h). */
#include <math.h>
#include <string.h>

#include "util/detmath.h"
#include "util/quat.h"


void vs_quat_mul(const double a[4], const double b[4], double o[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  o[0] = w;
  o[1] = x;
  o[2] = y;
  o[3] = z;
}

void vs_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    double inv = 1.0 / n;
    for (int k = 0; k < 4; k++) q[k] *= inv;
  } else {
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
  }
}

void vs_quat_to_mat(const double q[4], double R[9]) {
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

void vs_quat_from_axis_angle(const double axis[3], double angle, double q[4]) {
  double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (!(n > 0)) {
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
    return;
  }
  double sh, ch;
  vs_sincos(0.5 * angle, &sh, &ch);
  double s = sh / n;
  q[0] = ch;
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}

void vs_quat_from_euler_deg(const double deg[3], double q[4]) {
  static const double ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double acc[4] = {1, 0, 0, 0}, r[4];
  for (int k = 0; k < 3; k++) { /* fixed axes: later rotations multiply on the left */
    double sh, ch; /* the half angle in degrees: exact at multiples of 180 */
    vs_sincos_deg(0.5 * deg[k], &sh, &ch);
    r[0] = ch;
    for (int i = 0; i < 3; i++) r[1 + i] = ax[k][i] * sh;
    vs_quat_mul(r, acc, acc);
  }
  vs_quat_normalize(acc);
  memcpy(q, acc, sizeof acc);
}

void vs_quat_integrate(double q[4], const double w[3], double h) {
  double wl = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double ang = wl * h;
  if (!(ang > 0)) return;
  double dq[4], sh, ch;
  vs_sincos(0.5 * ang, &sh, &ch);
  double s = sh / wl;
  dq[0] = ch;
  dq[1] = w[0] * s;
  dq[2] = w[1] * s;
  dq[3] = w[2] * s;
  vs_quat_mul(dq, q, q);
  vs_quat_normalize(q);
}
