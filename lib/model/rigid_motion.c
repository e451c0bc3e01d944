/* SPDX-License-Identifier: MIT */
/* rigid_motion.c: the prescribed motion of kinematic rigid bodies -- their
 * pose as a function of the time, from keys or constant velocities -- and
 * the storage of moving surfaces (docs/physics.md, "Kinematic bodies and
 * moving surfaces").  The pose is computed from the time, never integrated,
 * so a body sits exactly on its path at every frame and a resumed run
 * finds it where an uninterrupted one does. */
#include <math.h>
#include <string.h>

#include "model/model_private.h"
#include "model/rigid_model.h"
#include "util/alloc.h"
#include "util/detmath.h"
#include "util/quat.h"

vs_rmotion *vs_rmotion_create(int32_t n, int64_t nk, int64_t nr) {
  if (n < 0 || nk < 0 || nr < 0) return NULL;
  vs_rmotion *mo = vs_calloc(1, sizeof *mo);
  if (!mo) return NULL;
  size_t un = (size_t)n + 1;
  mo->n_bodies = n;
  mo->kinematic = vs_calloc(un, 1);
  mo->x0 = vs_calloc(3 * un, sizeof(double));
  mo->q0 = vs_calloc(4 * un, sizeof(double));
  mo->v = vs_calloc(3 * un, sizeof(double));
  mo->w = vs_calloc(3 * un, sizeof(double));
  mo->key0 = vs_calloc(un, sizeof(int32_t));
  mo->nkeys = vs_calloc(un, sizeof(int32_t));
  mo->rkey0 = vs_calloc(un, sizeof(int32_t));
  mo->nrkeys = vs_calloc(un, sizeof(int32_t));
  mo->keys = vs_calloc(4 * (size_t)nk + 1, sizeof(double));
  mo->rkeys = vs_calloc(5 * (size_t)nr + 1, sizeof(double));
  mo->surface = vs_calloc(3 * un, sizeof(double));
  if (!mo->kinematic || !mo->x0 || !mo->q0 || !mo->v || !mo->w || !mo->key0 || !mo->nkeys ||
      !mo->rkey0 || !mo->nrkeys || !mo->keys || !mo->rkeys || !mo->surface) {
    vs_rmotion_free(mo);
    return NULL;
  }
  for (size_t i = 0; i < un; i++) mo->q0[4 * i] = 1.0;
  return mo;
}

uint64_t vs_rmotion_bytes(int64_t n, int64_t nk, int64_t nr) {
  const uint64_t un = (uint64_t)n + 1;
  return sizeof(vs_rmotion) + un * (1 + 8 * (3 + 4 + 3 + 3 + 3) + 4 * 4) +
         ((uint64_t)nk * 4 + 1) * 8 + ((uint64_t)nr * 5 + 1) * 8;
}

void vs_rmotion_free(vs_rmotion *mo) {
  if (!mo) return;
  vs_free(mo->kinematic);
  vs_free(mo->x0);
  vs_free(mo->q0);
  vs_free(mo->v);
  vs_free(mo->w);
  vs_free(mo->key0);
  vs_free(mo->nkeys);
  vs_free(mo->rkey0);
  vs_free(mo->nrkeys);
  vs_free(mo->keys);
  vs_free(mo->rkeys);
  vs_free(mo->surface);
  vs_free(mo);
}

/* The last key k with keys[stride k] <= t of n keys (t_0 < t < t_last). */
static int32_t segment(const double *keys, int stride, int32_t n, double t) {
  int32_t lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (keys[stride * mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Orientation keys: the slerp qa (qa^-1 qb)^f, the shorter way (the keys'
 * signs were chosen so at compile time), held outside them. */
static void key_orientation(const double *keys, int32_t n, double t, double out[4]) {
  if (t <= keys[0]) {
    memcpy(out, keys + 1, 4 * sizeof(double));
    return;
  }
  if (t >= keys[5 * (n - 1)]) {
    memcpy(out, keys + 5 * (n - 1) + 1, 4 * sizeof(double));
    return;
  }
  const int32_t lo = segment(keys, 5, n, t);
  const double *a = &keys[5 * lo], *b = &keys[5 * lo + 5];
  const double f = (t - a[0]) / (b[0] - a[0]);
  const double ca[4] = {a[1], -a[2], -a[3], -a[4]};
  double d[4];
  vs_quat_mul(ca, b + 1, d); /* qa^-1 qb: w = qa . qb >= 0 */
  const double s = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
  if (!(s > 0.0)) {
    memcpy(out, a + 1, 4 * sizeof(double));
    return;
  }
  const double half = vs_atan2(s, d[0]); /* half the angle from qa to qb */
  double sn, cs;
  vs_sincos(f * half, &sn, &cs);
  const double p[4] = {cs, sn * d[1] / s, sn * d[2] / s, sn * d[3] / s};
  vs_quat_mul(a + 1, p, out);
  vs_quat_normalize(out);
}

void vs_rmotion_pose(const vs_rmotion *mo, int32_t i, double t, double x[3], double q[4]) {
  if (mo->nkeys[i] > 0) {
    vs_keys_at(&mo->keys[4 * (size_t)mo->key0[i]], mo->nkeys[i], t, x);
  } else {
    for (int k = 0; k < 3; k++) x[k] = mo->x0[3 * i + k] + t * mo->v[3 * i + k];
  }
  if (mo->nrkeys[i] > 0) {
    key_orientation(&mo->rkeys[5 * (size_t)mo->rkey0[i]], mo->nrkeys[i], t, q);
  } else {
    memcpy(q, &mo->q0[4 * i], 4 * sizeof(double));
    vs_quat_integrate(q, &mo->w[3 * i], t); /* the exact exponential: exp(t w / 2) q0 */
  }
}
