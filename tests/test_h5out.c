/* SPDX-License-Identifier: MIT */
/* test_h5out.c: the result file writer: the docs/result-file.md layout read back through
 * the HDF5 API, recorded frames, precision, compression, the temporary file
 * and the errors around the output path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "io/h5series.h"
#include "model/estimate.h"
#include "testutil.h"
#include "util/outfile.h"

/* A scene with every kind of constraint: cloth (triangles), rope, an
 * explicit pin and an angle limit. */
static const char *full_scene =
    "vsim: 1\n"
    "name: full\n"
    "time: {dt: 0.01, frames: 5}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 2, 0], size: [1, 1], resolution: [3, 3], pin: top-corners}\n"
    "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 4, pin: [first]}\n"
    "constraints:\n"
    "  - pin: {particle: 'r:4'}\n"
    "  - angle: {a: 'r:0', b: 'r:1', c: 'r:2', min: 90}\n"
    "output:\n"
    "  fields: [position, velocity, constraint_error, per_constraint_error]\n";

static const char *rope_scene =
    "vsim: 1\n"
    "time: {dt: 0.01, frames: 5}\n"
    "bodies:\n"
    "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 4, pin: [first]}\n";

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* Simulate `yaml` frame by frame into `path`; returns the model's counts. */
static void simulate(const char *path, const char *yaml, int force, const char *status) {
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_run_info info = {"vsim run test.yaml", "resolved: true\n", force, NULL};
  vs_h5_writer *w = NULL;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_msg(vs_h5_open(path, s, m, &info, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_msg(vs_h5_record(w, m, st, &e) == VS_OK, "%s", e.message);
  }
  ck_assert_msg(vs_h5_finish(w, status, 1.5, &e) == VS_OK, "%s", e.message);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
}

/* Names in dir, apart from . and .. */
static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* Check a dataset's shape and type; returns it open. */
static hid_t expect_ds(hid_t f, const char *path, H5T_class_t cls, size_t size, int rank,
                       const hsize_t *dims) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "missing dataset %s", path);
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  ck_assert_msg(H5Tget_class(t) == cls, "%s: type class %d", path, (int)H5Tget_class(t));
  ck_assert_msg(H5Tget_size(t) == size, "%s: element size %zu", path, H5Tget_size(t));
  hsize_t got[8];
  int r = H5Sget_simple_extent_dims(sp, got, NULL);
  ck_assert_msg(r == rank, "%s: rank %d, want %d", path, r, rank);
  for (int i = 0; i < rank; i++)
    ck_assert_msg(got[i] == dims[i], "%s: dim %d is %llu, want %llu", path, i,
                  (unsigned long long)got[i], (unsigned long long)dims[i]);
  H5Tclose(t);
  H5Sclose(sp);
  return d;
}

static void expect_series(hid_t f, const char *group, int rank, const hsize_t *dims,
                          size_t value_size) {
  char p[512];
  snprintf(p, sizeof p, "%s/value", group);
  H5Dclose(expect_ds(f, p, rank == 1 && value_size == 8 && strstr(group, "alive") ? H5T_INTEGER
                                                                                : H5T_FLOAT,
                     value_size, rank, dims));
  snprintf(p, sizeof p, "%s/step", group);
  H5Dclose(expect_ds(f, p, H5T_INTEGER, 8, 1, dims));
  snprintf(p, sizeof p, "%s/time", group);
  H5Dclose(expect_ds(f, p, H5T_FLOAT, 8, 1, dims));
}

static int exists(hid_t f, const char *path) {
  return H5Lexists(f, path, H5P_DEFAULT) > 0;
}

/* A UTF-8 string attribute, variable-length (the /parameters texts) or, with
 * fixed, fixed-length (H5MD 1.1's h5md, author and creator strings, units). */
static char *attr_text_as(hid_t f, const char *obj, const char *name, int fixed) {
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_msg(a >= 0, "missing attribute %s@%s", obj, name);
  hid_t t = H5Aget_type(a);
  ck_assert_int_eq(H5Tget_class(t), H5T_STRING);
  ck_assert_msg((H5Tis_variable_str(t) > 0) == !fixed, "%s@%s: %s-length", obj, name,
                fixed ? "variable" : "fixed");
  ck_assert_int_eq(H5Tget_cset(t), H5T_CSET_UTF8);
  char *copy;
  if (fixed) {
    size_t n = H5Tget_size(t);
    copy = calloc(n + 1, 1);
    ck_assert(H5Aread(a, t, copy) >= 0);
  } else {
    char *s = NULL;
    ck_assert(H5Aread(a, t, &s) >= 0);
    copy = strdup(s);
    H5free_memory(s);
  }
  H5Tclose(t);
  H5Aclose(a);
  return copy;
}
static char *attr_text(hid_t f, const char *obj, const char *name) {
  return attr_text_as(f, obj, name, 0);
}

static double attr_num(hid_t f, const char *obj, const char *name) {
  double v = NAN;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_msg(a >= 0, "missing attribute %s@%s", obj, name);
  ck_assert(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
  H5Aclose(a);
  return v;
}

static void read_all(hid_t f, const char *path, hid_t mtype, void *buf) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "missing %s", path);
  ck_assert(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Dclose(d);
}

/* H5MD 1.1 beyond the tree: particles_group and fill -1 on connectivity,
 * radius; a rope whose links tear records which are alive, per frame, as
 * the state says (constraints in build order: the pin first, then links). */
