/* rigid_solve.c: sequential impulses (Catto) over contacts and joints.
 *
 * Contacts: an accumulated normal impulse clamped at >= 0, a friction impulse
 * in two tangent directions whose accumulated vector is clamped to the
 * Coulomb disc |pt| <= friction * pn (pair friction sqrt(fa fb), restitution
 * max(ea, eb)), the effective mass of seed 003 with its rotational terms
 *   1/ma + 1/mb + n.((Ia^-1 (ra x n)) x ra) + n.((Ib^-1 (rb x n)) x rb),
 * a Baumgarte bias baumgarte/h * max(depth - slop, 0) (capped at
 * max_bias_velocity), speculative contacts (a gap g lets the bodies approach
 * at g/h), warm starting from the last step's impulses of the same contact
 * (body pair and feature id), restitution -e vn0 from the approach speed vn0
 * before the solve when it exceeds the threshold (solved after the other
 * sweeps, for contacts that carried load, as Box2D v3 does).  The Baumgarte
 * push is a split impulse (Catto, Bullet): it acts on pseudo velocities that
 * move the positions in this substep and are then dropped, so that it never
 * turns into momentum (no bounce from penetration, and every real impulse
 * acts before the positions move, at one point for both bodies).
 *
 * Substeps (Box2D v3's "soft step" layout): contacts are found once per step;
 * each substep's depth is the step's depth corrected by the bodies'
 * displacement since the step began (w->dp: linear and rotation vector), so
 * the narrow phase and the effective masses are paid once.  The Jacobian
 * rows r x n and I^-1 (r x n) are precomputed per contact.
 *
 * Joints: ball (3-row block, K^-1 by Cramer's rule) and distance between
 * body points (1 row), both with a Baumgarte bias and warm starting. */
#include <string.h>

#include "solve/rigid/rigid.h"

static inline void sub3(const double a[3], const double b[3], double o[3]) {
  o[0] = a[0] - b[0];
  o[1] = a[1] - b[1];
  o[2] = a[2] - b[2];
}

/* Velocity of the point r (relative to the centre) of body i. */
static inline void point_vel(const vs_rstate *s, int32_t i, const double r[3], double o[3]) {
  const double *v = &s->v[3 * i], *w = &s->w[3 * i];
  double x[3];
  vs_cross3(w, r, x);
  o[0] = v[0] + x[0];
  o[1] = v[1] + x[1];
  o[2] = v[2] + x[2];
}

/* Impulse P at r on body i (sign +1) or -P (sign -1). */
static inline void apply(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i,
                         const double r[3], const double P[3], double sign) {
  double im = m->inv_mass[i] * sign;
  if (im == 0) return;
  double *v = &s->v[3 * i], *wv = &s->w[3 * i];
  v[0] += im * P[0];
  v[1] += im * P[1];
  v[2] += im * P[2];
  double t[3], dw[3];
  vs_cross3(r, P, t);
  vs_mat3_mul(&w->inv_iw[9 * i], t, dw);
  wv[0] += sign * dw[0];
  wv[1] += sign * dw[1];
  wv[2] += sign * dw[2];
}

/* n.((I^-1 (r x n)) x r) = (r x n).I^-1 (r x n) */
static inline double ang_mass(const double *Iw, const double r[3], const double n[3]) {
  double rn[3], t[3];
  vs_cross3(r, n, rn);
  vs_mat3_mul(Iw, rn, t);
  return vs_dot3(rn, t);
}

static void tangents(const double n[3], double t1[3], double t2[3]) {
  static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
  vs_cross3(n, fabs(n[0]) < 0.57 ? ex : ey, t1);
  double l = vs_len3(t1);
  t1[0] /= l;
  t1[1] /= l;
  t1[2] /= l;
  vs_cross3(n, t1, t2);
}

/* The contact order: body a, then colliders (by index), then bodies b, then feature. */
static int ckey_cmp(int32_t a1, int32_t b1, uint32_t f1, int32_t a2, int32_t b2, uint32_t f2,
                    int32_t nc) {
  if (a1 != a2) return a1 < a2 ? -1 : 1;
  int64_t k1 = b1 < 0 ? (int64_t)(-1 - b1) : (int64_t)nc + b1;
  int64_t k2 = b2 < 0 ? (int64_t)(-1 - b2) : (int64_t)nc + b2;
  if (k1 != k2) return k1 < k2 ? -1 : 1;
  if (f1 != f2) return f1 < f2 ? -1 : 1;
  return 0;
}

static void invert3(const double K[9], double o[9]) {
  double c0 = K[4] * K[8] - K[5] * K[7], c1 = K[5] * K[6] - K[3] * K[8], c2 = K[3] * K[7] - K[4] * K[6];
  double det = K[0] * c0 + K[1] * c1 + K[2] * c2;
  if (det == 0) {
    memset(o, 0, sizeof(double) * 9);
    return;
  }
  double id = 1.0 / det;
  o[0] = c0 * id;
  o[1] = (K[2] * K[7] - K[1] * K[8]) * id;
  o[2] = (K[1] * K[5] - K[2] * K[4]) * id;
  o[3] = c1 * id;
  o[4] = (K[0] * K[8] - K[2] * K[6]) * id;
  o[5] = (K[2] * K[3] - K[0] * K[5]) * id;
  o[6] = c2 * id;
  o[7] = (K[1] * K[6] - K[0] * K[7]) * id;
  o[8] = (K[0] * K[4] - K[1] * K[3]) * id;
}

