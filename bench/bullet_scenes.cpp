// SPDX-License-Identifier: MIT
// bullet_scenes.cpp: Bullet's column of `make bench-rigid`.  Builds one scene
// of bench/rigid/ in Bullet and prints one line of JSON in the format of
// bench/rigid_scenes.c, with the metrics of bench/rigid_metrics.h.
//
//   build/bench/bullet_scenes NAME|SCENE.yaml [--frames N] [--dir DIR] [--trace K]
//                             [--iterations N] [--substeps N]
//
// NAME is a scene of DIR (default bench/rigid); --trace K as rigid_scenes.  --iterations and
// --substeps leave Bullet's defaults (10 iterations, one step a frame) for N solver iterations
// and N fixed steps of dt / N a frame: what Bullet needs to hold a row that it loses at its
// defaults (docs/performance.md, "Bullet at vsim's quality").  The scene file is read
// through vsim's loader and model compiler (the public C API), so that both
// engines get the same bodies, sizes, masses, inertias, poses, velocities and
// joint anchors, in the same order; only the solving is Bullet's.
//
// Bullet at its defaults: btDiscreteDynamicsWorld with
// btSequentialImpulseConstraintSolver (10 iterations, split impulse, ERP 0.2),
// btDbvtBroadphase, default collision margins (0.04 m on boxes), sleeping on
// (the default deactivation: 2 s below 0.8 m/s and 1 rad/s), no continuous
// collision detection, one step of dt per frame (stepSimulation(dt, 0, dt)).
// A ball joint is a btPoint2PointConstraint, a hinge a btHingeConstraint; the two bodies of a
// joint do not collide with each other (addConstraint(c, true)) unless the joint says `collide:
// true`, as in vsim, whose default is that they do not.
//
// Joint limits (ragdoll_pile):
// - a ball with `cone` and/or `twist` is a btConeTwistConstraint with setLimit's defaults
//   (softness 1, bias 0.3, relaxation 1).  Its frames are one world frame at the anchor, x
//   along the joint's axis, put in each body's start pose, so that Bullet's twist axis (x)
//   is vsim's `axis` in both bodies and the frames coincide at the start.  vsim's `cone` c
//   is both swing spans (swing1 about z, swing2 about y): a circular cone of half-angle c of
//   b's x axis about a's, which is vsim's cone (the angle between a's and b's axis).
//   Bullet's twist range is symmetric, |twist| <= span: vsim's `twist` [lo, hi] is the span
//   (hi - lo) / 2 about the middle m = (lo + hi) / 2, b's frame turned by -m about x, so
//   that a pure twist by t reads |t - m| in Bullet, within the span exactly when lo <= t <=
//   hi (every ragdoll here has lo = -hi: m = 0).  A ball without `cone` gets swing spans of
//   pi (no swing limit), without `twist` a twist span of pi.  Two differences remain:
//   Bullet's limits are soft (a bias of 0.3 of the error a step, where vsim's are
//   speculative rows that push a violation back by 0.2 of it a substep), and Bullet splits
//   swing from twist by its own decomposition of the relative rotation, which differs from
//   vsim's twist (the angle of conj(qa) qb conj(q0) about a's axis) once there is swing
//   too; both read the same for a twist without swing.
// - a hinge with `limits` is a btHingeConstraint built from frames (the world frame at the
//   anchor with z along the axis, in each body's start pose: hinge angle 0 at the start, as
//   vsim's), with setLimit's defaults (softness 0.9, bias 0.3, relaxation 1).  Bullet's
//   hinge angle is minus vsim's (b's right-handed turn about a's axis; checked on the
//   ragdolls, frame by frame), so vsim's [lo, hi] is setLimit(-hi, -lo).  A hinge without
//   limits is built from the pivots and axes as before (the chains').
// - b `world`: Bullet's fixed body (btTypedConstraint::getFixedBody) with the world frame.
// Both engines' joint gaps and limit violations are measured alike by bench/rigid_metrics.h,
// on vsim's definitions of the angles.
//
// Materials: vsim combines a pair's friction as sqrt(fa fb) and restitution
// as max(ea, eb); Bullet multiplies both.  Each Bullet object gets the square
// root of its vsim value, so that every pair's friction is vsim's exactly,
// and restitution too where both sides have the same value (every scene of
// bench/rigid/).
//
// A run whose bodies are not finite or faster than 10000 m/s (vsim's default
// runaway bound) stops there and says "blew up".
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rigid_metrics.h"

static btVector3 v3(const double *p) { return btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])); }

