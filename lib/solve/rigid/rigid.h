/* SPDX-License-Identifier: MIT */
/* rigid.h (private): the rigid-body solver core -- boxes, spheres and
 * capsules with orientation and inertia, solved at the velocity level by
 * sequential impulses (Catto, "Iterative dynamics with temporal coherence",
 * 2005) with the impulse response and effective mass of rigid-body
 * interaction by impulses (a 2003 thesis on rigid-body collisions).
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


#include "model/rigid_model.h"
#include "util/quat.h"
#include "util/vec3.h"

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
  double s1, s2;         /* target relative velocity along t1, t2: the surfaces' (0: none) */
} vs_rfric;

/* Friction of a manifold whose points share one normal (a patch), solved at
 * the points' centre (rigid_solve.c); per-point friction otherwise. */
typedef struct vs_rpatch {
  int32_t on;
  /* the normal rows as a block (rigid_block.c), read by every sweep: next
   * to the friction rows, in the same cache lines */
  int32_t blk;           /* 1, or 2 until a sweep first needs K (formed then); 0: row by row */
  uint32_t aset;         /* the block's active set of the last sweep (bits; 0: none) */
  double ainv[10];       /* the inverse of K's rows and columns in aset (zero elsewhere;
                          * symmetric, packed: vs_block_at) */
  double n[3], t1[3], t2[3];
  double a1[3], b1[3], a2[3], b2[3], ia1[3], ib1[3], ia2[3], ib2[3];
  double iaw[3], ibw[3]; /* I^-1 n: the twist row */
  double mass_t1, mass_t2, mass_tw;
  double friction, rtw;  /* rtw: mean distance of the points from the centre */
  double pt1, pt2, ptw;  /* accumulated impulses */
  double psum;           /* block patches: the points' normal impulses summed in point order
                          * (prepare, then each sweep's block; the friction's limit) */
  double s1, s2;         /* target relative velocity along t1, t2: the surfaces' (0: none) */
  double K[10];          /* the block's matrix (regularised; symmetric, packed: vs_block_at) */
} vs_rpatch;

/* The joints that form a forest, solved exactly (rigid_tree.c): nodes are
 * the moving bodies of those joints and the joints, in blocks of 6 (body),
 * a joint's rows (ball 3, distance 1, hinge and slider 5, weld 6). */
typedef struct vs_rtree {
  int32_t n_tree_joints; /* joints solved here; the others by sequential rows */
  int32_t n_tree_axes;   /* of them, joints with axis rows (joint_flags: limits, cone...) */
  int32_t n_nodes;
  uint8_t *in_tree;      /* (nj) 1: joint j is solved here */
  int8_t *kind;          /* (nodes) 0 body, 1 joint */
  int32_t *id;           /* (nodes) body or joint index */
  int8_t *dim;           /* (nodes) 6 (a body), or the joint's rows */
  int32_t *parent;       /* (nodes) parent node, -1 at a root */
  int32_t *order;        /* (nodes) leaves first (the identity: nodes are numbered in it) */
  double *dinv;          /* (nodes x 36) inverted pivots, dim x dim at row stride 6 */
  double *lblk;          /* (nodes x 72) L = D^-1 H[k][parent] (dim x dim(parent)), then L^T,
                          * both at row stride 6 */
  double *y;             /* (nodes x 6) right-hand side, then solution */
  double *rot;           /* (n + 1) x 9: the bodies' rotation matrices at the pose the
                          * joints last read (rigid_joint.c: vs_rigid_prepare_joints,
                          * vs_rjoint_pose); NULL without joints */
  double *axis;          /* (nj x 3 x VS_RAXIS_CACHE) each joint's axis rows as
                          * vs_rjoint_axis_rows gives them, for the w->joint they were
                          * made from (rigid_joint.c); NULL without joints */
  uint8_t *axis_ok;      /* (nj) bit k: slot k of axis holds the rows of this w->joint */
  double *fpose;         /* (nodes x 7) a body node's x and q at the last factorisation */
  int32_t fvalid;        /* 1: dinv and lblk are the factor of the pose in fpose */
  double *normals;       /* (nj x 6) the two normals of each joint's axis in a's frame
                          * (rigid_joint.c: vs_rjoint_normals); NULL without joints */
  double *gs;            /* ((n + 1) x 9) each body's added rotational mass in the factor
                          * (solver.rigid.geometric_stiffness; rigid_stiff.c) */
  double *gs_next;       /* ((n + 1) x 9) the same, of the joints' present impulses */
  double *gs_bound;      /* (n + 1) scratch: a bound of each body's stiffness */
  uint8_t *gs_on;        /* (n + 1) 1: body b's block of gs is not zero */
  uint8_t *gs_on_next;   /* (n + 1) the same for gs_next */
} vs_rtree;
/* An axis row's cache slot: Ja, Jb, Ra, Rb (6 each), its mass. */
#define VS_RAXIS_CACHE 25

