/* cliutil.h: running the built vsim program from a test (header-only),
 * shared by the end-to-end tests (test_cli.c, test_robust.c).
 *
 * A child runs $VSIM_BIN (set by `make test`) in a given directory with
 * fork/exec; its stdout and stderr go to files that wait_vsim reads back
 * with the exit status.  Helpers check messages, exit codes and what the
 * directory holds afterwards. */
#ifndef VSIM_CLIUTIL_H
#define VSIM_CLIUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "testutil.h"

/* ---- running the program ---- */

typedef struct proc {
  int code;  /* exit status; 128 + signal when killed */
  char *out; /* captured stdout */
  char *err; /* captured stderr */
} proc;

static inline const char *vsim_bin(void) {
  const char *b = getenv("VSIM_BIN");
  return b && *b ? b : "build/vsim";
}

/* printf into a new string. */
static inline char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *strf(const char *fmt, ...) {
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

/* Absolute path of a file in the repository. */
static inline char *repo_path(const char *rel) {
  const char *root = getenv("VSIM_ROOT");
  return strf("%s/%s", root && *root ? root : ".", rel);
}

static inline char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 >= cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
  }
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static inline void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fputs(text, f) >= 0, 1);
  ck_assert_int_eq(fclose(f), 0);
}

/* A running vsim and the files its output goes to. */
typedef struct child {
  pid_t pid;
  char out_path[64];
  char err_path[64];
} child;

static inline void make_capture(char *path) {
  strcpy(path, "/tmp/vsim-cli-cap-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
}

/* Start `vsim ARGS...` in cwd with stdin from stdin_path (NULL: /dev/null);
 * setup (may be NULL) runs in the child just before exec, to set limits. */
static inline child spawn_vsim_setup(const char *cwd, const char *stdin_path,
                                     const char *const *args, void (*setup)(void *), void *arg) {
  child c;
  make_capture(c.out_path);
  make_capture(c.err_path);
  size_t n = 0;
  while (args[n]) n++;
  const char **argv = calloc(n + 2, sizeof *argv);
  ck_assert_ptr_nonnull(argv);
  argv[0] = vsim_bin();
  for (size_t i = 0; i < n; i++) argv[i + 1] = args[i];
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
    if (setup) setup(arg);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  free(argv);
  return c;
}

static inline child spawn_vsim(const char *cwd, const char *stdin_path, const char *const *args) {
  return spawn_vsim_setup(cwd, stdin_path, args, NULL, NULL);
}

static inline proc wait_vsim(child *c) {
  int status = 0;
  pid_t r;
  do r = waitpid(c->pid, &status, 0);
  while (r < 0 && errno == EINTR);
  ck_assert_int_eq(r, c->pid);
  proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  p.out = slurp(c->out_path);
  p.err = slurp(c->err_path);
  ck_assert_ptr_nonnull(p.out);
  ck_assert_ptr_nonnull(p.err);
  unlink(c->out_path);
  unlink(c->err_path);
  return p;
}

static inline proc run_argv(const char *cwd, const char *stdin_path, const char *const *args) {
  child c = spawn_vsim(cwd, stdin_path, args);
  return wait_vsim(&c);
}

/* vsim(cwd, "run", "--frames", "5", NULL) */
static inline proc vsim(const char *cwd, ...) {
  const char *args[64];
  size_t n = 0;
  va_list ap;
  va_start(ap, cwd);
  const char *a;
  while ((a = va_arg(ap, const char *)) != NULL) {
    ck_assert_uint_lt(n, 63);
    args[n++] = a;
  }
  va_end(ap);
  args[n] = NULL;
  return run_argv(cwd, NULL, args);
}

static inline void proc_free(proc *p) {
  free(p->out);
  free(p->err);
}

/* Exit code check that shows what the program said when it is wrong. */
#define EXPECT_CODE(p, want)                                                                    \
  ck_assert_msg((p).code == (want), "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s", (p).code, \
                (want), (p).out, (p).err)

#define EXPECT_IN(hay, needle) \
  ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' not found in:\n%s", (needle), (hay))

/* ---- the directory a test ran in ---- */

static inline int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of dir, sorted, joined by single spaces ("" when empty). */
static inline char *listing(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  char *names[256];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    ck_assert_uint_lt(n, 256);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(names[i]) + 1;
  char *s = calloc(len, 1);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(s, " ");
    strcat(s, names[i]);
    free(names[i]);
  }
  return s;
}

#define EXPECT_LISTING(dir, want)                                                                \
  do {                                                                                           \
    char *ls_ = listing(dir);                                                                    \
    ck_assert_msg(strcmp(ls_, (want)) == 0, "directory holds '%s', expected '%s'", ls_, (want)); \
    free(ls_);                                                                                   \
  } while (0)

/* True when msg holds "NAME:LINE:COL:" for the file's base name. */
static inline int has_location(const char *msg, const char *path) {
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

static inline void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* `vsim info --json FILE` and check the status it reports. */
static inline void expect_status(const char *dir, const char *file, const char *status) {
  proc p = vsim(dir, "info", "--json", file, NULL);
  EXPECT_CODE(p, 0);
  char want[64];
  snprintf(want, sizeof want, "\"%s\"", status);
  EXPECT_IN(p.out, want);
  proc_free(&p);
}

#endif
