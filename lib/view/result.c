/* SPDX-License-Identifier: MIT */
/* result.c: drawing result files (vsim/render.h): the frames reader
 * (vsim/frames.h) feeding the array-based drawing of view.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "vsim/h5.h"
#include "vsim/kind.h"
#include "view/cairo_dl.h"
#include "view/view.h"
#include "vsim/render.h"

_Static_assert(VS_RENDER_PNG == 0 && VS_RENDER_SVG == 1 && VS_RENDER_PDF == 2,
               "vs_view_format_of maps the render formats by value");

/* One file's per-frame buffers and what the drawing needs of its topology. */
typedef struct side {
  vs_frames *f;
  const vs_frames_topology *t;
  size_t N, M, T, B;
  double *pos, *prev, *vel, *scalar, *link_scalar, *radius, *rest;
  double *rpos, *rquat;
  uint8_t *alive, *link_alive, *tri_alive;
  int32_t *tri_edge; /* [T][3] link of each triangle edge, -1 */
  vs_view_shape *shapes;
  int32_t *hull_tri;    /* the file's hull triangles, each into its own body's vertices */
  int32_t body_base; /* palette index of rigid body 0 */
} side;

struct vs_renderer {
  vs_render_opts o;
  vs_view_options vo;
  side a, g;
  int has_golden;
  vs_view_collider *coll;
  size_t n_coll;
  double run_lo[3], run_hi[3]; /* the focus box over every frame */
  char label[600];
};

static vs_status nomem(vs_error *err, const vs_frames *f) {
  return vs_error_set(err, VS_ERR_NOMEM, vs_frames_path(f), 0, 0, "out of memory");
}

static void side_free(side *s) {
  vs_free(s->pos);
  vs_free(s->prev);
  vs_free(s->vel);
  vs_free(s->scalar);
  vs_free(s->link_scalar);
  vs_free(s->radius);
  vs_free(s->rest);
  vs_free(s->rpos);
  vs_free(s->rquat);
  vs_free(s->alive);
  vs_free(s->link_alive);
  vs_free(s->tri_alive);
  vs_free(s->tri_edge);
  vs_free(s->shapes);
  vs_free(s->hull_tri);
}

void vs_renderer_free(vs_renderer *r) {
  if (!r) return;
  side_free(&r->a);
  side_free(&r->g);
  vs_free(r->coll);
  vs_free(r);
}

