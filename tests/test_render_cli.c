/* SPDX-License-Identifier: MIT */
/* test_render_cli.c: `vsim render` and `vsim plot` end to end: pictures
 * checked by their pixels (read back with cairo), numbered PNGs, a GIF
 * through ffmpeg (and the message without it), plots of two files, and every
 * bad input: exit 2, a message naming the file, and nothing left behind.
 * The outputs go through the safe output files (docs/cli.md, Output files):
 * a FIFO, a device, a planted link and the files drawn are never written. */
#include <cairo.h>
#include <hdf5.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>

#include "runutil.h"
#include "vsim/alloc.h"
#include "vsim/frames.h"
#include "vsim/render.h"

/* ---- pictures ------------------------------------------------------------ */

typedef struct img {
  cairo_surface_t *s;
  int w, h, stride;
  const unsigned char *d;
} img;

static img load_png(const char *path) {
  img m;
  m.s = cairo_image_surface_create_from_png(path);
  ck_assert_msg(cairo_surface_status(m.s) == CAIRO_STATUS_SUCCESS, "%s: %s", path,
                cairo_status_to_string(cairo_surface_status(m.s)));
  m.w = cairo_image_surface_get_width(m.s);
  m.h = cairo_image_surface_get_height(m.s);
  m.stride = cairo_image_surface_get_stride(m.s);
  m.d = cairo_image_surface_get_data(m.s);
  return m;
}

static void px(const img *m, int x, int y, int rgb[3]) {
  uint32_t v = *(const uint32_t *)(const void *)(m->d + (size_t)y * m->stride + 4 * (size_t)x);
  rgb[0] = (int)(v >> 16 & 255), rgb[1] = (int)(v >> 8 & 255), rgb[2] = (int)(v & 255);
}

static int is_white(const img *m, int x, int y) {
  int c[3];
  px(m, x, y, c);
  return c[0] > 250 && c[1] > 250 && c[2] > 250;
}

/* Pixels below the labels (y >= y0) that are mid grey: the golden overlay. */
static int count_grey(const img *m, int y0) {
  int n = 0, c[3];
  for (int y = y0; y < m->h; y++)
    for (int x = 0; x < m->w; x++) {
      px(m, x, y, c);
      if (abs(c[0] - c[1]) < 6 && abs(c[1] - c[2]) < 6 && c[0] > 60 && c[0] < 235) n++;
    }
  return n;
}

/* Pixels near colour (r, g, b) (0..255, within tol each). */
static int count_near(const img *m, int r, int g, int b, int tol) {
  int n = 0, c[3];
  for (int y = 0; y < m->h; y++)
    for (int x = 0; x < m->w; x++) {
      px(m, x, y, c);
      if (abs(c[0] - r) <= tol && abs(c[1] - g) <= tol && abs(c[2] - b) <= tol) n++;
    }
  return n;
}

/* ---- scenes --------------------------------------------------------------- */

/* One ball of radius 0.5 at the origin, nothing moving. */
static const char *BALL =
    "vsim: 1\n"
    "time: {dt: 0.01, frames: 4}\n"
    "world: {gravity: [0, 0, 0]}\n"
    "bodies:\n"
    "  - particles: {positions: [[0, 0, 0]], mass: 1, radius: 0.5}\n";

/* A cloth pinned along one edge, no colliders: everything drawn is the cloth. */
static const char *CURTAIN =
    "vsim: 1\n"
    "time: {dt: 0.01, frames: 30}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [-1, 2, 0], size: [2, 2], resolution: [10, 10],\n"
    "            plane: xy, mass: 0.5, pin: top-edge}\n";

/* The curtain (x -1 to 1, y 2 to 4), and a tetrahedron thrown down from
 * just below it that ends up 9 m lower: the camera frames the curtain, not
 * the whole fall. */
static const char *CURTAIN_AND_STONE =
    "vsim: 1\n"
    "time: {dt: 0.01, frames: 30}\n"
    "bodies:\n"
    "  - cloth: {name: c, origin: [-1, 2, 0], size: [2, 2], resolution: [10, 10],\n"
    "            plane: xy, mass: 0.5, pin: top-edge}\n"
    "  - tetra: {name: stone, center: [0, 1.5, 0.5], edge: 0.1, velocity: [0, -30, 0]}\n";

static char *g_dir;

static void setup(void) { g_dir = tu_tmpdir(); }
static void teardown(void) {
  tu_rmtree(g_dir);
  free(g_dir);
}

