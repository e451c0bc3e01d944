/* SPDX-License-Identifier: MIT */
/* body_cloth.c: a rectangular grid of nu x nv particles in a coordinate plane.
 * Particle (i, j) has body index j * nu + i, i along u (docs/scene-format.md, cloth).  Links in
 * build order (docs/physics.md, relaxation): stretch row by row (for each particle: its +u then
 * its +v neighbour), then shear (both diagonals of each cell), then bend (the
 * neighbour's neighbour along u, then along v). */
#include "model/build.h"

static int64_t stretch_count(int64_t nu, int64_t nv) { return (nu - 1) * nv + nu * (nv - 1); }
static int64_t shear_count(int64_t nu, int64_t nv) { return 2 * (nu - 1) * (nv - 1); }
static int64_t bend_count(int64_t nu, int64_t nv) {
  return (nu > 2 ? (nu - 2) * nv : 0) + (nv > 2 ? nu * (nv - 2) : 0);
}

vs_status vs_cloth_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                         vs_error *err) {
  int64_t nu = b->resolution[0], nv = b->resolution[1];
  out->particles = nu * nv;
  out->links = (b->stretch.enabled ? stretch_count(nu, nv) : 0) +
               (b->shear.enabled ? shear_count(nu, nv) : 0) +
               (b->bend.enabled ? bend_count(nu, nv) : 0);
  out->triangles = 2 * (nu - 1) * (nv - 1);
  return VS_OK;
}

vs_status vs_cloth_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                            vs_error *err) {
  const int32_t nu = (int32_t)b->resolution[0], nv = (int32_t)b->resolution[1];
  const int axes[3][2] = {{0, 1}, {0, 2}, {1, 2}}; /* xy, xz, yz */
  const int au = axes[b->plane][0], av = axes[b->plane][1];
  const double du = b->size[0] / (nu - 1), dv = b->size[1] / (nv - 1);
  const double each = b->mass / ((double)nu * nv);
  const int32_t first = bld->np;
#define P(i, j) (first + (j) * nu + (i))

  bld->m->bodies[body].nu = nu;
  bld->m->bodies[body].nv = nv;
  for (int32_t j = 0; j < nv; j++)
    for (int32_t i = 0; i < nu; i++) {
      double x[3] = {b->origin[0], b->origin[1], b->origin[2]};
      x[au] += i * du;
      x[av] += j * dv;
      vs_builder_particle(bld, x, NULL, each, b->radius, body);
    }

  switch (b->pin_mode) {
    case VS_PIN_TOP_EDGE:
      for (int32_t i = 0; i < nu; i++) vs_builder_pin(bld, P(i, nv - 1));
      break;
    case VS_PIN_TOP_CORNERS:
      vs_builder_pin(bld, P(0, nv - 1));
      vs_builder_pin(bld, P(nu - 1, nv - 1));
      break;
    case VS_PIN_LIST:
      for (size_t k = 0; k < b->n_pins; k++) {
        int64_t i = b->pins[2 * k], j = b->pins[2 * k + 1];
        if (i < 0 || i >= nu) return vs_pin_index_error(bld, b, i, nu, err);
        if (j < 0 || j >= nv) return vs_pin_index_error(bld, b, j, nv, err);
        vs_builder_pin(bld, P((int32_t)i, (int32_t)j));
      }
      break;
    case VS_PIN_NONE: break;
    case VS_PIN_FIRST: /* rope forms: the loader rejects them on a cloth */
    case VS_PIN_LAST:
    case VS_PIN_BOTH:
      return vs_error_set(err, VS_ERR_SCENE, bld->file, b->pin_loc.line, b->pin_loc.column,
                          "bodies.%s.pin: not a cloth pin form", b->name);
  }

  if (b->stretch.enabled)
    for (int32_t j = 0; j < nv; j++)
      for (int32_t i = 0; i < nu; i++) {
        if (i + 1 < nu)
          vs_builder_link(bld, P(i, j), P(i + 1, j), &b->stretch, VS_ROLE_STRETCH, b->tear, VS_SIDE_EQUAL, -1.0);
        if (j + 1 < nv)
          vs_builder_link(bld, P(i, j), P(i, j + 1), &b->stretch, VS_ROLE_STRETCH, b->tear, VS_SIDE_EQUAL, -1.0);
      }
  if (b->shear.enabled)
    for (int32_t j = 0; j + 1 < nv; j++)
      for (int32_t i = 0; i + 1 < nu; i++) {
        vs_builder_link(bld, P(i, j), P(i + 1, j + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
        vs_builder_link(bld, P(i + 1, j), P(i, j + 1), &b->shear, VS_ROLE_SHEAR, b->tear, VS_SIDE_EQUAL, -1.0);
      }
  if (b->bend.enabled) {
    for (int32_t j = 0; j < nv; j++)
      for (int32_t i = 0; i + 2 < nu; i++)
        vs_builder_link(bld, P(i, j), P(i + 2, j), &b->bend, VS_ROLE_BEND, b->tear, VS_SIDE_EQUAL, -1.0);
    for (int32_t j = 0; j + 2 < nv; j++)
      for (int32_t i = 0; i < nu; i++)
        vs_builder_link(bld, P(i, j), P(i, j + 2), &b->bend, VS_ROLE_BEND, b->tear, VS_SIDE_EQUAL, -1.0);
  }

  int32_t *t = bld->m->triangles;
  for (int32_t j = 0; j + 1 < nv; j++)
    for (int32_t i = 0; i + 1 < nu; i++) {
      int32_t k = bld->ntri;
      t[3 * k + 0] = P(i, j), t[3 * k + 1] = P(i + 1, j), t[3 * k + 2] = P(i + 1, j + 1);
      t[3 * k + 3] = P(i, j), t[3 * k + 4] = P(i + 1, j + 1), t[3 * k + 5] = P(i, j + 1);
      bld->ntri += 2;
    }
#undef P
  return VS_OK;
}
