/* SPDX-License-Identifier: MIT */
/* test_xdmf_cli.c: the XDMF sidecar end to end (docs/result-file.md,
 * "Viewers"): vsim run writes OUT.xmf beside OUT.h5 (also for a failed run,
 * naming the final file, never the temporary one), output.xdmf: false turns
 * it off, vsim xdmf writes one anywhere with the .h5 named relative to it,
 * and bad input is exit 2 with the file named.  The sidecar is written as
 * every output is (docs/cli.md, Output files): an existing .xmf is replaced,
 * but a link planted at its name is never written through (run, xdmf,
 * resume, sweep points) and no input is replaced by it.  ParaView itself
 * reads them in tests/clients/. */
#include <hdf5.h>
#include <math.h>

#include "runutil.h"

static const char *scene =
    "time: {dt: 0.01, frames: 6}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [0, 1, 0], size: [1, 1], resolution: [3, 3], pin: top-edge}\n"
    "  - particles: {name: p, positions: [[0, 3, 0], [1, 3, 0]], velocities: [[0, 0, 0], [0, 9, "
    "0]]}\n"
    "output: {xdmf: true}\n"; /* the sidecar is written on demand */

static char *setup(void) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/s.yaml", d);
  cu_write(p, scene);
  free(p);
  p = cu_strf("%s/sub", d);
  ck_assert_int_eq(mkdir(p, 0777), 0);
  free(p);
  p = cu_strf("%s/other", d);
  ck_assert_int_eq(mkdir(p, 0777), 0);
  free(p);
  return d;
}

static char *slurp_in(const char *d, const char *rel) {
  char *p = cu_strf("%s/%s", d, rel);
  char *t = cu_slurp(p);
  free(p);
  ck_assert_msg(t != NULL, "%s was not written", rel);
  return t;
}

