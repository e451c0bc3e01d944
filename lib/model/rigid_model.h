/* SPDX-License-Identifier: MIT */
/* rigid_model.h (private): the rigid solver's model -- what does not change
 * in a run -- and its state -- what a checkpoint must hold --, both flat
 * arrays with no pointers into each other, and the per-shape table.  The
 * solver itself (solve/rigid/rigid.h) adds its per-step work buffers.
 *
 * Every per-body array has one slot more than there are bodies: slot n is
 * "the world" (zero velocity, zero inverse mass, identity pose at the
 * origin), which colliders and world-anchored joints use.  Kinds (shapes,
 * colliders, joints) are the tables of vsim/kind.h. */
#ifndef VSIM_MODEL_RIGID_MODEL_H
#define VSIM_MODEL_RIGID_MODEL_H

#include <stdint.h>

#include "vsim/error.h"
#include "vsim/kind.h"
#include "model/hull.h"

#define VS_RPRIVATE __attribute__((visibility("hidden")))


/* Points of one manifold (box-box: clipping gives at most 4). */
#define VS_RIGID_MANIFOLD 4
/* Most points one body-collider test writes (bounds: a box in a corner). */
#define VS_RIGID_PAIR_MAX 24
/* Contact points per body and per step that the default buffer holds:
 * max_contacts = VS_RIGID_CONTACTS_PER_BODY * n_bodies + 64 unless the caller
 * asks for another bound.  Contacts beyond the bound are dropped (counted in
 * work.dropped) -- deterministically, the last in order. */
#define VS_RIGID_CONTACTS_PER_BODY 24

typedef struct vs_rcollider {
  int32_t kind;       /* VS_COLLIDER_* */
  double a[3], b[3];  /* plane: point, unit normal; box/bounds: min, max; sphere: centre */
  double radius;      /* sphere */
  double friction, restitution;
  const struct vs_bvh *bvh; /* mesh: the model's BVH over its triangles (borrowed) */
  double thickness;   /* mesh: the skin around its triangles, m */
} vs_rcollider;

typedef struct vs_rsettings {
  int32_t iterations;           /* sequential-impulse sweeps per substep [2] */
  double baumgarte;             /* [0.2] */
  double slop;                  /* m [0.005] */
  double restitution_threshold; /* m/s [0.5] */
  int32_t warm_start;           /* [1] */
  int32_t sleep;                /* islands at rest sleep [0] (solve/rigid/rigid_sleep.c) */
  int32_t geometric_stiffness;  /* the forest's joints' geometric stiffness [0]
                                 * (solve/rigid/rigid_stiff.c) */
  double gravity[3];            /* [0, -9.81, 0] */
  double damping;               /* linear and angular, 1/s [0] */
  double margin;                /* speculative contact distance, m [4 * slop] */
  double max_bias_velocity;     /* cap on the Baumgarte push-out speed, m/s [3] */
  int32_t substeps;             /* solver substeps per step, contacts found once [8] */
  int32_t colored;              /* 1: constraint-graph colours, each solved in parallel
                                 * (relaxation: jacobi); 0: one sequential order [0] */
} vs_rsettings;

/* Prescribed motion and moving surfaces (model/rigid_motion.c;
 * docs/physics.md, "Kinematic bodies and moving surfaces").  A kinematic
 * body has zero inverse mass and inertia, like a fixed one, but its pose is
 * a function of the time: position keys (linear, as pins' keys) or
 * x0 + v t, orientation keys (slerp) or exp(w t) q0; in each substep its
 * velocities are the ones that take it from the pose at the substep's start
 * to the pose at its end. */
typedef struct vs_rmotion {
  int32_t n_bodies;
  uint8_t *kinematic;    /* (n) 1: scripted */
  double *x0, *q0;       /* (n x 3), (n x 4) pose at t = 0 when not keyed */
  double *v, *w;         /* (n x 3) constant velocities when not keyed (w: world frame) */
  int32_t *key0, *nkeys; /* (n) position keys: keys[4 key0 ..], nkeys 0: x0 + v t */
  int32_t *rkey0, *nrkeys; /* (n) orientation keys: rkeys[5 rkey0 ..], nrkeys 0: exp(w t) q0 */
  double *keys;          /* (all position keys x 4) t, x, y, z */
  double *rkeys;         /* (all orientation keys x 5) t, w, x, y, z; each the nearer sign
                          * to the previous key's */
  double *surface;       /* (n x 3) surface velocity in the body's frame, m/s */
  int32_t any_surface;   /* 1: some surface velocity is not zero */
} vs_rmotion;
/* joint_flags: the hinge's and slider's 1-D rows solved after the equality rows */
enum { VS_RJOINT_LIMIT = 1, VS_RJOINT_MOTOR = 2, VS_RJOINT_SPRING = 4, /* hinge, slider */
       VS_RJOINT_CONE = 8, VS_RJOINT_TWIST = 16,                        /* ball */
       VS_RJOINT_SOFT = 32 }; /* a ball with soft angular rows: a weld with hertz > 0 */
