/* SPDX-License-Identifier: MIT */
/* sweep.c: sweep files (vsim/sweep.h, docs/cli.md, vsim sweep).
 *
 * The file is parsed into the scene loader's node tree (scene_yaml.c), so it
 * gets the same limits (depth, nodes, aliases) and the same 1-based
 * positions for every message.  Each list item is then written back out as
 * one line of flow YAML: that text is what `--set KEY=VALUE` reads, so a
 * point run by the sweep and the same `vsim run --set ...` load the very same
 * scene tree.  Each key and each value is held once: a sweep takes memory in
 * proportion to its file (a long key is not copied once per value). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/file.h"
#include "util/text.h"
#include "scene/scene_internal.h"
#include "vsim/sweep.h"

/* ---- values back to flow YAML ------------------------------------------- */

/* A plain scalar may keep its text in flow context unless it holds one of
 * the flow indicators (a block-context plain scalar may: `a,b` in a block
 * list is one string) or could be read as something else there. */
static int flow_safe_plain(const sn_node *n) {
  if (n->len == 0 || strlen(n->text) != n->len) return 0;
  const char *t = n->text;
  if (strchr("-?:,[]{}#&*!|>'\"%@`", t[0]) && !(t[0] == '-' && t[1] && t[1] != ' ')) return 0;
  if (t[0] == ' ' || t[n->len - 1] == ' ' || t[n->len - 1] == ':') return 0;
  for (const char *c = t; *c; c++) {
    if (strchr(",[]{}\n\t", *c)) return 0;
    if ((c[0] == ':' && c[1] == ' ') || (c[0] == ' ' && c[1] == '#')) return 0;
  }
  return 1;
}

/* A double-quoted scalar: always read back as the same string. */
static void emit_quoted(vs_sbuf *b, const sn_node *n) {
  vs_sbuf_puts(b, "\"");
  for (size_t i = 0; i < n->len; i++) {
    unsigned char c = (unsigned char)n->text[i];
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      vs_sbuf_add(b, esc, 2);
    } else if (c == '\n') {
      vs_sbuf_puts(b, "\\n");
    } else if (c == '\t') {
      vs_sbuf_puts(b, "\\t");
    } else if (c < 0x20 || c == 0x7f) {
      snprintf(esc, sizeof esc, "\\x%02x", c);
      vs_sbuf_puts(b, esc);
    } else {
      vs_sbuf_add(b, (const char *)&c, 1);
    }
  }
  vs_sbuf_puts(b, "\"");
}

static void emit_flow(vs_sbuf *b, const sn_node *n) {
  if (n->kind == SN_SCALAR) {
    if (vs_sn_is_null(n))
      vs_sbuf_puts(b, "~");
    else if (!n->quoted && flow_safe_plain(n))
      vs_sbuf_add(b, n->text, n->len);
    else
      emit_quoted(b, n);
    return;
  }
  int map = n->kind == SN_MAP;
  vs_sbuf_puts(b, map ? "{" : "[");
  for (size_t i = 0; i < n->n; i++) {
    /* no spaces in sequences: "[0,-1.62,0]" is one shell word */
    if (i) vs_sbuf_puts(b, map && i % 2 == 1 ? ": " : map ? ", " : ",");
    emit_flow(b, n->kids[i]);
  }
  vs_sbuf_puts(b, map ? "}" : "]");
}

/* ---- loading -------------------------------------------------------------- */

typedef struct lctx {
  vs_sn_src src;
  vs_error *err;
} lctx;

