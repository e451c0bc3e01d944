/* SPDX-License-Identifier: MIT */
/* test_gsorder.c: the Gauss-Seidel order (lib/model/gsorder.c): a
 * permutation of the constraints that keeps every two sharing a particle in
 * build order (so a sweep gives build order's bits), whose VS_GS_WINDOW
 * consecutive constraints share no particle where the graph allows, and
 * whose blocks cover it run by run. */
#include <math.h>

#include "solve/solve.h"
#include "testutil.h"

/* Every kind, tearing, one-sided links, a key-framed pin, an angle limit. */
#define EVERY_KIND \
    "time: {dt: 0.016666666666666666, frames: 40, substeps: 2}\n" \
    "solver: {integrator: %s, iterations: 7, omega: 1.2}\n" \
    "bodies:\n" \
    "  - cloth: {name: c, origin: [-1, 0, 0], size: [2, 2], resolution: [13, 11], plane: xy, mass: 0.2,\n" \
    "            shear: {stiffness: 0.5, compliance: 1e-6}, bend: {stiffness: 0.3, compliance: 1e-4},\n" \
    "            pin: top-corners, tear: 1.3}\n" \
    "  - rope: {name: r, from: [1.5, 1, 0], to: [3, 1, 0], segments: 9, mass: 0.5, bend: {stiffness: 0.2},\n" \
    "           pin: [first]}\n" \
    "  - particles: {name: w, positions: [[0, -0.4, 0], [0.1, -0.5, 0], [0.3, -0.5, 0]], masses: [2, 1, 1]}\n" \
    "constraints:\n" \
    "  - distance: {a: 'w:0', b: 'c:6,0', rest: auto}\n" \
    "  - pin: {particle: 'c:3,10', keys: [[0, -0.5, 1.2, 0], [0.5, -0.6, 1.3, 0.1]]}\n" \
    "  - distance: {a: 'w:1', b: 'w:0', min: 0.3}\n" \
    "  - angle: {a: 'w:0', b: 'w:1', c: 'w:2', min: 120, max: 170}\n" \
    "  - distance: {a: 'w:2', b: 'r:9', max: 0.8, compliance: 1e-5}\n" \
    "  - distance: {a: 'c:12,5', b: 'r:4'}\n"

static vs_model *build(const char *integrator) {
  char yaml[2048];
  snprintf(yaml, sizeof yaml, EVERY_KIND, integrator);
  vs_scene *sc = tu_scene(yaml);
  vs_model *m = tu_model(sc);
  vs_scene_free(sc);
  return m;
}

static vs_model *build_yaml(const char *yaml) {
  vs_scene *sc = tu_scene(yaml);
  vs_model *m = tu_model(sc);
  vs_scene_free(sc);
  return m;
}

