/* SPDX-License-Identifier: MIT */
/* test_rigid_surface.c: the rigid bodies' surfaces in the result file
 * (docs/result-file.md: /particles/rigid_surface, /connectivity/
 * rigid_triangles) and files of rigid bodies only (no /particles/all), end
 * to end through `vsim`:
 *  - a box at a known pose has its 8 corners exactly at centre +- the half
 *    extents turned by its quaternion; a sphere's vertices lie on it, a
 *    capsule's on its segment's offset; every body's triangles close a
 *    surface with outward normals (its signed volume is that of the shape
 *    within the tessellation's error); float32 output is the rounded doubles;
 *    output.xdmf: false writes none
 *  - resume rewrites them bitwise (vsim compare of a resumed and a straight
 *    run is equal), and compare sees a moved surface
 *  - info, compare, render and xdmf read a rigid-only file; xdmf draws the
 *    surfaces as triangles and, for a file without them (written before
 *    them), the centres only. */
#include <hdf5.h>
#include <math.h>

#include "runutil.h"

/* tests/data/rigid_shapes.yaml: box 0.2 x 0.4 x 0.6 at (1, 2, 3), q = (0, 0, 0, 1);
 * sphere r 0.5 at (3, 2, 1); capsule r 0.25, length 1, at (0, 1, 0), 90 degrees about z */
enum { BOX_V = 8, SPHERE_V = 42, CAPSULE_V = 74, V = BOX_V + SPHERE_V + CAPSULE_V };
enum { T = 12 + 80 + 144 };

