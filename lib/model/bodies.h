/* bodies.h: the body generators, one file each (body_<kind>.c). */
#ifndef VSIM_BODIES_H
#define VSIM_BODIES_H

#include "solve/internal.h"

#define VS_BODY_GENERATOR(kind)                                                        \
  VS_PRIVATE vs_status vs_##kind##_count(const vs_body_desc *b, vs_body_counts *out,   \
                                         const char *file, vs_error *err);             \
  VS_PRIVATE vs_status vs_##kind##_generate(vs_builder *bld, const vs_body_desc *b,    \
                                            int32_t body, vs_error *err);

VS_BODY_GENERATOR(particles)
VS_BODY_GENERATOR(rope)
VS_BODY_GENERATOR(cloth)
VS_BODY_GENERATOR(tetra)
VS_BODY_GENERATOR(lattice)
VS_BODY_GENERATOR(ragdoll)

VS_PRIVATE vs_status vs_pin_index_error(vs_builder *bld, const vs_body_desc *b,
                                        int64_t value, int64_t limit, vs_error *err);

#endif
