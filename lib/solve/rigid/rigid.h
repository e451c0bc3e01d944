/* rigid.h (private): the rigid-body solver core -- boxes, spheres and
 * capsules with orientation and inertia, solved at the velocity level by
 * sequential impulses (Catto; docs cite seed 004) with the impulse response
 * and effective mass of seed 003.
 *
 * Self-contained for now: a rigid "model" (what does not change in a run)
 * and a rigid "state" (what a checkpoint must hold), both flat arrays with
 * no pointers into each other, so that they can become rows of vs_model and
 * fields of vs_state.  A "work" struct holds the per-step scratch (contact
 * constraints, broad-phase arrays); it is allocated once with the state and
 * the step never allocates.  Every per-body array has one slot more than
 * there are bodies: slot n is "the world" (zero velocity, zero inverse mass,
 * identity pose at the origin), which colliders and world-anchored joints use.
 *
 * Conventions: quaternions are [w, x, y, z]; angular velocity is in the world
 * frame; a contact normal points from body a to body b (a < b; b = -1 never:
 * a collider is always side b with index -1 - collider).  Depth > 0 means
 * penetration, depth < 0 a gap (speculative contact). */
#ifndef VSIM_RIGID_H
#define VSIM_RIGID_H

#include <math.h>
#include <stdint.h>

#include "vsim/error.h"

#define VS_RPRIVATE __attribute__((visibility("hidden")))

enum { VS_RSHAPE_BOX = 0, VS_RSHAPE_SPHERE = 1, VS_RSHAPE_CAPSULE = 2 };
/* Same numbering as vs_collider_kind. */
enum { VS_RCOLL_PLANE = 0, VS_RCOLL_SPHERE = 1, VS_RCOLL_BOX = 2, VS_RCOLL_BOUNDS = 3, VS_RCOLL_MESH = 4 };
enum { VS_RJOINT_BALL = 0, VS_RJOINT_DISTANCE = 1 };

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
  int32_t kind;       /* VS_RCOLL_* */
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
  double gravity[3];            /* [0, -9.81, 0] */
  double damping;               /* linear and angular, 1/s [0] */
  double margin;                /* speculative contact distance, m [4 * slop] */
  double max_bias_velocity;     /* cap on the Baumgarte push-out speed, m/s [3] */
  int32_t substeps;             /* solver substeps per step, contacts found once [4] */
  int32_t colored;              /* 1: constraint-graph colours, each solved in parallel
                                 * (relaxation: jacobi); 0: one sequential order [0] */
} vs_rsettings;

typedef struct vs_rmodel {
  int32_t n_bodies;
  int32_t *shape;        /* (n) VS_RSHAPE_* */
  double *size;          /* (n x 3) box: full extents; sphere: [r,0,0]; capsule: [r,length,0] */
  double *inv_mass;      /* (n) 0 when fixed */
  double *inv_inertia;   /* (n x 3) inverse principal moments, body frame; 0 when fixed */
  double *friction;      /* (n) */
  double *restitution;   /* (n) */
  double *bound;         /* (n) bounding-sphere radius about the centre of mass */

  int32_t n_colliders;
  vs_rcollider *colliders;

  int32_t n_joints;
  int32_t *joint_kind;   /* (nj) VS_RJOINT_* */
  int32_t *joint_ab;     /* (nj x 2) bodies; b = -1: the world (pb is then a world point) */
  double *joint_pa;      /* (nj x 3) body-local anchor on a */
  double *joint_pb;      /* (nj x 3) body-local anchor on b, or world point */
  double *joint_rest;    /* (nj) distance joints: rest length */

  int32_t max_contacts;  /* bound of the contact buffers */
  vs_rsettings set;
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
} vs_rstate;

/* One contact point (work array, rebuilt every step).  The fields the
 * sweeps read for every point come first, together (a few cache lines). */
typedef struct vs_rcontact {
  double n[3];           /* unit, from a to b */
  double an[3], bn[3];   /* r x n */
  double ian[3], ibn[3]; /* I^-1 (r x n) */
  double mass_n;
  double target, bias;   /* this substep: normal target velocity, split-impulse push (> 0) */
  double pn, pp;         /* accumulated normal impulse, pseudo impulse (this substep) */
  double pn_max;         /* largest normal impulse over the substeps */
  double depth;          /* at the step's start (> 0: penetration) */
  int32_t ia, ib;        /* body slots (b < 0 -> the world slot n) */
  double friction;       /* the pair's */
  /* the narrow phase's output and the rest of prepare */
  int32_t a, b;          /* bodies (b < 0: collider -1-b) */
  uint32_t feature;
  double p[3];           /* world point (midway between the surfaces) */
  double ra[3], rb[3];   /* contact point relative to the centres */
  double restitution;
  double vn0;            /* normal approach velocity before the step */
  double fcache[3];      /* friction vector found in the cache (warm start) */
} vs_rcontact;

