/* SPDX-License-Identifier: MIT */
/* test_junit.c: the JUnit XML reports of `vsim compare --junit FILE` and
 * `sh scripts/golden.sh check --junit FILE` (GOLDEN_JUNIT=FILE): one test
 * case per dataset (per scene and dataset for the golden script), a
 * failure naming the first differing frame, an error for a file or scene
 * that cannot be compared; every report validates against the JUnit schema
 * of tests/data/junit.xsd with xmllint (Debian libxml2-utils; the checks
 * that need it are skipped, saying so, without it). */
#include <sys/stat.h>

#include "runutil.h"

static const char *mini_yaml =
    "name: mini\n"
    "time: {dt: 0.0166667, frames: 12}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [5, 5], pin: "
    "top-corners}\n";

static int have_xmllint(void) {
  return system("command -v xmllint > /dev/null 2>&1") == 0;
}

/* The report validates against the schema (xmllint says "FILE validates"). */
static void expect_valid(const char *dir, const char *file) {
  char *xsd = cu_repo_path("tests/data/junit.xsd");
  const char *argv[] = {"xmllint", "--noout", "--schema", xsd, file, NULL};
  cu_proc p = cu_run(dir, argv);
  ck_assert_msg(p.code == 0, "%s does not validate against %s:\n%s", file, xsd, p.err);
  CU_EXPECT_IN(p.err, "validates");
  cu_free(&p);
  free(xsd);
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static char *setup(void) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/mini.yaml", d);
  cu_write(p, mini_yaml);
  free(p);
  cu_proc r = cu_vsim(d, "run", "mini.yaml", "-o", "a.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "run", "mini.yaml", "-o", "same.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "run", "mini.yaml", "-o", "b.h5", "-q", "--set", "solver.iterations=9", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  return d;
}

START_TEST(compare_report) {
  if (!have_xmllint()) TU_SKIP("no xmllint (apt-get install libxml2-utils)");
  char *d = setup();

  /* equal: a test case per dataset, none failed; the text report as before */
  cu_proc p = cu_vsim(d, "compare", "a.h5", "same.h5", "--junit", "eq.xml", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "equal: ");
  size_t n = 0;
  ck_assert_int_eq(sscanf(strstr(p.out, "equal: "), "equal: %zu datasets", &n), 1);
  cu_free(&p);
  char *path = cu_strf("%s/eq.xml", d);
  char *x = cu_slurp(path);
  ck_assert_ptr_nonnull(x);
  char *want = cu_strf("<testsuite name=\"a\" tests=\"%zu\" failures=\"0\" errors=\"0\"", n);
  CU_EXPECT_IN(x, want);
  ck_assert_uint_eq(count(x, "<testcase "), n);
  CU_EXPECT_IN(x, "<testcase classname=\"a\" name=\"/particles/all/position/value\" time=\"0\"/>");
  CU_EXPECT_NOT_IN(x, "<failure");
  expect_valid(d, "eq.xml");
  free(want);
  free(x);
  free(path);

  /* different: the failures say where they first are; --json still works */
  p = cu_vsim(d, "compare", "b.h5", "a.h5", "--json", "--junit", "diff.xml", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "\"equal\":false");
  cu_free(&p);
  path = cu_strf("%s/diff.xml", d);
  x = cu_slurp(path);
  CU_EXPECT_IN(x, "<testsuite name=\"b\"");
  CU_EXPECT_IN(x, "<testcase classname=\"b\" name=\"/particles/all/position/value\" time=\"0\">\n"
                  "      <failure type=\"values\" message=\"/particles/all/position/value: "
                  "values differ: max abs ");
  CU_EXPECT_IN(x, "first at step 1 (t = 0.0166667 s, row 1), particle ");
  ck_assert_uint_ge(count(x, "<failure "), 2);
  CU_EXPECT_IN(x, "<property name=\"b\" value=\"a.h5\"/>");
  expect_valid(d, "diff.xml");
  free(x);
  free(path);

  /* a file that cannot be read: one test case in error, exit 2 as before */
  p = cu_vsim(d, "compare", "a.h5", "nosuch.h5", "--junit", "err.xml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nosuch.h5");
  cu_free(&p);
  path = cu_strf("%s/err.xml", d);
  x = cu_slurp(path);
  CU_EXPECT_IN(x, "tests=\"1\" failures=\"0\" errors=\"1\"");
  CU_EXPECT_IN(x, "<error type=\"unreadable\" message=\"nosuch.h5: ");
  expect_valid(d, "err.xml");
  free(x);
  free(path);

  /* only in one file, and a name that needs escaping */
  p = cu_vsim(d, "compare", "a.h5", "a.h5", "--only", "/nosuch<&>", "--junit", "only.xml", NULL);
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  path = cu_strf("%s/only.xml", d);
  x = cu_slurp(path);
  CU_EXPECT_IN(x, "name=\"/nosuch&lt;&amp;&gt;\"");
  expect_valid(d, "only.xml");
  free(x);
  free(path);

  /* to standard output */
  p = cu_vsim(d, "compare", "a.h5", "same.h5", "--junit", "-", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "<testsuites name=\"vsim compare\"");
  CU_EXPECT_IN(p.out, "equal: ");
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The golden script: a suite per scene; a changed solver fails the datasets
 * it moves, at their first frame; a scene without a golden file or that
 * cannot run is an error; by --junit or GOLDEN_JUNIT. */
START_TEST(golden_report) {
  if (!have_xmllint()) TU_SKIP("no xmllint (apt-get install libxml2-utils)");
  char *d = tu_tmpdir();
  char *golden = cu_strf("%s/golden", d), *configs = cu_strf("%s/configs", d);
  ck_assert_int_eq(mkdir(golden, 0777), 0);
  ck_assert_int_eq(mkdir(configs, 0777), 0);
  char *p = cu_strf("%s/mini.yaml", configs);
  cu_write(p, mini_yaml);
  free(p);
  p = cu_strf("%s/other.yaml", configs);
  cu_write(p, mini_yaml);
  free(p);
  p = cu_strf("%s/broken.yaml", configs);
  cu_write(p, "bodies: [{cloth: {}}]\n");
  free(p);
  setenv("VSIM", cu_vsim_bin(), 1);
  setenv("GOLDEN_DIR", golden, 1);
  setenv("CONFIGS", configs, 1);
  unsetenv("GOLDEN_EXTRA");
  unsetenv("GOLDEN_JUNIT");
  char *script = cu_repo_path("scripts/golden.sh");
  {
    const char *argv[] = {"sh", script, "update", "mini", NULL};
    cu_proc r = cu_run(d, argv);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
  }
  setenv("GOLDEN_EXTRA", "--set solver.iterations=9", 1);
  {
    const char *argv[] = {"sh", script, "check", "--junit", "g.xml", "mini", "other", "broken",
                          NULL};
    cu_proc r = cu_run(d, argv);
    CU_EXPECT_CODE(r, 1);
    CU_EXPECT_IN(r.out, "golden: mini: DIFFERENT");
    cu_free(&r);
  }
  char *path = cu_strf("%s/g.xml", d);
  char *x = cu_slurp(path);
  ck_assert_ptr_nonnull(x);
  CU_EXPECT_IN(x, "<testsuites name=\"golden\" tests=\"");
  CU_EXPECT_IN(x, "errors=\"2\">");
  CU_EXPECT_IN(x, "<testsuite name=\"mini\" tests=\"");
  CU_EXPECT_IN(x, "<testcase classname=\"mini\" name=\"/particles/all/position/value\" "
                  "time=\"0\">\n      <failure type=\"values\"");
  CU_EXPECT_IN(x, "first at step 1 (t = 0.0166667 s, row 1), particle ");
  CU_EXPECT_IN(x, "<testsuite name=\"other\" tests=\"1\" failures=\"0\" errors=\"1\"");
  CU_EXPECT_IN(x, "<testcase classname=\"other\" name=\"golden file\" time=\"0\">");
  CU_EXPECT_IN(x, "<testsuite name=\"broken\" tests=\"1\" failures=\"0\" errors=\"1\"");
  CU_EXPECT_IN(x, "<error type=\"exit 2\" message=\"vsim: ");
  ck_assert_uint_eq(count(x, "<testsuite "), 3);
  expect_valid(d, "g.xml");
  free(x);

  /* GOLDEN_JUNIT, and a passing check: no failures */
  unsetenv("GOLDEN_EXTRA");
  setenv("GOLDEN_JUNIT", "env.xml", 1);
  {
    const char *argv[] = {"sh", script, "check", "mini", NULL};
    cu_proc r = cu_run(d, argv);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
  }
  free(path);
  path = cu_strf("%s/env.xml", d);
  x = cu_slurp(path);
  ck_assert_ptr_nonnull(x);
  CU_EXPECT_IN(x, " failures=\"0\" errors=\"0\">");
  CU_EXPECT_NOT_IN(x, "<failure");
  expect_valid(d, "env.xml");
  free(x);
  /* --junit goes with check only */
  {
    const char *argv[] = {"sh", script, "update", "mini", NULL};
    cu_proc r = cu_run(d, argv);
    CU_EXPECT_CODE(r, 2);
    CU_EXPECT_IN(r.err, "goes with check");
    cu_free(&r);
  }
  unsetenv("GOLDEN_JUNIT");
  free(path);
  free(script);
  free(golden);
  free(configs);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("junit");
  TCase *tc = tcase_create("junit");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, compare_report);
  tcase_add_test(tc, golden_report);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(suite());
}
