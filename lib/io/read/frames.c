/* SPDX-License-Identifier: MIT */
/* frames.c: a result file frame by frame, for viewers (vsim/frames.h).
 *
 * Open reads the static parts (topology, times, the observables' names) and
 * keeps the datasets that change per frame open; a frame is one hyperslab
 * of each, converted to double by HDF5 (float32 files included). */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/read/frames_int.h"
#include "io/read/readall.h"
#include "io/h5util.h"
#include "model/rigid_model.h"
#include "util/alloc.h"
#include "vsim/alloc.h"
#include "vsim/frames.h"
#include "vsim/scene.h"

/* ---- small helpers -------------------------------------------------------- */

vs_status fr_ds_error(vs_frames *f, vs_error *err, const char *ds, const char *what) {
  char h5[256];
  vs_h5_error_text(h5, sizeof h5);
  return vs_error_set(err, VS_ERR_IO, f->path, 0, 0, "%s: %s: %s", ds, what, h5);
}

vs_status fr_shape_error(vs_frames *f, vs_error *err, const char *ds, const vs_h5_ds *x,
                             const char *want) {
  return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: shape %s, expected %s", ds,
                      x->shape, want);
}

vs_status fr_nomem(vs_frames *f, vs_error *err) {
  return vs_error_set(err, VS_ERR_NOMEM, f->path, 0, 0, "out of memory");
}

/* Open an optional dataset: 1 open, 0 absent, -1 error (filled). */
int fr_open_opt(vs_frames *f, const char *p, vs_h5_ds *x, vs_error *err) {
  x->d = x->type = x->space = H5I_INVALID_HID;
  if (!vs_h5_path_exists(f->h, p)) return 0;
  if (vs_h5_ds_open(f->h, p, x) < 0 ||
      (x->cls != H5T_INTEGER && x->cls != H5T_FLOAT)) {
    vs_h5_ds_close(x);
    x->d = x->type = x->space = H5I_INVALID_HID;
    vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: not a numeric dataset", p);
    return -1;
  }
  return 1;
}

/* A whole small dataset of `want_rank` with trailing dims `inner` (0 = any)
 * read as mtype into a new array; *rows = dims[0].  1 read, 0 absent, -1 error. */
int fr_read_all(vs_frames *f, const char *p, int want_rank, hsize_t inner, hid_t mtype,
                void **out, size_t *rows, vs_error *err) {
  *out = NULL;
  *rows = 0;
  vs_h5_ds x;
  int r = fr_open_opt(f, p, &x, err);
  if (r <= 0) return r;
  int rc = -1;
  if (x.rank != want_rank || (want_rank == 2 && inner && x.dims[1] != inner)) {
    char want[32];
    snprintf(want, sizeof want, want_rank == 1 ? "[n]" : "[n, %llu]", (unsigned long long)inner);
    fr_shape_error(f, err, p, &x, want);
    goto done;
  }
  hsize_t dims[2] = {x.dims[0], want_rank == 2 ? x.dims[1] : 1};
  uint64_t n = 0, bytes = 0;
  if (vs_h5g_mul(dims[0], dims[1], &n) != 0 || vs_h5g_mul(n, H5Tget_size(mtype), &bytes) != 0 ||
      bytes > SIZE_MAX - 1) {
    fr_shape_error(f, err, p, &x, "a size that can be held in memory");
    goto done;
  }
  char why[400];
  if (vs_rd_whole_ok(f->h, x.d, p, bytes, why, sizeof why) != 0) {
    vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s", why);
    goto done;
  }
  void *buf = vs_malloc(bytes ? (size_t)bytes : 1);
  if (!buf) {
    fr_nomem(f, err);
    goto done;
  }
  if (vs_rd_read_all(f->h, p, want_rank, dims, mtype, buf, (size_t)bytes, why, sizeof why) != 0) {
    vs_free(buf);
    vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s", why);
    goto done;
  }
  *out = buf;
  *rows = (size_t)x.dims[0];
  rc = 1;
done:
  vs_h5_ds_close(&x);
  return rc;
}

