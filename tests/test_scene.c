/* SPDX-License-Identifier: MIT */
/* test_scene.c: the scene loader (lib/scene/): defaults, every key of
 * every kind, pins, --set overrides, the YAML round trip, and every class of
 * bad input with its code, position and message. */
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"

/* ---- helpers --------------------------------------------------------------- */

static vs_scene *load_sets(const char *yaml, const char *const *sets, size_t n) {
  vs_override ov[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) ov[i].text = sets[i];
  vs_scene *s = NULL;
  vs_error e;
  vs_status st = vs_scene_load_string(yaml, strlen(yaml), "test.yaml", ov, n, &s, &e);
  if (st != VS_OK) {
    char buf[2048];
    ck_abort_msg("scene failed: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return s;
}

/* Load, expect failure with code at line:col (line < 0: don't care) and a
 * message containing sub; returns the error for further checks. */
static vs_error expect_fail_sets(const char *yaml, const char *const *sets, size_t n,
                                 vs_status code, int line, int col, const char *sub) {
  vs_override ov[16];
  for (size_t i = 0; i < n; i++) ov[i].text = sets[i];
  vs_scene *s = (vs_scene *)(uintptr_t)1;
  vs_error e;
  vs_status st = vs_scene_load_string(yaml, strlen(yaml), "bad.yaml", ov, n, &s, &e);
  char buf[2048];
  vs_error_format(&e, buf, sizeof buf);
  ck_assert_msg(st == code, "expected status %d, got %d: %s", (int)code, (int)st, buf);
  ck_assert_int_eq(e.code, code);
  ck_assert_ptr_null(s);
  if (line >= 0) {
    ck_assert_msg(e.line == line && e.column == col, "expected %d:%d, got %d:%d: %s", line, col,
                  e.line, e.column, buf);
  }
  ck_assert_msg(strstr(e.message, sub) != NULL, "message '%s' lacks '%s'", e.message, sub);
  return e;
}

static vs_error expect_fail(const char *yaml, vs_status code, int line, int col, const char *sub) {
  vs_error e = expect_fail_sets(yaml, NULL, 0, code, line, col, sub);
  ck_assert_str_eq(e.file, "bad.yaml");
  return e;
}

static int link_eq(const vs_link_desc *a, const vs_link_desc *b) {
  return a->enabled == b->enabled && a->stiffness == b->stiffness && a->compliance == b->compliance;
}

static int arr_eq(const double *a, const double *b, size_t n) {
  if (!a || !b) return a == b;
  return memcmp(a, b, n * sizeof *a) == 0;
}

/* Equality of everything but file, text and source positions. */
static void assert_scene_eq(const vs_scene *a, const vs_scene *b) {
  ck_assert_int_eq(a->version, b->version);
  ck_assert_str_eq(a->name, b->name);
  ck_assert(a->dt == b->dt);
  ck_assert_int_eq(a->frames, b->frames);
  ck_assert_int_eq(a->substeps, b->substeps);
  ck_assert_int_eq(a->integrator, b->integrator);
  ck_assert_int_eq(a->iterations, b->iterations);
  ck_assert_int_eq(a->relaxation, b->relaxation);
  ck_assert(a->omega == b->omega && a->damping == b->damping);
  ck_assert_int_eq(a->sqrt_approximation, b->sqrt_approximation);
  ck_assert(a->runaway_speed == b->runaway_speed);
  ck_assert(arr_eq(a->gravity, b->gravity, 3));
  ck_assert_int_eq(a->particle_collisions, b->particle_collisions);
  ck_assert_int_eq(a->swept, b->swept);
  ck_assert_int_eq(a->shock_propagation, b->shock_propagation);
  ck_assert(a->particle_friction == b->particle_friction);
  ck_assert_uint_eq(a->n_colliders, b->n_colliders);
  for (size_t i = 0; i < a->n_colliders; i++) {
    const vs_collider_desc *x = &a->colliders[i], *y = &b->colliders[i];
    ck_assert_int_eq(x->kind, y->kind);
    ck_assert(arr_eq(x->a, y->a, 3) && arr_eq(x->b, y->b, 3));
    ck_assert(x->radius == y->radius && x->friction == y->friction &&
              x->restitution == y->restitution);
  }
  ck_assert_uint_eq(a->n_bodies, b->n_bodies);
  for (size_t i = 0; i < a->n_bodies; i++) {
    const vs_body_desc *x = &a->bodies[i], *y = &b->bodies[i];
    ck_assert_int_eq(x->kind, y->kind);
    ck_assert_str_eq(x->name, y->name);
    ck_assert(x->mass == y->mass && x->radius == y->radius && x->tear == y->tear);
    ck_assert(x->damping_rigid == y->damping_rigid);
    ck_assert_uint_eq(x->count, y->count);
    ck_assert(arr_eq(x->masses, y->masses, x->count));
    ck_assert(arr_eq(x->positions, y->positions, 3 * x->count));
    ck_assert(arr_eq(x->velocities, y->velocities, 3 * x->count));
    ck_assert(arr_eq(x->from, y->from, 3) && arr_eq(x->to, y->to, 3));
    ck_assert_int_eq(x->segments, y->segments);
    ck_assert(arr_eq(x->origin, y->origin, 3) && arr_eq(x->size, y->size, 3));
    ck_assert(memcmp(x->resolution, y->resolution, sizeof x->resolution) == 0);
    ck_assert_int_eq(x->plane, y->plane);
    ck_assert(arr_eq(x->center, y->center, 3) && x->edge == y->edge);
    ck_assert(arr_eq(x->velocity, y->velocity, 3));
    ck_assert(arr_eq(x->angular_velocity, y->angular_velocity, 3));
    ck_assert(x->height == y->height);
    ck_assert(link_eq(&x->stretch, &y->stretch));
    ck_assert(link_eq(&x->shear, &y->shear));
    ck_assert(link_eq(&x->bend, &y->bend));
    ck_assert_int_eq(x->pin_mode, y->pin_mode);
    ck_assert_uint_eq(x->n_pins, y->n_pins);
    ck_assert_int_eq(x->pin_arity, y->pin_arity);
    if (x->n_pins)
      ck_assert(memcmp(x->pins, y->pins, x->n_pins * (size_t)x->pin_arity * sizeof *x->pins) == 0);
  }
  ck_assert_uint_eq(a->n_constraints, b->n_constraints);
  for (size_t i = 0; i < a->n_constraints; i++) {
    const vs_constraint_desc *x = &a->constraints[i], *y = &b->constraints[i];
    ck_assert_int_eq(x->kind, y->kind);
    ck_assert_str_eq(x->a.text, y->a.text);
    ck_assert_str_eq(x->b.text, y->b.text);
    ck_assert_str_eq(x->c.text, y->c.text);
    ck_assert_int_eq(x->rest_auto, y->rest_auto);
    ck_assert(x->rest == y->rest && x->min == y->min && x->max == y->max);
    ck_assert_int_eq(x->has_min, y->has_min);
    ck_assert_int_eq(x->has_max, y->has_max);
    ck_assert(x->stiffness == y->stiffness && x->compliance == y->compliance);
    ck_assert_int_eq(x->has_at, y->has_at);
    ck_assert(arr_eq(x->at, y->at, 3));
    ck_assert_uint_eq(x->n_keys, y->n_keys);
    ck_assert(arr_eq(x->keys, y->keys, 4 * x->n_keys));
  }
  ck_assert_int_eq(a->output.every, b->output.every);
  ck_assert_uint_eq(a->output.fields, b->output.fields);
  ck_assert_int_eq(a->output.float32, b->output.float32);
  ck_assert_int_eq(a->output.compression, b->output.compression);
  ck_assert_str_eq(a->output.author, b->output.author);
}

/* Emit, reload, compare; and the second emission equals the first. */
static void round_trip(const vs_scene *s) {
  char *y1 = NULL, *y2 = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_to_yaml(s, &y1, &e), VS_OK);
  vs_scene *r = NULL;
  vs_status st = vs_scene_load_string(y1, strlen(y1), "resolved.yaml", NULL, 0, &r, &e);
  char buf[2048];
  ck_assert_msg(st == VS_OK, "reload failed: %s\n%s", vs_error_format(&e, buf, sizeof buf), y1);
  assert_scene_eq(s, r);
  ck_assert_int_eq(vs_scene_to_yaml(r, &y2, &e), VS_OK);
  ck_assert_str_eq(y1, y2);
  vs_free_buffer(y1);
  vs_free_buffer(y2);
  vs_scene_free(r);
}

/* Every key of every kind, none at its default. */
static const char *const FULL =
    "vsim: 1\n"
    "name: full-scene\n"
    "time:\n"
    "  dt: 0.005\n"
    "  frames: 300\n"
    "  substeps: 3\n"
    "solver:\n"
    "  integrator: xpbd\n"
    "  iterations: 25\n"
    "  relaxation: jacobi\n"
    "  omega: 1.5\n"
    "  damping: 0.25\n"
    "  sqrt_approximation: true\n"
    "  runaway_speed: 250\n"
    "world:\n"
    "  gravity: [0, -1.62, 0.5]\n"
    "  particle_collisions: true\n"
    "  swept: true\n"
    "  shock_propagation: true\n"
    "  particle_friction: 0.4\n"
    "  colliders:\n"
    "    - plane:  {point: [0, 0.1, 0], normal: [0, 2, 0], friction: 0.3, restitution: 0.1}\n"
    "    - sphere: {center: [0, 0.5, 0], radius: 0.25}\n"
    "    - box:    {min: [-1, 0, -1], max: [1, 0.2, 1], friction: 0.7}\n"
    "    - bounds: {min: [0, 0, 0], max: [1000, 1000, 1000], restitution: 1}\n"
    "bodies:\n"
    "  - cloth:\n"
    "      name: curtain\n"
    "      origin: [-1, 2, 0]\n"
    "      size: [2, 3]\n"
    "      resolution: [32, 16]\n"
    "      plane: yz\n"
    "      mass: 2.5\n"
    "      radius: 0.02\n"
    "      stretch: {stiffness: 0.9, compliance: 0.001}\n"
    "      shear:   {stiffness: 0.8}\n"
    "      bend:    {stiffness: 0.5, compliance: 0.1}\n"
    "      pin: [[0, 15], [31, 15]]\n"
    "      tear: 1.5\n"
    "      damping_rigid: 0.125\n"
    "  - rope:\n"
    "      name: line\n"
    "      from: [0, 2, 0]\n"
    "      to: [2, 2, 0]\n"
    "      segments: 20\n"
    "      mass: 0.5\n"
    "      radius: 0.01\n"
    "      stretch: {stiffness: 1.0}\n"
    "      bend: {stiffness: 0.2}\n"
    "      pin: [first, 10]\n"
    "      tear: 3\n"
    "  - particles:\n"
    "      name: shot\n"
    "      positions: [[0, 3, 0], [0.1, 3, 0]]\n"
    "      velocities: [[1, 0, 0], [1, 0, -1]]\n"
    "      masses: [0.1, 0.2]\n"
    "      radius: 0.05\n"
    "      pin: [1]\n"
    "  - tetra:\n"
    "      name: die\n"
    "      center: [0, 1, 0]\n"
    "      edge: 0.3\n"
    "      mass: 2\n"
    "      radius: 0.001\n"
    "      velocity: [1, 2, 3]\n"
    "      angular_velocity: [0, 6.28, 0]\n"
    "      stiffness: 0.7\n"
    "      compliance: 0.01\n"
    "  - lattice:\n"
    "      name: jelly\n"
    "      origin: [0, 1, 0]\n"
    "      size: [1, 0.5, 0.25]\n"
    "      resolution: [4, 3, 2]\n"
    "      mass: 3\n"
    "      stretch: {stiffness: 0.6}\n"
    "      shear: none\n"
    "      pin: [[0, 2, 1], [3, 0, 0]]\n"
    "      tear: 2\n"
    "  - ragdoll:\n"
    "      name: bob\n"
    "      origin: [3, 0, 0]\n"
    "      height: 1.8\n"
    "      mass: 70\n"
    "      pin: [0]\n"
    "      stiffness: 0.95\n"
    "      compliance: 0.0001\n"
    "  - rope:\n"
    "      from: [0, 0, 0]\n"
    "      to: [0, 0, 1]\n"
    "      segments: 4\n"
    "constraints:\n"
    "  - distance: {a: \"line:20\", b: \"curtain:0,15\", rest: auto, stiffness: 0.5}\n"
    "  - distance: {a: \"shot:0\", b: \"shot:1\", min: 0.05}\n"
    "  - distance: {a: 3, b: 4, max: 2, compliance: 0.01}\n"
    "  - distance: {a: 5, b: 6, rest: 1.25}\n"
    "  - distance: {a: 5, b: 7}\n"
    "  - pin: {particle: \"line:10\", at: [1, 2.5, 0]}\n"
    "  - pin: {particle: \"line:0\", keys: [[0, 0, 2, 0], [1.5, 0.5, 2, 0]]}\n"
    "  - pin: {particle: \"die:0\"}\n"
    "  - angle: {a: \"bob:1\", b: \"bob:2\", c: \"bob:3\", min: 10, max: 175, stiffness: 0.9}\n"
    "output:\n"
    "  every: 2\n"
    "  fields: [position, velocity, per_constraint_error]\n"
    "  precision: float32\n"
    "  compression: 6\n"
    "  author: Ada Lovelace\n";

/* ---- defaults --------------------------------------------------------------- */

START_TEST(test_defaults) {
  vs_scene *s = tu_scene("");
  ck_assert_int_eq(s->version, 1);
  ck_assert_str_eq(s->name, "test");
  ck_assert(s->dt == 1.0 / 60.0);
  ck_assert_int_eq(s->frames, 100);
  ck_assert_int_eq(s->substeps, 1);
  ck_assert_int_eq(s->integrator, VS_INTEGRATOR_PBD);
  ck_assert_int_eq(s->iterations, 10);
  ck_assert_int_eq(s->relaxation, VS_RELAX_GAUSS_SEIDEL);
  ck_assert(s->omega == 1.0 && s->damping == 0.0);
  ck_assert(s->gravity[0] == 0 && s->gravity[1] == -9.81 && s->gravity[2] == 0);
  ck_assert_int_eq(s->particle_collisions, 0);
  ck_assert_uint_eq(s->n_colliders, 0);
  ck_assert_uint_eq(s->n_bodies, 0);
  ck_assert_uint_eq(s->n_constraints, 0);
  ck_assert_int_eq(s->output.every, 1);
  ck_assert_uint_eq(s->output.fields, VS_FIELD_POSITION | VS_FIELD_CONSTRAINT_ERROR);
  ck_assert_int_eq(s->output.float32, 0);
  ck_assert_int_eq(s->output.compression, 0);
  ck_assert_str_eq(s->file, "test.yaml");
  ck_assert_str_eq(s->text, "");
  vs_scene_free(s);

  /* empty sections are all defaults too; comments only is an empty scene */
  s = tu_scene("# nothing\ntime:\nsolver: {}\nworld:\nbodies: []\noutput:\n");
  ck_assert_int_eq(s->frames, 100);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_default_name_from_file) {
  static const char *t = "time: {frames: 1}\n";
  vs_scene *s = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_load_string(t, strlen(t), "dir/sub/cloth.v2.yaml", NULL, 0, &s, &e),
                   VS_OK);
  ck_assert_str_eq(s->name, "cloth.v2");
  ck_assert_str_eq(s->text, t);
  ck_assert_uint_eq(s->text_len, strlen(t));
  vs_scene_free(s);
  ck_assert_int_eq(vs_scene_load_string(t, strlen(t), "<default>", NULL, 0, &s, &e), VS_OK);
  ck_assert_str_eq(s->name, "default");
  vs_scene_free(s);
  vs_scene_free(NULL); /* NULL-safe */
}
END_TEST

