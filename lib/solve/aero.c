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
 * Each pass runs on the state's threads for a large scene, every item on
 * its own: the triangles' forces each into its own slot, then each particle
 * gathers its triangles' in triangle order (lib/model/aero_model.c lists
 * them), the order one thread scattering them would add them in.  So the
 * bits are the same on any --threads count, and no atomics are needed. */
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

#include "solve/rigid/rigid.h"
#include "solve/solve.h"

/* Threads for a pass over n items: the state's, one for a small scene
 * (as step.c's streaming passes).  Every item's result depends on nothing
 * else written in its pass, so any split gives the same bits. */
#define AERO_PASS_MIN 4096
typedef void (*aero_range_fn)(const vs_model *m, vs_state *s, int32_t i0, int32_t i1);
static void run_pass(const vs_model *m, vs_state *s, int32_t n, aero_range_fn fn) {
#ifdef _OPENMP
  const int threads = s->threads > 1 && n >= AERO_PASS_MIN ? s->threads : 1;
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      const int T = omp_get_num_threads(), t = omp_get_thread_num();
      fn(m, s, (int32_t)((int64_t)n * t / T), (int32_t)((int64_t)n * (t + 1) / T));
    }
    return;
  }
#endif
  fn(m, s, 0, n);
}

/* Particles [i0, i1): the start-of-step velocity (pbd, xpbd: v; verlet:
 * (x - x_prev) / h) into vpre, the air drag's denominator into aero[.][3],
 * and no triangle acceleration yet. */
static void start_range(const vs_model *m, vs_state *s, int32_t i0, int32_t i1) {
  const double h = m->h, inv_h = 1.0 / h, *uw = s->scratch->wind;
  const int verlet = m->integrator == VS_INTEGRATOR_VERLET;
  double *acc = s->scratch->aero, *vel = s->scratch->vpre;
  for (int32_t i = i0; i < i1; i++) {
    const double *xi = s->x + 4 * (size_t)i, *pi = s->xprev + 4 * (size_t)i;
    const double *vi = s->v + 3 * (size_t)i;
    double *v = vel + 3 * (size_t)i;
    for (int k = 0; k < 3; k++) v[k] = verlet ? (xi[k] - pi[k]) * inv_h : vi[k];
    const vs_body_info *bi = &m->bodies[m->body[i]];
    const double r[3] = {v[0] - uw[0], v[1] - uw[1], v[2] - uw[2]};
    const double speed = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double *a = acc + 4 * (size_t)i;
    a[0] = a[1] = a[2] = 0.0;
    a[3] = 1.0 + h * (bi->air_linear + bi->air_quadratic * speed);
  }
}

/* Triangles [k0, k1) of bodies with drag or lift: the force of the air,
 *   F = ½ ρ A (C_d |u·n| (u·n) n + C_l (u·n / |u|) (|u|² n - (u·n) u)),
 * u the wind relative to the triangle (the mean of its corners'
 * velocities), n its unit normal, A its area, into aero_tri. */
static void triangle_range(const vs_model *m, vs_state *s, int32_t k0, int32_t k1) {
  const double *x = s->x, *vel = s->scratch->vpre, *uw = s->scratch->wind;
  double *out = s->scratch->aero_tri;
  for (int32_t k = k0; k < k1; k++) {
    const int32_t *t = m->triangles + 3 * (size_t)k;
    const vs_body_info *bi = &m->bodies[m->body[t[0]]];
    double *f = out + 3 * (size_t)k;
    f[0] = f[1] = f[2] = 0.0;
    if (!(bi->drag > 0.0 || bi->lift > 0.0)) continue;
    const double *a = x + 4 * (size_t)t[0], *b = x + 4 * (size_t)t[1], *c = x + 4 * (size_t)t[2];
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0)) continue; /* a degenerate triangle has no normal and no area */
    for (int d = 0; d < 3; d++) n[d] /= len;
    double u[3];
    for (int d = 0; d < 3; d++)
      u[d] =
          uw[d] -
          (vel[3 * (size_t)t[0] + d] + vel[3 * (size_t)t[1] + d] + vel[3 * (size_t)t[2] + d]) / 3.0;
    const double q = 0.5 * m->air_density * (0.5 * len); /* ½ ρ A */
    const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    for (int d = 0; d < 3; d++) f[d] = q * bi->drag * fabs(un) * un * n[d];
    if (bi->lift > 0.0 && uu > 0.0) {
      const double sl = q * bi->lift * un / sqrt(uu);
      for (int d = 0; d < 3; d++) f[d] += sl * (uu * n[d] - un * u[d]);
    }
  }
}

/* Particles [i0, i1): a third of each of its triangles' forces, in
 * triangle order, times its inverse mass. */
static void gather_range(const vs_model *m, vs_state *s, int32_t i0, int32_t i1) {
  const int32_t *start = m->priv->tri_start, *of = m->priv->tri_of;
  const double *f = s->scratch->aero_tri;
  double *acc = s->scratch->aero;
  for (int32_t i = i0; i < i1; i++) {
    const double w = s->x[4 * (size_t)i + 3] / 3.0;
    double *a = acc + 4 * (size_t)i;
    for (int32_t j = start[i]; j < start[i + 1]; j++)
      for (int d = 0; d < 3; d++) a[d] += f[3 * (size_t)of[j] + d] * w;
  }
}

void vs_aero_begin(const vs_model *m, vs_state *s, double t) {
  vs_model_wind(m, t, s->scratch->wind);
  run_pass(m, s, m->n_particles, start_range);
  if (m->priv->n_air_triangles == 0) return;
  run_pass(m, s, m->n_triangles, triangle_range);
  run_pass(m, s, m->n_particles, gather_range);
}

/* Particles [i0, i1) after the prediction: v += h a, then the air drag,
 * v = u_w + (v - u_w) / den, and the position from the new velocity
 * (verlet: the displacement x - x_prev, its velocity times h). */
static void end_range(const vs_model *m, vs_state *s, int32_t i0, int32_t i1) {
  const double h = m->h, *uw = s->scratch->wind, *acc = s->scratch->aero;
  if (m->integrator == VS_INTEGRATOR_VERLET) {
    const double h2 = h * h;
    for (int32_t i = i0; i < i1; i++) {
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
  for (int32_t i = i0; i < i1; i++) {
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

void vs_aero_end(const vs_model *m, vs_state *s) {
  run_pass(m, s, m->n_particles, end_range);
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
