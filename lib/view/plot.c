/* SPDX-License-Identifier: MIT */
/* plot.c: series against time with cairo (see view/view.h).
 *
 * Panels stacked over one time axis, one per unit, each with "nice" ticks
 * (1, 2 or 5 times a power of ten) and light grid lines, its own y label
 * and scale; the time's tick labels and label under the lowest panel; a
 * title; the series as lines in style colours (with markers when a series
 * has few points); the legend to the right of the panels.
 *
 * A symmetric-logarithmic axis maps y to sign(y) log10(1 + |y| / c): linear
 * through 0 (a zero at the first frame sits on the axis' 0, not off the
 * plot), logarithmic for |y| well above c.  c is a power of ten at or under
 * the smallest non-zero magnitude, but at most 6 decades under the largest,
 * so that a stray 1e-300 does not stretch the axis (what is smaller than a
 * millionth of the largest is drawn as about 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view/internal.h"

void vs_plot_options_init(vs_plot_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 800;
  o->height = 500;
  o->xlabel = "time [s]";
  o->yscale = VS_PLOT_AUTO;
}

/* ---- scales -------------------------------------------------------------- */

typedef struct stats {
  double lo, hi;     /* finite values */
  double minabs;     /* smallest non-zero magnitude */
  double maxabs;
  int nonpos;        /* some value <= 0 */
  int any;
} stats;

static void stats_add(stats *t, const vs_plot_series *s) {
  for (size_t i = 0; i < s->n; i++) {
    double y = s->y[i];
    if (!isfinite(y) || !isfinite(s->x[i])) continue;
    if (!t->any) t->lo = t->hi = y, t->minabs = INFINITY, t->maxabs = 0;
    t->any = 1;
    t->lo = fmin(t->lo, y), t->hi = fmax(t->hi, y);
    if (y <= 0) t->nonpos = 1;
    if (y != 0) t->minabs = fmin(t->minabs, fabs(y)), t->maxabs = fmax(t->maxabs, fabs(y));
  }
}

static vs_plot_scale scale_of(const stats *t, vs_plot_scale asked) {
  if (asked == VS_PLOT_LINEAR || !t->any || !(t->maxabs > 0)) return VS_PLOT_LINEAR;
  int wide = t->maxabs / t->minabs > 1e3;
  if (asked == VS_PLOT_AUTO && !wide) return VS_PLOT_LINEAR;
  return t->nonpos ? VS_PLOT_SYMLOG : VS_PLOT_LOG;
}

