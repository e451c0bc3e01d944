/* SPDX-License-Identifier: MIT */
/* test_tune.c: `vsim run` picks its solver thread count frame by frame
 * (cmd/tune.c): switching threads between frames never changes a
 * bit, and the tuner settles on the faster count, trying the other one
 * rarely enough that a slow count costs little. */
#include "../cmd/tune.c"
#include "testutil.h"

/* Stepping a tearing xpbd cloth with particle contacts under Jacobi while the
 * thread count changes every frame gives the very bits of one thread. */
START_TEST(switching_threads_between_frames_is_bitwise_identical) {
  const char *yaml =
      "time: {frames: 24, substeps: 2}\n"
      "solver: {integrator: xpbd, relaxation: jacobi, iterations: 6}\n"
      "world:\n"
      "  particle_collisions: true\n"
      "  colliders: [{sphere: {center: [0.5, 0.3, 0.5], radius: 0.3}}]\n"
      "bodies:\n"
      "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [48, 48], plane: xz,\n"
      "            radius: 0.008, shear: {compliance: 1e-6}, tear: 1.2, pin: top-corners}\n";
  vs_scene *sc = tu_scene(yaml);
  vs_model *m = tu_model(sc);
  vs_state *a = tu_state(m), *b = tu_state(m);
  static const int schedule[] = {2, 1, 3, 1, 4, 2, 1, 2};
  vs_error e;
  int switched = 0;
  for (int64_t f = 0; f < m->frames; f++) {
    a->threads = 1;
    b->threads = schedule[f % 8];
    switched += f > 0 && schedule[f % 8] != schedule[(f - 1) % 8];
    ck_assert_int_eq(vs_step(m, a, &e), VS_OK);
    ck_assert_int_eq(vs_step(m, b, &e), VS_OK);
  }
  ck_assert_int_ge(switched, 20);
  size_t n = (size_t)m->n_particles;
  ck_assert(memcmp(a->x, b->x, 4 * n * sizeof(double)) == 0);
  ck_assert(memcmp(a->v, b->v, 3 * n * sizeof(double)) == 0);
  ck_assert(memcmp(a->lambda, b->lambda, (size_t)m->n_constraints * sizeof(double)) == 0);
  ck_assert(memcmp(a->alive, b->alive, (size_t)m->n_dist) == 0);
  ck_assert_int_eq(a->n_alive, b->n_alive);
  vs_state_free(a);
  vs_state_free(b);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* Feed the tuner frames that take cost[threads] seconds; returns the count
 * of frames spent on each thread count in used[]. */
static void drive(thread_tuner *t, const double *cost, int frames, int *used) {
  for (int f = 0; f < frames; f++) {
    int n = tuner_threads(t);
    ck_assert(n >= 1 && n <= t->max);
    used[n]++;
    tuner_frame(t, cost[n]);
  }
}

/* One core taken: 2 threads cost 6 times 1 thread (measured on the default
 * scene).  Started on both cores, the tuner drops to one within a few
 * frames, and the later trials of two cost under 5% of the run. */
START_TEST(busy_core_drops_to_fewer_threads) {
  const double cost[] = {0, 0.003, 0.018};
  thread_tuner t;
  tuner_init(&t, 2, 2);
  int used[3] = {0};
  drive(&t, cost, 8, used);
  ck_assert_int_eq(tuner_threads(&t), 1);
  drive(&t, cost, 3000, used); /* 9 s at one thread */
  ck_assert_int_eq(tuner_threads(&t), 1);
  double at2 = used[2] * cost[2], total = at2 + used[1] * cost[1];
  ck_assert_msg(at2 < 0.05 * total, "%d frames on 2 threads: %.3f of %.3f s", used[2], at2, total);
  ck_assert_int_gt(used[2], 4); /* it does look again now and then */
}
END_TEST

/* Free cores: 2 threads are faster and the tuner keeps them, trying 1 rarely. */
START_TEST(free_cores_keep_the_threads) {
  const double cost[] = {0, 0.010, 0.006};
  thread_tuner t;
  tuner_init(&t, 2, 2);
  int used[3] = {0};
  drive(&t, cost, 2000, used);
  ck_assert_int_eq(tuner_threads(&t), 2);
  ck_assert(used[1] * cost[1] < 0.05 * (used[1] * cost[1] + used[2] * cost[2]));
  ck_assert_int_gt(used[1], 3);
}
END_TEST

/* Started on the one free core of 8, the tuner waits before trying more
 * (a busy machine makes trials dear), then climbs when the cores are free:
 * 1 -> 2 -> 4 -> 8 when each doubling is faster. */
START_TEST(climbs_when_cores_free_up) {
  const double cost[] = {0, 0.008, 0.0045, 0.003, 0.003, 0.0025, 0.002, 0.002, 0.002};
  thread_tuner t;
  tuner_init(&t, 8, 1);
  ck_assert_int_eq(tuner_threads(&t), 1);
  int used[9] = {0};
  drive(&t, cost, 100, used); /* 0.8 s: less than the first gap */
  ck_assert_int_eq(used[1], 100);
  drive(&t, cost, 400, used);
  ck_assert_int_eq(tuner_threads(&t), 8);
  ck_assert_int_eq(used[3] + used[5] + used[6] + used[7], 0); /* halves and doubles only */
}
END_TEST

/* One thread asked: nothing to tune, nothing read. */
START_TEST(one_thread_is_left_alone) {
  const double cost[] = {0, 0.01};
  thread_tuner t;
  tuner_init(&t, 1, 16);
  int used[2] = {0};
  drive(&t, cost, 100, used);
  ck_assert_int_eq(used[1], 100);
  ck_assert_int_eq(t.changes, 0);
  ck_assert_int_ge(tuner_free_cores(), 1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tune");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, switching_threads_between_frames_is_bitwise_identical);
  tcase_add_test(t, busy_core_drops_to_fewer_threads);
  tcase_add_test(t, free_cores_keep_the_threads);
  tcase_add_test(t, climbs_when_cores_free_up);
  tcase_add_test(t, one_thread_is_left_alone);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
