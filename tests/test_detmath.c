/* SPDX-License-Identifier: MIT */
/* test_detmath.c: lib/util/detmath.c, vsim's own sine and cosine: accuracy
 * against long double sinl/cosl over dense sweeps, special values, and a
 * table of exact bits that every machine and compiler must reproduce.
 *
 * The sweeps take DETMATH_POINTS points each (default 2^18; the figures in
 * detmath.h come from DETMATH_POINTS=50000000).  They need a long double
 * with more precision than double at run time (x86-64's 80-bit, arm64's
 * 128-bit); under valgrind, which computes x87 arithmetic in double, or where
 * long double is double, the comparisons with sinl are skipped and the bit
 * table alone is checked. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "testutil.h"
#include "util/detmath.h"

/* The bound the sweeps assert (the measured maximum is 0.55 ulp: the final
 * rounding's half ulp, the kernels' approximation error, a little more). */
#define MAX_ULP 0.6

static const long double PI_L = 3.141592653589793238462643383279502884L;

static long points(void) {
  const char *e = getenv("DETMATH_POINTS");
  long n = e ? atol(e) : 0;
  return n > 0 ? n : 1L << 18;
}

/* Whether long double carries at least 10 more bits than double here. */
static int have_long_double(void) {
  volatile long double one = 1.0L, tiny = 0x1p-63L;
  return LDBL_MANT_DIG >= DBL_MANT_DIG + 10 && one + tiny != one;
}

/* |got - ref| in units in the last place of ref as a double. */
static long double ulp_err(double got, long double ref) {
  if (ref == 0) return got == 0 ? 0 : INFINITY;
  int e = ilogbl(ref);
  if (e < DBL_MIN_EXP - 1) e = DBL_MIN_EXP - 1; /* subnormal results: a fixed ulp */
  return fabsl((long double)got - ref) / ldexpl(1.0L, e - (DBL_MANT_DIG - 1));
}

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* A fixed xorshift64 stream: the same points on every machine. */
static uint64_t rng_state;
static double uniform(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * 0x1p-53;
}

typedef struct {
  long double sin, cos;
  double sin_at, cos_at;
  long n;
} worst;

static void measure(worst *w, double x) {
  double s, c;
  vs_sincos(x, &s, &c);
  /* one reduction or two: the same bits */
  ck_assert_msg(bits(s) == bits(vs_sin(x)) && bits(c) == bits(vs_cos(x)), "vs_sincos(%a) differs", x);
  long double es = ulp_err(s, sinl(x)), ec = ulp_err(c, cosl(x));
  if (es > w->sin) w->sin = es, w->sin_at = x;
  if (ec > w->cos) w->cos = ec, w->cos_at = x;
  w->n++;
}

static void report(const worst *w, const char *what) {
  printf("detmath: %s, %ld points: sin max %.4Lf ulp (at %a), cos max %.4Lf ulp (at %a)\n", what, w->n,
         w->sin, w->sin_at, w->cos, w->cos_at);
  ck_assert_msg(w->sin <= MAX_ULP, "%s: sin off by %.4Lf ulp at %a", what, w->sin, w->sin_at);
  ck_assert_msg(w->cos <= MAX_ULP, "%s: cos off by %.4Lf ulp at %a", what, w->cos, w->cos_at);
}

#define NEED_LONG_DOUBLE()                                                              \
  do {                                                                                  \
    if (!have_long_double()) {                                                          \
      printf("detmath: no long double wider than double here: accuracy not measured\n"); \
      return;                                                                           \
    }                                                                                   \
  } while (0)

/* The kernels alone: [-pi/4, pi/4], evenly spaced. */
START_TEST(accurate_without_reduction) {
  NEED_LONG_DOUBLE();
  long n = points();
  worst w = {0};
  const double a = 0x1.921fb54442d18p-1;
  for (long i = 0; i <= n; i++) measure(&w, -a + 2 * a * (double)i / (double)n);
  report(&w, "[-pi/4, pi/4] evenly");
}
END_TEST