START_TEST(connectivity_alive_and_h5md_references) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  const char *yaml = "time: {dt: 0.01, frames: 40}\nsolver: {iterations: 1}\n"
                     "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 4, pin: [0],"
                     " tear: 1.01, radius: 0.02}\n";
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_OK);
  uint8_t want[41][16];
  ck_assert_int_le(m->n_constraints, 16);
  for (int64_t f = 0; f <= m->frames; f++) {
    if (f > 0) ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
    for (int32_t c = 0; c < m->n_constraints; c++)
      want[f][c] = m->con_kind[c] == VS_KIND_DISTANCE ? st->alive[m->con_index[c]] : 1;
  }
  ck_assert_int_lt(st->n_alive, m->n_dist); /* something tore */
  ck_assert_int_eq(vs_h5_finish(w, "complete", 0, &e), VS_OK);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t dims[2] = {41, (hsize_t)m->n_constraints};
  hid_t d = expect_ds(f, "/connectivity/alive/value", H5T_INTEGER, 1, 2, dims);
  uint8_t got[41 * 16];
  ck_assert(H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
  H5Dclose(d);
  const int32_t M = m->n_constraints;
  for (int i = 0; i < 41; i++)
    for (int32_t c = 0; c < M; c++) ck_assert_uint_eq(got[i * M + c], want[i][c]);
  ck_assert_uint_eq(got[M - 1], 1);
  int torn = 0;
  for (int32_t c = 0; c < M; c++) torn += got[40 * M + c] == 0;
  ck_assert_int_eq(torn, m->n_dist - st->n_alive);
  /* particles_group names /particles/all; fill value -1 */
  const char *refs[] = {"/connectivity/distance", "/connectivity/alive"};
  for (int i = 0; i < 2; i++) {
    hid_t a = H5Aopen_by_name(f, refs[i], "particles_group", H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(a >= 0, "%s: no particles_group", refs[i]);
    hobj_ref_t ref;
    ck_assert(H5Aread(a, H5T_STD_REF_OBJ, &ref) >= 0);
    hid_t o = H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &ref);
    char name[64] = "";
    H5Iget_name(o, name, sizeof name);
    ck_assert_str_eq(name, "/particles/all");
    H5Oclose(o);
    H5Aclose(a);
  }
  d = H5Dopen2(f, "/connectivity/distance", H5P_DEFAULT);
  hid_t p = H5Dget_create_plist(d);
  int32_t fill = 0;
  ck_assert(H5Pget_fill_value(p, H5T_NATIVE_INT32, &fill) >= 0);
  ck_assert_int_eq(fill, -1);
  H5Pclose(p);
  H5Dclose(d);
  hsize_t n = (hsize_t)m->n_particles;
  double r[8];
  d = expect_ds(f, "/particles/all/radius", H5T_FLOAT, 8, 1, &n);
  ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0);
  H5Dclose(d);
  ck_assert_double_eq(r[0], 0.02);
  H5Fclose(f);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(layout_is_spec_section_4) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out, full_scene, 0, "complete");
  ck_assert_int_eq(count_entries(dir), 1); /* the temporary file is gone */

  vs_scene *s = tu_scene(full_scene);
  vs_model *m = tu_model(s);
  ck_assert_int_gt(m->n_dist, 0);
  ck_assert_int_eq(m->n_pin, 1);
  ck_assert_int_eq(m->n_angle, 1);
  ck_assert_int_gt(m->n_triangles, 0);
  hsize_t N = (hsize_t)m->n_particles, M = (hsize_t)m->n_constraints, F = 6;

  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  /* /h5md */
  int32_t version[2] = {0, 0};
  hid_t a = H5Aopen_by_name(f, "/h5md", "version", H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(a >= 0);
  hid_t at = H5Aget_type(a);
  ck_assert_int_eq(H5Tget_class(at), H5T_INTEGER);
  H5Tclose(at);
  ck_assert(H5Aread(a, H5T_NATIVE_INT32, version) >= 0);
  H5Aclose(a);
  ck_assert_int_eq(version[0], 1);
  ck_assert_int_eq(version[1], 1);
  char *t = attr_text_as(f, "/h5md/author", "name", 1);
  ck_assert_str_eq(t, "unknown");
  free(t);
  t = attr_text_as(f, "/h5md/creator", "name", 1);
  ck_assert_str_eq(t, "vsim");
  free(t);
  t = attr_text_as(f, "/h5md/creator", "version", 1);
  ck_assert_str_eq(t, VSIM_VERSION);
  free(t);
  /* the units module, and units on the element groups, not on value */
  t = attr_text_as(f, "/h5md/modules/units", "system", 1);
  ck_assert_str_eq(t, "SI");
  free(t);
  t = attr_text_as(f, "/particles/all/position", "unit", 1);
  ck_assert_str_eq(t, "m");
  free(t);
  ck_assert(H5Aexists_by_name(f, "/particles/all/position/value", "unit", H5P_DEFAULT) == 0);
  t = attr_text_as(f, "/observables/energy_kinetic", "unit", 1);
  ck_assert_str_eq(t, "J");
  free(t);
  t = attr_text_as(f, "/particles/all/mass", "unit", 1);
  ck_assert_str_eq(t, "kg");
  free(t);
  /* dimensionless: no unit */
  ck_assert(H5Aexists_by_name(f, "/observables/constraint_error_max_relative", "unit",
                              H5P_DEFAULT) == 0);

  /* box */
  ck_assert_double_eq(attr_num(f, "/particles/all/box", "dimension"), 3);
  a = H5Aopen_by_name(f, "/particles/all/box", "boundary", H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(a >= 0);
  hid_t bt = H5Aget_type(a);
  ck_assert_int_eq(H5Tget_class(bt), H5T_STRING);
  size_t bs = H5Tget_size(bt);
  char bnd[3][16];
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, 16);
  ck_assert(H5Aread(a, mt, bnd) >= 0);
  for (int i = 0; i < 3; i++) ck_assert_str_eq(bnd[i], "none");
  ck_assert_uint_ge(bs, 4);
  H5Tclose(mt);
  H5Tclose(bt);
  H5Aclose(a);

  /* particles */
  hsize_t fn3[3] = {F, N, 3};
  expect_series(f, "/particles/all/position", 3, fn3, 8);
  expect_series(f, "/particles/all/velocity", 3, fn3, 8);
  H5Dclose(expect_ds(f, "/particles/all/mass", H5T_FLOAT, 8, 1, &N));
  H5Dclose(expect_ds(f, "/particles/all/body", H5T_INTEGER, 4, 1, &N));
  double *mass = malloc(N * sizeof *mass);
  int32_t *body = malloc(N * sizeof *body);
  read_all(f, "/particles/all/mass", H5T_NATIVE_DOUBLE, mass);
  read_all(f, "/particles/all/body", H5T_NATIVE_INT32, body);
  for (hsize_t i = 0; i < N; i++) {
    ck_assert(mass[i] == m->mass[i] || (isinf(mass[i]) && isinf(m->mass[i])));
    ck_assert_int_eq(body[i], m->body[i]);
  }
  ck_assert(isinf(mass[0 + 9])); /* rope particle 0 is pinned */
  free(mass);
  free(body);

  /* frame 0 positions are the initial ones; steps 0..5, time = frame dt */
  double *pos = malloc(F * N * 3 * sizeof *pos);
  read_all(f, "/particles/all/position/value", H5T_NATIVE_DOUBLE, pos);
  for (hsize_t i = 0; i < N; i++)
    for (int c = 0; c < 3; c++) ck_assert(pos[3 * i + c] == m->x0[4 * i + c]);
  free(pos);
  int64_t step[6];
  double time[6];
  read_all(f, "/particles/all/position/step", H5T_NATIVE_INT64, step);
  read_all(f, "/particles/all/position/time", H5T_NATIVE_DOUBLE, time);
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(step[i], i);
    ck_assert_double_eq_tol(time[i], 0.01 * i, 1e-12);
  }

  /* observables */
  const char *kinds[] = {"distance", "pin", "angle", "constraint"};
  const char *stats[] = {"max", "rms", "max_relative"};
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 3; j++) {
      char g[256];
      snprintf(g, sizeof g, "/observables/%s_error_%s", kinds[k], stats[j]);
      expect_series(f, g, 1, &F, 8);
    }
  expect_series(f, "/observables/penetration_max", 1, &F, 8);
  expect_series(f, "/observables/energy_kinetic", 1, &F, 8);
  expect_series(f, "/observables/energy_potential", 1, &F, 8);
  expect_series(f, "/observables/constraints_alive", 1, &F, 8);
  hsize_t fm[2] = {F, M};
  expect_series(f, "/observables/per_constraint_error", 2, fm, 8);
  int64_t alive[6];
  read_all(f, "/observables/constraints_alive/value", H5T_NATIVE_INT64, alive);
  ck_assert_int_gt(alive[5], 0);

  /* connectivity and solver */
  hsize_t d2[2] = {(hsize_t)m->n_dist, 2};
  H5Dclose(expect_ds(f, "/connectivity/distance", H5T_INTEGER, 4, 2, d2));
  int32_t *ab = malloc((size_t)m->n_dist * 2 * sizeof *ab);
  read_all(f, "/connectivity/distance", H5T_NATIVE_INT32, ab);
  ck_assert(memcmp(ab, m->dist_ab, (size_t)m->n_dist * 2 * sizeof *ab) == 0);
  free(ab);
  hsize_t a2[2] = {1, 2};
  H5Dclose(expect_ds(f, "/connectivity/angle", H5T_INTEGER, 4, 2, a2));
  int32_t ac[2];
  read_all(f, "/connectivity/angle", H5T_NATIVE_INT32, ac);
  ck_assert_int_eq(ac[0], m->angle_abc[0]);
  ck_assert_int_eq(ac[1], m->angle_abc[2]);
  hsize_t t3[2] = {(hsize_t)m->n_triangles, 3};
  H5Dclose(expect_ds(f, "/connectivity/triangles", H5T_INTEGER, 4, 2, t3));
  hsize_t m3[2] = {M, 3};
  H5Dclose(expect_ds(f, "/solver/constraints", H5T_INTEGER, 4, 2, m3));
  int32_t *cp = malloc(M * 3 * sizeof *cp);
  read_all(f, "/solver/constraints", H5T_NATIVE_INT32, cp);
  for (hsize_t i = 0; i < M; i++) {
    int32_t want[3];
    vs_model_constraint_particles(m, (int32_t)i, want);
    ck_assert(memcmp(cp + 3 * i, want, sizeof want) == 0);
  }
  free(cp);
  H5Dclose(expect_ds(f, "/solver/color", H5T_INTEGER, 4, 1, &M));
  ck_assert_double_eq(attr_num(f, "/solver/color", "count"), m->n_colors);

  /* parameters */
  const char *pv = "/parameters/vsim";
  t = attr_text(f, pv, "scene");
  ck_assert_str_eq(t, full_scene);
  free(t);
  t = attr_text(f, pv, "resolved");
  ck_assert_str_eq(t, "resolved: true\n");
  free(t);
  t = attr_text(f, pv, "command");
  ck_assert_str_eq(t, "vsim run test.yaml");
  free(t);
  t = attr_text(f, pv, "version");
  ck_assert_str_eq(t, VSIM_VERSION);
  free(t);
  t = attr_text(f, pv, "status");
  ck_assert_str_eq(t, "complete");
  free(t);
  ck_assert_double_eq(attr_num(f, pv, "colors"), m->n_colors);
  ck_assert_double_eq(attr_num(f, pv, "wall_seconds"), 1.5);
  ck_assert_double_eq(attr_num(f, pv, "format_version"), VSIM_FORMAT_VERSION);
  ck_assert_double_eq(attr_num(f, pv, "frames_recorded"), 6);
  H5Fclose(f);

  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* Every "value" dataset of a time series in the file, for the check below. */
static herr_t count_values(hid_t loc, const char *name, const H5L_info_t *info, void *data) {
  (void)loc;
  (void)info;
  size_t n = strlen(name);
  if (n >= 6 && strcmp(name + n - 6, "/value") == 0) {
    char full[512];
    snprintf(full, sizeof full, "/%s", name);
    ck_assert_msg(h5w_series_of_value(full) >= 0, "%s is a series outside H5W_SERIES", full);
    (*(int *)data)++;
  }
  return 0;
}

/* The series table (lib/io/h5series.h) is the file: a slot is in the file
 * exactly when the table says the model writes it, with the table's shape
 * and type; no series in the file is outside the table; the creation and
 * recording orders name every row once. */
