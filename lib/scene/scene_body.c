/* SPDX-License-Identifier: MIT */
/* scene_body.c: the `bodies` list, and the hooks of the body keys that the
 * key table cannot express as a plain value: per-particle lists, `pin` in
 * its forms, the name's characters and the grid's particle count. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

/* ---- particles: positions, velocities, masses -------------------------------- */

/* A list of count [x, y, z] (count 0: any non-empty length, which sets it). */
static vs_status triples(vctx *c, const sn_node *v, size_t *count, double **out) {
  char g[96];
  if (!*count) {
    if (v->kind != SN_SEQ || v->n == 0)
      return sk_fail(c, VS_ERR_SCENE, v, "expected a non-empty list of [x, y, z], got %s",
                     v->kind == SN_SEQ ? "an empty list" : sk_got(v, g, sizeof g));
    if (v->n > VS_MAX_PARTICLES)
      return sk_fail(c, VS_ERR_LIMIT, v, "expected at most %d particles, got %zu", VS_MAX_PARTICLES,
                     v->n);
    *count = v->n;
  } else if (v->kind != SN_SEQ || v->n != *count) {
    return sk_fail(c, VS_ERR_SCENE, v,
                   "expected a list of %zu [x, y, z] (one per position), got %s", *count,
                   sk_got_list(v, g, sizeof g));
  }
  *out = vs_malloc(*count * 3 * sizeof **out);
  if (!*out) return sk_nomem(c);
  for (size_t i = 0; i < *count; i++) {
    size_t mk = sk_push_index(c, i);
    TRY(sk_vec(c, v->kids[i], 3, R_ANY, 0, &(*out)[3 * i]));
    sk_pop(c, mk);
  }
  return VS_OK;
}

vs_status sk_load_positions(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_body_desc *b = base;
  const sn_node *v = sk_get(m, "positions");
  if (!v) return (r->flags & SKF_REQUIRED) && at ? sk_missing(c, at, "positions") : VS_OK;
  size_t mk = sk_push(c, "positions");
  b->count = 0;
  TRY(triples(c, v, &b->count, &b->positions));
  sk_pop(c, mk);
  return VS_OK;
}

static void put_triples(sbuf *b, const double *v, size_t n) {
  sk_put(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) sk_put(b, ", ");
    sk_put_vec(b, &v[3 * i], 3);
  }
  sk_put(b, "]");
}

void sk_emit_positions(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  put_triples(b, d->positions, d->count);
}

