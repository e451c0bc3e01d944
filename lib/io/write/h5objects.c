/* SPDX-License-Identifier: MIT */
/* h5objects.c: the HDF5 objects of the result file: failure messages,
 * groups, attributes, fixed and extendible datasets, the time series
 * (buffers, paths, which are written) and appending frames. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/write/h5write.h"

/* ---- failure bookkeeping ------------------------------------------------ */

/* Remember the first failure with HDF5's own explanation; returns -1 so
 * that callers can `return h5w_fail(w, ...)`. */
int h5w_fail(vs_h5_writer *w, const char *what) {
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

/* h5w_fail() for an object: "writing /connectivity/distance: No space left on
 * device".  HDF5's text is taken first: any later API call clears it. */
static int fail_obj(vs_h5_writer *w, const char *what, hid_t loc, const char *name) {
  char h5[256], full[320];
  vs_h5_error_text(h5, sizeof h5);
  if (!w->msg[0])
    snprintf(w->msg, sizeof w->msg, "%s %s: %s", what, full_name(loc, name, full, sizeof full), h5);
  return -1;
}

void h5w_close_id(hid_t *id) {
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

hid_t h5w_make_group(vs_h5_writer *w, hid_t loc, const char *name) {
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, w->gcpl, H5P_DEFAULT);
  if (g < 0) {
    fail_obj(w, "creating group", loc, name);
  }
  return g;
}

/* Create (or reopen) attribute `name` on loc and write it. */
int h5w_set_attr(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
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
  if (space < 0) return h5w_fail(w, "creating a dataspace");
  int rc = h5w_set_attr(w, loc, name, ftype, mtype, space, data);
  H5Sclose(space);
  return rc;
}

int h5w_attr_i32(vs_h5_writer *w, hid_t loc, const char *name, int32_t v) {
  return attr_scalar(w, loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v);
}

int h5w_attr_i64(vs_h5_writer *w, hid_t loc, const char *name, int64_t v) {
  return attr_scalar(w, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

int h5w_attr_f64(vs_h5_writer *w, hid_t loc, const char *name, double v) {
  return attr_scalar(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

/* Strings are variable-length UTF-8: h5py reads them as str, and they live
 * in the global heap, so a long scene text does not hit the 64 KiB limit on
 * attributes stored in the object header. */
int h5w_attr_str(vs_h5_writer *w, hid_t loc, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    if (t >= 0) H5Tclose(t);
    return h5w_fail(w, "creating a string type");
  }
  const char *v = value ? value : "";
  int rc = attr_scalar(w, loc, name, t, t, &v);
  H5Tclose(t);
  return rc;
}

/* A fixed-length UTF-8 string (H5MD 1.1 wants the h5md, author and creator
 * strings fixed-length). */
int h5w_attr_fixstr(vs_h5_writer *w, hid_t loc, const char *name, const char *value) {
  const char *v = value ? value : "";
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, strlen(v) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
      H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    if (t >= 0) H5Tclose(t);
    return h5w_fail(w, "creating a string type");
  }
  int rc = attr_scalar(w, loc, name, t, t, v);
  H5Tclose(t);
  return rc;
}

/* H5MD's connectivity attribute particles_group: an object reference to
 * the particles group the indices point into (/particles/all). */
int h5w_attr_particles_group(vs_h5_writer *w, hid_t loc, const char *group) {
  hobj_ref_t ref;
  if (H5Rcreate(&ref, w->file, group, H5R_OBJECT, -1) < 0) {
    char what[128];
    snprintf(what, sizeof what, "referencing %s", group);
    return h5w_fail(w, what);
  }
  return attr_scalar(w, loc, "particles_group", H5T_STD_REF_OBJ, H5T_STD_REF_OBJ, &ref);
}

/* H5MD's box boundary: a fixed-length string array, as in the H5MD examples. */
int h5w_attr_boundary(vs_h5_writer *w, hid_t loc) {
  static const char names[3][5] = {"none", "none", "none"};
  hsize_t n = 3;
  hid_t t = H5Tcopy(H5T_C_S1);
  hid_t space = H5Screate_simple(1, &n, NULL);
  int rc = -1;
  if (t >= 0 && space >= 0 && H5Tset_size(t, 5) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0)
    rc = h5w_set_attr(w, loc, "boundary", t, t, space, names);
  else
    h5w_fail(w, "creating attribute boundary");
  if (space >= 0) H5Sclose(space);
  if (t >= 0) H5Tclose(t);
  return rc;
}

static hid_t dataset_plist(vs_h5_writer *w) {
  hid_t p = H5Pcreate(H5P_DATASET_CREATE);
  if (p < 0 || H5Pset_obj_track_times(p, 0) < 0) {
    if (p >= 0) H5Pclose(p);
    h5w_fail(w, "creating a dataset property list");
    return H5I_INVALID_HID;
  }
  return p;
}

/* A dataset that never changes (mass, connectivity, ...): contiguous,
 * written whole. */
int h5w_make_fixed(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
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

/* A connectivity dataset [rows, cols] int32 (H5MD 1.1): fill value -1 (a
 * particle index that cannot be), and particles_group.  *keep as in
 * h5w_make_fixed. */
int h5w_make_index(vs_h5_writer *w, hid_t loc, const char *name, hsize_t rows, hsize_t cols,
                   const int32_t *data, const char *particles_group, hid_t *keep) {
  hid_t p = dataset_plist(w);
  if (p < 0) return -1;
  const int32_t fill = -1;
  hsize_t dims[2] = {rows, cols};
  hid_t space = H5Pset_fill_value(p, H5T_NATIVE_INT32, &fill) >= 0
                    ? H5Screate_simple(2, dims, NULL)
                    : H5I_INVALID_HID;
  hid_t d = space >= 0 ? H5Dcreate2(loc, name, H5T_STD_I32LE, space, H5P_DEFAULT, p, H5P_DEFAULT)
                       : H5I_INVALID_HID;
  int rc = 0;
  if (d < 0 || (rows * cols > 0 && H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                            data) < 0))
    rc = fail_obj(w, "writing", loc, name);
  if (rc == 0 && particles_group) rc = h5w_attr_particles_group(w, d, particles_group);
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
 * chunk is one frame, split along axis 1 into equal parts. */
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
    /* as few chunks of at most CHUNK_BYTES as the frame needs, of equal
     * size: the last one is not mostly padding (65536 particles: 2 chunks
     * of 32768, not 43690 + 21846 in a chunk of 43690, which stored 44 MB
     * for 33 MB of positions over 21 frames) */
    size_t n1 = CHUNK_BYTES / tail;
    if (n1 < 1) n1 = 1;
    const size_t parts = ((size_t)chunk[1] + n1 - 1) / n1;
    chunk[1] = ((size_t)chunk[1] + parts - 1) / parts;
  }
  hid_t p = dataset_plist(w);
  if (p < 0) return H5I_INVALID_HID;
  int ok = H5Pset_chunk(p, rank, chunk) >= 0;
  if (ok && w->compression > 0)
    ok = H5Pset_shuffle(p) >= 0 && H5Pset_deflate(p, (unsigned)w->compression) >= 0;
  else if (ok) /* every row within the extent is written: nothing to fill, and
                * with the file's chunk cache of 0 bytes (h5w_make_plists)
                * HDF5 writes each chunk straight from the series buffer */
    ok = H5Pset_fill_time(p, H5D_FILL_TIME_NEVER) >= 0;
  hid_t space = ok ? H5Screate_simple(rank, dims, maxdims) : H5I_INVALID_HID;
  hid_t d = space >= 0 ? H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, p, H5P_DEFAULT)
                       : H5I_INVALID_HID;
  if (d < 0) fail_obj(w, "creating", loc, name);
  if (space >= 0) H5Sclose(space);
  H5Pclose(p);
  return d;
}

/* Frames per chunk: about CHUNK_BYTES, at most CHUNK_ROWS_MAX, and no more
 * than the run will record (w->rows_hint), so that a short run or a small
 * scene does not allocate a chunk mostly of padding. */
static size_t chunk_rows(const vs_h5_writer *w, size_t row_bytes) {
  size_t r = row_bytes == 0 ? CHUNK_ROWS_MAX : CHUNK_BYTES / row_bytes;
  if (r < 1) r = 1;
  if (r > CHUNK_ROWS_MAX) r = CHUNK_ROWS_MAX;
  if (w->rows_hint > 0 && r > w->rows_hint) r = w->rows_hint;
  return r;
}

/* Create group `name` under loc holding a time series whose frames have
 * shape `inner` (rank - 1 dims), stored as ftype, buffered as mtype. */
int h5w_series_alloc(vs_h5_writer *w, series *s, const char *name, int rank,
                     const hsize_t *inner, hid_t ftype, hid_t mtype, size_t rows) {
  s->rank = rank;
  s->mtype = mtype;
  s->esize = H5Tget_size(mtype);
  s->row_elems = 1;
  s->dims[0] = 0;
  for (int i = 1; i < rank; i++) {
    s->dims[i] = inner[i - 1];
    s->row_elems *= (size_t)inner[i - 1];
  }
  s->cap = rows > 0 ? rows : chunk_rows(w, s->row_elems * H5Tget_size(ftype));
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

/* unit: the group's `unit` attribute, none when NULL, "" or "1"
 * (dimensionless).  H5MD puts units on the value dataset, but MDAnalysis
 * 2.4 refuses a length unit it does not know ("m") there. */
/* A hard link `name` in g to the dataset d, opened through it. */
static hid_t link_to(vs_h5_writer *w, hid_t g, const char *name, hid_t d) {
  if (H5Lcreate_hard(d, ".", g, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
    return fail_obj(w, "linking", g, name);
  hid_t id = H5Dopen2(g, name, H5P_DEFAULT);
  if (id < 0) fail_obj(w, "opening", g, name);
  return id;
}

/* lead: the series whose step and time this one shares (hard links; every
 * series is recorded on the same frames), NULL to create them. */
int h5w_make_series(vs_h5_writer *w, series *s, const series *lead, hid_t loc, const char *name,
                    int rank, const hsize_t *inner, hid_t ftype, hid_t mtype, const char *unit) {
  if (h5w_series_alloc(w, s, name, rank, inner, ftype, mtype, 0) < 0) return -1;
  hid_t g = h5w_make_group(w, loc, name);
  if (g < 0) return -1;
  hsize_t none[1] = {0};
  s->value = make_extendible(w, g, "value", ftype, rank, inner, s->cap);
  s->shared = lead != NULL;
  if (s->value >= 0)
    s->step = lead ? link_to(w, g, "step", lead->step)
                   : make_extendible(w, g, "step", H5T_STD_I64LE, 1, none,
                                     chunk_rows(w, sizeof(int64_t)));
  if (s->step >= 0)
    s->time = lead ? link_to(w, g, "time", lead->time)
                   : make_extendible(w, g, "time", H5T_IEEE_F64LE, 1, none,
                                     chunk_rows(w, sizeof(double)));
  if (s->time >= 0 && unit && unit[0] && strcmp(unit, "1") != 0 &&
      h5w_attr_fixstr(w, g, "unit", unit) < 0)
    h5w_close_id(&s->time);
  H5Gclose(g);
  return s->time >= 0 ? 0 : -1;
}

/* Open group `name` under loc, creating it when missing; -1 on failure. */
static hid_t open_or_make_group(vs_h5_writer *w, hid_t loc, const char *name) {
  htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
  if (e > 0) {
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0) fail_obj(w, "opening group", loc, name);
    return g;
  }
  if (e < 0) return fail_obj(w, "looking up", loc, name);
  return h5w_make_group(w, loc, name);
}

/* Create every series of m (the rows of H5W_SERIES it writes) whose group
 * is under `under` ("/particles/", "/observables/"), in h5w_create_order,
 * with the groups between. */
int h5w_create_series(vs_h5_writer *w, const vs_model *m, const char *under) {
  size_t ulen = strlen(under);
  for (int o = 0; o < H5W_ROWS; o++) {
    const int r = h5w_create_order[o];
    /* the row's slots (described once each: the description prints names) */
    for (int i = h5w_row_first[r]; i < h5w_row_first[r] + h5w_row_slots[r]; i++) {
      h5w_series_desc d;
      h5w_series_describe(i, m, &d);
      if (!d.wanted || strncmp(d.group, under, ulen) != 0) continue;
      /* walk "/a/b/leaf": open or create a, then b, then the series leaf */
      hid_t cur = w->file;
      char *name = d.group + 1;
      char *slash;
      while ((slash = strchr(name, '/')) != NULL) {
        *slash = '\0';
        hid_t next = open_or_make_group(w, cur, name);
        if (cur != w->file) H5Gclose(cur);
        if (next < 0) return -1;
        cur = next;
        name = slash + 1;
      }
      const series *lead = w->time_lead >= 0 ? &w->s[w->time_lead] : NULL;
      int rc = h5w_make_series(w, &w->s[i], lead, cur, name, d.rank, d.inner, d.ftype, d.mtype,
                               d.unit);
      if (rc == 0 && !lead) w->time_lead = i;
      /* /connectivity/alive is H5MD connectivity: it names its particles */
      if (rc == 0 && d.row == H5W_ROW_LIVE) {
        hid_t g = H5Gopen2(cur, name, H5P_DEFAULT);
        rc = g < 0 ? fail_obj(w, "opening", cur, name) : h5w_attr_particles_group(w, g, "/particles/all");
        if (g >= 0) H5Gclose(g);
      }
      if (cur != w->file) H5Gclose(cur);
      if (rc < 0) return -1;
    }
  }
  return 0;
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

/* Write the buffered frames.  On failure nothing is forgotten: the buffer
 * and dims stay as they were, so a later flush (vs_h5_finish) retries. */
int h5w_flush_series(vs_h5_writer *w, int index) {
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
  /* shared step and time are written by the series that created them */
  if (append_block(w, s->value, s->rank, newdims, start, count, s->mtype, s->buf) < 0 ||
      (!s->shared &&
       (append_block(w, s->step, 1, newdims, start, count, H5T_NATIVE_INT64, s->steps) < 0 ||
        append_block(w, s->time, 1, newdims, start, count, H5T_NATIVE_DOUBLE, s->times) < 0)))
    return -1;
  s->dims[0] = newdims[0];
  s->used = 0;
  w->chunks_written++;
  return 0;
}


int h5w_flush_all(vs_h5_writer *w) {
  int rc = 0;
  for (int i = 0; i < S_COUNT; i++)
    if (h5w_flush_series(w, i) < 0) rc = -1;
  return rc;
}
