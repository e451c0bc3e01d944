/* SPDX-License-Identifier: MIT */
/* rigid_step.c: one rigid-body step, the two-way particle coupling, and the
 * momentum diagnostics.
 *
 * A step of length h: world inverse inertias; broad and narrow phase once
 * (rigid_broad.c, rigid_collide.c); prepare the contact rows and
 * warm-start impulses; then `substeps` substeps of h / substeps, each:
 * gravity and damping, joint rows from the current pose (and the forest's
 * factorisation at the step's start), the collisions (restitution,
 * rigid_bounce.c), warm start, `iterations` sweeps (the
 * forest's exact velocity solve, the other joints' rows, then the contacts
 * in their order, with the split-impulse position bias), positions and
 * orientations (real + pseudo velocities, the free rotation below), the
 * particles attached to bodies (w->substep_hook, rigid_couple.c), the
 * forest's position passes and the other joints' position pass.  Last,
 * the impulses go to the cache for the next step.
 *
 * Angular momentum: the free rotation keeps the world angular momentum
 * L = I_w(R) w of every body exactly (as the impulse-based model keeps L as
 * state), by exact rotations about the principal axes (integrate_positions
 * below; in a step where no row acts, rotate_step turns a body by the
 * whole step at once). */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"
#include "util/detmath.h"

/* Iw = R diag(d) R^T: entry (i, j) = (R_i0 d_0) R_j0 + (R_i1 d_1) R_j1 +
 * (R_i2 d_2) R_j2, each product R_ik d_k formed once (the stores into Iw
 * would otherwise make the compiler load and multiply again). */
static void world_inertia(const double R[9], const double d[3], double Iw[9]) {
  const double r0 = R[0], r1 = R[1], r2 = R[2], r3 = R[3], r4 = R[4], r5 = R[5], r6 = R[6],
               r7 = R[7], r8 = R[8];
  const double a0 = r0 * d[0], a1 = r1 * d[1], a2 = r2 * d[2]; /* row 0 of R diag(d) */
  const double b0 = r3 * d[0], b1 = r4 * d[1], b2 = r5 * d[2];
  const double c0 = r6 * d[0], c1 = r7 * d[1], c2 = r8 * d[2];
  Iw[0] = a0 * r0 + a1 * r1 + a2 * r2;
  Iw[1] = a0 * r3 + a1 * r4 + a2 * r5;
  Iw[2] = a0 * r6 + a1 * r7 + a2 * r8;
  Iw[3] = b0 * r0 + b1 * r1 + b2 * r2;
  Iw[4] = b0 * r3 + b1 * r4 + b2 * r5;
  Iw[5] = b0 * r6 + b1 * r7 + b2 * r8;
  Iw[6] = c0 * r0 + c1 * r1 + c2 * r2;
  Iw[7] = c0 * r3 + c1 * r4 + c2 * r5;
  Iw[8] = c0 * r6 + c1 * r7 + c2 * r8;
}

/* The free rotation of one substep h for a body with distinct principal
 * moments: the symplectic splitting of Dullweber, Leimkuhler and McLachlan
 * (1997).  The torque-free motion splits into the exact flows of the three
 * principal axes; each turns the body about its axis k by
 * theta = h_k L_k / I_k and the body-frame momentum Lb by -theta about the
 * same axis, in the symmetric order 1 (h/2), 2 (h/2), 3 (h), 2 (h/2),
 * 1 (h/2).  Every sub-flow is a rotation, so |L| and the world momentum are
 * kept to rounding, and the composition is symplectic and second order:
 * the energy error stays bounded (no drift), and a body spun near its
 * intermediate axis flips with the period of the exact solution
 * (docs/physics.md, "Free rotation"). */
static inline __attribute__((always_inline)) void rotate_axis(double q[4], double Lb[3], int k,
                                                               double theta) {
  double s, c;
  vs_sincos_small(0.5 * theta, &s, &c);
  /* body-frame turn: q <- q * (c, s e_k), the product written out for a
   * unit axis (q's own components times s, with the sign of e_i x e_k) */
  int i = (k + 1) % 3, j = (k + 2) % 3;
  double w = q[0], v[3] = {q[1], q[2], q[3]};
  q[0] = c * w - s * v[k];
  q[1 + k] = c * v[k] + s * w;
  q[1 + i] = c * v[i] + s * v[j];
  q[1 + j] = c * v[j] - s * v[i];
  double ct = c * c - s * s, st = 2.0 * s * c;
  double li = Lb[i], lj = Lb[j];
  Lb[i] = ct * li + st * lj;
  Lb[j] = ct * lj - st * li;
}

