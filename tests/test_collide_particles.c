/* SPDX-License-Identifier: MIT */
/* test_collide_particles.c: particle-particle contacts (world.particle_collisions). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "solve/solve.h"
#include "testutil.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Deepest overlap between two particles with radius not joined by a link,
 * by brute force over all pairs (independent of the solver's spatial hash). */
static double worst_overlap(const vs_model *m, const vs_state *s) {
  double worst = 0.0;
  for (int32_t i = 0; i < m->n_particles; i++)
    for (int32_t j = i + 1; j < m->n_particles; j++) {
      if (m->radius[i] <= 0 || m->radius[j] <= 0) continue;
      int linked = 0;
      for (int32_t k = 0; k < m->n_dist && !linked; k++)
        linked = (m->dist_ab[2 * k] == i && m->dist_ab[2 * k + 1] == j) ||
                 (m->dist_ab[2 * k] == j && m->dist_ab[2 * k + 1] == i);
      if (linked) continue;
      const double *a = s->x + 4 * i, *b = s->x + 4 * j;
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                      (a[2] - b[2]) * (a[2] - b[2]));
      double o = m->radius[i] + m->radius[j] - d;
      if (o > worst) worst = o;
    }
  return worst;
}

static char *ball_pile(int n_side, const char *relaxation, int collisions) {
  size_t cap = 64 * 1024 + 64 * (size_t)n_side * n_side * n_side;
  char *y = malloc(cap);
  int len = snprintf(y, cap,
                     "time: {dt: 0.016666666666666666, frames: 150, substeps: 4}\n"
                     "solver: {relaxation: %s, iterations: 30, damping: 1.0}\n"
                     "world:\n"
                     "  particle_collisions: %s\n"
                     "  shock_propagation: true\n"
                     "  particle_friction: 0.5\n"
                     "  colliders:\n"
                     "    - bounds: {min: [-0.6, 0, -0.6], max: [0.6, 10, 0.6], friction: 0.3}\n"
                     "bodies:\n"
                     "  - particles:\n"
                     "      name: balls\n"
                     "      radius: 0.05\n"
                     "      mass: 0.01\n"
                     "      positions: [",
                     relaxation, collisions ? "true" : "false");
  uint64_t r = 42;
  for (int k = 0; k < n_side; k++)
    for (int j = 0; j < n_side; j++)
      for (int i = 0; i < n_side; i++) {
        double jit[3];
        for (int d = 0; d < 3; d++) {
          r = r * 6364136223846793005ull + 1442695040888963407ull;
          jit[d] = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 0.02;
        }
        len += snprintf(y + len, cap - (size_t)len, "%s[%.6f, %.6f, %.6f]", (i | j | k) ? ", " : "",
                        -0.54 + 0.12 * i + jit[0], 0.1 + 0.12 * j + jit[1], -0.54 + 0.12 * k + jit[2]);
      }
  snprintf(y + len, cap - (size_t)len, "]\n");
  return y;
}

/* 1,000 balls poured into a box settle without overlapping.
 * A jammed pile converges slowly under PBD relaxation: without friction the
 * balls never come to rest, and index-ordered contacts leave overlaps of
 * ~2e-4 m after 150 frames (4 substeps x 30 iterations).  Particle friction
 * lets the pile rest and shock propagation carries the floor's support up
 * the stacks in one sweep: the deepest overlap is then below 1e-6 m. */
