/* SPDX-License-Identifier: MIT */
/* rigid_body.c: the rigid state and the solver's work buffers, and the
 * bytes they take (the model and the shapes: model/rigid_model.c). */
#include <string.h>

#include "solve/rigid/rigid.h"
#include "util/alloc.h"

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
  s->joint_more = vs_calloc(VS_RJOINT_MORE * uj, sizeof(double));
  s->sleep = m->set.sleep ? vs_calloc(un, sizeof(double)) : NULL;
  if (!s->joint_more || !s->x || !s->q || !s->v || !s->w || !s->cache_ab || !s->cache_feature ||
      !s->cache_impulse || !s->joint_impulse || (m->set.sleep && !s->sleep)) {
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
  vs_free(s->joint_more);
  vs_free(s->sleep);
  vs_free(s);
}

uint64_t vs_rigid_bytes(int64_t n, int64_t nc, int64_t nj, int sleep) {
  uint64_t un = (uint64_t)n + 1, uc = (uint64_t)nc + 1, uj = (uint64_t)nj + 1;
  uint64_t uk = (uint64_t)VS_RIGID_CONTACTS_PER_BODY * (uint64_t)n + 65;
  uint64_t model = sizeof(vs_rmodel) + un * (4 + 8 * (3 + 1 + 3 + 1 + 1 + 1) + 4 + 4) +
                   uc * sizeof(vs_rcollider) + uj * (4 + 8 + 8 * (3 + 3 + 1) + 4 + 8) +
                   uj * (8 * (6 + 4 + 2 + 2 + 3 + 1) + 4);
  uint64_t state = sizeof(vs_rstate) + un * 8 * (3 + 4 + 3 + 3) + uk * (8 + 4 + 32) + uj * 24 +
                   uj * 8 * VS_RJOINT_MORE;
  uint64_t words = (un + 63) / 64;
  uint64_t work = sizeof(vs_rwork) +
                  uk * (sizeof(vs_rcontact) + sizeof(vs_rfric) + 8 + 8 + 4 + sizeof(vs_rpatch) +
                        4 + 8 + 4 * 4) +
                  un * (8 * (9 + 6 + 6 + 6 + 1 + 1 + 1) + 4 + 4 + 4 + 4 + 8 + 1) + uj * VS_RJOINT_WORK * 8 +
                  ((uint64_t)nj + uk) * 8 + (uint64_t)VS_RCOLORS * words * 8 +
                  (VS_RCOLORS + 2) * 4;
  if (sleep) /* the state's times at rest; the last contacts and poses (rigid_broad.c) */
    work += un * 8 + uk * sizeof(vs_rcontact) + un * (8 * (3 + 4) + 1);
  return model + state + work + vs_rigid_tree_bytes(n, nj);
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
  w->dp = vs_calloc(6 * un, sizeof(double));
  w->pv = vs_calloc(6 * un, sizeof(double));
  w->hit_t = vs_calloc(un, sizeof(double));
  w->order = vs_calloc(un, sizeof(int32_t));
  w->reach = vs_calloc(un, sizeof(double));
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
  w->island = vs_calloc(un, sizeof(int32_t));
  w->island_min = vs_calloc(un, sizeof(double));
  w->asleep = vs_calloc(un, 1);
  if (m->set.sleep) {
    w->prev_contacts = vs_calloc(uk, sizeof(vs_rcontact));
    w->last_x = vs_calloc(3 * un, sizeof(double));
    w->last_q = vs_calloc(4 * un, sizeof(double));
    w->frozen = vs_calloc(un, 1);
    if (!w->prev_contacts || !w->last_x || !w->last_q || !w->frozen) {
      vs_rwork_free(w);
      return VS_ERR_NOMEM;
    }
  }
  w->ord_last = vs_calloc(un, sizeof(int32_t));
  w->ord_succ = vs_calloc(2 * uk, sizeof(int32_t));
  w->ord_npred = vs_calloc(uk, sizeof(int32_t));
  w->ord_heap = vs_calloc(uk, sizeof(int32_t));
  w->ord_queue = vs_calloc(uk, sizeof(int32_t));
  w->ord_when = vs_calloc(uk, sizeof(int32_t));
  if (vs_rigid_tree_build(m, &w->tree) != VS_OK) {
    vs_rwork_free(w);
    return VS_ERR_NOMEM;
  }
  if (!w->fric || !w->sorder || !w->island || !w->island_min || !w->asleep || !w->ord_last || !w->ord_succ || !w->ord_npred || !w->ord_heap ||
      !w->ord_queue || !w->ord_when ||
      !w->contacts || !w->inv_iw || !w->dp || !w->pv || !w->hit_t || !w->order || !w->reach || !w->aabb || !w->key || !w->tmp || !w->pairs ||
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
  vs_rigid_tree_free(&w->tree);
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
  vs_free(w->island);
  vs_free(w->island_min);
  vs_free(w->asleep);
  vs_free(w->prev_contacts);
  vs_free(w->last_x);
  vs_free(w->last_q);
  vs_free(w->frozen);
  vs_free(w->ord_last);
  vs_free(w->ord_succ);
  vs_free(w->ord_npred);
  vs_free(w->ord_heap);
  vs_free(w->ord_queue);
  vs_free(w->ord_when);
  vs_free(w->inv_iw);
  vs_free(w->dp);
  vs_free(w->pv);
  vs_free(w->hit_t);
  vs_free(w->order);
  vs_free(w->reach);
  vs_free(w->aabb);
  vs_free(w->key);
  vs_free(w->tmp);
  vs_free(w);
}