static int cmp3(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  for (int i = 0; i < 3; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* Each triangle edge's link (so that a torn link opens its triangles). */
static int map_tri_edges(side *s) {
  const vs_frames_topology *t = s->t;
  int64_t *k = vs_malloc((s->M + 1) * 3 * sizeof *k);
  if (!k) return -1;
  for (size_t l = 0; l < s->M; l++) {
    int32_t p = t->links[2 * l], q = t->links[2 * l + 1];
    k[3 * l] = p < q ? p : q, k[3 * l + 1] = p < q ? q : p, k[3 * l + 2] = (int64_t)l;
  }
  qsort(k, s->M, 3 * sizeof *k, cmp3);
  for (size_t i = 0; i < s->T; i++)
    for (int e = 0; e < 3; e++) {
      int32_t p = t->tris[3 * i + e], q = t->tris[3 * i + (e + 1) % 3];
      int64_t lo = p < q ? p : q, hi = p < q ? q : p;
      size_t a = 0, b = s->M;
      while (a < b) {
        size_t m = (a + b) / 2;
        if (k[3 * m] < lo || (k[3 * m] == lo && k[3 * m + 1] < hi))
          a = m + 1;
        else
          b = m;
      }
      s->tri_edge[3 * i + e] =
          a < s->M && k[3 * a] == lo && k[3 * a + 1] == hi ? (int32_t)k[3 * a + 2] : -1;
    }
  vs_free(k);
  return 0;
}

/* Particles without a radius get r (so that a rope of radius 0 still shows
 * its beads). */
static void side_default_radius(side *s, double r) {
  for (size_t i = 0; i < s->N; i++) {
    double ri = s->t->radius ? s->t->radius[i] : 0;
    s->radius[i] = isfinite(ri) && ri > 0 ? ri : r;
  }
}

static vs_status side_init(side *s, vs_frames *f, double radius_default, int32_t body_base,
                           vs_error *err) {
  memset(s, 0, sizeof *s);
  s->f = f;
  s->t = vs_frames_topo(f);
  s->N = s->t->n_particles, s->M = s->t->n_links, s->T = s->t->n_tris, s->B = s->t->n_rigid;
  s->body_base = body_base;
  size_t N = s->N + 1, M = s->M + 1;
  s->pos = vs_malloc(3 * N * sizeof(double));
  s->prev = vs_malloc(3 * N * sizeof(double));
  s->vel = vs_malloc(3 * N * sizeof(double));
  s->scalar = vs_malloc(N * sizeof(double));
  s->radius = vs_malloc(N * sizeof(double));
  s->link_scalar = vs_malloc(M * sizeof(double));
  s->rest = vs_malloc(M * sizeof(double));
  s->link_alive = vs_malloc(M);
  s->alive = vs_malloc(s->t->n_alive + 1);
  s->tri_alive = vs_malloc(s->T + 1);
  s->tri_edge = vs_malloc((3 * s->T + 1) * sizeof(int32_t));
  s->rpos = vs_malloc((3 * s->B + 1) * sizeof(double));
  s->rquat = vs_malloc((4 * s->B + 1) * sizeof(double));
  s->shapes = vs_calloc(s->B + 1, sizeof *s->shapes);
  s->hull_tri = vs_malloc((3 * s->t->n_hull_triangles + 1) * sizeof(int32_t));
  for (size_t i = 0; s->hull_tri && s->t->hull_range && i < s->B; i++) {
    const int32_t *g = s->t->hull_range + 4 * i;
    for (size_t q = 3 * (size_t)g[2]; q < 3 * ((size_t)g[2] + (size_t)g[3]); q++)
      s->hull_tri[q] = s->t->hull_triangles[q] - g[0];
  }
  if (!s->hull_tri ||
      !s->pos || !s->prev || !s->vel || !s->scalar || !s->radius || !s->link_scalar ||
      !s->rest || !s->link_alive || !s->alive || !s->tri_alive || !s->tri_edge || !s->rpos ||
      !s->rquat || !s->shapes || map_tri_edges(s) < 0)
    return nomem(err, f);
  side_default_radius(s, radius_default);
  /* rest lengths: the links' lengths at frame 0 */
  vs_status st = vs_frames_position(f, 0, s->pos, err);
  if (st != VS_OK) return st;
  for (size_t l = 0; l < s->M; l++) {
    const double *p = s->pos + 3 * s->t->links[2 * l], *q = s->pos + 3 * s->t->links[2 * l + 1];
    s->rest[l] = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                      (p[2] - q[2]) * (p[2] - q[2]));
  }
  return VS_OK;
}

/* Load frame k of s into its buffers and describe it in fr. */
static vs_status side_frame(side *s, size_t k, vs_render_color color, vs_view_frame *fr,
                            vs_error *err) {
  vs_frames *f = s->f;
  vs_status st = vs_frames_position(f, k, s->pos, err);
  if (st == VS_OK) st = vs_frames_alive(f, k, s->alive, err);
  if (st == VS_OK && s->B) st = vs_frames_rigid(f, k, s->rpos, s->rquat, err);
  if (st != VS_OK) return st;
  const vs_frames_topology *t = s->t;
  for (size_t l = 0; l < s->M; l++) {
    int32_t slot = t->link_slot ? t->link_slot[l] : -1;
    s->link_alive[l] = slot >= 0 && (size_t)slot < t->n_alive ? (s->alive[slot] != 0) : 1;
  }
  for (size_t i = 0; i < s->T; i++) {
    uint8_t al = 1;
    for (int e = 0; e < 3; e++) {
      int32_t l = s->tri_edge[3 * i + e];
      if (l >= 0 && !s->link_alive[l]) al = 0;
    }
    s->tri_alive[i] = al;
  }
  int scalar = 0;
  if (color == VS_RENDER_SPEED && s->N) {
    if (vs_frames_has_velocity(f)) {
      if ((st = vs_frames_velocity(f, k, s->vel, err)) != VS_OK) return st;
    } else {
      /* from consecutive positions: (x_k - x_j) / (t_k - t_j) */
      size_t F = vs_frames_count(f), j = k > 0 ? k - 1 : (F > 1 ? 1 : 0);
      double dt = vs_frames_time(f, k) - vs_frames_time(f, j);
      if (j != k && dt != 0) {
        if ((st = vs_frames_position(f, j, s->prev, err)) != VS_OK) return st;
        for (size_t i = 0; i < 3 * s->N; i++) s->vel[i] = (s->pos[i] - s->prev[i]) / dt;
      } else {
        memset(s->vel, 0, 3 * s->N * sizeof(double));
      }
    }
    vs_view_speed(s->N, s->vel, s->scalar);
    scalar = 1;
  } else if (color == VS_RENDER_STRAIN) {
    vs_view_strain(s->N, s->pos, s->M, t->links, s->rest, s->link_alive, s->link_scalar,
                   s->scalar);
    for (size_t l = 0; l < s->M; l++) s->link_scalar[l] = fabs(s->link_scalar[l]);
    scalar = 1;
  }
  for (size_t i = 0; i < s->B; i++) {
    vs_view_shape *sh = &s->shapes[i];
    const double *sz = t->rigid_size + 3 * i;
    memset(sh, 0, sizeof *sh);
    memcpy(sh->center, s->rpos + 3 * i, sizeof sh->center);
    memcpy(sh->quat, s->rquat + 4 * i, sizeof sh->quat);
    sh->body = s->body_base + (int32_t)i;
    switch ((vs_rigid_shape)t->rigid_shape[i]) { /* values checked by the reader (io/read/frames.c) */
      case VS_RIGID_SPHERE: sh->kind = VS_VIEW_SPHERE, sh->radius = sz[0]; break;
      case VS_RIGID_CAPSULE:
        sh->kind = VS_VIEW_CAPSULE, sh->radius = sz[0], sh->half_length = 0.5 * sz[1];
        break;
      case VS_RIGID_BOX:
        sh->kind = VS_VIEW_BOX;
        for (int j = 0; j < 3; j++) sh->half[j] = 0.5 * sz[j];
        break;
      case VS_RIGID_CONVEX: { /* its hull from the file (ranges checked by the reader) */
        const int32_t *g = t->hull_range + 4 * i;
        sh->kind = VS_VIEW_HULL;
        for (int j = 0; j < 3; j++) sh->half[j] = 0.5 * sz[j];
        sh->hull_v = t->hull_vertices + 3 * (size_t)g[0];
        sh->hull_nv = g[1];
        sh->hull_tri = s->hull_tri + 3 * (size_t)g[2];
        sh->hull_nt = g[3];
        break;
      }
    }
  }
  memset(fr, 0, sizeof *fr);
  fr->n_particles = s->N;
  fr->pos = s->pos;
  fr->radius = s->radius;
  fr->body = t->body;
  fr->scalar = scalar ? s->scalar : NULL;
  fr->n_links = s->M;
  fr->links = t->links;
  fr->link_scalar = color == VS_RENDER_STRAIN ? s->link_scalar : NULL;
  fr->link_alive = t->link_slot ? s->link_alive : NULL;
  fr->n_tris = s->T;
  fr->tris = t->tris;
  fr->tri_alive = t->link_slot ? s->tri_alive : NULL;
  fr->n_shapes = s->B;
  fr->shapes = s->shapes;
  fr->time = vs_frames_time(f, k);
  return VS_OK;
}

/* The largest speed or strain over every frame, for one colour scale. */
static vs_status scalar_max(side *s, vs_render_color color, double *mx, vs_error *err) {
  vs_view_frame fr;
  for (size_t k = 0; k < vs_frames_count(s->f); k++) {
    vs_status st = side_frame(s, k, color, &fr, err);
    if (st != VS_OK) return st;
    for (size_t i = 0; i < s->N; i++)
      if (isfinite(s->scalar[i])) *mx = fmax(*mx, s->scalar[i]);
  }
  return VS_OK;
}

/* Grow [lo, hi] by the focus box of every frame of s. */
static vs_status run_focus(side *s, double lo[3], double hi[3], vs_error *err) {
  vs_view_frame fr;
  for (size_t k = 0; k < vs_frames_count(s->f); k++) {
    vs_status st = side_frame(s, k, VS_RENDER_BODY, &fr, err);
    if (st != VS_OK) return st;
    if (vs_view_focus_add(&fr, lo, hi) < 0) return nomem(err, s->f);
  }
  return VS_OK;
}

/* The colliders join the box (those about its size), and a box with
 * nothing finite in it becomes [-1, 1]^3. */
static void finish_box(const vs_renderer *r, double lo[3], double hi[3]) {
  vs_view_frame cf = {.n_colliders = r->n_coll, .colliders = r->coll};
  vs_view_focus_colliders(&cf, lo, hi);
  for (int j = 0; j < 3; j++)
    if (!(lo[j] <= hi[j]) || !isfinite(lo[j]) || !isfinite(hi[j])) {
      for (int c = 0; c < 3; c++) lo[c] = -1, hi[c] = 1;
      break;
    }
}

/* Point the camera: from the options' camera position towards the image
 * centre (the look-at point, else the box's centre). */
static vs_status aim(vs_renderer *r, vs_error *err) {
  if (!r->o.has_camera) return VS_OK;
  const double *c = r->o.look_at, *e = r->o.camera;
  double mid[3];
  if (!r->o.has_look_at) {
    for (int j = 0; j < 3; j++) mid[j] = 0.5 * (r->vo.lo[j] + r->vo.hi[j]);
    c = mid;
  }
  double d[3] = {e[0] - c[0], e[1] - c[1], e[2] - c[2]};
  if (!(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > 0) || !isfinite(d[0] + d[1] + d[2]))
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "the camera at %g,%g,%g is the point it looks at: no direction", e[0],
                        e[1], e[2]);
  memcpy(r->vo.eye, d, sizeof d);
  return VS_OK;
}

