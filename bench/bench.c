/* SPDX-License-Identifier: MIT */
/* bench.c: `make bench` — how fast vsim relaxes cloth, and what writing costs.
 *
 * Cloths of 64^2 .. 256^2 particles (512^2 with --full), structural links only, top edge pinned,
 * 10 iterations, 100 frames, for Gauss-Seidel and coloured Jacobi at 1 and 2
 * threads, integrators pbd and xpbd.  Each configuration runs in a child
 * process so that its peak resident memory is its own; every figure is the
 * median of three rounds (one with --quick).  Prints a table and writes the
 * same as JSON (build/bench/bench.json by default).
 *
 *   bench [--quick|--full] [--out FILE] [--vsim PATH] [--bullet PATH]
 *
 * --bullet names bench/bullet_cloth (built by make when Bullet is installed):
 * the same cloths in Bullet's soft-body solver, run in the same session, so
 * that the table shows both solvers' ns per link projection and accuracy
 * (final max |C| / rest) side by side.
 *
 * ns/projection = wall time of the stepping / (frames * substeps * iterations
 * * links): it includes prediction, velocity update and tearing checks, so it
 * is an upper bound on the projection itself. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vsim/vsim.h"

typedef struct result {
  int n;
  const char *relax;
  const char *integ;
  int threads;
  double ms_per_frame;
  double ns_per_proj;
  double max_rel;
  double peak_mib;
  int colors;
  long long links;
} result;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static char *cloth_yaml(int n, const char *relax, const char *integ, int frames) {
  char *y = malloc(1024);
  snprintf(y, 1024,
           "time: {dt: 0.016666666666666666, frames: %d}\n"
           "solver: {integrator: %s, relaxation: %s, iterations: 10}\n"
           "bodies:\n"
           "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [%d, %d], pin: top-edge}\n",
           frames, integ, relax, n, n);
  return y;
}

static int load(const char *yaml, vs_scene **s, vs_model **m, vs_state **st) {
  vs_error e;
  vs_error_clear(&e);
  if (vs_scene_load_string(yaml, strlen(yaml), "bench.yaml", NULL, 0, s, &e) ||
      vs_model_build(*s, m, &e) || vs_state_create(*m, st, &e)) {
    char buf[2048];
    fprintf(stderr, "bench: %s\n", vs_error_format(&e, buf, sizeof buf));
    return -1;
  }
  return 0;
}

/* Run one configuration in this process; fill r. */
static int run_one(result *r, int frames) {
  vs_scene *s;
  vs_model *m;
  vs_state *st;
  char *yaml = cloth_yaml(r->n, r->relax, r->integ, frames);
  if (load(yaml, &s, &m, &st)) return -1;
  free(yaml);
  st->threads = r->threads;
  vs_error e;
  double t0 = now();
  for (int f = 0; f < frames; f++)
    if (vs_step(m, st, &e) != VS_OK) return -1;
  double wall = now() - t0;
  vs_observables o;
  vs_observe(m, st, &o, NULL);
  r->ms_per_frame = 1e3 * wall / frames;
  r->ns_per_proj = 1e9 * wall / ((double)frames * m->substeps * m->iterations * m->n_dist);
  r->max_rel = o.all.max_relative;
  r->colors = m->n_colors;
  r->links = m->n_dist;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  r->peak_mib = ru.ru_maxrss / 1024.0;
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  return 0;
}

/* One core for every one-thread figure (vsim's one-thread rows, Bullet's
 * cloths, the collision row, the pyramids): the two virtual cores of a
 * VM can run at different speeds (1.1-1.5x apart here, swapping with the
 * host's load), so a side-by-side ratio is only fair on one core.  The
 * last core the bench may use; -1: one core only, nothing to pin. */
static int g_core = -1;
static cpu_set_t g_all;

static void pick_core(void) {
  CPU_ZERO(&g_all);
  if (sched_getaffinity(0, sizeof g_all, &g_all) != 0 || CPU_COUNT(&g_all) < 2) return;
  for (int c = CPU_SETSIZE - 1; c >= 0; c--)
    if (CPU_ISSET(c, &g_all)) {
      g_core = c;
      return;
    }
}

