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

#endif
