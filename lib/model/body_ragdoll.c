/* SPDX-License-Identifier: MIT */
/* body_ragdoll.c: Jakobsen's articulated humanoid (Advanced Character Physics
 * §6; the ragdoll of a Verlet cloth and ragdoll tutorial): particles for the joints, sticks for the bones, a
 * rigid torso (a tetrahedron of shoulders, hips and a sternum point), and
 * one-sided links as joint limits.
 *
 * A knee angle alone cannot tell bending from over-straightening (the angle
 * is unsigned), so each thigh carries a kneecap particle in front of the knee
 * and each upper arm an elbow point behind the elbow, both held rigidly to
 * their bone and anchored against twisting.  The foot may then never come
 * closer to its kneecap than with the leg straight (the knee only bends
 * backwards-foot), and the hand never closer to its elbow point than with the
 * arm straight.  Legs never cross: knees and feet keep a minimum distance.
 *
 * The figure stands on `origin` (the point between its feet) facing +z, y up,
 * scaled by `height`; `mass` is spread by segment (a head is heavier than a
 * hand).  Body indices are fixed (see the table) and `pin` takes them. */
#include <math.h>

#include "model/build.h"

enum {
  HEAD, NECK, CHEST, L_SHOULDER, R_SHOULDER, L_ELBOW, R_ELBOW, L_HAND, R_HAND,
  L_HIP, R_HIP, L_KNEE, R_KNEE, L_FOOT, R_FOOT, L_KNEECAP, R_KNEECAP,
  L_ELBOW_BACK, R_ELBOW_BACK, N_JOINTS
};

/* position in units of height (x left, y up, z forward) and mass share */
static const struct { double p[3], mass; } joint[N_JOINTS] = {
    [HEAD] = {{0, 0.94, 0}, 0.08},          [NECK] = {{0, 0.84, 0}, 0.04},
    [CHEST] = {{0, 0.70, 0.06}, 0.22},      [L_SHOULDER] = {{0.13, 0.82, 0}, 0.08},
    [R_SHOULDER] = {{-0.13, 0.82, 0}, 0.08}, [L_ELBOW] = {{0.15, 0.63, 0}, 0.03},
    [R_ELBOW] = {{-0.15, 0.63, 0}, 0.03},   [L_HAND] = {{0.16, 0.45, 0}, 0.02},
    [R_HAND] = {{-0.16, 0.45, 0}, 0.02},    [L_HIP] = {{0.08, 0.52, 0}, 0.10},
    [R_HIP] = {{-0.08, 0.52, 0}, 0.10},     [L_KNEE] = {{0.08, 0.28, 0}, 0.05},
    [R_KNEE] = {{-0.08, 0.28, 0}, 0.05},    [L_FOOT] = {{0.08, 0.03, 0}, 0.03},
    [R_FOOT] = {{-0.08, 0.03, 0}, 0.03},    [L_KNEECAP] = {{0.08, 0.28, 0.05}, 0.01},
    [R_KNEECAP] = {{-0.08, 0.28, 0.05}, 0.01}, [L_ELBOW_BACK] = {{0.15, 0.63, -0.04}, 0.01},
    [R_ELBOW_BACK] = {{-0.15, 0.63, -0.04}, 0.01},
};

/* bones and the rigid parts, as sticks */
static const int bone[][2] = {
    /* torso: a braced quadrilateral plus the sternum point = rigid */
    {L_SHOULDER, R_SHOULDER}, {L_HIP, R_HIP}, {L_SHOULDER, L_HIP}, {R_SHOULDER, R_HIP},
    {L_SHOULDER, R_HIP}, {R_SHOULDER, L_HIP}, {CHEST, L_SHOULDER}, {CHEST, R_SHOULDER},
    {CHEST, L_HIP}, {CHEST, R_HIP},
    /* neck and head */
    {NECK, L_SHOULDER}, {NECK, R_SHOULDER}, {NECK, CHEST}, {HEAD, NECK}, {HEAD, L_SHOULDER},
    {HEAD, R_SHOULDER},
    /* limbs */
    {L_SHOULDER, L_ELBOW}, {L_ELBOW, L_HAND}, {R_SHOULDER, R_ELBOW}, {R_ELBOW, R_HAND},
    {L_HIP, L_KNEE}, {L_KNEE, L_FOOT}, {R_HIP, R_KNEE}, {R_KNEE, R_FOOT},
    /* kneecaps: rigid with the thigh, anchored to the other hip against twist */
    {L_KNEECAP, L_KNEE}, {L_KNEECAP, L_HIP}, {L_KNEECAP, R_HIP},
    {R_KNEECAP, R_KNEE}, {R_KNEECAP, R_HIP}, {R_KNEECAP, L_HIP},
    /* elbow points: rigid with the upper arm, anchored to the neck */
    {L_ELBOW_BACK, L_ELBOW}, {L_ELBOW_BACK, L_SHOULDER}, {L_ELBOW_BACK, NECK},
    {R_ELBOW_BACK, R_ELBOW}, {R_ELBOW_BACK, R_SHOULDER}, {R_ELBOW_BACK, NECK},
};
#define N_BONES ((int)(sizeof bone / sizeof bone[0]))

/* one-sided limits: |a - b| >= factor * (initial distance) */
static const struct { int a, b; double factor; } limit[] = {
    {L_FOOT, L_KNEECAP, 1.0}, {R_FOOT, R_KNEECAP, 1.0},        /* knees bend one way */
    {L_HAND, L_ELBOW_BACK, 1.0}, {R_HAND, R_ELBOW_BACK, 1.0},  /* elbows bend one way */
    {L_KNEE, R_KNEE, 0.6}, {L_FOOT, R_FOOT, 0.6},              /* legs never cross */
};
#define N_LIMITS ((int)(sizeof limit / sizeof limit[0]))

vs_status vs_ragdoll_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                           vs_error *err) {
  out->particles = N_JOINTS;
  out->links = N_BONES + N_LIMITS;
  return VS_OK;
}

vs_status vs_ragdoll_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                              vs_error *err) {
  const int32_t first = bld->np;
  for (int i = 0; i < N_JOINTS; i++) {
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = b->origin[k] + b->height * joint[i].p[k];
    vs_builder_particle(bld, x, NULL, b->mass * joint[i].mass, b->radius, body);
  }
  if (b->pin_mode == VS_PIN_LIST)
    for (size_t k = 0; k < b->n_pins; k++) {
      if (b->pins[k] < 0 || b->pins[k] >= N_JOINTS)
        return vs_pin_index_error(bld, b, b->pins[k], N_JOINTS, err);
      vs_builder_pin(bld, first + (int32_t)b->pins[k]);
    }
  for (int i = 0; i < N_BONES; i++)
    vs_builder_link(bld, first + bone[i][0], first + bone[i][1], &b->stretch, VS_ROLE_STRETCH,
                    0.0, VS_SIDE_EQUAL, -1.0);
  for (int i = 0; i < N_LIMITS; i++) {
    const double *pa = joint[limit[i].a].p, *pb = joint[limit[i].b].p;
    const double d = b->height * sqrt((pa[0] - pb[0]) * (pa[0] - pb[0]) +
                                      (pa[1] - pb[1]) * (pa[1] - pb[1]) +
                                      (pa[2] - pb[2]) * (pa[2] - pb[2]));
    vs_builder_link(bld, first + limit[i].a, first + limit[i].b, &b->stretch, VS_ROLE_LIMIT, 0.0,
                    VS_SIDE_MIN, limit[i].factor * d);
  }
  return VS_OK;
}
