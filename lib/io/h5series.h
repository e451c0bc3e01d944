/* SPDX-License-Identifier: MIT */
/* h5series.h (private): the time series of the result file, one row each.
 * The writer (h5layout.c: create, h5thread.c: record), the resume reader (h5resume.c)
 * and describe (describe.c: units) follow from this table; adding a series
 * is one row here (plus its place in the two order lists in h5series.c).
 *
 * Each series is an H5MD element group holding value [F, ...], step [F]
 * int64 and time [F] float64.  Columns of H5W_SERIES(X):
 *   id      S_<id> is its index in w->s[]; the table order is the S_ order,
 *           the order frames are flushed in (vs_h5_finish, h5w_flush_all)
 *   slots   1, or H5W_KIND_STATS for the constraint-error family: one series
 *           per (kind or "all", statistic), at S_<id> + H5W_STATS k + j
 *   group   the element group; the family's groups are <group><kind>_error_<stat>
 *           ("constraint" for all kinds together: constraint_error_max)
 *   elem    H5W_EL_REAL (float64, float32 with output.float32),
 *           H5W_EL_F64, H5W_EL_I64 or H5W_EL_U8
 *   shape   of one frame: H5W_SH_SCALAR [], H5W_SH_PARTICLE_VEC [N, 3],
 *           H5W_SH_CONSTRAINT [M], H5W_SH_RIGID3 [B, 3], H5W_SH_RIGID4 [B, 4],
 *           H5W_SH_SURFACE [V, 3] (the rigid surfaces' vertices, h5surface.h)
 *   written whether a model writes it; an expression of m (the model) and
 *           f (m->output.fields); the family adds "the model has
 *           constraints of that kind" (or k is "all")
 *   unit    SI unit of value, as H5MD spells it, "1" = dimensionless (the
 *           writer puts it on the group as attribute `unit`, none for "1";
 *           describe prints it; the family's unit is the statistic's,
 *           H5W_ERROR_STATS)
 *   from    what one frame's row holds: H5W_OBS(member) a member of
 *           vs_observables, or a hook of h5thread.c (H5W_FROM_*)
 *
 * The layout is in docs/ (result file). */
#ifndef VSIM_IO_H5SERIES_H
#define VSIM_IO_H5SERIES_H

#include <hdf5.h>
#include <stddef.h>

#include "vsim/model.h"
#include "vsim/step.h"

/* the statistics of each constraint-error group: X(name = vs_error_stats member, unit) */
#define H5W_ERROR_STATS(X) \
  X(max, "m")              \
  X(rms, "m")              \
  X(max_relative, "1")

#define H5W_STAT_ENUM(name, unit) H5W_STAT_##name,
enum { H5W_ERROR_STATS(H5W_STAT_ENUM) H5W_STATS };
#undef H5W_STAT_ENUM
#define H5W_KIND_STATS (H5W_STATS * (VS_KIND_COUNT + 1))

