/* SPDX-License-Identifier: MIT */
/* rigid_stiff.c: the geometric stiffness of the forest's joints
 * (solver.rigid.geometric_stiffness, on by default; docs/physics.md,
 * "Geometric stiffness").
 *
 * A joint whose anchor r (world, from the body's centre) pulls the body with
 * the force f turns it by tau = r x f.  When the body turns by a small
 * dtheta the anchor turns with it, dr = dtheta x r, and with f held
 *
 *     dtau = (dtheta x r) x f = (r f^T - (f . r) I) dtheta = K dtheta.
 *
 * For a link under tension (f along r) -K = T |r| (I - r^ r^T) is a spring
 * that turns the link back in line with its load, with stiffness T |r|.
 * The forest's solve takes the joints' directions at the substep's start,
 * explicit in that spring: a light link between heavy loads oscillates
 * with omega^2 = T |r| / I, and the substep h is stable only while
 * omega h < 2 (a 50-link chain with a 100:1 end mass, released from
 * horizontal, blows up at 8 and at 16 substeps).  Andrews, Teichmann and Kry
 * ("Geometric Stiffness for Real-time Constrained Multibody Dynamics",
 * Eurographics 2017) make it implicit by adding h^2 -K to the mass matrix,
 * -K made positive.  Here:
 * - -K's symmetric part per joint, (f . r) I - (r f^T + f r^T) / 2, has the
 *   eigenvalues (r . f + |r||f|) / 2 >= 0 along r^ - f^, (r . f - |r||f|) / 2
 *   <= 0 along r^ + f^ and r . f along r x f; its absolute value (each
 *   eigenvalue made positive) is summed per body: the positive ones are the
 *   spring above, the negative ones a compressed link's buckling sideways,
 *   which grows as fast and also blew up at 8 substeps (a chain's end mass
 *   landing on the ground and the links behind it pushed into it);
 * - a share s of h^2 of it: a linear spring k with the mass I + s h^2 k is
 *   stable at a step h when h^2 k < 4 (I + s h^2 k), for every h and k
 *   exactly when s >= 1/4 (the trapezoidal rule's mass); with a stiffness
 *   that lags by a substep 1/4 is not enough, and s = 1/2 (STIFF_SHARE);
 * - f = P / h, P the joint's impulse of the substep (the last substep's
 *   at a step's start), so the added mass is s h times |-K(P)|;
 * - only where the turning is fast for the substep: scaled by
 *   1 - 1 / rho, rho >= (omega h)^2 (below), none where rho <= 1;
 * - the first velocity solve of a substep solves (M + G) v+ = M v + J^T l
 *   (their form: the new velocity carries the added mass G): -G w on the
 *   body's angular rows of the right-hand side.
 * The joints' anchor rows carry it (ball, hinge and weld anchors, a
 * distance joint's row along its axis); a slider's rows do not. */
#include <math.h>
#include <string.h>

#include "solve/rigid/rigid.h"

/* (omega h)^2 below which a body's turning against its joints' pull is
 * left explicit (stable below 4; docs/physics.md, "Geometric stiffness") */
#define STIFF_FREE 1.0
/* The share of h^2 |-K| added: the linear bound's 1/4 (below) holds one
 * spring with a stiffness known at the substep's start, but P is the last
 * substep's impulse and lags a whipping chain's load: at 1/4 a 100-link
 * chain with a 1000:1 end mass still blew up at 8 substeps (frame 183); at
 * 1/2 it holds.  The 50:1 chain's swing then loses 870 J of its 7,440 J in
 * 10 s, where it lost 756 J with the term off. */
#define STIFF_SHARE 0.5

/* Adds the absolute value of -K's symmetric part for anchor r and force
 * (or impulse) f to G (its eigenvalues below, each made positive).  With L = |r||f| and q = |f| / |r| = L / (r . r), the
 * unit vector e along r^ + f^ (or r^ - f^) has
 *   e e^T = (q r r^T +- (r f^T + f r^T) + f f^T / q) / (2 (L +- r . f)),
 * so one square root does. */
