/* picture.c: image sizes and the check of an output (picture.h). */
#include "picture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int pic_check_output(const char *path, const char *const *inputs) {
  vs_error err;
  vs_error_clear(&err);
  vs_status st = vs_outfile_check(path, VS_OUTFILE_FORCE, inputs, &err);
  if (st == VS_OK) return 0;
  cli_report(&err, path);
  return cli_exit_code(st, CLI_PHASE_INPUT);
}
