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

#include "solve/internal.h"

#define VS_MAX_COLORS 64

vs_status vs_color_model(vs_model *m, vs_error *err) {
  const int32_t nc = m->n_constraints;
  uint64_t *used = vs_calloc((size_t)m->n_particles + 1, sizeof *used);
  m->color = vs_calloc((size_t)nc + 1, sizeof *m->color);
  m->color_order = vs_calloc((size_t)nc + 1, sizeof *m->color_order);
  m->color_start = vs_calloc(VS_MAX_COLORS + 2, sizeof *m->color_start);
  if (!used || !m->color || !m->color_order || !m->color_start) {
    vs_free(used);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory colouring %d constraints", nc);
  }
  int32_t ncolors = 0;
  int32_t count[VS_MAX_COLORS + 1] = {0};
  for (int32_t id = 0; id < nc; id++) {
    int32_t p[3];
    vs_model_constraint_particles(m, id, p);
    uint64_t taken = 0;
    for (int k = 0; k < 3; k++)
      if (p[k] >= 0 && m->x0[4 * (size_t)p[k] + 3] > 0.0) taken |= used[p[k]];
    int32_t color = (~taken == 0) ? VS_MAX_COLORS : __builtin_ctzll(~taken);
    if (color < VS_MAX_COLORS)
      for (int k = 0; k < 3; k++)
        if (p[k] >= 0 && m->x0[4 * (size_t)p[k] + 3] > 0.0) used[p[k]] |= 1ull << color;
    m->color[id] = color;
    count[color]++;
    if (color + 1 > ncolors) ncolors = color + 1;
  }
  vs_free(used);
  m->n_colors = ncolors;
  m->color_overflow = ncolors == VS_MAX_COLORS + 1 ? VS_MAX_COLORS : -1;
  m->color_start[0] = 0;
  for (int32_t c = 0; c < ncolors; c++) m->color_start[c + 1] = m->color_start[c] + count[c];
  int32_t fill[VS_MAX_COLORS + 1];
  memcpy(fill, m->color_start, sizeof(int32_t) * (size_t)(ncolors > 0 ? ncolors : 1));
  for (int32_t id = 0; id < nc; id++) m->color_order[fill[m->color[id]]++] = id;
  return VS_OK;
}

/* Lay the distance links out colour by colour (SoA) for the Jacobi kernel,
 * two-sided links first inside each colour so that the kernel's common case
 * has no branch on the side; the other kinds get an id list per colour. */
vs_status vs_color_layout(vs_model *m, vs_error *err) {
  const int32_t nd = m->n_dist, nc = m->n_colors;
  const int32_t nother = m->n_constraints - nd;
  m->jd_ab = vs_calloc(2 * (size_t)nd + 1, sizeof *m->jd_ab);
  m->jd_rest = vs_calloc((size_t)nd + 1, sizeof *m->jd_rest);
  m->jd_kw = vs_calloc((size_t)nd + 1, sizeof *m->jd_kw);
  m->jd_compl = vs_calloc((size_t)nd + 1, sizeof *m->jd_compl);
  m->jd_wsum = vs_calloc((size_t)nd + 1, sizeof *m->jd_wsum);
  m->jd_id = vs_calloc((size_t)nd + 1, sizeof *m->jd_id);
  m->jd_slot = vs_calloc((size_t)nd + 1, sizeof *m->jd_slot);
  m->jd_start = vs_calloc((size_t)nc + 2, sizeof *m->jd_start);
  m->jd_two_sided = vs_calloc((size_t)nc + 1, sizeof *m->jd_two_sided);
  m->jo_ids = vs_calloc((size_t)nother + 1, sizeof *m->jo_ids);
  m->jo_start = vs_calloc((size_t)nc + 2, sizeof *m->jo_start);
  if (!m->jd_ab || !m->jd_rest || !m->jd_kw || !m->jd_compl || !m->jd_wsum || !m->jd_id || !m->jd_slot ||
      !m->jd_start || !m->jd_two_sided || !m->jo_ids || !m->jo_start)
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory laying out %d links", nd);
  int32_t j = 0, o = 0;
  for (int32_t c = 0; c < nc; c++) {
    m->jd_start[c] = j;
    m->jo_start[c] = o;
    const int32_t *ids = m->color_order + m->color_start[c];
    const int32_t cnt = m->color_start[c + 1] - m->color_start[c];
    for (int pass = 0; pass < 2; pass++) {
      for (int32_t k = 0; k < cnt; k++) {
        const int32_t id = ids[k];
        if (m->con_kind[id] != VS_KIND_DISTANCE) {
          if (pass == 0) m->jo_ids[o++] = id;
          continue;
        }
        const int32_t i = m->con_index[id];
        if ((m->dist_side[i] == VS_SIDE_EQUAL) != (pass == 0)) continue;
        const int32_t a = m->dist_ab[2 * i], b = m->dist_ab[2 * i + 1];
        const double wsum = m->x0[4 * (size_t)a + 3] + m->x0[4 * (size_t)b + 3];
        m->jd_ab[2 * j] = a;
        m->jd_ab[2 * j + 1] = b;
        m->jd_rest[j] = m->dist_rest[i];
        m->jd_kw[j] = m->dist_kw[i];
        m->jd_compl[j] = m->dist_compl[i];
        m->jd_wsum[j] = wsum;
        m->jd_id[j] = i;
        m->jd_slot[j] = id;
        j++;
      }
      if (pass == 0) m->jd_two_sided[c] = j - m->jd_start[c];
    }
  }
  m->jd_start[nc] = j;
  m->jo_start[nc] = o;
  return VS_OK;
}
