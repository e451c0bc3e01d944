/* SPDX-License-Identifier: MIT */
/* test_compare_cli.c: `vsim compare` end to end, for people and scripts
 * (docs/cli.md, vsim compare): --only (repeatable), --json, --ulps, and the messages for
 * files of other shapes, datasets on one side only and other format
 * versions.  The library's side is in test_compare.c. */
#include <hdf5.h>

#include "runutil.h"

/* Two free particles: positions known in closed form, nothing to tune. */
static const char *scene =
    "time: {dt: 0.01, frames: 10}\n"
    "bodies:\n"
    "  - particles: {name: p, positions: [[0, 1, 0], [1, 2, 0]], velocities: [[1, 0, 0], "
    "[0, 3, 0]]}\n"
    "output: {fields: [position, velocity, constraint_error]}\n";

static char *setup(void) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/p.yaml", d);
  cu_write(p, scene);
  free(p);
  cu_proc r = cu_vsim(d, "run", "p.yaml", "-o", "ref.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  return d;
}

static void run_with(const char *d, const char *out, const char *a, const char *b) {
  const char *argv[12] = {cu_vsim_bin(), "run", "p.yaml", "-o", out, "-q"};
  size_t n = 6;
  if (a) argv[n++] = a;
  if (b) argv[n++] = b;
  cu_proc r = cu_run(d, argv);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
}

