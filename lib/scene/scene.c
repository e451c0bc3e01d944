/* SPDX-License-Identifier: MIT */
/* scene.c: the public entry points: load a scene from text or a file
 * (YAML tree, then --set, then the key table: scene_table.c), free it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/file.h"
#include "scene/scene_internal.h"

static vs_status fail_top(vctx *c, const sn_node *root) {
  char g[96];
  return sk_fail(c, VS_ERR_SCENE, root, "expected a mapping of scene keys at the top level, got %s",
                 sk_got(root, g, sizeof g));
}

vs_status vs_scene_load_string(const char *text, size_t len, const char *file,
                               const vs_override *sets, size_t n_sets, vs_scene **out,
                               vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!out || (!text && len) || (n_sets && !sets))
    return vs_error_set(err, VS_ERR_USAGE, file, 0, 0, "vs_scene_load_string: bad arguments");
  if (!text) text = "";
  if (len > VS_MAX_SCENE_BYTES)
    return vs_error_set(err, VS_ERR_LIMIT, file, 0, 0,
                        "the scene is %zu bytes, over the limit of %u bytes", len,
                        VS_MAX_SCENE_BYTES);
  vctx c;
  memset(&c, 0, sizeof c);
  vs_sn_budget budget = {0, 0};
  c.src.file = file ? file : "<string>";
  c.file_arg = file;
  c.src.sets = sets;
  c.src.n_sets = n_sets;
  c.err = err;

  sn_node *root = NULL;
  vs_scene *s = NULL;
  vs_status st = vs_sn_parse_budget(&c.src, text, len, 0, VS_ERR_SCENE, &budget, &root, err);
  if (st) return st;
  if (root && vs_sn_is_null(root)) {
    vs_sn_free(root);
    root = NULL;
  }
  if (root && root->kind != SN_MAP) {
    st = fail_top(&c, root);
    goto done;
  }
  for (size_t k = 0; k < n_sets; k++) {
    st = vs_sn_apply_set(&c.src, &root, k, &budget, err);
    if (st) goto done;
  }

  s = vs_calloc(1, sizeof *s);
  if (!s) goto nomem;
  s->file = vs_strdup(c.src.file);
  s->text = vs_malloc(len + 1);
  if (!s->file || !s->text) goto nomem;
  if (len) memcpy(s->text, text, len);
  s->text[len] = '\0';
  s->text_len = len;
  st = sk_load_scene(&c, root, s);
  if (st) goto done;
  *out = s;
  s = NULL;
  goto done;

nomem:
  st = sk_nomem(&c);
done:
  sk_free_templates(&c);
  vs_scene_free(s);
  vs_sn_free(root);
  return st;
}

static int is_yaml_name(const char *name) {
  size_t n = strlen(name);
  return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* For a scene path that does not exist: the .yaml/.yml file in the same
 * directory whose name is closest to it (edit distance at most 2, the
 * alphabetically first of equals), written as the path would be, in out;
 * "" when there is none. */
static void closest_scene(const char *path, char *out, size_t size) {
  out[0] = '\0';
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  int dlen = slash ? (int)(slash - path) : 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", slash ? (dlen ? dlen : 1) : 1, slash ? path : ".");
  DIR *d = opendir(dir);
  if (!d) return;
  int best = 3;
  char name[256] = "";
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!is_yaml_name(e->d_name) || strcmp(e->d_name, base) == 0) continue;
    int k = vs_edit_distance(base, e->d_name, 3);
    if (k < best || (k == best && k <= 2 && strcmp(e->d_name, name) < 0)) {
      best = k;
      snprintf(name, sizeof name, "%s", e->d_name);
    }
  }
  closedir(d);
  if (best <= 2) snprintf(out, size, "%.*s%s%s", dlen, path, slash ? "/" : "", name);
}

#define TRY_JOIN(x)                 \
  do {                              \
    vs_status js_ = (x);            \
    if (js_ != VS_OK) return js_;   \
  } while (0)

