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

int vs_mesh_entry(const vs_mesh_collider *mc, const double a[3], const double b[3], double r,
                  double *t, double n[3]) {
  vs_bvh_hit h;
  if (!vs_bvh_segment(mc->bvh, a, b, &h)) return 0;
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

int vs_mesh_sweep(const vs_mesh_collider *mc, const double a[3], double b[3], double r,
                  double n[3], double *push) {
  double te;
  if (!vs_mesh_entry(mc, a, b, r, &te, n)) return 0;
  /* Stop at te, then slide the rest along the plane: the normal part of
   * the remaining path is the push (as vs_collide_swept). */
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double rem = 1.0 - te, dn = dot3(d, n);
  for (int k = 0; k < 3; k++) b[k] = a[k] + te * d[k] + rem * (d[k] - dn * n[k]);
  *push = rem * -dn;
  return 1;
}

int vs_mesh_project(const vs_mesh_collider *mc, const double prev[3], double p[3], double r,
                    double n[3], double *depth) {
  const double R = r + mc->thickness;
  int moved = 0;
  double total = 0.0;
  vs_bvh_hit h;
  /* pulled through the surface since the start of the step: back to R on
   * prev's side of the crossed triangle's plane */
  if (vs_bvh_segment(mc->bvh, prev, p, &h)) {
    double sn[3];
    side_normal(mc->bvh, h.tri, h.normal, prev, p, sn);
    const double dp = plane_dist(mc->bvh, h.tri, sn, p);
    if (dp < R) {
      for (int k = 0; k < 3; k++) p[k] += (R - dp) * sn[k], n[k] = sn[k];
      total += R - dp;
      moved = 1;
    }
  }
  /* nearer than R to the mesh: out along the direction from the closest point */
  if (vs_bvh_closest(mc->bvh, p, R, &h) && h.dist < R) {
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

static inline double dist3(const double *a, const double *b) {
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(dot3(d, d));
}

/* Whether the path a -> b, and the R shell about b, lie inside the cached
 * mesh-free ball fb (with a margin for rounding: the BVH's edge tolerance
 * and the distance arithmetic are far below it). */
static int inside_free(const double *fb, const double a[3], const double b[3], double R) {
  const double d = fb[3];
  if (!(d > 0.0)) return 0;
  const double slack = 1e-9 * (d + 1.0);
  return dist3(a, fb) < d - slack && dist3(b, fb) + R <= d - slack;
}

/* The path a -> b is clear of the mesh by R at b: from the cache, or from
 * a new ball about b (radius: its distance to the mesh). */
static int clear_path(const vs_mesh_collider *mc, double *fb, const double a[3], const double b[3],
                      double R) {
  if (!fb) return 0;
  if (inside_free(fb, a, b, R)) return 1;
  vs_bvh_hit h;
  /* a small query ball: its cost grows with the triangles it reaches */
  const double cap = 2.0 * dist3(a, b) + 2.0 * R + 0.02;
  const double d = vs_bvh_closest(mc->bvh, b, cap, &h) ? h.dist : cap;
  fb[0] = b[0], fb[1] = b[1], fb[2] = b[2];
  fb[3] = d;
  return inside_free(fb, a, b, R);
}

int vs_mesh_clear(const vs_mesh_collider *mc, double *fb, const double a[3], const double b[3]) {
  return clear_path(mc, fb, a, b, 0.0);
}

void vs_collide_mesh_swept(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, double *free) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  if (clear_path(mc, free, xprev + 4 * (size_t)i, p, 0.0)) return;
  double n[3], push;
  if (vs_mesh_sweep(mc, xprev + 4 * (size_t)i, p, r, n, &push))
    record(contact, contact_collider, collider, i, n, push);
}

void vs_collide_mesh_particle(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                              double *x, double r, double *contact, int32_t *contact_collider,
                              int32_t i, double *free) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  /* the ball is renewed once a step, by the swept pass: a particle in
   * contact fails the test every sweep, and a query here would be wasted */
  if (free && inside_free(free, xprev + 4 * (size_t)i, p, r + mc->thickness)) return;
  double n[3], depth;
  if (vs_mesh_project(mc, xprev + 4 * (size_t)i, p, r, n, &depth))
    record(contact, contact_collider, collider, i, n, depth);
}
