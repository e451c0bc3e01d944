/* SPDX-License-Identifier: MIT */
/* scene_items.c: the `world.colliders` and `constraints` lists, and the
 * hooks of their irregular keys: the plane normal (normalised), box
 * corners (max > min), a distance's rest | min | max, a pin's at | keys,
 * an angle's limits. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

/* A list of kind items: `- KIND: {...}` each, at most max. */
static vs_status load_list(vctx *c, const sn_node *v, const char *what, const char *plural,
                           size_t max, const char *const *kinds, int scope, void **items,
                           size_t size, size_t *n, size_t loc_off) {
  char g[96];
  if (v->kind != SN_SEQ)
    return sk_fail(c, VS_ERR_SCENE, v, "expected a list of %s, got %s", plural,
                   sk_got(v, g, sizeof g));
  if (v->n > max)
    return sk_fail(c, VS_ERR_LIMIT, v, "expected at most %zu %s (the documented limit), got %zu",
                   max, plural, v->n);
  if (v->n) {
    *items = vs_calloc(v->n, size);
    if (!*items) return sk_nomem(c);
  }
  for (size_t i = 0; i < v->n; i++) {
    size_t mk = sk_push_index(c, i);
    char *d = (char *)*items + i * size;
    *n = i + 1;
    int kind;
    const sn_node *m, *at;
    TRY(sk_kind_item(c, v->kids[i], what, kinds, &kind, &m, &at));
    TRY(sk_defaults(c, scope, kind, d));
    *(vs_loc *)(d + loc_off) = sk_loc(v->kids[i]);
    TRY(sk_load_rows(c, scope, kind, m, at, d));
    sk_pop(c, mk);
  }
  return VS_OK;
}

/* ---- colliders -------------------------------------------------------------- */

