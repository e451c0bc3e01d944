/* SPDX-License-Identifier: MIT */
/* render.c: one frame drawn with a z-buffer (see view/view.h).
 *
 * Every visible piece becomes a primitive in screen space with a depth at
 * each of its points: triangles, box faces, particle discs, shaded balls
 * (rigid and collider spheres), capsules, link lines, wireframe segments,
 * plane grid cells.  raster.c draws them with a depth test per sample, so
 * that the nearest surface shows at every point whatever the pieces' sizes:
 * a cloth lying on a table top or on a large mesh triangle shows over it
 * (configs/rigid_dice.yaml, configs/mesh_tube.yaml), a ball sunk halfway
 * into a floor shows its upper half.  Then the labels, with cairo. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/vec3.h"
#include "view/internal.h"

typedef struct cam {
  double r[3], u[3], f[3]; /* screen right, screen up, towards the viewer */
  double c[3];             /* world point at the image centre */
  double s;                /* px per world unit */
  double cx, cy;
  double light[3];         /* in camera coordinates (r, u, f) */
} cam;

typedef struct scene_buf {
  vs_view_prim *p;
  size_t n, cap;
  int oom;
} scene_buf;

/* ---- camera -------------------------------------------------------------- */

static int finite3(const double *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

static void normalize(double v[3]) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (l > 0)
    for (int c = 0; c < 3; c++) v[c] /= l;
}

/* From direction f (unit, towards the viewer): right = y x f, up = f x right;
 * from straight above or below, right = x (as the top view). */
static void cam_from(const double f[3], cam *k) {
  static const double y[3] = {0, 1, 0};
  memcpy(k->f, f, sizeof k->f);
  vs_cross3(y, f, k->r);
  if (vs_dot3(k->r, k->r) < 1e-12) memcpy(k->r, (double[3]){1, 0, 0}, sizeof k->r);
  normalize(k->r);
  vs_cross3(f, k->r, k->u);
  normalize(k->u);
}

static void cam_basis(const vs_view_options *o, cam *k) {
  static const double y[3] = {0, 1, 0};
  double e[3] = {o->eye[0], o->eye[1], o->eye[2]};
  if (finite3(e) && vs_dot3(e, e) > 0) {
    normalize(e);
    cam_from(e, k);
    return;
  }
  switch (o->view) {
    case VS_VIEW_FRONT:
      memcpy(k->r, (double[3]){1, 0, 0}, sizeof k->r);
      memcpy(k->u, y, sizeof k->u);
      memcpy(k->f, (double[3]){0, 0, 1}, sizeof k->f);
      break;
    case VS_VIEW_SIDE:
      memcpy(k->r, (double[3]){0, 0, -1}, sizeof k->r);
      memcpy(k->u, y, sizeof k->u);
      memcpy(k->f, (double[3]){1, 0, 0}, sizeof k->f);
      break;
    case VS_VIEW_TOP:
      memcpy(k->r, (double[3]){1, 0, 0}, sizeof k->r);
      memcpy(k->u, (double[3]){0, 0, -1}, sizeof k->u);
      memcpy(k->f, y, sizeof k->f);
      break;
    case VS_VIEW_ISO:
    default: { /* iso */
      double f[3] = {1, 1, 1};
      normalize(f);
      cam_from(f, k);
    }
  }
}

