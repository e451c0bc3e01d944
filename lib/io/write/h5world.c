/* SPDX-License-Identifier: MIT */
/* h5world.c: /world/colliders/<i>/, one group per collider of the model, in
 * scene order, so that viewers and `vsim render` (lib/io/read/frames.c) can draw
 * the obstacles without the scene: a `kind` string attribute (plane, sphere,
 * box, bounds, mesh), the parameters as attributes (plane: point, normal;
 * sphere: center, radius; box and bounds: min, max; mesh: thickness), every
 * collider's friction and restitution, and for a mesh the datasets
 * `vertices` [nv, 3] float64 (after its transform) and `triangles` [nt, 3]
 * int32 (0-based, into its own vertices; zero-area triangles left out). */
#include "io/write/h5write.h"

static int attr_vec(vs_h5_writer *w, hid_t loc, const char *name, const double *v, hsize_t n) {
  hid_t sp = H5Screate_simple(1, &n, NULL);
  if (sp < 0) return h5w_fail(w, "creating a dataspace");
  int rc = h5w_set_attr(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sp, v);
  H5Sclose(sp);
  return rc;
}

static int write_one(vs_h5_writer *w, const vs_model *m, hid_t g, int32_t c) {
  const vs_collider_desc *d = &m->colliders[c];
  const char *kind = vs_scene_name(VS_NAMES_COLLIDER, (int)d->kind);
  if (h5w_attr_str(w, g, "kind", kind ? kind : "unknown") < 0 ||
      h5w_attr_f64(w, g, "friction", d->friction) < 0 ||
      h5w_attr_f64(w, g, "restitution", d->restitution) < 0)
    return -1;
  switch (d->kind) {
    case VS_COLLIDER_PLANE:
      return attr_vec(w, g, "point", d->a, 3) < 0 || attr_vec(w, g, "normal", d->b, 3) < 0 ? -1 : 0;
    case VS_COLLIDER_SPHERE:
      return attr_vec(w, g, "center", d->a, 3) < 0 || h5w_attr_f64(w, g, "radius", d->radius) < 0
                 ? -1
                 : 0;
    case VS_COLLIDER_BOX:
    case VS_COLLIDER_BOUNDS:
      return attr_vec(w, g, "min", d->a, 3) < 0 || attr_vec(w, g, "max", d->b, 3) < 0 ? -1 : 0;
    case VS_COLLIDER_MESH: {
      const vs_collider_mesh *cm = &m->collider_mesh[c];
      hsize_t dv[2] = {(hsize_t)cm->n_vertices, 3}, dt[2] = {(hsize_t)cm->n_triangles, 3};
      if (h5w_attr_f64(w, g, "thickness", d->thickness) < 0 ||
          h5w_make_fixed(w, g, "vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dv,
                         &m->mesh_vertices[3 * (size_t)cm->first_vertex], NULL) < 0 ||
          h5w_make_fixed(w, g, "triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dt,
                         &m->mesh_triangles[3 * (size_t)cm->first_triangle], NULL) < 0)
        return -1;
      return 0;
    }
  }
  return 0;
}

int h5w_write_colliders(vs_h5_writer *w, const vs_model *m) {
  if (m->n_colliders <= 0) return 0;
  int rc = -1;
  hid_t world = h5w_make_group(w, w->file, "world");
  hid_t all = world >= 0 ? h5w_make_group(w, world, "colliders") : H5I_INVALID_HID;
  if (all < 0) goto done;
  for (int32_t c = 0; c < m->n_colliders; c++) {
    char name[16];
    snprintf(name, sizeof name, "%d", (int)c);
    hid_t g = h5w_make_group(w, all, name);
    if (g < 0) goto done;
    int r = write_one(w, m, g, c);
    H5Gclose(g);
    if (r < 0) goto done;
  }
  rc = 0;
done:
  if (all >= 0) H5Gclose(all);
  if (world >= 0) H5Gclose(world);
  return rc;
}
