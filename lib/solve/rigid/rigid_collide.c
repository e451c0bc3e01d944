/* SPDX-License-Identifier: MIT */
/* rigid_collide.c: rigid-body contacts, the narrow phase (the broad phase
 * that calls it is rigid_broad.c).  Narrow phase for every
 * shape pair (sphere, capsule, box; box-box by the separating-axis test and
 * clipping of the incident face against the reference face, Gottschalk /
 * Catto style, at most 4 points) and every collider kind (plane, sphere,
 * solid box, inside bounds); convex hulls in rigid_convex.c.  Every point
 * carries a feature id that names it from one step to the next (for warm
 * starting): box-box encodes the reference and incident faces and the
 * clipped vertex, or the two edges. */
#include <string.h>

#include "solve/rigid/rigid_narrow.h"

static void axis_of(const double R[9], int k, double o[3]) {
  o[0] = R[k];
  o[1] = R[3 + k];
  o[2] = R[6 + k];
}

static void shp_body(const vs_rmodel *m, const vs_rstate *s, int32_t i, shp *o) {
  o->shape = m->shape[i];
  memcpy(o->c, &s->x[3 * i], sizeof o->c);
  vs_quat_to_mat(&s->q[4 * i], o->R);
  const double *sz = &m->size[3 * i];
  o->h[0] = 0.5 * sz[0];
  o->h[1] = 0.5 * sz[1];
  o->h[2] = 0.5 * sz[2];
  o->r = sz[0];
  o->hl = 0.5 * sz[1];
  o->hull = vs_rmodel_hull(m, i);
}

static void seg_of(const shp *a, double p0[3], double p1[3]) {
  double ay[3];
  axis_of(a->R, 1, ay);
  for (int k = 0; k < 3; k++) {
    p0[k] = a->c[k] - a->hl * ay[k];
    p1[k] = a->c[k] + a->hl * ay[k];
  }
}

static const double up[3] = {0, 1, 0};

/* Spheres (ca, ra) and (cb, rb): normal from a to b. */
static int sphere_sphere(const double ca[3], double ra, const double cb[3], double rb,
                         double margin, uint32_t feature, cpt *o) {
  double d[3] = {cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]};
  double dist = vs_len3(d);
  double depth = ra + rb - dist;
  if (depth <= -margin) return 0;
  if (dist > 1e-12) {
    for (int k = 0; k < 3; k++) o->n[k] = d[k] / dist;
  } else {
    memcpy(o->n, up, sizeof up);
  }
  for (int k = 0; k < 3; k++) o->p[k] = ca[k] + o->n[k] * (ra - 0.5 * depth);
  o->depth = depth;
  o->feature = feature;
  return 1;
}

/* Closest point to p on segment p0-p1, as a parameter in [0, 1]. */
static double seg_param(const double p0[3], const double p1[3], const double p[3]) {
  double d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double dd = vs_dot3(d, d);
  if (!(dd > 0)) return 0.0;
  double w[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]};
  double t = vs_dot3(w, d) / dd;
  return t < 0 ? 0 : (t > 1 ? 1 : t);
}

/* Closest points of segments p0-p1 and q0-q1 (parameters s, t); rigid.h. */
void vs_r_seg_seg(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                  double *s_out, double *t_out) {
  double d1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double d2[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]};
  double r[3] = {p0[0] - q0[0], p0[1] - q0[1], p0[2] - q0[2]};
  double a = vs_dot3(d1, d1), e = vs_dot3(d2, d2), f = vs_dot3(d2, r);
  double s, t;
  if (a <= 1e-24 && e <= 1e-24) {
    s = t = 0;
  } else if (a <= 1e-24) {
    s = 0;
    t = f / e;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
  } else {
    double c = vs_dot3(d1, r);
    if (e <= 1e-24) {
      t = 0;
      s = -c / a;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
    } else {
      double b = vs_dot3(d1, d2), den = a * e - b * b;
      s = den > 1e-12 * a * e ? (b * f - c * e) / den : 0.0;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = -c / a;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
      } else if (t > 1) {
        t = 1;
        s = (b - c) / a;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
      }
    }
  }
  *s_out = s;
  *t_out = t;
}

