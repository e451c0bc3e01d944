/* SPDX-License-Identifier: MIT */
/* rigid_joint.c: the joints between rigid bodies, one row of the joint
 * table per kind (VS_JOINT_KINDS, vsim/kind.h): what the sequential sweeps
 * (velocity rows, warm start, a position pass) and the forest's exact solve
 * (rigid_tree.c: its Jacobian block and its position error) need of a kind.
 * The table is built from the kind table by name (ball_*, distance_*), so
 * a new joint kind fails to build here until its functions exist; everything
 * outside this file reaches a joint through its row.
 *
 * A joint's rows act on the bodies' velocities (v, w) through its Jacobian
 * block per body (rows x 6: linear, angular): ball and distance rows are
 * impulses at the anchors, the rows of weld, hinge and slider also turn the
 * bodies by pure angular impulses.  Ball and distance keep their own fast
 * sequential rows (impulse, solve, project); the other kinds are solved
 * through their Jacobian (the generic rows below, rigid_joint_rows.h).
 *
 * Per joint and substep, w->joint holds (VS_RJOINT_WORK doubles): the
 * anchors ra, rb (world offsets from the centres, [0..5]) and the kind's own
 * row data from [6] (ball: K^-1 [6..14]; distance: the axis u [6..8] and the
 * row's effective mass [9]; weld, hinge, slider: VS_RJW_* below).  A joint
 * has no velocity bias: the position pass after each substep
 * (vs_rigid_project_joints, or the forest's Newton passes) removes its
 * drift, once.  The hinge's and slider's limit, motor and spring rows:
 * rigid_joint_axis.c. */
#include <string.h>

#include "solve/rigid/rigid_joint_rows.h"

/* ---- ball: the anchors coincide (3 rows) ---- */

/* K^-1 of the anchors' gap: K = (1/ma + 1/mb) E + S_a^T Ia S_a + S_b^T Ib S_b. */
static void ball_kinv(const jctx *x, double Ki[9]) {
  double K[9] = {x->msum, 0, 0, 0, x->msum, 0, 0, 0, x->msum};
  add_rot_block(K, x->Ia, x->ra);
  add_rot_block(K, x->Ib, x->rb);
  invert3(K, Ki);
}
static void ball_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  (void)m, (void)j;
  ball_kinv(x, jw + 6);
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
  double Ki[9];
  ball_kinv(x, Ki);
  vs_mat3_mul(Ki, x->C, P);
  for (int k = 0; k < 3; k++) P[k] = -P[k];
}
/* d/dt (x + r) = v + w x r = v - skew(r) w: J = sign [I | -skew(r)] */
static void ball_jacobian(const double *jw, int end, double *J) {
  const double *r = end ? jw + 3 : jw;
  double sg = end ? 1.0 : -1.0;
  const double S[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      J[i * 6 + k] = i == k ? sg : 0.0;
      J[i * 6 + 3 + k] = -sg * S[i * 3 + k];
    }
}
static void ball_error(const vs_rmodel *m, int32_t j, const jctx *x, double *e) {
  (void)m, (void)j;
  memcpy(e, x->C, sizeof(double) * 3);
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
static void distance_jacobian(const double *jw, int end, double *J) {
  const double *u = jw + 6, *r = end ? jw + 3 : jw;
  double sg = end ? 1.0 : -1.0;
  double ru[3];
  vs_cross3(r, u, ru);
  for (int k = 0; k < 3; k++) {
    J[k] = sg * u[k];
    J[3 + k] = sg * ru[k];
  }
}
static void distance_error(const vs_rmodel *m, int32_t j, const jctx *x, double *e) {
  e[0] = vs_len3(x->C) - m->joint_rest[j];
}

/* ---- what weld, hinge and slider share ---- */

/* Rotation vector of b's orientation away from its held one qa q0:
 * qe = qb conj(qa q0) = exp(theta / 2), theta ~ 2 vec(qe) (w >= 0); its
 * rate is wb - wa to first order (docs/physics.md, "Joints"). */
static void orient_error(const vs_rmodel *m, int32_t j, const jctx *x, double e[3]) {
  double t[4], c[4], qe[4];
  vs_quat_mul(x->qa, &m->joint_qrel[4 * j], t);
  quat_conj(t, c);
  vs_quat_mul(x->qb, c, qe);
  double sg = qe[0] < 0 ? -2.0 : 2.0;
  for (int k = 0; k < 3; k++) e[k] = sg * qe[1 + k];
}

/* Two unit vectors p1, p2 normal to the unit axis u, the same for the same u. */
static void normals(const double u[3], double p1[3], double p2[3]) {
  double t[3] = {0, 0, 0};
  double ax = fabs(u[0]), ay = fabs(u[1]), az = fabs(u[2]);
  t[ax <= ay && ax <= az ? 0 : ay <= az ? 1 : 2] = 1.0;
  vs_cross3(u, t, p1);
  double l = vs_len3(p1);
  for (int k = 0; k < 3; k++) p1[k] /= l;
  vs_cross3(u, p1, p2);
}

/* Joint j's axis in the world from a's frame, and a's normals of it. */
static void axis_frame(const vs_rmodel *m, int32_t j, const jctx *x, double ax[3], double n1[3],
                       double n2[3]) {
  double p[6];
  const double *al = &m->joint_axis[6 * j], *R = x->Ra;
  if (x->pn) memcpy(p, x->pn, sizeof p);
  else normals(al, p, p + 3);
  vs_mat3_mul(R, al, ax);
  vs_mat3_mul(R, p, n1);
  vs_mat3_mul(R, p + 3, n2);
}

void vs_rjoint_normals(const vs_rmodel *m, int32_t j, double p[6]) {
  normals(&m->joint_axis[6 * j], p, p + 3);
}

/* Angle of b about the hinge axis from the initial pose, rad in (-2 pi, 2 pi]:
 * q = conj(qa) qb conj(q0) is a turn by it about a's axis (right hand, b
 * relative to a). */
static double hinge_angle(const vs_rmodel *m, int32_t j, const jctx *x) {
  double ca[4], c0[4], t[4], q[4];
  quat_conj(x->qa, ca);
  quat_conj(&m->joint_qrel[4 * j], c0);
  vs_quat_mul(ca, x->qb, t);
  vs_quat_mul(t, c0, q);
  const double *al = &m->joint_axis[6 * j];
  double sn = q[1] * al[0] + q[2] * al[1] + q[3] * al[2];
  return 2.0 * vs_atan2(sn, q[0]);
}

/* The ball's three rows (sign by end) into J's rows 0..2. */
static void anchor_rows(const double *jw, int end, double *J) { ball_jacobian(jw, end, J); }

/* Angular rows [0 | sign v] at row r. */
static void turn_row(double *J, int r, double sg, const double v[3]) {
  for (int k = 0; k < 3; k++) {
    J[r * 6 + k] = 0.0;
    J[r * 6 + 3 + k] = sg * v[k];
  }
}

/* ---- weld: anchors coincide, the relative orientation held (6 rows) ---- */

static void weld_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  (void)m, (void)j;
  memcpy(jw + VS_RJW_GAP, x->C, sizeof x->C);
}
static void weld_jacobian(const double *jw, int end, double *J) {
  static const double E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double sg = end ? 1.0 : -1.0;
  anchor_rows(jw, end, J);
  for (int r = 0; r < 3; r++) turn_row(J, 3 + r, sg, E[r]);
}
static void weld_error(const vs_rmodel *m, int32_t j, const jctx *x, double *e) {
  memcpy(e, x->C, sizeof(double) * 3);
  orient_error(m, j, x, e + 3);
}

