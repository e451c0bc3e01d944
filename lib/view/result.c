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
  if (!s->pos || !s->prev || !s->vel || !s->scalar || !s->radius || !s->link_scalar ||
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

static const char *base_name(const char *p) {
  const char *b = strrchr(p, '/');
  return b && b[1] ? b + 1 : p;
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
             base_name(vs_frames_path(r->g.f)));
  } else {
    snprintf(r->label, sizeof r->label, "frame %zu/%zu", k, F - 1);
  }
  r->vo.label = r->label;
  return VS_OK;
}

static vs_view_format view_format(vs_render_format f) {
  return f == VS_RENDER_SVG ? VS_VIEW_SVG : f == VS_RENDER_PDF ? VS_VIEW_PDF : VS_VIEW_PNG;
}

vs_status vs_renderer_write(vs_renderer *r, size_t k, const char *path, vs_error *err) {
  vs_view_frame fr, gf;
  vs_status st = frames_for(r, k, &fr, &gf, err);
  r->vo.format = view_format(r->o.format);
  if (st == VS_OK) st = vs_view_render_file(&r->vo, &fr, r->has_golden ? &gf : NULL, path, err);
  return st;
}

vs_status vs_renderer_png(vs_renderer *r, size_t k, const char *path, vs_error *err) {
  vs_view_frame fr, gf;
  vs_status st = frames_for(r, k, &fr, &gf, err);
  if (st == VS_OK) st = vs_view_render_png(&r->vo, &fr, r->has_golden ? &gf : NULL, path, err);
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

/* ---- plot ----------------------------------------------------------------- */

static const char *const vs_plot_default_series[3] = {"constraint_error_max", "penetration_max",
                                                "energy_kinetic"};

/* "the file has: a, b, c" into buf */
static void available(const vs_frames *f, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "it has: ");
  size_t n = vs_frames_series_count(f);
  for (size_t i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                             vs_frames_series_name(f, i));
  if (!n) snprintf(buf, size, "it has no observables");
}

/* ---- the points of a sweep ------------------------------------------------ */

/* The KEY=VALUE of each `--set` in a file's recorded command line
 * (/parameters/vsim command, shell-quoted: words, '...' and '\''), which is
 * how `vsim sweep` runs each point: n pairs into kv, pointing into the
 * returned buffer (vs_free), NULL when the file has no command. */
static char *set_pairs(const vs_frames *f, const char **kv, size_t max, size_t *n) {
  *n = 0;
  char *cmd = NULL;
  vs_error ig;
  vs_error_clear(&ig);
  if (vs_h5_read_parameter(vs_frames_path(f), "command", &cmd, &ig) != VS_OK || !cmd) return NULL;
  size_t len = strlen(cmd);
  char *buf = vs_malloc(2 * len + 2), *o = buf;
  const char **words = vs_malloc((len + 1) * sizeof *words);
  size_t nw = 0;
  if (!buf || !words) {
    vs_free(buf);
    vs_free(words);
    vs_free_buffer(cmd);
    return NULL;
  }
  for (const char *c = cmd; *c;) {
    while (*c == ' ') c++;
    if (!*c) break;
    words[nw++] = o;
    while (*c && *c != ' ') {
      if (*c == '\'') {
        for (c++; *c && *c != '\''; c++) *o++ = *c;
        if (*c) c++;
      } else if (*c == '\\' && c[1]) {
        *o++ = c[1];
        c += 2;
      } else {
        *o++ = *c++;
      }
    }
    *o++ = '\0';
  }
  for (size_t i = 0; i < nw && *n < max; i++) {
    const char *v = NULL;
    if (strcmp(words[i], "--set") == 0 && i + 1 < nw)
      v = words[++i];
    else if (strncmp(words[i], "--set=", 6) == 0)
      v = words[i] + 6;
    if (v && strchr(v, '=')) kv[(*n)++] = v;
  }
  vs_free(words);
  vs_free_buffer(cmd);
  return buf;
}

/* kv's value for key (of length kl) among a file's pairs, or NULL. */
static const char *value_of(const char *const *kv, size_t n, const char *key, size_t kl) {
  for (size_t m = 0; m < n; m++)
    if (strncmp(kv[m], key, kl) == 0 && kv[m][kl] == '=') return kv[m] + kl + 1;
  return NULL;
}

/* Each file's legend name: with several files, the `--set` parameters that
 * differ between them, each by the last part of its key when no other
 * differing key ends alike ("iterations=5, relaxation=jacobi"); else (or
 * with one file) the name given, else the path. */
