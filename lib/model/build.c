/* SPDX-License-Identifier: MIT */
/* build.c: the builder primitives that the body generators (body_*.c) and
 * the compiler (model.c) append particles and links with. */
#include <math.h>

#include "model/build.h"
#include "util/vec3.h"

int32_t vs_builder_particle(vs_builder *bld, const double x[3], const double v[3],
                            double mass, double radius, int32_t body) {
  vs_model *m = bld->m;
  int32_t i = bld->np++;
  m->x0[4 * i + 0] = x[0];
  m->x0[4 * i + 1] = x[1];
  m->x0[4 * i + 2] = x[2];
  m->x0[4 * i + 3] = 1.0 / mass;
  for (int k = 0; k < 3; k++) m->v0[3 * i + k] = v ? v[k] : 0.0;
  m->mass[i] = mass;
  m->radius[i] = radius;
  m->body[i] = body;
  return i;
}

void vs_builder_pin(vs_builder *bld, int32_t p) {
  vs_model *m = bld->m;
  m->x0[4 * p + 3] = 0.0;
  m->mass[p] = INFINITY;
  for (int k = 0; k < 3; k++) m->v0[3 * p + k] = 0.0;
}

static double dist3(const double *a, const double *b) {
  double d[3];
  vs_sub3(a, b, d);
  return vs_len3(d);
}

void vs_builder_link(vs_builder *bld, int32_t a, int32_t b, const vs_link_desc *ld,
                     vs_link_role role, double tear, uint8_t side, double rest) {
  vs_model *m = bld->m;
  int32_t i = bld->nd++;
  m->dist_ab[2 * i + 0] = a;
  m->dist_ab[2 * i + 1] = b;
  m->dist_rest[i] = rest >= 0 ? rest : dist3(&m->x0[4 * a], &m->x0[4 * b]);
  m->dist_stiff[i] = ld ? ld->stiffness : 1.0;
  m->dist_compl[i] = ld ? ld->compliance : 0.0;
  m->dist_tear[i] = tear > 0 ? tear * m->dist_rest[i] : 0.0;
  m->dist_side[i] = side;
  m->dist_role[i] = (uint8_t)role;
}

vs_status vs_pin_index_error(vs_builder *bld, const vs_body_desc *b, int64_t value,
                             int64_t limit, vs_error *err) {
  return vs_error_set(err, VS_ERR_SCENE, bld->file, b->pin_loc.line, b->pin_loc.column,
                      "bodies.%s.pin: index %lld out of range [0, %lld)", b->name,
                      (long long)value, (long long)limit);
}
