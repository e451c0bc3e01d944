/* SPDX-License-Identifier: MIT */
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

#include "io/write/h5check.h"
#include "io/guard/h5guard.h"
#include "io/write/h5write.h"

/* ---- resuming ------------------------------------------------------------ */

vs_status vs_h5_read_parameter(const char *path, const char *name, char **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !name || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_parameter: missing argument");
  vs_h5g_file f;
  vs_status rc = vs_h5g_open(path, &f, err);
  if (rc != VS_OK) return rc;
  rc = vs_h5g_attr_string(&f, "/parameters/vsim", name, H5C_RESOLVED_MAX, out, err);
  vs_h5g_close(&f);
  return rc;
}

/* The scene's mesh reference of key ("bodies.3", "world.colliders.0"),
 * NULL when the scene has no mesh there (a mesh body, a convex rigid body's
 * file, a mesh collider). */
static vs_mesh_ref *mesh_ref_of(vs_scene *s, const char *key) {
  size_t i = 0;
  int used = 0;
  if (sscanf(key, "bodies.%zu%n", &i, &used) == 1 && key[used] == '\0')
    return i < s->n_bodies && (s->bodies[i].kind == VS_BODY_MESH ||
                               (s->bodies[i].kind == VS_BODY_RIGID && s->bodies[i].mesh.file))
               ? &s->bodies[i].mesh
               : NULL;
  used = 0;
  if (sscanf(key, "world.colliders.%zu%n", &i, &used) == 1 && key[used] == '\0')
    return i < s->n_colliders && s->colliders[i].kind == VS_COLLIDER_MESH ? &s->colliders[i].mesh
                                                                          : NULL;
  return NULL;
}

vs_status vs_h5_resume_scene(const char *path, const char *name, const vs_override *sets,
                             size_t n_sets, vs_scene **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_resume_scene: missing argument");
  vs_h5_quiet();
  vs_h5g_file f;
  vs_status rc = vs_h5g_open(path, &f, err);
  if (rc != VS_OK) return rc;
  char *text = NULL, *rec = NULL;
  rc = vs_h5g_attr_string(&f, "/parameters/vsim", "resolved", H5C_RESOLVED_MAX, &text, err);
  if (rc == VS_OK &&
      vs_h5g_attr_string(&f, "/parameters/vsim", "mesh_files", H5C_RESOLVED_MAX, &rec, err) !=
          VS_OK) {
    if (!strstr(err->message, "has no attribute")) rc = err->code;
    else vs_error_clear(err);
  }
  vs_h5g_close(&f);
  if (rc == VS_OK) rc = vs_scene_load_string(text, strlen(text), name, sets, n_sets, out, err);
  /* each OBJ where the first run read it (an absolute path), not the
   * resolved scene's path, which is relative to the first run's directory */
  const char *p = rec;
  char key[64], *file = NULL;
  if (rc == VS_OK && rec && !(file = vs_malloc(2 * VS_MAX_PATH)))
    rc = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  for (int line = 1; rc == VS_OK && p; line++) {
    long long bytes;
    unsigned long long hash;
    int r = h5c_mesh_line(&p, key, sizeof key, &bytes, &hash, file, 2 * VS_MAX_PATH);
    if (r == 0) break;
    vs_mesh_ref *mr = r > 0 ? mesh_ref_of(*out, key) : NULL;
    char *dup = mr ? vs_strdup(file) : NULL;
    if (r < 0)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/parameters/vsim@mesh_files: line %d is not one of vsim's", line);
    else if (!mr)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/parameters/vsim@mesh_files names an OBJ file for %s, which the resolved "
                        "scene does not have: not the same scene",
                        key);
    else if (!dup)
      rc = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
    if (dup) {
      vs_free(mr->file);
      mr->file = dup;
    }
  }
  vs_free(file);
  vs_free(text);
  vs_free(rec);
  if (rc != VS_OK) {
    vs_scene_free(*out);
    *out = NULL;
  }
  return rc;
}

vs_status vs_h5_check_resume(const char *path, char **real, vs_error *err) {
  if (real) *real = NULL;
  if (!path || !real)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_check_resume: missing argument");
  vs_h5_quiet();
  /* a regular file, or a symbolic link to one (outfile.h), written in place */
  vs_status rc = vs_outfile_check(path, VS_OUTFILE_REPLACE, NULL, err);
  if (rc != VS_OK) return rc;
  char *r = realpath(path, NULL);
  if (!r) return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "cannot resolve: %s", strerror(errno));
  *real = vs_strdup(r);
  free(r);
  if (!*real) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  rc = h5c_verify_checkpoint(*real, NULL, NULL, err);
  if (rc != VS_OK) {
    if (err && strcmp(err->file, *real) == 0) snprintf(err->file, sizeof err->file, "%s", path);
    vs_free(*real);
    *real = NULL;
  }
  return rc;
}

