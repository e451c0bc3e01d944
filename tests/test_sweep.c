/* SPDX-License-Identifier: MIT */
/* test_sweep.c: sweep files (lib/scene/sweep.c): parsing, the order of points,
 * values written back as YAML, the scene path, and every error with its
 * file:line:col. */
#include <sys/stat.h>

#include "testutil.h"

#define EXPECT_MSG_HAS(msg, needle) \
  ck_assert_msg(strstr((msg), (needle)) != NULL, "'%s' not in '%s'", (needle), (msg))

static vs_sweep *load(const char *yaml, const char *file) {
  vs_sweep *s = NULL;
  vs_error e;
  vs_status st = vs_sweep_load_string(yaml, strlen(yaml), file, &s, &e);
  if (st != VS_OK) {
    char buf[2048];
    ck_abort_msg("sweep failed: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return s;
}

/* Load text that must fail; returns the formatted message. */
static void expect_error(const char *yaml, vs_status code, const char *message) {
  vs_sweep *s = (vs_sweep *)1;
  vs_error e;
  vs_status st = vs_sweep_load_string(yaml, strlen(yaml), "s.yaml", &s, &e);
  char buf[2048];
  vs_error_format(&e, buf, sizeof buf);
  ck_assert_msg(st == code, "status %d (%s), expected %d for:\n%s", st, buf, code, yaml);
  ck_assert_ptr_null(s);
  ck_assert_msg(strcmp(buf, message) == 0, "message\n  '%s'\nexpected\n  '%s'", buf, message);
}

/* vs_sweep_set_text of point k, parameter i, equals want. */
static void expect_set(const vs_sweep *s, size_t k, size_t i, const char *want) {
  char *t = vs_sweep_set_text(s, k, i);
  ck_assert_ptr_nonnull(t);
  ck_assert_str_eq(t, want);
  vs_free_buffer(t);
}

START_TEST(grid_last_key_fastest) {
  vs_sweep *s = load(
      "scene: cloth.yaml\n"
      "parameters:\n"
      "  solver.iterations: [5, 10]\n"
      "  solver.relaxation: [gauss-seidel, jacobi, gauss-seidel]\n",
      "s.yaml");
  ck_assert_int_eq(s->mode, VS_SWEEP_GRID);
  ck_assert_int_eq(s->frames, -1);
  ck_assert_str_eq(s->scene, "cloth.yaml");
  ck_assert_uint_eq(s->n_params, 2);
  ck_assert_uint_eq(s->n_points, 6);
  static const char *const want[6][2] = {
      {"solver.iterations=5", "solver.relaxation=gauss-seidel"},
      {"solver.iterations=5", "solver.relaxation=jacobi"},
      {"solver.iterations=5", "solver.relaxation=gauss-seidel"},
      {"solver.iterations=10", "solver.relaxation=gauss-seidel"},
      {"solver.iterations=10", "solver.relaxation=jacobi"},
      {"solver.iterations=10", "solver.relaxation=gauss-seidel"},
  };
  for (size_t k = 0; k < 6; k++) {
    expect_set(s, k, 0, want[k][0]);
    expect_set(s, k, 1, want[k][1]);
    ck_assert_uint_eq(vs_sweep_value_index(s, k, 1), k % 3);
  }
  vs_sweep_free(s);

  /* three keys: 2 x 3 x 2, the first the slowest */
  s = load(
      "scene: c.yaml\n"
      "mode: grid\n"
      "parameters: {a: [0, 1], b: [0, 1, 2], c: [0, 1]}\n",
      "s.yaml");
  ck_assert_uint_eq(s->n_points, 12);
  for (size_t k = 0; k < 12; k++) {
    ck_assert_uint_eq(vs_sweep_value_index(s, k, 0), k / 6);
    ck_assert_uint_eq(vs_sweep_value_index(s, k, 1), (k / 2) % 3);
    ck_assert_uint_eq(vs_sweep_value_index(s, k, 2), k % 2);
  }
  vs_sweep_free(s);
}
END_TEST

START_TEST(zip_mode) {
  vs_sweep *s = load(
      "scene: c.yaml\n"
      "frames: 20\n"
      "mode: zip\n"
      "parameters:\n"
      "  time.substeps: [1, 2, 4]\n"
      "  solver.iterations: [40, 20, 10]\n",
      "s.yaml");
  ck_assert_int_eq(s->mode, VS_SWEEP_ZIP);
  ck_assert_int_eq(s->frames, 20);
  ck_assert_uint_eq(s->n_points, 3);
  expect_set(s, 1, 0, "time.substeps=2");
  expect_set(s, 1, 1, "solver.iterations=20");
  expect_set(s, 2, 1, "solver.iterations=10");
  vs_sweep_free(s);

  expect_error(
      "scene: c.yaml\n"
      "mode: zip\n"
      "parameters:\n"
      "  time.substeps: [1, 2, 4]\n"
      "  solver.iterations: [40, 20]\n",
      VS_ERR_SCENE,
      "s.yaml:5:3: solver.iterations: 2 values, but time.substeps has 3; mode zip takes the "
      "k-th value of every list, so they must have the same length (or use mode: grid)");
}
END_TEST

/* Values come back as flow YAML that --set reads as the same node. */
START_TEST(values_as_yaml) {
  vs_sweep *s = load(
      "scene: c.yaml\n"
      "parameters:\n"
      "  world.gravity: [[0, -9.81, 0], [0,-1.62,0]]\n"
      "  bodies.curtain.pin:\n"
      "    - top-edge\n"
      "    - - [0, 31]\n"
      "      - [31, 31]\n"
      "  name: ['yes', \"a \\\"b\\\"\", a,b, ~]\n"
      "  world.colliders.0: [{sphere: {center: [0, 0.5, 0], radius: 0.25}}]\n",
      "s.yaml");
  ck_assert_uint_eq(s->n_points, 2 * 2 * 5 * 1);
  vs_sweep_param *g = &s->params[0], *p = &s->params[1], *n = &s->params[2], *c = &s->params[3];
  ck_assert_str_eq(g->values[0], "[0,-9.81,0]");
  ck_assert_str_eq(g->values[1], "[0,-1.62,0]");
  expect_set(s, 2 * 5, 0, "world.gravity=[0,-1.62,0]");
  ck_assert_str_eq(p->values[0], "top-edge");
  ck_assert_str_eq(p->values[1], "[[0,31],[31,31]]");
  ck_assert_str_eq(n->values[0], "\"yes\""); /* quoted: stays a string, not a boolean */
  ck_assert_str_eq(n->values[1], "\"a \\\"b\\\"\"");
  ck_assert_str_eq(n->values[2], "a");
  ck_assert_str_eq(n->values[3], "b");
  ck_assert_str_eq(n->values[4], "~");
  ck_assert_str_eq(c->values[0], "{sphere: {center: [0,0.5,0], radius: 0.25}}");
  /* positions of the values, for messages about one of them */
  ck_assert_int_eq(g->value_locs[1].line, 3);
  ck_assert_int_eq(g->value_locs[1].column, 34);
  ck_assert_int_eq(p->value_locs[1].line, 6);
  vs_sweep_free(s);

  /* a block-context plain scalar may hold a comma; in flow YAML it needs quotes */
  s = load(
      "scene: c.yaml\n"
      "parameters:\n"
      "  name:\n"
      "    - a, b\n"
      "    - x[1]\n",
      "s.yaml");
  ck_assert_str_eq(s->params[0].values[0], "\"a, b\"");
  ck_assert_str_eq(s->params[0].values[1], "\"x[1]\"");
  vs_sweep_free(s);
}
END_TEST

/* The override of a point loads into the scene like `--set` on the command
 * line would. */
START_TEST(sets_apply_to_scene) {
  vs_sweep *s = load(
      "scene: c.yaml\n"
      "parameters:\n"
      "  world.gravity: [[0, -1.62, 0]]\n"
      "  name: ['42']\n"
      "  solver.relaxation: [jacobi]\n",
      "s.yaml");
  vs_override sets[3];
  char *texts[3];
  for (size_t i = 0; i < 3; i++) sets[i].text = texts[i] = vs_sweep_set_text(s, 0, i);
  const char *yaml =
      "bodies:\n"
      "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 4, pin: [first]}\n";
  vs_scene *sc = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_load_string(yaml, strlen(yaml), "c.yaml", sets, 3, &sc, &e), VS_OK);
  ck_assert(sc->gravity[0] == 0 && sc->gravity[1] == -1.62 && sc->gravity[2] == 0);
  ck_assert_str_eq(sc->name, "42");
  ck_assert_int_eq(sc->relaxation, VS_RELAX_JACOBI);
  vs_scene_free(sc);
  for (size_t i = 0; i < 3; i++) vs_free_buffer(texts[i]);
  vs_sweep_free(s);
}
END_TEST

START_TEST(scene_relative_to_sweep_file) {
  const char *yaml = "scene: ../configs/cloth.yaml\nparameters: {solver.iterations: [1]}\n";
  vs_sweep *s = load(yaml, "sweeps/iters.yaml");
  ck_assert_str_eq(s->scene, "sweeps/../configs/cloth.yaml");
  vs_sweep_free(s);
  s = load(yaml, "/abs/dir/iters.yaml");
  ck_assert_str_eq(s->scene, "/abs/dir/../configs/cloth.yaml");
  vs_sweep_free(s);
  s = load(yaml, "iters.yaml");
  ck_assert_str_eq(s->scene, "../configs/cloth.yaml");
  vs_sweep_free(s);
  s = load("scene: /srv/c.yaml\nparameters: {a: [1]}\n", "sweeps/iters.yaml");
  ck_assert_str_eq(s->scene, "/srv/c.yaml");
  ck_assert_int_eq(s->scene_loc.line, 1);
  ck_assert_int_eq(s->scene_loc.column, 8);
  vs_sweep_free(s);
}
END_TEST

START_TEST(load_file) {
  char *d = tu_tmpdir();
  char sub[512], path[600];
  snprintf(sub, sizeof sub, "%s/sweeps", d);
  ck_assert_int_eq(mkdir(sub, 0777), 0);
  snprintf(path, sizeof path, "%s/iters.yaml", sub);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("scene: ../scene.yaml\nframes: 0\nparameters:\n  solver.iterations: [1, 2]\n", f);
  fclose(f);
  vs_sweep *s = NULL;
  vs_error e;
  ck_assert_int_eq(vs_sweep_load_file(path, &s, &e), VS_OK);
  char want[700];
  snprintf(want, sizeof want, "%s/../scene.yaml", sub);
  ck_assert_str_eq(s->scene, want);
  ck_assert_str_eq(s->file, path);
  ck_assert_int_eq(s->frames, 0);
  vs_sweep_free(s);

  /* an error names the file as given */
  f = fopen(path, "w");
  fputs("scene: s.yaml\nparameters:\n  a: 3\n", f);
  fclose(f);
  s = (vs_sweep *)1;
  ck_assert_int_eq(vs_sweep_load_file(path, &s, &e), VS_ERR_SCENE);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(e.file, path);
  ck_assert_int_eq(e.line, 3);
  ck_assert_int_eq(e.column, 6);

  snprintf(path, sizeof path, "%s/none.yaml", d);
  ck_assert_int_eq(vs_sweep_load_file(path, &s, &e), VS_ERR_IO);
  EXPECT_MSG_HAS(e.message, "No such file");
  ck_assert_int_eq(vs_sweep_load_file(sub, &s, &e), VS_ERR_IO);
  EXPECT_MSG_HAS(e.message, "directory");
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(errors_with_position) {
  expect_error("scene: c.yaml\nmode: grdi\nparameters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:2:7: mode: expected grid or zip, got 'grdi' (did you mean 'grid'?)");
  expect_error("scene: c.yaml\nparamters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:2:1: unknown key 'paramters', did you mean 'parameters'?");
  expect_error("scene: c.yaml\nsolver.iterations: [1]\n", VS_ERR_SCENE,
               "s.yaml:2:1: unknown key 'solver.iterations' (expected one of: scene, frames, "
               "mode, parameters, collect, xdmf; swept scene keys go under parameters)");
  expect_error("parameters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:1:1: scene: missing (the scene file to sweep)");
  expect_error("scene: c.yaml\n", VS_ERR_SCENE,
               "s.yaml:1:1: parameters: missing (scene keys and their values)");
  expect_error("scene: [a]\nparameters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:1:8: scene: expected the path of a scene file, got a list");
  expect_error("scene: c.yaml\nframes: -3\nparameters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:2:9: frames: expected an integer in [0, 100000000], got '-3'");
  expect_error("scene: c.yaml\nparameters:\n  solver.iterations: 5\n", VS_ERR_SCENE,
               "s.yaml:3:22: solver.iterations: expected a non-empty list of values, got '5' "
               "(write [value] for one)");
  expect_error("scene: c.yaml\nparameters:\n  solver.iterations: []\n", VS_ERR_SCENE,
               "s.yaml:3:22: solver.iterations: expected a non-empty list of values, got an "
               "empty list");
  expect_error("scene: c.yaml\nparameters:\n  solver.iterations:\n", VS_ERR_SCENE,
               "s.yaml:3:3: solver.iterations: expected a non-empty list of values, got nothing");
  expect_error("scene: c.yaml\nparameters: []\n", VS_ERR_SCENE,
               "s.yaml:2:13: parameters: expected a mapping of scene keys to lists of values "
               "(solver.iterations: [5, 10]), got a list");
  expect_error("scene: c.yaml\nparameters:\n  a: [1]\n  a: [2]\n", VS_ERR_SCENE,
               "s.yaml:4:3: a: swept twice (first at line 3)");
  expect_error("scene: c.yaml\nparameters:\n  a..b: [1]\n", VS_ERR_SCENE,
               "s.yaml:3:3: parameters: expected a dotted scene key such as solver.iterations, "
               "got 'a..b'");
  expect_error("scene: c.yaml\nparameters:\n  \"a=b\": [1]\n", VS_ERR_SCENE,
               "s.yaml:3:3: parameters: expected a dotted scene key such as solver.iterations, "
               "got 'a=b'");
  expect_error("scene: c.yaml\nscene: d.yaml\nparameters: {a: [1]}\n", VS_ERR_SCENE,
               "s.yaml:2:1: duplicate key 'scene' (first at line 1)");
  expect_error("scene: c.yaml\nframes: 10\nparameters:\n  time.frames: [1, 2]\n", VS_ERR_SCENE,
               "s.yaml:2:9: frames: also swept as time.frames (line 4); keep one of the two");
  expect_error("scene: c.yaml\nparameters: {a: [1, 2}\n", VS_ERR_SCENE,
               "s.yaml:2:22: invalid YAML: did not find expected ',' or ']' (while parsing a "
               "flow sequence at line 2, column 17)");
  expect_error("- a\n", VS_ERR_SCENE,
               "s.yaml:1:1: expected a mapping with scene, parameters and optionally frames and "
               "mode, got a list");
  expect_error("", VS_ERR_SCENE,
               "s.yaml: expected a mapping with scene, parameters and optionally frames and "
               "mode, got nothing");
}
END_TEST

/* A grid over the point limit is refused by arithmetic, before anything is
 * expanded. */
START_TEST(point_limit) {
  size_t cap = 64 + 2 * 6 * 1001 + 64;
  char *yaml = malloc(cap);
  ck_assert_ptr_nonnull(yaml);
  size_t n = (size_t)snprintf(yaml, cap, "scene: c.yaml\nparameters:\n");
  for (int key = 0; key < 2; key++) {
    n += (size_t)snprintf(yaml + n, cap - n, "  %c: [0", 'a' + key);
    for (int i = 1; i < 1001; i++) n += (size_t)snprintf(yaml + n, cap - n, ",%d", i % 10);
    n += (size_t)snprintf(yaml + n, cap - n, "]\n");
  }
  expect_error(yaml, VS_ERR_LIMIT, "s.yaml:3:3: parameters: the grid has more than 1000000 points");
  free(yaml);
}
END_TEST

/* ---- allocation failures: every allocation the loader makes may fail, and
 * each failure returns VS_ERR_NOMEM without leaking ---- */

static long g_allocs, g_live, g_fail_at;

static void *count_malloc(size_t size, void *ctx) {
  if (g_fail_at >= 0 && g_allocs++ == g_fail_at) return NULL;
  void *p = malloc(size ? size : 1);
  if (p) g_live++;
  return p;
}

static void *count_realloc(void *ptr, size_t size, void *ctx) {
  if (g_fail_at >= 0 && g_allocs++ == g_fail_at) return NULL;
  void *p = realloc(ptr, size ? size : 1);
  if (p && !ptr) g_live++;
  return p;
}

static void count_free(void *ptr, void *ctx) {
  if (ptr) g_live--;
  free(ptr);
}

START_TEST(allocation_failures) {
  const char *yaml =
      "scene: ../c.yaml\nframes: 3\nmode: zip\n"
      "parameters:\n  world.gravity: [[0, -1, 0], [0, -2, 0]]\n  name: [a, 'b c']\n";
  vs_allocator a = {count_malloc, count_realloc, count_free, NULL};
  vs_set_allocator(&a);
  int succeeded = 0;
  for (long k = 0; k < 10000 && !succeeded; k++) {
    g_allocs = g_live = 0;
    g_fail_at = k;
    vs_sweep *s = NULL;
    vs_error e;
    vs_status st = vs_sweep_load_string(yaml, strlen(yaml), "d/s.yaml", &s, &e);
    if (st == VS_OK) {
      succeeded = 1;
      char *t = vs_sweep_set_text(s, 1, 1);
      ck_assert_ptr_nonnull(t);
      ck_assert_str_eq(t, "name=\"b c\"");
      vs_free_buffer(t);
      vs_sweep_free(s);
    } else {
      ck_assert_msg(st == VS_ERR_NOMEM, "allocation %ld: status %d (%s)", k, st, e.message);
      ck_assert_ptr_null(s);
    }
    ck_assert_msg(g_live == 0, "allocation %ld failed: %ld blocks leaked", k, g_live);
  }
  vs_set_allocator(NULL);
  ck_assert(succeeded);
}
END_TEST

/* An allocator that counts the bytes live and their peak (a header before
 * each block holds its size). */
static size_t g_bytes, g_peak;

static void *bytes_malloc(size_t n, void *ctx) {
  (void)ctx;
  size_t *h = malloc(n + 16);
  if (!h) return NULL;
  h[0] = n;
  g_bytes += n;
  if (g_bytes > g_peak) g_peak = g_bytes;
  return (char *)h + 16;
}

static void *bytes_realloc(void *ptr, size_t n, void *ctx) {
  if (!ptr) return bytes_malloc(n, ctx);
  size_t *h = (size_t *)((char *)ptr - 16), old = h[0];
  size_t *q = realloc(h, n + 16);
  if (!q) return NULL;
  q[0] = n;
  g_bytes = g_bytes - old + n;
  if (g_bytes > g_peak) g_peak = g_bytes;
  return (char *)q + 16;
}

static void bytes_free(void *ptr, void *ctx) {
  (void)ctx;
  if (!ptr) return;
  size_t *h = (size_t *)((char *)ptr - 16);
  g_bytes -= h[0];
  free(h);
}

/* A sweep's memory is bounded by its file's size: a 20 KB key with 5000
 * one-digit values (a 30 KB file) took 100 MB when the key was copied into
 * the "KEY=VALUE" of every value (a 300 KB file: over 5 GB). */
START_TEST(memory_bounded_by_input) {
  const size_t key_len = 20000, n_values = 5000;
  size_t cap = key_len + 2 * n_values + 256;
  char *yaml = malloc(cap);
  ck_assert_ptr_nonnull(yaml);
  /* an explicit key ("? KEY"): YAML's implicit keys stop at 1024 characters */
  size_t n = (size_t)snprintf(yaml, cap, "scene: c.yaml\nparameters:\n  ? ");
  memset(yaml + n, 'k', key_len);
  n += key_len;
  n += (size_t)snprintf(yaml + n, cap - n, "\n  : [");
  for (size_t i = 0; i < n_values; i++) {
    yaml[n++] = '1';
    yaml[n++] = i + 1 < n_values ? ',' : ']';
  }
  yaml[n++] = '\n';
  yaml[n] = '\0';
  vs_allocator a = {bytes_malloc, bytes_realloc, bytes_free, NULL};
  vs_set_allocator(&a);
  g_bytes = g_peak = 0;
  vs_sweep *s = NULL;
  vs_error e;
  vs_status st = vs_sweep_load_string(yaml, n, "s.yaml", &s, &e);
  size_t held = g_bytes, peak = g_peak;
  char *set = st == VS_OK ? vs_sweep_set_text(s, n_values - 1, 0) : NULL;
  size_t set_len = set ? strlen(set) : 0;
  vs_free_buffer(set);
  vs_sweep_free(s);
  vs_set_allocator(NULL);
  free(yaml);
  ck_assert_msg(st == VS_OK, "%s", e.message);
  ck_assert_uint_eq(set_len, key_len + 2);
  ck_assert_msg(held < 8 * n, "the sweep holds %zu bytes for a %zu-byte file", held, n);
  ck_assert_msg(peak < 64 * n, "loading took %zu bytes at most for a %zu-byte file", peak, n);
}
END_TEST

static Suite *sweep_suite(void) {
  Suite *s = suite_create("sweep");
  TCase *t = tcase_create("sweep");
  tcase_add_test(t, grid_last_key_fastest);
  tcase_add_test(t, zip_mode);
  tcase_add_test(t, values_as_yaml);
  tcase_add_test(t, sets_apply_to_scene);
  tcase_add_test(t, scene_relative_to_sweep_file);
  tcase_add_test(t, load_file);
  tcase_add_test(t, errors_with_position);
  tcase_add_test(t, point_limit);
  tcase_add_test(t, allocation_failures);
  tcase_add_test(t, memory_bounded_by_input);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(sweep_suite());
}
