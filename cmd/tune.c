/* SPDX-License-Identifier: MIT */
/* tune.c: choose the solver's thread count by timing frames (see tune.h). */
#include "tune.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A trial must be this much faster to win: frame times are noisy. */
#define TUNE_MARGIN 0.9
/* Between trials, at least this many times what the last trial cost... */
#define TUNE_GAP_FACTOR 20.0
/* ...and after failed trials, doubling up to this (stepping seconds), so
 * that a core freed later is noticed within a few seconds. */
#define TUNE_GAP_CAP 2.0

/* Runnable tasks on the machine besides this one, now: the smallest of a few
 * samples of /proc/loadavg's "running/total" field 2 ms apart (one sample
 * catches passing compilers and shells).  0 when it cannot be read. */
static int others_running(void) {
  int least = -1;
  for (int k = 0; k < 5; k++) {
    if (k) nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return 0;
    int running = 0;
    int ok = fscanf(f, "%*f %*f %*f %d/", &running) == 1;
    fclose(f);
    if (!ok) return 0;
    if (least < 0 || running - 1 < least) least = running - 1;
  }
  return least > 0 ? least : 0;
}

int tuner_free_cores(void) {
  int n = omp_get_num_procs() - others_running();
  return n > 1 ? n : 1;
}

void tuner_init(thread_tuner *t, int max, int free_cores) {
  memset(t, 0, sizeof *t);
  t->max = max > 1 ? max : 1;
  t->best = t->cur = t->max;
  t->skip = 1;
  t->down = 1;
  if (t->max == 1) return;
  /* Start on the cores that are free: a frame of N threads where one core is
   * taken can cost a hundred frames of one thread (the first, which starts
   * the threads, even more), so the trial up waits until the run is long. */
  if (free_cores < t->max) {
    t->best = t->cur = free_cores > 1 ? free_cores : 1;
    t->down = 0;
    t->gap = TUNE_GAP_CAP;
  }
}

int tuner_threads(const thread_tuner *t) { return t->cur; }

static double median3(const double *v) {
  double a = v[0], b = v[1], c = v[2];
  if (a > b) {
    double x = a;
    a = b;
    b = x;
  }
  /* a <= b */
  return c < a ? a : c > b ? b : c;
}

static void set_cur(thread_tuner *t, int n) {
  if (n != t->cur) t->changes++;
  t->cur = n;
}

/* Start a trial of fewer or more threads, if there is one to try. */
static void start_trial(thread_tuner *t) {
  int down = t->best > 1 ? t->best / 2 : 0;
  int up = t->best < t->max ? (2 * t->best < t->max ? 2 * t->best : t->max) : 0;
  int n = t->down ? (down ? down : up) : (up ? up : down);
  if (!n) return;
  t->down = n < t->best;
  t->trial = n;
  t->n_trial = 0;
  set_cur(t, n);
}

void tuner_frame(thread_tuner *t, double seconds) {
  if (t->max == 1) return;
  if (t->skip > 0) {
    t->skip--;
    return;
  }
  if (t->trial) {
    t->trial_t[t->n_trial++] = seconds;
    if (t->n_trial < TUNE_TRIAL) return;
    const double cost = t->trial_t[0] + t->trial_t[1] + t->trial_t[2];
    const double m = median3(t->trial_t), ref = median3(t->recent);
    if (m < TUNE_MARGIN * ref) {
      /* faster: keep it, and look further the same way at once */
      t->best = t->trial;
      memcpy(t->recent, t->trial_t, sizeof t->recent);
      t->n_recent = TUNE_TRIAL;
      t->gap = 0.0;
      if ((t->down && t->best == 1) || (!t->down && t->best == t->max)) {
        t->down = !t->down; /* the way back was just measured: wait */
        t->gap = TUNE_GAP_FACTOR * cost;
      }
    } else {
      /* not faster: try the other way next, later and later */
      double g = 2.0 * t->gap, floor = TUNE_GAP_FACTOR * cost;
      double cap = floor > TUNE_GAP_CAP ? floor : TUNE_GAP_CAP;
      t->gap = g < floor ? floor : g > cap ? cap : g;
      t->down = !t->down;
      t->n_recent = 0; /* measure `best` afresh before the next trial */
    }
    t->trial = 0;
    t->since = 0.0;
    set_cur(t, t->best);
    return;
  }
  t->recent[t->n_recent % TUNE_TRIAL] = seconds;
  t->n_recent++;
  t->since += seconds;
  if (t->n_recent >= TUNE_TRIAL && t->since >= t->gap) start_trial(t);
}
