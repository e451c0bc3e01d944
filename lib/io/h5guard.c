/* h5guard.c: the validating reader layer for HDF5 files (h5guard.h). */
#include "io/h5guard.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---- small helpers -------------------------------------------------------- */

int vs_h5g_mul(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return -1;
  *out = a * b;
  return 0;
}

typedef struct error_walk {
  char *buf;
  size_t size;
  int found;
} error_walk;

/* Walking upward visits the innermost record first: the one nearest to
 * what actually failed ("truncated file: eof = ...").  When a file driver
 * quotes the system's words ("error message = 'No such file'"), those. */
static herr_t error_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  error_walk *w = data;
  (void)n;
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

void vs_h5g_error_text(char *buf, size_t size) {
  if (!buf || size == 0) return;
  error_walk w = {buf, size, 0};
  buf[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, error_walk_cb, &w);
  if (!w.found) snprintf(buf, size, "unknown HDF5 error");
}

/* vs_error_set with HDF5's explanation appended; reads the stack first. */
static vs_status h5_fail(vs_error *err, vs_status code, const char *file, const char *what) {
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

static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
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
                        file_kind(st.st_mode));
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
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_sec2(fapl) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
    vs_status rc = h5_fail(err, VS_ERR_IO, path, "cannot open");
    if (fapl >= 0) H5Pclose(fapl);
    vs_h5g_close(f);
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
    vs_h5g_close(f);
    return rc;
  }
  void *handle = NULL;
  struct stat hst;
  if (H5Fget_vfd_handle(f->file, H5P_DEFAULT, &handle) < 0 || !handle ||
      fstat(*(int *)handle, &hst) != 0 || hst.st_dev != st2.st_dev || hst.st_ino != st2.st_ino) {
    vs_h5g_close(f);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0,
                        "cannot open: the file changed while it was being opened");
  }
  hid_t fcpl = H5Fget_create_plist(f->file);
  size_t as = 0, ls = 0;
  hsize_t ub = 0;
  if (fcpl < 0 || H5Pget_sizes(fcpl, &as, &ls) < 0 || H5Pget_userblock(fcpl, &ub) < 0) {
    rc = h5_fail(err, VS_ERR_FORMAT, path, "cannot open");
    if (fcpl >= 0) H5Pclose(fcpl);
    vs_h5g_close(f);
    return rc;
  }
  H5Pclose(fcpl);
  f->addr_size = (unsigned)as;
  f->len_size = (unsigned)ls;
  f->base = ub;
  f->lapl = H5Pcreate(H5P_LINK_ACCESS);
  if (f->lapl < 0 || H5Pset_elink_cb(f->lapl, refuse_elink, NULL) < 0) {
    rc = h5_fail(err, VS_ERR_IO, path, "cannot open");
    vs_h5g_close(f);
    return rc;
  }
  return VS_OK;
}

/* ---- paths ------------------------------------------------------------------ */

