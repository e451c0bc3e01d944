/* SPDX-License-Identifier: MIT */
/* alloc.h (private): the library's allocation functions, routed through the
 * allocator hook of vsim/alloc.h.  Use these, never malloc/calloc/free. */
#ifndef VSIM_PRIVATE_ALLOC_H
#define VSIM_PRIVATE_ALLOC_H

#include <stddef.h>

#include "vsim/alloc.h"

__attribute__((visibility("hidden"))) void *vs_malloc(size_t size);
/* Zeroed n * size bytes; NULL when the product overflows. */
__attribute__((visibility("hidden"))) void *vs_calloc(size_t n, size_t size);
__attribute__((visibility("hidden"))) void *vs_realloc(void *ptr, size_t size);
__attribute__((visibility("hidden"))) void vs_free(void *ptr);
__attribute__((visibility("hidden"))) char *vs_strdup(const char *s);
/* Zeroed n * size bytes starting on a 64-byte boundary (a cache line, an
 * AVX-512 vector) with the C library's allocator (posix_memalign), freed with
 * vs_free like any block; a user's allocator gets vs_calloc, unaligned.  The
 * solver's hot arrays use it: where malloc places a block (16 bytes past a
 * page for a fresh mapping, anywhere mod 64 on the heap) otherwise decides,
 * run to run, whether every vector load of two particles splits a cache line. */
__attribute__((visibility("hidden"))) void *vs_calloc_aligned(size_t n, size_t size);

#endif
