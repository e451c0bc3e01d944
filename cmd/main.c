/* main.c: the vsim program: subcommand dispatch, --version, --help.
 *
 * The library does the work and never prints; this layer parses the command
 * line, prints messages and maps outcomes to the exit codes of SPEC.md §1
 * (0 success, 1 the run failed or compare found differences, 2 bad usage or
 * bad input). */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "args.h"
#include "cli.h"

typedef struct subcommand {
  const char *name;
  const char *summary;
} subcommand;

static const subcommand commands[] = {
    {"run", "simulate a scene and write the result file"},
    {"validate", "check a scene and print what it builds; simulate nothing"},
    {"compare", "compare two result files (the second is the reference)"},
    {"info", "describe a result file"},
    {"sweep", "run a scene over a grid or list of parameter values"},
    {"help", "help on a command: vsim help run"},
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
          "  vsim sweep SWEEP.yaml [-o DIR] [-j N] [--list | --point K | --collect]\n"
          "\n"
          "Options:\n"
          "  -h, --help     show this help (vsim COMMAND --help: that command's options)\n"
          "  -V, --version  versions of vsim, its file format and its libraries\n"
          "\n"
          "Exit status: 0 success; 1 the run failed or compare found differences;\n"
          "2 bad usage or bad input.\n");
}

static int version(void) {
  printf("vsim %s\n", vs_version());
  printf("result format %d (H5MD 1.1 layout)\n", VSIM_FORMAT_VERSION);
  printf("libyaml %s\n", yaml_get_version_string());
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
    fprintf(stderr, "vsim: unknown command '%s' (did you mean '%s'?)\n", name, best);
  else
    fprintf(stderr, "vsim: unknown command '%s'\n", name);
  fprintf(stderr, "Try 'vsim --help' for the commands.\n");
  return CLI_EXIT_USAGE;
}

static int dispatch(int argc, char **argv, const char *command_line) {
  const char *cmd = argv[0];
  if (strcmp(cmd, "run") == 0) return cmd_run(argc, argv, command_line);
  if (strcmp(cmd, "validate") == 0) return cmd_validate(argc, argv);
  if (strcmp(cmd, "compare") == 0) return cmd_compare(argc, argv);
  if (strcmp(cmd, "info") == 0) return cmd_info(argc, argv);
  if (strcmp(cmd, "sweep") == 0) return cmd_sweep(argc, argv);
  if (strcmp(cmd, "help") == 0) {
    if (argc < 2) {
      usage(stdout);
      return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) return dispatch(1, argv + 1, command_line);
    char *sub[3] = {argv[1], "--help", NULL};
    return dispatch(2, sub, command_line);
  }
  return unknown_command(cmd);
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
    fprintf(stderr, "vsim: unknown option '%s' (options come after the command)\n", first);
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
