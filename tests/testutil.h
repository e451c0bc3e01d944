/* SPDX-License-Identifier: MIT */
/* testutil.h: small helpers shared by the check test programs (header-only);
 * every name starts with tu_ or TU_.
 *
 * Every program's main() ends in tu_run(), which runs its suite and closes
 * with one line, "PROGRAM: N passed, N failed, N skipped", counted per check
 * (START_TEST case).  A check that cannot run here (no ffmpeg, no right to
 * mount, ...) says so with TU_SKIP("why") and is counted as skipped, not as
 * passed.  CK_RUN_CASE=NAME runs one test case; a name the program does not
 * have is an error, as is any selection under which no check ran.  Under
 * `make test` (tests/run-tests.sh) the counts also go to the file that
 * $VSIM_TEST_COUNTS names, for the run's closing line.
 *
 * Also: a scene built and ready to step (tu_sim_new, tu_sim_steps,
 * tu_sim_x), a fresh directory per test (tu_dir_setup as a checked
 * fixture, tu_path), whole files (tu_slurp, tu_read_file,
 * tu_read_repo_file, tu_expect_file_text). */
#ifndef VSIM_TESTUTIL_H
#define VSIM_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vsim/vsim.h"

/* A fresh temporary directory for one test; the caller rm -rf's it when done. */
static inline char *tu_tmpdir(void) {
  char *d = strdup("/tmp/vsim-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(d));
  return d;
}

static inline void tu_rmtree(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Load a scene from inline YAML or fail the test with the loader's message. */
static inline vs_scene *tu_scene(const char *yaml) {
  vs_scene *s = NULL;
  vs_error e;
  vs_error_clear(&e);
  vs_status st = vs_scene_load_string(yaml, strlen(yaml), "test.yaml", NULL, 0, &s, &e);
  if (st != VS_OK) {
    char buf[2048];
    ck_abort_msg("scene failed: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return s;
}

/* Scene -> model, failing the test with the message on error. */
static inline vs_model *tu_model(const vs_scene *s) {
  vs_model *m = NULL;
  vs_error e;
  vs_error_clear(&e);
  if (vs_model_build(s, &m, &e) != VS_OK) {
    char buf[2048];
    ck_abort_msg("model failed: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return m;
}

static inline vs_state *tu_state(const vs_model *m) {
  vs_state *st = NULL;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_state_create(m, &st, &e), VS_OK);
  return st;
}

/* A scene from inline YAML, its model and a state, ready to step. */
typedef struct tu_sim {
  vs_scene *scene;
  vs_model *m;
  vs_state *s;
} tu_sim;

/* A chain of n boxes 0.1 x 0.3 x 0.1 on a 0.4 m pitch (make bench-rigid's
 * chains), each joined to the next by a `joint` (ball, or hinge about z) in
 * the middle of the gap, the first hung from the world at the origin; the
 * last `end` times heavier.  Hanging (along -y) or horizontal (along +x);
 * head: scene text before `bodies:` (a world, a solver).  Free it. */
static inline char *tu_chain_yaml(int n, double end, int horizontal, const char *joint,
                                  const char *head) {
  size_t cap = 4096 + 256 * (size_t)n;
  char *y = malloc(cap);
  ck_assert_ptr_nonnull(y);
  const char *axis = strcmp(joint, "hinge") ? "" : ", axis: [0, 0, 1]";
  size_t k = (size_t)snprintf(y, cap, "time: {dt: 1/60, frames: 1}\n%sbodies:\n", head);
  for (int i = 0; i < n; i++) {
    double c = 0.4 * i + 0.2;
    k += (size_t)snprintf(y + k, cap - k,
                          "  - rigid: {name: l%d, size: [%s], position: [%g, %g, 0], mass: %g}\n", i,
                          horizontal ? "0.3, 0.1, 0.1" : "0.1, 0.3, 0.1", horizontal ? c : 0.0,
                          horizontal ? 0.0 : -c, i == n - 1 ? end : 1.0);
  }
  k += (size_t)snprintf(y + k, cap - k, "constraints:\n  - %s: {a: l0, b: world, at: [0, 0, 0]%s}\n",
                        joint, axis);
  for (int i = 1; i < n; i++)
    k += (size_t)snprintf(y + k, cap - k, "  - %s: {a: l%d, b: l%d, at: [%g, %g, 0]%s}\n", joint, i - 1,
                          i, horizontal ? 0.4 * i : 0.0, horizontal ? 0.0 : -0.4 * i, axis);
  return y;
}

static inline tu_sim tu_sim_new(const char *yaml) {
  tu_sim r;
  r.scene = tu_scene(yaml);
  r.m = tu_model(r.scene);
  r.s = tu_state(r.m);
  return r;
}

static inline void tu_sim_free(tu_sim *r) {
  vs_state_free(r->s);
  vs_model_free(r->m);
  vs_scene_free(r->scene);
}

/* n steps, failing the test with vs_step's message. */
static inline void tu_steps(const vs_model *m, vs_state *s, int n) {
  for (int i = 0; i < n; i++) {
    vs_error e;
    vs_error_clear(&e);
    ck_assert_msg(vs_step(m, s, &e) == VS_OK, "step %d failed: %s", i, e.message);
  }
}
static inline void tu_sim_steps(tu_sim *r, int n) { tu_steps(r->m, r->s, n); }

/* Particle i's position (x, y, z; then its inverse mass). */
static inline const double *tu_sim_x(const tu_sim *r, int i) {
  return r->s->x + 4 * i;
}

/* ---- files ------------------------------------------------------------------ */

/* The whole file, NUL-terminated (*len, when len is not NULL, its size
 * without the NUL), or NULL when it cannot be opened. */
static inline char *tu_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0, got;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 >= cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
  }
  fclose(f);
  buf = realloc(buf, n + 1); /* no slack: the sanitizers see a read past the end */
  ck_assert_ptr_nonnull(buf);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

/* The same, failing the test when the file cannot be read. */
static inline char *tu_read_file(const char *path, size_t *len) {
  char *t = tu_slurp(path, len);
  ck_assert_msg(t != NULL, "cannot read %s", path);
  return t;
}

/* The path of a file of the repository, malloc'd: $VSIM_ROOT/rel (make test
 * sets VSIM_ROOT; without it, ./rel). */
static inline char *tu_repo_path(const char *rel) {
  const char *root = getenv("VSIM_ROOT");
  if (!root || !*root) root = ".";
  size_t n = strlen(root) + strlen(rel) + 2;
  char *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  snprintf(p, n, "%s/%s", root, rel);
  return p;
}

/* A file of the repository, read whole as tu_read_file does. */
static inline char *tu_read_repo_file(const char *rel, size_t *len) {
  char *path = tu_repo_path(rel);
  char *t = tu_read_file(path, len);
  free(path);
  return t;
}

/* The file holds exactly the text want. */
static inline void tu_expect_file_text(const char *path, const char *want) {
  char *t = tu_read_file(path, NULL);
  ck_assert_msg(strcmp(t, want) == 0, "%s holds '%s', expected '%s'", path, t, want);
  free(t);
}

/* A fresh directory for each test of a test case, as a checked fixture:
 *   tcase_add_checked_fixture(tc, tu_dir_setup, tu_dir_teardown);
 * tu_dir() is it, tu_path("a.h5") a path in it (one of 8 rotating buffers,
 * so that a call may take several). */
static inline char **tu_dir_slot(void) {
  static char *dir;
  return &dir;
}
static inline const char *tu_dir(void) {
  return *tu_dir_slot();
}
static inline void tu_dir_setup(void) {
  *tu_dir_slot() = tu_tmpdir();
}
static inline void tu_dir_teardown(void) {
  tu_rmtree(*tu_dir_slot());
  free(*tu_dir_slot());
  *tu_dir_slot() = NULL;
}
static inline const char *tu_path(const char *name) {
  static char buf[8][1024];
  static int k;
  char *p = buf[k++ & 7];
  int n = snprintf(p, sizeof buf[0], "%s/%s", tu_dir(), name);
  ck_assert_msg(n > 0 && (size_t)n < sizeof buf[0], "path too long: %s/%s", tu_dir(), name);
  return p;
}

/* ---- skipping and running ------------------------------------------------ */

/* The skips of one run, in memory shared with the forked test processes
 * (check runs each test in a child of its own unless CK_FORK=no). */
#define TU_SKIPS_KEPT 32
typedef struct tu_skips {
  int n;                         /* checks skipped */
  char what[TU_SKIPS_KEPT][240]; /* "test: why" of the first TU_SKIPS_KEPT */
} tu_skips;

static inline tu_skips **tu_skips_slot(void) {
  static tu_skips *k;
  return &k;
}

/* Record the running check as skipped; TU_SKIP also returns from it. */
static inline void tu_skip_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tu_skip_note(const char *fmt, ...) {
  char why[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  const char *test = tcase_name();
  printf("SKIP %s: %s\n", test, why);
  fflush(stdout);
  tu_skips *k = *tu_skips_slot();
  if (!k) return;
  if (k->n < TU_SKIPS_KEPT) snprintf(k->what[k->n], sizeof k->what[0], "%s: %s", test, why);
  k->n++;
}

/* In a START_TEST body: TU_SKIP("no ffmpeg on PATH"); ends the check, which
 * counts as skipped. */
#define TU_SKIP(...)           \
  do {                         \
    tu_skip_note(__VA_ARGS__); \
    return;                    \
  } while (0)

/* This program's file name, for its closing line. */
static inline void tu_program_name(char *name, size_t size) {
  char path[1024];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) {
    snprintf(name, size, "checks");
    return;
  }
  path[n] = '\0';
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  size_t len = strlen(base) < size ? strlen(base) : size - 1;
  memcpy(name, base, len);
  name[len] = '\0';
}

/* check's report of the failed checks (one line each, with file, line, test
 * case and test), without its "NN%: Checks: ..." line, which would count a
 * skipped check as passed. */
static inline void tu_print_failures(SRunner *sr) {
  FILE *tmp = tmpfile();
  int saved = tmp ? dup(STDOUT_FILENO) : -1;
  if (saved < 0) {
    if (tmp) fclose(tmp);
    srunner_print(sr, CK_NORMAL);
    return;
  }
  fflush(stdout);
  dup2(fileno(tmp), STDOUT_FILENO);
  srunner_print(sr, CK_NORMAL);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  rewind(tmp);
  char line[4096];
  int first = 1;
  while (fgets(line, sizeof line, tmp)) {
    if (first && strstr(line, "%: Checks: ")) {
      first = 0;
      continue;
    }
    first = 0;
    fputs(line, stdout);
  }
  fclose(tmp);
  fflush(stdout);
}

/* Run a Suite, print "PROGRAM: N passed, N failed, N skipped" and return an
 * exit status: 0 when no check failed and at least one ran.  CK_VERBOSITY
 * set in the environment gets check's own report as well. */
static inline int tu_run(Suite *s) {
  char name[256];
  tu_program_name(name, sizeof name);
  /* the counts file is this program's; the programs the tests start (vsim,
   * scripts/golden.sh) must not write to it */
  char *counts = getenv("VSIM_TEST_COUNTS") ? strdup(getenv("VSIM_TEST_COUNTS")) : NULL;
  unsetenv("VSIM_TEST_COUNTS");
  SRunner *sr = srunner_create(s);
  const char *only = getenv("CK_RUN_CASE");
  tu_skips *k = MAP_FAILED;
  if (only && *only && !suite_tcase(s, only))
    fprintf(stderr,
            "%s: CK_RUN_CASE=%s: no test case of that name (see tcase_create in tests/%s.c)\n",
            name, only, name);
  else if ((k = mmap(NULL, sizeof *k, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)) ==
           MAP_FAILED)
    perror("tu_run: mmap");
  if (k == MAP_FAILED) {
    srunner_free(sr);
    free(counts);
    return EXIT_FAILURE;
  }
  k->n = 0;
  *tu_skips_slot() = k;

  int verbose = getenv("CK_VERBOSITY") != NULL;
  srunner_run_all(sr, verbose ? CK_ENV : CK_SILENT);
  int run = srunner_ntests_run(sr);
  int failed = srunner_ntests_failed(sr);
  if (failed > 0 && !verbose) tu_print_failures(sr);
  srunner_free(sr);

  int skipped = k->n < run - failed ? k->n : run - failed;
  int passed = run - failed - skipped;
  printf("%s: %d passed, %d failed, %d skipped\n", name, passed, failed, skipped);
  if (run == 0)
    fprintf(stderr, "%s: no check ran (CK_RUN_SUITE, CK_RUN_CASE or CK_INCLUDE_TAGS names none)\n",
            name);
  fflush(stdout);
  if (counts) {
    FILE *f = fopen(counts, "a");
    if (f) {
      for (int i = 0; i < skipped && i < TU_SKIPS_KEPT; i++) fprintf(f, "skip %s\n", k->what[i]);
      fprintf(f, "%s: %d passed, %d failed, %d skipped\n", name, passed, failed, skipped);
      fclose(f);
    }
    free(counts);
  }
  *tu_skips_slot() = NULL;
  munmap(k, sizeof *k);
  return failed == 0 && run > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
