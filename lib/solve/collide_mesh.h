/* collide_mesh.h (private): particles against a static triangle mesh, found
 * through its BVH (model/bvh.h).  Built to plug in as a collider kind next to
 * the analytic ones of collide.c, with the same contact record: contact[4i..]
 * = (unit normal, accumulated push depth), contact_collider[i] = the
 * collider's number, read by the friction/restitution pass of step.c.
 *
 * "Outside" is the side a particle came from: a particle of radius r is kept
 * at distance R = r + thickness from every triangle, on the side of its
 * position at the start of the step (xprev), so an open mesh (a floor, a
 * single triangle) works from both sides, and a particle never crosses the
 * surface within a step:
 *   - swept (once per step, before the relaxation, as vs_collide_swept): if
 *     the path xprev -> x crosses a triangle, the particle stops where it is
 *     R from that triangle's plane, and slides the rest of the way along it;
 *   - project (every sweep, as vs_collide_particle): if the path xprev -> x
 *     crosses a triangle (a constraint pulled it through), x goes back to R
 *     on xprev's side of that triangle's plane; then, if the closest point q
 *     of the mesh is nearer than R, x = q + R (x - q) / |x - q|.
 * Nothing allocates; particles may be handled on many threads at once. */
#ifndef VSIM_COLLIDE_MESH_H
#define VSIM_COLLIDE_MESH_H

#include <stdint.h>

#include "model/bvh.h"

typedef struct vs_mesh_collider {
  const vs_bvh *bvh;  /* over the mesh's triangles (zero-area ones left out) */
  double thickness;   /* >= 0, added to each particle's radius */
  double friction;    /* Coulomb coefficient, for the velocity pass */
  double restitution; /* for the velocity pass */
} vs_mesh_collider;

/* Where the path a -> b of a particle of radius r should stop: 1 when the
 * path crosses the surface, with *t in [0, 1] (the point R from the crossed
 * triangle's plane, 0 when a is already nearer) and n the unit normal on a's
 * side; else 0.  (For choosing the earliest among several colliders, as
 * collide.c's entry() does.) */
int vs_mesh_entry(const vs_mesh_collider *mc, const double a[3], const double b[3], double r,
                  double *t, double n[3]);

/* The swept test of the path a -> *b for a particle of radius r: 1 when it
 * crosses the surface, with b moved (stop, then slide), n the unit normal
 * on a's side and *push the normal distance taken off the path; else 0. */
int vs_mesh_sweep(const vs_mesh_collider *mc, const double a[3], double b[3], double r,
                  double n[3], double *push);

/* The projection of *p (radius r, start of step at prev): 1 when p moved,
 * with n the last push direction and *depth the distance pushed; else 0. */
int vs_mesh_project(const vs_mesh_collider *mc, const double prev[3], double p[3], double r,
                    double n[3], double *depth);

/* How far p (radius r) is inside the R shell: max(0, R - distance to the
 * mesh).  (A particle deep inside a closed mesh is not seen: the side a
 * particle belongs to is a matter of its history.) */
double vs_mesh_penetration(const vs_mesh_collider *mc, const double p[3], double r);

/* collide.c's conventions, for particle i of the (n x 4) arrays x and
 * xprev (w = x[4i+3] == 0: pinned, untouched): record the push in
 * contact[4i..] (normal, depth += push) and contact_collider[i] = collider. */
/* A particle's cached neighbourhood (one per particle and mesh collider,
 * in the solver's scratch, zeroed at first): the VS_MESH_CACHE triangles
 * nearest to the centre c, and `reach`, a distance from c within which no
 * other triangle lies.  While this step's start xprev and the R shell about
 * x lie inside that ball, every triangle the queries could find is in the
 * list, and the list answers them (vs_bvh_segment_list, _closest_list),
 * with the same answer as the whole BVH: the cache only saves time, so it
 * needs no checkpoint and is the same on any number of threads.  The swept
 * pass renews it, once a step, when xprev or x's shell has left it: a slow
 * particle near the mesh gets a list (vs_bvh_nearest about the middle of
 * its path), a fast or far one only a mesh-free ball (n = 0, reach = clear
 * = its distance to the mesh); the relaxation's projections only read it,
 * and the whole BVH answers while x is outside. */
#define VS_MESH_CACHE 32 /* 176 bytes a cache (model/estimate.c counts them) */

typedef struct vs_mesh_cache {
  double c[3];   /* centre */
  double reach;  /* no triangle but tri[] is nearer than this to c; 0: none yet */
  double clear;  /* no triangle at all is nearer than this to c */
  int32_t n;     /* triangles in tri[] */
  int32_t step_ok; /* this step's xprev lies inside (set by vs_mesh_cache_step) */
  int32_t tri[VS_MESH_CACHE];
} vs_mesh_cache;

/* The swept pass's look at the cache (renewed about b when a or b's shell
 * has left it): the cache when its list answers for the path a -> b, else
 * NULL (the whole BVH must answer).  cache may be NULL. */
const vs_mesh_cache *vs_mesh_cache_step(const vs_mesh_collider *mc, vs_mesh_cache *cache,
                                        const double a[3], const double b[3], double r);
/* vs_mesh_entry through the cache (NULL: none), renewing it as above. */
int vs_mesh_entry_cached(const vs_mesh_collider *mc, vs_mesh_cache *cache, const double a[3],
                         const double b[3], double r, double *t, double n[3]);

/* cache: NULL, or particle i's (renewed as needed). */
void vs_collide_mesh_swept(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, vs_mesh_cache *cache);
void vs_collide_mesh_particle(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                              double *x, double r, double *contact, int32_t *contact_collider,
                              int32_t i, const vs_mesh_cache *cache);

#endif
