/* SPDX-License-Identifier: MIT */
/* test_rigid_kinematic.c: kinematic (scripted) rigid bodies and moving
 * surfaces (docs/physics.md, "Kinematic bodies and moving surfaces"):
 * the pose is the keys' (or the constant velocities') at every frame, bit
 * for bit; a moving platform carries a box, a conveyor belt drives one at
 * its surface speed with the Coulomb acceleration on the way; a paddle
 * pushes a box and a particle without being slowed; a joint to a kinematic
 * body follows it; no contacts between static and kinematic bodies; every
 * bad input exits 2 with file:line:col and leaves nothing; the same bits on
 * 1 and 3 threads (jacobi colours) and across --resume. */
#include <math.h>

#include "runutil.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"
#include "util/detmath.h"
#include "vsim/step.h"

static const double G = 9.81;

/* The pins' key formula, written again: linear between keys, held outside. */
static void lerp_keys(const double *k, int n, double t, double out[3]) {
  if (t <= k[0]) {
    for (int j = 0; j < 3; j++) out[j] = k[1 + j];
    return;
  }
  if (t >= k[4 * (n - 1)]) {
    for (int j = 0; j < 3; j++) out[j] = k[4 * (n - 1) + 1 + j];
    return;
  }
  int i = 0;
  while (k[4 * (i + 1)] <= t) i++;
  const double *a = &k[4 * i], *b = &k[4 * i + 4];
  const double f = (t - a[0]) / (b[0] - a[0]);
  for (int j = 0; j < 3; j++) out[j] = a[1 + j] + f * (b[1 + j] - a[1 + j]);
}

/* |q - p| up to the sign of the quaternion. */
static double qdist(const double *q, const double *p) {
  double d1 = 0, d2 = 0;
  for (int k = 0; k < 4; k++) {
    d1 = fmax(d1, fabs(q[k] - p[k]));
    d2 = fmax(d2, fabs(q[k] + p[k]));
  }
  return fmin(d1, d2);
}

static double vdist(const double *a, const double *b) {
  double d = 0;
  for (int k = 0; k < 3; k++) d = fmax(d, fabs(a[k] - b[k]));
  return d;
}

/* ---- the path ----------------------------------------------------------------- */

/* Keys at exactly representable times (dt = 1/64): the position at every
 * frame is the formula's, bit for bit, held after the last key; the
 * orientation is the slerp about y from 0 to 90 degrees (rotation about
 * one axis: angle proportional to the time) within 1e-12; the recorded
 * velocity is the last substep's, from pose to pose. */
START_TEST(keyed_pose_is_the_keys_at_every_frame) {
  static const double K[] = {0.25, 0, 1, 0, 0.75, 1, 1.5, 0, 1.5, 1, 2, -1};
  tu_sim r = tu_sim_new(
      "time: {dt: 1/64, substeps: 2}\n"
      "bodies:\n"
      "  - rigid: {name: lift, kinematic: true, position: [7, 7, 7],\n"
      "            keys: [[0.25, 0, 1, 0], [0.75, 1, 1.5, 0], [1.5, 1, 2, -1]],\n"
      "            rotation_keys: [[0.25, 0, 0, 0], [1.25, 0, 90, 0]]}\n");
  const vs_model *m = r.m;
  vs_state *s = r.s;
  double want[3];
  lerp_keys(K, 3, 0.0, want);
  ck_assert_msg(memcmp(s->rx, want, sizeof want) == 0, "frame 0 not the first key");
  for (int f = 1; f <= 128; f++) {
    tu_sim_steps(&r, 1);
    const double t = f / 64.0;
    lerp_keys(K, 3, t, want);
    ck_assert_msg(memcmp(s->rx, want, sizeof want) == 0,
                  "frame %d: (%.17g %.17g %.17g) != (%.17g %.17g %.17g)", f, s->rx[0], s->rx[1],
                  s->rx[2], want[0], want[1], want[2]);
    const double u = t <= 0.25 ? 0 : t >= 1.25 ? 1 : (t - 0.25) / 1.0;
    const double half = 0.5 * u * M_PI / 2;
    const double q[4] = {cos(half), 0, sin(half), 0};
    ck_assert_msg(qdist(s->rq, q) < 1e-12, "frame %d: orientation off by %g", f, qdist(s->rq, q));
    /* the last substep's velocities take the body from t - h to t */
    double x0[3], v[3];
    lerp_keys(K, 3, t - m->h, x0);
    for (int k = 0; k < 3; k++) v[k] = (want[k] - x0[k]) / m->h;
    ck_assert_msg(vdist(s->rv, v) < 1e-9, "frame %d: velocity off by %g", f, vdist(s->rv, v));
    const double wy = (t > 0.25 && t <= 1.25) ? M_PI / 2 : 0.0;
    ck_assert_msg(fabs(s->rw[1] - wy) < 1e-9 && fabs(s->rw[0]) < 1e-12 && fabs(s->rw[2]) < 1e-12,
                  "frame %d: w = (%g %g %g), want (0 %g 0)", f, s->rw[0], s->rw[1], s->rw[2], wy);
  }
  tu_sim_free(&r);
}
END_TEST

