/* SPDX-License-Identifier: MIT */
/* heap.h: a binary min-heap of int32 ids in a caller's array (no
 * allocation), for the deterministic list schedules of
 * lib/model/gsorder.c (Gauss-Seidel order) and lib/solve/rigid/rigid_order.c (the
 * rigid sweep's order): the smallest ready id comes out first. */
#ifndef VSIM_UTIL_HEAP_H
#define VSIM_UTIL_HEAP_H

#include <stdint.h>

/* Push v onto the heap h of *n ids (h has room for one more). */
static inline void vs_heap_push(int32_t *h, int32_t *n, int32_t v) {
  int32_t i = (*n)++;
  while (i > 0) {
    int32_t parent = (i - 1) / 2;
    if (h[parent] <= v) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = v;
}

/* Remove and return the smallest id (*n > 0). */
static inline int32_t vs_heap_pop(int32_t *h, int32_t *n) {
  const int32_t top = h[0], v = h[--*n];
  int32_t i = 0;
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1] < h[c]) c++;
    if (v <= h[c]) break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0) h[i] = v;
  return top;
}

#endif
