/* SPDX-License-Identifier: MIT */
/* readall.c: whole datasets of a result file read into buffers whose every
 * axis was checked first (readall.h). */
#include "io/read/readall.h"

#include <stdio.h>
#include <string.h>

#include "io/guard/h5guard.h"
#include "io/h5util.h"

/* "[n, 3]" for what a caller wants: axis 0 from dims0 (NULL: n), the
 * others from rest (VS_RD_ANY: "*"). */
static void want_text(int rank, const hsize_t *dims0, const hsize_t *rest, char *buf,
                      size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int k = 0; k < rank && used < size; k++) {
    hsize_t v = k == 0 ? (dims0 ? *dims0 : VS_RD_ANY) : rest ? rest[k - 1] : VS_RD_ANY;
    if (v == VS_RD_ANY)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", k ? "*" : "n");
    else
      used += (size_t)snprintf(buf + used, size - used, "%s%llu", k ? ", " : "",
                               (unsigned long long)v);
  }
  if (used < size) snprintf(buf + used, size - used, "]");
}

static int numeric(const vs_h5_ds *x) { return x->cls == H5T_INTEGER || x->cls == H5T_FLOAT; }

int vs_rd_shape(hid_t f, const char *path, int rank, const hsize_t *inner, hsize_t *dims,
                int *f32, char *why, size_t why_size) {
  if (!vs_h5_path_exists(f, path)) return 0;
  vs_h5_ds x;
  int ok = vs_h5_ds_open(f, path, &x) == 0 && numeric(&x) && x.rank == rank && rank >= 1 &&
           rank <= VS_RD_MAX_RANK;
  for (int k = 1; ok && k < rank; k++)
    ok = !inner || inner[k - 1] == VS_RD_ANY || x.dims[k] == inner[k - 1];
  if (ok) {
    for (int k = 0; k < rank; k++) dims[k] = x.dims[k];
    if (f32) *f32 = x.cls == H5T_FLOAT && H5Tget_size(x.type) == 4;
  } else {
    char want[96];
    want_text(rank, NULL, inner, want, sizeof want);
    char safe[300];
    vs_h5g_escape(path, safe, sizeof safe);
    if (x.d < 0)
      snprintf(why, why_size, "%s cannot be opened", safe);
    else if (!numeric(&x))
      snprintf(why, why_size, "%s is %s, expected numbers %s", safe, x.tname, want);
    else
      snprintf(why, why_size, "%s is %s, expected %s", safe, x.shape, want);
  }
  vs_h5_ds_close(&x);
  return ok ? 1 : -1;
}

int vs_rd_whole_ok(hid_t f, hid_t d, const char *path, uint64_t bytes, char *why,
                   size_t why_size) {
  if (bytes <= VS_RD_WHOLE_FLOOR) return 0;
  hsize_t fsize = 0;
  if (H5Fget_filesize(f, &fsize) < 0) fsize = 0;
  uint64_t bound;
  if (vs_h5g_mul((uint64_t)fsize, VS_RD_WHOLE_PER_BYTE, &bound) != 0) return 0;
  if (bytes <= bound) return 0;
  hsize_t stored = H5Dget_storage_size(d);
  char safe[300];
  vs_h5g_escape(path, safe, sizeof safe);
  snprintf(why, why_size,
           "%s declares %llu bytes stored in %llu (compressed %.0f:1), more than %u times the "
           "file's %llu bytes: refused (vsim's own files are far from that)",
           safe, (unsigned long long)bytes, (unsigned long long)stored,
           stored ? (double)bytes / (double)stored : 0.0, VS_RD_WHOLE_PER_BYTE,
           (unsigned long long)fsize);
  return -1;
}

int vs_rd_read_all(hid_t f, const char *path, int rank, const hsize_t *dims, hid_t mtype,
                   void *buf, size_t buf_bytes, char *why, size_t why_size) {
  char safe[300];
  vs_h5g_escape(path, safe, sizeof safe);
  vs_h5_ds x;
  if (rank < 1 || rank > VS_RD_MAX_RANK || vs_h5_ds_open(f, path, &x) < 0 || !numeric(&x)) {
    if (rank >= 1 && rank <= VS_RD_MAX_RANK && x.d >= 0)
      snprintf(why, why_size, "%s is %s, expected numbers", safe, x.tname);
    else
      snprintf(why, why_size, "%s cannot be opened", safe);
    vs_h5_ds_close(&x);
    return -1;
  }
  int same = x.rank == rank;
  uint64_t n = 1;
  for (int k = 0; same && k < rank; k++) {
    same = x.dims[k] == dims[k];
    if (vs_h5g_mul(n, dims[k], &n) != 0) same = 0;
  }
  uint64_t need = 0, declared = 0;
  int rc = -1;
  if (!same) {
    char want[96];
    want_text(rank, dims, dims + 1, want, sizeof want);
    snprintf(why, why_size, "%s is %s, expected %s", safe, x.shape, want);
  } else if (vs_h5g_mul(n, H5Tget_size(mtype), &need) != 0 || need > buf_bytes) {
    snprintf(why, why_size, "%s is %s: more than the %zu bytes read for it", safe, x.shape,
             buf_bytes);
  } else if (vs_h5g_mul(n, H5Tget_size(x.type), &declared) != 0 ||
             vs_rd_whole_ok(f, x.d, path, declared > need ? declared : need, why, why_size) != 0) {
    /* why filled */
  } else if (n > 0 && H5Dread(x.d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    char h5[256];
    vs_h5_error_text(h5, sizeof h5);
    snprintf(why, why_size, "%s: cannot read: %s", safe, h5);
  } else {
    rc = 0;
  }
  vs_h5_ds_close(&x);
  return rc;
}