static int sphere_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  double q0[3], q1[3], q[3];
  seg_of(b, q0, q1);
  vs_lerp3(q0, q1, seg_param(q0, q1, a->c), q);
  return sphere_sphere(a->c, a->r, q, b->r, margin, 0, o);
}

static int capsule_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  double p0[3], p1[3], q0[3], q1[3];
  seg_of(a, p0, p1);
  seg_of(b, q0, q1);
  double da[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double db[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]};
  double cr[3];
  vs_cross3(da, db, cr);
  double la = vs_dot3(da, da), lb = vs_dot3(db, db);
  if (la > 1e-18 && lb > 1e-18 && vs_dot3(cr, cr) < 1e-4 * la * lb) {
    /* nearly parallel: the overlap of b's segment projected on a gives two points */
    double t0 = seg_param(p0, p1, q0), t1 = seg_param(p0, p1, q1);
    if (t0 > t1) {
      double tt = t0;
      t0 = t1;
      t1 = tt;
    }
    if (t1 - t0 > 1e-6) {
      int n = 0;
      double ts[2] = {t0, t1};
      for (int k = 0; k < 2; k++) {
        double pa[3], pb[3];
        vs_lerp3(p0, p1, ts[k], pa);
        vs_lerp3(q0, q1, seg_param(q0, q1, pa), pb);
        n += sphere_sphere(pa, a->r, pb, b->r, margin, (uint32_t)(1 + k), &o[n]);
      }
      return n;
    }
  }
  double s, t, pa[3], pb[3];
  vs_r_seg_seg(p0, p1, q0, q1, &s, &t);
  vs_lerp3(p0, p1, s, pa);
  vs_lerp3(q0, q1, t, pb);
  return sphere_sphere(pa, a->r, pb, b->r, margin, 0, o);
}

/* Sphere (centre p, radius r) against box b: normal from the box to the sphere. */
static int box_point(const shp *b, const double p[3], double r, double margin, uint32_t feature,
                     cpt *o) {
  double d[3] = {p[0] - b->c[0], p[1] - b->c[1], p[2] - b->c[2]}, l[3];
  vs_mat3_mul_t(b->R, d, l);
  double cl[3];
  int inside = 1;
  for (int k = 0; k < 3; k++) {
    cl[k] = l[k] < -b->h[k] ? -b->h[k] : (l[k] > b->h[k] ? b->h[k] : l[k]);
    if (cl[k] != l[k]) inside = 0;
  }
  double nl[3] = {0, 0, 0}, depth, surf[3];
  if (!inside) {
    double e[3] = {l[0] - cl[0], l[1] - cl[1], l[2] - cl[2]};
    double dist = vs_len3(e);
    depth = r - dist;
    if (depth <= -margin) return 0;
    for (int k = 0; k < 3; k++) nl[k] = e[k] / dist;
    memcpy(surf, cl, sizeof surf);
  } else {
    int best = 0;
    double bd = b->h[0] - fabs(l[0]);
    for (int k = 1; k < 3; k++) {
      double dk = b->h[k] - fabs(l[k]);
      if (dk < bd) {
        bd = dk;
        best = k;
      }
    }
    nl[best] = l[best] >= 0 ? 1.0 : -1.0;
    depth = r + bd;
    memcpy(surf, l, sizeof surf);
    surf[best] = nl[best] * b->h[best];
  }
  vs_mat3_mul(b->R, nl, o->n);
  double sw[3];
  vs_mat3_mul(b->R, surf, sw);
  /* sw is on the box surface, the sphere's deepest point is sw - depth n: midway */
  for (int k = 0; k < 3; k++) o->p[k] = b->c[k] + sw[k] - 0.5 * depth * o->n[k];
  o->depth = depth;
  o->feature = feature;
  return 1;
}

