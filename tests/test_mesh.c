/* SPDX-License-Identifier: MIT */
/* test_mesh.c: the mesh body and the mesh collider end to end:
 * a cloth draped over an icosphere mesh against the analytic sphere, the
 * mesh body's links and masses on the built-in cloth's grid, the mesh body
 * against the same particles and links written out by hand (bitwise), a
 * 100 m/s particle against one triangle, every OBJ error class through the
 * CLI, and bitwise results across --threads and --resume. */
#include <math.h>

#include "runutil.h"
#include "util/text.h"

static char *repo(const char *rel) { return cu_repo_path(rel); }

/* Run a model for frames, from a fresh state; the caller frees the state. */
static vs_state *run_frames(const vs_model *m, int frames) {
  vs_state *s = tu_state(m);
  vs_error e;
  for (int f = 0; f < frames; f++) {
    vs_error_clear(&e);
    char buf[2048];
    ck_assert_msg(vs_step(m, s, &e) == VS_OK, "step: %s", vs_error_format(&e, buf, sizeof buf));
  }
  return s;
}

/* ---- a cloth over an icosphere mesh vs over the analytic sphere ---------- */

/* A 1.2 m cloth that rests on the ball and hangs free of the floor: a cloth
 * that reaches the floor folds, and where the folds go is chaotic (the
 * analytic ball 2 mm smaller moves the 2 m cloth's particles 7 cm on
 * average).  Here the 2 mm smaller ball moves them 1.5 cm, the icosphere
 * (faces up to 2 mm inside the ball) 1.6 cm. */
static const char *const DRAPE =
    "vsim: 1\n"
    "time: {dt: 0.0166667, frames: 90, substeps: 2}\n"
    "solver: {iterations: 8}\n"
    "world:\n"
    "  colliders:\n"
    "    - %s\n"
    "    - plane: {point: [0, 0, 0], normal: [0, 1, 0], friction: 0.6}\n"
    "bodies:\n"
    "  - cloth: {origin: [-0.6, 1.3, -0.6], size: [1.2, 1.2], resolution: [20, 20], plane: xz,\n"
    "            mass: 0.5, radius: 0.01, stretch: {stiffness: 1}, shear: {stiffness: 0.8},\n"
    "            bend: {stiffness: 0.1}}\n";

/* cu_write to a path made by cu_strf, then free the path. */
static void write_at(char *path, const char *text) {
  cu_write(path, text);
  free(path);
}

