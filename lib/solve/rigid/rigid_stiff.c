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
 *   <= 0 along r^ + f^ and r . f along r x f; its positive part (those that
 *   are not negative) is what stabilises, and is summed per body;
 * - a quarter of h^2 of it: a linear spring k with the mass I + s h^2 k is
 *   stable at a step h when h^2 k < 4 (I + s h^2 k), for every h and k
 *   exactly when s >= 1/4 (the trapezoidal rule's mass), and the least s
 *   damps the motion least;
 * - f = P / h, P the joint's impulse of the substep (the warm start's at a
 *   step's start), so the added mass is (h / 4) times the positive part of
 *   -K(P);
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

/* Adds the positive part of -K's symmetric part for anchor r and force (or
 * impulse) f to G.  With L = |r||f| and rho = |f| / |r| = L / (r . r), the
 * unit vector e along r^ + f^ (or r^ - f^) has
 *   e e^T = (rho r r^T +- (r f^T + f r^T) + f f^T / rho) / (2 (L +- r . f)),
 * so one square root does (the same values as the eigenvectors' form, in
 * fewer operations). */
static void anchor_term(const double r[3], const double f[3], double G[9]) {
  const double rr = vs_dot3(r, r), ff = vs_dot3(f, f), rf = vs_dot3(r, f);
  if (!(rr > 0 && ff > 0)) return;
  const double L = sqrt(rr * ff), rho = L / rr, irho = L / ff;
  /* rf >= 0: -K's part less its negative eigenvalue (rf - L) / 2 along
   * r^ + f^; rf < 0 (compressed): its positive one, (rf + L) / 2, along
   * r^ - f^ */
  const double sg = rf >= 0 ? 1.0 : -1.0;
  const double c = rf >= 0 ? -(rf - L) / (4.0 * (L + rf)) : (rf + L) / (4.0 * (L - rf));
  const double base = rf >= 0 ? 1.0 : 0.0; /* the part (rf) I - (r f^T + f r^T) / 2 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j <= i; j++) {
      const double sym = r[i] * f[j] + f[i] * r[j];
      double g = c * (rho * r[i] * r[j] + sg * sym + irho * f[i] * f[j]);
      g += base * ((i == j ? rf : 0.0) - 0.5 * sym);
      G[3 * i + j] += g;
      if (j != i) G[3 * j + i] += g;
    }
}

int vs_rigid_stiffness(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w, double hs) {
  vs_rtree *t = &w->tree;
  size_t nb = 9 * ((size_t)m->n_bodies + 1);
  double *G = t->gs_next;
  memset(G, 0, sizeof(double) * nb);
  /* every forest joint, asleep or not (a sleeping joint keeps its impulse,
   * so the factor kept while it sleeps is the one it wakes with) */
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] == 0) continue; /* a body node */
    int32_t j = t->id[k];
    const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK], *acc = &s->joint_impulse[3 * j];
    double P[3]; /* the impulse on b (on a: -P) */
    switch ((vs_joint_kind)m->joint_kind[j]) {
      case VS_JOINT_BALL:
      case VS_JOINT_WELD:
      case VS_JOINT_HINGE: memcpy(P, acc, sizeof P); break;
      case VS_JOINT_DISTANCE:
        for (int q = 0; q < 3; q++) P[q] = acc[0] * jw[6 + q]; /* along u */
        break;
      case VS_JOINT_SLIDER: continue;
    }
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (a >= 0 && m->inv_mass[a] != 0) {
      const double fa[3] = {-P[0], -P[1], -P[2]};
      anchor_term(jw, fa, &G[9 * (size_t)a]);
    }
    if (b >= 0 && m->inv_mass[b] != 0) anchor_term(jw + 3, P, &G[9 * (size_t)b]);
  }
  /* h^2 of -K(P / h) is h -K(P); a quarter of it, and only the part beyond
   * what the substep takes explicitly: rho = trace(I^-1 h -K(P)) bounds the
   * body's largest (omega h)^2 from above, the explicit step is stable
   * below 4, and the term is scaled by 1 - STIFF_FREE / rho (none below
   * STIFF_FREE): with that, h^2 k < 4 (I + s h^2 k) holds for every
   * stiffness k, and a body that turns slowly for its substep gets none */
  for (int32_t b = 0; b < m->n_bodies; b++) {
    double *Gb = &G[9 * (size_t)b];
    const double *iw = &w->inv_iw[9 * (size_t)b];
    double rho = 0;
    for (int i = 0; i < 9; i++) rho += iw[i] * Gb[i]; /* both symmetric: the trace of the product */
    rho *= hs;
    const double f = rho > STIFF_FREE ? 0.25 * hs * (1.0 - STIFF_FREE / rho) : 0.0;
    for (int i = 0; i < 9; i++) Gb[i] *= f;
  }
  if (!memcmp(G, t->gs, sizeof(double) * nb)) return 0;
  memcpy(t->gs, G, sizeof(double) * nb);
  return 1;
}

void vs_rigid_stiffness_rhs(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  vs_rtree *t = &w->tree;
  for (int32_t k = 0; k < t->n_nodes; k++) {
    if (t->kind[k] != 0) continue;
    int32_t b = t->id[k];
    if (w->asleep[b]) continue;
    const double *G = &t->gs[9 * (size_t)b], *av = &s->w[3 * b];
    double *y = &t->y[6 * (size_t)k];
    for (int i = 0; i < 3; i++) y[3 + i] -= G[3 * i] * av[0] + G[3 * i + 1] * av[1] + G[3 * i + 2] * av[2];
  }
}
