/* SPDX-License-Identifier: MIT */
/* util.c: exit codes, messages and JSON helpers shared by the subcommands. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "text.h"

int cli_exit_code(vs_status st, cli_phase phase) {
  switch (st) {
    case VS_OK:
      return CLI_EXIT_OK;
    case VS_ERR_USAGE:
    case VS_ERR_SCENE:
    case VS_ERR_LIMIT:
    case VS_ERR_EXISTS:
    case VS_ERR_UNSUPPORTED:
    case VS_ERR_FORMAT:
      return CLI_EXIT_USAGE;
    case VS_ERR_IO:
      return phase == CLI_PHASE_INPUT ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    case VS_ERR_NOMEM:
    case VS_ERR_NUMERIC:
    case VS_ERR_INTERRUPTED:
    case VS_STATUS_COUNT:
    default:
      return CLI_EXIT_FAIL;
  }
}

const char *cli_esc(const char *s) {
  static char ring[8][4 * 4096 + 1];
  static unsigned next;
  char *b = ring[next++ % 8];
  vs_text_escape(b, sizeof ring[0], s);
  return b;
}

void cli_report(const vs_error *err, const char *file) {
  char buf[4 * (sizeof err->file + sizeof err->message) + 64];
  size_t n = strlen(err->file);
  if (n && err->line <= 0 && strncmp(err->message, err->file, n) == 0 &&
      (err->message[n] == ' ' || err->message[n] == ':')) {
    /* the message already starts with its file ("--set KEY=VALUE: ...") */
    fprintf(stderr, "vsim: %s\n", cli_esc(err->message));
    return;
  }
  vs_error_format(err, buf, sizeof buf);
  if (!err->file[0] && file && *file)
    fprintf(stderr, "vsim: %s: %s\n", cli_esc(file), buf);
  else
    fprintf(stderr, "vsim: %s\n", buf);
}

void cli_json_string(FILE *f, const char *s) {
  char small[256];
  size_t n = vs_json_escape(small, sizeof small, s);
  if (n < sizeof small) {
    fputs(small, f);
    return;
  }
  char *big = malloc(n + 1);
  if (!big) {
    fputs("null", f);
    return;
  }
  vs_json_escape(big, n + 1, s);
  fputs(big, f);
  free(big);
}

void cli_json_number(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const int cli_stop_signals[] = {
  SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
  SIGPOLL,
#endif
#ifdef SIGSTKFLT
  SIGSTKFLT,
#endif
#ifdef SIGPWR
  SIGPWR,
#endif
};
const size_t cli_stop_signal_count = sizeof cli_stop_signals / sizeof cli_stop_signals[0];

/* True when the word needs no quoting in a POSIX shell. */
static int shell_safe(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                "-_./=:,+@%",
                *s))
      return 0;
  return 1;
}

char *cli_join_argv(int argc, char **argv) {
  size_t cap = 1;
  for (int i = 0; i < argc; i++) cap += 4 * strlen(argv[i]) + 3;
  char *out = malloc(cap);
  if (!out) return NULL;
  char *o = out;
  for (int i = 0; i < argc; i++) {
    if (i) *o++ = ' ';
    if (shell_safe(argv[i])) {
      size_t n = strlen(argv[i]);
      memcpy(o, argv[i], n);
      o += n;
      continue;
    }
    *o++ = '\'';
    for (const char *c = argv[i]; *c; c++) {
      if (*c == '\'') {
        memcpy(o, "'\\''", 4);
        o += 4;
      } else {
        *o++ = *c;
      }
    }
    *o++ = '\'';
  }
  *o = '\0';
  return out;
}

/* Read all of standard input (the scene given as '-'). */
char *cli_read_stdin(size_t *len, vs_error *err) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    vs_error_set(err, VS_ERR_NOMEM, "<stdin>", 0, 0, "out of memory");
    return NULL;
  }
  for (;;) {
    if (n + 1 >= cap) {
      if (cap > VS_MAX_SCENE_BYTES) {
        free(buf);
        vs_error_set(err, VS_ERR_LIMIT, "<stdin>", 0, 0, "scene larger than the limit of %u bytes",
                     VS_MAX_SCENE_BYTES);
        return NULL;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        vs_error_set(err, VS_ERR_NOMEM, "<stdin>", 0, 0, "out of memory");
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, stdin);
    n += got;
    if (got == 0) break;
  }
  if (ferror(stdin)) {
    free(buf);
    vs_error_set(err, VS_ERR_IO, "<stdin>", 0, 0, "cannot read the scene");
    return NULL;
  }
  if (n > VS_MAX_SCENE_BYTES) {
    free(buf);
    vs_error_set(err, VS_ERR_LIMIT, "<stdin>", 0, 0, "scene larger than the limit of %u bytes",
                 VS_MAX_SCENE_BYTES);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}
