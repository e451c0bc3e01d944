/* SPDX-License-Identifier: MIT */
/* compare_cmd.c: `vsim compare A.h5 B.h5 [options]`: golden comparison,
 * B the reference (docs/cli.md, vsim compare). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"

enum { OPT_ATOL = 1, OPT_RTOL, OPT_ULPS, OPT_ONLY, OPT_JSON, OPT_JUNIT, OPT_HELP };

static const cli_opt compare_opts[] = {
    {OPT_ATOL, "atol", 0, "X", "absolute tolerance [0]"},
    {OPT_RTOL, "rtol", 0, "Y", "relative tolerance, times |b| [0]"},
    {OPT_ULPS, "ulps", 0, "N", "also equal within N units in the last place [0]"},
    {OPT_ONLY, "only", 0, "PATH", "compare only datasets at or under PATH (repeatable)"},
    {OPT_JSON, "json", 0, NULL, "one JSON object on stdout instead of text"},
    {OPT_JUNIT, "junit", 0, "FILE",
     "also write a JUnit XML report to FILE (- for stdout): a test case per dataset"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_COMPARE_OPTS (sizeof compare_opts / sizeof compare_opts[0])

void cmd_compare_help(void) {
  printf(
      "Usage: vsim compare A.h5 B.h5 [options]\n"
      "\n"
      "Compare result A against the reference B: every dataset under /particles,\n"
      "/observables, /connectivity and /solver.  A dataset on one side only, or of\n"
      "another shape, is a difference; values are equal when\n"
      "|a - b| <= atol + rtol * |b| (defaults 0: bitwise).  For each differing dataset\n"
      "it prints the largest absolute and relative difference and where the tolerance\n"
      "is first broken: the recorded step (frame number) and time, the row of the\n"
      "dataset (with output.every: k, row r is step r k), and the particle.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, compare_opts, N_COMPARE_OPTS);
  printf(
      "\n"
      "--json prints {\"equal\": bool, \"compared\": n, \"differences\": [{\"path\", \"kind\",\n"
      "\"max_abs\", \"max_rel\", \"first_index\", \"first_frame\" (the row), \"first_particle\",\n"
      "\"detail\", \"step\", \"time\"}, ...]} with kind one of values, shape, missing_a\n"
      "(only in B), missing_b (only in A), format (different vsim format versions);\n"
      "-1 (time: null) where a row, step or particle does not apply.\n"
      "\n"
      "--junit FILE writes a JUnit XML report (Ant/Jenkins layout): one test suite\n"
      "named after A's file name, one test case per dataset, a failure for each that\n"
      "differs, saying where it first does; a file that cannot be read is one test\n"
      "case with an error.  It is written whatever the outcome.\n"
      "\n"
      "Exit status: 0 equal; 1 different; 2 a file is unreadable or not a vsim result.\n");
}

/* The library reports different format versions as a shape difference of
 * /parameters/vsim; say what it is. */
static int format_versions(const vs_compare_diff *d, long long *va, long long *vb) {
  return d->kind == VS_DIFF_SHAPE && strcmp(d->path, "/parameters/vsim") == 0 &&
         sscanf(d->detail, "format version %lld vs %lld", va, vb) == 2;
}

static const char *kind_name(const vs_compare_diff *d) {
  long long va, vb;
  if (format_versions(d, &va, &vb)) return "format";
  switch (d->kind) {
    case VS_DIFF_VALUES:
      return "values";
    case VS_DIFF_SHAPE:
      return "shape";
    case VS_DIFF_MISSING_A:
      return "missing_a";
    case VS_DIFF_MISSING_B:
      return "missing_b";
  }
  return "?";
}

/* One difference as one line (no newline), as the text report prints it
 * and the JUnit failure says it. */
