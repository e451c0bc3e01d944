/* SPDX-License-Identifier: MIT */
/* sweep.c: `vsim sweep SWEEP.yaml [-o DIR] [-j N] [options]` (docs/cli.md, vsim sweep).
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

#include "args.h"
#include "sweep.h"

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
      "  xdmf: false                  # optional: true gives each point its .xmf sidecar\n"
      "  parameters:\n"
      "    solver.iterations: [5, 10, 20]\n"
      "    solver.relaxation: [gauss-seidel, jacobi]\n"
      "  collect:                     # optional: more columns of summary.csv\n"
      "    e_max: max /observables/energy_kinetic\n"
      "    crate_x: final /particles/rigid/position/value[crate, 0]\n"
      "\n"
      "Point K runs exactly as `vsim run SCENE --set KEY=VALUE... [--frames N]\n"
      "-o DIR/point-NNNN.h5` (NNNN = K, from 0, four digits) and DIR/summary.csv gets\n"
      "one row per point: point, each parameter, status, final_constraint_error,\n"
      "wall_seconds, each collect column, file.  A collect column is a reduction\n"
      "(final, first, max, min or mean) of a dataset of the point's file, indexed\n"
      "by number, : or, on the body axis, a rigid body's name or NAME:INDEX.  A\n"
      "point that fails is recorded as failed and the others still run.  The sweep\n"
      "file, its point 0 and the collect columns (on point 0's frame 0) are checked\n"
      "before anything runs.\n"
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
        if (cli_parse_int64("sweep", "--threads", v, 0, VS_CLI_MAX_THREADS, &a->threads))
          return CLI_EXIT_USAGE;
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

char **point_sets(const vs_sweep *s, size_t k) {
  char **sets = calloc(s->n_params + 1, sizeof *sets);
  for (size_t i = 0; sets && i < s->n_params; i++) {
    if (!(sets[i] = vs_sweep_set_text(s, k, i))) {
      free_point_sets(sets, i);
      return NULL;
    }
  }
  return sets;
}

void free_point_sets(char **sets, size_t n) {
  for (size_t i = 0; sets && i < n; i++) vs_free_buffer(sets[i]);
  free(sets);
}

/* "KEY=VALUE KEY=VALUE" of point k, for messages. */
void point_label(const vs_sweep *s, size_t k, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < s->n_params && n + 1 < size; i++) {
    char *set = vs_sweep_set_text(s, k, i);
    int w = snprintf(buf + n, size - n, "%s%s", i ? " " : "", set ? set : "?");
    vs_free_buffer(set);
    if (w < 0) break;
    n += (size_t)w < size - n ? (size_t)w : size - n - 1;
  }
  if (n + 1 >= size && size > 4) memcpy(buf + size - 4, "...", 4);
}

/* Check the sweep's point 0 as `vsim validate` would: the scene with its
 * overrides loads and compiles.  A bad value is reported at its place in
 * the sweep file. */
