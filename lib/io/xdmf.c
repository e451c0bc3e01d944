/* xdmf.c: the XDMF 2 sidecar of a result file (vs_xdmf_write), so that
 * ParaView's XDMF reader opens a run (docs/result-file.md, "Viewers").
 *
 * The .xmf holds no numbers of its own but the list of free particles, when
 * links can tear the cells of the links grid, and the corners of the
 * analytic colliders: geometry, connectivity and attributes point into the
 * .h5 by a path relative to the .xmf, so the two files move together.
 * Layout:
 *
 *   Domain
 *     DataItem "free"   inline indices of the particles in no link or triangle
 *     DataItem "rigid"  inline 0 .. B-1 (the rigid bodies' polyvertex cells)
 *     DataItem "links"  inline Mixed cells of every constraint (tearing runs)
 *     Grid "vsim" temporal collection, one spatial collection per frame:
 *       Grid "triangles"  Triangle from /connectivity/triangles
 *       Grid "links"      Polyline (2 nodes) from /connectivity/distance, or,
 *                         when /connectivity/alive exists, Mixed cells of
 *                         every constraint (a pin a polyvertex, a link a
 *                         polyline, an angle a 3-node polyline) so that the
 *                         cell attribute alive is row k of alive/value
 *       Grid "particles"  Polyvertex of the free particles
 *     each with geometry = row k of /particles/all/position/value (a
 *     HyperSlab) and node attributes body, mass, radius, velocity;
 *       Grid "rigid"      Polyvertex of the rigid centres (row k of
 *                         /particles/rigid/position/value) with node
 *                         attributes orientation (4 components, w x y z),
 *                         shape, size, mass, velocity, angular_velocity
 *       Grid "rigid_surface"  Triangle from /connectivity/rigid_triangles,
 *                         geometry row k of /particles/rigid_surface/
 *                         position/value, node attribute body (a file from
 *                         before the surfaces has the centres only)
 *     A file of rigid bodies only has no /particles/all: its frames and
 *     times are those of /particles/rigid/position.
 *     Grid "colliders" spatial collection outside time (ParaView shows it
 *     at every frame), "collider I KIND" for each of /world/colliders:
 *       mesh    Triangle into its own triangles and vertices datasets
 *       box, bounds  one Hexahedron, its 8 corners inline
 *       sphere  a UV sphere of 16 x 8 (224 triangles) inline
 *       plane   one Quadrilateral inline, square, centred on the foot of
 *               the centre of the scene's box (particles and rigid centres
 *               at the first and last frame, the other colliders), 1.5
 *               times that box's diagonal wide
 *
 * The file is written beside its final name and renamed into place. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/detmath.h"
#include "util/outfile.h"
#include "util/text.h"
#include "io/h5guard.h"
#include "io/h5util.h"
#include "io/xdmf.h"
#include "vsim/h5.h"

typedef struct xd {
  hid_t f;
  const char *h5;   /* the .h5 as the .xmf names it */
  int64_t F, N;     /* frames, particles */
  int pos_f32, vel, vel_f32;
  int64_t T, Md, Ma, M; /* triangles, links, angles, constraints */
  int alive;        /* /connectivity/alive/value [F, M] */
  int radius;
  int64_t n_free;
  int64_t B;        /* rigid bodies */
  int rpos_f32, rq_f32, rvel, rvel_f32, rw, rw_f32;
  int64_t S, RT;    /* rigid surface vertices and triangles (0: a file without them) */
  int surf_f32;
  int nomem;        /* an allocation failed: the text is incomplete */
  vs_sbuf b;
} xd;

static int64_t dims_of(hid_t f, const char *path, int rank, int64_t *d1, int *f32) {
  if (!vs_h5_path_exists(f, path)) return -1;
  vs_h5_ds x;
  int64_t n = -1;
  if (vs_h5_ds_open(f, path, &x) == 0 && x.rank == rank) {
    n = (int64_t)x.dims[0];
    if (d1 && rank > 1) *d1 = (int64_t)x.dims[1];
    if (f32) *f32 = x.cls == H5T_FLOAT && H5Tget_size(x.type) == 4;
  }
  vs_h5_ds_close(&x);
  return n;
}