START_TEST(series_table_is_the_file) {
  int seen_c[H5W_ROWS] = {0}, seen_r[H5W_ROWS] = {0};
  for (int o = 0; o < H5W_ROWS; o++) {
    seen_c[h5w_create_order[o]]++;
    seen_r[h5w_record_order[o]]++;
  }
  for (int r = 0; r < H5W_ROWS; r++) {
    ck_assert_int_eq(seen_c[r], 1);
    ck_assert_int_eq(seen_r[r], 1);
  }
  const char *scenes[4] = {full_scene, rope_scene, NULL, NULL};
  char *f32 = malloc(strlen(full_scene) + 64);
  ck_assert_ptr_nonnull(f32);
  sprintf(f32, "%s  precision: float32\n", full_scene);
  scenes[2] = f32;
  /* the full scene with a rigid body: the rigid rows too */
  char *rig = malloc(strlen(full_scene) + 128);
  ck_assert_ptr_nonnull(rig);
  const char *cons = strstr(full_scene, "constraints:");
  /* with output.xdmf, which the surfaces come with */
  sprintf(rig, "%.*s  - rigid: {name: box, position: [3, 3, 0]}\n%s  xdmf: true\n",
          (int)(cons - full_scene), full_scene, cons);
  scenes[3] = rig;
  for (int sc = 0; sc < 4; sc++) {
    char *dir = tu_tmpdir();
    char *out = join(dir, "out.h5");
    simulate(out, scenes[sc], 0, "complete");
    vs_scene *s = tu_scene(scenes[sc]);
    vs_model *m = tu_model(s);
    hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert(f >= 0);
    int wanted = 0;
    for (int i = 0; i < S_COUNT; i++) {
      h5w_series_desc d;
      h5w_series_describe(i, m, &d);
      ck_assert_msg(exists(f, d.group) == d.wanted, "scene %d: %s", sc, d.group);
      ck_assert_ptr_nonnull(d.unit);
      ck_assert(d.unit[0] != '\0');
      if (!d.wanted) continue;
      wanted++;
      hsize_t dims[3] = {(hsize_t)m->frames + 1, d.inner[0], d.inner[1]};
      char p[256];
      snprintf(p, sizeof p, "%s/value", d.group);
      ck_assert_int_eq(h5w_series_of_value(p), i);
      hid_t v = expect_ds(f, p, H5Tget_class(d.ftype), H5Tget_size(d.ftype), d.rank, dims);
      hid_t t = H5Dget_type(v);
      ck_assert_msg(H5Tequal(t, d.ftype) > 0, "%s: type", p);
      H5Tclose(t);
      H5Dclose(v);
    }
    int values = 0;
    ck_assert(H5Lvisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, count_values, &values) >= 0);
    ck_assert_int_eq(values, wanted);
    /* the full scene writes every row (each kind, every field; 6 rigid rows:
     * position, orientation, velocity, angular velocity, surface, contacts;
     * 2 more with a weld, hinge or slider: the joints' errors) */
    if (sc != 1)
      ck_assert_int_eq(wanted, S_COUNT - (m->particle_collisions ? 0 : 1) -
                                   (m->n_tearable ? 0 : 1) - (m->n_rigid ? 0 : 6) -
                                   (m->n_rjoints_more ? 0 : 2));
    if (sc == 3) ck_assert_int_eq(m->n_rigid, 1);
    H5Fclose(f);
    vs_model_free(m);
    vs_scene_free(s);
    tu_rmtree(dir);
    free(out);
    free(dir);
  }
  free(f32);
  free(rig);
}
END_TEST

START_TEST(default_fields_and_absent_kinds) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out, rope_scene, 0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  /* default fields: position and constraint_error, no velocity */
  ck_assert(exists(f, "/particles/all/position"));
  ck_assert(!exists(f, "/particles/all/velocity"));
  ck_assert(exists(f, "/observables/distance_error_max"));
  ck_assert(exists(f, "/observables/constraint_error_max"));
  ck_assert(!exists(f, "/observables/pin_error_max"));
  ck_assert(!exists(f, "/observables/angle_error_max"));
  ck_assert(!exists(f, "/observables/per_constraint_error"));
  ck_assert(exists(f, "/connectivity/distance"));
  ck_assert(!exists(f, "/connectivity/angle"));
  ck_assert(!exists(f, "/connectivity/triangles"));
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(observables_only_without_position) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out,
           "time: {dt: 0.01, frames: 3}\n"
           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 2}\n"
           "output: {fields: [velocity]}\n",
           0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(!exists(f, "/particles/all/position"));
  ck_assert(exists(f, "/particles/all/velocity"));
  ck_assert(!exists(f, "/observables/constraint_error_max"));
  hsize_t F = 4;
  expect_series(f, "/observables/penetration_max", 1, &F, 8);
  expect_series(f, "/observables/constraints_alive", 1, &F, 8);
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(every_kth_frame_and_frame_zero) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out,
           "time: {dt: 0.5, frames: 10}\n"
           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 2}\n"
           "output: {every: 3}\n",
           0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t F = 4, fn3[3] = {4, 3, 3};
  expect_series(f, "/particles/all/position", 3, fn3, 8);
  expect_series(f, "/observables/constraint_error_max", 1, &F, 8);
  int64_t step[4];
  double time[4];
  read_all(f, "/observables/penetration_max/step", H5T_NATIVE_INT64, step);
  read_all(f, "/particles/all/position/time", H5T_NATIVE_DOUBLE, time);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(step[i], 3 * i);
    ck_assert_double_eq_tol(time[i], 1.5 * i, 1e-12);
  }
  ck_assert_double_eq(attr_num(f, "/parameters/vsim", "frames_recorded"), 4);
  H5Fclose(f);

  /* every larger than the run: frame 0 alone */
  char *out2 = join(dir, "short.h5");
  simulate(out2,
           "time: {frames: 4}\n"
           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 2}\n"
           "output: {every: 100}\n",
           0, "complete");
  f = H5Fopen(out2, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t one[3] = {1, 3, 3};
  expect_series(f, "/particles/all/position", 3, one, 8);
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(out2);
  free(dir);
}
END_TEST

START_TEST(float32_precision) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out,
           "time: {dt: 0.01, frames: 3}\n"
           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 2}\n"
           "output: {fields: [position, velocity, constraint_error], precision: float32}\n",
           0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t F = 4, fn3[3] = {4, 3, 3};
  expect_series(f, "/particles/all/position", 3, fn3, 4);
  expect_series(f, "/particles/all/velocity", 3, fn3, 4);
  /* observables and the static data stay float64 */
  expect_series(f, "/observables/constraint_error_rms", 1, &F, 8);
  hsize_t n = 3;
  H5Dclose(expect_ds(f, "/particles/all/mass", H5T_FLOAT, 8, 1, &n));
  float x[36];
  read_all(f, "/particles/all/position/value", H5T_NATIVE_FLOAT, x);
  ck_assert(x[3] == 0.5f && x[4] == 1.0f); /* particle 1 at frame 0 */
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(compression_is_readable) {
  char *dir = tu_tmpdir();
  char *plain = join(dir, "plain.h5"), *gz = join(dir, "gz.h5");
#define CLOTH8(level)                                                                         \
  "time: {dt: 0.01, frames: 20}\n"                                                             \
  "bodies:\n  - cloth: {origin: [0, 2, 0], size: [1, 1], resolution: [8, 8], pin: top-edge}\n" \
  "output: {compression: " level "}\n"
  simulate(plain, CLOTH8("0"), 0, "complete");
  simulate(gz, CLOTH8("6"), 0, "complete");
#undef CLOTH8
  hid_t f = H5Fopen(gz, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/particles/all/position/value", H5P_DEFAULT);
  hid_t p = H5Dget_create_plist(d);
  int nf = H5Pget_nfilters(p);
  ck_assert_int_eq(nf, 2);
  int seen_deflate = 0, seen_shuffle = 0;
  for (int i = 0; i < nf; i++) {
    unsigned flags, cd[4];
    size_t ncd = 4;
    H5Z_filter_t id = H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
    if (id == H5Z_FILTER_DEFLATE) {
      seen_deflate = 1;
      ck_assert_uint_eq(cd[0], 6);
    }
    if (id == H5Z_FILTER_SHUFFLE) seen_shuffle = 1;
  }
  ck_assert(seen_deflate && seen_shuffle);
  /* whole frames per chunk, at most 1024 frames */
  hsize_t chunk[3];
  ck_assert_int_eq(H5Pget_chunk(p, 3, chunk), 3);
  ck_assert_uint_eq(chunk[1], 64);
  ck_assert_uint_eq(chunk[2], 3);
  /* the run's 21 frames (under 1 MiB / (64 * 3 * 8) = 682): no padding */
  ck_assert_uint_eq(chunk[0], 21);
  H5Pclose(p);
  H5Dclose(d);
  H5Fclose(f);
  /* same data either way */
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(gz, plain, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  ck_assert_uint_gt(r.n_compared, 10);
  vs_compare_result_free(&r);
  tu_rmtree(dir);
  free(plain);
  free(gz);
  free(dir);
}
END_TEST

START_TEST(big_frames_split_the_chunk) {
  /* 256 x 256 particles: one float64 frame is 1.5 MiB, over the chunk size */
  char *dir = tu_tmpdir();
  char *out = join(dir, "big.h5");
  simulate(out,
           "time: {dt: 0.01, frames: 2}\n"
           "solver: {iterations: 1}\n"
           "bodies:\n  - cloth: {origin: [0, 2, 0], size: [1, 1], resolution: [256, 256], pin: top-edge}\n"
           "output: {fields: [position]}\n",
           0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t fn3[3] = {3, 65536, 3};
  hid_t d = expect_ds(f, "/particles/all/position/value", H5T_FLOAT, 8, 3, fn3);
  hid_t p = H5Dget_create_plist(d);
  hsize_t chunk[3];
  ck_assert_int_eq(H5Pget_chunk(p, 3, chunk), 3);
  ck_assert_uint_eq(chunk[0], 1);
  ck_assert_uint_le(chunk[1] * chunk[2] * 8, 1u << 20);
  ck_assert_uint_eq(chunk[2], 3);
  /* equal parts that tile the frame: no chunk is stored half empty */
  ck_assert_uint_eq(chunk[1], 32768);
  ck_assert_uint_eq(H5Dget_storage_size(d), 3 * 65536 * 3 * 8);
  double last[3];
  hsize_t start[3] = {2, 65535, 0}, count[3] = {1, 1, 3};
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(3, count, NULL);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, last) >= 0);
  ck_assert(isfinite(last[0]) && isfinite(last[1]));
  H5Sclose(ms);
  H5Sclose(fs);
  H5Pclose(p);
  H5Dclose(d);
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(no_constraints) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out,
           "time: {frames: 3}\n"
           "bodies:\n  - particles: {positions: [[0, 1, 0], [1, 1, 0]]}\n"
           "output: {fields: [position, per_constraint_error, constraint_error]}\n",
           0, "complete");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t F = 4, f0[2] = {4, 0}, z3[2] = {0, 3};
  expect_series(f, "/observables/per_constraint_error", 2, f0, 8);
  expect_series(f, "/observables/constraint_error_max", 1, &F, 8);
  ck_assert(!exists(f, "/observables/distance_error_max"));
  ck_assert(!exists(f, "/connectivity/distance"));
  H5Dclose(expect_ds(f, "/solver/constraints", H5T_INTEGER, 4, 2, z3));
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(status_is_recorded) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out, rope_scene, 0, "interrupted");
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  char *t = attr_text(f, "/parameters/vsim", "status");
  ck_assert_str_eq(t, "interrupted");
  free(t);
  H5Fclose(f);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

