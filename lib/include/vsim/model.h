/* SPDX-License-Identifier: MIT */
/* vsim/model.h: the compiled, immutable model (like MuJoCo's mjModel).
 *
 * Stage 2: vs_model_build() turns a vs_scene into flat arrays.  Nothing that
 * stepping does changes a model; everything that changes lives in vs_state.
 * Particle data is packed four doubles a particle (x, y, z, inverse mass) so
 * that one constraint's gather touches one cache line per particle; each
 * constraint kind is a structure of arrays.  Every array carries its shape.
 *
 * One table, VS_MODEL_FIELDS, lists the arrays: it declares them and drives
 * allocation (once, to the final size, before anything is filled) and
 * vs_model_free, so adding a model array is one row.  They are the model a
 * program may read (never write); what only the solver reads is behind the
 * opaque `priv` (docs/library.md). */
#ifndef VSIM_MODEL_H
#define VSIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/kind.h"
#include "vsim/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Constraint kinds: VS_KINDS in vsim/kind.h, one row each. */

/* Name used in scene and result files: "distance", "pin", "angle". */
const char *vs_kind_name(vs_kind kind);

/* Particles per constraint of the kind (2, 1, 3). */
int vs_kind_arity(vs_kind kind);

/* Role of a distance link, kept for viewers and statistics. */
typedef enum vs_link_role {
  VS_ROLE_STRETCH = 0,
  VS_ROLE_SHEAR,
  VS_ROLE_BEND,
  VS_ROLE_EXPLICIT,
  VS_ROLE_LIMIT /* one-sided body limits (ragdoll joints) */
} vs_link_role;

/* Side of a distance link. */
enum {
  VS_SIDE_EQUAL = 0, /* C = |d| - rest */
  VS_SIDE_MIN = 1,   /* acts only when |d| < rest (pushes apart) */
  VS_SIDE_MAX = 2    /* acts only when |d| > rest (pulls together) */
};

typedef struct vs_body_info {
  char name[VS_MAX_NAME + 1];
  vs_body_kind kind;
  int32_t first;   /* global index of its particle 0 */
  int32_t count;   /* particles */
  int32_t nu, nv, nw; /* grid resolution (cloth: nu, nv; lattice: all three); else 0 */
  double damping_rigid; /* [0, 1] per step: velocities pulled towards the body's rigid motion */
  uint32_t group_bits;  /* 1 << collision_group */
  uint32_t mask;        /* collision_mask: collides with the groups of these bits */
  double drag, lift;    /* cloth, mesh: per-triangle air pressure coefficients C_d, C_l */
  double air_linear;    /* 1/s: air drag per unit mass, linear in the speed relative to the wind */
  double air_quadratic; /* 1/m: quadratic in it */
} vs_body_info;

/* A mesh collider's triangles: its vertices and triangles (vertex numbers
 * local to it) in mesh_vertices / mesh_triangles.  The structures that
 * search them (a BVH, a grid of triangle lists) are the library's own. */
typedef struct vs_collider_mesh {
  int32_t first_vertex, n_vertices;
  int32_t first_triangle, n_triangles; /* all 0 for analytic colliders */
  /* triangles of its OBJ file left out: exact repeats of an earlier one
   * (the same corners), and zero-area ones */
  int32_t n_duplicate, n_zero_area;
} vs_collider_mesh;

/* The library's own part of a model (lib/model/model_private.h): the
 * solver's layouts (the Gauss-Seidel order, the graph colouring, the
 * particles' link adjacency), factors folded for it, and the mesh
 * colliders' search structures.  They change whenever the solver does, so
 * a program sees only this pointer and never reads through it. */
struct vs_model_private;

/* X(name, type, count-expression over model m): every array of the model.
 * Particle arrays are in build order; each kind's arrays are in that kind's
 * order (index k); "id" is the build order over all constraints. */
