/* scene_internal.h: private to the scene loader (scene*.c).
 *
 * The loader works in three passes over one in-memory YAML tree:
 *   scene_yaml.c  libyaml events -> sn_node tree (limits: depth, nodes, aliases)
 *   scene_set.c   `--set KEY=VALUE` overrides edit that tree
 *   scene.c       tree -> vs_scene (keys, types, ranges, defaults)
 * and scene_emit.c writes a vs_scene back out as YAML.
 *
 * Aliases (`*a`) share the anchored node instead of copying it (refs counts
 * the owners), so a "billion laughs" document is rejected by arithmetic on
 * subtree sizes, before anything is expanded.  Overrides unshare a node
 * before they change it (copy on write, one level at a time). */
#ifndef VSIM_SCENE_INTERNAL_H
#define VSIM_SCENE_INTERNAL_H

#include <stddef.h>

#include "vsim/error.h"
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

#endif
