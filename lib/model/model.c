/* SPDX-License-Identifier: MIT */
/* model.c: compile a vs_scene into the flat, immutable vs_model.
 *
 * Two passes: first every body reports its exact particle and link counts
 * (vs_body_count) so that the documented limits are checked before anything
 * is allocated; then the arrays are allocated once and the generators fill
 * them (every array of VS_MODEL_FIELDS, in one place).  Explicit
 * constraints follow, in file order, then the colouring and, for
 * Gauss-Seidel, the order its sweeps run in (gsorder.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/build.h"
#include "model/bvh.h"
#include "model/meshgrid.h"
#include "model/obj.h"
#include "model/estimate.h"
#include "util/text.h"

void vs_model_free(vs_model *m) {
  if (!m) return;
  vs_model_private *pm = m->priv;
  if (pm && pm->mesh_search)
    for (int32_t c = 0; c < m->n_colliders; c++)
      if (pm->mesh_search[c].bvh) {
        vs_bvh_free(pm->mesh_search[c].bvh);
        vs_free(pm->mesh_search[c].bvh);
        vs_mesh_grid_free(pm->mesh_search[c].grid);
        vs_free(pm->mesh_search[c].grid);
      }
#define VS_MODEL_FREE(name, type, count) vs_free(m->name);
  VS_MODEL_FIELDS(VS_MODEL_FREE)
#undef VS_MODEL_FREE
  if (pm) {
#define VS_MODEL_PRIVATE_FREE(name, type, count) vs_free(pm->name);
    VS_MODEL_PRIVATE_FIELDS(VS_MODEL_PRIVATE_FREE)
#undef VS_MODEL_PRIVATE_FREE
    vs_free(pm->mesh_files);
    vs_rigid_model_free(pm->rigid);
    vs_free(pm);
  }
  vs_free(m);
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
  if (body->kind == VS_BODY_RIGID) {
    snprintf(why, why_size,
             "'%.*s' is a rigid body, which has no particles: a distance between body points "
             "names a point of it as \"%.*s@[x, y, z]\" (its local frame); ball and attach "
             "take its name",
             (int)nlen, text, (int)nlen, text);
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

/* ---- compile ---- */


static vs_status ref_error(vs_error *err, const char *file, const vs_ref *r, size_t ci,
                           const char *key, const char *why) {
  return vs_error_set(err, VS_ERR_SCENE, file, r->loc.line, r->loc.column,
                      "constraints.%zu.%s: %s", ci, key, why);
}

/* Append a constraint (kind, index) to build order; *n counts the
 * constraints pushed so far. */
