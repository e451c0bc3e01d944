/* SPDX-License-Identifier: MIT */
/* test_step.c: the physics of vs_step against exact and analytic answers. */
#include <math.h>

#include "testutil.h"
#include "solve/solve.h"

/* Scene templates below are format strings shared between tests. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Verlet free fall is exact: x(t) = x0 + v0 t + g t^2 / 2 (docs/physics.md, integrators). */
START_TEST(verlet_free_fall_is_exact) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 200, substeps: 3}\n"
      "solver: {integrator: verlet}\n"
      "world: {gravity: [0.5, -9.81, 0.25]}\n"
      "bodies:\n"
      "  - particles: {positions: [[1, 10, -2]], velocities: [[1.5, 4, -0.5]], mass: 2}\n");
  const double x0[3] = {1, 10, -2}, v0[3] = {1.5, 4, -0.5}, g[3] = {0.5, -9.81, 0.25};
  double worst = 0;
  for (int f = 1; f <= 200; f++) {
    tu_sim_steps(&r, 1);
    double t = f * 0.01;
    for (int k = 0; k < 3; k++) {
      double exact = x0[k] + v0[k] * t + 0.5 * g[k] * t * t;
      double d = fabs(tu_sim_x(&r, 0)[k] - exact);
      if (d > worst) worst = d;
    }
  }
  /* Verlet's rounding errors add up twice (velocity is a difference of
   * positions): ~ steps^2 * eps * |x| = 600^2 * 1.1e-16 * 10 = 4e-10.  A first
   * step without the g h^2 / 2 term would be off by ~3e-2. */
  ck_assert_msg(worst < 1e-9, "max deviation %g", worst);
  tu_sim_free(&r);
}
END_TEST

/* PBD free fall is symplectic Euler: v += g h; x += h v. */
START_TEST(pbd_free_fall_is_symplectic_euler) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.02, frames: 100, substeps: 2}\n"
      "solver: {integrator: pbd}\n"
      "bodies:\n"
      "  - particles: {positions: [[0, 5, 0]], velocities: [[2, 3, 0]]}\n");
  double x[3] = {0, 5, 0}, v[3] = {2, 3, 0};
  const double g[3] = {0, -9.81, 0}, h = 0.01;
  double worst = 0;
  for (int f = 1; f <= 100; f++) {
    tu_sim_steps(&r, 1);
    for (int sub = 0; sub < 2; sub++)
      for (int k = 0; k < 3; k++) v[k] += g[k] * h, x[k] += h * v[k];
    for (int k = 0; k < 3; k++) {
      double d = fabs(tu_sim_x(&r, 0)[k] - x[k]);
      if (d > worst) worst = d;
    }
  }
  ck_assert_msg(worst < 1e-10, "max deviation from symplectic Euler %g", worst);
  /* ...and it is not the exact parabola: the discrete solution lags by g h t / 2. */
  double t = 2.0, exact = 5 + 3 * t - 0.5 * 9.81 * t * t;
  ck_assert_double_gt(fabs(tu_sim_x(&r, 0)[1] - exact), 1e-3);
  tu_sim_free(&r);
}
END_TEST

/* Complete elliptic integral of the first kind by the arithmetic-geometric mean. */
static double ellip_k(double k) {
  double a = 1.0, b = sqrt(1.0 - k * k);
  for (int i = 0; i < 40; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return M_PI / (2.0 * a);
}

/* The pendulum's period, cycle by cycle: a cycle runs between two downward
 * zero crossings of x (linearly interpolated between frames); its amplitude is
 * the mean of the two swings inside it.  PBD loses a little energy every step,
 * so the amplitude decays and with it the exact period: each cycle is held to
 * the elliptic-integral period of its own amplitude, and the first cycle to
 * the period of the release angle. */
static void check_pendulum_cycles(tu_sim *r, int frames, double dt, double L, double g,
                                  double theta0) {
  double prev = tu_sim_x(r, 1)[0], t_down = -1, lo = 0, hi = 0;
  int cycles = 0;
  for (int f = 1; f <= frames; f++) {
    tu_sim_steps(r, 1);
    double x = tu_sim_x(r, 1)[0];
    if (x < lo) lo = x;
    if (x > hi) hi = x;
    if (prev > 0 && x <= 0) {
      double t = (f - 1 + prev / (prev - x)) * dt;
      if (t_down >= 0) {
        double T = t - t_down, amp = asin(0.5 * (hi - lo) / L);
        double exact = 4 * sqrt(L / g) * ellip_k(sin(amp / 2));
        ck_assert_msg(fabs(T - exact) / exact < 0.005, "cycle %d: period %.6f vs exact %.6f at %.2f deg",
                      cycles, T, exact, amp * 180 / M_PI);
        if (cycles == 0) {
          double T0 = 4 * sqrt(L / g) * ellip_k(sin(theta0 / 2));
          ck_assert_msg(fabs(T - T0) / T0 < 0.005, "first period %.6f vs %.6f", T, T0);
          /* the small-angle period 2 pi sqrt(L/g) is 7% off at 60 degrees */
          ck_assert_double_gt(fabs(T - 2 * M_PI * sqrt(L / g)) / T0, 0.03);
        }
        cycles++;
      }
      t_down = t;
      lo = hi = 0;
    }
    prev = x;
  }
  ck_assert_int_ge(cycles, 4);
}

START_TEST(xpbd_pendulum_period) {
  /* L = 1, released at rest at 60 degrees; 20 substeps of one iteration. */
  const double theta = M_PI / 3, L = 1.0, g = 9.81;
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.016666666666666666, frames: 900, substeps: 20}\n"
           "solver: {integrator: xpbd, iterations: 1}\n"
           "bodies:\n"
           "  - particles: {name: p, positions: [[0, 0, 0], [%.17g, %.17g, 0]], mass: 1, pin: [0]}\n"
           "constraints:\n"
           "  - distance: {a: 'p:0', b: 'p:1'}\n",
           L * sin(theta), -L * cos(theta));
  tu_sim r = tu_sim_new(yaml);
  check_pendulum_cycles(&r, 900, 1.0 / 60, L, g, theta);
  tu_sim_free(&r);
}
END_TEST

