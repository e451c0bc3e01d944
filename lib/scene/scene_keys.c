/* SPDX-License-Identifier: MIT */
/* scene_keys.c: THE table of scene keys, and the name table of every enum.
 *
 * One row per key (MuJoCo's mjcf schema is the model): its dotted path, its
 * type, range and default, the field it fills, and its documentation.  The
 * loader, the defaults, `--set` (which edits the YAML tree that the loader
 * then reads), the emitter (the resolved scene that `--resume` reloads), the
 * key tables of docs/scene-format.md and the fuzz dictionary all follow from
 * these rows; tests/test_scene.c checks the last two against it.  Adding a
 * key is one struct field and one row.  A nested mapping of keys (`motor:
 * {speed, max_torque}`) is an SK_MAP row naming a nested scope, whose rows
 * follow it like any other's (loaded, defaulted, emitted, set, documented and
 * in the schema by the same code).  Keys whose syntax is irregular (pin
 * forms, rest|min|max, at|keys, per-particle lists) are SK_HOOK rows whose
 * functions live in scene_body.c and scene_items.c.
 *
 * Defaults are YAML text, read by the same code as the scene, so a default
 * is written exactly once: here. */
#include <stddef.h>
#include <stdio.h>

#include "scene/scene_internal.h"

const char *const vs_sk_integrators[] = {"verlet", "pbd", "xpbd", NULL};
const char *const vs_sk_relaxations[] = {"gauss-seidel", "jacobi", NULL};
const char *const vs_sk_planes[] = {"xy", "xz", "yz", NULL};
const char *const vs_sk_body_kinds[] = {"particles", "rope",    "cloth", "tetra",
                                        "lattice",   "ragdoll", "mesh",  "rigid", NULL};
/* The kinds' names, from their tables (vsim/kind.h). */
#define VS_NAME_(ID, name) #name,
#define VS_KIND_NAME_(ID, name, arity, particles, count) #name,
const char *const vs_sk_rigid_shapes[] = {VS_RIGID_SHAPES(VS_NAME_) NULL};
const char *const vs_sk_collider_kinds[] = {VS_COLLIDER_KINDS(VS_NAME_) NULL};
const char *const vs_sk_joint_kinds[] = {VS_JOINT_KINDS(VS_NAME_) NULL};
const char *const vs_sk_constraint_kinds[] = {VS_KINDS(VS_KIND_NAME_)
                                                  VS_RIGID_ITEMS(VS_NAME_) NULL};
#undef VS_NAME_
#undef VS_KIND_NAME_

const char *vs_collider_kind_name(vs_collider_kind k) {
  return (unsigned)k < VS_COLLIDER_KIND_COUNT ? vs_sk_collider_kinds[k] : "?";
}
const char *vs_rigid_shape_name(vs_rigid_shape k) {
  return (unsigned)k < VS_RIGID_SHAPE_COUNT ? vs_sk_rigid_shapes[k] : "?";
}
const char *vs_joint_kind_name(vs_joint_kind k) {
  return (unsigned)k < VS_JOINT_KIND_COUNT ? vs_sk_joint_kinds[k] : "?";
}
_Static_assert(sizeof vs_sk_constraint_kinds / sizeof *vs_sk_constraint_kinds ==
                   VS_CONSTRAINT_KINDS + 1,
               "vs_sk_constraint_kinds names every kind, then every rigid item");
const char *const vs_sk_precisions[] = {"float64", "float32", NULL};
const char *const vs_sk_fields[] = {"position", "velocity", "constraint_error",
                                    "per_constraint_error", NULL};
const char *const vs_sk_pin_words[] = {"none",  "list", "top-edge", "top-corners",
                                       "first", "last", "both",     NULL};

_Static_assert(sizeof(vs_integrator) == sizeof(int) && sizeof(vs_relaxation) == sizeof(int) &&
                   sizeof(vs_plane_axes) == sizeof(int) && sizeof(vs_rigid_shape) == sizeof(int),
               "SK_ENUM fields are int-sized");

const char *vs_scene_name(vs_scene_names which, int value) {
  static const char *const *const tables[] = {
      [VS_NAMES_INTEGRATOR] = vs_sk_integrators,   [VS_NAMES_RELAXATION] = vs_sk_relaxations,
      [VS_NAMES_PLANE] = vs_sk_planes,             [VS_NAMES_BODY] = vs_sk_body_kinds,
      [VS_NAMES_COLLIDER] = vs_sk_collider_kinds,  [VS_NAMES_CONSTRAINT] = vs_sk_constraint_kinds,
      [VS_NAMES_PRECISION] = vs_sk_precisions,     [VS_NAMES_FIELD] = vs_sk_fields,
      [VS_NAMES_PIN] = vs_sk_pin_words,            [VS_NAMES_SHAPE] = vs_sk_rigid_shapes};
  if ((unsigned)which >= sizeof tables / sizeof *tables || value < 0) return NULL;
  const char *const *t = tables[which];
  for (int i = 0; t[i]; i++)
    if (i == value) return t[i];
  return NULL;
}

