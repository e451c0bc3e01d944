/* SPDX-License-Identifier: MIT */
/* constraint.c: what every stage may ask of a compiled constraint: its
 * kind's name and arity, its particles, and an explicit pin's target.
 * Everything here follows from the kind table VS_KINDS (vsim/kind.h). */
#include "model/build.h"

#define VS_KIND_CHECK_(ID, name, arity, particles, count) \
  _Static_assert((arity) >= 1 && (arity) <= VS_MAX_ARITY, #name ": arity out of [1, VS_MAX_ARITY]");
VS_KINDS(VS_KIND_CHECK_)
#undef VS_KIND_CHECK_

const char *vs_kind_name(vs_kind kind) {
  switch (kind) {
#define VS_KIND_NAME_(ID, name, arity, particles, count) \
  case VS_KIND_##ID: return #name;
    VS_KINDS(VS_KIND_NAME_)
#undef VS_KIND_NAME_
  }
  return "unknown";
}

int vs_kind_arity(vs_kind kind) {
  switch (kind) {
#define VS_KIND_ARITY_(ID, name, arity, particles, count) \
  case VS_KIND_##ID: return arity;
    VS_KINDS(VS_KIND_ARITY_)
#undef VS_KIND_ARITY_
  }
  return 0;
}

int32_t vs_model_kind_count(const vs_model *m, vs_kind kind) {
  switch (kind) {
#define VS_KIND_COUNT_(ID, name, arity, particles, count) \
  case VS_KIND_##ID: return m->count;
    VS_KINDS(VS_KIND_COUNT_)
#undef VS_KIND_COUNT_
  }
  return 0;
}

void vs_count_explicit(const vs_scene *s, int64_t n[VS_KIND_COUNT], int64_t *pin_keys) {
  for (int k = 0; k < VS_KIND_COUNT; k++) n[k] = 0;
  *pin_keys = 0;
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    /* ball, attach, body-point distance: vs_rigid_compile's */
    if (vs_rigid_item(cd) || (unsigned)cd->kind >= VS_KIND_COUNT) continue;
    n[cd->kind]++;
    switch (cd->kind) {
      case VS_KIND_PIN: *pin_keys += (int64_t)cd->n_keys; break;
      case VS_KIND_DISTANCE:
      case VS_KIND_ANGLE: break;
    }
  }
}

int vs_model_constraint_particles(const vs_model *m, int32_t id, int32_t out[VS_MAX_ARITY]) {
  for (int j = 0; j < VS_MAX_ARITY; j++) out[j] = -1;
  const size_t k = (size_t)m->con_index[id];
  switch ((vs_kind)m->con_kind[id]) {
#define VS_KIND_PARTICLES_(ID, name, arity, particles, count)       \
  case VS_KIND_##ID:                                                \
    for (int j = 0; j < (arity); j++) out[j] = m->particles[(arity) * k + (size_t)j]; \
    return arity;
    VS_KINDS(VS_KIND_PARTICLES_)
#undef VS_KIND_PARTICLES_
  }
  return 0;
}

/* Keys [t, x, y, z] (n >= 1, t increasing) at time t into out[3]: linear
 * in between, held before the first and after the last; kinematic pins and
 * the wind (docs/scene-format.md). */
void vs_keys_at(const double *keys, int32_t n, double t, double out[3]) {
  if (t <= keys[0]) {
    for (int j = 0; j < 3; j++) out[j] = keys[1 + j];
    return;
  }
  if (t >= keys[4 * (n - 1)]) {
    for (int j = 0; j < 3; j++) out[j] = keys[4 * (n - 1) + 1 + j];
    return;
  }
  /* Binary search for the last key with t_k <= t (t_0 < t < t_last here). */
  int32_t lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (keys[4 * mid] <= t) lo = mid;
    else hi = mid;
  }
  const double *a = &keys[4 * lo], *b = &keys[4 * hi];
  const double f = (t - a[0]) / (b[0] - a[0]);
  for (int j = 0; j < 3; j++) out[j] = a[1 + j] + f * (b[1 + j] - a[1 + j]);
}

void vs_model_pin_target(const vs_model *m, int32_t k, double t, double out[3]) {
  const int32_t n = m->pin_nkeys[k];
  if (m->pin_key0[k] < 0 || n == 0) {
    for (int j = 0; j < 3; j++) out[j] = m->pin_at[3 * k + j];
    return;
  }
  vs_keys_at(&m->pin_keys[4 * (size_t)m->pin_key0[k]], n, t, out);
}
