/* SPDX-License-Identifier: MIT */
/* kernel_jacobi_avx2.c: the coloured-Jacobi block kernel, four links per
 * AVX2 vector (kernel_jacobi.h); this file alone is compiled with -mavx2
 * (no -mfma: the reference multiplies and adds separately).  Gather: each
 * particle (x, y, z, w) is one 256-bit load; the four differences, kept for
 * the scatter, are transposed to dx, dy, dz; the corrections follow the
 * reference's expressions operation for operation; the scatter goes link by
 * link in layout order, one 256-bit read-modify-write per particle whose w
 * lane adds -0.0 (or subtracts +0.0), which leaves every value as it was.
 * The shaped groups (most of a cloth's links) load and store their
 * particles whole and compute on them as loaded (shaped_4 below). */
#include "solve/kernel_jacobi.h"

#ifdef __AVX2__
#include <immintrin.h>

const int vs_jacobi_built_avx2 = 1;

/* The corrections s of 4 links (block offsets k .. k + 3), the reference's
 * expressions operation for operation; updates the multipliers (xpbd). */
typedef struct {
  const double *rest, *kw, *compl, *wsum, *al;
  double *lam;
  __m256d ih2, om;
  int xpbd;
} k4_ctx;

static inline __m256d k4_corr(const k4_ctx *q, int32_t k, __m256d dx, __m256d dy, __m256d dz) {
  const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  const __m256d len = _mm256_sqrt_pd(
      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz)));
  const __m256d C = _mm256_sub_pd(len, _mm256_loadu_pd(q->rest + k));
  if (!q->xpbd) {
    const __m256d pos = _mm256_cmp_pd(len, zero, _CMP_GT_OQ);
    const __m256d safe = _mm256_blendv_pd(one, len, pos);
    const __m256d live = _mm256_blendv_pd(zero, _mm256_loadu_pd(q->al + k), pos);
    return _mm256_mul_pd(_mm256_div_pd(_mm256_mul_pd(_mm256_xor_pd(C, sign), _mm256_loadu_pd(q->kw + k)), safe), live);
  }
  const __m256d at = _mm256_mul_pd(_mm256_loadu_pd(q->compl + k), q->ih2);
  const __m256d den0 = _mm256_add_pd(_mm256_loadu_pd(q->wsum + k), at);
  const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(len, zero, _CMP_GT_OQ), _mm256_cmp_pd(den0, zero, _CMP_GT_OQ));
  const __m256d safe = _mm256_blendv_pd(one, len, ok), den = _mm256_blendv_pd(one, den0, ok);
  const __m256d live = _mm256_blendv_pd(zero, _mm256_loadu_pd(q->al + k), ok);
  const __m256d l0 = _mm256_loadu_pd(q->lam + k);
  const __m256d dl = _mm256_mul_pd(
      _mm256_div_pd(_mm256_mul_pd(q->om, _mm256_sub_pd(_mm256_xor_pd(C, sign), _mm256_mul_pd(at, l0))), den), live);
  _mm256_storeu_pd(q->lam + k, _mm256_add_pd(l0, dl));
  return _mm256_div_pd(dl, safe);
}

/* Keeps a value as computed (GCC would turn a stored vector's reloaded
 * lanes into shuffles, which is what the broadcasts below avoid). */
#define KEEP(v) __asm__("" : "+x"(v))

/* A shaped group of 8 links (kernel_jacobi.h), 4 at a time, computed on the
 * particles as loaded (one (x, y, z, w) per register; a_i at pa + st i, b_i
 * at pb + st i, st = 4 for runs, 8 for pairs): d = a - b per link, one
 * transpose of the d's (their w lane holding w_a) to dx, dy, dz and w_a of
 * the 4 links, w_b from the b's, the corrections, w s broadcast back per
 * particle from memory (loads, no shuffle), a + (w_a s) d and b - (w_b s) d
 * with the w lane kept (blend), stored as loaded.  The reference's
 * operations per lane; 11 shuffles per 4 links instead of 32. */
static inline void shaped_4(const k4_ctx *q, double *x, const int32_t *ab, int32_t k, size_t st) {
  {
    double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    __m256d A[4], B[4], D[4], E[4];
    _Pragma("GCC unroll 4")
    for (int i = 0; i < 4; i++) {
      A[i] = _mm256_loadu_pd(pa + st * i), B[i] = _mm256_loadu_pd(pb + st * i);
      D[i] = _mm256_sub_pd(A[i], B[i]);
      E[i] = _mm256_blend_pd(D[i], A[i], 0x8);
    }
    const __m256d t0 = _mm256_unpacklo_pd(E[0], E[1]), t1 = _mm256_unpackhi_pd(E[0], E[1]); /* x0 x1 z0 z1, y0 y1 w0 w1 */
    const __m256d t2 = _mm256_unpacklo_pd(E[2], E[3]), t3 = _mm256_unpackhi_pd(E[2], E[3]);
    const __m256d dx = _mm256_permute2f128_pd(t0, t2, 0x20), dz = _mm256_permute2f128_pd(t0, t2, 0x31);
    const __m256d dy = _mm256_permute2f128_pd(t1, t3, 0x20), wa = _mm256_permute2f128_pd(t1, t3, 0x31);
    const __m256d wb = _mm256_permute2f128_pd(_mm256_unpackhi_pd(B[0], B[1]), _mm256_unpackhi_pd(B[2], B[3]), 0x31);
    const __m256d s = k4_corr(q, k, dx, dy, dz);
    double sv[8];
    _mm256_storeu_pd(sv, _mm256_mul_pd(wa, s));
    _mm256_storeu_pd(sv + 4, _mm256_mul_pd(wb, s));
    _Pragma("GCC unroll 4")
    for (int i = 0; i < 4; i++) {
      __m256d sa = _mm256_broadcast_sd(sv + i), sb = _mm256_broadcast_sd(sv + 4 + i);
      KEEP(sa);
      KEEP(sb);
      _mm256_storeu_pd(pa + st * i, _mm256_blend_pd(_mm256_add_pd(A[i], _mm256_mul_pd(sa, D[i])), A[i], 0x8));
      _mm256_storeu_pd(pb + st * i, _mm256_blend_pd(_mm256_sub_pd(B[i], _mm256_mul_pd(sb, D[i])), B[i], 0x8));
    }
  }
}