/* K += S^T I S with S = skew(r) (S v = r x v). */
static void add_rot_block(double K[9], const double *I, const double r[3]) {
  double S[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0}, IS[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      IS[3 * i + j] = I[3 * i] * S[j] + I[3 * i + 1] * S[3 + j] + I[3 * i + 2] * S[6 + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      K[3 * i + j] += S[i] * IS[j] + S[3 + i] * IS[3 + j] + S[6 + i] * IS[6 + j];
}

/* Joints are prepared every substep from the current pose (anchors, effective
 * mass and error), which keeps them exact however far the bodies turn in a
 * step; they are few, so this costs little. */
void vs_rigid_prepare_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies;
  for (int32_t j = 0; j < m->n_joints; j++) {
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (b < 0) b = n;
    double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
    double *ra = jw, *rb = jw + 3, R[9];
    vs_quat_to_mat(&s->q[4 * a], R);
    vs_mat3_mul(R, &m->joint_pa[3 * j], ra);
    vs_quat_to_mat(&s->q[4 * b], R);
    vs_mat3_mul(R, &m->joint_pb[3 * j], rb);
    double C[3];
    for (int k = 0; k < 3; k++) C[k] = s->x[3 * b + k] + rb[k] - s->x[3 * a + k] - ra[k];
    double msum = m->inv_mass[a] + m->inv_mass[b];
    if (m->joint_kind[j] == VS_JOINT_BALL) {
      double K[9] = {msum, 0, 0, 0, msum, 0, 0, 0, msum};
      add_rot_block(K, &w->inv_iw[9 * a], ra);
      add_rot_block(K, &w->inv_iw[9 * b], rb);
      invert3(K, jw + 6);
      memcpy(jw + 15, C, sizeof C);
    } else {
      double len = vs_len3(C), u[3] = {0, 1, 0};
      if (len > 1e-12)
        for (int k = 0; k < 3; k++) u[k] = C[k] / len;
      memcpy(jw + 6, u, sizeof u);
      double k = msum + ang_mass(&w->inv_iw[9 * a], ra, u) + ang_mass(&w->inv_iw[9 * b], rb, u);
      jw[9] = k > 0 ? 1.0 / k : 0.0;
      jw[10] = len - m->joint_rest[j];
    }
  }
}

static void warm_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  double P[3];
  if (m->joint_kind[j] == VS_JOINT_BALL) {
    memcpy(P, &s->joint_impulse[3 * j], sizeof P);
  } else {
    double l = s->joint_impulse[3 * j];
    for (int k = 0; k < 3; k++) P[k] = l * jw[6 + k];
  }
  apply(m, s, w, a, jw, P, -1.0);
  apply(m, s, w, b, jw + 3, P, 1.0);
}

/* beta: baumgarte / h, or 0 without the bias. */
static void solve_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j, double beta) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  double va[3], vb[3], dv[3];
  point_vel(s, a, jw, va);
  point_vel(s, b, jw + 3, vb);
  sub3(vb, va, dv);
  double P[3];
  if (m->joint_kind[j] == VS_JOINT_BALL) {
    double e[3];
    for (int k = 0; k < 3; k++) e[k] = dv[k] + beta * jw[15 + k];
    vs_mat3_mul(jw + 6, e, P);
    for (int k = 0; k < 3; k++) {
      P[k] = -P[k];
      s->joint_impulse[3 * j + k] += P[k];
    }
  } else {
    double cd = vs_dot3(dv, jw + 6) + beta * jw[10];
    double l = -cd * jw[9];
    s->joint_impulse[3 * j] += l;
    for (int k = 0; k < 3; k++) P[k] = l * jw[6 + k];
  }
  apply(m, s, w, a, jw, P, -1.0);
  apply(m, s, w, b, jw + 3, P, 1.0);
}

/* Move body i by the positional impulse P at r (sign +-1): x += m^-1 P,
 * orientation turned by I^-1 (r x P). */
static void shift_body(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w, int32_t i,
                       const double r[3], const double P[3], double sign) {
  double im = m->inv_mass[i];
  if (im == 0) return;
  double t[3], dth[3];
  vs_cross3(r, P, t);
  vs_mat3_mul(&w->inv_iw[9 * i], t, dth);
  for (int k = 0; k < 3; k++) {
    s->x[3 * i + k] += sign * im * P[k];
    dth[k] *= sign;
  }
  vs_quat_integrate(&s->q[4 * i], dth, 1.0);
}

/* A position pass over the joints after the positions moved (Box2D v2's
 * non-linear Gauss-Seidel): the velocity rows cannot see the drift that
 * turning bodies give their anchors within a substep, this removes it
 * without touching the velocities (no energy is added). */
void vs_rigid_project_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int rev) {
  int32_t n = m->n_bodies;
  for (int32_t jj = 0; jj < m->n_joints; jj++) {
    int32_t j = rev ? m->n_joints - 1 - jj : jj;
    if (w->tree.n_tree_joints && w->tree.in_tree[j]) continue;
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (b < 0) b = n;
    double R[9], ra[3], rb[3], C[3];
    vs_quat_to_mat(&s->q[4 * a], R);
    vs_mat3_mul(R, &m->joint_pa[3 * j], ra);
    vs_quat_to_mat(&s->q[4 * b], R);
    vs_mat3_mul(R, &m->joint_pb[3 * j], rb);
    for (int k = 0; k < 3; k++) C[k] = s->x[3 * b + k] + rb[k] - s->x[3 * a + k] - ra[k];
    double msum = m->inv_mass[a] + m->inv_mass[b], P[3];
    if (m->joint_kind[j] == VS_JOINT_BALL) {
      double K[9] = {msum, 0, 0, 0, msum, 0, 0, 0, msum}, Ki[9];
      add_rot_block(K, &w->inv_iw[9 * a], ra);
      add_rot_block(K, &w->inv_iw[9 * b], rb);
      invert3(K, Ki);
      vs_mat3_mul(Ki, C, P);
      for (int k = 0; k < 3; k++) P[k] = -P[k];
    } else {
      double len = vs_len3(C), u[3] = {0, 1, 0};
      if (len > 1e-12)
        for (int k = 0; k < 3; k++) u[k] = C[k] / len;
      double kk = msum + ang_mass(&w->inv_iw[9 * a], ra, u) + ang_mass(&w->inv_iw[9 * b], rb, u);
      double l = kk > 0 ? -(len - m->joint_rest[j]) / kk : 0.0;
      for (int k = 0; k < 3; k++) P[k] = l * u[k];
    }
    shift_body(m, s, w, a, ra, P, -1.0);
    shift_body(m, s, w, b, rb, P, 1.0);
  }
}

