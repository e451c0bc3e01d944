/* SPDX-License-Identifier: MIT */
/* rigid_convex.c: contacts of convex hulls (rigid_narrow.h): against
 * spheres (the exact nearest point of the hull), capsules (their end
 * spheres and the deepest inner point), planes (the hull's vertices) and
 * other polyhedra -- hulls and boxes, a box being a hull of 8 corners -- by
 * the separating-axis test over the face normals of both and the edge pairs
 * whose arcs cross on the Gauss map (Gregorius, "The separating axis test
 * between convex polyhedra", GDC 2013: only those pairs are faces of the
 * Minkowski difference), with the incident face clipped against the
 * reference face's side planes as box-box does (rigid_collide.c).
 *
 * Features (warm starting), stable while the same faces touch: a face
 * contact is flip << 30 | reference face << 21 | incident face << 12 |
 * point, the point an incident vertex (< 256) or 256 + 2 k + side where the
 * incident polygon crossed the reference face's k-th side plane; an edge
 * contact 1 << 31 | edge of a << 12 | edge of b; a plane contact its
 * vertex (a wall of bounds: wall << 9 | vertex); sphere and capsule points as for the other shapes.
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "solve/rigid/rigid_narrow.h"

/* A polyhedron placed in the world: vertices and face planes in world
 * coordinates, the topology borrowed. */
typedef struct wpoly {
  int32_t nv, nf, ne;
  const int32_t *fstart, *fvert, *edge;
  double v[3 * VS_HULL_MAX_VERTS];
  double x[VS_HULL_MAX_VERTS + 1], y[VS_HULL_MAX_VERTS + 1], z[VS_HULL_MAX_VERTS + 1];
  double pl[4 * (2 * VS_HULL_MAX_VERTS)];
  double nx[2 * VS_HULL_MAX_VERTS], ny[2 * VS_HULL_MAX_VERTS], nz[2 * VS_HULL_MAX_VERTS];
  double c[3];
} wpoly;

/* Two doubles (GCC/clang vector extension: plain IEEE element-wise
 * operations, one packed multiply or add rounding exactly as the two scalar
 * ones it replaces, as in rigid_solve.c); a comparison's lanes as masks. */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2m __attribute__((vector_size(16)));

static inline v2d ld2(const double *p) {
  v2d r;
  memcpy(&r, p, sizeof r);
  return r;
}

static inline v2d splat(double x) { return (v2d){x, x}; }

/* Each lane d < mn ? d : mn, the scalar `if (d < mn) mn = d` (with NaN and
 * -0, +0 alike): SSE2's minpd is exactly that (its second operand unless
 * the first is less), elsewhere a mask. */
static inline v2d min_lt(v2d d, v2d mn) {
#ifdef __SSE2__
  return (v2d)_mm_min_pd((__m128d)d, (__m128d)mn);
#else
  v2m lt = (v2m)(d < mn);
  return (v2d)(((v2m)d & lt) | ((v2m)mn & ~lt));
#endif
}

/* A box's topology: vertex bit 0 +x, bit 1 +y, bit 2 +z (as a cube's hull
 * sorts them); faces counter-clockwise from outside; edges a < b with the
 * face that runs a -> b and the one that runs b -> a. */
static const int32_t box_fstart[7] = {0, 4, 8, 12, 16, 20, 24};
static const int32_t box_fvert[24] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4,
                                      2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};
