/* h5write.c: the result file writer (docs/result-file.md, H5MD 1.1 layout).
 *
 * The file is created under a temporary name beside the output and renamed
 * into place by vs_h5_finish once it is complete and closed, so a reader
 * never sees a half-written result under the real name.
 *
 * Every time series (a group with value/step/time) keeps its datasets open
 * and buffers recorded frames in memory, one chunk's worth at a time; a full
 * buffer is appended with one H5Dset_extent + hyperslab write.  Writing
 * whole chunks means each chunk is compressed once, and the ~50 small
 * observable datasets cost a memcpy per frame instead of an HDF5 call.
 * All buffers are allocated at open: recording a frame never allocates.
 *
 * Writing overlaps stepping: vs_h5_record copies the frame's persistent
 * state into a free slot and queues it for the writer's thread (started by
 * vs_h5_open, where it touches the slots' pages while the file is created),
 * which measures it, fills the rows and calls HDF5, then keeps the slot as
 * the checkpoint and frees its old checkpoint (three state copies, two
 * for big states).  After its first frame the thread also makes /checkpoint
 * (filled with that frame), which vs_h5_finish overwrites in place with the
 * last recorded frame.  While that thread runs it is the only one calling
 * HDF5; finish and abort drain and join it first.  A syncer thread
 * (started once the file holds H5W_SYNC_FROM bytes) fdatasyncs the
 * temporary file as chunks are appended, so the fsync before the rename
 * has little left.  A run that will record at most H5W_INLINE_BYTES
 * (frames x state bytes: a short run of a small scene) has neither thread:
 * vs_h5_record writes each frame itself, as it does when no thread can be
 * started.  The rows, their order and the
 * chunks are those of the synchronous writer, so the file is the same
 * byte for byte.
 *
 * Object time stamps are off on every group and dataset (and HDF5 stores no
 * file name), so identical runs give identical datasets. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/write/h5check.h"
#include "io/guard/h5guard.h"
#include "io/h5surface.h"
#include "io/write/h5write.h"
#include "io/read/xdmf.h"
#include "solve/solve.h"

/* ---- the static part of the file ---------------------------------------- */

/* Map the pages of p[0 .. n) (the kernel maps them on first touch, which
 * costs 10-40 us a page on a VM): one madvise for the whole pages where
 * the kernel has MADV_POPULATE_WRITE (Linux 5.14; about a third of the
 * faults' time here), then a write to every page. */
static void populate(void *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
  const uintptr_t b = ((uintptr_t)p + n) & ~(page - 1);
  if (page > 0 && b > a) (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)n;
#endif
}


/* /h5md: version, author, creator (fixed-length strings, H5MD 1.1) and the
 * units module (SI; the units are `unit` attributes of the element groups). */
static int write_h5md(vs_h5_writer *w, const char *author_name) {
  int rc = -1;
  hid_t h5md = h5w_make_group(w, w->file, "h5md");
  if (h5md < 0) return -1;
  int32_t version[2] = {1, 1}, units_version[2] = {1, 0};
  hsize_t two = 2;
  hid_t space = H5Screate_simple(1, &two, NULL);
  hid_t author = H5I_INVALID_HID, creator = H5I_INVALID_HID;
  hid_t modules = H5I_INVALID_HID, units = H5I_INVALID_HID;
  if (space < 0 ||
      h5w_set_attr(w, h5md, "version", H5T_STD_I32LE, H5T_NATIVE_INT32, space, version) < 0)
    goto done;
  /* The author is the scene's output.author rather than $USER: files from
   * identical runs should not depend on who ran them. */
  author = h5w_make_group(w, h5md, "author");
  if (author < 0 || h5w_attr_fixstr(w, author, "name", author_name) < 0) goto done;
  creator = h5w_make_group(w, h5md, "creator");
  if (creator < 0 || h5w_attr_fixstr(w, creator, "name", "vsim") < 0 ||
      h5w_attr_fixstr(w, creator, "version", VSIM_VERSION) < 0)
    goto done;
  modules = h5w_make_group(w, h5md, "modules");
  units = modules >= 0 ? h5w_make_group(w, modules, "units") : H5I_INVALID_HID;
  if (units < 0 ||
      h5w_set_attr(w, units, "version", H5T_STD_I32LE, H5T_NATIVE_INT32, space, units_version) < 0 ||
      h5w_attr_fixstr(w, units, "system", "SI") < 0)
    goto done;
  rc = 0;
done:
  if (units >= 0) H5Gclose(units);
  if (modules >= 0) H5Gclose(modules);
  if (creator >= 0) H5Gclose(creator);
  if (author >= 0) H5Gclose(author);
  if (space >= 0) H5Sclose(space);
  H5Gclose(h5md);
  return rc;
}

/* /particles/rigid (its series exist already): box, mass (inf when fixed),
 * inertia [B, 3] (principal moments), shape [B] (0 box, 1 sphere, 2 capsule),
 * size [B, 3] (box extents; sphere [r, 0, 0]; capsule [r, length, 0]). */
static int write_rigid(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  hid_t g = H5Lexists(w->file, "/particles/rigid", H5P_DEFAULT) > 0
                ? H5Gopen2(w->file, "/particles/rigid", H5P_DEFAULT)
                : h5w_make_group(w, w->file, "/particles/rigid");
  hid_t box = g >= 0 ? h5w_make_group(w, g, "box") : H5I_INVALID_HID;
  hsize_t n = (hsize_t)m->n_rigid, n3[2] = {n, 3};
  if (box >= 0 && h5w_attr_i32(w, box, "dimension", 3) == 0 && h5w_attr_boundary(w, box) == 0 &&
      h5w_make_fixed(w, g, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->rigid_mass, NULL) == 0 &&
      h5w_make_fixed(w, g, "inertia", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n3, m->rigid_inertia,
                     NULL) == 0 &&
      h5w_make_fixed(w, g, "shape", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &n, m->rigid_shape, NULL) == 0 &&
      h5w_make_fixed(w, g, "size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n3, m->rigid_size, NULL) == 0)
    rc = 0;
  if (box >= 0) H5Gclose(box);
  if (g >= 0) H5Gclose(g);
  return rc;
}

/* /particles/rigid_surface (its position series exists already): box and
 * body [V] int32, the rigid body (index in /particles/rigid) of each vertex;
 * /connectivity/rigid_triangles [T, 3] comes with the topology. */
static int write_rigid_surface(vs_h5_writer *w, const vs_model *m) {
  size_t nv, nt;
  h5s_model_counts(m, &nv, &nt);
  int32_t *body = vs_malloc(nv * sizeof *body + 1);
  if (!body) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the rigid surfaces");
    w->nomem = 1;
    return -1;
  }
  size_t v = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    int n, t;
    h5s_shape_counts(m->rigid_shape[b], &n, &t);
    for (int i = 0; i < n; i++) body[v++] = b;
  }
  hsize_t d = (hsize_t)nv;
  hid_t g = H5Gopen2(w->file, "/particles/rigid_surface", H5P_DEFAULT);
  hid_t box = g >= 0 ? h5w_make_group(w, g, "box") : H5I_INVALID_HID;
  int rc = box >= 0 && h5w_attr_i32(w, box, "dimension", 3) == 0 &&
                   h5w_attr_boundary(w, box) == 0 &&
                   h5w_make_fixed(w, g, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d, body,
                                  NULL) == 0
               ? 0
               : -1;
  if (g < 0) h5w_fail(w, "opening /particles/rigid_surface");
  if (box >= 0) H5Gclose(box);
  if (g >= 0) H5Gclose(g);
  vs_free(body);
  return rc;
}

