/* SPDX-License-Identifier: MIT */
/* alloc.c: the allocator hook (see vsim/alloc.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static void *libc_malloc(size_t size, void *ctx) { return malloc(size ? size : 1); }
static void *libc_realloc(void *ptr, size_t size, void *ctx) { return realloc(ptr, size ? size : 1); }
static void libc_free(void *ptr, void *ctx) { free(ptr); }

static vs_allocator current = {libc_malloc, libc_realloc, libc_free, NULL};

void vs_set_allocator(const vs_allocator *a) {
  if (a && a->malloc_fn && a->realloc_fn && a->free_fn) current = *a;
  else current = (vs_allocator){libc_malloc, libc_realloc, libc_free, NULL};
}

void *vs_malloc(size_t size) { return current.malloc_fn(size, current.ctx); }

/* With the C library's allocator, calloc itself: a large block comes from
 * fresh zero pages that cost nothing until touched (the rigid solver's
 * contact buffers are sized for 24 contacts a body and mostly stay
 * untouched); a user's allocator gets malloc and memset. */
void *vs_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  if (current.malloc_fn == libc_malloc) return n && size ? calloc(n, size) : calloc(1, 1);
  void *p = current.malloc_fn(n * size, current.ctx);
  if (p) memset(p, 0, n * size);
  return p;
}

void *vs_realloc(void *ptr, size_t size) { return current.realloc_fn(ptr, size, current.ctx); }

void vs_free(void *ptr) {
  if (ptr) current.free_fn(ptr, current.ctx);
}

void *vs_calloc_aligned(size_t n, size_t size) {
  if (current.malloc_fn != libc_malloc) return vs_calloc(n, size);
  if (size && n > SIZE_MAX / size) return NULL;
  void *p = NULL;
  const size_t bytes = n * size;
  if (posix_memalign(&p, 64, bytes > 0 ? bytes : 1) != 0) return NULL;
  memset(p, 0, bytes);
  return p;
}

char *vs_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = vs_malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

void vs_free_buffer(void *p) { vs_free(p); }
