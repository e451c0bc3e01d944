/* scene.c: the YAML tree -> vs_scene, with every key, type and range of
 * SPEC.md §2 checked, and the public load/free entry points.
 *
 * Messages read "<path>: <what was expected>, got <what was found>".  Paths
 * are dotted and use list indices and the kind key, e.g.
 * `world.colliders.0.plane.friction` or `bodies.1.cloth.resolution.0`, so a
 * path names exactly one node even when bodies have no names.  The position
 * is the offending value (for unknown keys: the key; for a missing key: the
 * mapping that lacks it).  Values that came from `--set` are reported
 * against file "--set" with the override's text (see vs_sn_fail). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

#define TRY(x)                            \
  do {                                    \
    vs_status try_st_ = (x);              \
    if (try_st_ != VS_OK) return try_st_; \
  } while (0)

typedef struct vctx {
  vs_sn_src src;
  vs_error *err;
  const char *file_arg; /* the caller's file name, NULL for none */
  char path[512];
  size_t plen;
} vctx;

/* ---- paths and messages ------------------------------------------------ */

static size_t push(vctx *c, const char *comp) {
  size_t mark = c->plen;
  int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, "%s%s", c->plen ? "." : "", comp);
  if (n > 0) {
    c->plen += (size_t)n;
    if (c->plen >= sizeof c->path) c->plen = sizeof c->path - 1;
  }
  return mark;
}

static size_t push_index(vctx *c, size_t i) {
  char b[32];
  snprintf(b, sizeof b, "%zu", i);
  return push(c, b);
}

static void pop(vctx *c, size_t mark) {
  c->plen = mark;
  c->path[mark] = '\0';
}

