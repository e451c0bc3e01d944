/* h5out.c: the result file writer (SPEC.md §4, H5MD 1.1 layout).
 *
 * The file is created under a temporary name beside the output and renamed
 * into place by vs_h5_finish once it is complete and closed, so a reader
 * never sees a half-written result under the real name.
 *
 * Every time series (a group with value/step/time) keeps its datasets open
 * and buffers recorded frames in memory, one chunk's worth at a time; a full
 * buffer is appended with one H5Dset_extent + hyperslab write.  Writing
 * whole chunks means each chunk is compressed once, and the ~50 small
 * observable datasets cost a memcpy per frame instead of an HDF5 call.
 * All buffers are allocated at open: recording a frame never allocates.
 *
 * Object time stamps are off on every group and dataset (and HDF5 stores no
 * file name), so identical runs give identical datasets. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "io/h5util.h"
#include "vsim/h5.h"
#include "vsim/step.h"
#include "vsim/vsim.h"

/* Chunks hold whole frames and about 1 MiB, at most 1024 frames: big enough
 * for gzip and for few B-tree entries, small enough for HDF5's default 1 MiB
 * per-dataset chunk cache. */
#define CHUNK_BYTES ((size_t)1 << 20)
#define CHUNK_ROWS_MAX 1024

/* One H5MD time series: value [F, ...], step [F] int64, time [F] float64. */
typedef struct series {
  hid_t value, step, time; /* H5I_INVALID_HID when the series is not written */
  hid_t mtype;             /* memory type of buf */
  int rank;                /* of value, axis 0 included (1..3) */
  hsize_t dims[3];         /* value's extent in the file; dims[0] = frames written */
  size_t row_elems;        /* elements per frame */
  size_t esize;            /* bytes per element of buf */
  size_t cap;              /* frames buf holds (the value's chunk rows) */
  size_t used;             /* frames buffered, not yet in the file */
  unsigned char *buf;      /* (cap x row_elems) elements */
  int64_t *steps;          /* (cap) */
  double *times;           /* (cap) */
} series;

enum {
  S_POS = 0,
  S_VEL,
  S_PEN,
  S_ALIVE,
  S_PER,
  S_KIN,
  S_POT,
  S_OVL,
  S_ERR0, /* then (kind k, stat j) at S_ERR0 + 3 k + j; k = VS_KIND_COUNT is "all" */
  S_COUNT = S_ERR0 + 3 * (VS_KIND_COUNT + 1)
};

static const char *const stat_names[3] = {"max", "rms", "max_relative"};

/* /checkpoint holds every persistent state array (VS_STATE_FIELDS), so a
 * field added to the state is checkpointed without touching this file. */
#define CK_ENUM(name, type, width, count) CK_##name,
enum { VS_STATE_FIELDS(CK_ENUM) CK_COUNT };
#undef CK_ENUM
#define CK_MTYPE(p)                                                                    \
  _Generic((p), double *: H5T_NATIVE_DOUBLE, uint8_t *: H5T_NATIVE_UINT8,              \
           int32_t *: H5T_NATIVE_INT32, int64_t *: H5T_NATIVE_INT64)
#define CK_FTYPE(p)                                                                    \
  _Generic((p), double *: H5T_IEEE_F64LE, uint8_t *: H5T_STD_U8LE,                     \
           int32_t *: H5T_STD_I32LE, int64_t *: H5T_STD_I64LE)

struct vs_h5_writer {
  char *path;          /* the output as given */
  char *tmp;           /* the temporary file beside it */
  hid_t file, fapl, gcpl, params;
  int compression;
  int64_t every;
  int32_t n_particles;
  int32_t n_constraints;
  int64_t frames;      /* frames recorded (buffered or written) */
  int64_t last_frame;  /* the last recorded frame, -1 before the first */
  int failed;          /* a write failed: the file can no longer be trusted */
  int nomem;           /* what failed was an allocation: VS_ERR_NOMEM, not VS_ERR_IO */
  series s[S_COUNT];
  double *vel;         /* (n_particles x 3) scratch for float32 velocity */
  vs_state *ck;        /* copy of the state at the last recorded frame */
  int has_ck;          /* ck holds a recorded frame not yet checkpointed */
  hsize_t ck_rows[CK_COUNT]; /* rows of each checkpoint array (the count column of the table) */
  char msg[1536];      /* what failed, for the caller's vs_error */
};

/* ---- failure bookkeeping ------------------------------------------------ */

/* Remember the first failure with HDF5's own explanation; returns -1 so
 * that callers can `return fail(w, ...)`. */
static int fail(vs_h5_writer *w, const char *what) {
  if (!w->msg[0]) {
    char h5[256];
    vs_h5_error_text(h5, sizeof h5);
    snprintf(w->msg, sizeof w->msg, "%s: %s", what, h5);
  }
  return -1;
}

/* "/particles/all/mass" for messages: the path of loc joined with name. */
static const char *full_name(hid_t loc, const char *name, char *buf, size_t size) {
  char parent[256] = "";
  if (H5Iget_name(loc, parent, sizeof parent) <= 0) parent[0] = '\0';
  int root = parent[0] == '\0' || strcmp(parent, "/") == 0;
  if (!name[0])
    snprintf(buf, size, "%s", parent[0] ? parent : "/");
  else
    snprintf(buf, size, "%s/%s", root ? "" : parent, name);
  return buf;
}

/* fail() for an object: "writing /connectivity/distance: No space left on
 * device".  HDF5's text is taken first: any later API call clears it. */
static int fail_obj(vs_h5_writer *w, const char *what, hid_t loc, const char *name) {
  char h5[256], full[320];
  vs_h5_error_text(h5, sizeof h5);
  if (!w->msg[0])
    snprintf(w->msg, sizeof w->msg, "%s %s: %s", what, full_name(loc, name, full, sizeof full), h5);
  return -1;
}

static void close_id(hid_t *id) {
  if (*id < 0) return;
  switch ((int)H5Iget_type(*id)) { /* HDF5's enum: only the kinds of id this file opens */
  case H5I_DATASET: H5Dclose(*id); break;
  case H5I_GROUP: H5Gclose(*id); break;
  case H5I_GENPROP_LST: H5Pclose(*id); break;
  case H5I_FILE: H5Fclose(*id); break;
  default: break;
  }
  *id = H5I_INVALID_HID;
}

/* ---- creating objects --------------------------------------------------- */

static hid_t make_group(vs_h5_writer *w, hid_t loc, const char *name) {
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, w->gcpl, H5P_DEFAULT);
  if (g < 0) {
    fail_obj(w, "creating group", loc, name);
  }
  return g;
}

