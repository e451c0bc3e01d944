/* SPDX-License-Identifier: MIT */
/* step.c: one frame = `substeps` steps of h = dt / substeps (docs/physics.md).
 *
 * Each step reads like the algorithm:
 *   predict      verlet: x' = x + (1 - c h)(x - x_prev) + g h^2   (Jakobsen eq. 1)
 *                pbd/xpbd: v += g h; v *= 1 - c h; p = x + h v     (Müller 2007, alg. 1)
 *   kinematics   kinematic pins placed on their key path at the step's end time
 *   relax        `iterations` sweeps over constraints then colliders,
 *                Gauss-Seidel in build order or coloured Jacobi
 *   velocities   pbd/xpbd: v = (p - x) / h; then friction and restitution
 *                on contacts (verlet: the same, written back through x_prev)
 *   tear         links longer than tear * rest break for good
 * The positions being projected are always state->x; state->xprev holds the
 * positions at the start of the step (for verlet that is x_prev itself). */
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>
#include <string.h>

#include "solve/solve.h"

/* PBD's dampVelocities (Müller et al. 2007, §3.5): pull each particle's
 * velocity towards the rigid motion of its body (centre-of-mass velocity
 * plus the angular velocity w = I^-1 L), by the fraction k per step.  Linear
 * and angular momentum are kept; only deformation is damped.  vel is
 * (n x stride) velocities or displacements.  A body whose movable particles
 * are collinear has no unique rotation and is left alone. */
static void damp_rigid(const vs_model *m, const vs_state *s, double *vel, int stride) {
  for (int32_t b = 0; b < m->n_bodies; b++) {
    const vs_body_info *bi = &m->bodies[b];
    const double k = bi->damping_rigid;
    if (k <= 0.0) continue;
    double M = 0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int32_t i = bi->first; i < bi->first + bi->count; i++) {
      const double *x = s->x + 4 * (size_t)i, *v = vel + stride * (size_t)i;
      if (x[3] == 0.0) continue;
      const double mi = m->mass[i];
      M += mi;
      for (int d = 0; d < 3; d++) xc[d] += mi * x[d], vc[d] += mi * v[d];
    }
    if (M <= 0.0) continue;
    for (int d = 0; d < 3; d++) xc[d] /= M, vc[d] /= M;
    double L[3] = {0, 0, 0}, I[3][3] = {{0}};
    for (int32_t i = bi->first; i < bi->first + bi->count; i++) {
      const double *x = s->x + 4 * (size_t)i, *v = vel + stride * (size_t)i;
      if (x[3] == 0.0) continue;
      const double mi = m->mass[i], r[3] = {x[0] - xc[0], x[1] - xc[1], x[2] - xc[2]};
      L[0] += mi * (r[1] * v[2] - r[2] * v[1]);
      L[1] += mi * (r[2] * v[0] - r[0] * v[2]);
      L[2] += mi * (r[0] * v[1] - r[1] * v[0]);
      const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) I[p][q] += mi * ((p == q ? r2 : 0.0) - r[p] * r[q]);
    }
    /* w = I^-1 L by cofactors */
    const double c00 = I[1][1] * I[2][2] - I[1][2] * I[2][1], c01 = I[1][2] * I[2][0] - I[1][0] * I[2][2],
                 c02 = I[1][0] * I[2][1] - I[1][1] * I[2][0];
    const double det = I[0][0] * c00 + I[0][1] * c01 + I[0][2] * c02;
    const double tr = I[0][0] + I[1][1] + I[2][2];
    if (!(fabs(det) > 1e-12 * tr * tr * tr)) continue;
    const double inv[3][3] = {
        {c00 / det, (I[0][2] * I[2][1] - I[0][1] * I[2][2]) / det, (I[0][1] * I[1][2] - I[0][2] * I[1][1]) / det},
        {c01 / det, (I[0][0] * I[2][2] - I[0][2] * I[2][0]) / det, (I[0][2] * I[1][0] - I[0][0] * I[1][2]) / det},
        {c02 / det, (I[0][1] * I[2][0] - I[0][0] * I[2][1]) / det, (I[0][0] * I[1][1] - I[0][1] * I[1][0]) / det}};
    double w[3];
    for (int p = 0; p < 3; p++) w[p] = inv[p][0] * L[0] + inv[p][1] * L[1] + inv[p][2] * L[2];
    for (int32_t i = bi->first; i < bi->first + bi->count; i++) {
      const double *x = s->x + 4 * (size_t)i;
      double *v = vel + stride * (size_t)i;
      if (x[3] == 0.0) continue;
      const double r[3] = {x[0] - xc[0], x[1] - xc[1], x[2] - xc[2]};
      const double rigid[3] = {vc[0] + w[1] * r[2] - w[2] * r[1], vc[1] + w[2] * r[0] - w[0] * r[2],
                               vc[2] + w[0] * r[1] - w[1] * r[0]};
      for (int d = 0; d < 3; d++) v[d] += k * (rigid[d] - v[d]);
    }
  }
}

