/* SPDX-License-Identifier: MIT */
/* test_rigid.c: the rigid-body solver core (lib/solve/rigid*.c) against
 * analytic answers: sliding and static friction on an incline, rolling,
 * restitution, torque-free rotation (angular momentum and the
 * intermediate-axis flip), momentum in a box-box collision, a stack, a
 * ball-joint chain, determinism, the particle coupling, and the narrow phase
 * of every shape pair and collider kind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/rigid/rigid.h"
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double G = 9.81;

typedef struct world {
  vs_rmodel *m;
  vs_rstate *s;
  vs_rwork *w;
} world;

static world mk(int32_t n, int32_t nc, int32_t nj) {
  world r;
  ck_assert_int_eq(vs_rmodel_create(n, nc, nj, &r.m), VS_OK);
  return r;
}

static void finish(world *r) {
  ck_assert_int_eq(vs_rstate_create(r->m, &r->s), VS_OK);
  ck_assert_int_eq(vs_rwork_create(r->m, &r->w), VS_OK);
}

static void drop(world *r) {
  vs_rwork_free(r->w);
  vs_rstate_free(r->s);
  vs_rmodel_free(r->m);
}

static void set_body(world *r, int32_t i, int shape, double sx, double sy, double sz, double mass,
                     double friction, double restitution) {
  double size[3] = {sx, sy, sz};
  ck_assert_int_eq(vs_rmodel_set_body(r->m, i, shape, size, mass, 0, 0, friction, restitution),
                   VS_OK);
}

/* An incline through the origin falling toward +x at angle deg; a body of
 * half-height hh resting on it, at distance d along the slope. */
static void incline(world *r, double deg, double friction) {
  double a = deg * M_PI / 180.0;
  vs_rcollider *c = &r->m->colliders[0];
  c->kind = VS_COLLIDER_PLANE;
  c->b[0] = sin(a);
  c->b[1] = cos(a);
  c->friction = friction;
}

static void place_on_incline(world *r, int32_t i, double deg, double hh) {
  double a = deg * M_PI / 180.0;
  double n[3] = {sin(a), cos(a), 0};
  for (int k = 0; k < 3; k++) r->s->x[3 * i + k] = hh * n[k];
  double rot[3] = {0, 0, -deg};
  vs_quat_from_euler_deg(rot, &r->s->q[4 * i]);
}

/* Speed along the slope (down is +). */
static double slope_speed(const world *r, int32_t i, double deg) {
  double a = deg * M_PI / 180.0;
  double d[3] = {cos(a), -sin(a), 0};
  return vs_dot3(&r->s->v[3 * i], d);
}

static double slope_accel(world *r, double deg, double h) {
  for (int f = 0; f < 30; f++) vs_rigid_step(r->m, r->s, r->w, h); /* settle */
  double v0 = slope_speed(r, 0, deg);
  int steps = 60;
  for (int f = 0; f < steps; f++) vs_rigid_step(r->m, r->s, r->w, h);
  return (slope_speed(r, 0, deg) - v0) / (steps * h);
}

START_TEST(box_slides_down_rough_incline) {
  world r = mk(1, 1, 0);
  incline(&r, 30, 0.2);
  set_body(&r, 0, VS_RIGID_BOX, 0.2, 0.2, 0.2, 1.0, 0.2, 0.0);
  finish(&r);
  place_on_incline(&r, 0, 30, 0.1);
  double a = slope_accel(&r, 30, 1.0 / 60.0);
  double want = G * (0.5 - 0.2 * cos(M_PI / 6));
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
  drop(&r);
}
END_TEST

START_TEST(box_stays_on_incline_with_static_friction) {
  world r = mk(1, 1, 0);
  incline(&r, 30, 0.8);
  set_body(&r, 0, VS_RIGID_BOX, 0.2, 0.2, 0.2, 1.0, 0.8, 0.0);
  finish(&r);
  place_on_incline(&r, 0, 30, 0.1);
  double x0[3];
  memcpy(x0, r.s->x, sizeof x0);
  for (int f = 0; f < 300; f++) vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
  double d[3] = {r.s->x[0] - x0[0], r.s->x[1] - x0[1], r.s->x[2] - x0[2]};
  ck_assert_msg(vs_len3(d) < 2e-3, "moved %g m", vs_len3(d));
  ck_assert_msg(vs_len3(r.s->v) < 1e-3, "speed %g", vs_len3(r.s->v));
  drop(&r);
}
END_TEST

START_TEST(sphere_rolls_without_slipping) {
  world r = mk(1, 1, 0);
  incline(&r, 30, 0.5);
  set_body(&r, 0, VS_RIGID_SPHERE, 0.1, 0, 0, 1.0, 0.5, 0.0);
  finish(&r);
  place_on_incline(&r, 0, 30, 0.1);
  double a = slope_accel(&r, 30, 1.0 / 60.0);
  double want = 5.0 / 7.0 * G * 0.5;
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
  /* rolling: the contact point is at rest, v = w x r */
  double v = slope_speed(&r, 0, 30), wz = r.s->w[2];
  ck_assert_msg(fabs(v + wz * 0.1) < 0.01 * fabs(v), "v %g, w r %g", v, -wz * 0.1);
  drop(&r);
}
END_TEST

START_TEST(restitution_half_bounces_to_a_quarter) {
  world r = mk(1, 1, 0);
  r.m->colliders[0].kind = VS_COLLIDER_PLANE;
  r.m->colliders[0].b[1] = 1;
  set_body(&r, 0, VS_RIGID_SPHERE, 0.1, 0, 0, 1.0, 0.5, 0.5);
  finish(&r);
  double drop_h = 1.0;
  r.s->x[1] = 0.1 + drop_h;
  double h = 1.0 / 240.0, top = 0;
  int bounced = 0;
  for (int f = 0; f < 240 * 2; f++) {
    vs_rigid_step(r.m, r.s, r.w, h);
    if (r.s->v[1] > 0) bounced = 1;
    if (bounced && r.s->x[1] - 0.1 > top) top = r.s->x[1] - 0.1;
    if (bounced && r.s->v[1] < 0) break;
  }
  ck_assert(bounced);
  ck_assert_msg(fabs(top - 0.25 * drop_h) < 0.03 * 0.25 * drop_h, "bounced to %g", top);
  drop(&r);
}
END_TEST

