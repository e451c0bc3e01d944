/* SPDX-License-Identifier: MIT */
/* file.h (private): reading a whole input file (a scene, a sweep file) into
 * memory under a size limit, with the messages the user sees; the words
 * for a kind of file and the directory part of a path, which the input and
 * output checks share. */
#ifndef VSIM_PRIVATE_FILE_H
#define VSIM_PRIVATE_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "vsim/error.h"

/* Read all of `path` into *text (NUL-terminated, freed with vs_free; *len
 * bytes before the NUL).  `what` names the file in messages ("scene file").
 * A directory, an unreadable file and a file over `limit` bytes are errors
 * (VS_ERR_IO, VS_ERR_LIMIT) naming `path`; a pipe or a file that grows while
 * it is read is still caught, as at most limit + 1 bytes are read. */
__attribute__((visibility("hidden"))) vs_status vs_read_file(const char *path, const char *what,
                                                             size_t limit, char **text,
                                                             size_t *len, vs_error *err);

/* What a file of mode m is, for "is X, not a regular file" messages: "a
 * directory", "a FIFO (named pipe)", "a character device", "a block device",
 * "a socket", "a symbolic link" (a mode from lstat: the output checks use
 * it, so a link planted at an output's name is named as one when it is
 * refused), else "not a regular file". */
__attribute__((visibility("hidden"))) const char *vs_file_kind(mode_t m);

/* The length of path's directory part: 0 when it has none ("."), 1 for
 * "/x"; no allocation (outfile.c syncs a directory after publishing, when
 * nothing may fail). */
__attribute__((visibility("hidden"))) size_t vs_dir_len(const char *path);

/* The directory part of path (".", "/" or up to its last slash), from
 * vs_malloc; NULL when out of memory. */
__attribute__((visibility("hidden"))) char *vs_dir_part(const char *path);

#endif