/* Read /checkpoint/<name> into buf after checking its shape against the
 * model's [rows, width]. */
static vs_status read_ck_array(const vs_h5g_file *f, const char *path, const char *name,
                               hsize_t rows, int width, unsigned gtype, hid_t mtype, size_t esize,
                               void *buf, vs_error *err) {
  char p[128];
  snprintf(p, sizeof p, "/checkpoint/%s", name);
  /* an empty array may be left out (h5checkpoint.c); files that have it empty
   * (written before) read the same */
  int present = vs_h5g_path(f, p, err);
  if (present < 0) return VS_ERR_FORMAT;
  if (present == 0) {
    if (rows == 0) return VS_OK;
    /* the times at rest: a checkpoint written without sleeping (vsim 0.1.0,
     * where it was off by default and the scene has no such key) has none,
     * and is resumed with every body at rest for 0 s */
    if (!strcmp(name, "rsleep")) {
      memset(buf, 0, (size_t)rows * (size_t)width * esize);
      return VS_OK;
    }
    if (width > 1)
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "checkpoint has no '%s', the scene needs [%llu, %d]: not the same scene",
                          name, (unsigned long long)rows, width);
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "checkpoint has no '%s', the scene needs [%llu]: not the same scene", name,
                        (unsigned long long)rows);
  }
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, gtype, width > 1 ? 2 : 1, UINT64_MAX);
  vs_h5g_dset d;
  vs_status rc = vs_h5g_dset_open(f, p, &spec, &d, err);
  if (rc != VS_OK) return rc;
  if (d.dims[0] != rows || (width > 1 && d.dims[1] != (uint64_t)width)) {
    if (width > 1)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "checkpoint '%s' is [%llu, %llu], the scene needs [%llu, %d]: not the "
                        "same scene",
                        name, (unsigned long long)d.dims[0], (unsigned long long)d.dims[1],
                        (unsigned long long)rows, width);
    else
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "checkpoint '%s' is [%llu], the scene needs [%llu]: not the same scene",
                        name, (unsigned long long)d.dims[0], (unsigned long long)rows);
  } else if (rows > 0) {
    rc = vs_h5g_read_rows(f, &d, mtype, 0, rows, buf, (size_t)rows * (size_t)width * esize, err);
  }
  vs_h5g_dset_close(&d);
  return rc;
}

#define CK_GTYPE(p) \
  _Generic((p), double *: VS_H5G_F64, uint8_t *: VS_H5G_U8, int32_t *: VS_H5G_I32,      \
           int64_t *: VS_H5G_I64)

vs_status vs_h5_read_checkpoint(const char *path, const vs_model *model, vs_state *state,
                                vs_error *err) {
  if (!path || !model || !state)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_read_checkpoint: missing argument");
  vs_h5_quiet();
  /* the checksum and the values first (streamed), then the arrays */
  vs_status rc = h5c_verify_checkpoint(path, NULL, NULL, err);
  if (rc != VS_OK) return rc;
  vs_h5g_file f;
  if ((rc = vs_h5g_open(path, &f, err)) != VS_OK) return rc;
  const vs_model *m = model; /* the table's count expressions name it m */
#define CK_READ(name, type, width, count)                                                     \
  if (rc == VS_OK)                                                                            \
    rc = read_ck_array(&f, path, #name, (hsize_t)(count), (width), CK_GTYPE(state->name),    \
                       CK_MTYPE(state->name), sizeof(type), state->name, err);
  VS_STATE_FIELDS(CK_READ)
#undef CK_READ
  (void)m;
  /* the OBJ files the model read are those the run read */
  if (rc == VS_OK) rc = h5c_check_meshes(&f, path, model, err);
  int64_t frame = 0, step = 0, n_alive = 0;
  double time = 0;
  if (rc == VS_OK &&
      (rc = vs_h5g_attr_int64(&f, "/checkpoint", "frame", 0, VS_MAX_FRAMES, &frame, err)) == VS_OK &&
      (rc = vs_h5g_attr_int64(&f, "/checkpoint", "step", 0, INT64_MAX, &step, err)) == VS_OK &&
      (rc = vs_h5g_attr_double(&f, "/checkpoint", "time", 0, INFINITY, &time, err)) == VS_OK &&
      (rc = vs_h5g_attr_int64(&f, "/checkpoint", "n_alive", 0, model->n_dist, &n_alive, err)) ==
          VS_OK) {
    state->frame = frame;
    state->step = step;
    state->time = time;
    state->n_alive = n_alive;
  }
  vs_h5g_close(&f);
  /* the structure against the model, before the solver trusts it (the
   * contact cache's count indexes its arrays) */
  if (rc == VS_OK) rc = h5c_check_state(path, model, state, err);
  return rc;
}

/* Copy the regular file src byte for byte into out (the temporary file,
 * created exclusively by outfile.h with src's permissions).  Returns
 * VS_OK, or the status to report (why says what failed). */
