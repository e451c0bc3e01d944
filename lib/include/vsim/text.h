/* vsim/text.h: two small text helpers the program shares with the library:
 * the JSON string literal (so that every JSON vsim writes escapes alike) and
 * the bounded edit distance behind the "did you mean" suggestions. */
#ifndef VSIM_TEXT_H
#define VSIM_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write `s` as a JSON string literal, quotes included, into dst (cap bytes,
 * always NUL-terminated when cap > 0), like snprintf: the return value is the
 * length of the whole literal, so a return >= cap means it was cut short.
 * '"' and '\\' are escaped, \b \f \n \r \t get their short forms, every
 * other byte below 0x20 and 0x7f (DEL) become \u00XX; bytes from 0x80 up are
 * copied as they are (the text is taken to be UTF-8).  NULL reads as "". */
size_t vs_json_escape(char *dst, size_t cap, const char *s);

/* The optimal-string-alignment distance between a and b (insertions,
 * deletions, substitutions and transpositions of neighbours, each 1), when
 * it is at most `max`; otherwise max + 1, which is also the answer when a
 * string is longer than 64 bytes.  max is at least 0. */
int vs_edit_distance(const char *a, const char *b, int max);

#ifdef __cplusplus
}
#endif
#endif
