/* SPDX-License-Identifier: MIT */
/* test_obj.c: the OBJ reader (lib/model/obj.c): every accepted form, every
 * error class with its exact file:line:col message, the limits, files that
 * are not files, the transform, and the fuzzer's seeds replayed. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "testutil.h"

#include "model/obj.h"
#include "fuzz/fuzz_obj.c"

static vs_obj_mesh parse_ok(const char *text, int skip) {
  vs_obj_options o = {.skip_degenerate = skip};
  vs_obj_mesh m;
  vs_error e;
  vs_status st = vs_obj_parse(text, strlen(text), "t.obj", &o, &m, &e);
  if (st != VS_OK) {
    char buf[2048];
    ck_abort_msg("parse failed: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return m;
}

/* The formatted error of a failing parse, checked against want. */
static void parse_fails(const char *text, const vs_obj_options *o, vs_status code,
                        const char *want) {
  vs_obj_mesh m;
  vs_error e;
  char buf[2048];
  vs_status st = vs_obj_parse(text, strlen(text), "t.obj", o, &m, &e);
  ck_assert_int_eq(st, code);
  ck_assert_int_eq(e.code, code);
  ck_assert_str_eq(vs_error_format(&e, buf, sizeof buf), want);
  ck_assert_ptr_null(m.vertices);
  ck_assert_ptr_null(m.triangles);
  ck_assert_int_eq(m.n_triangles, 0);
}

static void tri_is(const vs_obj_mesh *m, int t, int a, int b, int c) {
  ck_assert_int_eq(m->triangles[3 * t], a);
  ck_assert_int_eq(m->triangles[3 * t + 1], b);
  ck_assert_int_eq(m->triangles[3 * t + 2], c);
}

START_TEST(polygons_fan_into_triangles) {
  vs_obj_mesh m = parse_ok("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0.5 1.5 0\nv 0 1 0\n"
                           "f 1 2 3\nf 1 2 3 4 5\n", 0);
  ck_assert_int_eq(m.n_vertices, 5);
  ck_assert_int_eq(m.n_triangles, 4);
  tri_is(&m, 0, 0, 1, 2);
  tri_is(&m, 1, 0, 1, 2);
  tri_is(&m, 2, 0, 2, 3);
  tri_is(&m, 3, 0, 3, 4);
  ck_assert_int_eq(m.tri_line[0], 6);
  ck_assert_int_eq(m.tri_line[3], 7);
  ck_assert_double_eq(m.vertices[3 * 3 + 0], 0.5);
  ck_assert_double_eq(m.vertices[3 * 3 + 1], 1.5);
  vs_obj_free(&m);
}
END_TEST

START_TEST(corner_forms_negative_indices_and_ignored_statements) {
  const char *text = "# a comment\r\n"
                     "mtllib scene.mtl\r\n"
                     "o body\r\n"
                     "g part\r\n"
                     "s 1\r\n"
                     "usemtl red\r\n"
                     "v -1 0 0 1.0\r\n"        /* w */
                     "v\t1 0 0 0.2 0.3 0.4\r\n" /* colour, a tab */
                     "v 0 1e0 +0.0   # inline comment\r\n"
                     "v .5 -2.5E-1 3.\r\n"
                     "vt 0 0\r\nvt 1 0\r\nvn 0 0 1\r\nvp 0.5\r\nl 1 2\r\n\r\n   \r\n"
                     "f 1/1 2/2 3/1\r\n"
                     "f 1//1 2//1 4//1\r\n"
                     "f 2/1/1 3/2/1 4/1/1\r\n"
                     "f -4 -3 -1\r\n"
                     "f 1/-1/-1 -2 4\r\n"
                     "f 1 2 3#no space\r\n";
  vs_obj_mesh m = parse_ok(text, 0);
  ck_assert_int_eq(m.n_vertices, 4);
  ck_assert_int_eq(m.n_triangles, 6);
  tri_is(&m, 0, 0, 1, 2);
  tri_is(&m, 1, 0, 1, 3);
  tri_is(&m, 2, 1, 2, 3);
  tri_is(&m, 3, 0, 1, 3);
  tri_is(&m, 4, 0, 2, 3);
  tri_is(&m, 5, 0, 1, 2);
  ck_assert_double_eq(m.vertices[0], -1.0);
  ck_assert_double_eq(m.vertices[3], 1.0);
  ck_assert_double_eq(m.vertices[7], 1.0);
  ck_assert_double_eq(m.vertices[9], 0.5);
  ck_assert_double_eq(m.vertices[10], -0.25);
  ck_assert_double_eq(m.vertices[11], 3.0);
  ck_assert_int_eq(m.tri_line[0], 18);
  vs_obj_free(&m);
  /* no final newline */
  m = parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3", 0);
  ck_assert_int_eq(m.n_vertices, 3);
  ck_assert_int_eq(m.n_triangles, 1);
  vs_obj_free(&m);
  /* a bare CR does not end a line (LF and CR LF do): it is a blank */
  parse_fails("v 0 0 0\rv 9 9 9\n", NULL, VS_ERR_SCENE, "t.obj:1:9: bad number 'v' in a vertex");
}
END_TEST

