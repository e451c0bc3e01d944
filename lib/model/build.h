/* SPDX-License-Identifier: MIT */
/* build.h (private): the model stage.  The builder that the body generators
 * fill (build.c), the generators themselves (bodies.c dispatches to one
 * body_<kind>.c each) and the colouring (coloring.c).  Nothing here steps:
 * the solver's private header is lib/solve/solve.h. */
#ifndef VSIM_MODEL_BUILD_H
#define VSIM_MODEL_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "model/model_private.h"
#include "util/private.h"
#include "vsim/model.h"

/* ---- builder: arrays allocated to their final size up front ---- */

typedef struct vs_builder {
  vs_model *m;
  int32_t np;              /* particles written so far */
  int32_t nd;              /* distance links written so far */
  int32_t ntri;            /* triangles written so far */
  const char *file;        /* scene file name, for messages */
} vs_builder;

/* Exact counts a body will add (computed before any allocation). */
typedef struct vs_body_counts {
  int64_t particles;
  int64_t links;
  int64_t triangles;
} vs_body_counts;

/* Append one particle (position, velocity, mass; mass <= 0 never happens here). */
VS_PRIVATE int32_t vs_builder_particle(vs_builder *bld, const double x[3],
                                       const double v[3], double mass, double radius,
                                       int32_t body);
/* Append one distance link; rest < 0 means the initial distance. */
VS_PRIVATE void vs_builder_link(vs_builder *bld, int32_t a, int32_t b,
                                const vs_link_desc *ld, vs_link_role role, double tear,
                                uint8_t side, double rest);
/* Pin particle p: inverse mass 0, infinite mass, no velocity. */
VS_PRIVATE void vs_builder_pin(vs_builder *bld, int32_t p);
/* "bodies.NAME.pin: index V out of range [0, LIMIT)" at the body's pin key. */
VS_PRIVATE vs_status vs_pin_index_error(vs_builder *bld, const vs_body_desc *b,
                                        int64_t value, int64_t limit, vs_error *err);

/* ---- body generators (bodies.c dispatches on the body kind) ---- */

VS_PRIVATE vs_status vs_body_count(const vs_body_desc *b, vs_body_counts *out,
                                   const char *file, vs_error *err);
VS_PRIVATE vs_status vs_body_generate(vs_builder *bld, const vs_body_desc *b,
                                      int32_t body_index, vs_error *err);

#define VS_BODY_GENERATOR(kind)                                                        \
  VS_PRIVATE vs_status vs_##kind##_count(const vs_body_desc *b, vs_body_counts *out,   \
                                         const char *file, vs_error *err);             \
  VS_PRIVATE vs_status vs_##kind##_generate(vs_builder *bld, const vs_body_desc *b,    \
                                            int32_t body, vs_error *err);

VS_BODY_GENERATOR(particles)
VS_BODY_GENERATOR(rope)
VS_BODY_GENERATOR(cloth)
VS_BODY_GENERATOR(tetra)
VS_BODY_GENERATOR(lattice)
VS_BODY_GENERATOR(ragdoll)

/* The mesh body (body_mesh.c) takes its OBJ, read and transformed by
 * vs_model_build before the counts (model.c dispatches to these). */
struct vs_obj_mesh;
VS_PRIVATE vs_status vs_mesh_count(const vs_body_desc *b, const struct vs_obj_mesh *obj,
                                   vs_body_counts *out, const char *file, vs_error *err);
VS_PRIVATE vs_status vs_mesh_generate(vs_builder *bld, const vs_body_desc *b,
                                      const struct vs_obj_mesh *obj, int32_t body, vs_error *err);
/* ---- rigid bodies (rigid_compile.c): m->n_rigid and m->n_rjoints set, rows allocated ---- */
VS_PRIVATE int32_t vs_rigid_count(const vs_scene *s);
/* A `constraints` item for the rigid bodies: ball, attach, or a distance
 * between body points ("NAME@[x, y, z]"). */
VS_PRIVATE int vs_rigid_item(const vs_constraint_desc *cd);
/* The rigid joints, the attachments, and *more: the joints again when a
 * weld, hinge or slider is among them (their state's extra rows), else 0. */
VS_PRIVATE void vs_rigid_count_items(const vs_scene *s, int32_t *joints, int32_t *attach,
                                     int32_t *more);
VS_PRIVATE vs_status vs_rigid_compile(vs_model *m, const vs_scene *s, const char *file,
                                      vs_error *err);
VS_PRIVATE void vs_rigid_model_free(struct vs_rmodel *rm);

/* The scene's explicit constraints of each kind into n[VS_KIND_COUNT], and
 * its pins' keyframes into *pin_keys (the rigid items, vs_rigid_item, are
 * vs_rigid_compile's and left out; the bodies' links are their
 * generators').  The build (model.c) and the memory estimate (estimate.c)
 * both count from here (constraint.c). */
VS_PRIVATE void vs_count_explicit(const vs_scene *s, int64_t n[VS_KIND_COUNT], int64_t *pin_keys);

/* ---- the Gauss-Seidel order (gsorder.c): gs_order, blocks ---- */
VS_PRIVATE vs_status vs_gs_order_model(vs_model *m, vs_error *err);

/* ---- colouring (coloring.c): color, color_start, color_order ---- */
VS_PRIVATE vs_status vs_color_model(vs_model *m, vs_error *err);

#endif
