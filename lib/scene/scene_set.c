/* SPDX-License-Identifier: MIT */
/* scene_set.c: `--set KEY=VALUE` overrides, applied to the YAML tree.
 *
 * KEY is a dotted path.  Mapping keys are matched by name; a missing key is
 * created (validation later decides whether it is a valid key, and points
 * at "--set" when it is not).  Items of `bodies` are addressed by the body's
 * name (the `name` key inside its single kind mapping, or the default
 * "<kind><index>") or by index; items of other sequences by index, where
 * index == length appends.  Below an item that is a one-key "kind" mapping
 * (bodies, colliders, constraints) the path continues inside the kind
 * mapping, so `bodies.curtain.mass` is `mass` in `- cloth: {name: curtain}`
 * and `world.colliders.0.friction` the friction in `- plane: {...}`; naming
 * the kind (`bodies.0.cloth.mass`) works too.  Setting an item itself
 * (`bodies.1={rope: {...}}`) replaces the whole item.
 * VALUE is parsed as YAML; its nodes carry the override's origin so that
 * validation errors in them are reported against the command line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

/* Digits only, no sign, at most 9 of them: a list index. */
static int parse_index(const char *s, size_t *out) {
  size_t n = strlen(s);
  if (n == 0 || n > 9) return 0;
  size_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (size_t)(s[i] - '0');
  }
  *out = v;
  return 1;
}

