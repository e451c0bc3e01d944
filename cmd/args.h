/* SPDX-License-Identifier: MIT */
/* args.h: command-line option parsing for the vsim subcommands.
 *
 * A small table-driven parser in the spirit of getopt_long, with the
 * behaviour we want everywhere: options and operands in any order
 * (permutation), `--name value` and `--name=value`, `-o value` and `-ovalue`,
 * bundled short flags (`-fq`), `--` ending the options (`vsim run -- --odd.yaml`),
 * no abbreviations of long names (a script keeps working when an option is
 * added), and a "did you mean" for unknown options.  A value taken from the
 * next argument that is itself an option of the command (`-o --force`) is
 * refused as ambiguous: a value that starts with '-' is attached
 * (`--output=--force`, `-o--force`). */
#ifndef VSIM_CMD_ARGS_H
#define VSIM_CMD_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One option of a subcommand. */
typedef struct cli_opt {
  int id;               /* > 0, returned by cli_next */
  const char *name;     /* long name without "--" */
  char short_name;      /* 0 when none */
  const char *arg_name; /* NULL for a flag, else the value's name in help ("PATH") */
  const char *help;     /* one line */
} cli_opt;

/* cli_next results besides option ids. */
enum {
  CLI_DONE = 0,     /* no more arguments */
  CLI_OPERAND = -1, /* *value is an operand (not an option) */
  CLI_BAD = -2      /* usage error, already reported on stderr */
};

typedef struct cli_parser {
  int argc;
  char **argv;
  int next; /* index of the next argv element */
  const cli_opt *opts;
  size_t n_opts;
  const char *cmd;    /* "run", for messages: "vsim run: ..." */
  int operands_only;  /* after "--" */
  const char *bundle; /* rest of a bundled short-flag group ("-fq") */
} cli_parser;

/* argv[0] is the subcommand's name; parsing starts at argv[1]. */
void cli_init(cli_parser *p, const char *cmd, int argc, char **argv, const cli_opt *opts,
              size_t n_opts);

/* Next option id (with *value set for options that take one), CLI_OPERAND,
 * CLI_DONE, or CLI_BAD (message printed). */
int cli_next(cli_parser *p, const char **value);

/* Usage error for a subcommand: "vsim CMD: message" + a pointer to --help.
 * Returns the exit code for bad usage (2). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print the option table, aligned, one option a line. */
void cli_print_options(FILE *f, const cli_opt *opts, size_t n_opts);

/* Parse a whole decimal integer in [lo, hi]; on failure report
 * "vsim CMD: OPT: expected an integer in [lo, hi], got 'S'" and return -1. */
int cli_parse_int64(const char *cmd, const char *opt, const char *s, int64_t lo, int64_t hi,
                    int64_t *out);

/* Parse a finite number >= lo; reports and returns -1 on failure. */
int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double *out);

/* A size in bytes for --max-memory: "2G", "500M", "64k", "1e9", "123456"
 * (K/M/G/T, powers of 1024, either case, optional trailing B).  0, or -1
 * (nothing reported) when malformed or under one byte. */
int cli_parse_memory(const char *text, uint64_t *out);

#endif
