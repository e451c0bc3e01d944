/* SPDX-License-Identifier: MIT */
/* outfile.h (private): creating output files safely (docs/cli.md, Output
 * files; docs/result-file.md).  Every file vsim writes goes through it: the
 * result file and its .xmf sidecar (run, resume, xdmf, sweep points), the
 * pictures and movies of render and plot, and a sweep's summary.csv and
 * point-NNNN.csv.
 *
 * An output is written to a temporary file beside it and published under
 * its name when complete.  The rules:
 *  - the output path must be a new name or a regular file; a directory,
 *    device, FIFO or socket is refused even with force (VS_ERR_USAGE), so
 *    `-o /dev/null --force` never replaces /dev/null;
 *  - an input of the command (inputs: the scene, the result file drawn, the
 *    file a sidecar describes) is never replaced, even with force: the same
 *    device and inode, whatever the name (a hard link, a symbolic link);
 *  - a symbolic link is followed only when it points to a regular file and
 *    the caller says so: FORCE|FOLLOW (`run --force` naming a link: the
 *    output replaces the target, the link stays a link) or REPLACE (resume);
 *    with FORCE alone (the outputs replaced without being asked: a sidecar,
 *    a picture, a summary) a link is refused, so that a link planted at
 *    such a name (out.xmf -> ~/.ssh/authorized_keys) is never written
 *    through; without FORCE a link to a regular file exists (VS_ERR_EXISTS);
 *    a link to anything else is refused like that thing, and a dangling
 *    link is refused in every case (following it would create a file
 *    wherever the link points; replacing it would lose the link);
 *  - the temporary file is created with O_CREAT|O_EXCL|O_NOFOLLOW (a
 *    planted symlink or file is never followed or reused), mode 0666 less
 *    the umask, named ".<base>.tmp-<pid>-<16 random hex digits>" beside
 *    the output (unpredictable), the base shortened and hashed when the
 *    name would exceed NAME_MAX;
 *  - REPLACE (resume) gives the temporary file the old file's permission
 *    bits, and its owner and group where this process may (root; a group
 *    it is in); the old file's other hard links keep the old contents;
 *  - publishing without force makes the name appear without replacing
 *    anything (renameat2(RENAME_NOREPLACE), else link()+unlink()): of two
 *    runs racing to the same new name exactly one succeeds, the other gets
 *    VS_ERR_EXISTS and its temporary file is removed; with force, rename();
 *  - just before publishing, the output path is checked again (still
 *    absent or a regular file) and the temporary path is checked to still
 *    be the file created (same device and inode).
 * Everything returns vs_status and fills vs_error; nothing prints. */
#ifndef VSIM_OUTFILE_H
#define VSIM_OUTFILE_H

#include <sys/types.h>

#include "vsim/error.h"

enum {
  VS_OUTFILE_FORCE = 1u << 0,   /* an existing regular file may be replaced */
  VS_OUTFILE_REPLACE = 1u << 1, /* the output must exist (resume): replaced in place,
                                   the temporary file gets its owner and permission bits */
  VS_OUTFILE_FOLLOW = 1u << 2,  /* with FORCE: a symbolic link to a regular file is
                                   followed (its target replaced); without, refused */
};

typedef struct vs_outfile {
  char *path;      /* where the output goes: the path given, or a symlink's target */
  char *tmp;       /* the temporary file beside it */
  int fd;          /* open on tmp (O_RDWR) until publish/discard; -1 after */
  unsigned flags;
  dev_t dev;       /* of tmp, to check it before publishing */
  ino_t ino;
  char *published; /* NULL: publish syncs the directory; else a PATH_MAX buffer that
                      publish fills with the published path, whose directory the
                      caller syncs (vs_outfile_sync_dir): once for two files there */
} vs_outfile;

/* Check path as an output without creating anything: VS_OK when it may be
 * used (a new name; an existing regular file with FORCE or REPLACE),
 * VS_ERR_EXISTS when it exists without them, VS_ERR_USAGE when it is not
 * a regular file, a link the flags do not let it follow, one of inputs
 * (NULL-terminated list of paths, "-" and "" skipped; NULL: none), or its
 * directory is missing or not writable.  Call it before any long work. */
vs_status vs_outfile_check(const char *path, unsigned flags, const char *const *inputs,
                           vs_error *err);

/* vs_outfile_check, then create the temporary file.  On success o->tmp is
 * the path to write (HDF5: H5Fcreate(o->tmp, H5F_ACC_TRUNC, ...), then
 * vs_outfile_same() on its descriptor) and o->fd is open on it. */
vs_status vs_outfile_create(const char *path, unsigned flags, const char *const *inputs,
                            vs_outfile *o, vs_error *err);

/* 1 when fd is the temporary file created (same device and inode). */
int vs_outfile_same(const vs_outfile *o, int fd);

/* fsync(fd), or fdatasync(fd) when data_only: 0, else the errno.  Every
 * sync of an output file goes through it (vs_outfile_publish, the result
 * writer's syncer thread, io/write/h5thread.c, and resume's copy,
 * io/write/h5resume.c;
 * not the directory's sync, whose failure is no error). */
int vs_outfile_sync_fd(int fd, int data_only);

/* Start writing the temporary file's data to disk without waiting
 * (sync_file_range where there is one; nothing elsewhere): a file staged
 * this way before another file's fsync is mostly on disk by its own. */
void vs_outfile_start_writeback(const vs_outfile *o);

/* Tests only: from now on vs_outfile_sync_fd fails with errnum instead of
 * syncing, for fdatasync when bit 0 of which is set, for fsync when bit 1
 * is, once the first `after` of those syncs have run as usual (0: from the
 * first); vs_outfile__fail_syncs(0, 0, 0) syncs again.  Set it while no
 * output file is open (the syncer thread reads it). */
void vs_outfile__fail_syncs(int errnum, int which, int after);

/* fsync the temporary file, then make it the output (see above) and sync
 * the directory.  On failure the temporary file is removed.  Either way o
 * is released (vs_outfile_discard is then a no-op). */
vs_status vs_outfile_publish(vs_outfile *o, vs_error *err);

/* fsync the directory of path (its name's durability; a file system that
 * refuses is not an error), and that of other too when it is another
 * directory (other NULL: none). */
void vs_outfile_sync_dir(const char *path, const char *other);

/* Remove the temporary file and release o.  Safe on a zeroed or released o. */
void vs_outfile_discard(vs_outfile *o);

#endif
