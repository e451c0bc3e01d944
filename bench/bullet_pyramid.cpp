// SPDX-License-Identifier: MIT
// bullet_pyramid.cpp: the pyramid of bench/rigid_pyramid.c in Bullet
// (btSequentialImpulseConstraintSolver, 10 iterations, dt 1/60, one substep),
// for the comparison with vsim (make bench): 20 levels, 210 boxes of 0.2 m, friction
// 0.6, mass 1, on a ground plane.  Prints ms per frame and the largest
// distance of any box from its start after the frames.
//   build/bench/bullet_pyramid [levels] [frames]
#include <btBulletDynamicsCommon.h>

#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  int levels = argc > 1 ? std::atoi(argv[1]) : 20;
  int frames = argc > 2 ? std::atoi(argv[2]) : 600;
  if (levels < 1 || frames < 1) {
    std::fprintf(stderr, "usage: bullet_pyramid [levels] [frames]\n");
    return 2;
  }
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(btVector3(0, -9.81, 0));
  world.getSolverInfo().m_numIterations = 10;

  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btRigidBody::btRigidBodyConstructionInfo gi(0, nullptr, &ground_shape);
  gi.m_friction = 0.6;
  btRigidBody ground(gi);
  world.addRigidBody(&ground);

  const double e = 0.2;
  btBoxShape box(btVector3(e / 2, e / 2, e / 2));
  btVector3 inertia;
  box.calculateLocalInertia(1.0, inertia);
  std::vector<btRigidBody *> bodies;
  std::vector<btVector3> start;
  std::vector<btDefaultMotionState *> states;
  for (int row = 0; row < levels; row++) {
    int cnt = levels - row;
    for (int i = 0; i < cnt; i++) {
      btVector3 p((i - 0.5 * (cnt - 1)) * e, 0.5 * e + row * e, 0);
      btTransform t;
      t.setIdentity();
      t.setOrigin(p);
      auto *ms = new btDefaultMotionState(t);
      btRigidBody::btRigidBodyConstructionInfo ci(1.0, ms, &box, inertia);
      ci.m_friction = 0.6;
      auto *b = new btRigidBody(ci);
      world.addRigidBody(b);
      bodies.push_back(b);
      states.push_back(ms);
      start.push_back(p);
    }
  }
  // CPU time of this process, as bench/rigid_pyramid.c measures it
  auto now = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
  };
  double t0 = now();
  for (int f = 0; f < frames; f++) world.stepSimulation(1.0 / 60.0, 0, 1.0 / 60.0);
  double t1 = now();
  double drift = 0, sink = 0;
  for (size_t i = 0; i < bodies.size(); i++) {
    btVector3 p = bodies[i]->getCenterOfMassPosition();
    double d = (p - start[i]).length();
    if (d > drift) drift = d;
    double s = 0.5 * e - p.y();
    if (s > sink) sink = s;
  }
  double ms = 1e3 * (t1 - t0) / frames;
  std::printf("bullet pyramid: %d levels, %zu boxes, %d frames, 1 substep, 10 iterations: "
              "%.3f ms/frame (CPU), max drift %.4f m\n",
              levels, bodies.size(), frames, ms, drift);
  for (auto *b : bodies) {
    world.removeRigidBody(b);
    delete b;
  }
  for (auto *s : states) delete s;
  world.removeRigidBody(&ground);
  return 0;
}