START_TEST(drape_over_mesh_matches_sphere) {
  char *ico = repo("configs/meshes/icosphere.obj");
  char *ya = cu_strf(DRAPE, "sphere: {center: [0, 0.5, 0], radius: 0.5, friction: 0.8}");
  char *col = cu_strf("mesh: {file: \"%s\", transform: {translate: [0, 0.5, 0]}, friction: 0.8}",
                      ico);
  char *yb = cu_strf(DRAPE, col);
  vs_scene *sa = tu_scene(ya), *sb = tu_scene(yb);
  vs_model *ma = tu_model(sa), *mb = tu_model(sb);
  ck_assert_int_eq(mb->n_mesh_colliders, 1);
  ck_assert_int_eq(mb->collider_mesh[0].n_triangles, 1280);
  vs_state *a = run_frames(ma, 90), *b = run_frames(mb, 90);
  const int32_t n = ma->n_particles;
  double sum = 0.0, worst_out = INFINITY;
  const double *v = mb->mesh_vertices;
  const int32_t *t = mb->mesh_triangles;
  for (int32_t i = 0; i < n; i++) {
    const double *pa = a->x + 4 * (size_t)i, *pb = b->x + 4 * (size_t)i;
    sum += sqrt((pa[0] - pb[0]) * (pa[0] - pb[0]) + (pa[1] - pb[1]) * (pa[1] - pb[1]) +
                (pa[2] - pb[2]) * (pa[2] - pb[2]));
    /* outside the convex mesh: in front of at least one face (outward
     * normals point away from the centre) */
    double best = -INFINITY;
    for (int32_t k = 0; k < mb->collider_mesh[0].n_triangles; k++) {
      const double *p0 = v + 3 * t[3 * k], *p1 = v + 3 * t[3 * k + 1], *p2 = v + 3 * t[3 * k + 2];
      double u[3], w[3], nn[3];
      for (int c = 0; c < 3; c++) u[c] = p1[c] - p0[c], w[c] = p2[c] - p0[c];
      nn[0] = u[1] * w[2] - u[2] * w[1], nn[1] = u[2] * w[0] - u[0] * w[2],
      nn[2] = u[0] * w[1] - u[1] * w[0];
      double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
      double out = (p0[0] - 0.0) * nn[0] + (p0[1] - 0.5) * nn[1] + (p0[2] - 0.0) * nn[2];
      if (out < 0) len = -len;
      double d = ((pb[0] - p0[0]) * nn[0] + (pb[1] - p0[1]) * nn[1] + (pb[2] - p0[2]) * nn[2]) / len;
      if (d > best) best = d;
    }
    if (best < worst_out) worst_out = best;
  }
  const double mean = sum / n;
  printf("drape: mean distance mesh vs sphere %.4g m; least outside distance %.4g m\n", mean,
         worst_out);
  ck_assert_msg(mean < 0.03, "mean distance %g m", mean);
  ck_assert_msg(worst_out > 0.0, "a particle is inside the mesh (%g m)", worst_out);
  /* the cloth did rest on the ball: its top is near 1 + radius */
  double top = -INFINITY;
  for (int32_t i = 0; i < n; i++) top = fmax(top, b->x[4 * (size_t)i + 1]);
  ck_assert_msg(top > 0.99 && top < 1.05, "top %g", top);
  vs_state_free(a), vs_state_free(b);
  vs_model_free(ma), vs_model_free(mb);
  vs_scene_free(sa), vs_scene_free(sb);
  free(ya), free(yb), free(col), free(ico);
}
END_TEST

/* ---- the mesh body on the built-in cloth's grid ----------------------------- */

START_TEST(mesh_body_on_the_cloth_grid) {
  char *flag = repo("configs/meshes/flag.obj");
  char *ym = cu_strf("bodies:\n  - mesh: {name: f, file: \"%s\", mass: 2, bend: {stiffness: 0.5}}\n",
                     flag);
  vs_scene *sm = tu_scene(ym);
  vs_scene *sc = tu_scene("bodies:\n  - cloth: {origin: [0, 0, 0], size: [1.5, 1.1], "
                          "resolution: [16, 12], mass: 2}\n");
  vs_model *mm = tu_model(sm), *mc = tu_model(sc);
  const int nu = 16, nv = 12;
  ck_assert_int_eq(mm->n_particles, nu * nv);
  /* stretch: every edge once = the grid's u and v edges + one diagonal per
   * cell; bend: every interior edge */
  const int edges = (nu - 1) * nv + nu * (nv - 1) + (nu - 1) * (nv - 1);
  const int boundary = 2 * (nu - 1) + 2 * (nv - 1);
  ck_assert_int_eq(mm->n_dist, edges + (edges - boundary));
  /* same positions, bit for bit, and the same triangles */
  for (int32_t i = 0; i < mm->n_particles; i++)
    ck_assert_int_eq(memcmp(&mm->x0[4 * i], &mc->x0[4 * i], 3 * sizeof(double)), 0);
  ck_assert_int_eq(mm->n_triangles, mc->n_triangles);
  ck_assert_int_eq(memcmp(mm->triangles, mc->triangles, 3 * sizeof(int32_t) * (size_t)mm->n_triangles), 0);
  /* the cloth's stretch links, in the cloth's order, with the diagonals between */
  int32_t k = 0, diag = 0;
  for (int32_t i = 0; i < edges; i++) {
    const int32_t a = mm->dist_ab[2 * i], b = mm->dist_ab[2 * i + 1];
    ck_assert_int_eq(mm->dist_role[i], VS_ROLE_STRETCH);
    if (b == a + nu + 1) {
      diag++;
      continue;
    }
    ck_assert_int_eq(a, mc->dist_ab[2 * k]);
    ck_assert_int_eq(b, mc->dist_ab[2 * k + 1]);
    k++;
  }
  ck_assert_int_eq(k, mc->n_dist);
  ck_assert_int_eq(diag, (nu - 1) * (nv - 1));
  /* bend across the diagonal (i,j)-(i+1,j+1): the other diagonal */
  ck_assert_int_eq(mm->dist_role[edges], VS_ROLE_BEND);
  /* masses lumped by area: total 2, cell area a = 0.01; corner (0,0) has
   * two triangles' thirds: 2 * (a/2)/3; an interior vertex six */
  double total = 0.0;
  for (int32_t i = 0; i < mm->n_particles; i++) total += mm->mass[i];
  ck_assert_double_eq_tol(total, 2.0, 1e-12);
  const double area = 1.5 * 1.1;
  ck_assert_double_eq_tol(mm->mass[0], 2.0 * (2 * 0.005 / 3) / area, 1e-12);
  ck_assert_double_eq_tol(mm->mass[nu + 1], 2.0 * (6 * 0.005 / 3) / area, 1e-12);
  ck_assert_double_eq_tol(mm->mass[nu - 1], 2.0 * (1 * 0.005 / 3) / area, 1e-12);
  vs_model_free(mm), vs_model_free(mc);
  vs_scene_free(sm), vs_scene_free(sc);
  free(ym), free(flag);
}
END_TEST

