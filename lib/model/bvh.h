/* SPDX-License-Identifier: MIT */
/* bvh.h (private): a bounding volume hierarchy over a static triangle mesh.
 *
 * Built once: axis-aligned boxes, a median split on the longest axis of the
 * node's triangle centroids (ties between axes: x, then y, then z), the
 * triangles ordered by (centroid on that axis, triangle number), so that the
 * tree depends only on the input values, never on addresses; leaves hold at
 * most VS_BVH_LEAF triangles.  The nodes are one flat array in depth-first
 * order: an inner node's left child follows it, its right child is `right`.
 *
 * Queries allocate nothing and may run on many threads at once.  Every query
 * gives the same answer as testing every triangle in number order (ties go to
 * the lowest triangle number); tests/test_bvh.c checks that against brute
 * force.  The vertices and triangles are borrowed: they must outlive the BVH
 * and stay unchanged.  Coordinates must be finite. */
#ifndef VSIM_BVH_H
#define VSIM_BVH_H

#include <stdint.h>

#include "vsim/error.h"

#define VS_BVH_LEAF 4
#define VS_BVH_MAX_TRIANGLES (1LL << 26) /* 67M: keeps node and stack counts small */

typedef struct vs_bvh_node {
  double lo[3], hi[3]; /* the box of every triangle below */
  int32_t start;       /* leaf: first entry in order[]; inner: the right child */
  int32_t count;       /* leaf: triangles (> 0); inner: 0 */
} vs_bvh_node;

typedef struct vs_bvh {
  const double *v;     /* borrowed: vertices, 3 per vertex */
  const int32_t *tri;  /* borrowed: triangles, 3 vertex numbers each */
  int32_t n_tri;
  int32_t n_nodes;
  int32_t depth;       /* nodes on the longest root-to-leaf path */
  vs_bvh_node *nodes;  /* n_nodes, root first */
  int32_t *order;      /* n_tri: triangle numbers, leaf by leaf */
  /* per triangle, VS_BVH_PLANES floats (64 bytes): the unit normal n and
   * n.a, then for each edge (ab, bc, ca) its outward in-plane unit normal e
   * and e.(its first corner): the bounds of the list queries below (never
   * their answers; their slack covers the float rounding); 64-byte
   * aligned, so that a triangle's planes are one cache line, not two */
  float *planes;
  void *planes_mem;    /* the allocation planes lies in */
  double scale;        /* 1 + the largest |coordinate| of the vertices */
  double extent;       /* the root box's longest side */
} vs_bvh;

#define VS_BVH_PLANES 16

/* What a BVH over nt triangles holds (fewer than nt nodes, the order, the
 * planes and their alignment), counted by model/estimate.c. */
#define VS_BVH_BYTES(nt) \
  ((int64_t)(nt) * ((int64_t)sizeof(vs_bvh_node) + 4 + 4 * VS_BVH_PLANES) + 63)

/* Build over nt triangles (nt >= 1) of nv vertices; every vertex number must
 * be in [0, nv).  VS_ERR_USAGE for a bad argument, VS_ERR_LIMIT over
 * VS_BVH_MAX_TRIANGLES, VS_ERR_NOMEM.  *b is empty on failure. */
vs_status vs_bvh_build(vs_bvh *b, const double *v, int32_t nv, const int32_t *tri, int32_t nt,
                       vs_error *err);
void vs_bvh_free(vs_bvh *b);

/* (a) Triangles whose box overlaps the box [lo, hi] (closed) or the ball
 * (c, r): the first `cap` numbers go to out (tree order), the return value is
 * how many there are in all. */
int64_t vs_bvh_query_box(const vs_bvh *b, const double lo[3], const double hi[3], int32_t *out,
                         int64_t cap);
int64_t vs_bvh_query_sphere(const vs_bvh *b, const double c[3], double r, int32_t *out,
                            int64_t cap);

typedef struct vs_bvh_hit {
  int32_t tri;       /* triangle number */
  double t;          /* segment: the hit parameter in [0, 1] */
  double dist;       /* closest: the distance from the point */
  double point[3];   /* the point on the triangle */
  double normal[3];  /* the triangle's unit normal, (b - a) x (c - a) / |...| */
} vs_bvh_hit;

/* (b) The closest point of the mesh to p at a distance <= maxd: 1 and *hit,
 * or 0 when none is that close. */
int vs_bvh_closest(const vs_bvh *b, const double p[3], double maxd, vs_bvh_hit *hit);

/* (c) The first triangle the segment p0 -> p1 meets (smallest t, then the
 * lowest number; edges and corners count as inside, to 1e-10 of the
 * barycentric coordinates, so that a segment through a shared edge hits):
 * 1 and *hit, or 0.  A segment lying in a triangle's plane does not hit it. */
int vs_bvh_segment(const vs_bvh *b, const double p0[3], const double p1[3], vs_bvh_hit *hit);

/* (d) The k nearest triangles to p (1 <= k < 64) within maxd of it: their
 * numbers to out (at most k), and *reach, a distance such that every
 * triangle not in out is at least that far from p (maxd when out holds
 * every triangle within maxd), and *clear, a distance within which p has no
 * triangle at all.  Rounding is allowed for: both are on the safe side by
 * far more than the queries' own rounding. */
int vs_bvh_nearest(const vs_bvh *b, const double p[3], int k, double maxd, int32_t *out,
                   double *reach, double *clear);

/* (b) and (c) over a list of triangles (as vs_bvh_nearest gives) instead of
 * the whole mesh: the same answer as the whole mesh whenever every triangle
 * that could be the answer is in the list (every one within maxd of p; every
 * one the segment meets).  Triangles are ruled out first by their planes
 * (vs_bvh.planes), beyond rounding, and only the rest are tested exactly. */
int vs_bvh_closest_list(const vs_bvh *b, const int32_t *list, int n, const double p[3], double maxd,
                        vs_bvh_hit *hit);
int vs_bvh_segment_list(const vs_bvh *b, const int32_t *list, int n, const double p0[3],
                        const double p1[3], vs_bvh_hit *hit);

/* Tests only: 0 makes the list queries rule triangles out one at a time,
 * as they do where SSE2 is not built (arm64), instead of four at a time;
 * 1 (the default) uses what is built. */
void vs_bvh__simd(int on);

/* The per-triangle tests the queries use (exposed for the brute-force tests). */
double vs_tri_closest(const double *a, const double *bb, const double *c, const double p[3],
                      double q[3]);
int vs_tri_segment(const double *a, const double *bb, const double *c, const double p0[3],
                   const double d[3], double *t);
void vs_tri_normal(const double *a, const double *bb, const double *c, double n[3]);

#endif
