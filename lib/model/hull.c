/* SPDX-License-Identifier: MIT */
/* hull.c: the convex hull of a point set (hull.h): its triangles, built
 * incrementally (the beneath-beyond method: each point outside the current
 * hull removes the triangles it sees and joins their horizon to itself; de
 * Berg et al., Computational Geometry, ch. 11), from a tetrahedron of
 * extreme points.  "Sees" means a distance above eps = 1e-9 times the
 * points' extent, so that rounding never decides; the seen triangles are
 * those connected to the one the point is farthest above, with the
 * triangles whose plane it lies in (within eps), and any triangle that the
 * new fan would fold over; a point whose seen set has not one simple
 * horizon is skipped (near-coplanar: the finished hull must hold it).
 * Where nearly coplanar points still make the hull come out open, it is
 * built again with eps 1e-8, then 1e-7 of the extent.  hull_faces.c merges
 * the triangles into faces and measures the solid. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/hull_int.h"
#include "util/alloc.h"
#include "util/vec3.h"

int vs_hull_fail(char *why, size_t nwhy, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why && nwhy) vsnprintf(why, nwhy, fmt, ap);
  va_end(ap);
  return 0;
}

static int add_tri(hb *h, int32_t a, int32_t b, int32_t c) {
  if (h->nt == h->cap) {
    int32_t nc = h->cap ? 2 * h->cap : 64;
    tri *t = vs_realloc(h->t, (size_t)nc * sizeof *t);
    if (!t) return -1;
    h->t = t;
    h->cap = nc;
  }
  tri *t = &h->t[h->nt++];
  t->v[0] = a, t->v[1] = b, t->v[2] = c;
  const double *A = h->p + 3 * a, *B = h->p + 3 * b, *C = h->p + 3 * c;
  double e1[3], e2[3];
  vs_sub3(B, A, e1);
  vs_sub3(C, A, e2);
  vs_cross3(e1, e2, t->n);
  double l = vs_len3(t->n);
  if (l > 0)
    for (int k = 0; k < 3; k++) t->n[k] /= l;
  t->d = vs_dot3(t->n, A);
  t->alive = 1;
  t->mark = 0;
  t->nb[0] = t->nb[1] = t->nb[2] = -1;
  h->live++;
  return 0;
}

static double dist_line(const double *a, const double *b, const double *p) {
  double u[3], w[3], c[3];
  vs_sub3(b, a, u);
  vs_sub3(p, a, w);
  vs_cross3(u, w, c);
  return vs_len3(c) / vs_len3(u);
}

static double above(const hb *h, int32_t f, const double *p) {
  return vs_dot3(h->t[f].n, p) - h->t[f].d;
}

/* Drop the dead triangles, renumbering the neighbours: new numbers first
 * (in mark), then every neighbour renumbered, then the moves. */
static void compact(hb *h) {
  int32_t w = 0;
  for (int32_t f = 0; f < h->nt; f++) h->t[f].mark = h->t[f].alive ? w++ : -1;
  for (int32_t f = 0; f < h->nt; f++)
    if (h->t[f].alive)
      for (int e = 0; e < 3; e++) h->t[f].nb[e] = h->t[h->t[f].nb[e]].mark;
  w = 0;
  for (int32_t f = 0; f < h->nt; f++)
    if (h->t[f].alive) h->t[w++] = h->t[f];
  for (int32_t f = 0; f < w; f++) h->t[f].mark = 0; /* below every stamp still to come */
  h->nt = w;
}

/* Insert point i: the triangles it sees, connected through neighbours from
 * the one it is farthest above, are replaced by a fan from their horizon
 * to it; a neighbour whose plane p lies in (within eps) is replaced too,
 * else the fan's triangle on their common edge could fold over it.  A point near several nearly
 * coplanar triangles can see a set whose horizon is not one simple cycle: it is skipped then
 * (counted; the final hull is checked to hold it).  1 when the hull changed, 0 when not, -1 out of
 * memory. */
