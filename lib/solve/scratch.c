/* SPDX-License-Identifier: MIT */
/* scratch.c: the solver's work arrays, owned by a vs_state (state->scratch).
 * Everything is allocated here, once, so that the step never allocates:
 * the collider contacts, the particle contacts and their spatial hash, and
 * the coloured-Jacobi layout of the distance links. */
#include <stdlib.h>
#include <string.h>

#include "solve/collide_mesh.h"
#include "solve/kernel_jacobi.h"
#include "solve/solve.h"
#include "solve/rigid/rigid.h"

/* X(name, type, count) over model m and scratch w: every array of the scratch. */
#define VS_SCRATCH_FIELDS(X)                                          \
  X(contact, double, 4 * (size_t)m->n_particles)                      \
  X(contact_collider, int32_t, (size_t)m->n_particles)                \
  X(vpre, double, 3 * (size_t)m->n_particles)                         \
  X(aero, double, m->aero ? 4 * (size_t)m->n_particles : 0)           \
  X(aero_tri, double, m->aero ? 3 * (size_t)m->n_triangles : 0)       \
  X(mesh_contact, vs_mesh_plane, (size_t)m->n_mesh_colliders * (size_t)m->n_particles) \
  X(mesh_ball, vs_mesh_ball, (size_t)m->n_mesh_colliders * (size_t)m->n_particles) \
  X(mesh_on, uint8_t, (size_t)m->n_mesh_colliders * (size_t)m->n_particles) \
  X(pc_pairs, int32_t, 2 * (size_t)w->pc_cap)                         \
  X(pc_color, int32_t, (size_t)w->pc_cap)                             \
  X(pc_order, int32_t, (size_t)w->pc_cap)                             \
  X(pc_key, double, (size_t)w->pc_cap)                                \
  X(supported, uint8_t, contacts ? (size_t)m->n_particles : 0)        \
  X(pc_tmp, int32_t, 2 * (size_t)w->pc_cap)                           \
  X(pc_mask, uint64_t, contacts ? (size_t)m->n_particles : 0)         \
  X(hash_start, int32_t, contacts ? (size_t)w->hash_size + 1 : 0)     \
  X(hash_fill, int32_t, (size_t)w->hash_size)                         \
  X(hash_items, int32_t, contacts ? (size_t)m->n_particles : 0)       \
  X(pcell, int32_t, contacts ? 3 * (size_t)m->n_particles : 0)        \
  X(big, int32_t, contacts ? (size_t)m->n_particles : 0)              \
  X(jacobi.link_ab, int32_t, jacobi ? 2 * (size_t)m->n_dist : 0)      \
  X(jacobi.link_rest, double, jacobi ? (size_t)m->n_dist : 0)         \
  X(jacobi.link_kw, double, jacobi ? (size_t)m->n_dist : 0)           \
  X(jacobi.link_compl, double, jacobi ? (size_t)m->n_dist : 0)        \
  X(jacobi.link_wsum, double, jacobi ? (size_t)m->n_dist : 0)         \
  X(jacobi.link_index, int32_t, jacobi ? (size_t)m->n_dist : 0)       \
  X(jacobi.link_id, int32_t, jacobi ? (size_t)m->n_dist : 0)          \
  X(jacobi.link_lambda, double, jacobi ? (size_t)m->n_dist : 0)       \
  X(jacobi.color_link_start, int32_t, jacobi ? (size_t)m->n_colors + 1 : 0) \
  X(jacobi.color_two_sided, int32_t, jacobi ? (size_t)m->n_colors : 0) \
  X(jacobi.other_id, int32_t, jacobi ? (size_t)(m->n_constraints - m->n_dist) : 0) \
  X(jacobi.color_other_start, int32_t, jacobi ? (size_t)m->n_colors + 1 : 0) \
  X(jacobi.link_key, int32_t, jacobi ? (size_t)m->n_dist : 0)     \
  X(jacobi.link_shape, uint8_t, jacobi ? (size_t)m->n_dist : 0)      \
  X(jacobi.color_span, int32_t, jacobi ? (size_t)m->n_colors : 0)

void vs_solver_scratch_free(vs_solver_scratch *w) {
  if (!w) return;
#define VS_SCRATCH_FREE(name, type, count) vs_free(w->name);
  VS_SCRATCH_FIELDS(VS_SCRATCH_FREE)
#undef VS_SCRATCH_FREE
  vs_rwork_free(w->rigid);
  vs_free(w);
}

