/* SPDX-License-Identifier: MIT */
/* test_cli.c: end-to-end tests of the vsim program.
 *
 * Each test spawns the built binary ($VSIM_BIN, set by `make test`) in a fresh
 * temporary directory with fork/exec, captures stdout, stderr and the exit
 * status, and checks them and the files left behind: every exit-2 path must
 * leave the directory as it was, and no path may leave a temporary file. */
#include "runutil.h"

/* ---- tests ---- */

START_TEST(version_and_help) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "--version", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "vsim " VSIM_VERSION);
  CU_EXPECT_IN(p.out, "libyaml");
  CU_EXPECT_IN(p.out, "HDF5");
  cu_free(&p);

  p = cu_vsim(d, "--help", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "Usage: vsim");
  CU_EXPECT_IN(p.out, "validate");
  CU_EXPECT_IN(p.out, "compare");
  cu_free(&p);

  static const char *const cmds[][2] = {
      {"run", "--summary"}, {"validate", "--set"}, {"compare", "--atol"}, {"info", "--json"},
      {"xdmf", "--output"}};
  for (size_t i = 0; i < 5; i++) {
    p = cu_vsim(d, cmds[i][0], "--help", NULL);
    CU_EXPECT_CODE(p, 0);
    CU_EXPECT_IN(p.out, "Usage: vsim");
    CU_EXPECT_IN(p.out, cmds[i][1]);
    cu_free(&p);
    p = cu_vsim(d, "help", cmds[i][0], NULL);
    CU_EXPECT_CODE(p, 0);
    CU_EXPECT_IN(p.out, cmds[i][1]);
    cu_free(&p);
  }
  p = cu_vsim(d, "run", "-h", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "--output");
  CU_EXPECT_IN(p.out, "--threads");
  CU_EXPECT_IN(p.out, "--no-progress");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(bad_usage) {
  char *d = tu_tmpdir();
  struct {
    const char *args[6];
    const char *says;
  } cases[] = {
      {{NULL}, "Usage"},
      {{"rnu", NULL}, "did you mean 'run'"},
      {{"--bogus", NULL}, "unknown option"},
      {{"run", "--bogus", NULL}, "unknown option '--bogus'"},
      {{"run", "--frame", "3", NULL}, "did you mean '--frames'"},
      {{"run", "-x", NULL}, "unknown option '-x'"},
      {{"run", "-o", NULL}, "needs a value"},
      {{"run", "--frames", "abc", NULL}, "--frames"},
      {{"run", "--frames=-1", NULL}, "--frames"},
      {{"run", "--threads", "x", NULL}, "--threads"},
      {{"run", "--summary", "xml", NULL}, "json"},
      {{"run", "--set", "novalue", NULL}, "KEY=VALUE"},
      {{"run", "--force=yes", NULL}, "takes no value"},
      {{"run", "a.yaml", "b.yaml", NULL}, "one scene"},
      {{"validate", NULL}, "which scene"},
      {{"info", NULL}, "which file"},
      {{"compare", "a.h5", NULL}, "two files"},
      {{"compare", "a.h5", "b.h5", "--atol", "-1", NULL}, "--atol"},
      {{"sweep", "s.yaml", NULL}, "cannot read sweep file 's.yaml'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cu_proc p = cu_vsim_argv(d, NULL, cases[i].args);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, cases[i].says);
    ck_assert_str_eq(p.out, "");
    cu_free(&p);
  }
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(default_scene_run) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--frames", "5", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(p.out, "");
  CU_EXPECT_IN(p.err, "out.h5"); /* the closing line names the file */
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  cu_expect_status(d, "out.h5", "complete");

  p = cu_vsim(d, "info", "out.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "complete");
  cu_free(&p);
  p = cu_vsim(d, "info", "--json", "out.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_int_eq(p.out[0], '{');
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(default_yaml_is_embedded_scene) {
  char *path = cu_repo_path("configs/default.yaml");
  char *text = cu_slurp(path);
  ck_assert_msg(text != NULL, "cannot read %s", path);
  /* after the editors' schema modeline, which the embedded scene does not
   * need (nothing beside it to point to) */
  const char *modeline = "# yaml-language-server: $schema=../docs/vsim-scene.schema.json\n";
  ck_assert_msg(strncmp(text, modeline, strlen(modeline)) == 0,
                "configs/default.yaml does not start with the schema modeline");
  ck_assert_msg(strcmp(text + strlen(modeline), vs_scene_default_text()) == 0,
                "configs/default.yaml differs from vs_scene_default_text()");
  free(text);
  free(path);
}
END_TEST

/* Every example scene validates and runs (a few frames: the sanitizer build
 * runs these too). */
START_TEST(configs_run) {
  char *dir = cu_repo_path("configs");
  DIR *cd = opendir(dir);
  ck_assert_ptr_nonnull(cd);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(cd)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
    char *scene = cu_strf("%s/%s", dir, e->d_name);
    char *d = tu_tmpdir();
    cu_proc p = cu_vsim(d, "validate", scene, NULL);
    CU_EXPECT_CODE(p, 0);
    CU_EXPECT_IN(p.out, "particles");
    cu_free(&p);
    /* under valgrind (VSIM_SLOW) a few frames show the same code paths */
    p = cu_vsim(d, "run", scene, "--frames", getenv("VSIM_SLOW") ? "3" : "20", "-o", "r.h5", "--quiet", NULL);
    CU_EXPECT_CODE(p, 0);
    ck_assert_msg(p.err[0] == '\0', "%s: --quiet printed: %s", e->d_name, p.err);
    cu_free(&p);
    CU_EXPECT_LISTING(d, "r.h5");
    cu_expect_status(d, "r.h5", "complete");
    tu_rmtree(d);
    free(d);
    free(scene);
    n++;
  }
  closedir(cd);
  ck_assert_int_ge(n, 6);
  free(dir);
}
END_TEST

START_TEST(validate_summary) {
  char *d = tu_tmpdir();
  char *scene = cu_repo_path("configs/rope_pendulum.yaml");
  cu_proc p = cu_vsim(d, "validate", scene, NULL);
  CU_EXPECT_CODE(p, 0);
  const char *words[] = {"name",      "particles", "constraints", "distance",
                         "colliders", "colors",    "integrator",  "relaxation",
                         "frames",    "dt",        "substeps",    "iterations"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) CU_EXPECT_IN(p.out, words[i]);
  CU_EXPECT_IN(p.out, "xpbd");
  /* every row of the kind tables has its place: a line per constraint kind,
   * a count per collider kind (mesh colliders were left out) */
  for (int k = 0; k < VS_KIND_COUNT; k++) {
    char *line = cu_strf("\n  %-10s ", vs_kind_name((vs_kind)k));
    CU_EXPECT_IN(p.out, line);
    free(line);
  }
  const char *colliders = strstr(p.out, "\ncolliders ");
  ck_assert_ptr_nonnull(colliders);
  char line[256];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(colliders + 1, "\n"), colliders + 1);
  for (int k = 0; k < VS_COLLIDER_KIND_COUNT; k++) {
    char *count = cu_strf("%s 0", vs_collider_kind_name((vs_collider_kind)k));
    CU_EXPECT_IN(line, count);
    free(count);
  }
  cu_free(&p);

  /* --set reaches the model; options may come before the scene */
  p = cu_vsim(d, "validate", "--set", "solver.iterations=17", "--set=solver.relaxation=jacobi", scene,
           NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "17");
  CU_EXPECT_IN(p.out, "jacobi");
  cu_free(&p);

  /* a scene through standard input */
  p = cu_vsim_argv(d, scene, (const char *const[]){"validate", "-", NULL});
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "<stdin>");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
  free(scene);
}
END_TEST

START_TEST(compare_runs) {
  char *d = tu_tmpdir();
  char *scene = cu_repo_path("configs/cloth_sphere.yaml");
  cu_proc p = cu_vsim(d, "run", scene, "--frames", "8", "-o", "a.h5", "--quiet", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  /* the other option forms, and the scene after the options */
  p = cu_vsim(d, "run", "--frames=8", "-ob.h5", "-q", scene, NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "run", scene, "--frames", "8", "--output=c.h5", "--quiet", "--set",
           "world.gravity=[0,-9.8,0]", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "a.h5 b.h5 c.h5");

  p = cu_vsim(d, "compare", "a.h5", "b.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  p = cu_vsim(d, "compare", "a.h5", "b.h5", "--json", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"equal\":true");
  cu_free(&p);

  p = cu_vsim(d, "compare", "c.h5", "a.h5", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "/particles/all/position/value");
  CU_EXPECT_IN(p.out, "max abs");
  CU_EXPECT_IN(p.out, "first at step ");
  cu_free(&p);
  p = cu_vsim(d, "compare", "--json", "c.h5", "a.h5", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "\"equal\":false");
  CU_EXPECT_IN(p.out, "\"differences\":[");
  CU_EXPECT_IN(p.out, "\"first_frame\":");
  cu_free(&p);
  /* a loose enough tolerance accepts the perturbation */
  p = cu_vsim(d, "compare", "c.h5", "a.h5", "--atol", "1", "--only", "/particles/all/position", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "a.h5 b.h5 c.h5");
  tu_rmtree(d);
  free(d);
  free(scene);
}
END_TEST

/* Results never depend on the thread count (docs/physics.md, determinism), through the program. */
START_TEST(threads_do_not_change_results) {
  char *d = tu_tmpdir();
  char *scene = cu_repo_path("configs/torn_cloth.yaml");
  cu_proc p = cu_vsim(d, "run", scene, "--frames", "10", "--set", "solver.relaxation=jacobi", "--threads",
                "1", "-o", "t1.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "run", scene, "--frames", "10", "--set", "solver.relaxation=jacobi", "--threads", "4",
           "-o", "t4.h5", "-q", "--summary", "json", NULL);
  CU_EXPECT_CODE(p, 0);
  /* an upper bound: the run may settle on fewer (cmd/tune.c, test_tune.c) */
  CU_EXPECT_IN(p.out, "\"threads\":4,\"threads_last\":");
  cu_free(&p);
  p = cu_vsim(d, "run", scene, "--frames", "10", "--set", "solver.relaxation=jacobi", "--threads", "0",
           "-o", "t0.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "t4.h5", "t1.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "t0.h5", "t1.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(d);
  free(scene);
}
END_TEST

START_TEST(summary_json) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--frames", "3", "--summary", "json", "--quiet", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_int_eq(p.out[0], '{');
  ck_assert_msg(p.out[strlen(p.out) - 2] == '}', "not one object: %s", p.out);
  CU_EXPECT_IN(p.out, "\"status\":\"complete\"");
  CU_EXPECT_IN(p.out, "\"frames\":3");
  CU_EXPECT_IN(p.out, "\"particles\":");
  CU_EXPECT_IN(p.out, "\"constraints\":");
  CU_EXPECT_IN(p.out, "\"colors\":");
  CU_EXPECT_IN(p.out, "\"final_constraint_error\":");
  CU_EXPECT_IN(p.out, "\"max_constraint_error\":");
  CU_EXPECT_IN(p.out, "\"wall_seconds\":");
  CU_EXPECT_IN(p.out, "\"output\":\"out.h5\"");
  ck_assert_str_eq(p.err, "");
  cu_free(&p);

  /* --progress forces the bar even without a terminal; --quiet wins over it */
  p = cu_vsim(d, "run", "--frames", "3", "-f", "--progress", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.err, "3/3");
  cu_free(&p);
  p = cu_vsim(d, "run", "--frames", "3", "-f", "--progress", "--quiet", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(p.err, "");
  cu_free(&p);
  p = cu_vsim(d, "run", "--frames", "3", "-f", NULL); /* stderr is a file: no bar */
  CU_EXPECT_CODE(p, 0);
  ck_assert_ptr_null(strchr(p.err, '\r'));
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A missing scene whose name is close to a .yaml/.yml beside it gets a
 * "did you mean", with the path written the way it was given. */
START_TEST(scene_typo_did_you_mean) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/cloth.yaml", d);
  cu_write(scene, "time: {frames: 1}\n");
  char *notes = cu_strf("%s/cloth.txt", d);
  cu_write(notes, "not a scene\n");
  cu_proc p = cu_vsim(d, "run", "cloth.ymal", NULL);
  CU_EXPECT_CODE(p, 2);
  ck_assert_str_eq(p.err,
                   "vsim: cloth.ymal: cannot read scene file 'cloth.ymal': No such file or "
                   "directory (did you mean 'cloth.yaml'?)\n");
  cu_free(&p);
  p = cu_vsim(d, "validate", "./clth.yml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "No such file or directory (did you mean './cloth.yaml'?)\n");
  cu_free(&p);
  /* nothing close: no guess (and cloth.txt is not a scene) */
  p = cu_vsim(d, "run", "rope.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  ck_assert_ptr_null(strstr(p.err, "did you mean"));
  cu_free(&p);
  p = cu_vsim(d, "run", "cloth.tx", NULL);
  CU_EXPECT_CODE(p, 2);
  ck_assert_ptr_null(strstr(p.err, "did you mean"));
  cu_free(&p);
  CU_EXPECT_LISTING(d, "cloth.txt cloth.yaml");
  free(scene);
  free(notes);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The README's example of an error, word for word: iterations -3 on line 13
 * of a copy of configs/default.yaml is reported at the value, column 15. */
START_TEST(readme_error_example) {
  char *d = tu_tmpdir();
  char *src = cu_repo_path("configs/default.yaml");
  char *text = cu_slurp(src);
  char *at = strstr(text, "\n  iterations: 10 ");
  ck_assert_ptr_nonnull(at);
  memcpy(at + strlen("\n  iterations: "), "-3", 2);
  int line = 2;
  for (const char *c = text; c < at; c++) line += *c == '\n';
  ck_assert_int_eq(line, 13);
  char *scene = cu_strf("%s/cloth.yaml", d);
  cu_write(scene, text);
  cu_proc p = cu_vsim(d, "run", "cloth.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  ck_assert_str_eq(p.err,
                   "vsim: cloth.yaml:13:15: solver.iterations: expected an integer >= 1, got -3\n");
  cu_free(&p);
  char *readme_path = cu_repo_path("README.md");
  char *readme = cu_slurp(readme_path);
  CU_EXPECT_IN(readme, "`vsim: cloth.yaml:13:15: solver.iterations: expected an integer >= 1, got -3`");
  free(readme);
  free(readme_path);
  CU_EXPECT_LISTING(d, "cloth.yaml");
  free(scene);
  free(text);
  free(src);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(existing_output) {
  char *d = tu_tmpdir();
  char *out = cu_strf("%s/out.h5", d);
  cu_write(out, "precious\n");
  cu_proc p = cu_vsim(d, "run", "--frames", "2", NULL);
  CU_EXPECT_CODE(p, 2);
  /* one line, with the way out in it */
  ck_assert_str_eq(p.err, "vsim: out.h5: exists; use -f/--force to overwrite it\n");
  cu_free(&p);
  char *text = cu_slurp(out);
  ck_assert_str_eq(text, "precious\n");
  free(text);
  CU_EXPECT_LISTING(d, "out.h5");

  p = cu_vsim(d, "run", "--frames", "2", "--force", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  cu_expect_status(d, "out.h5", "complete");
  free(out);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(unwritable_output) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--frames", "2", "-o", "/nonexistent/dir/out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "/nonexistent/dir/out.h5");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  /* a directory where the file should go */
  char *sub = cu_strf("%s/sub", d);
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  free(sub);
  p = cu_vsim(d, "run", "--frames", "2", "-o", "sub", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "sub");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "sub");
  /* the scene itself as the output */
  char *scene = cu_strf("%s/s.yaml", d);
  cu_write(scene, "time: {frames: 2}\n");
  p = cu_vsim(d, "run", "s.yaml", "-o", "s.yaml", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "s.yaml: is 's.yaml', an input of this command: refused");
  cu_free(&p);
  char *text = cu_slurp(scene);
  ck_assert_str_eq(text, "time: {frames: 2}\n");
  free(text);
  free(scene);
  CU_EXPECT_LISTING(d, "s.yaml sub");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The run never replaces a file it reads, even with --force (docs/cli.md,
 * Output files): the mesh a scene names (before: overwritten by the result
 * file), the scene through a hard link, and a scene named like the run's
 * own sidecar (x.xmf, before: overwritten by the .xmf). */
START_TEST(outputs_never_replace_inputs) {
  char *d = tu_tmpdir();
  char *obj = cu_strf("%s/tri.obj", d), *scene = cu_strf("%s/m.yaml", d);
  const char *obj_text = "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
  const char *yaml =
      "vsim: 1\n"
      "time: {dt: 0.01, frames: 3}\n"
      "world:\n"
      "  colliders:\n"
      "    - mesh: {file: tri.obj}\n"
      "bodies:\n"
      "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 3}\n";
  cu_write(obj, obj_text);
  cu_write(scene, yaml);
  cu_proc p = cu_vsim(d, "run", "m.yaml", "-o", "tri.obj", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "tri.obj: is 'tri.obj', an input of this command: refused");
  cu_free(&p);
  char *hard = cu_strf("%s/hard.h5", d);
  ck_assert_int_eq(link(scene, hard), 0);
  p = cu_vsim(d, "run", "m.yaml", "-o", "hard.h5", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "hard.h5: is 'm.yaml', an input of this command: refused");
  cu_free(&p);
  char *xmf = cu_strf("%s/x.xmf", d);
  cu_write(xmf, yaml);
  p = cu_vsim(d, "run", "x.xmf", "-o", "x.h5", "--set", "output.xdmf=true", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "x.xmf: is 'x.xmf', an input of this command: refused");
  cu_free(&p);
  char *t = cu_slurp(obj);
  ck_assert_str_eq(t, obj_text);
  free(t);
  t = cu_slurp(xmf);
  ck_assert_str_eq(t, yaml);
  free(t);
  t = cu_slurp(scene);
  ck_assert_str_eq(t, yaml);
  free(t);
  CU_EXPECT_LISTING(d, "hard.h5 m.yaml tri.obj x.xmf");
  free(obj);
  free(scene);
  free(hard);
  free(xmf);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A result file given as a second scene: the message says -o. */
START_TEST(second_operand_suggests_output) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "s.yaml", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "vsim run: one scene at a time (got 's.yaml' and 'out.h5'); the output is "
                      "given with -o: -o out.h5\n");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A path that starts with '-': "--" ends the options, a value is attached
 * (--output=--x.h5), and an option given where a value was expected
 * (-o --force: the value forgotten) is refused instead of writing a file
 * named --force. */
START_TEST(dash_paths_unambiguous) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/--odd.yaml", d);
  cu_write(scene,
           "name: odd\ntime: {dt: 0.01, frames: 2}\n"
           "bodies:\n  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 3}\n");
  cu_proc p = cu_vsim(d, "run", "--frames", "1", "-o", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "option '-o' needs a value (PATH), but the next argument is the option "
                      "'--force'; a value that starts with '-' goes after '=' (--output=--force)");
  cu_free(&p);
  p = cu_vsim(d, "validate", "--set", "--frames", "--odd.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "option '--set' needs a value");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "--odd.yaml");
  p = cu_vsim(d, "run", "--output=--x.h5", "-q", "--", "--odd.yaml", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "info", "--json", "--", "--x.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"odd\"");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "--odd.yaml --x.h5");
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A path with control bytes (a mesh file named with a terminal's escape
 * sequence, a scene named with a newline) is shown with those bytes as
 * \xNN in every message: it can neither drive the terminal nor forge a
 * line. */
START_TEST(messages_escape_control_bytes) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/esc.yaml", d);
  cu_write(scene,
           "vsim: 1\ntime: {dt: 0.01, frames: 3}\n"
           "world:\n  colliders:\n    - mesh: {file: \"\\e[31mred.obj\"}\n"
           "bodies:\n  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 3}\n");
  cu_proc p = cu_vsim(d, "run", "esc.yaml", "-o", "esc.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "cannot read mesh file '\\x1b[31mred.obj'");
  ck_assert_ptr_null(strchr(p.err, '\033'));
  cu_free(&p);
  p = cu_vsim(d, "run", "a\nvsim: wrote out.h5\033[2K.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "a\\x0avsim: wrote out.h5\\x1b[2K.yaml");
  ck_assert_ptr_null(strchr(p.err, '\033'));
  ck_assert_ptr_null(strstr(p.err, "\nvsim: wrote"));
  cu_free(&p);
  p = cu_vsim(d, "render", "in\033]0;x\a.h5", "-o", "x.png", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "in\\x1b]0;x\\x07.h5");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "esc.yaml");
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(missing_and_foreign_files) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "nosuch.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nosuch.yaml");
  cu_free(&p);
  p = cu_vsim(d, "validate", "nosuch.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nosuch.yaml");
  cu_free(&p);

  char *junk = cu_strf("%s/junk.h5", d);
  cu_write(junk, "this is not HDF5\n");
  p = cu_vsim(d, "info", "junk.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "junk.h5");
  cu_free(&p);
  p = cu_vsim(d, "info", "nosuch.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nosuch.h5");
  cu_free(&p);

  p = cu_vsim(d, "run", "--frames", "2", "-o", "good.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "good.h5", "junk.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "junk.h5");
  cu_free(&p);
  p = cu_vsim(d, "compare", "junk.h5", "good.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  cu_free(&p);
  p = cu_vsim(d, "compare", "good.h5", "nosuch.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nosuch.h5");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "good.h5 junk.h5");
  free(junk);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Every scene in tests/data/bad must be refused with exit 2, a message naming
 * file:line:col, and nothing written.  Line 1 says what is wrong; an optional
 * "# expect: TEXT" line gives a phrase the message must contain. */
START_TEST(bad_scenes) {
  char *dir = cu_repo_path("tests/data/bad");
  DIR *bd = opendir(dir);
  ck_assert_ptr_nonnull(bd);
  struct dirent *e;
  int n = 0;
  char *d = tu_tmpdir();
  while ((e = readdir(bd)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
    char *scene = cu_strf("%s/%s", dir, e->d_name);
    char *text = cu_slurp(scene);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(text[0] == '#', "%s: the first line must be a comment", e->d_name);
    char expect[256] = "";
    const char *x = strstr(text, "# expect: ");
    if (x) {
      x += strlen("# expect: ");
      size_t k = strcspn(x, "\n");
      ck_assert_uint_lt(k, sizeof expect);
      memcpy(expect, x, k);
      expect[k] = '\0';
    }
    const char *cmds[2] = {"run", "validate"};
    for (int c = 0; c < 2; c++) {
      cu_proc p = cu_vsim(d, cmds[c], scene, NULL);
      ck_assert_msg(p.code == 2, "%s %s: exit %d, expected 2\nstderr: %s", cmds[c], e->d_name,
                    p.code, p.err);
      ck_assert_msg(cu_has_location(p.err, scene), "%s: no file:line:col in: %s", e->d_name, p.err);
      ck_assert_msg(strncmp(p.err, "vsim: ", 6) == 0, "%s: message: %s", e->d_name, p.err);
      /* the phrase must be in the message, not in the file name */
      const char *msg = strstr(p.err, e->d_name);
      msg = msg ? msg + strlen(e->d_name) : p.err;
      if (expect[0])
        ck_assert_msg(strstr(msg, expect) != NULL, "%s: '%s' not in: %s", e->d_name, expect, p.err);
      ck_assert_str_eq(p.out, "");
      cu_free(&p);
      CU_EXPECT_LISTING(d, "");
    }
    free(text);
    free(scene);
    n++;
  }
  closedir(bd);
  ck_assert_int_ge(n, 11);
  tu_rmtree(d);
  free(d);
  free(dir);
}
END_TEST

/* Errors in --set values name the override instead of a file. */
START_TEST(bad_overrides) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--set", "solver.iteratons=3", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "iteratons");
  CU_EXPECT_IN(p.err, "did you mean");
  cu_free(&p);
  p = cu_vsim(d, "run", "--set", "solver.iterations=-3", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "iterations");
  cu_free(&p);
  p = cu_vsim(d, "run", "--set", "time.dt=.nan", NULL);
  CU_EXPECT_CODE(p, 2);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(scene_from_stdin) {
  char *d = tu_tmpdir();
  char *scene = cu_repo_path("configs/bouncing.yaml");
  cu_proc p = cu_vsim_argv(d, scene, (const char *const[]){"run", "-", "--frames", "3", "-q", NULL});
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  tu_rmtree(d);
  free(d);
  free(scene);
}
END_TEST

/* A state that overflows to infinity fails the run: exit 1, and the file
 * keeps the frames before it with status "failed". */
START_TEST(numeric_failure) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--set", "world.colliders=[]", "--set", "world.gravity=[0,-1e307,0]",
                "--frames", "400", "--summary", "json", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.out, "\"status\":\"failed\"");
  ck_assert_msg(strstr(p.err, "frame") != NULL, "no frame in: %s", p.err);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  cu_expect_status(d, "out.h5", "failed");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Start a long run, wait until it writes, send sig; it must stop after the
 * frame, exit 1 and leave a readable file that says "interrupted". */
static void interrupt_with(int sig) {
  char *d = tu_tmpdir();
  cu_child c = cu_vsim_spawn(
      d, NULL,
      (const char *const[]){"run", "--frames", "10000000", "--set", "output.every=50", "--set",
                            "output.xdmf=true", NULL});
  int started = 0;
  for (int i = 0; i < 600 && !started; i++) {
    char *ls = cu_listing(d);
    started = ls[0] != '\0';
    free(ls);
    if (!started) cu_sleep_ms(20);
  }
  ck_assert_msg(started, "the run did not start writing");
  cu_sleep_ms(300);
  ck_assert_int_eq(kill(c.pid, sig), 0);
  cu_proc p = cu_wait(&c);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "interrupted");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5 out.xmf");
  cu_expect_status(d, "out.h5", "interrupted");
  /* the sidecar of an interrupted run names the final file */
  char *xp = cu_strf("%s/out.xmf", d);
  char *xmf = cu_slurp(xp);
  ck_assert_ptr_nonnull(xmf);
  CU_EXPECT_IN(xmf, "Format=\"HDF\">out.h5:/particles/all/position/value</DataItem>");
  ck_assert_ptr_null(strstr(xmf, ".tmp"));
  free(xmf);
  free(xp);
  tu_rmtree(d);
  free(d);
}

START_TEST(sigint_interrupts) {
  interrupt_with(SIGINT);
}
END_TEST

START_TEST(sigterm_interrupts) {
  interrupt_with(SIGTERM);
}
END_TEST

/* A second signal does not wait for the frame: the program dies of it and
 * removes its temporary file.  The frames here take seconds, and the signals
 * come once the bar shows that frame 0 is written, and go on until the
 * program has ended (two may arrive as one). */
START_TEST(second_signal_kills) {
  char *d = tu_tmpdir();
  cu_child c = cu_vsim_spawn(d, NULL,
                       (const char *const[]){"run", "--frames", "1000", "--progress", "--set",
                                             "bodies.cloth.resolution=[500,500]", NULL});
  int started = 0;
  for (int i = 0; i < 3000 && !started; i++) {
    char *err = cu_slurp(c.err_path);
    started = err && strstr(err, "] 0/1000") != NULL;
    free(err);
    if (!started) cu_sleep_ms(20);
  }
  ck_assert_msg(started, "the run did not start");
  cu_sleep_ms(100);
  ck_assert_int_eq(kill(c.pid, SIGINT), 0);
  cu_proc p = cu_wait_signalling(&c, SIGINT, 100);
  CU_EXPECT_CODE(p, 128 + SIGINT);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Interrupt a run, resume it, and get bitwise the datasets of one
 * uninterrupted run (docs/cli.md, resume). */
START_TEST(interrupt_then_resume) {
  char *d = tu_tmpdir();
  cu_child c = cu_vsim_spawn(
      d, NULL,
      (const char *const[]){"run", "--frames", "800", "--set", "bodies.cloth.resolution=[16,16]",
                            "--set", "output.every=7", "--progress", "-o", "part.h5", NULL});
  int started = 0;
  for (int i = 0; i < 3000 && !started; i++) {
    char *err = cu_slurp(c.err_path);
    started = err && strstr(err, "/800") != NULL;
    free(err);
    if (!started) cu_sleep_ms(5);
  }
  ck_assert_msg(started, "the run did not start");
  ck_assert_int_eq(kill(c.pid, SIGINT), 0);
  cu_proc p = cu_wait(&c);
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  cu_expect_status(d, "part.h5", "interrupted");

  p = cu_vsim(d, "run", "--resume", "part.h5", "--summary", "json", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"frames\":800");
  CU_EXPECT_IN(p.err, "resumed part.h5");
  cu_free(&p);
  cu_expect_status(d, "part.h5", "complete");
  p = cu_vsim(d, "run", "--frames", "800", "--set", "bodies.cloth.resolution=[16,16]", "--set",
           "output.every=7", "-o", "whole.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "part.h5", "whole.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);

  /* and longer: a finished run continues to a new --frames */
  p = cu_vsim(d, "run", "--resume", "part.h5", "--frames", "810", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "run", "--frames", "810", "--set", "bodies.cloth.resolution=[16,16]", "--set",
           "output.every=7", "-o", "whole.h5", "-q", "-f", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "part.h5", "whole.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);

  /* what --resume refuses */
  const char *const bad[][6] = {
      {"run", "--resume", "part.h5", "--frames", "5", NULL}, /* would go backwards */
      {"run", "--resume", "part.h5", "--set", "solver.iterations=3", NULL},
      {"run", "--resume", "part.h5", "-o", "other.h5", NULL},
      {"run", "--resume", "part.h5", "scene.yaml", NULL},
      {"run", "--resume", "nosuch.h5", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    p = cu_vsim_argv(d, NULL, bad[i]);
    CU_EXPECT_CODE(p, 2);
    cu_free(&p);
  }
  CU_EXPECT_LISTING(d, "part.h5 whole.h5");
  p = cu_vsim(d, "compare", "part.h5", "whole.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, version_and_help);
  tcase_add_test(tc, bad_usage);
  tcase_add_test(tc, default_scene_run);
  tcase_add_test(tc, default_yaml_is_embedded_scene);
  tcase_add_test(tc, configs_run);
  tcase_add_test(tc, validate_summary);
  tcase_add_test(tc, compare_runs);
  tcase_add_test(tc, threads_do_not_change_results);
  tcase_add_test(tc, scene_typo_did_you_mean);
  tcase_add_test(tc, readme_error_example);
  tcase_add_test(tc, summary_json);
  tcase_add_test(tc, existing_output);
  tcase_add_test(tc, unwritable_output);
  tcase_add_test(tc, outputs_never_replace_inputs);
  tcase_add_test(tc, dash_paths_unambiguous);
  tcase_add_test(tc, second_operand_suggests_output);
  tcase_add_test(tc, messages_escape_control_bytes);
  tcase_add_test(tc, missing_and_foreign_files);
  tcase_add_test(tc, bad_scenes);
  tcase_add_test(tc, bad_overrides);
  tcase_add_test(tc, scene_from_stdin);
  tcase_add_test(tc, numeric_failure);
  tcase_add_test(tc, sigint_interrupts);
  tcase_add_test(tc, sigterm_interrupts);
  tcase_add_test(tc, second_signal_kills);
  tcase_add_test(tc, interrupt_then_resume);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(cli_suite());
}
