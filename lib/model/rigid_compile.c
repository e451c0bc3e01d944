/* SPDX-License-Identifier: MIT */
/* rigid_compile.c: the scene's rigid bodies (VS_BODY_RIGID items of
 * `bodies`, in file order) and solver.rigid into the rigid solver's model
 * (lib/solve/rigid/rigid.h), plus the model rows that the writer and the state
 * read (initial pose, mass, inertia, shape, size).  The scene's colliders
 * are the rigid bodies' colliders too (same kind numbers). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/build.h"
#include "model/obj.h"
#include "model/rigid_model.h"
#include "util/quat.h"
#include "util/vec3.h"


int32_t vs_rigid_count(const vs_scene *s) {
  int32_t n = 0;
  for (size_t b = 0; b < s->n_bodies; b++) n += s->bodies[b].kind == VS_BODY_RIGID;
  return n;
}

/* weld, hinge, slider: joints of VS_JOINT_KINDS beyond ball and distance */
static int wide_joint(const vs_constraint_desc *cd) {
  int k = (int)cd->kind;
  return k == VS_CONSTRAINT_WELD || k == VS_CONSTRAINT_HINGE || k == VS_CONSTRAINT_SLIDER;
}

/* and a ball with cone or twist (its extra rows' impulses in joint_more too) */
static int limited_ball(const vs_constraint_desc *cd) {
  return (int)cd->kind == VS_CONSTRAINT_BALL && (cd->has_cone || cd->has_limits);
}

int vs_rigid_item(const vs_constraint_desc *cd) {
  if ((int)cd->kind == VS_CONSTRAINT_BALL || (int)cd->kind == VS_CONSTRAINT_ATTACH) return 1;
  if (wide_joint(cd)) return 1;
  return cd->kind == VS_KIND_DISTANCE && (strchr(cd->a.text, '@') || strchr(cd->b.text, '@'));
}

void vs_rigid_count_items(const vs_scene *s, int32_t *joints, int32_t *attach, int32_t *more) {
  *joints = *attach = *more = 0;
  int wide = 0;
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (!vs_rigid_item(cd)) continue;
    wide |= wide_joint(cd) || limited_ball(cd);
    if ((int)cd->kind == VS_CONSTRAINT_ATTACH) (*attach)++;
    else (*joints)++;
  }
  if (wide) *more = *joints;
}

