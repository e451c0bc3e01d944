/* SPDX-License-Identifier: MIT */
/* colors.c: palette, colour map, bounds and the focus box, speed and strain,
 * the output files: PNG, SVG, PDF (see view/view.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/outfile.h"
#include "view/internal.h"

/* Categorical: the ten of matplotlib's tab10 with its grey replaced by a dark
 * blue, so that no body colour can be mistaken for the golden overlay's grey,
 * then ten more of other hues or clearly other lightness (teal, magenta,
 * maroon, olive, petrol, lime, ochre, coral, dark green, violet), none grey:
 * a plot of 20 curves or a scene of 20 bodies repeats no colour. */
static const double palette[VS_PLOT_COLORS][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
    {0.890, 0.467, 0.761}, {0.224, 0.231, 0.475}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812}, {0.275, 0.600, 0.565}, {0.941, 0.196, 0.902},
    {0.502, 0.000, 0.000}, {0.502, 0.502, 0.000}, {0.000, 0.350, 0.450},
    {0.560, 0.850, 0.150}, {0.850, 0.650, 0.000}, {0.980, 0.500, 0.450},
    {0.000, 0.390, 0.000}, {0.450, 0.000, 0.800},
};

/* viridis sampled at t = 0, 1/8, ..., 1; linear in between. */
static const double viridis[9][3] = {
    {0.267004, 0.004874, 0.329415}, {0.282623, 0.140926, 0.457517},
    {0.229739, 0.322361, 0.545706}, {0.172719, 0.448791, 0.557885},
    {0.127568, 0.566949, 0.550556}, {0.134692, 0.658636, 0.517649},
    {0.369214, 0.788888, 0.382914}, {0.678489, 0.863742, 0.189503},
    {0.993248, 0.906157, 0.143936},
};

const double vs_view_grey[3] = {0.62, 0.62, 0.62};

void vs_view_palette(int index, double rgb[3]) {
  int k = index % VS_PLOT_COLORS;
  if (k < 0) k += VS_PLOT_COLORS;
  memcpy(rgb, palette[k], sizeof palette[k]);
}

void vs_plot_style(int i, double rgb[3], int *dash) {
  if (i < 0) i = 0;
  vs_view_palette(i, rgb);
  if (dash) *dash = (i / VS_PLOT_COLORS) % 5; /* 0 solid, 1..4 the patterns of plot.c */
}

void vs_view_colormap(double t, double rgb[3]) {
  if (!(t > 0)) t = 0; /* NaN -> 0 too */
  if (t > 1) t = 1;
  double u = t * 8;
  int i = (int)u;
  if (i >= 8) i = 7;
  double a = u - i;
  for (int c = 0; c < 3; c++) rgb[c] = viridis[i][c] * (1 - a) + viridis[i + 1][c] * a;
}

void vs_view_bounds_init(double lo[3], double hi[3]) {
  for (int c = 0; c < 3; c++) {
    lo[c] = INFINITY;
    hi[c] = -INFINITY;
  }
}

static void grow(double lo[3], double hi[3], const double p[3], double r) {
  for (int c = 0; c < 3; c++)
    if (!isfinite(p[c])) return;
  if (!isfinite(r) || r < 0) r = 0;
  for (int c = 0; c < 3; c++) {
    if (p[c] - r < lo[c]) lo[c] = p[c] - r;
    if (p[c] + r > hi[c]) hi[c] = p[c] + r;
  }
}

void vs_view_bounds_add(const vs_view_frame *f, double lo[3], double hi[3]) {
  for (size_t i = 0; i < f->n_particles; i++)
    grow(lo, hi, f->pos + 3 * i, f->radius ? f->radius[i] : f->radius_default);
  for (size_t i = 0; i < f->n_shapes; i++) {
    const vs_view_shape *s = &f->shapes[i];
    double r = s->radius + s->half_length;
    if (s->kind == VS_VIEW_BOX || s->kind == VS_VIEW_HULL)
      r = sqrt(s->half[0] * s->half[0] + s->half[1] * s->half[1] + s->half[2] * s->half[2]);
    grow(lo, hi, s->center, r);
  }
  for (size_t i = 0; i < f->n_colliders; i++) {
    const vs_view_collider *c = &f->colliders[i];
    switch (c->kind) {
      case VS_VIEW_COLL_PLANE: grow(lo, hi, c->point, 0); break;
      case VS_VIEW_COLL_SPHERE: grow(lo, hi, c->center, c->radius); break;
      case VS_VIEW_COLL_BOX:
      case VS_VIEW_COLL_BOUNDS:
        /* bounds can be huge ("keep inside 1000 m"): only a box is counted */
        if (c->kind == VS_VIEW_COLL_BOX) {
          grow(lo, hi, c->lo, 0);
          grow(lo, hi, c->hi, 0);
        }
        break;
      case VS_VIEW_COLL_MESH:
        for (size_t v = 0; v < c->n_vertices; v++) grow(lo, hi, c->vertices + 3 * v, 0);
        break;
    }
  }
}

