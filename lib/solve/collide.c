/* SPDX-License-Identifier: MIT */
/* collide.c: static obstacles, handled by projection (Jakobsen §3): a
 * particle of radius r inside an obstacle (or outside `bounds`) is moved to
 * the nearest surface point along the surface normal.  Each push is recorded
 * (normal, accumulated depth, collider) for the velocity pass of step.c, where
 * friction and restitution act. */
#include <math.h>
#include <string.h>

#include "solve/collide_mesh.h"
#include "solve/solve.h"
#include "util/vec3.h"

static inline vs_mesh_collider mesh_of(const vs_model *m, int32_t c) {
  const vs_collider_desc *cd = &m->colliders[c];
  const vs_mesh_search *ms = &m->priv->mesh_search[c];
  return (vs_mesh_collider){.bvh = ms->bvh,
                            .grid = ms->grid,
                            .margin = ms->margin,
                            .thickness = cd->thickness,
                            .friction = cd->friction,
                            .restitution = cd->restitution};
}

/* Penetration depth (> 0 inside) and outward normal of a point of radius r. */
static double penetration(const vs_collider_desc *c, const double *p, double r, double n[3]) {
  switch (c->kind) {
    case VS_COLLIDER_PLANE: {
      double d[3] = {p[0] - c->a[0], p[1] - c->a[1], p[2] - c->a[2]};
      n[0] = c->b[0], n[1] = c->b[1], n[2] = c->b[2];
      return r - vs_dot3(d, n);
    }
    case VS_COLLIDER_SPHERE: {
      double d[3] = {p[0] - c->a[0], p[1] - c->a[1], p[2] - c->a[2]};
      double len = sqrt(vs_dot3(d, d));
      if (len > 0.0) n[0] = d[0] / len, n[1] = d[1] / len, n[2] = d[2] / len;
      else n[0] = 0.0, n[1] = 1.0, n[2] = 0.0; /* at the centre: push up */
      return c->radius + r - len;
    }
    case VS_COLLIDER_BOX: {
      /* Inside the box grown by r: leave through the nearest face
       * (ties: -x, +x, -y, +y, -z, +z, first wins). */
      double best = INFINITY;
      int face = -1;
      for (int k = 0; k < 3; k++) {
        double lo = p[k] - (c->a[k] - r), hi = (c->b[k] + r) - p[k];
        if (lo <= 0.0 || hi <= 0.0) return 0.0;
        if (lo < best) best = lo, face = 2 * k;
        if (hi < best) best = hi, face = 2 * k + 1;
      }
      n[0] = n[1] = n[2] = 0.0;
      n[face / 2] = (face & 1) ? 1.0 : -1.0;
      return best;
    }
    case VS_COLLIDER_BOUNDS: {
      /* Outside the box shrunk by r: the deepest axis is reported; the
       * projection below clamps every axis. */
      double best = 0.0;
      n[0] = n[1] = n[2] = 0.0;
      for (int k = 0; k < 3; k++) {
        double lo = (c->a[k] + r) - p[k], hi = p[k] - (c->b[k] - r);
        if (lo > best) best = lo, n[0] = n[1] = n[2] = 0.0, n[k] = 1.0;
        if (hi > best) best = hi, n[0] = n[1] = n[2] = 0.0, n[k] = -1.0;
      }
      return best;
    }
    case VS_COLLIDER_MESH: return 0.0; /* collide_mesh.c */
  }
  return 0.0;
}

/* Particle i's record of mesh collider c in a (mesh colliders x
 * n_particles) array. */
static inline size_t record_of(const vs_model *m, int32_t c, int32_t i) {
  return (size_t)m->priv->mesh_search[c].slot * (size_t)m->n_particles + (size_t)i;
}