/* A few turns, evenly spaced: every quadrant, small n. */
START_TEST(accurate_over_a_few_turns) {
  NEED_LONG_DOUBLE();
  long n = points();
  worst w = {0};
  for (long i = 0; i <= n; i++) measure(&w, -20.0 + 40.0 * (double)i / (double)n);
  report(&w, "[-20, 20] evenly");
}
END_TEST

/* The whole range: uniform in [-VS_TRIG_MAX, VS_TRIG_MAX], and uniform in
 * the exponent from 2^-30 to VS_TRIG_MAX (each binade as often). */
START_TEST(accurate_over_the_whole_range) {
  NEED_LONG_DOUBLE();
  long n = points();
  worst w = {0};
  rng_state = 0x9e3779b97f4a7c15u;
  for (long i = 0; i < n; i++) measure(&w, (2 * uniform() - 1) * VS_TRIG_MAX);
  report(&w, "[-VS_TRIG_MAX, VS_TRIG_MAX] uniformly");
  worst v = {0};
  const double top = log2(VS_TRIG_MAX);
  for (long i = 0; i < n; i++) {
    double x = exp2(-30.0 + (top + 30.0) * uniform());
    measure(&v, i & 1 ? -x : x);
  }
  report(&v, "2^-30 <= |x| <= VS_TRIG_MAX, log-uniformly");
}
END_TEST

/* Where the reduction cancels most: the doubles nearest k pi/2 (and their
 * neighbours), whose sine or cosine is tiny. */
START_TEST(accurate_near_multiples_of_half_pi) {
  NEED_LONG_DOUBLE();
  worst w = {0};
  long n = points(), step = (1L << 20) / (n / 5 > 0 ? n / 5 : 1);
  if (step < 1) step = 1;
  for (long k = 1; k <= 1L << 20; k += k < 4096 ? 1 : step) {
    double x0 = (double)((long double)k * (PI_L / 2));
    double x = nextafter(nextafter(x0, 0), 0);
    for (int d = 0; d < 5; d++, x = nextafter(x, INFINITY))
      if (x <= VS_TRIG_MAX) measure(&w, x);
  }
  report(&w, "near k pi/2, k <= 2^20");
}
END_TEST

/* Degrees: sinl of the same exact reduction (to d in [-45, 45] and a
 * quadrant) in long double. */
static void ref_deg(double deg, long double *s, long double *c) {
  long double m = fmodl(deg, 360.0L);
  long double k = nearbyintl(m / 90.0L), d = m - 90.0L * k;
  long double x = d * (PI_L / 180.0L), ss = sinl(x), cc = cosl(x);
  switch ((((long)k % 4) + 4) % 4) {
  case 0: *s = ss, *c = cc; break;
  case 1: *s = cc, *c = -ss; break;
  case 2: *s = -ss, *c = -cc; break;
  default: *s = -cc, *c = ss; break;
  }
}

START_TEST(degrees_accurate_for_any_angle) {
  NEED_LONG_DOUBLE();
  long n = points();
  worst w = {0};
  rng_state = 0x243f6a8885a308d3u;
  for (long i = 0; i <= 2 * n; i++) {
    /* half evenly over two turns each way, half log-uniform up to 1e300 */
    double deg = i <= n ? -720.0 + 1440.0 * (double)i / (double)n : exp2(-20.0 + 1016.0 * uniform());
    double s, c;
    long double rs, rc;
    vs_sincos_deg(deg, &s, &c);
    ref_deg(deg, &rs, &rc);
    long double es = ulp_err(s, rs), ec = ulp_err(c, rc);
    if (es > w.sin) w.sin = es, w.sin_at = deg;
    if (ec > w.cos) w.cos = ec, w.cos_at = deg;
    w.n++;
  }
  report(&w, "degrees, [-720, 720] evenly and up to 1e300");
}
END_TEST

