/* SPDX-License-Identifier: MIT */
/* heap.c: the program's heap on transparent huge pages (docs/performance.md,
 * "Start-up").
 *
 * A short run touches a few MiB of heap for the first time (HDF5's
 * metadata cache and free lists, the model, the writer's buffers), and on
 * a virtual machine each first touch of a 4 KiB page is a page fault of
 * tens of microseconds: about 300 of the ~560 faults of a tiny run.  The
 * kernel backs a region marked MADV_HUGEPAGE with 2 MiB pages where it can
 * (transparent_hugepage "madvise", the usual default): one fault per 2 MiB.
 * glibc does this itself under GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which
 * the program cannot set for itself once started, so `vsim run` does the
 * same by hand, once, before anything else (not the commands that fork the
 * validating reader's probe, nor --resume: a child's first touches of a
 * huge-page heap fill 2 MiB pages, which made `vsim xdmf` slower):
 *  - one arena (the writer's thread allocates from the same heap; no
 *    allocation happens inside a step, so there is nothing to contend for);
 *  - allocations up to 1 MiB come from the heap (HDF5's 512 KiB cache
 *    table among them), which grows 64 MiB at a time (address space: only
 *    the 2 MiB pages touched become memory) and is not trimmed below
 *    128 MiB.  Only the first growth is marked MADV_HUGEPAGE (a later one
 *    is a new mapping without the mark), so it must hold the whole heap
 *    of a usual run: with 8 MiB, a 128x128 cloth's model and HDF5's
 *    tables landed past it, on 4 KiB pages (~400 faults in vs_h5_open);
 *  - the heap's top is moved to a 2 MiB boundary (the gap is an allocation
 *    never touched: address space, not memory) and what lies above it is
 *    marked MADV_HUGEPAGE.
 * Nothing here changes what the program computes; when a step fails (no
 * huge pages to be had, another libc) the heap is as it would have been.
 * Larger allocations (a big model's arrays) are mmap()ed as before. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

/* the gap below the 2 MiB boundary: kept reachable for the process's life
 * (leak checkers see a pointer to it, as they should: it is never freed) */
static void *volatile heap_hole; /* volatile: the store is kept though nothing reads it */

void cli_heap_setup(void) {
#if defined(__SANITIZE_ADDRESS__)
  /* the sanitizer's allocator is not glibc's */
#elif defined(__GLIBC__) && defined(MADV_HUGEPAGE) && defined(M_ARENA_MAX)
  const uintptr_t huge = (uintptr_t)2 << 20, page = 4096;
  const int pad = 64 << 20;
  if (!mallopt(M_ARENA_MAX, 1) || !mallopt(M_MMAP_THRESHOLD, 4 << 20) ||
      !mallopt(M_TOP_PAD, pad) || !mallopt(M_TRIM_THRESHOLD, 2 * pad))
    return;
  /* the top chunk runs from its start to the break: keepcost is its size */
  struct mallinfo2 mi = mallinfo2();
  uintptr_t brk = (uintptr_t)sbrk(0);
  if (brk == (uintptr_t)-1 || mi.keepcost > brk) return;
  uintptr_t top = brk - mi.keepcost;
  /* a gap that ends half a page below a 2 MiB boundary: the top chunk's
   * header lands in that page, the boundary's 2 MiB are untouched */
  uintptr_t boundary = (top + page + huge - 1) & ~(huge - 1);
  size_t gap = boundary - page / 2 - top - 16;
  void *hole = heap_hole = malloc(gap); /* its pages are never touched */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  uintptr_t end = (uintptr_t)sbrk(0);
  if (!hole || end == (uintptr_t)-1 || end <= boundary + huge) return;
  madvise((void *)boundary, end - boundary, MADV_HUGEPAGE);
#endif
}
