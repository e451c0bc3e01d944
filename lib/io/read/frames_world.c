/* SPDX-License-Identifier: MIT */
/* frames_world.c: what a result file says beside the particles, for
 * viewers: the observables (found by walking /observables for groups that
 * hold a per-frame `value`, named by their flat version 2 names) and the
 * colliders (/world/colliders, else the resolved scene). */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/read/frames_int.h"
#include "io/h5util.h"
#include "util/alloc.h"
#include "vsim/alloc.h"
#include "vsim/frames.h"
#include "vsim/scene.h"

/* ---- observables ---------------------------------------------------------- */

/* "constraint_error/all/max" -> "constraint_error_max";
 * "constraint_error/distance/rms" -> "distance_error_rms"; others: '/' -> '_'. */
static char *flat_name(const char *rel) {
  const char *ce = "constraint_error/";
  char buf[256];
  if (strncmp(rel, ce, strlen(ce)) == 0) {
    const char *kind = rel + strlen(ce);
    const char *slash = strchr(kind, '/');
    if (slash && !strchr(slash + 1, '/')) {
      int kl = (int)(slash - kind);
      if (kl == 3 && strncmp(kind, "all", 3) == 0)
        snprintf(buf, sizeof buf, "constraint_error_%s", slash + 1);
      else
        snprintf(buf, sizeof buf, "%.*s_error_%s", kl, kind, slash + 1);
      return vs_strdup(buf);
    }
  }
  char *s = vs_strdup(rel);
  for (char *p = s; p && *p; p++)
    if (*p == '/') *p = '_';
  return s;
}

static void infer_unit(const char *name, char *unit, size_t size) {
  if (strstr(name, "relative") || strstr(name, "alive") || strstr(name, "contacts"))
    snprintf(unit, size, "1");
  else if (strstr(name, "energy"))
    snprintf(unit, size, "J");
  else if (strstr(name, "error") || strstr(name, "penetration") || strstr(name, "overlap"))
    snprintf(unit, size, "m");
  else
    unit[0] = '\0';
}

static int cmp_series(const void *a, const void *b) {
  return strcmp(((const series *)a)->name, ((const series *)b)->name);
}

vs_status fr_load_series(vs_frames *f, vs_error *err) {
  if (!vs_h5_path_exists(f->h, "/observables")) return VS_OK;
  vs_h5_path_list l = {0};
  const char *roots[] = {"/observables"};
  vs_status st = vs_h5_list_datasets(f->h, f->path, roots, 1, &l, err);
  if (st == VS_OK) {
    f->s = vs_calloc(l.n ? l.n : 1, sizeof *f->s);
    if (!f->s) st = fr_nomem(f, err);
  }
  for (size_t i = 0; st == VS_OK && i < l.n; i++) {
    const char *p = l.v[i];
    size_t len = strlen(p);
    if (len < 7 || strcmp(p + len - 6, "/value") != 0) continue;
    vs_h5_ds x;
    if (vs_h5_ds_open(f->h, p, &x) < 0 || x.rank != 1 ||
        (x.cls != H5T_INTEGER && x.cls != H5T_FLOAT)) {
      vs_h5_ds_close(&x);
      continue; /* per-constraint arrays and the like: not a plottable series */
    }
    vs_h5_ds_close(&x);
    series *s = &f->s[f->ns];
    s->group = vs_malloc(len - 5);
    if (!s->group) {
      st = fr_nomem(f, err);
      break;
    }
    memcpy(s->group, p, len - 6);
    s->group[len - 6] = '\0';
    s->name = flat_name(s->group + strlen("/observables/"));
    if (!s->name) {
      vs_free(s->group);
      st = fr_nomem(f, err);
      break;
    }
    char *u = vs_h5_attr_string(f->h, s->group, "unit", NULL);
    if (!u) u = vs_h5_attr_string(f->h, p, "unit", NULL);
    if (u)
      snprintf(s->unit, sizeof s->unit, "%s", u);
    else
      infer_unit(s->name, s->unit, sizeof s->unit);
    vs_free(u);
    f->ns++;
  }
  vs_h5_list_free(&l);
  if (st == VS_OK && f->ns > 1) qsort(f->s, f->ns, sizeof *f->s, cmp_series);
  return st;
}

