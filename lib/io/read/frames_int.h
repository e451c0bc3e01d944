/* SPDX-License-Identifier: MIT */
/* frames_int.h (private): the state of an open result file for viewers,
 * shared by frames.c (open, frames, topology) and frames_world.c
 * (observables, colliders). */
#ifndef VSIM_IO_FRAMES_INT_H
#define VSIM_IO_FRAMES_INT_H

#include <hdf5.h>
#include <stddef.h>

#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "vsim/frames.h"

#define POS_PATH "/particles/all/position/value"
#define VEL_PATH "/particles/all/velocity/value"
#define ALIVE_PATH "/connectivity/alive/value"
#define RPOS_PATH "/particles/rigid/position/value"
#define RQUAT_PATH "/particles/rigid/orientation/value"

typedef struct series {
  char *name;  /* flat name */
  char *group; /* "/observables/.../" element group */
  char unit[16];
} series;

struct vs_frames {
  char *path;
  vs_h5g_file g; /* opened and checked through the validating reader */
  hid_t h;       /* g.file */
  size_t F;
  double *time;
  vs_h5_ds pos, vel, alive, rpos, rquat;
  int has_pos, has_vel, has_alive, has_rigid;
  vs_frames_topology t;
  int32_t *body, *links, *link_slot, *tris, *rigid_shape;
  double *radius, *rigid_size, *hull_v;
  int32_t *hull_range, *hull_tri;
  vs_frames_collider *colliders;
  series *s;
  size_t ns;
};


#define FR_PRIVATE __attribute__((visibility("hidden")))
FR_PRIVATE vs_status fr_ds_error(vs_frames *f, vs_error *err, const char *ds, const char *what);
FR_PRIVATE vs_status fr_shape_error(vs_frames *f, vs_error *err, const char *ds, const vs_h5_ds *x,
                                    const char *want);
FR_PRIVATE vs_status fr_nomem(vs_frames *f, vs_error *err);
/* Open an optional dataset: 1 open, 0 absent, -1 error (filled). */
FR_PRIVATE int fr_open_opt(vs_frames *f, const char *p, vs_h5_ds *x, vs_error *err);
/* A whole small dataset read into a new array (frames.c): 1 read, 0 absent, -1 error. */
FR_PRIVATE int fr_read_all(vs_frames *f, const char *p, int want_rank, hsize_t inner, hid_t mtype,
                           void **out, size_t *rows, vs_error *err);
/* frames_world.c: the observables' names, and the colliders (from
 * /world/colliders, else from the resolved scene). */
FR_PRIVATE vs_status fr_load_series(vs_frames *f, vs_error *err);
FR_PRIVATE vs_status fr_load_world_colliders(vs_frames *f, vs_error *err);
FR_PRIVATE vs_status fr_load_from_scene(vs_frames *f, int need_colliders, vs_error *err);

#endif
