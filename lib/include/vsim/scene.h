/* SPDX-License-Identifier: MIT */
/* vsim/scene.h: YAML scene text -> plain scene description.
 *
 * Stage 1 of the pipeline (scene -> model -> state -> writer).  The loader
 * parses YAML 1.1 through libyaml, applies `--set KEY=VALUE` overrides on the
 * document tree, fills defaults, checks every key, type and range, and keeps
 * the 1-based line:column of every item so that the model compiler can still
 * point into the source (e.g. a particle reference to a missing body).
 * Nothing here knows physics beyond the ranges in docs/scene-format.md. */
#ifndef VSIM_SCENE_H
#define VSIM_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/kind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documented limits, checked before anything is allocated. */
#define VS_MAX_SCENE_BYTES (64u << 20)   /* scene file size */
#define VS_MAX_YAML_DEPTH 64             /* nesting of mappings/sequences */
#define VS_MAX_YAML_NODES 4000000        /* nodes in the document */
#define VS_MAX_YAML_ALIASES 1000         /* alias uses */
#define VS_MAX_PARTICLES 50000000        /* particles in a scene */
#define VS_MAX_CONSTRAINTS 200000000     /* constraints after build */
#define VS_MAX_BODIES 100000
#define VS_MAX_COLLIDERS 10000
#define VS_MAX_EXPLICIT 10000000         /* items in `constraints:` */
#define VS_MAX_RESOLUTION 16384          /* cloth/lattice per axis */
#define VS_MAX_SEGMENTS 10000000         /* rope segments */
#define VS_MAX_FRAMES 100000000
#define VS_MAX_SUBSTEPS 100000
#define VS_MAX_ITERATIONS 100000
#define VS_MAX_KEYS 1000000              /* kinematic pin keys per pin; world.wind_keys */
#define VS_MAX_NAME 63                   /* body name length */
#define VS_MAX_PATH 4096                 /* mesh file path length */
#define VS_MESH_MAX_COORD 1e15           /* m: a mesh's vertices after its transform, per axis */

typedef struct vs_loc {
  int line;   /* 1-based; 0 = not from the file (default or --set) */
  int column; /* 1-based */
} vs_loc;

typedef enum vs_integrator {
  VS_INTEGRATOR_VERLET = 0,
  VS_INTEGRATOR_PBD = 1,
  VS_INTEGRATOR_XPBD = 2
} vs_integrator;

typedef enum vs_relaxation {
  VS_RELAX_GAUSS_SEIDEL = 0,
  VS_RELAX_JACOBI = 1
} vs_relaxation;

/* A link family (stretch, shear, bend, ...): absent when !enabled. */
typedef struct vs_link_desc {
  int enabled;
  double stiffness;  /* pbd/verlet scale */
  double compliance; /* m/N, xpbd */
} vs_link_desc;

/* An OBJ file (`file`, relative to the scene file when the scene was read
 * from a file: vs_scene_load_file joins them) and its `transform`: scale,
 * then rotate (degrees, about x, then y, then z), then translate.  The model
 * reads the file (lib/model/obj.h). */
typedef struct vs_mesh_ref {
  char *file;          /* NULL when the kind has none */
  vs_loc loc;          /* the `file` value, for messages */
  double translate[3];
  double rotate[3];    /* degrees */
  double scale[3];     /* per axis; a scalar `scale` sets all three */
} vs_mesh_ref;

typedef struct vs_collider_desc {
  vs_collider_kind kind;
  double a[3];
  double b[3];        /* plane normal is normalised by the loader */
  double radius;      /* sphere only, > 0 */
  double friction;    /* Coulomb coefficient */
  double restitution;
  double thickness;   /* mesh: added to each particle's radius */
  vs_mesh_ref mesh;   /* mesh only */
  vs_loc loc;
} vs_collider_desc;

typedef enum vs_body_kind {
  VS_BODY_PARTICLES = 0,
  VS_BODY_ROPE,
  VS_BODY_CLOTH,
  VS_BODY_TETRA,
  VS_BODY_LATTICE,
  VS_BODY_RAGDOLL,
  VS_BODY_MESH,
  VS_BODY_RIGID       /* a true rigid body (no particles): box, sphere, capsule or convex */
} vs_body_kind;

