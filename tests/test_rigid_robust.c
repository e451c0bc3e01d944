/* SPDX-License-Identifier: MIT */
/* test_rigid_robust.c: the rigid solver at its defaults on the standard
 * benchmark scenes of other engines (docs/physics.md, "Rigid bodies"):
 * chains and a grid of ball joints, a tall stack, a pyramid, 100:1 and
 * 1000:1 mass ratios, free rotation about the intermediate axis against an
 * accurate reference, a flat cube and a ball bouncing, a fast ball at thin
 * walls (box collider, fixed body, mesh collider), joined bodies that do not
 * collide, collision groups, and the same bits for any thread count.  Each
 * scene is a variant of make bench-rigid's rows (bench/rigid/), smaller so
 * that the suite stays quick, with a bound from the analytic answer or from
 * the measured value with a margin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_private.h"
#include "model/rigid_model.h"
#include "solve/rigid/rigid.h"
#include "solve/solve.h"
#include "testutil.h"
#include "util/quat.h"
#include "util/vec3.h"

static const double G = 9.81;

/* Body i's point p (body frame) in the world. */
static void world_point(const vs_state *s, int32_t i, const double p[3], double o[3]) {
  double R[9], r[3];
  vs_quat_to_mat(&s->rq[4 * i], R);
  vs_mat3_mul(R, p, r);
  for (int k = 0; k < 3; k++) o[k] = s->rx[3 * i + k] + r[k];
}

/* Largest distance between the two anchors of any joint of the scene (ball
 * joints; the model's own anchors), and largest body speed. */
static double joint_gap(const vs_model *m, const vs_state *s) {
  const vs_rmodel *rm = m->priv->rigid;
  double worst = 0;
  for (int32_t j = 0; j < rm->n_joints; j++) {
    int32_t a = rm->joint_ab[2 * j], b = rm->joint_ab[2 * j + 1];
    double pa[3], pb[3], d[3];
    world_point(s, a, &rm->joint_pa[3 * j], pa);
    if (b >= 0) world_point(s, b, &rm->joint_pb[3 * j], pb);
    else memcpy(pb, &rm->joint_pb[3 * j], sizeof pb);
    vs_sub3(pa, pb, d);
    double g = vs_len3(d);
    if (rm->joint_kind[j] == VS_JOINT_DISTANCE) g = fabs(g - rm->joint_rest[j]);
    if (g > worst) worst = g;
  }
  return worst;
}

static double max_speed(const vs_model *m, const vs_state *s) {
  double v = 0;
  for (int32_t i = 0; i < m->n_rigid; i++)
    if (vs_len3(&s->rv[3 * i]) > v) v = vs_len3(&s->rv[3 * i]);
  return v;
}

/* Kinetic plus potential energy of the rigid bodies (gravity along -y). */
static double energy(const vs_model *m, const vs_state *s) {
  double e = 0;
  for (int32_t i = 0; i < m->n_rigid; i++) {
    double mass = m->rigid_mass[i];
    if (!isfinite(mass)) continue;
    double R[9], wb[3];
    vs_quat_to_mat(&s->rq[4 * i], R);
    vs_mat3_mul_t(R, &s->rw[3 * i], wb);
    const double *I = &m->rigid_inertia[3 * i];
    e += 0.5 * mass * vs_dot3(&s->rv[3 * i], &s->rv[3 * i]) + mass * G * s->rx[3 * i + 1] +
         0.5 * (I[0] * wb[0] * wb[0] + I[1] * wb[1] * wb[1] + I[2] * wb[2] * wb[2]);
  }
  return e;
}

static char *chain_yaml(int n, double end, int horizontal, const char *extra) {
  return tu_chain_yaml(n, end, horizontal, "ball", extra);
}

/* A chain of n links with an `end`:1 end mass released from horizontal
 * swings for `frames` frames: its joints within max_gap, its energy not
 * growing (it may only be lost), and it did swing. */
static void swings_intact(int n, double end, int frames, double max_gap) {
  char *y = chain_yaml(n, end, 1, "");
  tu_sim r = tu_sim_new(y);
  double e0 = energy(r.m, r.s), gap = 0, emax = e0;
  for (int f = 0; f < frames; f++) {
    tu_sim_steps(&r, 1);
    gap = fmax(gap, joint_gap(r.m, r.s));
    emax = fmax(emax, energy(r.m, r.s));
  }
  ck_assert_msg(gap < max_gap, "joint separation %g m", gap);
  ck_assert_msg(emax < e0 + 1e-3 * fabs(e0) + 1e-6, "energy grew from %g to %g J", e0, emax);
  ck_assert_msg(max_speed(r.m, r.s) > 1.0, "the chain did not swing");
  tu_sim_free(&r);
  free(y);
}

/* A 20-link chain with a 50:1 end mass hangs at rest: not a micrometre of
 * stretch, no motion (the joints form a tree: solved exactly). */
