/* kernel_jacobi_avx512.c: the coloured-Jacobi block kernel, eight links per
 * AVX-512 vector (kernel_jacobi.h); this file alone is compiled with
 * -mavx512f (no FMA instructions are generated: -ffp-contract=off).  Gather:
 * each particle is one 256-bit load, links k and k + 4 share a 512-bit
 * register, and two-source permutes transpose them to dx, dy, dz of eight
 * links; the corrections follow the reference's expressions operation for
 * operation (masks select, as the reference's ?: do); the scatter is the
 * AVX2 path's, link by link in layout order. */
#include "solve/kernel_jacobi.h"

#ifdef __AVX512F__
#include <immintrin.h>

const int vs_jacobi_built_avx512 = 1;

static inline __m512d pair(__m256d lo, __m256d hi) {
  return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
}

static inline __m512d neg(__m512d v) { /* -v: the sign bit flipped, as C's unary minus */
  return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(v), _mm512_set1_epi64((long long)0x8000000000000000ull)));
}

void vs_jacobi_block_avx512(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
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
  double al[VS_JBLOCK], sa[VS_JBLOCK], sb[VS_JBLOCK];
  __m256d dd[VS_JBLOCK];
  vs_jk_alive(m, c, j0, n, al);
  const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
  const __m512d ih2 = _mm512_set1_pd(c->inv_h2), om = _mm512_set1_pd(m->omega);
  /* lanes (0, 1 | 4, 5) of t and (0, 1 | 4, 5) of u interleaved by pairs:
   * links 0..7 in order (see the gather below) */
  const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  const int xpbd = c->xpbd;
  int32_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m256d A[8], B[8];
    for (int i = 0; i < 8; i++) {
      A[i] = _mm256_loadu_pd(x + 4 * (size_t)ab[2 * (k + i)]);
      B[i] = _mm256_loadu_pd(x + 4 * (size_t)ab[2 * (k + i) + 1]);
      dd[k + i] = _mm256_sub_pd(A[i], B[i]);
    }
    /* P_i = (d_i | d_i+4): unpack works per 128-bit lane, giving
     * t0 = (d0x d1x d0z d1z | d4x d5x d4z d5z), t2 = the same of d2, d3, d6, d7 */
    const __m512d P0 = pair(dd[k], dd[k + 4]), P1 = pair(dd[k + 1], dd[k + 5]);
    const __m512d P2 = pair(dd[k + 2], dd[k + 6]), P3 = pair(dd[k + 3], dd[k + 7]);
    const __m512d t0 = _mm512_unpacklo_pd(P0, P1), t1 = _mm512_unpackhi_pd(P0, P1);
    const __m512d t2 = _mm512_unpacklo_pd(P2, P3), t3 = _mm512_unpackhi_pd(P2, P3);
    const __m512d dx = _mm512_permutex2var_pd(t0, lo2, t2), dz = _mm512_permutex2var_pd(t0, hi2, t2);
    const __m512d dy = _mm512_permutex2var_pd(t1, lo2, t3);
    const __m512d ua = _mm512_unpackhi_pd(pair(A[0], A[4]), pair(A[1], A[5]));
    const __m512d va = _mm512_unpackhi_pd(pair(A[2], A[6]), pair(A[3], A[7]));
    const __m512d ub = _mm512_unpackhi_pd(pair(B[0], B[4]), pair(B[1], B[5]));
    const __m512d vb = _mm512_unpackhi_pd(pair(B[2], B[6]), pair(B[3], B[7]));
    const __m512d wa = _mm512_permutex2var_pd(ua, hi2, va), wb = _mm512_permutex2var_pd(ub, hi2, vb);
    const __m512d len = _mm512_sqrt_pd(
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz)));
    const __m512d C = _mm512_sub_pd(len, _mm512_loadu_pd(rest + k));
    __m512d s;
    if (!xpbd) {
      const __mmask8 pos = _mm512_cmp_pd_mask(len, zero, _CMP_GT_OQ);
      const __m512d safe = _mm512_mask_blend_pd(pos, one, len);
      const __m512d live = _mm512_mask_blend_pd(pos, zero, _mm512_loadu_pd(al + k));
      s = _mm512_mul_pd(_mm512_div_pd(_mm512_mul_pd(neg(C), _mm512_loadu_pd(kw + k)), safe), live);
    } else {
      const __m512d at = _mm512_mul_pd(_mm512_loadu_pd(compl + k), ih2);
      const __m512d den0 = _mm512_add_pd(_mm512_loadu_pd(wsum + k), at);
      const __mmask8 ok = _mm512_cmp_pd_mask(len, zero, _CMP_GT_OQ) & _mm512_cmp_pd_mask(den0, zero, _CMP_GT_OQ);
      const __m512d safe = _mm512_mask_blend_pd(ok, one, len), den = _mm512_mask_blend_pd(ok, one, den0);
      const __m512d live = _mm512_mask_blend_pd(ok, zero, _mm512_loadu_pd(al + k));
      const __m512d l0 = _mm512_loadu_pd(lam + k);
      const __m512d dl = _mm512_mul_pd(
          _mm512_div_pd(_mm512_mul_pd(om, _mm512_sub_pd(neg(C), _mm512_mul_pd(at, l0))), den), live);
      _mm512_storeu_pd(lam + k, _mm512_add_pd(l0, dl));
      s = _mm512_div_pd(dl, safe);
    }
    _mm512_storeu_pd(sa + k, _mm512_mul_pd(wa, s));
    _mm512_storeu_pd(sb + k, _mm512_mul_pd(wb, s));
  }
  for (; k < n; k++) { /* the last links: the reference's scalar expressions */
    const double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
    dd[k] = _mm256_set_pd(0.0, dz, dy, dx);
    const double s = xpbd ? vs_jk_xpbd(dx, dy, dz, rest[k], compl[k], wsum[k], &lam[k], c->inv_h2, m->omega, al[k])
                          : vs_jk_pbd(dx, dy, dz, rest[k], kw[k], al[k]);
    sa[k] = pa[3] * s, sb[k] = pb[3] * s;
  }
  const __m256d nz = _mm256_set1_pd(-0.0), pz = _mm256_setzero_pd();
  for (k = 0; k < n; k++) {
    double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const __m256d ua = _mm256_blend_pd(_mm256_mul_pd(_mm256_broadcast_sd(sa + k), dd[k]), nz, 0x8);
    const __m256d ub = _mm256_blend_pd(_mm256_mul_pd(_mm256_broadcast_sd(sb + k), dd[k]), pz, 0x8);
    _mm256_storeu_pd(pa, _mm256_add_pd(_mm256_loadu_pd(pa), ua));
    _mm256_storeu_pd(pb, _mm256_sub_pd(_mm256_loadu_pd(pb), ub));
  }
}
#else
const int vs_jacobi_built_avx512 = 0;
void vs_jacobi_block_avx512(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  vs_jacobi_block_scalar(m, c, j0, n);
}
#endif