/* Ranges, as constant initialisers. */
#define ANY {SK_NONE, 0, SK_NONE, 0}
#define POS {SK_OPEN, 0, SK_NONE, 0}
#define NONNEG {SK_CLOSED, 0, SK_NONE, 0}
#define STIFF {SK_OPEN, 0, SK_CLOSED, 1}
#define UNIT {SK_CLOSED, 0, SK_CLOSED, 1}
#define OMEGA {SK_OPEN, 0, SK_OPEN, 2}
#define DEG {SK_CLOSED, 0, SK_CLOSED, 180}

/* Kinds. */
#define PA (1u << VS_BODY_PARTICLES)
#define RO (1u << VS_BODY_ROPE)
#define CL (1u << VS_BODY_CLOTH)
#define TE (1u << VS_BODY_TETRA)
#define LA (1u << VS_BODY_LATTICE)
#define RD (1u << VS_BODY_RAGDOLL)
#define ME (1u << VS_BODY_MESH)
#define RI (1u << VS_BODY_RIGID)
#define ALLP (PA | RO | CL | TE | LA | RD | ME) /* bodies made of particles */
#define ALLB (ALLP | RI)
#define PL (1u << VS_COLLIDER_PLANE)
#define SP (1u << VS_COLLIDER_SPHERE)
#define BX (1u << VS_COLLIDER_BOX)
#define BD (1u << VS_COLLIDER_BOUNDS)
#define MC (1u << VS_COLLIDER_MESH)
#define ALLC (PL | SP | BX | BD | MC)
#define DI (1u << VS_KIND_DISTANCE)
#define PN (1u << VS_KIND_PIN)
#define AN (1u << VS_KIND_ANGLE)
#define BA (1u << VS_CONSTRAINT_BALL)
#define AT (1u << VS_CONSTRAINT_ATTACH)
#define WE (1u << VS_CONSTRAINT_WELD)
#define HI (1u << VS_CONSTRAINT_HINGE)
#define SL (1u << VS_CONSTRAINT_SLIDER)
#define JO (BA | WE | HI | SL) /* the joints between named bodies */

#define SC(f) .scope = SKS_SCENE, .off = offsetof(vs_scene, f)
#define BO(k, f) .scope = SKS_BODY, .kinds = (k), .off = offsetof(vs_body_desc, f)
#define CO(k, f) .scope = SKS_COLLIDER, .kinds = (k), .off = offsetof(vs_collider_desc, f)
#define CN(k, f) .scope = SKS_CONSTRAINT, .kinds = (k), .off = offsetof(vs_constraint_desc, f)
#define LI(f) .scope = SKS_LINK, .kinds = 1u, .off = offsetof(vs_link_desc, f)
#define RS(f) .scope = SKS_RSOLVER, .kinds = 1u, .off = offsetof(vs_rigid_solver_desc, f)
/* A nested mapping (SK_MAP) and its rows: fields of the item's struct. */
#define MAP(sc) .type = SK_MAP, .sub = (sc)
#define MO(k, f) .scope = SKS_MOTOR, .kinds = (k), .off = offsetof(vs_constraint_desc, f)
#define SPR(k, f) .scope = SKS_SPRING, .kinds = (k), .off = offsetof(vs_constraint_desc, f)
#define AIR(k, f) .scope = SKS_AIR, .kinds = (k), .off = offsetof(vs_body_desc, f)
#define HOOK(l, e) .type = SK_HOOK, .load = (l), .emit = (e)

#define REF_WHAT "a particle reference (\"NAME:INDEX\", \"NAME:I,J\" or a global index)"

