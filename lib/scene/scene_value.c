/* SPDX-License-Identifier: MIT */
/* scene_value.c: one YAML value -> one C value, with the message that
 * names what was expected when it does not fit.
 *
 * Messages read "<path>: <what was expected>, got <what was found>".  Paths
 * are dotted and use list indices and the kind key, e.g.
 * `world.colliders.0.plane.friction` or `bodies.1.cloth.resolution.0`, so a
 * path names exactly one node even when bodies have no names.  The position
 * is the offending value (for unknown keys: the key; for a missing key: the
 * mapping that lacks it).  Values that came from `--set` are reported
 * against file "--set" with the override's text (see vs_sn_fail). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

/* ---- paths and messages ------------------------------------------------ */

size_t sk_push(vctx *c, const char *comp) {
  size_t mark = c->plen;
  int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, "%s%s", c->plen ? "." : "", comp);
  if (n > 0) {
    c->plen += (size_t)n;
    if (c->plen >= sizeof c->path) c->plen = sizeof c->path - 1;
  }
  return mark;
}

size_t sk_push_index(vctx *c, size_t i) {
  char b[32];
  snprintf(b, sizeof b, "%zu", i);
  return sk_push(c, b);
}

void sk_pop(vctx *c, size_t mark) {
  c->plen = mark;
  c->path[mark] = '\0';
}

vs_status sk_fail(vctx *c, vs_status code, const sn_node *at, const char *fmt, ...) {
  char msg[800];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vs_sn_fail(&c->src, c->err, code, at ? at->origin : 0, at ? at->line : 0, at ? at->col : 0,
                    "%s%s%s", c->path, c->plen ? ": " : "", msg);
}

vs_status sk_nomem(vctx *c) {
  return vs_error_set(c->err, VS_ERR_NOMEM, c->src.file, 0, 0, "out of memory");
}

vs_status sk_missing(vctx *c, const sn_node *at, const char *key) {
  return sk_fail(c, VS_ERR_SCENE, at, "missing required key '%s'", key);
}