/* Constant velocities: x0 + v t bit for bit (t = frame dt, as the frame
 * times), the turn exp(w t) q0 within 1e-12, gravity ignored (y exact). */
START_TEST(velocity_motion_is_exact_and_ignores_gravity) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60, substeps: 3}\n"
      "bodies:\n"
      "  - rigid: {name: cart, kinematic: true, position: [1, 2, 3],\n"
      "            velocity: [0.3, 0, -0.7], angular_velocity: [0, 2, 0]}\n"
      "  - rigid: {name: still, kinematic: true, position: [5, 2, 3], rotation: [0, 0, 30]}\n");
  const vs_model *m = r.m;
  vs_state *s = r.s;
  const double q1[4] = {s->rq[4], s->rq[5], s->rq[6], s->rq[7]};
  for (int f = 1; f <= 90; f++) {
    tu_sim_steps(&r, 1);
    const double t = (double)f * m->dt;
    const double want[3] = {1 + t * 0.3, 2 + t * 0.0, 3 + t * -0.7};
    ck_assert_msg(memcmp(s->rx, want, sizeof want) == 0, "frame %d: x off by %g", f,
                  vdist(s->rx, want));
    const double q[4] = {cos(t), 0, sin(t), 0};
    ck_assert_msg(qdist(s->rq, q) < 1e-12, "frame %d: orientation off by %g", f, qdist(s->rq, q));
    const double still[3] = {5, 2, 3};
    ck_assert_msg(
        memcmp(s->rx + 3, still, sizeof still) == 0 && memcmp(s->rq + 4, q1, sizeof q1) == 0,
        "frame %d: the body at rest moved", f);
  }
  ck_assert_msg(fabs(s->rv[0] - 0.3) < 1e-12 && s->rv[1] == 0 && fabs(s->rw[1] - 2) < 1e-9,
                "v = (%g %g %g), w_y = %.17g", s->rv[0], s->rv[1], s->rv[2], s->rw[1]);
  tu_sim_free(&r);
}
END_TEST

/* ---- what it does to others ---------------------------------------------------- */

/* A platform at 1 m/s carries a box resting on it (friction 0.5 each, mu =
 * 0.5): the box catches up at mu g in 0.2 s, then moves with it: its
 * velocity within 1 % of the platform's, its offset on the platform fixed
 * (no slip), its height that of resting. */
