/* rigid_compile.c: the scene's rigid bodies (VS_BODY_RIGID items of
 * `bodies`, in file order) and solver.rigid into the rigid solver's model
 * (lib/solve/rigid.h), plus the model rows that the writer and the state
 * read (initial pose, mass, inertia, shape, size).  The scene's colliders
 * are the rigid bodies' colliders too (same kind numbers). */
#include <math.h>
#include <string.h>

#include "model/build.h"
#include "solve/rigid.h"

_Static_assert((int)VS_RIGID_BOX == VS_RSHAPE_BOX && (int)VS_RIGID_SPHERE == VS_RSHAPE_SPHERE &&
                   (int)VS_RIGID_CAPSULE == VS_RSHAPE_CAPSULE,
               "scene shapes are the solver's shapes");
_Static_assert((int)VS_COLLIDER_PLANE == VS_RCOLL_PLANE && (int)VS_COLLIDER_SPHERE == VS_RCOLL_SPHERE &&
                   (int)VS_COLLIDER_BOX == VS_RCOLL_BOX && (int)VS_COLLIDER_BOUNDS == VS_RCOLL_BOUNDS,
               "scene colliders are the solver's colliders");

int32_t vs_rigid_count(const vs_scene *s) {
  int32_t n = 0;
  for (size_t b = 0; b < s->n_bodies; b++) n += s->bodies[b].kind == VS_BODY_RIGID;
  return n;
}

vs_status vs_rigid_compile(vs_model *m, const vs_scene *s, const char *file, vs_error *err) {
  if (m->n_rigid == 0) return VS_OK;
  vs_rmodel *rm = NULL;
  if (vs_rmodel_create(m->n_rigid, (int32_t)s->n_colliders, m->n_rjoints, &rm) != VS_OK)
    return vs_error_set(err, VS_ERR_NOMEM, file, 0, 0, "out of memory allocating the rigid bodies");
  m->rigid = rm;
  vs_rsettings *st = &rm->set;
  st->iterations = (int32_t)s->rigid.iterations;
  st->baumgarte = s->rigid.baumgarte;
  st->slop = s->rigid.slop;
  st->restitution_threshold = s->rigid.restitution_threshold;
  st->warm_start = s->rigid.warm_start;
  st->substeps = (int32_t)s->rigid.substeps;
  st->damping = s->damping;
  memcpy(st->gravity, s->gravity, sizeof st->gravity);
  m->rigid_max_contacts = rm->max_contacts;
  for (size_t c = 0; c < s->n_colliders; c++) {
    const vs_collider_desc *cd = &s->colliders[c];
    vs_rcollider *rc = &rm->colliders[c];
    rc->kind = (int32_t)cd->kind;
    memcpy(rc->a, cd->a, sizeof rc->a);
    memcpy(rc->b, cd->b, sizeof rc->b);
    rc->radius = cd->radius;
    rc->friction = cd->friction;
    rc->restitution = cd->restitution;
  }
  int32_t i = 0;
  for (size_t b = 0; b < s->n_bodies; b++) {
    const vs_body_desc *d = &s->bodies[b];
    if (d->kind != VS_BODY_RIGID) continue;
    double size[3] = {d->size[0], d->size[1], d->size[2]};
    if (d->shape == VS_RIGID_SPHERE) size[0] = d->rradius, size[1] = size[2] = 0.0;
    if (d->shape == VS_RIGID_CAPSULE) size[0] = d->rradius, size[1] = d->length, size[2] = 0.0;
    const double mass = d->has_density ? d->density * vs_rigid_volume((int32_t)d->shape, size) : d->mass;
    if (vs_rmodel_set_body(rm, i, (int32_t)d->shape, size, mass, 0.0, d->fixed, d->friction,
                           d->restitution) != VS_OK)
      return vs_error_set(err, VS_ERR_SCENE, file, d->loc.line, d->loc.column,
                          "bodies.%zu: a rigid body needs a positive size and mass", b);
    m->rigid_body[i] = (int32_t)b;
    memcpy(&m->rigid_size[3 * i], &rm->size[3 * i], 3 * sizeof(double));
    m->rigid_shape[i] = (int32_t)d->shape;
    m->rigid_mass[i] = d->fixed ? INFINITY : mass;
    double I[3];
    vs_rigid_inertia((int32_t)d->shape, size, mass, I);
    for (int k = 0; k < 3; k++) m->rigid_inertia[3 * i + k] = d->fixed ? INFINITY : I[k];
    memcpy(&m->rigid_x0[3 * i], d->center, 3 * sizeof(double));
    double q[4] = {1, 0, 0, 0};
    if (d->has_orientation) memcpy(q, d->orientation, sizeof q);
    else if (d->has_rotation) vs_quat_from_euler_deg(d->rotation, q);
    vs_quat_normalize(q);
    memcpy(&m->rigid_q0[4 * i], q, sizeof q);
    if (!d->fixed) {
      memcpy(&m->rigid_v0[3 * i], d->velocity, 3 * sizeof(double));
      memcpy(&m->rigid_w0[3 * i], d->angular_velocity, 3 * sizeof(double));
    }
    i++;
  }
  return VS_OK;
}

void vs_rigid_model_free(struct vs_rmodel *rm) { vs_rmodel_free(rm); }
