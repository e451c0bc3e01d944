/* SPDX-License-Identifier: MIT */
/* sweep_csv.c: summary.csv (one row per point: its parameters, status,
 * exit code, final error, wall time, the sweep's collect columns, file)
 * and --collect, which merges the point-NNNN.csv files of --point runs
 * into it.  Both CSV files are written through the safe output files
 * (cmd/outfile.h). */
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

#include "outfile.h"
#include "sweep.h"

/* ---- summary.csv ------------------------------------------------------------ */

/* One CSV field: quoted when it holds a comma, quote, newline or edge blank. */
static void csv_field(FILE *f, const char *s) {
  size_t n = strlen(s);
  int quote = n && (strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ');
  if (!quote) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_header(FILE *f, const vs_sweep *s) {
  fputs("point", f);
  for (size_t i = 0; i < s->n_params; i++) {
    fputc(',', f);
    csv_field(f, s->params[i].key);
  }
  fputs(",status,final_constraint_error,wall_seconds", f);
  for (size_t i = 0; i < s->n_collect; i++) {
    fputc(',', f);
    csv_field(f, s->collect[i].name);
  }
  fputs(",file\n", f);
}

static void csv_row(FILE *f, const vs_sweep *s, size_t k, const point_result *res,
                    const double *collected) {
  fprintf(f, "%zu", k);
  for (size_t i = 0; i < s->n_params; i++) {
    fputc(',', f);
    csv_field(f, s->params[i].values[vs_sweep_value_index(s, k, i)]);
  }
  fputc(',', f);
  csv_field(f, res->status); /* one of known_status's words */
  fputc(',', f);
  if (isfinite(res->final_error)) fprintf(f, "%.17g", res->final_error);
  fputc(',', f);
  if (isfinite(res->wall)) fprintf(f, "%.6g", res->wall);
  for (size_t i = 0; i < s->n_collect; i++) {
    double v = collected[k * s->n_collect + i];
    fputc(',', f);
    /* every double to its last bit; inf as pandas reads it, NaN empty */
    if (isfinite(v))
      fprintf(f, "%.17g", v);
    else if (isinf(v))
      fputs(v > 0 ? "inf" : "-inf", f);
  }
  fputc(',', f);
  if (res->has_file) fprintf(f, "point-%04zu.h5", k);
  fputc('\n', f);
}

int known_status(const char *status) {
  static const char *const words[] = {"complete", "failed", "interrupted", "skipped"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strcmp(status, words[i])) return 1;
  return 0;
}

int write_csv(const char *path, const vs_sweep *s, const size_t *points, size_t n,
              const point_result *results, const double *collected) {
  /* Never through a planted file or link (a regular file is replaced), and
   * never over the sweep file or its scene; the temporary file is created
   * exclusively under a name no one can guess (cmd/outfile.h). */
  const char *const inputs[] = {s->file, s->scene, NULL};
  vs_outfile o;
  vs_error err;
  vs_error_clear(&err);
  if (vs_outfile_create(path, VS_OUTFILE_FORCE, inputs, &o, &err) != VS_OK) {
    cli_report(&err, path);
    return -1;
  }
  int fd = dup(o.fd);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", cli_esc(path), strerror(errno));
    if (fd >= 0) close(fd);
    vs_outfile_discard(&o);
    return -1;
  }
  csv_header(f, s);
  for (size_t i = 0; i < n; i++) csv_row(f, s, points[i], &results[points[i]], collected);
  int bad = ferror(f);
  int e = bad ? errno : 0;
  if (fclose(f) != 0 && !bad) bad = 1, e = errno;
  if (bad) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", cli_esc(path), strerror(e ? e : EIO));
    vs_outfile_discard(&o);
    return -1;
  }
  if (vs_outfile_publish(&o, &err) != VS_OK) {
    cli_report(&err, path);
    return -1;
  }
  return 0;
}

/* A point-NNNN.csv to read: a regular file, opened without blocking (a FIFO
 * planted there would hang a plain open until a writer came) and checked
 * on the open descriptor; NULL with *why set when it is missing or not a
 * regular file. */
static FILE *open_point_csv(const char *path, const char **why) {
  *why = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return NULL; /* missing: counted as such, said nothing */
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    static char kind[64];
    snprintf(kind, sizeof kind, "is %s, not a regular file",
             S_ISFIFO(st.st_mode)  ? "a FIFO (named pipe)"
             : S_ISDIR(st.st_mode) ? "a directory"
             : S_ISCHR(st.st_mode) ? "a character device"
             : S_ISBLK(st.st_mode) ? "a block device"
             : S_ISSOCK(st.st_mode) ? "a socket"
                                    : "something else");
    *why = kind;
    close(fd);
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "r");
  if (!f) close(fd);
  return f;
}