static int insert(hb *h, int32_t i) {
  const double *p = h->p + 3 * i;
  int32_t best = -1;
  double bd = h->eps;
  for (int32_t f = 0; f < h->nt; f++) {
    if (!h->t[f].alive) continue;
    double d = above(h, f, p);
    if (d > bd) bd = d, best = f;
  }
  if (best < 0) return 0;
  int32_t stamp = ++h->stamp, sp = 0, nvis = 0, nh = 0;
  h->t[best].mark = stamp;
  h->stack[sp++] = best;
  while (sp > nvis) { /* stack[0 .. nvis): visited; the rest to visit */
    int32_t f = h->stack[nvis++];
    for (int e = 0; e < 3; e++) {
      int32_t g = h->t[f].nb[e];
      if (h->t[g].mark == stamp) continue;
      if (above(h, g, p) > -h->eps) { /* a face p lies in goes too: no fold at its edge */
        h->t[g].mark = stamp;
        h->stack[sp++] = g;
      }
    }
  }
  /* the horizon; a fan triangle that would fold over the face beyond its
   * edge (that face's far vertex above it, or in its plane with the
   * normals opposed: nearly coplanar faces, p past their edge) or be
   * degenerate takes that face into the visible set */
  for (;;) {
    int32_t grow = -1;
    nh = 0;
    for (int32_t a = 0; a < nvis && grow < 0; a++) {
      int32_t f = h->stack[a];
      for (int e = 0; e < 3 && grow < 0; e++) {
        int32_t o = h->t[f].nb[e];
        if (h->t[o].mark == stamp) continue;
        const int32_t u = h->t[f].v[e], w = h->t[f].v[(e + 1) % 3];
        int32_t x = h->t[o].v[0] + h->t[o].v[1] + h->t[o].v[2] - u - w; /* o's third vertex */
        double a1[3], a2[3], nn[3], ax[3];
        vs_sub3(h->p + 3 * w, h->p + 3 * u, a1);
        vs_sub3(p, h->p + 3 * u, a2);
        vs_cross3(a1, a2, nn);
        vs_sub3(h->p + 3 * x, h->p + 3 * u, ax);
        double l = vs_len3(nn), dx = vs_dot3(nn, ax);
        /* x above the new plane, or in it with the two normals opposed (the
         * new triangle lies over o, folded about the edge) */
        if (!(l > 0) || dx > h->eps * l || (dx > -h->eps * l && vs_dot3(nn, h->t[o].n) <= 0)) {
          grow = o;
          break;
        }
        h->hf[nh] = f;
        h->he[nh] = e;
        nh++;
      }
    }
    if (grow < 0) break;
    h->t[grow].mark = stamp;
    h->stack[nvis++] = grow;
  }
  /* one simple cycle: each horizon vertex starts exactly one edge, and the
   * walk from the first edge comes back after all of them */
  int ok = nh >= 3;
  for (int32_t k = 0; k < nh && ok; k++) {
    int32_t u = h->t[h->hf[k]].v[h->he[k]];
    if (h->vmark[u] == stamp) ok = 0;
    h->vmark[u] = stamp;
    h->vnext[u] = k;
  }
  int32_t cnt = 0, cur = 0;
  while (ok && cnt < nh) {
    h->order[cnt++] = cur;
    int32_t w = h->t[h->hf[cur]].v[(h->he[cur] + 1) % 3];
    if (h->vmark[w] != stamp)
      ok = 0;
    else
      cur = h->vnext[w];
    if (cur == 0) break;
  }
  if (!ok || cnt != nh || cur != 0) {
    h->skipped++;
    return 0;
  }
  int32_t first = h->nt;
  for (int32_t j = 0; j < nh; j++) {
    int32_t f = h->hf[h->order[j]], e = h->he[h->order[j]];
    int32_t u = h->t[f].v[e], w = h->t[f].v[(e + 1) % 3], o = h->t[f].nb[e];
    if (add_tri(h, u, w, i) < 0) return -1;
    tri *nt = &h->t[first + j];
    nt->nb[0] = o;
    nt->nb[1] = first + (j + 1) % nh;
    nt->nb[2] = first + (j + nh - 1) % nh;
    for (int k = 0; k < 3; k++)
      if (h->t[o].v[k] == w && h->t[o].v[(k + 1) % 3] == u) h->t[o].nb[k] = first + j;
  }
  for (int32_t a = 0; a < nvis; a++) h->t[h->stack[a]].alive = 0;
  h->live -= nvis;
  if (h->nt > 4 * h->live + 64) compact(h);
  return 1;
}

