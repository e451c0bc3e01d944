/* SPDX-License-Identifier: MIT */
/* test_relax_jacobi.c: the vectorised coloured-Jacobi kernel gives the same
 * bits as a plain scalar projection of the same links, one at a time, colour
 * by colour (SIMD and scalar must agree to the last bit). */
#include <math.h>

#include "solve/solve.h"
#include "testutil.h"

/* Scalar reference: the kernel's arithmetic, link by link, in the same order
 * of operations. */
static void reference_sweep(const vs_model *m, const vs_jacobi_layout *L, double *x, double *lambda, int xpbd,
                            double inv_h2) {
  for (int32_t col = 0; col < m->n_colors; col++)
    for (int32_t j = L->color_link_start[col]; j < L->color_link_start[col] + L->color_two_sided[col]; j++) {
      double *pa = x + 4 * L->link_ab[2 * j], *pb = x + 4 * L->link_ab[2 * j + 1];
      double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
      double len = sqrt(dx * dx + dy * dy + dz * dz);
      double C = len - L->link_rest[j], s;
      if (!xpbd) {
        s = -C * L->link_kw[j] / len * 1.0;
      } else {
        double at = L->link_compl[j] * inv_h2;
        double *lam = &lambda[L->link_id[j]];
        double dl = m->omega * (-C - at * *lam) / (L->link_wsum[j] + at) * 1.0;
        *lam += dl;
        s = dl / len;
      }
      double sa = pa[3] * s, sb = pb[3] * s;
      pa[0] += sa * dx, pa[1] += sa * dy, pa[2] += sa * dz;
      pb[0] -= sb * dx, pb[1] -= sb * dy, pb[2] -= sb * dz;
    }
}

static void check(const char *integrator, int threads) {
  char yaml[512];
  snprintf(yaml, sizeof yaml,
           "solver: {integrator: %s, relaxation: jacobi, iterations: 1, omega: 1.3}\n"
           "bodies:\n"
           "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [70, 70], shear: {compliance: 1e-6},\n"
           "            bend: {stiffness: 0.4, compliance: 1e-4}, pin: top-corners}\n",
           integrator);
  vs_scene *sc = tu_scene(yaml);
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  s->threads = threads;
  /* scramble the cloth so that every link has work to do */
  uint64_t r = 12345;
  for (int32_t i = 0; i < m->n_particles; i++)
    for (int k = 0; k < 3; k++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      s->x[4 * i + k] += ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 0.01;
    }
  size_t n4 = 4 * (size_t)m->n_particles;
  double *ref = malloc(n4 * sizeof(double)), *lam = calloc((size_t)m->n_constraints, sizeof(double));
  memcpy(ref, s->x, n4 * sizeof(double));
  const double h = m->h, inv_h2 = 1.0 / (h * h);
  const vs_jacobi_layout *L = &s->scratch->jacobi;
  vs_solve_ctx ctx = {.m = m, .x = s->x, .lambda = s->lambda, .alive = s->alive, .jacobi = L,
                      .inv_h2 = inv_h2, .xpbd = m->integrator == VS_INTEGRATOR_XPBD};
  for (int sweep = 0; sweep < 3; sweep++) {
    vs_relax_jacobi(m, s, &ctx);
    reference_sweep(m, L, ref, lam, ctx.xpbd, inv_h2);
  }
  ck_assert_msg(memcmp(ref, s->x, n4 * sizeof(double)) == 0, "%s, %d threads: kernel != scalar",
                integrator, threads);
  if (ctx.xpbd) ck_assert(memcmp(lam, s->lambda, (size_t)m->n_constraints * sizeof(double)) == 0);
  free(ref);
  free(lam);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}

START_TEST(kernel_matches_scalar_reference) {
  check("pbd", 1);
  check("pbd", 2);
  check("xpbd", 1);
  check("xpbd", 3);
}
END_TEST

