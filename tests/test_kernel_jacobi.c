/* SPDX-License-Identifier: MIT */
/* test_kernel_jacobi.c: every coloured-Jacobi kernel path this CPU has gives
 * the scalar reference's bits (lib/solve/kernel_jacobi.h), on whole runs and
 * on the golden suite, on one and two threads; VSIM_KERNEL picks the path,
 * and an unknown or unsupported value is an error, never a silent fallback.
 * A path the CPU lacks is tested for that error instead. */
#include <math.h>

#include "runutil.h"
#include "solve/kernel_jacobi.h"
#include "testutil.h"

/* Odd cloth sizes leave every vector width a tail; two coincident particles
 * make a zero-length link (no correction, the select paths); the pinned top
 * corners are shared by links of one colour; omega != 1. */
static const char *const scenes[] = {
    /* pbd, stretch + shear + bend */
    "solver: {integrator: pbd, relaxation: jacobi, iterations: 7, omega: 1.3}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [37, 29], shear: {stiffness: 0.7},\n"
    "            bend: {stiffness: 0.3}, pin: top-corners}\n"
    "  - particles: {name: p, positions: [[3, 0, 0], [3, 0, 0], [3, 1, 0]]}\n"
    "constraints:\n"
    "  - distance: {a: 'p:0', b: 'p:1', rest: 0}\n"
    "  - distance: {a: 'p:1', b: 'p:2', rest: 0.5}\n",
    /* xpbd with compliances: the multiplier path */
    "solver: {integrator: xpbd, relaxation: jacobi, iterations: 5, omega: 1.1}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [31, 23], shear: {compliance: 1e-6},\n"
    "            bend: {stiffness: 0.4, compliance: 1e-4}, pin: top-edge}\n"
    "  - particles: {name: p, positions: [[3, 0, 0], [3, 0, 0]]}\n"
    "constraints:\n"
    "  - distance: {a: 'p:0', b: 'p:1', rest: 0, compliance: 1e-3}\n",
    /* tearing: dead links in the middle of blocks */
    "time: {substeps: 2}\n"
    "solver: {integrator: pbd, relaxation: jacobi, iterations: 6}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [25, 19], pin: top-corners, tear: 1.02}\n",
};

static void scramble(const vs_model *m, vs_state *s) {
  uint64_t r = 987654321;
  for (int32_t i = 0; i < m->n_particles; i++)
    for (int k = 0; k < 3; k++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      s->x[4 * i + k] += ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 0.03;
    }
}

static vs_state *state_on(const vs_model *m, const char *path, int threads) {
  setenv("VSIM_KERNEL", path, 1);
  vs_state *s = tu_state(m);
  unsetenv("VSIM_KERNEL");
  s->threads = threads;
  scramble(m, s);
  return s;
}

/* The reference: the scalar kernel, one thread, colour after colour (no
 * wavefront, relax_jacobi.c). */
static vs_state *reference_on(const vs_model *m) {
  vs_state *s = state_on(m, "scalar", 1);
  s->scratch->jacobi.wave = 0;
  return s;
}

static void same_state(const vs_model *m, const vs_state *ref, const vs_state *s, const char *what) {
  const size_t n = (size_t)m->n_particles;
  for (size_t i = 0; i < 4 * n; i++)
    ck_assert_msg(memcmp(&ref->x[i], &s->x[i], sizeof(double)) == 0, "%s: x[%zu] = %a, reference %a", what, i,
                  s->x[i], ref->x[i]);
  ck_assert_msg(memcmp(ref->v, s->v, 3 * n * sizeof(double)) == 0, "%s: v differs", what);
  ck_assert_msg(memcmp(ref->lambda, s->lambda, (size_t)m->n_constraints * sizeof(double)) == 0,
                "%s: multipliers differ", what);
  ck_assert_msg(memcmp(ref->alive, s->alive, (size_t)m->n_dist) == 0, "%s: alive differs", what);
}

