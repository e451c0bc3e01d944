/* SPDX-License-Identifier: MIT */
/* vsim/kind.h: the constraint kinds, one row each.
 *
 * X(ID, name, arity, particles, count):
 *   ID         VS_KIND_<ID>, the one enum of kinds (scene, model, solver, files)
 *   name       name in scene files and result files (/observables/constraint_error/<name>),
 *              and the stem of the kind's solver functions vs_<name>_project and
 *              vs_<name>_error (lib/solve/con_<name>.c)
 *   arity      particles per constraint (at most VS_MAX_ARITY)
 *   particles  model array of the particle indices, `arity` per constraint
 *   count      model field with the number of constraints of the kind
 * Every stage expands this table; a switch on vs_kind lists every kind
 * (the build uses -Wswitch-enum), so a new row is flagged wherever it needs
 * code. */
#ifndef VSIM_KIND_H
#define VSIM_KIND_H

#define VS_KINDS(X)                          \
  X(DISTANCE, distance, 2, dist_ab, n_dist)  \
  X(PIN, pin, 1, pin_p, n_pin)               \
  X(ANGLE, angle, 3, angle_abc, n_angle)

typedef enum vs_kind {
#define VS_KIND_ENUM_(ID, name, arity, particles, count) VS_KIND_##ID,
  VS_KINDS(VS_KIND_ENUM_)
#undef VS_KIND_ENUM_
} vs_kind;

#define VS_KIND_ONE_(ID, name, arity, particles, count) +1
enum { VS_KIND_COUNT = 0 VS_KINDS(VS_KIND_ONE_) };
#undef VS_KIND_ONE_

enum { VS_MAX_ARITY = 3 }; /* largest arity in VS_KINDS (checked at build) */

/* The other kinds, one table each, in the same style: X(ID, name).  The
 * enum is derived from the table (its values are the row order, which result
 * files record: append new rows at the end), and so is the name
 * (vs_*_name below, the scene and result files' spelling).  A switch over
 * one of these enums lists every row (-Werror=switch-enum), so a new row
 * fails the build wherever it needs code; tables of per-kind functions are
 * sized by the count and checked by the tests (docs/architecture.md, "Adding
 * a kind"). */

/* world.colliders */
#define VS_COLLIDER_KINDS(X) \
  X(PLANE, plane)         /* point a, unit normal b */ \
  X(SPHERE, sphere)       /* center a, radius */ \
  X(BOX, box)             /* solid box a = min, b = max */ \
  X(BOUNDS, bounds)       /* particles kept inside a = min, b = max */ \
  X(MESH, mesh)           /* static triangles from an OBJ file */

typedef enum vs_collider_kind {
#define VS_KIND_ENUM_(ID, name) VS_COLLIDER_##ID,
  VS_COLLIDER_KINDS(VS_KIND_ENUM_)
#undef VS_KIND_ENUM_
} vs_collider_kind;

/* rigid bodies' `shape` */
#define VS_RIGID_SHAPES(X) \
  X(BOX, box)         /* size: full extents along its local axes */ \
  X(SPHERE, sphere)   /* size[0]: radius */ \
  X(CAPSULE, capsule) /* size[0]: radius, size[1]: length between the cap centres along local y */ \
  X(CONVEX, convex)   /* size: extents of the box about the centre of mass that holds the hull */

typedef enum vs_rigid_shape {
#define VS_KIND_ENUM_(ID, name) VS_RIGID_##ID,
  VS_RIGID_SHAPES(VS_KIND_ENUM_)
#undef VS_KIND_ENUM_
} vs_rigid_shape;

/* joints between rigid bodies (or a body and the world) */
#define VS_JOINT_KINDS(X) \
  X(BALL, ball)         /* the two anchors coincide (3 rows) */ \
  X(DISTANCE, distance) /* the two anchors keep a rest length (1 row) */ \
  X(WELD, weld)         /* anchors coincide, relative orientation held (6 rows) */ \
  X(HINGE, hinge)       /* ball + the axis kept aligned (5 rows); limits, motor, spring */ \
  X(SLIDER, slider)     /* no relative rotation, moves along the axis (5 rows); limits, motor */

/* items of `constraints` that act on rigid bodies rather than being particle
 * constraint kinds (VS_KINDS): their values follow the kinds'
 * (VS_CONSTRAINT_<ID> = VS_KIND_COUNT + row, vsim/scene.h), their names are
 * the scene's.  A `distance` whose a and b are body points ("NAME@[x, y, z]")
 * is a rigid joint too (still VS_KIND_DISTANCE there). */
#define VS_RIGID_ITEMS(X) \
  X(BALL, ball)     /* ball joint: bodies a, b (or `world`) at a world point */ \
  X(ATTACH, attach) /* particle held at a body-local point, both ways */ \
  X(WELD, weld)     /* weld joint: bodies a, b held at their relative pose */ \
  X(HINGE, hinge)   /* hinge joint: turns about `axis` through `at` */ \
  X(SLIDER, slider) /* slider joint: moves along `axis`, no turning */

typedef enum vs_joint_kind {
#define VS_KIND_ENUM_(ID, name) VS_JOINT_##ID,
  VS_JOINT_KINDS(VS_KIND_ENUM_)
#undef VS_KIND_ENUM_
} vs_joint_kind;

#define VS_KIND_ONE_(ID, name) +1
enum {
  VS_COLLIDER_KIND_COUNT = 0 VS_COLLIDER_KINDS(VS_KIND_ONE_),
  VS_RIGID_SHAPE_COUNT = 0 VS_RIGID_SHAPES(VS_KIND_ONE_),
  VS_JOINT_KIND_COUNT = 0 VS_JOINT_KINDS(VS_KIND_ONE_)
};
#undef VS_KIND_ONE_

/* Each kind's name as scene and result files spell it; "?" for a value
 * outside the table (never NULL).  vs_kind_name: vsim/model.h. */
const char *vs_collider_kind_name(vs_collider_kind k);
const char *vs_rigid_shape_name(vs_rigid_shape k);
const char *vs_joint_kind_name(vs_joint_kind k);

#endif
