/* SPDX-License-Identifier: MIT */
/* kernel_jacobi_avx512.c: the coloured-Jacobi block kernel, eight links per
 * AVX-512 vector (kernel_jacobi.h); this file alone is compiled with
 * -mavx512f (no FMA instructions are generated: -ffp-contract=off).  Gather:
 * each particle is one 256-bit load, links k and k + 4 share a 512-bit
 * register, and two-source permutes transpose them to dx, dy, dz of eight
 * links; the corrections follow the reference's expressions operation for
 * operation (masks select, as the reference's ?: do); the scatter is the
 * AVX2 path's, link by link in layout order.  The shaped groups (most of a
 * cloth's links) load and store their 16 particles whole and compute on
 * them as loaded (shaped_group below). */
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

/* The corrections s of 8 links (block offsets k .. k + 7), the reference's
 * expressions operation for operation; updates the multipliers (xpbd). */
typedef struct {
  const double *rest, *kw, *compl, *wsum, *al;
  double *lam;
  __m512d ih2, om;
  int xpbd;
} k8_ctx;

static inline __m512d k8_corr(const k8_ctx *q, int32_t k, __m512d dx, __m512d dy, __m512d dz) {
  const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
  const __m512d len = _mm512_sqrt_pd(
      _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz)));
  const __m512d C = _mm512_sub_pd(len, _mm512_loadu_pd(q->rest + k));
  if (!q->xpbd) {
    const __mmask8 pos = _mm512_cmp_pd_mask(len, zero, _CMP_GT_OQ);
    const __m512d safe = _mm512_mask_blend_pd(pos, one, len);
    const __m512d live = _mm512_mask_blend_pd(pos, zero, _mm512_loadu_pd(q->al + k));
    return _mm512_mul_pd(_mm512_div_pd(_mm512_mul_pd(neg(C), _mm512_loadu_pd(q->kw + k)), safe), live);
  }
  const __m512d at = _mm512_mul_pd(_mm512_loadu_pd(q->compl + k), q->ih2);
  const __m512d den0 = _mm512_add_pd(_mm512_loadu_pd(q->wsum + k), at);
  const __mmask8 ok = _mm512_cmp_pd_mask(len, zero, _CMP_GT_OQ) & _mm512_cmp_pd_mask(den0, zero, _CMP_GT_OQ);
  const __m512d safe = _mm512_mask_blend_pd(ok, one, len), den = _mm512_mask_blend_pd(ok, one, den0);
  const __m512d live = _mm512_mask_blend_pd(ok, zero, _mm512_loadu_pd(q->al + k));
  const __m512d l0 = _mm512_loadu_pd(q->lam + k);
  const __m512d dl = _mm512_mul_pd(
      _mm512_div_pd(_mm512_mul_pd(q->om, _mm512_sub_pd(neg(C), _mm512_mul_pd(at, l0))), den), live);
  _mm512_storeu_pd(q->lam + k, _mm512_add_pd(l0, dl));
  return _mm512_div_pd(dl, safe);
}

/* Index vectors of the transposes below. */
#define IDX(a, b, c, d, e, f, g, h) _mm512_set_epi64(h, g, f, e, d, c, b, a)

/* A shaped group, computed on the particles as loaded (AoS: two particles
 * (x, y, z, w) per register): d = a - b per particle pair, one transpose of
 * the d's to dx, dy, dz of the 8 links for the lengths and corrections, then
 * w s broadcast back per particle and (w s) d added to the x, y, z lanes only
 * (w untouched), stored as loaded.  The same operations per lane as the
 * reference (d = pa - pb, (dx dx + dy dy) + dz dz, sa = w_a s, pa + sa d,
 * pb - sb d).  Shuffles per 8 links: 19 (runs) and 23 (pairs), against 32
 * and 48 for transposing the particles to x, y, z, w and back. */
static inline void d_transpose(__m512d P0, __m512d P1, __m512d P2, __m512d P3, __m512i lo, __m512i hi,
                               __m512d *dx, __m512d *dy, __m512d *dz) {
  const __m512d t0 = _mm512_unpacklo_pd(P0, P1), t1 = _mm512_unpackhi_pd(P0, P1);
  const __m512d t2 = _mm512_unpacklo_pd(P2, P3), t3 = _mm512_unpackhi_pd(P2, P3);
  *dx = _mm512_permutex2var_pd(t0, lo, t2), *dz = _mm512_permutex2var_pd(t0, hi, t2);
  *dy = _mm512_permutex2var_pd(t1, lo, t3);
}

