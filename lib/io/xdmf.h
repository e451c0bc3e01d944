/* xdmf.h (private): the XDMF sidecar's two halves, for the writer
 * (h5write.c), which builds the text from the file it still has open
 * (no second open, no validating walk of a file it wrote itself) and
 * writes it once the result file is published.  vs_xdmf_write (vsim/h5.h)
 * is the same two halves on a file opened by the validating reader. */
#ifndef VSIM_IO_XDMF_H
#define VSIM_IO_XDMF_H

#include <hdf5.h>
#include <stddef.h>

#include "vsim/error.h"

/* The sidecar of the result file open as f, which the .xmf at xmf_path
 * names by h5_path made relative to it: *text (vs_free) of *len bytes.
 * Errors as vs_xdmf_write's for the same file. */
__attribute__((visibility("hidden"))) vs_status vs_xdmf__text(hid_t f, const char *h5_path,
                                                              const char *xmf_path, char **text,
                                                              size_t *len, vs_error *err);

/* Write text to xmf_path through a temporary file renamed into place.
 * also_sync: a file published just before whose directory was left
 * unsynced (outfile.h): on success the one fsync of a directory they share
 * covers both names (else each directory is synced); NULL: none. */
__attribute__((visibility("hidden"))) vs_status vs_xdmf__write_text(const char *xmf_path,
                                                                    const char *text, size_t len,
                                                                    const char *also_sync,
                                                                    vs_error *err);

#endif