static vs_status file_labels(const vs_plot_request *q, char **out, vs_error *err, const char *path) {
  enum { MAXKV = 64 };
  size_t nf = q->n_files;
  char **bufs = vs_calloc(nf + 1, sizeof *bufs);
  const char **kv = vs_calloc((nf + 1) * MAXKV, sizeof *kv);
  size_t *nkv = vs_calloc(nf + 1, sizeof *nkv);
  const char **vary = vs_calloc(nf * MAXKV + 1, sizeof *vary); /* "key=..." of each varying key */
  size_t *vlen = vs_calloc(nf * MAXKV + 1, sizeof *vlen), nv = 0;
  vs_status st = VS_OK;
  if (!bufs || !kv || !nkv || !vary || !vlen)
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  for (size_t i = 0; st == VS_OK && nf > 1 && i < nf; i++)
    bufs[i] = set_pairs(q->files[i], kv + i * MAXKV, MAXKV, &nkv[i]);
  /* the keys that vary: some file lacks them or gives another value */
  for (size_t i = 0; st == VS_OK && i < nf; i++)
    for (size_t k = 0; k < nkv[i]; k++) {
      const char *me = kv[i * MAXKV + k];
      size_t kl = (size_t)(strchr(me, '=') - me);
      int seen = 0, varies = 0;
      for (size_t v = 0; v < nv && !seen; v++) seen = vlen[v] == kl && strncmp(vary[v], me, kl) == 0;
      for (size_t j = 0; j < nf && !varies && !seen; j++) {
        const char *other = value_of(kv + j * MAXKV, nkv[j], me, kl);
        varies = !other || strcmp(other, me + kl + 1) != 0;
      }
      if (varies && !seen) vary[nv] = me, vlen[nv++] = kl;
    }
  for (size_t i = 0; st == VS_OK && i < nf; i++) {
    size_t cap = 1, used = 0;
    for (size_t k = 0; k < nkv[i]; k++) cap += strlen(kv[i * MAXKV + k]) + 2;
    char *lab = vs_malloc(cap);
    if (!lab) {
      st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
      break;
    }
    lab[0] = '\0';
    for (size_t v = 0; v < nv; v++) {
      const char *val = value_of(kv + i * MAXKV, nkv[i], vary[v], vlen[v]);
      if (!val) continue;
      /* the key's last part, when no other varying key has that last part */
      const char *key = vary[v];
      size_t kl = vlen[v];
      const char *dot = memrchr(key, '.', kl);
      if (dot) {
        size_t sl = kl - (size_t)(dot + 1 - key);
        int clash = 0;
        for (size_t w = 0; w < nv && !clash; w++) {
          if (w == v || vlen[w] < sl) continue;
          const char *tail = vary[w] + vlen[w] - sl;
          clash = strncmp(tail, dot + 1, sl) == 0 && (tail == vary[w] || tail[-1] == '.');
        }
        if (!clash) key = dot + 1, kl = sl;
      }
      used += (size_t)snprintf(lab + used, cap - used, "%s%.*s=%s", used ? ", " : "", (int)kl,
                               key, val);
    }
    if (!lab[0]) {
      const char *name = q->labels && q->labels[i] ? q->labels[i] : vs_frames_path(q->files[i]);
      vs_free(lab);
      lab = vs_malloc(strlen(name) + 1);
      if (!lab) {
        st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
        break;
      }
      strcpy(lab, name);
    }
    out[i] = lab;
  }
  for (size_t i = 0; bufs && i < nf; i++) vs_free(bufs[i]);
  vs_free(bufs);
  vs_free(kv);
  vs_free(nkv);
  vs_free(vary);
  vs_free(vlen);
  return st;
}

static int series_all_zero(const vs_plot_series *s) {
  int any = 0;
  for (size_t i = 0; i < s->n; i++)
    if (isfinite(s->y[i]) && isfinite(s->x[i])) {
      if (s->y[i] != 0) return 0;
      any = 1;
    }
  return any;
}

/* What a plot of q draws: its series, legend and options. */
typedef struct plot_prep {
  vs_plot_options o;
  vs_plot_series *s;
  size_t ns, cap, nf, nt;
  double **bufs;
  char **text; /* legend texts made here */
  char **flab; /* each file's label */
  int *name_of, *file_of;
  vs_plot_key *keys;
} plot_prep;

static void plot_release(plot_prep *p) {
  for (size_t i = 0; p->bufs && i < 2 * p->cap; i++) vs_free(p->bufs[i]);
  for (size_t i = 0; p->text && i < p->nt; i++) vs_free(p->text[i]);
  for (size_t i = 0; p->flab && i < p->nf; i++) vs_free(p->flab[i]);
  vs_free(p->bufs);
  vs_free(p->text);
  vs_free(p->flab);
  vs_free(p->name_of);
  vs_free(p->file_of);
  vs_free(p->keys);
  vs_free(p->s);
}

