/* SPDX-License-Identifier: MIT */
/* test_rigid_convex.c: convex hull rigid bodies (lib/model/hull.c,
 * lib/solve/rigid/rigid_convex.c): the hull's topology and mass properties
 * against closed forms, its invariants on random points, its canonical
 * order, a cube's hull moving as the same box, a fair die, resting contacts
 * with every shape and collider kind and with particles, crossed prisms'
 * exact edge and face contacts, and every bad input with exit 2 and
 * file:line:col. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runutil.h"
#include "model/hull.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"
#include "solve/rigid/rigid_narrow.h"
#include "util/detmath.h"
#include "util/quat.h"
#include "vsim/step.h"

/* A deterministic generator (no libc rand: the same numbers everywhere). */
static uint64_t rng_state = 88172645463325252ull;
static double rnd(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static vs_hull build_ok(const double *p, int n, double scale) {
  vs_hull h;
  char why[300];
  vs_status st = vs_hull_build(p, n, scale, &h, why, sizeof why);
  ck_assert_msg(st == VS_OK, "hull failed: %s", why);
  return h;
}

/* corners of a box of extents s, centred at c, turned by R (row-major) */
static void box_points(const double s[3], const double c[3], const double R[9], double *p) {
  for (int i = 0; i < 8; i++) {
    double l[3] = {(i & 1 ? 0.5 : -0.5) * s[0], (i & 2 ? 0.5 : -0.5) * s[1],
                   (i & 4 ? 0.5 : -0.5) * s[2]},
           w[3];
    vs_mat3_mul(R, l, w);
    for (int k = 0; k < 3; k++) p[3 * i + k] = c[k] + w[k];
  }
}

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

START_TEST(cube_hull_is_the_box) {
  double s[3] = {1, 1, 1}, c[3] = {0, 0, 0}, p[24];
  box_points(s, c, I3, p);
  vs_hull h = build_ok(p, 8, 1.0);
  ck_assert_int_eq(h.nv, 8);
  ck_assert_int_eq(h.nf, 6);
  ck_assert_int_eq(h.ne, 12);
  for (int f = 0; f < 6; f++) ck_assert_int_eq(h.fstart[f + 1] - h.fstart[f], 4);
  /* exact: the sums of a box's corners are exact (hull.c, mass_props) */
  ck_assert(h.volume == 1.0);
  double Ibox[3];
  vs_rigid_inertia(VS_RIGID_BOX, s, 1.0, Ibox);
  for (int k = 0; k < 3; k++) ck_assert(h.inertia[k] == Ibox[k]);
  ck_assert(h.rot[0] == 1.0 && h.rot[1] == 0 && h.rot[2] == 0 && h.rot[3] == 0);
  /* vertices in the box's corner order (bit 0 +x, bit 1 +y, bit 2 +z) */
  ck_assert_mem_eq(h.v, p, sizeof p);
  vs_hull_free(&h);
  /* an off-centre 3 x 2 x 1 box turned about two axes: the same volume and
   * moments to 1e-12, the centroid at its centre, its axes the frame */
  double s2[3] = {3, 2, 1}, c2[3] = {4, -7, 2.5}, q[4], R[9], deg[3] = {30, 40, 0};
  vs_quat_from_euler_deg(deg, q);
  vs_quat_to_mat(q, R);
  box_points(s2, c2, R, p);
  h = build_ok(p, 8, 1.0);
  ck_assert_int_eq(h.nf, 6);
  ck_assert_double_eq_tol(h.volume, 6.0, 1e-12);
  for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(h.centroid[k], c2[k], 1e-12);
  vs_rigid_inertia(VS_RIGID_BOX, s2, 1.0, Ibox);
  /* each principal axis is one of the box's, with its moment */
  double E[9];
  vs_quat_to_mat(h.rot, E);
  for (int k = 0; k < 3; k++) {
    double ax[3] = {E[k], E[3 + k], E[6 + k]}, best = 0;
    int j = 0;
    for (int m = 0; m < 3; m++) {
      double bm[3] = {R[m], R[3 + m], R[6 + m]}, d = fabs(vs_dot3(ax, bm));
      if (d > best) best = d, j = m;
    }
    ck_assert_double_eq_tol(best, 1.0, 1e-12);
    ck_assert_double_eq_tol(h.inertia[k], Ibox[j], 1e-12);
  }
  vs_hull_free(&h);
}
END_TEST

/* The right tetrahedron with legs a, b, c: volume abc/6, centroid at a
 * quarter of each leg, and the inertia tensor per unit mass about the
 * centroid J_xx = 3 (b^2 + c^2) / 80, J_xy = ab / 80 (from E[x^2] = a^2/10,
 * E[xy] = ab/20); the principal moments and axes diagonalise it. */
START_TEST(tetrahedron_mass_properties) {
  const double a = 1.0, b = 2.0, c = 3.0;
  double p[12] = {0, 0, 0, a, 0, 0, 0, b, 0, 0, 0, c};
  vs_hull h = build_ok(p, 4, 1.0);
  ck_assert_int_eq(h.nv, 4);
  ck_assert_int_eq(h.nf, 4);
  ck_assert_int_eq(h.ne, 6);
  ck_assert_double_eq_tol(h.volume, a * b * c / 6.0, 1e-14);
  ck_assert_double_eq_tol(h.centroid[0], a / 4, 1e-14);
  ck_assert_double_eq_tol(h.centroid[1], b / 4, 1e-14);
  ck_assert_double_eq_tol(h.centroid[2], c / 4, 1e-14);
  double J[9] = {3 * (b * b + c * c) / 80, a * b / 80, a * c / 80, a * b / 80,
                 3 * (a * a + c * c) / 80, b * c / 80, a * c / 80, b * c / 80,
                 3 * (a * a + b * b) / 80};
  double E[9];
  vs_quat_to_mat(h.rot, E);
  /* E diag(I) E^T == J */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double x = 0;
      for (int k = 0; k < 3; k++) x += E[3 * i + k] * h.inertia[k] * E[3 * j + k];
      ck_assert_msg(fabs(x - J[3 * i + j]) < 1e-13, "J[%d][%d] %.17g, want %.17g", i, j, x,
                    J[3 * i + j]);
    }
  /* the body-frame vertices are the input's, moved and turned */
  for (int i = 0; i < 4; i++) {
    double w[3];
    vs_mat3_mul(E, h.v + 3 * i, w);
    int found = 0;
    for (int j = 0; j < 4; j++) {
      double d = 0;
      for (int k = 0; k < 3; k++) d += fabs(w[k] + h.centroid[k] - p[3 * j + k]);
      found += d < 1e-13;
    }
    ck_assert_int_eq(found, 1);
  }
  vs_hull_free(&h);
}
END_TEST

