/* vsim/model.h: the compiled, immutable model (like MuJoCo's mjModel).
 *
 * Stage 2: vs_model_build() turns a vs_scene into flat arrays.  Nothing that
 * stepping does changes a model; everything that changes lives in vs_state.
 * Particle data is packed four doubles a particle (x, y, z, inverse mass) so
 * that one constraint's gather touches one cache line per particle; each
 * constraint kind is a structure of arrays.  Every array carries its shape. */
#ifndef VSIM_MODEL_H
#define VSIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Constraint kinds as they appear in result files (/observables/constraint_error/<kind>). */
typedef enum vs_kind {
  VS_KIND_DISTANCE = 0, /* every two-particle link: body links and explicit distances */
  VS_KIND_PIN,          /* explicit pin constraints (fixed or kinematic) */
  VS_KIND_ANGLE,        /* one-sided law-of-cosines links a-c */
  VS_KIND_COUNT
} vs_kind;

/* Name used in result files: "distance", "pin", "angle". */
const char *vs_kind_name(vs_kind kind);

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
} vs_body_info;

/* A run of constraints of one kind, consecutive in build order. */
typedef struct vs_block {
  vs_kind kind;
  int32_t start; /* index into that kind's arrays */
  int32_t count;
  int32_t first; /* build-order id of its first constraint */
} vs_block;

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
  vs_output_desc output;

  /* particles */
  int32_t n_particles;
  double *x0;             /* (n_particles x 4) initial x, y, z, inverse mass (0 = pinned) */
  double *v0;             /* (n_particles x 3) initial velocity */
  double *mass;           /* (n_particles) kg, +inf when pinned */
  double *radius;         /* (n_particles) collision radius */
  int32_t *body;          /* (n_particles) body index */

  int32_t n_bodies;
  vs_body_info *bodies;   /* (n_bodies) */
  int32_t n_rigid_damped; /* bodies with damping_rigid > 0 */

  /* distance links, in build order */
  int32_t n_dist;
  int32_t *dist_ab;       /* (n_dist x 2) particle indices */
  double *dist_rest;      /* (n_dist) rest length, or the bound of a one-sided link */
  double *dist_stiff;     /* (n_dist) stiffness (verlet, pbd) */
  double *dist_compl;     /* (n_dist) compliance (xpbd) */
  double *dist_tear;      /* (n_dist) breaking length (tear * rest), 0 = never */
  uint8_t *dist_side;     /* (n_dist) VS_SIDE_* */
  uint8_t *dist_role;     /* (n_dist) vs_link_role */
  double *dist_kw;        /* (n_dist) stiffness * omega / (w_a + w_b), 0 when both pinned */
  int32_t n_tearable;     /* links with a breaking length (0: none can ever die) */

  /* explicit pins */
  int32_t n_pin;
  int32_t *pin_p;         /* (n_pin) particle */
  double *pin_at;         /* (n_pin x 3) fixed target (when no keys) */
  int32_t *pin_key0;      /* (n_pin) first key in pin_keys, -1 = none */
  int32_t *pin_nkeys;     /* (n_pin) */
  double *pin_keys;       /* (total keys x 4) t, x, y, z */

  /* angle limits: one-sided link a-c (issue 5) */
  int32_t n_angle;
  int32_t *angle_abc;     /* (n_angle x 3) */
  double *angle_min;      /* (n_angle) radians, or -1 when absent */
  double *angle_max;      /* (n_angle) radians, or -1 when absent */
  double *angle_stiff;    /* (n_angle) */
  double *angle_compl;    /* (n_angle) */

  /* all constraints in build order: global id -> (kind, index in kind arrays) */
  int32_t n_constraints;
  uint8_t *con_kind;      /* (n_constraints) vs_kind */
  int32_t *con_index;     /* (n_constraints) */
  int32_t n_blocks;
  vs_block *blocks;       /* (n_blocks) runs of one kind in build order */

  /* colliders (static obstacles) */
  int32_t n_colliders;
  vs_collider_desc *colliders; /* (n_colliders), plane normals unit length */

  /* cloth triangles for viewers */
  int32_t n_triangles;
  int32_t *triangles;     /* (n_triangles x 3) */

  /* graph colouring (computed at build for every relaxation; used by jacobi) */
  int32_t n_colors;
  int32_t *color;         /* (n_constraints) colour of each constraint */
  int32_t *color_start;   /* (n_colors + 1) offsets into color_order */
  int32_t *color_order;   /* (n_constraints) constraint ids, grouped by colour, build order inside */
  int32_t color_overflow; /* colour whose constraints may share particles (solved in
                             build order on one thread), or -1 when every colour is clean */

  /* The distance links again, laid out colour by colour for the coloured
   * Jacobi kernel (structure of arrays; inside a colour the two-sided links
   * come first, in build order, then the one-sided ones).  The overflow
   * colour is not here: it is solved through color_order. */
  int32_t *jd_ab;         /* (n_dist x 2) particles */
  double *jd_rest;        /* (n_dist) rest length or one-sided bound */
  double *jd_kw;          /* (n_dist) stiffness * omega / (w_a + w_b), 0 when both pinned */
  double *jd_compl;       /* (n_dist) compliance */
  double *jd_wsum;        /* (n_dist) w_a + w_b */
  int32_t *jd_id;         /* (n_dist) the link's index in the distance arrays */
  int32_t *jd_slot;       /* (n_dist) the link's build-order id: its xpbd multiplier slot */
  int32_t *jd_start;      /* (n_colors + 1) first link of each colour */
  int32_t *jd_two_sided;  /* (n_colors) two-sided links at the start of each colour */
  int32_t *jo_ids;        /* (n_constraints - n_dist) other constraints, grouped by colour */
  int32_t *jo_start;      /* (n_colors + 1) */

  int particle_collisions;
  double radius_max;      /* largest particle radius */
  int32_t n_colliding;    /* particles with radius > 0 */
  int32_t *adj_start;     /* (n_particles + 1) linked neighbours, CSR (particle collisions) */
  int32_t *adj;           /* (2 n_dist) neighbour indices, ascending per particle */
} vs_model;

/* Compile a scene.  On failure *out stays NULL and err points at the scene
 * item at fault (e.g. "scene.yaml:31:12: constraints.0.a: no body named 'rop'"). */
vs_status vs_model_build(const vs_scene *scene, vs_model **out, vs_error *err);

void vs_model_free(vs_model *model);

/* Particles of constraint `id` (build order) into out[3], -1 for unused slots. */
void vs_model_constraint_particles(const vs_model *model, int32_t id, int32_t out[3]);

/* Resolve a particle reference ("NAME:INDEX", "NAME:I,J", "NAME:I,J,K" or a
 * global index) against the built bodies. */
vs_status vs_model_resolve_ref(const vs_model *model, const char *text,
                               int32_t *index, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