typedef struct vs_rwork {
  int32_t max_contacts;
  int32_t n_contacts;
  int32_t dropped;       /* contact points beyond the bound in the last step */
  int32_t matched;       /* contact points warm-started from the cache in the last step */
  int32_t n_bouncy;      /* points of awake manifolds with restitution (vs_rigid_bounce) */
  uint32_t sweep;        /* solver sweeps in this step (parity alternates point order) */
  int32_t fresh;         /* the next sweep is its substep's first (separations to compute):
                          * 1, or 2 when w->dp is still zero (the step's first substep) */
  vs_rcontact *contacts;
  vs_rfric *fric;        /* (max_contacts + 1) per contact, set only for points outside a patch */
  double *inv_iw;        /* (n x 9) world inverse inertia */
  double *dp;            /* (n x 6) displacement and rotation vector since the step began */
  double *pv;            /* (n x 6) pseudo velocities of the position bias (split impulse) */
  double *hit_t;         /* (n + 1) time into the substep of a body's last collision (rigid_bounce.c) */
  double h;              /* the step's length (set by vs_rigid_step) */
  const double *air;     /* (n x 2) air drag per unit mass k1, k2, or NULL (set by the caller) */
  double wind[3];        /* m/s, when air (set by the caller) */
  double t_end;          /* the step's end time (vs_rigid_kinematic_begin) */
  double *reach;         /* (n) how far each body may travel in the step (rigid_broad.c) */
  int32_t *order;        /* (n) bodies sorted by AABB min on the sweep axis */
  int64_t broad_tests;   /* box tests of the last broad phase (bounded work: tested) */
  double *aabb;          /* (n x 6) */
  double *key;           /* (n) sort keys */
  int32_t *tmp;          /* (n) merge-sort scratch */
  int32_t n_pairs;
  int64_t *pairs;        /* (max_contacts) candidate pairs i * n + j, sorted */
  int64_t *pair_tmp;     /* (max_contacts) merge-sort scratch */
  double *joint;         /* (nj x VS_RJOINT_WORK) ra, rb, K^-1 (9) or axis, bias (3) */
  vs_rtree tree;         /* the joints solved exactly (rigid_tree.c) */
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
  /* called at the end of every substep's position update, before the
   * joints' position passes (rigid_couple.c: the particles attached to
   * bodies); NULL: none.  It may move bodies and must add what it moves them
   * by to dp. */
  void (*substep_hook)(void *ctx, const vs_rmodel *m, vs_rstate *s, struct vs_rwork *w);
  void *hook_ctx;
  /* the sequential sweeps' manifold order (rigid_order.c) and its scratch */
  int32_t *sorder;       /* (max_contacts + 1) awake manifolds in sweep order (VS_RORDER_PAIR) */
  int32_t n_sorder;      /* manifolds in sorder: n_man less those asleep */
  /* islands at rest (rigid_sleep.c) */
  int32_t *island;       /* (n + 1) union-find parents */
  double *island_min;    /* (n + 1) least time at rest of each island's bodies */
  uint8_t *asleep;       /* (n + 1) 1: the body sleeps this step (all 0 when sleeping is off) */
  /* with sleeping on (else NULL): the last step's contacts and the poses of
   * its narrow phase, which bodies asleep since then keep (rigid_broad.c) */
  vs_rcontact *prev_contacts; /* (max_contacts + 1) */
  double *last_x, *last_q;    /* (n x 3), (n x 4) */
  int32_t n_prev;
  uint8_t *frozen;            /* (n + 1) scratch */
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
/* Most equality rows of a joint kind (weld) */
#define VS_RJOINT_MAX_ROWS 6

/* Consecutive manifolds of the sequential order that touch distinct moving
 * bodies where the constraint graph allows (rigid_order.c). */
#define VS_RORDER_WINDOW 4
/* An entry of vs_rwork.sorder with this bit set and the next one share no
 * moving body: the sweeps run the two in lockstep (rigid_solve.c); the
 * manifold is the entry & VS_RORDER_ID. */
#define VS_RORDER_PAIR ((int32_t)0x40000000)
#define VS_RORDER_ID ((int32_t)0x3fffffff)

/* ---- model / state / work ---- */

VS_RPRIVATE vs_status vs_rstate_create(const vs_rmodel *m, vs_rstate **out);
VS_RPRIVATE void vs_rstate_free(vs_rstate *s);
VS_RPRIVATE vs_status vs_rwork_create(const vs_rmodel *m, vs_rwork **out);
VS_RPRIVATE void vs_rwork_free(vs_rwork *w);

/* The bodies in order of the low x of their bounding spheres (key[i] =
 * x_i - bound_i; ties by index): order, tmp and key hold n_bodies each. */
VS_RPRIVATE void vs_rigid_sort_spheres(const vs_rmodel *m, const vs_rstate *s, int32_t *order,
                                       int32_t *tmp, double *key);

/* ---- collision ---- */
/* Contacts between bodies i < j (or body i and collider c) appended to out
 * (at most VS_RIGID_MANIFOLD, colliders VS_RIGID_PAIR_MAX); returns the count.  Only points with
 * depth > -margin are returned. */
/* Closest points of segments p0-p1 and q0-q1: the parameters s, t in
 * [0, 1] (Ericson, Real-Time Collision Detection, 5.1.9); rigid_collide.c. */
VS_RPRIVATE void vs_r_seg_seg(const double p0[3], const double p1[3], const double q0[3],
                              const double q1[3], double *s_out, double *t_out);
/* 1 when the narrow phase has a test for shapes sa and sb (every pair of
 * the shape table must: the tests check it). */
VS_RPRIVATE int vs_rigid_pair_known(int32_t sa, int32_t sb);
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
/* Per substep of length h (forest_only: the forest's joints alone, for its
 * position passes). */
VS_RPRIVATE void vs_rigid_prepare_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                         int forest_only);
VS_RPRIVATE void vs_rigid_substep_begin(const vs_rmodel *m, vs_rwork *w, double h);
/* At a substep's start (length h), before any of its impulses: the
 * collisions, bounced and passed on from body to body (rigid_bounce.c). */