START_TEST(chain_hangs_at_rest) {
  char *y = chain_yaml(20, 50.0, 0, "");
  tu_sim r = tu_sim_new(y);
  double gap = 0, speed = 0;
  for (int f = 0; f < 300; f++) {
    tu_sim_steps(&r, 1);
    gap = fmax(gap, joint_gap(r.m, r.s));
    speed = fmax(speed, max_speed(r.m, r.s));
  }
  ck_assert_msg(gap < 1e-6, "joint separation %g m", gap);
  ck_assert_msg(speed < 1e-6, "speed %g m/s", speed);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* The same chain released from horizontal swings down and whips: the joints
 * hold to 0.1 mm and the energy does not grow (it may only be lost). */
START_TEST(chain_swings_without_coming_apart) { swings_intact(20, 50.0, 360, 1e-4); }
END_TEST

/* A 30-link chain with a 200:1 end mass released from horizontal: its
 * light links near the pivot carry the swinging end's pull, and turning
 * sideways under that tension is a fast oscillation (the joints' geometric
 * stiffness).  Taken at the substep's start it grows until the chain comes
 * apart (by metres from 5 s on, at the default 8 substeps; it ran away
 * before the forest's Newton passes were damped); implicit where it is fast for
 * the substep, as by default, the chain swings for 8 s with its joints
 * within a micrometre and its energy not growing, and a chain that is not
 * stiff keeps its bits (docs/physics.md, "Geometric stiffness"). */
START_TEST(heavy_end_chain_holds_by_its_geometric_stiffness) {
  swings_intact(30, 200.0, 480, 1e-6);
  /* the same chain with the joints' directions those of the substep's start */
  char *y = chain_yaml(30, 200.0, 1, "solver: {rigid: {geometric_stiffness: false}}\n");
  tu_sim r = tu_sim_new(y);
  vs_status st = VS_OK;
  double apart = 0;
  for (int f = 0; f < 480 && st == VS_OK; f++) {
    vs_error e;
    vs_error_clear(&e);
    st = vs_step(r.m, r.s, &e);
    if (st == VS_OK) apart = fmax(apart, joint_gap(r.m, r.s));
  }
  ck_assert_msg(st != VS_OK || apart > 0.1,
                "without the geometric stiffness the chain held for 8 s (within %g m)", apart);
  tu_sim_free(&r);
  free(y);
  /* a chain of ten equal links turns slowly for its substeps: nothing is
   * added, and it swings with the same bits either way */
  char *ya = chain_yaml(10, 1.0, 1, "");
  char *yb = chain_yaml(10, 1.0, 1, "solver: {rigid: {geometric_stiffness: false}}\n");
  tu_sim a = tu_sim_new(ya), b = tu_sim_new(yb);
  tu_sim_steps(&a, 180);
  tu_sim_steps(&b, 180);
  ck_assert(max_speed(a.m, a.s) > 1.0);
  ck_assert_msg(!memcmp(a.s->rx, b.s->rx, sizeof(double) * 3 * 10) &&
                    !memcmp(a.s->rq, b.s->rq, sizeof(double) * 4 * 10) &&
                    !memcmp(a.s->rv, b.s->rv, sizeof(double) * 3 * 10),
                "a chain that is not stiff for its substeps changed");
  tu_sim_free(&a);
  tu_sim_free(&b);
  free(ya);
  free(yb);
}
END_TEST

/* The 30-link chain with a 50:1 end mass released from horizontal above
 * the ground, 10 m down: the end mass lands edge first at 14 m/s and the
 * chain behind it is thrown on and pushed into it.  It blew up within a
 * frame of the landing (a link at 1,100 rad/s): the forest's joints were
 * warm-started with the last substep's impulses, a kick the sweeps had to
 * take back against the contacts' own, and the links pushed into the end
 * mass buckled faster than a substep could follow.  Now it lands and comes
 * apart by less than 10 micrometres. */
/* A chain (joint: ball or hinge; n links, `end`:1) released from horizontal
 * with the ground `drop` m below its pivot, `frames` frames: its joints
 * within max_gap and no body faster than 20 m/s. */
static void lands_intact(const char *joint, int n, double end, double drop, int frames,
                         double max_gap) {
  char head[128];
  snprintf(head, sizeof head, "world: {colliders: [{plane: {point: [0, %g, 0], friction: 0.5}}]}\n",
           -drop);
  char *y = tu_chain_yaml(n, end, 1, joint, head);
  tu_sim r = tu_sim_new(y);
  double gap = 0, speed = 0;
  for (int f = 0; f < frames; f++) {
    tu_sim_steps(&r, 1);
    gap = fmax(gap, joint_gap(r.m, r.s));
    speed = fmax(speed, max_speed(r.m, r.s));
  }
  ck_assert_msg(gap < max_gap, "%s chain: joint separation %g m", joint, gap);
  ck_assert_msg(speed < 20.0, "%s chain: a body reached %g m/s (the fall gives 14)", joint, speed);
  tu_sim_free(&r);
  free(y);
}

START_TEST(chain_lands_on_the_ground_in_one_piece) {
  lands_intact("ball", 30, 50.0, 10.0, 240, 1e-5);
  /* make bench-rigid's chain of 50 hinged links (10:1) released 5 m above
   * the ground: its middle sweeps along the ground at 11 m/s; with the
   * forest warm-started it blew up 1 s in, whatever its geometric
   * stiffness */
  lands_intact("hinge", 50, 10.0, 5.0, 180, 1e-6);
}
END_TEST

/* Box2D's joint grid: n x n spheres (r 0.25 m, 1 kg) 1 m apart, each joined
 * to its right and next neighbour by a ball joint at the midpoint (most of
 * the joints closing loops), the first row's two corners fixed; hanging in
 * the xy plane, or (flat) lying in the xz plane, to fall and swing. */
static char *grid_yaml(int n, int flat) {
  char *y = malloc(512 * (size_t)n * (size_t)n + 256); /* a cell: its body and two joints */
  size_t k = (size_t)sprintf(y, "time: {dt: 1/60, frames: 1}\nbodies:\n");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      k += (size_t)sprintf(y + k, "  - rigid: {name: g%d_%d, shape: sphere, radius: 0.25, position: "
                                  "[%d, %d, %d], mass: 1%s}\n",
                           i, j, j, flat ? 0 : -i, flat ? i : 0,
                           i == 0 && (j == 0 || j == n - 1) ? ", fixed: true" : "");
  k += (size_t)sprintf(y + k, "constraints:\n");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (j + 1 < n)
        k += (size_t)sprintf(y + k, "  - ball: {a: g%d_%d, b: g%d_%d, at: [%g, %d, %d]}\n", i, j, i,
                             j + 1, j + 0.5, flat ? 0 : -i, flat ? i : 0);
      if (i + 1 < n)
        k += (size_t)sprintf(y + k, "  - ball: {a: g%d_%d, b: g%d_%d, at: [%d, %g, %g]}\n", i, j,
                             i + 1, j, j, flat ? 0.0 : -i - 0.5, flat ? i + 0.5 : 0.0);
    }
  return y;
}

/* The grid of 8 x 8 (112 joints) hanging: it sags and holds, nothing runs
 * away. */
