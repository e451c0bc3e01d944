/* SPDX-License-Identifier: MIT */
/* obj.h (private): the Wavefront OBJ reader for `mesh` bodies and colliders,
 * beside its only users, the build and the memory estimate (lib/model/).
 *
 * Read: `v x y z` (a 4th value w, or 3 colour values r g b, are accepted and
 * ignored) and `f` faces of 3 or more corners, fanned into triangles
 * (c0 c1 c2), (c0 c2 c3), ...; a corner is `v`, `v/vt`, `v//vn` or `v/vt/vn`,
 * 1-based, or negative (-1 = the last vertex defined above the face).  A face
 * may only name vertices defined above it.  `vt`, `vn`, `o`, `g`, `s`,
 * `usemtl`, `mtllib`, every other statement and `#` comments are ignored.
 * Lines end in LF or CR LF.  No line continuation (`\`).
 *
 * Errors (vs_error with file:line:col, 1-based, col in bytes):
 *   VS_ERR_SCENE  a bad number, NaN or infinity, a corner index that is 0 or
 *                 out of range, a face with fewer than 3 corners, a vertex with
 *                 other than 3, 4 or 6 values, a zero-area triangle (unless
 *                 skip_degenerate), a file with no triangle;
 *   VS_ERR_LIMIT  over max_bytes, max_vertices or max_triangles;
 *   VS_ERR_IO     a missing file, a directory, a FIFO or other non-regular
 *                 file (opened with O_NONBLOCK and checked with fstat before
 *                 any read, so a FIFO never blocks);
 *   VS_ERR_NOMEM  allocation failed (sizes are checked against the limits
 *                 before anything is allocated).
 *
 * A triangle is degenerate when |ab x ac| <= 1e-12 |ab| |ac| (collinear or
 * repeated corners, to rounding; computed on the corners scaled by a power
 * of two, so the size of the coordinates does not matter).  Bodies reject
 * it, naming the face; a collider passes skip_degenerate = 1 and gets it
 * dropped and counted, and drop_duplicates = 1 to drop exact repeats of a
 * triangle (the same corners: they add nothing to a collider's surface but
 * work for every point near them). */
#ifndef VSIM_MODEL_OBJ_H
#define VSIM_MODEL_OBJ_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

/* The documented limits (docs/scene-format.md: "a file over the documented size limit"). */
#define VS_OBJ_MAX_BYTES (64LL * 1024 * 1024) /* 64 MiB */
#define VS_OBJ_MAX_VERTICES 4194304LL          /* 2^22 */
#define VS_OBJ_MAX_TRIANGLES 4194304LL         /* 2^22, after fanning */

typedef struct vs_obj_options {
  int skip_degenerate;   /* 0: a zero-area triangle is an error; 1: dropped and counted */
  int drop_duplicates;   /* 1: a triangle with the corners of an earlier one (the same
                            positions, in any order) is dropped and counted */
  int64_t max_bytes;     /* 0: VS_OBJ_MAX_BYTES; at most that */
  int64_t max_vertices;  /* 0: VS_OBJ_MAX_VERTICES; at most that */
  int64_t max_triangles; /* 0: VS_OBJ_MAX_TRIANGLES; at most that */
} vs_obj_options;

typedef struct vs_obj_mesh {
  int32_t n_vertices;
  double *vertices;   /* n_vertices x 3 */
  int32_t n_triangles;
  int32_t *triangles; /* n_triangles x 3, 0-based vertex numbers, in file order */
  int32_t *tri_line;  /* n_triangles: the OBJ line of each triangle's face */
  int32_t n_skipped;  /* degenerate triangles dropped (skip_degenerate) */
  int32_t skipped_line, skipped_column; /* the first one dropped (0 if none) */
  int32_t n_duplicates;  /* exact repeats dropped (drop_duplicates) */
  int32_t duplicate_line; /* the first one's line (0 if none) */
  /* what was read: its length and FNV-1a 64 of its bytes (--resume checks
   * that it reads the same file again, h5check.c) */
  int64_t bytes;
  uint64_t content_hash;
} vs_obj_mesh;

/* Read an OBJ file.  name is the file name used in messages (NULL: path).
 * opt may be NULL (defaults).  On failure *out is left empty. */
vs_status vs_obj_read(const char *path, const char *name, const vs_obj_options *opt,
                      vs_obj_mesh *out, vs_error *err);

/* The same from a buffer of len bytes (any bytes, NULs included). */
vs_status vs_obj_parse(const char *text, size_t len, const char *name,
                       const vs_obj_options *opt, vs_obj_mesh *out, vs_error *err);

/* Release the arrays and zero the record.  NULL is accepted. */
void vs_obj_free(vs_obj_mesh *m);

/* The counts vs_obj_read would give for a file it accepts, without reading
 * it into memory: one pass through a fixed 64 KiB buffer counting `v`
 * statements and the triangles of `f` statements after fanning (corners -
 * 2), by the same tokens as the reader (nothing else is checked), up to
 * VS_OBJ_MAX_BYTES + 1 bytes; *bytes is the file's size.  -1 when the
 * file cannot be opened or is not a regular file (vs_obj_read says why). */
int vs_obj_count_file(const char *path, int64_t *nv, int64_t *nt, int64_t *bytes);

/* Scale, then rotate (degrees, about x, then y, then z, fixed axes), then
 * translate: v' = Rz Ry Rx (S v) + translate, in place on n points. */
typedef struct vs_obj_transform {
  double scale[3];     /* per axis (a scalar scale: the same three) */
  double rotate[3];    /* degrees */
  double translate[3];
} vs_obj_transform;

void vs_obj_transform_apply(const vs_obj_transform *t, double *v, int32_t n);

#endif
