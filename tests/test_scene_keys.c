/* SPDX-License-Identifier: MIT */
/* test_scene_keys.c: the scene-key table (lib/scene/scene_keys.c) against
 * everything that follows from it: every key of every kind survives load ->
 * emit -> load with a value that is not its default; every key and enum
 * word is in the fuzz dictionary; the key tables of docs/scene-format.md are
 * the table's (VSIM_UPDATE_DOCS=1 rewrites them); times read A/B exactly;
 * a TAB is named in the message. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "testutil.h"
#include "scene/scene_internal.h"

/* yaml with the overrides sets[0..n-1]. */
static vs_scene *load_sets(const char *yaml, const char *const *sets, size_t n) {
  vs_override ov[4] = {{NULL}};
  ck_assert_uint_le(n, 4);
  for (size_t i = 0; i < n; i++) ov[i] = (vs_override){sets[i]};
  vs_scene *s = NULL;
  vs_error e;
  vs_status st = vs_scene_load_string(yaml, strlen(yaml), "t.yaml", ov, n, &s, &e);
  char buf[2048];
  ck_assert_msg(st == VS_OK, "%s with --set %s: %s", yaml, n ? sets[n - 1] : "-",
                vs_error_format(&e, buf, sizeof buf));
  return s;
}

static vs_scene *load_set(const char *yaml, const char *set) {
  return load_sets(yaml, &set, set ? 1 : 0);
}

/* The scope whose struct holds row r's field: a nested scope's is the scope
 * of its mapping's row. */
static int home_scope(const sk_row *r) {
  if (r->scope < SKS_MOTOR) return r->scope;
  for (int k = 0; k < 32; k++)
    if ((r->kinds >> k) & 1u) {
      const sk_row *m = sk_map_row(r->scope, k);
      ck_assert_msg(m != NULL, "%s: a nested row without its mapping's row", r->path);
      return m->scope;
    }
  ck_abort_msg("%s: no kind", r->path);
  return 0;
}

/* A minimal item of each kind, with its required keys. */
static const char *const BODY_ITEM[] = {
    [VS_BODY_PARTICLES] = "{particles: {positions: [[0, 1, 0], [1, 1, 0]]}}",
    [VS_BODY_ROPE] = "{rope: {from: [0, 0, 0], to: [1, 0, 0], segments: 3}}",
    [VS_BODY_CLOTH] = "{cloth: {origin: [0, 0, 0], size: [1, 1], resolution: [3, 3]}}",
    [VS_BODY_TETRA] = "{tetra: {center: [0, 0, 0], edge: 1}}",
    [VS_BODY_LATTICE] = "{lattice: {origin: [0, 0, 0], size: [1, 1, 1], resolution: [2, 2, 2]}}",
    [VS_BODY_RAGDOLL] = "{ragdoll: {origin: [0, 0, 0], height: 1.5}}",
    [VS_BODY_MESH] = "{mesh: {file: flag.obj}}",
    [VS_BODY_RIGID] = "{rigid: {}}"};
static const char *const COLLIDER_ITEM[] = {
    [VS_COLLIDER_PLANE] = "{plane: {}}",
    [VS_COLLIDER_SPHERE] = "{sphere: {radius: 1}}",
    [VS_COLLIDER_BOX] = "{box: {min: [0, 0, 0], max: [1, 1, 1]}}",
    [VS_COLLIDER_BOUNDS] = "{bounds: {min: [0, 0, 0], max: [1, 1, 1]}}",
    [VS_COLLIDER_MESH] = "{mesh: {file: floor.obj}}"};
static const char *const CONSTRAINT_ITEM[] = {
    [VS_KIND_DISTANCE] = "{distance: {a: 0, b: 1}}",
    [VS_KIND_PIN] = "{pin: {particle: 0}}",
    [VS_KIND_ANGLE] = "{angle: {a: 0, b: 1, c: 2, max: 170}}",
    [VS_CONSTRAINT_BALL] = "{ball: {a: crate, b: world, at: [0, 1, 0]}}",
    [VS_CONSTRAINT_ATTACH] = "{attach: {particle: 0, body: crate, at: [0, 0.2, 0]}}",
    [VS_CONSTRAINT_WELD] = "{weld: {a: crate, b: world, at: [0, 1, 0]}}",
    [VS_CONSTRAINT_HINGE] = "{hinge: {a: crate, b: world, at: [0, 1, 0], axis: [0, 0, 1]}}",
    [VS_CONSTRAINT_SLIDER] = "{slider: {a: crate, b: world, at: [0, 1, 0], axis: [1, 0, 0]}}"};

/* The field of row r in scene s (item 0 of its list). */
static const char *field_of(const vs_scene *s, const sk_row *r) {
  switch (home_scope(r)) {
    case SKS_BODY:
      return (const char *)&s->bodies[0] + r->off;
    case SKS_COLLIDER:
      return (const char *)&s->colliders[0] + r->off;
    case SKS_CONSTRAINT:
      return (const char *)&s->constraints[0] + r->off;
    case SKS_RSOLVER:
      return (const char *)&s->rigid + r->off;
    default:
      return (const char *)s + r->off;
  }
}