static void anchor_term(const double r[3], const double f[3], double G[9]) {
  const double rr = vs_dot3(r, r), ff = vs_dot3(f, f), rf = vs_dot3(r, f);
  if (!(rr > 0 && ff > 0)) return;
  const double L = sqrt(rr * ff);
  /* rf >= 0: -K's part with its negative eigenvalue (rf - L) / 2 along
   * r^ + f^ turned positive (less twice it); rf < 0 (compressed): -K's part
   * negated, plus twice its positive eigenvalue (rf + L) / 2 along r^ - f^.
   * The entry (i, j) is
   *   kr r_i r_j + ks (r_i f_j + f_i r_j) + kf f_i f_j + kd [i == j] */
  double c, ks, kd;
  if (rf >= 0) {
    c = -(rf - L) / (2.0 * (L + rf));
    ks = c - 0.5, kd = rf;
  } else {
    c = (rf + L) / (2.0 * (L - rf));
    ks = 0.5 - c, kd = -rf;
  }
  const double kr = c * (L / rr), kf = c * (L / ff);
  const double r0 = r[0], r1 = r[1], r2 = r[2], f0 = f[0], f1 = f[1], f2 = f[2];
  const double g00 = kr * r0 * r0 + ks * (2.0 * r0 * f0) + kf * f0 * f0 + kd;
  const double g11 = kr * r1 * r1 + ks * (2.0 * r1 * f1) + kf * f1 * f1 + kd;
  const double g22 = kr * r2 * r2 + ks * (2.0 * r2 * f2) + kf * f2 * f2 + kd;
  const double g01 = kr * r0 * r1 + ks * (r0 * f1 + f0 * r1) + kf * f0 * f1;
  const double g02 = kr * r0 * r2 + ks * (r0 * f2 + f0 * r2) + kf * f0 * f2;
  const double g12 = kr * r1 * r2 + ks * (r1 * f2 + f1 * r2) + kf * f1 * f2;
  G[0] += g00, G[4] += g11, G[8] += g22;
  G[1] += g01, G[3] += g01, G[2] += g02, G[6] += g02, G[5] += g12, G[7] += g12;
}

/* The trace of the absolute value of -K's symmetric part for anchor r and
 * impulse f: |r||f| + |r . f|. */
static double anchor_trace(const double r[3], const double f[3]) {
  const double rf = vs_dot3(r, f), L = sqrt(vs_dot3(r, r) * vs_dot3(f, f));
  return L + fabs(rf);
}

/* Joint j's impulse on b through its anchor rows (on a: -P) into P; 0 for a
 * joint whose rows carry none here (a slider). */
static int joint_pull(const vs_rmodel *m, const vs_rstate *s, const double *jw, int32_t j,
                      double P[3]) {
  const double *acc = &s->joint_impulse[3 * j];
  switch ((vs_joint_kind)m->joint_kind[j]) {
    case VS_JOINT_BALL:
    case VS_JOINT_WELD:
    case VS_JOINT_HINGE: memcpy(P, acc, sizeof(double) * 3); return 1;
    case VS_JOINT_DISTANCE:
      for (int q = 0; q < 3; q++) P[q] = acc[0] * jw[6 + q]; /* along u */
      return 1;
    case VS_JOINT_SLIDER: return 0;
  }
  return 0;
}

/* Body e's end of a joint: its index when it moves, else -1. */
static int32_t moving_end(const vs_rmodel *m, int32_t b) {
  return b >= 0 && m->inv_mass[b] != 0 ? b : -1;
}

