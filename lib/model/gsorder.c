/* SPDX-License-Identifier: MIT */
/* gsorder.c: the order Gauss-Seidel projects the constraints in
 * (docs/physics.md, relaxation), computed once at build time.
 *
 * In build order consecutive constraints share a particle (a cloth row's
 * links form a chain), so each projection waits for the previous one's
 * square root and divide: a latency chain.  Two projections that share no
 * particle commute exactly (each reads and writes only its own particles,
 * its own multiplier slot and its own `alive` flag), so any order that keeps
 * every pair of constraints sharing a particle in build order gives the same
 * bits as build order.  This is list scheduling of that dependence graph:
 *
 *   - the predecessors of constraint c are, per particle of c, the last
 *     constraint before c in build order that touches the particle (at most
 *     arity of them; the chains per particle are total orders, so these are
 *     the only ones needed);
 *   - a constraint becomes eligible VS_GS_WINDOW positions after its last
 *     predecessor was placed; of the eligible ones the lowest build-order id
 *     goes next (so the order stays close to build order, for the caches);
 *   - when none is eligible the constraint that became ready first goes
 *     next anyway (the window is then shorter there; the order is still
 *     valid).
 *
 * So inside every run of VS_GS_WINDOW consecutive constraints of the order no
 * two share a particle, except where the dependence graph leaves nothing
 * else (the first few links of a cloth, a single chain).  The order is a
 * function of the model alone: deterministic, the same on resume and for any
 * thread count.  The distance links are copied in that order into the
 * gs_link_* arrays, which the sweep reads front to back.  O(n log r) time (r: constraints ready at once) and O(n)
 * work space, freed before returning. */
#include <string.h>

#include "model/build.h"
#include "util/heap.h"

vs_status vs_gs_order_model(vs_model *m, vs_error *err) {
  const int32_t nc = m->n_constraints;
  m->priv->n_blocks = 0;
  if (nc == 0) return VS_OK;
  /* work: last toucher per particle; per constraint its successors (one per
   * particle slot), unmet predecessors, and the heap / ready queue */
  int32_t *last = vs_malloc((size_t)m->n_particles * sizeof(int32_t));
  int32_t *succ = vs_malloc((size_t)nc * VS_MAX_ARITY * sizeof(int32_t));
  uint8_t *npred = vs_calloc((size_t)nc, 1);
  int32_t *heap = vs_malloc((size_t)nc * sizeof(int32_t));
  int32_t *queue = vs_malloc((size_t)nc * sizeof(int32_t)); /* ready, not yet eligible */
  int32_t *when = vs_malloc((size_t)nc * sizeof(int32_t));  /* position it becomes eligible at */
  vs_status st = VS_OK;
  if (!last || !succ || !npred || !heap || !queue || !when) {
    st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0,
                      "out of memory ordering %d constraints for Gauss-Seidel", nc);
    goto done;
  }
  for (int32_t p = 0; p < m->n_particles; p++) last[p] = -1;
  for (size_t k = 0; k < (size_t)nc * VS_MAX_ARITY; k++) succ[k] = -1;
  int32_t nheap = 0;
  for (int32_t id = 0; id < nc; id++) {
    int32_t p[VS_MAX_ARITY];
    const int arity = vs_model_constraint_particles(m, id, p);
    for (int j = 0; j < arity; j++) {
      const int32_t q = last[p[j]];
      last[p[j]] = id;
      if (q < 0 || q == id) continue;
      int32_t pq[VS_MAX_ARITY];
      const int aq = vs_model_constraint_particles(m, q, pq);
      for (int s = 0; s < aq; s++)
        if (pq[s] == p[j]) succ[(size_t)q * VS_MAX_ARITY + (size_t)s] = id;
      npred[id]++;
    }
    if (npred[id] == 0) vs_heap_push(heap, &nheap, id);
  }
  int32_t qhead = 0, qtail = 0;
  int32_t rank[VS_KIND_COUNT] = {0}; /* constraints of each kind placed so far */
  for (int32_t t = 0; t < nc; t++) {
    while (qhead < qtail && when[qhead] <= t) vs_heap_push(heap, &nheap, queue[qhead++]);
    /* nothing eligible: the one ready longest (the queue is never empty
     * then, since the dependence graph is acyclic) */
    const int32_t id = nheap > 0 ? vs_heap_pop(heap, &nheap) : queue[qhead++];
    m->priv->gs_order[t] = id;
    for (int s = 0; s < VS_MAX_ARITY; s++) {
      const int32_t c = succ[(size_t)id * VS_MAX_ARITY + (size_t)s];
      if (c >= 0 && --npred[c] == 0) queue[qtail] = c, when[qtail++] = t + VS_GS_WINDOW;
    }
    /* runs of one kind, for the relaxation's dispatch */
    const vs_kind kind = (vs_kind)m->con_kind[id];
    vs_block *b = m->priv->n_blocks ? &m->priv->blocks[m->priv->n_blocks - 1] : NULL;
    if (b && b->kind == kind)
      b->count++;
    else
      m->priv->blocks[m->priv->n_blocks++] = (vs_block){kind, t, 1, rank[kind]};
    if (kind == VS_KIND_DISTANCE) { /* the link's stream entry */
      const int32_t k = m->con_index[id], r = rank[kind];
      m->priv->gs_link_ab[2 * r] = m->dist_ab[2 * k];
      m->priv->gs_link_ab[2 * r + 1] = m->dist_ab[2 * k + 1];
      m->priv->gs_link_rest[r] = m->dist_rest[k];
      m->priv->gs_link_kw[r] = m->priv->dist_kw[k];
      m->priv->gs_link_side[r] = m->dist_side[k];
      m->priv->gs_link_index[r] = k;
    }
    rank[kind]++;
  }
done:
  vs_free(last);
  vs_free(succ);
  vs_free(npred);
  vs_free(heap);
  vs_free(queue);
  vs_free(when);
  return st;
}
