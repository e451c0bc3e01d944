/* SPDX-License-Identifier: MIT */
/* h5write.h (private): the result-file writer's types, shared by the
 * files of lib/io/write/: h5write.c (open, finish, abort), h5layout.c (the
 * static part of the file), h5thread.c (recording frames: the writer and
 * syncer threads), h5checkpoint.c (/checkpoint), h5objects.c (HDF5
 * objects, series, failures), h5world.c (colliders) and h5resume.c
 * (reading the checkpoint back, reopening).  The layout is in
 * docs/ (result file); the series are the rows of h5series.h. */
#ifndef VSIM_IO_H5WRITE_H
#define VSIM_IO_H5WRITE_H

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/outfile.h"
#include "io/h5series.h"
#include "io/h5util.h"
#include "model/estimate.h"
#include "solve/solve.h"
#include "vsim/h5.h"
#include "vsim/step.h"
#include "vsim/vsim.h"

/* Chunks hold whole frames and about 1 MiB, at most 1024 frames and at most
 * the frames the run records: big enough for gzip and for few B-tree
 * entries, small enough for HDF5's default 1 MiB per-dataset chunk cache,
 * and no padding on short runs. */
#define CHUNK_BYTES ((size_t)1 << 20)
#define CHUNK_ROWS_MAX 1024

/* One H5MD time series: value [F, ...], step [F] int64, time [F] float64. */
typedef struct series {
  hid_t value, step, time; /* H5I_INVALID_HID when the series is not written */
  int shared;              /* step and time are hard links to the first series' (every
                              series is recorded on the same frames): that one writes them */
  hid_t mtype;             /* memory type of buf */
  int rank;                /* of value, axis 0 included (1..3) */
  hsize_t dims[3];         /* value's extent in the file; dims[0] = frames written */
  size_t row_elems;        /* elements per frame */
  size_t esize;            /* bytes per element of buf */
  size_t cap;              /* frames buf holds (the value's chunk rows) */
  size_t used;             /* frames buffered, not yet in the file */
  unsigned char *buf;      /* (cap x row_elems) elements */
  int64_t *steps;          /* (cap) */
  double *times;           /* (cap) */
} series;

/* /checkpoint holds every persistent state array (VS_STATE_FIELDS), so a
 * field added to the state is checkpointed without touching this file. */
#define CK_ENUM(name, type, width, count) CK_##name,
enum { VS_STATE_FIELDS(CK_ENUM) CK_COUNT };
#undef CK_ENUM
#define CK_MTYPE(p) \
  _Generic((p), double *: H5T_NATIVE_DOUBLE, uint8_t *: H5T_NATIVE_UINT8,              \
           int32_t *: H5T_NATIVE_INT32, int64_t *: H5T_NATIVE_INT64)
#define CK_FTYPE(p) \
  _Generic((p), double *: H5T_IEEE_F64LE, uint8_t *: H5T_STD_U8LE,                     \
           int32_t *: H5T_STD_I32LE, int64_t *: H5T_STD_I64LE)

/* state copies of a writer, at most (model/estimate.h: vs_writer_copies) */
#define H5W_SLOTS VS_WRITER_COPIES_MAX
/* a run that will record no more than this (frames x state bytes) writes
 * its frames on the caller's thread: the writer thread's start and its
 * hand-overs would cost more than the writing they overlap (start-up) */
#define H5W_INLINE_BYTES ((size_t)1 << 20)
/* the file size from which the syncer thread runs (h5w_kick_syncer) */
#define H5W_SYNC_FROM ((size_t)4 << 20)