#define VS_MODEL_FIELDS(X)                                                                   \
  /* particles */                                                                             \
  X(x0, double, 4 * (size_t)m->n_particles)     /* x, y, z, inverse mass (0 = pinned) */      \
  X(v0, double, 3 * (size_t)m->n_particles)     /* initial velocity */                        \
  X(mass, double, (size_t)m->n_particles)       /* kg, +inf when pinned */                    \
  X(radius, double, (size_t)m->n_particles)     /* collision radius */                        \
  X(body, int32_t, (size_t)m->n_particles)      /* body index */                              \
  X(bodies, vs_body_info, (size_t)m->n_bodies)                                                \
  /* distance links */                                                                        \
  X(dist_ab, int32_t, 2 * (size_t)m->n_dist)    /* particle indices */                        \
  X(dist_rest, double, (size_t)m->n_dist)       /* rest length, or a one-sided bound */       \
  X(dist_stiff, double, (size_t)m->n_dist)      /* stiffness (verlet, pbd) */                 \
  X(dist_compl, double, (size_t)m->n_dist)      /* compliance (xpbd) */                       \
  X(dist_tear, double, (size_t)m->n_dist)       /* breaking length (tear * rest), 0 = never */ \
  X(dist_side, uint8_t, (size_t)m->n_dist)      /* VS_SIDE_* */                               \
  X(dist_role, uint8_t, (size_t)m->n_dist)      /* vs_link_role */                            \
  /* explicit pins */                                                                         \
  X(pin_p, int32_t, (size_t)m->n_pin)           /* particle */                                \
  X(pin_at, double, 3 * (size_t)m->n_pin)       /* fixed target (when no keys) */             \
  X(pin_key0, int32_t, (size_t)m->n_pin)        /* first key in pin_keys, -1 = none */        \
  X(pin_nkeys, int32_t, (size_t)m->n_pin)                                                     \
  X(pin_keys, double, 4 * (size_t)m->n_pin_keys) /* t, x, y, z */                             \
  /* angle limits: one-sided link a-c */                                                      \
  X(angle_abc, int32_t, 3 * (size_t)m->n_angle)                                               \
  X(angle_min, double, (size_t)m->n_angle)      /* radians, or -1 when absent */              \
  X(angle_max, double, (size_t)m->n_angle)      /* radians, or -1 when absent */              \
  X(angle_stiff, double, (size_t)m->n_angle)                                                  \
  X(angle_compl, double, (size_t)m->n_angle)                                                  \
  /* all constraints in build order: id -> (kind, index k in the kind's arrays) */            \
  X(con_kind, uint8_t, (size_t)m->n_constraints) /* vs_kind */                                \
  X(con_index, int32_t, (size_t)m->n_constraints)                                             \
  /* colliders (static obstacles), plane normals unit length */                               \
  X(colliders, vs_collider_desc, (size_t)m->n_colliders)                                      \
  X(collider_mesh, vs_collider_mesh, (size_t)m->n_colliders)                                  \
  X(mesh_vertices, double, 3 * (size_t)m->n_mesh_vertices) /* mesh colliders, transformed */  \
  X(mesh_triangles, int32_t, 3 * (size_t)m->n_mesh_triangles)                                 \
  /* cloth triangles for viewers */                                                           \
  X(triangles, int32_t, 3 * (size_t)m->n_triangles) /* cloth and mesh bodies */              \
  /* rigid bodies (the solver's own model is private: model/model_private.h) */                                     \
  X(rigid_body, int32_t, (size_t)m->n_rigid)    /* index into bodies (its name) */            \
  X(rigid_x0, double, 3 * (size_t)m->n_rigid)   /* initial centre of mass */                  \
  X(rigid_q0, double, 4 * (size_t)m->n_rigid)   /* initial orientation, unit, w x y z */      \
  X(rigid_v0, double, 3 * (size_t)m->n_rigid)   /* initial velocity */                        \
  X(rigid_w0, double, 3 * (size_t)m->n_rigid)   /* initial angular velocity, world frame */   \
  X(rigid_mass, double, (size_t)m->n_rigid)     /* kg, +inf when fixed */                     \
  X(rigid_inertia, double, 3 * (size_t)m->n_rigid) /* principal moments, +inf when fixed */   \
  X(rigid_shape, int32_t, (size_t)m->n_rigid)   /* vs_rigid_shape */                          \
  X(rigid_size, double, 3 * (size_t)m->n_rigid) /* box extents; sphere [r,0,0]; capsule [r,l,0] */ \
  /* attach: a particle held at a body-local point, both ways */                             \
  X(attach_p, int32_t, (size_t)m->n_attach)     /* particle */                                \
  X(attach_body, int32_t, (size_t)m->n_attach)  /* rigid body (index among the rigid ones) */ \
  X(attach_at, double, 3 * (size_t)m->n_attach) /* body-local point */               \
  /* the wind's keys (world.wind_keys) */                                                    \
  X(wind_keys, double, 4 * (size_t)m->n_wind_keys) /* t, x, y, z */

