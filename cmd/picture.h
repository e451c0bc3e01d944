/* SPDX-License-Identifier: MIT */
/* picture.h: what `vsim render` and `vsim plot` share: image sizes and
 * output files written under a temporary name and renamed into place. */
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

/* The directory of path ("." when none) must exist and be writable:
 * otherwise report "vsim: PATH: cannot write: REASON" and return -1. */
int pic_check_writable(const char *path);

/* A temporary name beside path (".NAME.tmp-PID"), malloc'd; NULL: no memory. */
char *pic_temp_path(const char *path);

/* Rename tmp over path; on failure report, remove tmp and return -1. */
int pic_commit(const char *tmp, const char *path);

#endif
