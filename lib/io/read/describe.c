/* SPDX-License-Identifier: MIT */
/* describe.c: vs_h5_describe, what `vsim info` prints: the run's
 * parameters, counts, time range, checkpoint and every dataset with its
 * shape and type (and, for the value of a series of H5W_SERIES, its unit),
 * as text or JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "io/h5series.h"
#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "vsim/vsim.h"

/* JSON has no NaN or infinity: those become null. */
static void sb_json_num(vs_sbuf *b, double v) {
  if (isfinite(v))
    vs_sbuf_printf(b, "%.17g", v);
  else
    vs_sbuf_printf(b, "null");
}

#define MAX_OBJECTS ((size_t)1 << 20)
/* the longest text attribute read (a command line, a scene name) */
#define MAX_TEXT ((size_t)1 << 20)

static vs_status open_any(const vs_h5g_file *f, const char *path, int rank, vs_h5g_dset *d,
                          vs_error *err) {
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, rank, UINT64_MAX);
  return vs_h5g_dset_open(f, path, &spec, d, err);
}

/* First and last element of a 1-D numeric dataset (time axis); *found 0
 * when absent or empty.  An error refuses the file. */
static vs_status time_range(const vs_h5g_file *f, const char *path, double *t0, double *t1,
                            int *found, vs_error *err) {
  *found = 0;
  int ex = vs_h5g_path(f, path, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0) return VS_OK;
  vs_h5g_dset x;
  vs_status rc = open_any(f, path, 1, &x, err);
  if (rc != VS_OK) return rc;
  if (x.dims[0] == 0) {
    vs_h5g_dset_close(&x);
    return VS_OK;
  }
  rc = vs_h5g_read_rows(f, &x, H5T_NATIVE_DOUBLE, 0, 1, t0, sizeof *t0, err);
  if (rc == VS_OK)
    rc = vs_h5g_read_rows(f, &x, H5T_NATIVE_DOUBLE, x.dims[0] - 1, x.dims[0], t1, sizeof *t1, err);
  *found = rc == VS_OK;
  vs_h5g_dset_close(&x);
  return rc;
}

/* Length along axis 0, -1 when absent; an error refuses the file. */
static vs_status dim0(const vs_h5g_file *f, const char *path, int64_t *n, vs_error *err) {
  *n = -1;
  int ex = vs_h5g_path(f, path, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0) return VS_OK;
  vs_h5g_dset x;
  vs_status rc = open_any(f, path, -1, &x, err);
  if (rc != VS_OK) return rc;
  if (x.rank >= 1 && x.dims[0] <= INT64_MAX) *n = (int64_t)x.dims[0];
  vs_h5g_dset_close(&x);
  return VS_OK;
}

/* A text attribute: NULL when absent; anything else wrong with it (not
 * text, too long, a corrupt heap) refuses the file, naming it. */
static vs_status text_attr(const vs_h5g_file *f, const char *obj, const char *name, char **out,
                           vs_error *err) {
  *out = NULL;
  vs_status rc = vs_h5g_attr_string(f, obj, name, MAX_TEXT, out, err);
  if (rc == VS_ERR_FORMAT && err && strstr(err->message, "has no attribute")) rc = VS_OK;
  return rc;
}

