/* SPDX-License-Identifier: MIT */
/* h5util.c: small HDF5 helpers shared by the writer and compare (h5util.h). */
#include "io/h5util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"

void vs_h5_quiet(void) {
  /* HDF5 closes open files at exit.  A file whose close already failed
   * (a full disk) stays registered half torn down, and closing it again at
   * exit crashes HDF5 1.10 (H5F__close_cb): so no cleanup at exit.  We close
   * everything ourselves.  Effective only before HDF5 initialises, which is
   * why this comes first in every entry point; later it is a no-op. */
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

hid_t vs_h5_file_access(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return H5P_DEFAULT;
#if H5_VERSION_GE(1, 10, 7)
  /* Keep HDF5's file locks, but do not fail on file systems that have
   * none (some NFS and Lustre set-ups answer ENOSYS). */
  H5Pset_file_locking(fapl, 1, 1);
#endif
  return fapl;
}

typedef struct error_walk {
  char *buf;
  size_t size;
  int found;
} error_walk;

/* Walking upward visits the most specific record first: the one closest to
 * the system call that failed.  The file drivers put the system's own
 * words there ("... error message = 'No space left on device', ..."): those
 * are what a user needs, the rest is HDF5's call chain. */
static herr_t error_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  error_walk *w = data;
  if (w->found || !e || !e->desc || !e->desc[0]) return 0;
  const char *sys = strstr(e->desc, "error message = '");
  if (sys) {
    sys += strlen("error message = '");
    const char *end = strchr(sys, '\'');
    int len = end ? (int)(end - sys) : (int)strlen(sys);
    snprintf(w->buf, w->size, "%.*s", len, sys);
  } else {
    snprintf(w->buf, w->size, "%s", e->desc);
  }
  w->found = 1;
  return 0;
}

void vs_h5_error_text(char *buf, size_t size) {
  if (!buf || size == 0) return;
  error_walk w = {buf, size, 0};
  buf[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, error_walk_cb, &w);
  if (!w.found) snprintf(buf, size, "unknown HDF5 error");
}

int vs_h5_path_exists(hid_t file, const char *path) {
  /* A stack copy, not an allocation: an answer of "absent" must never
   * really mean "out of memory" (a file would be called foreign). */
  char p[1024];
  size_t n = path ? strlen(path) : 0;
  if (!path || path[0] != '/' || n >= sizeof p) return 0;
  memcpy(p, path, n + 1);
  int ok = 1;
  /* H5Lexists fails (rather than saying 0) when an intermediate component
   * is missing, so check one prefix at a time. */
  for (size_t i = 1; i <= n && ok; i++) {
    if (p[i] == '/' || p[i] == '\0') {
      char c = p[i];
      p[i] = '\0';
      if (i > 1 && H5Lexists(file, p, H5P_DEFAULT) <= 0) ok = 0;
      p[i] = c;
    }
  }
  if (ok && n > 1 && H5Oexists_by_name(file, path, H5P_DEFAULT) <= 0) ok = 0;
  return ok;
}

static hid_t open_attr(hid_t loc, const char *obj, const char *name) {
  if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0) return H5I_INVALID_HID;
  return H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
}

char *vs_h5_attr_string(hid_t loc, const char *obj, const char *name, int *nomem) {
  if (nomem) *nomem = 0;
  hid_t a = open_attr(loc, obj, name);
  if (a < 0) return NULL;
  char *out = NULL;
  hid_t ftype = H5Aget_type(a);
  hid_t space = H5Aget_space(a);
  if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space) != 1)
    goto done;
  hid_t mtype = H5Tcopy(H5T_C_S1);
  if (mtype < 0) goto done;
  H5Tset_cset(mtype, H5Tget_cset(ftype));
  if (H5Tis_variable_str(ftype) > 0) {
    char *s = NULL;
    if (H5Tset_size(mtype, H5T_VARIABLE) >= 0 && H5Aread(a, mtype, &s) >= 0 && s) {
      out = vs_strdup(s);
      if (!out && nomem) *nomem = 1;
      H5free_memory(s);
    }
  } else {
    size_t sz = H5Tget_size(ftype);
    char *s = vs_calloc(sz + 1, 1);
    if (!s && nomem) *nomem = 1;
    /* NUL-terminated copy of whatever padding the file used */
    if (s && H5Tset_size(mtype, sz + 1) >= 0 && H5Tset_strpad(mtype, H5T_STR_NULLTERM) >= 0 &&
        H5Aread(a, mtype, s) >= 0) {
      out = s;
      s = NULL;
    }
    vs_free(s);
  }
  H5Tclose(mtype);