START_TEST(test_default_scene) {
  const char *t = vs_scene_default_text();
  ck_assert_ptr_nonnull(strchr(t, '#')); /* commented */
  vs_scene *s = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_load_string(t, strlen(t), "<default>", NULL, 0, &s, &e), VS_OK);
  ck_assert_str_eq(s->name, "default");
  ck_assert_int_eq(s->frames, 180);
  ck_assert_int_eq(s->substeps, 4);
  ck_assert_int_eq(s->iterations, 10);
  ck_assert_int_eq(s->integrator, VS_INTEGRATOR_PBD);
  ck_assert_int_eq(s->output.every, 1);
  ck_assert_uint_eq(s->n_colliders, 2);
  ck_assert_int_eq(s->colliders[0].kind, VS_COLLIDER_PLANE);
  ck_assert(s->colliders[0].friction == 0.3 && s->colliders[0].a[1] == 0);
  ck_assert_int_eq(s->colliders[1].kind, VS_COLLIDER_SPHERE);
  ck_assert(s->colliders[1].radius == 0.5);
  ck_assert_uint_eq(s->n_bodies, 1);
  const vs_body_desc *b = &s->bodies[0];
  ck_assert_int_eq(b->kind, VS_BODY_CLOTH);
  ck_assert_int_eq(b->resolution[0], 32);
  ck_assert_int_eq(b->resolution[1], 32);
  ck_assert_int_eq(b->plane, VS_PLANE_XZ);
  ck_assert(b->size[0] == 2 && b->size[1] == 2 && b->radius == 0.01);
  ck_assert(b->origin[1] == 1.5 && b->origin[0] == -1 && b->origin[2] == -1);
  ck_assert(b->stretch.enabled && b->shear.enabled && b->bend.enabled);
  round_trip(s);
  vs_scene_free(s);
}
END_TEST