static vs_status check_frame(const vs_frames *f, size_t k, vs_error *err) {
  if (k < f->F) return VS_OK;
  return vs_error_set(err, VS_ERR_USAGE, f->path, 0, 0,
                      "frame %zu out of range: the file has frames 0 to %zu", k, f->F - 1);
}

/* Row k of a [F, n, c] or [F, n] dataset into buf. */
static vs_status read_row(vs_frames *f, const vs_h5_ds *x, const char *p, size_t k, hid_t mtype,
                          void *buf, vs_error *err) {
  vs_status st = check_frame(f, k, err);
  if (st != VS_OK) return st;
  if (k >= x->dims[0])
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: frame %zu missing (shape %s)", p,
                        k, x->shape);
  hsize_t start[3] = {k, 0, 0}, count[3] = {1, x->dims[1], x->rank == 3 ? x->dims[2] : 1};
  if (x->dims[1] == 0) return VS_OK;
  if (vs_h5_read_slab(x, start, count, mtype, buf) < 0) {
    char what[64];
    snprintf(what, sizeof what, "cannot read frame %zu", k);
    return fr_ds_error(f, err, p, what);
  }
  return VS_OK;
}

/* ---- topology ------------------------------------------------------------- */

static int link_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* Each link's column in the alive rows: the constraint of /solver/constraints
 * with the same two particles (the k-th link of a pair takes the k-th such
 * constraint, both in build order).  Without /solver/constraints the links
 * are the alive columns in order when the counts agree. */
static vs_status map_alive(vs_frames *f, vs_error *err) {
  size_t M = f->t.n_links;
  f->link_slot = vs_malloc((M ? M : 1) * sizeof *f->link_slot);
  if (!f->link_slot) return fr_nomem(f, err);
  for (size_t i = 0; i < M; i++) f->link_slot[i] = -1;
  void *cons = NULL;
  size_t nc = 0;
  int r = fr_read_all(f, "/solver/constraints", 2, 3, H5T_NATIVE_INT32, &cons,
                   &nc, err);
  if (r < 0) return err->code;
  if (r == 0) {
    if (M == f->t.n_alive)
      for (size_t i = 0; i < M; i++) f->link_slot[i] = (int32_t)i;
    return VS_OK;
  }
  const int32_t *c = cons;
  /* (lo, hi, index) for constraints with two particles, and for links */
  int64_t *a = vs_malloc((nc + M + 1) * 3 * sizeof *a);
  if (!a) {
    vs_free(cons);
    return fr_nomem(f, err);
  }
  int64_t *b = a + 3 * nc;
  size_t na = 0;
  for (size_t i = 0; i < nc && i < f->t.n_alive; i++) {
    if (c[3 * i] < 0 || c[3 * i + 1] < 0 || c[3 * i + 2] >= 0) continue;
    int32_t p = c[3 * i], q = c[3 * i + 1];
    a[3 * na] = p < q ? p : q, a[3 * na + 1] = p < q ? q : p, a[3 * na + 2] = (int64_t)i, na++;
  }
  for (size_t i = 0; i < M; i++) {
    int32_t p = f->links[2 * i], q = f->links[2 * i + 1];
    b[3 * i] = p < q ? p : q, b[3 * i + 1] = p < q ? q : p, b[3 * i + 2] = (int64_t)i;
  }
  qsort(a, na, 3 * sizeof *a, link_cmp);
  qsort(b, M, 3 * sizeof *b, link_cmp);
  for (size_t i = 0, j = 0; i < M && j < na;) {
    if (b[3 * i] == a[3 * j] && b[3 * i + 1] == a[3 * j + 1]) {
      f->link_slot[b[3 * i + 2]] = (int32_t)a[3 * j + 2];
      i++, j++;
    } else if (b[3 * i] < a[3 * j] || (b[3 * i] == a[3 * j] && b[3 * i + 1] < a[3 * j + 1])) {
      i++;
    } else {
      j++;
    }
  }
  vs_free(a);
  vs_free(cons);
  return VS_OK;
}

static vs_status check_index(vs_frames *f, const char *p, const int32_t *v, size_t n, int arity,
                             vs_error *err) {
  for (size_t i = 0; i < n * (size_t)arity; i++)
    if (v[i] >= 0 && (size_t)v[i] >= f->t.n_particles)
      return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: row %zu names particle %d of %zu",
                          p, i / (size_t)arity, (int)v[i], f->t.n_particles);
  return VS_OK;
}