/* The mesh body steps exactly as a `particles` body with its positions,
 * masses and pins and its links as explicit distance constraints in its
 * build order (both relaxations): the body adds nothing but its links. */
static void same_as_explicit(const char *relax) {
  char *flag = repo("configs/meshes/flag.obj");
  char *ym = cu_strf("solver: {relaxation: %s, iterations: 6}\n"
                     "time: {frames: 40}\n"
                     "bodies:\n  - mesh: {name: f, file: \"%s\", mass: 2, pin: [176, 191],\n"
                     "            transform: {rotate: [0, 30, 0], translate: [0, 1, 0]},\n"
                     "            bend: {stiffness: 0.5}}\n",
                     relax, flag);
  vs_scene *sm = tu_scene(ym);
  vs_model *mm = tu_model(sm);
  vs_sbuf b = {0};  /* util/text.h */
  vs_sbuf_printf(&b, "solver: {relaxation: %s, iterations: 6}\ntime: {frames: 40}\n", relax);
  vs_sbuf_printf(&b, "bodies:\n  - particles:\n      name: f\n      pin: [176, 191]\n      positions: [");
  for (int32_t i = 0; i < mm->n_particles; i++)
    vs_sbuf_printf(&b, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", mm->x0[4 * i], mm->x0[4 * i + 1],
                   mm->x0[4 * i + 2]);
  vs_sbuf_printf(&b, "]\n      masses: [");
  for (int32_t i = 0; i < mm->n_particles; i++)
    vs_sbuf_printf(&b, "%s%.17g", i ? ", " : "",
                   isinf(mm->mass[i]) ? 1.0 : mm->mass[i]); /* pinned: any mass */
  vs_sbuf_printf(&b, "]\nconstraints:\n");
  for (int32_t i = 0; i < mm->n_dist; i++)
    vs_sbuf_printf(&b, "  - distance: {a: %d, b: %d, stiffness: %.17g}\n", mm->dist_ab[2 * i],
                   mm->dist_ab[2 * i + 1], mm->dist_stiff[i]);
  vs_scene *se = tu_scene(b.p);
  vs_model *me = tu_model(se);
  ck_assert_int_eq(me->n_dist, mm->n_dist);
  ck_assert_int_eq(me->n_colors, mm->n_colors);
  vs_state *x = run_frames(mm, 40), *y = run_frames(me, 40);
  ck_assert_msg(memcmp(x->x, y->x, 4 * sizeof(double) * (size_t)mm->n_particles) == 0,
                "%s: the mesh body and its explicit twin differ", relax);
  double moved = 0.0; /* the free top corner... everything sags under the pins */
  for (int32_t i = 0; i < mm->n_particles; i++) moved = fmax(moved, mm->x0[4 * i + 1] - x->x[4 * i + 1]);
  ck_assert_msg(moved > 0.05, "%s: nothing fell (%g)", relax, moved);
  vs_state_free(x), vs_state_free(y);
  vs_model_free(mm), vs_model_free(me);
  vs_scene_free(sm), vs_scene_free(se);
  vs_sbuf_free(&b);
  free(ym), free(flag);
}

