/* SPDX-License-Identifier: MIT */
/* main.c: the vsim program: subcommand dispatch, --version, --help.
 *
 * The library does the work and never prints; this layer parses the command
 * line, prints messages and maps outcomes to the exit codes of docs/cli.md
 * (0 success, 1 the run failed or compare found differences, 2 bad usage or
 * bad input). */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "text.h"

/* The subcommands: a new one is a file with its run and help functions and
 * one row here. */
typedef struct subcommand {
  const char *name;
  const char *summary;  /* one line in `vsim --help` */
  cli_run_fn run;       /* argv[0] is the name */
  void (*help)(void);   /* `vsim NAME --help`, `vsim help NAME` */
} subcommand;

static int cmd_help(int argc, char **argv, const char *command_line);
static void cmd_help_help(void);

static const subcommand commands[] = {
    {"run", "simulate a scene and write the result file", cmd_run, cmd_run_help},
    {"validate", "check a scene and print what it builds; simulate nothing", cmd_validate,
     cmd_validate_help},
    {"compare", "compare two result files (the second is the reference)", cmd_compare,
     cmd_compare_help},
    {"info", "describe a result file", cmd_info, cmd_info_help},
    {"xdmf", "write the XDMF file that opens a result file in ParaView", cmd_xdmf,
     cmd_xdmf_help},
    {"sweep", "run a scene over a grid or list of parameter values", cmd_sweep, cmd_sweep_help},
    {"schema", "print the JSON Schema of the scene format, for editors", cmd_schema,
     cmd_schema_help},
    {"render", "draw frames of a result file: PNG, numbered PNGs, MP4 or GIF", cmd_render, cmd_render_help},
    {"plot", "draw observables of result files against time", cmd_plot, cmd_plot_help},
    {"help", "help on a command: vsim help run", cmd_help, cmd_help_help},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
  fprintf(f,
          "Usage: vsim COMMAND [options]\n"
          "\n"
          "vsim: a headless batch simulator of particles and constraints (Verlet,\n"
          "PBD, XPBD): cloth, ropes, soft and rigid bodies, ragdolls.  Scenes in YAML,\n"
          "results in HDF5 (H5MD).\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "  vsim run [SCENE.yaml] [-o OUT.h5] [options]\n"
          "  vsim validate SCENE.yaml [--set KEY=VALUE]...\n"
          "  vsim compare A.h5 B.h5 [--atol X] [--rtol Y] [--ulps N] [--only PATH]... [--json]\n"
          "  vsim info OUT.h5 [--json]\n"
          "  vsim xdmf OUT.h5 [-o OUT.xmf]\n"
          "  vsim sweep SWEEP.yaml [-o DIR] [-j N] [--list | --point K | --collect]\n"
          "  vsim schema > vsim-scene.schema.json\n"
          "  vsim render OUT.h5 -o OUT.png|DIR/|OUT.mp4|OUT.gif [--frame K] [--frames A:B[:S]]\n"
          "  vsim plot OUT.h5... -o OUT.png [--series NAME,...]\n"
          "\n"
          "Options:\n"
          "  -h, --help     show this help (vsim COMMAND --help: that command's options)\n"
          "  -V, --version  versions of vsim, its file format and its libraries\n"
          "\n"
          "Exit status: 0 success; 1 the run failed or compare found differences;\n"
          "2 bad usage or bad input.\n");
}

static int version(void) {
#ifdef VSIM_GIT_DESCRIBE /* built from a git checkout: the Makefile's `git describe` */
  printf("vsim %s (git %s)\n", vs_version(), VSIM_GIT_DESCRIBE);
#else
  printf("vsim %s\n", vs_version());
#endif
  printf("result format %d (H5MD 1.1 layout)\n", VSIM_FORMAT_VERSION);
  printf("libyaml %s\n", vs_yaml_library_version());
  printf("%s\n", vs_h5_library_version());
  return CLI_EXIT_OK;
}

static int unknown_command(const char *name) {
  const char *best = NULL;
  int best_d = 3;
  for (size_t i = 0; i < N_COMMANDS; i++) {
    int d = vs_edit_distance(name, commands[i].name, 2);
    if (d < best_d) {
      best_d = d;
      best = commands[i].name;
    }
  }
  if (best)
    fprintf(stderr, "vsim: unknown command '%s' (did you mean '%s'?)\n", cli_esc(name), best);
  else
    fprintf(stderr, "vsim: unknown command '%s'\n", cli_esc(name));
  fprintf(stderr, "Try 'vsim --help' for the commands.\n");
  return CLI_EXIT_USAGE;
}

static const subcommand *find_command(const char *name) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static void cmd_help_help(void) {
  usage(stdout);
}

/* `vsim help` is `vsim --help`; `vsim help NAME` is `vsim NAME --help`. */
static int cmd_help(int argc, char **argv, const char *command_line) {
  if (argc < 2) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  const subcommand *c = find_command(argv[1]);
  if (!c) return unknown_command(argv[1]);
  c->help();
  return CLI_EXIT_OK;
}

static int dispatch(int argc, char **argv, const char *command_line) {
  const subcommand *c = find_command(argv[0]);
  if (!c) return unknown_command(argv[0]);
  return c->run(argc, argv, command_line);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) return version();
  if (first[0] == '-') {
    fprintf(stderr, "vsim: unknown option '%s' (options come after the command)\n", cli_esc(first));
    fprintf(stderr, "Try 'vsim --help' for the commands.\n");
    return CLI_EXIT_USAGE;
  }
  char *command_line = cli_join_argv(argc, argv);
  if (!command_line) {
    fprintf(stderr, "vsim: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  int code = dispatch(argc - 1, argv + 1, command_line);
  free(command_line);
  return code;
}