static inline void jrow(const double *Iw, const double r[3], const double d[3], double rd[3],
                        double ird[3]) {
  vs_cross3(r, d, rd);
  vs_mat3_mul(Iw, rd, ird);
}

/* Friction rows of a patch at its centre (manifolds whose points share one
 * normal: box-box faces, a box or capsule on a plane): two tangent rows and a
 * twist row about the normal, solved once per manifold instead of two rows
 * per point (Coulomb: |(pt1, pt2)| <= friction * sum pn, |ptw| <= friction *
 * sum pn * mean radius of the points about the centre). */
static void prepare_patch(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi) {
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1], cnt = k1 - k0;
  vs_rpatch *P = &w->patch[mi];
  const vs_rcontact *c0 = &w->contacts[k0];
  int32_t a = c0->ia, b = c0->ib;
  double pc[3] = {0, 0, 0}, f[3] = {0, 0, 0};
  for (int32_t k = k0; k < k1; k++)
    for (int q = 0; q < 3; q++) {
      pc[q] += w->contacts[k].p[q];
      f[q] += w->contacts[k].fcache[q];
    }
  for (int q = 0; q < 3; q++) pc[q] /= cnt;
  double rt = 0;
  for (int32_t k = k0; k < k1; k++) {
    double d[3];
    sub3(w->contacts[k].p, pc, d);
    rt += vs_len3(d);
  }
  P->rtw = rt / cnt;
  P->friction = c0->friction;
  memcpy(P->n, c0->n, sizeof P->n);
  double ra[3], rb[3];
  sub3(pc, &s->x[3 * a], ra);
  sub3(pc, &s->x[3 * b], rb);
  tangents(c0->n, P->t1, P->t2);
  double msum = m->inv_mass[a] + m->inv_mass[b];
  const double *Ia = &w->inv_iw[9 * a], *Ib = &w->inv_iw[9 * b];
  jrow(Ia, ra, P->t1, P->a1, P->ia1);
  jrow(Ib, rb, P->t1, P->b1, P->ib1);
  jrow(Ia, ra, P->t2, P->a2, P->ia2);
  jrow(Ib, rb, P->t2, P->b2, P->ib2);
  double k1m = msum + vs_dot3(P->a1, P->ia1) + vs_dot3(P->b1, P->ib1);
  double k2m = msum + vs_dot3(P->a2, P->ia2) + vs_dot3(P->b2, P->ib2);
  P->mass_t1 = k1m > 0 ? 1.0 / k1m : 0.0;
  P->mass_t2 = k2m > 0 ? 1.0 / k2m : 0.0;
  vs_mat3_mul(Ia, c0->n, P->iaw);
  vs_mat3_mul(Ib, c0->n, P->ibw);
  double kw = vs_dot3(c0->n, P->iaw) + vs_dot3(c0->n, P->ibw);
  P->mass_tw = kw > 0 ? 1.0 / kw : 0.0;
  P->pt1 = vs_dot3(f, P->t1);
  P->pt2 = vs_dot3(f, P->t2);
  P->ptw = P->rtw > 0 ? vs_dot3(f, c0->n) : 0.0;
}

void vs_rigid_prepare(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies;
  const vs_rsettings *st = &m->set;
  int32_t ci = 0; /* walk of the (sorted) cache */
  w->matched = 0;
  /* manifolds, and which of them are patches (one normal, bit for bit) */
  w->n_man = 0;
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    int32_t a = c->a, b = c->b < 0 ? n : c->b;
    c->ia = a;
    c->ib = b;
    if (k == 0 || w->contacts[k - 1].ia != a || w->contacts[k - 1].ib != b) {
      w->man[w->n_man] = k;
      w->patch[w->n_man++].on = 1;
    } else if (memcmp(c->n, w->contacts[k - 1].n, sizeof c->n) != 0) {
      w->patch[w->n_man - 1].on = 0;
    }
  }
  w->man[w->n_man] = w->n_contacts;
  int32_t mi = -1;
  double fr = 0.0, re = 0.0; /* the manifold's pair friction and restitution */
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    int32_t a = c->ia, b = c->ib;
    if (k == w->man[mi + 1]) {
      mi++;
      double fb, eb;
      if (c->b < 0) {
        fb = m->colliders[-1 - c->b].friction;
        eb = m->colliders[-1 - c->b].restitution;
      } else {
        fb = m->friction[b];
        eb = m->restitution[b];
      }
      fr = sqrt(m->friction[a] * fb);
      re = m->restitution[a] > eb ? m->restitution[a] : eb;
    }
    int patch = w->patch[mi].on;
    c->friction = fr;
    c->restitution = re;
    sub3(c->p, &s->x[3 * a], c->ra);
    sub3(c->p, &s->x[3 * b], c->rb);
    double msum = m->inv_mass[a] + m->inv_mass[b];
    const double *Ia = &w->inv_iw[9 * a], *Ib = &w->inv_iw[9 * b];
    jrow(Ia, c->ra, c->n, c->an, c->ian);
    jrow(Ib, c->rb, c->n, c->bn, c->ibn);
    double kn = msum + vs_dot3(c->an, c->ian) + vs_dot3(c->bn, c->ibn);
    c->mass_n = kn > 0 ? 1.0 / kn : 0.0;
    vs_rfric *fc = &w->fric[k];
    if (!patch) {
      tangents(c->n, fc->t1, fc->t2);
      jrow(Ia, c->ra, fc->t1, fc->a1, fc->ia1);
      jrow(Ib, c->rb, fc->t1, fc->b1, fc->ib1);
      jrow(Ia, c->ra, fc->t2, fc->a2, fc->ia2);
      jrow(Ib, c->rb, fc->t2, fc->b2, fc->ib2);
      double k1 = msum + vs_dot3(fc->a1, fc->ia1) + vs_dot3(fc->b1, fc->ib1);
      double k2 = msum + vs_dot3(fc->a2, fc->ia2) + vs_dot3(fc->b2, fc->ib2);
      fc->mass_t1 = k1 > 0 ? 1.0 / k1 : 0.0;
      fc->mass_t2 = k2 > 0 ? 1.0 / k2 : 0.0;
      fc->pt1 = fc->pt2 = 0.0;
    }
    c->vn0 = 0.0; /* only restitution reads it */
    if (re != 0) {
      double pa[3], pb[3], dv[3];
      point_vel(s, a, c->ra, pa);
      point_vel(s, b, c->rb, pb);
      sub3(pb, pa, dv);
      c->vn0 = vs_dot3(dv, c->n);
    }
    c->pn = c->pn_max = c->pp = 0.0;
    c->fcache[0] = c->fcache[1] = c->fcache[2] = 0.0;
    if (st->warm_start) {
      while (ci < s->n_cache &&
             ckey_cmp(s->cache_ab[2 * ci], s->cache_ab[2 * ci + 1], s->cache_feature[ci], c->a,
                      c->b, c->feature, m->n_colliders) < 0)
        ci++;
      if (ci < s->n_cache && ckey_cmp(s->cache_ab[2 * ci], s->cache_ab[2 * ci + 1],
                                      s->cache_feature[ci], c->a, c->b, c->feature,
                                      m->n_colliders) == 0) {
        const double *imp = &s->cache_impulse[4 * ci];
        w->matched++;
        c->pn = imp[0];
        memcpy(c->fcache, imp + 1, sizeof c->fcache);
        if (!patch) {
          fc->pt1 = vs_dot3(imp + 1, fc->t1);
          fc->pt2 = vs_dot3(imp + 1, fc->t2);
        }
      }
    }
  }
  for (mi = 0; mi < w->n_man; mi++)
    if (w->patch[mi].on) prepare_patch(m, s, w, mi);
}