vs_status sk_load_velocities(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base) {
  vs_body_desc *b = base;
  const sn_node *v = sk_get(m, "velocities");
  if (!v) return VS_OK;
  size_t mk = sk_push(c, "velocities");
  TRY(triples(c, v, &b->count, &b->velocities));
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_velocities(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  put_triples(b, d->velocities, d->count);
}

int sk_no_velocities(const void *base) {
  return !((const vs_body_desc *)base)->velocities;
}

vs_status sk_load_masses(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                         void *base) {
  vs_body_desc *b = base;
  const sn_node *ms = sk_get(m, "masses");
  if (!ms) return VS_OK;
  char g[96];
  size_t mk = sk_push(c, "masses");
  if (sk_get(m, "mass"))
    return sk_fail(c, VS_ERR_SCENE, ms, "expected either mass or masses, got both");
  if (ms->kind != SN_SEQ || ms->n != b->count)
    return sk_fail(c, VS_ERR_SCENE, ms, "expected a list of %zu masses (one per position), got %s",
                   b->count, sk_got_list(ms, g, sizeof g));
  b->masses = vs_malloc(b->count * sizeof *b->masses);
  if (!b->masses) return sk_nomem(c);
  for (size_t i = 0; i < b->count; i++) {
    size_t mk2 = sk_push_index(c, i);
    TRY(sk_num(c, ms->kids[i], R_POS, 0, &b->masses[i]));
    sk_pop(c, mk2);
  }
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_masses(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  sk_put_vec(b, d->masses, d->count);
}

int sk_no_masses(const void *base) {
  return !((const vs_body_desc *)base)->masses;
}

int sk_has_masses(const void *base) {
  return ((const vs_body_desc *)base)->masses != NULL;
}

/* ---- checks --------------------------------------------------------------- */

vs_status sk_check_grid(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base) {
  const vs_body_desc *b = base;
  int64_t total = 1;
  for (int i = 0; i < r->n; i++) total *= b->resolution[i]; /* <= 16384^3: no overflow */
  if (total > VS_MAX_PARTICLES) {
    size_t mk = sk_push(c, "resolution");
    vs_status st =
        sk_fail(c, VS_ERR_LIMIT, sk_get(m, "resolution"), "expected at most %d particles, got %lld",
                VS_MAX_PARTICLES, (long long)total);
    sk_pop(c, mk);
    return st;
  }
  return VS_OK;
}

/* Body names are used in particle references ("NAME:INDEX") and in --set
 * paths ("bodies.NAME.key"), so they are restricted to characters that
 * cannot be confused with either syntax, and may not be all digits (that
 * would read as an index). */
vs_status sk_check_body_name(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base) {
  const vs_body_desc *b = base;
  const sn_node *v = sk_get(m, "name");
  if (!v) return VS_OK;
  char g[96];
  size_t mk = sk_push(c, "name");
  int digits = 1;
  for (const char *p = b->name; *p; p++) {
    unsigned char ch = (unsigned char)*p;
    if (!(isalnum(ch) || ch == '_' || ch == '-'))
      return sk_fail(c, VS_ERR_SCENE, v,
                     "expected a body name of letters, digits, '_' and '-', got %s",
                     sk_got(v, g, sizeof g));
    if (!isdigit(ch)) digits = 0;
  }
  if (digits)
    return sk_fail(c, VS_ERR_SCENE, v, "expected a body name that is not only digits, got %s",
                   sk_got(v, g, sizeof g));
  sk_pop(c, mk);
  return VS_OK;
}

/* ---- rigid bodies ----------------------------------------------------------- */

/* ---- convex rigid bodies: points, file, scale ---- */

vs_status sk_load_points(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                         void *base) {
  vs_body_desc *b = base;
  const sn_node *v = sk_get(m, "points");
  if (!v) return VS_OK;
  size_t mk = sk_push(c, "points");
  b->count = 0;
  b->hull_loc = sk_loc(v);
  TRY(triples(c, v, &b->count, &b->positions));
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_points(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  put_triples(b, d->positions, d->count);
}

int sk_no_points(const void *base) { return !((const vs_body_desc *)base)->positions; }
int sk_no_mesh_file(const void *base) { return !((const vs_body_desc *)base)->mesh.file; }

/* shape convex: exactly one of points and file; the other shapes: neither */
vs_status sk_check_convex(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base) {
  vs_body_desc *b = base;
  const sn_node *pv = sk_get(m, "points"), *fv = sk_get(m, "file");
  if (fv && b->mesh.file) b->hull_loc = b->mesh.loc;
  if (b->shape != VS_RIGID_CONVEX) {
    const sn_node *v = pv ? pv : fv;
    if (!v) return VS_OK;
    size_t mk = sk_push(c, pv ? "points" : "file");
    vs_status st = sk_fail(c, VS_ERR_SCENE, v, "only a rigid body of shape convex has %s",
                           pv ? "points" : "a file");
    sk_pop(c, mk);
    return st;
  }
  if (!pv && !fv)
    return sk_fail(c, VS_ERR_SCENE, at, "shape convex: expected its points, as `points` or as "
                   "the vertices of an OBJ `file`, got neither");
  if (pv && fv) {
    size_t mk = sk_push(c, "file");
    vs_status st = sk_fail(c, VS_ERR_SCENE, fv, "expected either points or file, got both");
    sk_pop(c, mk);
    return st;
  }
  return VS_OK;
}

int sk_rigid_has_density(const void *base) {
  return ((const vs_body_desc *)base)->has_density;
}

vs_status sk_check_orientation(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                               void *base) {
  const vs_body_desc *b = base;
  const double *q = b->orientation;
  if (!b->has_orientation || q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 0.0)
    return VS_OK;
  const sn_node *v = sk_get(m, "orientation");
  size_t mk = sk_push(c, "orientation");
  vs_status st = sk_fail(c, VS_ERR_SCENE, v, "expected a quaternion [w, x, y, z] of non-zero "
                         "length, got [%g, %g, %g, %g]", q[0], q[1], q[2], q[3]);
  sk_pop(c, mk);
  return st;
}

vs_status sk_check_rotation(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  const vs_body_desc *b = base;
  if (!b->has_orientation || !b->has_rotation) return VS_OK;
  size_t mk = sk_push(c, "rotation");
  vs_status st = sk_fail(c, VS_ERR_SCENE, sk_get(m, "rotation"),
                         "expected either orientation or rotation, got both");
  sk_pop(c, mk);
  return st;
}

vs_status sk_check_density(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                           void *base) {
  if (!sk_get(m, "mass") || !sk_get(m, "density")) return VS_OK;
  size_t mk = sk_push(c, "density");
  vs_status st = sk_fail(c, VS_ERR_SCENE, sk_get(m, "density"),
                         "expected either mass or density, got both");
  sk_pop(c, mk);
  return st;
}

/* kinematic bodies: `keys` [t, x, y, z] and `rotation_keys` [t, rx, ry, rz]
 * (degrees about the fixed x, y, z axes, as `rotation`), t strictly
 * increasing. */
static vs_status body_keys(vctx *c, const sn_node *m, const char *key, const char *form,
                           double **out, size_t *n) {
  const sn_node *v = sk_get(m, key);
  if (!v) return VS_OK;
  size_t mk = sk_push(c, key);
  TRY(sk_key_list(c, v, form, out, n));
  sk_pop(c, mk);
  return VS_OK;
}

static void emit_keys(sbuf *b, const double *keys, size_t n) {
  sk_put(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) sk_put(b, ", ");
    sk_put_vec(b, &keys[4 * i], 4);
  }
  sk_put(b, "]");
}

vs_status sk_load_body_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base) {
  vs_body_desc *d = base;
  return body_keys(c, m, "keys", "[t, x, y, z]", &d->keys, &d->n_keys);
}

void sk_emit_body_keys(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  emit_keys(b, d->keys, d->n_keys);
}

int sk_no_body_keys(const void *base) { return !((const vs_body_desc *)base)->keys; }

vs_status sk_load_rotation_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                                void *base) {
  vs_body_desc *d = base;
  return body_keys(c, m, "rotation_keys", "[t, rx, ry, rz]", &d->rotation_keys,
                   &d->n_rotation_keys);
}

