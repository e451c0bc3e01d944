/* sweep.c: `vsim sweep SWEEP.yaml [-o DIR] [-j N] [options]` (SPEC.md §6).
 *
 * Every point runs as a child process executing this very program as
 * `vsim run SCENE --set KEY=VALUE... [--frames N] -o DIR/point-NNNN.h5`, so
 * a point's file is the same file, bit for bit, as that command writes by
 * hand, and a point that crashes takes only itself down.  The child's
 * `--summary json` line gives the status, final constraint error and wall
 * time for DIR/summary.csv.
 *
 * Ways to spread the points, all writing the same point files:
 *   -j N          N children at a time on this machine;
 *   --point K     only point K (a Slurm array task, a GNU parallel job),
 *                 which also writes DIR/point-NNNN.csv; --collect merges
 *                 those into DIR/summary.csv;
 *   mpirun -np R  (built with `make MPI=1`) rank r runs points r, r + R,
 *                 r + 2R, ...; rank 0 gathers the results and writes
 *                 DIR/summary.csv. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef VS_WITH_MPI
#include <mpi.h>
#endif

#include "args.h"
#include "cli.h"

/* DIR is at most MAX_DIR bytes (checked when parsing -o), so that every
 * name made from it fits in PATH_MAX. */
#define MAX_DIR (PATH_MAX - 64)

enum {
  OPT_OUTPUT = 1,
  OPT_JOBS,
  OPT_FORCE,
  OPT_LIST,
  OPT_POINT,
  OPT_COLLECT,
  OPT_THREADS,
  OPT_QUIET,
  OPT_HELP
};

