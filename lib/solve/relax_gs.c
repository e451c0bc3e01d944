/* relax_gs.c: Gauss-Seidel relaxation (Jakobsen §3; Müller et al. 2007 §3.3):
 * every sweep projects the constraints one after the other in build order,
 * each seeing the corrections of those before it, then the colliders.  It is
 * sequential by nature (latency-bound: each projection waits for the last). */
#include "solve/internal.h"

void vs_project_constraint(const vs_solve_ctx *c, int32_t id) {
  const vs_model *m = c->m;
  const int32_t k = m->con_index[id];
  switch ((vs_kind)m->con_kind[id]) {
    case VS_KIND_DISTANCE: vs_distance_project(c, k, id); break;
    case VS_KIND_ANGLE: vs_angle_project(c, k, id); break;
    default: break; /* pins: inverse mass 0, placed by the step */
  }
}

void vs_relax_gauss_seidel(const vs_model *m, vs_state *s, const vs_solve_ctx *c) {
  for (int64_t it = 0; it < m->iterations; it++) {
    for (int32_t b = 0; b < m->n_blocks; b++) {
      const vs_block *blk = &m->blocks[b];
      if (blk->kind == VS_KIND_DISTANCE)
        vs_distance_project_range(c, blk->start, blk->count, blk->first);
      else if (blk->kind == VS_KIND_ANGLE)
        for (int32_t i = 0; i < blk->count; i++) vs_angle_project(c, blk->start + i, blk->first + i);
    }
    vs_contacts_sweep_start(m, s);
    for (int32_t k = 0; k < s->pc_n; k++) vs_contact_project(m, s, k);
    if (m->n_colliders > 0)
      for (int32_t i = 0; i < m->n_particles; i++)
        vs_collide_particle(m, s->x, s->contact, s->contact_collider, i);
  }
}