/* ---- every key ------------------------------------------------------------- */

START_TEST(test_full_scene) {
  vs_scene *s = tu_scene(FULL);
  ck_assert_str_eq(s->name, "full-scene");
  ck_assert(s->dt == 0.005);
  ck_assert_int_eq(s->frames, 300);
  ck_assert_int_eq(s->substeps, 3);
  ck_assert_int_eq(s->integrator, VS_INTEGRATOR_XPBD);
  ck_assert_int_eq(s->iterations, 25);
  ck_assert_int_eq(s->relaxation, VS_RELAX_JACOBI);
  ck_assert(s->omega == 1.5 && s->damping == 0.25);
  ck_assert(s->gravity[1] == -1.62 && s->gravity[2] == 0.5);
  ck_assert_int_eq(s->particle_collisions, 1);
  ck_assert(s->sqrt_approximation == 1 && s->runaway_speed == 250);
  ck_assert(s->swept == 1 && s->shock_propagation == 1 && s->particle_friction == 0.4);
  ck_assert_str_eq(s->output.author, "Ada Lovelace");

  ck_assert_uint_eq(s->n_colliders, 4);
  const vs_collider_desc *c = s->colliders;
  ck_assert_int_eq(c[0].kind, VS_COLLIDER_PLANE);
  ck_assert(c[0].a[1] == 0.1 && c[0].b[0] == 0 && c[0].b[1] == 1 && c[0].b[2] == 0);
  ck_assert(c[0].friction == 0.3 && c[0].restitution == 0.1);
  ck_assert_int_eq(c[0].loc.line, 22);
  ck_assert_int_eq(c[0].loc.column, 7);
  ck_assert_int_eq(c[1].kind, VS_COLLIDER_SPHERE);
  ck_assert(c[1].a[1] == 0.5 && c[1].radius == 0.25 && c[1].friction == 0);
  ck_assert_int_eq(c[2].kind, VS_COLLIDER_BOX);
  ck_assert(c[2].a[0] == -1 && c[2].b[1] == 0.2 && c[2].friction == 0.7);
  ck_assert_int_eq(c[3].kind, VS_COLLIDER_BOUNDS);
  ck_assert(c[3].b[2] == 1000 && c[3].restitution == 1);

  ck_assert_uint_eq(s->n_bodies, 7);
  const vs_body_desc *b = &s->bodies[0];
  ck_assert_int_eq(b->kind, VS_BODY_CLOTH);
  ck_assert_str_eq(b->name, "curtain");
  ck_assert_int_eq(b->loc.line, 27);
  ck_assert(b->origin[0] == -1 && b->origin[1] == 2 && b->size[0] == 2 && b->size[1] == 3);
  ck_assert_int_eq(b->resolution[0], 32);
  ck_assert_int_eq(b->resolution[1], 16);
  ck_assert_int_eq(b->plane, VS_PLANE_YZ);
  ck_assert(b->mass == 2.5 && b->radius == 0.02 && b->tear == 1.5 && b->damping_rigid == 0.125);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 0.9 && b->stretch.compliance == 0.001);
  ck_assert(b->shear.enabled && b->shear.stiffness == 0.8 && b->shear.compliance == 0);
  ck_assert(b->bend.enabled && b->bend.stiffness == 0.5 && b->bend.compliance == 0.1);
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_int_eq(b->pin_arity, 2);
  ck_assert_uint_eq(b->n_pins, 2);
  ck_assert_int_eq(b->pins[2], 31);
  ck_assert_int_eq(b->pins[3], 15);
  ck_assert_int_eq(b->pin_loc.line, 38);
  ck_assert_int_eq(b->pin_loc.column, 12);

  b = &s->bodies[1];
  ck_assert_int_eq(b->kind, VS_BODY_ROPE);
  ck_assert_str_eq(b->name, "line");
  ck_assert(b->from[1] == 2 && b->to[0] == 2);
  ck_assert_int_eq(b->segments, 20);
  ck_assert(b->mass == 0.5 && b->radius == 0.01 && b->tear == 3);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 1.0);
  ck_assert(b->bend.enabled && b->bend.stiffness == 0.2);
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_uint_eq(b->n_pins, 2);
  ck_assert_int_eq(b->pins[0], 0);
  ck_assert_int_eq(b->pins[1], 10);

  b = &s->bodies[2];
  ck_assert_int_eq(b->kind, VS_BODY_PARTICLES);
  ck_assert_uint_eq(b->count, 2);
  ck_assert(b->positions[3] == 0.1 && b->positions[4] == 3);
  ck_assert(b->velocities[0] == 1 && b->velocities[5] == -1);
  ck_assert(b->masses[0] == 0.1 && b->masses[1] == 0.2);
  ck_assert(b->radius == 0.05);
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_int_eq(b->pins[0], 1);

  b = &s->bodies[3];
  ck_assert_int_eq(b->kind, VS_BODY_TETRA);
  ck_assert(b->center[1] == 1 && b->edge == 0.3 && b->mass == 2 && b->radius == 0.001);
  ck_assert(b->velocity[2] == 3 && b->angular_velocity[1] == 6.28);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 0.7 && b->stretch.compliance == 0.01);

  b = &s->bodies[4];
  ck_assert_int_eq(b->kind, VS_BODY_LATTICE);
  ck_assert(b->size[0] == 1 && b->size[1] == 0.5 && b->size[2] == 0.25 && b->mass == 3);
  ck_assert_int_eq(b->resolution[2], 2);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 0.6);
  ck_assert(!b->shear.enabled);
  ck_assert_int_eq(b->pin_arity, 3);
  ck_assert_uint_eq(b->n_pins, 2);
  ck_assert_int_eq(b->pins[1], 2);
  ck_assert_int_eq(b->pins[3], 3);
  ck_assert(b->tear == 2);

  b = &s->bodies[5];
  ck_assert_int_eq(b->kind, VS_BODY_RAGDOLL);
  ck_assert(b->origin[0] == 3 && b->height == 1.8 && b->mass == 70);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 0.95 && b->stretch.compliance == 0.0001);
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_int_eq(b->pins[0], 0);

  b = &s->bodies[6]; /* defaults of a rope */
  ck_assert_str_eq(b->name, "rope6");
  ck_assert(b->mass == 1.0 && b->radius == 0 && b->tear == 0);
  ck_assert(b->stretch.enabled && b->stretch.stiffness == 1 && b->stretch.compliance == 0);
  ck_assert(!b->bend.enabled);
  ck_assert_int_eq(b->pin_mode, VS_PIN_NONE);

  ck_assert_uint_eq(s->n_constraints, 9);
  const vs_constraint_desc *k = s->constraints;
  ck_assert_int_eq(k[0].kind, VS_KIND_DISTANCE);
  ck_assert_str_eq(k[0].a.text, "line:20");
  ck_assert_str_eq(k[0].b.text, "curtain:0,15");
  ck_assert_int_eq(k[0].a.loc.line, 92);
  ck_assert_int_eq(k[0].a.loc.column, 19);
  ck_assert(k[0].rest_auto && k[0].stiffness == 0.5 && k[0].compliance == 0);
  ck_assert(!k[1].rest_auto && k[1].has_min && !k[1].has_max && k[1].min == 0.05);
  ck_assert_str_eq(k[2].a.text, "3");
  ck_assert(k[2].has_max && k[2].max == 2 && k[2].compliance == 0.01 && k[2].stiffness == 1);
  ck_assert(!k[3].rest_auto && k[3].rest == 1.25);
  ck_assert(k[4].rest_auto);
  ck_assert_int_eq(k[5].kind, VS_KIND_PIN);
  ck_assert_str_eq(k[5].a.text, "line:10");
  ck_assert(k[5].has_at && k[5].at[1] == 2.5 && k[5].keys == NULL);
  ck_assert_uint_eq(k[6].n_keys, 2);
  ck_assert(!k[6].has_at && k[6].keys[4] == 1.5 && k[6].keys[5] == 0.5);
  ck_assert(!k[7].has_at && k[7].n_keys == 0);
  ck_assert_int_eq(k[8].kind, VS_KIND_ANGLE);
  ck_assert_str_eq(k[8].c.text, "bob:3");
  ck_assert(k[8].has_min && k[8].has_max && k[8].min == 10 && k[8].max == 175);
  ck_assert(k[8].stiffness == 0.9);

  ck_assert_int_eq(s->output.every, 2);
  ck_assert_uint_eq(s->output.fields,
                    VS_FIELD_POSITION | VS_FIELD_VELOCITY | VS_FIELD_PER_CONSTRAINT_ERROR);
  ck_assert_int_eq(s->output.float32, 1);
  ck_assert_int_eq(s->output.compression, 6);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_link_defaults) {
  vs_scene *s = tu_scene(
      "bodies:\n"
      "  - cloth: {origin: [0,0,0], size: [1,1], resolution: [2,2]}\n"
      "  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [2,2,2]}\n"
      "  - tetra: {center: [0,0,0], edge: 1}\n"
      "  - ragdoll: {origin: [0,0,0], height: 1}\n"
      "  - particles: {positions: [[0,0,0]], mass: 0.25}\n"
      "  - rope: {from: [0,0,0], to: [1,0,0], segments: 3, stretch: none}\n");
  const vs_body_desc *b = s->bodies;
  ck_assert_str_eq(b[0].name, "cloth0");
  ck_assert(b[0].stretch.enabled && !b[0].shear.enabled && !b[0].bend.enabled);
  ck_assert(b[0].mass == 1.0);
  ck_assert_int_eq(b[0].plane, VS_PLANE_XY);
  ck_assert_str_eq(b[1].name, "lattice1");
  ck_assert(b[1].stretch.enabled && b[1].shear.enabled && !b[1].bend.enabled);
  ck_assert(b[2].stretch.enabled && b[2].stretch.stiffness == 1.0);
  ck_assert(b[3].stretch.enabled);
  ck_assert_str_eq(b[4].name, "particles4");
  ck_assert(b[4].mass == 0.25 && b[4].masses == NULL && b[4].velocities == NULL);
  ck_assert(!b[5].stretch.enabled && !b[5].bend.enabled);
  round_trip(s);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_types) {
  vs_scene *s = tu_scene(
      "time: {dt: 1e-3, frames: +5}\n"
      "solver: {omega: 0x1p0, damping: 0}\n"
      "world: {particle_collisions: yes}\n"
      "name: \"2024\"\n");
  ck_assert(s->dt == 1e-3);
  ck_assert_int_eq(s->frames, 5);
  ck_assert(s->omega == 1.0);
  ck_assert_int_eq(s->particle_collisions, 1);
  ck_assert_str_eq(s->name, "2024");
  vs_scene_free(s);
}
END_TEST