static const cli_opt sweep_opts[] = {
    {OPT_OUTPUT, "output", 'o', "DIR",
     "directory for point-NNNN.h5 and summary.csv [the sweep file's name without .yaml]"},
    {OPT_JOBS, "jobs", 'j', "N", "points run at a time on this machine [1]; 0 = one per core"},
    {OPT_FORCE, "force", 'f', NULL, "overwrite existing point files and summary.csv"},
    {OPT_LIST, "list", 0, NULL, "print the points (index, then KEY=VALUE per parameter) and exit"},
    {OPT_POINT, "point", 0, "K",
     "run only point K (0-based), e.g. --point \"$SLURM_ARRAY_TASK_ID\"; writes "
     "DIR/point-NNNN.csv, not summary.csv"},
    {OPT_COLLECT, "collect", 0, NULL,
     "write DIR/summary.csv from the point-NNNN.csv files of --point runs"},
    {OPT_THREADS, "threads", 0, "N", "solver threads of each point [1] (vsim run --threads)"},
    {OPT_QUIET, "quiet", 'q', NULL, "nothing on stderr but errors"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_SWEEP_OPTS (sizeof sweep_opts / sizeof sweep_opts[0])

void cmd_sweep_help(void) {
  printf(
      "Usage: vsim sweep SWEEP.yaml [-o DIR] [-j N] [options]\n"
      "\n"
      "Run a scene once per point of a parameter sweep.  SWEEP.yaml:\n"
      "\n"
      "  scene: cloth.yaml            # relative to the sweep file\n"
      "  frames: 200                  # optional, like vsim run --frames\n"
      "  mode: grid                   # grid (every combination, last key fastest) | zip\n"
      "  parameters:\n"
      "    solver.iterations: [5, 10, 20]\n"
      "    solver.relaxation: [gauss-seidel, jacobi]\n"
      "\n"
      "Point K runs exactly as `vsim run SCENE --set KEY=VALUE... [--frames N]\n"
      "-o DIR/point-NNNN.h5` (NNNN = K, from 0, four digits) and DIR/summary.csv gets\n"
      "one row per point: point, each parameter, status, final_constraint_error,\n"
      "wall_seconds, file.  A point that fails is recorded as failed and the others\n"
      "still run.  The sweep file and its point 0 are checked before anything runs.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, sweep_opts, N_SWEEP_OPTS);
  printf(
      "\n"
      "On a cluster:\n"
      "  vsim sweep s.yaml --list                      the points, one a line\n"
      "  sbatch --array=0-7 job.sh   with  vsim sweep s.yaml -o out --point "
      "\"$SLURM_ARRAY_TASK_ID\"\n"
      "  parallel vsim sweep s.yaml -o out --point {} ::: $(seq 0 7)\n"
      "  vsim sweep s.yaml -o out --collect            summary.csv from the points' .csv files\n"
      "  mpirun -np 4 build/mpi/vsim sweep s.yaml -o out   (make MPI=1)\n"
      "\n"
      "Exit status: 0 every point complete; 1 a point failed or the sweep was\n"
      "interrupted; 2 bad usage, a bad sweep file, an invalid point 0, or existing\n"
      "output without --force (nothing is run).\n");
}

typedef struct sweep_args {
  const char *file;
  const char *dir; /* NULL = default */
  int64_t jobs;
  int force;
  int list;
  int64_t point; /* -1 = all */
  int collect;
  int64_t threads;
  int quiet;
} sweep_args;

/* Returns -1 to go on, else an exit code. */
static int parse_sweep_args(int argc, char **argv, sweep_args *a) {
  memset(a, 0, sizeof *a);
  a->jobs = 1;
  a->point = -1;
  a->threads = 1;
  cli_parser p;
  cli_init(&p, "sweep", argc, argv, sweep_opts, N_SWEEP_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_BAD:
        return CLI_EXIT_USAGE;
      case CLI_OPERAND:
        if (a->file)
          return cli_usage_error("sweep", "one sweep file at a time (got '%s' and '%s')", a->file,
                                 v);
        a->file = v;
        break;
      case OPT_OUTPUT:
        if (!*v) return cli_usage_error("sweep", "--output: empty path");
        if (strlen(v) > MAX_DIR) return cli_usage_error("sweep", "--output: path too long");
        a->dir = v;
        break;
      case OPT_JOBS:
        if (cli_parse_int64("sweep", "--jobs", v, 0, 4096, &a->jobs)) return CLI_EXIT_USAGE;
        break;
      case OPT_FORCE:
        a->force = 1;
        break;
      case OPT_LIST:
        a->list = 1;
        break;
      case OPT_POINT:
        if (cli_parse_int64("sweep", "--point", v, 0, VS_MAX_SWEEP_POINTS - 1, &a->point))
          return CLI_EXIT_USAGE;
        break;
      case OPT_COLLECT:
        a->collect = 1;
        break;
      case OPT_THREADS:
        if (cli_parse_int64("sweep", "--threads", v, 0, 4096, &a->threads)) return CLI_EXIT_USAGE;
        break;
      case OPT_QUIET:
        a->quiet = 1;
        break;
      case OPT_HELP:
        cmd_sweep_help();
        return CLI_EXIT_OK;
      default:
        return CLI_EXIT_USAGE;
    }
  }
  if (!a->file) return cli_usage_error("sweep", "which sweep file? (vsim sweep SWEEP.yaml)");
  if (a->list + a->collect + (a->point >= 0) > 1)
    return cli_usage_error("sweep", "--list, --point and --collect go one at a time");
  return -1;
}

/* ---- the ranks: one process, or an MPI world ------------------------------ */

typedef struct world {
  int rank, size;
  int mpi; /* MPI_Init was called */
} world;

/* True when a launcher (mpirun, srun) started this process as one of many. */
static int launched_as_rank(int *size) {
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  for (size_t i = 0; i < 2; i++) {
    const char *s = getenv(vars[i]);
    if (s && *s) {
      *size = atoi(s);
      return 1;
    }
  }
  *size = 0; /* PMIx says that we are a rank, not how many there are */
  return getenv("PMIX_RANK") != NULL;
}

static void world_init(world *w) {
  w->rank = 0;
  w->size = 1;
  w->mpi = 0;
  int n = 1;
  if (!launched_as_rank(&n)) return;
#ifdef VS_WITH_MPI
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w->size);
  w->mpi = 1;
#else
  /* Without MPI every rank would run every point into the same files. */
  if (n > 1) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    w->rank = r ? atoi(r) : 0;
    w->size = n;
  }
#endif
}

/* Every rank returns rank 0's code, so that all of them exit alike. */
static int world_agree(const world *w, int code) {
#ifdef VS_WITH_MPI
  if (w->mpi) MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return code;
}

static void world_end(world *w) {
#ifdef VS_WITH_MPI
  if (w->mpi) MPI_Finalize();
#endif
  w->mpi = 0;
}

/* ---- signals: stop starting points and pass the signal on ----------------
 * The children run in their own process groups, so that a Ctrl-C reaches
 * them once, through us: their first signal makes them finish the frame
 * and close the file as "interrupted"; a second one (a second Ctrl-C) makes
 * them stop at once. */

static volatile sig_atomic_t g_signals, g_last_signal;

static void on_signal(int sig) {
  g_last_signal = sig;
  g_signals++;
}