/* 1 when the file has the rigid surfaces (with the rigid positions) */
static int has_surface(const vs_model *m) {
  h5w_series_desc d;
  h5w_series_describe(S_RSURF, m, &d);
  return d.wanted;
}

/* /connectivity/rigid_triangles: every body's triangles, into the vertices
 * of /particles/rigid_surface. */
static int write_rigid_triangles(vs_h5_writer *w, const vs_model *m, hid_t conn) {
  size_t nv, nt;
  h5s_model_counts(m, &nv, &nt);
  int32_t *tri = vs_malloc(3 * nt * sizeof *tri + 1);
  if (!tri) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the rigid surfaces");
    w->nomem = 1;
    return -1;
  }
  size_t v = 0, t = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    int n, k;
    h5s_shape_counts(m->rigid_shape[b], &n, &k);
    h5s_shape_mesh(m->rigid_shape[b], m->rigid_size + 3 * (size_t)b, NULL, tri + 3 * t);
    for (size_t i = 3 * t; i < 3 * (t + (size_t)k); i++) tri[i] += (int32_t)v;
    v += (size_t)n;
    t += (size_t)k;
  }
  int rc = h5w_make_index(w, conn, "rigid_triangles", (hsize_t)nt, 3, tri,
                          "/particles/rigid_surface", NULL);
  vs_free(tri);
  return rc;
}

/* /particles/all (when the scene has particles): the box, the particle
 * series of H5W_SERIES, mass, body, radius (viewers draw particles at it). */
static int write_particles(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  hid_t mass = H5I_INVALID_HID, radius = H5I_INVALID_HID;
  hid_t parts = h5w_make_group(w, w->file, "particles");
  hid_t all = parts >= 0 && m->n_particles > 0 ? h5w_make_group(w, parts, "all") : H5I_INVALID_HID;
  hid_t box = all >= 0 ? h5w_make_group(w, all, "box") : H5I_INVALID_HID;
  if (parts < 0) goto done;
  if (m->n_particles > 0 &&
      (box < 0 || h5w_attr_i32(w, box, "dimension", 3) < 0 || h5w_attr_boundary(w, box) < 0))
    goto done;
  if (h5w_create_series(w, m, "/particles/") < 0) goto done;
  hsize_t n = (hsize_t)m->n_particles;
  if (m->n_particles > 0 &&
      (h5w_make_fixed(w, all, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->mass, &mass) < 0 ||
       h5w_attr_fixstr(w, mass, "unit", "kg") < 0 ||
       h5w_make_fixed(w, all, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &n, m->body, NULL) < 0 ||
       h5w_make_fixed(w, all, "radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->radius,
                      &radius) < 0 ||
       h5w_attr_fixstr(w, radius, "unit", "m") < 0))
    goto done;
  if (m->n_rigid > 0 && write_rigid(w, m) < 0) goto done;
  if (has_surface(m) && write_rigid_surface(w, m) < 0) goto done;
  rc = 0;
done:
  if (radius >= 0) H5Dclose(radius);
  if (mass >= 0) H5Dclose(mass);
  if (box >= 0) H5Gclose(box);
  if (all >= 0) H5Gclose(all);
  if (parts >= 0) H5Gclose(parts);
  return rc;
}

/* /observables: the observable series of H5W_SERIES. */
static int write_observables(vs_h5_writer *w, const vs_model *m) {
  hid_t obs = h5w_make_group(w, w->file, "observables");
  if (obs < 0) return -1;
  H5Gclose(obs);
  return h5w_create_series(w, m, "/observables/");
}

static int write_topology(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  int32_t *tmp = NULL;
  hid_t color = H5I_INVALID_HID;
  hid_t conn = h5w_make_group(w, w->file, "connectivity");
  hid_t solver = conn >= 0 ? h5w_make_group(w, w->file, "solver") : H5I_INVALID_HID;
  if (solver < 0) goto done;
  if (m->n_dist > 0 &&
      h5w_make_index(w, conn, "distance", (hsize_t)m->n_dist, 2, m->dist_ab, "/particles/all", NULL) < 0)
    goto done;
  size_t nc = (size_t)(m->n_constraints > 0 ? m->n_constraints : 0);
  size_t na = (size_t)(m->n_angle > 0 ? m->n_angle : 0);
  size_t ntmp = 3 * (nc > na ? nc : na);
  tmp = vs_malloc(ntmp * sizeof *tmp + 1);
  if (!tmp) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the topology");
    w->nomem = 1;
    goto done;
  }
  /* fresh pages (390 KB for a 128x128 cloth, ~95 page faults on the
   * caller's thread): mapped in one call */
  populate(tmp, ntmp * sizeof *tmp);
  if (na > 0) {
    /* the a-c link of each angle limit: what actually acts (law of cosines) */
    for (size_t i = 0; i < na; i++) {
      tmp[2 * i] = m->angle_abc[3 * i];
      tmp[2 * i + 1] = m->angle_abc[3 * i + 2];
    }
    if (h5w_make_index(w, conn, "angle", na, 2, tmp, "/particles/all", NULL) < 0) goto done;
  }
  if (m->n_triangles > 0 &&
      h5w_make_index(w, conn, "triangles", (hsize_t)m->n_triangles, 3, m->triangles, "/particles/all",
                     NULL) < 0)
    goto done;
  if (has_surface(m) && write_rigid_triangles(w, m, conn) < 0) goto done;
  /* per-frame alive flags, when a link can tear */
  if (h5w_create_series(w, m, "/connectivity/") < 0) goto done;
  for (size_t i = 0; i < nc; i++) vs_model_constraint_particles(m, (int32_t)i, tmp + 3 * i);
  if (h5w_make_index(w, solver, "constraints", nc, 3, tmp, NULL, NULL) < 0) goto done;
  if (m->color) {
    hsize_t d1 = nc;
    if (h5w_make_fixed(w, solver, "color", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d1, m->color,
                   &color) < 0 ||
        h5w_attr_i32(w, color, "count", m->n_colors) < 0)
      goto done;
  }
  rc = 0;
