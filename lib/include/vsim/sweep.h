/* vsim/sweep.h: parameter sweep files (docs/cli.md, vsim sweep).
 *
 * A sweep file names a scene, optionally a frame count, and lists values for
 * dotted scene keys:
 *
 *   scene: cloth.yaml            # relative to the sweep file
 *   frames: 200                  # optional: like `vsim run --frames`
 *   mode: grid                   # grid [default] | zip
 *   parameters:
 *     solver.iterations: [5, 10, 20]
 *     world.gravity: [[0, -9.81, 0], [0, -1.62, 0]]
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
#include "vsim/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VS_MAX_SWEEP_POINTS 1000000 /* points in one sweep */
#define VS_MAX_SWEEP_PARAMS 1000    /* swept keys */
#define VS_MAX_SWEEP_VALUE 65536    /* bytes of one value as YAML text */

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

#ifdef __cplusplus
}
#endif
#endif
