/* SPDX-License-Identifier: MIT */
/* xdmf.h (private): the XDMF sidecar's two halves, for the writer
 * (h5write.c), which builds the text from the file it still has open
 * (no second open, no validating walk of a file it wrote itself), stages
 * it before the result file is synced and publishes it after.  vs_xdmf_write (vsim/h5.h)
 * is the same two halves on a file opened by the validating reader. */
#ifndef VSIM_IO_XDMF_H
#define VSIM_IO_XDMF_H

#include <hdf5.h>
#include <stddef.h>

#include "util/outfile.h"
#include "vsim/error.h"

/* The sidecar of the result file open as f, which the .xmf at xmf_path
 * names by h5_path made relative to it: *text (vs_free) of *len bytes.
 * Errors as vs_xdmf_write's for the same file. */
__attribute__((visibility("hidden"))) vs_status vs_xdmf__text(hid_t f, const char *h5_path,
                                                              const char *xmf_path, char **text,
                                                              size_t *len, vs_error *err);

/* Write text to a temporary file beside xmf_path (outfile.h: an existing
 * regular .xmf is replaced, a link or one of inputs, NULL-terminated, is
 * refused) and start writing it to disk, into *o; the caller
 * publishes it (vs_outfile_publish) or discards it.  The writer stages the
 * sidecar before it syncs the result file, so that the sidecar's own sync,
 * after, finds its data already on disk. */
__attribute__((visibility("hidden"))) vs_status vs_xdmf__stage_text(
    const char *xmf_path, const char *text, size_t len, const char *const *inputs, vs_outfile *o,
    vs_error *err);

#endif
