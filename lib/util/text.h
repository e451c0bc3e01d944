/* SPDX-License-Identifier: MIT */
/* text.h (private): a growable NUL-terminated text buffer with printf and
 * JSON appends, the JSON string literal (so that every JSON vsim writes
 * escapes alike) and the bounded edit distance behind the "did you mean"
 * suggestions.  Not installed and not exported by libvsim.so; the program
 * (cmd/), which links the static library, shares the last two through
 * cmd/text.h, so this header includes nothing of lib/ but the C library. */
#ifndef VSIM_PRIVATE_TEXT_H
#define VSIM_PRIVATE_TEXT_H

#include <stddef.h>

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
/* Write `s` as a JSON string literal, quotes included, into dst (cap bytes,
 * always NUL-terminated when cap > 0), like snprintf: the return value is the
 * length of the whole literal, so a return >= cap means it was cut short.
 * '"' and '\\' are escaped, \b \f \n \r \t get their short forms, every
 * other byte below 0x20 and 0x7f (DEL) become \u00XX; bytes from 0x80 up are
 * copied as they are (the text is taken to be UTF-8).  NULL reads as "". */
__attribute__((visibility("hidden"))) size_t vs_json_escape(char *dst, size_t cap, const char *s);

/* s as it may be shown on a terminal, into dst (cap bytes, always
 * NUL-terminated when cap > 0), like snprintf: the return value is the
 * length of the whole text, so a return >= cap means it was cut short.
 * Printable ASCII and well-formed UTF-8 above U+009F are copied; every
 * other byte (controls such as ESC and newline, DEL, the C1 controls
 * U+0080-U+009F, bytes of malformed UTF-8) becomes \xNN, so that a file
 * name can neither drive the terminal nor forge a line of a message.  NULL
 * reads as "".  Every path and value from outside that a message shows
 * goes through it (vs_error_format; cli_esc in the program). */
__attribute__((visibility("hidden"))) size_t vs_text_escape(char *dst, size_t cap, const char *s);

/* The optimal-string-alignment distance between a and b (insertions,
 * deletions, substitutions and transpositions of neighbours, each 1), when
 * it is at most `max`; otherwise max + 1, which is also the answer when a
 * string is longer than 64 bytes.  max is at least 0. */
__attribute__((visibility("hidden"))) int vs_edit_distance(const char *a, const char *b, int max);

/* s as a JSON string literal (vs_json_escape); NULL writes null. */
__attribute__((visibility("hidden"))) void vs_sbuf_json(vs_sbuf *b, const char *s);
/* Release the text and empty the buffer (limit kept). */
__attribute__((visibility("hidden"))) void vs_sbuf_free(vs_sbuf *b);

#endif
