/* SPDX-License-Identifier: MIT */
/* detmath.h (private): vsim's own sine and cosine, the same bits on every
 * machine.
 *
 * The C library's sin and cos are not: glibc picks its code at load time from
 * what the CPU has (FMA or not), and other C libraries (musl, macOS, arm64
 * builds) round differently again, so a result that passed through libm's
 * last bit would differ between machines.  These use nothing but IEEE
 * + - * / (exactly rounded everywhere, with contraction off: see detmath.c),
 * so the same source gives the same bits with gcc or clang, on any x86-64 or
 * arm64, with any C library.  Every transcendental call whose result can
 * reach the simulation or a result file goes through them.
 *
 * Accuracy (tests/test_detmath.c measures it against long double sinl/cosl
 * and asserts 0.6 ulp):
 *   vs_sin, vs_cos, vs_sincos   at most 0.55 ulp measured, |x| <= VS_TRIG_MAX;
 *   vs_sincos_deg               the same for every finite angle in degrees,
 *                               exact at multiples of 90.
 * Range: radians are reduced by Cody-Waite with pi/2 in three 33-bit parts and
 * their tails (fdlibm's medium-size reduction, good to about 150 bits, more
 * than the worst cancellation in this range needs).  Beyond VS_TRIG_MAX
 * (2^20 pi/2, about 1.65e6 rad: no angle vsim computes comes near it) the
 * result is NaN (0x7ff8000000000000, the same bits everywhere), as for
 * infinities and NaN, rather than a wrong number.
 * sin(-0) is -0; results are odd/even exactly (vs_sin(-x) == -vs_sin(x)). */
#ifndef VSIM_UTIL_DETMATH_H
#define VSIM_UTIL_DETMATH_H

#include "util/private.h"

/* The largest |x| in radians that vs_sin, vs_cos and vs_sincos reduce:
 * 2^20 * pi/2 = 1647099.3291652855 (rounded down to a double). */
#define VS_TRIG_MAX 0x1.921fb54442d18p+20

VS_PRIVATE double vs_sin(double x);
VS_PRIVATE double vs_cos(double x);
/* Both at once (one argument reduction): *s = vs_sin(x), *c = vs_cos(x), bit
 * for bit. */
VS_PRIVATE void vs_sincos(double x, double *s, double *c);
/* The same for the small angles of a substep's rotation, faster: for
 * |x| <= 1/16 a plain polynomial (Taylor to x^9 and x^8: the next terms are
 * below 2^-60 of the result), whose roundings stay below the result's half
 * ulp plus 0.01 ulp (x^2/6 <= 1/1536 of the result, so rounding x^2 and the
 * higher terms hardly reaches the last bit): 0.502 ulp measured
 * (test_detmath), not always vs_sincos's bits.  Larger |x| is vs_sincos.  The
 * free rotation and vs_quat_integrate turn by it (solve/rigid/rigid_step.c,
 * util/quat.c): a body's rotation in a substep is almost always below
 * 1/8 rad, and the substeps call it five times per body. */
VS_PRIVATE void vs_sincos_small(double x, double *s, double *c);
/* sin and cos of an angle in degrees: reduced exactly modulo 90 (so any
 * finite angle, and exactly 0, 1 or -1 at multiples of 90, +0 for the zeros),
 * then converted to radians in double-double precision; NaN for inf and NaN. */
VS_PRIVATE void vs_sincos_deg(double deg, double *s, double *c);
/* atan2(y, x) in (-pi, pi], from + - * / and sqrt only (three halvings of
 * the angle, then the alternating series): within a few ulp of the exact
 * value, the same bits everywhere; 0 for (0, 0).  The slerp of kinematic
 * rotation keys and their angular velocity use it (model/rigid_motion.c). */
VS_PRIVATE double vs_atan2(double y, double x);

#endif
