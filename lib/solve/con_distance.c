/* SPDX-License-Identifier: MIT */
/* con_distance.c: the distance constraint C = |xa - xb| - rest (docs/physics.md, distance).
 *
 * PBD (Müller et al. 2007, eq. 9-10): dx_a = -w_a / (w_a + w_b) C n, scaled by
 * stiffness.  XPBD (Macklin et al. 2016, eq. 18): dlambda = (-C - at lambda) /
 * (w_a + w_b + at), at = compliance / h^2, dx_a = w_a dlambda n.  omega scales
 * every correction.  One-sided links act only when violated. */
#include <math.h>

#include "solve/solve.h"

static inline __attribute__((always_inline)) void project(const vs_solve_ctx *c, const vs_model *m, int32_t i,
                                                           int32_t id) {
  if (!c->alive[i]) return;
  double *pa = c->x + 4 * (size_t)m->dist_ab[2 * i];
  double *pb = c->x + 4 * (size_t)m->dist_ab[2 * i + 1];
  const double wa = pa[3], wb = pb[3], wsum = wa + wb;
  if (wsum == 0.0) return;
  const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
  const double rest = m->dist_rest[i], d2 = dx * dx + dy * dy + dz * dz;
  double len, C;
  if (m->sqrt_approximation && rest > 0.0) {
    /* Jakobsen §3: sqrt(d.d) ~ (d.d + r^2) / 2r, first order about the rest
     * length; no square root, exact at rest, and the relaxation converges to
     * the exact lengths. */
    len = (d2 + rest * rest) / (2.0 * rest);
  } else {
    len = sqrt(d2);
  }
  if (len == 0.0) return; /* direction undefined: leave it to the neighbours */
  C = len - rest;
  const uint8_t side = m->dist_side[i];
  if ((side == VS_SIDE_MIN && C >= 0.0) || (side == VS_SIDE_MAX && C <= 0.0)) return;
  double s; /* correction along d / len, per unit inverse mass, divided by len */
  if (c->xpbd) {
    const double at = m->dist_compl[i] * c->inv_h2;
    double *lam = &c->lambda[id]; /* one slot per constraint: its build-order id */
    const double dl = m->omega * (-C - at * *lam) / (wsum + at);
    *lam += dl;
    s = dl / len;
  } else {
    s = -C * m->priv->dist_kw[i] / len; /* kw = stiffness * omega / (w_a + w_b) */
  }
  pa[0] += wa * s * dx, pa[1] += wa * s * dy, pa[2] += wa * s * dz;
  pb[0] -= wb * s * dx, pb[1] -= wb * s * dy, pb[2] -= wb * s * dz;
}

void vs_distance_project(const vs_solve_ctx *c, int32_t i, int32_t id) { project(c, c->m, i, id); }

/* The Gauss-Seidel sweep's loop: the arithmetic of project() exactly, on
 * the links as the model's gs_link_* arrays stream them, with the arrays and
 * flags in registers (xpbd, approx and tear are constants of each instance;
 * without tearable links every link stays alive, so tear = 0 skips that
 * test). */
static inline __attribute__((always_inline)) void project_ordered(const vs_solve_ctx *c, const int32_t *ids,
                                                                  int32_t r0, int32_t count, const int xpbd,
                                                                  const int approx, const int tear) {
  const vs_model *m = c->m;
  double *restrict const x = c->x;
  double *restrict const lambda = c->lambda;
  const uint8_t *restrict const alive = c->alive;
  const int32_t *restrict const ab = m->priv->gs_link_ab + 2 * (size_t)r0;
  const int32_t *restrict const index = m->priv->gs_link_index + r0;
  const double *restrict const rest_of = m->priv->gs_link_rest + r0, *restrict const kw_of = m->priv->gs_link_kw + r0;
  const uint8_t *restrict const side_of = m->priv->gs_link_side + r0;
  const double *restrict const compl_of = m->dist_compl;
  const double omega = m->omega, inv_h2 = c->inv_h2;
  for (int32_t j = 0; j < count; j++) {
    if (tear && !alive[index[j]]) continue;
    double *pa = x + 4 * (size_t)ab[2 * j];
    double *pb = x + 4 * (size_t)ab[2 * j + 1];
    const double wa = pa[3], wb = pb[3], wsum = wa + wb;
    if (wsum == 0.0) continue;
    const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
    const double rest = rest_of[j], d2 = dx * dx + dy * dy + dz * dz;
    const double len = approx && rest > 0.0 ? (d2 + rest * rest) / (2.0 * rest) : sqrt(d2);
    if (len == 0.0) continue;
    const double C = len - rest;
    const uint8_t side = side_of[j];
    if (side != VS_SIDE_EQUAL && ((side == VS_SIDE_MIN && C >= 0.0) || (side == VS_SIDE_MAX && C <= 0.0)))
      continue;
    double s;
    if (xpbd) {
      const double at = compl_of[index[j]] * inv_h2;
      double *lam = &lambda[ids[j]];
      const double dl = omega * (-C - at * *lam) / (wsum + at);
      *lam += dl;
      s = dl / len;
    } else {
      s = -C * kw_of[j] / len;
    }
    pa[0] += wa * s * dx, pa[1] += wa * s * dy, pa[2] += wa * s * dz;
    pb[0] -= wb * s * dx, pb[1] -= wb * s * dy, pb[2] -= wb * s * dz;
  }
}

void vs_distance_project_order(const vs_solve_ctx *c, const int32_t *ids, int32_t r0, int32_t count) {
  const int approx = c->m->sqrt_approximation != 0, tear = c->m->n_tearable > 0;
  if (approx) { /* rare: one instance, every test made */
    project_ordered(c, ids, r0, count, c->xpbd, 1, 1);
  } else if (c->xpbd) {
    if (tear) project_ordered(c, ids, r0, count, 1, 0, 1);
    else project_ordered(c, ids, r0, count, 1, 0, 0);
  } else {
    if (tear) project_ordered(c, ids, r0, count, 0, 0, 1);
    else project_ordered(c, ids, r0, count, 0, 0, 0);
  }
}

int vs_distance_error(const vs_model *m, const vs_state *s, int32_t i, double *e, double *rest) {
  if (!s->alive[i]) return 0; /* torn */
  const double *pa = s->x + 4 * (size_t)m->dist_ab[2 * i];
  const double *pb = s->x + 4 * (size_t)m->dist_ab[2 * i + 1];
  const double dx = pa[0] - pb[0], dy = pa[1] - pb[1], dz = pa[2] - pb[2];
  const double C = sqrt(dx * dx + dy * dy + dz * dz) - m->dist_rest[i];
  *rest = m->dist_rest[i];
  switch (m->dist_side[i]) {
    case VS_SIDE_MIN: *e = C < 0.0 ? -C : 0.0; break;
    case VS_SIDE_MAX: *e = C > 0.0 ? C : 0.0; break;
    default: *e = fabs(C); break;
  }
  return 1;
}
