/* SPDX-License-Identifier: MIT */
/* vsim/sweep.h: parameter sweep files (docs/cli.md, vsim sweep).
 *
 * A sweep file names a scene, optionally a frame count, and lists values for
 * dotted scene keys:
 *
 *   scene: cloth.yaml            # relative to the sweep file
 *   frames: 200                  # optional: like `vsim run --frames`
 *   mode: grid                   # grid [default] | zip
 *   xdmf: false                  # optional: each point's .xmf sidecar [the scene's]
 *   parameters:
 *     solver.iterations: [5, 10, 20]
 *     world.gravity: [[0, -9.81, 0], [0, -1.62, 0]]
 *   collect:                     # optional: more columns of summary.csv
 *     crate_x: final /particles/rigid/position/value[crate, 0]
 *     e_max: max /observables/energy_kinetic
 *
 * Loading expands nothing: a point is a number, and vs_sweep_value_index()
 * says which value of each parameter it takes.  grid is the Cartesian
 * product with the LAST parameter varying fastest (like nested loops written
 * in file order); zip takes the k-th value of every list, which must all have
 * the same length.  Each value is kept once, as YAML text in flow style
 * ("5", "jacobi", "[0,-1.62,0]"); the "KEY=VALUE" text of a `--set` is made
 * when asked for (vs_sweep_set_text), so that running point k is exactly
 * `vsim run SCENE --set ... [--frames N]` and a sweep's memory grows with its
 * file, not with a key's length times the count of its values. */
#ifndef VSIM_SWEEP_H
#define VSIM_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"
#include "vsim/model.h"
#include "vsim/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VS_MAX_SWEEP_POINTS 1000000 /* points in one sweep */
#define VS_MAX_SWEEP_PARAMS 1000    /* swept keys */
#define VS_MAX_SWEEP_VALUE 65536    /* bytes of one value as YAML text */
#define VS_MAX_SWEEP_COLLECT 256    /* columns under collect */
#define VS_MAX_REDUCE_INDEX 8       /* items of a reduction's [index] */

/* ---- reductions: one number from a dataset of a result file ----
 *
 * "OP PATH" or "OP PATH[I, J, ...]":
 *   OP     final (the last recorded frame), first (frame 0), max, min, mean
 *   PATH   a dataset ("/particles/rigid/position/value") or a time-series
 *          group, which means its value ("/observables/energy_kinetic")
 *   I, J   one item per axis after the frame axis of a time series (every
 *          axis of any other dataset), left to right; missing trailing
 *          axes, `:` or an empty item take the whole axis; a number (from
 *          0; -1 is the last) takes that element; on the first of them a
 *          name takes the element of that body: a rigid body's name on
 *          /particles/rigid/... (its row among the rigid bodies), a
 *          particle reference "NAME:INDEX" (as in the scene's
 *          constraints) on /particles/all/...
 * final and first need a time series and one element a frame; max, min and
 * mean take every element selected, over every frame.  A NaN among them
 * makes the result NaN. */
typedef enum vs_reduce_op {
  VS_REDUCE_FINAL = 0,
  VS_REDUCE_FIRST,
  VS_REDUCE_MAX,
  VS_REDUCE_MIN,
  VS_REDUCE_MEAN
} vs_reduce_op;

typedef struct vs_reduction {
  vs_reduce_op op;
  char path[256];
  int n_index;                              /* items in [...]; 0 without brackets */
  char index[VS_MAX_REDUCE_INDEX][80];      /* each as written, trimmed ("" = ":") */
  int64_t at[VS_MAX_REDUCE_INDEX];          /* bound numbers (vs_reduction_bind) */
  int bound;                                /* names resolved: at[] holds every number */
} vs_reduction;

/* Parse text into *out.  On error returns VS_ERR_USAGE with the reason in
 * why ("unknown reduction 'maximum' (final, first, max, min, mean)") and
 * *at the byte of text where it is. */
vs_status vs_reduction_parse(const char *text, vs_reduction *out, char *why, size_t why_size,
                             size_t *at);

