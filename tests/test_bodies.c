/* SPDX-License-Identifier: MIT */
/* test_bodies.c: the seeds' bodies and devices under simulation: rigid
 * tetrahedra, soft lattices, ragdolls, angle limits, kinematic pins on cloth,
 * the square-root approximation, swept contacts and rigid-mode damping. */
#include <math.h>

#include "testutil.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static double speed_max(const tu_sim *r) {
  double *v = malloc(3 * sizeof(double) * (size_t)r->m->n_particles), best = 0;
  vs_state_velocity(r->m, r->s, v);
  for (int i = 0; i < r->m->n_particles; i++)
    best = fmax(best, sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
  free(v);
  return best;
}

/* Largest relative violation over the two-sided links. */
static double link_error(const tu_sim *r) {
  double worst = 0;
  for (int i = 0; i < r->m->n_dist; i++) {
    if (r->m->dist_side[i] != VS_SIDE_EQUAL) continue;
    double e = fabs(dist(tu_sim_x(r, r->m->dist_ab[2 * i]), tu_sim_x(r, r->m->dist_ab[2 * i + 1])) -
                    r->m->dist_rest[i]);
    worst = fmax(worst, e / r->m->dist_rest[i]);
  }
  return worst;
}

START_TEST(spinning_tetra_keeps_its_shape_and_comes_to_rest) {
  static const char *integ[] = {"verlet", "pbd", "xpbd"};
  for (int k = 0; k < 3; k++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 0.016666666666666666, frames: 300, substeps: 4}\n"
             "solver: {integrator: %s, iterations: 10}\n"
             "world: {colliders: [{plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.6}}]}\n"
             "bodies:\n"
             "  - tetra: {name: t, center: [0, 1, 0], edge: 0.3, mass: 1, velocity: [2, 0, 1],\n"
             "            angular_velocity: [3, 5, 2]}\n",
             integ[k]);
    tu_sim r = tu_sim_new(y);
    double worst = 0;
    for (int f = 0; f < 300; f++) {
      tu_sim_steps(&r, 1);
      worst = fmax(worst, link_error(&r));
    }
    ck_assert_msg(worst < 1e-4, "%s: edge lengths off by %g relative", integ[k], worst);
    ck_assert_msg(speed_max(&r) < 1e-3, "%s: still moving at %g m/s", integ[k], speed_max(&r));
    for (int i = 0; i < 4; i++) ck_assert_double_ge(tu_sim_x(&r, i)[1], -1e-12);
    tu_sim_free(&r);
  }
}
END_TEST

/* Volume of a lattice: each cell as six tetrahedra around its main diagonal. */
static double lattice_volume(const tu_sim *r, int nu, int nv, int nw) {
  double v = 0;
#define L(i, j, k) tu_sim_x(r, (i) + nu * ((j) + nv * (k)))
  for (int k = 0; k + 1 < nw; k++)
    for (int j = 0; j + 1 < nv; j++)
      for (int i = 0; i + 1 < nu; i++) {
        const double *c[8] = {L(i, j, k), L(i + 1, j, k), L(i + 1, j + 1, k), L(i, j + 1, k),
                              L(i, j, k + 1), L(i + 1, j, k + 1), L(i + 1, j + 1, k + 1), L(i, j + 1, k + 1)};
        static const int tet[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                      {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
        for (int t = 0; t < 6; t++) {
          const double *a = c[tet[t][0]], *b = c[tet[t][1]], *cc = c[tet[t][2]], *d = c[tet[t][3]];
          double u[3], w[3], z[3];
          for (int q = 0; q < 3; q++) u[q] = b[q] - a[q], w[q] = cc[q] - a[q], z[q] = d[q] - a[q];
          v += (u[0] * (w[1] * z[2] - w[2] * z[1]) - u[1] * (w[0] * z[2] - w[2] * z[0]) +
                u[2] * (w[0] * z[1] - w[1] * z[0])) / 6.0;
        }
      }
#undef L
  return fabs(v);
}

/* A jelly block dropped on a plane bounces, settles and keeps its volume
 * within 3% (a lattice has no volume constraint: links alone hold it). */
START_TEST(jelly_block_bounces_settles_keeps_volume) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.016666666666666666, frames: 240, substeps: 8}\n"
      "solver: {integrator: xpbd, iterations: 4, damping: 0.3}\n"
      "world: {colliders: [{plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5}}]}\n"
      "bodies:\n"
      "  - lattice: {name: jelly, origin: [0, 0.5, 0], size: [0.4, 0.4, 0.4], resolution: [5, 5, "
      "5],\n"
      "              mass: 2, stretch: {compliance: 1e-4}, shear: {compliance: 1e-4}}\n");
  const double v0 = lattice_volume(&r, 5, 5, 5);
  ck_assert_double_eq_tol(v0, 0.064, 1e-12);
  double ymin_com = 1e9, vmax_up = 0, worst = 0;
  for (int f = 0; f < 240; f++) {
    tu_sim_steps(&r, 1);
    double ycom = 0, vy = 0;
    for (int i = 0; i < r.m->n_particles; i++) ycom += tu_sim_x(&r, i)[1], vy += r.s->v[3 * i + 1];
    ycom /= r.m->n_particles, vy /= r.m->n_particles;
    if (ycom < ymin_com) ymin_com = ycom;
    if (f > 20 && vy > vmax_up) vmax_up = vy;
    worst = fmax(worst, fabs(lattice_volume(&r, 5, 5, 5) - v0) / v0);
  }
  ck_assert_msg(vmax_up > 0.05, "never bounced (largest upward speed %g)", vmax_up);
  ck_assert_msg(speed_max(&r) < 1e-2, "not settled: %g m/s", speed_max(&r));
  ck_assert_msg(worst < 0.03, "volume changed by %.2f%%", 100 * worst);
  tu_sim_free(&r);
}
END_TEST

