/* SPDX-License-Identifier: MIT */
/* draw.c: the frame's labels and colour bar (the frame itself: raster.c). */
#include <math.h>
#include <stdio.h>

#include "view/internal.h"

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
