/* SPDX-License-Identifier: MIT */
/* test_view.c: lib/view (render and plot) checked by the pixels of its PNGs. */
#include <cairo.h>
#include <dlfcn.h>
#include <math.h>
#include <sys/stat.h>

#include "testutil.h"
#include "view/view.h"

typedef struct img {
  cairo_surface_t *s;
  int w, h;
} img;

static img load(const char *path) {
  img m;
  m.s = cairo_image_surface_create_from_png(path);
  ck_assert_int_eq(cairo_surface_status(m.s), CAIRO_STATUS_SUCCESS);
  m.w = cairo_image_surface_get_width(m.s);
  m.h = cairo_image_surface_get_height(m.s);
  return m;
}

static void px(const img *m, int x, int y, int rgb[3]) {
  ck_assert(x >= 0 && y >= 0 && x < m->w && y < m->h);
  cairo_surface_flush(m->s);
  const unsigned char *d = cairo_image_surface_get_data(m->s);
  uint32_t v = *(const uint32_t *)(const void *)(d + (size_t)y * cairo_image_surface_get_stride(m->s) + 4 * x);
  rgb[0] = (v >> 16) & 255, rgb[1] = (v >> 8) & 255, rgb[2] = v & 255;
}

/* pixel (x, y) within tol of colour c (components in [0, 1]) */
static int near_colour(const img *m, int x, int y, const double c[3], int tol) {
  int p[3];
  px(m, x, y, p);
  for (int i = 0; i < 3; i++)
    if (abs(p[i] - (int)lround(c[i] * 255)) > tol) return 0;
  return 1;
}
static int is_white(const img *m, int x, int y) {
  static const double w[3] = {1, 1, 1};
  return near_colour(m, x, y, w, 0);
}
static int is_grey(const img *m, int x, int y) {
  int p[3];
  px(m, x, y, p);
  return p[0] == p[1] && p[1] == p[2] && p[0] > 40 && p[0] < 240;
}

static char *dir;
static char path[1024];
static void setup(void) { dir = tu_tmpdir(); }
static void teardown(void) {
  tu_rmtree(dir);
  free(dir);
}
static const char *out(const char *name) {
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

/* 200x160, bounds [-1,1]^3, margin 0.05: 72 px per unit (the height binds). */
static vs_view_options opts(vs_view_dir v) {
  vs_view_options o;
  vs_view_options_init(&o);
  o.width = 200, o.height = 160, o.view = v, o.time_label = 0;
  return o;
}

static img render(const vs_view_options *o, const vs_view_frame *f, const vs_view_frame *g,
                  const char *name) {
  vs_error e;
  vs_error_clear(&e);
  vs_status st = vs_view_render_png(o, f, g, out(name), NULL, &e);
  ck_assert_msg(st == VS_OK, "%s", e.message);
  return load(path);
}

START_TEST(particle_where_the_camera_puts_it) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  ck_assert_double_eq_tol(vs_view_scale(&o), 72.0, 1e-12);
  double p[6] = {0, 0, 0, 0.5, 0.5, 0}, r[2] = {0.25, 0.05};
  vs_view_frame f = {.n_particles = 2, .pos = p, .radius = r};
  double sx, sy, d;
  vs_view_project(&o, p + 3, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 136, 1e-9);
  ck_assert_double_eq_tol(sy, 44, 1e-9);
  img m = render(&o, &f, NULL, "one.png");
  double c0[3];
  vs_view_palette(0, c0);
  /* the centre of the bounds lands at the image centre; radius 0.25 -> 18 px */
  ck_assert(near_colour(&m, 99, 79, c0, 2));
  ck_assert(near_colour(&m, 100, 80, c0, 2));
  ck_assert(near_colour(&m, 100 + 15, 80, c0, 2));
  ck_assert(near_colour(&m, 100, 80 - 15, c0, 2));
  ck_assert(!is_white(&m, 100 + 17, 80));
  ck_assert(is_white(&m, 100 + 20, 80));
  ck_assert(is_white(&m, 100, 80 + 20));
  ck_assert(is_white(&m, 100 - 20, 80));
  /* the small one at (0.5, 0.5): 3.6 px radius around (136, 44) */
  ck_assert(near_colour(&m, 135, 43, c0, 2) || near_colour(&m, 136, 44, c0, 2));
  ck_assert(is_white(&m, 136 + 6, 44));
  cairo_surface_destroy(m.s);
}
END_TEST

START_TEST(views_side_top_iso) {
  double q[3] = {0.5, 0.25, 0.5};
  double sx, sy, d;
  vs_view_options o = opts(VS_VIEW_SIDE); /* right = -z, up = y */
  vs_view_project(&o, q, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 100 - 36, 1e-9);
  ck_assert_double_eq_tol(sy, 80 - 18, 1e-9);
  ck_assert_double_eq_tol(d, 0.5, 1e-12);
  o = opts(VS_VIEW_TOP); /* right = x, up = -z, depth = y */
  vs_view_project(&o, q, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 100 + 36, 1e-9);
  ck_assert_double_eq_tol(sy, 80 + 36, 1e-9);
  ck_assert_double_eq_tol(d, 0.25, 1e-12);
  o = opts(VS_VIEW_ISO); /* the cube fits: its silhouette is 2 sqrt(2) wide, 4/sqrt(6) tall */
  double s = vs_view_scale(&o), c[3] = {0, 0, 0}, top[3] = {-1, 1, -1};
  vs_view_project(&o, c, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 100, 1e-9);
  ck_assert_double_eq_tol(sy, 80, 1e-9);
  vs_view_project(&o, top, &sx, &sy, &d); /* the far top corner is the highest point */
  ck_assert_double_eq_tol(sy, 80 - 72, 1e-9);
  ck_assert_double_eq_tol(s, 72 / (2 * sqrt(2.0 / 3.0)), 1e-9);
}
END_TEST