/* ---- hinge: the anchors coincide, b's axis stays normal to a's normals
 * of it (5 rows); the angle about the axis is free ---- */

static void hinge_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  double ax[3], n1[3], n2[3], axb[3];
  axis_frame(m, j, x, ax, n1, n2);
  vs_mat3_mul(x->Rb, &m->joint_axis[6 * j + 3], axb);
  memcpy(jw + VS_RJW_GAP, x->C, sizeof x->C);
  memcpy(jw + VS_RJW_AXIS, ax, sizeof ax);
  /* d/dt (n . axb) = (wb - wa) . (axb x n) */
  vs_cross3(axb, n1, jw + VS_RJW_U1);
  vs_cross3(axb, n2, jw + VS_RJW_U2);
  jw[VS_RJW_TURN] = vs_dot3(n1, axb), jw[VS_RJW_TURN + 1] = vs_dot3(n2, axb); /* hinge_error's */
  /* the angle: read by the limit's, motor's and spring's rows alone */
  if (!x->rows_only && (m->joint_flags[j] & (VS_RJOINT_LIMIT | VS_RJOINT_MOTOR | VS_RJOINT_SPRING)))
    jw[VS_RJW_POS] = hinge_angle(m, j, x);
}
static void hinge_jacobian(const double *jw, int end, double *J) {
  double sg = end ? 1.0 : -1.0;
  anchor_rows(jw, end, J);
  turn_row(J, 3, sg, jw + VS_RJW_U1);
  turn_row(J, 4, sg, jw + VS_RJW_U2);
}
static void hinge_error(const vs_rmodel *m, int32_t j, const jctx *x, double *e) {
  double ax[3], n1[3], n2[3], axb[3];
  axis_frame(m, j, x, ax, n1, n2);
  vs_mat3_mul(x->Rb, &m->joint_axis[6 * j + 3], axb);
  memcpy(e, x->C, sizeof(double) * 3);
  e[3] = vs_dot3(n1, axb);
  e[4] = vs_dot3(n2, axb);
}

/* ---- slider: no relative turn, the anchors' gap along the axis only
 * (5 rows: the gap along a's two normals, three turns) ---- */