/* Impulse along one row: linear part l*d, angular parts l*I^-1(r x d). */
static inline void push(vs_rstate *s, int32_t a, int32_t b, double ma, double mb, const double d[3],
                        const double iad[3], const double ibd[3], double l) {
  double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  double la = ma * l, lb = mb * l;
  va[0] -= la * d[0];
  va[1] -= la * d[1];
  va[2] -= la * d[2];
  wa[0] -= l * iad[0];
  wa[1] -= l * iad[1];
  wa[2] -= l * iad[2];
  vb[0] += lb * d[0];
  vb[1] += lb * d[1];
  vb[2] += lb * d[2];
  wb[0] += l * ibd[0];
  wb[1] += l * ibd[1];
  wb[2] += l * ibd[2];
}

/* Relative velocity along a row: d.(vb - va) + wb.(rb x d) - wa.(ra x d). */
static inline double rowvel(const vs_rstate *s, int32_t a, int32_t b, const double d[3],
                            const double ad[3], const double bd[3]) {
  const double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  return d[0] * (vb[0] - va[0]) + d[1] * (vb[1] - va[1]) + d[2] * (vb[2] - va[2]) +
         vs_dot3(wb, bd) - vs_dot3(wa, ad);
}

/* The two bodies' velocities of one manifold in registers over the
 * manifold's rows: x and y of each vector as a pair (GCC/clang vector
 * extension: two doubles, plain IEEE element-wise operations, so one packed
 * multiply or add rounds exactly as the two scalar ones it replaces), z
 * alone.  Every sum is formed in the same order as the scalar expressions
 * in the comments (same bits, about a third fewer instructions). */
typedef double v2d __attribute__((vector_size(16)));

typedef struct vel2 {
  v2d va, wa, vb, wb;          /* x, y */
  double vaz, waz, vbz, wbz;   /* z */
} vel2;

static inline v2d ld2(const double *p) {
  v2d r;
  memcpy(&r, p, sizeof r);
  return r;
}

static inline void st2(double *p, v2d v) { memcpy(p, &v, sizeof v); }

static inline v2d splat(double x) { return (v2d){x, x}; }

static inline void vload(vel2 *v, const vs_rstate *s, int32_t a, int32_t b) {
  const double *va = &s->v[3 * a], *wa = &s->w[3 * a], *vb = &s->v[3 * b], *wb = &s->w[3 * b];
  v->va = ld2(va), v->vaz = va[2];
  v->wa = ld2(wa), v->waz = wa[2];
  v->vb = ld2(vb), v->vbz = vb[2];
  v->wb = ld2(wb), v->wbz = wb[2];
}

/* Never writes a body of zero inverse mass (the world slot, a fixed body):
 * its velocity cannot change, and the coloured solve relies on it (two
 * constraints of a colour may share a static body). */
static inline void vstore(const vel2 *v, vs_rstate *s, int32_t a, int32_t b, double ma, double mb) {
  if (ma != 0) {
    double *va = &s->v[3 * a], *wa = &s->w[3 * a];
    st2(va, v->va), va[2] = v->vaz;
    st2(wa, v->wa), wa[2] = v->waz;
  }
  if (mb != 0) {
    double *vb = &s->v[3 * b], *wb = &s->w[3 * b];
    st2(vb, v->vb), vb[2] = v->vbz;
    st2(wb, v->wb), wb[2] = v->wbz;
  }
}

/* d0 (vbx - vax) + d1 (vby - vay) + d2 (vbz - vaz)
 *   + (wbx bd0 + wby bd1 + wbz bd2) - (wax ad0 + way ad1 + waz ad2) */
static inline double lrow(const vel2 *v, const double *restrict d, const double *restrict ad,
                          const double *restrict bd) {
  v2d p = ld2(d) * (v->vb - v->va), pb = v->wb * ld2(bd), pa = v->wa * ld2(ad);
  double lin = p[0] + p[1] + d[2] * (v->vbz - v->vaz);
  double rb = pb[0] + pb[1] + v->wbz * bd[2];
  double ra = pa[0] + pa[1] + v->waz * ad[2];
  return lin + rb - ra;
}