/* clang-format off */
#define H5W_SERIES(X)                                                                              \
  X(POS,   1, "/particles/all/position",           H5W_EL_REAL, H5W_SH_PARTICLE_VEC,               \
    m->n_particles > 0 && (f & VS_FIELD_POSITION), "m", H5W_FROM_POSITION)                                                      \
  X(VEL,   1, "/particles/all/velocity",           H5W_EL_REAL, H5W_SH_PARTICLE_VEC,               \
    m->n_particles > 0 && (f & VS_FIELD_VELOCITY), "m s-1", H5W_FROM_VELOCITY)                                                  \
  X(PEN,   1, "/observables/penetration_max",      H5W_EL_F64,  H5W_SH_SCALAR,                     \
    1,                                    "m",     H5W_OBS(penetration_max))                       \
  X(ALIVE, 1, "/observables/constraints_alive",    H5W_EL_I64,  H5W_SH_SCALAR,                     \
    1,                                    "1",     H5W_OBS(alive))                                 \
  X(PER,   1, "/observables/per_constraint_error", H5W_EL_F64,  H5W_SH_CONSTRAINT,                 \
    f & VS_FIELD_PER_CONSTRAINT_ERROR,    "m",     H5W_FROM_OBSERVE)                               \
  X(KIN,   1, "/observables/energy_kinetic",       H5W_EL_F64,  H5W_SH_SCALAR,                     \
    1,                                    "J",     H5W_OBS(kinetic))                               \
  X(POT,   1, "/observables/energy_potential",     H5W_EL_F64,  H5W_SH_SCALAR,                     \
    1,                                    "J",     H5W_OBS(potential))                             \
  X(OVL,   1, "/observables/overlap_max",          H5W_EL_F64,  H5W_SH_SCALAR,                     \
    m->particle_collisions != 0,          "m",     H5W_OBS(overlap_max))                           \
  X(RPOS,  1, "/particles/rigid/position",         H5W_EL_REAL, H5W_SH_RIGID3,                     \
    m->n_rigid > 0 && (f & VS_FIELD_POSITION), "m", H5W_FROM_RIGID(rx, 3))                        \
  X(RORI,  1, "/particles/rigid/orientation",      H5W_EL_REAL, H5W_SH_RIGID4,                     \
    m->n_rigid > 0 && (f & VS_FIELD_POSITION), "1", H5W_FROM_RIGID(rq, 4))                        \
  X(RVEL,  1, "/particles/rigid/velocity",         H5W_EL_REAL, H5W_SH_RIGID3,                     \
    m->n_rigid > 0 && (f & VS_FIELD_VELOCITY), "m s-1", H5W_FROM_RIGID(rv, 3))                    \
  X(RANG,  1, "/particles/rigid/angular_velocity", H5W_EL_REAL, H5W_SH_RIGID3,                     \
    m->n_rigid > 0 && (f & VS_FIELD_VELOCITY), "rad s-1", H5W_FROM_RIGID(rw, 3))                  \
  X(RSURF, 1, "/particles/rigid_surface/position", H5W_EL_REAL, H5W_SH_SURFACE,                 \
    m->n_rigid > 0 && (f & VS_FIELD_POSITION) && m->output.xdmf, "m", H5W_FROM_SURFACE)           \
  X(RCON,  1, "/observables/rigid_contacts",       H5W_EL_I64,  H5W_SH_SCALAR,                     \
    m->n_rigid > 0,                       "1",     H5W_OBS(rigid_contacts))                        \
  X(RJERR, 1, "/observables/joint_error_max",     H5W_EL_F64,  H5W_SH_SCALAR,                     \
    m->n_rjoints_more > 0,                "m",     H5W_OBS(joint_error_max))                       \
  X(RJANG, 1, "/observables/joint_angle_error_max", H5W_EL_F64, H5W_SH_SCALAR,                    \
    m->n_rjoints_more > 0,                "rad",   H5W_OBS(joint_angle_error_max))                 \
  X(ERR,   H5W_KIND_STATS, "/observables/",        H5W_EL_F64,  H5W_SH_SCALAR,                     \
    f & VS_FIELD_CONSTRAINT_ERROR,        "",      H5W_FROM_ERROR_STATS)                           \
  X(LIVE,  1, "/connectivity/alive",               H5W_EL_U8,   H5W_SH_CONSTRAINT,                 \
    m->n_tearable > 0,                    "1",     H5W_FROM_ALIVE)
/* clang-format on */

#define H5W_S_ENUM(id, slots, ...) S_##id, S_##id##_LAST = S_##id + (slots)-1,
enum { H5W_SERIES(H5W_S_ENUM) S_COUNT };
#undef H5W_S_ENUM
#define S_ERR0 S_ERR /* (kind k, stat j) at S_ERR0 + H5W_STATS k + j; k = VS_KIND_COUNT is "all" */

enum { H5W_EL_REAL, H5W_EL_F64, H5W_EL_I64, H5W_EL_U8 };
enum {
  H5W_SH_SCALAR,
  H5W_SH_PARTICLE_VEC,
  H5W_SH_CONSTRAINT,
  H5W_SH_RIGID3,
  H5W_SH_RIGID4,
  H5W_SH_SURFACE
};

#define H5W_ROW_ENUM(id, ...) H5W_ROW_##id,
enum { H5W_SERIES(H5W_ROW_ENUM) H5W_ROWS };
#undef H5W_ROW_ENUM

/* The two other orders the file's bytes depend on, as lists of rows (a
 * family row stands for its slots, kind-major):
 *  h5w_create_order  groups and datasets are created in this order
 *  h5w_record_order  a frame's rows are pushed (and a full buffer written)
 *                    in this order */
extern const int h5w_create_order[H5W_ROWS];
/* the first slot of each row and how many it has */
extern const int h5w_row_first[H5W_ROWS], h5w_row_slots[H5W_ROWS];
extern const int h5w_record_order[H5W_ROWS];

/* "max", "rms", "max_relative": the statistics of each error group */
extern const char *const h5w_stat_names[H5W_STATS];

/* Everything about series slot i (0 <= i < S_COUNT). */
typedef struct h5w_series_desc {
  char group[160];  /* "/particles/all/position", "/observables/pin_error_rms" */
  int row;          /* H5W_ROW_* */
  int kind, stat;   /* of a family slot (kind VS_KIND_COUNT = "all"); else -1 */
  const char *unit; /* of value */
  /* with a model only: */
  int wanted;        /* the model's output writes it */
  int rank;          /* of value, axis 0 included (1..3) */
  hsize_t inner[2];  /* value's per-frame shape (rank - 1 dims) */
  hid_t ftype;       /* file type of value */
  hid_t mtype;       /* memory type of the buffered frames */
} h5w_series_desc;

/* Fill d for slot i; m may be NULL (then only group, row, kind, stat, unit). */
__attribute__((visibility("hidden"))) void h5w_series_describe(int i, const vs_model *m,
                                                               h5w_series_desc *d);
/* The number of constraints of kind k in m. */
__attribute__((visibility("hidden"))) int32_t h5w_kind_count(const vs_model *m, int k);
/* The slot whose value dataset is `path` ("/.../value"), or -1. */
__attribute__((visibility("hidden"))) int h5w_series_of_value(const char *path);

#endif