/* 400 points in a ball: every point inside or on the hull, Euler's
 * formula, planar convex faces; a permuted input gives the same bits. */
START_TEST(random_points_hull_invariants) {
  enum { N = 400 };
  static double p[3 * N], q[3 * N];
  int n = 0;
  while (n < N) {
    double x[3] = {2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1};
    if (vs_dot3(x, x) > 1) continue;
    memcpy(p + 3 * n++, x, sizeof x);
  }
  vs_hull h = build_ok(p, N, 1.0);
  ck_assert_int_eq(h.nv - h.ne + h.nf, 2);
  ck_assert(h.nv >= 4 && h.nv <= VS_HULL_MAX_VERTS);
  const double tol = 1e-9 * 2; /* the build's eps: 1e-9 times the extent */
  double E[9];
  vs_quat_to_mat(h.rot, E);
  for (int i = 0; i < N; i++) { /* each input point, in the body frame */
    double d[3], l[3];
    vs_sub3(p + 3 * i, h.centroid, d);
    vs_mat3_mul_t(E, d, l);
    for (int f = 0; f < h.nf; f++)
      ck_assert_msg(vs_dot3(h.plane + 4 * f, l) - h.plane[4 * f + 3] <= tol,
                    "point %d outside face %d by %g", i, f,
                    vs_dot3(h.plane + 4 * f, l) - h.plane[4 * f + 3]);
  }
  for (int f = 0; f < h.nf; f++) {
    ck_assert_double_eq_tol(vs_len3(h.plane + 4 * f), 1.0, 1e-14);
    for (int k = h.fstart[f]; k < h.fstart[f + 1]; k++)
      ck_assert(fabs(vs_dot3(h.plane + 4 * f, h.v + 3 * h.fvert[k]) - h.plane[4 * f + 3]) <= tol);
  }
  for (int e = 0; e < h.ne; e++) { /* every edge between two faces */
    ck_assert(h.edge[4 * e] < h.edge[4 * e + 1]);
    ck_assert(h.edge[4 * e + 2] >= 0 && h.edge[4 * e + 3] >= 0);
    ck_assert(h.edge[4 * e + 2] != h.edge[4 * e + 3]);
  }
  /* reversed, then a rotation of the order: the same hull, bit for bit */
  for (int i = 0; i < N; i++) memcpy(q + 3 * i, p + 3 * ((N - 1 - i + 37) % N), 3 * sizeof(double));
  vs_hull g = build_ok(q, N, 1.0);
  ck_assert_int_eq(g.nv, h.nv);
  ck_assert_int_eq(g.nf, h.nf);
  ck_assert_int_eq(g.ne, h.ne);
  ck_assert_mem_eq(g.v, h.v, 3 * (size_t)h.nv * sizeof(double));
  ck_assert_mem_eq(g.plane, h.plane, 4 * (size_t)h.nf * sizeof(double));
  ck_assert_mem_eq(g.fvert, h.fvert, (size_t)h.fstart[h.nf] * sizeof(int32_t));
  ck_assert_mem_eq(g.edge, h.edge, 4 * (size_t)h.ne * sizeof(int32_t));
  ck_assert_mem_eq(g.inertia, h.inertia, sizeof h.inertia);
  vs_hull_free(&g);
  vs_hull_free(&h);
}
END_TEST

