/* SPDX-License-Identifier: MIT */
/* rigid_joint.c: the joints between rigid bodies, one row of the joint
 * table per kind (VS_JOINT_KINDS, vsim/kind.h): what the sequential sweeps
 * (velocity rows, warm start, a position pass) and the forest's exact solve
 * (rigid_tree.c: its Jacobian block and its position error) need of a kind.
 * The table is built from the kind table by name (ball_*, distance_*), so
 * a new joint kind fails to build here until its functions exist; everything
 * outside this file reaches a joint through its row.
 *
 * Per joint and substep, w->joint holds (VS_RJOINT_WORK doubles): the
 * anchors ra, rb (world offsets from the centres, [0..5]) and the kind's own
 * row data from [6] (ball: K^-1 [6..14]; distance: the axis u [6..8] and the
 * row's effective mass [9]).  A joint has no velocity bias: the position
 * pass after each substep (vs_rigid_project_joints, or the forest's Newton
 * passes) removes its drift, once. */
#include <string.h>

#include "solve/rigid/rigid_rows.h"

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

/* The two anchors' gap C = (xb + rb) - (xa + ra) and the kind's rows data. */
typedef struct jctx {
  const double *Ia, *Ib; /* inverse world inertias */
  double msum;           /* 1/ma + 1/mb */
  double ra[3], rb[3], C[3];
} jctx;

/* ---- ball: the anchors coincide (3 rows) ---- */

static void ball_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  (void)m, (void)j;
  double K[9] = {x->msum, 0, 0, 0, x->msum, 0, 0, 0, x->msum};
  add_rot_block(K, x->Ia, x->ra);
  add_rot_block(K, x->Ib, x->rb);
  invert3(K, jw + 6);
}
static void ball_impulse(const double *jw, const double *acc, double P[3]) {
  (void)jw;
  memcpy(P, acc, sizeof(double) * 3);
}
static void ball_solve(const double *jw, const double dv[3], double *acc, double P[3]) {
  vs_mat3_mul(jw + 6, dv, P);
  for (int k = 0; k < 3; k++) {
    P[k] = -P[k];
    acc[k] += P[k];
  }
}
static void ball_project(const vs_rmodel *m, int32_t j, const jctx *x, double P[3]) {
  (void)m, (void)j;
  double K[9] = {x->msum, 0, 0, 0, x->msum, 0, 0, 0, x->msum}, Ki[9];
  add_rot_block(K, x->Ia, x->ra);
  add_rot_block(K, x->Ib, x->rb);
  invert3(K, Ki);
  vs_mat3_mul(Ki, x->C, P);
  for (int k = 0; k < 3; k++) P[k] = -P[k];
}
/* d/dt (x + r) = v + w x r = v - skew(r) w: J = sign [I | -skew(r)] */
static void ball_jacobian(const double *jw, const double r[3], double sg, double *J) {
  (void)jw;
  const double S[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      J[i * 6 + k] = i == k ? sg : 0.0;
      J[i * 6 + 3 + k] = -sg * S[i * 3 + k];
    }
}
static void ball_error(const vs_rmodel *m, int32_t j, const double C[3], double *e) {
  (void)m, (void)j;
  memcpy(e, C, sizeof(double) * 3);
}

/* ---- distance: the anchors keep a rest length (1 row along u) ---- */

static void distance_axis(const double C[3], double u[3]) {
  double len = vs_len3(C);
  u[0] = 0, u[1] = 1, u[2] = 0;
  if (len > 1e-12)
    for (int k = 0; k < 3; k++) u[k] = C[k] / len;
}
static void distance_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  (void)m, (void)j;
  double u[3];
  distance_axis(x->C, u);
  memcpy(jw + 6, u, sizeof u);
  double k = x->msum + ang_mass(x->Ia, x->ra, u) + ang_mass(x->Ib, x->rb, u);
  jw[9] = k > 0 ? 1.0 / k : 0.0;
}
static void distance_impulse(const double *jw, const double *acc, double P[3]) {
  for (int k = 0; k < 3; k++) P[k] = acc[0] * jw[6 + k];
}
static void distance_solve(const double *jw, const double dv[3], double *acc, double P[3]) {
  double l = -vs_dot3(dv, jw + 6) * jw[9];
  acc[0] += l;
  for (int k = 0; k < 3; k++) P[k] = l * jw[6 + k];
}
static void distance_project(const vs_rmodel *m, int32_t j, const jctx *x, double P[3]) {
  double u[3];
  distance_axis(x->C, u);
  double kk = x->msum + ang_mass(x->Ia, x->ra, u) + ang_mass(x->Ib, x->rb, u);
  double l = kk > 0 ? -(vs_len3(x->C) - m->joint_rest[j]) / kk : 0.0;
  for (int k = 0; k < 3; k++) P[k] = l * u[k];
}
/* d|C|/dt = u . (vb + wb x rb - va - wa x ra): J = sign [u | r x u] */
static void distance_jacobian(const double *jw, const double r[3], double sg, double *J) {
  const double *u = jw + 6;
  double ru[3];
  vs_cross3(r, u, ru);
  for (int k = 0; k < 3; k++) {
    J[k] = sg * u[k];
    J[3 + k] = sg * ru[k];
  }
}
static void distance_error(const vs_rmodel *m, int32_t j, const double C[3], double *e) {
  e[0] = vs_len3(C) - m->joint_rest[j];
}

