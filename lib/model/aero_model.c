/* SPDX-License-Identifier: MIT */
/* aero_model.c: what the air (docs/physics.md, "Air"; the solver's part is
 * lib/solve/aero.c) needs of the model: the wind at a time, whether a scene
 * has air at all, and each particle's triangles, for the per-particle
 * gather of the triangles' forces. */
#include "model/build.h"

void vs_model_wind(const vs_model *m, double t, double out[3]) {
  if (m->n_wind_keys > 0)
    vs_keys_at(m->wind_keys, m->n_wind_keys, t, out);
  else
    for (int j = 0; j < 3; j++) out[j] = m->wind[j];
}

int vs_scene_has_air(const vs_scene *s) {
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *d = &s->bodies[b];
    if (d->drag > 0.0 || d->lift > 0.0 || d->air_linear > 0.0 || d->air_quadratic > 0.0) return 1;
  }
  return 0;
}

/* Each particle's triangles of bodies with drag or lift, ascending (CSR in
 * tri_start / tri_of): the gather of the triangles' forces then adds them
 * in triangle order, the order of one thread scattering them, whatever the
 * split over threads. */
void vs_aero_triangles(vs_model *m) {
  int32_t *start = m->priv->tri_start, *of = m->priv->tri_of;
  const int32_t n = m->n_particles;
  for (int32_t p = 0; p <= n; p++) start[p] = 0;
  for (int32_t k = 0; k < m->n_triangles; k++) {
    const int32_t *t = m->triangles + 3 * (size_t)k;
    const vs_body_info *bi = &m->bodies[m->body[t[0]]];
    if (!(bi->drag > 0.0 || bi->lift > 0.0)) continue;
    for (int j = 0; j < 3; j++) start[t[j] + 1]++;
  }
  for (int32_t p = 0; p < n; p++) start[p + 1] += start[p];
  for (int32_t k = 0; k < m->n_triangles; k++) { /* start[p]: p's next free slot */
    const int32_t *t = m->triangles + 3 * (size_t)k;
    const vs_body_info *bi = &m->bodies[m->body[t[0]]];
    if (!(bi->drag > 0.0 || bi->lift > 0.0)) continue;
    for (int j = 0; j < 3; j++) of[start[t[j]]++] = k;
  }
  for (int32_t p = n; p > 0; p--) start[p] = start[p - 1]; /* back to the first slots */
  start[0] = 0;
  m->priv->n_air_triangles = 0;
  for (int32_t k = 0; k < m->n_triangles; k++) {
    const vs_body_info *bi = &m->bodies[m->body[m->triangles[3 * (size_t)k]]];
    m->priv->n_air_triangles += bi->drag > 0.0 || bi->lift > 0.0;
  }
}