static inline void shaped_group(const k4_ctx *q, double *x, const int32_t *ab, int32_t k0, int shape) {
  if (shape == VS_JSHAPE_RUNS) { /* the stride a constant in each copy */
    shaped_4(q, x, ab, k0, 4);
    shaped_4(q, x, ab, k0 + 4, 4);
  } else {
    shaped_4(q, x, ab, k0, 8);
    shaped_4(q, x, ab, k0 + 4, 8);
  }
}

void vs_jacobi_block_avx2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  if (m->sqrt_approximation) {
    vs_jacobi_block_scalar(m, c, j0, n);
    return;
  }
  const vs_jacobi_layout *L = c->jacobi;
  double *restrict x = c->x;
  const int32_t *ab = L->link_ab + 2 * (size_t)j0;
  const double *rest = L->link_rest + j0, *kw = L->link_kw + j0;
  const double *compl = L->link_compl + j0, *wsum = L->link_wsum + j0;
  double *lam = L->link_lambda + j0;
  double alive[VS_JBLOCK], sa[VS_JBLOCK], sb[VS_JBLOCK];
  __m256d dd[VS_JBLOCK];
  const double *al = vs_jk_alive(m, c, j0, n, alive);
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  const __m256d ih2 = _mm256_set1_pd(c->inv_h2), om = _mm256_set1_pd(m->omega);
  const int xpbd = c->xpbd;
  const k4_ctx q = {rest, kw, compl, wsum, al, lam, ih2, om, xpbd};
  const uint8_t *shape = L->link_shape + j0;
  int32_t gen[VS_JBLOCK / 4], ngen = 0; /* the quads gathered link by link, scattered below */
  int32_t k = 0;
  for (; k + 4 <= n; k += 4) {
    if (k + 8 <= n && (shape[k] == VS_JSHAPE_RUNS || shape[k] == VS_JSHAPE_PAIRS)) {
      shaped_group(&q, x, ab, k, shape[k]);
      k += 4;
      continue;
    }
    gen[ngen++] = k;
    __m256d A[4], B[4];
    for (int i = 0; i < 4; i++) {
      A[i] = _mm256_loadu_pd(x + 4 * (size_t)ab[2 * (k + i)]);
      B[i] = _mm256_loadu_pd(x + 4 * (size_t)ab[2 * (k + i) + 1]);
      dd[k + i] = _mm256_sub_pd(A[i], B[i]);
    }
    const __m256d t0 = _mm256_unpacklo_pd(dd[k], dd[k + 1]), t1 = _mm256_unpackhi_pd(dd[k], dd[k + 1]);
    const __m256d t2 = _mm256_unpacklo_pd(dd[k + 2], dd[k + 3]), t3 = _mm256_unpackhi_pd(dd[k + 2], dd[k + 3]);
    const __m256d dx = _mm256_permute2f128_pd(t0, t2, 0x20), dy = _mm256_permute2f128_pd(t1, t3, 0x20);
    const __m256d dz = _mm256_permute2f128_pd(t0, t2, 0x31);
    const __m256d wa = _mm256_permute2f128_pd(_mm256_unpackhi_pd(A[0], A[1]), _mm256_unpackhi_pd(A[2], A[3]), 0x31);
    const __m256d wb = _mm256_permute2f128_pd(_mm256_unpackhi_pd(B[0], B[1]), _mm256_unpackhi_pd(B[2], B[3]), 0x31);
    const __m256d s = k4_corr(&q, k, dx, dy, dz);
    _mm256_storeu_pd(sa + k, _mm256_mul_pd(wa, s));
    _mm256_storeu_pd(sb + k, _mm256_mul_pd(wb, s));
  }
  for (; k < n; k++) { /* the last links: the reference's scalar expressions */
    const double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
    dd[k] = _mm256_set_pd(0.0, dz, dy, dx);
    const double s = xpbd ? vs_jk_xpbd(dx, dy, dz, rest[k], compl[k], wsum[k], &lam[k], c->inv_h2, m->omega, al[k])
                          : vs_jk_pbd(dx, dy, dz, rest[k], kw[k], al[k]);
    sa[k] = pa[3] * s, sb[k] = pb[3] * s;
  }
  const int32_t tail = n / 4 * 4;
  for (int32_t g = 0; g <= ngen; g++)
    for (k = g < ngen ? gen[g] : tail; k < (g < ngen ? gen[g] + 4 : n); k++) {
      double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
      const __m256d ua = _mm256_blend_pd(_mm256_mul_pd(_mm256_broadcast_sd(sa + k), dd[k]), sign, 0x8);
      const __m256d ub = _mm256_blend_pd(_mm256_mul_pd(_mm256_broadcast_sd(sb + k), dd[k]), zero, 0x8);
      _mm256_storeu_pd(pa, _mm256_add_pd(_mm256_loadu_pd(pa), ua));
      _mm256_storeu_pd(pb, _mm256_sub_pd(_mm256_loadu_pd(pb), ub));
    }
}
#else
const int vs_jacobi_built_avx2 = 0;
void vs_jacobi_block_avx2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  vs_jacobi_block_scalar(m, c, j0, n);
}
#endif
