/* SPDX-License-Identifier: MIT */
/* kernel_jacobi.h (private): the coloured-Jacobi block kernels, one per
 * instruction set, and their run-time dispatch (kernel_jacobi.c).
 *
 * A kernel projects the two-sided distance links [j0, j0 + n) of one colour
 * (n <= VS_JBLOCK) of the layout c->jacobi: gather every link of the block,
 * compute every correction, then scatter them link by link in layout order.
 * Every path performs the same IEEE operations, in the same order, as the
 * scalar reference vs_jacobi_block_scalar (relax_jacobi.c): no FMA, no
 * reassociation, no approximate reciprocal or square root, so all give the
 * same bits (tests/test_kernel_jacobi.c holds them to it).  The vector
 * paths live in their own files compiled with -msse2 / -mavx2 / -mavx512f
 * (Makefile); nothing else is, so the build stays portable, and
 * vs_jacobi_kernel_select only picks a path the CPU runs.
 *
 * VSIM_KERNEL=auto|scalar|sse2|avx2|avx512 (environment, read when a state
 * is created) forces a path; an unknown name, or a path this CPU (or this
 * build) lacks, is an error, never a silent fallback.  Unset or auto: the
 * widest the CPU has.  Models with solver.sqrt_approximation always run the
 * scalar reference (the vector paths hand such blocks to it). */
#ifndef VSIM_SOLVE_KERNEL_JACOBI_H
#define VSIM_SOLVE_KERNEL_JACOBI_H

#include <math.h>

#include "solve/solve.h"

#define VS_JBLOCK 64 /* links per block: the temporaries stay in L1 */

typedef enum vs_jacobi_path {
  VS_JPATH_SCALAR,
  VS_JPATH_SSE2,
  VS_JPATH_AVX2,
  VS_JPATH_AVX512,
  VS_JPATH_COUNT
} vs_jacobi_path;

VS_PRIVATE void vs_jacobi_block_scalar(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n);
VS_PRIVATE void vs_jacobi_block_sse2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n);
VS_PRIVATE void vs_jacobi_block_avx2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n);
VS_PRIVATE void vs_jacobi_block_avx512(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n);

/* The path's name ("scalar", "sse2", "avx2", "avx512"). */
VS_PRIVATE const char *vs_jacobi_path_name(vs_jacobi_path p);
/* 1 when this build has the path and this CPU runs it. */
VS_PRIVATE int vs_jacobi_path_supported(vs_jacobi_path p);
/* The path VSIM_KERNEL asks for (auto: the widest supported); an error
 * naming the variable for an unknown or unsupported value. */
VS_PRIVATE vs_status vs_jacobi_path_select(vs_jacobi_path *out, vs_error *err);
VS_PRIVATE vs_jacobi_block_fn *vs_jacobi_path_fn(vs_jacobi_path p);

/* The shape of 8 consecutive links of a colour (layout link_shape), which
 * lets a vector path load and store their particles as contiguous runs
 * instead of one by one:
 *   VS_JSHAPE_RUNS  a_k = a_0 + k and b_k = b_0 + k, the two runs disjoint
 *                   (a cloth's links across rows);
 *   VS_JSHAPE_PAIRS a_k = a_0 + 2k and b_k = a_k + 1 (a cloth's links along
 *                   a row): 16 consecutive particles;
 *   VS_JSHAPE_ANY   neither, but the 16 particles distinct (a cloth's rows'
 *                   ends, where a colour mixes links along and across rows):
 *                   the AVX-512 path loads and stores each particle whole
 *                   (two 256-bit halves per link) instead of link by link;
 *                   the other paths gather these as NONE.
 * The 16 particles are distinct in each, so loading them all, computing,
 * and storing them all is the reference's gather, corrections and scatter.
 * NONE groups (a particle twice: links between pinned particles, which a
 * colour may share) keep the gather and the scatter in layout order. */
#define VS_JGROUP 8
enum { VS_JSHAPE_NONE, VS_JSHAPE_RUNS, VS_JSHAPE_PAIRS, VS_JSHAPE_ANY };

static inline int vs_jacobi_shape(const int32_t *ab) {
  int runs = 1, pairs = 1;
  for (int k = 0; k < VS_JGROUP; k++) {
    runs &= ab[2 * k] == ab[0] + k && ab[2 * k + 1] == ab[1] + k;
    pairs &= ab[2 * k] == ab[0] + 2 * k && ab[2 * k + 1] == ab[2 * k] + 1;
  }
  const int64_t gap = (int64_t)ab[1] - ab[0];
  if (runs && (gap >= VS_JGROUP || gap <= -VS_JGROUP)) return VS_JSHAPE_RUNS;
  if (pairs) return VS_JSHAPE_PAIRS;
  for (int i = 1; i < 2 * VS_JGROUP; i++)
    for (int k = 0; k < i; k++)
      if (ab[i] == ab[k]) return VS_JSHAPE_NONE;
  return VS_JSHAPE_ANY;
}

/* One link's correction, the reference's expressions verbatim: the vector
 * paths use these for the links of a block that do not fill a vector. */
static inline double vs_jk_pbd(double dx, double dy, double dz, double rest, double kw, double al) {
  const double len = sqrt(dx * dx + dy * dy + dz * dz);
  const double safe = len > 0.0 ? len : 1.0, live = len > 0.0 ? al : 0.0;
  const double C = len - rest;
  return -C * kw / safe * live;
}

static inline double vs_jk_xpbd(double dx, double dy, double dz, double rest, double compl, double wsum,
                                double *lam, double inv_h2, double omega, double al) {
  const double len = sqrt(dx * dx + dy * dy + dz * dz);
  const double C = len - rest;
  const double at = compl * inv_h2;
  const int ok = (len > 0.0) & (wsum + at > 0.0);
  const double safe = ok ? len : 1.0, den = ok ? wsum + at : 1.0, live = ok ? al : 0.0;
  const double dl = omega * (-C - at * *lam) / den * live;
  *lam += dl;
  return dl / safe;
}

/* The liveness factor of each link of the block: al filled from the links'
 * alive flags when the model tears, else the shared 1.0s (vs_jk_ones). */
VS_PRIVATE extern const double vs_jk_ones[VS_JBLOCK];

static inline const double *vs_jk_alive(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n,
                                        double *al) {
  if (m->n_tearable <= 0) return vs_jk_ones;
  const vs_jacobi_layout *L = c->jacobi;
  for (int32_t k = 0; k < n; k++) al[k] = c->alive[L->link_index[j0 + k]] ? 1.0 : 0.0;
  return al;
}

#endif