/* Two doubles as one vector (GCC and clang vector extensions: SSE2 on
 * x86-64, per-lane IEEE operations, the same bits as two scalar ones), for
 * the x and y of a particle in the streaming passes below. */
typedef double v2d __attribute__((vector_size(16)));
static inline v2d v2_load(const double *p) {
  v2d r;
  memcpy(&r, p, sizeof r);
  return r;
}
static inline void v2_store(double *p, v2d a) { memcpy(p, &a, sizeof a); }

/* Threads for a streaming pass over n particles: the relaxation's count
 * (the state's), one for a cloth too small to pay for waking them.  With
 * two threads a serial pass of the step would cap the speed-up of the whole
 * step (Amdahl: these passes are 10-13% of a 1-thread 256x256 Jacobi step). */
#define VS_PASS_MIN 4096
#ifdef _OPENMP
static int pass_threads(const vs_state *s, int32_t n) {
  return s->threads > 1 && n >= VS_PASS_MIN ? s->threads : 1;
}

/* This thread's share [i0, i1) of n particles, inside a parallel region. */
static void pass_range(int32_t n, int32_t *i0, int32_t *i1) {
  const int T = omp_get_num_threads(), t = omp_get_thread_num();
  *i0 = (int32_t)((int64_t)n * t / T), *i1 = (int32_t)((int64_t)n * (t + 1) / T);
}
#endif

/* The streaming passes below run on the team only when it pays
 * (pass_threads > 1): a parallel region of one thread still costs ~1.4 us
 * (libgomp's team and its end-of-region barrier, a futex call each time),
 * three a step, as much as a whole step of a short rope. */

/* predict, pbd and xpbd without damped rigid links: particles [i0, i1) */
typedef struct {
  double *x, *xp, *v;
  v2d gh01, damp2, h2;
  double gh2z, damp, h;
} predict_args;
static void predict_range(const predict_args *a, int32_t i0, int32_t i1) {
  double *restrict x = a->x, *restrict xp = a->xp, *restrict v = a->v;
  const v2d gh01 = a->gh01, damp2 = a->damp2, h2 = a->h2;
  const double gh2z = a->gh2z, damp = a->damp, h = a->h;
  for (int32_t i = i0; i < i1; i++) {
    double *restrict xi = x + 4 * (size_t)i, *restrict pi = xp + 4 * (size_t)i, *restrict vi = v + 3 * (size_t)i;
    const v2d x01 = v2_load(xi);
    const double x2 = xi[2];
    v2_store(pi, x01), pi[2] = x2;
    if (xi[3] == 0.0) continue;
    const v2d v01 = (v2_load(vi) + gh01) * damp2;
    const double v2 = (vi[2] + gh2z) * damp;
    v2_store(vi, v01), vi[2] = v2;
    v2_store(xi, x01 + h2 * v01), xi[2] = x2 + h * v2;
  }
}