static void cam_fit(const vs_view_options *o, cam *k) {
  cam_basis(o, k);
  double lo[3], hi[3];
  for (int c = 0; c < 3; c++) {
    lo[c] = isfinite(o->lo[c]) ? o->lo[c] : -1;
    hi[c] = isfinite(o->hi[c]) ? o->hi[c] : 1;
    if (hi[c] < lo[c]) lo[c] = hi[c] = 0.5 * (lo[c] + hi[c]);
    k->c[c] = 0.5 * (lo[c] + hi[c]);
  }
  if (o->has_center && finite3(o->center)) memcpy(k->c, o->center, sizeof k->c);
  /* extents of the 8 corners on screen (symmetric about the centre) */
  double ex = 0, ey = 0;
  for (int i = 0; i < 8; i++) {
    double p[3] = {(i & 1 ? hi[0] : lo[0]) - k->c[0], (i & 2 ? hi[1] : lo[1]) - k->c[1],
                   (i & 4 ? hi[2] : lo[2]) - k->c[2]};
    ex = fmax(ex, fabs(vs_dot3(p, k->r)));
    ey = fmax(ey, fabs(vs_dot3(p, k->u)));
  }
  double m = o->margin < 0 ? 0.05 : o->margin;
  if (m > 0.45) m = 0.45;
  double aw = o->width * (1 - 2 * m) * 0.5, ah = o->height * (1 - 2 * m) * 0.5;
  double sx = ex > 0 ? aw / ex : INFINITY, sy = ey > 0 ? ah / ey : INFINITY;
  k->s = fmin(sx, sy);
  if (!isfinite(k->s)) k->s = fmin(aw, ah); /* a single point: 1 unit = half the image */
  if (isfinite(o->zoom) && o->zoom > 0) k->s *= o->zoom;
  k->cx = 0.5 * o->width;
  k->cy = 0.5 * o->height;
  double l[3] = {-0.45, 0.75, 0.5}; /* upper left, in front */
  normalize(l);
  memcpy(k->light, l, sizeof l);
}

static void proj(const cam *k, const double p[3], double *x, double *y, double *d) {
  double q[3] = {p[0] - k->c[0], p[1] - k->c[1], p[2] - k->c[2]};
  *x = k->cx + k->s * vs_dot3(q, k->r);
  *y = k->cy - k->s * vs_dot3(q, k->u);
  *d = vs_dot3(q, k->f);
}

void vs_view_options_init(vs_view_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 800;
  o->height = 600;
  o->view = VS_VIEW_ISO;
  o->color = VS_VIEW_COLOR_BODY;
  o->margin = 0.05;
  o->time_label = 1;
  for (int c = 0; c < 3; c++) {
    o->lo[c] = -1;
    o->hi[c] = 1;
  }
}

void vs_view_project(const vs_view_options *o, const double p[3], double *sx, double *sy,
                     double *depth) {
  cam k;
  cam_fit(o, &k);
  proj(&k, p, sx, sy, depth);
}

double vs_view_scale(const vs_view_options *o) {
  cam k;
  cam_fit(o, &k);
  return k.s;
}

/* ---- primitives ---------------------------------------------------------- */

static vs_view_prim *push(scene_buf *b) {
  if (b->oom) return NULL;
  if (b->n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 1024;
    vs_view_prim *np = vs_realloc(b->p, nc * sizeof *np);
    if (!np) {
      b->oom = 1;
      return NULL;
    }
    b->p = np;
    b->cap = nc;
  }
  vs_view_prim *p = &b->p[b->n++];
  memset(p, 0, sizeof *p);
  return p;
}

static void set_rgb(vs_view_prim *p, const double c[3], double shade) {
  for (int i = 0; i < 3; i++) {
    double v = c[i] * shade;
    p->rgb[i] = (float)(v > 1 ? 1 : v);
  }
}

/* Flat shade of a face with world normal n (either side). */
static double face_shade(const cam *k, const double n[3]) {
  double nn[3] = {vs_dot3(n, k->r), vs_dot3(n, k->u), vs_dot3(n, k->f)};
  normalize(nn);
  return 0.42 + 0.58 * fabs(vs_dot3(nn, k->light));
}


/* A filled polygon of 3 or 4 world points (planar), flat-shaded. */
static void add_poly(scene_buf *b, const cam *k, const double *const *w, int np,
                     const double base[3]) {
  double x[4], y[4], d[4];
  for (int i = 0; i < np; i++) {
    if (!finite3(w[i])) return;
    proj(k, w[i], &x[i], &y[i], &d[i]);
  }
  double e1[3] = {w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]};
  double e2[3] = {w[2][0] - w[0][0], w[2][1] - w[0][1], w[2][2] - w[0][2]}, n[3];
  vs_cross3(e1, e2, n);
  vs_view_prim *p = push(b);
  if (!p) return;
  p->kind = P_POLY;
  p->np = (uint8_t)np;
  for (int i = 0; i < np; i++) {
    p->x[i] = (float)x[i];
    p->y[i] = (float)y[i];
    p->d[i] = (float)d[i];
  }
  set_rgb(p, base, face_shade(k, n));
}

