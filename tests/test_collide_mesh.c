/* SPDX-License-Identifier: MIT */
/* test_collide_mesh.c: particles against a static triangle mesh
 * (lib/solve/collide_mesh.c), stepped by a small PBD loop here (the solver
 * wiring comes with the mesh collider kind): a 100 m/s particle does not
 * pass a single triangle, a particle resting on a mesh floor stays at
 * radius + thickness, the side a particle came from is kept, and the
 * contact record follows collide.c's conventions. */
#include <math.h>
#include <stdint.h>

#include "runutil.h"
#include "util/alloc.h"

#include "model/bvh.h"
#include "model/model_private.h"
#include "model/obj.h"
#include "solve/collide_mesh.h"

/* One PBD step of particle i (x, xprev: n x 4; v: n x 3) with gravity g:
 * predict, swept test, `iters` projections, velocity from the positions. */
static void step(const vs_mesh_collider *mc, double *x, double *xprev, double *v, double r,
                 const double g[3], double h, int iters, double *contact, int32_t *cc, int32_t i) {
  double *p = x + 4 * i, *q = xprev + 4 * i, *vi = v + 3 * i;
  for (int k = 0; k < 3; k++) q[k] = p[k], vi[k] += g[k] * h, p[k] += h * vi[k];
  memset(contact + 4 * i, 0, 4 * sizeof(double));
  cc[i] = -1;
  vs_collide_mesh_swept(mc, 7, xprev, x, r, contact, cc, i, NULL);
  for (int it = 0; it < iters; it++) vs_collide_mesh_particle(mc, 7, xprev, x, r, contact, cc, i, NULL);
  for (int k = 0; k < 3; k++) vi[k] = (p[k] - q[k]) / h;
}

/* One big triangle in the plane y = 0, normal +y. */
static const double tri_v[] = {-1, 0, 1, 1, 0, 1, 0, 0, -1.5};
static const int32_t tri_t[] = {0, 1, 2};

START_TEST(fast_particle_does_not_pass_a_single_triangle) {
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, tri_v, 3, tri_t, 1, &e), VS_OK);
  const vs_mesh_collider mc = {.bvh = &b, .thickness = 0.005};
  const double r = 0.01, R = r + mc.thickness, g[3] = {0, -9.81, 0}, h = 1.0 / 60.0;
  for (int from = 0; from < 2; from++) { /* from above, then from below */
    const double s = from ? -1.0 : 1.0;
    double x[4] = {0.1, s * 0.5, 0.05, 1}, xp[4], v[3] = {0.3, -s * 100.0, -0.1}, ct[4];
    int32_t cc;
    int over = 0;
    for (int n = 0; n < 60; n++) {
      step(&mc, x, xp, v, r, from ? (double[3]){0, 0, 0} : g, h, 4, ct, &cc, 0);
      if (n == 0) { /* 1.67 m in one step, through the plane: stopped on the near side */
        ck_assert_int_eq(cc, 7);
        ck_assert_double_eq_tol(s * ct[1], 1.0, 1e-15);
        ck_assert_double_eq_tol(x[1], s * R, 1e-12);
        ck_assert_double_gt(ct[3], 1.0); /* the push, for friction */
      }
      /* over the triangle (away from its edges): at R on the side it came from */
      if (fabs(x[0]) < (x[2] + 1.5) / 2.5 - 0.05 && x[2] < 0.95)
        ck_assert_double_ge(s * x[1], R - 1e-12);
      else
        ck_assert(!vs_bvh_segment(&b, xp, x, NULL)); /* off the edge: still never through */
      over += fabs(x[0]) < (x[2] + 1.5) / 2.5 - 0.05 && x[2] < 0.95;
    }
    ck_assert_int_eq(over, 60);
  }
  /* without the collider the same path does cross */
  double p0[3] = {0.1, 0.5, 0.05}, p1[3] = {0.105, -1.17, 0.048};
  vs_bvh_hit hit;
  ck_assert(vs_bvh_segment(&b, p0, p1, &hit));
  vs_bvh_free(&b);
}
END_TEST

static vs_obj_mesh load(const char *name) {
  const char *root = getenv("VSIM_ROOT") ? getenv("VSIM_ROOT") : ".";
  char path[1024];
  snprintf(path, sizeof path, "%s/configs/meshes/%s", root, name);
  vs_obj_mesh m;
  vs_error e;
  vs_obj_options o = {.skip_degenerate = 1};
  ck_assert_msg(vs_obj_read(path, NULL, &o, &m, &e) == VS_OK, "%s", e.message);
  return m;
}

/* 1000 particles shot at the icosphere at 100 m/s from every direction: none
 * ever crosses the surface, none ends nearer than R to it. */