/* A ragdoll dropped onto a box and the ground ends at rest with every limit held. */
START_TEST(ragdoll_falls_and_keeps_its_limits) {
  static const char *relax[] = {"gauss-seidel", "jacobi"};
  for (int k = 0; k < 2; k++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 0.016666666666666666, frames: 360, substeps: 4}\n"
             "solver: {relaxation: %s, iterations: 12, damping: 0.2}\n"
             "world:\n"
             "  colliders:\n"
             "    - plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.8}\n"
             "    - box: {min: [-0.3, 0, -0.6], max: [0.3, 0.5, 0.2], friction: 0.8}\n"
             "bodies:\n"
             "  - ragdoll: {name: bob, origin: [0.1, 1.2, 0.3], height: 1.8, mass: 70, radius: 0.04,\n"
             "              damping_rigid: 0.02}\n",
             relax[k]);
    tu_sim r = tu_sim_new(y);
    ck_assert_int_eq(r.m->n_particles, 19);
    double worst = 0;
    int engaged = 0;
    for (int f = 0; f < 360; f++) {
      tu_sim_steps(&r, 1);
      for (int i = 0; i < r.m->n_dist; i++) {
        if (r.m->dist_side[i] != VS_SIDE_MIN) continue;
        double d = dist(tu_sim_x(&r, r.m->dist_ab[2 * i]), tu_sim_x(&r, r.m->dist_ab[2 * i + 1]));
        worst = fmax(worst, r.m->dist_rest[i] - d);
        engaged |= d < r.m->dist_rest[i] * 1.001;
      }
    }
    ck_assert_msg(worst < 1e-3, "%s: a joint limit was broken by %g m", relax[k], worst);
    ck_assert_msg(engaged, "%s: no limit ever came into play", relax[k]);
    ck_assert_msg(speed_max(&r) < 0.02, "%s: still moving at %g m/s", relax[k], speed_max(&r));
    vs_observables o;
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_double_lt(o.penetration_max, 0.01);
    tu_sim_free(&r);
  }
}
END_TEST

static double angle_at(const double *a, const double *b, const double *c) {
  double u[3], w[3];
  for (int k = 0; k < 3; k++) u[k] = a[k] - b[k], w[k] = c[k] - b[k];
  double cs = (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) /
              (sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]));
  return acos(fmax(-1.0, fmin(1.0, cs))) * 180.0 / M_PI;
}

