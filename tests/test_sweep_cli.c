/* SPDX-License-Identifier: MIT */
/* test_sweep_cli.c: `vsim sweep` end to end (docs/cli.md, vsim sweep).
 *
 * The central promise: every way of running a sweep (-j 1, -j 2, -j 0,
 * --point K one by one, mpirun) writes the same point files, and each is the
 * file `vsim run SCENE --set ...` writes by hand.  Then: failed points are
 * recorded and the others still run, --list, --collect, signals, the
 * default output directory, and bad input (exit 2, nothing run).  Hostile
 * input: SIGHUP and a closed stderr (SIGPIPE) interrupt the sweep, which
 * still writes its summary; --collect refuses a FIFO and rows vsim did not
 * write; a scene named like an option is the scene run; an output
 * directory named "." or ".." after the sweep file, and an output that is
 * the sweep file itself, are refused.
 *
 * The MPI test needs a `make MPI=1` build: VSIM_MPI_BIN=build/mpi/vsim
 * (.ci/run sets it); without it the test is skipped, saying why. */
#include <signal.h>
#include <time.h>

#include <sys/stat.h>

#include "runutil.h"

static const char *scene_yaml =
    "name: sweep-rope\n"
    "time: {dt: 0.01, frames: 12}\n"
    "bodies:\n"
    "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 8, pin: [first]}\n";

/* 2 x 2 x 2 points; the scene path is relative to the sweep file */
static const char *sweep_yaml =
    "scene: ../scene.yaml\n"
    "frames: 10\n"
    "parameters:\n"
    "  solver.iterations: [1, 4]\n"
    "  solver.relaxation: [gauss-seidel, jacobi]\n"
    "  world.gravity: [[0, -9.81, 0], [0, -1.62, 0]]\n";

/* A directory with scene.yaml and sweeps/s.yaml. */
static char *setup(const char *sweep) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/scene.yaml", d);
  cu_write(p, scene_yaml);
  free(p);
  p = cu_strf("%s/sweeps", d);
  ck_assert_int_eq(mkdir(p, 0777), 0);
  free(p);
  p = cu_strf("%s/sweeps/s.yaml", d);
  cu_write(p, sweep);
  free(p);
  return d;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Line k (0-based) of text, as a new string; NULL past the end. */
static char *line_of(const char *text, size_t k) {
  const char *p = text;
  for (size_t i = 0; i < k; i++) {
    p = strchr(p, '\n');
    if (!p) return NULL;
    p++;
  }
  if (!*p) return NULL;
  size_t n = strcspn(p, "\n");
  return strndup(p, n);
}

static size_t count_lines(const char *text) {
  size_t n = 0;
  for (const char *p = text; *p; p++) n += *p == '\n';
  return n;
}

/* A summary row without its wall_seconds field (the next to last), which
 * differs from run to run. */
static char *without_wall(const char *row) {
  const char *last = strrchr(row, ',');
  ck_assert_ptr_nonnull(last);
  const char *prev = last - 1;
  while (prev > row && *prev != ',') prev--;
  return cu_strf("%.*s%s", (int)(prev - row), row, last);
}

static void expect_summary_rows_equal(const char *d, const char *a, const char *b) {
  char *pa = cu_strf("%s/%s", d, a), *pb = cu_strf("%s/%s", d, b);
  char *ta = cu_slurp(pa), *tb = cu_slurp(pb);
  ck_assert_msg(ta && tb, "cannot read %s or %s", pa, pb);
  ck_assert_uint_eq(count_lines(ta), count_lines(tb));
  for (size_t k = 0; k < count_lines(ta); k++) {
    char *la = line_of(ta, k), *lb = line_of(tb, k);
    char *wa = k ? without_wall(la) : strdup(la), *wb = k ? without_wall(lb) : strdup(lb);
    ck_assert_msg(strcmp(wa, wb) == 0, "%s and %s differ in line %zu:\n%s\n%s", a, b, k, la, lb);
    free(la);
    free(lb);
    free(wa);
    free(wb);
  }
  free(ta);
  free(tb);
  free(pa);
  free(pb);
}

/* each point is a vsim run: its .h5 (no .xmf sidecar unless asked for) */
static const char *const point_files =
    "point-0000.h5 point-0001.h5 point-0002.h5 point-0003.h5 point-0004.h5 point-0005.h5 "
    "point-0006.h5 point-0007.h5";

