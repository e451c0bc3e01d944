/* colors.c: palette, colour map, bounds, speed and strain, PNG output (see view/view.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/outfile.h"
#include "view/internal.h"

/* Categorical: the ten of matplotlib's tab10 with its grey replaced by a dark
 * blue, so that no body colour can be mistaken for the golden overlay's grey. */
static const double palette[10][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
    {0.890, 0.467, 0.761}, {0.224, 0.231, 0.475}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812},
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
  int k = index % 10;
  if (k < 0) k += 10;
  memcpy(rgb, palette[k], sizeof palette[k]);
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
    if (s->kind == VS_VIEW_BOX) r = sqrt(s->half[0] * s->half[0] + s->half[1] * s->half[1] +
                                         s->half[2] * s->half[2]);
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

vs_status vs_view_write_png(cairo_surface_t *s, const char *path, const char *const *inputs,
                            vs_error *err) {
  if (!path || !*path) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "no output path");
  vs_outfile o;
  vs_status st = vs_outfile_create(path, VS_OUTFILE_FORCE, inputs, &o, err);
  if (st != VS_OK) return st;
  int io[2] = {o.fd, 0}; /* the descriptor, and the errno of a failed write */
  cairo_status_t cs = cairo_surface_write_to_png_stream(s, write_fn, io);
  if (cs != CAIRO_STATUS_SUCCESS || io[1]) {
    vs_outfile_discard(&o);
    if (cs == CAIRO_STATUS_NO_MEMORY)
      return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "writing '%s': out of memory", path);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot write '%s': %s", path,
                        io[1] ? strerror(io[1]) : cairo_status_to_string(cs));
  }
  return vs_outfile_publish(&o, err);
}