/* A three-particle arm under gravity never leaves its angle limits. */
START_TEST(arm_stays_within_angle_limits) {
  static const char *integ[] = {"verlet", "pbd", "xpbd"};
  for (int k = 0; k < 3; k++) {
    char y[1024];
    snprintf(y, sizeof y,
             "time: {dt: 0.016666666666666666, frames: 240, substeps: 4}\n"
             "solver: {integrator: %s, iterations: 40}\n"
             "bodies:\n"
             "  - particles: {name: arm, positions: [[0, 0, 0], [0.5, 0, 0], [1.0, 0.2, 0]], pin: [0]}\n"
             "constraints:\n"
             "  - distance: {a: 'arm:0', b: 'arm:1'}\n"
             "  - distance: {a: 'arm:1', b: 'arm:2'}\n"
             "  - angle: {a: 'arm:0', b: 'arm:1', c: 'arm:2', min: 120, max: 170}\n",
             integ[k]);
    tu_sim r = tu_sim_new(y);
    double lo = 180, hi = 0;
    for (int f = 0; f < 240; f++) {
      tu_sim_steps(&r, 1);
      double th = angle_at(tu_sim_x(&r, 0), tu_sim_x(&r, 1), tu_sim_x(&r, 2));
      lo = fmin(lo, th), hi = fmax(hi, th);
    }
    ck_assert_msg(lo > 120 - 0.5 && hi < 170 + 0.5, "%s: angle went to [%.2f, %.2f]", integ[k], lo, hi);
    ck_assert_msg(lo < 125, "%s: the min limit never engaged (%.2f)", integ[k], lo); /* it swings */
    tu_sim_free(&r);
  }
}
END_TEST

/* A cloth corner on a kinematic path is exactly on it at every frame; the
 * cloth follows by its links. */
START_TEST(cloth_follows_kinematic_pin) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.02, frames: 100, substeps: 3}\n"
      "bodies:\n"
      "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [8, 8], pin: [[0, 7]]}\n"
      "constraints:\n"
      "  - pin: {particle: 'c:7,7', keys: [[0, 1, 2, 0], [1, 3, 2, 0.5], [1.5, 3, 3, 0.5]]}\n");
  for (int f = 1; f <= 100; f++) {
    tu_sim_steps(&r, 1);
    double t = f * 0.02, e[3];
    if (t <= 1) e[0] = 1 + 2 * t, e[1] = 2, e[2] = 0.5 * t;
    else if (t <= 1.5) e[0] = 3, e[1] = 2 + (t - 1) / 0.5, e[2] = 0.5;
    else e[0] = 3, e[1] = 3, e[2] = 0.5;
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(tu_sim_x(&r, 63)[k], e[k], 1e-14);
  }
  /* the far corner was dragged along: it is no longer near its start */
  ck_assert_double_gt(tu_sim_x(&r, 7)[0], 1.2);
  tu_sim_free(&r);
}
END_TEST

/* Jakobsen's square-root approximation converges to the exact lengths: a
 * chain whose links start 2/3 too long is relaxed frame by frame; the first
 * corrections differ from the exact ones (the Taylor expansion is poor that
 * far from rest) but the fixed point is the same. */
START_TEST(sqrt_approximation_converges) {
  const char *fmt = "time: {dt: 0.016666666666666666, frames: 300}\n"
                    "solver: {integrator: %s, relaxation: %s, iterations: 2, damping: 5, sqrt_approximation: %s}\n"
                    "world: {gravity: [0, 0, 0]}\n"
                    "bodies:\n"
                    "  - particles: {name: p, positions: [[0, 0, 0], [1, 0, 0], [2, 0.5, 0], [3, 0, 0], [4, 0, 0.5]], pin: [0]}\n"
                    "constraints:\n"
                    "  - distance: {a: 'p:0', b: 'p:1', rest: 0.6}\n"
                    "  - distance: {a: 'p:1', b: 'p:2', rest: 0.6}\n"
                    "  - distance: {a: 'p:2', b: 'p:3', rest: 0.6}\n"
                    "  - distance: {a: 'p:3', b: 'p:4', rest: 0.6}\n";
  static const char *integ[] = {"verlet", "pbd", "xpbd"};
  for (int k = 0; k < 6; k++) {
    const char *in = integ[k % 3], *rl = k < 3 ? "gauss-seidel" : "jacobi";
    char y[1024];
    snprintf(y, sizeof y, fmt, in, rl, "true");
    tu_sim a = tu_sim_new(y);
    snprintf(y, sizeof y, fmt, in, rl, "false");
    tu_sim b = tu_sim_new(y);
    tu_sim_steps(&a, 1), tu_sim_steps(&b, 1);
    double d1 = 0;
    for (int i = 0; i < 5; i++) d1 = fmax(d1, dist(tu_sim_x(&a, i), tu_sim_x(&b, i)));
    ck_assert_msg(d1 > 1e-3, "%s/%s: the approximation changed nothing", in, rl);
    tu_sim_steps(&a, 299);
    ck_assert_msg(link_error(&a) < 1e-9, "%s/%s: approximate lengths off by %g", in, rl, link_error(&a));
    tu_sim_free(&a);
    tu_sim_free(&b);
  }
}
END_TEST

