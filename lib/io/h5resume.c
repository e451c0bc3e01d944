/* h5resume.c: reading a result file back: its parameters, its checkpoint
 * (vs_h5_read_checkpoint) and reopening it to append frames (vs_h5_reopen,
 * --resume). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/h5write.h"

/* ---- resuming ------------------------------------------------------------ */

vs_status vs_h5_read_parameter(const char *path, const char *name, char **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !name || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_parameter: missing argument");
  hid_t f;
  vs_status rc = vs_h5_open_result(path, &f, err);
  if (rc != VS_OK) return rc;
  int nomem = 0;
  *out = vs_h5_attr_string(f, "/parameters/vsim", name, &nomem);
  H5Fclose(f);
  if (nomem) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (!*out)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "no parameter '%s' in /parameters/vsim",
                        name);
  return VS_OK;
}

/* Read /checkpoint/<name> into buf after checking its shape against the
 * model's [rows, width]. */
static vs_status read_ck_array(hid_t f, const char *path, const char *name, hsize_t rows,
                               int width, hid_t mtype, void *buf, vs_error *err) {
  char p[128];
  snprintf(p, sizeof p, "/checkpoint/%s", name);
  if (!vs_h5_path_exists(f, p))
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "checkpoint has no '%s'", name);
  hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
  hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t dims[H5S_MAX_RANK];
  int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  vs_status rc = VS_OK;
  int want_rank = width > 1 ? 2 : 1;
  if (rank < 0) {
    rc = vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s", p);
  } else if (rank != want_rank || dims[0] != rows || (width > 1 && dims[1] != (hsize_t)width)) {
    char shape[128];
    vs_h5_shape_text(sp, shape, sizeof shape);
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "checkpoint '%s' is %s, the scene needs [%llu%s%.0d]: not the same scene",
                      name, shape, (unsigned long long)rows, width > 1 ? ", " : "",
                      width > 1 ? width : 0);
  } else if (rows > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    rc = vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s", p);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return rc;
}

vs_status vs_h5_read_checkpoint(const char *path, const vs_model *model, vs_state *state,
                                vs_error *err) {
  if (!path || !model || !state)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_checkpoint: missing argument");
  hid_t f;
  vs_status rc = vs_h5_open_result(path, &f, err);
  if (rc != VS_OK) return rc;
  if (!vs_h5_path_exists(f, "/checkpoint")) {
    H5Fclose(f);
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "no /checkpoint (the run recorded no frame, or an older vsim wrote it)");
  }
  const vs_model *m = model; /* the table's count expressions name it m */
#define CK_READ(name, type, width, count)                                                  \
  if (rc == VS_OK)                                                                         \
    rc = read_ck_array(f, path, #name, (hsize_t)(count), (width), CK_MTYPE(state->name), \
                       state->name, err);
  VS_STATE_FIELDS(CK_READ)
#undef CK_READ
  (void)m;
  int64_t frame, step, n_alive;
  double time;
  if (rc == VS_OK && (vs_h5_attr_int64(f, "/checkpoint", "frame", &frame) != 0 ||
                      vs_h5_attr_int64(f, "/checkpoint", "step", &step) != 0 ||
                      vs_h5_attr_double(f, "/checkpoint", "time", &time) != 0 ||
                      vs_h5_attr_int64(f, "/checkpoint", "n_alive", &n_alive) != 0))
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "checkpoint lacks one of its counters (frame, step, time, n_alive)");
  if (rc == VS_OK) {
    state->frame = frame;
    state->step = step;
    state->time = time;
    state->n_alive = n_alive;
  }
  H5Fclose(f);
  return rc;
}

/* Copy src to a new file dst byte for byte (dst must not exist).  Returns
 * 0, or the status to report (why says what failed). */
