/* collide_mesh.c: particles against a static triangle mesh (see
 * solve/collide_mesh.h for the rules). */
#include "solve/collide_mesh.h"

#include <math.h>
#include <string.h>

static inline double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static const double *corner0(const vs_bvh *b, int32_t t) {
  return b->v + 3 * (size_t)b->tri[3 * (size_t)t];
}

/* The unit normal of triangle t (face normal fn) on the side of a; a point
 * in the plane takes the side opposite to the motion a -> b.  Returns a's
 * signed distance from the plane along that normal (>= 0). */
static double side_normal(const vs_bvh *b, int32_t t, const double fn[3], const double a[3],
                          const double bpt[3], double n[3]) {
  const double *v0 = corner0(b, t);
  const double rel[3] = {a[0] - v0[0], a[1] - v0[1], a[2] - v0[2]};
  double da = dot3(rel, fn), s = 1.0;
  if (da < 0.0) s = -1.0;
  else if (da == 0.0) {
    const double d[3] = {bpt[0] - a[0], bpt[1] - a[1], bpt[2] - a[2]};
    if (dot3(d, fn) > 0.0) s = -1.0;
  }
  for (int k = 0; k < 3; k++) n[k] = s * fn[k];
  return s * da;
}

static double plane_dist(const vs_bvh *b, int32_t t, const double n[3], const double p[3]) {
  const double *v0 = corner0(b, t);
  const double rel[3] = {p[0] - v0[0], p[1] - v0[1], p[2] - v0[2]};
  return dot3(rel, n);
}

/* The queries, over the whole BVH (cache NULL) or a particle's cached list
 * (when it covers the query: collide_mesh.h, vs_mesh_cache). */
static int q_segment(const vs_mesh_collider *mc, const vs_mesh_cache *cache, const double a[3],
                     const double b[3], vs_bvh_hit *h) {
  return cache ? vs_bvh_segment_list(mc->bvh, cache->tri, cache->n, a, b, h)
               : vs_bvh_segment(mc->bvh, a, b, h);
}

static int q_closest(const vs_mesh_collider *mc, const vs_mesh_cache *cache, const double p[3],
                     double maxd, vs_bvh_hit *h) {
  return cache ? vs_bvh_closest_list(mc->bvh, cache->tri, cache->n, p, maxd, h)
               : vs_bvh_closest(mc->bvh, p, maxd, h);
}

/* Whether every triangle within R of q is in the cache's list. */
static inline int covers(const vs_mesh_cache *c, const double q[3], double R) {
  if (!(c->reach > R)) return 0;
  const double d[3] = {q[0] - c->c[0], q[1] - c->c[1], q[2] - c->c[2]};
  const double lim = c->reach - R;
  return dot3(d, d) < lim * lim;
}

/* Whether the path a -> b and the R shell about b lie in the cache's
 * mesh-free ball (the list is not needed: nothing can touch). */
static inline int clear_of(const vs_mesh_cache *c, const double a[3], const double b[3], double R) {
  if (!(c->clear > R)) return 0;
  const double da[3] = {a[0] - c->c[0], a[1] - c->c[1], a[2] - c->c[2]};
  const double db[3] = {b[0] - c->c[0], b[1] - c->c[1], b[2] - c->c[2]};
  const double lim = c->clear - R;
  return dot3(db, db) < lim * lim && dot3(da, da) < c->clear * c->clear;
}

