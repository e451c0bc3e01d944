/* SPDX-License-Identifier: MIT */
/* h5layout.c: the static part of a new result file (docs/result-file.md,
 * layout), written once by vs_h5_open after the file is created: /h5md,
 * /particles (with the series of H5W_SERIES under it), /observables,
 * /connectivity and /solver, /world/colliders (h5world.c), /parameters. */
#include <stdio.h>
#include <string.h>

#include "io/h5surface.h"
#include "io/write/h5write.h"
#include "model/model_private.h"

/* /h5md: version, author, creator (fixed-length strings, H5MD 1.1) and the
 * units module (SI; the units are `unit` attributes of the element groups). */
static int write_h5md(vs_h5_writer *w, const char *author_name) {
  int rc = -1;
  hid_t h5md = h5w_make_group(w, w->file, "h5md");
  if (h5md < 0) return -1;
  int32_t version[2] = {1, 1}, units_version[2] = {1, 0};
  hsize_t two = 2;
  hid_t space = H5Screate_simple(1, &two, NULL);
  hid_t author = H5I_INVALID_HID, creator = H5I_INVALID_HID;
  hid_t modules = H5I_INVALID_HID, units = H5I_INVALID_HID;
  if (space < 0 ||
      h5w_set_attr(w, h5md, "version", H5T_STD_I32LE, H5T_NATIVE_INT32, space, version) < 0)
    goto done;
  /* The author is the scene's output.author rather than $USER: files from
   * identical runs should not depend on who ran them. */
  author = h5w_make_group(w, h5md, "author");
  if (author < 0 || h5w_attr_fixstr(w, author, "name", author_name) < 0) goto done;
  creator = h5w_make_group(w, h5md, "creator");
  if (creator < 0 || h5w_attr_fixstr(w, creator, "name", "vsim") < 0 ||
      h5w_attr_fixstr(w, creator, "version", VSIM_VERSION) < 0)
    goto done;
  modules = h5w_make_group(w, h5md, "modules");
  units = modules >= 0 ? h5w_make_group(w, modules, "units") : H5I_INVALID_HID;
  if (units < 0 ||
      h5w_set_attr(w, units, "version", H5T_STD_I32LE, H5T_NATIVE_INT32, space, units_version) < 0 ||
      h5w_attr_fixstr(w, units, "system", "SI") < 0)
    goto done;
  rc = 0;
done:
  if (units >= 0) H5Gclose(units);
  if (modules >= 0) H5Gclose(modules);
  if (creator >= 0) H5Gclose(creator);
  if (author >= 0) H5Gclose(author);
  if (space >= 0) H5Sclose(space);
  H5Gclose(h5md);
  return rc;
}

/* /particles/rigid/hull_{vertices,triangles,range} when the scene has
 * convex bodies: each one's body-frame vertices, its faces fanned into
 * triangles (indices into hull_vertices), and per body [first vertex,
 * vertices, first triangle, triangles] (zero counts for the other shapes),
 * for viewers (vsim render). */
static int write_hulls(vs_h5_writer *w, hid_t g, const vs_model *m) {
  size_t nv = 0, nt = 0;
  int any = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    if (m->rigid_shape[b] != VS_RIGID_CONVEX) continue;
    int v, t;
    h5s_body_counts(m, b, &v, &t);
    nv += (size_t)v, nt += (size_t)t, any = 1;
  }
  if (!any) return 0;
  double *vert = vs_malloc(3 * nv * sizeof *vert + 1);
  int32_t *tri = vs_malloc(3 * nt * sizeof *tri + 1);
  int32_t *range = vs_calloc(4 * (size_t)m->n_rigid + 1, sizeof *range);
  int rc = -1;
  if (!vert || !tri || !range) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the convex hulls");
    w->nomem = 1;
    goto done;
  }
  size_t v0 = 0, t0 = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    if (m->rigid_shape[b] != VS_RIGID_CONVEX) continue;
    int v, t;
    h5s_body_counts(m, b, &v, &t);
    h5s_body_mesh(m, b, vert + 3 * v0, tri + 3 * t0);
    for (size_t i = 3 * t0; i < 3 * (t0 + (size_t)t); i++) tri[i] += (int32_t)v0;
    int32_t *r = range + 4 * (size_t)b;
    r[0] = (int32_t)v0, r[1] = v, r[2] = (int32_t)t0, r[3] = t;
    v0 += (size_t)v, t0 += (size_t)t;
  }
  hsize_t dv[2] = {(hsize_t)nv, 3}, dt[2] = {(hsize_t)nt, 3}, dr[2] = {(hsize_t)m->n_rigid, 4};
  if (h5w_make_fixed(w, g, "hull_vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dv, vert,
                     NULL) == 0 &&
      h5w_make_fixed(w, g, "hull_triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dt, tri,
                     NULL) == 0 &&
      h5w_make_fixed(w, g, "hull_range", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dr, range, NULL) == 0)
    rc = 0;