static void add_line(scene_buf *b, const cam *k, const double a[3], const double c[3],
                     double width, const double rgb[3]) {
  if (!finite3(a) || !finite3(c)) return;
  double xa, ya, da, xc, yc, dc;
  proj(k, a, &xa, &ya, &da);
  proj(k, c, &xc, &yc, &dc);
  vs_view_prim *p = push(b);
  if (!p) return;
  p->kind = P_LINE;
  p->np = 2;
  p->x[0] = (float)xa, p->y[0] = (float)ya, p->x[1] = (float)xc, p->y[1] = (float)yc;
  p->d[0] = (float)da, p->d[1] = (float)dc;
  p->r = (float)(0.5 * width);
  set_rgb(p, rgb, 1);
}


static void add_round(scene_buf *b, const cam *k, int kind, const double c[3], double r,
                      const double rgb[3]) {
  if (!finite3(c)) return;
  double x, y, d;
  proj(k, c, &x, &y, &d);
  vs_view_prim *p = push(b);
  if (!p) return;
  p->kind = (uint8_t)kind;
  p->np = 1;
  p->x[0] = (float)x, p->y[0] = (float)y, p->d[0] = (float)d;
  double rp = r * k->s;
  p->r = (float)(rp > 0.5 ? rp : 0.5); /* at least 1 px across */
  set_rgb(p, rgb, 1);
}

