/* SPDX-License-Identifier: MIT */
/* estimate.c: the model's and the run's memory from the scene's counts
 * (vsim/memory.h), so that a scene too big for the machine is refused at
 * once instead of after climbing to gigabytes.
 *
 * The model part is exact: VS_MODEL_FIELDS and VS_MODEL_PRIVATE_FIELDS
 * over the counts.  The run part
 * is VS_STATE_FIELDS (the state, and the result file writer's copies of it:
 * vs_writer_copies) plus the solver's scratch (lib/solve/scratch.c: about
 * 60 bytes a particle, 48 more with particle collisions, 56 a link with
 * Jacobi relaxation, 89 a particle for each mesh collider: its contact
 * plane, solve/collide_mesh.h, and its flag) and one frame of output
 * (positions and velocities as float64; rigid bodies: their poses and
 * surfaces), the rigid solver's model, state and work (solve/rigid/rigid.h:
 * vs_rigid_bytes, its contact buffers at their bound of 24 a body, of which
 * a run touches only what it fills), and the colouring's work space at
 * build (16 bytes a constraint, 8 a particle).  Hash grids and contact pairs that grow with the motion
 * are not counted: the estimate is a floor, the limit a safe fraction.
 *
 * Mesh bodies and mesh colliders: their counts are their OBJ files', taken
 * by vs_obj_count_file (one pass through a 64 KiB buffer, nothing sized by
 * the file allocated) before the build reads them.  Vertices and triangles
 * are exact for a file the reader accepts; links are bounded above: a mesh
 * of T triangles has at most 3T edges (stretch) and at most 3T/2 interior
 * edges (bend, two triangle sides each).  Reading an OBJ takes its bytes,
 * 24 bytes a vertex and 16 a triangle, and a mesh body's edge sort 48 bytes
 * a triangle more: build work space, counted in the model, as is a mesh
 * collider's grid of triangle lists (model/meshgrid.h: bounded by
 * VS_MESH_GRID_BYTES) and its BVH (model/bvh.h: VS_BVH_BYTES, 124 bytes a
 * triangle).  A file that
 * cannot be opened counts nothing here (the build's reader says why). */
#include "model/estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/build.h"
#include "model/meshgrid.h"
#include "model/rigid_model.h"
#include "util/quat.h"
#include "model/obj.h"
#include "vsim/model.h"
#include "vsim/state.h"

static uint64_t max_memory_set; /* 0: the default */

void vs_set_max_memory(uint64_t bytes) { max_memory_set = bytes; }

uint64_t vs_max_memory(void) {
  if (max_memory_set) return max_memory_set;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return (uint64_t)8 << 30; /* unknown: 8 GiB */
  return (uint64_t)pages * (uint64_t)page / 2;
}

