/* SPDX-License-Identifier: MIT */
/* test_rigid_joints.c: the weld, hinge and slider joints through the scene
 * keys against analytic answers -- the compound pendulum's period on a
 * hinge, the hinge axis held, a motor that holds its speed under a load
 * below its torque and stalls above it, a limit that stops the hinge at its
 * angle, a slider on an incline at g sin(theta), a weld that makes two boxes
 * one (angular momentum and energy of the combined body) -- and end to end:
 * the same bits on 1 and 3 threads with jacobi colours and across --resume,
 * and every bad input of the new keys: exit 2, file:line:col, no output. */
#include <math.h>
#include <string.h>

#include "runutil.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"
#include "vsim/step.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double G = 9.81;

/* Body b's local vector a in the world (rotated only). */
static void turn(const vs_state *s, int b, const double a[3], double out[3]) {
  double R[9];
  vs_quat_to_mat(&s->rq[4 * b], R);
  vs_mat3_mul(R, a, out);
}

/* Angle of body b about z (its local -y axis from straight down), rad. */
static double swing(const vs_state *s, int b) {
  const double down[3] = {0, -1, 0};
  double d[3];
  turn(s, b, down, d);
  return atan2(d[0], -d[1]);
}

/* ---- hinge ------------------------------------------------------------------- */

/* A rod (0.05 x 1 x 0.05 m, 1 kg) on a hinge about z at its top end,
 * released at 5 degrees: the compound pendulum's period
 * T = 2 pi sqrt(I_pivot / (m g d)) (I_pivot = m (L^2 + w^2) / 12 + m d^2,
 * d = L / 2), times 1 + theta0^2 / 16 for the amplitude, within 1 %; and
 * the axis and the pivot held: the rod's z axis stays parallel to the
 * world's within 1e-6 rad, the pivot within 1e-6 m. */
START_TEST(hinge_pendulum_period_and_axis) {
  const double th = 5.0 * M_PI / 180.0, L = 1.0, wd = 0.05;
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/240}\n"
           "bodies: [{rigid: {name: rod, size: [%g, %g, %g], position: [%.17g, %.17g, 0],\n"
           "                  rotation: [0, 0, 5], mass: 1}}]\n"
           "constraints:\n  - hinge: {a: rod, b: world, at: [0, 2, 0], axis: [0, 0, 1]}\n",
           wd, L, wd, 0.5 * L * sin(th), 2.0 - 0.5 * L * cos(th));
  tu_sim r = tu_sim_new(y);
  ck_assert_int_eq(r.m->n_rjoints, 1);
  ck_assert_int_eq(r.m->priv->rigid->joint_kind[0], VS_JOINT_HINGE);
  const double I = (L * L + wd * wd) / 12.0 + 0.25 * L * L, d = 0.5 * L;
  const double T = 2.0 * M_PI * sqrt(I / (G * d)) * (1.0 + th * th / 16.0);
  const double h = 1.0 / 240.0;
  double prev = swing(r.s, 0), t_first = -1, t_last = -1, worst_axis = 0, worst_pivot = 0;
  int crossings = 0;
  const double z[3] = {0, 0, 1}, top[3] = {0, 0.5 * L, 0};
  for (int f = 1; f <= (int)(6.0 / h); f++) {
    tu_sim_steps(&r, 1);
    double a = swing(r.s, 0);
    if ((prev > 0) != (a > 0)) { /* a zero crossing, linearly interpolated */
      double t = (f - 1 + prev / (prev - a)) * h;
      if (crossings == 0) t_first = t;
      t_last = t;
      crossings++;
    }
    prev = a;
    double zz[3], p[3];
    turn(r.s, 0, z, zz);
    worst_axis = fmax(worst_axis, acos(fmin(1.0, zz[2])));
    turn(r.s, 0, top, p);
    const double pivot[3] = {0, 2, 0};
    for (int k = 0; k < 3; k++) p[k] += r.s->rx[k] - pivot[k];
    worst_pivot = fmax(worst_pivot, vs_len3(p));
    vs_observables o; /* the observables say the same */
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_double_le(fabs(o.joint_error_max - vs_len3(p)), 1e-12);
    ck_assert_double_le(o.joint_angle_error_max, 1e-6);
  }
  ck_assert_int_ge(crossings, 5);
  const double period = 2.0 * (t_last - t_first) / (crossings - 1);
  ck_assert_msg(fabs(period - T) < 0.01 * T, "period %g s, want %g s", period, T);
  ck_assert_msg(worst_axis < 1e-6, "axis turned away by %g rad", worst_axis);
  ck_assert_msg(worst_pivot < 1e-6, "pivot opened by %g m", worst_pivot);
  tu_sim_free(&r);
}
END_TEST

/* An arm (0.6 x 0.04 x 0.04 m, 2 kg) on a hinge about z at its left end,
 * horizontal: gravity loads the hinge with m g d = 5.886 N m (cos of the
 * angle stays > 0.995 in the test).  a is the arm, b the world, so the
 * joint angle's rate is -w_z: a motor of speed -0.2 lifts the arm at 0.2 rad/s.
 * With max_torque 1.5 m g d the arm turns at 0.2 rad/s within 1 % after
 * 0.25 s; with 0.5 m g d it cannot hold it and falls (w_z < 0). */
