/* SPDX-License-Identifier: MIT */
/* h5guard_result.c: opening a vsim result file and listing its datasets
 * through the validating reader (h5guard.h), for compare, info, xdmf,
 * render and plot. */
#include <stdlib.h>
#include <string.h>

#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "util/alloc.h"

vs_status vs_h5g_open_result(const char *path, vs_h5g_file *f, vs_error *err) {
  vs_status rc = vs_h5g_open(path, f, err);
  if (rc != VS_OK) {
    if (rc == VS_ERR_FORMAT && err && strstr(err->message, "not an HDF5 file"))
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "not an HDF5 file (not a vsim result)");
    return rc;
  }
  int a = vs_h5g_path(f, "/h5md", err);
  int b = a == 1 ? vs_h5g_path(f, "/parameters/vsim", err) : 0;
  if (a < 0 || b < 0) {
    vs_h5g_close(f);
    return VS_ERR_FORMAT;
  }
  if (!a || !b) {
    vs_h5g_close(f);
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "not a vsim result file (no /h5md or /parameters/vsim)");
  }
  return VS_OK;
}

static int list_cb(const char *path, void *data) {
  vs_h5_path_list *l = data;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **v = vs_realloc(l->v, cap * sizeof *v);
    if (!v) return l->oom = 1;
    l->v = v;
    l->cap = cap;
  }
  size_t n = strlen(path) + 1;
  char *p = vs_malloc(n);
  if (!p) return l->oom = 1;
  memcpy(p, path, n);
  l->v[l->n++] = p;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

vs_status vs_h5g_list(const vs_h5g_file *f, const char *const *roots, size_t n_roots,
                      size_t max_objects, struct vs_h5_path_list *l, vs_error *err) {
  for (size_t i = 0; i < n_roots; i++) {
    int r = vs_h5g_visit(f, roots[i], max_objects, list_cb, l, err);
    if (l->oom) return vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
    if (r < 0) return err ? err->code : VS_ERR_FORMAT;
  }
  if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, cmp_str);
  return VS_OK;
}

static int check_cb(const char *path, void *data) {
  void **ctx = data;
  const vs_h5g_file *f = ctx[0];
  vs_error *err = ctx[1];
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, -1, UINT64_MAX);
  vs_h5g_dset d;
  if (vs_h5g_dset_open(f, path, &spec, &d, err) != VS_OK) return 1;
  vs_h5g_dset_close(&d);
  return 0;
}

vs_status vs_h5g_open_checked(const char *path, vs_h5g_file *f, vs_error *err) {
  vs_status rc = vs_h5g_open_result(path, f, err);
  if (rc != VS_OK) return rc;
  void *ctx[2] = {f, err};
  int r = vs_h5g_visit(f, "/", (size_t)1 << 20, check_cb, ctx, err);
  if (r != 0) {
    rc = err && err->code != VS_OK ? err->code : VS_ERR_FORMAT;
    vs_h5g_close(f);
  }
  return rc;
}