START_TEST(joint_grid_holds) {
  const int N = 8;
  char *y = grid_yaml(N, 0);
  tu_sim r = tu_sim_new(y);
  ck_assert_int_eq(r.m->n_rjoints, 2 * N * (N - 1));
  double gap = 0;
  for (int f = 0; f < 300; f++) {
    tu_sim_steps(&r, 1);
    gap = fmax(gap, joint_gap(r.m, r.s));
  }
  ck_assert_msg(gap < 0.02, "joint separation %g m", gap); /* measured 2.6 mm */
  ck_assert_msg(max_speed(r.m, r.s) < 0.5, "still moving at %g m/s after 5 s", max_speed(r.m, r.s));
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* The grid of 14 x 14 released flat: it falls and swings on its two pins,
 * its first row pulled straight between them.  The forest's Newton passes
 * asked for turns of tenths of a radian at the bottom of the swing, and the
 * net ran away at frame 111; each pass now turns a body by 0.2 rad at most
 * (rigid_tree.c, TREE_TURN_MAX), and the net swings on for 3 s within 13 cm
 * (the first row must stretch to carry it). */
START_TEST(joint_grid_falls_and_swings) {
  char *y = grid_yaml(14, 1);
  tu_sim r = tu_sim_new(y);
  double gap = 0, fastest = 0, low = 0;
  for (int f = 0; f < 180; f++) {
    tu_sim_steps(&r, 1);
    gap = fmax(gap, joint_gap(r.m, r.s));
    fastest = fmax(fastest, max_speed(r.m, r.s));
    low = fmin(low, r.s->rx[3 * 13 * 14 + 1]); /* the far row's first sphere, 13 m out */
  }
  ck_assert_msg(gap < 0.2, "joint separation %g m", gap);    /* measured 0.127 m */
  ck_assert_msg(fastest < 60, "a body at %g m/s", fastest); /* measured 39.5 m/s */
  ck_assert_msg(low < -12, "the far row fell only to y = %g m", low);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* n boxes of side a stacked on the ground (friction 0.5). */
static char *stack_yaml(int n, double a, const char *masses) {
  char *y = malloc(4096 + 160 * (size_t)n);
  size_t k = (size_t)sprintf(y, "time: {dt: 1/60, frames: 1}\nworld: {colliders: [{plane: "
                                "{friction: 0.5}}]}\nbodies:\n");
  for (int i = 0; i < n; i++)
    k += (size_t)sprintf(y + k, "  - rigid: {name: b%d, size: [%g, %g, %g], position: [0, %.17g, 0], "
                                "mass: %s, friction: 0.5}\n",
                         i, a, a, a, a * (i + 0.5), masses && i == n - 1 ? masses : "1");
  return y;
}

/* 16 unit cubes stand for 10 s: the top one within 2 cm of its start. */
START_TEST(tall_stack_stands) {
  char *y = stack_yaml(16, 1.0, NULL);
  tu_sim r = tu_sim_new(y);
  double x0[3];
  memcpy(x0, &r.s->rx[3 * 15], sizeof x0);
  tu_sim_steps(&r, 600);
  double d[3];
  vs_sub3(&r.s->rx[3 * 15], x0, d);
  ck_assert_msg(vs_len3(d) < 0.02, "the top cube moved %g m", vs_len3(d));
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* 20 cubes of 0.2 m (a tower 20 times as tall as it is wide) stand at the
 * defaults for 10 s: the top one within 1 cm of its start (make bench-rigid,
 * stack20_small: 1e-8 m).  Solved one row after another, the four corners
 * of each face took unequal shares of the load, every sweep left a torque,
 * and this tower fell (the top cube 4.4 m away); the face's rows are now one
 * block (rigid_block.c).  The same with relaxation jacobi (each manifold is
 * one item of a colour), with the same bits on 1 and 3 threads. */
static void small_tower(const char *solver, int threads, double *top) {
  char *y = stack_yaml(20, 0.2, NULL), *yy = malloc(strlen(y) + strlen(solver) + 1);
  strcpy(yy, solver);
  strcat(yy, y);
  tu_sim r = tu_sim_new(yy);
  r.s->threads = threads;
  double x0[3];
  memcpy(x0, &r.s->rx[3 * 19], sizeof x0);
  tu_sim_steps(&r, 600);
  double d = hypot(r.s->rx[3 * 19] - x0[0], r.s->rx[3 * 19 + 2] - x0[2]);
  ck_assert_msg(d < 0.01, "%sthe top cube drifted %g m", solver, d);
  ck_assert_msg(fabs(r.s->rx[3 * 19 + 1] - x0[1]) < 0.02, "the top cube sank %g m",
                x0[1] - r.s->rx[3 * 19 + 1]);
  memcpy(top, &r.s->rx[3 * 19], sizeof(double) * 3);
  tu_sim_free(&r);
  free(yy);
  free(y);
}

START_TEST(small_cube_tower_stands) {
  double a[3], b[3], c[3];
  small_tower("", 1, a);
  small_tower("solver: {relaxation: jacobi}\n", 1, b);
  small_tower("solver: {relaxation: jacobi}\n", 3, c);
  ck_assert(memcmp(b, c, sizeof b) == 0);
}
END_TEST

/* A cube resting flat on the ground: its face's four corners share the
 * load equally.  After one step from touching, each corner's accumulated
 * impulse of the last substep is m g hs / 4 (the block makes the normal
 * velocity zero at all four: the cube neither falls nor turns), to 1e-6 of
 * it (the block's regularisation is 1e-9), and the cube does not turn. */
START_TEST(resting_face_shares_load_equally) {
  char *y = stack_yaml(1, 0.2, NULL);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 1);
  const struct vs_rwork *w = r.s->scratch->rigid;
  ck_assert_int_eq(w->n_contacts, 4);
  double hs = (1.0 / 60) / 8, want = 1.0 * G * hs / 4;
  for (int k = 0; k < 4; k++)
    ck_assert_msg(fabs(w->contacts[k].pn - want) < 1e-6 * want, "corner %d: %.17g, not %.17g", k,
                  w->contacts[k].pn, want);
  ck_assert_msg(vs_len3(&r.s->rw[0]) < 1e-12, "the cube turns at %g rad/s", vs_len3(&r.s->rw[0]));
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* A heavy cube on a light one on the ground: at 100:1 the defaults hold the
 * light one within 1 cm of the ground and the heavy one in place; at 1000:1
 * they need more substeps (32: docs/physics.md). */
static void heavy_on_light(double ratio, const char *solver, double pen_bound, double drift_bound) {
  char mass[32], extra[256];
  snprintf(mass, sizeof mass, "%g", ratio);
  char *y = stack_yaml(2, 1.0, mass);
  snprintf(extra, sizeof extra, "time: {dt: 1/60, frames: 1}\n%s", solver);
  char *yy = malloc(strlen(y) + strlen(extra) + 1);
  strcpy(yy, extra);
  strcat(yy, strchr(y, '\n') + 1);
  tu_sim r = tu_sim_new(yy);
  double pen = 0;
  for (int f = 0; f < 300; f++) {
    tu_sim_steps(&r, 1);
    for (int c = 0; c < 8; c++) {
      double p[3] = {(c & 1) ? 0.5 : -0.5, (c & 2) ? 0.5 : -0.5, (c & 4) ? 0.5 : -0.5}, wp[3];
      world_point(r.s, 0, p, wp);
      pen = fmax(pen, -wp[1]);
    }
  }
  double d = hypot(r.s->rx[3], r.s->rx[5]);
  ck_assert_msg(pen < pen_bound, "%g:1: the light cube went %g m into the ground", ratio, pen);
  ck_assert_msg(d < drift_bound, "%g:1: the heavy cube drifted %g m", ratio, d);
  tu_sim_free(&r);
  free(yy);
  free(y);
}

START_TEST(mass_ratio_100_to_1) { heavy_on_light(100, "", 0.01, 0.01); }
END_TEST

START_TEST(mass_ratio_1000_to_1) {
  heavy_on_light(1000, "solver: {rigid: {substeps: 32}}\n", 0.01, 0.01);
}
END_TEST

/* A 12-level pyramid of 0.2 m boxes stands for 5 s: no box moves 1 cm. */
START_TEST(pyramid_stands) {
  const int L = 12;
  char *y = malloc(32 * 1024);
  size_t k = (size_t)sprintf(y, "time: {dt: 1/60, frames: 1}\nworld: {colliders: [{plane: "
                                "{friction: 0.6}}]}\nbodies:\n");
  int n = 0;
  for (int row = 0; row < L; row++)
    for (int i = 0; i < L - row; i++, n++)
      k += (size_t)sprintf(y + k, "  - rigid: {name: p%d, size: [0.2, 0.2, 0.2], position: [%.17g, "
                                  "%.17g, 0], friction: 0.6}\n",
                           n, 0.21 * (i - 0.5 * (L - row - 1)), 0.1 + 0.2 * row);
  tu_sim r = tu_sim_new(y);
  double *x0 = malloc(sizeof(double) * 3 * (size_t)n);
  memcpy(x0, r.s->rx, sizeof(double) * 3 * (size_t)n);
  tu_sim_steps(&r, 300);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double d[3];
    vs_sub3(&r.s->rx[3 * i], &x0[3 * i], d);
    worst = fmax(worst, vs_len3(d));
  }
  ck_assert_msg(worst < 0.01, "a box moved %g m", worst);
  free(x0);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* Torque-free rotation of a box near its intermediate axis, against Euler's
 * equations integrated by RK4 at h = 1e-4: the energy and |L| are kept to
 * 1e-4, and the first three flips (the body's y axis turning against L)
 * come within 1 % of the reference's. */
static void euler_rhs(const double I[3], const double y[7], double dy[7]) {
  /* y: q (4, body -> world), w (3, body frame) */
  const double *q = y, *w = y + 4;
  double wq[4] = {0, w[0], w[1], w[2]}, t[4];
  vs_quat_mul(q, wq, t); /* dq/dt = q * (0, w) / 2 */
  for (int k = 0; k < 4; k++) dy[k] = 0.5 * t[k];
  dy[4] = (I[1] - I[2]) * w[1] * w[2] / I[0];
  dy[5] = (I[2] - I[0]) * w[2] * w[0] / I[1];
  dy[6] = (I[0] - I[1]) * w[0] * w[1] / I[2];
}

static int flips(double t_end, const double I[3], const double w0[3], double out[3]) {
  double y[7] = {1, 0, 0, 0, w0[0], w0[1], w0[2]}, h = 1e-4, prev = 1;
  int nf = 0;
  for (long s = 0; s < (long)(t_end / h + 0.5) && nf < 3; s++) {
    double k1[7], k2[7], k3[7], k4[7], t[7];
    euler_rhs(I, y, k1);
    for (int i = 0; i < 7; i++) t[i] = y[i] + 0.5 * h * k1[i];
    euler_rhs(I, t, k2);
    for (int i = 0; i < 7; i++) t[i] = y[i] + 0.5 * h * k2[i];
    euler_rhs(I, t, k3);
    for (int i = 0; i < 7; i++) t[i] = y[i] + h * k3[i];
    euler_rhs(I, t, k4);
    for (int i = 0; i < 7; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    vs_quat_normalize(y);
    double R[9];
    vs_quat_to_mat(y, R);
    if (R[4] * prev < 0) out[nf++] = (s + 1) * h;
    prev = R[4];
  }
  return nf;
}

START_TEST(free_rotation_keeps_energy_and_flips_on_time) {
  tu_sim r = tu_sim_new("time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]}\nbodies:\n"
                        "  - rigid: {name: t, size: [1, 2, 3], mass: 1, angular_velocity: "
                        "[0.01, 5, 0]}\n");
  double I[3], w0[3] = {0.01, 5, 0};
  for (int k = 0; k < 3; k++) I[k] = r.m->rigid_inertia[k];
  double want[3];
  ck_assert_int_eq(flips(20.0, I, w0, want), 3);
  double L0 = hypot(hypot(I[0] * w0[0], I[1] * w0[1]), I[2] * w0[2]);
  double E0 = 0.5 * (I[0] * w0[0] * w0[0] + I[1] * w0[1] * w0[1] + I[2] * w0[2] * w0[2]);
  double got[3], prev = 1, emax = 0;
  int nf = 0;
  for (int f = 0; f < 1200; f++) {
    tu_sim_steps(&r, 1);
    double R[9], wb[3];
    vs_quat_to_mat(&r.s->rq[0], R);
    if (R[4] * prev < 0 && nf < 3) got[nf++] = (f + 1) / 60.0;
    prev = R[4];
    vs_mat3_mul_t(R, &r.s->rw[0], wb);
    double E = 0.5 * (I[0] * wb[0] * wb[0] + I[1] * wb[1] * wb[1] + I[2] * wb[2] * wb[2]);
    double L = hypot(hypot(I[0] * wb[0], I[1] * wb[1]), I[2] * wb[2]);
    emax = fmax(emax, fabs(E / E0 - 1));
    ck_assert_msg(fabs(L / L0 - 1) < 1e-9, "|L| off by %g at frame %d", L / L0 - 1, f);
  }
  ck_assert_msg(emax < 1e-4, "energy off by %g", emax);
  ck_assert_int_eq(nf, 3);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(fabs(got[i] - want[i]) < 0.01 * want[i], "flip %d at %g s, reference %g s", i,
                  got[i], want[i]);
  tu_sim_free(&r);
}
END_TEST

/* A step in which nothing touches or holds any body turns a free box by
 * the whole step's flow at once (rigid_step.c, rotate_step): spun fast
 * enough to need a turn a substep (40 rad/s about its major axis: 0.67 rad
 * a step, FREE_TURN_MAX 0.05 rad), the same method as the
 * substep-by-substep turns, so the box keeps their orientation and angular
 * velocity to rounding.  The second scene's ball joint, far away, makes
 * every step solve rows, so its box is turned substep by substep.  (A slow
 * spin takes fewer turns: free_rotation_keeps_energy_and_flips_on_time.) */
START_TEST(free_step_turns_as_its_substeps_do) {
  const char *box = "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]}\nbodies:\n"
                    "  - rigid: {name: t, size: [1, 2, 3], mass: 1, angular_velocity: "
                    "[40, 0.5, 0.3]}\n";
  char y[1024];
  snprintf(y, sizeof y,
           "%s  - rigid: {name: far, shape: sphere, radius: 0.1, position: [50, 0, 0], mass: "
           "1}\nconstraints:\n  - ball: {a: far, b: world, at: [50, 0.5, 0]}\n",
           box);
  tu_sim a = tu_sim_new(box), b = tu_sim_new(y);
  double worst = 0;
  for (int f = 0; f < 60; f++) {
    tu_sim_steps(&a, 1);
    tu_sim_steps(&b, 1);
    for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(a.s->rq[k] - b.s->rq[k]));
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(a.s->rw[k] - b.s->rw[k]) / 40.0);
  }
  ck_assert_msg(worst < 1e-12, "free steps and substeps differ by %g", worst);
  ck_assert_msg(a.s->rq[0] != b.s->rq[0] || a.s->rq[1] != b.s->rq[1] || a.s->rq[2] != b.s->rq[2],
                "the two paths gave the same bits: the free step was not taken");
  tu_sim_free(&a);
  tu_sim_free(&b);
}
END_TEST

/* Dropped from 1 m onto a plane with e = 0.9: the first bounce rises to
 * e^2 h within 3 %, and a cube that lands flat bounces flat (no spin). */
static void bounce(const char *shape, double half) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nworld: {colliders: [{plane: {friction: 0.5, "
           "restitution: 0.9}}]}\nbodies:\n  - rigid: {name: c, %s, position: [0, %g, 0], "
           "friction: 0.5, restitution: 0.9}\n",
           shape, 1.0 + half);
  tu_sim r = tu_sim_new(y);
  double apex = 0, spin = 0, prev_vy = 0;
  int bounced = 0;
  for (int f = 0; f < 150 && !(bounced && r.s->rv[1] < 0); f++) {
    tu_sim_steps(&r, 1);
    spin = fmax(spin, vs_len3(&r.s->rw[0]));
    if (prev_vy < 0 && r.s->rv[1] > 0) bounced = 1;
    if (bounced) apex = fmax(apex, r.s->rx[1] - half);
    prev_vy = r.s->rv[1];
  }
  ck_assert_msg(bounced, "%s never bounced", shape);
  ck_assert_msg(fabs(apex / 0.81 - 1) < 0.03, "%s: apex %g m, e^2 h = 0.81 m", shape, apex);
  ck_assert_msg(spin < 0.01, "%s: spins at %g rad/s", shape, spin);
  tu_sim_free(&r);
}

START_TEST(flat_cube_bounces_flat) { bounce("size: [1, 1, 1]", 0.5); }
END_TEST

/* The same cube over 3 s of bounces at 4 to 8 substeps: its corners bounce
 * as one block (docs/physics.md, restitution), so it never turns, whatever
 * the substep count.  Point by point the first landing left 2.4e-4 rad/s,
 * and at 5 and 7 substeps the next landings grew it to 7 and 5 rad/s. */
START_TEST(flat_cube_keeps_bouncing_flat) {
  for (int sub = 4; sub <= 8; sub++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 1/60, frames: 1}\nsolver: {rigid: {substeps: %d}}\nworld: {colliders: "
             "[{plane: {friction: 0.5, restitution: 0.9}}]}\nbodies:\n  - rigid: {name: c, size: "
             "[1, 1, 1], position: [0, 1.5, 0], friction: 0.5, restitution: 0.9}\n",
             sub);
    tu_sim r = tu_sim_new(y);
    double spin = 0;
    int bounces = 0;
    for (int f = 0; f < 180; f++) {
      double vy = r.s->rv[1];
      tu_sim_steps(&r, 1);
      spin = fmax(spin, vs_len3(&r.s->rw[0]));
      bounces += vy < 0 && r.s->rv[1] > 0;
    }
    ck_assert_msg(bounces >= 3, "%d substeps: %d bounces in 3 s", sub, bounces);
    ck_assert_msg(spin < 1e-9, "%d substeps: the cube turns at %g rad/s", sub, spin);
    tu_sim_free(&r);
  }
}
END_TEST

/* With restitution 1 a ball and a cube dropped flat from 1 m bounce back
 * to that height, bounce after bounce, for 20 s (16 bounces): within 1 mm
 * at every apex, and the cube never turns.  The rebound keeps symplectic
 * Euler's conserved energy through the bounce (docs/physics.md,
 * restitution).  With the bounce after the step's
 * sweeps, the ball lost 0.4 % of its height at each bounce and the cube
 * tumbled at its fifth and then gained energy, 7 times in 20 s. */
START_TEST(elastic_bounces_keep_their_height) {
  const char *shapes[] = {"shape: sphere, radius: 0.25", "size: [0.5, 0.5, 0.5]"};
  for (int k = 0; k < 2; k++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 1/60, frames: 1}\nworld: {colliders: [{plane: {restitution: 1}}]}\n"
             "bodies:\n  - rigid: {name: c, %s, position: [0, 1.25, 0], restitution: 1}\n",
             shapes[k]);
    tu_sim r = tu_sim_new(y);
    double prev = 1.25, prev2 = 1.25, worst = 0, spin = 0;
    int apexes = 0;
    for (int f = 0; f < 1200; f++) {
      tu_sim_steps(&r, 1);
      double h = r.s->rx[1];
      spin = fmax(spin, vs_len3(&r.s->rw[0]));
      if (f >= 2 && prev >= prev2 && prev > h && prev > 0.5) { /* an apex, sampled */
        apexes++;
        worst = fmax(worst, fabs(prev - 1.25));
      }
      prev2 = prev;
      prev = h;
    }
    /* the frame that samples an apex misses it by up to g (dt/2)^2 / 2 = 0.34 mm */
    ck_assert_msg(apexes >= 15, "%s: %d apexes in 20 s", shapes[k], apexes);
    ck_assert_msg(worst < 1e-3, "%s: an apex %g m from the drop height", shapes[k], worst);
    ck_assert_msg(spin < 1e-9, "%s: turns at %g rad/s", shapes[k], spin);
    tu_sim_free(&r);
  }
}
END_TEST

START_TEST(ball_bounces_to_e2h) { bounce("shape: sphere, radius: 0.25", 0.25); }
END_TEST

/* A Newton's cradle of n touching balls (radius r, each hung `len` below
 * its pivot by a ball joint, restitution 1, no friction), the first pulled
 * out by `deg` degrees, run for `secs` s at frame length dt: the largest
 * energy (kinetic plus potential) relative to the start, the last ball's
 * highest rise relative to the first one's drop, and the fastest of the
 * balls between in the first stroke (until the last ball's apex: a quarter
 * period after the stroke, which comes a quarter period after the release)
 * relative to the first ball's speed at the stroke. */
static void cradle(int n, double r, double len, double deg, double dt, double secs,
                   double *emax_rel, double *rise_rel, double *middle_rel) {
  char y[4096];
  int at = snprintf(y, sizeof y, "time: {dt: %.17g, frames: 1}\nbodies:\n", dt);
  double th = deg * M_PI / 180, drop = len * (1 - cos(th));
  for (int i = 0; i < n; i++) {
    double x = 2 * r * i, py = 0;
    if (i == 0) x = -len * sin(th), py = drop;
    at += snprintf(y + at, sizeof y - (size_t)at,
                   "  - rigid: {name: b%d, shape: sphere, radius: %.17g, position: [%.17g, %.17g, "
                   "0], friction: 0, restitution: 1}\n",
                   i, r, x, py);
  }
  at += snprintf(y + at, sizeof y - (size_t)at, "constraints:\n");
  for (int i = 0; i < n; i++)
    at += snprintf(y + at, sizeof y - (size_t)at,
                   "  - ball: {a: b%d, b: world, at: [%.17g, %.17g, 0]}\n", i, 2 * r * i, len);
  ck_assert_int_lt(at, (int)sizeof y);
  tu_sim s = tu_sim_new(y);
  const double quarter = 0.5 * M_PI * sqrt(len / G), strike = sqrt(2 * G * drop);
  double e0 = energy(s.m, s.s), emax = e0, rise = 0, middle = 0;
  for (int f = 0; f * dt < secs; f++) {
    tu_sim_steps(&s, 1);
    emax = fmax(emax, energy(s.m, s.s));
    rise = fmax(rise, s.s->rx[3 * (n - 1) + 1]);
    if ((f + 1) * dt < 2 * quarter)
      for (int i = 1; i < n - 1; i++) middle = fmax(middle, vs_len3(&s.s->rv[3 * i]));
  }
  *emax_rel = emax / e0;
  *rise_rel = rise / drop;
  *middle_rel = middle / strike;
  tu_sim_free(&s);
}

/* A cradle passes the blow on from ball to ball: the last ball rises to
 * the first one's height (0.96 of it: the swing's own loss, docs/physics.md
 * "What a swing keeps"), the balls between stay still, and the energy
 * never grows, at any frame length.  The bounces used to come after the
 * step's sweeps, which shared the blow among the whole row first: the last
 * ball rose to 0.21 of the drop.  Before that, the speed at which the
 * sweeps pushed each ball into the next counted as an impact and every
 * contact bounced: the energy grew 3 times in 3 s at dt 1/60 and 11 times
 * at 1/30 (balls thrown over their pivots). */
START_TEST(cradle_passes_the_blow_on) {
  const double dts[] = {1.0 / 30, 1.0 / 60, 1.0 / 120};
  for (int i = 0; i < 3; i++) {
    double emax, rise, middle;
    cradle(4, 0.15, 0.8, 45, dts[i], 2.0, &emax, &rise, &middle);
    ck_assert_msg(emax < 1.0 + 1e-3, "dt %g: the energy grew to %g times its start", dts[i], emax);
    ck_assert_msg(rise > 0.93, "dt %g: the last ball rose to %g of the drop", dts[i], rise);
    ck_assert_msg(middle < 0.02, "dt %g: a ball between moved at %g of the strike's speed",
                  dts[i], middle);
  }
}
END_TEST

/* A ball of radius 0.1 at 50 m/s (0.83 m a frame) toward a 5 cm wall 1 m
 * away -- a box collider, a fixed rigid box, a mesh collider (one quad with
 * a 2.5 cm skin) -- stops at it: speculative contacts. */
static void no_tunnel(const char *world, const char *body) {
  char y[2048];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]%s}\nbodies:\n"
           "  - rigid: {name: s, shape: sphere, radius: 0.1, velocity: [50, 0, 0]}\n%s",
           world, body);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  ck_assert_msg(r.s->rx[0] < 1.0, "the ball passed to x = %g (wall at 1)", r.s->rx[0]);
  ck_assert_msg(r.s->rx[0] > 0.8, "the ball stopped at x = %g, short of the wall", r.s->rx[0]);
  tu_sim_free(&r);
}