START_TEST(torque_free_box_keeps_L_and_flips) {
  world r = mk(1, 0, 0);
  r.m->set.gravity[1] = 0;
  r.m->set.substeps = 1;
  set_body(&r, 0, VS_RIGID_BOX, 1.0, 2.0, 3.0, 1.0, 0.5, 0.0);
  finish(&r);
  /* spin about the intermediate axis (y: I = 10/12) with a small tilt */
  r.s->w[0] = 0.01;
  r.s->w[1] = 5.0;
  r.s->w[2] = 0.0;
  double P[3], L0[3], L[3], e;
  vs_rigid_momentum(r.m, r.s, P, L0, &e);
  double l0 = vs_len3(L0), worst = 0, worst_dir = 0;
  int flipped = 0;
  double h = 1.0 / 240.0;
  for (int f = 0; f < 2400; f++) {
    vs_rigid_step(r.m, r.s, r.w, h);
    vs_rigid_momentum(r.m, r.s, P, L, &e);
    double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
    double dl = fabs(vs_len3(L) - l0) / l0, dv = vs_len3(d) / l0;
    if (dl > worst) worst = dl;
    if (dv > worst_dir) worst_dir = dv;
    /* body-frame spin about y */
    double R[9], wb[3];
    vs_quat_to_mat(r.s->q, R);
    vs_mat3_mul_t(R, r.s->w, wb);
    if (wb[1] < -4.0) flipped = 1;
  }
  ck_assert_msg(worst < 1e-3, "|L| drifted by %g", worst);
  ck_assert_msg(worst_dir < 1e-3, "L drifted by %g", worst_dir);
  ck_assert_msg(flipped, "no intermediate-axis flip in 10 s");
  drop(&r);
}
END_TEST