static const char *link_kind(H5L_type_t t) {
  switch (t) {
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
static unsigned classify(hid_t t, char *name, size_t size) {
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


/* ---- the object header, read before HDF5 opens a dataset ---------------------- */

#define OH_MAX_BLOCKS 64
#define OH_MAX_BLOCK_BYTES ((uint64_t)1 << 20)

static uint64_t le(const unsigned char *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}

typedef struct oh_scan {
  const vs_h5g_file *f;
  uint64_t blk_addr[OH_MAX_BLOCKS], blk_len[OH_MAX_BLOCKS];
  int n_blocks;
  int bad;            /* 1: corrupt header, 2: bad chunked layout */
  unsigned ndims;     /* of a bad layout */
  uint64_t zero_axis; /* of a bad layout */
} oh_scan;

static void oh_block(oh_scan *s, uint64_t addr, uint64_t len) {
  if (s->n_blocks >= OH_MAX_BLOCKS || len > OH_MAX_BLOCK_BYTES) {
    s->bad = 1;
    return;
  }
  s->blk_addr[s->n_blocks] = addr;
  s->blk_len[s->n_blocks++] = len;
}

/* A layout message: a chunked one must have a dimensionality of at least 2
 * (the dataset's axes and the element size) and no chunk dimension 0. */
static void oh_layout(oh_scan *s, const unsigned char *b, uint64_t n) {
  if (n < 2) {
    s->bad = 1;
    return;
  }
  unsigned version = b[0], cls, nd, w = 4;
  const unsigned char *dims;
  if (version == 1 || version == 2) {
    if (n < 8) goto corrupt;
    nd = b[1];
    cls = b[2];
    dims = b + 8 + (cls != 0 ? s->f->addr_size : 0);
  } else if (version == 3) {
    cls = b[1];
    if (cls != 2) return;
    if (n < 3) goto corrupt;
    nd = b[2];
    dims = b + 3 + s->f->addr_size;
  } else if (version == 4) {
    cls = b[1];
    if (cls != 2) return;
    if (n < 5) goto corrupt;
    nd = b[3];
    w = b[4];
    dims = b + 5;
    if (w < 1 || w > 8) goto corrupt;
  } else {
    goto corrupt;
  }
  if (cls != 2) return;
  if (nd < 2) {
    s->bad = 2;
    s->ndims = nd;
    s->zero_axis = UINT64_MAX;
    return;
  }
  /* the element-size dimension is last (v1-v3) or absent (v4: nd - 1 axes + it) */
  if ((uint64_t)(dims - b) + (uint64_t)nd * w > n) goto corrupt;
  for (unsigned i = 0; i + 1 < nd; i++)
    if (le(dims + (size_t)i * w, w) == 0) {
      s->bad = 2;
      s->ndims = nd;
      s->zero_axis = i;
      return;
    }
  return;
corrupt:
  s->bad = 1;
}

/* The messages of one block: v1 (8-byte headers, 8-aligned) or v2. */
static void oh_messages(oh_scan *s, const unsigned char *p, uint64_t n, int v2, int crt_order) {
  uint64_t pos = 0, hdr = v2 ? 4u + (crt_order ? 2u : 0u) : 8u;
  while (!s->bad && pos + hdr <= n) {
    unsigned type = v2 ? p[pos] : (unsigned)le(p + pos, 2);
    uint64_t size = le(p + pos + (v2 ? 1 : 2), 2);
    const unsigned char *body = p + pos + hdr;
    if (pos + hdr + size > n) {
      s->bad = 1;
      return;
    }
    if (type == 0x08) oh_layout(s, body, size);
    if (type == 0x10) {
      unsigned as = s->f->addr_size, ls = s->f->len_size;
      if (size < as + ls || as > 8 || ls > 8) {
        s->bad = 1;
        return;
      }
      oh_block(s, le(body, as), le(body + as, ls));
    }
    pos += hdr + size;
  }
}

/* Read every block of the object header at addr; 0 when the header is
 * readable and has no bad chunked layout, else s->bad says why. */
static int oh_check(oh_scan *s, uint64_t addr) {
  unsigned char pre[32];
  uint64_t at = s->f->base + addr;
  if (at > s->f->size || s->f->size - at < 16 || pread(s->f->fd, pre, 16, (off_t)at) != 16)
    return s->bad = 1;
  int v2 = memcmp(pre, "OHDR", 4) == 0, crt = 0;
  uint64_t start;
  if (v2) {
    unsigned flags = pre[5];
    crt = (flags & 0x04) != 0;
    start = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
    unsigned w = 1u << (flags & 3);
    if (s->f->size - at < start + w || pread(s->f->fd, pre, w, (off_t)(at + start)) != (ssize_t)w)
      return s->bad = 1;
    start += w;
    oh_block(s, at + start, le(pre, w)); /* the checksum follows */
  } else {
    if (pre[0] != 1) return s->bad = 1;
    oh_block(s, at + 16, le(pre + 8, 4));
  }
  for (int i = 0; i < s->n_blocks && !s->bad; i++) {
    uint64_t a = i == 0 ? s->blk_addr[i] : s->f->base + s->blk_addr[i], n = s->blk_len[i];
    if (a > s->f->size || n > s->f->size - a) return s->bad = 1;
    unsigned char *buf = vs_malloc(n + 1);
    if (!buf) return s->bad = 1;
    if (pread(s->f->fd, buf, n, (off_t)a) != (ssize_t)n) {
      vs_free(buf);
      return s->bad = 1;
    }
    if (!v2 || i == 0)
      oh_messages(s, buf, n, v2, crt);
    else if (n >= 8 && memcmp(buf, "OCHK", 4) == 0)
      oh_messages(s, buf + 4, n - 8, v2, crt);
    else
      s->bad = 1;
    vs_free(buf);
  }
  return s->bad;
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

static void shape_text(const vs_h5g_dset *d, char *buf, size_t size) {
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
  if (nf < 0) return h5_fail(err, VS_ERR_FORMAT, f->name, d->path);
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
  switch (layout) {
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
      return h5_fail(err, VS_ERR_FORMAT, f->name, p);
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
    return h5_fail(err, VS_ERR_FORMAT, f->name, p);
  d->rank = rank;
  d->n_elems = d->row_elems = 1;
  int overflow = 0;
  for (int i = 0; i < rank; i++) {
    d->dims[i] = dims[i];
    overflow |= vs_h5g_mul(d->n_elems, dims[i], &d->n_elems);
    if (i > 0) overflow |= vs_h5g_mul(d->row_elems, dims[i], &d->row_elems);
  }
  char shape[200];
  shape_text(d, shape, sizeof shape);
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
static int obj_info(const vs_h5g_file *f, hid_t loc, const char *name, H5O_type_t *type,
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
  if (obj_info(f, f->file, path, &ot, &addr) < 0) return h5_fail(err, VS_ERR_FORMAT, f->name, d->path);
  if (ot != H5O_TYPE_DATASET)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s is not a dataset", d->path);
  oh_scan scan;
  memset(&scan, 0, sizeof scan);
  scan.f = f;
  if (oh_check(&scan, addr) == 1)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s: corrupt object header", d->path);
  if (scan.bad == 2 && scan.zero_axis == UINT64_MAX)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has a chunked layout of dimensionality %u (at least 2)", d->path,
                        scan.ndims);
  if (scan.bad == 2)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "%s has chunk dimension 0 along axis %llu", d->path,
                        (unsigned long long)scan.zero_axis);
  d->id = H5Dopen2(f->file, path, H5P_DEFAULT);
  if (d->id < 0) return h5_fail(err, VS_ERR_FORMAT, f->name, d->path);
  vs_status rc = VS_OK;
  hid_t t = H5Dget_type(d->id);
  d->space = H5Dget_space(d->id);
  hid_t dcpl = H5Dget_create_plist(d->id);
  if (t < 0 || d->space < 0 || dcpl < 0) {
    rc = h5_fail(err, VS_ERR_FORMAT, f->name, d->path);
  } else {
    char have[64], want[200];
    d->type = classify(t, have, sizeof have);
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
    rc = h5_fail(err, VS_ERR_IO, name, what);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return rc;
}

/* ---- attributes ----------------------------------------------------------------- */

/* Open attribute name of obj after checking the path; VS_OK and *a, or the
 * error.  *ftype is the attribute's file type, checked to hold one value. */
static vs_status open_attr(const vs_h5g_file *f, const char *obj, const char *name, hid_t *a,
                           hid_t *ftype, vs_error *err) {
  char so[300], sn[200];
  *a = *ftype = H5I_INVALID_HID;
  vs_h5g_escape(obj ? obj : "", so, sizeof so);
  vs_h5g_escape(name ? name : "", sn, sizeof sn);
  if (!f || f->file < 0 || !obj || !name)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "reading an attribute: missing argument");
  int ex = strcmp(obj, "/") == 0 ? 1 : vs_h5g_path(f, obj, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0 || H5Aexists_by_name(f->file, obj, name, f->lapl) <= 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s has no attribute '%s'", so, sn);
  *a = H5Aopen_by_name(f->file, obj, name, H5P_DEFAULT, f->lapl);
  char what[520];
  snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
  if (*a < 0) return h5_fail(err, VS_ERR_FORMAT, f->name, what);
  *ftype = H5Aget_type(*a);
  hid_t space = H5Aget_space(*a);
  H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
  hssize_t np = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (space >= 0) H5Sclose(space);
  if (*ftype < 0 || (sc != H5S_SCALAR && sc != H5S_SIMPLE) || np != 1) {
    if (*ftype >= 0) H5Tclose(*ftype);
    H5Aclose(*a);
    *a = *ftype = H5I_INVALID_HID;
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s does not hold one value", what);
  }
  return VS_OK;
}

vs_status vs_h5g_attr_string(const vs_h5g_file *f, const char *obj, const char *name,
                             size_t max_len, char **out, vs_error *err) {
  *out = NULL;
  hid_t a, ft;
  vs_status rc = open_attr(f, obj, name, &a, &ft, err);
  if (rc != VS_OK) return rc;
  char so[300], sn[200];
  vs_h5g_escape(obj, so, sizeof so);
  vs_h5g_escape(name, sn, sizeof sn);
  hid_t mt = H5Tcopy(H5T_C_S1);
  char *s = NULL;
  if (H5Tget_class(ft) != H5T_STRING) {
    rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "attribute '%s' of %s is not a string",
                      sn, so);
  } else if (mt < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0) {
    rc = h5_fail(err, VS_ERR_IO, f->name, "reading an attribute");
  } else if (H5Tis_variable_str(ft) > 0) {
    char *v = NULL;
    if (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &v) < 0) {
      char what[520];
      snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
      rc = h5_fail(err, VS_ERR_FORMAT, f->name, what);
    } else {
      size_t len = v ? strnlen(v, max_len + 1) : 0;
      if (len > max_len)
        rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "attribute '%s' of %s is longer than %zu bytes", sn, so, max_len);
      else if (!(s = vs_malloc(len + 1)))
        rc = vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
      else {
        if (len) memcpy(s, v, len);
        s[len] = '\0';
      }
    }
    if (v) H5free_memory(v);
  } else {
    size_t sz = H5Tget_size(ft);
    if (sz == 0 || sz > max_len)
      rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is a string of %zu bytes (1 to %zu accepted)", sn, so,
                        sz, max_len);
    else if (!(s = vs_calloc(sz + 1, 1)))
      rc = vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
    else if (H5Tset_size(mt, sz + 1) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
             H5Aread(a, mt, s) < 0) {
      char what[520];
      snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
      rc = h5_fail(err, VS_ERR_FORMAT, f->name, what);
    } else {
      s[sz] = '\0';
    }
  }
  if (mt >= 0) H5Tclose(mt);
  H5Tclose(ft);
  H5Aclose(a);
  if (rc != VS_OK) {
    vs_free(s);
    return rc;
  }
  *out = s;
  return VS_OK;
}

static vs_status attr_number(const vs_h5g_file *f, const char *obj, const char *name, int want_int,
                             hid_t mtype, void *out, vs_error *err) {
  hid_t a, ft;
  vs_status rc = open_attr(f, obj, name, &a, &ft, err);
  if (rc != VS_OK) return rc;
  char have[64], so[300], sn[200];
  unsigned bit = classify(ft, have, sizeof have);
  vs_h5g_escape(obj, so, sizeof so);
  vs_h5g_escape(name, sn, sizeof sn);
  unsigned ok = want_int ? VS_H5G_INT | VS_H5G_UINT : VS_H5G_NUMERIC;
  if (!(bit & ok)) {
    rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "attribute '%s' of %s is %s, expected %s",
                      sn, so, have, want_int ? "an integer" : "a number");
  } else if (H5Aread(a, mtype, out) < 0) {
    char what[520];
    snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
    rc = h5_fail(err, VS_ERR_FORMAT, f->name, what);
  }
  H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

vs_status vs_h5g_attr_int64(const vs_h5g_file *f, const char *obj, const char *name, int64_t lo,
                            int64_t hi, int64_t *out, vs_error *err) {
  long long v = 0;
  vs_status rc = attr_number(f, obj, name, 1, H5T_NATIVE_LLONG, &v, err);
  if (rc != VS_OK) return rc;
  if (v < lo || v > hi) {
    char so[300], sn[200];
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is %lld, outside [%lld, %lld]",
                        vs_h5g_escape(name, sn, sizeof sn), vs_h5g_escape(obj, so, sizeof so), v,
                        (long long)lo, (long long)hi);
  }
  *out = (int64_t)v;
  return VS_OK;
}

