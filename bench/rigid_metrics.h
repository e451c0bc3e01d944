/* SPDX-License-Identifier: MIT */
/* rigid_metrics.h: the quality metrics of `make bench-rigid`, one definition
 * for both engines.  bench/rigid_scenes.c (vsim) and bench/bullet_scenes.cpp
 * (Bullet) step the scenes of bench/rigid/, copy every body's pose and
 * velocities into plain arrays after each frame (outside the timed part) and
 * hand them here, so the numbers of the two columns are computed by the same
 * lines.  The scene's `name` picks the metrics (rbm_kind_of); bodies are
 * found by their order in the scene file (bench/rigid/gen_scenes.py).
 *
 * Arrays per frame, n bodies in file order: x (n x 3) centre of mass, q (n x 4)
 * orientation w x y z, v (n x 3), w (n x 3) angular velocity in the world
 * frame.  Header-only, C11 and C++. */
#ifndef VSIM_BENCH_RIGID_METRICS_H
#define VSIM_BENCH_RIGID_METRICS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vsim/vsim.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"

/* A body faster than this "blew up": vsim's own runaway bound
 * (solver.runaway_speed's default), applied to Bullet too. */
#define RBM_RUNAWAY 10000.0

typedef enum rbm_kind {
  RBM_JOINTS = 0, /* chain_rest, chain_swing, joint_grid */
  RBM_STACK,      /* stack20, stack20_small */
  RBM_PYRAMID,    /* pyramid20, pyramid30 */
  RBM_HEAVY,      /* heavy_on_light */
  RBM_SPIN,       /* spin_flip */
  RBM_BOUNCE,     /* cube_bounce */
  RBM_WALL,       /* wall_tunnel */
  RBM_PILE,       /* convex_pile */
  RBM_RAGDOLL,    /* ragdoll_pile */
  RBM_CRADLE,     /* cradle */
  RBM_ROLL,       /* slip_to_roll */
  RBM_INCLINE,    /* incline */
  RBM_OTHER
} rbm_kind;

static inline rbm_kind rbm_kind_of(const char *name) {
  if (!strncmp(name, "chain", 5) || !strncmp(name, "joint_grid", 10)) return RBM_JOINTS;
  if (!strncmp(name, "stack", 5)) return RBM_STACK;
  if (!strncmp(name, "pyramid", 7)) return RBM_PYRAMID;
  if (!strcmp(name, "heavy_on_light")) return RBM_HEAVY;
  if (!strcmp(name, "spin_flip")) return RBM_SPIN;
  if (!strcmp(name, "cube_bounce")) return RBM_BOUNCE;
  if (!strcmp(name, "wall_tunnel")) return RBM_WALL;
  if (!strcmp(name, "convex_pile")) return RBM_PILE;
  if (!strcmp(name, "ragdoll_pile")) return RBM_RAGDOLL;
  if (!strcmp(name, "cradle")) return RBM_CRADLE;
  if (!strcmp(name, "slip_to_roll")) return RBM_ROLL;
  if (!strcmp(name, "incline")) return RBM_INCLINE;
  return RBM_OTHER;
}

typedef struct rbm {
  const vs_model *m;
  rbm_kind kind;
  int32_t n;
  int64_t frames;      /* planned */
  int64_t done;        /* frames measured */
  double dt;
  double *x0;          /* (n x 3) start */
  double *xl, *ql, *vl, *wl; /* the last frame measured */
  int blew;            /* a non-finite value or a runaway body was seen */
  int64_t blew_frame;
  double max_sep, max_speed, max_spin;
  double ke_early, ke_late; /* largest kinetic energy in the first and last fifth */
  double max_pen;
  double max_limit;    /* ragdoll: largest cone, twist or hinge limit passed, rad */
  double max_axis;     /* ragdoll: largest angle between a hinge's axes in a and b, rad */
  double e0, l0[3], l0len; /* spin: start */
  int axis;            /* spin: the body axis along L at the start */
  double sign0;
  double flip_t;       /* spin: first flip, s (NAN: none) */
  int phase;           /* bounce: 0 falling, 1 rising after the first bounce, 2 done */
  double apex;         /* bounce: highest centre after the first bounce */
  double e_start;      /* joints: kinetic plus potential energy at the start */
  double middle;       /* cradle: the balls between, fastest until the last one's apex */
  double first_after;  /* cradle: the first ball's speed at the last one's apex */
  double roll_t;       /* slip_to_roll: the first time the contact point is still (NAN: never) */
} rbm;