int main(int argc, char **argv) {
  const char *arg = nullptr, *dir = "bench/rigid";
  long long frames = -1;
  int trace = -1, iterations = 0, substeps = 1;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--trace") && i + 1 < argc)
      trace = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--substeps") && i + 1 < argc)
      substeps = std::atoi(argv[++i]);
    else if (!arg && argv[i][0] != '-')
      arg = argv[i];
    else {
      arg = nullptr;
      break;
    }
  }
  if (!arg || frames == 0 || frames < -1 || iterations < 0 || substeps < 1) {
    std::fprintf(stderr, "usage: bullet_scenes NAME|SCENE.yaml [--frames N] [--dir DIR] [--trace K] "
                         "[--iterations N] [--substeps N]\n");
    return 2;
  }
  std::string path = arg;
  if (path.find('/') == std::string::npos && path.find(".yaml") == std::string::npos)
    path = std::string(dir) + "/" + path + ".yaml";

  char set[64];
  std::snprintf(set, sizeof set, "time.frames=%lld", frames);
  vs_override ov = {set};
  vs_error err;
  std::memset(&err, 0, sizeof err);
  vs_scene *sc = nullptr;
  vs_model *m = nullptr;
  char buf[2048];
  if (vs_scene_load_file(path.c_str(), &ov, frames > 0 ? 1 : 0, &sc, &err) != VS_OK ||
      vs_model_build(sc, &m, &err) != VS_OK) {
    std::fprintf(stderr, "bullet_scenes: %s\n", vs_error_format(&err, buf, sizeof buf));
    return 1;
  }
  const int n = m->n_rigid;
  if (n == 0) {
    std::fprintf(stderr, "bullet_scenes: %s has no rigid bodies\n", path.c_str());
    return 1;
  }
  const vs_rmodel *rm = m->priv->rigid;

  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(v3(m->gravity));
  if (iterations > 0) world.getSolverInfo().m_numIterations = iterations;

  std::vector<btCollisionShape *> shapes;
  std::vector<btRigidBody *> statics, bodies;
  std::vector<btTypedConstraint *> joints;
  for (int c = 0; c < m->n_colliders; c++) {
    const vs_collider_desc *cd = &m->colliders[c];
    btCollisionShape *shape = nullptr;
    btTransform t;
    t.setIdentity();
    if (cd->kind == VS_COLLIDER_PLANE) {
      const double *p = cd->a, *nn = cd->b;
      shape = new btStaticPlaneShape(v3(nn), btScalar(p[0] * nn[0] + p[1] * nn[1] + p[2] * nn[2]));
    } else if (cd->kind == VS_COLLIDER_BOX) {
      double half[3], mid[3];
      for (int k = 0; k < 3; k++) half[k] = 0.5 * (cd->b[k] - cd->a[k]), mid[k] = 0.5 * (cd->b[k] + cd->a[k]);
      shape = new btBoxShape(v3(half));
      t.setOrigin(v3(mid));
    } else if (cd->kind == VS_COLLIDER_SPHERE) {
      shape = new btSphereShape(btScalar(cd->radius));
      t.setOrigin(v3(cd->a));
    } else {
      std::fprintf(stderr, "bullet_scenes: collider %d: only plane, box and sphere colliders\n", c);
      return 1;
    }
    shapes.push_back(shape);
    btRigidBody::btRigidBodyConstructionInfo ci(0, nullptr, shape);
    ci.m_startWorldTransform = t;
    ci.m_friction = btScalar(std::sqrt(cd->friction));
    ci.m_restitution = btScalar(std::sqrt(cd->restitution));
    auto *b = new btRigidBody(ci);
    world.addRigidBody(b);
    statics.push_back(b);
  }
  for (int i = 0; i < n; i++) {
    const double *sz = m->rigid_size + 3 * i;
    btCollisionShape *shape;
    if (m->rigid_shape[i] == VS_RIGID_BOX)
      shape = new btBoxShape(btVector3(btScalar(sz[0] / 2), btScalar(sz[1] / 2), btScalar(sz[2] / 2)));
    else if (m->rigid_shape[i] == VS_RIGID_SPHERE)
      shape = new btSphereShape(btScalar(sz[0]));
    else if (m->rigid_shape[i] == VS_RIGID_CONVEX) {
      // btConvexHullShape of vsim's hull vertices, in the same body (principal)
      // frame and centre of mass; Bullet's default margin (0.04 m) around them
      const vs_hull *h = vs_rmodel_hull(rm, i);
      auto *hs = new btConvexHullShape();
      for (int32_t k = 0; k < h->nv; k++) hs->addPoint(v3(h->v + 3 * k), k + 1 == h->nv);
      shape = hs;
    } else
      shape = new btCapsuleShape(btScalar(sz[0]), btScalar(sz[1]));
    shapes.push_back(shape);
    const bool fixed = !std::isfinite(m->rigid_mass[i]);
    const double *I = m->rigid_inertia + 3 * i, *q = m->rigid_q0 + 4 * i;
    btQuaternion rot{btScalar(q[1]), btScalar(q[2]), btScalar(q[3]), btScalar(q[0])};
    btTransform t(rot, v3(m->rigid_x0 + 3 * i));
    btRigidBody::btRigidBodyConstructionInfo ci(fixed ? 0 : btScalar(m->rigid_mass[i]), nullptr, shape,
                                                fixed ? btVector3(0, 0, 0) : v3(I));
    ci.m_startWorldTransform = t;
    ci.m_friction = btScalar(std::sqrt(rm->friction[i]));
    ci.m_restitution = btScalar(std::sqrt(rm->restitution[i]));
    auto *b = new btRigidBody(ci);
    if (!fixed) {
      b->setLinearVelocity(v3(m->rigid_v0 + 3 * i));
      b->setAngularVelocity(v3(m->rigid_w0 + 3 * i));
    }
    world.addRigidBody(b);
    bodies.push_back(b);
  }
  // The world frame at joint j's anchor with axis `ax` (world) as its column k, put in a
  // body's start frame (b = -1: the world itself).
  auto frame_in = [&](int body, const double *at, const btVector3 &ax, int k) {
    btVector3 u = ax.normalized(), p, q;
    btPlaneSpace1(u, p, q);
    btMatrix3x3 B;
    if (k == 0)  // columns x = u, y = p, z = q (right-handed: p x q = u)
      B.setValue(u.x(), p.x(), q.x(), u.y(), p.y(), q.y(), u.z(), p.z(), q.z());
    else  // k == 2: x = p, y = q, z = u
      B.setValue(p.x(), q.x(), u.x(), p.y(), q.y(), u.y(), p.z(), q.z(), u.z());
    btTransform w(B, v3(at));
    if (body < 0) return w;
    const double *q0 = m->rigid_q0 + 4 * body;
    const btQuaternion r0{btScalar(q0[1]), btScalar(q0[2]), btScalar(q0[3]), btScalar(q0[0])};
    const btTransform t(r0, v3(m->rigid_x0 + 3 * body));
    return t.inverse() * w;
  };
  for (int j = 0; j < rm->n_joints; j++) {
    if (rm->joint_kind[j] != VS_JOINT_BALL && rm->joint_kind[j] != VS_JOINT_HINGE) {
      std::fprintf(stderr, "bullet_scenes: joint %d: only ball and hinge joints\n", j);
      return 1;
    }
    int a = rm->joint_ab[2 * j], b = rm->joint_ab[2 * j + 1];
    const int32_t fl = rm->joint_flags[j];
    const double *ax = rm->joint_axis + 6 * j, *lim = rm->joint_limit + 2 * j;
    // the joint's world anchor and axis at the start (a's anchor and axis in a's start pose)
    double at[3];
    rbm_point(m->rigid_x0 + 3 * a, m->rigid_q0 + 4 * a, rm->joint_pa + 3 * j, at);
    double axw[3];
    rbm_dir(m->rigid_q0 + 4 * a, ax, axw);
    btTypedConstraint *c;
    if (rm->joint_kind[j] == VS_JOINT_HINGE && (fl & VS_RJOINT_LIMIT)) {
      btTransform fa = frame_in(a, at, v3(axw), 2), fb = frame_in(b, at, v3(axw), 2);
      // b = -1: the world as Bullet's fixed body (identity pose), fb the world frame itself
      btRigidBody &rb = b >= 0 ? *bodies[b] : btTypedConstraint::getFixedBody();
      btHingeConstraint *h = new btHingeConstraint(*bodies[a], rb, fa, fb);
      h->setLimit(btScalar(-lim[1]), btScalar(-lim[0]));
      c = h;
    } else if (rm->joint_kind[j] == VS_JOINT_HINGE) {  // no limits: the axis in each frame
      if (b >= 0)
        c = new btHingeConstraint(*bodies[a], *bodies[b], v3(rm->joint_pa + 3 * j),
                                  v3(rm->joint_pb + 3 * j), v3(ax), v3(ax + 3));
      else
        c = new btHingeConstraint(*bodies[a], v3(rm->joint_pa + 3 * j), v3(ax));
    } else if (fl & (VS_RJOINT_CONE | VS_RJOINT_TWIST)) {
      const double cone = (fl & VS_RJOINT_CONE) ? rm->joint_cone[j] : SIMD_PI;
      const double mid = (fl & VS_RJOINT_TWIST) ? 0.5 * (lim[0] + lim[1]) : 0.0;
      const double span = (fl & VS_RJOINT_TWIST) ? 0.5 * (lim[1] - lim[0]) : SIMD_PI;
      btTransform fa = frame_in(a, at, v3(axw), 0), fb = frame_in(b, at, v3(axw), 0);
      fb.setBasis(fb.getBasis() * btMatrix3x3(btQuaternion(btVector3(1, 0, 0), btScalar(-mid))));
      btRigidBody &rb = b >= 0 ? *bodies[b] : btTypedConstraint::getFixedBody();
      btConeTwistConstraint *ct = new btConeTwistConstraint(*bodies[a], rb, fa, fb);
      ct->setLimit(btScalar(cone), btScalar(cone), btScalar(span));
      c = ct;
    } else if (b >= 0)
      c = new btPoint2PointConstraint(*bodies[a], *bodies[b], v3(rm->joint_pa + 3 * j),
                                      v3(rm->joint_pb + 3 * j));
    else  // the world point is body a's anchor in its start pose: the joint's `at`
      c = new btPoint2PointConstraint(*bodies[a], v3(rm->joint_pa + 3 * j));
    world.addConstraint(c, !rm->joint_collide[j]);
    joints.push_back(c);
  }

  std::vector<double> x(3 * n), q(4 * n), v(3 * n), w(3 * n);
  auto gather = [&] {
    for (int i = 0; i < n; i++) {
      const btTransform &t = bodies[i]->getCenterOfMassTransform();
      btQuaternion r = t.getRotation();
      const btVector3 &p = t.getOrigin(), &lv = bodies[i]->getLinearVelocity(),
                      &av = bodies[i]->getAngularVelocity();
      for (int k = 0; k < 3; k++) x[3 * i + k] = p[k], v[3 * i + k] = lv[k], w[3 * i + k] = av[k];
      q[4 * i] = r.w(), q[4 * i + 1] = r.x(), q[4 * i + 2] = r.y(), q[4 * i + 3] = r.z();
    }
  };
  gather();
  rbm r;
  if (rbm_init(&r, m, sc->name, m->frames, x.data(), q.data(), v.data(), w.data())) {
    std::fprintf(stderr, "bullet_scenes: out of memory\n");
    return 1;
  }
  const btScalar dt = btScalar(m->dt);
  double cpu = 0;
  long long f = 0;
  while (f < m->frames) {
    double t0 = rbm_cpu();
    if (substeps == 1) world.stepSimulation(dt, 0, dt);
    else world.stepSimulation(dt, substeps, dt / btScalar(substeps));
    cpu += rbm_cpu() - t0;
    f++;
    gather();
    if (trace >= 0 && trace < n) rbm_trace(f, trace, x.data(), v.data(), w.data());
    if (rbm_frame(&r, f, x.data(), q.data(), v.data(), w.data())) break;
  }
  int asleep = 0;
  for (auto *b : bodies) asleep += !b->isStaticObject() && b->getActivationState() == ISLAND_SLEEPING;