const sk_row vs_sk_rows[] = {
    /* ---- the scene ---- */
    {"vsim", SC(version), .type = SK_I32, .irange = {1, 1, 1, 0},
     .what = "1 (the only format version)", .def = "1", .doc = "format version; only `1`"},
    {"name", SC(name), .type = SK_STR, .n = sizeof ((vs_scene *)0)->name, .what = "a scene name",
     .doc = "scene name, recorded in the result file [the file name without extension; "
            "`default` for the embedded scene]"},
    {"time.dt", SC(dt), .type = SK_NUM, .range = POS, .flags = SKF_TIME, .def = "1/60",
     .doc = "frame step in seconds; a fraction `A/B` such as `1/60` is read as the double "
            "nearest A/B"},
    {"time.frames", SC(frames), .type = SK_INT, .irange = {0, 0, 0, VS_MAX_FRAMES}, .def = "100",
     .doc = "frames to simulate; `vsim run --frames N` overrides it"},
    {"time.substeps", SC(substeps), .type = SK_INT, .irange = {1, 0, 0, VS_MAX_SUBSTEPS},
     .def = "1", .doc = "each frame is `substeps` steps of h = dt / substeps"},
    {"solver.integrator", SC(integrator), .type = SK_ENUM, .names = vs_sk_integrators,
     .def = "pbd",
     .doc = "`verlet` (Jakobsen's position Verlet), `pbd` (Müller et al. 2007) or `xpbd` "
            "(Macklin et al. 2016, compliance-based)"},
    {"solver.iterations", SC(iterations), .type = SK_INT,
     .irange = {1, 0, 0, VS_MAX_ITERATIONS}, .def = "10", .doc = "relaxation sweeps per substep"},
    {"solver.relaxation", SC(relaxation), .type = SK_ENUM, .names = vs_sk_relaxations,
     .def = "gauss-seidel",
     .doc = "`gauss-seidel` (constraints one after another, with the result of build order) or `jacobi` "
            "(graph-coloured: each colour projected in parallel from the same positions, on "
            "`--threads` threads; rigid contacts and joints are coloured every step, each "
            "colour solved in parallel)"},
    {"solver.omega", SC(omega), .type = SK_NUM, .range = OMEGA, .def = "1",
     .doc = "scale of every correction (successive over-relaxation)"},
    {"solver.damping", SC(damping), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "linear velocity damping in 1/s"},
    {"solver.sqrt_approximation", SC(sqrt_approximation), .type = SK_BOOL, .def = "false",
     .doc = "`true`: Jakobsen's stick update with the first-order square root, sqrt(d.d) ~ "
            "(d.d + r²) / 2r about the rest length r: no square root per link, exact at rest, so "
            "the relaxation converges to the exact lengths (links of rest 0 keep the exact root)"},
    {"solver.runaway_speed", SC(runaway_speed), .type = SK_NUM, .range = NONNEG, .def = "10000",
     .doc = "m/s: a particle faster than this fails the run (status \"failed\", exit 1) naming "
            "the frame, the particle and the constraint that moved it last; 0 turns the check "
            "off"},
    {"solver.rigid", SC(rigid), HOOK(sk_load_rsolver, sk_emit_rsolver), .def = "{}",
     .doc = "the sequential-impulse solver of the rigid bodies: a mapping of the keys in "
            "[solver.rigid](#solverrigid)"},
    {"world.gravity", SC(gravity), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, -9.81, 0]",
     .doc = "m/s²"},
    {"world.particle_collisions", SC(particle_collisions), .type = SK_BOOL, .def = "false",
     .doc = "`true`: particles with radius > 0 do not overlap (also within a body, but not two "
            "particles joined by a link)"},
    {"world.swept", SC(swept), .type = SK_BOOL, .def = "false",
     .doc = "`true`: each step, a particle's path from its previous position is tested against "
            "the colliders, so a fast particle stops at the first surface it meets instead of "
            "tunnelling through a thin obstacle"},
    {"world.shock_propagation", SC(shock_propagation), .type = SK_BOOL, .def = "false",
     .doc = "`true`: for stacking, a particle resting on a collider does not move when a "
            "particle above it is pushed out of it, so one sweep carries the support up a whole "
            "pile (Guendelman et al. 2003); it makes impacts on resting particles one-sided, "
            "hence off by default"},
    {"world.particle_friction", SC(particle_friction), .type = SK_NUM, .range = NONNEG,
     .def = "0",
     .doc = "Coulomb coefficient between colliding particles (position-based friction, Macklin "
            "et al. 2014 §6.1)"},
    {"world.wind", SC(wind), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .omit = sk_has_wind_keys,
     .doc = "m/s: the air's velocity, the same everywhere; with `air_density`, bodies' "
            "`drag`, `lift` and `air_drag` act on the velocity relative to it (docs/physics.md, "
            "\"Air\")"},
    {"world.wind_keys", SC(wind_keys), HOOK(sk_load_wind_keys, sk_emit_wind_keys),
     .omit = sk_no_wind_keys,
     .doc = "instead of `wind`, a wind that changes in time: keys `[[t, x, y, z], ...]`, t "
            "strictly increasing (a time: `A/B` works); linear in between, held before the first "
            "and after the last key; each step uses the wind at its start"},
    {"world.air_density", SC(air_density), .type = SK_NUM, .range = NONNEG, .def = "1.2",
     .doc = "kg/m³, of the air in the cloth and mesh bodies' `drag` and `lift`"},
    {"world.colliders", SC(colliders), HOOK(sk_load_colliders, sk_emit_colliders),
     .flags = SKF_BLOCK, .doc = "list of static obstacles, each one key naming its kind"},
    {"bodies", SC(bodies), HOOK(sk_load_bodies, sk_emit_bodies), .flags = SKF_BLOCK,
     .doc = "list of bodies; each item has one key naming its kind"},
    {"constraints", SC(constraints), HOOK(sk_load_constraints, sk_emit_constraints),
     .flags = SKF_BLOCK, .doc = "list of extra constraints; each item has one key naming its kind"},
    {"output.every", SC(output.every), .type = SK_INT, .irange = {1, 0, 0, VS_MAX_FRAMES},
     .def = "1", .doc = "record every k-th frame; frame 0 is always recorded"},
    {"output.fields", SC(output.fields), .type = SK_FLAGS, .names = vs_sk_fields,
     .def = "[position, constraint_error]", .doc = "what to record, a list of field names"},
    {"output.precision", SC(output.float32), .type = SK_ENUM, .names = vs_sk_precisions,
     .def = "float64", .doc = "of positions and velocities"},
    {"output.compression", SC(output.compression), .type = SK_I32, .irange = {0, 1, 9, 0},
     .def = "0", .doc = "gzip level"},
    {"output.author", SC(output.author), .type = SK_STR, .n = VS_MAX_NAME + 1,
     .what = "an author name", .def = "unknown",
     .doc = "H5MD author name recorded in /h5md/author"},
    {"output.xdmf", SC(output.xdmf), .type = SK_BOOL, .def = "false",
     .doc = "`true`: vsim run writes OUT.xmf beside OUT.h5, for ParaView's XDMF reader, and, with "
            "rigid bodies, their surfaces (`/particles/rigid_surface`, see result-file.md) that it "
            "draws; viewer data, often bigger than the result, so off by default: `vsim xdmf "
            "OUT.h5` writes the .xmf of any result file on demand, and `vsim render` draws the "
            "bodies from their poses and shapes"},

    /* ---- bodies: `- KIND: {...}` ---- */
    {"name", BO(ALLB, name), .type = SK_STR, .n = VS_MAX_NAME + 1, .what = "a body name",
     .check = sk_check_body_name,
     .doc = "letters, digits, `_` and `-`, not only digits, unique [the kind and its index, "
            "e.g. `cloth0`]"},
    {"collision_group", BO(ALLB, collision_group), .type = SK_INT, .irange = {0, 1, 31, 0},
     .def = "0",
     .doc = "the body's group, 0 to 31: another body collides with it only when its "
            "`collision_mask` has this bit (rigid bodies with each other and with particles, "
            "particles with each other)"},
    {"collision_mask", BO(ALLB, collision_mask), .type = SK_INT, .irange = {0, 1, 4294967295, 0},
     .def = "4294967295",
     .doc = "bit g set: the body collides with bodies of group g (both masks must agree); "
            "default every group"},
    {"file", BO(ME, mesh), HOOK(sk_load_mesh_file, sk_emit_mesh_file), .flags = SKF_REQUIRED,
     .doc = "Wavefront OBJ file, relative to the scene file (see \"Meshes\" below)"},
    {"transform", BO(ME, mesh), HOOK(sk_load_transform, sk_emit_transform),
     .doc = "`{translate: [x, y, z], rotate: [degrees about x, y, z], scale: s or [sx, sy, sz]}`: "
            "scale, then rotate about x, then y, then z, then translate [identity]"},
    {"positions", BO(PA, positions), HOOK(sk_load_positions, sk_emit_positions),
     .flags = SKF_REQUIRED, .doc = "non-empty list of [x, y, z]"},
    {"velocities", BO(PA, velocities), HOOK(sk_load_velocities, sk_emit_velocities),
     .omit = sk_no_velocities, .doc = "list of [x, y, z], one per particle [all zero]"},
    {"masses", BO(PA, masses), HOOK(sk_load_masses, sk_emit_masses), .omit = sk_no_masses,
     .doc = "one mass per particle, instead of `mass`"},
    {"from", BO(RO, from), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "first end point"},
    {"to", BO(RO, to), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "last end point"},
    {"segments", BO(RO, segments), .type = SK_INT, .irange = {1, 0, 0, VS_MAX_SEGMENTS},
     .flags = SKF_REQUIRED, .doc = "links in the chain of segments + 1 particles"},
    {"origin", BO(CL | LA | RD, origin), .type = SK_VEC, .n = 3, .range = ANY,
     .flags = SKF_REQUIRED,
     .doc = "grids: the position of particle (0, 0[, 0]); ragdoll: the point between its feet"},
    {"size", BO(CL, size), .type = SK_VEC, .n = 2, .range = POS, .flags = SKF_REQUIRED,
     .doc = "[extent along u, extent along v]"},
    {"size", BO(LA, size), .type = SK_VEC, .n = 3, .range = POS, .flags = SKF_REQUIRED,
     .doc = "extents along x, y, z"},
    {"resolution", BO(CL, resolution), .type = SK_IVEC, .n = 2,
     .irange = {2, 0, 0, VS_MAX_RESOLUTION}, .flags = SKF_REQUIRED, .check = sk_check_grid,
     .doc = "[nu, nv] particles"},
    {"resolution", BO(LA, resolution), .type = SK_IVEC, .n = 3,
     .irange = {2, 0, 0, VS_MAX_RESOLUTION}, .flags = SKF_REQUIRED, .check = sk_check_grid,
     .doc = "[nx, ny, nz] particles"},
    {"plane", BO(CL, plane), .type = SK_ENUM, .names = vs_sk_planes, .def = "xy",
     .doc = "u is the first letter's axis, v the second's"},
    {"center", BO(TE, center), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "centre of the tetrahedron"},
    {"edge", BO(TE, edge), .type = SK_NUM, .range = POS, .flags = SKF_REQUIRED,
     .doc = "edge length"},
    {"shape", BO(RI, shape), .type = SK_ENUM, .names = vs_sk_rigid_shapes, .def = "box",
     .doc = "`box`, `sphere`, `capsule` or `convex` (the convex hull of `points` or of a "
            "`file`'s vertices)"},
    {"size", BO(RI, size), .type = SK_VEC, .n = 3, .range = POS, .def = "[1, 1, 1]",
     .doc = "box: full extents along its local x, y, z, m"},
    {"radius", BO(RI, rradius), .type = SK_NUM, .range = POS, .def = "0.5",
     .doc = "sphere and capsule radius, m"},
    {"length", BO(RI, length), .type = SK_NUM, .range = POS, .def = "1",
     .doc = "capsule: distance between the cap centres, along its local y, m"},
    {"points", BO(RI, positions), HOOK(sk_load_points, sk_emit_points), .omit = sk_no_points,
     .doc = "convex: `[[x, y, z], ...]` in the body's frame, at least 4 not in one plane, at "
            "most 4096 (the hull at most 256 vertices); the body is their convex hull, moved "
            "so that the solid hull's centre of mass is at `position` (not with `file`)"},
    {"file", BO(RI, mesh), HOOK(sk_load_mesh_file, sk_emit_mesh_file), .omit = sk_no_mesh_file,
     .doc = "convex: a Wavefront OBJ file, relative to the scene file, whose vertices are the "
            "points (its faces are not used; not with `points`)"},
    {"scale", BO(RI, hull_scale), .type = SK_NUM, .range = POS, .def = "1",
     .check = sk_check_convex, .doc = "convex: the points are multiplied by this"},
    {"position", BO(RI, center), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .doc = "centre of mass, m"},
    {"orientation", BO(RI, orientation), .type = SK_VEC, .n = 4, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_body_desc, has_orientation), .check = sk_check_orientation,
     .doc = "quaternion `[w, x, y, z]`, any non-zero length (normalised) [identity]"},
    {"rotation", BO(RI, rotation), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_body_desc, has_rotation), .check = sk_check_rotation,
     .doc = "degrees about the fixed x, then y, then z axes (not with `orientation`)"},
    {"velocity", BO(RI, velocity), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .doc = "initial velocity of the centre of mass, m/s"},
    {"angular_velocity", BO(RI, angular_velocity), .type = SK_VEC, .n = 3, .range = ANY,
     .def = "[0, 0, 0]", .doc = "initial angular velocity, rad/s, world frame"},
    {"mass", BO(RI, mass), .type = SK_NUM, .range = POS, .def = "1", .omit = sk_rigid_has_density,
     .doc = "kg; the inertia follows from the shape"},
    {"density", BO(RI, density), .type = SK_NUM, .range = POS, .flags = SKF_HAS,
     .has_off = offsetof(vs_body_desc, has_density), .check = sk_check_density,
     .doc = "kg/m³, instead of `mass` (the mass is density times the shape's volume)"},
    {"friction", BO(RI, friction), .type = SK_NUM, .range = NONNEG, .def = "0.5",
     .doc = "Coulomb coefficient; a pair uses sqrt(friction_a * friction_b)"},
    {"restitution", BO(RI, restitution), .type = SK_NUM, .range = UNIT, .def = "0",
     .doc = "a pair uses max(restitution_a, restitution_b)"},
    {"fixed", BO(RI, fixed), .type = SK_BOOL, .def = "false",
     .doc = "`true`: infinite mass and inertia, never moves"},
    {"kinematic", BO(RI, kinematic), .type = SK_BOOL, .def = "false",
     .doc = "`true`: infinite mass and inertia like `fixed`, but moves along `keys` and "
            "`rotation_keys`, else at its constant `velocity` and `angular_velocity`; pushes "
            "bodies and particles, is never pushed, ignores gravity (not with `fixed`)"},
    {"keys", BO(RI, keys), HOOK(sk_load_body_keys, sk_emit_body_keys), .omit = sk_no_body_keys,
     .doc = "kinematic: the centre's keys `[[t, x, y, z], ...]`, t strictly increasing (a time: "
            "`A/B` works); linear in between, held before the first and after the last key "
            "(instead of `position` and `velocity`)"},
    {"rotation_keys", BO(RI, rotation_keys), HOOK(sk_load_rotation_keys, sk_emit_rotation_keys),
     .omit = sk_no_rotation_keys, .check = sk_check_kinematic,
     .doc = "kinematic: orientation keys `[[t, rx, ry, rz], ...]`, degrees as `rotation`, t "
            "strictly increasing; slerp in between (the shorter way), held outside them "
            "(instead of `orientation`, `rotation` and `angular_velocity`)"},
    {"surface_velocity", BO(RI, surface_velocity), .type = SK_VEC, .n = 3, .range = ANY,
     .def = "[0, 0, 0]",
     .doc = "m/s in the body's frame: its surface moves at this speed while the body does not "
            "(a conveyor belt); friction drives what touches it towards it (its tangential "
            "part)"},

    {"velocity", BO(TE, velocity), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .doc = "initial velocity, m/s"},
    {"angular_velocity", BO(TE, angular_velocity), .type = SK_VEC, .n = 3, .range = ANY,
     .def = "[0, 0, 0]", .doc = "initial angular velocity, rad/s"},
    {"height", BO(RD, height), .type = SK_NUM, .range = POS, .flags = SKF_REQUIRED,
     .doc = "the ragdoll's height"},
    {"mass", BO(ALLP, mass), .type = SK_NUM, .range = POS, .def = "1", .omit = sk_has_masses,
     .doc = "kg: of each particle (particles), else the body's total, spread over its "
            "particles"},
    {"radius", BO(ALLP, radius), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "collision radius of each particle, m"},
    {"stretch", BO(RO | CL | LA | ME, stretch), .type = SK_LINK, .def = "{}",
     .doc = "links along the chain (rope), the grid axes, or every triangle edge (mesh, each "
            "shared edge once)"},
    {"shear", BO(CL, shear), .type = SK_LINK, .def = "none", .doc = "links to diagonal neighbours"},
    {"shear", BO(LA, shear), .type = SK_LINK, .def = "{}", .doc = "links to diagonal neighbours"},
    {"bend", BO(RO | CL | ME, bend), .type = SK_LINK, .def = "none",
     .doc = "links to the neighbour's neighbour; mesh: across each interior edge, between the "
            "two vertices opposite it"},
    {"stiffness", BO(TE | RD, stretch.stiffness), .type = SK_NUM, .range = STIFF, .def = "1",
     .doc = "of the body's links (the 6 edges, the bones)"},
    {"compliance", BO(TE | RD, stretch.compliance), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "of the body's links, m/N"},
    {"pin", BO(PA | RO | CL | LA | RD | ME, pin_mode), HOOK(sk_load_pin, sk_emit_pin), .def = "none",
     .doc = "particles held fixed: `none`, a list of particle indices (grids: of `[i, j]` or "
            "`[i, j, k]`); rope also `first`, `last`, `both`; cloth also `top-edge`, "
            "`top-corners`; lattice also `top-edge`; mesh: OBJ vertex numbers, 0-based"},
    {"tear", BO(RO | CL | LA | ME, tear), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "a link breaks for good when its length exceeds `tear` times its rest length; 0 "
            "never"},
    {"damping_rigid", BO(ALLP, damping_rigid), .type = SK_NUM, .range = UNIT, .def = "0",
     .doc = "per step, pulls the velocities that fraction of the way towards the body's rigid "
            "motion (Müller et al. 2007, §3.5)"},
    {"drag", BO(CL | ME, drag), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "C_d: each triangle is pushed along its normal n by ½ ρ C_d A (u·n)², u the wind "
            "relative to it, A its area (docs/physics.md, \"Air\"); 0 off"},
    {"lift", BO(CL | ME, lift), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "C_l: each triangle is pushed across the relative wind u by ½ ρ C_l A ‖u‖² cos θ "
            "sin θ, θ between u and its normal (docs/physics.md, \"Air\"); 0 off"},
    {"air_drag", BO(ALLB, air_linear), MAP(SKS_AIR), .def = "{}",
     .doc = "`{linear, quadratic}`: air drag per unit mass on each particle (rigid: on the "
            "centre of mass), against its velocity u relative to the wind (docs/physics.md, "
            "\"Air\"); keys in [air_drag](#air_drag)"},

    /* ---- air_drag: `{linear, quadratic}` (every body kind) ---- */
    {"linear", AIR(ALLB, air_linear), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "1/s: the drag -k u"},
    {"quadratic", AIR(ALLB, air_quadratic), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "1/m: the drag -k ‖u‖ u; alone, the terminal speed is sqrt(g / k)"},

    /* ---- a link family: `{stiffness, compliance}` or `none` ---- */
    {"stiffness", LI(stiffness), .type = SK_NUM, .range = STIFF, .def = "1",
     .doc = "used by verlet and pbd"},
    {"compliance", LI(compliance), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "m/N, used by xpbd"},

    /* ---- solver.rigid: `{iterations, ...}` ---- */
    {"iterations", RS(iterations), .type = SK_INT, .irange = {1, 0, 0, VS_MAX_ITERATIONS},
     .def = "2",
     .doc = "sequential-impulse sweeps per rigid substep"},
    {"baumgarte", RS(baumgarte), .type = SK_NUM, .range = UNIT, .def = "0.2",
     .doc = "fraction of the penetration fed back per step (as a pseudo velocity: split impulse)"},
    {"slop", RS(slop), .type = SK_NUM, .range = NONNEG, .def = "0.005",
     .doc = "penetration allowed before the bias acts, m"},
    {"margin", RS(margin), .type = SK_NUM, .range = NONNEG, .def = "0.02",
     .doc = "contacts are looked for this far beyond touching (speculative contacts), m; a "
            "moving body's reach in the step is added to it"},
    {"restitution_threshold", RS(restitution_threshold), .type = SK_NUM, .range = NONNEG,
     .def = "0.5", .doc = "approach speed below which contacts do not bounce, m/s"},
    {"warm_start", RS(warm_start), .type = SK_BOOL, .def = "true",
     .doc = "start each step from the last step's impulses of the same contact"},
    {"substeps", RS(substeps), .type = SK_INT, .irange = {1, 0, 0, VS_MAX_SUBSTEPS}, .def = "8",
     .doc = "rigid substeps per step h, contacts found once per step (8 hold a 30-level pyramid, "
            "a 20-cube stack and a 100:1 pair at dt 1/60: cheaper than more iterations for the same "
            "stiffness)"},
    {"geometric_stiffness", RS(geometric_stiffness), .type = SK_BOOL, .def = "true",
     .doc = "joints of a chain or tree feel how their pull turns as their bodies turn (geometric "
            "stiffness, Andrews et al. 2017) where that is fast for the substep, so a light link "
            "between heavy loads stays stable; false: the pull keeps the substep's first direction "
            "(a 50-link chain with a 100:1 end mass then blows up at 8 and 16 substeps)"},
    {"sleep", RS(sleep), .type = SK_BOOL, .def = "true",
     .doc = "a body at rest -- its fastest point slower than 0.01 m/s, pushed by a contact or "
            "a joint (or exactly still), none of its contacts sliding -- for 0.5 s, with all the bodies it touches "
            "or is joined to (its island), sleeps: it stops and is not solved until an awake "
            "body, a moving kinematic body or a moving surface touches its island; a turning "
            "motor, or the wind on a body with air drag, keeps it awake (as Bullet, Box2D and "
            "Jolt do by default; false: every body solved every step)"},

    /* ---- colliders: `- KIND: {...}` ---- */
    {"point", CO(PL, a), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .doc = "a point of the plane"},
    {"normal", CO(PL, b), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 1, 0]",
     .check = sk_check_normal,
     .doc = "any length but not zero; the solid side is behind the plane"},
    {"center", CO(SP, a), .type = SK_VEC, .n = 3, .range = ANY, .def = "[0, 0, 0]",
     .doc = "of the ball"},
    {"radius", CO(SP, radius), .type = SK_NUM, .range = POS, .flags = SKF_REQUIRED,
     .doc = "of the ball"},
    {"min", CO(BX | BD, a), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "lowest corner"},
    {"max", CO(BX | BD, b), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .check = sk_check_box, .doc = "highest corner, > min on every axis"},
    {"file", CO(MC, mesh), HOOK(sk_load_mesh_file, sk_emit_mesh_file), .flags = SKF_REQUIRED,
     .doc = "Wavefront OBJ file of static triangles, relative to the scene file"},
    {"transform", CO(MC, mesh), HOOK(sk_load_transform, sk_emit_transform),
     .doc = "as the mesh body's `transform` [identity]"},
    {"thickness", CO(MC, thickness), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "m, added to each particle's radius: particles keep that far from every triangle, "
            "on the side they came from; rigid bodies keep that far too"},
    {"friction", CO(ALLC, friction), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "Coulomb coefficient"},
    {"restitution", CO(ALLC, restitution), .type = SK_NUM, .range = UNIT, .def = "0",
     .doc = "fraction of the normal speed kept in a bounce"},

    /* ---- constraints: `- KIND: {...}` ---- */
    {"a", CN(DI | AN, a), .type = SK_REF, .flags = SKF_REQUIRED, .what = REF_WHAT,
     .doc = "first particle; distance also a point on a rigid body, `\"NAME@[x, y, z]\"` in its "
            "local frame (then b is one too: a joint between the bodies)"},
    {"b", CN(DI | AN, b), .type = SK_REF, .flags = SKF_REQUIRED, .what = REF_WHAT,
     .doc = "second particle (angle: the vertex); distance: or a body point"},
    {"c", CN(AN, c), .type = SK_REF, .flags = SKF_REQUIRED, .what = REF_WHAT,
     .doc = "third particle"},
    {"particle", CN(PN, a), .type = SK_REF, .flags = SKF_REQUIRED, .what = REF_WHAT,
     .doc = "the particle held"},
    {"a", CN(JO, a), .type = SK_REF, .flags = SKF_REQUIRED, .what = "a rigid body's name",
     .doc = "first rigid body"},
    {"b", CN(JO, b), .type = SK_REF, .flags = SKF_REQUIRED, .what = "a rigid body's name or world",
     .doc = "second rigid body, or `world`"},
    {"at", CN(JO, at), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "the joint's world point in the initial pose, m"},
    {"axis", CN(HI | SL, axis), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .check = sk_check_axis,
     .doc = "the joint's axis in the world frame of the initial pose, any length but not zero "
            "(hinge: b turns about it through `at`, angles positive by the right-hand rule; "
            "slider: b moves along it)"},
    {"axis", CN(BA, axis), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_axis), .check = sk_check_axis,
     .doc = "ball: the axis of `cone` and `twist`, a world direction of the initial pose fixed "
            "in both bodies, not zero [from `at` to b's centre; b `world`: from a's centre to "
            "`at`]"},
    {"cone", CN(BA, cone), .type = SK_NUM, .range = DEG, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_cone),
     .doc = "degrees: b's `axis` stays within this angle of a's (a swing limit, as a shoulder's) "
            "[none]"},
    {"twist", CN(BA, limits), .type = SK_VEC, .n = 2, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_limits), .check = sk_check_ball_limits,
     .doc = "`[lo, hi]` degrees, lo <= hi: b's turn relative to a about `axis` (0 in the "
            "initial pose, right-handed) stays within them [none]"},
    {"limits", CN(HI, limits), .type = SK_VEC, .n = 2, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_limits), .check = sk_check_limits,
     .doc = "`[lo, hi]` degrees, lo <= hi: the hinge angle (b relative to a about `axis`, 0 in "
            "the initial pose) stays within them [none]"},
    {"limits", CN(SL, limits), .type = SK_VEC, .n = 2, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_limits), .check = sk_check_limits,
     .doc = "`[lo, hi]` m, lo <= hi: b's travel along `axis` from the initial pose stays "
            "within them [none]"},
    {"motor", CN(HI | SL, has_motor), MAP(SKS_MOTOR), .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_motor),
     .doc = "hinge `{speed, max_torque}`, slider `{speed, max_force}`: a motor drives the "
            "joint's rate towards `speed` with at most the maximum, which is required; keys in "
            "[motor](#motor) [no motor]"},
    {"hertz", CN(WE, hertz), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "Hz: 0 holds the relative orientation rigidly; above, it is a soft spring of this "
            "frequency (the anchors still coincide)"},
    {"damping_ratio", CN(WE, damping_ratio), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "of the soft weld's angular spring (1: critical)"},
    {"spring", CN(HI, hertz), MAP(SKS_SPRING), .def = "{}",
     .doc = "`{hertz, damping_ratio, rest}`: a soft spring pulls the hinge angle towards `rest`; "
            "keys in [spring](#spring) [no spring]"},
    {"collide", CN(JO | DI, collide), .type = SK_BOOL, .def = "false",
     .doc = "rigid joints: `true` lets the two joined bodies collide with each other (by "
            "default they do not)"},
    {"particle", CN(AT, a), .type = SK_REF, .flags = SKF_REQUIRED, .what = REF_WHAT,
     .doc = "the particle held"},
    {"body", CN(AT, b), .type = SK_REF, .flags = SKF_REQUIRED, .what = "a rigid body's name",
     .doc = "the rigid body that holds it (and is pulled by it)"},
    {"at", CN(AT, at), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_REQUIRED,
     .doc = "the point in the body's local frame, m"},
    {"rest", CN(DI, rest), HOOK(sk_load_rest, sk_emit_rest), .omit = sk_rest_omitted,
     .def = "auto",
     .doc = "two-sided rest length >= 0, or `auto` (the initial distance); at most one of "
            "`rest`, `min`, `max`"},
    {"min", CN(DI, min), .type = SK_NUM, .range = NONNEG, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_min),
     .doc = "one-sided: only pushes apart below this length"},
    {"max", CN(DI, max), .type = SK_NUM, .range = NONNEG, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_max),
     .doc = "one-sided: only pulls together above this length"},
    {"min", CN(AN, min), .type = SK_NUM, .range = DEG, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_min), .doc = "smallest angle at b, degrees"},
    {"max", CN(AN, max), .type = SK_NUM, .range = DEG, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_max), .check = sk_check_angle,
     .doc = "largest angle at b, degrees (min and/or max)"},
    {"keys", CN(PN, keys), HOOK(sk_load_keys, sk_emit_keys), .omit = sk_no_keys,
     .doc = "kinematic keys `[[t, x, y, z], ...]`, t strictly increasing (a time: `A/B` "
            "works); linear in between; held after the last key"},
    {"at", CN(PN, at), .type = SK_VEC, .n = 3, .range = ANY, .flags = SKF_HAS,
     .has_off = offsetof(vs_constraint_desc, has_at),
     .doc = "where to hold it (not with `keys`) [its initial position]"},
    {"stiffness", CN(DI | AN, stiffness), .type = SK_NUM, .range = STIFF, .def = "1",
     .doc = "used by verlet and pbd"},
    {"compliance", CN(DI | AN, compliance), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "m/N, used by xpbd"},

    /* ---- motor: `{speed, max_torque}` (hinge) or `{speed, max_force}` (slider) ---- */
    {"speed", MO(HI, motor_speed), .type = SK_NUM, .range = ANY, .def = "0",
     .doc = "rad/s: the hinge angle's rate that the motor drives towards (0: a brake)"},
    {"speed", MO(SL, motor_speed), .type = SK_NUM, .range = ANY, .def = "0",
     .doc = "m/s: b's speed along `axis` that the motor drives towards (0: a brake)"},
    {"max_torque", MO(HI, max_torque), .type = SK_NUM, .range = NONNEG, .flags = SKF_REQUIRED,
     .doc = "hinge: N m, the motor's largest torque"},
    {"max_force", MO(SL, max_torque), .type = SK_NUM, .range = NONNEG, .flags = SKF_REQUIRED,
     .doc = "slider: N, the motor's largest force"},

    /* ---- spring: `{hertz, damping_ratio, rest}` (hinge) ---- */
    {"hertz", SPR(HI, hertz), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "Hz, the spring's frequency (0: no spring)"},
    {"damping_ratio", SPR(HI, damping_ratio), .type = SK_NUM, .range = NONNEG, .def = "0",
     .doc = "the spring's damping ratio (1: critical)"},
    {"rest", SPR(HI, spring_rest), .type = SK_NUM, .range = ANY, .def = "0",
     .doc = "degrees, the spring's rest angle"},
};
const size_t vs_sk_n_rows = sizeof vs_sk_rows / sizeof *vs_sk_rows;

