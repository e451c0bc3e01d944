/* vsim/render.h: pictures of result files (`vsim render`, `vsim plot`).
 *
 * A renderer draws frames of a result file (vsim/frames.h) with cairo:
 * flat-shaded triangles back to front, links, particles at their radius,
 * rigid shapes, colliders (a plane as a finite grid) and a time label, from
 * an orthographic camera fitted to the bounds of every frame (of both files
 * when a golden run is overlaid, so the camera never jumps).  A golden run
 * is drawn first, in grey, at the frame nearest in time.  The plot draws
 * observables of one or more files against time.  A PNG is written to a
 * temporary file beside its path and renamed over it when complete
 * (docs/cli.md, Output files): an existing regular file is replaced; a
 * symbolic link, a directory, a device or FIFO, and the files drawn from
 * are refused (VS_ERR_USAGE); nothing is left behind on failure. */
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

typedef struct vs_render_opts {
  int width, height;    /* pixels, 1..16384 */
  vs_render_view view;
  vs_render_color color;
} vs_render_opts;

typedef struct vs_renderer vs_renderer;

/* Prepare to draw frames of f (and golden, may be NULL): reads every frame
 * once for the bounds (and, colouring by speed or strain, the colour range
 * over all frames).  f and golden stay the caller's and must outlive r. */
vs_status vs_renderer_new(vs_frames *f, vs_frames *golden, const vs_render_opts *o,
                          vs_renderer **out, vs_error *err);
void vs_renderer_free(vs_renderer *r);

/* Frame k of f as a PNG file, or as rgb[height][width][3] (ffmpeg's rgb24).
 * k out of range: VS_ERR_USAGE naming the valid range. */
vs_status vs_renderer_png(vs_renderer *r, size_t k, const char *path, vs_error *err);
vs_status vs_renderer_rgb(vs_renderer *r, size_t k, uint8_t *rgb, vs_error *err);

/* Plot observables of several files against time into a PNG. */
typedef enum vs_plot_yscale { VS_PLOT_Y_AUTO = 0, VS_PLOT_Y_LINEAR, VS_PLOT_Y_LOG } vs_plot_yscale;

typedef struct vs_plot_request {
  vs_frames *const *files;   /* n_files open files */
  const char *const *labels; /* legend name of each file (NULL: its path) */
  size_t n_files;
  const char *const *series; /* names (vs_frames_series_name); NULL: the defaults */
  size_t n_series;
  int width, height;         /* pixels, 64..16384 */
  vs_plot_yscale yscale;     /* auto: log when a series spans more than 3 decades */
} vs_plot_request;

/* No series named: constraint_error_max, penetration_max and energy_kinetic
 * (those a file has).  A series that no file has is VS_ERR_USAGE naming the file and listing the
 * series it has; a file with none of the defaults, likewise. */
vs_status vs_plot_files(const vs_plot_request *q, const char *path, vs_error *err);

/* Give back the static caches of cairo and fontconfig (fonts, patterns), so
 * that a leak checker sees none; call once, at the end, after all drawing. */
void vs_render_cleanup(void);

#ifdef __cplusplus
}
#endif
#endif