static double motor_arm(double max_torque) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/120}\n"
           "bodies: [{rigid: {name: arm, size: [0.6, 0.04, 0.04], position: [0.3, 1, 0], mass: 2}}]\n"
           "constraints:\n  - hinge: {a: arm, b: world, at: [0, 1, 0], axis: [0, 0, 1],\n"
           "             motor: {speed: -0.2, max_torque: %.17g}}\n",
           max_torque);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 30);
  double w = r.s->rw[2];
  tu_sim_free(&r);
  return w;
}

START_TEST(hinge_motor_holds_its_speed_below_its_torque) {
  const double load = 2.0 * G * 0.3;
  double w = motor_arm(1.5 * load);
  ck_assert_msg(fabs(w - 0.2) < 0.01 * 0.2, "w = %g rad/s, want 0.2", w);
  w = motor_arm(0.5 * load);
  ck_assert_msg(w < 0, "a motor below its load still turned at %g rad/s", w);
}
END_TEST

/* The rod released from horizontal on a hinge with limits [-40, 40]
 * degrees (the rod's angle is minus the joint's: b is the world): it
 * falls, stops at -40 degrees about z and never passes it by more than
 * 0.5 degrees, nor bounces back more than 0.5 degrees once it got there
 * (the limit is speculative: no restitution). */
START_TEST(hinge_limit_stops_at_its_angle) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "bodies: [{rigid: {name: rod, size: [1, 0.05, 0.05], position: [0.5, 2, 0], mass: 1}}]\n"
      "constraints:\n  - hinge: {a: rod, b: world, at: [0, 2, 0], axis: [0, 0, 1],\n"
      "             limits: [-40, 40]}\n");
  const double x[3] = {1, 0, 0};
  double lowest = 0, last = 0, back = -90;
  int reached = 0;
  for (int f = 0; f < 180; f++) {
    tu_sim_steps(&r, 1);
    double d[3];
    turn(r.s, 0, x, d);
    last = atan2(d[1], d[0]) * 180.0 / M_PI;
    lowest = fmin(lowest, last);
    reached |= last < -39.5;
    if (reached) back = fmax(back, last);
  }
  ck_assert_msg(lowest > -40.5, "passed the limit to %g degrees", lowest);
  ck_assert_msg(reached && back < -39.5, "bounced back to %g degrees", back);
  ck_assert_msg(fabs(last + 40.0) < 0.5, "rests at %g degrees, want -40", last);
  /* the observables: within the limit now; turned 5 degrees further (the
   * joint angle is minus the rod's), 5 degrees past it */
  vs_observables o;
  vs_observe(r.m, r.s, &o, NULL);
  ck_assert_double_le(o.joint_angle_error_max, 0.5 * M_PI / 180.0);
  const double t[3] = {0, 0, -5.0 * M_PI / 180.0};
  vs_quat_integrate(&r.s->rq[0], t, 1.0);
  vs_observe(r.m, r.s, &o, NULL);
  const double want = (-last + 5.0 - 40.0) * M_PI / 180.0;
  ck_assert_msg(fabs(o.joint_angle_error_max - want) < 1e-9, "angle error %g rad, want %g",
                o.joint_angle_error_max, want);
  tu_sim_free(&r);
}
END_TEST

/* ---- ball: cone and twist ------------------------------------------------- */

/* A rod (0.05 x 1 x 0.05 m, 1 kg) hung by a ball at its top end from the
 * world (its twist: the swing-twist decomposition of the rod's orientation
 * about its length y; its swing: the angle of its length from straight
 * down), spun and run for `frames` frames: the largest swing and |twist|
 * seen at a frame's end.  extra: more of the ball's keys (its axis and
 * limits), or "". */
static void ball_run(const char *gravity, const char *spin, const char *extra, int frames,
                     double *sw, double *tw) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/60}\n"
           "world: {gravity: [%s]}\n"
           "bodies: [{rigid: {name: rod, size: [0.05, 1, 0.05], position: [0, 1.5, 0],\n"
           "                  angular_velocity: [%s]}}]\n"
           "constraints:\n  - ball: {a: rod, b: world, at: [0, 2, 0]%s%s}\n",
           gravity, spin, extra[0] ? ", " : "", extra);
  tu_sim r = tu_sim_new(y);
  *sw = *tw = 0;
  for (int f = 0; f < frames; f++) {
    tu_sim_steps(&r, 1);
    const double *q = &r.s->rq[0];
    double down[3] = {0, -1, 0}, d[3];
    turn(r.s, 0, down, d);
    *sw = fmax(*sw, acos(fmin(1.0, -d[1])) * 180.0 / M_PI);
    double t = fabs(2.0 * atan2(q[2], q[0])) * 180.0 / M_PI;
    *tw = fmax(*tw, t > 180 ? 360 - t : t);
  }
  tu_sim_free(&r);
}

/* A rod (0.05 x 1 x 0.05 m) hung from the world by a ball at its top end,
 * kicked sideways (4 rad/s about x and z) and spun about its length (6
 * rad/s): with cone 20 and twist [-30, 30] degrees about the rod's axis its
 * swing from straight down stays within 20.5 degrees and its turn about its
 * length within 30.5; without them it swings out past 40 and turns past 90. */
static void ball_limits(int limited, double *swing_max, double *twist_max) {
  ball_run("0, -9.81, 0", "8, 6, 8", limited ? "axis: [0, -1, 0], cone: 20, twist: [-30, 30]" : "",
           120, swing_max, twist_max);
}

