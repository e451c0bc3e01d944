/* SPDX-License-Identifier: MIT */
/* aero.c: the air (docs/physics.md, "Air"): wind, the pressure drag and lift
 * of cloth and mesh triangles, and air drag per unit mass on particles and
 * rigid bodies.
 *
 * The particle step's predict (step.c) calls vs_aero_begin before it and
 * vs_aero_end after it, once a step, only when the model has air
 * (model.aero), so a scene without it runs exactly the code it ran before.
 *
 *   begin  the wind u_w at the step's start time; from the positions and
 *          velocities at the step's start (pbd, xpbd: v; verlet: its own
 *          (x - x_prev) / h), each triangle's force
 *            F = ½ ρ A (C_d |u·n| (u·n) n + C_l (u·n / |u|) (|u|² n - (u·n) u)),
 *          u = u_w - (v_a + v_b + v_c) / 3, split equally over its three
 *          particles, as accelerations a = F w / 3; and each particle's air
 *          drag denominator 1 + h (k1 + k2 |v - u_w|)
 *   end    after gravity and damping: v += h a, then v = u_w + (v - u_w) /
 *          denominator (air drag linearly implicit: stable for any k h, and
 *          a falling particle's discrete terminal speed is the exact one,
 *          g / k1 or sqrt(g / k2)); positions from the new velocities as
 *          the prediction made them (verlet: its displacement, times h)
 *
 * One thread, triangles and particles in index order: the same bits on any
 * --threads count and relaxation. */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"
#include "solve/solve.h"

/* The force of the air on one triangle (a, b, c: positions; u: the wind
 * relative to it), added as a third to each corner's acceleration. */
static void triangle_force(const vs_model *m, const double *x, const int32_t *t, const double u[3],
                           double cd, double cl, double *acc) {
  const double *a = x + 4 * (size_t)t[0], *b = x + 4 * (size_t)t[1], *c = x + 4 * (size_t)t[2];
  const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                 e1[0] * e2[1] - e1[1] * e2[0]};
  const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(len > 0.0)) return; /* a degenerate triangle has no normal and no area */
  for (int k = 0; k < 3; k++) n[k] /= len;
  const double q = 0.5 * m->air_density * (0.5 * len); /* ½ ρ A */
  const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
  const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  double f[3];
  for (int k = 0; k < 3; k++) f[k] = q * cd * fabs(un) * un * n[k];
  if (cl > 0.0 && uu > 0.0) {
    const double s = q * cl * un / sqrt(uu);
    for (int k = 0; k < 3; k++) f[k] += s * (uu * n[k] - un * u[k]);
  }
  for (int j = 0; j < 3; j++) {
    const double w = x[4 * (size_t)t[j] + 3] / 3.0;
    for (int k = 0; k < 3; k++) acc[4 * (size_t)t[j] + k] += f[k] * w;
  }
}

