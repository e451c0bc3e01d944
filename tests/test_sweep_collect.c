/* SPDX-License-Identifier: MIT */
/* test_sweep_collect.c: the collect columns of a sweep's summary.csv
 * (docs/cli.md, vsim sweep; vsim/sweep.h, reductions), end to end.
 *
 * A 2-point sweep of a scene with a rigid crate and a rope: summary.csv
 * has one column per reduction, and each value is the one read from the
 * point's file by the reader of `vsim render` (vs_frames), to the last bit;
 * -j 2 and --point/--collect give the same table; a bad reduction, path,
 * index or body name is an error at its line and column of the sweep file
 * and nothing runs. */
#include <math.h>
#include <sys/stat.h>

#include "runutil.h"
#include "vsim/frames.h"
#include "vsim/sweep.h"

static const char *scene_yaml =
    "name: collect-test\n"
    "time: {dt: 0.01, frames: 15}\n"
    "world:\n"
    "  colliders:\n"
    "    - plane: {}\n"
    "bodies:\n"
    "  - rigid: {name: crate, shape: box, size: [0.5, 0.5, 0.5], position: [0, 1, 0]}\n"
    "  - rope: {name: r, from: [0, 2, 0], to: [1, 2, 0], segments: 4, pin: [first]}\n";

static const char *sweep_yaml =
    "scene: scene.yaml\n"
    "parameters:\n"
    "  world.gravity: [[0, -9.81, 0], [0, -1.62, 0]]\n"
    "collect:\n"
    "  crate_y: \"final /particles/rigid/position/value[crate,1]\"\n"
    "  e_max: max /observables/energy_kinetic\n"
    "  tip_y: final /particles/all/position/value[r:4, 1]\n"
    "  low_y: min /particles/all/position/value[:, 1]\n"
    "  e0: first /observables/energy_kinetic\n"
    "  mass: mean /particles/rigid/mass\n";

static char *setup(void) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/scene.yaml", d);
  cu_write(p, scene_yaml);
  free(p);
  p = cu_strf("%s/s.yaml", d);
  cu_write(p, sweep_yaml);
  free(p);
  return d;
}

/* Field `col` (0-based) of line `row` of a CSV without quoted commas in
 * the fields asked for. */
static char *field(const char *csv, size_t row, size_t col) {
  const char *p = csv;
  for (size_t i = 0; i < row; i++) {
    p = strchr(p, '\n');
    ck_assert_ptr_nonnull(p);
    p++;
  }
  /* skip quoted fields as wholes */
  for (size_t c = 0; c < col; c++) {
    if (*p == '"') {
      p = strchr(p + 1, '"');
      ck_assert_ptr_nonnull(p);
    }
    p = strpbrk(p, ",\n");
    ck_assert_msg(p && *p == ',', "row %zu has no field %zu", row, col);
    p++;
  }
  return strndup(p, strcspn(p, ",\n"));
}

/* The numbers the columns should hold, read by vs_frames. */
static void expected(const char *h5, double want[6]) {
  vs_frames *f = NULL;
  vs_error err;
  ck_assert_msg(vs_frames_open(h5, &f, &err) == VS_OK, "%s", err.message);
  size_t F = vs_frames_count(f);
  const vs_frames_topology *t = vs_frames_topo(f);
  ck_assert_uint_eq(t->n_rigid, 1);
  ck_assert_uint_eq(t->n_particles, 5);
  double c[3], q[4], x[15];
  ck_assert_int_eq(vs_frames_rigid(f, F - 1, c, q, &err), VS_OK);
  want[0] = c[1];
  long e = vs_frames_series_find(f, "energy_kinetic");
  ck_assert_int_ge(e, 0);
  double *tt = NULL, *v = NULL;
  size_t n = 0;
  ck_assert_int_eq(vs_frames_series_read(f, (size_t)e, &tt, &v, &n, &err), VS_OK);
  want[1] = -INFINITY;
  for (size_t i = 0; i < n; i++) want[1] = v[i] > want[1] ? v[i] : want[1];
  want[4] = v[0];
  vs_free_buffer(tt);
  vs_free_buffer(v);
  ck_assert_int_eq(vs_frames_position(f, F - 1, x, &err), VS_OK);
  want[2] = x[3 * 4 + 1];
  want[3] = INFINITY;
  for (size_t k = 0; k < F; k++) {
    ck_assert_int_eq(vs_frames_position(f, k, x, &err), VS_OK);
    for (int i = 0; i < 5; i++) want[3] = x[3 * i + 1] < want[3] ? x[3 * i + 1] : want[3];
  }
  want[5] = 1; /* the crate's default mass */
  vs_frames_close(f);
}

