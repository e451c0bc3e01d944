/* SPDX-License-Identifier: MIT */
/* rigid_sleep.c: islands at rest stop being solved (solver.rigid.sleep,
 * docs/physics.md), as Bullet and Box2D do at their defaults.
 *
 * Every step, after the contacts are found: the islands are the connected
 * sets of moving bodies, joined by their contacts and joints (union-find,
 * the smaller index the root: the same islands whatever the order).  Each
 * body keeps in the state the time it has been at rest (speed below
 * SLEEP_LINEAR and angular speed below SLEEP_ANGULAR at the end of every
 * step), so that a checkpoint holds it and --resume gives the same bits; an
 * island sleeps for the step when every body in it has rested SLEEP_TIME:
 * its bodies stop (velocities zero), are neither moved nor pulled by gravity,
 * and its contacts are left out of the sweeps, keeping their warm-start
 * impulses for when it wakes.  An island wakes when an awake body touches
 * it (the two islands are one, and its time is the awake body's), or when
 * one of its bodies was pushed between steps (a particle contact: it moves
 * again), or when a moving kinematic body or a moving surface touches it.
 * Bodies with joints, and every body of a scene with particles
 * attached to bodies, never sleep. */
#include "solve/rigid/rigid.h"

#define SLEEP_TIME 0.5     /* s at rest before an island sleeps */
#define SLEEP_LINEAR 0.05  /* m/s */
#define SLEEP_ANGULAR 0.05 /* rad/s */

static int32_t root(int32_t *p, int32_t i) {
  while (p[i] != i) {
    p[i] = p[p[i]];
    i = p[i];
  }
  return i;
}

static void unite(int32_t *p, int32_t a, int32_t b) {
  a = root(p, a);
  b = root(p, b);
  if (a < b) p[b] = a;
  else if (b < a) p[a] = b;
}

static int moving(const vs_rmodel *m, int32_t i) { return i >= 0 && i < m->n_bodies && m->inv_mass[i] != 0; }

static int still(const vs_rstate *s, int32_t i) {
  const double *v = &s->v[3 * i], *w = &s->w[3 * i];
  return vs_dot3(v, v) < SLEEP_LINEAR * SLEEP_LINEAR && vs_dot3(w, w) < SLEEP_ANGULAR * SLEEP_ANGULAR;
}

/* A body of infinite mass that drives what touches it: a kinematic body
 * moving this step (its velocities are the step's, vs_rigid_kinematic_begin),
 * or a moving surface (surface_velocity). */
static int drives(const vs_rmodel *m, const vs_rstate *s, int32_t i) {
  if (i < 0 || i >= m->n_bodies || m->inv_mass[i] != 0) return 0;
  if (vs_rmodel_kinematic(m, i) && !still(s, i)) return 1;
  if (!m->motion || !m->motion->any_surface) return 0;
  const double *u = &m->motion->surface[3 * i];
  return u[0] != 0 || u[1] != 0 || u[2] != 0;
}

void vs_rigid_sleep_begin(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  const int32_t n = m->n_bodies;
  if (!s->sleep) return;
  int32_t *p = w->island;
  double *tmin = w->island_min;
  uint8_t *asleep = w->asleep;
  for (int32_t i = 0; i < n; i++) {
    p[i] = i;
    asleep[i] = 0;
    tmin[i] = HUGE_VAL;
    /* pushed between steps (asleep, its velocities were zero) or moving */
    if (moving(m, i) && !still(s, i)) s->sleep[i] = 0.0;
  }
  for (int32_t k = 0; k < w->n_contacts; k++) {
    const vs_rcontact *c = &w->contacts[k];
    if (moving(m, c->a) && moving(m, c->b)) unite(p, c->a, c->b);
    /* touched by a moving kinematic body or a moving surface: awake */
    if (moving(m, c->a) && drives(m, s, c->b)) s->sleep[c->a] = 0.0;
    if (moving(m, c->b) && drives(m, s, c->a)) s->sleep[c->b] = 0.0;
  }
  for (int32_t j = 0; j < m->n_joints; j++) {
    const int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (moving(m, a)) s->sleep[a] = 0.0;
    if (moving(m, b)) s->sleep[b] = 0.0;
    if (moving(m, a) && moving(m, b)) unite(p, a, b);
  }
  const int never = w->substep_hook != NULL; /* particles attached to bodies */
  for (int32_t i = 0; i < n; i++) {
    if (!moving(m, i)) continue;
    if (never) s->sleep[i] = 0.0;
    const int32_t r = root(p, i);
    if (s->sleep[i] < tmin[r]) tmin[r] = s->sleep[i];
  }
  for (int32_t i = 0; i < n; i++) {
    if (!moving(m, i) || !(tmin[root(p, i)] >= SLEEP_TIME)) continue;
    asleep[i] = 1;
    for (int k = 0; k < 3; k++) s->v[3 * i + k] = s->w[3 * i + k] = 0.0;
  }
}

void vs_rigid_sleep_end(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, double h) {
  if (!s->sleep) return;
  for (int32_t i = 0; i < m->n_bodies; i++) {
    if (!moving(m, i) || w->asleep[i]) continue;
    s->sleep[i] = still(s, i) ? s->sleep[i] + h : 0.0;
  }
}

int vs_rigid_manifold_asleep(const vs_rmodel *m, const vs_rwork *w, int32_t mi) {
  const vs_rcontact *c = &w->contacts[w->man[mi]];
  const int idle_a = !moving(m, c->ia) || w->asleep[c->ia];
  const int idle_b = !moving(m, c->ib) || w->asleep[c->ib];
  return m->set.sleep && idle_a && idle_b;
}
