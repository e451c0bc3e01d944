/* SPDX-License-Identifier: MIT */
/* h5thread.c: recording frames (vs_h5_record, vs_h5_wait): the frame's
 * rows filled from the state (the `from` column of H5W_SERIES), the writer
 * thread that fills them and calls HDF5 while the caller steps, and the
 * syncer thread that fdatasyncs the temporary file meanwhile (h5write.c
 * says how they share the work; struct vs_h5_writer in h5write.h holds
 * their state). */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "io/h5surface.h"
#include "io/write/h5check.h"
#include "io/write/h5write.h"

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

/* /connectivity/alive: 1 for every constraint in build order but a torn
 * link.  Every kind is listed: a new row of VS_KINDS says here whether its
 * constraints can tear. */
static void from_alive(const vs_model *m, const vs_state *state, series *s) {
  uint8_t *r = row_of(s);
  for (int32_t c = 0; c < m->n_constraints; c++) {
    r[c] = 1;
    switch ((vs_kind)m->con_kind[c]) {
    case VS_KIND_DISTANCE: r[c] = state->alive[m->con_index[c]] != 0; break;
    case VS_KIND_PIN:
    case VS_KIND_ANGLE: break; /* never torn */
    }
  }
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
    h5w_kick_syncer(w);
  }
  /* the checkpoint is the state of the last recorded frame, whatever
   * happens to the state afterwards (a failing step, an interrupt) */
  *old = w->ck;
  w->ck = slot;
  w->has_ck = 1;
  return rc;
}

static void touch_pages(void *p, size_t n) {
  h5w_populate(p, n);
  memset(p, 0, n);
}

/* Touch every page of a bare state: on this thread, not in the caller's
 * copy. */
static void touch_state(const vs_model *m, vs_state *c) {
#define TOUCH(name, type, width, count) touch_pages(c->name, (width) * (count) * sizeof(type));
  VS_STATE_FIELDS(TOUCH)
#undef TOUCH
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
        if (w->s[i].buf) h5w_populate(w->s[i].buf, w->s[i].cap * w->s[i].row_elems * w->s[i].esize);
    }
    quiet = 1;
    /* After a failed write (its frame stays buffered, the buffer full) the
     * frames handed over before the caller heard of it are not recorded, as
     * they would not have been handed over with one slot. */
    const int rc = failed ? (old = slot, 0) : write_frame(w, slot, overlap, rcontacts, &old);
    if (rc == 0 && !failed && w->ck_early) h5w_make_checkpoint_early(w);
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
int h5w_start_thread(vs_h5_writer *w) {
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
void h5w_drain_writer(vs_h5_writer *w) {
  if (!w->thread_on) return;
  pthread_mutex_lock(&w->mu);
  w->quit = 1;
  pthread_cond_broadcast(&w->cv);
  while (w->q_len) pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
}

void h5w_stop_writer(vs_h5_writer *w) {
  if (!w->thread_on) return;
  h5w_drain_writer(w);
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
void h5w_kick_syncer(vs_h5_writer *w) {
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

void h5w_stop_syncer(vs_h5_writer *w) {
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
  h5w_stop_writer(w);
  h5w_stop_syncer(w);
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
  if (w->thread_on || (!w->inline_write && h5w_start_thread(w) == 0)) {
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

