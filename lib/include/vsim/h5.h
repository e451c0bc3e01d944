/* SPDX-License-Identifier: MIT */
/* vsim/h5.h: the result file writer (H5MD 1.1 layout, docs/result-file.md).
 *
 * Stage 4: the writer's only inputs are the model and the state (plus the
 * scene text for /parameters).  It writes to a temporary file beside the
 * output, appends one recorded frame at a time into chunked, extendible
 * datasets, and on finish writes the status, closes and renames into place.
 * Object time-stamps are off, so identical runs give identical datasets. */
#ifndef VSIM_H5_H
#define VSIM_H5_H

#include "vsim/error.h"
#include "vsim/model.h"
#include "vsim/scene.h"
#include "vsim/state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vs_h5_writer vs_h5_writer;

typedef struct vs_h5_run_info {
  const char *command;       /* the command line, for /parameters/vsim@command */
  const char *resolved_yaml; /* vs_scene_to_yaml() output */
  int force;                 /* overwrite an existing output (a symbolic link to a
                                regular file: its target) */
  const char *const *inputs; /* NULL or NULL-terminated: the files the run read (the
                                scene, its meshes); neither the output nor its
                                sidecar may replace one, even with force */
} vs_h5_run_info;

/* Check the output path, create the temporary file beside it and write
 * everything that does not change with time (the rules of every output:
 * docs/cli.md, Output files).  Errors: the output exists
 * without force -> VS_ERR_EXISTS; a path that cannot be used (a directory,
 * a device or FIFO, a dangling link, one of info->inputs, a missing or
 * unwritable directory, no permission) -> VS_ERR_USAGE, which
 * is the caller's to fix (exit 2); writing failed once the file exists (a
 * full disk, a file-size limit) -> VS_ERR_IO, a failed run (exit 1); an
 * allocation failed -> VS_ERR_NOMEM.  Nothing is left behind on error. */
vs_status vs_h5_open(const char *path, const vs_scene *scene, const vs_model *model,
                     const vs_h5_run_info *info, vs_h5_writer **out, vs_error *err);

/* Record the state if state->frame is a recorded frame (frame 0, and every
 * output.every-th frame); otherwise do nothing.  The frame is copied and
 * handed to the writer's own thread (started by vs_h5_open), which
 * measures it (vs_observe) and calls HDF5 while the caller steps on: the
 * call waits only when that thread still holds every free copy (two
 * frames handed over before; one for states over ~5 MB).  A run that will
 * record at most 1 MiB (frames x state) has no such thread: the frame is
 * written in this call.  A write that
 * failed is reported by a later call (or vs_h5_wait) as "frame N: ..." for
 * the frame that failed, then as "an earlier write failed: ..."; frames
 * handed over after it are not recorded.  model must stay alive until
 * vs_h5_finish or vs_h5_abort; no other HDF5 call may run meanwhile (HDF5
 * is not thread-safe). */
vs_status vs_h5_record(vs_h5_writer *w, const vs_model *model, const vs_state *state,
                       vs_error *err);

/* Wait until every frame handed over is written (or buffered) and report a
 * write failure not yet reported, as vs_h5_record would. */
vs_status vs_h5_wait(vs_h5_writer *w, vs_error *err);

/* Write status ("complete", "interrupted", "failed") and wall_seconds, close,
 * and rename into place.  Frees w, also on failure (then the temporary file
 * is removed and nothing replaces the output). */
vs_status vs_h5_finish(vs_h5_writer *w, const char *status, double wall_seconds,
                       vs_error *err);

/* vs_h5_finish, and when it succeeds, the XDMF sidecar beside the output
 * (vs_xdmf_default_path, as vs_xdmf_write(path, NULL) would write it, byte
 * for byte) read from the file before it is closed rather than reopened.
 * *xst: the sidecar's outcome (VS_OK when the file failed: no sidecar is
 * written then), its error in xerr; the return value and err are
 * vs_h5_finish's.  xst NULL: no sidecar. */
vs_status vs_h5_finish_xdmf(vs_h5_writer *w, const char *status, double wall_seconds,
                            vs_error *err, vs_status *xst, vs_error *xerr);

/* Close and delete the temporary file; nothing is renamed.  Frees w. */
void vs_h5_abort(vs_h5_writer *w);

