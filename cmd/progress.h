/* SPDX-License-Identifier: MIT */
/* progress.h: the progress bar of `vsim run` on stderr.
 *
 *   [##########..............]  412/1000  41.2%  238 fps  ETA 0:02
 *
 * Redrawn in place with a carriage return at most ten times a second, so that
 * a fast run does not spend its time writing to the terminal. */
#ifndef VSIM_CMD_PROGRESS_H
#define VSIM_CMD_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct cli_progress {
  int enabled;
  FILE *out;
  int64_t start; /* frame the run starts from (0, or a resumed file's last) */
  int64_t total; /* frame it runs to */
  double t0;     /* start, monotonic seconds */
  double last;   /* last redraw */
  size_t drawn;  /* characters of the last line, to blank it */
} cli_progress;

void progress_start(cli_progress *p, int enabled, int64_t start, int64_t total);

/* `done` frames of `total` finished. */
void progress_update(cli_progress *p, int64_t done);

/* Remove the bar so that the next message starts on a clean line. */
void progress_end(cli_progress *p);

#endif