/* ---- the focus box ------------------------------------------------------ */

static double shape_bound(const vs_view_shape *s) {
  if (s->kind == VS_VIEW_BOX || s->kind == VS_VIEW_HULL)
    return sqrt(s->half[0] * s->half[0] + s->half[1] * s->half[1] + s->half[2] * s->half[2]);
  return s->radius + (s->kind == VS_VIEW_CAPSULE ? s->half_length : 0);
}

/* Item i of the frame's bodies: particles first, then shapes. */
static const double *item(const vs_view_frame *f, size_t i, double *r) {
  if (i < f->n_particles) {
    *r = f->radius ? f->radius[i] : f->radius_default;
    return f->pos + 3 * i;
  }
  const vs_view_shape *s = &f->shapes[i - f->n_particles];
  *r = shape_bound(s);
  return s->center;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int vs_view_focus_add(const vs_view_frame *f, double lo[3], double hi[3]) {
  size_t n = f->n_particles + f->n_shapes, finite = 0;
  double r;
  for (size_t i = 0; i < n; i++) {
    const double *p = item(f, i, &r);
    finite += isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
  }
  if (!finite) return 0;
  double keep_lo[3] = {-INFINITY, -INFINITY, -INFINITY}, keep_hi[3] = {INFINITY, INFINITY, INFINITY};
  if (finite >= VS_VIEW_FOCUS_MIN) {
    /* the 5th and 95th percentiles of the centres on each axis (from at
     * most 4096 of them, evenly spaced), widened by half the largest spread */
    size_t stride = (n + 4095) / 4096, m = 0;
    double *v = malloc(((n + stride - 1) / stride) * sizeof *v), q[3][2], spread = 0;
    if (!v) return -1;
    for (int c = 0; c < 3; c++) {
      m = 0;
      for (size_t i = 0; i < n; i += stride) {
        const double *p = item(f, i, &r);
        if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2])) v[m++] = p[c];
      }
      if (!m) break;
      qsort(v, m, sizeof *v, cmp_double);
      q[c][0] = v[(size_t)floor(0.05 * (double)(m - 1))];
      q[c][1] = v[(size_t)ceil(0.95 * (double)(m - 1))];
      spread = fmax(spread, q[c][1] - q[c][0]);
    }
    free(v);
    if (m)
      for (int c = 0; c < 3; c++) {
        keep_lo[c] = q[c][0] - 0.5 * spread;
        keep_hi[c] = q[c][1] + 0.5 * spread;
      }
  }
  for (size_t i = 0; i < n; i++) {
    const double *p = item(f, i, &r);
    int in = 1;
    for (int c = 0; c < 3 && in; c++) in = p[c] >= keep_lo[c] && p[c] <= keep_hi[c];
    if (in) grow(lo, hi, p, r);
  }
  return 1;
}

static double diag(const double lo[3], const double hi[3]) {
  double d = 0;
  for (int c = 0; c < 3; c++) d += (hi[c] - lo[c]) * (hi[c] - lo[c]);
  return sqrt(d);
}

void vs_view_focus_colliders(const vs_view_frame *f, double lo[3], double hi[3]) {
  int have = lo[0] <= hi[0];
  double d0 = have ? diag(lo, hi) : 0, blo[3], bhi[3];
  memcpy(blo, lo, sizeof blo);
  memcpy(bhi, hi, sizeof bhi);
  for (size_t i = 0; i < f->n_colliders; i++) {
    const vs_view_collider *c = &f->colliders[i];
    if (c->kind == VS_VIEW_COLL_PLANE) continue;
    double clo[3], chi[3];
    vs_view_bounds_init(clo, chi);
    vs_view_frame one = {.n_colliders = 1, .colliders = c};
    if (c->kind == VS_VIEW_COLL_BOUNDS) { /* not counted by vs_view_bounds_add */
      grow(clo, chi, c->lo, 0);
      grow(clo, chi, c->hi, 0);
    } else {
      vs_view_bounds_add(&one, clo, chi);
    }
    if (!(clo[0] <= chi[0])) continue;
    if (have) {
      /* only what stays within twice the bodies' size, together with them */
      double ulo[3], uhi[3];
      for (int k = 0; k < 3; k++) ulo[k] = fmin(blo[k], clo[k]), uhi[k] = fmax(bhi[k], chi[k]);
      if (!(diag(ulo, uhi) <= 2 * d0)) continue;
    }
    for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], clo[k]), hi[k] = fmax(hi[k], chi[k]);
  }
}