void sk_emit_rotation_keys(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  emit_keys(b, d->rotation_keys, d->n_rotation_keys);
}

int sk_no_rotation_keys(const void *base) {
  return !((const vs_body_desc *)base)->rotation_keys;
}

static int nonzero3(const double v[3]) { return v[0] != 0 || v[1] != 0 || v[2] != 0; }

/* An error at key `key` of the body's mapping. */
static vs_status body_key_error(vctx *c, const sn_node *m, const char *key, const char *msg) {
  size_t mk = sk_push(c, key);
  vs_status st = sk_fail(c, VS_ERR_SCENE, sk_get(m, key), "%s", msg);
  sk_pop(c, mk);
  return st;
}

/* kinematic: not with fixed; keys only on a kinematic body, and then not
 * with the velocities or the initial orientation they replace. */
vs_status sk_check_kinematic(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base) {
  const vs_body_desc *d = base;
  if (d->kinematic && d->fixed)
    return body_key_error(c, m, "kinematic",
                          "expected either fixed or kinematic, got both (a kinematic body has "
                          "infinite mass too, and moves)");
  if (!d->kinematic && d->keys)
    return body_key_error(c, m, "keys", "expected kinematic: true with keys (keys move a "
                                        "kinematic body)");
  if (!d->kinematic && d->rotation_keys)
    return body_key_error(c, m, "rotation_keys", "expected kinematic: true with rotation_keys "
                                                 "(keys move a kinematic body)");
  if (d->keys && nonzero3(d->velocity))
    return body_key_error(c, m, "velocity", "expected either keys or velocity, got both (a "
                                            "kinematic body with keys moves along them)");
  if (d->rotation_keys && nonzero3(d->angular_velocity))
    return body_key_error(c, m, "angular_velocity",
                          "expected either rotation_keys or angular_velocity, got both");
  if (d->rotation_keys && (d->has_orientation || d->has_rotation))
    return body_key_error(c, m, d->has_orientation ? "orientation" : "rotation",
                          d->has_orientation
                              ? "expected either rotation_keys or orientation, got both"
                              : "expected either rotation_keys or rotation, got both");
  return VS_OK;
}