/* Keeps a value as computed: GCC would otherwise merge two broadcast loads
 * and their blend into one load and a shuffle, or a stored vector and its
 * reloaded lanes into permutes (the shuffle unit is what this saves). */
#define KEEP(v) __asm__("" : "+v"(v))

#define XYZ 0x77 /* the x, y, z lanes of two particles */

static inline __attribute__((always_inline)) void shaped_group(const k8_ctx *q, double *x, const int32_t *ab,
                                                                int32_t k, int shape) {
  double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
  __m512d dx, dy, dz;
  if (shape == VS_JSHAPE_RUNS) {
    /* A_i = (a_2i | a_2i+1), B_i the same of the b's; D_i = (d_2i | d_2i+1)
     * in the x, y, z lanes and w_a in the w lanes */
    __m512d A[4], B[4], D[4];
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 4; i++) {
      A[i] = _mm512_loadu_pd(pa + 8 * i), B[i] = _mm512_loadu_pd(pb + 8 * i);
      D[i] = _mm512_mask_sub_pd(A[i], XYZ, A[i], B[i]);
    }
    const __m512i lo = IDX(0, 4, 1, 5, 8, 12, 9, 13), hi = IDX(2, 6, 3, 7, 10, 14, 11, 15);
    const __m512d t0 = _mm512_unpacklo_pd(D[0], D[1]), t1 = _mm512_unpackhi_pd(D[0], D[1]);
    const __m512d t2 = _mm512_unpacklo_pd(D[2], D[3]), t3 = _mm512_unpackhi_pd(D[2], D[3]);
    dx = _mm512_permutex2var_pd(t0, lo, t2), dz = _mm512_permutex2var_pd(t0, hi, t2);
    dy = _mm512_permutex2var_pd(t1, lo, t3);
    const __m512d wa = _mm512_permutex2var_pd(t1, hi, t3);
    const __m512d wb = _mm512_permutex2var_pd(_mm512_unpackhi_pd(B[0], B[1]), hi, _mm512_unpackhi_pd(B[2], B[3]));
    const __m512d s = k8_corr(q, k, dx, dy, dz);
    const __m512d sa = _mm512_mul_pd(wa, s), sb = _mm512_mul_pd(wb, s);
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 4; i++) {
      const __m512i bi = IDX(2 * i, 2 * i, 2 * i, 2 * i, 2 * i + 1, 2 * i + 1, 2 * i + 1, 2 * i + 1);
      const __m512d Sa = _mm512_permutexvar_pd(bi, sa), Sb = _mm512_permutexvar_pd(bi, sb);
      _mm512_storeu_pd(pa + 8 * i, _mm512_mask_add_pd(A[i], XYZ, A[i], _mm512_mul_pd(Sa, D[i])));
      _mm512_storeu_pd(pb + 8 * i, _mm512_mask_sub_pd(B[i], XYZ, B[i], _mm512_mul_pd(Sb, D[i])));
    }
  } else {
    /* R_k = (a_k | b_k); a_k and b_k each broadcast to both halves (256-bit
     * loads, no shuffle); D_k = (a_k - b_k, w_a | a_k - b_k, w_b) */
    /* VS_JSHAPE_ANY: link k's two particles anywhere (p0, p1), R_k = (a_k |
     * b_k) by a blend of the two broadcasts, stored back as two halves */
    __m512d R[8], D[8];
    double *p0[8], *p1[8];
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 8; i++) {
      p0[i] = shape == VS_JSHAPE_PAIRS ? pa + 8 * i : x + 4 * (size_t)ab[2 * (k + i)];
      p1[i] = shape == VS_JSHAPE_PAIRS ? pa + 8 * i + 4 : x + 4 * (size_t)ab[2 * (k + i) + 1];
      __m512d a = _mm512_broadcast_f64x4(_mm256_loadu_pd(p0[i]));
      __m512d b = _mm512_broadcast_f64x4(_mm256_loadu_pd(p1[i]));
      KEEP(a);
      KEEP(b);
      R[i] = shape == VS_JSHAPE_PAIRS ? _mm512_loadu_pd(p0[i]) : _mm512_mask_blend_pd(0xF0, a, b);
      D[i] = _mm512_mask_sub_pd(R[i], XYZ, a, b);
    }
    /* P_i = (d_i | d_i+4) and Q_i = (d_i+4 | d_i) transposed: dx, dy, dz of
     * the links in order, and their w rows (w_a 0..3, w_b 4..7) and (w_a 4..7,
     * w_b 0..3) */
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    __m512d P[4], Q[4];
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 4; i++) {
      P[i] = _mm512_mask_blend_pd(0xF0, D[i], D[i + 4]);
      Q[i] = _mm512_mask_blend_pd(0xF0, D[i + 4], D[i]);
    }
    d_transpose(P[0], P[1], P[2], P[3], lo, hi, &dx, &dy, &dz);
    const __m512d w1 = _mm512_permutex2var_pd(_mm512_unpackhi_pd(P[0], P[1]), hi, _mm512_unpackhi_pd(P[2], P[3]));
    const __m512d w2 = _mm512_permutex2var_pd(_mm512_unpackhi_pd(Q[0], Q[1]), hi, _mm512_unpackhi_pd(Q[2], Q[3]));
    const __m512d wa = _mm512_permutex2var_pd(w1, IDX(0, 1, 2, 3, 8, 9, 10, 11), w2);
    const __m512d wb = _mm512_permutex2var_pd(w2, IDX(4, 5, 6, 7, 12, 13, 14, 15), w1);
    const __m512d s = k8_corr(q, k, dx, dy, dz);
    /* sa = w_a s, -sb = -(w_b s): b + (-sb) d is b - sb d (IEEE subtraction
     * adds the negation; rounding is symmetric in the sign) */
    const __m512d sa = _mm512_mul_pd(wa, s), nsb = neg(_mm512_mul_pd(wb, s));
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 8; i++) {
      const __m512d S = _mm512_permutex2var_pd(sa, IDX(i, i, i, i, 8 + i, 8 + i, 8 + i, 8 + i), nsb);
      const __m512d v = _mm512_mask_add_pd(R[i], XYZ, R[i], _mm512_mul_pd(S, D[i]));
      if (shape == VS_JSHAPE_PAIRS) {
        _mm512_storeu_pd(p0[i], v);
      } else {
        _mm256_storeu_pd(p0[i], _mm512_castpd512_pd256(v));
        _mm256_storeu_pd(p1[i], _mm512_extractf64x4_pd(v, 1));
      }
    }
  }
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
  double alive[VS_JBLOCK], sa[VS_JBLOCK], sb[VS_JBLOCK];
  __m256d dd[VS_JBLOCK];
  const double *al = vs_jk_alive(m, c, j0, n, alive);
  const __m512d ih2 = _mm512_set1_pd(c->inv_h2), om = _mm512_set1_pd(m->omega);
  /* lanes (0, 1 | 4, 5) of t and (0, 1 | 4, 5) of u interleaved by pairs:
   * links 0..7 in order (see the gather below) */
  const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  const int xpbd = c->xpbd;
  const k8_ctx q = {rest, kw, compl, wsum, al, lam, ih2, om, xpbd};
  const uint8_t *shape = L->link_shape + j0;
  int32_t gen[VS_JBLOCK / 8], ngen = 0; /* the groups gathered link by link, scattered below */
  int32_t k = 0;
  for (; k + 8 <= n; k += 8) {
    if (shape[k] != VS_JSHAPE_NONE) { /* each shape its own copy (constant shape) */
      if (shape[k] == VS_JSHAPE_RUNS) shaped_group(&q, x, ab, k, VS_JSHAPE_RUNS);
      else if (shape[k] == VS_JSHAPE_PAIRS) shaped_group(&q, x, ab, k, VS_JSHAPE_PAIRS);
      else shaped_group(&q, x, ab, k, VS_JSHAPE_ANY);
      continue;
    }
    gen[ngen++] = k;
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
    const __m512d s = k8_corr(&q, k, dx, dy, dz);
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
  const int32_t tail = n / 8 * 8;
  for (int32_t g = 0; g <= ngen; g++)
    for (k = g < ngen ? gen[g] : tail; k < (g < ngen ? gen[g] + 8 : n); k++) {
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
