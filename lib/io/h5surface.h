/* SPDX-License-Identifier: MIT */
/* h5surface.h (private): the rigid bodies' surfaces as triangle meshes, for
 * viewers (docs/result-file.md, /particles/rigid_surface).  XDMF and most
 * viewers cannot turn a shape by a per-body quaternion, so the writer stores
 * every recorded frame's surface vertices in world coordinates.
 *
 * Each body has a fixed small mesh in its own frame:
 *   box      8 vertices, 12 triangles (the corners; bit 0 of the vertex
 *            index is +x, bit 1 +y, bit 2 +z)
 *   sphere   an icosphere of level 1: 42 vertices on the sphere, 80 triangles
 *   capsule  along local y: 2 poles and 6 rings of 12 (3 per hemisphere, the
 *            last at the cap centre), 74 vertices, 144 triangles
 *   convex   its hull's vertices (at most 256), each face fanned from its
 *            first vertex (2 V - 4 triangles)
 * Triangles are counter-clockwise seen from outside (outward normals). */
#ifndef VSIM_IO_H5SURFACE_H
#define VSIM_IO_H5SURFACE_H

#include <stddef.h>
#include <stdint.h>

#include "vsim/model.h"

#define H5S_MAX_VERTS 256 /* a convex hull's; the sphere's 42, the capsule's 74 */
#define H5S_MAX_TRIS 508

/* Vertices and triangles of one body of shape `shape` (vs_rigid_shape);
 * 0 and 0 for an unknown shape. */
__attribute__((visibility("hidden"))) void h5s_shape_counts(int shape, int *nv, int *nt);

/* The body-frame mesh of one body: local [nv][3] (may be NULL) and tri
 * [nt][3] (0-based into this body's vertices; may be NULL). */
__attribute__((visibility("hidden"))) void h5s_shape_mesh(int shape, const double size[3],
                                                          double *local, int32_t *tri);

/* The same for rigid body b of model m (a convex body's from its hull). */
__attribute__((visibility("hidden"))) void h5s_body_counts(const vs_model *m, int32_t b, int *nv,
                                                           int *nt);
__attribute__((visibility("hidden"))) void h5s_body_mesh(const vs_model *m, int32_t b,
                                                         double *local, int32_t *tri);

/* Totals over the model's rigid bodies. */
__attribute__((visibility("hidden"))) void h5s_model_counts(const vs_model *m, size_t *nv,
                                                            size_t *nt);

/* World coordinates [V][3] of every body's vertices, bodies in order, from
 * the centres rx [B][3] and orientations rq [B][4] (w, x, y, z): out_f64 or
 * out_f32 (the other NULL).  Allocates nothing. */
__attribute__((visibility("hidden"))) void h5s_world(const vs_model *m, const double *rx,
                                                     const double *rq, double *out_f64,
                                                     float *out_f32);

#endif