/* q = [w, x, y, z] applied to v; all-zero quaternion = identity. */
static void qrot(const double q[4], const double v[3], double o[3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3], n = w * w + x * x + y * y + z * z;
  if (!(n > 0)) {
    memcpy(o, v, 3 * sizeof *v);
    return;
  }
  double s = 2 / n;
  double m[3][3] = {{1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)},
                    {s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)},
                    {s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)}};
  for (int i = 0; i < 3; i++) o[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

/* A box: its faces turned to the viewer (the others are hidden behind them). */
static void add_box(scene_buf *b, const cam *k, const double c[3], const double q[4],
                    const double h[3], const double rgb[3]) {
  static const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                  {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  static const double fn[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                  {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
  double v[8][3];
  for (int i = 0; i < 8; i++) {
    double l[3] = {i & 1 ? h[0] : -h[0], i & 2 ? h[1] : -h[1], i & 4 ? h[2] : -h[2]}, w[3];
    qrot(q, l, w);
    for (int j = 0; j < 3; j++) v[i][j] = c[j] + w[j];
  }
  for (int f = 0; f < 6; f++) {
    double n[3];
    qrot(q, fn[f], n);
    if (vs_dot3(n, k->f) <= 0) continue;
    const double *w[4] = {v[faces[f][0]], v[faces[f][1]], v[faces[f][2]], v[faces[f][3]]};
    add_poly(b, k, w, 4, rgb);
  }
}

/* A convex hull: its triangles turned to the viewer. */
static void add_hull(scene_buf *b, const cam *k, const vs_view_shape *s, const double rgb[3]) {
  for (int32_t t = 0; t < s->hull_nt; t++) {
    double v[3][3];
    for (int j = 0; j < 3; j++) {
      double w[3];
      qrot(s->quat, s->hull_v + 3 * s->hull_tri[3 * t + j], w);
      for (int c = 0; c < 3; c++) v[j][c] = s->center[c] + w[c];
    }
    double e1[3], e2[3], n[3];
    vs_sub3(v[1], v[0], e1);
    vs_sub3(v[2], v[0], e2);
    vs_cross3(e1, e2, n);
    if (vs_dot3(n, k->f) <= 0) continue;
    const double *w[3] = {v[0], v[1], v[2]};
    add_poly(b, k, w, 3, rgb);
  }
}

static void add_capsule(scene_buf *b, const cam *k, const vs_view_shape *s, const double rgb[3]) {
  double ax[3], l[3] = {0, s->half_length, 0};
  qrot(s->quat, l, ax);
  double a[3], c[3], xa, ya, da, xc, yc, dc;
  for (int j = 0; j < 3; j++) {
    a[j] = s->center[j] + ax[j];
    c[j] = s->center[j] - ax[j];
  }
  if (!finite3(a) || !finite3(c)) return;
  proj(k, a, &xa, &ya, &da);
  proj(k, c, &xc, &yc, &dc);
  vs_view_prim *p = push(b);
  if (!p) return;
  p->kind = P_CAPSULE;
  p->np = 2;
  p->x[0] = (float)xa, p->y[0] = (float)ya, p->x[1] = (float)xc, p->y[1] = (float)yc;
  p->d[0] = (float)da, p->d[1] = (float)dc;
  p->r = (float)fmax(s->radius * k->s, 0.5);
  set_rgb(p, rgb, 1);
}

/* A plane as a finite grid of 12 x 12 cells centred on the point of the plane
 * nearest the image centre, 1.5 times the bounds' largest extent across
 * (divided by a zoom under 1). */
static void add_plane(scene_buf *b, const cam *k, const vs_view_options *o,
                      const vs_view_collider *pl) {
  double n[3] = {pl->normal[0], pl->normal[1], pl->normal[2]};
  normalize(n);
  if (!finite3(n) || vs_dot3(n, n) == 0 || !finite3(pl->point)) return;
  double a[3] = {1, 0, 0}, t1[3], t2[3];
  if (fabs(n[0]) > 0.9) a[0] = 0, a[1] = 1;
  vs_cross3(n, a, t1);
  normalize(t1);
  vs_cross3(n, t1, t2);
  double q[3] = {k->c[0] - pl->point[0], k->c[1] - pl->point[1], k->c[2] - pl->point[2]};
  double dn = vs_dot3(q, n), o0[3];
  for (int j = 0; j < 3; j++) o0[j] = k->c[j] - dn * n[j];
  double ext = 0;
  for (int c = 0; c < 3; c++) ext = fmax(ext, fabs(o->hi[c] - o->lo[c]));
  if (!(ext > 0) || !isfinite(ext)) ext = 2;
  if (isfinite(o->zoom) && o->zoom > 0 && o->zoom < 1) ext /= o->zoom; /* zoomed out: wider */
  double half = 0.75 * ext, cell = 2 * half / 12;
  static const double fill[3] = {0.86, 0.88, 0.91};
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 12; j++) {
      double w[4][3];
      for (int v = 0; v < 4; v++) {
        double u0 = -half + (i + (v == 1 || v == 2)) * cell;
        double v0 = -half + (j + (v >= 2)) * cell;
        for (int c = 0; c < 3; c++) w[v][c] = o0[c] + u0 * t1[c] + v0 * t2[c];
      }
      const double *wp[4] = {w[0], w[1], w[2], w[3]};
      size_t before = b->n;
      add_poly(b, k, wp, 4, fill);
      if (b->n > before) { /* unshaded: a floor looks the same from every view */
        b->p[before].kind = P_GRID;
        set_rgb(&b->p[before], fill, 1);
      }
    }
}

static void add_colliders(scene_buf *b, const cam *k, const vs_view_options *o,
                          const vs_view_frame *f) {
  static const double solid[3] = {0.70, 0.68, 0.64}, wire[3] = {0.35, 0.35, 0.40};
  static const double ident[4] = {1, 0, 0, 0};
  for (size_t i = 0; i < f->n_colliders; i++) {
    const vs_view_collider *c = &f->colliders[i];
    switch (c->kind) {
      case VS_VIEW_COLL_PLANE: add_plane(b, k, o, c); break;
      case VS_VIEW_COLL_SPHERE: add_round(b, k, P_BALL, c->center, c->radius, solid); break;
      case VS_VIEW_COLL_BOX: {
        double ctr[3], h[3];
        for (int j = 0; j < 3; j++) {
          ctr[j] = 0.5 * (c->lo[j] + c->hi[j]);
          h[j] = 0.5 * (c->hi[j] - c->lo[j]);
        }
        add_box(b, k, ctr, ident, h, solid);
        break;
      }
      case VS_VIEW_COLL_BOUNDS:
        for (int e = 0; e < 12; e++) { /* edge e: along axis e/4 from corner bits */
          int ax = e / 4, o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
          double p0[3], p1[3];
          p0[ax] = c->lo[ax], p1[ax] = c->hi[ax];
          p0[o1] = p1[o1] = (e & 1) ? c->hi[o1] : c->lo[o1];
          p0[o2] = p1[o2] = (e & 2) ? c->hi[o2] : c->lo[o2];
          add_line(b, k, p0, p1, 1.0, wire);
        }
        break;
      case VS_VIEW_COLL_MESH:
        for (size_t t = 0; t < c->n_tris; t++) {
          const int32_t *tr = c->tris + 3 * t;
          if (tr[0] < 0 || tr[1] < 0 || tr[2] < 0 || (size_t)tr[0] >= c->n_vertices ||
              (size_t)tr[1] >= c->n_vertices || (size_t)tr[2] >= c->n_vertices)
            continue;
          const double *w[3] = {c->vertices + 3 * tr[0], c->vertices + 3 * tr[1],
                                c->vertices + 3 * tr[2]};
          add_poly(b, k, w, 3, solid);
        }
        break;
    }
  }
}

/* ---- a frame's geometry -------------------------------------------------- */

typedef struct painter {
  const vs_view_options *o;
  const vs_view_frame *f;
  double lo, hi; /* scalar range */
  int grey;
} painter;

static void colour_of(const painter *pt, int32_t body, double scalar, double rgb[3]) {
  if (pt->grey)
    memcpy(rgb, vs_view_grey, sizeof vs_view_grey);
  else if (pt->o->color == VS_VIEW_COLOR_SCALAR)
    vs_view_colormap((scalar - pt->lo) / (pt->hi - pt->lo), rgb);
  else
    vs_view_palette(body, rgb);
}

static void particle_colour(const painter *pt, int32_t i, double rgb[3]) {
  const vs_view_frame *f = pt->f;
  colour_of(pt, f->body ? f->body[i] : 0, f->scalar ? f->scalar[i] : 0, rgb);
}

static double radius_of(const vs_view_frame *f, int32_t i) {
  double r = f->radius ? f->radius[i] : f->radius_default;
  return isfinite(r) && r > 0 ? r : 0;
}

static int add_frame(scene_buf *b, const cam *k, const painter *pt) {
  const vs_view_frame *f = pt->f;
  uint8_t *in_tri = NULL;
  if (f->n_tris && !pt->o->show_surface_parts) {
    in_tri = vs_calloc(f->n_particles ? f->n_particles : 1, 1);
    if (!in_tri) return -1;
    for (size_t t = 0; t < f->n_tris; t++)
      if (!f->tri_alive || f->tri_alive[t])
        for (int j = 0; j < 3; j++) in_tri[f->tris[3 * t + j]] = 1;
  }
  double rgb[3];
  for (size_t t = 0; t < f->n_tris; t++) {
    if (f->tri_alive && !f->tri_alive[t]) continue;
    const int32_t *tr = f->tris + 3 * t;
    if (pt->o->color == VS_VIEW_COLOR_SCALAR && f->scalar && !pt->grey)
      colour_of(pt, 0, (f->scalar[tr[0]] + f->scalar[tr[1]] + f->scalar[tr[2]]) / 3, rgb);
    else
      particle_colour(pt, tr[0], rgb);
    const double *w[3] = {f->pos + 3 * tr[0], f->pos + 3 * tr[1], f->pos + 3 * tr[2]};
    add_poly(b, k, w, 3, rgb);
  }
  for (size_t l = 0; l < f->n_links; l++) {
    int32_t a = f->links[2 * l], c = f->links[2 * l + 1];
    if ((f->link_alive && !f->link_alive[l]) || (in_tri && in_tri[a] && in_tri[c])) continue;
    if (pt->o->color == VS_VIEW_COLOR_SCALAR && !pt->grey) {
      double v = f->link_scalar ? f->link_scalar[l]
                 : f->scalar    ? 0.5 * (f->scalar[a] + f->scalar[c])
                                : 0;
      colour_of(pt, 0, v, rgb);
    } else {
      particle_colour(pt, a, rgb);
      for (int j = 0; j < 3; j++) rgb[j] *= 0.75;
    }
    double w = fmax(1.25, fmin(radius_of(f, a), radius_of(f, c)) * k->s);
    add_line(b, k, f->pos + 3 * a, f->pos + 3 * c, w, rgb);
  }
  for (size_t i = 0; i < f->n_particles; i++) {
    if (in_tri && in_tri[i]) continue;
    particle_colour(pt, (int32_t)i, rgb);
    add_round(b, k, P_DISC, f->pos + 3 * i, radius_of(f, (int32_t)i), rgb);
  }
  for (size_t i = 0; i < f->n_shapes; i++) {
    const vs_view_shape *s = &f->shapes[i];
    colour_of(pt, s->body, s->scalar, rgb);
    if (s->kind == VS_VIEW_BOX)
      add_box(b, k, s->center, s->quat, s->half, rgb);
    else if (s->kind == VS_VIEW_SPHERE)
      add_round(b, k, P_BALL, s->center, s->radius, rgb);
    else if (s->kind == VS_VIEW_HULL)
      add_hull(b, k, s, rgb);
    else
      add_capsule(b, k, s, rgb);
  }
  vs_free(in_tri);
  return b->oom ? -1 : 0;
}

/* ---- entry points -------------------------------------------------------- */

static vs_status check_frame(const vs_view_frame *f, const char *what, vs_error *err) {
  if (f->n_particles && !f->pos)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "%s: particles without positions", what);
  for (size_t i = 0; i < 2 * f->n_links; i++)
    if (f->links[i] < 0 || (size_t)f->links[i] >= f->n_particles)
      return vs_error_set(err, VS_ERR_FORMAT, NULL, 0, 0,
                          "%s: link %zu names particle %d of %zu", what, i / 2,
                          (int)f->links[i], f->n_particles);
  for (size_t i = 0; i < 3 * f->n_tris; i++)
    if (f->tris[i] < 0 || (size_t)f->tris[i] >= f->n_particles)
      return vs_error_set(err, VS_ERR_FORMAT, NULL, 0, 0,
                          "%s: triangle %zu names particle %d of %zu", what, i / 3,
                          (int)f->tris[i], f->n_particles);
  return VS_OK;
}

static void scalar_range(const vs_view_options *o, const vs_view_frame *f, double *lo,
                         double *hi) {
  *lo = o->scalar_min;
  *hi = o->scalar_max;
  if (*lo < *hi && isfinite(*lo) && isfinite(*hi)) return;
  double a = INFINITY, b = -INFINITY;
  for (size_t i = 0; f->scalar && i < f->n_particles; i++)
    if (isfinite(f->scalar[i])) a = fmin(a, f->scalar[i]), b = fmax(b, f->scalar[i]);
  for (size_t i = 0; f->link_scalar && i < f->n_links; i++)
    if (isfinite(f->link_scalar[i]))
      a = fmin(a, f->link_scalar[i]), b = fmax(b, f->link_scalar[i]);
  for (size_t i = 0; i < f->n_shapes; i++)
    if (isfinite(f->shapes[i].scalar))
      a = fmin(a, f->shapes[i].scalar), b = fmax(b, f->shapes[i].scalar);
  if (!(a <= b)) a = 0, b = 1;
  if (!(a < b)) b = a + 1;
  *lo = a;
  *hi = b;
}

/* The frame without its labels as an image; the colour range in *lo, *hi. */
static vs_status render(const vs_view_options *o, const vs_view_frame *frame,
                        const vs_view_frame *golden, cairo_surface_t **out, double *lo,
                        double *hi, vs_error *err) {
  *out = NULL;
  if (vs_view_cairo_load(err) != VS_OK) return err->code;
  if (!o || !frame)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "render: no options or no frame");
  if (o->width < 1 || o->height < 1 || o->width > 16384 || o->height > 16384)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "image size %dx%d out of range (1 to 16384 pixels each way)", o->width,
                        o->height);
  vs_status st = check_frame(frame, "frame", err);
  if (st == VS_OK && golden) st = check_frame(golden, "golden frame", err);
  if (st != VS_OK) return st;

  cam k;
  cam_fit(o, &k);
  painter pt = {.o = o, .f = frame};
  scalar_range(o, frame, &pt.lo, &pt.hi);
  painter pg = {.o = o, .f = golden, .lo = 0, .hi = 1, .grey = 1};
  scene_buf bufs[3] = {{0}}; /* colliders, golden run, frame */
  add_colliders(&bufs[0], &k, o, frame);
  int bad = golden ? add_frame(&bufs[1], &k, &pg) : 0;
  if (!bad) bad = add_frame(&bufs[2], &k, &pt);
  if (!bad)
    for (int i = 0; i < 3; i++) bad |= bufs[i].oom;
  if (bad) {
    st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "render: out of memory");
    goto done;
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->width, o->height);
  cairo_status_t cs = cairo_surface_status(s);
  if (cs == CAIRO_STATUS_SUCCESS) {
    cairo_surface_flush(s);
    if (vs_view_raster(o->width, o->height, k.s, k.light, bufs[0].p, bufs[0].n, bufs[1].p,
                       bufs[1].n, bufs[2].p, bufs[2].n, cairo_image_surface_get_data(s),
                       cairo_image_surface_get_stride(s)) != 0) {
      cairo_surface_destroy(s);
      st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "render: out of memory");
      goto done;
    }
    cairo_surface_mark_dirty(s);
  }
  if (cs != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    st = vs_view_cairo_error(cs, "render", err);
    goto done;
  }
  *out = s;
  *lo = pt.lo;
  *hi = pt.hi;
