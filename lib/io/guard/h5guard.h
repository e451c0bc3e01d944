/* SPDX-License-Identifier: MIT */
/* h5guard.h (private): a validating layer for reading HDF5 result files
 * that may come from anywhere (other machines, other versions, a half-written
 * disk, an attacker).  Not part of the public API.
 *
 * What it guarantees before HDF5 reads a byte of data:
 *  - the path is a regular file (a FIFO, device, socket or directory is
 *    refused without being opened for reading: O_NONBLOCK + fstat).  A
 *    symbolic link is followed (users link result files), but what it
 *    names must be a regular file; the file HDF5 opens is checked to be the
 *    very inode that was checked (st_dev/st_ino of HDF5's own descriptor),
 *    so a path swapped in between is refused;
 *  - HDF5 never leaves the file: every path is walked one component at a
 *    time and anything but a hard link (soft, external, user-defined) is
 *    refused, and every open uses a link access list whose external-link
 *    callback refuses; a dataset with external storage (H5Pset_external)
 *    or a virtual layout is refused; filter plugins are never loaded and
 *    only deflate (once: deflate on deflate multiplies the ratios), shuffle
 *    and fletcher32 are accepted;
 *  - before HDF5 opens a dataset, its object header is read here (v1 and
 *    v2 headers, continuation blocks, bounded) and a chunked layout whose
 *    dimensionality is not at least 2, or with a chunk dimension of 0, is
 *    refused: HDF5 1.10.8 divides by zero while opening such a dataset,
 *    before any check made through its API could run;
 *  - a dataset is opened only when its class, type size (one of the
 *    standard little/big-endian IEEE and integer types), rank and every
 *    dimension are what the caller expects, its layout is sane (a chunked
 *    layout has the dataset's rank, every chunk dimension >= 1 and a chunk
 *    of at most VS_H5G_CHUNK_BYTES_MAX bytes; HDF5 1.10 divides by chunk
 *    dimensions and crashes on 0), its element count x type size (checked
 *    arithmetic) is within the caller's memory bound, and the storage it
 *    claims is possible in this file (contiguous data lies inside the file;
 *    chunked data: at most the file's size in chunks, and every chunk of
 *    the extent is stored, so a 7 KB file cannot declare 2^50 rows);
 *  - reads go through vs_h5g_read_rows(), in slabs the caller sizes;
 *  - strings read from attributes have a bounded length, and
 *    vs_h5g_escape() makes any text from a file safe to print.
 * Errors carry HDF5's own innermost explanation ("truncated file: eof =
 * ...") instead of "unknown HDF5 error": the stack is read before any other
 * HDF5 call can clear it.  The library never prints: HDF5's automatic error
 * printing is turned off by vs_h5g_open.
 *
 * Corrupt object headers, B-trees and heaps are parsed by HDF5 itself, and
 * HDF5 1.10 crashes, loops or frees invalid pointers on some of them before
 * any check made from outside can run.  So vs_h5g_open first lets HDF5 walk
 * the whole file in a child process (h5guard_probe.c: every link listed and
 * looked up, object header, attribute, dataset and chunk index, behind the
 * checks above, under CPU, time and memory limits): when the child dies by
 * a signal, runs out of time or fails, the file is refused, VS_ERR_FORMAT
 * "corrupt file: HDF5 failed reading its structure (signal N)".  The
 * process must not hold HDF5's or malloc's locks in another thread while
 * it opens a file (vsim opens files from its main thread, before or between
 * OpenMP regions).  tests/data/fuzz-h5/README lists the inputs kept. */
#ifndef VSIM_H5GUARD_H
#define VSIM_H5GUARD_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vsim/error.h"

#define VS_H5G_MAX_RANK 8
/* The largest chunk accepted: HDF5 reads (and inflates) whole chunks. */
#define VS_H5G_CHUNK_BYTES_MAX ((uint64_t)64 << 20)
/* "no upper bound" for a dimension */
#define VS_H5G_UNBOUNDED UINT64_MAX

/* File types a dataset may have (a bit set).  Each means the standard
 * little- or big-endian type of that class, size and sign. */
enum {
  VS_H5G_F64 = 1u << 0,
  VS_H5G_F32 = 1u << 1,
  VS_H5G_I64 = 1u << 2,
  VS_H5G_I32 = 1u << 3,
  VS_H5G_I16 = 1u << 4,
  VS_H5G_I8 = 1u << 5,
  VS_H5G_U64 = 1u << 6,
  VS_H5G_U32 = 1u << 7,
  VS_H5G_U16 = 1u << 8,
  VS_H5G_U8 = 1u << 9,
  VS_H5G_FLOAT = VS_H5G_F64 | VS_H5G_F32,
  VS_H5G_INT = VS_H5G_I64 | VS_H5G_I32 | VS_H5G_I16 | VS_H5G_I8,
  VS_H5G_UINT = VS_H5G_U64 | VS_H5G_U32 | VS_H5G_U16 | VS_H5G_U8,
  VS_H5G_NUMERIC = VS_H5G_FLOAT | VS_H5G_INT | VS_H5G_UINT
};