/* Signed distance from p to box b (negative inside). */
static double box_sdf(const shp *b, const double p[3]) {
  double d[3] = {p[0] - b->c[0], p[1] - b->c[1], p[2] - b->c[2]}, l[3];
  vs_mat3_mul_t(b->R, d, l);
  double q[3], out2 = 0, mx = -INFINITY;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(l[k]) - b->h[k];
    if (q[k] > 0) out2 += q[k] * q[k];
    if (q[k] > mx) mx = q[k];
  }
  return out2 > 0 ? sqrt(out2) : mx;
}

/* Capsule b against box a: its two end spheres, plus the deepest point of the
 * segment when that lies strictly inside (a capsule across an edge). */
static int box_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  double p0[3], p1[3];
  seg_of(b, p0, p1);
  int n = 0;
  n += box_point(a, p0, b->r, margin, 0, &o[n]);
  n += box_point(a, p1, b->r, margin, 1, &o[n]);
  double pt[3];
  if (vs_rc_segment_inner(box_sdf, a, p0, p1, b->r, pt))
    n += box_point(a, pt, b->r, margin, 2, &o[n]);
  return n;
}

/* ---- box-box ---- */

static double proj_box(const shp *b, const double u[3]) {
  double ax[3], s = 0;
  for (int k = 0; k < 3; k++) {
    axis_of(b->R, k, ax);
    s += b->h[k] * fabs(vs_dot3(u, ax));
  }
  return s;
}

typedef vs_rcvert cvert;

/* Clip to dot(u, p) <= off + tol, new vertices' ids from plane k.  The
 * tolerance keeps a vertex that lies on a side plane to rounding (equal boxes
 * stacked) a vertex, so that its feature id does not change from step to
 * step. */
static int clip(const cvert *in, int n, const double u[3], double off, double tol, int k,
                cvert *out) {
  return vs_rc_clip(in, n, u, off + tol, 8 + 2 * k, out);
}

/* Face contact: reference box r (its face axis ri, sign toward the other box),
 * incident box i.  Normal of the reference face nref.  flip: r is the second
 * box (normals reported from the first box to the second). */