START_TEST(mesh_body_equals_explicit_links) {
  same_as_explicit("gauss-seidel");
  same_as_explicit("jacobi");
}
END_TEST

/* ---- a 100 m/s particle against one triangle, through a scene file -------- */

START_TEST(fast_particle_stops_at_a_triangle) {
  static const char *const integ[] = {"pbd", "xpbd", "verlet"};
  char *d = tu_tmpdir();
  char *obj = cu_strf("%s/tri.obj", d);
  cu_write(obj, "# one triangle in the plane z = 0\nv -1 -1 0\nv 1 -1 0\nv 0 1 0\nf 1 2 3\n");
  for (int k = 0; k < 3; k++) {
    char *scene = cu_strf("%s/shot.yaml", d);
    char *y = cu_strf("time: {dt: 0.01, frames: 20}\n"
                      "solver: {integrator: %s}\n"
                      "world:\n  gravity: [0, 0, 0]\n"
                      "  colliders: [{mesh: {file: tri.obj, thickness: 0.001}}]\n"
                      "bodies:\n  - particles: {positions: [[0, 0, 0.5]], velocities: [[0, 0, -100]],"
                      " radius: 0.01}\n",
                      integ[k]);
    cu_write(scene, y);
    vs_scene *s = NULL;
    vs_error e;
    ck_assert_int_eq(vs_scene_load_file(scene, NULL, 0, &s, &e), VS_OK);
    vs_model *m = tu_model(s);
    vs_state *st = tu_state(m);
    double zmin = INFINITY;
    for (int f = 0; f < 20; f++) {
      ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
      zmin = fmin(zmin, st->x[2]);
    }
    /* one step moves it 1 m: through the triangle, unless it is stopped */
    ck_assert_msg(zmin >= 0.011 - 1e-12, "%s: the particle reached z = %g", integ[k], zmin);
    ck_assert_msg(fabs(st->x[0]) < 1e-12 && fabs(st->x[1]) < 1e-12, "%s: it slid", integ[k]);
    vs_state_free(st);
    vs_model_free(m);
    vs_scene_free(s);
    free(y), free(scene);
  }
  /* and through the CLI */
  cu_proc p = cu_vsim(d, "run", "shot.yaml", "-o", "shot.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(obj), free(d);
}
END_TEST

/* ---- OBJ errors through the CLI ---------------------------------------------- */

typedef struct obj_case {
  const char *obj;     /* file text, or NULL: see the special cases */
  const char *expect;  /* in stderr, after "<obj>:" */
} obj_case;

START_TEST(obj_errors_exit_2) {
  static const obj_case cases[] = {
      {"v 0 0 0\nv 1 0 0\nv 0 x 0\nf 1 2 3\n", "bad.obj:3:5: "},
      {"v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", "bad.obj:2:5: "},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "bad.obj:4:7: "},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "bad.obj:4:"},
      {"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", "bad.obj:4:"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\n", "bad.obj"},
  };
  char *d = tu_tmpdir();
  write_at(cu_strf("%s/scene.yaml", d),
           "time: {frames: 2}\nbodies:\n  - mesh: {name: m, file: bad.obj}\n");
  char *obj = cu_strf("%s/bad.obj", d);
  for (size_t i = 0; i < sizeof cases / sizeof *cases + 3; i++) {
    unlink(obj);
    const char *expect = "bad.obj";
    if (i < sizeof cases / sizeof *cases) {
      cu_write(obj, cases[i].obj);
      expect = cases[i].expect;
    } else if (i == sizeof cases / sizeof *cases) { /* a directory */
      ck_assert_int_eq(mkdir(obj, 0755), 0);
    } else if (i == sizeof cases / sizeof *cases + 1) { /* over the size limit (sparse) */
      int fd = open(obj, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ck_assert_int_ge(fd, 0);
      ck_assert_int_eq(ftruncate(fd, (off_t)65 * 1024 * 1024), 0);
      close(fd);
    } /* else: missing */
    cu_proc p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, "scene.yaml:3:27: bodies.0.mesh.file: ");
    CU_EXPECT_IN(p.err, expect);
    if (i == 4) CU_EXPECT_IN(p.err, "zero");
    cu_free(&p);
    CU_EXPECT_LISTING(d, i == sizeof cases / sizeof *cases ? "bad.obj scene.yaml" : (i < sizeof cases / sizeof *cases + 2 ? "bad.obj scene.yaml" : "scene.yaml"));
    if (i == sizeof cases / sizeof *cases) rmdir(obj);
  }
  /* a collider's error names its key; a zero-area triangle is dropped there */
  write_at(cu_strf("%s/scene.yaml", d),
           "time: {frames: 2}\nworld:\n  colliders:\n    - mesh: {file: bad.obj}\n");
  cu_write(obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9\n");
  cu_proc p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "scene.yaml:4:20: world.colliders.0.mesh.file: bad.obj:4:");
  cu_free(&p);
  cu_write(obj, "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n");
  p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(obj), free(d);
}
END_TEST

