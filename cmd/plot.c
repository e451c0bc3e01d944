/* SPDX-License-Identifier: MIT */
/* plot.c: `vsim plot OUT.h5... -o OUT.png [options]`: observables of one or
 * more result files against time, in one picture (a panel per unit). */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "picture.h"
#include "vsim/frames.h"
#include "vsim/render.h"

enum { OPT_OUTPUT = 1, OPT_SERIES, OPT_SIZE, OPT_LOG, OPT_LINEAR, OPT_HELP };

static const cli_opt plot_opts[] = {
    {OPT_OUTPUT, "output", 'o', "OUT.png", "the picture to write: OUT.png, OUT.svg or OUT.pdf"},
    {OPT_SERIES, "series", 0, "NAME,...", "observables to draw [constraint_error_max,"
                                          "penetration_max,energy_kinetic]"},
    {OPT_SIZE, "size", 0, "WxH", "image size in pixels [800x500]"},
    {OPT_LOG, "log", 0, NULL, "logarithmic y axes (symmetric where a panel has zeros)"},
    {OPT_LINEAR, "linear", 0, NULL, "linear y axes (default: log when a panel spans > 3 decades)"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_PLOT_OPTS (sizeof plot_opts / sizeof plot_opts[0])

void cmd_plot_help(void) {
  printf(
      "Usage: vsim plot OUT.h5... -o OUT.png [options]\n"
      "\n"
      "Draw observables against time: a panel per unit (metres, joules, counts,\n"
      "ratios) over one time axis, each linear, logarithmic or symmetric-log (zeros\n"
      "and negatives are drawn), a series of zeros as a flat line marked \"(all 0)\",\n"
      "the legend right of the panels.  Several files (the points of a sweep) are\n"
      "named by the --set parameters that differ between them (\"iterations=5\"),\n"
      "else by their paths; colour per file, dash per series.  Series are named as\n"
      "in format version 2, for version 1 files too:\n"
      "constraint_error_max, distance_error_rms, penetration_max, energy_kinetic,\n"
      "energy_potential, constraints_alive, ...; a file's own list is in the message\n"
      "of a name it does not have.  Written under a temporary name and renamed;\n"
      "an existing OUT.png is replaced, but never a link, a device or FIFO, or one\n"
      "of the files drawn (docs/cli.md, Output files).\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, plot_opts, N_PLOT_OPTS);
  printf(
      "\n"
      "Exit status: 0 done; 1 writing failed; 2 bad usage, a missing or foreign file,\n"
      "an unknown series or an unwritable output.\n");
}

int cmd_plot(int argc, char **argv, const char *command_line) {
  const char *out = NULL, *series_s = NULL;
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  vs_frames **open = calloc((size_t)argc + 1, sizeof *open);
  char *series_buf = NULL;
  const char **series = NULL;
  size_t nf = 0, ns = 0;
  vs_plot_request q = {0};
  q.width = 800, q.height = 500;
  int code = CLI_EXIT_OK;
  if (!files || !open) {
    fprintf(stderr, "vsim: out of memory\n");
    code = CLI_EXIT_FAIL;
    goto done;
  }
  cli_parser p;
  cli_init(&p, "plot", argc, argv, plot_opts, N_PLOT_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND: files[nf++] = v; break;
      case OPT_OUTPUT: out = v; break;
      case OPT_SERIES: series_s = v; break;
      case OPT_SIZE:
        if (pic_parse_size("plot", v, 64, 16384, &q.width, &q.height) != 0) {
          code = CLI_EXIT_USAGE;
          goto done;
        }
        break;
      case OPT_LOG:
      case OPT_LINEAR:
        if (q.yscale != VS_PLOT_Y_AUTO &&
            q.yscale != (id == OPT_LOG ? VS_PLOT_Y_LOG : VS_PLOT_Y_LINEAR)) {
          code = cli_usage_error("plot", "--log and --linear: one or the other");
          goto done;
        }
        q.yscale = id == OPT_LOG ? VS_PLOT_Y_LOG : VS_PLOT_Y_LINEAR;
        break;
      case OPT_HELP: cmd_plot_help(); goto done;
      default: code = CLI_EXIT_USAGE; goto done;
    }
  }
  if (!nf) {
    code = cli_usage_error("plot", "which files? (vsim plot OUT.h5... -o OUT.png)");
    goto done;
  }
  if (!out || !*out) {
    code = cli_usage_error("plot", "where to? (-o OUT.png)");
    goto done;
  }
  int fmt = pic_format_of(out);
  if (fmt < 0) {
    code = pic_bad_format("plot", out, "OUT.png, OUT.svg or OUT.pdf");
    goto done;
  }
  q.format = (vs_render_format)fmt;
  if (series_s) {
    series_buf = strdup(series_s);
    series = calloc(strlen(series_s) + 1, sizeof *series);
    if (!series_buf || !series) {
      fprintf(stderr, "vsim: out of memory\n");
      code = CLI_EXIT_FAIL;
      goto done;
    }
    for (char *save = NULL, *t = strtok_r(series_buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
      if (*t) series[ns++] = t;
    if (!ns) {
      code = cli_usage_error("plot", "--series: no names in '%s'", series_s);
      goto done;
    }
  }
  vs_error err;
  vs_error_clear(&err);
  for (size_t i = 0; i < nf; i++) {
    vs_status st = vs_frames_open(files[i], &open[i], &err);
    if (st != VS_OK) {
      cli_report(&err, files[i]);
      code = cli_exit_code(st, CLI_PHASE_INPUT);
      goto done;
    }
  }
  /* the picture: a new name or a regular file, never one of the files read */
  if ((code = pic_check_output(out, files)) != 0) goto done;
  q.files = open;
  q.labels = files;
  q.n_files = nf;
  q.series = series;
  q.n_series = ns;
  vs_status st = vs_plot_files(&q, out, &err);
  if (st != VS_OK) {
    cli_report(&err, out);
    code = cli_exit_code(st, st == VS_ERR_IO ? CLI_PHASE_WRITING : CLI_PHASE_INPUT);
  }
done:
  for (size_t i = 0; open && i < nf; i++) vs_frames_close(open[i]);
  free(open);
  free(files);
  free(series);
  free(series_buf);
  vs_render_cleanup();
  (void)command_line;
  return code;
}
