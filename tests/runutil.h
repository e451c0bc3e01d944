/* SPDX-License-Identifier: MIT */
/* runutil.h: running programs from the end-to-end tests (test_cli,
 * test_robust, test_compare_cli, test_sweep_cli, test_golden), header-only;
 * every name starts with cu_ or CU_.  It uses only the public headers.
 *
 * cu_run() starts a program in a directory with fork/exec, captures its
 * stdout and stderr through temporary files and returns them with the exit
 * status; cu_vsim() does that for the built vsim ($VSIM_BIN, set by
 * `make test`), cu_vsim_argv() with a standard input and an argument list,
 * cu_vsim_spawn*() without waiting.  Also: reading and writing small files,
 * directory listings, and EXPECT_* checks that print what the program said
 * when they fail. */
#ifndef VSIM_RUNUTIL_H
#define VSIM_RUNUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "testutil.h"

typedef struct cu_proc {
  int code;  /* exit status; 128 + signal when killed */
  char *out; /* captured stdout */
  char *err; /* captured stderr */
} cu_proc;

static inline const char *cu_vsim_bin(void) {
  const char *b = getenv("VSIM_BIN");
  return b && *b ? b : "build/vsim";
}

/* printf into a new string. */
static inline char *cu_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *cu_strf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(n, 0);
  char *s = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(s);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* Path of a file in the repository ($VSIM_ROOT): tu_repo_path. */
static inline char *cu_repo_path(const char *rel) {
  return tu_repo_path(rel);
}

/* The whole file, NUL-terminated, or NULL when it cannot be read: tu_slurp. */
static inline char *cu_slurp(const char *path) {
  return tu_slurp(path, NULL);
}

static inline void cu_write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_int_ge(fputs(text, f), 0);
  ck_assert_int_eq(fclose(f), 0);
}

static inline void cu_capture_file(char *path) {
  strcpy(path, "/tmp/vsim-cu-cap-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
}

/* A started program and the files its output goes to. */
typedef struct cu_child {
  pid_t pid;
  char out_path[64];
  char err_path[64];
} cu_child;

/* Start argv[0] (searched in PATH when it has no '/') in cwd with stdin
 * from stdin_path (NULL: /dev/null); setup (may be NULL) runs in the child
 * just before exec, to set limits. */
static inline cu_child cu_start_setup(const char *cwd, const char *stdin_path,
                                      const char *const *argv, void (*setup)(void *), void *arg) {
  cu_child c;
  cu_capture_file(c.out_path);
  cu_capture_file(c.err_path);
  fflush(NULL);
  c.pid = fork();
  ck_assert_int_ge(c.pid, 0);
  if (c.pid == 0) {
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    int out = open(c.out_path, O_WRONLY | O_TRUNC);
    int err = open(c.err_path, O_WRONLY | O_TRUNC);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(cwd) != 0)
      _exit(127);
    /* The program starts as from an interactive shell, whatever this test
     * inherited: every signal at its default and none blocked.  Under nohup
     * SIGHUP arrives ignored, and vsim keeps an ignored signal ignored, so
     * the tests of what SIGHUP does would fail there.  setup may change it. */
    for (int sig = 1; sig < NSIG; sig++)
      if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setup) setup(arg);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
  }
  return c;
}

static inline cu_child cu_start(const char *cwd, const char *const *argv) {
  return cu_start_setup(cwd, NULL, argv, NULL, NULL);
}

/* Sleep ms milliseconds, on through signals. */
static inline void cu_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* What the reaped child c left: its exit code (128 + the signal that
 * killed it) and its output. */
static inline cu_proc cu_collect(cu_child *c, int status) {
  cu_proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  p.out = cu_slurp(c->out_path);
  p.err = cu_slurp(c->err_path);
  ck_assert_ptr_nonnull(p.out);
  ck_assert_ptr_nonnull(p.err);
  unlink(c->out_path);
  unlink(c->err_path);
  return p;
}

static inline cu_proc cu_wait(cu_child *c) {
  int status = 0;
  pid_t r;
  do r = waitpid(c->pid, &status, 0);
  while (r < 0 && errno == EINTR);
  ck_assert_int_eq(r, c->pid);
  return cu_collect(c, status);
}

