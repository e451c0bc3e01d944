/* model.c: compile a vs_scene into the flat, immutable vs_model.
 *
 * Two passes: first every body reports its exact particle and link counts
 * (vs_body_count) so that the documented limits are checked before anything
 * is allocated; then the arrays are allocated once and the generators fill
 * them.  Explicit constraints follow, in file order, then the colouring. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/internal.h"

static const char *const kind_names[VS_KIND_COUNT] = {"distance", "pin", "angle"};

const char *vs_kind_name(vs_kind kind) {
  return (kind >= 0 && kind < VS_KIND_COUNT) ? kind_names[kind] : "unknown";
}

void vs_model_free(vs_model *m) {
  if (!m) return;
  vs_free(m->x0);
  vs_free(m->v0);
  vs_free(m->mass);
  vs_free(m->radius);
  vs_free(m->body);
  vs_free(m->bodies);
  vs_free(m->dist_ab);
  vs_free(m->dist_rest);
  vs_free(m->dist_stiff);
  vs_free(m->dist_compl);
  vs_free(m->dist_tear);
  vs_free(m->dist_side);
  vs_free(m->dist_role);
  vs_free(m->dist_kw);
  vs_free(m->pin_p);
  vs_free(m->pin_at);
  vs_free(m->pin_key0);
  vs_free(m->pin_nkeys);
  vs_free(m->pin_keys);
  vs_free(m->angle_abc);
  vs_free(m->angle_min);
  vs_free(m->angle_max);
  vs_free(m->angle_stiff);
  vs_free(m->angle_compl);
  vs_free(m->con_kind);
  vs_free(m->con_index);
  vs_free(m->blocks);
  vs_free(m->colliders);
  vs_free(m->triangles);
  vs_free(m->color);
  vs_free(m->color_start);
  vs_free(m->color_order);
  vs_free(m->jd_ab);
  vs_free(m->jd_rest);
  vs_free(m->jd_kw);
  vs_free(m->jd_compl);
  vs_free(m->jd_wsum);
  vs_free(m->jd_id);
  vs_free(m->jd_slot);
  vs_free(m->jd_start);
  vs_free(m->jd_two_sided);
  vs_free(m->jo_ids);
  vs_free(m->jo_start);
  vs_free(m->adj_start);
  vs_free(m->adj);
  vs_free(m);
}

/* ---- builder primitives used by the body generators ---- */

int32_t vs_builder_particle(vs_builder *bld, const double x[3], const double v[3],
                            double mass, double radius, int32_t body) {
  vs_model *m = bld->m;
  int32_t i = bld->np++;
  m->x0[4 * i + 0] = x[0];
  m->x0[4 * i + 1] = x[1];
  m->x0[4 * i + 2] = x[2];
  m->x0[4 * i + 3] = 1.0 / mass;
  for (int k = 0; k < 3; k++) m->v0[3 * i + k] = v ? v[k] : 0.0;
  m->mass[i] = mass;
  m->radius[i] = radius;
  m->body[i] = body;
  return i;
}

void vs_builder_pin(vs_builder *bld, int32_t p) {
  vs_model *m = bld->m;
  m->x0[4 * p + 3] = 0.0;
  m->mass[p] = INFINITY;
  for (int k = 0; k < 3; k++) m->v0[3 * p + k] = 0.0;
}

