/* SPDX-License-Identifier: MIT */
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
 * the caller's bounds fill the image less a margin, centred on the bounds'
 * centre or on the options' centre (then the corners' farthest reach from it
 * fits), the scale times the zoom.  Views (screen right, screen up):
 *   front: looking along -z: (x, y);      side: looking along -x: (-z, y);
 *   top:   looking along -y: (x, -z);     iso: from direction (1, 1, 1), y up;
 * or from any direction (eye): screen up is the world's y as seen from
 * there (from straight above or below, -z or z, as the top view).
 * Drawing uses a z-buffer (view/raster.c): every triangle, box face, disc,
 * ball, link and collider piece is drawn into 4 x 4 samples per pixel (fewer
 * for very large images) with a depth test per sample, so the nearest
 * surface shows at every point whatever the pieces' sizes (a cloth lying on
 * a table top shows over it); faces are flat-shaded from a fixed light, both
 * sides alike, balls and capsules shaded as round.  A golden frame, when
 * given, is drawn in grey where it is nearer than the colliders, and the
 * frame itself over it wherever the frame covers the picture. */
#ifndef VSIM_VIEW_H
#define VSIM_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vsim/error.h"

/* The file a picture is written as: PNG; SVG or PDF (a rendered frame as
 * an image with its labels as vector outlines; a plot all vectors). */
typedef enum vs_view_format { VS_VIEW_PNG = 0, VS_VIEW_SVG, VS_VIEW_PDF } vs_view_format;

/* The drawing's format for the public one (vsim/render.h), and the last
 * part of a path (a title); both for result.c and plot_files.c. */
static inline vs_view_format vs_view_format_of(int render_format) {
  return render_format == 1 ? VS_VIEW_SVG : render_format == 2 ? VS_VIEW_PDF : VS_VIEW_PNG;
}
static inline const char *vs_view_base_name(const char *p) {
  const char *b = strrchr(p, '/');
  return b && b[1] ? b + 1 : p;
}

typedef enum vs_view_dir { VS_VIEW_ISO = 0, VS_VIEW_FRONT, VS_VIEW_SIDE, VS_VIEW_TOP } vs_view_dir;

/* body: fixed categorical palette by body index (vs_view_palette);
 * scalar: the frame's scalar (speed, strain, ...) through the colour map over
 * [scalar_min, scalar_max] of the options. */
typedef enum vs_view_color { VS_VIEW_COLOR_BODY = 0, VS_VIEW_COLOR_SCALAR } vs_view_color;

typedef enum vs_view_shape_kind {
  VS_VIEW_BOX = 0,     /* half[3]: half extents along the local axes */
  VS_VIEW_SPHERE = 1,  /* radius */
  VS_VIEW_CAPSULE = 2, /* radius, half_length: cap centres at +-half_length along local y */
  VS_VIEW_HULL = 3,    /* hull_v [hull_nv][3] local vertices, hull_tri [hull_nt][3] into them
                        * (counter-clockwise from outside); half[3]: a box that holds it */
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
  const double *hull_v;    /* VS_VIEW_HULL (borrowed) */
  const int32_t *hull_tri; /* VS_VIEW_HULL, 0-based into hull_v (borrowed) */
  int32_t hull_nv, hull_nt;
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
  double lo[3], hi[3];        /* world bounds to fit (vs_view_focus_add, vs_view_bounds_add) */
  double eye[3];              /* direction from the scene to the camera; all 0: the view */
  int has_center;             /* non-zero: the image centre is center, else the bounds' */
  double center[3];
  double zoom;                /* the fitted scale times this; <= 0 or not finite: 1 */
  double margin;              /* fraction of the image left free on each side; < 0: 0.05 */
  double scalar_min, scalar_max; /* colour map range; min >= max: taken from this frame */
  int time_label;             /* non-zero: "t = 1.234 s" in the top-left corner */
  const char *label;          /* optional second line (a file name, a frame number) */
  /* Particles and links all of whose particles are triangle vertices are part
   * of a surface and not drawn, unless show_surface_parts is non-zero. */
  int show_surface_parts;
  vs_view_format format;      /* of vs_view_render_file */
} vs_view_options;