START_TEST(json_names_frame_and_particle) {
  char *d = setup();
  /* the second particle starts 1 mm higher: it differs from frame 0 on */
  char *p = cu_strf("%s/q.yaml", d);
  char *moved = strdup(scene);
  char *at = strstr(moved, "[1, 2, 0]");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "[1, 3, 0]", 9);
  cu_write(p, moved);
  free(moved);
  free(p);
  cu_proc r = cu_vsim(d, "run", "q.yaml", "-o", "q.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);

  r = cu_vsim(d, "compare", "q.h5", "ref.h5", "--json", "--only", "/particles/all/position", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out,
               "{\"equal\":false,\"compared\":3,\"differences\":[{\"path\":\"/particles/all/"
               "position/value\",\"kind\":\"values\",\"max_abs\":1,\"max_rel\":");
  CU_EXPECT_IN(r.out, "\"first_index\":4,\"first_frame\":0,\"first_particle\":1,\"detail\":");
  CU_EXPECT_IN(r.out, "\"step\":0,\"time\":0}");
  ck_assert_int_eq(r.out[strlen(r.out) - 1], '\n');
  ck_assert_uint_eq(strchr(r.out, '\n') - r.out, strlen(r.out) - 1); /* one line */
  ck_assert_str_eq(r.err, "");
  cu_free(&r);

  /* gravity: equal at frame 0, different from frame 1 on, for particle 0 first */
  run_with(d, "moon.h5", "--set", "world.gravity=[0,-1.62,0]");
  r = cu_vsim(d, "compare", "moon.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "/particles/all/position/value: values differ: max abs ");
  CU_EXPECT_IN(r.out, "first at step 1 (t = 0.01 s, row 1), particle 0");
  CU_EXPECT_IN(r.out, "/particles/all/velocity/value: values differ");
  cu_free(&r);

  /* every second frame recorded: row 1 is step 2 at t = 0.02 s, which is
   * what a person needs to look for, in text and in JSON */
  run_with(d, "ref2.h5", "--set", "output.every=2");
  r = cu_vsim(d, "run", "p.yaml", "-o", "moon2.h5", "-q", "-f", "--set", "output.every=2", "--set",
              "world.gravity=[0,-1.62,0]", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "compare", "moon2.h5", "ref2.h5", "--only", "/particles/all/position", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "first at step 2 (t = 0.02 s, row 1), particle 0");
  cu_free(&r);
  r = cu_vsim(d, "compare", "moon2.h5", "ref2.h5", "--json", "--only", "/particles/all/position",
              NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "\"first_frame\":1,\"first_particle\":0,");
  CU_EXPECT_IN(r.out, "\"step\":2,\"time\":0.02}");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(only_is_repeatable) {
  char *d = setup();
  run_with(d, "moon.h5", "--set", "world.gravity=[0,-1.62,0]");
  cu_proc r = cu_vsim(d, "compare", "moon.h5", "ref.h5", "--only", "/particles/all/mass", "--only",
                      "/solver", "--only=/particles/all/position/step/", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "equal: 4 datasets compared");
  cu_free(&r);
  r = cu_vsim(d, "compare", "moon.h5", "ref.h5", "--only", "/particles/all/mass", "--only",
              "/particles/all/velocity", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "/particles/all/velocity/value: values differ");
  CU_EXPECT_NOT_IN(r.out, "/particles/all/position");
  CU_EXPECT_IN(r.out, "4 datasets compared");
  cu_free(&r);
  /* a path that matches nothing is a difference, not a silent pass */
  r = cu_vsim(d, "compare", "ref.h5", "ref.h5", "--only", "/particles/all/positon", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "--only /particles/all/positon matches no dataset in either file");
  cu_free(&r);
  r = cu_vsim(d, "compare", "ref.h5", "ref.h5", "--only", "particles", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "--only: expected a dataset path");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(ulps_and_tolerances) {
  char *d = setup();
  /* a relative change of 1e-8 in gravity: about 1e8 units in the last place */
  run_with(d, "near.h5", "--set", "world.gravity=[0,-9.8100001,0]");
  cu_proc r = cu_vsim(d, "compare", "near.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  cu_free(&r);
  r = cu_vsim(d, "compare", "near.h5", "ref.h5", "--ulps", "1000", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "ulps 1000");
  cu_free(&r);
  r = cu_vsim(d, "compare", "near.h5", "ref.h5", "--ulps", "10000000000", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "equal:");
  cu_free(&r);
  r = cu_vsim(d, "compare", "near.h5", "ref.h5", "--rtol", "1e-7", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "compare", "near.h5", "ref.h5", "--atol", "1e-12", NULL);
  CU_EXPECT_CODE(r, 1);
  cu_free(&r);

  /* float32 output against float64: the rounding of float32 is about 6e-8 */
  run_with(d, "f32.h5", "--set", "output.precision=float32");
  r = cu_vsim(d, "compare", "f32.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  cu_free(&r);
  r = cu_vsim(d, "compare", "f32.h5", "ref.h5", "--rtol", "1e-7", "--atol", "1e-30", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "compare", "near.h5", "ref.h5", "--ulps", "-1", NULL);
  CU_EXPECT_CODE(r, 2);
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(shapes_and_missing_datasets) {
  char *d = setup();
  run_with(d, "longer.h5", "--frames", "12");
  cu_proc r = cu_vsim(d, "compare", "longer.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out,
               "/particles/all/position/value: shape differs ([13, 2, 3] float64 vs "
               "[11, 2, 3] float64)");
  CU_EXPECT_IN(r.out, "/particles/all/position/time: shape differs ([13] float64 vs [11] float64)");
  CU_EXPECT_NOT_IN(r.out, "/particles/all/mass");
  cu_free(&r);
  r = cu_vsim(d, "compare", "longer.h5", "ref.h5", "--json", NULL);
  CU_EXPECT_IN(r.out, "\"kind\":\"shape\"");
  CU_EXPECT_IN(r.out, "\"detail\":\"[13, 2, 3] float64 vs [11, 2, 3] float64\"");
  cu_free(&r);

  run_with(d, "nov.h5", "--set", "output.fields=[position, constraint_error]");
  r = cu_vsim(d, "compare", "nov.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "/particles/all/velocity/value: only in ref.h5");
  cu_free(&r);
  r = cu_vsim(d, "compare", "ref.h5", "nov.h5", "--json", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out,
               "{\"path\":\"/particles/all/velocity/value\",\"kind\":\"missing_b\",\"max_abs\":0,"
               "\"max_rel\":0,\"first_index\":-1,\"first_frame\":-1,\"first_particle\":-1,"
               "\"detail\":\"only in ref.h5\",\"step\":-1,\"time\":null}");
  cu_free(&r);
  r = cu_vsim(d, "compare", "nov.h5", "ref.h5", "--json", NULL);
  CU_EXPECT_IN(r.out, "\"kind\":\"missing_a\"");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Set /parameters/vsim@format_version of a file. */
static void set_format_version(const char *path, int32_t v) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(f >= 0);
  hid_t g = H5Gopen2(f, "/parameters/vsim", H5P_DEFAULT);
  ck_assert(g >= 0);
  hid_t a = H5Aopen(g, "format_version", H5P_DEFAULT);
  ck_assert(a >= 0);
  ck_assert(H5Awrite(a, H5T_NATIVE_INT32, &v) >= 0);
  H5Aclose(a);
  H5Gclose(g);
  H5Fclose(f);
}

START_TEST(format_versions) {
  char *d = setup();
  run_with(d, "v1.h5", NULL, NULL);
  char *path = cu_strf("%s/v1.h5", d);
  set_format_version(path, 1);
  free(path);
  cu_proc r = cu_vsim(d, "compare", "v1.h5", "ref.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out,
               "/parameters/vsim: different vsim format versions: 1 in v1.h5, 2 in ref.h5\n");
  CU_EXPECT_IN(r.out, "different: 1 difference");
  cu_free(&r);
  r = cu_vsim(d, "compare", "v1.h5", "ref.h5", "--json", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "\"path\":\"/parameters/vsim\",\"kind\":\"format\"");
  CU_EXPECT_IN(r.out, "\"detail\":\"format version 1 vs 2\"");
  cu_free(&r);
  /* a file of another format is not resumed (exit 2), and stays as it was */
  r = cu_vsim(d, "run", "--resume", "v1.h5", "--frames", "20", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "v1.h5: cannot resume: the file is in result format 1 and this vsim writes "
                      "format 2; run the scene again");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *compare_cli_suite(void) {
  Suite *s = suite_create("compare_cli");
  TCase *tc = tcase_create("compare_cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, json_names_frame_and_particle);
  tcase_add_test(tc, only_is_repeatable);
  tcase_add_test(tc, ulps_and_tolerances);
  tcase_add_test(tc, shapes_and_missing_datasets);
  tcase_add_test(tc, format_versions);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(compare_cli_suite());
}