/* Rows with a -1 (H5MD's fill value: an unused slot) are dropped. */
static size_t drop_unused(int32_t *v, size_t n, int arity) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int keep = 1;
    for (int j = 0; j < arity; j++) keep &= v[i * arity + j] >= 0;
    if (keep && m != i) memmove(v + m * arity, v + i * arity, (size_t)arity * sizeof *v);
    m += (size_t)keep;
  }
  return m;
}

/* The convex bodies' hulls (/particles/rigid/hull_*), when the file has
 * one: every range and index checked against the arrays. */
static vs_status load_hulls(vs_frames *f, size_t B, vs_error *err) {
  int any = 0;
  for (size_t i = 0; i < B; i++) any |= f->rigid_shape[i] == VS_RIGID_CONVEX;
  if (!any) return VS_OK;
  void *buf;
  size_t nr, nv, nt;
  int r;
  r = fr_read_all(f, "/particles/rigid/hull_range", 2, 4, H5T_NATIVE_INT32, &buf, &nr, err);
  if (r < 0) return err->code;
  f->hull_range = buf;
  if (!r || nr != B)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                        "/particles/rigid/hull_range: %s for %zu bodies",
                        r ? "wrong count" : "missing", B);
  r = fr_read_all(f, "/particles/rigid/hull_vertices", 2, 3, H5T_NATIVE_DOUBLE, &buf, &nv, err);
  if (r < 0) return err->code;
  f->hull_v = buf;
  if (!r)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "/particles/rigid/hull_vertices: missing");
  r = fr_read_all(f, "/particles/rigid/hull_triangles", 2, 3, H5T_NATIVE_INT32, &buf, &nt, err);
  if (r < 0) return err->code;
  f->hull_tri = buf;
  if (!r)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                        "/particles/rigid/hull_triangles: missing");
  for (size_t i = 0; i < B; i++) {
    const int32_t *g = f->hull_range + 4 * i;
    if (g[0] < 0 || g[1] < 0 || g[2] < 0 || g[3] < 0 || (size_t)g[0] + (size_t)g[1] > nv ||
        (size_t)g[2] + (size_t)g[3] > nt ||
        (f->rigid_shape[i] == VS_RIGID_CONVEX && (g[1] < 4 || g[3] < 4)))
      return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                          "/particles/rigid/hull_range: body %zu names vertices or triangles "
                          "outside the hull arrays", i);
    for (size_t t = (size_t)g[2]; t < (size_t)g[2] + (size_t)g[3]; t++)
      for (int k = 0; k < 3; k++)
        if (f->hull_tri[3 * t + k] < g[0] || f->hull_tri[3 * t + k] >= g[0] + g[1])
          return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                              "/particles/rigid/hull_triangles: triangle %zu names a vertex outside "
                              "its body's", t);
  }
  f->t.hull_range = f->hull_range;
  f->t.n_hull_vertices = nv;
  f->t.hull_vertices = f->hull_v;
  f->t.n_hull_triangles = nt;
  f->t.hull_triangles = f->hull_tri;
  return VS_OK;
}

