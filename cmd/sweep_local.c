/* SPDX-License-Identifier: MIT */
/* sweep_local.c: running a sweep's points as child processes (`vsim run`
 * of each point, -j at a time), passing signals on, and reading the outcome
 * of each point from its --summary json line. */
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
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include "sweep.h"

/* ---- signals: stop starting points and pass the signal on ----------------
 * The children run in their own process groups, so that a Ctrl-C reaches
 * them once, through us: their first signal makes them finish the frame
 * and close the file as "interrupted"; a second one (a second Ctrl-C) makes
 * them stop at once.  Which signals, and how often each counts: sweep.h. */

volatile sig_atomic_t g_signals, g_last_signal;
static struct sigaction g_old[NSIG];
static unsigned char g_taken[NSIG];

static int insists(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP; }

static void on_signal(int sig) {
  /* a timer, a CPU limit or a closed pipe repeats by itself: once is enough */
  if (g_signals && !insists(sig)) return;
  if (!g_signals) g_last_signal = sig;
  g_signals++;
}

/* As run.c's: a signal ignored at start (nohup's SIGHUP) or handled by
 * something else stays so; `always`: SIGPIPE. */
static void take_signal(int sig, const struct sigaction *sa, int always) {
  if (sig <= 0 || sig >= NSIG || sigaction(sig, NULL, &g_old[sig]) != 0) return;
  if (!always && ((g_old[sig].sa_flags & SA_SIGINFO) || g_old[sig].sa_handler != SIG_DFL)) return;
  if (sigaction(sig, sa, NULL) == 0) g_taken[sig] = 1;
}

void install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
  sigemptyset(&sa.sa_mask);
  g_signals = 0;
  g_last_signal = 0;
  memset(g_taken, 0, sizeof g_taken);
  for (size_t i = 0; i < cli_stop_signal_count; i++)
    take_signal(cli_stop_signals[i], &sa, 0);
#ifdef SIGRTMIN
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) take_signal(sig, &sa, 0);
#endif
  take_signal(SIGPIPE, &sa, 1);
}

void restore_signals(void) {
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  /* as run.c's: after an interrupt, a signal that asks only once stays
   * ignored until the program exits, so that its repeat cannot kill the
   * sweep before its summary and exit status */
  for (int sig = 1; sig < NSIG; sig++)
    if (g_taken[sig] && sig != SIGPIPE)
      sigaction(sig, g_signals && !insists(sig) ? &ign : &g_old[sig], NULL);
  sigaction(SIGPIPE, &ign, NULL);
  memset(g_taken, 0, sizeof g_taken);
}

/* ---- the outcome of one point ---------------------------------------------- */


