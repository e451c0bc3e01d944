/* SPDX-License-Identifier: MIT */
/* vsim/compare.h: reading result files: golden comparison and summaries.
 *
 * Shared by `vsim compare`, `vsim info` and the tests (docs/cli.md, vsim compare). */
#ifndef VSIM_COMPARE_H
#define VSIM_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vs_compare_opts {
  double atol;            /* absolute tolerance [0] */
  double rtol;            /* relative tolerance, times |b| [0] */
  int64_t ulps;           /* > 0: also equal when within this many units in the last place [0] */
  const char *const *only; /* compare only datasets at or under these paths, or NULL */
  size_t n_only;
} vs_compare_opts;

typedef enum vs_diff_kind {
  VS_DIFF_VALUES = 0,     /* same shape, values out of tolerance */
  VS_DIFF_SHAPE,          /* different shape or type class */
  VS_DIFF_MISSING_A,      /* only in B (the reference) */
  VS_DIFF_MISSING_B       /* only in A */
} vs_diff_kind;

typedef struct vs_compare_diff {
  char path[512];
  vs_diff_kind kind;
  double max_abs;         /* largest |a - b| */
  double max_rel;         /* largest |a - b| / |b| */
  int64_t first_index;    /* flat index of the first element out of tolerance, -1 */
  int64_t first_frame;    /* its row (axis 0 of time series), -1 when not one */
  int64_t first_particle; /* its particle (axis 1 of [F, N, ...]; axis 0 of [N]), -1 */
  char detail[512];       /* shapes for VS_DIFF_SHAPE, etc. */
  int64_t first_step;     /* that row's step (the frame number; with output.every = k,
                             row r is step r k), -1 when not a time series */
  double first_time;      /* that row's time, s; NaN when not a time series */
} vs_compare_diff;

typedef struct vs_compare_result {
  size_t n_compared;      /* datasets compared */
  size_t n_diffs;
  vs_compare_diff *diffs; /* (n_diffs) in path order */
  size_t n_paths;
  char **paths;           /* (n_paths) every dataset looked at, in either file (those
                             compared and those on one side only), in path order: a
                             report's list of checks (vsim compare --junit) */
} vs_compare_result;

/* Compare A against reference B.  VS_OK means the comparison ran (look at
 * n_diffs); an unreadable or non-vsim file gives VS_ERR_IO / VS_ERR_FORMAT. */
vs_status vs_compare_files(const char *a, const char *b, const vs_compare_opts *opts,
                           vs_compare_result *out, vs_error *err);
void vs_compare_result_free(vs_compare_result *r);

/* A human summary (or one JSON object when json) of what a result file holds:
 * status, frames, particles, constraints, datasets.  Free *out with
 * vs_free_buffer(). */
vs_status vs_h5_describe(const char *path, int json, char **out, vs_error *err);

#ifdef __cplusplus
}
#endif
#endif
