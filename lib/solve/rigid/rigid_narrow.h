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

/* A polygon's vertex with its feature id (face clipping). */
typedef struct vs_rcvert {
  double p[3];
  int id;
} vs_rcvert;

/* The separation an edge pair must exceed, before the absolute tolerance,
 * to be taken over the faces' sface: less deep by the fraction 1 - rel
 * when the faces overlap (rel sface), farther apart by it when they are
 * separated ((2 - rel) sface).  rel sface for both let an edge pair exactly
 * as far apart as two faces win when they are apart: a fast cube found
 * 0.9 m from a wall, face to face, got one point midway between two edges,
 * outside both bodies, which stopped it by spinning it, and it passed
 * through the wall (docs/physics.md, "Rigid bodies"). */
static inline double vs_rc_edge_over(double sface, double rel) {
  return sface < 0 ? rel * sface : (2.0 - rel) * sface;
}

/* Clip polygon in[n] to the half-space dot(u, p) <= off; a vertex made where
 * an edge crosses the plane gets id id0 entering, id0 + 1 leaving (a convex
 * polygon crosses a plane at most twice).  Returns the vertices in out. */
static inline int vs_rc_clip(const vs_rcvert *in, int n, const double u[3], double off, int id0,
                             vs_rcvert *out) {
  int m = 0;
  if (n <= 0) return 0;
  /* each vertex's distance once: db of one edge is da of the next */
  const double d0 = vs_dot3(u, in[0].p) - off;
  double da = d0;
  for (int i = 0; i < n; i++) {
    const vs_rcvert *a = &in[i], *b = &in[(i + 1) % n];
    const double db = i + 1 < n ? vs_dot3(u, b->p) - off : d0;
    if (da <= 0) out[m++] = *a;
    if ((da <= 0) != (db <= 0)) {
      vs_lerp3(a->p, b->p, da / (da - db), out[m].p);
      out[m].id = id0 + (da > 0);
      m++;
    }
    da = db;
  }
  return m;
}

typedef struct cpt {
  double n[3]; /* from the first shape to the second */
  double p[3];
  double depth;
  uint32_t feature;
} cpt;

/* The clipped incident polygon's vertices within the margin of the reference
 * face (unit normal nref out of it, plane dot(nref, p) = off) as contact
 * points midway between the surfaces, normal nref (-nref when flip: the
 * reference shape is the second), features fbase | the vertex's id; returns
 * their number in cand (room for n). */
static inline int vs_rc_face_points(const vs_rcvert *poly, int n, const double nref[3], double off,
                                    double margin, int flip, uint32_t fbase, cpt *cand) {
  int nc = 0;
  for (int v = 0; v < n; v++) {
    double sep = vs_dot3(nref, poly[v].p) - off;
    if (sep >= margin) continue;
    cpt *c = &cand[nc++];
    for (int k = 0; k < 3; k++) {
      c->n[k] = flip ? -nref[k] : nref[k];
      c->p[k] = poly[v].p[k] - 0.5 * sep * nref[k];
    }
    c->depth = -sep;
    c->feature = fbase | (uint32_t)poly[v].id;
  }
  return nc;
}

/* A capsule's segment p0-p1 (radius r) against a solid whose signed distance
 * (negative inside) is sdf: the segment's deepest point, found by a
 * golden-section search (the distance is convex along the segment), when it
 * lies strictly inside the segment and deeper than both ends -- a capsule
 * lying across an edge, which its two end spheres miss.  Returns 1 with
 * the point in pt, 0 otherwise. */
static inline int vs_rc_segment_inner(double (*sdf)(const shp *, const double *), const shp *a,
                                      const double p0[3], const double p1[3], double r,
                                      double pt[3]) {
  double lo = 0, hi = 1, g = 0.6180339887498949;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  vs_lerp3(p0, p1, x1, pt);
  double f1 = sdf(a, pt);
  vs_lerp3(p0, p1, x2, pt);
  double f2 = sdf(a, pt);
  for (int it = 0; it < 40; it++) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo);
      vs_lerp3(p0, p1, x1, pt);
      f1 = sdf(a, pt);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo);
      vs_lerp3(p0, p1, x2, pt);
      f2 = sdf(a, pt);
    }
  }
  double t = 0.5 * (lo + hi);
  if (!(t > 0.02 && t < 0.98)) return 0;
  vs_lerp3(p0, p1, t, pt);
  double fm = sdf(a, pt), fe0 = sdf(a, p0), fe1 = sdf(a, p1);
  double fe = fe0 < fe1 ? fe0 : fe1;
  return fm < fe - 1e-3 * r;
}

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