START_TEST(sizes_honoured_png_and_rgb) {
  vs_view_options o = opts(VS_VIEW_ISO);
  o.width = 37, o.height = 23;
  double p[3] = {0.2, 0.1, 0};
  vs_view_frame f = {.n_particles = 1, .pos = p, .radius_default = 0.3};
  img m = render(&o, &f, NULL, "size.png");
  ck_assert_int_eq(m.w, 37);
  ck_assert_int_eq(m.h, 23);
  uint8_t *rgb = malloc(37 * 23 * 3);
  vs_error e;
  ck_assert_int_eq(vs_view_render_rgb(&o, &f, NULL, rgb, &e), VS_OK);
  int diff = 0, coloured = 0;
  for (int y = 0; y < 23; y++)
    for (int x = 0; x < 37; x++) {
      int q[3];
      px(&m, x, y, q);
      for (int c = 0; c < 3; c++) diff |= q[c] != rgb[3 * (y * 37 + x) + c];
      coloured += !is_white(&m, x, y);
    }
  ck_assert_int_eq(diff, 0);
  ck_assert_int_gt(coloured, 20);
  free(rgb);
  cairo_surface_destroy(m.s);
  o.width = 1;
  o.height = 1;
  m = render(&o, &f, NULL, "tiny.png");
  ck_assert_int_eq(m.w * m.h, 1);
  cairo_surface_destroy(m.s);
}
END_TEST

START_TEST(golden_overlay_in_grey_under_the_frame) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double p[6] = {-0.5, 0, 0, 0, 0, 0}, g[6] = {0.5, 0, 0, 0, 0, 0};
  vs_view_frame f = {.n_particles = 2, .pos = p, .radius_default = 0.1};
  vs_view_frame gf = f;
  gf.pos = g;
  img m = render(&o, &f, &gf, "gold.png");
  double c0[3];
  vs_view_palette(0, c0);
  ck_assert(is_grey(&m, 136, 80));           /* only the golden run is there */
  ck_assert(near_colour(&m, 64, 80, c0, 2)); /* only the frame */
  ck_assert(near_colour(&m, 100, 80, c0, 2)); /* both: the frame on top */
  cairo_surface_destroy(m.s);
  m = render(&o, &f, NULL, "nogold.png");
  ck_assert(is_white(&m, 136, 80));
  cairo_surface_destroy(m.s);
}
END_TEST

/* two overlapping triangles at z = -0.5 (body 0, blue) and z = +0.5 (body 3, red) */
START_TEST(triangles_back_to_front) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double p[18] = {-0.8, -0.8, -0.5, 0.8, -0.8, -0.5, 0, 0.8, -0.5,
                  -0.8, 0.8, 0.5,   0.8, 0.8, 0.5,   0, -0.8, 0.5};
  int32_t body[6] = {0, 0, 0, 3, 3, 3};
  for (int order = 0; order < 2; order++) {
    int32_t t[6] = {0, 1, 2, 3, 4, 5};
    if (order) t[0] = 3, t[1] = 4, t[2] = 5, t[3] = 0, t[4] = 1, t[5] = 2;
    vs_view_frame f = {.n_particles = 6, .pos = p, .body = body, .n_tris = 2, .tris = t};
    img m = render(&o, &f, NULL, "tri.png");
    int c[3];
    px(&m, 100, 80, c); /* both cover the centre: the near (red) one shows */
    ck_assert_msg(c[0] > 150 && c[2] < 80, "order %d: %d %d %d", order, c[0], c[1], c[2]);
    px(&m, 60, 120, c); /* only the far (blue) one */
    ck_assert_msg(c[2] > c[0] + 50, "order %d: %d %d %d", order, c[0], c[1], c[2]);
    cairo_surface_destroy(m.s);
  }
}
END_TEST

START_TEST(colour_map_ends_and_scalar_colouring) {
  double a[3], b[3];
  vs_view_colormap(0, a);
  ck_assert_double_eq_tol(a[0], 0.267004, 1e-6);
  ck_assert_double_eq_tol(a[2], 0.329415, 1e-6);
  vs_view_colormap(1, b);
  ck_assert_double_eq_tol(b[0], 0.993248, 1e-6);
  ck_assert_double_eq_tol(b[1], 0.906157, 1e-6);
  double c[3];
  vs_view_colormap(-3, c);
  ck_assert_mem_eq(c, a, sizeof a);
  vs_view_colormap(NAN, c);
  ck_assert_mem_eq(c, a, sizeof a);
  vs_view_colormap(7, c);
  ck_assert_mem_eq(c, b, sizeof b);
  for (int i = 0; i < VS_PLOT_COLORS; i++) { /* no palette colour can pass for the golden grey */
    vs_view_palette(i, c);
    ck_assert(fmax(c[0], fmax(c[1], c[2])) - fmin(c[0], fmin(c[1], c[2])) > 0.2);
  }
  /* speed colouring: the range taken from the frame puts its ends at the map's ends */
  vs_view_options o = opts(VS_VIEW_FRONT);
  o.color = VS_VIEW_COLOR_SCALAR;
  double p[9] = {-0.5, 0, 0, 0.5, 0, 0, 0, 0.5, 0}, vel[9] = {0, 0, 0, 3, 4, 0, 1, 0, 0};
  double speed[3];
  vs_view_speed(3, vel, speed);
  ck_assert_double_eq(speed[1], 5);
  vs_view_frame f = {.n_particles = 3, .pos = p, .radius_default = 0.1, .scalar = speed};
  img m = render(&o, &f, NULL, "speed.png");
  ck_assert(near_colour(&m, 64, 80, a, 2));
  ck_assert(near_colour(&m, 136, 80, b, 2));
  cairo_surface_destroy(m.s);
  o.scalar_min = 0, o.scalar_max = 2; /* given range: 1 -> the middle, 5 -> clamped */
  m = render(&o, &f, NULL, "speed2.png");
  vs_view_colormap(0.5, c);
  ck_assert(near_colour(&m, 100, 44, c, 2));
  ck_assert(near_colour(&m, 136, 80, b, 2));
  cairo_surface_destroy(m.s);
}
END_TEST

START_TEST(strain_of_links) {
  double p[9] = {0, 0, 0, 1.5, 0, 0, 1.5, 1, 0}, rest[2] = {1, 1}, ls[2], ps[3];
  int32_t l[4] = {0, 1, 1, 2};
  uint8_t alive[2] = {1, 0};
  vs_view_strain(3, p, 2, l, rest, alive, ls, ps);
  ck_assert_double_eq_tol(ls[0], 0.5, 1e-15);
  ck_assert_double_eq_tol(ls[1], 0.0, 1e-15);
  ck_assert_double_eq_tol(ps[0], 0.5, 1e-15);
  ck_assert_double_eq_tol(ps[1], 0.5, 1e-15);
  ck_assert_double_eq(ps[2], 0); /* its only link is torn */
}
END_TEST