static int box_face(const shp *r, int ri, const double nref[3], const shp *in, int flip,
                    double margin, cpt *o) {
  /* incident face: the face of `in` most anti-parallel to nref */
  int ii = 0;
  double best = -1, ax[3];
  for (int k = 0; k < 3; k++) {
    axis_of(in->R, k, ax);
    double d = fabs(vs_dot3(ax, nref));
    if (d > best) {
      best = d;
      ii = k;
    }
  }
  double ni[3];
  axis_of(in->R, ii, ni);
  double sgn = vs_dot3(ni, nref) > 0 ? -1.0 : 1.0; /* incident face normal = sgn * axis */
  int j1 = (ii + 1) % 3, j2 = (ii + 2) % 3;
  double u1[3], u2[3], fc[3];
  axis_of(in->R, j1, u1);
  axis_of(in->R, j2, u2);
  for (int k = 0; k < 3; k++) fc[k] = in->c[k] + sgn * in->h[ii] * ni[k];
  cvert poly[16], tmp[16];
  static const double cs[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  for (int v = 0; v < 4; v++) {
    for (int k = 0; k < 3; k++)
      poly[v].p[k] = fc[k] + cs[v][0] * in->h[j1] * u1[k] + cs[v][1] * in->h[j2] * u2[k];
    poly[v].id = v;
  }
  int n = 4;
  int r1 = (ri + 1) % 3, r2 = (ri + 2) % 3;
  double s1[3], s2[3];
  axis_of(r->R, r1, s1);
  axis_of(r->R, r2, s2);
  double c1 = vs_dot3(s1, r->c), c2 = vs_dot3(s2, r->c);
  double m1[3] = {-s1[0], -s1[1], -s1[2]}, m2[3] = {-s2[0], -s2[1], -s2[2]};
  double tol = 2e-3 * (r->h[r1] < r->h[r2] ? r->h[r1] : r->h[r2]);
  n = clip(poly, n, s1, c1 + r->h[r1], tol, 0, tmp);
  n = clip(tmp, n, m1, -c1 + r->h[r1], tol, 1, poly);
  n = clip(poly, n, s2, c2 + r->h[r2], tol, 2, tmp);
  n = clip(tmp, n, m2, -c2 + r->h[r2], tol, 3, poly);
  /* reference face plane: dot(nref, p) = dot(nref, r.c) + h[ri] */
  double off = vs_dot3(nref, r->c) + r->h[ri];
  cpt cand[16];
  int nc = 0;
  /* face ids: axis * 2 + (negative side) */
  double rax[3];
  axis_of(r->R, ri, rax);
  int rface = 2 * ri + (vs_dot3(nref, rax) < 0);
  int iface = 2 * ii + (sgn < 0);
  nc = vs_rc_face_points(poly, n, nref, off, margin, flip,
                         ((uint32_t)flip << 15) | ((uint32_t)rface << 12) | ((uint32_t)iface << 8),
                         cand);
  if (nc <= VS_RIGID_MANIFOLD) {
    memcpy(o, cand, sizeof(cpt) * (size_t)nc);
    return nc;
  }
  return vs_rc_reduce4(cand, nc, nref, o);
}

static int box_box(const shp *a, const shp *b, double margin, cpt *o) {
  double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
  double A[3][3], B[3][3];
  for (int k = 0; k < 3; k++) {
    axis_of(a->R, k, A[k]);
    axis_of(b->R, k, B[k]);
  }
  /* |A_i . B_j| once: the face axes' projections of the other box
   * (proj_box(b, A[i]) and proj_box(a, B[j]) with the same products and
   * sums in the same order, so the same bits) */
  double C[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[i][j] = fabs(vs_dot3(A[i], B[j]));
  /* faces of a */
  double sa = -INFINITY, sb = -INFINITY, se = -INFINITY;
  int ia = 0, ib = 0, ea = 0, eb = 0;
  for (int k = 0; k < 3; k++) {
    double pb = b->h[0] * C[k][0] + b->h[1] * C[k][1] + b->h[2] * C[k][2];
    double s = fabs(vs_dot3(d, A[k])) - a->h[k] - pb;
    if (s > margin) return 0;
    if (s > sa) {
      sa = s;
      ia = k;
    }
  }
  for (int k = 0; k < 3; k++) {
    double pa = a->h[0] * C[0][k] + a->h[1] * C[1][k] + a->h[2] * C[2][k];
    double s = fabs(vs_dot3(d, B[k])) - b->h[k] - pa;
    if (s > margin) return 0;
    if (s > sb) {
      sb = s;
      ib = k;
    }
  }
  double eu[3] = {0, 0, 0};
  /* An edge axis matters only when its separation s exceeds the margin (no
   * contact) or the face's by the edge tolerance below (an edge contact):
   * below lim = min(margin, that threshold) it changes nothing.  A cheap
   * upper estimate of s l for w = A_i x B_j (length l) skips those: with
   * orthonormal axes |w . A_k| = |B_j . A_m| and |w . B_k| = |A_i . B_m| (m
   * the third index), already in C; the estimate differs from the exact s l
   * by rounding (~1e-15 of the sizes), far inside the slack `tol`, so an
   * axis is skipped only when the exact test would have ignored it: the
   * same contacts, the same bits. */
  const double rel = 0.98, abs_tol = 0.001;
  double sface = sa;
  int use_b = 0;
  if (sb > rel * sa + abs_tol) {
    use_b = 1;
    sface = sb;
  }
  double lim = vs_rc_edge_over(sface, rel) + abs_tol * 5.0;
  if (margin < lim) lim = margin;
  double tol = 1e-9 * (fabs(d[0]) + fabs(d[1]) + fabs(d[2]) + a->h[0] + a->h[1] + a->h[2] +
                       b->h[0] + b->h[1] + b->h[2]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double u[3];
      vs_cross3(A[i], B[j], u);
      double l = vs_len3(u);
      if (l < 1e-5) continue; /* parallel edges: covered by the face axes */
      {
        static const int next[3] = {1, 2, 0}, prev[3] = {2, 0, 1}; /* (k + 1) % 3, (k + 2) % 3 */
        const int i1 = next[i], i2 = prev[i], j1 = next[j], j2 = prev[j];
        double est = fabs(vs_dot3(d, u)) - a->h[i1] * C[i2][j] - a->h[i2] * C[i1][j] -
                     b->h[j1] * C[i][j2] - b->h[j2] * C[i][j1];
        if (est < lim * l - tol) continue;
      }
      for (int k = 0; k < 3; k++) u[k] /= l;
      double s = fabs(vs_dot3(d, u)) - proj_box(a, u) - proj_box(b, u);
      if (s > margin) return 0;
      if (s > se) {
        se = s;
        ea = i;
        eb = j;
        memcpy(eu, u, sizeof eu);
      }
    }
  if (se > vs_rc_edge_over(sface, rel) + abs_tol * 5.0) {
    /* edge-edge: the support edges of each box along eu (pointing a -> b) */
    if (vs_dot3(eu, d) < 0)
      for (int k = 0; k < 3; k++) eu[k] = -eu[k];
    double pa[3], pb[3];
    memcpy(pa, a->c, sizeof pa);
    memcpy(pb, b->c, sizeof pb);
    for (int k = 0; k < 3; k++) {
      if (k != ea) {
        double sg = vs_dot3(eu, A[k]) > 0 ? 1.0 : -1.0;
        for (int c = 0; c < 3; c++) pa[c] += sg * a->h[k] * A[k][c];
      }
      if (k != eb) {
        double sg = vs_dot3(eu, B[k]) > 0 ? -1.0 : 1.0;
        for (int c = 0; c < 3; c++) pb[c] += sg * b->h[k] * B[k][c];
      }
    }
    double a0[3], a1[3], b0[3], b1[3];
    for (int c = 0; c < 3; c++) {
      a0[c] = pa[c] - a->h[ea] * A[ea][c];
      a1[c] = pa[c] + a->h[ea] * A[ea][c];
      b0[c] = pb[c] - b->h[eb] * B[eb][c];
      b1[c] = pb[c] + b->h[eb] * B[eb][c];
    }
    double s, t, qa[3], qb[3];
    vs_r_seg_seg(a0, a1, b0, b1, &s, &t);
    vs_lerp3(a0, a1, s, qa);
    vs_lerp3(b0, b1, t, qb);
    double sep = vs_dot3(eu, qb) - vs_dot3(eu, qa);
    if (sep >= margin) return 0;
    memcpy(o->n, eu, sizeof eu);
    for (int c = 0; c < 3; c++) o->p[c] = 0.5 * (qa[c] + qb[c]);
    o->depth = -sep;
    o->feature = 0x10000u | (uint32_t)(ea * 3 + eb);
    return 1;
  }
  if (!use_b) {
    double n[3];
    double sg = vs_dot3(d, A[ia]) >= 0 ? 1.0 : -1.0;
    for (int k = 0; k < 3; k++) n[k] = sg * A[ia][k];
    return box_face(a, ia, n, b, 0, margin, o);
  }
  double n[3];
  double sg = vs_dot3(d, B[ib]) >= 0 ? -1.0 : 1.0; /* from b toward a */
  for (int k = 0; k < 3; k++) n[k] = sg * B[ib][k];
  return box_face(b, ib, n, a, 1, margin, o);
}

/* The pair functions, one per ordered pair of shapes (normal from a to b):
 * the mirrored pairs run the other order's test and turn the normals. */
typedef int (*pair_fn)(const shp *a, const shp *b, double margin, cpt *o);

static int flip_normals(int n, cpt *o) {
  for (int k = 0; k < n; k++)
    for (int c = 0; c < 3; c++) o[k].n[c] = -o[k].n[c];
  return n;
}
static int pair_sphere_sphere(const shp *a, const shp *b, double margin, cpt *o) {
  return sphere_sphere(a->c, a->r, b->c, b->r, margin, 0, o);
}
static int pair_sphere_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  return sphere_capsule(a, b, margin, o);
}
static int pair_capsule_sphere(const shp *a, const shp *b, double margin, cpt *o) {
  return flip_normals(sphere_capsule(b, a, margin, o), o);
}
static int pair_capsule_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  return capsule_capsule(a, b, margin, o);
}
static int pair_box_sphere(const shp *a, const shp *b, double margin, cpt *o) {
  return box_point(a, b->c, b->r, margin, 0, o);
}
static int pair_sphere_box(const shp *a, const shp *b, double margin, cpt *o) {
  return flip_normals(box_point(b, a->c, a->r, margin, 0, o), o);
}
static int pair_box_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  return box_capsule(a, b, margin, o);
}
static int pair_capsule_box(const shp *a, const shp *b, double margin, cpt *o) {
  return flip_normals(box_capsule(b, a, margin, o), o);
}
static int pair_box_box(const shp *a, const shp *b, double margin, cpt *o) {
  return box_box(a, b, margin, o);
}

