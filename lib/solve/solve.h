/* SPDX-License-Identifier: MIT */
/* solve.h (private): the solve stage.  The constraint kinds' projections
 * (con_<kind>.c, dispatched through vs_kind_solver), the relaxations
 * (relax_gs.c, relax_jacobi.c), colliders (collide.c), particle contacts
 * (collide_particles.c) and the solver's scratch (scratch.c), which the
 * public vs_state only points at.  Not installed; not part of the API. */
#ifndef VSIM_SOLVE_H
#define VSIM_SOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model_private.h"
#include "util/private.h"
#include "vsim/model.h"
#include "vsim/state.h"
#include "vsim/step.h"

/* ---- the coloured-Jacobi layout (scratch.c) ----
 * The distance links again, colour by colour, as a structure of arrays for
 * the Jacobi kernel: inside a colour the two-sided links come first, in build
 * order, then the one-sided ones.  The overflow colour is not here: it is
 * solved through the model's color_order. */
struct vs_solve_ctx;
/* A block kernel of the Jacobi relaxation (kernel_jacobi.h). */
typedef void vs_jacobi_block_fn(const vs_model *m, const struct vs_solve_ctx *c, int32_t j0, int32_t n);
typedef struct vs_jacobi_layout {
  vs_jacobi_block_fn *block;  /* the kernel path picked when the state was created */
  int path;                   /* its vs_jacobi_path */
  int32_t *link_ab;           /* (n_dist x 2) particles */
  double *link_rest;          /* (n_dist) rest length or one-sided bound */
  double *link_kw;            /* (n_dist) stiffness * omega / (w_a + w_b), 0 when both pinned */
  double *link_compl;         /* (n_dist) compliance */
  double *link_wsum;          /* (n_dist) w_a + w_b */
  int32_t *link_index;        /* (n_dist) the link's index in the distance arrays (alive) */
  int32_t *link_id;           /* (n_dist) the link's build-order id: its xpbd multiplier slot */
  double *link_lambda;        /* (n_dist) two-sided links' multipliers while relax_jacobi runs */
  int32_t *color_link_start;  /* (n_colors + 1) first link of each colour */
  int32_t *color_two_sided;   /* (n_colors) two-sided links at the start of each colour */
  int32_t *other_id;          /* (n_constraints - n_dist) other kinds' ids, by colour */
  int32_t *color_other_start; /* (n_colors + 1) first of each colour in other_id */
  /* The wavefront schedule (relax_jacobi.c): each colour's two-sided links
   * sorted by key = min(a, b); every such link has |a - b| <= wave_span. */
  int32_t *link_key;          /* (n_dist) min(a, b) of the two-sided links */
  uint8_t *link_shape;        /* (n_dist) VS_JSHAPE_* of the 8 two-sided links from here (kernel_jacobi.h) */
  int32_t *color_span;        /* (n_colors) the largest |a - b| of each colour's two-sided links */
  int32_t wave_span;          /* the largest |a - b| of a two-sided link */
  int32_t wave_color;         /* the colour with the most two-sided links: thread splits */
  int wave_ok;                /* 1: every colour is two-sided links only (no overflow, one-sided, other kinds) */
  int wave;                   /* 1 (default): use the wavefront when wave_ok; 0: colour by colour (tests) */
  int wave_seam_div;          /* seams at most 1/this of the work (32; tests lower it to force long chunks) */
  /* Two threads: thread 0's share of the wave colour's links, moved after
   * each chunk of stages towards the two threads' measured speeds (the two
   * cores of a VM may differ); which thread projects a link changes no bit. */
  double wave_share;          /* 0.5 at first, kept within [1/4, 3/4] */
  double wave_share_fixed;    /* > 0: the share held there (tests), else measured */
  double wave_time[2];        /* each thread's time on its trapezoid of the last chunk */
} vs_jacobi_layout;

/* ---- the solver's scratch, owned by a vs_state (vs_state.scratch) ----
 * Rewritten every step, never checkpointed; allocated once with the state,
 * so that the step never allocates. */
#define VS_CONTACTS_PER_PARTICLE 16 /* contact list capacity per particle with a radius */

struct vs_mesh_plane; /* solve/collide_mesh.h */
struct vs_mesh_ball;

