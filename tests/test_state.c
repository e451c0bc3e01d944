/* SPDX-License-Identifier: MIT */
/* test_state.c: initial state, the Verlet start-up, copying, velocities. */
#include "testutil.h"

START_TEST(initial_state_and_verlet_start) {
  vs_scene *s = tu_scene("time: {dt: 0.1, substeps: 2}\n"
                         "solver: {integrator: verlet}\n"
                         "bodies:\n"
                         "  - particles: {positions: [[0, 1, 0], [5, 5, 5]], velocities: [[1, 0, 0], [2, 2, 2]], pin: [1]}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  ck_assert_int_eq(st->frame, 0);
  ck_assert_int_eq(st->threads, 1);
  ck_assert(memcmp(st->x, m->x0, 8 * sizeof(double)) == 0);
  /* x_prev = x0 - v0 h + g h^2 / 2 for the free particle, h = 0.05 */
  ck_assert_double_eq_tol(st->xprev[0], -0.05, 1e-15);
  ck_assert_double_eq_tol(st->xprev[1], 1 - 0.5 * 9.81 * 0.0025, 1e-15);
  /* the pinned one: at rest, inverse mass 0 */
  ck_assert_double_eq(st->xprev[4], 5.0);
  ck_assert_double_eq(st->x[7], 0.0);
  double v[6];
  vs_state_velocity(m, st, v);
  ck_assert_double_eq_tol(v[0], 1.0, 1e-12);
  ck_assert_double_eq(v[3], 0.0);

  vs_state *c = tu_state(m);
  vs_error e;
  ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
  vs_state_copy(m, c, st);
  ck_assert_int_eq(c->frame, 1);
  ck_assert(memcmp(c->x, st->x, 8 * sizeof(double)) == 0);
  ck_assert(memcmp(c->xprev, st->xprev, 8 * sizeof(double)) == 0);
  /* stepping both gives the same bits */
  ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
  ck_assert_int_eq(vs_step(m, c, &e), VS_OK);
  ck_assert(memcmp(c->x, st->x, 8 * sizeof(double)) == 0);
  vs_state_free(c);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("state");
  TCase *t = tcase_create("state");
  tcase_add_test(t, initial_state_and_verlet_start);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
