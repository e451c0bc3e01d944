/* SPDX-License-Identifier: MIT */
/* model_private.h (private): the part of vs_model that only the library
 * reads, behind model->priv (vsim/model.h): the solver's layouts (the
 * Gauss-Seidel order and its link streams, the graph colouring, the
 * particles' link adjacency), the per-link factor folded for it, and the
 * mesh colliders' search structures.  They follow the solver, not the
 * scene, so they are not API.
 *
 * One table, VS_MODEL_PRIVATE_FIELDS, lists the arrays in the style of
 * VS_MODEL_FIELDS (counts over the public model m): it declares them and
 * drives allocation, vs_model_free and the memory estimate. */
#ifndef VSIM_MODEL_PRIVATE_H
#define VSIM_MODEL_PRIVATE_H

#include <stdint.h>

#include "util/private.h"
#include "vsim/model.h"

/* A run of constraints of one kind, consecutive in the Gauss-Seidel order. */
typedef struct vs_block {
  vs_kind kind;
  int32_t start; /* position of its first constraint in gs_order */
  int32_t count;
  int32_t first; /* its first constraint's rank among those of its kind in gs_order
                    (for distance links: the index into the gs_link_* arrays) */
} vs_block;

/* The Gauss-Seidel order (lib/model/gsorder.c, docs/physics.md): no two of
 * any VS_GS_WINDOW consecutive constraints share a particle where the
 * constraint graph allows, so that their projections overlap in the CPU. */
#define VS_GS_WINDOW 8

#define VS_MAX_COLORS 64 /* graph colours before the overflow colour */

/* A mesh collider's search structures, built once by vs_model_build: the
 * BVH over its triangles (model/bvh.h) and the uniform grid of triangle
 * lists (model/meshgrid.h).  All zero for analytic colliders. */
struct vs_bvh;
struct vs_mesh_grid;
typedef struct vs_mesh_search {
  struct vs_bvh *bvh;
  struct vs_mesh_grid *grid; /* NULL also when not worth building */
  double margin;             /* the contact planes' reach (model.c), grid or not */
  int32_t slot;              /* among the mesh colliders (0, 1, ...) */
} vs_mesh_search;

/* X(name, type, count-expression over the public model m) */
#define VS_MODEL_PRIVATE_FIELDS(X)                                                              \
  X(dist_kw, double, (size_t)m->n_dist)       /* stiffness * omega / (w_a + w_b), 0 when both pinned */ \
  /* Gauss-Seidel only: the order it projects in (ids; the same result as                    \
   * build order, docs/physics.md) and its n_blocks runs of one kind */                        \
  X(gs_order, int32_t, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_constraints : 0)  \
  X(blocks, vs_block, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_constraints : 0)   \
  /* ... and the distance links again in that order, so that a sweep reads                     \
   * them as one stream: copies of dist_ab, dist_rest, dist_kw, dist_side,                     \
   * and each one's index k in the distance arrays (alive, compliance) */                      \
  X(gs_link_ab, int32_t, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? 2 * (size_t)m->n_dist : 0)   \
  X(gs_link_rest, double, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_dist : 0)      \
  X(gs_link_kw, double, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_dist : 0)        \
  X(gs_link_index, int32_t, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_dist : 0)    \
  X(gs_link_side, uint8_t, m->relaxation == VS_RELAX_GAUSS_SEIDEL ? (size_t)m->n_dist : 0)     \
  /* graph colouring (at build, for every relaxation; used by jacobi) */                       \
  X(color, int32_t, (size_t)m->n_constraints)   /* colour of each constraint */                \
  X(color_start, int32_t, VS_MAX_COLORS + 2)    /* (n_colors + 1) offsets into color_order */  \
  X(color_order, int32_t, (size_t)m->n_constraints) /* ids by colour, build order inside */    \
  /* linked neighbours of each particle, CSR ascending (particle collisions only) */           \
  X(adj_start, int32_t, m->particle_collisions ? (size_t)m->n_particles + 1 : 0)               \
  X(adj, int32_t, m->particle_collisions ? 2 * (size_t)m->n_dist : 0)                          \
  /* each collider's search structures (mesh colliders only) */                               \
  X(mesh_search, vs_mesh_search, (size_t)m->n_colliders)                                      \
  /* each rigid body's air drag per unit mass: linear (1/s), quadratic (1/m) */              \
  X(rigid_air, double, m->aero ? 2 * (size_t)m->n_rigid : 0)                                  \
  /* each particle's triangles that feel the air, ascending (CSR; lib/model/aero_model.c) */ \
  X(tri_start, int32_t, m->aero ? (size_t)m->n_particles + 1 : 0)                           \
  X(tri_of, int32_t, m->aero ? 3 * (size_t)m->n_triangles : 0)

typedef struct vs_model_private {
  struct vs_rmodel *rigid; /* the rigid solver's own model (model/rigid_model.h), NULL when
                            * n_rigid == 0 */
  /* The OBJ files the build read, a line each, bodies then colliders:
   * "KEY\tBYTES\tHASH\tPATH\n", KEY the scene's key ("bodies.0",
   * "world.colliders.2"), BYTES its length, HASH FNV-1a 64 of its bytes in
   * 16 hex digits, PATH the absolute path it was read from (%, tab, CR and
   * LF as %25 %09 %0D %0A).  The writer records it
   * (/parameters/vsim@mesh_files); --resume reads the OBJ files from those
   * paths and refuses other contents (h5check.c).  NULL when none. */
  char *mesh_files;
  int32_t n_blocks;       /* runs of one kind in gs_order (blocks); 0 for jacobi */
  int32_t n_air_triangles; /* triangles of bodies with drag or lift (aero_model.c) */
  int32_t color_overflow; /* colour whose constraints may share particles (solved in
                             build order on one thread), or -1 when every colour is clean */
#define VS_MODEL_PRIVATE_DECL(name, type, count) type *name;
  VS_MODEL_PRIVATE_FIELDS(VS_MODEL_PRIVATE_DECL)
#undef VS_MODEL_PRIVATE_DECL
} vs_model_private;

/* Keys [t, x, y, z] (n >= 1, t strictly increasing) at time t: linear in
 * between, held outside (constraint.c; the pins' keys use it too). */
VS_PRIVATE void vs_keys_at(const double *keys, int32_t n, double t, double out[3]);
/* The air (aero_model.c): the wind at time t, m/s (world.wind, or its
 * keys); 1 when some body of the scene has drag, lift or air drag
 * (model.aero); each particle's triangles (tri_start, tri_of), once the
 * bodies are built. */
VS_PRIVATE void vs_model_wind(const vs_model *m, double t, double out[3]);
VS_PRIVATE int vs_scene_has_air(const vs_scene *s);
VS_PRIVATE void vs_aero_triangles(vs_model *m);

#endif