/* The invariants of any model's order. */
static void check_order(const vs_model *m) {
  const int32_t nc = m->n_constraints;
  /* a permutation */
  uint8_t *seen = calloc((size_t)nc + 1, 1);
  for (int32_t t = 0; t < nc; t++) {
    const int32_t id = m->priv->gs_order[t];
    ck_assert_int_ge(id, 0);
    ck_assert_int_lt(id, nc);
    ck_assert_msg(!seen[id], "constraint %d twice in the order", id);
    seen[id] = 1;
  }
  free(seen);
  /* constraints sharing a particle stay in build order */
  int32_t *last = malloc(((size_t)m->n_particles + 1) * sizeof(int32_t));
  for (int32_t p = 0; p < m->n_particles; p++) last[p] = -1;
  for (int32_t t = 0; t < nc; t++) {
    int32_t q[VS_MAX_ARITY];
    const int32_t id = m->priv->gs_order[t];
    const int arity = vs_model_constraint_particles(m, id, q);
    for (int j = 0; j < arity; j++) {
      ck_assert_msg(last[q[j]] < id, "particle %d: constraint %d after %d", q[j], id, last[q[j]]);
      last[q[j]] = id;
    }
  }
  free(last);
  /* the blocks cover the order, one kind each */
  int32_t pos = 0, rank[VS_KIND_COUNT] = {0};
  for (int32_t b = 0; b < m->priv->n_blocks; b++) {
    const vs_block *blk = &m->priv->blocks[b];
    ck_assert_int_eq(blk->start, pos);
    ck_assert_int_gt(blk->count, 0);
    ck_assert_int_eq(blk->first, rank[blk->kind]);
    for (int32_t i = 0; i < blk->count; i++) {
      const int32_t id = m->priv->gs_order[pos + i], k = m->con_index[id], r = blk->first + i;
      ck_assert_int_eq(m->con_kind[id], blk->kind);
      if (blk->kind != VS_KIND_DISTANCE) continue;
      /* the link's stream entry is a copy of its row */
      ck_assert_int_eq(m->priv->gs_link_index[r], k);
      ck_assert_int_eq(m->priv->gs_link_ab[2 * r], m->dist_ab[2 * k]);
      ck_assert_int_eq(m->priv->gs_link_ab[2 * r + 1], m->dist_ab[2 * k + 1]);
      ck_assert(m->priv->gs_link_rest[r] == m->dist_rest[k] && m->priv->gs_link_kw[r] == m->priv->dist_kw[k]);
      ck_assert_int_eq(m->priv->gs_link_side[r], m->dist_side[k]);
    }
    rank[blk->kind] += blk->count;
    if (b > 0) ck_assert_int_ne(blk->kind, m->priv->blocks[b - 1].kind);
    pos += blk->count;
  }
  ck_assert_int_eq(pos, nc);
}

/* Positions t whose constraint shares a particle with one of the
 * VS_GS_WINDOW - 1 before it. */
static int32_t window_conflicts(const vs_model *m) {
  int32_t *at = malloc(((size_t)m->n_particles + 1) * sizeof(int32_t));
  for (int32_t p = 0; p < m->n_particles; p++) at[p] = -VS_GS_WINDOW;
  int32_t n = 0;
  for (int32_t t = 0; t < m->n_constraints; t++) {
    int32_t q[VS_MAX_ARITY];
    const int arity = vs_model_constraint_particles(m, m->priv->gs_order[t], q);
    int hit = 0;
    for (int j = 0; j < arity; j++) {
      if (t - at[q[j]] < VS_GS_WINDOW) hit = 1;
      at[q[j]] = t;
    }
    n += hit;
  }
  free(at);
  return n;
}

START_TEST(order_is_a_valid_permutation) {
  vs_model *m = build("xpbd");
  check_order(m);
  ck_assert_int_eq(m->n_constraints, m->n_dist + m->n_pin + m->n_angle);
  vs_model_free(m);
  /* no constraints at all */
  m = build_yaml("bodies:\n  - particles: {positions: [[0, 1, 0]]}\n");
  ck_assert_int_eq(m->n_constraints, 0);
  ck_assert_int_eq(m->priv->n_blocks, 0);
  vs_model_free(m);
}
END_TEST

/* Replace the order with build order itself (the contract's reference). */
static void use_build_order(vs_model *m) {
  m->priv->n_blocks = 0;
  int32_t rank[VS_KIND_COUNT] = {0};
  for (int32_t t = 0; t < m->n_constraints; t++) {
    m->priv->gs_order[t] = t;
    const vs_kind kind = (vs_kind)m->con_kind[t];
    if (m->priv->n_blocks && m->priv->blocks[m->priv->n_blocks - 1].kind == kind)
      m->priv->blocks[m->priv->n_blocks - 1].count++;
    else
      m->priv->blocks[m->priv->n_blocks++] = (vs_block){kind, t, 1, rank[kind]};
    if (kind == VS_KIND_DISTANCE) {
      const int32_t k = m->con_index[t], r = rank[kind];
      m->priv->gs_link_ab[2 * r] = m->dist_ab[2 * k], m->priv->gs_link_ab[2 * r + 1] = m->dist_ab[2 * k + 1];
      m->priv->gs_link_rest[r] = m->dist_rest[k], m->priv->gs_link_kw[r] = m->priv->dist_kw[k];
      m->priv->gs_link_side[r] = m->dist_side[k], m->priv->gs_link_index[r] = k;
    }
    rank[kind]++;
  }
}

