/* xdmf_colliders.c: the colliders of a result file's XDMF sidecar (xdmf.c
 * describes the whole): one static grid per group of /world/colliders,
 * outside time, so that ParaView draws them at every frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "util/detmath.h"
#include "io/h5util.h"
#include "io/read/xdmf_int.h"
#include "vsim/kind.h"

/* ---- colliders: static grids at the Domain level -------------------------- */

static int attr_vec(hid_t f, const char *g, const char *name, double *out, size_t n) {
  if (H5Aexists_by_name(f, g, name, H5P_DEFAULT) <= 0) return -1;
  hid_t a = H5Aopen_by_name(f, g, name, H5P_DEFAULT, H5P_DEFAULT);
  hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
  int ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == (hssize_t)n &&
           H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0;
  if (sp >= 0) H5Sclose(sp);
  if (a >= 0) H5Aclose(a);
  return ok ? 0 : -1;
}

static void grow(double lo[3], double hi[3], const double p[3]) {
  for (int d = 0; d < 3; d++)
    if (p[d] == p[d]) { /* not NaN */
      if (p[d] < lo[d]) lo[d] = p[d];
      if (p[d] > hi[d]) hi[d] = p[d];
    }
}

/* The box of rows 0 and F-1 of a [F, A, 3] dataset, grown into lo/hi. */
static void grow_rows(xd *x, const char *path, int64_t a, double lo[3], double hi[3]) {
  if (x->F <= 0 || a <= 0) return;
  double *buf = vs_malloc((size_t)a * 3 * sizeof *buf);
  if (!buf) x->nomem = 1;
  vs_h5_ds d;
  if (buf && vs_h5_ds_open(x->f, path, &d) == 0)
    for (int r = 0; r < 2; r++) {
      hsize_t start[3] = {(hsize_t)(r ? x->F - 1 : 0), 0, 0}, count[3] = {1, (hsize_t)a, 3};
      if (vs_h5_read_slab(&d, start, count, H5T_NATIVE_DOUBLE, buf) == 0)
        for (int64_t i = 0; i < a; i++) grow(lo, hi, buf + 3 * i);
    }
  vs_h5_ds_close(&d);
  vs_free(buf);
}

static void xyz(vs_sbuf *b, const double p[3]) {
  vs_sbuf_printf(b, "%.17g %.17g %.17g\n", p[0], p[1], p[2]);
}

static void inline_geometry(xd *x, int64_t nv) {
  vs_sbuf_printf(&x->b,
                 "<Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%lld 3\" "
                 "NumberType=\"Float\" Precision=\"8\" Format=\"XML\">\n",
                 (long long)nv);
}

/* A sphere as a UV-sphere of triangles: SLICES around, STACKS pole to pole. */
enum { SLICES = 16, STACKS = 8 };

static void sphere_grid(xd *x, const double c[3], double r) {
  const double pi = 3.14159265358979323846;
  int nv = 2 + (STACKS - 1) * SLICES, nt = 2 * SLICES * (STACKS - 1);
  vs_sbuf_printf(&x->b, "<Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">"
                        "<DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Precision=\"4\" "
                        "Format=\"XML\">\n", nt, nt);
  /* vertex 0 the top pole, 1 + s*SLICES + j the ring s, nv - 1 the bottom */
  for (int j = 0; j < SLICES; j++)
    vs_sbuf_printf(&x->b, "0 %d %d\n", 1 + (j + 1) % SLICES, 1 + j);
  for (int s = 0; s + 1 < STACKS - 1; s++)
    for (int j = 0; j < SLICES; j++) {
      int a = 1 + s * SLICES + j, b = 1 + s * SLICES + (j + 1) % SLICES;
      vs_sbuf_printf(&x->b, "%d %d %d\n%d %d %d\n", a, b, b + SLICES, a, b + SLICES, a + SLICES);
    }
  int last = 1 + (STACKS - 2) * SLICES;
  for (int j = 0; j < SLICES; j++)
    vs_sbuf_printf(&x->b, "%d %d %d\n", last + j, last + (j + 1) % SLICES, nv - 1);
  vs_sbuf_puts(&x->b, "</DataItem></Topology>");
  inline_geometry(x, nv);
  xyz(&x->b, (double[3]){c[0], c[1] + r, c[2]});
  for (int s = 1; s < STACKS; s++) {
    double th = pi * s / STACKS;
    for (int j = 0; j < SLICES; j++) {
      double ph = 2 * pi * j / SLICES;
      xyz(&x->b, (double[3]){c[0] + r * vs_sin(th) * vs_cos(ph), c[1] + r * vs_cos(th),
                             c[2] + r * vs_sin(th) * vs_sin(ph)});
    }
  }
  xyz(&x->b, (double[3]){c[0], c[1] - r, c[2]});
  vs_sbuf_puts(&x->b, "</DataItem></Geometry>");
}