static int read_i32(hid_t f, const char *path, int32_t *buf) {
  vs_h5_ds x;
  int rc = vs_h5_ds_open(f, path, &x) == 0 &&
                   H5Dread(x.d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0
               ? 0
               : -1;
  vs_h5_ds_close(&x);
  return rc;
}

/* "DIMS" NumberType Precision of a dataset of the file */
static void hdf_item(xd *x, const char *dims, const char *type, int prec, const char *path) {
  vs_sbuf_printf(&x->b,
                 "<DataItem Dimensions=\"%s\" NumberType=\"%s\" Precision=\"%d\" "
                 "Format=\"HDF\">%s:%s</DataItem>",
                 dims, type, prec, x->h5, path);
}

/* row k of a [F, A] dataset (c = 0) or of a [F, A, c] one */
static void slab(xd *x, int64_t k, int64_t a, int c, const char *type, int prec,
                 const char *path) {
  if (c)
    vs_sbuf_printf(&x->b,
                   "<DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld %d\" Type=\"HyperSlab\">"
                   "<DataItem Dimensions=\"3 3\" Format=\"XML\">%lld 0 0 1 1 1 1 %lld %d</DataItem>",
                   (long long)a, c, (long long)k, (long long)a, c);
  else
    vs_sbuf_printf(&x->b,
                   "<DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld\" Type=\"HyperSlab\">"
                   "<DataItem Dimensions=\"3 2\" Format=\"XML\">%lld 0 1 1 1 %lld</DataItem>",
                   (long long)a, (long long)k, (long long)a);
  char dims[80];
  if (c)
    snprintf(dims, sizeof dims, "%lld %lld %d", (long long)x->F, (long long)a, c);
  else
    snprintf(dims, sizeof dims, "%lld %lld", (long long)x->F, (long long)a);
  hdf_item(x, dims, type, prec, path);
  vs_sbuf_puts(&x->b, "</DataItem>");
}

/* Geometry and node attributes of frame k (the same for every grid). */
static void nodes(xd *x, int64_t k) {
  char n[32];
  snprintf(n, sizeof n, "%lld", (long long)x->N);
  vs_sbuf_puts(&x->b, "<Geometry GeometryType=\"XYZ\">");
  slab(x, k, x->N, 3, "Float", x->pos_f32 ? 4 : 8, "/particles/all/position/value");
  vs_sbuf_puts(&x->b, "</Geometry>\n");
  vs_sbuf_puts(&x->b, "<Attribute Name=\"body\" AttributeType=\"Scalar\" Center=\"Node\">");
  hdf_item(x, n, "Int", 4, "/particles/all/body");
  vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"mass\" AttributeType=\"Scalar\" Center=\"Node\">");
  hdf_item(x, n, "Float", 8, "/particles/all/mass");
  vs_sbuf_puts(&x->b, "</Attribute>");
  if (x->radius) {
    vs_sbuf_puts(&x->b, "<Attribute Name=\"radius\" AttributeType=\"Scalar\" Center=\"Node\">");
    hdf_item(x, n, "Float", 8, "/particles/all/radius");
    vs_sbuf_puts(&x->b, "</Attribute>");
  }
  if (x->vel) {
    vs_sbuf_puts(&x->b, "<Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">");
    slab(x, k, x->N, 3, "Float", x->vel_f32 ? 4 : 8, "/particles/all/velocity/value");
    vs_sbuf_puts(&x->b, "</Attribute>");
  }
  vs_sbuf_puts(&x->b, "\n");
}

static void frame(xd *x, int64_t k, double t) {
  vs_sbuf_printf(&x->b,
                 "<Grid Name=\"frame %lld\" GridType=\"Collection\" CollectionType=\"Spatial\">"
                 "<Time Value=\"%.17g\"/>\n",
                 (long long)k, t);
  char d[64];
  if (x->T > 0) {
    snprintf(d, sizeof d, "%lld 3", (long long)x->T);
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"triangles\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">",
                   (long long)x->T);
    hdf_item(x, d, "Int", 4, "/connectivity/triangles");
    vs_sbuf_puts(&x->b, "</Topology>");
    nodes(x, k);
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  if (x->alive) {
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"links\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Mixed\" NumberOfElements=\"%lld\">"
                   "<DataItem Reference=\"XML\">/Xdmf/Domain/DataItem[@Name=\"links\"]</DataItem>"
                   "</Topology>",
                   (long long)x->M);
    nodes(x, k);
    vs_sbuf_puts(&x->b, "<Attribute Name=\"alive\" AttributeType=\"Scalar\" Center=\"Cell\">");
    slab(x, k, x->M, 0, "UChar", 1, "/connectivity/alive/value");
    vs_sbuf_puts(&x->b, "</Attribute></Grid>\n");
  } else if (x->Md > 0) {
    snprintf(d, sizeof d, "%lld 2", (long long)x->Md);
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"links\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
                   "NumberOfElements=\"%lld\">",
                   (long long)x->Md);
    hdf_item(x, d, "Int", 4, "/connectivity/distance");
    vs_sbuf_puts(&x->b, "</Topology>");
    nodes(x, k);
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  if (x->n_free > 0) {
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"particles\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Polyvertex\" NodesPerElement=\"1\" "
                   "NumberOfElements=\"%lld\">"
                   "<DataItem Reference=\"XML\">/Xdmf/Domain/DataItem[@Name=\"free\"]</DataItem>"
                   "</Topology>",
                   (long long)x->n_free);
    nodes(x, k);
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  if (x->B > 0) {
    char n[32];
    snprintf(n, sizeof n, "%lld", (long long)x->B);
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"rigid\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Polyvertex\" NodesPerElement=\"1\" "
                   "NumberOfElements=\"%lld\">"
                   "<DataItem Reference=\"XML\">/Xdmf/Domain/DataItem[@Name=\"rigid\"]</DataItem>"
                   "</Topology><Geometry GeometryType=\"XYZ\">",
                   (long long)x->B);
    slab(x, k, x->B, 3, "Float", x->rpos_f32 ? 4 : 8, "/particles/rigid/position/value");
    vs_sbuf_puts(&x->b, "</Geometry>\n<Attribute Name=\"orientation\" AttributeType=\"Matrix\" "
                        "Center=\"Node\">");
    slab(x, k, x->B, 4, "Float", x->rq_f32 ? 4 : 8, "/particles/rigid/orientation/value");
    vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"shape\" AttributeType=\"Scalar\" "
                        "Center=\"Node\">");
    hdf_item(x, n, "Int", 4, "/particles/rigid/shape");
    vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"size\" AttributeType=\"Vector\" "
                        "Center=\"Node\">");
    snprintf(n, sizeof n, "%lld 3", (long long)x->B);
    hdf_item(x, n, "Float", 8, "/particles/rigid/size");
    vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"mass\" AttributeType=\"Scalar\" "
                        "Center=\"Node\">");
    snprintf(n, sizeof n, "%lld", (long long)x->B);
    hdf_item(x, n, "Float", 8, "/particles/rigid/mass");
    vs_sbuf_puts(&x->b, "</Attribute>");
    if (x->rvel) {
      vs_sbuf_puts(&x->b, "<Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">");
      slab(x, k, x->B, 3, "Float", x->rvel_f32 ? 4 : 8, "/particles/rigid/velocity/value");
      vs_sbuf_puts(&x->b, "</Attribute>");
    }
    if (x->rw) {
      vs_sbuf_puts(&x->b, "<Attribute Name=\"angular_velocity\" AttributeType=\"Vector\" "
                          "Center=\"Node\">");
      slab(x, k, x->B, 3, "Float", x->rw_f32 ? 4 : 8, "/particles/rigid/angular_velocity/value");
      vs_sbuf_puts(&x->b, "</Attribute>");
    }
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  if (x->S > 0) {
    snprintf(d, sizeof d, "%lld 3", (long long)x->RT);
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"rigid_surface\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">",
                   (long long)x->RT);
    hdf_item(x, d, "Int", 4, "/connectivity/rigid_triangles");
    vs_sbuf_puts(&x->b, "</Topology><Geometry GeometryType=\"XYZ\">");
    slab(x, k, x->S, 3, "Float", x->surf_f32 ? 4 : 8, "/particles/rigid_surface/position/value");
    vs_sbuf_puts(&x->b, "</Geometry>\n<Attribute Name=\"body\" AttributeType=\"Scalar\" "
                        "Center=\"Node\">");
    snprintf(d, sizeof d, "%lld", (long long)x->S);
    hdf_item(x, d, "Int", 4, "/particles/rigid_surface/body");
    vs_sbuf_puts(&x->b, "</Attribute></Grid>\n");
  }
  vs_sbuf_puts(&x->b, "</Grid>\n");
}

