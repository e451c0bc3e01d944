/* SPDX-License-Identifier: MIT */
/* rigid_sleep.c: islands at rest stop being solved (solver.rigid.sleep, on by
 * default; docs/physics.md, "Sleeping"), as Bullet, Box2D and Jolt do.
 *
 * Every step, after the contacts are found: the islands are the connected
 * sets of moving bodies, joined by their contacts and joints (union-find,
 * the smaller index the root: the same islands whatever the order).  Each
 * body keeps in the state the time it has been at rest, so that a
 * checkpoint holds it and --resume gives the same bits.  A body is at rest
 * at the end of a step when
 *  - its fastest point is slower than SLEEP_SPEED (|v| + bound |w|, the
 *    bound the radius of its bounding sphere, as Box2D v3 measures it),
 *  - a contact or a joint pushes it (a normal or joint impulse not zero: a
 *    body in flight, or one drifting in zero gravity, never sleeps), or its
 *    velocities are exactly zero (with nothing pushing it, no force acts:
 *    gravity would have left it some speed; a ball stopped dead against a
 *    wall in zero gravity), and
 *  - none of its contacts slides (the contacts within SLIDING of their
 *    Coulomb limit carry at most SLIDING_SHARE of its normal load: a body
 *    creeping down a slope just steeper than its friction angle, however
 *    slowly, is kept awake).
 * An island sleeps for the step when every body in it has rested
 * SLEEP_TIME: its bodies stop (velocities zero), are neither moved nor
 * pulled by gravity, and its contacts and joints are left out of the
 * sweeps (vs_rigid_manifold_asleep, vs_rigid_joint_asleep), keeping their
 * warm-start impulses for when it wakes.  An island wakes when an awake
 * body touches it (the two islands are one, and its time is the awake
 * body's); when a particle pushes one of its bodies between steps (which
 * sets the body's time at rest to 0: vs_rigid_particle_contact); when a
 * kinematic body that moves at all touches it or holds it by a joint; when
 * a moving surface touches it; when a motor with a speed turns one of its
 * joints.  A body with air drag does not sleep while the wind blows (it may
 * change: wind_keys).  When every body sleeps and nothing can wake one, the
 * step is skipped (vs_rigid_world_asleep).  Every
 * body of a scene with particles attached to bodies never sleeps. */
#include <string.h>

#include "solve/rigid/rigid.h"

#define SLEEP_TIME 0.5   /* s at rest before an island sleeps */
#define SLEEP_SPEED 0.01 /* m/s: the fastest point of a body at rest */
#define SLIDING 0.98     /* a friction impulse this near its limit: the contact slides */

/* A body slides when the contacts at their friction limit carry more than
 * this share of the normal impulse on it: a lightly loaded contact at its
 * limit (the side of a box in a pyramid, pressed by a neighbour) does not
 * move a body its other contacts hold. */
#define SLIDING_SHARE 0.5

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

static inline int moving(const vs_rmodel *m, int32_t i) {
  return i >= 0 && i < m->n_bodies && m->inv_mass[i] != 0;
}

static int still(const vs_rmodel *m, const vs_rstate *s, int32_t i) {
  return vs_len3(&s->v[3 * i]) + m->bound[i] * vs_len3(&s->w[3 * i]) < SLEEP_SPEED;
}

/* Body i's velocities are exactly zero. */
static int dead(const vs_rstate *s, int32_t i) {
  const double *v = &s->v[3 * i], *av = &s->w[3 * i];
  return v[0] == 0 && v[1] == 0 && v[2] == 0 && av[0] == 0 && av[1] == 0 && av[2] == 0;
}

/* A body of infinite mass that drives what touches it: a kinematic body
 * moving this step (its velocities are the step's, vs_rigid_kinematic_begin),
 * or a moving surface (surface_velocity). */
static inline int drives(const vs_rmodel *m, const vs_rstate *s, int32_t i) {
  if (i < 0 || i >= m->n_bodies || m->inv_mass[i] != 0) return 0;
  if (vs_rmodel_kinematic(m, i) && !dead(s, i)) return 1; /* however slowly it moves */
  if (!m->motion || !m->motion->any_surface) return 0;
  const double *u = &m->motion->surface[3 * i];
  return u[0] != 0 || u[1] != 0 || u[2] != 0;
}

/* Body i has air drag and the wind blows this step (docs/physics.md,
 * "Air"): a force on it that may change from step to step (wind_keys). */
