/* plot.c: series against time with cairo (see view/view.h).
 *
 * One frame with "nice" ticks (1, 2 or 5 times a power of ten) and light grid
 * lines, tick labels, axis labels, a title, a legend in the top right corner
 * on a white box, the series as lines in palette colours (with markers when a
 * series has few points).  The y axis is logarithmic, in whole decades, when
 * asked or (auto) when the positive values span more than 3 decades. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view/internal.h"

void vs_plot_options_init(vs_plot_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 800;
  o->height = 500;
  o->xlabel = "time [s]";
  o->yscale = VS_PLOT_AUTO;
}

int vs_plot_wants_log(const vs_plot_series *s, size_t ns) {
  double lo = INFINITY, hi = 0;
  for (size_t k = 0; k < ns; k++)
    for (size_t i = 0; i < s[k].n; i++) {
      double y = s[k].y[i];
      if (!isfinite(y)) continue;
      if (y < 0) return 0;
      if (y > 0) lo = fmin(lo, y), hi = fmax(hi, y);
    }
  return hi > 0 && hi / lo > 1e3;
}

int vs_plot_ticks(double lo, double hi, int target, double *ticks, int max, double *step) {
  if (target < 1) target = 1;
  double span = hi - lo;
  if (!(span > 0) || !isfinite(span)) {
    if (step) *step = 0;
    if (max > 0 && isfinite(lo)) {
      ticks[0] = lo;
      return 1;
    }
    return 0;
  }
  double raw = span / target, mag = pow(10, floor(log10(raw))), nrm = raw / mag;
  double st = (nrm < 1.5 ? 1 : nrm < 3 ? 2 : nrm < 7 ? 5 : 10) * mag;
  if (step) *step = st;
  int n = 0;
  for (double m = ceil(lo / st - 1e-9); n < max; m += 1) {
    double t = m * st;
    if (t > hi + st * 1e-9) break;
    if (fabs(t) < st * 1e-9) t = 0;
    ticks[n++] = t;
  }
  return n;
}

typedef struct layout {
  double fs;         /* font size */
  double frame[4];   /* l, t, r, b */
  double legend[4];
  double row, pad, sample;
} layout;