/* The inline items: the free particles, and the Mixed cells of every
 * constraint (XDMF 2 codes: 1 polyvertex, 2 polyline, each followed by its
 * node count) when links can tear.  -1 on a read failure. */
static int inline_items(xd *x) {
  int rc = -1;
  size_t n = (size_t)x->N;
  unsigned char *used = vs_calloc(n + 1, 1);
  size_t pairs = (size_t)(x->Md > x->Ma ? x->Md : x->Ma);
  size_t big = 3 * (size_t)(x->T > x->M ? x->T : x->M);
  if (2 * pairs > big) big = 2 * pairs;
  int32_t *idx = vs_malloc((big + 1) * sizeof *idx);
  if (!used || !idx) {
    x->nomem = 1;
    goto done;
  }
  const char *sets[] = {"/connectivity/distance", "/connectivity/angle", "/connectivity/triangles"};
  const int64_t rows[] = {x->Md, x->Ma, x->T};
  const int cols[] = {2, 2, 3};
  for (int s = 0; s < 3; s++) {
    if (rows[s] <= 0) continue;
    if (read_i32(x->f, sets[s], idx) < 0) goto done;
    for (size_t i = 0; i < (size_t)rows[s] * (size_t)cols[s]; i++)
      if (idx[i] >= 0 && (size_t)idx[i] < n) used[idx[i]] = 1;
  }
  x->n_free = 0;
  for (size_t i = 0; i < n; i++) x->n_free += !used[i];
  if (x->n_free > 0) {
    vs_sbuf_printf(&x->b, "<DataItem Name=\"free\" Dimensions=\"%lld\" NumberType=\"Int\" "
                          "Precision=\"4\" Format=\"XML\">", (long long)x->n_free);
    for (size_t i = 0; i < n; i++)
      if (!used[i]) vs_sbuf_printf(&x->b, "%zu ", i);
    vs_sbuf_puts(&x->b, "</DataItem>\n");
  }
  if (x->B > 0) {
    vs_sbuf_printf(&x->b, "<DataItem Name=\"rigid\" Dimensions=\"%lld\" NumberType=\"Int\" "
                          "Precision=\"4\" Format=\"XML\">", (long long)x->B);
    for (int64_t i = 0; i < x->B; i++) vs_sbuf_printf(&x->b, "%lld ", (long long)i);
    vs_sbuf_puts(&x->b, "</DataItem>\n");
  }
  if (x->alive) {
    if (x->M > 0 && read_i32(x->f, "/solver/constraints", idx) < 0) goto done;
    size_t len = 0;
    for (int64_t c = 0; c < x->M; c++) {
      int k = 0;
      while (k < 3 && idx[3 * c + k] >= 0) k++;
      len += 2 + (size_t)k;
    }
    vs_sbuf_printf(&x->b, "<DataItem Name=\"links\" Dimensions=\"%zu\" NumberType=\"Int\" "
                          "Precision=\"4\" Format=\"XML\">", len);
    for (int64_t c = 0; c < x->M; c++) {
      int k = 0;
      while (k < 3 && idx[3 * c + k] >= 0) k++;
      vs_sbuf_printf(&x->b, "%d %d", k == 1 ? 1 : 2, k);
      for (int j = 0; j < k; j++) vs_sbuf_printf(&x->b, " %d", idx[3 * c + j]);
      vs_sbuf_puts(&x->b, c + 1 < x->M ? "\n" : "");
    }
    vs_sbuf_puts(&x->b, "</DataItem>\n");
  }
  rc = 0;
done:
  vs_free(used);
  vs_free(idx);
  return rc;
}

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
    double sth, cth; /* degrees: exact at the quarter turns, the same bits everywhere */
    vs_sincos_deg(180.0 * s / STACKS, &sth, &cth);
    for (int j = 0; j < SLICES; j++) {
      double sph, cph;
      vs_sincos_deg(360.0 * j / SLICES, &sph, &cph);
      xyz(&x->b, (double[3]){c[0] + r * sth * cph, c[1] + r * cth, c[2] + r * sth * sph});
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
  int kind; /* 0 none, 1 plane, 2 sphere, 3 box, 4 bounds, 5 mesh */
  double a[3], b[3], r;
  int64_t nv, nt;
} coll;

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
  if (strcmp(kind, "plane") == 0)
    c.kind = attr_vec(x->f, g, "point", c.a, 3) == 0 && attr_vec(x->f, g, "normal", c.b, 3) == 0;
  else if (strcmp(kind, "sphere") == 0)
    c.kind = attr_vec(x->f, g, "center", c.a, 3) == 0 && attr_vec(x->f, g, "radius", &c.r, 1) == 0
                 ? 2
                 : 0;
  else if (strcmp(kind, "box") == 0 || strcmp(kind, "bounds") == 0)
    c.kind = attr_vec(x->f, g, "min", c.a, 3) == 0 && attr_vec(x->f, g, "max", c.b, 3) == 0
                 ? (kind[1] == 'o' ? 3 : 4)
                 : 0;
  else if (strcmp(kind, "mesh") == 0) {
    c.nv = dims_of(x->f, vp, 2, NULL, NULL);
    c.nt = dims_of(x->f, tp, 2, NULL, NULL);
    c.kind = c.nv > 0 && c.nt > 0 ? 5 : 0;
  }
  vs_free(kind);
  return c;
}

