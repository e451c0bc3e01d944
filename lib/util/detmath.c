/* SPDX-License-Identifier: MIT */
/* detmath.c: deterministic sine and cosine (detmath.h).
 *
 * Only + - * / on doubles, each rounded once to nearest: the same bits under
 * any compiler and CPU, provided that
 *   - no multiply-add is fused (contraction would change the rounding): the
 *     build passes -ffp-contract=off, and this file turns contraction off
 *     itself (below) so that it holds with any flags;
 *   - doubles are evaluated as doubles (FLT_EVAL_METHOD 0: SSE2 on x86-64,
 *     any arm64), not in x87 extended precision;
 *   - no -ffast-math (reassociation).
 * The preprocessor checks the last two.
 *
 * The method is fdlibm's (Sun Microsystems, 1993), written anew here:
 *   1. argument reduction x = n pi/2 + (y0 + y1), |y0 + y1| <= ~pi/4, with
 *      y0 + y1 a double-double carrying ~85 to ~150 bits of the remainder;
 *   2. minimax polynomial kernels for sin and cos on [-pi/4, pi/4] (degree 13
 *      odd and 14 even; coefficients from FreeBSD's msun k_sin.c / k_cos.c,
 *      whose approximation error is below 2^-58 relative).  Unlike fdlibm
 *      (0.8 ulp), the large terms are carried as double-doubles (Dekker's
 *      exact product) so that only the last addition rounds at the result's
 *      scale: 0.55 ulp at most.  The tail y1 enters to first order;
 *   3. the quadrant n mod 4 picks +-sin or +-cos of the remainder. */
#include "util/detmath.h"

#include <float.h>
#include <math.h> /* fmod (exact) and NAN only */
#include <stdint.h>
#include <string.h>

#if defined(__FAST_MATH__)
#error "detmath.c must not be built with -ffast-math: it relies on exact IEEE rounding"
#endif
/* 0 and 1 evaluate a double as a double, and so do 16, 32 and 64 (what gcc
 * says in GNU mode with _Float16 hardware); 2 (x87: long double) and -1 do
 * not. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD < 0 || FLT_EVAL_METHOD == 2 || FLT_EVAL_METHOD > 64
#error "detmath.c needs doubles evaluated as doubles (FLT_EVAL_METHOD 0, e.g. SSE2 on x86-64)"
#endif

/* No fused multiply-add in this file, whatever the command line says. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* a * b = *p + *e exactly (Dekker's product, with Veltkamp's split of each
 * factor into two halves of 26 bits whose products are exact); |a|, |b| far
 * from overflow, and the error term exact unless a * b is near underflow. */
