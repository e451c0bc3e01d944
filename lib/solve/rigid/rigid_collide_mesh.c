/* SPDX-License-Identifier: MIT */
/* rigid_collide_mesh.c: rigid bodies against a static triangle-mesh collider
 * (the narrow phase that vs_rigid_collide_collider calls for a mesh).
 *
 * The triangles near a body are found by walking the collider's BVH
 * (model/bvh.h) with the body's bounding box grown by the contact margin and
 * the mesh's thickness; the walk uses a fixed stack and a fixed candidate
 * buffer, so nothing allocates, and it visits the triangles in the tree's
 * order, which depends only on the mesh.  The mesh is a skin `thickness`
 * thick around its triangles.  Each triangle faces the body from the side of
 * its plane on which the body's centre of mass lies, so an open mesh (a
 * floor) works from both sides.
 *
 *   sphere: the closest point of each triangle to the centre;
 *   capsule: the same for both end spheres, plus the closest point of the
 *     segment to the triangle when it lies well inside the segment and is
 *     nearer than both ends (a capsule across a ridge);
 *   box: the triangle as the reference face: the box face most anti-parallel
 *     to the triangle's normal, clipped against the triangle's three side
 *     planes, keeps its points below the skin (as box-box does, Gottschalk /
 *     Catto); and the box as the reference: a triangle vertex below a box
 *     face that faces the triangle (a box on a peak).  No edge-edge axis: a
 *     box edge across a ridge is caught by the clipped face.
 *
 * No snagging on interior edges: a sphere's contact whose closest point lies
 * on a triangle's edge or corner is dropped when the same sphere has a
 * contact in some triangle's face region that is at least as deep (on a flat
 * mesh the face region of one triangle always holds the sphere); box contacts
 * always carry a face normal.  The points of one body-mesh pair are grouped
 * by normal (a flat patch: normals within about a degree) and each group is
 * reduced to 4: the deepest (within a millimetre, the one farthest from the
 * patch's centroid), the farthest from it and the largest triangles on
 * either side, among the points within 2.5 mm of the deepest, then the
 * deepest others; at most MKEEP (12) points in all, the deepest.  A box on a
 * flat mesh so keeps its four corners, as on a plane; on a curved mesh (an
 * icosphere) each facet under the box keeps its own points: with only 4 for
 * the whole pair, a box landing flat on an icosphere's cap sank 11.5 mm
 * into it between its 4 points, with up to 4 per facet 3.5 mm (the slop is
 * 5 mm; tests/test_rigid_mesh.c).
 *
 * Features (warm starting): triangle << 5 | point, where point is a box
 * vertex 0..7, a clipped point 8..13, or a sphere 0..2 (capsule ends, the
 * middle); a triangle vertex under a box face is 1 << 31 | vertex << 3 |
 * face, so that the same vertex found through its several triangles is one
 * contact. */
#include <string.h>

#include "model/bvh.h"
#include "solve/rigid/rigid_narrow.h"

#define MCAND 96  /* candidate points held before a reduction */
#define MSTACK 96 /* > the depth of any BVH (bvh.c) */
#define MKEEP 12  /* points of one body-mesh pair: 4 per flat patch */

typedef struct mpt {
  double n[3]; /* from the body to the mesh */
  double p[3];
  double depth;
  uint32_t feature;
  int group;   /* sphere of a capsule (0, 1, middle 2); box: 0 */
  int face;    /* closest point inside the triangle's face region */
} mpt;

typedef struct mbody {
  int shape;
  double c[3], R[9], h[3], r, hl;
  const vs_hull *hull; /* convex */
} mbody;

typedef struct mctx {
  const vs_bvh *bvh;
  double th, margin, tie, deep; /* reduce()'s tolerances */
  mbody b;
  mpt cand[MCAND + 32];
  int n;
} mctx;

static void sub3(const double a[3], const double b[3], double o[3]) {
  o[0] = a[0] - b[0];
  o[1] = a[1] - b[1];
  o[2] = a[2] - b[2];
}

static void axis_of(const double R[9], int k, double o[3]) {
  o[0] = R[k];
  o[1] = R[3 + k];
  o[2] = R[6 + k];
}

