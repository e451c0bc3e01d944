/* SPDX-License-Identifier: MIT */
/* sweep.h: what the parts of `vsim sweep` share (cmd/sweep*.c):
 *   sweep.c        arguments, planning (point 0 valid, outputs free) and the
 *                  command itself
 *   sweep_world.c  the ranks: one process, or an MPI world
 *   sweep_local.c  running points as child processes, signals, the outcome
 *                  of one point
 *   sweep_paths.c  the names of the point files, summary.csv, DIR
 *   sweep_csv.c    summary.csv and point-NNNN.csv, --collect
 *   sweep_reduce.c the collect columns: checked on point 0, read per point */
#ifndef VSIM_CMD_SWEEP_H
#define VSIM_CMD_SWEEP_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"

/* DIR is at most MAX_DIR bytes (checked when parsing -o), so that every
 * name made from it fits in PATH_MAX. */
#define MAX_DIR (PATH_MAX - 64)

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

/* ---- the outcome of one point ---- */

/* Fixed size and plain data: MPI ranks send it to rank 0 as bytes. */
typedef struct point_result {
  int32_t ran;        /* 0: never started (the sweep was interrupted first) */
  int32_t exit_code;  /* of `vsim run`; 128 + signal when it was killed */
  int32_t has_file;   /* DIR/point-NNNN.h5 was written by this run */
  char status[16];    /* complete | failed | interrupted | skipped */
  double final_error; /* max |C| at the last frame; NaN when unknown */
  double wall;        /* s, as the run reports it (else as measured here) */
} point_result;

/* ---- the ranks (sweep_world.c) ---- */

typedef struct world {
  int rank, size;
  int mpi; /* MPI_Init was called */
} world;

void world_init(world *w);
/* Every rank returns rank 0's code, so that all of them exit alike. */
int world_agree(const world *w, int code);
/* Rank 0 gathers every other rank's results (point k ran on rank k % size);
 * returns whether any rank was interrupted or failed to run its points
 * (`failed`), else `interrupted` unchanged.  Without MPI: `interrupted`. */
int world_gather(const world *w, point_result *results, size_t n_points, int failed,
                 int interrupted);
/* Rank 0 gathers the collect columns of every other rank's points (rows
 * of n_collect values, in the order of world_gather). */
void world_gather_collected(const world *w, double *collected, size_t n_points, size_t n_collect);
void world_end(world *w);

/* ---- running points (sweep_local.c) ---- */


void result_skipped(point_result *r);

/* the sweep as a whole */
typedef struct sweep_run {
  const sweep_args *a;
  const vs_sweep *s;
  const char *dir;
  char self[PATH_MAX]; /* this program, to run `vsim run` */
  double *collected;   /* [n_points][s->n_collect] the collect columns, NaN = none */
  size_t done, failed; /* points finished here so far, and how many not complete */
} sweep_run;

/* Signals seen while points run: how many, and the first one.  Every
 * termination signal (run.c's list: SIGINT, SIGTERM, SIGHUP, SIGPIPE,
 * SIGXCPU, SIGUSR1/2, SIGALRM, ...) interrupts the sweep: no point starts
 * after it, the running ones are passed SIGTERM (SIGINT, SIGTERM and SIGHUP
 * as they are) and end as "interrupted", and the summary of what finished
 * is written; only a second SIGINT, SIGTERM or SIGHUP counts again (and is
 * passed on again: the points then stop at once).  SIGPIPE (a closed
 * stderr, `vsim sweep ... 2>&1 | head`) interrupts once and never kills. */
extern volatile sig_atomic_t g_signals, g_last_signal;
void install_signals(void);
/* Put back what install_signals changed, but leave SIGPIPE ignored: what
 * the sweep still prints goes to a pipe that may be closed. */
void restore_signals(void);
/* Run points[0..n) with at most `jobs` children at a time; results[k] for each. */
int run_points(sweep_run *r, const size_t *points, size_t n, size_t jobs, point_result *results);

/* ---- paths (sweep_paths.c) ---- */

void point_path(char *buf, size_t size, const char *dir, size_t k, const char *ext);
void summary_path(char *buf, size_t size, const char *dir);
int exists(const char *path);
int make_dirs(const char *dir);
/* The default DIR, named after the sweep file; -1 (nothing reported) when
 * that name would be "." or ".." (a sweep file named "..yml" or "...yaml"):
 * the points and summary.csv would go to a directory the user never named. */
int default_dir(const char *file, char *buf, size_t size);
void remove_temp_files(const char *dir, size_t k, pid_t pid);

/* ---- planning (sweep.c) ---- */

void point_label(const vs_sweep *s, size_t k, char *buf, size_t size);
/* The "KEY=VALUE" texts of point k, one per parameter (vs_sweep_set_text),
 * released with free_point_sets; NULL when out of memory. */
char **point_sets(const vs_sweep *s, size_t k);
void free_point_sets(char **sets, size_t n);

/* ---- CSV (sweep_csv.c) ---- */

/* Write rows for points[0..n) to path through the safe output files
 * (cmd/outfile.h): a regular file replaced, never a link, a special file,
 * the sweep file or its scene.  0, or -1 after reporting. */
int write_csv(const char *path, const vs_sweep *s, const size_t *points, size_t n,
              const point_result *results, const double *collected);
/* 1 when status is one a point can end with (complete, failed, interrupted,
 * skipped): the only words summary.csv takes from outside. */
int known_status(const char *status);
int collect(sweep_run *r, point_result *results);

/* ---- the collect columns (sweep_reduce.c) ---- */

/* Check every reduction against frame 0 of point 0 (rank 0, before
 * anything runs): errors at the sweep file's line and column, exit code. */
int collect_check(const vs_sweep *s);
/* values[0..n_collect) of point k from its file (NaN where none, said on
 * stderr as "[point K] collect.NAME: why"). */
void collect_point(const sweep_run *r, size_t k, double *values);

#endif
