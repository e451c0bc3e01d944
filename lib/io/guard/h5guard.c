/* SPDX-License-Identifier: MIT */
/* h5guard.c: the validating reader layer for HDF5 files (h5guard.h). */
#include "io/guard/h5guard_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/h5util.h"
#include "util/alloc.h"
#include "util/file.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---- small helpers -------------------------------------------------------- */

int vs_h5g_mul(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return -1;
  *out = a * b;
  return 0;
}

/* HDF5's own words for what failed: the one walk of the error stack
 * (io/h5util.c), which the writer's messages use too. */
void vs_h5g_error_text(char *buf, size_t size) { vs_h5_error_text(buf, size); }

/* vs_error_set with HDF5's explanation appended; reads the stack first. */
vs_status vs_h5g__fail(vs_error *err, vs_status code, const char *file, const char *what) {
  char h5[320];
  vs_h5g_error_text(h5, sizeof h5);
  char safe[400];
  vs_h5g_escape(h5, safe, sizeof safe);
  return vs_error_set(err, code, file, 0, 0, "%s: %s", what, safe);
}

static void quiet(void) {
  /* See h5util.c: no clean-up at exit (HDF5 1.10 can crash there after a
   * failed close), no automatic printing: the library never prints.  No
   * filter plugins: a file must not choose code to load. */
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  H5PLset_loading_state(0);
}

/* ---- opening a file ------------------------------------------------------- */

static herr_t refuse_elink(const char *parent_file, const char *parent_group,
                           const char *child_file, const char *child_obj, unsigned *acc_flags,
                           hid_t fapl, void *data) {
  (void)parent_file, (void)parent_group, (void)child_file, (void)child_obj;
  (void)acc_flags, (void)fapl, (void)data;
  return -1;
}

void vs_h5g_close(vs_h5g_file *f) {
  if (!f) return;
  if (f->lapl >= 0) H5Pclose(f->lapl);
  if (f->file >= 0) H5Fclose(f->file);
  if (f->fd >= 0) close(f->fd);
  f->lapl = f->file = H5I_INVALID_HID;
  f->fd = -1;
}

vs_status vs_h5g_open(const char *path, vs_h5g_file *f, vs_error *err) {
  if (!f) return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5g_open: missing argument");
  f->file = f->lapl = H5I_INVALID_HID;
  f->fd = -1;
  f->size = 0;
  f->name[0] = '\0';
  if (!path || !path[0])
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5g_open: missing argument");
  snprintf(f->name, sizeof f->name, "%s", path);
  quiet();

  /* stat first: a device or FIFO is refused without being opened at all
   * (opening some devices has effects); then open without blocking, in
   * case the path was swapped for a FIFO meanwhile, and check again. */
  struct stat st, st2;
  if (stat(path, &st) != 0)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  if (!S_ISREG(st.st_mode))
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot open: %s, not a regular file",
                        vs_file_kind(st.st_mode));
  f->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (f->fd < 0)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  if (fstat(f->fd, &st2) != 0 || !S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev ||
      st2.st_ino != st.st_ino) {
    vs_h5g_close(f);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0,
                        "cannot open: the file changed while it was being opened");
  }
  f->size = (uint64_t)st2.st_size;

  /* HDF5 opens the very file checked: through /proc/self/fd when there is
   * one (the same inode even if the path changes), and in every case its
   * own descriptor is compared with ours below. */
  char name[64];
  snprintf(name, sizeof name, "/proc/self/fd/%d", f->fd);
  struct stat pst;
  const char *h5name = stat(name, &pst) == 0 && pst.st_dev == st2.st_dev && pst.st_ino == st2.st_ino
                           ? name
                           : path;
  /* HDF5 walks the whole file's structure first in a child process
   * (h5guard_probe.c): a corrupt structure that crashes or hangs HDF5
   * itself is refused here instead of crashing this process later. */
  vs_status rc = vs_h5g__probe(f, h5name, &st2, err);
  if (rc == VS_OK) rc = vs_h5g__open_hdf5(f, h5name, &st2, err);
  if (rc != VS_OK) vs_h5g_close(f);
  return rc;
}

/* H5Fopen of h5name (our descriptor's /proc name, or the path) and the
 * file's sizes and link access list into f; f->fd and f->name are set.
 * On failure what was opened stays in f (the caller closes it). */
