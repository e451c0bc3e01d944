/* SPDX-License-Identifier: MIT */
/* h5surface.c: the rigid bodies' surface meshes (h5surface.h). */
#include <math.h>
#include <string.h>

#include "io/h5surface.h"
#include "model/model_private.h"
#include "model/rigid_model.h"
#include "util/detmath.h"
#include "vsim/scene.h"

#define CAP_AROUND 12 /* vertices around a capsule ring */
#define CAP_RINGS 3   /* rings per hemisphere, the last at the cap centre */

void h5s_shape_counts(int shape, int *nv, int *nt) {
  *nv = *nt = 0;
  switch ((vs_rigid_shape)shape) {
  case VS_RIGID_BOX: *nv = 8, *nt = 12; break;
  case VS_RIGID_SPHERE: *nv = 42, *nt = 80; break;
  case VS_RIGID_CAPSULE:
    *nv = 2 + 2 * CAP_RINGS * CAP_AROUND;
    *nt = 2 * CAP_AROUND + 2 * (2 * CAP_RINGS - 1) * CAP_AROUND;
    break;
  case VS_RIGID_CONVEX: break; /* its hull's (h5s_body_counts) */
  }
}

/* The model's hull of rigid body b; NULL unless it is convex. */
static const vs_hull *hull_of(const vs_model *m, int32_t b) {
  const vs_rmodel *rm = m->priv ? m->priv->rigid : NULL;
  return rm && b < rm->n_bodies ? vs_rmodel_hull(rm, b) : NULL;
}

void h5s_body_counts(const vs_model *m, int32_t b, int *nv, int *nt) {
  const vs_hull *h = m->rigid_shape[b] == VS_RIGID_CONVEX ? hull_of(m, b) : NULL;
  if (!h) {
    h5s_shape_counts(m->rigid_shape[b], nv, nt);
    return;
  }
  *nv = h->nv;
  *nt = h->fstart[h->nf] - 2 * h->nf; /* each face fanned from its first vertex */
}

void h5s_body_mesh(const vs_model *m, int32_t b, double *local, int32_t *tri) {
  const vs_hull *h = m->rigid_shape[b] == VS_RIGID_CONVEX ? hull_of(m, b) : NULL;
  if (!h) {
    h5s_shape_mesh(m->rigid_shape[b], m->rigid_size + 3 * (size_t)b, local, tri);
    return;
  }
  if (local) memcpy(local, h->v, 3 * (size_t)h->nv * sizeof *local);
  int n = 0;
  for (int32_t f = 0; tri && f < h->nf; f++)
    for (int32_t k = h->fstart[f] + 1; k + 1 < h->fstart[f + 1]; k++) {
      tri[3 * n] = h->fvert[h->fstart[f]];
      tri[3 * n + 1] = h->fvert[k];
      tri[3 * n + 2] = h->fvert[k + 1];
      n++;
    }
}

void h5s_model_counts(const vs_model *m, size_t *nv, size_t *nt) {
  *nv = *nt = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    int v, t;
    h5s_body_counts(m, b, &v, &t);
    *nv += (size_t)v;
    *nt += (size_t)t;
  }
}

static void put_tri(int32_t *tri, int *n, int a, int b, int c) {
  if (tri) {
    tri[3 * *n] = a;
    tri[3 * *n + 1] = b;
    tri[3 * *n + 2] = c;
  }
  (*n)++;
}

/* Faces of a box, each as two triangles counter-clockwise from outside. */
static void box_mesh(const double size[3], double *local, int32_t *tri) {
  if (local)
    for (int i = 0; i < 8; i++)
      for (int c = 0; c < 3; c++) local[3 * i + c] = (i >> c & 1 ? 0.5 : -0.5) * size[c];
  /* -x, +x, -y, +y, -z, +z: corners in order around the outward normal */
  static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                  {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  int n = 0;
  for (int f = 0; f < 6; f++) {
    put_tri(tri, &n, faces[f][0], faces[f][1], faces[f][2]);
    put_tri(tri, &n, faces[f][0], faces[f][2], faces[f][3]);
  }
}

static void normalize3(double *v) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int c = 0; c < 3; c++) v[c] /= l;
}

/* An icosahedron, each face split in four, the new vertices pushed onto
 * the unit sphere; scaled by r.  Vertex 4k + i (k = 0, 1, 2; i = 0..3) is
 * the k-th cyclic permutation of (0, +-1, +-phi) (bit 0 of i: -1, bit 1:
 * -phi); the faces are the triples at edge length 2 from each other, in
 * index order, turned outward (counter-clockwise from outside). */