static void slider_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  double ax[3], n1[3], n2[3];
  axis_frame(m, j, x, ax, n1, n2);
  memcpy(jw + VS_RJW_GAP, x->C, sizeof x->C);
  memcpy(jw + VS_RJW_AXIS, ax, sizeof ax);
  memcpy(jw + VS_RJW_U1, n1, sizeof n1);
  memcpy(jw + VS_RJW_U2, n2, sizeof n2);
  jw[VS_RJW_POS] = vs_dot3(ax, x->C);
}
/* Row along a's direction n (turning with a) of the gap C:
 * d/dt (n . C) = n . (vb + wb x rb - va - wa x ra) + (wa x n) . C:
 * J_a = [-n | -(ra + C) x n], J_b = [n | rb x n]. */
void vs_rjoint_gap_row(const double *jw, int end, const double n[3], double *J) {
  double r[3], rn[3];
  for (int k = 0; k < 3; k++) r[k] = end ? jw[3 + k] : jw[k] + jw[VS_RJW_GAP + k];
  vs_cross3(r, n, rn);
  double sg = end ? 1.0 : -1.0;
  for (int k = 0; k < 3; k++) {
    J[k] = sg * n[k];
    J[3 + k] = sg * rn[k];
  }
}
static void slider_jacobian(const double *jw, int end, double *J) {
  static const double E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double sg = end ? 1.0 : -1.0;
  vs_rjoint_gap_row(jw, end, jw + VS_RJW_U1, J);
  vs_rjoint_gap_row(jw, end, jw + VS_RJW_U2, J + 6);
  for (int r = 0; r < 3; r++) turn_row(J, 2 + r, sg, E[r]);
}
static void slider_error(const vs_rmodel *m, int32_t j, const jctx *x, double *e) {
  double ax[3], n1[3], n2[3];
  axis_frame(m, j, x, ax, n1, n2);
  e[0] = vs_dot3(n1, x->C);
  e[1] = vs_dot3(n2, x->C);
  orient_error(m, j, x, e + 2);
}

/* weld, hinge and slider go through the generic rows */
#define weld_impulse NULL
#define weld_solve NULL
#define weld_project NULL
#define hinge_impulse NULL
#define hinge_solve NULL
#define hinge_project NULL
#define slider_impulse NULL
#define slider_solve NULL
#define slider_project NULL

/* ---- the table ---- */

struct vs_rjoint_row {
  int rows;
  int anchored; /* vs_rjoint_anchored */
  /* the kind's row data in jw[6..] from the pose (x) */
  void (*prepare)(const vs_rmodel *m, int32_t j, const jctx *x, double *jw);
  /* The sequential rows of a kind whose rows are impulses at the anchors
   * (ball, distance); NULL: the generic rows from the Jacobian. */
  /* the accumulated impulse (acc: rows entries) as a world vector on b */
  void (*impulse)(const double *jw, const double *acc, double P[3]);
  /* one velocity pass from the anchors' relative velocity dv: the impulse
   * on b, added to acc */
  void (*solve)(const double *jw, const double dv[3], double *acc, double P[3]);
  /* the positional impulse on b that closes the gap x->C to first order */
  void (*project)(const vs_rmodel *m, int32_t j, const jctx *x, double P[3]);
  /* rows x 6 block of the body at end 0 (a) or 1 (b) */
  void (*jacobian)(const double *jw, int end, double *J);
  /* the position error's rows at the pose x */
  void (*error)(const vs_rmodel *m, int32_t j, const jctx *x, double *e);
};

enum { ball_rows = 3, distance_rows = 1, weld_rows = 6, hinge_rows = 5, slider_rows = 5 };
/* the Jacobian's shape (vs_rjoint_anchored): the anchor rows, then turns */
enum { ball_anchored = 1, distance_anchored = 0, weld_anchored = 1, hinge_anchored = 1,
       slider_anchored = 0 };
#define JOINT_ROW_(ID, name)                                                                    \
  [VS_JOINT_##ID] = {name##_rows,    name##_anchored, name##_prepare, name##_impulse,          \
                     name##_solve,   name##_project,  name##_jacobian, name##_error},
static const vs_rjoint_row rows_table[VS_JOINT_KIND_COUNT] = {VS_JOINT_KINDS(JOINT_ROW_)};
#undef JOINT_ROW_
_Static_assert(ball_rows <= 3 && distance_rows <= 3, "fast rows: joint_impulse holds 3");
_Static_assert(weld_rows <= VS_RJOINT_MAX_ROWS && hinge_rows <= VS_RJOINT_MAX_ROWS &&
                   slider_rows <= VS_RJOINT_MAX_ROWS && VS_RJOINT_MAX_ROWS <= VS_RJM_LO + 3,
               "joint_impulse and joint_more hold the equality rows");

const vs_rjoint_row *vs_rjoint_row_of(int32_t kind) {
  return kind >= 0 && kind < VS_JOINT_KIND_COUNT ? &rows_table[kind] : NULL;
}

int vs_rjoint_rows(int32_t kind) { return rows_table[kind].rows; }

int vs_rjoint_anchored(int32_t kind) { return rows_table[kind].anchored; }

void vs_rjoint_jacobian(const vs_rmodel *m, const vs_rwork *w, int32_t j, int end, double *J) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  rows_table[m->joint_kind[j]].jacobian(jw, end, J);
}