/* Energy observables, and XPBD's dissipation with small steps: an undamped
 * pendulum with 100 substeps loses under 1% of its energy per period
 * (Macklin et al. 2019, "Small steps in physics simulation"). */
START_TEST(xpbd_pendulum_energy_per_period) {
  const double theta = M_PI / 3, L = 1.0, g = 9.81;
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.016666666666666666, frames: 260, substeps: 100}\n"
           "solver: {integrator: xpbd, iterations: 1}\n"
           "bodies:\n"
           "  - particles: {name: p, positions: [[0, 0, 0], [%.17g, %.17g, 0]], mass: 2, pin: [0]}\n"
           "constraints:\n"
           "  - distance: {a: 'p:0', b: 'p:1'}\n",
           L * sin(theta), -L * cos(theta));
  tu_sim r = tu_sim_new(yaml);
  vs_observables o;
  vs_observe(r.m, r.s, &o, NULL);
  /* at release: at rest, potential -m g.x = m g y = 2 * 9.81 * (-0.5) */
  ck_assert_double_eq(o.kinetic, 0.0);
  ck_assert_double_eq_tol(o.potential, -2 * g * L * cos(theta), 1e-12);
  const double E0 = o.kinetic + o.potential, Ebottom = -2 * g * L; /* energy above the bottom */
  tu_sim_steps(&r, 260);
  vs_observe(r.m, r.s, &o, NULL);
  double T = 4 * sqrt(L / g) * ellip_k(sin(theta / 2)), periods = 260 / 60.0 / T;
  double lost = (E0 - (o.kinetic + o.potential)) / (E0 - Ebottom);
  ck_assert_msg(lost > 0, "energy grew: %g", lost);
  ck_assert_msg(lost / periods < 0.01, "lost %.3f%% per period", 100 * lost / periods);
  tu_sim_free(&r);
}
END_TEST

/* A chain of length S0 hung between two pins a span S apart settles to the
 * catenary y = a cosh(x / a): S0 = 2 a sinh(S / 2a), sag = a (cosh(S / 2a) - 1). */
START_TEST(hanging_chain_catenary_sag) {
  const double S0 = 2.0, S = 1.6;
  const int N = 60;
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.016666666666666666, frames: 900, substeps: 8}\n"
           "solver: {integrator: xpbd, iterations: 20, damping: 2.0}\n"
           "bodies:\n"
           "  - rope: {name: c, from: [0, 0, 0], to: [%.17g, 0, 0], segments: %d, mass: 1, pin: [first]}\n"
           "constraints:\n"
           "  - pin: {particle: 'c:%d', at: [%.17g, 0, 0]}\n",
           S0, N, N, S);
  tu_sim r = tu_sim_new(yaml);
  tu_sim_steps(&r, 900);
  /* Solve S0 = 2 a sinh(S / 2a) for a by bisection. */
  double lo = 0.01, hi = 100;
  for (int i = 0; i < 200; i++) {
    double a = 0.5 * (lo + hi);
    if (2 * a * sinh(S / (2 * a)) > S0) lo = a;
    else hi = a;
  }
  double a = 0.5 * (lo + hi), sag = a * (cosh(S / (2 * a)) - 1);
  double ymin = 0;
  for (int i = 0; i <= N; i++)
    if (tu_sim_x(&r, i)[1] < ymin) ymin = tu_sim_x(&r, i)[1];
  ck_assert_msg(fabs(-ymin - sag) / sag < 0.01, "sag %.5f vs catenary %.5f", -ymin, sag);
  /* and it is at rest */
  ck_assert_double_lt(fabs(r.s->v[3 * (N / 2) + 1]), 1e-3);
  tu_sim_free(&r);
}
END_TEST