START_TEST(platform_carries_a_box_without_slip) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "bodies:\n"
      "  - rigid: {name: platform, kinematic: true, size: [6, 0.2, 2],\n"
      "            velocity: [1, 0, 0], friction: 0.5}\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0, 0.3, 0], friction: 0.5}\n");
  vs_state *s = r.s;
  tu_sim_steps(&r, 30);
  const double off = s->rx[3] - s->rx[0];
  for (int f = 30; f < 120; f++) {
    tu_sim_steps(&r, 1);
    ck_assert_msg(fabs(s->rv[3] - 1.0) < 0.01, "frame %d: box at %g m/s", f, s->rv[3]);
    ck_assert_msg(fabs(s->rx[3] - s->rx[0] - off) < 1e-3, "frame %d: slipped %g m", f,
                  s->rx[3] - s->rx[0] - off);
    ck_assert_msg(fabs(s->rx[4] - 0.3) < 0.01, "frame %d: box at height %g", f, s->rx[4]);
  }
  /* it slipped back while it caught up: (1 m/s)^2 / (2 mu g) behind at most */
  ck_assert_msg(off < 0 && off > -1.0 / (2 * 0.5 * G) * 1.05, "offset %g", off);
  tu_sim_free(&r);
}
END_TEST

/* A conveyor: a fixed box with surface_velocity [2, 0, 0] drives a box on
 * it at mu g (mu = 0.5) to 2 m/s, after which it travels at 2 m/s; turned
 * 90 degrees about y, the same belt drives it along -z (the surface
 * velocity is in the belt's frame); a kinematic belt at rest does the same
 * as a fixed one, bit for bit. */
static void conveyor(const char *belt, int axis, double sign) {
  char *yaml = cu_strf(
      "time: {dt: 1/120}\n"
      "bodies:\n"
      "  - rigid: {name: belt, size: [20, 0.2, 20], friction: 0.5,\n"
      "            surface_velocity: [2, 0, 0], %s}\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0, 0.3, 0], friction: 0.5}\n",
      belt);
  tu_sim r = tu_sim_new(yaml);
  vs_state *s = r.s;
  tu_sim_steps(&r, 6); /* the contact settles */
  const double v0 = sign * s->rv[3 + axis];
  tu_sim_steps(&r, 24);
  const double v1 = sign * s->rv[3 + axis], a = (v1 - v0) / (24.0 / 120.0);
  ck_assert_msg(fabs(a - 0.5 * G) < 0.02 * 0.5 * G, "%s: acceleration %g, mu g = %g", belt, a,
                0.5 * G);
  tu_sim_steps(&r, 60); /* 0.75 s: 2 m/s reached after 0.41 s */
  const double x0 = s->rx[3 + axis];
  for (int f = 0; f < 60; f++) {
    tu_sim_steps(&r, 1);
    ck_assert_msg(fabs(sign * s->rv[3 + axis] - 2.0) < 0.02, "%s: %g m/s", belt, s->rv[3 + axis]);
    const int o = (axis + 2) % 3; /* nothing across */
    ck_assert_msg(fabs(s->rv[3 + o]) < 1e-6, "%s: %g m/s across", belt, s->rv[3 + o]);
  }
  ck_assert_msg(fabs(sign * (s->rx[3 + axis] - x0) - 1.0) < 0.01, "%s: travelled %g m in 0.5 s",
                belt, s->rx[3 + axis] - x0);
  ck_assert_msg(s->rx[0] == 0 && s->rx[1] == 0 && s->rx[2] == 0, "%s: the belt moved", belt);
  tu_sim_free(&r);
  free(yaml);
}

START_TEST(conveyor_drives_a_box_at_its_surface_speed) {
  conveyor("fixed: true", 0, 1.0);
  conveyor("kinematic: true", 0, 1.0);
  conveyor("fixed: true, rotation: [0, 90, 0]", 2, -1.0);
}
END_TEST