/* Every way gives the same files, and each is the matching `vsim run`. */
START_TEST(every_way_same_files) {
  char *d = setup(sweep_yaml);
  cu_proc p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "j1", "-j", "1", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.err, "8 of 8 points complete");
  ck_assert_str_eq(p.out, "");
  cu_free(&p);
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "j2", "-j", "2", "--quiet", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(p.err, "");
  cu_free(&p);
  p = cu_vsim(d, "sweep", "--jobs=0", "-q", "sweeps/s.yaml", "--output=j0", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  for (int k = 0; k < 8; k++) {
    char kk[16];
    snprintf(kk, sizeof kk, "%d", k);
    p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "pt", "--point", kk, "-q", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  char *want = cu_strf("%s summary.csv", point_files);
  char *dir = cu_strf("%s/j1", d);
  CU_EXPECT_LISTING(dir, want);
  free(dir);
  free(want);
  dir = cu_strf("%s/pt", d);
  CU_EXPECT_LISTING(dir,
                    "point-0000.csv point-0000.h5 point-0001.csv point-0001.h5 point-0002.csv "
                    "point-0002.h5 point-0003.csv point-0003.h5 point-0004.csv point-0004.h5 "
                    "point-0005.csv point-0005.h5 point-0006.csv point-0006.h5 point-0007.csv "
                    "point-0007.h5");
  free(dir);

  /* the points as --list gives them, run by hand */
  cu_proc list = cu_vsim(d, "sweep", "sweeps/s.yaml", "--list", NULL);
  CU_EXPECT_CODE(list, 0);
  ck_assert_uint_eq(count_lines(list.out), 8);
  for (size_t k = 0; k < 8; k++) {
    char *line = line_of(list.out, k);
    char *sets[3];
    char *save = NULL, *tok = strtok_r(line, "\t", &save);
    ck_assert_uint_eq(strtoul(tok, NULL, 10), k);
    for (int i = 0; i < 3; i++) {
      sets[i] = strtok_r(NULL, "\t", &save);
      ck_assert_ptr_nonnull(sets[i]);
    }
    char *out = cu_strf("run-%zu.h5", k);
    p = cu_vsim(d, "run", "scene.yaml", "--set", sets[0], "--set", sets[1], "--set", sets[2],
                "--frames", "10", "-o", out, "-q", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    char *f[4];
    for (int w = 0; w < 4; w++)
      f[w] = cu_strf("%s/point-%04zu.h5", (const char *[]){"j1", "j2", "j0", "pt"}[w], k);
    cu_expect_same(d, f[0], out);
    for (int w = 1; w < 4; w++) cu_expect_same(d, f[w], f[0]);
    for (int w = 0; w < 4; w++) free(f[w]);
    free(out);
    free(line);
  }
  cu_free(&list);

  /* summary.csv: one row per point in order, vectors quoted */
  char *path = cu_strf("%s/j1/summary.csv", d);
  char *csv = cu_slurp(path);
  ck_assert_ptr_nonnull(csv);
  ck_assert_uint_eq(count_lines(csv), 9);
  char *head = line_of(csv, 0);
  ck_assert_str_eq(head,
                   "point,solver.iterations,solver.relaxation,world.gravity,status,"
                   "final_constraint_error,wall_seconds,file");
  free(head);
  for (size_t k = 0; k < 8; k++) {
    char *row = line_of(csv, k + 1);
    char *start = cu_strf("%zu,%s,%s,\"[0,%s,0]\",complete,", k, k < 4 ? "1" : "4",
                          (k / 2) % 2 ? "jacobi" : "gauss-seidel", k % 2 ? "-1.62" : "-9.81");
    ck_assert_msg(strncmp(row, start, strlen(start)) == 0, "row %zu: '%s', expected '%s...'", k,
                  row, start);
    char *end = cu_strf(",point-%04zu.h5", k);
    ck_assert_str_eq(row + strlen(row) - strlen(end), end);
    free(end);
    free(start);
    free(row);
  }
  free(csv);
  free(path);
  expect_summary_rows_equal(d, "j1/summary.csv", "j2/summary.csv");

  /* the --point runs' rows, collected, make the same summary */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "pt", "--collect", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.err, "8 complete");
  cu_free(&p);
  expect_summary_rows_equal(d, "j1/summary.csv", "pt/summary.csv");
  /* nothing to collect in a -j run's directory: its summary stays */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "j1", "--collect", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "j1 holds no point-NNNN.csv of this sweep");
  cu_free(&p);
  expect_summary_rows_equal(d, "j1/summary.csv", "j2/summary.csv");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Under mpirun the ranks share the points and rank 0 writes the summary;
 * the files are those of -j 1. */
START_TEST(mpi_same_files) {
  const char *mpi = getenv("VSIM_MPI_BIN");
  if (!mpi || !*mpi)
    TU_SKIP("VSIM_MPI_BIN is not set (make MPI=1, then VSIM_MPI_BIN=build/mpi/vsim)");
  ck_assert_msg(access(mpi, X_OK) == 0, "VSIM_MPI_BIN=%s is not a program", mpi);
  char *d = setup(sweep_yaml);
  const char *args[16];
  size_t n = 0;
  args[n++] = "mpirun";
  if (geteuid() == 0) args[n++] = "--allow-run-as-root";
  args[n++] = "--oversubscribe";
  args[n++] = "-np";
  args[n++] = "2";
  args[n++] = mpi;
  args[n++] = "sweep";
  args[n++] = "sweeps/s.yaml";
  args[n++] = "-o";
  args[n++] = "mpi";
  args[n] = NULL;
  cu_proc p = cu_run(d, args);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.err, "8 of 8 points complete");
  cu_free(&p);
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "j1", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *want = cu_strf("%s summary.csv", point_files);
  char *dir = cu_strf("%s/mpi", d);
  CU_EXPECT_LISTING(dir, want);
  free(dir);
  free(want);
  for (int k = 0; k < 8; k++) {
    char *a = cu_strf("mpi/point-%04d.h5", k), *b = cu_strf("j1/point-%04d.h5", k);
    cu_expect_same(d, a, b);
    free(a);
    free(b);
  }
  expect_summary_rows_equal(d, "j1/summary.csv", "mpi/summary.csv");

  /* the build without MPI refuses to run as several ranks */
  args[n - 5] = cu_vsim_bin();
  args[n - 1] = "nompi";
  p = cu_run(d, args);
  ck_assert_int_ne(p.code, 0);
  CU_EXPECT_IN(p.err, "built without MPI");
  cu_free(&p);
  dir = cu_strf("%s/nompi", d);
  CU_EXPECT_LISTING(dir, "(none)");
  free(dir);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A point that fails is recorded and the others still run: exit 1. */
START_TEST(failed_points_recorded) {
  char *d = setup(
      "scene: ../scene.yaml\n"
      "mode: zip\n"
      "parameters:\n"
      "  solver.iterations: [2, 0, 3, 1]\n"
      "  world.gravity: [[0, -9.81, 0], [0, -9.81, 0], [0, -1e9, 0], [0, -1, 0]]\n");
  cu_proc p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "out", "-j", "2", NULL);
  CU_EXPECT_CODE(p, 1);
  /* an invalid value (exit 2 of the run, no file) and a run-away state
   * (exit 1, a file with status "failed") */
  CU_EXPECT_IN(p.err, "[point 1] vsim: --set solver.iterations=0");
  CU_EXPECT_IN(p.err, "point 1 failed (exit 2)");
  CU_EXPECT_IN(p.err, "[point 2] vsim:");
  CU_EXPECT_IN(p.err, "point 2 failed (exit 1)");
  CU_EXPECT_IN(p.err, "2 of 4 points complete");
  cu_free(&p);
  char *dir = cu_strf("%s/out", d);
  CU_EXPECT_LISTING(dir, "point-0000.h5 point-0002.h5 point-0003.h5 summary.csv");
  free(dir);
  char *path = cu_strf("%s/out/summary.csv", d);
  char *csv = cu_slurp(path);
  ck_assert_ptr_nonnull(csv);
  char *row = line_of(csv, 1);
  CU_EXPECT_IN(row, "0,2,\"[0,-9.81,0]\",complete,");
  free(row);
  row = line_of(csv, 2);
  ck_assert_msg(strncmp(row, "1,0,\"[0,-9.81,0]\",failed,,", 26) == 0, "row: %s", row);
  ck_assert_int_eq(row[strlen(row) - 1], ','); /* no file */
  free(row);
  row = line_of(csv, 3);
  CU_EXPECT_IN(row, "2,3,\"[0,-1e9,0]\",failed,");
  CU_EXPECT_IN(row, ",point-0002.h5");
  free(row);
  row = line_of(csv, 4);
  CU_EXPECT_IN(row, "3,1,\"[0,-1,0]\",complete,");
  free(row);
  free(csv);
  free(path);
  p = cu_vsim(d, "info", "--json", "out/point-0002.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"status\": \"failed\"");
  cu_free(&p);

  /* --point on the failed one: exit 1 and its row */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "one", "--point", "2", "-q", NULL);
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  dir = cu_strf("%s/one", d);
  CU_EXPECT_LISTING(dir, "point-0002.csv point-0002.h5");
  free(dir);
  /* --collect counts the points that never ran as missing */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "one", "--collect", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "4 points, 0 complete, 1 not complete, 3 missing");
  cu_free(&p);
  path = cu_strf("%s/one/summary.csv", d);
  csv = cu_slurp(path);
  ck_assert_ptr_nonnull(csv);
  row = line_of(csv, 1);
  ck_assert_str_eq(row, "0,2,\"[0,-9.81,0]\",missing,,,");
  free(row);
  free(csv);
  free(path);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(list_points) {
  char *d = setup(sweep_yaml);
  cu_proc p = cu_vsim(d, "sweep", "sweeps/s.yaml", "--list", NULL);
  CU_EXPECT_CODE(p, 0);
  ck_assert_str_eq(
      p.out,
      "0\tsolver.iterations=1\tsolver.relaxation=gauss-seidel\tworld.gravity=[0,-9.81,0]\n"
      "1\tsolver.iterations=1\tsolver.relaxation=gauss-seidel\tworld.gravity=[0,-1.62,0]\n"
      "2\tsolver.iterations=1\tsolver.relaxation=jacobi\tworld.gravity=[0,-9.81,0]\n"
      "3\tsolver.iterations=1\tsolver.relaxation=jacobi\tworld.gravity=[0,-1.62,0]\n"
      "4\tsolver.iterations=4\tsolver.relaxation=gauss-seidel\tworld.gravity=[0,-9.81,0]\n"
      "5\tsolver.iterations=4\tsolver.relaxation=gauss-seidel\tworld.gravity=[0,-1.62,0]\n"
      "6\tsolver.iterations=4\tsolver.relaxation=jacobi\tworld.gravity=[0,-9.81,0]\n"
      "7\tsolver.iterations=4\tsolver.relaxation=jacobi\tworld.gravity=[0,-1.62,0]\n");
  ck_assert_str_eq(p.err, "");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "scene.yaml sweeps"); /* --list writes nothing */
  tu_rmtree(d);
  free(d);
}
END_TEST

