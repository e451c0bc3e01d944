/* SPDX-License-Identifier: MIT */
/* raster.c: the z-buffer under `vsim render` (view/internal.h).
 *
 * Every primitive is drawn into S x S samples per pixel, each sample keeping
 * the nearest colour (a depth test per sample), and each pixel is the mean
 * of its samples: hidden surfaces are resolved exactly wherever two pieces
 * overlap, whatever their sizes (a painter's algorithm sorts whole pieces by
 * one depth each, and a large table top sorted by its centre covered the
 * cloth lying on it), and the samples antialias the edges.  Triangles use
 * the top-left rule, so that triangles sharing an edge leave no seam and
 * paint no sample twice.  Discs, balls, capsules and lines are round: a
 * sample's depth is that of the sphere (or tube) through it, so that a ball
 * resting on a floor meets it where it touches.  The image is drawn in
 * bands of rows, each primitive binned to the bands it spans, so that the
 * sample buffers stay small for any image size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "view/internal.h"

enum { TAG_NONE = 0, TAG_SCENE = 1, TAG_FRAME = 2 };

typedef struct band {
  int S;          /* samples per pixel along each axis */
  int w, y0, rows; /* output width, first output row, rows */
  int sw, sh;     /* the sample grid */
  uint32_t *col;  /* scene and frame */
  float *z;
  uint8_t *tag;
  uint32_t *gcol; /* golden run (NULL without one) */
  float *gz;
  double s;       /* px per world unit */
  double light[3];
} band;

typedef struct target {
  uint32_t *col;
  float *z;
  uint8_t *tag; /* NULL: the golden buffers */
  uint8_t tagval;
} target;

static uint32_t pack(const float c[3], double k, double add) {
  uint32_t v = 0;
  for (int i = 0; i < 3; i++) {
    double x = c[i] * k + add;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    v = v << 8 | (uint32_t)lround(x * 255);
  }
  return v;
}

static inline void put(const target *t, size_t at, float d, uint32_t c) {
  if (!(d > t->z[at])) return;
  t->z[at] = d;
  t->col[at] = c;
  if (t->tag) t->tag[at] = t->tagval;
}

/* sample-index range [lo, hi] of the sample centres (i + 0.5) within [a, b] */
static int span(double a, double b, int n, int *lo, int *hi) {
  double l = ceil(a - 0.5), h = floor(b - 0.5);
  if (l < 0) l = 0;
  if (h > n - 1) h = n - 1;
  if (!(l <= h)) return 0;
  *lo = (int)l, *hi = (int)h;
  return 1;
}

/* Edge u->v: is a sample exactly on it inside?  Exactly one of the two
 * triangles sharing the edge (which run it in opposite directions) says yes. */
static int top_left(double ux, double uy, double vx, double vy) {
  return vy > uy || (vy == uy && vx < ux);
}

/* Triangle (a, b, c) of p's points, flat colour; with grid, samples within
 * half a pixel of one of the quad's four outer edges get line_col. */