vs_status vs_h5_describe(const char *path, int json, char **out, vs_error *err) {
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_describe: missing argument");
  *out = NULL;
  vs_h5g_file fh;
  const vs_h5g_file *f = &fh;
  vs_status st = vs_h5g_open_result(path, &fh, err);
  if (st != VS_OK) return st;
  vs_h5_path_list l = {0};
  const char *const root[] = {"/"};
  const char *pv = "/parameters/vsim";
  char *status = NULL, *version = NULL, *name = NULL, *command = NULL;
  int64_t format = -1, frames = -1, colors = -1, particles = -1, constraints = -1, rigid = -1;
  double wall = NAN, t0 = NAN, t1 = NAN;
  int has_format = 0, has_frames = 0, has_colors = 0, has_time = 0, has_ck = 0;
  int64_t ck_frame = -1;
  vs_error ig;
  vs_sbuf b = {0};
  if ((st = vs_h5g_list(f, root, 1, MAX_OBJECTS, &l, err)) != VS_OK) goto done;
  if ((st = text_attr(f, pv, "status", &status, err)) != VS_OK ||
      (st = text_attr(f, pv, "version", &version, err)) != VS_OK ||
      (st = text_attr(f, pv, "name", &name, err)) != VS_OK ||
      (st = text_attr(f, pv, "command", &command, err)) != VS_OK)
    goto done;
  has_format = vs_h5g_attr_int64(f, pv, "format_version", INT64_MIN, INT64_MAX, &format, &ig) == VS_OK;
  has_frames = vs_h5g_attr_int64(f, pv, "frames_recorded", INT64_MIN, INT64_MAX, &frames, &ig) == VS_OK;
  has_colors = vs_h5g_attr_int64(f, pv, "colors", INT64_MIN, INT64_MAX, &colors, &ig) == VS_OK;
  if (vs_h5g_attr_double(f, pv, "wall_seconds", -INFINITY, INFINITY, &wall, &ig) != VS_OK)
    wall = NAN;
  if ((st = dim0(f, "/particles/all/mass", &particles, err)) != VS_OK ||
      (st = dim0(f, "/particles/rigid/mass", &rigid, err)) != VS_OK ||
      (st = dim0(f, "/solver/constraints", &constraints, err)) != VS_OK)
    goto done;
  /* /particles/all and /particles/rigid are there only when the scene has
   * particles or rigid bodies */
  if (particles < 0) particles = 0;
  if (rigid < 0) rigid = 0;
  /* every series holds the same frames: the first one in the file says
   * (penetration is always written; position may be switched off) */
  for (int i = 0; !has_time && i < S_COUNT; i++) {
    h5w_series_desc d;
    char p[192];
    h5w_series_describe(i, NULL, &d);
    snprintf(p, sizeof p, "%s/time", d.group);
    if ((st = time_range(f, p, &t0, &t1, &has_time, err)) != VS_OK) goto done;
  }
  if (!has_frames) {
    h5w_series_desc d;
    char p[192];
    h5w_series_describe(S_PEN, NULL, &d);
    snprintf(p, sizeof p, "%s/step", d.group);
    if ((st = dim0(f, p, &frames, err)) != VS_OK) goto done;
  }
  has_ck = vs_h5g_path(f, "/checkpoint", &ig) == 1 &&
           vs_h5g_attr_int64(f, "/checkpoint", "frame", INT64_MIN, INT64_MAX, &ck_frame, &ig) ==
               VS_OK;

  /* text from the file is escaped before it reaches a terminal (JSON
   * escapes control characters itself) */
  char e_path[1100], e_status[300], e_version[300], e_name[1100], e_command[4200];
  if (!json) {
    vs_h5g_escape(path, e_path, sizeof e_path);
    if (status) vs_h5g_escape(status, e_status, sizeof e_status);
    if (version) vs_h5g_escape(version, e_version, sizeof e_version);
    if (name) vs_h5g_escape(name, e_name, sizeof e_name);
    if (command) vs_h5g_escape(command, e_command, sizeof e_command);
  }
  if (json) {
    vs_sbuf_printf(&b, "{\"file\": ");
    vs_sbuf_json(&b, path);
    vs_sbuf_printf(&b, ", \"status\": ");
    vs_sbuf_json(&b, status);
    vs_sbuf_printf(&b, ", \"vsim_version\": ");
    vs_sbuf_json(&b, version);
    vs_sbuf_printf(&b, ", \"format_version\": ");
    if (has_format)
      vs_sbuf_printf(&b, "%lld", (long long)format);
    else
      vs_sbuf_printf(&b, "null");
    vs_sbuf_printf(&b, ", \"scene\": ");
    vs_sbuf_json(&b, name);
    vs_sbuf_printf(&b, ", \"command\": ");
    vs_sbuf_json(&b, command);
    vs_sbuf_printf(&b,
                   ", \"frames_recorded\": %lld, \"particles\": %lld, \"rigid_bodies\": %lld, "
                   "\"constraints\": %lld",
                   (long long)frames, (long long)particles, (long long)rigid,
                   (long long)constraints);
    vs_sbuf_printf(&b, ", \"colors\": ");
    if (has_colors)
      vs_sbuf_printf(&b, "%lld", (long long)colors);
    else
      vs_sbuf_printf(&b, "null");
    vs_sbuf_printf(&b, ", \"time\": ");
    if (has_time) {
      vs_sbuf_printf(&b, "[");
      sb_json_num(&b, t0);
      vs_sbuf_printf(&b, ", ");
      sb_json_num(&b, t1);
      vs_sbuf_printf(&b, "]");
    } else {
      vs_sbuf_printf(&b, "null");
    }
    vs_sbuf_printf(&b, ", \"wall_seconds\": ");
    sb_json_num(&b, wall);
    vs_sbuf_printf(&b, ", \"checkpoint_frame\": ");
    if (has_ck)
      vs_sbuf_printf(&b, "%lld", (long long)ck_frame);
    else
      vs_sbuf_printf(&b, "null");
    vs_sbuf_printf(&b, ", \"datasets\": [");
  } else {
    vs_sbuf_printf(&b, "file:            %s\n", e_path);
    vs_sbuf_printf(&b, "status:          %s\n", status ? e_status : "(unknown)");
    vs_sbuf_printf(&b, "vsim version:    %s", version ? e_version : "(unknown)");
    if (has_format) vs_sbuf_printf(&b, " (format %lld)", (long long)format);
    vs_sbuf_printf(&b, "\n");
    if (name && name[0]) vs_sbuf_printf(&b, "scene:           %s\n", e_name);
    if (command && command[0]) vs_sbuf_printf(&b, "command:         %s\n", e_command);
    vs_sbuf_printf(&b, "frames recorded: %lld\n", (long long)frames);
    vs_sbuf_printf(&b, "particles:       %lld\n", (long long)particles);
    if (rigid > 0) vs_sbuf_printf(&b, "rigid bodies:    %lld\n", (long long)rigid);
    vs_sbuf_printf(&b, "constraints:     %lld\n", (long long)constraints);
    if (has_colors) vs_sbuf_printf(&b, "colors:          %lld\n", (long long)colors);
    if (has_time) vs_sbuf_printf(&b, "time:            %.9g .. %.9g s\n", t0, t1);
    if (isfinite(wall)) vs_sbuf_printf(&b, "wall seconds:    %.3f\n", wall);
    if (has_ck) vs_sbuf_printf(&b, "checkpoint:      frame %lld\n", (long long)ck_frame);
    vs_sbuf_printf(&b, "datasets:\n");
  }
  size_t width = 0;
  for (size_t i = 0; i < l.n; i++)
    if (strlen(l.v[i]) > width) width = strlen(l.v[i]);
  for (size_t i = 0; i < l.n; i++) {
    vs_h5g_dset x;
    char shape[200], e_ds[1100];
    /* every dataset is checked: a file with one vsim would refuse to read
     * is refused here too, naming it */
    if ((st = open_any(f, l.v[i], -1, &x, err)) != VS_OK) goto done;
    vs_h5g_shape_text(&x, shape, sizeof shape);
    const char *tname = vs_h5g_type_name(x.type);
    vs_h5g_dset_close(&x);
    int slot = h5w_series_of_value(l.v[i]);
    h5w_series_desc d;
    if (slot >= 0) h5w_series_describe(slot, NULL, &d);
    const char *unit = slot >= 0 ? d.unit : NULL;
    if (json) {
      vs_sbuf_printf(&b, "%s{\"path\": ", i ? ", " : "");
      vs_sbuf_json(&b, l.v[i]);
      vs_sbuf_printf(&b, ", \"shape\": %s, \"type\": ", shape);
      vs_sbuf_json(&b, tname);
      if (unit) {
        vs_sbuf_printf(&b, ", \"unit\": ");
        vs_sbuf_json(&b, unit);
      }
      vs_sbuf_printf(&b, "}");
    } else {
      vs_h5g_escape(l.v[i], e_ds, sizeof e_ds);
      vs_sbuf_printf(&b, "  %-*s  %s %s%s%s\n", (int)width, e_ds, shape, tname, unit ? " " : "",
                     unit ? unit : "");
    }
  }
  if (json) vs_sbuf_printf(&b, "]}\n");
  if (b.bad || !b.p) goto nomem;
  *out = b.p;
  b.p = NULL;
  goto done;
nomem:
  st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
done:
  vs_free(b.p);
  vs_free(status);
  vs_free(version);
  vs_free(name);
  vs_free(command);
  vs_h5_list_free(&l);
  vs_h5g_close(&fh);
  return st;
}