vs_status vs_h5g__open_hdf5(vs_h5g_file *f, const char *h5name, const struct stat *st2,
                            vs_error *err) {
  const char *path = f->name;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_sec2(fapl) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
    vs_status rc = vs_h5g__fail(err, VS_ERR_IO, path, "cannot open");
    if (fapl >= 0) H5Pclose(fapl);
    return rc;
  }
#if H5_VERSION_GE(1, 10, 7)
  H5Pset_file_locking(fapl, 1, 1);
#endif
  f->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
  vs_status rc = VS_OK;
  if (f->file < 0) {
    /* the stack first: H5Pclose below would clear it */
    char h5[320], safe[400];
    vs_h5g_error_text(h5, sizeof h5);
    vs_h5g_escape(h5, safe, sizeof safe);
    if (strstr(h5, "file signature"))
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "cannot open: not an HDF5 file (%s)", safe);
    else
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "cannot open: %s", safe);
  }
  H5Pclose(fapl);
  if (rc != VS_OK) {
    return rc;
  }
  void *handle = NULL;
  struct stat hst;
  if (H5Fget_vfd_handle(f->file, H5P_DEFAULT, &handle) < 0 || !handle ||
      fstat(*(int *)handle, &hst) != 0 || hst.st_dev != st2->st_dev || hst.st_ino != st2->st_ino) {
    return vs_error_set(err, VS_ERR_IO, path, 0, 0,
                        "cannot open: the file changed while it was being opened");
  }
  hid_t fcpl = H5Fget_create_plist(f->file);
  size_t as = 0, ls = 0;
  hsize_t ub = 0;
  if (fcpl < 0 || H5Pget_sizes(fcpl, &as, &ls) < 0 || H5Pget_userblock(fcpl, &ub) < 0) {
    rc = vs_h5g__fail(err, VS_ERR_FORMAT, path, "cannot open");
    if (fcpl >= 0) H5Pclose(fcpl);
    return rc;
  }
  H5Pclose(fcpl);
  f->addr_size = (unsigned)as;
  f->len_size = (unsigned)ls;
  f->base = ub;
  f->lapl = H5Pcreate(H5P_LINK_ACCESS);
  if (f->lapl < 0 || H5Pset_elink_cb(f->lapl, refuse_elink, NULL) < 0) {
    rc = vs_h5g__fail(err, VS_ERR_IO, path, "cannot open");
    return rc;
  }
  return VS_OK;
}

/* ---- paths ------------------------------------------------------------------ */

static const char *link_kind(H5L_type_t t) {
  switch ((int)t) { /* HDF5's enum: the link kinds named below, else "a link" */
  case H5L_TYPE_SOFT: return "a soft link";
  case H5L_TYPE_EXTERNAL: return "an external link (to another file)";
  default: return "a user-defined link";
  }
}

int vs_h5g_path(const vs_h5g_file *f, const char *path, vs_error *err) {
  char p[1024], safe[600];
  size_t n = path ? strlen(path) : 0;
  if (!path || path[0] != '/' || n < 2 || n >= sizeof p || path[n - 1] == '/') {
    vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "bad object path '%s'",
                 vs_h5g_escape(path ? path : "", safe, sizeof safe));
    return -1;
  }
  memcpy(p, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    p[i] = '\0';
    const char *comp = strrchr(p, '/') + 1;
    if (!comp[0] || strcmp(comp, ".") == 0) {
      vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "bad object path '%s'",
                   vs_h5g_escape(path, safe, sizeof safe));
      return -1;
    }
    /* Every prefix was checked to be a hard link: H5Lexists and
     * H5Lget_info traverse only those (and f->lapl refuses external ones). */
    htri_t ex = H5Lexists(f->file, p, f->lapl);
    if (ex <= 0) return 0; /* missing, or a prefix that is not a group */
    H5L_info_t info;
    if (H5Lget_info(f->file, p, &info, f->lapl) < 0) return 0;
    if (info.type != H5L_TYPE_HARD) {
      vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is %s: refused",
                   vs_h5g_escape(p, safe, sizeof safe), link_kind(info.type));
      return -1;
    }
    p[i] = i < n ? '/' : '\0';
  }
  return 1;
}

/* ---- types ------------------------------------------------------------------ */

