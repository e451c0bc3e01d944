/* result.c: drawing result files (vsim/render.h): the frames reader
 * (vsim/frames.h) feeding the array-based drawing of view.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
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
  /* a particle without a radius gets the default, so that a rope of
   * radius 0 still shows its beads */
  for (size_t i = 0; i < s->N; i++) {
    double r = s->t->radius ? s->t->radius[i] : 0;
    s->radius[i] = isfinite(r) && r > 0 ? r : radius_default;
  }
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
  double lo[3], hi[3];
  vs_status st = vs_frames_bounds(f, lo, hi, err);
  if (st == VS_OK && golden) {
    double glo[3], ghi[3];
    st = vs_frames_bounds(golden, glo, ghi, err);
    for (int j = 0; st == VS_OK && j < 3; j++) lo[j] = fmin(lo[j], glo[j]), hi[j] = fmax(hi[j], ghi[j]);
  }
  if (st != VS_OK) {
    vs_renderer_free(r);
    return st;
  }
  memcpy(r->vo.lo, lo, sizeof lo);
  memcpy(r->vo.hi, hi, sizeof hi);
  double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double rdef = 0.004 * (diag > 0 ? diag : 1);
  /* rigid bodies after the particle bodies in the palette */
  int32_t base = 0;
  const vs_frames_topology *t = vs_frames_topo(f);
  for (size_t i = 0; t->body && i < t->n_particles; i++)
    if (t->body[i] + 1 > base) base = t->body[i] + 1;
  st = side_init(&r->a, f, rdef, base, err);
  if (st == VS_OK && golden) {
    r->has_golden = 1;
    st = side_init(&r->g, golden, rdef, base, err);
  }
  if (st == VS_OK) {
    r->coll = vs_calloc(t->n_colliders + 1, sizeof *r->coll);
    if (!r->coll) st = nomem(err, f);
  }
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
  fr->n_colliders = vs_frames_topo(r->a.f)->n_colliders;
  fr->colliders = r->coll;
  size_t F = vs_frames_count(r->a.f);
  if (r->has_golden) {
    size_t gk = vs_frames_at_time(r->g.f, vs_frames_time(r->a.f, k));
    if ((st = side_frame(&r->g, gk, VS_RENDER_BODY, gf, err)) != VS_OK) return st;
    snprintf(r->label, sizeof r->label, "frame %zu/%zu, grey: %s", k, F - 1,
             base_name(vs_frames_path(r->g.f)));
  } else {
    snprintf(r->label, sizeof r->label, "frame %zu/%zu", k, F - 1);
  }
  r->vo.label = r->label;
  return VS_OK;
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

vs_status vs_plot_files(const vs_plot_request *q, const char *path, vs_error *err) {
  const char *const *names = q->series ? q->series : vs_plot_default_series;
  size_t nn = q->series ? q->n_series : 3;
  size_t cap = q->n_files * nn + 1;
  vs_plot_series *s = vs_calloc(cap, sizeof *s);
  double **bufs = vs_calloc(2 * cap, sizeof *bufs);
  char **legend = vs_calloc(cap, sizeof *legend);
  const char **inputs = vs_calloc(q->n_files + 1, sizeof *inputs); /* never replaced */
  vs_status st = VS_OK;
  if (!s || !bufs || !legend || !inputs)
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  for (size_t fi = 0; inputs && fi < q->n_files; fi++) inputs[fi] = vs_frames_path(q->files[fi]);
  size_t ns = 0;
  char unit[16] = "", avail[1500];
  int mixed = 0;
  for (size_t fi = 0; st == VS_OK && fi < q->n_files; fi++) {
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
      const char *lab = q->labels && q->labels[fi] ? q->labels[fi] : vs_frames_path(f);
      size_t len = strlen(lab) + strlen(names[j]) + 4;
      legend[ns] = vs_malloc(len);
      if (!legend[ns]) {
        st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
        break;
      }
      if (q->n_files > 1)
        snprintf(legend[ns], len, "%s: %s", lab, names[j]);
      else
        snprintf(legend[ns], len, "%s", names[j]);
      const char *u = vs_frames_series_unit(f, (size_t)i);
      if (ns == 0)
        snprintf(unit, sizeof unit, "%s", u);
      else if (strcmp(unit, u) != 0)
        mixed = 1;
      s[ns].name = legend[ns];
      s[ns].n = n;
      s[ns].x = bufs[2 * ns];
      s[ns].y = bufs[2 * ns + 1];
      s[ns].color = (int)ns;
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
  if (st == VS_OK) {
    vs_plot_options o;
    vs_plot_options_init(&o);
    o.width = q->width;
    o.height = q->height;
    o.yscale = q->yscale == VS_PLOT_Y_LOG      ? VS_PLOT_LOG
               : q->yscale == VS_PLOT_Y_LINEAR ? VS_PLOT_LINEAR
                                               : VS_PLOT_AUTO;
    char ylabel[64];
    if (!mixed && unit[0] && strcmp(unit, "1") != 0)
      snprintf(ylabel, sizeof ylabel, "value [%s]", unit);
    else
      snprintf(ylabel, sizeof ylabel, "value");
    o.ylabel = ylabel;
    o.title = q->n_files == 1 ? base_name(q->labels && q->labels[0] ? q->labels[0]
                                                                    : vs_frames_path(q->files[0]))
                              : NULL;
    st = vs_plot_png(&o, s, ns, path, inputs, err);
  }
  vs_free(inputs);
  for (size_t i = 0; bufs && i < 2 * cap; i++) vs_free(bufs[i]);
  for (size_t i = 0; legend && i < cap; i++) vs_free(legend[i]);
  vs_free(bufs);
  vs_free(legend);
  vs_free(s);
  return st;
}

void vs_render_cleanup(void) {
  if (!vs_view_cairo_loaded()) return; /* nothing drew: cairo was never loaded */
  cairo_debug_reset_static_data();
  void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
  if (fc_fini) fc_fini();
}
