/* SPDX-License-Identifier: MIT */
/* scene_yaml.c: YAML text -> sn_node tree, with our own limits.
 *
 * libyaml 0.2.5 has no nesting limit and its document API recurses, and
 * aliases can expand exponentially ("billion laughs"), so we build the tree
 * ourselves from the event stream:
 *   - nesting depth is checked at every sequence/mapping start;
 *   - every node, and every alias use at its expanded size, counts toward
 *     VS_MAX_YAML_NODES, so the check is arithmetic and nothing is expanded;
 *   - an alias to a node that is still open is a cycle and is rejected;
 *   - alias uses are capped by VS_MAX_YAML_ALIASES.
 * Positions from libyaml marks are 0-based; we store them 1-based. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

sn_node *vs_sn_new(int kind, int line, int col, int origin) {
  sn_node *n = vs_calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->line = line;
  n->col = col;
  n->origin = origin;
  n->refs = 1;
  n->weight = 1;
  n->height = kind == SN_SCALAR ? 0 : 1;
  return n;
}

sn_node *vs_sn_scalar(const char *text, size_t len, int quoted, int line, int col, int origin) {
  sn_node *n = vs_sn_new(SN_SCALAR, line, col, origin);
  if (!n) return NULL;
  n->text = vs_malloc(len + 1);
  if (!n->text) {
    vs_free(n);
    return NULL;
  }
  if (len) memcpy(n->text, text, len);
  n->text[len] = '\0';
  n->len = len;
  n->quoted = quoted;
  return n;
}

int vs_sn_append(sn_node *p, sn_node *kid) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 4;
    sn_node **k = vs_realloc(p->kids, cap * sizeof *k);
    if (!k) return -1;
    p->kids = k;
    p->cap = cap;
  }
  p->kids[p->n++] = kid;
  return 0;
}

void vs_sn_free(sn_node *n) {
  if (!n || --n->refs > 0) return;
  for (size_t i = 0; i < n->n; i++) vs_sn_free(n->kids[i]);
  vs_free(n->kids);
  vs_free(n->text);
  vs_free(n);
}

/* Copy one level: the copy owns new references to the same children, so
 * the caller may edit the copy's child slots without touching other users of
 * the shared node. */
int vs_sn_unshare(sn_node **slot) {
  sn_node *old = *slot;
  if (old->refs <= 1) return 0;
  sn_node *c = old->kind == SN_SCALAR ? vs_sn_scalar(old->text, old->len, old->quoted, old->line,
                                                     old->col, old->origin)
                                      : vs_sn_new(old->kind, old->line, old->col, old->origin);
  if (!c) return -1;
  if (old->n) {
    c->kids = vs_malloc(old->n * sizeof *c->kids);
    if (!c->kids) {
      vs_sn_free(c);
      return -1;
    }
    c->cap = c->n = old->n;
    for (size_t i = 0; i < old->n; i++) {
      c->kids[i] = old->kids[i];
      c->kids[i]->refs++;
    }
  }
  c->weight = old->weight;
  c->height = old->height;
  old->refs--;
  *slot = c;
  return 0;
}

int vs_sn_is_null(const sn_node *n) {
  if (!n || n->kind != SN_SCALAR || n->quoted) return 0;
  const char *t = n->text;
  return n->len == 0 || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
         !strcmp(t, "NULL");
}

vs_status vs_sn_fail(const vs_sn_src *src, vs_error *err, vs_status code, int origin, int line,
                     int col, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (origin > 0) {
    /* A value that came from the command line: there is no file position, so
     * name the argument itself. */
    const char *t = "";
    if (src && src->sets && (size_t)origin <= src->n_sets && src->sets[origin - 1].text)
      t = src->sets[origin - 1].text;
    /* A long override is shortened so that the reason still fits. */
    size_t n = strlen(t);
    return vs_error_set(err, code, "--set", 0, 0, "--set %.*s%s: %s", n > 100 ? 96 : (int)n, t,
                        n > 100 ? "..." : "", msg);
  }
  return vs_error_set(err, code, src && src->file ? src->file : "", line, col, "%s", msg);
}