START_TEST(ball_cone_and_twist_limits) {
  double sw, tw;
  ball_limits(1, &sw, &tw);
  ck_assert_msg(sw < 20.5, "swung out to %g degrees past a cone of 20", sw);
  ck_assert_msg(tw < 30.5, "turned %g degrees past a twist of 30", tw);
  ck_assert_msg(sw > 19.0 && tw > 29.0, "never reached the limits (%g, %g)", sw, tw);
  ball_limits(0, &sw, &tw);
  ck_assert_msg(sw > 40 && tw > 90, "a free ball swung %g and turned %g degrees only", sw, tw);
}
END_TEST

/* Cone 30 degrees, the rod kicked out at 20 rad/s and pulled beyond the
 * cone by a sideways gravity of 3 g: it reaches the cone and never passes
 * it by 0.5 degrees (the limit is speculative, then held by the position
 * pass). */
START_TEST(ball_cone_holds_when_driven_hard) {
  double sw, tw;
  ball_run("30, 0, 0", "-20, 5, 0", "axis: [0, -1, 0], cone: 30", 180, &sw, &tw);
  ck_assert_msg(sw > 29.5 && sw < 30.5, "largest swing %g degrees, the cone is 30", sw);
}
END_TEST

/* Twist [-30, 30] degrees, the rod spun about its length at 40 rad/s
 * (a turn of 30 degrees in 0.8 frames) under gravity: it reaches the limit
 * and never passes it by 0.5 degrees. */
START_TEST(ball_twist_holds_a_spinning_body) {
  double sw, tw;
  ball_run("0, -9.81, 0", "0, 40, 0", "axis: [0, -1, 0], twist: [-30, 30]", 180, &sw, &tw);
  ck_assert_msg(tw > 29.5 && tw < 30.5, "largest twist %g degrees, the limit is 30", tw);
}
END_TEST

/* Both at once: cone 80 (a shoulder's) and twist [-30, 30], the rod
 * pressed against the cone by a sideways gravity of 3 g, kicked along its
 * rim and spun about its length.  At the full cone a swing that circles
 * the cone turns the twist by (1 - cos 80) / cos 80 = 4.8 times its rate
 * about a's axis: the twist's row is its true rate, (wb - wa) . (ua + ub) /
 * (1 + ua . ub), so it sees that turn (a row about a's axis alone, pushed
 * back by a fifth of the error per substep, let this rod pass its twist by
 * 3.1 degrees). */
START_TEST(ball_cone_and_twist_hold_together_at_full_cone) {
  double sw, tw;
  ball_run("30, 0, 0", "-20, 5, 0", "axis: [0, -1, 0], cone: 80, twist: [-30, 30]", 180, &sw, &tw);
  ck_assert_msg(sw > 79.5 && sw < 80.5, "largest swing %g degrees, the cone is 80", sw);
  ck_assert_msg(tw > 29.5 && tw < 30.5, "largest twist %g degrees, the limit is 30", tw);
}
END_TEST

/* ---- slider ------------------------------------------------------------------ */

/* A box on a slider along an axis 30 degrees below horizontal: it speeds
 * up along the axis at g sin 30 within 1 % and stays on it (1e-6 m). */
START_TEST(slider_on_an_incline_accelerates_at_g_sin_theta) {
  const double th = 30.0 * M_PI / 180.0;
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\n"
      "bodies: [{rigid: {name: car, size: [0.2, 0.1, 0.1], position: [0, 1, 0], mass: 3,\n"
      "                  rotation: [0, 0, -30]}}]\n"
      "constraints:\n  - slider: {a: car, b: world, at: [0, 1, 0],\n"
      "             axis: [0.8660254037844386, -0.5, 0]}\n");
  tu_sim_steps(&r, 60);
  const double u[3] = {cos(th), -sin(th), 0};
  double v = vs_dot3(&r.s->rv[0], u), want = G * sin(th) * 1.0;
  ck_assert_msg(fabs(v - want) < 0.01 * want, "v = %g m/s after 1 s, want %g", v, want);
  double p[3] = {r.s->rx[0], r.s->rx[1] - 1.0, r.s->rx[2]}, along = vs_dot3(p, u);
  for (int k = 0; k < 3; k++) p[k] -= along * u[k];
  ck_assert_msg(vs_len3(p) < 1e-6, "left its axis by %g m", vs_len3(p));
  ck_assert_double_lt(fabs(r.s->rw[2]), 1e-9); /* and does not turn */
  tu_sim_free(&r);
}
END_TEST

/* A slider along y with a motor lifting at 0.5 m/s: a force above the
 * weight holds the speed (1 %), one below lets it fall; limits [-0.2,
 * 0.3] m stop the lift at 0.3 m (within 1 mm). */
START_TEST(slider_motor_and_limits) {
  for (int c = 0; c < 2; c++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 1/60}\n"
             "bodies: [{rigid: {name: lift, size: [0.3, 0.1, 0.3], position: [0, 1, 0], mass: 2}}]\n"
             "constraints:\n  - slider: {a: lift, b: world, at: [0, 1, 0], axis: [0, 1, 0],\n"
             "             motor: {speed: -0.5, max_force: %g}, limits: [-0.3, 0.2]}\n",
             c == 0 ? 30.0 : 10.0);
    tu_sim r = tu_sim_new(y);
    tu_sim_steps(&r, 20);
    if (c == 0)
      ck_assert_msg(fabs(r.s->rv[1] - 0.5) < 0.005, "v = %g m/s, want 0.5", r.s->rv[1]);
    else
      ck_assert_msg(r.s->rv[1] < 0, "a motor below the weight lifted at %g m/s", r.s->rv[1]);
    tu_sim_steps(&r, 60);
    if (c == 0)
      ck_assert_msg(fabs(r.s->rx[1] - 1.3) < 1e-3, "stopped at %g m, want 1.3", r.s->rx[1]);
    else
      ck_assert_msg(fabs(r.s->rx[1] - 0.8) < 1e-3, "stopped at %g m, want 0.8", r.s->rx[1]);
    tu_sim_free(&r);
  }
}
END_TEST

