/* SPDX-License-Identifier: MIT */
/* vsim/render.h: pictures of result files (`vsim render`, `vsim plot`).
 *
 * A renderer draws frames of a result file (vsim/frames.h): flat-shaded
 * triangles, links, particles at their radius, rigid shapes, colliders (a
 * plane as a finite grid) with a depth test per sample (the nearest surface
 * shows at every point), and a time label, from an orthographic camera.
 * The camera frames the bodies (particles and rigid bodies, far strays left
 * out, with the colliders no larger than about them: not planes, not a
 * floor mesh many times their size), over every frame of the run (of both
 * files when a golden run is overlaid, so the camera never jumps) or over
 * the frame drawn; a view or a camera position gives its direction, a
 * look-at point its centre, a zoom its scale.  A golden run is drawn in grey
 * under the frame, at the frame nearest in time.  The plot draws
 * observables of one or more files against time.  A picture (PNG, SVG or
 * PDF) is written to a temporary file beside its path and renamed over it
 * when complete (docs/cli.md, Output files): an existing regular file is
 * replaced; a symbolic link, a directory, a device or FIFO, and the files
 * drawn from are refused (VS_ERR_USAGE); nothing is left behind on
 * failure. */
#ifndef VSIM_RENDER_H
#define VSIM_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/frames.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vs_render_view {
  VS_RENDER_ISO = 0, /* from (1, 1, 1), y up */
  VS_RENDER_FRONT,   /* looking along -z */
  VS_RENDER_SIDE,    /* looking along -x */
  VS_RENDER_TOP      /* looking along -y */
} vs_render_view;

typedef enum vs_render_color {
  VS_RENDER_BODY = 0, /* one colour per body */
  VS_RENDER_SPEED,    /* |v| (recorded velocity, else from consecutive positions) */
  VS_RENDER_STRAIN    /* |length - length at frame 0| / length at frame 0 of each link */
} vs_render_color;

typedef enum vs_render_fit {
  VS_RENDER_FIT_RUN = 0, /* the bodies over every frame: a steady camera */
  VS_RENDER_FIT_FRAME    /* the bodies of the frame drawn */
} vs_render_fit;

/* The file written: PNG; SVG or PDF (through cairo's own surfaces: a frame
 * as an image with its labels as vector outlines, a plot all vectors). */
typedef enum vs_render_format { VS_RENDER_PNG = 0, VS_RENDER_SVG, VS_RENDER_PDF } vs_render_format;

typedef struct vs_render_opts {
  int width, height;    /* pixels, 1..16384 */
  vs_render_view view;
  vs_render_color color;
  vs_render_fit fit;
  double zoom;          /* the fitted scale times this; 0: 1 */
  int has_look_at;      /* the image centre is look_at, else the fitted box's centre */
  double look_at[3];
  int has_camera;       /* look from camera towards the centre (instead of view) */
  double camera[3];
  vs_render_format format; /* of vs_renderer_write */
} vs_render_opts;

typedef struct vs_renderer vs_renderer;

/* Prepare to draw frames of f (and golden, may be NULL): reads every frame
 * once for the bounds (and, colouring by speed or strain, the colour range
 * over all frames).  f and golden stay the caller's and must outlive r. */
vs_status vs_renderer_new(vs_frames *f, vs_frames *golden, const vs_render_opts *o,
                          vs_renderer **out, vs_error *err);
void vs_renderer_free(vs_renderer *r);

/* Frame k of f as a file in the options' format (vs_renderer_png: a PNG
 * whatever they say), or as rgb[height][width][3] (ffmpeg's rgb24).  k out
 * of range: VS_ERR_USAGE naming the valid range.  (A camera position at the
 * look-at point, which gives no direction, is VS_ERR_USAGE from
 * vs_renderer_new.) */
vs_status vs_renderer_write(vs_renderer *r, size_t k, const char *path, vs_error *err);
vs_status vs_renderer_png(vs_renderer *r, size_t k, const char *path, vs_error *err);
vs_status vs_renderer_rgb(vs_renderer *r, size_t k, uint8_t *rgb, vs_error *err);

/* Plot observables of several files against time into a picture. */
typedef enum vs_plot_yscale { VS_PLOT_Y_AUTO = 0, VS_PLOT_Y_LINEAR, VS_PLOT_Y_LOG } vs_plot_yscale;

typedef struct vs_plot_request {
  vs_frames *const *files;   /* n_files open files */
  const char *const *labels; /* legend name of each file (NULL: its path) */
  size_t n_files;
  const char *const *series; /* names (vs_frames_series_name); NULL: the defaults */
  size_t n_series;
  int width, height;         /* pixels, 64..16384 */
  vs_plot_yscale yscale;     /* auto: log when a series spans more than 3 decades */
  vs_render_format format;   /* PNG, SVG or PDF */
} vs_plot_request;

/* One panel per unit (metres, joules, counts, ratios), each on a linear,
 * log or symmetric-log axis (zeros and negatives are drawn); a series of
 * zeros is a flat line, "(all 0)" in the legend; the legend outside the
 * panels.  Several files (a sweep's points) are named by the `--set`
 * parameters that differ between them (from each file's recorded command),
 * else by their labels; with several series each, colour is the file and
 * dash the series.  No series named: constraint_error_max, penetration_max
 * and energy_kinetic (those a file has).  A series that no file has is VS_ERR_USAGE naming the file and listing the
 * series it has; a file with none of the defaults, likewise. */
vs_status vs_plot_files(const vs_plot_request *q, const char *path, vs_error *err);

/* What vs_plot_files would draw, as one JSON object (vs_free_buffer):
 * {"panels": [{"unit": "m", "label": "length [m]", "scale": "linear",
 *   "series": ["iterations=5: constraint_error_max", ...]}, ...],
 *  "legend": ["iterations=5", ..., "penetration_max (all 0)"]}
 * -- a panel per unit, top to bottom, its scale "linear", "log" or
 * "symlog"; with several files each series is named by its file's label.
 * The same errors as vs_plot_files, nothing written. */
vs_status vs_plot_describe(const vs_plot_request *q, char **json, vs_error *err);

/* Give back the static caches of cairo and fontconfig (fonts, patterns), so
 * that a leak checker sees none; call once, at the end, after all drawing. */
void vs_render_cleanup(void);

#ifdef __cplusplus
}
#endif
#endif