/* t: the step's start time (the wind's) */
static void predict(const vs_model *m, vs_state *s, double t) {
  vs_solver_scratch *const w = s->scratch;
  if (m->aero) vs_aero_begin(m, s, t);
  const int32_t n = m->n_particles;
  const double h = m->h, damp = 1.0 - m->damping * h;
  const double *g = m->gravity;
  const double gh2[3] = {g[0] * h * h, g[1] * h * h, g[2] * h * h};
  double *x = s->x, *xp = s->xprev, *v = s->v;
  if (m->integrator == VS_INTEGRATOR_VERLET) {
    if (m->n_rigid_damped > 0) {
      /* damp the displacement x - x_prev (Verlet's velocity times h) */
      double *d = w->vpre; /* scratch here: rewritten after the prediction */
      for (int32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) d[3 * (size_t)i + k] = x[4 * (size_t)i + k] - xp[4 * (size_t)i + k];
      damp_rigid(m, s, d, 3);
      for (int32_t i = 0; i < n; i++)
        if (x[4 * (size_t)i + 3] != 0.0)
          for (int k = 0; k < 3; k++) xp[4 * (size_t)i + k] = x[4 * (size_t)i + k] - d[3 * (size_t)i + k];
    }
    for (int32_t i = 0; i < n; i++) {
      double *xi = x + 4 * (size_t)i, *pi = xp + 4 * (size_t)i;
      if (xi[3] == 0.0) {
        pi[0] = xi[0], pi[1] = xi[1], pi[2] = xi[2];
        continue;
      }
      for (int k = 0; k < 3; k++) {
        double cur = xi[k];
        xi[k] = cur + damp * (cur - pi[k]) + gh2[k];
        pi[k] = cur;
      }
    }
  } else if (m->n_rigid_damped == 0) {
    /* one streaming pass: each particle's operations as in the two below;
     * particle by particle, so any split over threads gives the same bits */
    const predict_args a = {x, xp, v, {g[0] * h, g[1] * h}, {damp, damp}, {h, h}, g[2] * h, damp, h};
#ifdef _OPENMP
    if (pass_threads(s, n) > 1) {
#pragma omp parallel num_threads(pass_threads(s, n))
      {
        int32_t i0, i1;
        pass_range(n, &i0, &i1);
        predict_range(&a, i0, i1);
      }
    } else
#endif
      predict_range(&a, 0, n);
  } else {
    for (int32_t i = 0; i < n; i++) {
      double *xi = x + 4 * (size_t)i, *vi = v + 3 * (size_t)i;
      if (xi[3] == 0.0) continue;
      for (int k = 0; k < 3; k++) {
        vi[k] += g[k] * h;
        vi[k] *= damp;
      }
    }
    damp_rigid(m, s, v, 3);
    for (int32_t i = 0; i < n; i++) {
      double *xi = x + 4 * (size_t)i, *pi = xp + 4 * (size_t)i, *vi = v + 3 * (size_t)i;
      pi[0] = xi[0], pi[1] = xi[1], pi[2] = xi[2];
      if (xi[3] == 0.0) continue;
      for (int k = 0; k < 3; k++) xi[k] = xi[k] + h * vi[k];
    }
  }
  if (m->aero) vs_aero_end(m, s); /* the air's forces (aero.c) */
}

static void place_kinematic_pins(const vs_model *m, vs_state *s, double t) {
  for (int32_t k = 0; k < m->n_pin; k++) {
    if (m->pin_key0[k] < 0) continue;
    double *p = s->x + 4 * (size_t)m->pin_p[k];
    vs_model_pin_target(m, k, t, p);
  }
}

/* Friction and restitution on the velocity of each particle that a collider
 * pushed this step (Müller et al. 2020, "Detailed rigid body simulation with
 * XPBD", §3.6): the tangential velocity loses at most mu * (normal push / h)
 * (Coulomb), and an approaching normal velocity above 2 |g| h is reflected
 * with the collider's restitution; below it the particle comes to rest. */