static void box_grid(xd *x, const double lo[3], const double hi[3]) {
  /* VTK/XDMF hexahedron order: the bottom face counter-clockwise, then the top */
  vs_sbuf_puts(&x->b, "<Topology TopologyType=\"Hexahedron\" NumberOfElements=\"1\">"
                      "<DataItem Dimensions=\"1 8\" NumberType=\"Int\" Precision=\"4\" "
                      "Format=\"XML\">0 1 2 3 4 5 6 7</DataItem></Topology>");
  inline_geometry(x, 8);
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (int i = 0; i < 8; i++)
    xyz(&x->b, (double[3]){corner[i][0] ? hi[0] : lo[0], corner[i][1] ? hi[1] : lo[1],
                           corner[i][2] ? hi[2] : lo[2]});
  vs_sbuf_puts(&x->b, "</DataItem></Geometry>");
}

/* A plane as a square around the scene: centred on the foot of the centre
 * of lo/hi, half as wide again as the box's diagonal (1 m with no box). */
static void plane_grid(xd *x, const double p[3], const double nrm[3], const double lo[3],
                       const double hi[3]) {
  double n[3] = {nrm[0], nrm[1], nrm[2]};
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(l > 0)) {
    n[0] = 0, n[1] = 1, n[2] = 0, l = 1;
  }
  for (int d = 0; d < 3; d++) n[d] /= l;
  double c[3] = {p[0], p[1], p[2]}, half = 1;
  if (lo[0] <= hi[0]) {
    double m[3], diag = 0, h = 0;
    for (int d = 0; d < 3; d++) {
      m[d] = 0.5 * (lo[d] + hi[d]);
      diag += (hi[d] - lo[d]) * (hi[d] - lo[d]);
      h += (m[d] - p[d]) * n[d];
    }
    for (int d = 0; d < 3; d++) c[d] = m[d] - h * n[d];
    if (sqrt(diag) > 0) half = 0.75 * sqrt(diag);
  }
  /* u: n x the axis least along n; v = n x u */
  int a = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
  double e[3] = {a == 0, a == 1, a == 2};
  double u[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
  double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int d = 0; d < 3; d++) u[d] /= lu;
  double v[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
  vs_sbuf_puts(&x->b, "<Topology TopologyType=\"Quadrilateral\" NumberOfElements=\"1\">"
                      "<DataItem Dimensions=\"1 4\" NumberType=\"Int\" Precision=\"4\" "
                      "Format=\"XML\">0 1 2 3</DataItem></Topology>");
  inline_geometry(x, 4);
  static const int sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int i = 0; i < 4; i++) {
    double q[3];
    for (int d = 0; d < 3; d++) q[d] = c[d] + half * (sg[i][0] * u[d] + sg[i][1] * v[d]);
    xyz(&x->b, q);
  }
  vs_sbuf_puts(&x->b, "</DataItem></Geometry>");
}

/* One collider group read into a small record. */
typedef struct coll {
  int ok;                /* a collider of the table, with what its grid needs */
  vs_collider_kind kind; /* (when ok) */
  double a[3], b[3], r;
  int64_t nv, nt;
} coll;

/* The kind its `kind` attribute names, as vs_collider_kind_name spells it
 * (h5world.c writes it): 0 and *k, or -1 for a name outside the table. */
static int kind_named(const char *name, vs_collider_kind *k) {
  for (int i = 0; i < VS_COLLIDER_KIND_COUNT; i++)
    if (strcmp(name, vs_collider_kind_name((vs_collider_kind)i)) == 0) {
      *k = (vs_collider_kind)i;
      return 0;
    }
  return -1;
}

static coll read_collider(xd *x, const char *g) {
  coll c;
  memset(&c, 0, sizeof c);
  int nomem = 0;
  char *kind = vs_h5_attr_string(x->f, g, "kind", &nomem);
  if (nomem) x->nomem = 1;
  if (!kind) return c;
  char vp[96], tp[96];
  snprintf(vp, sizeof vp, "%s/vertices", g);
  snprintf(tp, sizeof tp, "%s/triangles", g);
  if (kind_named(kind, &c.kind) == 0) {
    switch (c.kind) {
    case VS_COLLIDER_PLANE:
      c.ok = attr_vec(x->f, g, "point", c.a, 3) == 0 && attr_vec(x->f, g, "normal", c.b, 3) == 0;
      break;
    case VS_COLLIDER_SPHERE:
      c.ok = attr_vec(x->f, g, "center", c.a, 3) == 0 && attr_vec(x->f, g, "radius", &c.r, 1) == 0;
      break;
    case VS_COLLIDER_BOX:
    case VS_COLLIDER_BOUNDS:
      c.ok = attr_vec(x->f, g, "min", c.a, 3) == 0 && attr_vec(x->f, g, "max", c.b, 3) == 0;
      break;
    case VS_COLLIDER_MESH:
      c.nv = xd_dims_of(x->f, vp, 2, NULL, NULL);
      c.nt = xd_dims_of(x->f, tp, 2, NULL, NULL);
      c.ok = c.nv > 0 && c.nt > 0;
      break;
    }
  }
  vs_free(kind);
  return c;
}