static void describe_diff(char *buf, size_t size, const char *a, const char *b,
                          const vs_compare_diff *d) {
  size_t n = 0;
#define ADD(...)                                                             \
  do {                                                                       \
    int w_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);        \
    if (w_ > 0) n += (size_t)w_;                                             \
    if (n >= size) n = size - 1;                                             \
  } while (0)
  buf[0] = '\0';
  switch (d->kind) {
    case VS_DIFF_VALUES:
      ADD("%s: values differ: max abs %.6g, max rel %.6g", d->path, d->max_abs, d->max_rel);
      if (d->first_step >= 0 && d->first_time == d->first_time)
        ADD(", first at step %" PRId64 " (t = %.6g s, row %" PRId64 ")", d->first_step,
            d->first_time, d->first_frame);
      else if (d->first_step >= 0)
        ADD(", first at step %" PRId64 " (row %" PRId64 ")", d->first_step, d->first_frame);
      else if (d->first_frame >= 0)
        ADD(", first at row %" PRId64, d->first_frame);
      if (d->first_particle >= 0)
        ADD("%s particle %" PRId64, d->first_frame >= 0 ? "," : ", first at", d->first_particle);
      if (d->first_frame < 0 && d->first_particle < 0 && d->first_index >= 0)
        ADD(", first at element %" PRId64, d->first_index);
      break;
    case VS_DIFF_SHAPE: {
      long long va, vb;
      if (format_versions(d, &va, &vb)) {
        ADD("%s: different vsim format versions: %lld in %s, %lld in %s", d->path, va, a, vb, b);
        return;
      }
      ADD("%s: shape differs", d->path);
      break;
    }
    case VS_DIFF_MISSING_A:
    case VS_DIFF_MISSING_B:
      /* the library's detail says which side (or that --only matched nothing) */
      if (d->detail[0])
        ADD("%s: %s", d->path, d->detail);
      else
        ADD("%s: only in %s", d->path, d->kind == VS_DIFF_MISSING_A ? b : a);
      return;
  }
  if (d->detail[0]) ADD(" (%s)", d->detail);
#undef ADD
}

static void print_text(const char *a, const char *b, const vs_compare_result *r,
                       const vs_compare_opts *o) {
  char line[2048];
  for (size_t i = 0; i < r->n_diffs; i++) {
    describe_diff(line, sizeof line, a, b, &r->diffs[i]);
    printf("%s\n", line);
  }
  if (r->n_diffs == 0)
    printf("equal: %zu datasets compared (atol %g, rtol %g", r->n_compared, o->atol, o->rtol);
  else
    printf("different: %zu difference%s, %zu datasets compared (atol %g, rtol %g", r->n_diffs,
           r->n_diffs == 1 ? "" : "s", r->n_compared, o->atol, o->rtol);
  if (o->ulps > 0) printf(", ulps %" PRId64, o->ulps);
  printf(")\n");
}

/* ---- JUnit XML ----------------------------------------------------------
 * One <testsuite> named after A (its file name without .h5: the scene, in
 * the golden script), one <testcase> per dataset looked at, a <failure>
 * for each that differs saying where it first does (step, time, row,
 * particle), and for the differences that are no dataset (format
 * versions, an --only that matched nothing) a test case of their own; a
 * comparison that could not run is one test case with an <error>.  The
 * layout of the Ant/Jenkins junit XML (tests/data/junit.xsd). */

/* XML text: the five escapes, and characters XML 1.0 cannot hold as '?'. */
static void xml_text(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&apos;", f); break;
      default:
        if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
          fputc('?', f);
        else
          fputc(*p, f);
    }
  }
}

static const char *diff_type(const vs_compare_diff *d) {
  return kind_name(d);
}

static void junit_case(FILE *f, const char *suite, const char *name, const char *what,
                       const char *type, const char *message) {
  fputs("    <testcase classname=\"", f);
  xml_text(f, suite);
  fputs("\" name=\"", f);
  xml_text(f, name);
  fputs("\" time=\"0\"", f);
  if (!what) {
    fputs("/>\n", f);
    return;
  }
  fprintf(f, ">\n      <%s type=\"", what);
  xml_text(f, type);
  fputs("\" message=\"", f);
  xml_text(f, message);
  fputs("\">", f);
  xml_text(f, message);
  fprintf(f, "</%s>\n    </testcase>\n", what);
}

/* The suite's name: A's file name without its directory and .h5. */
static void suite_name(const char *a, char *buf, size_t size) {
  const char *base = strrchr(a, '/');
  base = base ? base + 1 : a;
  size_t n = strlen(base);
  if (n > 3 && !strcmp(base + n - 3, ".h5")) n -= 3;
  snprintf(buf, size, "%.*s", (int)n, base);
}