/* What a dataset must be.  Fill with vs_h5g_spec_init, then narrow. */
typedef struct vs_h5g_spec {
  unsigned types;                      /* accepted file types (VS_H5G_*) */
  int rank;                            /* exact rank, or -1: any of 0..VS_H5G_MAX_RANK */
  uint64_t dim_min[VS_H5G_MAX_RANK];   /* per axis, inclusive */
  uint64_t dim_max[VS_H5G_MAX_RANK];   /* per axis, inclusive (VS_H5G_UNBOUNDED) */
  uint64_t max_bytes;                  /* elements x type size must not exceed this */
} vs_h5g_spec;

/* types, rank (-1 = any), every axis [0, VS_H5G_UNBOUNDED], max_bytes. */
void vs_h5g_spec_init(vs_h5g_spec *s, unsigned types, int rank, uint64_t max_bytes);
/* Axis `axis` must lie in [lo, hi] (lo == hi: exactly). */
void vs_h5g_spec_dim(vs_h5g_spec *s, int axis, uint64_t lo, uint64_t hi);

/* An open result file.  Plain data: no allocation, nothing to free but
 * through vs_h5g_close. */
typedef struct vs_h5g_file {
  hid_t file;      /* HDF5 file, read-only */
  hid_t lapl;      /* link access list that refuses external links: pass it to every open */
  int fd;          /* our descriptor of the file (identity and size) */
  uint64_t size;   /* bytes, at open */
  uint64_t base;   /* base address (the user block's size) */
  unsigned addr_size, len_size; /* the superblock's sizes of offsets and lengths */
  char name[512];  /* the path as given, for messages */
} vs_h5g_file;

/* Open path read-only after the checks above and HDF5's walk of the whole
 * file in the probe child.  Errors: not a regular file, unreadable, no
 * child process -> VS_ERR_IO; not HDF5, corrupt -> VS_ERR_FORMAT with
 * HDF5's innermost explanation, or "corrupt file: HDF5 failed reading its
 * structure (signal N)" / "... did not finish reading its structure in N
 * seconds" from the probe.  On failure *f is closed (vs_h5g_close is a
 * no-op). */
vs_status vs_h5g_open(const char *path, vs_h5g_file *f, vs_error *err);
void vs_h5g_close(vs_h5g_file *f);

/* 1 when every component of the absolute path is a hard link that exists,
 * 0 when one is missing; -1 (err filled, VS_ERR_FORMAT) when one is a soft,
 * external or user-defined link, or the path is malformed or too long. */
int vs_h5g_path(const vs_h5g_file *f, const char *path, vs_error *err);

/* An open, checked dataset. */
typedef struct vs_h5g_dset {
  hid_t id;
  hid_t space;
  unsigned type;                    /* the VS_H5G_* bit the file type is */
  size_t type_size;                 /* bytes per element in the file */
  int rank;
  uint64_t dims[VS_H5G_MAX_RANK];
  uint64_t n_elems;                 /* product of dims (checked) */
  uint64_t row_elems;               /* product of dims[1..] (1 for rank 0 and 1) */
  char path[256];
} vs_h5g_dset;

/* Open dataset `path` (absolute) and check it against spec.  Absent ->
 * VS_ERR_FORMAT "no <path>"; anything unexpected -> VS_ERR_FORMAT naming
 * the path and what is wrong (type, rank, a dimension, layout, link,
 * external storage, declared size).  On failure *d is closed. */
vs_status vs_h5g_dset_open(const vs_h5g_file *f, const char *path, const vs_h5g_spec *spec,
                           vs_h5g_dset *d, vs_error *err);
void vs_h5g_dset_close(vs_h5g_dset *d);

/* Read rows [a, b) along axis 0 (all of the other axes) into buf, as mtype
 * (a native type: H5T_NATIVE_DOUBLE, ...).  buf_bytes is the buffer's size:
 * (b - a) x row_elems x sizeof(mtype) must fit (checked).  A rank-0
 * dataset has one row.  Errors VS_ERR_USAGE (bad range, buffer too
 * small) or VS_ERR_IO with HDF5's reason. */
vs_status vs_h5g_read_rows(const vs_h5g_file *f, const vs_h5g_dset *d, hid_t mtype, uint64_t a,
                           uint64_t b, void *buf, size_t buf_bytes, vs_error *err);

/* Rows that fit in buf_bytes of mtype (at least 1 when one row fits, 0 if
 * not even one does): the slab size for streaming with vs_h5g_read_rows. */
