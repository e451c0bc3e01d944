/* SPDX-License-Identifier: MIT */
/* test_model.c: compiling scenes into models: counts, build order, references,
 * pins, masses, and the errors that point back into the scene. */
#include <math.h>

#include "model/model_private.h"
#include "testutil.h"

static vs_status build(const char *yaml, vs_model **m, vs_error *e) {
  vs_scene *s = tu_scene(yaml);
  vs_error_clear(e);
  vs_status st = vs_model_build(s, m, e);
  vs_scene_free(s);
  return st;
}

START_TEST(cloth_counts_and_build_order) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n"
                         "  - cloth: {name: c, origin: [0, 0, 0], resolution: [5, 4], size: [4, 3], shear: {}, bend: {},\n"
                         "            pin: top-corners, mass: 2}\n",
                         &m, &e),
                   VS_OK);
  const int nu = 5, nv = 4;
  ck_assert_int_eq(m->n_particles, nu * nv);
  int stretch = (nu - 1) * nv + nu * (nv - 1), shear = 2 * (nu - 1) * (nv - 1);
  int bend = (nu - 2) * nv + nu * (nv - 2);
  ck_assert_int_eq(m->n_dist, stretch + shear + bend);
  ck_assert_int_eq(m->n_constraints, m->n_dist);
  ck_assert_int_eq(m->n_triangles, 2 * (nu - 1) * (nv - 1));
  /* roles in build order: stretch, then shear, then bend */
  for (int i = 0; i < m->n_dist; i++) {
    int want = i < stretch ? VS_ROLE_STRETCH : i < stretch + shear ? VS_ROLE_SHEAR : VS_ROLE_BEND;
    ck_assert_int_eq(m->dist_role[i], want);
  }
  /* first links: (0,0)-(1,0) then (0,0)-(0,1) */
  ck_assert_int_eq(m->dist_ab[0], 0);
  ck_assert_int_eq(m->dist_ab[1], 1);
  ck_assert_int_eq(m->dist_ab[2], 0);
  ck_assert_int_eq(m->dist_ab[3], nu);
  ck_assert_double_eq_tol(m->dist_rest[0], 1.0, 1e-15);
  ck_assert_double_eq_tol(m->dist_rest[1], 1.0, 1e-15);
  /* top corners pinned: (0, nv-1) and (nu-1, nv-1); mass spread evenly */
  for (int i = 0; i < m->n_particles; i++) {
    int pinned = i == (nv - 1) * nu || i == nv * nu - 1;
    ck_assert_int_eq(m->x0[4 * i + 3] == 0.0, pinned);
    if (pinned) ck_assert(isinf(m->mass[i]));
    else ck_assert_double_eq_tol(m->mass[i], 2.0 / 20, 1e-15);
  }
  /* particle (i, j) in the xy plane at origin + (i du, j dv) */
  ck_assert_double_eq_tol(m->x0[4 * 7 + 0], 2.0, 1e-15);
  ck_assert_double_eq_tol(m->x0[4 * 7 + 1], 1.0, 1e-15);
  vs_model_free(m);
}
END_TEST

START_TEST(cloth_planes) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n  - cloth: {resolution: [2, 2], size: [1, 2], plane: yz, origin: [5, 0, 0]}\n", &m, &e), VS_OK);
  /* particle (1, 1): u = y, v = z */
  ck_assert_double_eq(m->x0[4 * 3 + 0], 5.0);
  ck_assert_double_eq(m->x0[4 * 3 + 1], 1.0);
  ck_assert_double_eq(m->x0[4 * 3 + 2], 2.0);
  vs_model_free(m);
}
END_TEST

START_TEST(rope_and_particles_and_explicit_constraints) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n"
                         "  - rope: {name: line, from: [0, 2, 0], to: [2, 2, 0], segments: 4, mass: 0.5,\n"
                         "           bend: {stiffness: 0.2}, pin: [first]}\n"
                         "  - particles: {name: shot, positions: [[0, 3, 0], [0.1, 3, 0]], masses: [1, 3]}\n"
                         "constraints:\n"
                         "  - distance: {a: 'line:4', b: 'shot:0', rest: auto}\n"
                         "  - pin: {particle: 'line:2', at: [1, 2.5, 0]}\n"
                         "  - distance: {a: 'shot:0', b: 6, min: 0.05}\n",
                         &m, &e),
                   VS_OK);
  ck_assert_int_eq(m->n_particles, 7);
  ck_assert_int_eq(m->n_dist, 4 + 3 + 2);
  ck_assert_int_eq(m->n_pin, 1);
  ck_assert_int_eq(m->n_constraints, 10);
  /* build order: 7 rope links, distance, pin, distance */
  ck_assert_int_eq(m->con_kind[7], VS_KIND_DISTANCE);
  ck_assert_int_eq(m->con_kind[8], VS_KIND_PIN);
  ck_assert_int_eq(m->con_kind[9], VS_KIND_DISTANCE);
  ck_assert_int_eq(m->priv->n_blocks, 3);
  /* rest auto = initial distance (line:4 at (2,2,0), shot:0 at (0,3,0)) */
  ck_assert_double_eq_tol(m->dist_rest[7], sqrt(5.0), 1e-15);
  ck_assert_int_eq(m->dist_side[8], VS_SIDE_MIN);
  /* the pin moved line:2 and made it immovable */
  ck_assert_double_eq(m->x0[4 * 2 + 1], 2.5);
  ck_assert_double_eq(m->x0[4 * 2 + 3], 0.0);
  ck_assert_double_eq_tol(m->mass[1], 0.1, 1e-15);
  ck_assert_double_eq(m->mass[6], 3.0);
  int32_t p[3];
  vs_model_constraint_particles(m, 8, p);
  ck_assert_int_eq(p[0], 2);
  ck_assert_int_eq(p[1], -1);
  vs_model_free(m);
}
END_TEST