static const double box_n[6][3] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                   {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
static const int32_t box_edge[48] = {0, 1, 2, 4, 0, 2, 4, 0, 0, 4, 0, 2, 1, 3, 1, 4,
                                     1, 5, 2, 1, 2, 3, 4, 3, 2, 6, 3, 0, 3, 7, 1, 3,
                                     4, 5, 5, 2, 4, 6, 0, 5, 5, 7, 5, 1, 6, 7, 3, 5};

static void place(const shp *s, const double l[3], double o[3]) {
  double w[3];
  vs_mat3_mul(s->R, l, w);
  for (int k = 0; k < 3; k++) o[k] = s->c[k] + w[k];
}

/* The topology and the vertices in the world; the face planes come one
 * at a time (place_plane) as the face queries reach them: most pairs
 * stop at a separating face and never need the rest. */
/* The vertices again by coordinate, for plane_sep, an odd count padded
 * with the last one (a repeated value leaves a minimum as it is). */
static void wpoly_soa(wpoly *w) {
  for (int32_t i = 0; i < w->nv; i++) {
    w->x[i] = w->v[3 * i];
    w->y[i] = w->v[3 * i + 1];
    w->z[i] = w->v[3 * i + 2];
  }
  if (w->nv & 1) {
    w->x[w->nv] = w->x[w->nv - 1];
    w->y[w->nv] = w->y[w->nv - 1];
    w->z[w->nv] = w->z[w->nv - 1];
  }
}

static void wpoly_verts(const shp *s, wpoly *w) {
  memcpy(w->c, s->c, sizeof w->c);
  if (s->shape == VS_RIGID_BOX) {
    w->nv = 8, w->nf = 6, w->ne = 12;
    w->fstart = box_fstart, w->fvert = box_fvert, w->edge = box_edge;
    for (int i = 0; i < 8; i++) {
      double l[3] = {(i & 1) ? s->h[0] : -s->h[0], (i & 2) ? s->h[1] : -s->h[1],
                     (i & 4) ? s->h[2] : -s->h[2]};
      place(s, l, w->v + 3 * i);
    }
    wpoly_soa(w);
    return;
  }
  const vs_hull *h = s->hull;
  w->nv = h->nv, w->nf = h->nf, w->ne = h->ne;
  w->fstart = h->fstart, w->fvert = h->fvert, w->edge = h->edge;
  for (int32_t i = 0; i < h->nv; i++) place(s, h->v + 3 * i, w->v + 3 * i);
  wpoly_soa(w);
}

static int32_t poly_nf(const shp *s) { return s->shape == VS_RIGID_BOX ? 6 : s->hull->nf; }

/* The face planes in the body frame: the hull's, or a box's from box_n
 * and its half extents written into buf. */
static const double *local_planes(const shp *s, double buf[24]) {
  if (s->shape != VS_RIGID_BOX) return s->hull->plane;
  for (int f = 0; f < 6; f++) {
    memcpy(buf + 4 * f, box_n[f], sizeof box_n[f]);
    buf[4 * f + 3] = s->h[f >> 1];
  }
  return buf;
}

/* Face f's plane in the world (lp: local_planes): unit normal, offset. */
static inline void place_plane(const shp *s, const double *lp, int32_t f, double pl[4]) {
  vs_mat3_mul(s->R, lp + 4 * f, pl);
  pl[3] = vs_dot3(pl, s->c) + lp[4 * f + 3];
}

/* The separation of b's vertices from plane pl: the least pl.v, as the
 * scalar loop `d = pl.v; if (d < mn) mn = d` over the vertices would find
 * it, two vertices at a time (the dot products in the same order; each lane
 * keeps the least of its vertices by that same test, and the lesser lane
 * wins: the same value, save that of -0 and +0 another may be kept, which
 * no comparison after tells apart). */
static double plane_sep(const double pl[4], const wpoly *b) {
  v2d px = splat(pl[0]), py = splat(pl[1]), pz = splat(pl[2]), mn = splat(INFINITY);
  for (int32_t i = 0; i < b->nv; i += 2) {
    v2d d = px * ld2(b->x + i) + py * ld2(b->y + i) + pz * ld2(b->z + i);
    mn = min_lt(d, mn);
  }
  double m = mn[0];
  if (mn[1] < m) m = mn[1];
  return m - pl[3];
}

/* The separation of b's vertices from the face of sa that faces point
 * p (its normal nearest the direction to p): a guess at a separating face
 * tried before the queries, which stop at the first face above their
 * limit.  A separating face is one whatever the order it is found in, so
 * the guess changes only how soon "no contact" is known, never a result. */
static double facing_sep(const shp *sa, const double p[3], const wpoly *b) {
  double d[3], l[3], pl[4];
  vs_sub3(p, sa->c, d);
  vs_mat3_mul_t(sa->R, d, l);
  int32_t f = 0;
  if (sa->shape == VS_RIGID_BOX) {
    int k = 0;
    for (int q = 1; q < 3; q++)
      if (fabs(l[q]) > fabs(l[k])) k = q;
    f = 2 * k + (l[k] > 0);
  } else {
    const vs_hull *h = sa->hull;
    double best = -INFINITY;
    for (int32_t g = 0; g < h->nf; g++) {
      double x = vs_dot3(h->plane + 4 * g, l);
      if (x > best) best = x, f = g;
    }
  }
  double buf[24];
  place_plane(sa, local_planes(sa, buf), f, pl);
  return plane_sep(pl, b);
}

/* The largest separation of b's vertices from a's face planes (those of
 * shape sa, placed into a as they are reached), and its face; the first
 * one above limit as soon as it is found (no contact then, and a's planes
 * are left incomplete). */
static double face_query(const shp *sa, wpoly *a, const wpoly *b, double limit, int32_t *face) {
  double best = -INFINITY, buf[24];
  const double *lp = local_planes(sa, buf);
  *face = 0;
  for (int32_t f = 0; f < a->nf; f++) {
    double *pl = a->pl + 4 * f;
    place_plane(sa, lp, f, pl);
    a->nx[f] = pl[0], a->ny[f] = pl[1], a->nz[f] = pl[2];
    double s = plane_sep(pl, b);
    if (s > best) best = s, *face = f;
    if (s > limit) break;
  }
  return best;
}

typedef struct edge_hit {
  double sep, axis[3];
  int32_t ea, eb;
} edge_hit;

/* What edge_query knows of b, once per call: each edge's arc plane n2 x n1,
 * direction and length, and (at most 64 faces and edges) the edges that
 * border each face, as bits. */
typedef struct edge_pre {
  double n2xn1[3 * 3 * VS_HULL_MAX_VERTS], db[3 * 3 * VS_HULL_MAX_VERTS];
  double ldb[3 * VS_HULL_MAX_VERTS];
  uint64_t fedges[64];
  int masks;
} edge_pre;

/* Edge i of a (da its direction, lda its length, off its start less a's
 * centre) against edge j of b, given nbxa = n.bxa for each face n of b.
 * Whether the Gauss-map arcs of the edge of a (its faces' normals na, nb;
 * bxa = nb x na) and of the edge of b (its faces' normals negated: c = -n1,
 * d = -n2) cross (Gregorius); n2xn1 = n2 x n1 = d x c, the same bits.
 * With c.bxa = -(n1.bxa) and d.bxa = -(n2.bxa) (negation is exact), the
 * tests c.bxa d.bxa < 0, a.dxc b.dxc < 0 and c.bxa b.dxc > 0 read as below;
 * if they do, the separation along the edges' common normal. */
static inline void edge_pair(const wpoly *a, const wpoly *b, const edge_pre *pre, int32_t i,
                             int32_t j, const double *nbxa, const double da[3], double lda,
                             const double off[3], edge_hit *hit) {
  const int32_t *ea = a->edge + 4 * i, *eb = b->edge + 4 * j;
  const double *na = a->pl + 4 * ea[2], *nb = a->pl + 4 * ea[3];
  double cba = -nbxa[eb[2]], dba = -nbxa[eb[3]];
  if (!(cba * dba < 0)) return;
  const double *dc = pre->n2xn1 + 3 * j;
  double adc = vs_dot3(na, dc), bdc = vs_dot3(nb, dc);
  if (!(adc * bdc < 0 && cba * bdc > 0)) return;
  double u[3];
  vs_cross3(da, pre->db + 3 * j, u);
  double l = vs_len3(u);
  if (l < 1e-6 * lda * pre->ldb[j]) return; /* parallel: the faces cover it */
  for (int k = 0; k < 3; k++) u[k] /= l;
  if (vs_dot3(u, off) < 0)
    for (int k = 0; k < 3; k++) u[k] = -u[k];
  double w[3];
  vs_sub3(b->v + 3 * eb[0], a->v + 3 * ea[0], w);
  double s = vs_dot3(u, w);
  if (s > hit->sep) {
    hit->sep = s;
    hit->ea = i;
    hit->eb = j;
    memcpy(hit->axis, u, sizeof u);
  }
}

/* The largest separation over the edge pairs whose arcs cross, the first
 * pair (a's edge major) among equals.  The arcs of b that can cross an
 * edge's plane are the edges between a face above it and one not: with
 * the faces' bits, the edges on the border of the faces above, in edge
 * order; the product test above decides (a face on the plane, an
 * underflow). */
static void edge_query(const wpoly *a, const wpoly *b, edge_hit *hit) {
  hit->sep = -INFINITY;
  hit->ea = hit->eb = -1;
  edge_pre pre; /* about 41 KiB on the stack, only the used part written */
  pre.masks = b->nf <= 64 && b->ne <= 64;
  if (pre.masks)
    for (int32_t f = 0; f < b->nf; f++) pre.fedges[f] = 0;
  for (int32_t j = 0; j < b->ne; j++) {
    const int32_t *eb = b->edge + 4 * j;
    vs_cross3(b->pl + 4 * eb[3], b->pl + 4 * eb[2], pre.n2xn1 + 3 * j);
    vs_sub3(b->v + 3 * eb[1], b->v + 3 * eb[0], pre.db + 3 * j);
    pre.ldb[j] = vs_len3(pre.db + 3 * j);
    if (pre.masks) {
      pre.fedges[eb[2]] |= (uint64_t)1 << j;
      pre.fedges[eb[3]] |= (uint64_t)1 << j;
    }
  }
  double nbxa[2 * VS_HULL_MAX_VERTS];
  for (int32_t i = 0; i < a->ne; i++) {
    const int32_t *ea = a->edge + 4 * i;
    const double *na = a->pl + 4 * ea[2], *nb = a->pl + 4 * ea[3];
    double da[3], bxa[3], off[3];
    vs_sub3(a->v + 3 * ea[1], a->v + 3 * ea[0], da);
    vs_cross3(nb, na, bxa);
    double lda = vs_len3(da);
    vs_sub3(a->v + 3 * ea[0], a->c, off);
    if (!pre.masks) {
      for (int32_t f = 0; f < b->nf; f++) nbxa[f] = vs_dot3(b->pl + 4 * f, bxa);
      for (int32_t j = 0; j < b->ne; j++) edge_pair(a, b, &pre, i, j, nbxa, da, lda, off, hit);
      continue;
    }
    /* n.bxa two faces at a time, the normals by coordinate: the same
     * products and sums as vs_dot3 */
    uint64_t odd = 0; /* the edges with one face above the plane, not two */
    v2d bx = splat(bxa[0]), by = splat(bxa[1]), bz = splat(bxa[2]), zero = splat(0.0);
    int32_t f = 0;
    for (; f + 1 < b->nf; f += 2) {
      v2d x = ld2(b->nx + f) * bx + ld2(b->ny + f) * by + ld2(b->nz + f) * bz;
      memcpy(nbxa + f, &x, sizeof x);
      v2m gt = (v2m)(x > zero);
      odd ^= (pre.fedges[f] & (uint64_t)gt[0]) ^ (pre.fedges[f + 1] & (uint64_t)gt[1]);
    }
    if (f < b->nf) {
      double x = vs_dot3(b->pl + 4 * f, bxa);
      nbxa[f] = x;
      if (x > 0) odd ^= pre.fedges[f];
    }
    for (uint64_t m = odd; m; m &= m - 1)
      edge_pair(a, b, &pre, i, (int32_t)__builtin_ctzll(m), nbxa, da, lda, off, hit);
  }
}

typedef vs_rcvert cvert;

/* Clip to dot(u, p) <= off + tol, new vertices' ids from side k (above the
 * box's 8 + 2k). */
static int clip(const cvert *in, int n, const double u[3], double off, double tol, int k,
                cvert *out) {
  return vs_rc_clip(in, n, u, off + tol, 256 + 2 * k, out);
}

int vs_rc_reduce4(const cpt *cand, int nc, const double nref[3], cpt *o) {
  int pick[4], a = 0;
  for (int k = 1; k < nc; k++)
    if (cand[k].depth > cand[a].depth) a = k;
  int b = -1;
  double bd = -1;
  for (int k = 0; k < nc; k++) {
    double d[3];
    vs_sub3(cand[k].p, cand[a].p, d);
    double dd = vs_dot3(d, d);
    if (k != a && dd > bd) bd = dd, b = k;
  }
  int c = -1, d4 = -1;
  double cmax = -INFINITY, cmin = INFINITY, e[3];
  vs_sub3(cand[b].p, cand[a].p, e);
  for (int k = 0; k < nc; k++) {
    if (k == a || k == b) continue;
    double f[3], x[3];
    vs_sub3(cand[k].p, cand[a].p, f);
    vs_cross3(e, f, x);
    double area = vs_dot3(x, nref);
    if (area > cmax) cmax = area, c = k;
    if (area < cmin) cmin = area, d4 = k;
  }
  pick[0] = a;
  pick[1] = b;
  int np = 2;
  if (c >= 0) pick[np++] = c;
  if (d4 >= 0 && d4 != c) pick[np++] = d4;
  for (int x = 1; x < np; x++)
    for (int y = x; y > 0 && pick[y - 1] > pick[y]; y--) {
      int t = pick[y];
      pick[y] = pick[y - 1];
      pick[y - 1] = t;
    }
  for (int k = 0; k < np; k++) o[k] = cand[pick[k]];
  return np;
}

#define MAXPOLY (VS_HULL_MAX_VERTS + 16)

/* Face contact: reference face rf of r (normal out of r, towards in),
 * incident polyhedron in; flip: r is the second shape. */
static int face_contact(const wpoly *r, int32_t rf, const wpoly *in, int flip, double margin,
                        cpt *o) {
  const double *nref = r->pl + 4 * rf;
  int32_t inf = 0;
  double best = INFINITY;
  for (int32_t f = 0; f < in->nf; f++) {
    double d = vs_dot3(in->pl + 4 * f, nref);
    if (d < best) best = d, inf = f;
  }
  cvert bufa[2 * MAXPOLY], bufb[2 * MAXPOLY];
  cvert *poly = bufa, *tmp = bufb;
  int n = 0;
  for (int32_t k = in->fstart[inf]; k < in->fstart[inf + 1]; k++, n++) {
    memcpy(poly[n].p, in->v + 3 * in->fvert[k], 3 * sizeof(double));
    poly[n].id = (int)(k - in->fstart[inf]);
  }
  int32_t a0 = r->fstart[rf], len = r->fstart[rf + 1] - a0;
  double ext = 0;
  for (int32_t k = 0; k < len; k++) {
    double d[3];
    vs_sub3(r->v + 3 * r->fvert[a0 + k], r->v + 3 * r->fvert[a0 + (k + 1) % len], d);
    double l = vs_len3(d);
    if (k == 0 || l < ext) ext = l;
  }
  double tol = 1e-3 * ext;
  for (int32_t k = 0; k < len && n > 0; k++) {
    const double *u = r->v + 3 * r->fvert[a0 + k], *w = r->v + 3 * r->fvert[a0 + (k + 1) % len];
    double e[3], s[3];
    vs_sub3(w, u, e);
    vs_cross3(e, nref, s);
    double l = vs_len3(s);
    if (!(l > 0)) continue;
    for (int q = 0; q < 3; q++) s[q] /= l;
    n = clip(poly, n, s, vs_dot3(s, u), tol, (int)k, tmp);
    cvert *t = poly;
    poly = tmp;
    tmp = t;
    if (n > 2 * MAXPOLY - 2) n = 2 * MAXPOLY - 2; /* cannot happen: a convex polygon */
  }
  double off = nref[3];
  cpt cand[2 * MAXPOLY];
  int nc = 0;
  nc = vs_rc_face_points(poly, n, nref, off, margin, flip,
                         ((uint32_t)flip << 30) | ((uint32_t)rf << 21) | ((uint32_t)inf << 12), cand);
  if (nc <= VS_RIGID_MANIFOLD) {
    memcpy(o, cand, sizeof(cpt) * (size_t)nc);
    return nc;
  }
  return vs_rc_reduce4(cand, nc, nref, o);
}

int vs_rc_poly_poly(const shp *sa, const shp *sb, double margin, cpt *o) {
  wpoly A, B; /* about 45 KiB on the stack, only the used part written */
  A.nf = poly_nf(sa);
  wpoly_verts(sb, &B);
  int32_t fa, fb;
  if (facing_sep(sa, sb->c, &B) > margin) return 0;
  double sepa = face_query(sa, &A, &B, margin, &fa);
  if (sepa > margin) return 0;
  wpoly_verts(sa, &A);
  if (facing_sep(sb, sa->c, &A) > margin) return 0;
  double sepb = face_query(sb, &B, &A, margin, &fb);
  if (sepb > margin) return 0;
  edge_hit eh;
  edge_query(&A, &B, &eh);
  if (eh.sep > margin) return 0;
  /* as box-box: a face unless an edge pair is clearly farther apart */
  const double rel = 0.98, abs_tol = 0.001;
  double sface = sepa;
  int use_b = 0;
  if (sepb > rel * sepa + abs_tol) use_b = 1, sface = sepb;
  if (eh.ea >= 0 && eh.sep > vs_rc_edge_over(sface, rel) + abs_tol * 5.0) {
    const int32_t *ea = A.edge + 4 * eh.ea, *eb = B.edge + 4 * eh.eb;
    const double *a0 = A.v + 3 * ea[0], *a1 = A.v + 3 * ea[1];
    const double *b0 = B.v + 3 * eb[0], *b1 = B.v + 3 * eb[1];
    double s, t, qa[3], qb[3];
    vs_r_seg_seg(a0, a1, b0, b1, &s, &t);
    for (int k = 0; k < 3; k++) {
      qa[k] = a0[k] + s * (a1[k] - a0[k]);
      qb[k] = b0[k] + t * (b1[k] - b0[k]);
    }
    double d[3];
    vs_sub3(qb, qa, d);
    double sep = vs_dot3(eh.axis, d);
    if (sep >= margin) return 0;
    memcpy(o->n, eh.axis, sizeof eh.axis);
    for (int k = 0; k < 3; k++) o->p[k] = 0.5 * (qa[k] + qb[k]);
    o->depth = -sep;
    o->feature = 0x80000000u | ((uint32_t)eh.ea << 12) | (uint32_t)eh.eb;
    return 1;
  }
  return use_b ? face_contact(&B, fb, &A, 1, margin, o) : face_contact(&A, fa, &B, 0, margin, o);
}

int vs_rc_convex_sphere(const shp *a, const double p[3], double r, double margin, uint32_t feature,
                        cpt *o) {
  double d[3], l[3], q[3], nl[3];
  vs_sub3(p, a->c, d);
  vs_mat3_mul_t(a->R, d, l);
  double dist = vs_hull_distance(a->hull, l, q, nl);
  double depth = r - dist;
  if (depth <= -margin) return 0;
  double qw[3];
  vs_mat3_mul(a->R, nl, o->n);
  place(a, q, qw);
  for (int k = 0; k < 3; k++) o->p[k] = qw[k] - 0.5 * depth * o->n[k];
  o->depth = depth;
  o->feature = feature;
  return 1;
}

/* Signed distance of world point p to hull a. */
static double hull_sdf(const shp *a, const double p[3]) {
  double d[3], l[3], q[3], n[3];
  vs_sub3(p, a->c, d);
  vs_mat3_mul_t(a->R, d, l);
  return vs_hull_distance(a->hull, l, q, n);
}

int vs_rc_convex_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  double ay[3] = {b->R[1], b->R[4], b->R[7]}, p0[3], p1[3];
  for (int k = 0; k < 3; k++) {
    p0[k] = b->c[k] - b->hl * ay[k];
    p1[k] = b->c[k] + b->hl * ay[k];
  }
  int n = 0;
  n += vs_rc_convex_sphere(a, p0, b->r, margin, 0, &o[n]);
  n += vs_rc_convex_sphere(a, p1, b->r, margin, 1, &o[n]);
  double pt[3];
  if (vs_rc_segment_inner(hull_sdf, a, p0, p1, b->r, pt))
    n += vs_rc_convex_sphere(a, pt, b->r, margin, 2, &o[n]);
  return n;
}

