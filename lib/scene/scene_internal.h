/* SPDX-License-Identifier: MIT */
/* scene_internal.h: private to the scene loader (scene*.c).
 *
 * The loader works in three passes over one in-memory YAML tree:
 *   scene_yaml.c   libyaml events -> sn_node tree (limits: depth, nodes, aliases)
 *   scene_set.c    `--set KEY=VALUE` overrides edit that tree
 *   scene_table.c  tree -> vs_scene, driven by the key table of scene_keys.c
 *                  (one row per key: path, type, range, default, doc, offset);
 *                  scene_value.c parses one value, scene_body.c and
 *                  scene_items.c hold the hooks of the irregular keys
 * and scene_emit.c writes a vs_scene back out as YAML, from the same table.
 *
 * Aliases (`*a`) share the anchored node instead of copying it (refs counts
 * the owners), so a "billion laughs" document is rejected by arithmetic on
 * subtree sizes, before anything is expanded.  Overrides unshare a node
 * before they change it (copy on write, one level at a time). */
#ifndef VSIM_SCENE_INTERNAL_H
#define VSIM_SCENE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "util/text.h"
#include "vsim/scene.h"

enum { SN_SCALAR = 0, SN_SEQ = 1, SN_MAP = 2 };

typedef struct sn_node sn_node;
struct sn_node {
  int kind;      /* SN_SCALAR | SN_SEQ | SN_MAP */
  int line, col; /* 1-based position in its source */
  int origin;    /* 0 = the scene text, k >= 1 = the k-th --set */
  int refs;      /* owners: 1 + alias uses */
  int open;      /* still being parsed: an alias to it would be a cycle */
  int height;    /* container nesting inside this node (scalar 0) */
  size_t weight; /* nodes in this subtree with aliases expanded */
  /* scalar */
  char *text; /* NUL-terminated (may hold NULs from escapes: see len) */
  size_t len;
  int quoted; /* not a plain scalar: always a string, never a number */
  /* sequence: items; mapping: keys and values interleaved (k0 v0 k1 v1 ...) */
  sn_node **kids;
  size_t n, cap;
};

/* What one scene may use in all: the scene text and every --set value
 * count against the same node and alias limits, so that overrides are no
 * way around them. */
typedef struct vs_sn_budget {
  size_t nodes;   /* expanded nodes parsed so far */
  size_t aliases; /* alias uses so far */
} vs_sn_budget;

/* Where the tree came from, for messages: errors in nodes with origin k >= 1
 * are reported against file "--set" with the override's text. */
typedef struct vs_sn_src {
  const char *file;
  const vs_override *sets;
  size_t n_sets;
} vs_sn_src;

sn_node *vs_sn_new(int kind, int line, int col, int origin);
sn_node *vs_sn_scalar(const char *text, size_t len, int quoted, int line, int col, int origin);
int vs_sn_append(sn_node *parent, sn_node *kid); /* 0 ok, -1 out of memory */
void vs_sn_free(sn_node *n);                     /* drops one reference */
int vs_sn_unshare(sn_node **slot);               /* 0 ok, -1 out of memory */
int vs_sn_is_null(const sn_node *n);