/* Reduce the points c[0 .. n) of one patch (one normal) to at most 4, kept in their
 * order.  The points within deep of the deepest are the patch that bears
 * the load: among them the deepest (within tie, the one farthest from their
 * centroid: a corner of a flat patch), the one farthest from it, and the
 * largest triangles on either side; free places go to the deepest others. */
static int reduce(mpt *c, int n, double tie, double deep) {
  if (n <= 4) return n;
  double dmax = -INFINITY, cen[3] = {0, 0, 0};
  int nd = 0;
  for (int k = 0; k < n; k++)
    if (c[k].depth > dmax) dmax = c[k].depth;
  for (int k = 0; k < n; k++)
    if (c[k].depth >= dmax - deep) {
      nd++;
      for (int q = 0; q < 3; q++) cen[q] += c[k].p[q];
    }
  for (int q = 0; q < 3; q++) cen[q] /= nd;
  int a = -1;
  double best = -1;
  for (int k = 0; k < n; k++) {
    if (c[k].depth < dmax - tie) continue;
    double d[3];
    sub3(c[k].p, cen, d);
    double dd = vs_dot3(d, d);
    if (dd > best) best = dd, a = k;
  }
  int pick[4] = {a}, np = 1;
  int b = -1;
  best = -1;
  for (int k = 0; k < n; k++) {
    if (k == a || c[k].depth < dmax - deep) continue;
    double d[3];
    sub3(c[k].p, c[a].p, d);
    double dd = vs_dot3(d, d);
    if (dd > best) best = dd, b = k;
  }
  if (b >= 0) {
    pick[np++] = b;
    int cc = -1, dd4 = -1;
    double cmax = 0, cmin = 0, e[3];
    sub3(c[b].p, c[a].p, e);
    for (int k = 0; k < n; k++) {
      if (k == a || k == b || c[k].depth < dmax - deep) continue;
      double f[3], x[3];
      sub3(c[k].p, c[a].p, f);
      vs_cross3(e, f, x);
      double area = -vs_dot3(x, c[a].n);
      if (area > cmax) cmax = area, cc = k;
      if (area < cmin) cmin = area, dd4 = k;
    }
    if (cc >= 0) pick[np++] = cc;
    if (dd4 >= 0) pick[np++] = dd4;
  }
  while (np < 4) { /* the deepest of the others */
    int o = -1;
    for (int k = 0; k < n; k++) {
      int used = 0;
      for (int q = 0; q < np; q++) used |= pick[q] == k;
      if (!used && (o < 0 || c[k].depth > c[o].depth)) o = k;
    }
    if (o < 0) break;
    pick[np++] = o;
  }
  for (int x = 1; x < np; x++)
    for (int y = x; y > 0 && pick[y - 1] > pick[y]; y--) {
      int t = pick[y];
      pick[y] = pick[y - 1];
      pick[y - 1] = t;
    }
  for (int k = 0; k < np; k++) c[k] = c[pick[k]]; /* pick is increasing: no overwrite */
  return np;
}

/* Group the points by normal (within about a degree: one flat patch),
 * reduce each group to 4, then keep the MKEEP deepest; in their order. */
static int reduce_all(mpt *c, int n, double tie, double deep) {
  if (n <= 4) return n;
  mpt g[MCAND + 32], o[MCAND + 32];
  unsigned char used[MCAND + 32] = {0};
  int w = 0;
  for (int i = 0; i < n; i++) {
    if (used[i]) continue;
    int ng = 0;
    for (int j = i; j < n; j++)
      if (!used[j] && vs_dot3(c[j].n, c[i].n) > 0.9998) used[j] = 1, g[ng++] = c[j];
    ng = reduce(g, ng, tie, deep);
    for (int k = 0; k < ng; k++) o[w++] = g[k];
  }
  while (w > MKEEP) { /* drop the shallowest (the last of equals) */
    int s = 0;
    for (int k = 1; k < w; k++)
      if (o[k].depth <= o[s].depth) s = k;
    memmove(&o[s], &o[s + 1], sizeof(mpt) * (size_t)(w - s - 1));
    w--;
  }
  memcpy(c, o, sizeof(mpt) * (size_t)w);
  return w;
}

static mpt *push(mctx *x) {
  if (x->n >= MCAND) x->n = reduce_all(x->cand, x->n, x->tie, x->deep);
  return &x->cand[x->n++];
}