static void order_push(vs_model *m, int32_t *n, vs_kind kind, int32_t index) {
  int32_t id = (*n)++;
  m->con_kind[id] = (uint8_t)kind;
  m->con_index[id] = index;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Linked neighbours of every particle (CSR, ascending), so that particle
 * collisions can skip pairs joined by a link. */
static vs_status build_adjacency(vs_model *m, vs_error *err) {
  int32_t *fill = vs_calloc((size_t)m->n_particles + 1, sizeof(int32_t));
  if (!fill) return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory building link adjacency");
  for (int32_t i = 0; i < m->n_dist; i++) {
    m->priv->adj_start[m->dist_ab[2 * i] + 1]++;
    m->priv->adj_start[m->dist_ab[2 * i + 1] + 1]++;
  }
  for (int32_t p = 0; p < m->n_particles; p++) m->priv->adj_start[p + 1] += m->priv->adj_start[p];
  memcpy(fill, m->priv->adj_start, (size_t)m->n_particles * sizeof(int32_t));
  for (int32_t i = 0; i < m->n_dist; i++) {
    const int32_t a = m->dist_ab[2 * i], b = m->dist_ab[2 * i + 1];
    m->priv->adj[fill[a]++] = b;
    m->priv->adj[fill[b]++] = a;
  }
  for (int32_t p = 0; p < m->n_particles; p++)
    qsort(m->priv->adj + m->priv->adj_start[p], (size_t)(m->priv->adj_start[p + 1] - m->priv->adj_start[p]), sizeof(int32_t), cmp_i32);
  vs_free(fill);
  return VS_OK;
}

/* Read one OBJ of the scene and transform it.  Its errors are told at the
 * scene's `file` key, with the OBJ's own file:line:col in the message:
 * "scene.yaml:12:13: bodies.0.mesh.file: flag.obj:3:5: ...". */
static vs_status read_obj(const char *file, const vs_mesh_ref *mr, const char *what, size_t index,
                          int collider, vs_obj_mesh *out, vs_error *err) {
  vs_obj_options opt = {.skip_degenerate = collider, .drop_duplicates = collider};
  vs_error e;
  vs_error_clear(&e);
  vs_status st = vs_obj_read(mr->file, NULL, &opt, out, &e);
  if (st == VS_OK && collider && out->n_triangles == 0)
    st = vs_error_set(&e, VS_ERR_SCENE, mr->file, out->skipped_line, out->skipped_column,
                      "every triangle has zero area");
  if (st != VS_OK) {
    char msg[sizeof e.message + sizeof e.file + 64];
    vs_error_format(&e, msg, sizeof msg);
    vs_obj_free(out);
    return vs_error_set(err, st, file, mr->loc.line, mr->loc.column, "%s.%zu.mesh.file: %s", what,
                        index, msg);
  }
  vs_obj_transform t;
  for (int k = 0; k < 3; k++)
    t.scale[k] = mr->scale[k], t.rotate[k] = mr->rotate[k], t.translate[k] = mr->translate[k];
  vs_obj_transform_apply(&t, out->vertices, out->n_vertices);
  /* where the mesh is placed: within VS_MESH_MAX_COORD of the origin, so
   * that the sums of squares its search structures and contacts take stay
   * finite (corners at 1e200 made them infinite) */
  for (int32_t i = 0; i < out->n_vertices; i++) {
    const double *p = out->vertices + 3 * (size_t)i;
    if (fabs(p[0]) <= VS_MESH_MAX_COORD && fabs(p[1]) <= VS_MESH_MAX_COORD &&
        fabs(p[2]) <= VS_MESH_MAX_COORD)
      continue;
    vs_status bad = vs_error_set(err, VS_ERR_SCENE, file, mr->loc.line, mr->loc.column,
                                 "%s.%zu.mesh.file: %s: vertex %d is at (%g, %g, %g) after the "
                                 "transform, farther than %g m from the origin along an axis",
                                 what, index, mr->file, (int)i + 1, p[0], p[1], p[2],
                                 VS_MESH_MAX_COORD);
    vs_obj_free(out);
    return bad;
  }
  return VS_OK;
}

static void free_objs(vs_obj_mesh *objs, size_t n) {
  if (!objs) return;
  for (size_t i = 0; i < n; i++) vs_obj_free(&objs[i]);
  vs_free(objs);
}

/* The OBJ files of the scene's mesh bodies and mesh colliders, read and
 * transformed: objs[b] for body b, objs[n_bodies + c] for collider c (NULL
 * when the scene has none).  Their counts are needed before anything is
 * allocated. */
typedef struct obj_set {
  vs_obj_mesh *objs;
  size_t n;
  int64_t nmv, nmt, nmc; /* the mesh colliders' vertices, triangles and number */
  vs_sbuf record;        /* what was read (model_private.h, mesh_files) */
} obj_set;

/* One line of the record of the OBJ files read (model_private.h). */
static void record_obj(obj_set *o, const char *what, size_t index, const vs_mesh_ref *mr,
                       const vs_obj_mesh *obj) {
  char *real = realpath(mr->file, NULL); /* the C library's: freed with free() */
  const char *path = real ? real : mr->file;
  vs_sbuf_printf(&o->record, "%s.%zu\t%lld\t%016llx\t", what, index, (long long)obj->bytes,
                 (unsigned long long)obj->content_hash);
  for (const char *c = path; *c; c++) {
    if (*c == '%' || *c == '\t' || *c == '\r' || *c == '\n')
      vs_sbuf_printf(&o->record, "%%%02X", (unsigned)(unsigned char)*c);
    else
      vs_sbuf_add(&o->record, c, 1);
  }
  vs_sbuf_puts(&o->record, "\n");
  free(real);
}

/* A convex rigid body whose points are an OBJ file's vertices: its file is
 * recorded with the others, so that --resume refuses a changed one. */
static int convex_file(const vs_body_desc *d) {
  return d->kind == VS_BODY_RIGID && d->shape == VS_RIGID_CONVEX && d->mesh.file;
}

/* Read them, bodies first, then colliders.  The memory check comes first:
 * the estimate counts the OBJ files without reading them into memory
 * (estimate.c), so a scene with a huge mesh is refused before they are
 * read.  On failure what was read stays in *o for the caller to free. */
static vs_status read_objs(const vs_scene *s, const char *file, obj_set *o, vs_error *err) {
  memset(o, 0, sizeof *o);
  o->n = s->n_bodies + s->n_colliders;
  int any = 0;
  for (size_t b = 0; b < s->n_bodies; b++)
    if (s->bodies[b].kind == VS_BODY_MESH || convex_file(&s->bodies[b])) any = 1;
  for (size_t c = 0; c < s->n_colliders; c++)
    if (s->colliders[c].kind == VS_COLLIDER_MESH) any = 1;
  if (!any) return VS_OK;
  vs_status st;
  if ((st = vs_model_check_memory(s, file, err)) != VS_OK) return st;
  if (!(o->objs = vs_calloc(o->n, sizeof *o->objs)))
    return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory");
  for (size_t b = 0; b < s->n_bodies; b++) {
    if (convex_file(&s->bodies[b])) { /* recorded only: vs_rigid_compile reads its points */
      vs_obj_mesh tmp;
      memset(&tmp, 0, sizeof tmp);
      vs_obj_options opt = {.skip_degenerate = 1};
      vs_error e;
      if (vs_obj_read(s->bodies[b].mesh.file, NULL, &opt, &tmp, &e) == VS_OK)
        record_obj(o, "bodies", b, &s->bodies[b].mesh, &tmp);
      vs_obj_free(&tmp); /* an unreadable file: vs_rigid_compile says why, at its key */
      continue;
    }
    if (s->bodies[b].kind != VS_BODY_MESH) continue;
    if ((st = read_obj(file, &s->bodies[b].mesh, "bodies", b, 0, &o->objs[b], err)) != VS_OK)
      return st;
    record_obj(o, "bodies", b, &s->bodies[b].mesh, &o->objs[b]);
  }
  for (size_t c = 0; c < s->n_colliders; c++) {
    if (s->colliders[c].kind != VS_COLLIDER_MESH) continue;
    vs_obj_mesh *obj = &o->objs[s->n_bodies + c];
    if ((st = read_obj(file, &s->colliders[c].mesh, "world.colliders", c, 1, obj, err)) != VS_OK)
      return st;
    record_obj(o, "world.colliders", c, &s->colliders[c].mesh, obj);
    o->nmv += obj->n_vertices, o->nmt += obj->n_triangles, o->nmc++;
    if (o->nmv > INT32_MAX / 4 || o->nmt > INT32_MAX / 4)
      return vs_error_set(err, VS_ERR_LIMIT, file, s->colliders[c].loc.line,
                          s->colliders[c].loc.column,
                          "world.colliders.%zu: the mesh colliders would have more than %d "
                          "vertices or triangles", c, INT32_MAX / 4);
  }
  if (o->record.bad) return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory");
  return VS_OK;
}

/* The scene's settings the model keeps as they are. */
static void copy_settings(vs_model *m, const vs_scene *s) {
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
  memcpy(m->wind, s->wind, sizeof m->wind);
  m->air_density = s->air_density;
  m->n_wind_keys = (int32_t)s->n_wind_keys;
  m->aero = vs_scene_has_air(s);
  m->output = s->output;
  m->particle_collisions = s->particle_collisions;
}

/* What pass 1 counts. */
typedef struct model_counts {
  int64_t np, ntri;
  int64_t nkind[VS_KIND_COUNT]; /* constraints of each kind, the bodies' links among them */
  int64_t nkeys;                /* the pins' keyframes */
  int64_t ntotal;               /* constraints */
} model_counts;

/* Pass 1: every body reports its exact particle and link counts, then the
 * explicit constraints are counted by kind; the documented limits are
 * checked before anything is allocated. */
static vs_status count_model(const vs_scene *s, const vs_obj_mesh *objs, const char *file,
                             model_counts *mc, vs_error *err) {
  int64_t np = 0, nd = 0, ntri = 0;
  for (size_t b = 0; b < s->n_bodies; b++) {
    vs_body_counts c = {0, 0, 0};
    vs_status st;
    if (s->bodies[b].kind == VS_BODY_MESH)
      st = vs_mesh_count(&s->bodies[b], &objs[b], &c, file, err);
    else
      st = vs_body_count(&s->bodies[b], &c, file, err);
    if (st != VS_OK) return st;
    np += c.particles;
    nd += c.links;
    ntri += c.triangles;
    if (np > VS_MAX_PARTICLES)
      return vs_error_set(err, VS_ERR_LIMIT, file, s->bodies[b].loc.line, s->bodies[b].loc.column,
                          "bodies.%zu: the scene would have more than %d particles", b,
                          VS_MAX_PARTICLES);
    if (nd > VS_MAX_CONSTRAINTS)
      return vs_error_set(err, VS_ERR_LIMIT, file, s->bodies[b].loc.line, s->bodies[b].loc.column,
                          "bodies.%zu: the scene would have more than %d constraints", b,
                          VS_MAX_CONSTRAINTS);
  }
  /* the bodies' links, then the explicit constraints of every kind */
  vs_count_explicit(s, mc->nkind, &mc->nkeys);
  mc->nkind[VS_KIND_DISTANCE] += nd;
  mc->np = np;
  mc->ntri = ntri;
  mc->ntotal = 0;
  for (int k = 0; k < VS_KIND_COUNT; k++) mc->ntotal += mc->nkind[k];
  if (mc->ntotal > VS_MAX_CONSTRAINTS)
    return vs_error_set(err, VS_ERR_LIMIT, file, 0, 0,
                        "the scene would have more than %d constraints", VS_MAX_CONSTRAINTS);
  return VS_OK;
}

/* Pass 2: the counts into the model and every array of VS_MODEL_FIELDS,
 * once, to its final size. */
static vs_status allocate(vs_model *m, const vs_scene *s, const model_counts *mc,
                          const obj_set *o, const char *file, vs_error *err) {
  m->n_particles = (int32_t)mc->np;
  m->n_bodies = (int32_t)s->n_bodies;
#define VS_KIND_SET_COUNT_(ID, name, arity, particles, count) \
  m->count = (int32_t)mc->nkind[VS_KIND_##ID];
  VS_KINDS(VS_KIND_SET_COUNT_)
#undef VS_KIND_SET_COUNT_
  m->n_pin_keys = (int32_t)mc->nkeys;
  m->n_constraints = (int32_t)mc->ntotal;
  m->n_colliders = (int32_t)s->n_colliders;
  m->n_triangles = (int32_t)mc->ntri;
  m->n_mesh_colliders = (int32_t)o->nmc;
  m->n_mesh_vertices = (int32_t)o->nmv;
  m->n_mesh_triangles = (int32_t)o->nmt;
  m->n_rigid = vs_rigid_count(s);
  vs_rigid_count_items(s, &m->n_rjoints, &m->n_attach, &m->n_rjoints_more);
#define VS_MODEL_ALLOC_AT(lvalue, name, type, count)                                        \
  if (!((lvalue) = vs_calloc((count) != 0 ? (count) : 1, sizeof(type))))                       \
    return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory allocating the model (" \
                        #name ": %zu items)", (size_t)(count));
#define VS_MODEL_ALLOC(name, type, count) VS_MODEL_ALLOC_AT(m->name, name, type, count)
  VS_MODEL_FIELDS(VS_MODEL_ALLOC)
#undef VS_MODEL_ALLOC
#define VS_MODEL_PRIVATE_ALLOC(name, type, count) VS_MODEL_ALLOC_AT(m->priv->name, name, type, count)
  VS_MODEL_PRIVATE_FIELDS(VS_MODEL_PRIVATE_ALLOC)
#undef VS_MODEL_PRIVATE_ALLOC
#undef VS_MODEL_ALLOC_AT
  return VS_OK;
}

/* Every body's particles and links from its generator, its info, and its
 * links into build order. */
static vs_status generate_bodies(vs_builder *bld, const vs_scene *s, const vs_obj_mesh *objs,
                                 int32_t *ncon, vs_error *err) {
  vs_model *m = bld->m;
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *bd = &s->bodies[b];
    vs_body_info *bi = &m->bodies[b];
    snprintf(bi->name, sizeof bi->name, "%s", bd->name);
    bi->kind = bd->kind;
    bi->first = bld->np;
    bi->damping_rigid = bd->damping_rigid;
    bi->group_bits = 1u << bd->collision_group;
    bi->mask = (uint32_t)bd->collision_mask;
    bi->drag = bd->drag, bi->lift = bd->lift;
    bi->air_linear = bd->air_linear, bi->air_quadratic = bd->air_quadratic;
    m->n_rigid_damped += bd->damping_rigid > 0.0;
    int32_t d0 = bld->nd;
    vs_status st = bd->kind == VS_BODY_MESH ? vs_mesh_generate(bld, bd, &objs[b], (int32_t)b, err)
                                            : vs_body_generate(bld, bd, (int32_t)b, err);
    if (st != VS_OK) return st;
    bi->count = bld->np - bi->first;
    for (int32_t i = d0; i < bld->nd; i++) order_push(m, ncon, VS_KIND_DISTANCE, i);
  }
  return VS_OK;
}

/* Explicit pins first move their particles, so that `rest: auto` sees the
 * initial configuration (they go into build order with the other
 * constraints, add_constraints). */
static vs_status place_pins(vs_builder *bld, const vs_scene *s, const char *file, vs_error *err) {
  vs_model *m = bld->m;
  int32_t kpin = 0, kkey = 0;
  char why[256];
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (cd->kind != VS_KIND_PIN) continue;
    int32_t p;
    if (vs_model_resolve_ref(m, cd->a.text, &p, why, sizeof why) != VS_OK)
      return ref_error(err, file, &cd->a, c, "particle", why);
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
    vs_model_pin_target(m, kpin, 0.0, at);
    memcpy(&m->x0[4 * p], at, sizeof at);
    vs_builder_pin(bld, p);
    kpin++;
  }
  return VS_OK;
}

