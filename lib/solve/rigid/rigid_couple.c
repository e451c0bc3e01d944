/* SPDX-License-Identifier: MIT */
/* rigid_couple.c: the rigid bodies inside vs_step.  Their state lives in
 * vs_state's rows (rx, rq, rv, rw and the warm-start cache, so the checkpoint
 * holds all of it); the solver core (rigid_*.c) sees them through a vs_rstate
 * view built here, without copying.  Particles with a radius touch the
 * bodies at the position level (vs_rigid_particle_contact): the particle is
 * moved as by a moving obstacle, and the body gets the opposite impulse. */
#include <string.h>

#include "solve/rigid/rigid.h"
#include "solve/solve.h"

static void view(const vs_model *m, vs_state *s, vs_rstate *rs) {
  rs->n_bodies = m->n_rigid;
  rs->x = s->rx;
  rs->q = s->rq;
  rs->v = s->rv;
  rs->w = s->rw;
  /* the cache's count indexes its arrays: a count they cannot hold (a
   * state not made by the solver; --resume refuses such a checkpoint,
   * h5check.c) is an empty cache, not a read past them */
  const int32_t n = s->rn_cache[0];
  rs->n_cache = n >= 0 && n <= m->rigid_max_contacts ? n : 0;
  rs->cache_ab = s->rcache_ab;
  rs->cache_feature = (uint32_t *)s->rcache_feature; /* same bits, the cache's identity */
  rs->cache_impulse = s->rcache_impulse;
  rs->joint_impulse = s->rjoint_impulse;
  rs->joint_more = m->n_rjoints_more > 0 ? s->rjoint_more : NULL;
  rs->sleep = m->rigid_sleep ? s->rsleep : NULL;
}

void vs_kinematic_rigid(const vs_model *m, vs_state *s, double t0, double t1) {
  vs_rstate rs;
  view(m, s, &rs);
  vs_rigid_kinematic_begin(m->priv->rigid, &rs, s->scratch->rigid, t0, t1);
}

/* Coulomb friction of a particle-body contact at the position level
 * (Macklin et al. 2014, §6.1): the tangential displacement of the particle
 * relative to the body's point over the step is removed when it is below
 * friction * depth (static), else shortened by friction * depth (kinetic);
 * the correction is split by the inverse masses and the body gets the
 * opposite impulse, so momentum is kept.  The body's own friction is the
 * coefficient (particles have none of their own). */
static void contact_friction(const vs_rmodel *rm, vs_state *s, int32_t b, int32_t i, double *p,
                             const double n[3], const double pt[3], double depth, double h) {
  const double mu = rm->friction[b];
  if (!(mu > 0.0)) return;
  double *xb = s->rx + 3 * (size_t)b, *vb = s->rv + 3 * (size_t)b, *wb = s->rw + 3 * (size_t)b;
  const double *pp = s->xprev + 4 * (size_t)i;
  double r[3], vr[3], rel[3];
  for (int k = 0; k < 3; k++) r[k] = pt[k] - xb[k];
  vs_cross3(wb, r, vr);
  if (rm->motion && rm->motion->any_surface) { /* a moving surface drags the particle along */
    double sv[3];
    vs_rigid_surface_velocity(rm, s->rq + 4 * (size_t)b, b, sv);
    for (int k = 0; k < 3; k++) vr[k] += sv[k];
  }
  for (int k = 0; k < 3; k++) rel[k] = (p[k] - pp[k]) - h * (vb[k] + vr[k]);
  const double rn = vs_dot3(rel, n);
  double t[3];
  for (int k = 0; k < 3; k++) t[k] = rel[k] - rn * n[k];
  const double len = vs_len3(t);
  if (!(len > 0.0)) return;
  for (int k = 0; k < 3; k++) t[k] /= len;
  const double corr = len < mu * depth ? len : mu * depth;
  const double im = rm->inv_mass[b], wp = p[3];
  double R[9], rt[3], iwrt[3] = {0, 0, 0}, wbt = 0.0;
  vs_quat_to_mat(s->rq + 4 * (size_t)b, R);
  if (im > 0.0) {
    double loc[3];
    vs_cross3(r, t, rt);
    vs_mat3_mul_t(R, rt, loc);
    for (int k = 0; k < 3; k++) loc[k] *= rm->inv_inertia[3 * (size_t)b + k];
    vs_mat3_mul(R, loc, iwrt);
    wbt = im + vs_dot3(rt, iwrt);
  }
  if (!(wp + wbt > 0.0)) return;
  const double lambda = corr / (wp + wbt);
  for (int k = 0; k < 3; k++) p[k] -= wp * lambda * t[k];
  if (im > 0.0) {
    double dth[3];
    for (int k = 0; k < 3; k++) {
      xb[k] += im * lambda * t[k];
      vb[k] += im * lambda / h * t[k];
      dth[k] = lambda * iwrt[k];
      wb[k] += dth[k] / h;
    }
    vs_quat_integrate(s->rq + 4 * (size_t)b, dth, 1.0);
  }
}

/* Each particle with a radius against each body whose bounding sphere it
 * reaches, in (particle, body) order. */