static vs_status fail(vctx *c, vs_status code, const sn_node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static vs_status fail(vctx *c, vs_status code, const sn_node *at, const char *fmt, ...) {
  char msg[800];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vs_sn_fail(&c->src, c->err, code, at ? at->origin : 0, at ? at->line : 0, at ? at->col : 0,
                    "%s%s%s", c->path, c->plen ? ": " : "", msg);
}

static vs_status nomem(vctx *c) {
  return vs_error_set(c->err, VS_ERR_NOMEM, c->src.file, 0, 0, "out of memory");
}

/* What a node is, for "got ..." (scalars as written, shortened). */
static const char *got(const sn_node *n, char *buf, size_t size) {
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
static const char *got_plain(const sn_node *n, char *buf, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n->len && k + 4 < size && i < 60; i++) {
    unsigned char ch = (unsigned char)n->text[i];
    buf[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  buf[k] = '\0';
  return buf;
}

/* "got ..." for a node that should have been a list of some length. */
static const char *got_list(const sn_node *n, char *buf, size_t size) {
  if (n && n->kind == SN_SEQ) {
    snprintf(buf, size, "%zu item%s", n->n, n->n == 1 ? "" : "s");
    return buf;
  }
  return got(n, buf, size);
}

static vs_loc loc_of(const sn_node *n) {
  vs_loc l = {0, 0};
  if (n && n->origin == 0) {
    l.line = n->line;
    l.column = n->col;
  }
  return l;
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

/* 1: ok; 0: not an integer; 2: too large; 3: too small (int64 overflow). */
static int parse_int(const sn_node *n, int64_t *out) {
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

/* Number ranges: lo/hi are NONE, OPEN (strict) or CLOSED. */
enum { NONE = 0, OPEN = 1, CLOSED = 2 };
typedef struct nrange {
  int lo;
  double lov;
  int hi;
  double hiv;
} nrange;

static const nrange R_ANY = {NONE, 0, NONE, 0};
static const nrange R_POS = {OPEN, 0, NONE, 0};
static const nrange R_NONNEG = {CLOSED, 0, NONE, 0};
static const nrange R_STIFF = {OPEN, 0, CLOSED, 1};
static const nrange R_UNIT = {CLOSED, 0, CLOSED, 1};
static const nrange R_OMEGA = {OPEN, 0, OPEN, 2};
static const nrange R_DEG = {CLOSED, 0, CLOSED, 180};

static const char *describe_num(nrange r, char *buf, size_t size) {
  if (r.lo && r.hi)
    snprintf(buf, size, "a finite number in %c%g, %g%c", r.lo == OPEN ? '(' : '[', r.lov, r.hiv,
             r.hi == OPEN ? ')' : ']');
  else if (r.lo)
    snprintf(buf, size, "a finite number %s %g", r.lo == OPEN ? ">" : ">=", r.lov);
  else if (r.hi)
    snprintf(buf, size, "a finite number %s %g", r.hi == OPEN ? "<" : "<=", r.hiv);
  else
    snprintf(buf, size, "a finite number");
  return buf;
}

static int in_range(double v, nrange r) {
  if (r.lo == OPEN && !(v > r.lov)) return 0;
  if (r.lo == CLOSED && !(v >= r.lov)) return 0;
  if (r.hi == OPEN && !(v < r.hiv)) return 0;
  if (r.hi == CLOSED && !(v <= r.hiv)) return 0;
  return 1;
}

static vs_status num_val(vctx *c, const sn_node *v, nrange r, double *out) {
  double x;
  if (!parse_double(v, &x) || !in_range(x, r)) {
    char d[80], g[96];
    return fail(c, VS_ERR_SCENE, v, "expected %s, got %s", describe_num(r, d, sizeof d),
                got(v, g, sizeof g));
  }
  *out = x;
  return VS_OK;
}

/* Integer ranges: values below lo or above hi are invalid input; values
 * above limit (a documented VS_MAX_*) are VS_ERR_LIMIT. */
typedef struct irange {
  int64_t lo;
  int has_hi;
  int64_t hi;
  int64_t limit; /* 0 = none */
} irange;

static vs_status int_val(vctx *c, const sn_node *v, irange r, int64_t *out) {
  int64_t x = 0;
  int k = parse_int(v, &x);
  char d[96], g[96];
  if (r.has_hi)
    snprintf(d, sizeof d, "an integer in [%lld, %lld]", (long long)r.lo, (long long)r.hi);
  else
    snprintf(d, sizeof d, "an integer >= %lld", (long long)r.lo);
  if (k == 2 || (k == 1 && r.limit && x > r.limit && (!r.has_hi || r.hi > r.limit)))
    return fail(c, VS_ERR_LIMIT, v, "expected an integer <= %lld (the documented limit), got %s",
                (long long)r.limit, got(v, g, sizeof g));
  if (k != 1 || x < r.lo || (r.has_hi && x > r.hi))
    return fail(c, VS_ERR_SCENE, v, "expected %s, got %s", d, got(v, g, sizeof g));
  *out = x;
  return VS_OK;
}

static int is_word(const sn_node *v, const char *w) {
  return v && v->kind == SN_SCALAR && v->len == strlen(w) && !strcmp(v->text, w);
}

static int parse_bool(const sn_node *v, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                   "NO",    "off",   "Off",   "OFF"};
  if (!plain_text(v)) return 0;
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
    if (!strcmp(v->text, yes[i])) return *out = 1, 1;
    if (!strcmp(v->text, no[i])) return *out = 0, 1;
  }
  return 0;
}

/* The closest of names[] within edit distance 2, or NULL. */
static const char *suggest(const char *word, const char *const *names) {
  const char *best = NULL;
  int bd = 3;
  for (size_t i = 0; names[i]; i++) {
    int d = vs_sn_edit_distance(word, names[i]);
    if (d < bd) {
      bd = d;
      best = names[i];
    }
  }
  /* A one-letter word is within 1 of every other one-letter key. */
  return bd <= 2 && (size_t)bd < strlen(word) ? best : NULL;
}

static void join(const char *const *names, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (size_t i = 0; names[i] && k + 1 < size; i++) {
    int n = snprintf(buf + k, size - k, "%s%s", i ? ", " : "", names[i]);
    if (n < 0) break;
    k += (size_t)n;
  }
}

static vs_status enum_val(vctx *c, const sn_node *v, const char *const *names, int *out) {
  if (v && v->kind == SN_SCALAR) {
    for (int i = 0; names[i]; i++)
      if (v->len == strlen(names[i]) && !strcmp(v->text, names[i])) return *out = i, VS_OK;
  }
  char list[256], g[96];
  join(names, list, sizeof list);
  const char *s = v && v->kind == SN_SCALAR ? suggest(v->text, names) : NULL;
  if (s)
    return fail(c, VS_ERR_SCENE, v, "expected one of %s, got %s (did you mean '%s'?)", list,
                got(v, g, sizeof g), s);
  return fail(c, VS_ERR_SCENE, v, "expected one of %s, got %s", list, got(v, g, sizeof g));
}

/* ---- mappings ------------------------------------------------------------ */

static const sn_node *get(const sn_node *m, const char *key) {
  if (!m || m->kind != SN_MAP) return NULL;
  for (size_t i = 0; i + 1 < m->n; i += 2)
    if (!strcmp(m->kids[i]->text, key)) return m->kids[i + 1];
  return NULL;
}

/* A section value: absent or empty (`time:`) means all defaults. */
static vs_status as_map(vctx *c, const sn_node *v, const sn_node **m) {
  *m = NULL;
  if (!v || vs_sn_is_null(v)) return VS_OK;
  if (v->kind != SN_MAP) {
    char g[96];
    return fail(c, VS_ERR_SCENE, v, "expected a mapping, got %s", got(v, g, sizeof g));
  }
  *m = v;
  return VS_OK;
}

/* Every key of m must be one of known[], once. */
static vs_status check_keys(vctx *c, const sn_node *m, const char *const *known) {
  if (!m) return VS_OK;
  for (size_t i = 0; i + 1 < m->n; i += 2) {
    const sn_node *k = m->kids[i];
    int ok = 0;
    for (size_t j = 0; known[j] && !ok; j++)
      ok = strlen(k->text) == k->len && !strcmp(k->text, known[j]);
    if (!ok) {
      char g[96], list[512];
      const char *s = suggest(k->text, known);
      if (s)
        return fail(c, VS_ERR_SCENE, k, "unknown key '%s', did you mean '%s'?",
                    got_plain(k, g, sizeof g), s);
      join(known, list, sizeof list);
      return fail(c, VS_ERR_SCENE, k, "unknown key '%s' (expected one of: %s)",
                  got_plain(k, g, sizeof g), list);
    }
    /* Only known keys reach here, so this is O(known^2) at worst. */
    for (size_t j = 0; j < i; j += 2) {
      if (!strcmp(m->kids[j]->text, k->text)) {
        char g[96];
        return fail(c, VS_ERR_SCENE, k, "duplicate key '%s' (first at line %d)",
                    got_plain(k, g, sizeof g), m->kids[j]->line);
      }
    }
  }
  return VS_OK;
}

static vs_status missing(vctx *c, const sn_node *at, const char *key) {
  return fail(c, VS_ERR_SCENE, at, "missing required key '%s'", key);
}

static vs_status num_key(vctx *c, const sn_node *m, const char *key, nrange r, double *out) {
  const sn_node *v = get(m, key);
  if (!v) return VS_OK;
  size_t mk = push(c, key);
  TRY(num_val(c, v, r, out));
  pop(c, mk);
  return VS_OK;
}

static vs_status int_key(vctx *c, const sn_node *m, const char *key, irange r, int64_t *out) {
  const sn_node *v = get(m, key);
  if (!v) return VS_OK;
  size_t mk = push(c, key);
  TRY(int_val(c, v, r, out));
  pop(c, mk);
  return VS_OK;
}

static vs_status enum_key(vctx *c, const sn_node *m, const char *key, const char *const *names,
                          int *out) {
  const sn_node *v = get(m, key);
  if (!v) return VS_OK;
  size_t mk = push(c, key);
  TRY(enum_val(c, v, names, out));
  pop(c, mk);
  return VS_OK;
}

static vs_status bool_key(vctx *c, const sn_node *m, const char *key, int *out) {
  const sn_node *v = get(m, key);
  if (!v) return VS_OK;
  size_t mk = push(c, key);
  if (!parse_bool(v, out)) {
    char g[96];
    return fail(c, VS_ERR_SCENE, v, "expected true or false, got %s", got(v, g, sizeof g));
  }
  pop(c, mk);
  return VS_OK;
}

/* A list of n numbers, each in r. */
static vs_status vec_val(vctx *c, const sn_node *v, size_t n, nrange r, double *out) {
  if (!v || v->kind != SN_SEQ || v->n != n) {
    char g[96];
    return fail(c, VS_ERR_SCENE, v, "expected a list of %zu numbers, got %s", n,
                got_list(v, g, sizeof g));
  }
  for (size_t i = 0; i < n; i++) {
    size_t mk = push_index(c, i);
    TRY(num_val(c, v->kids[i], r, &out[i]));
    pop(c, mk);
  }
  return VS_OK;
}

/* required: fail at `at` when absent; else keep out's default. */
static vs_status vec_key(vctx *c, const sn_node *m, const sn_node *at, const char *key, size_t n,
                         nrange r, int required, double *out) {
  const sn_node *v = get(m, key);
  if (!v) return required ? missing(c, at, key) : VS_OK;
  size_t mk = push(c, key);
  TRY(vec_val(c, v, n, r, out));
  pop(c, mk);
  return VS_OK;
}

/* A string scalar of 1..cap-1 bytes without NULs.  Plain numbers are text
 * too (`name: 2024` is the name "2024"). */
static vs_status str_val(vctx *c, const sn_node *v, const char *what, char *buf, size_t cap) {
  char g[96];
  if (!v || v->kind != SN_SCALAR || vs_sn_is_null(v) || v->len == 0 || strlen(v->text) != v->len)
    return fail(c, VS_ERR_SCENE, v, "expected %s, got %s", what, got(v, g, sizeof g));
  if (v->len >= cap)
    return fail(c, VS_ERR_SCENE, v, "expected %s of at most %zu characters, got %zu", what, cap - 1,
                v->len);
  memcpy(buf, v->text, v->len + 1);
  return VS_OK;
}

/* ---- sections -------------------------------------------------------------- */

static vs_status load_time(vctx *c, const sn_node *v, vs_scene *s) {
  static const char *const keys[] = {"dt", "frames", "substeps", NULL};
  const sn_node *m;
  size_t mk = push(c, "time");
  TRY(as_map(c, v, &m));
  TRY(check_keys(c, m, keys));
  TRY(num_key(c, m, "dt", R_POS, &s->dt));
  TRY(int_key(c, m, "frames", (irange){0, 0, 0, VS_MAX_FRAMES}, &s->frames));
  TRY(int_key(c, m, "substeps", (irange){1, 0, 0, VS_MAX_SUBSTEPS}, &s->substeps));
  pop(c, mk);
  return VS_OK;
}

static vs_status load_solver(vctx *c, const sn_node *v, vs_scene *s) {
  static const char *const keys[] = {"integrator", "iterations",         "relaxation",
                                     "omega",      "damping",            "sqrt_approximation",
                                     "runaway_speed", NULL};
  static const char *const integrators[] = {"verlet", "pbd", "xpbd", NULL};
  static const char *const relaxations[] = {"gauss-seidel", "jacobi", NULL};
  const sn_node *m;
  size_t mk = push(c, "solver");
  TRY(as_map(c, v, &m));
  TRY(check_keys(c, m, keys));
  int e = (int)s->integrator;
  TRY(enum_key(c, m, "integrator", integrators, &e));
  s->integrator = (vs_integrator)e;
  TRY(int_key(c, m, "iterations", (irange){1, 0, 0, VS_MAX_ITERATIONS}, &s->iterations));
  e = (int)s->relaxation;
  TRY(enum_key(c, m, "relaxation", relaxations, &e));
  s->relaxation = (vs_relaxation)e;
  TRY(num_key(c, m, "omega", R_OMEGA, &s->omega));
  TRY(num_key(c, m, "damping", R_NONNEG, &s->damping));
  TRY(bool_key(c, m, "sqrt_approximation", &s->sqrt_approximation));
  TRY(num_key(c, m, "runaway_speed", R_NONNEG, &s->runaway_speed));
  pop(c, mk);
  return VS_OK;
}

/* An item of a list that is a mapping with exactly one key naming its kind.
 * Pushes "<index>.<kind>" on the path (the caller pops to its mark). */
static vs_status kind_item(vctx *c, const sn_node *item, const char *what, const char *const *kinds,
                           int *kind, const sn_node **inner, const sn_node **at) {
  char list[256], g[96];
  join(kinds, list, sizeof list);
  if (!item || item->kind != SN_MAP)
    return fail(c, VS_ERR_SCENE, item,
                "expected a mapping with one key naming the %s kind (%s), got %s", what, list,
                got(item, g, sizeof g));
  if (item->n != 2)
    return fail(c, VS_ERR_SCENE, item,
                "expected exactly one key naming the %s kind (%s), got %zu keys", what, list,
                item->n / 2);
  const sn_node *k = item->kids[0];
  *kind = -1;
  for (int i = 0; kinds[i]; i++)
    if (!strcmp(k->text, kinds[i])) *kind = i;
  if (*kind < 0) {
    const char *s = suggest(k->text, kinds);
    if (s)
      return fail(c, VS_ERR_SCENE, k, "unknown %s kind '%s', did you mean '%s'?", what,
                  got_plain(k, g, sizeof g), s);
    return fail(c, VS_ERR_SCENE, k, "unknown %s kind '%s' (expected one of: %s)", what,
                got_plain(k, g, sizeof g), list);
  }
  push(c, kinds[*kind]);
  TRY(as_map(c, item->kids[1], inner));
  *at = *inner ? *inner : k;
  return VS_OK;
}

static vs_status load_collider(vctx *c, const sn_node *item, vs_collider_desc *d) {
  static const char *const kinds[] = {"plane", "sphere", "box", "bounds", NULL};
  static const char *const plane_keys[] = {"point", "normal", "friction", "restitution", NULL};
  static const char *const sphere_keys[] = {"center", "radius", "friction", "restitution", NULL};
  static const char *const box_keys[] = {"min", "max", "friction", "restitution", NULL};
  static const char *const *const keys[] = {plane_keys, sphere_keys, box_keys, box_keys};
  int kind;
  const sn_node *m, *at;
  TRY(kind_item(c, item, "collider", kinds, &kind, &m, &at));
  d->kind = (vs_collider_kind)kind;
  d->loc = loc_of(item);
  TRY(check_keys(c, m, keys[kind]));
  switch (d->kind) {
    case VS_COLLIDER_PLANE: {
      d->b[1] = 1.0;
      TRY(vec_key(c, m, at, "point", 3, R_ANY, 0, d->a));
      TRY(vec_key(c, m, at, "normal", 3, R_ANY, 0, d->b));
      double len = sqrt(d->b[0] * d->b[0] + d->b[1] * d->b[1] + d->b[2] * d->b[2]);
      if (!(len > 0) || !isfinite(len)) {
        push(c, "normal");
        return fail(c, VS_ERR_SCENE, get(m, "normal"),
                    "expected a non-zero finite vector, got [%g, %g, %g]", d->b[0], d->b[1],
                    d->b[2]);
      }
      /* Normalise until the length is exactly 1 (or stops changing), so that
       * a normal written back out by vs_scene_to_yaml loads bit-identical. */
      for (int it = 0; it < 4 && len != 1.0; it++) {
        for (int i = 0; i < 3; i++) d->b[i] /= len;
        len = sqrt(d->b[0] * d->b[0] + d->b[1] * d->b[1] + d->b[2] * d->b[2]);
      }
      break;
    }
    case VS_COLLIDER_SPHERE:
      TRY(vec_key(c, m, at, "center", 3, R_ANY, 0, d->a));
      if (!get(m, "radius")) return missing(c, at, "radius");
      TRY(num_key(c, m, "radius", R_POS, &d->radius));
      break;
    case VS_COLLIDER_BOX:
    case VS_COLLIDER_BOUNDS:
      TRY(vec_key(c, m, at, "min", 3, R_ANY, 1, d->a));
      TRY(vec_key(c, m, at, "max", 3, R_ANY, 1, d->b));
      for (int i = 0; i < 3; i++) {
        if (!(d->a[i] < d->b[i])) {
          size_t mk = push(c, "max");
          vs_status st = fail(c, VS_ERR_SCENE, get(m, "max"),
                              "expected max > min on every axis, got max[%d] = %g <= min[%d] = %g",
                              i, d->b[i], i, d->a[i]);
          pop(c, mk);
          return st;
        }
      }
      break;
  }
  TRY(num_key(c, m, "friction", R_NONNEG, &d->friction));
  TRY(num_key(c, m, "restitution", R_UNIT, &d->restitution));
  return VS_OK;
}

static vs_status load_world(vctx *c, const sn_node *v, vs_scene *s) {
  static const char *const keys[] = {"gravity", "colliders", "particle_collisions", "swept", "shock_propagation", "particle_friction", NULL};
  const sn_node *m;
  size_t mk = push(c, "world");
  TRY(as_map(c, v, &m));
  TRY(check_keys(c, m, keys));
  TRY(vec_key(c, m, m, "gravity", 3, R_ANY, 0, s->gravity));
  TRY(bool_key(c, m, "particle_collisions", &s->particle_collisions));
  TRY(bool_key(c, m, "swept", &s->swept));
  TRY(bool_key(c, m, "shock_propagation", &s->shock_propagation));
  TRY(num_key(c, m, "particle_friction", R_NONNEG, &s->particle_friction));
  const sn_node *cl = get(m, "colliders");
  if (cl && !vs_sn_is_null(cl)) {
    size_t mk2 = push(c, "colliders");
    char g[96];
    if (cl->kind != SN_SEQ)
      return fail(c, VS_ERR_SCENE, cl, "expected a list of colliders, got %s",
                  got(cl, g, sizeof g));
    if (cl->n > VS_MAX_COLLIDERS)
      return fail(c, VS_ERR_LIMIT, cl,
                  "expected at most %d colliders (the documented limit), got %zu", VS_MAX_COLLIDERS,
                  cl->n);
    if (cl->n) {
      s->colliders = vs_calloc(cl->n, sizeof *s->colliders);
      if (!s->colliders) return nomem(c);
    }
    for (size_t i = 0; i < cl->n; i++) {
      size_t mk3 = push_index(c, i);
      TRY(load_collider(c, cl->kids[i], &s->colliders[i]));
      s->n_colliders = i + 1;
      pop(c, mk3);
    }
    pop(c, mk2);
  }
  pop(c, mk);
  return VS_OK;
}

/* ---- bodies --------------------------------------------------------------- */

static const char *const body_kinds[] = {"particles", "rope",    "cloth", "tetra",
                                         "lattice",   "ragdoll", NULL};

/* A link family: {stiffness, compliance}, or `none` to disable it. */
static vs_status link_key(vctx *c, const sn_node *m, const char *key, int enabled,
                          vs_link_desc *l) {
  static const char *const keys[] = {"stiffness", "compliance", NULL};
  l->enabled = enabled;
  l->stiffness = 1.0;
  l->compliance = 0.0;
  const sn_node *v = get(m, key);
  if (!v) return VS_OK;
  size_t mk = push(c, key);
  if (is_word(v, "none") && !v->quoted) {
    l->enabled = 0;
  } else if (v->kind == SN_MAP) {
    l->enabled = 1;
    TRY(check_keys(c, v, keys));
    TRY(num_key(c, v, "stiffness", R_STIFF, &l->stiffness));
    TRY(num_key(c, v, "compliance", R_NONNEG, &l->compliance));
  } else {
    char g[96];
    return fail(c, VS_ERR_SCENE, v, "expected a mapping {stiffness, compliance} or none, got %s",
                got(v, g, sizeof g));
  }
  pop(c, mk);
  return VS_OK;
}

/* Body names are used in particle references ("NAME:INDEX") and in --set
 * paths ("bodies.NAME.key"), so they are restricted to characters that
 * cannot be confused with either syntax, and may not be all digits (that
 * would read as an index). */
static vs_status body_name(vctx *c, const sn_node *v, char *buf) {
  TRY(str_val(c, v, "a body name", buf, VS_MAX_NAME + 1));
  int digits = 1;
  for (const char *p = buf; *p; p++) {
    unsigned char ch = (unsigned char)*p;
    if (!(isalnum(ch) || ch == '_' || ch == '-')) {
      char g[96];
      return fail(c, VS_ERR_SCENE, v,
                  "expected a body name of letters, digits, '_' and '-', got %s",
                  got(v, g, sizeof g));
    }
    if (!isdigit(ch)) digits = 0;
  }
  if (digits) {
    char g[96];
    return fail(c, VS_ERR_SCENE, v, "expected a body name that is not only digits, got %s",
                got(v, g, sizeof g));
  }
  return VS_OK;
}

static vs_status alloc_pins(vctx *c, vs_body_desc *b, size_t n, int arity) {
  b->pin_arity = arity;
  b->n_pins = 0;
  if (!n) return VS_OK;
  b->pins = vs_calloc(n * (size_t)arity, sizeof *b->pins);
  if (!b->pins) return nomem(c);
  return VS_OK;
}

/* An index in [0, n) (n < 0: no upper bound known here). */
static vs_status index_val(vctx *c, const sn_node *v, int64_t n, const char *what, int64_t *out) {
  int64_t x = 0;
  char g[96];
  if (parse_int(v, &x) != 1 || x < 0 || (n >= 0 && x >= n)) {
    if (n >= 0)
      return fail(c, VS_ERR_SCENE, v, "expected %s in [0, %lld], got %s", what, (long long)(n - 1),
                  got(v, g, sizeof g));
    return fail(c, VS_ERR_SCENE, v, "expected %s >= 0, got %s", what, got(v, g, sizeof g));
  }
  *out = x;
  return VS_OK;
}

/* pin: a list of grid coordinates [i, j] or [i, j, k] within dims, or one
 * of the words allowed for the kind. */
static vs_status pin_grid(vctx *c, const sn_node *v, vs_body_desc *b, int arity,
                          const int64_t *dims, const char *const *words, const vs_pin_mode *modes) {
  char g[96], list[128];
  join(words, list, sizeof list);
  if (v->kind == SN_SCALAR) {
    for (size_t i = 0; words[i]; i++)
      if (is_word(v, words[i])) return b->pin_mode = modes[i], VS_OK;
    const char *s = suggest(v->text, words);
    if (s)
      return fail(c, VS_ERR_SCENE, v,
                  "expected a list of [%s] or one of %s, got %s (did you mean '%s'?)",
                  arity == 2 ? "i, j" : "i, j, k", list, got(v, g, sizeof g), s);
    return fail(c, VS_ERR_SCENE, v, "expected a list of [%s] or one of %s, got %s",
                arity == 2 ? "i, j" : "i, j, k", list, got(v, g, sizeof g));
  }
  if (v->kind != SN_SEQ)
    return fail(c, VS_ERR_SCENE, v, "expected a list of [%s] or one of %s, got %s",
                arity == 2 ? "i, j" : "i, j, k", list, got(v, g, sizeof g));
  if (v->n == 0) return b->pin_mode = VS_PIN_NONE, VS_OK;
  TRY(alloc_pins(c, b, v->n, arity));
  b->pin_mode = VS_PIN_LIST;
  for (size_t i = 0; i < v->n; i++) {
    const sn_node *p = v->kids[i];
    size_t mk = push_index(c, i);
    if (p->kind != SN_SEQ || p->n != (size_t)arity)
      return fail(c, VS_ERR_SCENE, p, "expected grid coordinates [%s], got %s",
                  arity == 2 ? "i, j" : "i, j, k", got_list(p, g, sizeof g));
    for (int a = 0; a < arity; a++) {
      static const char *const axis[] = {"i", "j", "k"};
      char what[32];
      snprintf(what, sizeof what, "grid coordinate %s", axis[a]);
      size_t mk2 = push_index(c, (size_t)a);
      TRY(index_val(c, p->kids[a], dims[a], what, &b->pins[i * (size_t)arity + (size_t)a]));
      pop(c, mk2);
    }
    b->n_pins = i + 1;
    pop(c, mk);
  }
  return VS_OK;
}

/* pin for particle lists: indices below n (n < 0: unknown here), or none.
 * Ropes also take first | last | both, as a word or inside the list. */
static vs_status pin_indices(vctx *c, const sn_node *v, vs_body_desc *b, int64_t n, int rope) {
  char g[96];
  const char *expect = rope ? "first, last, both, none, or a list of particle indices"
                            : "none or a list of particle indices";
  if (v->kind == SN_SCALAR && !v->quoted) {
    if (is_word(v, "none")) return b->pin_mode = VS_PIN_NONE, VS_OK;
    if (rope && is_word(v, "first")) return b->pin_mode = VS_PIN_FIRST, VS_OK;
    if (rope && is_word(v, "last")) return b->pin_mode = VS_PIN_LAST, VS_OK;
    if (rope && is_word(v, "both")) return b->pin_mode = VS_PIN_BOTH, VS_OK;
  }
  if (v->kind != SN_SEQ)
    return fail(c, VS_ERR_SCENE, v, "expected %s, got %s", expect, got(v, g, sizeof g));
  if (v->n == 0) return b->pin_mode = VS_PIN_NONE, VS_OK;
  /* A rope list made of the words first/last only keeps its symbolic form. */
  if (rope) {
    int first = 0, last = 0, words = 1;
    for (size_t i = 0; i < v->n && words; i++) {
      if (is_word(v->kids[i], "first"))
        first = 1;
      else if (is_word(v->kids[i], "last"))
        last = 1;
      else
        words = 0;
    }
    if (words) {
      b->pin_mode = first && last ? VS_PIN_BOTH : first ? VS_PIN_FIRST : VS_PIN_LAST;
      return VS_OK;
    }
  }
  TRY(alloc_pins(c, b, v->n, 1));
  b->pin_mode = VS_PIN_LIST;
  for (size_t i = 0; i < v->n; i++) {
    const sn_node *p = v->kids[i];
    size_t mk = push_index(c, i);
    if (rope && is_word(p, "first"))
      b->pins[i] = 0;
    else if (rope && is_word(p, "last"))
      b->pins[i] = n - 1;
    else
      TRY(index_val(c, p, n, rope ? "a particle index, first or last" : "a particle index",
                    &b->pins[i]));
    b->n_pins = i + 1;
    pop(c, mk);
  }
  return VS_OK;
}

static vs_status pin_key(vctx *c, const sn_node *m, vs_body_desc *b) {
  static const char *const cloth_words[] = {"none", "top-edge", "top-corners", NULL};
  static const vs_pin_mode cloth_modes[] = {VS_PIN_NONE, VS_PIN_TOP_EDGE, VS_PIN_TOP_CORNERS};
  static const char *const lattice_words[] = {"none", "top-edge", NULL};
  static const vs_pin_mode lattice_modes[] = {VS_PIN_NONE, VS_PIN_TOP_EDGE};
  b->pin_mode = VS_PIN_NONE;
  b->pin_arity = b->kind == VS_BODY_CLOTH ? 2 : b->kind == VS_BODY_LATTICE ? 3 : 1;
  const sn_node *v = get(m, "pin");
  if (!v) return VS_OK;
  b->pin_loc = loc_of(v);
  size_t mk = push(c, "pin");
  switch (b->kind) {
    case VS_BODY_CLOTH:
      TRY(pin_grid(c, v, b, 2, b->resolution, cloth_words, cloth_modes));
      break;
    case VS_BODY_LATTICE:
      TRY(pin_grid(c, v, b, 3, b->resolution, lattice_words, lattice_modes));
      break;
    case VS_BODY_ROPE:
      TRY(pin_indices(c, v, b, b->segments + 1, 1));
      break;
    case VS_BODY_PARTICLES:
      TRY(pin_indices(c, v, b, (int64_t)b->count, 0));
      break;
    case VS_BODY_TETRA: /* tetra, ragdoll: their particle count is the model's business */
    case VS_BODY_RAGDOLL:
      TRY(pin_indices(c, v, b, -1, 0));
      break;
  }
  pop(c, mk);
  return VS_OK;
}

/* particles: positions [[x,y,z], ...], velocities, mass | masses. */
static vs_status load_particles(vctx *c, const sn_node *m, const sn_node *at, vs_body_desc *b) {
  char g[96];
  const sn_node *pos = get(m, "positions");
  if (!pos) return missing(c, at, "positions");
  size_t mk = push(c, "positions");
  if (pos->kind != SN_SEQ || pos->n == 0)
    return fail(c, VS_ERR_SCENE, pos, "expected a non-empty list of [x, y, z], got %s",
                pos->kind == SN_SEQ ? "an empty list" : got(pos, g, sizeof g));
  if (pos->n > VS_MAX_PARTICLES)
    return fail(c, VS_ERR_LIMIT, pos, "expected at most %d particles, got %zu", VS_MAX_PARTICLES,
                pos->n);
  b->count = pos->n;
  b->positions = vs_malloc(b->count * 3 * sizeof *b->positions);
  if (!b->positions) return nomem(c);
  for (size_t i = 0; i < b->count; i++) {
    size_t mk2 = push_index(c, i);
    TRY(vec_val(c, pos->kids[i], 3, R_ANY, &b->positions[3 * i]));
    pop(c, mk2);
  }
  pop(c, mk);

  const sn_node *vel = get(m, "velocities");
  if (vel) {
    mk = push(c, "velocities");
    if (vel->kind != SN_SEQ || vel->n != b->count)
      return fail(c, VS_ERR_SCENE, vel,
                  "expected a list of %zu [x, y, z] (one per position), got %s", b->count,
                  got_list(vel, g, sizeof g));
    b->velocities = vs_malloc(b->count * 3 * sizeof *b->velocities);
    if (!b->velocities) return nomem(c);
    for (size_t i = 0; i < b->count; i++) {
      size_t mk2 = push_index(c, i);
      TRY(vec_val(c, vel->kids[i], 3, R_ANY, &b->velocities[3 * i]));
      pop(c, mk2);
    }
    pop(c, mk);
  }

  const sn_node *ms = get(m, "masses");
  if (ms) {
    mk = push(c, "masses");
    if (get(m, "mass"))
      return fail(c, VS_ERR_SCENE, ms, "expected either mass or masses, got both");
    if (ms->kind != SN_SEQ || ms->n != b->count)
      return fail(c, VS_ERR_SCENE, ms, "expected a list of %zu masses (one per position), got %s",
                  b->count, got_list(ms, g, sizeof g));
    b->masses = vs_malloc(b->count * sizeof *b->masses);
    if (!b->masses) return nomem(c);
    for (size_t i = 0; i < b->count; i++) {
      size_t mk2 = push_index(c, i);
      TRY(num_val(c, ms->kids[i], R_POS, &b->masses[i]));
      pop(c, mk2);
    }
    pop(c, mk);
  }
  return VS_OK;
}

static vs_status grid_size(vctx *c, const sn_node *m, const sn_node *at, int dims,
                           vs_body_desc *b) {
  TRY(vec_key(c, m, at, "origin", 3, R_ANY, 1, b->origin));
  TRY(vec_key(c, m, at, "size", (size_t)dims, R_POS, 1, b->size));
  const sn_node *r = get(m, "resolution");
  if (!r) return missing(c, at, "resolution");
  size_t mk = push(c, "resolution");
  if (r->kind != SN_SEQ || r->n != (size_t)dims) {
    char g[96];
    return fail(c, VS_ERR_SCENE, r, "expected a list of %d integers, got %s", dims,
                got_list(r, g, sizeof g));
  }
  int64_t total = 1;
  for (int i = 0; i < dims; i++) {
    size_t mk2 = push_index(c, (size_t)i);
    TRY(int_val(c, r->kids[i], (irange){2, 0, 0, VS_MAX_RESOLUTION}, &b->resolution[i]));
    pop(c, mk2);
    total *= b->resolution[i]; /* <= 16384^3: no overflow */
  }
  if (total > VS_MAX_PARTICLES)
    return fail(c, VS_ERR_LIMIT, r, "expected at most %d particles, got %lld", VS_MAX_PARTICLES,
                (long long)total);
  pop(c, mk);
  return VS_OK;
}

static int64_t body_particles(const vs_body_desc *b) {
  switch (b->kind) {
    case VS_BODY_PARTICLES:
      return (int64_t)b->count;
    case VS_BODY_ROPE:
      return b->segments + 1;
    case VS_BODY_CLOTH:
      return b->resolution[0] * b->resolution[1];
    case VS_BODY_TETRA:
      return 4;
    case VS_BODY_LATTICE:
      return b->resolution[0] * b->resolution[1] * b->resolution[2];
    case VS_BODY_RAGDOLL:
      return 0; /* fixed and small, counted by the model */
  }
  return 0;
}

static vs_status load_body(vctx *c, const sn_node *item, size_t index, vs_body_desc *b,
                           const sn_node **name_node) {
  static const char *const particles_keys[] = {"name",   "positions", "velocities", "mass",
                                               "masses", "radius",    "pin",        "damping_rigid", NULL};
  static const char *const rope_keys[] = {"name",    "from", "to",  "segments", "mass", "radius",
                                          "stretch", "bend", "pin", "tear",     "damping_rigid", NULL};
  static const char *const cloth_keys[] = {"name", "origin", "size",    "resolution", "plane",
                                           "mass", "radius", "stretch", "shear",      "bend",
                                           "pin",  "tear",   "damping_rigid", NULL};
  static const char *const tetra_keys[] = {
      "name",     "center",           "edge",      "mass",       "radius",
      "velocity", "angular_velocity", "stiffness", "compliance", "damping_rigid", NULL};
  static const char *const lattice_keys[] = {"name", "origin", "size",    "resolution",
                                             "mass", "radius", "stretch", "shear",
                                             "pin",  "tear",   "damping_rigid", NULL};
  static const char *const ragdoll_keys[] = {"name", "origin",    "height",     "mass", "radius",
                                             "pin",  "stiffness", "compliance", "damping_rigid", NULL};
  static const char *const *const keys[] = {particles_keys, rope_keys,    cloth_keys,
                                            tetra_keys,     lattice_keys, ragdoll_keys};
  static const char *const planes[] = {"xy", "xz", "yz", NULL};
  int kind;
  const sn_node *m, *at;
  TRY(kind_item(c, item, "body", body_kinds, &kind, &m, &at));
  b->kind = (vs_body_kind)kind;
  b->loc = loc_of(item);
  TRY(check_keys(c, m, keys[kind]));

  const sn_node *nv = get(m, "name");
  *name_node = nv ? nv : item;
  if (nv) {
    size_t mk = push(c, "name");
    TRY(body_name(c, nv, b->name));
    pop(c, mk);
  } else {
    snprintf(b->name, sizeof b->name, "%s%zu", body_kinds[kind], index);
  }

  b->mass = 1.0;
  TRY(num_key(c, m, "mass", R_POS, &b->mass));
  TRY(num_key(c, m, "radius", R_NONNEG, &b->radius));
  TRY(num_key(c, m, "tear", R_NONNEG, &b->tear));
  TRY(num_key(c, m, "damping_rigid", R_UNIT, &b->damping_rigid));

  switch (b->kind) {
    case VS_BODY_PARTICLES:
      TRY(load_particles(c, m, at, b));
      break;
    case VS_BODY_ROPE:
      TRY(vec_key(c, m, at, "from", 3, R_ANY, 1, b->from));
      TRY(vec_key(c, m, at, "to", 3, R_ANY, 1, b->to));
      if (!get(m, "segments")) return missing(c, at, "segments");
      TRY(int_key(c, m, "segments", (irange){1, 0, 0, VS_MAX_SEGMENTS}, &b->segments));
      TRY(link_key(c, m, "stretch", 1, &b->stretch));
      TRY(link_key(c, m, "bend", 0, &b->bend));
      break;
    case VS_BODY_CLOTH: {
      TRY(grid_size(c, m, at, 2, b));
      int p = 0;
      TRY(enum_key(c, m, "plane", planes, &p));
      b->plane = (vs_plane_axes)p;
      TRY(link_key(c, m, "stretch", 1, &b->stretch));
      TRY(link_key(c, m, "shear", 0, &b->shear));
      TRY(link_key(c, m, "bend", 0, &b->bend));
      break;
    }
    case VS_BODY_LATTICE:
      TRY(grid_size(c, m, at, 3, b));
      TRY(link_key(c, m, "stretch", 1, &b->stretch));
      TRY(link_key(c, m, "shear", 1, &b->shear));
      break;
    case VS_BODY_TETRA:
    case VS_BODY_RAGDOLL:
      if (b->kind == VS_BODY_TETRA) {
        TRY(vec_key(c, m, at, "center", 3, R_ANY, 1, b->center));
        if (!get(m, "edge")) return missing(c, at, "edge");
        TRY(num_key(c, m, "edge", R_POS, &b->edge));
        TRY(vec_key(c, m, at, "velocity", 3, R_ANY, 0, b->velocity));
        TRY(vec_key(c, m, at, "angular_velocity", 3, R_ANY, 0, b->angular_velocity));
      } else {
        TRY(vec_key(c, m, at, "origin", 3, R_ANY, 1, b->origin));
        if (!get(m, "height")) return missing(c, at, "height");
        TRY(num_key(c, m, "height", R_POS, &b->height));
      }
      /* Their links are one family whose stiffness sits on the body. */
      b->stretch.enabled = 1;
      b->stretch.stiffness = 1.0;
      b->stretch.compliance = 0.0;
      TRY(num_key(c, m, "stiffness", R_STIFF, &b->stretch.stiffness));
      TRY(num_key(c, m, "compliance", R_NONNEG, &b->stretch.compliance));
      break;
  }
  if (b->kind != VS_BODY_TETRA) TRY(pin_key(c, m, b));
  return VS_OK;
}

typedef struct name_ix {
  const char *name;
  size_t index;
} name_ix;

static int cmp_name_ix(const void *pa, const void *pb) {
  const name_ix *a = pa, *b = pb;
  int k = strcmp(a->name, b->name);
  if (k) return k;
  return a->index < b->index ? -1 : a->index > b->index;
}

static vs_status load_bodies(vctx *c, const sn_node *v, vs_scene *s) {
  if (!v || vs_sn_is_null(v)) return VS_OK;
  size_t mk = push(c, "bodies");
  char g[96];
  if (v->kind != SN_SEQ)
    return fail(c, VS_ERR_SCENE, v, "expected a list of bodies, got %s", got(v, g, sizeof g));
  if (v->n > VS_MAX_BODIES)
    return fail(c, VS_ERR_LIMIT, v, "expected at most %d bodies (the documented limit), got %zu",
                VS_MAX_BODIES, v->n);
  if (!v->n) {
    pop(c, mk);
    return VS_OK;
  }
  s->bodies = vs_calloc(v->n, sizeof *s->bodies);
  const sn_node **names = vs_calloc(v->n, sizeof *names);
  name_ix *ix = vs_calloc(v->n, sizeof *ix);
  vs_status st = VS_OK;
  if (!s->bodies || !names || !ix) {
    st = nomem(c);
    goto out;
  }
  int64_t total = 0;
  for (size_t i = 0; i < v->n; i++) {
    size_t mk2 = push_index(c, i);
    st = load_body(c, v->kids[i], i, &s->bodies[i], &names[i]);
    s->n_bodies = i + 1;
    if (st) goto out;
    total += body_particles(&s->bodies[i]); /* each <= VS_MAX_PARTICLES: no overflow */
    if (total > VS_MAX_PARTICLES) {
      st = fail(c, VS_ERR_LIMIT, v->kids[i],
                "the scene would have more than %d particles (the documented limit)",
                VS_MAX_PARTICLES);
      goto out;
    }
    pop(c, mk2);
  }
  /* Duplicate names: sort (name, index) and report the earliest body that
   * repeats an earlier name, at its name. */
  for (size_t i = 0; i < v->n; i++) {
    ix[i].name = s->bodies[i].name;
    ix[i].index = i;
  }
  qsort(ix, v->n, sizeof *ix, cmp_name_ix);
  size_t dup = v->n, first = 0;
  for (size_t i = 1; i < v->n; i++) {
    if (!strcmp(ix[i].name, ix[i - 1].name) && ix[i].index < dup &&
        (i < 2 || strcmp(ix[i].name, ix[i - 2].name))) {
      dup = ix[i].index;
      first = ix[i - 1].index;
    }
  }
  if (dup < v->n) {
    push_index(c, dup);
    st = fail(c, VS_ERR_SCENE, names[dup], "duplicate body name '%s' (body %zu has it too)",
              s->bodies[dup].name, first);
    goto out;
  }
  pop(c, mk);
out:
  vs_free(names);
  vs_free(ix);
  return st;
}

/* ---- constraints ---------------------------------------------------------- */

static vs_status ref_key(vctx *c, const sn_node *m, const sn_node *at, const char *key, vs_ref *r) {
  const sn_node *v = get(m, key);
  if (!v) return missing(c, at, key);
  size_t mk = push(c, key);
  TRY(str_val(c, v, "a particle reference (\"NAME:INDEX\", \"NAME:I,J\" or a global index)",
              r->text, sizeof r->text));
  r->loc = loc_of(v);
  pop(c, mk);
  return VS_OK;
}

static vs_status load_keys(vctx *c, const sn_node *v, vs_constraint_desc *d) {
  char g[96];
  if (v->kind != SN_SEQ || v->n == 0)
    return fail(c, VS_ERR_SCENE, v, "expected a non-empty list of [t, x, y, z], got %s",
                v->kind == SN_SEQ ? "an empty list" : got(v, g, sizeof g));
  if (v->n > VS_MAX_KEYS)
    return fail(c, VS_ERR_LIMIT, v, "expected at most %d keys (the documented limit), got %zu",
                VS_MAX_KEYS, v->n);
  d->keys = vs_malloc(v->n * 4 * sizeof *d->keys);
  if (!d->keys) return nomem(c);
  d->n_keys = v->n;
  for (size_t i = 0; i < v->n; i++) {
    size_t mk = push_index(c, i);
    double *k = &d->keys[4 * i];
    TRY(vec_val(c, v->kids[i], 4, R_ANY, k));
    if (i > 0 && !(k[0] > k[-4])) {
      size_t mk2 = push_index(c, 0);
      vs_status st = fail(c, VS_ERR_SCENE, v->kids[i]->kids[0],
                          "expected a time after the previous key's %g, got %s", k[-4],
                          got(v->kids[i]->kids[0], g, sizeof g));
      pop(c, mk2);
      return st;
    }
    pop(c, mk);
  }
  return VS_OK;
}

static vs_status load_constraint(vctx *c, const sn_node *item, vs_constraint_desc *d) {
  static const char *const kinds[] = {"distance", "pin", "angle", NULL};
  static const char *const dist_keys[] = {"a",   "b",         "rest",       "min",
                                          "max", "stiffness", "compliance", NULL};
  static const char *const pin_keys[] = {"particle", "at", "keys", NULL};
  static const char *const angle_keys[] = {"a",   "b",         "c",          "min",
                                           "max", "stiffness", "compliance", NULL};
  static const char *const *const keys[] = {dist_keys, pin_keys, angle_keys};
  int kind;
  const sn_node *m, *at;
  char g[96];
  TRY(kind_item(c, item, "constraint", kinds, &kind, &m, &at));
  d->kind = (vs_constraint_kind)kind;
  d->loc = loc_of(item);
  d->stiffness = 1.0;
  TRY(check_keys(c, m, keys[kind]));
  switch (d->kind) {
    case VS_CONSTRAINT_DISTANCE: {
      TRY(ref_key(c, m, at, "a", &d->a));
      TRY(ref_key(c, m, at, "b", &d->b));
      /* At most one of rest/min/max: a two-sided rest length, or a one-sided
       * limit; none means rest: auto. */
      static const char *const which[] = {"rest", "min", "max"};
      const sn_node *given = NULL;
      for (int i = 0; i < 3; i++) {
        const sn_node *v = get(m, which[i]);
        if (!v) continue;
        if (given) {
          push(c, which[i]);
          return fail(c, VS_ERR_SCENE, v, "expected only one of rest, min, max, got %s too",
                      which[i]);
        }
        given = v;
      }
      const sn_node *rest = get(m, "rest");
      d->rest_auto = !given || (rest && is_word(rest, "auto"));
      if (rest && !d->rest_auto) TRY(num_key(c, m, "rest", R_NONNEG, &d->rest));
      if (get(m, "min")) {
        d->has_min = 1;
        TRY(num_key(c, m, "min", R_NONNEG, &d->min));
      }
      if (get(m, "max")) {
        d->has_max = 1;
        TRY(num_key(c, m, "max", R_NONNEG, &d->max));
      }
      TRY(num_key(c, m, "stiffness", R_STIFF, &d->stiffness));
      TRY(num_key(c, m, "compliance", R_NONNEG, &d->compliance));
      break;
    }
    case VS_CONSTRAINT_PIN: {
      TRY(ref_key(c, m, at, "particle", &d->a));
      const sn_node *av = get(m, "at"), *kv = get(m, "keys");
      if (av && kv) {
        push(c, "keys");
        return fail(c, VS_ERR_SCENE, kv, "expected either at or keys, got both");
      }
      if (av) {
        d->has_at = 1;
        TRY(vec_key(c, m, at, "at", 3, R_ANY, 1, d->at));
      }
      if (kv) {
        size_t mk = push(c, "keys");
        TRY(load_keys(c, kv, d));
        pop(c, mk);
      }
      break;
    }
    case VS_CONSTRAINT_ANGLE:
      TRY(ref_key(c, m, at, "a", &d->a));
      TRY(ref_key(c, m, at, "b", &d->b));
      TRY(ref_key(c, m, at, "c", &d->c));
      if (get(m, "min")) {
        d->has_min = 1;
        TRY(num_key(c, m, "min", R_DEG, &d->min));
      }
      if (get(m, "max")) {
        d->has_max = 1;
        TRY(num_key(c, m, "max", R_DEG, &d->max));
      }
      if (!d->has_min && !d->has_max)
        return fail(c, VS_ERR_SCENE, at, "expected min or max (degrees), got neither");
      if (d->has_min && d->has_max && d->min > d->max) {
        push(c, "max");
        return fail(c, VS_ERR_SCENE, get(m, "max"), "expected max >= min (%g), got %s", d->min,
                    got(get(m, "max"), g, sizeof g));
      }
      TRY(num_key(c, m, "stiffness", R_STIFF, &d->stiffness));
      TRY(num_key(c, m, "compliance", R_NONNEG, &d->compliance));
      break;
  }
  return VS_OK;
}

static vs_status load_constraints(vctx *c, const sn_node *v, vs_scene *s) {
  if (!v || vs_sn_is_null(v)) return VS_OK;
  size_t mk = push(c, "constraints");
  char g[96];
  if (v->kind != SN_SEQ)
    return fail(c, VS_ERR_SCENE, v, "expected a list of constraints, got %s", got(v, g, sizeof g));
  if (v->n > VS_MAX_EXPLICIT)
    return fail(c, VS_ERR_LIMIT, v,
                "expected at most %d constraints (the documented limit), got %zu", VS_MAX_EXPLICIT,
                v->n);
  if (v->n) {
    s->constraints = vs_calloc(v->n, sizeof *s->constraints);
    if (!s->constraints) return nomem(c);
  }
  for (size_t i = 0; i < v->n; i++) {
    size_t mk2 = push_index(c, i);
    s->n_constraints = i + 1;
    TRY(load_constraint(c, v->kids[i], &s->constraints[i]));
    pop(c, mk2);
  }
  pop(c, mk);
  return VS_OK;
}

/* ---- output ---------------------------------------------------------------- */

static vs_status load_output(vctx *c, const sn_node *v, vs_scene *s) {
  static const char *const keys[] = {"every", "fields", "precision", "compression", NULL};
  static const char *const fields[] = {"position", "velocity", "constraint_error",
                                       "per_constraint_error", NULL};
  static const char *const precisions[] = {"float64", "float32", NULL};
  const sn_node *m;
  size_t mk = push(c, "output");
  TRY(as_map(c, v, &m));
  TRY(check_keys(c, m, keys));
  TRY(int_key(c, m, "every", (irange){1, 0, 0, VS_MAX_FRAMES}, &s->output.every));
  const sn_node *f = get(m, "fields");
  if (f) {
    size_t mk2 = push(c, "fields");
    char g[96];
    if (f->kind != SN_SEQ)
      return fail(c, VS_ERR_SCENE, f, "expected a list of field names, got %s",
                  got(f, g, sizeof g));
    s->output.fields = 0;
    for (size_t i = 0; i < f->n; i++) {
      size_t mk3 = push_index(c, i);
      int k;
      TRY(enum_val(c, f->kids[i], fields, &k));
      s->output.fields |= 1u << k;
      pop(c, mk3);
    }
    pop(c, mk2);
  }
  int p = s->output.float32;
  TRY(enum_key(c, m, "precision", precisions, &p));
  s->output.float32 = p;
  int64_t z = s->output.compression;
  TRY(int_key(c, m, "compression", (irange){0, 1, 9, 0}, &z));
  s->output.compression = (int)z;
  pop(c, mk);
  return VS_OK;
}

/* ---- the whole scene ------------------------------------------------------ */

static void default_name(const char *file, char *buf, size_t size) {
  if (!file || !*file) {
    snprintf(buf, size, "scene");
    return;
  }
  if (!strcmp(file, "<default>")) {
    snprintf(buf, size, "default");
    return;
  }
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  if (n == 0) {
    snprintf(buf, size, "scene");
    return;
  }
  snprintf(buf, size, "%.*s", (int)n, base);
}

static void set_defaults(vs_scene *s) {
  s->version = 1;
  s->dt = 1.0 / 60.0;
  s->frames = 100;
  s->substeps = 1;
  s->integrator = VS_INTEGRATOR_PBD;
  s->iterations = 10;
  s->relaxation = VS_RELAX_GAUSS_SEIDEL;
  s->omega = 1.0;
  s->damping = 0.0;
  s->runaway_speed = 1e4;
  s->gravity[0] = 0.0;
  s->gravity[1] = -9.81;
  s->gravity[2] = 0.0;
  s->output.every = 1;
  s->output.fields = VS_FIELD_POSITION | VS_FIELD_CONSTRAINT_ERROR;
  s->output.float32 = 0;
  s->output.compression = 0;
}

static vs_status build(vctx *c, const sn_node *root, vs_scene *s) {
  static const char *const keys[] = {"vsim",   "name",        "time",   "solver", "world",
                                     "bodies", "constraints", "output", NULL};
  set_defaults(s);
  default_name(c->file_arg, s->name, sizeof s->name);
  const sn_node *m = root;
  TRY(check_keys(c, m, keys));
  const sn_node *v = get(m, "vsim");
  if (v) {
    size_t mk = push(c, "vsim");
    int64_t ver = 0;
    if (parse_int(v, &ver) != 1 || ver != 1) {
      char g[96];
      return fail(c, VS_ERR_SCENE, v, "expected 1 (the only format version), got %s",
                  got(v, g, sizeof g));
    }
    pop(c, mk);
  }
  v = get(m, "name");
  if (v) {
    size_t mk = push(c, "name");
    TRY(str_val(c, v, "a scene name", s->name, sizeof s->name));
    pop(c, mk);
  }
  TRY(load_time(c, get(m, "time"), s));
  TRY(load_solver(c, get(m, "solver"), s));
  TRY(load_world(c, get(m, "world"), s));
  TRY(load_bodies(c, get(m, "bodies"), s));
  TRY(load_constraints(c, get(m, "constraints"), s));
  TRY(load_output(c, get(m, "output"), s));
  return VS_OK;
}

vs_status vs_scene_load_string(const char *text, size_t len, const char *file,
                               const vs_override *sets, size_t n_sets, vs_scene **out,
                               vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!out || (!text && len) || (n_sets && !sets))
    return vs_error_set(err, VS_ERR_USAGE, file, 0, 0, "vs_scene_load_string: bad arguments");
  if (!text) text = "";
  if (len > VS_MAX_SCENE_BYTES)
    return vs_error_set(err, VS_ERR_LIMIT, file, 0, 0,
                        "the scene is %zu bytes, over the limit of %u bytes", len,
                        VS_MAX_SCENE_BYTES);
  vctx c;
  memset(&c, 0, sizeof c);
  vs_sn_budget budget = {0, 0};
  c.src.file = file ? file : "<string>";
  c.file_arg = file;
  c.src.sets = sets;
  c.src.n_sets = n_sets;
  c.err = err;

  sn_node *root = NULL;
  vs_scene *s = NULL;
  vs_status st = vs_sn_parse_budget(&c.src, text, len, 0, VS_ERR_SCENE, &budget, &root, err);
  if (st) return st;
  if (root && vs_sn_is_null(root)) {
    vs_sn_free(root);
    root = NULL;
  }
  if (root && root->kind != SN_MAP) {
    char g[96];
    st = fail(&c, VS_ERR_SCENE, root, "expected a mapping of scene keys at the top level, got %s",
              got(root, g, sizeof g));
    goto done;
  }
  for (size_t k = 0; k < n_sets; k++) {
    st = vs_sn_apply_set(&c.src, &root, k, &budget, err);
    if (st) goto done;
  }

  s = vs_calloc(1, sizeof *s);
  if (!s) goto nomem;
  s->file = vs_strdup(c.src.file);
  s->text = vs_malloc(len + 1);
  if (!s->file || !s->text) goto nomem;
  if (len) memcpy(s->text, text, len);
  s->text[len] = '\0';
  s->text_len = len;
  st = build(&c, root, s);
  if (st) goto done;
  *out = s;
  s = NULL;
  goto done;

nomem:
  st = nomem(&c);
done:
  vs_scene_free(s);
  vs_sn_free(root);
  return st;
}

vs_status vs_scene_load_file(const char *path, const vs_override *sets, size_t n_sets,
                             vs_scene **out, vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_scene_load_file: bad arguments");
  struct stat sb;
  if (stat(path, &sb) != 0)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read scene file '%s': %s", path,
                        strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return vs_error_set(err, VS_ERR_IO, path, 0, 0,
                        "cannot read scene file '%s': it is a directory", path);
  if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > VS_MAX_SCENE_BYTES)
    return vs_error_set(err, VS_ERR_LIMIT, path, 0, 0,
                        "scene file '%s' is %jd bytes, over the limit of %u bytes", path,
                        (intmax_t)sb.st_size, VS_MAX_SCENE_BYTES);
  FILE *f = fopen(path, "rb");
  if (!f)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read scene file '%s': %s", path,
                        strerror(errno));
  /* Read at most one byte past the limit, so that a pipe or a file that grew
   * since stat() is still caught. */
  size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 65536, n = 0;
  char *buf = vs_malloc(cap + 1);
  if (!buf) {
    fclose(f);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory reading '%s'", path);
  }
  for (;;) {
    if (n == cap) {
      if (cap > VS_MAX_SCENE_BYTES) break;
      size_t nc = cap * 2;
      char *nb = vs_realloc(buf, nc + 1);
      if (!nb) {
        vs_free(buf);
        fclose(f);
        return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory reading '%s'", path);
      }
      buf = nb;
      cap = nc;
    }
    size_t got_n = fread(buf + n, 1, cap - n, f);
    n += got_n;
    if (got_n == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    vs_free(buf);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read scene file '%s'", path);
  }
  if (n > VS_MAX_SCENE_BYTES) {
    vs_free(buf);
    return vs_error_set(err, VS_ERR_LIMIT, path, 0, 0,
                        "scene file '%s' is over the limit of %u bytes", path, VS_MAX_SCENE_BYTES);
  }
  buf[n] = '\0';
  vs_status st = vs_scene_load_string(buf, n, path, sets, n_sets, out, err);
  vs_free(buf);
  return st;
}

void vs_scene_free(vs_scene *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_bodies; i++) {
    vs_free(s->bodies[i].masses);
    vs_free(s->bodies[i].positions);
    vs_free(s->bodies[i].velocities);
    vs_free(s->bodies[i].pins);
  }
  for (size_t i = 0; i < s->n_constraints; i++) vs_free(s->constraints[i].keys);
  vs_free(s->bodies);
  vs_free(s->colliders);
  vs_free(s->constraints);
  vs_free(s->file);
  vs_free(s->text);
  vs_free(s);
}