/* Points inside faces and on edges are not vertices; coplanar triangles
 * merge into one polygon: a 5 x 5 x 5 lattice is a cube of 8 vertices and
 * 6 quads; a prism of two 32-gons has the 32-gons as 2 faces and 32 quads,
 * volume 2 * 16 sin(2 pi / 32). */
START_TEST(coplanar_points_merge) {
  static double p[3 * 125];
  int n = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
      for (int k = 0; k < 5; k++, n++)
        p[3 * n] = 0.25 * i, p[3 * n + 1] = 0.25 * j, p[3 * n + 2] = 0.25 * k;
  vs_hull h = build_ok(p, n, 1.0);
  ck_assert_int_eq(h.nv, 8);
  ck_assert_int_eq(h.nf, 6);
  ck_assert_int_eq(h.ne, 12);
  ck_assert(h.volume == 1.0);
  vs_hull_free(&h);
  n = 0;
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < 32; i++, n++) {
      double sn, cs;
      vs_sincos_deg(360.0 * i / 32, &sn, &cs);
      p[3 * n] = cs, p[3 * n + 1] = s ? 1 : -1, p[3 * n + 2] = sn;
    }
  h = build_ok(p, n, 1.0);
  ck_assert_int_eq(h.nv, 64);
  ck_assert_int_eq(h.nf, 34);
  ck_assert_int_eq(h.ne, 96);
  int big = 0;
  for (int f = 0; f < h.nf; f++) {
    int len = h.fstart[f + 1] - h.fstart[f];
    ck_assert(len == 4 || len == 32);
    big += len == 32;
  }
  ck_assert_int_eq(big, 2);
  double sn, cs;
  vs_sincos_deg(360.0 / 32, &sn, &cs);
  ck_assert_double_eq_tol(h.volume, 32.0 * sn, 1e-13);
  vs_hull_free(&h);
}
END_TEST

/* Nearly degenerate sets, as scanned or exported meshes give: two slabs of
 * points 1e-10 of the extent off their planes (below the build's eps), and
 * two circle rims 1e-12 off theirs.  Each builds (a first attempt that
 * comes out open is retried with a larger eps), closed (Euler), holding
 * every point to 1e-7 of the extent. */
START_TEST(nearly_coplanar_sets_build) {
  static double p[3 * 300];
  for (int c = 0; c < 200; c++) {
    int n = 20 + c % 180;
    double sc = c % 3 == 0 ? 1e-3 : (c % 3 == 1 ? 1.0 : 1e3);
    for (int i = 0; i < n; i++) {
      double x = rnd() - 0.5, y = rnd() - 0.5, z = rnd() - 0.5;
      if (c & 1) {
        z = (rnd() < 0.5 ? -0.5 : 0.5) + 1e-10 * (rnd() - 0.5);
      } else {
        double sn, cs;
        vs_sincos_deg(360 * rnd(), &sn, &cs);
        x = 0.5 * cs, z = 0.5 * sn, y = (rnd() < 0.5 ? -0.5 : 0.5) * (1 + 1e-12 * rnd());
      }
      p[3 * i] = x * sc, p[3 * i + 1] = y * sc, p[3 * i + 2] = z * sc;
    }
    vs_hull h;
    char why[300];
    vs_status st = vs_hull_build(p, n, 1.0, &h, why, sizeof why);
    if (st == VS_ERR_LIMIT) continue; /* a rim of more than 256 distinct points */
    ck_assert_msg(st == VS_OK, "case %d (%d points): %s", c, n, why);
    ck_assert_int_eq(h.nv - h.ne + h.nf, 2);
    double E[9];
    vs_quat_to_mat(h.rot, E);
    for (int i = 0; i < n; i++) {
      double d[3], l[3];
      vs_sub3(p + 3 * i, h.centroid, d);
      vs_mat3_mul_t(E, d, l);
      for (int f = 0; f < h.nf; f++)
        ck_assert(vs_dot3(h.plane + 4 * f, l) - h.plane[4 * f + 3] <= 1e-7 * sc);
    }
    vs_hull_free(&h);
  }
}
END_TEST

static void expect_fail(const double *p, int n, vs_status code, const char *msg) {
  vs_hull h;
  char why[300];
  ck_assert_int_eq(vs_hull_build(p, n, 1.0, &h, why, sizeof why), code);
  ck_assert_msg(strstr(why, msg), "got '%s', want '%s'", why, msg);
  ck_assert_ptr_null(h.v);
}

START_TEST(degenerate_points_are_refused) {
  double three[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  expect_fail(three, 3, VS_ERR_SCENE, "expected at least 4 points for a convex hull, got 3");
  double same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
  expect_fail(same, 4, VS_ERR_SCENE, "all 4 points are the same point");
  double line[15] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0.5, 0.5, 0.5};
  expect_fail(line, 5, VS_ERR_SCENE, "the 5 points are on one line");
  double plane[15] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0.3, 0, 0.6};
  expect_fail(plane, 5, VS_ERR_SCENE, "the 5 points are in one plane");
  double nan4[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
  expect_fail(nan4, 4, VS_ERR_SCENE, "point 3 is not finite");
  /* 300 points on a sphere: every one a vertex, over the limit */
  static double sph[900];
  for (int i = 0; i < 300; i++) {
    double z = 1 - 2 * (i + 0.5) / 300, r = sqrt(1 - z * z), a = 2.399963229728653 * i;
    sph[3 * i] = r * cos(a), sph[3 * i + 1] = r * sin(a), sph[3 * i + 2] = z;
  }
  expect_fail(sph, 300, VS_ERR_LIMIT, "more than 256 (the documented limit)");
}
END_TEST