static int field_eq(const sk_row *r, const char *a, const char *b) {
  switch (r->type) {
    case SK_NUM:
      return memcmp(a, b, sizeof(double)) == 0;
    case SK_INT:
      return memcmp(a, b, sizeof(int64_t)) == 0;
    case SK_I32:
    case SK_BOOL:
    case SK_ENUM:
    case SK_FLAGS:
      return memcmp(a, b, sizeof(int)) == 0;
    case SK_VEC:
      return memcmp(a, b, (size_t)r->n * sizeof(double)) == 0;
    case SK_IVEC:
      return memcmp(a, b, (size_t)r->n * sizeof(int64_t)) == 0;
    case SK_STR:
      return strcmp(a, b) == 0;
    case SK_REF:
      return strcmp(((const vs_ref *)a)->text, ((const vs_ref *)b)->text) == 0;
    case SK_LINK: {
      const vs_link_desc *x = (const vs_link_desc *)a, *y = (const vs_link_desc *)b;
      return x->enabled == y->enabled && x->stiffness == y->stiffness &&
             x->compliance == y->compliance;
    }
    case SK_MAP: /* its rows are compared one by one */
    case SK_HOOK:
      break;
  }
  return 1;
}

static int in_nrange(double v, nrange g) {
  if (g.lo == SK_OPEN && !(v > g.lov)) return 0;
  if (g.lo == SK_CLOSED && !(v >= g.lov)) return 0;
  if (g.hi == SK_OPEN && !(v < g.hiv)) return 0;
  if (g.hi == SK_CLOSED && !(v <= g.hiv)) return 0;
  return 1;
}

static double other_num(const sk_row *r, double def) {
  static const double cand[] = {0.375, 0.75, 1.5, 7.25, 150.5};
  for (size_t i = 0; i < sizeof cand / sizeof *cand; i++)
    if (cand[i] != def && in_nrange(cand[i], r->range)) return cand[i];
  ck_abort_msg("no value for %s", r->path);
  return 0;
}

/* YAML text for a value of row r that differs from def (the field as
 * loaded without it); 0 for hooks (FULL in test_scene.c covers them). */
static int other_value(const sk_row *r, const char *def, char *buf, size_t size) {
  int n = 0;
  switch (r->type) {
    case SK_NUM:
      snprintf(buf, size, "%.17g", other_num(r, *(const double *)def));
      return 1;
    case SK_INT:
    case SK_I32: {
      int64_t d = r->type == SK_INT ? *(const int64_t *)def : *(const int *)def;
      snprintf(buf, size, "%lld", (long long)(d > r->irange.lo ? r->irange.lo : r->irange.lo + 1));
      if (r->irange.has_hi && r->irange.lo == r->irange.hi) return 0; /* vsim: 1 only */
      return 1;
    }
    case SK_BOOL:
      snprintf(buf, size, "%s", *(const int *)def ? "false" : "true");
      return 1;
    case SK_ENUM:
      while (r->names[n]) n++;
      snprintf(buf, size, "%s", r->names[(*(const int *)def + 1) % n]);
      return 1;
    case SK_FLAGS:
      snprintf(buf, size, "[%s]", r->names[(*(const unsigned *)def & 2u) ? 0 : 1]);
      return 1;
    case SK_VEC: {
      const double *d = (const double *)def;
      size_t k = (size_t)snprintf(buf, size, "[");
      for (int i = 0; i < r->n; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%.17g", i ? ", " : "",
                              in_nrange(d[i] + 0.25, r->range) ? d[i] + 0.25 : 0.5);
      snprintf(buf + k, size - k, "]");
      return 1;
    }
    case SK_IVEC: {
      size_t k = (size_t)snprintf(buf, size, "[");
      for (int i = 0; i < r->n; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? ", " : "",
                              (long long)((const int64_t *)def)[i] + 1);
      snprintf(buf + k, size - k, "]");
      return 1;
    }
    case SK_STR:
      snprintf(buf, size, "%s", strcmp(def, "zq-7") ? "zq-7" : "zq-8");
      return 1;
    case SK_REF:
      snprintf(buf, size, "\"b0:%d\"", strcmp(((const vs_ref *)def)->text, "b0:1") ? 1 : 2);
      return 1;
    case SK_LINK:
      snprintf(buf, size, "%s",
               ((const vs_link_desc *)def)->enabled ? "{stiffness: 0.625, compliance: 0.125}"
                                                    : "{stiffness: 0.5}");
      return 1;
    case SK_MAP: /* its rows are tested one by one */
    case SK_HOOK:
      return 0;
  }
  return 0;
}

/* Load -> emit -> load; the reloaded field equals the loaded one, and the
 * second emission equals the first. */