START_TEST(fast_particles_stay_outside_a_closed_mesh) {
  vs_obj_mesh m = load("icosphere.obj");
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, m.vertices, m.n_vertices, m.triangles, m.n_triangles, &e), VS_OK);
  const vs_mesh_collider mc = {.bvh = &b, .thickness = 0.002};
  const double r = 0.005, R = r + mc.thickness, h = 0.01, g0[3] = {0, 0, 0};
  uint64_t s = 1;
  int contacts = 0;
  for (int n = 0; n < 1000; n++) {
    double d[3], len = 0;
    for (int k = 0; k < 3; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      d[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
      len += d[k] * d[k];
    }
    len = sqrt(len);
    double x[4] = {0, 0, 0, 1}, xp[4], v[3], ct[4];
    int32_t cc;
    for (int k = 0; k < 3; k++) x[k] = 1.2 * d[k] / len, v[k] = -100.0 * d[k] / len + 7.0 * (k - 1);
    for (int it = 0; it < 5; it++) {
      step(&mc, x, xp, v, r, g0, h, 3, ct, &cc, 0);
      contacts += cc == 7;
      ck_assert_msg(!vs_bvh_segment(&b, xp, x, NULL), "particle %d crossed in step %d", n, it);
      ck_assert_double_le(vs_mesh_penetration(&mc, x, r), 1e-9);
      ck_assert_double_gt(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), 0.45 + R);
    }
  }
  ck_assert_int_gt(contacts, 900);
  vs_bvh_free(&b);
  vs_obj_free(&m);
}
END_TEST

START_TEST(particle_rests_on_a_mesh_floor_at_radius_plus_thickness) {
  vs_obj_mesh m = load("floor.obj");
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, m.vertices, m.n_vertices, m.triangles, m.n_triangles, &e), VS_OK);
  const vs_mesh_collider mc = {.bvh = &b, .thickness = 0.005};
  const double r = 0.01, R = r + mc.thickness, g[3] = {0, -9.81, 0}, h = 1.0 / 240.0;
  /* on a vertex, on an edge, inside a triangle */
  const double at[3][2] = {{0.0, 0.0}, {1.0 / 3.0, 0.1}, {0.123, -0.456}};
  for (int c = 0; c < 3; c++) {
    double x[4] = {at[c][0], 0.3, at[c][1], 1}, xp[4], v[3] = {0, 0, 0}, ct[4];
    int32_t cc;
    for (int n = 0; n < 480; n++) step(&mc, x, xp, v, r, g, h, 4, ct, &cc, 0);
    ck_assert_double_eq_tol(x[1], R, 1e-12);
    ck_assert_double_eq_tol(x[0], at[c][0], 1e-12);
    ck_assert_double_eq_tol(x[2], at[c][1], 1e-12);
    ck_assert_int_eq(cc, 7);
    ck_assert_double_eq_tol(ct[1], 1.0, 1e-12);
    ck_assert_double_eq_tol(ct[3], 9.81 * h * h, 1e-9); /* gravity's push, each step */
  }
  vs_bvh_free(&b);
  vs_obj_free(&m);
}
END_TEST

START_TEST(side_is_kept) {
  vs_bvh b;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, tri_v, 3, tri_t, 1, &e), VS_OK);
  const vs_mesh_collider mc = {.bvh = &b, .thickness = 0.0};
  const double r = 0.02;
  /* under the floor with gravity up: rests at -r */
  double x[4] = {0, -0.3, 0, 1}, xp[4], v[3] = {0, 0, 0}, ct[4];
  int32_t cc;
  for (int n = 0; n < 300; n++) step(&mc, x, xp, v, r, (double[3]){0, 9.81, 0}, 0.005, 4, ct, &cc, 0);
  ck_assert_double_eq_tol(x[1], -r, 1e-12);
  ck_assert_double_eq_tol(ct[1], -1.0, 1e-12);
  /* pulled through by a constraint during the relaxation: back on prev's side */
  double prev[3] = {0.2, 0.001, 0.1}, p[3] = {0.25, -0.4, 0.1}, n[3], depth;
  ck_assert(vs_mesh_project(&mc, prev, p, r, n, &depth));
  ck_assert_double_eq_tol(p[1], r, 1e-15);
  ck_assert_double_eq_tol(depth, 0.4 + r, 1e-12);
  ck_assert_double_eq(n[1], 1.0);
  /* the same point coming from below goes below */
  double prev2[3] = {0.2, -0.5, 0.1}, p2[3] = {0.25, -0.01, 0.1};
  ck_assert(vs_mesh_project(&mc, prev2, p2, r, n, &depth));
  ck_assert_double_eq_tol(p2[1], -r, 1e-15);
  /* beyond the triangle's edge: the ball around the edge, not the plane */
  double prev3[3] = {1.0, 0.5, 1.01}, p3[3] = {1.0, 0.0, 1.01};
  ck_assert(vs_mesh_project(&mc, prev3, p3, r, n, &depth));
  ck_assert_double_eq_tol(hypot(p3[1], p3[2] - 1.0), r, 1e-12);
  /* a pinned particle (w = 0) is never moved */
  double xs[4] = {0, 0.001, 0, 0}, xps[4] = {0, 0.5, 0, 0}, cts[4] = {0};
  int32_t ccs = -1;
  vs_collide_mesh_particle(&mc, 3, xps, xs, r, cts, &ccs, 0, NULL);
  vs_collide_mesh_swept(&mc, 3, xps, xs, r, cts, &ccs, 0, NULL);
  ck_assert_double_eq(xs[1], 0.001);
  ck_assert_int_eq(ccs, -1);
  /* an open tube: a particle inside, flung outward, stays inside */
  vs_obj_mesh m = load("tube.obj");
  vs_bvh tb;
  ck_assert_int_eq(vs_bvh_build(&tb, m.vertices, m.n_vertices, m.triangles, m.n_triangles, &e), VS_OK);
  const vs_mesh_collider tc = {.bvh = &tb, .thickness = 0.001};
  double y[4] = {0, 0.3, 0, 1}, yp[4], w[3] = {60, 0, 35}, ctt[4];
  for (int k = 0; k < 100; k++) {
    step(&tc, y, yp, w, 0.01, (double[3]){0, 0, 0}, 0.01, 3, ctt, &cc, 0);
    ck_assert_double_le(hypot(y[0], y[2]), 0.25);
  }
  vs_bvh_free(&tb);
  vs_obj_free(&m);
  vs_bvh_free(&b);
}
END_TEST