/* The explicit constraints into build order, in file order: their
 * particles resolved and distinct, each into its kind's arrays. */
static vs_status add_constraints(vs_builder *bld, const vs_scene *s, const char *file,
                                 int32_t *ncon, vs_error *err) {
  vs_model *m = bld->m;
  int32_t kpin = 0, kang = 0;
  char why[256];
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (vs_rigid_item(cd)) continue;
    const int arity = vs_kind_arity(cd->kind);
    if (cd->kind == VS_KIND_PIN) { /* resolved by place_pins */
      order_push(m, ncon, VS_KIND_PIN, kpin++);
      continue;
    }
    /* the particles a, b[, c], resolved and distinct */
    const vs_ref *ref[VS_MAX_ARITY] = {&cd->a, &cd->b, &cd->c};
    static const char *const key[VS_MAX_ARITY] = {"a", "b", "c"};
    int32_t p[VS_MAX_ARITY] = {-1, -1, -1};
    for (int j = 0; j < arity; j++)
      if (vs_model_resolve_ref(m, ref[j]->text, &p[j], why, sizeof why) != VS_OK)
        return ref_error(err, file, ref[j], c, key[j], why);
    for (int j = 1; j < arity; j++)
      for (int q = 0; q < j; q++)
        if (p[q] == p[j])
          return vs_error_set(err, VS_ERR_SCENE, file, cd->loc.line, cd->loc.column,
                              "constraints.%zu: a constraint needs distinct particles", c);
    switch (cd->kind) {
      case VS_KIND_DISTANCE: {
        vs_link_desc ld = {1, cd->stiffness, cd->compliance};
        uint8_t side = VS_SIDE_EQUAL;
        double rest = -1.0; /* auto */
        if (cd->has_min) side = VS_SIDE_MIN, rest = cd->min;
        else if (cd->has_max) side = VS_SIDE_MAX, rest = cd->max;
        else if (!cd->rest_auto) rest = cd->rest;
        int32_t i = bld->nd;
        vs_builder_link(bld, p[0], p[1], &ld, VS_ROLE_EXPLICIT, 0.0, side, rest);
        order_push(m, ncon, VS_KIND_DISTANCE, i);
        break;
      }
      case VS_KIND_ANGLE:
        for (int j = 0; j < 3; j++) m->angle_abc[3 * kang + j] = p[j];
        m->angle_min[kang] = cd->has_min ? cd->min * (M_PI / 180.0) : -1.0;
        m->angle_max[kang] = cd->has_max ? cd->max * (M_PI / 180.0) : -1.0;
        m->angle_stiff[kang] = cd->stiffness;
        m->angle_compl[kang] = cd->compliance;
        order_push(m, ncon, VS_KIND_ANGLE, kang++);
        break;
      case VS_KIND_PIN:
        break; /* above */
    }
  }
  return VS_OK;
}