done:
  vs_free(vert);
  vs_free(tri);
  vs_free(range);
  return rc;
}

/* /particles/rigid (its series exist already): box, mass (inf when fixed),
 * inertia [B, 3] (principal moments), shape [B] (0 box, 1 sphere, 2 capsule, 3 convex),
 * size [B, 3] (box extents; sphere [r, 0, 0]; capsule [r, length, 0]). */
static int write_rigid(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  hid_t g = H5Lexists(w->file, "/particles/rigid", H5P_DEFAULT) > 0
                ? H5Gopen2(w->file, "/particles/rigid", H5P_DEFAULT)
                : h5w_make_group(w, w->file, "/particles/rigid");
  hid_t box = g >= 0 ? h5w_make_group(w, g, "box") : H5I_INVALID_HID;
  hsize_t n = (hsize_t)m->n_rigid, n3[2] = {n, 3};
  if (box >= 0 && h5w_attr_i32(w, box, "dimension", 3) == 0 && h5w_attr_boundary(w, box) == 0 &&
      h5w_make_fixed(w, g, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->rigid_mass, NULL) == 0 &&
      h5w_make_fixed(w, g, "inertia", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n3, m->rigid_inertia,
                     NULL) == 0 &&
      h5w_make_fixed(w, g, "shape", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &n, m->rigid_shape, NULL) == 0 &&
      h5w_make_fixed(w, g, "size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n3, m->rigid_size, NULL) == 0 &&
      write_hulls(w, g, m) == 0)
    rc = 0;
  if (box >= 0) H5Gclose(box);
  if (g >= 0) H5Gclose(g);
  return rc;
}

/* /particles/rigid_surface (its position series exists already): box and
 * body [V] int32, the rigid body (index in /particles/rigid) of each vertex;
 * /connectivity/rigid_triangles [T, 3] comes with the topology. */
static int write_rigid_surface(vs_h5_writer *w, const vs_model *m) {
  size_t nv, nt;
  h5s_model_counts(m, &nv, &nt);
  int32_t *body = vs_malloc(nv * sizeof *body + 1);
  if (!body) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the rigid surfaces");
    w->nomem = 1;
    return -1;
  }
  size_t v = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    int n, t;
    h5s_body_counts(m, b, &n, &t);
    for (int i = 0; i < n; i++) body[v++] = b;
  }
  hsize_t d = (hsize_t)nv;
  hid_t g = H5Gopen2(w->file, "/particles/rigid_surface", H5P_DEFAULT);
  hid_t box = g >= 0 ? h5w_make_group(w, g, "box") : H5I_INVALID_HID;
  int rc = box >= 0 && h5w_attr_i32(w, box, "dimension", 3) == 0 &&
                   h5w_attr_boundary(w, box) == 0 &&
                   h5w_make_fixed(w, g, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d, body,
                                  NULL) == 0
               ? 0
               : -1;
  if (g < 0) h5w_fail(w, "opening /particles/rigid_surface");
  if (box >= 0) H5Gclose(box);
  if (g >= 0) H5Gclose(g);
  vs_free(body);
  return rc;
}

/* 1 when the file has the rigid surfaces (with the rigid positions) */
static int has_surface(const vs_model *m) {
  h5w_series_desc d;
  h5w_series_describe(S_RSURF, m, &d);
  return d.wanted;
}

/* /connectivity/rigid_triangles: every body's triangles, into the vertices
 * of /particles/rigid_surface. */