/* The exact zeros of an anchored joint's linear part and of its anchor rows'
 * angular diagonal are left out (sums from +0, never -0: the same bits); a
 * ball's and a hinge's entries are ball_jacobian's and turn_row's, each
 * product formed as J's entry times u, without J made. */
void vs_rjoint_apply_rows(const vs_rmodel *m, const vs_rwork *w, int32_t j, const double *ua,
                          const double *ub, double *out) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK], *u[2] = {ua, ub};
  const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
  for (int i = 0; i < row->rows; i++) out[i] = 0;
  for (int e = 0; e < 2; e++) {
    double sg = e ? 1.0 : -1.0, J[6 * VS_RJOINT_MAX_ROWS];
    const double *r = e ? jw + 3 : jw, *ue = u[e];
    int hinge = m->joint_kind[j] == VS_JOINT_HINGE;
    if (ue && (hinge || m->joint_kind[j] == VS_JOINT_BALL)) {
      const double S[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
      for (int i = 0; i < 3; i++) {
        out[i] += sg * ue[i];
        for (int k = 0; k < 3; k++)
          if (k != i) out[i] += -sg * S[i * 3 + k] * ue[3 + k];
      }
      if (hinge) /* turn_row(J, 3 and 4, sg, U1 and U2) */
        for (int k = 0; k < 3; k++) {
          out[3] += sg * jw[VS_RJW_U1 + k] * ue[3 + k];
          out[4] += sg * jw[VS_RJW_U2 + k] * ue[3 + k];
        }
    } else if (ue) {
      row->jacobian(jw, e, J), rows_apply(J, ue, row->rows, row->anchored, out);
    }
  }
}

/* The rotation matrices of every body (and the world slot) at the pose of s,
 * into w->tree.rot: the joints read them there while the pose stays. */
static const double *pose_rotations(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  double *rot = w->tree.rot;
  if (!rot) return NULL; /* no joints */
  for (int32_t i = 0; i <= m->n_bodies; i++) vs_quat_to_mat(&s->q[4 * i], &rot[9 * (size_t)i]);
  return rot;
}

/* Anchors and gap of joint j at the current pose; rot: the pose's rotation
 * matrices (pose_rotations), or NULL to convert the two orientations here;
 * nrm: the joints' axis normals (w->tree.normals), or NULL to make them (inlined). */
static inline __attribute__((always_inline)) void context(
    const vs_rmodel *m, const vs_rstate *s, const double *inv_iw, const double *rot,
    const double *nrm, int32_t j, jctx *x) {
  int32_t n = m->n_bodies, a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = n;
  if (rot) {
    x->Ra = &rot[9 * (size_t)a], x->Rb = &rot[9 * (size_t)b];
  } else {
    vs_quat_to_mat(&s->q[4 * a], x->rbuf);
    vs_quat_to_mat(&s->q[4 * b], x->rbuf + 9);
    x->Ra = x->rbuf, x->Rb = x->rbuf + 9;
  }
  vs_mat3_mul(x->Ra, &m->joint_pa[3 * j], x->ra);
  vs_mat3_mul(x->Rb, &m->joint_pb[3 * j], x->rb);
  for (int k = 0; k < 3; k++) x->C[k] = s->x[3 * b + k] + x->rb[k] - s->x[3 * a + k] - x->ra[k];
  x->msum = m->inv_mass[a] + m->inv_mass[b];
  x->Ia = inv_iw ? &inv_iw[9 * a] : NULL; /* NULL: the errors only (vs_rjoint_errors) */
  x->Ib = inv_iw ? &inv_iw[9 * b] : NULL;
  x->qa = &s->q[4 * a];
  x->qb = &s->q[4 * b];
  x->rows_only = 0;
  x->pn = nrm ? &nrm[6 * (size_t)j] : NULL; /* nrm: w->tree.normals */
}

void vs_rjoint_pose(const vs_rmodel *m, const vs_rstate *s, vs_rwork *w) {
  pose_rotations(m, s, w);
}

void vs_rjoint_error(const vs_rmodel *m, const vs_rstate *s, const vs_rwork *w, int32_t j,
                     double *e) {
  jctx x;
  context(m, s, w->inv_iw, w->tree.rot, w->tree.normals, j, &x);
  rows_table[m->joint_kind[j]].error(m, j, &x, e);
}