/* A kinematic and a fixed belt at rest: the same bits for the box. */
START_TEST(kinematic_at_rest_is_fixed_bit_for_bit) {
  static const char fmt[] =
      "time: {dt: 1/60, frames: 60}\n"
      "bodies:\n"
      "  - rigid: {name: belt, size: [4, 0.2, 4], surface_velocity: [0, 0, 1], %s: true}\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0.1, 0.35, 0], rotation: [3, 0, "
      "2]}\n";
  char *a = cu_strf(fmt, "fixed"), *b = cu_strf(fmt, "kinematic");
  tu_sim ra = tu_sim_new(a), rb = tu_sim_new(b);
  tu_sim_steps(&ra, 60);
  tu_sim_steps(&rb, 60);
  ck_assert(memcmp(ra.s->rx, rb.s->rx, 6 * sizeof(double)) == 0);
  ck_assert(memcmp(ra.s->rq, rb.s->rq, 8 * sizeof(double)) == 0);
  ck_assert_msg(rb.s->rv[5] > 0.5, "the box was not driven: %g", rb.s->rv[5]);
  tu_sim_free(&ra);
  tu_sim_free(&rb);
  free(a);
  free(b);
}
END_TEST

/* A particle on a conveyor is dragged along too (its friction with the
 * body sees the surface's velocity). */
START_TEST(conveyor_drags_a_particle) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60, substeps: 4}\n"
      "bodies:\n"
      "  - rigid: {name: belt, fixed: true, size: [20, 0.2, 4], friction: 0.8,\n"
      "            surface_velocity: [2, 0, 0]}\n"
      "  - particles: {name: p, positions: [[0, 0.15, 0]], radius: 0.05}\n");
  tu_sim_steps(&r, 120);
  double v[3];
  vs_state_velocity(r.m, r.s, v);
  ck_assert_msg(v[0] > 1.0 && v[0] < 2.0 + 1e-9, "particle at %g m/s", v[0]);
  ck_assert_msg(fabs(r.s->x[1] - 0.15) < 0.01, "particle at height %g", r.s->x[1]);
  tu_sim_free(&r);
}
END_TEST

/* A paddle on keys at 2 m/s (no gravity) meets a 1 kg box and a particle:
 * both are pushed ahead of it at its speed or faster, and the paddle is
 * exactly on its keys at every frame (never slowed). */
START_TEST(paddle_pushes_a_box_and_a_particle_unslowed) {
  static const double K[] = {0, -1, 0, 0, 2, 3, 0, 0};
  tu_sim r = tu_sim_new(
      "time: {dt: 1/64, substeps: 2}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - rigid: {name: paddle, kinematic: true, size: [0.2, 1, 3],\n"
      "            keys: [[0, -1, 0, 0], [2, 3, 0, 0]]}\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0.2, 0, -0.6], mass: 1}\n"
      "  - particles: {name: p, positions: [[0.2, 0, 0.8]], radius: 0.1, mass: 0.2}\n");
  vs_state *s = r.s;
  for (int f = 1; f <= 96; f++) {
    tu_sim_steps(&r, 1);
    double want[3];
    lerp_keys(K, 2, f / 64.0, want);
    ck_assert_msg(memcmp(s->rx, want, sizeof want) == 0, "frame %d: paddle off its keys by %g", f,
                  vdist(s->rx, want));
    ck_assert_msg(s->rv[0] == 2.0 || fabs(s->rv[0] - 2.0) < 1e-12, "frame %d: paddle at %g m/s", f,
                  s->rv[0]);
    /* nothing passes through it */
    ck_assert_msg(s->rx[3] - s->rx[0] > 0.3 - 0.01, "frame %d: box at %g behind %g", f, s->rx[3],
                  s->rx[0]);
    /* the particle meets the paddle's pose at its substep's start (the
     * coupling runs before the rigid step): one substep's travel behind */
    ck_assert_msg(s->x[0] - s->rx[0] > 0.2 - 2.0 / 128 - 0.001,
                  "frame %d: particle at %g behind %g", f, s->x[0], s->rx[0]);
  }
  /* 1.5 s: the paddle at 2 m (started at -1), both pushed past their start */
  ck_assert_msg(s->rv[3] >= 2.0 - 0.02, "box at %g m/s", s->rv[3]);
  ck_assert_msg(s->rx[3] > 2.0 + 0.3 - 0.01, "box at %g", s->rx[3]);
  double v[3];
  vs_state_velocity(r.m, s, v);
  ck_assert_msg(v[0] >= 2.0 - 0.02, "particle at %g m/s", v[0]);
  tu_sim_free(&r);
}
END_TEST

