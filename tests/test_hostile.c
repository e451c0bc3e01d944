/* SPDX-License-Identifier: MIT */
/* test_hostile.c: end-to-end tests that a hostile result file or output
 * path cannot make vsim write anywhere but its own output, and that two
 * runs racing to one new output cannot both win (README.md, Robustness:
 * Output, Resume, Signals, Threads):
 *
 *   - --resume of a file whose position series is an external link to a
 *     victim file, or whose step dataset has external storage in a victim
 *     text file (and a path the attacker chose): exit 2 naming the path,
 *     the victims and the file itself byte for byte as they were, nothing
 *     created, no temporary file;
 *   - --resume of an edited /checkpoint/x, an edited resolved scene, a
 *     checkpoint without its checksum: exit 2 with the reason;
 *   - --resume of a FIFO, and through a symbolic link (the link stays a
 *     link, its target is continued); a root --resume of a user's 0640
 *     file keeps its owner, group and mode (its other hard links keep the
 *     old contents, docs/cli.md);
 *   - -o to /dev/null (as root a node of it made in the test's directory,
 *     so that a failing vsim cannot replace the system's), a FIFO (with
 *     --force) and a dangling link: exit 2,
 *     each left what it was; a 248-character name works;
 *   - two `vsim run -o same.h5` without --force started together: exactly
 *     one exits 0, the other 2, and the file is the winner's, whole.
 * The hostile files are made here with the HDF5 C API. */
#include <hdf5.h>
#include <sys/sysmacros.h>

#include "runutil.h"