static inline void lpush(vel2 *v, double ma, double mb, const double *restrict d,
                         const double *restrict iad, const double *restrict ibd, double l) {
  double la = ma * l, lb = mb * l;
  v2d d2 = ld2(d), l2 = splat(l);
  v->va -= splat(la) * d2, v->vaz -= la * d[2];
  v->wa -= l2 * ld2(iad), v->waz -= l * iad[2];
  v->vb += splat(lb) * d2, v->vbz += lb * d[2];
  v->wb += l2 * ld2(ibd), v->wbz += l * ibd[2];
}

/* The twist row of a patch: angular only, about the normal. */
static inline void twist(vel2 *v, const vs_rpatch *P, double l) {
  v2d l2 = splat(l);
  v->wa -= l2 * ld2(P->iaw), v->waz -= l * P->iaw[2];
  v->wb += l2 * ld2(P->ibw), v->wbz += l * P->ibw[2];
}

/* Friction of a patch: the two tangent rows clamped to the disc of radius
 * friction * (sum of the points' normal impulses), then the twist row. */
static inline __attribute__((always_inline)) void patch_friction(const vs_rwork *w, vs_rpatch *P, vel2 *v, double ma, double mb,
                           int32_t k0, int32_t k1) {
  double sum = 0;
  for (int32_t k = k0; k < k1; k++) sum += w->contacts[k].pn;
  double lim = P->friction * sum;
  if (!(lim > 0) && P->pt1 == 0 && P->pt2 == 0 && P->ptw == 0) return;
  double l1 = -lrow(v, P->t1, P->a1, P->b1) * P->mass_t1;
  double l2 = -lrow(v, P->t2, P->a2, P->b2) * P->mass_t2;
  double n1 = P->pt1 + l1, n2 = P->pt2 + l2;
  double len2 = n1 * n1 + n2 * n2;
  if (len2 > lim * lim) {
    double sc = len2 > 0 ? lim / sqrt(len2) : 0.0;
    n1 *= sc;
    n2 *= sc;
  }
  l1 = n1 - P->pt1;
  l2 = n2 - P->pt2;
  P->pt1 = n1;
  P->pt2 = n2;
  lpush(v, ma, mb, P->t1, P->ia1, P->ib1, l1);
  lpush(v, ma, mb, P->t2, P->ia2, P->ib2, l2);
  if (P->rtw > 0) {
    v2d pn2 = ld2(P->n), tb = v->wb * pn2, ta = v->wa * pn2;
    double vt = (tb[0] + tb[1] + v->wbz * P->n[2]) - (ta[0] + ta[1] + v->waz * P->n[2]);
    double tl = lim * P->rtw, nt = P->ptw - vt * P->mass_tw;
    if (nt > tl) nt = tl;
    if (nt < -tl) nt = -tl;
    double lt = nt - P->ptw;
    P->ptw = nt;
    twist(v, P, lt);
  }
}

/* Warm start of manifold mi: its accumulated impulses applied again. */
static void warm_manifold(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi) {
  int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
  int32_t a = w->contacts[k0].ia, b = w->contacts[k0].ib;
  double ma = m->inv_mass[a], mb = m->inv_mass[b];
  vel2 v;
  vload(&v, s, a, b);
  const vs_rpatch *P = &w->patch[mi];
  if (P->on) {
    if (P->pt1 != 0 || P->pt2 != 0 || P->ptw != 0) {
      lpush(&v, ma, mb, P->t1, P->ia1, P->ib1, P->pt1);
      lpush(&v, ma, mb, P->t2, P->ia2, P->ib2, P->pt2);
      twist(&v, P, P->ptw);
    }
    for (int32_t k = k0; k < k1; k++) {
      const vs_rcontact *c = &w->contacts[k];
      if (c->pn != 0) lpush(&v, ma, mb, c->n, c->ian, c->ibn, c->pn);
    }
    vstore(&v, s, a, b, ma, mb);
    return;
  }
  for (int32_t k = k0; k < k1; k++) {
    const vs_rcontact *c = &w->contacts[k];
    const vs_rfric *fc = &w->fric[k];
    if (c->pn == 0 && fc->pt1 == 0 && fc->pt2 == 0) continue;
    lpush(&v, ma, mb, c->n, c->ian, c->ibn, c->pn);
    lpush(&v, ma, mb, fc->t1, fc->ia1, fc->ib1, fc->pt1);
    lpush(&v, ma, mb, fc->t2, fc->ia2, fc->ib2, fc->pt2);
  }
  vstore(&v, s, a, b, ma, mb);
}

/* Each point's separation from the step's and the bodies' displacement
 * since (the positions do not move during a substep's sweeps), its
 * speculative target velocity and its position bias: computed in the first
 * sweep of each substep (vs_rigid_substep_begin marks it), while the point
 * is in cache anyway. */
