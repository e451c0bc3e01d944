/* SPDX-License-Identifier: MIT */
/* test_rigid_mesh.c: rigid bodies against mesh colliders:
 * the contact points a flat mesh gives a box and a sphere (four corners, face
 * normals, no edge contact from a neighbouring triangle); a box, a sphere and
 * a capsule dropped on a flat OBJ floor against the same scene on a plane
 * (bitwise while falling, the same rest height); a sphere rolling down a mesh
 * incline at (5/7) g sin 30 and a box sliding at g (sin 30 - 0.2 cos 30); a
 * box, a sphere and a capsule dropped on an icosphere mesh never sink into it
 * deeper than the slop + 1 mm; bitwise results across --threads and --resume. */
#include <math.h>

#include "runutil.h"
#include "model/bvh.h"
#include "model/model_private.h"
#include "solve/rigid/rigid.h"

/* A two-triangle floor (the square [-1, 1]^2 at y = 0, its diagonal from
 * (-1, -1) to (1, 1)) written to the test's directory. */
static char *two_triangles(void) {
  char *p = cu_strf("%s/two.obj", tu_dir());
  cu_write(p, "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nf 1 3 2\nf 1 4 3\n");
  return p;
}

/* The model of a scene (y is freed). */
static vs_model *model_of(char *y) {
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_scene_free(sc);
  free(y);
  return m;
}

/* ---- the narrow phase -------------------------------------------------------- */

START_TEST(box_on_a_flat_mesh_gets_its_four_corners) {
  char *obj = two_triangles();
  /* the box across the diagonal, 2 mm into the floor */
  vs_model *m = model_of(cu_strf(
      "world: {colliders: [{mesh: {file: \"%s\"}}]}\n"
      "bodies: [{rigid: {name: b, size: [0.4, 0.2, 0.3], position: [0.05, 0.098, 0.02]}}]\n", obj));
  vs_state *s = tu_state(m);
  vs_rstate rs = {.n_bodies = 1, .x = s->rx, .q = s->rq, .v = s->rv, .w = s->rw};
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  int n = vs_rigid_collide_collider(m->priv->rigid, &rs, 0, 0, 0.02, c);
  ck_assert_int_eq(n, 4);
  int corners = 0;
  for (int k = 0; k < n; k++) {
    ck_assert(c[k].n[0] == 0 && c[k].n[1] == -1 && c[k].n[2] == 0);
    ck_assert_msg(fabs(c[k].depth - 0.002) < 1e-12, "depth %g", c[k].depth);
    if (k > 0) ck_assert_uint_gt(c[k].feature, c[k - 1].feature); /* sorted, distinct */
    double dx = fabs(c[k].p[0] - 0.05), dz = fabs(c[k].p[2] - 0.02);
    corners += fabs(dx - 0.2) < 1e-12 && fabs(dz - 0.15) < 1e-12;
    ck_assert_msg(fabs(c[k].p[1] + 0.001) < 1e-12, "midway between the surfaces: %g", c[k].p[1]);
  }
  ck_assert_int_eq(corners, 4);
  /* the same points again: features name the same corners */
  vs_rcontact d[VS_RIGID_PAIR_MAX];
  ck_assert_int_eq(vs_rigid_collide_collider(m->priv->rigid, &rs, 0, 0, 0.02, d), 4);
  for (int k = 0; k < n; k++) ck_assert_uint_eq(c[k].feature, d[k].feature);
  /* lifted beyond the margin: nothing */
  s->rx[1] = 0.1 + 0.021;
  ck_assert_int_eq(vs_rigid_collide_collider(m->priv->rigid, &rs, 0, 0, 0.02, c), 0);
  vs_state_free(s);
  vs_model_free(m);
  free(obj);
}
END_TEST