static void install_signals(struct sigaction *old_int, struct sigaction *old_term) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
  sigemptyset(&sa.sa_mask);
  g_signals = 0;
  sigaction(SIGINT, &sa, old_int);
  sigaction(SIGTERM, &sa, old_term);
}

static void restore_signals(const struct sigaction *old_int, const struct sigaction *old_term) {
  sigaction(SIGINT, old_int, NULL);
  sigaction(SIGTERM, old_term, NULL);
}

/* ---- the outcome of one point --------------------------------------------- */

/* Fixed size and plain data: MPI ranks send it to rank 0 as bytes. */
typedef struct point_result {
  int32_t ran;        /* 0: never started (the sweep was interrupted first) */
  int32_t exit_code;  /* of `vsim run`; 128 + signal when it was killed */
  int32_t has_file;   /* DIR/point-NNNN.h5 was written by this run */
  char status[16];    /* complete | failed | interrupted | skipped */
  double final_error; /* max |C| at the last frame; NaN when unknown */
  double wall;        /* s, as the run reports it (else as measured here) */
} point_result;

static void result_skipped(point_result *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->status, sizeof r->status, "skipped");
  r->final_error = NAN;
  r->wall = NAN;
}

/* A value in the run's one-line JSON summary: what follows "key":. */
static const char *json_at(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = json ? strstr(json, pat) : NULL;
  return p ? p + strlen(pat) : NULL;
}

static double json_number(const char *json, const char *key) {
  const char *p = json_at(json, key);
  if (!p || *p == 'n') return NAN; /* absent or null */
  char *end;
  double v = strtod(p, &end);
  return end == p ? NAN : v;
}

static int json_word(const char *json, const char *key, char *out, size_t size) {
  const char *p = json_at(json, key);
  if (!p || *p != '"') return 0;
  size_t n = 0;
  for (p++; *p && *p != '"' && n + 1 < size; p++) out[n++] = *p;
  out[n] = '\0';
  return 1;
}

/* ---- paths ------------------------------------------------------------------ */

static void point_path(char *buf, size_t size, const char *dir, size_t k, const char *ext) {
  if (snprintf(buf, size, "%s/point-%04zu.%s", dir, k, ext) >= (int)size) buf[size - 1] = '\0';
}

static void summary_path(char *buf, size_t size, const char *dir) {
  if (snprintf(buf, size, "%s/summary.csv", dir) >= (int)size) buf[size - 1] = '\0';
}

static int exists(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat sb;
  if (stat(buf, &sb) != 0) return -1;
  if (!S_ISDIR(sb.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

/* The default DIR: the sweep file's base name without .yaml / .yml, in the
 * current directory ("sweeps/iters.yaml" -> "iters"). */
static void default_dir(const char *file, char *buf, size_t size) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".yaml"))
    n -= 5;
  else if (n > 4 && !strcmp(base + n - 4, ".yml"))
    n -= 4;
  else if (n == 0)
    base = "sweep", n = 5;
  snprintf(buf, size, "%.*s", (int)n, base);
}

/* A file the run left behind when it was killed: .point-NNNN.h5.tmp-PID-* */
static void remove_temp_files(const char *dir, size_t k, pid_t pid) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, ".point-%04zu.h5.tmp-%ld-", k, (long)pid);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path) unlink(path);
  }
  closedir(d);
}

/* ---- the sweep as a whole ------------------------------------------------- */

typedef struct sweep_run {
  const sweep_args *a;
  const vs_sweep *s;
  const char *dir;
  char self[PATH_MAX]; /* this program, to run `vsim run` */
  size_t done, failed; /* points finished here so far, and how many not complete */
} sweep_run;

/* "KEY=VALUE KEY=VALUE" of point k, for messages. */
static void point_label(const vs_sweep *s, size_t k, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < s->n_params && n + 1 < size; i++) {
    int w = snprintf(buf + n, size - n, "%s%s", i ? " " : "", vs_sweep_set(s, k, i));
    if (w < 0) break;
    n += (size_t)w;
  }
  if (n + 1 >= size && size > 4) memcpy(buf + size - 4, "...", 4);
}

/* Check the sweep's point 0 as `vsim validate` would: the scene with its
 * overrides loads and compiles.  A bad value is reported at its place in
 * the sweep file. */