struct vs_solver_scratch {
  /* collider contacts of this step */
  double *contact;            /* (n_particles x 4) contact normal and accumulated normal push */
  int32_t *contact_collider;  /* (n_particles) collider that pushed it last, -1 = none */
  double *vpre;               /* (n_particles x 3) velocity before the solve (restitution) */
  double *aero;               /* (n_particles x 4) air: acceleration, drag denominator (aero.c) */
  double *aero_tri;           /* (n_triangles x 3) air: each triangle's force (aero.c) */
  double wind[3];             /* m/s, at this step's start (aero.c) */
  struct vs_mesh_plane *mesh_contact; /* (mesh colliders x n_particles) contact planes, per step (collide_mesh.h) */
  struct vs_mesh_ball *mesh_ball; /* (mesh colliders x n_particles) their mesh-free balls, for the final pass */
  uint8_t *mesh_on;           /* (mesh colliders x n_particles) mesh_contact[].on, dense: the relaxation reads a
                               * particle's plane only when it has one (most have none); 2: no plane, and
                               * the record not written this step (vs_mesh_contact_plane_near) */

  /* particle-particle contacts, found anew every step (particle_collisions) */
  int32_t pc_n, pc_cap;       /* contacts this step, capacity */
  int32_t *pc_pairs;          /* (pc_cap x 2) particle pairs i < j */
  int32_t *pc_color;          /* (pc_cap) jacobi colour of each contact */
  int32_t *pc_order;          /* (pc_cap) contacts grouped by colour */
  double *pc_key;             /* (pc_cap) sort key: height of the lower particle */
  uint8_t *supported;         /* (n_particles) shock propagation: resting on something this sweep */
  int32_t *pc_tmp;            /* (pc_cap x 2) sort scratch */
  int32_t pc_start[VS_MAX_COLORS + 2]; /* colour offsets into pc_order (colours + overflow) */
  int32_t pc_ncolors;
  uint64_t *pc_mask;          /* (n_particles) colours taken, zero between steps */

  /* spatial hash of the particles with a radius */
  int32_t hash_size;          /* buckets (a power of two) */
  int32_t *hash_start;        /* (hash_size + 1) */
  int32_t *hash_fill;         /* (hash_size) */
  int32_t *hash_items;        /* (n_particles) */
  int32_t *pcell;             /* (n_particles x 3) cell of each particle */
  double cell_radius;         /* cells are 3 cell_radius wide (collide_particles.c) */
  int32_t n_big;              /* particles larger than cell_radius: tested against all */
  int32_t *big;               /* (n_big) their indices, ascending */
  int64_t pc_tests;           /* pairs tested by the last search (bounded work: tested) */

  vs_jacobi_layout jacobi;    /* filled when the model's relaxation is jacobi */

  struct vs_rwork *rigid;     /* the rigid solver's work (contacts, broad phase), or NULL */
  int32_t rigid_contacts;     /* rigid contact points of the last step (observable) */
};

/* ---- rigid bodies in the step (rigid_couple.c) ---- */
/* One step h of the rigid bodies (state rows rx.. through the solver's
 * vs_rstate view), then the particle-rigid contacts both ways. */
VS_PRIVATE void vs_step_rigid(const vs_model *m, vs_state *s, double h);
/* Kinematic rigid bodies on their path at t0, with the velocities of the
 * step to t1 (before vs_couple_rigid and vs_step_rigid). */
VS_PRIVATE void vs_kinematic_rigid(const vs_model *m, vs_state *s, double t0, double t1);
VS_PRIVATE void vs_couple_rigid(const vs_model *m, vs_state *s, double h);

/* ---- the air (aero.c), around predict when model.aero ---- */
/* The wind at t (the step's start), the triangles' accelerations and the
 * air drag from the step's start state into scratch.aero. */
VS_PRIVATE void vs_aero_begin(const vs_model *m, vs_state *s, double t);
/* After the prediction: its velocities and positions with the air's. */
VS_PRIVATE void vs_aero_end(const vs_model *m, vs_state *s);

VS_PRIVATE vs_status vs_solver_scratch_create(const vs_model *m, vs_solver_scratch **out, vs_error *err);
VS_PRIVATE void vs_solver_scratch_free(vs_solver_scratch *w);

/* ---- constraint projections: one file per kind (con_<name>.c) ---- */
typedef struct vs_solve_ctx {
  const vs_model *m;
  double *x;          /* (n x 4) positions being projected */
  double *lambda;     /* xpbd multipliers, one per constraint, by build-order id */
  const uint8_t *alive;
  const vs_jacobi_layout *jacobi;
  double inv_h2;      /* 1 / h^2 (xpbd) */
  int xpbd;
} vs_solve_ctx;

/* Every kind of VS_KINDS (vsim/kind.h) provides, in con_<name>.c:
 *   vs_<name>_project(c, k, id): project constraint k of the kind (build-order
 *     id `id`, its multiplier slot) on c->x;
 *   vs_<name>_error(m, s, k, &e, &rest): |C| and the length it is relative to
 *     (0: none); returns 0 when the constraint is gone (a torn link). */