static int validate_point(const vs_sweep *s, size_t k) {
  vs_override *sets = calloc(s->n_params + 2, sizeof *sets);
  char **texts = sets ? point_sets(s, k) : NULL;
  if (!texts) {
    free(sets);
    fprintf(stderr, "vsim sweep: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  char frames_set[64];
  size_t n = 0;
  for (size_t i = 0; i < s->n_params; i++) sets[n++].text = texts[i];
  if (vs_sweep_xdmf_set(s)) sets[n++].text = vs_sweep_xdmf_set(s);
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
      const char *set = texts[i];
      size_t sl = strlen(set);
      if (!strncmp(err.message, "--set ", 6) && !strncmp(err.message + 6, set, sl) &&
          err.message[6 + sl] == ':')
        hit = i;
    }
    if (hit < s->n_params) {
      const vs_sweep_param *p = &s->params[hit];
      const char *why = err.message + 6 + strlen(texts[hit]) + 1;
      while (*why == ' ') why++;
      /* the scene loader's message names the key; an unknown key is the
       * key's fault, anything else the value's */
      vs_loc at =
          strstr(why, "unknown key") ? p->loc : p->value_locs[vs_sweep_value_index(s, k, hit)];
      fprintf(stderr, "vsim: %s:%d:%d: %s (point %zu)\n", cli_esc(s->file), at.line, at.column,
              cli_esc(why), k);
    } else if (!strcmp(err.file, s->scene) && err.line == 0 && st == VS_ERR_IO) {
      fprintf(stderr, "vsim: %s:%d:%d: scene: %s\n", cli_esc(s->file), s->scene_loc.line,
              s->scene_loc.column, cli_esc(err.message));
    } else {
      cli_report(&err, s->scene);
    }
    char label[512];
    point_label(s, k, label, sizeof label);
    fprintf(stderr, "vsim sweep: point %zu (%s) is invalid; nothing was run\n", k,
            cli_esc(label));
  }
  free_point_sets(texts, s->n_params);
  free(sets);
  return code;
}

/* The sweep's own inputs (the sweep file, its scene), by device and inode:
 * no output may replace one, even with --force (docs/cli.md, Output files). */