static int validate_point(const vs_sweep *s, size_t k) {
  vs_override *sets = calloc(s->n_params + 1, sizeof *sets);
  if (!sets) {
    fprintf(stderr, "vsim sweep: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  char frames_set[64];
  size_t n = 0;
  for (size_t i = 0; i < s->n_params; i++) sets[n++].text = vs_sweep_set(s, k, i);
  if (s->frames >= 0) {
    snprintf(frames_set, sizeof frames_set, "time.frames=%lld", (long long)s->frames);
    sets[n++].text = frames_set;
  }
  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  vs_status st = vs_scene_load_file(s->scene, sets, n, &scene, &err);
  if (st == VS_OK) st = vs_model_build(scene, &model, &err);
  vs_model_free(model);
  vs_scene_free(scene);
  int code = CLI_EXIT_OK;
  if (st != VS_OK) {
    code = cli_exit_code(st, CLI_PHASE_INPUT);
    /* "--set KEY=VALUE: why" comes from one of our values: point at it. */
    size_t hit = s->n_params;
    for (size_t i = 0; i < s->n_params && !strcmp(err.file, "--set"); i++) {
      const char *set = vs_sweep_set(s, k, i);
      size_t sl = strlen(set);
      if (!strncmp(err.message, "--set ", 6) && !strncmp(err.message + 6, set, sl) &&
          err.message[6 + sl] == ':')
        hit = i;
    }
    if (hit < s->n_params) {
      const vs_sweep_param *p = &s->params[hit];
      const char *why = err.message + 6 + strlen(vs_sweep_set(s, k, hit)) + 1;
      while (*why == ' ') why++;
      /* the scene loader's message names the key; an unknown key is the
       * key's fault, anything else the value's */
      vs_loc at =
          strstr(why, "unknown key") ? p->loc : p->value_locs[vs_sweep_value_index(s, k, hit)];
      fprintf(stderr, "vsim: %s:%d:%d: %s (point %zu)\n", s->file, at.line, at.column, why, k);
    } else if (!strcmp(err.file, s->scene) && err.line == 0 && st == VS_ERR_IO) {
      fprintf(stderr, "vsim: %s:%d:%d: scene: %s\n", s->file, s->scene_loc.line,
              s->scene_loc.column, err.message);
    } else {
      cli_report(&err, s->scene);
    }
    char label[512];
    point_label(s, k, label, sizeof label);
    fprintf(stderr, "vsim sweep: point %zu (%s) is invalid; nothing was run\n", k, label);
  }
  free(sets);
  return code;
}

/* Refuse to overwrite without --force; with it, remove the old point files
 * first, so that a file found after a run is that run's. */
static int check_outputs(const sweep_run *r, const size_t *points, size_t n, int summary) {
  char path[PATH_MAX], first[PATH_MAX] = "";
  size_t clash = 0;
  for (size_t i = 0; i <= n; i++) {
    for (int ext = 0; ext < 2; ext++) {
      if (i == n && ext == 1) break;
      if (i == n) {
        if (!summary) break;
        summary_path(path, sizeof path, r->dir);
      } else {
        if (ext == 1 && r->a->point < 0) continue;
        point_path(path, sizeof path, r->dir, points[i], ext ? "csv" : "h5");
      }
      if (!exists(path)) continue;
      if (r->a->force) {
        if (unlink(path) != 0) {
          fprintf(stderr, "vsim: %s: cannot remove: %s\n", path, strerror(errno));
          return CLI_EXIT_USAGE;
        }
      } else if (clash++ == 0) {
        snprintf(first, sizeof first, "%s", path);
      }
    }
  }
  if (clash) {
    if (clash == 1)
      fprintf(stderr, "vsim: %s: exists; use -f/--force to overwrite it\n", first);
    else
      fprintf(stderr, "vsim: %s: exists (and %zu more); use -f/--force to overwrite them\n", first,
              clash - 1);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- running points as children ------------------------------------------ */

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void text_add(text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->n + n + 1) cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) return; /* a message lost to lack of memory; the status still counts */
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = '\0';
}

typedef struct child {
  pid_t pid;
  size_t point;
  int fd[2]; /* its stdout (the JSON summary) and stderr; -1 once at end of file */
  text out[2];
  double t0;
  int signalled; /* signals passed on to it */
} child;

static int start_point(sweep_run *r, size_t k, child *c) {
  const vs_sweep *s = r->s;
  char out[PATH_MAX], frames[32], threads[32];
  point_path(out, sizeof out, r->dir, k, "h5");
  snprintf(frames, sizeof frames, "%lld", (long long)s->frames);
  snprintf(threads, sizeof threads, "%lld", (long long)r->a->threads);
  const char **argv = calloc(2 * s->n_params + 20, sizeof *argv);
  if (!argv) return -1;
  size_t n = 0;
  argv[n++] = r->self;
  argv[n++] = "run";
  argv[n++] = s->scene;
  for (size_t i = 0; i < s->n_params; i++) {
    argv[n++] = "--set";
    argv[n++] = vs_sweep_set(s, k, i);
  }
  if (s->frames >= 0) {
    argv[n++] = "--frames";
    argv[n++] = frames;
  }
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n++] = "--threads";
  argv[n++] = threads;
  argv[n++] = "--quiet";
  argv[n++] = "--no-progress";
  argv[n++] = "--summary";
  argv[n++] = "json";
  argv[n] = NULL;

  int po[2] = {-1, -1}, pe[2] = {-1, -1};
  if (pipe(po) != 0 || pipe(pe) != 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (po[i] >= 0) close(po[i]);
      if (pe[i] >= 0) close(pe[i]);
    }
    free(argv);
    errno = e;
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0) _exit(127);
    close(po[0]);
    close(po[1]);
    close(pe[0]);
    close(pe[1]);
    execv(r->self, (char *const *)argv);
    dprintf(2, "vsim sweep: cannot run %s: %s\n", r->self, strerror(errno));
    _exit(127);
  }
  int e = errno;
  free(argv);
  close(po[1]);
  close(pe[1]);
  if (pid < 0) {
    close(po[0]);
    close(pe[0]);
    errno = e;
    return -1;
  }
  memset(c, 0, sizeof *c);
  c->pid = pid;
  c->point = k;
  c->fd[0] = po[0];
  c->fd[1] = pe[0];
  c->t0 = cli_now();
  return 0;
}

