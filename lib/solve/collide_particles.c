/* SPDX-License-Identifier: MIT */
/* collide_particles.c: particle-particle contacts (world.particle_collisions).
 *
 * Every step, after prediction, the particles with a radius are put in a
 * spatial hash whose cells are 3 r_max wide; each particle looks in its 27
 * neighbouring cells for partners j > i closer than 1.5 (r_i + r_j) that are
 * not joined by a link.  Those pairs become one-sided distance constraints
 * |x_i - x_j| >= r_i + r_j for the step's sweeps (Macklin et al. 2014,
 * "Unified particle physics", §5: the margin lets the contact act when a
 * later iteration pushes the pair together).  Everything is built in index
 * order, sequentially, so the contact list is the same on every run and for
 * any thread count.  The contacts are then ordered bottom-up along gravity
 * (by the height of the lower particle): Gauss-Seidel then carries the floor's
 * push up through a whole stack in one sweep, where index order needs about
 * one sweep per layer (the idea behind shock propagation, Guendelman et al.
 * 2003, without its mass changes).  For coloured Jacobi the contacts are coloured greedily
 * each step (64-bit masks per particle, an overflow colour solved on one
 * thread), the same scheme as the model's constraints.
 *
 * No allocation: the state holds the hash and a contact list of fixed
 * capacity (VS_CONTACTS_PER_PARTICLE per colliding particle); a step that
 * finds more contacts fails with a clear message. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "solve/solve.h"

static inline uint32_t cell_hash(int32_t x, int32_t y, int32_t z) {
  /* Teschner et al. 2003, "Optimized spatial hashing for collision detection" */
  return ((uint32_t)x * 73856093u) ^ ((uint32_t)y * 19349663u) ^ ((uint32_t)z * 83492791u);
}

static inline int32_t cell_coord(double x, double inv) {
  double c = floor(x * inv);
  if (c > 1e9) c = 1e9;
  if (!(c >= -1e9)) c = -1e9; /* NaN too: casting it to int is undefined */
  return (int32_t)c;
}