static vs_status item_error(vs_error *err, const char *file, const vs_ref *r, size_t ci,
                            const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static vs_status item_error(vs_error *err, const char *file, const vs_ref *r, size_t ci,
                            const char *key, const char *fmt, ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return vs_error_set(err, VS_ERR_SCENE, file, r->loc.line, r->loc.column, "constraints.%zu.%s: %s",
                      ci, key, why);
}

/* The rigid index of the body named by text[0 .. n), -1 for "world" when
 * world is allowed, -2 when there is none. */
static int32_t find_rigid(const vs_model *m, const char *text, size_t n, int world) {
  if (world && n == 5 && !strncmp(text, "world", 5)) return -1;
  for (int32_t i = 0; i < m->n_rigid; i++) {
    const char *name = m->bodies[m->rigid_body[i]].name;
    if (strlen(name) == n && !strncmp(name, text, n)) return i;
  }
  return -2;
}

/* "NAME@[x, y, z]": the body and the local point; -2 when malformed or unknown. */
static int32_t body_point(const vs_model *m, const char *text, double p[3], const char **why) {
  const char *at = strchr(text, '@');
  *why = "expected a body point \"NAME@[x, y, z]\" on a rigid body";
  if (!at) return -2;
  const char *q = at + 1;
  while (*q == ' ') q++;
  if (*q++ != '[') return -2;
  for (int k = 0; k < 3; k++) {
    char *end;
    p[k] = strtod(q, &end);
    if (end == q || !isfinite(p[k])) return -2;
    q = end;
    while (*q == ' ') q++;
    if (*q != (k < 2 ? ',' : ']')) return -2;
    q++;
  }
  while (*q == ' ') q++;
  if (*q) return -2;
  int32_t b = find_rigid(m, text, (size_t)(at - text), 0);
  if (b < 0) *why = "no rigid body of that name";
  return b;
}

/* Body-local coordinates of world point p on body b (b < 0: p itself). */
static void to_local(const vs_model *m, int32_t b, const double p[3], double out[3]) {
  if (b < 0) {
    memcpy(out, p, 3 * sizeof(double));
    return;
  }
  double R[9], d[3];
  vs_quat_to_mat(&m->rigid_q0[4 * b], R);
  for (int k = 0; k < 3; k++) d[k] = p[k] - m->rigid_x0[3 * b + k];
  vs_mat3_mul_t(R, d, out);
}

static void to_world(const vs_model *m, int32_t b, const double p[3], double out[3]) {
  double R[9];
  vs_quat_to_mat(&m->rigid_q0[4 * b], R);
  vs_mat3_mul(R, p, out);
  for (int k = 0; k < 3; k++) out[k] += m->rigid_x0[3 * b + k];
}

/* The rows of a weld, hinge or slider beyond a ball's: the initial relative
 * orientation, the axis in both bodies' frames, limits, motor, spring
 * (docs/physics.md, "Joints"). */
static vs_status wide_rows(vs_model *m, const vs_constraint_desc *cd, size_t ci, int32_t j,
                           int32_t ba, int32_t bb, const char *file, vs_error *err) {
  vs_rmodel *rm = m->priv->rigid;
  static const double ident[4] = {1, 0, 0, 0};
  const double *qa = &m->rigid_q0[4 * ba], *qb = bb < 0 ? ident : &m->rigid_q0[4 * bb];
  const double ca[4] = {qa[0], -qa[1], -qa[2], -qa[3]};
  vs_quat_mul(ca, qb, &rm->joint_qrel[4 * j]);
  int hinge = (int)cd->kind == VS_CONSTRAINT_HINGE, ball = (int)cd->kind == VS_CONSTRAINT_BALL;
  rm->joint_kind[j] = ball    ? VS_JOINT_BALL
                      : hinge ? VS_JOINT_HINGE
                      : (int)cd->kind == VS_CONSTRAINT_SLIDER ? VS_JOINT_SLIDER : VS_JOINT_WELD;
  if ((int)cd->kind == VS_CONSTRAINT_WELD) {
    if (cd->hertz > 0) { /* a ball and three soft angular rows (rigid_joint_axis.c) */
      rm->joint_kind[j] = VS_JOINT_BALL;
      rm->joint_flags[j] = VS_RJOINT_SOFT;
      rm->joint_spring[3 * j] = cd->hertz;
      rm->joint_spring[3 * j + 1] = cd->damping_ratio;
    }
    return VS_OK;
  }
  double ax[3];
  memcpy(ax, cd->axis, sizeof ax);
  if (ball && !cd->has_axis) /* from the anchor to b's centre, or from a's centre to it */
    for (int k = 0; k < 3; k++)
      ax[k] = bb >= 0 ? m->rigid_x0[3 * bb + k] - cd->at[k] : cd->at[k] - m->rigid_x0[3 * ba + k];
  double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
  if (!(len > 1e-12))
    return vs_error_set(err, VS_ERR_SCENE, file, cd->loc.line, cd->loc.column,
                        "constraints.%zu.ball: cone and twist need an axis: `at` is the centre "
                        "of the body it would come from; give axis", ci);
  double u[3] = {ax[0] / len, ax[1] / len, ax[2] / len}, R[9];
  vs_quat_to_mat(qa, R);
  vs_mat3_mul_t(R, u, &rm->joint_axis[6 * j]);
  vs_quat_to_mat(qb, R);
  vs_mat3_mul_t(R, u, &rm->joint_axis[6 * j + 3]);
  const double unit = hinge || ball ? 3.14159265358979323846 / 180.0 : 1.0; /* degrees or m */
  int32_t flags = 0;
  if (ball && cd->has_cone) {
    flags |= VS_RJOINT_CONE;
    rm->joint_cone[j] = cd->cone * unit;
  }
  if (cd->has_limits) {
    flags |= ball ? VS_RJOINT_TWIST : VS_RJOINT_LIMIT;
    rm->joint_limit[2 * j] = cd->limits[0] * unit;
    rm->joint_limit[2 * j + 1] = cd->limits[1] * unit;
  }
  if (cd->has_motor) {
    flags |= VS_RJOINT_MOTOR;
    rm->joint_motor[2 * j] = cd->motor_speed;
    rm->joint_motor[2 * j + 1] = cd->max_torque;
  }
  if (hinge && cd->hertz > 0) {
    flags |= VS_RJOINT_SPRING;
    rm->joint_spring[3 * j] = cd->hertz;
    rm->joint_spring[3 * j + 1] = cd->damping_ratio;
    rm->joint_spring[3 * j + 2] = cd->spring_rest * unit;
  }
  rm->joint_flags[j] = flags;
  return VS_OK;
}

/* Joints (ball, weld, hinge, slider, body-point distance) into the rigid model, attachments into
 * the model's attach rows, in file order. */
static vs_status compile_items(vs_model *m, const vs_scene *s, const char *file, vs_error *err) {
  vs_rmodel *rm = m->priv->rigid;
  int32_t j = 0, a = 0;
  for (size_t c = 0; c < s->n_constraints; c++) {
    const vs_constraint_desc *cd = &s->constraints[c];
    if (!vs_rigid_item(cd)) continue;
    if ((int)cd->kind == VS_CONSTRAINT_ATTACH) {
      int32_t p;
      char why[256];
      if (vs_model_resolve_ref(m, cd->a.text, &p, why, sizeof why) != VS_OK)
        return item_error(err, file, &cd->a, c, "particle", "%s", why);
      int32_t b = find_rigid(m, cd->b.text, strlen(cd->b.text), 0);
      if (b < 0) return item_error(err, file, &cd->b, c, "body", "no rigid body named '%s'", cd->b.text);
      m->attach_p[a] = p;
      m->attach_body[a] = b;
      memcpy(&m->attach_at[3 * a], cd->at, 3 * sizeof(double));
      a++;
      continue;
    }
    if ((int)cd->kind == VS_CONSTRAINT_BALL || wide_joint(cd)) {
      int32_t ba = find_rigid(m, cd->a.text, strlen(cd->a.text), 0);
      int32_t bb = find_rigid(m, cd->b.text, strlen(cd->b.text), 1);
      if (ba < 0) return item_error(err, file, &cd->a, c, "a", "no rigid body named '%s'", cd->a.text);
      if (bb < -1) return item_error(err, file, &cd->b, c, "b", "no rigid body named '%s'", cd->b.text);
      if (bb == ba) return item_error(err, file, &cd->b, c, "b", "expected a body other than '%s'", cd->a.text);
      rm->joint_kind[j] = VS_JOINT_BALL;
      rm->joint_ab[2 * j] = ba;
      rm->joint_ab[2 * j + 1] = bb;
      to_local(m, ba, cd->at, &rm->joint_pa[3 * j]);
      to_local(m, bb, cd->at, &rm->joint_pb[3 * j]);
      rm->joint_collide[j] = cd->collide;
      if (wide_joint(cd) || limited_ball(cd)) {
        vs_status st = wide_rows(m, cd, c, j, ba, bb, file, err);
        if (st != VS_OK) return st;
      }
      j++;
      continue;
    }
    /* distance between body points */
    double pa[3], pb[3];
    const char *why;
    int32_t ba = body_point(m, cd->a.text, pa, &why);
    int32_t bb = body_point(m, cd->b.text, pb, &why);
    if ((ba < 0) != (bb < 0) && !strchr((ba < 0 ? &cd->a : &cd->b)->text, '@')) {
      /* a particle and a body point: that is an attach */
      const vs_ref *part = ba < 0 ? &cd->a : &cd->b, *pt = ba < 0 ? &cd->b : &cd->a;
      const char *at = strchr(pt->text, '@');
      return item_error(err, file, part, c, ba < 0 ? "a" : "b",
                        "a distance joins two particles or two body points; to hold particle "
                        "'%s' at a point of rigid body '%.*s', use attach: {particle: '%s', "
                        "body: %.*s, at: %s}",
                        part->text, (int)(at - pt->text), pt->text, part->text,
                        (int)(at - pt->text), pt->text, at + 1);
    }
    if (ba < 0) {
      body_point(m, cd->a.text, pa, &why);
      return item_error(err, file, &cd->a, c, "a", "%s", why);
    }
    if (bb < 0) return item_error(err, file, &cd->b, c, "b", "%s", why);
    if (bb == ba) return item_error(err, file, &cd->b, c, "b", "expected a body other than the one of a");
    if (cd->has_min || cd->has_max)
      return vs_error_set(err, VS_ERR_SCENE, file, cd->loc.line, cd->loc.column,
                          "constraints.%zu: a distance between body points is two-sided (rest), "
                          "not min or max", c);
    double wa[3], wb[3];
    to_world(m, ba, pa, wa);
    to_world(m, bb, pb, wb);
    const double d[3] = {wa[0] - wb[0], wa[1] - wb[1], wa[2] - wb[2]};
    rm->joint_kind[j] = VS_JOINT_DISTANCE;
    rm->joint_ab[2 * j] = ba;
    rm->joint_ab[2 * j + 1] = bb;
    memcpy(&rm->joint_pa[3 * j], pa, sizeof pa);
    memcpy(&rm->joint_pb[3 * j], pb, sizeof pb);
    rm->joint_rest[j] = cd->rest_auto ? sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) : cd->rest;
    rm->joint_collide[j] = cd->collide;
    j++;
  }
  return VS_OK;
}