/* A triangle's vertices are not drawn as discs (and its edges not as links)
 * unless asked; dead links are never drawn. */
START_TEST(surface_parts_and_dead_links) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double p[15] = {-0.5, -0.5, 0, 0.5, -0.5, 0, 0, 0.5, 0, -0.9, 0.9, 0, 0.9, 0.9, 0};
  int32_t t[3] = {0, 1, 2}, l[4] = {0, 1, 3, 4};
  uint8_t alive[2] = {1, 1};
  vs_view_frame f = {.n_particles = 5, .pos = p, .radius_default = 0.15, .n_tris = 1,
                     .tris = t, .n_links = 2, .links = l, .link_alive = alive};
  img m = render(&o, &f, NULL, "surf.png");
  /* left of vertex 0, inside its disc, outside the triangle */
  ck_assert(is_white(&m, 100 - 36 - 8, 80 + 36));
  ck_assert(!is_white(&m, 100, 80 - 65)); /* the free link 3-4 at y = 0.9 */
  cairo_surface_destroy(m.s);
  o.show_surface_parts = 1;
  m = render(&o, &f, NULL, "surf2.png");
  ck_assert(!is_white(&m, 100 - 36 - 8, 80 + 36));
  cairo_surface_destroy(m.s);
  o.show_surface_parts = 0;
  alive[1] = 0;
  m = render(&o, &f, NULL, "surf3.png");
  ck_assert(is_white(&m, 100, 80 - 65));
  cairo_surface_destroy(m.s);
}
END_TEST

START_TEST(rigid_shapes_and_colliders) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double h = sqrt(0.5);
  vs_view_shape s[3] = {
      {.kind = VS_VIEW_BOX, .center = {-0.6, 0, 0}, .quat = {1, 0, 0, 0},
       .half = {0.2, 0.3, 0.2}, .body = 1},
      {.kind = VS_VIEW_SPHERE, .center = {0, 0, 0}, .radius = 0.2, .body = 2},
      {.kind = VS_VIEW_CAPSULE, .center = {0.6, 0, 0}, .quat = {h, 0, 0, h}, /* axis -> -x */
       .radius = 0.1, .half_length = 0.2, .body = 3},
  };
  vs_view_frame f = {.n_shapes = 3, .shapes = s};
  img m = render(&o, &f, NULL, "shapes.png");
  int c[3];
  px(&m, 100 - 43, 80 + 18, c); /* box: 0.4 x 0.6 -> 29 x 43 px around (56.8, 80) */
  ck_assert(c[0] > c[1] && c[1] > c[2]); /* palette 1 is orange: r > g > b */
  ck_assert(!is_white(&m, 57 + 12, 80 + 20));
  ck_assert(is_white(&m, 57 + 17, 80));
  ck_assert(is_white(&m, 57, 80 + 24));
  ck_assert(!is_white(&m, 100, 80 + 12)); /* sphere: 14.4 px */
  ck_assert(is_white(&m, 100, 80 + 17));
  /* capsule along x: from 0.4-0.1 to 0.8+0.1 -> x 122..165, 7 px thick */
  ck_assert(!is_white(&m, 143 - 19, 80));
  ck_assert(!is_white(&m, 143 + 19, 80));
  ck_assert(!is_white(&m, 143, 80 + 5));
  ck_assert(is_white(&m, 143, 80 + 10));
  ck_assert(is_white(&m, 143 + 26, 80));
  cairo_surface_destroy(m.s);
  /* colliders: a floor under everything seen from the top, a bounds wireframe */
  vs_view_collider col[2] = {
      {.kind = VS_VIEW_COLL_PLANE, .point = {0, -1, 0}, .normal = {0, 1, 0}},
      {.kind = VS_VIEW_COLL_BOUNDS, .lo = {-0.9, -0.9, -0.9}, .hi = {0.9, 0.9, 0.9}},
  };
  vs_view_frame g = {.n_colliders = 2, .colliders = col};
  o = opts(VS_VIEW_TOP);
  m = render(&o, &g, NULL, "floor.png");
  static const double fill[3] = {0.86, 0.88, 0.91};
  ck_assert(near_colour(&m, 100 + 9, 80 + 9, fill, 2)); /* 0.25 m cells: 18 px */
  ck_assert(near_colour(&m, 100 + 100 - 5, 80 + 9, fill, 2)); /* beyond the bounds too */
  ck_assert(!near_colour(&m, 100, 80, fill, 10));        /* a grid line */
  ck_assert(!near_colour(&m, 164, 80 + 9, fill, 10)); /* the bounds' edge x = 0.9 */
  cairo_surface_destroy(m.s);
}
END_TEST

/* A mesh collider is drawn as shaded triangles; a dead cloth triangle is not. */
START_TEST(mesh_collider_and_dead_triangles) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double v[9] = {-0.5, -0.5, 0, 0.5, -0.5, 0, 0, 0.5, 0};
  int32_t t[3] = {0, 1, 2};
  vs_view_collider mesh = {.kind = VS_VIEW_COLL_MESH, .n_vertices = 3, .vertices = v,
                           .n_tris = 1, .tris = t};
  vs_view_frame f = {.n_colliders = 1, .colliders = &mesh};
  img m = render(&o, &f, NULL, "mesh.png");
  int c[3];
  px(&m, 100, 90, c);
  ck_assert(c[0] < 250 && c[0] > c[2]); /* the colliders' warm grey, shaded */
  ck_assert(is_white(&m, 100, 30));
  cairo_surface_destroy(m.s);
  uint8_t alive = 1;
  vs_view_frame cl = {.n_particles = 3, .pos = v, .n_tris = 1, .tris = t, .tri_alive = &alive};
  m = render(&o, &cl, NULL, "cl.png");
  ck_assert(!is_white(&m, 100, 90));
  cairo_surface_destroy(m.s);
  alive = 0; /* torn: its vertices come back as (1 px) discs, the face is gone */
  m = render(&o, &cl, NULL, "cl2.png");
  ck_assert(is_white(&m, 100, 90));
  cairo_surface_destroy(m.s);
}
END_TEST

