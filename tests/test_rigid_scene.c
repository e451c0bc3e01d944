/* SPDX-License-Identifier: MIT */
/* test_rigid_scene.c: rigid bodies through the whole pipeline -- scene ->
 * model -> vs_step (analytic answers through the scene's own keys:
 * incline, rolling, bounce, two-way particle contact conserving momentum)
 * and `vsim run` end to end: bitwise identity across --threads and across
 * --resume, `info` and `compare` on rigid files, and every bad input of
 * the rigid keys: exit 2, file:line:col, no output left. */
#include <math.h>

#include "runutil.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"
#include "solve/solve.h"
#include "util/quat.h"
#include "vsim/step.h"

/* ---- physics through the scene keys ---------------------------------------- */

/* The deepest penetration of the observables (a sort and sweep over the
 * bodies' bounding spheres) equals the narrow phase run on every pair and
 * collider, bit for bit: two boxes, spheres and capsules each, placed and
 * turned at random in a 0.6 m cube 2000 times (the floor far below: the
 * pairs make the deepest). */
static double deepest_by_brute_force(const vs_model *m, const vs_state *s) {
  const vs_rmodel *rm = m->priv->rigid;
  vs_rstate rs = {.n_bodies = m->n_rigid, .x = s->rx, .q = s->rq, .v = s->rv, .w = s->rw};
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  double pen = 0.0;
  for (int32_t i = 0; i < m->n_rigid; i++) {
    for (int32_t k = 0; k < rm->n_colliders; k++) {
      int n = vs_rigid_collide_collider(rm, &rs, i, k, 0.0, c);
      for (int j = 0; j < n; j++) pen = c[j].depth > pen ? c[j].depth : pen;
    }
    for (int32_t k = i + 1; k < m->n_rigid; k++) {
      int n = vs_rigid_collide_pair(rm, &rs, i, k, 0.0, c);
      for (int j = 0; j < n; j++) pen = c[j].depth > pen ? c[j].depth : pen;
    }
  }
  return pen;
}