static vs_status copy_bytes(const char *src, int out, const char *dst, char *why,
                            size_t why_size) {
  int in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (in < 0 || fstat(in, &st) != 0) {
    snprintf(why, why_size, "cannot read '%s': %s", src, strerror(errno));
    if (in >= 0) close(in);
    return VS_ERR_IO;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, why_size, "'%s' is not a regular file: refused", src);
    close(in);
    return VS_ERR_USAGE;
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
  int se;
  if (rc == VS_OK && (se = vs_outfile_sync_fd(out, 0)) != 0) {
    snprintf(why, why_size, "writing '%s': %s", dst, strerror(se));
    rc = VS_ERR_IO;
  }
  return rc;
}

/* The file address of an open object's header (its identity: two hard
 * links to one dataset give the same), 0 when it cannot be had. */
static uint64_t obj_addr(hid_t id) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t oi;
  haddr_t a = HADDR_UNDEF;
  if (H5Oget_info3(id, &oi, H5O_INFO_BASIC) < 0 || H5VLnative_token_to_addr(id, oi.token, &a) < 0)
    return 0;
  return (uint64_t)a;
#else
  H5O_info_t oi;
  if (H5Oget_info2(id, &oi, H5O_INFO_BASIC) < 0) return 0;
  return (uint64_t)oi.addr;
#endif
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
  /* step and time hard links to an earlier series' (files since they were
   * shared): that one writes them; files with a pair per series append to
   * each as before */
  if (w->time_lead < 0) {
    w->time_lead = i;
  } else {
    const series *lead = &w->s[w->time_lead];
    const uint64_t sa = obj_addr(s->step), ta = obj_addr(s->time);
    const int share_step = sa != 0 && sa == obj_addr(lead->step);
    const int share_time = ta != 0 && ta == obj_addr(lead->time);
    if (share_step != share_time) {
      snprintf(w->msg, sizeof w->msg,
               "%s shares only one of its step and time with the first series", group);
      return 1;
    }
    s->shared = share_step;
  }
  return 0;
}

vs_status vs_h5_reopen(const char *path, const vs_model *model, const vs_h5_run_info *info,
                       vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_reopen: missing argument");
  vs_h5_quiet();
  /* The file is resolved once (a symbolic link to its regular target, a
   * special file refused) and everything below works on that target and a
   * copy of it made exclusively beside it. */
  vs_outfile of;
  vs_status rc = vs_outfile_create(path, VS_OUTFILE_REPLACE, NULL, &of, err);
  if (rc != VS_OK) return rc;
  vs_h5_writer *w;
  rc = h5w_writer_new(path, &of, model, info ? info->inputs : NULL, &w, err);
  if (rc != VS_OK) return rc;

  vs_status copied = copy_bytes(w->of.path, w->of.fd, w->tmp, w->msg, sizeof w->msg);
  /* what a failure is, unless it finds out otherwise below */
  vs_status code = copied == VS_OK ? VS_ERR_IO : copied;
  int ok = 0;
  if (copied == VS_OK) {
    /* Before HDF5 opens the copy for writing: the checkpoint verifies and
     * everything the run writes lies in this file (no external link or
     * storage can make HDF5 write anywhere else). */
    vs_error e;
    vs_error_clear(&e);
    vs_status v = h5c_verify_checkpoint(w->tmp, model, &w->resolved_hash, &e);
    if (v == VS_OK) v = h5c_check_writable(w->tmp, path, model, &e);
    if (v != VS_OK) {
      snprintf(w->msg, sizeof w->msg, "%s", e.message);
      code = v;
      copied = v;
    }
  }
  if (copied == VS_OK && h5w_make_plists(w) == 0) {
    w->file = H5Fopen(w->tmp, H5F_ACC_RDWR, w->fapl);
    if (w->file < 0)
      h5w_fail(w, "reopening a copy");
    else if (!h5w_same_file(w))
      snprintf(w->msg, sizeof w->msg, "'%s' was replaced by another file while opening", w->tmp);
    if (w->file >= 0 && w->msg[0]) h5w_close_id(&w->file);
  }
  if (w->file >= 0) {
    ok = 1;
    for (int i = 0; ok && i < S_COUNT; i++) {
      char p[192];
      h5w_series_desc d;
      h5w_series_describe(i, model, &d);
      snprintf(p, sizeof p, "%s/value", d.group);
      int has = vs_h5_path_exists(w->file, p);
      /* derived data a file from before it lacks: the run goes on without */
      if (!has && d.row == H5W_ROW_RSURF) continue;
      /* a rigid-only file from before /particles/all was left out: it goes
       * on with its empty particle series */
      if (has && !d.wanted && model->n_particles == 0 &&
          (d.row == H5W_ROW_POS || d.row == H5W_ROW_VEL))
        d.wanted = 1;
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
