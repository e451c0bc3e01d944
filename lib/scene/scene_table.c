/* SPDX-License-Identifier: MIT */
/* scene_table.c: the engine that reads and writes scenes from the key
 * table (scene_keys.c): defaults, the check of every mapping's keys, each
 * value by its type, and the emitter of the resolved scene.
 *
 * Defaults are the rows' YAML text, parsed once per load into a template
 * per (scope, kind) with the very code that reads the scene, so that a
 * default cannot mean one thing in the docs and another in the loader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

static size_t scope_size(int scope) {
  switch (scope) {
    case SKS_SCENE:
      return sizeof(vs_scene);
    case SKS_BODY:
      return sizeof(vs_body_desc);
    case SKS_COLLIDER:
      return sizeof(vs_collider_desc);
    case SKS_CONSTRAINT:
      return sizeof(vs_constraint_desc);
    case SKS_RSOLVER:
      return sizeof(vs_rigid_solver_desc);
    default:
      return sizeof(vs_link_desc);
  }
}

/* The kind field of an item, so that hooks see it while defaults load. */
static void set_kind(int scope, int kind, void *base) {
  if (scope == SKS_BODY) ((vs_body_desc *)base)->kind = (vs_body_kind)kind;
  if (scope == SKS_COLLIDER) ((vs_collider_desc *)base)->kind = (vs_collider_kind)kind;
  if (scope == SKS_CONSTRAINT) ((vs_constraint_desc *)base)->kind = (vs_kind)kind;
}

static vs_status load_row(vctx *c, const sk_row *r, int kind, const sn_node *m, const sn_node *at,
                          void *base, int checks);

/* The defaults of the rows of (scope, kind) into base; a nested mapping's
 * are its rows' (the mapping's own `def` is for the docs). */
static vs_status fill_rows(vctx *c, int scope, int kind, void *base) {
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (!sk_applies(r, scope, kind)) continue;
    if (r->type == SK_MAP) {
      TRY(fill_rows(c, r->sub, kind, base));
      continue;
    }
    if (!r->def) continue;
    char text[256];
    snprintf(text, sizeof text, "%s: %s", sk_key(r), r->def);
    sn_node *m = NULL;
    vs_sn_src src = {"<default>", NULL, 0};
    vs_status st = vs_sn_parse(&src, text, strlen(text), 0, VS_ERR_SCENE, &m, c->err);
    if (st == VS_OK) {
      size_t mk = c->plen;
      st = load_row(c, r, kind, m, m, base, 0);
      sk_pop(c, mk);
    }
    vs_sn_free(m);
    if (st) return st;
  }
  return VS_OK;
}

/* The rows' defaults into base (zero first). */
static vs_status fill_defaults(vctx *c, int scope, int kind, void *base) {
  memset(base, 0, scope_size(scope));
  set_kind(scope, kind, base);
  return fill_rows(c, scope, kind, base);
}

vs_status sk_defaults(vctx *c, int scope, int kind, void *base) {
  if (scope == SKS_SCENE) return fill_defaults(c, scope, kind, base);
  int slot = scope * 8 + kind;
  if (slot < 0 || slot >= SK_TEMPLATES || kind >= 8) return fill_defaults(c, scope, kind, base);
  if (!c->tmpl[slot]) {
    void *t = vs_malloc(scope_size(scope));
    if (!t) return sk_nomem(c);
    vs_status st = fill_defaults(c, scope, kind, t);
    if (st) {
      vs_free(t);
      return st;
    }
    c->tmpl[slot] = t;
  }
  memcpy(base, c->tmpl[slot], scope_size(scope));
  return VS_OK;
}

void sk_free_templates(vctx *c) {
  for (int i = 0; i < SK_TEMPLATES; i++) {
    vs_free(c->tmpl[i]);
    c->tmpl[i] = NULL;
  }
}