static void contact_velocity(const vs_model *m, const double *ct, const double *vpre,
                             int32_t collider, double *v) {
  const vs_collider_desc *cd = &m->colliders[collider];
  const double h = m->h;
  const double *n = ct;
  const double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
  double vt[3] = {v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]};
  const double vt_len = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
  if (vt_len > 0.0 && cd->friction > 0.0) {
    double f = cd->friction * ct[3] / h / vt_len;
    if (f > 1.0) f = 1.0;
    for (int k = 0; k < 3; k++) vt[k] *= 1.0 - f;
  }
  const double vn_pre = vpre[0] * n[0] + vpre[1] * n[1] + vpre[2] * n[2];
  const double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                        m->gravity[2] * m->gravity[2]);
  double vn_new = vn;
  if (vn_pre < 0.0) vn_new = (-vn_pre > 2.0 * g * h) ? -cd->restitution * vn_pre : 0.0;
  if (vn_new < 0.0) vn_new = 0.0;
  for (int k = 0; k < 3; k++) v[k] = vt[k] + vn_new * n[k];
}

/* v = (x - x_prev) / h for particles [i0, i1) */
static void velocities_range(const double *restrict x, const double *restrict xp,
                             double *restrict v, double inv_h, int32_t i0, int32_t i1) {
  const v2d inv_h2 = {inv_h, inv_h};
  for (int32_t i = i0; i < i1; i++) {
    const double *xi = x + 4 * (size_t)i, *pi = xp + 4 * (size_t)i;
    v2_store(v + 3 * (size_t)i, (v2_load(xi) - v2_load(pi)) * inv_h2);
    v[3 * (size_t)i + 2] = (xi[2] - pi[2]) * inv_h;
  }
}

static void update_velocities(const vs_model *m, vs_state *s) {
  vs_solver_scratch *const w = s->scratch;
  const int32_t n = m->n_particles;
  const double h = m->h, inv_h = 1.0 / m->h;
  const int verlet = m->integrator == VS_INTEGRATOR_VERLET;
  if (m->n_colliders == 0) { /* no contacts: v = (x - x_prev) / h only (verlet: nothing) */
    if (verlet) return;
#ifdef _OPENMP
    if (pass_threads(s, n) > 1) {
#pragma omp parallel num_threads(pass_threads(s, n))
      {
        int32_t i0, i1;
        pass_range(n, &i0, &i1);
        velocities_range(s->x, s->xprev, s->v, inv_h, i0, i1);
      }
    } else
#endif
      velocities_range(s->x, s->xprev, s->v, inv_h, 0, n);
    return;
  }
  for (int32_t i = 0; i < n; i++) {
    double *xi = s->x + 4 * (size_t)i, *pi = s->xprev + 4 * (size_t)i, *vi = s->v + 3 * (size_t)i;
    if (!verlet)
      for (int k = 0; k < 3; k++) vi[k] = (xi[k] - pi[k]) * inv_h;
    const int32_t c = w->contact_collider[i];
    if (c < 0) continue;
    if (verlet) {
      /* Verlet carries velocity in x_prev: adjust it there (Jakobsen §3). */
      double v[3];
      for (int k = 0; k < 3; k++) v[k] = (xi[k] - pi[k]) * inv_h;
      contact_velocity(m, w->contact + 4 * (size_t)i, w->vpre + 3 * (size_t)i, c, v);
      for (int k = 0; k < 3; k++) pi[k] = xi[k] - h * v[k];
    } else {
      contact_velocity(m, w->contact + 4 * (size_t)i, w->vpre + 3 * (size_t)i, c, vi);
    }
  }
}

static void tear_links(const vs_model *m, vs_state *s) {
  for (int32_t i = 0; i < m->n_dist; i++) {
    if (m->dist_tear[i] <= 0.0 || !s->alive[i]) continue;
    const double *a = s->x + 4 * (size_t)m->dist_ab[2 * i], *b = s->x + 4 * (size_t)m->dist_ab[2 * i + 1];
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    if (sqrt(dx * dx + dy * dy + dz * dz) > m->dist_tear[i]) {
      s->alive[i] = 0;
      s->n_alive--;
    }
  }
}

/* Which constraint moved particle p last in the final sweep: colliders run
 * after the constraints, so a contact wins; otherwise the last live
 * constraint touching p in solve order (build order for Gauss-Seidel, colour
 * order for Jacobi).  Written into buf for the failure message. */