/* -o defaults to the sweep file's name, in the current directory; existing
 * point files need --force. */
START_TEST(output_directory) {
  char *d = setup(sweep_yaml);
  cu_proc p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-j", "2", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "s scene.yaml sweeps");
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-j", "2", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "s/point-0000.h5: exists (and 8 more); use -f/--force");
  cu_free(&p);
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "--point", "3", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "s/point-0003.h5: exists; use -f/--force");
  cu_free(&p);
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-j", "2", "-q", "--force", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *want = cu_strf("%s summary.csv", point_files);
  char *dir = cu_strf("%s/s", d);
  CU_EXPECT_LISTING(dir, want);
  free(dir);
  free(want);
  /* a file in the way of the directory */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "scene.yaml", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "scene.yaml: cannot create the output directory");
  cu_free(&p);
  /* nested directories are created */
  p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "a/b/c", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Bad input: exit 2, a message with the file (and line:col), nothing run. */
START_TEST(bad_input) {
  char *d = setup(sweep_yaml);
  struct {
    const char *args[8];
    const char *says;
  } cases[] = {
      {{"sweep", NULL}, "which sweep file"},
      {{"sweep", "sweeps/s.yaml", "sweeps/s.yaml", NULL}, "one sweep file"},
      {{"sweep", "nosuch.yaml", NULL}, "nosuch.yaml"},
      {{"sweep", "sweeps", NULL}, "directory"},
      {{"sweep", "sweeps/s.yaml", "-j", "x", NULL}, "--jobs"},
      {{"sweep", "sweeps/s.yaml", "--point", "-1", NULL}, "--point"},
      {{"sweep", "sweeps/s.yaml", "--point", "", NULL}, "--point"},
      {{"sweep", "sweeps/s.yaml", "--point", "8", NULL},
       "--point 8: sweeps/s.yaml has 8 points (0 to 7)"},
      {{"sweep", "sweeps/s.yaml", "--list", "--point", "1", NULL}, "one at a time"},
      {{"sweep", "sweeps/s.yaml", "--jobz", "2", NULL}, "did you mean '--jobs'"},
      {{"sweep", "sweeps/s.yaml", "-o", "", NULL}, "empty path"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[10] = {cu_vsim_bin()};
    for (size_t j = 0; cases[i].args[j]; j++) argv[j + 1] = cases[i].args[j];
    cu_proc p = cu_run(d, argv);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, cases[i].says);
    ck_assert_str_eq(p.out, "");
    cu_free(&p);
  }

  /* bad sweep files, and a point 0 that cannot run */
  struct {
    const char *yaml;
    const char *says;
  } files[] = {
      {"scene: ../scene.yaml\nparameters: {solver.iterations: [1, 2}\n",
       "bad.yaml:2:38: invalid YAML"},
      {"scene: ../scene.yaml\nmode: zip\nparameters:\n  a: [1, 2]\n  b: [1]\n",
       "bad.yaml:5:3: b: 1 values, but a has 2"},
      {"scene: ../nosuch.yaml\nparameters: {solver.iterations: [1]}\n",
       "bad.yaml:1:8: scene: cannot read scene file '"},
      {"scene: ../scene.yaml\nparameters:\n  solver.iterations: [0, 1]\n",
       "bad.yaml:3:23: solver.iterations: expected an integer >= 1, got 0 (point 0)"},
      {"scene: ../scene.yaml\nparameters:\n  solver.iteratons: [1]\n",
       "bad.yaml:3:3: solver: unknown key 'iteratons', did you mean 'iterations'? (point 0)"},
      {"scene: ../scene.yaml\nparameters:\n  bodies.r.pin: [[99]]\n",
       "point 0 (bodies.r.pin=[99]) is invalid; nothing was run"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char *path = cu_strf("%s/sweeps/bad.yaml", d);
    cu_write(path, files[i].yaml);
    free(path);
    cu_proc p = cu_vsim(d, "sweep", "sweeps/bad.yaml", "-o", "out", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, files[i].says);
    ck_assert_str_eq(p.out, "");
    cu_free(&p);
    CU_EXPECT_LISTING(d, "scene.yaml sweeps");
  }
  tu_rmtree(d);
  free(d);
}
END_TEST

/* SIGTERM: the running points finish their frame as "interrupted", the
 * others are "skipped", the summary is written, exit 1, no temporary files. */
START_TEST(interrupted_sweep) {
  char *d = setup(
      "scene: ../scene.yaml\n"
      "frames: 100000000\n"
      "parameters:\n"
      "  solver.iterations: [1, 2, 3, 4]\n");
  cu_child c = cu_vsim_start(d, "sweep", "sweeps/s.yaml", "-o", "out", "-j", "2", NULL);
  char *dir = cu_strf("%s/out", d);
  int started = 0;
  for (int i = 0; i < 1000 && !started; i++) {
    char *ls = cu_listing(dir);
    started = strstr(ls, ".point-0000.h5.tmp") && strstr(ls, ".point-0001.h5.tmp");
    free(ls);
    if (!started) sleep_ms(10);
  }
  ck_assert_msg(started, "the points did not start");
  sleep_ms(200);
  ck_assert_int_eq(kill(c.pid, SIGTERM), 0);
  cu_proc p = cu_wait(&c);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "(interrupted)");
  cu_free(&p);
  CU_EXPECT_LISTING(dir, "point-0000.h5 point-0001.h5 summary.csv");
  char *path = cu_strf("%s/summary.csv", dir);
  char *csv = cu_slurp(path);
  for (size_t k = 0; k < 4; k++) {
    char *row = line_of(csv, k + 1);
    CU_EXPECT_IN(row, k < 2 ? ",interrupted," : ",skipped,,,");
    free(row);
  }
  free(csv);
  free(path);
  p = cu_vsim(d, "info", "--json", "out/point-0001.h5", NULL);
  CU_EXPECT_IN(p.out, "\"status\": \"interrupted\"");
  cu_free(&p);
  free(dir);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* kill -9 of the sweep (README.md, Robustness: Sweeps): its points get
 * SIGTERM from the kernel (PR_SET_PDEATHSIG), finish their frame as
 * "interrupted" and stop; no temporary file is left and nothing is written
 * after. */
START_TEST(killed_sweep_children_stop) {
  char *d = setup(
      "scene: ../scene.yaml\n"
      "frames: 100000000\n"
      "parameters:\n"
      "  solver.iterations: [1, 2, 3, 4]\n");
  cu_child c = cu_vsim_start(d, "sweep", "sweeps/s.yaml", "-o", "out", "-j", "2", NULL);
  char *dir = cu_strf("%s/out", d);
  int started = 0;
  for (int i = 0; i < 1000 && !started; i++) {
    char *ls = cu_listing(dir);
    started = strstr(ls, ".point-0000.h5.tmp") && strstr(ls, ".point-0001.h5.tmp");
    free(ls);
    if (!started) sleep_ms(10);
  }
  ck_assert_msg(started, "the points did not start");
  sleep_ms(200);
  ck_assert_int_eq(kill(c.pid, SIGKILL), 0);
  cu_proc p = cu_wait(&c);
  ck_assert_int_eq(p.code, 128 + SIGKILL);
  cu_free(&p);
  /* the points end by themselves within seconds */
  const char *want = "point-0000.h5 point-0001.h5";
  char *ls = NULL;
  for (int i = 0; i < 3000; i++) {
    free(ls);
    ls = cu_listing(dir);
    if (strcmp(ls, want) == 0) break;
    sleep_ms(10);
  }
  ck_assert_str_eq(ls, want);
  free(ls);
  struct stat a0, a1;
  char *f0 = cu_strf("%s/point-0000.h5", dir);
  ck_assert_int_eq(stat(f0, &a0), 0);
  sleep_ms(500);
  ck_assert_int_eq(stat(f0, &a1), 0);
  ck_assert_int_eq(a0.st_size, a1.st_size);
  ck_assert_int_eq(a0.st_mtime, a1.st_mtime);
  CU_EXPECT_LISTING(dir, "point-0000.h5 point-0001.h5");
  free(f0);
  p = cu_vsim(d, "info", "--json", "out/point-0001.h5", NULL);
  CU_EXPECT_IN(p.out, "\"status\": \"interrupted\"");
  cu_free(&p);
  free(dir);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* In the child: stderr is a pipe nobody reads any more. */
static void closed_stderr(void *arg) {
  (void)arg;
  int fds[2];
  if (pipe(fds) != 0 || dup2(fds[1], 2) < 0) _exit(126);
  close(fds[0]);
  close(fds[1]);
}

/* Wait for c at most `seconds`; a sweep still running then is killed and
 * the test fails (a hang). */
static cu_proc wait_at_most(cu_child *c, double seconds, const char *what) {
  int hung = 1;
  for (int i = 0; i < (int)(seconds * 100); i++) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == c->pid) {
      hung = 0;
      break;
    }
    sleep_ms(10);
  }
  if (hung) kill(c->pid, SIGKILL);
  cu_proc p = cu_wait(c);
  ck_assert_msg(!hung, "%s: still running after %g s (hung)\n%s", what, seconds, p.err);
  return p;
}