START_TEST(oblique_box_collision_conserves_momentum) {
  world r = mk(2, 0, 0);
  r.m->set.gravity[1] = 0;
  /* one solver substep: the impulses then act at one point for both bodies
   * (with substeps the anchors of a step stay fixed while the bodies move,
   * which costs angular momentum of the order of the sliding distance) */
  r.m->set.substeps = 1;
  set_body(&r, 0, VS_RIGID_BOX, 0.3, 0.2, 0.4, 1.5, 0.5, 0.3);
  set_body(&r, 1, VS_RIGID_BOX, 0.5, 0.3, 0.2, 2.5, 0.5, 0.3);
  finish(&r);
  r.s->x[0] = -1.0;
  r.s->x[1] = 0.05;
  r.s->v[0] = 3.0;
  r.s->v[1] = 0.4;
  r.s->v[2] = -0.2;
  r.s->w[1] = 2.0;
  r.s->w[2] = 1.0;
  double rot[3] = {20, 35, 10};
  vs_quat_from_euler_deg(rot, &r.s->q[4]);
  r.s->x[4] = -0.05;
  r.s->x[5] = 0.05;
  double P0[3], L0[3], P[3], L[3], e;
  vs_rigid_momentum(r.m, r.s, P0, L0, &e);
  int touched = 0;
  for (int f = 0; f < 120; f++) {
    vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
    if (r.w->n_contacts > 0) touched = 1;
  }
  ck_assert(touched);
  ck_assert_msg(vs_len3(&r.s->v[3]) > 0.3, "the struck box did not move");
  vs_rigid_momentum(r.m, r.s, P, L, &e);
  double dp[3] = {P[0] - P0[0], P[1] - P0[1], P[2] - P0[2]};
  double dl[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
  ck_assert_msg(vs_len3(dp) < 1e-9 * vs_len3(P0), "P changed by %g", vs_len3(dp));
  ck_assert_msg(vs_len3(dl) < 1e-3 * vs_len3(L0), "L changed by %g of %g", vs_len3(dl),
                vs_len3(L0));
  drop(&r);
}
END_TEST

START_TEST(stack_of_eight_stands) {
  world r = mk(8, 1, 0);
  r.m->colliders[0].kind = VS_COLLIDER_PLANE;
  r.m->colliders[0].b[1] = 1;
  r.m->colliders[0].friction = 0.6;
  for (int i = 0; i < 8; i++) set_body(&r, i, VS_RIGID_BOX, 0.2, 0.2, 0.2, 1.0, 0.6, 0.0);
  finish(&r);
  for (int i = 0; i < 8; i++) r.s->x[3 * i + 1] = 0.1 + 0.2 * i;
  double x0[24];
  memcpy(x0, r.s->x, sizeof x0);
  for (int f = 0; f < 600; f++) vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
  for (int i = 0; i < 8; i++) {
    double d[3] = {r.s->x[3 * i] - x0[3 * i], r.s->x[3 * i + 1] - x0[3 * i + 1],
                   r.s->x[3 * i + 2] - x0[3 * i + 2]};
    ck_assert_msg(vs_len3(d) < 0.01, "box %d moved %g m", i, vs_len3(d));
  }
  /* resting contacts are found again by identity */
  ck_assert_int_eq(r.w->matched, r.w->n_contacts);
  ck_assert_int_eq(r.w->dropped, 0);
  drop(&r);
}
END_TEST

START_TEST(ball_joint_chain_holds) {
  const int n = 8;
  world r = mk(n, 0, n);
  for (int i = 0; i < n; i++) set_body(&r, i, VS_RIGID_BOX, 0.2, 0.05, 0.05, 0.5, 0.5, 0.0);
  /* a horizontal chain along x hung from the world at the origin */
  for (int j = 0; j < n; j++) {
    r.m->joint_kind[j] = VS_JOINT_BALL;
    r.m->joint_ab[2 * j] = j;
    r.m->joint_ab[2 * j + 1] = j == 0 ? -1 : j - 1;
    r.m->joint_pa[3 * j] = -0.1;
    if (j > 0) r.m->joint_pb[3 * j] = 0.1;
  }
  finish(&r);
  for (int i = 0; i < n; i++) r.s->x[3 * i] = 0.1 + 0.2 * i;
  double worst = 0;
  for (int f = 0; f < 300; f++) {
    vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
    for (int j = 0; j < n; j++) {
      int a = j, b = j - 1;
      double R[9], pa[3], pb[3] = {0, 0, 0};
      vs_quat_to_mat(&r.s->q[4 * a], R);
      vs_mat3_mul(R, &r.m->joint_pa[3 * j], pa);
      for (int k = 0; k < 3; k++) pa[k] += r.s->x[3 * a + k];
      if (b >= 0) {
        vs_quat_to_mat(&r.s->q[4 * b], R);
        vs_mat3_mul(R, &r.m->joint_pb[3 * j], pb);
        for (int k = 0; k < 3; k++) pb[k] += r.s->x[3 * b + k];
      }
      double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
      if (vs_len3(d) > worst) worst = vs_len3(d);
    }
  }
  ck_assert_msg(worst < 1e-3, "a joint opened by %g m", worst);
  /* it swung: the last link fell */
  ck_assert(r.s->x[3 * (n - 1) + 1] < -0.5);
  drop(&r);
}
END_TEST

START_TEST(distance_joint_to_world_keeps_length) {
  world r = mk(1, 0, 1);
  set_body(&r, 0, VS_RIGID_SPHERE, 0.05, 0, 0, 1.0, 0.5, 0.0);
  r.m->joint_kind[0] = VS_JOINT_DISTANCE;
  r.m->joint_ab[0] = 0;
  r.m->joint_ab[1] = -1;
  r.m->joint_rest[0] = 1.0;
  finish(&r);
  r.s->x[0] = 1.0; /* pendulum of length 1 released horizontally */
  double worst = 0;
  for (int f = 0; f < 240; f++) {
    vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
    double d = fabs(vs_len3(r.s->x) - 1.0);
    if (d > worst) worst = d;
  }
  ck_assert_msg(worst < 1e-3, "length off by %g", worst);
  drop(&r);
}
END_TEST

static void pyramid(world *r, int levels) {
  int n = levels * (levels + 1) / 2;
  *r = mk(n, 1, 0);
  r->m->colliders[0].kind = VS_COLLIDER_PLANE;
  r->m->colliders[0].b[1] = 1;
  r->m->colliders[0].friction = 0.6;
  for (int i = 0; i < n; i++) set_body(r, i, VS_RIGID_BOX, 0.2, 0.2, 0.2, 1.0, 0.6, 0.0);
  finish(r);
  int k = 0;
  for (int row = 0; row < levels; row++)
    for (int i = 0; i < levels - row; i++, k++) {
      r->s->x[3 * k] = (i - 0.5 * (levels - row - 1)) * 0.2 + 0.01 * row;
      r->s->x[3 * k + 1] = 0.1 + 0.2 * row + 0.001 * i;
    }
}

START_TEST(two_runs_are_bitwise_equal) {
  world a, b;
  pyramid(&a, 6);
  pyramid(&b, 6);
  for (int f = 0; f < 120; f++) {
    vs_rigid_step(a.m, a.s, a.w, 1.0 / 60.0);
    vs_rigid_step(b.m, b.s, b.w, 1.0 / 60.0);
  }
  size_t n = (size_t)a.m->n_bodies;
  ck_assert(memcmp(a.s->x, b.s->x, 3 * n * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->q, b.s->q, 4 * n * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->v, b.s->v, 3 * n * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->w, b.s->w, 3 * n * sizeof(double)) == 0);
  ck_assert_int_eq(a.s->n_cache, b.s->n_cache);
  ck_assert(memcmp(a.s->cache_impulse, b.s->cache_impulse,
                   4 * (size_t)a.s->n_cache * sizeof(double)) == 0);
  ck_assert_int_gt(a.s->n_cache, 0);
  drop(&a);
  drop(&b);
}
END_TEST

/* relaxation: jacobi -- the constraint graph's colours: every joint and
 * manifold in exactly one colour, no dynamic body twice in a colour, the
 * fixed body shared freely; the coloured solve gives the same bits on 1, 2
 * and 3 threads (the colours are big enough to run in parallel), and a
 * 12-level pyramid still stands after 3 s. */
static void colored_pyramid(world *r, int levels, int threads) {
  pyramid(r, levels);
  r->m->set.colored = 1;
  r->w->threads = threads;
}

START_TEST(colored_solve_is_bitwise_across_threads) {
  world r[3];
  for (int t = 0; t < 3; t++) colored_pyramid(&r[t], 12, t + 1);
  int32_t n = r[0].m->n_bodies;
  double x0[3 * 78];
  ck_assert_int_eq(n, 78);
  memcpy(x0, r[0].s->x, sizeof x0);
  for (int f = 0; f < 40; f++)
    for (int t = 0; t < 3; t++) vs_rigid_step(r[t].m, r[t].s, r[t].w, 1.0 / 60.0);
  /* the colours of the last step */
  vs_rwork *w = r[0].w;
  int32_t items = r[0].m->n_joints + w->n_man, biggest = 0;
  ck_assert_int_gt(w->n_man, 100);
  ck_assert_int_eq(w->color_start[VS_RCOLORS + 1], items);
  ck_assert_int_eq(w->color_start[VS_RCOLORS + 1] - w->color_start[VS_RCOLORS], 0);
  char *seen = calloc((size_t)items, 1);
  for (int c = 0; c < VS_RCOLORS; c++) {
    int32_t i0 = w->color_start[c], i1 = w->color_start[c + 1];
    if (i1 - i0 > biggest) biggest = i1 - i0;
    for (int32_t i = i0; i < i1; i++) {
      int32_t mi = w->color_items[i];
      ck_assert(mi >= 0 && mi < w->n_man && !seen[mi]);
      seen[mi] = 1;
      if (i > i0) ck_assert_int_gt(mi, w->color_items[i - 1]); /* identity order */
      const vs_rcontact *ci = &w->contacts[w->man[mi]];
      for (int32_t k = i0; k < i; k++) {
        const vs_rcontact *ck = &w->contacts[w->man[w->color_items[k]]];
        ck_assert(ci->ia != ck->ia && ci->ia != ck->ib && ci->ib != ck->ia &&
                  (ci->ib == n || ci->ib != ck->ib));
      }
    }
  }
  free(seen);
  ck_assert_int_ge(biggest, VS_RPAR_ITEMS); /* at least one colour ran on the team */
  for (int t = 1; t < 3; t++) {
    ck_assert(memcmp(r[0].s->x, r[t].s->x, 3 * (size_t)n * sizeof(double)) == 0);
    ck_assert(memcmp(r[0].s->q, r[t].s->q, 4 * (size_t)n * sizeof(double)) == 0);
    ck_assert(memcmp(r[0].s->v, r[t].s->v, 3 * (size_t)n * sizeof(double)) == 0);
    ck_assert(memcmp(r[0].s->w, r[t].s->w, 3 * (size_t)n * sizeof(double)) == 0);
    ck_assert(memcmp(r[0].s->cache_impulse, r[t].s->cache_impulse,
                     4 * (size_t)r[0].s->n_cache * sizeof(double)) == 0);
  }
  for (int f = 40; f < 180; f++) vs_rigid_step(r[0].m, r[0].s, r[0].w, 1.0 / 60.0);
  double worst = 0;
  for (int32_t i = 0; i < n; i++) {
    double d[3] = {r[0].s->x[3 * i] - x0[3 * i], r[0].s->x[3 * i + 1] - x0[3 * i + 1],
                   r[0].s->x[3 * i + 2] - x0[3 * i + 2]};
    if (vs_len3(d) > worst) worst = vs_len3(d);
  }
  ck_assert_msg(worst < 0.02, "a box moved %g m", worst);
  for (int t = 0; t < 3; t++) drop(&r[t]);
}
END_TEST

/* The joints of a forest are solved together (rigid_tree.c), outside the
 * colours; a joint that closes a loop takes a colour.  A chain hung from
 * the world (joints 0-3) is a tree; joints 4 (the last link to the world: a
 * second path to the ground) and 5 (links 0 and 2, both in the tree) close
 * loops and share no moving body, so they take colour 0 together. */
START_TEST(joints_are_colored) {
  world r = mk(5, 0, 6);
  for (int i = 0; i < 5; i++) set_body(&r, i, VS_RIGID_BOX, 0.1, 0.1, 0.1, 1.0, 0.5, 0.0);
  r.m->set.colored = 1;
  for (int j = 0; j < 4; j++) {
    r.m->joint_kind[j] = VS_JOINT_BALL;
    r.m->joint_ab[2 * j] = j;
    r.m->joint_ab[2 * j + 1] = j == 0 ? -1 : j - 1;
  }
  r.m->joint_kind[4] = VS_JOINT_BALL, r.m->joint_ab[8] = 3, r.m->joint_ab[9] = -1;
  r.m->joint_kind[5] = VS_JOINT_DISTANCE, r.m->joint_ab[10] = 0, r.m->joint_ab[11] = 2;
  r.m->joint_rest[5] = 0.6;
  finish(&r);
  for (int i = 0; i < 5; i++) r.s->x[3 * i] = 0.3 * (i + 1); /* no contacts */
  vs_rigid_step(r.m, r.s, r.w, 1.0 / 60.0);
  ck_assert_int_eq(r.w->tree.n_tree_joints, 4);
  for (int j = 0; j < 6; j++) ck_assert_int_eq(r.w->tree.in_tree[j], j < 4);
  const int32_t *st = r.w->color_start, *it = r.w->color_items;
  ck_assert_int_eq(st[1] - st[0], 2);
  ck_assert_int_eq(st[VS_RCOLORS + 1], 2);
  ck_assert_int_eq(it[0], -5);
  ck_assert_int_eq(it[1], -6);
  drop(&r);
}
END_TEST

START_TEST(particle_contact_conserves_momentum) {
  world r = mk(1, 0, 0);
  set_body(&r, 0, VS_RIGID_BOX, 0.4, 0.3, 0.5, 2.0, 0.5, 0.0);
  finish(&r);
  double rot[3] = {10, 20, 30};
  vs_quat_from_euler_deg(rot, r.s->q);
  r.s->x[0] = 0.1;
  r.s->v[0] = 0.3;
  r.s->w[2] = 0.7;
  double P0[3], L0[3], P1[3], L1[3], e, xq[7];
  vs_rigid_momentum(r.m, r.s, P0, L0, &e);
  memcpy(xq, r.s->x, 3 * sizeof(double));
  memcpy(xq + 3, r.s->q, 4 * sizeof(double));
  /* a particle of mass 0.25 just inside a face, off its centre */
  double R[9], local[3] = {0.19, 0.1, -0.12}, p[3];
  vs_quat_to_mat(r.s->q, R);
  vs_mat3_mul(R, local, p);
  for (int k = 0; k < 3; k++) p[k] += r.s->x[k];
  double p0[3] = {p[0], p[1], p[2]}, mp = 0.25, h = 1.0 / 60.0, J[3], n0[3], d0, pt0[3];
  ck_assert_int_eq(vs_rigid_point_query(r.m, r.s, 0, p, 0.02, 0.0, n0, &d0, pt0), 1);
  ck_assert_double_eq_tol(d0, 0.03, 1e-12); /* 0.01 inside the face x = 0.2, radius 0.02 */
  ck_assert_int_eq(vs_rigid_particle_contact(r.m, r.s, 0, p, 1.0 / mp, 0.02, h, J), 1);
  /* the impulse's effect: the new velocities at the pose they were computed for */
  double moved[7];
  memcpy(moved, r.s->x, 3 * sizeof(double));
  memcpy(moved + 3, r.s->q, 4 * sizeof(double));
  memcpy(r.s->x, xq, 3 * sizeof(double));
  memcpy(r.s->q, xq + 3, 4 * sizeof(double));
  vs_rigid_momentum(r.m, r.s, P1, L1, &e);
  memcpy(r.s->x, moved, 3 * sizeof(double));
  memcpy(r.s->q, moved + 3, 4 * sizeof(double));
  /* the particle's momentum change is mp * dx / h (position-based velocity) */
  double dpp[3], lp[3], tot[3], ltot[3];
  for (int k = 0; k < 3; k++) dpp[k] = mp * (p[k] - p0[k]) / h;
  ck_assert(vs_len3(dpp) > 0);
  for (int k = 0; k < 3; k++) {
    ck_assert(fabs(dpp[k] - J[k]) <= 1e-12 * vs_len3(J));
    tot[k] = dpp[k] + P1[k] - P0[k];
  }
  ck_assert_msg(vs_len3(tot) < 1e-9 * vs_len3(dpp), "P changed by %g", vs_len3(tot));
  /* angular momentum about the origin: the impulse acts on the particle at p0 */
  vs_cross3(p0, dpp, lp);
  for (int k = 0; k < 3; k++) ltot[k] = lp[k] + L1[k] - L0[k];
  ck_assert_msg(vs_len3(ltot) < 1e-9 * vs_len3(lp), "L changed by %g", vs_len3(ltot));
  /* after the correction the penetration is gone up to the second order of
   * the body's turn */
  double n[3], depth, pt[3];
  int still = vs_rigid_point_query(r.m, r.s, 0, p, 0.02, 0.0, n, &depth, pt);
  ck_assert_msg(!still || depth < 1e-4, "still %g deep", depth);
  drop(&r);
}
END_TEST

/* ---- narrow phase ---- */

static world two(int sa, const double *za, int sb, const double *zb) {
  world r = mk(2, 0, 0);
  ck_assert_int_eq(vs_rmodel_set_body(r.m, 0, sa, za, 1, 0, 0, 0.5, 0), VS_OK);
  ck_assert_int_eq(vs_rmodel_set_body(r.m, 1, sb, zb, 1, 0, 0, 0.5, 0), VS_OK);
  finish(&r);
  return r;
}

START_TEST(narrow_phase_pairs) {
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  double sph[3] = {0.5, 0, 0}, cap[3] = {0.2, 1.0, 0}, box[3] = {1, 1, 1};
  /* sphere-sphere: 0.1 deep along x */
  world r = two(VS_RIGID_SPHERE, sph, VS_RIGID_SPHERE, sph);
  r.s->x[3] = 0.9;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  ck_assert_double_eq_tol(c[0].n[0], 1.0, 1e-12);
  ck_assert_double_eq_tol(c[0].p[0], 0.45, 1e-12);
  drop(&r);
  /* sphere-box, box first: normal from the box */
  r = two(VS_RIGID_BOX, box, VS_RIGID_SPHERE, sph);
  r.s->x[4] = 0.9;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  ck_assert_double_eq_tol(c[0].n[1], 1.0, 1e-12);
  drop(&r);
  /* sphere-box, sphere first: normal from the sphere */
  r = two(VS_RIGID_SPHERE, sph, VS_RIGID_BOX, box);
  r.s->x[4] = 0.9;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].n[1], 1.0, 1e-12);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  drop(&r);
  /* capsule (along y) - sphere beside its middle */
  r = two(VS_RIGID_CAPSULE, cap, VS_RIGID_SPHERE, sph);
  r.s->x[3] = 0.6;
  r.s->x[4] = 0.3;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  ck_assert_double_eq_tol(c[0].n[0], 1.0, 1e-12);
  drop(&r);
  /* parallel capsules side by side: two points */
  r = two(VS_RIGID_CAPSULE, cap, VS_RIGID_CAPSULE, cap);
  r.s->x[3] = 0.35;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 2);
  ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-12);
  ck_assert_double_eq_tol(c[1].depth, 0.05, 1e-12);
  drop(&r);
  /* crossed capsules: one point */
  r = two(VS_RIGID_CAPSULE, cap, VS_RIGID_CAPSULE, cap);
  r.s->x[5] = 0.3;
  double rx[3] = {0, 0, 90};
  vs_quat_from_euler_deg(rx, &r.s->q[4]);
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-9);
  ck_assert_double_eq_tol(c[0].n[2], 1.0, 1e-9);
  drop(&r);
  /* capsule lying on a box: its two end spheres */
  r = two(VS_RIGID_BOX, box, VS_RIGID_CAPSULE, cap);
  double rz[3] = {0, 0, 90};
  vs_quat_from_euler_deg(rz, &r.s->q[4]);
  r.s->x[4] = 0.68;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 2);
  ck_assert_double_eq_tol(c[0].depth, 0.02, 1e-9);
  ck_assert_double_eq_tol(c[0].n[1], 1.0, 1e-9);
  drop(&r);
  /* capsule across a box's edge (the edge along z at x = y = 0.5, the axis
   * along (-1, 1, 0) through (0.55, 0.55, 0)): only the middle point */
  r = two(VS_RIGID_BOX, box, VS_RIGID_CAPSULE, cap);
  double rq[3] = {0, 0, 45};
  vs_quat_from_euler_deg(rq, &r.s->q[4]);
  r.s->x[3] = 0.55;
  r.s->x[4] = 0.55;
  {
    int n = vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(c[0].feature, 2);
    ck_assert_double_eq_tol(c[0].depth, 0.2 - 0.05 * sqrt(2.0), 1e-6);
    ck_assert_double_eq_tol(c[0].n[0], sqrt(0.5), 1e-4);
  }
  drop(&r);
  /* box on box, face to face, offset: 4 points, equal depths, feature ids distinct */
  r = two(VS_RIGID_BOX, box, VS_RIGID_BOX, box);
  r.s->x[3] = 0.3;
  r.s->x[4] = 0.99;
  r.s->x[5] = -0.2;
  {
    int n = vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c);
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < 4; k++) {
      ck_assert_double_eq_tol(c[k].depth, 0.01, 1e-12);
      ck_assert_double_eq_tol(c[k].n[1], 1.0, 1e-12);
      if (k > 0) ck_assert_uint_gt(c[k].feature, c[k - 1].feature);
    }
  }
  /* rotated 45 degrees about y on top: still 4 points of the clipped octagon's hull */
  double ry[3] = {0, 45, 0};
  vs_quat_from_euler_deg(ry, &r.s->q[4]);
  r.s->x[3] = 0;
  r.s->x[5] = 0;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 4);
  /* edge on edge: one point */
  double re[3] = {45, 0, 0}, re2[3] = {0, 0, 45};
  vs_quat_from_euler_deg(re, &r.s->q[0]);
  vs_quat_from_euler_deg(re2, &r.s->q[4]);
  r.s->x[3] = 0;
  r.s->x[4] = sqrt(2.0) - 0.01;
  r.s->x[5] = 0;
  {
    int n = vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq_tol(c[0].depth, 0.01, 1e-9);
    ck_assert_double_eq_tol(c[0].n[1], 1.0, 1e-9);
    ck_assert_uint_eq(c[0].feature & 0x10000u, 0x10000u);
  }
  /* apart: nothing */
  r.s->x[4] = 2.0;
  ck_assert_int_eq(vs_rigid_collide_pair(r.m, r.s, 0, 1, 0.0, c), 0);
  drop(&r);
}
END_TEST