/* Pin this process (and the children it starts) to g_core, or undo it. */
static void pin(int on) {
  if (g_core < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(g_core, &one);
  (void)sched_setaffinity(0, sizeof one, on ? &one : &g_all);
}

/* Fork so that ru_maxrss is this configuration's alone. */
static int run_isolated(result *r, int frames) {
  int fd[2];
  if (pipe(fd)) return -1;
  if (r->threads == 1) pin(1);
  pid_t pid = fork();
  if (r->threads == 1) pin(0);
  if (pid == 0) {
    close(fd[0]);
    int rc = run_one(r, frames);
    if (rc == 0 && write(fd[1], r, sizeof *r) != (ssize_t)sizeof *r) rc = -1;
    _exit(rc ? 1 : 0);
  }
  close(fd[1]);
  result tmp;
  ssize_t got = read(fd[0], &tmp, sizeof tmp);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != (ssize_t)sizeof tmp || !WIFEXITED(status) || WEXITSTATUS(status)) return -1;
  const char *relax = r->relax, *integ = r->integ;
  *r = tmp;
  r->relax = relax, r->integ = integ;
  return 0;
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double process_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU seconds of the writing run: the stepping (calling) thread's, and the
 * rest of the process's (the writer's thread) */
static double g_cpu_step_with, g_cpu_step_without, g_cpu_other_with;
/* where the writing's wall time goes on the stepping thread: the open, the
 * recordings (copies, waits for a slot), the finish (ms) */
static double g_open_ms, g_record_ms, g_finish_ms;

/* Share of wall time spent in the writer: the same 128^2 run of `frames`
 * frames with and without recording every frame.  Wall time needs an idle
 * core for the writer's thread; the stepping thread's CPU time (g_cpu_*)
 * says what the writing costs the stepping whatever the load.  The open and
 * the finish cost the same for any number of frames, the recordings and
 * the writer's traffic a frame each: 100 frames (the row, 0.2 s of
 * stepping) weigh the fixed part, 1000 frames show the per-frame part. */
static int writer_share(int frames, double *share, double *with_s, double *without_s) {
  const int n = 128;
  char *yaml = cloth_yaml(n, "gauss-seidel", "pbd", frames);
  vs_scene *s;
  vs_model *m;
  vs_state *st;
  if (load(yaml, &s, &m, &st)) return -1;
  vs_error e;
  double t0 = now(), c0 = thread_cpu();
  for (int f = 0; f < frames; f++) vs_step(m, st, &e);
  *without_s = now() - t0;
  g_cpu_step_without = thread_cpu() - c0;
  vs_state_free(st);
  vs_state_create(m, &st, &e);
  char path[] = "/tmp/vsim-bench-XXXXXX";
  if (!mkdtemp(path)) return -1;
  char out[600];
  snprintf(out, sizeof out, "%s/out.h5", path);
  vs_h5_writer *w;
  vs_h5_run_info info = {"bench", "", 1};
  t0 = now();
  c0 = thread_cpu();
  double p0 = process_cpu();
  if (vs_h5_open(out, s, m, &info, &w, &e)) return -1;
  double t1 = now();
  g_open_ms = 1e3 * (t1 - t0);
  vs_h5_record(w, m, st, &e);
  g_record_ms = 1e3 * (now() - t1);
  for (int f = 0; f < frames; f++) {
    vs_step(m, st, &e);
    double r0 = now();
    vs_h5_record(w, m, st, &e);
    g_record_ms += 1e3 * (now() - r0);
  }
  double t2 = now();
  vs_h5_finish(w, "complete", 0.0, &e);
  g_finish_ms = 1e3 * (now() - t2);
  *with_s = now() - t0;
  g_cpu_step_with = thread_cpu() - c0;
  g_cpu_other_with = process_cpu() - p0 - g_cpu_step_with;
  unlink(out);
  rmdir(path);
  *share = (*with_s - *without_s) / *with_s;
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  free(yaml);
  return 0;
}

/* The writing row of a run of `frames` frames (the phases: g_*). */
static void print_writer(int frames, double share, double with_s, double without_s) {
  printf("HDF5 writing, 128^2 cloth, every frame, %d frames: %.1f%% of wall time (%.3f s with, "
         "%.3f s without)\n",
         frames, 100 * share, with_s, without_s);
  printf("  stepping thread CPU %.3f s with, %.3f s without (%.1f%% for writing); writer thread CPU %.3f s\n",
         g_cpu_step_with, g_cpu_step_without,
         100 * (g_cpu_step_with - g_cpu_step_without) / g_cpu_step_with, g_cpu_other_with);
  printf("  stepping thread wall: vs_h5_open %.1f ms, the %d vs_h5_record %.1f ms (%.0f us each), "
         "vs_h5_finish %.1f ms\n",
         g_open_ms, frames + 1, g_record_ms, 1e3 * g_record_ms / (frames + 1), g_finish_ms);
}

/* Start-up: median wall time of `vsim run` on a 2-particle, 1-frame scene
 * over 21 runs, each started with posix_spawn and waited for with waitpid
 * (the time of vsim itself: no shell in between, which cost 1-3 ms here);
 * *best: the fastest run. */
