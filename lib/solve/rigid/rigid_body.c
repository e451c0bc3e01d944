/* rigid_body.c: the rigid model, state and work buffers; mass and inertia of
 * the shapes (box, sphere, capsule); quaternion utilities. */
#include <string.h>

#include "solve/rigid/rigid.h"
#include "util/alloc.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void vs_rsettings_default(vs_rsettings *s) {
  memset(s, 0, sizeof *s);
  s->iterations = 2;
  s->baumgarte = 0.2;
  s->slop = 0.005;
  s->restitution_threshold = 0.5;
  s->warm_start = 1;
  s->gravity[1] = -9.81;
  s->damping = 0.0;
  s->margin = 4.0 * 0.005;
  s->max_bias_velocity = 3.0;
  s->substeps = 4;
}

vs_status vs_rmodel_create(int32_t n, int32_t nc, int32_t nj, vs_rmodel **out) {
  *out = NULL;
  if (n < 0 || nc < 0 || nj < 0) return VS_ERR_USAGE;
  vs_rmodel *m = vs_calloc(1, sizeof *m);
  if (!m) return VS_ERR_NOMEM;
  size_t un = (size_t)n + 1, uc = (size_t)nc + 1, uj = (size_t)nj + 1;
  m->n_bodies = n;
  m->n_colliders = nc;
  m->n_joints = nj;
  m->shape = vs_calloc(un, sizeof(int32_t));
  m->size = vs_calloc(3 * un, sizeof(double));
  m->inv_mass = vs_calloc(un, sizeof(double));
  m->inv_inertia = vs_calloc(3 * un, sizeof(double));
  m->friction = vs_calloc(un, sizeof(double));
  m->restitution = vs_calloc(un, sizeof(double));
  m->bound = vs_calloc(un, sizeof(double));
  m->colliders = vs_calloc(uc, sizeof(vs_rcollider));
  m->joint_kind = vs_calloc(uj, sizeof(int32_t));
  m->joint_ab = vs_calloc(2 * uj, sizeof(int32_t));
  m->joint_pa = vs_calloc(3 * uj, sizeof(double));
  m->joint_pb = vs_calloc(3 * uj, sizeof(double));
  m->joint_rest = vs_calloc(uj, sizeof(double));
  m->max_contacts = VS_RIGID_CONTACTS_PER_BODY * n + 64;
  vs_rsettings_default(&m->set);
  if (!m->shape || !m->size || !m->inv_mass || !m->inv_inertia || !m->friction ||
      !m->restitution || !m->bound || !m->colliders || !m->joint_kind || !m->joint_ab ||
      !m->joint_pa || !m->joint_pb || !m->joint_rest) {
    vs_rmodel_free(m);
    return VS_ERR_NOMEM;
  }
  *out = m;
  return VS_OK;
}

void vs_rmodel_free(vs_rmodel *m) {
  if (!m) return;
  vs_free(m->shape);
  vs_free(m->size);
  vs_free(m->inv_mass);
  vs_free(m->inv_inertia);
  vs_free(m->friction);
  vs_free(m->restitution);
  vs_free(m->bound);
  vs_free(m->colliders);
  vs_free(m->joint_kind);
  vs_free(m->joint_ab);
  vs_free(m->joint_pa);
  vs_free(m->joint_pb);
  vs_free(m->joint_rest);
  vs_free(m);
}

double vs_rigid_volume(int32_t shape, const double size[3]) {
  switch (shape) {
  case VS_RSHAPE_BOX: return size[0] * size[1] * size[2];
  case VS_RSHAPE_SPHERE: return 4.0 / 3.0 * M_PI * size[0] * size[0] * size[0];
  default: {
    double r = size[0], l = size[1];
    return M_PI * r * r * l + 4.0 / 3.0 * M_PI * r * r * r;
  }
  }
}