START_TEST(sphere_on_an_interior_edge_gets_one_face_contact) {
  char *obj = two_triangles();
  vs_model *m = model_of(cu_strf(
      "world: {colliders: [{mesh: {file: \"%s\", friction: 0.3}}]}\n"
      "bodies: [{rigid: {name: b, shape: sphere, radius: 0.25, position: [0.1, 0.248, 0.1001]}}]\n",
      obj));
  vs_state *s = tu_state(m);
  vs_rstate rs = {.n_bodies = 1, .x = s->rx, .q = s->rq, .v = s->rv, .w = s->rw};
  vs_rcontact c[VS_RIGID_PAIR_MAX];
  /* the centre 0.1 mm off the diagonal: one triangle's face region holds it,
   * the other's closest point is on the shared edge (a tilted normal that
   * would snag a rolling ball): only the face contact is kept */
  int n = vs_rigid_collide_collider(m->priv->rigid, &rs, 0, 0, 0.02, c);
  ck_assert_int_eq(n, 1);
  ck_assert(c[0].n[0] == 0 && c[0].n[1] == -1 && c[0].n[2] == 0);
  ck_assert_msg(fabs(c[0].depth - 0.002) < 1e-12, "depth %g", c[0].depth);
  ck_assert_int_eq(c[0].b, -1);
  /* over a corner of the mesh, outside it: the corner's contact, along the
   * line from the corner to the centre */
  s->rx[0] = 1.1, s->rx[1] = 0.2, s->rx[2] = 1.1;
  n = vs_rigid_collide_collider(m->priv->rigid, &rs, 0, 0, 0.02, c);
  ck_assert_int_eq(n, 1);
  const double len = sqrt(0.01 + 0.04 + 0.01);
  ck_assert_msg(fabs(c[0].n[0] + 0.1 / len) < 1e-12 && fabs(c[0].n[1] + 0.2 / len) < 1e-12,
                "normal %g %g %g", c[0].n[0], c[0].n[1], c[0].n[2]);
  ck_assert_msg(fabs(c[0].depth - (0.25 - len)) < 1e-12, "depth %g", c[0].depth);
  vs_state_free(s);
  vs_model_free(m);
  free(obj);
}
END_TEST

/* ---- a flat mesh floor against a plane ------------------------------------- */

static const char *const DROP =
    "time: {dt: 1/60}\n"
    "world: {colliders: [%s]}\n"
    "bodies: [{rigid: {name: b, %s, position: [0.05, 0.6, 0.07], friction: 0.5}}]\n";

static void floor_vs_plane(const char *shape, double rest) {
  char *obj = cu_repo_path("configs/meshes/floor.obj");
  char *mesh = cu_strf("{mesh: {file: \"%s\", friction: 0.5}}", obj);
  char *ya = cu_strf(DROP, "{plane: {friction: 0.5}}", shape);
  char *yb = cu_strf(DROP, mesh, shape);
  vs_scene *sa = tu_scene(ya), *sb = tu_scene(yb);
  vs_model *ma = tu_model(sa), *mb = tu_model(sb);
  vs_state *a = tu_state(ma), *b = tu_state(mb);
  /* falling: 0.5 m - the margin takes 18 frames; until then bitwise */
  for (int f = 0; f < 15; f++) {
    tu_steps(ma, a, 1);
    tu_steps(mb, b, 1);
    ck_assert_msg(!memcmp(a->rx, b->rx, 3 * sizeof(double)) &&
                      !memcmp(a->rv, b->rv, 3 * sizeof(double)) &&
                      !memcmp(a->rq, b->rq, 4 * sizeof(double)),
                  "%s: frame %d differs", shape, f + 1);
  }
  tu_steps(ma, a, 165);
  tu_steps(mb, b, 165);
  ck_assert_msg(fabs(a->rx[1] - b->rx[1]) < 1e-3, "%s: rest at %.6f on the plane, %.6f on the mesh",
                shape, a->rx[1], b->rx[1]);
  ck_assert_msg(fabs(b->rx[1] - rest) < 1e-3, "%s: rest at %.6f, want %.6f", shape, b->rx[1], rest);
  /* Where each comes to rest: a sequential-impulse landing slips a few
   * millimetres (the points are solved one after another), and the plane
   * and the mesh give the same four corners in different orders (the mesh's
   * by triangle), so they slip in different directions (a box of 0.4 m: 2.6
   * mm each, mirrored in z).  Each must stay within 5 mm of where it fell. */
  const vs_state *both[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    const double dx = both[k]->rx[0] - 0.05, dz = both[k]->rx[2] - 0.07;
    ck_assert_msg(sqrt(dx * dx + dz * dz) < 5e-3, "%s on the %s: rests %g m from where it fell",
                  shape, k ? "mesh" : "plane", sqrt(dx * dx + dz * dz));
  }
  const double v = sqrt(b->rv[0] * b->rv[0] + b->rv[1] * b->rv[1] + b->rv[2] * b->rv[2]);
  ck_assert_msg(v < 1e-3, "%s: still moving at %g m/s", shape, v);
  vs_state_free(a), vs_state_free(b);
  vs_model_free(ma), vs_model_free(mb);
  vs_scene_free(sa), vs_scene_free(sb);
  free(ya), free(yb), free(mesh), free(obj);
}