/* Send sig to c every every_ms until it ends, then collect it.  Two
 * signals sent one after the other may reach a program as one: a standard
 * signal pending twice is pending once, and under valgrind delivery waits
 * for the program's next time slice.  Repeating until the program is gone
 * tests what a user who presses Ctrl-C until it stops gets. */
static inline cu_proc cu_wait_signalling(cu_child *c, int sig, int every_ms) {
  int status = 0;
  for (;;) {
    pid_t r = waitpid(c->pid, &status, WNOHANG);
    if (r == c->pid) break;
    ck_assert_msg(r == 0 || errno == EINTR, "waitpid failed");
    ck_assert_int_eq(kill(c->pid, sig), 0);
    cu_sleep_ms(every_ms);
  }
  return cu_collect(c, status);
}

static inline cu_proc cu_run(const char *cwd, const char *const *argv) {
  cu_child c = cu_start(cwd, argv);
  return cu_wait(&c);
}

/* The arguments of a cu_vsim() call: the vsim binary first, NULL last. */
#define CU_MAX_ARGS 64

static inline void cu_vargs(const char **args, const char *first, va_list ap) {
  size_t n = 0;
  args[n++] = cu_vsim_bin();
  for (const char *a = first; a; a = va_arg(ap, const char *)) {
    ck_assert_uint_lt(n, CU_MAX_ARGS - 1);
    args[n++] = a;
  }
  args[n] = NULL;
}

/* cu_vsim(cwd, "run", "--frames", "5", NULL) */
static inline cu_proc cu_vsim(const char *cwd, const char *first, ...) {
  const char *args[CU_MAX_ARGS];
  va_list ap;
  va_start(ap, first);
  cu_vargs(args, first, ap);
  va_end(ap);
  return cu_run(cwd, args);
}

static inline cu_child cu_vsim_start(const char *cwd, const char *first, ...) {
  const char *args[CU_MAX_ARGS];
  va_list ap;
  va_start(ap, first);
  cu_vargs(args, first, ap);
  va_end(ap);
  return cu_start(cwd, args);
}

/* Start `vsim ARGS...` (args without the program, NULL last) in cwd with
 * stdin from stdin_path (NULL: /dev/null); setup as for cu_start_setup. */
static inline cu_child cu_vsim_spawn_setup(const char *cwd, const char *stdin_path,
                                           const char *const *args, void (*setup)(void *),
                                           void *arg) {
  const char *argv[CU_MAX_ARGS];
  size_t n = 0;
  argv[n++] = cu_vsim_bin();
  for (; args[n - 1]; n++) {
    ck_assert_uint_lt(n, CU_MAX_ARGS - 1);
    argv[n] = args[n - 1];
  }
  argv[n] = NULL;
  return cu_start_setup(cwd, stdin_path, argv, setup, arg);
}

static inline cu_child cu_vsim_spawn(const char *cwd, const char *stdin_path,
                                     const char *const *args) {
  return cu_vsim_spawn_setup(cwd, stdin_path, args, NULL, NULL);
}

static inline cu_proc cu_vsim_argv(const char *cwd, const char *stdin_path,
                                   const char *const *args) {
  cu_child c = cu_vsim_spawn(cwd, stdin_path, args);
  return cu_wait(&c);
}

static inline void cu_free(cu_proc *p) {
  free(p->out);
  free(p->err);
}

/* Exit code check that shows what the program said when it is wrong. */
#define CU_EXPECT_CODE(p, want)                                                                 \
  ck_assert_msg((p).code == (want), "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s", (p).code, \
                (want), (p).out, (p).err)

#define CU_EXPECT_IN(hay, needle) \
  ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' not found in:\n%s", (needle), (hay))

#define CU_EXPECT_NOT_IN(hay, needle) \
  ck_assert_msg(strstr((hay), (needle)) == NULL, "'%s' unexpected in:\n%s", (needle), (hay))

static inline int cu_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of dir (hidden ones too), sorted, joined by single spaces; "" when
 * empty, "(none)" when dir does not exist. */
static inline char *cu_listing(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return strdup("(none)");
  char *names[1024];
  size_t n = 0, len = 1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    ck_assert_uint_lt(n, 1024);
    names[n] = strdup(e->d_name);
    len += strlen(names[n++]) + 1;
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cu_cmp_str);
  char *s = calloc(len, 1);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(s, " ");
    strcat(s, names[i]);
    free(names[i]);
  }
  return s;
}

