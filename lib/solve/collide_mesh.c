/* SPDX-License-Identifier: MIT */
/* collide_mesh.c: particles against a static triangle mesh (see
 * solve/collide_mesh.h for the rules). */
#include "solve/collide_mesh.h"

#include <math.h>
#include <string.h>

#include "util/vec3.h"

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
  double da = vs_dot3(rel, fn), s = 1.0;
  if (da < 0.0) s = -1.0;
  else if (da == 0.0) {
    const double d[3] = {bpt[0] - a[0], bpt[1] - a[1], bpt[2] - a[2]};
    if (vs_dot3(d, fn) > 0.0) s = -1.0;
  }
  for (int k = 0; k < 3; k++) n[k] = s * fn[k];
  return s * da;
}

static double plane_dist(const vs_bvh *b, int32_t t, const double n[3], const double p[3]) {
  const double *v0 = corner0(b, t);
  const double rel[3] = {p[0] - v0[0], p[1] - v0[1], p[2] - v0[2]};
  return vs_dot3(rel, n);
}

/* The queries: through the grid's cells when there is a grid and the
 * query fits its margin, else the whole BVH; the same answer either way
 * (a cell's list holds every triangle within the margin of its points:
 * model/meshgrid.h; the list queries answer as the BVH: model/bvh.h). */
#define SEG_PIECES 16 /* the longest path through the grid: 32 margins */
#define LIST_MAX 64   /* vs_bvh_closest_list's longest list */

static inline const int32_t *cell_list(const vs_mesh_grid *g, int64_t c, int *n) {
  *n = g->start[c + 1] - g->start[c];
  return g->tri + g->start[c];
}

/* Whether the path a -> b lies wholly on one side of the grid's box: then
 * no triangle is within the grid's margin of it (most of a cloth hanging
 * beside a small mesh). */
static inline int beside_grid(const vs_mesh_grid *g, const double a[3], const double b[3]) {
  for (int k = 0; k < 3; k++) {
    const double hi = g->lo[k] + g->h * (double)g->n[k];
    if ((a[k] < g->lo[k] && b[k] < g->lo[k]) || (a[k] > hi && b[k] > hi)) return 1;
  }
  return 0;
}

static int q_segment(const vs_mesh_collider *mc, const double a[3], const double b[3],
                     vs_bvh_hit *h) {
  const vs_mesh_grid *g = mc->grid;
  if (!g) return vs_bvh_segment(mc->bvh, a, b, h);
  if (beside_grid(g, a, b)) return 0;
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double len = sqrt(vs_dot3(d, d));
  /* pieces of at most 2 margins: each point of the path lies within a
   * margin of its piece's middle, so the middles' cells hold every
   * triangle the path meets */
  const double pieces = ceil(len / (2.0 * g->margin));
  if (!(pieces <= SEG_PIECES)) return vs_bvh_segment(mc->bvh, a, b, h);
  const int np = pieces < 1.0 ? 1 : (int)pieces;
  /* the pieces' cells first, their list bounds fetched at once: each
   * lookup waits on memory (the bounds, then the list, then the planes),
   * and the pieces' waits then overlap */
  int64_t cell[SEG_PIECES];
  for (int j = 0; j < np; j++) {
    const double f = ((double)j + 0.5) / (double)np;
    const double s[3] = {a[0] + f * d[0], a[1] + f * d[1], a[2] + f * d[2]};
    cell[j] = vs_mesh_grid_cell(g, s);
    if (cell[j] >= 0) __builtin_prefetch(g->start + cell[j]);
  }
  int found = 0;
  int64_t last = -1;
  for (int j = 0; j < np; j++) {
    const int64_t c = cell[j];
    if (c < 0 || c == last) continue;
    last = c;
    int n;
    const int32_t *list = cell_list(g, c, &n);
    vs_bvh_hit hh;
    if (n > 0 && vs_bvh_segment_list(mc->bvh, list, n, a, b, &hh) &&
        (!found || hh.t < h->t || (hh.t == h->t && hh.tri < h->tri)))
      *h = hh, found = 1;
  }
  return found;
}

