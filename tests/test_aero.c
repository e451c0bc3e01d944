/* SPDX-License-Identifier: MIT */
/* test_aero.c: the air (docs/physics.md, "Air"): wind, pressure drag and
 * lift of cloth triangles, air drag of particles and rigid bodies, against
 * the model's exact and analytic answers; bitwise across threads,
 * relaxations and --resume; the scene errors. */
#include <math.h>
#include <string.h>

#include "runutil.h"

/* Scene templates below are format strings. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define G 9.81
#define RHO 1.2

static tu_sim sim_f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static tu_sim sim_f(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return tu_sim_new(buf);
}

/* Total momentum of the particles (kg m/s) from their velocities (pbd, xpbd). */
static void momentum(const tu_sim *r, double p[3]) {
  p[0] = p[1] = p[2] = 0.0;
  for (int32_t i = 0; i < r->m->n_particles; i++)
    for (int k = 0; k < 3; k++) p[k] += r->m->mass[i] * r->s->v[3 * i + k];
}

/* A horizontal sheet falling flat with drag reaches v_t = sqrt(2 M g / (rho
 * C_d A)) and stays flat.  A cloth spreads its mass evenly, so its edge
 * particles, with half an inner one's area, fall ahead of the middle: the
 * sheet bows, which slowly tilts its outer triangles (a falling plate is
 * unstable); with stiff shear and bend links and rigid-mode damping it
 * stays within 5 cm over 2 s (about 15 times v_t / g) and the drag within
 * 2 %.  A mesh body lumps its mass by triangle area, as the drag is: every
 * particle then has the same acceleration, the sheet stays flat to
 * rounding and reaches v_t to the integrator's fixed point. */
START_TEST(sheet_reaches_terminal_speed) {
  const double M = 0.1, A = 1.0, cd = 1.0;
  const double vt = sqrt(2.0 * M * G / (RHO * cd * A));
  const char *integ[] = {"pbd", "xpbd", "verlet"};
  for (int it = 0; it < 3; it++) {
    tu_sim r = sim_f(
        "time: {dt: 1/120, frames: 1, substeps: 4}\n"
        "solver: {integrator: %s, iterations: 30}\n"
        "bodies:\n"
        "  - cloth: {origin: [0, 100, 0], size: [1, 1], resolution: [11, 11], plane: xz,\n"
        "            mass: %g, drag: %g, shear: {}, bend: {}, damping_rigid: 0.5}\n",
        integ[it], M, cd);
    const int32_t n = r.m->n_particles;
    for (int f = 0; f < 240; f++) {
      tu_sim_steps(&r, 1);
      double vy = 0.0, ymean = 0.0;
      for (int32_t i = 0; i < n; i++) {
        const double *x = tu_sim_x(&r, i);
        vy += (it == 2 ? (x[1] - r.s->xprev[4 * i + 1]) / r.m->h : r.s->v[3 * i + 1]) / n;
        ymean += x[1] / n;
      }
      double spread = 0.0;
      for (int32_t i = 0; i < n; i++) spread = fmax(spread, fabs(tu_sim_x(&r, i)[1] - ymean));
      ck_assert_msg(spread < 0.05, "%s frame %d: not flat: a particle %g m off the mean height",
                    integ[it], f, spread);
      if (f >= 120) /* after 1 s, 7.7 v_t / g: tanh(7.7) = 1 - 4e-7 */
        ck_assert_msg(fabs(-vy - vt) < 0.02 * vt, "%s frame %d: fall speed %g, terminal %g",
                      integ[it], f, -vy, vt);
    }
    tu_sim_free(&r);
  }
  /* the mesh: configs/meshes/flag.obj, 1.5 x 1.1 m, turned flat */
  char *obj = tu_repo_path("configs/meshes/flag.obj");
  tu_sim r = sim_f(
      "time: {dt: 1/120, frames: 1, substeps: 2}\n"
      "bodies:\n"
      "  - mesh: {file: \"%s\", transform: {rotate: [90, 0, 0], translate: [0, 100, 0]},\n"
      "           mass: %g, drag: %g}\n",
      obj, M, cd);
  free(obj);
  tu_sim_steps(&r, 240);
  const double vt_mesh = sqrt(2.0 * M * G / (RHO * cd * 1.5 * 1.1));
  const int32_t n = r.m->n_particles;
  for (int32_t i = 0; i < n; i++) {
    ck_assert_msg(fabs(-r.s->v[3 * i + 1] - vt_mesh) < 1e-9 * vt_mesh,
                  "mesh particle %d: %.17g, want %.17g", i, -r.s->v[3 * i + 1], vt_mesh);
    ck_assert_msg(fabs(tu_sim_x(&r, i)[1] - tu_sim_x(&r, 0)[1]) < 1e-9, "mesh not flat at %d", i);
  }
  tu_sim_free(&r);
}
END_TEST