START_TEST(thousand_balls_settle_without_overlap) {
  char *y = ball_pile(10, "gauss-seidel", 1);
  tu_sim r = tu_sim_new(y);
  ck_assert_int_eq(r.m->n_particles, 1000);
  tu_sim_steps(&r, 150);
  double o = worst_overlap(r.m, r.s);
  ck_assert_msg(o <= 1e-6, "overlap %.3g after settling", o);
  /* settled: slow, and piled (not all on the floor) */
  double vmax = 0, ymax = 0;
  for (int i = 0; i < 1000; i++) {
    vmax = fmax(vmax, sqrt(r.s->v[3 * i] * r.s->v[3 * i] + r.s->v[3 * i + 1] * r.s->v[3 * i + 1] +
                           r.s->v[3 * i + 2] * r.s->v[3 * i + 2]));
    ymax = fmax(ymax, r.s->x[4 * i + 1]);
  }
  ck_assert_msg(vmax < 0.05, "still moving at %g m/s", vmax);
  ck_assert_double_gt(ymax, 0.3);
  tu_sim_free(&r);
  free(y);
  /* the same pile without particle collisions overlaps badly: the test can fail */
  y = ball_pile(10, "gauss-seidel", 0);
  r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  ck_assert_double_gt(worst_overlap(r.m, r.s), 0.05);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* Coloured Jacobi with per-step coloured contacts: bitwise identical for any
 * thread count, and the pile holds as well. */
START_TEST(contacts_are_deterministic_across_threads) {
  char *y = ball_pile(10, "jacobi", 1);
  tu_sim ref = tu_sim_new(y);
  tu_sim_steps(&ref, 60);
  for (int t = 2; t <= 4; t++) {
    tu_sim r = tu_sim_new(y);
    r.s->threads = t;
    tu_sim_steps(&r, 60);
    ck_assert_msg(memcmp(r.s->x, ref.s->x, 4 * sizeof(double) * 1000) == 0, "%d threads differ", t);
    tu_sim_free(&r);
  }
  ck_assert_double_lt(worst_overlap(ref.m, ref.s), 1e-3);
  tu_sim_free(&ref);
  free(y);
}
END_TEST

/* A long strip of cloth falls and folds onto itself on the floor: with
 * self-collision no two non-linked particles come closer than their radii. */
/* A hanging strip whose top edge is lowered to the floor by kinematic pins,
 * with gravity leaning a little sideways: it piles up in folds on itself. */
static const char *strip =
    "time: {dt: 0.016666666666666666, frames: %d, substeps: 4}\n"
    "solver: {iterations: 15, damping: 0.5}\n"
    "world:\n"
    "  gravity: [0.8, -9.81, 0.3]\n"
    "  particle_collisions: %s\n"
    "  colliders: [{plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5}}]\n"
    "bodies:\n"
    "  - cloth: {name: strip, origin: [0, 0.05, 0], size: [0.3, 2.4], resolution: [4, 33], plane: xy,\n"
    "            radius: 0.03, shear: {}, bend: {stiffness: 0.2}}\n"
    "constraints:\n"
    "  - pin: {particle: 'strip:0,32', keys: [[0, 0, 2.45, 0], [1.5, 0, 0.1, 0]]}\n"
    "  - pin: {particle: 'strip:3,32', keys: [[0, 0.3, 2.45, 0], [1.5, 0.3, 0.1, 0]]}\n";

START_TEST(cloth_folding_on_itself_does_not_pass_through) {
  char y[1024];
  snprintf(y, sizeof y, strip, 120, "true");
  tu_sim r = tu_sim_new(y);
  double worst = 0;
  for (int f = 0; f < 120; f++) {
    tu_sim_steps(&r, 1);
    if (f % 10 == 9) worst = fmax(worst, worst_overlap(r.m, r.s));
  }
  /* it did fold: 2.4 m of cloth lies within a few layers of the floor */
  double ymax = 0;
  for (int32_t i = 0; i < r.m->n_particles; i++) ymax = fmax(ymax, r.s->x[4 * i + 1]);
  ck_assert_double_lt(ymax, 0.6);
  ck_assert_msg(worst < 2e-3, "layers interpenetrate by %g", worst);
  tu_sim_free(&r);
  snprintf(y, sizeof y, strip, 120, "false");
  r = tu_sim_new(y);
  tu_sim_steps(&r, 120);
  ck_assert_double_gt(worst_overlap(r.m, r.s), 0.02); /* without it the folds pass through */
  tu_sim_free(&r);
}
END_TEST

START_TEST(linked_pairs_never_collide) {
  /* beads on a rope closer than their diameter: links, not contacts */
  tu_sim r = tu_sim_new(
      "time: {frames: 30}\n"
      "world: {particle_collisions: true}\n"
      "bodies:\n"
      "  - rope: {name: r, from: [0, 0, 0], to: [1, 0, 0], segments: 10, radius: 0.04,\n"
      "           pin: [first]}\n");
  tu_sim_steps(&r, 30);
  /* the rope keeps its segment length 0.1 < 2 r = 0.08? no: 0.1 > 0.08, i+2 at 0.2 */
  ck_assert_int_eq(r.s->scratch->pc_n, 0);
  tu_sim_free(&r);
  r = tu_sim_new(
      "time: {frames: 10}\n"
      "world: {particle_collisions: true, gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - rope: {name: r, from: [0, 0, 0], to: [1, 0, 0], segments: 10, radius: 0.08}\n");
  /* i, i+1 overlap (0.1 < 0.16) but are linked; i, i+2 at 0.2 are within the
   * 1.5 (r_i + r_j) margin, so they are contacts, not violated */
  tu_sim_steps(&r, 10);
  ck_assert_int_eq(r.s->scratch->pc_n, 9);
  for (int i = 0; i <= 10; i++) ck_assert_double_eq_tol(r.s->x[4 * i], 0.1 * i, 1e-12);
  tu_sim_free(&r);
}
END_TEST

/* Bounded work: one ball of radius 50 far from 4,096 beads of 0.05 must not
 * make the cells 150 m wide (every bead would test every other: quadratic).
 * The big ball is tested against everyone instead; the contacts are the
 * same pairs as a brute-force search finds. */
START_TEST(one_big_particle_keeps_the_search_linear) {
  const int N = 16;
  char *y = malloc(1 << 20);
  size_t k = (size_t)sprintf(y, "time: {frames: 1}\nworld: {particle_collisions: true, gravity: "
                                "[0, 0, 0]}\nbodies:\n  - particles: {name: beads, radius: 0.05, "
                                "positions: [");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int l = 0; l < N; l++)
        k += (size_t)sprintf(y + k, "%s[%g, %g, %g]", i + j + l ? ", " : "", 0.12 * i, 0.12 * j,
                             0.12 * l);
  k += (size_t)sprintf(y + k, "]}\n  - particles: {name: big, radius: 50, positions: [[1000, 0, "
                              "0]]}\n  - particles: {name: near, radius: 0.05, positions: "
                              "[[0.9, 0.9, 0.9], [0.95, 0.9, 0.9]]}\n");
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 1);
  const vs_solver_scratch *w = r.s->scratch;
  int32_t n = r.m->n_particles;
  ck_assert_msg(w->pc_tests < 64 * (int64_t)n, "%lld pair tests for %d particles",
                (long long)w->pc_tests, n);
  /* the same contacts as every pair tested: count them by brute force */
  int32_t brute = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++) {
      const double *a = r.s->x + 4 * (size_t)i, *b = r.s->x + 4 * (size_t)j;
      double d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                  (a[2] - b[2]) * (a[2] - b[2]);
      double lim = 1.5 * (r.m->radius[i] + r.m->radius[j]);
      brute += d2 < lim * lim;
    }
  ck_assert_int_eq(w->pc_n, brute);
  ck_assert_int_gt(brute, 0);
  tu_sim_free(&r);
  free(y);
}
END_TEST