START_TEST(box_rests_on_a_mesh_floor_as_on_a_plane) {
  floor_vs_plane("size: [0.4, 0.2, 0.4]", 0.1);
}
END_TEST

/* A box set down across floor.obj's triangle edges, turned 30 degrees, stays
 * put for 10 s: within 1 mm of where it settled, as still as on a plane. */
START_TEST(box_stands_still_on_a_mesh_floor) {
  char *obj = cu_repo_path("configs/meshes/floor.obj");
  char *y = cu_strf("time: {dt: 1/60}\n"
                    "world: {colliders: [{mesh: {file: \"%s\", friction: 0.6}}]}\n"
                    "bodies: [{rigid: {name: b, size: [0.5, 0.3, 0.4], position: [0.33, 0.15, 0.34], "
                    "rotation: [0, 30, 0], friction: 0.6}}]\n",
                    obj);
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  tu_steps(m, s, 30);
  double x0[3], q0[4];
  memcpy(x0, s->rx, sizeof x0);
  memcpy(q0, s->rq, sizeof q0);
  ck_assert_msg(fabs(x0[1] - 0.15) < 1e-3, "settled at %.6f", x0[1]);
  for (int f = 0; f < 600; f++) {
    tu_steps(m, s, 1);
    const double d = sqrt((s->rx[0] - x0[0]) * (s->rx[0] - x0[0]) + (s->rx[1] - x0[1]) * (s->rx[1] - x0[1]) +
                          (s->rx[2] - x0[2]) * (s->rx[2] - x0[2]));
    ck_assert_msg(d < 1e-3, "frame %d: %g m from where it settled", f, d);
  }
  double dq = 0;
  for (int k = 0; k < 4; k++) dq += fabs(s->rq[k] - q0[k]);
  ck_assert_msg(dq < 1e-3, "turned by %g", dq);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
  free(y), free(obj);
}
END_TEST

START_TEST(sphere_rests_on_a_mesh_floor_as_on_a_plane) {
  floor_vs_plane("shape: sphere, radius: 0.15", 0.15);
}
END_TEST

START_TEST(capsule_rests_on_a_mesh_floor_as_on_a_plane) {
  floor_vs_plane("shape: capsule, radius: 0.1, length: 0.5, rotation: [0, 0, 90]", 0.1);
}
END_TEST

/* A capsule set down along a shared edge of floor.obj, its middle right
 * over a vertex (axis along x, then along z): lying still, it must stay
 * still, as on a plane (rolling costs no energy, so any sideways push starts
 * a roll that nothing stops).  The points right above an edge or a vertex
 * took the direction to the closest point, which leans by the rounding
 * (1e-5 rad), and in_face said no on both sides, so no face point dropped
 * the corner point beside them: the capsule rolled away at 2 to 4 mm/s.
 * Now those are face points: after 10 s it has moved by rounding alone. */
START_TEST(capsule_lying_over_mesh_edges_stays_still) {
  static const char *const rot[2] = {"[0, 0, 90]", "[90, 0, 0]"};
  static const double at[2][3] = {{0, 0.0601, 0}, {1.0 / 3.0, 0.0601, -2.0 / 3.0}};
  char *obj = cu_repo_path("configs/meshes/floor.obj");
  for (int k = 0; k < 4; k++) {
    char *y = cu_strf("time: {dt: 1/60}\n"
                      "world: {colliders: [{mesh: {file: \"%s\", friction: 0.5}}]}\n"
                      "bodies: [{rigid: {name: log, shape: capsule, radius: 0.06, length: 0.45, "
                      "position: [%.17g, %.17g, %.17g], rotation: %s, friction: 0.5}}]\n",
                      obj, at[k / 2][0], at[k / 2][1], at[k / 2][2], rot[k % 2]);
    vs_scene *sc = tu_scene(y);
    vs_model *m = tu_model(sc);
    vs_state *s = tu_state(m);
    tu_steps(m, s, 30);
    double x0[3];
    memcpy(x0, s->rx, sizeof x0);
    ck_assert_msg(fabs(x0[1] - 0.06) < 1e-4, "case %d: settled at %.6f", k, x0[1]);
    tu_steps(m, s, 600);
    const double d = hypot(s->rx[0] - x0[0], s->rx[2] - x0[2]);
    ck_assert_msg(d < 1e-6, "case %d: moved %g m sideways in 10 s (w %g %g %g)", k, d, s->rw[0],
                  s->rw[1], s->rw[2]);
    vs_state_free(s);
    vs_model_free(m);
    vs_scene_free(sc);
    free(y);
  }
  free(obj);
}
END_TEST