/* ---- pins -------------------------------------------------------------------- */

static vs_scene *cloth_pin(const char *pin) {
  char y[512];
  snprintf(y, sizeof y,
           "bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [4,3], pin: %s}\n", pin);
  return tu_scene(y);
}

static vs_scene *rope_pin(const char *pin) {
  char y[512];
  snprintf(y, sizeof y, "bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 5, pin: %s}\n",
           pin);
  return tu_scene(y);
}

START_TEST(test_pins_cloth) {
  static const struct {
    const char *text;
    vs_pin_mode mode;
  } words[] = {{"none", VS_PIN_NONE},
               {"top-edge", VS_PIN_TOP_EDGE},
               {"top-corners", VS_PIN_TOP_CORNERS},
               {"[]", VS_PIN_NONE}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    vs_scene *s = cloth_pin(words[i].text);
    ck_assert_int_eq(s->bodies[0].pin_mode, words[i].mode);
    ck_assert_uint_eq(s->bodies[0].n_pins, 0);
    round_trip(s);
    vs_scene_free(s);
  }
  vs_scene *s = cloth_pin("[[0, 2], [3, 2], [1, 0]]");
  const vs_body_desc *b = &s->bodies[0];
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_int_eq(b->pin_arity, 2);
  ck_assert_uint_eq(b->n_pins, 3);
  ck_assert_int_eq(b->pins[2], 3);
  ck_assert_int_eq(b->pins[4], 1);
  round_trip(s);
  vs_scene_free(s);

  /* bodies:\n  - cloth: {..., pin: [[0, 2], [4, 0]]}: i = 4 is off a 4-wide grid */
  expect_fail(
      "bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [4,3], "
      "pin: [[0, 2], [4, 0]]}\n",
      VS_ERR_SCENE, 2, 77, "bodies.0.cloth.pin.1.0: expected grid coordinate i in [0, 3], got 4");
  expect_fail(
      "bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [4,3], pin: top-egde}\n",
      VS_ERR_SCENE, 2, 67, "did you mean 'top-edge'?");
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [4,3], pin: [[1]]}\n",
              VS_ERR_SCENE, 2, 68, "expected grid coordinates [i, j], got 1 item");
}
END_TEST

START_TEST(test_pins_rope) {
  static const struct {
    const char *text;
    vs_pin_mode mode;
  } words[] = {{"first", VS_PIN_FIRST},        {"last", VS_PIN_LAST},     {"both", VS_PIN_BOTH},
               {"none", VS_PIN_NONE},          {"[first]", VS_PIN_FIRST}, {"[last]", VS_PIN_LAST},
               {"[first, last]", VS_PIN_BOTH}, {"[]", VS_PIN_NONE}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    vs_scene *s = rope_pin(words[i].text);
    ck_assert_int_eq(s->bodies[0].pin_mode, words[i].mode);
    round_trip(s);
    vs_scene_free(s);
  }
  vs_scene *s = rope_pin("[first, 2, last]");
  const vs_body_desc *b = &s->bodies[0];
  ck_assert_int_eq(b->pin_mode, VS_PIN_LIST);
  ck_assert_uint_eq(b->n_pins, 3);
  ck_assert_int_eq(b->pins[0], 0);
  ck_assert_int_eq(b->pins[1], 2);
  ck_assert_int_eq(b->pins[2], 5);
  round_trip(s);
  vs_scene_free(s);
  expect_fail("bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 5, pin: [6]}\n",
              VS_ERR_SCENE, 2, 59, "expected a particle index, first or last in [0, 5], got 6");
  expect_fail("bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 5, pin: middle}\n",
              VS_ERR_SCENE, 2, 58, "expected first, last, both, none");
}
END_TEST

START_TEST(test_pins_particles_lattice) {
  vs_scene *s = tu_scene(
      "bodies:\n"
      "  - particles: {positions: [[0,0,0], [1,0,0], [2,0,0]], pin: [2, 0]}\n"
      "  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [2,3,4], "
      "pin: top-edge}\n"
      "  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [2,3,4], "
      "pin: [[1, 2, 3]]}\n"
      "  - particles: {positions: [[0,0,0]], pin: none}\n");
  ck_assert_int_eq(s->bodies[0].pin_mode, VS_PIN_LIST);
  ck_assert_uint_eq(s->bodies[0].n_pins, 2);
  ck_assert_int_eq(s->bodies[0].pins[0], 2);
  ck_assert_int_eq(s->bodies[1].pin_mode, VS_PIN_TOP_EDGE);
  ck_assert_int_eq(s->bodies[2].pin_mode, VS_PIN_LIST);
  ck_assert_int_eq(s->bodies[2].pins[2], 3);
  ck_assert_int_eq(s->bodies[3].pin_mode, VS_PIN_NONE);
  round_trip(s);
  vs_scene_free(s);
  expect_fail("bodies:\n  - particles: {positions: [[0,0,0]], pin: [1]}\n", VS_ERR_SCENE, 2, 45,
              "bodies.0.particles.pin.0: expected a particle index in [0, 0], got 1");
  expect_fail(
      "bodies:\n  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [2,3,4], "
      "pin: [[1, 2, 4]]}\n",
      VS_ERR_SCENE, 2, 81, "expected grid coordinate k in [0, 3], got 4");
  expect_fail(
      "bodies:\n  - lattice: {origin: [0,0,0], size: [1,1,1], resolution: [2,3,4], "
      "pin: top-corners}\n",
      VS_ERR_SCENE, 2, 73, "expected a list of [i, j, k] or one of none, top-edge");
}
END_TEST

/* ---- --set ------------------------------------------------------------------- */

static const char *const SET_BASE =
    "solver: {iterations: 5}\n"
    "world:\n"
    "  colliders:\n"
    "    - plane: {friction: 0.1}\n"
    "    - sphere: {radius: 1}\n"
    "bodies:\n"
    "  - cloth:\n"
    "      name: curtain\n"
    "      origin: [0, 0, 0]\n"
    "      size: [1, 1]\n"
    "      resolution: [4, 4]\n"
    "  - rope: {from: [0,0,0], to: [1,0,0], segments: 3}\n";