typedef struct vs_model {
  /* settings (from the scene, after defaults and overrides) */
  double dt;              /* frame step, s */
  double h;               /* substep, dt / substeps */
  int64_t frames;
  int64_t substeps;
  int64_t iterations;
  vs_integrator integrator;
  vs_relaxation relaxation;
  double omega;
  double damping;
  double runaway_speed;   /* m/s; a faster particle fails the run; 0 = no bound */
  int sqrt_approximation; /* Jakobsen's first-order square root in the stick update */
  int swept;              /* continuous collider test along each step's path */
  int shock_propagation;  /* contacts: supported particles are immovable to those above */
  double particle_friction; /* Coulomb coefficient of particle-particle contacts */
  double gravity[3];
  double wind[3];         /* m/s, when n_wind_keys is 0 */
  double air_density;     /* kg/m^3 */
  int aero;               /* some body has drag, lift or air drag (docs/physics.md, "Air") */
  vs_output_desc output;

  /* counts: the arrays below are sized by these (VS_MODEL_FIELDS) */
  int32_t n_particles;
  int32_t n_bodies;
  int32_t n_dist;         /* distance links */
  int32_t n_pin;          /* explicit pins */
  int32_t n_pin_keys;     /* kinematic pin keys, all pins together */
  int32_t n_wind_keys;    /* world.wind_keys */
  int32_t n_angle;        /* angle limits */
  int32_t n_constraints;  /* all kinds */
  int32_t n_colliders;
  int32_t n_triangles;
  int32_t n_mesh_colliders;
  int32_t n_mesh_vertices;  /* all mesh colliders together */
  int32_t n_mesh_triangles;

  int32_t n_rigid;        /* rigid bodies (VS_BODY_RIGID), in file order */
  int32_t n_rjoints;      /* rigid joints (ball, body-point distance, weld, hinge, slider) */
  int32_t n_rjoints_more; /* n_rjoints when a weld, hinge or slider is among them, else 0 */
  int32_t n_attach;       /* particles attached to rigid bodies */
  int32_t rigid_max_contacts; /* bound of the rigid contact cache */
  int32_t rigid_sleep;    /* solver.rigid.sleep: the state holds each body's time at rest */

  int32_t n_rigid_damped; /* bodies with damping_rigid > 0 */
  int32_t n_tearable;     /* links with a breaking length (0: none can ever die) */
  int32_t n_colors;       /* graph colours the constraints were split into (vsim validate) */
  int particle_collisions;
  double radius_max;      /* largest particle radius */
  int32_t n_colliding;    /* particles with radius > 0 */

#define VS_MODEL_DECL(name, type, count) type *name;
  VS_MODEL_FIELDS(VS_MODEL_DECL)
#undef VS_MODEL_DECL

  struct vs_model_private *priv; /* the library's own (above): opaque */
} vs_model;

/* Compile a scene.  On failure *out stays NULL and err points at the scene
 * item at fault (e.g. "scene.yaml:31:12: constraints.0.a: no body named 'rop'"). */
vs_status vs_model_build(const vs_scene *scene, vs_model **out, vs_error *err);

void vs_model_free(vs_model *model);

/* Particles of constraint `id` (build order) into out[0 .. arity - 1]
 * (the rest -1); returns the arity of its kind. */
int vs_model_constraint_particles(const vs_model *model, int32_t id, int32_t out[VS_MAX_ARITY]);

/* Constraints of one kind in the model (m->n_dist, m->n_pin, m->n_angle). */
int32_t vs_model_kind_count(const vs_model *model, vs_kind kind);

/* Target position of explicit pin k at time t into out[3]: its fixed point,
 * or its key path, linear between [t, x, y, z] keys and held before the
 * first and after the last. */
void vs_model_pin_target(const vs_model *model, int32_t k, double t, double out[3]);

/* Resolve a particle reference ("NAME:INDEX", "NAME:I,J", "NAME:I,J,K" or a
 * global index) against the built bodies. */
vs_status vs_model_resolve_ref(const vs_model *model, const char *text,
                               int32_t *index, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
