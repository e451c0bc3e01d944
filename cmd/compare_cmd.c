/* compare_cmd.c: `vsim compare A.h5 B.h5 [options]`: golden comparison,
 * B the reference (docs/cli.md, vsim compare). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"

enum { OPT_ATOL = 1, OPT_RTOL, OPT_ULPS, OPT_ONLY, OPT_JSON, OPT_HELP };

static const cli_opt compare_opts[] = {
    {OPT_ATOL, "atol", 0, "X", "absolute tolerance [0]"},
    {OPT_RTOL, "rtol", 0, "Y", "relative tolerance, times |b| [0]"},
    {OPT_ULPS, "ulps", 0, "N", "also equal within N units in the last place [0]"},
    {OPT_ONLY, "only", 0, "PATH", "compare only datasets at or under PATH (repeatable)"},
    {OPT_JSON, "json", 0, NULL, "one JSON object on stdout instead of text"},
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

static void print_text(const char *a, const char *b, const vs_compare_result *r,
                       const vs_compare_opts *o) {
  for (size_t i = 0; i < r->n_diffs; i++) {
    const vs_compare_diff *d = &r->diffs[i];
    switch (d->kind) {
      case VS_DIFF_VALUES:
        printf("%s: values differ: max abs %.6g, max rel %.6g", d->path, d->max_abs, d->max_rel);
        if (d->first_step >= 0 && d->first_time == d->first_time)
          printf(", first at step %" PRId64 " (t = %.6g s, row %" PRId64 ")", d->first_step,
                 d->first_time, d->first_frame);
        else if (d->first_step >= 0)
          printf(", first at step %" PRId64 " (row %" PRId64 ")", d->first_step, d->first_frame);
        else if (d->first_frame >= 0)
          printf(", first at row %" PRId64, d->first_frame);
        if (d->first_particle >= 0)
          printf("%s particle %" PRId64, d->first_frame >= 0 ? "," : ", first at",
                 d->first_particle);
        if (d->first_frame < 0 && d->first_particle < 0 && d->first_index >= 0)
          printf(", first at element %" PRId64, d->first_index);
        break;
      case VS_DIFF_SHAPE: {
        long long va, vb;
        if (format_versions(d, &va, &vb)) {
          printf("%s: different vsim format versions: %lld in %s, %lld in %s\n", d->path, va, a,
                 vb, b);
          continue;
        }
        printf("%s: shape differs", d->path);
        break;
      }
      case VS_DIFF_MISSING_A:
      case VS_DIFF_MISSING_B:
        /* the library's detail says which side (or that --only matched nothing) */
        if (d->detail[0])
          printf("%s: %s\n", d->path, d->detail);
        else
          printf("%s: only in %s\n", d->path, d->kind == VS_DIFF_MISSING_A ? b : a);
        continue;
    }
    if (d->detail[0]) printf(" (%s)", d->detail);
    putchar('\n');
  }
  if (r->n_diffs == 0)
    printf("equal: %zu datasets compared (atol %g, rtol %g", r->n_compared, o->atol, o->rtol);
  else
    printf("different: %zu difference%s, %zu datasets compared (atol %g, rtol %g", r->n_diffs,
           r->n_diffs == 1 ? "" : "s", r->n_compared, o->atol, o->rtol);
  if (o->ulps > 0) printf(", ulps %" PRId64, o->ulps);
  printf(")\n");
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
  for (int i = 0; i < 2; i++) {
    if (access(files[i], R_OK) != 0) {
      fprintf(stderr, "vsim: %s: %s\n", cli_esc(files[i]), strerror(errno));
      free(only);
      return CLI_EXIT_USAGE;
    }
  }
  vs_status st = vs_compare_files(files[0], files[1], &o, &r, &err);
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