START_TEST(resting_particle_never_sinks) {
  static const char *integrators[] = {"verlet", "pbd", "xpbd"};
  for (int k = 0; k < 3; k++) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "time: {dt: 0.01, frames: 300}\n"
             "solver: {integrator: %s}\n"
             "world: {colliders: [{plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5}}]}\n"
             "bodies:\n"
             "  - particles: {positions: [[0, 1, 0]], velocities: [[0.5, 0, 0]], radius: 0.1}\n",
             integrators[k]);
    tu_sim r = tu_sim_new(yaml);
    for (int f = 0; f < 300; f++) {
      tu_sim_steps(&r, 1);
      ck_assert_msg(tu_sim_x(&r, 0)[1] >= 0.1 - 1e-12, "%s frame %d: y = %.17g below the radius",
                    integrators[k], f, tu_sim_x(&r, 0)[1]);
    }
    ck_assert_double_lt(fabs(tu_sim_x(&r, 0)[1] - 0.1), 1e-9); /* at rest on the plane */
    double v[3];
    vs_state_velocity(r.m, r.s, v);
    ck_assert_msg(fabs(v[0]) < 1e-9, "%s: friction left vx = %g", integrators[k], v[0]);
    tu_sim_free(&r);
  }
}
END_TEST

/* Restitution e reflects the normal speed: apex after the bounce is e^2 h0. */
START_TEST(restitution_half_bounces_to_a_quarter) {
  static const char *integrators[] = {"verlet", "pbd", "xpbd"};
  for (int k = 0; k < 3; k++) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "time: {dt: 0.005, frames: 400, substeps: 4}\n"
             "solver: {integrator: %s}\n"
             "world: {colliders: [{plane: {point: [0, 0, 0], normal: [0, 1, 0], restitution: 0.5}}]}\n"
             "bodies:\n"
             "  - particles: {positions: [[0, 1, 0]]}\n",
             integrators[k]);
    tu_sim r = tu_sim_new(yaml);
    int bounced = 0;
    double apex = 0, prev = 1;
    for (int f = 0; f < 400; f++) {
      tu_sim_steps(&r, 1);
      double y = tu_sim_x(&r, 0)[1];
      if (!bounced && y > prev) bounced = 1;
      if (bounced && y > apex) apex = y;
      if (bounced && y < prev - 1e-9 && apex > 0) break; /* past the apex */
      prev = y;
    }
    ck_assert_msg(bounced, "%s: never bounced", integrators[k]);
    ck_assert_msg(fabs(apex - 0.25) < 0.02, "%s: apex %.4f, expected about 0.25", integrators[k], apex);
    tu_sim_free(&r);
  }
}
END_TEST

START_TEST(pins_do_not_move_and_kinematic_pins_follow_keys) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.05, frames: 60, substeps: 3}\n"
      "bodies:\n"
      "  - rope: {name: r, from: [0, 2, 0], to: [1, 2, 0], segments: 10, pin: [first]}\n"
      "constraints:\n"
      "  - pin: {particle: 'r:10', keys: [[0, 1, 2, 0], [1, 1, 1, 0], [2, 0.5, 1, 0.5]]}\n");
  for (int f = 1; f <= 60; f++) {
    tu_sim_steps(&r, 1);
    ck_assert(tu_sim_x(&r, 0)[0] == 0 && tu_sim_x(&r, 0)[1] == 2 && tu_sim_x(&r, 0)[2] == 0);
    double t = f * 0.05, exp[3];
    if (t <= 1) exp[0] = 1, exp[1] = 2 - t, exp[2] = 0;
    else if (t <= 2) exp[0] = 1 - 0.5 * (t - 1), exp[1] = 1, exp[2] = 0.5 * (t - 1);
    else exp[0] = 0.5, exp[1] = 1, exp[2] = 0.5;
    for (int k = 0; k < 3; k++)
      ck_assert_msg(fabs(tu_sim_x(&r, 10)[k] - exp[k]) < 1e-14, "frame %d axis %d: %.17g vs %.17g",
                    f, k, tu_sim_x(&r, 10)[k], exp[k]);
  }
  vs_observables o;
  vs_observe(r.m, r.s, &o, NULL);
  ck_assert_double_eq(o.kind[VS_KIND_PIN].max, 0.0);
  tu_sim_free(&r);
}
END_TEST