const char *sk_key(const sk_row *r) {
  const char *dot = r->path;
  for (const char *p = r->path; *p; p++)
    if (*p == '.') dot = p + 1;
  return dot;
}

int sk_applies(const sk_row *r, int scope, int kind) {
  return r->scope == scope && (scope == SKS_SCENE || (r->kinds >> kind) & 1u);
}

const sk_row *sk_map_row(int sub, int kind) {
  for (size_t i = 0; i < vs_sk_n_rows; i++) {
    const sk_row *r = &vs_sk_rows[i];
    if (r->type == SK_MAP && r->sub == sub && (r->kinds >> kind) & 1u) return r;
  }
  return NULL;
}

void sk_scope_keys(int scope, int kind, char *buf, size_t size) {
  size_t k = 0;
  int first = 1;
  buf[0] = '\0';
  for (size_t i = 0; i < vs_sk_n_rows && k + 1 < size; i++) {
    if (!sk_applies(&vs_sk_rows[i], scope, kind)) continue;
    int n = snprintf(buf + k, size - k, "%s%s", first ? "{" : ", ", sk_key(&vs_sk_rows[i]));
    if (n < 0 || (size_t)n >= size - k) break;
    k += (size_t)n;
    first = 0;
  }
  if (!first && k + 1 < size) snprintf(buf + k, size - k, "}");
}