vs_status vs_renderer_new(vs_frames *f, vs_frames *golden, const vs_render_opts *o,
                          vs_renderer **out, vs_error *err) {
  *out = NULL;
  vs_status dr = vs_frames_check_drawable(f, err);
  if (dr == VS_OK && golden) dr = vs_frames_check_drawable(golden, err);
  if (dr != VS_OK) return dr;
  if (o->width < 1 || o->height < 1 || o->width > 16384 || o->height > 16384)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "image size %dx%d out of range (1 to 16384 pixels each way)", o->width,
                        o->height);
  vs_renderer *r = vs_calloc(1, sizeof *r);
  if (!r) return nomem(err, f);
  r->o = *o;
  vs_view_options_init(&r->vo);
  r->vo.width = o->width;
  r->vo.height = o->height;
  r->vo.view = o->view == VS_RENDER_FRONT  ? VS_VIEW_FRONT
               : o->view == VS_RENDER_SIDE ? VS_VIEW_SIDE
               : o->view == VS_RENDER_TOP  ? VS_VIEW_TOP
                                           : VS_VIEW_ISO;
  r->vo.color = o->color == VS_RENDER_BODY ? VS_VIEW_COLOR_BODY : VS_VIEW_COLOR_SCALAR;
  r->vo.zoom = o->zoom;
  r->vo.has_center = o->has_look_at;
  memcpy(r->vo.center, o->look_at, sizeof r->vo.center);
  /* rigid bodies after the particle bodies in the palette */
  int32_t base = 0;
  const vs_frames_topology *t = vs_frames_topo(f);
  for (size_t i = 0; t->body && i < t->n_particles; i++)
    if (t->body[i] + 1 > base) base = t->body[i] + 1;
  /* particles without a radius count as points for the box; they get a
   * radius from its size below */
  vs_status st = side_init(&r->a, f, 0, base, err);
  if (st == VS_OK && golden) {
    r->has_golden = 1;
    st = side_init(&r->g, golden, 0, base, err);
  }
  if (st == VS_OK) {
    r->coll = vs_calloc(t->n_colliders + 1, sizeof *r->coll);
    if (!r->coll) st = nomem(err, f);
  }
  if (st == VS_OK) r->n_coll = t->n_colliders;
  for (size_t i = 0; st == VS_OK && i < t->n_colliders; i++) {
    const vs_frames_collider *c = &t->colliders[i];
    vs_view_collider *v = &r->coll[i];
    v->kind = c->kind == VS_FRAMES_PLANE    ? VS_VIEW_COLL_PLANE
              : c->kind == VS_FRAMES_SPHERE ? VS_VIEW_COLL_SPHERE
              : c->kind == VS_FRAMES_BOX    ? VS_VIEW_COLL_BOX
              : c->kind == VS_FRAMES_BOUNDS ? VS_VIEW_COLL_BOUNDS
                                            : VS_VIEW_COLL_MESH;
    memcpy(v->point, c->point, sizeof v->point);
    memcpy(v->normal, c->normal, sizeof v->normal);
    memcpy(v->center, c->center, sizeof v->center);
    v->radius = c->radius;
    memcpy(v->lo, c->lo, sizeof v->lo);
    memcpy(v->hi, c->hi, sizeof v->hi);
    v->n_vertices = c->n_vertices;
    v->n_tris = c->n_tris;
    v->vertices = c->vertices;
    v->tris = c->tris;
  }
  /* the box over the run: the camera of --fit run, the particles' default
   * radius and the box of a frame that has no finite body */
  double *lo = r->run_lo, *hi = r->run_hi;
  vs_view_bounds_init(lo, hi);
  if (st == VS_OK) st = run_focus(&r->a, lo, hi, err);
  if (st == VS_OK && golden) st = run_focus(&r->g, lo, hi, err);
  if (st == VS_OK) {
    finish_box(r, lo, hi);
    memcpy(r->vo.lo, lo, sizeof r->vo.lo);
    memcpy(r->vo.hi, hi, sizeof r->vo.hi);
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double rdef = 0.004 * (diag > 0 ? diag : 1);
    side_default_radius(&r->a, rdef);
    if (golden) side_default_radius(&r->g, rdef);
    st = aim(r, err);
  }
  if (st == VS_OK && o->color != VS_RENDER_BODY) {
    double mx = 0;
    st = scalar_max(&r->a, o->color, &mx, err);
    r->vo.scalar_min = 0;
    r->vo.scalar_max = mx > 0 ? mx : 1;
  }
  if (st != VS_OK) {
    vs_renderer_free(r);
    return st;
  }
  *out = r;
  return VS_OK;
}