START_TEST(degrees_exact_at_multiples_of_90) {
  for (int k = -12; k <= 12; k++) {
    double s, c;
    vs_sincos_deg(90.0 * k, &s, &c);
    static const double S[4] = {0.0, 1.0, 0.0, -1.0}, C[4] = {1.0, 0.0, -1.0, 0.0};
    int q = ((k % 4) + 4) % 4;
    ck_assert_msg(bits(s) == bits(S[q]) && bits(c) == bits(C[q]), "%d degrees: %a %a", 90 * k, s, c);
  }
  double s, c;
  vs_sincos_deg(-0.0, &s, &c); /* +0, like every exact zero */
  ck_assert_uint_eq(bits(s), bits(0.0));
  ck_assert_uint_eq(bits(c), bits(1.0));
  vs_sincos_deg(1e300, &s, &c); /* 1e300 as a double is a multiple of 360 */
  ck_assert_uint_eq(bits(s), bits(0.0));
  ck_assert_uint_eq(bits(c), bits(1.0));
  vs_sincos_deg(INFINITY, &s, &c);
  ck_assert(isnan(s) && isnan(c));
  vs_sincos_deg(NAN, &s, &c);
  ck_assert(isnan(s) && isnan(c));
}
END_TEST

START_TEST(special_values) {
  /* zeros keep their sign; cos is 1 */
  ck_assert_uint_eq(bits(vs_sin(0.0)), bits(0.0));
  ck_assert_uint_eq(bits(vs_sin(-0.0)), bits(-0.0));
  ck_assert_uint_eq(bits(vs_cos(0.0)), bits(1.0));
  ck_assert_uint_eq(bits(vs_cos(-0.0)), bits(1.0));
  double s, c;
  vs_sincos(-0.0, &s, &c);
  ck_assert_uint_eq(bits(s), bits(-0.0));
  ck_assert_uint_eq(bits(c), bits(1.0));
  /* tiny: sin x = x, cos x = 1 (subnormals too) */
  const double tiny[] = {0x1p-1074, 0x1p-1022, 1e-300, 1e-100, 0x1p-30, 1e-9};
  for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++) {
    ck_assert_msg(vs_sin(tiny[i]) == tiny[i] && vs_sin(-tiny[i]) == -tiny[i], "sin(%a)", tiny[i]);
    ck_assert_msg(vs_cos(tiny[i]) == 1.0, "cos(%a) = %a", tiny[i], vs_cos(tiny[i]));
  }
  /* odd and even, bit for bit */
  rng_state = 0x3c6ef372fe94f82bu;
  for (int i = 0; i < 100000; i++) {
    double x = exp2(-40.0 + 60.0 * uniform());
    if (x > VS_TRIG_MAX) continue;
    ck_assert_msg(bits(vs_sin(-x)) == bits(-vs_sin(x)), "sin(-%a)", x);
    ck_assert_msg(bits(vs_cos(-x)) == bits(vs_cos(x)), "cos(-%a)", x);
  }
  /* the largest argument still reduces; the next one up, huge ones, inf and
   * NaN give the one quiet NaN 0x7ff8000000000000 */
  ck_assert(isfinite(vs_sin(VS_TRIG_MAX)) && isfinite(vs_cos(-VS_TRIG_MAX)));
  const double out[] = {nextafter(VS_TRIG_MAX, INFINITY), -2e6, 1e300, -DBL_MAX, INFINITY, -INFINITY, NAN, -NAN};
  for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
    vs_sincos(out[i], &s, &c);
    ck_assert_msg(bits(vs_sin(out[i])) == 0x7ff8000000000000u, "sin(%a) = %a", out[i], vs_sin(out[i]));
    ck_assert_msg(bits(vs_cos(out[i])) == 0x7ff8000000000000u, "cos(%a) = %a", out[i], vs_cos(out[i]));
    ck_assert(bits(s) == 0x7ff8000000000000u && bits(c) == 0x7ff8000000000000u);
  }
  /* exact values the kernels give */
  ck_assert(vs_sin(0x1.921fb54442d18p+0) == 1.0); /* pi/2 rounded */
  ck_assert(vs_cos(0x1.921fb54442d18p+1) == -1.0);
}
END_TEST