START_TEST(penetration_measure_sees_every_pair) {
  vs_scene *sc = tu_scene("time: {dt: 1/60}\n"
                          "world: {colliders: [{plane: {point: [0, -50, 0]}}]}\n"
                          "bodies:\n"
                          "  - rigid: {shape: box, size: [0.3, 0.1, 0.2]}\n"
                          "  - rigid: {shape: box, size: [0.05, 0.4, 0.1]}\n"
                          "  - rigid: {shape: sphere, radius: 0.1}\n"
                          "  - rigid: {shape: sphere, radius: 0.04}\n"
                          "  - rigid: {shape: capsule, radius: 0.05, length: 0.2}\n"
                          "  - rigid: {shape: capsule, radius: 0.08, length: 0.1}\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  uint32_t r = 12345;
#define RND() (((r = r * 1103515245u + 12345u) >> 8 & 0xffff) / 65536.0)
  int deep = 0, shallow = 0;
  for (int round = 0; round < 2000; round++) {
    for (int i = 0; i < m->n_rigid; i++) {
      double q[4] = {RND() - 0.5, RND() - 0.5, RND() - 0.5, RND() - 0.5};
      double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int k = 0; k < 3; k++) s->rx[3 * i + k] = 0.6 * RND();
      for (int k = 0; k < 4; k++) s->rq[4 * i + k] = q[k] / l;
    }
    vs_observables o;
    vs_observe(m, s, &o, NULL);
    double want = deepest_by_brute_force(m, s);
    deep += want > 0.02;
    shallow += want > 0 && want < 0.01;
    ck_assert_msg(memcmp(&o.penetration_max, &want, sizeof want) == 0,
                  "round %d: observed %.17g, all pairs %.17g", round, o.penetration_max, want);
  }
#undef RND
  /* both kinds of overlap were there to be missed */
  ck_assert_msg(deep > 100 && shallow > 100, "deep %d, shallow %d", deep, shallow);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* g (sin 30 - mu cos 30), mu = sqrt(0.2 * 0.2), along the slope. */
START_TEST(box_slides_down_the_incline_at_the_coulomb_rate) {
  vs_scene *sc = tu_scene(
      "time: {dt: 1/60}\n"
      "world: {colliders: [{plane: {normal: [-0.5, 0.8660254037844386, 0], friction: 0.2}}]}\n"
      "bodies: [{rigid: {name: crate, size: [0.4, 0.2, 0.4], position: [0, 0.1, 0],\n"
      "                  rotation: [0, 0, 30], friction: 0.2}}]\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  tu_steps(m, s, 30); /* settle onto the slope */
  const double v0 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1]);
  tu_steps(m, s, 60);
  const double v1 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1]);
  const double a = (v1 - v0) / 1.0, want = 9.81 * (0.5 - 0.2 * sqrt(3.0) / 2.0);
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* (5/7) g sin 30 for a ball rolling without slipping, and w = |v| / r. */
START_TEST(ball_rolls_without_slipping) {
  vs_scene *sc = tu_scene(
      "time: {dt: 1/60}\n"
      "world: {colliders: [{plane: {normal: [-0.5, 0.8660254037844386, 0], friction: 0.8}}]}\n"
      "bodies: [{rigid: {name: ball, shape: sphere, radius: 0.2, position: [0, 0.2, 0],\n"
      "                  friction: 0.8}}]\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  tu_steps(m, s, 30);
  const double v0 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1]);
  tu_steps(m, s, 60);
  const double v1 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1]);
  const double a = v1 - v0, want = 5.0 / 7.0 * 9.81 * 0.5;
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
  const double w = sqrt(s->rw[0] * s->rw[0] + s->rw[1] * s->rw[1] + s->rw[2] * s->rw[2]);
  ck_assert_msg(fabs(w * 0.2 - v1) < 0.02 * v1, "w r = %g, v = %g", w * 0.2, v1);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* Restitution 0.5 (the pair's max): the bounce reaches 0.25 of the drop. */
START_TEST(bounce_reaches_a_quarter_of_the_drop) {
  vs_scene *sc = tu_scene(
      "time: {dt: 1/240, substeps: 1}\n"
      "world: {colliders: [{plane: {}}]}\n"
      "bodies: [{rigid: {name: ball, shape: sphere, radius: 0.1, position: [0, 1.1, 0],\n"
      "                  restitution: 0.5}}]\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  double top = 0.0;
  int bounced = 0;
  for (int i = 0; i < 240 * 2; i++) {
    tu_steps(m, s, 1);
    if (s->rv[1] > 0.0) bounced = 1;
    if (bounced && s->rx[1] - 0.1 > top) top = s->rx[1] - 0.1;
  }
  ck_assert_msg(fabs(top - 0.25) < 0.02, "bounce height %g, want 0.25", top);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* A particle with a radius hits a free box in zero gravity: the total linear
 * momentum (particle m v + body m v) is kept, the body got moving. */
START_TEST(particle_rigid_contact_keeps_momentum) {
  vs_scene *sc = tu_scene(
      "time: {dt: 1/120, substeps: 2}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {name: shot, positions: [[-1, 0.05, 0.1]], velocities: [[4, 0, 0]],\n"
      "                mass: 0.3, radius: 0.05}\n"
      "  - rigid: {name: crate, size: [0.4, 0.4, 0.4], mass: 2}\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  const double P0 = 0.3 * 4.0;
  double P[3];
  for (int i = 0; i < 120; i++) {
    tu_steps(m, s, 1);
    for (int k = 0; k < 3; k++) P[k] = 0.3 * s->v[k] + 2.0 * s->rv[k];
    ck_assert_msg(fabs(P[0] - P0) < 1e-9 * P0 && fabs(P[1]) < 1e-9 && fabs(P[2]) < 1e-9,
                  "step %d: P = (%.17g, %g, %g), want (%g, 0, 0)", i, P[0], P[1], P[2], P0);
  }
  ck_assert_double_gt(s->rv[0], 0.1);                  /* the box was pushed */
  ck_assert_double_gt(fabs(s->rw[1]) + fabs(s->rw[2]), 1e-3); /* off-centre: it turns */
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* A box sliding on a floor of pinned particles (radius 5 cm): with friction
 * 0.5 it stops after about v^2 / (2 mu g) = 0.10 m; with none it slides on. */
static double slide(double friction) {
  char y[8192];
  int n = snprintf(y, sizeof y, "time: {dt: 1/60, substeps: 2}\nbodies:\n  - particles:\n"
                               "      radius: 0.05\n      positions: [");
  for (int i = 0; i < 21; i++)
    for (int j = 0; j < 11; j++)
      n += snprintf(y + n, sizeof y - (size_t)n, "%s[%g, 0, %g]", i + j ? ", " : "", -1 + 0.1 * i,
                    -0.5 + 0.1 * j);
  n += snprintf(y + n, sizeof y - (size_t)n, "]\n      pin: [");
  for (int k = 0; k < 21 * 11; k++) n += snprintf(y + n, sizeof y - (size_t)n, "%s%d", k ? ", " : "", k);
  snprintf(y + n, sizeof y - (size_t)n,
           "]\n  - rigid: {name: crate, size: [0.4, 0.2, 0.4], position: [-0.4, 0.15, 0],\n"
           "            velocity: [1, 0, 0], friction: %g}\n", friction);
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  tu_steps(m, s, 60);
  const double d = s->rx[0] + 0.4;
  if (friction > 0) ck_assert_msg(fabs(s->rv[0]) < 0.02, "still sliding at %g m/s", s->rv[0]);
  ck_assert_msg(fabs(s->rx[1] - 0.15) < 0.01, "height %g", s->rx[1]);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
  return d;
}

START_TEST(particle_contacts_have_coulomb_friction) {
  const double d = slide(0.5), want = 1.0 / (2 * 0.5 * 9.81);
  ck_assert_msg(fabs(d - want) < 0.3 * want, "stopped after %g m, want about %g", d, want);
  const double free_d = slide(0.0);
  ck_assert_msg(free_d > 0.9, "frictionless: slid only %g m", free_d);
}
END_TEST

/* The model rows the writer reads: mass from density, inf when fixed; the
 * initial pose from rotation. */
START_TEST(model_rows_follow_the_keys) {
  vs_scene *sc = tu_scene(
      "bodies:\n"
      "  - rigid: {name: a, size: [1, 2, 0.5], density: 10, rotation: [0, 0, 90]}\n"
      "  - rigid: {name: b, shape: capsule, radius: 0.1, length: 0.4, fixed: true}\n"
      "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [2, 2]}\n");
  vs_model *m = tu_model(sc);
  ck_assert_int_eq(m->n_rigid, 2);
  ck_assert_int_eq(m->n_particles, 4);
  ck_assert_double_eq_tol(m->rigid_mass[0], 10.0, 1e-12);
  ck_assert_double_eq_tol(m->rigid_inertia[0], 10.0 / 12.0 * (4 + 0.25), 1e-12);
  ck_assert(isinf(m->rigid_mass[1]) && isinf(m->rigid_inertia[3]));
  ck_assert_int_eq(m->rigid_shape[1], VS_RIGID_CAPSULE);
  ck_assert_double_eq(m->rigid_size[3], 0.1);
  ck_assert_double_eq(m->rigid_size[4], 0.4);
  ck_assert_double_eq_tol(m->rigid_q0[0], sqrt(0.5), 1e-15);
  ck_assert_double_eq_tol(m->rigid_q0[3], sqrt(0.5), 1e-15);
  ck_assert_str_eq(m->bodies[m->rigid_body[1]].name, "b");
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* World point of body-local point a on rigid body b. */
static void anchor(const vs_state *s, int b, const double a[3], double out[3]) {
  double R[9];
  vs_quat_to_mat(&s->rq[4 * b], R);
  vs_mat3_mul(R, a, out);
  for (int k = 0; k < 3; k++) out[k] += s->rx[3 * b + k];
}

/* A chain of 6 boxes on ball joints, hung from the world and released
 * horizontal: every joint keeps its anchors within 1 mm for 4 s. */
START_TEST(ball_joint_chain_keeps_its_joints) {
  char y[2048];
  int n = snprintf(y, sizeof y, "time: {dt: 1/60}\nbodies:\n");
  for (int i = 0; i < 6; i++)
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "  - rigid: {name: l%d, size: [0.25, 0.06, 0.06], position: [%g, 2, 0]}\n", i,
                  0.125 + 0.25 * i);
  n += snprintf(y + n, sizeof y - (size_t)n, "constraints:\n  - ball: {a: l0, b: world, at: [0, 2, 0]}\n");
  for (int i = 0; i < 5; i++)
    n += snprintf(y + n, sizeof y - (size_t)n, "  - ball: {a: l%d, b: l%d, at: [%g, 2, 0]}\n", i,
                  i + 1, 0.25 * (i + 1));
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  ck_assert_int_eq(m->n_rjoints, 6);
  vs_state *s = tu_state(m);
  const double left[3] = {-0.125, 0, 0}, right[3] = {0.125, 0, 0};
  double worst = 0.0;
  for (int f = 0; f < 240; f++) {
    tu_steps(m, s, 1);
    double a[3], b[3];
    anchor(s, 0, left, a);
    const double w[3] = {0, 2, 0};
    for (int k = 0; k < 3; k++) a[k] -= w[k];
    worst = fmax(worst, vs_len3(a));
    for (int i = 0; i < 5; i++) {
      anchor(s, i, right, a);
      anchor(s, i + 1, left, b);
      for (int k = 0; k < 3; k++) a[k] -= b[k];
      worst = fmax(worst, vs_len3(a));
    }
  }
  ck_assert_msg(worst < 1e-3, "largest joint gap %g m", worst);
  ck_assert_double_lt(s->rx[3 * 5 + 1], 1.5); /* it did swing down */
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* attach in zero gravity: a moving particle held at a body point drags the
 * body; the total linear momentum is kept and the gap stays small. */
START_TEST(attach_acts_both_ways_and_keeps_momentum) {
  vs_scene *sc = tu_scene(
      "time: {dt: 1/120}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {name: p, positions: [[0.2, 0.3, 0]], velocities: [[0, 0, 2]], mass: 0.5}\n"
      "  - rigid: {name: crate, size: [0.4, 0.4, 0.4], mass: 2}\n"
      "constraints:\n"
      "  - attach: {particle: 'p:0', body: crate, at: [0.2, 0.2, 0]}\n");
  vs_model *m = tu_model(sc);
  ck_assert_int_eq(m->n_attach, 1);
  vs_state *s = tu_state(m);
  const double P0 = 0.5 * 2.0;
  for (int i = 0; i < 240; i++) {
    tu_steps(m, s, 1);
    double P[3];
    for (int k = 0; k < 3; k++) P[k] = 0.5 * s->v[k] + 2.0 * s->rv[k];
    ck_assert_msg(fabs(P[2] - P0) < 1e-9 * P0 && fabs(P[0]) < 1e-9 && fabs(P[1]) < 1e-9,
                  "step %d: P = (%g, %g, %.17g)", i, P[0], P[1], P[2]);
  }
  double a[3];
  const double at[3] = {0.2, 0.2, 0};
  anchor(s, 0, at, a);
  for (int k = 0; k < 3; k++) a[k] -= s->x[k];
  ck_assert_msg(vs_len3(a) < 0.01, "gap %g", vs_len3(a));
  ck_assert_double_gt(s->rv[2], 0.1); /* the body was dragged along */
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* attach on a swinging chain (configs/rigid_chain.yaml's rope on a chain
 * released horizontal): solved at the end of every rigid substep hs, the gap
 * at a frame's end is what the joints' position pass takes back of the
 * body's last share, at most the body's share of one substep's relative
 * motion plus what was left before: g <= (wb / wsum) (v hs + g), so
 * g <= (wb / wp) v hs, with wb <= 1/m + |r|^2 / I_min the body's largest
 * generalised inverse mass at the point, wp the particle's and v the point's
 * speed.  Solved once a frame the body's share of a whole frame stayed open:
 * 9.3 mm here, four times this bound (2.3 mm; 0.29 mm now). */
START_TEST(attach_gap_closes_in_the_rigid_substeps) {
  char y[4096];
  int n = snprintf(y, sizeof y, "time: {dt: 1/60}\nbodies:\n");
  for (int i = 0; i < 6; i++)
    n += snprintf(y + n, sizeof y - (size_t)n,
                  "  - rigid: {name: l%d, size: [0.25, 0.06, 0.06], position: [%g, 2, 0], "
                  "mass: 0.5}\n",
                  i, 0.125 + 0.25 * i);
  n += snprintf(y + n, sizeof y - (size_t)n,
                "  - rope: {name: cord, from: [1.125, 1.2, 0], to: [1.125, 1.97, 0], "
                "segments: 8, mass: 0.2}\n"
                "constraints:\n  - ball: {a: l0, b: world, at: [0, 2, 0]}\n");
  for (int i = 0; i < 5; i++)
    n += snprintf(y + n, sizeof y - (size_t)n, "  - ball: {a: l%d, b: l%d, at: [%g, 2, 0]}\n", i,
                  i + 1, 0.25 * (i + 1));
  snprintf(y + n, sizeof y - (size_t)n,
           "  - attach: {particle: 'cord:8', body: l4, at: [0, -0.03, 0]}\n");
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  ck_assert_int_eq(m->n_attach, 1);
  vs_state *s = tu_state(m);
  const vs_rmodel *rm = m->priv->rigid;
  const int32_t b = m->attach_body[0], pi = m->attach_p[0];
  const double *at = &m->attach_at[0];
  const double *ii = &rm->inv_inertia[3 * b];
  const double wp = s->x[4 * pi + 3];
  ck_assert_double_gt(wp, 0.0);
  const double wb = rm->inv_mass[b] + vs_dot3(at, at) * fmax(ii[0], fmax(ii[1], ii[2]));
  const double hs = m->h / rm->set.substeps;
  double gap = 0.0, vmax = 0.0;
  for (int f = 0; f < 240; f++) {
    tu_steps(m, s, 1);
    double a[3], r[3], wr[3], d[3];
    anchor(s, b, at, a);
    for (int k = 0; k < 3; k++) {
      d[k] = s->x[4 * pi + k] - a[k];
      r[k] = a[k] - s->rx[3 * b + k];
    }
    gap = fmax(gap, vs_len3(d));
    vs_cross3(&s->rw[3 * b], r, wr);
    for (int k = 0; k < 3; k++) wr[k] += s->rv[3 * b + k];
    vmax = fmax(vmax, vs_len3(wr));
  }
  /* the speed is sampled once a frame: twice the bound covers its peaks */
  const double bound = 2.0 * wb / wp * vmax * hs;
  ck_assert_double_gt(vmax, 1.0); /* it did swing */
  ck_assert_msg(gap <= bound && bound < 4e-3, "attach gap %g m, bound %g m (v %g m/s)", gap, bound,
                vmax);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* solver.rigid.sleep: a stack of three boxes and a box apart, resting on
 * the ground, and a small box dropped from 7.1 m onto the stack (it lands
 * after sqrt(2 7.1 / 9.81) = 1.2 s).  Until an island has rested 0.5 s the
 * run has the bits of the run without sleeping; then the resting islands
 * sleep (velocities exactly zero, not moved); the drop wakes the stack's
 * island only, the box apart keeps its bits; and once all rest again for
 * 0.5 s, everything sleeps. */
static const char *const SLEEPY =
    "time: {dt: 1/60, frames: 300}\n"
    "solver: {rigid: {sleep: %s}}\n"
    "world: {colliders: [{plane: {friction: 0.5}}]}\n"
    "bodies:\n"
    "  - rigid: {name: b0, size: [0.4, 0.4, 0.4], position: [0, 0.2, 0]}\n"
    "  - rigid: {name: b1, size: [0.4, 0.4, 0.4], position: [0, 0.6, 0]}\n"
    "  - rigid: {name: b2, size: [0.4, 0.4, 0.4], position: [0, 1.0, 0]}\n"
    "  - rigid: {name: apart, size: [0.4, 0.4, 0.4], position: [3, 0.2, 0]}\n"
    "  - rigid: {name: drop, size: [0.2, 0.2, 0.2], position: [0, 8.3, 0], mass: 0.1}\n";

static int body_still(const vs_state *s, int i) {
  for (int k = 0; k < 3; k++)
    if (s->rv[3 * i + k] != 0.0 || s->rw[3 * i + k] != 0.0) return 0;
  return 1;
}

START_TEST(sleeping_islands_stop_and_wake_when_touched) {
  char *y_on = cu_strf(SLEEPY, "true"), *y_off = cu_strf(SLEEPY, "false");
  vs_scene *son = tu_scene(y_on), *soff = tu_scene(y_off);
  vs_model *mon = tu_model(son), *moff = tu_model(soff);
  vs_state *a = tu_state(mon), *b = tu_state(moff);
  ck_assert_int_eq(mon->rigid_sleep, 1);
  ck_assert_int_eq(moff->rigid_sleep, 0);
  const size_t nb = 3 * (size_t)mon->n_rigid * sizeof(double);
  /* nothing sleeps before it has rested 0.5 s: the same bits */
  for (int f = 0; f < 29; f++) {
    tu_steps(mon, a, 1);
    tu_steps(moff, b, 1);
    ck_assert_msg(!memcmp(a->rx, b->rx, nb) && !memcmp(a->rv, b->rv, nb) &&
                      !memcmp(a->rw, b->rw, nb),
                  "frame %d differs before anything could sleep", f + 1);
  }
  tu_steps(mon, a, 31); /* 1 s */
  for (int i = 0; i < 4; i++) {
    ck_assert_msg(body_still(a, i), "body %d not asleep at 1 s", i);
    ck_assert_double_ge(a->rsleep[i], 0.5);
  }
  ck_assert_double_lt(a->rv[3 * 4 + 1], -5.0); /* the drop falls */
  double apart[3];
  memcpy(apart, &a->rx[3 * 3], sizeof apart);
  const double y2 = a->rx[3 * 2 + 1];
  int woke = 0;
  for (int f = 60; f < 100; f++) {
    tu_steps(mon, a, 1);
    woke |= !body_still(a, 0) && !body_still(a, 2);
    ck_assert_msg(body_still(a, 3) && !memcmp(apart, &a->rx[3 * 3], sizeof apart),
                  "frame %d: the box apart moved", f + 1);
  }
  ck_assert_msg(woke, "the drop did not wake the stack");
  tu_steps(mon, a, 200);
  for (int i = 0; i < 5; i++) ck_assert_msg(body_still(a, i), "body %d awake at 5 s", i);
  /* the stack still stands under the drop, on the ground */
  ck_assert_double_lt(fabs(a->rx[3 * 2 + 1] - y2), 0.01);
  ck_assert_double_gt(a->rx[3 * 4 + 1], 1.2);
  vs_state_free(a), vs_state_free(b);
  vs_model_free(mon), vs_model_free(moff);
  vs_scene_free(son), vs_scene_free(soff);
  free(y_on), free(y_off);
}
END_TEST

/* Sleeping bodies keep the last narrow phase's contacts instead of
 * computing them again (rigid_broad.c), and a step in which the whole world
 * sleeps is skipped (vs_rigid_world_asleep): a run that does neither, and
 * computes every contact every step, has the same bits, frame by frame,
 * through the sleep, the drop's fall onto the sleeping stack, its wake and
 * the sleep after. */
START_TEST(sleeping_bodies_keep_the_narrow_phase_s_contacts) {
  char *y = cu_strf(SLEEPY, "true");
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_state *a = tu_state(m), *b = tu_state(m);
  vs_rwork *wb = b->scratch->rigid;
  uint8_t *frozen = wb->frozen;
  ck_assert_ptr_nonnull(frozen);
  const size_t nb = 3 * (size_t)m->n_rigid * sizeof(double);
  int kept = 0;
  for (int f = 0; f < 300; f++) {
    tu_steps(m, a, 1);
    wb->frozen = NULL; /* the narrow phase for every pair, no step skipped */
    tu_steps(m, b, 1);
    wb->frozen = frozen;
    for (int i = 0; i < m->n_rigid; i++) kept += a->scratch->rigid->frozen[i];
    ck_assert_msg(!memcmp(a->rx, b->rx, nb) && !memcmp(a->rv, b->rv, nb) &&
                      !memcmp(a->rq, b->rq, 4 * (size_t)m->n_rigid * sizeof(double)) &&
                      !memcmp(a->rcache_impulse, b->rcache_impulse,
                              4 * (size_t)m->rigid_max_contacts * sizeof(double)),
                  "frame %d differs", f + 1);
  }
  ck_assert_int_gt(kept, 100); /* it did keep contacts (while the drop fell) */
  vs_state_free(a), vs_state_free(b);
  vs_model_free(m);
  vs_scene_free(sc);
  free(y);
}
END_TEST

/* Sleeping is on by default, and what rests sleeps; but a box creeping down
 * a slope a little steeper than its friction angle -- slower than the rest
 * speed (0.01 m/s) for its first 0.57 s -- slides, its friction at the
 * Coulomb limit, and never sleeps: its 3 s have the bits of the run with
 * sleeping off, and it has come more than the Coulomb distance
 * g (sin th - mu cos th) t^2 / 2 (0.020 m) but not 3 times that (the
 * first step, without a warm start, lets it slip at 5.6 mm/s, and that
 * speed stays).  The slope is gravity turned by th, tan th = mu + 0.0005.  On a slope with
 * tan th = 0.9 mu the same box holds and sleeps where it was put (one held
 * within 2 % of its limit stays awake: docs/physics.md, "Sleeping").  With
 * only the speed and time of a body at rest, the first box would sleep at
 * 0.5 s. */
static const char *const SLOPE =
    "time: {dt: 1/60}\n"
    "world: {gravity: [%.17g, %.17g, 0], colliders: [{plane: {friction: 0.5}}]}\n"
    "%s"
    "bodies:\n"
    "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0, 0.2, 0], friction: 0.5}\n";

START_TEST(creeping_box_stays_awake_resting_box_sleeps) {
  const double mu = 0.5, g = 9.81, t = 3.0;
  for (int steep = 0; steep < 2; steep++) {
    const double th = atan(steep ? mu + 0.0005 : 0.9 * mu);
    char *y = cu_strf(SLOPE, g * sin(th), -g * cos(th), "");
    char *yoff = cu_strf(SLOPE, g * sin(th), -g * cos(th), "solver: {rigid: {sleep: false}}\n");
    tu_sim r = tu_sim_new(y), off = tu_sim_new(yoff);
    ck_assert_int_eq(r.m->rigid_sleep, 1);
    ck_assert_int_eq(off.m->rigid_sleep, 0);
    tu_sim_steps(&r, 180);
    tu_sim_steps(&off, 180);
    const double x = r.s->rx[0];
    if (steep) {
      const double want = 0.5 * g * (sin(th) - mu * cos(th)) * t * t;
      ck_assert_msg(!memcmp(r.s->rx, off.s->rx, 3 * sizeof(double)) &&
                        !memcmp(r.s->rv, off.s->rv, 3 * sizeof(double)),
                    "the creeping box slept: %g m against %g m awake", x, off.s->rx[0]);
      ck_assert_msg(x > want && x < 3 * want, "the creeping box came %g m, not %g m", x, want);
      ck_assert_double_eq(r.s->rsleep[0], 0.0);
    } else {
      ck_assert_msg(body_still(r.s, 0) && r.s->rsleep[0] >= 0.5,
                    "the box at rest does not sleep (%g s at rest)", r.s->rsleep[0]);
      ck_assert_msg(fabs(x) < 1e-4 && fabs(r.s->rx[1] - 0.2) < 1e-4, "the box at rest moved to %g %g",
                    x, r.s->rx[1]);
    }
    tu_sim_free(&r);
    tu_sim_free(&off);
    free(y);
    free(yoff);
  }
}
END_TEST

/* Joints sleep too: a chain of four links hanging at rest from a
 * kinematic hook sleeps after 0.5 s (its joints hold it: they push it),
 * keeps its bits while asleep, and wakes when the hook starts to move at
 * 2 s (1 m/s along x), following it.  A wheel turned by a hinge motor at
 * 0.002 rad/s (its rim at 0.4 mm/s) never sleeps. */
static const char *const HANGING =
    "time: {dt: 1/60}\n"
    "bodies:\n"
    "  - rigid: {name: hook, kinematic: true, size: [0.1, 0.1, 0.1], position: [0, 3, 0],\n"
    "            keys: [[0, 0, 3, 0], [2, 0, 3, 0], [4, 2, 3, 0]]}\n"
    "  - rigid: {name: l0, size: [0.1, 0.4, 0.1], position: [0, 2.8, 0]}\n"
    "  - rigid: {name: l1, size: [0.1, 0.4, 0.1], position: [0, 2.4, 0]}\n"
    "  - rigid: {name: l2, size: [0.1, 0.4, 0.1], position: [0, 2.0, 0]}\n"
    "  - rigid: {name: l3, size: [0.1, 0.4, 0.1], position: [0, 1.6, 0], mass: 5}\n"
    "  - rigid: {name: wheel, shape: sphere, radius: 0.2, position: [3, 1, 0]}\n"
    "constraints:\n"
    "  - ball: {a: l0, b: hook, at: [0, 3, 0]}\n"
    "  - ball: {a: l1, b: l0, at: [0, 2.6, 0]}\n"
    "  - ball: {a: l2, b: l1, at: [0, 2.2, 0]}\n"
    "  - ball: {a: l3, b: l2, at: [0, 1.8, 0]}\n"
    "  - hinge: {a: wheel, b: world, at: [3, 1, 0], axis: [0, 0, 1],\n"
    "           motor: {speed: 0.002, max_torque: 10}}\n";

START_TEST(hanging_chain_sleeps_and_wakes_motor_never_sleeps) {
  tu_sim r = tu_sim_new(HANGING);
  vs_state *s = r.s;
  tu_sim_steps(&r, 90); /* 1.5 s */
  for (int i = 1; i <= 4; i++) {
    ck_assert_msg(body_still(s, i) && s->rsleep[i] >= 0.5, "link %d not asleep at 1.5 s (%g s)", i - 1,
                  s->rsleep[i]);
  }
  double x[12], q[16];
  memcpy(x, &s->rx[3], sizeof x);
  memcpy(q, &s->rq[4], sizeof q);
  tu_sim_steps(&r, 24); /* 1.9 s: asleep, the same bits */
  ck_assert_msg(!memcmp(x, &s->rx[3], sizeof x) && !memcmp(q, &s->rq[4], sizeof q),
                "the sleeping chain moved");
  ck_assert_msg(s->rsleep[5] < 0.5 && fabs(fabs(s->rw[17]) - 0.002) < 1e-6,
                "the motor's wheel slept or stopped: %g s at rest, %g rad/s", s->rsleep[5], s->rw[17]);
  tu_sim_steps(&r, 66); /* 3 s: the hook has gone 1 m */
  ck_assert_msg(s->rx[3] > 0.5 && !body_still(s, 4), "the chain did not follow the hook: l0 at x = %g",
                s->rx[3]);
  /* and holds to it: l0's top end at the hook */
  double R[9];
  vs_quat_to_mat(&s->rq[4], R);
  double gap2 = 0;
  for (int k = 0; k < 3; k++) {
    const double d = s->rx[3 + k] + 0.2 * R[3 * k + 1] - s->rx[k];
    gap2 += d * d;
  }
  ck_assert_msg(sqrt(gap2) < 1e-6, "l0 came off the hook by %g m", sqrt(gap2));
  tu_sim_free(&r);
}
END_TEST

/* When every rigid body sleeps the step is skipped (vs_rigid_world_asleep),
 * but not when something can wake them: a particle falling from 9.8 m
 * onto box b (the rigid world asleep from 0.5 s while it falls) lands at
 * 1.41 s and pushes it awake; a kinematic paddle at rest until 2 s, then at
 * 2 m/s, wakes box a when it reaches it (3.35 s) and carries it. */
static const char *const PADDLE =
    "time: {dt: 1/60}\n"
    "world: {colliders: [{plane: {friction: 0.5}}]}\n"
    "bodies:\n"
    "  - rigid: {name: paddle, kinematic: true, size: [0.2, 0.4, 1],\n"
    "            keys: [[0, -3, 0.25, 0], [2, -3, 0.25, 0], [4, 1, 0.25, 0]]}\n"
    "  - rigid: {name: a, size: [0.4, 0.4, 0.4], position: [0, 0.2, 0], mass: 1}\n"
    "  - rigid: {name: b, size: [0.4, 0.4, 0.4], position: [3, 0.2, 0], mass: 1}\n"
    "%s";

START_TEST(sleeping_world_wakes_for_a_shot_and_a_paddle) {
  const char *const scene = PADDLE;
  for (int shot = 1; shot >= 0; shot--) {
    char *y = cu_strf(scene, shot ? "  - particles: {name: shot, positions: [[3, 9.8, 0]], mass: 0.5, "
                                    "radius: 0.05}\n"
                                  : "");
    tu_sim r = tu_sim_new(y);
    vs_state *s = r.s;
    tu_sim_steps(&r, 78); /* 1.3 s: both boxes asleep, the shot in the air */
    ck_assert_msg(body_still(s, 1) && body_still(s, 2) && s->rsleep[2] >= 0.5, "the boxes are awake");
    int woke = 0;
    for (int f = 78; f < 100; f++) {
      tu_sim_steps(&r, 1);
      woke |= !body_still(s, 2);
    }
    if (shot) ck_assert_msg(woke, "the shot landed on box b and did not wake it (y = %g)", s->x[1]);
    if (!shot) {
      ck_assert_msg(!woke, "box b woke with nothing near it");
      tu_sim_steps(&r, 116); /* 3.6 s */
      ck_assert_msg(s->rx[3] > 0.3 && s->rv[3] > 1.9,
                    "the paddle did not wake and push box a: %g m, %g m/s", s->rx[3], s->rv[3]);
    }
    tu_sim_free(&r);
    free(y);
  }
}
END_TEST

/* The wind wakes a box with air drag: asleep on the floor from 0.5 s in
 * still air, it is blown along once the wind rises to 40 m/s at 2 s (a
 * quadratic drag of 0.01/m: 16 m/s^2 against friction's 4.9). */
START_TEST(wind_wakes_a_box_with_air_drag) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "world: {wind_keys: [[0, 0, 0, 0], [2, 0, 0, 0], [2.1, 40, 0, 0]],\n"
      "        colliders: [{plane: {friction: 0.5}}]}\n"
      "bodies:\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0, 0.2, 0], friction: 0.5,\n"
      "            air_drag: {quadratic: 0.01}}\n");
  vs_state *s = r.s;
  tu_sim_steps(&r, 90); /* 1.5 s */
  ck_assert_msg(body_still(s, 0) && s->rsleep[0] >= 0.5, "the box is awake in still air");
  tu_sim_steps(&r, 90); /* 3 s */
  ck_assert_msg(s->rx[0] > 0.5 && s->rv[0] > 5, "the wind did not blow the box along: %g m, %g m/s",
                s->rx[0], s->rv[0]);
  tu_sim_free(&r);
}
END_TEST

/* What moves a sleeping body, however little, wakes it: a kinematic
 * platform that starts to rise at 5 mm/s lifts the box asleep on it (its
 * fastest point under the rest speed, it woke nothing before: the box
 * stayed behind, the platform rising through it); and a cloth that falls
 * on a 5 kg box and rests there pushes it every step (particle contacts),
 * so the box stays on the ground instead of sinking a little at every push
 * while asleep (it sank 15 mm). */
START_TEST(slow_pushes_wake_sleeping_bodies) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "bodies:\n"
      "  - rigid: {name: platform, kinematic: true, size: [2, 0.1, 2],\n"
      "            keys: [[0, 0, 0, 0], [1, 0, 0, 0], [5, 0, 0.02, 0]]}\n"
      "  - rigid: {name: box, size: [0.3, 0.3, 0.3], position: [0, 0.2, 0]}\n");
  tu_sim_steps(&r, 54); /* 0.9 s */
  ck_assert_msg(body_still(r.s, 1), "the box on the platform is awake at 0.9 s");
  tu_sim_steps(&r, 246); /* 5 s: the platform has risen 20 mm */
  ck_assert_msg(fabs(r.s->rx[4] - 0.22) < 1e-3, "the box did not ride up with the platform: y = %g",
                r.s->rx[4]);
  tu_sim_free(&r);
  r = tu_sim_new("time: {dt: 1/60, substeps: 2}\n"
                 "solver: {integrator: pbd, iterations: 8}\n"
                 "world: {colliders: [{plane: {friction: 0.6}}]}\n"
                 "bodies:\n"
                 "  - rigid: {name: box, size: [0.6, 0.4, 0.6], position: [0, 0.2, 0], mass: 5}\n"
                 "  - cloth: {name: sheet, origin: [-0.5, 3, -0.5], size: [1, 1], resolution: [16, 16],\n"
                 "           plane: xz, mass: 0.3, radius: 0.02}\n");
  double low = 1.0;
  for (int f = 0; f < 400; f++) {
    tu_sim_steps(&r, 1);
    if (r.s->rx[1] < low) low = r.s->rx[1];
  }
  ck_assert_msg(low > 0.19, "the box under the cloth sank to y = %g", low);
  tu_sim_free(&r);
}
END_TEST

/* Nothing pushes a body in flight, and it never sleeps, however slowly it
 * moves: a box drifting at 5 mm/s and turning at 0.02 rad/s in zero
 * gravity (its fastest point at 6.7 mm/s) keeps going for 3 s.  A body
 * whose velocities are exactly zero has no force on it either, and sleeps. */
START_TEST(drifting_box_never_sleeps) {
  tu_sim r = tu_sim_new("time: {dt: 1/60}\nworld: {gravity: [0, 0, 0]}\nbodies:\n"
                        "  - rigid: {name: box, size: [0.2, 0.2, 0.2], velocity: [0.005, 0, 0],\n"
                        "            angular_velocity: [0, 0.02, 0]}\n");
  tu_sim_steps(&r, 180);
  ck_assert_double_eq_tol(r.s->rx[0], 0.015, 1e-12);
  ck_assert_double_eq(r.s->rv[0], 0.005);
  ck_assert_double_eq_tol(r.s->rw[1], 0.02, 1e-15);
  ck_assert_double_eq(r.s->rsleep[0], 0.0);
  tu_sim_free(&r);
  /* but a ball stopped dead at a wall (50 m/s, no restitution) sleeps */
  r = tu_sim_new("time: {dt: 1/60}\nworld: {gravity: [0, 0, 0],\n"
                 "  colliders: [{box: {min: [1, -2, -2], max: [1.05, 2, 2]}}]}\nbodies:\n"
                 "  - rigid: {name: ball, shape: sphere, radius: 0.1, velocity: [50, 0, 0]}\n");
  tu_sim_steps(&r, 60);
  ck_assert_msg(body_still(r.s, 0) && r.s->rsleep[0] >= 0.5 && fabs(r.s->rx[0] - 0.9) < 1e-9,
                "the stopped ball does not sleep: %g s at rest, x = %g", r.s->rsleep[0], r.s->rx[0]);
  tu_sim_free(&r);
}
END_TEST

/* ---- end to end -------------------------------------------------------------- */

static const char *const SCENE =
    "time: {dt: 1/60, frames: 40, substeps: 2}\n"
    "solver: {integrator: xpbd, iterations: 6, relaxation: jacobi, rigid: {iterations: 3}}\n"
    "output: {fields: [position, velocity]}\n"
    "world: {colliders: [{plane: {point: [0, -1, 0], friction: 0.5}}]}\n"
    "bodies:\n"
    "  - cloth: {name: sheet, origin: [-0.5, 0, -0.5], size: [1, 1], resolution: [12, 12],\n"
    "            plane: xz, mass: 2, radius: 0.04, pin: top-corners}\n"
    "  - rigid: {name: box, size: [0.3, 0.2, 0.3], position: [0, 0.5, 0], mass: 0.5,\n"
    "            rotation: [0, 20, 10]}\n"
    "  - rigid: {name: ball, shape: sphere, radius: 0.1, position: [0.3, 0.9, 0.1]}\n";

START_TEST(bitwise_across_threads_and_resume) {
  char *scene = cu_in_dir("s.yaml");
  cu_write(scene, SCENE);
  cu_run_ok("s.yaml", "t1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("s.yaml", "t3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("t1.h5", "t3.h5");
  cu_run_ok("s.yaml", "r.h5", "--frames", "17", NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "40", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("t1.h5", "r.h5");
  /* a changed rigid key is seen by compare */
  cu_run_ok("s.yaml", "f.h5", "--set", "bodies.box.friction=0.1", NULL, NULL);
  p = cu_vsim(tu_dir(), "compare", "t1.h5", "f.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "/particles/rigid/");
  cu_free(&p);
  free(scene);
}
END_TEST

/* The joints' forest (rigid_tree.c) and its loops, with contacts, a rope
 * attached both ways and jacobi colours: configs/rigid_chain.yaml with a
 * joint closing a loop gives the same bytes on 1 and 3 threads and across
 * --resume. */
START_TEST(joint_forest_bitwise_across_threads_and_resume) {
  char *src = cu_repo_path("configs/rigid_chain.yaml");
  char *text = cu_slurp(src);
  ck_assert_ptr_nonnull(text);
  char *scene = cu_in_dir("chain.yaml");
  char *full = cu_strf("%s  - ball: {a: link7, b: world, at: [2, 2, 0]}\nsolver: {relaxation: jacobi}\n",
                       text);
  cu_write(scene, full);
  cu_run_ok("chain.yaml", "c1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("chain.yaml", "c3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("c1.h5", "c3.h5");
  cu_run_ok("chain.yaml", "cr.h5", "--frames", "97", NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "cr.h5", "--frames", "240", "-q", "--threads", "2",
                      (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("c1.h5", "cr.h5");
  free(full);
  free(scene);
  free(text);
  free(src);
}
END_TEST

/* The joints' geometric stiffness (rigid_stiff.c) is a function of the
 * state, and the factor it enters is made again after a resume: a 30-link
 * chain with a 200:1 end mass (its light links stiff for their substeps
 * from 0.93 s on: the run differs from one without the term from there)
 * has the same bytes on 1 and 3 threads, with jacobi, and across a
 * --resume at 2.8 s. */
START_TEST(stiff_chain_bitwise_across_threads_and_resume) {
  char *y = tu_chain_yaml(30, 200.0, 1, "ball", "solver: {relaxation: jacobi}\n");
  char *at = strstr(y, "frames: 1}"); /* 300 frames (5 s) */
  ck_assert_ptr_nonnull(at);
  *at = '\0';
  char *full = cu_strf("%sframes: 300}%s", y, at + strlen("frames: 1}"));
  char *scene = cu_in_dir("stiff.yaml");
  cu_write(scene, full);
  cu_expect_same_bits("stiff.yaml", "170", "300");
  free(scene);
  free(full);
  free(y);
}
END_TEST

/* relaxation: jacobi on the 20-level pyramid: the rigid contacts' colours
 * run on the team; positions and orientations have the same bytes on 1, 2
 * and 3 threads and across --resume, and differ from gauss-seidel's order. */
START_TEST(jacobi_pyramid_bitwise_across_threads_and_resume) {
  char *pyr = cu_repo_path("configs/rigid_pyramid.yaml");
  const char *J = "solver.relaxation=jacobi";
  cu_proc p = cu_vsim(tu_dir(), "run", pyr, "-o", "j1.h5", "-q", "--frames", "12", "--set", J,
                      "--threads", "1", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  for (int t = 2; t <= 3; t++) {
    char th[16];
    snprintf(th, sizeof th, "%d", t);
    p = cu_vsim(tu_dir(), "run", pyr, "-o", "jt.h5", "-q", "--force", "--frames", "12", "--set", J,
                "--threads", th, (char *)NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    cu_expect_equal("j1.h5", "jt.h5");
  }
  p = cu_vsim(tu_dir(), "run", pyr, "-o", "jr.h5", "-q", "--frames", "5", "--set", J, "--threads",
              "2", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--resume", "jr.h5", "--frames", "12", "-q", "--threads", "3",
              (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("j1.h5", "jr.h5");
  p = cu_vsim(tu_dir(), "run", pyr, "-o", "gs.h5", "-q", "--frames", "12", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "j1.h5", "gs.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "/particles/rigid/");
  cu_free(&p);
  free(pyr);
}
END_TEST

/* Sleeping islands across threads, relaxations and --resume: the times at
 * rest are state (/checkpoint/rsleep), so a run resumed while the stack
 * sleeps and woken by the drop after the resume has the bits of one run. */
START_TEST(sleep_bitwise_across_threads_and_resume) {
  char *scene = cu_in_dir("sleepy.yaml");
  char *y = cu_strf(SLEEPY, "true");
  /* the stack (110 frames: the drop wakes it at 1.2 s), the hanging chain
   * (150: the hook wakes it at 2 s) and the boxes the paddle wakes (240:
   * the whole world asleep, its steps skipped, from 0.5 s to 2 s), resumed
   * at 50 frames, asleep */
  char *paddle = cu_strf(PADDLE, "");
  /* and a chain on hinges with springs that a paddle hits at 4 s (300): the
   * forest's factor, kept while the sleeping chain does not move, is read
   * at the wake, so the rows it was made from must be those of the pose */
  static const char *const hinged =
      "time: {dt: 1/60}\n"
      "bodies:\n"
      "  - rigid: {name: l0, size: [0.06, 0.2, 0.06], position: [0, 1.9, 0]}\n"
      "  - rigid: {name: l1, size: [0.06, 0.2, 0.06], position: [0, 1.7, 0]}\n"
      "  - rigid: {name: l2, size: [0.06, 0.2, 0.06], position: [0, 1.5, 0]}\n"
      "  - rigid: {name: paddle, kinematic: true, size: [0.1, 0.3, 0.3],\n"
      "            keys: [[0, 1.5, 1.6, 0], [4, 1.5, 1.6, 0], [5, -1, 1.6, 0]]}\n"
      "constraints:\n"
      "  - ball: {a: l0, b: world, at: [0, 2, 0]}\n"
      "  - hinge: {a: l0, b: l1, at: [0, 1.8, 0], axis: [0, 0, 1],\n"
      "           spring: {hertz: 2, damping_ratio: 0.3, rest: 0}}\n"
      "  - hinge: {a: l1, b: l2, at: [0, 1.6, 0], axis: [0, 0, 1],\n"
      "           spring: {hertz: 2, damping_ratio: 0.3, rest: 0}}\n";
  const char *const texts[4] = {y, HANGING, paddle, hinged};
  const char *const frames[4] = {"110", "150", "240", "300"};
  static const char *const relax[2] = {"solver.relaxation=gauss-seidel", "solver.relaxation=jacobi"};
  for (int t = 0; t < 4; t++) {
    cu_write(scene, texts[t]);
    for (int r = 0; r < 2; r++) {
      cu_proc p = cu_vsim(tu_dir(), "run", "sleepy.yaml", "-o", "s1.h5", "-q", "--force", "--frames",
                          frames[t], "--set", relax[r], "--threads", "1", (char *)NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      p = cu_vsim(tu_dir(), "run", "sleepy.yaml", "-o", "s3.h5", "-q", "--force", "--frames",
                  frames[t], "--set", relax[r], "--threads", "3", (char *)NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      cu_expect_equal("s1.h5", "s3.h5");
      p = cu_vsim(tu_dir(), "run", "sleepy.yaml", "-o", "sr.h5", "-q", "--force", "--frames", "50",
                  "--set", relax[r], "--threads", "2", (char *)NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      p = cu_vsim(tu_dir(), "run", "--resume", "sr.h5", "--frames", frames[t], "-q", (char *)NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      cu_expect_equal("s1.h5", "sr.h5");
    }
  }
  free(paddle);
  free(y);
  free(scene);
}
END_TEST

START_TEST(info_on_a_rigid_only_file) {
  char *scene = cu_in_dir("r.yaml");
  cu_write(scene, "time: {frames: 5}\nworld: {colliders: [{plane: {}}]}\n"
                  "bodies: [{rigid: {name: cube, position: [0, 2, 0]}}]\n");
  cu_run_ok("r.yaml", "r.h5", NULL, NULL, NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "info", "r.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "/particles/rigid/position/value");
  CU_EXPECT_IN(p.out, "/particles/rigid/orientation/value");
  CU_EXPECT_IN(p.out, "/observables/rigid_contacts/value");
  cu_free(&p);
  cu_expect_equal("r.h5", "r.h5");
  free(scene);
}
END_TEST

/* Each bad rigid input: exit 2, the message with file:line:col, no file. */
START_TEST(bad_rigid_inputs_exit_2_and_leave_nothing) {
  static const struct {
    const char *yaml, *msg;
  } cases[] = {
      {"bodies:\n  - rigid: {orientation: [1, 0, 0, 0], rotation: [0, 0, 30]}\n",
       "bad.yaml:2:50: bodies.0.rigid.rotation: expected either orientation or rotation, got both"},
      {"bodies:\n  - rigid: {mass: 2, density: 3}\n",
       "bad.yaml:2:31: bodies.0.rigid.density: expected either mass or density, got both"},
      {"bodies:\n  - rigid: {shape: cube}\n",
       "bad.yaml:2:20: bodies.0.rigid.shape: expected one of box, sphere, capsule, convex, got cube"},
      {"bodies:\n  - rigid: {size: [1, 0, 1]}\n",
       "bad.yaml:2:23: bodies.0.rigid.size.1: expected a finite number > 0, got 0"},
      {"bodies:\n  - rigid: {shape: sphere, radius: -1}\n",
       "bad.yaml:2:36: bodies.0.rigid.radius: expected a finite number > 0, got -1"},
      {"bodies:\n  - rigid: {orientation: [0, 0, 0, 0]}\n",
       "bad.yaml:2:26: bodies.0.rigid.orientation: expected a quaternion [w, x, y, z] of non-zero "
       "length, got [0, 0, 0, 0]"},
      {"bodies:\n  - rope: {name: a, from: [0, 0, 0], to: [1, 0, 0], segments: 2}\n"
       "  - rigid: {name: a}\n",
       "bad.yaml:3:19: bodies.1: duplicate body name 'a' (body 0 has it too)"},
      {"bodies:\n  - rigid: {pin: [0]}\n", "bad.yaml:2:13: bodies.0.rigid: unknown key 'pin'"},
      {"solver: {rigid: {slop: -1}}\n",
       "bad.yaml:1:24: solver.rigid.slop: expected a finite number >= 0, got -1"},
      {"solver: {rigid: {iterations: 0}}\n", "bad.yaml:1:30: solver.rigid.iterations: expected an integer >= 1, got 0"},
      {"solver: {rigid: 3}\n", "bad.yaml:1:17: solver.rigid: expected a mapping, got 3"},
      {"bodies: [{rigid: {name: crate}}]\nconstraints:\n  - ball: {a: crate, b: lid, at: [0, 0, 0]}\n",
       "bad.yaml:3:25: constraints.0.b: no rigid body named 'lid'"},
      {"bodies: [{rigid: {name: crate}}, {rigid: {name: lid}}]\nconstraints:\n"
       "  - distance: {a: \"crate@[0, 1]\", b: \"lid@[0, 0, 0]\"}\n",
       "bad.yaml:3:19: constraints.0.a: expected a body point \"NAME@[x, y, z]\" on a rigid body"},
      /* a particle and a body point: the message says attach */
      {"bodies: [{rigid: {name: crate}}, {particles: {name: p, positions: [[0, 3, 0]]}}]\n"
       "constraints:\n  - distance: {a: \"p:0\", b: \"crate@[0, 0.2, 0]\"}\n",
       "bad.yaml:3:19: constraints.0.a: a distance joins two particles or two body points; to "
       "hold particle 'p:0' at a point of rigid body 'crate', use attach: {particle: 'p:0', body: "
       "crate, at: [0, 0.2, 0]}"},
      /* a rigid body named as a particle body */
      {"bodies: [{rigid: {name: crate}}, {particles: {name: p, positions: [[0, 3, 0]]}}]\n"
       "constraints:\n  - distance: {a: \"p:0\", b: \"crate:0\"}\n",
       "bad.yaml:3:29: constraints.0.b: 'crate' is a rigid body, which has no particles: a distance "
       "between body points names a point of it as \"crate@[x, y, z]\" (its local frame); ball "
       "and attach take its name"},
      {"bodies: [{rope: {name: r, from: [0, 0, 0], to: [1, 0, 0], segments: 2}}]\nconstraints:\n"
       "  - attach: {particle: 'r:0', body: crate, at: [0, 0, 0]}\n",
       "bad.yaml:3:37: constraints.0.body: no rigid body named 'crate'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cu_expect_refused(i, cases[i].yaml, NULL, cases[i].msg);
  }
}
END_TEST

START_TEST(set_and_validate_reach_the_rigid_keys) {
  char *scene = cu_in_dir("v.yaml");
  cu_write(scene, "bodies: [{rigid: {name: crate}}]\n");
  cu_proc p = cu_vsim(tu_dir(), "validate", "v.yaml", "--set", "bodies.crate.shape=capsule", "--set",
                      "solver.rigid.iterations=7", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "crate      rigid     capsule [0.5, 1, 0], mass 1 kg");
  CU_EXPECT_IN(p.out, "rigid        1 bodies, 0 joints, 0 attached particles; solver.rigid: "
                      "iterations 7, substeps 8");
  cu_free(&p);
  free(scene);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rigid_scene");
  TCase *tc = tcase_create("physics");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, box_slides_down_the_incline_at_the_coulomb_rate);
  tcase_add_test(tc, penetration_measure_sees_every_pair);
  tcase_add_test(tc, ball_rolls_without_slipping);
  tcase_add_test(tc, bounce_reaches_a_quarter_of_the_drop);
  tcase_add_test(tc, particle_rigid_contact_keeps_momentum);
  tcase_add_test(tc, model_rows_follow_the_keys);
  tcase_add_test(tc, particle_contacts_have_coulomb_friction);
  tcase_add_test(tc, ball_joint_chain_keeps_its_joints);
  tcase_add_test(tc, attach_acts_both_ways_and_keeps_momentum);
  tcase_add_test(tc, attach_gap_closes_in_the_rigid_substeps);
  tcase_add_test(tc, sleeping_islands_stop_and_wake_when_touched);
  tcase_add_test(tc, sleeping_bodies_keep_the_narrow_phase_s_contacts);
  tcase_add_test(tc, creeping_box_stays_awake_resting_box_sleeps);
  tcase_add_test(tc, drifting_box_never_sleeps);
  tcase_add_test(tc, slow_pushes_wake_sleeping_bodies);
  tcase_add_test(tc, wind_wakes_a_box_with_air_drag);
  tcase_add_test(tc, sleeping_world_wakes_for_a_shot_and_a_paddle);
  tcase_add_test(tc, hanging_chain_sleeps_and_wakes_motor_never_sleeps);
  suite_add_tcase(s, tc);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 120);
  tcase_add_checked_fixture(cli, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(cli, bitwise_across_threads_and_resume);
  tcase_add_test(cli, jacobi_pyramid_bitwise_across_threads_and_resume);
  tcase_add_test(cli, sleep_bitwise_across_threads_and_resume);
  tcase_add_test(cli, joint_forest_bitwise_across_threads_and_resume);
  tcase_add_test(cli, stiff_chain_bitwise_across_threads_and_resume);
  tcase_add_test(cli, info_on_a_rigid_only_file);
  tcase_add_test(cli, bad_rigid_inputs_exit_2_and_leave_nothing);
  tcase_add_test(cli, set_and_validate_reach_the_rigid_keys);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return tu_run(suite()); }