static void write_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

START_TEST(existing_output_needs_force) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  write_text(out, "precious");
  vs_scene *s = tu_scene(rope_scene);
  vs_model *m = tu_model(s);
  vs_h5_writer *w = (vs_h5_writer *)1;
  vs_error e;
  vs_h5_run_info info = {"cmd", "", 0, NULL};
  ck_assert_int_eq(vs_h5_open(out, s, m, &info, &w, &e), VS_ERR_EXISTS);
  ck_assert_ptr_null(w);
  ck_assert_str_eq(e.file, out);
  ck_assert_ptr_nonnull(strstr(e.message, "exists (use --force to overwrite)"));
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_ERR_EXISTS);
  tu_expect_file_text(out, "precious");
  ck_assert_int_eq(count_entries(dir), 1);

  /* with force the old file stays until the new one is complete */
  info.force = 1;
  ck_assert_int_eq(vs_h5_open(out, s, m, &info, &w, &e), VS_OK);
  tu_expect_file_text(out, "precious");
  const char *tmp = vs_h5_temp_path(w);
  ck_assert_ptr_nonnull(tmp);
  ck_assert(access(tmp, F_OK) == 0);
  ck_assert_int_eq(count_entries(dir), 2);
  vs_state *st = tu_state(m);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  ck_assert_int_eq(vs_h5_finish(w, "complete", 0.1, &e), VS_OK);
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert(H5Fis_hdf5(out) > 0);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* A path that cannot be used is the caller's mistake (VS_ERR_USAGE, exit 2),
 * not a failed write. */
START_TEST(bad_directories) {
  char *dir = tu_tmpdir();
  vs_scene *s = tu_scene(rope_scene);
  vs_model *m = tu_model(s);
  vs_h5_writer *w = NULL;
  vs_error e;
  char *missing = join(dir, "no/such/dir/out.h5");
  ck_assert_int_eq(vs_h5_open(missing, s, m, NULL, &w, &e), VS_ERR_USAGE);
  ck_assert_str_eq(e.file, missing);
  ck_assert_ptr_nonnull(strstr(e.message, "does not exist"));
  /* a regular file where the directory should be */
  char *file = join(dir, "plain");
  write_text(file, "x");
  char *under_file = join(file, "out.h5");
  ck_assert_int_eq(vs_h5_open(under_file, s, m, NULL, &w, &e), VS_ERR_USAGE);
  /* the output is a directory */
  ck_assert_int_eq(vs_h5_open(dir, s, m, NULL, &w, &e), VS_ERR_USAGE);
  /* not writable: /proc refuses even root */
  ck_assert_int_eq(vs_h5_open("/proc/vsim-test-out.h5", s, m, NULL, &w, &e), VS_ERR_USAGE);
  ck_assert_ptr_null(w);
  ck_assert_str_eq(e.file, "/proc/vsim-test-out.h5");
  if (geteuid() != 0) {
    char *ro = join(dir, "ro");
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    char *inside = join(ro, "out.h5");
    ck_assert_int_eq(vs_h5_open(inside, s, m, NULL, &w, &e), VS_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(e.message, "not writable"));
    chmod(ro, 0755);
    free(inside);
    free(ro);
  }
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(missing);
  free(under_file);
  free(file);
  free(dir);
}
END_TEST

START_TEST(abort_leaves_nothing) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene(rope_scene);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_OK);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert(access(out, F_OK) != 0);
  vs_h5_abort(w);
  ck_assert_int_eq(count_entries(dir), 0);
  vs_h5_abort(NULL);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* vs_h5_open starts the writer's thread, which touches the state copies
 * while the file is created: a finish or an abort right after the open
 * (no frame recorded) stops it and gives a file without frames and without
 * /checkpoint, or nothing. */
START_TEST(finish_or_abort_right_after_open) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5"), *out2 = join(dir, "out2.h5");
  vs_scene *s = tu_scene(rope_scene);
  vs_model *m = tu_model(s);
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_OK);
  ck_assert_msg(vs_h5_finish(w, "complete", 0, &e) == VS_OK, "%s", e.message);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  ck_assert_double_eq(attr_num(f, "/parameters/vsim", "frames_recorded"), 0);
  ck_assert(!exists(f, "/checkpoint"));
  hsize_t dims[3] = {1, 1, 1};
  hid_t d = H5Dopen2(f, "/particles/all/position/value", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  H5Sget_simple_extent_dims(sp, dims, NULL);
  ck_assert_int_eq(dims[0], 0);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  ck_assert_int_eq(vs_h5_open(out2, s, m, NULL, &w, &e), VS_OK);
  vs_h5_abort(w);
  ck_assert_int_eq(count_entries(dir), 1); /* out.h5 alone */
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out2);
  free(out);
  free(dir);
}
END_TEST

/* Run in a child with a small file-size limit so that writes fail with
 * EFBIG, like a full disk.  Returns the child's report code. */
static int io_failure_child(const char *dir, const char *out) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {256 * 1024, 256 * 1024};
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 10;
  vs_scene *s = tu_scene("time: {dt: 0.01, frames: 200}\n"
                         "solver: {iterations: 1}\n"
                         "bodies:\n  - cloth: {origin: [0, 2, 0], size: [1, 1], resolution: [32, 32], pin: top-edge}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_writer *w = NULL;
  vs_error e;
  if (vs_h5_open(out, s, m, NULL, &w, &e) != VS_OK) return 11;
  vs_status rc = vs_h5_record(w, m, st, &e);
  for (int f = 0; f < 200 && rc == VS_OK; f++) {
    if (vs_step(m, st, &e) != VS_OK) return 12;
    rc = vs_h5_record(w, m, st, &e);
  }
  if (rc != VS_ERR_IO) return 13;
  if (strcmp(e.file, out) != 0) return 14;
  /* the frame whose write failed (handed over before this call, whose own
   * frame is not recorded): "frame N: ..." with N < the state's frame */
  long long failed_frame = -1;
  if (sscanf(e.message, "frame %lld: ", &failed_frame) != 1 || failed_frame < 0 ||
      failed_frame >= st->frame)
    return 20;
  /* the dataset and the system's reason (EFBIG), not HDF5's call chain */
  if (!strstr(e.message, "writing /particles/all/position/value: File too large")) return 19;
  /* later frames keep failing */
  if (vs_h5_record(w, m, st, &e) != VS_ERR_IO) return 15;
  if (strncmp(e.message, "an earlier write failed: writing /particles/all/position/value", 62) != 0)
    return 21;
  if (vs_h5_wait(w, &e) != VS_ERR_IO) return 22;
  vs_status fin = vs_h5_finish(w, "failed", 1.0, &e);
  if (fin != VS_ERR_IO) return 16;
  /* nothing renamed, temporary file removed */
  if (access(out, F_OK) == 0) return 17;
  DIR *d = opendir(dir);
  struct dirent *de;
  int n = 0;
  while ((de = readdir(d)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
  closedir(d);
  if (n != 0) return 18;
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  return 0;
}

START_TEST(write_failure_is_io_error) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    /* The child reports through the pipe (its exit status belongs to the
     * leak checkers: HDF5 1.10 loses a chunk buffer when a chunk write
     * fails), then exits normally: after a failed close that must not
     * crash in HDF5's clean-up at exit. */
#ifdef __SANITIZE_ADDRESS__
    __lsan_disable();
#endif
    unsigned char code = (unsigned char)io_failure_child(dir, out);
    ssize_t k = write(fds[1], &code, 1);
    (void)k;
    /* __lsan_disable covers this thread only, and the lost chunk buffer is
     * the writer thread's now: LeakSanitizer's report of it at exit is
     * expected, so it goes to /dev/null rather than into the test log */
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) dup2(nul, 2);
    exit(0);
  }
  close(fds[1]);
  unsigned char code = 255;
  ck_assert_int_eq(read(fds[0], &code, 1), 1);
  close(fds[0]);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_int_eq(code, 0);
  ck_assert_msg(WIFEXITED(status), "the child died of signal %d", WTERMSIG(status));
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(identical_runs_identical_bytes) {
  /* object time stamps are off: two runs give the same file, except the
   * parameters' wall_seconds which simulate() fixes at 1.5 */
  char *dir = tu_tmpdir();
  char *a = join(dir, "a.h5"), *b = join(dir, "b.h5");
  simulate(a, full_scene, 0, "complete");
  /* over a second apart, so that any time stamp left in the file shows (the
   * root group's once did, one run in fifteen) */
  struct timespec pause = {1, 100000000};
  nanosleep(&pause, NULL);
  simulate(b, full_scene, 0, "complete");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
  ck_assert_int_eq(system(cmd), 0);
  tu_rmtree(dir);
  free(a);
  free(b);
  free(dir);
}
END_TEST