/* sin^2 + cos^2 = 1 within a few rounding errors of the sum. */
START_TEST(pythagoras) {
  long n = points();
  double worst_dev = 0, at = 0;
  rng_state = 0xbb67ae8584caa73bu;
  for (long i = 0; i < n; i++) {
    double x = (2 * uniform() - 1) * (i & 1 ? 10.0 : VS_TRIG_MAX), s, c;
    vs_sincos(x, &s, &c);
    double dev = fabs(s * s + c * c - 1.0);
    if (dev > worst_dev) worst_dev = dev, at = x;
  }
  printf("detmath: |sin^2 + cos^2 - 1| <= %a (%.2f eps) over %ld points\n", worst_dev, worst_dev / DBL_EPSILON, n);
  ck_assert_msg(worst_dev <= 1.5 * DBL_EPSILON, "sin^2 + cos^2 - 1 = %a at %a", worst_dev, at);
}
END_TEST

/* The bits themselves: generated once by this implementation (and each within
 * 1 ulp of sinl/cosl, checked below), so that any machine, compiler or flag
 * that rounds differently fails here. */
#define SWEEP_HASH 0xa36334c585955ba6u

static const double TABLE[][3] = {
    /* x, vs_sin(x), vs_cos(x) */
    {0x1p-20, 0x1.ffffffffffaabp-21, 0x1.ffffffffffp-1},
    {0x1.999999999999ap-4, 0x1.98eaecb8bcb2cp-4, 0x1.fd712f9a817c1p-1},
    {0x1.999999999999ap-3, 0x1.96dff233dd2bcp-3, 0x1.f5cb49577627ap-1},
    {0x1.3333333333333p-2, 0x1.2e9cd95baba33p-2, 0x1.e921dd42f09bap-1},
    {0x1p-1, 0x1.eaee8744b05fp-2, 0x1.c1528065b7d5p-1},
    {0x1.3333333333333p-1, 0x1.2118d17a54159p-1, 0x1.a69263c485b15p-1},
    {0x1.6666666666666p-1, 0x1.49d6e694619b8p-1, 0x1.87996529f9d93p-1},
    {0x1.921fb54442d18p-1, 0x1.6a09e667f3bccp-1, 0x1.6a09e667f3bcdp-1},
    {0x1.999999999999ap-1, 0x1.6f494c2bffecdp-1, 0x1.64b6bde719865p-1},
    {0x1.ccccccccccccdp-1, 0x1.91103985da841p-1, 0x1.3e43a9692e21cp-1},
    {0x1p+0, 0x1.aed548f090ceep-1, 0x1.14a280fb5068cp-1},
    {0x1.3333333333333p+0, 0x1.dd343a21a55c4p-1, 0x1.730de943b79d4p-2},
    {0x1.4cccccccccccdp+0, 0x1.ed577f9c51e4bp-1, 0x1.11eb3682a4c5fp-2},
    {0x1.921fb54442d18p+0, 0x1p+0, 0x1.1a62633145c07p-54},
    {0x1.999999999999ap+0, 0x1.ffc81c7e042c5p-1, -0x1.de67ac55f1633p-6},
    {0x1p+1, 0x1.d18f6ead1b446p-1, -0x1.aa22657537205p-2},
    {0x1.4p+1, 0x1.326af0dcfcabp-1, -0x1.9a2f7ef858b7dp-1},
    {0x1.8p+1, 0x1.210386db6d55bp-3, -0x1.fae04be85e5d2p-1},
    {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53, -0x1p+0},
    {0x1.cp+1, -0x1.6733b7eba621fp-2, -0x1.df77403c11a5fp-1},
    {0x1p+2, -0x1.837b9dddc1eaep-1, -0x1.4eaa606db24c1p-1},
    {0x1.4p+2, -0x1.eaf81f5e09933p-1, 0x1.22785706b4ad9p-2},
    {0x1.8p+2, -0x1.1e1f18ab0a2cp-2, 0x1.eb9b7097822f5p-1},
    {0x1.921fb54442d18p+2, -0x1.1a62633145c07p-52, 0x1p+0},
    {0x1.cp+2, 0x1.50608c26d0a08p-1, 0x1.81ff79ed92017p-1},
    {0x1.4p+3, -0x1.1689ef5f34f52p-1, -0x1.ad9ac890c6b1fp-1},
    {0x1.9p+3, -0x1.0fa78cc21cfbbp-4, 0x1.fedf6a8227774p-1},
    {0x1.6p+4, -0x1.220a29f6eb9f4p-7, -0x1.fffadd8d4acdap-1},
    {0x1.0a66666666666p+5, 0x1.e7148f79ab16dp-1, -0x1.3b92fe29aaf21p-2},
    {0x1.9p+6, -0x1.03425b78c4db8p-1, 0x1.b981dbf665fdfp-1},
    {0x1.63p+8, -0x1.f9bd0307d1de3p-16, -0x1.fffffffc18e4cp-1},
    {0x1.63p+9, 0x1.f9bd0303f6fafp-15, 0x1.fffffff06393p-1},
    {0x1.f44p+9, 0x1.fd948c50a7a0dp-1, 0x1.8dbff75eb664fp-4},
    {0x1.81cd6c8b43958p+13, -0x1.687d5890974a5p-1, 0x1.6b94c3bbe24b8p-1},
    {0x1.86ap+16, 0x1.24daa9c527e96p-5, -0x1.ffac3841b3da7p-1},
    {0x1.e240c9fbe76c9p+16, -0x1.ff50e60ab53f9p-1, 0x1.a74d27c41b22ap-5},
    {0x1.e848p+19, -0x1.6664b2568d867p-2, 0x1.df9df9906d32cp-1},
    {0x1.921fb54442d18p+19, -0x1.1a62633145c07p-35, 0x1p+0},
    {0x1.921fb54442d18p+20, -0x1.1a62633145c07p-34, 0x1p+0},
    {-0x1.999999999999ap-2, -0x1.8ec3ae92b676bp-2, 0x1.d7954e7dba2f8p-1},
    {-0x1.6p+1, -0x1.86d2239c183fbp-2, -0x1.d93e294faed14p-1},
    {-0x1.f4p+9, -0x1.a75cc150a206bp-1, 0x1.1ff026793f1bbp-1},
};