static const struct {
  unsigned bit;
  const char *name;
  hid_t *le, *be; /* pointers: the H5T_ globals are variables set at init */
} type_table[] = {
    {VS_H5G_F64, "float64", &H5T_IEEE_F64LE_g, &H5T_IEEE_F64BE_g},
    {VS_H5G_F32, "float32", &H5T_IEEE_F32LE_g, &H5T_IEEE_F32BE_g},
    {VS_H5G_I64, "int64", &H5T_STD_I64LE_g, &H5T_STD_I64BE_g},
    {VS_H5G_I32, "int32", &H5T_STD_I32LE_g, &H5T_STD_I32BE_g},
    {VS_H5G_I16, "int16", &H5T_STD_I16LE_g, &H5T_STD_I16BE_g},
    {VS_H5G_I8, "int8", &H5T_STD_I8LE_g, &H5T_STD_I8BE_g},
    {VS_H5G_U64, "uint64", &H5T_STD_U64LE_g, &H5T_STD_U64BE_g},
    {VS_H5G_U32, "uint32", &H5T_STD_U32LE_g, &H5T_STD_U32BE_g},
    {VS_H5G_U16, "uint16", &H5T_STD_U16LE_g, &H5T_STD_U16BE_g},
    {VS_H5G_U8, "uint8", &H5T_STD_U8LE_g, &H5T_STD_U8BE_g},
};
#define N_TYPES (sizeof type_table / sizeof type_table[0])

/* The VS_H5G_* bit of a standard type, else 0; name says what it is. */
unsigned vs_h5g__classify(hid_t t, char *name, size_t size) {
  H5T_class_t c = H5Tget_class(t);
  size_t bytes = H5Tget_size(t);
  if (c == H5T_INTEGER || c == H5T_FLOAT) {
    for (size_t i = 0; i < N_TYPES; i++)
      if (H5Tequal(t, *type_table[i].le) > 0 || H5Tequal(t, *type_table[i].be) > 0) {
        snprintf(name, size, "%s", type_table[i].name);
        return type_table[i].bit;
      }
    snprintf(name, size, "a non-standard %s of %zu bytes", c == H5T_FLOAT ? "float" : "integer",
             bytes);
    return 0;
  }
  const char *what = c == H5T_STRING      ? "string"
                     : c == H5T_COMPOUND  ? "compound"
                     : c == H5T_ENUM      ? "enum"
                     : c == H5T_ARRAY     ? "array"
                     : c == H5T_VLEN      ? "vlen"
                     : c == H5T_REFERENCE ? "reference"
                     : c == H5T_OPAQUE    ? "opaque"
                     : c == H5T_BITFIELD  ? "bitfield"
                                          : "of an unknown type class";
  snprintf(name, size, "%s", what);
  return 0;
}

static void types_text(unsigned types, char *buf, size_t size) {
  size_t used = 0;
  int k = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_TYPES && used < size; i++)
    if (types & type_table[i].bit)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", k++ ? " or " : "",
                               type_table[i].name);
  if (!k) snprintf(buf, size, "nothing");
}


/* ---- datasets ----------------------------------------------------------------- */

void vs_h5g_spec_init(vs_h5g_spec *s, unsigned types, int rank, uint64_t max_bytes) {
  memset(s, 0, sizeof *s);
  s->types = types;
  s->rank = rank;
  s->max_bytes = max_bytes;
  for (int i = 0; i < VS_H5G_MAX_RANK; i++) s->dim_max[i] = VS_H5G_UNBOUNDED;
}

void vs_h5g_spec_dim(vs_h5g_spec *s, int axis, uint64_t lo, uint64_t hi) {
  if (axis < 0 || axis >= VS_H5G_MAX_RANK) return;
  s->dim_min[axis] = lo;
  s->dim_max[axis] = hi;
}

void vs_h5g_dset_close(vs_h5g_dset *d) {
  if (!d) return;
  if (d->space >= 0) H5Sclose(d->space);
  if (d->id >= 0) H5Dclose(d->id);
  d->space = d->id = H5I_INVALID_HID;
}

const char *vs_h5g_type_name(unsigned type) {
  for (size_t i = 0; i < N_TYPES; i++)
    if (type_table[i].bit == type) return type_table[i].name;
  return "unknown";
}

