/* SPDX-License-Identifier: MIT */
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
 * file name), so identical runs give identical datasets.
 *
 * This file holds the writer's life: open, finish, abort.  The rest, by job:
 * the static part of the file (h5layout.c), the writer and syncer threads
 * and recording a frame (h5thread.c), /checkpoint (h5checkpoint.c), HDF5
 * objects and series (h5objects.c), /world/colliders (h5world.c), --resume
 * (h5resume.c, h5check.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/write/h5check.h"
#include "io/guard/h5guard.h"
#include "io/write/h5write.h"
#include "io/read/xdmf.h"

/* Map the pages of p[0 .. n) (the kernel maps them on first touch, which
 * costs 10-40 us a page on a VM): one madvise for the whole pages where
 * the kernel has MADV_POPULATE_WRITE (Linux 5.14; about a third of the
 * faults' time here), then a write to every page. */
void h5w_populate(void *p, size_t n) {
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
  vs_free(w->ow.pose);
  for (size_t i = 0; w->inputs && w->inputs[i]; i++) vs_free(w->inputs[i]);
  vs_free(w->inputs);
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
                         const char *const *inputs, vs_h5_writer **out, vs_error *err) {
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
  /* the inputs, and the result file itself: the sidecar replaces none */
  size_t n_in = 0;
  while (inputs && inputs[n_in]) n_in++;
  w->inputs = ok ? vs_calloc(n_in + 2, sizeof *w->inputs) : NULL;
  ok = w->inputs != NULL;
  for (size_t i = 0; ok && i < n_in; i++) ok = (w->inputs[i] = vs_strdup(inputs[i])) != NULL;
  if (ok) ok = (w->inputs[n_in] = vs_strdup(path)) != NULL;
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
    w->ow.pose = vs_malloc(7 * nr * sizeof *w->ow.pose);
    ok = w->ow.order && w->ow.tmp && w->ow.key && w->ow.pose;
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

vs_status vs_h5_open(const char *path, const vs_scene *scene, const vs_model *model,
                     const vs_h5_run_info *info, vs_h5_writer **out, vs_error *err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !model || !out)
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "vs_h5_open: missing argument");
  vs_h5_quiet();

  /* outfile.h: a new name or a regular file (with --force), never a device,
   * FIFO or dangling link; the temporary file is created exclusively. */
  vs_outfile of;
  const char *const *inputs = info ? info->inputs : NULL;
  vs_status rc = vs_outfile_create(
      path, info && info->force ? VS_OUTFILE_FORCE | VS_OUTFILE_FOLLOW : 0, inputs, &of, err);
  if (rc != VS_OK) return rc;
  vs_h5_writer *w;
  rc = h5w_writer_new(path, &of, model, inputs, &w, err);
  if (rc != VS_OK) return rc;
  w->resolved_hash = h5c_hash_text(info ? info->resolved_yaml : NULL);
  /* the thread touches the state copies while this one creates the file
   * (the first vs_h5_record waits for a slot); without a thread, the first
   * frame starts one or is written here */
  w->model = model;
  const int n_free = w->n_free;
  w->touch = 1;
  w->n_free = 0; /* the thread frees each slot once touched */
  if (w->inline_write || h5w_start_thread(w) != 0) {
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
    } else if (h5w_write_layout(w, scene, model, info) == 0) {
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
  h5w_drain_writer(w);
  vs_h5_quiet();
  /* A failed frame write left its frames in the buffers; try once more so
   * that a transient failure still gives a complete file. */
  w->msg[0] = '\0';
  int ok = h5w_flush_all(w) == 0;
  ok = ok && h5w_attr_str(w, w->params, "status", status ? status : "complete") == 0 &&
       h5w_attr_f64(w, w->params, "wall_seconds", wall_seconds) == 0 &&
       h5w_attr_i64(w, w->params, "frames_recorded", w->frames - w->dropped) == 0;
  ok = ok && (!w->has_ck || h5w_write_checkpoint(w) == 0);
  h5w_stop_writer(w);
  h5w_kick_syncer(w); /* the last chunks and the checkpoint, while HDF5 closes */
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
  h5w_stop_syncer(w);
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
    xs = vs_xdmf__stage_text(xmf, xtext, xlen, (const char *const *)w->inputs, &xo, xerr);
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