/* Linear air drag: the implicit update v_{n+1} = (v_n - g h) / (1 + k h) is
 * v_n = v_t (1 - (1 + k h)^-n), v_t = g / k, to rounding; against the
 * analytic v(t) = v_t (1 - e^{-k t}) its error is at most
 * v_t n |1/(1 + k h) - e^{-k h}| <= v_t n (k h)^2 / 2 (each factor below 1). */
START_TEST(particle_linear_drag) {
  const double k = 2.0, h = 0.01, vt = G / k;
  tu_sim r = sim_f(
      "time: {dt: %g, frames: 1}\n"
      "bodies:\n"
      "  - particles: {positions: [[0, 0, 0]], air_drag: {linear: %g}}\n",
      h, k);
  double worst_disc = 0.0, worst_exact = 0.0;
  for (int n = 1; n <= 300; n++) {
    tu_sim_steps(&r, 1);
    const double v = -r.s->v[1];
    const double disc = vt * (1.0 - pow(1.0 + k * h, -n));
    const double exact = vt * (1.0 - exp(-k * n * h));
    worst_disc = fmax(worst_disc, fabs(v - disc));
    const double bound = vt * n * (k * h) * (k * h) / 2.0 + 1e-12;
    ck_assert_msg(fabs(v - exact) <= bound, "step %d: v %.17g, analytic %.17g, bound %g", n, v,
                  exact, bound);
    worst_exact = fmax(worst_exact, fabs(v - exact));
  }
  /* rounding: about one ulp of v_t per step, 300 steps: 300 * 2.2e-16 * 4.9 */
  ck_assert_msg(worst_disc < 1e-12, "discrete recurrence off by %g", worst_disc);
  /* not trivially true: the scheme differs from the analytic by O(k h) */
  ck_assert_msg(worst_exact > 1e-4, "analytic matched too well (%g): no drag?", worst_exact);
  ck_assert(r.s->v[0] == 0.0 && r.s->v[2] == 0.0);
  tu_sim_free(&r);
}
END_TEST

/* Quadratic drag: terminal speed sqrt(g / k2) within 1 %, for each
 * integrator and for a particle of any mass (drag per unit mass). */
START_TEST(particle_quadratic_terminal_speed) {
  const double k2 = 0.5, vt = sqrt(G / k2);
  const char *integ[] = {"pbd", "xpbd", "verlet"};
  for (int it = 0; it < 3; it++) {
    tu_sim r = sim_f(
        "time: {dt: 1/60, frames: 1}\n"
        "solver: {integrator: %s}\n"
        "bodies:\n"
        "  - particles: {positions: [[0, 0, 0], [1, 0, 0]], masses: [1, 7],\n"
        "                velocities: [[0, 20, 0], [0, -30, 0]], air_drag: {quadratic: %g}}\n",
        integ[it], k2);
    tu_sim_steps(&r, 600);
    for (int i = 0; i < 2; i++) {
      const double v =
          it == 2 ? (tu_sim_x(&r, i)[1] - r.s->xprev[4 * i + 1]) / r.m->h : r.s->v[3 * i + 1];
      ck_assert_msg(fabs(-v - vt) < 0.01 * vt, "%s particle %d: %g, terminal %g", integ[it], i, -v,
                    vt);
    }
    tu_sim_free(&r);
  }
}
END_TEST