void vs_rigid_inertia(int32_t shape, const double size[3], double mass, double I[3]) {
  switch (shape) {
  case VS_RSHAPE_BOX: {
    double x2 = size[0] * size[0], y2 = size[1] * size[1], z2 = size[2] * size[2];
    I[0] = mass / 12.0 * (y2 + z2);
    I[1] = mass / 12.0 * (x2 + z2);
    I[2] = mass / 12.0 * (x2 + y2);
    break;
  }
  case VS_RSHAPE_SPHERE:
    I[0] = I[1] = I[2] = 0.4 * mass * size[0] * size[0];
    break;
  default: {
    /* cylinder of length l along y plus two hemispheres, one density */
    double r = size[0], l = size[1];
    double vc = M_PI * r * r * l, vs = 4.0 / 3.0 * M_PI * r * r * r;
    double mc = mass * vc / (vc + vs), ms = mass - mc;
    I[1] = mc * r * r / 2.0 + ms * 0.4 * r * r;
    /* each hemisphere: 0.4 r^2 (per mass) about its centre of the full sphere
     * plus the parallel-axis shift of its own centroid (3r/8 from the flat face) */
    I[0] = mc * (l * l / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
    I[2] = I[0];
    break;
  }
  }
}

vs_status vs_rmodel_set_body(vs_rmodel *m, int32_t i, int32_t shape, const double size[3],
                             double mass, double density, int fixed, double friction,
                             double restitution) {
  if (i < 0 || i >= m->n_bodies) return VS_ERR_USAGE;
  if (shape < VS_RSHAPE_BOX || shape > VS_RSHAPE_CAPSULE) return VS_ERR_USAGE;
  double sz[3] = {size[0], 0.0, 0.0};
  if (shape == VS_RSHAPE_BOX) {
    sz[1] = size[1];
    sz[2] = size[2];
    if (!(sz[0] > 0 && sz[1] > 0 && sz[2] > 0)) return VS_ERR_USAGE;
  } else if (shape == VS_RSHAPE_SPHERE) {
    if (!(sz[0] > 0)) return VS_ERR_USAGE;
  } else {
    sz[1] = size[1];
    if (!(sz[0] > 0 && sz[1] >= 0)) return VS_ERR_USAGE;
  }
  if (!fixed && !(mass > 0) && !(density > 0)) return VS_ERR_USAGE;
  m->shape[i] = shape;
  memcpy(&m->size[3 * i], sz, sizeof sz);
  m->friction[i] = friction;
  m->restitution[i] = restitution;
  if (shape == VS_RSHAPE_BOX)
    m->bound[i] = 0.5 * sqrt(sz[0] * sz[0] + sz[1] * sz[1] + sz[2] * sz[2]);
  else if (shape == VS_RSHAPE_SPHERE)
    m->bound[i] = sz[0];
  else
    m->bound[i] = 0.5 * sz[1] + sz[0];
  if (fixed) {
    m->inv_mass[i] = 0.0;
    m->inv_inertia[3 * i] = m->inv_inertia[3 * i + 1] = m->inv_inertia[3 * i + 2] = 0.0;
    return VS_OK;
  }
  double mm = mass > 0 ? mass : density * vs_rigid_volume(shape, sz);
  double I[3];
  vs_rigid_inertia(shape, sz, mm, I);
  m->inv_mass[i] = 1.0 / mm;
  for (int k = 0; k < 3; k++) m->inv_inertia[3 * i + k] = 1.0 / I[k];
  return VS_OK;
}

vs_status vs_rstate_create(const vs_rmodel *m, vs_rstate **out) {
  *out = NULL;
  vs_rstate *s = vs_calloc(1, sizeof *s);
  if (!s) return VS_ERR_NOMEM;
  size_t un = (size_t)m->n_bodies + 1, uk = (size_t)m->max_contacts + 1,
         uj = (size_t)m->n_joints + 1;
  s->n_bodies = m->n_bodies;
  s->x = vs_calloc(3 * un, sizeof(double));
  s->q = vs_calloc(4 * un, sizeof(double));
  s->v = vs_calloc(3 * un, sizeof(double));
  s->w = vs_calloc(3 * un, sizeof(double));
  s->cache_ab = vs_calloc(2 * uk, sizeof(int32_t));
  s->cache_feature = vs_calloc(uk, sizeof(uint32_t));
  s->cache_impulse = vs_calloc(4 * uk, sizeof(double));
  s->joint_impulse = vs_calloc(3 * uj, sizeof(double));
  if (!s->x || !s->q || !s->v || !s->w || !s->cache_ab || !s->cache_feature ||
      !s->cache_impulse || !s->joint_impulse) {
    vs_rstate_free(s);
    return VS_ERR_NOMEM;
  }
  for (int32_t i = 0; i <= m->n_bodies; i++) s->q[4 * i] = 1.0;
  *out = s;
  return VS_OK;
}

void vs_rstate_free(vs_rstate *s) {
  if (!s) return;
  vs_free(s->x);
  vs_free(s->q);
  vs_free(s->v);
  vs_free(s->w);
  vs_free(s->cache_ab);
  vs_free(s->cache_feature);
  vs_free(s->cache_impulse);
  vs_free(s->joint_impulse);
  vs_free(s);
}

uint64_t vs_rigid_bytes(int64_t n, int64_t nc, int64_t nj) {
  uint64_t un = (uint64_t)n + 1, uc = (uint64_t)nc + 1, uj = (uint64_t)nj + 1;
  uint64_t uk = (uint64_t)VS_RIGID_CONTACTS_PER_BODY * (uint64_t)n + 65;
  uint64_t model = sizeof(vs_rmodel) + un * (4 + 8 * (3 + 1 + 3 + 1 + 1 + 1)) +
                   uc * sizeof(vs_rcollider) + uj * (4 + 8 + 8 * (3 + 3 + 1));
  uint64_t state = sizeof(vs_rstate) + un * 8 * (3 + 4 + 3 + 3) + uk * (8 + 4 + 32) + uj * 24;
  uint64_t words = (un + 63) / 64;
  uint64_t work = sizeof(vs_rwork) +
                  uk * (sizeof(vs_rcontact) + sizeof(vs_rfric) + 8 + 8 + 4 + sizeof(vs_rpatch) +
                        4 + 8 + 4 * 4) +
                  un * (8 * (9 + 4 + 6 + 6 + 6 + 1) + 4 + 4 + 4) + uj * VS_RJOINT_WORK * 8 +
                  ((uint64_t)nj + uk) * 8 + (uint64_t)VS_RCOLORS * words * 8 +
                  (VS_RCOLORS + 2) * 4;
  return model + state + work;
}

vs_status vs_rwork_create(const vs_rmodel *m, vs_rwork **out) {
  *out = NULL;
  vs_rwork *w = vs_calloc(1, sizeof *w);
  if (!w) return VS_ERR_NOMEM;
  size_t un = (size_t)m->n_bodies + 1, uk = (size_t)m->max_contacts + 1;
  w->max_contacts = m->max_contacts;
  w->contacts = vs_calloc(uk, sizeof(vs_rcontact));
  w->fric = vs_calloc(uk, sizeof(vs_rfric));
  w->inv_iw = vs_calloc(9 * un, sizeof(double));
  w->q_old = vs_calloc(4 * un, sizeof(double));
  w->dp = vs_calloc(6 * un, sizeof(double));
  w->pv = vs_calloc(6 * un, sizeof(double));
  w->order = vs_calloc(un, sizeof(int32_t));
  w->aabb = vs_calloc(6 * un, sizeof(double));
  w->key = vs_calloc(un, sizeof(double));
  w->tmp = vs_calloc(un, sizeof(int32_t));
  w->pairs = vs_calloc(uk, sizeof(int64_t));
  w->pair_tmp = vs_calloc(uk, sizeof(int64_t));
  w->joint = vs_calloc(((size_t)m->n_joints + 1) * VS_RJOINT_WORK, sizeof(double));
  w->man = vs_calloc(uk, sizeof(int32_t));
  w->patch = vs_calloc(uk, sizeof(vs_rpatch));
  size_t items = (size_t)m->n_joints + uk;
  w->threads = 1;
  w->n_words = (int32_t)((un + 63) / 64);
  w->color_bits = vs_calloc((size_t)VS_RCOLORS * (size_t)w->n_words, sizeof(uint64_t));
  w->color_start = vs_calloc(VS_RCOLORS + 2, sizeof(int32_t));
  w->color_items = vs_calloc(items, sizeof(int32_t));
  w->item_color = vs_calloc(items, sizeof(int32_t));
  w->sorder = vs_calloc(uk, sizeof(int32_t));
  w->ord_last = vs_calloc(un, sizeof(int32_t));
  w->ord_succ = vs_calloc(2 * uk, sizeof(int32_t));
  w->ord_npred = vs_calloc(uk, sizeof(int32_t));
  w->ord_heap = vs_calloc(uk, sizeof(int32_t));
  w->ord_queue = vs_calloc(uk, sizeof(int32_t));
  w->ord_when = vs_calloc(uk, sizeof(int32_t));
  if (!w->fric || !w->sorder || !w->ord_last || !w->ord_succ || !w->ord_npred || !w->ord_heap ||
      !w->ord_queue || !w->ord_when ||
      !w->contacts || !w->inv_iw || !w->q_old || !w->dp || !w->pv || !w->order || !w->aabb || !w->key || !w->tmp || !w->pairs ||
      !w->pair_tmp || !w->joint || !w->man || !w->patch ||
      !w->color_bits || !w->color_start || !w->color_items || !w->item_color) {
    vs_rwork_free(w);
    return VS_ERR_NOMEM;
  }
  *out = w;
  return VS_OK;
}

void vs_rwork_free(vs_rwork *w) {
  if (!w) return;
  vs_free(w->contacts);
  vs_free(w->fric);
  vs_free(w->pairs);
  vs_free(w->pair_tmp);
  vs_free(w->joint);
  vs_free(w->man);
  vs_free(w->patch);
  vs_free(w->color_bits);
  vs_free(w->color_start);
  vs_free(w->color_items);
  vs_free(w->item_color);
  vs_free(w->sorder);
  vs_free(w->ord_last);
  vs_free(w->ord_succ);
  vs_free(w->ord_npred);
  vs_free(w->ord_heap);
  vs_free(w->ord_queue);
  vs_free(w->ord_when);
  vs_free(w->inv_iw);
  vs_free(w->q_old);
  vs_free(w->dp);
  vs_free(w->pv);
  vs_free(w->order);
  vs_free(w->aabb);
  vs_free(w->key);
  vs_free(w->tmp);
  vs_free(w);
}

/* ---- quaternions ---- */

void vs_quat_mul(const double a[4], const double b[4], double o[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  o[0] = w;
  o[1] = x;
  o[2] = y;
  o[3] = z;
}

void vs_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    double inv = 1.0 / n;
    for (int k = 0; k < 4; k++) q[k] *= inv;
  } else {
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
  }
}

