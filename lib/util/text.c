/* SPDX-License-Identifier: MIT */
/* text.c: the growable text buffer, the JSON string literal and the edit
 * distance (lib/util/text.h). */
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

/* Room for `extra` more bytes and the NUL; 0 on success. */
static int reserve(vs_sbuf *b, size_t extra) {
  if (b->bad) return -1;
  if (extra > (size_t)-1 / 2 - b->n || (b->limit && b->n + extra >= b->limit)) {
    b->bad = b->limit && b->n + extra >= b->limit ? VS_SBUF_LIMIT : VS_SBUF_NOMEM;
    return -1;
  }
  if (b->p && b->n + extra < b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap <= b->n + extra) cap *= 2;
  char *p = vs_realloc(b->p, cap);
  if (!p) {
    b->bad = VS_SBUF_NOMEM;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

void vs_sbuf_add(vs_sbuf *b, const char *s, size_t len) {
  if (reserve(b, len)) return;
  memcpy(b->p + b->n, s, len);
  b->n += len;
  b->p[b->n] = '\0';
}

void vs_sbuf_puts(vs_sbuf *b, const char *s) {
  vs_sbuf_add(b, s, strlen(s));
}

void vs_sbuf_printf(vs_sbuf *b, const char *fmt, ...) {
  if (b->bad) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
  va_end(ap);
  if (k < 0) {
    b->bad = VS_SBUF_NOMEM;
    return;
  }
  if (b->p && b->n + (size_t)k < b->cap) {
    b->n += (size_t)k;
    return;
  }
  if (reserve(b, (size_t)k)) return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

void vs_sbuf_free(vs_sbuf *b) {
  vs_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
  b->bad = 0;
}

/* The escape of one byte ("" when it stands for itself): the one table of
 * JSON escapes in vsim. */
static const char *json_esc(unsigned char c, char tmp[8]) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      if (c < 0x20 || c == 0x7f) {
        snprintf(tmp, 8, "\\u%04x", c);
        return tmp;
      }
      return "";
  }
}

size_t vs_json_escape(char *dst, size_t cap, const char *s) {
  size_t n = 0;
#define PUT(ch)                      \
  do {                               \
    if (n + 1 < cap) dst[n] = (ch);  \
    n++;                             \
  } while (0)
  PUT('"');
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
    char tmp[8];
    const char *e = json_esc(*c, tmp);
    if (!*e)
      PUT((char)*c);
    else
      for (; *e; e++) PUT(*e);
  }
  PUT('"');
#undef PUT
  if (cap) dst[n < cap ? n : cap - 1] = '\0';
  return n;
}

/* Length of the well-formed UTF-8 sequence at p that encodes a printable
 * character (U+00A0 and up, no surrogate, not overlong), else 0. */
static size_t utf8_printable(const unsigned char *p) {
  unsigned c = p[0];
  size_t n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[n] || cp < 0xA0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

size_t vs_text_escape(char *dst, size_t cap, const char *s) {
  size_t n = 0;
#define PUT(ch)                      \
  do {                               \
    if (n + 1 < cap) dst[n] = (ch);  \
    n++;                             \
  } while (0)
  const unsigned char *c = (const unsigned char *)(s ? s : "");
  while (*c) {
    if (*c >= 0x20 && *c < 0x7f) {
      PUT((char)*c++);
      continue;
    }
    size_t k = *c >= 0x80 ? utf8_printable(c) : 0;
    if (k) {
      for (size_t i = 0; i < k; i++) PUT((char)c[i]);
      c += k;
      continue;
    }
    static const char hex[] = "0123456789abcdef";
    PUT('\\');
    PUT('x');
    PUT(hex[*c >> 4]);
    PUT(hex[*c & 15]);
    c++;
  }
#undef PUT
  if (cap) dst[n < cap ? n : cap - 1] = '\0';
  return n;
}

void vs_sbuf_json(vs_sbuf *b, const char *s) {
  if (!s) {
    vs_sbuf_add(b, "null", 4);
    return;
  }
  vs_sbuf_add(b, "\"", 1);
  const char *run = s;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    char tmp[8];
    const char *e = json_esc(*c, tmp);
    if (!*e) continue;
    vs_sbuf_add(b, run, (size_t)((const char *)c - run));
    vs_sbuf_puts(b, e);
    run = (const char *)c + 1;
  }
  vs_sbuf_puts(b, run);
  vs_sbuf_add(b, "\"", 1);
}

int vs_edit_distance(const char *a, const char *b, int max) {
  if (max < 0) max = 0;
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return max + 1;
  if ((la > lb ? la - lb : lb - la) > (size_t)max) return max + 1;
  int d[65][65];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  }
  return d[la][lb] > max ? max + 1 : d[la][lb];
}
