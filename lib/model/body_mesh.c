/* SPDX-License-Identifier: MIT */
/* body_mesh.c: cloth or a soft shell from a triangle mesh (an OBJ file).
 *
 * Vertex k of the OBJ (0-based, file order) is the body's particle k, at
 * its transformed position.  Mass is lumped: each triangle gives a third of
 * its area to each corner, and the body's total mass is spread in
 * proportion (so a vertex in no triangle has none: an error).  Links, in
 * build order: stretch, one per edge (an edge shared by several triangles
 * once), edges in ascending (lower vertex, higher vertex) order; then bend,
 * one per interior edge (exactly two triangles), in the same edge order,
 * between the two vertices opposite it (the one of the lower-numbered
 * triangle first).  On a regular grid in the built-in cloth's vertex order
 * the stretch links come in the cloth's order (+u, then +v per particle,
 * row by row) with each cell's diagonal after them.  The triangles join
 * /connectivity/triangles as they are in the file. */
#include <math.h>
#include <stdlib.h>

#include "model/build.h"
#include "model/obj.h"
#include "util/alloc.h"
#include "util/vec3.h"

typedef struct mesh_edge {
  int32_t a, b; /* a < b */
  int32_t tri;  /* the triangle it came from */
  int32_t opp;  /* that triangle's third vertex */
} mesh_edge;

static int cmp_edge(const void *pa, const void *pb) {
  const mesh_edge *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  if (x->tri != y->tri) return x->tri < y->tri ? -1 : 1;
  return (x->opp > y->opp) - (x->opp < y->opp);
}

/* Every triangle's three edges, sorted; NULL when out of memory. */
static mesh_edge *edges_sorted(const vs_obj_mesh *o) {
  const size_t n = 3 * (size_t)o->n_triangles;
  mesh_edge *e = vs_malloc(n * sizeof *e);
  if (!e) return NULL;
  for (int32_t t = 0; t < o->n_triangles; t++)
    for (int k = 0; k < 3; k++) {
      int32_t p = o->triangles[3 * t + k], q = o->triangles[3 * t + (k + 1) % 3];
      mesh_edge *x = &e[3 * (size_t)t + (size_t)k];
      x->a = p < q ? p : q;
      x->b = p < q ? q : p;
      x->tri = t;
      x->opp = o->triangles[3 * t + (k + 2) % 3];
    }
  qsort(e, n, sizeof *e, cmp_edge);
  return e;
}

/* Runs of one edge: calls at most once per unique edge. */
static void count_edges(const mesh_edge *e, size_t n, int64_t *unique, int64_t *interior) {
  *unique = *interior = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    (*unique)++;
    if (j - i == 2 && e[i].opp != e[i + 1].opp) (*interior)++;
    i = j;
  }
}

static vs_status nomem(const vs_body_desc *b, const char *file, vs_error *err) {
  return vs_error_set(err, VS_ERR_NOMEM, file, b->loc.line, b->loc.column,
                      "bodies.%s: out of memory sorting the mesh's edges", b->name);
}

vs_status vs_mesh_count(const vs_body_desc *b, const vs_obj_mesh *o, vs_body_counts *out,
                        const char *file, vs_error *err) {
  mesh_edge *e = edges_sorted(o);
  if (!e) return nomem(b, file, err);
  int64_t unique, interior;
  count_edges(e, 3 * (size_t)o->n_triangles, &unique, &interior);
  vs_free(e);
  out->particles = o->n_vertices;
  out->links = (b->stretch.enabled ? unique : 0) + (b->bend.enabled ? interior : 0);
  out->triangles = o->n_triangles;
  return VS_OK;
}

static double tri_area(const double *a, const double *b, const double *c) {
  double u[3], v[3], n[3];
  vs_sub3(b, a, u), vs_sub3(c, a, v), vs_cross3(u, v, n);
  return 0.5 * vs_len3(n);
}

vs_status vs_mesh_generate(vs_builder *bld, const vs_body_desc *b, const vs_obj_mesh *o,
                           int32_t body, vs_error *err) {
  const int32_t nv = o->n_vertices, nt = o->n_triangles, first = bld->np;
  double *lump = vs_calloc((size_t)nv, sizeof *lump);
  if (!lump) return nomem(b, bld->file, err);
  double total = 0.0;
  for (int32_t t = 0; t < nt; t++) {
    const int32_t *tv = &o->triangles[3 * t];
    const double area = tri_area(&o->vertices[3 * tv[0]], &o->vertices[3 * tv[1]],
                                 &o->vertices[3 * tv[2]]);
    for (int k = 0; k < 3; k++) lump[tv[k]] += area / 3.0;
    total += area;
  }
  for (int32_t k = 0; k < nv; k++)
    if (!(lump[k] > 0.0)) {
      vs_free(lump);
      return vs_error_set(err, VS_ERR_SCENE, bld->file, b->mesh.loc.line, b->mesh.loc.column,
                          "bodies.%s.file: %s: vertex %d is in no triangle (a mesh body's "
                          "vertices are its particles: each needs an area for its mass)",
                          b->name, b->mesh.file, k);
    }
  for (int32_t k = 0; k < nv; k++)
    vs_builder_particle(bld, &o->vertices[3 * k], NULL, b->mass * (lump[k] / total), b->radius,
                        body);
  vs_free(lump);

  switch (b->pin_mode) {
    case VS_PIN_LIST:
      for (size_t k = 0; k < b->n_pins; k++) {
        if (b->pins[k] < 0 || b->pins[k] >= nv) return vs_pin_index_error(bld, b, b->pins[k], nv, err);
        vs_builder_pin(bld, first + (int32_t)b->pins[k]);
      }
      break;
    case VS_PIN_NONE: break;
    case VS_PIN_TOP_EDGE:
    case VS_PIN_TOP_CORNERS:
    case VS_PIN_FIRST:
    case VS_PIN_LAST:
    case VS_PIN_BOTH:
      return vs_error_set(err, VS_ERR_SCENE, bld->file, b->pin_loc.line, b->pin_loc.column,
                          "bodies.%s.pin: a mesh takes a list of vertex numbers", b->name);
  }

  if (b->stretch.enabled || b->bend.enabled) {
    const size_t n = 3 * (size_t)nt;
    mesh_edge *e = edges_sorted(o);
    if (!e) return nomem(b, bld->file, err);
    if (b->stretch.enabled)
      for (size_t i = 0; i < n; i++)
        if (i == 0 || e[i].a != e[i - 1].a || e[i].b != e[i - 1].b)
          vs_builder_link(bld, first + e[i].a, first + e[i].b, &b->stretch, VS_ROLE_STRETCH,
                          b->tear, VS_SIDE_EQUAL, -1.0);
    if (b->bend.enabled)
      for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].a == e[i].a && e[j].b == e[i].b) j++;
        if (j - i == 2 && e[i].opp != e[i + 1].opp)
          vs_builder_link(bld, first + e[i].opp, first + e[i + 1].opp, &b->bend, VS_ROLE_BEND,
                          b->tear, VS_SIDE_EQUAL, -1.0);
        i = j;
      }
    vs_free(e);
  }

  int32_t *tt = bld->m->triangles;
  for (int32_t t = 0; t < nt; t++) {
    const int32_t k = bld->ntri++;
    for (int c = 0; c < 3; c++) tt[3 * k + c] = first + o->triangles[3 * t + c];
  }
  return VS_OK;
}