START_TEST(bad_numbers) {
  const char *v3 = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  parse_fails("v 0 0 0\nv 1 2 x\n", NULL, VS_ERR_SCENE, "t.obj:2:7: bad number 'x' in a vertex");
  parse_fails("v 0 0 0\nv 1 2 1.5.2\n", NULL, VS_ERR_SCENE,
              "t.obj:2:7: bad number '1.5.2' in a vertex");
  parse_fails("v 0 0 0x10\n", NULL, VS_ERR_SCENE, "t.obj:1:7: bad number '0x10' in a vertex");
  parse_fails("v 1e 0 0\n", NULL, VS_ERR_SCENE, "t.obj:1:3: bad number '1e' in a vertex");
  parse_fails("v 0 NaN 0\n", NULL, VS_ERR_SCENE, "t.obj:1:5: 'NaN' in a vertex is not a finite number");
  parse_fails("\n\nv 0 0 -inf\n", NULL, VS_ERR_SCENE,
              "t.obj:3:7: '-inf' in a vertex is not a finite number");
  parse_fails("v 1e999 0 0\n", NULL, VS_ERR_SCENE,
              "t.obj:1:3: '1e999' in a vertex is not a finite number");
  parse_fails("v 1 2\n", NULL, VS_ERR_SCENE,
              "t.obj:1:1: a vertex has 2 values; expected 3 (x y z), 4 (x y z w) or 6 (x y z r g b)");
  parse_fails("v 1 2 3 4 5\n", NULL, VS_ERR_SCENE,
              "t.obj:1:1: a vertex has 5 values; expected 3 (x y z), 4 (x y z w) or 6 (x y z r g b)");
  char buf[256];
  snprintf(buf, sizeof buf, "%sf 1 2 3.0\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:7: bad face corner '3.0': expected v, v/vt, v//vn or v/vt/vn (integers)");
  snprintf(buf, sizeof buf, "%sf 1/2/3/4 2 3\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:3: bad face corner '1/2/3/4': expected v, v/vt, v//vn or v/vt/vn (integers)");
  snprintf(buf, sizeof buf, "%sf 1 2// 3\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:5: bad face corner '2//': expected v, v/vt, v//vn or v/vt/vn (integers)");
}
END_TEST

