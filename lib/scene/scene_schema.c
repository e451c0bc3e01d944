/* SPDX-License-Identifier: MIT */
/* scene_schema.c: a JSON Schema (draft-07) of the scene format, generated
 * from the key table (scene_keys.c), so that editors check and complete
 * scene files (`vsim schema`, docs/cli.md; the yaml-language-server modeline
 * of every example scene in configs/ names the committed copy,
 * docs/vsim-scene.schema.json).
 *
 * Every mapping the loader reads is an object whose properties are the
 * table's rows for that scope and kind, with additionalProperties false
 * (an unknown key is an error in the loader too); a list item naming its
 * kind is an object of exactly one property.  Types, ranges, enums, vector
 * lengths, required keys, defaults and the rows' documentation come from
 * the rows; the irregular keys (SK_HOOK) are described here, one case per
 * hook.  What only the loader can check (particle references resolving,
 * max > min, unique names) is left to `vsim validate`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "scene/scene_internal.h"
#include "vsim/scene.h"

#define TIME_PATTERN "^\\\\s*[-+]?[0-9.]+([eE][-+]?[0-9]+)?\\\\s*/\\\\s*[-+]?[0-9.]+([eE][-+]?[0-9]+)?\\\\s*$"

static void put_num(vs_sbuf *b, double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", v);
  /* the shortest text that reads back to v */
  for (int p = 1; p <= 17; p++) {
    char t[40];
    snprintf(t, sizeof t, "%.*g", p, v);
    if (strtod(t, NULL) == v) {
      snprintf(buf, sizeof buf, "%s", t);
      break;
    }
  }
  vs_sbuf_puts(b, buf);
}

/* The constraints of a number range (after a '{' and other members). */
static void num_range(vs_sbuf *b, nrange r) {
  if (r.lo == SK_CLOSED) vs_sbuf_puts(b, ", \"minimum\": "), put_num(b, r.lov);
  if (r.lo == SK_OPEN) vs_sbuf_puts(b, ", \"exclusiveMinimum\": "), put_num(b, r.lov);
  if (r.hi == SK_CLOSED) vs_sbuf_puts(b, ", \"maximum\": "), put_num(b, r.hiv);
  if (r.hi == SK_OPEN) vs_sbuf_puts(b, ", \"exclusiveMaximum\": "), put_num(b, r.hiv);
}

static void number(vs_sbuf *b, nrange r, int time) {
  if (time) {
    vs_sbuf_puts(b, "{\"anyOf\": [{\"type\": \"number\"");
    num_range(b, r);
    vs_sbuf_puts(b, "}, {\"type\": \"string\", \"pattern\": \"" TIME_PATTERN
                    "\", \"description\": \"a fraction A/B, read as the double nearest A/B\"}]}");
    return;
  }
  vs_sbuf_puts(b, "{\"type\": \"number\"");
  num_range(b, r);
  vs_sbuf_puts(b, "}");
}

static void integer(vs_sbuf *b, irange r) {
  vs_sbuf_printf(b, "{\"type\": \"integer\", \"minimum\": %lld", (long long)r.lo);
  if (r.has_hi)
    vs_sbuf_printf(b, ", \"maximum\": %lld", (long long)r.hi);
  else if (r.limit > 0)
    vs_sbuf_printf(b, ", \"maximum\": %lld", (long long)r.limit);
  vs_sbuf_puts(b, "}");
}

static void names_enum(vs_sbuf *b, const char *const *names, const char *skip) {
  vs_sbuf_puts(b, "\"enum\": [");
  int first = 1;
  for (size_t i = 0; names[i]; i++) {
    if (skip && !strcmp(names[i], skip)) continue;
    if (!first) vs_sbuf_puts(b, ", ");
    vs_sbuf_json(b, names[i]);
    first = 0;
  }
  vs_sbuf_puts(b, "]");
}

static void vec(vs_sbuf *b, int n, nrange r) {
  vs_sbuf_printf(b, "{\"type\": \"array\", \"minItems\": %d, \"maxItems\": %d, \"items\": ", n, n);
  number(b, r, 0);
  vs_sbuf_puts(b, "}");
}

/* A default written as YAML in the table, as JSON when it is a plain
 * number, boolean, word or flow list of numbers; 0 when it is none of
 * these (then only the description says it). */