/* What a node is, for "got ..." (scalars as written, shortened). */
const char *sk_got(const sn_node *n, char *buf, size_t size) {
  if (!n) return "nothing";
  if (n->kind == SN_SEQ) return "a sequence";
  if (n->kind == SN_MAP) return "a mapping";
  if (!n->quoted && n->len == 0) return "an empty value";
  char t[72];
  size_t k = 0;
  for (size_t i = 0; i < n->len && k < 60; i++) {
    unsigned char ch = (unsigned char)n->text[i];
    t[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  t[k] = '\0';
  const char *more = n->len > 60 ? "..." : "";
  if (n->quoted)
    snprintf(buf, size, "\"%s%s\"", t, more);
  else
    snprintf(buf, size, "%s%s", t, more);
  return buf;
}

/* A scalar's text without quotes, shortened, for 'key' in messages. */
const char *sk_got_plain(const sn_node *n, char *buf, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n->len && k + 4 < size && i < 60; i++) {
    unsigned char ch = (unsigned char)n->text[i];
    buf[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  buf[k] = '\0';
  return buf;
}

/* "got ..." for a node that should have been a list of some length. */
const char *sk_got_list(const sn_node *n, char *buf, size_t size) {
  if (n && n->kind == SN_SEQ) {
    snprintf(buf, size, "%zu item%s", n->n, n->n == 1 ? "" : "s");
    return buf;
  }
  return sk_got(n, buf, size);
}

vs_loc sk_loc(const sn_node *n) {
  vs_loc l = {0, 0};
  if (n && n->origin == 0) {
    l.line = n->line;
    l.column = n->col;
  }
  return l;
}

int sk_is_word(const sn_node *v, const char *w) {
  return v && v->kind == SN_SCALAR && v->len == strlen(w) && !strcmp(v->text, w);
}

/* The closest of names[] within edit distance 2, or NULL. */
const char *sk_suggest(const char *word, const char *const *names) {
  const char *best = NULL;
  int bd = 3;
  for (size_t i = 0; names[i]; i++) {
    int d = vs_edit_distance(word, names[i], 3);
    if (d < bd) {
      bd = d;
      best = names[i];
    }
  }
  /* A one-letter word is within 1 of every other one-letter key. */
  return bd <= 2 && (size_t)bd < strlen(word) ? best : NULL;
}

void sk_join(const char *const *names, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (size_t i = 0; names[i] && k + 1 < size; i++) {
    int n = snprintf(buf + k, size - k, "%s%s", i ? ", " : "", names[i]);
    if (n < 0) break;
    k += (size_t)n;
  }
}

/* ---- scalars ------------------------------------------------------------- */

static int plain_text(const sn_node *n) {
  return n && n->kind == SN_SCALAR && !n->quoted && n->len > 0 && strlen(n->text) == n->len;
}

/* A finite double written as a YAML number (quoted strings are strings). */
static int parse_double(const sn_node *n, double *out) {
  if (!plain_text(n)) return 0;
  const char *t = n->text;
  /* strtod also reads hex, "nan" and "inf": the finiteness test below
   * rejects the latter, and YAML's .nan/.inf never parse. */
  char *end;
  errno = 0;
  double v = strtod(t, &end);
  if (end == t || *end) return 0;
  if (!isfinite(v)) return 0;
  *out = v;
  return 1;
}

/* Digits only, at most 2^53 (every such integer is a double exactly). */
static int rational_part(const char *p, const char *end, double *out) {
  if (p == end || end - p > 16) return 0;
  uint64_t v = 0;
  for (; p < end; p++) {
    if (*p < '0' || *p > '9') return 0;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  if (v > (UINT64_C(1) << 53)) return 0;
  *out = (double)v;
  return 1;
}

/* A time written as a rational "A/B" (e.g. 1/60): the double nearest A/B,
 * which is (double)A / (double)B since both are exact and IEEE division is
 * correctly rounded. */
static int parse_rational(const sn_node *n, double *out) {
  if (!plain_text(n)) return 0;
  const char *t = n->text, *slash = strchr(t, '/');
  if (!slash) return 0;
  int neg = *t == '-';
  if (*t == '-' || *t == '+') t++;
  double a, b;
  if (!rational_part(t, slash, &a) || !rational_part(slash + 1, slash + strlen(slash), &b) ||
      b == 0)
    return 0;
  *out = neg ? -(a / b) : a / b;
  return 1;
}

int sk_parse_int(const sn_node *n, int64_t *out) {
  if (!plain_text(n)) return 0;
  const char *t = n->text;
  const char *p = t;
  if (*p == '+' || *p == '-') p++;
  if (!*p) return 0;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return 0;
  errno = 0;
  char *end;
  long long v = strtoll(t, &end, 10);
  if (errno == ERANGE) return t[0] == '-' ? 3 : 2;
  *out = (int64_t)v;
  return 1;
}

const char *sk_describe_num(nrange r, char *buf, size_t size) {
  if (r.lo && r.hi)
    snprintf(buf, size, "a finite number in %c%g, %g%c", r.lo == SK_OPEN ? '(' : '[', r.lov, r.hiv,
             r.hi == SK_OPEN ? ')' : ']');
  else if (r.lo)
    snprintf(buf, size, "a finite number %s %g", r.lo == SK_OPEN ? ">" : ">=", r.lov);
  else if (r.hi)
    snprintf(buf, size, "a finite number %s %g", r.hi == SK_OPEN ? "<" : "<=", r.hiv);
  else
    snprintf(buf, size, "a finite number");
  return buf;
}

static int in_range(double v, nrange r) {
  if (r.lo == SK_OPEN && !(v > r.lov)) return 0;
  if (r.lo == SK_CLOSED && !(v >= r.lov)) return 0;
  if (r.hi == SK_OPEN && !(v < r.hiv)) return 0;
  if (r.hi == SK_CLOSED && !(v <= r.hiv)) return 0;
  return 1;
}

vs_status sk_num(vctx *c, const sn_node *v, nrange r, int time, double *out) {
  double x;
  int ok = parse_double(v, &x) || (time && parse_rational(v, &x));
  if (!ok || !in_range(x, r)) {
    char d[80], g[96];
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s, got %s", sk_describe_num(r, d, sizeof d),
                   sk_got(v, g, sizeof g));
  }
  *out = x;
  return VS_OK;
}

vs_status sk_int(vctx *c, const sn_node *v, irange r, const char *what, int64_t *out) {
  int64_t x = 0;
  int k = sk_parse_int(v, &x);
  char d[96], g[96];
  if (what)
    snprintf(d, sizeof d, "%s", what);
  else if (r.has_hi)
    snprintf(d, sizeof d, "an integer in [%lld, %lld]", (long long)r.lo, (long long)r.hi);
  else
    snprintf(d, sizeof d, "an integer >= %lld", (long long)r.lo);
  if (k == 2 || (k == 1 && r.limit && x > r.limit && (!r.has_hi || r.hi > r.limit)))
    return sk_fail(c, VS_ERR_LIMIT, v, "expected an integer <= %lld (the documented limit), got %s",
                   (long long)r.limit, sk_got(v, g, sizeof g));
  if (k != 1 || x < r.lo || (r.has_hi && x > r.hi))
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s, got %s", d, sk_got(v, g, sizeof g));
  *out = x;
  return VS_OK;
}

vs_status sk_bool(vctx *c, const sn_node *v, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                   "NO",    "off",   "Off",   "OFF"};
  if (plain_text(v)) {
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
      if (!strcmp(v->text, yes[i])) return *out = 1, VS_OK;
      if (!strcmp(v->text, no[i])) return *out = 0, VS_OK;
    }
  }
  char g[96];
  return sk_fail(c, VS_ERR_SCENE, v, "expected true or false, got %s", sk_got(v, g, sizeof g));
}

/* A list of n numbers, each in r (time0: the first is a time). */
vs_status sk_vec(vctx *c, const sn_node *v, size_t n, nrange r, int time0, double *out) {
  if (!v || v->kind != SN_SEQ || v->n != n) {
    char g[96];
    return sk_fail(c, VS_ERR_SCENE, v, "expected a list of %zu numbers, got %s", n,
                   sk_got_list(v, g, sizeof g));
  }
  for (size_t i = 0; i < n; i++) {
    size_t mk = sk_push_index(c, i);
    TRY(sk_num(c, v->kids[i], r, time0 && i == 0, &out[i]));
    sk_pop(c, mk);
  }
  return VS_OK;
}

vs_status sk_enum(vctx *c, const sn_node *v, const char *const *names, int *out) {
  if (v && v->kind == SN_SCALAR) {
    for (int i = 0; names[i]; i++)
      if (v->len == strlen(names[i]) && !strcmp(v->text, names[i])) return *out = i, VS_OK;
  }
  char list[256], g[96];
  sk_join(names, list, sizeof list);
  const char *s = v && v->kind == SN_SCALAR ? sk_suggest(v->text, names) : NULL;
  if (s)
    return sk_fail(c, VS_ERR_SCENE, v, "expected one of %s, got %s (did you mean '%s'?)", list,
                   sk_got(v, g, sizeof g), s);
  return sk_fail(c, VS_ERR_SCENE, v, "expected one of %s, got %s", list, sk_got(v, g, sizeof g));
}

/* A string scalar of 1..cap-1 bytes without NULs.  Plain numbers are text
 * too (`name: 2024` is the name "2024"). */
vs_status sk_str(vctx *c, const sn_node *v, const char *what, char *buf, size_t cap) {
  char g[96];
  if (!v || v->kind != SN_SCALAR || vs_sn_is_null(v) || v->len == 0 || strlen(v->text) != v->len)
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s, got %s", what, sk_got(v, g, sizeof g));
  if (v->len >= cap)
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s of at most %zu characters, got %zu", what,
                   cap - 1, v->len);
  memcpy(buf, v->text, v->len + 1);
  return VS_OK;
}