void vs_h5g_shape_text(const vs_h5g_dset *d, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < d->rank && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? ", " : "",
                             (unsigned long long)d->dims[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

/* The filters vsim writes; anything else is refused (no plugin is ever
 * loaded, and a decompression ratio is what bounds a chunk's work). */
static vs_status check_filters(const vs_h5g_file *f, const vs_h5g_dset *d, hid_t dcpl,
                               vs_error *err) {
  int nf = H5Pget_nfilters(dcpl);
  if (nf < 0) return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, d->path);
  int deflates = 0;
  for (int i = 0; i < nf; i++) {
    unsigned flags = 0, cd[8], config = 0;
    size_t ncd = sizeof cd / sizeof cd[0];
    char fname[64];
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname,
                                     &config);
    if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s uses HDF5 filter %d, which vsim does not read (only deflate, "
                          "shuffle and fletcher32)",
                          d->path, (int)id);
    /* deflate on deflate multiplies the ratios (a megabyte of chunks
     * inflating to a terabyte): vsim deflates once */
    if (id == H5Z_FILTER_DEFLATE && ++deflates > 1)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s is deflated %d times over: refused (a compression ratio no file "
                          "of vsim's has; it deflates once)",
                          d->path, deflates);
  }
  return VS_OK;
}

/* Layout and storage: what the dataset claims must be possible here. */
static vs_status check_layout(const vs_h5g_file *f, const vs_h5g_dset *d, hid_t dcpl,
                              uint64_t bytes, vs_error *err) {
  const char *p = d->path;
  if (H5Pget_external_count(dcpl) != 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has external storage (its data in other files): refused", p);
  H5D_layout_t layout = H5Pget_layout(dcpl);
  vs_status rc = check_filters(f, d, dcpl, err);
  if (rc != VS_OK) return rc;
  switch ((int)layout) { /* HDF5's enum, including values this file refuses */
  case H5D_VIRTUAL:
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s is a virtual dataset (its data in other files): refused", p);
  case H5D_COMPACT:
    if (bytes > 65536)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s is compact but declares %llu bytes (compact data is at most 64 KiB)",
                          p, (unsigned long long)bytes);
    return VS_OK;
  case H5D_CONTIGUOUS: {
    if (d->n_elems == 0) return VS_OK;
    haddr_t off = H5Dget_offset(d->id);
    hsize_t stored = H5Dget_storage_size(d->id);
    if (off == HADDR_UNDEF || stored == 0)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s declares %llu elements but stores no data", p,
                          (unsigned long long)d->n_elems);
    if (stored != bytes)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s declares %llu bytes but stores %llu", p, (unsigned long long)bytes,
                          (unsigned long long)stored);
    if (off > f->size || stored > f->size - off)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s declares %llu bytes at offset %llu, past the end of the file "
                          "(%llu bytes)",
                          p, (unsigned long long)bytes, (unsigned long long)off,
                          (unsigned long long)f->size);
    return VS_OK;
  }
  case H5D_CHUNKED: {
    hsize_t cd[VS_H5G_MAX_RANK + 1];
    int cr = H5Pget_chunk(dcpl, VS_H5G_MAX_RANK + 1, cd);
    if (d->rank == 0 || cr != d->rank)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s has a chunked layout of rank %d for a dataset of rank %d", p, cr,
                          d->rank);
    uint64_t chunk_bytes = d->type_size, n_chunks = 1;
    for (int i = 0; i < d->rank; i++) {
      if (cd[i] == 0 || vs_h5g_mul(chunk_bytes, cd[i], &chunk_bytes) != 0 ||
          chunk_bytes > VS_H5G_CHUNK_BYTES_MAX)
        return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                            "%s has chunk dimension %llu along axis %d (chunks must be 1 to %llu "
                            "bytes)",
                            p, (unsigned long long)cd[i], i,
                            (unsigned long long)VS_H5G_CHUNK_BYTES_MAX);
      uint64_t per = d->dims[i] / cd[i] + (d->dims[i] % cd[i] != 0);
      if (vs_h5g_mul(n_chunks, per, &n_chunks) != 0) n_chunks = UINT64_MAX;
    }
    if (d->n_elems == 0) return VS_OK;
    hsize_t stored = H5Dget_storage_size(d->id);
    if (stored > f->size)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s claims %llu bytes of chunks in a file of %llu bytes", p,
                          (unsigned long long)stored, (unsigned long long)f->size);
#if H5_VERSION_GE(1, 10, 5)
    /* vsim writes every chunk of the extent: a dataset declaring more rows
     * than it stores (2^50 frames in a 7 KB file) is not one of its files. */
    hsize_t have = 0;
    if (H5Dget_num_chunks(d->id, d->space, &have) < 0)
      return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, p);
    if ((uint64_t)have != n_chunks)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "%s declares %llu chunks of data but the file stores %llu", p,
                          (unsigned long long)n_chunks, (unsigned long long)have);