/* Grow lo/hi by collider c of group gp: the box a plane is drawn around
 * holds the other colliders. */
static void grow_collider(xd *x, const char *gp, const coll *c, double lo[3], double hi[3]) {
  switch (c->kind) {
  case VS_COLLIDER_PLANE: break; /* drawn around the rest */
  case VS_COLLIDER_SPHERE:
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], c->a[d] - c->r);
      hi[d] = fmax(hi[d], c->a[d] + c->r);
    }
    break;
  case VS_COLLIDER_BOX:
  case VS_COLLIDER_BOUNDS:
    grow(lo, hi, c->a);
    grow(lo, hi, c->b);
    break;
  case VS_COLLIDER_MESH: {
    char vp[96];
    snprintf(vp, sizeof vp, "%s/vertices", gp);
    double *v = vs_malloc((size_t)c->nv * 3 * sizeof *v);
    if (!v) x->nomem = 1;
    vs_h5_ds d;
    if (v && vs_h5_ds_open(x->f, vp, &d) == 0 &&
        H5Dread(d.d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
      for (int64_t j = 0; j < c->nv; j++) grow(lo, hi, v + 3 * j);
    vs_h5_ds_close(&d);
    vs_free(v);
    break;
  }
  }
}

/* A mesh: its triangles, pointing into its own datasets. */
static void mesh_grid(xd *x, const char *gp, const coll *c) {
  char p[96], dims[64];
  vs_sbuf_printf(&x->b, "<Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">",
                 (long long)c->nt);
  snprintf(p, sizeof p, "%s/triangles", gp);
  snprintf(dims, sizeof dims, "%lld 3", (long long)c->nt);
  xd_hdf_item(x, dims, "Int", 4, p);
  vs_sbuf_puts(&x->b, "</Topology><Geometry GeometryType=\"XYZ\">");
  snprintf(p, sizeof p, "%s/vertices", gp);
  snprintf(dims, sizeof dims, "%lld 3", (long long)c->nv);
  xd_hdf_item(x, dims, "Float", 8, p);
  vs_sbuf_puts(&x->b, "</Geometry>");
}

/* Grid "colliders" (a spatial collection, not in time: drawn at every
 * frame), one grid per collider the file describes, "collider I KIND". */
void xd_colliders(xd *x) {
  hid_t g = vs_h5_path_exists(x->f, "/world/colliders")
                ? H5Gopen2(x->f, "/world/colliders", H5P_DEFAULT)
                : H5I_INVALID_HID;
  if (g < 0) return;
  H5G_info_t gi;
  size_t n = H5Gget_info(g, &gi) >= 0 ? (size_t)gi.nlinks : 0;
  H5Gclose(g);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  grow_rows(x, "/particles/all/position/value", x->N, lo, hi);
  grow_rows(x, "/particles/rigid/position/value", x->B, lo, hi);
  grow_rows(x, "/particles/rigid_surface/position/value", x->S, lo, hi);
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    char gp[64];
    snprintf(gp, sizeof gp, "/world/colliders/%zu", i);
    if (!vs_h5_path_exists(x->f, gp)) continue;
    coll c = read_collider(x, gp);
    any |= c.ok;
    if (c.ok) grow_collider(x, gp, &c, lo, hi);
  }
  if (!any) return;
  vs_sbuf_puts(&x->b, "<Grid Name=\"colliders\" GridType=\"Collection\" CollectionType=\"Spatial\">\n");
  for (size_t i = 0; i < n; i++) {
    char gp[64];
    snprintf(gp, sizeof gp, "/world/colliders/%zu", i);
    if (!vs_h5_path_exists(x->f, gp)) continue;
    coll c = read_collider(x, gp);
    if (!c.ok) continue;
    vs_sbuf_printf(&x->b, "<Grid Name=\"collider %zu %s\" GridType=\"Uniform\">", i,
                   vs_collider_kind_name(c.kind));
    switch (c.kind) {
    case VS_COLLIDER_PLANE: plane_grid(x, c.a, c.b, lo, hi); break;
    case VS_COLLIDER_SPHERE: sphere_grid(x, c.a, c.r); break;
    case VS_COLLIDER_BOX:
    case VS_COLLIDER_BOUNDS: box_grid(x, c.a, c.b); break;
    case VS_COLLIDER_MESH: mesh_grid(x, gp, &c); break;
    }
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  vs_sbuf_puts(&x->b, "</Grid>\n");
}