static void expect_listing(const char *d, const char *sub, const char *want) {
  char *p = cu_strf("%s/%s", d, sub);
  CU_EXPECT_LISTING(p, want);
  free(p);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(run_writes_the_sidecar) {
  char *d = setup();
  cu_proc r = cu_vsim(d, "run", "s.yaml", "-o", "sub/out.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  expect_listing(d, "sub", "out.h5 out.xmf");
  char *x = slurp_in(d, "sub/out.xmf");
  /* 7 frames, each a spatial collection with triangles, links, the 2 free particles */
  ck_assert_int_eq(count(x, "CollectionType=\"Temporal\""), 1);
  ck_assert_int_eq(count(x, "CollectionType=\"Spatial\""), 7);
  ck_assert_int_eq(count(x, "<Time Value="), 7);
  CU_EXPECT_IN(x, "<Time Value=\"0.059999999999999998\"/>");
  ck_assert_int_eq(count(x, "TopologyType=\"Triangle\" NumberOfElements=\"8\""), 7);
  ck_assert_int_eq(count(x, "TopologyType=\"Polyvertex\" NodesPerElement=\"1\" "
                            "NumberOfElements=\"2\""), 7);
  CU_EXPECT_IN(x, "<DataItem Name=\"free\" Dimensions=\"2\" NumberType=\"Int\" Precision=\"4\" "
                  "Format=\"XML\">9 10 </DataItem>");
  CU_EXPECT_IN(x, "<DataItem Dimensions=\"3 3\" Format=\"XML\">6 0 0 1 1 1 1 11 3</DataItem>"
                  "<DataItem Dimensions=\"7 11 3\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"HDF\">out.h5:/particles/all/position/value</DataItem>");
  ck_assert_ptr_null(strstr(x, "tmp"));
  ck_assert_ptr_null(strstr(x, "velocity")); /* not recorded */
  ck_assert_ptr_null(strstr(x, "alive"));    /* nothing can tear */
  ck_assert_ptr_null(strstr(x, "collider")); /* none in the scene */
  ck_assert_ptr_null(strstr(x, "rigid"));
  free(x);

  /* output.xdmf: false */
  r = cu_vsim(d, "run", "s.yaml", "-o", "other/plain.h5", "-q", "--set", "output.xdmf=false", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  expect_listing(d, "other", "plain.h5");

  /* a failed run (a runaway particle at frame 1) still gets its sidecar,
   * naming the file under its final name */
  r = cu_vsim(d, "run", "s.yaml", "-o", "failed.h5", "-q", "--set", "solver.runaway_speed=5",
              "--set", "output.fields=[position,velocity]", NULL);
  CU_EXPECT_CODE(r, 1);
  cu_free(&r);
  cu_expect_status(d, "failed.h5", "failed");
  x = slurp_in(d, "failed.xmf");
  ck_assert_int_eq(count(x, "<Time Value="), 1);
  CU_EXPECT_IN(x, "Format=\"HDF\">failed.h5:/particles/all/velocity/value</DataItem>");
  ck_assert_ptr_null(strstr(x, "tmp"));
  free(x);
  tu_rmtree(d);
  free(d);
}
END_TEST

START_TEST(xdmf_command) {
  char *d = setup();
  cu_proc r = cu_vsim(d, "run", "s.yaml", "-o", "sub/out.h5", "-q", "--set",
                      "output.xdmf=false", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "sub/out.h5", "-o", "other/view.xmf", NULL);
  CU_EXPECT_CODE(r, 0);
  ck_assert_str_eq(r.out, "");
  cu_free(&r);
  char *x = slurp_in(d, "other/view.xmf");
  CU_EXPECT_IN(x, "Format=\"HDF\">../sub/out.h5:/particles/all/position/value</DataItem>");
  free(x);
  /* the default name: beside the .h5; an existing one is replaced */
  r = cu_vsim(d, "xdmf", "sub/out.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "sub/out.h5", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  expect_listing(d, "sub", "out.h5 out.xmf");

  r = cu_vsim(d, "xdmf", "missing.h5", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "vsim: missing.h5: cannot open: No such file or directory\n");
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "s.yaml", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "vsim: s.yaml: not an HDF5 file (not a vsim result)\n");
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "sub/out.h5", "-o", "nodir/x.xmf", NULL);
  CU_EXPECT_CODE(r, 2);
  /* the output is checked first (docs/cli.md, Output files) */
  CU_EXPECT_IN(r.err, "vsim: nodir/x.xmf: directory 'nodir' does not exist\n");
  cu_free(&r);
  r = cu_vsim(d, "run", "s.yaml", "-o", "obs.h5", "-q", "--set", "output.fields=[velocity]", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  CU_EXPECT_LISTING(d, "obs.h5 other s.yaml sub"); /* nothing to draw: no sidecar */
  r = cu_vsim(d, "xdmf", "obs.h5", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "obs.h5: no positions recorded");
  cu_free(&r);
  r = cu_vsim(d, "xdmf", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "which file?");
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "--help", NULL);
  CU_EXPECT_CODE(r, 0);
  CU_EXPECT_IN(r.out, "Usage: vsim xdmf OUT.h5 [-o OUT.xmf]");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* d/rel holds exactly text */
static void expect_text(const char *d, const char *rel, const char *text) {
  char *t = slurp_in(d, rel);
  ck_assert_msg(strcmp(t, text) == 0, "%s changed: '%.60s'", rel, t);
  free(t);
}

/* A link planted at the sidecar's name (out.xmf -> a victim, such as
 * ~/.ssh/authorized_keys) is never written through, without --force or
 * with it: run and resume refuse before running (exit 2, nothing written),
 * vsim xdmf refuses, a sweep point fails; the victim and the link stay. */
START_TEST(sidecar_never_follows_a_planted_link) {
  char *d = setup();
  char *victim = cu_strf("%s/victim", d);
  const char *precious = "ssh-ed25519 AAAA precious\n";
  cu_write(victim, precious);
  char *link = cu_strf("%s/out.xmf", d);
  ck_assert_int_eq(symlink("victim", link), 0);
  for (int force = 0; force < 2; force++) {
    cu_proc r = cu_vsim(d, "run", "s.yaml", "-o", "out.h5", "-q", force ? "--force" : NULL, NULL);
    CU_EXPECT_CODE(r, 2);
    CU_EXPECT_IN(r.err, "out.xmf: is a symbolic link: refused");
    cu_free(&r);
  }
  expect_text(d, "victim", precious);
  CU_EXPECT_LISTING(d, "other out.xmf s.yaml sub victim");
  /* vsim xdmf, and --resume of a file that has no sidecar yet */
  cu_proc r = cu_vsim(d, "run", "s.yaml", "-o", "sub/out.h5", "-q", "--frames", "3", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "xdmf", "sub/out.h5", "-o", "out.xmf", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "out.xmf: is a symbolic link: refused");
  cu_free(&r);
  char *sub_xmf = cu_strf("%s/sub/out.xmf", d);
  ck_assert_int_eq(unlink(sub_xmf), 0);
  ck_assert_int_eq(symlink("../victim", sub_xmf), 0);
  r = cu_vsim(d, "run", "--resume", "sub/out.h5", "--frames", "5", "-q", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "sub/out.xmf: is a symbolic link: refused");
  cu_free(&r);
  cu_expect_status(d, "sub/out.h5", "complete");
  expect_text(d, "victim", precious);
  /* a sweep point: its run refuses, the point fails, the others run */
  char *sw = cu_strf("%s/s-sweep.yaml", d);
  cu_write(sw, "scene: s.yaml\nframes: 2\nparameters:\n  solver.iterations: [1, 2]\n");
  char *pdir = cu_strf("%s/pts", d);
  ck_assert_int_eq(mkdir(pdir, 0777), 0);
  char *pxmf = cu_strf("%s/pts/point-0000.xmf", d);
  ck_assert_int_eq(symlink("../victim", pxmf), 0);
  r = cu_vsim(d, "sweep", "s-sweep.yaml", "-o", "pts", NULL);
  CU_EXPECT_CODE(r, 1);
  CU_EXPECT_IN(r.err, "point-0000.xmf: is a symbolic link: refused");
  CU_EXPECT_IN(r.err, "1 of 2 points complete");
  cu_free(&r);
  expect_text(d, "victim", precious);
  expect_listing(d, "pts", "point-0000.xmf point-0001.h5 point-0001.xmf summary.csv");
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  free(sw);
  free(pdir);
  free(pxmf);
  free(sub_xmf);
  free(link);
  free(victim);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The sidecar never replaces an input: a scene named x.xmf (before: the
 * run overwrote its own scene with the sidecar), or the result file itself
 * as vsim xdmf's -o. */
START_TEST(sidecar_never_replaces_an_input) {
  char *d = setup();
  char *x = cu_strf("%s/x.xmf", d);
  cu_write(x, scene);
  cu_proc r = cu_vsim(d, "run", "x.xmf", "-o", "x.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "x.xmf: is 'x.xmf', an input of this command: refused");
  cu_free(&r);
  expect_text(d, "x.xmf", scene);
  r = cu_vsim(d, "run", "s.yaml", "-o", "sub/out.h5", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  char *h5 = cu_strf("%s/sub/out.h5", d);
  size_t n0 = 0, n1 = 0;
  char *before = tu_read_file(h5, &n0);
  r = cu_vsim(d, "xdmf", "sub/out.h5", "-o", "sub/out.h5", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "sub/out.h5: is 'sub/out.h5', an input of this command: refused");
  cu_free(&r);
  char *after = tu_read_file(h5, &n1);
  ck_assert(n0 == n1 && memcmp(before, after, n0) == 0);
  CU_EXPECT_LISTING(d, "other s.yaml sub x.xmf");
  free(before);
  free(after);
  free(h5);
  free(x);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* The static grids come after the temporal collection (drawn at every
 * frame), as the file's last grid. */
static const char *static_part(const char *x) {
  const char *c = strstr(x, "</Grid>\n<Grid Name=\"colliders\" GridType=\"Collection\" "
                            "CollectionType=\"Spatial\">\n");
  ck_assert_msg(c != NULL, "no colliders grid after the frames in:\n%s", x);
  ck_assert_ptr_null(strstr(c, "<Time"));
  ck_assert_int_eq(count(x, "Name=\"colliders\""), 1);
  const char *end = "</Grid>\n</Grid>\n</Domain>\n</Xdmf>\n";
  size_t n = strlen(x), e = strlen(end);
  ck_assert(n > e && strcmp(x + n - e, end) == 0);
  return c;
}

START_TEST(colliders_and_rigid_bodies) {
  char *d = tu_tmpdir();
  char *sphere = cu_repo_path("configs/cloth_sphere.yaml");
  char *drape = cu_repo_path("configs/mesh_drape.yaml");
  char *dice = cu_repo_path("configs/rigid_dice.yaml");

  /* a sphere (a closed UV sphere of 16 x 8: 114 points, 224 triangles,
   * poles at the centre +- r) and a plane (a quad in it) */
  cu_proc r = cu_vsim(d, "run", sphere, "-o", "s.h5", "-q", "--frames", "4", "--set", "output.xdmf=true", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  char *x = slurp_in(d, "s.xmf");
  const char *c = static_part(x);
  CU_EXPECT_IN(c, "<Grid Name=\"collider 0 sphere\" GridType=\"Uniform\"><Topology "
                  "TopologyType=\"Triangle\" NumberOfElements=\"224\"><DataItem "
                  "Dimensions=\"224 3\" NumberType=\"Int\" Precision=\"4\" Format=\"XML\">\n"
                  "0 2 1\n");
  CU_EXPECT_IN(c, "<Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"114 3\" "
                  "NumberType=\"Float\" Precision=\"8\" Format=\"XML\">\n0 1 0\n");
  CU_EXPECT_IN(c, "\n0 0 0\n</DataItem></Geometry></Grid>\n<Grid Name=\"collider 1 plane\"");
  CU_EXPECT_IN(c, "<Topology TopologyType=\"Quadrilateral\" NumberOfElements=\"1\">");
  /* the quad lies in y = 0, square, around the cloth (2 m wide) */
  const char *q = strstr(c, "Dimensions=\"4 3\"");
  ck_assert_ptr_nonnull(q);
  q = strchr(q, '\n');
  double v[4][3];
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(sscanf(q, "%lf %lf %lf", &v[i][0], &v[i][1], &v[i][2]), 3);
    q = strchr(q + 1, '\n');
    ck_assert_ptr_nonnull(q);
    ck_assert(v[i][1] == 0);
    ck_assert(fabs(v[i][0]) == fabs(v[0][0]) && fabs(v[i][2]) == fabs(v[0][0]));
  }
  ck_assert(fabs(v[0][0]) > 1.5 && fabs(v[0][0]) < 5);
  ck_assert_int_eq(count(x, "<Grid Name=\"collider "), 2);
  ck_assert_ptr_null(strstr(x, "rigid"));
  free(x);

  /* a mesh: its own datasets in the .h5 */
  r = cu_vsim(d, "run", drape, "-o", "m.h5", "-q", "--frames", "2", "--set", "output.xdmf=true", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  x = slurp_in(d, "m.xmf");
  c = static_part(x);
  CU_EXPECT_IN(c, "<Grid Name=\"collider 0 mesh\" GridType=\"Uniform\"><Topology "
                  "TopologyType=\"Triangle\" NumberOfElements=\"1280\"><DataItem "
                  "Dimensions=\"1280 3\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
                  "m.h5:/world/colliders/0/triangles</DataItem></Topology><Geometry "
                  "GeometryType=\"XYZ\"><DataItem Dimensions=\"642 3\" NumberType=\"Float\" "
                  "Precision=\"8\" Format=\"HDF\">m.h5:/world/colliders/0/vertices</DataItem>"
                  "</Geometry></Grid>\n<Grid Name=\"collider 1 plane\"");
  free(x);

  /* rigid dice on a box: a polyvertex of the 3 centres each frame with
   * their orientation, shape and size; the box a hexahedron */
  r = cu_vsim(d, "run", dice, "-o", "r.h5", "-q", "--frames", "4", "--set", "output.xdmf=true", "--set",
              "output.fields=[position,velocity]", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  x = slurp_in(d, "r.xmf");
  c = static_part(x);
  CU_EXPECT_IN(x, "<DataItem Name=\"rigid\" Dimensions=\"3\" NumberType=\"Int\" "
                  "Precision=\"4\" Format=\"XML\">0 1 2 </DataItem>");
  ck_assert_int_eq(count(x, "<Grid Name=\"rigid\" GridType=\"Uniform\"><Topology "
                            "TopologyType=\"Polyvertex\" NodesPerElement=\"1\" "
                            "NumberOfElements=\"3\"><DataItem Reference=\"XML\">"
                            "/Xdmf/Domain/DataItem[@Name=\"rigid\"]</DataItem></Topology>"),
                   5);
  CU_EXPECT_IN(x, "<DataItem Dimensions=\"3 3\" Format=\"XML\">4 0 0 1 1 1 1 3 3</DataItem>"
                  "<DataItem Dimensions=\"5 3 3\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"HDF\">r.h5:/particles/rigid/position/value</DataItem>");
  CU_EXPECT_IN(x, "<Attribute Name=\"orientation\" AttributeType=\"Matrix\" Center=\"Node\">"
                  "<DataItem ItemType=\"HyperSlab\" Dimensions=\"3 4\" Type=\"HyperSlab\">"
                  "<DataItem Dimensions=\"3 3\" Format=\"XML\">4 0 0 1 1 1 1 3 4</DataItem>"
                  "<DataItem Dimensions=\"5 3 4\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"HDF\">r.h5:/particles/rigid/orientation/value</DataItem>");
  CU_EXPECT_IN(x, "<Attribute Name=\"shape\" AttributeType=\"Scalar\" Center=\"Node\">"
                  "<DataItem Dimensions=\"3\" NumberType=\"Int\" Precision=\"4\" "
                  "Format=\"HDF\">r.h5:/particles/rigid/shape</DataItem></Attribute>"
                  "<Attribute Name=\"size\" AttributeType=\"Vector\" Center=\"Node\">"
                  "<DataItem Dimensions=\"3 3\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"HDF\">r.h5:/particles/rigid/size</DataItem></Attribute>");
  ck_assert_int_eq(count(x, "Format=\"HDF\">r.h5:/particles/rigid/angular_velocity/value<"), 5);
  ck_assert_int_eq(count(x, "Format=\"HDF\">r.h5:/particles/rigid/velocity/value<"), 5);
  CU_EXPECT_IN(c, "<Grid Name=\"collider 0 box\" GridType=\"Uniform\"><Topology "
                  "TopologyType=\"Hexahedron\" NumberOfElements=\"1\"><DataItem "
                  "Dimensions=\"1 8\" NumberType=\"Int\" Precision=\"4\" Format=\"XML\">"
                  "0 1 2 3 4 5 6 7</DataItem></Topology><Geometry GeometryType=\"XYZ\">"
                  "<DataItem Dimensions=\"8 3\" NumberType=\"Float\" Precision=\"8\" "
                  "Format=\"XML\">\n-0.5 0 -0.5\n0.5 0 -0.5\n0.5 0.80000000000000004 -0.5\n"
                  "-0.5 0.80000000000000004 -0.5\n-0.5 0 0.5\n0.5 0 0.5\n"
                  "0.5 0.80000000000000004 0.5\n-0.5 0.80000000000000004 0.5\n</DataItem>");
  free(x);

  /* a bounds collider is named by its own kind, not as the box it is drawn as */
  char *stick = cu_repo_path("configs/stick_in_box.yaml");
  r = cu_vsim(d, "run", stick, "-o", "b.h5", "-q", "--frames", "2", "--set", "output.xdmf=true", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  x = slurp_in(d, "b.xmf");
  c = static_part(x);
  CU_EXPECT_IN(c, "<Grid Name=\"collider 0 bounds\" GridType=\"Uniform\"><Topology "
                  "TopologyType=\"Hexahedron\" NumberOfElements=\"1\">");
  ck_assert_int_eq(count(x, "<Grid Name=\"collider "), 1);
  free(x);
  free(stick);
  free(sphere);
  free(drape);
  free(dice);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* vsim run builds its sidecar from the file it still has open (no second
 * open): the same bytes as `vsim xdmf` reading the published file, for
 * scenes with every kind of grid: triangles, links, free particles, tearing
 * (Mixed cells and alive), velocity in float32, rigid bodies and their
 * surfaces, every collider kind, and a run in a subdirectory. */
START_TEST(run_sidecar_is_the_xdmf_commands) {
  char *d = tu_tmpdir();
  char *sub = cu_strf("%s/sub", d);
  ck_assert_int_eq(mkdir(sub, 0777), 0);
  free(sub);
  static const char *const cases[][4] = {
      {"cloth_sphere", "3", "output.every=1", "sub/a.h5"},
      {"torn_cloth", "3", "output.fields=[position,velocity]", "b.h5"},
      {"mesh_drape", "2", "output.every=1", "c.h5"},
      {"rigid_mesh", "2", "output.fields=[position,velocity]", "d.h5"},
      {"rigid_dice", "3", "output.precision=float32", "e.h5"},
      {"stick_in_box", "2", "output.every=2", "f.h5"},
      {"ragdoll", "2", "output.every=1", "g.h5"},
      {"ball_pile", "2", "output.every=1", "sub/h.h5"},
  };
  /* what the cases cover between them */
  static const char *const wanted[] = {
      "\"collider 0 sphere\"", "plane\"", "mesh\"", "box\"", "Name=\"alive\"",
      "Name=\"rigid_surface\"", "Name=\"triangles\"", "Name=\"particles\"",
      "Precision=\"4\" Format=\"HDF\">e.h5:/particles/rigid/position/value"};
  int seen[sizeof wanted / sizeof wanted[0]] = {0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *scene_path = cu_strf("configs/%s.yaml", cases[i][0]);
    char *yaml = cu_repo_path(scene_path);
    cu_proc r = cu_vsim(d, "run", yaml, "-o", cases[i][3], "-q", "--frames", cases[i][1], "--set",
                        "output.xdmf=true", "--set",
                        cases[i][2], NULL);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
    char *xmf = cu_strf("%.*s.xmf", (int)strlen(cases[i][3]) - 3, cases[i][3]);
    char *again = cu_strf("%.*s.again.xmf", (int)strlen(cases[i][3]) - 3, cases[i][3]);
    char *run_text = slurp_in(d, xmf);
    r = cu_vsim(d, "xdmf", cases[i][3], "-o", again, NULL);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
    char *cmd_text = slurp_in(d, again);
    ck_assert_msg(strcmp(run_text, cmd_text) == 0, "%s: the run's sidecar differs from vsim xdmf's",
                  cases[i][0]);
    ck_assert(strstr(run_text, "<Time Value=") != NULL);
    for (size_t k = 0; k < sizeof seen / sizeof seen[0]; k++)
      if (strstr(run_text, wanted[k])) seen[k] = 1;
    free(run_text);
    free(cmd_text);
    free(xmf);
    free(again);
    free(yaml);
    free(scene_path);
  }
  for (size_t k = 0; k < sizeof seen / sizeof seen[0]; k++)
    ck_assert_msg(seen[k], "no case covers %s", wanted[k]);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Replace the dataset at path of the file with a [1, 4096] one of type t. */
static void plant_wide(const char *file, const char *path, hid_t t) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  ck_assert_int_ge(H5Ldelete(f, path, H5P_DEFAULT), 0);
  hsize_t dims[2] = {1, 4096};
  hid_t sp = H5Screate_simple(2, dims, NULL);
  hid_t d = H5Dcreate2(f, path, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  static double zeros[4096];
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros), 0);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
}

/* Datasets the sidecar reads, of rank 2 with a first axis that passes and
 * a second that does not ([1, 4096]): the reader sized its buffer from the
 * first axis and read the whole dataset into it, 16 KiB past its end.
 * Every axis is checked now: the connectivity is an error naming the
 * dataset and the shape expected, from `vsim xdmf` and from the sidecar
 * `run --resume` writes; a mesh collider's vertices leave that collider
 * out. */
START_TEST(wide_datasets_are_refused_by_their_shape) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/s.yaml", d);
  cu_write(p, scene);
  free(p);
  p = cu_strf("%s/tri.obj", d);
  cu_write(p, "v -5 -1 -5\nv 5 -1 -5\nv 0 -1 5\nf 1 2 3\n");
  free(p);
  static const struct {
    const char *path, *want;
    int wide_double;
  } cases[] = {
      {"/connectivity/triangles", "/connectivity/triangles is [1, 4096], expected [n, 3]", 0},
      {"/connectivity/distance", "/connectivity/distance is [1, 4096], expected [n, 2]", 0},
      {"/solver/constraints", "/solver/constraints is [1, 4096], expected [n, 3]", 0},
      {"/world/colliders/0/vertices", NULL, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cu_proc r = cu_vsim(d, "run", "s.yaml", "-o", "w.h5", "-q", "-f", "--frames", "3", "--set",
                        "world.colliders=[{mesh: {file: tri.obj}}]", NULL);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
    char *h5 = cu_strf("%s/w.h5", d);
    plant_wide(h5, cases[i].path, cases[i].wide_double ? H5T_IEEE_F64LE : H5T_STD_I32LE);
    free(h5);
    r = cu_vsim(d, "xdmf", "w.h5", "-o", "v.xmf", NULL);
    if (cases[i].want) {
      CU_EXPECT_CODE(r, 2);
      CU_EXPECT_IN(r.err, "w.h5: cannot read its connectivity: ");
      CU_EXPECT_IN(r.err, cases[i].want);
      cu_free(&r);
      /* the sidecar of a resumed run is read the same way: the run is
       * recorded, its sidecar refused */
      r = cu_vsim(d, "run", "--resume", "w.h5", "--frames", "5", "-q", NULL);
      CU_EXPECT_CODE(r, 1);
      CU_EXPECT_IN(r.err, cases[i].want);
    } else {
      CU_EXPECT_CODE(r, 0);
      char *x = slurp_in(d, "v.xmf");
      ck_assert_ptr_null(strstr(x, "collider 0 mesh"));
      free(x);
    }
    cu_free(&r);
  }
  /* the angle limits' pairs, the same way */
  char *arm = cu_repo_path("configs/arm_limits.yaml");
  cu_proc r = cu_vsim(d, "run", arm, "-o", "a.h5", "-q", "--frames", "2", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  free(arm);
  char *h5 = cu_strf("%s/a.h5", d);
  plant_wide(h5, "/connectivity/angle", H5T_STD_I32LE);
  free(h5);
  r = cu_vsim(d, "xdmf", "a.h5", "-o", "a.xmf", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "/connectivity/angle is [1, 4096], expected [n, 2]");
  cu_free(&r);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *xdmf_cli_suite(void) {
  Suite *s = suite_create("xdmf_cli");
  TCase *tc = tcase_create("xdmf_cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, run_writes_the_sidecar);
  tcase_add_test(tc, xdmf_command);
  tcase_add_test(tc, colliders_and_rigid_bodies);
  tcase_add_test(tc, run_sidecar_is_the_xdmf_commands);
  tcase_add_test(tc, wide_datasets_are_refused_by_their_shape);
  tcase_add_test(tc, sidecar_never_follows_a_planted_link);
  tcase_add_test(tc, sidecar_never_replaces_an_input);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(xdmf_cli_suite());
}