START_TEST(test_set_scalars_vectors) {
  const char *sets[] = {"solver.iterations=20", "world.gravity=[0,-1.62,0]", "time.dt=0.01",
                        "solver.integrator=verlet", "name=moon"};
  vs_scene *s = load_sets(SET_BASE, sets, 5);
  ck_assert_int_eq(s->iterations, 20);
  ck_assert(s->gravity[1] == -1.62 && s->gravity[0] == 0);
  ck_assert(s->dt == 0.01);
  ck_assert_int_eq(s->integrator, VS_INTEGRATOR_VERLET);
  ck_assert_str_eq(s->name, "moon");
  ck_assert_str_eq(s->text, SET_BASE); /* the text as given, not the overridden one */
  vs_scene_free(s);
  /* later overrides win */
  const char *twice[] = {"solver.iterations=20", "solver.iterations=30"};
  s = load_sets(SET_BASE, twice, 2);
  ck_assert_int_eq(s->iterations, 30);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_set_bodies_and_lists) {
  const char *sets[] = {"bodies.curtain.mass=2",
                        "bodies.1.segments=9",
                        "bodies.rope1.pin=first",
                        "world.colliders.0.friction=0.5",
                        "world.colliders.1.sphere.radius=2",
                        "bodies.0.cloth.pin=top-edge",
                        "bodies.curtain.bend={stiffness: 0.3}",
                        "world.colliders.2={box: {min: [0,0,0], max: [1,1,1]}}"};
  vs_scene *s = load_sets(SET_BASE, sets, 8);
  ck_assert(s->bodies[0].mass == 2);
  ck_assert(s->bodies[0].bend.enabled && s->bodies[0].bend.stiffness == 0.3);
  ck_assert_int_eq(s->bodies[0].pin_mode, VS_PIN_TOP_EDGE);
  ck_assert_int_eq(s->bodies[1].segments, 9);
  ck_assert_int_eq(s->bodies[1].pin_mode, VS_PIN_FIRST);
  ck_assert(s->colliders[0].friction == 0.5);
  ck_assert(s->colliders[1].radius == 2);
  ck_assert_uint_eq(s->n_colliders, 3);
  ck_assert_int_eq(s->colliders[2].kind, VS_COLLIDER_BOX);
  round_trip(s);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_set_creates_keys) {
  const char *sets[] = {"solver.iterations=20", "output.fields=[velocity]",
                        "world.particle_collisions=true", "time.frames=7"};
  vs_scene *s = load_sets("bodies: []\n", sets, 4);
  ck_assert_int_eq(s->iterations, 20);
  ck_assert_uint_eq(s->output.fields, VS_FIELD_VELOCITY);
  ck_assert_int_eq(s->particle_collisions, 1);
  ck_assert_int_eq(s->frames, 7);
  vs_scene_free(s);
  /* on an empty document, and into an empty section */
  const char *one[] = {"time.substeps=3"};
  s = load_sets("", one, 1);
  ck_assert_int_eq(s->substeps, 3);
  vs_scene_free(s);
  s = load_sets("time:\n", one, 1);
  ck_assert_int_eq(s->substeps, 3);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_set_shared_alias) {
  /* Overriding one user of an anchored node must not change the other. */
  const char *sets[] = {"world.colliders.1.plane.friction=0.9"};
  vs_scene *s = load_sets(
      "world:\n  colliders:\n    - plane: &p {friction: 0.2}\n"
      "    - plane: *p\n",
      sets, 1);
  ck_assert(s->colliders[0].friction == 0.2);
  ck_assert(s->colliders[1].friction == 0.9);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_set_errors) {
  const char *bad_value[] = {"solver.iterations=abc"};
  vs_error e = expect_fail_sets(SET_BASE, bad_value, 1, VS_ERR_SCENE, 0, 0,
                                "--set solver.iterations=abc: solver.iterations: expected an "
                                "integer >= 1, got abc");
  ck_assert_str_eq(e.file, "--set");
  const char *bad_key[] = {"solver.iteratons=3"};
  e = expect_fail_sets(SET_BASE, bad_key, 1, VS_ERR_SCENE, 0, 0,
                       "unknown key 'iteratons', did you mean 'iterations'?");
  ck_assert_str_eq(e.file, "--set");
  const char *nan[] = {"time.dt=.nan"};
  expect_fail_sets(SET_BASE, nan, 1, VS_ERR_SCENE, 0, 0,
                   "time.dt: expected a finite number > 0, got .nan");

  static const struct {
    const char *set, *msg;
  } usage[] = {{"solver.iterations", "expected KEY=VALUE"},
               {"=5", "empty key"},
               {"solver..iterations=5", "empty component"},
               {"bodies.nobody.mass=1", "no body named or numbered 'nobody'"},
               {"bodies.7.mass=1", "no body named or numbered '7'"},
               {"world.colliders.5.friction=1", "no item 5"},
               {"world.colliders.x.friction=1", "'x' is not a list index"},
               {"solver.iterations.x=1", "cannot set 'x' inside the scalar '5'"},
               {"world.gravity=[0,", "invalid YAML"}};
  for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
    const char *one[] = {usage[i].set};
    e = expect_fail_sets(SET_BASE, one, 1, VS_ERR_USAGE, 0, 0, usage[i].msg);
    ck_assert_str_eq(e.file, "--set");
  }
}
END_TEST

START_TEST(test_set_value_errors_point_at_set) {
  /* a whole new item from --set, invalid inside: reported against --set */
  const char *one[] = {"world.colliders.2={sphere: {radius: -1}}"};
  vs_error e = expect_fail_sets(SET_BASE, one, 1, VS_ERR_SCENE, 0, 0,
                                "world.colliders.2.sphere.radius: expected a finite number > 0, "
                                "got -1");
  ck_assert_str_eq(e.file, "--set");
  ck_assert_ptr_nonnull(strstr(e.message, "--set world.colliders.2={sphere"));
  /* an error in the file is still reported against the file */
  const char *fine[] = {"solver.iterations=4"};
  e = expect_fail_sets("solver: {omega: 3}\n", fine, 1, VS_ERR_SCENE, 1, 17, "solver.omega");
  ck_assert_str_eq(e.file, "bad.yaml");
  /* the whole body replaced by index */
  const char *item[] = {"bodies.1={tetra: {center: [0, 1, 0], edge: 0.5}}"};
  vs_scene *s = load_sets(SET_BASE, item, 1);
  ck_assert_int_eq(s->bodies[1].kind, VS_BODY_TETRA);
  ck_assert_str_eq(s->bodies[1].name, "tetra1");
  vs_scene_free(s);
}
END_TEST

START_TEST(test_err_lengths) {
  char y[1024], ref[200];
  memset(ref, 'r', sizeof ref - 1);
  ref[sizeof ref - 1] = '\0';
  snprintf(y, sizeof y, "constraints:\n  - pin: {particle: %s}\n", ref);
  expect_fail(y, VS_ERR_SCENE, 2, 21, "of at most 127 characters, got 199");
  char name[80];
  memset(name, 'n', 64);
  name[64] = '\0';
  snprintf(y, sizeof y, "bodies:\n  - tetra: {name: %s, center: [0,0,0], edge: 1}\n", name);
  expect_fail(y, VS_ERR_SCENE, 2, 19, "bodies.0.tetra.name: expected a body name of at most 63");
  expect_fail("bodies:\n  - tetra: {name: 123, center: [0,0,0], edge: 1}\n", VS_ERR_SCENE, 2, 19,
              "not only digits");
  expect_fail("name: \"\"\n", VS_ERR_SCENE, 1, 7, "name: expected a scene name, got \"\"");
}
END_TEST

/* ---- round trip ------------------------------------------------------------- */

START_TEST(test_round_trip_full) {
  vs_scene *s = tu_scene(FULL);
  round_trip(s);
  vs_scene_free(s);
  /* awkward doubles and strings survive too */
  s = tu_scene(
      "name: \"a \\\"quoted\\\" name: with, {flow} chars\\t\"\n"
      "time: {dt: 0.1}\n"
      "world:\n"
      "  gravity: [1e-300, -1.7976931348623157e308, 0.30000000000000004]\n"
      "  colliders: [{plane: {normal: [1, 1, 1e-9]}}]\n");
  ck_assert_str_eq(s->name, "a \"quoted\" name: with, {flow} chars\t");
  round_trip(s);
  vs_scene_free(s);
  /* characters YAML cannot take raw inside quotes (C1 controls, NEL, the
   * line and paragraph separators, BOM, non-characters) are escaped;
   * other Unicode is written as it is */
  static const char *const names[] = {"\"a\\x80b\"", "\"\\x85\"", "\"\\u2028\\u2029\"",
                                      "\"\\ufeff\\ufffe\\uffff\"", "\"\\x7f\\x01\"",
                                      "\"caf\\u00e9 \\U0001F600\""};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char y[256];
    snprintf(y, sizeof y, "name: %s\nconstraints: [{pin: {particle: %s}}]\n", names[i], names[i]);
    s = tu_scene(y);
    round_trip(s);
    vs_scene_free(s);
  }
}
END_TEST

