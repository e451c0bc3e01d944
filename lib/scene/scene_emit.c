/* SPDX-License-Identifier: MIT */
/* scene_emit.c: vs_scene -> YAML that loads back into an equal scene.
 *
 * The keys and their order come from the key table (scene_keys.c, walked
 * by sk_emit_scene in scene_table.c): a key cannot be loaded and not
 * written.  Every key is written, defaults included, so the text documents exactly
 * what ran (it is stored as /parameters/vsim@resolved).  Doubles are written
 * with the fewest of 15..17 significant digits that read back to the same
 * bits (17 always does), so the round trip is exact. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

void sk_put(sbuf *b, const char *fmt, ...) {
  if (b->bad) return;
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (k < 0) {
    b->bad = VS_SBUF_NOMEM;
    return;
  }
  if ((size_t)k < sizeof small) {
    vs_sbuf_add(b, small, (size_t)k);
    return;
  }
  char *big = vs_malloc((size_t)k + 1);
  if (!big) {
    b->bad = VS_SBUF_NOMEM;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)k + 1, fmt, ap);
  va_end(ap);
  vs_sbuf_add(b, big, (size_t)k);
  vs_free(big);
}

void sk_put_num(sbuf *b, double v) {
  char t[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(t, sizeof t, "%.*g", prec, v);
    if (strtod(t, NULL) == v) break;
  }
  if (v == 0 && 1 / v < 0) snprintf(t, sizeof t, "-0.0"); /* keep the sign of -0 */
  /* YAML 1.1 resolvers (PyYAML, for one) read 1e-300 as a string: write 1.0e-300. */
  char *e = strchr(t, 'e');
  if (e && !strchr(t, '.')) {
    char tail[16];
    snprintf(tail, sizeof tail, "%s", e);
    snprintf(e, sizeof t - (size_t)(e - t), ".0%s", tail);
  }
  sk_put(b, "%s", t);
}

void sk_put_vec(sbuf *b, const double *v, size_t n) {
  sk_put(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) sk_put(b, ", ");
    sk_put_num(b, v[i]);
  }
  sk_put(b, "]");
}

/* The code point of the UTF-8 sequence at p (its length in *n), or -1 for
 * a byte that starts no valid sequence. */
static long utf8_next(const unsigned char *p, int *n) {
  int len = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
                                                      : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
  *n = 1;
  if (len == 0) return -1;
  long cp = len == 1 ? p[0] : p[0] & (0x7f >> len);
  for (int i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return -1; /* also stops at the NUL */
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  static const long min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  *n = len;
  return cp;
}

/* Characters YAML will not read back as themselves inside double quotes:
 * the non-printable ones (its reader rejects them) and the line breaks
 * NEL, LS and PS (they fold like a newline). */
static int needs_escape(long cp) {
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return 1;
  return cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

/* A YAML double-quoted string: always a string, whatever it looks like, and
 * read back byte for byte (the resolved scene in a result file must load
 * for --resume). */
void sk_put_str(sbuf *b, const char *s) {
  sk_put(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n;
    long cp = utf8_next(p, &n);
    if (cp == '"' || cp == '\\')
      sk_put(b, "\\%c", (int)cp);
    else if (cp < 0)
      sk_put(b, "\\x%02x", *p); /* not UTF-8: the loader never gives such text */
    else if (needs_escape(cp))
      sk_put(b, cp < 0x100 ? "\\x%02lx" : "\\u%04lx", cp);
    else
      sk_put(b, "%.*s", n, (const char *)p);
    p += n;
  }
  sk_put(b, "\"");
}

vs_status vs_scene_to_yaml(const vs_scene *s, char **out, vs_error *err) {
  if (out) *out = NULL;
  if (!s || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_scene_to_yaml: bad arguments");
  sbuf b = {0};
  sk_put(&b, "# vsim scene, resolved: every default filled in and every --set applied\n");
  sk_emit_scene(&b, s);
  if (b.bad || !b.p) {
    vs_sbuf_free(&b);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  }
  *out = b.p;
  return VS_OK;
}