/* Create (or reopen) attribute `name` on loc and write it. */
static int set_attr(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                    hid_t space, const void *data) {
  hid_t a = H5I_INVALID_HID;
  int rc = -1;
  htri_t exists = H5Aexists(loc, name);
  if (exists > 0)
    a = H5Aopen(loc, name, H5P_DEFAULT);
  else if (exists == 0)
    a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0 && H5Awrite(a, mtype, data) >= 0) rc = 0;
  if (rc != 0) fail_obj(w, "writing attribute", loc, name);
  if (a >= 0) H5Aclose(a);
  return rc;
}

static int attr_scalar(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                       const void *data) {
  hid_t space = H5Screate(H5S_SCALAR);
  if (space < 0) return fail(w, "creating a dataspace");
  int rc = set_attr(w, loc, name, ftype, mtype, space, data);
  H5Sclose(space);
  return rc;
}

static int attr_i32(vs_h5_writer *w, hid_t loc, const char *name, int32_t v) {
  return attr_scalar(w, loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v);
}

static int attr_i64(vs_h5_writer *w, hid_t loc, const char *name, int64_t v) {
  return attr_scalar(w, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static int attr_f64(vs_h5_writer *w, hid_t loc, const char *name, double v) {
  return attr_scalar(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

/* Strings are variable-length UTF-8: h5py reads them as str, and they live
 * in the global heap, so a long scene text does not hit the 64 KiB limit on
 * attributes stored in the object header. */
static int attr_str(vs_h5_writer *w, hid_t loc, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    if (t >= 0) H5Tclose(t);
    return fail(w, "creating a string type");
  }
  const char *v = value ? value : "";
  int rc = attr_scalar(w, loc, name, t, t, &v);
  H5Tclose(t);
  return rc;
}

/* H5MD's box boundary: a fixed-length string array, as in the H5MD examples. */
static int attr_boundary(vs_h5_writer *w, hid_t loc) {
  static const char names[3][5] = {"none", "none", "none"};
  hsize_t n = 3;
  hid_t t = H5Tcopy(H5T_C_S1);
  hid_t space = H5Screate_simple(1, &n, NULL);
  int rc = -1;
  if (t >= 0 && space >= 0 && H5Tset_size(t, 5) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0)
    rc = set_attr(w, loc, "boundary", t, t, space, names);
  else
    fail(w, "creating attribute boundary");
  if (space >= 0) H5Sclose(space);
  if (t >= 0) H5Tclose(t);
  return rc;
}

static hid_t dataset_plist(vs_h5_writer *w) {
  hid_t p = H5Pcreate(H5P_DATASET_CREATE);
  if (p < 0 || H5Pset_obj_track_times(p, 0) < 0) {
    if (p >= 0) H5Pclose(p);
    fail(w, "creating a dataset property list");
    return H5I_INVALID_HID;
  }
  return p;
}

/* A dataset that never changes (mass, connectivity, ...): contiguous,
 * written whole. */
static int make_fixed(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                      int rank, const hsize_t *dims, const void *data, hid_t *keep) {
  hid_t p = dataset_plist(w);
  if (p < 0) return -1;
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t d = space >= 0 ? H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, p, H5P_DEFAULT)
                       : H5I_INVALID_HID;
  hsize_t n = 1;
  for (int i = 0; i < rank; i++) n *= dims[i];
  int rc = 0;
  if (d < 0 || (n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
    rc = fail_obj(w, "writing", loc, name);
  if (space >= 0) H5Sclose(space);
  H5Pclose(p);
  if (keep && rc == 0)
    *keep = d;
  else if (d >= 0)
    H5Dclose(d);
  return rc;
}

/* Chunked, extendible dataset [0, inner...] with maxdims [UNLIMITED, ...].
 * `rows` frames per chunk; when a single frame is over CHUNK_BYTES the
 * chunk is one frame, split along axis 1. */
static hid_t make_extendible(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype,
                             int rank, const hsize_t *inner, size_t rows) {
  hsize_t dims[3] = {0, 0, 0}, maxdims[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {rows, 1, 1};
  size_t fsize = H5Tget_size(ftype);
  size_t tail = fsize; /* bytes of one index along axis 1 (axes 2.. included) */
  for (int i = 1; i < rank; i++) {
    dims[i] = inner[i - 1];
    /* HDF5 wants chunk dims <= fixed max dims and > 0; a zero-width axis
     * (no constraints) is made unlimited so that a chunk of 1 is allowed. */
    maxdims[i] = dims[i] > 0 ? dims[i] : H5S_UNLIMITED;
    chunk[i] = dims[i] > 0 ? dims[i] : 1;
    if (i >= 2) tail *= (size_t)chunk[i];
  }
  if (rank >= 2 && rows == 1 && (size_t)chunk[1] * tail > CHUNK_BYTES) {
    size_t n1 = CHUNK_BYTES / tail;
    chunk[1] = n1 > 0 ? n1 : 1;
  }
  hid_t p = dataset_plist(w);
  if (p < 0) return H5I_INVALID_HID;
  int ok = H5Pset_chunk(p, rank, chunk) >= 0;
  if (ok && w->compression > 0)
    ok = H5Pset_shuffle(p) >= 0 && H5Pset_deflate(p, (unsigned)w->compression) >= 0;
  hid_t space = ok ? H5Screate_simple(rank, dims, maxdims) : H5I_INVALID_HID;
  hid_t d = space >= 0 ? H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, p, H5P_DEFAULT)
                       : H5I_INVALID_HID;
  if (d < 0) fail_obj(w, "creating", loc, name);
  if (space >= 0) H5Sclose(space);
  H5Pclose(p);
  return d;
}

static size_t chunk_rows(size_t row_bytes) {
  if (row_bytes == 0) return CHUNK_ROWS_MAX;
  size_t r = CHUNK_BYTES / row_bytes;
  if (r < 1) r = 1;
  if (r > CHUNK_ROWS_MAX) r = CHUNK_ROWS_MAX;
  return r;
}

/* Create group `name` under loc holding a time series whose frames have
 * shape `inner` (rank - 1 dims), stored as ftype, buffered as mtype. */
static int series_alloc(vs_h5_writer *w, series *s, const char *name, int rank,
                        const hsize_t *inner, hid_t ftype, hid_t mtype) {
  s->rank = rank;
  s->mtype = mtype;
  s->esize = H5Tget_size(mtype);
  s->row_elems = 1;
  s->dims[0] = 0;
  for (int i = 1; i < rank; i++) {
    s->dims[i] = inner[i - 1];
    s->row_elems *= (size_t)inner[i - 1];
  }
  s->cap = chunk_rows(s->row_elems * H5Tget_size(ftype));
  s->used = 0;
  /* + 1: malloc(0) may return NULL; a zero-width frame still needs a buffer */
  s->buf = vs_malloc(s->cap * s->row_elems * s->esize + 1);
  s->steps = vs_malloc(s->cap * sizeof *s->steps);
  s->times = vs_malloc(s->cap * sizeof *s->times);
  if (!s->buf || !s->steps || !s->times) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the %s buffer", name);
    w->nomem = 1;
    return -1;
  }
  return 0;
}

static int make_series(vs_h5_writer *w, series *s, hid_t loc, const char *name, int rank,
                       const hsize_t *inner, hid_t ftype, hid_t mtype) {
  if (series_alloc(w, s, name, rank, inner, ftype, mtype) < 0) return -1;
  hid_t g = make_group(w, loc, name);
  if (g < 0) return -1;
  hsize_t none[1] = {0};
  s->value = make_extendible(w, g, "value", ftype, rank, inner, s->cap);
  if (s->value >= 0)
    s->step = make_extendible(w, g, "step", H5T_STD_I64LE, 1, none, chunk_rows(sizeof(int64_t)));
  if (s->step >= 0)
    s->time = make_extendible(w, g, "time", H5T_IEEE_F64LE, 1, none, chunk_rows(sizeof(double)));
  H5Gclose(g);
  return s->time >= 0 ? 0 : -1;
}

/* ---- appending ---------------------------------------------------------- */

/* Extend d to newdims and write `count` (starting at `start`) from buf. */
static int append_block(vs_h5_writer *w, hid_t d, int rank, const hsize_t *newdims,
                        const hsize_t *start, const hsize_t *count, hid_t mtype, const void *buf) {
  if (H5Dset_extent(d, newdims) < 0) return fail_obj(w, "extending", d, "");
  hsize_t n = 1;
  for (int i = 0; i < rank; i++) n *= count[i];
  if (n == 0) return 0;
  hid_t fs = H5Dget_space(d);
  hid_t ms = H5Screate_simple(rank, count, NULL);
  int rc = -1;
  if (fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
      H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  else
    fail_obj(w, "writing", d, ""); /* before the closes below clear HDF5's error stack */
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return rc;
}

/* The group of series i: "/particles/all/position", ... */
static const char *series_path(int i, char *buf, size_t size) {
  static const char *const fixed[S_ERR0] = {
      "/particles/all/position", "/particles/all/velocity", "/observables/penetration/max",
      "/observables/constraints_alive", "/observables/per_constraint_error",
      "/observables/energy/kinetic", "/observables/energy/potential", "/observables/overlap/max"};
  if (i < S_ERR0) {
    snprintf(buf, size, "%s", fixed[i]);
  } else {
    int k = (i - S_ERR0) / 3, j = (i - S_ERR0) % 3;
    snprintf(buf, size, "/observables/constraint_error/%s/%s",
             k < VS_KIND_COUNT ? vs_kind_name((vs_kind)k) : "all", stat_names[j]);
  }
  return buf;
}

static int32_t kind_count(const vs_model *m, int k) {
  return vs_model_kind_count(m, (vs_kind)k);
}

/* Whether the model's output writes series i (SPEC §4: velocity, the error
 * statistics and the per-constraint errors on request, a kind's statistics
 * only when the model has constraints of that kind). */
static int series_wanted(const vs_model *m, int i) {
  unsigned f = m->output.fields;
  switch (i) {
  case S_POS: return (f & VS_FIELD_POSITION) != 0;
  case S_VEL: return (f & VS_FIELD_VELOCITY) != 0;
  case S_PEN:
  case S_ALIVE:
  case S_KIN:
  case S_POT: return 1;
  case S_OVL: return m->particle_collisions != 0;
  case S_PER: return (f & VS_FIELD_PER_CONSTRAINT_ERROR) != 0;
  default: break;
  }
  int k = (i - S_ERR0) / 3;
  if (!(f & VS_FIELD_CONSTRAINT_ERROR)) return 0;
  return k == VS_KIND_COUNT || kind_count(m, k) > 0;
}

/* Write the buffered frames.  On failure nothing is forgotten: the buffer
 * and dims stay as they were, so a later flush (vs_h5_finish) retries. */
static int flush_series(vs_h5_writer *w, int index) {
  series *s = &w->s[index];
  if (s->value < 0 || s->used == 0) return 0;
  vs_h5_quiet(); /* per thread in a thread-safe HDF5: the caller may be another thread */
  hsize_t newdims[3], start[3] = {s->dims[0], 0, 0}, count[3];
  for (int i = 0; i < s->rank; i++) {
    newdims[i] = s->dims[i];
    count[i] = s->dims[i];
  }
  newdims[0] = s->dims[0] + s->used;
  count[0] = s->used;
  if (append_block(w, s->value, s->rank, newdims, start, count, s->mtype, s->buf) < 0 ||
      append_block(w, s->step, 1, newdims, start, count, H5T_NATIVE_INT64, s->steps) < 0 ||
      append_block(w, s->time, 1, newdims, start, count, H5T_NATIVE_DOUBLE, s->times) < 0)
    return -1;
  s->dims[0] = newdims[0];
  s->used = 0;
  return 0;
}


static int flush_all(vs_h5_writer *w) {
  int rc = 0;
  for (int i = 0; i < S_COUNT; i++)
    if (flush_series(w, i) < 0) rc = -1;
  return rc;
}

/* ---- the static part of the file ---------------------------------------- */

static int write_h5md(vs_h5_writer *w) {
  int rc = -1;
  hid_t h5md = make_group(w, w->file, "h5md");
  if (h5md < 0) return -1;
  int32_t version[2] = {1, 1};
  hsize_t two = 2;
  hid_t space = H5Screate_simple(1, &two, NULL);
  hid_t author = H5I_INVALID_HID, creator = H5I_INVALID_HID;
  if (space < 0 ||
      set_attr(w, h5md, "version", H5T_STD_I32LE, H5T_NATIVE_INT32, space, version) < 0)
    goto done;
  /* The author is fixed rather than $USER: files from identical runs should
   * not depend on who ran them. */
  author = make_group(w, h5md, "author");
  if (author < 0 || attr_str(w, author, "name", "unknown") < 0) goto done;
  creator = make_group(w, h5md, "creator");
  if (creator < 0 || attr_str(w, creator, "name", "vsim") < 0 ||
      attr_str(w, creator, "version", VSIM_VERSION) < 0)
    goto done;
  rc = 0;
done:
  if (creator >= 0) H5Gclose(creator);
  if (author >= 0) H5Gclose(author);
  if (space >= 0) H5Sclose(space);
  H5Gclose(h5md);
  return rc;
}

static int write_particles(vs_h5_writer *w, const vs_model *m, unsigned fields, int float32) {
  int rc = -1;
  hid_t parts = make_group(w, w->file, "particles");
  hid_t all = parts >= 0 ? make_group(w, parts, "all") : H5I_INVALID_HID;
  hid_t box = all >= 0 ? make_group(w, all, "box") : H5I_INVALID_HID;
  if (box < 0 || attr_i32(w, box, "dimension", 3) < 0 || attr_boundary(w, box) < 0) goto done;
  hsize_t inner[2] = {(hsize_t)m->n_particles, 3};
  hid_t ftype = float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  hid_t mtype = float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if ((fields & VS_FIELD_POSITION) &&
      make_series(w, &w->s[S_POS], all, "position", 3, inner, ftype, mtype) < 0)
    goto done;
  if ((fields & VS_FIELD_VELOCITY) &&
      make_series(w, &w->s[S_VEL], all, "velocity", 3, inner, ftype, mtype) < 0)
    goto done;
  hsize_t n = (hsize_t)m->n_particles;
  if (make_fixed(w, all, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->mass, NULL) < 0 ||
      make_fixed(w, all, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &n, m->body, NULL) < 0)
    goto done;
  rc = 0;
done:
  if (box >= 0) H5Gclose(box);
  if (all >= 0) H5Gclose(all);
  if (parts >= 0) H5Gclose(parts);
  return rc;
}

static int write_observables(vs_h5_writer *w, const vs_model *m, unsigned fields) {
  int rc = -1;
  hid_t obs = make_group(w, w->file, "observables");
  hid_t err = H5I_INVALID_HID, pen = H5I_INVALID_HID, energy = H5I_INVALID_HID;
  if (obs < 0) return -1;
  if (fields & VS_FIELD_CONSTRAINT_ERROR) {
    err = make_group(w, obs, "constraint_error");
    if (err < 0) goto done;
    for (int k = 0; k <= VS_KIND_COUNT; k++) {
      if (k < VS_KIND_COUNT && kind_count(m, k) <= 0) continue;
      hid_t kg = make_group(w, err, k < VS_KIND_COUNT ? vs_kind_name((vs_kind)k) : "all");
      if (kg < 0) goto done;
      for (int j = 0; j < 3; j++) {
        if (make_series(w, &w->s[S_ERR0 + 3 * k + j], kg, stat_names[j], 1, NULL,
                        H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0) {
          H5Gclose(kg);
          goto done;
        }
      }
      H5Gclose(kg);
    }
  }
  pen = make_group(w, obs, "penetration");
  if (pen < 0 ||
      make_series(w, &w->s[S_PEN], pen, "max", 1, NULL, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0 ||
      make_series(w, &w->s[S_ALIVE], obs, "constraints_alive", 1, NULL, H5T_STD_I64LE,
                  H5T_NATIVE_INT64) < 0)
    goto done;
  energy = make_group(w, obs, "energy");
  if (energy < 0 ||
      make_series(w, &w->s[S_KIN], energy, "kinetic", 1, NULL, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0 ||
      make_series(w, &w->s[S_POT], energy, "potential", 1, NULL, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0)
    goto done;
  if (series_wanted(m, S_OVL)) {
    hid_t ovl = make_group(w, obs, "overlap");
    int bad = ovl < 0 ||
              make_series(w, &w->s[S_OVL], ovl, "max", 1, NULL, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0;
    if (ovl >= 0) H5Gclose(ovl);
    if (bad) goto done;
  }
  if (fields & VS_FIELD_PER_CONSTRAINT_ERROR) {
    hsize_t inner[1] = {(hsize_t)m->n_constraints};
    if (make_series(w, &w->s[S_PER], obs, "per_constraint_error", 2, inner, H5T_IEEE_F64LE,
                    H5T_NATIVE_DOUBLE) < 0)
      goto done;
  }
  rc = 0;
done:
  if (pen >= 0) H5Gclose(pen);
  if (energy >= 0) H5Gclose(energy);
  if (err >= 0) H5Gclose(err);
  H5Gclose(obs);
  return rc;
}

static int write_topology(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  int32_t *tmp = NULL;
  hid_t color = H5I_INVALID_HID;
  hid_t conn = make_group(w, w->file, "connectivity");
  hid_t solver = conn >= 0 ? make_group(w, w->file, "solver") : H5I_INVALID_HID;
  if (solver < 0) goto done;
  if (m->n_dist > 0) {
    hsize_t d[2] = {(hsize_t)m->n_dist, 2};
    if (make_fixed(w, conn, "distance", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, d, m->dist_ab,
                   NULL) < 0)
      goto done;
  }
  size_t nc = (size_t)(m->n_constraints > 0 ? m->n_constraints : 0);
  size_t na = (size_t)(m->n_angle > 0 ? m->n_angle : 0);
  size_t ntmp = 3 * (nc > na ? nc : na);
  tmp = vs_malloc(ntmp * sizeof *tmp + 1);
  if (!tmp) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the topology");
    w->nomem = 1;
    goto done;
  }
  if (na > 0) {
    /* the a-c link of each angle limit: what actually acts (law of cosines) */
    for (size_t i = 0; i < na; i++) {
      tmp[2 * i] = m->angle_abc[3 * i];
      tmp[2 * i + 1] = m->angle_abc[3 * i + 2];
    }
    hsize_t d[2] = {na, 2};
    if (make_fixed(w, conn, "angle", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, d, tmp, NULL) < 0)
      goto done;
  }
  if (m->n_triangles > 0) {
    hsize_t d[2] = {(hsize_t)m->n_triangles, 3};
    if (make_fixed(w, conn, "triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, d, m->triangles,
                   NULL) < 0)
      goto done;
  }
  for (size_t i = 0; i < nc; i++) vs_model_constraint_particles(m, (int32_t)i, tmp + 3 * i);
  hsize_t dc[2] = {nc, 3};
  if (make_fixed(w, solver, "constraints", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dc, tmp, NULL) < 0)
    goto done;
  if (m->color) {
    hsize_t d1 = nc;
    if (make_fixed(w, solver, "color", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d1, m->color,
                   &color) < 0 ||
        attr_i32(w, color, "count", m->n_colors) < 0)
      goto done;
  }
  rc = 0;
done:
  if (color >= 0) H5Dclose(color);
  if (solver >= 0) H5Gclose(solver);
  if (conn >= 0) H5Gclose(conn);
  vs_free(tmp);
  return rc;
}

static int write_parameters(vs_h5_writer *w, const vs_scene *scene, const vs_model *m,
                            const vs_h5_run_info *info) {
  hid_t params = make_group(w, w->file, "parameters");
  if (params < 0) return -1;
  w->params = make_group(w, params, "vsim");
  H5Gclose(params);
  if (w->params < 0) return -1;
  hid_t p = w->params;
  /* status says "running" until vs_h5_finish replaces it; only the
   * temporary file can ever show it. */
  if (attr_str(w, p, "scene", scene && scene->text ? scene->text : "") < 0 ||
      attr_str(w, p, "name", scene ? scene->name : "") < 0 ||
      attr_str(w, p, "resolved", info ? info->resolved_yaml : "") < 0 ||
      attr_str(w, p, "command", info ? info->command : "") < 0 ||
      attr_str(w, p, "version", VSIM_VERSION) < 0 ||
      attr_i32(w, p, "format_version", VSIM_FORMAT_VERSION) < 0 ||
      attr_i32(w, p, "colors", m->n_colors) < 0 || attr_f64(w, p, "wall_seconds", 0.0) < 0 ||
      attr_i64(w, p, "frames_recorded", 0) < 0 || attr_str(w, p, "status", "running") < 0)
    return -1;
  return 0;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void series_init(series *s) {
  memset(s, 0, sizeof *s);
  s->value = s->step = s->time = H5I_INVALID_HID;
}

static void close_objects(vs_h5_writer *w) {
  for (int i = 0; i < S_COUNT; i++) {
    close_id(&w->s[i].value);
    close_id(&w->s[i].step);
    close_id(&w->s[i].time);
  }
  close_id(&w->params);
  close_id(&w->gcpl);
}

static void writer_free(vs_h5_writer *w) {
  if (!w) return;
  for (int i = 0; i < S_COUNT; i++) {
    vs_free(w->s[i].buf);
    vs_free(w->s[i].steps);
    vs_free(w->s[i].times);
  }
  vs_state_free(w->ck);
  vs_free(w->vel);
  vs_free(w->path);
  vs_free(w->tmp);
  vs_free(w);
}

/* Close everything and delete the temporary file. */
static void discard(vs_h5_writer *w) {
  close_objects(w);
  close_id(&w->file);
  close_id(&w->fapl);
  if (w->tmp) unlink(w->tmp);
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return vs_strdup(".");
  if (slash == path) return vs_strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = vs_malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

/* ".out.h5.tmp-<pid>-<n>" beside the output: same directory so that the
 * final rename() is atomic, hidden so that globs for *.h5 skip it. */
static char *temp_name(const char *path, const char *dir) {
  static atomic_uint counter;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  for (int tries = 0; tries < 1000; tries++) {
    unsigned n = atomic_fetch_add(&counter, 1u);
    size_t len = strlen(dir) + strlen(base) + 64;
    char *t = vs_malloc(len);
    if (!t) return NULL;
    snprintf(t, len, "%s/.%s.tmp-%ld-%u", dir, base, (long)getpid(), n);
    struct stat st;
    if (lstat(t, &st) != 0 && errno == ENOENT) return t;
    vs_free(t);
  }
  return NULL;
}

/* Why a file could not be created: a full disk or a quota is a failure
 * while writing (VS_ERR_IO, exit 1); anything else (no permission, a
 * read-only or missing directory) means the output path cannot be used
 * (VS_ERR_USAGE, exit 2, like a bad -o). */
static vs_status create_failure(int e) {
  switch (e) {
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
  case EIO:
    return VS_ERR_IO;
  default:
    return VS_ERR_USAGE;
  }
}

/* The directory that will hold the output and its temporary file must
 * exist and be writable (else VS_ERR_USAGE: a bad output path); *dir_out
 * is from vs_malloc. */
static vs_status check_dir(const char *path, char **dir_out, vs_error *err) {
  struct stat st;
  char *dir = dir_of(path);
  *dir_out = NULL;
  if (!dir) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "directory '%s' does not exist", dir);
    vs_free(dir);
    return VS_ERR_USAGE;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "directory '%s' is not writable", dir);
    vs_free(dir);
    return VS_ERR_USAGE;
  }
  *dir_out = dir;
  return VS_OK;
}

/* The writer without any HDF5 object: settings, temporary name, scratch. */
static vs_status writer_new(const char *path, const char *dir, const vs_model *model,
                            vs_h5_writer **out, vs_error *err) {
  *out = NULL;
  if (model->output.compression < 0 || model->output.compression > 9)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "compression must be 0-9, got %d",
                        model->output.compression);
  if (model->output.compression > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    return vs_error_set(err, VS_ERR_UNSUPPORTED, path, 0, 0,
                        "this HDF5 library has no gzip filter (output.compression)");
  vs_h5_writer *w = vs_calloc(1, sizeof *w);
  if (!w) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  w->file = w->fapl = w->gcpl = w->params = H5I_INVALID_HID;
  for (int i = 0; i < S_COUNT; i++) series_init(&w->s[i]);
  w->every = model->output.every > 0 ? model->output.every : 1;
  w->compression = model->output.compression;
  w->n_particles = model->n_particles;
  w->n_constraints = model->n_constraints;
  w->last_frame = -1;
  w->path = vs_strdup(path);
  w->tmp = temp_name(path, dir);
  int ok = w->path && w->tmp;
  if (ok && (model->output.fields & VS_FIELD_VELOCITY) && model->output.float32) {
    w->vel = vs_malloc(3 * (size_t)(model->n_particles > 0 ? model->n_particles : 0) *
                        sizeof *w->vel + 1);
    ok = w->vel != NULL;
  }
  if (ok) {
    vs_error e;
    ok = vs_state_create(model, &w->ck, &e) == VS_OK;
  }
  if (!ok) {
    writer_free(w);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  const vs_model *m = model; /* the table's count expressions name it m */
#define CK_ROWS(name, type, width, count) w->ck_rows[CK_##name] = (hsize_t)(count);
  VS_STATE_FIELDS(CK_ROWS)
#undef CK_ROWS
  (void)m;
  *out = w;
  return VS_OK;
}

/* Property lists shared by everything the writer creates. */
static int make_plists(vs_h5_writer *w) {
  w->fapl = vs_h5_file_access();
  w->gcpl = H5Pcreate(H5P_GROUP_CREATE);
  /* STRONG: closing the file closes anything still open in it, so an
   * error path can always release and delete the temporary file. */
  if (w->fapl < 0 || w->gcpl < 0 || H5Pset_fclose_degree(w->fapl, H5F_CLOSE_STRONG) < 0 ||
      H5Pset_obj_track_times(w->gcpl, 0) < 0)
    return fail(w, "creating property lists");
  return 0;
}

vs_status vs_h5_open(const char *path, const vs_scene *scene, const vs_model *model,
                     const vs_h5_run_info *info, vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_open: missing argument");
  vs_h5_quiet();

  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "is a directory");
    if (!info || !info->force)
      return vs_error_set(err, VS_ERR_EXISTS, path, 0, 0, "exists (use --force to overwrite)");
  } else if (errno != ENOENT) {
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "%s", strerror(errno));
  }
  char *dir;
  vs_status rc = check_dir(path, &dir, err);
  if (rc != VS_OK) return rc;
  vs_h5_writer *w;
  rc = writer_new(path, dir, model, &w, err);
  vs_free(dir);
  if (rc != VS_OK) return rc;

  /* Create the file ourselves first: errno then tells a path that cannot
   * be used (exit 2) from a disk that is full (exit 1), which HDF5's error
   * stack does not. */
  int fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) {
    int e = errno;
    vs_status code = create_failure(e);
    vs_error_set(err, code, path, 0, 0, "cannot create '%s': %s", w->tmp, strerror(e));
    writer_free(w);
    return code;
  }
  close(fd);
  unsigned fields = model->output.fields;
  int ok = 0;
  if (make_plists(w) == 0) {
    w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, w->fapl);
    if (w->file < 0) {
      char what[1024];
      snprintf(what, sizeof what, "cannot create '%s'", w->tmp);
      fail(w, what);
    } else if (write_h5md(w) == 0 && write_particles(w, model, fields, model->output.float32) == 0 &&
               write_observables(w, model, fields) == 0 && write_topology(w, model) == 0 &&
               write_parameters(w, scene, model, info) == 0) {
      ok = 1;
    }
  }
  if (!ok) {
    vs_status code = w->nomem ? VS_ERR_NOMEM : VS_ERR_IO;
    vs_error_set(err, code, path, 0, 0, "%s", w->msg[0] ? w->msg : "cannot create file");
    discard(w);
    writer_free(w);
    return code;
  }
  *out = w;
  return VS_OK;
}

/* Append one frame's row to a series and write the buffer when full. */
static unsigned char *row_of(series *s) { return s->buf + s->used * s->row_elems * s->esize; }

static int push_row(vs_h5_writer *w, int index, const vs_state *state) {
  series *s = &w->s[index];
  s->steps[s->used] = state->frame;
  s->times[s->used] = state->time;
  s->used++;
  if (s->used == s->cap) return flush_series(w, index);
  return 0;
}

static void push_double(vs_h5_writer *w, int index, double v, const vs_state *state, int *rc) {
  series *s = &w->s[index];
  if (s->value < 0) return;
  memcpy(row_of(s), &v, sizeof v);
  if (push_row(w, index, state) < 0) *rc = -1;
}

vs_status vs_h5_record(vs_h5_writer *w, const vs_model *model, const vs_state *state,
                       vs_error *err) {
  if (!w || !model || !state)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_record: missing argument");
  if (model->n_particles != w->n_particles || model->n_constraints != w->n_constraints)
    return vs_error_set(err, VS_ERR_USAGE, w->path, 0, 0,
                        "vs_h5_record: model differs from the one the file was opened for");
  if (w->failed)
    return vs_error_set(err, VS_ERR_IO, w->path, 0, 0, "an earlier write failed: %s", w->msg);
  if (state->frame != 0 && state->frame % w->every != 0) return VS_OK;
  /* A frame is recorded once: after a resume the checkpoint's frame is
   * already in the file, and recording it again would duplicate a row. */
  if (state->frame <= w->last_frame) return VS_OK;

  size_t n = (size_t)(w->n_particles > 0 ? w->n_particles : 0);
  series *per = &w->s[S_PER];
  vs_observables obs;
  /* per-constraint |C| lands straight in its buffer row */
  vs_observe(model, state, &obs, per->value >= 0 ? (double *)(void *)row_of(per) : NULL);

  int rc = 0;
  series *pos = &w->s[S_POS];
  if (pos->value >= 0) {
    const double *x = state->x;
    if (pos->esize == sizeof(float)) {
      float *r = (float *)(void *)row_of(pos);
      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) r[3 * i + c] = (float)x[4 * i + c];
    } else {
      double *r = (double *)(void *)row_of(pos);
      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) r[3 * i + c] = x[4 * i + c];
    }
    if (push_row(w, S_POS, state) < 0) rc = -1;
  }
  series *vel = &w->s[S_VEL];
  if (vel->value >= 0) {
    if (vel->esize == sizeof(float)) {
      vs_state_velocity(model, state, w->vel);
      float *r = (float *)(void *)row_of(vel);
      for (size_t i = 0; i < 3 * n; i++) r[i] = (float)w->vel[i];
    } else {
      vs_state_velocity(model, state, (double *)(void *)row_of(vel));
    }
    if (push_row(w, S_VEL, state) < 0) rc = -1;
  }
  if (per->value >= 0 && push_row(w, S_PER, state) < 0) rc = -1;
  for (int k = 0; k <= VS_KIND_COUNT; k++) {
    const vs_error_stats *es = k < VS_KIND_COUNT ? &obs.kind[k] : &obs.all;
    push_double(w, S_ERR0 + 3 * k + 0, es->max, state, &rc);
    push_double(w, S_ERR0 + 3 * k + 1, es->rms, state, &rc);
    push_double(w, S_ERR0 + 3 * k + 2, es->max_relative, state, &rc);
  }
  push_double(w, S_PEN, obs.penetration_max, state, &rc);
  push_double(w, S_KIN, obs.kinetic, state, &rc);
  push_double(w, S_POT, obs.potential, state, &rc);
  push_double(w, S_OVL, obs.overlap_max, state, &rc);
  series *alive = &w->s[S_ALIVE];
  if (alive->value >= 0) {
    int64_t a = obs.alive;
    memcpy(row_of(alive), &a, sizeof a);
    if (push_row(w, S_ALIVE, state) < 0) rc = -1;
  }
  w->frames++;
  w->last_frame = state->frame;
  /* the checkpoint is the state of the last recorded frame, whatever
   * happens to the state afterwards (a failing step, an interrupt) */
  vs_state_copy(model, w->ck, state);
  w->has_ck = 1;
  if (rc < 0) {
    w->failed = 1;
    return vs_error_set(err, VS_ERR_IO, w->path, 0, 0, "frame %lld: %s", (long long)state->frame,
                        w->msg);
  }
  return VS_OK;
}

/* /checkpoint: one dataset per VS_STATE_FIELDS array, [count, width] (or
 * [count] for width 1), plus the counters as attributes.  Replaced whole on
 * every finish, so a resumed file holds only the newest. */
static int write_checkpoint(vs_h5_writer *w) {
  if (H5Lexists(w->file, "checkpoint", H5P_DEFAULT) > 0 &&
      H5Ldelete(w->file, "checkpoint", H5P_DEFAULT) < 0)
    return fail(w, "replacing /checkpoint");
  hid_t g = make_group(w, w->file, "checkpoint");
  if (g < 0) return -1;
  const vs_state *c = w->ck;
  int rc = 0;
#define CK_WRITE(name, type, width, count)                                                   \
  if (rc == 0) {                                                                             \
    hsize_t d[2] = {w->ck_rows[CK_##name], (hsize_t)(width)};                                \
    rc = make_fixed(w, g, #name, CK_FTYPE(c->name), CK_MTYPE(c->name), (width) > 1 ? 2 : 1, d, \
                    c->name, NULL);                                                          \
  }
  VS_STATE_FIELDS(CK_WRITE)
#undef CK_WRITE
  if (rc == 0)
    rc = attr_i64(w, g, "frame", c->frame) < 0 || attr_i64(w, g, "step", c->step) < 0 ||
                 attr_f64(w, g, "time", c->time) < 0 || attr_i64(w, g, "n_alive", c->n_alive) < 0
             ? -1
             : 0;
  H5Gclose(g);
  return rc;
}

static int sync_file(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

vs_status vs_h5_finish(vs_h5_writer *w, const char *status, double wall_seconds, vs_error *err) {
  if (!w) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_finish: no writer");
  vs_h5_quiet();
  /* A failed frame write left its frames in the buffers; try once more so
   * that a transient failure still gives a complete file. */
  w->msg[0] = '\0';
  int ok = flush_all(w) == 0;
  ok = ok && attr_str(w, w->params, "status", status ? status : "complete") == 0 &&
       attr_f64(w, w->params, "wall_seconds", wall_seconds) == 0 &&
       attr_i64(w, w->params, "frames_recorded", w->frames) == 0;
  ok = ok && (!w->has_ck || write_checkpoint(w) == 0);
  close_objects(w);
  if (ok) {
    ssize_t left = H5Fget_obj_count(w->file, H5F_OBJ_ALL);
    if (left != 1) {
      snprintf(w->msg, sizeof w->msg, "internal error: %zd HDF5 objects left open", left - 1);
      ok = 0;
    }
  }
  if (ok && H5Fclose(w->file) < 0) {
    fail(w, "closing the file");
    ok = 0;
  }
  w->file = H5I_INVALID_HID;
  if (ok && sync_file(w->tmp) != 0) {
    snprintf(w->msg, sizeof w->msg, "syncing '%s': %s", w->tmp, strerror(errno));
    ok = 0;
  }
  if (ok && rename(w->tmp, w->path) != 0) {
    snprintf(w->msg, sizeof w->msg, "renaming '%s' into place: %s", w->tmp, strerror(errno));
    ok = 0;
  }
  vs_status rc = VS_OK;
  if (!ok) {
    rc = vs_error_set(err, VS_ERR_IO, w->path, 0, 0, "%s", w->msg);
    discard(w);
  } else {
    close_id(&w->fapl);
  }
  writer_free(w);
  return rc;
}

void vs_h5_abort(vs_h5_writer *w) {
  if (!w) return;
  discard(w);
  writer_free(w);
}

const char *vs_h5_temp_path(const vs_h5_writer *w) { return w ? w->tmp : NULL; }

const char *vs_h5_library_version(void) {
  static char text[64];
  if (!text[0]) {
    vs_h5_quiet();
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    snprintf(text, sizeof text, "HDF5 %u.%u.%u", maj, min, rel);
  }
  return text;
}

/* ---- resuming ------------------------------------------------------------ */

vs_status vs_h5_read_parameter(const char *path, const char *name, char **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !name || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_parameter: missing argument");
  hid_t f;
  vs_status rc = vs_h5_open_result(path, &f, err);
  if (rc != VS_OK) return rc;
  int nomem = 0;
  *out = vs_h5_attr_string(f, "/parameters/vsim", name, &nomem);
  H5Fclose(f);
  if (nomem) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (!*out)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "no parameter '%s' in /parameters/vsim",
                        name);
  return VS_OK;
}

/* Read /checkpoint/<name> into buf after checking its shape against the
 * model's [rows, width]. */
static vs_status read_ck_array(hid_t f, const char *path, const char *name, hsize_t rows,
                               int width, hid_t mtype, void *buf, vs_error *err) {
  char p[128];
  snprintf(p, sizeof p, "/checkpoint/%s", name);
  if (!vs_h5_path_exists(f, p))
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "checkpoint has no '%s'", name);
  hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
  hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t dims[H5S_MAX_RANK];
  int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  vs_status rc = VS_OK;
  int want_rank = width > 1 ? 2 : 1;
  if (rank < 0) {
    rc = vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s", p);
  } else if (rank != want_rank || dims[0] != rows || (width > 1 && dims[1] != (hsize_t)width)) {
    char shape[128];
    vs_h5_shape_text(sp, shape, sizeof shape);
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "checkpoint '%s' is %s, the scene needs [%llu%s%.0d]: not the same scene",
                      name, shape, (unsigned long long)rows, width > 1 ? ", " : "",
                      width > 1 ? width : 0);
  } else if (rows > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    rc = vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s", p);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return rc;
}

vs_status vs_h5_read_checkpoint(const char *path, const vs_model *model, vs_state *state,
                                vs_error *err) {
  if (!path || !model || !state)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_checkpoint: missing argument");
  hid_t f;
  vs_status rc = vs_h5_open_result(path, &f, err);
  if (rc != VS_OK) return rc;
  if (!vs_h5_path_exists(f, "/checkpoint")) {
    H5Fclose(f);
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "no /checkpoint (the run recorded no frame, or an older vsim wrote it)");
  }
  const vs_model *m = model; /* the table's count expressions name it m */
#define CK_READ(name, type, width, count)                                                  \
  if (rc == VS_OK)                                                                         \
    rc = read_ck_array(f, path, #name, (hsize_t)(count), (width), CK_MTYPE(state->name), \
                       state->name, err);
  VS_STATE_FIELDS(CK_READ)
#undef CK_READ
  (void)m;
  int64_t frame, step, n_alive;
  double time;
  if (rc == VS_OK && (vs_h5_attr_int64(f, "/checkpoint", "frame", &frame) != 0 ||
                      vs_h5_attr_int64(f, "/checkpoint", "step", &step) != 0 ||
                      vs_h5_attr_double(f, "/checkpoint", "time", &time) != 0 ||
                      vs_h5_attr_int64(f, "/checkpoint", "n_alive", &n_alive) != 0))
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "checkpoint lacks one of its counters (frame, step, time, n_alive)");
  if (rc == VS_OK) {
    state->frame = frame;
    state->step = step;
    state->time = time;
    state->n_alive = n_alive;
  }
  H5Fclose(f);
  return rc;
}