START_TEST(test_plane_normalised) {
  vs_scene *s = tu_scene("world: {colliders: [{plane: {normal: [3, 0, 4]}}, {plane: {}}]}\n");
  const double *n = s->colliders[0].b;
  ck_assert(fabs(n[0] - 0.6) < 1e-15 && n[1] == 0 && fabs(n[2] - 0.8) < 1e-15);
  ck_assert(s->colliders[1].b[1] == 1.0); /* default normal +y */
  vs_scene_free(s);
  expect_fail("world: {colliders: [{plane: {normal: [0, 0, 0]}}]}\n", VS_ERR_SCENE, 1, 38,
              "world.colliders.0.plane.normal: expected a non-zero finite vector");
}
END_TEST

/* ---- bad input ---------------------------------------------------------------- */

START_TEST(test_err_syntax) {
  vs_error e = expect_fail("time:\n  dt: 0.1\n frames: 3\n", VS_ERR_SCENE, 3, 2, "invalid YAML");
  (void)e;
  expect_fail("a: [1, 2\n", VS_ERR_SCENE, 2, 1, "did not find expected ',' or ']'");
  /* without the last newline the end is on the last line, not after it */
  expect_fail("a: [1, 2", VS_ERR_SCENE, 1, 9, "did not find expected ',' or ']'");
  expect_fail("[4,.", VS_ERR_SCENE, 1, 5, "did not find expected ',' or ']'");
  /* lines end where YAML says: CR, CR LF, NEL, LS and PS too */
  static const char *const breaks[] = {"\r", "\r\n", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"};
  for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
    char y[64];
    snprintf(y, sizeof y, "a: 1%sb: [", breaks[i]);
    expect_fail(y, VS_ERR_SCENE, 2, 5, "(while parsing a flow node at line 2, column 5)");
  }
  expect_fail("time: {dt: 1\n", VS_ERR_SCENE, -1, 0, "invalid YAML");
  expect_fail("a: 1\n---\nb: 2\n", VS_ERR_SCENE, 2, 1, "a single YAML document");
  expect_fail("- 1\n- 2\n", VS_ERR_SCENE, 1, 1, "expected a mapping of scene keys");
  expect_fail("time: &t {dt: 1}\nsolver:\n  <<: *t\n", VS_ERR_SCENE, 3, 3,
              "merge keys ('<<') are not supported");
  expect_fail("? [a, b]\n: 1\n", VS_ERR_SCENE, 1, 3, "expected a scalar mapping key");
  expect_fail("time: {dt: 1, dt: 2}\n", VS_ERR_SCENE, 1, 15, "time: duplicate key 'dt'");
}
END_TEST

START_TEST(test_err_unknown_keys) {
  expect_fail("time:\n  dt: 0.1\n  frame: 3\n", VS_ERR_SCENE, 3, 3,
              "time: unknown key 'frame', did you mean 'frames'?");
  expect_fail("solver:\n  iteratoins: 3\n", VS_ERR_SCENE, 2, 3,
              "unknown key 'iteratoins', did you mean 'iterations'?");
  expect_fail("wrld: {}\n", VS_ERR_SCENE, 1, 1, "did you mean 'world'?");
  expect_fail("colour: red\n", VS_ERR_SCENE, 1, 1, "unknown key 'colour' (expected one of:");
  expect_fail("bodies:\n  - clth: {}\n", VS_ERR_SCENE, 2, 5,
              "bodies.0: unknown body kind 'clth', did you mean 'cloth'?");
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [2,2], mas: 1}\n",
              VS_ERR_SCENE, 2, 62, "bodies.0.cloth: unknown key 'mas', did you mean 'mass'?");
  expect_fail("world:\n  colliders:\n    - sphere: {radius: 1, frictoin: 0.2}\n", VS_ERR_SCENE, 3,
              27, "did you mean 'friction'?");
  expect_fail(
      "solver: {integrator: pdb}\n", VS_ERR_SCENE, 1, 22,
      "solver.integrator: expected one of verlet, pbd, xpbd, got pdb (did you mean 'pbd'?)");
  expect_fail("bodies:\n  - {cloth: {}, rope: {}}\n", VS_ERR_SCENE, 2, 5,
              "expected exactly one key naming the body kind");
}
END_TEST

START_TEST(test_err_types) {
  expect_fail("solver:\n  iterations: 1.5\n", VS_ERR_SCENE, 2, 15,
              "solver.iterations: expected an integer >= 1, got 1.5");
  expect_fail("solver: {iterations: true}\n", VS_ERR_SCENE, 1, 22,
              "expected an integer >= 1, got true");
  expect_fail("solver: {iterations: \"10\"}\n", VS_ERR_SCENE, 1, 22, "got \"10\"");
  expect_fail("time: {dt: fast}\n", VS_ERR_SCENE, 1, 12,
              "time.dt: expected a finite number > 0, got fast");
  expect_fail("time: {dt: [1]}\n", VS_ERR_SCENE, 1, 12, "got a sequence");
  expect_fail("time: [1]\n", VS_ERR_SCENE, 1, 7, "time: expected a mapping, got a sequence");
  expect_fail("time: {dt: }\n", VS_ERR_SCENE, 1, 12, "got an empty value");
  expect_fail("world: {gravity: [0, -9.81]}\n", VS_ERR_SCENE, 1, 18,
              "world.gravity: expected a list of 3 numbers, got 2 items");
  expect_fail("world: {gravity: [0, x, 0]}\n", VS_ERR_SCENE, 1, 22,
              "world.gravity.1: expected a finite number, got x");
  expect_fail("world: {particle_collisions: 1}\n", VS_ERR_SCENE, 1, 30,
              "expected true or false, got 1");
  expect_fail("vsim: 2\n", VS_ERR_SCENE, 1, 7, "vsim: expected 1");
  expect_fail("output: {fields: [position, velocty]}\n", VS_ERR_SCENE, 1, 29,
              "output.fields.1: expected one of position, velocity");
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [2.5,2]}\n",
              VS_ERR_SCENE, 2, 56,
              "bodies.0.cloth.resolution.0: expected an integer >= 2, got 2.5");
  expect_fail("bodies:\n  - rope: {from: [0,0,0], to: [1,0,0]}\n", VS_ERR_SCENE, 2, 11,
              "bodies.0.rope: missing required key 'segments'");
  expect_fail(
      "bodies:\n  - cloth: {name: \"a:b\", origin: [0,0,0], size: [1,1], resolution: [2,2]}\n",
      VS_ERR_SCENE, 2, 19, "bodies.0.cloth.name: expected a body name of letters");
  expect_fail("constraints:\n  - distance: {a: \"\", b: \"x:1\"}\n", VS_ERR_SCENE, 2, 19,
              "constraints.0.distance.a: expected a particle reference");
}
END_TEST

START_TEST(test_err_ranges) {
  expect_fail("solver:\n  iterations: -3\n", VS_ERR_SCENE, 2, 15,
              "solver.iterations: expected an integer >= 1, got -3");
  expect_fail("time:\n  dt: 0\n", VS_ERR_SCENE, 2, 7,
              "time.dt: expected a finite number > 0, got 0");
  expect_fail("time:\n  dt: -0.01\n", VS_ERR_SCENE, 2, 7,
              "time.dt: expected a finite number > 0, got -0.01");
  expect_fail("time: {frames: -1}\n", VS_ERR_SCENE, 1, 16, "expected an integer >= 0, got -1");
  expect_fail("solver: {omega: 2}\n", VS_ERR_SCENE, 1, 17,
              "solver.omega: expected a finite number in (0, 2), got 2");
  expect_fail("solver: {damping: -1}\n", VS_ERR_SCENE, 1, 19, "expected a finite number >= 0");
  expect_fail("output: {compression: 10}\n", VS_ERR_SCENE, 1, 23,
              "output.compression: expected an integer in [0, 9], got 10");
  expect_fail("world:\n  colliders:\n    - plane: {friction: -0.1}\n", VS_ERR_SCENE, 3, 25,
              "world.colliders.0.plane.friction: expected a finite number >= 0, got -0.1");
  expect_fail("world:\n  colliders:\n    - plane: {restitution: 1.5}\n", VS_ERR_SCENE, 3, 28,
              "restitution: expected a finite number in [0, 1], got 1.5");
  expect_fail("world:\n  colliders:\n    - sphere: {radius: 0}\n", VS_ERR_SCENE, 3, 24,
              "world.colliders.0.sphere.radius: expected a finite number > 0");
  expect_fail("world:\n  colliders:\n    - sphere: {center: [0,0,0]}\n", VS_ERR_SCENE, 3, 15,
              "missing required key 'radius'");
  expect_fail("world:\n  colliders:\n    - box: {min: [0,0,0], max: [1,0,1]}\n", VS_ERR_SCENE, 3,
              32, "world.colliders.0.box.max: expected max > min on every axis");
  expect_fail(
      "bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [2,2], "
      "stretch: {stiffness: 0}}\n",
      VS_ERR_SCENE, 2, 83, "bodies.0.cloth.stretch.stiffness: expected a finite number in (0, 1]");
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [1,2]}\n",
              VS_ERR_SCENE, 2, 56, "expected an integer >= 2, got 1");
  expect_fail("bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 0}\n", VS_ERR_SCENE, 2, 50,
              "bodies.0.rope.segments: expected an integer >= 1, got 0");
  expect_fail("constraints:\n  - distance: {a: 0, b: 1, rest: 1, min: 0.5}\n", VS_ERR_SCENE, 2, 42,
              "expected only one of rest, min, max");
  expect_fail("constraints:\n  - pin: {particle: 0, at: [0,0,0], keys: [[0,0,0,0]]}\n",
              VS_ERR_SCENE, 2, 43, "expected either at or keys, got both");
  expect_fail("constraints:\n  - pin: {particle: 0, keys: [[0,0,0,0], [0,1,1,1]]}\n", VS_ERR_SCENE,
              2, 43, "constraints.0.pin.keys.1.0: expected a time after");
  expect_fail("constraints:\n  - pin: {particle: 0, keys: []}\n", VS_ERR_SCENE, 2, 30,
              "expected a non-empty list of [t, x, y, z]");
  expect_fail("constraints:\n  - angle: {a: 0, b: 1, c: 2, max: 190}\n", VS_ERR_SCENE, 2, 36,
              "constraints.0.angle.max: expected a finite number in [0, 180], got 190");
  expect_fail("constraints:\n  - angle: {a: 0, b: 1, c: 2}\n", VS_ERR_SCENE, 2, 12,
              "expected min or max");
}
END_TEST