void vs_hull_free(vs_hull *h) {
  if (!h) return;
  vs_free(h->v);
  vs_free(h->plane);
  vs_free(h->fstart);
  vs_free(h->fvert);
  vs_free(h->edge);
  memset(h, 0, sizeof *h);
}

static void hb_free(hb *h) {
  vs_free(h->t);
  vs_free(h->vmark);
  vs_free(h->vnext);
  vs_free(h->stack);
  vs_free(h->hf);
  vs_free(h->he);
  vs_free(h->order);
}

/* The triangles of the hull: the tetrahedron (i0, i1, i2, i3; i3 on the
 * side sgn of the first three's plane), then every other point in order.
 * VS_OK or VS_ERR_NOMEM. */
static vs_status build_once(hb *h, int32_t i0, int32_t i1, int32_t i2, int32_t i3, double sgn) {
  const int32_t n = h->n;
  size_t nw = 6 * (size_t)n + 64; /* 3 a visible triangle, at most 2 n + 8 of them */
  h->vmark = vs_calloc((size_t)n, sizeof *h->vmark);
  h->vnext = vs_malloc((size_t)n * sizeof *h->vnext);
  h->stack = vs_malloc((4 * (size_t)n + 16) * sizeof *h->stack);
  h->hf = vs_malloc(nw * sizeof *h->hf);
  h->he = vs_malloc(nw * sizeof *h->he);
  h->order = vs_malloc(nw * sizeof *h->order);
  if (!h->vmark || !h->vnext || !h->stack || !h->hf || !h->he || !h->order) return VS_ERR_NOMEM;
  /* outward: i3 lies behind each face */
  if (sgn > 0) {
    if (add_tri(h, i0, i2, i1) || add_tri(h, i0, i1, i3) || add_tri(h, i1, i2, i3) ||
        add_tri(h, i2, i0, i3))
      return VS_ERR_NOMEM;
  } else {
    if (add_tri(h, i0, i1, i2) || add_tri(h, i0, i3, i1) || add_tri(h, i1, i3, i2) ||
        add_tri(h, i2, i3, i0))
      return VS_ERR_NOMEM;
  }
  for (int32_t f = 0; f < 4; f++) /* the tetrahedron's neighbours */
    for (int e = 0; e < 3; e++)
      for (int32_t g = 0; g < 4; g++)
        for (int k = 0; k < 3; k++)
          if (h->t[g].v[k] == h->t[f].v[(e + 1) % 3] && h->t[g].v[(k + 1) % 3] == h->t[f].v[e])
            h->t[f].nb[e] = g;
  for (int32_t i = 0; i < n; i++) {
    if (i == i0 || i == i1 || i == i2 || i == i3) continue;
    if (h->live > 2 * n + 8) break; /* cannot happen: a hull of n points has < 2n faces */
    if (insert(h, i) < 0) return VS_ERR_NOMEM;
  }
  return VS_OK;
}