/* Row-major rotation matrix of q = (w, x, y, z); its columns are the body axes. */
static inline void rbm_mat(const double *q, double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double s = 2.0 / (w * w + x * x + y * y + z * z);
  R[0] = 1 - s * (y * y + z * z), R[1] = s * (x * y - w * z), R[2] = s * (x * z + w * y);
  R[3] = s * (x * y + w * z), R[4] = 1 - s * (x * x + z * z), R[5] = s * (y * z - w * x);
  R[6] = s * (x * z - w * y), R[7] = s * (y * z + w * x), R[8] = 1 - s * (x * x + y * y);
}

static inline void rbm_point(const double *x, const double *q, const double *local, double out[3]) {
  double R[9];
  rbm_mat(q, R);
  for (int k = 0; k < 3; k++)
    out[k] = x[k] + R[3 * k] * local[0] + R[3 * k + 1] * local[1] + R[3 * k + 2] * local[2];
}

static inline int rbm_fixed(const rbm *r, int32_t i) { return !isfinite(r->m->rigid_mass[i]); }

/* Kinetic energy of body i, and its angular momentum about its centre. */
static inline double rbm_body_energy(const rbm *r, int32_t i, const double *q, const double *v,
                                     const double *w, double L[3]) {
  const double *I = r->m->rigid_inertia + 3 * (size_t)i;
  double R[9], wb[3], lb[3];
  rbm_mat(q, R);
  for (int k = 0; k < 3; k++) /* body frame: R^T w */
    wb[k] = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
  for (int k = 0; k < 3; k++) lb[k] = I[k] * wb[k];
  if (L)
    for (int k = 0; k < 3; k++) L[k] = R[3 * k] * lb[0] + R[3 * k + 1] * lb[1] + R[3 * k + 2] * lb[2];
  double m = r->m->rigid_mass[i];
  return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
         0.5 * (wb[0] * lb[0] + wb[1] * lb[1] + wb[2] * lb[2]);
}