vs_plot_scale vs_plot_scale_for(const vs_plot_series *s, size_t ns) {
  stats t = {0};
  for (size_t k = 0; k < ns; k++) stats_add(&t, &s[k]);
  return scale_of(&t, VS_PLOT_AUTO);
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

/* ---- panels and layout --------------------------------------------------- */

typedef struct panel {
  char key[24];      /* the unit, or "count" */
  char label[96];    /* the y label */
  vs_plot_scale scale;
  double c;          /* symlog threshold */
  double y0, y1;     /* the axis range, transformed */
  double f[4];       /* frame l, t, r, b */
  stats st;
  const char *quantity;
  int one_quantity;
} panel;

/* A legend row: the caller's key or a named series. */
typedef struct keyrow {
  const char *text;
  int color, dash;
  int all_zero;      /* append " (all 0)" */
} keyrow;

typedef struct layout {
  double fs, kfs;    /* font sizes: text, legend */
  size_t np;
  panel p[VS_PLOT_MAX_PANELS];
  double x0, x1;
  keyrow *keys;
  size_t nk, shown;
  double legend[4], row, pad, sample, textw;
} layout;

static void set_font(cairo_t *cr, double size, int bold) {
  cairo_select_font_face(cr, VS_VIEW_FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static int all_whole(const vs_plot_series *s) {
  for (size_t i = 0; i < s->n; i++)
    if (isfinite(s->y[i]) && s->y[i] != floor(s->y[i])) return 0;
  return 1;
}

static int all_zero(const vs_plot_series *s) {
  int any = 0;
  for (size_t i = 0; i < s->n; i++)
    if (isfinite(s->y[i]) && isfinite(s->x[i])) {
      if (s->y[i] != 0) return 0;
      any = 1;
    }
  return any;
}

static void panel_key(const vs_plot_series *s, char key[24]) {
  const char *u = s->unit ? s->unit : "";
  if (strcmp(u, "1") == 0 && all_whole(s)) u = "count";
  snprintf(key, 24, "%s", u);
}

/* The panel of series s (the last one takes what does not fit). */
static size_t panel_of(const layout *L, const vs_plot_series *s) {
  char key[24];
  panel_key(s, key);
  for (size_t i = 0; i < L->np; i++)
    if (strcmp(L->p[i].key, key) == 0) return i;
  return L->np ? L->np - 1 : 0;
}

static const char *quantity_of(const vs_plot_series *s) {
  return s->quantity ? s->quantity : s->name ? s->name : "";
}

static void panel_label(const vs_plot_options *o, size_t np, panel *p) {
  const char *k = p->key;
  if (np == 1 && o->ylabel) {
    snprintf(p->label, sizeof p->label, "%s", o->ylabel);
  } else if (p->one_quantity && p->quantity && *p->quantity) {
    if (*k && strcmp(k, "1") != 0 && strcmp(k, "count") != 0)
      snprintf(p->label, sizeof p->label, "%s [%s]", p->quantity, k);
    else
      snprintf(p->label, sizeof p->label, "%s", p->quantity);
  } else {
    const char *what = strcmp(k, "m") == 0         ? "length [m]"
                       : strcmp(k, "J") == 0       ? "energy [J]"
                       : strcmp(k, "count") == 0   ? "count"
                       : strcmp(k, "1") == 0       ? "ratio"
                       : strcmp(k, "m s-1") == 0   ? "speed [m/s]"
                       : *k                        ? NULL
                                                   : "value";
    if (what)
      snprintf(p->label, sizeof p->label, "%s", what);
    else
      snprintf(p->label, sizeof p->label, "[%s]", k);
  }
}

static void panel_range(panel *p) {
  stats *t = &p->st;
  if (p->scale == VS_PLOT_LOG) {
    p->y0 = floor(log10(t->minabs) + 1e-9);
    p->y1 = ceil(log10(t->maxabs) - 1e-9);
    if (p->y1 <= p->y0) p->y1 = p->y0 + 1;
    return;
  }
  if (p->scale == VS_PLOT_SYMLOG) {
    double c = fmax(t->minabs, t->maxabs * 1e-6);
    p->c = pow(10, floor(log10(c) + 1e-9));
    double a = t->lo, b = t->hi;
    double ta = a < 0 ? -log10(1 - a / p->c) : log10(1 + a / p->c);
    double tb = b < 0 ? -log10(1 - b / p->c) : log10(1 + b / p->c);
    double pad = 0.04 * (tb - ta);
    p->y0 = ta - pad, p->y1 = tb + pad;
    return;
  }
  double yl = t->any ? t->lo : 0, yh = t->any ? t->hi : 1;
  if (!(yl < yh)) {
    double d = yl != 0 ? 0.1 * fabs(yl) : 1;
    yl -= d, yh += d;
  }
  double pad = 0.05 * (yh - yl);
  p->y0 = yl - pad, p->y1 = yh + pad;
}

/* Text shortened with "..." to fit w pixels at the current font. */
static void fit_text(cairo_t *cr, const char *t, double w, char *out, size_t size) {
  snprintf(out, size, "%s", t);
  cairo_text_extents_t te;
  cairo_text_extents(cr, out, &te);
  size_t n = strlen(out);
  while (te.x_advance > w && n > 0) {
    n--;
    while (n > 0 && ((unsigned char)out[n] & 0xC0) == 0x80) n--; /* whole UTF-8 characters */
    if (n + 4 > size) continue;
    memcpy(out + n, "...", 4);
    cairo_text_extents(cr, out, &te);
  }
}

static void key_text(const keyrow *k, char *buf, size_t size) {
  snprintf(buf, size, "%s%s", k->text ? k->text : "", k->all_zero ? " (all 0)" : "");
}

static int make_layout(cairo_t *cr, const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                       layout *L) {
  memset(L, 0, sizeof *L);
  double fs = fmax(10, fmin(o->width, o->height) / 40.0);
  L->fs = fs;
  /* panels, in order of the units' first series */
  for (size_t k = 0; k < ns; k++) {
    char key[24];
    panel_key(&s[k], key);
    size_t i = 0;
    while (i < L->np && strcmp(L->p[i].key, key) != 0) i++;
    if (i == L->np && L->np < VS_PLOT_MAX_PANELS) {
      snprintf(L->p[L->np].key, sizeof L->p[0].key, "%s", key);
      L->p[L->np].quantity = quantity_of(&s[k]);
      L->p[L->np].one_quantity = 1;
      L->np++;
    }
  }
  if (!L->np) L->np = 1; /* no series: empty axes */
  L->x0 = INFINITY, L->x1 = -INFINITY;
  for (size_t k = 0; k < ns; k++) {
    panel *p = &L->p[panel_of(L, &s[k])];
    stats_add(&p->st, &s[k]);
    if (strcmp(p->quantity, quantity_of(&s[k])) != 0) p->one_quantity = 0;
    for (size_t i = 0; i < s[k].n; i++)
      if (isfinite(s[k].x[i]) && isfinite(s[k].y[i]))
        L->x0 = fmin(L->x0, s[k].x[i]), L->x1 = fmax(L->x1, s[k].x[i]);
  }
  if (!(L->x0 <= L->x1)) L->x0 = 0, L->x1 = 1;
  if (!(L->x0 < L->x1)) L->x0 -= 0.5, L->x1 += 0.5;
  for (size_t i = 0; i < L->np; i++) {
    L->p[i].scale = scale_of(&L->p[i].st, o->yscale);
    panel_range(&L->p[i]);
    panel_label(o, L->np, &L->p[i]);
  }
  /* the legend's rows */
  size_t nk = o->keys ? o->n_keys : 0;
  if (!o->keys)
    for (size_t k = 0; k < ns; k++) nk += s[k].name != NULL;
  L->keys = calloc(nk + 1, sizeof *L->keys);
  if (!L->keys) return -1;
  if (o->keys) {
    for (size_t i = 0; i < nk; i++)
      L->keys[i] = (keyrow){o->keys[i].text, o->keys[i].color, o->keys[i].dash, 0};
  } else {
    size_t j = 0;
    for (size_t k = 0; k < ns; k++) {
      if (!s[k].name) continue;
      int c = s[k].color >= 0 ? s[k].color : (int)k;
      L->keys[j++] = (keyrow){s[k].name, c, s[k].dash, all_zero(&s[k])};
    }
  }
  L->nk = nk;
  /* the frame: left for tick labels and the y label, right for the legend */
  double left = 6.5 * fs + 1.6 * fs, top = o->title ? 2.6 * fs : 1.2 * fs;
  double bottom = o->height - 2.0 * fs - (o->xlabel ? 1.6 * fs : 0), right = o->width - 1.6 * fs;
  if (nk) {
    L->kfs = fs;
    L->pad = 0.6 * fs;
    L->sample = 2.2 * fs;
    /* smaller type when the rows would not fit the height, down to 0.7 */
    double avail = o->height - top - 0.6 * fs;
    if (2 * L->pad + nk * 1.4 * fs > avail) L->kfs = fmax(0.7 * fs, (avail - 2 * L->pad) / (1.4 * nk));
    L->row = 1.4 * L->kfs;
    set_font(cr, L->kfs, 0);
    double tw = 0;
    char buf[512];
    for (size_t i = 0; i < nk; i++) {
      cairo_text_extents_t te;
      key_text(&L->keys[i], buf, sizeof buf);
      cairo_text_extents(cr, buf, &te);
      tw = fmax(tw, te.x_advance);
    }
    double maxw = 0.4 * o->width - 3 * L->pad - L->sample;
    L->textw = fmin(tw, fmax(maxw, 2 * fs));
    double w = 3 * L->pad + L->sample + L->textw;
    L->shown = nk;
    size_t fit = (size_t)fmax(1, floor((avail - 2 * L->pad) / L->row));
    if (L->shown > fit) L->shown = fit; /* the last row then says "+N more" */
    L->legend[2] = o->width - 0.6 * fs;
    L->legend[0] = L->legend[2] - w;
    L->legend[1] = top;
    L->legend[3] = top + 2 * L->pad + L->shown * L->row;
    right = L->legend[0] - 1.2 * fs;
  }
  if (right < left + 4 * fs) right = left + 4 * fs;
  /* panels: equal heights, a gap between them */
  double gap = 1.0 * fs, h = (bottom - top - gap * (double)(L->np - 1)) / (double)L->np;
  if (h < 2 * fs) h = 2 * fs;
  for (size_t i = 0; i < L->np; i++) {
    double *f = L->p[i].f;
    f[0] = left, f[2] = right;
    f[1] = top + (double)i * (h + gap);
    f[3] = f[1] + h;
  }
  return 0;
}

void vs_plot_layout(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                    vs_plot_geometry *g) {
  int *sp = g->series_panel;
  memset(g, 0, sizeof *g);
  g->series_panel = sp;
  if (vs_view_cairo() == NULL) return;
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t *cr = cairo_create(surf);
  layout L;
  if (make_layout(cr, o, s, ns, &L) == 0) {
    g->n_panels = L.np;
    for (size_t i = 0; i < L.np; i++) {
      memcpy(g->panel[i], L.p[i].f, sizeof g->panel[i]);
      g->scale[i] = L.p[i].scale;
      snprintf(g->unit[i], sizeof g->unit[i], "%s", L.p[i].key);
      snprintf(g->label[i], sizeof g->label[i], "%s", L.p[i].label);
    }
    for (size_t k = 0; sp && k < ns; k++) sp[k] = (int)panel_of(&L, &s[k]);
    memcpy(g->legend, L.legend, sizeof g->legend);
    g->n_keys = L.nk;
    g->n_shown = L.shown;
    g->row = L.row, g->pad = L.pad, g->sample = L.sample;
  }
  free(L.keys);
  cairo_destroy(cr);
  cairo_surface_destroy(surf);
}

/* ---- drawing ------------------------------------------------------------- */

static double px(const layout *L, const panel *p, double x) {
  return p->f[0] + (x - L->x0) / (L->x1 - L->x0) * (p->f[2] - p->f[0]);
}

static double tr(const panel *p, double y) {
  if (p->scale == VS_PLOT_LOG) return log10(y);
  if (p->scale == VS_PLOT_SYMLOG) return y < 0 ? -log10(1 - y / p->c) : log10(1 + y / p->c);
  return y;
}

/* y on screen; the value already transformed */
static double pty(const panel *p, double v) {
  return p->f[3] - (v - p->y0) / (p->y1 - p->y0) * (p->f[3] - p->f[1]);
}

static double py(const panel *p, double y) { return pty(p, tr(p, y)); }

static int drawable(const panel *p, double x, double y) {
  return isfinite(x) && isfinite(y) && !(p->scale == VS_PLOT_LOG && y <= 0);
}

static void text_at(cairo_t *cr, const char *t, double x, double y, double ax, double ay) {
  cairo_text_extents_t te;
  cairo_text_extents(cr, t, &te);
  cairo_move_to(cr, x - ax * te.x_advance, y - ay * te.y_bearing);
  cairo_show_text(cr, t);
}

static void hline(cairo_t *cr, const double *f, double y) {
  cairo_move_to(cr, f[0], y);
  cairo_line_to(cr, f[2], y);
  cairo_stroke(cr);
}

static void ytick(cairo_t *cr, const layout *L, const panel *p, double v, const char *label,
                  int grid) {
  const double *f = p->f;
  double fs = L->fs, y = floor(pty(p, v)) + 0.5;
  if (y < f[1] - 0.5 || y > f[3] + 0.5) return;
  if (grid) {
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    hline(cr, f, y);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_move_to(cr, f[0] - (label ? 0.4 : 0.2) * fs, y);
  cairo_line_to(cr, f[0], y);
  cairo_stroke(cr);
  if (label) text_at(cr, label, f[0] - 0.6 * fs, y, 1, 0.5);
}

static void decade_label(double e, char *buf, size_t size) {
  snprintf(buf, size, "1e%d", (int)lround(e));
}

static void draw_panel(cairo_t *cr, const vs_plot_options *o, const layout *L, size_t i) {
  const panel *p = &L->p[i];
  const double *f = p->f;
  double fs = L->fs, t[64], step;
  char buf[64];
  set_font(cr, fs, 0);
  cairo_set_line_width(cr, 1);
  cairo_set_dash(cr, NULL, 0, 0);
  /* x: grid and ticks in every panel, labels under the last */
  int nt = vs_plot_ticks(L->x0, L->x1, (int)fmax(2, (f[2] - f[0]) / (7 * fs)), t, 64, &step);
  for (int k = 0; k < nt; k++) {
    double x = floor(px(L, p, t[k])) + 0.5;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, x, f[1]);
    cairo_line_to(cr, x, f[3]);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, x, f[3]);
    cairo_line_to(cr, x, f[3] + 0.4 * fs);
    cairo_stroke(cr);
    if (i + 1 == L->np) {
      snprintf(buf, sizeof buf, "%.6g", step > 0 ? round(t[k] / step) * step : t[k]);
      text_at(cr, buf, x, f[3] + 0.6 * fs, 0.5, 1);
    }
  }
  /* y */
  int target = (int)fmax(2, (f[3] - f[1]) / (2.5 * fs));
  if (p->scale == VS_PLOT_LOG) {
    int every = (int)ceil((p->y1 - p->y0) / target);
    if (every < 1) every = 1;
    for (double e = p->y0; e <= p->y1 + 1e-9; e += every) {
      decade_label(e, buf, sizeof buf);
      ytick(cr, L, p, e, buf, 1);
    }
    if (p->y1 - p->y0 <= 6) /* minor ticks at 2..9 */
      for (double e = p->y0; e < p->y1; e += 1)
        for (int m = 2; m <= 9; m++) ytick(cr, L, p, log10(m) + e, NULL, 0);
  } else if (p->scale == VS_PLOT_SYMLOG) {
    /* 0, then +-10^k from ten times the threshold up */
    ytick(cr, L, p, 0, "0", 1);
    double e0 = round(log10(p->c)) + 1, emax = ceil(log10(fmax(fabs(p->st.lo), fabs(p->st.hi))));
    if (emax < e0) e0 = emax;
    int every = (int)ceil((emax - e0 + 1) / fmax(1, target - 1));
    if (every < 1) every = 1;
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
      if ((sgn > 0 && !(p->st.hi > 0)) || (sgn < 0 && !(p->st.lo < 0))) continue;
      for (double e = e0; e <= emax + 1e-9; e += every) {
        double v = sgn * pow(10, e);
        snprintf(buf, sizeof buf, "%s1e%d", sgn < 0 ? "-" : "", (int)lround(e));
        ytick(cr, L, p, tr(p, v), buf, 1);
      }
    }
  } else {
    int ny = vs_plot_ticks(p->y0, p->y1, target, t, 64, &step);
    for (int k = 0; k < ny; k++) {
      snprintf(buf, sizeof buf, "%.6g", step > 0 ? round(t[k] / step) * step : t[k]);
      ytick(cr, L, p, t[k], buf, 1);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, floor(f[0]) + 0.5, floor(f[1]) + 0.5, floor(f[2]) - floor(f[0]),
                  floor(f[3]) - floor(f[1]));
  cairo_stroke(cr);
  /* the y label, centred on the panel */
  cairo_save(cr);
  cairo_translate(cr, 1.4 * fs, 0.5 * (f[1] + f[3]));
  cairo_rotate(cr, -M_PI / 2);
  char lab[96];
  fit_text(cr, p->label, f[3] - f[1], lab, sizeof lab);
  text_at(cr, lab, 0, 0, 0.5, 0);
  cairo_restore(cr);
  (void)o;
}

static const double dashes[5][4] = {{0}, {7, 4}, {1.5, 3}, {8, 3, 1.5, 3}, {14, 5}};
static const int n_dash[5] = {0, 2, 2, 4, 2};

static void set_style(cairo_t *cr, int color, int dash) {
  double rgb[3];
  int d;
  if (color < 0) {
    rgb[0] = rgb[1] = rgb[2] = 0.25;
    d = 0;
  } else {
    vs_plot_style(color, rgb, &d);
  }
  if (dash > 0) d = dash % 5;
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_dash(cr, dashes[d], n_dash[d], 0);
}

static void draw_series(cairo_t *cr, const layout *L, const panel *p, const vs_plot_series *s,
                        int idx) {
  set_style(cr, s->color >= 0 ? s->color : idx, s->dash);
  cairo_set_line_width(cr, 1.8);
  int open = 0;
  for (size_t i = 0; i < s->n; i++) {
    double x = s->x[i], y = s->y[i];
    if (!drawable(p, x, y)) {
      open = 0;
      continue;
    }
    if (open)
      cairo_line_to(cr, px(L, p, x), py(p, y));
    else
      cairo_move_to(cr, px(L, p, x), py(p, y));
    open = 1;
  }
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  for (size_t i = 0; i < s->n; i++) { /* markers: few points, or isolated ones */
    double x = s->x[i], y = s->y[i];
    if (!drawable(p, x, y)) continue;
    int lone = (i == 0 || !drawable(p, s->x[i - 1], s->y[i - 1])) &&
               (i + 1 == s->n || !drawable(p, s->x[i + 1], s->y[i + 1]));
    if (s->n > 50 && !lone) continue;
    cairo_arc(cr, px(L, p, x), py(p, y), 2.6, 0, 2 * M_PI);
    cairo_fill(cr);
  }
}

static void draw_legend(cairo_t *cr, const layout *L) {
  const double *g = L->legend;
  if (!L->nk) return;
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_rectangle(cr, floor(g[0]) + 0.5, floor(g[1]) + 0.5, floor(g[2] - g[0]),
                  floor(g[3] - g[1]));
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  set_font(cr, L->kfs, 0);
  char buf[512], fitted[512];
  for (size_t i = 0; i < L->shown; i++) {
    double y = g[1] + L->pad + ((double)i + 0.5) * L->row;
    int more = i + 1 == L->shown && L->shown < L->nk;
    if (more) {
      snprintf(buf, sizeof buf, "+%zu more", L->nk - i);
      cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
      text_at(cr, buf, g[0] + L->pad, y, 0, 0.5);
      break;
    }
    const keyrow *k = &L->keys[i];
    set_style(cr, k->color, k->dash);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, g[0] + L->pad, y);
    cairo_line_to(cr, g[0] + L->pad + L->sample, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_source_rgb(cr, 0, 0, 0);
    key_text(k, buf, sizeof buf);
    fit_text(cr, buf, L->textw + 1, fitted, sizeof fitted);
    text_at(cr, fitted, g[0] + 2 * L->pad + L->sample, y, 0, 0.5);
  }
}

typedef struct plot_job {
  const vs_plot_options *o;
  const vs_plot_series *s;
  size_t ns;
  int oom;
} plot_job;

static void paint_plot(cairo_t *cr, void *ctx) {
  plot_job *j = ctx;
  const vs_plot_options *o = j->o;
  layout L;
  if (make_layout(cr, o, j->s, j->ns, &L) != 0) {
    j->oom = 1;
    return;
  }
  for (size_t i = 0; i < L.np; i++) draw_panel(cr, o, &L, i);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  for (size_t i = 0; i < L.np; i++) {
    const panel *p = &L.p[i];
    cairo_save(cr);
    cairo_rectangle(cr, p->f[0], p->f[1], p->f[2] - p->f[0], p->f[3] - p->f[1]);
    cairo_clip(cr);
    for (size_t k = 0; k < j->ns; k++)
      if (panel_of(&L, &j->s[k]) == i) draw_series(cr, &L, p, &j->s[k], (int)k);
    cairo_restore(cr);
  }
  draw_legend(cr, &L);
  set_font(cr, L.fs, 0);
  cairo_set_source_rgb(cr, 0, 0, 0);
  const double *f0 = L.p[0].f, *fl = L.p[L.np - 1].f;
  if (o->xlabel) text_at(cr, o->xlabel, 0.5 * (fl[0] + fl[2]), o->height - 0.5 * L.fs, 0.5, 0);
  if (o->title) {
    set_font(cr, 1.2 * L.fs, 1);
    text_at(cr, o->title, 0.5 * (f0[0] + f0[2]), 0.7 * L.fs, 0.5, 1);
  }
  free(L.keys);
}

vs_status vs_plot_file(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                       const char *path, const char *const *inputs, vs_error *err) {
  if (!o) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "plot: no options");
  if (o->width < 64 || o->height < 64 || o->width > 16384 || o->height > 16384)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "plot size %dx%d out of range (64 to 16384 pixels each way)", o->width,
                        o->height);
  for (size_t k = 0; k < ns; k++)
    if (s[k].n && (!s[k].x || !s[k].y))
      return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "plot: series %zu has no data", k);
  plot_job j = {o, s, ns, 0};
  vs_status st = vs_view_write(o->format, o->width, o->height, paint_plot, &j, path, inputs, err);
  if (st == VS_OK && j.oom) {
    unlink(path);
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "plot: out of memory");
  }
  return st;
}

vs_status vs_plot_png(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                      const char *path, const char *const *inputs, vs_error *err) {
  if (!o) return vs_plot_file(o, s, ns, path, inputs, err);
  vs_plot_options png = *o;
  png.format = VS_VIEW_PNG;
  return vs_plot_file(&png, s, ns, path, inputs, err);
}
