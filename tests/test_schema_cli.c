/* SPDX-License-Identifier: MIT */
/* test_schema_cli.c: `vsim schema`, the JSON Schema of the scene format
 * generated from the key table (docs/cli.md, vsim schema).
 *
 * The committed copy docs/vsim-scene.schema.json is what `vsim schema`
 * prints (`make schema` refreshes it); every example scene names it on its
 * first line for editors (the yaml-language-server modeline) and validates
 * against it, and scenes with an unknown key, a wrong type, a value out of
 * range or a missing required key do not: checked with /usr/bin/python3
 * and Debian's python3-jsonschema and python3-yaml (tests/schema_validate.py),
 * skipped, saying so, without them. */
#include <dirent.h>

#include "runutil.h"

static const char *modeline = "# yaml-language-server: $schema=../docs/vsim-scene.schema.json\n";

/* The example scenes, sorted, as repository paths. */
static size_t configs(char ***out) {
  char *dir = cu_repo_path("configs");
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  char **v = calloc(256, sizeof *v);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) v[n++] = cu_strf("%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(v, n, sizeof *v, cu_cmp_str);
  free(dir);
  *out = v;
  return n;
}

START_TEST(schema_matches_committed_copy) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "schema", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(p.err, "");
  char *path = cu_repo_path("docs/vsim-scene.schema.json");
  char *copy = cu_slurp(path);
  ck_assert_msg(copy != NULL, "cannot read %s", path);
  ck_assert_msg(strcmp(p.out, copy) == 0,
                "docs/vsim-scene.schema.json differs from `vsim schema`: run make schema");
  /* the keys of the table, by a few of every scope */
  CU_EXPECT_IN(p.out, "\"$schema\": \"http://json-schema.org/draft-07/schema#\"");
  CU_EXPECT_IN(p.out, "\"iterations\": {");
  CU_EXPECT_IN(p.out, "\"cloth\": {");
  CU_EXPECT_IN(p.out, "\"plane\": {");
  CU_EXPECT_IN(p.out, "\"baumgarte\": {");
  CU_EXPECT_IN(p.out, "\"enum\": [\"verlet\", \"pbd\", \"xpbd\"]");
  free(copy);
  free(path);
  cu_free(&p);
  /* no operands */
  p = cu_vsim(d, "schema", "x", NULL);
  CU_EXPECT_CODE(p, 2);
  ck_assert_str_eq(p.out, "");
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(configs_name_the_schema) {
  char **v;
  size_t n = configs(&v);
  ck_assert_uint_ge(n, 10);
  for (size_t i = 0; i < n; i++) {
    char *text = cu_slurp(v[i]);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, modeline, strlen(modeline)) == 0,
                  "%s: the first line is not the schema modeline %s", v[i], modeline);
    free(text);
    free(v[i]);
  }
  free(v);
}
END_TEST

/* python3 tests/schema_validate.py SCHEMA FILES...: NULL when the modules
 * are missing (the caller skips). */
static cu_proc *validate(const char **files, size_t n) {
  static cu_proc p;
  char *script = cu_repo_path("tests/schema_validate.py");
  char *schema = cu_repo_path("docs/vsim-scene.schema.json");
  const char *argv[300] = {"/usr/bin/python3", script, schema};
  for (size_t i = 0; i < n && i < 290; i++) argv[3 + i] = files[i];
  char *d = tu_tmpdir();
  p = cu_run(d, argv);
  tu_rmtree(d);
  free(d);
  free(script);
  free(schema);
  if (p.code == 3 || p.code == 127 || strstr(p.out, "missing module")) {
    cu_free(&p);
    return NULL;
  }
  return &p;
}

START_TEST(configs_validate) {
  if (access("/usr/bin/python3", X_OK) != 0) TU_SKIP("no /usr/bin/python3");
  char **v;
  size_t n = configs(&v);
  const char *files[256];
  for (size_t i = 0; i < n; i++) files[i] = v[i];
  cu_proc *p = validate(files, n);
  if (!p) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    TU_SKIP("no python3-jsonschema or python3-yaml (apt-get install python3-jsonschema "
            "python3-yaml)");
  }
  ck_assert_msg(p->code == 0, "the example scenes do not validate:\n%s%s", p->out, p->err);
  for (size_t i = 0; i < n; i++) {
    char *ok = cu_strf("%s: ok\n", v[i]);
    CU_EXPECT_IN(p->out, ok);
    free(ok);
    free(v[i]);
  }
  free(v);
  cu_free(p);
}
END_TEST