done:
  for (int i = 0; i < 3; i++) {
    vs_free(bufs[i].p);
  }
  return st;
}

typedef struct framed {
  cairo_surface_t *img;
  const vs_view_options *o;
  const vs_view_frame *f;
  double lo, hi;
} framed;

static void paint_framed(cairo_t *cr, void *ctx) {
  const framed *p = ctx;
  cairo_set_source_surface(cr, p->img, 0, 0);
  cairo_paint(cr);
  vs_view_draw_labels(cr, p->o, p->lo, p->hi, p->f);
}

vs_status vs_view_render_file(const vs_view_options *o, const vs_view_frame *frame,
                              const vs_view_frame *golden, const char *path,
                              const char *const *inputs, vs_error *err) {
  framed p = {.o = o, .f = frame};
  vs_status st = render(o, frame, golden, &p.img, &p.lo, &p.hi, err);
  if (st != VS_OK) return st;
  st = vs_view_write(o->format, o->width, o->height, paint_framed, &p, path, inputs, err);
  cairo_surface_destroy(p.img);
  return st;
}

vs_status vs_view_render_png(const vs_view_options *o, const vs_view_frame *frame,
                             const vs_view_frame *golden, const char *path,
                             const char *const *inputs, vs_error *err) {
  if (!o) return vs_view_render_file(o, frame, golden, path, inputs, err);
  vs_view_options png = *o;
  png.format = VS_VIEW_PNG;
  return vs_view_render_file(&png, frame, golden, path, inputs, err);
}

vs_status vs_view_render_rgb(const vs_view_options *o, const vs_view_frame *frame,
                             const vs_view_frame *golden, uint8_t *rgb, vs_error *err) {
  if (!rgb) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "render: no output buffer");
  cairo_surface_t *s;
  double lo, hi;
  vs_status st = render(o, frame, golden, &s, &lo, &hi, err);
  if (st != VS_OK) return st;
  cairo_t *cr = cairo_create(s);
  vs_view_draw_labels(cr, o, lo, hi, frame);
  cairo_status_t cs = cairo_status(cr);
  cairo_destroy(cr);
  if (cs != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return vs_view_cairo_error(cs, "render", err);
  }
  cairo_surface_flush(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < o->height; y++) {
    const uint32_t *row = (const uint32_t *)(const void *)(data + (size_t)y * stride);
    uint8_t *d = rgb + (size_t)y * o->width * 3;
    for (int x = 0; x < o->width; x++) {
      d[3 * x] = (uint8_t)(row[x] >> 16);
      d[3 * x + 1] = (uint8_t)(row[x] >> 8);
      d[3 * x + 2] = (uint8_t)row[x];
    }
  }
  cairo_surface_destroy(s);
  return VS_OK;
}