VS_RPRIVATE void vs_rigid_bounce(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h);
VS_RPRIVATE void vs_rigid_warm_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
VS_RPRIVATE void vs_rigid_solve_iteration(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                          double h, int use_bias);
VS_RPRIVATE void vs_rigid_project_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
/* After the substeps. */
VS_RPRIVATE void vs_rigid_store_impulses(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w);

/* The normal rows of a patch's n points (2 to 4) as one block (rigid_block.c):
 * K (n x n in a 4 x 4 array, made positive definite) from the points' rows;
 * 0 when it cannot be formed (then row by row). */
VS_RPRIVATE int vs_rigid_block_prepare(const vs_rcontact *c, int n, double msum, double K[10]);
/* Entry (i, j) of a packed symmetric 4 x 4 matrix (rows of the upper
 * triangle: 00 01 02 03, 11 12 13, 22 23, 33). */
static inline int vs_block_at(int i, int j) {
  return i <= j ? i * (7 - i) / 2 + j : j * (7 - j) / 2 + i;
}
/* The inverse of K's rows and columns in the set S (bits), zero elsewhere;
 * 0 when they are not positive definite. */
VS_RPRIVATE int vs_rigid_block_inverse(const double K[10], int n, unsigned S, double inv[10]);
/* The block's LCP: accumulated impulses x (in/out) >= 0 of the rows in mask,
 * with b each row's velocity less its target.  aset (may be NULL): where
 * mask holds every row, the active set found and its inverse (ainv) are
 * kept there for the next sweep. */
VS_RPRIVATE void vs_rigid_block_lcp(int n, const double K[10], unsigned mask, const double *b,
                                    double *x, unsigned *aset, double ainv[10]);

/* ---- joints (rigid_joint.c): one row of the joint table per kind ---- */
typedef struct vs_rjoint_row vs_rjoint_row;
/* The row of a joint kind; NULL outside the table (every kind must have one:
 * the tests check it). */
VS_RPRIVATE const vs_rjoint_row *vs_rjoint_row_of(int32_t kind);
/* Rows of a kind's constraint (3 ball, 1 distance, 6 weld, 5 hinge and
 * slider; at most VS_RJOINT_MAX_ROWS). */
VS_RPRIVATE int vs_rjoint_rows(int32_t kind);
/* The two unit normals p[0..2], p[3..5] of joint j's axis in a's frame
 * (constant: made once, vs_rigid_tree_build). */
VS_RPRIVATE void vs_rjoint_normals(const vs_rmodel *m, int32_t j, double p[6]);
/* 1: the kind's first three rows are the anchors' ([-+I | ...] on a body) and
 * its other rows turn alone (no linear part): rigid_tree.c's kernels skip
 * those zeros. */