static void rotate_free(double q[4], double Lb[3], const double ii[3], double h) {
  /* axes 1, 2, 3, 2, 1 for h/2, h/2, h, h/2, h/2 (each k a constant, so
   * that rotate_axis unfolds) */
  rotate_axis(q, Lb, 0, 0.5 * h * Lb[0] * ii[0]);
  rotate_axis(q, Lb, 1, 0.5 * h * Lb[1] * ii[1]);
  rotate_axis(q, Lb, 2, 1.0 * h * Lb[2] * ii[2]);
  rotate_axis(q, Lb, 1, 0.5 * h * Lb[1] * ii[1]);
  rotate_axis(q, Lb, 0, 0.5 * h * Lb[0] * ii[0]);
  vs_quat_normalize(q);
}

/* The largest turn (rad) of one of a free step's sub-flows: with the
 * substeps' own turns (one of h / nsub) a slowly spinning body takes as many
 * turns as a fast one.  A step of nsub substeps that nothing touches is
 * taken in nt <= nsub equal turns instead, the fewest that keep every
 * body-axis turn within this bound: |w| <= |L| max(1 / I_k) bounds the spin
 * for the whole step (L is constant).  At 0.05 rad a 1 x 2 x 3 m box spun
 * at 5 rad/s about its intermediate axis (4 turns a step) keeps its energy
 * to 3e-5 over 20 s and flips in the frames of Euler's equations
 * (docs/physics.md, "Free rotation"); a spin fast enough for nsub turns
 * gets nsub, the substeps' own, bit for bit. */
#define FREE_TURN_MAX 0.05

/* The free step's number of turns for the body-frame momentum lb (see
 * FREE_TURN_MAX), at least 1, at most nsub. */
static int32_t free_turns(const double lb[3], const double ii[3], double h, int32_t nsub) {
  double imax = ii[0] > ii[1] ? ii[0] : ii[1];
  imax = imax > ii[2] ? imax : ii[2];
  double turn = sqrt(lb[0] * lb[0] + lb[1] * lb[1] + lb[2] * lb[2]) * imax * h * nsub;
  for (int32_t nt = 1; nt < nsub; nt++)
    if (turn <= FREE_TURN_MAX * (double)nt) return nt;
  return nsub;
}

/* The free rotation of a whole step of nsub substeps h for a body that
 * nothing touches or holds in the step (free_step below): rotate_free nsub
 * times with each substep's last half turn about axis 1 merged with the
 * next one's first.  Nothing turns L between the substeps of such a step,
 * so the two half turns are one flow of h (the same method: the same
 * second order, E and |L| kept alike), and Lb stays in the body's frame
 * from the step's start to its end.  That is 4 nsub + 1 turns and one
 * change of frame where rotate_free takes 5 nsub and nsub (a free spinning
 * box's step: 30 % less time); with one substep it is rotate_free.  When
 * fewer turns suffice (free_turns), the step is nt turns of step / nt. */
static void rotate_step(double q[4], double av[3], const double ii[3], double h, int32_t nsub,
                        double step) {
  double R[9], lb[3];
  vs_quat_to_mat(q, R);
  vs_mat3_mul_t(R, av, lb);
  for (int k = 0; k < 3; k++) lb[k] /= ii[k];
  int32_t nt = free_turns(lb, ii, h, nsub);
  if (nt < nsub) h = step / (double)nt, nsub = nt; /* (else the substeps' h, bit for bit) */
  rotate_axis(q, lb, 0, 0.5 * h * lb[0] * ii[0]);
  for (int32_t sub = 0; sub < nsub; sub++) {
    rotate_axis(q, lb, 1, 0.5 * h * lb[1] * ii[1]);
    rotate_axis(q, lb, 2, 1.0 * h * lb[2] * ii[2]);
    rotate_axis(q, lb, 1, 0.5 * h * lb[1] * ii[1]);
    rotate_axis(q, lb, 0, (sub + 1 < nsub ? 1.0 : 0.5) * h * lb[0] * ii[0]);
    vs_quat_normalize(q);
  }
  vs_quat_to_mat(q, R);
  for (int k = 0; k < 3; k++) lb[k] *= ii[k];
  vs_mat3_mul(R, lb, av);
}