done:
  if (color >= 0) H5Dclose(color);
  if (solver >= 0) H5Gclose(solver);
  if (conn >= 0) H5Gclose(conn);
  vs_free(tmp);
  return rc;
}

static int write_parameters(vs_h5_writer *w, const vs_scene *scene, const vs_model *m,
                            const vs_h5_run_info *info) {
  hid_t params = h5w_make_group(w, w->file, "parameters");
  if (params < 0) return -1;
  w->params = h5w_make_group(w, params, "vsim");
  H5Gclose(params);
  if (w->params < 0) return -1;
  hid_t p = w->params;
  /* status says "running" until vs_h5_finish replaces it; only the
   * temporary file can ever show it. */
  if (h5w_attr_str(w, p, "scene", scene && scene->text ? scene->text : "") < 0 ||
      h5w_attr_str(w, p, "name", scene ? scene->name : "") < 0 ||
      h5w_attr_str(w, p, "resolved", info ? info->resolved_yaml : "") < 0 ||
      h5w_attr_str(w, p, "command", info ? info->command : "") < 0 ||
      h5w_attr_str(w, p, "version", VSIM_VERSION) < 0 ||
      h5w_attr_i32(w, p, "format_version", VSIM_FORMAT_VERSION) < 0 ||
      h5w_attr_i32(w, p, "colors", m->n_colors) < 0 || h5w_attr_f64(w, p, "wall_seconds", 0.0) < 0 ||
      h5w_attr_i64(w, p, "frames_recorded", 0) < 0 || h5w_attr_str(w, p, "status", "running") < 0)
    return -1;
  return 0;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void series_init(series *s) {
  memset(s, 0, sizeof *s);
  s->value = s->step = s->time = H5I_INVALID_HID;
}

static void close_objects(vs_h5_writer *w) {
  for (int i = 0; i < S_COUNT; i++) {
    h5w_close_id(&w->s[i].value);
    h5w_close_id(&w->s[i].step);
    h5w_close_id(&w->s[i].time);
  }
  for (int i = 0; i < CK_COUNT; i++) h5w_close_id(&w->ck_ds[i]);
  h5w_close_id(&w->ck_group);
  h5w_close_id(&w->params);
  h5w_close_id(&w->gcpl);
}

void h5w_writer_free(vs_h5_writer *w) {
  if (!w) return;
  h5w_stop_thread(w);
  pthread_cond_destroy(&w->cv);
  pthread_cond_destroy(&w->sync_cv);
  pthread_mutex_destroy(&w->mu);
  for (int i = 0; i < S_COUNT; i++) {
    vs_free(w->s[i].buf);
    vs_free(w->s[i].steps);
    vs_free(w->s[i].times);
  }
  for (int i = 0; i < w->n_pool; i++) vs_state_free(w->pool[i]);
  vs_free(w->vel);
  vs_free(w->ow.order);
  vs_free(w->ow.tmp);
  vs_free(w->ow.key);
  vs_free(w->path);
  vs_free(w->tmp);
  vs_free(w);
}

/* Close everything and delete the temporary file. */
void h5w_discard(vs_h5_writer *w) {
  h5w_stop_thread(w);
  close_objects(w);
  h5w_close_id(&w->file);
  h5w_close_id(&w->fapl);
  vs_outfile_discard(&w->of);
}

/* Why a file could not be created: a full disk or a quota is a failure
 * while writing (VS_ERR_IO, exit 1); anything else (no permission, a
 * read-only or missing directory) means the output path cannot be used
 * (VS_ERR_USAGE, exit 2, like a bad -o). */
vs_status h5w_create_failure(int e) {
  switch (e) {
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
  case EIO:
    return VS_ERR_IO;
  default:
    return VS_ERR_USAGE;
  }
}

/* A state of m holding only the persistent fields, uninitialised: the
 * frame handed to the writer thread, and the checkpoint (no solver scratch:
 * nothing steps them). */
static vs_state *bare_state(const vs_model *m) {
  vs_state *s = vs_calloc(1, sizeof *s);
  if (!s) return NULL;
  int ok = 1;
#define BARE_ALLOC(name, type, width, count) \
  ok &= (s->name = vs_malloc(((width) * (count) + 1) * sizeof(type))) != NULL;
  VS_STATE_FIELDS(BARE_ALLOC)
#undef BARE_ALLOC
  s->threads = 1;
  if (!ok) {
    vs_state_free(s);
    return NULL;
  }
  return s;
}

/* The writer without any HDF5 object: settings, temporary file, scratch.
 * Takes *of (the created output, outfile.h) in every case: on failure its
 * temporary file is removed. */
vs_status h5w_writer_new(const char *path, vs_outfile *of, const vs_model *model,
                         vs_h5_writer **out, vs_error *err) {
  *out = NULL;
  vs_status rc = VS_OK;
  if (model->output.compression < 0 || model->output.compression > 9)
    rc = vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "compression must be 0-9, got %d",
                      model->output.compression);
  else if (model->output.compression > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    rc = vs_error_set(err, VS_ERR_UNSUPPORTED, path, 0, 0,
                      "this HDF5 library has no gzip filter (output.compression)");
  vs_h5_writer *w = rc == VS_OK ? vs_calloc(1, sizeof *w) : NULL;
  if (rc == VS_OK && !w) rc = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (rc != VS_OK) {
    vs_outfile_discard(of);
    return rc;
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  pthread_cond_init(&w->sync_cv, NULL);
  w->of = *of;
  memset(of, 0, sizeof *of);
  of->fd = -1;
  w->file = w->fapl = w->gcpl = w->params = H5I_INVALID_HID;
  w->ck_group = H5I_INVALID_HID;
  for (int i = 0; i < CK_COUNT; i++) w->ck_ds[i] = H5I_INVALID_HID;
  for (int i = 0; i < S_COUNT; i++) series_init(&w->s[i]);
  w->time_lead = -1;
  w->every = model->output.every > 0 ? model->output.every : 1;
  w->rows_hint = (size_t)(model->frames > 0 ? model->frames / w->every : 0) + 1;
  w->compression = model->output.compression;
  w->n_particles = model->n_particles;
  w->n_constraints = model->n_constraints;
  w->last_frame = -1;
  w->path = vs_strdup(path);
  w->tmp = vs_strdup(w->of.tmp);
  int ok = w->path && w->tmp;
  if (ok && (model->output.fields & VS_FIELD_VELOCITY) && model->output.float32) {
    w->vel = vs_malloc(3 * (size_t)(model->n_particles > 0 ? model->n_particles : 0) *
                        sizeof *w->vel + 1);
    ok = w->vel != NULL;
  }
  if (ok && model->n_rigid > 0) {
    size_t nr = (size_t)model->n_rigid;
    w->ow.order = vs_malloc(nr * sizeof *w->ow.order);
    w->ow.tmp = vs_malloc(nr * sizeof *w->ow.tmp);
    w->ow.key = vs_malloc(nr * sizeof *w->ow.key);
    ok = w->ow.order && w->ow.tmp && w->ow.key;
  }
  /* the state copies (vs_writer_copies); the last one is the checkpoint */
  size_t bytes = 0;
  {
    const vs_model *m = model;
#define STATE_BYTES(name, type, width, count) bytes += (width) * (count) * sizeof(type);
    VS_STATE_FIELDS(STATE_BYTES)
#undef STATE_BYTES
  }
  /* a short run of a small state writes on the caller's thread: a slot
   * and the checkpoint */
  w->inline_write = w->rows_hint > 0 && bytes <= H5W_INLINE_BYTES / w->rows_hint;
  const int n_pool = w->inline_write ? 2 : vs_writer_copies(bytes);
  /* woken once half the slots wait (every frame with three copies) */
  w->wake_at = n_pool > 4 ? (n_pool - 1) / 2 : 1;
  for (; ok && w->n_pool < n_pool; w->n_pool++) ok = (w->pool[w->n_pool] = bare_state(model)) != NULL;
  if (ok) {
    w->ck = w->pool[w->n_pool - 1];
    for (int i = 0; i < w->n_pool - 1; i++) w->free_slot[w->n_free++] = w->pool[i];
  }
  if (!ok) {
    vs_outfile_discard(&w->of);
    h5w_writer_free(w);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  const vs_model *m = model; /* the table's count expressions name it m */
#define CK_ROWS(name, type, width, count) w->ck_rows[CK_##name] = (hsize_t)(count);
  VS_STATE_FIELDS(CK_ROWS)
#undef CK_ROWS
  (void)m;
  *out = w;
  return VS_OK;
}

/* Property lists shared by everything the writer creates. */
int h5w_make_plists(vs_h5_writer *w) {
  w->fapl = vs_h5_file_access();
  w->gcpl = H5Pcreate(H5P_GROUP_CREATE);
  /* STRONG: closing the file closes anything still open in it, so an
   * error path can always release and delete the temporary file. */
  /* HDF5 1.10 file format objects: small groups are links in the object
   * header and chunk indexes are (extensible) arrays, not B-trees: about 2 KB
   * less per series, which is most of a small scene's file.  Readers need
   * HDF5 >= 1.10 (2016; h5py, ParaView and MDAnalysis have it). */
  if (w->fapl < 0 || w->gcpl < 0 || H5Pset_fclose_degree(w->fapl, H5F_CLOSE_STRONG) < 0 ||
      H5Pset_libver_bounds(w->fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0 ||
      H5Pset_obj_track_times(w->gcpl, 0) < 0)
    return h5w_fail(w, "creating property lists");
  /* Uncompressed series bypass HDF5's chunk cache: with no cache bytes
   * (and no fill at allocation, make_extendible) each chunk is written
   * straight from the series buffer, where the cache cleared a chunk's
   * buffer (768 KiB at 128^2) and copied the rows into it before writing
   * it (HDF5 1.10 H5D__chunk_cacheable).  Same values; each chunk is placed
   * in the file when written, not when the cache evicts it. */
  if (w->compression == 0) {
    int mdc = 0;
    size_t slots = 0, bytes = 0;
    double w0 = 0.0;
    if (H5Pget_cache(w->fapl, &mdc, &slots, &bytes, &w0) < 0 ||
        H5Pset_cache(w->fapl, mdc, slots, 0, w0) < 0)
      return h5w_fail(w, "creating property lists");
  }
  return 0;
}

static int start_thread(vs_h5_writer *w);
static void kick_syncer(vs_h5_writer *w);

vs_status vs_h5_open(const char *path, const vs_scene *scene, const vs_model *model,
                     const vs_h5_run_info *info, vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_open: missing argument");
  vs_h5_quiet();

  /* outfile.h: a new name or a regular file (with --force), never a device,
   * FIFO or dangling link; the temporary file is created exclusively. */
  vs_outfile of;
  vs_status rc = vs_outfile_create(path, info && info->force ? VS_OUTFILE_FORCE : 0, &of, err);
  if (rc != VS_OK) return rc;
  vs_h5_writer *w;
  rc = h5w_writer_new(path, &of, model, &w, err);
  if (rc != VS_OK) return rc;
  w->resolved_hash = h5c_hash_text(info ? info->resolved_yaml : NULL);
  /* the thread touches the state copies while this one creates the file
   * (the first vs_h5_record waits for a slot); without a thread, the first
   * frame starts one or is written here */
  w->model = model;
  const int n_free = w->n_free;
  w->touch = 1;
  w->n_free = 0; /* the thread frees each slot once touched */
  if (w->inline_write || start_thread(w) != 0) {
    w->touch = 0;
    w->n_free = n_free;
  } else {
    w->ck_early = 1; /* a new file: no /checkpoint yet */
  }
  int ok = 0;
  if (h5w_make_plists(w) == 0) {
    /* The root group's object header in the 1.10 format carries time
     * stamps unless told otherwise: two runs a second apart then differed
     * in those bytes (identical runs must give identical files). */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0)
      w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, fcpl, w->fapl);
    else
      w->file = H5I_INVALID_HID;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (w->file < 0) {
      char what[1024];
      snprintf(what, sizeof what, "cannot create '%s'", w->tmp);
      h5w_fail(w, what);
    } else if (!h5w_same_file(w)) {
      snprintf(w->msg, sizeof w->msg, "'%s' was replaced by another file while opening", w->tmp);
    } else if (write_h5md(w, model->output.author) == 0 && write_particles(w, model) == 0 &&
               write_observables(w, model) == 0 && write_topology(w, model) == 0 &&
               h5w_write_colliders(w, model) == 0 && write_parameters(w, scene, model, info) == 0) {
      ok = 1;
    }
  }
  if (!ok) {
    vs_status code = w->nomem ? VS_ERR_NOMEM : VS_ERR_IO;
    vs_error_set(err, code, path, 0, 0, "%s", w->msg[0] ? w->msg : "cannot create file");
    h5w_discard(w);
    h5w_writer_free(w);
    return code;
  }
  *out = w;
  return VS_OK;
}

/* Append one frame's row to a series and write the buffer when full. */
static unsigned char *row_of(series *s) { return s->buf + s->used * s->row_elems * s->esize; }

static int push_row(vs_h5_writer *w, int index, const vs_state *state) {
  series *s = &w->s[index];
  s->steps[s->used] = state->frame;
  s->times[s->used] = state->time;
  s->used++;
  if (s->used == s->cap) return h5w_flush_series(w, index);
  return 0;
}

/* The hooks of the `from` column of H5W_SERIES. */
static void from_position(const vs_state *state, size_t n, series *s) {
  const double *x = state->x;
  if (s->esize == sizeof(float)) {
    float *r = (float *)(void *)row_of(s);
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 3; c++) r[3 * i + c] = (float)x[4 * i + c];
  } else {
    double *r = (double *)(void *)row_of(s);
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 3; c++) r[3 * i + c] = x[4 * i + c];
  }
}

