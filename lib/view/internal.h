/* internal.h (private to lib/view): what render.c and plot.c share. */
#ifndef VSIM_VIEW_INTERNAL_H
#define VSIM_VIEW_INTERNAL_H

#include "view/cairo_dl.h" /* cairo through dlopen: not in every run's start-up */
#include <stdint.h>

#include "view/view.h"

#define VS_VIEW_HIDDEN __attribute__((visibility("hidden")))

/* The font every text uses (cairo's toy API through fontconfig). */
#define VS_VIEW_FONT "DejaVu Sans"

/* Write an image surface to path as PNG, through the safe output files of
 * util/outfile.h: a temporary file beside path, renamed over it when
 * complete; an existing regular file is replaced, never a link, a device,
 * a FIFO, a directory or one of inputs (NULL-terminated; NULL: none).
 * Nothing is left behind on failure. */
VS_VIEW_HIDDEN vs_status vs_view_write_png(cairo_surface_t *s, const char *path,
                                           const char *const *inputs, vs_error *err);

/* A surface's or context's cairo failure as a vs_status. */
VS_VIEW_HIDDEN vs_status vs_view_cairo_error(cairo_status_t cs, const char *what, vs_error *err);

/* One primitive of a frame, in screen space (render.c builds, draw.c paints). */
enum { P_POLY, P_LINE, P_DISC, P_BALL, P_CAPSULE, P_GRID };

typedef struct vs_view_prim {
  float x[4], y[4];
  float r;      /* disc/ball/capsule radius in px; line width */
  float rgb[3];
  uint8_t kind, np;
} vs_view_prim;

VS_VIEW_HIDDEN void vs_view_draw_prim(cairo_t *cr, const vs_view_prim *p);
/* The time label, the optional label line and, when colouring by a scalar,
 * the colour bar over [lo, hi]. */
VS_VIEW_HIDDEN void vs_view_draw_labels(cairo_t *cr, const vs_view_options *o, double lo,
                                        double hi, const vs_view_frame *f);

#endif