static int json_default(vs_sbuf *b, const sk_row *r) {
  const char *d = r->def;
  if (!d) return 0;
  char *end;
  double v = strtod(d, &end);
  if (end != d && !*end && isfinite(v)) {
    vs_sbuf_puts(b, ", \"default\": ");
    vs_sbuf_puts(b, d);
    return 1;
  }
  if (r->type == SK_BOOL && (!strcmp(d, "true") || !strcmp(d, "false"))) {
    vs_sbuf_printf(b, ", \"default\": %s", d);
    return 1;
  }
  if (r->type == SK_ENUM || r->type == SK_STR) {
    vs_sbuf_puts(b, ", \"default\": ");
    vs_sbuf_json(b, d);
    return 1;
  }
  if ((r->type == SK_VEC || r->type == SK_IVEC) && d[0] == '[') {
    /* "[0, -9.81, 0]": numbers only */
    for (const char *p = d + 1; *p && *p != ']'; p++)
      if (!strchr("0123456789.eE+- ,", *p)) return 0;
    vs_sbuf_puts(b, ", \"default\": ");
    vs_sbuf_puts(b, d);
    return 1;
  }
  return 0;
}

static void description(vs_sbuf *b, const sk_row *r) {
  if (!r->doc) return;
  vs_sbuf_puts(b, ", \"description\": ");
  if (r->def && strcmp(r->def, "{}")) {
    char *t = vs_malloc(strlen(r->doc) + strlen(r->def) + 16);
    if (!t) {
      b->bad = 1;
      return;
    }
    sprintf(t, "%s [default: %s]", r->doc, r->def);
    vs_sbuf_json(b, t);
    vs_free(t);
  } else {
    vs_sbuf_json(b, r->doc);
  }
}

static void object(vs_sbuf *b, int scope, int kind, const char *section);
static void items(vs_sbuf *b, int scope, const char *const *kinds, const char *skip);