/* SIGHUP (a closed terminal) and SIGPIPE (`vsim sweep ... 2>&1 | head`
 * once head is done) killed the sweep: no summary.csv, the other points
 * dropped.  Now they interrupt it like SIGTERM: the running points end as
 * "interrupted", the summary of what finished is written, exit 1. */
START_TEST(hangup_and_closed_pipe_interrupt_the_sweep) {
  char *d = setup(
      "scene: ../scene.yaml\n"
      "frames: 100000000\n"
      "parameters:\n"
      "  solver.iterations: [1, 2, 3, 4]\n");
  cu_child c = cu_vsim_start(d, "sweep", "sweeps/s.yaml", "-o", "out", "-j", "2", NULL);
  char *dir = cu_strf("%s/out", d);
  int started = 0;
  for (int i = 0; i < 1000 && !started; i++) {
    char *ls = cu_listing(dir);
    started = strstr(ls, ".point-0000.h5.tmp") && strstr(ls, ".point-0001.h5.tmp");
    free(ls);
    if (!started) sleep_ms(10);
  }
  ck_assert_msg(started, "the points did not start");
  sleep_ms(200);
  ck_assert_int_eq(kill(c.pid, SIGHUP), 0);
  cu_proc p = cu_wait(&c);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "(interrupted)");
  cu_free(&p);
  CU_EXPECT_LISTING(dir, "point-0000.h5 point-0001.h5 summary.csv");
  char *path = cu_strf("%s/summary.csv", dir);
  char *csv = cu_slurp(path);
  ck_assert_ptr_nonnull(csv);
  for (size_t k = 0; k < 4; k++) {
    char *row = line_of(csv, k + 1);
    CU_EXPECT_IN(row, k < 2 ? ",interrupted," : ",skipped,,,");
    free(row);
  }
  free(csv);
  free(path);
  free(dir);

  /* quick points, one at a time; the first message after point 0 meets the
   * closed pipe */
  char *scene = cu_strf("%s/quick.yaml", d);
  cu_write(scene,
           "name: quick\ntime: {dt: 0.01, frames: 12}\noutput: {every: 5000}\n"
           "bodies:\n  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 8}\n");
  free(scene);
  char *sw = cu_strf("%s/sweeps/q.yaml", d);
  cu_write(sw, "scene: ../quick.yaml\nframes: 100000\nparameters:\n  solver.iterations: [1, 2, 3, 4]\n");
  free(sw);
  const char *args[] = {"sweep", "sweeps/q.yaml", "-o", "pipe", "-j", "1", NULL};
  c = cu_vsim_spawn_setup(d, NULL, args, closed_stderr, NULL);
  p = wait_at_most(&c, 120, "sweep into a closed pipe");
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  path = cu_strf("%s/pipe/summary.csv", d);
  csv = cu_slurp(path);
  ck_assert_msg(csv != NULL, "no summary.csv");
  char *row = line_of(csv, 1);
  CU_EXPECT_IN(row, ",complete,");
  free(row);
  row = line_of(csv, 4);
  CU_EXPECT_IN(row, ",skipped,,,");
  free(row);
  free(csv);
  free(path);
  dir = cu_strf("%s/pipe", d);
  char *ls = cu_listing(dir);
  CU_EXPECT_NOT_IN(ls, ".tmp-");
  free(ls);
  free(dir);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* --collect: a FIFO named point-0001.csv hung it (a plain open waits for a
 * writer); a row whose status is not one vsim writes (a formula for a
 * spreadsheet) was copied into summary.csv.  Both are refused and counted
 * as missing. */