/* ---- inclines ---------------------------------------------------------------- */

/* floor.obj (4 x 4 m, 288 triangles) scaled to 12 m and tilted 30 degrees. */
static const char *const INCLINE =
    "time: {dt: 1/60}\n"
    "world: {colliders: [{mesh: {file: \"%s\", transform: {scale: 3, rotate: [0, 0, 30]}, "
    "friction: %s}}]}\n"
    "bodies: [{rigid: {name: b, %s, rotation: [0, 0, 30], friction: %s}}]\n";

static double slope_acceleration(const char *shape, const char *mu, double *wr) {
  char *obj = cu_repo_path("configs/meshes/floor.obj");
  char *y = cu_strf(INCLINE, obj, mu, shape, mu);
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  tu_steps(m, s, 30);
  const double v0 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1] + s->rv[2] * s->rv[2]);
  tu_steps(m, s, 60);
  const double v1 = sqrt(s->rv[0] * s->rv[0] + s->rv[1] * s->rv[1] + s->rv[2] * s->rv[2]);
  if (wr) *wr = sqrt(s->rw[0] * s->rw[0] + s->rw[1] * s->rw[1] + s->rw[2] * s->rw[2]) / v1;
  /* it stayed on the slope: its distance from the tilted plane */
  const double h = -0.5 * s->rx[0] + 0.8660254037844386 * s->rx[1];
  ck_assert_msg(h > 0.09 && h < 0.21, "%s: %g m from the slope", shape, h);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
  free(y), free(obj);
  return v1 - v0;
}

START_TEST(sphere_rolls_down_a_mesh_incline) {
  double wr;
  const double a = slope_acceleration("shape: sphere, radius: 0.2, position: [0, 0.231, 0]", "0.8", &wr);
  const double want = 5.0 / 7.0 * 9.81 * 0.5;
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
  ck_assert_msg(fabs(wr * 0.2 - 1) < 0.02, "w r / v = %g", wr * 0.2);
}
END_TEST

START_TEST(box_slides_down_a_mesh_incline) {
  const double a = slope_acceleration("size: [0.4, 0.2, 0.4], position: [0, 0.116, 0]", "0.2", NULL);
  const double want = 9.81 * (0.5 - 0.2 * sqrt(3.0) / 2.0);
  ck_assert_msg(fabs(a - want) < 0.02 * want, "a = %g, want %g", a, want);
}
END_TEST

/* ---- on an icosphere ------------------------------------------------------------ */

/* How deep point p is inside the convex mesh (0 when outside). */
static double inside_mesh(const vs_model *m, const double p[3]) {
  const double *v = m->mesh_vertices;
  const int32_t *t = m->mesh_triangles;
  double d = INFINITY;
  for (int32_t k = 0; k < m->collider_mesh[0].n_triangles; k++) {
    const double *p0 = v + 3 * t[3 * k], *p1 = v + 3 * t[3 * k + 1], *p2 = v + 3 * t[3 * k + 2];
    double u[3], w[3], nn[3];
    for (int c = 0; c < 3; c++) u[c] = p1[c] - p0[c], w[c] = p2[c] - p0[c];
    vs_cross3(u, w, nn);
    const double len = vs_len3(nn), cen[3] = {0, 0.5, 0};
    double e[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]}, f[3] = {p0[0] - cen[0], p0[1] - cen[1], p0[2] - cen[2]};
    double side = vs_dot3(nn, f) > 0 ? 1.0 : -1.0; /* outward */
    double sd = side * vs_dot3(nn, e) / len;
    if (sd >= 0) return 0.0;
    if (-sd < d) d = -sd;
  }
  return d;
}

