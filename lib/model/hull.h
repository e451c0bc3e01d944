/* SPDX-License-Identifier: MIT */
/* hull.h (private): the convex hull of a point set, for `shape: convex`
 * rigid bodies (docs/scene-format.md, "Convex bodies"): built once at model
 * build, its coplanar triangles merged into polygons, with the mass
 * properties of the solid it bounds, turned to its principal frame.
 *
 * Deterministic: one fixed order of insertion (the input's), every
 * predicate a plain IEEE expression (no FMA: the build has
 * -ffp-contract=off) against a tolerance relative to the points' extent,
 * and a canonical output -- vertices sorted by (z, y, x) of the input
 * coordinates, each face starting at its lowest vertex, faces sorted by
 * their first two vertices, edges by their vertices -- so that a permuted
 * input gives the same hull, bit for bit (the same points are kept; the
 * insertion order decides only which near-coplanar points are dropped). */
#ifndef VSIM_MODEL_HULL_H
#define VSIM_MODEL_HULL_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

#define VS_HULL_MAX_VERTS 256   /* vertices of a hull (the documented limit) */
#define VS_HULL_MAX_POINTS 4096 /* points given for one hull */

typedef struct vs_hull {
  int32_t nv, nf, ne;
  double *v;          /* (nv x 3) in the body frame: principal axes, centre of mass at 0 */
  double *plane;      /* (nf x 4) outward unit normal n, offset d: n.x <= d inside */
  int32_t *fstart;    /* (nf + 1) face f is fvert[fstart[f] .. fstart[f + 1]) */
  int32_t *fvert;     /* counter-clockwise seen from outside */
  int32_t *edge;      /* (ne x 4) vertices a < b, the face that runs a -> b, the one b -> a */
  double volume;      /* m^3 */
  double inertia[3];  /* principal moments per unit mass (I / m), m^2 */
  double centroid[3]; /* the solid's centroid in the input frame */
  double rot[4];      /* unit quaternion [w, x, y, z]: body frame -> input frame */
  double half[3];     /* largest |v| along each body axis */
  double radius;      /* largest |v| */
} vs_hull;

/* The hull of the n points pts (x 3), each multiplied by scale first.  On
 * failure (VS_ERR_SCENE: fewer than 4 points, a non-finite one, all of them
 * equal, collinear or coplanar; VS_ERR_LIMIT: more than VS_HULL_MAX_POINTS
 * points or VS_HULL_MAX_VERTS vertices; VS_ERR_NOMEM) why says what, *out
 * stays empty. */
vs_status vs_hull_build(const double *pts, int32_t n, double scale, vs_hull *out, char *why,
                        size_t nwhy);
void vs_hull_free(vs_hull *h);

/* Signed distance of body-frame point p to the hull's surface, > 0 outside
 * (exact outside: the nearest point of the faces; inside: the largest face
 * separation); the nearest surface point in q and its outward normal in n. */
double vs_hull_distance(const vs_hull *h, const double p[3], double q[3], double n[3]);

/* The quaternion of a rotation matrix (row-major, det +1). */
void vs_quat_from_mat(const double R[9], double q[4]);

#endif