static void last_mover(const vs_model *m, const vs_state *s, int32_t p, char *buf, size_t size) {
  const vs_solver_scratch *const w = s->scratch;
  if (w->contact_collider[p] >= 0) {
    const int32_t c = w->contact_collider[p];
    snprintf(buf, size, "world.colliders.%d (%s)", c, vs_collider_kind_name(m->colliders[c].kind));
    return;
  }
  int32_t best = -1;
  for (int32_t j = 0; j < m->n_constraints; j++) {
    const int32_t id = m->relaxation == VS_RELAX_JACOBI ? m->priv->color_order[j] : j;
    const int32_t k = m->con_index[id];
    switch ((vs_kind)m->con_kind[id]) {
      case VS_KIND_PIN: continue; /* inverse mass 0: never moves a particle */
      case VS_KIND_DISTANCE:
        if (!s->alive[k]) continue; /* torn */
        break;
      case VS_KIND_ANGLE: break;
    }
    int32_t q[VS_MAX_ARITY];
    const int arity = vs_model_constraint_particles(m, id, q);
    for (int j2 = 0; j2 < arity; j2++)
      if (q[j2] == p) best = id;
  }
  if (best < 0) {
    snprintf(buf, size, "no constraint (free flight)");
    return;
  }
  int32_t q[VS_MAX_ARITY];
  const int arity = vs_model_constraint_particles(m, best, q);
  const vs_kind kind = (vs_kind)m->con_kind[best];
  if (kind == VS_KIND_DISTANCE) {
    snprintf(buf, size, "distance constraint %d (particles %d and %d, rest %g)", best, q[0], q[1],
             m->dist_rest[m->con_index[best]]);
    return;
  }
  int n = snprintf(buf, size, "%s constraint %d (particle%s", vs_kind_name(kind), best, arity > 1 ? "s" : "");
  for (int j = 0; j < arity && n > 0 && (size_t)n < size; j++)
    n += snprintf(buf + n, size - (size_t)n, "%s %d", j ? "," : "", q[j]);
  if (n > 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, ")");
}

/* 1 when particles [i0, i1) (pbd, xpbd) are finite and no faster than
 * sqrt(vmax2): x - x summed over them is 0 when every x is finite, NaN
 * otherwise */
static int fine_range(const double *restrict x, const double *restrict v, double vmax2, int32_t i0,
                      int32_t i1) {
  int bad = 0;
  v2d d01 = {0.0, 0.0};
  double d2 = 0.0;
  for (int32_t i = i0; i < i1; i++) {
    const double *p = x + 4 * (size_t)i, *q = v + 3 * (size_t)i;
    const v2d p01 = v2_load(p), q01 = v2_load(q), s01 = q01 * q01;
    d01 += p01 - p01, d2 += p[2] - p[2];
    bad |= !(s01[0] + s01[1] + q[2] * q[2] <= vmax2);
  }
  return !(bad | !(d01[0] + d01[1] + d2 == 0.0));
}

/* 1 when no particle fails check_state's test below (finite, and no faster
 * than the runaway bound): one pass without branches over x and v, the same
 * v2 as the test's; only a failure pays for the particle-by-particle search
 * that names the first one.  x - x is 0 for a finite x, NaN otherwise. */
static int particles_fine(const vs_model *m, const vs_state *s) {
  const double vmax = m->runaway_speed, vmax2 = vmax * vmax, h = m->h;
  const int32_t n = m->n_particles;
  const double *restrict x = s->x, *restrict xp = s->xprev, *restrict v = s->v;
  int bad = 0;
  if (vmax <= 0.0) {
    for (int32_t i = 0; i < n; i++) {
      const double *p = x + 4 * (size_t)i;
      bad |= !((p[0] - p[0]) + (p[1] - p[1]) + (p[2] - p[2]) == 0.0);
    }
  } else if (m->integrator == VS_INTEGRATOR_VERLET) {
    for (int32_t i = 0; i < n; i++) {
      const double *p = x + 4 * (size_t)i, *q = xp + 4 * (size_t)i;
      const double v0 = (p[0] - q[0]) / h, v1 = (p[1] - q[1]) / h, v2 = (p[2] - q[2]) / h;
      bad |= !((p[0] - p[0]) + (p[1] - p[1]) + (p[2] - p[2]) == 0.0) | !(v0 * v0 + v1 * v1 + v2 * v2 <= vmax2);
    }
  } else {
#ifdef _OPENMP
    if (pass_threads(s, n) > 1) {
#pragma omp parallel num_threads(pass_threads(s, n)) reduction(| : bad)
      {
        int32_t i0, i1;
        pass_range(n, &i0, &i1);
        bad |= !fine_range(x, v, vmax2, i0, i1);
      }
    } else
#endif
      bad |= !fine_range(x, v, vmax2, 0, n);
  }
  return !bad;
}

