/* SPDX-License-Identifier: MIT */
/* quat.c: unit quaternions [w, x, y, z] (util/quat.h). */
#include <math.h>
#include <string.h>

#include "util/detmath.h"
#include "util/quat.h"

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
  vs_sincos_small(0.5 * ang, &sh, &ch); /* a substep's turn: almost always small */
  double s = sh / wl;
  dq[0] = ch;
  dq[1] = w[0] * s;
  dq[2] = w[1] * s;
  dq[3] = w[2] * s;
  vs_quat_mul(dq, q, q);
  vs_quat_normalize(q);
}