void vs_quat_to_mat(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

void vs_quat_from_axis_angle(const double axis[3], double angle, double q[4]) {
  double n = vs_r_len(axis);
  if (!(n > 0)) {
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
    return;
  }
  double s = sin(0.5 * angle) / n;
  q[0] = cos(0.5 * angle);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}

void vs_quat_from_euler_deg(const double deg[3], double q[4]) {
  static const double ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double acc[4] = {1, 0, 0, 0}, r[4];
  for (int k = 0; k < 3; k++) { /* fixed axes: later rotations multiply on the left */
    vs_quat_from_axis_angle(ax[k], deg[k] * (M_PI / 180.0), r);
    vs_quat_mul(r, acc, acc);
  }
  vs_quat_normalize(acc);
  memcpy(q, acc, sizeof acc);
}

void vs_quat_integrate(double q[4], const double w[3], double h) {
  double wl = vs_r_len(w);
  double ang = wl * h;
  if (!(ang > 0)) return;
  double dq[4], s = sin(0.5 * ang) / wl;
  dq[0] = cos(0.5 * ang);
  dq[1] = w[0] * s;
  dq[2] = w[1] * s;
  dq[3] = w[2] * s;
  vs_quat_mul(dq, q, q);
  vs_quat_normalize(q);
}