static int write_rigid_triangles(vs_h5_writer *w, const vs_model *m, hid_t conn) {
  size_t nv, nt;
  h5s_model_counts(m, &nv, &nt);
  int32_t *tri = vs_malloc(3 * nt * sizeof *tri + 1);
  if (!tri) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the rigid surfaces");
    w->nomem = 1;
    return -1;
  }
  size_t v = 0, t = 0;
  for (int32_t b = 0; b < m->n_rigid; b++) {
    int n, k;
    h5s_body_counts(m, b, &n, &k);
    h5s_body_mesh(m, b, NULL, tri + 3 * t);
    for (size_t i = 3 * t; i < 3 * (t + (size_t)k); i++) tri[i] += (int32_t)v;
    v += (size_t)n;
    t += (size_t)k;
  }
  int rc = h5w_make_index(w, conn, "rigid_triangles", (hsize_t)nt, 3, tri,
                          "/particles/rigid_surface", NULL);
  vs_free(tri);
  return rc;
}

/* /particles/all (when the scene has particles): the box, the particle
 * series of H5W_SERIES, mass, body, radius (viewers draw particles at it). */
static int write_particles(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  hid_t mass = H5I_INVALID_HID, radius = H5I_INVALID_HID;
  hid_t parts = h5w_make_group(w, w->file, "particles");
  hid_t all = parts >= 0 && m->n_particles > 0 ? h5w_make_group(w, parts, "all") : H5I_INVALID_HID;
  hid_t box = all >= 0 ? h5w_make_group(w, all, "box") : H5I_INVALID_HID;
  if (parts < 0) goto done;
  if (m->n_particles > 0 &&
      (box < 0 || h5w_attr_i32(w, box, "dimension", 3) < 0 || h5w_attr_boundary(w, box) < 0))
    goto done;
  if (h5w_create_series(w, m, "/particles/") < 0) goto done;
  hsize_t n = (hsize_t)m->n_particles;
  if (m->n_particles > 0 &&
      (h5w_make_fixed(w, all, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->mass, &mass) < 0 ||
       h5w_attr_fixstr(w, mass, "unit", "kg") < 0 ||
       h5w_make_fixed(w, all, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &n, m->body, NULL) < 0 ||
       h5w_make_fixed(w, all, "radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, m->radius,
                      &radius) < 0 ||
       h5w_attr_fixstr(w, radius, "unit", "m") < 0))
    goto done;
  if (m->n_rigid > 0 && write_rigid(w, m) < 0) goto done;
  if (has_surface(m) && write_rigid_surface(w, m) < 0) goto done;
  rc = 0;
done:
  if (radius >= 0) H5Dclose(radius);
  if (mass >= 0) H5Dclose(mass);
  if (box >= 0) H5Gclose(box);
  if (all >= 0) H5Gclose(all);
  if (parts >= 0) H5Gclose(parts);
  return rc;
}

/* /observables: the observable series of H5W_SERIES. */
static int write_observables(vs_h5_writer *w, const vs_model *m) {
  hid_t obs = h5w_make_group(w, w->file, "observables");
  if (obs < 0) return -1;
  H5Gclose(obs);
  return h5w_create_series(w, m, "/observables/");
}

/* /connectivity/<kind>: the particle pairs of kind k, [count, 2] int32 into
 * /particles/all, for viewers (docs/result-file.md): a distance link's two
 * particles, an angle limit's a-c pair (the link that acts, by the law of
 * cosines); a pin has none (one particle: /solver/constraints lists it).
 * tmp holds 2 per constraint.  Every kind is listed, so a new row of
 * VS_KINDS fails the build here until it says what it writes (the XDMF
 * sidecar reads the same datasets: link_cols in xdmf.c). */
static int write_links(vs_h5_writer *w, const vs_model *m, hid_t conn, vs_kind k, int32_t *tmp) {
  const int32_t n = vs_model_kind_count(m, k);
  const int32_t *pairs = tmp;
  switch (k) {
  case VS_KIND_DISTANCE:
    pairs = m->dist_ab;
    break;
  case VS_KIND_PIN:
    return 0;
  case VS_KIND_ANGLE:
    for (int32_t i = 0; i < n; i++) {
      tmp[2 * i] = m->angle_abc[3 * i];
      tmp[2 * i + 1] = m->angle_abc[3 * i + 2];
    }
    break;
  }
  if (n <= 0) return 0;
  return h5w_make_index(w, conn, vs_kind_name(k), (hsize_t)n, 2, pairs, "/particles/all", NULL);
}