static inline __attribute__((always_inline)) void point_begin(const vs_rsettings *st,
                                                              const vs_rwork *w, vs_rcontact *c,
                                                              double inv_h, double beta,
                                                              int moved) {
  double sep = -c->depth;
  if (moved) {
    const double *da = &w->dp[6 * c->ia], *db = &w->dp[6 * c->ib];
    double dd[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
    sep = -c->depth + vs_dot3(c->n, dd) + vs_dot3(db + 3, c->bn) - vs_dot3(da + 3, c->an);
  }
  /* !moved (the step's first substep, no displacement yet): the sums above
   * add only zeros to -depth, which leaves it unchanged but for the sign of
   * a zero depth, and that changes neither the target nor the bias */
  c->pp = 0.0;
  c->target = sep > 0 ? -sep * inv_h : 0.0;
  c->bias = 0.0;
  if (sep < -st->slop) {
    double tp = beta * (-sep - st->slop);
    c->bias = tp > st->max_bias_velocity ? st->max_bias_velocity : tp;
  }
}

void vs_rigid_substep_begin(const vs_rmodel *m, vs_rwork *w, double h) {
  (void)m;
  (void)h;
  w->fresh = 1;
}

/* One manifold's sweep in three parts (start, one point, finish), so that
 * two independent manifolds can be swept in lockstep (solve_two).  Each part
 * does the same arithmetic in the same order as a plain sweep: same bits. */
typedef struct msweep {
  vel2 v;
  double ma, mb;
  double *pa, *pb;
  vs_rpatch *P;
  vs_rcontact *c;        /* the next point in sweep order */
  int32_t step;          /* +1, or -1 in reversed sweeps */
  int32_t a, b, k0, k1;
} msweep;

static inline __attribute__((always_inline)) void msweep_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi,
                                int rev, msweep *x, double inv_h, double beta, int first) {
  x->k0 = w->man[mi];
  x->k1 = w->man[mi + 1];
  x->a = w->contacts[x->k0].ia;
  x->b = w->contacts[x->k0].ib;
  x->ma = m->inv_mass[x->a];
  x->mb = m->inv_mass[x->b];
  vload(&x->v, s, x->a, x->b);
  x->pa = &w->pv[6 * x->a];
  x->pb = &w->pv[6 * x->b];
  x->P = &w->patch[mi];
  x->c = &w->contacts[rev ? x->k1 - 1 : x->k0];
  x->step = rev ? -1 : 1;
  if (first) {
    /* each point's separation, target and bias for this substep; and the
     * approach speed a bounce reverses: the fastest at which a point met
     * its surface in a substep, taken for every point of the manifold
     * before any of its impulses (a speculative point found with a gap
     * meets its surface later in the step, after more gravity) */
    for (int32_t k = x->k0; k < x->k1; k++) {
      vs_rcontact *c = &w->contacts[k];
      point_begin(&m->set, w, c, inv_h, beta, first == 1);
      if (c->restitution != 0) {
        double vn = lrow(&x->v, c->n, c->an, c->bn);
        if (vn < c->target && vn < c->vn0) c->vn0 = vn;
      }
    }
  }
  if (x->P->on) patch_friction(w, x->P, &x->v, x->ma, x->mb, x->k0, x->k1);
}

/* Point kk (0-based, in sweep order) of the manifold. */
static inline __attribute__((always_inline)) void msweep_point(const vs_rmodel *m, vs_rwork *w, msweep *x, int32_t kk, int rev,
                                double inv_h, double beta, int use_bias, int first) {
  const double ma = x->ma, mb = x->mb;
  double *pa = x->pa, *pb = x->pb;
  vel2 *v = &x->v;
  /* the points of a manifold in alternating order from sweep to sweep, so
   * that the order does not leave a systematic torque */
  vs_rcontact *c = x->c;
  x->c += x->step;
  /* friction, limited by the current normal impulse (nothing to do on
   * an idle speculative point) */
  if (!x->P->on) {
    vs_rfric *f = &w->fric[c - w->contacts];
    double lim = c->friction * c->pn;
    if (lim > 0 || f->pt1 != 0 || f->pt2 != 0) {
      double l1 = -lrow(v, f->t1, f->a1, f->b1) * f->mass_t1;
      double l2 = -lrow(v, f->t2, f->a2, f->b2) * f->mass_t2;
      double n1 = f->pt1 + l1, n2 = f->pt2 + l2;
      double len2 = n1 * n1 + n2 * n2;
      if (len2 > lim * lim) {
        double sc = len2 > 0 ? lim / sqrt(len2) : 0.0;
        n1 *= sc;
        n2 *= sc;
      }
      l1 = n1 - f->pt1;
      l2 = n2 - f->pt2;
      f->pt1 = n1;
      f->pt2 = n2;
      lpush(v, ma, mb, f->t1, f->ia1, f->ib1, l1);
      lpush(v, ma, mb, f->t2, f->ia2, f->ib2, l2);
    }
  }
  /* normal: the current separation (vs_rigid_substep_begin) */
  double target = c->target; /* speculative: may close the gap */
  if (use_bias && c->bias > 0) {
    /* split impulse: the push acts on the pseudo velocities only */
    double tp = c->bias;
    double vp = c->n[0] * (pb[0] - pa[0]) + c->n[1] * (pb[1] - pa[1]) +
                c->n[2] * (pb[2] - pa[2]) + vs_dot3(pb + 3, c->bn) - vs_dot3(pa + 3, c->an);
    double lp = (tp - vp) * c->mass_n, npp = c->pp + lp;
    if (npp < 0) npp = 0;
    lp = npp - c->pp;
    c->pp = npp;
    double la = ma * lp, lb = mb * lp;
    for (int q = 0; q < 3; q++) {
      if (ma != 0) {
        pa[q] -= la * c->n[q];
        pa[3 + q] -= lp * c->ian[q];
      }
      if (mb != 0) {
        pb[q] += lb * c->n[q];
        pb[3 + q] += lp * c->ibn[q];
      }
    }
  }
  double vn = lrow(v, c->n, c->an, c->bn);
  double ln = (target - vn) * c->mass_n;
  double np = c->pn + ln;
  np = 0.0 > np ? 0.0 : np; /* maxsd, no branch: the same value as if (np < 0) np = 0 */
  ln = np - c->pn;
  if (ln != 0) {
    c->pn = np;
    c->pn_max = np > c->pn_max ? np : c->pn_max;
    lpush(v, ma, mb, c->n, c->ian, c->ibn, ln);
  }
}

/* One sweep over the points of manifold mi (same body pair, consecutive). */
static inline __attribute__((always_inline)) void sweep_one(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int rev,
                           double inv_h, double beta, int use_bias, int first) {
  msweep x;
  msweep_start(m, s, w, mi, rev, &x, inv_h, beta, first);
  for (int32_t kk = 0; kk < x.k1 - x.k0; kk++)
    msweep_point(m, w, &x, kk, rev, inv_h, beta, use_bias, first);
  vstore(&x.v, s, x.a, x.b, x.ma, x.mb);
}

/* Manifolds mi and mj, which share no body of non-zero inverse mass, swept
 * in lockstep: neither reads what the other writes, so the result is that of
 * mi then mj, while the CPU overlaps their two dependency chains. */