/* Print what the run said on stderr, each line tagged with its point. */
static void relay_messages(size_t k, const text *t) {
  if (!t->n) return;
  const char *p = t->p;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    fprintf(stderr, "[point %zu] %.*s\n", k, (int)len, p);
    p += len + (nl ? 1 : 0);
  }
}

static void finish_point(sweep_run *r, child *c, int wstatus, point_result *res) {
  const vs_sweep *s = r->s;
  size_t k = c->point;
  memset(res, 0, sizeof *res);
  res->ran = 1;
  res->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  const char *json = c->out[0].p;
  char status[16] = "";
  int summarised = json_word(json, "status", status, sizeof status);
  res->final_error = summarised ? json_number(json, "final_constraint_error") : NAN;
  res->wall = summarised ? json_number(json, "wall_seconds") : NAN;
  if (!isfinite(res->wall)) res->wall = cli_now() - c->t0;
  if (!summarised || (res->exit_code != 0 && !strcmp(status, "complete")))
    snprintf(status, sizeof status, "%s", c->signalled && !summarised ? "interrupted" : "failed");
  snprintf(res->status, sizeof res->status, "%s", status);
  if (!WIFEXITED(wstatus)) remove_temp_files(r->dir, k, c->pid);
  char path[PATH_MAX];
  point_path(path, sizeof path, r->dir, k, "h5");
  res->has_file = exists(path);

  relay_messages(k, &c->out[1]);
  r->done++;
  if (strcmp(res->status, "complete") != 0) r->failed++;
  if (!r->a->quiet || strcmp(res->status, "complete") != 0) {
    char label[512];
    point_label(s, k, label, sizeof label);
    if (WIFSIGNALED(wstatus))
      fprintf(stderr, "vsim sweep: point %zu %s (killed by signal %d): %s\n", k, res->status,
              WTERMSIG(wstatus), label);
    else if (!strcmp(res->status, "complete"))
      fprintf(stderr, "vsim sweep: point %zu complete in %.3g s: %s\n", k, res->wall, label);
    else
      fprintf(stderr, "vsim sweep: point %zu %s (exit %d): %s\n", k, res->status, res->exit_code,
              label);
  }
  for (int i = 0; i < 2; i++) free(c->out[i].p);
}