done:
  if (space >= 0) H5Sclose(space);
  if (ftype >= 0) H5Tclose(ftype);
  H5Aclose(a);
  return out;
}

static int attr_numeric(hid_t loc, const char *obj, const char *name, hid_t mtype, void *out) {
  hid_t a = open_attr(loc, obj, name);
  if (a < 0) return -1;
  int rc = -1;
  hid_t ftype = H5Aget_type(a);
  hid_t space = H5Aget_space(a);
  if (ftype >= 0 && space >= 0 && H5Sget_simple_extent_npoints(space) == 1) {
    H5T_class_t c = H5Tget_class(ftype);
    if ((c == H5T_INTEGER || c == H5T_FLOAT) && H5Aread(a, mtype, out) >= 0) rc = 0;
  }
  if (space >= 0) H5Sclose(space);
  if (ftype >= 0) H5Tclose(ftype);
  H5Aclose(a);
  return rc;
}

int vs_h5_attr_int64(hid_t loc, const char *obj, const char *name, int64_t *out) {
  long long v = 0;
  if (attr_numeric(loc, obj, name, H5T_NATIVE_LLONG, &v) != 0) return -1;
  *out = (int64_t)v;
  return 0;
}

int vs_h5_attr_double(hid_t loc, const char *obj, const char *name, double *out) {
  return attr_numeric(loc, obj, name, H5T_NATIVE_DOUBLE, out);
}

const char *vs_h5_type_name(hid_t type, char *buf, size_t size) {
  size_t bytes = H5Tget_size(type);
  switch ((int)H5Tget_class(type)) { /* HDF5's enum: the classes named below, else generic */
  case H5T_INTEGER:
    snprintf(buf, size, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bytes * 8);
    break;
  case H5T_FLOAT: snprintf(buf, size, "float%zu", bytes * 8); break;
  case H5T_STRING: snprintf(buf, size, "string"); break;
  case H5T_COMPOUND: snprintf(buf, size, "compound"); break;
  case H5T_ENUM: snprintf(buf, size, "enum"); break;
  case H5T_ARRAY: snprintf(buf, size, "array"); break;
  case H5T_VLEN: snprintf(buf, size, "vlen"); break;
  case H5T_REFERENCE: snprintf(buf, size, "reference"); break;
  case H5T_OPAQUE: snprintf(buf, size, "opaque"); break;
  case H5T_BITFIELD: snprintf(buf, size, "bitfield"); break;
  default: snprintf(buf, size, "unknown"); break;
  }
  return buf;
}

const char *vs_h5_shape_text(hid_t space, char *buf, size_t size) {
  hsize_t dims[H5S_MAX_RANK];
  int rank = H5Sget_simple_extent_dims(space, dims, NULL);
  size_t used = 0;
  if (size == 0) return buf;
  buf[0] = '\0';
  if (rank < 0) {
    snprintf(buf, size, "[?]");
    return buf;
  }
  used += (size_t)snprintf(buf + used, size - used, "[");
  for (int i = 0; i < rank && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? ", " : "",
                             (unsigned long long)dims[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
  return buf;
}

vs_status vs_h5_open_result(const char *path, hid_t *out, vs_error *err) {
  *out = H5I_INVALID_HID;
  struct stat st;
  if (access(path, R_OK) != 0)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "is a directory");
  vs_h5_quiet();
  if (H5Fis_hdf5(path) <= 0)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "not an HDF5 file (not a vsim result)");
  hid_t fapl = vs_h5_file_access();
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl != H5P_DEFAULT) H5Pclose(fapl);
  if (f < 0) {
    char h5[256];
    vs_h5_error_text(h5, sizeof h5);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot open: %s", h5);
  }
  if (!vs_h5_path_exists(f, "/h5md") || !vs_h5_path_exists(f, "/parameters/vsim")) {
    H5Fclose(f);
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "not a vsim result file (no /h5md or /parameters/vsim)");
  }
  *out = f;
  return VS_OK;
}

/* ---- a sorted list of dataset paths -------------------------------------- */