struct vs_h5_writer {
  char *path; /* the output as given */
  char *tmp;  /* the temporary file beside it */
  vs_outfile of;          /* the output's resolved path and the temporary file (outfile.h) */
  char **inputs;          /* the run's inputs, NULL-terminated (vs_h5_run_info): the
                             sidecar never replaces one (outfile.h) */
  uint64_t resolved_hash; /* of /parameters/vsim@resolved: starts the checkpoint's checksum */
  hid_t file, fapl, gcpl, params;
  int compression;
  int64_t every;
  int time_lead;      /* the series whose step and time the others link to, -1 before one */
  size_t rows_hint;   /* frames the run will record (chunks hold no more), 0 = unknown */
  int32_t n_particles;
  int32_t n_constraints;
  int64_t frames;     /* frames recorded (buffered or written), handed over included */
  int64_t dropped;    /* of those, handed over after a failed write: not recorded */
  int64_t last_frame; /* the last recorded frame, -1 before the first */
  int failed;         /* a write failed: the file can no longer be trusted */
  int nomem;          /* what failed was an allocation: VS_ERR_NOMEM, not VS_ERR_IO */
  series s[S_COUNT];
  double *vel;               /* (n_particles x 3) scratch for float32 velocity */
  vs_observe_work ow;        /* the writer thread's for vs_observe_from (n_rigid each) */
  vs_state *ck;              /* copy of the state at the last recorded frame (no scratch) */
  int has_ck;                /* ck holds a recorded frame not yet checkpointed */
  int inline_write;          /* no writer thread: frames are written by vs_h5_record */
  /* The writer thread (h5thread.c): vs_h5_record copies the frame into a
   * free slot and queues it; the thread measures it, fills the series rows,
   * calls HDF5 when a chunk is full, then makes it the checkpoint and frees
   * the old one.  Slots (vs_writer_copies): three copies of the persistent
   * state while they fit in 16 MiB, else 2: the third gives a frame of
   * slack, so that a slow frame on the thread (a chunk written, the thread
   * waiting for a core) does not stop the stepping; more would cost more
   * fresh pages to touch (3-4 ms a MB on a VM) than they save, except for
   * a small state, which gets up to 2 MiB more: the caller then wakes the
   * thread only once wake_at frames wait (half the slots), since waking a
   * sleeping thread costs the caller ~32 us on a VM, a small cloth's step.  Only that thread calls HDF5 while it runs; vs_h5_finish and
   * vs_h5_abort join it first.  mu guards the queue, the free slots, quit
   * and the failure fields below. */
  const vs_model *model;     /* of the recorded frames (alive until finish) */
  vs_state *pool[H5W_SLOTS]; /* every state copy (ck, free or queued) */
  int n_pool;
  vs_state *free_slot[H5W_SLOTS]; /* touched and free: the caller fills them */
  int n_free;
  struct {
    vs_state *s;             /* the frame handed over (no scratch) */
    double overlap;          /* what vs_observe reads from the scratch */
    int64_t rcontacts;
  } q[H5W_SLOTS];            /* frames handed over, oldest at q_head */
  int q_head, q_len;         /* q_len counts the one being written */
  int wake_at;               /* the caller wakes the thread once q_len reaches it */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int thread_on;             /* thread is running (joined by h5w_stop_thread) */
  int touch;                 /* set before the thread starts: it touches the slots' pages */
  int quit;                  /* no more frames: the thread ends when the queue is empty */
  uint64_t ck_sum;           /* the checkpoint's checksum, from the thread as it ends */
  int ck_sum_ok;             /* ck_sum is that of ck */
  /* The syncer thread: fdatasync of the temporary file while the run goes
   * on, each time the writer thread has appended chunks since the last one,
   * so that the fsync of vs_h5_finish finds little left to write (on a VM
   * the host's flush is proportional to what is dirty).  Its first failure
   * is kept in sync_errno: the file's error is reported once per open file,
   * so the final fsync would not see it again.  Guarded by mu. */
  pthread_t syncer;
  pthread_cond_t sync_cv;
  int sync_on;               /* syncer is running */
  int sync_tried;            /* it was started (or could not be): not again */
  int sync_dirty;            /* chunks appended since the syncer's last fdatasync */
  int sync_quit;             /* the syncer ends */
  int sync_errno;            /* its first failure, 0 when none */
  int64_t fail_frame;        /* the frame whose write failed (w->failed) */
  int fail_told;             /* vs_h5_record reported it ("frame N: ...") */
  unsigned long chunks_written; /* full or final buffers appended (h5w_flush_series) */
  hsize_t ck_rows[CK_COUNT]; /* rows of each checkpoint array (the count column of the table) */
  /* /checkpoint made early (vs_h5_open's runs with a writer thread): the
   * thread creates the group and its datasets right after the first frame,
   * filled with that frame's state, and keeps them open; vs_h5_finish
   * writes the last frame's state over them in place (h5checkpoint.c) */
  int ck_early;              /* 1: the thread makes them after its first frame */
  hid_t ck_group;            /* the group, or H5I_INVALID_HID */
  hid_t ck_ds[CK_COUNT];     /* its datasets (H5I_INVALID_HID: an empty array) */
  char msg[1536];            /* what failed, for the caller's vs_error */
};

#define H5W_FN __attribute__((visibility("hidden")))