/* How a body's `pin` was given. */
typedef enum vs_pin_mode {
  VS_PIN_NONE = 0,
  VS_PIN_LIST,        /* explicit: indices (rope/particles) or [i,j] pairs (cloth, lattice [i,j,k]) */
  VS_PIN_TOP_EDGE,    /* cloth/lattice: every particle with j = nv-1 */
  VS_PIN_TOP_CORNERS, /* cloth: (0,nv-1) and (nu-1,nv-1) */
  VS_PIN_FIRST,       /* rope */
  VS_PIN_LAST,        /* rope */
  VS_PIN_BOTH         /* rope */
} vs_pin_mode;

typedef enum vs_plane_axes { VS_PLANE_XY = 0, VS_PLANE_XZ, VS_PLANE_YZ } vs_plane_axes;

/* One item of `bodies`.  Fields not used by a kind keep their zero/default. */
typedef struct vs_body_desc {
  vs_body_kind kind;
  char name[VS_MAX_NAME + 1]; /* given or "<kind><index>", unique */
  vs_loc loc;                 /* the item */
  double mass;                /* total (cloth, rope, tetra, lattice, ragdoll) or each (particles) */
  double *masses;             /* particles: per-particle masses (count), or NULL */
  double radius;              /* collision radius per particle, >= 0 */

  /* particles */
  size_t count;               /* particles: number of positions */
  double *positions;          /* (count x 3) */
  double *velocities;         /* (count x 3) or NULL = zero */

  /* rope */
  double from[3], to[3];
  int64_t segments;           /* >= 1 */

  /* cloth / lattice */
  double origin[3];
  double size[3];             /* cloth uses [0..1] */
  int64_t resolution[3];      /* cloth uses [0..1], each >= 2 */
  vs_plane_axes plane;

  /* tetra */
  double center[3];
  double edge;                /* > 0 */
  double velocity[3];
  double angular_velocity[3]; /* rad/s */

  /* ragdoll */
  double height;              /* > 0 */

  /* mesh */
  vs_mesh_ref mesh;

  /* links */
  vs_link_desc stretch;       /* rope, cloth, lattice, tetra (the 6 links), ragdoll bones */
  vs_link_desc shear;         /* cloth, lattice */
  vs_link_desc bend;          /* cloth, rope, mesh */
  double tear;                /* >= 0, 0 = never; factor of rest length */
  double damping_rigid;       /* per step: PBD's dampVelocities towards the body's rigid motion */

  /* air (docs/physics.md, "Air"): air drag on every kind, drag and lift on cloth and mesh */
  double drag, lift;          /* cloth, mesh: per-triangle pressure coefficients C_d, C_l */
  double air_linear;          /* air_drag.linear, 1/s: per unit mass, linear in the relative v */
  double air_quadratic;       /* air_drag.quadratic, 1/m: quadratic in it */

  /* rigid (also: name, mass, size, velocity, angular_velocity; position in center;
   * convex: its points in count and positions, or its OBJ file in mesh.file) */
  vs_rigid_shape shape;
  double hull_scale;          /* convex: the points are multiplied by it [1] */
  vs_loc hull_loc;            /* convex: the `points` or `file` value, for messages */
  double rradius;             /* sphere and capsule, > 0 */
  double length;              /* capsule, > 0 */
  double orientation[4];      /* w, x, y, z (given: has_orientation) */
  double rotation[3];         /* degrees about fixed x, y, z (given: has_rotation) */
  int has_orientation, has_rotation;
  double density;             /* kg/m^3 (given: has_density; mass then follows) */
  int has_density;
  double friction, restitution;
  int fixed;
  int kinematic;              /* moved by its keys or velocities; infinite mass (not with fixed) */
  double *keys;               /* kinematic: (n_keys x 4) [t, x, y, z], or NULL */
  size_t n_keys;
  double *rotation_keys;      /* kinematic: (n_rotation_keys x 4) [t, rx, ry, rz] degrees, or NULL */
  size_t n_rotation_keys;
  double surface_velocity[3]; /* m/s in the body's frame: a conveyor belt's surface */
  int64_t collision_group;    /* 0..31 */
  int64_t collision_mask;     /* bit g: collides with group g */

  /* pins */
  vs_pin_mode pin_mode;
  int64_t *pins;              /* VS_PIN_LIST: n_pins entries of pin_arity ints each */
  size_t n_pins;
  int pin_arity;              /* 1 = index, 2 = [i,j] (cloth), 3 = [i,j,k] (lattice) */
  vs_loc pin_loc;
} vs_body_desc;