static vs_status fail(lctx *c, vs_status code, const sn_node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static vs_status fail(lctx *c, vs_status code, const sn_node *at, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vs_sn_fail(&c->src, c->err, code, 0, at ? at->line : 0, at ? at->col : 0, "%s", msg);
}

/* "'text'" of a scalar, or what kind of node it is, for messages. */
static const char *got(const sn_node *n, char *buf, size_t size) {
  if (!n) return "nothing";
  if (n->kind == SN_SEQ) return "a list";
  if (n->kind == SN_MAP) return "a mapping";
  if (vs_sn_is_null(n)) return "nothing";
  snprintf(buf, size, "'%.60s%s'", n->text, n->len > 60 ? "..." : "");
  return buf;
}

/* Directory part of `file` joined to `rel`, unless rel is absolute or the
 * file has no directory part. */
static char *join_relative(const char *file, const char *rel) {
  const char *slash = file ? strrchr(file, '/') : NULL;
  if (rel[0] == '/' || !slash) return vs_strdup(rel);
  size_t dl = (size_t)(slash - file) + 1, rl = strlen(rel);
  char *p = vs_malloc(dl + rl + 1);
  if (!p) return NULL;
  memcpy(p, file, dl);
  memcpy(p + dl, rel, rl + 1);
  return p;
}

static vs_status load_scene_key(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  if (!v || v->kind != SN_SCALAR || vs_sn_is_null(v) || strlen(v->text) != v->len)
    return fail(c, VS_ERR_SCENE, v, "scene: expected the path of a scene file, got %s",
                got(v, g, sizeof g));
  if (!strcmp(v->text, "-"))
    return fail(c, VS_ERR_SCENE, v, "scene: a sweep cannot read its scene from standard input");
  s->scene = join_relative(c->src.file, v->text);
  if (!s->scene) return fail(c, VS_ERR_NOMEM, NULL, "out of memory");
  s->scene_loc.line = v->line;
  s->scene_loc.column = v->col;
  return VS_OK;
}

static vs_status load_frames(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  int ok = v && v->kind == SN_SCALAR && !v->quoted && v->len > 0 && v->len <= 10;
  int64_t x = 0;
  for (size_t i = 0; ok && i < v->len; i++) {
    ok = v->text[i] >= '0' && v->text[i] <= '9';
    x = x * 10 + (v->text[i] - '0');
  }
  if (!ok || x > VS_MAX_FRAMES)
    return fail(c, VS_ERR_SCENE, v, "frames: expected an integer in [0, %d], got %s", VS_MAX_FRAMES,
                got(v, g, sizeof g));
  s->frames = x;
  return VS_OK;
}

static vs_status load_mode(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  if (v && v->kind == SN_SCALAR && !strcmp(v->text, "grid")) {
    s->mode = VS_SWEEP_GRID;
  } else if (v && v->kind == SN_SCALAR && !strcmp(v->text, "zip")) {
    s->mode = VS_SWEEP_ZIP;
  } else {
    const char *near = NULL;
    if (v && v->kind == SN_SCALAR) {
      if (vs_edit_distance(v->text, "grid", 2) <= 2)
        near = "grid";
      else if (vs_edit_distance(v->text, "zip", 2) <= 1)
        near = "zip";
    }
    if (near)
      return fail(c, VS_ERR_SCENE, v, "mode: expected grid or zip, got %s (did you mean '%s'?)",
                  got(v, g, sizeof g), near);
    return fail(c, VS_ERR_SCENE, v, "mode: expected grid or zip, got %s", got(v, g, sizeof g));
  }
  return VS_OK;
}

/* A key must be what `--set KEY=VALUE` can address: no '=', no empty
 * component, no blanks. */
static vs_status check_key(lctx *c, const sn_node *k) {
  char g[96];
  const char *t = k->text;
  int ok =
      k->len > 0 && strlen(t) == k->len && t[0] != '.' && t[k->len - 1] != '.' && !strstr(t, "..");
  for (const char *p = t; ok && *p; p++) ok = *p != '=' && *p != ' ' && *p != '\t';
  if (!ok)
    return fail(c, VS_ERR_SCENE, k,
                "parameters: expected a dotted scene key such as solver.iterations, got %s",
                got(k, g, sizeof g));
  return VS_OK;
}

static vs_status load_param(lctx *c, const sn_node *k, const sn_node *v, vs_sweep_param *p) {
  char g[96];
  vs_status st = check_key(c, k);
  if (st) return st;
  if (!v || v->kind != SN_SEQ || v->n == 0)
    return fail(c, VS_ERR_SCENE, v && !vs_sn_is_null(v) ? v : k,
                "%s: expected a non-empty list of values, got %s%s", k->text,
                v && v->kind == SN_SEQ ? "an empty list" : got(v, g, sizeof g),
                v && v->kind == SN_SCALAR && !vs_sn_is_null(v) ? " (write [value] for one)" : "");
  if (v->n > VS_MAX_SWEEP_POINTS)
    return fail(c, VS_ERR_LIMIT, v, "%s: more than %d values", k->text, VS_MAX_SWEEP_POINTS);
  if (!(p->key = vs_strdup(k->text))) goto nomem;
  p->loc.line = k->line;
  p->loc.column = k->col;
  p->values = vs_calloc(v->n, sizeof *p->values);
  p->value_locs = vs_calloc(v->n, sizeof *p->value_locs);
  if (!p->values || !p->value_locs) goto nomem;
  p->n_values = v->n;
  /* Each value is kept once, as its YAML text; the key is not copied into
   * it (the "KEY=VALUE" of a point is made when asked for,
   * vs_sweep_set_text), so that what a sweep holds grows with its file, not
   * with the key's length times the values' count. */
  for (size_t i = 0; i < v->n; i++) {
    const sn_node *item = v->kids[i];
    vs_sbuf b = {0};
    b.limit = VS_MAX_SWEEP_VALUE;
    emit_flow(&b, item);
    if (b.bad == VS_SBUF_LIMIT) {
      vs_free(b.p);
      return fail(c, VS_ERR_LIMIT, item, "%s: a value longer than %d bytes as YAML", k->text,
                  VS_MAX_SWEEP_VALUE);
    }
    if (b.bad) {
      vs_free(b.p);
      goto nomem;
    }
    /* the buffer grew by doubling: keep only the text */
    char *text = vs_realloc(b.p, b.n + 1);
    p->values[i] = text ? text : b.p;
    p->value_locs[i].line = item->line;
    p->value_locs[i].column = item->col;
  }
  return VS_OK;
nomem:
  return fail(c, VS_ERR_NOMEM, NULL, "out of memory");
}

static vs_status load_params(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  if (!v || v->kind != SN_MAP || v->n == 0)
    return fail(c, VS_ERR_SCENE, v,
                "parameters: expected a mapping of scene keys to lists of values "
                "(solver.iterations: [5, 10]), got %s",
                v && v->kind == SN_MAP ? "an empty mapping" : got(v, g, sizeof g));
  size_t n = v->n / 2;
  if (n > VS_MAX_SWEEP_PARAMS)
    return fail(c, VS_ERR_LIMIT, v, "parameters: more than %d keys", VS_MAX_SWEEP_PARAMS);
  s->params = vs_calloc(n, sizeof *s->params);
  if (!s->params) return fail(c, VS_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const sn_node *k = v->kids[2 * i];
    for (size_t j = 0; j < i; j++)
      if (!strcmp(s->params[j].key, k->text))
        return fail(c, VS_ERR_SCENE, k, "%s: swept twice (first at line %d)", k->text,
                    s->params[j].loc.line);
    vs_status st = load_param(c, k, v->kids[2 * i + 1], &s->params[i]);
    s->n_params = i + 1; /* so that vs_sweep_free releases what was loaded */
    if (st) return st;
  }
  return VS_OK;
}

/* Count the points: the product of the list lengths (grid) or their common
 * length (zip). */
static vs_status count_points(lctx *c, const sn_node *params, vs_sweep *s) {
  size_t n = 1;
  for (size_t i = 0; i < s->n_params; i++) {
    size_t k = s->params[i].n_values;
    if (s->mode == VS_SWEEP_ZIP) {
      if (k != s->params[0].n_values) {
        const sn_node *at = params->kids[2 * i];
        return fail(c, VS_ERR_SCENE, at,
                    "%s: %zu values, but %s has %zu; mode zip takes the k-th value of every "
                    "list, so they must have the same length (or use mode: grid)",
                    s->params[i].key, k, s->params[0].key, s->params[0].n_values);
      }
      n = k;
    } else {
      if (n > VS_MAX_SWEEP_POINTS / k)
        return fail(c, VS_ERR_LIMIT, params, "parameters: the grid has more than %d points",
                    VS_MAX_SWEEP_POINTS);
      n *= k;
    }
  }
  s->n_points = n;
  return VS_OK;
}

/* A column name: what pandas takes as an attribute too, and no clash with
 * the fixed columns or a parameter. */
static const char *const fixed_columns[] = {"point", "status", "final_constraint_error",
                                            "wall_seconds", "file", NULL};

static vs_status load_collect_item(lctx *c, const sn_node *k, const sn_node *v, vs_sweep *s,
                                   vs_sweep_collect *o) {
  char g[96];
  int ok = k->kind == SN_SCALAR && k->len > 0 && k->len <= 64 && strlen(k->text) == k->len &&
           !(k->text[0] >= '0' && k->text[0] <= '9');
  for (const char *p = k->text; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
         *p == '_';
  if (!ok)
    return fail(c, VS_ERR_SCENE, k,
                "collect: expected a column name (letters, digits and _, not starting with a "
                "digit, at most 64), got %s",
                got(k, g, sizeof g));
  for (size_t i = 0; fixed_columns[i]; i++)
    if (!strcmp(k->text, fixed_columns[i]))
      return fail(c, VS_ERR_SCENE, k, "collect: '%s' is a column of every summary.csv already",
                  k->text);
  for (size_t i = 0; i < s->n_params; i++)
    if (!strcmp(k->text, s->params[i].key))
      return fail(c, VS_ERR_SCENE, k, "collect: '%s' is a swept parameter's column already",
                  k->text);
  if (!v || v->kind != SN_SCALAR || vs_sn_is_null(v) || strlen(v->text) != v->len)
    return fail(c, VS_ERR_SCENE, v && !vs_sn_is_null(v) ? v : k,
                "collect.%s: expected a reduction such as \"max /observables/energy_kinetic\", "
                "got %s",
                k->text, got(v, g, sizeof g));
  if (!(o->name = vs_strdup(k->text)) || !(o->text = vs_strdup(v->text)))
    return fail(c, VS_ERR_NOMEM, NULL, "out of memory");
  o->loc.line = k->line;
  o->loc.column = k->col;
  /* a quoted scalar's text starts one column after its quote */
  o->value_loc.line = v->line;
  o->value_loc.column = v->col + (v->quoted ? 1 : 0);
  char why[300];
  size_t at = 0;
  if (vs_reduction_parse(v->text, &o->r, why, sizeof why, &at) != VS_OK) {
    int single_line = !strchr(v->text, '\n');
    /* the column of the fault: exact for text on one line without escapes */
    int col = o->value_loc.column + (single_line && at <= 4096 ? (int)at : 0);
    return vs_sn_fail(&c->src, c->err, VS_ERR_SCENE, 0, v->line, col, "collect.%s: %s", k->text,
                      why);
  }
  return VS_OK;
}

static vs_status load_collect(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  if (vs_sn_is_null(v)) return VS_OK;
  if (v->kind != SN_MAP)
    return fail(c, VS_ERR_SCENE, v,
                "collect: expected a mapping of column names to reductions "
                "(e_max: max /observables/energy_kinetic), got %s",
                got(v, g, sizeof g));
  size_t n = v->n / 2;
  if (n > VS_MAX_SWEEP_COLLECT)
    return fail(c, VS_ERR_LIMIT, v, "collect: more than %d columns", VS_MAX_SWEEP_COLLECT);
  if (n == 0) return VS_OK;
  s->collect = vs_calloc(n, sizeof *s->collect);
  if (!s->collect) return fail(c, VS_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const sn_node *k = v->kids[2 * i];
    for (size_t j = 0; j < i; j++)
      if (k->kind == SN_SCALAR && !strcmp(s->collect[j].name, k->text))
        return fail(c, VS_ERR_SCENE, k, "collect.%s: named twice (first at line %d)", k->text,
                    s->collect[j].loc.line);
    s->n_collect = i + 1; /* so that vs_sweep_free releases what was loaded */
    vs_status st = load_collect_item(c, k, v->kids[2 * i + 1], s, &s->collect[i]);
    if (st) return st;
  }
  return VS_OK;
}

static vs_status load_xdmf(lctx *c, const sn_node *v, vs_sweep *s) {
  char g[96];
  if (v && v->kind == SN_SCALAR && !v->quoted && !strcmp(v->text, "true"))
    s->xdmf = 1;
  else if (v && v->kind == SN_SCALAR && !v->quoted && !strcmp(v->text, "false"))
    s->xdmf = 0;
  else
    return fail(c, VS_ERR_SCENE, v,
                "xdmf: expected true (every point writes its .xmf sidecar) or false, got %s",
                got(v, g, sizeof g));
  return VS_OK;
}

static const char *const top_keys[] = {"scene",   "frames", "mode", "parameters",
                                       "collect", "xdmf",   NULL};

static vs_status load_tree(lctx *c, const sn_node *root, vs_sweep *s) {
  char g[96];
  if (!root || root->kind != SN_MAP)
    return fail(c, VS_ERR_SCENE, root,
                "expected a mapping with scene, parameters and optionally frames and mode, "
                "got %s",
                got(root, g, sizeof g));
  const sn_node *scene = NULL, *frames = NULL, *mode = NULL, *params = NULL, *collect = NULL,
                *xdmf = NULL;
  for (size_t i = 0; i + 1 < root->n; i += 2) {
    const sn_node *k = root->kids[i], *v = root->kids[i + 1];
    const sn_node **slot = NULL;
    if (!strcmp(k->text, "scene"))
      slot = &scene;
    else if (!strcmp(k->text, "frames"))
      slot = &frames;
    else if (!strcmp(k->text, "mode"))
      slot = &mode;
    else if (!strcmp(k->text, "parameters"))
      slot = &params;
    else if (!strcmp(k->text, "collect"))
      slot = &collect;
    else if (!strcmp(k->text, "xdmf"))
      slot = &xdmf;
    for (size_t j = 0; slot && j < i; j += 2)
      if (!strcmp(root->kids[j]->text, k->text))
        return fail(c, VS_ERR_SCENE, k, "duplicate key '%s' (first at line %d)", k->text,
                    root->kids[j]->line);
    if (!slot) {
      const char *near = NULL;
      for (size_t j = 0; top_keys[j] && !near; j++)
        if (vs_edit_distance(k->text, top_keys[j], 2) <= 2 && k->len > 2) near = top_keys[j];
      if (near)
        return fail(c, VS_ERR_SCENE, k, "unknown key '%s', did you mean '%s'?", k->text, near);
      return fail(c, VS_ERR_SCENE, k,
                  "unknown key '%s' (expected one of: scene, frames, mode, parameters, collect, xdmf; "
                  "swept scene keys go under parameters)",
                  k->text);
    }
    *slot = v;
  }
  vs_status st;
  if (!scene) return fail(c, VS_ERR_SCENE, root, "scene: missing (the scene file to sweep)");
  if ((st = load_scene_key(c, scene, s))) return st;
  if (frames && !vs_sn_is_null(frames) && (st = load_frames(c, frames, s))) return st;
  if (mode && (st = load_mode(c, mode, s))) return st;
  if (xdmf && !vs_sn_is_null(xdmf) && (st = load_xdmf(c, xdmf, s))) return st;
  if (!params)
    return fail(c, VS_ERR_SCENE, root, "parameters: missing (scene keys and their values)");
  if ((st = load_params(c, params, s))) return st;
  for (size_t i = 0; s->xdmf >= 0 && i < s->n_params; i++)
    if (!strcmp(s->params[i].key, "output.xdmf"))
      return fail(c, VS_ERR_SCENE, xdmf, "xdmf: also swept as output.xdmf (line %d); keep one of the two",
                  s->params[i].loc.line);
  /* --frames is applied after every --set, so it would silently win. */
  for (size_t i = 0; s->frames >= 0 && i < s->n_params; i++)
    if (!strcmp(s->params[i].key, "time.frames"))
      return fail(c, VS_ERR_SCENE, frames,
                  "frames: also swept as time.frames (line %d); keep one of the two",
                  s->params[i].loc.line);
  if ((st = count_points(c, params, s))) return st;
  if (collect && (st = load_collect(c, collect, s))) return st;
  return VS_OK;
}

vs_status vs_sweep_load_string(const char *text, size_t len, const char *file, vs_sweep **out,
                               vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!text || !out)
    return vs_error_set(err, VS_ERR_USAGE, file, 0, 0, "vs_sweep_load_string: bad arguments");
  lctx c = {{file ? file : "<string>", NULL, 0}, err};
  vs_sweep *s = vs_calloc(1, sizeof *s);
  if (!s || !(s->file = vs_strdup(c.src.file))) {
    vs_free(s);
    return vs_error_set(err, VS_ERR_NOMEM, c.src.file, 0, 0, "out of memory");
  }
  s->frames = -1;
  s->xdmf = -1;
  s->mode = VS_SWEEP_GRID;
  sn_node *root = NULL;
  vs_status st = vs_sn_parse(&c.src, text, len, 0, VS_ERR_SCENE, &root, err);
  if (st == VS_OK) st = load_tree(&c, root, s);
  vs_sn_free(root);
  if (st != VS_OK) {
    vs_sweep_free(s);
    return st;
  }
  *out = s;
  return VS_OK;
}

vs_status vs_sweep_load_file(const char *path, vs_sweep **out, vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_sweep_load_file: bad arguments");
  char *buf;
  size_t n;
  vs_status rd = vs_read_file(path, "sweep file", VS_MAX_SCENE_BYTES, &buf, &n, err);
  if (rd != VS_OK) return rd;
  vs_status st = vs_sweep_load_string(buf, n, path, out, err);
  vs_free(buf);
  return st;
}

void vs_sweep_free(vs_sweep *s) {
  if (!s) return;
  for (size_t i = 0; s->params && i < s->n_params; i++) {
    vs_sweep_param *p = &s->params[i];
    for (size_t j = 0; p->values && j < p->n_values; j++) vs_free(p->values[j]);
    vs_free(p->values);
    vs_free(p->value_locs);
    vs_free(p->key);
  }
  vs_free(s->params);
  for (size_t i = 0; s->collect && i < s->n_collect; i++) {
    vs_free(s->collect[i].name);
    vs_free(s->collect[i].text);
  }
  vs_free(s->collect);
  vs_free(s->scene);
  vs_free(s->file);
  vs_free(s);
}

size_t vs_sweep_value_index(const vs_sweep *s, size_t point, size_t param) {
  if (s->mode == VS_SWEEP_ZIP) return point;
  /* Mixed radix with the last parameter as the lowest digit. */
  for (size_t i = s->n_params; i-- > param + 1;) point /= s->params[i].n_values;
  return point % s->params[param].n_values;
}

char *vs_sweep_set_text(const vs_sweep *s, size_t point, size_t param) {
  const vs_sweep_param *p = &s->params[param];
  const char *v = p->values[vs_sweep_value_index(s, point, param)];
  size_t kl = strlen(p->key), vl = strlen(v);
  char *t = vs_malloc(kl + 1 + vl + 1);
  if (!t) return NULL;
  memcpy(t, p->key, kl);
  t[kl] = '=';
  memcpy(t + kl + 1, v, vl + 1);
  return t;
}

const char *vs_sweep_xdmf_set(const vs_sweep *s) {
  return s->xdmf < 0 ? NULL : s->xdmf ? "output.xdmf=true" : "output.xdmf=false";
}