/* A box hanging by a ball joint from a kinematic hook moving at 1 m/s is
 * carried: the joint stays closed and the box keeps up on average. */
START_TEST(joint_to_a_kinematic_body_follows_it) {
  for (int loop = 0; loop < 2; loop++) {
    /* loop 0: the joint is the forest's (rigid_tree.c: the hook's velocity on
     * its right-hand side); loop 1: a distance joint between the same two
     * bodies closes a loop, so both are sequential rows */
    char *yaml = cu_strf(
        "time: {dt: 1/60}\n"
        "bodies:\n"
        "  - rigid: {name: hook, kinematic: true, size: [0.2, 0.2, 0.2], position: [0, 2, 0],\n"
        "            velocity: [1, 0, 0]}\n"
        "  - rigid: {name: box, size: [0.2, 0.2, 0.2], position: [0, 1, 0]}\n"
        "constraints:\n"
        "  - ball: {a: box, b: hook, at: [0, 2, 0]}\n%s",
        loop ? "  - distance: {a: \"box@[0, 0, 0]\", b: \"hook@[0, 0, 0]\", rest: 1}\n" : "");
    tu_sim r = tu_sim_new(yaml);
    vs_state *s = r.s;
    double x0 = 0;
    for (int f = 1; f <= 120; f++) {
      tu_sim_steps(&r, 1);
      if (f == 60) x0 = s->rx[3];
      double R[9], a[3], p[3] = {0, 1, 0};
      vs_quat_to_mat(s->rq + 4, R);
      vs_mat3_mul(R, p, a);
      double d[3] = {s->rx[3] + a[0] - s->rx[0], s->rx[4] + a[1] - s->rx[1],
                     s->rx[5] + a[2] - s->rx[2]};
      ck_assert_msg(vs_len3(d) < 2e-3, "loop %d frame %d: joint open by %g", loop, f, vs_len3(d));
      ck_assert_msg(s->rx[0] == (double)f * r.m->dt, "the hook left its path");
    }
    const double mean = (s->rx[3] - x0) / 1.0;
    ck_assert_msg(fabs(mean - 1.0) < 0.05, "loop %d: box at %g m/s on average", loop, mean);
    tu_sim_free(&r);
    free(yaml);
  }
}
END_TEST

/* Kinematic-kinematic and kinematic-fixed pairs make no contacts, even
 * overlapping; kinematic-dynamic do. */
START_TEST(no_contacts_between_static_and_kinematic_bodies) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "world: {gravity: [0, 0, 0], colliders: [{plane: {point: [0, 0, 0]}}]}\n"
      "bodies:\n"
      "  - rigid: {name: a, kinematic: true, position: [0, 0, 0], velocity: [0.1, 0, 0]}\n"
      "  - rigid: {name: b, kinematic: true, position: [0.5, 0, 0]}\n"
      "  - rigid: {name: c, fixed: true, position: [0, 0.5, 0]}\n");
  vs_observables o;
  for (int f = 0; f < 10; f++) {
    tu_sim_steps(&r, 1);
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_int_eq(o.rigid_contacts, 0);
  }
  tu_sim_free(&r);
  r = tu_sim_new(
      "time: {dt: 1/60}\nworld: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - rigid: {name: a, kinematic: true, position: [0, 0, 0]}\n"
      "  - rigid: {name: d, position: [0.9, 0, 0]}\n");
  tu_sim_steps(&r, 1);
  vs_observe(r.m, r.s, &o, NULL);
  ck_assert_int_gt(o.rigid_contacts, 0);
  ck_assert_msg(r.s->rx[3] > 0.9 && r.s->rx[0] == 0, "d at %g, a at %g", r.s->rx[3], r.s->rx[0]);
  tu_sim_free(&r);
}
END_TEST