START_TEST(bad_arguments_and_version) {
  vs_error e;
  vs_h5_writer *w = NULL;
  ck_assert_int_eq(vs_h5_open(NULL, NULL, NULL, NULL, &w, &e), VS_ERR_USAGE);
  ck_assert_int_eq(vs_h5_record(NULL, NULL, NULL, &e), VS_ERR_USAGE);
  ck_assert_int_eq(vs_h5_finish(NULL, "complete", 0, &e), VS_ERR_USAGE);
  ck_assert_ptr_null(vs_h5_temp_path(NULL));
  const char *v = vs_h5_library_version();
  ck_assert_ptr_nonnull(strstr(v, "HDF5 1."));
}
END_TEST

START_TEST(non_recorded_frames_are_skipped) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene("time: {frames: 10}\n"
                         "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 2}\n"
                         "output: {every: 4}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_OK);
  for (int64_t f = 0; f <= 9; f++) {
    st->frame = f;
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, "complete", 0, &e), VS_OK);
  hid_t fh = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  int64_t step[3];
  hsize_t F = 3;
  expect_series(fh, "/observables/penetration_max", 1, &F, 8);
  read_all(fh, "/particles/all/position/step", H5T_NATIVE_INT64, step);
  ck_assert_int_eq(step[0], 0);
  ck_assert_int_eq(step[1], 4);
  ck_assert_int_eq(step[2], 8);
  H5Fclose(fh);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST


/* vs_h5_record hands a copy of the frame to the writer's thread: the
 * caller may change the state at once (here: scribble over it, as the next
 * step would) and the file still holds the recorded frame, observables and
 * checkpoint included.  vs_h5_wait drains the frames handed over. */
START_TEST(recorded_frames_are_copies) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene("time: {frames: 3}\n"
                         "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 64}\n"
                         "output: {fields: [position, velocity, per_constraint_error]}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  const size_t n = (size_t)m->n_particles;
  vs_h5_writer *w = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_open(out, s, m, NULL, &w, &e), VS_OK);
  for (int64_t f = 0; f < 3; f++) {
    st->frame = f;
    st->time = 0.5 * (double)f;
    for (size_t i = 0; i < n; i++) {
      st->x[4 * i + 0] = (double)i + 0.25 * (double)f;
      st->x[4 * i + 1] = -(double)f;
      st->x[4 * i + 2] = 0;
      st->x[4 * i + 3] = m->x0[4 * i + 3];
      st->v[3 * i + 0] = st->v[3 * i + 1] = 0;
      st->v[3 * i + 2] = (double)(f + 1);
    }
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
    for (size_t i = 0; i < 4 * n; i++) st->x[i] = 1e300; /* what the next step might leave */
    for (size_t i = 0; i < 3 * n; i++) st->v[i] = -1e300;
  }
  ck_assert_int_eq(vs_h5_wait(w, &e), VS_OK);
  ck_assert_int_eq(vs_h5_finish(w, "complete", 0, &e), VS_OK);
  hid_t fh = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(fh, 0);
  double *pos = malloc(3 * 3 * n * sizeof *pos), *vel = malloc(3 * 3 * n * sizeof *vel);
  double *ck = malloc(4 * n * sizeof *ck), kin[3];
  read_all(fh, "/particles/all/position/value", H5T_NATIVE_DOUBLE, pos);
  read_all(fh, "/particles/all/velocity/value", H5T_NATIVE_DOUBLE, vel);
  read_all(fh, "/observables/energy_kinetic/value", H5T_NATIVE_DOUBLE, kin);
  read_all(fh, "/checkpoint/x", H5T_NATIVE_DOUBLE, ck);
  for (int f = 0; f < 3; f++) {
    for (size_t i = 0; i < n; i++) {
      ck_assert_double_eq(pos[(f * n + i) * 3 + 0], (double)i + 0.25 * f);
      ck_assert_double_eq(pos[(f * n + i) * 3 + 1], -(double)f);
      ck_assert_double_eq(vel[(f * n + i) * 3 + 2], (double)(f + 1));
    }
    /* kinetic energy of the recorded velocities (the pinned-free rope) */
    double ke = 0;
    for (size_t i = 0; i < n; i++) ke += 0.5 * m->mass[i] * (double)(f + 1) * (double)(f + 1);
    ck_assert_double_eq_tol(kin[f], ke, 1e-12 * ke);
  }
  for (size_t i = 0; i < n; i++) ck_assert_double_eq(ck[4 * i], (double)i + 0.5);
  free(pos);
  free(vel);
  free(ck);
  H5Fclose(fh);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* ---- /checkpoint and resuming ---- */

/* printf format: integrator, relaxation, every */
#define RESUME_SCENE \
  "vsim: 1\n" \
  "time: {dt: 0.01, frames: 12, substeps: 2}\n" \
  "solver: {integrator: %s, relaxation: %s, iterations: 3}\n" \
  "world:\n" \
  "  colliders:\n" \
  "    - sphere: {center: [0.5, 0.76, 0], radius: 0.25, friction: 0.2}\n" \
  "bodies:\n" \
  "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 6, pin: [first],\n" \
  "           stretch: {stiffness: 0.9, compliance: 0.001}}\n" \
  "  - cloth: {name: c, origin: [0, 1.2, 0], size: [1, 1], resolution: [4, 4], plane: xz,\n" \
  "            pin: top-corners, tear: 1.0002}\n" \
  "constraints:\n" \
  "  - pin: {particle: 'r:6', keys: [[0, 1, 1, 0], [0.1, 1.2, 1.1, 0]]}\n" \
  "output: {every: %d, fields: [position, velocity, constraint_error, per_constraint_error]}\n"

/* Run yaml to `stop` frames (all when stop < 0), finishing with `status`. */
static void run_until(const char *path, const char *yaml, int64_t stop, const char *status) {
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  char *resolved = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_to_yaml(s, &resolved, &e), VS_OK);
  vs_h5_run_info info = {"vsim run", resolved, 1, NULL};
  vs_h5_writer *w = NULL;
  ck_assert_msg(vs_h5_open(path, s, m, &info, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames && (stop < 0 || f < stop); f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, status, 1.0, &e), VS_OK);
  vs_free_buffer(resolved);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
}

/* What `vsim run --resume` does, through the library. */
static void resume(const char *path) {
  char *yaml = NULL;
  vs_error e;
  ck_assert_int_eq(vs_h5_read_parameter(path, "resolved", &yaml, &e), VS_OK);
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  ck_assert_msg(vs_h5_read_checkpoint(path, m, st, &e) == VS_OK, "%s", e.message);
  vs_h5_run_info info = {"vsim run --resume", yaml, 0, NULL};
  vs_h5_writer *w = NULL;
  ck_assert_msg(vs_h5_reopen(path, m, &info, &w, &e) == VS_OK, "%s", e.message);
  /* the checkpoint's frame is already in the file: recording it is a no-op */
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  while (st->frame < m->frames) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, "complete", 2.0, &e), VS_OK);
  vs_free_buffer(yaml);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
}