/* 1 when the projection of p on the plane of (A, B, C) lies in the triangle. */
static int in_face(const double *A, const double *B, const double *C, const double p[3]) {
  double v0[3], v1[3], v2[3];
  sub3(B, A, v0);
  sub3(C, A, v1);
  sub3(p, A, v2);
  double d00 = vs_dot3(v0, v0), d01 = vs_dot3(v0, v1), d11 = vs_dot3(v1, v1);
  double d20 = vs_dot3(v2, v0), d21 = vs_dot3(v2, v1);
  double den = d00 * d11 - d01 * d01;
  if (!(den > 0)) return 0;
  double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
  return v >= 0 && w >= 0 && v + w <= 1;
}

/* Sphere (p, r) against triangle t; nrm: the triangle's unit normal toward
 * the body's centre. */
static void sphere_tri(mctx *x, int32_t t, const double *A, const double *B, const double *C,
                       const double nrm[3], const double p[3], double r, int group) {
  double q[3], ap[3];
  double dist = sqrt(vs_tri_closest(A, B, C, p, q));
  int face = in_face(A, B, C, p);
  sub3(p, A, ap);
  const double sp = vs_dot3(ap, nrm); /* signed: below the plane when the sphere crossed it */
  /* right above an edge or a corner (a capsule lying along a shared edge of
   * a flat mesh, its middle over a vertex): the closest point is as near as
   * the plane but for rounding, and in_face may say no on both sides of the
   * edge; the direction p - q then leans by the rounding (1e-5 rad), no
   * face point of the sphere remains to drop a leaning corner point beside
   * it, and a capsule lying still rolled away at millimetres a second.  It
   * is the face's contact. */
  if (!face && fabs(sp) >= dist - 1e-9 * (1 + r)) face = 1;
  double out[3], sd;
  if (face || !(dist > 1e-12 * (1 + r))) {
    memcpy(out, nrm, sizeof out);
    sd = sp;
    face = face || sd <= 0;
  } else {
    double d[3];
    sub3(p, q, d);
    for (int k = 0; k < 3; k++) out[k] = d[k] / dist;
    sd = dist;
  }
  double depth = r + x->th - sd;
  if (depth <= -x->margin) return;
  mpt *o = push(x);
  for (int k = 0; k < 3; k++) {
    o->n[k] = -out[k];
    o->p[k] = p[k] - out[k] * (r - 0.5 * depth);
  }
  o->depth = depth;
  o->feature = ((uint32_t)t << 5) | (uint32_t)group;
  o->group = group;
  o->face = face;
}

/* The parameter s of the point of segment p0-p1 closest to triangle ABC, and
 * its squared distance. */
static double seg_tri(const double *A, const double *B, const double *C, const double nw[3],
                      const double p0[3], const double p1[3], double *s_out) {
  /* the segment crossing the triangle */
  double d0 = vs_dot3(nw, p0) - vs_dot3(nw, A), d1 = vs_dot3(nw, p1) - vs_dot3(nw, A);
  if ((d0 <= 0) != (d1 <= 0) && d0 != d1) {
    double s = d0 / (d0 - d1), pt[3];
    vs_lerp3(p0, p1, s, pt);
    if (in_face(A, B, C, pt)) {
      *s_out = s;
      return 0.0;
    }
  }
  /* a segment parallel to the triangle's plane (a capsule lying flat): a
   * whole stretch of it is equally near, and any one point of that stretch
   * found by the tests below may lie over an edge, whose contact normal
   * then leans (a capsule resting flat on a tiled floor rolled away).  The
   * point is the middle of the part of the segment over the face, with the
   * plane's distance. */
  double seg[3];
  sub3(p1, p0, seg);
  if (fabs(d1 - d0) <= 1e-9 * vs_len3(seg)) {
    double lo = 0.0, hi = 1.0;
    const double *T[3] = {A, B, C};
    for (int k = 0; k < 3 && lo <= hi; k++) {
      const double *Va = T[k], *Vb = T[(k + 1) % 3], *Vc = T[(k + 2) % 3];
      double e[3], r0[3], r1[3], rc[3], c0[3], c1[3], cc[3];
      sub3(Vb, Va, e);
      sub3(p0, Va, r0);
      sub3(p1, Va, r1);
      sub3(Vc, Va, rc);
      vs_cross3(e, r0, c0);
      vs_cross3(e, r1, c1);
      vs_cross3(e, rc, cc);
      double inside = vs_dot3(cc, nw) >= 0 ? 1.0 : -1.0; /* the side of the third vertex */
      double f0 = inside * vs_dot3(c0, nw), f1 = inside * vs_dot3(c1, nw);
      if (f0 < 0 && f1 < 0) hi = -1.0; /* wholly outside this edge */
      else if (f0 < 0) lo = fmax(lo, f0 / (f0 - f1));
      else if (f1 < 0) hi = fmin(hi, f0 / (f0 - f1));
    }
    if (lo <= hi) {
      *s_out = 0.5 * (lo + hi);
      return d0 * d0 / vs_dot3(nw, nw);
    }
  }
  double q[3], best, s = 0;
  best = vs_tri_closest(A, B, C, p0, q);
  double e1 = vs_tri_closest(A, B, C, p1, q);
  if (e1 < best) best = e1, s = 1;
  const double *V[3] = {A, B, C};
  for (int k = 0; k < 3; k++) {
    double ss, tt, pa[3], pb[3], d[3];
    vs_r_seg_seg(p0, p1, V[k], V[(k + 1) % 3], &ss, &tt);
    vs_lerp3(p0, p1, ss, pa);
    vs_lerp3(V[k], V[(k + 1) % 3], tt, pb);
    sub3(pa, pb, d);
    double dd = vs_dot3(d, d);
    if (dd < best) best = dd, s = ss;
  }
  *s_out = s;
  return best;
}