/* A body lying on a large mesh-collider triangle shows over it, though the
 * triangle's centre is nearer the camera than the body's: depth is tested
 * per sample (view/raster.c), not per piece. */
START_TEST(body_on_a_large_collider_triangle_shows) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  /* a floor sloping away from the camera towards the bottom of the picture */
  double v[9] = {-1, -1, -0.9, 1, -1, -0.9, 0, 1, 0.9};
  int32_t t[3] = {0, 1, 2};
  vs_view_collider mesh = {.kind = VS_VIEW_COLL_MESH, .n_vertices = 3, .vertices = v,
                           .n_tris = 1, .tris = t};
  /* a small cloth triangle 1 cm above it (towards the camera), low down */
  double p[9];
  const double xy[6] = {-0.2, -0.85, 0.2, -0.85, 0, -0.65};
  for (int i = 0; i < 3; i++)
    p[3 * i] = xy[2 * i], p[3 * i + 1] = xy[2 * i + 1], p[3 * i + 2] = -0.9 + 0.9 * (xy[2 * i + 1] + 1) + 0.01;
  int32_t bt[3] = {0, 1, 2}, body[3] = {0, 0, 0};
  vs_view_frame f = {.n_particles = 3, .pos = p, .body = body, .n_tris = 1, .tris = bt,
                     .n_colliders = 1, .colliders = &mesh};
  img m = render(&o, &f, NULL, "on.png");
  int c[3];
  px(&m, 100, 136, c); /* the cloth's centre: body 0's blue, not the collider's grey */
  ck_assert_msg(c[2] > c[0] + 50, "%d %d %d", c[0], c[1], c[2]);
  px(&m, 100, 60, c); /* the floor alone */
  ck_assert_msg(c[0] >= c[2] && c[0] < 250, "%d %d %d", c[0], c[1], c[2]);
  cairo_surface_destroy(m.s);
}
END_TEST

/* Pixel (x, y) is mostly red (body 3), blue (body 0) or the collider grey. */
static int is_red(const img *m, int x, int y) {
  int c[3];
  px(m, x, y, c);
  return c[0] > 120 && c[1] < 90 && c[2] < 90;
}
static int is_blue(const img *m, int x, int y) {
  int c[3];
  px(m, x, y, c);
  return c[2] > c[0] + 50 && c[2] > 80;
}

/* A small red square 1 cm above a big blue one, at its far corner: the red
 * one shows wherever it is, from above and from the iso view.  Whole-piece
 * sorting drew the big square last (its centre is nearer the iso camera
 * than the small square's) and hid the red one. */
START_TEST(small_square_over_a_big_one) {
  /* big: 2 x 2 at y = 0 (two triangles); small: 0.4 x 0.4 at y = 0.01 */
  double p[24] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1,
                  -0.9, 0.01, -0.9, -0.5, 0.01, -0.9, -0.5, 0.01, -0.5, -0.9, 0.01, -0.5};
  int32_t body[8] = {0, 0, 0, 0, 3, 3, 3, 3};
  int32_t t[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
  vs_view_frame f = {.n_particles = 8, .pos = p, .body = body, .n_tris = 4, .tris = t};
  for (int v = 0; v < 2; v++) {
    vs_view_options o = opts(v ? VS_VIEW_ISO : VS_VIEW_TOP);
    o.width = 300, o.height = 240;
    for (int c = 0; c < 3; c++) o.lo[c] = -1, o.hi[c] = 1;
    img m = render(&o, &f, NULL, "squares.png");
    double sx, sy, d;
    /* the small square's centre and points around it inside it */
    const double in[5][3] = {{-0.7, 0.01, -0.7}, {-0.85, 0.01, -0.85}, {-0.55, 0.01, -0.85},
                             {-0.55, 0.01, -0.55}, {-0.85, 0.01, -0.55}};
    for (int i = 0; i < 5; i++) {
      vs_view_project(&o, in[i], &sx, &sy, &d);
      ck_assert_msg(is_red(&m, (int)sx, (int)sy), "view %d, point %d (%g, %g): not red", v, i, sx, sy);
    }
    /* the big square beside it and at its centre */
    const double out[3][3] = {{0, 0, 0}, {-0.3, 0, -0.7}, {0.5, 0, 0.5}};
    for (int i = 0; i < 3; i++) {
      vs_view_project(&o, out[i], &sx, &sy, &d);
      ck_assert_msg(is_blue(&m, (int)sx, (int)sy), "view %d, point %d: not blue", v, i);
    }
    cairo_surface_destroy(m.s);
  }
}
END_TEST

/* A cloth lying on a table (a box collider, as configs/rigid_dice.yaml):
 * the cloth shows all over the table top, its far corner included; the
 * table's side shows below the cloth's hem. */
START_TEST(cloth_on_a_table) {
  enum { N = 15 };
  double p[N * N * 3];
  int32_t t[(N - 1) * (N - 1) * 6];
  size_t nt = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double *q = p + 3 * (j * N + i);
      q[0] = -0.6 + 1.2 * i / (N - 1), q[1] = 0.825, q[2] = -0.6 + 1.2 * j / (N - 1);
    }
  for (int j = 0; j + 1 < N; j++)
    for (int i = 0; i + 1 < N; i++) {
      int32_t a = j * N + i;
      int32_t *q = t + 3 * nt;
      q[0] = a, q[1] = a + 1, q[2] = a + N + 1, q[3] = a, q[4] = a + N + 1, q[5] = a + N;
      nt += 2;
    }
  vs_view_collider table = {.kind = VS_VIEW_COLL_BOX, .lo = {-0.5, 0, -0.5}, .hi = {0.5, 0.8, 0.5}};
  vs_view_frame f = {.n_particles = N * N, .pos = p, .n_tris = nt, .tris = t,
                     .n_colliders = 1, .colliders = &table};
  vs_view_options o = opts(VS_VIEW_ISO);
  o.width = 400, o.height = 300;
  o.lo[0] = o.lo[2] = -0.6, o.hi[0] = o.hi[2] = 0.6, o.lo[1] = 0, o.hi[1] = 0.85;
  img m = render(&o, &f, NULL, "table.png");
  double sx, sy, d;
  for (double x = -0.45; x <= 0.46; x += 0.15)
    for (double z = -0.45; z <= 0.46; z += 0.15) {
      double q[3] = {x, 0.825, z};
      vs_view_project(&o, q, &sx, &sy, &d);
      ck_assert_msg(is_blue(&m, (int)sx, (int)sy), "cloth at (%g, %g) not shown", x, z);
    }
  double side[3] = {0.5, 0.3, 0}; /* the table's +x side, under the hem */
  vs_view_project(&o, side, &sx, &sy, &d);
  int c[3];
  px(&m, (int)sx, (int)sy, c);
  ck_assert_msg(abs(c[0] - c[2]) < 40 && c[0] < 230 && c[0] > 60, "side %d %d %d", c[0], c[1], c[2]);
  cairo_surface_destroy(m.s);
}
END_TEST