START_TEST(checkpoint_layout) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  simulate(out, full_scene, 0, "complete");
  vs_scene *s = tu_scene(full_scene);
  vs_model *m = tu_model(s);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t n4[2] = {(hsize_t)m->n_particles, 4}, n3[2] = {(hsize_t)m->n_particles, 3};
  hsize_t nc = (hsize_t)m->n_constraints, nd = (hsize_t)m->n_dist;
  H5Dclose(expect_ds(f, "/checkpoint/x", H5T_FLOAT, 8, 2, n4));
  H5Dclose(expect_ds(f, "/checkpoint/xprev", H5T_FLOAT, 8, 2, n4));
  H5Dclose(expect_ds(f, "/checkpoint/v", H5T_FLOAT, 8, 2, n3));
  H5Dclose(expect_ds(f, "/checkpoint/lambda", H5T_FLOAT, 8, 1, &nc));
  H5Dclose(expect_ds(f, "/checkpoint/alive", H5T_INTEGER, 1, 1, &nd));
  /* no rigid bodies: their empty arrays are left out */
  static const char *const rigid[] = {"rx", "rq", "rv", "rw", "rn_cache", "rcache_ab",
                                      "rcache_feature", "rcache_impulse", "rjoint_impulse"};
  char rp[64];
  for (size_t k = 0; k < sizeof rigid / sizeof rigid[0]; k++) {
    snprintf(rp, sizeof rp, "/checkpoint/%s", rigid[k]);
    ck_assert_msg(!exists(f, rp), "%s", rp);
  }
  ck_assert_double_eq(attr_num(f, "/checkpoint", "frame"), 5);
  ck_assert_double_eq(attr_num(f, "/checkpoint", "step"), 5);
  ck_assert_double_eq_tol(attr_num(f, "/checkpoint", "time"), 0.05, 1e-12);
  /* the checkpoint's positions are the last recorded frame */
  size_t n = (size_t)m->n_particles;
  double *x = malloc(n * 4 * sizeof *x), *pos = malloc(6 * n * 3 * sizeof *pos);
  read_all(f, "/checkpoint/x", H5T_NATIVE_DOUBLE, x);
  read_all(f, "/particles/all/position/value", H5T_NATIVE_DOUBLE, pos);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) ck_assert(x[4 * i + c] == pos[(5 * n + i) * 3 + c]);
  free(x);
  free(pos);
  H5Fclose(f);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

START_TEST(resume_is_bitwise_identical) {
  static const char *integrators[] = {"pbd", "xpbd", "verlet"};
  static const char *relaxations[] = {"gauss-seidel", "jacobi"};
  static const struct {
    int every;
    int64_t stop;
  } cases[] = {{1, 5}, {3, 7}, {1, 12}, {5, 0}};
  char *dir = tu_tmpdir();
  char *whole = join(dir, "whole.h5"), *part = join(dir, "part.h5");
  for (int k = 0; k < 6; k++) {
    int i = k / 2, rx = k % 2;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      char yaml[2048];
      snprintf(yaml, sizeof yaml, RESUME_SCENE, integrators[i], relaxations[rx], cases[c].every);
      run_until(whole, yaml, -1, "complete");
      run_until(part, yaml, cases[c].stop, "interrupted");
      resume(part);
      vs_compare_result r;
      vs_error e;
      ck_assert_int_eq(vs_compare_files(part, whole, NULL, &r, &e), VS_OK);
      ck_assert_msg(r.n_diffs == 0, "%s %s every %d stop %lld: %zu diffs, first %s (%s)",
                    integrators[i], relaxations[rx], cases[c].every, (long long)cases[c].stop,
                    r.n_diffs,
                    r.n_diffs ? r.diffs[0].path : "", r.n_diffs ? r.diffs[0].detail : "");
      vs_compare_result_free(&r);
      char *status = NULL;
      ck_assert_int_eq(vs_h5_read_parameter(part, "status", &status, &e), VS_OK);
      ck_assert_str_eq(status, "complete");
      vs_free_buffer(status);
      ck_assert_int_eq(count_entries(dir), 2);
    }
  }
  tu_rmtree(dir);
  free(whole);
  free(part);
  free(dir);
}
END_TEST

/* A run recording more than H5W_INLINE_BYTES has the writer's thread,
 * which makes /checkpoint right after the first frame (filled with that
 * frame) and vs_h5_finish writes the last recorded frame over it in place:
 * read back, the checkpoint is that frame's state bit for bit, interrupted
 * or complete; it lies near the start of the file (made early, not at the
 * end); and resuming the interrupted file gives the uninterrupted one. */
#define EARLY_SCENE                                                                          \
  "vsim: 1\n"                                                                                \
  "time: {dt: 0.01, frames: 20, substeps: 2}\n"                                              \
  "solver: {integrator: xpbd, relaxation: gauss-seidel, iterations: 3}\n"                    \
  "bodies:\n"                                                                                \
  "  - cloth: {name: c, origin: [0, 1.2, 0], size: [1, 1], resolution: [40, 40], plane: xz,\n" \
  "            pin: top-corners, tear: 1.0002}\n"
