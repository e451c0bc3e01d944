/* SPDX-License-Identifier: MIT */
/* test_compare.c: golden comparison (docs/cli.md, vsim compare) and vs_h5_describe, on files
 * from the real pipeline and on small files built here with the HDF5 API. */
#include <hdf5.h>
#include <math.h>

#include "testutil.h"

static const char *rope_scene =
    "vsim: 1\n"
    "name: rope-test\n"
    "time: {dt: 0.01, frames: 5}\n"
    "bodies:\n"
    "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 4, pin: [first]}\n"
    "output: {fields: [position, velocity, constraint_error, per_constraint_error]}\n";

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static void simulate(const char *path, const char *yaml, const char *command) {
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_run_info info = {command, "", 0, NULL};
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_msg(vs_h5_open(path, s, m, &info, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, "complete", (double)strlen(command), &e), VS_OK);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
}

static void copy_file(const char *from, const char *to) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
  ck_assert_int_eq(system(cmd), 0);
}

/* Add delta to element `index` (flat) of a dataset, in place. */
static void perturb(const char *file, const char *path, hsize_t index, double delta,
                    double *set) {
  hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(f >= 0);
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert(d >= 0);
  hid_t sp = H5Dget_space(d);
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  double *v = malloc((size_t)n * sizeof *v);
  ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  if (set)
    v[index] = *set;
  else
    v[index] += delta;
  ck_assert(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  free(v);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
}

static const vs_compare_diff *find_diff(const vs_compare_result *r, const char *path) {
  for (size_t i = 0; i < r->n_diffs; i++)
    if (strcmp(r->diffs[i].path, path) == 0) return &r->diffs[i];
  return NULL;
}

typedef struct fixture {
  char *dir, *a, *b;
} fixture;

static fixture two_runs(void) {
  fixture x;
  x.dir = tu_tmpdir();
  x.a = join(x.dir, "a.h5");
  x.b = join(x.dir, "b.h5");
  simulate(x.a, rope_scene, "vsim run a");
  simulate(x.b, rope_scene, "vsim run --threads 4 b");
  return x;
}

static void fixture_free(fixture *x) {
  tu_rmtree(x->dir);
  free(x->dir);
  free(x->a);
  free(x->b);
}

START_TEST(identical_runs_compare_equal) {
  fixture x = two_runs();
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  /* position 3 + velocity 3 + mass, body, radius + distance/all x 3 stats x 3 +
   * penetration 3 + alive 3 + per-constraint 3 + energy 2 x 3 + connectivity + solver 2 */
  ck_assert_uint_eq(r.n_compared, 3 + 3 + 3 + 18 + 3 + 3 + 3 + 6 + 1 + 2);
  vs_compare_result_free(&r);
  vs_compare_result_free(NULL);
  fixture_free(&x);
}
END_TEST

START_TEST(perturbed_position_gives_frame_and_particle) {
  fixture x = two_runs();
  /* [F=6, N=5, 3]: frame 2, particle 3, coordinate 1 */
  hsize_t index = (2 * 5 + 3) * 3 + 1;
  perturb(x.a, "/particles/all/position/value", index, 1e-9, NULL);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  const vs_compare_diff *d = &r.diffs[0];
  ck_assert_str_eq(d->path, "/particles/all/position/value");
  ck_assert_int_eq(d->kind, VS_DIFF_VALUES);
  ck_assert_int_eq(d->first_index, (int64_t)index);
  ck_assert_int_eq(d->first_frame, 2);
  ck_assert_int_eq(d->first_particle, 3);
  ck_assert_double_eq_tol(d->max_abs, 1e-9, 1e-15);
  ck_assert(d->max_rel > 0);
  ck_assert_ptr_nonnull(strstr(d->detail, "1 of 90"));
  ck_assert_ptr_nonnull(strstr(d->detail, "[2, 3, 1]"));
  vs_compare_result_free(&r);

  /* tolerances */
  vs_compare_opts o = {0};
  o.atol = 1e-8;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  o.atol = 1e-10;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  vs_compare_result_free(&r);
  o.atol = 0;
  o.rtol = 1e-6; /* |b| is about 1 */
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  o.rtol = 1e-12;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(ulps) {
  fixture x = two_runs();
  /* velocity of particle 2 at frame 4, x: two ULPs up */
  hsize_t index = (4 * 5 + 2) * 3 + 0;
  hid_t f = H5Fopen(x.b, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/particles/all/velocity/value", H5P_DEFAULT);
  double v[90];
  ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  H5Fclose(f);
  double up2 = nextafter(nextafter(v[index], INFINITY), INFINITY);
  perturb(x.a, "/particles/all/velocity/value", index, 0, &up2);
  vs_compare_opts o = {0};
  vs_compare_result r;
  vs_error e;
  o.ulps = 1;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].first_frame, 4);
  ck_assert_int_eq(r.diffs[0].first_particle, 2);
  vs_compare_result_free(&r);
  o.ulps = 2;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(observables_frame_and_nan) {
  fixture x = two_runs();
  double nan = NAN;
  perturb(x.a, "/observables/constraint_error_max/value", 3, 0, &nan);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  const vs_compare_diff *d = &r.diffs[0];
  ck_assert_str_eq(d->path, "/observables/constraint_error_max/value");
  ck_assert_int_eq(d->first_frame, 3);
  ck_assert_int_eq(d->first_particle, -1);
  ck_assert(isinf(d->max_abs));
  vs_compare_result_free(&r);
  /* NaN on both sides is equal */
  perturb(x.b, "/observables/constraint_error_max/value", 3, 0, &nan);
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  /* mass (inf for the pinned particle 0) against a finite value */
  double one = 1.0;
  perturb(x.a, "/particles/all/mass", 0, 0, &one);
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].first_particle, 0);
  ck_assert_int_eq(r.diffs[0].first_frame, -1);
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(missing_datasets) {
  fixture x = two_runs();
  hid_t f = H5Fopen(x.a, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(H5Ldelete(f, "/observables/penetration_max", H5P_DEFAULT) >= 0);
  H5Fclose(f);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 3);
  /* sorted by path */
  ck_assert_str_eq(r.diffs[0].path, "/observables/penetration_max/step");
  ck_assert_str_eq(r.diffs[1].path, "/observables/penetration_max/time");
  ck_assert_str_eq(r.diffs[2].path, "/observables/penetration_max/value");
  for (int i = 0; i < 3; i++) ck_assert_int_eq(r.diffs[i].kind, VS_DIFF_MISSING_A);
  vs_compare_result_free(&r);
  ck_assert_int_eq(vs_compare_files(x.b, x.a, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 3);
  ck_assert_int_eq(r.diffs[0].kind, VS_DIFF_MISSING_B);
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(shape_and_type_mismatch) {
  fixture x = two_runs();
  char *longer = join(x.dir, "longer.h5");
  char text[1024];
  snprintf(text, sizeof text, "%s", rope_scene);
  char *p = strstr(text, "frames: 5");
  p[8] = '7';
  simulate(longer, text, "x");
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(longer, x.b, NULL, &r, &e), VS_OK);
  const vs_compare_diff *d = find_diff(&r, "/particles/all/position/value");
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(d->kind, VS_DIFF_SHAPE);
  ck_assert_ptr_nonnull(strstr(d->detail, "[8, 5, 3]"));
  ck_assert_ptr_nonnull(strstr(d->detail, "[6, 5, 3]"));
  ck_assert_ptr_nonnull(find_diff(&r, "/observables/constraints_alive/step"));
  /* the static data matches */
  ck_assert_ptr_null(find_diff(&r, "/particles/all/mass"));
  ck_assert_ptr_null(find_diff(&r, "/solver/constraints"));
  vs_compare_result_free(&r);

  /* integer vs float of the same shape */
  hid_t f = H5Fopen(x.a, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(H5Ldelete(f, "/particles/all/body", H5P_DEFAULT) >= 0);
  hsize_t n = 5;
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t ds = H5Dcreate2(f, "/particles/all/body", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  double zero[5] = {0};
  ck_assert(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zero) >= 0);
  H5Dclose(ds);
  H5Sclose(sp);
  H5Fclose(f);
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].kind, VS_DIFF_SHAPE);
  ck_assert_ptr_nonnull(strstr(r.diffs[0].detail, "float64"));
  ck_assert_ptr_nonnull(strstr(r.diffs[0].detail, "int32"));
  vs_compare_result_free(&r);
  free(longer);
  fixture_free(&x);
}
END_TEST

START_TEST(float32_against_float64) {
  fixture x = two_runs();
  char *f32 = join(x.dir, "f32.h5");
  char text[1024];
  /* the output mapping is flow style: add precision inside it */
  snprintf(text, sizeof text, "%s", rope_scene);
  char *brace = strrchr(text, '}');
  snprintf(brace, sizeof text - (size_t)(brace - text), ", precision: float32}\n");
  simulate(f32, text, "x");
  vs_compare_result r;
  vs_error e;
  /* same shapes, both floats: values compared, and rounding shows */
  ck_assert_int_eq(vs_compare_files(f32, x.b, NULL, &r, &e), VS_OK);
  const vs_compare_diff *d = find_diff(&r, "/particles/all/position/value");
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(d->kind, VS_DIFF_VALUES);
  ck_assert(d->max_rel < 1e-6);
  vs_compare_result_free(&r);
  vs_compare_opts o = {0};
  o.rtol = 1e-6;
  o.atol = 1e-12;
  ck_assert_int_eq(vs_compare_files(f32, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  /* ULPs of float32 data count in float32 units */
  char *f32b = join(x.dir, "f32b.h5");
  copy_file(f32, f32b);
  hid_t f = H5Fopen(f32b, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t ds = H5Dopen2(f, "/particles/all/position/value", H5P_DEFAULT);
  float v[90];
  ck_assert(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  v[20] = nextafterf(v[20], INFINITY);
  ck_assert(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(ds);
  H5Fclose(f);
  vs_compare_opts u = {0};
  ck_assert_int_eq(vs_compare_files(f32b, f32, &u, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  vs_compare_result_free(&r);
  u.ulps = 1;
  ck_assert_int_eq(vs_compare_files(f32b, f32, &u, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  free(f32);
  free(f32b);
  fixture_free(&x);
}
END_TEST

START_TEST(only_paths) {
  fixture x = two_runs();
  perturb(x.a, "/observables/penetration_max/value", 1, 0.5, NULL);
  vs_compare_result r;
  vs_error e;
  const char *pos[] = {"/particles/all/position/"};
  vs_compare_opts o = {0};
  o.only = pos;
  o.n_only = 1;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  ck_assert_uint_eq(r.n_compared, 3);
  vs_compare_result_free(&r);
  /* a prefix that is not a path component boundary does not match */
  const char *partial[] = {"/observables/pen"};
  o.only = partial;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_compared, 0);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].kind, VS_DIFF_MISSING_A);
  ck_assert_ptr_nonnull(strstr(r.diffs[0].detail, "matches no dataset"));
  vs_compare_result_free(&r);
  const char *params[] = {"/parameters"};
  o.only = params;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_ptr_nonnull(strstr(r.diffs[0].detail, "outside the compared groups"));
  vs_compare_result_free(&r);
  const char *two[] = {"observables/penetration_max", "/particles/all/mass"};
  o.only = two;
  o.n_only = 2;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, &o, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_compared, 4);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_str_eq(r.diffs[0].path, "/observables/penetration_max/value");
  ck_assert_int_eq(r.diffs[0].first_frame, 1);
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(format_version_mismatch) {
  fixture x = two_runs();
  hid_t f = H5Fopen(x.a, H5F_ACC_RDWR, H5P_DEFAULT);
  /* HDF5 1.10 cannot write through H5Aopen_by_name: open the group first */
  hid_t g = H5Gopen2(f, "/parameters/vsim", H5P_DEFAULT);
  hid_t a = H5Aopen(g, "format_version", H5P_DEFAULT);
  int32_t one = 1;
  ck_assert(H5Awrite(a, H5T_NATIVE_INT32, &one) >= 0);
  H5Aclose(a);
  H5Gclose(g);
  H5Fclose(f);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(x.a, x.b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_str_eq(r.diffs[0].detail, "format version 1 vs 2");
  vs_compare_result_free(&r);
  fixture_free(&x);
}
END_TEST

START_TEST(not_vsim_files) {
  char *dir = tu_tmpdir();
  char *plain = join(dir, "plain.h5"), *text = join(dir, "text.h5"), *good = join(dir, "good.h5");
  char *none = join(dir, "none.h5");
  simulate(good, rope_scene, "x");
  hid_t f = H5Fcreate(plain, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  H5Fclose(f);
  FILE *fp = fopen(text, "w");
  fputs("not hdf5\n", fp);
  fclose(fp);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(plain, good, NULL, &r, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.file, plain);
  ck_assert_int_eq(vs_compare_files(good, text, NULL, &r, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.file, text);
  ck_assert_int_eq(vs_compare_files(none, good, NULL, &r, &e), VS_ERR_IO);
  ck_assert_str_eq(e.file, none);
  ck_assert_int_eq(vs_compare_files(good, none, NULL, &r, &e), VS_ERR_IO);
  ck_assert_str_eq(e.file, none);
  ck_assert_int_eq(vs_compare_files(good, dir, NULL, &r, &e), VS_ERR_IO);
  ck_assert_str_eq(e.file, dir);
  char *out = NULL;
  ck_assert_int_eq(vs_h5_describe(plain, 0, &out, &e), VS_ERR_FORMAT);
  ck_assert_int_eq(vs_h5_describe(none, 1, &out, &e), VS_ERR_IO);
  ck_assert_ptr_null(out);
  vs_compare_opts bad = {0};
  bad.atol = -1;
  ck_assert_int_eq(vs_compare_files(good, good, &bad, &r, &e), VS_ERR_USAGE);
  tu_rmtree(dir);
  free(plain);
  free(text);
  free(good);
  free(none);
  free(dir);
}
END_TEST

/* A minimal vsim-like file: /h5md, /parameters/vsim and one big
 * [F, N, 3] time series, to exercise the streaming reader. */
static void write_big(const char *path, hsize_t F, hsize_t N, hsize_t bump) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(f >= 0);
  H5Gclose(H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "parameters/vsim", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "particles/all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "particles/all/position", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  hsize_t dims[3] = {F, N, 3};
  hid_t sp = H5Screate_simple(3, dims, NULL);
  hid_t d = H5Dcreate2(f, "particles/all/position/value", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                       H5P_DEFAULT, H5P_DEFAULT);
  size_t n = (size_t)(F * N * 3);
  double *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = (double)(i % 1000) * 0.25;
  if (bump < n) v[bump] += 1.0;
  ck_assert(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  free(v);
  H5Dclose(d);
  H5Sclose(sp);
  sp = H5Screate_simple(1, dims, NULL);
  int64_t steps[4] = {0, 1, 2, 3};
  d = H5Dcreate2(f, "particles/all/position/step", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                 H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
}

START_TEST(streams_large_datasets) {
  char *dir = tu_tmpdir();
  char *a = join(dir, "a.h5"), *b = join(dir, "b.h5");
  /* one frame of 400000 particles is 1.2 M elements: read split along axis 1 */
  hsize_t F = 3, N = 400000;
  hsize_t bump = (2 * N + 345678) * 3 + 2;
  write_big(a, F, N, bump);
  write_big(b, F, N, (hsize_t)-1);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(a, b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_compared, 2);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].first_index, (int64_t)bump);
  ck_assert_int_eq(r.diffs[0].first_frame, 2);
  ck_assert_int_eq(r.diffs[0].first_particle, 345678);
  ck_assert_double_eq(r.diffs[0].max_abs, 1.0);
  vs_compare_result_free(&r);
  /* many small rows: whole rows per block */
  write_big(a, 4, 1000, 4 * 1000 * 3 - 1);
  write_big(b, 4, 1000, (hsize_t)-1);
  ck_assert_int_eq(vs_compare_files(a, b, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 1);
  ck_assert_int_eq(r.diffs[0].first_frame, 3);
  ck_assert_int_eq(r.diffs[0].first_particle, 999);
  vs_compare_result_free(&r);
  tu_rmtree(dir);
  free(a);
  free(b);
  free(dir);
}
END_TEST

START_TEST(describe_text_and_json) {
  char *dir = tu_tmpdir();
  char *path = join(dir, "out.h5");
  simulate(path, rope_scene, "vsim run \"quoted\"");
  char *out = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_describe(path, 0, &out, &e), VS_OK);
  ck_assert_ptr_nonnull(strstr(out, "status:          complete"));
  ck_assert_ptr_nonnull(strstr(out, "scene:           rope-test"));
  ck_assert_ptr_nonnull(strstr(out, "frames recorded: 6"));
  ck_assert_ptr_nonnull(strstr(out, "particles:       5"));
  ck_assert_ptr_nonnull(strstr(out, "/particles/all/position/value"));
  ck_assert_ptr_nonnull(strstr(out, "[6, 5, 3] float64 m\n")); /* the unit of H5W_SERIES */
  ck_assert_ptr_nonnull(strstr(out, "[6] float64 J\n"));       /* energy */
  ck_assert_ptr_nonnull(strstr(out, "0 .. 0.05 s"));
  ck_assert_ptr_nonnull(strstr(out, "checkpoint:      frame 5"));
  vs_free_buffer(out);
  ck_assert_int_eq(vs_h5_describe(path, 1, &out, &e), VS_OK);
  ck_assert(out[0] == '{');
  ck_assert_ptr_nonnull(strstr(out, "\"status\": \"complete\""));
  ck_assert_ptr_nonnull(strstr(out, "\"command\": \"vsim run \\\"quoted\\\"\""));
  ck_assert_ptr_nonnull(strstr(out, "\"particles\": 5"));
  ck_assert_ptr_nonnull(strstr(out, "\"shape\": [6, 5, 3], \"type\": \"float64\", \"unit\": \"m\""));
  ck_assert_ptr_nonnull(
      strstr(out, "\"path\": \"/observables/constraint_error_max_relative/value\", \"shape\": "
                  "[6], \"type\": \"float64\", \"unit\": \"1\"}"));
  ck_assert_ptr_nonnull(strstr(out, "\"path\": \"/particles/all/mass\", \"shape\": [5], \"type\": \"float64\"}"));
  ck_assert_ptr_nonnull(strstr(out, "\"checkpoint_frame\": 5"));
  /* valid JSON, when python is at hand */
  if (access("/usr/bin/python3", X_OK) == 0) {
    char *js = join(dir, "info.json");
    FILE *fp = fopen(js, "w");
    fputs(out, fp);
    fclose(fp);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
             js);
    ck_assert_int_eq(system(cmd), 0);
    free(js);
  }
  vs_free_buffer(out);
  tu_rmtree(dir);
  free(path);
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("compare");
  TCase *t = tcase_create("compare");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, identical_runs_compare_equal);
  tcase_add_test(t, perturbed_position_gives_frame_and_particle);
  tcase_add_test(t, ulps);
  tcase_add_test(t, observables_frame_and_nan);
  tcase_add_test(t, missing_datasets);
  tcase_add_test(t, shape_and_type_mismatch);
  tcase_add_test(t, float32_against_float64);
  tcase_add_test(t, only_paths);
  tcase_add_test(t, format_version_mismatch);
  tcase_add_test(t, not_vsim_files);
  tcase_add_test(t, streams_large_datasets);
  tcase_add_test(t, describe_text_and_json);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return tu_run(suite());
}