/* A ball's cone and twist data (VS_RJW_BALL_*) at the pose x. */
static void ball_limits_prepare(const vs_rmodel *m, int32_t j, const jctx *x, double *jw) {
  double ua[3], ub[3], n[3], p2[3];
  vs_mat3_mul(x->Ra, &m->joint_axis[6 * j], ua);
  vs_mat3_mul(x->Rb, &m->joint_axis[6 * j + 3], ub);
  vs_cross3(ua, ub, n);
  double sn = vs_len3(n);
  if (sn > 1e-12)
    for (int k = 0; k < 3; k++) n[k] /= sn;
  else
    normals(ua, n, p2);
  /* the twist's rate: (wb - wa) . (ua + ub) / (1 + ua . ub) (docs/physics.md,
   * "Rigid bodies", a ball's cone and twist); about ua alone, a swing
   * circling at the cone turned the twist unseen by its row (by
   * (1 - cos) / cos of the circling's rate: 4.8 times at an 80 degree cone) */
  double c = vs_dot3(ua, ub), den = 1.0 + c > 1e-6 ? 1.0 + c : 1e-6;
  for (int k = 0; k < 3; k++) jw[VS_RJW_BALL_AXIS + k] = (ua[k] + ub[k]) / den;
  memcpy(jw + VS_RJW_BALL_CONE, n, sizeof n);
  jw[VS_RJW_BALL_TWIST] = hinge_angle(m, j, x);
  jw[VS_RJW_BALL_SWING] = vs_atan2(sn, c);
}

/* Joints are prepared every substep from the current pose (anchors, effective
 * mass), which keeps them exact however far the bodies turn in a step.
 * forest_only (the forest's position passes, after the positions moved):
 * the forest's joints alone, and their Jacobian's data alone (the angle
 * and the cone and twist data that the velocity sweeps' axis rows read are
 * prepared again before the next sweep; a position pass prepares its own).
 * The others are prepared again before their rows are next read.  A ball of
 * the forest never reads its K^-1 (its rows are solved by rigid_tree.c):
 * it is not formed. */
void vs_rigid_prepare_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int forest_only) {
  const vs_rtree *t = &w->tree;
  const double *rot = m->n_joints ? pose_rotations(m, s, w) : NULL;
  for (int32_t j = 0; j < m->n_joints; j++) {
    int in_tree = t->n_tree_joints && t->in_tree[j];
    /* a sleeping joint's rows too: the forest's factor, kept while its
     * bodies do not move (rigid_tree.c), reads them when the island wakes */
    if (forest_only && !in_tree) continue;
    double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
    w->tree.axis_ok[j] = 0; /* its axis rows are made again from the new jw */
    jctx x;
    context(m, s, w->inv_iw, rot, w->tree.normals, j, &x);
    x.rows_only = forest_only;
    memcpy(jw, x.ra, sizeof x.ra);
    memcpy(jw + 3, x.rb, sizeof x.rb);
    if (!(in_tree && m->joint_kind[j] == VS_JOINT_BALL))
      rows_table[m->joint_kind[j]].prepare(m, j, &x, jw);
    if (forest_only) continue; /* the axis rows' data: read by the sweeps alone */
    if (m->joint_flags[j] & (VS_RJOINT_CONE | VS_RJOINT_TWIST)) ball_limits_prepare(m, j, &x, jw);
    if (m->joint_flags[j] & VS_RJOINT_SOFT) orient_error(m, j, &x, jw + VS_RJW_SOFT_ERR);
  }
}

/* ---- the generic rows: J_a, J_b (rows x 6), K = sum J M^-1 J^T ---- */

enum { GEN_MAX = VS_RJOINT_MAX_ROWS + 1 }; /* the equality rows and a limit's */
typedef struct gen {
  int d;
  int32_t a, b;
  double Ja[6 * GEN_MAX], Jb[6 * GEN_MAX];
  double Ki[GEN_MAX * GEN_MAX];
} gen;

/* The 1-D row along joint j's axis (hinge: the angle's rate (wb - wa) . ax;
 * slider: the gap's rate along ax; ball: its twist's rate, or with cone
 * 1 its swing's; cone 2, 3, 4: the turn about world x, y, z), from this
 * substep's w->joint. */
void vs_rjoint_axis_row(const vs_rmodel *m, const vs_rwork *w, int32_t j, int cone, double Ja[6],
                        double Jb[6]) {
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  if (cone >= 2) { /* a soft weld's turn about world axis cone - 2 */
    double e[3] = {0, 0, 0};
    e[cone - 2] = 1.0;
    turn_row(Ja, 0, -1.0, e);
    turn_row(Jb, 0, 1.0, e);
    return;
  }
  if (m->joint_kind[j] == VS_JOINT_BALL) { /* the twist's axis or the cone's swing normal */
    const double *u = jw + (cone ? VS_RJW_BALL_CONE : VS_RJW_BALL_AXIS);
    turn_row(Ja, 0, -1.0, u);
    turn_row(Jb, 0, 1.0, u);
    return;
  }
  if (m->joint_kind[j] == VS_JOINT_SLIDER) {
    vs_rjoint_gap_row(jw, 0, jw + VS_RJW_AXIS, Ja);
    vs_rjoint_gap_row(jw, 1, jw + VS_RJW_AXIS, Jb);
    return;
  }
  turn_row(Ja, 0, -1.0, jw + VS_RJW_AXIS);
  turn_row(Jb, 0, 1.0, jw + VS_RJW_AXIS);
}

