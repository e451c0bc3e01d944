/* testutil.h: small helpers shared by the check test programs (header-only). */
#ifndef VSIM_TESTUTIL_H
#define VSIM_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Run a Suite and return an exit status (0 when every test passed). */
static inline int tu_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
