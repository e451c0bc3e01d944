/* SPDX-License-Identifier: MIT */
/* cli.h: what the vsim subcommands share: exit codes, error reporting,
 * JSON output helpers, and the subcommand entry points. */
#ifndef VSIM_CMD_CLI_H
#define VSIM_CMD_CLI_H

#include <stdio.h>

#include "vsim/vsim.h"

/* --threads N: at most this many (OpenMP runtimes abort on far more, e.g.
 * libgomp at 4096); documented in --help and the README. */
#define VS_CLI_MAX_THREADS 1024

/* Exit codes, the same for every subcommand (docs/cli.md, exit status). */
enum {
  CLI_EXIT_OK = 0,   /* success; compare: the files are equal */
  CLI_EXIT_FAIL = 1, /* the run failed (numeric, I/O while writing, interrupted);
                        compare: the files differ */
  CLI_EXIT_USAGE = 2 /* bad usage or bad input */
};

/* Which side of the program a failure happened on: input problems (the
 * scene, the files to compare, opening the output) are the user's to fix
 * (exit 2); I/O while writing results is a failed run (exit 1). */
typedef enum cli_phase { CLI_PHASE_INPUT = 0, CLI_PHASE_WRITING = 1 } cli_phase;

/* Exit code for a library status. */
int cli_exit_code(vs_status st, cli_phase phase);

/* Print "vsim: file:line:col: message" on stderr.  When the record names no
 * file, `file` (may be NULL) is used so that every message names one.
 * Non-printable bytes are shown as \xNN (vs_error_format, cli_esc). */
void cli_report(const vs_error *err, const char *file);

/* s (a path, a value from a file) as a message may show it: every byte
 * that is not printable (ESC, a newline, malformed UTF-8, ...) as \xNN
 * (vs_text_escape).  The text lives in one of 8 static buffers, reused
 * round: up to 8 of them in one message.  Every path a message of the
 * program prints goes through it. */
const char *cli_esc(const char *s);

/* JSON: a string literal with escapes; a number (null when not finite). */
void cli_json_string(FILE *f, const char *s);
void cli_json_number(FILE *f, double v);

/* Monotonic seconds. */
double cli_now(void);

/* The signals that end a run or a sweep as interrupted (docs/cli.md, exit
 * status): every one whose default action ends the process, but for those
 * that report a fault (SIGSEGV, ...), SIGPIPE and SIGXFSZ, which each
 * command treats on its own.  cli_stop_signal_count entries. */
extern const int cli_stop_signals[];
extern const size_t cli_stop_signal_count;

/* Put the heap on transparent huge pages (heap.c); first thing in `vsim run`. */
void cli_heap_setup(void);

/* The command line, shell-quoted where needed, joined by spaces (malloc'd). */
char *cli_join_argv(int argc, char **argv);

/* All of standard input (a scene given as '-'), NUL-terminated, at most
 * VS_MAX_SCENE_BYTES; NULL with err filled on failure. */
char *cli_read_stdin(size_t *len, vs_error *err);

/* Subcommands (the table in main.c): cmd_X runs `vsim X`, argv[0] being
 * the subcommand's name and command_line the whole command line as the user
 * typed it (recorded in result files); cmd_X_help prints its --help. */
typedef int (*cli_run_fn)(int argc, char **argv, const char *command_line);
int cmd_run(int argc, char **argv, const char *command_line);
int cmd_validate(int argc, char **argv, const char *command_line);
int cmd_info(int argc, char **argv, const char *command_line);
int cmd_compare(int argc, char **argv, const char *command_line);
int cmd_sweep(int argc, char **argv, const char *command_line);
int cmd_render(int argc, char **argv, const char *command_line);
int cmd_plot(int argc, char **argv, const char *command_line);
int cmd_xdmf(int argc, char **argv, const char *command_line);
int cmd_schema(int argc, char **argv, const char *command_line);
void cmd_run_help(void);
void cmd_validate_help(void);
void cmd_info_help(void);
void cmd_compare_help(void);
void cmd_sweep_help(void);
void cmd_render_help(void);
void cmd_plot_help(void);
void cmd_xdmf_help(void);
void cmd_schema_help(void);

#endif