static vs_status load_links(vs_frames *f, vs_error *err) {
  if (!vs_h5_path_exists(f->h, "/connectivity")) return VS_OK;
  vs_h5_path_list l = {0};
  const char *roots[] = {"/connectivity"};
  vs_status st = vs_h5_list_datasets(f->h, f->path, roots, 1, &l, err);
  for (size_t i = 0; st == VS_OK && i < l.n; i++) {
    const char *p = l.v[i];
    if (strncmp(p, "/connectivity/alive/", 20) == 0) continue;
    int tri = strcmp(p, "/connectivity/triangles") == 0;
    void *buf = NULL;
    size_t rows = 0;
    vs_h5_ds x;
    if (vs_h5_ds_open(f->h, p, &x) < 0 || x.rank != 2 || x.cls != H5T_INTEGER ||
        x.dims[1] != (tri ? 3u : 2u)) {
      if (tri) st = fr_shape_error(f, err, p, &x, "[T, 3] integers");
      vs_h5_ds_close(&x);
      continue; /* not a link list: some other dataset a later version adds */
    }
    vs_h5_ds_close(&x);
    int arity = tri ? 3 : 2;
    if (fr_read_all(f, p, 2, (hsize_t)arity, H5T_NATIVE_INT32, &buf,
                 &rows, err) < 0) {
      st = err->code;
      break;
    }
    st = check_index(f, p, buf, rows, arity, err);
    if (st != VS_OK) {
      vs_free(buf);
      break;
    }
    if (tri) {
      f->tris = buf;
      f->t.n_tris = drop_unused(buf, rows, 3);
      continue;
    }
    size_t keep = drop_unused(buf, rows, 2);
    int32_t *nl = vs_realloc(f->links, (f->t.n_links + keep + 1) * 2 * sizeof *nl);
    if (!nl) {
      vs_free(buf);
      st = fr_nomem(f, err);
      break;
    }
    memcpy(nl + 2 * f->t.n_links, buf, keep * 2 * sizeof *nl);
    f->links = nl;
    f->t.n_links += keep;
    vs_free(buf);
  }
  vs_h5_list_free(&l);
  return st;
}

static vs_status load(vs_frames *f, vs_error *err) {
  int r;
  /* particles */
  if ((r = fr_open_opt(f, POS_PATH, &f->pos, err)) < 0) return err->code;
  f->has_pos = r;
  if (f->has_pos && (f->pos.rank != 3 || f->pos.dims[2] != 3))
    return fr_shape_error(f, err, POS_PATH, &f->pos, "[F, N, 3]");
  if ((r = fr_open_opt(f, RPOS_PATH, &f->rpos, err)) < 0) return err->code;
  f->has_rigid = r;
  if (f->has_rigid) {
    if (f->rpos.rank != 3 || f->rpos.dims[2] != 3)
      return fr_shape_error(f, err, RPOS_PATH, &f->rpos, "[F, B, 3]");
    if ((r = fr_open_opt(f, RQUAT_PATH, &f->rquat, err)) < 0) return err->code;
    if (r == 0 || f->rquat.rank != 3 || f->rquat.dims[2] != 4 ||
        f->rquat.dims[1] != f->rpos.dims[1])
      return r == 0 ? vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: missing", RQUAT_PATH)
                    : fr_shape_error(f, err, RQUAT_PATH, &f->rquat, "[F, B, 4]");
  }
  /* no positions (output.fields without position): no frames to draw, but
   * the observables are there for plot; vs_frames_check_drawable says so */
  if (!f->has_pos && !f->has_rigid) return fr_load_series(f, err);
  const vs_h5_ds *main = f->has_pos ? &f->pos : &f->rpos;
  const char *tpath = f->has_pos ? "/particles/all/position/time" : "/particles/rigid/position/time";
  f->F = (size_t)main->dims[0];
  if (f->has_rigid && f->has_pos && f->rpos.dims[0] < f->F) f->F = (size_t)f->rpos.dims[0];
  if (f->F == 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: no frames recorded",
                        f->has_pos ? POS_PATH : RPOS_PATH);
  void *tbuf = NULL;
  size_t nt = 0;
  if ((r = fr_read_all(f, tpath, 1, 0, H5T_NATIVE_DOUBLE, &tbuf, &nt, err)) < 0)
    return err->code;
  if (r == 0 || nt < f->F) {
    vs_free(tbuf);
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: %s", tpath,
                        r == 0 ? "missing" : "fewer times than frames");
  }
  f->time = tbuf;
  f->t.n_particles = f->has_pos ? (size_t)f->pos.dims[1] : 0;
  if ((r = fr_open_opt(f, VEL_PATH, &f->vel, err)) < 0) return err->code;
  f->has_vel = r && f->vel.rank == 3 && f->vel.dims[1] == f->pos.dims[1] && f->vel.dims[2] == 3 &&
               f->vel.dims[0] >= f->F;

  void *buf;
  size_t n;
  if ((r = fr_read_all(f, "/particles/all/body", 1, 0, H5T_NATIVE_INT32, &buf, &n,
                    err)) < 0)
    return err->code;
  f->body = buf;
  if (r && n != f->t.n_particles)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                        "/particles/all/body: %zu entries for %zu particles", n,
                        f->t.n_particles);
  if ((r = fr_read_all(f, "/particles/all/radius", 1, 0, H5T_NATIVE_DOUBLE, &buf, &n,
                    err)) < 0)
    return err->code;
  f->radius = buf;
  if (r && n != f->t.n_particles)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                        "/particles/all/radius: %zu entries for %zu particles", n,
                        f->t.n_particles);

  vs_status st = load_links(f, err);
  if (st != VS_OK) return st;
  if ((r = fr_open_opt(f, ALIVE_PATH, &f->alive, err)) < 0) return err->code;
  if (r) {
    if (f->alive.rank != 2 || f->alive.dims[0] < f->F)
      return fr_shape_error(f, err, ALIVE_PATH, &f->alive, "[F, M]");
    f->has_alive = 1;
    f->t.n_alive = (size_t)f->alive.dims[1];
    if ((st = map_alive(f, err)) != VS_OK) return st;
  }

  if (f->has_rigid) {
    size_t B = (size_t)f->rpos.dims[1];
    if ((r = fr_read_all(f, "/particles/rigid/shape", 1, 0, H5T_NATIVE_INT32, &buf,
                      &n, err)) < 0)
      return err->code;
    f->rigid_shape = buf;
    if (!r || n != B)
      return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                          "/particles/rigid/shape: %s for %zu bodies", r ? "wrong count" : "missing",
                          B);
    for (size_t i = 0; i < B; i++)
      if (!vs_rshape_row_of(f->rigid_shape[i]))
        return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                            "/particles/rigid/shape: body %zu has shape %d, not one of vsim's %d",
                            i, (int)f->rigid_shape[i], (int)VS_RIGID_SHAPE_COUNT);
    if ((r = fr_read_all(f, "/particles/rigid/size", 2, 3, H5T_NATIVE_DOUBLE,
                      &buf, &n, err)) < 0)
      return err->code;
    f->rigid_size = buf;
    if (!r || n != B)
      return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                          "/particles/rigid/size: %s for %zu bodies", r ? "wrong count" : "missing",
                          B);
    f->t.n_rigid = B;
    if ((st = load_hulls(f, B, err)) != VS_OK) return st;
  }

  if ((st = fr_load_world_colliders(f, err)) != VS_OK) return st;
  int need_colliders = !vs_h5_path_exists(f->h, "/world/colliders");
  if ((need_colliders || !f->radius) && (st = fr_load_from_scene(f, need_colliders, err)) != VS_OK)
    return st;
  return fr_load_series(f, err);
}