/* ---- colliders ------------------------------------------------------------ */

/* A parameter of collider group g: an attribute or a dataset of n numbers. */
static int coll_param(vs_frames *f, const char *g, const char *name, double *out, size_t n) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", g, name);
  hid_t a = H5I_INVALID_HID;
  if (H5Aexists_by_name(f->h, g, name, H5P_DEFAULT) > 0) {
    a = H5Aopen_by_name(f->h, g, name, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    int ok = sp >= 0 && (size_t)H5Sget_simple_extent_npoints(sp) == n &&
             H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0;
    if (sp >= 0) H5Sclose(sp);
    if (a >= 0) H5Aclose(a);
    return ok ? 0 : -1;
  }
  if (!vs_h5_path_exists(f->h, p)) return -1;
  vs_h5_ds x;
  int ok = vs_h5_ds_open(f->h, p, &x) == 0 && x.cls == H5T_FLOAT &&
           (size_t)H5Sget_simple_extent_npoints(x.space) == n &&
           H5Dread(x.d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  vs_h5_ds_close(&x);
  return ok ? 0 : -1;
}

static int lo_hi(vs_frames *f, const char *g, vs_frames_collider *c) {
  return (coll_param(f, g, "lo", c->lo, 3) == 0 || coll_param(f, g, "min", c->lo, 3) == 0) &&
                 (coll_param(f, g, "hi", c->hi, 3) == 0 || coll_param(f, g, "max", c->hi, 3) == 0)
             ? 0
             : -1;
}

/* /world/colliders/<i>/ (kind: attribute or dataset; parameters as
 * attributes or datasets).  Unknown kinds and incomplete groups are skipped:
 * a viewer draws what it understands. */
vs_status fr_load_world_colliders(vs_frames *f, vs_error *err) {
  hid_t g = H5Gopen2(f->h, "/world/colliders", H5P_DEFAULT);
  if (g < 0) return VS_OK;
  H5G_info_t gi;
  size_t n = H5Gget_info(g, &gi) >= 0 ? (size_t)gi.nlinks : 0;
  H5Gclose(g);
  f->colliders = vs_calloc(n ? n : 1, sizeof *f->colliders);
  if (!f->colliders) return fr_nomem(f, err);
  for (size_t i = 0; i < n; i++) {
    char gp[64];
    snprintf(gp, sizeof gp, "/world/colliders/%zu", i);
    if (!vs_h5_path_exists(f->h, gp)) continue;
    char *kind = vs_h5_attr_string(f->h, gp, "kind", NULL);
    if (!kind) continue;
    vs_frames_collider *c = &f->colliders[f->t.n_colliders];
    memset(c, 0, sizeof *c);
    int ok = -1;
    if (strcmp(kind, "plane") == 0) {
      c->kind = VS_FRAMES_PLANE;
      ok = coll_param(f, gp, "point", c->point, 3) == 0 &&
                   coll_param(f, gp, "normal", c->normal, 3) == 0
               ? 0
               : -1;
    } else if (strcmp(kind, "sphere") == 0) {
      c->kind = VS_FRAMES_SPHERE;
      ok = coll_param(f, gp, "center", c->center, 3) == 0 &&
                   coll_param(f, gp, "radius", &c->radius, 1) == 0
               ? 0
               : -1;
    } else if (strcmp(kind, "box") == 0 || strcmp(kind, "bounds") == 0) {
      c->kind = kind[1] == 'o' && kind[2] == 'x' ? VS_FRAMES_BOX : VS_FRAMES_BOUNDS;
      ok = lo_hi(f, gp, c);
    } else if (strcmp(kind, "mesh") == 0) {
      char vp[96], tp[96];
      size_t nv = 0, nt = 0;
      void *v = NULL, *t = NULL;
      snprintf(vp, sizeof vp, "%s/vertices", gp);
      snprintf(tp, sizeof tp, "%s/triangles", gp);
      int rv = fr_read_all(f, vp, 2, 3, H5T_NATIVE_DOUBLE, &v, &nv, err);
      int rt = rv == 1 ? fr_read_all(f, tp, 2, 3, H5T_NATIVE_INT32, &t, &nt,
                                  err)
                       : 0;
      if (rv < 0 || rt < 0) {
        vs_free(v);
        vs_free(kind);
        return err->code;
      }
      for (size_t j = 0; rt == 1 && j < 3 * nt; j++) {
        /* the value is taken before the arrays are freed: the message names it */
        const int32_t bad = ((const int32_t *)t)[j];
        if (bad < 0 || (size_t)bad >= nv) {
          vs_free(v);
          vs_free(t);
          vs_free(kind);
          return vs_error_set(err, VS_ERR_FORMAT, f->path, 0, 0,
                              "%s: triangle %zu names vertex %d of %zu", tp, j / 3, (int)bad, nv);
        }
      }
      c->kind = VS_FRAMES_MESH;
      c->vertices = v;
      c->tris = t;
      c->n_vertices = nv;
      c->n_tris = nt;
      ok = rv == 1 && rt == 1 ? 0 : -1;
      if (ok) {
        vs_free(v);
        vs_free(t);
        c->vertices = NULL;
        c->tris = NULL;
      }
    }
    vs_free(kind);
    if (ok == 0) f->t.n_colliders++;
  }
  return VS_OK;
}

/* What only the recorded scene knows in a file that does not say it
 * itself: the colliders (before /world/colliders) and the particle radius
 * (before /particles/all/radius), from /parameters/vsim@resolved.  A scene
 * that no longer loads (a mesh whose OBJ moved) just gives nothing. */
vs_status fr_load_from_scene(vs_frames *f, int need_colliders, vs_error *err) {
  int oom = 0;
  char *text = vs_h5_attr_string(f->h, "/parameters/vsim", "resolved", &oom);
  if (!text) return oom ? fr_nomem(f, err) : VS_OK;
  vs_scene *sc = NULL;
  vs_error e2;
  vs_error_clear(&e2);
  vs_status st = vs_scene_load_string(text, strlen(text), f->path, NULL, 0, &sc, &e2);
  vs_free(text);
  if (st == VS_ERR_NOMEM) return fr_nomem(f, err);
  if (st != VS_OK) return VS_OK;
  if (need_colliders && sc->n_colliders) {
    f->colliders = vs_calloc(sc->n_colliders, sizeof *f->colliders);
    if (!f->colliders) {
      vs_scene_free(sc);
      return fr_nomem(f, err);
    }
    for (size_t i = 0; i < sc->n_colliders; i++) {
      const vs_collider_desc *d = &sc->colliders[i];
      vs_frames_collider *c = &f->colliders[f->t.n_colliders];
      memset(c, 0, sizeof *c);
      switch (d->kind) {
        case VS_COLLIDER_PLANE:
          c->kind = VS_FRAMES_PLANE;
          memcpy(c->point, d->a, sizeof c->point);
          memcpy(c->normal, d->b, sizeof c->normal);
          break;
        case VS_COLLIDER_SPHERE:
          c->kind = VS_FRAMES_SPHERE;
          memcpy(c->center, d->a, sizeof c->center);
          c->radius = d->radius;
          break;
        case VS_COLLIDER_BOX:
        case VS_COLLIDER_BOUNDS:
          c->kind = d->kind == VS_COLLIDER_BOX ? VS_FRAMES_BOX : VS_FRAMES_BOUNDS;
          memcpy(c->lo, d->a, sizeof c->lo);
          memcpy(c->hi, d->b, sizeof c->hi);
          break;
        case VS_COLLIDER_MESH: continue; /* only /world/colliders has its triangles */
        default: continue;
      }
      f->t.n_colliders++;
    }
  }
  if (!f->radius && f->body && f->t.n_particles && sc->n_bodies) {
    f->radius = vs_malloc(f->t.n_particles * sizeof *f->radius);
    if (!f->radius) {
      vs_scene_free(sc);
      return fr_nomem(f, err);
    }
    for (size_t i = 0; i < f->t.n_particles; i++) {
      int32_t b = f->body[i];
      f->radius[i] = b >= 0 && (size_t)b < sc->n_bodies ? sc->bodies[b].radius : 0;
    }
  }
  vs_scene_free(sc);
  return VS_OK;
}

