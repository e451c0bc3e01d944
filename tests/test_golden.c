/* SPDX-License-Identifier: MIT */
/* test_golden.c: the golden suite's script (scripts/golden.sh) on a scene
 * of its own: a golden file made with one solver setting must fail the
 * check of another, naming the scene, the dataset and the first frame; the
 * update must say what changed and leave unchanged files alone; tolerances
 * from the table apply.  (`make test` checks the real tests/golden/ too.) */
#include "runutil.h"

/* A small hanging cloth: 10 iterations, as the default scene. */
static const char *mini_yaml =
    "name: mini\n"
    "time: {dt: 0.0166667, frames: 100}\n"
    "solver: {integrator: pbd, iterations: 10}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [6, 6], pin: "
    "top-corners}\n";

typedef struct gdir {
  char *d, *golden, *configs;
} gdir;

static gdir setup(void) {
  gdir g;
  g.d = tu_tmpdir();
  g.golden = cu_strf("%s/golden", g.d);
  g.configs = cu_strf("%s/configs", g.d);
  ck_assert_int_eq(mkdir(g.golden, 0777), 0);
  ck_assert_int_eq(mkdir(g.configs, 0777), 0);
  char *p = cu_strf("%s/mini.yaml", g.configs);
  cu_write(p, mini_yaml);
  free(p);
  /* the script runs the program given by VSIM, on these directories */
  setenv("VSIM", cu_vsim_bin(), 1);
  setenv("GOLDEN_DIR", g.golden, 1);
  setenv("CONFIGS", g.configs, 1);
  unsetenv("GOLDEN_EXTRA");
  unsetenv("VSIM_CROSS");
  return g;
}

static void teardown(gdir *g) {
  tu_rmtree(g->d);
  free(g->d);
  free(g->golden);
  free(g->configs);
}

/* sh scripts/golden.sh MODE, in the test's directory. */
static cu_proc golden(const gdir *g, const char *mode) {
  char *script = cu_repo_path("scripts/golden.sh");
  const char *argv[] = {"sh", script, mode, NULL};
  cu_proc p = cu_run(g->d, argv);
  free(script);
  return p;
}

START_TEST(changed_solver_is_caught) {
  gdir g = setup();
  cu_proc p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: new (");
  cu_free(&p);
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: ok\n");
  CU_EXPECT_IN(p.out, "golden: 1 scenes equal to");
  cu_free(&p);

  /* one iteration fewer: the check fails from frame 1 on */
  setenv("GOLDEN_EXTRA", "--set solver.iterations=9", 1);
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "golden: mini: DIFFERENT from ");
  CU_EXPECT_IN(p.out, "  /particles/all/position/value: first at frame 1, particle ");
  CU_EXPECT_IN(p.out, "  /observables/constraint_error_max/value: first at frame 1: max abs ");
  CU_EXPECT_IN(p.out, "golden: check FAILED");
  cu_free(&p);

  /* a tolerance from the table lets it pass, and says so */
  char *tol = cu_strf("%s/tolerances", g.golden);
  cu_write(tol, "# scene  options  # why\nmini  --atol 1   # the test says so\n");
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: ok (--atol 1)");
  cu_free(&p);
  unlink(tol);
  free(tol);

  /* the update reports the change and how big it is, then the check passes */
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: CHANGED (new vs old):\n");
  CU_EXPECT_IN(p.out, "  /particles/all/position/value: first at frame 1, particle ");
  CU_EXPECT_IN(p.out, ": max abs ");
  CU_EXPECT_IN(p.out, "golden: 1 of 1 files new, changed or removed");
  cu_free(&p);
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  teardown(&g);
}
END_TEST

/* Datasets on one side only and other shapes say which side. */
START_TEST(missing_datasets_and_shapes_named) {
  gdir g = setup();
  setenv("GOLDEN_EXTRA", "--set output.fields=[position] --frames 10", 1);
  cu_proc p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  unsetenv("GOLDEN_EXTRA");
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "  /observables/constraint_error_max/value: only in this run\n");
  CU_EXPECT_IN(p.out,
               "  /particles/all/position/value: shape [21, 36, 3] float64 vs [11, 36, 3] float64 "
               "(this run vs the golden file)\n");
  cu_free(&p);
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "  /observables/constraint_error_max/value: only in the new file\n");
  cu_free(&p);
  setenv("GOLDEN_EXTRA", "--set output.fields=[position]", 1);
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "  /observables/constraint_error_max/value: only in the golden file\n");
  cu_free(&p);
  teardown(&g);
}
END_TEST