/* Per-point friction rows of a contact that is not part of a patch
 * (vs_rwork.fric, same index as the contact): kept apart so that the contacts
 * the sweeps stream over stay small (most points are in patches). */
typedef struct vs_rfric {
  double pt1, pt2;       /* accumulated impulses */
  double mass_t1, mass_t2;
  double t1[3], t2[3];   /* tangents */
  double a1[3], b1[3], a2[3], b2[3];     /* r x direction */
  double ia1[3], ib1[3], ia2[3], ib2[3]; /* I^-1 (r x direction) */
} vs_rfric;

/* Friction of a manifold whose points share one normal (a patch), solved at
 * the points' centre (rigid_solve.c); per-point friction otherwise. */
typedef struct vs_rpatch {
  int32_t on;
  double n[3], t1[3], t2[3];
  double a1[3], b1[3], a2[3], b2[3], ia1[3], ib1[3], ia2[3], ib2[3];
  double iaw[3], ibw[3]; /* I^-1 n: the twist row */
  double mass_t1, mass_t2, mass_tw;
  double friction, rtw;  /* rtw: mean distance of the points from the centre */
  double pt1, pt2, ptw;  /* accumulated impulses */
} vs_rpatch;

typedef struct vs_rwork {
  int32_t max_contacts;
  int32_t n_contacts;
  int32_t dropped;       /* contact points beyond the bound in the last step */
  int32_t matched;       /* contact points warm-started from the cache in the last step */
  uint32_t sweep;        /* solver sweeps in this step (parity alternates point order) */
  int32_t fresh;         /* the next sweep is its substep's first (separations to compute):
                          * 1, or 2 when w->dp is still zero (the step's first substep) */
  vs_rcontact *contacts;
  vs_rfric *fric;        /* (max_contacts + 1) per contact, set only for points outside a patch */
  double *inv_iw;        /* (n x 9) world inverse inertia */
  double *q_old;         /* (n x 4) orientation at the start of the position update */
  double *dp;            /* (n x 6) displacement and rotation vector since the step began */
  double *pv;            /* (n x 6) pseudo velocities of the position bias (split impulse) */
  int32_t *order;        /* (n) bodies sorted by AABB min x */
  double *aabb;          /* (n x 6) */
  double *key;           /* (n) sort keys */
  int32_t *tmp;          /* (n) merge-sort scratch */
  int32_t n_pairs;
  int64_t *pairs;        /* (max_contacts) candidate pairs i * n + j, sorted */
  int64_t *pair_tmp;     /* (max_contacts) merge-sort scratch */
  double *joint;         /* (nj x VS_RJOINT_WORK) ra, rb, K^-1 (9) or axis, bias (3) */
  int32_t n_man;         /* manifolds (runs of contacts of one body pair) of this step */
  int32_t *man;          /* (max_contacts + 1) first contact of each manifold, then n_contacts */
  vs_rpatch *patch;      /* (max_contacts + 1) per manifold */
  /* constraint-graph colours (settings.colored; rigid_color.c) */
  int threads;           /* team size for the colours (set by the caller; never changes results) */
  int32_t n_words;       /* 64-bit words of one colour's body set */
  uint64_t *color_bits;  /* (VS_RCOLORS x n_words) bodies each colour touches */
  int32_t *color_start;  /* (VS_RCOLORS + 2) items of colour c: color_items[start[c] .. start[c+1]) */
  int32_t *color_items;  /* (nj + max_contacts) joint j as -1 - j, manifold as its index */
  int32_t *item_color;   /* (nj + max_contacts) scratch */
  /* the sequential sweeps' manifold order (rigid_order.c) and its scratch */
  int32_t *sorder;       /* (max_contacts + 1) manifolds in sweep order */
  int32_t *ord_last;     /* (n + 1) last manifold touching each body */
  int32_t *ord_succ;     /* (2 x (max_contacts + 1)) successor per body slot */
  int32_t *ord_npred, *ord_heap, *ord_queue, *ord_when; /* (max_contacts + 1) */
} vs_rwork;