/* Path of the temporary file (for messages and signal handlers). */
const char *vs_h5_temp_path(const vs_h5_writer *w);

/* "HDF5 1.10.8" etc. */
const char *vs_h5_library_version(void);

/* ---- resuming (vsim run --resume, docs/result-file.md, /checkpoint) ----
 * Every finished file holds /checkpoint: the state (every VS_STATE_FIELDS
 * array that is not empty, and the counters) after the last recorded frame.  To resume: build
 * the model from the file's scene (vs_h5_resume_scene), create
 * a state, vs_h5_read_checkpoint into it, vs_h5_reopen the file, then step
 * and record as usual.  The datasets end up bitwise identical to those of
 * one uninterrupted run. */

/* A string attribute of /parameters/vsim ("scene", "resolved", "status",
 * "command", ...) into *out, freed with vs_free_buffer().  VS_ERR_FORMAT
 * when absent. */
vs_status vs_h5_read_parameter(const char *path, const char *name, char **out, vs_error *err);

/* The scene the run of the file at path was built from, for resuming it:
 * /parameters/vsim@resolved loaded as vs_scene_load_string would (name for
 * messages, sets applied), with every OBJ file named as the first run read
 * it (/parameters/vsim@mesh_files: an absolute path), so that a run resumed
 * from another directory reads the same files; vs_h5_read_checkpoint then
 * refuses OBJ files whose contents changed.  VS_ERR_FORMAT when the file
 * has no resolved scene or its record names meshes the scene lacks. */
vs_status vs_h5_resume_scene(const char *path, const char *name, const vs_override *sets,
                             size_t n_sets, vs_scene **out, vs_error *err);

/* Before resuming from path: it must be a regular file (or a symbolic link
 * to one; special files and dangling links are VS_ERR_USAGE), its
 * /checkpoint must match its checksum and hold sane values (else
 * VS_ERR_FORMAT: "checkpoint does not match its checksum", ...).  *real
 * (vs_free_buffer) is the resolved path: read and resume that one, so the
 * path is resolved once.  Allocates nothing sized by the file. */
vs_status vs_h5_check_resume(const char *path, char **real, vs_error *err);

/* Restore the state from the file's /checkpoint.  The state must have been
 * created for a model of the same shape (particles, constraints, links);
 * a mismatch is VS_ERR_FORMAT naming the array.  So is a checkpoint whose
 * fields disagree with each other, the model or the recorded frames, and a
 * model whose OBJ files are not those the run read (their length and
 * FNV-1a 64, /parameters/vsim@mesh_files). */
vs_status vs_h5_read_checkpoint(const char *path, const vs_model *model, vs_state *state,
                                vs_error *err);

/* Reopen an existing result file for appending: works on a temporary copy
 * beside it, which vs_h5_finish renames over it (vs_h5_abort leaves the
 * original untouched).  Error codes as for vs_h5_open, plus VS_ERR_FORMAT
 * when the file does not hold what the model writes.  The model must write the same datasets (output
 * fields, precision, counts) as the file holds.  Frames at or before the
 * last recorded one are ignored by vs_h5_record. */
vs_status vs_h5_reopen(const char *path, const vs_model *model, const vs_h5_run_info *info,
                       vs_h5_writer **out, vs_error *err);

/* ---- the XDMF 2 sidecar (ParaView's XDMF reader; docs/result-file.md) ----
 * Write xmf_path (NULL: h5_path with .h5 replaced by .xmf, or .xmf added)
 * describing every recorded frame of the result file h5_path, which it
 * names by a path relative to the .xmf.  Written to a temporary name and
 * renamed into place.  VS_ERR_IO / VS_ERR_FORMAT as vs_compare_files for
 * h5_path (VS_ERR_FORMAT also when no positions were recorded);
 * VS_ERR_USAGE when xmf_path cannot be used (checked before h5_path is
 * read): its directory is missing, or it is a symbolic link, a special file
 * or h5_path itself (an existing regular .xmf is replaced). */
vs_status vs_xdmf_write(const char *h5_path, const char *xmf_path, vs_error *err);

/* The default sidecar path of h5_path, freed with vs_free_buffer(); NULL when
 * out of memory. */
char *vs_xdmf_default_path(const char *h5_path);

#ifdef __cplusplus
}
#endif
#endif