typedef void (*vs_project_fn)(const vs_solve_ctx *c, int32_t k, int32_t id);
typedef int (*vs_error_fn)(const vs_model *m, const vs_state *s, int32_t k, double *e, double *rest);
#define VS_KIND_DECL_(ID, name, arity, particles, count)                             \
  VS_PRIVATE void vs_##name##_project(const vs_solve_ctx *c, int32_t k, int32_t id); \
  VS_PRIVATE int vs_##name##_error(const vs_model *m, const vs_state *s, int32_t k, double *e, double *rest);
VS_KINDS(VS_KIND_DECL_)
#undef VS_KIND_DECL_

/* The solver's side of the kind table (kinds.c), indexed by vs_kind. */
typedef struct vs_kind_solver_ops {
  vs_project_fn project;
  vs_error_fn error;
} vs_kind_solver_ops;
VS_PRIVATE extern const vs_kind_solver_ops vs_kind_solver[VS_KIND_COUNT];

/* Project constraint `id` (build order) through its kind's row. */
VS_PRIVATE void vs_project_constraint(const vs_solve_ctx *c, int32_t id);
/* A distance block of the Gauss-Seidel order (its fast path): the links
 * r0 .. r0 + count - 1 of the model's gs_link_* arrays, in that order, whose
 * build-order ids are ids[0 .. count - 1]. */
VS_PRIVATE void vs_distance_project_order(const vs_solve_ctx *c, const int32_t *ids, int32_t r0, int32_t count);

/* ---- relaxations (relax_gs.c, relax_jacobi.c) ---- */
VS_PRIVATE void vs_relax_gauss_seidel(const vs_model *m, vs_state *s, const vs_solve_ctx *c);
VS_PRIVATE void vs_relax_jacobi(const vs_model *m, vs_state *s, const vs_solve_ctx *c);

/* ---- particle-particle contacts (collide_particles.c) ---- */
/* The particle broad phase's cell size and its big particles (once, from the
 * model's radii: collide_particles.c). */
VS_PRIVATE void vs_contacts_layout(const vs_model *m, vs_solver_scratch *w);
VS_PRIVATE vs_status vs_contacts_find(const vs_model *m, vs_state *s, vs_error *err);
VS_PRIVATE void vs_contacts_color(const vs_model *m, vs_state *s);
VS_PRIVATE void vs_contacts_sweep_start(const vs_model *m, vs_state *s);
VS_PRIVATE void vs_contact_project(const vs_model *m, vs_state *s, int32_t k);
VS_PRIVATE double vs_contacts_overlap(const vs_model *m, const vs_state *s);
/* Work space of the rigid bodies' penetration measure: n_rigid each. */
typedef struct vs_observe_work {
  int32_t *order, *tmp;
  double *key;
  /* the rigid poses last measured (x then q, 7 per body) and what they gave
   * (the deepest penetration, the joints' largest errors): a frame whose
   * poses are these, bit for bit (a sleeping world), has the same; NULL:
   * measured every time */
  double *pose;
  int32_t have;
  double pen, joint_gap, joint_turn;
} vs_observe_work;
/* vs_observe with what it reads from the scratch given (observe.c): the
 * result file's writer thread measures a copy of the persistent fields,
 * with its own work space (ow: needed when the model has rigid bodies). */
VS_PRIVATE void vs_observe_from(const vs_model *m, const vs_state *s, double overlap_max,
                                int64_t rigid_contacts, vs_observe_work *ow,
                                vs_observables *obs, double *per);

/* ---- colliders (collide.c) ---- */
/* Project particle i out of every collider; records contact in contact[4i..].
 * xprev: the start-of-step positions (a mesh keeps particles on that side). */
VS_PRIVATE void vs_collide_particle(const vs_model *m, const double *xprev, double *x,
                                    double *contact, int32_t *contact_collider,
                                    const struct vs_mesh_plane *mesh_contact, const uint8_t *mesh_on, int32_t i);
/* Swept test (world.swept): stop particle i where its path from xprev first
 * enters a collider, then slide the rest along the surface. */
VS_PRIVATE void vs_collide_swept(const vs_model *m, const double *xprev, double *x, double *contact,
                                 int32_t *contact_collider, struct vs_mesh_plane *mesh_contact,
                                 struct vs_mesh_ball *mesh_ball, uint8_t *mesh_on, int32_t i);
/* Mesh colliders: the exact projection of particle i at the end of the step
 * (after the relaxation, which saw only its contact planes: collide_mesh.h). */
VS_PRIVATE void vs_collide_final(const vs_model *m, const double *xprev, double *x, double *contact,
                                 int32_t *contact_collider, const struct vs_mesh_ball *mesh_ball,
                                 const uint8_t *mesh_on, int32_t i);
/* Deepest penetration of particle position p (radius r) into any collider. */
VS_PRIVATE double vs_collide_penetration(const vs_model *m, const double *p, double r);

#endif