/* ---- scenes ---- */

#define CUBE                                                          \
  "[[-0.5,-0.5,-0.5],[0.5,-0.5,-0.5],[-0.5,0.5,-0.5],[0.5,0.5,-0.5]," \
  "[-0.5,-0.5,0.5],[0.5,-0.5,0.5],[-0.5,0.5,0.5],[0.5,0.5,0.5]]"

static tu_sim run_scene(const char *yaml, int frames) {
  tu_sim r = tu_sim_new(yaml);
  tu_sim_steps(&r, frames);
  return r;
}

/* A unit cube's hull (mass 1) thrown onto a plane moves as the same box,
 * bit for bit: the same corners in the same order, the same mass
 * properties, the same plane contacts.  Tumbling against a fixed box the
 * pair test differs (box-box and the general polyhedra test give the same
 * points to rounding, other feature ids and so another order of the
 * points): within 1e-9 over 300 frames. */
START_TEST(cube_hull_moves_as_the_box) {
#define FMT                                                                \
  "world: {colliders: [{plane: {friction: 0.5}}]}\ntime: {frames: 300}\n"  \
  "bodies:\n  - rigid: {%s, position: [0, 1, 0], rotation: [20, 10, 30], " \
  "angular_velocity: [1, 2, 3], velocity: [%s, 0, 0]}\n%s"
  char ya[2048], yb[2048];
  const char *fixed = "  - rigid: {position: [2.5, 0.5, 0], fixed: true}\n";
  for (int pass = 0; pass < 2; pass++) {
    snprintf(ya, sizeof ya, FMT, "shape: convex, points: " CUBE, pass ? "5" : "1",
             pass ? fixed : "");
    snprintf(yb, sizeof yb, FMT, "size: [1, 1, 1]", pass ? "5" : "1", pass ? fixed : "");
    tu_sim a = run_scene(ya, 300), b = run_scene(yb, 300);
    double dx = 0, dq = 0;
    for (int k = 0; k < 3; k++) dx = fmax(dx, fabs(a.s->rx[k] - b.s->rx[k]));
    for (int k = 0; k < 4; k++) dq = fmax(dq, fabs(a.s->rq[k] - b.s->rq[k]));
    if (pass == 0) {
      ck_assert_msg(dx == 0 && dq == 0, "plane: %g %g", dx, dq);
    } else {
      ck_assert_msg(dx < 1e-9 && dq < 1e-9, "box: %g %g", dx, dq);
      ck_assert(a.s->rx[0] > 1.0); /* it reached the box */
    }
    ck_assert_double_eq_tol(a.s->rx[1], 0.5, 0.005); /* resting on a face */
    tu_sim_free(&a);
    tu_sim_free(&b);
  }
}
END_TEST

/* 600 throws of a cube hull onto a plane (bodies that do not collide with
 * each other), each with its own spin: each face ends up on top between 77
 * and 123 times, the 99 % interval of Binomial(600, 1/6) (100 +- 2.576 *
 * 9.13).  The die's 6 faces are told by the body axis nearest to up. */
START_TEST(die_is_fair) {
  enum { N = 600 };
  vs_rmodel *m;
  ck_assert_int_eq(vs_rmodel_create(N, 1, 0, &m), VS_OK);
  m->colliders[0].kind = VS_COLLIDER_PLANE;
  m->colliders[0].b[1] = 1;
  m->colliders[0].friction = 0.5;
  m->colliders[0].restitution = 0.3;
  double s[3] = {0.2, 0.2, 0.2}, c[3] = {0, 0, 0}, p[24];
  box_points(s, c, I3, p);
  for (int i = 0; i < N; i++) {
    vs_hull h = build_ok(p, 8, 1.0);
    ck_assert_int_eq(vs_rmodel_set_hull(m, i, &h, 0.1, 0, 0, 0.5, 0.3), VS_OK);
    m->group_bits[i] = 2u;
    m->mask[i] = 1u;
  }
  vs_rstate *st;
  vs_rwork *w;
  ck_assert_int_eq(vs_rstate_create(m, &st), VS_OK);
  ck_assert_int_eq(vs_rwork_create(m, &w), VS_OK);
  for (int i = 0; i < N; i++) {
    st->x[3 * i] = 3.0 * (i % 25);
    st->x[3 * i + 1] = 0.6 + 0.4 * rnd();
    st->x[3 * i + 2] = 3.0 * (i / 25);
    double deg[3] = {360 * rnd(), 360 * rnd(), 360 * rnd()};
    vs_quat_from_euler_deg(deg, &st->q[4 * i]);
    for (int k = 0; k < 3; k++) st->w[3 * i + k] = 30 * (2 * rnd() - 1);
    st->v[3 * i] = 2 * rnd() - 1;
    st->v[3 * i + 2] = 2 * rnd() - 1;
  }
  for (int f = 0; f < 240; f++) vs_rigid_step(m, st, w, 1.0 / 60);
  int count[6] = {0};
  for (int i = 0; i < N; i++) {
    double R[9];
    vs_quat_to_mat(&st->q[4 * i], R);
    int face = -1;
    for (int k = 0; k < 3; k++) { /* row 1 of R: the body axes' y components */
      if (R[3 + k] > 0.99) face = 2 * k;
      if (R[3 + k] < -0.99) face = 2 * k + 1;
    }
    ck_assert_msg(face >= 0, "die %d is not resting on a face", i);
    ck_assert_msg(vs_len3(&st->v[3 * i]) < 1e-2, "die %d still moves", i);
    ck_assert_double_eq_tol(st->x[3 * i + 1], 0.1, 0.005);
    count[face]++;
  }
  for (int k = 0; k < 6; k++)
    ck_assert_msg(count[k] >= 77 && count[k] <= 123, "face %d came up %d times of %d", k, count[k],
                  N);
  vs_rwork_free(w);
  vs_rstate_free(st);
  vs_rmodel_free(m);
}
END_TEST