vs_status sk_load_colliders(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_scene *s = base;
  const sn_node *v = sk_get(m, "colliders");
  if (!v || vs_sn_is_null(v)) return VS_OK;
  size_t mk = sk_push(c, "colliders");
  void *items = NULL;
  vs_status st =
      load_list(c, v, "collider", "colliders", VS_MAX_COLLIDERS, vs_sk_collider_kinds, SKS_COLLIDER,
                &items, sizeof *s->colliders, &s->n_colliders, offsetof(vs_collider_desc, loc));
  s->colliders = items;
  if (st) return st;
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_colliders(sbuf *b, const sk_row *r, const void *base) {
  const vs_scene *s = base;
  sk_put(b, "%s\n", s->n_colliders ? "" : " []");
  for (size_t i = 0; i < s->n_colliders; i++) {
    const vs_collider_desc *d = &s->colliders[i];
    sk_put(b, "    - %s: {", vs_sk_collider_kinds[d->kind]);
    sk_emit_rows(b, SKS_COLLIDER, (int)d->kind, d, 1, "");
    sk_put(b, "}\n");
  }
}

vs_status sk_check_normal(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base) {
  vs_collider_desc *d = base;
  double len = sqrt(d->b[0] * d->b[0] + d->b[1] * d->b[1] + d->b[2] * d->b[2]);
  if (!(len > 0) || !isfinite(len)) {
    sk_push(c, "normal");
    return sk_fail(c, VS_ERR_SCENE, sk_get(m, "normal"),
                   "expected a non-zero finite vector, got [%g, %g, %g]", d->b[0], d->b[1],
                   d->b[2]);
  }
  /* Normalise until the length is exactly 1 (or stops changing), so that
   * a normal written back out by vs_scene_to_yaml loads bit-identical. */
  for (int it = 0; it < 4 && len != 1.0; it++) {
    for (int i = 0; i < 3; i++) d->b[i] /= len;
    len = sqrt(d->b[0] * d->b[0] + d->b[1] * d->b[1] + d->b[2] * d->b[2]);
  }
  return VS_OK;
}

vs_status sk_check_box(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base) {
  const vs_collider_desc *d = base;
  for (int i = 0; i < 3; i++) {
    if (!(d->a[i] < d->b[i])) {
      size_t mk = sk_push(c, "max");
      vs_status st = sk_fail(c, VS_ERR_SCENE, sk_get(m, "max"),
                             "expected max > min on every axis, got max[%d] = %g <= min[%d] = %g",
                             i, d->b[i], i, d->a[i]);
      sk_pop(c, mk);
      return st;
    }
  }
  return VS_OK;
}

/* ---- constraints ------------------------------------------------------------ */

vs_status sk_load_constraints(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                              void *base) {
  vs_scene *s = base;
  const sn_node *v = sk_get(m, "constraints");
  if (!v || vs_sn_is_null(v)) return VS_OK;
  size_t mk = sk_push(c, "constraints");
  void *items = NULL;
  vs_status st = load_list(c, v, "constraint", "constraints", VS_MAX_EXPLICIT,
                           vs_sk_constraint_kinds, SKS_CONSTRAINT, &items, sizeof *s->constraints,
                           &s->n_constraints, offsetof(vs_constraint_desc, loc));
  s->constraints = items;
  if (st) return st;
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_constraints(sbuf *b, const sk_row *r, const void *base) {
  const vs_scene *s = base;
  sk_put(b, "%s\n", s->n_constraints ? "" : " []");
  for (size_t i = 0; i < s->n_constraints; i++) {
    const vs_constraint_desc *d = &s->constraints[i];
    sk_put(b, "  - %s: {", vs_sk_constraint_kinds[d->kind]);
    sk_emit_rows(b, SKS_CONSTRAINT, (int)d->kind, d, 1, "");
    sk_put(b, "}\n");
  }
}

/* distance: at most one of rest/min/max: a two-sided rest length, or a
 * one-sided limit (the min/max rows); none means rest: auto. */
vs_status sk_load_rest(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base) {
  static const char *const which[] = {"rest", "min", "max"};
  vs_constraint_desc *d = base;
  const sn_node *given = NULL;
  for (int i = 0; i < 3; i++) {
    const sn_node *v = sk_get(m, which[i]);
    if (!v) continue;
    if (given) {
      sk_push(c, which[i]);
      return sk_fail(c, VS_ERR_SCENE, v, "expected only one of rest, min, max, got %s too",
                     which[i]);
    }
    given = v;
  }
  const sn_node *rest = sk_get(m, "rest");
  d->rest_auto = !given || (rest && sk_is_word(rest, "auto"));
  if (rest && !d->rest_auto) {
    size_t mk = sk_push(c, "rest");
    TRY(sk_num(c, rest, R_NONNEG, 0, &d->rest));
    sk_pop(c, mk);
  }
  return VS_OK;
}

void sk_emit_rest(sbuf *b, const sk_row *r, const void *base) {
  const vs_constraint_desc *d = base;
  if (d->rest_auto)
    sk_put(b, "auto");
  else
    sk_put_num(b, d->rest);
}

int sk_rest_omitted(const void *base) {
  const vs_constraint_desc *d = base;
  return d->has_min || d->has_max;
}

/* A list of [t, a, b, c] keys, t strictly increasing (`form` names it in
 * messages): pins' keys, kinematic rigid bodies' keys (scene_body.c), world.wind_keys.  The
 * caller has pushed the key's name. */
vs_status sk_key_list(vctx *c, const sn_node *v, const char *form, double **out, size_t *n) {
  char g[96];
  if (v->kind != SN_SEQ || v->n == 0)
    return sk_fail(c, VS_ERR_SCENE, v, "expected a non-empty list of %s, got %s", form,
                   v->kind == SN_SEQ ? "an empty list" : sk_got(v, g, sizeof g));
  if (v->n > VS_MAX_KEYS)
    return sk_fail(c, VS_ERR_LIMIT, v, "expected at most %d keys (the documented limit), got %zu",
                   VS_MAX_KEYS, v->n);
  *out = vs_malloc(v->n * 4 * sizeof **out);
  if (!*out) return sk_nomem(c);
  *n = v->n;
  for (size_t i = 0; i < v->n; i++) {
    size_t mk2 = sk_push_index(c, i);
    double *k = &(*out)[4 * i];
    TRY(sk_vec(c, v->kids[i], 4, R_ANY, 1, k));
    if (i > 0 && !(k[0] > k[-4])) {
      sk_push_index(c, 0);
      return sk_fail(c, VS_ERR_SCENE, v->kids[i]->kids[0],
                     "expected a time after the previous key's %g, got %s", k[-4],
                     sk_got(v->kids[i]->kids[0], g, sizeof g));
    }
    sk_pop(c, mk2);
  }
  return VS_OK;
}

static void emit_key_list(sbuf *b, const double *keys, size_t n_keys) {
  sk_put(b, "[");
  for (size_t i = 0; i < n_keys; i++) {
    if (i) sk_put(b, ", ");
    sk_put_vec(b, &keys[4 * i], 4);
  }
  sk_put(b, "]");
}

/* pin: `keys`, a list of [t, x, y, z] with t strictly increasing (and not
 * with `at`). */
vs_status sk_load_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base) {
  vs_constraint_desc *d = base;
  const sn_node *v = sk_get(m, "keys");
  if (!v) return VS_OK;
  size_t mk = sk_push(c, "keys");
  if (sk_get(m, "at")) return sk_fail(c, VS_ERR_SCENE, v, "expected either at or keys, got both");
  TRY(sk_key_list(c, v, "[t, x, y, z]", &d->keys, &d->n_keys));
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_keys(sbuf *b, const sk_row *r, const void *base) {
  const vs_constraint_desc *d = base;
  emit_key_list(b, d->keys, d->n_keys);
}

int sk_no_keys(const void *base) {
  return !((const vs_constraint_desc *)base)->keys;
}

/* world.wind_keys: the wind's keys [t, x, y, z] (not with world.wind). */
vs_status sk_load_wind_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_scene *s = base;
  const sn_node *v = sk_get(m, "wind_keys");
  if (!v) return VS_OK;
  size_t mk = sk_push(c, "wind_keys");
  if (sk_get(m, "wind"))
    return sk_fail(c, VS_ERR_SCENE, v, "expected either wind or wind_keys, got both");
  TRY(sk_key_list(c, v, "[t, x, y, z]", &s->wind_keys, &s->n_wind_keys));
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_wind_keys(sbuf *b, const sk_row *r, const void *base) {
  const vs_scene *s = base;
  emit_key_list(b, s->wind_keys, s->n_wind_keys);
}

int sk_no_wind_keys(const void *base) { return !((const vs_scene *)base)->wind_keys; }
int sk_has_wind_keys(const void *base) { return ((const vs_scene *)base)->wind_keys != NULL; }

/* angle: min and/or max, min <= max. */
vs_status sk_check_angle(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                         void *base) {
  const vs_constraint_desc *d = base;
  if (!d->has_min && !d->has_max)
    return sk_fail(c, VS_ERR_SCENE, at, "expected min or max (degrees), got neither");
  if (d->has_min && d->has_max && d->min > d->max) {
    char g[96];
    sk_push(c, "max");
    return sk_fail(c, VS_ERR_SCENE, sk_get(m, "max"), "expected max >= min (%g), got %s", d->min,
                   sk_got(sk_get(m, "max"), g, sizeof g));
  }
  return VS_OK;
}

/* hinge, slider: the axis is not zero (its length does not matter). */
vs_status sk_check_axis(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                        void *base) {
  (void)r, (void)at;
  const vs_constraint_desc *d = base;
  if ((int)d->kind == VS_CONSTRAINT_BALL && !d->has_axis) return VS_OK;
  double len = sqrt(d->axis[0] * d->axis[0] + d->axis[1] * d->axis[1] + d->axis[2] * d->axis[2]);
  if (len > 0 && isfinite(len)) return VS_OK;
  sk_push(c, "axis");
  return sk_fail(c, VS_ERR_SCENE, sk_get(m, "axis"),
                 "expected a non-zero finite vector, got [%g, %g, %g]", d->axis[0], d->axis[1],
                 d->axis[2]);
}

/* hinge, slider: limits [lo, hi] with lo <= hi. */
vs_status sk_check_limits(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base) {
  (void)r, (void)at;
  const vs_constraint_desc *d = base;
  if (!d->has_limits || d->limits[0] <= d->limits[1]) return VS_OK;
  sk_push(c, "limits");
  return sk_fail(c, VS_ERR_SCENE, sk_get(m, "limits"), "expected lo <= hi, got [%g, %g]",
                 d->limits[0], d->limits[1]);
}

vs_status sk_check_ball_limits(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                               void *base) {
  (void)r;
  const vs_constraint_desc *d = base;
  if (d->has_limits && d->limits[0] > d->limits[1]) {
    sk_push(c, "twist");
    return sk_fail(c, VS_ERR_SCENE, sk_get(m, "twist"), "expected lo <= hi, got [%g, %g]",
                   d->limits[0], d->limits[1]);
  }
  (void)at;
  return VS_OK;
}

/* ---- meshes: `file` and `transform` (bodies and colliders) ------------------ */

vs_status sk_load_mesh_file(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_mesh_ref *mr = (vs_mesh_ref *)((char *)base + r->off);
  mr->file = NULL;
  const sn_node *v = sk_get(m, "file");
  if (!v) return (r->flags & SKF_REQUIRED) && at ? sk_missing(c, at, "file") : VS_OK;
  char g[96];
  size_t mk = sk_push(c, "file");
  if (v->kind != SN_SCALAR || v->len == 0 || vs_sn_is_null(v) || strlen(v->text) != v->len)
    return sk_fail(c, VS_ERR_SCENE, v, "expected an OBJ file path, got %s", sk_got(v, g, sizeof g));
  if (v->len >= VS_MAX_PATH)
    return sk_fail(c, VS_ERR_LIMIT, v, "expected a path of at most %d bytes, got %zu",
                   VS_MAX_PATH - 1, v->len);
  mr->file = vs_malloc(v->len + 1);
  if (!mr->file) return sk_nomem(c);
  memcpy(mr->file, v->text, v->len + 1);
  mr->loc = sk_loc(v);
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_mesh_file(sbuf *b, const sk_row *r, const void *base) {
  const vs_mesh_ref *mr = (const vs_mesh_ref *)((const char *)base + r->off);
  sk_put_str(b, mr->file ? mr->file : "");
}

vs_status sk_load_transform(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_mesh_ref *mr = (vs_mesh_ref *)((char *)base + r->off);
  for (int k = 0; k < 3; k++) mr->translate[k] = 0.0, mr->rotate[k] = 0.0, mr->scale[k] = 1.0;
  const sn_node *v = sk_get(m, "transform");
  if (!v) return VS_OK;
  static const char *const known[] = {"translate", "rotate", "scale", NULL};
  size_t mk = sk_push(c, "transform");
  const sn_node *t = NULL;
  TRY(sk_as_map(c, v, &t));
  TRY(sk_check_keys(c, t, known));
  const sn_node *x;
  if ((x = sk_get(t, "translate"))) {
    size_t mk2 = sk_push(c, "translate");
    TRY(sk_vec(c, x, 3, R_ANY, 0, mr->translate));
    sk_pop(c, mk2);
  }
  if ((x = sk_get(t, "rotate"))) {
    size_t mk2 = sk_push(c, "rotate");
    TRY(sk_vec(c, x, 3, R_ANY, 0, mr->rotate));
    sk_pop(c, mk2);
  }
  if ((x = sk_get(t, "scale"))) {
    size_t mk2 = sk_push(c, "scale");
    if (x->kind == SN_SEQ) {
      TRY(sk_vec(c, x, 3, R_POS, 0, mr->scale));
    } else {
      TRY(sk_num(c, x, R_POS, 0, &mr->scale[0]));
      mr->scale[1] = mr->scale[2] = mr->scale[0];
    }
    sk_pop(c, mk2);
  }
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_transform(sbuf *b, const sk_row *r, const void *base) {
  const vs_mesh_ref *mr = (const vs_mesh_ref *)((const char *)base + r->off);
  sk_put(b, "{translate: ");
  sk_put_vec(b, mr->translate, 3);
  sk_put(b, ", rotate: ");
  sk_put_vec(b, mr->rotate, 3);
  sk_put(b, ", scale: ");
  if (mr->scale[0] == mr->scale[1] && mr->scale[0] == mr->scale[2])
    sk_put_num(b, mr->scale[0]);
  else
    sk_put_vec(b, mr->scale, 3);
  sk_put(b, "}");
}
