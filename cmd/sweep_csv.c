/* SPDX-License-Identifier: MIT */
/* sweep_csv.c: summary.csv (one row per point: its parameters, status,
 * final error, wall time, the sweep's collect columns, file) and
 * --collect, which merges the point-NNNN.csv files of --point runs into
 * it. */
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
  fprintf(f, ",%s,", res->status);
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

/* Write rows for points[0..n) to PATH through a temporary file. */
int write_csv(const char *path, const vs_sweep *s, const size_t *points, size_t n,
              const point_result *results, const double *collected) {
  /* Never through a planted file or link: the summary replaces only a
   * regular file (or nothing), and its temporary file is created
   * exclusively, never followed (README.md, Robustness). */
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    fprintf(stderr, "vsim: %s: exists and is not a regular file (%s): refused\n", path,
            S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file");
    return -1;
  }
  char tmp[PATH_MAX + 64];
  int fd = -1;
  static unsigned counter;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    fprintf(stderr, "vsim: %s: %s\n", path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    return -1;
  }
  csv_header(f, s);
  for (size_t i = 0; i < n; i++) csv_row(f, s, points[i], &results[points[i]], collected);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
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
    FILE *f = fopen(path, "r");
    /* header, then the row; the row must be this point of this sweep */
    int ok = f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f);
    if (f) fclose(f);
    size_t got = ok ? csv_split(line, fields, nf + 1) : 0;
    ok = ok && got == nf && strtoull(fields[0], NULL, 10) == k;
    for (size_t i = 0; ok && i < s->n_params; i++)
      ok = !strcmp(fields[1 + i], s->params[i].values[vs_sweep_value_index(s, k, i)]);
    if (!ok) {
      if (f)
        fprintf(stderr,
                "vsim sweep: %s: not a row of point %zu of this sweep; counted as missing\n", path,
                k);
      missing++;
      continue;
    }
    char **tail = fields + 1 + s->n_params;
    snprintf(res->status, sizeof res->status, "%s", tail[0]);
    res->ran = 1;
    res->final_error = tail[1][0] ? strtod(tail[1], NULL) : NAN;
    res->wall = tail[2][0] ? strtod(tail[2], NULL) : NAN;
    for (size_t i = 0; i < s->n_collect; i++)
      r->collected[k * s->n_collect + i] = tail[3 + i][0] ? strtod(tail[3 + i], NULL) : NAN;
    res->has_file = tail[3 + s->n_collect][0] != '\0';
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
            r->dir);
    code = CLI_EXIT_USAGE;
  } else {
    code = write_csv(path, s, all, s->n_points, results, r->collected) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  }
  if (code == CLI_EXIT_OK) {
    if (!r->a->quiet || missing || not_complete)
      fprintf(stderr, "vsim sweep: %s: %zu points, %zu complete, %zu not complete, %zu missing\n",
              path, s->n_points, s->n_points - missing - not_complete, not_complete, missing);
    if (missing || not_complete) code = CLI_EXIT_FAIL;
  }
  free(fields);
  free(all);
  return code;
}