static void junit_body(FILE *f, const char *a, const char *b, const vs_compare_opts *o,
                       const vs_compare_result *r, const vs_error *failed, double seconds) {
  char suite[256], host[256] = "localhost", stamp[32] = "1970-01-01T00:00:00", line[2048];
  suite_name(a, suite, sizeof suite);
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = '\0';
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  /* the test cases: every dataset, then the differences that are none */
  size_t tests = 0, failures = 0, errors = failed ? 1 : 0;
  if (!failed) {
    tests = r->n_paths;
    for (size_t i = 0; i < r->n_diffs; i++) {
      int listed = 0;
      for (size_t k = 0; k < r->n_paths && !listed; k++)
        listed = !strcmp(r->paths[k], r->diffs[i].path);
      tests += !listed;
    }
    failures = r->n_diffs;
  } else {
    tests = 1;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f, "<testsuites name=\"vsim compare\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
             "time=\"%.3f\">\n", tests, failures, errors, seconds);
  fputs("  <testsuite name=\"", f);
  xml_text(f, suite);
  fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\" "
             "timestamp=\"%s\" hostname=\"", tests, failures, errors, seconds, stamp);
  xml_text(f, host);
  fputs("\">\n    <properties>\n", f);
  char num[64];
  const char *props[][2] = {{"a", a}, {"b", b}, {"atol", NULL}, {"rtol", NULL}, {"ulps", NULL}};
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    const char *v = props[i][1];
    if (i == 2) snprintf(num, sizeof num, "%.17g", o->atol), v = num;
    if (i == 3) snprintf(num, sizeof num, "%.17g", o->rtol), v = num;
    if (i == 4) snprintf(num, sizeof num, "%" PRId64, o->ulps), v = num;
    fprintf(f, "      <property name=\"%s\" value=\"", props[i][0]);
    xml_text(f, v);
    fputs("\"/>\n", f);
  }
  fputs("    </properties>\n", f);
  if (failed) {
    snprintf(line, sizeof line, "%s%s%s", failed->file[0] ? failed->file : "",
             failed->file[0] ? ": " : "", failed->message);
    junit_case(f, suite, "compare", "error", "unreadable", line);
  } else {
    size_t di = 0;
    for (size_t k = 0; k < r->n_paths; k++) {
      const vs_compare_diff *d = NULL;
      for (size_t i = 0; i < r->n_diffs && !d; i++)
        if (!strcmp(r->diffs[i].path, r->paths[k])) d = &r->diffs[i];
      if (d) describe_diff(line, sizeof line, a, b, d);
      junit_case(f, suite, r->paths[k], d ? "failure" : NULL, d ? diff_type(d) : NULL,
                 d ? line : NULL);
    }
    for (di = 0; di < r->n_diffs; di++) {
      int listed = 0;
      for (size_t k = 0; k < r->n_paths && !listed; k++)
        listed = !strcmp(r->paths[k], r->diffs[di].path);
      if (listed) continue;
      describe_diff(line, sizeof line, a, b, &r->diffs[di]);
      junit_case(f, suite, r->diffs[di].path, "failure", diff_type(&r->diffs[di]), line);
    }
  }
  fputs("  </testsuite>\n</testsuites>\n", f);
}

/* Write the report to path ("-": standard output) through a temporary
 * file beside it, renamed into place.  0, or -1 said on stderr. */
