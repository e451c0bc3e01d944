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
 * $VSIM_TEST_COUNTS names, for the run's closing line. */
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

/* ---- skipping and running ------------------------------------------------ */

/* The skips of one run, in memory shared with the forked test processes
 * (check runs each test in a child of its own unless CK_FORK=no). */
#define TU_SKIPS_KEPT 32
typedef struct tu_skips {
  int n;                          /* checks skipped */
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
#define TU_SKIP(...)            \
  do {                          \
    tu_skip_note(__VA_ARGS__);  \
    return;                     \
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
    fprintf(stderr, "%s: CK_RUN_CASE=%s: no test case of that name (see tcase_create in tests/%s.c)\n",
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
