/* SPDX-License-Identifier: MIT */
/* rigid_narrow.h (private): what the narrow phase's files share -- one
 * body's shape placed in the world (shp) and one contact point (cpt) --
 * and the convex hull's tests (rigid_convex.c) that rigid_collide.c's pair
 * table and plane test call. */
#ifndef VSIM_RIGID_NARROW_H
#define VSIM_RIGID_NARROW_H

#include "solve/rigid/rigid.h"

typedef struct shp {
  int shape;
  double c[3];
  double R[9];
  double h[3];         /* box half extents */
  double r;            /* sphere / capsule radius */
  double hl;           /* capsule half length (along local y) */
  const vs_hull *hull; /* convex: in the body frame */
} shp;

typedef struct cpt {
  double n[3]; /* from the first shape to the second */
  double p[3];
  double depth;
  uint32_t feature;
} cpt;

/* Sphere (centre p, radius r) against convex a: normal from a to the sphere. */
VS_RPRIVATE int vs_rc_convex_sphere(const shp *a, const double p[3], double r, double margin,
                                    uint32_t feature, cpt *o);
/* Capsule b against convex a: its end spheres and, across an edge, its
 * deepest inner point (normal from a to b). */
VS_RPRIVATE int vs_rc_convex_capsule(const shp *a, const shp *b, double margin, cpt *o);
/* Two polyhedra, each a convex hull or a box (normal from a to b): the
 * separating-axis test over both shapes' face normals and the edge pairs
 * that form a face of their Minkowski difference, then the incident face
 * clipped against the reference face, at most 4 points. */
VS_RPRIVATE int vs_rc_poly_poly(const shp *a, const shp *b, double margin, cpt *o);
/* Convex a against the half-space dot(nrm, p - pt) < 0: its vertices
 * within the margin, at most 4, the deepest (normal -nrm), features fbase << 5 | vertex
 * (bounds give fbase = wall << 4: 256 vertices per wall). */
VS_RPRIVATE int vs_rc_convex_plane(const shp *a, const double pt[3], const double nrm[3],
                                   double margin, uint32_t fbase, cpt *o);
/* Reduce n > 4 points of one normal nref to 4 (the deepest, the farthest
 * from it, the largest triangles either side), kept in their order. */
VS_RPRIVATE int vs_rc_reduce4(const cpt *cand, int nc, const double nref[3], cpt *o);

#endif