/* The generic rows of joint j, with nlim limit rows appended (the axis
 * rows vs_rjoint_axis_row(which[i]): a hinge's or slider's axis, a ball's
 * twist or cone). */
static void gen_make(const vs_rmodel *m, const vs_rwork *w, int32_t j, int mass, int nlim,
                     const int *which, gen *g) {
  const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  g->d = row->rows;
  g->a = m->joint_ab[2 * j];
  g->b = m->joint_ab[2 * j + 1] < 0 ? m->n_bodies : m->joint_ab[2 * j + 1];
  row->jacobian(jw, 0, g->Ja);
  row->jacobian(jw, 1, g->Jb);
  for (int i = 0; i < nlim; i++, g->d++)
    vs_rjoint_axis_row(m, w, j, which[i], &g->Ja[6 * g->d], &g->Jb[6 * g->d]);
  if (!mass) return;
  double K[GEN_MAX * GEN_MAX] = {0};
  /* at the size as a constant (1..6 rows): unrolled, the same operations */
#define GEN_MASS_(D) \
  gen_mass(m, w, g->a, g->Ja, D, K), gen_mass(m, w, g->b, g->Jb, D, K); \
  sym_inverse(K, D, g->Ki); break;
  switch (g->d) {
  case 1: GEN_MASS_(1) case 2: GEN_MASS_(2) case 3: GEN_MASS_(3) case 4: GEN_MASS_(4)
  case 5: GEN_MASS_(5) case 6: GEN_MASS_(6) default: GEN_MASS_(g->d)
  }
#undef GEN_MASS_
}

/* The axis row of joint j as it acts with the joint's own equality rows
 * held: an impulse l along it gives the bodies l Ra, l Rb (the row and the
 * equality rows' reaction, R = J_r + lam J_e with lam = -K_e^-1 J_e M^-1 J_r^T,
 * so that J_e M^-1 R^T = 0), and changes the row's speed by l / mass with
 * 1 / mass = J_r M^-1 R^T, the Schur complement of K_e: the row's own mass
 * on a hinge or slider rather than a free body's.  g: the equality rows (gen_make
 * with their K^-1). */
static inline __attribute__((always_inline)) void axis_rows(
    const vs_rmodel *m, const vs_rwork *w, int32_t j, const gen *g, int d, int cone, double Ja[6],
    double Jb[6], double Ra[6], double Rb[6], double *mass) {
  vs_rjoint_axis_row(m, w, j, cone, Ja, Jb);
  double c[GEN_MAX] = {0}, lam[GEN_MAX];
  gen_cross(m, w, g->a, g->Ja, d, Ja, c);
  gen_cross(m, w, g->b, g->Jb, d, Jb, c);
  for (int r = 0; r < d; r++) {
    double l = 0;
    for (int q = 0; q < d; q++) l -= g->Ki[r * d + q] * c[q];
    lam[r] = l;
  }
  memcpy(Ra, Ja, sizeof(double) * 6);
  memcpy(Rb, Jb, sizeof(double) * 6);
  for (int r = 0; r < d; r++)
    for (int q = 0; q < 6; q++) {
      Ra[q] += lam[r] * g->Ja[r * 6 + q];
      Rb[q] += lam[r] * g->Jb[r * 6 + q];
    }
  double k = 0;
  gen_cross(m, w, g->a, Ra, 1, Ja, &k);
  gen_cross(m, w, g->b, Rb, 1, Jb, &k);
  *mass = k > 1e-300 ? 1.0 / k : 0.0;
}

/* The rows read w->joint alone (and the inverse inertias, fixed in a step):
 * made once per joint and slot (cone 0 or 1; a soft weld's 2..4 use slots
 * 0..2) after vs_rigid_prepare_joints, then copied; the warm start and every
 * sweep read the same rows.  The slot asked for first makes them all (the
 * joint's own rows and their K^-1 are the same for each). */
void vs_rjoint_axis_rows(const vs_rmodel *m, const vs_rwork *w, int32_t j, int cone,
                         double Ja[6], double Jb[6], double Ra[6], double Rb[6], double *mass) {
  const vs_rtree *t = &w->tree;
  int slot = cone >= 2 ? cone - 2 : cone;
  double *c = &t->axis[((size_t)j * 3 + (size_t)slot) * VS_RAXIS_CACHE];
  if (!(t->axis_ok[j] & (1u << slot))) {
    int32_t flags = m->joint_flags[j];
    gen g;
    gen_make(m, w, j, 1, 0, NULL, &g);
    for (int k = 0; k < 5; k++) { /* the cones this joint's rows ask for (rigid_joint_axis.c) */
      int used = flags & VS_RJOINT_SOFT ? k >= 2
                 : k == 1                ? (flags & VS_RJOINT_CONE) != 0
                                         : k == 0 && (flags & ~VS_RJOINT_CONE) != 0;
      if (!used && k != cone) continue;
      int sl = k >= 2 ? k - 2 : k;
      double *ck = &t->axis[((size_t)j * 3 + (size_t)sl) * VS_RAXIS_CACHE];
#define AXIS_ROWS_(D) axis_rows(m, w, j, &g, D, k, ck, ck + 6, ck + 12, ck + 18, ck + 24)
      if (g.d == 3) AXIS_ROWS_(3); /* a ball, a hinge: at the size, unrolled */
      else if (g.d == 5) AXIS_ROWS_(5);
      else AXIS_ROWS_(g.d);
#undef AXIS_ROWS_
      t->axis_ok[j] |= (uint8_t)(1u << sl);
    }
  }
  memcpy(Ja, c, sizeof(double) * 6);
  memcpy(Jb, c + 6, sizeof(double) * 6);
  memcpy(Ra, c + 12, sizeof(double) * 6);
  memcpy(Rb, c + 18, sizeof(double) * 6);
  *mass = c[24];
}

