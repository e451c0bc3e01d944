/* SPDX-License-Identifier: MIT */
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
 * The file is written beside its final name and renamed into place.  The
 * colliders' grids are xdmf_colliders.c's. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"
#include "util/outfile.h"
#include "util/text.h"
#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "io/read/readall.h"
#include "io/read/xdmf.h"
#include "io/read/xdmf_int.h"
#include "vsim/h5.h"
#include "vsim/model.h"

int64_t xd_dims_of(xd *x, const char *path, int rank, const hsize_t *inner, int64_t *d1,
                   int *f32) {
  hsize_t dims[VS_RD_MAX_RANK];
  char why[sizeof x->why];
  int r = vs_rd_shape(x->f, path, rank, inner, dims, f32, why, sizeof why);
  if (r == 0) return -1;
  if (r < 0) {
    snprintf(x->why, sizeof x->why, "%s", why);
    return -2;
  }
  if (d1 && rank > 1) *d1 = (int64_t)dims[1];
  return (int64_t)dims[0];
}

/* rows x cols int32 of the dataset at path into buf (room for buf_n), every
 * axis checked against that first (readall.h). */
static int read_i32(xd *x, const char *path, int64_t rows, int cols, int32_t *buf, size_t buf_n) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  char why[sizeof x->why];
  if (vs_rd_read_all(x->f, path, 2, dims, H5T_NATIVE_INT32, buf, buf_n * sizeof *buf, why,
                     sizeof why) == 0)
    return 0;
  snprintf(x->why, sizeof x->why, "%s", why);
  return -1;
}

/* The 1-D dataset at path, of dims[0] doubles, into buf (room for buf_n). */
static int read_f64(xd *x, const char *path, const hsize_t *dims, double *buf, size_t buf_n) {
  char why[sizeof x->why];
  if (vs_rd_read_all(x->f, path, 1, dims, H5T_NATIVE_DOUBLE, buf, buf_n * sizeof *buf, why,
                     sizeof why) == 0)
    return 0;
  snprintf(x->why, sizeof x->why, "%s", why);
  return -1;
}

/* "DIMS" NumberType Precision of a dataset of the file */
void xd_hdf_item(xd *x, const char *dims, const char *type, int prec, const char *path) {
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
  xd_hdf_item(x, dims, type, prec, path);
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
  xd_hdf_item(x, n, "Int", 4, "/particles/all/body");
  vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"mass\" AttributeType=\"Scalar\" Center=\"Node\">");
  xd_hdf_item(x, n, "Float", 8, "/particles/all/mass");
  vs_sbuf_puts(&x->b, "</Attribute>");
  if (x->radius) {
    vs_sbuf_puts(&x->b, "<Attribute Name=\"radius\" AttributeType=\"Scalar\" Center=\"Node\">");
    xd_hdf_item(x, n, "Float", 8, "/particles/all/radius");
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
    xd_hdf_item(x, d, "Int", 4, "/connectivity/triangles");
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
  } else if (x->links[VS_KIND_DISTANCE] > 0) {
    snprintf(d, sizeof d, "%lld 2", (long long)x->links[VS_KIND_DISTANCE]);
    vs_sbuf_printf(&x->b,
                   "<Grid Name=\"links\" GridType=\"Uniform\">"
                   "<Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
                   "NumberOfElements=\"%lld\">",
                   (long long)x->links[VS_KIND_DISTANCE]);
    xd_hdf_item(x, d, "Int", 4, "/connectivity/distance");
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
    xd_hdf_item(x, n, "Int", 4, "/particles/rigid/shape");
    vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"size\" AttributeType=\"Vector\" "
                        "Center=\"Node\">");
    snprintf(n, sizeof n, "%lld 3", (long long)x->B);
    xd_hdf_item(x, n, "Float", 8, "/particles/rigid/size");
    vs_sbuf_puts(&x->b, "</Attribute><Attribute Name=\"mass\" AttributeType=\"Scalar\" "
                        "Center=\"Node\">");
    snprintf(n, sizeof n, "%lld", (long long)x->B);
    xd_hdf_item(x, n, "Float", 8, "/particles/rigid/mass");
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
    xd_hdf_item(x, d, "Int", 4, "/connectivity/rigid_triangles");
    vs_sbuf_puts(&x->b, "</Topology><Geometry GeometryType=\"XYZ\">");
    slab(x, k, x->S, 3, "Float", x->surf_f32 ? 4 : 8, "/particles/rigid_surface/position/value");
    vs_sbuf_puts(&x->b, "</Geometry>\n<Attribute Name=\"body\" AttributeType=\"Scalar\" "
                        "Center=\"Node\">");
    snprintf(d, sizeof d, "%lld", (long long)x->S);
    xd_hdf_item(x, d, "Int", 4, "/particles/rigid_surface/body");
    vs_sbuf_puts(&x->b, "</Attribute></Grid>\n");
  }
  vs_sbuf_puts(&x->b, "</Grid>\n");
}

