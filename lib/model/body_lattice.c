/* SPDX-License-Identifier: MIT */
/* body_lattice.c: a soft block, nu x nv x nw particles with axis links
 * (stretch) and face-diagonal links (shear).  Particle (i, j, k) has body
 * index i + nu * (j + nv * k).  `top-edge` pins the layer j = nv - 1. */
#include "model/build.h"

static int64_t axis_links(int64_t a, int64_t b, int64_t c) {
  return (a - 1) * b * c + a * (b - 1) * c + a * b * (c - 1);
}
static int64_t face_links(int64_t a, int64_t b, int64_t c) {
  return 2 * ((a - 1) * (b - 1) * c + (a - 1) * b * (c - 1) + a * (b - 1) * (c - 1));
}

vs_status vs_lattice_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                           vs_error *err) {
  int64_t nu = b->resolution[0], nv = b->resolution[1], nw = b->resolution[2];
  out->particles = nu * nv * nw;
  out->links = (b->stretch.enabled ? axis_links(nu, nv, nw) : 0) +
               (b->shear.enabled ? face_links(nu, nv, nw) : 0);
  return VS_OK;
}

vs_status vs_lattice_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                              vs_error *err) {
  const int32_t n[3] = {(int32_t)b->resolution[0], (int32_t)b->resolution[1],
                        (int32_t)b->resolution[2]};
  const double each = b->mass / ((double)n[0] * n[1] * n[2]);
  const int32_t first = bld->np;
#define P(i, j, k) (first + (i) + n[0] * ((j) + n[1] * (k)))
  vs_body_info *bi = &bld->m->bodies[body];
  bi->nu = n[0], bi->nv = n[1], bi->nw = n[2];
  for (int32_t k = 0; k < n[2]; k++)
    for (int32_t j = 0; j < n[1]; j++)
      for (int32_t i = 0; i < n[0]; i++) {
        double x[3] = {b->origin[0] + b->size[0] * i / (n[0] - 1),
                       b->origin[1] + b->size[1] * j / (n[1] - 1),
                       b->origin[2] + b->size[2] * k / (n[2] - 1)};
        vs_builder_particle(bld, x, NULL, each, b->radius, body);
      }
  if (b->pin_mode == VS_PIN_TOP_EDGE) {
    for (int32_t k = 0; k < n[2]; k++)
      for (int32_t i = 0; i < n[0]; i++) vs_builder_pin(bld, P(i, n[1] - 1, k));
  } else if (b->pin_mode == VS_PIN_LIST) {
    for (size_t p = 0; p < b->n_pins; p++) {
      const int64_t *c = &b->pins[3 * p];
      for (int a = 0; a < 3; a++)
        if (c[a] < 0 || c[a] >= n[a]) return vs_pin_index_error(bld, b, c[a], n[a], err);
      vs_builder_pin(bld, P((int32_t)c[0], (int32_t)c[1], (int32_t)c[2]));
    }
  }
  if (b->stretch.enabled)
    for (int32_t k = 0; k < n[2]; k++)
      for (int32_t j = 0; j < n[1]; j++)
        for (int32_t i = 0; i < n[0]; i++) {
          if (i + 1 < n[0]) vs_builder_link(bld, P(i, j, k), P(i + 1, j, k), &b->stretch, VS_ROLE_STRETCH, b->tear, VS_SIDE_EQUAL, -1.0);
          if (j + 1 < n[1]) vs_builder_link(bld, P(i, j, k), P(i, j + 1, k), &b->stretch, VS_ROLE_STRETCH, b->tear, VS_SIDE_EQUAL, -1.0);
          if (k + 1 < n[2]) vs_builder_link(bld, P(i, j, k), P(i, j, k + 1), &b->stretch, VS_ROLE_STRETCH, b->tear, VS_SIDE_EQUAL, -1.0);
        }
  if (b->shear.enabled)
    for (int32_t k = 0; k < n[2]; k++)
      for (int32_t j = 0; j < n[1]; j++)
        for (int32_t i = 0; i < n[0]; i++) {
          if (i + 1 < n[0] && j + 1 < n[1]) { /* xy face */
            vs_builder_link(bld, P(i, j, k), P(i + 1, j + 1, k), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
            vs_builder_link(bld, P(i + 1, j, k), P(i, j + 1, k), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
          }
          if (i + 1 < n[0] && k + 1 < n[2]) { /* xz face */
            vs_builder_link(bld, P(i, j, k), P(i + 1, j, k + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
            vs_builder_link(bld, P(i + 1, j, k), P(i, j, k + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
          }
          if (j + 1 < n[1] && k + 1 < n[2]) { /* yz face */
            vs_builder_link(bld, P(i, j, k), P(i, j + 1, k + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
            vs_builder_link(bld, P(i, j + 1, k), P(i, j, k + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
          }
        }
#undef P
  return VS_OK;
}