#endif
    return VS_OK;
  }
  default:
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s has an unknown storage layout", p);
  }
}

static vs_status check_shape(const vs_h5g_file *f, vs_h5g_dset *d, const vs_h5g_spec *spec,
                             vs_error *err) {
  const char *p = d->path;
  H5S_class_t sc = H5Sget_simple_extent_type(d->space);
  int rank = sc == H5S_SCALAR ? 0 : H5Sget_simple_extent_ndims(d->space);
  if (sc != H5S_SCALAR && sc != H5S_SIMPLE)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s has no data space (null)", p);
  if (rank < 0 || rank > VS_H5G_MAX_RANK)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s has rank %d (at most %d)", p, rank,
                        VS_H5G_MAX_RANK);
  hsize_t dims[VS_H5G_MAX_RANK];
  if (rank > 0 && H5Sget_simple_extent_dims(d->space, dims, NULL) != rank)
    return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, p);
  d->rank = rank;
  d->n_elems = d->row_elems = 1;
  int overflow = 0;
  for (int i = 0; i < rank; i++) {
    d->dims[i] = dims[i];
    overflow |= vs_h5g_mul(d->n_elems, dims[i], &d->n_elems);
    if (i > 0) overflow |= vs_h5g_mul(d->row_elems, dims[i], &d->row_elems);
  }
  char shape[200];
  vs_h5g_shape_text(d, shape, sizeof shape);
  if (spec->rank >= 0 && rank != spec->rank)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is %s, of rank %d; expected rank %d",
                        p, shape, rank, spec->rank);
  for (int i = 0; i < rank; i++) {
    uint64_t lo = spec->dim_min[i], hi = spec->dim_max[i];
    if (d->dims[i] >= lo && d->dims[i] <= hi) continue;
    if (lo == hi)
      return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is %s; expected %llu along axis %d",
                          p, shape, (unsigned long long)lo, i);
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s is %s; expected %llu to %llu along axis %d", p, shape,
                        (unsigned long long)lo, (unsigned long long)hi, i);
  }
  uint64_t bytes = 0;
  if (overflow || vs_h5g_mul(d->n_elems, d->type_size, &bytes) != 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s is %s: more elements than can be counted", p, shape);
  if (bytes > spec->max_bytes)
    return vs_error_set(err, VS_ERR_LIMIT, f->name, 0, 0,
                        "%s is %s: %llu bytes, over the limit of %llu", p, shape,
                        (unsigned long long)bytes, (unsigned long long)spec->max_bytes);
  return VS_OK;
}

/* Type and address of the object at path without opening it. */
int vs_h5g__obj_info(const vs_h5g_file *f, hid_t loc, const char *name, H5O_type_t *type,
                    uint64_t *addr) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t oi;
  if (H5Oget_info_by_name3(loc, name, &oi, H5O_INFO_BASIC, f->lapl) < 0) return -1;
  haddr_t a = HADDR_UNDEF;
  if (H5VLnative_token_to_addr(loc, oi.token, &a) < 0) return -1;
  *addr = a;
#elif H5_VERSION_GE(1, 10, 3)
  H5O_info_t oi;
  if (H5Oget_info_by_name2(loc, name, &oi, H5O_INFO_BASIC, f->lapl) < 0) return -1;
  *addr = oi.addr;
#else
  H5O_info_t oi;
  if (H5Oget_info_by_name(loc, name, &oi, f->lapl) < 0) return -1;
  *addr = oi.addr;
#endif
  *type = oi.type;
  return 0;
}

