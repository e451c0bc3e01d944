/* SPDX-License-Identifier: MIT */
/* rigid_model.c: the rigid solver's model (allocation, settings' defaults,
 * one body's shape and mass properties through its shape row). */
#include <string.h>

#include "model/rigid_model.h"
#include "util/alloc.h"

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
  s->substeps = 8;
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
  m->group_bits = vs_calloc(un, sizeof(uint32_t));
  m->mask = vs_calloc(un, sizeof(uint32_t));
  m->colliders = vs_calloc(uc, sizeof(vs_rcollider));
  m->joint_kind = vs_calloc(uj, sizeof(int32_t));
  m->joint_ab = vs_calloc(2 * uj, sizeof(int32_t));
  m->joint_pa = vs_calloc(3 * uj, sizeof(double));
  m->joint_pb = vs_calloc(3 * uj, sizeof(double));
  m->joint_rest = vs_calloc(uj, sizeof(double));
  m->joint_collide = vs_calloc(uj, sizeof(int32_t));
  m->nocollide = vs_calloc(uj, sizeof(int64_t));
  m->joint_axis = vs_calloc(6 * uj, sizeof(double));
  m->joint_qrel = vs_calloc(4 * uj, sizeof(double));
  m->joint_flags = vs_calloc(uj, sizeof(int32_t));
  m->joint_limit = vs_calloc(2 * uj, sizeof(double));
  m->joint_motor = vs_calloc(2 * uj, sizeof(double));
  m->joint_spring = vs_calloc(3 * uj, sizeof(double));
  m->joint_cone = vs_calloc(uj, sizeof(double));
  m->hull_of = vs_malloc(un * sizeof(int32_t));
  m->max_contacts = VS_RIGID_CONTACTS_PER_BODY * n + 64;
  vs_rsettings_default(&m->set);
  for (size_t i = 0; m->group_bits && m->mask && m->hull_of && i < un; i++) {
    m->group_bits[i] = 1u;
    m->mask[i] = 0xffffffffu;
    m->hull_of[i] = -1;
  }
  if (!m->shape || !m->size || !m->inv_mass || !m->inv_inertia || !m->friction ||
      !m->restitution || !m->bound || !m->colliders || !m->joint_kind || !m->joint_ab ||
      !m->joint_pa || !m->joint_pb || !m->joint_rest || !m->group_bits || !m->mask ||
      !m->joint_collide || !m->nocollide || !m->joint_axis || !m->joint_qrel ||
      !m->joint_flags || !m->joint_limit || !m->joint_motor || !m->joint_spring ||
      !m->joint_cone || !m->hull_of) {
    vs_rmodel_free(m);
    return VS_ERR_NOMEM;
  }
  for (size_t j = 0; j < uj; j++) m->joint_qrel[4 * j] = 1.0;
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
  vs_free(m->group_bits);
  vs_free(m->mask);
  vs_free(m->joint_collide);
  vs_free(m->nocollide);
  vs_rmotion_free(m->motion);
  vs_free(m->joint_axis);
  vs_free(m->joint_qrel);
  vs_free(m->joint_flags);
  vs_free(m->joint_limit);
  vs_free(m->joint_motor);
  vs_free(m->joint_spring);
  vs_free(m->joint_cone);
  vs_free(m->hull_of);
  for (int32_t h = 0; h < m->n_hulls; h++) vs_hull_free(&m->hulls[h]);
  vs_free(m->hulls);
  vs_free(m);
}

vs_status vs_rmodel_set_body(vs_rmodel *m, int32_t i, int32_t shape, const double size[3],
                             double mass, double density, int fixed, double friction,
                             double restitution) {
  if (i < 0 || i >= m->n_bodies) return VS_ERR_USAGE;
  const vs_rshape_row *row = vs_rshape_row_of(shape);
  if (!row || shape == VS_RIGID_CONVEX) return VS_ERR_USAGE; /* a hull: vs_rmodel_set_hull */
  double sz[3] = {size[0], size[1], size[2]};
  if (row->size_ok(sz) != VS_OK) return VS_ERR_USAGE;
  if (!fixed && !(mass > 0) && !(density > 0)) return VS_ERR_USAGE;
  m->shape[i] = shape;
  memcpy(&m->size[3 * i], sz, sizeof sz);
  m->friction[i] = friction;
  m->restitution[i] = restitution;
  m->bound[i] = row->bound(sz);
  if (fixed) {
    m->inv_mass[i] = 0.0;
    m->inv_inertia[3 * i] = m->inv_inertia[3 * i + 1] = m->inv_inertia[3 * i + 2] = 0.0;
    return VS_OK;
  }
  double mm = mass > 0 ? mass : density * row->volume(sz);
  double I[3];
  row->inertia(sz, mm, I);
  m->inv_mass[i] = 1.0 / mm;
  for (int k = 0; k < 3; k++) m->inv_inertia[3 * i + k] = 1.0 / I[k];
  return VS_OK;
}

