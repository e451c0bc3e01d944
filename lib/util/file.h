/* file.h (private): reading a whole input file (a scene, a sweep file) into
 * memory under a size limit, with the messages the user sees. */
#ifndef VSIM_PRIVATE_FILE_H
#define VSIM_PRIVATE_FILE_H

#include <stddef.h>

#include "vsim/error.h"

/* Read all of `path` into *text (NUL-terminated, freed with vs_free; *len
 * bytes before the NUL).  `what` names the file in messages ("scene file").
 * A directory, an unreadable file and a file over `limit` bytes are errors
 * (VS_ERR_IO, VS_ERR_LIMIT) naming `path`; a pipe or a file that grows while
 * it is read is still caught, as at most limit + 1 bytes are read. */
__attribute__((visibility("hidden"))) vs_status vs_read_file(const char *path, const char *what,
                                                             size_t limit, char **text,
                                                             size_t *len, vs_error *err);

#endif