/* The rows of points first, first + 1, ... (n of them) of csv_name. */
static void check_rows(const char *d, const char *csv_name, size_t first, size_t n) {
  char *p = cu_strf("%s/%s", d, csv_name);
  char *csv = cu_slurp(p);
  ck_assert_ptr_nonnull(csv);
  char *header = strndup(csv, strcspn(csv, "\n"));
  ck_assert_str_eq(header,
                   "point,world.gravity,status,final_constraint_error,wall_seconds,crate_y,e_max,"
                   "tip_y,low_y,e0,mass,file");
  for (size_t row = 0; row < n; row++) {
    size_t k = first + row;
    char *h5 = cu_strf("%s/out/point-%04zu.h5", d, k);
    double want[6];
    expected(h5, want);
    for (int c = 0; c < 6; c++) {
      char *got = field(csv, row + 1, 5 + (size_t)c);
      char buf[40];
      snprintf(buf, sizeof buf, "%.17g", want[c]);
      ck_assert_msg(strcmp(got, buf) == 0, "%s point %zu column %d: %s, want %s", csv_name, k,
                    c, got, buf);
      /* and it reads back as the same double */
      ck_assert(strtod(got, NULL) == want[c]);
      free(got);
    }
    char *file = field(csv, row + 1, 11);
    char *wantf = cu_strf("point-%04zu.h5", k);
    ck_assert_str_eq(file, wantf);
    free(file);
    free(wantf);
    free(h5);
  }
  if (n == 2) {
    /* the gravities differ, so do the crates */
    char *a = field(csv, 1, 5), *b = field(csv, 2, 5);
    ck_assert_str_ne(a, b);
    free(a);
    free(b);
  }
  free(header);
  free(csv);
  free(p);
}