/* A rigid body with air drag reaches its terminal speed: quadratic
 * sqrt(g / k2), linear g / k1, and the two together the positive root of
 * k2 v^2 + k1 v = g. */
START_TEST(rigid_terminal_speed) {
  const double k[3][2] = {{0.0, 0.5}, {2.0, 0.0}, {1.0, 0.25}};
  for (int c = 0; c < 3; c++) {
    tu_sim r = sim_f(
        "time: {dt: 1/60, frames: 1}\n"
        "bodies:\n"
        "  - rigid: {shape: sphere, radius: 0.2, mass: 3, position: [0, 100, 0],\n"
        "            air_drag: {linear: %g, quadratic: %g}}\n",
        k[c][0], k[c][1]);
    tu_sim_steps(&r, 600);
    const double k1 = k[c][0], k2 = k[c][1];
    const double vt = k2 > 0 ? (-k1 + sqrt(k1 * k1 + 4 * k2 * G)) / (2 * k2) : G / k1;
    const double *v = r.s->rv;
    ck_assert_msg(fabs(-v[1] - vt) < 1e-3 * vt, "k1 %g k2 %g: %g, terminal %g", k1, k2, -v[1], vt);
    ck_assert(v[0] == 0.0 && v[2] == 0.0);
    tu_sim_free(&r);
  }
}
END_TEST

/* A sheet edge-on to the wind (n . u = 0) feels no drag and no lift: it
 * does not move at all. */
START_TEST(edge_on_sheet_feels_nothing) {
  tu_sim r = tu_sim_new(
      "time: {dt: 1/60, frames: 1}\n"
      "world: {gravity: [0, 0, 0], wind: [7, -3, 0]}\n"
      "bodies:\n"
      "  - cloth: {origin: [0, 1, 0], size: [1, 0.5], resolution: [6, 4],\n"
      "            mass: 0.2, drag: 1.5, lift: 0.8}\n");
  const int32_t n = r.m->n_particles;
  double *x0 = malloc(4 * (size_t)n * sizeof *x0);
  memcpy(x0, r.s->x, 4 * (size_t)n * sizeof *x0);
  tu_sim_steps(&r, 10);
  ck_assert_msg(memcmp(x0, r.s->x, 4 * (size_t)n * sizeof *x0) == 0, "the sheet moved");
  free(x0);
  tu_sim_free(&r);
}
END_TEST

/* A free sheet facing the wind: after the first step its momentum is
 * h F, F = ½ rho C_d A |u|^2 along the wind (internal links keep momentum);
 * one at 45° to it with lift only: h ½ rho C_l A |u|^2 cos 45° sin 45°,
 * across the wind. */
START_TEST(sheet_pushed_by_the_formula) {
  const double h = 1.0 / 60, cd = 1.3, cl = 0.9, w = 5.0, A = 1.0 * 0.5, M = 0.2;
  const char *relax[] = {"gauss-seidel", "jacobi"};
  for (int j = 0; j < 2; j++) {
    tu_sim r = sim_f(
        "time: {dt: 1/60, frames: 1}\n"
        "solver: {relaxation: %s}\n"
        "world: {gravity: [0, 0, 0], wind: [0, 0, %g], air_density: %g}\n"
        "bodies:\n"
        "  - cloth: {origin: [0, 1, 0], size: [1, 0.5], resolution: [6, 4],\n"
        "            mass: %g, drag: %g, shear: {}}\n",
        relax[j], w, RHO, M, cd);
    tu_sim_steps(&r, 1);
    double p[3];
    momentum(&r, p);
    const double want = h * 0.5 * RHO * cd * A * w * w;
    ck_assert_msg(fabs(p[2] - want) < 1e-12 * want, "%s: momentum %.17g, want %.17g", relax[j],
                  p[2], want);
    ck_assert_msg(fabs(p[0]) < 1e-15 && fabs(p[1]) < 1e-15, "sideways %g %g", p[0], p[1]);
    tu_sim_free(&r);
  }
  /* lift: the wind (0, a, a) at 45° to the sheet's normal z */
  const double a = 4.0;
  tu_sim r = sim_f(
      "time: {dt: 1/60, frames: 1}\n"
      "world: {gravity: [0, 0, 0], wind: [0, %g, %g]}\n"
      "bodies:\n"
      "  - cloth: {origin: [0, 1, 0], size: [1, 0.5], resolution: [6, 4],\n"
      "            mass: %g, lift: %g, shear: {}}\n",
      a, a, M, cl);
  tu_sim_steps(&r, 1);
  double p[3];
  momentum(&r, p);
  /* |F| = ½ rho C_l A |u|^2 cos sin = ½ rho C_l A a^2, along (0, -1, 1) / sqrt 2 */
  const double f = h * 0.5 * RHO * cl * A * a * a / sqrt(2.0);
  ck_assert_msg(fabs(p[1] + f) < 1e-12 * f && fabs(p[2] - f) < 1e-12 * f,
                "lift momentum (%g, %g, %g), want (0, %g, %g)", p[0], p[1], p[2], -f, f);
  ck_assert_msg(fabs(p[0]) < 1e-15, "lift along x %g", p[0]);
  tu_sim_free(&r);
}
END_TEST