/* Accumulated impulses of a joint beyond the first three rows (vs_rstate.joint_more,
 * offsets): equality rows 3..5 at 0..2, then the lower limit (a ball's twist too), the
 * upper limit, the motor, the spring, a ball's cone. */
enum { VS_RJOINT_MORE = 8, VS_RJM_LO = 3, VS_RJM_HI = 4, VS_RJM_MOTOR = 5, VS_RJM_SPRING = 6,
       VS_RJM_CONE = 7 };

typedef struct vs_rmodel {
  int32_t n_bodies;
  int32_t *shape;        /* (n) VS_RSHAPE_* */
  double *size;          /* (n x 3) box: full extents; sphere: [r,0,0]; capsule: [r,length,0] */
  double *inv_mass;      /* (n) 0 when fixed */
  double *inv_inertia;   /* (n x 3) inverse principal moments, body frame; 0 when fixed */
  double *friction;      /* (n) */
  double *restitution;   /* (n) */
  double *bound;         /* (n) bounding-sphere radius about the centre of mass */
  uint32_t *group_bits;  /* (n) 1 << collision_group [1] */
  uint32_t *mask;        /* (n) collision_mask: bodies i and j collide when
                          * group_bits[i] & mask[j] and group_bits[j] & mask[i] [all] */
  int32_t *hull_of;      /* (n) convex bodies: their hull in hulls; -1 for the other shapes */
  int32_t n_hulls;
  vs_hull *hulls;        /* (n_hulls) in the bodies' frames (model/hull.h), owned */

  int32_t n_colliders;
  vs_rcollider *colliders;

  int32_t n_joints;
  int32_t *joint_kind;   /* (nj) VS_RJOINT_* */
  int32_t *joint_ab;     /* (nj x 2) bodies; b = -1: the world (pb is then a world point) */
  double *joint_pa;      /* (nj x 3) body-local anchor on a */
  double *joint_pb;      /* (nj x 3) body-local anchor on b, or world point */
  double *joint_rest;    /* (nj) distance joints: rest length */
  int32_t *joint_collide; /* (nj) 1: the joined bodies still collide with each other [0] */
  /* weld, hinge, slider (docs/physics.md, "Joints") */
  double *joint_axis;    /* (nj x 6) hinge, slider, ball with cone or twist: unit axis in a's frame [0..2], in b's [3..5] */
  double *joint_qrel;    /* (nj x 4) b's orientation in a's frame at the start, conj(qa) qb */
  int32_t *joint_flags;  /* (nj) VS_RJOINT_LIMIT | VS_RJOINT_MOTOR | ... */
  double *joint_limit;   /* (nj x 2) lo, hi: hinge angle (rad), slider travel (m), ball twist (rad) */
  double *joint_cone;    /* (nj) ball: largest angle between a's and b's axis, rad */
  double *joint_motor;   /* (nj x 2) target speed (rad/s, m/s), largest torque (N m) or force (N) */
  double *joint_spring;  /* (nj x 3) hertz, damping ratio, rest (hinge: rad); soft weld's */
  int32_t n_nocollide;   /* pairs joined by a joint that do not collide (vs_rmodel_finish) */
  int64_t *nocollide;    /* (nj) sorted keys lo * n + hi of those pairs */

  int32_t max_contacts;  /* bound of the contact buffers */
  vs_rsettings set;
  vs_rmotion *motion;    /* kinematic bodies and surface velocities; NULL when none */
} vs_rmodel;

/* Everything a checkpoint must hold. */
typedef struct vs_rstate {
  int32_t n_bodies;
  double *x;             /* (n x 3) centre of mass */
  double *q;             /* (n x 4) orientation, unit, w x y z */
  double *v;             /* (n x 3) */
  double *w;             /* (n x 3) angular velocity, world frame */
  /* contact cache of the last step, sorted by key (a, b, feature) */
  int32_t n_cache;
  int32_t *cache_ab;     /* (max_contacts x 2) body a, body b (b < 0: collider -1-b) */
  uint32_t *cache_feature; /* (max_contacts) */
  double *cache_impulse; /* (max_contacts x 4) normal impulse, friction impulse (world vector) */
  double *joint_impulse; /* (nj x 3) accumulated joint impulses (distance: [0]) */
  double *joint_more;    /* (nj x VS_RJOINT_MORE) the rest (weld, hinge, slider); NULL when
                          * the model has none of those (the checkpoint then has no such rows) */
  double *sleep;         /* (n) s each body has been at rest; NULL: sleeping off */
} vs_rstate;

