/* SPDX-License-Identifier: MIT */
/* rigid_shapes.c: one row per rigid shape (VS_RIGID_SHAPES, vsim/kind.h):
 * valid sizes, volume, inertia and bounding radius.  The table is built from
 * the kind table by name (shape_<name>_*), so a new row of VS_RIGID_SHAPES
 * fails to build here until its functions exist. */
#include <math.h>

#include "model/rigid_model.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- box: size = full extents ---- */
static int box_size_ok(double s[3]) { return s[0] > 0 && s[1] > 0 && s[2] > 0 ? VS_OK : VS_ERR_USAGE; }
static double box_volume(const double s[3]) { return s[0] * s[1] * s[2]; }
static void box_inertia(const double s[3], double mass, double I[3]) {
  double x2 = s[0] * s[0], y2 = s[1] * s[1], z2 = s[2] * s[2];
  I[0] = mass / 12.0 * (y2 + z2);
  I[1] = mass / 12.0 * (x2 + z2);
  I[2] = mass / 12.0 * (x2 + y2);
}
static double box_bound(const double s[3]) { return 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]); }
static void box_extent(const double s[3], const double R[9], double e[3]) {
  for (int k = 0; k < 3; k++)
    e[k] = 0.5 * (fabs(R[3 * k]) * s[0] + fabs(R[3 * k + 1]) * s[1] + fabs(R[3 * k + 2]) * s[2]);
}

/* ---- sphere: size[0] = radius ---- */
static int sphere_size_ok(double s[3]) {
  s[1] = s[2] = 0.0;
  return s[0] > 0 ? VS_OK : VS_ERR_USAGE;
}
static double sphere_volume(const double s[3]) { return 4.0 / 3.0 * M_PI * s[0] * s[0] * s[0]; }
static void sphere_inertia(const double s[3], double mass, double I[3]) {
  I[0] = I[1] = I[2] = 0.4 * mass * s[0] * s[0];
}
static double sphere_bound(const double s[3]) { return s[0]; }
static void sphere_extent(const double s[3], const double R[9], double e[3]) {
  (void)R;
  e[0] = e[1] = e[2] = s[0];
}

/* ---- capsule: size[0] = radius, size[1] = length between the cap centres (local y) ---- */
static int capsule_size_ok(double s[3]) {
  s[2] = 0.0;
  return s[0] > 0 && s[1] >= 0 ? VS_OK : VS_ERR_USAGE;
}
static double capsule_volume(const double s[3]) {
  double r = s[0], l = s[1];
  return M_PI * r * r * l + 4.0 / 3.0 * M_PI * r * r * r;
}
static void capsule_inertia(const double s[3], double mass, double I[3]) {
  /* cylinder of length l along y plus two hemispheres, one density */
  double r = s[0], l = s[1];
  double vc = M_PI * r * r * l, vs = 4.0 / 3.0 * M_PI * r * r * r;
  double mc = mass * vc / (vc + vs), ms = mass - mc;
  I[1] = mc * r * r / 2.0 + ms * 0.4 * r * r;
  /* each hemisphere: 0.4 r^2 (per mass) about its centre of the full sphere
   * plus the parallel-axis shift of its own centroid (3r/8 from the flat face) */
  I[0] = mc * (l * l / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
  I[2] = I[0];
}
static double capsule_bound(const double s[3]) { return 0.5 * s[1] + s[0]; }
static void capsule_extent(const double s[3], const double R[9], double e[3]) {
  for (int k = 0; k < 3; k++) e[k] = 0.5 * s[1] * fabs(R[3 * k + 1]) + s[0];
}

/* ---- convex: size = extents of the box about the centre of mass that holds
 * the hull, so that its bound and extent hold the hull (the broad phase's);
 * volume and inertia come from the hull itself (vs_rmodel_set_hull): these
 * two are the box's, an upper bound, never used for a model's body ---- */
static int convex_size_ok(double s[3]) { return box_size_ok(s); }
static double convex_volume(const double s[3]) { return box_volume(s); }
static void convex_inertia(const double s[3], double mass, double I[3]) { box_inertia(s, mass, I); }
static double convex_bound(const double s[3]) { return box_bound(s); }
static void convex_extent(const double s[3], const double R[9], double e[3]) {
  box_extent(s, R, e);
}

#define SHAPE_ROW_(ID, name) \
  [VS_RIGID_##ID] = {name##_size_ok, name##_volume, name##_inertia, name##_bound, name##_extent},
static const vs_rshape_row rows[VS_RIGID_SHAPE_COUNT] = {VS_RIGID_SHAPES(SHAPE_ROW_)};
#undef SHAPE_ROW_

const vs_rshape_row *vs_rshape_row_of(int32_t shape) {
  return shape >= 0 && shape < VS_RIGID_SHAPE_COUNT ? &rows[shape] : NULL;
}
