/* SPDX-License-Identifier: MIT */
/* collide_mesh.h (private): particles against a static triangle mesh, found
 * through its grid of triangle lists (model/meshgrid.h) or its BVH
 * (model/bvh.h).  Built to plug in as a collider kind next to
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
 *   - project (once at the end of the step, and every sweep when there is
 *     no contact plane, below): if the path xprev -> x
 *     crosses a triangle (a constraint pulled it through), x goes back to R
 *     on xprev's side of that triangle's plane; then, if the closest point q
 *     of the mesh is nearer than R, x = q + R (x - q) / |x - q|.
 * Nothing allocates; particles may be handled on many threads at once. */
#ifndef VSIM_COLLIDE_MESH_H
#define VSIM_COLLIDE_MESH_H

#include <stdint.h>

#include "model/bvh.h"
#include "model/meshgrid.h"

typedef struct vs_mesh_collider {
  const vs_bvh *bvh;  /* over the mesh's triangles (zero-area ones left out) */
  const vs_mesh_grid *grid; /* NULL: every query walks the BVH */
  double margin;      /* the contact planes' reach; 0: the grid's, else R */
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

/* Per step, the contact plane of a particle (one per particle and mesh
 * collider, in the solver's scratch; written by the swept pass before any
 * read, so it needs no checkpoint): the closest point q of the mesh to the
 * particle after the swept test, within the grid's margin, and the unit
 * normal n from q towards the particle (on the side it came from); on = 0
 * when no triangle is that near. */
typedef struct vs_mesh_contact {
  double q[3], n[3];
  double c[3];  /* where the particle was (after the swept test) */
  double clear; /* no triangle is nearer than this to c (0: unknown) */
  int32_t tri;  /* the triangle q lies on */
  int32_t on;
} vs_mesh_contact;

/* The solver's scratch keeps a contact in two arrays (solve.h): the plane
 * the relaxation reads every sweep (48 bytes, so that the particles on the
 * mesh share cache lines: the 88-byte record brought 1.4 lines a particle
 * into every sweep), and the mesh-free ball the final pass reads (32
 * bytes; model/estimate.c counts both). */
typedef struct vs_mesh_plane {
  double q[3], n[3];
} vs_mesh_plane;
typedef struct vs_mesh_ball {
  double c[3], clear;
} vs_mesh_ball;

/* collide.c's conventions, for particle i of the (n x 4) arrays x and
 * xprev (w = x[4i+3] == 0: pinned, untouched): record the push in
 * contact[4i..] (normal, depth += push) and contact_collider[i] = collider.
 *
 * The collision detection runs once a step (Macklin and Mueller's PBD):
 *   - swept: the swept test of the path xprev -> x (above), then the
 *     contact plane of x (cp, when not NULL);
 *   - particle (each relaxation sweep): with cp, x is kept R on the
 *     normal's side of cp's plane and nothing else (a few operations, as
 *     the plane collider); with cp NULL, the exact projection above;
 *   - final (once, after the relaxation, before the velocity pass): the
 *     exact projection, so that no particle ends the step crossed through
 *     or inside the R shell of any triangle (left out where it can find
 *     nothing: a path beside the grid's box; a start and shell inside cp's
 *     mesh-free ball; the closest-point query when the shell alone is).
 * With mc->grid the queries look up the grid's cells (model/meshgrid.h),
 * falling back to the BVH for paths longer than 32 margins; the answers
 * are the BVH's either way. */
/* The contact plane of a particle at p whose step started at a.  (The
 * final pass skips a particle whose path and shell stay in the mesh-free
 * ball (c, clear): nothing there to find.) */
void vs_mesh_contact_plane(const vs_mesh_collider *mc, const double a[3], const double p[3],
                           double r, vs_mesh_contact *cp);
/* As vs_mesh_contact_plane, but returns 0 and leaves cp unwritten when p is
 * outside the grid's cells (then it has no triangle within the plane's
 * reach: no plane; most of a cloth beside a small mesh), else 1.  The
 * record then holds nothing: the caller marks it (solve.h, mesh_on = 2)
 * and passes no cp to vs_collide_mesh_final. */
int vs_mesh_contact_plane_near(const vs_mesh_collider *mc, const double a[3], const double p[3],
                               double r, vs_mesh_contact *cp);
void vs_collide_mesh_swept(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, vs_mesh_contact *cp);
void vs_collide_mesh_particle(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                              double *x, double r, double *contact, int32_t *contact_collider,
                              int32_t i, const vs_mesh_contact *cp);
/* (final: cp, when given, the mesh-free ball of the particle's contact
 * record) */
void vs_collide_mesh_final(const vs_mesh_collider *mc, int32_t collider, const double *xprev,
                           double *x, double r, double *contact, int32_t *contact_collider,
                           int32_t i, const vs_mesh_ball *cp);

#endif
