// SPDX-License-Identifier: MIT
/* bullet_cloth.cpp: the peer of bench.c's cloth rows, in Bullet's soft-body
 * solver (Debian libbullet-dev 3.24), so that `make bench` prints both side
 * by side.  Built only when `pkg-config --exists bullet`.
 *
 *   bullet_cloth N [FRAMES] [ITERATIONS]
 *
 * The same cloth as bench.c: N x N particles over 1 m x 1 m, structural links
 * only (btSoftBodyHelpers::CreatePatch without diagonals), the top edge pinned
 * (mass 0), total mass 1 kg, gravity -9.81, dt 1/60, one step a frame,
 * `ITERATIONS` position iterations (m_cfg.piterations, Bullet's PBD-style link
 * relaxation; default 10), no collisions, no aerodynamics.  Prints one line:
 *   links ms_per_frame ns_per_projection max_rel
 * ns_per_projection = stepping wall time / (frames * iterations * links), the
 * measure bench.c uses; max_rel = the largest |length - rest| / rest over the
 * links after the last frame (the same accuracy figure as bench.c's). */
#include <BulletSoftBody/btDefaultSoftBodySolver.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

static double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bullet_cloth N [FRAMES] [ITERATIONS]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int frames = argc > 2 ? std::atoi(argv[2]) : 100;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 10;
  if (n < 2 || frames < 1 || iters < 1) {
    std::fprintf(stderr, "bullet_cloth: bad arguments\n");
    return 2;
  }
  btSoftBodyRigidBodyCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDefaultSoftBodySolver softSolver;
  btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config, &softSolver);
  world.setGravity(btVector3(0, -9.81, 0));
  btSoftBodyWorldInfo &info = world.getWorldInfo();
  info.m_gravity = btVector3(0, -9.81, 0);
  info.air_density = 0;
  info.water_density = 0;
  info.m_sparsesdf.Initialize();

  /* Corners: the cloth lies in the x-y plane from (0,0) to (1,1); fixeds 1+2
   * pin the corners of the top row, and the rest of that row is pinned below. */
  btSoftBody *cloth = btSoftBodyHelpers::CreatePatch(
      info, btVector3(0, 1, 0), btVector3(1, 1, 0), btVector3(0, 0, 0), btVector3(1, 0, 0), n, n, 0,
      false);
  cloth->m_cfg.piterations = iters;
  cloth->m_cfg.viterations = 0;
  cloth->m_cfg.diterations = 0;
  cloth->m_cfg.citerations = 0;
  cloth->m_cfg.kDP = 0;
  cloth->m_cfg.kLF = 0;
  cloth->m_cfg.kDG = 0;
  cloth->m_cfg.collisions = 0;
  cloth->m_materials[0]->m_kLST = 1.0;
  cloth->setTotalMass(1.0);
  /* CreatePatch puts row 0 at corner00 (y = 1): pin that row. */
  for (int i = 0; i < n; i++) cloth->setMass(i, 0);
  world.addSoftBody(cloth);

  const int links = cloth->m_links.size();
  const double dt = 1.0 / 60.0;
  const double t0 = now();
  for (int f = 0; f < frames; f++) world.stepSimulation(dt, 1, dt);
  const double wall = now() - t0;

  double max_rel = 0;
  for (int k = 0; k < links; k++) {
    const btSoftBody::Link &l = cloth->m_links[k];
    const double len = (l.m_n[0]->m_x - l.m_n[1]->m_x).length();
    const double rel = std::fabs(len - l.m_rl) / l.m_rl;
    if (rel > max_rel) max_rel = rel;
  }
  std::printf("%d %.4f %.3f %.4e\n", links, 1e3 * wall / frames,
              1e9 * wall / ((double)frames * iters * links), max_rel);
  world.removeSoftBody(cloth);
  delete cloth;
  return 0;
}