vs_status vs_h5g_dset_open(const vs_h5g_file *f, const char *path, const vs_h5g_spec *spec,
                           vs_h5g_dset *d, vs_error *err) {
  d->id = d->space = H5I_INVALID_HID;
  d->rank = 0;
  d->n_elems = d->row_elems = 0;
  d->type = 0;
  d->type_size = 0;
  vs_h5g_escape(path ? path : "", d->path, sizeof d->path);
  if (!f || f->file < 0 || !spec)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5g_dset_open: missing argument");
  int ex = vs_h5g_path(f, path, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0) return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "no %s", d->path);
  H5O_type_t ot;
  uint64_t addr;
  if (vs_h5g__obj_info(f, f->file, path, &ot, &addr) < 0) return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, d->path);
  if (ot != H5O_TYPE_DATASET)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is not a dataset", d->path);
  vs_h5g__oh_scan scan;
  memset(&scan, 0, sizeof scan);
  scan.f = f;
  scan.space_rank = -1;
  scan.zero_axis = UINT64_MAX;
  int oh = vs_h5g__oh_check(&scan, addr);
  if (oh == 4) return vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
  if (oh == 1)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s: corrupt object header", d->path);
  if (scan.bad == 2 && scan.zero_axis == UINT64_MAX)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has a chunked layout of dimensionality %u (at least 2)", d->path,
                        scan.ndims);
  if (scan.bad == 3)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has a chunked layout of dimensionality %u for a dataset of rank %d",
                        d->path, scan.ndims, scan.space_rank);
  if (scan.bad == 2)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has chunk dimension 0 along axis %llu", d->path,
                        (unsigned long long)scan.zero_axis);
  d->id = H5Dopen2(f->file, path, H5P_DEFAULT);
  if (d->id < 0) return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, d->path);
  vs_status rc = VS_OK;
  hid_t t = H5Dget_type(d->id);
  d->space = H5Dget_space(d->id);
  hid_t dcpl = H5Dget_create_plist(d->id);
  if (t < 0 || d->space < 0 || dcpl < 0) {
    rc = vs_h5g__fail(err, VS_ERR_FORMAT, f->name, d->path);
  } else {
    char have[64], want[200];
    d->type = vs_h5g__classify(t, have, sizeof have);
    d->type_size = H5Tget_size(t);
    if (!(d->type & spec->types) || d->type_size == 0) {
      types_text(spec->types, want, sizeof want);
      rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is %s, expected %s", d->path, have,
                        want);
    }
    uint64_t bytes = 0;
    if (rc == VS_OK) rc = check_shape(f, d, spec, err);
    if (rc == VS_OK) {
      vs_h5g_mul(d->n_elems, d->type_size, &bytes); /* checked in check_shape */
      rc = check_layout(f, d, dcpl, bytes, err);
    }
  }
  if (dcpl >= 0) H5Pclose(dcpl);
  if (t >= 0) H5Tclose(t);
  if (rc != VS_OK) vs_h5g_dset_close(d);
  return rc;
}

uint64_t vs_h5g_rows_per(const vs_h5g_dset *d, hid_t mtype, size_t buf_bytes) {
  uint64_t row = 0;
  if (vs_h5g_mul(d->row_elems, H5Tget_size(mtype), &row) != 0) return 0; /* a row beyond counting */
  if (row == 0) return UINT64_MAX; /* empty rows: any number fits */
  return buf_bytes / row;
}

vs_status vs_h5g_read_rows(const vs_h5g_file *f, const vs_h5g_dset *d, hid_t mtype, uint64_t a,
                           uint64_t b, void *buf, size_t buf_bytes, vs_error *err) {
  const char *name = f ? f->name : NULL;
  if (!f || !d || d->id < 0 || !buf)
    return vs_error_set(err, VS_ERR_USAGE, name, 0, 0, "vs_h5g_read_rows: missing argument");
  uint64_t rows = d->rank == 0 ? 1 : d->dims[0];
  uint64_t need = 0;
  size_t msize = H5Tget_size(mtype);
  if (a > b || b > rows || msize == 0 || vs_h5g_mul(b - a, d->row_elems, &need) != 0 ||
      vs_h5g_mul(need, msize, &need) != 0 || need > buf_bytes)
    return vs_error_set(err, VS_ERR_USAGE, name, 0, 0,
                        "reading rows [%llu, %llu) of %s: out of range or buffer too small",
                        (unsigned long long)a, (unsigned long long)b, d->path);
  if (need == 0) return VS_OK;
  hsize_t start[VS_H5G_MAX_RANK] = {0}, count[VS_H5G_MAX_RANK];
  int r = d->rank > 0 ? d->rank : 1;
  count[0] = b - a;
  start[0] = a;
  for (int i = 1; i < d->rank; i++) count[i] = d->dims[i];
  hid_t fs = d->rank > 0 ? H5Scopy(d->space) : H5Screate(H5S_SCALAR);
  hid_t ms = d->rank > 0 ? H5Screate_simple(r, count, NULL) : H5Screate(H5S_SCALAR);
  vs_status rc = VS_OK;
  char what[300];
  snprintf(what, sizeof what, "reading %s", d->path);
  if (fs < 0 || ms < 0 ||
      (d->rank > 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0) ||
      H5Dread(d->id, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
    rc = vs_h5g__fail(err, VS_ERR_IO, name, what);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return rc;
}