extern char **environ;
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* Which of n values (n odd, at most ROUNDS) is their median: the run whose
 * other figures go with it. */
enum { ROUNDS = 3 };
static int median_at(const double *v, int n) {
  double sorted[ROUNDS];
  memcpy(sorted, v, (size_t)n * sizeof v[0]);
  qsort(sorted, (size_t)n, sizeof sorted[0], cmp_double);
  int k = 0;
  while (k < n - 1 && v[k] != sorted[n / 2]) k++;
  return k;
}
static int spawn_wait(const char *vsim, char *const argv[]) {
  pid_t pid;
  if (posix_spawn(&pid, vsim, NULL, NULL, argv, environ) != 0) return -1;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
static double startup_ms(const char *vsim, double *best) {
  char dir[] = "/tmp/vsim-bench-XXXXXX";
  if (!mkdtemp(dir)) return NAN;
  char scene[600], out[600], cmd[700];
  snprintf(scene, sizeof scene, "%s/tiny.yaml", dir);
  snprintf(out, sizeof out, "%s/tiny.h5", dir);
  FILE *f = fopen(scene, "w");
  if (!f) return NAN;
  fputs("time: {frames: 1}\nbodies:\n  - particles: {positions: [[0, 1, 0], [1, 1, 0]]}\n", f);
  fclose(f);
  char *argv[] = {(char *)vsim, "run", scene, "-o", out, "--force", "--quiet", NULL};
  enum { reps = 21 };
  double ms[reps];
  double r = NAN;
  if (spawn_wait(vsim, argv) == 0) { /* warm the page cache */
    int i = 0;
    for (; i < reps; i++) {
      double t0 = now();
      if (spawn_wait(vsim, argv) != 0) break;
      ms[i] = 1e3 * (now() - t0);
    }
    if (i == reps) {
      qsort(ms, reps, sizeof ms[0], cmp_double);
      r = ms[reps / 2];
      if (best) *best = ms[0];
    }
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return NAN;
  return r;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A UV sphere of radius r about c with nu x nv quads (2 nu (nv - 1)
 * triangles, poles fanned) as an OBJ file; its poles on the y axis, or on
 * the x axis when side (x and y swapped; the mesh collider ignores the
 * winding). */
static int write_sphere_obj(const char *path, double r, const double c[3], int nu, int nv,
                            int side) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
#define VERT(x, y, z)                                                                   \
  (side ? fprintf(f, "v %.17g %.17g %.17g\n", c[0] + (y), c[1] + (x), c[2] + (z))     \
        : fprintf(f, "v %.17g %.17g %.17g\n", c[0] + (x), c[1] + (y), c[2] + (z)))
  VERT(0.0, r, 0.0);
  for (int j = 1; j < nv; j++)
    for (int i = 0; i < nu; i++) {
      double th = M_PI * j / nv, ph = 2 * M_PI * i / nu;
      VERT(r * sin(th) * cos(ph), r * cos(th), r * sin(th) * sin(ph));
    }
  VERT(0.0, -r, 0.0);
#undef VERT
  const int south = 2 + (nv - 1) * nu;
#define RING(j, i) (2 + ((j) - 1) * nu + ((i) % nu))
  for (int i = 0; i < nu; i++) fprintf(f, "f 1 %d %d\n", RING(1, i + 1), RING(1, i));
  for (int j = 1; j + 1 < nv; j++)
    for (int i = 0; i < nu; i++)
      fprintf(f, "f %d %d %d %d\n", RING(j, i), RING(j, i + 1), RING(j + 1, i + 1), RING(j + 1, i));
  for (int i = 0; i < nu; i++) fprintf(f, "f %d %d %d\n", south, RING(nv - 1, i), RING(nv - 1, i + 1));
#undef RING
  return fclose(f) == 0 ? 0 : -1;
}

/* CPU ms per frame of a 128^2 cloth resting on a ball (pbd, Gauss-Seidel,
 * 10 iterations, 1 thread), with the ball given as `collider` (YAML), or
 * none; *ntri: the mesh's triangles from the model. */
/* (per_frame, when given: each frame's CPU seconds added to it) */
static double collision_ms(const char *collider, int frames, int *ntri, double *per_frame) {
  char y[2048];
  snprintf(y, sizeof y,
           "time: {dt: 0.016666666666666666, frames: %d}\n"
           "solver: {iterations: 10}\n"
           "world:\n  colliders: [%s]\n"
           "bodies:\n"
           "  - cloth: {name: c, origin: [-1, 1.02, -1], size: [2, 2], resolution: [128, 128],"
           " plane: xz, radius: 0.005}\n",
           frames, collider);
  vs_scene *s = NULL;
  vs_model *m = NULL;
  vs_state *st = NULL;
  vs_error e;
  if (vs_scene_load_string(y, strlen(y), "bench.yaml", NULL, 0, &s, &e) ||
      vs_model_build(s, &m, &e) || vs_state_create(m, &st, &e)) {
    char buf[2048];
    fprintf(stderr, "bench: %s\n", vs_error_format(&e, buf, sizeof buf));
    return NAN;
  }
  st->threads = 1;
  if (ntri) *ntri = m->n_mesh_triangles;
  double t0 = cpu_now();
  for (int f = 0; f < frames; f++) {
    const double f0 = per_frame ? cpu_now() : 0.0;
    vs_step(m, st, &e);
    if (per_frame) per_frame[f] += cpu_now() - f0;
  }
  double ms = 1e3 * (cpu_now() - t0) / frames;
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  return ms;
}

/* A short rope (10 links, pbd, 10 iterations, one thread, pinned): CPU
 * microseconds a step over `steps` steps, where the step's fixed costs
 * show (a parallel region of one thread cost ~1.4 us, three a step:
 * docs/performance.md, "Small scenes"). */
static double short_rope_us(const char *relax, int steps) {
  char y[512];
  snprintf(y, sizeof y,
           "time: {dt: 0.016666666666666666, frames: %d}\n"
           "solver: {iterations: 10, relaxation: %s}\n"
           "bodies:\n  - rope: {from: [0, 1, 0], to: [1, 1, 0], segments: 10, pin: [0]}\n",
           steps, relax);
  vs_scene *s;
  vs_model *m;
  vs_state *st;
  if (load(y, &s, &m, &st)) return NAN;
  st->threads = 1;
  vs_error e;
  pin(1);
  double t0 = cpu_now();
  int f = 0;
  for (; f < steps; f++)
    if (vs_step(m, st, &e) != VS_OK) break;
  double us = 1e6 * (cpu_now() - t0) / steps;
  pin(0);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(s);
  return f == steps ? us : NAN;
}

/* the UV sphere's rings and segments (--ball N; the bench's row: 224, 99 904
 * triangles) */
static int g_ball = 224;
/* --reps N: each of the collision row's three runs (no collider, sphere,
 * mesh) made N times, interleaved, and each frame's least time taken: the
 * host's noise only ever adds time */
static int g_reps = 1;

/* The collision against a 100k-triangle mesh collider vs an analytic ball of
 * the same radius (the time of the frame less the time without a collider). */
/* (windows > 0: also each window of that many frames, mesh and sphere
 * against no collider, printed) */
static int mesh_collision_row(int frames, int side, double *mesh_ms, double *sphere_ms, int *ntri,
                              int windows) {
  char dir[] = "/tmp/vsim-bench-XXXXXX";
  if (!mkdtemp(dir)) return -1;
  char obj[600], col[800], cmd[700];
  snprintf(obj, sizeof obj, "%s/ball.obj", dir);
  const double c[3] = {0, 0.5, 0};
  if (write_sphere_obj(obj, 0.5, c, g_ball, g_ball, side)) return -1;
  snprintf(col, sizeof col, "{mesh: {file: \"%s\"}}", obj);
  pin(1);
  /* pf: each frame's CPU seconds, no collider, sphere, mesh (the least of
   * g_reps runs); one: a run's */
  double *pf = g_reps > 1 || windows > 0 ? calloc(6 * (size_t)frames, sizeof *pf) : NULL;
  double *one = pf ? pf + 3 * frames : NULL;
  const char *cols[3] = {"", "{sphere: {center: [0, 0.5, 0], radius: 0.5}}", col};
  double tot[3] = {0, 0, 0};
  int bad = 0;
  for (int r = 0; r < (pf ? g_reps : 1); r++)
    for (int k = 0; k < 3; k++) {
      if (one) memset(one, 0, (size_t)frames * sizeof *one);
      tot[k] = collision_ms(cols[k], frames, k == 2 ? ntri : NULL, one);
      bad |= !isfinite(tot[k]);
      for (int f = 0; one && f < frames; f++)
        if (r == 0 || one[f] < pf[k * frames + f]) pf[k * frames + f] = one[f];
    }
  pin(0);
  if (pf && g_reps > 1) /* the figures from each frame's least time */
    for (int k = 0; k < 3; k++) {
      double sum = 0;
      for (int f = 0; f < frames; f++) sum += pf[k * frames + f];
      tot[k] = 1e3 * sum / frames;
    }
  const double none = tot[0], sph = tot[1], mesh = tot[2];
  for (int w0 = 0; windows > 0 && pf && w0 < frames; w0 += windows) {
    const int w1 = w0 + windows < frames ? w0 + windows : frames;
    double n = 0, sp = 0, me = 0;
    for (int f = w0; f < w1; f++) n += pf[f], sp += pf[frames + f], me += pf[2 * frames + f];
    printf("  frames %3d-%3d: no collider %.3f, sphere +%.3f, mesh +%.3f ms/frame: %.2fx\n", w0,
           w1 - 1, 1e3 * n / (w1 - w0), 1e3 * (sp - n) / (w1 - w0), 1e3 * (me - n) / (w1 - w0),
           (me - n) / (sp - n));
  }
  free(pf);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return -1;
  *mesh_ms = mesh - none;
  *sphere_ms = sph - none;
  return !bad && isfinite(mesh) && isfinite(sph) && isfinite(none) ? 0 : -1;
}

typedef struct bullet_result {
  int n;
  long long links;
  double ms_per_frame, ns_per_proj, max_rel;
} bullet_result;

/* One Bullet cloth: the peer program prints "links ms ns max_rel". */
static int run_bullet(const char *prog, int n, int frames, bullet_result *b) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "%s %d %d 10", prog, n, frames);
  pin(1);
  FILE *p = popen(cmd, "r");
  pin(0);
  if (!p) return -1;
  b->n = n;
  int got = fscanf(p, "%lld %lf %lf %lf", &b->links, &b->ms_per_frame, &b->ns_per_proj, &b->max_rel);
  int rc = pclose(p);
  return (got == 4 && rc == 0) ? 0 : -1;
}

