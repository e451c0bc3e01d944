/* SPDX-License-Identifier: MIT */
/* test_coloring.c: the greedy constraint colouring is valid, deterministic
 * and ignores pinned particles. */
#include "model/model_private.h"
#include "testutil.h"

static vs_model *model_of(const char *yaml) {
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_scene_free(s);
  return m;
}

/* No two constraints of one (clean) colour share a movable particle. */
static void assert_valid(const vs_model *m) {
  int32_t *owner = malloc(sizeof(int32_t) * (size_t)(m->n_particles + 1));
  for (int32_t c = 0; c < m->n_colors; c++) {
    ck_assert_int_le(m->priv->color_start[c], m->priv->color_start[c + 1]);
    if (c == m->priv->color_overflow) continue;
    for (int32_t i = 0; i < m->n_particles; i++) owner[i] = -1;
    for (int32_t j = m->priv->color_start[c]; j < m->priv->color_start[c + 1]; j++) {
      int32_t id = m->priv->color_order[j], p[3];
      ck_assert_int_eq(m->priv->color[id], c);
      if (j > m->priv->color_start[c]) ck_assert_int_gt(id, m->priv->color_order[j - 1]); /* build order inside */
      vs_model_constraint_particles(m, id, p);
      for (int k = 0; k < 3; k++) {
        if (p[k] < 0 || m->x0[4 * p[k] + 3] == 0.0) continue;
        ck_assert_msg(owner[p[k]] < 0, "colour %d: constraints %d and %d share particle %d", c,
                      owner[p[k]], id, p[k]);
        owner[p[k]] = id;
      }
    }
  }
  ck_assert_int_eq(m->priv->color_start[m->n_colors], m->n_constraints);
  free(owner);
}

START_TEST(cloth_colouring_is_valid_and_small) {
  vs_model *m = model_of("bodies:\n  - cloth: {origin: [0, 0, 0], size: [1, 1], resolution: [20, 20], shear: {}, bend: {}, pin: top-edge}\n");
  assert_valid(m);
  ck_assert_int_eq(m->priv->color_overflow, -1);
  ck_assert_int_le(m->n_colors, 16);
  vs_model_free(m);
  m = model_of("bodies:\n  - cloth: {origin: [0, 0, 0], size: [1, 1], resolution: [20, 20]}\n");
  assert_valid(m);
  ck_assert_int_le(m->n_colors, 4); /* structural links of a grid: 4 colours */
  vs_model_free(m);
}
END_TEST

START_TEST(shared_pinned_particle_is_no_conflict) {
  /* A star of links around one pinned centre: all in colour 0. */
  vs_model *m = model_of("bodies:\n"
                         "  - particles: {name: s, positions: [[0,0,0],[1,0,0],[0,1,0],[-1,0,0],[0,-1,0]], pin: [0]}\n"
                         "constraints:\n"
                         "  - distance: {a: 's:0', b: 's:1'}\n"
                         "  - distance: {a: 's:0', b: 's:2'}\n"
                         "  - distance: {a: 's:0', b: 's:3'}\n"
                         "  - distance: {a: 's:0', b: 's:4'}\n");
  ck_assert_int_eq(m->n_colors, 1);
  assert_valid(m);
  vs_model_free(m);
  /* the same star with a free centre needs four colours */
  m = model_of("bodies:\n"
               "  - particles: {name: s, positions: [[0,0,0],[1,0,0],[0,1,0],[-1,0,0],[0,-1,0]]}\n"
               "constraints:\n"
               "  - distance: {a: 's:0', b: 's:1'}\n"
               "  - distance: {a: 's:0', b: 's:2'}\n"
               "  - distance: {a: 's:0', b: 's:3'}\n"
               "  - distance: {a: 's:0', b: 's:4'}\n");
  ck_assert_int_eq(m->n_colors, 4);
  assert_valid(m);
  vs_model_free(m);
}
END_TEST

START_TEST(overflow_colour_past_64) {
  /* 70 links all sharing one free particle: 64 clean colours + overflow. */
  char yaml[16384];
  int n = snprintf(yaml, sizeof yaml, "bodies:\n  - particles: {name: s, positions: [[0,0,0]");
  for (int i = 1; i <= 70; i++) n += snprintf(yaml + n, sizeof yaml - n, ",[%d,0,0]", i);
  n += snprintf(yaml + n, sizeof yaml - n, "]}\nconstraints:\n");
  for (int i = 1; i <= 70; i++) n += snprintf(yaml + n, sizeof yaml - n, "  - distance: {a: 's:0', b: 's:%d'}\n", i);
  vs_model *m = model_of(yaml);
  ck_assert_int_eq(m->n_colors, 65);
  ck_assert_int_eq(m->priv->color_overflow, 64);
  ck_assert_int_eq(m->priv->color_start[65] - m->priv->color_start[64], 6);
  assert_valid(m);
  vs_model_free(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("coloring");
  TCase *t = tcase_create("greedy");
  tcase_add_test(t, cloth_colouring_is_valid_and_small);
  tcase_add_test(t, shared_pinned_particle_is_no_conflict);
  tcase_add_test(t, overflow_colour_past_64);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