/* One colour's two-sided links [lo, hi) in key order, ties in build order
 * (the order inside a colour changes no bit: its links share no movable
 * particle).  Returns 0 when out of memory. */
typedef struct { int32_t key, j; } key_pos;

static int cmp_key_pos(const void *pa, const void *pb) {
  const key_pos *a = pa, *b = pb;
  return a->key != b->key ? (a->key < b->key ? -1 : 1) : (a->j > b->j) - (a->j < b->j);
}

#define PERMUTE(arr, type, width)                                                   \
  do {                                                                              \
    type *t_ = tmp;                                                                 \
    for (int32_t k = 0; k < n; k++)                                                 \
      for (int d = 0; d < (width); d++) t_[(width) * k + d] = L->arr[(width) * (size_t)kp[k].j + d]; \
    memcpy(L->arr + (width) * (size_t)lo, t_, (size_t)n * (width) * sizeof(type));   \
  } while (0)

static int sort_by_key(vs_jacobi_layout *L, int32_t lo, int32_t hi) {
  const int32_t n = hi - lo;
  int sorted = 1;
  for (int32_t j = lo + 1; j < hi && sorted; j++) sorted = L->link_key[j - 1] <= L->link_key[j];
  if (sorted) return 1;
  key_pos *kp = vs_calloc((size_t)n, sizeof *kp);
  void *tmp = vs_calloc((size_t)n, 2 * sizeof(double));
  if (!kp || !tmp) {
    vs_free(kp);
    vs_free(tmp);
    return 0;
  }
  for (int32_t k = 0; k < n; k++) kp[k] = (key_pos){L->link_key[lo + k], lo + k};
  qsort(kp, (size_t)n, sizeof *kp, cmp_key_pos);
  PERMUTE(link_ab, int32_t, 2);
  PERMUTE(link_rest, double, 1);
  PERMUTE(link_kw, double, 1);
  PERMUTE(link_compl, double, 1);
  PERMUTE(link_wsum, double, 1);
  PERMUTE(link_index, int32_t, 1);
  PERMUTE(link_id, int32_t, 1);
  PERMUTE(link_key, int32_t, 1);
  vs_free(kp);
  vs_free(tmp);
  return 1;
}
#undef PERMUTE

/* The wavefront schedule's data (relax_jacobi.c): keys, each colour's
 * two-sided links sorted by key, the largest span, and whether every colour
 * is two-sided links only.  Returns 0 when out of memory. */
static int wave_layout(const vs_model *m, vs_jacobi_layout *L) {
  const int32_t nc = m->n_colors;
  int ok = m->priv->color_overflow < 0;
  int32_t span = 0, best = -1;
  for (int32_t c = 0; c < nc; c++) {
    const int32_t lo = L->color_link_start[c], mid = lo + L->color_two_sided[c];
    if (mid != L->color_link_start[c + 1] || L->color_other_start[c] != L->color_other_start[c + 1]) ok = 0;
    int32_t cspan = 0;
    for (int32_t j = lo; j < mid; j++) {
      const int32_t a = L->link_ab[2 * j], b = L->link_ab[2 * j + 1];
      L->link_key[j] = a < b ? a : b;
      if ((a < b ? b - a : a - b) > cspan) cspan = a < b ? b - a : a - b;
    }
    L->color_span[c] = cspan;
    if (cspan > span) span = cspan;
    if (!sort_by_key(L, lo, mid)) return 0;
    for (int32_t j = lo; j + VS_JGROUP <= mid; j++) L->link_shape[j] = (uint8_t)vs_jacobi_shape(L->link_ab + 2 * j);
    if (best < 0 || L->color_two_sided[c] > L->color_two_sided[best]) best = c;
  }
  L->wave_span = span;
  L->wave_color = best;
  L->wave_ok = ok && nc > 0;
  L->wave = 1;
  L->wave_seam_div = 32;
  L->wave_share = 0.5;
  L->wave_share_fixed = 0.0;
  return 1;
}

/* Lay the distance links out colour by colour (SoA) for the Jacobi kernel,
 * two-sided links first inside each colour so that the kernel's common case
 * has no branch on the side; the other kinds get an id list per colour. */