/* Defaults: 800x600, iso, colour by body, margin 0.05, time label on, bounds
 * [-1,1]^3 (the caller sets them). */
void vs_view_options_init(vs_view_options *o);

/* Grow [lo, hi] to hold a frame's particles (with radius), shapes and the
 * finite colliders (planes are unbounded and do not count).  Start with
 * lo = +inf, hi = -inf (vs_view_bounds_init) and call once per frame. */
void vs_view_bounds_init(double lo[3], double hi[3]);
void vs_view_bounds_add(const vs_view_frame *f, double lo[3], double hi[3]);

/* What a picture should frame: grow [lo, hi] to hold the frame's bodies
 * (particles with their radius, rigid shapes), without far strays: with at
 * least VS_VIEW_FOCUS_MIN bodies, those whose centre lies beyond the 5th to
 * 95th percentile box (per axis), widened on each side by half its largest
 * side, are left out (a weight fallen 17 m below the cloth it tore from).
 * Colliders do not count.  1 when the frame has a finite body, 0 when not,
 * -1 when out of memory.  Call once per frame for the box of a run. */
#define VS_VIEW_FOCUS_MIN 20
int vs_view_focus_add(const vs_view_frame *f, double lo[3], double hi[3]);
/* Then grow it by each finite collider of f (not planes) that keeps the box
 * within twice its diagonal (a table under a cloth; not a floor mesh 30
 * times the size of what lies on it).  With an empty box (no bodies): every
 * finite collider. */
void vs_view_focus_colliders(const vs_view_frame *f, double lo[3], double hi[3]);

/* Where the camera of o puts a world point: pixel coordinates (x right, y down,
 * pixel centres at .5), the depth (larger = nearer the viewer) and the
 * scale in pixels per world unit. */
void vs_view_project(const vs_view_options *o, const double p[3], double *sx, double *sy,
                     double *depth);
double vs_view_scale(const vs_view_options *o);

/* Render to a file in o->format (vs_view_render_png: PNG whatever o says),
 * through a temporary file renamed into place (vs_view_write: never over a
 * link, a special file or one of inputs, NULL-terminated or NULL). */
vs_status vs_view_render_file(const vs_view_options *o, const vs_view_frame *frame,
                              const vs_view_frame *golden, const char *path,
                              const char *const *inputs, vs_error *err);
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
void vs_view_palette(int index, double rgb[3]);    /* categorical, 20 colours, cycled */
void vs_view_colormap(double t, double rgb[3]);    /* viridis-like, t clamped to [0, 1] */
extern const double vs_view_grey[3];              /* the golden overlay's base grey */

/* ---- plot ----------------------------------------------------------------
 *
 * Series against time in panels stacked over one time axis: one panel per
 * unit (metres and joules never share an axis; unit "1" splits into counts,
 * the series whose values are all whole numbers, and ratios).  Each panel's
 * y axis is linear, logarithmic (whole decades) or symmetric-logarithmic
 * (linear through 0 up to a threshold, logarithmic beyond: zeros and
 * negatives are drawn, not dropped).  A series of zeros is drawn as a flat
 * line and its legend entry says "(all 0)".  Colours: 20 without a repeat,
 * then the same 20 dashed, dotted, ...  The legend stands to the right of
 * the panels, outside them. */

typedef enum vs_plot_scale {
  VS_PLOT_AUTO = 0, /* per panel: log or symlog when the magnitudes span > 3 decades */
  VS_PLOT_LINEAR,
  VS_PLOT_LOG,      /* log; symlog in a panel with zeros or negatives */
  VS_PLOT_SYMLOG    /* (a panel's scale; not asked for) */
} vs_plot_scale;