/* A ball sunk halfway into a floor: its top shows, its bottom is under the
 * floor (whole pieces: a plane went under everything). */
START_TEST(ball_half_under_a_floor) {
  vs_view_shape ball = {.kind = VS_VIEW_SPHERE, .center = {0, 0, 0}, .radius = 0.5, .body = 3};
  vs_view_collider floor = {.kind = VS_VIEW_COLL_PLANE, .point = {0, 0, 0}, .normal = {0, 1, 0}};
  vs_view_frame f = {.n_shapes = 1, .shapes = &ball, .n_colliders = 1, .colliders = &floor};
  vs_view_options o = opts(VS_VIEW_ISO);
  img m = render(&o, &f, NULL, "sunk.png");
  double top[3] = {0, 0.45, 0}, bottom[3] = {0, -0.45, 0}, sx, sy, d;
  vs_view_project(&o, top, &sx, &sy, &d);
  int c[3];
  px(&m, (int)sx, (int)sy, c);
  ck_assert_msg(c[0] > c[2] + 40, "top %d %d %d: not the ball's red", c[0], c[1], c[2]);
  vs_view_project(&o, bottom, &sx, &sy, &d);
  px(&m, (int)sx, (int)sy, c);
  ck_assert_msg(c[2] > 180 && c[1] > 180 && abs(c[0] - c[2]) < 30,
                "bottom %d %d %d: not the floor", c[0], c[1], c[2]);
  cairo_surface_destroy(m.s);
}
END_TEST

/* A camera direction (eye), a centre and a zoom: the same mapping as the
 * named views where they agree. */
START_TEST(camera_eye_center_zoom) {
  double q[3] = {0.5, 0.25, 0.5}, sx, sy, d, ex, ey, ed;
  vs_view_options o = opts(VS_VIEW_FRONT), e = opts(VS_VIEW_ISO);
  e.eye[2] = 7; /* from +z, however far: the front view */
  vs_view_project(&o, q, &sx, &sy, &d);
  vs_view_project(&e, q, &ex, &ey, &ed);
  ck_assert_double_eq_tol(ex, sx, 1e-9);
  ck_assert_double_eq_tol(ey, sy, 1e-9);
  ck_assert_double_eq_tol(ed, d, 1e-9);
  o = opts(VS_VIEW_TOP), e = opts(VS_VIEW_FRONT);
  e.eye[1] = 2; /* from straight above: the top view */
  vs_view_project(&o, q, &sx, &sy, &d);
  vs_view_project(&e, q, &ex, &ey, &ed);
  ck_assert_double_eq_tol(ex, sx, 1e-9);
  ck_assert_double_eq_tol(ey, sy, 1e-9);
  /* a centre goes to the image centre; zoom 2 doubles the scale */
  o = opts(VS_VIEW_FRONT);
  o.has_center = 1, o.center[0] = 0.5, o.center[1] = 0.25, o.center[2] = -3;
  vs_view_project(&o, q, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 100, 1e-9);
  ck_assert_double_eq_tol(sy, 80, 1e-9);
  /* the bounds' farthest reach from that centre fits: 1.5 x 1.25 up and left */
  ck_assert_double_eq_tol(vs_view_scale(&o), 72 / 1.25, 1e-9);
  o = opts(VS_VIEW_FRONT);
  o.zoom = 2;
  ck_assert_double_eq_tol(vs_view_scale(&o), 144, 1e-9);
  vs_view_project(&o, q, &sx, &sy, &d);
  ck_assert_double_eq_tol(sx, 100 + 72, 1e-9);
  /* a camera from (1, 2, 3): screen up is the world's y as seen from there */
  o = opts(VS_VIEW_FRONT);
  o.eye[0] = 1, o.eye[1] = 2, o.eye[2] = 3;
  double up[3] = {0, 1, 0}, c[3] = {0, 0, 0};
  vs_view_project(&o, c, &sx, &sy, &d);
  vs_view_project(&o, up, &ex, &ey, &ed);
  ck_assert_double_eq_tol(ex, sx, 1e-9);
  ck_assert_double_lt(ey, sy);
  ck_assert_double_eq_tol(ed - d, 2 / sqrt(14.0), 1e-9);
}
END_TEST

