/* SPDX-License-Identifier: MIT */
/* h5checkpoint.c: /checkpoint (docs/result-file.md), the state of the last
 * recorded frame that --resume continues from: one dataset per non-empty
 * VS_STATE_FIELDS array and the counters and checksum (h5check.h) as
 * attributes.  Made early by the writer thread and written over in place
 * by vs_h5_finish, or made whole by finish. */
#include "io/write/h5check.h"
#include "io/write/h5write.h"


/* The checkpoint's group and datasets, made by the writer thread right
 * after its first frame (a fixed place in the sequence of HDF5 calls, so
 * the file is the same bytes run to run) and filled with that frame's
 * state: vs_h5_finish then writes the last frame's state over them in
 * place, into file pages already in the page cache, where it created them
 * and wrote 1.7 MB (at 128^2) into fresh pages on the caller's time.  On a
 * failure what was made is closed and finish makes the checkpoint as
 * before (it replaces a /checkpoint that exists), reporting any error. */
void h5w_make_checkpoint_early(vs_h5_writer *w) {
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

/* The checkpoint's checksum: the writer thread's (it ends with it), or
 * computed here when there was no thread. */
static uint64_t checkpoint_sum(vs_h5_writer *w) {
  h5w_stop_writer(w);
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

/* /checkpoint made early (h5w_make_checkpoint_early): the last frame's state
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
int h5w_write_checkpoint(vs_h5_writer *w) {
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