vs_status vs_h5g_attr_double(const vs_h5g_file *f, const char *obj, const char *name, double lo,
                             double hi, double *out, vs_error *err) {
  double v = 0;
  vs_status rc = attr_number(f, obj, name, 0, H5T_NATIVE_DOUBLE, &v, err);
  if (rc != VS_OK) return rc;
  if (!isfinite(v) || v < lo || v > hi) {
    char so[300], sn[200];
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is %.17g, outside [%.17g, %.17g]",
                        vs_h5g_escape(name, sn, sizeof sn), vs_h5g_escape(obj, so, sizeof so), v,
                        lo, hi);
  }
  *out = v;
  return VS_OK;
}

/* ---- walking a file ----------------------------------------------------------- */

typedef struct walk {
  const vs_h5g_file *f;
  vs_h5g_visit_fn fn;
  void *data;
  size_t left;
  int depth;
  int stop;     /* fn's non-zero answer */
  int failed;   /* a limit or an HDF5 failure (err filled) */
  vs_error *err;
  char path[1024];
} walk;

static herr_t walk_cb(hid_t group, const char *name, const H5L_info_t *info, void *data);

static int walk_group(walk *w, hid_t g) {
  if (++w->depth > 32) {
    vs_error_set(w->err, VS_ERR_FORMAT, w->f->name, 0, 0, "groups nested deeper than 32 levels");
    w->failed = 1;
    return -1;
  }
  herr_t r = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, walk_cb, w);
  w->depth--;
  if (r < 0 && !w->failed && !w->stop) {
    h5_fail(w->err, VS_ERR_FORMAT, w->f->name, "listing the file's groups");
    w->failed = 1;
  }
  return w->failed || w->stop ? -1 : 0;
}

