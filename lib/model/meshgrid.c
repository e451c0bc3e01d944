/* SPDX-License-Identifier: MIT */
/* meshgrid.c: the uniform grid of triangle lists (see model/meshgrid.h). */
#include "model/meshgrid.h"

#include <math.h>
#include <string.h>

#include "util/alloc.h"

void vs_mesh_grid_free(vs_mesh_grid *g) {
  if (!g) return;
  vs_free(g->start);
  vs_free(g->tri);
  memset(g, 0, sizeof *g);
}

/* The cell range [c0, c1] of triangle t's box grown by m, per axis. */
static void cell_range(const vs_mesh_grid *g, const vs_bvh *b, int32_t t, double m, int32_t c0[3],
                       int32_t c1[3]) {
  const double *a = b->v + 3 * (size_t)b->tri[3 * (size_t)t], *bb = b->v + 3 * (size_t)b->tri[3 * (size_t)t + 1],
               *c = b->v + 3 * (size_t)b->tri[3 * (size_t)t + 2];
  for (int k = 0; k < 3; k++) {
    double lo = fmin(a[k], fmin(bb[k], c[k])) - m, hi = fmax(a[k], fmax(bb[k], c[k])) + m;
    double f0 = floor((lo - g->lo[k]) * g->inv_h), f1 = floor((hi - g->lo[k]) * g->inv_h);
    if (f0 < 0.0) f0 = 0.0;
    if (f1 > (double)(g->n[k] - 1)) f1 = (double)(g->n[k] - 1);
    c0[k] = (int32_t)f0, c1[k] = (int32_t)f1;
  }
}

vs_status vs_mesh_grid_build(vs_mesh_grid *g, const vs_bvh *b, double margin, vs_error *err) {
  memset(g, 0, sizeof *g);
  if (!b || b->n_tri < 1 || !(margin > 0.0) || !isfinite(margin))
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_mesh_grid_build: bad argument");
  const int64_t nt = b->n_tri, max_cells = 16 * nt + 4096, max_entries = 48 * nt + 65536;
  /* the lists' margin: margin plus far more than the rounding of a lookup */
  const double m = margin + 1e-6 * b->scale;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double edges = 0.0;
  for (int64_t t = 0; t < nt; t++) {
    const double *c[3];
    for (int j = 0; j < 3; j++) c[j] = b->v + 3 * (size_t)b->tri[3 * t + j];
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], c[j][k]), hi[k] = fmax(hi[k], c[j][k]);
      const double *d = c[(j + 1) % 3];
      edges += sqrt((d[0] - c[j][0]) * (d[0] - c[j][0]) + (d[1] - c[j][1]) * (d[1] - c[j][1]) +
                    (d[2] - c[j][2]) * (d[2] - c[j][2]));
    }
  }
  /* cells of the mean edge or the margin, whichever is longer (a list then
   * holds the triangles within about 3 cells), grown until the bounds hold,
   * and grown further, up to twice that side, until the lists and the cell
   * bounds fit in VS_MESH_GRID_TABLE bytes: a query waits on loads from
   * them, and a table larger than the last-level cache makes each load a
   * trip to memory (docs/performance.md, "Mesh collider against an
   * analytic sphere": for the bench's 100k-triangle ball, cells of 2 cm
   * instead of 1.1 and lists of 5 MB instead of 16 took 5-12 % off the
   * collision row) */
  double h = fmax(edges / (3.0 * (double)nt), margin);
  double ext = 0.0;
  for (int k = 0; k < 3; k++) lo[k] -= m, hi[k] += m, ext = fmax(ext, hi[k] - lo[k]);
  if (!(h > 0.0)) h = ext;
  const double h0 = h;
  for (;;) {
    int64_t cells = 1;
    for (int k = 0; k < 3; k++) {
      double nk = floor((hi[k] - lo[k]) / h) + 1.0;
      g->n[k] = (int32_t)fmin(nk, 1e9);
      cells *= g->n[k];
      if (cells > max_cells) break;
    }
    if (cells <= max_cells) {
      memcpy(g->lo, lo, sizeof lo);
      g->h = h, g->inv_h = 1.0 / h;
      /* (the budget's cap, while the cells may still grow for it) */
      const int64_t table = VS_MESH_GRID_TABLE / 4 - (cells + 1);
      const int64_t cap = h < 2.0 * h0 && h < ext && table < max_entries ? table : max_entries;
      int64_t entries = 0;
      for (int32_t t = 0; t < nt && entries <= cap; t++) {
        int32_t c0[3], c1[3];
        cell_range(g, b, t, m, c0, c1);
        entries += (int64_t)(c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
      }
      if (entries <= cap || h >= ext) {
        g->n_entries = entries;
        break;
      }
    }
    h *= 1.1;
  }
  const int64_t cells = (int64_t)g->n[0] * g->n[1] * g->n[2];
  g->margin = margin;
  g->start = vs_calloc((size_t)cells + 1, sizeof *g->start);
  g->tri = vs_malloc((size_t)(g->n_entries > 0 ? g->n_entries : 1) * sizeof *g->tri);
  if (!g->start || !g->tri) {
    vs_mesh_grid_free(g);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory building a mesh grid");
  }
  /* counting sort: counts, offsets, then the triangles in number order */
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t t = 0; t < nt; t++) {
      int32_t c0[3], c1[3];
      cell_range(g, b, t, m, c0, c1);
      for (int32_t z = c0[2]; z <= c1[2]; z++)
        for (int32_t y = c0[1]; y <= c1[1]; y++)
          for (int32_t x = c0[0]; x <= c1[0]; x++) {
            const int64_t id = ((int64_t)z * g->n[1] + y) * g->n[0] + x;
            if (pass == 0) g->start[id + 1]++;
            else g->tri[g->start[id]++] = t;
          }
    }
    if (pass == 0) {
      for (int64_t k = 0; k < cells; k++) {
        if (g->start[k + 1] > g->max_list) g->max_list = g->start[k + 1];
        g->start[k + 1] += g->start[k];
      }
    } else {
      /* start[k] now holds cell k's end: shift back */
      for (int64_t k = cells; k > 0; k--) g->start[k] = g->start[k - 1];
      g->start[0] = 0;
    }
  }
  return VS_OK;
}
