/* SPDX-License-Identifier: MIT */
/* error.c: the vs_error record (see vsim/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "util/text.h"
#include "vsim/error.h"
#include "vsim/vsim.h"

static const char *const status_text[VS_STATUS_COUNT] = {
    [VS_OK] = "success",
    [VS_ERR_USAGE] = "bad usage",
    [VS_ERR_SCENE] = "invalid scene",
    [VS_ERR_LIMIT] = "limit exceeded",
    [VS_ERR_EXISTS] = "output exists",
    [VS_ERR_UNSUPPORTED] = "not available in this build",
    [VS_ERR_NOMEM] = "out of memory",
    [VS_ERR_IO] = "input/output error",
    [VS_ERR_FORMAT] = "not a vsim file",
    [VS_ERR_NUMERIC] = "numerical failure",
    [VS_ERR_INTERRUPTED] = "interrupted",
};

const char *vs_strerror(vs_status code) {
  if ((int)code < 0 || code >= VS_STATUS_COUNT) return "unknown error";
  return status_text[code];
}

const char *vs_version(void) { return VSIM_VERSION; }

const char *vs_yaml_library_version(void) { return yaml_get_version_string(); }

void vs_error_clear(vs_error *err) {
  if (!err) return;
  err->code = VS_OK;
  err->line = 0;
  err->column = 0;
  err->file[0] = '\0';
  err->message[0] = '\0';
}

vs_status vs_error_set(vs_error *err, vs_status code, const char *file, int line,
                       int column, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  err->line = line;
  err->column = column;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

/* The text is for people: a file name or a value from outside cannot put
 * control bytes (a terminal's escape sequences, a newline that forges
 * another line) into it (vs_text_escape). */
char *vs_error_format(const vs_error *err, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  buf[0] = '\0';
  if (!err) return buf;
  char file[4 * sizeof err->file], msg[4 * sizeof err->message];
  vs_text_escape(file, sizeof file, err->file);
  vs_text_escape(msg, sizeof msg, err->message[0] ? err->message : vs_strerror(err->code));
  if (file[0] && err->line > 0)
    snprintf(buf, size, "%s:%d:%d: %s", file, err->line, err->column, msg);
  else if (file[0])
    snprintf(buf, size, "%s: %s", file, msg);
  else
    snprintf(buf, size, "%s", msg);
  return buf;
}