/* Grid "colliders" (a spatial collection, not in time: drawn at every
 * frame), one grid per collider the file describes, "collider I KIND". */
static void colliders(xd *x) {
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
    char gp[64], vp[96];
    snprintf(gp, sizeof gp, "/world/colliders/%zu", i);
    if (!vs_h5_path_exists(x->f, gp)) continue;
    coll c = read_collider(x, gp);
    any |= c.kind != 0;
    if (c.kind == 2)
      for (int d = 0; d < 3; d++) {
        lo[d] = fmin(lo[d], c.a[d] - c.r);
        hi[d] = fmax(hi[d], c.a[d] + c.r);
      }
    else if (c.kind == 3) {
      grow(lo, hi, c.a);
      grow(lo, hi, c.b);
    } else if (c.kind == 5) {
      snprintf(vp, sizeof vp, "%s/vertices", gp);
      double *v = vs_malloc((size_t)c.nv * 3 * sizeof *v);
      if (!v) x->nomem = 1;
      vs_h5_ds d;
      if (v && vs_h5_ds_open(x->f, vp, &d) == 0 &&
          H5Dread(d.d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
        for (int64_t j = 0; j < c.nv; j++) grow(lo, hi, v + 3 * j);
      vs_h5_ds_close(&d);
      vs_free(v);
    }
  }
  if (!any) return;
  static const char *const names[] = {"", "plane", "sphere", "box", "bounds", "mesh"};
  vs_sbuf_puts(&x->b, "<Grid Name=\"colliders\" GridType=\"Collection\" CollectionType=\"Spatial\">\n");
  for (size_t i = 0; i < n; i++) {
    char gp[64], p[96], dims[64];
    snprintf(gp, sizeof gp, "/world/colliders/%zu", i);
    if (!vs_h5_path_exists(x->f, gp)) continue;
    coll c = read_collider(x, gp);
    if (!c.kind) continue;
    vs_sbuf_printf(&x->b, "<Grid Name=\"collider %zu %s\" GridType=\"Uniform\">", i, names[c.kind]);
    switch (c.kind) {
    case 1: plane_grid(x, c.a, c.b, lo, hi); break;
    case 2: sphere_grid(x, c.a, c.r); break;
    case 3:
    case 4: box_grid(x, c.a, c.b); break;
    default:
      vs_sbuf_printf(&x->b, "<Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">",
                     (long long)c.nt);
      snprintf(p, sizeof p, "%s/triangles", gp);
      snprintf(dims, sizeof dims, "%lld 3", (long long)c.nt);
      hdf_item(x, dims, "Int", 4, p);
      vs_sbuf_puts(&x->b, "</Topology><Geometry GeometryType=\"XYZ\">");
      snprintf(p, sizeof p, "%s/vertices", gp);
      snprintf(dims, sizeof dims, "%lld 3", (long long)c.nv);
      hdf_item(x, dims, "Float", 8, p);
      vs_sbuf_puts(&x->b, "</Geometry>");
      break;
    }
    vs_sbuf_puts(&x->b, "</Grid>\n");
  }
  vs_sbuf_puts(&x->b, "</Grid>\n");
}

/* The directory part of path ("." when none), from vs_malloc. */
static char *dir_part(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return vs_strdup(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *d = vs_malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

/* The path of h5 relative to the directory of xmf (both exist). */
static char *relative_to(const char *h5, const char *xmf, int *nomem) {
  char *dh = dir_part(h5), *dx = dir_part(xmf);
  char *out = NULL;
  if (!dh || !dx) *nomem = 1;
  char rh[PATH_MAX], rx[PATH_MAX];
  if (dh && dx && realpath(dh, rh) && realpath(dx, rx)) {
    size_t i = 0, common = 0;
    while (rh[i] && rh[i] == rx[i]) {
      i++;
      if (rh[i] == '/' || rh[i] == '\0') common = i;
    }
    if (rh[i] == '\0' && (rx[i] == '/' || rx[i] == '\0')) common = i;
    if (rx[i] == '\0' && (rh[i] == '/' || rh[i] == '\0')) common = i;
    if (strcmp(rh, "/") == 0 || strcmp(rx, "/") == 0) common = 0;
    vs_sbuf b = {0};
    for (const char *p = rx + common; *p; p++)
      if (*p == '/') vs_sbuf_puts(&b, "../");
    const char *rest = rh + common;
    while (*rest == '/') rest++;
    if (*rest) vs_sbuf_printf(&b, "%s/", rest);
    const char *base = strrchr(h5, '/');
    vs_sbuf_puts(&b, base ? base + 1 : h5);
    if (!b.bad) out = b.p;
    else vs_sbuf_free(&b), *nomem = 1;
  }
  vs_free(dh);
  vs_free(dx);
  return out;
}

char *vs_xdmf_default_path(const char *h5_path) {
  if (!h5_path) return NULL;
  size_t n = strlen(h5_path);
  int ext = n > 3 && strcmp(h5_path + n - 3, ".h5") == 0;
  size_t keep = ext ? n - 3 : n;
  char *p = vs_malloc(keep + 5);
  if (p) {
    memcpy(p, h5_path, keep);
    memcpy(p + keep, ".xmf", 5);
  }
  return p;
}

/* XML attribute text: the few characters a file name may hold that XML
 * does not take as they are. */
static char *xml_escape(const char *s) {
  vs_sbuf b = {0};
  for (; *s; s++) {
    switch (*s) {
    case '&': vs_sbuf_puts(&b, "&amp;"); break;
    case '<': vs_sbuf_puts(&b, "&lt;"); break;
    case '>': vs_sbuf_puts(&b, "&gt;"); break;
    case '"': vs_sbuf_puts(&b, "&quot;"); break;
    default: vs_sbuf_add(&b, s, 1); break;
    }
  }
  vs_sbuf_puts(&b, "");
  if (b.bad) {
    vs_sbuf_free(&b);
    return NULL;
  }
  return b.p;
}

/* The sidecar goes through the same safe output files as the result file
 * (util/outfile.h): an exclusive temporary name that fits NAME_MAX beside
 * it, never a special file, an existing .xmf replaced (it is derived data).
 * stage_text writes the temporary file and starts its writing to disk;
 * publishing it is the caller's (vs_outfile_publish). */
static vs_status stage_text(const char *path, const char *text, size_t len, vs_outfile *o,
                            vs_error *err) {
  vs_status rc = vs_outfile_create(path, VS_OUTFILE_FORCE, o, err);
  if (rc != VS_OK) return rc;
  size_t done = 0;
  while (done < len) {
    ssize_t k = write(o->fd, text + done, len - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : EIO;
      vs_outfile_discard(o);
      return vs_error_set(err, VS_ERR_IO, path, 0, 0, "writing: %s", strerror(e));
    }
    done += (size_t)k;
  }
  vs_outfile_start_writeback(o);
  return VS_OK;
}

static vs_status write_text(const char *path, const char *text, size_t len, vs_error *err) {
  vs_outfile o;
  vs_status rc = stage_text(path, text, len, &o, err);
  return rc == VS_OK ? vs_outfile_publish(&o, err) : rc;
}

/* The sidecar's text for the result file open as f (named h5_path; the
 * .xmf goes to xmf) into *out.  On failure *out is freed. */
static vs_status sidecar_text(hid_t f, const char *h5_path, const char *xmf, vs_sbuf *out,
                              vs_error *err) {
  xd x;
  memset(&x, 0, sizeof x);
  x.f = f;
  char *rel = NULL, *h5name = NULL;
  double *times = NULL;
  vs_status st = VS_OK;
  /* the frames: of the particles' positions, or, in a file of rigid bodies
   * only (no /particles/all), of the bodies' */
  x.F = dims_of(x.f, "/particles/all/position/value", 3, &x.N, &x.pos_f32);
  int has_all = x.F >= 0 || vs_h5_path_exists(x.f, "/particles/all");
  if (!has_all) {
    x.N = 0;
    x.F = dims_of(x.f, "/particles/rigid/position/value", 3, NULL, NULL);
  }
  if (x.F < 0 || (has_all && dims_of(x.f, "/particles/all/mass", 1, NULL, NULL) != x.N)) {
    st = vs_error_set(err, VS_ERR_FORMAT, h5_path, 0, 0,
                      "no positions recorded (output.fields without position): nothing to show");
    goto done;
  }
  x.vel = dims_of(x.f, "/particles/all/velocity/value", 3, NULL, &x.vel_f32) == x.F;
  x.radius = dims_of(x.f, "/particles/all/radius", 1, NULL, NULL) == x.N;
  x.T = dims_of(x.f, "/connectivity/triangles", 2, NULL, NULL);
  x.Md = dims_of(x.f, "/connectivity/distance", 2, NULL, NULL);
  x.Ma = dims_of(x.f, "/connectivity/angle", 2, NULL, NULL);
  x.M = dims_of(x.f, "/solver/constraints", 2, NULL, NULL);
  if (x.T < 0) x.T = 0; /* absent: none of that kind */
  if (x.Md < 0) x.Md = 0;
  if (x.Ma < 0) x.Ma = 0;
  if (x.M < 0) x.M = 0;
  x.B = dims_of(x.f, "/particles/rigid/position/value", 3, NULL, &x.rpos_f32) == x.F &&
                dims_of(x.f, "/particles/rigid/orientation/value", 3, NULL, &x.rq_f32) == x.F
            ? dims_of(x.f, "/particles/rigid/shape", 1, NULL, NULL)
            : 0;
  if (x.B > 0) {
    int64_t b = 0;
    if (dims_of(x.f, "/particles/rigid/position/value", 3, &b, NULL) != x.F || b != x.B ||
        dims_of(x.f, "/particles/rigid/orientation/value", 3, &b, NULL) != x.F || b != x.B ||
        dims_of(x.f, "/particles/rigid/size", 2, NULL, NULL) != x.B ||
        dims_of(x.f, "/particles/rigid/mass", 1, NULL, NULL) != x.B)
      x.B = 0; /* not the documented layout: leave the bodies out */
    x.rvel = dims_of(x.f, "/particles/rigid/velocity/value", 3, NULL, &x.rvel_f32) == x.F;
    x.rw = dims_of(x.f, "/particles/rigid/angular_velocity/value", 3, NULL, &x.rw_f32) == x.F;
  }
  if (x.B < 0) x.B = 0;
  /* the surfaces (files from before them have the centres only) */
  if (x.B > 0 &&
      dims_of(x.f, "/particles/rigid_surface/position/value", 3, &x.S, &x.surf_f32) == x.F &&
      dims_of(x.f, "/particles/rigid_surface/body", 1, NULL, NULL) == x.S)
    x.RT = dims_of(x.f, "/connectivity/rigid_triangles", 2, NULL, NULL);
  if (x.RT <= 0) x.S = x.RT = 0;
  int64_t am = 0;
  x.alive = x.M > 0 && dims_of(x.f, "/connectivity/alive/value", 2, &am, NULL) == x.F && am == x.M;
  times = vs_malloc(((size_t)x.F + 1) * sizeof *times);
  vs_h5_ds t;
  int tr = times &&
                   vs_h5_ds_open(x.f, has_all ? "/particles/all/position/time"
                                              : "/particles/rigid/position/time",
                                 &t) == 0 &&
                   t.rank == 1 && (int64_t)t.dims[0] == x.F &&
                   (x.F == 0 || H5Dread(t.d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                        times) >= 0)
               ? 0
               : -1;
  vs_h5_ds_close(&t);
  rel = relative_to(h5_path, xmf, &x.nomem);
  h5name = rel ? xml_escape(rel) : NULL;
  x.h5 = h5name;
  if (rel && !h5name) x.nomem = 1;
  if (!times || x.nomem || !h5name) {
    st = vs_error_set(err, !times || x.nomem ? VS_ERR_NOMEM : VS_ERR_USAGE, xmf, 0, 0,
                      !times || x.nomem ? "out of memory"
                                        : "the directory of this file or of %s does not exist",
                      h5_path);
    goto done;
  }
  vs_sbuf_puts(&x.b, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                     "<!-- written by vsim from the result file beside it; "
                     "open with ParaView's XDMF reader -->\n"
                     "<Xdmf Version=\"2.0\">\n<Domain>\n");
  if (tr < 0 || inline_items(&x) < 0) {
    st = x.nomem ? vs_error_set(err, VS_ERR_NOMEM, h5_path, 0, 0, "out of memory")
                 : vs_error_set(err, VS_ERR_FORMAT, h5_path, 0, 0,
                                "cannot read its time or connectivity");
    goto done;
  }
  vs_sbuf_puts(&x.b, "<Grid Name=\"vsim\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int64_t k = 0; k < x.F; k++) frame(&x, k, times[k]);
  vs_sbuf_puts(&x.b, "</Grid>\n");
  colliders(&x);
  vs_sbuf_puts(&x.b, "</Domain>\n</Xdmf>\n");
  if (x.b.bad || x.nomem) {
    st = vs_error_set(err, VS_ERR_NOMEM, xmf, 0, 0, "out of memory");
    goto done;
  }
done:
  if (st == VS_OK)
    *out = x.b;
  else
    vs_sbuf_free(&x.b);
  vs_free(times);
  vs_free(rel);
  vs_free(h5name);
  return st;
}

vs_status vs_xdmf_write(const char *h5_path, const char *xmf_path, vs_error *err) {
  if (!h5_path)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_xdmf_write: missing argument");
  char *own = xmf_path ? NULL : vs_xdmf_default_path(h5_path);
  const char *xmf = xmf_path ? xmf_path : own;
  vs_h5g_file g = {.file = H5I_INVALID_HID, .lapl = H5I_INVALID_HID, .fd = -1};
  vs_sbuf text = {0};
  vs_status st = xmf ? vs_h5g_open_checked(h5_path, &g, err)
                     : vs_error_set(err, VS_ERR_NOMEM, h5_path, 0, 0, "out of memory");
  if (st == VS_OK) st = sidecar_text(g.file, h5_path, xmf, &text, err);
  vs_h5g_close(&g);
  if (st == VS_OK) st = write_text(xmf, text.p, text.n, err);
  vs_sbuf_free(&text);
  vs_free(own);
  return st;
}

vs_status vs_xdmf__text(hid_t f, const char *h5_path, const char *xmf_path, char **text,
                        size_t *len, vs_error *err) {
  *text = NULL;
  *len = 0;
  vs_sbuf b = {0};
  vs_status st = sidecar_text(f, h5_path, xmf_path, &b, err);
  if (st == VS_OK) {
    *text = b.p;
    *len = b.n;
  }
  return st;
}

vs_status vs_xdmf__stage_text(const char *xmf_path, const char *text, size_t len,
                              vs_outfile *o, vs_error *err) {
  return stage_text(xmf_path, text, len, o, err);
}