static int windy(const vs_rmodel *m, const vs_rwork *w, int32_t i) {
  if (!w->air || (w->wind[0] == 0 && w->wind[1] == 0 && w->wind[2] == 0)) return 0;
  return moving(m, i) && (w->air[2 * (size_t)i] > 0 || w->air[2 * (size_t)i + 1] > 0);
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
    /* pushed between steps (asleep, its velocities were zero), moving, or
     * in the wind */
    if (moving(m, i) && (!still(m, s, i) || windy(m, w, i))) s->sleep[i] = 0.0;
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
    if (moving(m, a) && moving(m, b)) unite(p, a, b);
    /* a motor that turns, or a kinematic end that moves: awake */
    const int motor = (m->joint_flags[j] & VS_RJOINT_MOTOR) && m->joint_motor[2 * j] != 0;
    if (motor || drives(m, s, a) || drives(m, s, b)) {
      if (moving(m, a)) s->sleep[a] = 0.0;
      if (moving(m, b)) s->sleep[b] = 0.0;
    }
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

/* 1 when a friction impulse (t1, t2) is at its limit lim (> 0) */
static int slides(double t1, double t2, double lim) {
  return lim > 0 && t1 * t1 + t2 * t2 > (SLIDING * lim) * (SLIDING * lim);
}

/* The contacts' last substep, per body: pushed[i] 1 when a normal impulse
 * acts on it, slide[i] the normal impulses weighted for the test of
 * SLIDING_SHARE (> 0: the body slides). */
static void contact_load(const vs_rmodel *m, const vs_rwork *w, int32_t *pushed, double *slide) {
  for (int32_t mi = 0; mi < w->n_man; mi++) {
    if (vs_rigid_manifold_asleep(m, w, mi)) continue;
    const int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
    const vs_rpatch *P = &w->patch[mi];
    double sum = 0;
    int at_limit = 0;
    for (int32_t k = k0; k < k1; k++) {
      const vs_rcontact *c = &w->contacts[k];
      sum += c->pn;
      if (!P->on) at_limit |= slides(w->fric[k].pt1, w->fric[k].pt2, c->friction * c->pn);
    }
    if (P->on) {
      const double lim = P->friction * sum;
      at_limit = slides(P->pt1, P->pt2, lim) || (P->rtw > 0 && slides(P->ptw, 0, lim * P->rtw));
    }
    const double weight = at_limit ? (1 - SLIDING_SHARE) * sum : -SLIDING_SHARE * sum;
    const int32_t ab[2] = {w->contacts[k0].ia, w->contacts[k0].ib};
    for (int e = 0; e < 2; e++) {
      if (!moving(m, ab[e])) continue;
      if (sum > 0) pushed[ab[e]] = 1;
      slide[ab[e]] += weight;
    }
  }
}

/* The joints' impulses: a joint that holds a body pushes it. */
static void joint_load(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w, int32_t *pushed) {
  for (int32_t j = 0; j < m->n_joints; j++) {
    if (vs_rigid_joint_asleep(m, w, j)) continue;
    int held = 0;
    for (int k = 0; k < 3; k++) held |= s->joint_impulse[3 * j + k] != 0;
    for (int k = 0; s->joint_more && k < VS_RJOINT_MORE; k++)
      held |= s->joint_more[VS_RJOINT_MORE * (size_t)j + (size_t)k] != 0;
    const int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (held && moving(m, a)) pushed[a] = 1;
    if (held && moving(m, b)) pushed[b] = 1;
  }
}

void vs_rigid_sleep_end(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h) {
  if (!s->sleep) return;
  /* scratch: vs_rigid_sleep_begin's, free until the next step */
  int32_t *pushed = w->island;
  double *slide = w->island_min;
  memset(pushed, 0, sizeof(int32_t) * (size_t)m->n_bodies);
  memset(slide, 0, sizeof(double) * (size_t)m->n_bodies);
  contact_load(m, w, pushed, slide);
  joint_load(m, s, w, pushed);
  for (int32_t i = 0; i < m->n_bodies; i++) {
    if (!moving(m, i) || w->asleep[i]) continue;
    const int rests = still(m, s, i) && (pushed[i] || dead(s, i)) && !(slide[i] > 0);
    s->sleep[i] = rests ? s->sleep[i] + h : 0.0;
  }
}

/* Everything sleeps and nothing can wake it: every moving body slept in the
 * last step and has not been touched since (velocities exactly zero, the
 * pose of the last narrow phase: a particle contact, a --resume or a fresh
 * run take the full step), no kinematic body moves, no wind blows on a body
 * with air drag, no particle is attached, and the last narrow phase dropped
 * nothing.  The step would
 * reuse every contact, solve no row, move no body and store the impulses it
 * read: it is skipped, with the same bits (Box2D likewise never visits a
 * sleeping island). */
int vs_rigid_world_asleep(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w) {
  if (!s->sleep || !w->frozen || w->substep_hook || w->dropped) return 0;
  int any = 0;
  for (int32_t i = 0; i < m->n_bodies; i++) {
    const int rest = dead(s, i);
    if (m->inv_mass[i] == 0) {
      if (vs_rmodel_kinematic(m, i) && !rest) return 0;
      continue;
    }
    if (!w->asleep[i] || !rest || windy(m, w, i) || memcmp(&s->x[3 * i], &w->last_x[3 * i], 3 * sizeof(double)) ||
        memcmp(&s->q[4 * i], &w->last_q[4 * i], 4 * sizeof(double)))
      return 0;
    any = 1;
  }
  return any;
}