/* vs_atan2 (the slerp's angle) against the C library's long double atan2l:
 * within 3 ulp over every quadrant, exact at the axes. */
START_TEST(atan2_is_accurate) {
  uint32_t rs = 7;
  double worst = 0;
  for (int i = 0; i < 200000; i++) {
    rs = rs * 1103515245u + 12345u;
    double y = ((rs >> 8) / 16777216.0 - 0.5) * pow(10, (int)(rs % 7) - 3);
    rs = rs * 1103515245u + 12345u;
    double x = ((rs >> 8) / 16777216.0 - 0.5) * pow(10, (int)(rs % 5) - 2);
    const double got = vs_atan2(y, x);
    const long double want = atan2l((long double)y, (long double)x);
    const double ulp = nextafter(fabs((double)want), INFINITY) - fabs((double)want);
    const double e = (double)fabsl((long double)got - want) / ulp;
    worst = e > worst ? e : worst;
  }
  ck_assert_msg(worst <= 3.0, "worst %g ulp", worst);
  ck_assert(vs_atan2(0, 1) == 0 && vs_atan2(0, 0) == 0);
  ck_assert(fabs(vs_atan2(1, 0) - M_PI / 2) <= 2.3e-16 &&
            fabs(vs_atan2(-1, -1) + 0.75 * M_PI) < 5e-16);
}
END_TEST

/* ---- end to end ------------------------------------------------------------------ */

/* solver.rigid.sleep: a box asleep on the floor is woken by a kinematic
 * paddle that reaches it (a moving body of infinite mass is not a fixed
 * one), and a box on a moving belt never falls asleep. */
START_TEST(kinematic_and_belts_wake_sleeping_bodies) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "solver: {rigid: {sleep: true}}\n"
      "world: {colliders: [{plane: {friction: 0.5}}]}\n"
      "bodies:\n"
      "  - rigid: {name: paddle, kinematic: true, size: [0.2, 0.4, 1],\n"
      "            keys: [[0, -3, 0.25, 0], [2, -3, 0.25, 0], [4, 1, 0.25, 0]]}\n"
      "  - rigid: {name: box, size: [0.4, 0.4, 0.4], position: [0, 0.2, 0], mass: 1}\n"
      "  - rigid: {name: belt, fixed: true, size: [2, 0.2, 1], position: [0, 0.1, 3],\n"
      "            surface_velocity: [0.5, 0, 0]}\n"
      "  - rigid: {name: rider, size: [0.3, 0.3, 0.3], position: [-0.6, 0.35, 3], mass: 1}\n");
  vs_state *s = r.s;
  tu_sim_steps(&r, 90); /* 1.5 s: the box has rested 1.5 s and sleeps */
  const double x0 = s->rx[3];
  ck_assert_msg(s->rsleep != NULL && s->rsleep[1] >= 0.5, "the box has not slept (%g s at rest)",
                s->rsleep ? s->rsleep[1] : -1.0);
  ck_assert_msg(s->rv[9] > 0.4, "the rider on the belt stopped (%g m/s)", s->rv[9]);
  tu_sim_steps(&r, 120); /* 3.5 s: the paddle, at 2 m/s from 2 s, is at x = 0 */
  ck_assert_msg(s->rx[3] > x0 + 0.29 && s->rv[3] > 1.9,
                "the paddle did not wake the box: %g -> %g at %g m/s", x0, s->rx[3], s->rv[3]);
  ck_assert_msg(s->rx[3] - s->rx[0] > 0.3 - 0.01, "the paddle passed through the box");
  tu_sim_free(&r);
}
END_TEST

/* A paddle turning on keys, a platform, a conveyor, boxes and a cloth with
 * radius on them, jacobi colours. */