static int write_topology(vs_h5_writer *w, const vs_model *m) {
  int rc = -1;
  int32_t *tmp = NULL;
  hid_t color = H5I_INVALID_HID;
  hid_t conn = h5w_make_group(w, w->file, "connectivity");
  hid_t solver = conn >= 0 ? h5w_make_group(w, w->file, "solver") : H5I_INVALID_HID;
  if (solver < 0) goto done;
  size_t nc = (size_t)(m->n_constraints > 0 ? m->n_constraints : 0);
  /* every constraint's particles (3 each), and so any kind's pairs (2 each) */
  size_t ntmp = 3 * nc;
  tmp = vs_malloc(ntmp * sizeof *tmp + 1);
  if (!tmp) {
    snprintf(w->msg, sizeof w->msg, "out of memory for the topology");
    w->nomem = 1;
    goto done;
  }
  /* fresh pages (390 KB for a 128x128 cloth, ~95 page faults on the
   * caller's thread): mapped in one call */
  h5w_populate(tmp, ntmp * sizeof *tmp);
  for (int k = 0; k < VS_KIND_COUNT; k++)
    if (write_links(w, m, conn, (vs_kind)k, tmp) < 0) goto done;
  if (m->n_triangles > 0 &&
      h5w_make_index(w, conn, "triangles", (hsize_t)m->n_triangles, 3, m->triangles, "/particles/all",
                     NULL) < 0)
    goto done;
  if (has_surface(m) && write_rigid_triangles(w, m, conn) < 0) goto done;
  /* per-frame alive flags, when a link can tear */
  if (h5w_create_series(w, m, "/connectivity/") < 0) goto done;
  for (size_t i = 0; i < nc; i++) vs_model_constraint_particles(m, (int32_t)i, tmp + 3 * i);
  if (h5w_make_index(w, solver, "constraints", nc, 3, tmp, NULL, NULL) < 0) goto done;
  if (m->priv->color) {
    hsize_t d1 = nc;
    if (h5w_make_fixed(w, solver, "color", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d1, m->priv->color,
                   &color) < 0 ||
        h5w_attr_i32(w, color, "count", m->n_colors) < 0)
      goto done;
  }
  rc = 0;
done:
  if (color >= 0) H5Dclose(color);
  if (solver >= 0) H5Gclose(solver);
  if (conn >= 0) H5Gclose(conn);
  vs_free(tmp);
  return rc;
}

static int write_parameters(vs_h5_writer *w, const vs_scene *scene, const vs_model *m,
                            const vs_h5_run_info *info) {
  hid_t params = h5w_make_group(w, w->file, "parameters");
  if (params < 0) return -1;
  w->params = h5w_make_group(w, params, "vsim");
  H5Gclose(params);
  if (w->params < 0) return -1;
  hid_t p = w->params;
  /* status says "running" until vs_h5_finish replaces it; only the
   * temporary file can ever show it. */
  if (h5w_attr_str(w, p, "scene", scene && scene->text ? scene->text : "") < 0 ||
      h5w_attr_str(w, p, "name", scene ? scene->name : "") < 0 ||
      h5w_attr_str(w, p, "resolved", info ? info->resolved_yaml : "") < 0 ||
      h5w_attr_str(w, p, "command", info ? info->command : "") < 0 ||
      h5w_attr_str(w, p, "version", VSIM_VERSION) < 0 ||
      h5w_attr_i32(w, p, "format_version", VSIM_FORMAT_VERSION) < 0 ||
      h5w_attr_i32(w, p, "colors", m->n_colors) < 0 || h5w_attr_f64(w, p, "wall_seconds", 0.0) < 0 ||
      h5w_attr_i64(w, p, "frames_recorded", 0) < 0 || h5w_attr_str(w, p, "status", "running") < 0)
    return -1;
  /* the OBJ files the model was built from: where they were and what they
   * held, for --resume (model_private.h) */
  if (m->priv && m->priv->mesh_files && h5w_attr_str(w, p, "mesh_files", m->priv->mesh_files) < 0)
    return -1;
  return 0;
}

int h5w_write_layout(vs_h5_writer *w, const vs_scene *scene, const vs_model *m,
                     const vs_h5_run_info *info) {
  return write_h5md(w, m->output.author) == 0 && write_particles(w, m) == 0 &&
                 write_observables(w, m) == 0 && write_topology(w, m) == 0 &&
                 h5w_write_colliders(w, m) == 0 && write_parameters(w, scene, m, info) == 0
             ? 0
             : -1;
}
