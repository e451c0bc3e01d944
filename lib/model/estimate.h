/* SPDX-License-Identifier: MIT */
/* estimate.h (private): the memory check vs_model_build makes after
 * counting the scene and before allocating anything sized by it. */
#ifndef VSIM_MODEL_ESTIMATE_H
#define VSIM_MODEL_ESTIMATE_H

#include <stddef.h>

#include "util/private.h"
#include "vsim/memory.h"

/* VS_ERR_LIMIT naming the scene's largest body when vs_estimate_memory is
 * over vs_max_memory(). */
VS_PRIVATE vs_status vs_model_check_memory(const vs_scene *s, const char *file, vs_error *err);

/* "7.6 GB", "512 MB", "12 KB": bytes in the units --max-memory takes, for
 * that message. */
VS_PRIVATE void vs_memory_text(uint64_t bytes, char *buf, size_t size);

/* How many copies of a state of `bytes` bytes the result file's writer
 * keeps (io/write/h5write.c), counted here by the estimate: three while they
 * take at most 16 MiB together, else two; and a state of at most 1 MiB
 * gets more, as many as fit in 2 MiB beside the three (up to
 * VS_WRITER_COPIES_MAX in all), so that the writer's thread is woken once
 * for several frames: handing a frame to a sleeping thread costs the
 * stepping thread a wake-up, about 32 us on a virtual machine, as much as
 * a step of a small cloth (docs/performance.md, "Writing"). */
#define VS_WRITER_COPIES_MAX 32
static inline int vs_writer_copies(size_t bytes) {
  const size_t b = bytes > 0 ? bytes : 1;
  if (b > ((size_t)16 << 20) / 3) return 2;
  const size_t more = ((size_t)2 << 20) / b;
  if (more < 2) return 3;
  return more >= VS_WRITER_COPIES_MAX - 3 ? VS_WRITER_COPIES_MAX : 3 + (int)more;
}

#endif