static inline double rbm_len(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* p q, quaternions w x y z */
static inline void rbm_qmul(const double *p, const double *q, double out[4]) {
  out[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
  out[1] = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
  out[2] = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
  out[3] = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
}

/* The body-frame direction v turned into the world by the orientation q. */
static inline void rbm_dir(const double *q, const double *v, double out[3]) {
  double R[9];
  rbm_mat(q, R);
  for (int k = 0; k < 3; k++) out[k] = R[3 * k] * v[0] + R[3 * k + 1] * v[1] + R[3 * k + 2] * v[2];
}

/* How far pos is past [lo, hi] (0 within). */
static inline double rbm_past(double pos, double lo, double hi) {
  return pos < lo ? lo - pos : pos > hi ? pos - hi : 0.0;
}

/* Joint j's angles at the poses qa, qb, with vsim's definitions
 * (lib/solve/rigid/rigid_joint.c, docs/physics.md "Joints"):
 *   turn  b's turn relative to a about a's axis from the start: q =
 *         conj(qa) qb conj(q0) (q0 = conj(qa0) qb0), 2 atan2(vec(q) . axis, w)
 *         -- a hinge's angle, a ball's twist;
 *   swing the angle between a's axis and b's in the world (a ball's cone);
 *   the hinge's axes' angle is the same swing (ideal 0).
 * One difference: q is taken with w >= 0, so the turn is in [-pi, pi]
 * (vsim's own reading follows q's sign through the run, (-2 pi, 2 pi]);
 * Bullet's orientations carry no sign history, and a joint within its
 * limits (|lo|, |hi| < 180 degrees) reads the same either way. */
static inline void rbm_joint_angles(const vs_rmodel *rm, int32_t j, const double *qa,
                                    const double *qb, double *turn, double *swing) {
  const double *q0 = rm->joint_qrel + 4 * (size_t)j, *al = rm->joint_axis + 6 * (size_t)j;
  double ca[4] = {qa[0], -qa[1], -qa[2], -qa[3]}, c0[4] = {q0[0], -q0[1], -q0[2], -q0[3]}, t[4],
         q[4];
  rbm_qmul(ca, qb, t);
  rbm_qmul(t, c0, q);
  double sg = q[0] < 0 ? -1.0 : 1.0;
  *turn = 2.0 * atan2(sg * (q[1] * al[0] + q[2] * al[1] + q[3] * al[2]), sg * q[0]);
  double ua[3], ub[3], n[3];
  rbm_dir(qa, al, ua);
  rbm_dir(qb, al + 3, ub);
  n[0] = ua[1] * ub[2] - ua[2] * ub[1], n[1] = ua[2] * ub[0] - ua[0] * ub[2],
  n[2] = ua[0] * ub[1] - ua[1] * ub[0];
  *swing = atan2(rbm_len(n), ua[0] * ub[0] + ua[1] * ub[1] + ua[2] * ub[2]);
}

/* Kinetic plus gravity's potential energy of the moving bodies (joints:
 * what a swing keeps; an exact solution keeps all of it). */
static inline double rbm_energy(const rbm *r, const double *x, const double *q, const double *v,
                                const double *w) {
  const double *g = r->m->gravity;
  double e = 0;
  for (int32_t i = 0; i < r->n; i++) {
    if (rbm_fixed(r, i)) continue;
    const double *p = x + 3 * (size_t)i;
    e += rbm_body_energy(r, i, q + 4 * (size_t)i, v + 3 * (size_t)i, w + 3 * (size_t)i, NULL) -
         r->m->rigid_mass[i] * (g[0] * p[0] + g[1] * p[1] + g[2] * p[2]);
  }
  return e;
}

static inline void rbm_keep(rbm *r, const double *x, const double *q, const double *v, const double *w) {
  size_t n = (size_t)r->n;
  memcpy(r->xl, x, 3 * n * sizeof(double));
  memcpy(r->ql, q, 4 * n * sizeof(double));
  memcpy(r->vl, v, 3 * n * sizeof(double));
  memcpy(r->wl, w, 3 * n * sizeof(double));
}

/* The start (frame 0).  Returns 0, or -1 when out of memory. */
static inline int rbm_init(rbm *r, const vs_model *m, const char *scene, int64_t frames,
                           const double *x, const double *q, const double *v, const double *w) {
  memset(r, 0, sizeof *r);
  r->m = m;
  r->kind = rbm_kind_of(scene);
  r->n = m->n_rigid;
  r->frames = frames;
  r->dt = m->dt;
  size_t n = (size_t)r->n > 0 ? (size_t)r->n : 1;
  r->x0 = (double *)malloc(3 * n * sizeof(double));
  r->xl = (double *)malloc(3 * n * sizeof(double));
  r->ql = (double *)malloc(4 * n * sizeof(double));
  r->vl = (double *)malloc(3 * n * sizeof(double));
  r->wl = (double *)malloc(3 * n * sizeof(double));
  if (!r->x0 || !r->xl || !r->ql || !r->vl || !r->wl) return -1;
  memcpy(r->x0, x, 3 * (size_t)r->n * sizeof(double));
  rbm_keep(r, x, q, v, w);
  r->flip_t = NAN;
  r->roll_t = NAN;
  if (r->kind == RBM_JOINTS) r->e_start = rbm_energy(r, x, q, v, w);
  if (r->kind == RBM_SPIN && r->n > 0) {
    r->e0 = rbm_body_energy(r, 0, q, v, w, r->l0);
    r->l0len = rbm_len(r->l0);
    double R[9], best = -1;
    rbm_mat(q, R);
    for (int k = 0; k < 3; k++) {
      double d = (R[k] * r->l0[0] + R[3 + k] * r->l0[1] + R[6 + k] * r->l0[2]) / r->l0len;
      if (fabs(d) > best) best = fabs(d), r->axis = k, r->sign0 = d < 0 ? -1.0 : 1.0;
    }
  }
  return 0;
}

static inline void rbm_free(rbm *r) {
  free(r->x0), free(r->xl), free(r->ql), free(r->vl), free(r->wl);
}

/* Frame f (1, 2, ...) has been stepped: measure it.  Returns 0, or -1 when a
 * value is not finite or a body runs away (r->blew is then set: the run
 * stops there). */
static inline int rbm_frame(rbm *r, int64_t f, const double *x, const double *q, const double *v,
                            const double *w) {
  const vs_model *m = r->m;
  for (int32_t i = 0; i < r->n; i++) {
    const double *p = x + 3 * (size_t)i, *o = q + 4 * (size_t)i, *u = v + 3 * (size_t)i,
                 *a = w + 3 * (size_t)i;
    double s = p[0] + p[1] + p[2] + o[0] + o[1] + o[2] + o[3] + u[0] + u[1] + u[2] + a[0] + a[1] + a[2];
    double sp = rbm_len(u);
    if (!isfinite(s) || !(sp <= RBM_RUNAWAY)) {
      r->blew = 1, r->blew_frame = f;
      return -1;
    }
    if (!rbm_fixed(r, i)) {
      if (sp > r->max_speed) r->max_speed = sp;
      double ws = rbm_len(a);
      if (ws > r->max_spin) r->max_spin = ws;
    }
  }
  r->done = f;
  rbm_keep(r, x, q, v, w);

  if ((r->kind == RBM_JOINTS || r->kind == RBM_RAGDOLL) && m->priv->rigid) {
    const vs_rmodel *rm = m->priv->rigid;
    for (int32_t j = 0; j < rm->n_joints; j++) {
      int32_t a = rm->joint_ab[2 * j], b = rm->joint_ab[2 * j + 1];
      double pa[3], pb[3], d[3];
      rbm_point(x + 3 * (size_t)a, q + 4 * (size_t)a, rm->joint_pa + 3 * (size_t)j, pa);
      if (b >= 0)
        rbm_point(x + 3 * (size_t)b, q + 4 * (size_t)b, rm->joint_pb + 3 * (size_t)j, pb);
      else
        memcpy(pb, rm->joint_pb + 3 * (size_t)j, sizeof pb);
      for (int k = 0; k < 3; k++) d[k] = pa[k] - pb[k];
      double sep = rbm_len(d);
      if (rm->joint_kind[j] == VS_JOINT_DISTANCE) sep = fabs(sep - rm->joint_rest[j]);
      if (sep > r->max_sep) r->max_sep = sep;
      int32_t fl = rm->joint_flags[j];
      if (r->kind != RBM_RAGDOLL ||
          (rm->joint_kind[j] != VS_JOINT_HINGE && rm->joint_kind[j] != VS_JOINT_BALL))
        continue;
      static const double world_q[4] = {1, 0, 0, 0}; /* b `world` */
      double turn, swing, past = 0;
      rbm_joint_angles(rm, j, q + 4 * (size_t)a, b >= 0 ? q + 4 * (size_t)b : world_q, &turn,
                       &swing);
      if (rm->joint_kind[j] == VS_JOINT_HINGE) {
        if (swing > r->max_axis) r->max_axis = swing;
        if (fl & VS_RJOINT_LIMIT)
          past = rbm_past(turn, rm->joint_limit[2 * j], rm->joint_limit[2 * j + 1]);
      } else {
        if (fl & VS_RJOINT_CONE) past = rbm_past(swing, -1.0, rm->joint_cone[j]);
        if (fl & VS_RJOINT_TWIST)
          past = fmax(past, rbm_past(turn, rm->joint_limit[2 * j], rm->joint_limit[2 * j + 1]));
      }
      if (past > r->max_limit) r->max_limit = past;
    }
  }
  if (r->kind == RBM_PYRAMID || r->kind == RBM_PILE) {
    double ke = 0;
    for (int32_t i = 0; i < r->n; i++)
      if (!rbm_fixed(r, i))
        ke += rbm_body_energy(r, i, q + 4 * (size_t)i, v + 3 * (size_t)i, w + 3 * (size_t)i, NULL);
    int64_t fifth = r->frames / 5 > 0 ? r->frames / 5 : 1;
    if (f <= fifth && ke > r->ke_early) r->ke_early = ke;
    if (f > r->frames - fifth && ke > r->ke_late) r->ke_late = ke;
  }
  if (r->kind == RBM_PILE && m->n_colliders > 0 && m->colliders[0].kind == VS_COLLIDER_PLANE) {
    /* the deepest hull vertex under the ground (hulls from vsim's model,
     * in the body frames both engines use) */
    const vs_rmodel *rm = m->priv->rigid;
    const double *pt = m->colliders[0].a, *nn = m->colliders[0].b;
    for (int32_t i = 0; i < r->n; i++) {
      const vs_hull *h = vs_rmodel_hull(rm, i);
      for (int32_t k = 0; h && k < h->nv; k++) {
        double p[3];
        rbm_point(x + 3 * (size_t)i, q + 4 * (size_t)i, h->v + 3 * (size_t)k, p);
        double depth = -((p[0] - pt[0]) * nn[0] + (p[1] - pt[1]) * nn[1] + (p[2] - pt[2]) * nn[2]);
        if (depth > r->max_pen) r->max_pen = depth;
      }
    }
  }
  if (r->kind == RBM_HEAVY && r->n > 0 && m->n_colliders > 0 &&
      m->colliders[0].kind == VS_COLLIDER_PLANE) {
    const double *s = m->rigid_size, *pt = m->colliders[0].a, *nn = m->colliders[0].b;
    for (int c = 0; c < 8; c++) {
      double loc[3] = {(c & 1 ? 0.5 : -0.5) * s[0], (c & 2 ? 0.5 : -0.5) * s[1],
                       (c & 4 ? 0.5 : -0.5) * s[2]},
             p[3];
      rbm_point(x, q, loc, p);
      double depth = -((p[0] - pt[0]) * nn[0] + (p[1] - pt[1]) * nn[1] + (p[2] - pt[2]) * nn[2]);
      if (depth > r->max_pen) r->max_pen = depth;
    }
  }
  if (r->kind == RBM_SPIN && r->n > 0 && isnan(r->flip_t)) {
    double R[9];
    rbm_mat(q, R);
    int k = r->axis;
    double d = R[k] * r->l0[0] + R[3 + k] * r->l0[1] + R[6 + k] * r->l0[2];
    if (d * r->sign0 < 0) r->flip_t = (double)f * r->dt;
  }
  if (r->kind == RBM_CRADLE && r->n > 2 && r->phase < 2) {
    /* phase 0: until the last ball moves; 1: until it turns back (its apex) */
    const double *vl = v + 3 * (size_t)(r->n - 1);
    if (r->phase == 0 && rbm_len(vl) > 0.05) r->phase = 1;
    for (int32_t i = 1; i + 1 < r->n; i++)
      if (rbm_len(v + 3 * (size_t)i) > r->middle) r->middle = rbm_len(v + 3 * (size_t)i);
    if (r->phase == 1) {
      if (x[3 * (size_t)(r->n - 1) + 1] > r->apex) r->apex = x[3 * (size_t)(r->n - 1) + 1];
      if (vl[0] <= 0) r->phase = 2, r->first_after = rbm_len(v);
    }
  }
  if (r->kind == RBM_ROLL && r->n > 0 && isnan(r->roll_t)) {
    /* the contact point's velocity v + w x (0, -rad, 0) */
    double rad = m->rigid_size[0], cv[3] = {v[0] + w[2] * rad, v[1], v[2] - w[0] * rad};
    if (rbm_len(cv) < 0.01) r->roll_t = (double)f * r->dt;
  }
  if (r->kind == RBM_BOUNCE && r->n > 0) {
    if (r->phase == 0 && v[1] > 0) r->phase = 1;
    if (r->phase == 1) {
      if (x[1] > r->apex) r->apex = x[1];
      if (v[1] <= 0) r->phase = 2;
    }
  }
  return 0;
}

/* --trace K: body K's frame, centre, velocity and angular velocity on
 * stderr, one line a frame (to see how a metric came about). */
static inline void rbm_trace(int64_t f, int32_t k, const double *x, const double *v, const double *w) {
  const double *p = x + 3 * (size_t)k, *u = v + 3 * (size_t)k, *a = w + 3 * (size_t)k;
  fprintf(stderr, "%lld x %.6g %.6g %.6g v %.6g %.6g %.6g w %.6g %.6g %.6g\n", (long long)f, p[0],
          p[1], p[2], u[0], u[1], u[2], a[0], a[1], a[2]);
}

static inline void rbm_num(FILE *out, const char *key, double val, int *first) {
  fprintf(out, "%s\"%s\": ", *first ? "" : ", ", key);
  *first = 0;
  if (isfinite(val))
    fprintf(out, "%.9g", val);
  else
    fputs("null", out);
}

/* The metrics as the members of a JSON object (no braces); a value that
 * cannot be had is null. */
static inline void rbm_print(const rbm *r, FILE *out) {
  const vs_model *m = r->m;
  int first = 1;
  int32_t n = r->n, t = n - 1;
  if (n <= 0) return;
  switch (r->kind) {
    case RBM_JOINTS:
      rbm_num(out, "max_joint_sep_m", r->max_sep, &first);
      rbm_num(out, "max_speed_mps", r->max_speed, &first);
      rbm_num(out, "energy_lost_j", r->e_start - rbm_energy(r, r->xl, r->ql, r->vl, r->wl), &first);
      break;
    case RBM_STACK: {
      double dx = r->xl[3 * t] - r->x0[3 * t], dz = r->xl[3 * t + 2] - r->x0[3 * t + 2];
      rbm_num(out, "top_drift_m", sqrt(dx * dx + dz * dz), &first);
      rbm_num(out, "height_err_m", r->xl[3 * t + 1] - r->x0[3 * t + 1], &first);
      break;
    }
    case RBM_PYRAMID: {
      double top = 0, worst = 0;
      for (int32_t i = 0; i < n; i++) {
        double d[3] = {r->xl[3 * i] - r->x0[3 * i], r->xl[3 * i + 1] - r->x0[3 * i + 1],
                       r->xl[3 * i + 2] - r->x0[3 * i + 2]};
        double l = rbm_len(d);
        if (l > worst) worst = l;
        if (i == t) top = l;
      }
      rbm_num(out, "top_drift_m", top, &first);
      rbm_num(out, "max_drift_m", worst, &first);
      rbm_num(out, "ke_ratio", r->ke_early > 0 ? r->ke_late / r->ke_early : NAN, &first);
      /* stands: every box within half its edge of where it started */
      fprintf(out, ", \"stands\": %s", worst < 0.5 * m->rigid_size[0] ? "true" : "false");
      break;
    }
    case RBM_HEAVY: {
      rbm_num(out, "light_pen_max_m", r->max_pen, &first);
      double dx = n > 1 ? r->xl[3] - r->x0[3] : NAN, dz = n > 1 ? r->xl[5] - r->x0[5] : NAN;
      rbm_num(out, "heavy_drift_m", sqrt(dx * dx + dz * dz), &first);
      break;
    }
    case RBM_SPIN: {
      double L[3];
      double e = rbm_body_energy(r, 0, r->ql, r->vl, r->wl, L);
      rbm_num(out, "e_ratio", e / r->e0, &first);
      rbm_num(out, "l_ratio", rbm_len(L) / r->l0len, &first);
      rbm_num(out, "first_flip_s", r->flip_t, &first);
      break;
    }
    case RBM_BOUNCE: {
      double e = m->priv->rigid->restitution[0], ground = 0;
      if (m->n_colliders > 0 && m->colliders[0].kind == VS_COLLIDER_PLANE) {
        if (m->colliders[0].restitution > e) e = m->colliders[0].restitution;
        ground = m->colliders[0].a[1];
      }
      double half = 0.5 * m->rigid_size[1], h = r->x0[1] - half - ground;
      rbm_num(out, "max_spin_radps", r->max_spin, &first);
      rbm_num(out, "apex_ratio", r->phase ? (r->apex - half - ground) / (e * e * h) : 0.0, &first);
      break;
    }
    case RBM_WALL: {
      const char *res = "?";
      if (m->n_colliders > 0 && m->colliders[0].kind == VS_COLLIDER_BOX)
        res = r->xl[0] > m->colliders[0].b[0] ? "passed" : r->xl[0] < m->colliders[0].a[0] ? "stopped" : "inside";
      fprintf(out, "\"result\": \"%s\"", res);
      first = 0;
      rbm_num(out, "final_x_m", r->xl[0], &first);
      rbm_num(out, "final_vx_mps", r->vl[0], &first);
      break;
    }
    case RBM_PILE: {
      double vmax = 0;
      for (int32_t i = 0; i < n; i++)
        if (rbm_len(r->vl + 3 * (size_t)i) > vmax) vmax = rbm_len(r->vl + 3 * (size_t)i);
      rbm_num(out, "ke_ratio", r->ke_early > 0 ? r->ke_late / r->ke_early : NAN, &first);
      rbm_num(out, "final_max_speed_mps", vmax, &first);
      rbm_num(out, "ground_pen_max_m", r->max_pen, &first);
      break;
    }
    case RBM_RAGDOLL: {
      double ke = 0, vmax = 0, deg = 180.0 / 3.14159265358979323846;
      for (int32_t i = 0; i < n; i++) {
        if (rbm_fixed(r, i)) continue;
        ke += rbm_body_energy(r, i, r->ql + 4 * (size_t)i, r->vl + 3 * (size_t)i,
                              r->wl + 3 * (size_t)i, NULL);
        if (rbm_len(r->vl + 3 * (size_t)i) > vmax) vmax = rbm_len(r->vl + 3 * (size_t)i);
      }
      rbm_num(out, "max_joint_sep_m", r->max_sep, &first);
      rbm_num(out, "max_limit_deg", r->max_limit * deg, &first);
      rbm_num(out, "max_hinge_axis_deg", r->max_axis * deg, &first);
      rbm_num(out, "final_ke_j", ke, &first);
      rbm_num(out, "final_max_speed_mps", vmax, &first);
      break;
    }
    case RBM_CRADLE: {
      /* the last ball's rise over the first one's drop, both from rest height */
      double drop = r->x0[1] - r->x0[3 * (size_t)t + 1];
      rbm_num(out, "apex_ratio", r->phase ? (r->apex - r->x0[3 * (size_t)t + 1]) / drop : 0.0, &first);
      rbm_num(out, "middle_max_speed_mps", r->middle, &first);
      rbm_num(out, "first_ball_after_mps", r->phase == 2 ? r->first_after : NAN, &first);
      break;
    }
    case RBM_ROLL: {
      const double *v0 = m->rigid_v0, *g = m->gravity;
      double mu = m->n_colliders > 0 ? sqrt(m->priv->rigid->friction[0] * m->colliders[0].friction) : NAN;
      double rad = m->rigid_size[0];
      double cv[3] = {r->vl[0] + r->wl[2] * rad, r->vl[1], r->vl[2] - r->wl[0] * rad};
      rbm_num(out, "roll_start_s", r->roll_t, &first);
      rbm_num(out, "roll_start_ideal_s", 2.0 * rbm_len(v0) / (7.0 * mu * rbm_len(g)), &first);
      rbm_num(out, "speed_ratio", rbm_len(r->vl) / (5.0 / 7.0 * rbm_len(v0)), &first);
      rbm_num(out, "final_slip_mps", rbm_len(cv), &first);
      break;
    }
    case RBM_INCLINE: {
      /* crate 0 sticks; crate 1 slides: its path against g (sin th - mu cos th) t^2 / 2 */
      double d0[3], d1[3];
      for (int k = 0; k < 3; k++)
        d0[k] = r->xl[k] - r->x0[k], d1[k] = n > 1 ? r->xl[3 + k] - r->x0[3 + k] : NAN;
      const double *g = m->gravity, *nn = m->n_colliders > 0 ? m->colliders[0].b : NULL;
      double gl = rbm_len(g), cth = nn ? -(g[0] * nn[0] + g[1] * nn[1] + g[2] * nn[2]) / gl : NAN;
      double sth = sqrt(1.0 - cth * cth), T = (double)r->done * r->dt;
      double mu = n > 1 && nn ? sqrt(m->priv->rigid->friction[1] * m->colliders[0].friction) : NAN;
      double want = 0.5 * gl * (sth - mu * cth) * T * T;
      rbm_num(out, "stick_drift_m", rbm_len(d0), &first);
      rbm_num(out, "slide_ratio", rbm_len(d1) / want, &first);
      break;
    }
    case RBM_OTHER:
      rbm_num(out, "max_speed_mps", r->max_speed, &first);
      break;
  }
}

/* CPU time of this process, s: on a shared machine the wall clock measures
 * the neighbours too (as bench/rigid_pyramid.c). */
static inline double rbm_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A JSON string's body: quotes, backslashes and control characters escaped. */
static inline void rbm_str(FILE *out, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
}

#endif