/* The deepest overlap of body 0 and the icosphere: points of the body's
 * surface (box: its edges, 21 points each; sphere and capsule: their
 * core at the radius) inside the mesh, and mesh vertices inside a box. */
static double overlap(const vs_model *m, const vs_state *s) {
  double R[9], worst = 0;
  vs_quat_to_mat(s->rq, R);
  const double *sz = m->rigid_size;
  if (m->rigid_shape[0] == VS_RIGID_BOX) {
    for (int e = 0; e < 12; e++) {
      int ax = e / 4, o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
      for (int k = 0; k <= 20; k++) {
        double l[3], w[3];
        l[ax] = sz[ax] * (k / 20.0 - 0.5);
        l[o1] = (e & 1 ? 0.5 : -0.5) * sz[o1];
        l[o2] = (e & 2 ? 0.5 : -0.5) * sz[o2];
        vs_mat3_mul(R, l, w);
        for (int c = 0; c < 3; c++) w[c] += s->rx[c];
        double d = inside_mesh(m, w);
        if (d > worst) worst = d;
      }
    }
    for (int32_t k = 0; k < m->collider_mesh[0].n_vertices; k++) {
      const double *p = m->mesh_vertices + 3 * k;
      double d[3] = {p[0] - s->rx[0], p[1] - s->rx[1], p[2] - s->rx[2]}, l[3];
      vs_mat3_mul_t(R, d, l);
      double in = INFINITY;
      for (int c = 0; c < 3; c++) in = fmin(in, 0.5 * sz[c] - fabs(l[c]));
      if (in > worst) worst = in;
    }
    return worst;
  }
  /* sphere / capsule: the distance of the core from the mesh, by sampling the
   * core and taking the nearest mesh point through the mesh collider's BVH */
  double len = m->rigid_shape[0] == VS_RIGID_CAPSULE ? sz[1] : 0.0;
  for (int k = 0; k <= 20; k++) {
    double l[3] = {0, len * (k / 20.0 - 0.5), 0}, w[3];
    vs_mat3_mul(R, l, w);
    for (int c = 0; c < 3; c++) w[c] += s->rx[c];
    vs_bvh_hit hit;
    if (vs_bvh_closest(m->priv->mesh_search[0].bvh, w, sz[0], &hit) && sz[0] - hit.dist > worst)
      worst = sz[0] - hit.dist;
    if (inside_mesh(m, w) > 0) worst = INFINITY;
  }
  return worst;
}

static void drop_on_icosphere(const char *shape) {
  char *obj = cu_repo_path("configs/meshes/icosphere.obj");
  char *y = cu_strf("time: {dt: 1/60}\n"
                    "world: {colliders: [{mesh: {file: \"%s\", transform: {translate: [0, 0.5, 0]}, "
                    "friction: 0.5}}, {plane: {friction: 0.5}}]}\n"
                    "bodies: [{rigid: {name: b, %s, friction: 0.5}}]\n",
                    obj, shape);
  vs_scene *sc = tu_scene(y);
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  double worst = 0, top = 0;
  int touched = 0;
  for (int f = 0; f < 240; f++) {
    tu_steps(m, s, 1);
    double d = overlap(m, s);
    if (d > worst) worst = d;
    double c[3] = {s->rx[0], s->rx[1] - 0.5, s->rx[2]};
    if (vs_len3(c) < 0.5 + 0.3) touched++;
    if (f == 239) top = s->rx[1];
  }
  ck_assert_msg(touched > 10, "%s: never on the sphere", shape);
  const double slop = m->priv->rigid->set.slop;
  ck_assert_msg(worst <= slop + 1e-3, "%s: %.2f mm deep (slop %.1f mm)", shape, 1e3 * worst, 1e3 * slop);
  ck_assert_msg(top > 0.0 && isfinite(top), "%s: fell through to %g", shape, top);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
  free(y), free(obj);
}

START_TEST(box_dropped_on_an_icosphere_stays_out) {
  drop_on_icosphere("size: [0.3, 0.2, 0.25], position: [0.08, 1.4, 0.03], rotation: [20, 10, 35]");
  drop_on_icosphere("size: [0.3, 0.3, 0.3], position: [0, 1.4, 0]");
}
END_TEST

