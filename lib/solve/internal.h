/* internal.h: private declarations shared by the model compiler, the body
 * generators and the solver.  Not installed; not part of the API. */
#ifndef VSIM_INTERNAL_H
#define VSIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "vsim/vsim.h"

#define VS_PRIVATE __attribute__((visibility("hidden")))

/* ---- model builder: growable arrays filled by the body generators ---- */

typedef struct vs_builder {
  vs_model *m;             /* arrays are allocated to their final size up front */
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

VS_PRIVATE vs_status vs_body_count(const vs_body_desc *b, vs_body_counts *out,
                                   const char *file, vs_error *err);
VS_PRIVATE vs_status vs_body_generate(vs_builder *bld, const vs_body_desc *b,
                                      int32_t body_index, vs_error *err);

/* Append one particle (position, velocity, mass; mass <= 0 never happens here). */
VS_PRIVATE int32_t vs_builder_particle(vs_builder *bld, const double x[3],
                                       const double v[3], double mass, double radius,
                                       int32_t body);
/* Append one distance link with rest = initial distance. */
VS_PRIVATE void vs_builder_link(vs_builder *bld, int32_t a, int32_t b,
                                const vs_link_desc *ld, vs_link_role role, double tear,
                                uint8_t side, double rest);
VS_PRIVATE void vs_builder_pin(vs_builder *bld, int32_t p);

/* ---- colouring (coloring.c) ---- */
VS_PRIVATE vs_status vs_color_model(vs_model *m, vs_error *err);
VS_PRIVATE vs_status vs_color_layout(vs_model *m, vs_error *err);

/* ---- relaxations (relax_gs.c, relax_jacobi.c) ---- */
typedef struct vs_solve_ctx vs_solve_ctx;
VS_PRIVATE void vs_relax_gauss_seidel(const vs_model *m, vs_state *s, const vs_solve_ctx *c);
VS_PRIVATE void vs_relax_jacobi(const vs_model *m, vs_state *s, const vs_solve_ctx *c);
VS_PRIVATE void vs_project_constraint(const vs_solve_ctx *c, int32_t id);

/* ---- kinematic pins (con_pin.c) ---- */
/* Target position of pin k at time t into out[3]. */
VS_PRIVATE void vs_pin_target(const vs_model *m, int32_t k, double t, double out[3]);

/* ---- constraint projections (one file per kind) ---- */
struct vs_solve_ctx {
  const vs_model *m;
  double *x;          /* (n x 4) positions being projected */
  double *lambda;     /* xpbd multipliers, one per constraint, by build-order id */
  const uint8_t *alive;
  double inv_h2;      /* 1 / h^2 (xpbd) */
  int xpbd;
};

VS_PRIVATE void vs_distance_project(const vs_solve_ctx *c, int32_t i, int32_t id);
VS_PRIVATE void vs_distance_project_range(const vs_solve_ctx *c, int32_t start, int32_t count, int32_t id0);
VS_PRIVATE double vs_distance_error(const vs_model *m, const double *x, int32_t i);
VS_PRIVATE void vs_angle_project(const vs_solve_ctx *c, int32_t i, int32_t id);
VS_PRIVATE double vs_angle_error(const vs_model *m, const double *x, int32_t i);

/* ---- particle-particle contacts (collide_particles.c) ---- */
#define VS_CONTACTS_PER_PARTICLE 16 /* contact list capacity per particle with a radius */
VS_PRIVATE vs_status vs_contacts_find(const vs_model *m, vs_state *s, vs_error *err);
VS_PRIVATE void vs_contacts_color(const vs_model *m, vs_state *s);
VS_PRIVATE void vs_contacts_sweep_start(const vs_model *m, vs_state *s);
VS_PRIVATE void vs_contact_project(const vs_model *m, vs_state *s, int32_t k);
VS_PRIVATE double vs_contacts_overlap(const vs_model *m, const vs_state *s);

/* ---- colliders (collide.c) ---- */
/* Project particle i out of every collider; records contact in contact[4i..]. */
VS_PRIVATE void vs_collide_particle(const vs_model *m, double *x, double *contact,
                                    int32_t *contact_collider, int32_t i);
/* Swept test (world.swept): stop particle i where its path from xprev first
 * enters a collider, then slide the rest along the surface. */
VS_PRIVATE void vs_collide_swept(const vs_model *m, const double *xprev, double *x, double *contact,
                                 int32_t *contact_collider, int32_t i);
/* Deepest penetration of particle position p (radius r) into any collider. */
VS_PRIVATE double vs_collide_penetration(const vs_model *m, const double *p, double r);

#endif
