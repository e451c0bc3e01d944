/* SPDX-License-Identifier: MIT */
/* args.c: the option parser shared by every subcommand (see args.h). */
#include "args.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

void cli_init(cli_parser *p, const char *cmd, int argc, char **argv, const cli_opt *opts,
              size_t n_opts) {
  memset(p, 0, sizeof *p);
  p->argc = argc;
  p->argv = argv;
  p->next = 1;
  p->opts = opts;
  p->n_opts = n_opts;
  p->cmd = cmd;
}

/* The message is one line whatever it quotes: a path or a value with a
 * control byte in it is shown escaped (cli_esc). */
int cli_usage_error(const char *cmd, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "vsim %s: %s\nTry 'vsim %s --help' for the options.\n", cmd, cli_esc(buf), cmd);
  return CLI_EXIT_USAGE;
}

/* The long option closest to `name` (a typo or an abbreviation), or NULL. */
static const char *suggest(const cli_parser *p, const char *name, size_t len) {
  char buf[65];
  if (len >= sizeof buf) return NULL;
  memcpy(buf, name, len);
  buf[len] = '\0';
  const char *best = NULL;
  int best_d = 3;
  for (size_t i = 0; i < p->n_opts; i++) {
    const char *cand = p->opts[i].name;
    if (len >= 2 && strncmp(cand, buf, len) == 0) return cand; /* a prefix */
    int d = vs_edit_distance(buf, cand, 2);
    if (d < best_d) {
      best_d = d;
      best = cand;
    }
  }
  int limit = len <= 4 ? 1 : 2;
  return best_d <= limit ? best : NULL;
}

static const cli_opt *find_long(const cli_parser *p, const char *name, size_t len) {
  for (size_t i = 0; i < p->n_opts; i++)
    if (strlen(p->opts[i].name) == len && strncmp(p->opts[i].name, name, len) == 0)
      return &p->opts[i];
  return NULL;
}

static const cli_opt *find_short(const cli_parser *p, char c) {
  for (size_t i = 0; i < p->n_opts; i++)
    if (p->opts[i].short_name && p->opts[i].short_name == c) return &p->opts[i];
  return NULL;
}

/* Whether arg, taken from the next argument as an option's value, is itself
 * an option of this command (`-o --force`, `--output -f`): then the value
 * was most likely forgotten, and taking "--force" as a file name would
 * write a file of that name and drop the option.  A value that really
 * starts with '-' is given attached: --output=--force, -o--force. */
static int looks_like_option(const cli_parser *p, const char *arg) {
  if (arg[0] != '-' || !arg[1]) return 0;
  if (arg[1] == '-') {
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; len && i < p->n_opts; i++)
      if (strlen(p->opts[i].name) == len && strncmp(p->opts[i].name, name, len) == 0) return 1;
    return 0;
  }
  for (size_t i = 0; !arg[2] && i < p->n_opts; i++)
    if (p->opts[i].short_name == arg[1]) return 1;
  return 0;
}

/* The value of option o from the next argument, or CLI_BAD (reported). */
static int next_value(cli_parser *p, const cli_opt *o, const char *shown, const char **value) {
  if (p->next >= p->argc) {
    cli_usage_error(p->cmd, "option '%s' needs a value (%s)", shown, o->arg_name);
    return CLI_BAD;
  }
  const char *v = p->argv[p->next];
  if (looks_like_option(p, v)) {
    cli_usage_error(p->cmd,
                    "option '%s' needs a value (%s), but the next argument is the option '%s'; "
                    "a value that starts with '-' goes after '=' (--%s=%s)",
                    shown, o->arg_name, v, o->name, v);
    return CLI_BAD;
  }
  p->next++;
  *value = v;
  return o->id;
}

/* One short option c; `rest` is what follows it inside the same argument. */
static int take_short(cli_parser *p, char c, const char *rest, const char **value) {
  const cli_opt *o = find_short(p, c);
  if (!o) {
    cli_usage_error(p->cmd, "unknown option '-%c'", c);
    return CLI_BAD;
  }
  if (!o->arg_name) {
    p->bundle = *rest ? rest : NULL;
    return o->id;
  }
  p->bundle = NULL;
  if (*rest) {
    *value = rest;
    return o->id;
  }
  char shown[4] = {'-', c, '\0'};
  return next_value(p, o, shown, value);
}

int cli_next(cli_parser *p, const char **value) {
  *value = NULL;
  if (p->bundle) return take_short(p, p->bundle[0], p->bundle + 1, value);
  if (p->next >= p->argc) return CLI_DONE;
  const char *arg = p->argv[p->next++];
  if (p->operands_only || arg[0] != '-' || arg[1] == '\0') {
    *value = arg;
    return CLI_OPERAND;
  }
  if (strcmp(arg, "--") == 0) {
    p->operands_only = 1;
    return cli_next(p, value);
  }
  if (arg[1] != '-') return take_short(p, arg[1], arg + 2, value);

  const char *name = arg + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  const cli_opt *o = find_long(p, name, len);
  if (!o) {
    const char *s = suggest(p, name, len);
    if (s)
      cli_usage_error(p->cmd, "unknown option '--%.*s' (did you mean '--%s'?)", (int)len, name, s);
    else
      cli_usage_error(p->cmd, "unknown option '--%.*s'", (int)len, name);
    return CLI_BAD;
  }
  if (!o->arg_name) {
    if (eq) {
      cli_usage_error(p->cmd, "option '--%s' takes no value", o->name);
      return CLI_BAD;
    }
    return o->id;
  }
  if (eq) {
    *value = eq + 1;
    return o->id;
  }
  char shown[80];
  snprintf(shown, sizeof shown, "--%s", o->name);
  return next_value(p, o, shown, value);
}

void cli_print_options(FILE *f, const cli_opt *opts, size_t n_opts) {
  char left[128];
  size_t width = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n_opts; i++) {
      const cli_opt *o = &opts[i];
      if (o->short_name)
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->arg_name ? " " : "",
                 o->arg_name ? o->arg_name : "");
      else
        snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg_name ? " " : "",
                 o->arg_name ? o->arg_name : "");
      if (pass == 0) {
        if (strlen(left) > width) width = strlen(left);
      } else {
        fprintf(f, "  %-*s  %s\n", (int)width, left, o->help);
      }
    }
  }
}

int cli_parse_int64(const char *cmd, const char *opt, const char *s, int64_t lo, int64_t hi,
                    int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || errno || *end || end == s || v < lo || v > hi) {
    fprintf(stderr, "vsim %s: %s: expected an integer in [%" PRId64 ", %" PRId64 "], got '%s'\n",
            cmd, opt, lo, hi, cli_esc(s));
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || errno || *end || end == s || !isfinite(v) || v < lo) {
    fprintf(stderr, "vsim %s: %s: expected a finite number >= %g, got '%s'\n", cmd, opt, lo,
            cli_esc(s));
    return -1;
  }
  *out = v;
  return 0;
}

int cli_parse_memory(const char *text, uint64_t *out) {
  if (!text || !*text || !out) return -1;
  char *end;
  double v = strtod(text, &end);
  if (end == text || !(v > 0)) return -1;
  double mul = 1;
  switch (*end) {
    case 'k': case 'K': mul = 1024.0, end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024, end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024, end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024, end++; break;
    default: break;
  }
  if (*end == 'b' || *end == 'B') end++;
  if (*end) return -1;
  v *= mul;
  if (!(v >= 1) || v > 9.2e18) return -1;
  *out = (uint64_t)v;
  return 0;
}