/* ---- mappings ------------------------------------------------------------ */

const sn_node *sk_get(const sn_node *m, const char *key) {
  if (!m || m->kind != SN_MAP) return NULL;
  for (size_t i = 0; i + 1 < m->n; i += 2)
    if (!strcmp(m->kids[i]->text, key)) return m->kids[i + 1];
  return NULL;
}

/* A section value: absent or empty (`time:`) means all defaults. */
vs_status sk_as_map(vctx *c, const sn_node *v, const sn_node **m) {
  *m = NULL;
  if (!v || vs_sn_is_null(v)) return VS_OK;
  if (v->kind != SN_MAP) {
    char g[96];
    return sk_fail(c, VS_ERR_SCENE, v, "expected a mapping, got %s", sk_got(v, g, sizeof g));
  }
  *m = v;
  return VS_OK;
}

/* Every key of m must be one of known[], once. */
vs_status sk_check_keys(vctx *c, const sn_node *m, const char *const *known) {
  if (!m) return VS_OK;
  for (size_t i = 0; i + 1 < m->n; i += 2) {
    const sn_node *k = m->kids[i];
    int ok = 0;
    for (size_t j = 0; known[j] && !ok; j++)
      ok = strlen(k->text) == k->len && !strcmp(k->text, known[j]);
    if (!ok) {
      char g[96], list[512];
      const char *s = sk_suggest(k->text, known);
      if (s)
        return sk_fail(c, VS_ERR_SCENE, k, "unknown key '%s', did you mean '%s'?",
                       sk_got_plain(k, g, sizeof g), s);
      sk_join(known, list, sizeof list);
      return sk_fail(c, VS_ERR_SCENE, k, "unknown key '%s' (expected one of: %s)",
                     sk_got_plain(k, g, sizeof g), list);
    }
    /* Only known keys reach here, so this is O(known^2) at worst. */
    for (size_t j = 0; j < i; j += 2) {
      if (!strcmp(m->kids[j]->text, k->text)) {
        char g[96];
        return sk_fail(c, VS_ERR_SCENE, k, "duplicate key '%s' (first at line %d)",
                       sk_got_plain(k, g, sizeof g), m->kids[j]->line);
      }
    }
  }
  return VS_OK;
}