vs_status vs_rmodel_set_hull(vs_rmodel *m, int32_t i, vs_hull *h, double mass, double density,
                             int fixed, double friction, double restitution) {
  if (i < 0 || i >= m->n_bodies || !h || h->nv < 4) return VS_ERR_USAGE;
  if (!fixed && !(mass > 0) && !(density > 0)) return VS_ERR_USAGE;
  vs_hull *grown = vs_realloc(m->hulls, ((size_t)m->n_hulls + 1) * sizeof *grown);
  if (!grown) return VS_ERR_NOMEM;
  m->hulls = grown;
  m->hulls[m->n_hulls] = *h;
  memset(h, 0, sizeof *h);
  const vs_hull *hh = &m->hulls[m->n_hulls];
  m->hull_of[i] = m->n_hulls++;
  m->shape[i] = VS_RIGID_CONVEX;
  for (int k = 0; k < 3; k++) m->size[3 * i + k] = 2.0 * hh->half[k];
  m->friction[i] = friction;
  m->restitution[i] = restitution;
  /* the row's (the box that holds the hull): a cube's hull is then bounded
   * as the same box, bit for bit (the broad phase's reach) */
  m->bound[i] = vs_rshape_row_of(VS_RIGID_CONVEX)->bound(&m->size[3 * i]);
  if (fixed) {
    m->inv_mass[i] = 0.0;
    m->inv_inertia[3 * i] = m->inv_inertia[3 * i + 1] = m->inv_inertia[3 * i + 2] = 0.0;
    return VS_OK;
  }
  double mm = mass > 0 ? mass : density * hh->volume;
  m->inv_mass[i] = 1.0 / mm;
  for (int k = 0; k < 3; k++) m->inv_inertia[3 * i + k] = 1.0 / (mm * hh->inertia[k]);
  return VS_OK;
}

double vs_rigid_volume(int32_t shape, const double size[3]) {
  const vs_rshape_row *row = vs_rshape_row_of(shape);
  return row ? row->volume(size) : 0.0;
}

void vs_rigid_inertia(int32_t shape, const double size[3], double mass, double I[3]) {
  const vs_rshape_row *row = vs_rshape_row_of(shape);
  if (row) row->inertia(size, mass, I);
  else I[0] = I[1] = I[2] = 0.0;
}

void vs_rmodel_finish(vs_rmodel *m) {
  int32_t k = 0;
  for (int32_t j = 0; j < m->n_joints; j++) {
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    if (b < 0 || m->joint_collide[j]) continue;
    int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    int64_t key = (int64_t)lo * m->n_bodies + hi;
    int32_t p = k++; /* insertion sort: joints are few, and set once */
    while (p > 0 && m->nocollide[p - 1] > key) {
      m->nocollide[p] = m->nocollide[p - 1];
      p--;
    }
    m->nocollide[p] = key;
  }
  int32_t u = 0; /* drop repeats (two joints between one pair) */
  for (int32_t i = 0; i < k; i++)
    if (u == 0 || m->nocollide[u - 1] != m->nocollide[i]) m->nocollide[u++] = m->nocollide[i];
  m->n_nocollide = u;
}

int vs_rmodel_may_collide(const vs_rmodel *m, int32_t i, int32_t j) {
  if (!(m->group_bits[i] & m->mask[j]) || !(m->group_bits[j] & m->mask[i])) return 0;
  if (m->n_nocollide == 0) return 1;
  int32_t lo = i < j ? i : j, hi = i < j ? j : i;
  int64_t key = (int64_t)lo * m->n_bodies + hi;
  int32_t a = 0, b = m->n_nocollide;
  while (a < b) {
    int32_t c = a + (b - a) / 2;
    if (m->nocollide[c] < key) a = c + 1;
    else b = c;
  }
  return !(a < m->n_nocollide && m->nocollide[a] == key);
}
