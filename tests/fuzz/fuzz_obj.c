/* SPDX-License-Identifier: MIT */
/* fuzz_obj.c: a libFuzzer harness for the OBJ reader (model/obj.h).
 *
 * The input is the OBJ text (any bytes).  It is parsed twice, rejecting and
 * skipping zero-area triangles, under small limits (so that each run stays
 * fast).  Then:
 *   - a failure leaves an empty mesh and a filled error record whose line
 *     lies inside the text (and whose column is 0 exactly when the line is);
 *   - a success gives >= 1 triangle, vertex numbers in range, finite
 *     coordinates and, when rejecting, no zero-area triangle;
 *   - rejecting succeeds only if skipping succeeds with the same mesh;
 *   - a loaded mesh gets a BVH, and a closest-point query from near its
 *     first vertex must agree with testing every triangle.
 * A broken invariant aborts, which libFuzzer reports like a crash.
 *
 * Built by `make fuzz-obj` (clang, libFuzzer, ASan + UBSan); the seeds in
 * tests/fuzz/seeds-obj/ are replayed by tests/test_obj.c in `make test`. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bvh.h"
#include "model/obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_obj_fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_obj: %s\n%s\n", what, detail ? detail : "");
  abort();
}

static int mesh_empty(const vs_obj_mesh *m) {
  return !m->vertices && !m->triangles && !m->tri_line && m->n_vertices == 0 &&
         m->n_triangles == 0 && m->n_skipped == 0;
}

static void check_mesh(const vs_obj_mesh *m, int rejecting) {
  if (m->n_triangles < 1 || m->n_vertices < 3) fuzz_obj_fail("a loaded mesh with no triangle", NULL);
  for (int64_t i = 0; i < 3 * (int64_t)m->n_vertices; i++)
    if (!isfinite(m->vertices[i])) fuzz_obj_fail("a non-finite coordinate was accepted", NULL);
  for (int64_t i = 0; i < 3 * (int64_t)m->n_triangles; i++)
    if (m->triangles[i] < 0 || m->triangles[i] >= m->n_vertices)
      fuzz_obj_fail("a vertex number out of range was accepted", NULL);
  if (rejecting && m->n_skipped) fuzz_obj_fail("a triangle was skipped while rejecting", NULL);
}

/* BVH answers against every triangle in turn. */
static void check_bvh(const vs_obj_mesh *m) {
  vs_bvh b;
  vs_error e;
  if (vs_bvh_build(&b, m->vertices, m->n_vertices, m->triangles, m->n_triangles, &e) != VS_OK)
    fuzz_obj_fail("vs_bvh_build failed on a loaded mesh", e.message);
  const double *p = m->vertices;
  const double p1[3] = {p[0] + 1.0, p[1] - 0.5, p[2] + 0.25};
  double best = INFINITY;
  for (int32_t t = 0; t < m->n_triangles; t++) {
    double q[3];
    const int32_t *tr = m->triangles + 3 * (size_t)t;
    double d2 = vs_tri_closest(m->vertices + 3 * (size_t)tr[0], m->vertices + 3 * (size_t)tr[1],
                               m->vertices + 3 * (size_t)tr[2], p1, q);
    if (d2 < best) best = d2;
  }
  vs_bvh_hit h;
  if (!vs_bvh_closest(&b, p1, INFINITY, &h)) fuzz_obj_fail("no closest point at all", NULL);
  if (h.dist != sqrt(best)) /* the same per-triangle test: bitwise the same answer */
    fuzz_obj_fail("the BVH closest point differs from brute force", NULL);
  vs_bvh_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  long lines = 1;
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  vs_obj_mesh m[2];
  vs_status st[2];
  for (int skip = 0; skip < 2; skip++) {
    vs_obj_options opt = {.skip_degenerate = skip, .max_vertices = 4096, .max_triangles = 4096};
    vs_error e;
    memset(&e, 0x5a, sizeof e); /* the reader must fill it */
    memset(&m[skip], 0x5a, sizeof m[skip]);
    st[skip] = vs_obj_parse((const char *)data, size, "fuzz.obj", &opt, &m[skip], &e);
    if (st[skip] != VS_OK) {
      if (!mesh_empty(&m[skip])) fuzz_obj_fail("a failed read left a mesh", NULL);
      if (e.code != st[skip] || !e.message[0] || !memchr(e.message, '\0', sizeof e.message) ||
          strcmp(e.file, "fuzz.obj") != 0)
        fuzz_obj_fail("a failed read left the error record unfilled", NULL);
      if (e.line < 0 || e.line > lines || e.column < 0 || (e.line == 0) != (e.column == 0))
        fuzz_obj_fail("an error position outside the text", e.message);
      if (st[skip] != VS_ERR_SCENE && st[skip] != VS_ERR_LIMIT && st[skip] != VS_ERR_NOMEM)
        fuzz_obj_fail("an unexpected status", e.message);
    } else {
      check_mesh(&m[skip], !skip);
    }
  }
  if (st[0] == VS_OK) {
    if (st[1] != VS_OK || m[0].n_triangles != m[1].n_triangles ||
        m[0].n_vertices != m[1].n_vertices ||
        memcmp(m[0].triangles, m[1].triangles, 3 * sizeof(int32_t) * (size_t)m[0].n_triangles) ||
        memcmp(m[0].vertices, m[1].vertices, 3 * sizeof(double) * (size_t)m[0].n_vertices))
      fuzz_obj_fail("skipping zero-area triangles changed a mesh that had none", NULL);
  }
  if (st[1] == VS_OK) check_bvh(&m[1]);
  vs_obj_free(&m[0]);
  vs_obj_free(&m[1]);
  return 0;
}