/* solver.rigid: a mapping of SKS_RSOLVER rows (defaults for the keys not given). */
vs_status sk_load_rsolver(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base) {
  vs_scene *s = base;
  const sn_node *v = sk_get(m, "rigid"), *mm = NULL;
  if (!v) return VS_OK;
  size_t mk = sk_push(c, "rigid");
  TRY(sk_as_map(c, v, &mm));
  TRY(sk_defaults(c, SKS_RSOLVER, 0, &s->rigid));
  TRY(sk_load_rows(c, SKS_RSOLVER, 0, mm, mm ? mm : v, &s->rigid));
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_rsolver(sbuf *b, const sk_row *r, const void *base) {
  const vs_scene *s = base;
  sk_put(b, "{");
  sk_emit_rows(b, SKS_RSOLVER, 0, &s->rigid, 1, "");
  sk_put(b, "}");
}

/* ---- pin ------------------------------------------------------------------ */

static vs_status alloc_pins(vctx *c, vs_body_desc *b, size_t n, int arity) {
  b->pin_arity = arity;
  b->n_pins = 0;
  if (!n) return VS_OK;
  b->pins = vs_calloc(n * (size_t)arity, sizeof *b->pins);
  if (!b->pins) return sk_nomem(c);
  return VS_OK;
}

/* An index in [0, n) (n < 0: no upper bound known here). */
static vs_status index_val(vctx *c, const sn_node *v, int64_t n, const char *what, int64_t *out) {
  int64_t x = 0;
  char g[96];
  if (sk_parse_int(v, &x) != 1 || x < 0 || (n >= 0 && x >= n)) {
    if (n >= 0)
      return sk_fail(c, VS_ERR_SCENE, v, "expected %s in [0, %lld], got %s", what,
                     (long long)(n - 1), sk_got(v, g, sizeof g));
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s >= 0, got %s", what, sk_got(v, g, sizeof g));
  }
  *out = x;
  return VS_OK;
}

/* pin: a list of grid coordinates [i, j] or [i, j, k] within dims, or one
 * of the words allowed for the kind. */
static vs_status pin_grid(vctx *c, const sn_node *v, vs_body_desc *b, int arity,
                          const int64_t *dims, const char *const *words, const vs_pin_mode *modes) {
  char g[96], list[128];
  const char *axes = arity == 2 ? "i, j" : "i, j, k";
  sk_join(words, list, sizeof list);
  if (v->kind == SN_SCALAR) {
    for (size_t i = 0; words[i]; i++)
      if (sk_is_word(v, words[i])) return b->pin_mode = modes[i], VS_OK;
    const char *s = sk_suggest(v->text, words);
    if (s)
      return sk_fail(c, VS_ERR_SCENE, v,
                     "expected a list of [%s] or one of %s, got %s (did you mean '%s'?)", axes,
                     list, sk_got(v, g, sizeof g), s);
    return sk_fail(c, VS_ERR_SCENE, v, "expected a list of [%s] or one of %s, got %s", axes, list,
                   sk_got(v, g, sizeof g));
  }
  if (v->kind != SN_SEQ)
    return sk_fail(c, VS_ERR_SCENE, v, "expected a list of [%s] or one of %s, got %s", axes, list,
                   sk_got(v, g, sizeof g));
  if (v->n == 0) return b->pin_mode = VS_PIN_NONE, VS_OK;
  TRY(alloc_pins(c, b, v->n, arity));
  b->pin_mode = VS_PIN_LIST;
  for (size_t i = 0; i < v->n; i++) {
    const sn_node *p = v->kids[i];
    size_t mk = sk_push_index(c, i);
    if (p->kind != SN_SEQ || p->n != (size_t)arity)
      return sk_fail(c, VS_ERR_SCENE, p, "expected grid coordinates [%s], got %s", axes,
                     sk_got_list(p, g, sizeof g));
    for (int a = 0; a < arity; a++) {
      static const char *const axis[] = {"i", "j", "k"};
      char what[32];
      snprintf(what, sizeof what, "grid coordinate %s", axis[a]);
      size_t mk2 = sk_push_index(c, (size_t)a);
      TRY(index_val(c, p->kids[a], dims[a], what, &b->pins[i * (size_t)arity + (size_t)a]));
      sk_pop(c, mk2);
    }
    b->n_pins = i + 1;
    sk_pop(c, mk);
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
    if (sk_is_word(v, vs_sk_pin_words[VS_PIN_NONE])) return b->pin_mode = VS_PIN_NONE, VS_OK;
    if (rope && sk_is_word(v, vs_sk_pin_words[VS_PIN_FIRST]))
      return b->pin_mode = VS_PIN_FIRST, VS_OK;
    if (rope && sk_is_word(v, vs_sk_pin_words[VS_PIN_LAST]))
      return b->pin_mode = VS_PIN_LAST, VS_OK;
    if (rope && sk_is_word(v, vs_sk_pin_words[VS_PIN_BOTH]))
      return b->pin_mode = VS_PIN_BOTH, VS_OK;
  }
  if (v->kind != SN_SEQ)
    return sk_fail(c, VS_ERR_SCENE, v, "expected %s, got %s", expect, sk_got(v, g, sizeof g));
  if (v->n == 0) return b->pin_mode = VS_PIN_NONE, VS_OK;
  /* A rope list made of the words first/last only keeps its symbolic form. */
  if (rope) {
    int first = 0, last = 0, words = 1;
    for (size_t i = 0; i < v->n && words; i++) {
      if (sk_is_word(v->kids[i], vs_sk_pin_words[VS_PIN_FIRST]))
        first = 1;
      else if (sk_is_word(v->kids[i], vs_sk_pin_words[VS_PIN_LAST]))
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
    size_t mk = sk_push_index(c, i);
    if (rope && sk_is_word(p, vs_sk_pin_words[VS_PIN_FIRST]))
      b->pins[i] = 0;
    else if (rope && sk_is_word(p, vs_sk_pin_words[VS_PIN_LAST]))
      b->pins[i] = n - 1;
    else
      TRY(index_val(c, p, n, rope ? "a particle index, first or last" : "a particle index",
                    &b->pins[i]));
    b->n_pins = i + 1;
    sk_pop(c, mk);
  }
  return VS_OK;
}

vs_status sk_load_pin(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base) {
  /* The words of the pin modes each grid takes (vs_sk_pin_words). */
  static const vs_pin_mode cloth_modes[] = {VS_PIN_NONE, VS_PIN_TOP_EDGE, VS_PIN_TOP_CORNERS};
  static const vs_pin_mode lattice_modes[] = {VS_PIN_NONE, VS_PIN_TOP_EDGE};
  const char *const cloth_words[] = {vs_sk_pin_words[VS_PIN_NONE], vs_sk_pin_words[VS_PIN_TOP_EDGE],
                                     vs_sk_pin_words[VS_PIN_TOP_CORNERS], NULL};
  const char *const lattice_words[] = {vs_sk_pin_words[VS_PIN_NONE],
                                       vs_sk_pin_words[VS_PIN_TOP_EDGE], NULL};
  vs_body_desc *b = base;
  b->pin_mode = VS_PIN_NONE;
  b->pin_arity = b->kind == VS_BODY_CLOTH ? 2 : b->kind == VS_BODY_LATTICE ? 3 : 1;
  const sn_node *v = sk_get(m, "pin");
  if (!v) return VS_OK;
  b->pin_loc = sk_loc(v);
  size_t mk = sk_push(c, "pin");
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
    case VS_BODY_TETRA:
    case VS_BODY_RAGDOLL: /* its particle count is the model's business */
    case VS_BODY_MESH:    /* the OBJ is read by the model */
      TRY(pin_indices(c, v, b, -1, 0));
      break;
    case VS_BODY_RIGID: /* no `pin` row: never reached */
      break;
  }
  sk_pop(c, mk);
  return VS_OK;
}

void sk_emit_pin(sbuf *b, const sk_row *r, const void *base) {
  const vs_body_desc *d = base;
  if (d->pin_mode != VS_PIN_LIST || d->n_pins == 0) {
    sk_put(b, "%s", d->pin_mode == VS_PIN_LIST ? "none" : vs_sk_pin_words[d->pin_mode]);
    return;
  }
  int ar = d->pin_arity < 1 ? 1 : d->pin_arity;
  sk_put(b, "[");
  for (size_t i = 0; i < d->n_pins; i++) {
    const int64_t *p = &d->pins[i * (size_t)ar];
    if (i) sk_put(b, ", ");
    if (ar == 1) {
      sk_put(b, "%lld", (long long)p[0]);
    } else {
      sk_put(b, "[");
      for (int a = 0; a < ar; a++) sk_put(b, "%s%lld", a ? ", " : "", (long long)p[a]);
      sk_put(b, "]");
    }
  }
  sk_put(b, "]");
}

/* ---- the list ------------------------------------------------------------- */

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
    case VS_BODY_MESH:
      return 0; /* the OBJ's vertices, counted by the model */
    case VS_BODY_RIGID:
      return 0; /* no particles */
  }
  return 0;
}