VS_RPRIVATE int vs_rjoint_anchored(int32_t kind);
/* Joint j's rows x 6 Jacobian block on its body at end 0 (a) or 1 (b), from
 * this substep's anchors (vs_rigid_prepare_joints). */
VS_RPRIVATE void vs_rjoint_jacobian(const vs_rmodel *m, const vs_rwork *w, int32_t j, int end,
                                    double *J);
/* Joint j's rows applied to its bodies' (v, w): out = J_a u_a + J_b u_b (a
 * NULL u: that body left out), each row's sum from +0 in J's column order. */
VS_RPRIVATE void vs_rjoint_apply_rows(const vs_rmodel *m, const vs_rwork *w, int32_t j,
                                      const double *ua, const double *ub, double *out);
/* Joint j's errors at the pose of s (observables): gap, m (anchors, linear
 * rows, a slider's limits), and turn, rad (angular rows, angle limits). */
VS_RPRIVATE void vs_rjoint_errors(const vs_rmodel *m, const vs_rstate *s, int32_t j, double *gap,
                                  double *turn);
/* The bodies' rotation matrices at the pose of s (w->tree.rot), which
 * vs_rjoint_error reads: again whenever the pose has moved. */
VS_RPRIVATE void vs_rjoint_pose(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w);
/* Joint j's position error rows at the current pose (after vs_rjoint_pose). */
VS_RPRIVATE void vs_rjoint_error(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w,
                                 int32_t j, double *e);
/* Its accumulated impulse applied again (warm start), and one velocity pass
 * (a joint of a loop: its equality rows, then its axis rows below). */
VS_RPRIVATE void vs_rigid_warm_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j);
VS_RPRIVATE void vs_rigid_solve_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j);
/* The row of the gap along direction n of a (rigid_joint.c) and the 1-D row along the
 * joint's axis (hinge: angular, slider: linear), from this substep's w->joint. */
VS_RPRIVATE void vs_rjoint_gap_row(const double *jw, int end, const double n[3], double *J);
VS_RPRIVATE void vs_rjoint_axis_row(const vs_rmodel *m, const vs_rwork *w, int32_t j, int cone,
                                    double Ja[6], double Jb[6]);
/* That row with the joint's equality rows' reaction (R), and its effective mass then. */
VS_RPRIVATE void vs_rjoint_axis_rows(const vs_rmodel *m, const vs_rwork *w, int32_t j, int cone,
                                     double Ja[6], double Jb[6], double Ra[6], double Rb[6],
                                     double *mass);
/* The limit, motor and spring rows of a hinge or slider, a ball's cone and
 * twist (rigid_joint_axis.c):
 * warm start and one velocity pass (nothing for a joint without them); the
 * forest's joints' after its exact solve, in joint order. */
VS_RPRIVATE void vs_rjoint_warm_axis(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w,
                                     int32_t j);
VS_RPRIVATE void vs_rjoint_solve_axis(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w,
                                      int32_t j);
VS_RPRIVATE void vs_rigid_tree_axes(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w);
/* The forest's joints past a limit, brought back (before its position
 * passes, which then close the anchors that this moved downstream): balls 1,
 * the balls past their cone or twist; 0, the hinges and sliders past their
 * limit. */
VS_RPRIVATE void vs_rigid_project_limits(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                         int balls);

/* ---- the joints that form a forest (rigid_tree.c) ---- */
/* The forest of the model's joints (in joint order; loops stay sequential). */
VS_RPRIVATE vs_status vs_rigid_tree_build(const vs_rmodel *m, vs_rtree *t);
VS_RPRIVATE void vs_rigid_tree_free(vs_rtree *t);
VS_RPRIVATE uint64_t vs_rigid_tree_bytes(int64_t n, int64_t nj);
/* Per substep, after vs_rigid_prepare_joints (its rows and the pose's
 * rotations, w->tree.rot): the factorisation. */
VS_RPRIVATE void vs_rigid_tree_factor(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w);
/* The velocity change that makes every tree joint's anchors move together
 * (its impulses added to s->joint_impulse). */
VS_RPRIVATE void vs_rigid_tree_velocity(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                        int first);
/* A forest joint's warm start (rigid_tree.c): its equality rows start the
 * substep from no impulse (the forest solves them exactly in every sweep),
 * its axis rows (limits, motor, spring) from their last impulses. */
VS_RPRIVATE void vs_rigid_tree_warm(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j);
/* solver.rigid.geometric_stiffness (rigid_stiff.c): each forest body's
 * added rotational mass, from the forest joints' impulses of the substep hs
 * and their anchors in w->joint, into w->tree.gs_next; 1 when it differs
 * from w->tree.gs (the factor's), which it then replaces. */