static double dist3(const double *a, const double *b) {
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

void vs_builder_link(vs_builder *bld, int32_t a, int32_t b, const vs_link_desc *ld,
                     vs_link_role role, double tear, uint8_t side, double rest) {
  vs_model *m = bld->m;
  int32_t i = bld->nd++;
  m->dist_ab[2 * i + 0] = a;
  m->dist_ab[2 * i + 1] = b;
  m->dist_rest[i] = rest >= 0 ? rest : dist3(&m->x0[4 * a], &m->x0[4 * b]);
  m->dist_stiff[i] = ld ? ld->stiffness : 1.0;
  m->dist_compl[i] = ld ? ld->compliance : 0.0;
  m->dist_tear[i] = tear > 0 ? tear * m->dist_rest[i] : 0.0;
  m->dist_side[i] = side;
  m->dist_role[i] = (uint8_t)role;
}

/* ---- particle references ---- */

static int parse_int(const char *s, const char *end, int64_t *out) {
  if (s == end) return 0;
  int64_t v = 0;
  for (const char *p = s; p < end; p++) {
    if (*p < '0' || *p > '9') return 0;
    v = v * 10 + (*p - '0');
    if (v > INT32_MAX) return 0;
  }
  *out = v;
  return 1;
}

vs_status vs_model_resolve_ref(const vs_model *m, const char *text, int32_t *index,
                               char *why, size_t why_size) {
  const char *colon = strrchr(text, ':');
  int64_t v;
  if (!colon) {
    if (!parse_int(text, text + strlen(text), &v)) {
      snprintf(why, why_size, "expected NAME:INDEX, NAME:I,J or a particle index, got '%s'", text);
      return VS_ERR_SCENE;
    }
    if (v >= m->n_particles) {
      snprintf(why, why_size, "particle index %lld out of range (the scene has %d particles)",
               (long long)v, m->n_particles);
      return VS_ERR_SCENE;
    }
    *index = (int32_t)v;
    return VS_OK;
  }
  size_t nlen = (size_t)(colon - text);
  const vs_body_info *body = NULL;
  for (int32_t b = 0; b < m->n_bodies; b++)
    if (strlen(m->bodies[b].name) == nlen && memcmp(m->bodies[b].name, text, nlen) == 0) {
      body = &m->bodies[b];
      break;
    }
  if (!body) {
    snprintf(why, why_size, "no body named '%.*s'", (int)nlen, text);
    return VS_ERR_SCENE;
  }
  /* Up to three comma-separated coordinates. */
  int64_t c[3] = {0, 0, 0};
  int nc = 0;
  const char *p = colon + 1;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    while (p < end && *p == ' ') p++;
    const char *e2 = end;
    while (e2 > p && e2[-1] == ' ') e2--;
    if (nc == 3 || !parse_int(p, e2, &c[nc])) {
      snprintf(why, why_size, "bad particle index in '%s'", text);
      return VS_ERR_SCENE;
    }
    nc++;
    if (!comma) break;
    p = comma + 1;
  }
  int64_t local;
  if (nc == 1) {
    local = c[0];
    if (local >= body->count) {
      snprintf(why, why_size, "index %lld out of range: body '%s' has %d particles",
               (long long)local, body->name, body->count);
      return VS_ERR_SCENE;
    }
  } else {
    int grid = body->nw > 0 ? 3 : (body->nu > 0 ? 2 : 0);
    if (grid != nc) {
      snprintf(why, why_size, "body '%s' takes %s, got %d coordinates", body->name,
               grid == 3 ? "I,J,K grid coordinates" : grid == 2 ? "I,J grid coordinates" : "a single index",
               nc);
      return VS_ERR_SCENE;
    }
    int64_t dims[3] = {body->nu, body->nv, body->nw};
    for (int k = 0; k < nc; k++)
      if (c[k] >= dims[k]) {
        snprintf(why, why_size, "grid coordinate %lld out of range [0, %lld) on axis %d of '%s'",
                 (long long)c[k], (long long)dims[k], k, body->name);
        return VS_ERR_SCENE;
      }
    local = c[0] + dims[0] * (c[1] + dims[1] * c[2]);
  }
  *index = body->first + (int32_t)local;
  return VS_OK;
}

void vs_model_constraint_particles(const vs_model *m, int32_t id, int32_t out[3]) {
  out[0] = out[1] = out[2] = -1;
  int32_t k = m->con_index[id];
  switch ((vs_kind)m->con_kind[id]) {
    case VS_KIND_DISTANCE:
      out[0] = m->dist_ab[2 * k];
      out[1] = m->dist_ab[2 * k + 1];
      break;
    case VS_KIND_PIN:
      out[0] = m->pin_p[k];
      break;
    case VS_KIND_ANGLE:
      for (int j = 0; j < 3; j++) out[j] = m->angle_abc[3 * k + j];
      break;
    default:
      break;
  }
}

/* ---- compile ---- */

#define ALLOC(ptr, n)                                                   \
  do {                                                                  \
    size_t n_ = (size_t)(n);                                            \
    (ptr) = vs_calloc(n_ ? n_ : 1, sizeof *(ptr));                         \
    if (!(ptr)) {                                                       \
      st = vs_error_set(err, VS_ERR_NOMEM, file, 0, 0,                  \
                        "out of memory allocating the model (%zu items)", n_); \
      goto fail;                                                        \
    }                                                                   \
  } while (0)