static int q_closest(const vs_mesh_collider *mc, const double p[3], double maxd, vs_bvh_hit *h) {
  const vs_mesh_grid *g = mc->grid;
  if (!g || !(maxd <= g->margin)) return vs_bvh_closest(mc->bvh, p, maxd, h);
  const int64_t c = vs_mesh_grid_cell(g, p);
  if (c < 0) return 0;
  int n;
  const int32_t *list = cell_list(g, c, &n);
  /* long lists (a pole's fan) in pieces: the nearest of the pieces'
   * nearest, ties to the lowest number */
  int found = 0;
  for (int k = 0; k < n; k += LIST_MAX) {
    vs_bvh_hit hh;
    if (vs_bvh_closest_list(mc->bvh, list + k, n - k < LIST_MAX ? n - k : LIST_MAX, p, maxd, &hh) &&
        (!found || hh.dist < h->dist || (hh.dist == h->dist && hh.tri < h->tri))) {
      *h = hh, found = 1;
      maxd = hh.dist;
    }
  }
  return found;
}

static int entry(const vs_mesh_collider *mc, const double a[3], const double b[3], double r,
                 double *t, double n[3]) {
  vs_bvh_hit h;
  if (!q_segment(mc, a, b, &h)) return 0;
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
  return entry(mc, a, b, r, t, n);
}

static int sweep(const vs_mesh_collider *mc, const double a[3], double b[3], double r,
                 double n[3], double *push) {
  double te;
  if (!entry(mc, a, b, r, &te, n)) return 0;
  /* Stop at te, then slide the rest along the plane: the normal part of
   * the remaining path is the push (as vs_collide_swept). */
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double rem = 1.0 - te, dn = vs_dot3(d, n);
  for (int k = 0; k < 3; k++) b[k] = a[k] + te * d[k] + rem * (d[k] - dn * n[k]);
  *push = rem * -dn;
  return 1;
}

int vs_mesh_sweep(const vs_mesh_collider *mc, const double a[3], double b[3], double r,
                  double n[3], double *push) {
  return sweep(mc, a, b, r, n, push);
}

/* Whether p's R shell lies inside cp's mesh-free ball (c, clear): then no
 * triangle is within R of p. */
static inline int shell_free(const vs_mesh_ball *cp, const double p[3], double R) {
  const double lim = cp->clear - R;
  const double dp[3] = {p[0] - cp->c[0], p[1] - cp->c[1], p[2] - cp->c[2]};
  return cp->clear > 0.0 && lim > 0.0 && vs_dot3(dp, dp) < lim * lim;
}

/* (cp, when given: the closest-point query is left out when p has not
 * moved and its shell is inside cp's mesh-free ball: it would find
 * nothing) */
