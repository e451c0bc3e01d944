/* SPDX-License-Identifier: MIT */
/* hull_faces.c: the convex hull's triangles (hull.c) into its faces and
 * their measures (hull.h): triangles of one plane (each one's far vertex
 * within eps of the other's plane) merged into one polygon, and vertices
 * left on fewer than three faces dropped; the canonical order of vertices,
 * faces and edges; the mass properties of the solid by the divergence
 * theorem (each face fanned into triangles, each with the vertices' mean a
 * tetrahedron whose volume, first and second moments are closed forms:
 * Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor",
 * J. Math. Stat. 2004), the inertia tensor diagonalised by cyclic Jacobi
 * rotations (Golub & Van Loan, 8.5) unless it is diagonal already (a box's
 * stays exactly in its frame); and the distance of a point to the hull. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/hull_int.h"
#include "util/alloc.h"
#include "util/vec3.h"

static int32_t uf_find(int32_t *par, int32_t x) {
  while (par[x] != x) x = par[x] = par[par[x]];
  return x;
}

typedef struct dedge {
  int64_t key; /* u * n + v */
  int32_t t;   /* its triangle */
} dedge;

static int cmp_dedge(const void *a, const void *b) {
  int64_t x = ((const dedge *)a)->key, y = ((const dedge *)b)->key;
  return (x > y) - (x < y);
}

static int32_t find_edge(const dedge *e, int32_t ne, int64_t key) {
  int32_t lo = 0, hi = ne;
  while (lo < hi) {
    int32_t m = lo + (hi - lo) / 2;
    if (e[m].key < key)
      lo = m + 1;
    else
      hi = m;
  }
  return lo < ne && e[lo].key == key ? e[lo].t : -1;
}