/* The focus box: the bodies without far strays, colliders of their size. */
START_TEST(focus_box_frames_the_bodies) {
  enum { N = 101 };
  double p[3 * N];
  for (int i = 0; i < N - 1; i++) /* a 10 x 10 sheet over [0, 1] x [0, 1] at z = 0 */
    p[3 * i] = (i % 10) / 9.0, p[3 * i + 1] = (i / 10) / 9.0, p[3 * i + 2] = 0;
  p[3 * (N - 1)] = 0.5, p[3 * (N - 1) + 1] = -17.7, p[3 * (N - 1) + 2] = 0; /* the weight */
  vs_view_frame f = {.n_particles = N, .pos = p, .radius_default = 0.01};
  double lo[3], hi[3];
  vs_view_bounds_init(lo, hi);
  ck_assert_int_eq(vs_view_focus_add(&f, lo, hi), 1);
  ck_assert_double_eq_tol(lo[1], -0.01, 1e-12);
  ck_assert_double_eq_tol(hi[1], 1.01, 1e-12);
  ck_assert_double_eq_tol(lo[0], -0.01, 1e-12);
  ck_assert_double_eq_tol(hi[0], 1.01, 1e-12);
  /* within half the sheet's size below it: kept */
  p[3 * (N - 1) + 1] = -0.4;
  vs_view_bounds_init(lo, hi);
  vs_view_focus_add(&f, lo, hi);
  ck_assert_double_eq_tol(lo[1], -0.41, 1e-12);
  /* fewer than VS_VIEW_FOCUS_MIN bodies: all of them */
  p[3 * (N - 1) + 1] = -17.7;
  double q[6] = {0, 0, 0, 0, -17.7, 0};
  vs_view_frame two = {.n_particles = 2, .pos = q};
  vs_view_bounds_init(lo, hi);
  vs_view_focus_add(&two, lo, hi);
  ck_assert_double_eq(lo[1], -17.7);
  /* colliders: a table under the sheet joins, a floor 30 times its size
   * and a plane do not */
  double fv[12] = {-15, -1, -15, 15, -1, -15, 15, -1, 15, -15, -1, 15};
  int32_t ft[6] = {0, 1, 2, 0, 2, 3};
  vs_view_collider cols[3] = {
      {.kind = VS_VIEW_COLL_BOX, .lo = {0, -0.5, -0.5}, .hi = {1, 0, 0.5}},
      {.kind = VS_VIEW_COLL_MESH, .n_vertices = 4, .vertices = fv, .n_tris = 2, .tris = ft},
      {.kind = VS_VIEW_COLL_PLANE, .point = {0, -100, 0}, .normal = {0, 1, 0}},
  };
  f.n_colliders = 3, f.colliders = cols;
  vs_view_bounds_init(lo, hi);
  vs_view_focus_add(&f, lo, hi);
  vs_view_focus_colliders(&f, lo, hi);
  ck_assert_double_eq(lo[1], -0.5);
  ck_assert_double_eq(lo[2], -0.5);
  ck_assert_double_eq_tol(hi[0], 1.01, 1e-12);
  /* no bodies: the finite colliders, whatever their size */
  vs_view_frame none = {.n_colliders = 3, .colliders = cols};
  vs_view_bounds_init(lo, hi);
  ck_assert_int_eq(vs_view_focus_add(&none, lo, hi), 0);
  vs_view_focus_colliders(&none, lo, hi);
  ck_assert_double_eq(lo[0], -15);
  ck_assert_double_eq(hi[2], 15);
}
END_TEST

