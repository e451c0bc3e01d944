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
#include "io/h5util.h"
#include "vsim/vsim.h"

/* JSON has no NaN or infinity: those become null. */
static void sb_json_num(vs_sbuf *b, double v) {
  if (isfinite(v))
    vs_sbuf_printf(b, "%.17g", v);
  else
    vs_sbuf_printf(b, "null");
}

/* First and last element of a 1-D float dataset (time axis). */
static int time_range(hid_t f, const char *path, double *t0, double *t1) {
  if (!vs_h5_path_exists(f, path)) return -1;
  vs_h5_ds x;
  int rc = -1;
  if (vs_h5_ds_open(f, path, &x) == 0 && x.rank == 1 && x.dims[0] > 0) {
    hsize_t start = 0, count = 1;
    if (vs_h5_read_slab(&x, &start, &count, H5T_NATIVE_DOUBLE, t0) == 0) {
      start = x.dims[0] - 1;
      if (vs_h5_read_slab(&x, &start, &count, H5T_NATIVE_DOUBLE, t1) == 0) rc = 0;
    }
  }
  vs_h5_ds_close(&x);
  return rc;
}

static int64_t dim0(hid_t f, const char *path) {
  if (!vs_h5_path_exists(f, path)) return -1;
  vs_h5_ds x;
  int64_t n = -1;
  if (vs_h5_ds_open(f, path, &x) == 0 && x.rank >= 1) n = (int64_t)x.dims[0];
  vs_h5_ds_close(&x);
  return n;
}

vs_status vs_h5_describe(const char *path, int json, char **out, vs_error *err) {
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_describe: missing argument");
  *out = NULL;
  hid_t f;
  vs_status st = vs_h5_open_result(path, &f, err);
  if (st != VS_OK) return st;
  vs_h5_path_list l = {0};
  const char *const root[] = {"/"};
  if ((st = vs_h5_list_datasets(f, path, root, 1, &l, err)) != VS_OK) {
    vs_h5_list_free(&l); /* what was listed before the failure */
    H5Fclose(f);
    return st;
  }
  const char *pv = "/parameters/vsim";
  int oom[4];
  char *status = vs_h5_attr_string(f, pv, "status", &oom[0]);
  char *version = vs_h5_attr_string(f, pv, "version", &oom[1]);
  char *name = vs_h5_attr_string(f, pv, "name", &oom[2]);
  char *command = vs_h5_attr_string(f, pv, "command", &oom[3]);
  int64_t format = -1, frames = -1, colors = -1;
  double wall = NAN, t0 = NAN, t1 = NAN;
  int has_format = vs_h5_attr_int64(f, pv, "format_version", &format) == 0;
  int has_frames = vs_h5_attr_int64(f, pv, "frames_recorded", &frames) == 0;
  int has_colors = vs_h5_attr_int64(f, pv, "colors", &colors) == 0;
  vs_h5_attr_double(f, pv, "wall_seconds", &wall);
  int64_t particles = dim0(f, "/particles/all/mass");
  int64_t constraints = dim0(f, "/solver/constraints");
  /* every series holds the same frames: the first one in the file says
   * (penetration is always written; position may be switched off) */
  int has_time = 0;
  for (int i = 0; !has_time && i < S_COUNT; i++) {
    h5w_series_desc d;
    char p[192];
    h5w_series_describe(i, NULL, &d);
    snprintf(p, sizeof p, "%s/time", d.group);
    has_time = time_range(f, p, &t0, &t1) == 0;
  }
  if (!has_frames) {
    h5w_series_desc d;
    char p[192];
    h5w_series_describe(S_PEN, NULL, &d);
    snprintf(p, sizeof p, "%s/step", d.group);
    frames = dim0(f, p);
  }
  int64_t ck_frame = -1;
  int has_ck = vs_h5_path_exists(f, "/checkpoint") &&
               vs_h5_attr_int64(f, "/checkpoint", "frame", &ck_frame) == 0;

  vs_sbuf b = {0};
  /* a summary that says "(unknown)" for want of memory would be wrong */
  b.bad = oom[0] || oom[1] || oom[2] || oom[3];
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
    vs_sbuf_printf(&b, ", \"frames_recorded\": %lld, \"particles\": %lld, \"constraints\": %lld",
              (long long)frames, (long long)particles, (long long)constraints);
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
    vs_sbuf_printf(&b, "file:            %s\n", path);
    vs_sbuf_printf(&b, "status:          %s\n", status ? status : "(unknown)");
    vs_sbuf_printf(&b, "vsim version:    %s", version ? version : "(unknown)");
    if (has_format) vs_sbuf_printf(&b, " (format %lld)", (long long)format);
    vs_sbuf_printf(&b, "\n");
    if (name && name[0]) vs_sbuf_printf(&b, "scene:           %s\n", name);
    if (command && command[0]) vs_sbuf_printf(&b, "command:         %s\n", command);
    vs_sbuf_printf(&b, "frames recorded: %lld\n", (long long)frames);
    vs_sbuf_printf(&b, "particles:       %lld\n", (long long)particles);
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
    vs_h5_ds x;
    char shape[128] = "null", tname[32] = "unknown";
    if (vs_h5_ds_open(f, l.v[i], &x) == 0) {
      snprintf(shape, sizeof shape, "%s", x.shape);
      snprintf(tname, sizeof tname, "%s", x.tname);
    }
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
      vs_sbuf_printf(&b, "  %-*s  %s %s%s%s\n", (int)width, l.v[i], shape, tname, unit ? " " : "",
                     unit ? unit : "");
    }
    vs_h5_ds_close(&x);
  }
  if (json) vs_sbuf_printf(&b, "]}\n");

  vs_free(status);
  vs_free(version);
  vs_free(name);
  vs_free(command);
  vs_h5_list_free(&l);
  H5Fclose(f);
  if (b.bad || !b.p) {
    vs_free(b.p);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  *out = b.p;
  return VS_OK;
}