static const char *const SCENE =
    "time: {dt: 1/60, frames: 40, substeps: 2}\n"
    "solver: {iterations: 4, relaxation: jacobi, rigid: {iterations: 3}}\n"
    "output: {fields: [position, velocity]}\n"
    "bodies:\n"
    "  - rigid: {name: belt, fixed: true, size: [3, 0.2, 1], surface_velocity: [1.5, 0, 0]}\n"
    "  - rigid: {name: platform, kinematic: true, size: [1, 0.2, 1], position: [2.5, -0.2, 0],\n"
    "            velocity: [0.5, 0.1, 0]}\n"
    "  - rigid: {name: paddle, kinematic: true, size: [0.1, 0.5, 1], position: [-1.4, 0.4, 0],\n"
    "            keys: [[0, -1.4, 0.4, 0], [0.5, -0.6, 0.4, 0]], rotation_keys: [[0, 0, 0, 0], "
    "[0.6, 0, 40, 10]]}\n"
    "  - rigid: {name: box1, size: [0.3, 0.3, 0.3], position: [-1, 0.25, 0]}\n"
    "  - rigid: {name: box2, size: [0.3, 0.3, 0.3], position: [0, 0.25, 0.2], rotation: [0, 30, "
    "0]}\n"
    "  - rigid: {name: box3, shape: sphere, radius: 0.15, position: [2.5, 0.1, 0]}\n"
    "  - cloth: {name: sheet, origin: [0.3, 0.5, -0.3], size: [0.6, 0.6], resolution: [6, 6],\n"
    "            plane: xz, mass: 0.2, radius: 0.04}\n";

