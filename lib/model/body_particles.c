/* SPDX-License-Identifier: MIT */
/* body_particles.c: free particles, each with its own position, velocity, mass. */
#include "model/build.h"

vs_status vs_particles_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                             vs_error *err) {
  out->particles = (int64_t)b->count;
  return VS_OK;
}

vs_status vs_particles_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                                vs_error *err) {
  int32_t first = bld->np;
  for (size_t i = 0; i < b->count; i++) {
    double mass = b->masses ? b->masses[i] : b->mass;
    vs_builder_particle(bld, &b->positions[3 * i], b->velocities ? &b->velocities[3 * i] : NULL,
                        mass, b->radius, body);
  }
  if (b->pin_mode == VS_PIN_LIST)
    for (size_t k = 0; k < b->n_pins; k++) {
      int64_t i = b->pins[k];
      if (i < 0 || i >= (int64_t)b->count) return vs_pin_index_error(bld, b, i, (int64_t)b->count, err);
      vs_builder_pin(bld, first + (int32_t)i);
    }
  return VS_OK;
}