static void check_round_trip(const vs_scene *s, const sk_row *r, const char *what) {
  char *y1 = NULL, *y2 = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_to_yaml(s, &y1, &e), VS_OK);
  vs_scene *t = NULL;
  char buf[2048];
  vs_status st = vs_scene_load_string(y1, strlen(y1), "resolved.yaml", NULL, 0, &t, &e);
  ck_assert_msg(st == VS_OK, "%s: reload failed: %s\n%s", what,
                vs_error_format(&e, buf, sizeof buf), y1);
  ck_assert_msg(field_eq(r, field_of(s, r), field_of(t, r)),
                "%s: lost or changed by the emitter:\n%s", what, y1);
  ck_assert_int_eq(vs_scene_to_yaml(t, &y2, &e), VS_OK);
  ck_assert_str_eq(y1, y2);
  vs_free_buffer(y1);
  vs_free_buffer(y2);
  vs_scene_free(t);
}

START_TEST(test_every_key_round_trips) {
  int tested = 0;
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    const int home = home_scope(r);
    const char *list = home == SKS_BODY       ? "bodies"
                       : home == SKS_COLLIDER ? "world.colliders"
                                              : "constraints";
    const char *const *items = home == SKS_BODY       ? BODY_ITEM
                               : home == SKS_COLLIDER ? COLLIDER_ITEM
                                                      : CONSTRAINT_ITEM;
    if (r->scope == SKS_LINK) continue; /* inside each SK_LINK row's value */
    const int whole = r->scope == SKS_SCENE || r->scope == SKS_RSOLVER; /* one per scene */
    for (int kind = 0; kind < 8; kind++) {
      if (!whole && !sk_applies(r, r->scope, kind)) continue;
      char base[512], set[600], val[256], what[512], req[4][160];
      const char *sets[5];
      size_t n_sets = 0;
      if (whole)
        snprintf(base, sizeof base, "{}");
      else
        snprintf(base, sizeof base, "%s: [%s]\n", list, items[kind]);
      if (home == SKS_COLLIDER)
        snprintf(base, sizeof base, "world: {colliders: [%s]}\n", items[kind]);
      vs_scene *d = load_set(base, NULL);
      if (!other_value(r, field_of(d, r), val, sizeof val)) {
        vs_scene_free(d);
        if (whole) break;
        continue;
      }
      const sk_row *m = r->scope >= SKS_MOTOR ? sk_map_row(r->scope, kind) : NULL;
      if (r->scope == SKS_SCENE)
        snprintf(set, sizeof set, "%s=%s", r->path, val);
      else if (r->scope == SKS_RSOLVER)
        snprintf(set, sizeof set, "solver.rigid.%s=%s", r->path, val);
      else if (m) /* a nested key: `constraints.0.hinge.motor.speed`, with the
                   * mapping's required keys set first */
        for (size_t j = 0; j < vs_sk_n_rows; j++) {
          const sk_row *q = &vs_sk_rows[j];
          if (!sk_applies(q, r->scope, kind)) continue;
          if (q == r)
            snprintf(set, sizeof set, "%s.0.%s.%s.%s=%s", list,
                     home == SKS_BODY ? vs_sk_body_kinds[kind] : vs_sk_constraint_kinds[kind],
                     sk_key(m), sk_key(r), val);
          else if ((q->flags & SKF_REQUIRED) && n_sets < 4)
            snprintf(req[n_sets], sizeof req[0], "%s.0.%s.%s=1.5", list, sk_key(m), sk_key(q)),
                sets[n_sets] = req[n_sets], n_sets++;
        }
      else
        snprintf(set, sizeof set, "%s.0.%s=%s", list, sk_key(r), val);
      sets[n_sets++] = set;
      snprintf(what, sizeof what, "%s (kind %d) = %s", r->path, kind, val);
      vs_scene *s = load_sets(base, sets, n_sets);
      ck_assert_msg(!field_eq(r, field_of(d, r), field_of(s, r)), "%s: the value is the default",
                    what);
      check_round_trip(s, r, what);
      tested++;
      vs_scene_free(s);
      vs_scene_free(d);
      if (whole) break;
    }
  }
  ck_assert_int_ge(tested, 60);
}
END_TEST

