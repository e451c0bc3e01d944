/* SPDX-License-Identifier: MIT */
/* xdmf.c: `vsim xdmf OUT.h5 [-o OUT.xmf]`: the XDMF 2 sidecar that opens a
 * result file in ParaView (vsim run writes one by itself). */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

enum { OPT_OUTPUT = 1, OPT_HELP };

static const cli_opt xdmf_opts[] = {
    {OPT_OUTPUT, "output", 'o', "PATH", "the .xmf to write (default: OUT.h5 with .xmf)"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_XDMF_OPTS (sizeof xdmf_opts / sizeof xdmf_opts[0])

void cmd_xdmf_help(void) {
  printf(
      "Usage: vsim xdmf OUT.h5 [-o OUT.xmf]\n"
      "\n"
      "Write the XDMF 2 file that lets ParaView open a result file (File > Open,\n"
      "reader \"XDMF Reader\"): every recorded frame, triangles, links, free\n"
      "particles, and the attributes body, mass, radius, velocity (when recorded)\n"
      "and alive (when links can tear).  It names the .h5 by a path relative to\n"
      "itself: keep the two files together.  vsim run writes OUT.xmf beside\n"
      "OUT.h5 itself only when the scene says output.xdmf: true (the sidecar is\n"
      "often bigger than the result, so it is written on demand).  An existing\n"
      ".xmf is replaced.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, xdmf_opts, N_XDMF_OPTS);
  printf("\nExit status: 0 done; 1 writing failed; 2 the file is unreadable or not a\n"
         "vsim result, or the output cannot be created.\n");
}

int cmd_xdmf(int argc, char **argv, const char *command_line) {
  (void)command_line;
  const char *path = NULL, *out = NULL;
  cli_parser p;
  cli_init(&p, "xdmf", argc, argv, xdmf_opts, N_XDMF_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        if (path) return cli_usage_error("xdmf", "one file at a time (got '%s' and '%s')", path, v);
        path = v;
        break;
      case OPT_OUTPUT:
        out = v;
        break;
      case OPT_HELP:
        cmd_xdmf_help();
        return CLI_EXIT_OK;
      default:
        return CLI_EXIT_USAGE;
    }
  }
  if (!path) return cli_usage_error("xdmf", "which file? (vsim xdmf OUT.h5)");
  vs_error err;
  vs_error_clear(&err);
  vs_status st = vs_xdmf_write(path, out, &err);
  if (st != VS_OK) {
    cli_report(&err, path);
    return cli_exit_code(st, st == VS_ERR_IO && err.file[0] && strcmp(err.file, path) != 0
                                 ? CLI_PHASE_WRITING
                                 : CLI_PHASE_INPUT);
  }
  return CLI_EXIT_OK;
}