/* A particle at 200 m/s does not tunnel through a thin wall with world.swept,
 * and does without it; against a plane it stops on the surface. */
START_TEST(swept_test_stops_fast_particles) {
  const char *fmt = "time: {dt: 0.016666666666666666, frames: 30}\n"
                    "world:\n"
                    "  gravity: [0, 0, 0]\n"
                    "  swept: %s\n"
                    "  colliders:\n"
                    "    - box: {min: [1, -1, -1], max: [1.01, 1, 1]}\n"
                    "    - plane: {point: [0, -2, 0], normal: [0, 1, 0]}\n"
                    "bodies:\n"
                    "  - particles: {name: shot, positions: [[0, 0, 0], [0, -1, 0]],\n"
                    "                velocities: [[200, 0, 0], [0, -200, 0]], radius: 0.01}\n";
  char y[1024];
  snprintf(y, sizeof y, fmt, "true");
  tu_sim r = tu_sim_new(y);
  for (int f = 0; f < 30; f++) {
    tu_sim_steps(&r, 1);
    ck_assert_msg(tu_sim_x(&r, 0)[0] <= 1 - 0.01 + 1e-12, "frame %d: passed the wall, x = %g", f,
                  tu_sim_x(&r, 0)[0]);
    ck_assert_double_ge(tu_sim_x(&r, 1)[1], -2 + 0.01 - 1e-12);
  }
  tu_sim_free(&r);
  snprintf(y, sizeof y, fmt, "false");
  r = tu_sim_new(y);
  tu_sim_steps(&r, 30);
  ck_assert_double_gt(tu_sim_x(&r, 0)[0], 2.0); /* tunnelled: the test can fail */
  tu_sim_free(&r);
}
END_TEST

/* Angular momentum about the centre of mass, and the largest deviation of a
 * particle's velocity from the best rigid motion (v_cm + w x r). */
static void momentum(const tu_sim *r, double L[3], double P[3]) {
  double c[3] = {0, 0, 0}, M = 0;
  for (int i = 0; i < r->m->n_particles; i++) {
    M += r->m->mass[i];
    for (int k = 0; k < 3; k++) c[k] += r->m->mass[i] * tu_sim_x(r, i)[k];
  }
  for (int k = 0; k < 3; k++) c[k] /= M, L[k] = P[k] = 0;
  for (int i = 0; i < r->m->n_particles; i++) {
    const double mi = r->m->mass[i], *v = &r->s->v[3 * i];
    const double x[3] = {tu_sim_x(r, i)[0] - c[0], tu_sim_x(r, i)[1] - c[1],
                         tu_sim_x(r, i)[2] - c[2]};
    L[0] += mi * (x[1] * v[2] - x[2] * v[1]);
    L[1] += mi * (x[2] * v[0] - x[0] * v[2]);
    L[2] += mi * (x[0] * v[1] - x[1] * v[0]);
    for (int k = 0; k < 3; k++) P[k] += mi * v[k];
  }
}

/* Rigid-mode damping (PBD's dampVelocities) keeps linear and angular
 * momentum exactly while it removes the non-rigid part of the motion: free
 * particles with scattered velocities end up moving as one rigid body. */