static vs_status load_body(vctx *c, const sn_node *item, size_t index, vs_body_desc *b,
                           const sn_node **name_node) {
  int kind;
  const sn_node *m, *at;
  TRY(sk_kind_item(c, item, "body", vs_sk_body_kinds, &kind, &m, &at));
  TRY(sk_defaults(c, SKS_BODY, kind, b));
  b->loc = sk_loc(item);
  snprintf(b->name, sizeof b->name, "%s%zu", vs_sk_body_kinds[kind], index);
  /* Tetra and ragdoll links are one family whose stiffness sits on the body. */
  if (kind == VS_BODY_TETRA || kind == VS_BODY_RAGDOLL) b->stretch.enabled = 1;
  const sn_node *nv = sk_get(m, "name");
  *name_node = nv ? nv : item;
  return sk_load_rows(c, SKS_BODY, kind, m, at, b);
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

vs_status sk_load_bodies(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                         void *base) {
  vs_scene *s = base;
  const sn_node *v = sk_get(m, "bodies");
  if (!v || vs_sn_is_null(v)) return VS_OK;
  size_t mk = sk_push(c, "bodies");
  char g[96];
  if (v->kind != SN_SEQ)
    return sk_fail(c, VS_ERR_SCENE, v, "expected a list of bodies, got %s", sk_got(v, g, sizeof g));
  if (v->n > VS_MAX_BODIES)
    return sk_fail(c, VS_ERR_LIMIT, v, "expected at most %d bodies (the documented limit), got %zu",
                   VS_MAX_BODIES, v->n);
  if (!v->n) {
    sk_pop(c, mk);
    return VS_OK;
  }
  s->bodies = vs_calloc(v->n, sizeof *s->bodies);
  const sn_node **names = vs_calloc(v->n, sizeof *names);
  name_ix *ix = vs_calloc(v->n, sizeof *ix);
  vs_status st = VS_OK;
  if (!s->bodies || !names || !ix) {
    st = sk_nomem(c);
    goto out;
  }
  int64_t total = 0;
  for (size_t i = 0; i < v->n; i++) {
    size_t mk2 = sk_push_index(c, i);
    s->n_bodies = i + 1;
    st = load_body(c, v->kids[i], i, &s->bodies[i], &names[i]);
    if (st) goto out;
    total += body_particles(&s->bodies[i]); /* each <= VS_MAX_PARTICLES: no overflow */
    if (total > VS_MAX_PARTICLES) {
      st = sk_fail(c, VS_ERR_LIMIT, v->kids[i],
                   "the scene would have more than %d particles (the documented limit)",
                   VS_MAX_PARTICLES);
      goto out;
    }
    sk_pop(c, mk2);
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
    sk_push_index(c, dup);
    st = sk_fail(c, VS_ERR_SCENE, names[dup], "duplicate body name '%s' (body %zu has it too)",
                 s->bodies[dup].name, first);
    goto out;
  }
  sk_pop(c, mk);
out:
  vs_free(names);
  vs_free(ix);
  return st;
}

void sk_emit_bodies(sbuf *b, const sk_row *r, const void *base) {
  const vs_scene *s = base;
  sk_put(b, "%s\n", s->n_bodies ? "" : " []");
  for (size_t i = 0; i < s->n_bodies; i++) {
    const vs_body_desc *d = &s->bodies[i];
    sk_put(b, "  - %s:\n", vs_sk_body_kinds[d->kind]);
    sk_emit_rows(b, SKS_BODY, (int)d->kind, d, 0, "      ");
  }
}