/* Positions and orientations of one substep: x by the real and pseudo
 * velocities; an isotropic body turns by its (real + pseudo) angular
 * velocity, which its momentum does not change; any other body turns first
 * by the pseudo rotation of the split impulse (a position correction that
 * leaves its world momentum L as it is), then by the free flow above, and
 * its angular velocity is w = I_w^-1 L with the new orientation. */
static void integrate_positions(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double hs,
                                int32_t sub, int32_t free_nsub) {
  for (int32_t i = 0; i < m->n_bodies; i++) {
    if (w->asleep[i]) continue;
    if (m->inv_mass[i] == 0) {
      if (vs_rmodel_kinematic(m, i)) vs_rigid_kinematic_move(s, w, i, hs);
      continue;
    }
    double *x = &s->x[3 * i], *av = &s->w[3 * i], *d = &w->dp[6 * i];
    double *q = &s->q[4 * i];
    const double *pv = &w->pv[6 * i], *ii = &m->inv_inertia[3 * i];
    /* read before any store (the arrays' stores would otherwise make each
     * read again): the same operations */
    const double *v = &s->v[3 * i];
    const double v0 = v[0] + pv[0], v1 = v[1] + pv[1], v2 = v[2] + pv[2]; /* real and pseudo */
    double wt[3] = {av[0] + pv[3], av[1] + pv[4], av[2] + pv[5]};
    const double x0 = x[0] + hs * v0, x1 = x[1] + hs * v1, x2 = x[2] + hs * v2;
    const double d0 = d[0] + hs * v0, d1 = d[1] + hs * v1, d2 = d[2] + hs * v2;
    const double d3 = d[3] + hs * wt[0], d4 = d[4] + hs * wt[1], d5 = d[5] + hs * wt[2];
    x[0] = x0, x[1] = x1, x[2] = x2;
    d[0] = d0, d[1] = d1, d[2] = d2, d[3] = d3, d[4] = d4, d[5] = d5;
    if (ii[0] == ii[1] && ii[1] == ii[2]) {
      vs_quat_integrate(q, wt, hs);
      continue;
    }
    if (free_nsub) { /* a free step: the whole step's turn in its first substep */
      if (sub == 0) rotate_step(q, av, ii, hs, free_nsub, w->h);
      continue;
    }
    double R[9], lb[3], L[3];
    vs_quat_to_mat(q, R);
    vs_mat3_mul_t(R, av, lb);
    for (int k = 0; k < 3; k++) lb[k] /= ii[k];
    if (pv[3] != 0 || pv[4] != 0 || pv[5] != 0) { /* lb again in the turned frame */
      vs_mat3_mul(R, lb, L); /* world angular momentum */
      vs_quat_integrate(q, &pv[3], hs);
      vs_quat_to_mat(q, R);
      vs_mat3_mul_t(R, L, lb);
    }
    rotate_free(q, lb, ii, hs);
    vs_quat_to_mat(q, R);
    for (int k = 0; k < 3; k++) lb[k] *= ii[k];
    vs_mat3_mul(R, lb, av);
  }
}

/* Newton passes of the forest's position correction per substep, with the
 * rows of the moved pose (factored once): one leaves about 1e-9 m and is
 * enough in most scenes, but a 30-link chain with a 50:1 end mass released
 * from horizontal came apart after 5 s with one and holds with two (make
 * bench-rigid, chain_swing). */
#define TREE_POSITION_PASSES 2
/* A pass runs only while some error row of the forest is above this (m or
 * rad): a chain at rest skips both, and a swinging one mostly the second
 * (the first leaves 3e-10 m to 1e-9 m there); the bench's joint separations
 * are unchanged (chain_swing 2.7e-9 m, chain_hinge 9.7e-7 m, ragdoll_pile
 * 6.9e-7 m). */