START_TEST(one_sided_distance_only_pushes_apart) {
  /* Two particles 1 m apart, a min-0.5 link: free fall side by side, untouched. */
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 20}\n"
      "bodies:\n"
      "  - particles: {name: s, positions: [[0, 0, 0], [1, 0, 0]], velocities: [[1, 0, 0], [-1, 0, "
      "0]]}\n"
      "constraints:\n"
      "  - distance: {a: 's:0', b: 's:1', min: 0.5}\n");
  tu_sim_steps(&r, 20);
  /* they approached by 0.4 m, still apart, link inactive */
  ck_assert_double_lt(fabs((tu_sim_x(&r, 1)[0] - tu_sim_x(&r, 0)[0]) - 0.6), 1e-12);
  tu_sim_steps(&r, 40);
  /* would have crossed; the link holds them at >= 0.5 */
  ck_assert_double_ge(tu_sim_x(&r, 1)[0] - tu_sim_x(&r, 0)[0], 0.5 - 1e-12);
  tu_sim_free(&r);
}
END_TEST

START_TEST(xpbd_zero_compliance_matches_pbd) {
  const char *fmt = "time: {dt: 0.01, frames: 50, substeps: 2}\n"
                    "solver: {integrator: %s, iterations: 5}\n"
                    "bodies:\n"
                    "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [6, 6], pin: top-corners}\n";
  char a[512], b[512];
  snprintf(a, sizeof a, fmt, "pbd");
  snprintf(b, sizeof b, fmt, "xpbd");
  tu_sim p = tu_sim_new(a), x = tu_sim_new(b);
  for (int f = 0; f < 50; f++) tu_sim_steps(&p, 1), tu_sim_steps(&x, 1);
  double worst = 0;
  for (int i = 0; i < p.m->n_particles; i++)
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(tu_sim_x(&p, i)[k] - tu_sim_x(&x, i)[k]));
  ck_assert_msg(worst < 1e-9, "pbd vs xpbd(compliance 0) differ by %g", worst);
  tu_sim_free(&p);
  tu_sim_free(&x);
}
END_TEST

START_TEST(xpbd_compliance_makes_links_soft) {
  /* A mass hanging on a compliant link stretches by about m g compliance. */
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 600, substeps: 10}\n"
      "solver: {integrator: xpbd, iterations: 4, damping: 5}\n"
      "bodies:\n"
      "  - particles: {name: s, positions: [[0, 0, 0], [0, -1, 0]], mass: 2, pin: [0]}\n"
      "constraints:\n"
      "  - distance: {a: 's:0', b: 's:1', compliance: 0.001}\n");
  tu_sim_steps(&r, 600);
  double stretch = -tu_sim_x(&r, 1)[1] - 1.0, expect = 2 * 9.81 * 0.001;
  ck_assert_msg(fabs(stretch - expect) / expect < 0.01, "stretch %g vs m g alpha %g", stretch, expect);
  tu_sim_free(&r);
}
END_TEST

START_TEST(tearing_breaks_links_for_good) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 100}\n"
      "bodies:\n"
      "  - rope: {name: r, from: [0, 0, 0], to: [0, -1, 0], segments: 4, mass: 0.01, pin: "
      "[first],\n"
      "           stretch: {stiffness: 0.2}, tear: 1.05}\n"
      "  - particles: {name: w, positions: [[0, -1.25, 0]], mass: 50}\n"
      "constraints:\n"
      "  - distance: {a: 'r:4', b: 'w:0', stiffness: 1}\n");
  int64_t before = r.s->n_alive, prev = before;
  for (int f = 0; f < 100; f++) {
    tu_sim_steps(&r, 1);
    ck_assert_int_le(r.s->n_alive, prev);
    prev = r.s->n_alive;
  }
  ck_assert_int_lt(r.s->n_alive, before);
  vs_observables o;
  vs_observe(r.m, r.s, &o, NULL);
  ck_assert_int_eq(o.alive, r.s->n_alive + 0 /* explicit distance has no tear */ );
  tu_sim_free(&r);
}
END_TEST

START_TEST(damping_slows_motion) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 100}\n"
      "solver: {damping: 1.0}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {positions: [[0, 0, 0]], velocities: [[1, 0, 0]]}\n");
  tu_sim_steps(&r, 100);
  /* v_n = (1 - c h)^n */
  ck_assert_double_lt(fabs(r.s->v[0] - pow(0.99, 100)), 1e-12);
  tu_sim_free(&r);
}
END_TEST

static const char *det_scene =
    "time: {dt: 0.016666666666666666, frames: 40, substeps: 2}\n"
    "solver: {integrator: %s, relaxation: %s, iterations: 6}\n"
    "world:\n"
    "  colliders:\n"
    "    - sphere: {center: [0, 0, 0], radius: 0.4, friction: 0.2}\n"
    "    - plane: {point: [0, -0.6, 0], normal: [0, 1, 0], restitution: 0.3}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [-1, 0.6, -1], size: [2, 2], resolution: [96, 96], plane: xz,\n"
    "            radius: 0.005, shear: {stiffness: 0.8}, bend: {stiffness: 0.3}, pin: [[0, 95], [95, 95]], tear: 1.3}\n";