static const char *input_at(const sweep_run *r, const char *path) {
  struct stat o, in;
  if (stat(path, &o) != 0) return NULL;
  const char *inputs[] = {r->s->file, r->s->scene};
  for (int i = 0; i < 2; i++)
    if (stat(inputs[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino)
      return inputs[i];
  return NULL;
}

/* Refuse to overwrite without --force; with it, remove the old point files
 * first, so that a file found after a run is that run's.  An output that is
 * one of the sweep's inputs is refused before anything is removed. */
static int check_outputs(const sweep_run *r, const size_t *points, size_t n, int summary) {
  char path[PATH_MAX], first[PATH_MAX] = "";
  size_t clash = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i <= n; i++) {
      for (int ext = 0; ext < 3; ext++) {
        if (i == n && ext > 0) break;
        if (i == n) {
          if (!summary) break;
          summary_path(path, sizeof path, r->dir);
        } else {
          if (ext == 1 && r->a->point < 0) continue;
          point_path(path, sizeof path, r->dir, points[i], ext == 0 ? "h5" : ext == 1 ? "csv" : "xmf");
        }
        if (!exists(path)) continue;
        if (pass == 0) {
          const char *in = input_at(r, path);
          if (in) {
            fprintf(stderr, "vsim: %s: is %s, an input of this sweep: refused (choose another -o)\n",
                    cli_esc(path), cli_esc(in));
            return CLI_EXIT_USAGE;
          }
          continue;
        }
        if (ext == 2) continue; /* the run replaces its sidecar itself */
        if (r->a->force) {
          if (unlink(path) != 0) {
            fprintf(stderr, "vsim: %s: cannot remove: %s\n", cli_esc(path), strerror(errno));
            return CLI_EXIT_USAGE;
          }
        } else if (clash++ == 0) {
          snprintf(first, sizeof first, "%s", path);
        }
      }
    }
  }
  if (clash) {
    if (clash == 1)
      fprintf(stderr, "vsim: %s: exists; use -f/--force to overwrite it\n", cli_esc(first));
    else
      fprintf(stderr, "vsim: %s: exists (and %zu more); use -f/--force to overwrite them\n",
              cli_esc(first), clash - 1);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------ */

static int list_points(const vs_sweep *s) {
  for (size_t k = 0; k < s->n_points; k++) {
    char **sets = point_sets(s, k);
    if (!sets) {
      fprintf(stderr, "vsim sweep: out of memory\n");
      return CLI_EXIT_FAIL;
    }
    printf("%zu", k);
    for (size_t i = 0; i < s->n_params; i++) printf("\t%s", sets[i]);
    putchar('\n');
    free_point_sets(sets, s->n_params);
  }
  return CLI_EXIT_OK;
}

/* Everything before the first point runs, on rank 0.  Returns -1 to go on. */
static int prepare(sweep_run *r, const size_t *points, size_t n) {
  const sweep_args *a = r->a;
  if (a->point >= 0 && (size_t)a->point >= r->s->n_points) {
    fprintf(stderr, "vsim sweep: --point %lld: %s has %zu points (0 to %zu)\n", (long long)a->point,
            cli_esc(r->s->file), r->s->n_points, r->s->n_points - 1);
    return CLI_EXIT_USAGE;
  }
  if (!r->self[0]) {
    fprintf(stderr, "vsim sweep: cannot find this program (/proc/self/exe): %s\n", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (a->collect) return -1;
  int code = validate_point(r->s, 0);
  if (code != CLI_EXIT_OK) return code;
  if ((code = collect_check(r->s)) != CLI_EXIT_OK) return code;
  if (make_dirs(r->dir) != 0) {
    fprintf(stderr, "vsim: %s: cannot create the output directory: %s\n", cli_esc(r->dir),
            strerror(errno));
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
    code = w.rank == 0 ? list_points(s) : CLI_EXIT_OK;
    goto done;
  }
  if (w.size > 1 && (a.point >= 0 || a.collect)) {
    if (w.rank == 0)
      cli_usage_error("sweep", "--point and --collect are for one process, not under mpirun");
    code = CLI_EXIT_USAGE;
    goto done;
  }
  if (a.dir) {
    snprintf(dir, sizeof dir, "%s", a.dir);
  } else if (default_dir(a.file, dir, sizeof dir) != 0) {
    /* "..yml" or "...yaml": the outputs would land in . or .. (and --force
     * would first remove ../point-*.h5 and ../summary.csv there) */
    if (w.rank == 0)
      cli_usage_error("sweep", "%s: no output directory can be named after this file (it would "
                      "be '%s'); give one with -o DIR",
                      a.file, dir);
    code = CLI_EXIT_USAGE;
    goto done;
  }
  r.a = &a;
  r.s = s;
  r.dir = dir;
  ssize_t len = readlink("/proc/self/exe", r.self, sizeof r.self - 1);
  r.self[len > 0 ? len : 0] = '\0';

  /* This rank's points: all of them, one (--point), or every size-th. */
  results = calloc(s->n_points, sizeof *results);
  mine = calloc(s->n_points, sizeof *mine);
  r.collected = calloc(s->n_points * s->n_collect + 1, sizeof *r.collected);
  if (!results || !mine || !r.collected) {
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
  for (size_t i = 0; i < s->n_points * s->n_collect; i++) r.collected[i] = NAN;

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
  /* from here every termination signal interrupts the sweep (sweep.h): the
   * points stop, and the summary of what finished is still written */
  install_signals();
  double t0 = cli_now();
  int rc = n_mine ? run_points(&r, mine, n_mine, jobs, results) : 0;
  int interrupted = g_signals > 0;

  interrupted = world_gather(&w, results, s->n_points, interrupted || rc != 0 ? 1 : 0, interrupted);
  world_gather_collected(&w, r.collected, s->n_points, s->n_collect);

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
    if (write_csv(path, s, mine, n_rows, results, r.collected) != 0) code = CLI_EXIT_FAIL;
    if (complete < n_rows || rc != 0 || interrupted) code = CLI_EXIT_FAIL;
    if (!a.quiet || code != CLI_EXIT_OK)
      fprintf(stderr, "vsim sweep: %zu of %zu point%s complete%s in %.3g s; %s\n", complete, n_rows,
              n_rows == 1 ? "" : "s", interrupted ? " (interrupted)" : "", cli_now() - t0,
              cli_esc(path));
  }
  restore_signals();
  code = world_agree(&w, code);

done:
  world_end(&w);
  free(mine);
  free(results);
  free(r.collected);
  vs_sweep_free(s);
  return code;
}