/* After every frame: a non-finite position, or a particle faster than the
 * runaway bound, fails the run naming frame, particle, body and the
 * constraint that moved it last. */
/* |v| without overflow: v = (1e200, 0, 0) is 1e200 m/s, not infinity. */
static double speed_of(const double v[3]) {
  const double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
  if (!(big > 0.0) || !isfinite(big)) return big;
  const double a = v[0] / big, b = v[1] / big, c = v[2] / big;
  return big * sqrt(a * a + b * b + c * c);
}

static int finite3(const double *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static vs_status check_state(const vs_model *m, const vs_state *s, vs_error *err) {
  const double vmax = m->runaway_speed, vmax2 = vmax * vmax;
  const int verlet = m->integrator == VS_INTEGRATOR_VERLET;
  for (int32_t i = 0; i < m->n_rigid; i++) {
    const double *p = s->rx + 3 * (size_t)i, *v = s->rv + 3 * (size_t)i, *q = s->rq + 4 * (size_t)i;
    const double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    /* finite: each number, not the square of the speed (which overflows
     * for speeds past 1e154 and made "not finite (1e+198, 1, 0)") */
    const int pf = finite3(p), vf = finite3(v), qf = finite3(q) && isfinite(q[3]);
    const int finite = pf && vf && qf;
    if (finite && (vmax <= 0.0 || v2 <= vmax2)) continue;
    const double speed = finite ? speed_of(v) : 0.0;
    if (finite && speed <= vmax) continue; /* v2 overflowed, the speed did not */
    const char *name = m->bodies[m->rigid_body[i]].name;
    if (!pf)
      return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                          "frame %lld: rigid body '%s' is not finite: position (%g, %g, %g); try "
                          "more substeps or solver.rigid iterations, or a smaller dt",
                          (long long)s->frame, name, p[0], p[1], p[2]);
    if (!vf)
      return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                          "frame %lld: rigid body '%s' is not finite: velocity (%g, %g, %g) at "
                          "(%g, %g, %g); try more substeps or solver.rigid iterations, or a "
                          "smaller dt",
                          (long long)s->frame, name, v[0], v[1], v[2], p[0], p[1], p[2]);
    if (!qf)
      return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                          "frame %lld: rigid body '%s' is not finite: orientation (%g, %g, %g, "
                          "%g) at (%g, %g, %g); try more substeps or solver.rigid iterations, or "
                          "a smaller dt",
                          (long long)s->frame, name, q[0], q[1], q[2], q[3], p[0], p[1], p[2]);
    return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                        "frame %lld: rigid body '%s' runs away at %g m/s (solver.runaway_speed = "
                        "%g); try more substeps or solver.rigid iterations, or a smaller dt",
                        (long long)s->frame, name, speed, vmax);
  }
  if (particles_fine(m, s)) return VS_OK;
  for (int32_t i = 0; i < m->n_particles; i++) {
    const double *p = s->x + 4 * (size_t)i;
    const int finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
    double speed = 0.0;
    if (finite) {
      if (vmax <= 0.0) continue;
      double v[3];
      for (int k = 0; k < 3; k++)
        v[k] = verlet ? (p[k] - s->xprev[4 * (size_t)i + k]) / m->h : s->v[3 * (size_t)i + k];
      if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= vmax2) continue;
      speed = speed_of(v); /* the speed itself, without the square's overflow */
      if (speed <= vmax) continue;
    }
    const vs_body_info *b = &m->bodies[m->body[i]];
    char mover[192];
    last_mover(m, s, i, mover, sizeof mover);
    if (!finite)
      return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                          "frame %lld: particle %d (body '%s', index %d) is not finite "
                          "(%g, %g, %g); last moved by %s; try more substeps or iterations, "
                          "or a smaller dt",
                          (long long)s->frame, i, b->name, i - b->first, p[0], p[1], p[2], mover);
    return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                        "frame %lld: particle %d (body '%s', index %d) runs away at %g m/s "
                        "(solver.runaway_speed = %g); last moved by %s; try more substeps or "
                        "iterations, or a smaller dt",
                        (long long)s->frame, i, b->name, i - b->first, speed, vmax, mover);
  }
  return VS_OK;
}

