/* con_angle.c: an angle limit at b (seed 001's "fake angle constraint"):
 * the angle between b->a and b->c is kept in [min, max] by a one-sided link
 * a-c whose bounds follow from the law of cosines on the current arm lengths,
 * L(theta)^2 = |ba|^2 + |bc|^2 - 2 |ba| |bc| cos(theta). */
#include <math.h>

#include "solve/solve.h"
#include "util/detmath.h"

static double bound_length(double ra, double rc, double theta) {
  double l2 = ra * ra + rc * rc - 2.0 * ra * rc * vs_cos(theta);
  return l2 > 0.0 ? sqrt(l2) : 0.0;
}

/* Violation C (negative: too closed, positive: too open) and the bound used. */
static double angle_violation(const vs_model *m, const double *x, int32_t i, double *bound) {
  const int32_t *abc = &m->angle_abc[3 * i];
  const double *a = x + 4 * (size_t)abc[0], *b = x + 4 * (size_t)abc[1], *c = x + 4 * (size_t)abc[2];
  double ra = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  double rc = sqrt((c[0] - b[0]) * (c[0] - b[0]) + (c[1] - b[1]) * (c[1] - b[1]) + (c[2] - b[2]) * (c[2] - b[2]));
  double L = sqrt((a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]) + (a[2] - c[2]) * (a[2] - c[2]));
  *bound = 0.0;
  if (m->angle_min[i] >= 0.0) {
    double lo = bound_length(ra, rc, m->angle_min[i]);
    if (L < lo) return *bound = lo, L - lo;
  }
  if (m->angle_max[i] >= 0.0) {
    double hi = bound_length(ra, rc, m->angle_max[i]);
    if (L > hi) return *bound = hi, L - hi;
  }
  return 0.0;
}

void vs_angle_project(const vs_solve_ctx *c, int32_t i, int32_t id) {
  const vs_model *m = c->m;
  double bound;
  double C = angle_violation(m, c->x, i, &bound);
  if (C == 0.0) return;
  double *pa = c->x + 4 * (size_t)m->angle_abc[3 * i];
  double *pc = c->x + 4 * (size_t)m->angle_abc[3 * i + 2];
  const double wa = pa[3], wc = pc[3], wsum = wa + wc;
  const double dx = pa[0] - pc[0], dy = pa[1] - pc[1], dz = pa[2] - pc[2];
  const double len = sqrt(dx * dx + dy * dy + dz * dz);
  if (wsum == 0.0 || len == 0.0) return;
  double s;
  if (c->xpbd) {
    const double at = m->angle_compl[i] * c->inv_h2;
    double *lam = &c->lambda[id]; /* one slot per constraint: its build-order id */
    const double dl = m->omega * (-C - at * *lam) / (wsum + at);
    *lam += dl;
    s = dl / len;
  } else {
    s = -C * m->angle_stiff[i] * m->omega / (wsum * len);
  }
  pa[0] += wa * s * dx, pa[1] += wa * s * dy, pa[2] += wa * s * dz;
  pc[0] -= wc * s * dx, pc[1] -= wc * s * dy, pc[2] -= wc * s * dz;
}

int vs_angle_error(const vs_model *m, const vs_state *s, int32_t i, double *e, double *rest) {
  double bound;
  *e = fabs(angle_violation(m, s->x, i, &bound));
  /* relative to the current length of the link a-c */
  const double *a = s->x + 4 * (size_t)m->angle_abc[3 * i], *c = s->x + 4 * (size_t)m->angle_abc[3 * i + 2];
  *rest = sqrt((a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]) + (a[2] - c[2]) * (a[2] - c[2]));
  return 1;
}