/* ---- public --------------------------------------------------------------- */

vs_status vs_frames_open(const char *path, vs_frames **out, vs_error *err) {
  *out = NULL;
  vs_frames *f = vs_calloc(1, sizeof *f);
  if (!f) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  f->h = f->g.file = f->g.lapl = H5I_INVALID_HID;
  f->g.fd = -1;
  vs_h5_ds *dss[] = {&f->pos, &f->vel, &f->alive, &f->rpos, &f->rquat};
  for (size_t i = 0; i < sizeof dss / sizeof dss[0]; i++)
    dss[i]->d = dss[i]->type = dss[i]->space = H5I_INVALID_HID;
  f->path = vs_strdup(path);
  if (!f->path) {
    vs_free(f);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  vs_status st = vs_h5g_open_checked(path, &f->g, err);
  f->h = f->g.file;
  if (st == VS_OK) st = load(f, err);
  if (st != VS_OK) {
    vs_frames_close(f);
    return st;
  }
  f->t.body = f->body;
  f->t.radius = f->radius;
  f->t.links = f->links;
  f->t.link_slot = f->has_alive ? f->link_slot : NULL;
  f->t.tris = f->tris;
  f->t.rigid_shape = f->rigid_shape;
  f->t.rigid_size = f->rigid_size;
  f->t.colliders = f->colliders;
  *out = f;
  return VS_OK;
}

void vs_frames_close(vs_frames *f) {
  if (!f) return;
  vs_h5_ds *dss[] = {&f->pos, &f->vel, &f->alive, &f->rpos, &f->rquat};
  for (size_t i = 0; i < sizeof dss / sizeof dss[0]; i++) vs_h5_ds_close(dss[i]);
  vs_h5g_close(&f->g);
  for (size_t i = 0; i < f->ns; i++) {
    vs_free(f->s[i].name);
    vs_free(f->s[i].group);
  }
  vs_free(f->s);
  for (size_t i = 0; i < f->t.n_colliders; i++) {
    vs_free(f->colliders[i].vertices);
    vs_free(f->colliders[i].tris);
  }
  vs_free(f->colliders);
  vs_free(f->time);
  vs_free(f->body);
  vs_free(f->radius);
  vs_free(f->links);
  vs_free(f->link_slot);
  vs_free(f->tris);
  vs_free(f->rigid_shape);
  vs_free(f->rigid_size);
  vs_free(f->hull_v);
  vs_free(f->hull_range);
  vs_free(f->hull_tri);
  vs_free(f->path);
  vs_free(f);
}

const char *vs_frames_path(const vs_frames *f) { return f->path; }
size_t vs_frames_count(const vs_frames *f) { return f->F; }
double vs_frames_time(const vs_frames *f, size_t k) { return k < f->F ? f->time[k] : NAN; }
const vs_frames_topology *vs_frames_topo(const vs_frames *f) { return &f->t; }
int vs_frames_has_velocity(const vs_frames *f) { return f->has_vel; }

vs_status vs_frames_check_drawable(const vs_frames *f, vs_error *err) {
  if (f->has_pos || f->has_rigid) return VS_OK;
  return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                      "no positions recorded (neither %s nor %s): nothing to draw", POS_PATH,
                      RPOS_PATH);
}