static void from_velocity(vs_h5_writer *w, const vs_model *model, const vs_state *state,
                          size_t n, series *s) {
  if (s->esize == sizeof(float)) {
    vs_state_velocity(model, state, w->vel);
    float *r = (float *)(void *)row_of(s);
    for (size_t i = 0; i < 3 * n; i++) r[i] = (float)w->vel[i];
  } else {
    vs_state_velocity(model, state, (double *)(void *)row_of(s));
  }
}

/* /connectivity/alive: 1 for every constraint in build order but a torn link */
static void from_alive(const vs_model *m, const vs_state *state, series *s) {
  uint8_t *r = row_of(s);
  for (int32_t c = 0; c < m->n_constraints; c++)
    r[c] = m->con_kind[c] == VS_KIND_DISTANCE ? (state->alive[m->con_index[c]] != 0) : 1;
}

/* n rows of width k from a rigid state row (the world slot is not written). */
static void from_rigid(const double *x, int k, size_t n, series *s) {
  if (s->esize == sizeof(float)) {
    float *r = (float *)(void *)row_of(s);
    for (size_t i = 0; i < (size_t)k * n; i++) r[i] = (float)x[i];
  } else {
    memcpy(row_of(s), x, (size_t)k * n * sizeof(double));
  }
}

static void store_f64(series *s, double v) { memcpy(row_of(s), &v, sizeof v); }
static void store_i64(series *s, int64_t v) { memcpy(row_of(s), &v, sizeof v); }