static void jacobi_layout(const vs_model *m, vs_jacobi_layout *L) {
  const int32_t nc = m->n_colors;
  int32_t j = 0, o = 0;
  for (int32_t c = 0; c < nc; c++) {
    L->color_link_start[c] = j;
    L->color_other_start[c] = o;
    const int32_t *ids = m->priv->color_order + m->priv->color_start[c];
    const int32_t cnt = m->priv->color_start[c + 1] - m->priv->color_start[c];
    for (int pass = 0; pass < 2; pass++) {
      for (int32_t k = 0; k < cnt; k++) {
        const int32_t id = ids[k];
        if (m->con_kind[id] != VS_KIND_DISTANCE) {
          if (pass == 0) L->other_id[o++] = id;
          continue;
        }
        const int32_t i = m->con_index[id];
        if ((m->dist_side[i] == VS_SIDE_EQUAL) != (pass == 0)) continue;
        const int32_t a = m->dist_ab[2 * i], b = m->dist_ab[2 * i + 1];
        const double wsum = m->x0[4 * (size_t)a + 3] + m->x0[4 * (size_t)b + 3];
        L->link_ab[2 * j] = a;
        L->link_ab[2 * j + 1] = b;
        L->link_rest[j] = m->dist_rest[i];
        L->link_kw[j] = m->priv->dist_kw[i];
        L->link_compl[j] = m->dist_compl[i];
        L->link_wsum[j] = wsum;
        L->link_index[j] = i;
        L->link_id[j] = id;
        j++;
      }
      if (pass == 0) L->color_two_sided[c] = j - L->color_link_start[c];
    }
  }
  L->color_link_start[nc] = j;
  L->color_other_start[nc] = o;
}

/* The Jacobi layout's arrays, which the kernels read as vectors, start on a
 * cache line; the rest come from vs_calloc (a large untouched block costs no
 * page until used). */
static void *scratch_alloc(const char *name, size_t n, size_t size) {
  return strncmp(name, "jacobi.", 7) == 0 ? vs_calloc_aligned(n, size) : vs_calloc(n, size);
}

vs_status vs_solver_scratch_create(const vs_model *m, vs_solver_scratch **out, vs_error *err) {
  *out = NULL;
  vs_jacobi_path path;
  const vs_status ks = vs_jacobi_path_select(&path, err);
  if (ks != VS_OK) return ks;
  vs_solver_scratch *w = vs_calloc(1, sizeof *w);
  if (!w) return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory allocating the solver's scratch");
  const int contacts = m->particle_collisions && m->n_colliding > 0;
  const int jacobi = m->relaxation == VS_RELAX_JACOBI;
  if (contacts) {
    const size_t cap = (size_t)VS_CONTACTS_PER_PARTICLE * (size_t)m->n_colliding;
    w->pc_cap = cap > INT32_MAX ? INT32_MAX : (int32_t)cap;
    int32_t hs = 64;
    while (hs < 2 * m->n_colliding && hs < (1 << 30)) hs *= 2;
    w->hash_size = hs;
  }
  int ok = 1;
#define VS_SCRATCH_ALLOC(name, type, count) ok &= (w->name = scratch_alloc(#name, (count) + 1, sizeof(type))) != NULL;
  VS_SCRATCH_FIELDS(VS_SCRATCH_ALLOC)
#undef VS_SCRATCH_ALLOC
  if (!ok) {
    vs_solver_scratch_free(w);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0,
                        "out of memory allocating the solver's scratch for %d particles", m->n_particles);
  }
  for (int32_t i = 0; i < m->n_particles; i++) w->contact_collider[i] = -1;
  if (jacobi) {
    jacobi_layout(m, &w->jacobi);
    if (!wave_layout(m, &w->jacobi)) {
      vs_solver_scratch_free(w);
      return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0,
                          "out of memory laying out %d links for the Jacobi relaxation", m->n_dist);
    }
  }
  if (contacts) vs_contacts_layout(m, w);
  w->jacobi.block = vs_jacobi_path_fn(path);
  w->jacobi.path = (int)path;
  if (m->priv->rigid && vs_rwork_create(m->priv->rigid, &w->rigid) != VS_OK) {
    vs_solver_scratch_free(w);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0,
                        "out of memory allocating the rigid solver's work for %d bodies", m->n_rigid);
  }
  *out = w;
  return VS_OK;
}

_Static_assert(sizeof(vs_mesh_plane) + sizeof(vs_mesh_ball) == 80,
               "model/estimate.c counts 80 bytes a mesh contact plane");
