/* SPDX-License-Identifier: MIT */
/* render_bench.c: `make render-bench` — how long lib/view takes to draw a frame.
 *
 * A 256 x 256 cloth (65,536 particles, 130,050 triangles, 2 x 65,280 links)
 * draped over a sphere-like bump, iso view, coloured by body and by a scalar,
 * at 800x600 and 1920x1080; best and median of REPS renders to an RGB buffer
 * (what `vsim render` pipes to ffmpeg) and one to PNG (encoding included).
 *
 *   render_bench [--reps N] [--n SIDE] [--out DIR]
 *
 * --out DIR also writes the pictures used to look at the renderer: the cloth,
 * a rope, particles and rigid shapes over a plane, a golden overlay, a plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/view.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct cloth {
  int n;
  double *pos, *scalar;
  int32_t *tris, *links;
  size_t nt, nl;
} cloth;

/* An n x n cloth over [-1,1]^2 in xz, sagging over a bump, with a ripple. */
static void make_cloth(cloth *c, int n, double phase) {
  c->n = n;
  c->pos = malloc(sizeof(double) * 3 * n * n);
  c->scalar = malloc(sizeof(double) * n * n);
  c->tris = malloc(sizeof(int32_t) * 6 * (n - 1) * (n - 1));
  c->links = malloc(sizeof(int32_t) * 4 * n * (n - 1));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double x = -1 + 2.0 * i / (n - 1), z = -1 + 2.0 * j / (n - 1), r2 = x * x + z * z;
      double *p = c->pos + 3 * (j * n + i);
      p[0] = x;
      p[2] = z;
      p[1] = 0.8 * exp(-3 * r2) + 0.05 * sin(6 * x + phase) * cos(5 * z);
      c->scalar[j * n + i] = sqrt(r2);
    }
  c->nt = c->nl = 0;
  for (int j = 0; j + 1 < n; j++)
    for (int i = 0; i + 1 < n; i++) {
      int32_t a = j * n + i, b = a + 1, d = a + n, e = d + 1;
      int32_t *t = c->tris + 3 * c->nt;
      t[0] = a, t[1] = b, t[2] = e, t[3] = a, t[4] = e, t[5] = d;
      c->nt += 2;
    }
  for (int j = 0; j < n; j++)
    for (int i = 0; i + 1 < n; i++) {
      c->links[2 * c->nl] = j * n + i, c->links[2 * c->nl + 1] = j * n + i + 1, c->nl++;
      c->links[2 * c->nl] = i * n + j, c->links[2 * c->nl + 1] = (i + 1) * n + j, c->nl++;
    }
}

static void cloth_frame(const cloth *c, vs_view_frame *f) {
  memset(f, 0, sizeof *f);
  f->n_particles = (size_t)c->n * c->n;
  f->pos = c->pos;
  f->scalar = c->scalar;
  f->radius_default = 0.004;
  f->n_tris = c->nt;
  f->tris = c->tris;
  f->n_links = c->nl;
  f->links = c->links;
  f->time = 1.25;
}

static void die(const vs_error *e) {
  char buf[2048];
  fprintf(stderr, "render_bench: %s\n", vs_error_format(e, buf, sizeof buf));
  exit(1);
}

static void bench(const char *what, const vs_view_options *o, const vs_view_frame *f, int reps) {
  uint8_t *rgb = malloc((size_t)o->width * o->height * 3);
  double *t = malloc(sizeof(double) * reps);
  vs_error e;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (vs_view_render_rgb(o, f, NULL, rgb, &e) != VS_OK) die(&e);
    t[r] = now() - t0;
  }
  qsort(t, reps, sizeof *t, cmpd);
  printf("%-34s %5dx%-5d best %7.1f ms  median %7.1f ms\n", what, o->width, o->height,
         1e3 * t[0], 1e3 * t[reps / 2]);
  free(rgb);
  free(t);
}