typedef struct vs_plot_series {
  const char *name;          /* legend text; NULL: no entry (options' keys stand for it) */
  size_t n;
  const double *x, *y;       /* non-finite points break the line */
  int color;                 /* style index: palette colour, dashed past 20; < 0: the series' position */
  const char *unit;          /* the panel: "m", "J", "1", ...; NULL: "" */
  const char *quantity;      /* for the panel's label (e.g. "energy_kinetic"); NULL: name */
  int dash;                  /* > 0: this dash pattern instead of the style's */
} vs_plot_series;

/* A legend entry given by the caller (e.g. colour = file, dash = series). */
typedef struct vs_plot_key {
  const char *text;
  int color;                 /* style index; < 0: a dark grey sample */
  int dash;                  /* > 0: this dash pattern */
} vs_plot_key;

typedef struct vs_plot_options {
  int width, height;         /* pixels, 64..16384 each */
  const char *title;         /* NULL: none */
  const char *xlabel;        /* with unit, e.g. "time [s]" */
  const char *ylabel;        /* the y label when there is one panel; NULL: from the series */
  vs_plot_scale yscale;      /* AUTO, LINEAR or LOG */
  vs_view_format format;     /* of vs_plot_file */
  const vs_plot_key *keys;   /* the legend; NULL: one entry per named series */
  size_t n_keys;
} vs_plot_options;

void vs_plot_options_init(vs_plot_options *o); /* 800x500, "time [s]", auto scale */

/* The scale AUTO (or LOG) picks for these series drawn in one panel:
 * LINEAR unless the non-zero magnitudes span more than 3 decades; then
 * LOG when every value is > 0, else SYMLOG. */
vs_plot_scale vs_plot_scale_for(const vs_plot_series *s, size_t ns);

/* "Nice" ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten,
 * about `target` of them; writes up to max ticks inside [lo, hi], returns the
 * count, and the step through *step (may be NULL). */
int vs_plot_ticks(double lo, double hi, int target, double *ticks, int max, double *step);

/* Palette colour (vs_view_palette) and dash pattern of style index i: the
 * 20 colours, then again dashed, dotted, dash-dotted, long-dashed. */
#define VS_PLOT_COLORS 20
void vs_plot_style(int i, double rgb[3], int *dash);

/* Where vs_plot_file puts things, in pixels (left, top, right, bottom). */
#define VS_PLOT_MAX_PANELS 8
typedef struct vs_plot_geometry {
  size_t n_panels;                        /* in order of the units' first series */
  double panel[VS_PLOT_MAX_PANELS][4];    /* each panel's frame, top to bottom */
  vs_plot_scale scale[VS_PLOT_MAX_PANELS];
  char unit[VS_PLOT_MAX_PANELS][24];      /* the panel's unit ("count" for whole numbers of "1") */
  char label[VS_PLOT_MAX_PANELS][96];     /* its y label */
  int *series_panel;                      /* in: NULL or [ns]; out: each series' panel */
  double legend[4];                       /* all 0 without a legend */
  size_t n_keys, n_shown;                 /* entries; rows drawn (with fewer, the last says "+N more") */
  double row, pad, sample;                /* entry i's sample line: y = legend[1] + pad + (i + 0.5) row,
                                             x from legend[0] + pad to legend[0] + pad + sample */
} vs_plot_geometry;
void vs_plot_layout(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                    vs_plot_geometry *g); /* g->series_panel is kept */

/* Plot to a file in o->format (vs_plot_png: PNG whatever o says), written
 * as vs_view_render_file writes. */
vs_status vs_plot_file(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                       const char *path, const char *const *inputs, vs_error *err);
vs_status vs_plot_png(const vs_plot_options *o, const vs_plot_series *s, size_t ns,
                      const char *path, const char *const *inputs, vs_error *err);

#endif