size_t vs_frames_at_time(const vs_frames *f, double t) {
  size_t best = 0;
  double bd = INFINITY;
  for (size_t k = 0; k < f->F; k++) {
    double d = fabs(f->time[k] - t);
    if (d < bd) bd = d, best = k;
  }
  return best;
}

vs_status vs_frames_position(vs_frames *f, size_t k, double *pos, vs_error *err) {
  if (!f->has_pos) return check_frame(f, k, err);
  return read_row(f, &f->pos, POS_PATH, k, H5T_NATIVE_DOUBLE, pos, err);
}

vs_status vs_frames_velocity(vs_frames *f, size_t k, double *vel, vs_error *err) {
  if (!f->has_vel)
    return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: not recorded", VEL_PATH);
  return read_row(f, &f->vel, VEL_PATH, k, H5T_NATIVE_DOUBLE, vel, err);
}

vs_status vs_frames_alive(vs_frames *f, size_t k, uint8_t *alive, vs_error *err) {
  if (!f->has_alive) return check_frame(f, k, err);
  return read_row(f, &f->alive, ALIVE_PATH, k, H5T_NATIVE_UINT8, alive, err);
}

vs_status vs_frames_rigid(vs_frames *f, size_t k, double *center, double *quat, vs_error *err) {
  if (!f->has_rigid) return check_frame(f, k, err);
  vs_status st = read_row(f, &f->rpos, RPOS_PATH, k, H5T_NATIVE_DOUBLE, center, err);
  if (st == VS_OK) st = read_row(f, &f->rquat, RQUAT_PATH, k, H5T_NATIVE_DOUBLE, quat, err);
  return st;
}

static void grow(double lo[3], double hi[3], const double p[3], double r) {
  if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) return;
  if (!isfinite(r) || r < 0) r = 0;
  for (int j = 0; j < 3; j++) {
    lo[j] = fmin(lo[j], p[j] - r);
    hi[j] = fmax(hi[j], p[j] + r);
  }
}

