/* SPDX-License-Identifier: MIT */
/* schema.c: `vsim schema`: the JSON Schema of the scene format on standard
 * output, generated from the key table (vs_scene_schema; docs/cli.md). */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

enum { OPT_HELP = 1 };

static const cli_opt schema_opts[] = {
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_SCHEMA_OPTS (sizeof schema_opts / sizeof schema_opts[0])

void cmd_schema_help(void) {
  printf(
      "Usage: vsim schema\n"
      "\n"
      "Print the JSON Schema (draft-07) of the scene format on standard output:\n"
      "every key of every section, body, collider and constraint kind with its type,\n"
      "range, choices, default and documentation, generated from the same table as\n"
      "the loader.  Editors with the YAML language server check and complete a scene\n"
      "that names it on its first line:\n"
      "\n"
      "  # yaml-language-server: $schema=/usr/local/share/vsim/vsim-scene.schema.json\n"
      "\n"
      "make install puts it in PREFIX/share/vsim/; docs/vsim-scene.schema.json is a\n"
      "copy in the repository.  What a schema cannot say (particle references that\n"
      "resolve, max > min, unique names) vsim validate checks.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, schema_opts, N_SCHEMA_OPTS);
  printf("\nExit status: 0 done; 2 bad usage.\n");
}

int cmd_schema(int argc, char **argv, const char *command_line) {
  (void)command_line;
  cli_parser p;
  cli_init(&p, "schema", argc, argv, schema_opts, N_SCHEMA_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        return cli_usage_error("schema", "takes no operand (got '%s')", v);
      case OPT_HELP:
        cmd_schema_help();
        return CLI_EXIT_OK;
      default:
        return CLI_EXIT_USAGE;
    }
  }
  vs_error err;
  vs_error_clear(&err);
  char *json = NULL;
  vs_status st = vs_scene_schema(&json, &err);
  if (st != VS_OK) {
    cli_report(&err, NULL);
    return cli_exit_code(st, CLI_PHASE_INPUT);
  }
  int bad = fputs(json, stdout) < 0 || fflush(stdout) != 0;
  vs_free_buffer(json);
  if (bad) {
    fprintf(stderr, "vsim schema: cannot write to standard output\n");
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}