/* statistic j of a constraint-error group */
static double stat_of(const vs_error_stats *es, int j) {
  switch (j) {
#define STAT_CASE(name, unit) \
  case H5W_STAT_##name: return es->name;
    H5W_ERROR_STATS(STAT_CASE)
#undef STAT_CASE
  default: break;
  }
  return 0;
}

/* Fill the row of slot i (of row r) for this frame. */
static void fill_row(vs_h5_writer *w, int r, int i, const vs_model *model, const vs_state *state,
                     const vs_observables *obs, size_t n) {
  series *s = &w->s[i];
#define H5W_OBS(member) \
  _Generic(obs->member, int64_t: store_i64, default: store_f64)(s, obs->member)
#define H5W_FROM_POSITION from_position(state, n, s)
#define H5W_FROM_VELOCITY from_velocity(w, model, state, n, s)
#define H5W_FROM_OBSERVE (void)0 /* vs_observe wrote it */
#define H5W_FROM_ALIVE from_alive(model, state, s)
#define H5W_FROM_RIGID(field, k) from_rigid(state->field, k, (size_t)model->n_rigid, s)
#define H5W_FROM_SURFACE                                                                    \
  h5s_world(model, state->rx, state->rq,                                                    \
            s->esize == sizeof(double) ? (double *)(void *)row_of(s) : NULL,                \
            s->esize == sizeof(float) ? (float *)(void *)row_of(s) : NULL)
#define H5W_FROM_ERROR_STATS                                                             \
  do {                                                                                   \
    int k = (i - S_ERR0) / H5W_STATS;                                                           \
    store_f64(s, stat_of(k < VS_KIND_COUNT ? &obs->kind[k] : &obs->all, (i - S_ERR0) % H5W_STATS));\
  } while (0)
#define FILL(id, slots, group, elem, shape, written, unit, from) \
  case H5W_ROW_##id: from; break;
  switch (r) {
    H5W_SERIES(FILL)
  default: break;
  }
#undef FILL
#undef H5W_OBS
#undef H5W_FROM_POSITION
#undef H5W_FROM_VELOCITY
#undef H5W_FROM_OBSERVE
#undef H5W_FROM_ALIVE
#undef H5W_FROM_RIGID
#undef H5W_FROM_SURFACE
#undef H5W_FROM_ERROR_STATS
}

/* The frame in slot into the series rows (a chunk's buffer written when
 * full), then the slot becomes the checkpoint and *old the previous one.
 * -1 when a write failed (w->msg says why; the frames stay buffered for
 * vs_h5_finish to retry).  Runs on the writer thread, or on the caller's
 * when there is none. */
static int write_frame(vs_h5_writer *w, vs_state *slot, double overlap, int64_t rcontacts,
                       vs_state **old) {
  const vs_model *model = w->model;
  const vs_state *state = slot;
  size_t n = (size_t)(w->n_particles > 0 ? w->n_particles : 0);
  series *per = &w->s[S_PER];
  vs_observables obs;
  /* per-constraint |C| lands straight in its buffer row */
  vs_observe_from(model, state, overlap, rcontacts, &w->ow, &obs,
                  per->value >= 0 ? (double *)(void *)row_of(per) : NULL);
  int rc = 0;
  const unsigned long chunks = w->chunks_written;
  for (int o = 0; o < H5W_ROWS; o++) {
    int r = h5w_record_order[o];
    for (int i = h5w_row_first[r]; i < h5w_row_first[r] + h5w_row_slots[r]; i++) {
      if (w->s[i].value < 0) continue;
      fill_row(w, r, i, model, state, &obs, n);
      if (push_row(w, i, state) < 0) rc = -1;
    }
  }
  /* Start writing the chunks just written back to the disk now, on this
   * thread, so that the fsync before the rename (vs_h5_finish, on the
   * caller's thread) has little left to wait for.  Errors surface there.
   * Not for a run written inline: its file is small, the fsync has little
   * to do anyway, and here the call would be on the caller's time (0.1-0.3
   * ms on this VM). */
  if (chunks != w->chunks_written && !w->inline_write) {
    vs_outfile_start_writeback(&w->of);
    kick_syncer(w);
  }
  /* the checkpoint is the state of the last recorded frame, whatever
   * happens to the state afterwards (a failing step, an interrupt) */
  *old = w->ck;
  w->ck = slot;
  w->has_ck = 1;
  return rc;
}

static void touch_pages(void *p, size_t n) {
  populate(p, n);
  memset(p, 0, n);
}

/* Touch every page of a bare state: on this thread, not in the caller's
 * copy. */
static void touch_state(const vs_model *m, vs_state *c) {
#define TOUCH(name, type, width, count) touch_pages(c->name, (width) * (count) * sizeof(type));
  VS_STATE_FIELDS(TOUCH)
#undef TOUCH
}

/* The checkpoint's group and datasets, made by the writer thread right
 * after its first frame (a fixed place in the sequence of HDF5 calls, so
 * the file is the same bytes run to run) and filled with that frame's
 * state: vs_h5_finish then writes the last frame's state over them in
 * place, into file pages already in the page cache, where it created them
 * and wrote 1.7 MB (at 128^2) into fresh pages on the caller's time.  On a
 * failure what was made is closed and finish makes the checkpoint as
 * before (it replaces a /checkpoint that exists), reporting any error. */