static void run_scene(const char *yaml, const char *out, const char *set) {
  char *scene = cu_strf("%s/%s.yaml", g_dir, out);
  cu_write(scene, yaml);
  /* no .xmf sidecar: the listings below are of what render and plot write */
  cu_proc p = set ? cu_vsim(g_dir, "run", scene, "-o", out, "--quiet", "--set",
                            "output.xdmf=false", "--set", set, NULL)
                  : cu_vsim(g_dir, "run", scene, "-o", out, "--quiet", "--set",
                            "output.xdmf=false", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  unlink(scene);
  free(scene);
}

/* ---- render --------------------------------------------------------------- */

START_TEST(render_ball_where_the_camera_puts_it) {
  run_scene(BALL, "ball.h5", NULL);
  cu_proc p = cu_vsim(g_dir, "render", "ball.h5", "-o", "ball.png", "--view", "front", "--size",
                      "300x200", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(g_dir, "ball.h5 ball.png"); /* no temporary left */
  char *path = cu_strf("%s/ball.png", g_dir);
  img m = load_png(path);
  ck_assert_int_eq(m.w, 300);
  ck_assert_int_eq(m.h, 200);
  /* the bounds [-0.5, 0.5]^3 fill the height less 5% margins: a disc of
   * radius 90 px at the centre (150, 100), in the first body colour (blue) */
  int c[3];
  px(&m, 150, 100, c);
  ck_assert_msg(c[2] > c[0] + 40, "centre pixel %d,%d,%d is not the ball's blue", c[0], c[1], c[2]);
  ck_assert(!is_white(&m, 150 + 70, 100));
  ck_assert(!is_white(&m, 150, 100 + 70));
  ck_assert(is_white(&m, 150 + 110, 100));
  ck_assert(is_white(&m, 150 + 95, 100 + 80));
  ck_assert(is_white(&m, 290, 190));
  cairo_surface_destroy(m.s);
  free(path);
}
END_TEST

START_TEST(render_compare_draws_the_golden_run_in_grey) {
  run_scene(CURTAIN, "a.h5", NULL);
  run_scene(CURTAIN, "gold.h5", "world.gravity=[6,-5,0]");
  cu_proc p = cu_vsim(g_dir, "render", "a.h5", "-o", "plain.png", "--view", "front", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(g_dir, "render", "a.h5", "--compare", "gold.h5", "-o", "cmp.png", "--view", "front",
              NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *a = cu_strf("%s/plain.png", g_dir), *b = cu_strf("%s/cmp.png", g_dir);
  img ma = load_png(a), mb = load_png(b);
  ck_assert_int_eq(mb.w, 800);
  ck_assert_int_eq(mb.h, 600);
  int ga = count_grey(&ma, 80), gb = count_grey(&mb, 80);
  ck_assert_msg(ga < 200, "%d grey pixels without --compare", ga);
  ck_assert_msg(gb > 3000, "only %d grey pixels with --compare (without: %d)", gb, ga);
  cairo_surface_destroy(ma.s);
  cairo_surface_destroy(mb.s);
  free(a);
  free(b);
  /* the same file as its own golden: hidden exactly under it */
  p = cu_vsim(g_dir, "render", "a.h5", "--compare", "a.h5", "-o", "self.png", "--view", "front",
              NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}
END_TEST

START_TEST(render_frame_range_writes_numbered_pngs) {
  run_scene(CURTAIN, "a.h5", NULL);
  cu_proc p = cu_vsim(g_dir, "render", "a.h5", "-o", "frames/", "--frames", "2:8:3", "--size",
                      "64x48", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *d = cu_strf("%s/frames", g_dir);
  CU_EXPECT_LISTING(d, "frame-00002.png frame-00005.png frame-00008.png");
  char *f = cu_strf("%s/frame-00005.png", d);
  img m = load_png(f);
  ck_assert_int_eq(m.w, 64);
  ck_assert_int_eq(m.h, 48);
  cairo_surface_destroy(m.s);
  /* A: to the last frame (30 frames, every one recorded: 0..30) */
  p = cu_vsim(g_dir, "render", "a.h5", "-o", "frames", "--frames", "29:", "--size", "64x48", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d,
                    "frame-00002.png frame-00005.png frame-00008.png frame-00029.png "
                    "frame-00030.png");
  free(f);
  free(d);
}
END_TEST

static int have_ffmpeg(void) {
  return system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

START_TEST(render_gif_through_ffmpeg) {
  if (!have_ffmpeg()) TU_SKIP("no ffmpeg on PATH");
  run_scene(CURTAIN, "a.h5", NULL);
  cu_proc p = cu_vsim(g_dir, "render", "a.h5", "-o", "a.gif", "--frames", "0:30:10", "--size",
                      "120x90", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(g_dir, "a.gif a.h5");
  char *path = cu_strf("%s/a.gif", g_dir);
  char *gif = cu_slurp(path);
  ck_assert_ptr_nonnull(gif);
  ck_assert_int_eq(strncmp(gif, "GIF89a", 6), 0);
  /* the logical screen size, little endian */
  ck_assert_int_eq((unsigned char)gif[6] | (unsigned char)gif[7] << 8, 120);
  ck_assert_int_eq((unsigned char)gif[8] | (unsigned char)gif[9] << 8, 90);
  free(gif);
  free(path);
}
END_TEST

static void empty_path(void *arg) { setenv("PATH", "", 1); }

START_TEST(render_movie_without_ffmpeg_says_so) {
  run_scene(CURTAIN, "a.h5", NULL);
  const char *args[] = {"render", "a.h5", "-o", "a.mp4", NULL};
  cu_child c = cu_vsim_spawn_setup(g_dir, NULL, args, empty_path, NULL);
  cu_proc p = cu_wait(&c);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "a.mp4: ffmpeg not found on PATH");
  cu_free(&p);
  CU_EXPECT_LISTING(g_dir, "a.h5");
}
END_TEST

/* How many pixels of row y are not white. */
static int drawn_in_row(const img *m, int y) {
  int n = 0;
  for (int x = 0; x < m->w; x++) n += !is_white(m, x, y);
  return n;
}

START_TEST(render_frames_the_bodies_not_a_far_stray) {
  run_scene(CURTAIN_AND_STONE, "s.h5", NULL);
  cu_proc p = cu_vsim(g_dir, "render", "s.h5", "-o", "s.png", "--view", "front", "--size",
                      "400x300", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *path = cu_strf("%s/s.png", g_dir);
  img m = load_png(path);
  /* the curtain, 2 m square, and the stone's first frames, before it is a
   * far stray: about 190 px across the middle row of 300 (45 px when the
   * camera followed the stone 9 m down) */
  int across = drawn_in_row(&m, 150);
  ck_assert_msg(across > 160 && across < 280, "the curtain is %d px wide", across);
  cairo_surface_destroy(m.s);
  /* --zoom 0.5: half as wide */
  p = cu_vsim(g_dir, "render", "s.h5", "-o", "s.png", "--view", "front", "--size", "400x300",
              "--zoom", "0.5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  m = load_png(path);
  int half = drawn_in_row(&m, 150);
  ck_assert_msg(abs(2 * half - across) < 6, "zoom 0.5: %d px, not half of %d", half, across);
  cairo_surface_destroy(m.s);
  /* --look-at the curtain's lower left corner at frame 0 (it spans x -1 to
   * 1, y 2 to 4): the curtain is up and right of the centre, nothing is
   * down or left */
  p = cu_vsim(g_dir, "render", "s.h5", "-o", "s.png", "--view", "front", "--size", "400x300",
              "--look-at", "-1,2,0", "--frame", "0", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  m = load_png(path);
  ck_assert(!is_white(&m, 200 + 20, 150 - 20));
  ck_assert(is_white(&m, 200 - 20, 150 + 20));
  ck_assert(is_white(&m, 200 - 20, 150 - 20));
  ck_assert(is_white(&m, 200 + 20, 150 + 20));
  cairo_surface_destroy(m.s);
  /* --camera on the +z axis: the front view, pixel for pixel */
  p = cu_vsim(g_dir, "render", "s.h5", "-o", "cam.png", "--camera", "0,1,25", "--size",
              "200x150", "--look-at", "0,1,0", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(g_dir, "render", "s.h5", "-o", "front.png", "--view", "front", "--size", "200x150",
              "--look-at", "0,1,0", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *a = cu_strf("%s/cam.png", g_dir), *b = cu_strf("%s/front.png", g_dir);
  img ma = load_png(a), mb = load_png(b);
  int diff = 0;
  for (int y = 0; y < ma.h; y++)
    for (int x = 0; x < ma.w; x++) {
      int ca[3], cb[3];
      px(&ma, x, y, ca);
      px(&mb, x, y, cb);
      diff += ca[0] != cb[0] || ca[1] != cb[1] || ca[2] != cb[2];
    }
  ck_assert_int_eq(diff, 0);
  cairo_surface_destroy(ma.s);
  cairo_surface_destroy(mb.s);
  /* --fit frame at the last frame: the curtain alone, the height less the
   * margins (270 px) */
  p = cu_vsim(g_dir, "render", "s.h5", "-o", "s.png", "--view", "front", "--size", "400x300",
              "--fit", "frame", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  m = load_png(path);
  int alone = drawn_in_row(&m, 150);
  ck_assert_msg(alone > 260 && alone > across + 40, "--fit frame: the curtain %d px wide, %d with --fit run", alone, across);
  cairo_surface_destroy(m.s);
  free(a);
  free(b);
  free(path);
}
END_TEST

/* A file of another program: HDF5, but nothing vsim writes. */
static void write_foreign(const char *path) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hsize_t n = 3;
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double v[3] = {1, 2, 3};
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
}

static void expect_fail(const char *what, const char *want_msg, const char *listing,
                        const char *const *args) {
  cu_proc p = cu_vsim_argv(g_dir, NULL, args);
  ck_assert_msg(p.code == 2, "%s: exit %d, expected 2\n%s", what, p.code, p.err);
  CU_EXPECT_IN(p.err, want_msg);
  cu_free(&p);
  CU_EXPECT_LISTING(g_dir, listing);
}

/* The first bytes of file name in g_dir begin with want. */
static void expect_starts(const char *name, const char *want) {
  char *path = cu_strf("%s/%s", g_dir, name);
  char *text = cu_slurp(path);
  ck_assert_msg(text != NULL, "%s: not written", name);
  ck_assert_msg(strncmp(text, want, strlen(want)) == 0, "%s begins with '%.12s', not '%s'", name,
                text, want);
  free(text);
  free(path);
}

/* -o x.svg and x.pdf write SVG and PDF (they wrote a PNG under that name);
 * any other extension is refused before anything is read or written. */
START_TEST(render_and_plot_write_svg_and_pdf) {
  run_scene(CURTAIN, "a.h5", NULL);
  const char *outs[4][2] = {{"r.svg", "render"}, {"r.pdf", "render"}, {"p.svg", "plot"},
                            {"p.pdf", "plot"}};
  for (int i = 0; i < 4; i++) {
    cu_proc p = cu_vsim(g_dir, outs[i][1], "a.h5", "-o", outs[i][0], "--size", "320x240", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
  }
  CU_EXPECT_LISTING(g_dir, "a.h5 p.pdf p.svg r.pdf r.svg");
  expect_starts("r.svg", "<?xml");
  expect_starts("p.svg", "<?xml");
  expect_starts("r.pdf", "%PDF-");
  expect_starts("p.pdf", "%PDF-");
  char *path = cu_strf("%s/r.svg", g_dir);
  char *svg = cu_slurp(path);
  ck_assert_ptr_nonnull(strstr(svg, "<svg"));
  ck_assert_ptr_nonnull(strstr(svg, "width=\"320pt\" height=\"240pt\""));
  ck_assert_ptr_nonnull(strstr(svg, "<image")); /* the frame */
  free(svg);
  free(path);
  path = cu_strf("%s/p.svg", g_dir);
  svg = cu_slurp(path);
  ck_assert_ptr_null(strstr(svg, "<image")); /* a plot is all vectors */
  ck_assert_ptr_nonnull(strstr(svg, "<path"));
  free(svg);
  free(path);
  const char *ls = "a.h5 p.pdf p.svg r.pdf r.svg";
  {
    const char *a[] = {"render", "a.h5", "-o", "x.jpg", NULL};
    expect_fail("jpg", "-o x.jpg: .jpg is not a format render writes: give OUT.png, OUT.svg, "
                       "OUT.pdf, DIR/ (numbered PNGs), OUT.mp4 or OUT.gif", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x", NULL};
    expect_fail("no extension", "-o x: no extension to tell the format", ls, a);
  }
  {
    const char *a[] = {"plot", "a.h5", "-o", "x.jpeg", NULL};
    expect_fail("plot jpeg", "-o x.jpeg: .jpeg is not a format plot writes: give OUT.png, "
                             "OUT.svg or OUT.pdf", ls, a);
  }
  {
    const char *a[] = {"render", "missing.h5", "-o", "x.tiff", NULL};
    expect_fail("format before input", ".tiff is not a format render writes", ls, a);
  }
}
END_TEST

START_TEST(render_bad_inputs_exit_2_and_leave_nothing) {
  run_scene(CURTAIN, "a.h5", NULL);
  char *foreign = cu_strf("%s/other.h5", g_dir);
  write_foreign(foreign);
  free(foreign);
  char *text = cu_strf("%s/text.h5", g_dir);
  cu_write(text, "not hdf5\n");
  free(text);
  const char *ls = "a.h5 other.h5 text.h5";
  {
    const char *a[] = {"render", "missing.h5", "-o", "x.png", NULL};
    expect_fail("missing", "missing.h5: cannot open: No such file or directory", ls, a);
  }
  {
    const char *a[] = {"render", "other.h5", "-o", "x.png", NULL};
    expect_fail("foreign", "other.h5: not a vsim result file", ls, a);
  }
  {
    const char *a[] = {"render", "text.h5", "-o", "x.png", NULL};
    expect_fail("text", "text.h5: not an HDF5 file (not a vsim result)", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--frame", "31", NULL};
    expect_fail("frame", "a.h5: frame 31 out of range: the file has frames 0 to 30", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--frame", "-32", NULL};
    expect_fail("frame", "frame -32 out of range: the file has frames 0 to 30", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "out/", "--frames", "20:40", NULL};
    expect_fail("frames", "a.h5: frame 40 out of range: the file has frames 0 to 30", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "no/such/dir/x.png", NULL};
    expect_fail("unwritable", "no/such/dir/x.png: directory 'no/such/dir' does not exist", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "a.h5/x.png", NULL};
    expect_fail("under a file", "a.h5/x.png: cannot use as output: Not a directory", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--compare", "other.h5", NULL};
    expect_fail("foreign golden", "other.h5: not a vsim result file", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--size", "10x0", NULL};
    expect_fail("size", "--size: expected WIDTHxHEIGHT", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--view", "back", NULL};
    expect_fail("view", "--view: expected iso, front, side or top, got 'back'", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--frames", "1:3", NULL};
    expect_fail("frames to one png", "--frames writes several pictures", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--camera", "1,2", NULL};
    expect_fail("camera", "--camera: expected X,Y,Z (three numbers), got '1,2'", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--look-at", "1,2,3,4", NULL};
    expect_fail("look-at", "--look-at: expected X,Y,Z", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--view", "top", "--camera", "1,2,3", NULL};
    expect_fail("view and camera", "--view and --camera: one or the other", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--zoom", "0", NULL};
    expect_fail("zoom", "--zoom: expected a number > 0, got '0'", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--fit", "all", NULL};
    expect_fail("fit", "--fit: expected run or frame, got 'all'", ls, a);
  }
  {
    const char *a[] = {"render", "a.h5", "-o", "x.png", "--camera", "0,1,0", "--look-at", "0,1,0", NULL};
    expect_fail("camera at the look-at point", "the camera at 0,1,0 is the point it looks at", ls, a);
  }
}
END_TEST

/* ---- plot ----------------------------------------------------------------- */

START_TEST(plot_two_files_on_a_log_scale) {
  run_scene(CURTAIN, "a.h5", NULL);
  run_scene(CURTAIN, "b.h5", "solver.iterations=2");
  cu_proc p = cu_vsim(g_dir, "plot", "a.h5", "b.h5", "-o", "p.png", "--series",
                      "constraint_error_max", "--log", "--size", "640x400", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(g_dir, "a.h5 b.h5 p.png");
  char *path = cu_strf("%s/p.png", g_dir);
  img m = load_png(path);
  ck_assert_int_eq(m.w, 640);
  ck_assert_int_eq(m.h, 400);
  /* both files' lines: palette blue (31, 119, 180) and orange (255, 127, 14) */
  int blue = count_near(&m, 31, 119, 180, 12), orange = count_near(&m, 255, 127, 14, 12);
  ck_assert_msg(blue > 100 && orange > 100, "blue %d, orange %d pixels", blue, orange);
  cairo_surface_destroy(m.s);
  free(path);
  /* the defaults, on their own */
  p = cu_vsim(g_dir, "plot", "a.h5", "-o", "d.png", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}
END_TEST

/* output.fields without position: plot draws the observables; render says
 * there is nothing to draw (exit 2, no picture), also for --frame */
START_TEST(plot_a_file_without_positions) {
  run_scene(CURTAIN, "n.h5", "output.fields=[constraint_error]");
  cu_proc p = cu_vsim(g_dir, "plot", "n.h5", "-o", "p.png", "--series", "constraint_error_max",
                      "--size", "640x400", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *path = cu_strf("%s/p.png", g_dir);
  img m = load_png(path);
  ck_assert_int_eq(m.w, 640);
  int blue = count_near(&m, 31, 119, 180, 12);
  ck_assert_msg(blue > 100, "blue %d pixels", blue);
  cairo_surface_destroy(m.s);
  unlink(path);
  free(path);
  const char *ls = "n.h5";
  {
    const char *a[] = {"render", "n.h5", "-o", "r.png", NULL};
    expect_fail("render", "n.h5: no positions recorded", ls, a);
  }
  {
    const char *a[] = {"render", "n.h5", "-o", "r.png", "--frame", "0", NULL};
    expect_fail("render frame", "n.h5: no positions recorded", ls, a);
  }
}
END_TEST

/* Black runs down column x below row y0 (the panels' top and bottom edges). */
static int black_runs(const img *m, int x, int y0) {
  int runs = 0, in = 0, c[3];
  for (int y = y0; y < m->h; y++) {
    px(m, x, y, c);
    int black = c[0] + c[1] + c[2] < 60;
    runs += black && !in;
    in = black;
  }
  return runs;
}

/* The points of a sweep, overlaid: named by the parameter that differs
 * (not by file name), colour per point and dash per series, a panel per
 * unit, the all-zero penetration listed as such, the legend outside. */
START_TEST(plot_sweep_points_by_their_parameters) {
  char *scene = cu_strf("%s/curtain.yaml", g_dir), *sweep = cu_strf("%s/s.yaml", g_dir);
  cu_write(scene, CURTAIN);
  cu_write(sweep, "scene: curtain.yaml\nframes: 10\nparameters:\n  solver.iterations: [2, 6]\n");
  cu_proc p = cu_vsim(g_dir, "sweep", "s.yaml", "-o", "out", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  vs_frames *f[2] = {NULL, NULL};
  vs_error e;
  vs_error_clear(&e);
  for (int i = 0; i < 2; i++) {
    char *h5 = cu_strf("%s/out/point-000%d.h5", g_dir, i);
    ck_assert_msg(vs_frames_open(h5, &f[i], &e) == VS_OK, "%s", e.message);
    free(h5);
  }
  vs_plot_request q = {.files = f, .n_files = 2, .width = 640, .height = 400};
  char *json = NULL;
  ck_assert_msg(vs_plot_describe(&q, &json, &e) == VS_OK, "%s", e.message);
  CU_EXPECT_IN(json, "\"legend\": [\"iterations=2\", \"iterations=6\", \"constraint_error_max\", "
                     "\"penetration_max (all 0)\", \"energy_kinetic\"]");
  CU_EXPECT_IN(json, "{\"unit\": \"m\", \"label\": \"length [m]\"");
  CU_EXPECT_IN(json, "{\"unit\": \"J\", \"label\": \"energy_kinetic [J]\"");
  CU_EXPECT_IN(json, "\"iterations=6: energy_kinetic\"");
  int panels = 0;
  for (const char *c = json; (c = strstr(c, "\"unit\"")) != NULL; c++) panels++;
  ck_assert_int_eq(panels, 2);
  vs_free_buffer(json);
  /* one series: the legend is the points */
  const char *one[] = {"energy_kinetic"};
  q.series = one, q.n_series = 1;
  ck_assert(vs_plot_describe(&q, &json, &e) == VS_OK);
  CU_EXPECT_IN(json, "\"legend\": [\"iterations=2\", \"iterations=6\"]");
  vs_free_buffer(json);
  vs_frames_close(f[0]);
  vs_frames_close(f[1]);
  /* the picture: two panels (four edges down a column), the legend's first
   * sample line (point 0's blue) right of them */
  p = cu_vsim(g_dir, "plot", "out/point-0000.h5", "out/point-0001.h5", "-o", "p.png", "--size",
              "640x400", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *path = cu_strf("%s/p.png", g_dir);
  img m = load_png(path);
  ck_assert_int_eq(black_runs(&m, 200, 0), 4);
  int blue_right = 0, c[3];
  for (int y = 0; y < 120; y++)
    for (int x = 420; x < 640; x++) {
      px(&m, x, y, c);
      blue_right += abs(c[0] - 31) < 12 && abs(c[1] - 119) < 12 && abs(c[2] - 180) < 12;
    }
  ck_assert_msg(blue_right > 20, "no legend sample right of the panels (%d px)", blue_right);
  cairo_surface_destroy(m.s);
  free(path);
  free(scene);
  free(sweep);
}
END_TEST

START_TEST(plot_bad_inputs_exit_2_and_leave_nothing) {
  run_scene(CURTAIN, "a.h5", NULL);
  char *foreign = cu_strf("%s/other.h5", g_dir);
  write_foreign(foreign);
  free(foreign);
  const char *ls = "a.h5 other.h5";
  {
    const char *a[] = {"plot", "a.h5", "-o", "p.png", "--series", "energy_kinetic,nope", NULL};
    expect_fail("series", "a.h5: no series 'nope' (it has: constraint_error_max, ", ls, a);
  }
  {
    const char *a[] = {"plot", "a.h5", "missing.h5", "-o", "p.png", NULL};
    expect_fail("missing", "missing.h5: cannot open", ls, a);
  }
  {
    const char *a[] = {"plot", "other.h5", "-o", "p.png", NULL};
    expect_fail("foreign", "other.h5: not a vsim result file", ls, a);
  }
  {
    const char *a[] = {"plot", "a.h5", "-o", "nodir/p.png", NULL};
    expect_fail("unwritable", "nodir/p.png: directory 'nodir' does not exist", ls, a);
  }
  {
    const char *a[] = {"plot", "a.h5", "-o", "p.png", "--log", "--linear", NULL};
    expect_fail("scale", "--log and --linear", ls, a);
  }
}
END_TEST

/* A mesh collider whose triangle names a vertex the file does not have:
 * render and plot refuse it, naming the vertex.  The message was made
 * from the triangle array after it was freed (a use after free under the
 * sanitizers, a wrong number in the release build). */
START_TEST(render_mesh_collider_naming_a_missing_vertex) {
  char *obj = cu_strf("%s/tri.obj", g_dir);
  cu_write(obj, "v -1 -1 0\nv 1 -1 0\nv 0 1 0\nf 1 2 3\n");
  free(obj);
  run_scene("vsim: 1\ntime: {dt: 0.01, frames: 2}\nworld: {gravity: [0, 0, 0], colliders: "
            "[{mesh: {file: tri.obj}}]}\nbodies:\n  - particles: {positions: [[0, 0, 1]], "
            "mass: 1, radius: 0.1}\n",
            "m.h5", NULL);
  char *h5 = cu_strf("%s/m.h5", g_dir);
  hid_t f = H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t d = H5Dopen2(f, "/world/colliders/0/triangles", H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  const int32_t tri[3] = {70000, 1, 2};
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, tri), 0);
  H5Dclose(d);
  H5Fclose(f);
  free(h5);
  const char *ls = "m.h5 tri.obj";
  const char *msg = "m.h5: /world/colliders/0/triangles: triangle 0 names vertex 70000 of 3";
  {
    const char *a[] = {"render", "m.h5", "-o", "r.png", NULL};
    expect_fail("render", msg, ls, a);
  }
  {
    const char *a[] = {"plot", "m.h5", "-o", "p.png", NULL};
    expect_fail("plot", msg, ls, a);
  }
}
END_TEST

/* dataset path := n zeros, deflated (about 1000:1), in chunks of 2^20. */
static void plant_zeros(hid_t f, const char *path, hsize_t n) {
  if (H5Lexists(f, path, H5P_DEFAULT) > 0) ck_assert_int_ge(H5Ldelete(f, path, H5P_DEFAULT), 0);
  const hsize_t chunk = (hsize_t)1 << 20;
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &chunk);
  H5Pset_deflate(dcpl, 9);
  hid_t d = H5Dcreate2(f, path, H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  double *zeros = calloc(chunk, sizeof *zeros);
  ck_assert_ptr_nonnull(zeros);
  hid_t ms = H5Screate_simple(1, &chunk, NULL);
  for (hsize_t a = 0; a < n; a += chunk) {
    hid_t fs = H5Scopy(sp);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &a, NULL, &chunk, NULL);
    ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, zeros), 0);
    H5Sclose(fs);
  }
  free(zeros);
  H5Sclose(ms);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(sp);
}

/* A series of 2^25 deflated zeros (256 MiB each for its times and values,
 * under a megabyte of file): plot read both whole, half a gigabyte for one
 * line.  A series that declares more than 16 times its file is refused,
 * saying how compressed it is; nothing near its size is allocated. */
START_TEST(plot_refuses_a_compression_bomb) {
  run_scene(CURTAIN, "a.h5", NULL);
  char *h5 = cu_strf("%s/a.h5", g_dir);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  plant_zeros(f, "/observables/penetration_max/value", (hsize_t)1 << 25);
  plant_zeros(f, "/observables/penetration_max/time", (hsize_t)1 << 25);
  H5Fclose(f);
  struct stat st;
  ck_assert_int_eq(stat(h5, &st), 0);
  ck_assert_int_lt(st.st_size, 4 << 20);
  free(h5);
  const char *a[] = {"plot", "a.h5", "-o", "p.png", "--series", "penetration_max", NULL};
  expect_fail("bomb", "a.h5: /observables/penetration_max/value declares 268435456 bytes stored in ",
              "a.h5", a);
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  ck_assert_msg(ru.ru_maxrss < 200 * 1024, "a child took %ld MB", ru.ru_maxrss / 1024);
}
END_TEST

/* vs_frames_series_read_max: a long series thinned to the smallest and the
 * largest value of each run of points, in time order, in slabs: memory by
 * the picture, every peak kept. */
START_TEST(series_thinned_keeps_every_run_s_extremes) {
  run_scene(CURTAIN, "a.h5", NULL); /* 31 points */
  char *h5 = cu_strf("%s/a.h5", g_dir);
  vs_frames *f = NULL;
  vs_error e;
  ck_assert_int_eq(vs_frames_open(h5, &f, &e), VS_OK);
  long i = vs_frames_series_find(f, "constraint_error_max");
  ck_assert_int_ge(i, 0);
  double *t = NULL, *v = NULL, *tt = NULL, *vv = NULL;
  size_t n = 0, m = 0;
  ck_assert_int_eq(vs_frames_series_read(f, (size_t)i, &t, &v, &n, &e), VS_OK);
  ck_assert_uint_eq(n, 31);
  ck_assert_int_eq(vs_frames_series_read_max(f, (size_t)i, 10, &tt, &vv, &m, &e), VS_OK);
  ck_assert_uint_le(m, 10);
  ck_assert_uint_ge(m, 5);
  for (size_t k = 1; k < m; k++) ck_assert(tt[k] > tt[k - 1]);
  /* each run [r n / 5, (r + 1) n / 5) gives its extremes */
  for (size_t r = 0, j = 0; r < 5; r++) {
    size_t a = r * n / 5, b = (r + 1) * n / 5, lo = a, hi = a;
    for (size_t k = a; k < b; k++) {
      if (v[k] < v[lo]) lo = k;
      if (v[k] > v[hi]) hi = k;
    }
    size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
    ck_assert(j < m && tt[j] == t[first] && vv[j] == v[first]);
    j++;
    if (second != first) {
      ck_assert(j < m && tt[j] == t[second] && vv[j] == v[second]);
      j++;
    }
  }
  /* 0: every point, as vs_frames_series_read */
  vs_free_buffer(tt);
  vs_free_buffer(vv);
  ck_assert_int_eq(vs_frames_series_read_max(f, (size_t)i, 0, &tt, &vv, &m, &e), VS_OK);
  ck_assert_uint_eq(m, n);
  ck_assert_int_eq(memcmp(vv, v, n * sizeof *v), 0);
  vs_free_buffer(tt);
  vs_free_buffer(vv);
  vs_free_buffer(t);
  vs_free_buffer(v);
  vs_frames_close(f);
  free(h5);
}
END_TEST

/* ---- the output rules (docs/cli.md, Output files) -------------------------- */

/* path holds exactly the n bytes of data */
static void expect_bytes(const char *path, const char *data, size_t n) {
  size_t m = 0;
  char *b = tu_read_file(path, &m);
  ck_assert_msg(b && m == n && memcmp(b, data, n) == 0, "%s changed (%zu bytes, was %zu)", path,
                m, n);
  free(b);
}

/* -o a FIFO or a device (render used to replace them with its picture: as
 * root, -o /dev/null destroyed /dev/null; a FIFO hung the open), or a file
 * the command reads (-o a.h5 on the input, the --compare file): exit 2,
 * each left as it was, nothing created. */
START_TEST(render_and_plot_refuse_special_files_and_their_inputs) {
  run_scene(CURTAIN, "a.h5", NULL);
  run_scene(CURTAIN, "g.h5", NULL);
  char *a_path = cu_strf("%s/a.h5", g_dir), *g_path = cu_strf("%s/g.h5", g_dir);
  size_t an = 0, gn = 0;
  char *a_bytes = tu_read_file(a_path, &an), *g_bytes = tu_read_file(g_path, &gn);
  char *fifo = cu_strf("%s/fifo.png", g_dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  /* as root a node of /dev/null made here, so that a vsim that replaced
   * devices could not replace the system's */
  char *dev = cu_strf("%s/null.png", g_dir);
  int have_dev = geteuid() == 0 && mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0;
  /* the inputs again under picture names (hard links: the same files) */
  char *al = cu_strf("%s/al.png", g_dir), *gl = cu_strf("%s/gl.png", g_dir);
  ck_assert_int_eq(link(a_path, al), 0);
  ck_assert_int_eq(link(g_path, gl), 0);
  const char *ls = have_dev ? "a.h5 al.png fifo.png g.h5 gl.png null.png"
                            : "a.h5 al.png fifo.png g.h5 gl.png";
  for (int plot = 0; plot < 2; plot++) {
    const char *cmd = plot ? "plot" : "render";
    {
      const char *a[] = {cmd, "a.h5", "-o", "fifo.png", NULL};
      expect_fail("fifo", "fifo.png: is a FIFO (named pipe), not a regular file: refused", ls, a);
    }
    if (have_dev) {
      const char *a[] = {cmd, "a.h5", "-o", "null.png", NULL};
      expect_fail("device", "null.png: is a character device, not a regular file: refused", ls,
                  a);
    }
    {
      const char *a[] = {cmd, "a.h5", "-o", "al.png", NULL};
      expect_fail("own input", "al.png: is 'a.h5', an input of this command: refused", ls, a);
    }
  }
  {
    const char *a[] = {"render", "a.h5", "--compare", "g.h5", "-o", "gl.png", NULL};
    expect_fail("golden", "gl.png: is 'g.h5', an input of this command: refused", ls, a);
  }
  {
    const char *a[] = {"plot", "a.h5", "g.h5", "-o", "gl.png", NULL};
    expect_fail("second input", "gl.png: is 'g.h5', an input of this command: refused", ls, a);
  }
  struct stat st;
  ck_assert_int_eq(lstat(fifo, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  if (have_dev) {
    ck_assert_int_eq(lstat(dev, &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
  }
  expect_bytes(a_path, a_bytes, an);
  expect_bytes(g_path, g_bytes, gn);
  free(a_bytes);
  free(g_bytes);
  free(a_path);
  free(g_path);
  free(fifo);
  free(dev);
  free(al);
  free(gl);
}
END_TEST

/* In the child, just before it becomes vsim (same pid): a symbolic link to
 * the victim planted at the temporary name render and plot used to open
 * with a plain fopen (".NAME.tmp-PID"), and a link at the output itself. */
static void plant_links(void *arg) {
  const char *name = arg;
  char tmp[256];
  snprintf(tmp, sizeof tmp, ".%s.tmp-%ld", name, (long)getpid());
  if (symlink("victim", tmp) != 0) _exit(126);
}

START_TEST(render_and_plot_never_write_through_planted_links) {
  run_scene(CURTAIN, "a.h5", NULL);
  char *victim = cu_strf("%s/victim", g_dir);
  cu_write(victim, "precious\n");
  for (int plot = 0; plot < 2; plot++) {
    const char *name = plot ? "p.png" : "r.png";
    const char *args[] = {plot ? "plot" : "render", "a.h5", "-o", name, NULL};
    cu_child c = cu_vsim_spawn_setup(g_dir, NULL, args, plant_links, (void *)name);
    cu_proc p = cu_wait(&c);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    expect_bytes(victim, "precious\n", 9);
    char *out = cu_strf("%s/%s", g_dir, name);
    struct stat st;
    ck_assert_int_eq(lstat(out, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "%s is not the picture", name);
    img m = load_png(out);
    cairo_surface_destroy(m.s);
    /* a link at the output itself: refused, never followed */
    ck_assert_int_eq(unlink(out), 0);
    ck_assert_int_eq(symlink("victim", out), 0);
    p = cu_vsim_argv(g_dir, NULL, args);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, "is a symbolic link: refused");
    cu_free(&p);
    expect_bytes(victim, "precious\n", 9);
    ck_assert_int_eq(unlink(out), 0);
    free(out);
  }
  /* the planted links stay where they were planted; nothing else is left */
  char *ls = cu_listing(g_dir);
  for (char *t = strstr(ls, ".tmp-"); t; t = strstr(t + 1, ".tmp-")) {
    const char *name = t - 1;
    while (name > ls && name[-1] != ' ') name--;
    char *path = cu_strf("%s/%.*s", g_dir, (int)strcspn(name, " "), name);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "%s left behind", path);
    free(path);
  }
  free(ls);
  free(victim);
}
END_TEST

START_TEST(help_texts) {
  cu_proc p = cu_vsim(g_dir, "render", "--help", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "Usage: vsim render OUT.h5 -o PATH");
  cu_free(&p);
  p = cu_vsim(g_dir, "plot", "--help", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "Usage: vsim plot OUT.h5... -o OUT.png");
  cu_free(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("render_cli");
  TCase *tc = tcase_create("render_cli");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, render_ball_where_the_camera_puts_it);
  tcase_add_test(tc, render_compare_draws_the_golden_run_in_grey);
  tcase_add_test(tc, render_frame_range_writes_numbered_pngs);
  tcase_add_test(tc, render_frames_the_bodies_not_a_far_stray);
  tcase_add_test(tc, render_gif_through_ffmpeg);
  tcase_add_test(tc, render_movie_without_ffmpeg_says_so);
  tcase_add_test(tc, render_bad_inputs_exit_2_and_leave_nothing);
  tcase_add_test(tc, plot_two_files_on_a_log_scale);
  tcase_add_test(tc, plot_a_file_without_positions);
  tcase_add_test(tc, plot_sweep_points_by_their_parameters);
  tcase_add_test(tc, plot_bad_inputs_exit_2_and_leave_nothing);
  tcase_add_test(tc, render_and_plot_write_svg_and_pdf);
  tcase_add_test(tc, render_mesh_collider_naming_a_missing_vertex);
  tcase_add_test(tc, plot_refuses_a_compression_bomb);
  tcase_add_test(tc, series_thinned_keeps_every_run_s_extremes);
  tcase_add_test(tc, render_and_plot_refuse_special_files_and_their_inputs);
  tcase_add_test(tc, render_and_plot_never_write_through_planted_links);
  tcase_add_test(tc, help_texts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int rc = tu_run(suite());
  cairo_debug_reset_static_data();
  return rc;
}
