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

#endif