/* The schema of one row's value, its description and default included. */
static void value(vs_sbuf *b, const sk_row *r, int kind) {
  /* the type's own schema, without its closing brace, then the row's
   * description and default, then '}' */
  vs_sbuf_puts(b, "{\"allOf\": [");
  switch (r->type) {
    case SK_NUM:
      number(b, r->range, (r->flags & SKF_TIME) != 0);
      break;
    case SK_INT:
    case SK_I32:
      integer(b, r->irange);
      break;
    case SK_BOOL:
      vs_sbuf_puts(b, "{\"type\": \"boolean\"}");
      break;
    case SK_ENUM:
      vs_sbuf_puts(b, "{\"type\": \"string\", ");
      names_enum(b, r->names, NULL);
      vs_sbuf_puts(b, "}");
      break;
    case SK_FLAGS:
      vs_sbuf_puts(b, "{\"type\": \"array\", \"uniqueItems\": true, \"items\": {\"type\": \"string\", ");
      names_enum(b, r->names, NULL);
      vs_sbuf_puts(b, "}}");
      break;
    case SK_VEC:
      vec(b, r->n, r->range);
      break;
    case SK_IVEC:
      vs_sbuf_printf(b, "{\"type\": \"array\", \"minItems\": %d, \"maxItems\": %d, \"items\": ", r->n,
                     r->n);
      integer(b, r->irange);
      vs_sbuf_puts(b, "}");
      break;
    case SK_STR:
      vs_sbuf_printf(b, "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": %d", r->n - 1);
      if (r->scope == SKS_BODY && !strcmp(r->path, "name"))
        vs_sbuf_puts(b, ", \"pattern\": \"^(?![0-9]+$)[A-Za-z0-9_-]+$\"");
      vs_sbuf_puts(b, "}");
      break;
    case SK_REF:
      vs_sbuf_puts(b, "{\"anyOf\": [{\"type\": \"integer\", \"minimum\": 0}, {\"type\": \"string\", "
                      "\"minLength\": 1}]}");
      break;
    case SK_LINK:
      vs_sbuf_puts(b, "{\"anyOf\": [{\"const\": \"none\"}, ");
      object(b, SKS_LINK, 0, NULL);
      vs_sbuf_puts(b, "]}");
      break;
    case SK_MAP:
      object(b, r->sub, kind, NULL); /* the nested rows of the item's kind */
      break;
    case SK_HOOK:
      if (r->load == sk_load_rsolver) {
        object(b, SKS_RSOLVER, 0, NULL);
      } else if (r->load == sk_load_bodies) {
        items(b, SKS_BODY, vs_sk_body_kinds, NULL);
      } else if (r->load == sk_load_colliders) {
        items(b, SKS_COLLIDER, vs_sk_collider_kinds, NULL);
      } else if (r->load == sk_load_constraints) {
        items(b, SKS_CONSTRAINT, vs_sk_constraint_kinds, NULL);
      } else if (r->load == sk_load_mesh_file) {
        vs_sbuf_puts(b, "{\"type\": \"string\", \"minLength\": 1}");
      } else if (r->load == sk_load_transform) {
        vs_sbuf_puts(b, "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": "
                        "{\"translate\": ");
        vec(b, 3, R_ANY);
        vs_sbuf_puts(b, ", \"rotate\": ");
        vec(b, 3, R_ANY);
        vs_sbuf_puts(b, ", \"scale\": {\"anyOf\": [");
        number(b, R_POS, 0);
        vs_sbuf_puts(b, ", ");
        vec(b, 3, R_POS);
        vs_sbuf_puts(b, "]}}}");
      } else if (r->load == sk_load_positions || r->load == sk_load_velocities ||
                 r->load == sk_load_points) {
        vs_sbuf_printf(b, "{\"type\": \"array\", \"minItems\": %d, \"items\": ",
                       r->load == sk_load_points ? 4 : r->load == sk_load_positions ? 1 : 0);
        vec(b, 3, R_ANY);
        vs_sbuf_puts(b, "}");
      } else if (r->load == sk_load_masses) {
        vs_sbuf_puts(b, "{\"type\": \"array\", \"items\": ");
        number(b, R_POS, 0);
        vs_sbuf_puts(b, "}");
      } else if (r->load == sk_load_pin) {
        vs_sbuf_puts(b, "{\"anyOf\": [{\"type\": \"string\", ");
        names_enum(b, vs_sk_pin_words, "list");
        /* a list of indices (a rope's also first and last; a grid's [i, j] or
         * [i, j, k]) */
        vs_sbuf_puts(b, "}, {\"type\": \"array\", \"items\": {\"anyOf\": [{\"type\": \"integer\", "
                        "\"minimum\": 0}, {\"enum\": [\"first\", \"last\"]}, {\"type\": \"array\", "
                        "\"minItems\": 2, \"maxItems\": 3, \"items\": {\"type\": \"integer\", "
                        "\"minimum\": 0}}]}}]}");
      } else if (r->load == sk_load_rest) {
        vs_sbuf_puts(b, "{\"anyOf\": [{\"const\": \"auto\"}, ");
        number(b, R_NONNEG, 0);
        vs_sbuf_puts(b, "]}");
      } else if (r->load == sk_load_keys || r->load == sk_load_body_keys ||
                 r->load == sk_load_rotation_keys) {
        vs_sbuf_puts(b, "{\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": \"array\", "
                        "\"minItems\": 4, \"maxItems\": 4, \"items\": [");
        number(b, R_ANY, 1);
        vs_sbuf_puts(b, ", {\"type\": \"number\"}, {\"type\": \"number\"}, {\"type\": \"number\"}]}}");
      } else {
        vs_sbuf_puts(b, "{}"); /* a hook this file does not know yet: anything */
      }
      break;
  }
  vs_sbuf_puts(b, "]");
  description(b, r);
  json_default(b, r);
  vs_sbuf_puts(b, "}");
}

/* The mapping of (scope, kind); for the scene scope, the keys of one
 * section ("time") or, with section NULL, the whole scene. */
static void object(vs_sbuf *b, int scope, int kind, const char *section) {
  vs_sbuf_puts(b, "{\"type\": [\"object\", \"null\"], \"additionalProperties\": false, "
                  "\"properties\": {");
  const char *keys[128];
  char secs[16][32];
  size_t n_keys = 0, n_secs = 0, n_done = 0; /* n_done: properties written */
  const char *required[32];
  size_t n_req = 0;
  size_t sl = section ? strlen(section) : 0;
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (!sk_applies(r, scope, kind)) continue;
    const char *key = r->path;
    if (scope == SKS_SCENE) {
      const char *dot = strchr(r->path, '.');
      if (section) {
        if (!dot || (size_t)(dot - r->path) != sl || strncmp(r->path, section, sl)) continue;
        key = dot + 1;
      } else if (dot) {
        /* a section: written once, at its first row */
        char sec[32];
        snprintf(sec, sizeof sec, "%.*s", (int)(dot - r->path), r->path);
        int seen = 0;
        for (size_t j = 0; j < n_secs && !seen; j++) seen = !strcmp(secs[j], sec);
        if (seen) continue;
        if (n_secs < 16) snprintf(secs[n_secs++], sizeof secs[0], "%s", sec);
        if (n_done++ > 0) vs_sbuf_puts(b, ", ");
        vs_sbuf_json(b, sec);
        vs_sbuf_puts(b, ": ");
        object(b, SKS_SCENE, 0, sec);
        continue;
      }
    }
    int seen = 0;
    for (size_t j = 0; j < n_keys && !seen; j++) seen = !strcmp(keys[j], key);
    if (seen) continue; /* one row per key and kind; never two, but be sure */
    if (n_keys < 128) keys[n_keys++] = key;
    if (n_done++ > 0) vs_sbuf_puts(b, ", ");
    vs_sbuf_json(b, key);
    vs_sbuf_puts(b, ": ");
    value(b, r, kind);
    if ((r->flags & SKF_REQUIRED) && n_req < 32) required[n_req++] = key;
  }
  vs_sbuf_puts(b, "}");
  if (n_req) {
    vs_sbuf_puts(b, ", \"required\": [");
    for (size_t i = 0; i < n_req; i++) {
      if (i) vs_sbuf_puts(b, ", ");
      vs_sbuf_json(b, required[i]);
    }
    vs_sbuf_puts(b, "]");
  }
  vs_sbuf_puts(b, "}");
}

