/* SPDX-License-Identifier: MIT */
/* outfile.h: the safe output files of the library (lib/util/outfile.h),
 * for the outputs the program writes itself: a movie (render, through
 * ffmpeg), a sweep's summary.csv and point-NNNN.csv, and the checks of an
 * output before any long work.  Every file vsim writes goes through that
 * one path (docs/cli.md, Output files); like the text helpers of text.h it
 * is the library's private code, not part of its API, taken from the
 * static library with its one declaration. */
#ifndef VSIM_CMD_OUTFILE_H
#define VSIM_CMD_OUTFILE_H

#include "../lib/util/outfile.h"

#endif