void vs_memory_text(uint64_t bytes, char *buf, size_t size) {
  static const char *const unit[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, u++;
  if (u == 0)
    snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
  else
    snprintf(buf, size, "%.*f %s", v < 10 ? 1 : 0, v, unit[u]);
}

/* the counts of pass 1 of vs_model_build, and the largest body */
typedef struct counts {
  int64_t np, ntri;
  int64_t n[VS_KIND_COUNT]; /* constraints of each kind (the bodies' links among the distance ones) */
  int64_t nkeys;            /* the pins' keyframes */
  int64_t nmv, nmt;   /* mesh colliders' vertices and triangles */
  uint64_t grids;     /* their grids' bytes, at most */
  uint64_t work;      /* bytes: the OBJ files read, the edge sorts */
  int32_t nrigid, nrjoints, nattach, nrjoints_more; /* rigid bodies, their joints, attached particles */
  size_t biggest;
} counts;

static int64_t clamp(int64_t v, int64_t hi) { return v > hi ? hi : v; }

/* A mesh body's counts from its OBJ (see the top of the file). */
static void mesh_body_count(const vs_body_desc *b, counts *c, vs_body_counts *bc) {
  int64_t nv, nt, bytes;
  if (vs_obj_count_file(b->mesh.file, &nv, &nt, &bytes) != 0) return;
  nv = clamp(nv, VS_OBJ_MAX_VERTICES);
  nt = clamp(nt, VS_OBJ_MAX_TRIANGLES);
  bc->particles = nv;
  bc->triangles = nt;
  bc->links = (b->stretch.enabled ? 3 * nt : 0) + (b->bend.enabled ? 3 * nt / 2 : 0);
  c->work += (uint64_t)clamp(bytes, VS_OBJ_MAX_BYTES) + 1 + 24 * (uint64_t)nv +
             (16 + 48) * (uint64_t)nt;
}

static vs_status count(const vs_scene *s, const char *file, counts *c, vs_error *err) {
  memset(c, 0, sizeof *c);
  int64_t most = -1;
  for (size_t b = 0; b < s->n_bodies; b++) {
    vs_body_counts bc = {0, 0, 0};
    if (s->bodies[b].kind == VS_BODY_MESH) {
      mesh_body_count(&s->bodies[b], c, &bc);
    } else {
      vs_status st = vs_body_count(&s->bodies[b], &bc, file, err);
      if (st != VS_OK) return st;
    }
    c->np += bc.particles;
    c->n[VS_KIND_DISTANCE] += bc.links;
    c->ntri += bc.triangles;
    if (bc.particles + bc.links > most) most = bc.particles + bc.links, c->biggest = b;
  }
  for (size_t k = 0; k < s->n_colliders; k++) {
    int64_t nv, nt, bytes;
    if (s->colliders[k].kind != VS_COLLIDER_MESH ||
        vs_obj_count_file(s->colliders[k].mesh.file, &nv, &nt, &bytes) != 0)
      continue;
    nv = clamp(nv, VS_OBJ_MAX_VERTICES);
    nt = clamp(nt, VS_OBJ_MAX_TRIANGLES);
    c->nmv += nv;
    c->nmt += nt;
    c->grids += (uint64_t)VS_MESH_GRID_BYTES(nt) + (uint64_t)VS_BVH_BYTES(nt);
    c->work += (uint64_t)clamp(bytes, VS_OBJ_MAX_BYTES) + 1 + 24 * (uint64_t)nv + 16 * (uint64_t)nt;
  }
  c->nrigid = vs_rigid_count(s);
  vs_rigid_count_items(s, &c->nrjoints, &c->nattach, &c->nrjoints_more);
  int64_t n[VS_KIND_COUNT]; /* the rigid joints and attaches are counted above */
  vs_count_explicit(s, n, &c->nkeys);
  for (int k = 0; k < VS_KIND_COUNT; k++) c->n[k] += n[k];
  return VS_OK;
}

static int64_t n_constraints(const counts *c) {
  int64_t n = 0;
  for (int k = 0; k < VS_KIND_COUNT; k++) n += c->n[k];
  return n;
}

/* int32 counts as the model holds them; larger ones are refused by the
 * build's own limits, and are clamped here only to keep the sums finite */
static int32_t c32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < 0 ? 0 : (int32_t)v; }