/* ---- weld -------------------------------------------------------------------- */

/* Two boxes (0.5 x 0.2 x 0.2 m, 1 kg) side by side, welded where they
 * touch, in zero gravity; the left one spins at 3 rad/s about z, the right
 * one rests.  The weld makes them one 1 x 0.2 x 0.2 box of 2 kg at once:
 * its angular momentum is the left box's I1 w (about the pair's centre,
 * which does not move), so both turn at w_c = I1 w / I_c and the kinetic
 * energy is (I1 w)^2 / (2 I_c) (the joining is inelastic), within 1 %;
 * then both stay the same for 2 s, and the weld's gap stays < 1e-6 m. */
START_TEST(weld_makes_two_boxes_one) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\nworld: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - rigid: {name: l, size: [0.5, 0.2, 0.2], position: [-0.25, 0, 0], mass: 1,\n"
      "            angular_velocity: [0, 0, 3]}\n"
      "  - rigid: {name: r, size: [0.5, 0.2, 0.2], position: [0.25, 0, 0], mass: 1}\n"
      "constraints:\n  - weld: {a: l, b: r, at: [0, 0, 0]}\n");
  const double I1 = (0.25 + 0.04) / 12.0, Ic = 2.0 * (1.0 + 0.04) / 12.0, L0 = I1 * 3.0;
  const double wc = L0 / Ic, E = 0.5 * L0 * L0 / Ic;
  const double ra[3] = {0.25, 0, 0}, rb[3] = {-0.25, 0, 0};
  double worst = 0;
  for (int f = 0; f < 120; f++) {
    tu_sim_steps(&r, 1);
    double a[3], b[3];
    turn(r.s, 0, ra, a);
    turn(r.s, 1, rb, b);
    for (int k = 0; k < 3; k++) a[k] += r.s->rx[k] - b[k] - r.s->rx[3 + k];
    worst = fmax(worst, vs_len3(a));
    if (f % 30 != 29) continue;
    vs_rstate rs = {.n_bodies = 2, .x = r.s->rx, .q = r.s->rq, .v = r.s->rv, .w = r.s->rw};
    double P[3], L[3], e;
    vs_rigid_momentum(r.m->priv->rigid, &rs, P, L, &e);
    ck_assert_msg(fabs(L[2] - L0) < 0.01 * L0, "L = %g, want %g", L[2], L0);
    ck_assert_msg(fabs(e - E) < 0.01 * E, "E = %g J, want %g", e, E);
    for (int i = 0; i < 2; i++)
      ck_assert_msg(fabs(r.s->rw[3 * i + 2] - wc) < 0.01 * wc, "body %d turns at %g, want %g", i,
                    r.s->rw[3 * i + 2], wc);
  }
  ck_assert_msg(worst < 1e-6, "weld opened by %g m", worst);
  tu_sim_free(&r);
}
END_TEST

/* A soft weld (hertz 2, no damping) of a box to the world at its centre,
 * in zero gravity, kicked at 0.1 rad/s about z: it turns back and forth
 * about its weld as a spring of 2 Hz, the period 0.5 s within 1 %, and
 * its centre stays put.  The first swing's amplitude is 0.1 / (2 pi 2) rad
 * less the soft step's damping (implicit in each substep h = 1/480 s:
 * |1 / (1 + i h w)| = (1 + (h w)^2)^-1/2 per substep, over the 60
 * substeps of a quarter period: 2 %), within 1 %. */
START_TEST(soft_weld_is_a_spring_of_its_frequency) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60}\nworld: {gravity: [0, 0, 0]}\n"
      "bodies: [{rigid: {name: b, size: [0.4, 0.2, 0.3], position: [0, 1, 0], mass: 2,\n"
      "                  angular_velocity: [0, 0, 0.1]}}]\n"
      "constraints:\n  - weld: {a: b, b: world, at: [0, 1, 0], hertz: 2}\n");
  ck_assert_int_eq(r.m->priv->rigid->joint_flags[0], VS_RJOINT_SOFT);
  double prev = r.s->rw[2], t_first = -1, t_last = -1, amp = 0, drift = 0;
  int crossings = 0;
  const double h = 1.0 / 60.0;
  for (int f = 1; f <= 240; f++) {
    tu_sim_steps(&r, 1);
    double wz = r.s->rw[2];
    if ((prev > 0) != (wz > 0)) {
      double t = (f - 1 + prev / (prev - wz)) * h;
      if (crossings == 0) t_first = t;
      t_last = t;
      crossings++;
    }
    prev = wz;
    amp = fmax(amp, fabs(2.0 * atan2(r.s->rq[3], r.s->rq[0])));
    drift = fmax(drift, fabs(r.s->rx[1] - 1.0) + fabs(r.s->rx[0]));
  }
  ck_assert_int_ge(crossings, 10);
  const double hw = 4.0 * M_PI / 480.0;
  double period = 2.0 * (t_last - t_first) / (crossings - 1),
         want = 0.1 / (2.0 * M_PI * 2.0) * pow(1.0 + hw * hw, -30.0);
  ck_assert_msg(fabs(period - 0.5) < 0.005, "period %g s, want 0.5", period);
  ck_assert_msg(fabs(amp - want) < 0.01 * want, "amplitude %g rad, want %g", amp, want);
  ck_assert_msg(drift < 1e-9, "the centre moved by %g m", drift);
  tu_sim_free(&r);
}
END_TEST