static vs_status plot_prepare(const vs_plot_request *q, plot_prep *p, const char *path,
                              vs_error *err) {
  memset(p, 0, sizeof *p);
  const char *const *names = q->series ? q->series : vs_plot_default_series;
  size_t nn = q->series ? q->n_series : 3, nf = q->n_files;
  size_t cap = nf * nn + 1;
  p->cap = cap, p->nf = nf;
  vs_plot_series *s = p->s = vs_calloc(cap, sizeof *s);
  double **bufs = p->bufs = vs_calloc(2 * cap, sizeof *bufs);
  char **text = p->text = vs_calloc(cap + nf + nn + 1, sizeof *text);
  char **flab = p->flab = vs_calloc(nf + 1, sizeof *flab);
  int *name_of = p->name_of = vs_calloc(cap, sizeof *name_of);
  int *file_of = p->file_of = vs_calloc(cap, sizeof *file_of);
  vs_plot_key *keys = p->keys = vs_calloc(nf + nn + 1, sizeof *keys);
  vs_status st = VS_OK;
  if (!s || !bufs || !text || !flab || !name_of || !file_of || !keys)
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  size_t ns = 0;
  size_t *nt = &p->nt;
  char avail[1500];
  int used[64] = {0}; /* which names some file has (the first 64) */
  for (size_t fi = 0; st == VS_OK && fi < nf; fi++) {
    vs_frames *f = q->files[fi];
    size_t found = 0;
    for (size_t j = 0; st == VS_OK && j < nn; j++) {
      long i = vs_frames_series_find(f, names[j]);
      if (i < 0) {
        if (!q->series) continue;
        available(f, avail, sizeof avail);
        st = vs_error_set(err, VS_ERR_USAGE, vs_frames_path(f), 0, 0, "no series '%s' (%s)",
                          names[j], avail);
        break;
      }
      size_t n;
      st = vs_frames_series_read(f, (size_t)i, &bufs[2 * ns], &bufs[2 * ns + 1], &n, err);
      if (st != VS_OK) break;
      s[ns].n = n;
      s[ns].x = bufs[2 * ns];
      s[ns].y = bufs[2 * ns + 1];
      s[ns].unit = vs_frames_series_unit(f, (size_t)i);
      s[ns].quantity = names[j];
      name_of[ns] = (int)j;
      file_of[ns] = (int)fi;
      if (j < 64) used[j] = 1;
      ns++;
      found++;
    }
    if (st == VS_OK && !found) {
      available(f, avail, sizeof avail);
      st = vs_error_set(err, VS_ERR_USAGE, vs_frames_path(f), 0, 0,
                        "none of the default series (%s, %s, %s); %s", vs_plot_default_series[0],
                        vs_plot_default_series[1], vs_plot_default_series[2], avail);
    }
  }
  if (st == VS_OK) st = file_labels(q, flab, err, path);
  vs_plot_options *o = &p->o;
  vs_plot_options_init(o);
  size_t n_used = 0;
  for (size_t j = 0; j < nn && j < 64; j++) n_used += used[j];
  if (st == VS_OK) {
    if (nf == 1) {
      /* one file: a colour per series */
      for (size_t k = 0; k < ns; k++) s[k].name = names[name_of[k]], s[k].color = (int)k;
    } else if (n_used <= 1) {
      /* one series of several files: a colour per file, named by its label */
      for (size_t k = 0; k < ns; k++) s[k].name = flab[file_of[k]], s[k].color = file_of[k];
    } else if (nf <= VS_PLOT_COLORS && nn <= 64) {
      /* several series of several files (a sweep's points): colour = file,
       * dash = series, and a legend of files then series */
      size_t nk = 0;
      for (size_t fi = 0; fi < nf; fi++) keys[nk++] = (vs_plot_key){flab[fi], (int)fi, 0};
      for (size_t j = 0; j < nn && st == VS_OK; j++) {
        if (!used[j]) continue;
        int zero = 1;
        for (size_t k = 0; k < ns; k++)
          if (name_of[k] == (int)j) zero &= series_all_zero(&s[k]);
        size_t len = strlen(names[j]) + 16;
        char *t = vs_malloc(len);
        if (!t) {
          st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
          break;
        }
        snprintf(t, len, "%s%s", names[j], zero ? " (all 0)" : "");
        text[(*nt)++] = t;
        keys[nk++] = (vs_plot_key){t, -1, (int)(j % 5)};
      }
      for (size_t k = 0; k < ns; k++) s[k].color = file_of[k], s[k].dash = name_of[k] % 5;
      o->keys = keys;
      o->n_keys = nk;
    } else {
      /* more files than colours: every curve its own entry */
      for (size_t k = 0; k < ns && st == VS_OK; k++) {
        const char *lab = flab[file_of[k]], *nm = names[name_of[k]];
        size_t len = strlen(lab) + strlen(nm) + 4;
        char *t = vs_malloc(len);
        if (!t) {
          st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
          break;
        }
        snprintf(t, len, "%s: %s", lab, nm);
        text[(*nt)++] = t;
        s[k].name = t;
        s[k].color = (int)k;
      }
    }
  }
  p->ns = ns;
  o->width = q->width;
  o->height = q->height;
  o->yscale = q->yscale == VS_PLOT_Y_LOG      ? VS_PLOT_LOG
              : q->yscale == VS_PLOT_Y_LINEAR ? VS_PLOT_LINEAR
                                              : VS_PLOT_AUTO;
  o->title = nf == 1 ? base_name(q->labels && q->labels[0] ? q->labels[0]
                                                           : vs_frames_path(q->files[0]))
                     : NULL;
  o->format = view_format(q->format);
  return st;
}