/* Inverse masses are final now (pins applied): fold stiffness, omega and
 * the mass weighting into one factor per link. */
static void fold_links(vs_model *m) {
  for (int32_t i = 0; i < m->n_dist; i++) {
    const double wsum = m->x0[4 * (size_t)m->dist_ab[2 * i] + 3] + m->x0[4 * (size_t)m->dist_ab[2 * i + 1] + 3];
    m->priv->dist_kw[i] = wsum > 0.0 ? m->dist_stiff[i] * m->omega / wsum : 0.0;
    m->n_tearable += m->dist_tear[i] > 0.0;
  }
}

/* The colliders, and the mesh colliders' triangles into the model's
 * arrays, a BVH each. */
static vs_status add_colliders(vs_model *m, const vs_scene *s, const vs_obj_mesh *objs,
                               const char *file, vs_error *err) {
  if (s->n_colliders) memcpy(m->colliders, s->colliders, s->n_colliders * sizeof *m->colliders);
  for (int32_t c = 0, v0 = 0, t0 = 0, slot = 0; c < m->n_colliders; c++) {
    m->colliders[c].mesh.file = NULL; /* the scene's: not the model's to keep */
    if (m->colliders[c].kind != VS_COLLIDER_MESH) continue;
    const vs_obj_mesh *o = &objs[s->n_bodies + (size_t)c];
    vs_collider_mesh *cm = &m->collider_mesh[c];
    vs_mesh_search *ms = &m->priv->mesh_search[c];
    ms->slot = slot++;
    cm->first_vertex = v0, cm->n_vertices = o->n_vertices;
    cm->first_triangle = t0, cm->n_triangles = o->n_triangles;
    cm->n_duplicate = o->n_duplicates, cm->n_zero_area = o->n_skipped;
    memcpy(&m->mesh_vertices[3 * (size_t)v0], o->vertices, 3 * (size_t)o->n_vertices * sizeof(double));
    memcpy(&m->mesh_triangles[3 * (size_t)t0], o->triangles, 3 * (size_t)o->n_triangles * sizeof(int32_t));
    v0 += o->n_vertices, t0 += o->n_triangles;
    if (!(ms->bvh = vs_calloc(1, sizeof *ms->bvh)))
      return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory building a BVH");
    vs_status st = vs_bvh_build(ms->bvh, &m->mesh_vertices[3 * (size_t)cm->first_vertex],
                                cm->n_vertices, &m->mesh_triangles[3 * (size_t)cm->first_triangle],
                                cm->n_triangles, err);
    if (st != VS_OK) {
      vs_free(ms->bvh);
      ms->bvh = NULL;
      return st;
    }
  }
  return VS_OK;
}

