/* SPDX-License-Identifier: MIT */
/* h5guard_int.h (private to lib/io/guard/): what the parts of the guard
 * share.  Nothing else in lib/ includes it; the tests and the HDF5 fuzzer
 * use its test hooks. */
#ifndef VSIM_H5GUARD_INT_H
#define VSIM_H5GUARD_INT_H

#include <sys/stat.h>

#include "io/guard/h5guard.h"

/* The structure probe's child (h5guard_probe.c): wall-clock seconds (half
 * of them CPU seconds) and address space beyond the process's own. */
#define VS_H5G_PROBE_SECONDS 60u
#define VS_H5G_PROBE_MEMORY ((unsigned long long)2 << 30)

#define OH_MAX_BLOCKS 64

typedef struct vs_h5g__oh_scan {
  const vs_h5g_file *f;
  uint64_t blk_addr[OH_MAX_BLOCKS], blk_len[OH_MAX_BLOCKS];
  int n_blocks;
  int bad;            /* 1: corrupt header, 2: bad chunked layout */
  unsigned ndims;     /* of a bad layout */
  uint64_t zero_axis; /* of a bad layout (UINT64_MAX: its dimensionality) */
  unsigned chunk_nd;  /* dimensionality of the chunked layout, 0 when none */
  int space_rank;     /* rank in the dataspace message, -1 when none seen */
  int check_vlen;     /* also check the global heap objects of vlen attributes */
  int bad_heap;       /* one of them is corrupt (then bad = 5) */
} vs_h5g__oh_scan;

/* vs_error_set with HDF5's innermost explanation after what; reads the
 * error stack first. */
vs_status vs_h5g__fail(vs_error *err, vs_status code, const char *file, const char *what);
/* The VS_H5G_* bit of a standard numeric type, else 0; name says what it is. */
unsigned vs_h5g__classify(hid_t t, char *name, size_t size);
/* Type and address of the object loc/name, without opening it. */
int vs_h5g__obj_info(const vs_h5g_file *f, hid_t loc, const char *name, H5O_type_t *type,
                     uint64_t *addr);
/* Read the object header at addr (h5guard_oh.c): 0 when readable with no
 * bad chunked layout, else s->bad (1 corrupt, 2 bad layout: s->ndims,
 * s->zero_axis (UINT64_MAX: the dimensionality is wrong), 3 a layout
 * dimensionality that is not the dataspace's rank + 1, 4 out of memory,
 * 5 with check_vlen: a variable-length attribute whose global heap
 * collection or object is corrupt: HDF5 1.10.8 memcpy's past its buffer or
 * loops loading such a heap inside H5Aread). */
int vs_h5g__oh_check(vs_h5g__oh_scan *s, uint64_t addr);

/* H5Fopen of h5name and the rest of vs_h5g_open after the descriptor
 * checks (f->fd, f->size, f->name set; st: the file checked).  On failure
 * what was opened stays in f. */
vs_status vs_h5g__open_hdf5(vs_h5g_file *f, const char *h5name, const struct stat *st,
                            vs_error *err);
/* HDF5 walks the whole file in a child process (h5guard_probe.c): VS_OK,
 * or VS_ERR_FORMAT "corrupt file: HDF5 failed reading its structure
 * (signal N)" when the child crashed, timed out or failed. */
vs_status vs_h5g__probe(vs_h5g_file *f, const char *h5name, const struct stat *st,
                        vs_error *err);
/* Tests only: the next probes' child crashes (1), loops (2), allocates
 * without bound (3), or does so with its address space watched by the
 * timer that stands in for RLIMIT_AS where that does not take, as under
 * qemu-user (4), before walking; 0 walks; -1: no probe at all (for
 * test_alloc, which fails the parent's allocations one by one: the probe
 * allocates nothing in the parent, and a fork per failure under the
 * sanitizers costs minutes).  seconds: its time limit
 * (0: VS_H5G_PROBE_SECONDS).  forget: forget the files already probed. */
void vs_h5g__probe_test(int fault, unsigned seconds, int forget);

#endif