void vs_view_speed(size_t n, const double *vel, double *speed) {
  for (size_t i = 0; i < n; i++) {
    const double *v = vel + 3 * i;
    speed[i] = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
}

void vs_view_strain(size_t n, const double *pos, size_t m, const int32_t *links,
                    const double *rest, const uint8_t *alive, double *link_strain,
                    double *particle_strain) {
  if (particle_strain)
    for (size_t i = 0; i < n; i++) particle_strain[i] = 0;
  for (size_t k = 0; k < m; k++) {
    int32_t a = links[2 * k], b = links[2 * k + 1];
    double s = 0;
    if (a >= 0 && b >= 0 && (size_t)a < n && (size_t)b < n && rest[k] > 0) {
      const double *pa = pos + 3 * a, *pb = pos + 3 * b;
      double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
      s = (sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - rest[k]) / rest[k];
    }
    link_strain[k] = s;
    if (!particle_strain || (alive && !alive[k]) || s == 0) continue;
    double as = fabs(s);
    if (as > particle_strain[a]) particle_strain[a] = as;
    if (as > particle_strain[b]) particle_strain[b] = as;
  }
}

vs_status vs_view_cairo_error(cairo_status_t cs, const char *what, vs_error *err) {
  if (cs == CAIRO_STATUS_NO_MEMORY)
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "%s: out of memory", what);
  return vs_error_set(err, VS_ERR_IO, NULL, 0, 0, "%s: cairo: %s", what,
                      cairo_status_to_string(cs));
}

static cairo_status_t write_fn(void *closure, const unsigned char *data, unsigned int len) {
  int *fd = closure;
  while (len > 0) {
    ssize_t w = write(fd[0], data, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      fd[1] = w < 0 ? errno : EIO;
      return CAIRO_STATUS_WRITE_ERROR;
    }
    data += w;
    len -= (unsigned int)w;
  }
  return CAIRO_STATUS_SUCCESS;
}

static const char *const format_names[] = {"PNG", "SVG", "PDF"};

vs_status vs_view_write(vs_view_format fmt, int w, int h, vs_view_paint_fn paint, void *ctx,
                        const char *path, const char *const *inputs, vs_error *err) {
  if (!path || !*path) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "no output path");
  if (fmt != VS_VIEW_PNG && fmt != VS_VIEW_SVG && fmt != VS_VIEW_PDF)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "unknown picture format %d", (int)fmt);
  if (vs_view_cairo_load(err) != VS_OK) return err->code;
  if (fmt != VS_VIEW_PNG && !vs_view_cairo_has_vector(fmt == VS_VIEW_PDF))
    return vs_error_set(err, VS_ERR_UNSUPPORTED, path, 0, 0,
                        "cannot write '%s': this cairo (libcairo.so.2) cannot write %s", path,
                        format_names[fmt]);
  vs_outfile o;
  vs_status st = vs_outfile_create(path, VS_OUTFILE_FORCE, inputs, &o, err);
  if (st != VS_OK) return st;
  int io[2] = {o.fd, 0}; /* the descriptor, and the errno of a failed write */
  cairo_surface_t *s = fmt == VS_VIEW_PNG ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h)
                       : fmt == VS_VIEW_SVG ? cairo_svg_surface_create_for_stream(write_fn, io, w, h)
                                            : cairo_pdf_surface_create_for_stream(write_fn, io, w, h);
  cairo_t *cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  paint(cr, ctx);
  cairo_status_t cs = cairo_status(cr);
  cairo_destroy(cr);
  if (fmt == VS_VIEW_PNG) {
    if (cs == CAIRO_STATUS_SUCCESS) {
      cairo_surface_flush(s);
      cs = cairo_surface_write_to_png_stream(s, write_fn, io);
    }
  } else {
    cairo_surface_finish(s); /* writes the rest of the file */
    if (cs == CAIRO_STATUS_SUCCESS) cs = cairo_surface_status(s);
  }
  cairo_surface_destroy(s);
  if (cs == CAIRO_STATUS_SUCCESS && !io[1]) return vs_outfile_publish(&o, err);
  vs_outfile_discard(&o);
  if (cs == CAIRO_STATUS_NO_MEMORY)
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "writing '%s': out of memory", path);
  return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot write '%s': %s", path,
                      io[1] ? strerror(io[1]) : cairo_status_to_string(cs));
}
