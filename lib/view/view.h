/* view.h (private, stage lib/view): drawing a frame and plotting series with cairo.
 *
 * Self-contained: everything comes in as plain arrays (no vs_model, no HDF5), so
 * that `vsim render` / `vsim plot` can feed it from whatever the result reader
 * returns.  The library never prints; every fallible call returns a vs_status
 * and fills a vs_error (the file named is the output path).
 *
 * Coordinates: world y is up (gravity [0, -9.81, 0]).  The camera is
 * orthographic (no perspective: sizes on screen do not depend on depth, so that
 * a radius maps to a known number of pixels), fitted so that the 8 corners of
 * the caller's bounds (taken over all frames, so the camera never jumps) fill
 * the image less a margin, centred.  Views (screen right, screen up):
 *   front: looking along -z: (x, y);      side: looking along -x: (-z, y);
 *   top:   looking along -y: (x, -z);     iso: from direction (1, 1, 1), y up.
 * Drawing is a painter's algorithm: every triangle, box face, disc, link and
 * collider piece is one primitive keyed by its depth (centroid along the view
 * direction), drawn back to front; faces are flat-shaded from a fixed light,
 * both sides alike.  A golden frame, when given, is drawn first, entirely, in
 * grey, and the frame itself on top. */
#ifndef VSIM_VIEW_H
#define VSIM_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

typedef enum vs_view_dir { VS_VIEW_ISO = 0, VS_VIEW_FRONT, VS_VIEW_SIDE, VS_VIEW_TOP } vs_view_dir;

/* body: fixed categorical palette by body index (vs_view_palette);
 * scalar: the frame's scalar (speed, strain, ...) through the colour map over
 * [scalar_min, scalar_max] of the options. */
typedef enum vs_view_color { VS_VIEW_COLOR_BODY = 0, VS_VIEW_COLOR_SCALAR } vs_view_color;

typedef enum vs_view_shape_kind {
  VS_VIEW_BOX = 0,     /* half[3]: half extents along the local axes */
  VS_VIEW_SPHERE = 1,  /* radius */
  VS_VIEW_CAPSULE = 2, /* radius, half_length: cap centres at +-half_length along local y */
} vs_view_shape_kind;

typedef struct vs_view_shape {
  vs_view_shape_kind kind;
  double center[3];
  double quat[4]; /* unit quaternion w, x, y, z (all zero = identity) */
  double half[3];
  double radius;
  double half_length;
  int32_t body;   /* palette index under VS_VIEW_COLOR_BODY */
  double scalar;  /* value under VS_VIEW_COLOR_SCALAR */
} vs_view_shape;

typedef enum vs_view_collider_kind {
  VS_VIEW_COLL_PLANE = 0, /* point, normal: drawn as a finite grid around the scene bounds */
  VS_VIEW_COLL_SPHERE,    /* center, radius */
  VS_VIEW_COLL_BOX,       /* lo, hi: solid, shaded faces */
  VS_VIEW_COLL_BOUNDS,    /* lo, hi: wireframe */
  VS_VIEW_COLL_MESH,      /* vertices [nv][3], tris [nt][3]: shaded triangles */
} vs_view_collider_kind;

typedef struct vs_view_collider {
  vs_view_collider_kind kind;
  double point[3], normal[3];
  double center[3], radius;
  double lo[3], hi[3];
  size_t n_vertices, n_tris;
  const double *vertices;
  const int32_t *tris;
} vs_view_collider;

/* One frame.  Every pointer may be NULL when its count is 0; radius, body,
 * scalar, link_scalar and the alive flags are optional (NULL). */
typedef struct vs_view_frame {
  size_t n_particles;
  const double *pos;          /* [n][3] */
  const double *radius;       /* [n]; NULL: radius_default for all */
  double radius_default;      /* world units; a disc is at least 1 px across */
  const int32_t *body;        /* [n] body index (NULL: all 0) */
  const double *scalar;       /* [n] per-particle scalar (speed, strain) */
  size_t n_links;
  const int32_t *links;       /* [m][2] particle pairs */
  const double *link_scalar;  /* [m]; NULL: mean of the two particles' scalars */
  const uint8_t *link_alive;  /* [m]; NULL: all alive; a dead link is not drawn */
  size_t n_tris;
  const int32_t *tris;        /* [t][3] particle triples */
  const uint8_t *tri_alive;   /* [t]; NULL: all drawn */
  size_t n_shapes;
  const vs_view_shape *shapes;
  size_t n_colliders;
  const vs_view_collider *colliders;
  double time;                /* seconds, for the label */
} vs_view_frame;