static void same_run(vs_jacobi_path p, int threads) {
  const char *name = vs_jacobi_path_name(p);
  for (size_t sc_i = 0; sc_i < sizeof scenes / sizeof *scenes; sc_i++) {
    vs_scene *sc = tu_scene(scenes[sc_i]);
    vs_model *m = tu_model(sc);
    vs_state *ref = reference_on(m), *s = state_on(m, name, threads);
    ck_assert_int_eq(ref->scratch->jacobi.path, VS_JPATH_SCALAR);
    ck_assert_int_eq(s->scratch->jacobi.path, (int)p);
    vs_error e;
    for (int f = 0; f < 6; f++) {
      ck_assert_int_eq(vs_step(m, ref, &e), VS_OK);
      ck_assert_int_eq(vs_step(m, s, &e), VS_OK);
    }
    char *what = cu_strf("scene %zu, %s, %d threads", sc_i, name, threads);
    same_state(m, ref, s, what);
    free(what);
    if (sc_i == 2) ck_assert_int_lt(s->n_alive, m->n_dist); /* links did tear */
    if (sc_i == 1) {
      int nonzero = 0;
      for (int32_t id = 0; id < m->n_constraints; id++) nonzero += s->lambda[id] != 0.0;
      ck_assert_int_gt(nonzero, m->n_constraints / 2); /* the multipliers did work */
    }
    vs_state_free(ref);
    vs_state_free(s);
    vs_model_free(m);
    vs_scene_free(sc);
  }
}

/* The wavefront schedule (relax_jacobi.c) against colour after colour on
 * cloths big enough for its chunks and seams: a square one, a wide one with
 * shear and bend links (span = 2 rows) and a loose particle pair far away in
 * index, xpbd, and a tearing one; 1 to 4 threads; the seam share forced up
 * so that small cloths get long chunks of stages. */
static const char *const wave_scenes[] = {
    "solver: {integrator: pbd, relaxation: jacobi, iterations: 9, omega: 1.2}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [64, 61], pin: top-edge}\n",
    "time: {substeps: 2}\n"
    "solver: {integrator: xpbd, relaxation: jacobi, iterations: 6}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [2, 1], resolution: [41, 90], shear: {compliance: 1e-6},\n"
    "            bend: {stiffness: 0.4, compliance: 1e-4}, pin: top-corners}\n"
    "  - particles: {name: p, positions: [[3, 0, 0], [3, 0.1, 0]]}\n"
    "constraints:\n"
    "  - distance: {a: 'p:0', b: 'p:1', rest: 0.2, compliance: 1e-3}\n",
    "solver: {integrator: pbd, relaxation: jacobi, iterations: 8}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [33, 70], pin: top-corners, tear: 1.02}\n",
};

static void wave_run(vs_jacobi_path p) {
  const char *name = vs_jacobi_path_name(p);
  for (size_t sc_i = 0; sc_i < sizeof wave_scenes / sizeof *wave_scenes; sc_i++) {
    vs_scene *sc = tu_scene(wave_scenes[sc_i]);
    vs_model *m = tu_model(sc);
    vs_state *ref = reference_on(m);
    vs_error e;
    for (int f = 0; f < 5; f++) ck_assert_int_eq(vs_step(m, ref, &e), VS_OK);
    for (int threads = 1; threads <= 4; threads++)
      for (int d = 0; d < (threads == 2 ? 5 : 3); d++) {
        /* two threads: also thread 0's share held far from even (relax_jacobi.c, wave_balance) */
        const int div = (int[]){32, 4, 1, 4, 4}[d];
        const double share = (double[]){0.0, 0.0, 0.0, 0.1, 0.9}[d];
        vs_state *s = state_on(m, name, threads);
        ck_assert(s->scratch->jacobi.wave_ok);
        s->scratch->jacobi.wave_seam_div = div;
        s->scratch->jacobi.wave_share_fixed = share;
        if (share > 0.0) s->scratch->jacobi.wave_share = share;
        for (int f = 0; f < 5; f++) ck_assert_int_eq(vs_step(m, s, &e), VS_OK);
        if (threads == 2 && share > 0.0) ck_assert(s->scratch->jacobi.wave_share == share);
        if (threads == 2 && share == 0.0)
          ck_assert(s->scratch->jacobi.wave_share >= 0.25 && s->scratch->jacobi.wave_share <= 0.75);
        char *what = cu_strf("wave scene %zu, %s, %d threads, seam share 1/%d, thread 0's share %g", sc_i, name,
                             threads, div, share);
        same_state(m, ref, s, what);
        free(what);
        vs_state_free(s);
      }
    if (sc_i == 2) ck_assert_int_lt(ref->n_alive, m->n_dist); /* links did tear */
    vs_state_free(ref);
    vs_model_free(m);
    vs_scene_free(sc);
  }
}