/* Copy src to a new file dst byte for byte (dst must not exist).  Returns
 * 0, or the status to report (why says what failed). */
static vs_status copy_bytes(const char *src, const char *dst, char *why, size_t why_size) {
  int in = open(src, O_RDONLY);
  struct stat st;
  if (in < 0 || fstat(in, &st) != 0) {
    snprintf(why, why_size, "cannot read '%s': %s", src, strerror(errno));
    if (in >= 0) close(in);
    return VS_ERR_IO;
  }
  /* the resumed file keeps the original's permissions */
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 0777);
  if (out < 0) {
    int e = errno;
    snprintf(why, why_size, "cannot create '%s': %s", dst, strerror(e));
    close(in);
    return create_failure(e);
  }
  static const size_t bufsize = (size_t)1 << 20;
  char *buf = vs_malloc(bufsize);
  vs_status rc = buf ? VS_OK : VS_ERR_NOMEM;
  if (!buf) snprintf(why, why_size, "out of memory");
  while (rc == VS_OK) {
    ssize_t n = read(in, buf, bufsize);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(why, why_size, "reading '%s': %s", src, strerror(errno));
      rc = VS_ERR_IO;
    }
    if (n <= 0) break;
    for (ssize_t done = 0; rc == VS_OK && done < n;) {
      ssize_t k = write(out, buf + done, (size_t)(n - done));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) {
        snprintf(why, why_size, "writing '%s': %s", dst, strerror(errno));
        rc = VS_ERR_IO;
      } else {
        done += k;
      }
    }
  }
  vs_free(buf);
  close(in);
  if (close(out) != 0 && rc == VS_OK) {
    snprintf(why, why_size, "writing '%s': %s", dst, strerror(errno));
    rc = VS_ERR_IO;
  }
  return rc;
}