START_TEST(early_checkpoint_is_the_last_frame) {
  char *dir = tu_tmpdir();
  char *whole = join(dir, "whole.h5"), *part = join(dir, "part.h5");
  vs_scene *s = tu_scene(EARLY_SCENE);
  vs_model *m = tu_model(s);
  char *resolved = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_to_yaml(s, &resolved, &e), VS_OK);
  for (int c = 0; c < 2; c++) {
    const int64_t stop = c == 0 ? 7 : m->frames;
    const char *path = c == 0 ? part : whole;
    vs_state *st = tu_state(m);
    vs_h5_run_info info = {"vsim run", resolved, 1, NULL};
    vs_h5_writer *w = NULL;
    ck_assert_msg(vs_h5_open(path, s, m, &info, &w, &e) == VS_OK, "%s", e.message);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
    for (int64_t f = 0; f < stop; f++) {
      ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
      ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
    }
    ck_assert_int_eq(vs_h5_finish(w, c == 0 ? "interrupted" : "complete", 1.0, &e), VS_OK);
    vs_state *got = tu_state(m);
    ck_assert_msg(vs_h5_read_checkpoint(path, m, got, &e) == VS_OK, "%s", e.message);
    ck_assert_int_eq(got->frame, stop);
    ck_assert_int_eq(got->step, st->step);
    const size_t n = (size_t)m->n_particles;
    ck_assert_int_eq(memcmp(got->x, st->x, 4 * n * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(got->xprev, st->xprev, 4 * n * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(got->v, st->v, 3 * n * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(got->lambda, st->lambda, (size_t)m->n_constraints * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(got->alive, st->alive, (size_t)m->n_dist), 0);
    /* the first frame's state was overwritten: the cloth has moved */
    ck_assert(memcmp(got->x, m->x0, 4 * n * sizeof(double)) != 0);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/checkpoint/x", H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    const haddr_t at = H5Dget_offset(d);
    ck_assert_msg(at != HADDR_UNDEF && at < (haddr_t)sb.st_size / 2,
                  "/checkpoint/x at %llu of %lld bytes", (unsigned long long)at,
                  (long long)sb.st_size);
    H5Dclose(d);
    H5Fclose(f);
    vs_state_free(got);
    vs_state_free(st);
  }
  resume(part);
  vs_compare_result r;
  ck_assert_int_eq(vs_compare_files(part, whole, NULL, &r, &e), VS_OK);
  ck_assert_msg(r.n_diffs == 0, "%zu diffs, first %s (%s)", r.n_diffs,
                r.n_diffs ? r.diffs[0].path : "", r.n_diffs ? r.diffs[0].detail : "");
  vs_compare_result_free(&r);
  vs_free_buffer(resolved);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(whole);
  free(part);
  free(dir);
}
END_TEST

START_TEST(resume_refuses_another_scene) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  char yaml[2048];
  snprintf(yaml, sizeof yaml, RESUME_SCENE, "pbd", "gauss-seidel", 1);
  run_until(out, yaml, 4, "interrupted");
  char before[4096];
  FILE *fp = fopen(out, "rb");
  size_t nb = fread(before, 1, sizeof before, fp);
  fclose(fp);
  vs_error e;
  /* other output fields */
  vs_scene *s = tu_scene(rope_scene);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_h5_writer *w = (vs_h5_writer *)1;
  ck_assert_int_eq(vs_h5_reopen(out, m, NULL, &w, &e), VS_ERR_FORMAT);
  ck_assert_ptr_null(w);
  ck_assert_str_eq(e.file, out);
  ck_assert_int_eq(vs_h5_read_checkpoint(out, m, st, &e), VS_ERR_FORMAT);
  ck_assert_ptr_nonnull(strstr(e.message, "not the same scene"));
  ck_assert_int_eq(count_entries(dir), 1);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  /* same scene, float32 instead of float64 */
  char yaml32[2100];
  snprintf(yaml32, sizeof yaml32, "%s", yaml);
  char *brace = strrchr(yaml32, '}');
  snprintf(brace, sizeof yaml32 - (size_t)(brace - yaml32), ", precision: float32}\n");
  s = tu_scene(yaml32);
  m = tu_model(s);
  ck_assert_int_eq(vs_h5_reopen(out, m, NULL, &w, &e), VS_ERR_FORMAT);
  vs_model_free(m);
  vs_scene_free(s);
  /* the right scene, then abort: the original is untouched */
  s = tu_scene(yaml);
  m = tu_model(s);
  ck_assert_int_eq(vs_h5_reopen(out, m, NULL, &w, &e), VS_OK);
  ck_assert_int_eq(count_entries(dir), 2);
  vs_h5_abort(w);
  ck_assert_int_eq(count_entries(dir), 1);
  char after[4096];
  fp = fopen(out, "rb");
  size_t na = fread(after, 1, sizeof after, fp);
  fclose(fp);
  ck_assert_uint_eq(na, nb);
  ck_assert(memcmp(before, after, nb) == 0);
  vs_model_free(m);
  vs_scene_free(s);
  /* not a result file */
  char *missing = join(dir, "missing.h5");
  ck_assert_int_eq(vs_h5_reopen(missing, m, NULL, &w, &e), VS_ERR_IO);
  char *p = NULL;
  ck_assert_int_eq(vs_h5_read_parameter(out, "no_such", &p, &e), VS_ERR_FORMAT);
  ck_assert_ptr_null(p);
  free(missing);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* 1 when paths a and b of f are links to one object. */
static int same_object(hid_t f, const char *a, const char *b) {
  H5O_info_t ia, ib;
  ck_assert_int_ge(H5Oget_info_by_name2(f, a, &ia, H5O_INFO_BASIC, H5P_DEFAULT), 0);
  ck_assert_int_ge(H5Oget_info_by_name2(f, b, &ib, H5O_INFO_BASIC, H5P_DEFAULT), 0);
  return ia.fileno == ib.fileno && ia.addr == ib.addr;
}

/* Files written before the empty checkpoint arrays were left out hold
 * them as [0] or [0, width], and before step and time were shared a pair
 * per series: they resume the same (the checksum hashes 0 elements either
 * way).  A missing array the scene needs is refused. */
START_TEST(resume_accepts_both_layouts) {
  char *dir = tu_tmpdir();
  char *whole = join(dir, "whole.h5"), *part = join(dir, "part.h5");
  char yaml[2048];
  snprintf(yaml, sizeof yaml, RESUME_SCENE, "xpbd", "gauss-seidel", 1);
  run_until(whole, yaml, -1, "complete");
  run_until(part, yaml, 5, "interrupted");
  /* the old layout: every rigid array present and empty */
  hid_t f = H5Fopen(part, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  static const struct {
    const char *name;
    int width, is_int;
  } old[] = {{"rx", 3, 0},       {"rq", 4, 0},        {"rv", 3, 0},
             {"rw", 3, 0},       {"rn_cache", 1, 1},  {"rcache_ab", 2, 1},
             {"rcache_feature", 1, 1}, {"rcache_impulse", 4, 0}, {"rjoint_impulse", 3, 0}};
  char p[64];
  for (size_t k = 0; k < sizeof old / sizeof old[0]; k++) {
    snprintf(p, sizeof p, "/checkpoint/%s", old[k].name);
    ck_assert(!exists(f, p));
    hsize_t d[2] = {0, (hsize_t)old[k].width};
    hid_t sp = H5Screate_simple(old[k].width > 1 ? 2 : 1, d, NULL);
    hid_t ds = H5Dcreate2(f, p, old[k].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(ds, 0);
    H5Dclose(ds);
    H5Sclose(sp);
  }
  /* ... and a step and time of its own in every series: new files link
   * them to the first series' (the same object), old ones copied them */
  static const char *const follow[] = {"/particles/all/velocity", "/observables/energy_kinetic",
                                       "/observables/constraint_error_max",
                                       "/connectivity/alive"};
  for (size_t k = 0; k < sizeof follow / sizeof follow[0]; k++) {
    for (int t = 0; t < 2; t++) {
      const char *leaf = t ? "time" : "step";
      char lead[96];
      snprintf(lead, sizeof lead, "/particles/all/position/%s", leaf);
      snprintf(p, sizeof p, "%s/%s", follow[k], leaf);
      ck_assert_msg(same_object(f, p, lead), "%s", p);
      hid_t g = H5Gopen2(f, follow[k], H5P_DEFAULT);
      ck_assert_int_ge(g, 0);
      ck_assert_int_ge(H5Ldelete(g, leaf, H5P_DEFAULT), 0);
      ck_assert_int_ge(H5Ocopy(f, lead, g, leaf, H5P_DEFAULT, H5P_DEFAULT), 0);
      H5Gclose(g);
      ck_assert_msg(!same_object(f, p, lead), "%s", p);
    }
  }
  H5Fclose(f);
  resume(part);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(part, whole, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  vs_compare_result_free(&r);
  /* the whole run's file: every series' step and time are the first's */
  f = H5Fopen(whole, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  for (size_t k = 0; k < sizeof follow / sizeof follow[0]; k++) {
    snprintf(p, sizeof p, "%s/step", follow[k]);
    ck_assert_msg(same_object(f, p, "/particles/all/position/step"), "%s", p);
    snprintf(p, sizeof p, "%s/time", follow[k]);
    ck_assert_msg(same_object(f, p, "/particles/all/position/time"), "%s", p);
  }
  H5Fclose(f);
  /* the new layout refused for a scene that needs an array it left out:
   * particles only (no lambda, no alive) against the rope's links */
  char *bare = join(dir, "bare.h5");
  run_until(bare, "time: {frames: 2}\nbodies:\n  - particles: {positions: [[0, 1, 0], [1, 1, 0]]}\n",
            1, "interrupted");
  vs_scene *s = tu_scene("time: {frames: 2}\nbodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], "
                         "segments: 1}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  ck_assert_int_eq(vs_h5_read_checkpoint(bare, m, st, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "checkpoint has no 'lambda', the scene needs [1]: not the same scene");
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(bare);
  free(whole);
  free(part);
  free(dir);
}
END_TEST

/* The syncer thread (fdatasync as chunks are appended) starts only once
 * the file holds 4 MiB: a small run has the writer's thread alone, a big
 * one both, and a run that records at most H5W_INLINE_BYTES (frames x
 * state) neither.  Threads counted in /proc/self/task (this test's process runs
 * nothing else). */
static int record_and_count_threads(const char *path, const char *yaml) {
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_error e;
  vs_h5_writer *w = NULL;
  ck_assert_msg(vs_h5_open(path, s, m, NULL, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_wait(w, &e), VS_OK);
  const int threads = count_entries("/proc/self/task");
  ck_assert_int_eq(vs_h5_finish(w, "complete", 1.0, &e), VS_OK);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  return threads;
}

START_TEST(syncer_only_for_big_files) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  /* two frames of a two-particle state (H5W_INLINE_BYTES): written on the
   * caller's thread, no writer thread, no syncer */
  ck_assert_int_eq(
      record_and_count_threads(
          out, "time: {frames: 1}\nbodies:\n  - particles: {positions: [[0, 1, 0], [1, 1, 0]]}\n"),
      1);
  /* the same state (176 bytes) over 10000 frames, 1.7 MB: the writer
   * thread, no syncer */
  char *many = join(dir, "many.h5");
  ck_assert_int_eq(
      record_and_count_threads(
          many, "time: {frames: 10000}\nbodies:\n  - particles: {positions: [[0, 1, 0], [1, 1, 0]]}\n"),
      2);
  /* 64 x 64 particles, 3 doubles: 96 KiB a frame, 61 frames: 5.9 MiB */
  char *big = join(dir, "big.h5");
  ck_assert_int_eq(record_and_count_threads(big, "time: {frames: 60}\nbodies:\n  - cloth: {origin: "
                                                 "[0, 1, 0], size: [1, 1], resolution: [63, 63], "
                                                 "plane: xz, pin: top-corners}\n"),
                   3);
  struct stat sb;
  ck_assert_int_eq(stat(big, &sb), 0);
  ck_assert_int_gt(sb.st_size, 4 << 20);
  tu_rmtree(dir);
  free(big);
  free(many);
  free(out);
  free(dir);
}
END_TEST

/* A small state gets many copies and its frames are handed to the writer's
 * thread in batches (the thread is woken once half of them wait:
 * model/estimate.h, vs_writer_copies): frames left waiting below that mark
 * are still written, by vs_h5_wait (which must wake the thread rather than
 * wait for it forever) and by vs_h5_finish, in order and bit for bit. */
/* Until every other thread of this process sleeps (state S in
 * /proc/self/task/ID/stat), at most 10 s. */
static void wait_others_asleep(void) {
  char me[32];
  snprintf(me, sizeof me, "%ld", (long)syscall(SYS_gettid));
  for (int tries = 0; tries < 1000; tries++) {
    DIR *d = opendir("/proc/self/task");
    ck_assert(d != NULL);
    int awake = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.' || strcmp(de->d_name, me) == 0) continue;
      char path[300], buf[512];
      snprintf(path, sizeof path, "/proc/self/task/%s/stat", de->d_name);
      FILE *f = fopen(path, "r");
      if (!f) continue;
      size_t got = fread(buf, 1, sizeof buf - 1, f);
      fclose(f);
      buf[got] = '\0';
      const char *r = strrchr(buf, ')'); /* "pid (name) S ..." */
      if (r && r[1] == ' ' && r[2] != 'S') awake = 1;
    }
    closedir(d);
    if (!awake) return;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

START_TEST(small_state_frames_batched) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene("time: {dt: 0.01, frames: 1000}\nsolver: {iterations: 2}\n"
                         "bodies:\n  - cloth: {origin: [0, 1, 0], size: [1, 1], resolution: [31, 31],"
                         " plane: xz, pin: top-corners}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  /* 1024 particles: about 100 KB of state, 1000 frames: the thread, with
   * more than the three copies of a big state */
  size_t bytes = 0;
#define TU_BYTES(name, type, width, count) bytes += (width) * (count) * sizeof(type);
  VS_STATE_FIELDS(TU_BYTES)
#undef TU_BYTES
  ck_assert_int_gt(vs_writer_copies(bytes), 8);
  ck_assert_int_eq(vs_writer_copies((size_t)16 << 20), 2);
  ck_assert_int_eq(vs_writer_copies((size_t)3 << 20), 3);
  const size_t n = 4 * (size_t)m->n_particles;
  double *x = malloc(6 * n * sizeof *x);
  vs_error e;
  vs_h5_writer *w = NULL;
  ck_assert_msg(vs_h5_open(out, s, m, NULL, &w, &e) == VS_OK, "%s", e.message);
  for (int f = 0; f < 6; f++) {
    if (f > 0) ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    memcpy(x + (size_t)f * n, st->x, n * sizeof *x);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
    if (f == 0) {
      /* the first frame written, the copies touched: the thread sleeps */
      ck_assert_int_eq(vs_h5_wait(w, &e), VS_OK);
      wait_others_asleep();
    }
    /* three frames waiting, fewer than the mark: the thread is woken */
    if (f == 3) ck_assert_int_eq(vs_h5_wait(w, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, "interrupted", 1.0, &e), VS_OK);
  hid_t fh = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(fh, 0);
  ck_assert_double_eq(attr_num(fh, "/parameters/vsim", "frames_recorded"), 6);
  const size_t np = (size_t)m->n_particles;
  double *got = malloc(6 * np * 3 * sizeof *got);
  read_all(fh, "/particles/all/position/value", H5T_NATIVE_DOUBLE, got);
  for (size_t f = 0; f < 6; f++)
    for (size_t i = 0; i < np; i++)
      for (int k = 0; k < 3; k++)
        ck_assert_msg(got[(f * np + i) * 3 + k] == x[f * n + 4 * i + k], "frame %zu particle %zu",
                      f, i);
  H5Fclose(fh);
  free(got);
  free(x);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* A sync that fails publishes nothing: the syncer thread's fdatasync (a
 * big file: it runs as chunks are appended; its error is kept for
 * vs_h5_finish) and the fsync before the rename (a small file, written on
 * the caller's thread).  vs_h5_finish says which file and why, the output
 * name stays free and the temporary file is removed.  The failure is
 * injected at the one place every sync of an output goes through
 * (vs_outfile_sync_fd). */
static void record_failing_sync(const char *dir, const char *yaml, int which, int sidecar) {
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene(yaml);
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_error e;
  vs_h5_writer *w = NULL;
  vs_outfile__fail_syncs(EIO, which, 0);
  ck_assert_msg(vs_h5_open(out, s, m, NULL, &w, &e) == VS_OK, "%s", e.message);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", vs_h5_temp_path(w));
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  vs_status xst = VS_OK;
  vs_error xe;
  vs_error_clear(&xe);
  ck_assert_int_eq(sidecar ? vs_h5_finish_xdmf(w, "complete", 1.0, &e, &xst, &xe)
                           : vs_h5_finish(w, "complete", 1.0, &e),
                   VS_ERR_IO);
  vs_outfile__fail_syncs(0, 0, 0);
  char want[4200];
  snprintf(want, sizeof want, "syncing '%s': %s", tmp, strerror(EIO));
  ck_assert_str_eq(e.message, want);
  ck_assert_str_eq(e.file, out);
  ck_assert_int_ne(access(out, F_OK), 0);
  ck_assert_int_eq(count_entries(dir), 0);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  free(out);
}

START_TEST(failed_sync_publishes_nothing) {
  char *dir = tu_tmpdir();
  /* 64 x 64 particles over 60 frames, 5.9 MiB: the syncer's fdatasync
   * fails, the final fsync would not */
  record_failing_sync(dir,
                      "time: {frames: 60}\nbodies:\n  - cloth: {origin: [0, 1, 0], size: [1, 1], "
                      "resolution: [63, 63], plane: xz, pin: top-corners}\n",
                      1, 0);
  /* two particles, one frame: no syncer; the fsync before the rename fails,
   * alone, and with a sidecar (vs_h5_finish_xdmf stages the sidecar's
   * temporary file before that fsync: it is removed too) */
  record_failing_sync(dir, "time: {frames: 1}\nbodies:\n  - particles: {positions: [[0, 1, 0]]}\n", 2, 0);
  record_failing_sync(dir, "time: {frames: 1}\nbodies:\n  - particles: {positions: [[0, 1, 0]]}\n", 2, 1);
  /* and a sync that works again publishes */
  char *out = join(dir, "ok.h5");
  ck_assert_int_eq(
      record_and_count_threads(out, "time: {frames: 1}\nbodies:\n  - particles: {positions: [[0, 1, 0]]}\n"),
      1);
  ck_assert_int_eq(access(out, F_OK), 0);
  tu_rmtree(dir);
  free(out);
  free(dir);
}
END_TEST

/* The sidecar's own sync fails (the result file's, the first fsync,
 * works): the result file is published and reads back, the error names
 * the sidecar's temporary file, and neither the .xmf nor any temporary
 * file is left. */
START_TEST(failed_sidecar_sync_keeps_the_result) {
  char *dir = tu_tmpdir();
  char *out = join(dir, "out.h5");
  vs_scene *s = tu_scene("time: {frames: 2}\nbodies:\n  - particles: {positions: [[0, 1, 0]]}\n");
  vs_model *m = tu_model(s);
  vs_state *st = tu_state(m);
  vs_error e, xe;
  vs_error_clear(&e);
  vs_error_clear(&xe);
  vs_h5_writer *w = NULL;
  vs_outfile__fail_syncs(EIO, 2, 1);
  ck_assert_msg(vs_h5_open(out, s, m, NULL, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int64_t f = 0; f < m->frames; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  vs_status xst = VS_OK;
  ck_assert_msg(vs_h5_finish_xdmf(w, "complete", 1.0, &e, &xst, &xe) == VS_OK, "%s", e.message);
  vs_outfile__fail_syncs(0, 0, 0);
  ck_assert_int_eq(xst, VS_ERR_IO);
  char *xmf = join(dir, "out.xmf");
  ck_assert_str_eq(xe.file, xmf);
  ck_assert_msg(strstr(xe.message, "syncing '") && strstr(xe.message, ".out.xmf.tmp-") &&
                    strstr(xe.message, strerror(EIO)),
                "%s", xe.message);
  ck_assert_int_ne(access(xmf, F_OK), 0);
  ck_assert_int_eq(count_entries(dir), 1); /* out.h5 alone */
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  ck_assert_double_eq(attr_num(f, "/parameters/vsim", "frames_recorded"), 3);
  H5Fclose(f);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  tu_rmtree(dir);
  free(xmf);
  free(out);
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("h5out");
  TCase *t = tcase_create("h5out");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, layout_is_spec_section_4);
  tcase_add_test(t, connectivity_alive_and_h5md_references);
  tcase_add_test(t, series_table_is_the_file);
  tcase_add_test(t, default_fields_and_absent_kinds);
  tcase_add_test(t, observables_only_without_position);
  tcase_add_test(t, every_kth_frame_and_frame_zero);
  tcase_add_test(t, float32_precision);
  tcase_add_test(t, compression_is_readable);
  tcase_add_test(t, big_frames_split_the_chunk);
  tcase_add_test(t, no_constraints);
  tcase_add_test(t, status_is_recorded);
  tcase_add_test(t, existing_output_needs_force);
  tcase_add_test(t, bad_directories);
  tcase_add_test(t, abort_leaves_nothing);
  tcase_add_test(t, finish_or_abort_right_after_open);
  tcase_add_test(t, write_failure_is_io_error);
  tcase_add_test(t, failed_sync_publishes_nothing);
  tcase_add_test(t, failed_sidecar_sync_keeps_the_result);
  tcase_add_test(t, identical_runs_identical_bytes);
  tcase_add_test(t, bad_arguments_and_version);
  tcase_add_test(t, non_recorded_frames_are_skipped);
  tcase_add_test(t, recorded_frames_are_copies);
  tcase_add_test(t, checkpoint_layout);
  tcase_add_test(t, resume_is_bitwise_identical);
  tcase_add_test(t, early_checkpoint_is_the_last_frame);
  tcase_add_test(t, resume_refuses_another_scene);
  tcase_add_test(t, resume_accepts_both_layouts);
  tcase_add_test(t, syncer_only_for_big_files);
  tcase_add_test(t, small_state_frames_batched);
  suite_add_tcase(s, t);
  return s;
}

/* No HDF5 call here: the library's first call turns off HDF5's clean-up at
 * exit (h5util.c), which the write-failure test relies on. */
int main(void) { return tu_run(suite()); }