/* Colours of the constraint graph; constraints that find no free colour go
 * to an overflow colour (index VS_RCOLORS), solved in order on one thread. */
#define VS_RCOLORS 24
/* A colour of fewer constraints runs on one thread (the results are the same). */
#define VS_RPAR_ITEMS 32

#define VS_RJOINT_WORK 24

/* Consecutive manifolds of the sequential order that touch distinct moving
 * bodies where the constraint graph allows (rigid_order.c). */
#define VS_RORDER_WINDOW 4

/* ---- model / state / work ---- */

/* Allocate a model with room for n bodies, nc colliders, nj joints (zeroed,
 * settings at their defaults, max_contacts at its default). */
VS_RPRIVATE vs_status vs_rmodel_create(int32_t n, int32_t nc, int32_t nj, vs_rmodel **out);
VS_RPRIVATE void vs_rmodel_free(vs_rmodel *m);
VS_RPRIVATE void vs_rsettings_default(vs_rsettings *s);
/* Set body i's shape and mass properties: mass > 0, or density > 0 when
 * mass <= 0; fixed gives infinite mass.  size as in vs_rmodel.size.
 * Returns VS_ERR_USAGE for a bad shape or non-positive size/mass. */
VS_RPRIVATE vs_status vs_rmodel_set_body(vs_rmodel *m, int32_t i, int32_t shape,
                                         const double size[3], double mass, double density,
                                         int fixed, double friction, double restitution);
/* Principal moments (not inverted) of a shape of the given mass. */
VS_RPRIVATE void vs_rigid_inertia(int32_t shape, const double size[3], double mass,
                                  double inertia[3]);
VS_RPRIVATE double vs_rigid_volume(int32_t shape, const double size[3]);

VS_RPRIVATE vs_status vs_rstate_create(const vs_rmodel *m, vs_rstate **out);
VS_RPRIVATE void vs_rstate_free(vs_rstate *s);
VS_RPRIVATE vs_status vs_rwork_create(const vs_rmodel *m, vs_rwork **out);
/* Bytes that vs_rmodel_create, vs_rstate_create and vs_rwork_create take
 * for n bodies, nc colliders and nj joints at the default max_contacts (the
 * memory estimate, model/estimate.c). */
VS_RPRIVATE uint64_t vs_rigid_bytes(int64_t n, int64_t nc, int64_t nj);
VS_RPRIVATE void vs_rwork_free(vs_rwork *w);

/* The bodies in order of the low x of their bounding spheres (key[i] =
 * x_i - bound_i; ties by index): order, tmp and key hold n_bodies each. */
VS_RPRIVATE void vs_rigid_sort_spheres(const vs_rmodel *m, const vs_rstate *s, int32_t *order,
                                       int32_t *tmp, double *key);

/* ---- quaternions (w, x, y, z) ---- */
VS_RPRIVATE void vs_quat_mul(const double a[4], const double b[4], double out[4]);
VS_RPRIVATE void vs_quat_normalize(double q[4]);
VS_RPRIVATE void vs_quat_to_mat(const double q[4], double R[9]); /* row-major */
/* Degrees about the fixed x, then y, then z axes. */
VS_RPRIVATE void vs_quat_from_euler_deg(const double deg[3], double q[4]);
VS_RPRIVATE void vs_quat_from_axis_angle(const double axis[3], double angle, double q[4]);
/* q <- exp(h/2 * w) q, renormalised (w in the world frame). */
VS_RPRIVATE void vs_quat_integrate(double q[4], const double w[3], double h);

/* ---- collision ---- */
/* Contacts between bodies i < j (or body i and collider c) appended to out
 * (at most VS_RIGID_MANIFOLD, colliders VS_RIGID_PAIR_MAX); returns the count.  Only points with
 * depth > -margin are returned. */
/* Closest points of segments p0-p1 and q0-q1: the parameters s, t in
 * [0, 1] (Ericson, Real-Time Collision Detection, 5.1.9); rigid_collide.c. */
VS_RPRIVATE void vs_r_seg_seg(const double p0[3], const double p1[3], const double q0[3],
                              const double q1[3], double *s_out, double *t_out);
VS_RPRIVATE int vs_rigid_collide_pair(const vs_rmodel *m, const vs_rstate *s, int32_t i,
                                      int32_t j, double margin, vs_rcontact *out);