#ifdef BT_USE_DOUBLE_PRECISION
  const char *precision = "double"; /* pkg-config bullet-float64 (make bench-rigid's third column) */
#else
  const char *precision = "single";
#endif
  std::printf("{\"engine\": \"bullet\", \"version\": \"%d.%02d\", \"precision\": \"%s\", \"scene\": \"",
              btGetVersion() / 100, btGetVersion() % 100, precision);
  rbm_str(stdout, sc->name);
  std::printf("\", \"bodies\": %d, \"joints\": %d, \"frames\": %lld, \"frames_done\": %lld, "
              "\"dt\": %.17g, \"iterations\": %d, \"substeps\": %d, \"double_precision\": %s, \"asleep_at_end\": %d, "
              "\"ms_per_frame\": %.6f, \"status\": \"%s\", \"blew_frame\": %lld, \"why\": \"%s\", "
              "\"metrics\": {",
              n, rm->n_joints, (long long)m->frames, f, m->dt, world.getSolverInfo().m_numIterations, substeps,
              sizeof(btScalar) == 8 ? "true" : "false", asleep, f > 0 ? 1e3 * cpu / double(f) : 0.0,
              r.blew ? "blew up" : "ok", (long long)(r.blew ? r.blew_frame : -1),
              r.blew ? "a body's pose or velocity is not finite, or faster than 10000 m/s" : "");
  rbm_print(&r, stdout);
  std::printf("}}\n");
  rbm_free(&r);

  for (auto *c : joints) {
    world.removeConstraint(c);
    delete c;
  }
  for (auto *b : bodies) {
    world.removeRigidBody(b);
    delete b;
  }
  for (auto *b : statics) {
    world.removeRigidBody(b);
    delete b;
  }
  for (auto *s : shapes) delete s;
  vs_model_free(m);
  vs_scene_free(sc);
  return 0;
}