#define TREE_POSITION_TOL 1e-9
void vs_rigid_step(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h) {
  int32_t n = m->n_bodies;
  const vs_rsettings *st = &m->set;
  int32_t nsub = st->substeps > 0 ? st->substeps : 1;
  double hs = h / nsub;
  double damp = 1.0 / (1.0 + hs * st->damping);
  if (vs_rigid_world_asleep(m, s, w)) return; /* rigid_sleep.c: the same bits */
  for (int32_t i = 0; i < n; i++) {
    double *Iw = &w->inv_iw[9 * i];
    if (m->inv_mass[i] == 0) {
      memset(Iw, 0, sizeof(double) * 9);
      if (vs_rmodel_kinematic(m, i)) continue; /* its velocities: vs_rigid_kinematic_begin */
      memset(&s->v[3 * i], 0, sizeof(double) * 3);
      memset(&s->w[3 * i], 0, sizeof(double) * 3);
      continue;
    }
    double R[9];
    vs_quat_to_mat(&s->q[4 * i], R);
    world_inertia(R, &m->inv_inertia[3 * i], Iw);
  }
  memset(&w->inv_iw[9 * n], 0, sizeof(double) * 9);
  memset(w->dp, 0, sizeof(double) * 6 * ((size_t)n + 1));

  w->sweep = 0;
  w->h = h;
  vs_rigid_find_contacts(m, s, w);
  vs_rigid_sleep_begin(m, s, w);
  vs_rigid_prepare(m, s, w);
  if (st->colored) vs_rigid_color(m, w);
  else vs_rigid_order(m, w);
  if (!st->warm_start) {
    memset(s->joint_impulse, 0, sizeof(double) * 3 * (size_t)m->n_joints);
    if (s->joint_more) memset(s->joint_more, 0, sizeof(double) * VS_RJOINT_MORE * (size_t)m->n_joints);
  }
  /* without contacts and joints the sweeps have no row to solve (a free
   * body between impacts): skipped, the same bits */
  const int rows = w->n_contacts > 0 || m->n_joints > 0;
  /* the gravity's step, in locals (the velocities' stores would otherwise
   * make it read again for every body) */
  const double hg0 = hs * st->gravity[0], hg1 = hs * st->gravity[1], hg2 = hs * st->gravity[2];
  const int air_on = w->air != NULL;
  /* a free step: no row acts, no particle is attached and nothing damps
   * the turn, so a body's angular momentum is turned by its free flow
   * alone from the step's start to its end, and nothing reads the
   * orientations in between (rotate_step) */
  const int32_t free_nsub = !rows && !w->substep_hook && damp == 1.0 ? nsub : 0;
  for (int32_t sub = 0; sub < nsub; sub++) {
    for (int32_t i = 0; i < n; i++) {
      if (m->inv_mass[i] == 0 || w->asleep[i]) continue;
      double *v = &s->v[3 * i], *av = &s->w[3 * i];
      const double air = air_on ? vs_rigid_air_den(w, i, v, hs) : 1.0; /* docs/physics.md, "Air" */
      const double v0 = (v[0] + hg0) * damp, v1 = (v[1] + hg1) * damp, v2 = (v[2] + hg2) * damp;
      const double w0 = av[0] * damp, w1 = av[1] * damp, w2 = av[2] * damp;
      v[0] = v0, v[1] = v1, v[2] = v2;
      av[0] = w0, av[1] = w1, av[2] = w2;
      if (air != 1.0) vs_rigid_air(w, v, air);
    }
    /* only the sweeps write pseudo velocities: without rows they stay
     * zero after the first substep's clearing */
    if (rows || sub == 0) memset(w->pv, 0, sizeof(double) * 6 * ((size_t)n + 1));
    vs_rigid_substep_begin(m, w, hs);
    if (sub == 0) w->fresh = 2; /* no displacement yet (dp zeroed above) */
    if (m->n_joints > 0) vs_rigid_prepare_joints(m, s, w, 0);
    if (w->n_bouncy) vs_rigid_bounce(m, s, w, hs);
    /* the forest's factorisation: at the step's start, then the one of the
     * last substep's position pass (the pose has moved since by that pass's
     * correction alone, a few micrometres; each sweep's solve starts from
     * the velocities it leaves, so the next sweep refines it) */
    if (sub == 0 && w->tree.n_nodes > 0) vs_rigid_tree_factor(m, s, w);
    if (rows && (st->warm_start || sub > 0)) vs_rigid_warm_start(m, s, w);
    for (int32_t it = 0; it < (rows ? st->iterations : 0); it++) vs_rigid_solve_iteration(m, s, w, hs, 1);
    integrate_positions(m, s, w, hs, sub, free_nsub);
    if (w->substep_hook) w->substep_hook(w->hook_ctx, m, s, w);
    if (w->tree.n_tree_joints) {
      /* the forest's position errors, closed at once with its rows at the
       * moved pose (a long link that turned fast in the substep is far from
       * the rows of the substep's start); the joints past a limit first, so
       * that the passes then close the anchors those corrections opened
       * (after them, a knee brought back opened its hip: 1.7 mm in a pile
       * of ragdolls, 6e-7 m this way) */
      vs_rigid_project_limits(m, s, w, 1);
      vs_rigid_project_limits(m, s, w, 0);
      vs_rigid_prepare_joints(m, s, w, 1);
      vs_rigid_tree_factor(m, s, w);
      for (int pass = 0; pass < TREE_POSITION_PASSES; pass++)
        if (!vs_rigid_tree_position(m, s, w, pass == 0, TREE_POSITION_TOL)) break;
    }
    int loops = m->n_joints > w->tree.n_tree_joints; /* joints that close loops */
    for (int32_t it = 0; it < (loops ? st->iterations : 0); it++) vs_rigid_project_joints(m, s, w);
  }
  vs_rigid_store_impulses(m, s, w);
  vs_rigid_sleep_end(m, s, w, h);
}