static inline __attribute__((always_inline)) void sweep_two(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int32_t mj,
                      int rev, double inv_h, double beta, int use_bias, int first) {
  msweep x, y;
  msweep_start(m, s, w, mi, rev, &x, inv_h, beta, first);
  msweep_start(m, s, w, mj, rev, &y, inv_h, beta, first);
  int32_t nx = x.k1 - x.k0, ny = y.k1 - y.k0, nmax = nx > ny ? nx : ny;
  for (int32_t kk = 0; kk < nmax; kk++) {
    if (kk < nx) msweep_point(m, w, &x, kk, rev, inv_h, beta, use_bias, first);
    if (kk < ny) msweep_point(m, w, &y, kk, rev, inv_h, beta, use_bias, first);
  }
  vstore(&x.v, s, x.a, x.b, x.ma, x.mb);
  vstore(&y.v, s, y.a, y.b, y.ma, y.mb);
}


/* Whether manifolds mi and mj share a body of non-zero inverse mass. */
static inline int share_body(const vs_rmodel *m, const vs_rwork *w, int32_t mi, int32_t mj) {
  const vs_rcontact *ci = &w->contacts[w->man[mi]], *cj = &w->contacts[w->man[mj]];
  int32_t bi[2] = {ci->ia, ci->ib}, bj[2] = {cj->ia, cj->ib};
  for (int p = 0; p < 2; p++)
    for (int q = 0; q < 2; q++)
      if (bi[p] == bj[q] && m->inv_mass[bi[p]] != 0) return 1;
  return 0;
}

static void solve_manifold(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t mi, int rev,
                           double inv_h, double beta, int use_bias, int first) {
  sweep_one(m, s, w, mi, rev, inv_h, beta, use_bias, first);
}

/* The sequential sweep over the manifolds in w->sorder; compiled three
 * times, for a substep's first sweep (first = 1: separations computed from
 * the displacements; 2: the step's first substep, no displacement yet) and
 * the others, so that none carries another's branches. */
static inline __attribute__((always_inline)) void seq_sweep(const vs_rmodel *m, vs_rstate *s,
                                                            vs_rwork *w, int rev, double inv_h,
                                                            double beta, int use_bias, int first) {
  const int32_t *ord = w->sorder;
  for (int32_t t = 0; t < w->n_man;) {
    if (t + 1 < w->n_man && !share_body(m, w, ord[t], ord[t + 1])) {
      sweep_two(m, s, w, ord[t], ord[t + 1], rev, inv_h, beta, use_bias, first);
      t += 2;
    } else {
      sweep_one(m, s, w, ord[t], rev, inv_h, beta, use_bias, first);
      t++;
    }
  }
}

/* One item of the coloured order: a joint (item < 0: joint -1 - item) or a
 * manifold.  warm: warm start instead of a sweep. */
typedef struct pass {
  int warm, rev, use_bias, first;
  double inv_h, beta, jbeta; /* contacts: baumgarte / h as baumgarte * (1 / h); joints: / h or 0 */
} pass;

static void do_item(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t item, const pass *p) {
  if (item < 0) {
    if (p->warm) warm_joint(m, s, w, -1 - item);
    else solve_joint(m, s, w, -1 - item, p->jbeta);
  } else if (p->warm) {
    warm_manifold(m, s, w, item);
  } else {
    solve_manifold(m, s, w, item, p->rev, p->inv_h, p->beta, p->use_bias, p->first);
  }
}


/* The coloured pass (relaxation: jacobi): colour after colour, the items of
 * one colour on the team in parallel -- they share no body of non-zero
 * inverse mass, so none reads what another writes and the result has the
 * same bits for any number of threads -- then the overflow colour in order
 * on one thread. */
static void colored_pass(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, const pass *p) {
  const int32_t *start = w->color_start, *items = w->color_items;
  int threads = w->threads > 1 ? w->threads : 1;
  if (threads == 1 || start[VS_RCOLORS] < VS_RPAR_ITEMS) { /* the same order, one thread */
    for (int32_t i = 0; i < start[VS_RCOLORS + 1]; i++) do_item(m, s, w, items[i], p);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    for (int c = 0; c <= VS_RCOLORS;) {
      int32_t i0 = start[c], i1 = start[c + 1];
      if (c < VS_RCOLORS && i1 - i0 >= VS_RPAR_ITEMS) {
#pragma omp for schedule(static)
        for (int32_t i = i0; i < i1; i++) do_item(m, s, w, items[i], p);
        c++;
      } else {
        /* a run of small colours (and the overflow) in order on one thread:
         * one barrier for the run */
        while (c < VS_RCOLORS && start[c + 1] - start[c] < VS_RPAR_ITEMS) c++;
        if (c == VS_RCOLORS) c++;
        i1 = start[c];
#pragma omp single
        for (int32_t i = i0; i < i1; i++) do_item(m, s, w, items[i], p);
      }
    }
  }
}

void vs_rigid_warm_start(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  if (m->set.colored) {
    const pass p = {1, 0, 0, 0, 0.0, 0.0, 0.0};
    for (int32_t j = 0; j < m->n_joints; j++) /* the forest's joints are not coloured */
      if (w->tree.n_tree_joints && w->tree.in_tree[j]) warm_joint(m, s, w, j);
    colored_pass(m, s, w, &p);
    return;
  }
  for (int32_t j = 0; j < m->n_joints; j++) warm_joint(m, s, w, j);
  for (int32_t mi = 0; mi < w->n_man; mi++) warm_manifold(m, s, w, mi);
}

