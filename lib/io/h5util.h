/* SPDX-License-Identifier: MIT */
/* h5util.h: private HDF5 helpers shared by the writer (h5write.c,
 * h5objects.c, h5resume.c) and the reader side (compare.c).
 * Not part of the public API. */
#ifndef VSIM_H5UTIL_H
#define VSIM_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

/* Turn off HDF5's automatic error printing: the library never prints.  The
 * error stack is still recorded, so vs_h5_error_text() can explain a failure.
 * Also turns off HDF5's clean-up at exit (see h5util.c).  Call first in
 * every public entry point that touches HDF5. */
void vs_h5_quiet(void);

/* A file access property list for every file vsim opens (the caller
 * closes it; H5P_DEFAULT when it cannot be made). */
hid_t vs_h5_file_access(void);

/* The most specific message on HDF5's current error stack (e.g. "unable to
 * open file"), or "unknown HDF5 error".  Call right after the failing call:
 * the next API call clears the stack. */
void vs_h5_error_text(char *buf, size_t size);

/* Open a vsim result file read-only: unreadable -> VS_ERR_IO, not HDF5 or
 * without /h5md and /parameters/vsim -> VS_ERR_FORMAT, both naming path. */
vs_status vs_h5_open_result(const char *path, hid_t *out, vs_error *err);

/* 1 when every component of the absolute path exists as a link (and the
 * last one resolves to an object), 0 otherwise (also for paths of 1024
 * bytes or more, which vsim never writes).  Allocates nothing. */
int vs_h5_path_exists(hid_t file, const char *path);

/* Attribute `name` on object `obj` (a path relative to loc) as a string
 * from vs_malloc, fixed-length or variable-length; NULL when absent or
 * unreadable, and then *nomem (when given) says whether the reason was a
 * failed allocation, so that callers do not call a file foreign for it. */
char *vs_h5_attr_string(hid_t loc, const char *obj, const char *name, int *nomem);

/* Numeric attribute as int64 / double; returns 0 on success, -1 when absent
 * or not a numeric scalar. */
int vs_h5_attr_int64(hid_t loc, const char *obj, const char *name, int64_t *out);
int vs_h5_attr_double(hid_t loc, const char *obj, const char *name, double *out);

/* "float64", "float32", "int32", "int64", "uint8", "string", ... for a
 * dataset's file type.  Writes into buf and returns it. */
const char *vs_h5_type_name(hid_t type, char *buf, size_t size);

/* "[5, 32, 3]" for a dataspace (scalar: "[]"). */
const char *vs_h5_shape_text(hid_t space, char *buf, size_t size);

/* The paths of the datasets under each of roots (soft and external links
 * skipped), sorted; on failure the error names `name` (the file).  Free
 * the list with vs_h5_list_free, also after a failure. */
typedef struct vs_h5_path_list {
  char **v;
  size_t n, cap;
  int oom;
} vs_h5_path_list;
vs_status vs_h5_list_datasets(hid_t f, const char *name, const char *const *roots,
                              size_t n_roots, vs_h5_path_list *l, vs_error *err);
void vs_h5_list_free(vs_h5_path_list *l);

/* An open dataset with its type, space, shape and type name. */
typedef struct vs_h5_ds {
  hid_t d, type, space;
  int rank;
  hsize_t dims[H5S_MAX_RANK];
  H5T_class_t cls;
  char shape[128], tname[32];
} vs_h5_ds;
/* 0, or -1 (close it all the same). */
int vs_h5_ds_open(hid_t f, const char *path, vs_h5_ds *x);
void vs_h5_ds_close(vs_h5_ds *x);
/* Read the hyperslab (start, count) of x as mtype into buf; 0 or -1. */
int vs_h5_read_slab(const vs_h5_ds *x, const hsize_t *start, const hsize_t *count, hid_t mtype,
                    void *buf);

#endif