/* Fill err for a problem at (origin, line, col) and return code. */
vs_status vs_sn_fail(const vs_sn_src *src, vs_error *err, vs_status code, int origin, int line,
                     int col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Parse one YAML document; *root is NULL for an empty stream.  Syntax errors
 * are reported with syntax_code (VS_ERR_SCENE for files, VS_ERR_USAGE for a
 * --set value). */
vs_status vs_sn_parse(const vs_sn_src *src, const char *text, size_t len, int origin,
                      vs_status syntax_code, sn_node **root, vs_error *err);

/* vs_sn_parse counting against a budget shared with other parses (NULL:
 * a budget of its own). */
vs_status vs_sn_parse_budget(const vs_sn_src *src, const char *text, size_t len, int origin,
                             vs_status syntax_code, vs_sn_budget *budget, sn_node **root,
                             vs_error *err);

/* Apply src->sets[k] to the tree (creating *root if needed); its value
 * counts against the scene's budget. */
vs_status vs_sn_apply_set(const vs_sn_src *src, sn_node **root, size_t k, vs_sn_budget *budget,
                          vs_error *err);

/* ---- one value: scene_value.c ------------------------------------------ */

#define TRY(x)                            \
  do {                                    \
    vs_status try_st_ = (x);              \
    if (try_st_ != VS_OK) return try_st_; \
  } while (0)

typedef struct sk_row sk_row;

/* Defaults of one scope and kind, parsed once per load (scene_table.c). */
enum { SK_TEMPLATES = 40 }; /* 8 kinds per scope at most */

/* The loader's state: where we are (a dotted path for messages). */
typedef struct vctx {
  vs_sn_src src;
  vs_error *err;
  const char *file_arg; /* the caller's file name, NULL for none */
  char path[512];
  size_t plen;
  void *tmpl[SK_TEMPLATES]; /* per (scope, kind): the defaults, or NULL */
} vctx;

size_t sk_push(vctx *c, const char *comp);
size_t sk_push_index(vctx *c, size_t i);
void sk_pop(vctx *c, size_t mark);
vs_status sk_fail(vctx *c, vs_status code, const sn_node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
vs_status sk_nomem(vctx *c);
vs_status sk_missing(vctx *c, const sn_node *at, const char *key);
const char *sk_got(const sn_node *n, char *buf, size_t size);
const char *sk_got_plain(const sn_node *n, char *buf, size_t size);
const char *sk_got_list(const sn_node *n, char *buf, size_t size);
vs_loc sk_loc(const sn_node *n);
int sk_is_word(const sn_node *v, const char *w);
const char *sk_suggest(const char *word, const char *const *names);
void sk_join(const char *const *names, char *buf, size_t size);

/* Number ranges: lo/hi are SK_NONE, SK_OPEN (strict) or SK_CLOSED. */
enum { SK_NONE = 0, SK_OPEN = 1, SK_CLOSED = 2 };
typedef struct nrange {
  int lo;
  double lov;
  int hi;
  double hiv;
} nrange;
/* Integers: below lo or above hi is invalid input; above limit (a
 * documented VS_MAX_*) is VS_ERR_LIMIT. */
typedef struct irange {
  int64_t lo;
  int has_hi;
  int64_t hi;
  int64_t limit; /* 0 = none */
} irange;

#define R_ANY ((nrange){SK_NONE, 0, SK_NONE, 0})
#define R_POS ((nrange){SK_OPEN, 0, SK_NONE, 0})
#define R_NONNEG ((nrange){SK_CLOSED, 0, SK_NONE, 0})
#define R_STIFF ((nrange){SK_OPEN, 0, SK_CLOSED, 1})
#define R_UNIT ((nrange){SK_CLOSED, 0, SK_CLOSED, 1})
#define R_OMEGA ((nrange){SK_OPEN, 0, SK_OPEN, 2})
#define R_DEG ((nrange){SK_CLOSED, 0, SK_CLOSED, 180})

int sk_parse_int(const sn_node *n, int64_t *out); /* 1 ok, 0 not, 2 too large, 3 too small */
const char *sk_describe_num(nrange r, char *buf, size_t size);
/* time != 0: a rational A/B is accepted too, as the double nearest A/B. */
vs_status sk_num(vctx *c, const sn_node *v, nrange r, int time, double *out);
vs_status sk_int(vctx *c, const sn_node *v, irange r, const char *what, int64_t *out);
vs_status sk_bool(vctx *c, const sn_node *v, int *out);
vs_status sk_vec(vctx *c, const sn_node *v, size_t n, nrange r, int time0, double *out);
vs_status sk_enum(vctx *c, const sn_node *v, const char *const *names, int *out);
vs_status sk_str(vctx *c, const sn_node *v, const char *what, char *buf, size_t cap);

const sn_node *sk_get(const sn_node *m, const char *key);
vs_status sk_as_map(vctx *c, const sn_node *v, const sn_node **m);
vs_status sk_check_keys(vctx *c, const sn_node *m, const char *const *known);
/* An item that is a one-key mapping naming its kind; pushes the kind. */
vs_status sk_kind_item(vctx *c, const sn_node *item, const char *what, const char *const *kinds,
                       int *kind, const sn_node **inner, const sn_node **at);

/* ---- YAML output: scene_emit.c ------------------------------------------ */

/* The emitter writes into the one growable text buffer (util/text.h). */
typedef vs_sbuf sbuf;
void sk_put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sk_put_num(sbuf *b, double v); /* shortest text that reads back to the same bits */
void sk_put_vec(sbuf *b, const double *v, size_t n);
void sk_put_str(sbuf *b, const char *s); /* double-quoted */

/* ---- the key table: scene_keys.c ------------------------------------------ */

/* Where a row's key lives.  SKS_MOTOR, SKS_SPRING and SKS_AIR are nested
 * scopes: the keys of a mapping inside an item (an SK_MAP row names the
 * scope), whose fields live in the item's own struct and whose kinds are the
 * item's (a key can be a hinge's and not a slider's). */
enum {
  SKS_SCENE = 0,
  SKS_BODY,
  SKS_COLLIDER,
  SKS_CONSTRAINT,
  SKS_LINK,
  SKS_RSOLVER,
  SKS_MOTOR,  /* hinge, slider: `motor: {speed, max_torque | max_force}` */
  SKS_SPRING, /* hinge: `spring: {hertz, damping_ratio, rest}` */
  SKS_AIR,    /* bodies: `air_drag: {linear, quadratic}` */
  SKS_COUNT
};

typedef enum sk_type {
  SK_NUM,   /* double, range (SKF_TIME: also A/B) */
  SK_INT,   /* int64_t, irange */
  SK_I32,   /* int, irange */
  SK_BOOL,  /* int 0/1 */
  SK_ENUM,  /* an enum (int-sized), one of names */
  SK_FLAGS, /* unsigned bit mask: a list of names, bit i = names[i] */
  SK_VEC,   /* double[n], each in range */
  SK_IVEC,  /* int64_t[n], each in irange */
  SK_STR,   /* char[n], non-empty; `what` names it in messages */
  SK_REF,   /* vs_ref: a particle reference */
  SK_LINK,  /* vs_link_desc: {stiffness, compliance} (SKS_LINK rows) or none */
  SK_MAP,   /* a nested mapping: the rows of scope `sub` and this row's kind, whose
             * fields are in this row's struct (off unused); its defaults are
             * its rows' (absent or given) */
  SK_HOOK   /* irregular: load and emit are the row's functions */
} sk_type;

enum {
  SKF_REQUIRED = 1, /* missing: an error at the mapping */
  SKF_TIME = 2,     /* a time: A/B accepted */
  SKF_HAS = 4,      /* optional: the int at has_off says whether it was given */
  SKF_BLOCK = 8     /* hook written as a block (a list of items) */
};

typedef vs_status (*sk_load_fn)(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                                void *base);
typedef void (*sk_emit_fn)(sbuf *b, const sk_row *r, const void *base);

/* One key.  The table's order is the order of loading and emitting. */
struct sk_row {
  const char *path; /* SKS_SCENE: "time.dt" (one section level at most); items: "mass" */
  int scope;
  unsigned kinds; /* items: bit (1u << kind) per kind that takes the key */
  int sub;        /* SK_MAP: the nested scope (SKS_MOTOR, ...) */
  sk_type type;
  size_t off;               /* of the field in the scope's struct */
  int n;                    /* SK_VEC/SK_IVEC: length; SK_STR: capacity */
  const char *const *names; /* SK_ENUM/SK_FLAGS */
  nrange range;
  irange irange;
  unsigned flags;
  size_t has_off;                /* SKF_HAS */
  const char *what;              /* SK_STR/SK_REF/SK_INT: the value in messages */
  const char *def;               /* the default as YAML text, or NULL (zero, or computed) */
  const char *doc;               /* for docs/scene-format.md */
  sk_load_fn load;               /* SK_HOOK: reads its key (absent too) from the mapping */
  sk_emit_fn emit;               /* SK_HOOK: writes the value */
  int (*omit)(const void *base); /* not written when true */
  sk_load_fn check;              /* after the value (given or not), e.g. max > min */
};

extern const sk_row vs_sk_rows[];
extern const size_t vs_sk_n_rows;

/* Enum names, one table per enum, NULL-terminated; index = the C value. */
extern const char *const vs_sk_integrators[];
extern const char *const vs_sk_relaxations[];
extern const char *const vs_sk_planes[];
extern const char *const vs_sk_body_kinds[];
extern const char *const vs_sk_collider_kinds[];
extern const char *const vs_sk_constraint_kinds[];
extern const char *const vs_sk_precisions[];
extern const char *const vs_sk_fields[];
extern const char *const vs_sk_rigid_shapes[];
extern const char *const vs_sk_pin_words[]; /* by vs_pin_mode ("list" for VS_PIN_LIST) */

/* The key's name: the path's last component. */
const char *sk_key(const sk_row *r);
int sk_applies(const sk_row *r, int scope, int kind);
/* The SK_MAP row of nested scope sub that applies to kind (NULL: none). */
const sk_row *sk_map_row(int sub, int kind);
/* "{a, b}": the keys of (scope, kind), for messages and docs. */
void sk_scope_keys(int scope, int kind, char *buf, size_t size);

/* ---- the engine: scene_table.c -------------------------------------------- */

/* Fill base with the defaults of (scope, kind). */
vs_status sk_defaults(vctx *c, int scope, int kind, void *base);
/* Check m's keys against the rows of (scope, kind) and load each row. */
vs_status sk_load_rows(vctx *c, int scope, int kind, const sn_node *m, const sn_node *at,
                       void *base);
vs_status sk_load_scene(vctx *c, const sn_node *root, vs_scene *s);
void sk_free_templates(vctx *c);
/* Write the rows of (scope, kind): flow "k: v, k: v" or block lines at ind. */
void sk_emit_rows(sbuf *b, int scope, int kind, const void *base, int flow, const char *ind);
void sk_emit_scene(sbuf *b, const vs_scene *s);

/* ---- hooks: scene_body.c, scene_items.c ----------------------------------- */

vs_status sk_load_bodies(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
void sk_emit_bodies(sbuf *b, const sk_row *r, const void *base);
vs_status sk_load_positions(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_positions(sbuf *b, const sk_row *r, const void *base);
vs_status sk_load_velocities(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base);
void sk_emit_velocities(sbuf *b, const sk_row *r, const void *base);
int sk_no_velocities(const void *base);
vs_status sk_load_masses(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
void sk_emit_masses(sbuf *b, const sk_row *r, const void *base);
int sk_no_masses(const void *base);
int sk_has_masses(const void *base);
vs_status sk_check_grid(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
vs_status sk_check_body_name(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base);
vs_status sk_load_pin(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
void sk_emit_pin(sbuf *b, const sk_row *r, const void *base);

vs_status sk_load_rsolver(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base);
void sk_emit_rsolver(sbuf *b, const sk_row *r, const void *base);
int sk_rigid_has_density(const void *base);
vs_status sk_load_points(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                         void *base);
void sk_emit_points(sbuf *b, const sk_row *r, const void *base);
int sk_no_points(const void *base);
int sk_no_mesh_file(const void *base);
vs_status sk_check_convex(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base);
vs_status sk_check_orientation(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                               void *base);
vs_status sk_check_rotation(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
vs_status sk_check_density(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                           void *base);
vs_status sk_load_body_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_body_keys(sbuf *b, const sk_row *r, const void *base);
int sk_no_body_keys(const void *base);
vs_status sk_load_rotation_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                                void *base);
void sk_emit_rotation_keys(sbuf *b, const sk_row *r, const void *base);
int sk_no_rotation_keys(const void *base);
vs_status sk_check_kinematic(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                             void *base);

vs_status sk_load_colliders(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_colliders(sbuf *b, const sk_row *r, const void *base);
vs_status sk_check_normal(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                          void *base);
vs_status sk_check_box(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
vs_status sk_load_constraints(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                              void *base);
void sk_emit_constraints(sbuf *b, const sk_row *r, const void *base);
vs_status sk_load_rest(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
void sk_emit_rest(sbuf *b, const sk_row *r, const void *base);
int sk_rest_omitted(const void *base);
vs_status sk_key_list(vctx *c, const sn_node *v, const char *form, double **out, size_t *n);
vs_status sk_load_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
void sk_emit_keys(sbuf *b, const sk_row *r, const void *base);
int sk_no_keys(const void *base);
vs_status sk_load_wind_keys(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_wind_keys(sbuf *b, const sk_row *r, const void *base);
int sk_no_wind_keys(const void *base);
int sk_has_wind_keys(const void *base);
vs_status sk_load_mesh_file(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_mesh_file(sbuf *b, const sk_row *r, const void *base);
vs_status sk_load_transform(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                            void *base);
void sk_emit_transform(sbuf *b, const sk_row *r, const void *base);
vs_status sk_check_angle(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
/* hinge, slider: a non-zero axis; limits lo <= hi */
vs_status sk_check_axis(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
vs_status sk_check_limits(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at, void *base);
/* ball: twist lo <= hi */
vs_status sk_check_ball_limits(vctx *c, const sk_row *r, const sn_node *m, const sn_node *at,
                               void *base);

#endif
