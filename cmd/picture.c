/* SPDX-License-Identifier: MIT */
/* picture.c: image sizes and temporary output files (picture.h). */
#include "picture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"

int pic_parse_size(const char *cmd, const char *s, int lo, int hi, int *w, int *h) {
  char *end;
  errno = 0;
  long a = strtol(s, &end, 10), b = 0;
  int ok = end != s && (*end == 'x' || *end == 'X') && errno == 0;
  if (ok) {
    const char *p = end + 1;
    b = strtol(p, &end, 10);
    ok = end != p && *end == '\0' && errno == 0;
  }
  if (!ok || a < lo || a > hi || b < lo || b > hi) {
    cli_usage_error(cmd, "--size: expected WIDTHxHEIGHT with each in [%d, %d], got '%s'", lo, hi,
                    s);
    return -1;
  }
  *w = (int)a;
  *h = (int)b;
  return 0;
}

/* The extension of path's last component (after its last '.', the '.'
 * included), or NULL when it has none. */
static const char *extension(const char *path) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  return dot && dot != base && dot[1] ? dot : NULL;
}

int pic_format_of(const char *path) {
  static const char *const ext[] = {".png", ".svg", ".pdf"};
  const char *e = extension(path);
  for (int i = 0; e && i < 3; i++)
    if (strcasecmp(e, ext[i]) == 0) return i;
  return -1;
}

int pic_bad_format(const char *cmd, const char *path, const char *what) {
  const char *e = extension(path);
  if (e)
    return cli_usage_error(cmd, "-o %s: %s is not a format %s writes: give %s", path, e, cmd,
                           what);
  return cli_usage_error(cmd, "-o %s: no extension to tell the format: give %s", path, what);
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

int pic_check_writable(const char *path) {
  char *dir = dir_of(path);
  struct stat st;
  const char *why = NULL;
  if (!dir)
    why = "out of memory";
  else if (stat(dir, &st) != 0)
    why = strerror(errno);
  else if (!S_ISDIR(st.st_mode))
    why = "not a directory";
  else if (access(dir, W_OK) != 0)
    why = strerror(errno);
  else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    why = "is a directory";
  free(dir);
  if (!why) return 0;
  fprintf(stderr, "vsim: %s: cannot write: %s\n", path, why);
  return -1;
}

char *pic_temp_path(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  int dl = slash ? (int)(slash - path + 1) : 0;
  size_t n = strlen(path) + 40;
  char *t = malloc(n);
  if (t) snprintf(t, n, "%.*s.%s.tmp-%ld", dl, path, base, (long)getpid());
  return t;
}

int pic_commit(const char *tmp, const char *path) {
  if (rename(tmp, path) == 0) return 0;
  fprintf(stderr, "vsim: %s: cannot write: %s\n", path, strerror(errno));
  unlink(tmp);
  return -1;
}
