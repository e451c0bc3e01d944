/* SPDX-License-Identifier: MIT */
/* info.c: `vsim info OUT.h5 [--json]`: what a result file holds. */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

enum { OPT_JSON = 1, OPT_HELP };

static const cli_opt info_opts[] = {
    {OPT_JSON, "json", 0, NULL, "one JSON object instead of text"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_INFO_OPTS (sizeof info_opts / sizeof info_opts[0])

void cmd_info_help(void) {
  printf(
      "Usage: vsim info OUT.h5 [--json]\n"
      "\n"
      "Describe a result file: its status (complete, interrupted, failed), frames,\n"
      "particles, constraints and datasets.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, info_opts, N_INFO_OPTS);
  printf("\nExit status: 0 done; 2 the file is unreadable or not a vsim result.\n");
}

int cmd_info(int argc, char **argv, const char *command_line) {
  const char *path = NULL;
  int json = 0;
  cli_parser p;
  cli_init(&p, "info", argc, argv, info_opts, N_INFO_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        if (path) return cli_usage_error("info", "one file at a time (got '%s' and '%s')", path, v);
        path = v;
        break;
      case OPT_JSON:
        json = 1;
        break;
      case OPT_HELP:
        cmd_info_help();
        return CLI_EXIT_OK;
      default:
        return CLI_EXIT_USAGE;
    }
  }
  if (!path) return cli_usage_error("info", "which file? (vsim info OUT.h5)");

  vs_error err;
  vs_error_clear(&err);
  char *text = NULL;
  vs_status st = vs_h5_describe(path, json, &text, &err);
  if (st != VS_OK) {
    cli_report(&err, path);
    vs_free_buffer(text);
    return cli_exit_code(st, CLI_PHASE_INPUT);
  }
  size_t n = text ? strlen(text) : 0;
  if (n) fputs(text, stdout);
  if (!n || text[n - 1] != '\n') putchar('\n');
  vs_free_buffer(text);
  return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