typedef vs_rcvert cv;

static int clip(const cv *in, int n, const double u[3], double off, int k, cv *out) {
  return vs_rc_clip(in, n, u, off, 8 + 2 * k, out);
}

/* The clipped polygon's points below triangle t's plane (point A, unit
 * normal nrm, its skin x->th) within the margin, as face contacts: feature
 * fbase | the vertex's id. */
static void face_points(mctx *x, const cv *poly, int n, const double nrm[3], const double *A,
                        uint32_t fbase) {
  double off = vs_dot3(nrm, A) + x->th;
  for (int v = 0; v < n; v++) {
    double sep = vs_dot3(nrm, poly[v].p) - off;
    if (sep >= x->margin) continue;
    mpt *o = push(x);
    for (int k = 0; k < 3; k++) {
      o->n[k] = -nrm[k];
      o->p[k] = poly[v].p[k] - 0.5 * sep * nrm[k];
    }
    o->depth = -sep;
    o->feature = fbase | (uint32_t)poly[v].id;
    o->group = 0;
    o->face = 1;
  }
}

static void box_tri(mctx *x, int32_t t, const int32_t *tv, const double *A, const double *B,
                    const double *C, const double nw[3], const double nrm[3]) {
  const mbody *b = &x->b;
  /* (1) the triangle as the reference face */
  int ii = 0;
  double best = -1, ax[3];
  for (int k = 0; k < 3; k++) {
    axis_of(b->R, k, ax);
    double d = fabs(vs_dot3(ax, nrm));
    if (d > best) best = d, ii = k;
  }
  axis_of(b->R, ii, ax);
  double sg = vs_dot3(ax, nrm) > 0 ? -1.0 : 1.0;
  int j1 = (ii + 1) % 3, j2 = (ii + 2) % 3;
  static const double cs[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  cv poly[16], tmp[16];
  for (int v = 0; v < 4; v++) {
    double l[3];
    l[ii] = sg * b->h[ii];
    l[j1] = cs[v][0] * b->h[j1];
    l[j2] = cs[v][1] * b->h[j2];
    double wv[3];
    vs_mat3_mul(b->R, l, wv);
    for (int k = 0; k < 3; k++) poly[v].p[k] = b->c[k] + wv[k];
    poly[v].id = (l[0] > 0) | (l[1] > 0) << 1 | (l[2] > 0) << 2;
  }
  int n = 4;
  const double *V[3] = {A, B, C};
  for (int k = 0; k < 3 && n > 0; k++) {
    double e[3], u[3];
    sub3(V[(k + 1) % 3], V[k], e);
    vs_cross3(e, nw, u); /* outward in the triangle's plane */
    double l = vs_len3(u);
    if (!(l > 0)) return;
    for (int q = 0; q < 3; q++) u[q] /= l;
    n = clip(k & 1 ? tmp : poly, n, u, vs_dot3(u, V[k]), k, k & 1 ? poly : tmp);
  }
  face_points(x, tmp, n, nrm, A, ((uint32_t)t << 5)); /* after 3 clips the result is in tmp */
  /* (2) a triangle vertex below a box face that faces the triangle */
  for (int j = 0; j < 3; j++) {
    double d[3], l[3];
    sub3(V[j], b->c, d);
    vs_mat3_mul_t(b->R, d, l);
    int bf = -1;
    double bsep = -INFINITY;
    for (int k = 0; k < 3; k++) {
      double s = l[k] >= 0 ? 1.0 : -1.0;
      axis_of(b->R, k, ax);
      if (s * vs_dot3(ax, nrm) > -0.3) continue; /* this face does not face the triangle */
      int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      if (fabs(l[k1]) > b->h[k1] || fabs(l[k2]) > b->h[k2]) continue;
      double sep = s * l[k] - b->h[k] - x->th;
      if (sep > bsep) bsep = sep, bf = 2 * k + (s < 0);
    }
    if (bf < 0 || bsep >= x->margin) continue;
    uint32_t feat = 0x80000000u | ((uint32_t)tv[j] << 3) | (uint32_t)bf;
    int dup = 0;
    for (int q = 0; q < x->n && !dup; q++) dup = x->cand[q].feature == feat;
    if (dup) continue;
    mpt *o = push(x);
    double fn[3];
    axis_of(b->R, bf >> 1, fn);
    if (bf & 1)
      for (int k = 0; k < 3; k++) fn[k] = -fn[k];
    for (int k = 0; k < 3; k++) {
      o->n[k] = fn[k];
      o->p[k] = V[j][k] - (x->th + 0.5 * bsep) * fn[k];
    }
    o->depth = -bsep;
    o->feature = feat;
    o->group = 0;
    o->face = 1;
  }
}

/* A convex hull against a triangle, as box_tri: (1) the hull face most
 * anti-parallel to the triangle's normal clipped against the triangle's
 * side planes (features t << 9 | point: a crossing 8 + 2 k + side, the
 * face's k-th vertex 16 + k), (2) a triangle vertex within the margin of the hull
 * whose nearest face faces the triangle (1 << 31 | vertex << 9 | face). */
static void hull_tri(mctx *x, int32_t t, const int32_t *tv, const double *A, const double *B,
                     const double *C, const double nw[3], const double nrm[3]) {
  const mbody *b = &x->b;
  const vs_hull *h = b->hull;
  double nl[3]; /* the triangle's normal in the body frame */
  vs_mat3_mul_t(b->R, nrm, nl);
  int32_t inf = 0;
  double best = INFINITY;
  for (int32_t f = 0; f < h->nf; f++) {
    double d = vs_dot3(h->plane + 4 * f, nl);
    if (d < best) best = d, inf = f;
  }
  enum { NP = 2 * VS_HULL_MAX_VERTS + 8 };
  cv poly[NP], tmp[NP];
  int n = 0;
  for (int32_t k = h->fstart[inf]; k < h->fstart[inf + 1]; k++, n++) {
    double wv[3];
    vs_mat3_mul(b->R, h->v + 3 * h->fvert[k], wv);
    for (int q = 0; q < 3; q++) poly[n].p[q] = b->c[q] + wv[q];
    poly[n].id = 16 + (int)(k - h->fstart[inf]); /* above clip()'s 8 .. 13 */
  }
  const double *V[3] = {A, B, C};
  for (int k = 0; k < 3 && n > 0; k++) {
    double e[3], u[3];
    sub3(V[(k + 1) % 3], V[k], e);
    vs_cross3(e, nw, u);
    double l = vs_len3(u);
    if (!(l > 0)) return;
    for (int q = 0; q < 3; q++) u[q] /= l;
    n = clip(k & 1 ? tmp : poly, n, u, vs_dot3(u, V[k]), k, k & 1 ? poly : tmp);
    if (n > NP - 2) n = NP - 2; /* cannot happen: a convex polygon */
  }
  face_points(x, tmp, n, nrm, A, ((uint32_t)t << 9)); /* after 3 clips the result is in tmp */
  for (int j = 0; j < 3; j++) {
    double d[3], l[3];
    sub3(V[j], b->c, d);
    vs_mat3_mul_t(b->R, d, l);
    int32_t bf = 0;
    double bsep = -INFINITY;
    for (int32_t f = 0; f < h->nf; f++) {
      double sp = vs_dot3(h->plane + 4 * f, l) - h->plane[4 * f + 3];
      if (sp > bsep) bsep = sp, bf = f;
    }
    bsep -= x->th;
    if (vs_dot3(h->plane + 4 * bf, nl) > -0.3 || bsep >= x->margin) continue;
    uint32_t feat = 0x80000000u | ((uint32_t)tv[j] << 9) | (uint32_t)bf;
    int dup = 0;
    for (int q = 0; q < x->n && !dup; q++) dup = x->cand[q].feature == feat;
    if (dup) continue;
    mpt *o = push(x);
    double fn[3];
    vs_mat3_mul(b->R, h->plane + 4 * bf, fn);
    for (int k = 0; k < 3; k++) {
      o->n[k] = fn[k];
      o->p[k] = V[j][k] - (x->th + 0.5 * bsep) * fn[k];
    }
    o->depth = -bsep;
    o->feature = feat;
    o->group = 0;
    o->face = 1;
  }
}

static void seg_ends(const mbody *b, double p0[3], double p1[3]) {
  double ay[3];
  axis_of(b->R, 1, ay);
  for (int k = 0; k < 3; k++) {
    p0[k] = b->c[k] - b->hl * ay[k];
    p1[k] = b->c[k] + b->hl * ay[k];
  }
}

static void one_tri(mctx *x, int32_t t) {
  const int32_t *tv = &x->bvh->tri[3 * (size_t)t];
  const double *A = &x->bvh->v[3 * (size_t)tv[0]], *B = &x->bvh->v[3 * (size_t)tv[1]],
               *C = &x->bvh->v[3 * (size_t)tv[2]];
  double nw[3], nrm[3], ac[3];
  vs_tri_normal(A, B, C, nw);
  if (!(vs_dot3(nw, nw) > 0)) return;
  sub3(x->b.c, A, ac);
  double side = vs_dot3(nw, ac) >= 0 ? 1.0 : -1.0;
  for (int k = 0; k < 3; k++) nrm[k] = side * nw[k];
  switch ((vs_rigid_shape)x->b.shape) {
  case VS_RIGID_SPHERE:
    sphere_tri(x, t, A, B, C, nrm, x->b.c, x->b.r, 0);
    break;
  case VS_RIGID_CAPSULE: {
    double p0[3], p1[3], pm[3], s;
    seg_ends(&x->b, p0, p1);
    sphere_tri(x, t, A, B, C, nrm, p0, x->b.r, 0);
    sphere_tri(x, t, A, B, C, nrm, p1, x->b.r, 1);
    double dm = seg_tri(A, B, C, nw, p0, p1, &s);
    if (s > 0.02 && s < 0.98) {
      double q[3];
      double de = vs_tri_closest(A, B, C, p0, q), d1 = vs_tri_closest(A, B, C, p1, q);
      if (d1 < de) de = d1;
      if (sqrt(dm) < sqrt(de) - 1e-3 * x->b.r) {
        vs_lerp3(p0, p1, s, pm);
        sphere_tri(x, t, A, B, C, nrm, pm, x->b.r, 2);
      }
    }
    break;
  }
  case VS_RIGID_BOX:
    box_tri(x, t, tv, A, B, C, nw, nrm);
    break;
  case VS_RIGID_CONVEX:
    hull_tri(x, t, tv, A, B, C, nw, nrm);
    break;
  }
}

static int overlap(const double *lo, const double *hi, const double *qlo, const double *qhi) {
  return lo[0] <= qhi[0] && hi[0] >= qlo[0] && lo[1] <= qhi[1] && hi[1] >= qlo[1] &&
         lo[2] <= qhi[2] && hi[2] >= qlo[2];
}

int vs_rigid_collide_mesh(const vs_rmodel *m, const vs_rstate *s, int32_t i, int32_t ci,
                          double margin, vs_rcontact *out) {
  const vs_rcollider *col = &m->colliders[ci];
  const vs_bvh *bvh = col->bvh;
  if (!bvh || !bvh->nodes || bvh->n_nodes < 1) return 0;
  mctx x;
  x.bvh = bvh;
  x.th = col->thickness;
  x.margin = margin;
  x.tie = 0.05 * m->set.margin;   /* 1 mm by default (margin may hold a fast body's reach) */
  x.deep = 0.125 * m->set.margin; /* 2.5 mm */
  x.n = 0;
  mbody *b = &x.b;
  b->shape = m->shape[i];
  memcpy(b->c, &s->x[3 * i], sizeof b->c);
  vs_quat_to_mat(&s->q[4 * i], b->R);
  const double *sz = &m->size[3 * i];
  for (int k = 0; k < 3; k++) b->h[k] = 0.5 * sz[k];
  b->r = sz[0];
  b->hl = 0.5 * sz[1];
  b->hull = vs_rmodel_hull(m, i);
  /* the body's box, grown by the margin and the skin */
  double e[3];
  vs_rshape_row_of(b->shape)->extent(sz, b->R, e);
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = b->c[k] - e[k] - margin - x.th;
    hi[k] = b->c[k] + e[k] + margin + x.th;
  }
  /* walk the tree: left child first, as the BVH's own queries do */
  int32_t stack[MSTACK];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const vs_bvh_node *nd = &bvh->nodes[stack[--sp]];
    if (!overlap(nd->lo, nd->hi, lo, hi)) continue;
    if (nd->count == 0) {
      if (sp + 2 > MSTACK) continue; /* cannot happen (bvh.c bounds the depth) */
      stack[sp++] = nd->start;
      stack[sp++] = (int32_t)(nd - bvh->nodes) + 1;
      continue;
    }
    for (int32_t k = 0; k < nd->count; k++) {
      const int32_t t = bvh->order[nd->start + k];
      const int32_t *tv = &bvh->tri[3 * (size_t)t];
      double tlo[3], thi[3];
      for (int q = 0; q < 3; q++) {
        double a = bvh->v[3 * (size_t)tv[0] + q], bb = bvh->v[3 * (size_t)tv[1] + q],
               c = bvh->v[3 * (size_t)tv[2] + q];
        tlo[q] = fmin(a, fmin(bb, c));
        thi[q] = fmax(a, fmax(bb, c));
      }
      if (overlap(tlo, thi, lo, hi)) one_tri(&x, t);
    }
  }
  /* spheres: drop edge and corner points that a face point of the same
   * sphere covers (interior edges of a flat mesh), and repeated points */
  int n = x.n;
  if (b->shape == VS_RIGID_SPHERE || b->shape == VS_RIGID_CAPSULE) {
    int w = 0;
    for (int k = 0; k < n; k++) {
      const mpt *c = &x.cand[k];
      int drop = 0;
      if (!c->face)
        for (int q = 0; q < n && !drop; q++) {
          const mpt *f = &x.cand[q];
          if (f->group == c->group && f->face && f->depth >= c->depth) drop = 1;
        }
      /* the same point through two triangles (a shared edge or corner, or
       * a centre right over a shared edge): once */
      for (int q = 0; q < w && !drop; q++) {
        const mpt *f = &x.cand[q];
        double d[3];
        sub3(f->p, c->p, d);
        if (f->group == c->group && vs_dot3(d, d) <= 1e-18 * (1 + b->r * b->r)) drop = 1;
      }
      if (!drop) x.cand[w++] = *c;
    }
    n = w;
  }
  n = reduce_all(x.cand, n, x.tie, x.deep);
  /* sorted by feature (the cache's order) */
  for (int a = 1; a < n; a++)
    for (int c = a; c > 0 && x.cand[c - 1].feature > x.cand[c].feature; c--) {
      mpt t = x.cand[c];
      x.cand[c] = x.cand[c - 1];
      x.cand[c - 1] = t;
    }
  /* one point per feature (a vertex found again after a reduction dropped
   * its first point) */
  int u = 0;
  for (int k = 0; k < n; k++)
    if (u == 0 || x.cand[k].feature != x.cand[u - 1].feature) x.cand[u++] = x.cand[k];
  n = u;
  for (int k = 0; k < n; k++) {
    vs_rcontact *o = &out[k];
    o->a = i;
    o->b = -1 - ci;
    o->feature = x.cand[k].feature;
    memcpy(o->n, x.cand[k].n, sizeof o->n);
    memcpy(o->p, x.cand[k].p, sizeof o->p);
    o->depth = x.cand[k].depth;
  }
  return n;
}