vs_status vs_frames_bounds(vs_frames *f, double lo[3], double hi[3], vs_error *err) {
  for (int j = 0; j < 3; j++) lo[j] = INFINITY, hi[j] = -INFINITY;
  size_t N = f->t.n_particles, B = f->t.n_rigid;
  double *buf = vs_malloc((3 * N + 7 * B + 1) * sizeof *buf);
  if (!buf) return fr_nomem(f, err);
  double *q = buf + 3 * N + 3 * B;
  vs_status st = VS_OK;
  for (size_t k = 0; k < f->F && st == VS_OK; k++) {
    if (N && (st = vs_frames_position(f, k, buf, err)) != VS_OK) break;
    for (size_t i = 0; i < N; i++) grow(lo, hi, buf + 3 * i, f->radius ? f->radius[i] : 0);
    if (B && (st = vs_frames_rigid(f, k, buf + 3 * N, q, err)) != VS_OK) break;
    for (size_t i = 0; i < B; i++) {
      const double *s = f->rigid_size + 3 * i;
      const vs_rshape_row *row = vs_rshape_row_of(f->rigid_shape[i]); /* checked when read */
      double r = row ? row->bound(s) : 0.0;
      grow(lo, hi, buf + 3 * N + 3 * i, r);
    }
  }
  vs_free(buf);
  if (st != VS_OK) return st;
  for (size_t i = 0; i < f->t.n_colliders; i++) {
    const vs_frames_collider *c = &f->colliders[i];
    if (c->kind == VS_FRAMES_SPHERE) grow(lo, hi, c->center, c->radius);
    if (c->kind == VS_FRAMES_BOX || c->kind == VS_FRAMES_BOUNDS) {
      grow(lo, hi, c->lo, 0);
      grow(lo, hi, c->hi, 0);
    }
    for (size_t v = 0; c->kind == VS_FRAMES_MESH && v < c->n_vertices; v++)
      grow(lo, hi, c->vertices + 3 * v, 0);
  }
  if (!(lo[0] <= hi[0]))
    for (int j = 0; j < 3; j++) lo[j] = -1, hi[j] = 1;
  return VS_OK;
}

size_t vs_frames_series_count(const vs_frames *f) { return f->ns; }
const char *vs_frames_series_name(const vs_frames *f, size_t i) {
  return i < f->ns ? f->s[i].name : NULL;
}
const char *vs_frames_series_unit(const vs_frames *f, size_t i) {
  return i < f->ns ? f->s[i].unit : NULL;
}

long vs_frames_series_find(const vs_frames *f, const char *name) {
  for (size_t i = 0; i < f->ns; i++)
    if (strcmp(f->s[i].name, name) == 0) return (long)i;
  return -1;
}

/* Series i of f streamed in slabs of SERIES_SLAB rows: every point, or with
 * max_points (>= 2) and more points than that, the smallest and the largest
 * value of each of max_points / 2 runs of consecutive points (in time
 * order; a run with no finite value keeps its first point), so that a plot
 * of it shows every peak and the memory is max_points whatever the file
 * says.  A file that declares more than its size can hold (readall.h) is
 * refused first. */
#define SERIES_SLAB 65536

typedef struct bucket {
  size_t lo, hi;   /* indices of the smallest and largest finite values; SIZE_MAX: none */
  double vlo, vhi, tlo, thi;
  size_t first;    /* the run's first point */
  double tfirst, vfirst;
} bucket;

static void bucket_flush(const bucket *b, double *t, double *v, size_t *n) {
  if (b->lo == SIZE_MAX) {
    t[*n] = b->tfirst, v[*n] = b->vfirst, ++*n;
    return;
  }
  if (b->lo <= b->hi) {
    t[*n] = b->tlo, v[*n] = b->vlo, ++*n;
    if (b->hi != b->lo) t[*n] = b->thi, v[*n] = b->vhi, ++*n;
  } else {
    t[*n] = b->thi, v[*n] = b->vhi, ++*n;
    t[*n] = b->tlo, v[*n] = b->vlo, ++*n;
  }
}