static void sphere_mesh(double r, double *local, int32_t *tri) {
  static const int face[20][3] = {
      {0, 1, 8},  {0, 10, 1}, {0, 4, 5},  {0, 8, 4},  {0, 5, 10}, {1, 7, 6},  {1, 6, 8},
      {1, 10, 7}, {2, 9, 3},  {2, 3, 11}, {2, 5, 4},  {2, 4, 9},  {2, 11, 5}, {3, 6, 7},
      {3, 9, 6},  {3, 7, 11}, {4, 8, 9},  {5, 11, 10}, {6, 9, 8}, {7, 10, 11}};
  const int nf = 20;
  const double p = (1 + sqrt(5.0)) / 2;
  double v[42][3];
  for (int i = 0; i < 4; i++) {
    double a = i & 1 ? -1 : 1, b = i & 2 ? -p : p;
    double base[3][3] = {{0, a, b}, {a, b, 0}, {b, 0, a}};
    for (int k = 0; k < 3; k++) memcpy(v[4 * k + i], base[k], sizeof base[k]);
  }
  for (int i = 0; i < 12; i++) normalize3(v[i]);
  signed char mid[12][12];
  memset(mid, -1, sizeof mid);
  int nv = 12, n = 0;
  for (int f = 0; f < nf; f++) {
    int m[3];
    for (int e = 0; e < 3; e++) {
      int a = face[f][e], b = face[f][(e + 1) % 3];
      if (mid[a][b] < 0) {
        for (int c = 0; c < 3; c++) v[nv][c] = v[a][c] + v[b][c];
        normalize3(v[nv]);
        mid[a][b] = mid[b][a] = (signed char)nv++;
      }
      m[e] = mid[a][b];
    }
    put_tri(tri, &n, face[f][0], m[0], m[2]);
    put_tri(tri, &n, face[f][1], m[1], m[0]);
    put_tri(tri, &n, face[f][2], m[2], m[1]);
    put_tri(tri, &n, m[0], m[1], m[2]);
  }
  if (local)
    for (int i = 0; i < 42; i++)
      for (int c = 0; c < 3; c++) local[3 * i + c] = r * v[i][c];
}

/* Capsule of radius r, cap centres at y = +-hl: vertex 0 the top pole,
 * then the rings from top to bottom, the last vertex the bottom pole. */
static void capsule_mesh(double r, double hl, double *local, int32_t *tri) {
  const int R = 2 * CAP_RINGS, A = CAP_AROUND, bottom = 1 + R * A;
  if (local) {
    local[0] = 0, local[1] = hl + r, local[2] = 0;
    for (int ring = 0; ring < R; ring++) {
      int top = ring < CAP_RINGS;
      int k = top ? ring + 1 : R - ring; /* 1..CAP_RINGS from the pole */
      /* angles in degrees: exact at the cap centre (k == CAP_RINGS: s = r,
       * h = 0) and at the quarter turns, the same bits on every machine */
      double sth, cth;
      vs_sincos_deg(90.0 * k / CAP_RINGS, &sth, &cth);
      double s = r * sth, h = r * cth;
      for (int j = 0; j < A; j++) {
        double sph, cph;
        vs_sincos_deg(360.0 * j / A, &sph, &cph);
        double *o = local + 3 * (1 + ring * A + j);
        o[0] = s * cph;
        o[1] = top ? hl + h : -hl - h;
        o[2] = s * sph;
      }
    }
    local[3 * bottom] = 0, local[3 * bottom + 1] = -hl - r, local[3 * bottom + 2] = 0;
  }
  int n = 0;
  for (int j = 0; j < A; j++) put_tri(tri, &n, 0, 1 + (j + 1) % A, 1 + j);
  for (int ring = 0; ring + 1 < R; ring++)
    for (int j = 0; j < A; j++) {
      int a = 1 + ring * A + j, b = 1 + ring * A + (j + 1) % A;
      int c = a + A, d = b + A;
      put_tri(tri, &n, a, b, c);
      put_tri(tri, &n, b, d, c);
    }
  for (int j = 0; j < A; j++) {
    int base = 1 + (R - 1) * A;
    put_tri(tri, &n, base + j, base + (j + 1) % A, bottom);
  }
}

void h5s_shape_mesh(int shape, const double size[3], double *local, int32_t *tri) {
  switch ((vs_rigid_shape)shape) {
  case VS_RIGID_BOX: box_mesh(size, local, tri); break;
  case VS_RIGID_SPHERE: sphere_mesh(size[0], local, tri); break;
  case VS_RIGID_CAPSULE: capsule_mesh(size[0], 0.5 * size[1], local, tri); break;
  case VS_RIGID_CONVEX: break; /* its hull's (h5s_body_mesh) */
  }
}

/* p + R(q) l for the unit quaternion q = (w, x, y, z) */
static void place(const double *p, const double *q, const double *l, double *o) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int c = 0; c < 3; c++) o[c] = p[c] + (r[c][0] * l[0] + r[c][1] * l[1] + r[c][2] * l[2]);
}

void h5s_world(const vs_model *m, const double *rx, const double *rq, double *out_f64,
               float *out_f32) {
  size_t v = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    double local[3 * H5S_MAX_VERTS], o[3];
    int nv, nt;
    h5s_body_counts(m, b, &nv, &nt);
    h5s_body_mesh(m, b, local, NULL);
    for (int i = 0; i < nv; i++, v++) {
      place(rx + 3 * (size_t)b, rq + 4 * (size_t)b, local + 3 * i, o);
      for (int c = 0; c < 3; c++) {
        if (out_f64) out_f64[3 * v + c] = o[c];
        if (out_f32) out_f32[3 * v + c] = (float)o[c];
      }
    }
  }
}
