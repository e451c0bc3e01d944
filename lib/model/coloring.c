/* SPDX-License-Identifier: MIT */
/* coloring.c: greedy graph colouring of the constraints, once, at build.
 *
 * Two constraints conflict when they share a particle with inverse mass > 0
 * (a shared pinned particle is never written, so it is no conflict).  Greedy
 * in build order (Fratarcangeli & Pellacini 2014; Box2D's constraint graph):
 * each constraint takes the lowest colour none of its movable particles has
 * used yet.  Colours live in one 64-bit mask per particle; a constraint that
 * finds all 64 taken goes to an overflow colour that is solved in build order
 * on one thread (Box2D's overflow bucket).  Tearing only removes constraints,
 * so the colouring stays valid for the whole run. */
#include <stdlib.h>
#include <string.h>

#include "model/build.h"

vs_status vs_color_model(vs_model *m, vs_error *err) {
  const int32_t nc = m->n_constraints;
  uint64_t *used = vs_calloc((size_t)m->n_particles + 1, sizeof *used); /* colours taken, per particle */
  if (!used) return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory colouring %d constraints", nc);
  int32_t ncolors = 0;
  int32_t count[VS_MAX_COLORS + 1] = {0};
  for (int32_t id = 0; id < nc; id++) {
    int32_t p[VS_MAX_ARITY];
    const int arity = vs_model_constraint_particles(m, id, p);
    uint64_t taken = 0;
    for (int k = 0; k < arity; k++)
      if (p[k] >= 0 && m->x0[4 * (size_t)p[k] + 3] > 0.0) taken |= used[p[k]];
    int32_t color = (~taken == 0) ? VS_MAX_COLORS : __builtin_ctzll(~taken);
    if (color < VS_MAX_COLORS)
      for (int k = 0; k < arity; k++)
        if (p[k] >= 0 && m->x0[4 * (size_t)p[k] + 3] > 0.0) used[p[k]] |= 1ull << color;
    m->priv->color[id] = color;
    count[color]++;
    if (color + 1 > ncolors) ncolors = color + 1;
  }
  vs_free(used);
  m->n_colors = ncolors;
  m->priv->color_overflow = ncolors == VS_MAX_COLORS + 1 ? VS_MAX_COLORS : -1;
  m->priv->color_start[0] = 0;
  for (int32_t c = 0; c < ncolors; c++) m->priv->color_start[c + 1] = m->priv->color_start[c] + count[c];
  int32_t fill[VS_MAX_COLORS + 1];
  memcpy(fill, m->priv->color_start, sizeof(int32_t) * (size_t)(ncolors > 0 ? ncolors : 1));
  for (int32_t id = 0; id < nc; id++) m->priv->color_order[fill[m->priv->color[id]]++] = id;
  return VS_OK;
}