static const double TABLE_DEG[][3] = {
    /* degrees, sin, cos (vs_sincos_deg) */
    {0x1p+0, 0x1.1df0b2b89dd1ep-6, 0x1.ffec097f5af8ap-1},
    {0x1.ep+3, 0x1.0907dc193069p-2, 0x1.ee8dd4748bf15p-1},
    {0x1.ep+4, 0x1p-1, 0x1.bb67ae8584caap-1},
    {0x1.68p+5, 0x1.6a09e667f3bcdp-1, 0x1.6a09e667f3bcdp-1},
    {0x1.ep+5, 0x1.bb67ae8584caap-1, 0x1p-1},
    {0x1.64p+6, 0x1.ffec097f5af8ap-1, 0x1.1df0b2b89dd1ep-6},
    {0x1.ep+6, 0x1.bb67ae8584caap-1, -0x1p-1},
    {0x1.0fp+7, 0x1.66dd943f43372p-1, -0x1.6d2f29b1f2f46p-1},
    {-0x1.ep+4, -0x1p-1, 0x1.bb67ae8584caap-1},
    {-0x1.9p+7, 0x1.5e3a8748a0bf5p-2, -0x1.e11f642522d1cp-1},
    {0x1.67p+8, -0x1.1df0b2b89dd1ep-6, 0x1.ffec097f5af8ap-1},
    {0x1.682p+9, 0x1.1df42eae296e2p-8, 0x1.fffec0960384ep-1},
    {0x1.dcd65004p+29, -0x1.f76d2fef3cc4bp-1, 0x1.7537e63143e2fp-3},
};