static void demos(const char *dir, const cloth *c) {
  char path[1024];
  vs_error e;
  vs_view_options o;
  vs_view_frame f;
  vs_view_options_init(&o);
  /* 1. cloth, iso, and the same by scalar, top view */
  cloth_frame(c, &f);
  vs_view_bounds_init(o.lo, o.hi);
  vs_view_bounds_add(&f, o.lo, o.hi);
  snprintf(path, sizeof path, "%s/cloth_iso.png", dir);
  if (vs_view_render_png(&o, &f, NULL, path, NULL, &e) != VS_OK) die(&e);
  o.color = VS_VIEW_COLOR_SCALAR;
  o.view = VS_VIEW_FRONT;
  snprintf(path, sizeof path, "%s/cloth_front_scalar.png", dir);
  if (vs_view_render_png(&o, &f, NULL, path, NULL, &e) != VS_OK) die(&e);
  /* 2. a rope swinging over a floor, with its golden run in grey */
  enum { NR = 21 };
  double rp[NR * 3], gp[NR * 3], rad[NR];
  int32_t rl[(NR - 1) * 2];
  for (int i = 0; i < NR; i++) {
    double a = 0.9 * i / (NR - 1), ag = 1.1 * i / (NR - 1);
    rp[3 * i] = sin(a) * 2 * i / (NR - 1), rp[3 * i + 1] = 2 - cos(a) * 2 * i / (NR - 1);
    gp[3 * i] = sin(ag) * 2 * i / (NR - 1), gp[3 * i + 1] = 2 - cos(ag) * 2 * i / (NR - 1);
    rp[3 * i + 2] = gp[3 * i + 2] = 0;
    rad[i] = 0.03;
    if (i) rl[2 * (i - 1)] = i - 1, rl[2 * (i - 1) + 1] = i;
  }
  vs_view_collider floor = {.kind = VS_VIEW_COLL_PLANE, .normal = {0, 1, 0}};
  vs_view_frame rope = {.n_particles = NR, .pos = rp, .radius = rad, .n_links = NR - 1,
                        .links = rl, .n_colliders = 1, .colliders = &floor, .time = 0.5};
  vs_view_frame gold = rope;
  gold.pos = gp;
  vs_view_options_init(&o);
  o.view = VS_VIEW_ISO;
  vs_view_bounds_init(o.lo, o.hi);
  vs_view_bounds_add(&rope, o.lo, o.hi);
  vs_view_bounds_add(&gold, o.lo, o.hi);
  o.label = "rope vs golden (grey)";
  snprintf(path, sizeof path, "%s/rope_golden.png", dir);
  if (vs_view_render_png(&o, &rope, &gold, path, NULL, &e) != VS_OK) die(&e);
  /* 3. particles and rigid shapes over a plane, a sphere collider, bounds */
  enum { NP = 40 };
  double pp[NP * 3], pr[NP];
  int32_t pb[NP];
  for (int i = 0; i < NP; i++) {
    pp[3 * i] = -1.2 + 0.25 * (i % 10), pp[3 * i + 1] = 0.12 + 0.25 * (i / 10);
    pp[3 * i + 2] = -1.0;
    pr[i] = 0.1;
    pb[i] = i / 10;
  }
  double h = sqrt(0.5);
  vs_view_shape sh[4] = {
      {.kind = VS_VIEW_BOX, .center = {0.3, 0.2, 0.4}, .quat = {1, 0, 0, 0},
       .half = {0.2, 0.2, 0.2}, .body = 4},
      {.kind = VS_VIEW_BOX, .center = {0.35, 0.55, 0.4}, .quat = {cos(0.3), 0, sin(0.3), 0},
       .half = {0.3, 0.15, 0.1}, .body = 5},
      {.kind = VS_VIEW_SPHERE, .center = {-0.4, 0.25, 0.6}, .radius = 0.25, .body = 6},
      {.kind = VS_VIEW_CAPSULE, .center = {0.9, 0.15, -0.2}, .quat = {h, 0, 0, h},
       .radius = 0.15, .half_length = 0.3, .body = 8},
  };
  vs_view_collider cols[3] = {
      {.kind = VS_VIEW_COLL_PLANE, .normal = {0, 1, 0}},
      {.kind = VS_VIEW_COLL_SPHERE, .center = {1.0, 0.3, 0.9}, .radius = 0.3},
      {.kind = VS_VIEW_COLL_BOUNDS, .lo = {-1.5, 0, -1.5}, .hi = {1.5, 1.5, 1.5}},
  };
  vs_view_frame pile = {.n_particles = NP, .pos = pp, .radius = pr, .body = pb,
                        .n_shapes = 4, .shapes = sh, .n_colliders = 3, .colliders = cols,
                        .time = 2};
  vs_view_options_init(&o);
  for (int c2 = 0; c2 < 3; c2++) o.lo[c2] = -1.5, o.hi[c2] = 1.5;
  o.lo[1] = 0;
  for (int v = 0; v < 4; v++) {
    static const char *names[] = {"iso", "front", "side", "top"};
    o.view = (vs_view_dir)v;
    snprintf(path, sizeof path, "%s/shapes_%s.png", dir, names[v]);
    if (vs_view_render_png(&o, &pile, NULL, path, NULL, &e) != VS_OK) die(&e);
  }
  /* 4. a plot: a decaying error (log axis) from three "files" */
  enum { NS = 200 };
  double x[NS], y[3][NS];
  for (int i = 0; i < NS; i++) {
    x[i] = i / 60.0;
    for (int k = 0; k < 3; k++) y[k][i] = 0.1 * exp(-(k + 2) * x[i]) + 1e-7;
  }
  vs_plot_series s[3] = {{"iterations 5", NS, x, y[0], -1, "m", NULL, 0},
                         {"iterations 10", NS, x, y[1], -1, "m", NULL, 0},
                         {"iterations 20", NS, x, y[2], -1, "m", NULL, 0}};
  vs_plot_options po;
  vs_plot_options_init(&po);
  po.title = "constraint error (max)";
  po.ylabel = "error [m]";
  snprintf(path, sizeof path, "%s/plot.png", dir);
  if (vs_plot_png(&po, s, 3, path, NULL, &e) != VS_OK) die(&e);
  printf("pictures in %s/\n", dir);
}

int main(int argc, char **argv) {
  int reps = 9, n = 256;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      fprintf(stderr, "usage: render_bench [--reps N] [--n SIDE] [--out DIR]\n");
      return 2;
    }
  }
  if (reps < 1 || n < 2) return 2;
  cloth c;
  make_cloth(&c, n, 0.3);
  vs_view_frame f;
  cloth_frame(&c, &f);
  vs_view_options o;
  vs_view_options_init(&o);
  vs_view_bounds_init(o.lo, o.hi);
  vs_view_bounds_add(&f, o.lo, o.hi);
  printf("cloth %dx%d: %zu particles, %zu triangles, %zu links\n", n, n, f.n_particles,
         f.n_tris, f.n_links);
  bench("cloth iso, by body", &o, &f, reps);
  o.color = VS_VIEW_COLOR_SCALAR;
  bench("cloth iso, by scalar", &o, &f, reps);
  o.width = 1920, o.height = 1080;
  bench("cloth iso, by scalar", &o, &f, reps);
  o.width = 800, o.height = 600;
  o.show_surface_parts = 1;
  bench("cloth iso, + every link and disc", &o, &f, reps);
  if (out) demos(out, &c);
  free(c.pos), free(c.scalar), free(c.tris), free(c.links);
  return 0;
}