/* The golden suite (scripts/golden.sh) with the path forced. */
static void golden(vs_jacobi_path p) {
  char *root = cu_repo_path(".");
  char *cmd = cu_strf("cd '%s' && VSIM_KERNEL=%s VSIM='%s' sh scripts/golden.sh check > /dev/null", root,
                      vs_jacobi_path_name(p), cu_vsim_bin());
  ck_assert_msg(system(cmd) == 0, "golden suite with VSIM_KERNEL=%s differs (run: %s)", vs_jacobi_path_name(p),
                cmd);
  free(cmd);
  free(root);
}

/* A path the CPU lacks: forcing it is an error that says so. */
static void refused(vs_jacobi_path p) {
  vs_scene *sc = tu_scene(scenes[0]);
  vs_model *m = tu_model(sc);
  vs_state *s = NULL;
  vs_error e;
  vs_error_clear(&e);
  setenv("VSIM_KERNEL", vs_jacobi_path_name(p), 1);
  ck_assert_int_eq(vs_state_create(m, &s, &e), VS_ERR_UNSUPPORTED);
  unsetenv("VSIM_KERNEL");
  ck_assert_ptr_null(s);
  char *want = cu_strf("VSIM_KERNEL=%s: this CPU (or this build) has no %s kernel", vs_jacobi_path_name(p),
                       vs_jacobi_path_name(p));
  ck_assert_msg(strstr(e.message, want), "message: %s", e.message);
  free(want);
  vs_model_free(m);
  vs_scene_free(sc);
}

static void path_test(vs_jacobi_path p) {
  if (!vs_jacobi_path_supported(p)) {
    refused(p);
    return;
  }
  same_run(p, 1);
  same_run(p, 2);
  wave_run(p);
  golden(p);
}

START_TEST(path_scalar) { path_test(VS_JPATH_SCALAR); }
END_TEST
START_TEST(path_sse2) { path_test(VS_JPATH_SSE2); }
END_TEST
START_TEST(path_avx2) { path_test(VS_JPATH_AVX2); }
END_TEST
START_TEST(path_avx512) { path_test(VS_JPATH_AVX512); }
END_TEST

START_TEST(auto_takes_the_widest_supported) {
  vs_jacobi_path p;
  vs_error e;
  vs_error_clear(&e);
  unsetenv("VSIM_KERNEL");
  ck_assert_int_eq(vs_jacobi_path_select(&p, &e), VS_OK);
  for (int q = p + 1; q < VS_JPATH_COUNT; q++) ck_assert(!vs_jacobi_path_supported((vs_jacobi_path)q));
  ck_assert(vs_jacobi_path_supported(p));
  vs_jacobi_path p2;
  setenv("VSIM_KERNEL", "auto", 1);
  ck_assert_int_eq(vs_jacobi_path_select(&p2, &e), VS_OK);
  unsetenv("VSIM_KERNEL");
  ck_assert_int_eq(p2, p);
#if defined(__x86_64__)
  ck_assert(vs_jacobi_path_supported(VS_JPATH_SSE2)); /* the x86-64 baseline */
#elif !defined(__i386__)
  /* elsewhere (arm64) the x86 files build stubs that call the scalar
   * reference and are never chosen: auto is the portable scalar path (the
   * loop above: no other is supported), and forcing an x86 path is refused
   * (path_sse2, path_avx2 and path_avx512 check the message) */
  ck_assert_int_eq(p, VS_JPATH_SCALAR);
#endif
}
END_TEST