/* -1, 0, 1 as point i is before, equal to, after point j in (z, y, x) order */
static int cmp_vertex(const double *p, int32_t i, int32_t j) {
  const double *a = p + 3 * i, *b = p + 3 * j;
  for (int k = 2; k >= 0; k--)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

typedef struct floop {
  int32_t first, len; /* into a vertex list */
} floop;

/* faces by their first two vertices (no two faces share both) */
static int cmp_face(const int32_t *fv, const floop *x, const floop *y) {
  for (int k = 0; k < 2; k++) {
    int32_t u = fv[x->first + k], v = fv[y->first + k];
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void vs_quat_from_mat(const double R[9], double q[4]) {
  /* Shepperd's method: the largest of 4w^2, 4x^2, 4y^2, 4z^2 first */
  double t = R[0] + R[4] + R[8];
  if (t >= R[0] && t >= R[4] && t >= R[8]) {
    double s = sqrt(1.0 + t) * 2.0;
    q[0] = 0.25 * s;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] >= R[4] && R[0] >= R[8]) {
    double s = sqrt(1.0 + R[0] - R[4] - R[8]) * 2.0;
    q[0] = (R[7] - R[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] >= R[8]) {
    double s = sqrt(1.0 + R[4] - R[0] - R[8]) * 2.0;
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = sqrt(1.0 + R[8] - R[0] - R[4]) * 2.0;
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = 0.25 * s;
  }
  double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= l;
  if (q[0] < 0)
    for (int k = 0; k < 4; k++) q[k] = -q[k];
}

/* Eigenvectors (columns of E, right-handed) and eigenvalues of symmetric A
 * (row-major), by cyclic Jacobi rotations; A diagonal to 1e-14 of its
 * trace: E = identity, the diagonal as it is. */
static void jacobi3(const double A0[9], double E[9], double ev[3]) {
  double A[9];
  memcpy(A, A0, sizeof A);
  for (int k = 0; k < 9; k++) E[k] = k % 4 == 0 ? 1.0 : 0.0;
  double tr = fabs(A[0]) + fabs(A[4]) + fabs(A[8]);
  for (int sweep = 0; sweep < 32; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    if (!(off > 1e-14 * tr)) break;
    static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int r = 0; r < 3; r++) {
      int p = pq[r][0], q = pq[r][1];
      double apq = A[3 * p + q];
      if (apq == 0.0) continue;
      double theta = (A[3 * q + q] - A[3 * p + p]) / (2.0 * apq);
      double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
      double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
      /* A <- J^T A J with J the rotation in the (p, q) plane */
      for (int k = 0; k < 3; k++) {
        double akp = A[3 * k + p], akq = A[3 * k + q];
        A[3 * k + p] = c * akp - s * akq;
        A[3 * k + q] = s * akp + c * akq;
      }
      for (int k = 0; k < 3; k++) {
        double apk = A[3 * p + k], aqk = A[3 * q + k];
        A[3 * p + k] = c * apk - s * aqk;
        A[3 * q + k] = s * apk + c * aqk;
      }
      for (int k = 0; k < 3; k++) {
        double ekp = E[3 * k + p], ekq = E[3 * k + q];
        E[3 * k + p] = c * ekp - s * ekq;
        E[3 * k + q] = s * ekp + c * ekq;
      }
    }
  }
  ev[0] = A[0], ev[1] = A[4], ev[2] = A[8];
  double c0[3] = {E[0], E[3], E[6]}, c1[3] = {E[1], E[4], E[7]}, c2[3] = {E[2], E[5], E[8]}, x[3];
  vs_cross3(c0, c1, x);
  if (vs_dot3(x, c2) < 0)
    for (int k = 0; k < 3; k++) E[3 * k + 2] = -E[3 * k + 2];
}

/* Volume, centroid and covariance (second moment about the centroid) of
 * the solid bounded by the faces, the input coordinates p.  The reference
 * point is the vertices' mean and the sums are of det, det s and det x x^T,
 * divided by 6, 24 and 120 once at the end: for a box's corners every term
 * and sum is exact, so its volume, centroid and moments are the closed
 * forms' to the last bit. */
static void mass_props(const double *p, int32_t nv, const int32_t *fstart, const int32_t *fv,
                       int32_t nf, double *vol, double cen[3], double cov[9]) {
  double r0[3] = {0, 0, 0};
  for (int32_t i = 0; i < nv; i++)
    for (int q = 0; q < 3; q++) r0[q] += p[3 * i + q];
  for (int q = 0; q < 3; q++) r0[q] /= nv;
  double V = 0, S[3] = {0, 0, 0}, C[9] = {0};
  for (int32_t f = 0; f < nf; f++) {
    const double *A = p + 3 * fv[fstart[f]];
    for (int32_t k = fstart[f] + 1; k + 1 < fstart[f + 1]; k++) {
      const double *B = p + 3 * fv[k], *Cc = p + 3 * fv[k + 1];
      double a[3], b[3], c[3], x[3], s[3];
      vs_sub3(A, r0, a);
      vs_sub3(B, r0, b);
      vs_sub3(Cc, r0, c);
      vs_cross3(b, c, x);
      double det = vs_dot3(a, x);
      V += det;
      for (int q = 0; q < 3; q++) s[q] = a[q] + b[q] + c[q];
      for (int q = 0; q < 3; q++) S[q] += det * s[q];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          C[3 * i + j] += det * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
    }
  }
  V /= 6.0;
  double g[3];
  for (int q = 0; q < 3; q++) g[q] = S[q] / 24.0 / V;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) cov[3 * i + j] = C[3 * i + j] / 120.0 - V * g[i] * g[j];
  for (int q = 0; q < 3; q++) cen[q] = r0[q] + g[q];
  *vol = V;
}

vs_status vs_hull_finish(hb *h, vs_hull *out, char *why, size_t nwhy) {
  const double *p = h->p;
  const int32_t n = h->n;
  vs_status st = VS_ERR_NOMEM;
  int32_t nt = 0;
  for (int32_t f = 0; f < h->nt; f++)
    if (h->t[f].alive) h->t[nt++] = h->t[f];
  dedge *de = vs_malloc(3 * (size_t)nt * sizeof *de + 1);
  int32_t *par = vs_malloc((size_t)nt * sizeof *par + 1);
  int32_t *next = vs_malloc((size_t)n * sizeof *next);
  int32_t *nfaces = vs_calloc((size_t)n, sizeof *nfaces);
  int32_t *newid = vs_malloc((size_t)n * sizeof *newid);
  int32_t *loopv = vs_malloc(3 * (size_t)nt * sizeof *loopv + 1);
  floop *loops = vs_malloc((size_t)nt * sizeof *loops + 1);
  int32_t *order = vs_malloc((size_t)n * sizeof *order);
  int64_t *ekeys = NULL;
  if (!de || !par || !next || !nfaces || !newid || !loopv || !loops || !order) goto out;
  for (int32_t t = 0; t < nt; t++)
    for (int e = 0; e < 3; e++) {
      de[3 * t + e].key = (int64_t)h->t[t].v[e] * n + h->t[t].v[(e + 1) % 3];
      de[3 * t + e].t = t;
    }
  qsort(de, 3 * (size_t)nt, sizeof *de, cmp_dedge);
  /* merge neighbours of one plane: each one's far vertex within eps of the
   * other's plane, normals on one side */
  for (int32_t t = 0; t < nt; t++) par[t] = t;
  for (int32_t t = 0; t < nt; t++)
    for (int e = 0; e < 3; e++) {
      int32_t u = h->t[t].v[e], w = h->t[t].v[(e + 1) % 3];
      int32_t s = find_edge(de, 3 * nt, (int64_t)w * n + u);
      if (s < 0 || s < t) continue;
      const tri *A = &h->t[t], *B = &h->t[s];
      int32_t fa = A->v[(e + 2) % 3], fb = -1;
      for (int k = 0; k < 3; k++)
        if (B->v[k] != u && B->v[k] != w) fb = B->v[k];
      if (vs_dot3(A->n, B->n) > 0 && fabs(vs_dot3(A->n, p + 3 * fb) - A->d) <= h->eps &&
          fabs(vs_dot3(B->n, p + 3 * fa) - B->d) <= h->eps) {
        int32_t ra = uf_find(par, t), rb = uf_find(par, s);
        if (ra != rb) par[ra > rb ? ra : rb] = ra < rb ? ra : rb;
      }
    }
  /* each group's boundary as one loop (a group whose boundary is not one
   * simple loop falls back to its triangles) */
  int32_t nl = 0, nlv = 0;
  for (int32_t g = 0; g < nt; g++) {
    if (uf_find(par, g) != g) continue;
    for (int32_t i = 0; i < n; i++) next[i] = -1;
    int32_t nb = 0, start = -1, ok = 1;
    for (int32_t t = g; t < nt; t++) {
      if (uf_find(par, t) != g) continue;
      for (int e = 0; e < 3; e++) {
        int32_t u = h->t[t].v[e], w = h->t[t].v[(e + 1) % 3];
        int32_t s = find_edge(de, 3 * nt, (int64_t)w * n + u);
        if (s >= 0 && uf_find(par, s) == g) continue;
        if (next[u] >= 0) ok = 0;
        next[u] = w;
        nb++;
        if (start < 0 || u < start) start = u;
      }
    }
    int32_t len = 0;
    if (ok && start >= 0) {
      int32_t u = start;
      do {
        loopv[nlv + len++] = u;
        u = next[u];
      } while (u >= 0 && u != start && len <= nb);
      ok = u == start && len == nb;
    }
    if (ok) {
      loops[nl].first = nlv;
      loops[nl].len = len;
      nl++;
      nlv += len;
      continue;
    }
    for (int32_t t = g; t < nt; t++) { /* its triangles, each a face */
      if (uf_find(par, t) != g) continue;
      loops[nl].first = nlv;
      loops[nl].len = 3;
      for (int e = 0; e < 3; e++) loopv[nlv++] = h->t[t].v[e];
      nl++;
    }
  }
  /* vertices on three faces or more are the hull's */
  for (int32_t f = 0; f < nl; f++)
    for (int32_t k = 0; k < loops[f].len; k++) nfaces[loopv[loops[f].first + k]]++;
  int32_t nv = 0;
  for (int32_t i = 0; i < n; i++)
    if (nfaces[i] >= 3) order[nv++] = i;
  if (nv > VS_HULL_MAX_VERTS) {
    vs_hull_fail(why, nwhy,
                 "the convex hull has %d vertices, more than %d (the documented limit): give "
                 "fewer points",
                 (int)nv, VS_HULL_MAX_VERTS);
    st = VS_ERR_LIMIT;
    goto out;
  }
  for (int32_t i = 1; i < nv; i++) /* insertion sorts: at most 256 vertices, 508 faces */
    for (int32_t j = i; j > 0 && cmp_vertex(p, order[j - 1], order[j]) > 0; j--) {
      int32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int32_t i = 0; i < n; i++) newid[i] = -1;
  for (int32_t i = 0; i < nv; i++) newid[order[i]] = i;
  /* loops in new ids, without dropped vertices, from their lowest vertex */
  int32_t w = 0, nf = 0;
  for (int32_t f = 0; f < nl; f++) {
    int32_t first = w, lowk = 0;
    for (int32_t k = 0; k < loops[f].len; k++) {
      int32_t id = newid[loopv[loops[f].first + k]];
      if (id >= 0) loopv[w++] = id;
    }
    int32_t len = w - first;
    if (len < 3) {
      w = first;
      continue;
    }
    for (int32_t k = 1; k < len; k++)
      if (loopv[first + k] < loopv[first + lowk]) lowk = k;
    int32_t tmp[VS_HULL_MAX_VERTS];
    for (int32_t k = 0; k < len; k++) tmp[k] = loopv[first + (lowk + k) % len];
    memcpy(loopv + first, tmp, (size_t)len * sizeof *tmp);
    loops[nf].first = first;
    loops[nf].len = len;
    nf++;
  }
  for (int32_t i = 1; i < nf; i++)
    for (int32_t j = i; j > 0 && cmp_face(loopv, &loops[j - 1], &loops[j]) > 0; j--) {
      floop t = loops[j];
      loops[j] = loops[j - 1];
      loops[j - 1] = t;
    }
  /* the hull's arrays, in the input frame for now */
  out->nv = nv;
  out->nf = nf;
  out->v = vs_malloc(3 * (size_t)nv * sizeof *out->v);
  out->plane = vs_malloc(4 * (size_t)nf * sizeof *out->plane);
  out->fstart = vs_malloc(((size_t)nf + 1) * sizeof *out->fstart);
  out->fvert = vs_malloc((size_t)w * sizeof *out->fvert + 1);
  ekeys = vs_malloc((size_t)w * sizeof *ekeys + 1);
  if (!out->v || !out->plane || !out->fstart || !out->fvert || !ekeys) goto out;
  for (int32_t i = 0; i < nv; i++) memcpy(out->v + 3 * i, p + 3 * order[i], 3 * sizeof(double));
  int32_t k = 0;
  for (int32_t f = 0; f < nf; f++) {
    out->fstart[f] = k;
    for (int32_t j = 0; j < loops[f].len; j++) out->fvert[k++] = loopv[loops[f].first + j];
  }
  out->fstart[nf] = k;
  double vol, cen[3], cov[9];
  mass_props(out->v, nv, out->fstart, out->fvert, nf, &vol, cen, cov);
  double ext = h->ext;
  if (!(vol > 1e-12 * ext * ext * ext)) {
    vs_hull_fail(why, nwhy, "the points' hull has no volume (they are nearly in one plane)");
    st = VS_ERR_SCENE;
    goto out;
  }
  /* inertia per unit mass: (tr(C) 1 - C) / V, the diagonal as the sum of
   * the other two moments (as a box's closed form adds them) */
  double J[9], E[9], ev[3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      J[3 * i + j] =
          i == j ? (cov[4 * ((i + 1) % 3)] + cov[4 * ((i + 2) % 3)]) / vol : -cov[3 * i + j] / vol;
  jacobi3(J, E, ev);
  out->volume = vol;
  memcpy(out->inertia, ev, sizeof ev);
  memcpy(out->centroid, cen, sizeof cen);
  vs_quat_from_mat(E, out->rot);
  out->radius = 0;
  for (int q = 0; q < 3; q++) out->half[q] = 0;
  for (int32_t i = 0; i < nv; i++) { /* body frame: E^T (v - c) */
    double d[3], b[3];
    vs_sub3(out->v + 3 * i, cen, d);
    vs_mat3_mul_t(E, d, b);
    memcpy(out->v + 3 * i, b, sizeof b);
    for (int q = 0; q < 3; q++) out->half[q] = fmax(out->half[q], fabs(b[q]));
    out->radius = fmax(out->radius, vs_len3(b));
  }
  for (int32_t f = 0; f < nf; f++) { /* Newell's normal, the farthest vertex's offset */
    double nn[3] = {0, 0, 0};
    int32_t a = out->fstart[f], len = out->fstart[f + 1] - a;
    for (int32_t j = 0; j < len; j++) {
      const double *u = out->v + 3 * out->fvert[a + j],
                   *x = out->v + 3 * out->fvert[a + (j + 1) % len];
      nn[0] += (u[1] - x[1]) * (u[2] + x[2]);
      nn[1] += (u[2] - x[2]) * (u[0] + x[0]);
      nn[2] += (u[0] - x[0]) * (u[1] + x[1]);
    }
    double l = vs_len3(nn);
    for (int q = 0; q < 3; q++) nn[q] /= l;
    double d = -INFINITY;
    for (int32_t j = 0; j < len; j++) d = fmax(d, vs_dot3(nn, out->v + 3 * out->fvert[a + j]));
    memcpy(out->plane + 4 * f, nn, sizeof nn);
    out->plane[4 * f + 3] = d;
  }
  /* edges: a < b, sorted; the faces either side */
  int32_t ne = 0;
  for (int32_t f = 0; f < nf; f++) {
    int32_t a = out->fstart[f], len = out->fstart[f + 1] - a;
    for (int32_t j = 0; j < len; j++) {
      int32_t u = out->fvert[a + j], x = out->fvert[a + (j + 1) % len];
      if (u < x) ekeys[ne++] = ((int64_t)u * nv + x) * nf + f;
    }
  }
  qsort(ekeys, (size_t)ne, sizeof *ekeys, cmp_i64);
  out->ne = ne;
  out->edge = vs_malloc(4 * (size_t)ne * sizeof *out->edge + 1);
  if (!out->edge) goto out;
  for (int32_t e = 0; e < ne; e++) {
    int64_t key = ekeys[e];
    int32_t f = (int32_t)(key % nf), uv = (int32_t)(key / nf);
    out->edge[4 * e] = uv / nv;
    out->edge[4 * e + 1] = uv % nv;
    out->edge[4 * e + 2] = f;
    out->edge[4 * e + 3] = -1;
  }
  for (int32_t f = 0; f < nf; f++) { /* the face that runs b -> a */
    int32_t a = out->fstart[f], len = out->fstart[f + 1] - a;
    for (int32_t j = 0; j < len; j++) {
      int32_t u = out->fvert[a + j], x = out->fvert[a + (j + 1) % len];
      if (u < x) continue;
      for (int32_t e = 0; e < ne; e++)
        if (out->edge[4 * e] == x && out->edge[4 * e + 1] == u) out->edge[4 * e + 3] = f;
    }
  }
  st = VS_OK;
  for (int32_t e = 0; e < ne; e++)
    if (out->edge[4 * e + 3] < 0) st = VS_ERR_SCENE;
  /* every point inside (to 100 eps: the points skipped or dropped as
   * near-coplanar are within a few eps of it) */
  for (int32_t i = 0; i < n && st == VS_OK; i++) {
    double d[3], b[3];
    vs_sub3(p + 3 * i, cen, d);
    vs_mat3_mul_t(E, d, b);
    for (int32_t f = 0; f < nf; f++)
      if (vs_dot3(out->plane + 4 * f, b) - out->plane[4 * f + 3] > 100 * h->eps) st = VS_ERR_SCENE;
  }
  if (st != VS_OK || nv - ne + nf != 2) {
    vs_hull_fail(why, nwhy,
                 "the points' hull came out open (a numerical failure): move points that are "
                 "nearly coplanar or nearly equal apart");
    st = VS_ERR_SCENE;
  }
out:
  if (st == VS_ERR_NOMEM) vs_hull_fail(why, nwhy, "out of memory");
  if (st != VS_OK) vs_hull_free(out);
  vs_free(de);
  vs_free(par);
  vs_free(next);
  vs_free(nfaces);
  vs_free(newid);
  vs_free(loopv);
  vs_free(loops);
  vs_free(order);
  vs_free(ekeys);
  return st;
}

/* Closest point to p on triangle (a, b, c) (Ericson, 5.1.5). */
static void closest_tri(const double *a, const double *b, const double *c, const double *p,
                        double *o) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  vs_sub3(b, a, ab);
  vs_sub3(c, a, ac);
  vs_sub3(p, a, ap);
  double d1 = vs_dot3(ab, ap), d2 = vs_dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    memcpy(o, a, 3 * sizeof(double));
    return;
  }
  vs_sub3(p, b, bp);
  double d3 = vs_dot3(ab, bp), d4 = vs_dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    memcpy(o, b, 3 * sizeof(double));
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double v = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) o[k] = a[k] + v * ab[k];
    return;
  }
  vs_sub3(p, c, cp);
  double d5 = vs_dot3(ab, cp), d6 = vs_dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    memcpy(o, c, 3 * sizeof(double));
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double wv = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) o[k] = a[k] + wv * ac[k];
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double wv = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) o[k] = b[k] + wv * (c[k] - b[k]);
    return;
  }
  double den = 1.0 / (va + vb + vc), v = vb * den, wv = vc * den;
  for (int k = 0; k < 3; k++) o[k] = a[k] + ab[k] * v + ac[k] * wv;
}