/* A mesh `file` is relative to the scene file: prefix the scene's directory
 * (the resolved scene, written to result files, then names the path from the
 * working directory of the run). */
static vs_status join_one(const char *dir, size_t dlen, vs_mesh_ref *mr, const char *path,
                          vs_error *err) {
  if (!mr->file || mr->file[0] == '/' || dlen == 0) return VS_OK;
  size_t n = strlen(mr->file);
  if (dlen + 1 + n >= VS_MAX_PATH)
    return vs_error_set(err, VS_ERR_LIMIT, path, mr->loc.line, mr->loc.column,
                        "the mesh file's path would be longer than %d bytes", VS_MAX_PATH - 1);
  char *j = vs_malloc(dlen + 1 + n + 1);
  if (!j) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  memcpy(j, dir, dlen);
  j[dlen] = '/';
  memcpy(j + dlen + 1, mr->file, n + 1);
  vs_free(mr->file);
  mr->file = j;
  return VS_OK;
}

static vs_status join_mesh_paths(const char *path, vs_scene *s, vs_error *err) {
  const char *slash = strrchr(path, '/');
  if (!slash) return VS_OK;
  size_t dlen = (size_t)(slash - path);
  if (dlen == 0) dlen = 1; /* "/scene.yaml": the root */
  for (size_t i = 0; i < s->n_bodies; i++)
    if (s->bodies[i].kind == VS_BODY_MESH || s->bodies[i].kind == VS_BODY_RIGID)
      TRY_JOIN(join_one(path, dlen, &s->bodies[i].mesh, path, err));
  for (size_t i = 0; i < s->n_colliders; i++)
    if (s->colliders[i].kind == VS_COLLIDER_MESH)
      TRY_JOIN(join_one(path, dlen, &s->colliders[i].mesh, path, err));
  return VS_OK;
}

vs_status vs_scene_load_file(const char *path, const vs_override *sets, size_t n_sets,
                             vs_scene **out, vs_error *err) {
  vs_error_clear(err);
  if (out) *out = NULL;
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_scene_load_file: bad arguments");
  struct stat sb;
  if (stat(path, &sb) != 0 && errno == ENOENT) {
    char near[4400] = "";
    closest_scene(path, near, sizeof near);
    if (near[0])
      return vs_error_set(err, VS_ERR_IO, path, 0, 0,
                          "cannot read scene file '%s': %s (did you mean '%s'?)", path,
                          strerror(ENOENT), near);
  }
  char *buf;
  size_t n;
  vs_status rd = vs_read_file(path, "scene file", VS_MAX_SCENE_BYTES, &buf, &n, err);
  if (rd != VS_OK) return rd;
  vs_status st = vs_scene_load_string(buf, n, path, sets, n_sets, out, err);
  vs_free(buf);
  if (st == VS_OK) st = join_mesh_paths(path, *out, err);
  if (st != VS_OK && *out) {
    vs_scene_free(*out);
    *out = NULL;
  }
  return st;
}

void vs_scene_free(vs_scene *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_bodies; i++) {
    vs_free(s->bodies[i].masses);
    vs_free(s->bodies[i].positions);
    vs_free(s->bodies[i].velocities);
    vs_free(s->bodies[i].pins);
    vs_free(s->bodies[i].keys);
    vs_free(s->bodies[i].rotation_keys);
    vs_free(s->bodies[i].mesh.file);
  }
  for (size_t i = 0; i < s->n_colliders; i++) vs_free(s->colliders[i].mesh.file);
  for (size_t i = 0; i < s->n_constraints; i++) vs_free(s->constraints[i].keys);
  vs_free(s->wind_keys);
  vs_free(s->bodies);
  vs_free(s->colliders);
  vs_free(s->constraints);
  vs_free(s->file);
  vs_free(s->text);
  vs_free(s);
}