/* A list whose items are one-key mappings naming their kind. */
static void items(vs_sbuf *b, int scope, const char *const *kinds, const char *skip) {
  vs_sbuf_puts(b, "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"minProperties\": 1, "
                  "\"maxProperties\": 1, \"additionalProperties\": false, \"properties\": {");
  for (int k = 0; kinds[k]; k++) {
    if (k) vs_sbuf_puts(b, ", ");
    vs_sbuf_json(b, kinds[k]);
    vs_sbuf_puts(b, ": ");
    object(b, scope, k, NULL);
  }
  vs_sbuf_puts(b, "}}}");
  (void)skip;
}

/* The one-line JSON laid out two spaces an indent, a member a line; an
 * array of scalars (an enum, a default) stays on one line. */
static void pretty(vs_sbuf *o, const char *s) {
  int depth = 0, in_str = 0;
  for (const char *p = s; *p; p++) {
    char c = *p;
    if (in_str) {
      vs_sbuf_add(o, p, 1);
      if (c == '\\' && p[1]) vs_sbuf_add(o, ++p, 1);
      else if (c == '"') in_str = 0;
      continue;
    }
    if (c == '"') {
      in_str = 1;
      vs_sbuf_add(o, p, 1);
      continue;
    }
    if (c == '[') {
      /* scalars only up to the matching ']': keep on one line */
      int flat = 1, str = 0, lvl = 0;
      const char *q = p;
      for (; *q; q++) {
        if (str) {
          if (*q == '\\' && q[1]) q++;
          else if (*q == '"') str = 0;
          continue;
        }
        if (*q == '"') str = 1;
        else if (*q == '{' || (*q == '[' && q != p)) flat = 0;
        else if (*q == '[') lvl++;
        else if (*q == ']' && --lvl == 0) break;
      }
      if (flat && *q) {
        vs_sbuf_add(o, p, (size_t)(q - p + 1));
        p = q;
        continue;
      }
    }
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      if (p[1] == close) {
        vs_sbuf_add(o, p, 2);
        p++;
        continue;
      }
      vs_sbuf_add(o, p, 1);
      depth++;
      vs_sbuf_puts(o, "\n");
      for (int i = 0; i < depth; i++) vs_sbuf_puts(o, "  ");
      continue;
    }
    if (c == '}' || c == ']') {
      depth--;
      vs_sbuf_puts(o, "\n");
      for (int i = 0; i < depth; i++) vs_sbuf_puts(o, "  ");
      vs_sbuf_add(o, p, 1);
      continue;
    }
    if (c == ',') {
      vs_sbuf_puts(o, ",\n");
      for (int i = 0; i < depth; i++) vs_sbuf_puts(o, "  ");
      while (p[1] == ' ') p++;
      continue;
    }
    if (c == '\n') continue;
    vs_sbuf_add(o, p, 1);
  }
  vs_sbuf_puts(o, "\n");
}

vs_status vs_scene_schema(char **out, vs_error *err) {
  if (!out) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_scene_schema: missing argument");
  *out = NULL;
  vs_sbuf b = {0};
  vs_sbuf_puts(&b, "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", "
                   "\"title\": \"vsim scene\", "
                   "\"description\": \"A vsim scene file (docs/scene-format.md), generated from "
                   "the key table by `vsim schema`. What it cannot say (references that resolve, "
                   "max > min, unique names) `vsim validate` checks.\", ");
  /* the scene's own object, its opening brace dropped */
  vs_sbuf o = {0};
  object(&o, SKS_SCENE, 0, NULL);
  if (o.bad || !o.p) {
    vs_sbuf_free(&o);
    vs_sbuf_free(&b);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  }
  /* {"type": ["object", "null"], ...}: a scene file is a mapping (an empty
   * file loads as the defaults) */
  vs_sbuf_puts(&b, o.p + 1);
  vs_sbuf_free(&o);
  vs_sbuf laid = {0};
  if (!b.bad) pretty(&laid, b.p);
  vs_sbuf_free(&b);
  if (laid.bad || !laid.p) {
    vs_sbuf_free(&laid);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  }
  *out = laid.p;
  return VS_OK;
}