/* The motion rows (kinematic bodies, surface velocities) when a body has
 * any: room for every body and all their keys. */
static vs_status create_motion(const vs_scene *s, vs_rmodel *rm) {
  int any = 0;
  int64_t nk = 0, nr = 0;
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *d = &s->bodies[b];
    if (d->kind != VS_BODY_RIGID) continue;
    const double *sv = d->surface_velocity;
    any |= d->kinematic || sv[0] != 0 || sv[1] != 0 || sv[2] != 0;
    if (!d->kinematic) continue;
    nk += (int64_t)d->n_keys;
    nr += (int64_t)d->n_rotation_keys;
  }
  if (!any) return VS_OK;
  rm->motion = vs_rmotion_create(rm->n_bodies, nk, nr);
  return rm->motion ? VS_OK : VS_ERR_NOMEM;
}

/* Body i's motion row from its description, after its initial pose: a
 * kinematic body starts at its path's pose at t = 0 (the model's x0 and q0
 * become that pose). */
static void compile_motion(vs_model *m, vs_rmotion *mo, const vs_body_desc *d, int32_t i) {
  memcpy(&mo->surface[3 * i], d->surface_velocity, 3 * sizeof(double));
  for (int k = 0; k < 3; k++) mo->any_surface |= d->surface_velocity[k] != 0;
  if (!d->kinematic) return;
  mo->kinematic[i] = 1;
  memcpy(&mo->x0[3 * i], &m->rigid_x0[3 * i], 3 * sizeof(double));
  memcpy(&mo->q0[4 * i], &m->rigid_q0[4 * i], 4 * sizeof(double));
  memcpy(&mo->v[3 * i], d->velocity, 3 * sizeof(double));
  memcpy(&mo->w[3 * i], d->angular_velocity, 3 * sizeof(double));
  /* the keys go after the previous bodies' (key0 of the last body plus its count) */
  int32_t k0 = 0, r0 = 0;
  for (int32_t j = 0; j < i; j++) {
    k0 += mo->nkeys[j];
    r0 += mo->nrkeys[j];
  }
  mo->key0[i] = k0;
  mo->nkeys[i] = (int32_t)d->n_keys;
  if (d->n_keys) memcpy(&mo->keys[4 * (size_t)k0], d->keys, 4 * d->n_keys * sizeof(double));
  mo->rkey0[i] = r0;
  mo->nrkeys[i] = (int32_t)d->n_rotation_keys;
  for (size_t k = 0; k < d->n_rotation_keys; k++) {
    double *rk = &mo->rkeys[5 * ((size_t)r0 + k)];
    rk[0] = d->rotation_keys[4 * k];
    vs_quat_from_euler_deg(&d->rotation_keys[4 * k + 1], rk + 1);
    vs_quat_normalize(rk + 1);
    if (k > 0) { /* the sign nearer the previous key's: slerp the shorter way */
      const double *p = rk - 4;
      if (p[0] * rk[1] + p[1] * rk[2] + p[2] * rk[3] + p[3] * rk[4] < 0)
        for (int c = 1; c < 5; c++) rk[c] = -rk[c];
    }
  }
  double x[3], q[4];
  vs_rmotion_pose(mo, i, 0.0, x, q);
  memcpy(&m->rigid_x0[3 * i], x, sizeof x);
  memcpy(&m->rigid_q0[4 * i], q, sizeof q);
  if (d->n_keys) memset(&m->rigid_v0[3 * i], 0, 3 * sizeof(double));
  if (d->n_rotation_keys) memset(&m->rigid_w0[3 * i], 0, 3 * sizeof(double));
}