/* With restitution 0.5 the ball at 50 m/s bounces off the wall itself:
 * 1 s later it is where a bounce at the wall puts it (the centre reaches
 * x = 0.9 at t = 0.018 s, then goes back at 25 m/s), within 1 mm, against a
 * box collider and a fixed body.  Bounced at the start of the substep in
 * which it meets the wall, it turned back from up to 10 cm in front of it
 * (-23.75 m); so does a cube at 80 m/s. */
static void bounce_at_wall(const char *world, const char *body, const char *shape, double v) {
  char y[2048];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]%s}\nbodies:\n"
           "  - rigid: {name: s, %s, velocity: [%g, 0, 0], restitution: 0.5}\n%s",
           world, shape, v, body);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  double want = 0.9 - 0.5 * v * (1.0 - 0.9 / v);
  ck_assert_msg(fabs(r.s->rx[0] - want) < 1e-3, "%s at %g m/s: at x = %.6g, a bounce at the wall: %.6g",
                shape, v, r.s->rx[0], want);
  ck_assert_msg(fabs(r.s->rv[0] + 0.5 * v) < 1e-6, "%s: back at %.12g m/s", shape, r.s->rv[0]);
  tu_sim_free(&r);
}

START_TEST(fast_bodies_bounce_off_the_wall_itself) {
  const char *box = ", colliders: [{box: {min: [1, -1, -1], max: [1.05, 1, 1], restitution: 0.5}}]";
  const char *fixed = "  - rigid: {name: wall, size: [0.05, 2, 2], position: [1.025, 0, 0], fixed: true, "
                      "restitution: 0.5}\n";
  bounce_at_wall(box, "", "shape: sphere, radius: 0.1", 50);
  bounce_at_wall("", fixed, "shape: sphere, radius: 0.1", 50);
  bounce_at_wall(box, "", "size: [0.2, 0.2, 0.2]", 80);
}
END_TEST