static vs_status usage(const vs_sn_src *src, vs_error *err, size_t k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static vs_status usage(const vs_sn_src *src, vs_error *err, size_t k, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vs_sn_fail(src, err, VS_ERR_USAGE, (int)k + 1, 0, 0, "%s", msg);
}

/* The name a body item answers to, as the validator will resolve it. */
static void body_name(const sn_node *item, size_t index, char *buf, size_t size) {
  buf[0] = '\0';
  if (!item || item->kind != SN_MAP || item->n != 2) return;
  const sn_node *kind = item->kids[0], *inner = item->kids[1];
  if (inner->kind == SN_MAP) {
    for (size_t i = 0; i + 1 < inner->n; i += 2) {
      if (!strcmp(inner->kids[i]->text, "name") && inner->kids[i + 1]->kind == SN_SCALAR) {
        snprintf(buf, size, "%s", inner->kids[i + 1]->text);
        return;
      }
    }
  }
  snprintf(buf, size, "%s%zu", kind->text, index);
}

vs_status vs_sn_apply_set(const vs_sn_src *src, sn_node **root, size_t k, vs_sn_budget *budget,
                          vs_error *err) {
  const char *text = src->sets[k].text;
  int origin = (int)k + 1;
  if (!text) return vs_sn_fail(src, err, VS_ERR_USAGE, 0, 0, 0, "--set: missing KEY=VALUE");
  const char *eq = strchr(text, '=');
  if (!eq) return usage(src, err, k, "expected KEY=VALUE");
  if (eq == text) return usage(src, err, k, "empty key before '='");
  /* The limits of a scene file hold for an override too (its nodes and
   * aliases count with the scene's, in vs_sn_parse). */
  size_t tlen = strlen(text);
  if (tlen > VS_MAX_SCENE_BYTES)
    return vs_sn_fail(src, err, VS_ERR_LIMIT, 0, 0, 0,
                      "--set: the override is %zu bytes, over the limit of %u bytes", tlen,
                      VS_MAX_SCENE_BYTES);

  size_t klen = (size_t)(eq - text);
  char *key = vs_malloc(klen + 1);
  if (!key) return vs_sn_fail(src, err, VS_ERR_NOMEM, 0, 0, 0, "out of memory");
  memcpy(key, text, klen);
  key[klen] = '\0';

  /* Split in place into components. */
  size_t ncomp = 1;
  for (size_t i = 0; i < klen; i++) ncomp += key[i] == '.';
  if (ncomp > VS_MAX_YAML_DEPTH) {
    vs_free(key);
    return vs_sn_fail(src, err, VS_ERR_LIMIT, origin, 0, 0,
                      "the key has %zu components, nesting deeper than %d levels", ncomp,
                      VS_MAX_YAML_DEPTH);
  }
  char **comp = vs_malloc(ncomp * sizeof *comp);
  if (!comp) {
    vs_free(key);
    return vs_sn_fail(src, err, VS_ERR_NOMEM, 0, 0, 0, "out of memory");
  }
  vs_status st = VS_OK;
  sn_node *val = NULL;
  {
    size_t c = 0;
    char *p = key;
    comp[c++] = p;
    for (; *p; p++) {
      if (*p == '.') {
        *p = '\0';
        comp[c++] = p + 1;
      }
    }
    for (size_t i = 0; i < ncomp; i++) {
      if (!comp[i][0]) {
        st = vs_sn_fail(src, err, VS_ERR_USAGE, origin, 0, 0,
                        "empty component in the key (write a.b.c)");
        goto done;
      }
    }
  }

  {
    const char *v = eq + 1;
    st = vs_sn_parse_budget(src, v, strlen(v), origin, VS_ERR_USAGE, budget, &val, err);
    if (st) goto done;
    if (!val) {
      /* An empty value: YAML null. */
      val = vs_sn_scalar("", 0, 0, 0, 0, origin);
      if (!val) goto nomem;
    }
  }

  if (!*root || vs_sn_is_null(*root)) {
    vs_sn_free(*root);
    *root = vs_sn_new(SN_MAP, 0, 0, origin);
    if (!*root) goto nomem;
  }

  sn_node **slot = root;
  for (size_t i = 0; i < ncomp; i++) {
    int last = i + 1 == ncomp;
    if (vs_sn_unshare(slot)) goto nomem;
    sn_node *node = *slot;
    if (vs_sn_is_null(node)) {
      /* `time:` with no value: it becomes the mapping we write into. */
      sn_node *m = vs_sn_new(SN_MAP, node->line, node->col, origin);
      if (!m) goto nomem;
      vs_sn_free(node);
      *slot = node = m;
    }
    if (node->kind == SN_MAP) {
      size_t j = 0;
      while (j < node->n && strcmp(node->kids[j]->text, comp[i])) j += 2;
      if (j >= node->n) {
        sn_node *kn = vs_sn_scalar(comp[i], strlen(comp[i]), 0, 0, 0, origin);
        sn_node *vn = last ? NULL : vs_sn_new(SN_MAP, 0, 0, origin);
        if (!kn || (!last && !vn) || vs_sn_append(node, kn)) {
          vs_sn_free(kn);
          vs_sn_free(vn);
          goto nomem;
        }
        if (vs_sn_append(node, last ? val : vn)) {
          /* keep the map well formed: drop the key again */
          node->n--;
          vs_sn_free(kn);
          vs_sn_free(vn);
          goto nomem;
        }
        if (last) val = NULL;
        j = node->n - 2;
      } else if (last) {
        vs_sn_free(node->kids[j + 1]);
        node->kids[j + 1] = val;
        val = NULL;
      }
      slot = &node->kids[j + 1];
    } else if (node->kind == SN_SEQ) {
      int bodies = i == 1 && !strcmp(comp[0], "bodies");
      size_t idx, found = node->n + 1;
      if (parse_index(comp[i], &idx)) {
        found = idx;
      } else if (bodies) {
        for (size_t b = 0; b < node->n && found > node->n; b++) {
          char name[256];
          body_name(node->kids[b], b, name, sizeof name);
          if (!strcmp(name, comp[i])) found = b;
        }
      } else {
        st = usage(src, err, k, "'%s' is not a list index (a sequence is addressed by 0, 1, ...)",
                   comp[i]);
        goto done;
      }
      if (found > node->n || (found == node->n && !last)) {
        if (bodies)
          st = usage(src, err, k, "no body named or numbered '%s' in bodies", comp[i]);
        else
          st = usage(src, err, k, "no item %s in a sequence of %zu items", comp[i], node->n);
        goto done;
      }
      if (found == node->n) {
        /* index == length appends a new item */
        if (vs_sn_append(node, val)) goto nomem;
        val = NULL;
      } else if (last) {
        vs_sn_free(node->kids[found]);
        node->kids[found] = val;
        val = NULL;
      }
      slot = &node->kids[found];
      /* Items naming their kind (bodies, colliders, constraints) are entered
       * transparently: `world.colliders.0.friction` is the friction inside
       * `- plane: {...}`.  Naming the kind (`...0.plane.friction`) works too. */
      if (!last) {
        if (vs_sn_unshare(slot)) goto nomem;
        sn_node *item = *slot;
        if (item->kind == SN_MAP && item->n == 2 && strcmp(item->kids[0]->text, comp[i + 1]))
          slot = &item->kids[1];
      }
    } else {
      st = usage(src, err, k, "cannot set '%s' inside the scalar '%s'", comp[i], node->text);
      goto done;
    }
  }
  goto done;

nomem:
  st = vs_sn_fail(src, err, VS_ERR_NOMEM, 0, 0, 0, "out of memory");
done:
  vs_sn_free(val);
  vs_free(comp);
  vs_free(key);
  return st;
}