/* Bodies at rest on and under a cube hull of side 1 (the resting height
 * follows from the geometry; within the slop 0.005 plus the solver's
 * settling): the hull on a plane, on a box collider, in bounds, on a
 * sphere collider's top, on a fixed box body, on a fixed hull; a box, a
 * sphere, a capsule and a hull on a fixed hull. */
START_TEST(resting_contacts_with_every_kind) {
  static const struct {
    const char *world, *bodies;
    double y; /* the moving body's resting height */
  } cases[] = {
      {"[{plane: {}}]", "[{rigid: {shape: convex, points: " CUBE ", position: [0, 0.8, 0]}}]", 0.5},
      {"[{box: {min: [-2, -1, -2], max: [2, 0, 2]}}]",
       "[{rigid: {shape: convex, points: " CUBE ", position: [0, 0.8, 0]}}]", 0.5},
      {"[{bounds: {min: [-2, 0, -2], max: [2, 5, 2]}}]",
       "[{rigid: {shape: convex, points: " CUBE ", position: [0, 0.8, 0]}}]", 0.5},
      {"[{sphere: {center: [0, -10, 0], radius: 10}}]",
       "[{rigid: {shape: convex, points: " CUBE ", position: [0, 0.8, 0]}}]", 0.5},
      {"[]",
       "[{rigid: {fixed: true, size: [3, 1, 3]}}, {rigid: {shape: convex, points: " CUBE
       ", position: [0, 1.3, 0]}}]",
       1.0},
      {"[]",
       "[{rigid: {fixed: true, shape: convex, points: " CUBE ", scale: 3}}, {rigid: {shape: "
       "convex, points: " CUBE ", position: [0, 2.3, 0], rotation: [0, 30, 0]}}]",
       2.0},
      {"[]",
       "[{rigid: {fixed: true, shape: convex, points: " CUBE ", scale: 3}}, {rigid: {size: "
       "[1, 1, 1], position: [0, 2.3, 0]}}]",
       2.0},
      {"[]",
       "[{rigid: {fixed: true, shape: convex, points: " CUBE ", scale: 3}}, {rigid: {shape: "
       "sphere, radius: 0.4, position: [0.3, 2.3, 0.2]}}]",
       1.9},
      {"[]",
       "[{rigid: {fixed: true, shape: convex, points: " CUBE ", scale: 3}}, {rigid: {shape: "
       "capsule, radius: 0.2, length: 1, rotation: [0, 0, 90], position: [0, 2.3, 0]}}]",
       1.7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char y[4096];
    snprintf(y, sizeof y, "world: {colliders: %s}\nbodies: %s\n", cases[i].world, cases[i].bodies);
    tu_sim r = run_scene(y, 120);
    int b = r.m->n_rigid - 1;
    ck_assert_msg(fabs(r.s->rx[3 * b + 1] - cases[i].y) < 0.006, "case %zu: at %.6f, want %g", i,
                  r.s->rx[3 * b + 1], cases[i].y);
    ck_assert_msg(vs_len3(&r.s->rv[3 * b]) < 1e-2, "case %zu still moves", i);
    tu_sim_free(&r);
  }
}
END_TEST

/* Particles dropped on a fixed hull stop on its top face (radius 0.05:
 * centres at 1.5 + 0.05, to the particle solver's tolerance); a particle
 * beside it falls past. */
START_TEST(particles_stop_on_a_hull) {
  tu_sim r = run_scene("bodies:\n  - rigid: {fixed: true, shape: convex, points: " CUBE
                       ", scale: 3}\n  - particles: {positions: [[0, 3, 0], [1, 2.5, -1], "
                       "[3, 3, 0]], radius: 0.05}\n",
                       120);
  for (int i = 0; i < 2; i++)
    ck_assert_msg(fabs(tu_sim_x(&r, i)[1] - 1.55) < 0.01, "particle %d at %g", i,
                  tu_sim_x(&r, i)[1]);
  ck_assert(tu_sim_x(&r, 2)[1] < 0.0);
  tu_sim_free(&r);
}
END_TEST

/* A hull rests on a floor of two triangles (a mesh collider). */
START_TEST(hull_rests_on_a_mesh) {
  char *obj = cu_strf("%s/floor.obj", tu_dir());
  cu_write(obj, "v -3 0 -3\nv 3 0 -3\nv 3 0 3\nv -3 0 3\nf 1 3 2\nf 1 4 3\n");
  char *y = cu_strf(
      "world: {colliders: [{mesh: {file: '%s', friction: 0.5}}]}\nbodies:\n"
      "  - rigid: {shape: convex, points: " CUBE
      ", position: [0.2, 1, 0.1], "
      "rotation: [10, 20, 5]}\n",
      obj);
  tu_sim r = run_scene(y, 180);
  ck_assert_msg(fabs(r.s->rx[1] - 0.5) < 0.006, "at %g", r.s->rx[1]);
  ck_assert(vs_len3(r.s->rv) < 1e-2);
  tu_sim_free(&r);
  free(y);
  free(obj);
}
END_TEST

/* An OBJ's vertices as the points (faces ignored), scaled, relative to
 * the scene file: the same hull as the points. */
START_TEST(file_and_points_give_one_body) {
  char *obj = cu_strf("%s/rock.obj", tu_dir());
  cu_write(obj,
           "v -1 -1 -1\nv 1 -1 -1\nv -1 1 -1\nv 1 1 -1\nv -1 -1 1\nv 1 -1 1\nv -1 1 1\n"
           "v 1 1 1\nv 0 0 0\nf 1 2 3\n");
  char *scene = cu_strf("%s/s.yaml", tu_dir());
  cu_write(scene,
           "time: {frames: 30}\nworld: {colliders: [{plane: {}}]}\nbodies:\n"
           "  - rigid: {shape: convex, file: rock.obj, scale: 0.5, position: [0, 1, 0]}\n");
  char *scene2 = cu_strf("%s/t.yaml", tu_dir());
  cu_write(scene2,
           "time: {frames: 30}\nworld: {colliders: [{plane: {}}]}\nbodies:\n"
           "  - rigid: {shape: convex, points: " CUBE ", position: [0, 1, 0]}\n");
  cu_proc p = cu_vsim(tu_dir(), "run", "s.yaml", "-o", "s.h5", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "t.yaml", "-o", "t.h5", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "s.h5", "t.h5", "--only", "/particles/rigid", (char *)NULL);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  /* --resume reads the OBJ again: the same bits; a changed OBJ is refused */
  p = cu_vsim(tu_dir(), "run", "s.yaml", "-o", "r.h5", "-q", "--frames", "11", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "30", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "s.h5", "r.h5", (char *)NULL);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "s.yaml", "-o", "c.h5", "-q", "--frames", "11", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_write(obj,
           "v -1 -1 -1\nv 1 -1 -1\nv -1 1 -1\nv 1 1 -1\nv -1 -1 1\nv 1 -1 1\nv -1 1 1\n"
           "v 1 1 2\nf 1 2 3\n");
  p = cu_vsim(tu_dir(), "run", "--resume", "c.h5", "--frames", "30", "-q", (char *)NULL);
  ck_assert_int_ne(p.code, 0);
  CU_EXPECT_IN(p.err, "is not what the run read");
  cu_free(&p);
  free(scene2);
  free(scene);
  free(obj);
}
END_TEST

/* A pile of hulls: the same bits on 1 and 3 threads, with jacobi, and
 * across --resume. */
START_TEST(bitwise_across_threads_and_resume) {
  char *scene = cu_strf("%s/p.yaml", tu_dir());
  char body[8192] = "";
  for (int i = 0; i < 12; i++) {
    char one[600];
    snprintf(one, sizeof one,
             "  - rigid: {shape: convex, points: [[0,0,0],[0.4,0,0.1],[0,0.3,0],[0.1,0,0.35],"
             "[0.3,0.3,0.3],[0.2,0.1,-0.1]], position: [%g, %g, %g], rotation: [%d, %d, 0]}\n",
             0.3 * (i % 3), 0.5 + 0.45 * i, 0.2 * (i % 2), 17 * i, 29 * i);
    strcat(body, one);
  }
  char *text = cu_strf(
      "time: {frames: 90}\nworld: {colliders: [{plane: {friction: 0.6}}, "
      "{bounds: {min: [-0.6, -1, -0.6], max: [1.2, 9, 0.8]}}]}\nbodies:\n%s",
      body);
  cu_write(scene, text);
  const char *runs[][4] = {{"t1.h5", "--threads", "1", NULL},
                           {"t3.h5", "--threads", "3", NULL},
                           {"r.h5", "--frames", "41", NULL}};
  for (int k = 0; k < 3; k++) {
    cu_proc p = cu_vsim(tu_dir(), "run", "p.yaml", "-o", runs[k][0], "-q", runs[k][1], runs[k][2],
                        (char *)NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "90", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  const char *pairs[][2] = {{"t1.h5", "t3.h5"}, {"t1.h5", "r.h5"}};
  for (int k = 0; k < 2; k++) {
    p = cu_vsim(tu_dir(), "compare", pairs[k][0], pairs[k][1], (char *)NULL);
    CU_EXPECT_CODE(p, 0);
    CU_EXPECT_IN(p.out, "equal");
    cu_free(&p);
  }
  /* jacobi colours: 1 and 3 threads */
  for (int k = 0; k < 2; k++) {
    p = cu_vsim(tu_dir(), "run", "p.yaml", "-o", k ? "j3.h5" : "j1.h5", "-q", "--threads",
                k ? "3" : "1", "--set", "solver.relaxation=jacobi", (char *)NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  p = cu_vsim(tu_dir(), "compare", "j1.h5", "j3.h5", (char *)NULL);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  free(text);
  free(scene);
}
END_TEST

/* The result file holds each hull (for vsim render) and, with output.xdmf,
 * its faces as triangles for the sidecar: a tetrahedron (4 triangles) and a
 * cube (6 quads: 12) beside a box (12). */
START_TEST(result_file_draws_the_hulls) {
  char *scene = cu_strf("%s/d.yaml", tu_dir());
  cu_write(scene, "time: {frames: 10}\noutput: {xdmf: true}\nworld: {colliders: [{plane: {}}]}\n"
                  "bodies:\n  - rigid: {shape: convex, points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], "
                  "[0, 0, 1]], position: [0, 1, 0]}\n"
                  "  - rigid: {size: [1, 1, 1], position: [3, 1, 0]}\n"
                  "  - rigid: {shape: convex, points: " CUBE ", position: [-3, 1, 0]}\n");
  cu_proc p = cu_vsim(tu_dir(), "run", "d.yaml", "-o", "d.h5", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", "d.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "/particles/rigid/hull_vertices                    [12, 3] float64");
  CU_EXPECT_IN(p.out, "/particles/rigid/hull_triangles                   [16, 3] int32");
  CU_EXPECT_IN(p.out, "/particles/rigid/hull_range                       [3, 4] int32");
  CU_EXPECT_IN(p.out, "/connectivity/rigid_triangles                     [28, 3] int32");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "render", "d.h5", "-o", "d.png", (char *)NULL);
  if (p.code != 0 && strstr(p.err, "cannot load cairo")) { /* arm64 under qemu: no cairo */
    cu_free(&p);
    free(scene);
    TU_SKIP("render: vsim cannot load cairo here");
  }
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *png = cu_strf("%s/d.png", tu_dir());
  size_t len = 0;
  char *bytes = tu_slurp(png, &len);
  ck_assert_ptr_nonnull(bytes);
  ck_assert(len > 1000 && !memcmp(bytes + 1, "PNG", 3));
  free(bytes);
  free(png);
  free(scene);
}
END_TEST

/* Each bad convex input: exit 2, file:line:col and the key, no output. */
START_TEST(bad_convex_inputs_exit_2) {
  static const struct {
    const char *yaml, *msg;
  } cases[] = {
      {"bodies:\n  - rigid: {shape: convex, points: [[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, "
       "1]]}\n",
       "bad.yaml:2:36: bodies.0.rigid.points: the 4 points are in one plane: no solid"},
      {"bodies:\n  - rigid: {shape: convex, points: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}\n",
       "bad.yaml:2:36: bodies.0.rigid.points: expected at least 4 points for a convex hull, got 3"},
      {"bodies:\n  - rigid: {shape: convex, file: r.obj, points: [[0, 0, 0]]}\n",
       "bad.yaml:2:34: bodies.0.rigid.file: expected either points or file, got both"},
      {"bodies:\n  - rigid: {shape: convex, file: missing.obj}\n",
       "bad.yaml:2:34: bodies.0.rigid.file: missing.obj: cannot read mesh file 'missing.obj'"},
      {"bodies:\n  - rigid: {shape: convex}\n",
       "bad.yaml:2:12: bodies.0.rigid: shape convex: expected its points, as `points` or as the "
       "vertices of an OBJ `file`, got neither"},
      {"bodies:\n  - rigid: {size: [1, 1, 1], points: [[0, 0, 0]]}\n",
       "bad.yaml:2:38: bodies.0.rigid.points: only a rigid body of shape convex has points"},
      {"bodies:\n  - rigid: {shape: convex, points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "
       "scale: 0}\n",
       "bad.yaml:2:89: bodies.0.rigid.scale: expected a finite number > 0, got 0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cu_expect_refused(i, cases[i].yaml, NULL, cases[i].msg);
  }
  /* --set reaches the keys */
  char *scene = cu_strf("%s/bad.yaml", tu_dir());
  cu_write(scene, "bodies:\n  - rigid: {name: r}\n");
  cu_proc p = cu_vsim(tu_dir(), "validate", "bad.yaml", "--set", "bodies.r.shape=convex", "--set",
                      "bodies.r.points=[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  free(scene);
}
END_TEST

/* A regular n-gon prism of circumradius 1 and length 1: axis along z
 * (along x when along_x), a vertex (phase 0) or a face (phase 1) straight
 * up (down when along_x), placed as given with c its centre: the hull's
 * body frame turned back to the input frame, so that the world vertices
 * are the input points. */
static vs_hull prism(int n, int along_x, int phase, double cy, shp *s) {
  double p[2 * 64 * 3];
  for (int k = 0; k < n; k++) {
    double t = 2 * M_PI * (k + 0.5 * phase) / n, u = sin(t), w = cos(t);
    for (int e = 0; e < 2; e++) {
      double *q = p + 3 * (2 * k + e), ax = e ? 0.5 : -0.5;
      if (along_x)
        q[0] = ax, q[1] = -w, q[2] = u;
      else
        q[0] = u, q[1] = w, q[2] = ax;
    }
  }
  vs_hull h = build_ok(p, 2 * n, 1.0);
  memset(s, 0, sizeof *s);
  s->shape = VS_RIGID_CONVEX;
  vs_quat_to_mat(h.rot, s->R);
  for (int k = 0; k < 3; k++) s->c[k] = h.centroid[k];
  s->c[1] += cy;
  return h;
}

/* Two prisms crossed, a's axis along z, b's along x, b above a by 2 r - 0.01
 * (r the distance from the axis to the touching feature): vertex edge on
 * vertex edge, the edge pair's contact, 0.01 deep at (0, r - 0.005, 0),
 * normal +y; face on face, every point 0.01 deep, normal +y.  With 6 sides
 * (18 edges, 8 faces) and with 40 (120 edges, 42 faces: past the 64 that
 * the edge query's face sets hold, its plain scan) the same. */
START_TEST(crossed_prisms_touch_exactly) {
  const double dep = 0.01, tol = 1e-12;
  const int sides[2] = {6, 40};
  for (int c = 0; c < 4; c++) {
    int n = sides[c & 1], face = c >> 1;
    double r = face ? cos(M_PI / n) : 1.0;
    shp a, b;
    vs_hull ha = prism(n, 0, face, 0.0, &a);
    vs_hull hb = prism(n, 1, face, 2 * r - dep, &b);
    a.hull = &ha, b.hull = &hb;
    ck_assert_int_eq(ha.ne, 3 * n);
    ck_assert_int_eq(ha.nf, n + 2);
    cpt o[VS_RIGID_MANIFOLD];
    int m = vs_rc_poly_poly(&a, &b, 0.02, o);
    if (!face) {
      ck_assert_msg(m == 1, "%d sides, edges: %d points", n, m);
      ck_assert_msg(o[0].feature >> 31, "%d sides: not an edge contact (%#x)", n, o[0].feature);
      double want[3] = {0, 1 - 0.5 * dep, 0};
      for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(o[0].p[k], want[k], tol);
    } else {
      ck_assert_msg(m == 4, "%d sides, faces: %d points", n, m);
    }
    for (int i = 0; i < m; i++) {
      ck_assert_msg(fabs(o[i].depth - dep) < tol, "%d sides, %s: depth %.17g", n,
                    face ? "faces" : "edges", o[i].depth);
      ck_assert_double_eq_tol(o[i].n[0], 0, tol);
      ck_assert_double_eq_tol(o[i].n[1], 1, tol);
      ck_assert_double_eq_tol(o[i].n[2], 0, tol);
      if (face) ck_assert_double_eq_tol(o[i].p[1], r - 0.5 * dep, tol);
    }
    /* lifted 0.03 apart: beyond the margin, no contact */
    b.c[1] += dep + 0.03;
    ck_assert_int_eq(vs_rc_poly_poly(&a, &b, 0.02, o), 0);
    vs_hull_free(&ha);
    vs_hull_free(&hb);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rigid_convex");
  TCase *t = tcase_create("hull");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, cube_hull_is_the_box);
  tcase_add_test(t, tetrahedron_mass_properties);
  tcase_add_test(t, random_points_hull_invariants);
  tcase_add_test(t, coplanar_points_merge);
  tcase_add_test(t, nearly_coplanar_sets_build);
  tcase_add_test(t, degenerate_points_are_refused);
  tcase_add_test(t, cube_hull_moves_as_the_box);
  tcase_add_test(t, die_is_fair);
  tcase_add_test(t, resting_contacts_with_every_kind);
  tcase_add_test(t, particles_stop_on_a_hull);
  tcase_add_test(t, crossed_prisms_touch_exactly);
  suite_add_tcase(s, t);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 120);
  tcase_add_checked_fixture(cli, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(cli, hull_rests_on_a_mesh);
  tcase_add_test(cli, file_and_points_give_one_body);
  tcase_add_test(cli, bitwise_across_threads_and_resume);
  tcase_add_test(cli, result_file_draws_the_hulls);
  tcase_add_test(cli, bad_convex_inputs_exit_2);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) {
  return tu_run(suite());
}