/* Turn the index items into numbers: names against model (the scene of the
 * run whose file is read), numbers as they are (negative ones stay
 * negative, counted from the end when the file is read).  VS_ERR_USAGE
 * with the reason in why: an unknown body, a name on an axis that is no
 * body axis. */
vs_status vs_reduction_bind(vs_reduction *r, const vs_model *model, char *why, size_t why_size);

/* The reduction's value in result file h5_path (bound: names resolved).
 * VS_ERR_IO / VS_ERR_FORMAT for the file as vs_compare_files; VS_ERR_USAGE
 * for a reduction that does not fit the file: "no dataset /x (did you mean
 * /y?)", an index out of range, final of a dataset with no frame axis. */
vs_status vs_reduction_eval(const char *h5_path, const vs_reduction *r, double *value,
                            vs_error *err);

typedef struct vs_sweep_collect {
  char *name;          /* the column of summary.csv */
  char *text;          /* the reduction as written */
  vs_loc loc;          /* the name in the sweep file */
  vs_loc value_loc;    /* the reduction's first character in the sweep file */
  vs_reduction r;      /* parsed, not bound */
} vs_sweep_collect;

typedef enum vs_sweep_mode { VS_SWEEP_GRID = 0, VS_SWEEP_ZIP = 1 } vs_sweep_mode;

typedef struct vs_sweep_param {
  char *key;          /* dotted path, "solver.iterations" */
  vs_loc loc;         /* the key in the sweep file */
  size_t n_values;    /* >= 1 */
  char **values;      /* (n_values) each value as flow YAML */
  vs_loc *value_locs; /* (n_values) each value in the sweep file */
} vs_sweep_param;

typedef struct vs_sweep {
  char *file;  /* the sweep file as given ("<string>" names in-memory text) */
  char *scene; /* scene path: absolute as written, else joined to the sweep file's directory */
  vs_loc scene_loc;
  int64_t frames; /* >= 0, or -1 = the scene's time.frames */
  vs_sweep_mode mode;
  size_t n_params;        /* >= 1 */
  vs_sweep_param *params; /* (n_params) in file order */
  size_t n_points;        /* >= 1, <= VS_MAX_SWEEP_POINTS */
  int xdmf;                   /* xdmf: 1 every point writes its .xmf sidecar (and the
                                 viewer data it draws), 0 none, -1 (absent) as the scene
                                 says; vs_sweep_xdmf_set gives the override */
  size_t n_collect;           /* columns of collect: (0 without) */
  vs_sweep_collect *collect;  /* (n_collect) in file order */
} vs_sweep;

/* Load a sweep from memory; `file` names it in messages and is the base for
 * a relative `scene`.  Errors are VS_ERR_SCENE (or VS_ERR_LIMIT) with
 * file:line:col and the key: "s.yaml:4:3: mode: expected grid or zip, got 'grdi'".
 * The scene itself is not read: load it per point with vs_scene_load_file. */
vs_status vs_sweep_load_string(const char *text, size_t len, const char *file, vs_sweep **out,
                               vs_error *err);

/* Read the file (at most VS_MAX_SCENE_BYTES) and load it. */
vs_status vs_sweep_load_file(const char *path, vs_sweep **out, vs_error *err);

void vs_sweep_free(vs_sweep *sweep);

/* The value index of parameter `param` at point `point` (< n_points). */
size_t vs_sweep_value_index(const vs_sweep *sweep, size_t point, size_t param);

/* The "KEY=VALUE" override of parameter `param` at point `point` (for
 * vs_override / --set), as a new string the caller releases with
 * vs_free_buffer(); NULL when out of memory. */
char *vs_sweep_set_text(const vs_sweep *sweep, size_t point, size_t param);

/* "output.xdmf=true" or "output.xdmf=false" when the sweep file says xdmf:
 * (every point gets that override after its parameters), else NULL. */
const char *vs_sweep_xdmf_set(const vs_sweep *sweep);

#ifdef __cplusplus
}
#endif
#endif
