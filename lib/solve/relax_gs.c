/* SPDX-License-Identifier: MIT */
/* relax_gs.c: Gauss-Seidel relaxation (Jakobsen §3; Müller et al. 2007 §3.3):
 * every sweep projects the constraints one after the other, each seeing the
 * corrections of those before it, then the colliders.  The order is the
 * model's gs_order (lib/model/gsorder.c): build order as far as any two
 * constraints sharing a particle are concerned, so the result is that of
 * build order bit for bit, but consecutive projections are independent
 * where the graph allows, so the CPU overlaps their square roots and
 * divides instead of waiting for each in turn. */
#include "solve/solve.h"

void vs_relax_gauss_seidel(const vs_model *m, vs_state *s, const vs_solve_ctx *c) {
  vs_solver_scratch *const w = s->scratch;
  for (int64_t it = 0; it < m->iterations; it++) {
    for (int32_t b = 0; b < m->priv->n_blocks; b++) {
      const vs_block *blk = &m->priv->blocks[b];
      const int32_t *ids = m->priv->gs_order + blk->start;
      if (blk->kind == VS_KIND_DISTANCE) { /* the common case, inlined */
        vs_distance_project_order(c, ids, blk->first, blk->count);
        continue;
      }
      const vs_project_fn project = vs_kind_solver[blk->kind].project;
      for (int32_t i = 0; i < blk->count; i++) project(c, m->con_index[ids[i]], ids[i]);
    }
    vs_contacts_sweep_start(m, s);
    for (int32_t k = 0; k < w->pc_n; k++) vs_contact_project(m, s, k);
    if (m->n_colliders > 0)
      for (int32_t i = 0; i < m->n_particles; i++)
        vs_collide_particle(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_contact, w->mesh_on, i);
  }
}