vs_status vs_step(const vs_model *m, vs_state *s, vs_error *err) {
  vs_solver_scratch *const w = s->scratch;
  const double h = m->h;
  const int has_pins = m->n_pin > 0;
  vs_solve_ctx ctx = {
      .m = m, .x = s->x, .lambda = s->lambda, .alive = s->alive, .jacobi = &s->scratch->jacobi,
      .inv_h2 = 1.0 / (h * h), .xpbd = m->integrator == VS_INTEGRATOR_XPBD,
  };
  const double t0 = (double)s->frame * m->dt;
  for (int64_t sub = 0; sub < m->substeps; sub++) {
    /* The last substep ends exactly on the frame time, so kinematic pins sit
     * exactly on their key path at every recorded frame. */
    const double t_end = sub + 1 == m->substeps ? (double)(s->frame + 1) * m->dt
                                                : t0 + (double)(sub + 1) * h;
    predict(m, s, t0 + (double)sub * h);
    if (has_pins) place_kinematic_pins(m, s, t_end);
    if (m->particle_collisions) {
      vs_status st = vs_contacts_find(m, s, err);
      if (st != VS_OK) return st;
    }
    if (m->n_colliders > 0) {
      /* the approach velocity, for restitution in the collider velocity pass */
      for (int32_t i = 0; i < m->n_particles; i++)
        for (int k = 0; k < 3; k++)
          w->vpre[3 * (size_t)i + k] = (s->x[4 * (size_t)i + k] - s->xprev[4 * (size_t)i + k]) / h;
      memset(w->contact, 0, 4 * (size_t)m->n_particles * sizeof(double));
      for (int32_t i = 0; i < m->n_particles; i++) w->contact_collider[i] = -1;
      if (m->swept || m->n_mesh_colliders > 0) /* a mesh collider is always swept */
        for (int32_t i = 0; i < m->n_particles; i++)
          vs_collide_swept(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_contact, w->mesh_ball,
                           w->mesh_on, i);
    }
    if (ctx.xpbd) memset(s->lambda, 0, (size_t)m->n_constraints * sizeof(double));
    if (m->relaxation == VS_RELAX_JACOBI) vs_relax_jacobi(m, s, &ctx);
    else vs_relax_gauss_seidel(m, s, &ctx);
    if (m->n_rigid > 0) vs_kinematic_rigid(m, s, sub == 0 ? t0 : t0 + (double)sub * h, t_end);
    if (m->n_rigid > 0 && m->n_colliding > 0) vs_couple_rigid(m, s, h);
    if (m->n_rigid > 0) vs_step_rigid(m, s, h); /* and attach, in its substeps */
    if (m->n_mesh_colliders > 0) /* the exact pass: no particle ends inside a mesh (collide_mesh.h) */
      for (int32_t i = 0; i < m->n_particles; i++)
        vs_collide_final(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_ball, w->mesh_on, i);
    update_velocities(m, s);
    if (m->n_tearable > 0) tear_links(m, s); /* only links with a breaking length can tear */
    s->step++;
  }
  s->frame++;
  s->time = (double)s->frame * m->dt;
  return check_state(m, s, err);
}