/* box-convex, convex-box, convex-convex: polyhedra (rigid_convex.c) */
static int pair_poly(const shp *a, const shp *b, double margin, cpt *o) {
  return vs_rc_poly_poly(a, b, margin, o);
}
static int pair_convex_sphere(const shp *a, const shp *b, double margin, cpt *o) {
  return vs_rc_convex_sphere(a, b->c, b->r, margin, 0, o);
}
static int pair_sphere_convex(const shp *a, const shp *b, double margin, cpt *o) {
  return flip_normals(vs_rc_convex_sphere(b, a->c, a->r, margin, 0, o), o);
}
static int pair_convex_capsule(const shp *a, const shp *b, double margin, cpt *o) {
  return vs_rc_convex_capsule(a, b, margin, o);
}
static int pair_capsule_convex(const shp *a, const shp *b, double margin, cpt *o) {
  return flip_normals(vs_rc_convex_capsule(b, a, margin, o), o);
}

/* [shape a][shape b], by name from the shape table (vsim/kind.h): a new
 * shape fails to build here until its row of pair functions exists. */
#define PAIR_ROW_(ID, name) [VS_RIGID_##ID] = {PAIR_ROW_##ID##_},
#define PAIR_ROW_BOX_ pair_box_box, pair_box_sphere, pair_box_capsule, pair_poly
#define PAIR_ROW_SPHERE_ \
  pair_sphere_box, pair_sphere_sphere, pair_sphere_capsule, pair_sphere_convex
