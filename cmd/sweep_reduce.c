/* SPDX-License-Identifier: MIT */
/* sweep_reduce.c: the `collect` columns of summary.csv (docs/cli.md, vsim
 * sweep): one number per point and column, a reduction of a dataset of the
 * point's file (vsim/sweep.h, reductions).
 *
 * Before anything runs, point 0's scene is built and its frame 0 written to
 * a scratch file, and every reduction is read from it: a path the run will
 * not write, an index out of range or a name that is no body is reported at
 * its place in the sweep file, and nothing runs.  After each point, its
 * names are bound against that point's own model (a swept parameter may
 * change the bodies) and the values read from its file. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

/* Point k's scene (with its overrides and the sweep's frames) and model. */
static vs_status build_point(const vs_sweep *s, size_t k, vs_scene **scene, vs_model **model,
                             vs_error *err) {
  *scene = NULL;
  *model = NULL;
  vs_override *sets = calloc(s->n_params + 3, sizeof *sets);
  char **texts = sets ? point_sets(s, k) : NULL;
  if (!texts) {
    free(sets);
    return vs_error_set(err, VS_ERR_NOMEM, s->file, 0, 0, "out of memory");
  }
  char frames_set[64];
  size_t n = 0;
  for (size_t i = 0; i < s->n_params; i++) sets[n++].text = texts[i];
  if (vs_sweep_xdmf_set(s)) sets[n++].text = vs_sweep_xdmf_set(s);
  if (s->frames >= 0) {
    snprintf(frames_set, sizeof frames_set, "time.frames=%lld", (long long)s->frames);
    sets[n++].text = frames_set;
  }
  vs_status st = vs_scene_load_file(s->scene, sets, n, scene, err);
  if (st == VS_OK) st = vs_model_build(*scene, model, err);
  free_point_sets(texts, s->n_params);
  free(sets);
  return st;
}

/* Whether an index item of some reduction is a name (then the point's
 * model is needed to read it). */
static int uses_names(const vs_sweep *s) {
  for (size_t c = 0; c < s->n_collect; c++)
    for (int i = 0; i < s->collect[c].r.n_index; i++) {
      const char *t = s->collect[c].r.index[i];
      char *end;
      if (*t && (strtoll(t, &end, 10), *end || end == t)) return 1;
    }
  return 0;
}

/* At the path within the reduction (when it is on one line as written). */
static void report(const vs_sweep *s, const vs_sweep_collect *c, const char *why) {
  const char *at = strstr(c->text, c->r.path);
  int col = c->value_loc.column;
  if (at && !memchr(c->text, '\n', (size_t)(at - c->text))) col += (int)(at - c->text);
  fprintf(stderr, "vsim: %s:%d:%d: collect.%s: %s (point 0)\n", s->file, c->value_loc.line, col,
          c->name, why);
}

int collect_check(const vs_sweep *s) {
  if (s->n_collect == 0) return CLI_EXIT_OK;
  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  vs_state *state = NULL;
  vs_h5_writer *w = NULL;
  char *yaml = NULL;
  char dir[PATH_MAX] = "", path[PATH_MAX + 16] = "";
  int code = CLI_EXIT_OK;
  vs_status st = build_point(s, 0, &scene, &model, &err);
  if (st == VS_OK) st = vs_state_create(model, &state, &err);
  if (st == VS_OK) st = vs_scene_to_yaml(scene, &yaml, &err);
  if (st != VS_OK) {
    /* validate_point said why already, as the sweep's own error */
    code = cli_exit_code(st, CLI_PHASE_INPUT);
    goto done;
  }
  /* frame 0 of point 0, as the run writes it: the datasets and shapes of
   * every point's file but the length of the frame axis */
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/vsim-collect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "vsim sweep: %s: cannot make a scratch directory to check collect: %s\n", dir,
            strerror(errno));
    dir[0] = '\0';
    code = CLI_EXIT_USAGE;
    goto done;
  }
  snprintf(path, sizeof path, "%s/point-0.h5", dir);
  vs_h5_run_info info = {.command = "vsim sweep (checking collect)", .resolved_yaml = yaml,
                         .force = 1};
  st = vs_h5_open(path, scene, model, &info, &w, &err);
  if (st == VS_OK) {
    st = vs_h5_record(w, model, state, &err);
    vs_error ferr;
    vs_status fst = vs_h5_finish(w, st == VS_OK ? "complete" : "failed", 0, &ferr);
    if (st == VS_OK && fst != VS_OK) {
      st = fst;
      err = ferr;
    }
  }
  if (st != VS_OK) {
    cli_report(&err, path);
    fprintf(stderr, "vsim sweep: cannot write frame 0 of point 0 to check collect\n");
    code = CLI_EXIT_USAGE;
    goto done;
  }
  for (size_t c = 0; c < s->n_collect; c++) {
    vs_reduction r = s->collect[c].r;
    char why[400];
    double v;
    if (vs_reduction_bind(&r, model, why, sizeof why) != VS_OK) {
      report(s, &s->collect[c], why);
      code = CLI_EXIT_USAGE;
    } else if (vs_reduction_eval(path, &r, &v, &err) != VS_OK) {
      report(s, &s->collect[c], err.message);
      code = CLI_EXIT_USAGE;
    }
  }
  if (code != CLI_EXIT_OK)
    fprintf(stderr, "vsim sweep: collect does not fit what point 0 writes; nothing was run\n");
done:
  if (path[0]) unlink(path);
  if (dir[0]) rmdir(dir);
  vs_free_buffer(yaml);
  vs_state_free(state);
  vs_model_free(model);
  vs_scene_free(scene);
  return code;
}

void collect_point(const sweep_run *r, size_t k, double *values) {
  const vs_sweep *s = r->s;
  for (size_t c = 0; c < s->n_collect; c++) values[c] = NAN;
  if (s->n_collect == 0) return;
  char path[PATH_MAX];
  point_path(path, sizeof path, r->dir, k, "h5");
  if (!exists(path)) return; /* a failed point that wrote nothing: empty cells */
  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  if (uses_names(s) && build_point(s, k, &scene, &model, &err) != VS_OK) {
    fprintf(stderr, "[point %zu] collect: %s\n", k, err.message);
    vs_scene_free(scene);
    return;
  }
  for (size_t c = 0; c < s->n_collect; c++) {
    vs_reduction red = s->collect[c].r;
    char why[400];
    if (vs_reduction_bind(&red, model, why, sizeof why) != VS_OK)
      fprintf(stderr, "[point %zu] collect.%s: %s\n", k, s->collect[c].name, why);
    else if (vs_reduction_eval(path, &red, &values[c], &err) != VS_OK)
      fprintf(stderr, "[point %zu] collect.%s: %s\n", k, s->collect[c].name, err.message);
  }
  vs_model_free(model);
  vs_scene_free(scene);
}