/* Bitwise identical results for any thread count (docs/physics.md, determinism). */
START_TEST(jacobi_is_bitwise_identical_across_threads) {
  static const char *integrators[] = {"pbd", "xpbd", "verlet"};
  for (int k = 0; k < 3; k++) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml, det_scene, integrators[k], "jacobi");
    tu_sim ref = tu_sim_new(yaml);
    ck_assert_int_gt(ref.m->n_colors, 1);
    tu_sim_steps(&ref, 40);
    ck_assert_int_lt(ref.s->n_alive, ref.m->n_dist); /* the scene does tear */
    for (int threads = 2; threads <= 4; threads++) {
      tu_sim r = tu_sim_new(yaml);
      r.s->threads = threads;
      tu_sim_steps(&r, 40);
      ck_assert_msg(memcmp(r.s->x, ref.s->x, 4 * sizeof(double) * r.m->n_particles) == 0,
                    "%s: positions differ with %d threads", integrators[k], threads);
      ck_assert(memcmp(r.s->alive, ref.s->alive, r.m->n_dist) == 0);
      tu_sim_free(&r);
    }
    tu_sim_free(&ref);
  }
}
END_TEST

START_TEST(runs_are_bitwise_repeatable) {
  char yaml[1024];
  snprintf(yaml, sizeof yaml, det_scene, "pbd", "gauss-seidel");
  tu_sim a = tu_sim_new(yaml), b = tu_sim_new(yaml);
  for (int f = 0; f < 20; f++) tu_sim_steps(&a, 1), tu_sim_steps(&b, 1);
  ck_assert(memcmp(a.s->x, b.s->x, 4 * sizeof(double) * a.m->n_particles) == 0);
  tu_sim_free(&a);
  tu_sim_free(&b);
}
END_TEST

START_TEST(jacobi_converges_like_gauss_seidel) {
  /* Both relaxations hold a hanging cloth's links to a small relative error. */
  const char *fmt = "time: {dt: 0.016666666666666666, frames: 60, substeps: 4}\n"
                    "solver: {relaxation: %s, iterations: 20}\n"
                    "bodies:\n"
                    "  - cloth: {origin: [0, 0, 0], size: [1, 1], resolution: [16, 16], pin: top-edge}\n";
  for (int j = 0; j < 2; j++) {
    char yaml[512];
    snprintf(yaml, sizeof yaml, fmt, j ? "jacobi" : "gauss-seidel");
    tu_sim r = tu_sim_new(yaml);
    tu_sim_steps(&r, 60);
    vs_observables o;
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_msg(o.all.max_relative < 0.02, "%s: max relative error %g", j ? "jacobi" : "gs",
                  o.all.max_relative);
    tu_sim_free(&r);
  }
}
END_TEST

START_TEST(non_finite_state_is_reported) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 5}\n"
      "bodies:\n"
      "  - particles: {name: shot, positions: [[0, 0, 0], [1, 0, 0]]}\n");
  r.s->x[4 * 1 + 1] = NAN;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_step(r.m, r.s, &e), VS_ERR_NUMERIC);
  ck_assert_ptr_nonnull(strstr(e.message, "shot"));
  ck_assert_ptr_nonnull(strstr(e.message, "frame 1"));
  tu_sim_free(&r);
}
END_TEST

START_TEST(runaway_is_reported_with_the_constraint_that_moved_it) {
  /* A very stiff over-relaxed link kicked hard: the second particle flies off. */
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 5}\n"
      "solver: {runaway_speed: 50}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {name: pair, positions: [[0, 0, 0], [0.01, 0, 0]], pin: [0]}\n"
      "constraints:\n"
      "  - distance: {a: 'pair:0', b: 'pair:1', rest: 2}\n");
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_step(r.m, r.s, &e), VS_ERR_NUMERIC);
  ck_assert_ptr_nonnull(strstr(e.message, "frame 1"));
  ck_assert_ptr_nonnull(strstr(e.message, "body 'pair', index 1"));
  ck_assert_ptr_nonnull(strstr(e.message, "runs away"));
  ck_assert_ptr_nonnull(strstr(e.message, "distance constraint 0"));
  tu_sim_free(&r);
  /* 0 turns the bound off: the same scene steps on */
  r = tu_sim_new(
      "time: {dt: 0.01, frames: 5}\n"
      "solver: {runaway_speed: 0}\n"
      "world: {gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - particles: {name: pair, positions: [[0, 0, 0], [0.01, 0, 0]], pin: [0]}\n"
      "constraints:\n"
      "  - distance: {a: 'pair:0', b: 'pair:1', rest: 2}\n");
  tu_sim_steps(&r, 1);
  tu_sim_free(&r);
}
END_TEST

/* Speeds whose squares overflow: a rigid body at 1e200 m/s was "not
 * finite (1e+198, 0.999, 0)" (its position, finite, printed) and a
 * particle ran away "at inf m/s".  Both run away at 1e+200 m/s; with the
 * bound off the rigid body steps on; what is not finite is named (an
 * orientation here, its position finite). */