/* The largest particle radius and the particles that collide. */
static void radius_stats(vs_model *m) {
  for (int32_t i = 0; i < m->n_particles; i++) {
    if (m->radius[i] > m->radius_max) m->radius_max = m->radius[i];
    m->n_colliding += m->radius[i] > 0.0;
  }
}

/* Mesh colliders' grids (model/meshgrid.h): a cell's list holds every
 * triangle within twice the largest radius + thickness of its points (at
 * least a thousandth of the mesh's size): the per-step detection of
 * solve/collide_mesh.c gives a particle a contact plane when it is that
 * near (the relaxation moves it; with only R, the coarse drape of
 * configs/mesh_drape.yaml stretched its worst link by 0.98 instead of
 * 0.61, particles reaching the mesh only at the final pass).
 * The grid answers every query exactly as the BVH does, so it is built
 * only where it pays: when the particles are at least an eighth of the
 * triangles (a 1M-triangle mesh under a small cloth took 1.5 s and 74 MB
 * more to build than it could save).  The margin is the same either way. */
static vs_status build_mesh_grids(vs_model *m, const vs_scene *s, const char *file,
                                  vs_error *err) {
  for (int32_t c = 0; c < m->n_colliders; c++) {
    vs_mesh_search *ms = &m->priv->mesh_search[c];
    if (!ms->bvh) continue;
    const double th = m->colliders[c].thickness;
    double margin = fmax(2.0 * (m->radius_max + th), 1e-3 * ms->bvh->extent);
    /* the reach the grid's lists must cover; every number of the scene is
     * finite, their sum need not be (a thickness of 1e308 was "bad
     * argument" from the grid's builder) */
    if (!isfinite(margin))
      return vs_error_set(err, VS_ERR_SCENE, file, s->colliders[c].loc.line,
                          s->colliders[c].loc.column,
                          "world.colliders.%d.mesh.thickness: %g m is too large: with the "
                          "particles' radius (up to %g m) a particle's reach around the mesh, "
                          "2 x (radius + thickness), is beyond the largest number",
                          (int)c, th, m->radius_max);
    if (!(margin > 0.0)) margin = 1.0;
    ms->margin = margin;
    if ((int64_t)ms->bvh->n_tri > 8 * (int64_t)m->n_particles) continue;
    if (!(ms->grid = vs_calloc(1, sizeof *ms->grid)))
      return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory building a mesh grid");
    vs_status st = vs_mesh_grid_build(ms->grid, ms->bvh, margin, err);
    if (st != VS_OK) return st;
  }
  return VS_OK;
}

