/* SPDX-License-Identifier: MIT */
/* rigid_order.c: the order the sequential sweeps visit the manifolds in
 * (docs/physics.md, rigid bodies; the same list scheduling as the
 * Gauss-Seidel order of lib/model/gsorder.c, done every step).
 *
 * In identity order (a, b) consecutive manifolds share body a, so each waits
 * for the previous one's velocity update: one long latency chain.  Two
 * manifolds that share no body of non-zero inverse mass commute exactly (each
 * reads and writes only its own bodies' velocities and pseudo velocities and
 * its own rows; the world and fixed bodies are never written), so any order
 * that keeps every pair of manifolds sharing a moving body in identity order
 * gives the same bits as identity order.  List scheduling of that dependence
 * graph:
 *
 *   - the predecessors of manifold i are, per moving body of i, the last
 *     manifold before i in identity order that touches the body;
 *   - a manifold becomes eligible VS_RORDER_WINDOW positions after its last
 *     predecessor was placed; of the eligible ones the lowest id goes next
 *     (the order stays close to identity order, for the caches);
 *   - when none is eligible, the one that became ready first goes next.
 *
 * So a run of VS_RORDER_WINDOW consecutive manifolds of the order touches
 * distinct moving bodies wherever the graph allows; the sweep takes two
 * consecutive independent manifolds at a time and runs their rows in
 * lockstep (rigid_solve.c, sweep_two; the pairs are marked here, once per
 * step: VS_RORDER_PAIR), so that the CPU overlaps their dependency chains
 * (the rows of one manifold are one chain through the two bodies'
 * velocities).  The 20-level pyramid's graph (590 manifolds) has a longest
 * chain of 110, so there is room.  The warm starts run in this order too
 * (rigid_solve.c).  The order depends only on this step's manifolds:
 * deterministic, the same on resume and for any thread count.  O(M log r)
 * time, no allocation (the work arrays are sized with the contact buffer). */
#include "solve/rigid/rigid.h"
#include "util/heap.h"

/* Whether manifolds mi and mj share a body of non-zero inverse mass. */
static int share_body(const vs_rmodel *m, const vs_rwork *w, int32_t mi, int32_t mj) {
  const vs_rcontact *ci = &w->contacts[w->man[mi]], *cj = &w->contacts[w->man[mj]];
  int32_t bi[2] = {ci->ia, ci->ib}, bj[2] = {cj->ia, cj->ib};
  for (int p = 0; p < 2; p++)
    for (int q = 0; q < 2; q++)
      if (bi[p] == bj[q] && m->inv_mass[bi[p]] != 0) return 1;
  return 0;
}

void vs_rigid_order(const vs_rmodel *m, vs_rwork *w) {
  const int32_t n = m->n_bodies, nm = w->n_man;
  int32_t *last = w->ord_last, *succ = w->ord_succ, *npred = w->ord_npred;
  int32_t *heap = w->ord_heap, *queue = w->ord_queue, *when = w->ord_when;
  if (nm == 0) { /* nothing to order (a free body between impacts) */
    w->n_sorder = 0;
    return;
  }
  for (int32_t i = 0; i <= n; i++) last[i] = -1;
  int32_t nheap = 0;
  for (int32_t mi = 0; mi < nm; mi++) {
    const vs_rcontact *c = &w->contacts[w->man[mi]];
    const int32_t body[2] = {c->ia, c->ib};
    succ[2 * mi] = succ[2 * mi + 1] = -1;
    npred[mi] = 0;
    for (int s = 0; s < 2; s++) {
      const int32_t b = body[s];
      if (b >= n || m->inv_mass[b] == 0) continue;
      const int32_t q = last[b];
      last[b] = mi;
      if (q < 0) continue;
      /* the slot of q that holds b */
      const vs_rcontact *cq = &w->contacts[w->man[q]];
      succ[2 * q + (cq->ia == b ? 0 : 1)] = mi;
      npred[mi]++;
    }
    if (npred[mi] == 0) vs_heap_push(heap, &nheap, mi);
  }
  int32_t qhead = 0, qtail = 0;
  for (int32_t t = 0; t < nm; t++) {
    while (qhead < qtail && when[qhead] <= t) vs_heap_push(heap, &nheap, queue[qhead++]);
    const int32_t id = nheap > 0 ? vs_heap_pop(heap, &nheap) : queue[qhead++];
    w->sorder[t] = id;
    for (int s = 0; s < 2; s++) {
      const int32_t c = succ[2 * id + s];
      if (c >= 0 && --npred[c] == 0) queue[qtail] = c, when[qtail++] = t + VS_RORDER_WINDOW;
    }
  }
  /* the manifolds of sleeping islands are left out (rigid_sleep.c); they
   * share no moving body with the others, so the rest keep their order */
  int32_t na = nm;
  if (m->set.sleep) {
    na = 0;
    for (int32_t t = 0; t < nm; t++)
      if (!vs_rigid_manifold_asleep(m, w, w->sorder[t])) w->sorder[na++] = w->sorder[t];
  }
  w->n_sorder = na;
  /* the pairs the sweeps run in lockstep, taken greedily in order: a
   * manifold and the next when they share no moving body (once per step
   * instead of once per sweep) */
  for (int32_t t = 0; t + 1 < na;) {
    if (share_body(m, w, w->sorder[t], w->sorder[t + 1])) {
      t++;
    } else {
      w->sorder[t] |= VS_RORDER_PAIR;
      t += 2;
    }
  }
}