vs_status sk_kind_item(vctx *c, const sn_node *item, const char *what, const char *const *kinds,
                       int *kind, const sn_node **inner, const sn_node **at) {
  char list[256], g[96];
  sk_join(kinds, list, sizeof list);
  if (!item || item->kind != SN_MAP)
    return sk_fail(c, VS_ERR_SCENE, item,
                   "expected a mapping with one key naming the %s kind (%s), got %s", what, list,
                   sk_got(item, g, sizeof g));
  if (item->n != 2)
    return sk_fail(c, VS_ERR_SCENE, item,
                   "expected exactly one key naming the %s kind (%s), got %zu keys", what, list,
                   item->n / 2);
  const sn_node *k = item->kids[0];
  *kind = -1;
  for (int i = 0; kinds[i]; i++)
    if (!strcmp(k->text, kinds[i])) *kind = i;
  if (*kind < 0) {
    const char *s = sk_suggest(k->text, kinds);
    if (s)
      return sk_fail(c, VS_ERR_SCENE, k, "unknown %s kind '%s', did you mean '%s'?", what,
                     sk_got_plain(k, g, sizeof g), s);
    return sk_fail(c, VS_ERR_SCENE, k, "unknown %s kind '%s' (expected one of: %s)", what,
                   sk_got_plain(k, g, sizeof g), list);
  }
  sk_push(c, kinds[*kind]);
  TRY(sk_as_map(c, item->kids[1], inner));
  *at = *inner ? *inner : k;
  return VS_OK;
}