#define PAIR_ROW_CAPSULE_ \
  pair_capsule_box, pair_capsule_sphere, pair_capsule_capsule, pair_capsule_convex
#define PAIR_ROW_CONVEX_ pair_poly, pair_convex_sphere, pair_convex_capsule, pair_poly
static const pair_fn pair_table[VS_RIGID_SHAPE_COUNT][VS_RIGID_SHAPE_COUNT] = {
    VS_RIGID_SHAPES(PAIR_ROW_)};
#undef PAIR_ROW_
_Static_assert(VS_RIGID_BOX == 0 && VS_RIGID_SPHERE == 1 && VS_RIGID_CAPSULE == 2 &&
                   VS_RIGID_CONVEX == 3,
               "each PAIR_ROW_*_ lists its columns in the shape table's order");

static int shape_pair(const shp *a, const shp *b, double margin, cpt *o) {
  return pair_table[a->shape][b->shape](a, b, margin, o);
}

int vs_rigid_pair_known(int32_t sa, int32_t sb) {
  return sa >= 0 && sb >= 0 && sa < VS_RIGID_SHAPE_COUNT && sb < VS_RIGID_SHAPE_COUNT &&
         pair_table[sa][sb] != NULL;
}

/* Shape a against the half-space dot(nrm, p - pt) < 0 (nrm points out of the
 * solid).  Feature ids offset by fbase. */