START_TEST(test_err_nonfinite) {
  expect_fail("time:\n  dt: .nan\n", VS_ERR_SCENE, 2, 7,
              "time.dt: expected a finite number > 0, got .nan");
  expect_fail("time:\n  dt: .inf\n", VS_ERR_SCENE, 2, 7, "got .inf");
  expect_fail("world: {gravity: [0, -.inf, 0]}\n", VS_ERR_SCENE, 1, 22, "got -.inf");
  expect_fail("world: {gravity: [nan, 0, 0]}\n", VS_ERR_SCENE, 1, 19, "got nan");
  expect_fail("world: {gravity: [1e999, 0, 0]}\n", VS_ERR_SCENE, 1, 19, "got 1e999");
  expect_fail("solver: {damping: .NaN}\n", VS_ERR_SCENE, 1, 19, "got .NaN");
  expect_fail("solver: {damping: Infinity}\n", VS_ERR_SCENE, 1, 19, "got Infinity");
}
END_TEST

START_TEST(test_err_duplicate_names) {
  expect_fail(
      "bodies:\n"
      "  - rope: {name: a, from: [0,0,0], to: [1,0,0], segments: 1}\n"
      "  - rope: {name: b, from: [0,0,0], to: [1,0,0], segments: 1}\n"
      "  - rope: {name: a, from: [0,0,0], to: [1,0,0], segments: 1}\n",
      VS_ERR_SCENE, 4, 18, "bodies.2: duplicate body name 'a' (body 0 has it too)");
  /* a default name can collide with a given one */
  expect_fail(
      "bodies:\n"
      "  - rope: {name: rope1, from: [0,0,0], to: [1,0,0], segments: 1}\n"
      "  - rope: {from: [0,0,0], to: [1,0,0], segments: 1}\n",
      VS_ERR_SCENE, 3, 5, "duplicate body name 'rope1'");
}
END_TEST

START_TEST(test_err_limits) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [100000, 100000]}\n",
              VS_ERR_LIMIT, 2, 56,
              "bodies.0.cloth.resolution.0: expected an integer <= 16384 (the documented limit)");
  /* each axis allowed, the product not */
  expect_fail("bodies:\n  - cloth: {origin: [0,0,0], size: [1,1], resolution: [16384, 16384]}\n",
              VS_ERR_LIMIT, 2, 55, "expected at most 50000000 particles");
  expect_fail(
      "bodies:\n  - lattice: {origin: [0,0,0], size: [1,1,1], "
      "resolution: [1000, 1000, 1000]}\n",
      VS_ERR_LIMIT, -1, 0, "particles");
  /* the total over bodies */
  expect_fail(
      "bodies:\n"
      "  - cloth: {origin: [0,0,0], size: [1,1], resolution: [6000, 6000]}\n"
      "  - cloth: {origin: [0,0,0], size: [1,1], resolution: [6000, 6000]}\n",
      VS_ERR_LIMIT, 3, 5, "more than 50000000 particles");
  expect_fail("bodies:\n  - rope: {from: [0,0,0], to: [1,0,0], segments: 20000000}\n", VS_ERR_LIMIT,
              2, 50, "expected an integer <= 10000000");
  expect_fail("time: {frames: 99999999999999999999}\n", VS_ERR_LIMIT, 1, 16,
              "time.frames: expected an integer <= 100000000");
  expect_fail("solver: {iterations: 100001}\n", VS_ERR_LIMIT, 1, 22, "<= 100000");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  ck_assert_msg(secs < 1.0, "limit checks took %g s: something was allocated", secs);
}
END_TEST

START_TEST(test_err_aliases) {
  /* an alias inside the node it names: a cycle */
  expect_fail("a: &x [1, *x]\n", VS_ERR_SCENE, 1, 11,
              "alias '*x' refers to a node that contains it");
  expect_fail("a: *nope\n", VS_ERR_SCENE, 1, 4, "unknown alias '*nope'");
  /* billion laughs: 10^9 nodes if expanded; rejected by arithmetic */
  static const char *lol =
      "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
      "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
      "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
      "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
      "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* the third *f on line 7 takes the total over 4M */
  expect_fail(lol, VS_ERR_LIMIT, 7, 16, "more than 4000000 YAML nodes");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  ck_assert_msg(secs < 1.0, "billion laughs took %g s", secs);
  /* many cheap aliases: the use count limit */
  size_t n = VS_MAX_YAML_ALIASES + 1;
  char *y = malloc(32 + 4 * n);
  strcpy(y, "a: &a 1\nb: [");
  for (size_t i = 0; i < n; i++) strcat(y, i ? ",*a" : "*a");
  strcat(y, "]\n");
  expect_fail(y, VS_ERR_LIMIT, 2, 5 + 3 * VS_MAX_YAML_ALIASES, "more than 1000 alias uses");
  free(y);
  /* aliases that are fine: shared values read as copies */
  vs_scene *s = tu_scene(
      "world:\n  gravity: &g [0, -1, 0]\n  colliders:\n"
      "    - plane: {normal: *g}\n");
  ck_assert(s->colliders[0].b[1] == -1.0);
  vs_scene_free(s);
}
END_TEST

START_TEST(test_err_deep_nesting) {
  size_t n = 10000;
  char *y = malloc(n + 8);
  strcpy(y, "a: ");
  memset(y + 3, '[', n);
  y[3 + n] = '\0';
  expect_fail(y, VS_ERR_LIMIT, 1, 4 + VS_MAX_YAML_DEPTH - 1, "nesting deeper than 64");
  free(y);
  /* nesting through an alias counts too */
  char deep[1024] = "a: &a ";
  for (int i = 0; i < 40; i++) strcat(deep, "[");
  for (int i = 0; i < 40; i++) strcat(deep, "]");
  strcat(deep, "\nb: ");
  for (int i = 0; i < 30; i++) strcat(deep, "[");
  strcat(deep, "*a");
  for (int i = 0; i < 30; i++) strcat(deep, "]");
  strcat(deep, "\n");
  expect_fail(deep, VS_ERR_LIMIT, 2, 34, "nesting deeper than 64 levels (alias '*a')");
}
END_TEST

/* "KEY: [ITEM, ITEM, ...]" with n items, malloc'd. */
static char *flow_list(const char *key, const char *item, size_t n) {
  size_t il = strlen(item), cap = strlen(key) + 8 + n * (il + 2);
  char *y = malloc(cap);
  ck_assert_ptr_nonnull(y);
  char *p = y + sprintf(y, "%s: [", key);
  for (size_t i = 0; i < n; i++) {
    if (i) *p++ = ',';
    memcpy(p, item, il);
    p += il;
  }
  strcpy(p, "]\n");
  return y;
}

/* The count limits the first tests do not reach: each is checked on the
 * list's length, before its items are looked at or anything is
 * allocated for them. */