START_TEST(unknown_path_is_an_error) {
  vs_scene *sc = tu_scene(scenes[0]);
  vs_model *m = tu_model(sc);
  vs_state *s = NULL;
  vs_error e;
  vs_error_clear(&e);
  setenv("VSIM_KERNEL", "avx1024", 1);
  ck_assert_int_eq(vs_state_create(m, &s, &e), VS_ERR_USAGE);
  unsetenv("VSIM_KERNEL");
  ck_assert_ptr_null(s);
  ck_assert_str_eq(e.message, "VSIM_KERNEL=avx1024: unknown kernel path (auto, scalar, sse2, avx2 or avx512)");
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* The wavefront's lag per stage is the span of the stage's own colour
 * (relax_jacobi.c): color_span is the largest |a - b| of each colour's
 * two-sided links, reached by one of them, and on a cloth the links along
 * rows make a colour of span 1 while a row is 48 particles.  The hot arrays
 * start on 64-byte lines (util/alloc.h, vs_calloc_aligned). */
START_TEST(colour_spans_and_aligned_arrays) {
  vs_scene *sc = tu_scene("solver: {integrator: pbd, relaxation: jacobi, iterations: 3}\n"
                          "bodies:\n"
                          "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [48, 40], pin: top-edge}\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  const vs_jacobi_layout *L = &s->scratch->jacobi;
  ck_assert(L->wave_ok);
  int32_t least = INT32_MAX, most = 0;
  for (int32_t c = 0; c < m->n_colors; c++) {
    int32_t span = 0;
    for (int32_t j = L->color_link_start[c]; j < L->color_link_start[c] + L->color_two_sided[c]; j++) {
      const int32_t d = abs(L->link_ab[2 * j] - L->link_ab[2 * j + 1]);
      if (d > span) span = d;
    }
    ck_assert_int_eq(L->color_span[c], span);
    if (span < least) least = span;
    if (span > most) most = span;
  }
  ck_assert_int_eq(least, 1);
  ck_assert_int_eq(most, 48);
  ck_assert_int_eq(L->wave_span, most);
  const void *hot[] = {s->x, s->xprev, s->v, L->link_ab, L->link_rest, L->link_kw, L->link_key, L->link_shape};
  for (size_t k = 0; k < sizeof hot / sizeof *hot; k++)
    ck_assert_msg((uintptr_t)hot[k] % 64 == 0, "array %zu at %p is not on a 64-byte line", k, hot[k]);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* Group shapes (kernel_jacobi.h): runs, pairs, any 16 distinct particles
 * (VS_JSHAPE_ANY: loaded whole by the AVX-512 path, so the whole-run tests
 * above hold it to the reference), and NONE only with a particle twice; on a
 * cloth every group of a colour is shaped but the ones between pinned
 * particles (the top edge), and some are ANY (row ends). */
START_TEST(group_shapes) {
  int32_t ab[16];
  for (int k = 0; k < 8; k++) ab[2 * k] = 100 + k, ab[2 * k + 1] = 200 + k;
  ck_assert_int_eq(vs_jacobi_shape(ab), VS_JSHAPE_RUNS);
  for (int k = 0; k < 8; k++) ab[2 * k] = 100 + 2 * k, ab[2 * k + 1] = 101 + 2 * k;
  ck_assert_int_eq(vs_jacobi_shape(ab), VS_JSHAPE_PAIRS);
  ab[0] = 7, ab[1] = 300; /* a link across rows before 7 pairs: 16 distinct */
  ck_assert_int_eq(vs_jacobi_shape(ab), VS_JSHAPE_ANY);
  ab[15] = 300; /* particle 300 twice */
  ck_assert_int_eq(vs_jacobi_shape(ab), VS_JSHAPE_NONE);
  for (int k = 0; k < 8; k++) ab[2 * k] = 100 + k, ab[2 * k + 1] = 104 + k; /* runs that overlap */
  ck_assert_int_eq(vs_jacobi_shape(ab), VS_JSHAPE_NONE);

  vs_scene *sc = tu_scene("solver: {integrator: pbd, relaxation: jacobi, iterations: 2}\n"
                          "bodies:\n"
                          "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [48, 40], pin: top-edge}\n");
  vs_model *m = tu_model(sc);
  vs_state *s = tu_state(m);
  const vs_jacobi_layout *L = &s->scratch->jacobi;
  int32_t count[4] = {0};
  for (int32_t c = 0; c < m->n_colors; c++) {
    const int32_t lo = L->color_link_start[c], hi = lo + L->color_two_sided[c];
    for (int32_t j = lo; j + 8 <= hi; j += 8) {
      const int sh = L->link_shape[j];
      count[sh]++;
      ck_assert_int_eq(sh, vs_jacobi_shape(L->link_ab + 2 * j));
      if (sh == VS_JSHAPE_NONE) /* a link between two pinned particles */
        for (int k = 0; k < 8; k++)
          ck_assert(s->x[4 * L->link_ab[2 * (j + k)] + 3] == 0.0 || s->x[4 * L->link_ab[2 * (j + k) + 1] + 3] == 0.0);
    }
  }
  ck_assert_int_gt(count[VS_JSHAPE_ANY], 0);
  ck_assert_int_gt(count[VS_JSHAPE_RUNS], 0);
  ck_assert_int_gt(count[VS_JSHAPE_PAIRS], 0);
  ck_assert_int_le(count[VS_JSHAPE_NONE], 48 / 8 + 1);
  vs_state_free(s);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

/* The step's streaming passes (prediction, velocities, the state check) run
 * on the state's threads from VS_PASS_MIN (4096) particles on (step.c): a
 * cloth above that, pbd and xpbd, on 2 and 3 threads and every path gives
 * the bits of the scalar reference on one thread. */
START_TEST(streaming_passes_on_threads) {
  static const char *const big[] = {
      "solver: {integrator: pbd, relaxation: jacobi, iterations: 4}\n"
      "bodies:\n"
      "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [72, 67], pin: top-edge}\n",
      "solver: {integrator: xpbd, relaxation: jacobi, iterations: 3}\n"
      "bodies:\n"
      "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [67, 72], shear: {compliance: 1e-6},\n"
      "            pin: top-corners}\n",
  };
  for (size_t sc_i = 0; sc_i < sizeof big / sizeof *big; sc_i++) {
    vs_scene *sc = tu_scene(big[sc_i]);
    vs_model *m = tu_model(sc);
    ck_assert_int_ge(m->n_particles, 4096);
    vs_state *ref = reference_on(m);
    vs_error e;
    for (int f = 0; f < 4; f++) ck_assert_int_eq(vs_step(m, ref, &e), VS_OK);
    for (int p = 0; p < VS_JPATH_COUNT; p++)
      for (int threads = 2; threads <= 3 && vs_jacobi_path_supported((vs_jacobi_path)p); threads++) {
        vs_state *s = state_on(m, vs_jacobi_path_name((vs_jacobi_path)p), threads);
        for (int f = 0; f < 4; f++) ck_assert_int_eq(vs_step(m, s, &e), VS_OK);
        char *what = cu_strf("big scene %zu, %s, %d threads", sc_i, vs_jacobi_path_name((vs_jacobi_path)p), threads);
        same_state(m, ref, s, what);
        free(what);
        vs_state_free(s);
      }
    vs_state_free(ref);
    vs_model_free(m);
    vs_scene_free(sc);
  }
}
END_TEST

/* The program: the same message, exit 2, no output file left. */
START_TEST(program_refuses_an_unknown_path) {
  char *dir = tu_tmpdir();
  char *out = cu_strf("%s/o.h5", dir);
  setenv("VSIM_KERNEL", "neon", 1);
  cu_proc p = cu_vsim(dir, "run", "-o", out, "--frames", "2", "--quiet", NULL);
  unsetenv("VSIM_KERNEL");
  ck_assert_int_eq(p.code, 2);
  ck_assert_msg(strstr(p.err, "VSIM_KERNEL=neon: unknown kernel path"), "stderr: %s", p.err);
  ck_assert_int_ne(access(out, F_OK), 0);
  cu_free(&p);
  free(out);
  tu_rmtree(dir);
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("kernel_jacobi");
  TCase *t = tcase_create("paths");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, path_scalar);
  tcase_add_test(t, path_sse2);
  tcase_add_test(t, path_avx2);
  tcase_add_test(t, path_avx512);
  tcase_add_test(t, auto_takes_the_widest_supported);
  tcase_add_test(t, unknown_path_is_an_error);
  tcase_add_test(t, program_refuses_an_unknown_path);
  tcase_add_test(t, colour_spans_and_aligned_arrays);
  tcase_add_test(t, group_shapes);
  tcase_add_test(t, streaming_passes_on_threads);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