void vs_rigid_warm_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
  if (row->impulse) {
    double P[3];
    row->impulse(jw, &s->joint_impulse[3 * j], P);
    apply(m, s, w, a, jw, P, -1.0);
    apply(m, s, w, b, jw + 3, P, 1.0);
    vs_rjoint_warm_axis(m, s, w, j); /* a ball's cone and twist */
    return;
  }
  gen g;
  gen_make(m, w, j, 0, 0, NULL, &g);
  double lam[VS_RJOINT_MAX_ROWS];
  for (int r = 0; r < g.d; r++) lam[r] = *jacc(s, j, r);
  if (m->joint_kind[j] == VS_JOINT_HINGE) { /* at its fixed size, unrolled */
    gen_apply_rows(m, s, w, a, g.Ja, hinge_rows, hinge_anchored, lam);
    gen_apply_rows(m, s, w, b, g.Jb, hinge_rows, hinge_anchored, lam);
  } else {
    gen_apply(m, s, w, a, g.Ja, g.d, lam);
    gen_apply(m, s, w, b, g.Jb, g.d, lam);
  }
  vs_rjoint_warm_axis(m, s, w, j);
}

void vs_rigid_solve_joint(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j) {
  int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
  if (b < 0) b = m->n_bodies;
  const double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK];
  const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
  if (row->solve) {
    double va[3], vb[3], dv[3], P[3];
    point_vel(s, a, jw, va);
    point_vel(s, b, jw + 3, vb);
    vs_sub3(vb, va, dv);
    row->solve(jw, dv, &s->joint_impulse[3 * j], P);
    apply(m, s, w, a, jw, P, -1.0);
    apply(m, s, w, b, jw + 3, P, 1.0);
    vs_rjoint_solve_axis(m, s, w, j);
    return;
  }
  gen g;
  gen_make(m, w, j, 1, 0, NULL, &g);
  double cd[VS_RJOINT_MAX_ROWS] = {0}, lam[VS_RJOINT_MAX_ROWS];
  gen_rows(s, a, g.Ja, g.d, cd);
  gen_rows(s, b, g.Jb, g.d, cd);
  for (int r = 0; r < g.d; r++) {
    double l = 0;
    for (int c = 0; c < g.d; c++) l -= g.Ki[r * g.d + c] * cd[c];
    lam[r] = l;
    *jacc(s, j, r) += l;
  }
  gen_apply(m, s, w, a, g.Ja, g.d, lam);
  gen_apply(m, s, w, b, g.Jb, g.d, lam);
  vs_rjoint_solve_axis(m, s, w, j);
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

/* The generic position pass of joint j: its rows at the moved pose
 * (prepared again: the caller's w->joint is left as it is) closed to first
 * order, with the rows of the limits it is past (limits: 1; only_limits:
 * nothing to do otherwise). */
static void gen_project(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int32_t j, int limits,
                        int only_limits) {
  double *jw = &w->joint[(size_t)j * VS_RJOINT_WORK], keep[VS_RJOINT_WORK];
  memcpy(keep, jw, sizeof keep);
  jctx x;
  context(m, s, w->inv_iw, NULL, w->tree.normals, j, &x);
  memcpy(jw, x.ra, sizeof x.ra);
  memcpy(jw + 3, x.rb, sizeof x.rb);
  const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
  row->prepare(m, j, &x, jw);
  if (m->joint_flags[j] & (VS_RJOINT_CONE | VS_RJOINT_TWIST)) ball_limits_prepare(m, j, &x, jw);
  int which[2] = {0, 0};
  double by[2];
  int nlim = limits ? vs_rjoint_passed_limits(m, j, jw, which, by) : 0;
  if (!nlim && only_limits) {
    memcpy(jw, keep, sizeof keep);
    return;
  }
  gen g;
  gen_make(m, w, j, 1, nlim, which, &g);
  double e[GEN_MAX], lam[GEN_MAX];
  row->error(m, j, &x, e);
  for (int i = 0; i < nlim; i++) e[g.d - nlim + i] = by[i];
  for (int r = 0; r < g.d; r++) {
    double l = 0;
    for (int c = 0; c < g.d; c++) l -= g.Ki[r * g.d + c] * e[c];
    lam[r] = l;
  }
  gen_shift(m, s, w, g.a, g.Ja, g.d, lam);
  gen_shift(m, s, w, g.b, g.Jb, g.d, lam);
  memcpy(jw, keep, sizeof keep);
}