START_TEST(huge_speeds_are_named_as_they_are) {
  static const char *const rigid =
      "time: {dt: 0.01, frames: 5}\nsolver: {runaway_speed: %s}\n"
      "bodies:\n  - rigid: {name: shot, shape: sphere, radius: 0.1, position: [0, 1, 0], "
      "velocity: [1e200, 0, 0]}\n";
  char yaml[512];
  snprintf(yaml, sizeof yaml, rigid, "10000");
  tu_sim r = tu_sim_new(yaml);
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_step(r.m, r.s, &e), VS_ERR_NUMERIC);
  ck_assert_msg(strstr(e.message, "rigid body 'shot' runs away at 1e+200 m/s (solver.runaway_speed "
                                   "= 10000)"),
                "%s", e.message);
  ck_assert_ptr_null(strstr(e.message, "not finite"));
  tu_sim_free(&r);
  snprintf(yaml, sizeof yaml, rigid, "0");
  r = tu_sim_new(yaml);
  tu_sim_steps(&r, 1);
  r.s->rq[0] = NAN;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_step(r.m, r.s, &e), VS_ERR_NUMERIC);
  ck_assert_msg(strstr(e.message, "rigid body 'shot' is not finite: orientation (nan, "), "%s",
                e.message);
  tu_sim_free(&r);
  r = tu_sim_new("time: {dt: 0.01, frames: 5}\nbodies:\n  - particles: {name: p, positions: "
                 "[[0, 1, 0]], velocities: [[1e200, 0, 0]]}\n");
  vs_error_clear(&e);
  ck_assert_int_eq(vs_step(r.m, r.s, &e), VS_ERR_NUMERIC);
  ck_assert_msg(strstr(e.message, "runs away at 1e+200 m/s"), "%s", e.message);
  tu_sim_free(&r);
}
END_TEST

START_TEST(sphere_and_box_and_bounds_hold_particles) {
  tu_sim r = tu_sim_new(
      "time: {dt: 0.01, frames: 200, substeps: 2}\n"
      "world:\n"
      "  gravity: [0.3, -9.81, 0.2]\n"
      "  colliders:\n"
      "    - sphere: {center: [0, 0, 0], radius: 0.5}\n"
      "    - box: {min: [1, -1, -1], max: [2, 0, 1]}\n"
      "    - bounds: {min: [-3, -1, -3], max: [3, 5, 3]}\n"
      "bodies:\n"
      "  - particles: {positions: [[0.05, 2, 0], [1.5, 1, 0], [0, 4, 0]],\n"
      "                velocities: [[0, 0, 0], [0, 0, 0], [30, 0, -25]], radius: 0.05}\n");
  for (int f = 0; f < 200; f++) {
    tu_sim_steps(&r, 1);
    vs_observables o;
    vs_observe(r.m, r.s, &o, NULL);
    ck_assert_msg(o.penetration_max < 1e-12, "frame %d: penetration %g", f, o.penetration_max);
  }
  tu_sim_free(&r);
}
END_TEST

/* An xpbd multiplier belongs to its constraint (slot = build-order
 * id), not to a place in the relaxation's order.  Constraints that share no
 * particle are solved identically by Gauss-Seidel (build order) and coloured
 * Jacobi (two-sided links first, then one-sided ones, then other kinds), so
 * positions, velocities and the multiplier array must agree to the bit.
 * Before the fix, Jacobi's two-sided link 1 and one-sided link 0 shared
 * slot 0, and the one-sided link moved differently. */
START_TEST(xpbd_multipliers_do_not_depend_on_the_relaxation) {
  static const char *tmpl =
      "time: {dt: 0.01, frames: 10, substeps: 2}\n"
      "solver: {integrator: xpbd, relaxation: %s, iterations: 3}\n"
      "bodies:\n"
      "  - particles: {name: p, positions: [[0, 0, 0], [0.5, 0, 0], [3, 0, 0], [4, 0, 0],\n"
      "                [6, 0, 0], [7, 0, 0], [6.2, 0.5, 0]]}\n"
      "constraints:\n"
      "  - distance: {a: 'p:0', b: 'p:1', min: 1, compliance: 0.01}\n"
      "  - distance: {a: 'p:2', b: 'p:3', rest: 2, compliance: 0.02}\n"
      "  - angle: {a: 'p:4', b: 'p:5', c: 'p:6', min: 90, compliance: 0.005}\n";
  char yaml[1024];
  snprintf(yaml, sizeof yaml, tmpl, "gauss-seidel");
  tu_sim gs = tu_sim_new(yaml);
  snprintf(yaml, sizeof yaml, tmpl, "jacobi");
  tu_sim ja = tu_sim_new(yaml);
  ck_assert_int_eq(ja.m->n_colors, 1); /* all independent */
  const size_t n = (size_t)gs.m->n_particles, nc = (size_t)gs.m->n_constraints;
  for (int f = 0; f < 10; f++) {
    tu_sim_steps(&gs, 1);
    tu_sim_steps(&ja, 1);
    for (size_t id = 0; id < nc; id++) {
      /* every constraint starts violated: all three work in the first frame */
      if (f == 0) ck_assert_msg(gs.s->lambda[id] != 0.0, "constraint %zu did no work", id);
      ck_assert_msg(gs.s->lambda[id] == ja.s->lambda[id], "frame %d, multiplier %zu: gauss-seidel %.17g, jacobi %.17g",
                    f, id, gs.s->lambda[id], ja.s->lambda[id]);
    }
    ck_assert_msg(memcmp(gs.s->x, ja.s->x, 4 * n * sizeof(double)) == 0, "frame %d: positions differ", f);
    ck_assert_msg(memcmp(gs.s->v, ja.s->v, 3 * n * sizeof(double)) == 0, "frame %d: velocities differ", f);
  }
  tu_sim_free(&gs);
  tu_sim_free(&ja);
}
END_TEST