/* The wind follows its keys: a particle with linear drag k obeys
 * v_{n+1} = u_n + (v_n - u_n) / (1 + k h), u_n the keys' wind at the step's
 * start (linear between keys, held after the last). */
START_TEST(wind_keys_drive_the_force) {
  const double k = 3.0, h = 0.05;
  tu_sim r = sim_f(
      "time: {dt: %g, frames: 1}\n"
      "world: {gravity: [0, 0, 0], wind_keys: [[0.5, 0, 0, 0], [1.5, 10, -4, 0], [2, 2, 0, 1]]}\n"
      "bodies:\n"
      "  - particles: {positions: [[0, 0, 0]], air_drag: {linear: %g}}\n"
      "  - rigid: {shape: sphere, position: [5, 0, 0], air_drag: {linear: %g}}\n",
      h, k, k);
  const double keys[3][4] = {{0.5, 0, 0, 0}, {1.5, 10, -4, 0}, {2, 2, 0, 1}};
  double v[3] = {0, 0, 0};
  for (int n = 0; n < 60; n++) {
    const double t = n * h;
    double u[3];
    if (t <= keys[0][0])
      memcpy(u, &keys[0][1], sizeof u);
    else if (t >= keys[2][0])
      memcpy(u, &keys[2][1], sizeof u);
    else {
      const int j = t < keys[1][0] ? 0 : 1;
      const double f = (t - keys[j][0]) / (keys[j + 1][0] - keys[j][0]);
      for (int d = 0; d < 3; d++) u[d] = keys[j][1 + d] + f * (keys[j + 1][1 + d] - keys[j][1 + d]);
    }
    for (int d = 0; d < 3; d++) v[d] = u[d] + (v[d] - u[d]) / (1.0 + k * h);
    tu_sim_steps(&r, 1);
    for (int d = 0; d < 3; d++)
      ck_assert_msg(fabs(r.s->v[d] - v[d]) < 1e-12, "step %d axis %d: %.17g, want %.17g", n, d,
                    r.s->v[d], v[d]);
  }
  /* the rigid body (8 substeps of h / 8) follows the same wind: 6 s after
   * the last key it is on it, to 10 m/s e^{-3 x 6} = 2e-7 */
  tu_sim_steps(&r, 100);
  for (int d = 0; d < 3; d++)
    ck_assert_msg(fabs(r.s->rv[d] - keys[2][1 + d]) < 1e-6, "rigid axis %d: %.17g", d, r.s->rv[d]);
  tu_sim_free(&r);
}
END_TEST

/* The defaults change nothing: wind alone (no body with air) runs the same
 * bits as no wind, and explicit zero coefficients the same as none. */