/* A link family: `none`, or a mapping of SKS_LINK rows. */
static vs_status link_val(vctx *c, const sn_node *v, vs_link_desc *l) {
  TRY(sk_defaults(c, SKS_LINK, 0, l));
  if (sk_is_word(v, "none") && !v->quoted) {
    l->enabled = 0;
    return VS_OK;
  }
  if (v && v->kind == SN_MAP) {
    l->enabled = 1;
    return sk_load_rows(c, SKS_LINK, 0, v, v, l);
  }
  char g[96];
  return sk_fail(c, VS_ERR_SCENE, v, "expected a mapping {stiffness, compliance} or none, got %s",
                 sk_got(v, g, sizeof g));
}

/* A nested mapping: the rows of r->sub for this kind, into the item's own
 * struct (the keys not given keep their defaults); null is `{}`. */
static vs_status map_val(vctx *c, const sk_row *r, int kind, const sn_node *v, void *base) {
  if (v && v->kind != SN_MAP && !vs_sn_is_null(v)) {
    char g[96], keys[256];
    sk_scope_keys(r->sub, kind, keys, sizeof keys);
    return sk_fail(c, VS_ERR_SCENE, v, "expected a mapping %s, got %s", keys,
                   sk_got(v, g, sizeof g));
  }
  return sk_load_rows(c, r->sub, kind, v && v->kind == SN_MAP ? v : NULL, v, base);
}

static vs_status value(vctx *c, const sk_row *r, int kind, const sn_node *v, void *base) {
  char *p = (char *)base + r->off;
  char g[96];
  switch (r->type) {
    case SK_NUM:
      return sk_num(c, v, r->range, (r->flags & SKF_TIME) != 0, (double *)p);
    case SK_INT:
      return sk_int(c, v, r->irange, r->what, (int64_t *)p);
    case SK_I32: {
      int64_t x = 0;
      TRY(sk_int(c, v, r->irange, r->what, &x));
      *(int *)p = (int)x;
      return VS_OK;
    }
    case SK_BOOL:
      return sk_bool(c, v, (int *)p);
    case SK_ENUM:
      return sk_enum(c, v, r->names, (int *)p);
    case SK_FLAGS: {
      if (v->kind != SN_SEQ)
        return sk_fail(c, VS_ERR_SCENE, v, "expected a list of field names, got %s",
                       sk_got(v, g, sizeof g));
      unsigned mask = 0;
      for (size_t i = 0; i < v->n; i++) {
        size_t mk = sk_push_index(c, i);
        int k;
        TRY(sk_enum(c, v->kids[i], r->names, &k));
        mask |= 1u << k;
        sk_pop(c, mk);
      }
      *(unsigned *)p = mask;
      return VS_OK;
    }
    case SK_VEC:
      return sk_vec(c, v, (size_t)r->n, r->range, 0, (double *)p);
    case SK_IVEC:
      if (v->kind != SN_SEQ || v->n != (size_t)r->n)
        return sk_fail(c, VS_ERR_SCENE, v, "expected a list of %d integers, got %s", r->n,
                       sk_got_list(v, g, sizeof g));
      for (int i = 0; i < r->n; i++) {
        size_t mk = sk_push_index(c, (size_t)i);
        TRY(sk_int(c, v->kids[i], r->irange, NULL, (int64_t *)p + i));
        sk_pop(c, mk);
      }
      return VS_OK;
    case SK_STR:
      return sk_str(c, v, r->what, p, (size_t)r->n);
    case SK_REF: {
      vs_ref *ref = (vs_ref *)p;
      TRY(sk_str(c, v, r->what, ref->text, sizeof ref->text));
      ref->loc = sk_loc(v);
      return VS_OK;
    }
    case SK_LINK:
      return link_val(c, v, (vs_link_desc *)p);
    case SK_MAP:
      return map_val(c, r, kind, v, base);
    case SK_HOOK:
      break;
  }
  return VS_OK;
}