vs_status vs_frames_series_read_max(vs_frames *f, size_t i, size_t max_points, double **t,
                                    double **v, size_t *n, vs_error *err) {
  *t = *v = NULL;
  *n = 0;
  if (i >= f->ns) return vs_error_set(err, VS_ERR_USAGE, f->path, 0, 0, "no series %zu", i);
  char pv[512], pt[512], why[400];
  snprintf(pv, sizeof pv, "%s/value", f->s[i].group);
  snprintf(pt, sizeof pt, "%s/time", f->s[i].group);
  vs_h5_ds xv, xt;
  xt.d = xt.type = xt.space = H5I_INVALID_HID;
  int rv = fr_open_opt(f, pv, &xv, err);
  if (rv < 0) return err->code;
  int rt = rv ? fr_open_opt(f, pt, &xt, err) : 0;
  vs_status st = VS_OK;
  double *tv = NULL, *vv = NULL, *buf = NULL;
  if (rt < 0) {
    st = err->code;
    goto done;
  }
  if (!rv || !rt) {
    st = vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s: missing", rv ? pt : pv);
    goto done;
  }
  if (xv.rank != 1 || xt.rank != 1) {
    st = fr_shape_error(f, err, xv.rank != 1 ? pv : pt, xv.rank != 1 ? &xv : &xt, "[F]");
    goto done;
  }
  const size_t all = (size_t)(xv.dims[0] < xt.dims[0] ? xv.dims[0] : xt.dims[0]);
  if (vs_rd_whole_ok(f->h, xv.d, pv, (uint64_t)xv.dims[0] * 8u, why, sizeof why) != 0 ||
      vs_rd_whole_ok(f->h, xt.d, pt, (uint64_t)xt.dims[0] * 8u, why, sizeof why) != 0) {
    st = vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0, "%s", why);
    goto done;
  }
  const int thin = max_points >= 2 && all > max_points;
  const size_t runs = thin ? max_points / 2 : 0, cap = thin ? 2 * runs : all;
  tv = vs_malloc((cap ? cap : 1) * sizeof *tv);
  vv = vs_malloc((cap ? cap : 1) * sizeof *vv);
  buf = vs_malloc(2 * SERIES_SLAB * sizeof *buf);
  if (!tv || !vv || !buf) {
    st = fr_nomem(f, err);
    goto done;
  }
  size_t out = 0, run = 0, run_end = thin ? all / runs : 0;
  bucket b = {SIZE_MAX, SIZE_MAX, 0, 0, 0, 0, 0, 0, 0};
  for (size_t a = 0; a < all; a += SERIES_SLAB) {
    const hsize_t start = a, count = all - a < SERIES_SLAB ? all - a : SERIES_SLAB;
    double *sv = buf, *stime = buf + SERIES_SLAB;
    if (vs_h5_read_slab(&xv, &start, &count, H5T_NATIVE_DOUBLE, sv) < 0) {
      st = fr_ds_error(f, err, pv, "cannot read");
      goto done;
    }
    if (vs_h5_read_slab(&xt, &start, &count, H5T_NATIVE_DOUBLE, stime) < 0) {
      st = fr_ds_error(f, err, pt, "cannot read");
      goto done;
    }
    if (!thin) {
      memcpy(vv + a, sv, (size_t)count * sizeof *vv);
      memcpy(tv + a, stime, (size_t)count * sizeof *tv);
      out = a + (size_t)count;
      continue;
    }
    for (size_t k = 0; k < (size_t)count; k++) {
      const size_t idx = a + k;
      if (idx >= run_end) { /* the run ends: its points out, the next begins */
        bucket_flush(&b, tv, vv, &out);
        run++;
        run_end = (size_t)(((uint64_t)(run + 1) * all) / runs);
        b.lo = b.hi = SIZE_MAX;
        b.first = idx;
      }
      if (idx == b.first) b.tfirst = stime[k], b.vfirst = sv[k];
      const double val = sv[k];
      if (!isfinite(val)) continue;
      if (b.lo == SIZE_MAX || val < b.vlo) b.lo = idx, b.vlo = val, b.tlo = stime[k];
      if (b.hi == SIZE_MAX || val > b.vhi) b.hi = idx, b.vhi = val, b.thi = stime[k];
    }
  }
  if (thin && all > 0) bucket_flush(&b, tv, vv, &out);
  *t = tv;
  *v = vv;
  *n = out;
  tv = vv = NULL;
done:
  vs_free(buf);
  vs_free(tv);
  vs_free(vv);
  vs_h5_ds_close(&xv);
  vs_h5_ds_close(&xt);
  return st;
}

vs_status vs_frames_series_read(vs_frames *f, size_t i, double **t, double **v, size_t *n,
                                vs_error *err) {
  return vs_frames_series_read_max(f, i, 0, t, v, n, err);
}