static void make_checkpoint_early(vs_h5_writer *w) {
  w->ck_early = 0;
  const int nomem = w->nomem;
  hid_t g = h5w_make_group(w, w->file, "checkpoint");
  const vs_state *c = w->ck;
  int rc = g >= 0 ? 0 : -1;
#define CK_MAKE(name, type, width, count)                                                   \
  if (rc == 0 && w->ck_rows[CK_##name] > 0) {                                              \
    hsize_t d[2] = {w->ck_rows[CK_##name], (hsize_t)(width)};                              \
    rc = h5w_make_fixed(w, g, #name, CK_FTYPE(c->name), CK_MTYPE(c->name), (width) > 1 ? 2 : 1, \
                        d, c->name, &w->ck_ds[CK_##name]);                                 \
  }
  VS_STATE_FIELDS(CK_MAKE)
#undef CK_MAKE
  if (rc == 0) {
    w->ck_group = g;
    return;
  }
  for (int i = 0; i < CK_COUNT; i++) h5w_close_id(&w->ck_ds[i]);
  if (g >= 0) H5Gclose(g);
  w->msg[0] = '\0'; /* no frame failed: finish says what fails there */
  w->nomem = nomem;
}

static void *writer_main(void *arg) {
  vs_h5_writer *w = arg;
  /* Started by vs_h5_open (w->touch), this thread touches the pages of
   * the state copies, freeing each slot once touched: the first slot and
   * the checkpoint while the caller creates the file, the other slots
   * (pool[1 .. n_pool - 2]) one at a time when no frame waits.  No HDF5
   * call until a frame comes (vs_h5_open calls HDF5 until then). */
  int untouched = 0; /* pool[untouched .. n_pool - 2] are not free yet */
  if (w->touch) {
    touch_state(w->model, w->pool[0]);
    pthread_mutex_lock(&w->mu);
    w->free_slot[w->n_free++] = w->pool[0];
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    touch_state(w->model, w->ck);
    untouched = 1;
  }
  int quiet = 0, failed = 0;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->q_len && !w->quit) {
      if (w->touch && untouched < w->n_pool - 1) {
        vs_state *p = w->pool[untouched++];
        pthread_mutex_unlock(&w->mu);
        touch_state(w->model, p);
        pthread_mutex_lock(&w->mu);
        w->free_slot[w->n_free++] = p;
        pthread_cond_broadcast(&w->cv);
        continue;
      }
      pthread_cond_wait(&w->cv, &w->mu);
    }
    if (!w->q_len) break;
    vs_state *slot = w->q[w->q_head].s, *old = NULL;
    const double overlap = w->q[w->q_head].overlap;
    const int64_t rcontacts = w->q[w->q_head].rcontacts;
    pthread_mutex_unlock(&w->mu);
    const int64_t frame = slot->frame;
    if (!quiet) {
      vs_h5_quiet();
      /* the series buffers (allocated by vs_h5_open, filled from here on):
       * their pages mapped in one go each, contents unchanged */
      for (int i = 0; i < S_COUNT; i++)
        if (w->s[i].buf) populate(w->s[i].buf, w->s[i].cap * w->s[i].row_elems * w->s[i].esize);
    }
    quiet = 1;
    /* After a failed write (its frame stays buffered, the buffer full) the
     * frames handed over before the caller heard of it are not recorded, as
     * they would not have been handed over with one slot. */
    const int rc = failed ? (old = slot, 0) : write_frame(w, slot, overlap, rcontacts, &old);
    if (rc == 0 && !failed && w->ck_early) make_checkpoint_early(w);
    pthread_mutex_lock(&w->mu);
    if (failed) w->dropped++;
    if (rc < 0 && !w->failed) {
      w->failed = 1;
      w->fail_frame = frame;
    }
    failed = w->failed;
    w->free_slot[w->n_free++] = old;
    w->q_head = (w->q_head + 1) % H5W_SLOTS;
    w->q_len--;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  /* no frame will come: the checkpoint's checksum (a serial FNV-1a of the
   * whole state), while vs_h5_finish writes the checkpoint's datasets */
  if (w->has_ck) {
    w->ck_sum = h5c_state_checksum(w->resolved_hash, w->ck, w->ck_rows);
    w->ck_sum_ok = 1;
  }
  return NULL;
}

/* The syncer: fdatasync of the temporary file whenever chunks were
 * appended since its last one (no HDF5 call, only the file descriptor). */
static void *syncer_main(void *arg) {
  vs_h5_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->sync_dirty && !w->sync_quit) pthread_cond_wait(&w->sync_cv, &w->mu);
    if (w->sync_quit) break; /* the final fsync does the rest */
    w->sync_dirty = 0;
    pthread_mutex_unlock(&w->mu);
    const int e = vs_outfile_sync_fd(w->of.fd, 1);
    pthread_mutex_lock(&w->mu);
    if (e && !w->sync_errno) w->sync_errno = e;
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* Start the writer thread with every signal
 * blocked in them: SIGINT and the like reach the stepping thread, and a
 * write over a file-size limit fails with EFBIG instead of raising
 * SIGXFSZ.  0 when the writer runs. */
static int start_thread(vs_h5_writer *w) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&w->thread, NULL, writer_main, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) w->thread_on = 1;
  return rc;
}

/* No more frames: once the writer thread has written every frame handed
 * over it calls HDF5 no more (it computes the checksum, then ends). */
static void drain_writer(vs_h5_writer *w) {
  if (!w->thread_on) return;
  pthread_mutex_lock(&w->mu);
  w->quit = 1;
  pthread_cond_broadcast(&w->cv);
  while (w->q_len) pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
}

static void stop_writer(vs_h5_writer *w) {
  if (!w->thread_on) return;
  drain_writer(w);
  pthread_join(w->thread, NULL);
  w->thread_on = 0;
  w->quit = 0;
}

/* Start an fdatasync now (the data just written).  The syncer thread
 * starts once the file holds H5W_SYNC_FROM bytes: below that the final
 * fsync has little to wait for, and on a tiny file the early fdatasyncs
 * only added disk waits (a one-frame run: elapsed medians 19.7 -> 17.7 ms
 * without them, docs/performance.md).  Called by the writer's thread (or
 * the caller's when there is none), and by vs_h5_finish once that thread
 * is joined, so sync_on has one writer at a time. */
static void kick_syncer(vs_h5_writer *w) {
  if (!w->sync_on) {
    struct stat st;
    if (w->sync_tried || w->of.fd < 0 || fstat(w->of.fd, &st) != 0 ||
        st.st_size < (off_t)H5W_SYNC_FROM)
      return;
    w->sync_tried = 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&w->syncer, NULL, syncer_main, w) == 0) w->sync_on = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!w->sync_on) return;
  }
  pthread_mutex_lock(&w->mu);
  w->sync_dirty = 1;
  pthread_cond_broadcast(&w->sync_cv);
  pthread_mutex_unlock(&w->mu);
}