START_TEST(sphere_and_capsule_dropped_on_an_icosphere_stay_out) {
  drop_on_icosphere("shape: sphere, radius: 0.12, position: [0.05, 1.4, 0.02]");
  drop_on_icosphere("shape: capsule, radius: 0.06, length: 0.4, position: [0.02, 1.4, 0.05], "
                    "rotation: [80, 0, 10]");
}
END_TEST

/* ---- end to end ---------------------------------------------------------------- */

static const char *const SCENE =
    "time: {dt: 1/60, frames: 60, substeps: 2}\n"
    "solver: {relaxation: jacobi, iterations: 4}\n"
    "output: {fields: [position, velocity]}\n"
    "world:\n"
    "  colliders:\n"
    "    - mesh: {file: ico.obj, transform: {translate: [0, 0.5, 0]}, friction: 0.4, restitution: 0.3}\n"
    "    - mesh: {file: floor.obj, friction: 0.6, thickness: 0.002}\n"
    "bodies:\n"
    "  - rigid: {name: box, size: [0.3, 0.2, 0.25], position: [0.1, 1.3, 0], rotation: [10, 20, 30]}\n"
    "  - rigid: {name: ball, shape: sphere, radius: 0.1, position: [-0.2, 1.5, 0.1]}\n"
    "  - rigid: {name: stick, shape: capsule, radius: 0.05, length: 0.4, position: [0.5, 0.4, 0.4],\n"
    "            rotation: [0, 0, 70]}\n"
    "  - cloth: {name: sheet, origin: [-1.5, 0.6, -1.5], size: [0.6, 0.6], resolution: [6, 6],\n"
    "            plane: xz, mass: 0.2, radius: 0.03}\n";

START_TEST(bitwise_across_threads_and_resume) {
  char *ico = cu_repo_path("configs/meshes/icosphere.obj");
  char *floor_obj = cu_repo_path("configs/meshes/floor.obj");
  char *dst = cu_strf("%s/ico.obj", tu_dir()), *dst2 = cu_strf("%s/floor.obj", tu_dir());
  char *t1 = cu_slurp(ico), *t2 = cu_slurp(floor_obj);
  cu_write(dst, t1);
  cu_write(dst2, t2);
  char *scene = cu_strf("%s/s.yaml", tu_dir());
  cu_write(scene, SCENE);
  cu_run_ok("s.yaml", "t1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok("s.yaml", "t3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("t1.h5", "t3.h5");
  cu_run_ok("s.yaml", "r.h5", "--frames", "23", NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "60", "-q", (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("t1.h5", "r.h5");
  /* the mesh's friction reaches the bodies */
  cu_run_ok("s.yaml", "f.h5", "--set", "world.colliders.1.friction=0.1", NULL, NULL);
  p = cu_vsim(tu_dir(), "compare", "t1.h5", "f.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "/particles/rigid/");
  cu_free(&p);
  free(scene), free(t1), free(t2), free(dst), free(dst2), free(ico), free(floor_obj);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rigid_mesh");
  TCase *tc = tcase_create("physics");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(tc, box_on_a_flat_mesh_gets_its_four_corners);
  tcase_add_test(tc, sphere_on_an_interior_edge_gets_one_face_contact);
  tcase_add_test(tc, box_rests_on_a_mesh_floor_as_on_a_plane);
  tcase_add_test(tc, box_stands_still_on_a_mesh_floor);
  tcase_add_test(tc, sphere_rests_on_a_mesh_floor_as_on_a_plane);
  tcase_add_test(tc, capsule_rests_on_a_mesh_floor_as_on_a_plane);
  tcase_add_test(tc, capsule_lying_over_mesh_edges_stays_still);
  tcase_add_test(tc, sphere_rolls_down_a_mesh_incline);
  tcase_add_test(tc, box_slides_down_a_mesh_incline);
  tcase_add_test(tc, box_dropped_on_an_icosphere_stays_out);
  tcase_add_test(tc, sphere_and_capsule_dropped_on_an_icosphere_stay_out);
  suite_add_tcase(s, tc);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 300);
  tcase_add_checked_fixture(cli, tu_dir_setup, tu_dir_teardown);
  tcase_add_test(cli, bitwise_across_threads_and_resume);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return tu_run(suite()); }