/* One triangle repeated 100,000 times (0.8 MB of OBJ) under a 100 x 100
 * cloth: every particle near it tested every copy each substep, 31 s or
 * more for one frame instead of 0.1 s.  The collider keeps one and counts
 * the rest (vsim validate says so); the frames take what one triangle
 * takes. */
START_TEST(repeated_triangle_collider) {
  char *d = tu_tmpdir();
  char *obj = cu_strf("%s/dup.obj", d);
  FILE *fp = fopen(obj, "w");
  ck_assert_ptr_nonnull(fp);
  fputs("v -2 0 -2\nv 2 0 -2\nv 0 0 2\n", fp);
  for (int i = 0; i < 100000; i++) fputs("f 1 3 2\n", fp);
  ck_assert_int_eq(fclose(fp), 0);
  write_at(cu_strf("%s/scene.yaml", d),
           "vsim: 1\ntime: {dt: 0.01, frames: 3}\n"
           "world:\n  colliders:\n    - mesh: {file: dup.obj, thickness: 0.01}\n"
           "bodies:\n  - cloth: {origin: [-0.5, 0.005, -0.5], size: [1, 1], "
           "resolution: [100, 100], plane: xz}\n");
  cu_proc p = cu_vsim(d, "validate", "scene.yaml", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "  mesh 0     1 triangles, 3 vertices (left out: 99999 repeated, 0 of zero "
                      "area)\n");
  cu_free(&p);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", "-q", NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  const double dt = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  ck_assert_msg(dt < 15, "3 frames took %.1f s", dt);
  tu_rmtree(d);
  free(obj), free(d);
}
END_TEST

/* Messages that were wrong for what they named: a thickness every number
 * of which is valid (1e308) was "vs_mesh_grid_build: bad argument"; a mesh
 * at 1e200 "zero area"; both now say what is out of range, at the scene's
 * key. */
