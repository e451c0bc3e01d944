/* SPDX-License-Identifier: MIT */
/* tune.h: how many solver threads `vsim run` uses, frame by frame.
 *
 * --threads N is the most threads a frame may use.  Coloured Jacobi ends
 * every colour with a barrier, so when another process holds a core (or the
 * scene is too small to share out) N threads can be several times slower than
 * one (docs/performance.md, "Threads need free cores").  The tuner times
 * vs_step frame by frame, now and then runs a few frames on half (or twice)
 * the threads, and keeps whichever is faster.  Results are the same bits for
 * any thread count, so switching between frames never changes them; the
 * trials cost a few per cent of the run at most. */
#ifndef VSIM_CMD_TUNE_H
#define VSIM_CMD_TUNE_H

#define TUNE_TRIAL 3 /* frames per measurement (their median counts) */

typedef struct thread_tuner {
  int max;                    /* the most threads a frame may use (>= 1) */
  int best;                   /* the fastest count at the last look */
  int cur;                    /* threads for the next frame */
  int skip;                   /* frames not to measure (the first: warm-up) */
  double recent[TUNE_TRIAL];  /* the last frame times at `best` */
  int n_recent;
  int trial;                  /* count on trial, 0 = none */
  double trial_t[TUNE_TRIAL]; /* its frame times */
  int n_trial;
  int down;                   /* next trial: 1 = fewer threads, 0 = more */
  double since;               /* stepping seconds at `best` since the last trial */
  double gap;                 /* stepping seconds to wait before the next */
  long changes;               /* frames whose count differs from the frame before */
} thread_tuner;

/* Cores not busy with other processes right now (>= 1; from /proc/loadavg,
 * about 10 ms to sample). */
int tuner_free_cores(void);

/* Up to `max` threads, starting on min(max, free_cores). */
void tuner_init(thread_tuner *t, int max, int free_cores);

/* Threads for the next frame. */
int tuner_threads(const thread_tuner *t);

/* The frame just stepped on tuner_threads() took `seconds`. */
void tuner_frame(thread_tuner *t, double seconds);

#endif
