/* SPDX-License-Identifier: MIT */
/* hull_int.h (private): what the convex hull's two files share -- the
 * triangles of the hull being built (hull.c) that hull_faces.c merges into
 * faces and measures. */
#ifndef VSIM_MODEL_HULL_INT_H
#define VSIM_MODEL_HULL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/hull.h"

typedef struct tri {
  int32_t v[3];  /* counter-clockwise from outside */
  int32_t nb[3]; /* the triangle across edge v[e] -> v[e + 1] */
  double n[3], d;
  int32_t alive, mark;
} tri;

typedef struct hb {
  const double *p; /* (n x 3) scaled points */
  int32_t n;
  double eps, ext; /* the tolerance, the points' extent */
  tri *t;
  int32_t nt, cap, live;
  int32_t stamp;    /* this insertion's mark */
  int32_t *vmark;   /* (n) stamp of a vertex on this insertion's horizon */
  int32_t *vnext;   /* (n) its horizon edge */
  int32_t *stack;   /* (4n + 16) visible triangles, then their list */
  int32_t *hf, *he; /* (6n + 64) horizon edges: triangle, edge */
  int32_t *order;   /* (6n + 64) the horizon in cycle order */
  int32_t skipped;  /* points whose horizon was not one cycle (near-coplanar) */
} hb;

/* why <- the message; returns 0 */
int vs_hull_fail(char *why, size_t nwhy, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The hull of h's live triangles: coplanar ones merged into faces, in the
 * canonical order, its mass properties and principal frame, checked to be
 * closed and to hold every point (VS_ERR_SCENE otherwise, why says so). */
vs_status vs_hull_finish(hb *h, vs_hull *out, char *why, size_t nwhy);

#endif
