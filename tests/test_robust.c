/* SPDX-License-Identifier: MIT */
/* test_robust.c: end-to-end tests that nothing is lost and nothing let in.
 *
 *   - write failures: a file-size limit (ulimit -f) or a full disk (a small
 *     tmpfs in a private mount namespace), hit while opening or mid-run:
 *     exit 1, a message naming the output, no file in its place and no
 *     temporary file; an existing output and a resumed file stay as they were;
 *   - interrupts: SIGINT and SIGTERM on a 256 x 256 cloth stop within a
 *     second (the latency is measured and printed), exit 1, and leave every
 *     recorded frame readable under status "interrupted"; a second SIGTERM
 *     stops at once and leaves no temporary file; every other catchable
 *     termination signal (SIGXCPU from a CPU-time limit, SIGUSR1/2,
 *     SIGALRM, SIGVTALRM, SIGPROF, a real-time signal) ends the run the
 *     same way, repeated or not, with nothing hidden left behind;
 *   - resume: every integrator with both relaxations, tearing links and a
 *     kinematic pin, continued from a shorter run, is bitwise the one run;
 *   - numerical failure: a runaway particle and a non-finite one fail the
 *     run (exit 1, status "failed") naming frame, particle (body and index)
 *     and the constraint that moved it last, and keep the frames before;
 *   - hostile scenes: one per documented limit, refused with exit 2 and a
 *     message naming the limit, in milliseconds, writing nothing.
 *
 * VSIM_SLOW=1 (set by `make valgrind-e2e`, which runs the program under
 * valgrind) relaxes the timing bounds, which measure the program, not the
 * checker. */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS */
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <hdf5.h>

#include "runutil.h"