static void stop_syncer(vs_h5_writer *w) {
  if (w->sync_on) {
    pthread_mutex_lock(&w->mu);
    w->sync_quit = 1;
    pthread_cond_broadcast(&w->sync_cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->syncer, NULL);
    w->sync_on = 0;
    w->sync_quit = 0;
  }
}

void h5w_stop_thread(vs_h5_writer *w) {
  stop_writer(w);
  stop_syncer(w);
}

/* A failed write, as vs_h5_record reports it: the frame the first time,
 * "an earlier write failed" after. */
static vs_status report_failure(vs_h5_writer *w, vs_error *err) {
  if (w->fail_told)
    return vs_error_set(err, VS_ERR_IO, w->path, 0, 0, "an earlier write failed: %s", w->msg);
  w->fail_told = 1;
  return vs_error_set(err, VS_ERR_IO, w->path, 0, 0, "frame %lld: %s", (long long)w->fail_frame,
                      w->msg);
}

/* Wait for a free slot (WAIT_SLOT) or until the writer thread holds no
 * frame (WAIT_ALL); the failure of a frame handed over earlier, if any. */
enum { WAIT_NONE, WAIT_SLOT, WAIT_ALL };
static vs_status wait_idle(vs_h5_writer *w, int wait, vs_error *err) {
  pthread_mutex_lock(&w->mu);
  /* the thread may sleep with fewer than wake_at frames waiting: wake it
   * before waiting for it */
  if ((wait == WAIT_SLOT && !w->n_free) || (wait == WAIT_ALL && w->q_len))
    pthread_cond_broadcast(&w->cv);
  while ((wait == WAIT_SLOT && !w->n_free) || (wait == WAIT_ALL && w->q_len))
    pthread_cond_wait(&w->cv, &w->mu);
  const int failed = w->failed;
  pthread_mutex_unlock(&w->mu);
  return failed ? report_failure(w, err) : VS_OK;
}

vs_status vs_h5_wait(vs_h5_writer *w, vs_error *err) {
  if (!w) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_wait: no writer");
  return wait_idle(w, WAIT_ALL, err);
}

vs_status vs_h5_record(vs_h5_writer *w, const vs_model *model, const vs_state *state,
                       vs_error *err) {
  if (!w || !model || !state)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_record: missing argument");
  if (model->n_particles != w->n_particles || model->n_constraints != w->n_constraints)
    return vs_error_set(err, VS_ERR_USAGE, w->path, 0, 0,
                        "vs_h5_record: model differs from the one the file was opened for");
  /* A frame is recorded once: after a resume the checkpoint's frame is
   * already in the file, and recording it again would duplicate a row. */
  const int recorded = (state->frame == 0 || state->frame % w->every == 0) &&
                       state->frame > w->last_frame;
  /* a slot is free once the thread has finished an earlier frame (frames
   * in between need not wait for it) */
  vs_status st = wait_idle(w, recorded ? WAIT_SLOT : WAIT_NONE, err);
  if (st != VS_OK || !recorded) return st;

  /* Hand the frame over: its persistent fields, and what vs_observe reads
   * from the solver's scratch (the last step's contacts). */
  pthread_mutex_lock(&w->mu);
  vs_state *slot = w->free_slot[--w->n_free];
  pthread_mutex_unlock(&w->mu);
  if (!w->thread_on) w->model = model; /* the thread reads it */
  vs_state_copy(model, slot, state);
  const double overlap = model->particle_collisions ? vs_contacts_overlap(model, state) : 0.0;
  const int64_t rcontacts = model->n_rigid > 0 ? state->scratch->rigid_contacts : 0;
  w->frames++;
  w->last_frame = state->frame;
  if (w->thread_on || (!w->inline_write && start_thread(w) == 0)) {
    pthread_mutex_lock(&w->mu);
    const int tail = (w->q_head + w->q_len) % H5W_SLOTS;
    w->q[tail].s = slot;
    w->q[tail].overlap = overlap;
    w->q[tail].rcontacts = rcontacts;
    w->q_len++;
    if (w->q_len >= w->wake_at) pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return VS_OK;
  }
  /* a short run of a small state, or no thread to be had: write it here */
  vs_state *old = NULL;
  const int rc = write_frame(w, slot, overlap, rcontacts, &old);
  w->free_slot[w->n_free++] = old;
  if (rc < 0) {
    w->failed = 1;
    w->fail_frame = state->frame;
    return report_failure(w, err);
  }
  return VS_OK;
}

/* The checkpoint's checksum: the writer thread's (it ends with it), or
 * computed here when there was no thread. */
static uint64_t checkpoint_sum(vs_h5_writer *w) {
  stop_writer(w);
  return w->ck_sum_ok ? w->ck_sum : h5c_state_checksum(w->resolved_hash, w->ck, w->ck_rows);
}

static int checkpoint_attrs(vs_h5_writer *w, hid_t g) {
  const vs_state *c = w->ck;
  return h5w_attr_i64(w, g, "frame", c->frame) < 0 || h5w_attr_i64(w, g, "step", c->step) < 0 ||
                 h5w_attr_f64(w, g, "time", c->time) < 0 ||
                 h5w_attr_i64(w, g, "n_alive", c->n_alive) < 0 ||
                 h5w_attr_i64(w, g, "checksum_fnv1a64", (int64_t)checkpoint_sum(w)) < 0
             ? -1
             : 0;
}

/* /checkpoint made early (make_checkpoint_early): the last frame's state
 * over the first one's, the same datasets, then the counters. */