START_TEST(fast_ball_stops_at_box_collider) {
  no_tunnel(", colliders: [{box: {min: [1, -1, -1], max: [1.05, 1, 1]}}]", "");
}
END_TEST

START_TEST(fast_ball_stops_at_fixed_body) {
  no_tunnel("", "  - rigid: {name: wall, size: [0.05, 2, 2], position: [1.025, 0, 0], fixed: true}\n");
}
END_TEST

/* A cube of 0.2 m at 80 m/s (1.33 m a frame), spinning, toward a 7 cm wall
 * (more than 1/20 of that) whose face is 0.9 m from the cube's: the box-box
 * test found it face to face, but took an edge pair exactly as far apart
 * instead, whose one point, midway between the edges and outside both
 * bodies, stopped the cube by spinning it; it passed through at 65 m/s and
 * more (rigid_narrow.h, vs_rc_edge_over). */
static void cube_no_tunnel(const char *world, const char *body) {
  char y[2048];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]%s}\nbodies:\n"
           "  - rigid: {name: c, size: [0.2, 0.2, 0.2], velocity: [80, 0, 0], "
           "angular_velocity: [3, 20, 7]}\n%s",
           world, body);
  tu_sim r = tu_sim_new(y);
  double xmax = -INFINITY;
  for (int f = 0; f < 60; f++) {
    tu_sim_steps(&r, 1);
    xmax = fmax(xmax, r.s->rx[0]);
  }
  /* it may come back off the wall, spun by the impact: it must reach the
   * wall and never go 1 cm into it (its near face at 1 m, the cube's half
   * width 0.1) */
  ck_assert_msg(xmax < 0.91, "the cube reached x = %g (wall at 1: into it by %g m)", xmax, xmax - 0.9);
  ck_assert_msg(xmax > 0.7, "the cube stopped at x = %g, short of the wall", xmax);
  tu_sim_free(&r);
}