START_TEST(update_leaves_unchanged_files) {
  gdir g = setup();
  cu_proc p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *path = cu_strf("%s/mini.h5", g.golden);
  struct stat before, after;
  ck_assert_int_eq(stat(path, &before), 0);
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: unchanged\n");
  CU_EXPECT_IN(p.out, "golden: 0 of 1 files new, changed or removed");
  cu_free(&p);
  ck_assert_int_eq(stat(path, &after), 0);
  ck_assert(before.st_ino == after.st_ino && before.st_mtime == after.st_mtime &&
            before.st_size == after.st_size);

  /* a golden file whose scene is gone is removed by a full update */
  char *stale = cu_strf("%s/gone.h5", g.golden);
  cu_write(stale, "x");
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: gone: removed");
  cu_free(&p);
  ck_assert_int_ne(access(stale, F_OK), 0);
  free(stale);
  free(path);
  teardown(&g);
}
END_TEST

START_TEST(missing_and_broken_scenes) {
  gdir g = setup();
  /* a scene without a golden file fails the check */
  cu_proc p = golden(&g, "check");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "golden: mini: no golden file");
  cu_free(&p);
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  /* a scene that cannot run fails both, naming it */
  char *bad = cu_strf("%s/broken.yaml", g.configs);
  cu_write(bad, "solver: {iterations: -3}\n");
  free(bad);
  p = golden(&g, "check");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "golden: broken: FAILED to run (exit 2):");
  CU_EXPECT_IN(p.err, "broken.yaml:1:22: solver.iterations");
  CU_EXPECT_IN(p.out, "golden: mini: ok");
  cu_free(&p);
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "golden: broken: FAILED to run");
  cu_free(&p);
  p = golden(&g, "bogus");
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "usage:");
  cu_free(&p);
  teardown(&g);
}
END_TEST

/* cross: each scene run by VSIM and by the command VSIM_CROSS (the arm64
 * build under qemu, in make golden-check-aarch64), the two results compared
 * bitwise; here the other build is this one, then this one with a changed
 * setting (a script that adds it), then one that cannot run. */
START_TEST(cross_compares_two_builds) {
  gdir g = setup();
  cu_proc p = golden(&g, "cross");
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "golden: cross needs VSIM_CROSS");
  cu_free(&p);
  p = golden(&g, "update");
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);

  setenv("VSIM_CROSS", cu_vsim_bin(), 1);
  p = golden(&g, "cross");
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "golden: mini: ok, the same bits (");
  CU_EXPECT_IN(p.out, "this machine's run: equal to the golden file)\n");
  CU_EXPECT_IN(p.out, "golden: 1 scenes give the same bits with ");
  cu_free(&p);

  char *other = cu_strf("%s/other.sh", g.d);
  char *text = cu_strf("#!/bin/sh\nexec '%s' \"$@\" --set solver.iterations=9\n", cu_vsim_bin());
  cu_write(other, text);
  free(text);
  ck_assert_int_eq(chmod(other, 0755), 0);
  setenv("VSIM_CROSS", other, 1);
  p = golden(&g, "cross");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "golden: mini: DIFFERENT between ");
  CU_EXPECT_IN(p.out, "  /particles/all/position/value: first at frame 1, particle ");
  CU_EXPECT_IN(p.out, "golden: cross FAILED: 1 of 1 scenes differ or did not run");
  cu_free(&p);

  /* an other build that cannot run the scene (here: a bad --set) fails it */
  text = cu_strf("#!/bin/sh\nexec '%s' \"$@\" --set solver.iterations=-1\n", cu_vsim_bin());
  cu_write(other, text);
  free(text);
  p = golden(&g, "cross");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "golden: mini: FAILED to run with ");
  CU_EXPECT_IN(p.out, "golden: cross FAILED: 1 of 1 scenes differ or did not run");
  cu_free(&p);
  unsetenv("VSIM_CROSS");
  free(other);
  teardown(&g);
}
END_TEST

static Suite *golden_suite(void) {
  Suite *s = suite_create("golden");
  TCase *tc = tcase_create("golden");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, changed_solver_is_caught);
  tcase_add_test(tc, missing_datasets_and_shapes_named);
  tcase_add_test(tc, update_leaves_unchanged_files);
  tcase_add_test(tc, missing_and_broken_scenes);
  tcase_add_test(tc, cross_compares_two_builds);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(golden_suite());
}