/* Box-box against the separating-axis rule written out in full (all 15
 * axes evaluated exactly, as the narrow phase did before it learned to skip
 * edge axes that cannot matter): an axis separating by more than the margin
 * means no contact; else an edge axis beating the best face axis by the
 * tolerance (0.98 s_face + 0.005 when the faces overlap, 1.02 s_face +
 * 0.005 when they are apart) means one edge-edge point, and otherwise
 * only face points.  Random pairs, half of them nearly aligned (where the
 * edge axes are almost face axes) and placed around touching distance. */
static double sat_proj(const double R[9], const double h[3], const double u[3]) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double ax[3] = {R[k], R[3 + k], R[6 + k]};
    s += h[k] * fabs(vs_dot3(u, ax));
  }
  return s;
}

START_TEST(box_box_follows_the_full_separating_axis_rule) {
  double za[3] = {1, 1, 1};
  world r = two(VS_RIGID_BOX, za, VS_RIGID_BOX, za);
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  const double margin = 0.02;
  uint64_t seed = 12345;
  int edges = 0, faces = 0, apart = 0;
  for (int it = 0; it < 60000; it++) {
    double u01[16];
    for (int k = 0; k < 16; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      u01[k] = (double)(seed >> 11) / 9007199254740992.0;
    }
    double sz[2][3], deg[3];
    for (int b = 0; b < 2; b++)
      for (int k = 0; k < 3; k++) sz[b][k] = it % 3 == 0 ? 0.2 : 0.05 + u01[3 * b + k];
    for (int b = 0; b < 2; b++) {
      ck_assert_int_eq(vs_rmodel_set_body(r.m, b, VS_RIGID_BOX, sz[b], 1, 0, 0, 0.5, 0), VS_OK);
      double sc = it % 2 ? 1e-3 : 180.0;
      for (int k = 0; k < 3; k++) deg[k] = sc * (2 * u01[6 + k] - 1) * (b ? 1 : -0.5);
      vs_quat_from_euler_deg(deg, &r.s->q[4 * b]);
      for (int k = 0; k < 3; k++)
        r.s->x[3 * b + k] = b ? (2 * u01[9 + k] - 1) * 0.8 * (sz[0][k] + sz[1][k]) : 0.0;
    }
    int n = vs_rigid_collide_pair(r.m, r.s, 0, 1, margin, c);
    /* the rule, every axis exactly */
    double Ra[9], Rb[9], ha[3], hb[3], d[3], A[3][3], B[3][3];
    vs_quat_to_mat(&r.s->q[0], Ra);
    vs_quat_to_mat(&r.s->q[4], Rb);
    for (int k = 0; k < 3; k++) {
      ha[k] = 0.5 * sz[0][k];
      hb[k] = 0.5 * sz[1][k];
      d[k] = r.s->x[3 + k] - r.s->x[k];
      for (int q = 0; q < 3; q++) {
        A[k][q] = Ra[3 * q + k];
        B[k][q] = Rb[3 * q + k];
      }
    }
    double sa = -INFINITY, sb = -INFINITY, se = -INFINITY, smax = -INFINITY;
    for (int k = 0; k < 3; k++) {
      double s1 = fabs(vs_dot3(d, A[k])) - ha[k] - sat_proj(Rb, hb, A[k]);
      double s2 = fabs(vs_dot3(d, B[k])) - hb[k] - sat_proj(Ra, ha, B[k]);
      sa = fmax(sa, s1);
      sb = fmax(sb, s2);
    }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double u[3];
        vs_cross3(A[i], B[j], u);
        double l = vs_len3(u);
        if (l < 1e-5) continue;
        for (int k = 0; k < 3; k++) u[k] /= l;
        se = fmax(se, fabs(vs_dot3(d, u)) - sat_proj(Ra, ha, u) - sat_proj(Rb, hb, u));
      }
    smax = fmax(fmax(sa, sb), se);
    double sface = sb > 0.98 * sa + 0.001 ? sb : sa;
    /* clearly beyond the faces: 2 % less deep, or 2 % farther apart */
    double over = (sface < 0 ? 0.98 * sface : (2.0 - 0.98) * sface) + 0.005;
    /* decisions within 1e-12 of a threshold are left out: rounding decides them */
    if (fabs(smax - margin) < 1e-12 || fabs(se - over) < 1e-12) continue;
    if (smax > margin) {
      ck_assert_int_eq(n, 0);
      apart++;
    } else if (se > over) {
      ck_assert_int_le(n, 1);
      if (n == 1) ck_assert_uint_eq(c[0].feature & 0x10000u, 0x10000u);
      edges += n;
    } else {
      for (int k = 0; k < n; k++) ck_assert_uint_eq(c[k].feature & 0x10000u, 0u);
      faces += n > 0;
    }
  }
  /* every branch taken many times */
  ck_assert_int_gt(apart, 20000);
  ck_assert_int_gt(edges, 1000);
  ck_assert_int_gt(faces, 5000);
  drop(&r);
}
END_TEST