/* Open series i of a reopened file, checking that it is what the model
 * would write; 1 = layout mismatch (message in w->msg), -1 = HDF5 error. */
static int open_series(vs_h5_writer *w, const vs_model *m, int i) {
  char group[160], p[192];
  series *s = &w->s[i];
  series_path(i, group, sizeof group);
  int f32 = (i == S_POS || i == S_VEL) && m->output.float32;
  hid_t ftype = f32 ? H5T_IEEE_F32LE : i == S_ALIVE ? H5T_STD_I64LE : H5T_IEEE_F64LE;
  hid_t mtype = f32 ? H5T_NATIVE_FLOAT : i == S_ALIVE ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  hsize_t inner[2] = {(hsize_t)m->n_particles, 3};
  int rank = 1;
  if (i == S_POS || i == S_VEL) rank = 3;
  if (i == S_PER) {
    rank = 2;
    inner[0] = (hsize_t)m->n_constraints;
  }
  snprintf(p, sizeof p, "%s/value", group);
  s->value = H5Dopen2(w->file, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/step", group);
  s->step = s->value >= 0 ? H5Dopen2(w->file, p, H5P_DEFAULT) : H5I_INVALID_HID;
  snprintf(p, sizeof p, "%s/time", group);
  s->time = s->step >= 0 ? H5Dopen2(w->file, p, H5P_DEFAULT) : H5I_INVALID_HID;
  if (s->time < 0) {
    snprintf(p, sizeof p, "opening %s", group);
    return fail(w, p);
  }
  hid_t sp = H5Dget_space(s->value), t = H5Dget_type(s->value);
  hsize_t dims[H5S_MAX_RANK], sdims[H5S_MAX_RANK], tdims[H5S_MAX_RANK];
  int r = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  int same = r == rank && t >= 0 && H5Tequal(t, ftype) > 0;
  for (int k = 1; same && k < rank; k++) same = dims[k] == inner[k - 1];
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  hid_t ss = H5Dget_space(s->step), ts = H5Dget_space(s->time);
  int rs = ss >= 0 ? H5Sget_simple_extent_dims(ss, sdims, NULL) : -1;
  int rt = ts >= 0 ? H5Sget_simple_extent_dims(ts, tdims, NULL) : -1;
  if (ss >= 0) H5Sclose(ss);
  if (ts >= 0) H5Sclose(ts);
  if (!same || rs != 1 || rt != 1 || sdims[0] != dims[0] || tdims[0] != dims[0]) {
    snprintf(w->msg, sizeof w->msg,
             "%s does not have the shape or type this scene writes (same scene, fields and "
             "precision needed to resume)",
             group);
    return 1;
  }
  if (series_alloc(w, s, group, rank, inner, ftype, mtype) < 0) return -1;
  s->dims[0] = dims[0];
  return 0;
}

vs_status vs_h5_reopen(const char *path, const vs_model *model, const vs_h5_run_info *info,
                       vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_reopen: missing argument");
  hid_t probe;
  vs_status rc = vs_h5_open_result(path, &probe, err);
  if (rc != VS_OK) return rc;
  H5Fclose(probe);
  char *dir;
  if ((rc = check_dir(path, &dir, err)) != VS_OK) return rc;
  vs_h5_writer *w;
  rc = writer_new(path, dir, model, &w, err);
  vs_free(dir);
  if (rc != VS_OK) return rc;

  vs_status copied = copy_bytes(path, w->tmp, w->msg, sizeof w->msg);
  /* what a failure is, unless it finds out otherwise below */
  vs_status code = copied == VS_OK ? VS_ERR_IO : copied;
  int ok = 0;
  if (copied == VS_OK && make_plists(w) == 0) {
    w->file = H5Fopen(w->tmp, H5F_ACC_RDWR, w->fapl);
    if (w->file < 0) fail(w, "reopening a copy");
  }
  if (w->file >= 0) {
    ok = 1;
    for (int i = 0; ok && i < S_COUNT; i++) {
      char group[160], p[192];
      series_path(i, group, sizeof group);
      snprintf(p, sizeof p, "%s/value", group);
      int has = vs_h5_path_exists(w->file, p);
      if (has != series_wanted(model, i)) {
        snprintf(w->msg, sizeof w->msg, "%s %s in the file but %s by the scene", group,
                 has ? "is" : "is not", has ? "not written" : "written");
        code = VS_ERR_FORMAT;
        ok = 0;
      } else if (has) {
        int r = open_series(w, model, i);
        if (r != 0) {
          code = r > 0 ? VS_ERR_FORMAT : w->nomem ? VS_ERR_NOMEM : VS_ERR_IO;
          ok = 0;
        }
      }
    }
  }
  if (ok) {
    /* every series holds the same frames; penetration is always there */
    series *pen = &w->s[S_PEN];
    for (int i = 0; ok && i < S_COUNT; i++)
      if (w->s[i].value >= 0 && w->s[i].dims[0] != pen->dims[0]) {
        char group[160];
        snprintf(w->msg, sizeof w->msg, "%s has %llu frames, /observables/penetration/max %llu",
                 series_path(i, group, sizeof group), (unsigned long long)w->s[i].dims[0],
                 (unsigned long long)pen->dims[0]);
        code = VS_ERR_FORMAT;
        ok = 0;
      }
    w->frames = (int64_t)pen->dims[0];
    if (ok && pen->dims[0] > 0) {
      hsize_t start = pen->dims[0] - 1, count = 1;
      hid_t fs = H5Dget_space(pen->step), ms = H5Screate_simple(1, &count, NULL);
      int64_t last = -1;
      if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
          H5Dread(pen->step, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, &last) < 0)
        ok = fail(w, "reading the last recorded frame") == 0;
      if (ms >= 0) H5Sclose(ms);
      if (fs >= 0) H5Sclose(fs);
      w->last_frame = last;
    }
  }
  if (ok) {
    w->params = H5Gopen2(w->file, "/parameters/vsim", H5P_DEFAULT);
    ok = w->params >= 0 && attr_str(w, w->params, "status", "running") == 0 &&
         (!info || !info->command || attr_str(w, w->params, "resume_command", info->command) == 0);
    if (!ok) fail(w, "updating /parameters/vsim");
  }
  if (!ok) {
    vs_error_set(err, code, path, 0, 0, "cannot resume: %s",
                 w->msg[0] ? w->msg : "cannot reopen the file");
    discard(w);
    writer_free(w);
    return code;
  }
  *out = w;
  return VS_OK;
}