/* What the loader refuses, the schema refuses (and both accept the rest). */
START_TEST(bad_scenes_do_not_validate) {
  if (access("/usr/bin/python3", X_OK) != 0) TU_SKIP("no /usr/bin/python3");
  struct {
    const char *yaml;
    const char *says;
  } cases[] = {
      {"solver: {iteratons: 3}\n", "solver: Additional properties are not allowed ('iteratons'"},
      {"solver: {iterations: 0}\n", "solver/iterations: 0 is less than the minimum of 1"},
      {"solver: {integrator: euler}\n", "solver/integrator: 'euler' is not one of"},
      {"time: {dt: fast}\n", "time/dt: 'fast' is not valid"},
      {"world: {gravity: [0, -9.81]}\n", "world/gravity: [0, -9.81] is too short"},
      {"bodies: [{rope: {from: [0, 0, 0], to: [1, 0, 0]}}]\n",
       "bodies/0/rope: 'segments' is a required property"},
      {"bodies: [{blob: {}}]\n", "bodies/0: Additional properties are not allowed ('blob'"},
      {"bodies: [{rigid: {shape: cube}}]\n", "bodies/0/rigid/shape: 'cube' is not one of"},
      {"output: {compression: 10}\n", "output/compression: 10 is greater than the maximum of 9"},
      {"colliders: []\n", "(top): Additional properties are not allowed ('colliders'"},
  };
  size_t n = sizeof cases / sizeof cases[0];
  char *d = tu_tmpdir();
  const char *files[16];
  char *paths[16];
  for (size_t i = 0; i < n; i++) {
    paths[i] = cu_strf("%s/bad%zu.yaml", d, i);
    cu_write(paths[i], cases[i].yaml);
    files[i] = paths[i];
    /* and the loader refuses each too */
    cu_proc q = cu_vsim(d, "validate", paths[i], NULL);
    ck_assert_msg(q.code == 2, "vsim validate accepted %s", cases[i].yaml);
    cu_free(&q);
  }
  /* dt as a fraction is valid to both */
  paths[n] = cu_strf("%s/good.yaml", d);
  cu_write(paths[n], "time: {dt: 1/120, frames: 3}\nbodies: [{rope: {from: [0, 0, 0], to: "
                     "[1, 0, 0], segments: 2, pin: [first], stretch: {compliance: 1e-6}}}]\n");
  files[n] = paths[n];
  cu_proc *p = validate(files, n + 1);
  if (!p) {
    for (size_t i = 0; i <= n; i++) free(paths[i]);
    tu_rmtree(d);
    free(d);
    TU_SKIP("no python3-jsonschema or python3-yaml (apt-get install python3-jsonschema "
            "python3-yaml)");
  }
  CU_EXPECT_CODE(*p, 1);
  for (size_t i = 0; i < n; i++) {
    char *want = cu_strf("%s: %s", paths[i], cases[i].says);
    ck_assert_msg(strstr(p->out, want), "expected\n  %s\nin\n%s", want, p->out);
    free(want);
  }
  char *ok = cu_strf("%s: ok\n", paths[n]);
  CU_EXPECT_IN(p->out, ok);
  free(ok);
  cu_proc q = cu_vsim(d, "validate", paths[n], NULL);
  CU_EXPECT_CODE(q, 0);
  cu_free(&q);
  cu_free(p);
  for (size_t i = 0; i <= n; i++) free(paths[i]);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("schema_cli");
  TCase *tc = tcase_create("schema_cli");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, schema_matches_committed_copy);
  tcase_add_test(tc, configs_name_the_schema);
  tcase_add_test(tc, configs_validate);
  tcase_add_test(tc, bad_scenes_do_not_validate);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(suite());
}