H5W_FN int h5w_fail(vs_h5_writer *w, const char *what);
/* /world/colliders/<i>/ for every collider (h5world.c). */
H5W_FN int h5w_write_colliders(vs_h5_writer *w, const vs_model *m);
H5W_FN void h5w_close_id(hid_t *id);
H5W_FN hid_t h5w_make_group(vs_h5_writer *w, hid_t loc, const char *name);
H5W_FN int h5w_set_attr(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                        hid_t space, const void *data);
H5W_FN int h5w_attr_i32(vs_h5_writer *w, hid_t loc, const char *name, int32_t v);
H5W_FN int h5w_attr_i64(vs_h5_writer *w, hid_t loc, const char *name, int64_t v);
H5W_FN int h5w_attr_f64(vs_h5_writer *w, hid_t loc, const char *name, double v);
H5W_FN int h5w_attr_str(vs_h5_writer *w, hid_t loc, const char *name, const char *value);
H5W_FN int h5w_attr_boundary(vs_h5_writer *w, hid_t loc);
H5W_FN int h5w_attr_fixstr(vs_h5_writer *w, hid_t loc, const char *name, const char *value);
H5W_FN int h5w_attr_particles_group(vs_h5_writer *w, hid_t loc, const char *group);
H5W_FN int h5w_make_index(vs_h5_writer *w, hid_t loc, const char *name, hsize_t rows, hsize_t cols,
                          const int32_t *data, const char *particles_group, hid_t *keep);
H5W_FN int h5w_make_fixed(vs_h5_writer *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                          int rank, const hsize_t *dims, const void *data, hid_t *keep);
/* rows: frames per buffer (the chunk rows of value); 0 = chunk_rows() */
H5W_FN int h5w_series_alloc(vs_h5_writer *w, series *s, const char *name, int rank,
                            const hsize_t *inner, hid_t ftype, hid_t mtype, size_t rows);
H5W_FN int h5w_make_series(vs_h5_writer *w, series *s, const series *lead, hid_t loc,
                           const char *name, int rank, const hsize_t *inner, hid_t ftype,
                           hid_t mtype, const char *unit);
H5W_FN int h5w_create_series(vs_h5_writer *w, const vs_model *m, const char *under);
H5W_FN int h5w_flush_series(vs_h5_writer *w, int index);
H5W_FN int h5w_flush_all(vs_h5_writer *w);
H5W_FN void h5w_writer_free(vs_h5_writer *w);
/* End the writer thread after the frame it holds, and the syncer
 * (h5thread.c); no-op when none runs. */
H5W_FN void h5w_stop_thread(vs_h5_writer *w);
H5W_FN void h5w_discard(vs_h5_writer *w);
H5W_FN vs_status h5w_create_failure(int e);
/* inputs: info->inputs of vs_h5_open / vs_h5_reopen (may be NULL), copied */
H5W_FN vs_status h5w_writer_new(const char *path, vs_outfile *of, const vs_model *model,
                                const char *const *inputs, vs_h5_writer **out, vs_error *err);
H5W_FN int h5w_make_plists(vs_h5_writer *w);
H5W_FN int h5w_same_file(vs_h5_writer *w);
/* Map the pages of p[0 .. n) now, contents unchanged (h5write.c). */
H5W_FN void h5w_populate(void *p, size_t n);

/* The static part of a new file (h5layout.c); -1 with w->msg on failure. */
H5W_FN int h5w_write_layout(vs_h5_writer *w, const vs_scene *scene, const vs_model *m,
                            const vs_h5_run_info *info);

/* The threads (h5thread.c).  start: the writer thread, 0 when it runs.
 * drain: no more frames; returns once the thread has written every frame
 * handed over (it then computes the checkpoint's checksum and ends).
 * stop: drain and join it.  kick: an fdatasync now by the syncer thread
 * (started here once the file holds H5W_SYNC_FROM bytes).  stop_syncer:
 * end and join the syncer.  Each is a no-op when its thread does not run. */
H5W_FN int h5w_start_thread(vs_h5_writer *w);
H5W_FN void h5w_drain_writer(vs_h5_writer *w);
H5W_FN void h5w_stop_writer(vs_h5_writer *w);
H5W_FN void h5w_kick_syncer(vs_h5_writer *w);
H5W_FN void h5w_stop_syncer(vs_h5_writer *w);

/* /checkpoint (h5checkpoint.c): made by the writer thread after its first
 * frame, filled with it (on failure nothing is left made and finish makes
 * it whole); written by vs_h5_finish with the last frame's state, in place
 * when made early.  -1 with w->msg on failure. */
H5W_FN void h5w_make_checkpoint_early(vs_h5_writer *w);
H5W_FN int h5w_write_checkpoint(vs_h5_writer *w);

#endif
