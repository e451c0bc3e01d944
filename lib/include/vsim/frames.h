/* SPDX-License-Identifier: MIT */
/* vsim/frames.h: reading a result file frame by frame, for viewers
 * (`vsim render`, `vsim plot`; docs/result-file.md).
 *
 * vs_frames_open reads what never changes (the topology, the frame times,
 * the list of observables) and keeps the file open; each frame's positions,
 * velocities, alive flags and rigid poses are then read as one slab of the
 * file, so memory stays one frame's worth whatever the run's length.  The
 * reader takes whatever the file has: format version 1 (nested observables)
 * and 2 (flat), radius, velocity, alive flags, rigid bodies and colliders
 * each only when present.  Errors name the file and the dataset. */
#ifndef VSIM_FRAMES_H
#define VSIM_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vs_frames vs_frames;

typedef enum vs_frames_collider_kind {
  VS_FRAMES_PLANE = 0, /* point, normal */
  VS_FRAMES_SPHERE,    /* center, radius */
  VS_FRAMES_BOX,       /* lo, hi (solid) */
  VS_FRAMES_BOUNDS,    /* lo, hi (particles kept inside) */
  VS_FRAMES_MESH       /* vertices [nv][3], tris [nt][3] */
} vs_frames_collider_kind;

typedef struct vs_frames_collider {
  vs_frames_collider_kind kind;
  double point[3], normal[3];
  double center[3], radius;
  double lo[3], hi[3];
  size_t n_vertices, n_tris;
  double *vertices;
  int32_t *tris;
} vs_frames_collider;

/* What does not change with time.  Pointers are NULL when the count is 0 or
 * the file does not have them. */
typedef struct vs_frames_topology {
  size_t n_particles;       /* N of /particles/all (0 when the file has none) */
  const int32_t *body;      /* [N] /particles/all/body */
  const double *radius;     /* [N] /particles/all/radius, else from the recorded scene's bodies */
  size_t n_links;           /* every /connectivity/<kind> [M, 2] together, in path order */
  const int32_t *links;     /* [n_links][2] */
  const int32_t *link_slot; /* [n_links] column of the link in the alive rows, -1: never torn;
                               NULL when the file records no alive flags */
  size_t n_alive;           /* columns of /connectivity/alive/value (0: none recorded) */
  size_t n_tris;
  const int32_t *tris;      /* [n_tris][3] /connectivity/triangles */
  size_t n_rigid;           /* B of /particles/rigid */
  const int32_t *rigid_shape; /* [B] 0 box, 1 sphere, 2 capsule, 3 convex */
  const double *rigid_size;   /* [B][3] box extents; sphere [r,0,0]; capsule [r,length,0];
                                 convex: the box about the centre of mass that holds it */
  size_t n_colliders;       /* /world/colliders/<i>, else the recorded scene's colliders */
  const vs_frames_collider *colliders;
  /* convex bodies (NULL and 0 when the file has none): /particles/rigid/hull_* */
  const int32_t *hull_range;     /* [B][4] first vertex, vertices, first triangle, triangles */
  size_t n_hull_vertices;
  const double *hull_vertices;   /* [n][3] body frame */
  size_t n_hull_triangles;
  const int32_t *hull_triangles; /* [n][3] into hull_vertices (checked in range) */
} vs_frames_topology;

/* Open a result file.  Errors: unreadable -> VS_ERR_IO; not HDF5, or HDF5
 * but not a vsim result ("not a vsim result file"), or a dataset of the wrong
 * shape -> VS_ERR_FORMAT naming the dataset; a file with no frames ->
 * VS_ERR_FORMAT.  A file that recorded no positions (output.fields without
 * position) opens with its observables and no frames to draw (count 0). */
vs_status vs_frames_open(const char *path, vs_frames **out, vs_error *err);
void vs_frames_close(vs_frames *f);

const char *vs_frames_path(const vs_frames *f);
size_t vs_frames_count(const vs_frames *f);          /* F recorded frames: >= 1 with positions, else 0 */
double vs_frames_time(const vs_frames *f, size_t k);  /* seconds; NaN when k >= F */
/* The frame whose time is nearest t (the earlier one on a tie). */
size_t vs_frames_at_time(const vs_frames *f, double t);
const vs_frames_topology *vs_frames_topo(const vs_frames *f);
int vs_frames_has_velocity(const vs_frames *f);
/* VS_OK when the file has positions to draw (particles or rigid bodies),
 * else VS_ERR_FORMAT: "no positions recorded (...): nothing to draw". */
vs_status vs_frames_check_drawable(const vs_frames *f, vs_error *err);

/* Frame k (0 <= k < F; else VS_ERR_USAGE naming the valid range) into the
 * caller's arrays: positions [N][3]; velocities [N][3] (VS_ERR_FORMAT when
 * not recorded); alive flags [n_alive] (all 1 when not recorded); rigid
 * centres [B][3] and orientations [B][4] (w, x, y, z). */
vs_status vs_frames_position(vs_frames *f, size_t k, double *pos, vs_error *err);
vs_status vs_frames_velocity(vs_frames *f, size_t k, double *vel, vs_error *err);
vs_status vs_frames_alive(vs_frames *f, size_t k, uint8_t *alive, vs_error *err);
vs_status vs_frames_rigid(vs_frames *f, size_t k, double *center, double *quat, vs_error *err);

/* The box holding every particle (with its radius), rigid body (by its
 * bounding sphere) and finite collider over all frames, read one frame at a
 * time.  A file with nothing finite gives [-1, 1]^3. */
vs_status vs_frames_bounds(vs_frames *f, double lo[3], double hi[3], vs_error *err);

/* Observables: every group under /observables that holds a `value` dataset
 * of one number per frame.  Names are the flat names of format version 2
 * ("constraint_error_max", "distance_error_rms", "penetration_max",
 * "energy_kinetic", "constraints_alive"); a version 1 file's nested groups
 * get the same names (constraint_error/all/max -> constraint_error_max,
 * constraint_error/distance/rms -> distance_error_rms, energy/kinetic ->
 * energy_kinetic). */
size_t vs_frames_series_count(const vs_frames *f);
const char *vs_frames_series_name(const vs_frames *f, size_t i);
const char *vs_frames_series_unit(const vs_frames *f, size_t i); /* "m", "J", "1", "" */
/* Index of the series called name, or -1. */
long vs_frames_series_find(const vs_frames *f, const char *name);
/* Series i: *n points of time (*t) and value (*v), two arrays to free with
 * vs_free_buffer().  A series that declares more than its file can hold
 * (over 16 MiB and 16 times the file's size: only compression gets there)
 * is VS_ERR_FORMAT, saying so. */
vs_status vs_frames_series_read(vs_frames *f, size_t i, double **t, double **v, size_t *n,
                                vs_error *err);
/* The same, read in slabs, with at most max_points points: a longer series
 * is cut into max_points / 2 runs of consecutive points and each gives its
 * smallest and largest value, in time order (what a plot of it shows);
 * max_points 0: every point. */
vs_status vs_frames_series_read_max(vs_frames *f, size_t i, size_t max_points, double **t,
                                    double **v, size_t *n, vs_error *err);

#ifdef __cplusplus
}
#endif
#endif