static vs_status copy_bytes(const char *src, const char *dst, char *why, size_t why_size) {
  int in = open(src, O_RDONLY);
  struct stat st;
  if (in < 0 || fstat(in, &st) != 0) {
    snprintf(why, why_size, "cannot read '%s': %s", src, strerror(errno));
    if (in >= 0) close(in);
    return VS_ERR_IO;
  }
  /* the resumed file keeps the original's permissions */
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 0777);
  if (out < 0) {
    int e = errno;
    snprintf(why, why_size, "cannot create '%s': %s", dst, strerror(e));
    close(in);
    return h5w_create_failure(e);
  }
  static const size_t bufsize = (size_t)1 << 20;
  char *buf = vs_malloc(bufsize);
  vs_status rc = buf ? VS_OK : VS_ERR_NOMEM;
  if (!buf) snprintf(why, why_size, "out of memory");
  while (rc == VS_OK) {
    ssize_t n = read(in, buf, bufsize);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(why, why_size, "reading '%s': %s", src, strerror(errno));
      rc = VS_ERR_IO;
    }
    if (n <= 0) break;
    for (ssize_t done = 0; rc == VS_OK && done < n;) {
      ssize_t k = write(out, buf + done, (size_t)(n - done));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) {
        snprintf(why, why_size, "writing '%s': %s", dst, strerror(errno));
        rc = VS_ERR_IO;
      } else {
        done += k;
      }
    }
  }
  vs_free(buf);
  close(in);
  if (close(out) != 0 && rc == VS_OK) {
    snprintf(why, why_size, "writing '%s': %s", dst, strerror(errno));
    rc = VS_ERR_IO;
  }
  return rc;
}

/* Open series i of a reopened file, checking that it is what the model
 * would write; 1 = layout mismatch (message in w->msg), -1 = HDF5 error. */
static int open_series(vs_h5_writer *w, const h5w_series_desc *d, int i) {
  char p[192];
  series *s = &w->s[i];
  const char *group = d->group;
  const int rank = d->rank;
  const hsize_t *inner = d->inner;
  hid_t ftype = d->ftype, mtype = d->mtype;
  snprintf(p, sizeof p, "%s/value", group);
  s->value = H5Dopen2(w->file, p, H5P_DEFAULT);
  snprintf(p, sizeof p, "%s/step", group);
  s->step = s->value >= 0 ? H5Dopen2(w->file, p, H5P_DEFAULT) : H5I_INVALID_HID;
  snprintf(p, sizeof p, "%s/time", group);
  s->time = s->step >= 0 ? H5Dopen2(w->file, p, H5P_DEFAULT) : H5I_INVALID_HID;
  if (s->time < 0) {
    snprintf(p, sizeof p, "opening %s", group);
    return h5w_fail(w, p);
  }
  hid_t sp = H5Dget_space(s->value), t = H5Dget_type(s->value);
  hsize_t dims[H5S_MAX_RANK], sdims[H5S_MAX_RANK], tdims[H5S_MAX_RANK];
  int r = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  int same = r == rank && t >= 0 && H5Tequal(t, ftype) > 0;
  for (int k = 1; same && k < rank; k++) same = dims[k] == inner[k - 1];
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  hid_t ss = H5Dget_space(s->step), ts = H5Dget_space(s->time);
  int rs = ss >= 0 ? H5Sget_simple_extent_dims(ss, sdims, NULL) : -1;
  int rt = ts >= 0 ? H5Sget_simple_extent_dims(ts, tdims, NULL) : -1;
  if (ss >= 0) H5Sclose(ss);
  if (ts >= 0) H5Sclose(ts);
  if (!same || rs != 1 || rt != 1 || sdims[0] != dims[0] || tdims[0] != dims[0]) {
    snprintf(w->msg, sizeof w->msg,
             "%s does not have the shape or type this scene writes (same scene, fields and "
             "precision needed to resume)",
             group);
    return 1;
  }
  /* buffer whole chunks of the file, as the run that created it did */
  hsize_t chunk[H5S_MAX_RANK] = {0};
  hid_t dcpl = H5Dget_create_plist(s->value);
  if (dcpl < 0 || H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk) < 1)
    chunk[0] = 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  if (h5w_series_alloc(w, s, group, rank, inner, ftype, mtype, (size_t)chunk[0]) < 0) return -1;
  s->dims[0] = dims[0];
  return 0;
}