START_TEST(bits_are_pinned) {
  int check_ref = have_long_double();
  for (size_t i = 0; i < sizeof TABLE / sizeof *TABLE; i++) {
    double x = TABLE[i][0], s, c;
    ck_assert_msg(bits(vs_sin(x)) == bits(TABLE[i][1]), "sin(%a) = %a, table %a", x, vs_sin(x), TABLE[i][1]);
    ck_assert_msg(bits(vs_cos(x)) == bits(TABLE[i][2]), "cos(%a) = %a, table %a", x, vs_cos(x), TABLE[i][2]);
    vs_sincos(x, &s, &c);
    ck_assert(bits(s) == bits(TABLE[i][1]) && bits(c) == bits(TABLE[i][2]));
    if (check_ref) {
      ck_assert_msg(ulp_err(TABLE[i][1], sinl(x)) < 1, "table sin(%a) = %a vs sinl %La", x, TABLE[i][1], sinl(x));
      ck_assert_msg(ulp_err(TABLE[i][2], cosl(x)) < 1, "table cos(%a) = %a vs cosl %La", x, TABLE[i][2], cosl(x));
    }
  }
  for (size_t i = 0; i < sizeof TABLE_DEG / sizeof *TABLE_DEG; i++) {
    double d = TABLE_DEG[i][0], s, c;
    long double rs, rc;
    vs_sincos_deg(d, &s, &c);
    ck_assert_msg(bits(s) == bits(TABLE_DEG[i][1]) && bits(c) == bits(TABLE_DEG[i][2]),
                  "sincos_deg(%a) = %a %a, table %a %a", d, s, c, TABLE_DEG[i][1], TABLE_DEG[i][2]);
    if (check_ref) {
      ref_deg(d, &rs, &rc);
      ck_assert_msg(ulp_err(s, rs) < 1 && ulp_err(c, rc) < 1, "table sincos_deg(%a)", d);
    }
  }
}
END_TEST

/* Beyond the table: a hash of every bit of 3 x 2^16 results over the whole
 * range (the arguments from integer arithmetic alone, the same everywhere),
 * so that a change in any last bit anywhere fails here.  The expected value
 * comes from this implementation; it changes only with detmath.c itself, and
 * then the golden files change too. */
START_TEST(bits_of_a_sweep_are_pinned) {
  uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
  rng_state = 0x510e527fade682d1u;
  for (int i = 0; i < 1 << 16; i++) {
    double u = uniform(), x, s, c, r[5];
    x = (2 * u - 1) * (i % 4 == 0 ? VS_TRIG_MAX : i % 4 == 1 ? 1000.0 : i % 4 == 2 ? 10.0 : 0.8);
    vs_sincos(x, &s, &c);
    r[0] = s, r[1] = c;
    vs_sincos_deg(x * 360.0, &s, &c);
    r[2] = s, r[3] = c;
    r[4] = vs_sin(x * 0x1p-20);
    for (int k = 0; k < 5; k++)
      for (int b = 0; b < 64; b += 8) h = (h ^ ((bits(r[k]) >> b) & 0xff)) * 0x100000001b3u;
  }
  ck_assert_msg(h == SWEEP_HASH, "hash of the sweep's bits: 0x%016llx, expected 0x%016llx",
                (unsigned long long)h, (unsigned long long)SWEEP_HASH);
}
END_TEST

/* vs_sincos_small: on [-1/16, 1/16] its own polynomial, within MAX_ULP of
 * sinl/cosl (evenly spaced, and log-spaced down to the tiny arguments);
 * odd and even bit for bit; -0 kept; above 1/16, inf and NaN exactly
 * vs_sincos; its bits pinned by a hash over a fixed sweep of 2^16
 * arguments (whatever DETMATH_POINTS says, so that arm64 under qemu checks
 * the same bits with a short accuracy sweep). */
#define SMALL_HASH 0xd8bdc8e258f774bcu