static void tri(const band *b, const target *t, const vs_view_prim *p, int ia, int ib, int ic,
                uint32_t col, int grid, uint32_t line_col) {
  const double S = b->S, oy = (double)b->y0 * S;
  double x[3] = {p->x[ia] * S, p->x[ib] * S, p->x[ic] * S};
  double y[3] = {p->y[ia] * S - oy, p->y[ib] * S - oy, p->y[ic] * S - oy};
  double d[3] = {p->d[ia], p->d[ib], p->d[ic]};
  double area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
  if (area == 0 || !isfinite(area)) return;
  if (area < 0) { /* make it positive: swap b and c */
    double tx = x[1], ty = y[1], td = d[1];
    x[1] = x[2], y[1] = y[2], d[1] = d[2];
    x[2] = tx, y[2] = ty, d[2] = td;
    area = -area;
  }
  int i0, i1, j0, j1;
  if (!span(fmin(x[0], fmin(x[1], x[2])), fmax(x[0], fmax(x[1], x[2])), b->sw, &i0, &i1) ||
      !span(fmin(y[0], fmin(y[1], y[2])), fmax(y[0], fmax(y[1], y[2])), b->sh, &j0, &j1))
    return;
  /* w_k: the edge opposite vertex k, from vertex k+1 to k+2 */
  int tl[3];
  for (int k = 0; k < 3; k++) {
    int u = (k + 1) % 3, v = (k + 2) % 3;
    tl[k] = top_left(x[u], y[u], x[v], y[v]);
  }
  /* the quad's outer edges for grid lines: p's edges 0-1, 1-2, 2-3, 3-0 */
  double ex[4], ey[4], edx[4], edy[4], el[4];
  int ne = grid ? p->np : 0;
  for (int e = 0; e < ne; e++) {
    int u = e, v = (e + 1) % p->np;
    ex[e] = p->x[u] * S, ey[e] = p->y[u] * S - oy;
    edx[e] = p->x[v] * S - ex[e], edy[e] = p->y[v] * S - oy - ey[e];
    el[e] = sqrt(edx[e] * edx[e] + edy[e] * edy[e]);
    if (!(el[e] > 0)) el[e] = INFINITY; /* a degenerate edge draws no line */
  }
  for (int j = j0; j <= j1; j++) {
    double py = j + 0.5;
    for (int i = i0; i <= i1; i++) {
      double px = i + 0.5, w[3];
      int in = 1;
      for (int k = 0; k < 3 && in; k++) {
        int u = (k + 1) % 3, v = (k + 2) % 3;
        w[k] = (x[v] - x[u]) * (py - y[u]) - (y[v] - y[u]) * (px - x[u]);
        in = w[k] > 0 || (w[k] == 0 && tl[k]);
      }
      if (!in) continue;
      float dd = (float)((w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) / area);
      uint32_t c = col;
      for (int e = 0; e < ne; e++)
        if (fabs(edx[e] * (py - ey[e]) - edy[e] * (px - ex[e])) < 0.5 * S * el[e]) c = line_col;
      put(t, (size_t)j * b->sw + i, dd, c);
    }
  }
}

/* Discs, balls, capsules and lines: the points within r of the segment from
 * point 0 to point 1 (a disc or ball: one point). */
static void round_prim(const band *b, const target *t, const vs_view_prim *p) {
  const double S = b->S, oy = (double)b->y0 * S;
  int seg = p->kind == P_CAPSULE || p->kind == P_LINE;
  double ax = p->x[0] * S, ay = p->y[0] * S - oy, bx = seg ? p->x[1] * S : ax,
         by = seg ? p->y[1] * S - oy : ay;
  double da = p->d[0], db = seg ? p->d[1] : da;
  double r = p->r, R = r * S;
  int outline = p->kind == P_DISC && r >= 3;
  double Re = (outline ? r + 0.5 : r) * S; /* the outline straddles the rim */
  int i0, i1, j0, j1;
  if (!span(fmin(ax, bx) - Re, fmax(ax, bx) + Re, b->sw, &i0, &i1) ||
      !span(fmin(ay, by) - Re, fmax(ay, by) + Re, b->sh, &j0, &j1))
    return;
  double vx = bx - ax, vy = by - ay, vv = vx * vx + vy * vy;
  uint32_t flat = pack(p->rgb, 1, 0), rim = pack(p->rgb, 0.6, 0);
  int shaded = p->kind == P_BALL || p->kind == P_CAPSULE;
  const double *L = b->light;
  for (int j = j0; j <= j1; j++) {
    double py = j + 0.5;
    for (int i = i0; i <= i1; i++) {
      double px = i + 0.5, tt = 0;
      if (vv > 0) {
        tt = ((px - ax) * vx + (py - ay) * vy) / vv;
        tt = tt < 0 ? 0 : tt > 1 ? 1 : tt;
      }
      double cx = ax + tt * vx, cy = ay + tt * vy, qx = px - cx, qy = py - cy;
      double q2 = qx * qx + qy * qy;
      if (q2 > Re * Re) continue;
      double h2 = R * R - q2, h = h2 > 0 ? sqrt(h2) : 0; /* the bulge towards the viewer */
      float dd = (float)(da + tt * (db - da) + h / S / b->s);
      uint32_t c = flat;
      if (shaded) {
        double n[3] = {qx / R, -qy / R, h / R};
        double lam = n[0] * L[0] + n[1] * L[1] + n[2] * L[2];
        if (lam < 0) lam = 0;
        double spec = lam * lam, k = 0.4 + 0.6 * lam;
        spec *= spec, spec *= spec; /* lam^8: a soft highlight */
        c = pack(p->rgb, k, 0.3 * spec);
      } else if (outline && q2 > (R - 0.5 * S) * (R - 0.5 * S)) {
        c = rim;
      }
      put(t, (size_t)j * b->sw + i, dd, c);
    }
  }
}