START_TEST(rigid_damping_keeps_momentum_and_damps_deformation) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 60}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {name: cloud, positions: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, "
      "1]],\n"
      "                velocities: [[1, 0, 0], [0, 2, 0], [0, 0, -1], [-1, 1, 0], [0.5, -0.5, "
      "2]],\n"
      "                masses: [1, 2, 1, 3, 1], damping_rigid: 0.5}\n");
  double L0[3], P0[3], L[3], P[3];
  momentum(&r, L0, P0);
  tu_sim_steps(&r, 60);
  momentum(&r, L, P);
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(fabs(L[k] - L0[k]) < 1e-12 * (1 + fabs(L0[k])), "L[%d] %.17g vs %.17g", k, L[k], L0[k]);
    ck_assert_msg(fabs(P[k] - P0[k]) < 1e-12 * (1 + fabs(P0[k])), "P[%d]", k);
  }
  /* rigid now: the kinetic energy is that of the rigid motion alone,
   * 1/2 M |v_cm|^2 + 1/2 w.L with w = I^-1 L (I from the positions) */
  double c[3] = {0, 0, 0}, M = 0, I[3][3] = {{0}}, ke = 0;
  for (int i = 0; i < 5; i++) {
    M += r.m->mass[i];
    for (int k = 0; k < 3; k++) c[k] += r.m->mass[i] * tu_sim_x(&r, i)[k];
  }
  for (int k = 0; k < 3; k++) c[k] /= M;
  for (int i = 0; i < 5; i++) {
    const double mi = r.m->mass[i], x[3] = {tu_sim_x(&r, i)[0] - c[0], tu_sim_x(&r, i)[1] - c[1],
                                            tu_sim_x(&r, i)[2] - c[2]};
    const double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2], *v = &r.s->v[3 * i];
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 3; q++) I[p][q] += mi * ((p == q ? r2 : 0) - x[p] * x[q]);
    ke += 0.5 * mi * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  /* solve I w = L by Cramer's rule */
  double det = I[0][0] * (I[1][1] * I[2][2] - I[1][2] * I[2][1]) - I[0][1] * (I[1][0] * I[2][2] - I[1][2] * I[2][0]) +
               I[0][2] * (I[1][0] * I[2][1] - I[1][1] * I[2][0]);
  double w[3];
  for (int col = 0; col < 3; col++) {
    double A[3][3];
    memcpy(A, I, sizeof A);
    for (int p = 0; p < 3; p++) A[p][col] = L[p];
    w[col] = (A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
              A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0])) / det;
  }
  double ke_rigid = 0.5 * (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) / M + 0.5 * (w[0] * L[0] + w[1] * L[1] + w[2] * L[2]);
  /* (what is left comes from integrating a rotation along straight lines
   * for one step, O(h^2 w^2); the start had over half its energy in deformation) */
  ck_assert_msg(fabs(ke - ke_rigid) < 1e-3 * ke, "deformation energy %g of %g left", ke - ke_rigid, ke);
  tu_sim_free(&r);
}
END_TEST

/* ...and on a spinning, slightly compliant tetrahedron it takes no angular
 * momentum away (the projections themselves lose a little, ~5% here in 100
 * steps; the damped run keeps at least as much) while it calms the links. */
START_TEST(rigid_damping_leaves_rigid_spin_alone) {
  const char *fmt = "time: {dt: 0.01, frames: 100}\n"
                    "solver: {integrator: xpbd, iterations: 10}\n"
                    "world: {gravity: [0, 0, 0]}\n"
                    "bodies:\n"
                    "  - tetra: {name: t, center: [0, 0, 0], edge: 1, mass: 4, angular_velocity: [0, 2, 1],\n"
                    "            compliance: 1e-3, damping_rigid: %s}\n";
  char y[512];
  snprintf(y, sizeof y, fmt, "0.5");
  tu_sim a = tu_sim_new(y);
  snprintf(y, sizeof y, fmt, "0");
  tu_sim b = tu_sim_new(y);
  double ea = 0, eb = 0, L0[3], P0[3];
  momentum(&a, L0, P0);
  for (int f = 0; f < 100; f++) {
    tu_sim_steps(&a, 1), tu_sim_steps(&b, 1);
    ea = fmax(ea, link_error(&a)), eb = fmax(eb, link_error(&b));
  }
  double La[3], Pa[3], Lb[3], Pb[3];
  momentum(&a, La, Pa);
  momentum(&b, Lb, Pb);
  double na = sqrt(La[0] * La[0] + La[1] * La[1] + La[2] * La[2]);
  double nb = sqrt(Lb[0] * Lb[0] + Lb[1] * Lb[1] + Lb[2] * Lb[2]);
  ck_assert_msg(na >= nb - 1e-12, "damped |L| %g < undamped %g", na, nb);
  const double n0 = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
  ck_assert_msg(na > 0.9 * n0, "spin lost: |L| = %g of %g", na, n0);
  ck_assert_msg(ea <= eb, "links stretched more with damping: %g vs %g", ea, eb);
  tu_sim_free(&a);
  tu_sim_free(&b);
}
END_TEST

