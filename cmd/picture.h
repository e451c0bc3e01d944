/* picture.h: what `vsim render` and `vsim plot` share: image sizes and the
 * check of an output before drawing (the library then writes each picture
 * through the safe output files, cmd/outfile.h). */
#ifndef VSIM_CMD_PICTURE_H
#define VSIM_CMD_PICTURE_H

/* "WxH" with each side in [lo, hi]; reports and returns -1 on failure. */
int pic_parse_size(const char *cmd, const char *s, int lo, int hi, int *w, int *h);

/* Whether path may be written as a picture (docs/cli.md, Output files): a
 * new name or a regular file (replaced), in a writable directory, never a
 * link, device, FIFO, directory or one of inputs (NULL-terminated).  0, or
 * the exit code after reporting why not. */
int pic_check_output(const char *path, const char *const *inputs);

#endif