void vs_collide_particle(const vs_model *m, const double *xprev, double *x, double *contact,
                         int32_t *contact_collider, const vs_mesh_plane *mesh_contact,
                         const uint8_t *mesh_on, int32_t i) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) return;
  const double r = m->radius[i];
  for (int32_t c = 0; c < m->n_colliders; c++) {
    const vs_collider_desc *cd = &m->colliders[c];
    if (cd->kind == VS_COLLIDER_MESH) {
      if (mesh_contact) {
        /* the contact plane (as vs_collide_mesh_particle, inlined: this is
         * the relaxation's inner loop); the dense flags first, so that a
         * particle without a plane reads one byte */
        if (mesh_on[(size_t)m->priv->mesh_search[c].slot * (size_t)m->n_particles + (size_t)i] != 1) continue;
        const vs_mesh_plane *cp = mesh_contact + record_of(m, c, i);
        const double R = r + cd->thickness;
        const double d = (p[0] - cp->q[0]) * cp->n[0] + (p[1] - cp->q[1]) * cp->n[1] +
                         (p[2] - cp->q[2]) * cp->n[2];
        if (d >= R) continue;
        const double push = R - d;
        p[0] += push * cp->n[0], p[1] += push * cp->n[1], p[2] += push * cp->n[2];
        double *ct = contact + 4 * (size_t)i;
        ct[0] = cp->n[0], ct[1] = cp->n[1], ct[2] = cp->n[2];
        ct[3] += push;
        contact_collider[i] = c;
        continue;
      }
      const vs_mesh_collider mc = mesh_of(m, c);
      vs_collide_mesh_particle(&mc, c, xprev, x, r, contact, contact_collider, i, NULL);
      continue;
    }
    double n[3];
    double depth = penetration(cd, p, r, n);
    if (depth <= 0.0) continue;
    if (cd->kind == VS_COLLIDER_BOUNDS) {
      for (int k = 0; k < 3; k++) {
        double lo = cd->a[k] + r, hi = cd->b[k] - r;
        if (p[k] < lo) p[k] = lo;
        else if (p[k] > hi) p[k] = hi;
      }
    } else {
      p[0] += depth * n[0], p[1] += depth * n[1], p[2] += depth * n[2];
    }
    double *ct = contact + 4 * (size_t)i;
    ct[0] = n[0], ct[1] = n[1], ct[2] = n[2];
    ct[3] += depth;
    contact_collider[i] = c;
  }
}

double vs_collide_penetration(const vs_model *m, const double *p, double r) {
  double worst = 0.0;
  for (int32_t c = 0; c < m->n_colliders; c++) {
    double n[3], d;
    if (m->colliders[c].kind == VS_COLLIDER_MESH) {
      const vs_mesh_collider mc = mesh_of(m, c);
      d = vs_mesh_penetration(&mc, p, r);
    } else {
      d = penetration(&m->colliders[c], p, r, n);
    }
    if (d > worst) worst = d;
  }
  return worst;
}

/* Earliest entry of the path a -> b of a particle of radius r into collider
 * c: *t in (0, 1] and the outward normal at the entry.  Only a path that
 * starts outside can enter; `bounds` keeps particles inside by clamping and
 * needs no sweep. */
static int entry(const vs_collider_desc *c, const double *a, const double *b, double r, double *t,
                 double n[3]) {
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  switch (c->kind) {
    case VS_COLLIDER_PLANE: {
      const double da = (a[0] - c->a[0]) * c->b[0] + (a[1] - c->a[1]) * c->b[1] +
                        (a[2] - c->a[2]) * c->b[2] - r;
      const double db = da + vs_dot3(d, c->b);
      if (!(da >= 0.0 && db < 0.0)) return 0;
      *t = da / (da - db);
      n[0] = c->b[0], n[1] = c->b[1], n[2] = c->b[2];
      return 1;
    }
    case VS_COLLIDER_SPHERE: {
      const double R = c->radius + r, f[3] = {a[0] - c->a[0], a[1] - c->a[1], a[2] - c->a[2]};
      const double A = vs_dot3(d, d), B = 2.0 * vs_dot3(f, d), C = vs_dot3(f, f) - R * R;
      const double disc = B * B - 4.0 * A * C;
      if (C <= 0.0 || A == 0.0 || disc < 0.0) return 0;
      const double tt = (-B - sqrt(disc)) / (2.0 * A);
      if (!(tt > 0.0 && tt <= 1.0)) return 0;
      for (int k = 0; k < 3; k++) n[k] = (f[k] + tt * d[k]) / R;
      *t = tt;
      return 1;
    }
    case VS_COLLIDER_BOX: {
      /* slabs of the box grown by r (Kay & Kajiya) */
      double t0 = 0.0, t1 = 1.0;
      int axis = -1;
      for (int k = 0; k < 3; k++) {
        const double lo = c->a[k] - r, hi = c->b[k] + r;
        if (d[k] == 0.0) {
          if (a[k] <= lo || a[k] >= hi) return 0;
          continue;
        }
        double ta = (lo - a[k]) / d[k], tb = (hi - a[k]) / d[k];
        if (ta > tb) {
          double tmp = ta;
          ta = tb, tb = tmp;
        }
        if (ta > t0) t0 = ta, axis = k;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return 0;
      }
      if (axis < 0) return 0; /* starts inside: the projection handles it */
      n[0] = n[1] = n[2] = 0.0;
      n[axis] = d[axis] > 0.0 ? -1.0 : 1.0;
      *t = t0;
      return 1;
    }
    case VS_COLLIDER_BOUNDS: return 0;
    case VS_COLLIDER_MESH: return 0; /* vs_mesh_entry, with the model's BVH */
  }
  return 0;
}