static vs_status load_row(vctx *c, const sk_row *r, int kind, const sn_node *m, const sn_node *at,
                          void *base, int checks) {
  if (r->type == SK_HOOK) {
    TRY(r->load(c, r, m, at, base));
  } else {
    const char *key = sk_key(r);
    const sn_node *v = sk_get(m, key);
    if (!v && (r->flags & SKF_REQUIRED) && checks) return sk_missing(c, at, key);
    if (v) {
      size_t mk = sk_push(c, key);
      TRY(value(c, r, kind, v, base));
      if (r->flags & SKF_HAS) *(int *)((char *)base + r->has_off) = 1;
      sk_pop(c, mk);
    }
  }
  if (checks && r->check) TRY(r->check(c, r, m, at, base));
  return VS_OK;
}

enum { MAX_KEYS = 48 };

vs_status sk_load_rows(vctx *c, int scope, int kind, const sn_node *m, const sn_node *at,
                       void *base) {
  const char *known[MAX_KEYS + 1];
  size_t n = 0;
  for (size_t i = 0; i < vs_sk_n_rows && n < MAX_KEYS; i++)
    if (sk_applies(&vs_sk_rows[i], scope, kind)) known[n++] = sk_key(&vs_sk_rows[i]);
  known[n] = NULL;
  TRY(sk_check_keys(c, m, known));
  for (size_t i = 0; i < vs_sk_n_rows; i++)
    if (sk_applies(&vs_sk_rows[i], scope, kind))
      TRY(load_row(c, &vs_sk_rows[i], kind, m, at, base, 1));
  return VS_OK;
}

/* The section of a scene row ("time" of "time.dt"), n = its length; 0 for
 * a top-level key. */
static size_t section_len(const sk_row *r) {
  const char *dot = strchr(r->path, '.');
  return dot ? (size_t)(dot - r->path) : 0;
}

static int same_section(const sk_row *a, const sk_row *b) {
  size_t n = section_len(a);
  return n && n == section_len(b) && !strncmp(a->path, b->path, n);
}

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

vs_status sk_load_scene(vctx *c, const sn_node *root, vs_scene *s) {
  /* The top-level keys: each key without a section, and each section once. */
  const char *top[MAX_KEYS + 1];
  char names[MAX_KEYS][32];
  size_t nt = 0;
  for (size_t i = 0; i < vs_sk_n_rows && nt < MAX_KEYS; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (r->scope != SKS_SCENE || (i > 0 && same_section(r, r - 1))) continue;
    size_t n = section_len(r);
    snprintf(names[nt], sizeof names[nt], "%.*s", (int)(n ? n : strlen(r->path)), r->path);
    top[nt] = names[nt];
    nt++;
  }
  top[nt] = NULL;

  char *file = s->file, *text = s->text;
  size_t text_len = s->text_len;
  vs_status st = sk_defaults(c, SKS_SCENE, 0, s);
  s->file = file; /* the defaults start from zero: keep what the caller owns */
  s->text = text;
  s->text_len = text_len;
  if (st) return st;
  default_name(c->file_arg, s->name, sizeof s->name);
  TRY(sk_check_keys(c, root, top));

  const sn_node *m = NULL;
  size_t mark = 0;
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (r->scope != SKS_SCENE) continue;
    size_t n = section_len(r);
    if (!n) {
      TRY(load_row(c, r, 0, root, root, s, 1));
      continue;
    }
    if (i == 0 || !same_section(r, r - 1)) { /* a new section */
      char sec[32];
      snprintf(sec, sizeof sec, "%.*s", (int)n, r->path);
      mark = sk_push(c, sec);
      TRY(sk_as_map(c, sk_get(root, sec), &m));
      const char *known[MAX_KEYS + 1];
      size_t nk = 0;
      for (size_t j = i; j < vs_sk_n_rows && nk < MAX_KEYS && same_section(&vs_sk_rows[j], r); j++)
        known[nk++] = sk_key(&vs_sk_rows[j]);
      known[nk] = NULL;
      TRY(sk_check_keys(c, m, known));
    }
    TRY(load_row(c, r, 0, m, m, s, 1));
    if (i + 1 == vs_sk_n_rows || !same_section(r + 1, r)) sk_pop(c, mark);
  }
  return VS_OK;
}

