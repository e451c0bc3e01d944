/* SPDX-License-Identifier: MIT */
/* meshgrid.h (private): a uniform grid over a static triangle mesh, for the
 * particle-vs-mesh collider's per-step detection (solve/collide_mesh.c).
 *
 * Built once, deterministically (cells and lists depend only on the input
 * values): cubic cells of side h over the mesh's box grown by `margin`;
 * cell k lists, in triangle-number order, every triangle whose box grown by
 * margin (plus a rounding slack) overlaps the cell.  So for any point p, the
 * list of p's cell holds every triangle within `margin` of p, and a point
 * outside the grid has none: one O(1) lookup instead of a BVH walk.
 *
 * Memory is bounded: at most 16 n_tri + 4096 cells and 48 n_tri + 65536
 * list entries (h grows by 10 % until both hold), 4 bytes each
 * (VS_MESH_GRID_BYTES, counted by model/estimate.c).  h also grows, up to
 * twice its first value, until the cell bounds and the lists together fit
 * in VS_MESH_GRID_TABLE bytes (the queries wait on loads from them). */
#ifndef VSIM_MESHGRID_H
#define VSIM_MESHGRID_H

#include <stdint.h>

#include "model/bvh.h"
#include "vsim/error.h"

#define VS_MESH_GRID_TABLE (6 << 20)

#define VS_MESH_GRID_BYTES(nt) (4 * (16 * (int64_t)(nt) + 4097) + 4 * (48 * (int64_t)(nt) + 65536))

typedef struct vs_mesh_grid {
  double lo[3];     /* the grid's corner */
  double h, inv_h;  /* cell side */
  double margin;    /* every triangle within this of a point is in its cell's list */
  int32_t n[3];     /* cells per axis */
  int32_t *start;   /* n0 n1 n2 + 1: cell k's triangles are tri[start[k] .. start[k+1]) */
  int32_t *tri;
  int64_t n_entries;
  int32_t max_list; /* the longest list */
} vs_mesh_grid;

/* Build over the BVH's triangles (borrowed vertices and triangles), margin
 * > 0.  VS_ERR_NOMEM; *g is empty on failure. */
vs_status vs_mesh_grid_build(vs_mesh_grid *g, const vs_bvh *b, double margin, vs_error *err);
void vs_mesh_grid_free(vs_mesh_grid *g);

/* The cell of p (-1: outside the grid, no triangle within margin). */
static inline int64_t vs_mesh_grid_cell(const vs_mesh_grid *g, const double p[3]) {
  int64_t id = 0;
  for (int k = 2; k >= 0; k--) {
    const double f = (p[k] - g->lo[k]) * g->inv_h;
    if (!(f >= 0.0 && f < (double)g->n[k])) return -1;
    id = id * g->n[k] + (int64_t)f;
  }
  return id;
}

#endif