/* The contact planes of particle i's mesh colliders, once its swept test is
 * done (collide_mesh.h). */
static void contact_planes(const vs_model *m, const double *xprev, const double *x,
                           vs_mesh_plane *mesh_contact, vs_mesh_ball *mesh_ball, uint8_t *mesh_on,
                           int32_t i) {
  if (!mesh_contact) return;
  for (int32_t c = 0; c < m->n_colliders; c++)
    if (m->colliders[c].kind == VS_COLLIDER_MESH) {
      const vs_mesh_collider mc = mesh_of(m, c);
      const size_t k = record_of(m, c, i);
      vs_mesh_contact cp;
      uint8_t on;
      if (x[4 * (size_t)i + 3] == 0.0) on = 0; /* pinned: never projected (nor read) */
      else if (!vs_mesh_contact_plane_near(&mc, xprev + 4 * (size_t)i, x + 4 * (size_t)i, m->radius[i], &cp))
        on = 2; /* nothing near: the records left unwritten (most of a cloth beside the mesh) */
      else {
        /* the ball for the final pass; the plane only where there is one */
        on = cp.on != 0;
        memcpy(mesh_ball[k].c, cp.c, sizeof cp.c);
        mesh_ball[k].clear = cp.clear;
        if (on) {
          memcpy(mesh_contact[k].q, cp.q, sizeof cp.q);
          memcpy(mesh_contact[k].n, cp.n, sizeof cp.n);
        }
      }
      mesh_on[k] = on;
    }
}

void vs_collide_final(const vs_model *m, const double *xprev, double *x, double *contact,
                      int32_t *contact_collider, const vs_mesh_ball *mesh_ball,
                      const uint8_t *mesh_on, int32_t i) {
  for (int32_t c = 0; c < m->n_colliders; c++)
    if (m->colliders[c].kind == VS_COLLIDER_MESH) {
      const vs_mesh_collider mc = mesh_of(m, c);
      /* (an unwritten record, mesh_on 2: no plane to skip work with) */
      const size_t k = record_of(m, c, i);
      const int written = mesh_ball && mesh_on[k] != 2;
      vs_collide_mesh_final(&mc, c, xprev, x, m->radius[i], contact, contact_collider, i,
                            written ? mesh_ball + k : NULL);
    }
}

void vs_collide_swept(const vs_model *m, const double *xprev, double *x, double *contact,
                      int32_t *contact_collider, vs_mesh_plane *mesh_contact, vs_mesh_ball *mesh_ball,
                      uint8_t *mesh_on, int32_t i) {
  double *p = x + 4 * (size_t)i;
  if (p[3] == 0.0) {
    contact_planes(m, xprev, x, mesh_contact, mesh_ball, mesh_on, i);
    return;
  }
  const double *a = xprev + 4 * (size_t)i;
  double best = 2.0, bn[3] = {0, 0, 0};
  int32_t hit = -1;
  for (int32_t c = 0; c < m->n_colliders; c++) {
    double t, n[3];
    int hits;
    if (m->colliders[c].kind == VS_COLLIDER_MESH) {
      const vs_mesh_collider mc = mesh_of(m, c);
      hits = vs_mesh_entry(&mc, a, p, m->radius[i], &t, n);
    } else {
      if (!m->swept) continue; /* mesh colliders are always swept */
      hits = entry(&m->colliders[c], a, p, m->radius[i], &t, n);
    }
    if (hits && t < best)
      best = t, hit = c, bn[0] = n[0], bn[1] = n[1], bn[2] = n[2];
  }
  if (hit < 0) {
    contact_planes(m, xprev, x, mesh_contact, mesh_ball, mesh_on, i);
    return;
  }
  /* Stop at the entry point, then slide the rest of the way along the
   * surface: the normal part of the remaining path is the push. */
  const double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double rem = 1.0 - best, dn = vs_dot3(d, bn);
  for (int k = 0; k < 3; k++) p[k] = a[k] + best * d[k] + rem * (d[k] - dn * bn[k]);
  double *ct = contact + 4 * (size_t)i;
  ct[0] = bn[0], ct[1] = bn[1], ct[2] = bn[2];
  ct[3] += rem * -dn;
  contact_collider[i] = hit;
  contact_planes(m, xprev, x, mesh_contact, mesh_ball, mesh_on, i);
}
