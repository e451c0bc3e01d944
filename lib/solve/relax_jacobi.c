/* relax_jacobi.c: graph-coloured Jacobi relaxation (docs/physics.md, relaxation; Fratarcangeli &
 * Pellacini 2014).  The constraints of one colour share no movable particle,
 * so each reads positions that no other constraint of its colour writes: they
 * are all projected "from the same positions", in any order, on any number of
 * threads, with bit-identical results.  Colours run in order, then the
 * collider contacts (one particle each: a colour group of their own).
 *
 * The two-sided distance links of a colour, the common case, go through a
 * block kernel: gather a block of links into SoA temporaries, compute every
 * correction in a loop the compiler vectorises (`omp simd`: sqrt and divide
 * are exact IEEE operations, so vector and scalar lanes give the same bits),
 * scatter the corrections.  That is the scalar reference below; the
 * vector paths (kernel_jacobi_*.c) give its bits and are picked per state
 * (kernel_jacobi.h, VSIM_KERNEL).  One parallel region spans the whole relaxation of
 * a step; each colour's blocks are split statically over the threads. */
#include <math.h>

#include "solve/kernel_jacobi.h"

#define VS_PAR_BLOCKS 16  /* a colour with fewer blocks runs on one thread */

void vs_jacobi_block_scalar(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  const vs_jacobi_layout *L = c->jacobi;
  double dx[VS_JBLOCK], dy[VS_JBLOCK], dz[VS_JBLOCK], s[VS_JBLOCK], al[VS_JBLOCK];
  double *restrict x = c->x;
  const int32_t *ab = L->link_ab + 2 * (size_t)j0;
  for (int32_t k = 0; k < n; k++) {
    const double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    dx[k] = pa[0] - pb[0];
    dy[k] = pa[1] - pb[1];
    dz[k] = pa[2] - pb[2];
  }
  /* Only a model with tearing links can have dead ones. */
  if (m->n_tearable > 0)
    for (int32_t k = 0; k < n; k++) al[k] = c->alive[L->link_index[j0 + k]] ? 1.0 : 0.0;
  else
    for (int32_t k = 0; k < n; k++) al[k] = 1.0;
  const double *rest = L->link_rest + j0;
  if (m->sqrt_approximation) {
    /* Jakobsen's first-order square root (see con_distance.c), one link at a time */
    for (int32_t k = 0; k < n; k++) {
      const double d2 = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k], r = rest[k];
      const double len = r > 0.0 ? (d2 + r * r) / (2.0 * r) : sqrt(d2);
      const double C = len - r;
      double sk = 0.0;
      if (len > 0.0 && !c->xpbd) {
        sk = -C * L->link_kw[j0 + k] / len;
      } else if (len > 0.0 && L->link_wsum[j0 + k] > 0.0) {
        const double at = L->link_compl[j0 + k] * c->inv_h2;
        double *lam = &L->link_lambda[j0 + k];
        const double dl = m->omega * (-C - at * *lam) / (L->link_wsum[j0 + k] + at);
        *lam += dl * al[k];
        sk = dl / len;
      }
      s[k] = sk * al[k];
    }
  } else if (!c->xpbd) {
    const double *kw = L->link_kw + j0;
#pragma omp simd
    for (int32_t k = 0; k < n; k++) {
      const double len = sqrt(dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k]);
      /* selects, not branches: a zero-length link gets no correction */
      const double safe = len > 0.0 ? len : 1.0, live = len > 0.0 ? al[k] : 0.0;
      const double C = len - rest[k];
      s[k] = -C * kw[k] / safe * live;
    }
  } else {
    const double *compl = L->link_compl + j0, *wsum = L->link_wsum + j0;
    double *lam = L->link_lambda + j0;
    const double inv_h2 = c->inv_h2, omega = m->omega;
#pragma omp simd
    for (int32_t k = 0; k < n; k++) {
      const double len = sqrt(dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k]);
      const double C = len - rest[k];
      const double at = compl[k] * inv_h2;
      /* selects, not branches: a zero-length or immovable link does nothing */
      const int ok = (len > 0.0) & (wsum[k] + at > 0.0);
      const double safe = ok ? len : 1.0, den = ok ? wsum[k] + at : 1.0, live = ok ? al[k] : 0.0;
      const double dl = omega * (-C - at * lam[k]) / den * live;
      lam[k] += dl;
      s[k] = dl / safe;
    }
  }
  for (int32_t k = 0; k < n; k++) {
    double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    const double sa = pa[3] * s[k], sb = pb[3] * s[k];
    pa[0] += sa * dx[k], pa[1] += sa * dy[k], pa[2] += sa * dz[k];
    pb[0] -= sb * dx[k], pb[1] -= sb * dy[k], pb[2] -= sb * dz[k];
  }
}