void vs_aero_begin(const vs_model *m, vs_state *s, double t) {
  vs_solver_scratch *const w = s->scratch;
  const int32_t n = m->n_particles;
  const double h = m->h, inv_h = 1.0 / h;
  const int verlet = m->integrator == VS_INTEGRATOR_VERLET;
  double *acc = w->aero;
  vs_model_wind(m, t, w->wind);
  const double *uw = w->wind;
  /* the start-of-step velocities, in acc's first three columns for now */
  for (int32_t i = 0; i < n; i++) {
    const double *xi = s->x + 4 * (size_t)i, *pi = s->xprev + 4 * (size_t)i;
    const double *vi = s->v + 3 * (size_t)i;
    double v[3];
    for (int k = 0; k < 3; k++) v[k] = verlet ? (xi[k] - pi[k]) * inv_h : vi[k];
    const vs_body_info *bi = &m->bodies[m->body[i]];
    const double r[3] = {v[0] - uw[0], v[1] - uw[1], v[2] - uw[2]};
    const double speed = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    acc[4 * (size_t)i + 3] = 1.0 + h * (bi->air_linear + bi->air_quadratic * speed);
    for (int k = 0; k < 3; k++) acc[4 * (size_t)i + k] = v[k];
  }
  /* the triangles' relative winds, from those velocities, before acc is
   * overwritten: each triangle's from its corners', one triangle at a time */
  int any = 0;
  for (int32_t k = 0; k < m->n_triangles && !any; k++) {
    const vs_body_info *bi = &m->bodies[m->body[m->triangles[3 * k]]];
    any = bi->drag > 0.0 || bi->lift > 0.0;
  }
  if (!any) {
    for (int32_t i = 0; i < n; i++)
      acc[4 * (size_t)i] = acc[4 * (size_t)i + 1] = acc[4 * (size_t)i + 2] = 0.0;
    return;
  }
  double *vel = w->vpre; /* (n x 3): rewritten after the prediction (step.c) */
  for (int32_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      vel[3 * (size_t)i + k] = acc[4 * (size_t)i + k];
      acc[4 * (size_t)i + k] = 0.0;
    }
  for (int32_t k = 0; k < m->n_triangles; k++) {
    const int32_t *tri = m->triangles + 3 * (size_t)k;
    const vs_body_info *bi = &m->bodies[m->body[tri[0]]];
    if (!(bi->drag > 0.0 || bi->lift > 0.0)) continue;
    double u[3];
    for (int d = 0; d < 3; d++)
      u[d] = uw[d] - (vel[3 * (size_t)tri[0] + d] + vel[3 * (size_t)tri[1] + d] +
                      vel[3 * (size_t)tri[2] + d]) /
                         3.0;
    triangle_force(m, s->x, tri, u, bi->drag, bi->lift, acc);
  }
}

void vs_aero_end(const vs_model *m, vs_state *s) {
  const vs_solver_scratch *const w = s->scratch;
  const int32_t n = m->n_particles;
  const double h = m->h, *uw = w->wind, *acc = w->aero;
  if (m->integrator == VS_INTEGRATOR_VERLET) {
    /* the displacement x - x_prev is Verlet's velocity times h */
    const double h2 = h * h;
    for (int32_t i = 0; i < n; i++) {
      double *xi = s->x + 4 * (size_t)i;
      const double *pi = s->xprev + 4 * (size_t)i, *ai = acc + 4 * (size_t)i;
      if (xi[3] == 0.0) continue;
      for (int k = 0; k < 3; k++) {
        const double d = xi[k] - pi[k] + h2 * ai[k];
        xi[k] = pi[k] + (h * uw[k] + (d - h * uw[k]) / ai[3]);
      }
    }
    return;
  }
  for (int32_t i = 0; i < n; i++) {
    double *xi = s->x + 4 * (size_t)i, *vi = s->v + 3 * (size_t)i;
    const double *pi = s->xprev + 4 * (size_t)i, *ai = acc + 4 * (size_t)i;
    if (xi[3] == 0.0) continue;
    for (int k = 0; k < 3; k++) {
      const double v = vi[k] + h * ai[k];
      vi[k] = uw[k] + (v - uw[k]) / ai[3];
      xi[k] = pi[k] + h * vi[k];
    }
  }
}

double vs_rigid_air_den(const vs_rwork *w, int32_t i, const double v[3], double hs) {
  const double k1 = w->air[2 * (size_t)i], k2 = w->air[2 * (size_t)i + 1];
  if (!(k1 > 0.0 || k2 > 0.0)) return 1.0;
  const double r[3] = {v[0] - w->wind[0], v[1] - w->wind[1], v[2] - w->wind[2]};
  return 1.0 + hs * (k1 + k2 * sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
}

void vs_rigid_air(const vs_rwork *w, double v[3], double den) {
  for (int k = 0; k < 3; k++) v[k] = w->wind[k] + (v[k] - w->wind[k]) / den;
}