/* A number field of a point row: empty (unknown) or a whole number. */
static int csv_number(const char *s, double *v) {
  if (!*s) {
    *v = NAN;
    return 1;
  }
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0';
}

/* Split one CSV line into fields (in place); returns the count. */
static size_t csv_split(char *line, char **fields, size_t max) {
  size_t n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return n;
    char *out = p;
    fields[n++] = out;
    if (*p == '"') {
      p++;
      for (;;) {
        if (!*p) break;
        if (*p == '"' && p[1] == '"') {
          *out++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *out++ = *p++;
        }
      }
    }
    while (*p && *p != ',' && *p != '\n' && *p != '\r') *out++ = *p++;
    int more = *p == ',';
    *out = '\0';
    if (!more) return n;
    p++;
  }
}

/* --collect: the rows of the --point runs' point-NNNN.csv files. */
int collect(sweep_run *r, point_result *results) {
  const vs_sweep *s = r->s;
  size_t missing = 0, not_complete = 0;
  size_t nf = s->n_params + 5 + s->n_collect;
  char **fields = calloc(nf + 1, sizeof *fields);
  size_t *all = calloc(s->n_points, sizeof *all);
  if (!fields || !all) {
    free(fields);
    free(all);
    fprintf(stderr, "vsim sweep: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  for (size_t k = 0; k < s->n_points; k++) {
    all[k] = k;
    point_result *res = &results[k];
    result_skipped(res);
    snprintf(res->status, sizeof res->status, "missing");
    char path[PATH_MAX], line[65536];
    point_path(path, sizeof path, r->dir, k, "csv");
    const char *why = NULL;
    FILE *f = open_point_csv(path, &why);
    /* header, then the row; the row must be this point of this sweep */
    int ok = f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f);
    if (f) fclose(f);
    size_t got = ok ? csv_split(line, fields, nf + 1) : 0;
    ok = ok && got == nf && strtoull(fields[0], NULL, 10) == k;
    for (size_t i = 0; ok && i < s->n_params; i++)
      ok = !strcmp(fields[1 + i], s->params[i].values[vs_sweep_value_index(s, k, i)]);
    /* what summary.csv takes from the row is checked, not copied: a status
     * of the four words, two numbers, and the point's own file name */
    char **tail = fields + 1 + s->n_params;
    const char *file = ok ? tail[3 + s->n_collect] : "";
    double final_error = NAN, wall = NAN, v;
    char want_file[32];
    snprintf(want_file, sizeof want_file, "point-%04zu.h5", k);
    if (ok && (!known_status(tail[0]) || !csv_number(tail[1], &final_error) ||
               !csv_number(tail[2], &wall) || (file[0] && strcmp(file, want_file) != 0))) {
      ok = 0;
      why = "not a row vsim wrote (status, numbers or file name)";
    }
    for (size_t i = 0; ok && i < s->n_collect; i++)
      if (!csv_number(tail[3 + i], &v)) {
        ok = 0;
        why = "not a row vsim wrote (a collect column is not a number)";
      }
    if (!ok) {
      if (f || why)
        fprintf(stderr, "vsim sweep: %s: %s; counted as missing\n", cli_esc(path),
                why ? why : "not a row of this point of this sweep");
      missing++;
      continue;
    }
    snprintf(res->status, sizeof res->status, "%s", tail[0]);
    res->ran = 1;
    res->final_error = final_error;
    res->wall = wall;
    for (size_t i = 0; i < s->n_collect; i++) {
      double c = NAN;
      csv_number(tail[3 + i], &c); /* checked above */
      r->collected[k * s->n_collect + i] = c;
    }
    res->has_file = file[0] != '\0';
    if (strcmp(res->status, "complete") != 0) not_complete++;
  }
  char path[PATH_MAX];
  summary_path(path, sizeof path, r->dir);
  int code;
  if (missing == s->n_points) {
    /* nothing to collect: keep whatever summary.csv is there (a -j run's) */
    fprintf(stderr,
            "vsim sweep: %s holds no point-NNNN.csv of this sweep; --collect merges the rows "
            "that --point runs write\n",
            cli_esc(r->dir));
    code = CLI_EXIT_USAGE;
  } else {
    code = write_csv(path, s, all, s->n_points, results, r->collected) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  }
  if (code == CLI_EXIT_OK) {
    if (!r->a->quiet || missing || not_complete)
      fprintf(stderr, "vsim sweep: %s: %zu points, %zu complete, %zu not complete, %zu missing\n",
              cli_esc(path), s->n_points, s->n_points - missing - not_complete, not_complete, missing);
    if (missing || not_complete) code = CLI_EXIT_FAIL;
  }
  free(fields);
  free(all);
  return code;
}
