/* SPDX-License-Identifier: MIT */
/* rigid_joint_axis.c: the 1-D rows along a hinge's or slider's axis --
 * spring, motor, lower and upper limit -- solved by sequential impulses
 * after the joint's equality rows (the forest's exact solve, or the loop
 * joint's own rows) in each sweep (docs/physics.md, "Joints").
 *
 * The row is the axis row of rigid_joint.c (hinge: the angle's rate
 * (wb - wa) . axis; slider: the anchors' relative speed along the axis),
 * its impulse applied with the reaction of the joint's own equality rows
 * and its effective mass the one with those rows held (a door's about its
 * hinge, not a free body's about its centre): a row solved with a free
 * body's mass left the hinge and the row fighting over the sweeps, and a
 * door shut against its limit bounced back by a tenth of its speed;
 * the position along it (angle or travel) is the one of the substep's
 * start.  Each row keeps its accumulated impulse in the state
 * (joint_more: VS_RJM_*), warm-started as the equality rows are:
 *   spring  soft row towards the rest position, Box2D v3's soft step
 *           (b2MakeSoft) from hertz and damping ratio; unbounded;
 *   motor   towards the target speed, the impulse clamped to
 *           max * h (h: the substep);
 *   limits  one-sided (lower >= 0, upper >= 0), speculative: while the
 *           limit is ahead by C, the row allows a speed of C / h towards
 *           it and no more, so the joint stops at it without a bounce; the
 *           position past a limit is closed by the position pass
 *           (vs_rigid_project_limits, vs_rigid_project_joints).
 * A ball's twist (about its axis, as a hinge's angle: its row is that
 * angle's rate, (wb - wa) . (ua + ub) / (1 + ua . ub)) and cone (the swing
 * of b's axis away from a's, about their common normal) are limits of the
 * same kind, with the same position pass.  A soft weld (a
 * ball with VS_RJOINT_SOFT) holds its orientation by three soft rows about
 * the world axes, springs as the hinge's towards no turn (its impulses in
 * joint_more's first three slots, which a ball's rows leave free). */
#include <math.h>

#include "solve/rigid/rigid_joint_rows.h"

typedef struct axis_row {
  int32_t a, b;
  double Ja[6], Jb[6]; /* the row (its speed) */
  double Ra[6], Rb[6]; /* what an impulse along it does, the joint's rows held */
  double mass;         /* effective mass of the row, the joint's rows held */
} axis_row;

static void make_row(const vs_rmodel *m, const vs_rwork *w, int32_t j, int cone, axis_row *r) {
  r->a = m->joint_ab[2 * j];
  r->b = m->joint_ab[2 * j + 1] < 0 ? m->n_bodies : m->joint_ab[2 * j + 1];
  vs_rjoint_axis_rows(m, w, j, cone, r->Ja, r->Jb, r->Ra, r->Rb, &r->mass);
}

static double row_speed(const vs_rstate *s, const axis_row *r) {
  double c = 0;
  gen_rows(s, r->a, r->Ja, 1, &c);
  gen_rows(s, r->b, r->Jb, 1, &c);
  return c;
}

static void push_row(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, const axis_row *r,
                     double l) {
  /* no impulse (a limit not reached, nothing to warm start): nothing to add
   * (v + 0 is v) */
  if (l == 0) return;
  gen_apply(m, s, w, r->a, r->Ra, 1, &l);
  gen_apply(m, s, w, r->b, r->Rb, 1, &l);
}

static double substep(const vs_rmodel *m, const vs_rwork *w) {
  return w->h / (m->set.substeps > 0 ? m->set.substeps : 1);
}

/* One-sided row, every 1-D limit's (a hinge's or slider's, a ball's cone
 * and twist): C the distance to the limit along sg * row (sg = +1: a lower
 * limit, -1: an upper one); *ac its accumulated impulse (>= 0).  Ahead of
 * the limit (C > 0) the row allows a speed of C / h towards it; past it
 * (C < 0), none: the position pass brings the joint back. */
static void limit_row(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, const axis_row *r,
                      double h, double C, double sg, double *ac) {
  double bias = C > 0 ? C / h : 0.0, old = *ac;
  double l = -r->mass * (sg * row_speed(s, r) + bias);
  double nw = old + l > 0 ? old + l : 0.0;
  *ac = nw;
  push_row(m, s, w, r, sg * (nw - old));
}

/* One soft row (Box2D v3, solver.h, b2MakeSoft): omega = 2 pi f,
 * a1 = 2 zeta + h omega, a2 = h omega a1, bias rate omega / a1, mass scale
 * a2 / (1 + a2), impulse scale 1 / (1 + a2); C the position along the row
 * from the rest. */
static void soft_row(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, const axis_row *r,
                     double h, const double sp[2], double C, double *ac) {
  double omega = 2.0 * 3.14159265358979323846 * sp[0], a1 = 2.0 * sp[1] + h * omega;
  double a2 = h * omega * a1, a3 = 1.0 / (1.0 + a2);
  double bias = a1 > 0 ? omega / a1 * C : 0.0;
  double l = -r->mass * a2 * a3 * (row_speed(s, r) + bias) - a3 * *ac;
  *ac += l;
  push_row(m, s, w, r, l);
}