START_TEST(narrow_phase_colliders) {
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  world r = mk(1, 4, 0);
  double box[3] = {1, 1, 1};
  ck_assert_int_eq(vs_rmodel_set_body(r.m, 0, VS_RIGID_BOX, box, 1, 0, 0, 0.5, 0), VS_OK);
  vs_rcollider *k = r.m->colliders;
  k[0].kind = VS_COLLIDER_PLANE;
  k[0].b[1] = 1;
  k[1].kind = VS_COLLIDER_SPHERE;
  k[1].a[0] = 2.0;
  k[1].radius = 1.0;
  k[2].kind = VS_COLLIDER_BOX;
  k[2].a[0] = -3;
  k[2].a[1] = -1;
  k[2].a[2] = -1;
  k[2].b[0] = -0.4;
  k[2].b[1] = 1;
  k[2].b[2] = 1;
  k[3].kind = VS_COLLIDER_BOUNDS;
  for (int q = 0; q < 3; q++) {
    k[3].a[q] = -0.55;
    k[3].b[q] = 0.55;
  }
  k[3].b[1] = 5;
  finish(&r);
  r.s->x[1] = 0.45; /* 5 cm into the floor */
  int n = vs_rigid_collide_collider(r.m, r.s, 0, 0, 0.0, c);
  ck_assert_int_eq(n, 4);
  for (int q = 0; q < 4; q++) {
    ck_assert_double_eq_tol(c[q].depth, 0.05, 1e-12);
    ck_assert_double_eq_tol(c[q].n[1], -1.0, 1e-12); /* from the body into the floor */
    ck_assert_int_eq(c[q].b, -1);
  }
  /* sphere collider at x = 2, r = 1: 0.5 + 1 - 2 = -0.5 apart (margin 0) */
  ck_assert_int_eq(vs_rigid_collide_collider(r.m, r.s, 0, 1, 0.0, c), 0);
  r.s->x[0] = 0.6;
  r.s->x[1] = 0.0;
  ck_assert_int_eq(vs_rigid_collide_collider(r.m, r.s, 0, 1, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  ck_assert_double_eq_tol(c[0].n[0], 1.0, 1e-12);
  ck_assert_int_eq(c[0].b, -2);
  /* solid box collider to the left, face x = -0.4; body's face at 0.1 */
  r.s->x[0] = 0.05;
  n = vs_rigid_collide_collider(r.m, r.s, 0, 2, 0.0, c);
  ck_assert_int_eq(n, 4);
  ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-12);
  ck_assert_double_eq_tol(c[0].n[0], -1.0, 1e-12);
  /* bounds: pushed 0.05 through the +x wall and 0.05 through the floor wall: 8 points */
  r.s->x[0] = 0.1;
  r.s->x[1] = -0.1;
  n = vs_rigid_collide_collider(r.m, r.s, 0, 3, 0.0, c);
  ck_assert_int_eq(n, 8);
  for (int q = 0; q < n; q++) ck_assert_double_eq_tol(c[q].depth, 0.05, 1e-12);
  /* sphere and capsule on the plane */
  drop(&r);
  r = mk(2, 1, 0);
  double sph[3] = {0.5, 0, 0}, cap[3] = {0.2, 1.0, 0};
  ck_assert_int_eq(vs_rmodel_set_body(r.m, 0, VS_RIGID_SPHERE, sph, 1, 0, 0, 0.5, 0), VS_OK);
  ck_assert_int_eq(vs_rmodel_set_body(r.m, 1, VS_RIGID_CAPSULE, cap, 1, 0, 0, 0.5, 0), VS_OK);
  r.m->colliders[0].kind = VS_COLLIDER_PLANE;
  r.m->colliders[0].b[1] = 1;
  finish(&r);
  r.s->x[1] = 0.4;
  ck_assert_int_eq(vs_rigid_collide_collider(r.m, r.s, 0, 0, 0.0, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.1, 1e-12);
  double rz[3] = {0, 0, 90};
  vs_quat_from_euler_deg(rz, &r.s->q[4]);
  r.s->x[4] = 0.15;
  ck_assert_int_eq(vs_rigid_collide_collider(r.m, r.s, 1, 0, 0.0, c), 2);
  ck_assert_double_eq_tol(c[1].depth, 0.05, 1e-12);
  drop(&r);
}
END_TEST

START_TEST(mass_properties) {
  double I[3], box[3] = {1, 2, 3}, sph[3] = {0.5, 0, 0}, cap0[3] = {0.5, 0, 0};
  vs_rigid_inertia(VS_RIGID_BOX, box, 12.0, I);
  ck_assert_double_eq_tol(I[0], 13.0, 1e-12);
  ck_assert_double_eq_tol(I[1], 10.0, 1e-12);
  ck_assert_double_eq_tol(I[2], 5.0, 1e-12);
  vs_rigid_inertia(VS_RIGID_SPHERE, sph, 2.0, I);
  ck_assert_double_eq_tol(I[0], 0.2, 1e-12);
  /* a capsule of length 0 is a sphere */
  vs_rigid_inertia(VS_RIGID_CAPSULE, cap0, 2.0, I);
  ck_assert_double_eq_tol(I[0], 0.2, 1e-12);
  ck_assert_double_eq_tol(I[1], 0.2, 1e-12);
  ck_assert_double_eq_tol(vs_rigid_volume(VS_RIGID_CAPSULE, cap0),
                          vs_rigid_volume(VS_RIGID_SPHERE, sph), 1e-12);
  /* a long thin capsule tends to a rod: I = m l^2 / 12 */
  double rod[3] = {1e-3, 2.0, 0};
  vs_rigid_inertia(VS_RIGID_CAPSULE, rod, 3.0, I);
  ck_assert_double_eq_tol(I[0], 1.0, 1e-2);
  ck_assert_double_eq_tol(I[1], 0.0, 1e-5);
  /* density: a 1 m cube of 1000 kg/m^3 */
  vs_rmodel *m;
  ck_assert_int_eq(vs_rmodel_create(2, 0, 0, &m), VS_OK);
  double cube[3] = {1, 1, 1};
  ck_assert_int_eq(vs_rmodel_set_body(m, 0, VS_RIGID_BOX, cube, 0, 1000, 0, 0.5, 0), VS_OK);
  ck_assert_double_eq_tol(m->inv_mass[0], 1e-3, 1e-15);
  ck_assert_int_eq(vs_rmodel_set_body(m, 1, VS_RIGID_BOX, cube, 5, 0, 1, 0.5, 0), VS_OK);
  ck_assert(m->inv_mass[1] == 0 && m->inv_inertia[3] == 0);
  double bad[3] = {1, 0, 1};
  ck_assert_int_eq(vs_rmodel_set_body(m, 0, VS_RIGID_BOX, bad, 1, 0, 0, 0.5, 0), VS_ERR_USAGE);
  ck_assert_int_eq(vs_rmodel_set_body(m, 0, VS_RIGID_BOX, cube, 0, 0, 0, 0.5, 0), VS_ERR_USAGE);
  ck_assert_int_eq(vs_rmodel_set_body(m, 0, 7, cube, 1, 0, 0, 0.5, 0), VS_ERR_USAGE);
  vs_rmodel_free(m);
}
END_TEST

START_TEST(quaternions) {
  double q[4], R[9], v[3] = {1, 0, 0}, o[3];
  double deg[3] = {0, 0, 90};
  vs_quat_from_euler_deg(deg, q);
  vs_quat_to_mat(q, R);
  vs_mat3_mul(R, v, o);
  ck_assert_double_eq_tol(o[1], 1.0, 1e-12);
  /* fixed axes x then y: x 90 takes y to z, then y 90 takes z to x */
  double d2[3] = {90, 90, 0}, y[3] = {0, 1, 0};
  vs_quat_from_euler_deg(d2, q);
  vs_quat_to_mat(q, R);
  vs_mat3_mul(R, y, o);
  ck_assert_double_eq_tol(o[0], 1.0, 1e-12);
  /* integrating w = (0, 0, pi) for 1 s turns x into -x, unit length kept */
  double qi[4] = {1, 0, 0, 0}, w[3] = {0, 0, M_PI};
  for (int k = 0; k < 100; k++) vs_quat_integrate(qi, w, 0.01);
  vs_quat_to_mat(qi, R);
  vs_mat3_mul(R, v, o);
  ck_assert_double_eq_tol(o[0], -1.0, 1e-9);
  ck_assert_double_eq_tol(qi[0] * qi[0] + qi[1] * qi[1] + qi[2] * qi[2] + qi[3] * qi[3], 1.0,
                          1e-15);
}
END_TEST

/* Every row of the kind tables reaches the solver: each ordered pair of
 * shapes has a narrow-phase test, each shape a row of mass properties, each
 * joint kind a row of the joint table (a new row without them fails here). */
START_TEST(every_kind_has_its_rows) {
  for (int a = 0; a < VS_RIGID_SHAPE_COUNT; a++) {
    ck_assert_ptr_nonnull(vs_rshape_row_of(a));
    for (int b = 0; b < VS_RIGID_SHAPE_COUNT; b++)
      ck_assert_msg(vs_rigid_pair_known(a, b), "no test for shapes %s and %s",
                    vs_rigid_shape_name((vs_rigid_shape)a), vs_rigid_shape_name((vs_rigid_shape)b));
  }
  ck_assert_ptr_null(vs_rshape_row_of(VS_RIGID_SHAPE_COUNT));
  for (int k = 0; k < VS_JOINT_KIND_COUNT; k++) {
    ck_assert_ptr_nonnull(vs_rjoint_row_of(k));
    ck_assert(vs_rjoint_rows(k) >= 1 && vs_rjoint_rows(k) <= VS_RJOINT_MAX_ROWS);
  }
  ck_assert_ptr_null(vs_rjoint_row_of(VS_JOINT_KIND_COUNT));
}
END_TEST

int main(void) {
  Suite *s = suite_create("rigid");
  TCase *t = tcase_create("rigid");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, mass_properties);
  tcase_add_test(t, quaternions);
  tcase_add_test(t, narrow_phase_pairs);
  tcase_add_test(t, narrow_phase_colliders);
  tcase_add_test(t, box_box_follows_the_full_separating_axis_rule);
  tcase_add_test(t, box_slides_down_rough_incline);
  tcase_add_test(t, box_stays_on_incline_with_static_friction);
  tcase_add_test(t, sphere_rolls_without_slipping);
  tcase_add_test(t, restitution_half_bounces_to_a_quarter);
  tcase_add_test(t, torque_free_box_keeps_L_and_flips);
  tcase_add_test(t, oblique_box_collision_conserves_momentum);
  tcase_add_test(t, stack_of_eight_stands);
  tcase_add_test(t, ball_joint_chain_holds);
  tcase_add_test(t, distance_joint_to_world_keeps_length);
  tcase_add_test(t, two_runs_are_bitwise_equal);
  tcase_add_test(t, colored_solve_is_bitwise_across_threads);
  tcase_add_test(t, joints_are_colored);
  tcase_add_test(t, every_kind_has_its_rows);
  tcase_add_test(t, particle_contact_conserves_momentum);
  suite_add_tcase(s, t);
  return tu_run(s);
}