/* Every kind of docs/scene-format.md in one scene, under all three integrators and both
 * relaxations: it builds, steps, stays finite and keeps its links. */
START_TEST(every_kind_under_every_solver) {
  static const char *integ[] = {"verlet", "pbd", "xpbd"}, *relax[] = {"gauss-seidel", "jacobi"};
  for (int k = 0; k < 6; k++) {
    char y[4096];
    snprintf(y, sizeof y,
             "time: {dt: 0.016666666666666666, frames: 60, substeps: 2}\n"
             "solver: {integrator: %s, relaxation: %s, iterations: 10}\n"
             "world:\n"
             "  particle_collisions: true\n"
             "  colliders:\n"
             "    - plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5}\n"
             "    - sphere: {center: [3, 0, 0], radius: 0.5}\n"
             "    - box: {min: [-4, 0, -1], max: [-3, 0.3, 1]}\n"
             "    - bounds: {min: [-6, -1, -6], max: [6, 10, 6]}\n"
             "bodies:\n"
             "  - particles: {name: shot, positions: [[0, 3, 0], [0.2, 3, 0]], radius: 0.05}\n"
             "  - rope: {name: line, from: [-2, 3, 0], to: [-1, 3, 0], segments: 8, bend: {}, pin: [first]}\n"
             "  - cloth: {name: c, origin: [2.5, 1.5, -0.5], size: [1, 1], resolution: [8, 8], plane: xz,\n"
             "            shear: {}, bend: {stiffness: 0.3}, radius: 0.02, tear: 3}\n"
             "  - tetra: {name: die, center: [0, 1, 2], edge: 0.3, angular_velocity: [1, 2, 3]}\n"
             "  - lattice: {name: jelly, origin: [-1, 0.5, 2], size: [0.3, 0.3, 0.3], resolution: [3, 3, 3]}\n"
             "  - ragdoll: {name: bob, origin: [-3.5, 0.4, 0], height: 1.8, mass: 70}\n"
             "constraints:\n"
             "  - distance: {a: 'shot:0', b: 'shot:1', min: 0.1}\n"
             "  - distance: {a: 'line:8', b: 'die:0', rest: auto, compliance: 1e-4}\n"
             "  - angle: {a: 'bob:3', b: 'bob:5', c: 'bob:7', min: 20}\n"
             "  - pin: {particle: 'c:0,0', keys: [[0, 2.5, 1.5, -0.5], [1, 2.5, 2, -0.5]]}\n"
             "  - pin: {particle: 'jelly:2,2,2', at: [-0.7, 0.8, 2.3]}\n",
             integ[k % 3], relax[k / 3]);
    tu_sim r = tu_sim_new(y);
    tu_sim_steps(&r, 60);
    vs_observables o;
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_msg(isfinite(o.all.max) && o.all.max_relative < 0.5, "%s/%s: error %g", integ[k % 3],
                  relax[k / 3], o.all.max_relative);
    ck_assert_int_gt(o.kind[VS_KIND_ANGLE].count, 0);
    ck_assert_int_gt(o.kind[VS_KIND_PIN].count, 0);
    tu_sim_free(&r);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bodies");
  TCase *t = tcase_create("bodies");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, spinning_tetra_keeps_its_shape_and_comes_to_rest);
  tcase_add_test(t, jelly_block_bounces_settles_keeps_volume);
  tcase_add_test(t, ragdoll_falls_and_keeps_its_limits);
  tcase_add_test(t, arm_stays_within_angle_limits);
  tcase_add_test(t, cloth_follows_kinematic_pin);
  tcase_add_test(t, sqrt_approximation_converges);
  tcase_add_test(t, swept_test_stops_fast_particles);
  tcase_add_test(t, rigid_damping_keeps_momentum_and_damps_deformation);
  tcase_add_test(t, rigid_damping_leaves_rigid_spin_alone);
  tcase_add_test(t, every_kind_under_every_solver);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