START_TEST(fast_cube_stops_at_box_collider) {
  cube_no_tunnel(", colliders: [{box: {min: [1, -1, -1], max: [1.07, 1, 1]}}]", "");
}
END_TEST

START_TEST(fast_cube_stops_at_fixed_body) {
  cube_no_tunnel("", "  - rigid: {name: wall, size: [0.07, 2, 2], position: [1.035, 0, 0], fixed: true}\n");
}
END_TEST

START_TEST(fast_ball_stops_at_mesh_collider) {
  char *d = tu_tmpdir(), *obj = malloc(strlen(d) + 16), w[512];
  sprintf(obj, "%s/wall.obj", d);
  FILE *f = fopen(obj, "w");
  ck_assert_ptr_nonnull(f);
  fputs("v 1.025 -1 -1\nv 1.025 1 -1\nv 1.025 1 1\nv 1.025 -1 1\nf 1 2 3\nf 1 3 4\n", f);
  fclose(f);
  snprintf(w, sizeof w, ", colliders: [{mesh: {file: %s, thickness: 0.025}}]", obj);
  no_tunnel(w, "");
  tu_rmtree(d);
  free(obj);
  free(d);
}
END_TEST

/* Two boxes that overlap at a ball joint: by default joined bodies do not
 * collide (no contact, nothing moves); with `collide: true` they touch (the
 * contact cache holds their points). */