typedef struct anchor {
  char *name;
  sn_node *node;
} anchor;

typedef struct pstate {
  const vs_sn_src *src;
  vs_error *err;
  int origin;
  sn_node *stack[VS_MAX_YAML_DEPTH];
  int depth;
  anchor *anchors;
  size_t n_anchors, cap_anchors;
  size_t nodes;   /* expanded node count so far */
  size_t aliases; /* alias uses so far */
  sn_node *root;
  const char *text; /* what is parsed, for positions at its end */
  size_t len;
} pstate;

/* The 0-based line and column of byte offset `off`, counted as libyaml
 * counts them: a line ends at LF, CR, CR LF, NEL, LS or PS; a column is a
 * character (UTF-8 continuation bytes do not count). */
static yaml_mark_t mark_at(const char *text, size_t off) {
  yaml_mark_t m = {0, 0, 0};
  const unsigned char *t = (const unsigned char *)text;
  for (size_t i = 0; i < off; i++) {
    size_t brk = 0; /* bytes of a line break starting at i */
    if (t[i] == '\n')
      brk = 1;
    else if (t[i] == '\r')
      brk = i + 1 < off && t[i + 1] == '\n' ? 2 : 1;
    else if (t[i] == 0xc2 && i + 1 < off && t[i + 1] == 0x85)
      brk = 2;
    else if (t[i] == 0xe2 && i + 2 < off && t[i + 1] == 0x80 && (t[i + 2] | 1) == 0xa9)
      brk = 3;
    if (brk) {
      m.line++;
      m.column = 0;
      i += brk - 1;
    } else if ((t[i] & 0xc0) != 0x80) {
      m.column++;
    }
  }
  m.index = off;
  return m;
}

/* libyaml puts the end of a text that lacks its last line break on the
 * line after it, which no editor shows: point just past the last character. */
static yaml_mark_t clamp_mark(const pstate *s, yaml_mark_t m) {
  yaml_mark_t end = mark_at(s->text, s->len);
  return m.line > end.line ? end : m;
}