vs_status vs_hull_build(const double *pts, int32_t n, double scale, vs_hull *out, char *why,
                        size_t nwhy) {
  memset(out, 0, sizeof *out);
  if (why && nwhy) why[0] = 0;
  if (n < 4) {
    vs_hull_fail(why, nwhy, "expected at least 4 points for a convex hull, got %d", (int)n);
    return VS_ERR_SCENE;
  }
  if (n > VS_HULL_MAX_POINTS) {
    vs_hull_fail(why, nwhy,
                 "expected at most %d points for a convex hull (the documented limit), got %d",
                 VS_HULL_MAX_POINTS, (int)n);
    return VS_ERR_LIMIT;
  }
  double *p = vs_malloc(3 * (size_t)n * sizeof *p);
  if (!p) {
    vs_hull_fail(why, nwhy, "out of memory");
    return VS_ERR_NOMEM;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double x = pts[3 * i + k] * scale;
      if (!isfinite(x)) {
        vs_free(p);
        vs_hull_fail(why, nwhy, "point %d is not finite", (int)i);
        return VS_ERR_SCENE;
      }
      p[3 * i + k] = x;
      lo[k] = fmin(lo[k], x);
      hi[k] = fmax(hi[k], x);
    }
  double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  hb h = {.p = p, .n = n, .eps = 1e-9 * ext, .ext = ext};
  vs_status st = VS_OK;
  /* the initial tetrahedron: the lowest x (first of ties), the point
   * farthest from it, the one farthest from their line, the one farthest
   * from their plane (first of ties each time) */
  int32_t i0 = 0, i1 = -1, i2 = -1, i3 = -1;
  for (int32_t i = 1; i < n; i++)
    if (p[3 * i] < p[3 * i0]) i0 = i;
  double best = 0;
  for (int32_t i = 0; i < n; i++) {
    double d[3];
    vs_sub3(p + 3 * i, p + 3 * i0, d);
    double l = vs_len3(d);
    if (l > best) best = l, i1 = i;
  }
  if (i1 < 0 || !(best > h.eps)) {
    vs_free(p);
    vs_hull_fail(why, nwhy, "all %d points are the same point: no solid", (int)n);
    return VS_ERR_SCENE;
  }
  best = 0;
  for (int32_t i = 0; i < n; i++) {
    double l = dist_line(p + 3 * i0, p + 3 * i1, p + 3 * i);
    if (l > best) best = l, i2 = i;
  }
  if (i2 < 0 || !(best > h.eps)) {
    vs_free(p);
    vs_hull_fail(why, nwhy, "the %d points are on one line: no solid", (int)n);
    return VS_ERR_SCENE;
  }
  double nrm[3], e1[3], e2[3];
  vs_sub3(p + 3 * i1, p + 3 * i0, e1);
  vs_sub3(p + 3 * i2, p + 3 * i0, e2);
  vs_cross3(e1, e2, nrm);
  double nl = vs_len3(nrm);
  for (int k = 0; k < 3; k++) nrm[k] /= nl;
  best = 0;
  double sgn = 0;
  for (int32_t i = 0; i < n; i++) {
    double d[3];
    vs_sub3(p + 3 * i, p + 3 * i0, d);
    double s = vs_dot3(d, nrm);
    if (fabs(s) > best) best = fabs(s), i3 = i, sgn = s;
  }
  if (i3 < 0 || !(best > h.eps)) {
    vs_free(p);
    vs_hull_fail(why, nwhy, "the %d points are in one plane: no solid", (int)n);
    return VS_ERR_SCENE;
  }
  /* eps = 1e-9 of the extent; where nearly coplanar points still make the
   * hull come out open, again with 1e-8 and 1e-7 (near-coplanar points
   * are then merged or dropped: the hull holds every point to 100 eps) */
  static const double tries[3] = {1e-9, 1e-8, 1e-7};
  for (int r = 0; r < 3; r++) {
    hb_free(&h);
    hb z = {.p = p, .n = n, .eps = tries[r] * ext, .ext = ext};
    h = z;
    st = build_once(&h, i0, i1, i2, i3, sgn);
    if (st == VS_OK)
      st = vs_hull_finish(&h, out, why, nwhy);
    else
      goto nomem;
    if (st != VS_ERR_SCENE) break;
  }
  hb_free(&h);
  vs_free(p);
  return st;
nomem:
  hb_free(&h);
  vs_free(p);
  vs_hull_fail(why, nwhy, "out of memory");
  return VS_ERR_NOMEM;
}