const vs_mesh_cache *vs_mesh_cache_step(const vs_mesh_collider *mc, vs_mesh_cache *c,
                                        const double a[3], const double b[3], double r) {
  if (!c) return NULL;
  const double R = r + mc->thickness;
  if (!covers(c, a, 0.0) || !covers(c, b, R)) {
    /* about the middle of the path, in a small ball (a query's cost grows
     * with the triangles it reaches) that holds the path and b's shell */
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double m[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
    const double cap = 0.5 * sqrt(dot3(d, d)) + 4.0 * R + 1e-3 * mc->bvh->extent;
    c->n = vs_bvh_nearest(mc->bvh, m, VS_MESH_CACHE, cap, c->tri, &c->reach, &c->clear);
    c->c[0] = m[0], c->c[1] = m[1], c->c[2] = m[2];
  }
  c->step_ok = covers(c, a, 0.0);
  return c->step_ok && covers(c, b, R) ? c : NULL;
}

static int entry(const vs_mesh_collider *mc, const vs_mesh_cache *cache, const double a[3],
                 const double b[3], double r, double *t, double n[3]) {
  vs_bvh_hit h;
  if (cache && clear_of(cache, a, b, 0.0)) return 0;
  if (!q_segment(mc, cache, a, b, &h)) return 0;
  const double R = r + mc->thickness;
  const double da = side_normal(mc->bvh, h.tri, h.normal, a, b, n);
  const double db = plane_dist(mc->bvh, h.tri, n, b);
  if (db >= R) return 0; /* (rounding at a grazing hit: b is on a's side) */
  double te = 0.0;
  if (da > R) te = (da - R) / (da - db);
  if (te > 1.0) te = 1.0;
  *t = te;
  return 1;
}

int vs_mesh_entry(const vs_mesh_collider *mc, const double a[3], const double b[3], double r,
                  double *t, double n[3]) {
  return entry(mc, NULL, a, b, r, t, n);
}

int vs_mesh_entry_cached(const vs_mesh_collider *mc, vs_mesh_cache *cache, const double a[3],
                         const double b[3], double r, double *t, double n[3]) {
  return entry(mc, vs_mesh_cache_step(mc, cache, a, b, r), a, b, r, t, n);
}

static int sweep(const vs_mesh_collider *mc, const vs_mesh_cache *cache, const double a[3],
                 double b[3], double r, double n[3], double *push) {
  double te;
  if (!entry(mc, cache, a, b, r, &te, n)) return 0;
  /* Stop at te, then slide the rest along the plane: the normal part of
   * the remaining path is the push (as vs_collide_swept). */
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double rem = 1.0 - te, dn = dot3(d, n);
  for (int k = 0; k < 3; k++) b[k] = a[k] + te * d[k] + rem * (d[k] - dn * n[k]);
  *push = rem * -dn;
  return 1;
}

int vs_mesh_sweep(const vs_mesh_collider *mc, const double a[3], double b[3], double r,
                  double n[3], double *push) {
  return sweep(mc, NULL, a, b, r, n, push);
}

static int project(const vs_mesh_collider *mc, const vs_mesh_cache *cache, const double prev[3],
                   double p[3], double r, double n[3], double *depth) {
  const double R = r + mc->thickness;
  int moved = 0;
  double total = 0.0;
  vs_bvh_hit h;
  /* pulled through the surface since the start of the step: back to R on
   * prev's side of the crossed triangle's plane */
  if (q_segment(mc, cache, prev, p, &h)) {
    double sn[3];
    side_normal(mc->bvh, h.tri, h.normal, prev, p, sn);
    const double dp = plane_dist(mc->bvh, h.tri, sn, p);
    if (dp < R) {
      for (int k = 0; k < 3; k++) p[k] += (R - dp) * sn[k], n[k] = sn[k];
      total += R - dp;
      moved = 1;
      /* p moved: the list answers for the new p only if it still covers it */
      if (cache && !covers(cache, p, R)) cache = NULL;
    }
  }
  /* nearer than R to the mesh: out along the direction from the closest point */
  if (q_closest(mc, cache, p, R, &h) && h.dist < R) {
    double u[3];
    if (h.dist > 0.0) {
      for (int k = 0; k < 3; k++) u[k] = (p[k] - h.point[k]) / h.dist;
    } else {
      side_normal(mc->bvh, h.tri, h.normal, prev, p, u);
    }
    for (int k = 0; k < 3; k++) p[k] = h.point[k] + R * u[k], n[k] = u[k];
    total += R - h.dist;
    moved = 1;
  }
  *depth = total;
  return moved;
}

int vs_mesh_project(const vs_mesh_collider *mc, const double prev[3], double p[3], double r,
                    double n[3], double *depth) {
  return project(mc, NULL, prev, p, r, n, depth);
}

double vs_mesh_penetration(const vs_mesh_collider *mc, const double p[3], double r) {
  const double R = r + mc->thickness;
  vs_bvh_hit h;
  if (!vs_bvh_closest(mc->bvh, p, R, &h) || h.dist >= R) return 0.0;
  return R - h.dist;
}

static void record(double *contact, int32_t *contact_collider, int32_t collider, int32_t i,
                   const double n[3], double depth) {
  double *ct = contact + 4 * (size_t)i;
  ct[0] = n[0], ct[1] = n[1], ct[2] = n[2];
  ct[3] += depth;
  contact_collider[i] = collider;
}

void vs_collide_mesh_swept(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, vs_mesh_cache *cache) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  const double *a = xprev + 4 * (size_t)i;
  double n[3], push;
  if (sweep(mc, vs_mesh_cache_step(mc, cache, a, p, r), a, p, r, n, &push))
    record(contact, contact_collider, collider, i, n, push);
}

void vs_collide_mesh_particle(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                              double *x, double r, double *contact, int32_t *contact_collider,
                              int32_t i, const vs_mesh_cache *cache) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  /* the list answers while this step's start and p's R shell lie in its
   * ball (renewed about the path when they do not); nothing near: done */
  const double R = r + mc->thickness;
  const double *a = xprev + 4 * (size_t)i;
  const vs_mesh_cache *use = cache;
  if (cache && !(cache->step_ok && covers(cache, p, R))) use = NULL;
  if (use && clear_of(use, a, p, R)) return;
  double n[3], depth;
  if (project(mc, use, a, p, r, n, &depth))
    record(contact, contact_collider, collider, i, n, depth);
}