START_TEST(test_err_count_limits) {
  char *y = flow_list("bodies", "0", VS_MAX_BODIES + 1);
  expect_fail(y, VS_ERR_LIMIT, 1, 9, "expected at most 100000 bodies (the documented limit)");
  free(y);
  char *c = flow_list("  colliders", "0", VS_MAX_COLLIDERS + 1);
  y = malloc(strlen(c) + 16);
  sprintf(y, "world:\n%s", c);
  expect_fail(y, VS_ERR_LIMIT, 2, 14, "expected at most 10000 colliders (the documented limit)");
  free(y);
  free(c);
  expect_fail("time: {substeps: 100001}\n", VS_ERR_LIMIT, 1, 18,
              "time.substeps: expected an integer <= 100000 (the documented limit)");
  expect_fail("time: {frames: 100000001}\n", VS_ERR_LIMIT, 1, 16,
              "time.frames: expected an integer <= 100000000");
  /* the last allowed values load */
  vs_scene *s = tu_scene("time: {frames: 100000000, substeps: 100000}\n"
                         "solver: {iterations: 100000}\n");
  vs_scene_free(s);
  /* Explicit constraints (VS_MAX_EXPLICIT) and pin keys (VS_MAX_KEYS) take
   * more than VS_MAX_YAML_NODES nodes to write out, so the node limit is
   * what stops them: 10 million items of even the shortest kind. */
  static const char *const many =
      "a: &a [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
      "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
  char big[2048];
  snprintf(big, sizeof big, "%sconstraints: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n", many);
  expect_fail(big, VS_ERR_LIMIT, 7, 23, "more than 4000000 YAML nodes");
}
END_TEST

/* --set values obey the scene's limits: their nodes and aliases count with
 * the scene's, their text and key depth are bounded. */
START_TEST(test_err_set_limits) {
  static const char *const lol =
      "a: &a [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
      "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
  /* ~3.4 million nodes in the scene, 1.2 million more in one override:
   * each under the limit, together over it */
  char scene[2048];
  snprintf(scene, sizeof scene, "%sg: [*f, *f]\n", lol);
  char set[2048] = "h=";
  const char *p = lol;
  while (*p) {
    /* the same document in flow style: "{a: &a [...], b: ..., f: ...}" */
    const char *nl = strchr(p, '\n');
    strcat(set, p == lol ? "{" : ", ");
    strncat(set, p, (size_t)(nl - p));
    p = nl + 1;
  }
  strcat(set, "}");
  const char *sets[] = {set};
  /* each alone is fine until validation (unknown keys) */
  expect_fail_sets(scene, NULL, 0, VS_ERR_SCENE, -1, 0, "unknown key");
  expect_fail_sets("{}", sets, 1, VS_ERR_SCENE, -1, 0, "unknown key");
  expect_fail_sets(scene, sets, 1, VS_ERR_LIMIT, -1, 0, "more than 4000000 YAML nodes");
  /* alias uses too: 600 in the scene and 600 in an override */
  size_t n = 600;
  char *y = malloc(16 + 4 * n), *sv = malloc(32 + 4 * n);
  strcpy(y, "a: &a 1\nb: [");
  strcpy(sv, "c={x: &x 1, y: [");
  for (size_t i = 0; i < n; i++) {
    strcat(y, i ? ",*a" : "*a");
    strcat(sv, i ? ",*x" : "*x");
  }
  strcat(y, "]\n");
  strcat(sv, "]}");
  const char *asets[] = {sv};
  expect_fail_sets(y, NULL, 0, VS_ERR_SCENE, -1, 0, "unknown key");
  vs_error e = expect_fail_sets(y, asets, 1, VS_ERR_LIMIT, -1, 0, "more than 1000 alias uses");
  ck_assert_str_eq(e.file, "--set");
  free(y);
  free(sv);
  /* a key deeper than the nesting limit, refused before it is built */
  char key[256] = "";
  for (int i = 0; i <= VS_MAX_YAML_DEPTH; i++) strcat(key, i ? ".a" : "a");
  strcat(key, "=1");
  const char *dsets[] = {key};
  expect_fail_sets("", dsets, 1, VS_ERR_LIMIT, -1, 0, "nesting deeper than 64 levels");
  /* an override longer than a scene file may be */
  size_t big = (size_t)VS_MAX_SCENE_BYTES + 16;
  char *huge = malloc(big + 1);
  ck_assert_ptr_nonnull(huge);
  memset(huge, ' ', big);
  memcpy(huge, "name=x", 6);
  huge[big] = '\0';
  const char *hsets[] = {huge};
  expect_fail_sets("", hsets, 1, VS_ERR_LIMIT, -1, 0, "over the limit of 67108864 bytes");
  free(huge);
}
END_TEST

START_TEST(test_files) {
  char *dir = tu_tmpdir();
  char path[512];
  vs_scene *s = NULL;
  vs_error e;
  /* a file that loads; name from the file name */
  snprintf(path, sizeof path, "%s/hanging.yaml", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("solver: {iterations: 3}\n", f);
  fclose(f);
  ck_assert_int_eq(vs_scene_load_file(path, NULL, 0, &s, &e), VS_OK);
  ck_assert_str_eq(s->name, "hanging");
  ck_assert_str_eq(s->file, path);
  ck_assert_int_eq(s->iterations, 3);
  vs_scene_free(s);
  /* errors name the file */
  f = fopen(path, "w");
  fputs("solver:\n  iterations: 0\n", f);
  fclose(f);
  s = (vs_scene *)(uintptr_t)1;
  ck_assert_int_eq(vs_scene_load_file(path, NULL, 0, &s, &e), VS_ERR_SCENE);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(e.file, path);
  ck_assert_int_eq(e.line, 2);
  ck_assert_int_eq(e.column, 15);
  /* nonexistent */
  snprintf(path, sizeof path, "%s/missing.yaml", dir);
  s = (vs_scene *)(uintptr_t)1;
  ck_assert_int_eq(vs_scene_load_file(path, NULL, 0, &s, &e), VS_ERR_IO);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(e.file, path);
  ck_assert_ptr_nonnull(strstr(e.message, "missing.yaml"));
  /* a directory */
  ck_assert_int_eq(vs_scene_load_file(dir, NULL, 0, &s, &e), VS_ERR_IO);
  /* over the size limit: a sparse file, rejected by stat before reading */
  snprintf(path, sizeof path, "%s/huge.yaml", dir);
  f = fopen(path, "w");
  fclose(f);
  ck_assert_int_eq(truncate(path, (off_t)VS_MAX_SCENE_BYTES + 1), 0);
  ck_assert_int_eq(vs_scene_load_file(path, NULL, 0, &s, &e), VS_ERR_LIMIT);
  ck_assert_ptr_null(s);
  ck_assert_ptr_nonnull(strstr(e.message, "over the limit"));
  tu_rmtree(dir);
  free(dir);
}
END_TEST

START_TEST(test_reader_error_position) {
  /* invalid UTF-8 on line 2: libyaml reports a byte offset, we a line */
  vs_error e = expect_fail("name: ok\nbad: \xff\n", VS_ERR_SCENE, 2, 6, "invalid YAML");
  (void)e;
}
END_TEST

static Suite *scene_suite(void) {
  Suite *s = suite_create("scene");
  TCase *tc = tcase_create("scene");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_defaults);
  tcase_add_test(tc, test_default_name_from_file);
  tcase_add_test(tc, test_default_scene);
  tcase_add_test(tc, test_full_scene);
  tcase_add_test(tc, test_link_defaults);
  tcase_add_test(tc, test_types);
  tcase_add_test(tc, test_pins_cloth);
  tcase_add_test(tc, test_pins_rope);
  tcase_add_test(tc, test_pins_particles_lattice);
  tcase_add_test(tc, test_set_scalars_vectors);
  tcase_add_test(tc, test_set_bodies_and_lists);
  tcase_add_test(tc, test_set_creates_keys);
  tcase_add_test(tc, test_set_shared_alias);
  tcase_add_test(tc, test_set_errors);
  tcase_add_test(tc, test_set_value_errors_point_at_set);
  tcase_add_test(tc, test_err_lengths);
  tcase_add_test(tc, test_round_trip_full);
  tcase_add_test(tc, test_plane_normalised);
  tcase_add_test(tc, test_err_syntax);
  tcase_add_test(tc, test_err_unknown_keys);
  tcase_add_test(tc, test_err_types);
  tcase_add_test(tc, test_err_ranges);
  tcase_add_test(tc, test_err_nonfinite);
  tcase_add_test(tc, test_err_duplicate_names);
  tcase_add_test(tc, test_err_limits);
  tcase_add_test(tc, test_err_aliases);
  tcase_add_test(tc, test_err_deep_nesting);
  tcase_add_test(tc, test_err_count_limits);
  tcase_add_test(tc, test_err_set_limits);
  tcase_add_test(tc, test_files);
  tcase_add_test(tc, test_reader_error_position);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(scene_suite());
}
