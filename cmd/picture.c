/* SPDX-License-Identifier: MIT */
/* picture.c: image sizes, formats and the check of an output (picture.h). */
#include "picture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "cli.h"
#include "outfile.h"

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

int pic_check_output(const char *path, const char *const *inputs) {
  vs_error err;
  vs_error_clear(&err);
  vs_status st = vs_outfile_check(path, VS_OUTFILE_FORCE, inputs, &err);
  if (st == VS_OK) return 0;
  cli_report(&err, path);
  return cli_exit_code(st, CLI_PHASE_INPUT);
}