static void setup(void) {
  tu_dir_setup();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static int temp_files(void) {
  char *ls = cu_listing(tu_dir());
  int n = 0;
  for (char *p = strstr(ls, ".tmp-"); p; p = strstr(p + 1, ".tmp-")) n++;
  free(ls);
  return n;
}

/* A small finished result file: the default scene, `frames` frames. */
static void make_result(const char *name, const char *frames) {
  cu_proc p = cu_vsim(tu_dir(), "run", "--frames", frames, "-o", name, "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}

/* path holds exactly (data, n) */
static void expect_bytes(const char *path, const char *data, size_t n) {
  size_t m;
  char *b = tu_read_file(path, &m);
  ck_assert_msg(m == n && memcmp(b, data, n) == 0, "%s changed (%zu bytes, was %zu)", path, m, n);
  free(b);
}

static hid_t open_rw(const char *name) {
  hid_t f = H5Fopen(tu_path(name), H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  return f;
}

/* A victim HDF5 file with /data float64 [N, 1024, 3] extendible. */
static void make_victim_h5(const char *name) {
  hid_t f = H5Fcreate(tu_path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[3] = {4, 1024, 3}, maxd[3] = {H5S_UNLIMITED, 1024, 3}, ch[3] = {1, 1024, 3};
  hid_t s = H5Screate_simple(3, dims, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 3, ch);
  hid_t d = H5Dcreate2(f, "data", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(s);
  H5Fclose(f);
}

static void expect_refused(const char *file, const char *msg) {
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", file, "--frames", "8", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  ck_assert_int_eq(temp_files(), 0);
}

/* Resume: an external link in place of the position series. */
START_TEST(resume_external_link) {
  make_result("x.h5", "3");
  make_victim_h5("victim.h5");
  hid_t f = open_rw("x.h5");
  ck_assert_int_ge(H5Ldelete(f, "/particles/all/position/value", H5P_DEFAULT), 0);
  ck_assert_int_ge(H5Lcreate_external(tu_path("victim.h5"), "/data", f,
                                      "/particles/all/position/value", H5P_DEFAULT, H5P_DEFAULT),
                   0);
  H5Fclose(f);
  size_t nv, nx;
  char *victim = tu_read_file(tu_path("victim.h5"), &nv);
  char *self = tu_read_file(tu_path("x.h5"), &nx);
  expect_refused("x.h5", "/particles/all/position/value is an external link (to another file): refused");
  expect_bytes(tu_path("victim.h5"), victim, nv);
  expect_bytes(tu_path("x.h5"), self, nx);
  free(victim);
  free(self);
}
END_TEST

/* Resume: external storage for position/step (a text file the
 * writes would land in) and time (a file the attacker wants created). */
START_TEST(resume_external_storage) {
  make_result("x.h5", "3");
  const char *text = "0123456789012345678901234567890123456789012345678901234567890123456789\n";
  cu_write(tu_path("victim.txt"), text);
  hid_t f = open_rw("x.h5");
  const char *groups[2] = {"/particles/all/position/step", "/particles/all/position/time"};
  const char *files[2] = {"victim.txt", "created-by-attacker"};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_ge(H5Ldelete(f, groups[i], H5P_DEFAULT), 0);
    hsize_t n = 4;
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ck_assert_int_ge(H5Pset_external(dcpl, tu_path(files[i]), 32, 4 * 8), 0);
    hid_t d = H5Dcreate2(f, groups[i], i ? H5T_IEEE_F64LE : H5T_STD_I64LE, s, H5P_DEFAULT, dcpl,
                         H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
  }
  H5Fclose(f);
  size_t nx;
  char *self = tu_read_file(tu_path("x.h5"), &nx);
  expect_refused("x.h5", "external storage");
  expect_bytes(tu_path("victim.txt"), text, strlen(text));
  expect_bytes(tu_path("x.h5"), self, nx);
  ck_assert_int_ne(access(tu_path("created-by-attacker"), F_OK), 0);
  free(self);
}
END_TEST

/* Resume: an edited checkpoint or resolved scene, no checksum. */
START_TEST(resume_checksum) {
  make_result("x.h5", "3");
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "x.h5", "--frames", "4", "-q", NULL);
  CU_EXPECT_CODE(p, 0); /* a resumed file checkpoints with its checksum again */
  cu_free(&p);
  char *cp =
      cu_strf("cp '%s' '%s' && cp '%s' '%s' && cp '%s' '%s'", tu_path("x.h5"), tu_path("ck.h5"),
              tu_path("x.h5"), tu_path("res.h5"), tu_path("x.h5"), tu_path("old.h5"));
  ck_assert_int_eq(system(cp), 0);
  free(cp);
  /* one coordinate moved by 1e-9 */
  hid_t f = open_rw("ck.h5");
  hid_t d = H5Dopen2(f, "/checkpoint/x", H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(s, dims, NULL);
  double *x = malloc(dims[0] * dims[1] * sizeof *x);
  ck_assert_int_ge(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), 0);
  x[1] += 1e-9;
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), 0);
  free(x);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  expect_refused("ck.h5", "ck.h5: checkpoint does not match its checksum");
  /* the resolved scene's gravity changed */
  f = open_rw("res.h5");
  hid_t a = H5Aopen_by_name(f, "/parameters/vsim", "resolved", H5P_DEFAULT, H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char *text = NULL;
  ck_assert_int_ge(H5Aread(a, t, &text), 0);
  char *g = strstr(text, "-9.81");
  ck_assert_ptr_nonnull(g);
  g[4] = '0'; /* -9.80 */
  H5Aclose(a);
  char *edited = strdup(text);
  H5free_memory(text);
  ck_assert_int_ge(H5Adelete_by_name(f, "/parameters/vsim", "resolved", H5P_DEFAULT), 0);
  hid_t sc = H5Screate(H5S_SCALAR);
  a = H5Acreate_by_name(f, "/parameters/vsim", "resolved", t, sc, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  ck_assert_int_ge(H5Awrite(a, t, &edited), 0);
  free(edited);
  H5Sclose(sc);
  H5Tclose(t);
  H5Aclose(a);
  H5Fclose(f);
  expect_refused("res.h5", "res.h5: checkpoint does not match its checksum");
  /* as an older vsim wrote it */
  f = open_rw("old.h5");
  ck_assert_int_ge(H5Adelete_by_name(f, "/checkpoint", "checksum_fnv1a64", H5P_DEFAULT), 0);
  H5Fclose(f);
  expect_refused("old.h5", "/checkpoint has no checksum (written by an older vsim)");
}
END_TEST

/* --resume of a FIFO is refused at once; through a link, the target is continued. */
START_TEST(resume_special_and_link) {
  ck_assert_int_eq(mkfifo(tu_path("fifo.h5"), 0600), 0);
  expect_refused("fifo.h5", "is a FIFO (named pipe), not a regular file: refused");
  make_result("x.h5", "3");
  ck_assert_int_eq(symlink("x.h5", tu_path("link.h5")), 0);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "link.h5", "--frames", "5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  struct stat st;
  ck_assert_int_eq(lstat(tu_path("link.h5"), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  p = cu_vsim(tu_dir(), "info", "--json", "x.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"frames_recorded\": 6,");
  cu_free(&p);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

/* As root, --resume of a user's 0640 file left it root's: the user could
 * no longer read their own result.  The owner, group and mode are kept; a
 * hard link made to the file before keeps the old contents (the file is
 * replaced by rename, docs/cli.md: resume). */
START_TEST(resume_keeps_owner_and_mode) {
  if (geteuid() != 0) TU_SKIP("not root: a file of another owner cannot be made here");
  make_result("u.h5", "3");
  const char *path = tu_path("u.h5");
  ck_assert_int_eq(chown(path, 12345, 23456), 0);
  ck_assert_int_eq(chmod(path, 0640), 0);
  ck_assert_int_eq(link(path, tu_path("old.h5")), 0);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "u.h5", "--frames", "6", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_uid, 12345);
  ck_assert_int_eq(st.st_gid, 23456);
  ck_assert_int_eq(st.st_mode & 07777, 0640);
  p = cu_vsim(tu_dir(), "info", "--json", "u.h5", NULL);
  CU_EXPECT_IN(p.out, "\"frames_recorded\": 7,");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", "--json", "old.h5", NULL);
  CU_EXPECT_IN(p.out, "\"frames_recorded\": 4,");
  cu_free(&p);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

/* Output: special files and dangling links as -o. */
START_TEST(output_special_files) {
  /* As root (CI containers) a copy of /dev/null made here: a vsim that
   * replaced special files would otherwise replace the system's. */
  const char *null = geteuid() == 0 && mknod(tu_path("null"), S_IFCHR | 0666, makedev(1, 3)) == 0
                         ? tu_path("null")
                         : "/dev/null";
  cu_proc p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", null, "--force", "-q", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "null: is a character device, not a regular file: refused");
  cu_free(&p);
  struct stat st;
  ck_assert_int_eq(stat(null, &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  unlink(tu_path("null"));
  ck_assert_int_eq(mkfifo(tu_path("fifo"), 0600), 0);
  p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", "fifo", "--force", "-q", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "fifo: is a FIFO (named pipe), not a regular file: refused");
  cu_free(&p);
  ck_assert_int_eq(lstat(tu_path("fifo"), &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(symlink("elsewhere.h5", tu_path("dangling.h5")), 0);
  for (int force = 0; force < 2; force++) {
    p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", "dangling.h5", force ? "--force" : "-q",
                "-q", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, "is a symbolic link to 'elsewhere.h5', which does not exist: refused");
    cu_free(&p);
    ck_assert_int_eq(lstat(tu_path("dangling.h5"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_ne(access(tu_path("elsewhere.h5"), F_OK), 0);
  }
  ck_assert_int_eq(temp_files(), 0);
  /* a 248-character name (255 is the limit of one name here) */
  char name[249];
  memset(name, 'n', 245);
  memcpy(name + 245, ".h5", 4);
  p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", name, "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  ck_assert_int_eq(access(tu_path(name), F_OK), 0);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

static int64_t frames_recorded(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  int64_t v = -1;
  hid_t a = H5Aopen_by_name(f, "/parameters/vsim", "frames_recorded", H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(H5Aread(a, H5T_NATIVE_INT64, &v), 0);
  H5Aclose(a);
  H5Fclose(f);
  return v;
}

/* Output: two runs into one new name without --force. */
START_TEST(race_two_runs) {
  for (int round = 0; round < 3; round++) {
    unlink(tu_path("same.h5"));
    cu_child a = cu_vsim_start(tu_dir(), "run", "--frames", "30", "-o", "same.h5", "-q", NULL);
    cu_child b = cu_vsim_start(tu_dir(), "run", "--frames", "31", "-o", "same.h5", "-q", NULL);
    cu_proc pa = cu_wait(&a), pb = cu_wait(&b);
    ck_assert_msg((pa.code == 0) != (pb.code == 0), "exits %d and %d:\n%s\n%s", pa.code, pb.code,
                  pa.err, pb.err);
    cu_proc *lost = pa.code == 0 ? &pb : &pa;
    CU_EXPECT_CODE(*lost, 2);
    CU_EXPECT_IN(lost->err, "same.h5: exists");
    /* the winner's file, whole: its frame count, and it reads back */
    ck_assert_int_eq(frames_recorded(tu_path("same.h5")), pa.code == 0 ? 31 : 32);
    cu_proc info = cu_vsim(tu_dir(), "info", "same.h5", NULL);
    CU_EXPECT_CODE(info, 0);
    cu_free(&info);
    cu_free(&pa);
    cu_free(&pb);
    ck_assert_int_eq(temp_files(), 0);
  }
}
END_TEST

/* Threads: --threads far beyond a machine aborted in libgomp. */
START_TEST(threads_bounded) {
  cu_proc p = cu_vsim(tu_dir(), "run", "--frames", "1", "--threads", "4096", "-o", "t.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "--threads: expected an integer in [0, 1024], got '4096'");
  cu_free(&p);
  CU_EXPECT_LISTING(tu_dir(), "");
}
END_TEST

/* A subnormal radius with particle collisions (undefined
 * behaviour in the spatial hash before: the sanitizer build says so). */
START_TEST(subnormal_radius) {
  cu_write(
      tu_path("tiny.yaml"),
      "vsim: 1\n"
      "time: {dt: 0.01, frames: 3}\n"
      "world: {particle_collisions: true}\n"
      "bodies:\n"
      "  - particles: {radius: 1e-310, mass: 1, positions: [[0, 0, 0], [0, 0, 0], [1, 1, 1]]}\n");
  cu_proc p = cu_vsim(tu_dir(), "run", "tiny.yaml", "-o", "tiny.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_NOT_IN(p.err, "runtime error");
  cu_free(&p);
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

static void expect_interrupted(const cu_proc *p, const char *file) {
  ck_assert_msg(p->code == 1, "exit %d, expected 1 (interrupted)\n%s", p->code, p->err);
  cu_expect_status(tu_dir(), file, "interrupted");
  ck_assert_int_eq(temp_files(), 0);
}

/* Signals: SIGHUP ends a run like SIGINT; so does a closed pipe
 * under --progress (SIGPIPE), without dying of it. */
START_TEST(hangup_and_closed_pipe) {
  const char *args[] = {cu_vsim_bin(), "run", "--frames", "2000", "--set",
                        "bodies.cloth.resolution=[96,96]", "-o", "hup.h5", "-q", NULL};
  cu_child c = cu_vsim_spawn(tu_dir(), NULL, args + 1);
  cu_sleep_ms(800);
  kill(c.pid, SIGHUP);
  cu_proc p = cu_wait(&c);
  expect_interrupted(&p, "hup.h5");
  cu_free(&p);
  const char *pargs[] = {"run", "--frames", "2000", "--set", "bodies.cloth.resolution=[96,96]",
                         "-o", "pipe.h5", "--progress", NULL};
  c = cu_vsim_spawn_setup(tu_dir(), NULL, pargs, closed_stderr, NULL);
  p = cu_wait(&c);
  expect_interrupted(&p, "pipe.h5");
  cu_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hostile");
  TCase *t = tcase_create("hostile");
  tcase_add_checked_fixture(t, setup, tu_dir_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, resume_external_link);
  tcase_add_test(t, resume_external_storage);
  tcase_add_test(t, resume_checksum);
  tcase_add_test(t, resume_special_and_link);
  tcase_add_test(t, resume_keeps_owner_and_mode);
  tcase_add_test(t, output_special_files);
  tcase_add_test(t, race_two_runs);
  tcase_add_test(t, threads_bounded);
  tcase_add_test(t, subnormal_radius);
  tcase_add_test(t, hangup_and_closed_pipe);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