VS_RPRIVATE int vs_rigid_collide_collider(const vs_rmodel *m, const vs_rstate *s, int32_t i,
                                          int32_t c, double margin, vs_rcontact *out);
/* Body i against mesh collider c (rigid_collide_mesh.c): at most 4 points
 * per flat patch and 12 in all (<= VS_RIGID_PAIR_MAX), sorted by feature. */
VS_RPRIVATE int vs_rigid_collide_mesh(const vs_rmodel *m, const vs_rstate *s, int32_t i,
                                      int32_t c, double margin, vs_rcontact *out);
/* Broad and narrow phase for the whole model: fills work->contacts, sorted by
 * (a, b, feature). */
VS_RPRIVATE void vs_rigid_find_contacts(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w);
/* Penetration of a sphere (centre p, radius r) into body i: returns 1 when
 * depth > -margin, with the unit normal from the body to the sphere, the depth
 * and the point on the body's surface. */
VS_RPRIVATE int vs_rigid_point_query(const vs_rmodel *m, const vs_rstate *s, int32_t i,
                                     const double p[3], double r, double margin,
                                     double n[3], double *depth, double pt[3]);

/* ---- solver ---- */
/* Constraint-graph colours of this step's joints and manifolds (after
 * vs_rigid_prepare): no two constraints of a colour share a body of non-zero
 * inverse mass.  Greedy, in identity order: joints by index, then manifolds
 * by (a, b); each takes the lowest colour free for both its bodies. */
VS_RPRIVATE void vs_rigid_color(const vs_rmodel *m, vs_rwork *w);
/* The sequential sweeps' manifold order (after vs_rigid_prepare; not used
 * by the coloured solve): identity order where manifolds share a moving
 * body, so the same bits, interleaved elsewhere (rigid_order.c). */
VS_RPRIVATE void vs_rigid_order(const vs_rmodel *m, vs_rwork *w);
/* Per step: anchors, effective masses, warm-start impulses from the cache. */
VS_RPRIVATE void vs_rigid_prepare(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
/* Per substep of length h. */
VS_RPRIVATE void vs_rigid_prepare_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
VS_RPRIVATE void vs_rigid_substep_begin(const vs_rmodel *m, vs_rwork *w, double h);
VS_RPRIVATE void vs_rigid_warm_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
VS_RPRIVATE void vs_rigid_solve_iteration(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                          double h, int use_bias);
VS_RPRIVATE void vs_rigid_project_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
/* After the substeps. */
VS_RPRIVATE void vs_rigid_restitution(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
VS_RPRIVATE void vs_rigid_store_impulses(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w);

/* ---- step ---- */
/* One step of length h: velocities, contacts, impulses, positions. */
VS_RPRIVATE void vs_rigid_step(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h);

/* Two-way coupling with a particle of inverse mass wp (0: pinned) and radius r
 * at position p (in/out), solved at the position level as the particle solver
 * does: a penetration d along n is split between the particle (moved by
 * wp/(wp+wb) of it) and the body, which gets the opposite impulse
 * -lambda/h at the contact point in its velocities (wb is the body's
 * generalised inverse mass there).  The particle's momentum changes by
 * lambda/h (its Verlet/PBD velocity is (x - x_prev)/h), the body's by
 * -lambda/h: an isolated pair keeps its linear and angular momentum.
 * Returns 1 on contact and the impulse given to the particle in impulse[3]
 * (may be NULL). */
VS_RPRIVATE int vs_rigid_particle_contact(const vs_rmodel *m, vs_rstate *s, int32_t body,
                                          double p[3], double wp, double r, double h,
                                          double impulse[3]);

/* Linear and angular momentum (about the origin) and kinetic energy of all bodies. */
VS_RPRIVATE void vs_rigid_momentum(const vs_rmodel *m, const vs_rstate *s, double P[3],
                                   double L[3], double *energy);

/* ---- small vector helpers ---- */
static inline double vs_r_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void vs_r_cross(const double a[3], const double b[3], double o[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
/* R is row-major; columns are the body axes in the world frame. */
static inline void vs_r_mul(const double R[9], const double v[3], double o[3]) {
  double x = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
  double y = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
  double z = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
static inline void vs_r_mul_t(const double R[9], const double v[3], double o[3]) {
  double x = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
  double y = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
  double z = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
static inline double vs_r_len(const double a[3]) { return sqrt(vs_r_dot(a, a)); }

#endif
