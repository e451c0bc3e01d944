/* SPDX-License-Identifier: MIT */
/* kernel_jacobi_sse2.c: the coloured-Jacobi block kernel, two links per
 * SSE2 vector (kernel_jacobi.h).  Gather: a link's two particles (x, y, z,
 * w) as two halves each, their difference kept for the scatter, transposed
 * to dx, dy, dz of two links; the corrections then follow the reference's
 * expressions operation for operation; the scatter goes link by link in
 * layout order, as the reference's does. */
#include "solve/kernel_jacobi.h"

#ifdef __SSE2__
#include <emmintrin.h>

const int vs_jacobi_built_sse2 = 1;

/* mask ? a : b, bit for bit */
static inline __m128d sel(__m128d mask, __m128d a, __m128d b) {
  return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
}

void vs_jacobi_block_sse2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
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
  __m128d dxy[VS_JBLOCK], dzw[VS_JBLOCK];
  const double *al = vs_jk_alive(m, c, j0, n, alive);
  const __m128d sign = _mm_set1_pd(-0.0), one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
  const __m128d ih2 = _mm_set1_pd(c->inv_h2), om = _mm_set1_pd(m->omega);
  const int xpbd = c->xpbd;
  int32_t k = 0;
  for (; k + 2 <= n; k += 2) {
    const double *pa0 = x + 4 * (size_t)ab[2 * k], *pb0 = x + 4 * (size_t)ab[2 * k + 1];
    const double *pa1 = x + 4 * (size_t)ab[2 * k + 2], *pb1 = x + 4 * (size_t)ab[2 * k + 3];
    const __m128d a0 = _mm_loadu_pd(pa0 + 2), b0 = _mm_loadu_pd(pb0 + 2);
    const __m128d a1 = _mm_loadu_pd(pa1 + 2), b1 = _mm_loadu_pd(pb1 + 2);
    const __m128d d0 = _mm_sub_pd(_mm_loadu_pd(pa0), _mm_loadu_pd(pb0));
    const __m128d d1 = _mm_sub_pd(_mm_loadu_pd(pa1), _mm_loadu_pd(pb1));
    const __m128d e0 = _mm_sub_pd(a0, b0), e1 = _mm_sub_pd(a1, b1);
    dxy[k] = d0, dxy[k + 1] = d1, dzw[k] = e0, dzw[k + 1] = e1;
    const __m128d dx = _mm_unpacklo_pd(d0, d1), dy = _mm_unpackhi_pd(d0, d1), dz = _mm_unpacklo_pd(e0, e1);
    const __m128d wa = _mm_unpackhi_pd(a0, a1), wb = _mm_unpackhi_pd(b0, b1);
    const __m128d len = _mm_sqrt_pd(
        _mm_add_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)), _mm_mul_pd(dz, dz)));
    const __m128d C = _mm_sub_pd(len, _mm_loadu_pd(rest + k));
    __m128d s;
    if (!xpbd) {
      const __m128d pos = _mm_cmpgt_pd(len, zero);
      const __m128d safe = sel(pos, len, one), live = sel(pos, _mm_loadu_pd(al + k), zero);
      s = _mm_mul_pd(_mm_div_pd(_mm_mul_pd(_mm_xor_pd(C, sign), _mm_loadu_pd(kw + k)), safe), live);
    } else {
      const __m128d at = _mm_mul_pd(_mm_loadu_pd(compl + k), ih2);
      const __m128d den0 = _mm_add_pd(_mm_loadu_pd(wsum + k), at);
      const __m128d ok = _mm_and_pd(_mm_cmpgt_pd(len, zero), _mm_cmpgt_pd(den0, zero));
      const __m128d safe = sel(ok, len, one), den = sel(ok, den0, one);
      const __m128d live = sel(ok, _mm_loadu_pd(al + k), zero);
      const __m128d l0 = _mm_loadu_pd(lam + k);
      const __m128d dl = _mm_mul_pd(
          _mm_div_pd(_mm_mul_pd(om, _mm_sub_pd(_mm_xor_pd(C, sign), _mm_mul_pd(at, l0))), den), live);
      _mm_storeu_pd(lam + k, _mm_add_pd(l0, dl));
      s = _mm_div_pd(dl, safe);
    }
    _mm_storeu_pd(sa + k, _mm_mul_pd(wa, s));
    _mm_storeu_pd(sb + k, _mm_mul_pd(wb, s));
  }
  for (; k < n; k++) { /* the odd link: the reference's scalar expressions */
    const double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
    dxy[k] = _mm_set_pd(dy, dx), dzw[k] = _mm_set_sd(dz);
    const double s = xpbd ? vs_jk_xpbd(dx, dy, dz, rest[k], compl[k], wsum[k], &lam[k], c->inv_h2, m->omega, al[k])
                          : vs_jk_pbd(dx, dy, dz, rest[k], kw[k], al[k]);
    sa[k] = pa[3] * s, sb[k] = pb[3] * s;
  }
  for (k = 0; k < n; k++) {
    double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const __m128d va = _mm_set1_pd(sa[k]), vb = _mm_set1_pd(sb[k]);
    _mm_storeu_pd(pa, _mm_add_pd(_mm_loadu_pd(pa), _mm_mul_pd(va, dxy[k])));
    _mm_store_sd(pa + 2, _mm_add_sd(_mm_load_sd(pa + 2), _mm_mul_sd(va, dzw[k])));
    _mm_storeu_pd(pb, _mm_sub_pd(_mm_loadu_pd(pb), _mm_mul_pd(vb, dxy[k])));
    _mm_store_sd(pb + 2, _mm_sub_sd(_mm_load_sd(pb + 2), _mm_mul_sd(vb, dzw[k])));
  }
}
#else
const int vs_jacobi_built_sse2 = 0;
void vs_jacobi_block_sse2(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  vs_jacobi_block_scalar(m, c, j0, n);
}
#endif
