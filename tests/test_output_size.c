/* SPDX-License-Identifier: MIT */
/* test_output_size.c: what a run writes by default is the result, not
 * viewer data (docs/result-file.md, viewers).
 *
 * On example scenes (configs/), a default `vsim run` writes no .xmf sidecar
 * (written on demand: `vsim xdmf OUT.h5`, or output.xdmf: true), so the
 * sidecar is at most a tenth of the result (it is none of it), and the
 * viewer-only data (/particles/rigid_surface) is at most a quarter of the
 * file (none of it); with output.xdmf: true both come back, and `vsim
 * render` draws the bodies of a default file from their poses and shapes.
 * A sweep's points write sidecars only when the sweep file says xdmf: true.
 * The sizes measured are printed. */
#include <sys/stat.h>

#include "runutil.h"

static long long size_of(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* Bytes stored for the datasets under group in file (h5ls -v's
 * "allocated bytes"); 0 when the group is absent. */
static long long group_bytes(const char *dir, const char *file, const char *group) {
  char *spec = cu_strf("%s%s", file, group);
  const char *argv[] = {"h5ls", "-r", "-v", spec, NULL};
  cu_proc p = cu_run(dir, argv);
  long long total = 0;
  for (const char *s = p.code == 0 ? p.out : ""; (s = strstr(s, "logical bytes, ")); s++) {
    long long b = 0;
    if (sscanf(s, "logical bytes, %lld allocated bytes", &b) == 1) total += b;
  }
  cu_free(&p);
  free(spec);
  return total;
}

static int have_h5ls(void) {
  return system("command -v h5ls > /dev/null 2>&1") == 0;
}

typedef struct sizes {
  long long h5, xmf, surface;
} sizes;

static sizes run(const char *d, const char *scene, const char *frames, const char *extra) {
  char *cfg = cu_repo_path(scene);
  const char *argv[16] = {cu_vsim_bin(), "run", cfg, "-o", "out.h5", "-f", "-q", "--frames", frames};
  size_t n = 9;
  if (extra) {
    argv[n++] = "--set";
    argv[n++] = extra;
  }
  argv[n] = NULL;
  cu_proc p = cu_run(d, argv);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  free(cfg);
  char *h5 = cu_strf("%s/out.h5", d), *xmf = cu_strf("%s/out.xmf", d);
  sizes s = {size_of(h5), size_of(xmf), group_bytes(d, "out.h5", "/particles/rigid_surface")};
  if (s.xmf >= 0) unlink(xmf);
  free(h5);
  free(xmf);
  return s;
}

START_TEST(defaults_are_mostly_result) {
  if (!have_h5ls()) TU_SKIP("no h5ls (apt-get install hdf5-tools)");
  char *d = tu_tmpdir();
  struct {
    const char *scene, *frames;
    int rigid;
  } scenes[] = {
      {"configs/stick_in_box.yaml", "400", 0},
      {"configs/rigid_stack.yaml", "300", 1},
      {"configs/rigid_pyramid.yaml", "60", 1},
  };
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
    sizes def = run(d, scenes[i].scene, scenes[i].frames, NULL);
    sizes on = run(d, scenes[i].scene, scenes[i].frames, "output.xdmf=true");
    printf("%s (%s frames): default %lld bytes, no .xmf, %lld of viewer data; with output.xdmf: "
           "%lld bytes + %lld of .xmf, %lld of them viewer data\n",
           scenes[i].scene, scenes[i].frames, def.h5, def.surface, on.h5, on.xmf, on.surface);
    /* default: the sidecar at most a tenth of the result, viewer data at
     * most a quarter of the file: here, none of either */
    ck_assert_int_eq(def.xmf, -1);
    ck_assert_int_le(def.surface * 4, def.h5);
    ck_assert_int_eq(def.surface, 0);
    /* on demand: both there */
    ck_assert_int_gt(on.xmf, 0);
    if (scenes[i].rigid) {
      ck_assert_int_gt(on.surface, 0);
      ck_assert_int_lt(def.h5, on.h5);
    }
  }
  tu_rmtree(d);
  free(d);
}
END_TEST

/* A default file of rigid bodies still renders (shapes from poses and
 * sizes) and still gets a sidecar on demand, which draws their centres. */
START_TEST(viewers_work_on_defaults) {
  char *d = tu_tmpdir();
  char *cfg = cu_repo_path("configs/rigid_stack.yaml");
  cu_proc p = cu_vsim(d, "run", cfg, "-o", "s.h5", "-q", "--frames", "30", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  CU_EXPECT_LISTING(d, "s.h5");
  p = cu_vsim(d, "render", "s.h5", "-o", "s.png", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(d, "xdmf", "s.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  char *xmf = cu_strf("%s/s.xmf", d);
  char *x = cu_slurp(xmf);
  ck_assert_ptr_nonnull(x);
  CU_EXPECT_IN(x, "<Grid Name=\"rigid\"");
  CU_EXPECT_NOT_IN(x, "rigid_surface");
  free(x);
  free(xmf);
  free(cfg);
  tu_rmtree(d);
  free(d);
}
END_TEST

/* Sweeps: no sidecar per point unless the sweep file says xdmf: true. */
START_TEST(sweep_chooses_sidecars) {
  char *d = tu_tmpdir();
  char *p = cu_strf("%s/scene.yaml", d);
  cu_write(p, "time: {dt: 0.01, frames: 5}\nbodies:\n  - rope: {name: r, from: [0, 1, 0], to: "
              "[1, 1, 0], segments: 3, pin: [first]}\n");
  free(p);
  p = cu_strf("%s/s.yaml", d);
  cu_write(p, "scene: scene.yaml\nparameters:\n  solver.iterations: [1, 2]\n");
  free(p);
  p = cu_strf("%s/x.yaml", d);
  cu_write(p, "scene: scene.yaml\nxdmf: true\nparameters:\n  solver.iterations: [1, 2]\n");
  free(p);
  cu_proc r = cu_vsim(d, "sweep", "s.yaml", "-o", "a", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  r = cu_vsim(d, "sweep", "x.yaml", "-o", "b", "-q", NULL);
  CU_EXPECT_CODE(r, 0);
  cu_free(&r);
  char *a = cu_strf("%s/a", d), *b = cu_strf("%s/b", d);
  CU_EXPECT_LISTING(a, "point-0000.h5 point-0001.h5 summary.csv");
  CU_EXPECT_LISTING(b, "point-0000.h5 point-0000.xmf point-0001.h5 point-0001.xmf summary.csv");
  p = cu_strf("%s/bad.yaml", d);
  cu_write(p, "scene: scene.yaml\nxdmf: yes please\nparameters:\n  solver.iterations: [1]\n");
  free(p);
  r = cu_vsim(d, "sweep", "bad.yaml", "-o", "c", NULL);
  CU_EXPECT_CODE(r, 2);
  CU_EXPECT_IN(r.err, "bad.yaml:2:7: xdmf: expected true");
  cu_free(&r);
  free(a);
  free(b);
  tu_rmtree(d);
  free(d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("output_size");
  TCase *tc = tcase_create("output_size");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, defaults_are_mostly_result);
  tcase_add_test(tc, viewers_work_on_defaults);
  tcase_add_test(tc, sweep_chooses_sidecars);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run(suite());
}