vs_status vs_plot_files(const vs_plot_request *q, const char *path, vs_error *err) {
  plot_prep p;
  vs_status st = plot_prepare(q, &p, path, err);
  if (st == VS_OK) st = vs_plot_file(&p.o, p.s, p.ns, path, err);
  plot_release(&p);
  return st;
}

vs_status vs_plot_describe(const vs_plot_request *q, char **json, vs_error *err) {
  *json = NULL;
  if (vs_view_cairo_load(err) != VS_OK) return err->code;
  plot_prep p;
  vs_status st = plot_prepare(q, &p, NULL, err);
  int *sp = st == VS_OK ? vs_calloc(p.ns + 1, sizeof *sp) : NULL;
  if (st == VS_OK && !sp) st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  if (st == VS_OK) {
    vs_plot_geometry g;
    g.series_panel = sp;
    vs_plot_layout(&p.o, p.s, p.ns, &g);
    static const char *const scales[] = {"auto", "linear", "log", "symlog"};
    vs_sbuf b = {0};
    vs_sbuf_puts(&b, "{\"panels\": [");
    for (size_t i = 0; i < g.n_panels; i++) {
      vs_sbuf_puts(&b, i ? ", {\"unit\": " : "{\"unit\": ");
      vs_sbuf_json(&b, g.unit[i]);
      vs_sbuf_puts(&b, ", \"label\": ");
      vs_sbuf_json(&b, g.label[i]);
      vs_sbuf_printf(&b, ", \"scale\": \"%s\", \"series\": [", scales[g.scale[i]]);
      int first = 1;
      for (size_t k = 0; k < p.ns; k++) {
        if (sp[k] != (int)i) continue;
        vs_sbuf_puts(&b, first ? "" : ", ");
        first = 0;
        char buf[600];
        snprintf(buf, sizeof buf, "%s%s%s", p.nf > 1 ? p.flab[p.file_of[k]] : "",
                 p.nf > 1 ? ": " : "", p.s[k].quantity);
        vs_sbuf_json(&b, buf);
      }
      vs_sbuf_puts(&b, "]}");
    }
    vs_sbuf_puts(&b, "], \"legend\": [");
    size_t nk = 0;
    for (size_t i = 0; p.o.keys && i < p.o.n_keys; i++, nk++) {
      vs_sbuf_puts(&b, nk ? ", " : "");
      vs_sbuf_json(&b, p.o.keys[i].text);
    }
    for (size_t k = 0; !p.o.keys && k < p.ns; k++) {
      if (!p.s[k].name) continue;
      char buf[600];
      snprintf(buf, sizeof buf, "%s%s", p.s[k].name, series_all_zero(&p.s[k]) ? " (all 0)" : "");
      vs_sbuf_puts(&b, nk++ ? ", " : "");
      vs_sbuf_json(&b, buf);
    }
    vs_sbuf_puts(&b, "]}\n");
    if (b.bad) {
      vs_sbuf_free(&b);
      st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
    } else {
      *json = b.p;
    }
  }
  vs_free(sp);
  plot_release(&p);
  return st;
}

void vs_render_cleanup(void) {
  if (!vs_view_cairo_loaded()) return; /* nothing drew: cairo was never loaded */
  cairo_debug_reset_static_data();
  void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
  if (fc_fini) fc_fini();
}