/* One row per shape of VS_RIGID_SHAPES (model/rigid_shapes.c): what the
 * model needs of a shape.  size[3] is the scene's `size` as the shape reads
 * it (vsim/kind.h); sizes a shape does not use are zero. */
typedef struct vs_rshape_row {
  /* VS_OK when the size is valid for the shape (VS_ERR_USAGE otherwise);
   * clears the unused entries */
  int (*size_ok)(double size[3]);
  double (*volume)(const double size[3]);
  /* principal moments (not inverted) for the given mass */
  void (*inertia)(const double size[3], double mass, double I[3]);
  /* radius of the bounding sphere about the centre of mass */
  double (*bound)(const double size[3]);
  /* half extents e of the world box around the shape turned by R (row-major) */
  void (*extent)(const double size[3], const double R[9], double e[3]);
} vs_rshape_row;

/* The row of a shape; NULL outside the table. */
VS_RPRIVATE const vs_rshape_row *vs_rshape_row_of(int32_t shape);

/* Allocate a model with room for n bodies, nc colliders, nj joints (zeroed,
 * settings at their defaults, max_contacts at its default). */
VS_RPRIVATE vs_status vs_rmodel_create(int32_t n, int32_t nc, int32_t nj, vs_rmodel **out);
VS_RPRIVATE void vs_rmodel_free(vs_rmodel *m);
/* After the joints are set: the sorted list of joined body pairs that do not
 * collide (joint_collide 0), which the broad phase skips. */
VS_RPRIVATE void vs_rmodel_finish(vs_rmodel *m);
/* Whether bodies i != j may collide: their groups and masks agree and no
 * joint between them says otherwise. */
VS_RPRIVATE int vs_rmodel_may_collide(const vs_rmodel *m, int32_t i, int32_t j);
VS_RPRIVATE void vs_rsettings_default(vs_rsettings *s);
/* Set body i's shape and mass properties: mass > 0, or density > 0 when
 * mass <= 0; fixed gives infinite mass.  size as in vs_rmodel.size.
 * Returns VS_ERR_USAGE for a bad shape or non-positive size/mass. */
VS_RPRIVATE vs_status vs_rmodel_set_body(vs_rmodel *m, int32_t i, int32_t shape,
                                         const double size[3], double mass, double density,
                                         int fixed, double friction, double restitution);
/* Set body i to convex hull h (moved into the model: h is left empty),
 * its mass properties the hull's; as vs_rmodel_set_body otherwise. */
VS_RPRIVATE vs_status vs_rmodel_set_hull(vs_rmodel *m, int32_t i, vs_hull *h, double mass,
                                         double density, int fixed, double friction,
                                         double restitution);
/* Body i's hull; NULL unless it is convex. */
static inline const vs_hull *vs_rmodel_hull(const vs_rmodel *m, int32_t i) {
  return m->hull_of[i] >= 0 ? &m->hulls[m->hull_of[i]] : NULL;
}
/* Principal moments (not inverted) of a shape of the given mass. */
VS_RPRIVATE void vs_rigid_inertia(int32_t shape, const double size[3], double mass,
                                  double inertia[3]);
VS_RPRIVATE double vs_rigid_volume(int32_t shape, const double size[3]);

/* Room for n bodies' motion with nk position and nr orientation keys (zeroed,
 * identity q0); NULL when out of memory. */
VS_RPRIVATE vs_rmotion *vs_rmotion_create(int32_t n, int64_t nk, int64_t nr);
VS_RPRIVATE void vs_rmotion_free(vs_rmotion *mo);
/* Bytes vs_rmotion_create takes (the memory estimate, model/estimate.c). */
VS_RPRIVATE uint64_t vs_rmotion_bytes(int64_t n, int64_t nk, int64_t nr);
/* The pose of kinematic body i at time t (s): exactly the keys' interpolation
 * (held before the first and after the last key) or the constant velocities'
 * motion from the initial pose. */
VS_RPRIVATE void vs_rmotion_pose(const vs_rmotion *mo, int32_t i, double t, double x[3],
                                 double q[4]);
/* Whether body i is kinematic. */
static inline int vs_rmodel_kinematic(const vs_rmodel *m, int32_t i) {
  return m->motion && i < m->n_bodies && m->motion->kinematic[i];
}

/* Bytes that vs_rmodel_create, vs_rstate_create and vs_rwork_create take
 * for n bodies, nc colliders and nj joints at the default max_contacts, with
 * solver.rigid.sleep or not (the
 * memory estimate, model/estimate.c). */
VS_RPRIVATE uint64_t vs_rigid_bytes(int64_t n, int64_t nc, int64_t nj, int sleep);
#endif