void vs_couple_rigid(const vs_model *m, vs_state *s, double h) {
  vs_rstate rs;
  view(m, s, &rs);
  const vs_rmodel *rm = m->priv->rigid;
  for (int32_t i = 0; i < m->n_particles; i++) {
    const double r = m->radius[i];
    if (r <= 0.0) continue;
    double *p = s->x + 4 * (size_t)i;
    const vs_body_info *pb = &m->bodies[m->body[i]];
    for (int32_t b = 0; b < m->n_rigid; b++) {
      if (!(pb->group_bits & rm->mask[b]) || !(rm->group_bits[b] & pb->mask)) continue;
      const double *c = s->rx + 3 * (size_t)b;
      const double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, reach = rm->bound[b] + r;
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > reach * reach) continue;
      double n[3], depth, pt[3];
      if (!vs_rigid_point_query(rm, &rs, b, p, r, 0.0, n, &depth, pt) || depth <= 0.0) continue;
      if (vs_rigid_particle_contact(rm, &rs, b, p, p[3], r, h, NULL))
        contact_friction(rm, s, b, i, p, n, pt, depth, h);
    }
  }
}

/* `attach`: particle p held at the body-local point a of body b, solved at
 * the position level like the particle constraints, once at the end of
 * every rigid substep's position update (vs_rigid_step calls it there): the
 * gap d between the particle and the point is split by the particle's
 * inverse mass and the body's generalised inverse mass along d at the point,
 * and both move by their shares, the body turning about its centre as a
 * contact with a particle turns it (vs_rigid_particle_contact); the body
 * also gets the impulse that matches the particle's change of momentum
 * (lambda / h over the particle step h, whose velocity is its displacement
 * over h), so momentum is kept.  The joints' position passes that follow in
 * the substep see the moved body.  Solved once a frame, after the rigid
 * step, the body's share stayed open while it moved through the step's
 * substeps (5.5 mm in configs/rigid_chain.yaml); at the substeps' rate it
 * closes each substep (docs/physics.md). */
typedef struct attach_ctx {
  const vs_model *m;
  vs_state *s;
  double h;
} attach_ctx;

static void attach_substep(void *ctx, const vs_rmodel *rm, vs_rstate *rs, vs_rwork *w) {
  const attach_ctx *c = ctx;
  const vs_model *m = c->m;
  vs_state *s = c->s;
  const double h = c->h;
  for (int32_t k = 0; k < m->n_attach; k++) {
    const int32_t b = m->attach_body[k];
    double *p = s->x + 4 * (size_t)m->attach_p[k];
    double *xb = rs->x + 3 * (size_t)b, *qb = rs->q + 4 * (size_t)b;
    double R[9], r[3], d[3];
    vs_quat_to_mat(qb, R);
    vs_mat3_mul(R, &m->attach_at[3 * (size_t)k], r);
    for (int i = 0; i < 3; i++) d[i] = p[i] - (xb[i] + r[i]);
    const double len = vs_len3(d);
    if (!(len > 0.0)) continue;
    const double n[3] = {d[0] / len, d[1] / len, d[2] / len};
    const double im = rm->inv_mass[b];
    double rn[3], iwrn[3] = {0, 0, 0}, wb = 0.0;
    if (im > 0.0) {
      double loc[3];
      vs_cross3(r, n, rn);
      vs_mat3_mul_t(R, rn, loc);
      for (int i = 0; i < 3; i++) loc[i] *= rm->inv_inertia[3 * (size_t)b + i];
      vs_mat3_mul(R, loc, iwrn);
      wb = im + vs_dot3(rn, iwrn);
    }
    const double wp = p[3], wsum = wp + wb;
    if (!(wsum > 0.0)) continue;
    const double lambda = len / wsum;
    for (int i = 0; i < 3; i++) p[i] -= wp * lambda * n[i];
    if (im > 0.0) {
      double dth[3], *dp = &w->dp[6 * (size_t)b];
      for (int i = 0; i < 3; i++) {
        xb[i] += im * lambda * n[i];
        dp[i] += im * lambda * n[i];
        rs->v[3 * (size_t)b + i] += im * lambda / h * n[i];
        dth[i] = lambda * iwrn[i];
        dp[3 + i] += dth[i];
        rs->w[3 * (size_t)b + i] += dth[i] / h;
      }
      vs_quat_integrate(qb, dth, 1.0);
    }
  }
}

void vs_step_rigid(const vs_model *m, vs_state *s, double h) {
  vs_rstate rs;
  view(m, s, &rs);
  vs_rwork *w = s->scratch->rigid;
  attach_ctx ctx = {m, s, h};
  w->threads = s->threads;
  w->air = m->aero ? m->priv->rigid_air : NULL;
  memcpy(w->wind, s->scratch->wind, sizeof w->wind);
  w->substep_hook = m->n_attach > 0 ? attach_substep : NULL;
  w->hook_ctx = &ctx;
  vs_rigid_step(m->priv->rigid, &rs, w, h);
  vs_rigid_kinematic_end(m->priv->rigid, &rs, w);
  w->substep_hook = NULL;
  w->hook_ctx = NULL;
  s->rn_cache[0] = rs.n_cache;
  s->scratch->rigid_contacts = w->n_contacts;
}