START_TEST(defaults_are_bitwise_unchanged) {
  const char *base =
      "time: {dt: 1/60, frames: 1}\n"
      "world: {gravity: [0.3, -9.81, 0]%s}\n"
      "bodies:\n"
      "  - cloth: {origin: [0, 1, 0], size: [1, 1], resolution: [8, 8], pin: top-edge%s}\n"
      "  - rigid: {shape: box, position: [3, 0, 0]%s}\n";
  tu_sim a = sim_f(base, "", "", "");
  tu_sim b = sim_f(base, ", wind: [3, 1, 2], air_density: 2",
                   ", drag: 0, lift: 0, air_drag: {linear: 0}", ", air_drag: {quadratic: 0}");
  ck_assert(!b.m->aero);
  tu_sim_steps(&a, 50);
  tu_sim_steps(&b, 50);
  ck_assert(memcmp(a.s->x, b.s->x, 4 * (size_t)a.m->n_particles * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->v, b.s->v, 3 * (size_t)a.m->n_particles * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->rx, b.s->rx, 3 * sizeof(double)) == 0);
  ck_assert(memcmp(a.s->rv, b.s->rv, 3 * sizeof(double)) == 0);
  tu_sim_free(&a);
  tu_sim_free(&b);
}
END_TEST

/* A flag in gusting wind, every kind of air: the same bits with 1 and 3
 * threads, Gauss-Seidel or coloured Jacobi, and a run resumed from its
 * checkpoint equals the uninterrupted one. */
static const char *const flag_scene =
    "time: {dt: 1/60, frames: 40, substeps: 2}\n"
    "solver: {integrator: xpbd, iterations: 8}\n"
    "world:\n"
    "  wind_keys: [[0, 4, 0, 1], [0.3, 8, 1, -2], [0.6, 3, 0, 2]]\n"
    "  colliders: [{plane: {point: [0, -1, 0], normal: [0, 1, 0]}}]\n"
    "bodies:\n"
    "  - cloth: {name: flag, origin: [0, 0, 0], size: [1.5, 1], resolution: [80, 60], pin: [[0, "
    "59], [0, 0]],\n"
    "            mass: 0.3, drag: 1.2, lift: 0.6, air_drag: {linear: 0.2}, stretch: {compliance: "
    "1e-6}}\n"
    "  - rope: {from: [0, 2, 0], to: [1, 2, 0], segments: 10, pin: first, air_drag: "
    "{quadratic: 0.3}}\n"
    "  - rigid: {shape: box, position: [3, 0, 0], air_drag: {linear: 0.5, quadratic: 0.1}}\n";

