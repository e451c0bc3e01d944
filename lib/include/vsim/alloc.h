/* SPDX-License-Identifier: MIT */
/* vsim/alloc.h: the allocator hook.
 *
 * Every allocation the library makes itself goes through these functions, so
 * that a caller can count, limit or fail them (the tests fail each allocation
 * in turn and check that every one returns VS_ERR_NOMEM without leaking).
 * libyaml and HDF5 allocate through their own malloc and are not hooked:
 * their failures still come back as errors (VS_ERR_NOMEM from the YAML
 * parser, VS_ERR_IO from HDF5), but they cannot be injected or counted. */
#ifndef VSIM_ALLOC_H
#define VSIM_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vs_allocator {
  void *(*malloc_fn)(size_t size, void *ctx);            /* like malloc */
  void *(*realloc_fn)(void *ptr, size_t size, void *ctx); /* like realloc */
  void (*free_fn)(void *ptr, void *ctx);                 /* like free; ptr may be NULL */
  void *ctx;
} vs_allocator;

/* Install an allocator (NULL restores the C library's).  Not thread-safe:
 * call it before any other vsim function, and never while one runs. */
void vs_set_allocator(const vs_allocator *a);

/* Free a buffer the library allocated and handed over: the text from
 * vs_scene_to_yaml, vs_h5_describe and vs_h5_read_parameter.  They come
 * from the installed allocator, so they must go back to it; with the C
 * library's allocator (the default) free() would do, but this is always
 * right.  NULL is accepted. */
void vs_free_buffer(void *p);

#ifdef __cplusplus
}
#endif
#endif