static vs_status frames_for(vs_renderer *r, size_t k, vs_view_frame *fr, vs_view_frame *gf,
                            vs_error *err) {
  vs_status st = side_frame(&r->a, k, r->o.color, fr, err);
  if (st != VS_OK) return st;
  fr->n_colliders = r->n_coll;
  fr->colliders = r->coll;
  size_t F = vs_frames_count(r->a.f);
  if (r->has_golden) {
    size_t gk = vs_frames_at_time(r->g.f, vs_frames_time(r->a.f, k));
    if ((st = side_frame(&r->g, gk, VS_RENDER_BODY, gf, err)) != VS_OK) return st;
  }
  if (r->o.fit == VS_RENDER_FIT_FRAME) {
    double lo[3], hi[3];
    vs_view_bounds_init(lo, hi);
    int a1 = vs_view_focus_add(fr, lo, hi), a2 = r->has_golden ? vs_view_focus_add(gf, lo, hi) : 0;
    if (a1 < 0 || a2 < 0) return nomem(err, r->a.f);
    if (lo[0] <= hi[0]) {
      finish_box(r, lo, hi);
    } else { /* nothing finite in this frame: the run's box */
      memcpy(lo, r->run_lo, sizeof lo);
      memcpy(hi, r->run_hi, sizeof hi);
    }
    memcpy(r->vo.lo, lo, sizeof lo);
    memcpy(r->vo.hi, hi, sizeof hi);
    if ((st = aim(r, err)) != VS_OK) return st;
  }
  if (r->has_golden) {
    snprintf(r->label, sizeof r->label, "frame %zu/%zu, grey: %s", k, F - 1,
             vs_view_base_name(vs_frames_path(r->g.f)));
  } else {
    snprintf(r->label, sizeof r->label, "frame %zu/%zu", k, F - 1);
  }
  r->vo.label = r->label;
  return VS_OK;
}

