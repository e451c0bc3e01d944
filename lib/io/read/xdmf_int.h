/* SPDX-License-Identifier: MIT */
/* xdmf_int.h (private to lib/io/read/xdmf*.c): the sidecar being built,
 * shared by xdmf.c (the frames, the inline items, the text) and
 * xdmf_colliders.c (the colliders' grids). */
#ifndef VSIM_IO_XDMF_INT_H
#define VSIM_IO_XDMF_INT_H

#include <hdf5.h>
#include <stdint.h>

#include "util/text.h"
#include "vsim/kind.h"

typedef struct xd {
  hid_t f;
  const char *h5;   /* the .h5 as the .xmf names it */
  int64_t F, N;     /* frames, particles */
  int pos_f32, vel, vel_f32;
  int64_t T, M;     /* triangles, constraints */
  int64_t links[VS_KIND_COUNT]; /* rows of each kind's /connectivity/<kind> (0: none) */
  int alive;        /* /connectivity/alive/value [F, M] */
  int radius;
  int64_t n_free;
  int64_t B;        /* rigid bodies */
  int rpos_f32, rq_f32, rvel, rvel_f32, rw, rw_f32;
  int64_t S, RT;    /* rigid surface vertices and triangles (0: a file without them) */
  int surf_f32;
  int nomem;        /* an allocation failed: the text is incomplete */
  char why[400];    /* the first dataset found not of its documented shape */
  vs_sbuf b;
} xd;

/* Axis 0 of the dataset at path when it has rank `rank` and its other axes
 * are inner[0 .. rank-2] (VS_RD_ANY: any; readall.h), with axis 1 in *d1
 * and whether it is float32 in *f32 when asked; -1 when absent, -2 when it
 * is there in another shape (x->why says which, the first time). */
__attribute__((visibility("hidden"))) int64_t xd_dims_of(xd *x, const char *path, int rank,
                                                         const hsize_t *inner, int64_t *d1,
                                                         int *f32);
/* "DIMS" NumberType Precision of a dataset of the file, as a DataItem. */
__attribute__((visibility("hidden"))) void xd_hdf_item(xd *x, const char *dims, const char *type,
                                                       int prec, const char *path);
/* Grid "colliders" (xdmf_colliders.c). */
__attribute__((visibility("hidden"))) void xd_colliders(xd *x);

#endif