START_TEST(layout_covers_every_link_once) {
  vs_scene *sc = tu_scene("solver: {relaxation: jacobi}\n"
                          "bodies:\n"
                          "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [9, 7], shear: {}, bend: {}}\n"
                          "  - particles: {name: p, positions: [[0, 0, 0], [1, 1, 1], [2, 2, 2]]}\n"
                          "constraints:\n"
                          "  - distance: {a: 'p:0', b: 'p:1', min: 0.5}\n"
                          "  - pin: {particle: 'p:2'}\n"
                          "  - angle: {a: 'c:0,0', b: 'c:1,0', c: 'c:2,0', min: 90}\n");
  vs_model *m = tu_model(sc);
  vs_state *st = tu_state(m);
  const vs_jacobi_layout *L = &st->scratch->jacobi;
  int *seen = calloc((size_t)m->n_dist, sizeof(int));
  for (int32_t j = 0; j < L->color_link_start[m->n_colors]; j++) seen[L->link_index[j]]++;
  for (int32_t i = 0; i < m->n_dist; i++) ck_assert_int_eq(seen[i], 1);
  ck_assert_int_eq(L->color_other_start[m->n_colors], m->n_constraints - m->n_dist);
  /* the one-sided link sits after the two-sided ones of its colour */
  int found = 0;
  for (int32_t c = 0; c < m->n_colors; c++)
    for (int32_t j = L->color_link_start[c]; j < L->color_link_start[c + 1]; j++) {
      int two = m->dist_side[L->link_index[j]] == VS_SIDE_EQUAL;
      ck_assert_int_eq(two, j < L->color_link_start[c] + L->color_two_sided[c]);
      found += !two;
    }
  ck_assert_int_eq(found, 1);
  free(seen);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* Every constraint owns one xpbd multiplier slot, its build-order
 * id, whatever the relaxation.  The kernel used to index the two-sided links
 * by colour position and the one-sided ones by link index, so on a ragdoll
 * (one-sided joint limits) two links shared a slot.  Reference: the same
 * colours, constraint by constraint through the scalar projection, each with
 * a private slot; kernel and reference must agree to the bit. */
START_TEST(xpbd_multipliers_are_private_on_a_ragdoll) {
  vs_scene *sc = tu_scene("solver: {integrator: xpbd, relaxation: jacobi, iterations: 1}\n"
                          "bodies:\n"
                          "  - ragdoll: {name: bob, origin: [0, 1.2, 0], height: 1.8, mass: 70, compliance: 0.001}\n"
                          "  - particles: {name: p, positions: [[3, 0, 0], [3, 1, 0], [3, 2, 0]]}\n"
                          "constraints:\n"
                          "  - distance: {a: 'p:0', b: 'p:1', min: 2, compliance: 0.01}\n"
                          "  - angle: {a: 'p:0', b: 'p:1', c: 'p:2', max: 90, compliance: 0.01}\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  const vs_jacobi_layout *L = &s->scratch->jacobi;
  /* every slot is owned by exactly one constraint */
  int *owner = calloc((size_t)m->n_constraints, sizeof(int));
  for (int32_t j = 0; j < m->n_dist; j++) owner[L->link_id[j]]++;
  for (int32_t j = 0; j < L->color_other_start[m->n_colors]; j++) owner[L->other_id[j]]++;
  for (int32_t id = 0; id < m->n_constraints; id++) ck_assert_int_eq(owner[id], 1);
  free(owner);
  /* squash the ragdoll to 60 % about its first particle and bend the arm:
   * every joint limit is violated, so the one-sided links act */
  const double *o = m->x0;
  for (int32_t i = 1; i < m->n_particles - 3; i++)
    for (int k = 0; k < 3; k++) s->x[4 * i + k] = o[k] + 0.6 * (s->x[4 * i + k] - o[k]);
  s->x[4 * (m->n_particles - 1)] = 3.5;
  size_t n4 = 4 * (size_t)m->n_particles, nc = (size_t)m->n_constraints;
  double *ref = malloc(n4 * sizeof(double)), *lam = calloc(nc, sizeof(double));
  memcpy(ref, s->x, n4 * sizeof(double));
  const double inv_h2 = 1.0 / (m->h * m->h);
  vs_solve_ctx ctx = {.m = m, .x = s->x, .lambda = s->lambda, .alive = s->alive, .jacobi = L, .inv_h2 = inv_h2,
                      .xpbd = 1};
  vs_solve_ctx rc = {.m = m, .x = ref, .lambda = lam, .alive = s->alive, .inv_h2 = inv_h2, .xpbd = 1};
  for (int sweep = 0; sweep < 4; sweep++) {
    vs_relax_jacobi(m, s, &ctx);
    for (int32_t j = 0; j < m->priv->color_start[m->n_colors]; j++) vs_project_constraint(&rc, m->priv->color_order[j]);
  }
  int nonzero = 0;
  for (size_t id = 0; id < nc; id++) nonzero += lam[id] != 0.0;
  ck_assert_int_ge(nonzero, 30); /* the links did work */
  for (size_t i = 0; i < n4; i++)
    ck_assert_msg(ref[i] == s->x[i], "position %zu: kernel %.17g, private slots %.17g", i, s->x[i], ref[i]);
  for (size_t id = 0; id < nc; id++)
    ck_assert_msg(lam[id] == s->lambda[id], "multiplier of constraint %zu: kernel %.17g, private %.17g", id,
                  s->lambda[id], lam[id]);
  free(ref);
  free(lam);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("relax_jacobi");
  TCase *t = tcase_create("kernel");
  tcase_add_test(t, kernel_matches_scalar_reference);
  tcase_add_test(t, layout_covers_every_link_once);
  tcase_add_test(t, xpbd_multipliers_are_private_on_a_ragdoll);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