static void estimate(const vs_scene *s, const counts *c, vs_memory_estimate *out) {
  vs_model fm;
  memset(&fm, 0, sizeof fm);
  fm.n_particles = c32(c->np);
  fm.n_bodies = c32((int64_t)s->n_bodies);
#define EST_COUNT(ID, name, arity, particles, count) fm.count = c32(c->n[VS_KIND_##ID]);
  VS_KINDS(EST_COUNT)
#undef EST_COUNT
  fm.n_pin_keys = c32(c->nkeys);
  fm.n_wind_keys = c32((int64_t)s->n_wind_keys);
  fm.aero = vs_scene_has_air(s);
  fm.n_constraints = c32(n_constraints(c));
  fm.n_colliders = c32((int64_t)s->n_colliders);
  fm.n_triangles = c32(c->ntri);
  fm.n_mesh_vertices = c32(c->nmv);
  fm.n_mesh_triangles = c32(c->nmt);
  fm.particle_collisions = s->particle_collisions;
  fm.relaxation = s->relaxation;
  fm.n_rigid = c->nrigid;
  fm.n_rjoints = c->nrjoints;
  fm.n_rjoints_more = c->nrjoints_more;
  fm.n_attach = c->nattach;
  fm.rigid_max_contacts = c->nrigid > 0 ? VS_RIGID_CONTACTS_PER_BODY * c->nrigid + 64 : 0;
  fm.rigid_sleep = c->nrigid > 0 && s->rigid.sleep;
  const vs_model *m = &fm;
  uint64_t model = sizeof fm + sizeof(vs_model_private), run = 0;
#define EST_MODEL(name, type, n) model += (uint64_t)sizeof(type) * (uint64_t)(n);
  VS_MODEL_FIELDS(EST_MODEL)
  VS_MODEL_PRIVATE_FIELDS(EST_MODEL)
#undef EST_MODEL
  uint64_t state = 0;
#define EST_STATE(name, type, width, n) state += (uint64_t)sizeof(type) * (width) * (uint64_t)(n);
  VS_STATE_FIELDS(EST_STATE)
#undef EST_STATE
  /* the state, and the result file writer's copies of it (io/write/h5write.c,
   * vs_writer_copies) */
  run += state + (uint64_t)vs_writer_copies((size_t)state) * state;
  uint64_t np = (uint64_t)fm.n_particles, nd = (uint64_t)fm.n_dist;
  uint64_t nc = (uint64_t)fm.n_constraints;
  /* build work space, freed in turn: the colouring, then the Gauss-Seidel
   * order (gsorder.c) */
  uint64_t work = 16 * nc + 8 * np;
  if (s->relaxation == VS_RELAX_GAUSS_SEIDEL && 25 * nc + 4 * np > work) work = 25 * nc + 4 * np;
  model += work;
  model += c->work;
  model += c->grids;                                   /* OBJ files read, edge sorts */
  run += 60 * np;                                     /* contacts, pre-step velocities */
  if (fm.aero) run += 32 * np + 24 * (uint64_t)fm.n_triangles; /* the air's forces (solve/aero.c) */
  if (s->particle_collisions) run += 48 * np;         /* hash grid, masks, cells */
  if (s->relaxation == VS_RELAX_JACOBI) run += 61 * nd; /* per-link copies, key and shape */
  for (size_t k = 0; k < s->n_colliders; k++)           /* mesh contact planes and balls */
    if (s->colliders[k].kind == VS_COLLIDER_MESH) run += 81 * np; /* + its dense flag */
  run += 48 * np + nd;                                /* one frame of output */
  if (c->nrigid > 0) {
    /* the rigid solver's own model, state and work (contacts: 24 a body) */
    run += vs_rigid_bytes(c->nrigid, (int64_t)s->n_colliders, c->nrjoints, s->rigid.sleep);
    /* kinematic bodies' keys and surface velocities (model/rigid_motion.c) */
    int64_t nk = 0, nr = 0;
    int motion = 0;
    for (size_t b = 0; b < s->n_bodies; b++) {
      const vs_body_desc *d = &s->bodies[b];
      if (d->kind != VS_BODY_RIGID) continue;
      const double *sv = d->surface_velocity;
      motion |= d->kinematic || sv[0] != 0 || sv[1] != 0 || sv[2] != 0;
      nk += d->kinematic ? (int64_t)d->n_keys : 0;
      nr += d->kinematic ? (int64_t)d->n_rotation_keys : 0;
    }
    if (motion) run += vs_rmotion_bytes(c->nrigid, nk, nr);
    /* a frame of rigid output: pose, velocities, and the surfaces for
     * viewers (at most 74 vertices a body, a capsule's, io/h5surface.c) */
    run += (uint64_t)c->nrigid * (8 * 13 + (s->output.xdmf ? 74 * 24 : 0));
    /* a convex body's hull (model/hull.h) at its bound: 256 vertices, 508
     * faces (plane, vertex list), 762 edges, 48 KiB with the build's
     * scratch; its surface up to 256 vertices instead of 74 */
    for (size_t b = 0; b < s->n_bodies; b++)
      if (s->bodies[b].kind == VS_BODY_RIGID && s->bodies[b].shape == VS_RIGID_CONVEX) {
        model += 48 * 1024;
        run += s->output.xdmf ? (256 - 74) * 24 : 0;
      }
  }
  out->model = model;
  out->run = run;
  out->total = model + run;
}

vs_status vs_estimate_memory(const vs_scene *s, vs_memory_estimate *out, vs_error *err) {
  if (!s || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_estimate_memory: missing argument");
  counts c;
  vs_status st = count(s, s->file ? s->file : "<scene>", &c, err);
  if (st == VS_OK) estimate(s, &c, out);
  return st;
}

vs_status vs_model_check_memory(const vs_scene *s, const char *file, vs_error *err) {
  counts c;
  vs_status st = count(s, file, &c, err);
  if (st != VS_OK) return st;
  vs_memory_estimate e;
  estimate(s, &c, &e);
  uint64_t limit = vs_max_memory();
  if (e.total <= limit) return VS_OK;
  char need[32], lim[32], mt[32], rt[32];
  vs_memory_text(e.total, need, sizeof need);
  vs_memory_text(limit, lim, sizeof lim);
  vs_memory_text(e.model, mt, sizeof mt);
  vs_memory_text(e.run, rt, sizeof rt);
  vs_loc loc = {0, 0};
  if (s->n_bodies) loc = s->bodies[c.biggest].loc;
  char rigid[48] = "";
  if (c.nrigid > 0) snprintf(rigid, sizeof rigid, ", %ld rigid bodies", (long)c.nrigid);
  return vs_error_set(err, VS_ERR_LIMIT, file, loc.line, loc.column,
                      "the run would take about %s of memory (model %s, run %s; %lld particles, "
                      "%lld constraints%s), over the limit of %s (--max-memory)",
                      need, mt, rt, (long long)c.np, (long long)n_constraints(&c), rigid,
                      lim);
}