/* Every kind of body, collider and constraint, with its defaults. */
START_TEST(test_every_kind_round_trips) {
  char y[1024];
  for (int k = 0; k < 7; k++) {
    snprintf(y, sizeof y, "bodies: [%s]\n", BODY_ITEM[k]);
    vs_scene *s = load_set(y, NULL);
    for (size_t i = 0; i < vs_sk_n_rows; i++)
      if (sk_applies(&vs_sk_rows[i], SKS_BODY, k)) check_round_trip(s, &vs_sk_rows[i], y);
    vs_scene_free(s);
  }
  for (int k = 0; k < 5; k++) {
    snprintf(y, sizeof y, "world: {colliders: [%s]}\n", COLLIDER_ITEM[k]);
    vs_scene *s = load_set(y, NULL);
    for (size_t i = 0; i < vs_sk_n_rows; i++)
      if (sk_applies(&vs_sk_rows[i], SKS_COLLIDER, k)) check_round_trip(s, &vs_sk_rows[i], y);
    vs_scene_free(s);
  }
  for (int k = 0; k < VS_CONSTRAINT_KINDS; k++) {
    snprintf(y, sizeof y, "constraints: [%s]\n", CONSTRAINT_ITEM[k]);
    vs_scene *s = load_set(y, NULL);
    for (size_t i = 0; i < vs_sk_n_rows; i++)
      if (sk_applies(&vs_sk_rows[i], SKS_CONSTRAINT, k)) check_round_trip(s, &vs_sk_rows[i], y);
    vs_scene_free(s);
  }
  /* The kind lists name every enum value (no kind without a minimal item). */
  ck_assert_ptr_null(vs_scene_name(VS_NAMES_BODY, VS_BODY_RIGID + 1));
  ck_assert_str_eq(vs_scene_name(VS_NAMES_SHAPE, VS_RIGID_CAPSULE), "capsule");
  ck_assert_ptr_null(vs_scene_name(VS_NAMES_COLLIDER, 5));
  ck_assert_ptr_null(vs_scene_name(VS_NAMES_CONSTRAINT, VS_CONSTRAINT_KINDS));
  ck_assert_str_eq(vs_scene_name(VS_NAMES_CONSTRAINT, VS_CONSTRAINT_ATTACH), "attach");
  ck_assert_str_eq(vs_scene_name(VS_NAMES_INTEGRATOR, VS_INTEGRATOR_XPBD), "xpbd");
  ck_assert_str_eq(vs_scene_name(VS_NAMES_PRECISION, 1), "float32");
  ck_assert_ptr_null(vs_scene_name(VS_NAMES_RELAXATION, -1));
}
END_TEST

/* ---- files that follow from the table --------------------------------------- */

static void expect_dict_word(const char *dict, const char *w) {
  char q[128];
  snprintf(q, sizeof q, "\n\"%s\"\n", w);
  ck_assert_msg(strstr(dict, q) != NULL, "tests/fuzz/scene.dict lacks \"%s\"", w);
}

START_TEST(test_fuzz_dict_has_every_key) {
  char *dict = tu_read_repo_file("tests/fuzz/scene.dict", NULL);
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    expect_dict_word(dict, sk_key(r));
    if (r->scope == SKS_SCENE && strchr(r->path, '.')) {
      char sec[32];
      snprintf(sec, sizeof sec, "%.*s", (int)(strchr(r->path, '.') - r->path), r->path);
      expect_dict_word(dict, sec);
    }
    for (int k = 0; r->names && r->names[k]; k++) expect_dict_word(dict, r->names[k]);
  }
  for (int w = VS_NAMES_INTEGRATOR; w <= VS_NAMES_FIELD; w++)
    for (int k = 0; vs_scene_name((vs_scene_names)w, k); k++)
      expect_dict_word(dict, vs_scene_name((vs_scene_names)w, k));
  for (int k = 0; vs_sk_pin_words[k]; k++)
    if (k != VS_PIN_LIST) expect_dict_word(dict, vs_sk_pin_words[k]);
  free(dict);
}
END_TEST

/* The markdown table of one group of rows: "top" (top-level keys), a
 * section ("time"), "link", or "body.cloth", "collider.plane", ... */
typedef struct mbuf {
  char *p;
  size_t n, cap;
} mbuf;

