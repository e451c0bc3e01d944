/* SPDX-License-Identifier: MIT */
/* readall.h (private to lib/io/read/): the one way the readers of result
 * files (frames.c, frames_world.c, xdmf.c, xdmf_colliders.c) read a whole
 * dataset into memory.  The file passed the validating reader's checks
 * (vs_h5g_open_checked) but its shapes are the file's, not the reader's:
 * a buffer sized from one axis and filled by a read of the whole dataset
 * is written past its end when another axis is not what the reader
 * assumed (a [1, 4096] "triangle list" read into room for one row of 3).
 * So every axis is compared with what the caller allocated before a byte
 * is read, and the size against the buffer's.
 *
 * Memory: a dataset read whole may not declare more than
 * VS_RD_WHOLE_FLOOR bytes and more than VS_RD_WHOLE_PER_BYTE times the
 * file's own size.  Compression lets a small file declare any size (2 MB of
 * deflated zeros are 2 GB); vsim's own files hold at least the positions
 * beside what is read whole, so they stay far below that bound. */
#ifndef VSIM_IO_READALL_H
#define VSIM_IO_READALL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#define RD_PRIVATE __attribute__((visibility("hidden")))

/* "any length" along an axis of vs_rd_shape's inner */
#define VS_RD_ANY ((hsize_t)-1)
#define VS_RD_MAX_RANK 3
#define VS_RD_WHOLE_FLOOR ((uint64_t)16 << 20)
#define VS_RD_WHOLE_PER_BYTE 16u

/* The shape of the dataset at path.  1 and dims[0 .. rank) (and *f32,
 * when asked, whether it is stored as float32) when it is an integer or
 * float dataset of rank `rank` (1 to VS_RD_MAX_RANK) whose axes 1 .. rank-1
 * are inner[0 .. rank-2] (VS_RD_ANY: any length; inner may be NULL for
 * rank 1); 0 when there is no such path; -1 when it is there but not that
 * (why: "/connectivity/triangles is [1, 4096], expected [n, 3]"). */
RD_PRIVATE int vs_rd_shape(hid_t f, const char *path, int rank, const hsize_t *inner,
                           hsize_t *dims, int *f32, char *why, size_t why_size);

/* Read the whole dataset at path as mtype into buf (buf_bytes), after
 * checking that it has rank `rank` and exactly dims[k] along every axis k,
 * that dims fill at most buf_bytes of mtype, and that it declares no more
 * than a whole read may (above).  0, or -1 with why filled ("... is
 * [1, 4096], expected [1, 3]", HDF5's reason for a failed read). */
RD_PRIVATE int vs_rd_read_all(hid_t f, const char *path, int rank, const hsize_t *dims,
                              hid_t mtype, void *buf, size_t buf_bytes, char *why,
                              size_t why_size);

/* 0 when a dataset of `bytes` declared bytes may be read whole from file
 * f (above), else -1 with why filled naming path. */
RD_PRIVATE int vs_rd_whole_ok(hid_t f, hid_t d, const char *path, uint64_t bytes, char *why,
                              size_t why_size);

#endif