/* The columns of kind k's dataset /connectivity/<kind> (docs/result-file.md,
 * layout): a distance link's two particles, an angle limit's a-c pair (the
 * link that acts); 0 for a kind that has none (a pin holds one particle:
 * it is only in /solver/constraints).  Every kind is listed, so a new row
 * of VS_KINDS fails the build here until its particles are placed. */
static int link_cols(vs_kind k) {
  switch (k) {
  case VS_KIND_DISTANCE: return 2;
  case VS_KIND_PIN: return 0;
  case VS_KIND_ANGLE: return 2;
  }
  return 0;
}

static void link_path(vs_kind k, char *buf, size_t size) {
  snprintf(buf, size, "/connectivity/%s", vs_kind_name(k));
}

/* The inline items: the free particles, and the Mixed cells of every
 * constraint (XDMF 2 codes: 1 polyvertex, 2 polyline, each followed by its
 * node count) when links can tear.  -1 on a read failure. */
static int inline_items(xd *x) {
  int rc = -1;
  size_t n = (size_t)x->N;
  unsigned char *used = vs_calloc(n + 1, 1);
  size_t big = 3 * (size_t)(x->T > x->M ? x->T : x->M);
  for (int k = 0; k < VS_KIND_COUNT; k++)
    if ((size_t)link_cols((vs_kind)k) * (size_t)x->links[k] > big)
      big = (size_t)link_cols((vs_kind)k) * (size_t)x->links[k];
  int32_t *idx = vs_malloc((big + 1) * sizeof *idx);
  if (!used || !idx) {
    x->nomem = 1;
    goto done;
  }
  /* every kind's pairs, then the triangles */
  for (int s = 0; s <= VS_KIND_COUNT; s++) {
    char path[64];
    if (s < VS_KIND_COUNT)
      link_path((vs_kind)s, path, sizeof path);
    else
      snprintf(path, sizeof path, "/connectivity/triangles");
    const int64_t rows = s < VS_KIND_COUNT ? x->links[s] : x->T;
    const int cols = s < VS_KIND_COUNT ? link_cols((vs_kind)s) : 3;
    if (rows <= 0) continue;
    if (read_i32(x, path, rows, cols, idx, big + 1) < 0) goto done;
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
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
    if (x->M > 0 && read_i32(x, "/solver/constraints", x->M, 3, idx, big + 1) < 0) goto done;
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


/* The path of h5 relative to the directory of xmf (both exist). */
static char *relative_to(const char *h5, const char *xmf, int *nomem) {
  char *dh = vs_dir_part(h5), *dx = vs_dir_part(xmf);
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
 * it, never a special file, an existing regular .xmf replaced (it is
 * derived data), but never a symbolic link (replaced without being asked
 * for, it is never written through one) nor one of inputs (the result file,
 * the scene of the run).  stage_text writes the temporary file and starts
 * its writing to disk; publishing it is the caller's (vs_outfile_publish). */
static vs_status stage_text(const char *path, const char *text, size_t len,
                            const char *const *inputs, vs_outfile *o, vs_error *err) {
  vs_status rc = vs_outfile_create(path, VS_OUTFILE_FORCE, inputs, o, err);
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

static vs_status write_text(const char *path, const char *text, size_t len,
                            const char *const *inputs, vs_error *err) {
  vs_outfile o;
  vs_status rc = stage_text(path, text, len, inputs, &o, err);
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
   * only (no /particles/all), of the bodies'.  Every dataset is taken with
   * the shape the sidecar says it has (readall.h): a dataset the sidecar
   * reads (the times, the connectivity) in another shape is an error, one
   * it only points to is left out. */
  static const hsize_t any3[2] = {VS_RD_ANY, 3}, any4[2] = {VS_RD_ANY, 4}, three[1] = {3};
  x.F = xd_dims_of(&x, "/particles/all/position/value", 3, any3, &x.N, &x.pos_f32);
  int has_all = x.F >= 0 || vs_h5_path_exists(x.f, "/particles/all");
  if (x.F == -2) {
    st = vs_error_set(err, VS_ERR_FORMAT, h5_path, 0, 0, "%s", x.why);
    goto done;
  }
  if (!has_all) {
    x.N = 0;
    x.F = xd_dims_of(&x, "/particles/rigid/position/value", 3, any3, NULL, NULL);
  }
  if (x.F < 0 || (has_all && xd_dims_of(&x, "/particles/all/mass", 1, NULL, NULL, NULL) != x.N)) {
    st = vs_error_set(err, VS_ERR_FORMAT, h5_path, 0, 0,
                      "no positions recorded (output.fields without position): nothing to show");
    goto done;
  }
  const hsize_t n3[2] = {(hsize_t)x.N, 3};
  x.vel = xd_dims_of(&x, "/particles/all/velocity/value", 3, n3, NULL, &x.vel_f32) == x.F;
  x.radius = xd_dims_of(&x, "/particles/all/radius", 1, NULL, NULL, NULL) == x.N;
  /* the connectivity, read below: of its documented shape or an error */
  x.T = xd_dims_of(&x, "/connectivity/triangles", 2, three, NULL, NULL);
  for (int k = 0; x.T != -2 && k < VS_KIND_COUNT; k++) {
    char path[64];
    link_path((vs_kind)k, path, sizeof path);
    const hsize_t cols = (hsize_t)link_cols((vs_kind)k);
    x.links[k] = cols > 0 ? xd_dims_of(&x, path, 2, &cols, NULL, NULL) : 0;
    if (x.links[k] == -2) x.T = -2;
    if (x.links[k] < 0) x.links[k] = 0; /* absent: none of that kind */
  }
  if (x.T != -2) x.M = xd_dims_of(&x, "/solver/constraints", 2, three, NULL, NULL);
  if (x.T == -2 || x.M == -2) {
    st = vs_error_set(err, VS_ERR_FORMAT, h5_path, 0, 0, "cannot read its connectivity: %s",
                      x.why);
    goto done;
  }
  if (x.T < 0) x.T = 0; /* absent: none of that kind */
  if (x.M < 0) x.M = 0;
  x.B = xd_dims_of(&x, "/particles/rigid/position/value", 3, any3, NULL, &x.rpos_f32) == x.F &&
                xd_dims_of(&x, "/particles/rigid/orientation/value", 3, any4, NULL, &x.rq_f32) ==
                    x.F
            ? xd_dims_of(&x, "/particles/rigid/shape", 1, NULL, NULL, NULL)
            : 0;
  if (x.B > 0) {
    int64_t b = 0;
    const hsize_t b3[2] = {(hsize_t)x.B, 3};
    if (xd_dims_of(&x, "/particles/rigid/position/value", 3, any3, &b, NULL) != x.F || b != x.B ||
        xd_dims_of(&x, "/particles/rigid/orientation/value", 3, any4, &b, NULL) != x.F ||
        b != x.B || xd_dims_of(&x, "/particles/rigid/size", 2, three, NULL, NULL) != x.B ||
        xd_dims_of(&x, "/particles/rigid/mass", 1, NULL, NULL, NULL) != x.B)
      x.B = 0; /* not the documented layout: leave the bodies out */
    x.rvel = xd_dims_of(&x, "/particles/rigid/velocity/value", 3, b3, NULL, &x.rvel_f32) == x.F;
    x.rw = xd_dims_of(&x, "/particles/rigid/angular_velocity/value", 3, b3, NULL, &x.rw_f32) ==
           x.F;
  }
  if (x.B < 0) x.B = 0;
  /* the surfaces (files from before them have the centres only) */
  if (x.B > 0 &&
      xd_dims_of(&x, "/particles/rigid_surface/position/value", 3, any3, &x.S, &x.surf_f32) ==
          x.F &&
      xd_dims_of(&x, "/particles/rigid_surface/body", 1, NULL, NULL, NULL) == x.S)
    x.RT = xd_dims_of(&x, "/connectivity/rigid_triangles", 2, three, NULL, NULL);
  if (x.RT <= 0) x.S = x.RT = 0;
  int64_t am = 0;
  const hsize_t m1[1] = {(hsize_t)x.M};
  x.alive =
      x.M > 0 && xd_dims_of(&x, "/connectivity/alive/value", 2, m1, &am, NULL) == x.F && am == x.M;
  times = vs_malloc(((size_t)x.F + 1) * sizeof *times);
  const hsize_t tf[1] = {(hsize_t)x.F};
  int tr = times && read_f64(&x,
                             has_all ? "/particles/all/position/time"
                                     : "/particles/rigid/position/time",
                             tf, times, (size_t)x.F + 1) == 0
               ? 0
               : -1;
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
                                "cannot read its time or connectivity: %s",
                                x.why[0] ? x.why : "unknown");
    goto done;
  }
  vs_sbuf_puts(&x.b, "<Grid Name=\"vsim\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int64_t k = 0; k < x.F; k++) frame(&x, k, times[k]);
  vs_sbuf_puts(&x.b, "</Grid>\n");
  xd_colliders(&x);
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
  const char *const inputs[] = {h5_path, NULL};
  /* the output is checked before the file is read: an .xmf that is the
   * result file itself (-o OUT.h5) or a link is refused at once */
  vs_status st = xmf ? vs_outfile_check(xmf, VS_OUTFILE_FORCE, inputs, err)
                     : vs_error_set(err, VS_ERR_NOMEM, h5_path, 0, 0, "out of memory");
  if (st == VS_OK) st = vs_h5g_open_checked(h5_path, &g, err);
  if (st == VS_OK) st = sidecar_text(g.file, h5_path, xmf, &text, err);
  vs_h5g_close(&g);
  if (st == VS_OK) st = write_text(xmf, text.p, text.n, inputs, err);
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
                              const char *const *inputs, vs_outfile *o, vs_error *err) {
  return stage_text(xmf_path, text, len, inputs, o, err);
}