static void two_prod(double a, double b, double *p, double *e) {
  const double split = 134217729.0; /* 2^27 + 1 */
  double ca = split * a, ah = ca - (ca - a), al = a - ah;
  double cb = split * b, bh = cb - (cb - b), bl = b - bh;
  *p = a * b;
  *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* sin(x + y) for |x| <= ~pi/4 and |y| <= ~2^-52 |x| (y the tail of the
 * reduced argument, or 0):
 *   sin(x) = x + S1 x^3 + x^5 (S2 + S3 x^2 + ... + S6 x^8)
 * (S1 ~ -1/6).  A plain evaluation has up to 0.8 ulp of error, most of it
 * from rounding x^2 and the cubic term, which is up to a tenth of the result:
 * here x^2, x^3 and S1 x^3 are carried exactly as double-doubles, x + S1 x^3
 * is summed exactly, and every rounding left is in terms a hundred times
 * below the result, so the final addition's half ulp is nearly all.  The
 * tail enters to first order: sin(x + y) = sin(x) + y (1 - x^2/2 + ...). */
static const double S1 = -0x1.5555555555549p-3, /* -1.66666666666666324348e-01 */
    S2 = 0x1.111111110f8a6p-7,                  /*  8.33333333332248946124e-03 */
    S3 = -0x1.a01a019c161d5p-13,                /* -1.98412698298579493134e-04 */
    S4 = 0x1.71de357b1fe7dp-19,                 /*  2.75573137070700676789e-06 */
    S5 = -0x1.ae5e68a2b9cebp-26,                /* -2.50507602534068634195e-08 */
    S6 = 0x1.5d93a5acfd57cp-33;                 /*  1.58969099521155010221e-10 */

static double kernel_sin(double x, double y) {
  double ax = x < 0 ? -x : x;
  /* x^3/6 < 2^-55 x: sin(x + y) rounds to x + y (and sin(-0) is -0) */
  if (ax < 0x1p-27) return y == 0.0 ? x : x + y;
  double zh, zl, ph, pl, th, tl;
  two_prod(x, x, &zh, &zl);   /* x^2 = zh + zl */
  two_prod(x, zh, &ph, &pl);  /* x^3 = ph + pl + x zl */
  pl += x * zl;
  two_prod(S1, ph, &th, &tl); /* S1 x^3 = th + tl */
  tl += S1 * pl;
  double z = zh, w = z * z;
  double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  double hi = x + th, lo = (x - hi) + th; /* exact: |th| < |x| */
  return hi + (lo + (tl + (ph * z * r + y * (1.0 - 0.5 * z))));
}

/* cos(x + y) for |x| <= ~pi/4:
 *   cos(x) = 1 - x^2/2 + C1 x^4 + x^6 (C2 + C3 x^2 + ... + C6 x^8)
 * (C1 ~ 1/24).  The same way: 1 - x^2/2 is carried exactly (x^2 as a
 * double-double, the rounding of u = 1 - x^2/2 recovered as (1 - u) - x^2/2),
 * so is C1 x^4 (up to a fortieth of the result), and their sum; the rest is a
 * thousand times below the result.  cos(x + y) = cos(x) - x y + .... */
static const double C1 = 0x1.555555555554cp-5, /*  4.16666666666666019037e-02 */
    C2 = -0x1.6c16c16c15177p-10,               /* -1.38888888888741095749e-03 */
    C3 = 0x1.a01a019cb159p-16,                 /*  2.48015872894767294178e-05 */
    C4 = -0x1.27e4f809c52adp-22,               /* -2.75573143513906633035e-07 */
    C5 = 0x1.1ee9ebdb4b1c4p-29,                /*  2.08757232129817482790e-09 */
    C6 = -0x1.8fae9be8838d4p-37;               /* -1.13596475577881948265e-11 */

static double kernel_cos(double x, double y) {
  double ax = x < 0 ? -x : x;
  /* x^2/2 < 2^-55: cos(x + y) rounds to 1 */
  if (ax < 0x1p-27) return 1.0;
  double zh, zl, wh, wl, ch, cl;
  two_prod(x, x, &zh, &zl);   /* x^2 = zh + zl */
  two_prod(zh, zh, &wh, &wl); /* x^4 = wh + wl + 2 zh zl */
  wl += 2.0 * zh * zl;
  two_prod(C1, wh, &ch, &cl); /* C1 x^4 = ch + cl */
  cl += C1 * wl;
  double z = zh;
  double r = wh * z * (C2 + z * C3) + wh * wh * z * (C4 + z * (C5 + z * C6));
  double hz = 0.5 * z, u = 1.0 - hz;
  double lo = (1.0 - u) - hz;             /* exact: u + lo = 1 - x^2/2 (of zh) */
  double hi = u + ch, e = (u - hi) + ch; /* exact: |ch| < |u| */
  return hi + (e + (lo + (cl + ((r - 0.5 * zl) - x * y))));
}

/* pi/2 in three parts of 33 significant bits (P1, P2, P3: n * Pk is exact for
 * n <= 2^20) and the tails of the first one, two and three parts (P1T = pi/2 -
 * P1, P2T = pi/2 - P1 - P2, P3T = pi/2 - P1 - P2 - P3, each rounded). */
static const double INV_PIO2 = 0x1.45f306dc9c883p-1, /* 2/pi, 6.36619772367581382433e-01 */
    P1 = 0x1.921fb544p+0,                            /* 1.57079632673412561417e+00 */
    P1T = 0x1.0b4611a626331p-34,                     /* 6.07710050650619224932e-11 */
    P2 = 0x1.0b4611a6p-34,                           /* 6.07710050630396597660e-11 */
    P2T = 0x1.3198a2e037073p-69,                     /* 2.02226624879595063154e-21 */
    P3 = 0x1.3198a2ep-69,                            /* 2.02226624871116645580e-21 */
    P3T = 0x1.b839a252049c1p-104;                    /* 8.47842766036889956997e-32 */

/* The biased binary exponent of x (its bits 52..62). */
static int biased_exponent(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (int)((u >> 52) & 0x7ff);
}

/* x = n pi/2 + y[0] + y[1] for pi/4 < |x| <= VS_TRIG_MAX; returns n (the
 * caller uses n mod 4).  Cody-Waite in up to three rounds: each takes one
 * more 33-bit part of pi/2 off, and the next is needed only when the first
 * rounds cancelled so many leading bits of x that the remainder's precision
 * (x's exponent minus the remainder's) would fall short: about 85 bits after
 * one round, 118 after two, 151 after three.  The subtraction x - n P1 is
 * exact (n P1 is exact, and within a factor 2 of x). */
static int reduce_pio2(double x, double y[2]) {
  double t = x < 0 ? -x : x;
  int n = (int)(t * INV_PIO2 + 0.5);
  double fn = (double)n;
  double r = t - fn * P1, w = fn * P1T;
  int ex = biased_exponent(t);
  y[0] = r - w;
  if (ex - biased_exponent(y[0]) > 16) { /* second round: good to ~118 bits */
    double u = r;
    w = fn * P2;
    r = u - w;
    w = fn * P2T - ((u - r) - w);
    y[0] = r - w;
    if (ex - biased_exponent(y[0]) > 49) { /* third round: ~151 bits */
      u = r;
      w = fn * P3;
      r = u - w;
      w = fn * P3T - ((u - r) - w);
      y[0] = r - w;
    }
  }
  y[1] = (r - y[0]) - w;
  if (x < 0) {
    y[0] = -y[0], y[1] = -y[1];
    return -n;
  }
  return n;
}

/* |x| <= pi/4 (0x3fe921fb54442d18 is pi/4 rounded down): no reduction. */
static const double PIO4 = 0x1.921fb54442d18p-1;

/* x = n pi/2 + y[0] + y[1] for the kernels: returns 0 when |x| <= pi/4 (no
 * reduction: y[0] = x, y[1] = 0, n = 0), 1 when x was reduced, -1 when x is
 * outside the range (|x| > VS_TRIG_MAX, inf, NaN). */
static int reduce(double x, double y[2], int *n) {
  double a = x < 0 ? -x : x;
  if (a <= PIO4) {
    y[0] = x, y[1] = 0.0, *n = 0;
    return 0;
  }
  if (!(a <= VS_TRIG_MAX)) return -1; /* also NaN */
  *n = reduce_pio2(x, y);
  return 1;
}

/* Outside the range (and for inf and NaN) the result is this one quiet NaN,
 * 0x7ff8000000000000: not x - x, whose bits (the CPU's default NaN) are
 * negative on x86-64 and positive on arm64. */
#define OUT_OF_RANGE ((double)NAN)

double vs_sin(double x) {
  double y[2];
  int n;
  if (reduce(x, y, &n) < 0) return OUT_OF_RANGE;
  switch (n & 3) {
  case 0: return kernel_sin(y[0], y[1]);
  case 1: return kernel_cos(y[0], y[1]);
  case 2: return -kernel_sin(y[0], y[1]);
  default: return -kernel_cos(y[0], y[1]);
  }
}

double vs_cos(double x) {
  double y[2];
  int n;
  if (reduce(x, y, &n) < 0) return OUT_OF_RANGE;
  switch (n & 3) {
  case 0: return kernel_cos(y[0], y[1]);
  case 1: return -kernel_sin(y[0], y[1]);
  case 2: return -kernel_cos(y[0], y[1]);
  default: return kernel_sin(y[0], y[1]);
  }
}

void vs_sincos(double x, double *s, double *c) {
  double y[2];
  int n;
  if (reduce(x, y, &n) < 0) {
    *s = *c = OUT_OF_RANGE;
    return;
  }
  double ks = kernel_sin(y[0], y[1]), kc = kernel_cos(y[0], y[1]);
  switch (n & 3) {
  case 0: *s = ks, *c = kc; break;
  case 1: *s = kc, *c = -ks; break;
  case 2: *s = -ks, *c = -kc; break;
  default: *s = -kc, *c = ks; break;
  }
}

/* 1/k! for the small-angle polynomials, each rounded once. */
static const double T3 = -1.0 / 6.0, T5 = 1.0 / 120.0, T7 = -1.0 / 5040.0, T9 = 1.0 / 362880.0;
static const double T2 = -0.5, T4 = 1.0 / 24.0, T6 = -1.0 / 720.0, T8 = 1.0 / 40320.0;

void vs_sincos_small(double x, double *s, double *c) {
  double ax = x < 0 ? -x : x;
  if (!(ax <= 0.0625)) { /* also NaN */
    vs_sincos(x, s, c);
    return;
  }
  if (ax < 0x1p-27) { /* as the kernels: sin rounds to x (-0 kept), cos to 1 */
    *s = x, *c = 1.0;
    return;
  }
  double z = x * x;
  *s = x + x * (z * (T3 + z * (T5 + z * (T7 + z * T9))));
  *c = 1.0 + z * (T2 + z * (T4 + z * (T6 + z * T8)));
}

/* pi/180 as a double-double: DEG_HI = pi/180 rounded, DEG_LO = pi/180 - DEG_HI
 * rounded (1.7453292519943295769e-02 in all). */
static const double DEG_HI = 0x1.1df46a2529d39p-6, DEG_LO = 0x1.5c1d8becdd291p-62;

void vs_sincos_deg(double deg, double *s, double *c) {
  if (!(deg - deg == 0.0)) { /* inf or NaN */
    *s = *c = OUT_OF_RANGE;
    return;
  }
  /* d = deg - 90 k exactly with |d| <= 45: first modulo 360 (fmod is exact
   * in every C library: its result is always representable, and C11's Annex
   * F requires it exact), then the nearest multiple of 90 (|m| < 360 is a
   * multiple of its own ulp, and so are 90 k and |d| < |m|: exact too). */
  double m = fmod(deg, 360.0);
  double k = 0.0;
  if (m > 45.0) k = m > 135.0 ? (m > 225.0 ? (m > 315.0 ? 4.0 : 3.0) : 2.0) : 1.0;
  else if (m < -45.0) k = m < -135.0 ? (m < -225.0 ? (m < -315.0 ? -4.0 : -3.0) : -2.0) : -1.0;
  double d = m - 90.0 * k;
  int n = ((int)k % 4 + 4) % 4;
  if (d == 0.0) { /* exact: 0, 1, -1, with +0 for the zeros */
    static const double S[4] = {0.0, 1.0, 0.0, -1.0}, C[4] = {1.0, 0.0, -1.0, 0.0};
    *s = S[n], *c = C[n];
    return;
  }
  double hi, lo;
  two_prod(d, DEG_HI, &hi, &lo);
  lo += d * DEG_LO;
  double x = hi + lo, y = lo - (x - hi); /* |hi| >= |lo|: fast two-sum */
  double ks = kernel_sin(x, y), kc = kernel_cos(x, y);
  switch (n) {
  case 0: *s = ks, *c = kc; break;
  case 1: *s = kc, *c = -ks; break;
  case 2: *s = -ks, *c = -kc; break;
  default: *s = -kc, *c = ks; break;
  }
}

/* atan(z) for 0 <= z <= 1 to a few ulp: atan z = 2 atan(z / (1 + sqrt(1 + z^2))) three
 * times (z <= tan(pi/32) < 0.0985), then the series to z^21 (the next term
 * is below 2^-70 of the result). */
static double atan_unit(double z) {
  for (int k = 0; k < 3; k++) z = z / (1.0 + sqrt(1.0 + z * z));
  const double z2 = z * z;
  double s = 0.0;
  for (int k = 10; k >= 1; k--) s = z2 * ((k & 1 ? -1.0 : 1.0) / (2 * k + 1) + s);
  return 8.0 * (z + z * s);
}

double vs_atan2(double y, double x) {
  static const double pi = 0x1.921fb54442d18p+1, pio2 = 0x1.921fb54442d18p+0;
  if (isnan(x) || isnan(y)) return NAN;
  const double ax = fabs(x), ay = fabs(y);
  if (ax == 0.0 && ay == 0.0) return 0.0;
  double a;
  if (isinf(ax) || isinf(ay)) {
    a = isinf(ax) && isinf(ay) ? 0.5 * pio2 : (isinf(ay) ? pio2 : 0.0);
  } else {
    a = ay <= ax ? atan_unit(ay / ax) : pio2 - atan_unit(ax / ay);
    /* one Newton step on ay cos a - ax sin a = 0 (the halvings leave a few
     * ulp): the correction is tiny, so its own rounding does not count */
    double sn, cs;
    vs_sincos(a, &sn, &cs);
    a += (ay * cs - ax * sn) / (ax * cs + ay * sn);
  }
  if (x < 0) a = pi - a;
  return y < 0 ? -a : a;
}