double vs_hull_distance(const vs_hull *h, const double p[3], double q[3], double n[3]) {
  int32_t bf = 0;
  double bs = -INFINITY;
  for (int32_t f = 0; f < h->nf; f++) {
    double s = vs_dot3(h->plane + 4 * f, p) - h->plane[4 * f + 3];
    if (s > bs) bs = s, bf = f;
  }
  if (bs <= 0) { /* inside: the nearest face plane */
    memcpy(n, h->plane + 4 * bf, 3 * sizeof(double));
    for (int k = 0; k < 3; k++) q[k] = p[k] - bs * n[k];
    return bs;
  }
  /* outside: the nearest point over the faces that face p */
  double best = INFINITY;
  for (int32_t f = 0; f < h->nf; f++) {
    if (vs_dot3(h->plane + 4 * f, p) - h->plane[4 * f + 3] <= 0) continue;
    int32_t a = h->fstart[f], len = h->fstart[f + 1] - a;
    const double *A = h->v + 3 * h->fvert[a];
    for (int32_t j = 1; j + 1 < len; j++) {
      double c[3], d[3];
      closest_tri(A, h->v + 3 * h->fvert[a + j], h->v + 3 * h->fvert[a + j + 1], p, c);
      vs_sub3(p, c, d);
      double dd = vs_dot3(d, d);
      if (dd < best) best = dd, memcpy(q, c, sizeof c);
    }
  }
  double dist = sqrt(best), d[3];
  vs_sub3(p, q, d);
  if (dist > 0)
    for (int k = 0; k < 3; k++) n[k] = d[k] / dist;
  else
    memcpy(n, h->plane + 4 * bf, 3 * sizeof(double));
  return dist;
}