static int project(const vs_mesh_collider *mc, const vs_mesh_ball *cp, const double prev[3],
                   double p[3], double r, double n[3], double *depth) {
  const double R = r + mc->thickness;
  int moved = 0;
  double total = 0.0;
  vs_bvh_hit h;
  /* pulled through the surface since the start of the step: back to R on
   * prev's side of the crossed triangle's plane */
  if (q_segment(mc, prev, p, &h)) {
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
  if (!(cp && !moved && shell_free(cp, p, R)) && q_closest(mc, p, R, &h) && h.dist < R) {
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
  /* (through the grid: the observation of every frame asks this of every
   * particle, and the BVH walk cost 11 % of a bench row's vsim run) */
  if (!q_closest(mc, p, R, &h) || h.dist >= R) return 0.0;
  return R - h.dist;
}

static void record(double *contact, int32_t *contact_collider, int32_t collider, int32_t i,
                   const double n[3], double depth) {
  double *ct = contact + 4 * (size_t)i;
  ct[0] = n[0], ct[1] = n[1], ct[2] = n[2];
  ct[3] += depth;
  contact_collider[i] = collider;
}

void vs_mesh_contact_plane(const vs_mesh_collider *mc, const double a[3], const double p[3],
                           double r, vs_mesh_contact *cp) {
  cp->on = 0;
  /* the closest point within the grid's margin (the relaxation moves a
   * particle: one a little farther than R can reach the shell) */
  const double R = r + mc->thickness,
               maxd = mc->margin > 0.0 ? mc->margin : mc->grid ? mc->grid->margin : R;
  vs_bvh_hit h;
  for (int k = 0; k < 3; k++) cp->c[k] = p[k];
  /* (less a rounding allowance far above vs_tri_closest's) */
  const double tol = 1e-9 * (mc->bvh->scale + fabs(p[0]) + fabs(p[1]) + fabs(p[2]));
  if (!q_closest(mc, p, maxd, &h)) {
    cp->clear = maxd - tol;
    return;
  }
  cp->clear = h.dist - tol;
  double u[3];
  if (h.dist > 0.0) {
    for (int k = 0; k < 3; k++) u[k] = (p[k] - h.point[k]) / h.dist;
  } else {
    side_normal(mc->bvh, h.tri, h.normal, a, p, u);
  }
  for (int k = 0; k < 3; k++) cp->q[k] = h.point[k], cp->n[k] = u[k];
  cp->tri = h.tri;
  cp->on = 1;
}

int vs_mesh_contact_plane_near(const vs_mesh_collider *mc, const double a[3], const double p[3],
                               double r, vs_mesh_contact *cp) {
  const vs_mesh_grid *g = mc->grid;
  const double R = r + mc->thickness,
               maxd = mc->margin > 0.0 ? mc->margin : g ? g->margin : R;
  /* outside the grid: q_closest finds nothing within the grid's margin */
  if (g && maxd <= g->margin && vs_mesh_grid_cell(g, p) < 0) return 0;
  vs_mesh_contact_plane(mc, a, p, r, cp);
  return 1;
}

void vs_collide_mesh_swept(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, vs_mesh_contact *cp) {
  double *p = x + 4 * (size_t)i;
  const double *a = xprev + 4 * (size_t)i;
  if (p[3] != 0.0) {
    double n[3], push;
    if (sweep(mc, a, p, r, n, &push)) record(contact, contact_collider, collider, i, n, push);
  }
  if (cp) {
    if (p[3] != 0.0) vs_mesh_contact_plane(mc, a, p, r, cp);
    else cp->on = 0;
  }
}

void vs_collide_mesh_particle(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                              double *x, double r, double *contact, int32_t *contact_collider,
                              int32_t i, const vs_mesh_contact *cp) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  double n[3], depth;
  if (!cp) {
    if (project(mc, NULL, xprev + 4 * (size_t)i, p, r, n, &depth))
      record(contact, contact_collider, collider, i, n, depth);
    return;
  }
  if (!cp->on) return;
  /* R on the normal's side of the contact plane, as the plane collider */
  const double R = r + mc->thickness;
  const double d = (p[0] - cp->q[0]) * cp->n[0] + (p[1] - cp->q[1]) * cp->n[1] +
                   (p[2] - cp->q[2]) * cp->n[2];
  if (d >= R) return;
  const double push = R - d;
  p[0] += push * cp->n[0], p[1] += push * cp->n[1], p[2] += push * cp->n[2];
  record(contact, contact_collider, collider, i, cp->n, push);
}

void vs_collide_mesh_final(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, const vs_mesh_ball *cp) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  const double R = r + mc->thickness;
  /* the path beside the grid: it meets nothing, nor has p a triangle
   * within R <= the margin (and cp stays unread) */
  if (mc->grid && R <= mc->grid->margin && beside_grid(mc->grid, xprev + 4 * (size_t)i, p)) return;
  if (cp && shell_free(cp, p, R)) {
    /* the step's start too inside the mesh-free ball (c, clear): the path
     * cannot meet a triangle, nor p's shell touch one */
    const double *a = xprev + 4 * (size_t)i;
    const double da[3] = {a[0] - cp->c[0], a[1] - cp->c[1], a[2] - cp->c[2]};
    if (vs_dot3(da, da) < cp->clear * cp->clear) return;
  }
  double n[3], depth;
  if (project(mc, cp, xprev + 4 * (size_t)i, p, r, n, &depth))
    record(contact, contact_collider, collider, i, n, depth);
}