VS_RPRIVATE int vs_rigid_stiffness(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w, double hs);
/* The term -G w of each awake forest body's angular rows on the right-hand
 * side of a substep's first velocity solve (rigid_stiff.c). */
VS_RPRIVATE void vs_rigid_stiffness_rhs(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w);
/* The displacement that closes the tree joints' position errors (first
 * order), shortened where it would turn a body by more than the linear
 * rows can follow (rigid_tree.c, TREE_TURN_MAX).  posed: w->tree.rot
 * already holds the pose of s (vs_rigid_prepare_joints and nothing moved
 * since).  Nothing moves, and 0 is returned, when no error row exceeds tol
 * in magnitude (m or rad); else 1. */
VS_RPRIVATE int vs_rigid_tree_position(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int posed,
                                       double tol);

/* ---- kinematic bodies (rigid_kinematic.c) ---- */
/* Before a step from time t0 to t1 (and before the particle coupling): each
 * kinematic body at its pose of t0, with the velocities that take it to its
 * pose of t1 in t1 - t0 (so contacts see the relative velocity it really
 * has); t1 is kept for vs_rigid_kinematic_end. */
VS_RPRIVATE void vs_rigid_kinematic_begin(const vs_rmodel *m, vs_rstate *s, vs_rwork *w,
                                          double t0, double t1);
/* One substep hs of kinematic body i at its velocities (the contacts'
 * displacements w->dp follow it). */
VS_RPRIVATE void vs_rigid_kinematic_move(vs_rstate *s, vs_rwork *w, int32_t i, double hs);
/* After the step: each kinematic body exactly at its pose of t1 (no drift
 * from the substeps' integration). */
VS_RPRIVATE void vs_rigid_kinematic_end(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w);
/* The world velocity of body i's surface (its surface_velocity turned by its
 * orientation q); zero without one (and for i outside the bodies: the world). */
VS_RPRIVATE void vs_rigid_surface_velocity(const vs_rmodel *m, const double q[4], int32_t i,
                                           double out[3]);
/* ---- islands at rest (rigid_sleep.c; solver.rigid.sleep) ---- */
/* After the contacts are found: which bodies sleep this step (w->asleep);
 * their velocities are zeroed.  Nothing when s->sleep is NULL. */
VS_RPRIVATE void vs_rigid_sleep_begin(const vs_rmodel *m, vs_rstate *s, vs_rwork *w);
/* After the step: each awake body's time at rest. */
VS_RPRIVATE void vs_rigid_sleep_end(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h);
/* 1 when the whole world sleeps and nothing can wake it: the step is a
 * no-op, skipped (vs_rigid_step). */
VS_RPRIVATE int vs_rigid_world_asleep(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w);
/* Slot i (a body, or n: the world) does not move this step: fixed,
 * kinematic or asleep. */
static inline int vs_rigid_slot_idle(const vs_rmodel *m, const vs_rwork *w, int32_t i) {
  return i < 0 || i >= m->n_bodies || m->inv_mass[i] == 0 || w->asleep[i];
}
/* 1 when joint j joins sleeping bodies (or one and a fixed body): its rows,
 * warm start and position passes are skipped, its impulses kept. */
static inline int vs_rigid_joint_asleep(const vs_rmodel *m, const vs_rwork *w, int32_t j) {
  const int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  return m->set.sleep && vs_rigid_slot_idle(m, w, a) && vs_rigid_slot_idle(m, w, b) &&
         ((a >= 0 && w->asleep[a]) || (b >= 0 && b < m->n_bodies && w->asleep[b]));
}
/* 1 when manifold mi joins only sleeping or fixed bodies (left out of the sweeps). */
static inline int vs_rigid_manifold_asleep(const vs_rmodel *m, const vs_rwork *w, int32_t mi) {
  const vs_rcontact *c = &w->contacts[w->man[mi]];
  return m->set.sleep && vs_rigid_slot_idle(m, w, c->ia) && vs_rigid_slot_idle(m, w, c->ib);
}

/* ---- step ---- */
/* One step of length h: velocities, contacts, impulses, positions. */
VS_RPRIVATE void vs_rigid_step(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h);
/* Air drag of a substep hs (w->air set; solve/aero.c): body i's denominator
 * 1 + hs (k1 + k2 |v - wind|) from its velocity v at the substep's start,
 * then, after gravity, v = wind + (v - wind) / den. */
VS_RPRIVATE double vs_rigid_air_den(const vs_rwork *w, int32_t i, const double v[3], double hs);
VS_RPRIVATE void vs_rigid_air(const vs_rwork *w, double v[3], double den);

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

#endif