/* vs_observe's statistics against a reference that measures every
 * constraint through its kind's error function, in id order, as it did
 * before it walked runs of distance links over the link table: every
 * figure the same bits.  Cloths (two-sided, torn links), a ragdoll (one-
 * sided links, angle limits), explicit pins and one-sided links between the
 * bodies, which break the runs; positions jittered at several scales so the
 * relative maximum moves up and down the link order, on each integrator.
 * (The ragdoll's limits are one-sided links; the angle is explicit.)  A
 * rope whose links are stretched a hair more one after the other checks
 * that no link that raises the relative maximum is passed over. */
typedef struct ref_acc {
  double max, sum2, max_rel;
  int64_t n;
} ref_acc;
static void ref_add(ref_acc *a, double e, double rest) {
  if (e > a->max) a->max = e;
  a->sum2 += e * e;
  if (rest > 0.0 && e / rest > a->max_rel) a->max_rel = e / rest;
  a->n++;
}
static void same_stats(const vs_error_stats *got, const ref_acc *a, const char *what) {
  const double rms = a->n ? sqrt(a->sum2 / (double)a->n) : 0.0;
  ck_assert_msg(memcmp(&got->max, &a->max, sizeof a->max) == 0, "%s max %.17g, want %.17g", what,
                got->max, a->max);
  ck_assert_msg(memcmp(&got->rms, &rms, sizeof rms) == 0, "%s rms %.17g, want %.17g", what,
                got->rms, rms);
  ck_assert_msg(memcmp(&got->max_relative, &a->max_rel, sizeof a->max_rel) == 0,
                "%s max_relative %.17g, want %.17g", what, got->max_relative, a->max_rel);
  ck_assert_int_eq(got->count, a->n);
}
START_TEST(observe_is_the_per_constraint_measure_bit_for_bit) {
  static const char *integ[] = {"verlet", "pbd", "xpbd"};
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "time: {dt: 0.01, frames: 10}\n"
           "solver: {integrator: %s}\n"
           "bodies:\n"
           "  - rope: {name: q, from: [0, 5, 0], to: [10, 5, 0], segments: 200}\n"
           "  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [16, 12], pin: top-edge, tear: 1.2}\n"
           "  - ragdoll: {name: r, origin: [3, 0, 0], height: 1.8}\n"
           "  - cloth: {name: d, origin: [0, 0, 2], size: [0.5, 0.5], resolution: [5, 5]}\n"
           "constraints:\n"
           "  - distance: {a: 'c:0', b: 'r:0', max: 3}\n"
           "  - pin: {particle: 'c:3,3'}\n"
           "  - angle: {a: 'r:9', b: 'r:11', c: 'r:13', min: 170}\n"
           "  - distance: {a: 'c:1', b: 'd:2', min: 2.5}\n"
           "  - distance: {a: 'd:0', b: 'd:7'}\n",
           integ[_i]);
  tu_sim r = tu_sim_new(yaml);
  const vs_model *m = r.m;
  tu_sim_steps(&r, 5);
  unsigned seed = 12345u + (unsigned)_i;
  for (int round = 0; round < 6; round++) {
    /* jitter at 1e-2 .. 1e-12 m, so the ratios e / rest land near each other */
    const double scale = pow(10.0, -2.0 * (round + 1));
    for (int32_t i = 0; i < m->n_particles; i++)
      for (int d = 0; d < 3; d++) {
        seed = seed * 1103515245u + 12345u;
        r.s->x[4 * i + d] += scale * ((double)(seed >> 8) / 16777216.0 - 0.5);
      }
    if (round == 2)
      for (int32_t k = 3; k < m->n_dist; k += 7) r.s->alive[k] = 0; /* torn */
    if (round >= 1) {
      /* the rope (particles 0..200, links 0..199) stretched by 60% and a
       * little more link after link, by 2^-27 .. 2^-31 of the stretch: each
       * link raises the relative maximum by a hair */
      double at = 0.0;
      for (int32_t j = 0; j <= 200; j++) {
        r.s->x[4 * j] = at, r.s->x[4 * j + 1] = 5.0, r.s->x[4 * j + 2] = 0.0;
        if (j < 200) at += m->dist_rest[j] * (1.6 + 0.6 * j * ldexp(1.0, -26 - round));
      }
    }
    ref_acc kind[VS_KIND_COUNT], all;
    memset(kind, 0, sizeof kind);
    memset(&all, 0, sizeof all);
    double *want = calloc((size_t)m->n_constraints + 1, sizeof *want);
    double *got = calloc((size_t)m->n_constraints + 1, sizeof *got);
    int64_t alive = 0;
    for (int32_t id = 0; id < m->n_constraints; id++) {
      const vs_kind k = (vs_kind)m->con_kind[id];
      double e = 0.0, rest = 0.0;
      if (!vs_kind_solver[k].error(m, r.s, m->con_index[id], &e, &rest)) continue;
      alive++;
      ref_add(&kind[k], e, rest);
      ref_add(&all, e, rest);
      want[id] = e;
    }
    double ke = 0.0, pe = 0.0;
    for (int32_t i = 0; i < m->n_particles; i++) {
      if (m->x0[4 * i + 3] == 0.0) continue;
      const double mass = m->mass[i], *x = r.s->x + 4 * i;
      double v[3];
      for (int d = 0; d < 3; d++)
        v[d] = m->integrator == VS_INTEGRATOR_VERLET ? (x[d] - r.s->xprev[4 * i + d]) / m->h
                                                     : r.s->v[3 * i + d];
      ke += 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      pe -= mass * (m->gravity[0] * x[0] + m->gravity[1] * x[1] + m->gravity[2] * x[2]);
    }
    vs_observables o;
    vs_observe(m, r.s, &o, got);
    char what[64];
    for (int k = 0; k < VS_KIND_COUNT; k++) {
      snprintf(what, sizeof what, "%s round %d kind %d", integ[_i], round, k);
      same_stats(&o.kind[k], &kind[k], what);
    }
    snprintf(what, sizeof what, "%s round %d all", integ[_i], round);
    same_stats(&o.all, &all, what);
    ck_assert_int_eq(o.alive, alive);
    ck_assert_msg(memcmp(got, want, (size_t)m->n_constraints * sizeof *got) == 0,
                  "%s round %d: per-constraint errors differ", integ[_i], round);
    ck_assert_msg(memcmp(&o.kinetic, &ke, sizeof ke) == 0 && memcmp(&o.potential, &pe, sizeof pe) == 0,
                  "%s round %d: energy %.17g %.17g, want %.17g %.17g", integ[_i], round, o.kinetic,
                  o.potential, ke, pe);
    ck_assert(o.kind[VS_KIND_DISTANCE].count > 0 && o.kind[VS_KIND_ANGLE].count > 0 &&
              o.kind[VS_KIND_PIN].count > 0);
    ck_assert(o.all.count < m->n_constraints || round < 2);
    free(want);
    free(got);
  }
  tu_sim_free(&r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("step");
  TCase *t = tcase_create("physics");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, verlet_free_fall_is_exact);
  tcase_add_test(t, pbd_free_fall_is_symplectic_euler);
  tcase_add_test(t, xpbd_pendulum_period);
  tcase_add_test(t, hanging_chain_catenary_sag);
  tcase_add_test(t, xpbd_pendulum_energy_per_period);
  tcase_add_test(t, resting_particle_never_sinks);
  tcase_add_test(t, restitution_half_bounces_to_a_quarter);
  tcase_add_test(t, pins_do_not_move_and_kinematic_pins_follow_keys);
  tcase_add_test(t, one_sided_distance_only_pushes_apart);
  tcase_add_test(t, xpbd_zero_compliance_matches_pbd);
  tcase_add_test(t, xpbd_compliance_makes_links_soft);
  tcase_add_test(t, tearing_breaks_links_for_good);
  tcase_add_test(t, damping_slows_motion);
  tcase_add_test(t, jacobi_is_bitwise_identical_across_threads);
  tcase_add_test(t, runs_are_bitwise_repeatable);
  tcase_add_test(t, jacobi_converges_like_gauss_seidel);
  tcase_add_test(t, non_finite_state_is_reported);
  tcase_add_test(t, sphere_and_box_and_bounds_hold_particles);
  tcase_add_test(t, runaway_is_reported_with_the_constraint_that_moved_it);
  tcase_add_test(t, huge_speeds_are_named_as_they_are);
  tcase_add_test(t, xpbd_multipliers_do_not_depend_on_the_relaxation);
  tcase_add_loop_test(t, observe_is_the_per_constraint_measure_bit_for_bit, 0, 3);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
