/* SPDX-License-Identifier: MIT */
/* picture.h: what `vsim render` and `vsim plot` share: image sizes and the
 * check of an output before drawing (the library then writes each picture
 * through the safe output files, cmd/outfile.h). */
#ifndef VSIM_CMD_PICTURE_H
#define VSIM_CMD_PICTURE_H

/* "WxH" with each side in [lo, hi]; reports and returns -1 on failure. */
int pic_parse_size(const char *cmd, const char *s, int lo, int hi, int *w, int *h);

/* The picture format that path's extension names, case aside: 0 .png,
 * 1 .svg, 2 .pdf (vs_render_format's values); -1 for any other or none. */
int pic_format_of(const char *path);

/* Report "vsim CMD: -o PATH: ..." for a path whose extension names no
 * format CMD writes (what, e.g. "OUT.png, OUT.svg or OUT.pdf", lists
 * those it does) and return the usage exit code. */
int pic_bad_format(const char *cmd, const char *path, const char *what);

/* Whether path may be written as a picture (docs/cli.md, Output files): a
 * new name or a regular file (replaced), in a writable directory, never a
 * link, device, FIFO, directory or one of inputs (NULL-terminated).  0, or
 * the exit code after reporting why not. */
int pic_check_output(const char *path, const char *const *inputs);

#endif