vs_status vs_renderer_write(vs_renderer *r, size_t k, const char *path, vs_error *err) {
  vs_view_frame fr, gf;
  /* the picture never replaces a file it is drawn from */
  const char *const inputs[] = {vs_frames_path(r->a.f), r->has_golden ? vs_frames_path(r->g.f) : NULL,
                                NULL};
  vs_status st = frames_for(r, k, &fr, &gf, err);
  r->vo.format = vs_view_format_of(r->o.format);
  if (st == VS_OK)
    st = vs_view_render_file(&r->vo, &fr, r->has_golden ? &gf : NULL, path, inputs, err);
  return st;
}

vs_status vs_renderer_png(vs_renderer *r, size_t k, const char *path, vs_error *err) {
  vs_view_frame fr, gf;
  /* the picture never replaces a file it is drawn from */
  const char *const inputs[] = {vs_frames_path(r->a.f), r->has_golden ? vs_frames_path(r->g.f) : NULL,
                                NULL};
  vs_status st = frames_for(r, k, &fr, &gf, err);
  if (st == VS_OK)
    st = vs_view_render_png(&r->vo, &fr, r->has_golden ? &gf : NULL, path, inputs, err);
  return st;
}

vs_status vs_renderer_rgb(vs_renderer *r, size_t k, uint8_t *rgb, vs_error *err) {
  vs_view_frame fr, gf;
  vs_status st = frames_for(r, k, &fr, &gf, err);
  if (st == VS_OK) st = vs_view_render_rgb(&r->vo, &fr, r->has_golden ? &gf : NULL, rgb, err);
  if (st != VS_OK && !err->file[0])
    snprintf(err->file, sizeof err->file, "%s", vs_frames_path(r->a.f));
  return st;
}

void vs_render_cleanup(void) {
  if (!vs_view_cairo_loaded()) return; /* nothing drew: cairo was never loaded */
  cairo_debug_reset_static_data();
  void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
  if (fc_fini) fc_fini();
}
