/* test_relax_jacobi.c: the vectorised coloured-Jacobi kernel gives the same
 * bits as a plain scalar projection of the same links, one at a time, colour
 * by colour (issue 3: SIMD and scalar must agree to the last bit). */
#include <math.h>

#include "solve/internal.h"
#include "testutil.h"

/* Scalar reference: the kernel's arithmetic, link by link, in the same order
 * of operations. */
static void reference_sweep(const vs_model *m, double *x, double *lambda, int xpbd, double inv_h2) {
  for (int32_t col = 0; col < m->n_colors; col++)
    for (int32_t j = m->jd_start[col]; j < m->jd_start[col] + m->jd_two_sided[col]; j++) {
      double *pa = x + 4 * m->jd_ab[2 * j], *pb = x + 4 * m->jd_ab[2 * j + 1];
      double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
      double len = sqrt(dx * dx + dy * dy + dz * dz);
      double C = len - m->jd_rest[j], s;
      if (!xpbd) {
        s = -C * m->jd_kw[j] / len * 1.0;
      } else {
        double at = m->jd_compl[j] * inv_h2;
        double dl = m->omega * (-C - at * lambda[j]) / (m->jd_wsum[j] + at) * 1.0;
        lambda[j] += dl;
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
  double *ref = malloc(n4 * sizeof(double)), *lam = calloc((size_t)m->n_dist, sizeof(double));
  memcpy(ref, s->x, n4 * sizeof(double));
  const double h = m->h, inv_h2 = 1.0 / (h * h);
  vs_solve_ctx ctx = {.m = m, .x = s->x, .lambda = s->lambda, .alive = s->alive,
                      .inv_h2 = inv_h2, .xpbd = m->integrator == VS_INTEGRATOR_XPBD};
  for (int sweep = 0; sweep < 3; sweep++) {
    vs_relax_jacobi(m, s, &ctx);
    reference_sweep(m, ref, lam, ctx.xpbd, inv_h2);
  }
  ck_assert_msg(memcmp(ref, s->x, n4 * sizeof(double)) == 0, "%s, %d threads: kernel != scalar",
                integrator, threads);
  if (ctx.xpbd) ck_assert(memcmp(lam, s->lambda, (size_t)m->n_dist * sizeof(double)) == 0);
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
  vs_scene *sc = tu_scene("bodies:\n"
                          "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [9, 7], shear: {}, bend: {}}\n"
                          "  - particles: {name: p, positions: [[0, 0, 0], [1, 1, 1], [2, 2, 2]]}\n"
                          "constraints:\n"
                          "  - distance: {a: 'p:0', b: 'p:1', min: 0.5}\n"
                          "  - pin: {particle: 'p:2'}\n"
                          "  - angle: {a: 'c:0,0', b: 'c:1,0', c: 'c:2,0', min: 90}\n");
  vs_model *m = tu_model(sc);
  int *seen = calloc((size_t)m->n_dist, sizeof(int));
  for (int32_t j = 0; j < m->jd_start[m->n_colors]; j++) seen[m->jd_id[j]]++;
  for (int32_t i = 0; i < m->n_dist; i++) ck_assert_int_eq(seen[i], 1);
  ck_assert_int_eq(m->jo_start[m->n_colors], m->n_constraints - m->n_dist);
  /* the one-sided link sits after the two-sided ones of its colour */
  int found = 0;
  for (int32_t c = 0; c < m->n_colors; c++)
    for (int32_t j = m->jd_start[c]; j < m->jd_start[c + 1]; j++) {
      int two = m->dist_side[m->jd_id[j]] == VS_SIDE_EQUAL;
      ck_assert_int_eq(two, j < m->jd_start[c] + m->jd_two_sided[c]);
      found += !two;
    }
  ck_assert_int_eq(found, 1);
  free(seen);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("relax_jacobi");
  TCase *t = tcase_create("kernel");
  tcase_add_test(t, kernel_matches_scalar_reference);
  tcase_add_test(t, layout_covers_every_link_once);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