static int joined_pair(const char *collide, double *speed) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]}\nbodies:\n"
           "  - rigid: {name: a, size: [0.4, 0.4, 0.4], position: [0, 0, 0]}\n"
           "  - rigid: {name: b, size: [0.4, 0.4, 0.4], position: [0.3, 0, 0]}\n"
           "constraints:\n  - ball: {a: a, b: b, at: [0.15, 0, 0]%s}\n",
           collide);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 30);
  *speed = max_speed(r.m, r.s) + vs_len3(&r.s->rw[0]) + vs_len3(&r.s->rw[3]);
  int contacts = r.s->rn_cache[0];
  tu_sim_free(&r);
  return contacts;
}

START_TEST(joined_bodies_do_not_collide_unless_asked) {
  double speed;
  ck_assert_int_eq(joined_pair("", &speed), 0);
  ck_assert_msg(speed == 0.0, "the joined pair moved");
  ck_assert_int_gt(joined_pair(", collide: true", &speed), 0);
}
END_TEST

/* A box falling onto another: in group 3 with a mask of that group alone
 * (8 = 1 << 3) it falls through the base (group 0); with the default group
 * and mask it lands. */
static double fall_onto(const char *mask) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {dt: 1/60, frames: 1}\nbodies:\n"
           "  - rigid: {name: base, size: [1, 0.2, 1], fixed: true}\n"
           "  - rigid: {name: top, size: [0.4, 0.4, 0.4], position: [0, 1, 0]%s}\n",
           mask);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  double h = r.s->rx[4];
  tu_sim_free(&r);
  return h;
}

