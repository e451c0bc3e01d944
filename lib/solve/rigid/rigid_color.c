/* SPDX-License-Identifier: MIT */
/* rigid_color.c: the constraint graph's colours for `relaxation: jacobi`
 * (Box2D v3's constraint graph; docs/physics.md, rigid bodies).
 *
 * Every step, after the contacts are prepared: the joints (by index), then
 * the manifolds (the contact points of one body pair, in (a, b) order -- the
 * contacts' identity order) each take the lowest of VS_RCOLORS colours in
 * which neither of its bodies is taken yet.  Only bodies of non-zero inverse
 * mass count: the world and fixed bodies are never written by the solver, so
 * any number of constraints of one colour may share them.  A constraint that
 * finds no free colour goes to the overflow colour, solved in order on one
 * thread.  The colouring depends only on the constraints' identities, never
 * on the thread count; the solver then runs colour after colour, each
 * colour's constraints in parallel (rigid_solve.c). */
#include <string.h>

#include "solve/rigid/rigid.h"

static inline int taken(const uint64_t *bits, int32_t i) {
  return (int)((bits[i >> 6] >> (i & 63)) & 1u);
}

static inline void take(uint64_t *bits, int32_t i) { bits[i >> 6] |= (uint64_t)1 << (i & 63); }

static int32_t pick(const vs_rmodel *m, vs_rwork *w, int32_t a, int32_t b) {
  int da = a < m->n_bodies && m->inv_mass[a] != 0;
  int db = b < m->n_bodies && m->inv_mass[b] != 0;
  for (int32_t c = 0; c < VS_RCOLORS; c++) {
    uint64_t *bits = &w->color_bits[(size_t)c * (size_t)w->n_words];
    if ((da && taken(bits, a)) || (db && taken(bits, b))) continue;
    if (da) take(bits, a);
    if (db) take(bits, b);
    return c;
  }
  return VS_RCOLORS;
}

void vs_rigid_color(const vs_rmodel *m, vs_rwork *w) {
  int32_t n = m->n_bodies, nj = m->n_joints, items = nj + w->n_man;
  memset(w->color_bits, 0, sizeof(uint64_t) * (size_t)VS_RCOLORS * (size_t)w->n_words);
  memset(w->color_start, 0, sizeof(int32_t) * (VS_RCOLORS + 2));
  for (int32_t j = 0; j < nj; j++) {
    int32_t a = m->joint_ab[2 * j], b = m->joint_ab[2 * j + 1];
    /* the joints of the forest are solved together, before the colours (rigid_tree.c) */
    if (w->tree.n_tree_joints && w->tree.in_tree[j]) w->item_color[j] = -1;
    else w->item_color[j] = pick(m, w, a, b < 0 ? n : b);
  }
  for (int32_t mi = 0; mi < w->n_man; mi++) {
    const vs_rcontact *c = &w->contacts[w->man[mi]];
    const int idle = m->set.sleep && vs_rigid_manifold_asleep(m, w, mi);
    w->item_color[nj + mi] = idle ? -1 : pick(m, w, c->ia, c->ib);
  }
  /* counting sort by colour, stable: identity order inside each colour */
  for (int32_t i = 0; i < items; i++)
    if (w->item_color[i] >= 0) w->color_start[w->item_color[i] + 1]++;
  for (int32_t c = 0; c <= VS_RCOLORS; c++) w->color_start[c + 1] += w->color_start[c];
  int32_t fill[VS_RCOLORS + 1];
  memcpy(fill, w->color_start, sizeof fill);
  for (int32_t i = 0; i < items; i++)
    if (w->item_color[i] >= 0) w->color_items[fill[w->item_color[i]]++] = i < nj ? -1 - i : i - nj;
}