static void mput(mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mput(mbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = (b->n + (size_t)k + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

static void type_text(mbuf *b, const sk_row *r) {
  char d[96];
  switch (r->type) {
    case SK_NUM:
      sk_describe_num(r->range, d, sizeof d);
      mput(b, "%s%s", r->flags & SKF_TIME ? "time" : "number", d + strlen("a finite number"));
      if (r->flags & SKF_TIME) mput(b, ", or a fraction `A/B`");
      break;
    case SK_INT:
    case SK_I32:
      if (r->irange.has_hi && r->irange.lo == r->irange.hi)
        mput(b, "`%lld`", (long long)r->irange.lo);
      else if (r->irange.has_hi)
        mput(b, "integer in [%lld, %lld]", (long long)r->irange.lo, (long long)r->irange.hi);
      else
        mput(b, "integer >= %lld", (long long)r->irange.lo);
      if (r->irange.limit) mput(b, ", at most %lld", (long long)r->irange.limit);
      break;
    case SK_BOOL:
      mput(b, "`true` or `false`");
      break;
    case SK_ENUM:
    case SK_FLAGS:
      mput(b, "%s", r->type == SK_FLAGS ? "list of " : "");
      for (int k = 0; r->names[k]; k++)
        mput(b, "%s`%s`",
             k == 0                ? ""
             : r->names[k + 1]     ? ", "
             : r->type == SK_FLAGS ? ", "
                                   : " or ",
             r->names[k]);
      break;
    case SK_VEC:
      sk_describe_num(r->range, d, sizeof d);
      mput(b, "[%d numbers%s]", r->n, d + strlen("a finite number"));
      break;
    case SK_IVEC:
      mput(b, "[%d integers >= %lld, at most %lld]", r->n, (long long)r->irange.lo,
           (long long)r->irange.limit);
      break;
    case SK_STR:
      mput(b, "string of at most %d characters", r->n - 1);
      break;
    case SK_REF:
      mput(b, "particle reference");
      break;
    case SK_LINK:
      mput(b, "link family: `{stiffness, compliance}` (below) or `none`");
      break;
    case SK_MAP:
      mput(b, "mapping of the keys in its table");
      break;
    case SK_HOOK:
      mput(b, "%s", r->flags & SKF_BLOCK ? "list" : "see meaning");
      break;
  }
}

/* The names of the items' kinds in scope (bodies, colliders, constraints). */
static const char *const *kind_names(int scope) {
  return scope == SKS_BODY       ? vs_sk_body_kinds
         : scope == SKS_COLLIDER ? vs_sk_collider_kinds
                                 : vs_sk_constraint_kinds;
}

/* Whether the rows of nested scope sub are the same for every kind of its
 * mapping m: then one table, "KEY", else one per kind, "KEY.KIND". */
static int same_for_all(const sk_row *m) {
  for (size_t i = 0; i < vs_sk_n_rows; i++)
    if (vs_sk_rows[i].scope == m->sub && vs_sk_rows[i].kinds != m->kinds) return 0;
  return 1;
}

static int in_group(const sk_row *r, const char *g) {
  if (!strcmp(g, "top")) return r->scope == SKS_SCENE && !strchr(r->path, '.');
  for (size_t i = 0; i < vs_sk_n_rows; i++) { /* a nested mapping's: "motor.hinge", "air_drag" */
    const sk_row *m = &vs_sk_rows[i];
    size_t n = strlen(sk_key(m));
    if (m->type != SK_MAP || strncmp(g, sk_key(m), n) || (g[n] && g[n] != '.')) continue;
    if (r->scope != m->sub) return 0;
    if (!g[n]) return 1;
    for (int k = 0; kind_names(m->scope)[k]; k++)
      if (!strcmp(g + n + 1, kind_names(m->scope)[k])) return sk_applies(r, m->sub, k);
    return 0;
  }
  if (!strcmp(g, "link")) return r->scope == SKS_LINK;
  if (!strcmp(g, "solver.rigid")) return r->scope == SKS_RSOLVER;
  static const struct {
    const char *prefix;
    int scope;
    const char *const *kinds;
  } items[] = {{"body.", SKS_BODY, vs_sk_body_kinds},
               {"collider.", SKS_COLLIDER, vs_sk_collider_kinds},
               {"constraint.", SKS_CONSTRAINT, vs_sk_constraint_kinds}};
  for (size_t i = 0; i < 3; i++) {
    size_t n = strlen(items[i].prefix);
    if (strncmp(g, items[i].prefix, n)) continue;
    for (int k = 0; items[i].kinds[k]; k++)
      if (!strcmp(g + n, items[i].kinds[k])) return sk_applies(r, items[i].scope, k);
    return 0;
  }
  size_t n = strlen(g);
  return r->scope == SKS_SCENE && !strncmp(r->path, g, n) && r->path[n] == '.';
}

static char *group_table(const char *g) {
  mbuf b = {NULL, 0, 0};
  mput(&b, "| key | value | default | meaning |\n| --- | --- | --- | --- |\n");
  int rows = 0;
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (!in_group(r, g)) continue;
    rows++;
    mput(&b, "| `%s` | ", sk_key(r));
    type_text(&b, r);
    if (r->flags & SKF_REQUIRED)
      mput(&b, " | **required** | ");
    else if (r->def)
      mput(&b, " | `%s` | ", r->def);
    else
      mput(&b, " | | ");
    mput(&b, "%s |\n", r->doc);
  }
  if (!rows) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

/* Every group, in order. */
static int groups(char names[][40], int max) {
  int n = 0;
  snprintf(names[n++], 40, "top");
  for (size_t i = 0; i < vs_sk_n_rows && n < max; i++) {
    const sk_row *r = &vs_sk_rows[i];
    const char *dot = strchr(r->path, '.');
    if (r->scope != SKS_SCENE || !dot) continue;
    char sec[40];
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - r->path), r->path);
    if (strcmp(names[n - 1], sec)) snprintf(names[n++], 40, "%s", sec);
  }
  snprintf(names[n++], 40, "solver.rigid");
  for (int k = 0; vs_sk_body_kinds[k]; k++)
    snprintf(names[n++], 40, "body.%s", vs_sk_body_kinds[k]);
  snprintf(names[n++], 40, "link");
  for (size_t i = 0; i < vs_sk_n_rows && n + 8 < max; i++) { /* each nested mapping once */
    const sk_row *m = &vs_sk_rows[i];
    int seen = m->type != SK_MAP;
    for (size_t j = 0; j < i && !seen; j++)
      seen = vs_sk_rows[j].type == SK_MAP && vs_sk_rows[j].sub == m->sub;
    if (seen) continue;
    if (same_for_all(m)) {
      snprintf(names[n++], 40, "%s", sk_key(m));
      continue;
    }
    for (int k = 0; kind_names(m->scope)[k]; k++)
      if ((m->kinds >> k) & 1u)
        snprintf(names[n++], 40, "%s.%s", sk_key(m), kind_names(m->scope)[k]);
  }
  for (int k = 0; vs_sk_collider_kinds[k]; k++)
    snprintf(names[n++], 40, "collider.%s", vs_sk_collider_kinds[k]);
  for (int k = 0; vs_sk_constraint_kinds[k]; k++)
    snprintf(names[n++], 40, "constraint.%s", vs_sk_constraint_kinds[k]);
  return n;
}

/* docs/scene-format.md holds each group's table between
 * `<!-- keys: GROUP -->` and `<!-- /keys -->`, exactly as generated here.
 * VSIM_UPDATE_DOCS=1 rewrites them in place. */
START_TEST(test_docs_tables_follow_the_table) {
  char *doc = tu_read_repo_file("docs/scene-format.md", NULL);
  char names[40][40];
  int ng = groups(names, 40);
  int update = getenv("VSIM_UPDATE_DOCS") != NULL;
  mbuf out = {NULL, 0, 0};
  const char *p = doc;
  int seen = 0;
  for (;;) {
    const char *open = strstr(p, "<!-- keys: ");
    if (!open) break;
    const char *name = open + strlen("<!-- keys: ");
    const char *name_end = strstr(name, " -->");
    const char *close = strstr(name, "<!-- /keys -->");
    ck_assert_msg(name_end && close && name_end < close, "docs/scene-format.md: bad keys marker");
    char g[40];
    snprintf(g, sizeof g, "%.*s", (int)(name_end - name), name);
    char *table = group_table(g);
    ck_assert_msg(table != NULL, "docs/scene-format.md: no keys in group '%s'", g);
    const char *body = name_end + strlen(" -->\n");
    mput(&out, "%.*s%s", (int)(body - p), p, table);
    if (!update)
      ck_assert_msg(strlen(table) == (size_t)(close - body) && !memcmp(table, body, strlen(table)),
                    "docs/scene-format.md: the table of '%s' differs from lib/scene/scene_keys.c "
                    "(VSIM_UPDATE_DOCS=1 build/tests/test_scene_keys rewrites it):\n%s",
                    g, table);
    free(table);
    for (int i = 0; i < ng; i++)
      if (!strcmp(names[i], g)) {
        names[i][0] = '\0';
        seen++;
      }
    p = close;
  }
  mput(&out, "%s", p);
  for (int i = 0; i < ng; i++)
    ck_assert_msg(!names[i][0], "docs/scene-format.md has no table for the keys of '%s'", names[i]);
  ck_assert_int_eq(seen, ng);
  if (update) {
    const char *root = getenv("VSIM_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/scene-format.md", root ? root : ".");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(out.p, 1, out.n, f);
    fclose(f);
  }
  free(out.p);
  free(doc);
}
END_TEST

/* ---- times as fractions; tabs ------------------------------------------------ */

START_TEST(test_time_fractions) {
  vs_scene *s = load_set("time: {dt: 1/60}\n", NULL);
  ck_assert(s->dt == 1.0 / 60.0);
  vs_scene_free(s);
  s = load_set("{}", "time.dt=7/3");
  ck_assert(s->dt == 7.0 / 3.0);
  vs_scene_free(s);
  /* The default is the fraction 1/60 too. */
  s = load_set("{}", NULL);
  ck_assert(s->dt == (double)1 / (double)60);
  vs_scene_free(s);
  /* Exact to the nearest double, also for big terms (2^53). */
  s = load_set("time: {dt: 9007199254740992/3}\n", NULL);
  ck_assert(s->dt == 9007199254740992.0 / 3.0);
  vs_scene_free(s);
  s = load_set("constraints: [{pin: {particle: 0, keys: [[0, 0, 0, 0], [1/3, 1, 0, 0]]}}]\n", NULL);
  ck_assert(s->constraints[0].keys[4] == 1.0 / 3.0);
  vs_scene_free(s);

  static const struct {
    const char *yaml, *msg;
  } bad[] = {
      {"time: {dt: 1/0}\n", "time.dt: expected a finite number > 0, got 1/0"},
      {"time: {dt: -1/60}\n", "time.dt: expected a finite number > 0, got -1/60"},
      {"time: {dt: 1.5/2}\n", "got 1.5/2"},
      {"time: {dt: 1/60/2}\n", "got 1/60/2"},
      {"time: {dt: /60}\n", "got /60"},
      {"time: {dt: 9007199254740993/3}\n", "got 9007199254740993/3"},
      {"time: {dt: \"1/60\"}\n", "got \"1/60\""},
      {"solver: {omega: 1/2}\n", "solver.omega: expected a finite number in (0, 2), got 1/2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    vs_scene *t = NULL;
    vs_error e;
    ck_assert_int_eq(
        vs_scene_load_string(bad[i].yaml, strlen(bad[i].yaml), "f.yaml", NULL, 0, &t, &e),
        VS_ERR_SCENE);
    ck_assert_msg(strstr(e.message, bad[i].msg) != NULL, "'%s' lacks '%s'", e.message, bad[i].msg);
    ck_assert_int_eq(e.line, 1);
  }
}
END_TEST

START_TEST(test_tab_is_named) {
  static const struct {
    const char *yaml;
    int line, col;
  } cases[] = {{"time:\n\tdt: 0.1\n", 2, 1}, {"time:\n  dt: 0.1\n\t\n", 3, 1}};
  for (size_t i = 0; i < 2; i++) {
    vs_scene *s = NULL;
    vs_error e;
    ck_assert_int_eq(
        vs_scene_load_string(cases[i].yaml, strlen(cases[i].yaml), "tab.yaml", NULL, 0, &s, &e),
        VS_ERR_SCENE);
    ck_assert_str_eq(e.file, "tab.yaml");
    ck_assert_int_eq(e.line, cases[i].line);
    ck_assert_int_eq(e.column, cases[i].col);
    ck_assert_str_eq(e.message,
                     "invalid YAML: tabs are not allowed for indentation in YAML; use spaces");
  }
  /* A tab inside a flow mapping is only white space. */
  vs_scene *s = load_set("time: {dt:\t0.5}\n", NULL);
  ck_assert(s->dt == 0.5);
  vs_scene_free(s);
}
END_TEST

/* ---- nested mappings: motor, spring, air_drag -------------------------------- */

static vs_status load_err(const char *yaml, const char *set, vs_error *e) {
  vs_override ov = {set};
  vs_scene *s = NULL;
  vs_status st = vs_scene_load_string(yaml, strlen(yaml), "n.yaml", &ov, set ? 1 : 0, &s, e);
  ck_assert_ptr_null(s);
  return st;
}

static char *emitted(const vs_scene *s) {
  char *y = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_to_yaml(s, &y, &e), VS_OK);
  return y;
}

#define JOINTS                                                         \
  "bodies: [{rigid: {name: door}}, {rigid: {name: car}},\n"            \
  "         {particles: {name: flag, positions: [[0, 0, 0]]}}]\n"      \
  "constraints:\n"                                                     \
  "  - hinge: {a: door, b: world, at: [0, 0, 0], axis: [0, 1, 0]%s}\n" \
  "  - slider: {a: car, b: world, at: [0, 0, 0], axis: [1, 0, 0]%s}\n"

START_TEST(test_nested_mappings) {
  char y[1024];
  /* none given: no motor, a spring of 0 Hz, no air drag */
  snprintf(y, sizeof y, JOINTS, "", "");
  vs_scene *s = load_set(y, NULL);
  const vs_constraint_desc *h = &s->constraints[0], *l = &s->constraints[1];
  ck_assert(!h->has_motor && !l->has_motor);
  ck_assert(h->hertz == 0 && h->damping_ratio == 0 && h->spring_rest == 0);
  ck_assert(s->bodies[2].air_linear == 0 && s->bodies[2].air_quadratic == 0);
  char *t = emitted(s);
  ck_assert_ptr_null(strstr(t, "motor")); /* no motor row: none written */
  ck_assert_ptr_nonnull(strstr(t, "spring: {hertz: 0, damping_ratio: 0, rest: 0}"));
  ck_assert_ptr_nonnull(strstr(t, "air_drag: {linear: 0, quadratic: 0}"));
  vs_free_buffer(t);
  vs_scene_free(s);

  /* the maximum alone: a motor of speed 0; the keys not given keep their
   * defaults */
  snprintf(y, sizeof y, JOINTS, ", motor: {max_torque: 4}, spring: {rest: -30}",
           ", motor: {speed: -0.5, max_force: 7.25}");
  s = load_set(y, NULL);
  h = &s->constraints[0];
  l = &s->constraints[1];
  ck_assert(h->has_motor && h->motor_speed == 0 && h->max_torque == 4);
  ck_assert(l->has_motor && l->motor_speed == -0.5 && l->max_torque == 7.25);
  ck_assert(h->hertz == 0 && h->damping_ratio == 0 && h->spring_rest == -30);
  t = emitted(s);
  ck_assert_ptr_nonnull(strstr(t, "motor: {speed: 0, max_torque: 4}"));
  ck_assert_ptr_nonnull(strstr(t, "motor: {speed: -0.5, max_force: 7.25}"));
  ck_assert_ptr_nonnull(strstr(t, "spring: {hertz: 0, damping_ratio: 0, rest: -30}"));
  vs_free_buffer(t);
  vs_scene_free(s);

  /* --set into a mapping: one key of it, by kind name or not; the body by
   * its name; a mapping that --set creates */
  s = load_set(y, "constraints.0.hinge.motor.speed=3");
  ck_assert(s->constraints[0].motor_speed == 3 && s->constraints[0].max_torque == 4);
  vs_scene_free(s);
  s = load_set(y, "constraints.1.motor.max_force=0.5");
  ck_assert(s->constraints[1].motor_speed == -0.5 && s->constraints[1].max_torque == 0.5);
  vs_scene_free(s);
  s = load_set(y, "bodies.flag.air_drag.linear=0.1");
  ck_assert(s->bodies[2].air_linear == 0.1 && s->bodies[2].air_quadratic == 0);
  vs_scene_free(s);
  s = load_set(y, "constraints.0.hinge.spring={hertz: 2, damping_ratio: 1}");
  ck_assert(s->constraints[0].hertz == 2 && s->constraints[0].damping_ratio == 1 &&
            s->constraints[0].spring_rest == 0); /* replaced whole: rest back to 0 */
  vs_scene_free(s);
  snprintf(y, sizeof y, JOINTS, "", "");
  s = load_set(y, "constraints.0.hinge.motor={max_torque: 2}");
  ck_assert(s->constraints[0].has_motor && s->constraints[0].max_torque == 2);
  vs_scene_free(s);

  /* bad: each names file:line:col (or --set) and the key */
  static const struct {
    const char *hinge, *slider, *set;
    vs_status code;
    int line, col;
    const char *msg;
  } bad[] = {
      {", motor: {speed: 1}", "", NULL, VS_ERR_SCENE, 4, 71,
       "constraints.0.hinge.motor: missing required key 'max_torque'"},
      {", motor: null", "", NULL, VS_ERR_SCENE, 4, 71,
       "constraints.0.hinge.motor: missing required key 'max_torque'"},
      {"", ", motor: {max_torque: 1}", NULL, VS_ERR_SCENE, 5, 72,
       "constraints.1.slider.motor: unknown key 'max_torque' (expected one of: speed, max_force)"},
      {", motor: {max_torque: -1}", "", NULL, VS_ERR_SCENE, 4, 84,
       "constraints.0.hinge.motor.max_torque: expected a finite number >= 0, got -1"},
      {", motor: true", "", NULL, VS_ERR_SCENE, 4, 71,
       "constraints.0.hinge.motor: expected a mapping {speed, max_torque}, got true"},
      {", air_drag: {linear: 1}", "", NULL, VS_ERR_SCENE, 4, 64,
       "constraints.0.hinge: unknown key 'air_drag'"},
      {"", "", "constraints.0.hinge.motor.speed=3", VS_ERR_SCENE, 0, 0,
       "constraints.0.hinge.motor: missing required key 'max_torque'"},
      {"", "", "bodies.flag.air_drag.linaer=3", VS_ERR_SCENE, 0, 0,
       "bodies.2.particles.air_drag: unknown key 'linaer', did you mean 'linear'?"},
      {"", "", "bodies.door.air_drag.quadratic=-1", VS_ERR_SCENE, 0, 0,
       "bodies.0.rigid.air_drag.quadratic: expected a finite number >= 0, got -1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(y, sizeof y, JOINTS, bad[i].hinge, bad[i].slider);
    vs_error e;
    ck_assert_msg(load_err(y, bad[i].set, &e) == bad[i].code, "case %zu: %s", i, e.message);
    ck_assert_msg(strstr(e.message, bad[i].msg) != NULL, "case %zu: '%s' lacks '%s'", i, e.message,
                  bad[i].msg);
    if (!bad[i].set) {
      ck_assert_str_eq(e.file, "n.yaml");
      ck_assert_msg(e.line == bad[i].line && e.column == bad[i].col,
                    "case %zu: at %d:%d, want %d:%d", i, e.line, e.column, bad[i].line, bad[i].col);
    } else {
      ck_assert_str_eq(e.file, "--set");
    }
  }
}
END_TEST

START_TEST(test_author) {
  vs_scene *s = load_set("{}", NULL);
  ck_assert_str_eq(s->output.author, "unknown");
  vs_scene_free(s);
  s = load_set("output: {author: Ada}\n", "output.author=Grace Hopper");
  ck_assert_str_eq(s->output.author, "Grace Hopper");
  vs_scene_free(s);
  char y[200];
  snprintf(y, sizeof y, "output: {author: %064d}\n", 0);
  vs_error e;
  ck_assert_int_eq(vs_scene_load_string(y, strlen(y), "a.yaml", NULL, 0, &s, &e), VS_ERR_SCENE);
  ck_assert_str_eq(e.message,
                   "output.author: expected an author name of at most 63 characters, got 64");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("scene_keys");
  TCase *tc = tcase_create("keys");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_key_round_trips);
  tcase_add_test(tc, test_every_kind_round_trips);
  tcase_add_test(tc, test_fuzz_dict_has_every_key);
  tcase_add_test(tc, test_docs_tables_follow_the_table);
  tcase_add_test(tc, test_time_fractions);
  tcase_add_test(tc, test_tab_is_named);
  tcase_add_test(tc, test_author);
  tcase_add_test(tc, test_nested_mappings);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(suite());
}