/* ---- the forest's position passes ------------------------------------------- */

/* A chain of n boxes (0.1 x 0.3 x 0.1 m, pitch 0.4 m) on ball joints, or
 * hinges about z, hung from the world at the origin, the last end_mass kg:
 * along +x (released from horizontal) or straight down (at rest). */
static char *forest_chain(int n, double end_mass, int hinges, int down) {
  char *y = malloc(16384);
  ck_assert_ptr_nonnull(y);
  int k = snprintf(y, 16384, "time: {dt: 1/60, frames: 60}\nbodies:\n");
  for (int i = 0; i < n; i++)
    k += snprintf(y + k, 16384 - (size_t)k,
                  "  - rigid: {name: l%d, size: [%s], position: [%.17g, %.17g, 0], mass: %g}\n", i,
                  down ? "0.1, 0.3, 0.1" : "0.3, 0.1, 0.1", down ? 0.0 : 0.2 + 0.4 * i,
                  down ? -0.2 - 0.4 * i : 0.0, i == n - 1 ? end_mass : 1.0);
  k += snprintf(y + k, 16384 - (size_t)k, "constraints:\n");
  for (int i = 0; i < n; i++) {
    char b[16] = "world";
    if (i) snprintf(b, sizeof b, "l%d", i - 1);
    k += snprintf(y + k, 16384 - (size_t)k, "  - %s: {a: l%d, b: %s, at: [%.17g, %.17g, 0]%s}\n",
                  hinges ? "hinge" : "ball", i, b, down ? 0.0 : 0.4 * i, down ? -0.4 * i : 0.0,
                  hinges ? ", axis: [0, 0, 1]" : "");
  }
  return y;
}

/* Released from horizontal, a 12-link chain with a 20:1 end mass swings for
 * 3 s: its position passes close every joint to their tolerance (1e-9 m or
 * rad per error row, docs/physics.md), so the anchors' largest gap at the
 * frames stays within sqrt(3) 1e-9 m (hinges: their axes within 1e-9 rad
 * too), with margin 3; and it does swing (the end passes below -3 m). */
START_TEST(forest_chain_closes_its_joints_to_the_tolerance) {
  for (int hinges = 0; hinges < 2; hinges++) {
    char *y = forest_chain(12, 20.0, hinges, 0);
    tu_sim r = tu_sim_new(y);
    ck_assert_int_eq(r.m->n_rjoints, 12);
    double gap = 0, turn_ = 0, lowest = 0;
    for (int f = 0; f < 180; f++) {
      tu_sim_steps(&r, 1);
      vs_observables o;
      vs_observe(r.m, r.s, &o, NULL);
      gap = fmax(gap, o.joint_error_max);
      turn_ = fmax(turn_, o.joint_angle_error_max);
      lowest = fmin(lowest, r.s->rx[3 * 11 + 1]);
    }
    ck_assert_msg(gap < 3.0 * sqrt(3.0) * 1e-9, "%s: largest gap %g m", hinges ? "hinges" : "balls",
                  gap);
    ck_assert_msg(turn_ < 3e-9, "%s: largest axis turn %g rad", hinges ? "hinges" : "balls", turn_);
    ck_assert_msg(lowest < -3.0, "the chain did not swing down (end at %g m)", lowest);
    tu_sim_free(&r);
    free(y);
  }
}
END_TEST

/* Hanging straight down at rest (30 links, 50:1 end mass): the joints'
 * errors are zero to rounding, so the position passes move nothing and the
 * velocity solve holds gravity: after 2 s no body has moved by 1e-12 m or
 * turned, and the joints' gaps are below 1e-12 m. */