static int shape_plane(const shp *a, const double pt[3], const double nrm[3], double margin,
                       uint32_t fbase, cpt *o) {
  double cand[8][3];
  int nv = 0;
  double rad = 0;
  switch ((vs_rigid_shape)a->shape) { /* the shape's support points and their radius */
  case VS_RIGID_SPHERE:
    memcpy(cand[0], a->c, sizeof cand[0]);
    nv = 1;
    rad = a->r;
    break;
  case VS_RIGID_CAPSULE:
    seg_of(a, cand[0], cand[1]);
    nv = 2;
    rad = a->r;
    break;
  case VS_RIGID_BOX:
    for (int v = 0; v < 8; v++) {
      double l[3] = {(v & 1) ? a->h[0] : -a->h[0], (v & 2) ? a->h[1] : -a->h[1],
                     (v & 4) ? a->h[2] : -a->h[2]}, wv[3];
      vs_mat3_mul(a->R, l, wv);
      for (int k = 0; k < 3; k++) cand[v][k] = a->c[k] + wv[k];
    }
    nv = 8;
    break;
  case VS_RIGID_CONVEX: return vs_rc_convex_plane(a, pt, nrm, margin, fbase, o);
  }
  int n = 0;
  double seps[8];
  int ids[8];
  for (int v = 0; v < nv; v++) {
    double e[3] = {cand[v][0] - pt[0], cand[v][1] - pt[1], cand[v][2] - pt[2]};
    double sep = vs_dot3(e, nrm) - rad;
    if (sep >= margin) continue;
    seps[n] = sep;
    ids[n] = v;
    n++;
  }
  if (n > VS_RIGID_MANIFOLD) { /* keep the 4 deepest (ties by vertex id), in vertex order */
    int keep[8] = {0};
    for (int r = 0; r < VS_RIGID_MANIFOLD; r++) {
      int bi = -1;
      for (int k = 0; k < n; k++)
        if (!keep[k] && (bi < 0 || seps[k] < seps[bi])) bi = k;
      keep[bi] = 1;
    }
    int m = 0;
    for (int k = 0; k < n; k++)
      if (keep[k]) {
        seps[m] = seps[k];
        ids[m] = ids[k];
        m++;
      }
    n = m;
  }
  for (int k = 0; k < n; k++) {
    const double *c = cand[ids[k]];
    for (int q = 0; q < 3; q++) {
      o[k].n[q] = -nrm[q];
      o[k].p[q] = c[q] - nrm[q] * (rad + 0.5 * seps[k]);
    }
    o[k].depth = -seps[k];
    o[k].feature = fbase + (uint32_t)ids[k];
  }
  return n;
}

static void cpt_to_contact(const cpt *c, int32_t a, int32_t b, vs_rcontact *o) {
  o->a = a;
  o->b = b;
  o->feature = c->feature;
  memcpy(o->n, c->n, sizeof o->n);
  memcpy(o->p, c->p, sizeof o->p);
  o->depth = c->depth;
}