void result_skipped(point_result *r) {
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

/* The point's command line.  Every value is attached to its option
 * (--set=KEY=VALUE, --output=PATH) and the scene comes last, after "--": a
 * scene, a key or a directory whose name starts with '-' is never read as
 * an option (a scene file named --force would otherwise make every point
 * run the embedded default scene). */
static int start_point(sweep_run *r, size_t k, child *c) {
  const vs_sweep *s = r->s;
  char out[PATH_MAX + 16], frames[32], threads[32];
  char path[PATH_MAX];
  point_path(path, sizeof path, r->dir, k, "h5");
  snprintf(out, sizeof out, "--output=%s", path);
  snprintf(frames, sizeof frames, "--frames=%lld", (long long)s->frames);
  snprintf(threads, sizeof threads, "--threads=%lld", (long long)r->a->threads);
  char **sets = point_sets(s, k);
  char **opts = sets ? calloc(s->n_params + 1, sizeof *opts) : NULL;
  const char **argv = opts ? calloc(s->n_params + 16, sizeof *argv) : NULL;
  int ok = argv != NULL;
  for (size_t i = 0; ok && i < s->n_params; i++) {
    size_t len = strlen(sets[i]) + 7;
    opts[i] = malloc(len);
    if (opts[i]) snprintf(opts[i], len, "--set=%s", sets[i]);
    ok = opts[i] != NULL;
  }
  if (sets) free_point_sets(sets, s->n_params);
  if (!ok) {
    for (size_t i = 0; opts && i < s->n_params; i++) free(opts[i]);
    free(opts);
    free(argv);
    errno = ENOMEM;
    return -1;
  }
  size_t n = 0;
  argv[n++] = r->self;
  argv[n++] = "run";
  for (size_t i = 0; i < s->n_params; i++) argv[n++] = opts[i];
  char xdmf_opt[48];
  if (vs_sweep_xdmf_set(s)) {
    snprintf(xdmf_opt, sizeof xdmf_opt, "--set=%s", vs_sweep_xdmf_set(s));
    argv[n++] = xdmf_opt;
  }
  if (s->frames >= 0) argv[n++] = frames;
  argv[n++] = out;
  argv[n++] = threads;
  argv[n++] = "--quiet";
  argv[n++] = "--no-progress";
  argv[n++] = "--summary=json";
  argv[n++] = "--";
  argv[n++] = s->scene;
  argv[n] = NULL;

  int po[2] = {-1, -1}, pe[2] = {-1, -1};
  if (pipe(po) != 0 || pipe(pe) != 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (po[i] >= 0) close(po[i]);
      if (pe[i] >= 0) close(pe[i]);
    }
    for (size_t i = 0; i < s->n_params; i++) free(opts[i]);
    free(opts);
    free(argv);
    errno = e;
    return -1;
  }
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    /* the run handles its signals itself: exec resets the ones caught here,
     * and SIGPIPE, which the sweep may ignore by now, is the run's again */
    signal(SIGPIPE, SIG_DFL);
#ifdef __linux__
    /* The point dies with the sweep (kill -9 of it included): SIGTERM ends
     * the run like Ctrl-C, its file kept as "interrupted", no temp file.
     * A parent gone before prctl took effect is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
#endif
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
  for (size_t i = 0; i < s->n_params; i++) free(opts[i]);
  free(opts);
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
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)len, p);
    fprintf(stderr, "[point %zu] %s\n", k, cli_esc(line));
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
  if (!summarised || !known_status(status) || (res->exit_code != 0 && !strcmp(status, "complete")))
    snprintf(status, sizeof status, "%s", c->signalled && !summarised ? "interrupted" : "failed");
  snprintf(res->status, sizeof res->status, "%s", status);
  if (!WIFEXITED(wstatus)) remove_temp_files(r->dir, k, c->pid);
  char path[PATH_MAX];
  point_path(path, sizeof path, r->dir, k, "h5");
  res->has_file = exists(path);

  relay_messages(k, &c->out[1]);
  if (s->n_collect) collect_point(r, k, r->collected + k * s->n_collect);
  r->done++;
  if (strcmp(res->status, "complete") != 0) r->failed++;
  if (!r->a->quiet || strcmp(res->status, "complete") != 0) {
    char label[512];
    point_label(s, k, label, sizeof label);
    if (WIFSIGNALED(wstatus))
      fprintf(stderr, "vsim sweep: point %zu %s (killed by signal %d): %s\n", k, res->status,
              WTERMSIG(wstatus), cli_esc(label));
    else if (!strcmp(res->status, "complete"))
      fprintf(stderr, "vsim sweep: point %zu complete in %.3g s: %s\n", k, res->wall,
              cli_esc(label));
    else
      fprintf(stderr, "vsim sweep: point %zu %s (exit %d): %s\n", k, res->status, res->exit_code,
              cli_esc(label));
  }
  for (int i = 0; i < 2; i++) free(c->out[i].p);
}

/* Run points[0..n) with at most `jobs` children at a time; results by point. */
int run_points(sweep_run *r, const size_t *points, size_t n, size_t jobs,
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

    /* pass signals on: one each time one counts here (sweep.h); SIGINT and
     * SIGHUP as they are, any other as SIGTERM */
    for (size_t i = 0; i < active; i++) {
      while (kids[i].signalled < g_signals) {
        int sig = g_last_signal;
        kill(kids[i].pid, sig == SIGINT || sig == SIGHUP ? sig : SIGTERM);
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