START_TEST(forest_chain_at_rest_stays_at_rest) {
  char *y = forest_chain(30, 50.0, 0, 1);
  tu_sim r = tu_sim_new(y);
  double x0[90];
  memcpy(x0, r.s->rx, sizeof x0);
  tu_sim_steps(&r, 120);
  double moved = 0, turned = 0;
  for (int i = 0; i < 30; i++) {
    for (int k = 0; k < 3; k++) moved = fmax(moved, fabs(r.s->rx[3 * i + k] - x0[3 * i + k]));
    for (int k = 1; k < 4; k++) turned = fmax(turned, fabs(r.s->rq[4 * i + k]));
  }
  vs_observables o;
  vs_observe(r.m, r.s, &o, NULL);
  ck_assert_msg(moved < 1e-12, "a link moved by %g m", moved);
  ck_assert_msg(turned < 1e-12, "a link turned (quaternion part %g)", turned);
  ck_assert_msg(o.joint_error_max < 1e-12, "largest gap %g m", o.joint_error_max);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* ---- end to end -------------------------------------------------------------- */

/* Hinges in a chain with a limit, a spring and a motor, a slider, a weld,
 * a hinge that closes a loop (the sequential rows), balls with cone and
 * twist limits in a chain (the forest's) and one that closes a loop with
 * them (the sequential rows), kicked against their limits, boxes that hit
 * the floor: jacobi colours. */
static const char *const SCENE =
    "time: {dt: 1/60, frames: 60}\n"
    "solver: {relaxation: jacobi}\n"
    "world: {colliders: [{plane: {point: [0, 0, 0], friction: 0.5}}]}\n"
    "bodies:\n"
    "  - rigid: {name: l0, size: [0.4, 0.05, 0.05], position: [0.2, 1, 0]}\n"
    "  - rigid: {name: l1, size: [0.4, 0.05, 0.05], position: [0.6, 1, 0]}\n"
    "  - rigid: {name: l2, size: [0.4, 0.05, 0.05], position: [1.0, 1, 0]}\n"
    "  - rigid: {name: car, size: [0.2, 0.1, 0.1], position: [-1, 0.5, 0]}\n"
    "  - rigid: {name: w0, size: [0.2, 0.2, 0.2], position: [2, 0.5, 0], angular_velocity: [1, 2, 3]}\n"
    "  - rigid: {name: w1, size: [0.2, 0.2, 0.2], position: [2.2, 0.5, 0]}\n"
    "  - rigid: {name: s0, size: [0.05, 0.4, 0.05], position: [-2, 1.3, 0], angular_velocity: [6, 9, 4]}\n"
    "  - rigid: {name: s1, size: [0.05, 0.4, 0.05], position: [-2, 0.9, 0], angular_velocity: [-5, 12, 3]}\n"
    "  - rigid: {name: s2, size: [0.4, 0.05, 0.05], position: [-1.8, 0.7, 0], angular_velocity: [9, 0, 2]}\n"
    "constraints:\n"
    "  - hinge: {a: l0, b: world, at: [0, 1, 0], axis: [0, 0, 1], spring: {hertz: 2, damping_ratio: 0.3}}\n"
    "  - hinge: {a: l0, b: l1, at: [0.4, 1, 0], axis: [0, 0, 1], limits: [-20, 30]}\n"
    "  - hinge: {a: l1, b: l2, at: [0.8, 1, 0], axis: [0, 1, 1], motor: {speed: 2, max_torque: 1}}\n"
    "  - hinge: {a: l2, b: world, at: [1.2, 1, 0], axis: [0, 0, 1]}\n"
    "  - slider: {a: car, b: world, at: [-1, 0.5, 0], axis: [1, -1, 0], limits: [-0.1, 0.3]}\n"
    "  - weld: {a: w0, b: w1, at: [2.1, 0.5, 0]}\n"
    "  - weld: {a: w1, b: l2, at: [1.6, 0.8, 0], hertz: 3, damping_ratio: 0.5}\n"
    "  - ball: {a: s0, b: world, at: [-2, 1.5, 0], axis: [0, -1, 0], cone: 25, twist: [-20, 20]}\n"
    "  - ball: {a: s1, b: s0, at: [-2, 1.1, 0], axis: [0, -1, 0], cone: 40, twist: [-10, 30]}\n"
    "  - ball: {a: s2, b: s1, at: [-2, 0.7, 0], axis: [1, 0, 0], cone: 30, twist: [-15, 15]}\n"
    "  - ball: {a: s2, b: world, at: [-1.6, 0.7, 0], axis: [1, 0, 0], cone: 20, twist: [-5, 5]}\n";

START_TEST(joints_bitwise_across_threads_and_resume) {
  char *scene = cu_in_dir("j.yaml");
  cu_write(scene, SCENE);
  cu_run_ok("j.yaml", "t1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("j.yaml", "t3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("t1.h5", "t3.h5");
  cu_run_ok("j.yaml", "r.h5", "--frames", "23", NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "60", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("t1.h5", "r.h5");
  /* a changed joint key is seen */
  cu_run_ok("j.yaml", "m.h5", "--set", "constraints.2.hinge.motor.max_torque=0.5", NULL, NULL);
  p = cu_vsim(tu_dir(), "compare", "t1.h5", "m.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  free(scene);
}
END_TEST

/* A chain alone (no contacts, no loops, no limits: the forest's velocity
 * solve after a substep's first sweep is skipped, its position passes stop
 * at their tolerance): the same bits on 1 and 3 threads, with jacobi
 * colours too, and across --resume; and one hanging at rest (its factor
 * kept while its pose stays). */
START_TEST(forest_chain_bitwise_across_threads_and_resume) {
  char *y = forest_chain(8, 10.0, 0, 0);
  char *scene = cu_in_dir("c.yaml");
  cu_write(scene, y);
  cu_run_ok("c.yaml", "t1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("c.yaml", "t3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("t1.h5", "t3.h5");
  cu_run_ok("c.yaml", "j1.h5", "--threads", "1", "--set", "solver.relaxation=jacobi");
  cu_run_ok("c.yaml", "j3.h5", "--threads", "3", "--set", "solver.relaxation=jacobi");
  cu_expect_equal("j1.h5", "j3.h5");
  cu_run_ok("c.yaml", "r.h5", "--frames", "23", NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "60", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("t1.h5", "r.h5");
  /* hanging at rest: the factor of an unchanged pose is kept, and made
   * again after a resume */
  char *rest = forest_chain(8, 10.0, 0, 1);
  cu_write(scene, rest);
  cu_run_ok("c.yaml", "h1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("c.yaml", "h3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("h1.h5", "h3.h5");
  cu_run_ok("c.yaml", "hr.h5", "--frames", "17", NULL, NULL);
  p = cu_vsim(tu_dir(), "run", "--resume", "hr.h5", "--frames", "60", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("h1.h5", "hr.h5");
  free(rest);
  free(scene);
  free(y);
}
END_TEST

START_TEST(bad_joint_inputs_exit_2_and_leave_nothing) {
  static const struct {
    const char *yaml, *msg;
  } cases[] = {
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 0, 0]}\n",
       "bad.yaml:3:53: constraints.0.hinge.axis: expected a non-zero finite vector, got [0, 0, 0]"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], limits: [30, -30]}\n",
       "bad.yaml:3:72: constraints.0.hinge.limits: expected lo <= hi, got [30, -30]"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor: {speed: 1,\n"
       "            max_torque: -2}}\n",
       "bad.yaml:4:25: constraints.0.hinge.motor.max_torque: expected a finite number >= 0, got -2"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: frame, at: [0, 0, 0], axis: [0, 1, 0]}\n",
       "bad.yaml:3:25: constraints.0.b: no rigid body named 'frame'"},
      {"bodies: [{rigid: {name: car}}]\nconstraints:\n"
       "  - slider: {a: car, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor: {max_force: -1}}\n",
       "bad.yaml:3:83: constraints.0.slider.motor.max_force: expected a finite number >= 0, got -1"},
      /* the nested mappings: a key of the other kind, an unknown key, not a
       * mapping, the maximum missing, a flat key of before */
      {"bodies: [{rigid: {name: car}}]\nconstraints:\n"
       "  - slider: {a: car, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor: {max_torque: 1}}\n",
       "bad.yaml:3:72: constraints.0.slider.motor: unknown key 'max_torque' (expected one of: "
       "speed, max_force)"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0],\n"
       "            motor: {max_force: 1, max_torque: 1}}\n",
       "bad.yaml:4:21: constraints.0.hinge.motor: unknown key 'max_force' (expected one of: "
       "speed, max_torque)"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0],\n"
       "            motor: {sped: 1, max_torque: 1}}\n",
       "bad.yaml:4:21: constraints.0.hinge.motor: unknown key 'sped', did you mean 'speed'?"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor: 2}\n",
       "bad.yaml:3:71: constraints.0.hinge.motor: expected a mapping {speed, max_torque}, got 2"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor: {speed: 1}}\n",
       "bad.yaml:3:71: constraints.0.hinge.motor: missing required key 'max_torque'"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], spring: [1, 0]}\n",
       "bad.yaml:3:72: constraints.0.hinge.spring: expected a mapping {hertz, damping_ratio, rest}, "
       "got a sequence"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], spring: {hz: 1}}\n",
       "bad.yaml:3:73: constraints.0.hinge.spring: unknown key 'hz'"},
      {"bodies: [{rigid: {name: car}}]\nconstraints:\n"
       "  - slider: {a: car, b: world, at: [0, 0, 0], axis: [0, 1, 0], spring: {hertz: 1}}\n",
       "bad.yaml:3:64: constraints.0.slider: unknown key 'spring'"},
      {"bodies: [{rigid: {name: door}}]\nconstraints:\n"
       "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0], motor_speed: 1}\n",
       "bad.yaml:3:64: constraints.0.hinge: unknown key 'motor_speed'"},
      {"bodies: [{rigid: {name: car}}]\nconstraints:\n"
       "  - slider: {a: car, b: world, at: [0, 0, 0]}\n",
       "bad.yaml:3:13: constraints.0.slider: missing required key 'axis'"},
      {"bodies: [{rigid: {name: arm}}]\nconstraints:\n"
       "  - ball: {a: arm, b: world, at: [0, 0, 0], cone: 30}\n",
       "bad.yaml:3:5: constraints.0.ball: cone and twist need an axis: `at` is the centre of the "
       "body it would come from; give axis"},
      {"bodies: [{rigid: {name: arm}}]\nconstraints:\n"
       "  - ball: {a: arm, b: world, at: [0, 0, 0], axis: [1, 0, 0], twist: [10, 0]}\n",
       "constraints.0.ball.twist: expected lo <= hi, got [10, 0]"},
      {"bodies: [{rigid: {name: a}}]\nconstraints:\n  - weld: {a: a, b: a, at: [0, 0, 0]}\n",
       "bad.yaml:3:21: constraints.0.b: expected a body other than 'a'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cu_expect_refused(i, cases[i].yaml, NULL, cases[i].msg);
  }
}
END_TEST