static void sort_features(cpt *o, int n) {
  for (int x = 1; x < n; x++)
    for (int y = x; y > 0 && o[y - 1].feature > o[y].feature; y--) {
      cpt t = o[y];
      o[y] = o[y - 1];
      o[y - 1] = t;
    }
}

int vs_rigid_collide_pair(const vs_rmodel *m, const vs_rstate *s, int32_t i, int32_t j,
                          double margin, vs_rcontact *out) {
  shp a, b;
  shp_body(m, s, i, &a);
  shp_body(m, s, j, &b);
  cpt c[VS_RIGID_PAIR_MAX];
  int n = shape_pair(&a, &b, margin, c);
  sort_features(c, n);
  for (int k = 0; k < n; k++) cpt_to_contact(&c[k], i, j, &out[k]);
  return n;
}

int vs_rigid_collide_collider(const vs_rmodel *m, const vs_rstate *s, int32_t i, int32_t ci,
                              double margin, vs_rcontact *out) {
  const vs_rcollider *col = &m->colliders[ci];
  shp a;
  shp_body(m, s, i, &a);
  cpt c[VS_RIGID_PAIR_MAX];
  int n = 0;
  switch ((vs_collider_kind)col->kind) {
  case VS_COLLIDER_MESH: return vs_rigid_collide_mesh(m, s, i, ci, margin, out);
  case VS_COLLIDER_PLANE:
    n = shape_plane(&a, col->a, col->b, margin, 0, c);
    break;
  case VS_COLLIDER_SPHERE: {
    shp b;
    memset(&b, 0, sizeof b);
    b.shape = VS_RIGID_SPHERE;
    memcpy(b.c, col->a, sizeof b.c);
    b.R[0] = b.R[4] = b.R[8] = 1;
    b.r = col->radius;
    n = shape_pair(&a, &b, margin, c);
    break;
  }
  case VS_COLLIDER_BOX: {
    shp b;
    memset(&b, 0, sizeof b);
    b.shape = VS_RIGID_BOX;
    for (int k = 0; k < 3; k++) {
      b.c[k] = 0.5 * (col->a[k] + col->b[k]);
      b.h[k] = 0.5 * (col->b[k] - col->a[k]);
    }
    b.R[0] = b.R[4] = b.R[8] = 1;
    n = shape_pair(&a, &b, margin, c);
    break;
  }
  case VS_COLLIDER_BOUNDS: { /* six inward walls */
    for (int f = 0; f < 6; f++) {
      int ax = f >> 1;
      double pt[3] = {0, 0, 0}, nrm[3] = {0, 0, 0};
      if (f & 1) {
        pt[ax] = col->b[ax];
        nrm[ax] = -1;
      } else {
        pt[ax] = col->a[ax];
        nrm[ax] = 1;
      }
      n += shape_plane(&a, pt, nrm, margin, (uint32_t)f << 4, &c[n]);
    }
    break;
  }
  }
  sort_features(c, n);
  for (int k = 0; k < n; k++) cpt_to_contact(&c[k], i, -1 - ci, &out[k]);
  return n;
}

int vs_rigid_point_query(const vs_rmodel *m, const vs_rstate *s, int32_t i, const double p[3],
                         double r, double margin, double n[3], double *depth, double pt[3]) {
  shp a, b;
  shp_body(m, s, i, &a);
  memset(&b, 0, sizeof b);
  b.shape = VS_RIGID_SPHERE;
  memcpy(b.c, p, sizeof b.c);
  b.R[0] = b.R[4] = b.R[8] = 1;
  b.r = r;
  cpt c[VS_RIGID_PAIR_MAX];
  if (shape_pair(&a, &b, margin, c) < 1) return 0;
  memcpy(n, c[0].n, sizeof c[0].n);
  *depth = c[0].depth;
  /* the point on the body's surface: the contact point moved back by half the depth */
  for (int k = 0; k < 3; k++) pt[k] = c[0].p[k] + 0.5 * c[0].depth * n[k];
  return 1;
}