/* collision_group / collision_mask on particle bodies: two balls dropped
 * onto a third (all with radii) rest on it by default; in a group the
 * other's mask leaves out, one falls through it.  And a particle falls
 * onto a fixed rigid box, or through it when their masks say so. */
static double ball_height(const char *top_keys) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {frames: 60}\nworld: {particle_collisions: true}\nbodies:\n"
           "  - particles: {name: base, radius: 0.1, positions: [[0, 0, 0]], pin: [0]}\n"
           "  - particles: {name: top, radius: 0.1, positions: [[0, 0.5, 0]]%s}\n",
           top_keys);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  double h = r.s->x[4 * 1 + 1];
  tu_sim_free(&r);
  return h;
}

static double ball_on_box(const char *keys) {
  char y[1024];
  snprintf(y, sizeof y,
           "time: {frames: 60}\nbodies:\n"
           "  - rigid: {name: box, size: [1, 0.2, 1], fixed: true}\n"
           "  - particles: {name: p, radius: 0.05, positions: [[0, 0.5, 0]]%s}\n",
           keys);
  tu_sim r = tu_sim_new(y);
  tu_sim_steps(&r, 60);
  double h = r.s->x[1];
  tu_sim_free(&r);
  return h;
}

START_TEST(collision_masks_on_particle_bodies) {
  ck_assert_double_gt(ball_height(""), 0.15);
  ck_assert_double_lt(ball_height(", collision_group: 2, collision_mask: 4"), -1.0);
  ck_assert_double_gt(ball_on_box(""), 0.1);
  ck_assert_double_lt(ball_on_box(", collision_group: 5, collision_mask: 32"), -1.0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("collide_particles");
  TCase *t = tcase_create("contacts");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, thousand_balls_settle_without_overlap);
  tcase_add_test(t, contacts_are_deterministic_across_threads);
  tcase_add_test(t, cloth_folding_on_itself_does_not_pass_through);
  tcase_add_test(t, linked_pairs_never_collide);
  tcase_add_test(t, one_big_particle_keeps_the_search_linear);
  tcase_add_test(t, collision_masks_on_particle_bodies);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