static void set_font(cairo_t *cr, double size, int bold) {
  cairo_select_font_face(cr, VS_VIEW_FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static void make_layout(cairo_t *cr, const vs_plot_options *o, const vs_plot_series *s,
                        size_t ns, layout *L) {
  memset(L, 0, sizeof *L);
  double fs = fmax(10, fmin(o->width, o->height) / 40.0);
  L->fs = fs;
  L->frame[0] = 6.5 * fs + (o->ylabel ? 1.6 * fs : 0);
  L->frame[1] = o->title ? 2.6 * fs : 1.2 * fs;
  L->frame[2] = o->width - 1.6 * fs;
  L->frame[3] = o->height - 2.0 * fs - (o->xlabel ? 1.6 * fs : 0);
  size_t named = 0;
  double tw = 0;
  set_font(cr, fs, 0);
  for (size_t i = 0; i < ns; i++) {
    if (!s[i].name) continue;
    named++;
    cairo_text_extents_t te;
    cairo_text_extents(cr, s[i].name, &te);
    tw = fmax(tw, te.x_advance);
  }
  L->row = 1.4 * fs;
  L->pad = 0.6 * fs;
  L->sample = 2.2 * fs;
  if (!named) return;
  double w = L->pad * 3 + L->sample + tw, h = 2 * L->pad + ns * L->row;
  L->legend[2] = L->frame[2] - 0.5 * fs;
  L->legend[0] = fmax(L->frame[0] + 0.5 * fs, L->legend[2] - w);
  L->legend[1] = L->frame[1] + 0.5 * fs;
  L->legend[3] = L->legend[1] + h;
}

void vs_plot_layout(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                    double frame[4], double legend[4], double *row, double *pad,
                    double *sample) {
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t *cr = cairo_create(surf);
  layout L;
  make_layout(cr, o, s, ns, &L);
  cairo_destroy(cr);
  cairo_surface_destroy(surf);
  memcpy(frame, L.frame, sizeof L.frame);
  memcpy(legend, L.legend, sizeof L.legend);
  if (row) *row = L.row;
  if (pad) *pad = L.pad;
  if (sample) *sample = L.sample;
}

typedef struct axes {
  double x0, x1, y0, y1; /* data range (log10 of it on a log axis) */
  int log;
  const double *f;       /* frame */
} axes;

static double px(const axes *a, double x) {
  return a->f[0] + (x - a->x0) / (a->x1 - a->x0) * (a->f[2] - a->f[0]);
}
static double py(const axes *a, double y) {
  double v = a->log ? log10(y) : y;
  return a->f[3] - (v - a->y0) / (a->y1 - a->y0) * (a->f[3] - a->f[1]);
}

static void ranges(const vs_plot_options *o, const vs_plot_series *s, size_t ns, axes *a) {
  double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;
  a->log = o->yscale == VS_PLOT_LOG || (o->yscale == VS_PLOT_AUTO && vs_plot_wants_log(s, ns));
  for (size_t k = 0; k < ns; k++)
    for (size_t i = 0; i < s[k].n; i++) {
      double x = s[k].x[i], y = s[k].y[i];
      if (!isfinite(x) || !isfinite(y) || (a->log && y <= 0)) continue;
      xl = fmin(xl, x), xh = fmax(xh, x);
      yl = fmin(yl, y), yh = fmax(yh, y);
    }
  if (!(xl <= xh)) xl = 0, xh = 1;
  if (!(xl < xh)) xl -= 0.5, xh += 0.5;
  a->x0 = xl, a->x1 = xh;
  if (a->log) {
    if (!(yl <= yh)) yl = 1, yh = 10;
    a->y0 = floor(log10(yl) + 1e-9);
    a->y1 = ceil(log10(yh) - 1e-9);
    if (a->y1 <= a->y0) a->y1 = a->y0 + 1;
    return;
  }
  if (!(yl <= yh)) yl = 0, yh = 1;
  if (!(yl < yh)) {
    double d = yl != 0 ? 0.1 * fabs(yl) : 1;
    yl -= d, yh += d;
  }
  double pad = 0.05 * (yh - yl);
  a->y0 = yl - pad, a->y1 = yh + pad;
}

static void text_at(cairo_t *cr, const char *t, double x, double y, double ax, double ay) {
  cairo_text_extents_t te;
  cairo_text_extents(cr, t, &te);
  cairo_move_to(cr, x - ax * te.x_advance, y - ay * te.y_bearing);
  cairo_show_text(cr, t);
}

static void draw_axes(cairo_t *cr, const vs_plot_options *o, const layout *L, const axes *a) {
  const double *f = L->frame;
  double fs = L->fs, t[64], step;
  char buf[64];
  set_font(cr, fs, 0);
  cairo_set_line_width(cr, 1);
  /* x: grid, ticks, labels */
  int nt = vs_plot_ticks(a->x0, a->x1, (int)fmax(2, (f[2] - f[0]) / (7 * fs)), t, 64, &step);
  for (int i = 0; i < nt; i++) {
    double x = floor(px(a, t[i])) + 0.5;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, x, f[1]);
    cairo_line_to(cr, x, f[3]);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, x, f[3]);
    cairo_line_to(cr, x, f[3] + 0.4 * fs);
    cairo_stroke(cr);
    snprintf(buf, sizeof buf, "%.6g", step > 0 ? round(t[i] / step) * step : t[i]);
    text_at(cr, buf, x, f[3] + 0.6 * fs, 0.5, 1);
  }
  /* y: decades on a log axis, nice ticks otherwise */
  double ys[64];
  int ny = 0;
  if (a->log) {
    int every = (int)ceil((a->y1 - a->y0) / 10);
    for (double e = a->y0; e <= a->y1 + 1e-9 && ny < 64; e += every) ys[ny++] = e;
    if (a->y1 - a->y0 <= 6) /* minor ticks at 2..9 */
      for (double e = a->y0; e < a->y1; e += 1)
        for (int m = 2; m <= 9; m++) {
          double y = floor(py(a, m * pow(10, e))) + 0.5;
          cairo_set_source_rgb(cr, 0, 0, 0);
          cairo_move_to(cr, f[0] - 0.2 * fs, y);
          cairo_line_to(cr, f[0], y);
          cairo_stroke(cr);
        }
  } else {
    ny = vs_plot_ticks(a->y0, a->y1, (int)fmax(2, (f[3] - f[1]) / (3 * fs)), ys, 64, &step);
  }
  for (int i = 0; i < ny; i++) {
    double y = floor(a->log ? py(a, pow(10, ys[i])) : py(a, ys[i])) + 0.5;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, f[0], y);
    cairo_line_to(cr, f[2], y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, f[0] - 0.4 * fs, y);
    cairo_line_to(cr, f[0], y);
    cairo_stroke(cr);
    if (a->log)
      snprintf(buf, sizeof buf, "1e%d", (int)lround(ys[i]));
    else
      snprintf(buf, sizeof buf, "%.6g", step > 0 ? round(ys[i] / step) * step : ys[i]);
    text_at(cr, buf, f[0] - 0.6 * fs, y, 1, 0.5);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, floor(f[0]) + 0.5, floor(f[1]) + 0.5, floor(f[2]) - floor(f[0]),
                  floor(f[3]) - floor(f[1]));
  cairo_stroke(cr);
  if (o->xlabel) text_at(cr, o->xlabel, 0.5 * (f[0] + f[2]), o->height - 0.5 * fs, 0.5, 0);
  if (o->ylabel) {
    cairo_save(cr);
    cairo_translate(cr, 1.4 * fs, 0.5 * (f[1] + f[3]));
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, o->ylabel, 0, 0, 0.5, 0);
    cairo_restore(cr);
  }
  if (o->title) {
    set_font(cr, 1.2 * fs, 1);
    text_at(cr, o->title, 0.5 * (f[0] + f[2]), 0.7 * fs, 0.5, 1);
  }
}

