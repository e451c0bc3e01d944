/* SPDX-License-Identifier: MIT */
/* internal.h (private to lib/view): what render.c and plot.c share. */
#ifndef VSIM_VIEW_INTERNAL_H
#define VSIM_VIEW_INTERNAL_H

#include "view/cairo_dl.h" /* cairo through dlopen: not in every run's start-up */
#include <stdint.h>

#include "view/view.h"

#define VS_VIEW_HIDDEN __attribute__((visibility("hidden")))

/* The font every text uses (cairo's toy API through fontconfig). */
#define VS_VIEW_FONT "DejaVu Sans"

/* Paint a picture of w x h pixels (points in SVG and PDF) over white and
 * write it to path as fmt: PNG through an image surface, SVG and PDF
 * through cairo's own surfaces (VS_ERR_UNSUPPORTED when the loaded cairo
 * has none).  Written through the safe output files of util/outfile.h: a
 * temporary file beside path, renamed over it when complete; an existing
 * regular file is replaced, never a link, a device, a FIFO, a directory or
 * one of inputs (NULL-terminated; NULL: none).  Nothing is left behind on
 * failure. */
typedef void (*vs_view_paint_fn)(cairo_t *cr, void *ctx);
VS_VIEW_HIDDEN vs_status vs_view_write(vs_view_format fmt, int w, int h, vs_view_paint_fn paint,
                                       void *ctx, const char *path, const char *const *inputs,
                                       vs_error *err);

/* A surface's or context's cairo failure as a vs_status. */
VS_VIEW_HIDDEN vs_status vs_view_cairo_error(cairo_status_t cs, const char *what, vs_error *err);

/* One primitive of a frame, in screen space (render.c builds, raster.c
 * draws it into the z-buffer).  Depths are world units along the view
 * direction, larger nearer the viewer. */
enum { P_POLY, P_LINE, P_DISC, P_BALL, P_CAPSULE, P_GRID };

typedef struct vs_view_prim {
  float x[4], y[4]; /* pixels; a disc or ball uses [0], a line or capsule [0] to [1] */
  float d[4];       /* the depth at each point */
  float r;          /* disc/ball/capsule radius in px; half the width of a line */
  float rgb[3];
  uint8_t kind, np;
} vs_view_prim;

/* The z-buffer: draw three lists of primitives into an RGB24 image of
 * w x h pixels (cairo's layout: data, stride), over white, each pixel the
 * mean of S x S samples.  scene: the colliders; golden: the golden run,
 * shown where it is nearer than the scene; frame: the frame, over the
 * golden run wherever it covers a sample and depth-tested against the
 * scene.  scale: px per world unit (a ball's depth bulges by its radius).
 * light: the light direction in camera coordinates (right, up, towards the
 * viewer).  0, or -1 when out of memory. */
VS_VIEW_HIDDEN int vs_view_raster(int w, int h, double scale, const double light[3],
                                  const vs_view_prim *scene, size_t n_scene,
                                  const vs_view_prim *golden, size_t n_golden,
                                  const vs_view_prim *frame, size_t n_frame, unsigned char *data,
                                  int stride);

/* The time label, the optional label line and, when colouring by a scalar,
 * the colour bar over [lo, hi]. */
VS_VIEW_HIDDEN void vs_view_draw_labels(cairo_t *cr, const vs_view_options *o, double lo,
                                        double hi, const vs_view_frame *f);

#endif