/* A position pass over the joints that close loops, after the positions
 * moved (Box2D v2's non-linear Gauss-Seidel): the velocity rows cannot see
 * the drift that turning bodies give their anchors within a substep, this
 * removes it without touching the velocities (no energy is added).  The
 * forest's joints are closed by rigid_tree.c. */
void vs_rigid_project_joints(const vs_rmodel *m, vs_rstate *s, vs_rwork *w) {
  int32_t n = m->n_bodies;
  for (int32_t j = 0; j < m->n_joints; j++) {
    if ((w->tree.n_tree_joints && w->tree.in_tree[j]) || vs_rigid_joint_asleep(m, w, j)) continue;
    const vs_rjoint_row *row = &rows_table[m->joint_kind[j]];
    if (!row->project || (m->joint_flags[j] & (VS_RJOINT_CONE | VS_RJOINT_TWIST))) {
      gen_project(m, s, w, j, 1, 0);
      continue;
    }
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (b < 0) b = n;
    jctx x;
    context(m, s, w->inv_iw, NULL, w->tree.normals, j, &x);
    double P[3];
    row->project(m, j, &x, P);
    shift_body(m, s, w, a, x.ra, P, -1.0);
    shift_body(m, s, w, b, x.rb, P, 1.0);
  }
}

/* The limits' position pass of the forest's joints: a hinge or slider past
 * a limit (after the forest's Newton passes), or a ball past its cone or
 * twist (before them: brought back, it turns its whole subtree, whose
 * joints the Newton passes then close), is brought back to it with its own
 * rows held (first order). */
void vs_rigid_project_limits(const vs_rmodel *m, vs_rstate *s, vs_rwork *w, int balls) {
  const int32_t any = balls ? VS_RJOINT_CONE | VS_RJOINT_TWIST : VS_RJOINT_LIMIT;
  for (int32_t j = 0; j < m->n_joints; j++)
    if ((m->joint_flags[j] & any) && w->tree.n_tree_joints && w->tree.in_tree[j] &&
        !vs_rigid_joint_asleep(m, w, j)) gen_project(m, s, w, j, 1, 1);
}

/* How far a limit [lo, hi] is passed at pos (0 within it). */
static double past(double pos, double lo, double hi) {
  return pos < lo ? lo - pos : pos > hi ? pos - hi : 0.0;
}

void vs_rjoint_errors(const vs_rmodel *m, const vs_rstate *s, int32_t j, double *gap,
                      double *turn) {
  jctx x;
  context(m, s, NULL, NULL, NULL, j, &x);
  double e[VS_RJOINT_MAX_ROWS] = {0};
  int32_t flags = m->joint_flags[j];
  const double *lim = &m->joint_limit[2 * j];
  *gap = *turn = 0.0;
  switch ((vs_joint_kind)m->joint_kind[j]) {
  case VS_JOINT_BALL:
    *gap = vs_len3(x.C);
    if (flags & (VS_RJOINT_CONE | VS_RJOINT_TWIST)) {
      double jw[VS_RJOINT_WORK] = {0};
      ball_limits_prepare(m, j, &x, jw);
      if (flags & VS_RJOINT_CONE) *turn = past(jw[VS_RJW_BALL_SWING], -1.0, m->joint_cone[j]);
      if (flags & VS_RJOINT_TWIST)
        *turn = fmax(*turn, past(jw[VS_RJW_BALL_TWIST], lim[0], lim[1]));
    }
    break;
  case VS_JOINT_DISTANCE: distance_error(m, j, &x, e), *gap = fabs(e[0]); break;
  case VS_JOINT_WELD:
    weld_error(m, j, &x, e);
    *gap = vs_len3(e), *turn = vs_len3(e + 3);
    break;
  case VS_JOINT_HINGE: {
    hinge_error(m, j, &x, e);
    double t = sqrt(e[3] * e[3] + e[4] * e[4]);
    *gap = vs_len3(e);
    *turn = t < 1.0 ? asin(t) : 0.5 * 3.14159265358979323846;
    if (flags & VS_RJOINT_LIMIT) *turn = fmax(*turn, past(hinge_angle(m, j, &x), lim[0], lim[1]));
    break;
  }
  case VS_JOINT_SLIDER: {
    double ax[3], n1[3], n2[3];
    slider_error(m, j, &x, e);
    *gap = sqrt(e[0] * e[0] + e[1] * e[1]), *turn = vs_len3(e + 2);
    axis_frame(m, j, &x, ax, n1, n2);
    if (flags & VS_RJOINT_LIMIT) *gap = fmax(*gap, past(vs_dot3(ax, x.C), lim[0], lim[1]));
    break;
  }
  }
}