static void draw_series(cairo_t *cr, const axes *a, const vs_plot_series *s, int idx) {
  double rgb[3];
  vs_view_palette(s->color >= 0 ? s->color : idx, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, 1.8);
  int open = 0;
  for (size_t i = 0; i < s->n; i++) {
    double x = s->x[i], y = s->y[i];
    if (!isfinite(x) || !isfinite(y) || (a->log && y <= 0)) {
      open = 0;
      continue;
    }
    if (open)
      cairo_line_to(cr, px(a, x), py(a, y));
    else
      cairo_move_to(cr, px(a, x), py(a, y));
    open = 1;
  }
  cairo_stroke(cr);
  for (size_t i = 0; i < s->n; i++) { /* markers: few points, or isolated ones */
    double x = s->x[i], y = s->y[i];
    if (!isfinite(x) || !isfinite(y) || (a->log && y <= 0)) continue;
    int lone = (i == 0 || !isfinite(s->y[i - 1]) || (a->log && s->y[i - 1] <= 0)) &&
               (i + 1 == s->n || !isfinite(s->y[i + 1]) || (a->log && s->y[i + 1] <= 0));
    if (s->n > 50 && !lone) continue;
    cairo_arc(cr, px(a, x), py(a, y), 2.6, 0, 2 * M_PI);
    cairo_fill(cr);
  }
}

static void draw_legend(cairo_t *cr, const layout *L, const vs_plot_series *s, size_t ns) {
  const double *g = L->legend;
  if (g[2] <= g[0]) return;
  cairo_rectangle(cr, floor(g[0]) + 0.5, floor(g[1]) + 0.5, floor(g[2] - g[0]),
                  floor(g[3] - g[1]));
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  set_font(cr, L->fs, 0);
  for (size_t i = 0; i < ns; i++) {
    double y = g[1] + L->pad + (i + 0.5) * L->row, rgb[3];
    vs_view_palette(s[i].color >= 0 ? s[i].color : (int)i, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, g[0] + L->pad, y);
    cairo_line_to(cr, g[0] + L->pad + L->sample, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (s[i].name) text_at(cr, s[i].name, g[0] + 2 * L->pad + L->sample, y, 0, 0.5);
  }
}

vs_status vs_plot_png(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                      const char *path, const char *const *inputs, vs_error *err) {
  if (!o) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "plot: no options");
  if (o->width < 64 || o->height < 64 || o->width > 16384 || o->height > 16384)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "plot size %dx%d out of range (64 to 16384 pixels each way)", o->width,
                        o->height);
  for (size_t k = 0; k < ns; k++)
    if (s[k].n && (!s[k].x || !s[k].y))
      return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "plot: series %zu has no data", k);
  if (vs_view_cairo_load(err) != VS_OK) return err->code;
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->width, o->height);
  cairo_t *cr = cairo_create(surf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  layout L;
  make_layout(cr, o, s, ns, &L);
  axes a = {.f = L.frame};
  ranges(o, s, ns, &a);
  draw_axes(cr, o, &L, &a);
  cairo_save(cr);
  cairo_rectangle(cr, L.frame[0], L.frame[1], L.frame[2] - L.frame[0], L.frame[3] - L.frame[1]);
  cairo_clip(cr);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  for (size_t k = 0; k < ns; k++) draw_series(cr, &a, &s[k], (int)k);
  cairo_restore(cr);
  draw_legend(cr, &L, s, ns);
  cairo_status_t cs = cairo_status(cr);
  cairo_destroy(cr);
  vs_status st = cs == CAIRO_STATUS_SUCCESS ? VS_OK : vs_view_cairo_error(cs, "plot", err);
  if (st == VS_OK) {
    cairo_surface_flush(surf);
    st = vs_view_write_png(surf, path, inputs, err);
  }
  cairo_surface_destroy(surf);
  return st;
}