static int linked(const vs_model *m, int32_t i, int32_t j) {
  int32_t lo = m->priv->adj_start[i], hi = m->priv->adj_start[i + 1];
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (m->priv->adj[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->priv->adj_start[i + 1] && m->priv->adj[lo] == j;
}

/* Order the contacts by (height of the lower particle, i, j): a bottom-up
 * merge sort into preallocated scratch (no allocation, stable, the same
 * order on every machine). */
static int before(const double *key, const int32_t *pr, int32_t a, int32_t b) {
  if (key[a] != key[b]) return key[a] < key[b];
  if (pr[2 * (size_t)a] != pr[2 * (size_t)b]) return pr[2 * (size_t)a] < pr[2 * (size_t)b];
  return pr[2 * (size_t)a + 1] < pr[2 * (size_t)b + 1];
}

static void sort_bottom_up(const vs_model *m, vs_state *s) {
  vs_solver_scratch *const w = s->scratch;
  const int32_t n = w->pc_n;
  const double *g = m->gravity;
  const double glen = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const double up[3] = {glen > 0 ? -g[0] / glen : 0, glen > 0 ? -g[1] / glen : 1,
                        glen > 0 ? -g[2] / glen : 0};
  int32_t *idx = w->pc_order, *tmp = w->pc_color;
  for (int32_t k = 0; k < n; k++) {
    const double *a = s->x + 4 * (size_t)w->pc_pairs[2 * (size_t)k];
    const double *b = s->x + 4 * (size_t)w->pc_pairs[2 * (size_t)k + 1];
    const double ha = a[0] * up[0] + a[1] * up[1] + a[2] * up[2];
    const double hb = b[0] * up[0] + b[1] * up[1] + b[2] * up[2];
    w->pc_key[k] = ha < hb ? ha : hb;
    idx[k] = k;
  }
  for (int32_t width = 1; width < n; width *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * width) {
      int32_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int32_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        tmp[o++] = before(w->pc_key, w->pc_pairs, idx[j], idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[o++] = idx[i++];
      while (j < hi) tmp[o++] = idx[j++];
    }
    int32_t *t = idx;
    idx = tmp;
    tmp = t;
  }
  for (int32_t k = 0; k < n; k++) {
    w->pc_tmp[2 * (size_t)k] = w->pc_pairs[2 * (size_t)idx[k]];
    w->pc_tmp[2 * (size_t)k + 1] = w->pc_pairs[2 * (size_t)idx[k] + 1];
  }
  memcpy(w->pc_pairs, w->pc_tmp, 2 * (size_t)n * sizeof(int32_t));
}

/* Cells 3 r wide hold every close pair of particles of radius <= r in 27
 * neighbouring cells, but one particle much larger than the rest would make
 * every cell that large and the search quadratic (one ball of radius 50
 * among 40,000 of 0.05 made a step 14 times slower).  So r is the radius
 * of the largest particles but the VS_BIG_PARTICLES largest (at most 1 %
 * of them): those few are "big", kept out of the cells and tested against
 * every particle.  With equal radii nothing is big and the cells are as
 * before; either way the contacts are the same pairs, and their order is
 * set by the sort below, not by the search: the same bits. */
#define VS_BIG_PARTICLES 64

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void vs_contacts_layout(const vs_model *m, vs_solver_scratch *w) {
  int32_t n = 0;
  double *r = w->pc_key; /* scratch: pc_cap >= n_colliding */
  for (int32_t i = 0; i < m->n_particles; i++)
    if (m->radius[i] > 0.0) r[n++] = m->radius[i];
  w->n_big = 0;
  w->cell_radius = m->radius_max;
  if (n == 0) return;
  qsort(r, (size_t)n, sizeof *r, cmp_double);
  int32_t nbig = n / 100 < VS_BIG_PARTICLES ? n / 100 : VS_BIG_PARTICLES;
  double rc = r[n - 1 - nbig];
  if (rc < r[n - 1]) {
    w->cell_radius = rc;
    for (int32_t i = 0; i < m->n_particles; i++)
      if (m->radius[i] > rc) w->big[w->n_big++] = i;
  }
}

/* Pair (i, j) if closer than 1.5 (r_i + r_j), not both pinned, not linked. */
static inline int close_pair(const vs_model *m, vs_solver_scratch *w, const double *x, int32_t i,
                             int32_t j) {
  w->pc_tests++;
  const vs_body_info *bi = &m->bodies[m->body[i]], *bj = &m->bodies[m->body[j]];
  if (!(bi->group_bits & bj->mask) || !(bj->group_bits & bi->mask)) return 0;
  const double *pi = x + 4 * (size_t)i, *pj = x + 4 * (size_t)j;
  if (pi[3] == 0.0 && pj[3] == 0.0) return 0;
  const double lim = 1.5 * (m->radius[i] + m->radius[j]);
  const double ex = pi[0] - pj[0], ey = pi[1] - pj[1], ez = pi[2] - pj[2];
  if (ex * ex + ey * ey + ez * ez >= lim * lim) return 0;
  return !linked(m, i, j);
}

static vs_status add_pair(vs_state *s, int32_t i, int32_t j, vs_error *err) {
  vs_solver_scratch *const w = s->scratch;
  if (w->pc_n == w->pc_cap)
    return vs_error_set(err, VS_ERR_NUMERIC, NULL, 0, 0,
                        "frame %lld: more than %d particle contacts (%d per colliding "
                        "particle); the particles are packed far closer than their radii",
                        (long long)s->frame, w->pc_cap, VS_CONTACTS_PER_PARTICLE);
  w->pc_pairs[2 * (size_t)w->pc_n] = i;
  w->pc_pairs[2 * (size_t)w->pc_n + 1] = j;
  w->pc_n++;
  return VS_OK;
}

vs_status vs_contacts_find(const vs_model *m, vs_state *s, vs_error *err) {
  vs_solver_scratch *const w = s->scratch;
  w->pc_n = 0;
  w->pc_tests = 0;
  if (!m->particle_collisions || m->radius_max <= 0.0) return VS_OK;
  const int32_t n = m->n_particles;
  const uint32_t mask = (uint32_t)w->hash_size - 1;
  /* cells of at least 1e-12 m: a subnormal radius (1e-310) would make inv
   * infinite and 0 * inv NaN; larger cells still hold every close pair */
  double inv = 1.0 / (3.0 * w->cell_radius);
  if (!(inv <= 1e12)) inv = 1e12;
  const double *x = s->x;
  int32_t *start = w->hash_start, *items = w->hash_items, *pc = w->pcell;
  memset(start, 0, ((size_t)w->hash_size + 1) * sizeof *start);
  for (int32_t i = 0; i < n; i++) {
    const double *p = x + 4 * (size_t)i;
    if (m->radius[i] <= 0.0 || m->radius[i] > w->cell_radius || !isfinite(p[0]) ||
        !isfinite(p[1]) || !isfinite(p[2])) { /* big ones: below */
      pc[3 * (size_t)i] = INT32_MIN;
      continue;
    }
    int32_t cx = cell_coord(p[0], inv), cy = cell_coord(p[1], inv), cz = cell_coord(p[2], inv);
    pc[3 * (size_t)i] = cx, pc[3 * (size_t)i + 1] = cy, pc[3 * (size_t)i + 2] = cz;
    start[(cell_hash(cx, cy, cz) & mask) + 1]++;
  }
  for (int32_t h = 0; h < w->hash_size; h++) start[h + 1] += start[h];
  /* fill in index order: bucket contents ascending, the same every run */
  int32_t *fill = w->hash_fill;
  memcpy(fill, start, (size_t)w->hash_size * sizeof *fill);
  for (int32_t i = 0; i < n; i++) {
    const int32_t *c = pc + 3 * (size_t)i;
    if (c[0] == INT32_MIN) continue;
    items[fill[cell_hash(c[0], c[1], c[2]) & mask]++] = i;
  }
  for (int32_t i = 0; i < n; i++) {
    const int32_t *c = pc + 3 * (size_t)i;
    if (c[0] == INT32_MIN) continue;
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const int32_t qx = c[0] + dx, qy = c[1] + dy, qz = c[2] + dz;
          const uint32_t h = cell_hash(qx, qy, qz) & mask;
          for (int32_t k = start[h]; k < start[h + 1]; k++) {
            const int32_t j = items[k];
            if (j <= i) continue;
            const int32_t *cj = pc + 3 * (size_t)j;
            if (cj[0] != qx || cj[1] != qy || cj[2] != qz) continue; /* another cell, same bucket */
            if (close_pair(m, w, x, i, j) && add_pair(s, i, j, err) != VS_OK) return err->code;
          }
        }
  }
  /* the big particles against every other (a big pair once) */
  for (int32_t b = 0; b < w->n_big; b++) {
    const int32_t i = w->big[b];
    const double *pi = x + 4 * (size_t)i;
    if (!isfinite(pi[0]) || !isfinite(pi[1]) || !isfinite(pi[2])) continue;
    for (int32_t j = 0; j < n; j++) {
      if (j == i || m->radius[j] <= 0.0) continue;
      if (m->radius[j] > w->cell_radius && j < i) continue; /* found from j */
      const double *pj = x + 4 * (size_t)j;
      if (!isfinite(pj[0]) || !isfinite(pj[1]) || !isfinite(pj[2])) continue;
      const int32_t lo = i < j ? i : j, hi = i < j ? j : i;
      if (close_pair(m, w, x, lo, hi) && add_pair(s, lo, hi, err) != VS_OK) return err->code;
    }
  }
  sort_bottom_up(m, s);
  if (m->relaxation == VS_RELAX_JACOBI) vs_contacts_color(m, s);
  return VS_OK;
}

/* Greedy colouring of this step's contacts, as coloring.c does for the model. */
void vs_contacts_color(const vs_model *m, vs_state *s) {
  vs_solver_scratch *const w = s->scratch;
  uint64_t *used = w->pc_mask;
  int32_t count[66] = {0};
  int32_t ncol = 0;
  for (int32_t k = 0; k < w->pc_n; k++) {
    const int32_t i = w->pc_pairs[2 * (size_t)k], j = w->pc_pairs[2 * (size_t)k + 1];
    const int mi = s->x[4 * (size_t)i + 3] > 0.0, mj = s->x[4 * (size_t)j + 3] > 0.0;
    const uint64_t taken = (mi ? used[i] : 0) | (mj ? used[j] : 0);
    const int32_t c = ~taken == 0 ? 64 : __builtin_ctzll(~taken);
    if (c < 64) {
      if (mi) used[i] |= 1ull << c;
      if (mj) used[j] |= 1ull << c;
    }
    w->pc_color[k] = c;
    count[c]++;
    if (c + 1 > ncol) ncol = c + 1;
  }
  for (int32_t k = 0; k < w->pc_n; k++) /* clear only what was set */
    used[w->pc_pairs[2 * (size_t)k]] = used[w->pc_pairs[2 * (size_t)k + 1]] = 0;
  w->pc_ncolors = ncol;
  w->pc_start[0] = 0;
  for (int32_t c = 0; c < ncol; c++) w->pc_start[c + 1] = w->pc_start[c] + count[c];
  int32_t fill[66];
  memcpy(fill, w->pc_start, sizeof fill);
  for (int32_t k = 0; k < w->pc_n; k++) w->pc_order[fill[w->pc_color[k]]++] = k;
}

/* Shock propagation (Guendelman, Bridson & Fedkiw 2003, §7): at the start of
 * each sweep a particle is supported when a collider pushed it this step. */
void vs_contacts_sweep_start(const vs_model *m, vs_state *s) {
  vs_solver_scratch *const w = s->scratch;
  if (!m->shock_propagation || w->pc_n == 0) return;
  for (int32_t i = 0; i < m->n_particles; i++) w->supported[i] = w->contact_collider[i] >= 0;
}

/* Contact k: |x_i - x_j| >= r_i + r_j, mass-weighted like a one-sided link.
 * Coincident centres are separated along +y, the same way every time.  With
 * shock propagation, when exactly the lower particle of the pair (by the sort
 * key's height) is supported, it does not move and the upper one takes the
 * whole correction and becomes supported: in the bottom-up order one sweep
 * carries the support through a whole stack. */
void vs_contact_project(const vs_model *m, vs_state *s, int32_t k) {
  vs_solver_scratch *const w = s->scratch;
  const int32_t *pairs = w->pc_pairs;
  const int32_t i = pairs[2 * (size_t)k], j = pairs[2 * (size_t)k + 1];
  double *pi = s->x + 4 * (size_t)i, *pj = s->x + 4 * (size_t)j;
  double wi = pi[3], wj = pj[3];
  int32_t upper = -1;
  if (m->shock_propagation) {
    const double *g = m->gravity;
    const double hi = -(g[0] * pi[0] + g[1] * pi[1] + g[2] * pi[2]);
    const double hj = -(g[0] * pj[0] + g[1] * pj[1] + g[2] * pj[2]);
    const int32_t lo = hi <= hj ? i : j;
    upper = lo == i ? j : i;
    if (w->supported[lo] && !w->supported[upper]) {
      if (lo == i) wi = 0.0;
      else wj = 0.0;
    } else {
      upper = -1;
    }
  }
  const double wsum = wi + wj;
  double dx = pi[0] - pj[0], dy = pi[1] - pj[1], dz = pi[2] - pj[2];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  const double C = len - (m->radius[i] + m->radius[j]);
  if (C >= 0.0 || wsum == 0.0) return;
  if (len == 0.0) dx = 0.0, dy = 1.0, dz = 0.0, len = 1.0;
  const double sc = -C * m->omega / (wsum * len);
  pi[0] += wi * sc * dx, pi[1] += wi * sc * dy, pi[2] += wi * sc * dz;
  pj[0] -= wj * sc * dx, pj[1] -= wj * sc * dy, pj[2] -= wj * sc * dz;
  if (upper >= 0) w->supported[upper] = 1;
  if (m->particle_friction > 0.0) {
    /* Position-based Coulomb friction (Macklin et al. 2014, §6.1): the
     * pair's relative tangential displacement over the step is removed, up
     * to mu times the normal correction just applied. */
    const double *qi = s->xprev + 4 * (size_t)i, *qj = s->xprev + 4 * (size_t)j;
    const double nx = dx / len, ny = dy / len, nz = dz / len;
    double rx = (pi[0] - qi[0]) - (pj[0] - qj[0]);
    double ry = (pi[1] - qi[1]) - (pj[1] - qj[1]);
    double rz = (pi[2] - qi[2]) - (pj[2] - qj[2]);
    const double rn = rx * nx + ry * ny + rz * nz;
    rx -= rn * nx, ry -= rn * ny, rz -= rn * nz;
    const double rt = sqrt(rx * rx + ry * ry + rz * rz), limit = m->particle_friction * -C;
    if (rt > 0.0) {
      const double f = (rt <= limit ? 1.0 : limit / rt) / wsum;
      pi[0] -= wi * f * rx, pi[1] -= wi * f * ry, pi[2] -= wi * f * rz;
      pj[0] += wj * f * rx, pj[1] += wj * f * ry, pj[2] += wj * f * rz;
    }
  }
}

double vs_contacts_overlap(const vs_model *m, const vs_state *s) {
  const vs_solver_scratch *const w = s->scratch;
  double worst = 0.0;
  for (int32_t k = 0; k < w->pc_n; k++) {
    const int32_t i = w->pc_pairs[2 * (size_t)k], j = w->pc_pairs[2 * (size_t)k + 1];
    const double *pi = s->x + 4 * (size_t)i, *pj = s->x + 4 * (size_t)j;
    const double dx = pi[0] - pj[0], dy = pi[1] - pj[1], dz = pi[2] - pj[2];
    const double o = m->radius[i] + m->radius[j] - sqrt(dx * dx + dy * dy + dz * dz);
    if (o > worst) worst = o;
  }
  return worst;
}