static int slow(void) {
  const char *s = getenv("VSIM_SLOW");
  return s && *s && strcmp(s, "0") != 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- write failures ---- */

/* In the child before exec: a file-size limit.  SIGXFSZ keeps its default
 * action (death), as after `ulimit -f` in a shell: vsim must ignore it
 * itself to turn the limit into a clean failure. */
static void limit_file_size(void *arg) {
  rlim_t bytes = *(const rlim_t *)arg;
  struct rlimit rl = {bytes, bytes};
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
  signal(SIGXFSZ, SIG_DFL);
}

static cu_proc run_limited(const char *dir, rlim_t bytes, const char *const *args) {
  cu_child c = cu_vsim_spawn_setup(dir, NULL, args, limit_file_size, &bytes);
  return cu_wait(&c);
}

/* A cloth of 64 x 64: about 100 KB a frame, 200 KB of topology. */
#define BIG_CLOTH "bodies.cloth.resolution=[64,64]"

START_TEST(file_size_limit_mid_run) {
  char *d = tu_tmpdir();
  cu_proc p = run_limited(
      d, 2u << 20,
      (const char *const[]){"run", "--frames", "200", "--set", BIG_CLOTH, "-o", "out.h5", NULL});
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "out.h5");
  CU_EXPECT_IN(p.err, "File too large");
  CU_EXPECT_IN(p.err, "could not be written");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Too small even for the parts written when the file is opened: still a
 * failed write (exit 1), not a bad output path (exit 2). */
START_TEST(file_size_limit_at_open) {
  char *d = tu_tmpdir();
  cu_proc p = run_limited(
      d, 16u << 10,
      (const char *const[]){"run", "--frames", "20", "--set", BIG_CLOTH, "-o", "out.h5", NULL});
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "out.h5");
  CU_EXPECT_IN(p.err, "File too large");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* --force over an existing file, and --resume of a file: when writing
 * fails, the file that was there is still there, unchanged. */
START_TEST(file_size_limit_keeps_what_was_there) {
  char *d = tu_tmpdir();
  char *out = cu_strf("%s/out.h5", d);
  cu_write(out, "precious\n");
  cu_proc p = run_limited(d, 1u << 20,
                       (const char *const[]){"run", "--frames", "200", "--set", BIG_CLOTH, "-o",
                                             "out.h5", "--force", NULL});
  CU_EXPECT_CODE(p, 1);
  cu_free(&p);
  char *text = cu_slurp(out);
  ck_assert_str_eq(text, "precious\n");
  free(text);
  CU_EXPECT_LISTING(d, "out.h5");

  /* a finished run of 5 frames, resumed under a limit below its size */
  p = cu_vsim(d, "run", "--frames", "5", "--set", BIG_CLOTH, "-o", "out.h5", "-f", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  struct stat before;
  ck_assert_int_eq(stat(out, &before), 0);
  p = run_limited(d, (rlim_t)before.st_size / 2,
                  (const char *const[]){"run", "--resume", "out.h5", "--frames", "50", NULL});
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "out.h5");
  CU_EXPECT_IN(p.err, "File too large");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  struct stat after;
  ck_assert_int_eq(stat(out, &after), 0);
  ck_assert_int_eq(after.st_size, before.st_size);
  ck_assert(after.st_mtime == before.st_mtime);
  p = cu_vsim(d, "info", "--json", "out.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"status\": \"complete\"");
  CU_EXPECT_IN(p.out, "\"frames_recorded\": 6");
  cu_free(&p);
  free(out);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Mount a tmpfs of `size` on dir, in a mount namespace of this process
 * only (its children inherit it; nothing outside sees it).  0, or -1 with
 * the reason in why. */
static int private_tmpfs(const char *dir, const char *size, char *why, size_t n) {
  char opts[64];
  snprintf(opts, sizeof opts, "size=%s", size);
  if (unshare(CLONE_NEWNS) != 0) {
    snprintf(why, n, "unshare(CLONE_NEWNS): %s", strerror(errno));
    return -1;
  }
  /* without this a shared / would carry the mount back to the real namespace */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    snprintf(why, n, "making / private: %s", strerror(errno));
    return -1;
  }
  if (mount("vsim-test", dir, "tmpfs", 0, opts) != 0) {
    snprintf(why, n, "mounting a tmpfs: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* A full disk, for real: a run into a 2 MB tmpfs, then one into a 16 KB
 * tmpfs (full while opening).  Skipped, saying why, where mounting is not
 * permitted (not root, or a container without CAP_SYS_ADMIN). */
START_TEST(full_disk) {
  char *d = tu_tmpdir();
  static const struct {
    const char *size;
    const char *frames;
  } cases[] = {{"2m", "200"}, {"16k", "20"}};
  char why[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *mnt = cu_strf("%s/disk%zu", d, i);
    ck_assert_int_eq(mkdir(mnt, 0755), 0);
    if (private_tmpfs(mnt, cases[i].size, why, sizeof why) != 0) {
      free(mnt);
      tu_rmtree(d);
      free(d);
      TU_SKIP("%s", why);
    }
    cu_proc p =
        cu_vsim(mnt, "run", "--frames", cases[i].frames, "--set", BIG_CLOTH, "-o", "out.h5", NULL);
    CU_EXPECT_CODE(p, 1);
    CU_EXPECT_IN(p.err, "out.h5");
    CU_EXPECT_IN(p.err, "No space left on device");
    cu_free(&p);
    CU_EXPECT_LISTING(mnt, "");
    ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
    free(mnt);
  }
  tu_rmtree(d);
  free(d);
}
END_TEST

/* ---- interrupts ---- */

/* The frame the progress bar last showed ("] 12/100000"), -1 before any. */
static long shown_frame(const char *err_text) {
  long frame = -1;
  for (const char *p = strstr(err_text, "] "); p; p = strstr(p + 1, "] ")) {
    char *end;
    long f = strtol(p + 2, &end, 10);
    if (end != p + 2 && *end == '/') frame = f;
  }
  return frame;
}

/* Wait until the run has recorded at least `frame` frames; fails the test
 * after `seconds`. */
static void wait_for_frame(cu_child *c, long frame, double seconds) {
  double t0 = now();
  for (;;) {
    char *err = cu_slurp(c->err_path);
    long f = err ? shown_frame(err) : -1;
    free(err);
    if (f >= frame) return;
    /* a run that ended already (left for cu_wait to collect): the caller's
     * checks say how, instead of waiting out the time */
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == c->pid)
      return;
    ck_assert_msg(now() - t0 < seconds, "the run did not reach frame %ld in %g s", frame, seconds);
    cu_sleep_ms(10);
  }
}

/* A 256 x 256 cloth (65536 particles, about 400k constraints; a frame takes
 * a few hundred milliseconds): sig after a few frames must end the run
 * within a second of it, with every frame recorded so far in the file.
 * Under valgrind (VSIM_SLOW) a 64 x 64 cloth is as slow, and what is
 * checked there is the memory of the interrupted path, not its latency. */
static void interrupt_big_cloth(int sig) {
  char *d = tu_tmpdir();
  const char *res =
      slow() ? "bodies.cloth.resolution=[64,64]" : "bodies.cloth.resolution=[256,256]";
  cu_child c = cu_vsim_spawn(d, NULL,
                       (const char *const[]){"run", "--frames", "100000", "--set", res,
                                             "--progress", "-o", "out.h5", NULL});
  wait_for_frame(&c, 3, slow() ? 1200 : 120);
  double t0 = now();
  ck_assert_int_eq(kill(c.pid, sig), 0);
  cu_proc p = cu_wait(&c);
  double latency = now() - t0;
  printf("test_robust: %s on a %s cloth: exit after %.3f s\n", strsignal(sig),
         slow() ? "64x64 (valgrind)" : "256x256", latency);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "interrupted after ");
  /* "interrupted after N of 100000 frames": frames 0..N are in the file */
  const char *at = strstr(p.err, "interrupted after ");
  long done = strtol(at + strlen("interrupted after "), NULL, 10);
  ck_assert_int_ge(done, 3);
  /* and says how to go on, on the same line */
  CU_EXPECT_IN(p.err, "holds them (status \"interrupted\"); continue with: vsim run --resume out.h5\n");
  cu_free(&p);
  if (!slow())
    ck_assert_msg(latency < 3.0, "%s took %.3f s to end the run", strsignal(sig), latency);
  CU_EXPECT_LISTING(d, "out.h5");

  cu_proc q = cu_vsim(d, "info", "--json", "out.h5", NULL);
  CU_EXPECT_CODE(q, 0);
  CU_EXPECT_IN(q.out, "\"status\": \"interrupted\"");
  char want[64];
  snprintf(want, sizeof want, "\"frames_recorded\": %ld", done + 1);
  CU_EXPECT_IN(q.out, want);
  cu_free(&q);
  /* every dataset reads back whole: compared with itself, it is equal */
  char *out = cu_strf("%s/out.h5", d);
  vs_compare_result r;
  vs_error e;
  ck_assert_int_eq(vs_compare_files(out, out, NULL, &r, &e), VS_OK);
  ck_assert_uint_eq(r.n_diffs, 0);
  ck_assert_uint_gt(r.n_compared, 10);
  vs_compare_result_free(&r);
  free(out);
  tu_rmtree(d);
  free(d);
}

START_TEST(sigint_big_cloth) {
  interrupt_big_cloth(SIGINT);
}
END_TEST

START_TEST(sigterm_big_cloth) {
  interrupt_big_cloth(SIGTERM);
}
END_TEST

/* The second SIGTERM does not wait for the frame: the program dies of it
 * and removes its temporary file (frames of a 500 x 500 cloth, or of a
 * 128 x 128 one under valgrind, take long enough that the first one cannot
 * have finished); SIGTERM is sent again until the program has ended, since
 * two may arrive as one. */
START_TEST(second_sigterm_kills) {
  char *d = tu_tmpdir();
  const char *res =
      slow() ? "bodies.cloth.resolution=[128,128]" : "bodies.cloth.resolution=[500,500]";
  cu_child c = cu_vsim_spawn(
      d, NULL, (const char *const[]){"run", "--frames", "1000", "--progress", "--set", res, NULL});
  wait_for_frame(&c, 0, slow() ? 1200 : 120);
  cu_sleep_ms(100);
  ck_assert_int_eq(kill(c.pid, SIGTERM), 0);
  cu_proc p = cu_wait_signalling(&c, SIGTERM, 50);
  CU_EXPECT_CODE(p, 128 + SIGTERM);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Start a run of the default scene that would take hours, recording now
 * and then, and wait until it has recorded a frame. */
static cu_child start_long_run(const char *d, void (*setup)(void *), void *arg) {
  const char *args[] = {"run",          "--frames",          "100000000", "--progress", "--set",
                        "output.every=50", "-o", "out.h5", NULL};
  cu_child c = cu_vsim_spawn_setup(d, NULL, args, setup, arg);
  wait_for_frame(&c, 1, slow() ? 1200 : 120);
  return c;
}

static void expect_interrupted_run(cu_proc *p, const char *d, const char *what) {
  ck_assert_msg(p->code == 1, "%s: exit %d, expected 1 (interrupted)\n%s", what, p->code, p->err);
  CU_EXPECT_IN(p->err, "interrupted after ");
  CU_EXPECT_IN(p->err, "continue with: vsim run --resume out.h5\n");
  /* the file under its name (no sidecar: output.xdmf is off by default),
   * and no hidden temporary file */
  CU_EXPECT_LISTING(d, "out.h5");
  cu_expect_status(d, "out.h5", "interrupted");
}

/* Every catchable termination signal but SIGINT/SIGTERM (tested above),
 * sent twice (timers repeat by themselves): the run ends as "interrupted"
 * (before: killed, a hidden temporary file of the frames left behind). */
START_TEST(every_termination_signal_interrupts) {
  const int sigs[] = {SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGRTMIN + 3};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    char *d = tu_tmpdir();
    cu_child c = start_long_run(d, NULL, NULL);
    ck_assert_int_eq(kill(c.pid, sigs[i]), 0);
    cu_sleep_ms(20);
    kill(c.pid, sigs[i]); /* may have ended already */
    cu_proc p = cu_wait(&c);
    char what[64];
    snprintf(what, sizeof what, "signal %d (%s)", sigs[i], strsignal(sigs[i]));
    expect_interrupted_run(&p, d, what);
    cu_free(&p);
    tu_rmtree(d);
    free(d);
  }
}
END_TEST

/* In the child before exec: one second of CPU time, as `ulimit -S -t 1`
 * (the hard limit, SIGKILL, far above; 30 s under valgrind). */
static void limit_cpu(void *arg) {
  (void)arg;
  /* under valgrind (VSIM_SLOW) its own start-up takes more than a second */
  struct rlimit rl = {slow() ? 30 : 1, 120};
  if (setrlimit(RLIMIT_CPU, &rl) != 0) _exit(126);
}

/* What batch schedulers and `ulimit -t` do: SIGXCPU at the soft limit, then
 * every second until the hard one.  The run ends as "interrupted" at the
 * first (before: it died of it with no result and a hidden 22 MB file). */
START_TEST(cpu_time_limit_interrupts) {
  char *d = tu_tmpdir();
  cu_child c = start_long_run(d, limit_cpu, NULL);
  cu_proc p = cu_wait(&c);
  expect_interrupted_run(&p, d, "RLIMIT_CPU");
  CU_EXPECT_IN(p.err, "interrupted after ");
  cu_free(&p);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* ---- resume ---- */

/* A rope hung from a kinematic pin over a sphere, a cloth pinned at two
 * corners whose links tear, and a stack of balls colliding with each other
 * on the floor: every kind of state a checkpoint holds (positions, previous
 * positions, velocities, lambdas, alive flags, the pin's clock) and the
 * particle contacts found anew each step. */
static const char resume_scene[] =
    "time: {dt: 0.01, frames: 30, substeps: 2}\n"
    "solver: {iterations: 4}\n"
    "world:\n"
    "  particle_collisions: true\n"
    "  particle_friction: 0.2\n"
    "  colliders:\n"
    "    - sphere: {center: [0.5, 0.7, 0], radius: 0.25, friction: 0.3}\n"
    "    - plane: {point: [0, 0, 0], normal: [0, 1, 0], restitution: 0.5}\n"
    "bodies:\n"
    "  - rope: {name: r, from: [0, 1, 0], to: [1, 1, 0], segments: 8,\n"
    "           stretch: {stiffness: 0.9, compliance: 0.0001}, bend: {stiffness: 0.3}}\n"
    "  - cloth: {name: c, origin: [0, 1.2, 0], size: [1, 1], resolution: [6, 6], plane: xz,\n"
    "            shear: {stiffness: 0.8}, pin: top-corners, tear: 1.005}\n"
    "  - particles: {name: w, positions: [[0.5, 1.5, 0.5]], mass: 20}\n"
    "  - particles: {name: balls, radius: 0.05, mass: 0.1,\n"
    "                positions: [[2, 0.05, 0], [2.09, 0.05, 0], [2.045, 0.14, 0], [2.04, 0.3, 0.01],\n"
    "                            [2.05, 0.5, -0.01]]}\n"
    "constraints:\n"
    "  - pin: {particle: 'r:0', keys: [[0, 0, 1, 0], [0.2, 0.3, 1.2, 0], [0.4, 0, 1, 0]]}\n"
    "  - distance: {a: 'w:0', b: 'c:2,2', rest: auto}\n"
    "output: {every: 3, fields: [position, velocity, constraint_error, per_constraint_error]}\n";

START_TEST(resume_matrix) {
  static const char *const integrators[] = {"pbd", "xpbd", "verlet"};
  static const char *const relaxations[] = {"gauss-seidel", "jacobi"};
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/s.yaml", d);
  cu_write(scene, resume_scene);
  for (int i = 0; i < 3; i++) {
    for (int r = 0; r < 2; r++) {
      char *si = cu_strf("solver.integrator=%s", integrators[i]);
      char *sr = cu_strf("solver.relaxation=%s", relaxations[r]);
      cu_proc p = cu_vsim(d, "run", "s.yaml", "--set", si, "--set", sr, "-o", "whole.h5", "-f", "-q",
                    "--threads", "2", NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      /* stop at 7 (between recorded frames 6 and 9), then go on */
      p = cu_vsim(d, "run", "s.yaml", "--set", si, "--set", sr, "--frames", "7", "-o", "part.h5", "-f",
               "-q", NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      p = cu_vsim(d, "run", "--resume", "part.h5", "--frames", "30", "-q", NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      p = cu_vsim(d, "compare", "part.h5", "whole.h5", NULL);
      ck_assert_msg(p.code == 0, "%s + %s: the resumed run differs:\n%s%s", integrators[i],
                    relaxations[r], p.out, p.err);
      cu_free(&p);
      /* the scene tears links before frame 30: alive flags were resumed */
      p = cu_vsim(d, "compare", "part.h5", "whole.h5", "--only", "/observables/constraints_alive",
               NULL);
      CU_EXPECT_CODE(p, 0);
      cu_free(&p);
      free(si);
      free(sr);
    }
  }
  /* the scene does tear (else the test would prove less than it says) */
  char *whole = cu_strf("%s/whole.h5", d);
  hid_t f = H5Fopen(whole, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t ds = H5Dopen2(f, "/observables/constraints_alive/value", H5P_DEFAULT);
  ck_assert_int_ge(ds, 0);
  int64_t alive[11];
  ck_assert_int_ge(H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, alive), 0);
  ck_assert_msg(alive[10] < alive[0], "no link tore: %lld alive at the end", (long long)alive[10]);
  H5Dclose(ds);
  /* and balls do touch: some step found overlapping pairs to push apart */
  ds = H5Dopen2(f, "/observables/overlap_max/value", H5P_DEFAULT);
  ck_assert_int_ge(ds, 0);
  double overlap[11], deepest = 0;
  ck_assert_int_ge(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, overlap), 0);
  for (int i = 0; i < 11; i++)
    if (overlap[i] > deepest) deepest = overlap[i];
  ck_assert_msg(deepest > 0, "no two balls ever touched");
  H5Dclose(ds);
  H5Fclose(f);
  free(whole);
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* ---- numerical failure ---- */

/* A pair falling under a huge gravity passes runaway_speed at frame 6:
 * exit 1, status "failed", the message names frame, particle (body and
 * index) and the constraint that moved it last, and frames 0..5 stay. */
START_TEST(runaway_fails_the_run) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/s.yaml", d);
  cu_write(scene,
             "time: {dt: 0.1, frames: 50}\n"
             "solver: {runaway_speed: 5000}\n"
             "world: {gravity: [0, -9810, 0]}\n"
             "bodies:\n"
             "  - particles: {name: anchor, positions: [[0, 0, 0]], pin: [0]}\n"
             "  - particles: {name: pair, positions: [[0, 0, 0], [1, 0, 0]]}\n"
             "constraints:\n"
             "  - distance: {a: 'pair:0', b: 'pair:1'}\n");
  cu_proc p = cu_vsim(d, "run", "s.yaml", "-o", "out.h5", "--summary", "json", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "frame 6");
  CU_EXPECT_IN(p.err, "particle 1 (body 'pair', index 0)");
  CU_EXPECT_IN(p.err, "runs away");
  CU_EXPECT_IN(p.err, "distance constraint 0");
  /* resuming would run into the same frame 6: it says so, not "--resume" */
  CU_EXPECT_IN(p.err, "vsim: run failed after 5 of 50 frames; out.h5 holds them (status \"failed\"); "
                   "resuming would fail the same way: change the scene and run it again\n");
  ck_assert_ptr_null(strstr(p.err, "--resume"));
  CU_EXPECT_IN(p.out, "\"status\":\"failed\"");
  CU_EXPECT_IN(p.out, "\"frames\":5");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5 s.yaml");
  p = cu_vsim(d, "info", "--json", "out.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"status\": \"failed\"");
  CU_EXPECT_IN(p.out, "\"frames_recorded\": 6");
  cu_free(&p);
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A particle that a collider throws out faster than runaway_speed fails
 * the run, and the message names that collider and its kind, for every row
 * of the collider table (vsim/kind.h): each scene starts one particle deep
 * inside (or, for bounds, far outside) a collider of one kind. */
START_TEST(runaway_names_every_collider_kind) {
  static const char *const colliders[VS_COLLIDER_KIND_COUNT] = {
      [VS_COLLIDER_PLANE] = "plane: {point: [0, 0, 0], normal: [0, 1, 0]}",
      [VS_COLLIDER_SPHERE] = "sphere: {center: [0, 0, 0], radius: 100}",
      [VS_COLLIDER_BOX] = "box: {min: [-100, -100, -100], max: [100, 100, 100]}",
      [VS_COLLIDER_BOUNDS] = "bounds: {min: [-1, 200, -1], max: [1, 300, 1]}",
      [VS_COLLIDER_MESH] = "mesh: {file: floor.obj, thickness: 1e150}"};
  for (int k = 0; k < VS_COLLIDER_KIND_COUNT; k++) {
    ck_assert_msg(colliders[k] != NULL, "no runaway scene for collider kind %d", k);
    char *d = tu_tmpdir();
    char *scene = cu_strf("%s/s.yaml", d), *obj = cu_strf("%s/floor.obj", d);
    cu_write(obj, "v -10 0 -10\nv 10 0 -10\nv 0 0 10\nf 1 2 3\n");
    char *text = cu_strf("time: {dt: 0.01, frames: 5}\n"
                         "solver: {runaway_speed: 50}\n"
                         "world: {gravity: [0, 0, 0], colliders: [{%s}]}\n"
                         "bodies:\n"
                         "  - particles: {name: p, positions: [[0, -1, 0]]}\n",
                         colliders[k]);
    cu_write(scene, text);
    cu_proc p = cu_vsim(d, "run", "s.yaml", "-o", "out.h5", NULL);
    char *want = cu_strf("last moved by world.colliders.0 (%s)",
                         vs_collider_kind_name((vs_collider_kind)k));
    CU_EXPECT_CODE(p, 1);
    CU_EXPECT_IN(p.err, want);
    cu_free(&p);
    free(want);
    free(text);
    free(obj);
    free(scene);
    tu_rmtree(d);
    free(d);
  }
}
END_TEST

/* With the bound off, a position that overflows is caught as non-finite. */
START_TEST(non_finite_fails_the_run) {
  char *d = tu_tmpdir();
  cu_proc p = cu_vsim(d, "run", "--set", "solver.runaway_speed=0", "--set", "world.colliders=[]", "--set",
                "world.gravity=[0,-1e307,0]", "--set", "time.dt=1", "--set", "time.substeps=1",
                "--frames", "50", NULL);
  CU_EXPECT_CODE(p, 1);
  CU_EXPECT_IN(p.err, "is not finite");
  CU_EXPECT_IN(p.err, "body 'cloth', index ");
  CU_EXPECT_IN(p.err, "last moved by ");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "out.h5");
  cu_expect_status(d, "out.h5", "failed");
  tu_rmtree(d);
  free(d);
}
END_TEST

/* ---- hostile scenes ---- */

/* "KEY: [ITEM, ...]\n" with n items. */
static char *flow_list(const char *key, const char *item, size_t n) {
  size_t il = strlen(item), cap = strlen(key) + 8 + n * (il + 1);
  char *y = malloc(cap);
  ck_assert_ptr_nonnull(y);
  char *p = y + sprintf(y, "%s: [", key);
  for (size_t i = 0; i < n; i++) {
    if (i) *p++ = ',';
    memcpy(p, item, il);
    p += il;
  }
  strcpy(p, "]\n");
  return y;
}

/* Nine levels of ten aliases: 10^9 nodes if anything expanded them. */
static const char laughs[] =
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";

/* One scene per limit: refused with exit 2 and a message that names the
 * limit, quickly (nothing of the asked-for size is allocated), and nothing
 * is written. */
START_TEST(hostile_scenes) {
  char *d = tu_tmpdir();
  char *scene = cu_strf("%s/s.yaml", d);
  char deep[256] = "a: ";
  for (int i = 0; i < 100; i++) strcat(deep, "[");
  char *aliases = flow_list("b", "*a", VS_MAX_YAML_ALIASES + 1);
  char *alias_text = cu_strf("a: &a 1\n%s", aliases);
  char *bodies = flow_list("bodies", "0", VS_MAX_BODIES + 1);
  char *colliders = flow_list("  colliders", "0", VS_MAX_COLLIDERS + 1);
  char *collider_text = cu_strf("world:\n%s", colliders);
  char *explicit_text = cu_strf("%sconstraints: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n", laughs);
  char *keys_text =
      cu_strf("%sconstraints:\n  - pin: {particle: 0, keys: [*f, *f, *f, *f, *f, *f]}\n", laughs);
  char *bomb = cu_strf("%sg: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n", laughs);
  static const char cloth[] = "bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], ";
  char *res = cu_strf("%sresolution: [100000, 100000]}\n", cloth);
  char *particles = cu_strf("%sresolution: [16384, 16384]}\n", cloth);
  char *total = cu_strf(
      "%sresolution: [6000, 6000]}\n  - cloth: {origin: [0,0,0], size: [1,1], "
      "resolution: [6000, 6000]}\n",
      cloth);
  const struct {
    const char *limit;
    const char *text;
    const char *says;
  } cases[] = {
      {"nesting depth", deep, "nesting deeper than 64 levels"},
      {"node count", bomb, "more than 4000000 YAML nodes"},
      {"alias uses", alias_text, "more than 1000 alias uses"},
      {"alias cycle", "a: &x [1, *x]\n", "refers to a node that contains it (a cycle)"},
      {"particles", particles, "expected at most 50000000 particles"},
      {"particles over bodies", total, "more than 50000000 particles"},
      {"constraints",
       "bodies:\n  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [368, 368, 368]}\n",
       "more than 200000000 constraints"},
      {"bodies", bodies, "at most 100000 bodies"},
      {"colliders", collider_text, "at most 10000 colliders"},
      /* more than VS_MAX_EXPLICIT items, or VS_MAX_KEYS keys, take more than
       * VS_MAX_YAML_NODES nodes: the node limit is the one they meet */
      {"explicit constraints", explicit_text, "more than 4000000 YAML nodes"},
      {"keys per pin", keys_text, "more than 4000000 YAML nodes"},
      {"resolution", res, "expected an integer <= 16384 (the documented limit)"},
      {"segments", "bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 10000001}\n",
       "expected an integer <= 10000000 (the documented limit)"},
      {"frames", "time: {frames: 100000001}\n", "expected an integer <= 100000000"},
      {"substeps", "time: {substeps: 100001}\n", "expected an integer <= 100000"},
      {"iterations", "solver: {iterations: 100001}\n", "expected an integer <= 100000"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cu_write(scene, cases[i].text);
    double t0 = now();
    cu_proc p = cu_vsim(d, "run", "s.yaml", "-o", "out.h5", NULL);
    double secs = now() - t0;
    ck_assert_msg(p.code == 2, "%s: exit %d, expected 2: %s", cases[i].limit, p.code, p.err);
    ck_assert_msg(strstr(p.err, cases[i].says) != NULL, "%s: '%s' not in: %s", cases[i].limit,
                  cases[i].says, p.err);
    ck_assert_msg(strncmp(p.err, "vsim: ", 6) == 0 && strstr(p.err, "s.yaml") != NULL,
                  "%s: message does not name the scene: %s", cases[i].limit, p.err);
    cu_free(&p);
    CU_EXPECT_LISTING(d, "s.yaml");
    /* a limit is arithmetic on what was read: no time to allocate anything */
    if (!slow()) ck_assert_msg(secs < 2.0, "%s: refused after %.3f s", cases[i].limit, secs);
  }

  /* file size: a sparse file over 64 MiB, refused before it is read */
  ck_assert_int_eq(truncate(scene, (off_t)VS_MAX_SCENE_BYTES + 1), 0);
  cu_proc p = cu_vsim(d, "run", "s.yaml", "-o", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "over the limit of 67108864 bytes");
  cu_free(&p);
  /* the same through standard input, which has no size to look at first */
  p = cu_vsim_argv(d, scene, (const char *const[]){"run", "-", "-o", "out.h5", NULL});
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "larger than the limit of 67108864 bytes");
  cu_free(&p);
  /* a --set key deeper than the nesting limit */
  char key[256] = "";
  for (int i = 0; i <= VS_MAX_YAML_DEPTH; i++) strcat(key, i ? ".a" : "a");
  strcat(key, "=1");
  p = cu_vsim(d, "run", "--set", key, "-o", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "nesting deeper than 64 levels");
  cu_free(&p);
  CU_EXPECT_LISTING(d, "s.yaml");

  free(res);
  free(particles);
  free(total);
  free(bomb);
  free(keys_text);
  free(explicit_text);
  free(collider_text);
  free(colliders);
  free(bodies);
  free(alias_text);
  free(aliases);
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("robust");
  TCase *t = tcase_create("robust");
  tcase_set_timeout(t, slow() ? 3000 : 300);
  tcase_add_test(t, file_size_limit_mid_run);
  tcase_add_test(t, file_size_limit_at_open);
  tcase_add_test(t, file_size_limit_keeps_what_was_there);
  tcase_add_test(t, full_disk);
  tcase_add_test(t, sigint_big_cloth);
  tcase_add_test(t, sigterm_big_cloth);
  tcase_add_test(t, second_sigterm_kills);
  tcase_add_test(t, every_termination_signal_interrupts);
  tcase_add_test(t, cpu_time_limit_interrupts);
  tcase_add_test(t, resume_matrix);
  tcase_add_test(t, runaway_fails_the_run);
  tcase_add_test(t, runaway_names_every_collider_kind);
  tcase_add_test(t, non_finite_fails_the_run);
  tcase_add_test(t, hostile_scenes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(suite());
}