/* A particle reference as written: "NAME:INDEX", "NAME:I,J", or "17". */
typedef struct vs_ref {
  char text[128];
  vs_loc loc;
} vs_ref;

/* Items of `constraints` that act on rigid bodies, after the particle
 * constraint kinds: one row each of VS_RIGID_ITEMS (vsim/kind.h). */
enum {
  VS_CONSTRAINT_BEFORE_FIRST_ = VS_KIND_COUNT - 1,
#define VS_RIGID_ITEM_ENUM_(ID, name) VS_CONSTRAINT_##ID,
  VS_RIGID_ITEMS(VS_RIGID_ITEM_ENUM_)
#undef VS_RIGID_ITEM_ENUM_
  VS_CONSTRAINT_KINDS
};

/* One item of `constraints`. */
typedef struct vs_constraint_desc {
  vs_kind kind; /* the one enum of constraint kinds (vsim/kind.h), or VS_CONSTRAINT_* */
  vs_loc loc;
  vs_ref a, b, c;          /* distance: a, b; pin: a (= particle); angle: a, b, c;
                              ball: bodies a, b; attach: a (= particle), b (= body) */
  int rest_auto;           /* distance: rest: auto (default when no rest/min/max given) */
  double rest;             /* distance: two-sided rest length, >= 0 */
  int has_min, has_max;    /* distance: one-sided; angle: limits */
  double min, max;         /* distance: lengths; angle: degrees in [0, 180] */
  double stiffness;
  double compliance;
  int has_at;              /* pin: at given (else initial position) */
  double at[3];            /* pin: target; ball: world point; attach: body-local point */
  double *keys;            /* pin: (n_keys x 4) [t, x, y, z], t strictly increasing, or NULL */
  int collide;             /* rigid joints: the joined bodies collide with each other */
  int has_axis;            /* ball: axis given (with cone or twist) */
  double axis[3];          /* hinge, slider, ball: world axis in the initial pose (not zero) */
  int has_limits;          /* hinge, slider: limits given; ball: twist given */
  double limits[2];        /* hinge, ball twist: degrees; slider: m; lo <= hi */
  int has_cone;            /* ball: cone given */
  double cone;             /* ball: degrees in [0, 180] */
  int has_motor;           /* hinge, slider: `motor` given */
  double motor_speed;      /* motor.speed; hinge: rad/s; slider: m/s */
  double max_torque;       /* motor.max_torque (hinge, N m) or motor.max_force (slider, N) */
  double hertz;            /* weld: frequency of its angular rows (0: rigid); hinge: spring.hertz */
  double damping_ratio;    /* weld; hinge: spring.damping_ratio */
  double spring_rest;      /* hinge: spring.rest, the spring's rest angle, degrees */
  size_t n_keys;
} vs_constraint_desc;

/* Output fields (bit mask). */
enum {
  VS_FIELD_POSITION = 1u << 0,
  VS_FIELD_VELOCITY = 1u << 1,
  VS_FIELD_CONSTRAINT_ERROR = 1u << 2,
  VS_FIELD_PER_CONSTRAINT_ERROR = 1u << 3
};

typedef struct vs_output_desc {
  int64_t every;
  unsigned fields;   /* VS_FIELD_* bits */
  int float32;       /* output.precision: 1 = float32, 0 = float64 */
  int compression;   /* gzip level */
  char author[VS_MAX_NAME + 1]; /* output.author */
  int xdmf;          /* output.xdmf: vsim run writes OUT.xmf beside OUT.h5 */
} vs_output_desc;

/* solver.rigid: the sequential-impulse solver of the rigid bodies. */
typedef struct vs_rigid_solver_desc {
  int64_t iterations;
  double baumgarte;
  double slop;
  double margin;
  double restitution_threshold;
  int warm_start;
  int64_t substeps;
  int sleep;         /* islands at rest stop being solved until touched */
  int geometric_stiffness; /* the forest's joints: their anchor forces' turning implicit */
} vs_rigid_solver_desc;