static herr_t walk_cb(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  walk *w = data;
  if (info->type != H5L_TYPE_HARD) return 0; /* not data of this file */
  if (w->left == 0) {
    vs_error_set(w->err, VS_ERR_LIMIT, w->f->name, 0, 0, "more objects than the limit");
    w->failed = 1;
    return -1;
  }
  w->left--;
  size_t len = strlen(w->path), nl = strlen(name);
  int root = len == 1;
  if (len + nl + 2 > sizeof w->path) {
    vs_error_set(w->err, VS_ERR_FORMAT, w->f->name, 0, 0, "an object path is over %zu bytes",
                 sizeof w->path);
    w->failed = 1;
    return -1;
  }
  snprintf(w->path + len, sizeof w->path - len, "%s%s", root ? "" : "/", name);
  /* not H5Oopen: opening a dataset decodes its layout (vs_h5g_dset_open
   * checks that first) */
  H5O_type_t t;
  uint64_t addr;
  int rc = 0;
  hid_t g = H5I_INVALID_HID;
  if (obj_info(w->f, group, name, &t, &addr) < 0 ||
      (t == H5O_TYPE_GROUP && (g = H5Gopen2(group, name, H5P_DEFAULT)) < 0)) {
    h5_fail(w->err, VS_ERR_FORMAT, w->f->name, w->path);
    w->failed = 1;
    rc = -1;
  } else if (t == H5O_TYPE_GROUP) {
    rc = walk_group(w, g);
  } else if (t == H5O_TYPE_DATASET) {
    int s = w->fn(w->path, w->data);
    if (s) {
      w->stop = s;
      rc = -1;
    }
  }
  if (g >= 0) H5Gclose(g);
  w->path[len] = '\0';
  return rc;
}