vs_status vs_model_build(const vs_scene *s, vs_model **out, vs_error *err) {
  *out = NULL;
  const char *file = s->file ? s->file : "<scene>";
  obj_set o;
  vs_status st = read_objs(s, file, &o, err);
  if (st != VS_OK) return free_objs(o.objs, o.n), vs_sbuf_free(&o.record), st;
  vs_model *m = vs_calloc(1, sizeof *m);
  if (m && !(m->priv = vs_calloc(1, sizeof *m->priv))) vs_free(m), m = NULL;
  if (!m)
    return free_objs(o.objs, o.n), vs_sbuf_free(&o.record),
           vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory");
  m->priv->mesh_files = o.record.p; /* the model's now */
  o.record.p = NULL;
  copy_settings(m, s);
  model_counts mc;
  vs_builder bld = {.m = m, .file = file};
  int32_t ncon = 0; /* constraints in build order so far */
  if ((st = count_model(s, o.objs, file, &mc, err)) != VS_OK) goto fail;
  /* The model's and the run's memory against the limit (estimate.c);
   * with OBJ files, made before they were read (read_objs). */
  if (!o.objs && (st = vs_model_check_memory(s, file, err)) != VS_OK) goto fail;
  if ((st = allocate(m, s, &mc, &o, file, err)) != VS_OK ||
      (st = generate_bodies(&bld, s, o.objs, &ncon, err)) != VS_OK ||
      (st = place_pins(&bld, s, file, err)) != VS_OK ||
      (st = add_constraints(&bld, s, file, &ncon, err)) != VS_OK)
    goto fail;
  fold_links(m);
  if (m->aero) vs_aero_triangles(m);
  if (m->n_wind_keys > 0)
    memcpy(m->wind_keys, s->wind_keys, 4 * (size_t)m->n_wind_keys * sizeof(double));
  if ((st = add_colliders(m, s, o.objs, file, err)) != VS_OK) goto fail;
  free_objs(o.objs, o.n);
  o.objs = NULL;
  if ((st = vs_rigid_compile(m, s, file, err)) != VS_OK) goto fail;
  for (int32_t i = 0; m->aero && i < m->n_rigid; i++) { /* the rigid step's air drag */
    m->priv->rigid_air[2 * i] = m->bodies[m->rigid_body[i]].air_linear;
    m->priv->rigid_air[2 * i + 1] = m->bodies[m->rigid_body[i]].air_quadratic;
  }
  radius_stats(m);
  if ((st = build_mesh_grids(m, s, file, err)) != VS_OK) goto fail;
  if (m->particle_collisions && (st = build_adjacency(m, err)) != VS_OK) goto fail;
  if ((st = vs_color_model(m, err)) != VS_OK) goto fail;
  if (m->relaxation == VS_RELAX_GAUSS_SEIDEL && (st = vs_gs_order_model(m, err)) != VS_OK) goto fail;
  *out = m;
  return VS_OK;

fail:
  if (err && err->file[0] == '\0') snprintf(err->file, sizeof err->file, "%s", file);
  free_objs(o.objs, o.n);
  vs_model_free(m);
  return st;
}