typedef struct vs_scene {
  char *file;           /* path as given, or "<default>" for the embedded scene */
  char *text;           /* the YAML text exactly as read (NUL-terminated) */
  size_t text_len;

  int version;          /* vsim: 1 */
  char name[256];       /* default: the file name without extension */

  /* Every key below is one row of the key table, lib/scene/scene_keys.c,
   * which holds its range, default and documentation (none are repeated
   * here). */
  double dt;            /* time.dt */
  int64_t frames;       /* time.frames */
  int64_t substeps;     /* time.substeps */

  vs_integrator integrator; /* solver.* */
  int64_t iterations;
  vs_relaxation relaxation;
  double omega;
  double damping;       /* 1/s */
  int sqrt_approximation; /* Jakobsen's first-order Taylor stick update */
  double runaway_speed; /* m/s, 0 = off: a faster particle fails the run */
  vs_rigid_solver_desc rigid; /* solver.rigid */

  double gravity[3];    /* world.* */
  int particle_collisions;
  int swept;            /* continuous test against colliders along each step's path */
  int shock_propagation; /* stacking: a particle resting on a collider is immovable to contacts above it */
  double particle_friction; /* Coulomb coefficient between colliding particles */
  double wind[3];       /* m/s, when no wind_keys */
  double *wind_keys;    /* (n_wind_keys x 4) [t, x, y, z], t strictly increasing, or NULL */
  size_t n_wind_keys;
  double air_density;   /* kg/m^3 */
  vs_collider_desc *colliders;
  size_t n_colliders;

  vs_body_desc *bodies;
  size_t n_bodies;

  vs_constraint_desc *constraints;
  size_t n_constraints;

  vs_output_desc output;
} vs_scene;

/* The words of each enum of the scene format, as the loader reads them and
 * the emitter writes them (one table per enum, in lib/scene/scene_keys.c). */
typedef enum vs_scene_names {
  VS_NAMES_INTEGRATOR = 0, /* vs_integrator */
  VS_NAMES_RELAXATION,     /* vs_relaxation */
  VS_NAMES_PLANE,          /* vs_plane_axes */
  VS_NAMES_BODY,           /* vs_body_kind */
  VS_NAMES_COLLIDER,       /* vs_collider_kind */
  VS_NAMES_CONSTRAINT,     /* vs_kind */
  VS_NAMES_PRECISION,      /* output.float32: 0 float64, 1 float32 */
  VS_NAMES_FIELD,          /* bit i of output.fields */
  VS_NAMES_PIN,            /* vs_pin_mode */
  VS_NAMES_SHAPE           /* vs_rigid_shape */
} vs_scene_names;

/* The word for value in that enum ("xpbd"), or NULL when out of range. */
const char *vs_scene_name(vs_scene_names which, int value);

/* One `--set KEY=VALUE` override: key a dotted path, value parsed as YAML. */
typedef struct vs_override {
  const char *text; /* "solver.iterations=20" as given on the command line */
} vs_override;

/* The embedded default scene (a hanging cloth falling onto a sphere). */
const char *vs_scene_default_text(void);

/* Load from memory.  `file` names the source in messages ("cloth.yaml").
 * Overrides are applied in order before validation.  On failure *out is
 * left NULL and err says file:line:col and what was expected. */
vs_status vs_scene_load_string(const char *text, size_t len, const char *file,
                               const vs_override *sets, size_t n_sets,
                               vs_scene **out, vs_error *err);

/* Read the file (limit VS_MAX_SCENE_BYTES, checked before reading) and load. */
vs_status vs_scene_load_file(const char *path, const vs_override *sets,
                             size_t n_sets, vs_scene **out, vs_error *err);

/* The scene after defaults and overrides, as YAML text that loads back to an
 * equal scene.  The caller releases *out with vs_free_buffer() (vsim/alloc.h). */
vs_status vs_scene_to_yaml(const vs_scene *scene, char **out, vs_error *err);

/* A JSON Schema (draft-07) of the scene format, generated from the key
 * table: every key with its type, range, enum, required-ness, default and
 * documentation (`vsim schema`, docs/cli.md).  Release *json with
 * vs_free_buffer(). */
vs_status vs_scene_schema(char **json, vs_error *err);

void vs_scene_free(vs_scene *scene);

#ifdef __cplusplus
}
#endif
#endif