START_TEST(references_resolve_and_fail_with_positions) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n"
                         "  - rope: {name: r, from: [0, 0, 0], to: [1, 0, 0], segments: 2}\n"
                         "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [3, 3]}\n",
                         &m, &e),
                   VS_OK);
  int32_t idx;
  char why[256];
  ck_assert_int_eq(vs_model_resolve_ref(m, "c:2,1", &idx, why, sizeof why), VS_OK);
  ck_assert_int_eq(idx, 3 + 1 * 3 + 2);
  ck_assert_int_eq(vs_model_resolve_ref(m, "r:2", &idx, why, sizeof why), VS_OK);
  ck_assert_int_eq(idx, 2);
  ck_assert_int_eq(vs_model_resolve_ref(m, "11", &idx, why, sizeof why), VS_OK);
  ck_assert_int_eq(vs_model_resolve_ref(m, "12", &idx, why, sizeof why), VS_ERR_SCENE);
  ck_assert_int_eq(vs_model_resolve_ref(m, "r:3", &idx, why, sizeof why), VS_ERR_SCENE);
  ck_assert_int_eq(vs_model_resolve_ref(m, "c:3,0", &idx, why, sizeof why), VS_ERR_SCENE);
  ck_assert_int_eq(vs_model_resolve_ref(m, "r:1,1", &idx, why, sizeof why), VS_ERR_SCENE);
  ck_assert_int_eq(vs_model_resolve_ref(m, "x:0", &idx, why, sizeof why), VS_ERR_SCENE);
  ck_assert_ptr_nonnull(strstr(why, "no body named 'x'"));
  vs_model_free(m);

  ck_assert_int_eq(build("bodies:\n"
                         "  - rope: {name: line, from: [0, 0, 0], to: [1, 0, 0], segments: 2}\n"
                         "constraints:\n"
                         "  - distance: {a: 'line:0', b: 'lien:2'}\n",
                         &m, &e),
                   VS_ERR_SCENE);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(e.line, 4);
  ck_assert_int_gt(e.column, 1);
  ck_assert_str_eq(e.file, "test.yaml");
  ck_assert_ptr_nonnull(strstr(e.message, "lien"));
}
END_TEST

START_TEST(tetra_and_lattice) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n"
                         "  - tetra: {name: t, center: [0, 1, 0], edge: 0.5, mass: 2, angular_velocity: [0, 3, 0]}\n"
                         "  - lattice: {name: j, origin: [0, 0, 0], resolution: [3, 2, 2], size: [1, 1, 1]}\n",
                         &m, &e),
                   VS_OK);
  ck_assert_int_eq(m->n_particles, 4 + 12);
  for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(m->dist_rest[i], 0.5, 1e-15);
  /* rigid rotation about y through the centre: v . r = 0 and |v| = w |r_perp| */
  for (int i = 0; i < 4; i++) {
    double rx = m->x0[4 * i] - 0, rz = m->x0[4 * i + 2] - 0;
    ck_assert_double_eq_tol(m->v0[3 * i + 0], 3 * rz, 1e-14);
    ck_assert_double_eq_tol(m->v0[3 * i + 2], -3 * rx, 1e-14);
  }
  int axis = 2 * 2 * 2 + 3 * 1 * 2 + 3 * 2 * 1, face = 2 * (2 * 1 * 2 + 2 * 2 * 1 + 3 * 1 * 1);
  ck_assert_int_eq(m->n_dist, 6 + axis + face);
  int32_t idx;
  char why[128];
  ck_assert_int_eq(vs_model_resolve_ref(m, "j:2,1,1", &idx, why, sizeof why), VS_OK);
  ck_assert_int_eq(idx, 4 + 2 + 3 * (1 + 2 * 1));
  vs_model_free(m);
}
END_TEST

START_TEST(ragdoll_builds_a_figure) {
  vs_model *m;
  vs_error e;
  ck_assert_int_eq(build("bodies:\n  - ragdoll: {name: bob, origin: [0, 0, 0], height: 2, mass: 80, pin: [0]}\n", &m, &e),
                   VS_OK);
  ck_assert_int_eq(m->n_particles, 19);
  double total = 0, top = 0;
  int limits = 0;
  for (int i = 0; i < m->n_particles; i++) {
    if (isfinite(m->mass[i])) total += m->mass[i];
    if (m->x0[4 * i + 1] > top) top = m->x0[4 * i + 1];
  }
  ck_assert_double_eq_tol(total + 80 * 0.08, 80, 1e-9); /* the head (pinned) holds 8% */
  ck_assert_double_le(top, 2.0);
  ck_assert_double_gt(top, 1.8);
  for (int i = 0; i < m->n_dist; i++) limits += m->dist_side[i] == VS_SIDE_MIN;
  ck_assert_int_eq(limits, 6);
  vs_model_free(m);
  ck_assert_int_eq(build("bodies:\n  - ragdoll: {origin: [0, 0, 0], height: 2, pin: [19]}\n", &m, &e), VS_ERR_SCENE);
  ck_assert_ptr_nonnull(strstr(e.message, "pin"));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("model");
  TCase *t = tcase_create("build");
  tcase_add_test(t, cloth_counts_and_build_order);
  tcase_add_test(t, cloth_planes);
  tcase_add_test(t, rope_and_particles_and_explicit_constraints);
  tcase_add_test(t, references_resolve_and_fail_with_positions);
  tcase_add_test(t, tetra_and_lattice);
  tcase_add_test(t, ragdoll_builds_a_figure);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