static vs_status pfail(pstate *s, vs_status code, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static vs_status pfail(pstate *s, vs_status code, const yaml_mark_t *m, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  yaml_mark_t at = {0, 0, 0};
  if (m) at = clamp_mark(s, *m);
  return vs_sn_fail(s->src, s->err, code, s->origin, m ? (int)at.line + 1 : 0,
                    m ? (int)at.column + 1 : 0, "%s", msg);
}

static vs_status add_anchor(pstate *s, const yaml_char_t *name, sn_node *n) {
  if (!name) return VS_OK;
  if (s->n_anchors == s->cap_anchors) {
    size_t cap = s->cap_anchors ? s->cap_anchors * 2 : 8;
    anchor *a = vs_realloc(s->anchors, cap * sizeof *a);
    if (!a) return VS_ERR_NOMEM;
    s->anchors = a;
    s->cap_anchors = cap;
  }
  char *dup = vs_strdup((const char *)name);
  if (!dup) return VS_ERR_NOMEM;
  s->anchors[s->n_anchors].name = dup;
  s->anchors[s->n_anchors].node = n;
  s->n_anchors++;
  return VS_OK;
}

static sn_node *find_anchor(const pstate *s, const char *name) {
  /* Latest definition wins: YAML allows an anchor to be redefined. */
  for (size_t i = s->n_anchors; i-- > 0;)
    if (!strcmp(s->anchors[i].name, name)) return s->anchors[i].node;
  return NULL;
}

static vs_status count_nodes(pstate *s, size_t add, const yaml_mark_t *m) {
  if (add > VS_MAX_YAML_NODES || s->nodes + add > VS_MAX_YAML_NODES)
    return pfail(s, VS_ERR_LIMIT, m, "the document has more than %d YAML nodes (aliases expanded)",
                 VS_MAX_YAML_NODES);
  s->nodes += add;
  return VS_OK;
}

/* Attach n to the open container (or make it the root).  Takes ownership of
 * n: on failure n is released. */
static vs_status attach(pstate *s, sn_node *n, const yaml_mark_t *m) {
  if (s->depth == 0) {
    s->root = n;
    return VS_OK;
  }
  sn_node *p = s->stack[s->depth - 1];
  if (p->kind == SN_MAP && p->n % 2 == 0) {
    /* n is a key */
    if (n->kind != SN_SCALAR) {
      const char *what = n->kind == SN_SEQ ? "sequence" : "mapping";
      vs_sn_free(n);
      return pfail(s, VS_ERR_SCENE, m, "expected a scalar mapping key, got a %s", what);
    }
    if (!n->quoted && !strcmp(n->text, "<<")) {
      vs_sn_free(n);
      return pfail(s, VS_ERR_SCENE, m,
                   "merge keys ('<<') are not supported; write the keys out in full");
    }
  }
  if (vs_sn_append(p, n)) {
    vs_sn_free(n);
    return VS_ERR_NOMEM;
  }
  return VS_OK;
}

static vs_status syntax_error(pstate *s, yaml_parser_t *p, vs_status code, const char *text,
                              size_t len) {
  if (p->error == YAML_MEMORY_ERROR)
    return vs_sn_fail(s->src, s->err, VS_ERR_NOMEM, s->origin, 0, 0,
                      "out of memory while parsing YAML");
  const char *problem = p->problem ? p->problem : "syntax error";
  yaml_mark_t m = p->problem_mark;
  if (p->error == YAML_READER_ERROR) {
    /* Reader errors carry a byte offset, not a mark. */
    m = mark_at(text, p->problem_offset < len ? p->problem_offset : len);
    return pfail(s, code, &m, "invalid YAML: %s", problem);
  }
  /* libyaml says "found character that cannot start any token" for a TAB
   * used as indentation (YAML forbids it); say what is wrong instead. */
  if (p->error == YAML_SCANNER_ERROR && m.index < len && text[m.index] == '\t')
    return pfail(s, code, &m, "invalid YAML: tabs are not allowed for indentation in YAML; "
                 "use spaces");
  if (p->context) {
    yaml_mark_t c = clamp_mark(s, p->context_mark);
    return pfail(s, code, &m, "invalid YAML: %s (%s at line %d, column %d)", problem, p->context,
                 (int)c.line + 1, (int)c.column + 1);
  }
  return pfail(s, code, &m, "invalid YAML: %s", problem);
}

static int is_str_tag(const yaml_char_t *tag) {
  return tag && !strcmp((const char *)tag, YAML_STR_TAG);
}

/* Handle one event; *done is set at the end of the stream. */
static vs_status on_event(pstate *s, const yaml_event_t *ev, int *docs, int *done) {
  const yaml_mark_t *m = &ev->start_mark;
  int line = (int)m->line + 1, col = (int)m->column + 1;
  vs_status st;
  switch (ev->type) {
    case YAML_STREAM_END_EVENT:
      *done = 1;
      return VS_OK;
    case YAML_DOCUMENT_START_EVENT:
      if (++*docs > 1)
        return pfail(s, VS_ERR_SCENE, m, "expected a single YAML document, found a second one");
      return VS_OK;
    case YAML_SCALAR_EVENT: {
      if ((st = count_nodes(s, 1, m))) return st;
      int quoted =
          ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || is_str_tag(ev->data.scalar.tag);
      sn_node *n = vs_sn_scalar((const char *)ev->data.scalar.value, ev->data.scalar.length, quoted,
                                line, col, s->origin);
      if (!n) return VS_ERR_NOMEM;
      if ((st = attach(s, n, m))) return st;
      return add_anchor(s, ev->data.scalar.anchor, n);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      if (s->depth >= VS_MAX_YAML_DEPTH)
        return pfail(s, VS_ERR_LIMIT, m, "YAML nesting deeper than %d levels", VS_MAX_YAML_DEPTH);
      if ((st = count_nodes(s, 1, m))) return st;
      int seq = ev->type == YAML_SEQUENCE_START_EVENT;
      sn_node *n = vs_sn_new(seq ? SN_SEQ : SN_MAP, line, col, s->origin);
      if (!n) return VS_ERR_NOMEM;
      n->open = 1;
      if ((st = attach(s, n, m))) return st;
      s->stack[s->depth++] = n;
      return add_anchor(s, seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor, n);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
      sn_node *n = s->stack[--s->depth];
      size_t w = 1;
      int h = 0;
      for (size_t i = 0; i < n->n; i++) {
        w += n->kids[i]->weight;
        if (n->kids[i]->height > h) h = n->kids[i]->height;
      }
      n->weight = w;
      n->height = h + 1;
      n->open = 0;
      return VS_OK;
    }
    case YAML_ALIAS_EVENT: {
      const char *name = (const char *)ev->data.alias.anchor;
      sn_node *a = find_anchor(s, name);
      if (!a) return pfail(s, VS_ERR_SCENE, m, "unknown alias '*%s'", name);
      if (a->open)
        return pfail(s, VS_ERR_SCENE, m, "alias '*%s' refers to a node that contains it (a cycle)",
                     name);
      if (++s->aliases > VS_MAX_YAML_ALIASES)
        return pfail(s, VS_ERR_LIMIT, m, "more than %d alias uses", VS_MAX_YAML_ALIASES);
      if (s->depth + a->height > VS_MAX_YAML_DEPTH)
        return pfail(s, VS_ERR_LIMIT, m, "YAML nesting deeper than %d levels (alias '*%s')",
                     VS_MAX_YAML_DEPTH, name);
      if ((st = count_nodes(s, a->weight, m))) return st;
      a->refs++;
      return attach(s, a, m);
    }
    case YAML_NO_EVENT:
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_END_EVENT:
      return VS_OK;
  }
  return VS_OK;
}

vs_status vs_sn_parse(const vs_sn_src *src, const char *text, size_t len, int origin,
                      vs_status syntax_code, sn_node **root, vs_error *err) {
  return vs_sn_parse_budget(src, text, len, origin, syntax_code, NULL, root, err);
}

vs_status vs_sn_parse_budget(const vs_sn_src *src, const char *text, size_t len, int origin,
                             vs_status syntax_code, vs_sn_budget *budget, sn_node **root,
                             vs_error *err) {
  *root = NULL;
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p))
    return vs_sn_fail(src, err, VS_ERR_NOMEM, origin, 0, 0, "out of memory");
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  pstate s;
  memset(&s, 0, sizeof s);
  s.src = src;
  s.err = err;
  s.origin = origin;
  s.text = text;
  s.len = len;
  if (budget) {
    s.nodes = budget->nodes;
    s.aliases = budget->aliases;
  }
  int docs = 0, done = 0;
  vs_status st = VS_OK;
  while (!done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) {
      st = syntax_error(&s, &p, syntax_code, text, len);
      break;
    }
    st = on_event(&s, &ev, &docs, &done);
    yaml_event_delete(&ev);
    if (st == VS_ERR_NOMEM && err && err->code != VS_ERR_NOMEM)
      st = vs_sn_fail(src, err, VS_ERR_NOMEM, origin, 0, 0, "out of memory");
    if (st) break;
  }
  for (size_t i = 0; i < s.n_anchors; i++) vs_free(s.anchors[i].name);
  vs_free(s.anchors);
  yaml_parser_delete(&p);
  if (budget) {
    budget->nodes = s.nodes;
    budget->aliases = s.aliases;
  }
  if (st) {
    vs_sn_free(s.root); /* every node is attached to the root when created */
    return st;
  }
  *root = s.root;
  return VS_OK;
}