uint64_t vs_h5g_rows_per(const vs_h5g_dset *d, hid_t mtype, size_t buf_bytes);

/* String attribute `name` of object `obj` (absolute path), fixed or
 * variable length, scalar or one element, of at most max_len bytes, as a
 * NUL-terminated string from vs_malloc (the caller vs_free's it).  Absent
 * -> VS_ERR_FORMAT "no attribute"; not a string, longer than max_len or
 * with an embedded NUL -> VS_ERR_FORMAT; VS_ERR_NOMEM.  The text is as
 * stored: pass it through vs_h5g_escape before printing it. */
vs_status vs_h5g_attr_string(const vs_h5g_file *f, const char *obj, const char *name,
                             size_t max_len, char **out, vs_error *err);

/* Scalar numeric attributes.  int64: the file type must be an integer (a
 * float is refused: NaN has no integer value) and the value within
 * [lo, hi].  double: integer or float, finite, within [lo, hi]. */
vs_status vs_h5g_attr_int64(const vs_h5g_file *f, const char *obj, const char *name, int64_t lo,
                            int64_t hi, int64_t *out, vs_error *err);
vs_status vs_h5g_attr_double(const vs_h5g_file *f, const char *obj, const char *name, double lo,
                             double hi, double *out, vs_error *err);

/* Call fn for every dataset reachable from group `root` through hard
 * links only (depth at most 32, at most max_objects objects visited), in
 * name order; a group reached again by another hard link is not walked
 * again (its datasets are named once, by the first path: the work is one
 * look at each link record of the file, however the groups link to each
 * other); soft links are skipped (a second name, or nothing), an
 * external or user-defined link is refused (-1, VS_ERR_FORMAT naming it).  fn returns 0 to go on, non-zero
 * to stop (returned).  -1 on an HDF5 failure or a limit (err filled). */
typedef int (*vs_h5g_visit_fn)(const char *path, void *data);
int vs_h5g_visit(const vs_h5g_file *f, const char *root, size_t max_objects, vs_h5g_visit_fn fn,
                 void *data, vs_error *err);

/* Copy text into buf (size bytes, always terminated, truncated with "...")
 * with every control character (C0, DEL, UTF-8-encoded C1) and every byte
 * that is not valid UTF-8 written as \n, \t, \r, \\ or \xNN: safe to print
 * to a terminal.  Returns buf. */
char *vs_h5g_escape(const char *text, char *buf, size_t size);

/* HDF5's innermost message on the current error stack into buf (the
 * system's words when the driver quotes them), or "unknown HDF5 error".
 * Call right after the failing HDF5 call, before any other. */
void vs_h5g_error_text(char *buf, size_t size);

/* "float64", "int32", ... for a VS_H5G_* bit ("unknown" for others), and
 * "[5, 32, 3]" for an open dataset ("[]" for rank 0). */
const char *vs_h5g_type_name(unsigned type);
void vs_h5g_shape_text(const vs_h5g_dset *d, char *buf, size_t size);

/* Open a vsim result file through vs_h5g_open: as that, and a file
 * without /h5md and /parameters/vsim (hard links) is VS_ERR_FORMAT "not a
 * vsim result file"; a file that is not HDF5 "not an HDF5 file (not a vsim
 * result)". */
vs_status vs_h5g_open_result(const char *path, vs_h5g_file *f, vs_error *err);

/* vs_h5g_open_result, then every dataset of the file opened and checked
 * as numeric (any rank; layout, chunks, storage, declared size): for the
 * readers that go on through HDF5's API with f->file (frames, xdmf).  The
 * first dataset refused is the error, naming it. */
vs_status vs_h5g_open_checked(const char *path, vs_h5g_file *f, vs_error *err);

/* The paths of the datasets under each of roots (through vs_h5g_visit: an
 * external link is refused), sorted, into l (h5util.h's list: free it with
 * vs_h5_list_free, also after a failure).  At most max_objects objects. */
struct vs_h5_path_list;
vs_status vs_h5g_list(const vs_h5g_file *f, const char *const *roots, size_t n_roots,
                      size_t max_objects, struct vs_h5_path_list *l, vs_error *err);

/* Overflow-checked a * b: 0 and *out set, or -1 on overflow. */
int vs_h5g_mul(uint64_t a, uint64_t b, uint64_t *out);

/* For the writer (h5guard_probe.c): the file this thread has just written
 * and published at path (the temporary file dev/ino, renamed there) needs
 * no probe: remembered as probed when path is still that file (its size
 * and times as now), so the sidecar `vsim run` writes from it does not
 * fork a probe (20 ms of a tiny run's 45).  Nothing when path is another
 * file by now. */
void vs_h5g__trust(const char *path, dev_t dev, ino_t ino);

#endif
