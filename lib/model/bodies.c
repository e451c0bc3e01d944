/* SPDX-License-Identifier: MIT */
/* bodies.c: the one dispatch point from a body description to its generator.
 * Each generator (body_<kind>.c) reports exact counts first, so limits are
 * checked before the model allocates anything, then fills the arrays. */
#include "model/build.h"

vs_status vs_body_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                        vs_error *err) {
  *out = (vs_body_counts){0, 0, 0};
  switch (b->kind) {
    case VS_BODY_PARTICLES: return vs_particles_count(b, out, file, err);
    case VS_BODY_ROPE: return vs_rope_count(b, out, file, err);
    case VS_BODY_CLOTH: return vs_cloth_count(b, out, file, err);
    case VS_BODY_TETRA: return vs_tetra_count(b, out, file, err);
    case VS_BODY_LATTICE: return vs_lattice_count(b, out, file, err);
    case VS_BODY_RAGDOLL: return vs_ragdoll_count(b, out, file, err);
    case VS_BODY_MESH: break; /* vs_mesh_count, with its OBJ (model.c) */
    case VS_BODY_RIGID: /* no particles: compiled by vs_rigid_compile */
      *out = (vs_body_counts){0, 0, 0};
      return VS_OK;
  }
  return vs_error_set(err, VS_ERR_SCENE, file, b->loc.line, b->loc.column, "unknown body kind");
}

vs_status vs_body_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                           vs_error *err) {
  switch (b->kind) {
    case VS_BODY_PARTICLES: return vs_particles_generate(bld, b, body, err);
    case VS_BODY_ROPE: return vs_rope_generate(bld, b, body, err);
    case VS_BODY_CLOTH: return vs_cloth_generate(bld, b, body, err);
    case VS_BODY_TETRA: return vs_tetra_generate(bld, b, body, err);
    case VS_BODY_LATTICE: return vs_lattice_generate(bld, b, body, err);
    case VS_BODY_RAGDOLL: return vs_ragdoll_generate(bld, b, body, err);
    case VS_BODY_MESH: break; /* vs_mesh_generate, with its OBJ (model.c) */
    case VS_BODY_RIGID: return VS_OK;
  }
  return vs_error_set(err, VS_ERR_SCENE, bld->file, b->loc.line, b->loc.column,
                      "unknown body kind");
}