void vs_rigid_solve_iteration(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, double h,
                              int use_bias) {
  double inv_h = 1.0 / h, beta = m->set.baumgarte * inv_h;
  /* joints: velocity rows without a bias; the position pass after each
   * substep (vs_rigid_project_joints) removes their drift, once */
  double jbeta = 0.0;
  (void)use_bias;
  w->sweep++;
  int rev = (int)(w->sweep & 1), first = w->fresh;
  w->fresh = 0;
  if (m->set.colored) {
    const pass p = {0, rev, use_bias, first, inv_h, beta, jbeta};
    vs_rigid_tree_velocity(m, s, w); /* serial, before the colours (rigid_color.c leaves them out) */
    colored_pass(m, s, w, &p);
    return;
  }
  vs_rigid_tree_velocity(m, s, w);
  for (int32_t j = 0; j < m->n_joints; j++)
    if (!w->tree.n_tree_joints || !w->tree.in_tree[j]) solve_joint(m, s, w, j, jbeta);
  if (first == 1) seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 1);
  else if (first == 2) seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 2);
  else seq_sweep(m, s, w, rev, inv_h, beta, use_bias, 0);
}
/* Restitution comes after the positions moved: its impulse acts at one point
 * for both bodies (the contact point carried along by their mean
 * displacement), with lever arms from the current centres, so that it keeps
 * angular momentum.  The bouncing points are solved together, by
 * VS_RESTITUTION_SWEEPS Gauss-Seidel sweeps in alternating order, each
 * point's accumulated normal impulse clamped at >= 0: a manifold whose
 * points land together (a box falling flat) gets the block solution -- the
 * same impulse at every point, no spin -- instead of the lopsided one that a
 * single pass in point order leaves.  The rows are formed here, in the
 * points' own fields (few contacts bounce, and the step is over). */
#define VS_RESTITUTION_SWEEPS 8

/* Body i's inverse world inertia at its current orientation (the step's
 * w->inv_iw is that of the step's start: restitution acts after the bodies
 * turned, and its angular impulse must change I w by exactly r x P). */
static void inv_inertia_now(const vs_rmodel *m, const vs_rstate *s, int32_t i, double o[9]) {
  const double *d = &m->inv_inertia[3 * i];
  double R[9];
  vs_quat_to_mat(&s->q[4 * i], R);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      o[3 * r + c] = R[3 * r] * d[0] * R[3 * c] + R[3 * r + 1] * d[1] * R[3 * c + 1] +
                     R[3 * r + 2] * d[2] * R[3 * c + 2];
}

void vs_rigid_restitution(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  double thr = m->set.restitution_threshold;
  int32_t nb = 0;
  for (int32_t k = 0; k < w->n_contacts; k++) {
    vs_rcontact *c = &w->contacts[k];
    if (c->restitution == 0 || c->vn0 > -thr || c->pn_max == 0) {
      c->target = NAN; /* not bouncing */
      continue;
    }
    int32_t a = c->ia, b = c->ib;
    double p[3], ra[3], rb[3];
    for (int q = 0; q < 3; q++) {
      ra[q] = c->p[q] - (s->x[3 * a + q] - w->dp[6 * a + q]); /* from the step's centres */
      rb[q] = c->p[q] - (s->x[3 * b + q] - w->dp[6 * b + q]);
    }
    double sa[3], sb[3];
    vs_cross3(&w->dp[6 * a + 3], ra, sa);
    vs_cross3(&w->dp[6 * b + 3], rb, sb);
    for (int q = 0; q < 3; q++) {
      p[q] = c->p[q] + 0.5 * (w->dp[6 * a + q] + sa[q] + w->dp[6 * b + q] + sb[q]);
      c->ra[q] = p[q] - s->x[3 * a + q];
      c->rb[q] = p[q] - s->x[3 * b + q];
    }
    double Ia[9], Ib[9];
    inv_inertia_now(m, s, a, Ia);
    inv_inertia_now(m, s, b, Ib);
    jrow(Ia, c->ra, c->n, c->an, c->ian);
    jrow(Ib, c->rb, c->n, c->bn, c->ibn);
    double kn = m->inv_mass[a] + m->inv_mass[b] + vs_dot3(c->an, c->ian) + vs_dot3(c->bn, c->ibn);
    if (!(kn > 0)) {
      c->target = NAN;
      continue;
    }
    c->mass_n = 1.0 / kn;
    c->target = -c->restitution * c->vn0;
    nb++;
  }
  if (nb == 0) return;
  for (int sweep = 0; sweep < VS_RESTITUTION_SWEEPS; sweep++) {
    for (int32_t kk = 0; kk < w->n_contacts; kk++) {
      int32_t k = (sweep & 1) ? w->n_contacts - 1 - kk : kk;
      vs_rcontact *c = &w->contacts[k];
      if (!(c->target == c->target)) continue;
      int32_t a = c->ia, b = c->ib;
      double vn = rowvel(s, a, b, c->n, c->an, c->bn);
      double ln = (c->target - vn) * c->mass_n;
      double np = c->pn + ln;
      if (np < 0) np = 0;
      ln = np - c->pn;
      c->pn = np;
      push(s, a, b, m->inv_mass[a], m->inv_mass[b], c->n, c->ian, c->ibn, ln);
    }
  }
}

/* The cache holds, per point, the normal impulse and a friction vector: a
 * point's own, or its equal share of its patch's (the tangent impulse plus
 * the twist impulse along the normal, which a tangent vector leaves free);
 * prepare sums the shares of the points it finds again. */
void vs_rigid_store_impulses(const vs_rmodel *m, vs_rstate *s, const vs_rwork *w) {
  (void)m;
  for (int32_t mi = 0; mi < w->n_man; mi++) {
    int32_t k0 = w->man[mi], k1 = w->man[mi + 1];
    const vs_rpatch *P = &w->patch[mi];
    double share[3] = {0, 0, 0};
    if (P->on)
      for (int q = 0; q < 3; q++)
        share[q] = (P->pt1 * P->t1[q] + P->pt2 * P->t2[q] + P->ptw * P->n[q]) / (k1 - k0);
    for (int32_t k = k0; k < k1; k++) {
      const vs_rcontact *c = &w->contacts[k];
      s->cache_ab[2 * k] = c->a;
      s->cache_ab[2 * k + 1] = c->b;
      s->cache_feature[k] = c->feature;
      double *imp = &s->cache_impulse[4 * k];
      imp[0] = c->pn;
      for (int q = 0; q < 3; q++)
        imp[1 + q] = P->on ? share[q]
                           : w->fric[k].pt1 * w->fric[k].t1[q] + w->fric[k].pt2 * w->fric[k].t2[q];
    }
  }
  s->n_cache = w->n_contacts;
}