/* The hull of convex body b (scene item bi): its points, or its OBJ
 * file's vertices, times its scale.  Errors at the `points` or `file` key. */
static vs_status build_hull(const vs_body_desc *d, size_t bi, const char *file, vs_hull *h,
                            vs_error *err) {
  char why[600];
  const char *key = d->mesh.file ? "file" : "points";
  vs_obj_mesh obj;
  memset(&obj, 0, sizeof obj);
  const double *pts = d->positions;
  int64_t n = (int64_t)d->count;
  if (d->mesh.file) {
    vs_obj_options opt = {.skip_degenerate = 1};
    vs_error e;
    vs_error_clear(&e);
    vs_status st = vs_obj_read(d->mesh.file, NULL, &opt, &obj, &e);
    if (st != VS_OK) {
      vs_error_format(&e, why, sizeof why);
      return vs_error_set(err, st, file, d->hull_loc.line, d->hull_loc.column,
                          "bodies.%zu.rigid.file: %s", bi, why);
    }
    pts = obj.vertices;
    n = obj.n_vertices;
  }
  vs_status st = n > VS_HULL_MAX_POINTS
                     ? (snprintf(why, sizeof why,
                                 "expected at most %d points for a convex hull (the documented "
                                 "limit), got %lld", VS_HULL_MAX_POINTS, (long long)n),
                        VS_ERR_LIMIT)
                     : vs_hull_build(pts, (int32_t)n, d->hull_scale, h, why, sizeof why);
  vs_obj_free(&obj);
  if (st != VS_OK)
    return vs_error_set(err, st, file, d->hull_loc.line, d->hull_loc.column,
                        "bodies.%zu.rigid.%s: %s", bi, key, why);
  return VS_OK;
}