/* The two-sided links [lo, hi) of a colour, blocks split over the team. */
static void colour_blocks(const vs_model *m, const vs_solve_ctx *c, int32_t lo, int32_t hi,
                          int parallel) {
  const int32_t nblk = (hi - lo + VS_JBLOCK - 1) / VS_JBLOCK;
  const vs_jacobi_layout *L = c->jacobi;
  if (parallel && nblk >= VS_PAR_BLOCKS) {
#pragma omp for schedule(static)
    for (int32_t b = 0; b < nblk; b++) {
      const int32_t j0 = lo + b * VS_JBLOCK;
      L->block(m, c, j0, hi - j0 < VS_JBLOCK ? hi - j0 : VS_JBLOCK);
    }
  } else {
#pragma omp single
    for (int32_t b = 0; b < nblk; b++) {
      const int32_t j0 = lo + b * VS_JBLOCK;
      L->block(m, c, j0, hi - j0 < VS_JBLOCK ? hi - j0 : VS_JBLOCK);
    }
  }
}

/* The kernel keeps the multipliers of the two-sided links contiguous, in
 * layout order (link_lambda); the state keeps every constraint's multiplier
 * in its own slot, its build-order id.  Copied in before the sweeps and out
 * after them (once per step, not per sweep); the one-sided links, the
 * overflow colour and the other kinds use the state's slots directly.  Each
 * constraint has exactly one slot either way. */
static void link_lambda_copy(const vs_model *m, const vs_solve_ctx *c, int out) {
  const vs_jacobi_layout *L = c->jacobi;
  for (int32_t col = 0; col < m->n_colors; col++) {
    if (col == m->color_overflow) continue;
    const int32_t lo = L->color_link_start[col], hi = lo + L->color_two_sided[col];
    if (out)
      for (int32_t j = lo; j < hi; j++) c->lambda[L->link_id[j]] = L->link_lambda[j];
    else
      for (int32_t j = lo; j < hi; j++) L->link_lambda[j] = c->lambda[L->link_id[j]];
  }
}

void vs_relax_jacobi(const vs_model *m, vs_state *s, const vs_solve_ctx *c) {
  if (c->xpbd) link_lambda_copy(m, c, 0);
  const vs_jacobi_layout *L = c->jacobi;
  vs_solver_scratch *const w = s->scratch;
  const int threads = s->threads > 0 ? s->threads : 1;
  const int parallel = threads > 1 && (m->n_dist >= VS_PAR_BLOCKS * VS_JBLOCK ||
                                       m->n_particles >= VS_PAR_BLOCKS * VS_JBLOCK);
#pragma omp parallel num_threads(threads) if (parallel)
  {
    for (int64_t it = 0; it < m->iterations; it++) {
      for (int32_t col = 0; col < m->n_colors; col++) {
        if (col == m->color_overflow) {
          /* may share particles: build order, one thread */
#pragma omp single
          for (int32_t j = m->color_start[col]; j < m->color_start[col + 1]; j++)
            vs_project_constraint(c, m->color_order[j]);
          continue;
        }
        const int32_t lo = L->color_link_start[col], mid = lo + L->color_two_sided[col];
        colour_blocks(m, c, lo, mid, parallel);
        if (mid < L->color_link_start[col + 1] || L->color_other_start[col] < L->color_other_start[col + 1]) {
          /* one-sided links and other kinds: rare, one thread */
#pragma omp single
          {
            for (int32_t j = mid; j < L->color_link_start[col + 1]; j++)
              vs_distance_project(c, L->link_index[j], L->link_id[j]);
            for (int32_t j = L->color_other_start[col]; j < L->color_other_start[col + 1]; j++)
              vs_project_constraint(c, L->other_id[j]);
          }
        }
      }
      /* this step's particle contacts, coloured per step */
#pragma omp single
      vs_contacts_sweep_start(m, s);
      for (int32_t col = 0; col < w->pc_ncolors && w->pc_n > 0; col++) {
        const int32_t lo = w->pc_start[col], hi = w->pc_start[col + 1];
        if (parallel && col < 64 && hi - lo >= VS_PAR_BLOCKS * VS_JBLOCK) {
#pragma omp for schedule(static)
          for (int32_t j = lo; j < hi; j++) vs_contact_project(m, s, w->pc_order[j]);
        } else {
#pragma omp single
          for (int32_t j = lo; j < hi; j++) vs_contact_project(m, s, w->pc_order[j]);
        }
      }
      if (m->n_colliders > 0) {
        if (parallel) {
#pragma omp for schedule(static)
          for (int32_t i = 0; i < m->n_particles; i++)
            vs_collide_particle(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_cache, i);
        } else {
#pragma omp single
          for (int32_t i = 0; i < m->n_particles; i++)
            vs_collide_particle(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_cache, i);
        }
      }
    }
  }
  if (c->xpbd) link_lambda_copy(m, c, 1);
}