START_TEST(bitwise_across_threads_and_resume) {
  /* and 40 boxes on a kinematic tray whose surface moves too: 40 manifolds
   * that share no moving body, one colour solved on 3 threads */
  char *text = cu_strf(
      "%s  - rigid: {name: tray, kinematic: true, size: [2, 0.1, 1.2], position: [0, -1, 0],\n"
      "            velocity: [0.3, 0, 0], surface_velocity: [0, 0, 0.5]}\n",
      SCENE);
  for (int i = 0; i < 40; i++) {
    char *more = cu_strf(
        "%s  - rigid: {size: [0.12, 0.12, 0.12], position: [%g, -0.885, %g], rotation: [0, %d, "
        "0]}\n",
        text, -0.7 + 0.2 * (i % 8), -0.4 + 0.2 * (i / 8), 7 * i);
    free(text);
    text = more;
  }
  char *scene = cu_in_dir("k.yaml");
  cu_write(scene, text);
  free(text);
  cu_run_ok("k.yaml", "t1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("k.yaml", "t3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("t1.h5", "t3.h5");
  cu_run_ok("k.yaml", "r.h5", "--frames", "17", "--threads", "2");
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "40", "-q", "--threads", "3",
                      (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("t1.h5", "r.h5");
  /* the belt's speed is seen (--set reaches the key) */
  cu_run_ok("k.yaml", "s.h5", "--set", "bodies.belt.surface_velocity=[1, 0, 0]", NULL, NULL);
  p = cu_vsim(tu_dir(), "compare", "t1.h5", "s.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "/particles/rigid/");
  cu_free(&p);
  free(scene);
}
END_TEST

/* Each bad input: exit 2, the message with file:line:col, no file. */
START_TEST(bad_kinematic_inputs_exit_2_and_leave_nothing) {
  static const struct {
    const char *yaml, *set, *msg;
  } cases[] = {
      {"bodies:\n  - rigid: {fixed: true, kinematic: true}\n", NULL,
       "bad.yaml:2:37: bodies.0.rigid.kinematic: expected either fixed or kinematic, got both"},
      {"bodies:\n  - rigid: {name: b, fixed: true}\n", "bodies.b.kinematic=true",
       "--set bodies.b.kinematic=true: bodies.0.rigid.kinematic: expected either fixed or "
       "kinematic, got both"},
      {"bodies:\n  - rigid: {keys: [[0, 0, 0, 0]]}\n", NULL,
       "bad.yaml:2:19: bodies.0.rigid.keys: expected kinematic: true with keys"},
      {"bodies:\n  - rigid: {rotation_keys: [[0, 0, 0, 0]]}\n", NULL,
       "bad.yaml:2:28: bodies.0.rigid.rotation_keys: expected kinematic: true with rotation_keys"},
      {"bodies:\n  - rigid: {kinematic: true, keys: [[0, 0, 0, 0], [0, 1, 0, 0]]}\n", NULL,
       "bad.yaml:2:52: bodies.0.rigid.keys.1.0: expected a time after the previous key's 0, got 0"},
      {"bodies:\n  - rigid: {kinematic: true, keys: []}\n", NULL,
       "bad.yaml:2:36: bodies.0.rigid.keys: expected a non-empty list of [t, x, y, z], got an "
       "empty list"},
      {"bodies:\n  - rigid: {kinematic: true, keys: [[0, 1, 2]]}\n", NULL,
       "bad.yaml:2:37: bodies.0.rigid.keys.0: expected a list of 4 numbers, got 3 items"},
      {"bodies:\n  - rigid: {kinematic: true, rotation_keys: [[0, 1, 2, x]]}\n", NULL,
       "bad.yaml:2:56: bodies.0.rigid.rotation_keys.0.3: expected a finite number, got x"},
      {"bodies:\n  - rigid: {kinematic: true, keys: [[0, 0, 0, 0]], velocity: [1, 0, 0]}\n", NULL,
       "bad.yaml:2:62: bodies.0.rigid.velocity: expected either keys or velocity, got both"},
      {"bodies:\n  - rigid: {kinematic: true, rotation_keys: [[0, 0, 0, 0]], angular_velocity: [1, "
       "0, 0]}\n",
       NULL,
       "bad.yaml:2:79: bodies.0.rigid.angular_velocity: expected either rotation_keys or "
       "angular_velocity, got both"},
      {"bodies:\n  - rigid: {kinematic: true, rotation: [0, 1, 0], rotation_keys: [[0, 0, 0, "
       "0]]}\n",
       NULL,
       "bad.yaml:2:40: bodies.0.rigid.rotation: expected either rotation_keys or rotation, got "
       "both"},
      {"bodies:\n  - rigid: {surface_velocity: [1, 0]}\n", NULL,
       "bad.yaml:2:31: bodies.0.rigid.surface_velocity: expected a list of 3 numbers, got 2 items"},
      {"bodies:\n  - rigid: {kinematic: maybe}\n", NULL,
       "bad.yaml:2:24: bodies.0.rigid.kinematic: expected true or false, got maybe"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cu_expect_refused(i, cases[i].yaml, cases[i].set, cases[i].msg);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rigid_kinematic");
  TCase *tc = tcase_create("physics");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, keyed_pose_is_the_keys_at_every_frame);
  tcase_add_test(tc, kinematic_and_belts_wake_sleeping_bodies);
  tcase_add_test(tc, velocity_motion_is_exact_and_ignores_gravity);
  tcase_add_test(tc, platform_carries_a_box_without_slip);
  tcase_add_test(tc, conveyor_drives_a_box_at_its_surface_speed);
  tcase_add_test(tc, kinematic_at_rest_is_fixed_bit_for_bit);
  tcase_add_test(tc, conveyor_drags_a_particle);
  tcase_add_test(tc, paddle_pushes_a_box_and_a_particle_unslowed);
  tcase_add_test(tc, joint_to_a_kinematic_body_follows_it);
  tcase_add_test(tc, no_contacts_between_static_and_kinematic_bodies);
  tcase_add_test(tc, atan2_is_accurate);
  suite_add_tcase(s, tc);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 120);
  tcase_add_checked_fixture(cli, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(cli, bitwise_across_threads_and_resume);
  tcase_add_test(cli, bad_kinematic_inputs_exit_2_and_leave_nothing);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) {
  return tu_run(suite());
}