START_TEST(bad_indices_and_faces) {
  const char *v3 = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  char buf[256];
  snprintf(buf, sizeof buf, "%sf 1 2 0\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:7: vertex index 0 in '0': OBJ indices start at 1 (or -1 for the last vertex)");
  snprintf(buf, sizeof buf, "%sf 1 2 4\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:7: vertex index in '4' out of range: 3 vertices defined above this face");
  snprintf(buf, sizeof buf, "%sf -4/1 1 2\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:3: vertex index in '-4/1' out of range: 3 vertices defined above this face");
  snprintf(buf, sizeof buf, "%sf 1 2 99999999999999999999\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE,
              "t.obj:4:7: vertex index in '99999999999999999999' out of range: 3 vertices defined "
              "above this face");
  /* a face names only vertices above it */
  parse_fails("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", NULL, VS_ERR_SCENE,
              "t.obj:3:7: vertex index in '3' out of range: 2 vertices defined above this face");
  snprintf(buf, sizeof buf, "%sf 1 2\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE, "t.obj:4:1: a face needs at least 3 corners, this one has 2");
  snprintf(buf, sizeof buf, "%s  f # nothing\n", v3);
  parse_fails(buf, NULL, VS_ERR_SCENE, "t.obj:4:3: a face needs at least 3 corners, this one has 0");
  parse_fails(v3, NULL, VS_ERR_SCENE, "t.obj: no faces ('f' lines with 3 or more corners)");
  parse_fails("", NULL, VS_ERR_SCENE, "t.obj: no faces ('f' lines with 3 or more corners)");
}
END_TEST

START_TEST(zero_area_triangles_rejected_or_skipped) {
  const char *text = "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\n"
                     "f 1 2 4\n"
                     "f 4 1 2 3\n"  /* fan: (4 1 2) fine, (4 2 3) fine */
                     "f 1 2 3 4\n"; /* fan: (1 2 3) collinear */
  vs_obj_options o = {0};
  parse_fails(text, &o, VS_ERR_SCENE,
              "t.obj:7:7: face 3, triangle 1 of its fan (OBJ vertices 1 2 3), has zero area");
  parse_fails("v 0 0 0\nv 1 1 1\nv 0 1 0\nf 1 2 3\nf 1 3 3\n", &o, VS_ERR_SCENE,
              "t.obj:5:7: face 2, triangle 1 of its fan (OBJ vertices 1 3 3), has zero area");
  vs_obj_mesh m = parse_ok(text, 1);
  ck_assert_int_eq(m.n_triangles, 4);
  ck_assert_int_eq(m.n_skipped, 1);
  ck_assert_int_eq(m.skipped_line, 7);
  ck_assert_int_eq(m.skipped_column, 7);
  tri_is(&m, 3, 0, 2, 3);
  vs_obj_free(&m);
  /* a nearly flat triangle is not degenerate */
  m = parse_ok("v 0 0 0\nv 1 0 0\nv 0.5 1e-9 0\nf 1 2 3\n", 0);
  ck_assert_int_eq(m.n_triangles, 1);
  vs_obj_free(&m);
  o.skip_degenerate = 1;
  parse_fails("v 0 0 0\nv 1 0 0\nv 2 0 0\n\nf 1 2 3\n", &o, VS_ERR_SCENE,
              "t.obj:5:7: every triangle has zero area (1 skipped)");
}
END_TEST

/* The zero-area test is relative and scaled: a triangle with corners at
 * 1e200 (whose cross product overflowed to infinity) or at 1e-200 (whose
 * products underflowed to 0) has area; a degenerate one at either scale is
 * still found. */
START_TEST(zero_area_at_any_scale) {
  static const char *const ok[] = {
      "v -1e200 0 -1e200\nv 1e200 0 -1e200\nv 0 0 1e200\nf 1 3 2\n",
      "v -1e-200 0 -1e-200\nv 1e-200 0 -1e-200\nv 0 0 1e-200\nf 1 3 2\n",
      "v 1e300 1e300 0\nv -1e300 1e300 0\nv 0 -1e300 0\nf 1 2 3\n",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    vs_obj_mesh m = parse_ok(ok[i], 0);
    ck_assert_int_eq(m.n_triangles, 1);
    vs_obj_free(&m);
  }
  vs_obj_options o = {0};
  parse_fails("v 0 0 0\nv 1e200 1e200 0\nv 2e200 2e200 0\nf 1 2 3\n", &o, VS_ERR_SCENE,
              "t.obj:4:7: face 1, triangle 1 of its fan (OBJ vertices 1 2 3), has zero area");
  parse_fails("v 0 0 0\nv 1e-200 1e-200 0\nv 2e-200 2e-200 0\nf 1 2 3\n", &o, VS_ERR_SCENE,
              "t.obj:4:7: face 1, triangle 1 of its fan (OBJ vertices 1 2 3), has zero area");
}
END_TEST

/* drop_duplicates: a triangle with the corners of an earlier one, in any
 * order or orientation, by position (repeated vertices too), is dropped and
 * counted; the first is kept in file order.  Without the option all stay. */
START_TEST(repeated_triangles_dropped_and_counted) {
  const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 0 0\n"
                     "f 1 2 3\n"  /* kept */
                     "f 2 3 1\n"  /* the same, rotated */
                     "f 1 4 2\n"  /* kept */
                     "f 3 2 1\n"  /* the same, flipped */
                     "f 1 5 3\n"  /* the same by position (vertex 5 is vertex 2) */
                     "f 1 2 3\n"; /* the same */
  vs_obj_options o = {.skip_degenerate = 1, .drop_duplicates = 1};
  vs_obj_mesh m;
  vs_error e;
  ck_assert_int_eq(vs_obj_parse(text, strlen(text), "t.obj", &o, &m, &e), VS_OK);
  ck_assert_int_eq(m.n_triangles, 2);
  ck_assert_int_eq(m.n_duplicates, 4);
  ck_assert_int_eq(m.duplicate_line, 7);
  tri_is(&m, 0, 0, 1, 2);
  tri_is(&m, 1, 0, 3, 1);
  ck_assert_int_eq(m.tri_line[1], 8);
  vs_obj_free(&m);
  m = parse_ok(text, 1);
  ck_assert_int_eq(m.n_triangles, 6);
  ck_assert_int_eq(m.n_duplicates, 0);
  vs_obj_free(&m);
}
END_TEST

START_TEST(limits) {
  ck_assert_int_eq(VS_OBJ_MAX_BYTES, 67108864LL);
  ck_assert_int_eq(VS_OBJ_MAX_VERTICES, 4194304LL);
  ck_assert_int_eq(VS_OBJ_MAX_TRIANGLES, 4194304LL);
  const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
  vs_obj_options o = {.max_vertices = 3};
  parse_fails(text, &o, VS_ERR_LIMIT, "t.obj:4:1: more than 3 vertices (the limit)");
  o = (vs_obj_options){.max_triangles = 1};
  parse_fails(text, &o, VS_ERR_LIMIT,
              "t.obj:6:1: more than 1 triangles after fanning the faces (the limit)");
  o = (vs_obj_options){.max_triangles = 2};
  parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3 1 2\n", &o, VS_ERR_LIMIT,
              "t.obj:5:1: more than 2 triangles after fanning the faces (the limit)");
  o = (vs_obj_options){.max_bytes = 10};
  parse_fails(text, &o, VS_ERR_LIMIT, "t.obj: 48 bytes, over the limit of 10 bytes");
  /* exactly at the limits: fine */
  o = (vs_obj_options){.max_bytes = 48, .max_vertices = 4, .max_triangles = 2};
  vs_obj_mesh m;
  vs_error e;
  ck_assert_int_eq(vs_obj_parse(text, strlen(text), "t.obj", &o, &m, &e), VS_OK);
  vs_obj_free(&m);
  /* a limit above the documented one is the documented one */
  o = (vs_obj_options){.max_vertices = 1LL << 40};
  ck_assert_int_eq(vs_obj_parse(text, strlen(text), "t.obj", &o, &m, &e), VS_OK);
  vs_obj_free(&m);
}
END_TEST