START_TEST(render_errors) {
  vs_view_options o = opts(VS_VIEW_FRONT);
  double p[6] = {0};
  int32_t l[2] = {0, 5};
  vs_view_frame f = {.n_particles = 2, .pos = p};
  vs_error e;
  vs_error_clear(&e);
  /* the output rules of util/outfile.h: a path that cannot be used is
   * the caller's to fix (VS_ERR_USAGE), and nothing is left behind */
  ck_assert_int_eq(vs_view_render_png(&o, &f, NULL, "/nonexistent-dir-vsim/x.png", NULL, &e),
                   VS_ERR_USAGE);
  ck_assert_str_eq(e.message, "directory '/nonexistent-dir-vsim' does not exist");
  ck_assert_str_eq(e.file, "/nonexistent-dir-vsim/x.png");
  ck_assert_int_eq(vs_view_render_png(&o, &f, NULL, dir, NULL, &e), VS_ERR_USAGE);
  ck_assert_ptr_nonnull(strstr(e.message, "is a directory, not a regular file: refused"));
  o.width = 0;
  ck_assert_int_eq(vs_view_render_png(&o, &f, NULL, out("bad.png"), NULL, &e), VS_ERR_USAGE);
  ck_assert_str_eq(e.message, "image size 0x160 out of range (1 to 16384 pixels each way)");
  o = opts(VS_VIEW_FRONT);
  f.n_links = 1;
  f.links = l;
  ck_assert_int_eq(vs_view_render_png(&o, &f, NULL, out("bad.png"), NULL, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "frame: link 0 names particle 5 of 2");
  struct stat sb;
  ck_assert_int_ne(stat(out("bad.png"), &sb), 0);
}
END_TEST

/* ---- plot ---------------------------------------------------------------- */

START_TEST(nice_ticks) {
  double t[16], step;
  int n = vs_plot_ticks(0, 3.3, 5, t, 16, &step);
  ck_assert_int_eq(n, 7);
  ck_assert_double_eq_tol(step, 0.5, 1e-15);
  ck_assert_double_eq_tol(t[6], 3.0, 1e-12);
  n = vs_plot_ticks(-1, 1, 4, t, 16, &step);
  ck_assert_int_eq(n, 5);
  ck_assert_double_eq(t[2], 0);
  n = vs_plot_ticks(0.0013, 0.0071, 3, t, 16, &step);
  ck_assert_int_eq(n, 3);
  ck_assert_double_eq_tol(step, 0.002, 1e-15);
  ck_assert_double_eq_tol(t[0], 0.002, 1e-15);
  n = vs_plot_ticks(0, 100, 5, t, 16, &step); /* 20: a 2 step */
  ck_assert_double_eq_tol(step, 20, 1e-12);
  ck_assert_int_eq(n, 6);
}
END_TEST

START_TEST(log_scale_choice) {
  double x[5] = {0, 1, 2, 3, 4}, y[5] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
  double z[5] = {1, 2, 0, 500, 900}, ng[5] = {1e-5, -1, 1, 1, 1};
  vs_plot_series s = {"err", 5, x, y, -1, NULL, NULL, 0}, s2 = {"b", 5, x, z, -1, NULL, NULL, 0},
                 s3 = {"n", 5, x, ng, -1, NULL, NULL, 0};
  ck_assert_int_eq(vs_plot_scale_for(&s, 1), VS_PLOT_LOG);
  ck_assert_int_eq(vs_plot_scale_for(&s2, 1), VS_PLOT_LINEAR); /* 900: under 3 decades */
  ck_assert_int_eq(vs_plot_scale_for(&s3, 1), VS_PLOT_SYMLOG); /* 5 decades and a negative */
  vs_plot_series both[2] = {s, s2};
  ck_assert_int_eq(vs_plot_scale_for(both, 2), VS_PLOT_SYMLOG); /* 1e-5 to 900, and a zero */
}
END_TEST

/* A series 1e-1 .. 1e-5, straight on a log axis: its middle point (1e-3) is
 * at the middle of the frame; on a linear axis it is near the bottom.  The
 * legend stands right of the frame, outside it. */
START_TEST(plot_axes_log_legend) {
  double x[5] = {0, 1, 2, 3, 4}, y[5] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
  double y2[5] = {1e-2, 1e-2, 1e-2, 1e-2, 1e-2};
  vs_plot_series s[2] = {{"max error", 5, x, y, -1, NULL, NULL, 0}, {"flat", 5, x, y2, -1, NULL, NULL, 0}};
  vs_plot_options o;
  vs_plot_options_init(&o);
  o.width = 600, o.height = 400, o.title = "constraint error", o.ylabel = "error [m]";
  vs_plot_geometry g = {0};
  vs_plot_layout(&o, s, 2, &g);
  ck_assert_int_eq((int)g.n_panels, 1);
  ck_assert_str_eq(g.label[0], "error [m]");
  const double *fr = g.panel[0], *lg = g.legend;
  ck_assert_double_gt(lg[0], fr[2]); /* outside the axes */
  ck_assert_double_le(lg[2], 600);
  ck_assert_int_eq((int)g.n_keys, 2);
  ck_assert_int_eq((int)g.n_shown, 2);
  vs_error e;
  for (int forced = 0; forced < 2; forced++) {
    o.yscale = forced ? VS_PLOT_LINEAR : VS_PLOT_AUTO;
    ck_assert_int_eq(vs_plot_png(&o, s, 2, out("plot.png"), NULL, &e), VS_OK);
    img m = load(path);
    ck_assert_int_eq(m.w, 600);
    ck_assert_int_eq(m.h, 400);
    int c[3];
    /* the frame: black lines on its four sides */
    int l = (int)floor(fr[0]), t = (int)floor(fr[1]), r = (int)floor(fr[2]),
        b = (int)floor(fr[3]), mx = (l + r) / 2, my = (t + b) / 2;
    px(&m, l, my, c);
    ck_assert_int_lt(c[0] + c[1] + c[2], 60);
    px(&m, r, my, c);
    ck_assert_int_lt(c[0] + c[1] + c[2], 60);
    px(&m, mx, b, c);
    ck_assert_int_lt(c[0] + c[1] + c[2], 60);
    px(&m, mx, t, c);
    ck_assert_int_lt(c[0] + c[1] + c[2], 60);
    /* the series through the middle on the log axis only */
    double c0[3];
    vs_view_palette(0, c0);
    int hit = 0;
    for (int dy = -3; dy <= 3; dy++) hit |= near_colour(&m, mx, my + dy, c0, 40);
    ck_assert_int_eq(hit, !forced);
    /* the legend: a sample line of each series' colour on its row */
    for (int i = 0; i < 2; i++) {
      double ci[3];
      vs_view_palette(i, ci);
      ck_assert_msg(near_colour(&m, (int)(lg[0] + g.pad + g.sample / 2),
                                (int)(lg[1] + g.pad + (i + 0.5) * g.row), ci, 2),
                    "legend row %d", i);
    }
    /* text drawn: the title above the frame, tick labels left of it */
    int dark = 0;
    for (int yy = 0; yy < t - 2; yy++)
      for (int xx = l; xx < r; xx++) {
        px(&m, xx, yy, c);
        dark += c[0] < 100;
      }
    ck_assert_int_gt(dark, 20);
    cairo_surface_destroy(m.s);
  }
}
END_TEST

/* Metres, joules and a count: three panels, each its own axis.  The error
 * starts at 0 (frame 0) and spans 4 decades: a symmetric-log axis that
 * shows the 0; the energy too; the all-zero series is a flat line at 0. */
START_TEST(plot_panels_per_unit_and_zeros) {
  enum { N = 41 };
  double x[N], err[N], en[N], cnt[N], zero[N];
  for (int i = 0; i < N; i++) {
    x[i] = i * 0.05;
    err[i] = i ? 1e-5 * pow(10, 4.0 * i / (N - 1)) : 0;
    en[i] = 300.0 * i * i / ((N - 1) * (N - 1));
    cnt[i] = i < 20 ? 1057 : 1052;
    zero[i] = 0;
  }
  vs_plot_series s[4] = {{"error", N, x, err, 0, "m", NULL, 0},
                         {"kinetic", N, x, en, 1, "J", NULL, 0},
                         {"alive", N, x, cnt, 2, "1", NULL, 0},
                         {"penetration", N, x, zero, 3, "m", NULL, 0}};
  vs_plot_options o;
  vs_plot_options_init(&o);
  o.width = 700, o.height = 600;
  int sp[4];
  vs_plot_geometry g = {0};
  g.series_panel = sp;
  vs_plot_layout(&o, s, 4, &g);
  ck_assert_int_eq((int)g.n_panels, 3);
  ck_assert_str_eq(g.unit[0], "m");
  ck_assert_str_eq(g.unit[1], "J");
  ck_assert_str_eq(g.unit[2], "count");
  ck_assert_str_eq(g.label[0], "length [m]");
  ck_assert_str_eq(g.label[1], "kinetic [J]");
  ck_assert_str_eq(g.label[2], "alive");
  ck_assert_int_eq(g.scale[0], VS_PLOT_SYMLOG);
  ck_assert_int_eq(g.scale[1], VS_PLOT_SYMLOG);
  ck_assert_int_eq(g.scale[2], VS_PLOT_LINEAR);
  ck_assert_int_eq(sp[0], 0);
  ck_assert_int_eq(sp[3], 0);
  ck_assert_int_eq(sp[2], 2);
  for (int i = 0; i < 3; i++) ck_assert_double_gt(g.legend[0], g.panel[i][2]);
  ck_assert_double_lt(g.panel[0][3], g.panel[1][1]); /* stacked, not overlapping */
  vs_error e;
  ck_assert_int_eq(vs_plot_png(&o, s, 4, out("panels.png"), NULL, &e), VS_OK);
  img m = load(path);
  /* down a column through the panels: each panel's top and bottom edge */
  int xc = (int)(g.panel[0][0] + 0.37 * (g.panel[0][2] - g.panel[0][0])), runs = 0, in = 0, c[3];
  for (int y = 0; y < m.h; y++) {
    px(&m, xc, y, c);
    int black = c[0] + c[1] + c[2] < 60;
    runs += black && !in;
    in = black;
  }
  ck_assert_int_eq(runs, 6);
  /* the zero line in the metre panel, near its bottom: the flat all-zero
   * series (palette 3, red) runs along it, the error (palette 0) starts on it */
  double red[3], blue[3];
  vs_view_palette(3, red);
  vs_view_palette(0, blue);
  int xm = (int)(0.5 * (g.panel[0][0] + g.panel[0][2])), found = 0, y0 = -1;
  for (int y = (int)g.panel[0][1]; y < (int)g.panel[0][3] && !found; y++)
    if (near_colour(&m, xm, y, red, 40)) found = 1, y0 = y;
  ck_assert_msg(found, "no flat zero line in the metre panel");
  ck_assert_int_gt(y0, (int)(0.8 * g.panel[0][3] + 0.2 * g.panel[0][1]));
  int start = 0;
  for (int dy = -3; dy <= 3; dy++)
    for (int dx = 1; dx <= 3; dx++) start |= near_colour(&m, (int)g.panel[0][0] + dx, y0 + dy, blue, 60);
  ck_assert_msg(start, "the error's first point (0 at t = 0) is not drawn");
  cairo_surface_destroy(m.s);
}
END_TEST

/* 20 colours without a repeat, then dashes; more entries than fit the
 * height: smaller type, then "+N more", still outside the axes. */
START_TEST(plot_styles_and_a_long_legend) {
  for (int i = 0; i < VS_PLOT_COLORS; i++) {
    double a[3];
    int d;
    vs_plot_style(i, a, &d);
    ck_assert_int_eq(d, 0);
    for (int j = 0; j < i; j++) {
      double b[3];
      vs_plot_style(j, b, NULL);
      double dist = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
      ck_assert_msg(dist > 0.15, "colours %d and %d alike", i, j);
    }
  }
  double c0[3], c20[3];
  int d20;
  vs_plot_style(0, c0, NULL);
  vs_plot_style(VS_PLOT_COLORS, c20, &d20);
  ck_assert_mem_eq(c0, c20, sizeof c0);
  ck_assert_int_eq(d20, 1);
  enum { NS = 60 };
  double x[2] = {0, 1}, y[2] = {1, 2};
  vs_plot_series s[NS];
  char names[NS][16];
  for (int i = 0; i < NS; i++) {
    snprintf(names[i], sizeof names[i], "curve %d", i);
    s[i] = (vs_plot_series){names[i], 2, x, y, -1, "m", "q", 0};
  }
  vs_plot_options o;
  vs_plot_options_init(&o);
  vs_plot_geometry g = {0};
  vs_plot_layout(&o, s, NS, &g);
  ck_assert_int_eq((int)g.n_keys, NS);
  ck_assert_int_lt((int)g.n_shown, NS);
  ck_assert_int_gt((int)g.n_shown, 20);
  ck_assert_double_le(g.legend[3], o.height);
  ck_assert_double_gt(g.legend[0], g.panel[0][2]);
  ck_assert_str_eq(g.label[0], "q [m]");
  vs_error e;
  ck_assert_int_eq(vs_plot_png(&o, s, NS, out("long.png"), NULL, &e), VS_OK);
}
END_TEST

START_TEST(plot_errors) {
  vs_plot_options o;
  vs_plot_options_init(&o);
  double x[1] = {0}, y[1] = {1};
  vs_plot_series s = {"a", 1, x, y, -1, NULL, NULL, 0};
  vs_error e;
  ck_assert_int_eq(vs_plot_png(&o, &s, 1, "/nonexistent-dir-vsim/p.png", NULL, &e),
                   VS_ERR_USAGE);
  ck_assert_str_eq(e.message, "directory '/nonexistent-dir-vsim' does not exist");
  o.height = 10;
  ck_assert_int_eq(vs_plot_png(&o, &s, 1, out("p.png"), NULL, &e), VS_ERR_USAGE);
  ck_assert_str_eq(e.message, "plot size 800x10 out of range (64 to 16384 pixels each way)");
  /* no data at all still gives axes */
  vs_plot_options_init(&o);
  ck_assert_int_eq(vs_plot_png(&o, NULL, 0, out("empty.png"), NULL, &e), VS_OK);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("view");
  TCase *tc = tcase_create("render");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, particle_where_the_camera_puts_it);
  tcase_add_test(tc, views_side_top_iso);
  tcase_add_test(tc, sizes_honoured_png_and_rgb);
  tcase_add_test(tc, golden_overlay_in_grey_under_the_frame);
  tcase_add_test(tc, triangles_back_to_front);
  tcase_add_test(tc, colour_map_ends_and_scalar_colouring);
  tcase_add_test(tc, strain_of_links);
  tcase_add_test(tc, surface_parts_and_dead_links);
  tcase_add_test(tc, rigid_shapes_and_colliders);
  tcase_add_test(tc, mesh_collider_and_dead_triangles);
  tcase_add_test(tc, body_on_a_large_collider_triangle_shows);
  tcase_add_test(tc, small_square_over_a_big_one);
  tcase_add_test(tc, cloth_on_a_table);
  tcase_add_test(tc, ball_half_under_a_floor);
  tcase_add_test(tc, camera_eye_center_zoom);
  tcase_add_test(tc, focus_box_frames_the_bodies);
  tcase_add_test(tc, render_errors);
  suite_add_tcase(s, tc);
  TCase *tp = tcase_create("plot");
  tcase_add_checked_fixture(tp, setup, teardown);
  tcase_add_test(tp, nice_ticks);
  tcase_add_test(tp, log_scale_choice);
  tcase_add_test(tp, plot_axes_log_legend);
  tcase_add_test(tp, plot_panels_per_unit_and_zeros);
  tcase_add_test(tp, plot_styles_and_a_long_legend);
  tcase_add_test(tp, plot_errors);
  suite_add_tcase(s, tp);
  return s;
}

int main(void) {
  int rc = tu_run(suite());
  /* cairo keeps its font faces (fontconfig patterns) in static caches:
   * give them back so that `make valgrind` sees no loss of ours */
  cairo_debug_reset_static_data();
  /* and fontconfig its parsed configuration (FcFini, found at run time: the
   * tests link cairo, which loads fontconfig, but not fontconfig itself) */
  void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
  if (fc_fini) fc_fini();
  return rc;
}