/* Through the grid (model/meshgrid.h) the swept test, the exact projection
 * and the contact plane's point give the whole BVH's answers bit for bit,
 * for short paths (the cells) and long ones (the BVH again), on the
 * icosphere; and the plane projection keeps a particle R from the plane. */
START_TEST(grid_queries_equal_the_bvh) {
  vs_obj_mesh m = load("icosphere.obj");
  vs_bvh b;
  vs_mesh_grid g;
  vs_error e;
  ck_assert_int_eq(vs_bvh_build(&b, m.vertices, m.n_vertices, m.triangles, m.n_triangles, &e), VS_OK);
  const double r = 0.005, th = 0.002;
  ck_assert_int_eq(vs_mesh_grid_build(&g, &b, 2 * (r + th), &e), VS_OK);
  const vs_mesh_collider slow = {.bvh = &b, .thickness = th}, fast = {.bvh = &b, .grid = &g, .thickness = th};
  uint64_t s = 7;
  int moved = 0, swept = 0, planes = 0, unwritten = 0;
  for (int n = 0; n < 4000; n++) {
    double u[6];
    for (int k = 0; k < 6; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      u[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    /* a start near the sphere (radius 0.5), a path of 1 mm to 40 cm */
    const double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double rad = 0.5 + 0.04 * u[3], step = n % 10 == 0 ? 0.4 : 0.001 + 0.05 * fabs(u[4]);
    double a[4], p1[4], p2[4], n1[3], n2[3], d1, d2;
    for (int k = 0; k < 3; k++) a[k] = rad * u[k] / len;
    for (int k = 0; k < 3; k++) p1[k] = a[k] + step * u[(k + 2) % 6] - 0.3 * step * a[k];
    a[3] = p1[3] = 1;
    memcpy(p2, p1, sizeof p1);
    int k1 = vs_mesh_project(&slow, a, p1, r, n1, &d1), k2 = vs_mesh_project(&fast, a, p2, r, n2, &d2);
    ck_assert_int_eq(k1, k2);
    ck_assert(memcmp(p1, p2, sizeof p1) == 0);
    if (k1) ck_assert(d1 == d2 && memcmp(n1, n2, sizeof n1) == 0), moved++;
    for (int k = 0; k < 3; k++) p1[k] = a[k] + step * u[(k + 2) % 6] - 0.3 * step * a[k];
    memcpy(p2, p1, sizeof p1);
    k1 = vs_mesh_sweep(&slow, a, p1, r, n1, &d1), k2 = vs_mesh_sweep(&fast, a, p2, r, n2, &d2);
    ck_assert_int_eq(k1, k2);
    ck_assert(memcmp(p1, p2, sizeof p1) == 0);
    if (k1) ck_assert(d1 == d2 && memcmp(n1, n2, sizeof n1) == 0), swept++;
    /* the contact plane: the closest point within the margin; then a
     * point pushed onto it ends R on its normal's side */
    vs_mesh_contact cp, cq, blank;
    memset(&cp, 0xa5, sizeof cp), memset(&cq, 0xa5, sizeof cq), memset(&blank, 0xa5, sizeof blank);
    vs_mesh_contact_plane(&fast, a, p2, r, &cp);
    vs_bvh_hit h;
    const int near = vs_bvh_closest(&b, p2, g.margin, &h);
    ck_assert_int_eq(cp.on, near);
    /* the lazy form: the same record, or none written when there is no
     * plane (p outside the grid) */
    if (vs_mesh_contact_plane_near(&fast, a, p2, r, &cq)) {
      ck_assert(memcmp(&cq, &cp, sizeof cp) == 0);
    } else {
      ck_assert_int_eq(near, 0);
      ck_assert(memcmp(&cq, &blank, sizeof cq) == 0);
      unwritten++;
    }
    if (!near) continue;
    planes++;
    ck_assert_int_eq(cp.tri, h.tri);
    ck_assert(memcmp(cp.q, h.point, sizeof cp.q) == 0);
    double x[4] = {cp.q[0], cp.q[1], cp.q[2], 1}, ct[4] = {0, 0, 0, 0};
    int32_t cc = -1;
    vs_collide_mesh_particle(&fast, 3, a, x, r, ct, &cc, 0, &cp);
    const double dd = (x[0] - cp.q[0]) * cp.n[0] + (x[1] - cp.q[1]) * cp.n[1] + (x[2] - cp.q[2]) * cp.n[2];
    ck_assert_double_eq_tol(dd, r + th, 1e-12);
    ck_assert_int_eq(cc, 3);
    ck_assert_double_eq_tol(ct[3], r + th, 1e-12);
  }
  ck_assert_int_gt(moved, 300);
  ck_assert_int_gt(swept, 100);
  ck_assert_int_gt(planes, 1000);
  ck_assert_int_gt(unwritten, 5); /* 11: the 40 cm paths */
  vs_mesh_grid_free(&g);
  vs_bvh_free(&b);
  vs_obj_free(&m);
}
END_TEST

/* The grid (model/meshgrid.h) is a shortcut the model builds only when the
 * particles are at least an eighth of the triangles: a run without it must
 * give the same bits.  The drape of configs/mesh_drape.yaml (24^2 cloth on
 * the bunny-like mesh, with its grid), stepped once as built and once with
 * the grid taken away. */
START_TEST(grid_or_not_gives_the_same_bits) {
  char *obj = cu_repo_path("configs/meshes/bunny_like.obj");
  char *yaml = cu_strf(
      "time: {dt: 1/60, substeps: 2}\n"
      "solver: {iterations: 8}\n"
      "world: {colliders: [{mesh: {file: \"%s\", transform: {translate: [0, 0.357, 0]}, "
      "friction: 0.5, thickness: 0.005}}, {plane: {friction: 0.6}}]}\n"
      "bodies: [{cloth: {name: s, origin: [-0.9, 1.2, -0.9], size: [1.8, 1.8], "
      "resolution: [24, 24], plane: xz}}]\n",
      obj);
  vs_scene *sc = tu_scene(yaml);
  vs_model *a = tu_model(sc), *b = tu_model(sc);
  ck_assert_ptr_nonnull(a->priv->mesh_search[0].grid);
  ck_assert_double_eq(a->priv->mesh_search[0].margin, b->priv->mesh_search[0].margin);
  vs_mesh_grid_free(b->priv->mesh_search[0].grid);
  vs_free(b->priv->mesh_search[0].grid);
  b->priv->mesh_search[0].grid = NULL;
  vs_state *sa = tu_state(a), *sb = tu_state(b);
  vs_error e;
  int touched = 0;
  for (int f = 0; f < 90; f++) {
    ck_assert_int_eq(vs_step(a, sa, &e), VS_OK);
    ck_assert_int_eq(vs_step(b, sb, &e), VS_OK);
    ck_assert_msg(!memcmp(sa->x, sb->x, 4 * sizeof(double) * (size_t)a->n_particles) &&
                      !memcmp(sa->v, sb->v, 3 * sizeof(double) * (size_t)a->n_particles),
                  "frame %d: the run without the grid differs", f + 1);
  }
  /* the cloth did reach the mesh: some particle rests above the floor */
  for (int32_t i = 0; i < a->n_particles; i++) touched += sa->x[4 * i + 1] > 0.1;
  ck_assert_int_gt(touched, 10);
  vs_state_free(sa), vs_state_free(sb);
  vs_model_free(a), vs_model_free(b);
  vs_scene_free(sc);
  free(yaml), free(obj);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("collide_mesh");
  TCase *t = tcase_create("collide_mesh");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, fast_particle_does_not_pass_a_single_triangle);
  tcase_add_test(t, fast_particles_stay_outside_a_closed_mesh);
  tcase_add_test(t, particle_rests_on_a_mesh_floor_at_radius_plus_thickness);
  tcase_add_test(t, side_is_kept);
  tcase_add_test(t, grid_queries_equal_the_bvh);
  tcase_add_test(t, grid_or_not_gives_the_same_bits);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