static void list_add(vs_h5_path_list *l, const char *prefix, const char *name) {
  if (l->oom) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **v = vs_realloc(l->v, cap * sizeof *v);
    if (!v) {
      l->oom = 1;
      return;
    }
    l->v = v;
    l->cap = cap;
  }
  size_t len = strlen(prefix) + 1 + strlen(name) + 1;
  char *p = vs_malloc(len);
  if (!p) {
    l->oom = 1;
    return;
  }
  if (strcmp(prefix, "/") == 0)
    snprintf(p, len, "/%s", name);
  else
    snprintf(p, len, "%s/%s", prefix, name);
  l->v[l->n++] = p;
}

void vs_h5_list_free(vs_h5_path_list *l) {
  for (size_t i = 0; i < l->n; i++) vs_free(l->v[i]);
  vs_free(l->v);
  memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct visit_ctx {
  vs_h5_path_list *list;
  const char *prefix;
} visit_ctx;

/* Soft and external links are skipped: they are not data of this file. */
static herr_t visit_cb(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  visit_ctx *c = data;
  if (info->type != H5L_TYPE_HARD) return 0;
  hid_t o = H5Oopen(group, name, H5P_DEFAULT);
  if (o < 0) return 0;
  if (H5Iget_type(o) == H5I_DATASET) list_add(c->list, c->prefix, name);
  H5Oclose(o);
  return c->list->oom ? -1 : 0;
}

/* Every dataset under `root` (an absolute group path), appended to l. */
static int collect(hid_t file, const char *root, vs_h5_path_list *l) {
  if (strcmp(root, "/") != 0 && !vs_h5_path_exists(file, root)) return 0;
  hid_t g = H5Gopen2(file, root, H5P_DEFAULT);
  if (g < 0) return 0; /* a dataset named like a root: nothing to walk */
  visit_ctx c = {l, root};
  herr_t rc = H5Lvisit(g, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &c);
  H5Gclose(g);
  return rc < 0 || l->oom ? -1 : 0;
}


vs_status vs_h5_list_datasets(hid_t f, const char *name, const char *const *roots, size_t n_roots,
                             vs_h5_path_list *l, vs_error *err) {
  for (size_t i = 0; i < n_roots; i++) {
    if (collect(f, roots[i], l) < 0) {
      if (l->oom) return vs_error_set(err, VS_ERR_NOMEM, name, 0, 0, "out of memory");
      return vs_error_set(err, VS_ERR_IO, name, 0, 0, "cannot list the datasets under %s",
                          roots[i]);
    }
  }
  if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, cmp_str);
  return VS_OK;
}

/* ---- one dataset ---------------------------------------------------------- */

int vs_h5_ds_open(hid_t f, const char *path, vs_h5_ds *x) {
  memset(x, 0, sizeof *x);
  x->type = x->space = H5I_INVALID_HID;
  x->d = H5Dopen2(f, path, H5P_DEFAULT);
  if (x->d < 0) return -1;
  x->type = H5Dget_type(x->d);
  x->space = H5Dget_space(x->d);
  if (x->type < 0 || x->space < 0) return -1;
  x->rank = H5Sget_simple_extent_dims(x->space, x->dims, NULL);
  if (x->rank < 0) return -1;
  x->cls = H5Tget_class(x->type);
  vs_h5_shape_text(x->space, x->shape, sizeof x->shape);
  vs_h5_type_name(x->type, x->tname, sizeof x->tname);
  return 0;
}

void vs_h5_ds_close(vs_h5_ds *x) {
  if (x->space > 0) H5Sclose(x->space);
  if (x->type > 0) H5Tclose(x->type);
  if (x->d > 0) H5Dclose(x->d);
}

/* Read the hyperslab (start, count) of both datasets as mtype. */
int vs_h5_read_slab(const vs_h5_ds *x, const hsize_t *start, const hsize_t *count, hid_t mtype,
                     void *buf) {
  hid_t fs = H5Scopy(x->space);
  hid_t ms = H5Screate_simple(x->rank > 0 ? x->rank : 1, x->rank > 0 ? count : (hsize_t[]){1},
                              NULL);
  int rc = -1;
  if (fs >= 0 && ms >= 0 &&
      (x->rank == 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0) &&
      H5Dread(x->d, mtype, x->rank > 0 ? ms : H5S_ALL, x->rank > 0 ? fs : H5S_ALL, H5P_DEFAULT,
              buf) >= 0)
    rc = 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return rc;
}