START_TEST(collision_groups_and_masks) {
  double lands = fall_onto(""), through = fall_onto(", collision_group: 3, collision_mask: 8");
  ck_assert_msg(fabs(lands - 0.3) < 0.01, "the box rests at %g, not on the base (0.3)", lands);
  ck_assert_msg(through < -0.5, "the masked box stopped at %g", through);
}
END_TEST

/* Joints (a tree and loops), contacts and colours: relaxation jacobi gives
 * the same bits on 1 and 3 threads. */
START_TEST(joints_and_contacts_same_bits_any_threads) {
  char *y = chain_yaml(12, 5.0, 1,
                       "solver: {relaxation: jacobi}\nworld: {colliders: [{plane: {point: [0, "
                       "-3, 0]}}]}\n");
  size_t len = strlen(y);
  y = realloc(y, len + 256);
  strcat(y, "  - ball: {a: l11, b: world, at: [4.8, 0, 0]}\n"); /* closes a loop */
  double *x[2];
  for (int t = 0; t < 2; t++) {
    tu_sim r = tu_sim_new(y);
    r.s->threads = t ? 3 : 1;
    tu_sim_steps(&r, 120);
    size_t n = 3 * (size_t)r.m->n_rigid;
    x[t] = malloc(sizeof(double) * n);
    memcpy(x[t], r.s->rx, sizeof(double) * n);
    ck_assert_msg(joint_gap(r.m, r.s) < 0.05, "joints apart by %g", joint_gap(r.m, r.s));
    if (t) ck_assert(memcmp(x[0], x[1], sizeof(double) * n) == 0);
    tu_sim_free(&r);
  }
  free(x[0]);
  free(x[1]);
  free(y);
}
END_TEST

/* Bounded work: 1,500 spheres in a tower along y (no gravity) -- the broad
 * phase sweeps along the axis where the bodies spread, so it tests a few
 * boxes per body, not every pair (sweeping along x, every box overlapped
 * every other on x: 1.1 million tests). */
START_TEST(broad_phase_linear_for_a_tower) {
  const int N = 1500;
  char *y = malloc(256 * (size_t)N + 256);
  size_t k = (size_t)sprintf(y, "time: {dt: 1/60, frames: 1}\nworld: {gravity: [0, 0, 0]}\nbodies:\n");
  for (int i = 0; i < N; i++)
    k += (size_t)sprintf(y + k, "  - rigid: {name: s%d, shape: sphere, radius: 0.1, position: [0, %d, 0]}\n",
                         i, i);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 1);
  const struct vs_rwork *w = r.s->scratch->rigid;
  ck_assert_msg(w->broad_tests < 8 * (int64_t)N, "%lld box tests for %d bodies",
                (long long)w->broad_tests, N);
  tu_sim_free(&r);
  free(y);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rigid_robust");
  TCase *t = tcase_create("rigid_robust");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, chain_hangs_at_rest);
  tcase_add_test(t, chain_swings_without_coming_apart);
  tcase_add_test(t, joint_grid_holds);
  tcase_add_test(t, joint_grid_falls_and_swings);
  tcase_add_test(t, tall_stack_stands);
  tcase_add_test(t, small_cube_tower_stands);
  tcase_add_test(t, resting_face_shares_load_equally);
  tcase_add_test(t, mass_ratio_100_to_1);
  tcase_add_test(t, mass_ratio_1000_to_1);
  tcase_add_test(t, pyramid_stands);
  tcase_add_test(t, heavy_end_chain_holds_by_its_geometric_stiffness);
  tcase_add_test(t, chain_lands_on_the_ground_in_one_piece);
  tcase_add_test(t, free_rotation_keeps_energy_and_flips_on_time);
  tcase_add_test(t, free_step_turns_as_its_substeps_do);
  tcase_add_test(t, flat_cube_bounces_flat);
  tcase_add_test(t, flat_cube_keeps_bouncing_flat);
  tcase_add_test(t, ball_bounces_to_e2h);
  tcase_add_test(t, elastic_bounces_keep_their_height);
  tcase_add_test(t, cradle_passes_the_blow_on);
  tcase_add_test(t, fast_ball_stops_at_box_collider);
  tcase_add_test(t, fast_bodies_bounce_off_the_wall_itself);
  tcase_add_test(t, fast_ball_stops_at_fixed_body);
  tcase_add_test(t, fast_ball_stops_at_mesh_collider);
  tcase_add_test(t, fast_cube_stops_at_box_collider);
  tcase_add_test(t, fast_cube_stops_at_fixed_body);
  tcase_add_test(t, joined_bodies_do_not_collide_unless_asked);
  tcase_add_test(t, collision_groups_and_masks);
  tcase_add_test(t, joints_and_contacts_same_bits_any_threads);
  tcase_add_test(t, broad_phase_linear_for_a_tower);
  suite_add_tcase(s, t);
  return tu_run(s);
}