static void draw(const band *b, const target *t, const vs_view_prim *p) {
  switch (p->kind) {
    case P_POLY:
    case P_GRID: {
      int grid = p->kind == P_GRID;
      uint32_t c = pack(p->rgb, 1, 0), line = grid ? pack(p->rgb, 0.8, 0) : c;
      for (int k = 1; k + 1 < p->np; k++) tri(b, t, p, 0, k, k + 1, c, grid, line);
      break;
    }
    case P_LINE:
    case P_DISC:
    case P_BALL:
    case P_CAPSULE: round_prim(b, t, p); break;
    default: break;
  }
}

/* The rows a primitive may touch, [*lo, *hi]; 0 when none or not finite. */
static int prim_rows(const vs_view_prim *p, int w, int h, int *lo, int *hi) {
  int n = p->kind == P_POLY || p->kind == P_GRID ? p->np
          : p->kind == P_DISC || p->kind == P_BALL ? 1
                                                   : 2;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int k = 0; k < n; k++) {
    if (!isfinite(p->x[k]) || !isfinite(p->y[k]) || !isfinite(p->d[k])) return 0;
    x0 = fmin(x0, p->x[k]), x1 = fmax(x1, p->x[k]);
    y0 = fmin(y0, p->y[k]), y1 = fmax(y1, p->y[k]);
  }
  double r = n <= 2 ? (double)p->r + 1 : 1;
  if (!isfinite(r) || x1 + r < 0 || x0 - r > w || y1 + r < 0 || y0 - r > h) return 0;
  *lo = y0 - r < 0 ? 0 : (int)(y0 - r);
  *hi = y1 + r > h - 1 ? h - 1 : (int)(y1 + r);
  return *lo <= *hi;
}

/* Per band, the indices of the primitives that touch it, in order. */
typedef struct bins {
  size_t *start; /* [nb + 1] */
  uint32_t *idx;
} bins;

static int bin(const vs_view_prim *p, size_t n, int w, int h, int rows, int nb, bins *out) {
  out->start = vs_calloc((size_t)nb + 1, sizeof *out->start);
  out->idx = NULL;
  if (!out->start) return -1;
  for (size_t i = 0; i < n; i++) {
    int lo, hi;
    if (prim_rows(&p[i], w, h, &lo, &hi))
      for (int k = lo / rows; k <= hi / rows; k++) out->start[k + 1]++;
  }
  for (int k = 0; k < nb; k++) out->start[k + 1] += out->start[k];
  out->idx = vs_malloc((out->start[nb] + 1) * sizeof *out->idx);
  size_t *fill = vs_malloc(((size_t)nb + 1) * sizeof *fill);
  if (!out->idx || !fill) {
    vs_free(fill);
    return -1;
  }
  memcpy(fill, out->start, ((size_t)nb + 1) * sizeof *fill);
  for (size_t i = 0; i < n; i++) {
    int lo, hi;
    if (prim_rows(&p[i], w, h, &lo, &hi))
      for (int k = lo / rows; k <= hi / rows; k++) out->idx[fill[k]++] = (uint32_t)i;
  }
  vs_free(fill);
  return 0;
}

/* The samples per pixel: 4 x 4 up to about 1920 x 1080, fewer beyond. */
static int samples_for(int w, int h) {
  double px = (double)w * h;
  return px <= 2.2e6 ? 4 : px <= 9e6 ? 3 : 2;
}

