/* SPDX-License-Identifier: MIT */
/* body_rope.c: a straight chain of segments + 1 particles from `from` to `to`,
 * stretch links i -> i+1 and optional bend links i -> i+2. */
#include "model/build.h"

vs_status vs_rope_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                        vs_error *err) {
  int64_t n = b->segments + 1;
  out->particles = n;
  out->links = b->segments + (b->bend.enabled && n > 2 ? n - 2 : 0);
  return VS_OK;
}

vs_status vs_rope_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                           vs_error *err) {
  int64_t n = b->segments + 1;
  double each = b->mass / (double)n;
  int32_t first = bld->np;
  for (int64_t i = 0; i < n; i++) {
    double t = (double)i / (double)b->segments, x[3];
    for (int k = 0; k < 3; k++) x[k] = b->from[k] + t * (b->to[k] - b->from[k]);
    vs_builder_particle(bld, x, NULL, each, b->radius, body);
  }
  switch (b->pin_mode) {
    case VS_PIN_FIRST: vs_builder_pin(bld, first); break;
    case VS_PIN_LAST: vs_builder_pin(bld, first + (int32_t)(n - 1)); break;
    case VS_PIN_BOTH:
      vs_builder_pin(bld, first);
      vs_builder_pin(bld, first + (int32_t)(n - 1));
      break;
    case VS_PIN_LIST:
      for (size_t k = 0; k < b->n_pins; k++) {
        int64_t i = b->pins[k];
        if (i < 0 || i >= n) return vs_pin_index_error(bld, b, i, n, err);
        vs_builder_pin(bld, first + (int32_t)i);
      }
      break;
    case VS_PIN_NONE: break;
    case VS_PIN_TOP_EDGE: /* cloth forms: the loader rejects them on a rope */
    case VS_PIN_TOP_CORNERS:
      return vs_error_set(err, VS_ERR_SCENE, bld->file, b->pin_loc.line, b->pin_loc.column,
                          "bodies.%s.pin: not a rope pin form", b->name);
  }
  for (int64_t i = 0; i + 1 < n; i++)
    vs_builder_link(bld, first + (int32_t)i, first + (int32_t)i + 1, &b->stretch, VS_ROLE_STRETCH,
                    b->tear, VS_SIDE_EQUAL, -1.0);
  if (b->bend.enabled)
    for (int64_t i = 0; i + 2 < n; i++)
      vs_builder_link(bld, first + (int32_t)i, first + (int32_t)i + 2, &b->bend, VS_ROLE_BEND,
                      b->tear, VS_SIDE_EQUAL, -1.0);
  return VS_OK;
}