START_TEST(collect_refuses_fifos_and_foreign_rows) {
  char *d = setup(
      "scene: ../scene.yaml\n"
      "frames: 3\n"
      "parameters:\n"
      "  solver.iterations: [1, 2, 3]\n");
  cu_proc p = cu_vsim(d, "sweep", "sweeps/s.yaml", "-o", "pt", "--point", "0", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *fifo = cu_strf("%s/pt/point-0001.csv", d);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  char *forged = cu_strf("%s/pt/point-0002.csv", d);
  cu_write(forged,
           "point,solver.iterations,status,final_constraint_error,wall_seconds,file\n"
           "2,3,\"=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",,,\n");
  const char *args[] = {"sweep", "sweeps/s.yaml", "-o", "pt", "--collect", NULL};
  cu_child c = cu_vsim_spawn(d, NULL, args);
  p = wait_at_most(&c, 60, "--collect with a FIFO");
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "point-0001.csv: is a FIFO (named pipe), not a regular file; counted as "
                      "missing");
  CU_EXPECT_IN(p.err, "point-0002.csv: not a row vsim wrote");
  CU_EXPECT_IN(p.err, "3 points, 1 complete, 0 not complete, 2 missing");
  cu_free(&p);
  char *path = cu_strf("%s/pt/summary.csv", d);
  char *csv = cu_slurp(path);
  ck_assert_ptr_nonnull(csv);
  CU_EXPECT_NOT_IN(csv, "HYPERLINK");
  char *row = line_of(csv, 3);
  ck_assert_str_eq(row, "2,3,missing,,,");
  free(row);
  free(csv);
  free(path);
  struct stat st;
  ck_assert_int_eq(lstat(fifo, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  free(fifo);
  free(forged);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A scene file named --force: it validated, then every point ran `vsim run
 * --force ...`, i.e. the embedded default scene.  Each point runs it. */
START_TEST(scene_named_like_an_option) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/--force", d);
  cu_write(scene,
           "name: minus\ntime: {dt: 0.01, frames: 4}\n"
           "bodies:\n  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 3}\n");
  char *sw = cu_strf("%s/dash.yaml", d);
  cu_write(sw, "scene: --force\nparameters:\n  solver.iterations: [1, 2]\n");
  cu_proc p = cu_vsim(d, "sweep", "dash.yaml", "-o", "pts", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  for (int k = 0; k < 2; k++) {
    char *f = cu_strf("pts/point-%04d.h5", k);
    p = cu_vsim(d, "info", "--json", f, NULL);
    CU_EXPECT_CODE(p, 0);
    CU_EXPECT_IN(p.out, "\"minus\"");
    CU_EXPECT_IN(p.out, "\"particles\": 4");
    cu_free(&p);
    free(f);
  }
  free(scene);
  free(sw);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The default directory of a sweep file named "...yaml" was "..", and with
 * --force the sweep first removed ../point-*.h5 and ../summary.csv; "..yml"
 * gave ".".  Refused.  So is an output that is the sweep file itself (it
 * was removed with --force and replaced by the summary). */
START_TEST(output_names_refused) {
  char *d = setup(sweep_yaml);
  char *keep_h5 = cu_strf("%s/point-0000.h5", d), *keep_csv = cu_strf("%s/summary.csv", d);
  cu_write(keep_h5, "keep\n");
  cu_write(keep_csv, "keep\n");
  const char *names[] = {"...yaml", "..yml"};
  for (int i = 0; i < 2; i++) {
    char *sw = cu_strf("%s/sweeps/%s", d, names[i]);
    cu_write(sw, "scene: ../scene.yaml\nframes: 2\nparameters:\n  solver.iterations: [1]\n");
    char *sub = cu_strf("%s/sweeps", d);
    cu_proc p = cu_vsim(sub, "sweep", names[i], "--force", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, "no output directory can be named after this file");
    CU_EXPECT_IN(p.err, "give one with -o DIR");
    cu_free(&p);
    free(sub);
    free(sw);
  }
  char *t = cu_slurp(keep_h5);
  ck_assert_str_eq(t, "keep\n");
  free(t);
  t = cu_slurp(keep_csv);
  ck_assert_str_eq(t, "keep\n");
  free(t);
  CU_EXPECT_LISTING(d, "point-0000.h5 scene.yaml summary.csv sweeps");
  /* the sweep file as summary.csv of its own output directory */
  char *out = cu_strf("%s/out", d);
  ck_assert_int_eq(mkdir(out, 0777), 0);
  char *sw = cu_strf("%s/out/summary.csv", d);
  const char *text = "scene: ../scene.yaml\nframes: 2\nparameters:\n  solver.iterations: [1]\n";
  cu_write(sw, text);
  cu_proc p = cu_vsim(d, "sweep", "out/summary.csv", "-o", "out", "--force", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "out/summary.csv: is out/summary.csv, an input of this sweep: refused");
  cu_free(&p);
  t = cu_slurp(sw);
  ck_assert_str_eq(t, text);
  free(t);
  CU_EXPECT_LISTING(out, "summary.csv");
  free(sw);
  free(out);
  free(keep_h5);
  free(keep_csv);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(help) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "sweep", "--help", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "Usage: vsim sweep");
  CU_EXPECT_IN(p.out, "--point");
  CU_EXPECT_IN(p.out, "SLURM_ARRAY_TASK_ID");
  CU_EXPECT_IN(p.out, "mpirun");
  cu_free(&p);
  p = cu_vsim(d, "help", "sweep", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "--collect");
  cu_free(&p);
  p = cu_vsim(d, "--help", NULL);
  CU_EXPECT_IN(p.out, "sweep");
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *sweep_cli_suite(void) {
  Suite *s = suite_create("sweep_cli");
  TCase *tc = tcase_create("sweep_cli");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, every_way_same_files);
  tcase_add_test(tc, mpi_same_files);
  tcase_add_test(tc, failed_points_recorded);
  tcase_add_test(tc, list_points);
  tcase_add_test(tc, output_directory);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, interrupted_sweep);
  tcase_add_test(tc, killed_sweep_children_stop);
  tcase_add_test(tc, hangup_and_closed_pipe_interrupt_the_sweep);
  tcase_add_test(tc, collect_refuses_fifos_and_foreign_rows);
  tcase_add_test(tc, scene_named_like_an_option);
  tcase_add_test(tc, output_names_refused);
  tcase_add_test(tc, help);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(sweep_cli_suite());
}