/* Run points[0..n) with at most `jobs` children at a time; results by point. */
static int run_points(sweep_run *r, const size_t *points, size_t n, size_t jobs,
                      point_result *results) {
  child *kids = calloc(jobs, sizeof *kids);
  struct pollfd *pf = calloc(2 * jobs, sizeof *pf);
  size_t *owner = calloc(2 * jobs, sizeof *owner);
  if (!kids || !pf || !owner) {
    free(kids);
    free(pf);
    free(owner);
    fprintf(stderr, "vsim sweep: out of memory\n");
    return -1;
  }
  size_t next = 0, active = 0;
  int rc = 0;
  for (;;) {
    while (!g_signals && active < jobs && next < n) {
      if (start_point(r, points[next], &kids[active]) != 0) {
        fprintf(stderr, "vsim sweep: cannot start point %zu: %s\n", points[next], strerror(errno));
        rc = -1;
        break;
      }
      next++;
      active++;
    }
    if (active == 0) break;

    /* pass signals on: one each time one arrives here */
    for (size_t i = 0; i < active; i++) {
      while (kids[i].signalled < g_signals) {
        kill(kids[i].pid, g_last_signal ? g_last_signal : SIGTERM);
        kids[i].signalled++;
      }
    }

    size_t nf = 0;
    for (size_t i = 0; i < active; i++)
      for (int j = 0; j < 2; j++)
        if (kids[i].fd[j] >= 0) {
          pf[nf].fd = kids[i].fd[j];
          pf[nf].events = POLLIN;
          pf[nf].revents = 0;
          owner[nf++] = 2 * i + (size_t)j;
        }
    /* a timeout too, so that a signal between the checks above and poll()
     * is seen soon */
    int got = nf ? poll(pf, nf, 200) : 0;
    for (size_t f = 0; got > 0 && f < nf; f++) {
      if (!pf[f].revents) continue;
      child *c = &kids[owner[f] / 2];
      int j = (int)(owner[f] % 2);
      char buf[4096];
      ssize_t m = read(c->fd[j], buf, sizeof buf);
      if (m > 0) {
        text_add(&c->out[j], buf, (size_t)m);
      } else if (m == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(c->fd[j]);
        c->fd[j] = -1;
      }
    }
    /* a child whose pipes are closed has exited (or is about to) */
    for (size_t i = 0; i < active;) {
      child *c = &kids[i];
      if (c->fd[0] >= 0 || c->fd[1] >= 0) {
        i++;
        continue;
      }
      int ws = 0;
      pid_t w;
      do w = waitpid(c->pid, &ws, 0);
      while (w < 0 && errno == EINTR);
      finish_point(r, c, ws, &results[c->point]);
      kids[i] = kids[--active];
    }
  }
  free(kids);
  free(pf);
  free(owner);
  return rc;
}

/* ---- summary.csv ------------------------------------------------------------ */

/* One CSV field: quoted when it holds a comma, quote, newline or edge blank. */
static void csv_field(FILE *f, const char *s) {
  size_t n = strlen(s);
  int quote = n && (strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ');
  if (!quote) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_header(FILE *f, const vs_sweep *s) {
  fputs("point", f);
  for (size_t i = 0; i < s->n_params; i++) {
    fputc(',', f);
    csv_field(f, s->params[i].key);
  }
  fputs(",status,final_constraint_error,wall_seconds,file\n", f);
}

static void csv_row(FILE *f, const vs_sweep *s, size_t k, const point_result *res) {
  fprintf(f, "%zu", k);
  for (size_t i = 0; i < s->n_params; i++) {
    fputc(',', f);
    csv_field(f, s->params[i].values[vs_sweep_value_index(s, k, i)]);
  }
  fprintf(f, ",%s,", res->status);
  if (isfinite(res->final_error)) fprintf(f, "%.17g", res->final_error);
  fputc(',', f);
  if (isfinite(res->wall)) fprintf(f, "%.6g", res->wall);
  fputc(',', f);
  if (res->has_file) fprintf(f, "point-%04zu.h5", k);
  fputc('\n', f);
}

/* Write rows for points[0..n) to PATH through a temporary file. */
static int write_csv(const char *path, const vs_sweep *s, const size_t *points, size_t n,
                     const point_result *results) {
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "vsim: %s: %s\n", path, strerror(errno));
    return -1;
  }
  csv_header(f, s);
  for (size_t i = 0; i < n; i++) csv_row(f, s, points[i], &results[points[i]]);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

/* Split one CSV line into fields (in place); returns the count. */
static size_t csv_split(char *line, char **fields, size_t max) {
  size_t n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return n;
    char *out = p;
    fields[n++] = out;
    if (*p == '"') {
      p++;
      for (;;) {
        if (!*p) break;
        if (*p == '"' && p[1] == '"') {
          *out++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *out++ = *p++;
        }
      }
    }
    while (*p && *p != ',' && *p != '\n' && *p != '\r') *out++ = *p++;
    int more = *p == ',';
    *out = '\0';
    if (!more) return n;
    p++;
  }
}