static char *run_shapes(const char *d, const char *out, const char *extra) {
  char *scene = cu_repo_path("tests/data/rigid_shapes.yaml");
  cu_proc r = extra ? cu_vsim(d, "run", scene, "-o", out, "-q", "--set", extra, NULL)
                    : cu_vsim(d, "run", scene, "-o", out, "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  free(scene);
  return cu_strf("%s/%s", d, out);
}

/* the whole dataset as doubles (or int32), its size checked */
static void read_all(hid_t f, const char *path, hid_t mtype, void *buf, hssize_t want) {
  hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(ds >= 0, "%s missing", path);
  hid_t sp = H5Dget_space(ds);
  ck_assert_int_eq(H5Sget_simple_extent_npoints(sp), want);
  ck_assert(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Sclose(sp);
  H5Dclose(ds);
}

static int exists(hid_t f, const char *path) { return H5Lexists(f, path, H5P_DEFAULT) > 0; }

START_TEST(surfaces_where_the_bodies_are) {
  char *d = tu_tmpdir();
  char *p = run_shapes(d, "s.h5", NULL);
  hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  /* rigid bodies only: no /particles/all */
  ck_assert(!exists(f, "/particles/all"));
  static double x[11][V][3];
  static int32_t tri[T][3], body[V];
  read_all(f, "/particles/rigid_surface/position/value", H5T_NATIVE_DOUBLE, x, 11 * V * 3);
  read_all(f, "/connectivity/rigid_triangles", H5T_NATIVE_INT32, tri, T * 3);
  read_all(f, "/particles/rigid_surface/body", H5T_NATIVE_INT32, body, V);
  double rx[11][3][3], rq[11][3][4];
  read_all(f, "/particles/rigid/position/value", H5T_NATIVE_DOUBLE, rx, 11 * 9);
  read_all(f, "/particles/rigid/orientation/value", H5T_NATIVE_DOUBLE, rq, 11 * 12);
  /* H5MD connectivity: the triangles name the particles group they index */
  ck_assert(H5Aexists_by_name(f, "/connectivity/rigid_triangles", "particles_group",
                              H5P_DEFAULT) > 0);
  H5Fclose(f);

  /* frame 0, the box turned 180 degrees about z: (x, y, z) -> (-x, -y, z),
   * corner i at +-0.1, +-0.2, +-0.3 (bit 0 of i +x, bit 1 +y, bit 2 +z) */
  const double c[3] = {1, 2, 3}, h[3] = {0.1, 0.2, 0.3};
  for (int i = 0; i < BOX_V; i++) {
    double l[3] = {i & 1 ? h[0] : -h[0], i & 2 ? h[1] : -h[1], i & 4 ? h[2] : -h[2]};
    double want[3] = {c[0] - l[0], c[1] - l[1], c[2] + l[2]};
    for (int k = 0; k < 3; k++)
      ck_assert_msg(x[0][i][k] == want[k], "corner %d axis %d: %.17g, want %.17g", i, k,
                    x[0][i][k], want[k]);
  }
  for (int i = 0; i < V; i++) ck_assert_int_eq(body[i], i < BOX_V ? 0 : i < BOX_V + SPHERE_V ? 1 : 2);

  for (int fr = 0; fr < 11; fr += 10) {
    /* the sphere's vertices on it; the capsule's at r from its segment
     * (its axis: local y turned by its quaternion, half length 0.5) */
    for (int i = BOX_V; i < BOX_V + SPHERE_V; i++) {
      double r2 = 0;
      for (int k = 0; k < 3; k++) r2 += pow(x[fr][i][k] - rx[fr][1][k], 2);
      ck_assert_double_eq_tol(sqrt(r2), 0.5, 1e-12);
    }
    const double *q = rq[fr][2];
    double ax[3] = {2 * (q[1] * q[2] - q[0] * q[3]), 1 - 2 * (q[1] * q[1] + q[3] * q[3]),
                    2 * (q[2] * q[3] + q[0] * q[1])};
    for (int i = BOX_V + SPHERE_V; i < V; i++) {
      double rel[3], t = 0, dist2 = 0;
      for (int k = 0; k < 3; k++) rel[k] = x[fr][i][k] - rx[fr][2][k];
      for (int k = 0; k < 3; k++) t += rel[k] * ax[k];
      t = fmax(-0.5, fmin(0.5, t));
      for (int k = 0; k < 3; k++) dist2 += pow(rel[k] - t * ax[k], 2);
      ck_assert_double_eq_tol(sqrt(dist2), 0.25, 1e-12);
    }
    /* closed, outward: the signed volume of each body's triangles */
    const double pi = 3.14159265358979323846;
    const double exact[3] = {0.2 * 0.4 * 0.6, 4.0 / 3 * pi * 0.125,
                             pi * 0.0625 * 1 + 4.0 / 3 * pi * pow(0.25, 3)};
    const double lo[3] = {1 - 1e-12, 0.85, 0.92}; /* level-1 icosphere 0.873, capsule 0.939 */
    double vol[3] = {0, 0, 0};
    for (int t = 0; t < T; t++) {
      const double *a = x[fr][tri[t][0]], *b = x[fr][tri[t][1]], *e = x[fr][tri[t][2]];
      ck_assert(body[tri[t][0]] == body[tri[t][1]] && body[tri[t][1]] == body[tri[t][2]]);
      const double *o = rx[fr][body[tri[t][0]]];
      double u[3], v[3], w[3];
      for (int k = 0; k < 3; k++) u[k] = a[k] - o[k], v[k] = b[k] - o[k], w[k] = e[k] - o[k];
      vol[body[tri[t][0]]] += (u[0] * (v[1] * w[2] - v[2] * w[1]) -
                               u[1] * (v[0] * w[2] - v[2] * w[0]) +
                               u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
    }
    for (int b = 0; b < 3; b++)
      ck_assert_msg(vol[b] / exact[b] > lo[b] && vol[b] / exact[b] < 1 + 1e-12,
                    "frame %d body %d: volume %.17g of %.17g", fr, b, vol[b], exact[b]);
  }
  /* they fall: frame 10's box is frame 0's moved down with its centre */
  ck_assert(x[10][0][1] < x[0][0][1]);
  ck_assert_double_eq_tol(x[10][0][1] - rx[10][0][1], x[0][0][1] - rx[0][0][1], 1e-12);

  /* float32 output: the same vertices rounded */
  char *p32 = run_shapes(d, "f.h5", "output.precision=float32");
  f = H5Fopen(p32, H5F_ACC_RDONLY, H5P_DEFAULT);
  static float x32[11][V][3];
  read_all(f, "/particles/rigid_surface/position/value", H5T_NATIVE_FLOAT, x32, 11 * V * 3);
  hid_t ds = H5Dopen2(f, "/particles/rigid_surface/position/value", H5P_DEFAULT);
  hid_t ty = H5Dget_type(ds);
  ck_assert_uint_eq(H5Tget_size(ty), 4);
  H5Tclose(ty);
  H5Dclose(ds);
  H5Fclose(f);
  for (int i = 0; i < V; i++)
    for (int k = 0; k < 3; k++) ck_assert(x32[0][i][k] == (float)x[0][i][k]);
  free(p32);

  /* output.xdmf: false: neither the sidecar nor the surfaces it draws */
  char *pn = run_shapes(d, "n.h5", "output.xdmf=false");
  f = H5Fopen(pn, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  ck_assert(exists(f, "/particles/rigid/position/value"));
  ck_assert(!exists(f, "/particles/rigid_surface"));
  ck_assert(!exists(f, "/connectivity/rigid_triangles"));
  H5Fclose(f);
  char *xn = cu_strf("%s/n.xmf", d);
  ck_assert_int_ne(access(xn, F_OK), 0);
  free(xn);
  free(pn);
  free(p);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(resume_and_compare) {
  char *d = tu_tmpdir();
  char *scene = cu_repo_path("configs/rigid_stack.yaml");
  cu_proc r = cu_vsim(d, "run", scene, "-o", "a.h5", "-q", "--frames", "40", "--set",
                      "output.xdmf=true", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "run", scene, "-o", "b.h5", "-q", "--frames", "17", "--set", "output.xdmf=true",
              NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "run", "--resume", "b.h5", "--frames", "40", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  cu_expect_same(d, "a.h5", "b.h5");
  /* a file without the surfaces (written before them) resumes without them */
  r = cu_vsim(d, "run", scene, "-o", "o.h5", "-q", "--frames", "17", "--set", "output.xdmf=true",
              NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  char *op = cu_strf("%s/o.h5", d);
  hid_t f = H5Fopen(op, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(f >= 0);
  ck_assert(H5Ldelete(f, "/particles/rigid_surface", H5P_DEFAULT) >= 0);
  ck_assert(H5Ldelete(f, "/connectivity/rigid_triangles", H5P_DEFAULT) >= 0);
  ck_assert(H5Fclose(f) >= 0);
  r = cu_vsim(d, "run", "--resume", "o.h5", "--frames", "40", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "compare", "o.h5", "a.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "/particles/rigid_surface/position/value: only in a.h5");
  CU_EXPECT_IN(r.out, "different: 5 differences,");
  cu_free(&r);
  free(op);
  /* compare reads the surfaces: a moved box is a difference there too */
  r = cu_vsim(d, "run", scene, "-o", "c.h5", "-q", "--frames", "40", "--set",
              "bodies.box7.position=[0.01, 3, 0]", "--set", "output.xdmf=true", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "compare", "a.h5", "c.h5", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.out, "/particles/rigid_surface/position/value");
  cu_free(&r);
  free(scene);
  tu_rmtree(d);
  free(d);
}
END_TEST

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(readers_of_a_rigid_only_file) {
  char *d = tu_tmpdir();
  char *p = run_shapes(d, "s.h5", NULL);
  cu_proc r = cu_vsim(d, "info", "s.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "particles:       0\n");
  CU_EXPECT_IN(r.out, "rigid bodies:    3\n");
  CU_EXPECT_IN(r.out, "/particles/rigid_surface/position/value");
  CU_EXPECT_NOT_IN(r.out, "/particles/all");
  cu_free(&r);
  r = cu_vsim(d, "info", "--json", "s.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "\"particles\": 0, \"rigid_bodies\": 3,");
  cu_free(&r);
  cu_expect_same(d, "s.h5", "s.h5");
  r = cu_vsim(d, "render", "s.h5", "-o", "s.png", "--size", "64x48", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);

  /* the sidecar: no particle grids, the centres and the surfaces; frames
   * and times from /particles/rigid */
  char *xp = cu_strf("%s/s.xmf", d);
  char *x = cu_slurp(xp);
  ck_assert_ptr_nonnull(x);
  CU_EXPECT_NOT_IN(x, "/particles/all");
  ck_assert_int_eq(count(x, "<Time Value="), 11);
  ck_assert_int_eq(count(x, "<Grid Name=\"rigid\" GridType=\"Uniform\">"), 11);
  ck_assert_int_eq(count(x, "<Grid Name=\"rigid_surface\" GridType=\"Uniform\"><Topology "
                            "TopologyType=\"Triangle\" NumberOfElements=\"236\"><DataItem "
                            "Dimensions=\"236 3\" NumberType=\"Int\" Precision=\"4\" "
                            "Format=\"HDF\">s.h5:/connectivity/rigid_triangles</DataItem>"),
                   11);
  CU_EXPECT_IN(x, "<DataItem Dimensions=\"3 3\" Format=\"XML\">10 0 0 1 1 1 1 124 3</DataItem>"
                  "<DataItem Dimensions=\"11 124 3\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"HDF\">s.h5:/particles/rigid_surface/position/value</DataItem>");
  CU_EXPECT_IN(x, "<Attribute Name=\"body\" AttributeType=\"Scalar\" Center=\"Node\"><DataItem "
                  "Dimensions=\"124\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
                  "s.h5:/particles/rigid_surface/body</DataItem></Attribute></Grid>");
  free(x);

  /* a file from before the surfaces: the centres only */
  hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(f >= 0);
  ck_assert(H5Ldelete(f, "/particles/rigid_surface", H5P_DEFAULT) >= 0);
  ck_assert(H5Ldelete(f, "/connectivity/rigid_triangles", H5P_DEFAULT) >= 0);
  ck_assert(H5Fclose(f) >= 0);
  r = cu_vsim(d, "xdmf", "s.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  x = cu_slurp(xp);
  ck_assert_int_eq(count(x, "<Grid Name=\"rigid\" GridType=\"Uniform\">"), 11);
  CU_EXPECT_NOT_IN(x, "rigid_surface");
  free(x);
  r = cu_vsim(d, "info", "s.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  free(xp);
  free(p);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* a scene with no bodies: no /particles/all, no sidecar, exit 0; info and
 * compare read it, render says there is nothing to draw */
START_TEST(no_bodies) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/e.yaml", d);
  cu_write(p, "time: {dt: 0.01, frames: 3}\nbodies: []\n");
  cu_proc r = cu_vsim(d, "run", "e.yaml", "-o", "e.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  CU_EXPECT_LISTING(d, "e.h5 e.yaml");
  r = cu_vsim(d, "info", "e.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "particles:       0\n");
  CU_EXPECT_NOT_IN(r.out, "/particles/all");
  CU_EXPECT_NOT_IN(r.out, "rigid bodies:");
  cu_free(&r);
  cu_expect_same(d, "e.h5", "e.h5");
  r = cu_vsim(d, "render", "e.h5", "-o", "e.png", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "e.h5: no positions recorded");
  cu_free(&r);
  free(p);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *rigid_surface_suite(void) {
  Suite *s = suite_create("rigid_surface");
  TCase *tc = tcase_create("rigid_surface");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, surfaces_where_the_bodies_are);
  tcase_add_test(tc, resume_and_compare);
  tcase_add_test(tc, readers_of_a_rigid_only_file);
  tcase_add_test(tc, no_bodies);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(rigid_surface_suite());
}