START_TEST(two_points_csv) {
  char *d = setup();
  cu_proc p = cu_vsim(d, "sweep", "s.yaml", "-o", "out", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(p.err, "");
  cu_free(&p);
  check_rows(d, "out/summary.csv", 0, 2);

  /* two at a time, and point by point then --collect: the same table */
  char *sum = cu_strf("%s/out/summary.csv", d), *keep = cu_strf("%s/first.csv", d);
  ck_assert_int_eq(rename(sum, keep), 0);
  p = cu_vsim(d, "sweep", "s.yaml", "-o", "out", "-q", "-f", "-j", "2", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  check_rows(d, "out/summary.csv", 0, 2);
  ck_assert_int_eq(unlink(sum), 0);
  for (int k = 0; k < 2; k++) {
    char kk[8];
    snprintf(kk, sizeof kk, "%d", k);
    p = cu_vsim(d, "sweep", "s.yaml", "-o", "out", "-q", "-f", "--point", kk, NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  p = cu_vsim(d, "sweep", "s.yaml", "-o", "out", "-q", "--collect", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  check_rows(d, "out/summary.csv", 0, 2);
  check_rows(d, "out/point-0001.csv", 1, 1);
  free(sum);
  free(keep);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A point whose file lacks what a column reads leaves that cell empty and
 * says why; the others are filled. */
START_TEST(missing_values_empty) {
  char *d = setup();
  char *p = cu_strf("%s/s.yaml", d);
  cu_write(p,
           "scene: scene.yaml\n"
           "parameters:\n"
           "  output.fields: [[position, constraint_error], [constraint_error]]\n"
           "collect:\n"
           "  tip_y: final /particles/all/position/value[r:4, 1]\n"
           "  e_max: max /observables/energy_kinetic\n");
  free(p);
  cu_proc r = cu_vsim(d, "sweep", "s.yaml", "-o", "out", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.err, "[point 1] collect.tip_y: no dataset /particles/all/position/value");
  cu_free(&r);
  char *sum = cu_strf("%s/out/summary.csv", d);
  char *csv = cu_slurp(sum);
  char *a = field(csv, 1, 5), *b = field(csv, 2, 5), *c = field(csv, 2, 6);
  ck_assert_str_ne(a, "");
  ck_assert_str_eq(b, "");
  ck_assert_str_ne(c, "");
  free(a);
  free(b);
  free(c);
  free(csv);
  free(sum);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(bad_collect) {
  char *d = setup();
  struct {
    const char *item;
    const char *says;
  } cases[] = {
      {"  x: maxx /observables/energy_kinetic\n",
       "bad.yaml:5:6: collect.x: unknown reduction 'maxx', did you mean 'max'?"},
      {"  x: max /observables/energy_kinetc\n",
       "bad.yaml:5:10: collect.x: no dataset /observables/energy_kinetc (did you mean "
       "/observables/energy_kinetic?) (point 0)"},
      {"  x: \"final /particles/rigid/position/value[crat,1]\"\n",
       "bad.yaml:5:13: collect.x: 'crat': no rigid body of that name, did you mean 'crate'?"},
      {"  x: final /particles/rigid/position/value[0]\n",
       "bad.yaml:5:12: collect.x: /particles/rigid/position/value: final takes one number a "
       "frame, and /particles/rigid/position/value [frames, 1, 3] gives 3"},
      {"  x: final /particles/rigid/position/value[0, 3]\n",
       "bad.yaml:5:12: collect.x: /particles/rigid/position/value: index 3 of axis 2 is out of "
       "range"},
      {"  x: final /particles/rigid/mass\n",
       "bad.yaml:5:12: collect.x: /particles/rigid/mass: final takes a time series"},
      {"  x: max /observables/energy_kinetic[0]\n", "at most 0 index items, got 1"},
      {"  x: max observables\n",
       "bad.yaml:5:10: collect.x: expected the absolute path of a dataset after 'max'"},
      {"  x: max /a[0\n", "bad.yaml:5:12: collect.x: '[' without its ']'"},
      {"  x: max /particles/all/position/value[r, 1]\n",
       "'r': the axis of /particles/all/position/value is the particles: name one as NAME:INDEX"},
      {"  x: max /solver/constraints[r]\n", "'r': /solver/constraints has no body axis"},
      {"  status: max /observables/energy_kinetic\n",
       "bad.yaml:5:3: collect: 'status' is a column of every summary.csv already"},
      {"  world.gravity: max /observables/energy_kinetic\n", "bad.yaml:5:3: collect: expected a column name"},
      {"  x: [max]\n", "bad.yaml:5:6: collect.x: expected a reduction"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *path = cu_strf("%s/bad.yaml", d);
    char *text = cu_strf("scene: scene.yaml\nparameters:\n  world.gravity: [[0, -9.81, 0]]\n"
                         "collect:\n%s",
                         cases[i].item);
    cu_write(path, text);
    cu_proc p = cu_vsim(d, "sweep", "bad.yaml", "-o", "out", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, cases[i].says);
    ck_assert_str_eq(p.out, "");
    cu_free(&p);
    CU_EXPECT_LISTING(d, "bad.yaml s.yaml scene.yaml");
    free(text);
    free(path);
  }
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The library calls on their own: parse, bind, read. */
START_TEST(library_reduction) {
  vs_reduction r;
  char why[300];
  size_t at = 0;
  ck_assert_int_eq(vs_reduction_parse("  mean  /a/b/ [ 1 , : ,-1]", &r, why, sizeof why, &at),
                   VS_OK);
  ck_assert_int_eq(r.op, VS_REDUCE_MEAN);
  ck_assert_str_eq(r.path, "/a/b");
  ck_assert_int_eq(r.n_index, 3);
  ck_assert_str_eq(r.index[0], "1");
  ck_assert_str_eq(r.index[1], "");
  ck_assert_str_eq(r.index[2], "-1");
  ck_assert_int_eq(vs_reduction_bind(&r, NULL, why, sizeof why), VS_OK);
  ck_assert_int_eq(r.at[0], 1);
  ck_assert_int_eq(r.at[1], INT64_MIN);
  ck_assert_int_eq(r.at[2], -1);
  ck_assert_int_eq(vs_reduction_parse("max /a b", &r, why, sizeof why, &at), VS_ERR_USAGE);
  ck_assert_uint_eq(at, 7);
  CU_EXPECT_IN(why, "unexpected 'b' after the path");

  char *d = setup();
  cu_proc p = cu_vsim(d, "run", "scene.yaml", "-o", "a.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *h5 = cu_strf("%s/a.h5", d);
  double want[6], v;
  expected(h5, want);
  vs_error err;
  /* the last particle by a negative number; the series group by its name */
  ck_assert_int_eq(vs_reduction_parse("final /particles/all/position/value[-1,1]", &r, why,
                                      sizeof why, &at),
                   VS_OK);
  ck_assert_int_eq(vs_reduction_bind(&r, NULL, why, sizeof why), VS_OK);
  ck_assert_int_eq(vs_reduction_eval(h5, &r, &v, &err), VS_OK);
  ck_assert(v == want[2]);
  ck_assert_int_eq(vs_reduction_parse("max /observables/energy_kinetic/value", &r, why,
                                      sizeof why, &at),
                   VS_OK);
  ck_assert_int_eq(vs_reduction_eval(h5, &r, &v, &err), VS_OK);
  ck_assert(v == want[1]);
  /* a name needs binding first */
  ck_assert_int_eq(vs_reduction_parse("final /particles/rigid/position/value[crate,1]", &r, why,
                                      sizeof why, &at),
                   VS_OK);
  ck_assert_int_eq(vs_reduction_eval(h5, &r, &v, &err), VS_ERR_USAGE);
  CU_EXPECT_IN(err.message, "bind");
  free(h5);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sweep_collect");
  TCase *tc = tcase_create("sweep_collect");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, two_points_csv);
  tcase_add_test(tc, missing_values_empty);
  tcase_add_test(tc, bad_collect);
  tcase_add_test(tc, library_reduction);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(suite());
}