/* --collect: the rows of the --point runs' point-NNNN.csv files. */
static int collect(sweep_run *r, point_result *results) {
  const vs_sweep *s = r->s;
  size_t missing = 0, not_complete = 0;
  size_t nf = s->n_params + 5;
  char **fields = calloc(nf + 1, sizeof *fields);
  size_t *all = calloc(s->n_points, sizeof *all);
  if (!fields || !all) {
    free(fields);
    free(all);
    fprintf(stderr, "vsim sweep: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  for (size_t k = 0; k < s->n_points; k++) {
    all[k] = k;
    point_result *res = &results[k];
    result_skipped(res);
    snprintf(res->status, sizeof res->status, "missing");
    char path[PATH_MAX], line[65536];
    point_path(path, sizeof path, r->dir, k, "csv");
    FILE *f = fopen(path, "r");
    /* header, then the row; the row must be this point of this sweep */
    int ok = f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f);
    if (f) fclose(f);
    size_t got = ok ? csv_split(line, fields, nf + 1) : 0;
    ok = ok && got == nf && strtoull(fields[0], NULL, 10) == k;
    for (size_t i = 0; ok && i < s->n_params; i++)
      ok = !strcmp(fields[1 + i], s->params[i].values[vs_sweep_value_index(s, k, i)]);
    if (!ok) {
      if (f)
        fprintf(stderr,
                "vsim sweep: %s: not a row of point %zu of this sweep; counted as missing\n", path,
                k);
      missing++;
      continue;
    }
    char **tail = fields + 1 + s->n_params;
    snprintf(res->status, sizeof res->status, "%s", tail[0]);
    res->ran = 1;
    res->final_error = tail[1][0] ? strtod(tail[1], NULL) : NAN;
    res->wall = tail[2][0] ? strtod(tail[2], NULL) : NAN;
    res->has_file = tail[3][0] != '\0';
    if (strcmp(res->status, "complete") != 0) not_complete++;
  }
  char path[PATH_MAX];
  summary_path(path, sizeof path, r->dir);
  int code;
  if (missing == s->n_points) {
    /* nothing to collect: keep whatever summary.csv is there (a -j run's) */
    fprintf(stderr,
            "vsim sweep: %s holds no point-NNNN.csv of this sweep; --collect merges the rows "
            "that --point runs write\n",
            r->dir);
    code = CLI_EXIT_USAGE;
  } else {
    code = write_csv(path, s, all, s->n_points, results) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  }
  if (code == CLI_EXIT_OK) {
    if (!r->a->quiet || missing || not_complete)
      fprintf(stderr, "vsim sweep: %s: %zu points, %zu complete, %zu not complete, %zu missing\n",
              path, s->n_points, s->n_points - missing - not_complete, not_complete, missing);
    if (missing || not_complete) code = CLI_EXIT_FAIL;
  }
  free(fields);
  free(all);
  return code;
}

/* ---- the command ------------------------------------------------------------ */

static void list_points(const vs_sweep *s) {
  for (size_t k = 0; k < s->n_points; k++) {
    printf("%zu", k);
    for (size_t i = 0; i < s->n_params; i++) printf("\t%s", vs_sweep_set(s, k, i));
    putchar('\n');
  }
}