START_TEST(bitwise_threads_relaxation_resume) {
  char *d = tu_tmpdir();
  char *path = cu_strf("%s/flag.yaml", d);
  cu_write(path, flag_scene);
  const char *relax[] = {"solver.relaxation=gauss-seidel", "solver.relaxation=jacobi"};
  for (int j = 0; j < 2; j++) {
    cu_proc p = cu_vsim(d, "run", "flag.yaml", "--set", relax[j], "--threads", "1", "-o", "t1.h5",
                        "-q", "-f", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    p = cu_vsim(d, "run", "flag.yaml", "--set", relax[j], "--threads", "3", "-o", "t3.h5", "-q",
                "-f", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    p = cu_vsim(d, "compare", "t1.h5", "t3.h5", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    /* resumed: 17 frames, then on to 40 from the checkpoint */
    p = cu_vsim(d, "run", "flag.yaml", "--set", relax[j], "--frames", "17", "-o", "part.h5", "-q",
                "-f", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    p = cu_vsim(d, "run", "--resume", "part.h5", "--frames", "40", "--threads", "3", "-q", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    p = cu_vsim(d, "compare", "part.h5", "t1.h5", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  /* and the flag moved: the wind is not a no-op here */
  cu_proc p = cu_vsim(d, "run", "flag.yaml", "--set", "bodies.flag.drag=0", "--set",
                      "bodies.flag.lift=0", "--set", "bodies.flag.air_drag.linear=0", "--set",
                      "bodies.1.air_drag.quadratic=0", "--set", "bodies.2.air_drag.linear=0",
                      "--set", "bodies.2.air_drag={quadratic: 0}", "-o", "still.h5", "-q", "-f", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "still.h5", "t1.h5", NULL);
  ck_assert_int_eq(p.code, 1);
  cu_free(&p);
  free(path);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Bad input: exit 2, file:line:col and the key, no output file. */
START_TEST(bad_input) {
  struct {
    const char *scene, *want;
  } cases[] = {
      {"bodies:\n  - cloth: {origin: [0, 0, 0], size: [1, 1], resolution: [3, 3], drag: -1}\n",
       "bad.yaml:2:72: bodies.0.cloth.drag: expected a finite number >= 0, got -1"},
      {"bodies:\n  - rigid: {air_drag: {quadratic: -0.5}}\n",
       "bad.yaml:2:35: bodies.0.rigid.air_drag.quadratic: expected a finite number >= 0, got -0.5"},
      {"bodies:\n  - particles: {positions: [[0, 0, 0]], air_drag: {linaer: 1}}\n",
       "bad.yaml:2:52: bodies.0.particles.air_drag: unknown key 'linaer', did you mean 'linear'?"},
      {"bodies:\n  - rope: {from: [0, 0, 0], to: [1, 0, 0], segments: 2, air_drag: 0.3}\n",
       "bad.yaml:2:67: bodies.0.rope.air_drag: expected a mapping {linear, quadratic}, got 0.3"},
      {"bodies:\n  - rigid: {air_drag_linear: 0.3}\n",
       "bad.yaml:2:13: bodies.0.rigid: unknown key 'air_drag_linear' (expected one of: "},
      {"world:\n  wind_keys: [[0, 1, 0, 0], [1, 2, 0, 0], [1, 3, 0, 0]]\n"
       "bodies:\n  - particles: {positions: [[0, 0, 0]]}\n",
       "bad.yaml:2:44: world.wind_keys.2.0: expected a time after the previous key's 1, got 1"},
      {"world:\n  wind: [1, 0, 0]\n  wind_keys: [[0, 1, 0, 0]]\n"
       "bodies:\n  - particles: {positions: [[0, 0, 0]]}\n",
       "bad.yaml:3:14: world.wind_keys: expected either wind or wind_keys, got both"},
      {"world:\n  air_density: -1\nbodies:\n  - particles: {positions: [[0, 0, 0]]}\n",
       "bad.yaml:2:16: world.air_density: expected a finite number >= 0, got -1"},
      {"bodies:\n  - rope: {from: [0, 0, 0], to: [1, 0, 0], segments: 2, lift: 1}\n",
       "bad.yaml:2:57: bodies.0.rope: unknown key 'lift'"},
  };
  char *d = tu_tmpdir();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *path = cu_strf("%s/bad.yaml", d);
    cu_write(path, cases[i].scene);
    cu_proc p = cu_vsim(d, "run", "bad.yaml", "-o", "out.h5", "-q", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, cases[i].want);
    cu_free(&p);
    struct stat st;
    char *out = cu_strf("%s/out.h5", d);
    ck_assert_msg(stat(out, &st) != 0, "case %zu left out.h5", i);
    free(out);
    free(path);
  }
  /* and through --set, with the override named */
  char *path = cu_strf("%s/ok.yaml", d);
  cu_write(path, "bodies:\n  - rigid: {}\n");
  cu_proc p = cu_vsim(d, "run", "ok.yaml", "--set", "world.wind_keys=[[1, 0, 0, 0], [0, 1, 0, 0]]",
                      "-o", "out.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err,
               "vsim: --set world.wind_keys=[[1, 0, 0, 0], [0, 1, 0, 0]]: world.wind_keys.1.0: "
               "expected a time after the previous key's 1, got 0");
  cu_free(&p);
  free(path);
  tu_rmtree(d);
  free(d);
}
END_TEST

int main(void) {
  Suite *s = suite_create("aero");
  TCase *tc = tcase_create("air");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, sheet_reaches_terminal_speed);
  tcase_add_test(tc, particle_linear_drag);
  tcase_add_test(tc, particle_quadratic_terminal_speed);
  tcase_add_test(tc, rigid_terminal_speed);
  tcase_add_test(tc, edge_on_sheet_feels_nothing);
  tcase_add_test(tc, sheet_pushed_by_the_formula);
  tcase_add_test(tc, wind_keys_drive_the_force);
  tcase_add_test(tc, defaults_are_bitwise_unchanged);
  tcase_add_test(tc, bitwise_threads_relaxation_resume);
  tcase_add_test(tc, bad_input);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