vs_status vs_h5_reopen(const char *path, const vs_model *model, const vs_h5_run_info *info,
                       vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_reopen: missing argument");
  hid_t probe;
  vs_status rc = vs_h5_open_result(path, &probe, err);
  if (rc != VS_OK) return rc;
  /* Appending to another format would give a file of two layouts. */
  int64_t format = 1;
  vs_h5_attr_int64(probe, "/parameters/vsim", "format_version", &format);
  H5Fclose(probe);
  if (format != VSIM_FORMAT_VERSION)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "cannot resume: the file is in result format %lld and this vsim writes "
                        "format %d; run the scene again (its text is /parameters/vsim@scene)",
                        (long long)format, VSIM_FORMAT_VERSION);
  char *dir;
  if ((rc = h5w_check_dir(path, &dir, err)) != VS_OK) return rc;
  vs_h5_writer *w;
  rc = h5w_writer_new(path, dir, model, &w, err);
  vs_free(dir);
  if (rc != VS_OK) return rc;

  vs_status copied = copy_bytes(path, w->tmp, w->msg, sizeof w->msg);
  /* what a failure is, unless it finds out otherwise below */
  vs_status code = copied == VS_OK ? VS_ERR_IO : copied;
  int ok = 0;
  if (copied == VS_OK && h5w_make_plists(w) == 0) {
    w->file = H5Fopen(w->tmp, H5F_ACC_RDWR, w->fapl);
    if (w->file < 0) h5w_fail(w, "reopening a copy");
  }
  if (w->file >= 0) {
    ok = 1;
    for (int i = 0; ok && i < S_COUNT; i++) {
      char p[192];
      h5w_series_desc d;
      h5w_series_describe(i, model, &d);
      snprintf(p, sizeof p, "%s/value", d.group);
      int has = vs_h5_path_exists(w->file, p);
      if (has != d.wanted) {
        snprintf(w->msg, sizeof w->msg, "%s %s in the file but %s by the scene", d.group,
                 has ? "is" : "is not", has ? "not written" : "written");
        code = VS_ERR_FORMAT;
        ok = 0;
      } else if (has) {
        int r = open_series(w, &d, i);
        if (r != 0) {
          code = r > 0 ? VS_ERR_FORMAT : w->nomem ? VS_ERR_NOMEM : VS_ERR_IO;
          ok = 0;
        }
      }
    }
  }
  if (ok) {
    /* every series holds the same frames; penetration is always there */
    series *pen = &w->s[S_PEN];
    for (int i = 0; ok && i < S_COUNT; i++)
      if (w->s[i].value >= 0 && w->s[i].dims[0] != pen->dims[0]) {
        h5w_series_desc d, dp;
        h5w_series_describe(i, NULL, &d);
        h5w_series_describe(S_PEN, NULL, &dp);
        snprintf(w->msg, sizeof w->msg, "%s has %llu frames, %s %llu", d.group,
                 (unsigned long long)w->s[i].dims[0], dp.group, (unsigned long long)pen->dims[0]);
        code = VS_ERR_FORMAT;
        ok = 0;
      }
    w->frames = (int64_t)pen->dims[0];
    if (ok && pen->dims[0] > 0) {
      hsize_t start = pen->dims[0] - 1, count = 1;
      hid_t fs = H5Dget_space(pen->step), ms = H5Screate_simple(1, &count, NULL);
      int64_t last = -1;
      if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
          H5Dread(pen->step, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, &last) < 0)
        ok = h5w_fail(w, "reading the last recorded frame") == 0;
      if (ms >= 0) H5Sclose(ms);
      if (fs >= 0) H5Sclose(fs);
      w->last_frame = last;
    }
  }
  if (ok) {
    w->params = H5Gopen2(w->file, "/parameters/vsim", H5P_DEFAULT);
    ok = w->params >= 0 && h5w_attr_str(w, w->params, "status", "running") == 0 &&
         (!info || !info->command || h5w_attr_str(w, w->params, "resume_command", info->command) == 0);
    if (!ok) h5w_fail(w, "updating /parameters/vsim");
  }
  if (!ok) {
    vs_error_set(err, code, path, 0, 0, "cannot resume: %s",
                 w->msg[0] ? w->msg : "cannot reopen the file");
    h5w_discard(w);
    h5w_writer_free(w);
    return code;
  }
  *out = w;
  return VS_OK;
}