/* ---- the table ---- */

struct vs_rjoint_row {
  int rows;
  /* the kind's row data in jw[6..] from the pose (x) */
  void (*prepare)(const vs_rmodel *m, int32_t j, const jctx *x, double *jw);
  /* the accumulated impulse (acc: rows entries) as a world vector on b */
  void (*impulse)(const double *jw, const double *acc, double P[3]);
  /* one velocity pass from the anchors' relative velocity dv: the impulse
   * on b, added to acc */
  void (*solve)(const double *jw, const double dv[3], double *acc, double P[3]);
  /* the positional impulse on b that closes the gap x->C to first order */
  void (*project)(const vs_rmodel *m, int32_t j, const jctx *x, double P[3]);
  /* rows x 6 block at the end with anchor r (sign -1 for a, +1 for b) */
  void (*jacobian)(const double *jw, const double r[3], double sign, double *J);
  /* the position error's rows from the gap C */
  void (*error)(const vs_rmodel *m, int32_t j, const double C[3], double *e);
};

enum { ball_rows = 3, distance_rows = 1 };
#define JOINT_ROW_(ID, name)                                                                    \
  [VS_JOINT_##ID] = {name##_rows,    name##_prepare,  name##_impulse, name##_solve,            \
                     name##_project, name##_jacobian, name##_error},
static const vs_rjoint_row rows_table[VS_JOINT_KIND_COUNT] = {VS_JOINT_KINDS(JOINT_ROW_)};
#undef JOINT_ROW_
_Static_assert(ball_rows <= 3 && distance_rows <= 3, "joint_impulse holds 3 per joint");

const vs_rjoint_row *vs_rjoint_row_of(int32_t kind) {
  return kind >= 0 && kind < VS_JOINT_KIND_COUNT ? &rows_table[kind] : NULL;
}

int vs_rjoint_rows(int32_t kind) { return rows_table[kind].rows; }

void vs_rjoint_jacobian(const vs_rmodel *m, const vs_rwork *w, int32_t j, int end, double *J) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  rows_table[m->joint_kind[j]].jacobian(jw, end ? jw + 3 : jw, end ? 1.0 : -1.0, J);
}

/* Anchors and gap of joint j at the current pose. */
static void context(const vs_rmodel *m, const vs_rstate *s, const double *inv_iw, int32_t j,
                    jctx *x) {
  int32_t n = m->n_bodies, a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = n;
  double R[9];
  vs_quat_to_mat(&s->q[4 * a], R);
  vs_mat3_mul(R, &m->joint_pa[3 * j], x->ra);
  vs_quat_to_mat(&s->q[4 * b], R);
  vs_mat3_mul(R, &m->joint_pb[3 * j], x->rb);
  for (int k = 0; k < 3; k++) x->C[k] = s->x[3 * b + k] + x->rb[k] - s->x[3 * a + k] - x->ra[k];
  x->msum = m->inv_mass[a] + m->inv_mass[b];
  x->Ia = &inv_iw[9 * a];
  x->Ib = &inv_iw[9 * b];
}

void vs_rjoint_error(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w, int32_t j,
                     double *e) {
  jctx x;
  context(m, s, w->inv_iw, j, &x);
  rows_table[m->joint_kind[j]].error(m, j, x.C, e);
}

/* Joints are prepared every substep from the current pose (anchors, effective
 * mass), which keeps them exact however far the bodies turn in a step; they
 * are few, so this costs little. */
void vs_rigid_prepare_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  for (int32_t j = 0; j < m->n_joints; j++) {
    double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
    jctx x;
    context(m, s, w->inv_iw, j, &x);
    memcpy(jw, x.ra, sizeof x.ra);
    memcpy(jw + 3, x.rb, sizeof x.rb);
    rows_table[m->joint_kind[j]].prepare(m, j, &x, jw);
  }
}

void vs_rigid_warm_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  double P[3];
  rows_table[m->joint_kind[j]].impulse(jw, &s->joint_impulse[3 * j], P);
  apply(m, s, w, a, jw, P, -1.0);
  apply(m, s, w, b, jw + 3, P, 1.0);
}

void vs_rigid_solve_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  double va[3], vb[3], dv[3], P[3];
  point_vel(s, a, jw, va);
  point_vel(s, b, jw + 3, vb);
  vs_sub3(vb, va, dv);
  rows_table[m->joint_kind[j]].solve(jw, dv, &s->joint_impulse[3 * j], P);
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

/* A position pass over the joints that close loops, after the positions
 * moved (Box2D v2's non-linear Gauss-Seidel): the velocity rows cannot see
 * the drift that turning bodies give their anchors within a substep, this
 * removes it without touching the velocities (no energy is added).  The
 * forest's joints are closed by rigid_tree.c. */
void vs_rigid_project_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies;
  for (int32_t j = 0; j < m->n_joints; j++) {
    if (w->tree.n_tree_joints && w->tree.in_tree[j]) continue;
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (b < 0) b = n;
    jctx x;
    context(m, s, w->inv_iw, j, &x);
    double P[3];
    rows_table[m->joint_kind[j]].project(m, j, &x, P);
    shift_body(m, s, w, a, x.ra, P, -1.0);
    shift_body(m, s, w, b, x.rb, P, 1.0);
  }
}