static vs_status ref_error(vs_error *err, const char *file, const vs_ref *r, size_t ci,
                           const char *key, const char *why) {
  return vs_error_set(err, VS_ERR_SCENE, file, r->loc.line, r->loc.column,
                      "constraints.%zu.%s: %s", ci, key, why);
}

/* Append a constraint (kind, index) to build order, merging runs into blocks. */
static void order_push(vs_model *m, vs_kind kind, int32_t index) {
  int32_t id = m->n_constraints++;
  m->con_kind[id] = (uint8_t)kind;
  m->con_index[id] = index;
  vs_block *last = m->n_blocks ? &m->blocks[m->n_blocks - 1] : NULL;
  if (last && last->kind == kind && last->start + last->count == index)
    last->count++;
  else
    m->blocks[m->n_blocks++] = (vs_block){kind, index, 1, id};
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Linked neighbours of every particle (CSR, ascending), so that particle
 * collisions can skip pairs joined by a link. */
static vs_status build_adjacency(vs_model *m, vs_error *err) {
  m->adj_start = vs_calloc((size_t)m->n_particles + 1, sizeof(int32_t));
  m->adj = vs_calloc(2 * (size_t)m->n_dist + 1, sizeof(int32_t));
  int32_t *fill = vs_calloc((size_t)m->n_particles + 1, sizeof(int32_t));
  if (!m->adj_start || !m->adj || !fill) {
    vs_free(fill);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory building link adjacency");
  }
  for (int32_t i = 0; i < m->n_dist; i++) {
    m->adj_start[m->dist_ab[2 * i] + 1]++;
    m->adj_start[m->dist_ab[2 * i + 1] + 1]++;
  }
  for (int32_t p = 0; p < m->n_particles; p++) m->adj_start[p + 1] += m->adj_start[p];
  memcpy(fill, m->adj_start, (size_t)m->n_particles * sizeof(int32_t));
  for (int32_t i = 0; i < m->n_dist; i++) {
    const int32_t a = m->dist_ab[2 * i], b = m->dist_ab[2 * i + 1];
    m->adj[fill[a]++] = b;
    m->adj[fill[b]++] = a;
  }
  for (int32_t p = 0; p < m->n_particles; p++)
    qsort(m->adj + m->adj_start[p], (size_t)(m->adj_start[p + 1] - m->adj_start[p]), sizeof(int32_t), cmp_i32);
  vs_free(fill);
  return VS_OK;
}

vs_status vs_model_build(const vs_scene *s, vs_model **out, vs_error *err) {
  *out = NULL;
  const char *file = s->file ? s->file : "<scene>";
  vs_status st = VS_OK;
  vs_model *m = vs_calloc(1, sizeof *m);
  if (!m) return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory");

  m->dt = s->dt;
  m->substeps = s->substeps;
  m->h = s->dt / (double)s->substeps;
  m->frames = s->frames;
  m->iterations = s->iterations;
  m->integrator = s->integrator;
  m->relaxation = s->relaxation;
  m->omega = s->omega;
  m->damping = s->damping;
  m->runaway_speed = s->runaway_speed;
  m->sqrt_approximation = s->sqrt_approximation;
  m->swept = s->swept;
  m->shock_propagation = s->shock_propagation;
  m->particle_friction = s->particle_friction;
  memcpy(m->gravity, s->gravity, sizeof m->gravity);
  m->output = s->output;
  m->particle_collisions = s->particle_collisions;

  /* Pass 1: counts, limits before allocating. */
  int64_t np = 0, nd = 0, ntri = 0, npin = 0, nangle = 0, nkeys = 0;
  for (size_t b = 0; b < s->n_bodies; b++) {
    vs_body_counts c;
    if ((st = vs_body_count(&s->bodies[b], &c, file, err)) != VS_OK) goto fail;
    np += c.particles;
    nd += c.links;
    ntri += c.triangles;
    if (np > VS_MAX_PARTICLES)
      return vs_model_free(m), vs_error_set(err, VS_ERR_LIMIT, file, s->bodies[b].loc.line,
                                            s->bodies[b].loc.column,
                                            "bodies.%zu: the scene would have more than %d particles",
                                            b, VS_MAX_PARTICLES);
    if (nd > VS_MAX_CONSTRAINTS)
      return vs_model_free(m), vs_error_set(err, VS_ERR_LIMIT, file, s->bodies[b].loc.line,
                                            s->bodies[b].loc.column,
                                            "bodies.%zu: the scene would have more than %d constraints",
                                            b, VS_MAX_CONSTRAINTS);
  }
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (cd->kind == VS_CONSTRAINT_DISTANCE) nd++;
    else if (cd->kind == VS_CONSTRAINT_PIN) npin++, nkeys += (int64_t)cd->n_keys;
    else nangle++;
  }
  if (nd + npin + nangle > VS_MAX_CONSTRAINTS) {
    vs_model_free(m);
    return vs_error_set(err, VS_ERR_LIMIT, file, 0, 0, "the scene would have more than %d constraints",
                        VS_MAX_CONSTRAINTS);
  }

  /* Pass 2: allocate once. */
  int64_t ncon = nd + npin + nangle;
  ALLOC(m->x0, 4 * np);
  ALLOC(m->v0, 3 * np);
  ALLOC(m->mass, np);
  ALLOC(m->radius, np);
  ALLOC(m->body, np);
  ALLOC(m->bodies, s->n_bodies);
  ALLOC(m->dist_ab, 2 * nd);
  ALLOC(m->dist_rest, nd);
  ALLOC(m->dist_stiff, nd);
  ALLOC(m->dist_compl, nd);
  ALLOC(m->dist_tear, nd);
  ALLOC(m->dist_side, nd);
  ALLOC(m->dist_role, nd);
  ALLOC(m->dist_kw, nd);
  ALLOC(m->pin_p, npin);
  ALLOC(m->pin_at, 3 * npin);
  ALLOC(m->pin_key0, npin);
  ALLOC(m->pin_nkeys, npin);
  ALLOC(m->pin_keys, 4 * nkeys);
  ALLOC(m->angle_abc, 3 * nangle);
  ALLOC(m->angle_min, nangle);
  ALLOC(m->angle_max, nangle);
  ALLOC(m->angle_stiff, nangle);
  ALLOC(m->angle_compl, nangle);
  ALLOC(m->con_kind, ncon);
  ALLOC(m->con_index, ncon);
  ALLOC(m->blocks, ncon);
  ALLOC(m->colliders, s->n_colliders);
  ALLOC(m->triangles, 3 * ntri);

  vs_builder bld = {.m = m, .file = file};
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *bd = &s->bodies[b];
    vs_body_info *bi = &m->bodies[b];
    snprintf(bi->name, sizeof bi->name, "%s", bd->name);
    bi->kind = bd->kind;
    bi->first = bld.np;
    bi->damping_rigid = bd->damping_rigid;
    m->n_rigid_damped += bd->damping_rigid > 0.0;
    int32_t d0 = bld.nd;
    if ((st = vs_body_generate(&bld, bd, (int32_t)b, err)) != VS_OK) goto fail;
    bi->count = bld.np - bi->first;
    m->n_bodies = (int32_t)b + 1;
    m->n_particles = bld.np;
    for (int32_t i = d0; i < bld.nd; i++) order_push(m, VS_KIND_DISTANCE, i);
  }
  m->n_particles = bld.np;
  m->n_triangles = bld.ntri;

  /* Explicit pins first move their particles (so `rest: auto` sees the
   * initial configuration), then everything goes into build order. */
  int32_t kpin = 0, kkey = 0;
  char why[256];
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (cd->kind != VS_CONSTRAINT_PIN) continue;
    int32_t p;
    if (vs_model_resolve_ref(m, cd->a.text, &p, why, sizeof why) != VS_OK) {
      st = ref_error(err, file, &cd->a, c, "particle", why);
      goto fail;
    }
    m->pin_p[kpin] = p;
    m->pin_key0[kpin] = -1;
    double at[3] = {m->x0[4 * p], m->x0[4 * p + 1], m->x0[4 * p + 2]};
    if (cd->has_at) memcpy(at, cd->at, sizeof at);
    memcpy(&m->pin_at[3 * kpin], at, sizeof at);
    if (cd->n_keys > 0) {
      m->pin_key0[kpin] = kkey;
      m->pin_nkeys[kpin] = (int32_t)cd->n_keys;
      memcpy(&m->pin_keys[4 * kkey], cd->keys, 4 * cd->n_keys * sizeof(double));
      kkey += (int32_t)cd->n_keys;
    }
    m->n_pin = kpin + 1;
    vs_pin_target(m, kpin, 0.0, at);
    memcpy(&m->x0[4 * p], at, sizeof at);
    vs_builder_pin(&bld, p);
    kpin++;
  }

  kpin = 0;
  int32_t kang = 0;
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (cd->kind == VS_CONSTRAINT_PIN) {
      order_push(m, VS_KIND_PIN, kpin++);
      continue;
    }
    int32_t pa, pb, pc = -1;
    if (vs_model_resolve_ref(m, cd->a.text, &pa, why, sizeof why) != VS_OK) {
      st = ref_error(err, file, &cd->a, c, "a", why);
      goto fail;
    }
    if (vs_model_resolve_ref(m, cd->b.text, &pb, why, sizeof why) != VS_OK) {
      st = ref_error(err, file, &cd->b, c, "b", why);
      goto fail;
    }
    if (cd->kind == VS_CONSTRAINT_ANGLE &&
        vs_model_resolve_ref(m, cd->c.text, &pc, why, sizeof why) != VS_OK) {
      st = ref_error(err, file, &cd->c, c, "c", why);
      goto fail;
    }
    if (pa == pb || (pc >= 0 && (pc == pa || pc == pb))) {
      st = vs_error_set(err, VS_ERR_SCENE, file, cd->loc.line, cd->loc.column,
                        "constraints.%zu: a constraint needs distinct particles", c);
      goto fail;
    }
    if (cd->kind == VS_CONSTRAINT_DISTANCE) {
      vs_link_desc ld = {1, cd->stiffness, cd->compliance};
      uint8_t side = VS_SIDE_EQUAL;
      double rest = -1.0; /* auto */
      if (cd->has_min) side = VS_SIDE_MIN, rest = cd->min;
      else if (cd->has_max) side = VS_SIDE_MAX, rest = cd->max;
      else if (!cd->rest_auto) rest = cd->rest;
      int32_t i = bld.nd;
      vs_builder_link(&bld, pa, pb, &ld, VS_ROLE_EXPLICIT, 0.0, side, rest);
      m->n_dist = bld.nd;
      order_push(m, VS_KIND_DISTANCE, i);
    } else {
      m->angle_abc[3 * kang + 0] = pa;
      m->angle_abc[3 * kang + 1] = pb;
      m->angle_abc[3 * kang + 2] = pc;
      m->angle_min[kang] = cd->has_min ? cd->min * (M_PI / 180.0) : -1.0;
      m->angle_max[kang] = cd->has_max ? cd->max * (M_PI / 180.0) : -1.0;
      m->angle_stiff[kang] = cd->stiffness;
      m->angle_compl[kang] = cd->compliance;
      order_push(m, VS_KIND_ANGLE, kang++);
      m->n_angle = kang;
    }
  }
  m->n_dist = bld.nd;
  m->n_pin = (int32_t)npin;
  /* Inverse masses are final now (pins applied): fold stiffness, omega and
   * the mass weighting into one factor per link. */
  for (int32_t i = 0; i < m->n_dist; i++) {
    const double wsum = m->x0[4 * (size_t)m->dist_ab[2 * i] + 3] + m->x0[4 * (size_t)m->dist_ab[2 * i + 1] + 3];
    m->dist_kw[i] = wsum > 0.0 ? m->dist_stiff[i] * m->omega / wsum : 0.0;
    m->n_tearable += m->dist_tear[i] > 0.0;
  }
  m->n_angle = kang;

  m->n_colliders = (int32_t)s->n_colliders;
  if (s->n_colliders) memcpy(m->colliders, s->colliders, s->n_colliders * sizeof *m->colliders);

  for (int32_t i = 0; i < m->n_particles; i++) {
    if (m->radius[i] > m->radius_max) m->radius_max = m->radius[i];
    m->n_colliding += m->radius[i] > 0.0;
  }
  if (m->particle_collisions && (st = build_adjacency(m, err)) != VS_OK) goto fail;
  if ((st = vs_color_model(m, err)) != VS_OK || (st = vs_color_layout(m, err)) != VS_OK) goto fail;
  *out = m;
  return VS_OK;

fail:
  if (err && err->file[0] == '\0') snprintf(err->file, sizeof err->file, "%s", file);
  vs_model_free(m);
  return st;
}
