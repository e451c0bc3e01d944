/* vsim/alloc.h: the allocator hook.
 *
 * Every allocation the library makes itself goes through these functions, so
 * that a caller can count, limit or fail them (the tests fail each allocation
 * in turn and check that every one returns VS_ERR_NOMEM without leaking).
 * libyaml and HDF5 allocate through their own malloc and are not hooked. */
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

#ifdef __cplusplus
}
#endif
#endif