static int write_checkpoint_in_place(vs_h5_writer *w) {
  const vs_state *c = w->ck;
  int rc = 0;
#define CK_OVER(name, type, width, count)                                                      \
  if (rc == 0 && w->ck_ds[CK_##name] >= 0 &&                                                 \
      H5Dwrite(w->ck_ds[CK_##name], CK_MTYPE(c->name), H5S_ALL, H5S_ALL, H5P_DEFAULT, c->name) < 0) \
    rc = h5w_fail(w, "writing /checkpoint/" #name);
  VS_STATE_FIELDS(CK_OVER)
#undef CK_OVER
  for (int i = 0; i < CK_COUNT; i++) h5w_close_id(&w->ck_ds[i]);
  if (rc == 0) rc = checkpoint_attrs(w, w->ck_group);
  h5w_close_id(&w->ck_group);
  return rc;
}

/* /checkpoint: one dataset per non-empty VS_STATE_FIELDS array, [count,
 * width] (or [count] for width 1), plus the counters as attributes.  Replaced whole on
 * every finish, so a resumed file holds only the newest. */
static int write_checkpoint(vs_h5_writer *w) {
  if (w->ck_group >= 0) return write_checkpoint_in_place(w);
  if (H5Lexists(w->file, "checkpoint", H5P_DEFAULT) > 0 &&
      H5Ldelete(w->file, "checkpoint", H5P_DEFAULT) < 0)
    return h5w_fail(w, "replacing /checkpoint");
  hid_t g = h5w_make_group(w, w->file, "checkpoint");
  if (g < 0) return -1;
  const vs_state *c = w->ck;
  int rc = 0;
  /* an empty array is left out (the rigid-body arrays of a scene without
   * rigid bodies, lambda without constraints...): readers take a missing
   * one for [0] or [0, width], and the checksum hashes it as 0 elements
   * either way, so files written with them still resume */
#define CK_WRITE(name, type, width, count)                                                   \
  if (rc == 0 && w->ck_rows[CK_##name] > 0) {                                                \
    hsize_t d[2] = {w->ck_rows[CK_##name], (hsize_t)(width)};                                \
    rc = h5w_make_fixed(w, g, #name, CK_FTYPE(c->name), CK_MTYPE(c->name), (width) > 1 ? 2 : 1, d, \
                    c->name, NULL);                                                          \
  }
  VS_STATE_FIELDS(CK_WRITE)
#undef CK_WRITE
  if (rc == 0) rc = checkpoint_attrs(w, g);
  H5Gclose(g);
  return rc;
}

/* 1 when the file HDF5 has open is the temporary file created (outfile.h). */
int h5w_same_file(vs_h5_writer *w) {
  void *handle = NULL;
  return H5Fget_vfd_handle(w->file, w->fapl, &handle) >= 0 && handle &&
         vs_outfile_same(&w->of, *(int *)handle);
}

vs_status vs_h5_finish(vs_h5_writer *w, const char *status, double wall_seconds, vs_error *err) {
  return vs_h5_finish_xdmf(w, status, wall_seconds, err, NULL, NULL);
}

/* The sidecar is built from the file still open, before it is closed (the
 * same reads as vs_xdmf_write's, without opening and walking it again),
 * and written once the file is published under its name. */
vs_status vs_h5_finish_xdmf(vs_h5_writer *w, const char *status, double wall_seconds,
                            vs_error *err, vs_status *xst, vs_error *xerr) {
  if (xst) *xst = VS_OK;
  if (!w) return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5_finish: no writer");
  char *xmf = NULL, *xtext = NULL;
  char published[PATH_MAX];
  size_t xlen = 0;
  vs_status xs = VS_OK;
  /* every frame handed over is in the buffers (or written); the thread
   * computes the checkpoint's checksum meanwhile (checkpoint_sum joins it) */
  drain_writer(w);
  vs_h5_quiet();
  /* A failed frame write left its frames in the buffers; try once more so
   * that a transient failure still gives a complete file. */
  w->msg[0] = '\0';
  int ok = h5w_flush_all(w) == 0;
  ok = ok && h5w_attr_str(w, w->params, "status", status ? status : "complete") == 0 &&
       h5w_attr_f64(w, w->params, "wall_seconds", wall_seconds) == 0 &&
       h5w_attr_i64(w, w->params, "frames_recorded", w->frames - w->dropped) == 0;
  ok = ok && (!w->has_ck || write_checkpoint(w) == 0);
  stop_writer(w);
  kick_syncer(w); /* the last chunks and the checkpoint, while HDF5 closes */
  close_objects(w);
  if (ok) {
    ssize_t left = H5Fget_obj_count(w->file, H5F_OBJ_ALL);
    if (left != 1) {
      snprintf(w->msg, sizeof w->msg, "internal error: %zd HDF5 objects left open", left - 1);
      ok = 0;
    }
  }
  if (ok && xst) {
    xmf = vs_xdmf_default_path(w->path);
    xs = xmf ? vs_xdmf__text(w->file, w->path, xmf, &xtext, &xlen, xerr)
             : vs_error_set(xerr, VS_ERR_NOMEM, w->path, 0, 0, "out of memory");
  }
  if (ok && H5Fclose(w->file) < 0) {
    h5w_fail(w, "closing the file");
    ok = 0;
  }
  w->file = H5I_INVALID_HID;
  stop_syncer(w);
  if (ok && w->sync_errno) { /* the syncer's fdatasync failed: as the fsync would */
    snprintf(w->msg, sizeof w->msg, "syncing '%s': %s", w->tmp, strerror(w->sync_errno));
    ok = 0;
  }
  /* The sidecar is staged (written to its temporary file, its writing to
   * disk started) before the result file's fsync, and published after the
   * result file: by its own fsync its data is mostly on disk already (on
   * ext4 in this VM that fsync fell from ~0.5 to ~0.3 ms; docs/performance.md,
   * Start-up).  A sidecar that cannot be staged is reported in *xst, the
   * result file published all the same. */
  vs_outfile xo;
  int staged = 0;
  if (ok && xtext) {
    xs = vs_xdmf__stage_text(xmf, xtext, xlen, &xo, xerr);
    staged = xs == VS_OK;
  }
  vs_status rc = VS_OK;
  if (ok) {
    /* sync, then rename into place; without --force the name must still be
     * free (two runs racing to one new name: one wins, the other gets
     * VS_ERR_EXISTS); the temporary file is removed on failure */
    vs_error perr;
    vs_error_clear(&perr);
    /* with a sidecar to publish beside it, one fsync of the directory after
     * both renames makes both names durable */
    if (staged) w->of.published = published;
    rc = vs_outfile_publish(&w->of, &perr);
    if (rc != VS_OK) {
      snprintf(w->msg, sizeof w->msg, "%s", perr.message);
      ok = 0;
    } else {
      vs_h5g__trust(w->path, w->of.dev, w->of.ino); /* the output as given (of.path is released) */
    }
  }
  if (!ok) {
    rc = vs_error_set(err, rc != VS_OK ? rc : VS_ERR_IO, w->path, 0, 0, "%s", w->msg);
    if (staged) vs_outfile_discard(&xo);
    h5w_discard(w);
  } else {
    h5w_close_id(&w->fapl);
    if (staged) {
      char xpub[PATH_MAX];
      xo.published = xpub;
      xs = vs_outfile_publish(&xo, xerr);
      vs_outfile_sync_dir(published, xs == VS_OK ? xpub : NULL);
    }
    if (xst) *xst = xs;
  }
  vs_free(xtext);
  vs_free(xmf);
  h5w_writer_free(w);
  return rc;
}

void vs_h5_abort(vs_h5_writer *w) {
  if (!w) return;
  h5w_discard(w);
  h5w_writer_free(w);
}

const char *vs_h5_temp_path(const vs_h5_writer *w) { return w ? w->tmp : NULL; }

const char *vs_h5_library_version(void) {
  static char text[64];
  if (!text[0]) {
    vs_h5_quiet();
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    snprintf(text, sizeof text, "HDF5 %u.%u.%u", maj, min, rel);
  }
  return text;
}
