/* SPDX-License-Identifier: MIT */
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
 * a step.  When every colour is two-sided links only (a cloth, a rope, a
 * lattice), the colours (and iterations) run as a wavefront over the
 * particles with one barrier pair per chunk of colours (below, "the
 * wavefront schedule"); otherwise colour after colour, each colour's blocks
 * split statically over the threads.  Both give the same bits. */
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#else /* a build without OpenMP (the fuzzers): one thread */
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline double omp_get_wtime(void) { return 0.0; }
#endif

#include "solve/kernel_jacobi.h"

#define VS_PAR_BLOCKS 16  /* a colour with fewer blocks runs on one thread */
#define VS_WAVE_MAX_STAGES 64 /* stages in one wavefront chunk */

void vs_jacobi_block_scalar(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t n) {
  const vs_jacobi_layout *L = c->jacobi;
  double dx[VS_JBLOCK], dy[VS_JBLOCK], dz[VS_JBLOCK], s[VS_JBLOCK], alive[VS_JBLOCK];
  double *restrict x = c->x;
  const int32_t *ab = L->link_ab + 2 * (size_t)j0;
  for (int32_t k = 0; k < n; k++) {
    const double *pa = x + 4 * (size_t)ab[2 * k], *pb = x + 4 * (size_t)ab[2 * k + 1];
    dx[k] = pa[0] - pb[0];
    dy[k] = pa[1] - pb[1];
    dz[k] = pa[2] - pb[2];
  }
  /* Only a model with tearing links can have dead ones. */
  const double *al = vs_jk_alive(m, c, j0, n, alive);
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

/* ---- the wavefront schedule ----
 * Projecting the colours one after the other sweeps the whole cloth once per
 * colour and iteration: at 256x256 the positions (2 MiB) and links do not
 * stay in L2, and every sweep streams them again.  The only order the
 * results depend on is this: a link L2 of a later colour (or iteration) that
 * shares a particle with a link L1 of an earlier one must see L1's
 * correction; links of one colour are independent.  With key(L) = min(a, b)
 * and every two-sided link spanning |a - b| <= D, two links that share a
 * particle have keys at most D apart.  So the stages (colour c of iteration
 * i, in solve order) can run as a wavefront over the keys: stage s projects
 * its links with key < lim[s], where lim[s] <= lim[s - 1] - D_s and all of
 * stage s - 1's links below lim[s - 1] are done; D_s <= D is the span of
 * stage s's own colour (color_span): a link L2 of stage s touches particles
 * p <= key(L2) + D_s, and a link L1 of stage s - 1 that shares p has
 * key(L1) <= p, so every L1 that L2 needs is below lim[s - 1]; one not yet
 * done (key >= lim[s - 1]) touches no particle below lim[s - 1], where all
 * of L2's are.  Every link still sees exactly the corrections it saw colour
 * by colour: the same bits, while a window of the cloth a few rows deep
 * stays in cache for all the stages.  A cloth's links along its rows span
 * 1, across them a row: a colour of links along rows only lags by 1 (at
 * 256x256 one of the four greedy colours is, so the 40 stages' window is a
 * quarter shallower than with D for every stage).
 *
 * Threads: thread t of T owns the keys [R_t, R_t+1) and runs the wavefront
 * over the trapezoid R_t + Lo_s <= key < R_t+1 - Up_s of stage s (s counted
 * in a chunk of S stages; Lo_s = D_0 + .. + D_s-1, Up_s = D_1 + .. + D_s,
 * both at most s D); no link of a trapezoid depends on a link outside it,
 * and no two trapezoids share a particle, so they run without any barrier.
 * Then (one barrier) the seams R_t - Up_s <= key < R_t + Lo_s, stage by
 * stage, one thread per seam, and a barrier before the next chunk.  S is
 * chosen so that the seams are a small share of the work (1/wave_seam_div:
 * 1/32); a chunk of
 * S = 1 is the plain colour-by-colour schedule.  With two threads the split
 * R_1 follows the threads' speeds (wave_balance: a VM's two cores may run at
 * different speeds, and even halves wait for the slower one); the
 * decomposition holds for any R_1, so which thread projects a link never
 * changes a bit. */
#define WAVE_WINDOW 1024 /* keys stage 0 advances per round */
#define WAVE_INF ((int64_t)1 << 40)

/* First j in [lo, hi) with key[j] >= k (hi if none). */
static int32_t key_lower_bound(const int32_t *key, int32_t lo, int32_t hi, int64_t k) {
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (key[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void run_links(const vs_model *m, const vs_solve_ctx *c, int32_t j0, int32_t j1) {
  const vs_jacobi_layout *L = c->jacobi;
  for (; j0 < j1; j0 += VS_JBLOCK) L->block(m, c, j0, j1 - j0 < VS_JBLOCK ? j1 - j0 : VS_JBLOCK);
}

/* The split key R_t of thread t of T (R_0 = -inf, R_T = +inf): quantiles
 * of the wave colour's links, or with two threads thread 0's share f of
 * them (any split gives the same bits: it only says which thread projects
 * a link, and the trapezoids and the seam cover every link once). */
static int64_t wave_split(const vs_jacobi_layout *L, int t, int T, double f) {
  if (t <= 0) return -WAVE_INF;
  if (t >= T) return WAVE_INF;
  const int32_t lo = L->color_link_start[L->wave_color], n = L->color_two_sided[L->wave_color];
  if (T == 2 && n > 0) {
    const int32_t j = (int32_t)((double)n * f);
    return L->link_key[lo + (j < 0 ? 0 : j >= n ? n - 1 : j)];
  }
  return L->link_key[lo + (int32_t)((int64_t)n * t / T)];
}

/* Stages per chunk for T threads (at most `stages`). */
static int wave_chunk(const vs_jacobi_layout *L, int T, int stages) {
  if (T <= 1) return stages;
  const int64_t D = L->wave_span > 0 ? L->wave_span : 1;
  const int32_t lo = L->color_link_start[L->wave_color], n = L->color_two_sided[L->wave_color];
  if (n <= 0) return 1;
  const int64_t range = (int64_t)L->link_key[lo + n - 1] - L->link_key[lo] + 1;
  int64_t width = WAVE_INF; /* the narrowest inner region */
  for (int t = 1; t + 1 < T; t++) {
    const int64_t w = wave_split(L, t + 1, T, 0.5) - wave_split(L, t, T, 0.5);
    if (w < width) width = w;
  }
  if (T == 2) width = 2 * range; /* one seam: no inner region */
  int S = 1;
  while (S < stages && (int64_t)(T - 1) * S * D * L->wave_seam_div <= range && (2 * (int64_t)(S + 1) + 1) * D <= width &&
         (2 * (int64_t)(S + 1) + 1) * D <= range / T)
    S++;
  return S;
}

/* Thread t's trapezoid of the stages g0 .. g0 + S - 1 (colour g % n_colors). */
static void wave_trapezoid(const vs_model *m, const vs_solve_ctx *c, int64_t g0, int S, int t, int T, double f) {
  const vs_jacobi_layout *L = c->jacobi;
  const int64_t R0 = wave_split(L, t, T, f), R1 = wave_split(L, t + 1, T, f);
  int32_t b[VS_WAVE_MAX_STAGES], e[VS_WAVE_MAX_STAGES], span[VS_WAVE_MAX_STAGES];
  int64_t lim[VS_WAVE_MAX_STAGES], up[VS_WAVE_MAX_STAGES];
  int64_t start = WAVE_INF, lo_off = 0, up_off = 0;
  for (int s = 0; s < S; s++) {
    const int32_t col = (int32_t)((g0 + s) % m->n_colors);
    const int32_t lo = L->color_link_start[col], hi = lo + L->color_two_sided[col];
    span[s] = L->color_span[col];
    if (s > 0) up_off += span[s], lo_off += span[s - 1];
    up[s] = up_off;
    b[s] = t > 0 ? key_lower_bound(L->link_key, lo, hi, R0 + lo_off) : lo;
    e[s] = t + 1 < T ? key_lower_bound(L->link_key, lo, hi, R1 - up_off) : hi;
    if (e[s] < b[s]) e[s] = b[s];
    lim[s] = -WAVE_INF;
    if (b[s] < e[s] && L->link_key[b[s]] < start) start = L->link_key[b[s]];
  }
  int64_t F = start;
  for (int busy = 1; busy;) {
    busy = 0;
    F += WAVE_WINDOW;
    for (int s = 0; s < S; s++) {
      const int64_t target = s == 0 ? F : lim[s - 1] - span[s];
      /* whole blocks of keys below target (a block's last key is its largest), or
       * all the rest: a stage advances a few blocks a round, so a walk by blocks
       * costs less than a binary search's mispredicted branches */
      int32_t j = b[s];
      while (j + VS_JBLOCK <= e[s] && L->link_key[j + VS_JBLOCK - 1] < target) j += VS_JBLOCK;
      if (j < e[s] && L->link_key[e[s] - 1] < target) j = e[s];
      run_links(m, c, b[s], j);
      b[s] = j;
      if (j == e[s]) {
        lim[s] = t + 1 < T ? R1 - up[s] : WAVE_INF; /* all of the trapezoid's stage s is done */
      } else {
        lim[s] = L->link_key[j]; /* every link with a smaller key is done */
        busy = 1;
      }
    }
  }
}

/* The seam at R_t of the stages g0 .. g0 + S - 1, stage by stage. */
static void wave_seam(const vs_model *m, const vs_solve_ctx *c, int64_t g0, int S, int t, int T, double f) {
  const vs_jacobi_layout *L = c->jacobi;
  const int64_t R = wave_split(L, t, T, f);
  int64_t lo_off = 0, up_off = 0;
  for (int s = 1; s < S; s++) {
    const int32_t col = (int32_t)((g0 + s) % m->n_colors), prev = (int32_t)((g0 + s - 1) % m->n_colors);
    const int32_t lo = L->color_link_start[col], hi = lo + L->color_two_sided[col];
    up_off += L->color_span[col], lo_off += L->color_span[prev];
    run_links(m, c, key_lower_bound(L->link_key, lo, hi, R - up_off), key_lower_bound(L->link_key, lo, hi, R + lo_off));
  }
}

/* Two threads: thread 0's next share from the threads' times on the
 * trapezoids of a chunk (share f): the split that would have made them
 * equal, half way, within [1/4, 3/4]. */
static void wave_balance(vs_jacobi_layout *B, double f) {
  if (B->wave_share_fixed > 0.0) {
    B->wave_share = B->wave_share_fixed;
    return;
  }
  const double t0 = B->wave_time[0], t1 = B->wave_time[1];
  if (!(t0 > 0.0 && t1 > 0.0)) return;
  const double r0 = f / t0, r1 = (1.0 - f) / t1; /* links per second */
  double g = f + 0.5 * (r0 / (r0 + r1) - f);
  B->wave_share = g < 0.25 ? 0.25 : g > 0.75 ? 0.75 : g;
}

/* The stages g0 .. g0 + n - 1 as a wavefront, inside the parallel region.
 * B is the layout c->jacobi, writable for the two threads' share: thread 1
 * writes it between a chunk's barriers while thread 0 runs the seam, and
 * both read it after the second barrier. */
static void wave_stages(const vs_model *m, const vs_solve_ctx *c, vs_jacobi_layout *B, int64_t g0, int64_t n) {
  const int T = omp_get_num_threads(), t = omp_get_thread_num();
  const int S0 = wave_chunk(c->jacobi, T, n < VS_WAVE_MAX_STAGES ? (int)n : VS_WAVE_MAX_STAGES);
  for (int64_t g = g0; g < g0 + n; g += S0) {
    const int S = g0 + n - g < S0 ? (int)(g0 + n - g) : S0;
    const double f = T == 2 ? B->wave_share : 0.5;
    const double start = T == 2 ? omp_get_wtime() : 0.0;
    wave_trapezoid(m, c, g, S, t, T, f);
    if (T > 1) {
      if (T == 2) B->wave_time[t] = omp_get_wtime() - start;
#pragma omp barrier
      if (S > 1) { /* a chunk of one stage has no seams */
        if (t + 1 < T) wave_seam(m, c, g, S, t + 1, T, f);
        else if (T == 2) wave_balance(B, f);
#pragma omp barrier
      }
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
    if (col == m->priv->color_overflow) continue;
    const int32_t lo = L->color_link_start[col], hi = lo + L->color_two_sided[col];
    if (out)
      for (int32_t j = lo; j < hi; j++) c->lambda[L->link_id[j]] = L->link_lambda[j];
    else
      for (int32_t j = lo; j < hi; j++) L->link_lambda[j] = c->lambda[L->link_id[j]];
  }
}

/* The iterations of vs_relax_jacobi, on the team (parallel) or, outside
 * any parallel region, on this thread alone: the worksharing constructs
 * below then bind to no team and cost nothing, where a parallel region of
 * one thread costs ~1.4 us a step (libgomp's team and barrier). */
static void jacobi_iterations(const vs_model *m, vs_state *s, const vs_solve_ctx *c, int parallel,
                              int wave, int whole) {
  const vs_jacobi_layout *L = c->jacobi;
  vs_solver_scratch *const w = s->scratch;
  if (whole) wave_stages(m, c, &w->jacobi, 0, m->iterations * (int64_t)m->n_colors);
  for (int64_t it = 0; it < m->iterations && !whole; it++) {
    if (wave) wave_stages(m, c, &w->jacobi, it * (int64_t)m->n_colors, m->n_colors);
    for (int32_t col = 0; col < m->n_colors && !wave; col++) {
      if (col == m->priv->color_overflow) {
        /* may share particles: build order, one thread */
#pragma omp single
        for (int32_t j = m->priv->color_start[col]; j < m->priv->color_start[col + 1]; j++)
          vs_project_constraint(c, m->priv->color_order[j]);
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
          vs_collide_particle(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_contact, w->mesh_on, i);
      } else {
#pragma omp single
        for (int32_t i = 0; i < m->n_particles; i++)
          vs_collide_particle(m, s->xprev, s->x, w->contact, w->contact_collider, w->mesh_contact, w->mesh_on, i);
      }
    }
  }
}

void vs_relax_jacobi(const vs_model *m, vs_state *s, const vs_solve_ctx *c) {
  if (c->xpbd) link_lambda_copy(m, c, 0);
  const vs_jacobi_layout *L = c->jacobi;
  const int threads = s->threads > 0 ? s->threads : 1;
  const int parallel = threads > 1 && (m->n_dist >= VS_PAR_BLOCKS * VS_JBLOCK ||
                                       m->n_particles >= VS_PAR_BLOCKS * VS_JBLOCK);
  const int wave = L->wave && L->wave_ok;
  /* without contacts or colliders between them, the iterations' stages run as one wavefront */
  const int whole = wave && !m->particle_collisions && m->n_colliders == 0;
#ifdef _OPENMP
  if (parallel) {
#pragma omp parallel num_threads(threads)
    jacobi_iterations(m, s, c, parallel, wave, whole);
  } else
#endif
    jacobi_iterations(m, s, c, parallel, wave, whole);
  if (c->xpbd) link_lambda_copy(m, c, 1);
}