int vs_rigid_particle_contact(const vs_rmodel *m, vs_rstate *s, int32_t body, double p[3],
                              double wp, double r, double h, double impulse[3]) {
  double n[3], depth, pt[3];
  if (impulse) impulse[0] = impulse[1] = impulse[2] = 0;
  if (!vs_rigid_point_query(m, s, body, p, r, 0.0, n, &depth, pt) || depth <= 0) return 0;
  double R[9], Iw[9], rr[3], rn[3], t[3];
  vs_quat_to_mat(&s->q[4 * body], R);
  world_inertia(R, &m->inv_inertia[3 * body], Iw);
  for (int k = 0; k < 3; k++) rr[k] = pt[k] - s->x[3 * body + k];
  vs_cross3(rr, n, rn);
  vs_mat3_mul(Iw, rn, t);
  double wb = m->inv_mass[body] + vs_dot3(rn, t);
  double wsum = wp + wb;
  if (!(wsum > 0)) return 0;
  double lambda = depth / wsum; /* positional impulse along n (body -> particle) */
  for (int k = 0; k < 3; k++) p[k] += wp * lambda * n[k];
  if (m->inv_mass[body] > 0) {
    double im = m->inv_mass[body];
    double dth[3];
    if (s->sleep) s->sleep[body] = 0.0; /* pushed: awake, however little (rigid_sleep.c) */
    for (int k = 0; k < 3; k++) {
      s->x[3 * body + k] -= im * lambda * n[k];
      s->v[3 * body + k] -= im * lambda / h * n[k];
      dth[k] = -lambda * t[k];
      s->w[3 * body + k] += dth[k] / h;
    }
    vs_quat_integrate(&s->q[4 * body], dth, 1.0);
  }
  if (impulse)
    for (int k = 0; k < 3; k++) impulse[k] = lambda / h * n[k];
  return 1;
}

void vs_rigid_momentum(const vs_rmodel *m, const vs_rstate *s, double P[3], double L[3],
                       double *energy) {
  double e = 0;
  P[0] = P[1] = P[2] = L[0] = L[1] = L[2] = 0;
  for (int32_t i = 0; i < m->n_bodies; i++) {
    if (m->inv_mass[i] == 0) continue;
    double mass = 1.0 / m->inv_mass[i], R[9], I[9], d[3], l[3], p[3], xp[3];
    const double *v = &s->v[3 * i], *w = &s->w[3 * i], *x = &s->x[3 * i];
    for (int k = 0; k < 3; k++) d[k] = 1.0 / m->inv_inertia[3 * i + k];
    vs_quat_to_mat(&s->q[4 * i], R);
    world_inertia(R, d, I);
    vs_mat3_mul(I, w, l);
    for (int k = 0; k < 3; k++) p[k] = mass * v[k];
    vs_cross3(x, p, xp);
    for (int k = 0; k < 3; k++) {
      P[k] += p[k];
      L[k] += xp[k] + l[k];
    }
    e += 0.5 * mass * vs_dot3(v, v) + 0.5 * vs_dot3(w, l);
  }
  if (energy) *energy = e;
}