/* The rigid pyramid (20 levels, 210 boxes of 0.2 m, 600 frames of 1/60 s):
 * prog prints "... : MS ms/frame (CPU), max drift D m ...". */
static int run_pyramid(const char *prog, double *ms, double *drift) {
  char cmd[1200], line[512];
  snprintf(cmd, sizeof cmd, "%s 20 600", prog);
  pin(1);
  FILE *p = popen(cmd, "r");
  pin(0);
  if (!p) return -1;
  int got = 0;
  while (fgets(line, sizeof line, p)) {
    /* "...: 0.775 ms/frame (CPU), max drift 0.0071 m, ...": the number
     * after the last ": " before "ms/frame" (what precedes it varies: the
     * settings, "sequential" or "N threads") */
    char *c = strstr(line, " ms/frame (CPU)");
    if (!c) continue;
    *c = '\0';
    const char *num = strrchr(line, ':');
    *c = ' ';
    if (num && sscanf(num, ": %lf ms/frame (CPU), max drift %lf", ms, drift) == 2) got = 1;
  }
  int rc = pclose(p);
  return got && rc == 0 ? 0 : -1;
}

/* cmd/heap.c: `vsim run`'s heap on transparent huge pages */
void cli_heap_setup(void);

int main(int argc, char **argv) {
  /* --huge-heap (first argument only, before anything is allocated): the
   * heap that `vsim run` gives the library, so that --only writer measures
   * what users get (docs/performance.md, "Writing") */
  if (argc > 1 && !strcmp(argv[1], "--huge-heap")) {
    cli_heap_setup();
    argv++, argc--;
  }
  pick_core();
  const char *out = "build/bench/bench.json", *vsim = "build/vsim", *bullet = NULL;
  const char *pyramid = NULL, *bullet_pyramid = NULL;
  int quick = 0, full = 0;
  /* --frames N: --only collision, N frames from the drop (default 30); --only
   * writer, a run of N frames (default 100) */
  int only_frames = 0;
  int coll_windows = 0; /* --only collision --windows W: each W frames' figures too */
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) only_frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--windows") && i + 1 < argc) coll_windows = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ball") && i + 1 < argc && atoi(argv[i + 1]) >= 8 &&
             atoi(argv[i + 1]) <= 2048)
      g_ball = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) >= 1 &&
             atoi(argv[i + 1]) <= 100)
      g_reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--collision")) only = "collision";
    else if (!strcmp(argv[i], "--full")) full = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--vsim") && i + 1 < argc) vsim = argv[++i];
    else if (!strcmp(argv[i], "--bullet") && i + 1 < argc) bullet = argv[++i];
    else if (!strcmp(argv[i], "--pyramid") && i + 1 < argc) pyramid = argv[++i];
    else if (!strcmp(argv[i], "--bullet-pyramid") && i + 1 < argc) bullet_pyramid = argv[++i];
    else {
      fprintf(stderr, "usage: bench [--huge-heap] [--quick|--full] [--out FILE] [--vsim PATH] [--bullet PATH] "
                      "[--pyramid PATH] [--bullet-pyramid PATH] [--only writer|startup|collision] "
                      "[--collision] [--frames N] [--windows W] [--ball N] [--reps N]\n");
      return 2;
    }
  }
  /* --only: one figure, printed alone (no table, no JSON), for A/B runs */
  if (only && !strcmp(only, "writer")) {
    const int wf = only_frames > 0 ? only_frames : 100;
    double share, with_s, without_s;
    if (writer_share(wf, &share, &with_s, &without_s)) return 1;
    print_writer(wf, share, with_s, without_s);
    return 0;
  }
  if (only && !strcmp(only, "startup")) {
    double best = NAN, med = startup_ms(vsim, &best);
    printf("start-up of `vsim run` on a tiny scene: %.2f ms (median of 21, posix_spawn + waitpid; fastest %.2f ms)\n",
           med, best);
    return 0;
  }
  if (only && !strcmp(only, "collision")) { /* the mesh collision row alone (--quick: 10 frames, else 30) */
    double mesh_ms, sphere_ms;
    int ntri = 0;
    for (int side = 0; side < 2; side++) {
      if (mesh_collision_row(only_frames > 0 ? only_frames : quick ? 10 : 30, side, &mesh_ms,
                             &sphere_ms, &ntri, coll_windows))
        return 1;
      printf("collision, 128^2 cloth on a ball (%s), CPU ms/frame: mesh collider of %d triangles "
             "%.3f, analytic sphere %.3f: %.2fx\n",
             side ? "poles on x" : "pole up", ntri, mesh_ms, sphere_ms, mesh_ms / sphere_ms);
    }
    return 0;
  }
  const int sizes[] = {64, 128, 256, 512};
  /* --quick: 64^2 and 128^2, 20 frames (seconds); default: up to 256^2
   * (about a minute on 2 cores, Bullet's rows included); --full adds 512^2.  Every figure is the
   * median of ROUNDS rounds (one with --quick); a round runs every
   * configuration once, then Bullet's cloths, so that the runs of one
   * configuration are spread over the whole bench, as the "medians
   * of 3 alternating runs" (a single run of a two-thread configuration
   * swung 1.5x-2.2x with the host's load). */
  const int nsizes = quick ? 2 : full ? 4 : 3, frames = quick ? 20 : 100;
  const int rounds = quick ? 1 : ROUNDS;
  const char *integs[] = {"pbd", "xpbd"};
  struct { const char *relax; int threads; } modes[] = {{"gauss-seidel", 1}, {"jacobi", 1}, {"jacobi", 2}};
  enum { NCONF = 4 * 2 * 3 };
  result res[NCONF], runs[NCONF][ROUNDS];
  bullet_result bres[8], bruns[8][ROUNDS];
  int nres = 0, nb = 0, bullet_ok = bullet != NULL;
  for (int si = 0; si < nsizes; si++)
    for (int ii = 0; ii < 2; ii++)
      for (int mi = 0; mi < 3; mi++, nres++) {
        result *r = &res[nres];
        memset(r, 0, sizeof *r);
        r->n = sizes[si], r->relax = modes[mi].relax, r->integ = integs[ii], r->threads = modes[mi].threads;
      }
  printf("(each figure: the median of %d round%s", rounds, rounds > 1 ? "s" : "");
  if (g_core >= 0) printf("; one-thread runs, Bullet's included, on cpu %d", g_core);
  printf(")\n");
  fflush(stdout);
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < nres; i++) {
      runs[i][round] = res[i];
      if (run_isolated(&runs[i][round], frames)) {
        fprintf(stderr, "bench: run failed\n");
        return 1;
      }
    }
    for (int si = 0; bullet_ok && si < nsizes; si++)
      if (run_bullet(bullet, sizes[si], frames, &bruns[si][round])) {
        fprintf(stderr, "bench: %s failed\n", bullet);
        bullet_ok = 0;
      }
  }
  /* each configuration: the run of median time (its other figures with
   * it), and the largest peak memory of its runs */
  for (int i = 0; i < nres; i++) {
    double ms[ROUNDS], peak = 0.0;
    for (int k = 0; k < rounds; k++) {
      ms[k] = runs[i][k].ms_per_frame;
      if (runs[i][k].peak_mib > peak) peak = runs[i][k].peak_mib;
    }
    res[i] = runs[i][median_at(ms, rounds)];
    res[i].peak_mib = peak;
  }
  printf("%-6s %-13s %-5s %3s %7s %11s %12s %8s %11s %9s\n", "cloth", "relaxation", "integ", "thr",
         "colors", "ms/frame", "ns/project", "speedup", "max_rel", "peak MiB");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    char speed[16] = "";
    /* two threads against one: the ratio of the two medians */
    if (i % 3 == 2) snprintf(speed, sizeof speed, "%.2fx", res[i - 1].ms_per_frame / r->ms_per_frame);
    printf("%4d^2 %-13s %-5s %3d %7d %11.3f %12.2f %8s %11.3e %9.1f\n", r->n, r->relax, r->integ,
           r->threads, r->colors, r->ms_per_frame, r->ns_per_proj, speed, r->max_rel, r->peak_mib);
  }
  /* The peer, side by side: Bullet's soft-body cloth against vsim's pbd rows
   * of the same size (Gauss-Seidel and Jacobi on one thread). */
  if (bullet_ok) {
    printf("\n%-6s %9s %12s %11s | %14s %7s %14s %7s %11s\n", "cloth", "Bullet ms", "ns/project",
           "max_rel", "vsim GS ns/pr", "ratio", "vsim Jac ns/pr", "ratio", "vsim max_rel");
    for (int si = 0; si < nsizes; si++) {
      double ms[ROUNDS];
      for (int k = 0; k < rounds; k++) ms[k] = bruns[si][k].ms_per_frame;
      bullet_result *b = &bres[nb];
      *b = bruns[si][median_at(ms, rounds)];
      const result *gs = NULL, *jac = NULL;
      for (int i = 0; i < nres; i++)
        if (res[i].n == sizes[si] && !strcmp(res[i].integ, "pbd") && res[i].threads == 1) {
          if (!strcmp(res[i].relax, "gauss-seidel")) gs = &res[i];
          else jac = &res[i];
        }
      if (!gs || !jac) break;
      printf("%4d^2 %9.3f %12.2f %11.3e | %14.2f %6.2fx %14.2f %6.2fx %11.3e\n", b->n, b->ms_per_frame,
             b->ns_per_proj, b->max_rel, gs->ns_per_proj, b->ns_per_proj / gs->ns_per_proj,
             jac->ns_per_proj, b->ns_per_proj / jac->ns_per_proj, gs->max_rel);
      fflush(stdout);
      nb++;
    }
  }

  double coll_mesh = NAN, coll_sphere = NAN;
  int coll_ntri = 0;
  {
    double cm[ROUNDS], cs[ROUNDS];
    int k = 0;
    for (; k < rounds; k++)
      if (mesh_collision_row(quick ? 10 : 30, 0, &cm[k], &cs[k], &coll_ntri, 0)) {
        fprintf(stderr, "bench: mesh collision measurement failed\n");
        break;
      }
    if (k == rounds) coll_mesh = cm[median_at(cm, rounds)], coll_sphere = cs[median_at(cs, rounds)];
  }
  printf("\ncollision, 128^2 cloth on a ball, CPU ms/frame: mesh collider of %d triangles %.3f, "
         "analytic sphere %.3f: %.2fx\n",
         coll_ntri, coll_mesh, coll_sphere, coll_mesh / coll_sphere);
  double rope_gs = NAN, rope_jac = NAN;
  {
    double g[ROUNDS], j[ROUNDS];
    for (int k = 0; k < rounds; k++) {
      g[k] = short_rope_us("gauss-seidel", quick ? 2000 : 20000);
      j[k] = short_rope_us("jacobi", quick ? 2000 : 20000);
    }
    rope_gs = g[median_at(g, rounds)], rope_jac = j[median_at(j, rounds)];
  }
  printf("\nshort rope (10 links, pbd, 10 iterations, one thread), CPU us/step: gauss-seidel %.3f, "
         "jacobi %.3f\n",
         rope_gs, rope_jac);
  /* The rigid pyramid: vsim's defaults (solver.rigid) beside Bullet's 10
   * iterations, time per frame and the largest drift of a box after 10 s. */
  double pv_ms = NAN, pv_drift = NAN, pb_ms = NAN, pb_drift = NAN;
  if (pyramid) {
    if (run_pyramid(pyramid, &pv_ms, &pv_drift)) fprintf(stderr, "bench: %s failed\n", pyramid);
    if (bullet_pyramid && run_pyramid(bullet_pyramid, &pb_ms, &pb_drift))
      fprintf(stderr, "bench: %s failed\n", bullet_pyramid);
    printf("\n%-28s %13s %13s | %13s %13s\n", "rigid pyramid, 600 frames", "vsim ms/frame",
           "vsim drift m", "Bullet ms/fr", "Bullet drift");
    printf("%-28s %13.3f %13.4f | %13.3f %13.4f\n", "20 levels, 210 boxes", pv_ms, pv_drift, pb_ms,
           pb_drift);
  }

  /* 100 frames (the row) and 1000 (the per-frame cost) */
  static const int wframes[2] = {100, 1000};
  double share[2] = {NAN, NAN};
  printf("\n");
  for (int wi = 0; wi < (quick ? 1 : 2); wi++) {
    /* the run of median share, its phases with it */
    double sh[ROUNDS], w[ROUNDS][8];
    int k = 0;
    for (; k < rounds; k++) {
      if (writer_share(wframes[wi], &sh[k], &w[k][0], &w[k][1])) {
        fprintf(stderr, "bench: writer measurement failed\n");
        break;
      }
      w[k][2] = g_cpu_step_with, w[k][3] = g_cpu_step_without, w[k][4] = g_cpu_other_with;
      w[k][5] = g_open_ms, w[k][6] = g_record_ms, w[k][7] = g_finish_ms;
    }
    if (k == rounds) {
      k = median_at(sh, rounds);
      share[wi] = sh[k];
      g_cpu_step_with = w[k][2], g_cpu_step_without = w[k][3], g_cpu_other_with = w[k][4];
      g_open_ms = w[k][5], g_record_ms = w[k][6], g_finish_ms = w[k][7];
      print_writer(wframes[wi], sh[k], w[k][0], w[k][1]);
    }
  }
  double best = NAN, start = startup_ms(vsim, &best);
  printf("start-up of `vsim run` on a tiny scene: %.2f ms (median of 21, posix_spawn + waitpid; fastest %.2f ms)\n",
         start, best);

  char dir[512];
  snprintf(dir, sizeof dir, "%s", out);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    mkdir(dir, 0777);
  }
  FILE *f = fopen(out, "w");
  if (!f) {
    fprintf(stderr, "bench: cannot write %s: %s\n", out, strerror(errno));
    return 1;
  }
  fprintf(f, "{\n  \"vsim\": \"%s\",\n  \"frames\": %d,\n  \"iterations\": 10,\n  \"rounds\": %d,\n  \"runs\": [\n",
          vs_version(), frames, rounds);
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    fprintf(f,
            "    {\"cloth\": %d, \"links\": %lld, \"relaxation\": \"%s\", \"integrator\": \"%s\", "
            "\"threads\": %d, \"colors\": %d, \"ms_per_frame\": %.6f, \"ns_per_projection\": %.4f, "
            "\"max_relative_error\": %.6e, \"peak_mib\": %.2f}%s\n",
            r->n, r->links, r->relax, r->integ, r->threads, r->colors, r->ms_per_frame, r->ns_per_proj,
            r->max_rel, r->peak_mib, i + 1 < nres ? "," : "");
  }
  fprintf(f, "  ],\n  \"bullet\": [\n");
  for (int i = 0; i < nb; i++)
    fprintf(f,
            "    {\"cloth\": %d, \"links\": %lld, \"ms_per_frame\": %.6f, \"ns_per_projection\": %.4f, "
            "\"max_relative_error\": %.6e}%s\n",
            bres[i].n, bres[i].links, bres[i].ms_per_frame, bres[i].ns_per_proj, bres[i].max_rel,
            i + 1 < nb ? "," : "");
  fprintf(f, "  ],\n  \"pyramid\": {\"vsim_ms_per_frame\": %.6f, \"vsim_drift\": %.6f, "
             "\"bullet_ms_per_frame\": %.6f, \"bullet_drift\": %.6f},\n",
          isfinite(pv_ms) ? pv_ms : -1.0, isfinite(pv_drift) ? pv_drift : -1.0,
          isfinite(pb_ms) ? pb_ms : -1.0, isfinite(pb_drift) ? pb_drift : -1.0);
  fprintf(f,
          "  \"writer_share\": %.6f,\n  \"writer_share_1000_frames\": %.6f,\n"
          "  \"startup_ms\": %.4f,\n"
          "  \"collision_mesh\": {\"triangles\": %d, \"mesh_ms\": %.4f, \"sphere_ms\": %.4f},\n"
          "  \"short_rope_us_per_step\": {\"gauss_seidel\": %.4f, \"jacobi\": %.4f}\n}\n",
          isfinite(share[0]) ? share[0] : -1.0, isfinite(share[1]) ? share[1] : -1.0, start,
          coll_ntri, coll_mesh, coll_sphere, isfinite(rope_gs) ? rope_gs : -1.0,
          isfinite(rope_jac) ? rope_jac : -1.0);
  fclose(f);
  printf("wrote %s\n", out);
  return 0;
}