int vs_rc_convex_plane(const shp *a, const double pt[3], const double nrm[3], double margin,
                       uint32_t fbase, cpt *o) {
  const vs_hull *h = a->hull;
  cpt cand[VS_HULL_MAX_VERTS];
  int n = 0;
  for (int32_t v = 0; v < h->nv; v++) {
    double w[3], e[3];
    place(a, h->v + 3 * v, w);
    vs_sub3(w, pt, e);
    double sep = vs_dot3(e, nrm);
    if (sep >= margin) continue;
    cpt *c = &cand[n++];
    for (int q = 0; q < 3; q++) {
      c->n[q] = -nrm[q];
      c->p[q] = w[q] - nrm[q] * (0.5 * sep);
    }
    c->depth = -sep;
    c->feature = (fbase << 5) + (uint32_t)v; /* bounds' walls: fbase = wall << 4 */
  }
  /* more than 4: the 4 deepest (ties by vertex), in vertex order, as a
   * box's corners on a plane.  Not the spread of vs_rc_reduce4: on a
   * plane every vertex of a flat stone is within the margin, and the
   * spread-out subset changed from step to step as it rocked -- a pile of
   * 100 stones (bench/rigid/convex_pile.yaml) kept 0.004 J of jitter after
   * 10 s; with the deepest 4 it comes to rest (1e-33 J). */
  if (n <= VS_RIGID_MANIFOLD) {
    memcpy(o, cand, sizeof(cpt) * (size_t)n);
    return n;
  }
  unsigned char keep[VS_HULL_MAX_VERTS] = {0};
  for (int r = 0; r < VS_RIGID_MANIFOLD; r++) {
    int bi = -1;
    for (int k = 0; k < n; k++)
      if (!keep[k] && (bi < 0 || cand[k].depth > cand[bi].depth)) bi = k;
    keep[bi] = 1;
  }
  int m = 0;
  for (int k = 0; k < n; k++)
    if (keep[k]) o[m++] = cand[k];
  return m;
}