int vs_rigid_stiffness(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w, double hs) {
  vs_rtree *t = &w->tree;
  int32_t n = m->n_bodies;
  size_t nb = 9 * ((size_t)n + 1);
  double *G = t->gs_next, *bound = t->gs_bound;
  uint8_t *on = t->gs_on_next;
  memset(G, 0, sizeof(double) * nb);
  memset(bound, 0, sizeof(double) * ((size_t)n + 1));
  memset(on, 0, (size_t)n + 1);
  /* Every forest joint, asleep or not (a sleeping joint keeps its impulse,
   * so the factor kept while it sleeps is the one it wakes with).  First
   * the sum of the traces of |-K(P)| over each body's
   * anchors: rho (below) is at most h I_min^-1 times it, and a body whose
   * bound is not above STIFF_FREE gets nothing without its terms being
   * formed. */
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] == 0) continue; /* a body node */
    int32_t j = t->id[k];
    const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
    double P[3];
    if (!joint_pull(m, s, jw, j, P)) continue;
    int32_t a = moving_end(m, m->joint_ab[2 * j]), b = moving_end(m, m->joint_ab[2 * j + 1]);
    if (a >= 0) {
      const double fa[3] = {-P[0], -P[1], -P[2]};
      bound[a] += anchor_trace(jw, fa);
    }
    if (b >= 0) bound[b] += anchor_trace(jw + 3, P);
  }
  for (int32_t b = 0; b < n; b++) {
    const double *ii = &m->inv_inertia[3 * b];
    const double imax = fmax(ii[0], fmax(ii[1], ii[2]));
    on[b] = hs * imax * bound[b] > STIFF_FREE;
  }
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] == 0) continue;
    int32_t j = t->id[k];
    const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
    double P[3];
    if (!joint_pull(m, s, jw, j, P)) continue;
    int32_t a = moving_end(m, m->joint_ab[2 * j]), b = moving_end(m, m->joint_ab[2 * j + 1]);
    if (a >= 0 && on[a]) {
      const double fa[3] = {-P[0], -P[1], -P[2]};
      anchor_term(jw, fa, &G[9 * (size_t)a]);
    }
    if (b >= 0 && on[b]) anchor_term(jw + 3, P, &G[9 * (size_t)b]);
  }
  /* h^2 of -K(P / h) is h -K(P); a share of it, and only the part beyond
   * what the substep takes explicitly: rho = trace(I^-1 h -K(P)) bounds the
   * body's largest (omega h)^2 from above, the explicit step is stable
   * below 4, and the term is scaled by 1 - STIFF_FREE / rho (none below
   * STIFF_FREE): with that, h^2 k < 4 (I + s h^2 k) holds for every
   * stiffness k, and a body that turns slowly for its substep gets none */
  for (int32_t b = 0; b < n; b++) {
    if (!on[b]) continue;
    double *Gb = &G[9 * (size_t)b];
    const double *iw = &w->inv_iw[9 * (size_t)b];
    double rho = 0;
    for (int i = 0; i < 9; i++) rho += iw[i] * Gb[i]; /* both symmetric: the trace of the product */
    rho *= hs;
    if (!(rho > STIFF_FREE)) {
      memset(Gb, 0, sizeof(double) * 9);
      on[b] = 0;
      continue;
    }
    const double f = STIFF_SHARE * hs * (1.0 - STIFF_FREE / rho);
    for (int i = 0; i < 9; i++) Gb[i] *= f;
  }
  if (!memcmp(G, t->gs, sizeof(double) * nb)) return 0;
  memcpy(t->gs, G, sizeof(double) * nb);
  memcpy(t->gs_on, on, (size_t)n + 1);
  return 1;
}

void vs_rigid_stiffness_rhs(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  vs_rtree *t = &w->tree;
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] != 0) continue;
    int32_t b = t->id[k];
    if (w->asleep[b] || !t->gs_on[b]) continue;
    const double *G = &t->gs[9 * (size_t)b], *av = &s->w[3 * b];
    double *y = &t->y[6 * (size_t)k];
    for (int i = 0; i < 3; i++) y[3 + i] -= G[3 * i] * av[0] + G[3 * i + 1] * av[1] + G[3 * i + 2] * av[2];
  }
}