static int write_junit(const char *path, const char *a, const char *b, const vs_compare_opts *o,
                       const vs_compare_result *r, const vs_error *failed, double seconds) {
  if (!strcmp(path, "-")) {
    junit_body(stdout, a, b, o, r, failed, seconds);
    return fflush(stdout) == 0 ? 0 : -1;
  }
  char tmp[PATH_MAX + 64];
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%d", path, (long)getpid(), tries);
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
  junit_body(f, a, b, o, r, failed, seconds);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

static void print_json(const vs_compare_result *r) {
  printf("{\"equal\":%s,\"compared\":%zu,\"differences\":[", r->n_diffs ? "false" : "true",
         r->n_compared);
  for (size_t i = 0; i < r->n_diffs; i++) {
    const vs_compare_diff *d = &r->diffs[i];
    if (i) putchar(',');
    fputs("{\"path\":", stdout);
    cli_json_string(stdout, d->path);
    fputs(",\"kind\":", stdout);
    cli_json_string(stdout, kind_name(d));
    fputs(",\"max_abs\":", stdout);
    cli_json_number(stdout, d->max_abs);
    fputs(",\"max_rel\":", stdout);
    cli_json_number(stdout, d->max_rel);
    printf(",\"first_index\":%" PRId64 ",\"first_frame\":%" PRId64 ",\"first_particle\":%" PRId64,
           d->first_index, d->first_frame, d->first_particle);
    fputs(",\"detail\":", stdout);
    cli_json_string(stdout, d->detail);
    printf(",\"step\":%" PRId64 ",\"time\":", d->first_step);
    cli_json_number(stdout, d->first_time);
    putchar('}');
  }
  printf("]}\n");
}

int cmd_compare(int argc, char **argv, const char *command_line) {
  const char *files[2] = {NULL, NULL};
  int n_files = 0, json = 0;
  const char *junit = NULL;
  vs_compare_opts o;
  memset(&o, 0, sizeof o);
  const char **only = calloc((size_t)argc + 1, sizeof *only);
  if (!only) {
    fprintf(stderr, "vsim compare: out of memory\n");
    return CLI_EXIT_FAIL;
  }

  cli_parser p;
  cli_init(&p, "compare", argc, argv, compare_opts, N_COMPARE_OPTS);
  const char *v;
  int id, code = -1;
  while (code < 0 && (id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        if (n_files == 2)
          code = cli_usage_error("compare", "two files only (extra '%s')", v);
        else
          files[n_files++] = v;
        break;
      case OPT_ATOL:
        if (cli_parse_double("compare", "--atol", v, 0.0, &o.atol)) code = CLI_EXIT_USAGE;
        break;
      case OPT_RTOL:
        if (cli_parse_double("compare", "--rtol", v, 0.0, &o.rtol)) code = CLI_EXIT_USAGE;
        break;
      case OPT_ULPS:
        if (cli_parse_int64("compare", "--ulps", v, 0, INT64_MAX, &o.ulps)) code = CLI_EXIT_USAGE;
        break;
      case OPT_ONLY:
        if (v[0] != '/')
          code = cli_usage_error("compare",
                                 "--only: expected a dataset path such as "
                                 "/particles/all/position, got '%s'",
                                 v);
        else
          only[o.n_only++] = v;
        break;
      case OPT_JSON:
        json = 1;
        break;
      case OPT_JUNIT:
        if (!*v)
          code = cli_usage_error("compare", "--junit: empty path");
        else
          junit = v;
        break;
      case OPT_HELP:
        cmd_compare_help();
        code = CLI_EXIT_OK;
        break;
      default:
        code = CLI_EXIT_USAGE;
        break;
    }
  }
  if (code < 0 && n_files != 2)
    code = cli_usage_error("compare", "expected two files: vsim compare A.h5 B.h5");
  if (code >= 0) {
    free(only);
    return code;
  }
  o.only = o.n_only ? only : NULL;

  vs_error err;
  vs_error_clear(&err);
  vs_compare_result r;
  memset(&r, 0, sizeof r);
  /* Name the file that cannot be read, whatever the library says later
   * (access, not fopen: opening a FIFO would block). */
  double t0 = cli_now();
  vs_status st = VS_OK;
  for (int i = 0; i < 2 && st == VS_OK; i++) {
    if (access(files[i], R_OK) != 0)
      st = vs_error_set(&err, VS_ERR_USAGE, files[i], 0, 0, "%s", strerror(errno));
  }
  if (st == VS_OK) st = vs_compare_files(files[0], files[1], &o, &r, &err);
  if (junit && write_junit(junit, files[0], files[1], &o, &r, st == VS_OK ? NULL : &err,
                           cli_now() - t0) != 0 &&
      st == VS_OK) {
    vs_compare_result_free(&r);
    free(only);
    return CLI_EXIT_FAIL;
  }
  if (st != VS_OK) {
    cli_report(&err, NULL);
    code = cli_exit_code(st, CLI_PHASE_INPUT);
  } else {
    if (json)
      print_json(&r);
    else
      print_text(files[0], files[1], &r, &o);
    code = r.n_diffs ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  }
  vs_compare_result_free(&r);
  free(only);
  return code;
}