void vs_rjoint_warm_axis(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t j) {
  int32_t flags = m->joint_flags[j];
  if (!flags) return;
  const double *acc = &s->joint_more[VS_RJOINT_MORE * (size_t)j]; /* offsets VS_RJM_* */
  axis_row r;
  if (flags & VS_RJOINT_SOFT) {
    for (int k = 0; k < 3; k++) {
      make_row(m, w, j, 2 + k, &r);
      push_row(m, s, w, &r, acc[k]);
    }
    return;
  }
  if (flags & ~VS_RJOINT_CONE) {
    make_row(m, w, j, 0, &r);
    double l = acc[VS_RJM_SPRING] + acc[VS_RJM_MOTOR] + acc[VS_RJM_LO] - acc[VS_RJM_HI];
    push_row(m, s, w, &r, l);
  }
  if (flags & VS_RJOINT_CONE) {
    make_row(m, w, j, 1, &r);
    push_row(m, s, w, &r, -acc[VS_RJM_CONE]);
  }
}

void vs_rjoint_solve_axis(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t j) {
  int32_t flags = m->joint_flags[j];
  if (!flags) return;
  double *acc = &s->joint_more[VS_RJOINT_MORE * (size_t)j]; /* offsets VS_RJM_* */
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  const double h = substep(m, w);
  axis_row r;
  if (flags & VS_RJOINT_SOFT) {
    for (int k = 0; k < 3; k++) {
      make_row(m, w, j, 2 + k, &r);
      if (r.mass > 0)
        soft_row(m, s, w, &r, h, &m->joint_spring[3 * (size_t)j], jw[VS_RJW_SOFT_ERR + k], &acc[k]);
    }
    return;
  }
  if (flags & VS_RJOINT_CONE) {
    make_row(m, w, j, 1, &r);
    if (r.mass > 0)
      limit_row(m, s, w, &r, h, m->joint_cone[j] - jw[VS_RJW_BALL_SWING], -1.0, &acc[VS_RJM_CONE]);
  }
  if (flags & VS_RJOINT_TWIST) {
    make_row(m, w, j, 0, &r);
    double pos = jw[VS_RJW_BALL_TWIST], lo = m->joint_limit[2 * (size_t)j],
           hi = m->joint_limit[2 * (size_t)j + 1];
    if (r.mass > 0) {
      limit_row(m, s, w, &r, h, pos - lo, 1.0, &acc[VS_RJM_LO]);
      limit_row(m, s, w, &r, h, hi - pos, -1.0, &acc[VS_RJM_HI]);
    }
  }
  if (!(flags & (VS_RJOINT_SPRING | VS_RJOINT_MOTOR | VS_RJOINT_LIMIT))) return;
  make_row(m, w, j, 0, &r);
  if (r.mass == 0) return;
  const double pos = jw[VS_RJW_POS];
  if (flags & VS_RJOINT_SPRING) {
    const double *sp = &m->joint_spring[3 * (size_t)j];
    soft_row(m, s, w, &r, h, sp, pos - sp[2], &acc[VS_RJM_SPRING]);
  }
  if (flags & VS_RJOINT_MOTOR) {
    double most = m->joint_motor[2 * (size_t)j + 1] * h, old = acc[VS_RJM_MOTOR];
    double l = -r.mass * (row_speed(s, &r) - m->joint_motor[2 * (size_t)j]);
    double nw = old + l;
    nw = nw < -most ? -most : nw > most ? most : nw;
    acc[VS_RJM_MOTOR] = nw;
    push_row(m, s, w, &r, nw - old);
  }
  if (flags & VS_RJOINT_LIMIT) {
    double lo = m->joint_limit[2 * (size_t)j], hi = m->joint_limit[2 * (size_t)j + 1];
    limit_row(m, s, w, &r, h, pos - lo, 1.0, &acc[VS_RJM_LO]);
    limit_row(m, s, w, &r, h, hi - pos, -1.0, &acc[VS_RJM_HI]);
  }
}

void vs_rigid_tree_axes(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w) {
  if (!w->tree.n_tree_joints) return;
  for (int32_t j = 0; j < m->n_joints; j++)
    if (w->tree.in_tree[j] && m->joint_flags[j] && !vs_rigid_joint_asleep(m, w, j))
      vs_rjoint_solve_axis(m, s, w, j);
}

/* The 1-D angular or linear limits of joint j passed at the pose of jw
 * (prepared): their axis rows (which, as vs_rjoint_axis_row's) and how far
 * past (the position less the limit); the count (at most 2: a ball's cone
 * and twist). */
int vs_rjoint_passed_limits(const vs_rmodel *m, int32_t j, const double *jw, int which[2],
                            double by[2]) {
  int32_t flags = m->joint_flags[j];
  const double *lim = &m->joint_limit[2 * j];
  int n = 0;
  double pos = flags & VS_RJOINT_LIMIT ? jw[VS_RJW_POS] : jw[VS_RJW_BALL_TWIST];
  if (flags & VS_RJOINT_CONE && jw[VS_RJW_BALL_SWING] > m->joint_cone[j])
    which[n] = 1, by[n++] = jw[VS_RJW_BALL_SWING] - m->joint_cone[j];
  if (flags & (VS_RJOINT_LIMIT | VS_RJOINT_TWIST)) {
    if (pos < lim[0]) which[n] = 0, by[n++] = pos - lim[0];
    else if (pos > lim[1]) which[n] = 0, by[n++] = pos - lim[1];
  }
  return n;
}
