/* SPDX-License-Identifier: MIT */
/* draw.c: how each primitive of render.c is painted, and the frame's labels. */
#include <math.h>
#include <stdio.h>

#include "view/internal.h"

static void rgb_scaled(cairo_t *cr, const float c[3], double s, double add) {
  cairo_set_source_rgb(cr, fmin(1, c[0] * s + add), fmin(1, c[1] * s + add),
                       fmin(1, c[2] * s + add));
}

void vs_view_draw_prim(cairo_t *cr, const vs_view_prim *p) {
  switch (p->kind) {
    case P_POLY:
    case P_GRID:
      cairo_move_to(cr, p->x[0], p->y[0]);
      for (int i = 1; i < p->np; i++) cairo_line_to(cr, p->x[i], p->y[i]);
      cairo_close_path(cr);
      rgb_scaled(cr, p->rgb, 1, 0);
      if (p->kind == P_POLY) {
        cairo_fill(cr);
      } else {
        cairo_fill_preserve(cr);
        rgb_scaled(cr, p->rgb, 0.8, 0);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
      }
      break;
    case P_LINE:
      cairo_set_line_width(cr, p->r);
      cairo_move_to(cr, p->x[0], p->y[0]);
      cairo_line_to(cr, p->x[1], p->y[1]);
      rgb_scaled(cr, p->rgb, 1, 0);
      cairo_stroke(cr);
      break;
    case P_DISC:
      cairo_arc(cr, p->x[0], p->y[0], p->r, 0, 2 * M_PI);
      rgb_scaled(cr, p->rgb, 1, 0);
      if (p->r >= 3) {
        cairo_fill_preserve(cr);
        rgb_scaled(cr, p->rgb, 0.6, 0);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
      } else {
        cairo_fill(cr);
      }
      break;
    case P_BALL: {
      double x = p->x[0], y = p->y[0], r = p->r;
      cairo_pattern_t *g =
          cairo_pattern_create_radial(x - 0.35 * r, y - 0.4 * r, 0.05 * r, x, y, r);
      cairo_pattern_add_color_stop_rgb(g, 0, fmin(1, p->rgb[0] * 0.6 + 0.4),
                                       fmin(1, p->rgb[1] * 0.6 + 0.4),
                                       fmin(1, p->rgb[2] * 0.6 + 0.4));
      cairo_pattern_add_color_stop_rgb(g, 1, p->rgb[0] * 0.45, p->rgb[1] * 0.45,
                                       p->rgb[2] * 0.45);
      cairo_set_source(cr, g);
      cairo_arc(cr, x, y, r, 0, 2 * M_PI);
      cairo_fill(cr);
      cairo_pattern_destroy(g);
      break;
    }
    case P_CAPSULE: {
      double dx = p->x[1] - p->x[0], dy = p->y[1] - p->y[0], l = sqrt(dx * dx + dy * dy);
      double nx = l > 1e-6 ? -dy / l : 0, ny = l > 1e-6 ? dx / l : 1, r = p->r;
      if (nx + ny > 0) nx = -nx, ny = -ny; /* light from the upper left */
      cairo_pattern_t *g = cairo_pattern_create_linear(p->x[0] + nx * r, p->y[0] + ny * r,
                                                       p->x[0] - nx * r, p->y[0] - ny * r);
      cairo_pattern_add_color_stop_rgb(g, 0, fmin(1, p->rgb[0] * 0.6 + 0.4),
                                       fmin(1, p->rgb[1] * 0.6 + 0.4),
                                       fmin(1, p->rgb[2] * 0.6 + 0.4));
      cairo_pattern_add_color_stop_rgb(g, 1, p->rgb[0] * 0.45, p->rgb[1] * 0.45,
                                       p->rgb[2] * 0.45);
      cairo_set_source(cr, g);
      for (int e = 0; e < 2; e++) {
        cairo_arc(cr, p->x[e], p->y[e], r, 0, 2 * M_PI);
        cairo_fill(cr);
      }
      cairo_move_to(cr, p->x[0] + nx * r, p->y[0] + ny * r);
      cairo_line_to(cr, p->x[1] + nx * r, p->y[1] + ny * r);
      cairo_line_to(cr, p->x[1] - nx * r, p->y[1] - ny * r);
      cairo_line_to(cr, p->x[0] - nx * r, p->y[0] - ny * r);
      cairo_close_path(cr);
      cairo_fill(cr);
      cairo_pattern_destroy(g);
      break;
    }
  }
}

void vs_view_draw_labels(cairo_t *cr, const vs_view_options *o, double lo, double hi,
                         const vs_view_frame *f) {
  double fs = fmax(10, fmin(o->width, o->height) / 32.0);
  cairo_select_font_face(cr, VS_VIEW_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, fs);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  char buf[256];
  double y = 1.4 * fs;
  if (o->time_label) {
    snprintf(buf, sizeof buf, "t = %.4g s", f->time);
    cairo_move_to(cr, 0.6 * fs, y);
    cairo_show_text(cr, buf);
    y += 1.3 * fs;
  }
  if (o->label) {
    cairo_move_to(cr, 0.6 * fs, y);
    cairo_show_text(cr, o->label);
  }
  if (o->color != VS_VIEW_COLOR_SCALAR) return;
  /* colour bar: right edge, top third, with its range */
  double bw = fmax(6, fs * 0.8), bh = o->height / 3.0, bx = o->width - bw - 0.6 * fs,
         by = 1.8 * fs;
  cairo_pattern_t *g = cairo_pattern_create_linear(0, by + bh, 0, by);
  for (int i = 0; i <= 8; i++) {
    double c[3];
    vs_view_colormap(i / 8.0, c);
    cairo_pattern_add_color_stop_rgb(g, i / 8.0, c[0], c[1], c[2]);
  }
  cairo_rectangle(cr, bx, by, bw, bh);
  cairo_set_source(cr, g);
  cairo_fill(cr);
  cairo_pattern_destroy(g);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  double v[2] = {hi, lo}, ys[2] = {by - 0.4 * fs, by + bh + 1.1 * fs};
  for (int i = 0; i < 2; i++) {
    cairo_text_extents_t te;
    snprintf(buf, sizeof buf, "%.3g", v[i]);
    cairo_text_extents(cr, buf, &te);
    cairo_move_to(cr, bx + bw - te.x_advance, ys[i]);
    cairo_show_text(cr, buf);
  }
}