#define CU_EXPECT_LISTING(dir, want)                                                             \
  do {                                                                                           \
    char *ls_ = cu_listing(dir);                                                                 \
    ck_assert_msg(strcmp(ls_, (want)) == 0, "%s holds '%s', expected '%s'", (dir), ls_, (want)); \
    free(ls_);                                                                                   \
  } while (0)

/* `vsim compare A B` (paths relative to cwd) must say equal. */
static inline void cu_expect_same(const char *cwd, const char *a, const char *b) {
  cu_proc p = cu_vsim(cwd, "compare", a, b, NULL);
  ck_assert_msg(p.code == 0, "vsim compare %s %s: exit %d\n%s%s", a, b, p.code, p.out, p.err);
  cu_free(&p);
}

/* True when msg holds "NAME:LINE:COL:" for the file's base name. */
static inline int cu_has_location(const char *msg, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t bl = strlen(base);
  for (const char *p = strstr(msg, base); p; p = strstr(p + 1, base)) {
    const char *q = p + bl;
    if (*q++ != ':') continue;
    if (*q < '0' || *q > '9') continue;
    while (*q >= '0' && *q <= '9') q++;
    if (*q++ != ':') continue;
    if (*q < '0' || *q > '9') continue;
    while (*q >= '0' && *q <= '9') q++;
    if (*q == ':') return 1;
  }
  return 0;
}

/* `vsim info --json FILE` and check the status it reports. */
static inline void cu_expect_status(const char *dir, const char *file, const char *status) {
  cu_proc p = cu_vsim(dir, "info", "--json", file, NULL);
  CU_EXPECT_CODE(p, 0);
  char want[64];
  snprintf(want, sizeof want, "\"%s\"", status);
  CU_EXPECT_IN(p.out, want);
  cu_free(&p);
}

/* The test's own directory (tu_dir) and a file in it (the caller frees). */
static inline char *cu_in_dir(const char *name) { return cu_strf("%s/%s", tu_dir(), name); }

/* `vsim run SCENE -o OUT -q` in the test's directory with up to four more
 * arguments (NULL ends them early), which must succeed. */
static inline void cu_run_ok(const char *scene, const char *out, const char *a1, const char *a2,
                             const char *a3, const char *a4) {
  cu_proc p = cu_vsim(tu_dir(), "run", scene, "-o", out, "-q", a1, a2, a3, a4, (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}

/* `vsim compare A B` in the test's directory says the two are equal, bit for bit. */
static inline void cu_expect_equal(const char *a, const char *b) {
  cu_proc p = cu_vsim(tu_dir(), "compare", a, b, (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
}

/* Scene `scene` (in the test's directory) run on 1 and 3 threads, and run to
 * frame `stop` then resumed to `total` (its whole length) on 2 threads:
 * all three files equal, bit for bit. */
static inline void cu_expect_same_bits(const char *scene, const char *stop, const char *total) {
  cu_run_ok(scene, "sb1.h5", "--threads", "1", NULL, NULL);
  cu_run_ok(scene, "sb3.h5", "--threads", "3", NULL, NULL);
  cu_expect_equal("sb1.h5", "sb3.h5");
  cu_run_ok(scene, "sbr.h5", "--frames", stop, NULL, NULL);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "sbr.h5", "--frames", total, "-q", "--threads", "2",
                      (char *)NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_expect_equal("sb1.h5", "sbr.h5");
}

/* Case i of a table of bad scenes: YAML written to bad.yaml in the test's
 * directory, `vsim run bad.yaml -o bad.h5` (with `--set SET` unless set is
 * NULL) exits 2 with msg on stderr and leaves nothing but bad.yaml. */
static inline void cu_expect_refused(size_t i, const char *yaml, const char *set,
                                     const char *msg) {
  char *scene = cu_in_dir("bad.yaml");
  cu_write(scene, yaml);
  cu_proc p = set ? cu_vsim(tu_dir(), "run", "bad.yaml", "-o", "bad.h5", "--set", set,
                            (char *)NULL)
                  : cu_vsim(tu_dir(), "run", "bad.yaml", "-o", "bad.h5", (char *)NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  char *listing = cu_listing(tu_dir());
  ck_assert_msg(strcmp(listing, "bad.yaml") == 0, "case %zu left: %s", i, listing);
  free(listing);
  free(scene);
}

#endif
