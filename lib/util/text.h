/* text.h (private): a growable NUL-terminated text buffer with printf and
 * JSON appends.  The public half (the JSON literal, the edit distance) is in
 * vsim/text.h. */
#ifndef VSIM_PRIVATE_TEXT_H
#define VSIM_PRIVATE_TEXT_H

#include <stddef.h>

#include "vsim/text.h"

enum { VS_SBUF_NOMEM = 1, VS_SBUF_LIMIT = 2 };

/* Zero-initialise ({0}) to start empty.  Once an append fails, `bad` says
 * why and every later append does nothing, so a writer checks once at the
 * end.  p is NULL until the first append; then p[n] == '\0'. */
typedef struct vs_sbuf {
  char *p;
  size_t n, cap;
  size_t limit; /* 0: none; else the text must stay shorter than limit bytes */
  int bad;      /* 0, VS_SBUF_NOMEM or VS_SBUF_LIMIT */
} vs_sbuf;

__attribute__((visibility("hidden"))) void vs_sbuf_add(vs_sbuf *b, const char *s, size_t len);
__attribute__((visibility("hidden"))) void vs_sbuf_puts(vs_sbuf *b, const char *s);
__attribute__((visibility("hidden"), format(printf, 2, 3))) void vs_sbuf_printf(vs_sbuf *b,
                                                                                  const char *fmt,
                                                                                  ...);
/* s as a JSON string literal (vs_json_escape); NULL writes null. */
__attribute__((visibility("hidden"))) void vs_sbuf_json(vs_sbuf *b, const char *s);
/* Release the text and empty the buffer (limit kept). */
__attribute__((visibility("hidden"))) void vs_sbuf_free(vs_sbuf *b);

#endif
