/* SPDX-License-Identifier: MIT */
/* h5check.h (private): what --resume checks before it trusts a result file
 * (docs/cli.md, --resume).  Everything here reads through h5guard.
 *
 * The checkpoint's checksum: /checkpoint@checksum_fnv1a64 (int64, the bits
 * of a uint64) is FNV-1a 64 over, in this order,
 *   - the bytes of /parameters/vsim@resolved (the scene the run was built
 *     from; without its terminating NUL),
 *   - for every VS_STATE_FIELDS array, its element count (uint64) and its
 *     elements as the machine holds them (little-endian IEEE doubles, bytes,
 *     int32, int64); an array left out of the file (empty ones are) counts
 *     as 0 elements,
 *   - frame, step (int64), time (double), n_alive (int64).
 * It is written with every checkpoint.  A file whose checkpoint has no
 * checksum (written by an older vsim) is refused: it cannot be verified. */
#ifndef VSIM_IO_H5CHECK_H
#define VSIM_IO_H5CHECK_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "vsim/model.h"
#include "vsim/state.h"
#include "vsim/error.h"

#define H5C_FN __attribute__((visibility("hidden")))
#define H5C_HASH_INIT 1469598103934665603ull
/* the longest resolved scene read back (bytes) */
#define H5C_RESOLVED_MAX ((size_t)16 << 20)

H5C_FN uint64_t h5c_hash(uint64_t h, const void *p, size_t n);
/* FNV-1a of a string's bytes, from H5C_HASH_INIT. */
H5C_FN uint64_t h5c_hash_text(const char *text);
/* Continue h over the state's checkpointed arrays (rows[k] rows of field k,
 * the writer's ck_rows) and counters. */
H5C_FN uint64_t h5c_state_checksum(uint64_t h, const vs_state *s, const hsize_t *rows);

/* Open path through h5guard and verify /checkpoint against its checksum,
 * streaming (1 MiB at a time: nothing sized by the file is allocated), and
 * its values (finite, inverse masses >= 0, alive 0 or 1, counters in
 * range, n_alive the links alive) against the file: the checkpoint is of
 * the last recorded frame (its frame and time are the last step and time
 * of the recorded series, whose frames increase).  The checksum is plain
 * FNV-1a, which anyone can recompute: it finds corruption, the structure
 * finds the rest.  With the model m (NULL: not known yet), also step =
 * frame x substeps, time = frame x dt and every recorded frame a multiple
 * of output.every.  *resolved_hash (when given) is the hash of the
 * resolved scene. */
H5C_FN vs_status h5c_verify_checkpoint(const char *path, const vs_model *m,
                                       uint64_t *resolved_hash, vs_error *err);

/* The checkpoint read into s (vs_h5_read_checkpoint: every array of the
 * model's shape) against the model: its counters (as
 * h5c_verify_checkpoint's with a model), the inverse masses are the scene's,
 * only links that can tear are torn, the world's rigid slot at rest, every
 * orientation a unit quaternion (within 1e-6), the contact cache's count
 * within its arrays and each of its contacts between a body and a later
 * body or a collider of the model (a mesh collider's triangle or vertex
 * among its own), in the order the solver keeps (warm starting merges it with the
 * step's contacts), normal impulses >= 0.  VS_ERR_FORMAT naming path and
 * the first field found wrong. */
H5C_FN vs_status h5c_check_state(const char *path, const vs_model *m, const vs_state *s,
                                 vs_error *err);

/* Before --resume opens the copy `tmp` for writing: every object it will
 * open or write (the model's series, /parameters/vsim) is reached through
 * hard links only and is a plain dataset of this file (no external
 * storage, no virtual layout, the type and shape the model writes);
 * `name` is the file's name for messages. */
H5C_FN vs_status h5c_check_writable(const char *tmp, const char *name, const vs_model *m,
                                    vs_error *err);

/* One line of a record of OBJ files (model_private.h, mesh_files) from *p,
 * which moves past it: 1 with key (the scene's "bodies.0", ...), bytes,
 * hash and the path decoded into path (path_size bytes); 0 at the end; -1
 * when the line is not one. */
H5C_FN int h5c_mesh_line(const char **p, char *key, size_t key_size, long long *bytes,
                         unsigned long long *hash, char *path, size_t path_size);

/* /parameters/vsim@mesh_files of the open file f (named path) against the
 * OBJ files the model m was built from: the same files, each of the same
 * length and FNV-1a 64.  A scene with OBJ files in a file that does not
 * record them (an older vsim) is refused too: they cannot be checked. */
H5C_FN vs_status h5c_check_meshes(const void *f, const char *path, const vs_model *m,
                                  vs_error *err);

#endif