/* ---- emitting -------------------------------------------------------------- */

static void emit_value(sbuf *b, const sk_row *r, int kind, const void *base) {
  const char *p = (const char *)base + r->off;
  switch (r->type) {
    case SK_NUM:
      sk_put_num(b, *(const double *)p);
      break;
    case SK_INT:
      sk_put(b, "%lld", (long long)*(const int64_t *)p);
      break;
    case SK_I32:
      sk_put(b, "%d", *(const int *)p);
      break;
    case SK_BOOL:
      sk_put(b, "%s", *(const int *)p ? "true" : "false");
      break;
    case SK_ENUM: {
      int v = *(const int *)p, n = 0;
      while (r->names[n]) n++;
      sk_put(b, "%s", r->names[v >= 0 && v < n ? v : 0]);
      break;
    }
    case SK_FLAGS: {
      unsigned mask = *(const unsigned *)p;
      int first = 1;
      sk_put(b, "[");
      for (int i = 0; r->names[i]; i++) {
        if (mask & (1u << i)) {
          sk_put(b, "%s%s", first ? "" : ", ", r->names[i]);
          first = 0;
        }
      }
      sk_put(b, "]");
      break;
    }
    case SK_VEC:
      sk_put_vec(b, (const double *)p, (size_t)r->n);
      break;
    case SK_IVEC:
      sk_put(b, "[");
      for (int i = 0; i < r->n; i++)
        sk_put(b, "%s%lld", i ? ", " : "", (long long)((const int64_t *)p)[i]);
      sk_put(b, "]");
      break;
    case SK_STR:
      sk_put_str(b, p);
      break;
    case SK_REF:
      sk_put_str(b, ((const vs_ref *)p)->text);
      break;
    case SK_LINK: {
      const vs_link_desc *l = (const vs_link_desc *)p;
      if (!l->enabled) {
        sk_put(b, "none");
      } else {
        sk_put(b, "{");
        sk_emit_rows(b, SKS_LINK, 0, l, 1, "");
        sk_put(b, "}");
      }
      break;
    }
    case SK_MAP:
      sk_put(b, "{");
      sk_emit_rows(b, r->sub, kind, base, 1, "");
      sk_put(b, "}");
      break;
    case SK_HOOK:
      r->emit(b, r, base);
      break;
  }
}

static int omitted(const sk_row *r, const void *base) {
  if (r->omit && r->omit(base)) return 1;
  return (r->flags & SKF_HAS) && !*(const int *)((const char *)base + r->has_off);
}

void sk_emit_rows(sbuf *b, int scope, int kind, const void *base, int flow, const char *ind) {
  int first = 1;
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (!sk_applies(r, scope, kind) || omitted(r, base)) continue;
    if (flow)
      sk_put(b, "%s%s: ", first ? "" : ", ", sk_key(r));
    else
      sk_put(b, "%s%s: ", ind, sk_key(r));
    first = 0;
    emit_value(b, r, kind, base);
    if (!flow) sk_put(b, "\n");
  }
}

void sk_emit_scene(sbuf *b, const vs_scene *s) {
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (r->scope != SKS_SCENE || omitted(r, s)) continue;
    size_t n = section_len(r);
    if (n && (i == 0 || !same_section(r, r - 1))) sk_put(b, "%.*s:\n", (int)n, r->path);
    const char *ind = n ? "  " : "";
    if (r->flags & SKF_BLOCK) {
      sk_put(b, "%s%s:", ind, sk_key(r));
      r->emit(b, r, s); /* the rest of the line and the items */
      continue;
    }
    sk_put(b, "%s%s: ", ind, sk_key(r));
    emit_value(b, r, 0, s);
    sk_put(b, "\n");
  }
}