static double small_arg(long i, long n) {
  if (i <= n) return -0.0625 + 0.125 * (double)i / (double)n; /* evenly */
  /* log-spaced down to 2^-40 (ldexp is exact everywhere; the three draws
   * in sequence, so that every compiler makes the same arguments) */
  double sign = uniform() < 0.5 ? -1 : 1, mant = 1.0 + uniform();
  int e = -40 + (int)(36.0 * uniform());
  return sign * ldexp(mant, e);
}

START_TEST(small_angles) {
  double s, c, rs, rc;
  vs_sincos_small(-0.0, &s, &c);
  ck_assert(bits(s) == bits(-0.0) && bits(c) == bits(1.0));
  const double big[] = {nextafter(0.0625, 1.0), -0.07, 0.5, -3.0, 1e5, INFINITY, NAN};
  for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
    vs_sincos_small(big[i], &s, &c);
    vs_sincos(big[i], &rs, &rc);
    ck_assert_msg(bits(s) == bits(rs) && bits(c) == bits(rc), "small(%a) is not vs_sincos", big[i]);
  }
  uint64_t h = 0xcbf29ce484222325u;
  const long nh = 1L << 17;
  rng_state = 0x9b05688c2b3e6c1fu;
  for (long i = 0; i <= 2 * nh; i++) {
    vs_sincos_small(small_arg(i, nh), &s, &c);
    for (int b = 0; b < 64; b += 8) h = (h ^ ((bits(s) >> b) & 0xff)) * 0x100000001b3u;
    for (int b = 0; b < 64; b += 8) h = (h ^ ((bits(c) >> b) & 0xff)) * 0x100000001b3u;
  }
  ck_assert_msg(h == SMALL_HASH, "hash of the small angles' bits: 0x%016llx, expected 0x%016llx",
                (unsigned long long)h, (unsigned long long)SMALL_HASH);
  long double ws = 0, wc = 0;
  double ws_at = 0, wc_at = 0;
  int check_ref = have_long_double();
  long n = points() / 2;
  rng_state = 0x6a09e667f3bcc909u;
  for (long i = 0; i <= 2 * n; i++) {
    double x = small_arg(i, n);
    vs_sincos_small(x, &s, &c);
    vs_sincos_small(-x, &rs, &rc);
    ck_assert_msg(bits(rs) == bits(-s) && bits(rc) == bits(c), "small(-%a) is not odd/even", x);
    if (check_ref) {
      long double es = ulp_err(s, sinl(x)), ec = ulp_err(c, cosl(x));
      if (es > ws) ws = es, ws_at = x;
      if (ec > wc) wc = ec, wc_at = x;
    }
  }
  if (check_ref) {
    printf("detmath: small angles, %ld points: sin max %.4Lf ulp (at %a), cos max %.4Lf ulp (at %a)\n",
           2 * n + 1, ws, ws_at, wc, wc_at);
    ck_assert_msg(ws <= MAX_ULP && wc <= MAX_ULP, "small: sin %.4Lf ulp at %a, cos %.4Lf at %a", ws, ws_at,
                  wc, wc_at);
  }
}
END_TEST
static Suite *suite(void) {
  Suite *s = suite_create("detmath");
  TCase *t = tcase_create("detmath");
  tcase_set_timeout(t, 120); /* the sweeps: 0.2 s each in the release build, 2 s under ASan */
  tcase_add_test(t, bits_are_pinned);
  tcase_add_test(t, bits_of_a_sweep_are_pinned);
  tcase_add_test(t, special_values);
  tcase_add_test(t, small_angles);
  tcase_add_test(t, pythagoras);
  tcase_add_test(t, degrees_exact_at_multiples_of_90);
  tcase_add_test(t, accurate_without_reduction);
  tcase_add_test(t, accurate_over_a_few_turns);
  tcase_add_test(t, accurate_over_the_whole_range);
  tcase_add_test(t, accurate_near_multiples_of_half_pi);
  tcase_add_test(t, degrees_accurate_for_any_angle);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(suite());
}