int vs_view_raster(int w, int h, double scale, const double light[3], const vs_view_prim *scene,
                   size_t n_scene, const vs_view_prim *golden, size_t n_golden,
                   const vs_view_prim *frame, size_t n_frame, unsigned char *data, int stride) {
  band b = {0};
  b.S = samples_for(w, h);
  b.w = w;
  b.s = scale > 0 && isfinite(scale) ? scale : 1;
  memcpy(b.light, light, sizeof b.light);
  b.sw = w * b.S;
  /* about a million samples a band */
  int rows = (int)(1048576.0 / ((double)b.sw * b.S));
  if (rows < 1) rows = 1;
  if (rows > h) rows = h;
  int nb = (h + rows - 1) / rows;
  size_t cap = (size_t)b.sw * rows * b.S;
  const vs_view_prim *lists[3] = {scene, golden, frame};
  size_t counts[3] = {n_scene, golden ? n_golden : 0, n_frame};
  bins bn[3] = {{0}};
  int rc = 0;
  for (int l = 0; l < 3 && rc == 0; l++)
    if (bin(lists[l], counts[l], w, h, rows, nb, &bn[l]) != 0) rc = -1;
  b.col = vs_malloc(cap * sizeof *b.col);
  b.z = vs_malloc(cap * sizeof *b.z);
  b.tag = vs_malloc(cap);
  if (counts[1]) {
    b.gcol = vs_malloc(cap * sizeof *b.gcol);
    b.gz = vs_malloc(cap * sizeof *b.gz);
    if (!b.gcol || !b.gz) rc = -1;
  }
  if (!b.col || !b.z || !b.tag) rc = -1;
  for (int k = 0; k < nb && rc == 0; k++) {
    b.y0 = k * rows;
    b.rows = b.y0 + rows > h ? h - b.y0 : rows;
    b.sh = b.rows * b.S;
    size_t ns = (size_t)b.sw * b.sh;
    for (size_t i = 0; i < ns; i++) b.col[i] = 0xffffff, b.z[i] = -INFINITY;
    memset(b.tag, TAG_NONE, ns);
    if (b.gz)
      for (size_t i = 0; i < ns; i++) b.gz[i] = -INFINITY;
    target ts = {b.col, b.z, b.tag, TAG_SCENE}, tg = {b.gcol, b.gz, NULL, 0},
           tf = {b.col, b.z, b.tag, TAG_FRAME};
    const target *tgt[3] = {&ts, &tg, &tf};
    for (int l = 0; l < 3; l++)
      for (size_t q = bn[l].start[k]; q < bn[l].start[k + 1]; q++)
        draw(&b, tgt[l], &lists[l][bn[l].idx[q]]);
    /* each pixel: the mean of its samples; a sample shows the frame where
     * the frame covers it, else the nearer of golden run and scene */
    const int S = b.S, n2 = S * S;
    for (int r = 0; r < b.rows; r++) {
      uint32_t *out = (uint32_t *)(void *)(data + (size_t)(b.y0 + r) * stride);
      for (int x = 0; x < w; x++) {
        unsigned sr = 0, sg = 0, sb = 0;
        for (int j = 0; j < S; j++) {
          size_t at = (size_t)(r * S + j) * b.sw + (size_t)x * S;
          for (int i = 0; i < S; i++, at++) {
            uint32_t c = b.col[at];
            if (b.gz && b.tag[at] != TAG_FRAME && b.gz[at] > b.z[at]) c = b.gcol[at];
            sr += c >> 16 & 255, sg += c >> 8 & 255, sb += c & 255;
          }
        }
        out[x] = (uint32_t)((sr + n2 / 2) / n2) << 16 | (uint32_t)((sg + n2 / 2) / n2) << 8 |
                 (uint32_t)((sb + n2 / 2) / n2);
      }
    }
  }
  for (int l = 0; l < 3; l++) {
    vs_free(bn[l].start);
    vs_free(bn[l].idx);
  }
  vs_free(b.col);
  vs_free(b.z);
  vs_free(b.tag);
  vs_free(b.gcol);
  vs_free(b.gz);
  return rc;
}