static char *write_file(const char *dir, const char *name, const char *text) {
  char *path = malloc(1024);
  snprintf(path, 1024, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void read_fails(const char *path, vs_status code, const char *want) {
  vs_obj_mesh m;
  vs_error e;
  char buf[2048];
  ck_assert_int_eq(vs_obj_read(path, "m.obj", NULL, &m, &e), code);
  ck_assert_str_eq(vs_error_format(&e, buf, sizeof buf), want);
  ck_assert_ptr_null(m.vertices);
}

START_TEST(files_that_are_not_meshes) {
  char *dir = tu_tmpdir(), path[1024], want[2048];
  char *ok = write_file(dir, "ok.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  vs_obj_mesh m;
  vs_error e;
  ck_assert_int_eq(vs_obj_read(ok, NULL, NULL, &m, &e), VS_OK);
  ck_assert_int_eq(m.n_triangles, 1);
  vs_obj_free(&m);
  char *bad = write_file(dir, "bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 5\n");
  ck_assert_int_eq(vs_obj_read(bad, NULL, NULL, &m, &e), VS_ERR_SCENE);
  ck_assert_str_eq(e.file, bad); /* no name: the path */
  ck_assert_int_eq(e.line, 4);
  ck_assert_int_eq(e.column, 7);

  snprintf(path, sizeof path, "%s/missing.obj", dir);
  snprintf(want, sizeof want, "m.obj: cannot read mesh file '%s': No such file or directory", path);
  read_fails(path, VS_ERR_IO, want);
  snprintf(want, sizeof want, "m.obj: cannot read mesh file '%s': it is a directory", dir);
  read_fails(dir, VS_ERR_IO, want);
  /* a FIFO with no writer: must not block */
  snprintf(path, sizeof path, "%s/fifo.obj", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  snprintf(want, sizeof want, "m.obj: cannot read mesh file '%s': not a regular file", path);
  read_fails(path, VS_ERR_IO, want);
  /* over the documented size (a sparse file: nothing is written or read) */
  snprintf(path, sizeof path, "%s/huge.obj", dir);
  int fd = open(path, O_WRONLY | O_CREAT, 0600);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, VS_OBJ_MAX_BYTES + 1), 0);
  close(fd);
  snprintf(want, sizeof want,
           "m.obj: mesh file '%s' is 67108865 bytes, over the limit of 67108864 bytes", path);
  read_fails(path, VS_ERR_LIMIT, want);
  free(ok);
  free(bad);
  tu_rmtree(dir);
  free(dir);
}
END_TEST

START_TEST(transform_scale_then_rotate_x_y_z_then_translate) {
  double v[6] = {0, 1, 0, 1, 2, 3};
  vs_obj_transform t = {.scale = {2, 2, 2}, .rotate = {90, 90, 0}, .translate = {10, 20, 30}};
  vs_obj_transform_apply(&t, v, 2);
  /* (0,2,0) -Rx90-> (0,0,2) -Ry90-> (2,0,0) */
  ck_assert_double_eq(v[0], 12.0);
  ck_assert_double_eq(v[1], 20.0);
  ck_assert_double_eq(v[2], 30.0);
  /* (2,4,6) -Rx90-> (2,-6,4) -Ry90-> (4,-6,-2) */
  ck_assert_double_eq(v[3], 14.0);
  ck_assert_double_eq(v[4], 14.0);
  ck_assert_double_eq(v[5], 28.0);
  double w[3] = {1, 0, 0};
  vs_obj_transform r = {.scale = {1, 1, 1}, .rotate = {0, 0, -270}};
  vs_obj_transform_apply(&r, w, 1); /* z by -270 = +90: x -> y */
  ck_assert_double_eq(w[0], 0.0);
  ck_assert_double_eq(w[1], 1.0);
  double u[3] = {1, 0, 0};
  vs_obj_transform q = {.scale = {1, 1, 1}, .rotate = {0, 0, 30}};
  vs_obj_transform_apply(&q, u, 1);
  ck_assert_double_eq_tol(u[0], sqrt(3.0) / 2.0, 1e-15);
  ck_assert_double_eq_tol(u[1], 0.5, 1e-15);
}
END_TEST

/* Every fuzz seed and every example mesh through the fuzzer's checks. */
START_TEST(fuzz_seeds_and_example_meshes) {
  const char *root = getenv("VSIM_ROOT") ? getenv("VSIM_ROOT") : ".";
  const char *dirs[] = {"tests/fuzz/seeds-obj", "configs/meshes"};
  int seen = 0;
  for (int d = 0; d < 2; d++) {
    char dpath[1024];
    snprintf(dpath, sizeof dpath, "%s/%s", root, dirs[d]);
    DIR *dir = opendir(dpath);
    ck_assert_msg(dir != NULL, "cannot open %s", dpath);
    struct dirent *de;
    while ((de = readdir(dir))) {
      if (de->d_name[0] == '.') continue;
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dpath, de->d_name);
      FILE *f = fopen(path, "rb");
      ck_assert_ptr_nonnull(f);
      static char buf[1 << 20];
      size_t n = fread(buf, 1, sizeof buf, f);
      fclose(f);
      LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
      if (d == 1 && strstr(de->d_name, ".obj")) { /* the examples load as bodies */
        vs_obj_mesh m;
        vs_error e;
        ck_assert_msg(vs_obj_read(path, NULL, NULL, &m, &e) == VS_OK, "%s: %s", path, e.message);
        ck_assert_int_gt(m.n_triangles, 0);
        vs_obj_free(&m);
      }
      seen++;
    }
    closedir(dir);
  }
  ck_assert_int_ge(seen, 8);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("obj");
  TCase *t = tcase_create("obj");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, polygons_fan_into_triangles);
  tcase_add_test(t, corner_forms_negative_indices_and_ignored_statements);
  tcase_add_test(t, bad_numbers);
  tcase_add_test(t, bad_indices_and_faces);
  tcase_add_test(t, zero_area_triangles_rejected_or_skipped);
  tcase_add_test(t, zero_area_at_any_scale);
  tcase_add_test(t, repeated_triangles_dropped_and_counted);
  tcase_add_test(t, limits);
  tcase_add_test(t, files_that_are_not_meshes);
  tcase_add_test(t, transform_scale_then_rotate_x_y_z_then_translate);
  tcase_add_test(t, fuzz_seeds_and_example_meshes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