int vs_h5g_visit(const vs_h5g_file *f, const char *root, size_t max_objects, vs_h5g_visit_fn fn,
                 void *data, vs_error *err) {
  walk w = {f, fn, data, max_objects, 0, 0, 0, err, ""};
  if (!f || f->file < 0 || !root || !fn) {
    vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5g_visit: missing argument");
    return -1;
  }
  if (strcmp(root, "/") != 0) {
    int ex = vs_h5g_path(f, root, err);
    if (ex < 0) return -1;
    if (ex == 0) return 0;
  }
  snprintf(w.path, sizeof w.path, "%s", root);
  H5O_type_t t;
  uint64_t addr;
  if (obj_info(f, f->file, root, &t, &addr) < 0) {
    h5_fail(err, VS_ERR_FORMAT, f->name, root);
    return -1;
  }
  if (t != H5O_TYPE_GROUP) return 0;
  hid_t g = H5Gopen2(f->file, root, H5P_DEFAULT);
  if (g < 0) {
    h5_fail(err, VS_ERR_FORMAT, f->name, root);
    return -1;
  }
  walk_group(&w, g);
  H5Gclose(g);
  return w.failed ? -1 : w.stop;
}

/* ---- escaping ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (!n) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))) return 0;
  return n;
}

char *vs_h5g_escape(const char *text, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  size_t used = 0;
  while (*s) {
    char piece[8];
    int n = utf8_len(s), plen;
    if (n == 1 && *s >= 0x20 && *s != 0x7F && *s != '\\') {
      piece[0] = (char)*s;
      plen = 1;
    } else if (n == 1 && (*s == '\n' || *s == '\t' || *s == '\r' || *s == '\\')) {
      piece[0] = '\\';
      piece[1] = *s == '\n' ? 'n' : *s == '\t' ? 't' : *s == '\r' ? 'r' : '\\';
      plen = 2;
    } else if (n >= 2 && !(n == 2 && s[0] == 0xC2 && s[1] < 0xA0)) {
      memcpy(piece, s, (size_t)n);
      plen = n;
    } else {
      /* C0, DEL, a UTF-8 C1 control (its first byte here, then the next),
       * or a byte that is not UTF-8 */
      snprintf(piece, sizeof piece, "\\x%02x", *s);
      plen = 4;
      n = 1;
    }
    if (used + (size_t)plen + 1 > size) {
      /* no room: end with "..." when it fits */
      size_t keep = size > 4 ? size - 4 : 0, old = used;
      if (used > keep) used = keep;
      /* cut before a whole character */
      while (used > 0 && used < old && ((unsigned char)buf[used] & 0xC0) == 0x80) used--;
      if (size > 4) memcpy(buf + used, "...", 3), used += 3;
      break;
    }
    memcpy(buf + used, piece, (size_t)plen);
    used += (size_t)plen;
    s += n;
  }
  buf[used < size ? used : size - 1] = '\0';
  return buf;
}