/* Everything before the first point runs, on rank 0.  Returns -1 to go on. */
static int prepare(sweep_run *r, const size_t *points, size_t n) {
  const sweep_args *a = r->a;
  if (a->point >= 0 && (size_t)a->point >= r->s->n_points) {
    fprintf(stderr, "vsim sweep: --point %lld: %s has %zu points (0 to %zu)\n", (long long)a->point,
            r->s->file, r->s->n_points, r->s->n_points - 1);
    return CLI_EXIT_USAGE;
  }
  if (!r->self[0]) {
    fprintf(stderr, "vsim sweep: cannot find this program (/proc/self/exe): %s\n", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (a->collect) return -1;
  int code = validate_point(r->s, 0);
  if (code != CLI_EXIT_OK) return code;
  if (make_dirs(r->dir) != 0) {
    fprintf(stderr, "vsim: %s: cannot create the output directory: %s\n", r->dir, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  code = check_outputs(r, points, n, a->point < 0);
  return code == CLI_EXIT_OK ? -1 : code;
}

int cmd_sweep(int argc, char **argv, const char *command_line) {
  sweep_args a;
  int code = parse_sweep_args(argc, argv, &a);
  if (code >= 0) return code;

  world w;
  world_init(&w);
  vs_error err;
  vs_error_clear(&err);
  vs_sweep *s = NULL;
  size_t *mine = NULL;
  point_result *results = NULL;
  char dir[PATH_MAX];
  sweep_run r;
  memset(&r, 0, sizeof r);

  if (!w.mpi && w.size > 1) {
    if (w.rank == 0)
      fprintf(stderr,
              "vsim sweep: started as %d ranks, but this vsim was built without MPI; "
              "use the build of `make MPI=1` (build/mpi/vsim)\n",
              w.size);
    code = CLI_EXIT_USAGE;
    goto done;
  }
  vs_status st = vs_sweep_load_file(a.file, &s, &err);
  if (st != VS_OK) {
    if (w.rank == 0) cli_report(&err, a.file);
    code = cli_exit_code(st, CLI_PHASE_INPUT);
    goto done;
  }
  if (a.list) {
    if (w.rank == 0) list_points(s);
    code = CLI_EXIT_OK;
    goto done;
  }
  if (w.size > 1 && (a.point >= 0 || a.collect)) {
    if (w.rank == 0)
      cli_usage_error("sweep", "--point and --collect are for one process, not under mpirun");
    code = CLI_EXIT_USAGE;
    goto done;
  }
  if (a.dir)
    snprintf(dir, sizeof dir, "%s", a.dir);
  else
    default_dir(a.file, dir, sizeof dir);
  r.a = &a;
  r.s = s;
  r.dir = dir;
  ssize_t len = readlink("/proc/self/exe", r.self, sizeof r.self - 1);
  r.self[len > 0 ? len : 0] = '\0';

  /* This rank's points: all of them, one (--point), or every size-th. */
  results = calloc(s->n_points, sizeof *results);
  mine = calloc(s->n_points, sizeof *mine);
  if (!results || !mine) {
    fprintf(stderr, "vsim sweep: out of memory\n");
    code = CLI_EXIT_FAIL;
    goto done;
  }
  size_t n_mine = 0;
  if (a.point >= 0) {
    mine[n_mine++] = (size_t)a.point;
  } else {
    for (size_t k = (size_t)w.rank; k < s->n_points; k += (size_t)w.size) mine[n_mine++] = k;
  }
  for (size_t k = 0; k < s->n_points; k++) result_skipped(&results[k]);

  code = w.rank == 0 ? prepare(&r, mine, a.point >= 0 ? 1 : s->n_points) : -1;
  code = world_agree(&w, code);
  if (code >= 0) goto done;
  if (a.collect) {
    code = collect(&r, results);
    goto done;
  }

  size_t jobs = a.jobs > 0 ? (size_t)a.jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if (jobs > n_mine && n_mine > 0) jobs = n_mine;
  struct sigaction old_int, old_term;
  install_signals(&old_int, &old_term);
  double t0 = cli_now();
  int rc = n_mine ? run_points(&r, mine, n_mine, jobs, results) : 0;
  int interrupted = g_signals > 0;
  restore_signals(&old_int, &old_term);

#ifdef VS_WITH_MPI
  if (w.mpi) {
    /* rank 0 gathers every other rank's points, in point order */
    for (size_t k = 0; k < s->n_points; k++) {
      int from = (int)(k % (size_t)w.size);
      if (from == 0) continue;
      if (w.rank == 0)
        MPI_Recv(&results[k], (int)sizeof results[k], MPI_BYTE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      else if (w.rank == from)
        MPI_Send(&results[k], (int)sizeof results[k], MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    int any = interrupted || rc != 0, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    interrupted = all;
  }
#endif

  code = CLI_EXIT_OK;
  if (w.rank == 0) {
    /* the rows: point K alone, or every point in order */
    size_t n_rows = a.point >= 0 ? 1 : s->n_points, complete = 0;
    if (a.point < 0)
      for (size_t k = 0; k < s->n_points; k++) mine[k] = k;
    for (size_t i = 0; i < n_rows; i++) complete += !strcmp(results[mine[i]].status, "complete");
    char path[PATH_MAX];
    if (a.point >= 0)
      point_path(path, sizeof path, dir, (size_t)a.point, "csv");
    else
      summary_path(path, sizeof path, dir);
    if (write_csv(path, s, mine, n_rows, results) != 0) code = CLI_EXIT_FAIL;
    if (complete < n_rows || rc != 0 || interrupted) code = CLI_EXIT_FAIL;
    if (!a.quiet || code != CLI_EXIT_OK)
      fprintf(stderr, "vsim sweep: %zu of %zu point%s complete%s in %.3g s; %s\n", complete, n_rows,
              n_rows == 1 ? "" : "s", interrupted ? " (interrupted)" : "", cli_now() - t0, path);
  }
  code = world_agree(&w, code);

done:
  world_end(&w);
  free(mine);
  free(results);
  vs_sweep_free(s);
  return code;
}
