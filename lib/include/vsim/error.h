/* SPDX-License-Identifier: MIT */
/* vsim/error.h: status codes and the error record every fallible call fills.
 *
 * The library never prints and never exits: a function that can fail returns a
 * vs_status and, on failure, fills the caller's vs_error with the code, the
 * file (scene path, result path, or a pseudo-name such as "--set"), the 1-based
 * line and column when the error points into a scene, and a message.  The CLI
 * turns the record into "file:line:col: message" and picks the exit code. */
#ifndef VSIM_ERROR_H
#define VSIM_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vs_status {
  VS_OK = 0,
  VS_ERR_USAGE,       /* bad call or option (exit 2) */
  VS_ERR_SCENE,       /* invalid scene: syntax, key, type, range, reference (exit 2) */
  VS_ERR_LIMIT,       /* a documented count or size limit exceeded (exit 2) */
  VS_ERR_EXISTS,      /* output exists and overwrite not allowed (exit 2) */
  VS_ERR_UNSUPPORTED, /* feature not available in this build (exit 2) */
  VS_ERR_NOMEM,       /* allocation failed (exit 1) */
  VS_ERR_IO,          /* reading or writing a file failed (exit 1, or 2 when reading input) */
  VS_ERR_FORMAT,      /* a file is not what it should be, e.g. not a vsim result (exit 2) */
  VS_ERR_NUMERIC,     /* non-finite or runaway state (exit 1) */
  VS_ERR_INTERRUPTED, /* stopped by a signal (exit 1) */
  VS_STATUS_COUNT
} vs_status;

/* One error.  line/column are 1-based; 0 means "no position". */
typedef struct vs_error {
  vs_status code;
  int line;
  int column;
  char file[512];
  char message[1024];
} vs_error;

/* Short fixed description of a status ("invalid scene", ...). */
const char *vs_strerror(vs_status code);

/* Reset to VS_OK with empty strings. NULL is accepted. */
void vs_error_clear(vs_error *err);

/* Fill err (NULL accepted) and return code.  file may be NULL. */
vs_status vs_error_set(vs_error *err, vs_status code, const char *file, int line,
                       int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* "file:line:col: message" (parts omitted when absent) into buf; returns buf.
 * Bytes that are not printable (controls, DEL, malformed UTF-8) in the file
 * and the message are shown as \xNN, so that a path cannot drive a terminal. */
char *vs_error_format(const vs_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