/* ---- the forest's right-hand side ------------------------------------------- */

/* vs_rjoint_apply_rows (the forest's velocity rows, J_a u_a + J_b u_b) is
 * the product of the joint's Jacobian blocks (vs_rjoint_jacobian) with the
 * bodies' velocities, each row summed from +0 over the six columns in
 * order, to the bit: for every kind, turned bodies, either end left out;
 * and a ball's rows are the anchors' relative velocity
 * (vb + wb x rb) - (va + wa x ra) to rounding (1e-14 of the speeds). */
START_TEST(joint_rows_on_velocities_are_the_jacobians_to_the_bit) {
  const int32_t kinds[5] = {VS_JOINT_BALL, VS_JOINT_DISTANCE, VS_JOINT_WELD, VS_JOINT_HINGE,
                            VS_JOINT_SLIDER};
  vs_rmodel *m;
  ck_assert_int_eq(vs_rmodel_create(3, 0, 5, &m), VS_OK);
  for (int i = 0; i < 3; i++) {
    double size[3] = {0.3 + 0.1 * i, 0.2, 0.1 + 0.05 * i};
    ck_assert_int_eq(vs_rmodel_set_body(m, i, VS_RIGID_BOX, size, 1.0 + i, 0, 0, 0.5, 0), VS_OK);
  }
  for (int32_t j = 0; j < 5; j++) {
    m->joint_kind[j] = kinds[j];
    m->joint_ab[2 * j] = j % 3;
    m->joint_ab[2 * j + 1] = j == 2 ? -1 : (j + 1) % 3;
    const double pa[3] = {0.1 * j - 0.2, 0.15, -0.05 * j}, pb[3] = {-0.1, 0.05 * j, 0.2};
    memcpy(&m->joint_pa[3 * j], pa, sizeof pa);
    memcpy(&m->joint_pb[3 * j], pb, sizeof pb);
    const double ax[6] = {0.6, 0, 0.8, 0, 0.6, 0.8};
    memcpy(&m->joint_axis[6 * j], ax, sizeof ax);
    m->joint_qrel[4 * j] = 1.0;
    m->joint_rest[j] = 0.5;
  }
  vs_rstate *s;
  vs_rwork *w;
  ck_assert_int_eq(vs_rstate_create(m, &s), VS_OK);
  ck_assert_int_eq(vs_rwork_create(m, &w), VS_OK);
  for (int i = 0; i < 3; i++) {
    double q[4] = {0.9 - 0.2 * i, 0.3, -0.2 + 0.25 * i, 0.1 * i + 0.05}, l = 0;
    for (int k = 0; k < 4; k++) l += q[k] * q[k];
    for (int k = 0; k < 4; k++) s->q[4 * i + k] = q[k] / sqrt(l);
    for (int k = 0; k < 3; k++) {
      s->x[3 * i + k] = 0.7 * i - 0.3 * k;
      s->v[3 * i + k] = 1.5 * (k - 1) + 0.3 * i;
      s->w[3 * i + k] = 2.0 - 1.1 * k + 0.7 * i;
    }
  }
  vs_rigid_prepare_joints(m, s, w, 0);
  for (int32_t j = 0; j < 5; j++) {
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    double ua[6], ub[6] = {0, 0, 0, 0, 0, 0};
    memcpy(ua, &s->v[3 * a], 24), memcpy(ua + 3, &s->w[3 * a], 24);
    if (b >= 0) memcpy(ub, &s->v[3 * b], 24), memcpy(ub + 3, &s->w[3 * b], 24);
    int d = vs_rjoint_rows(kinds[j]);
    for (int ends = 1; ends < 4; ends++) { /* bit 0: a's velocities, bit 1: b's */
      const double *u[2] = {ends & 1 ? ua : NULL, ends & 2 ? ub : NULL};
      double want[VS_RJOINT_MAX_ROWS] = {0}, got[VS_RJOINT_MAX_ROWS], J[6 * VS_RJOINT_MAX_ROWS];
      for (int e = 0; e < 2; e++) {
        if (!u[e]) continue;
        vs_rjoint_jacobian(m, w, j, e, J);
        for (int i = 0; i < d; i++)
          for (int q = 0; q < 6; q++) want[i] += J[i * 6 + q] * u[e][q];
      }
      vs_rjoint_apply_rows(m, w, j, u[0], u[1], got);
      for (int i = 0; i < d; i++)
        ck_assert_msg(!memcmp(&want[i], &got[i], sizeof(double)),
                      "kind %d, ends %d, row %d: %.17g, the Jacobian's %.17g", kinds[j], ends, i,
                      got[i], want[i]);
      if (kinds[j] != VS_JOINT_BALL || ends != 3) continue;
      const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
      double wra[3], wrb[3];
      vs_cross3(ua + 3, jw, wra);
      vs_cross3(ub + 3, jw + 3, wrb);
      for (int k = 0; k < 3; k++) {
        double rel = ub[k] + wrb[k] - ua[k] - wra[k];
        ck_assert_msg(fabs(got[k] - rel) <= 1e-14 * 10.0, "ball row %d: %.17g, the anchors' %.17g",
                      k, got[k], rel);
      }
    }
  }
  vs_rwork_free(w);
  vs_rstate_free(s);
  vs_rmodel_free(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rigid_joints");
  TCase *tc = tcase_create("physics");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, hinge_pendulum_period_and_axis);
  tcase_add_test(tc, hinge_motor_holds_its_speed_below_its_torque);
  tcase_add_test(tc, hinge_limit_stops_at_its_angle);
  tcase_add_test(tc, ball_cone_and_twist_limits);
  tcase_add_test(tc, ball_cone_holds_when_driven_hard);
  tcase_add_test(tc, ball_twist_holds_a_spinning_body);
  tcase_add_test(tc, ball_cone_and_twist_hold_together_at_full_cone);
  tcase_add_test(tc, slider_on_an_incline_accelerates_at_g_sin_theta);
  tcase_add_test(tc, slider_motor_and_limits);
  tcase_add_test(tc, weld_makes_two_boxes_one);
  tcase_add_test(tc, soft_weld_is_a_spring_of_its_frequency);
  tcase_add_test(tc, forest_chain_closes_its_joints_to_the_tolerance);
  tcase_add_test(tc, forest_chain_at_rest_stays_at_rest);
  tcase_add_test(tc, joint_rows_on_velocities_are_the_jacobians_to_the_bit);
  suite_add_tcase(s, tc);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 120);
  tcase_add_checked_fixture(cli, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(cli, joints_bitwise_across_threads_and_resume);
  tcase_add_test(cli, forest_chain_bitwise_across_threads_and_resume);
  tcase_add_test(cli, bad_joint_inputs_exit_2_and_leave_nothing);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return tu_run(suite()); }