vs_status vs_rigid_compile(vs_model *m, const vs_scene *s, const char *file, vs_error *err) {
  if (m->n_rigid == 0) {
    for (size_t c = 0; c < s->n_constraints; c++) {
      const vs_constraint_desc *cd = &s->constraints[c];
      if (!vs_rigid_item(cd)) continue;
      const vs_ref *r = (int)cd->kind == VS_CONSTRAINT_ATTACH ? &cd->b : &cd->a;
      return item_error(err, file, r, c, (int)cd->kind == VS_CONSTRAINT_ATTACH ? "body" : "a",
                        "no rigid body named '%s' (the scene has no rigid bodies)", r->text);
    }
    return VS_OK;
  }
  vs_rmodel *rm = NULL;
  if (vs_rmodel_create(m->n_rigid, (int32_t)s->n_colliders, m->n_rjoints, &rm) != VS_OK)
    return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory allocating the rigid bodies");
  m->priv->rigid = rm;
  vs_rsettings *st = &rm->set;
  st->iterations = (int32_t)s->rigid.iterations;
  st->baumgarte = s->rigid.baumgarte;
  st->slop = s->rigid.slop;
  st->margin = s->rigid.margin;
  st->restitution_threshold = s->rigid.restitution_threshold;
  st->warm_start = s->rigid.warm_start;
  st->substeps = (int32_t)s->rigid.substeps;
  st->sleep = s->rigid.sleep;
  st->geometric_stiffness = s->rigid.geometric_stiffness;
  st->colored = s->relaxation == VS_RELAX_JACOBI;
  st->damping = s->damping;
  memcpy(st->gravity, s->gravity, sizeof st->gravity);
  m->rigid_max_contacts = rm->max_contacts;
  m->rigid_sleep = st->sleep;
  for (size_t c = 0; c < s->n_colliders; c++) {
    const vs_collider_desc *cd = &s->colliders[c];
    vs_rcollider *rc = &rm->colliders[c];
    rc->kind = (int32_t)cd->kind;
    memcpy(rc->a, cd->a, sizeof rc->a);
    memcpy(rc->b, cd->b, sizeof rc->b);
    rc->radius = cd->radius;
    rc->friction = cd->friction;
    rc->restitution = cd->restitution;
    if (cd->kind == VS_COLLIDER_MESH) { /* the BVH that vs_model_build made */
      rc->bvh = m->priv->mesh_search[c].bvh;
      rc->thickness = cd->thickness;
    }
  }
  if (create_motion(s, rm) != VS_OK)
    return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory allocating the rigid bodies");
  int32_t i = 0;
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *d = &s->bodies[b];
    if (d->kind != VS_BODY_RIGID) continue;
    double size[3] = {d->size[0], d->size[1], d->size[2]};
    switch (d->shape) { /* the scene's keys as the shape's size (vsim/kind.h) */
    case VS_RIGID_BOX: break;
    case VS_RIGID_SPHERE: size[0] = d->rradius, size[1] = size[2] = 0.0; break;
    case VS_RIGID_CAPSULE: size[0] = d->rradius, size[1] = d->length, size[2] = 0.0; break;
    case VS_RIGID_CONVEX: break; /* its hull's */
    }
    double hrot[4] = {1, 0, 0, 0}; /* convex: its principal frame in the scene's body frame */
    double mass = d->mass, I[3];
    const int still = d->fixed || d->kinematic; /* infinite mass and inertia */
    if (d->shape == VS_RIGID_CONVEX) {
      vs_hull h;
      vs_status hs = build_hull(d, b, file, &h, err);
      if (hs != VS_OK) return hs;
      if (d->has_density) mass = d->density * h.volume;
      memcpy(hrot, h.rot, sizeof hrot);
      for (int k = 0; k < 3; k++) I[k] = mass * h.inertia[k];
      hs = vs_rmodel_set_hull(rm, i, &h, mass, 0.0, still, d->friction, d->restitution);
      vs_hull_free(&h);
      if (hs == VS_ERR_NOMEM)
        return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory for a convex hull");
      if (hs != VS_OK)
        return vs_error_set(err, VS_ERR_SCENE, file, d->loc.line, d->loc.column,
                            "bodies.%zu: a rigid body needs a positive mass", b);
    } else {
      if (d->has_density) mass = d->density * vs_rigid_volume((int32_t)d->shape, size);
      if (vs_rmodel_set_body(rm, i, (int32_t)d->shape, size, mass, 0.0, still, d->friction,
                             d->restitution) != VS_OK)
        return vs_error_set(err, VS_ERR_SCENE, file, d->loc.line, d->loc.column,
                            "bodies.%zu: a rigid body needs a positive size and mass", b);
      vs_rigid_inertia((int32_t)d->shape, size, mass, I);
    }
    rm->group_bits[i] = 1u << d->collision_group;
    rm->mask[i] = (uint32_t)d->collision_mask;
    m->rigid_body[i] = (int32_t)b;
    memcpy(&m->rigid_size[3 * i], &rm->size[3 * i], 3 * sizeof(double));
    m->rigid_shape[i] = (int32_t)d->shape;
    m->rigid_mass[i] = still ? INFINITY : mass;
    for (int k = 0; k < 3; k++) m->rigid_inertia[3 * i + k] = still ? INFINITY : I[k];
    memcpy(&m->rigid_x0[3 * i], d->center, 3 * sizeof(double));
    double q[4] = {1, 0, 0, 0};
    if (d->has_orientation) memcpy(q, d->orientation, sizeof q);
    else if (d->has_rotation) vs_quat_from_euler_deg(d->rotation, q);
    vs_quat_normalize(q);
    if (d->shape == VS_RIGID_CONVEX && hrot[0] != 1.0) { /* turned to the hull's principal frame */
      double qp[4];
      vs_quat_mul(q, hrot, qp);
      vs_quat_normalize(qp);
      memcpy(q, qp, sizeof q);
    }
    memcpy(&m->rigid_q0[4 * i], q, sizeof q);
    if (!d->fixed) {
      memcpy(&m->rigid_v0[3 * i], d->velocity, 3 * sizeof(double));
      memcpy(&m->rigid_w0[3 * i], d->angular_velocity, 3 * sizeof(double));
    }
    if (rm->motion) compile_motion(m, rm->motion, d, i);
    i++;
  }
  vs_status st2 = compile_items(m, s, file, err);
  if (st2 == VS_OK) vs_rmodel_finish(rm);
  return st2;
}

void vs_rigid_model_free(struct vs_rmodel *rm) { vs_rmodel_free(rm); }