START_TEST(out_of_range_meshes_say_why) {
  char *d = tu_tmpdir();
  char *obj = cu_strf("%s/m.obj", d);
  cu_write(obj, "v -1 0 -1\nv 1 0 -1\nv 0 0 1\nf 1 3 2\n");
  write_at(cu_strf("%s/scene.yaml", d),
           "time: {frames: 2}\nworld:\n  colliders:\n    - mesh: {file: m.obj, thickness: "
           "1e308}\nbodies:\n  - particles: {positions: [[0, 1, 0]], radius: 0.1}\n");
  cu_proc p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "scene.yaml:4:7: world.colliders.0.mesh.thickness: 1e+308 m is too large");
  CU_EXPECT_NOT_IN(p.err, "bad argument");
  cu_free(&p);
  cu_write(obj, "v -1e200 0 -1e200\nv 1e200 0 -1e200\nv 0 0 1e200\nf 1 3 2\n");
  write_at(cu_strf("%s/scene.yaml", d),
           "time: {frames: 2}\nworld:\n  colliders:\n    - mesh: {file: m.obj}\n");
  p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "scene.yaml:4:20: world.colliders.0.mesh.file: m.obj: vertex 1 is at "
                      "(-1e+200, 0, -1e+200) after the transform, farther than 1e+15 m");
  CU_EXPECT_NOT_IN(p.err, "zero area");
  cu_free(&p);
  /* scaled into range by its transform: accepted */
  write_at(cu_strf("%s/scene.yaml", d),
           "time: {frames: 2}\nworld:\n  colliders:\n    - mesh: {file: m.obj, transform: "
           "{scale: 1e-200}}\n");
  p = cu_vsim(d, "run", "scene.yaml", "-o", "out.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  tu_rmtree(d);
  free(obj), free(d);
}
END_TEST

/* ---- bitwise across --threads and --resume -------------------------------- */

START_TEST(mesh_scene_bitwise_threads_and_resume) {
  char *d = tu_tmpdir();
  char *flag = repo("configs/meshes/flag.obj"), *floor_obj = repo("configs/meshes/floor.obj");
  char *y = cu_strf("time: {frames: 30, substeps: 2}\n"
                    "solver: {relaxation: jacobi, iterations: 6}\n"
                    "world:\n  particle_collisions: true\n"
                    "  colliders: [{mesh: {file: \"%s\", friction: 0.5}}]\n"
                    "bodies:\n  - mesh: {name: f, file: \"%s\", mass: 1, radius: 0.02, tear: 1.5,\n"
                    "            transform: {rotate: [90, 0, 0], translate: [-0.75, 0.3, -0.55]},\n"
                    "            bend: {stiffness: 0.3}}\n",
                    floor_obj, flag);
  write_at(cu_strf("%s/s.yaml", d), y);
  cu_proc p = cu_vsim(d, "run", "s.yaml", "-o", "t1.h5", "--threads", "1", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "run", "s.yaml", "-o", "t2.h5", "--threads", "2", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "t1.h5", "t2.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  p = cu_vsim(d, "run", "s.yaml", "-o", "part.h5", "--frames", "12", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "run", "--resume", "part.h5", "--frames", "30", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "compare", "part.h5", "t1.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "equal");
  cu_free(&p);
  tu_rmtree(d);
  free(y), free(flag), free(floor_obj), free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mesh");
  TCase *t = tcase_create("mesh");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, drape_over_mesh_matches_sphere);
  tcase_add_test(t, mesh_body_on_the_cloth_grid);
  tcase_add_test(t, mesh_body_equals_explicit_links);
  tcase_add_test(t, fast_particle_stops_at_a_triangle);
  tcase_add_test(t, obj_errors_exit_2);
  tcase_add_test(t, mesh_scene_bitwise_threads_and_resume);
  tcase_add_test(t, repeated_triangle_collider);
  tcase_add_test(t, out_of_range_meshes_say_why);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
