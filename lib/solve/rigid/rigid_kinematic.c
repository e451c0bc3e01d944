/* SPDX-License-Identifier: MIT */
/* rigid_kinematic.c: kinematic bodies in the step and moving surfaces
 * (docs/physics.md, "Kinematic bodies and moving surfaces").
 *
 * A kinematic body has zero inverse mass and inertia, so no impulse changes
 * its velocities and every solver path that skips static bodies skips it
 * (the colours and the sweep order treat it as static too: its velocities
 * are only read).  Its velocities are set at each step's start from its
 * path (model/rigid_motion.c), the substeps move it at them, and at the
 * step's end it is put exactly on its path. */
#include <string.h>

#include "solve/rigid/rigid.h"
#include "util/detmath.h"

void vs_rigid_kinematic_begin(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double t0, double t1) {
  w->t_end = t1;
  const vs_rmotion *mo = m->motion;
  if (!mo) return;
  const double dt = t1 - t0;
  for (int32_t i = 0; i < m->n_bodies; i++) {
    if (!mo->kinematic[i]) continue;
    double *x = &s->x[3 * i], *q = &s->q[4 * i], *v = &s->v[3 * i], *av = &s->w[3 * i];
    double x1[3], q1[4];
    vs_rmotion_pose(mo, i, t0, x, q);
    vs_rmotion_pose(mo, i, t1, x1, q1);
    if (!(dt > 0)) {
      memset(v, 0, 3 * sizeof(double));
      memset(av, 0, 3 * sizeof(double));
      continue;
    }
    for (int k = 0; k < 3; k++) v[k] = (x1[k] - x[k]) / dt;
    /* the world rotation d = q1 q^-1, the shorter way, as a rotation vector */
    const double cq[4] = {q[0], -q[1], -q[2], -q[3]};
    double d[4];
    vs_quat_mul(q1, cq, d);
    if (d[0] < 0)
      for (int k = 0; k < 4; k++) d[k] = -d[k];
    const double sn = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    const double rate = sn > 0 ? 2.0 * vs_atan2(sn, d[0]) / (sn * dt) : 0.0;
    for (int k = 0; k < 3; k++) av[k] = rate * d[1 + k];
  }
}

void vs_rigid_kinematic_move(vs_rstate *s, vs_rwork *w, int32_t i, double hs) {
  double *x = &s->x[3 * i], *d = &w->dp[6 * i];
  const double *v = &s->v[3 * i], *av = &s->w[3 * i];
  for (int k = 0; k < 3; k++) {
    x[k] += hs * v[k];
    d[k] += hs * v[k];
    d[3 + k] += hs * av[k];
  }
  vs_quat_integrate(&s->q[4 * i], av, hs);
}

void vs_rigid_kinematic_end(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w) {
  const vs_rmotion *mo = m->motion;
  if (!mo) return;
  for (int32_t i = 0; i < m->n_bodies; i++)
    if (mo->kinematic[i]) vs_rmotion_pose(mo, i, w->t_end, &s->x[3 * i], &s->q[4 * i]);
}

void vs_rigid_surface_velocity(const vs_rmodel *m, const double q[4], int32_t i, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  if (!m->motion || !m->motion->any_surface || i < 0 || i >= m->n_bodies) return;
  const double *sv = &m->motion->surface[3 * i];
  if (sv[0] == 0 && sv[1] == 0 && sv[2] == 0) return;
  double R[9];
  vs_quat_to_mat(q, R);
  vs_mat3_mul(R, sv, out);
}