/* The bench cloth (structural links) and a cloth with every link family:
 * in build order over 3/4 of the links wait for one of the few before them; in
 * the order only the ramps at the first and last rows do (where the graph
 * has too few independent links): under 3%. */
START_TEST(windows_are_independent) {
  const char *cloths[] = {
      "bodies:\n  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [128, 128], pin: top-edge}\n",
      "bodies:\n  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [48, 40], shear: {},\n"
      "            bend: {}, pin: top-corners}\n"};
  for (int k = 0; k < 2; k++) {
    vs_model *m = build_yaml(cloths[k]), *ref = build_yaml(cloths[k]);
    check_order(m);
    use_build_order(ref);
    const int32_t n = m->n_constraints, bad = window_conflicts(m), bad_ref = window_conflicts(ref);
    ck_assert_int_gt(n, 7000);
    ck_assert_msg(bad_ref * 4 > n * 3, "cloth %d: build order: %d of %d", k, bad_ref, n);
    ck_assert_msg(bad * 100 < n * 3, "cloth %d: %d of %d positions wait for a neighbour", k, bad, n);
    vs_model_free(m);
    vs_model_free(ref);
  }
}
END_TEST

/* The order gives build order's bits: positions, velocities, multipliers
 * and torn links after every frame, for each integrator. */
START_TEST(same_bits_as_build_order) {
  const char *integrators[] = {"pbd", "xpbd", "verlet"};
  for (int k = 0; k < 3; k++) {
    vs_model *m = build(integrators[k]), *ref = build(integrators[k]);
    use_build_order(ref);
    check_order(ref);
    ck_assert_int_gt(window_conflicts(ref), window_conflicts(m));
    vs_state *s = tu_state(m), *r = tu_state(ref);
    vs_error e;
    int64_t torn = 0;
    for (int f = 0; f < 40; f++) {
      ck_assert_int_eq(vs_step(m, s, &e), VS_OK);
      ck_assert_int_eq(vs_step(ref, r, &e), VS_OK);
      ck_assert_msg(memcmp(s->x, r->x, 4 * (size_t)m->n_particles * sizeof(double)) == 0,
                    "%s frame %d: positions differ", integrators[k], f);
      ck_assert(memcmp(s->v, r->v, 3 * (size_t)m->n_particles * sizeof(double)) == 0);
      ck_assert(memcmp(s->lambda, r->lambda, (size_t)m->n_constraints * sizeof(double)) == 0);
      ck_assert(memcmp(s->alive, r->alive, (size_t)m->n_dist) == 0);
      torn = m->n_dist - s->n_alive;
    }
    /* the scene exercises what it claims to */
    if (k == 0) ck_assert_int_gt(torn, 0);
    vs_state_free(s);
    vs_state_free(r);
    vs_model_free(m);
    vs_model_free(ref);
  }
}
END_TEST

/* Jacobi does not use it: nothing is allocated for it. */
START_TEST(jacobi_has_no_order) {
  vs_model *m = build_yaml("solver: {relaxation: jacobi}\n"
                           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 5}\n");
  ck_assert_int_eq(m->priv->n_blocks, 0);
  vs_model_free(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gsorder");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, order_is_a_valid_permutation);
  tcase_add_test(tc, windows_are_independent);
  tcase_add_test(tc, same_bits_as_build_order);
  tcase_add_test(tc, jacobi_has_no_order);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