typedef struct vs_view_options {
  int width, height;          /* pixels, 1..16384 each */
  vs_view_dir view;
  vs_view_color color;
  double lo[3], hi[3];        /* world bounds to fit (over all frames) */
  double margin;              /* fraction of the image left free on each side; < 0: 0.05 */
  double scalar_min, scalar_max; /* colour map range; min >= max: taken from this frame */
  int time_label;             /* non-zero: "t = 1.234 s" in the top-left corner */
  const char *label;          /* optional second line (a file name, a frame number) */
  /* Particles and links all of whose particles are triangle vertices are part
   * of a surface and not drawn, unless show_surface_parts is non-zero. */
  int show_surface_parts;
} vs_view_options;

/* Defaults: 800x600, iso, colour by body, margin 0.05, time label on, bounds
 * [-1,1]^3 (the caller sets them). */
void vs_view_options_init(vs_view_options *o);

/* Grow [lo, hi] to hold a frame's particles (with radius), shapes and the
 * finite colliders (planes are unbounded and do not count).  Start with
 * lo = +inf, hi = -inf (vs_view_bounds_init) and call once per frame. */
void vs_view_bounds_init(double lo[3], double hi[3]);
void vs_view_bounds_add(const vs_view_frame *f, double lo[3], double hi[3]);

/* Where the camera of o puts a world point: pixel coordinates (x right, y down,
 * pixel centres at .5), the depth (larger = nearer the viewer) and the
 * scale in pixels per world unit. */
void vs_view_project(const vs_view_options *o, const double p[3], double *sx, double *sy,
                     double *depth);
double vs_view_scale(const vs_view_options *o);

/* Render to a PNG file (vs_view_write_png: through a temporary file,
 * renamed into place; never over one of inputs, NULL-terminated or NULL). */
vs_status vs_view_render_png(const vs_view_options *o, const vs_view_frame *frame,
                             const vs_view_frame *golden, const char *path,
                             const char *const *inputs, vs_error *err);
/* Render to rgb[height][width][3] (what `ffmpeg -f rawvideo -pix_fmt rgb24` reads). */
vs_status vs_view_render_rgb(const vs_view_options *o, const vs_view_frame *frame,
                             const vs_view_frame *golden, uint8_t *rgb, vs_error *err);

/* Per-particle speed |v| from velocities [n][3] into speed[n]. */
void vs_view_speed(size_t n, const double *vel, double *speed);
/* Link strain (|xa - xb| - rest) / rest into link_strain[m] (0 where rest <= 0)
 * and, when particle_strain is not NULL, each particle's largest |strain| over
 * its alive links into particle_strain[n]. */
void vs_view_strain(size_t n, const double *pos, size_t m, const int32_t *links,
                    const double *rest, const uint8_t *alive, double *link_strain,
                    double *particle_strain);

/* Colours, components in [0, 1]. */
void vs_view_palette(int index, double rgb[3]);    /* categorical, 10 colours, cycled */
void vs_view_colormap(double t, double rgb[3]);    /* viridis-like, t clamped to [0, 1] */
extern const double vs_view_grey[3];              /* the golden overlay's base grey */

/* ---- plot ---------------------------------------------------------------- */

typedef enum vs_plot_scale { VS_PLOT_AUTO = 0, VS_PLOT_LINEAR, VS_PLOT_LOG } vs_plot_scale;

typedef struct vs_plot_series {
  const char *name;          /* legend text */
  size_t n;
  const double *x, *y;       /* non-finite points (and y <= 0 on a log axis) break the line */
  int color;                 /* palette index; < 0: the series' position */
} vs_plot_series;

typedef struct vs_plot_options {
  int width, height;         /* pixels, 64..16384 each */
  const char *title;         /* NULL: none */
  const char *xlabel;        /* with unit, e.g. "time [s]" */
  const char *ylabel;
  vs_plot_scale yscale;      /* AUTO: log when the positive values span > 3 decades */
} vs_plot_options;

void vs_plot_options_init(vs_plot_options *o); /* 800x500, "time [s]", auto scale */

/* 1 when the series' positive finite values span more than 3 decades and none
 * is <= 0 (zeros are allowed: they leave a gap), else 0. */
int vs_plot_wants_log(const vs_plot_series *s, size_t ns);

/* "Nice" ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten,
 * about `target` of them; writes up to max ticks inside [lo, hi], returns the
 * count, and the step through *step (may be NULL). */
int vs_plot_ticks(double lo, double hi, int target, double *ticks, int max, double *step);

/* Where vs_plot_png puts things for these options and series, in pixels
 * (left, top, right, bottom): the plot frame, and the legend box (all zero
 * when there is no legend: no series has a name).  Legend row i has its
 * sample line, in series i's colour, at y = legend[1] + pad + (i + 0.5) * row
 * from x = legend[0] + pad to legend[0] + pad + sample; *row, *pad and *sample
 * are returned when not NULL. */
void vs_plot_layout(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                    double frame[4], double legend[4], double *row, double *pad,
                    double *sample);

/* Plot into a PNG file, written as vs_view_render_png writes. */
vs_status vs_plot_png(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                      const char *path, const char *const *inputs, vs_error *err);

#endif
