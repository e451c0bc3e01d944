/* SPDX-License-Identifier: MIT */
/* test_alloc.c: every allocation failure is an error, never a crash or a
 * leak (the libcyaml way).
 *
 * An allocator installed through vs_set_allocator counts the blocks that are
 * alive and fails the k-th request.  For k = 1, 2, ... the whole pipeline
 * runs: scene text with --set overrides -> YAML emitter -> model -> state ->
 * writer, a few frames, finish; then resuming that file (parameter,
 * checkpoint, reopen) to the end; then compare and describe.  Each k must
 * end in VS_ERR_NOMEM from the stage the failure hit (the writer included:
 * a failed buffer is VS_ERR_NOMEM, not VS_ERR_IO), with no block left alive
 * after clean-up and no temporary file left in the directory.  The loop ends
 * at the first k that is never reached: then every request has been failed
 * once.  The live count is a leak check of its own, independent of ASan and
 * valgrind; every block also carries a header so that a block freed twice,
 * or freed with the C library's free, is caught. */
#include <dirent.h>
#include <stdint.h>

#include "io/guard/h5guard_int.h"
#include "testutil.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* ---- the counting, failing allocator ---- */

typedef struct counter {
  long requests; /* malloc and realloc calls so far */
  long fail_at;  /* the request that fails (1-based); 0 = none */
  long live;     /* blocks allocated and not yet freed */
  int hit;       /* the failing request was made */
} counter;

/* A header in front of every block: a tag that says it is ours and alive,
 * padded to keep the block's alignment. */
typedef union header {
  uint64_t tag;
  max_align_t align;
} header;

#define TAG_LIVE 0x766d616c6c6f6321ull /* "vmalloc!" */
#define TAG_DEAD 0x6465616462656566ull

static counter g;

static int fail_now(void) {
  g.requests++;
  if (g.fail_at > 0 && g.requests == g.fail_at) {
    g.hit = 1;
    return 1;
  }
  return 0;
}

static void *t_malloc(size_t size, void *ctx) {
  if (fail_now()) return NULL;
  header *h = malloc(sizeof *h + size);
  ck_assert_ptr_nonnull(h);
  h->tag = TAG_LIVE;
  g.live++;
  return h + 1;
}

static header *head_of(void *p) {
  header *h = (header *)p - 1;
  ck_assert_msg(h->tag == TAG_LIVE, "a block not from this allocator, or freed twice");
  return h;
}

static void *t_realloc(void *p, size_t size, void *ctx) {
  if (!p) return t_malloc(size, ctx);
  if (fail_now()) return NULL; /* the old block stays valid, as with realloc */
  header *h = realloc(head_of(p), sizeof *h + size);
  ck_assert_ptr_nonnull(h);
  return h + 1;
}

static void t_free(void *p, void *ctx) {
  if (!p) return;
  header *h = head_of(p);
  h->tag = TAG_DEAD;
  g.live--;
  free(h);
}

static const vs_allocator counting = {t_malloc, t_realloc, t_free, NULL};

/* ---- the pipeline ---- */

/* Every body kind that builds, every collider, every explicit constraint
 * kind, every output field; small, so that failing each allocation in turn
 * stays cheap.  An alias, so that the loader's anchor table is used. */
static const char scene_text[] =
    "vsim: 1\n"
    "name: alloc\n"
    "time: {dt: 0.01, frames: 6, substeps: 2}\n"
    "solver: {integrator: xpbd, iterations: 2, relaxation: jacobi}\n"
    "world:\n"
    "  gravity: [0, -9.81, 0]\n"
    "  colliders:\n"
    "    - plane: {point: [0, 0, 0], normal: &up [0, 1, 0], friction: 0.2}\n"
    "    - sphere: {center: [0, 0.5, 0], radius: 0.2}\n"
    "    - box: {min: [2, 0, 2], max: [3, 1, 3]}\n"
    "    - bounds: {min: [-10, -10, -10], max: [10, 10, 10]}\n"
    "bodies:\n"
    "  - particles: {name: shot, positions: [[0, 3, 0], [0.1, 3, 0]],\n"
    "                velocities: [[1, 0, 0], [1, 0, 0]], mass: 0.1, radius: 0.05}\n"
    "  - rope: {name: line, from: [0, 2, 0], to: [1, 2, 0], segments: 6,\n"
    "           bend: {stiffness: 0.2}, pin: [first]}\n"
    "  - cloth: {name: sheet, origin: [-1, 2, 0], size: [1, 1], resolution: [5, 4],\n"
    "            shear: {stiffness: 0.9}, bend: {stiffness: 0.5}, pin: [[0, 3], [4, 3]],\n"
    "            tear: 3}\n"
    "  - tetra: {name: rock, center: [0, 4, 0], edge: 0.3, angular_velocity: *up}\n"
    "  - lattice: {name: block, origin: [1, 1, 1], size: [0.3, 0.3, 0.3],\n"
    "             resolution: [2, 3, 2], pin: top-edge}\n"
    "  - rigid: {name: stone, shape: convex, position: [4, 1, 4],\n"
    "            points: [[0, 0, 0], [0.3, 0, 0], [0, 0.3, 0], [0, 0, 0.3], [0.2, 0.2, 0.2]]}\n"
    "constraints:\n"
    "  - distance: {a: 'line:6', b: 'sheet:0,3', rest: auto}\n"
    "  - distance: {a: 'shot:0', b: 'shot:1', min: 0.05}\n"
    "  - pin: {particle: 'line:3', at: [0.5, 2.5, 0]}\n"
    "  - pin: {particle: 'rock:0', keys: [[0, 0, 4, 0], [0.05, 0.1, 4, 0]]}\n"
    "  - angle: {a: 'line:0', b: 'line:1', c: 'line:2', min: 90}\n"
    "output: {every: 2, fields: [position, velocity, constraint_error, per_constraint_error]}\n";

static const vs_override sets[] = {{"solver.iterations=3"}, {"bodies.sheet.mass=2"}};

/* Where a run stopped: the stage and its status. */
typedef struct outcome {
  const char *stage; /* NULL: every stage succeeded */
  vs_status code;
  char message[1200];
} outcome;

static int stop(outcome *o, const char *stage, vs_status code, const vs_error *e) {
  o->stage = stage;
  o->code = code;
  char buf[1100];
  snprintf(o->message, sizeof o->message, "%s", vs_error_format(e, buf, sizeof buf));
  return 1;
}

/* Scene text -> model and state, as vsim run does.  On failure nothing is
 * left allocated. */
static int build(const char *text, const vs_override *s, size_t n_sets, vs_scene **scene,
                 vs_model **model, vs_state **state, outcome *o) {
  vs_error e;
  vs_status st;
  *scene = NULL;
  *model = NULL;
  *state = NULL;
  if ((st = vs_scene_load_string(text, strlen(text), "alloc.yaml", s, n_sets, scene, &e)))
    return stop(o, "vs_scene_load_string", st, &e);
  if ((st = vs_model_build(*scene, model, &e))) {
    vs_scene_free(*scene);
    return stop(o, "vs_model_build", st, &e);
  }
  if ((st = vs_state_create(*model, state, &e))) {
    vs_model_free(*model);
    vs_scene_free(*scene);
    return stop(o, "vs_state_create", st, &e);
  }
  return 0;
}

static void unbuild(vs_scene *scene, vs_model *model, vs_state *state) {
  vs_state_free(state);
  vs_model_free(model);
  vs_scene_free(scene);
}

/* Step and record until frame `to`, then finish with `status` (and the
 * XDMF sidecar with it when `sidecar`, as vsim run does).  The writer is
 * always consumed. */
static int run_frames(vs_h5_writer *w, const vs_model *m, vs_state *st, int64_t to,
                      const char *status, int sidecar, outcome *o) {
  vs_error e;
  vs_status rc = vs_h5_record(w, m, st, &e);
  if (rc) {
    vs_h5_abort(w);
    return stop(o, "vs_h5_record", rc, &e);
  }
  while (st->frame < to) {
    if ((rc = vs_step(m, st, &e))) {
      vs_h5_abort(w);
      return stop(o, "vs_step", rc, &e);
    }
    if ((rc = vs_h5_record(w, m, st, &e))) {
      vs_h5_abort(w);
      return stop(o, "vs_h5_record", rc, &e);
    }
  }
  vs_status xst = VS_OK;
  vs_error xe;
  vs_error_clear(&xe);
  rc = sidecar ? vs_h5_finish_xdmf(w, status, 0.5, &e, &xst, &xe) : vs_h5_finish(w, status, 0.5, &e);
  if (rc) return stop(o, "vs_h5_finish", rc, &e);
  if (xst) return stop(o, "the sidecar", xst, &xe);
  return 0;
}

/* First half: load with --set, emit, build, write frames 0..3 of 6 and
 * finish "interrupted". */
static int first_half(const char *out, outcome *o) {
  vs_scene *scene;
  vs_model *model;
  vs_state *state;
  if (build(scene_text, sets, 2, &scene, &model, &state, o)) return 1;
  vs_error e;
  char *yaml = NULL;
  vs_status rc = vs_scene_to_yaml(scene, &yaml, &e);
  int failed = 0;
  if (rc) {
    failed = stop(o, "vs_scene_to_yaml", rc, &e);
  } else {
    vs_h5_run_info info = {"vsim run alloc.yaml", yaml, 0, NULL};
    vs_h5_writer *w = NULL;
    rc = vs_h5_open(out, scene, model, &info, &w, &e);
    if (rc)
      failed = stop(o, "vs_h5_open", rc, &e);
    else
      failed = run_frames(w, model, state, 3, "interrupted", 0, o);
  }
  vs_free_buffer(yaml);
  unbuild(scene, model, state);
  return failed;
}

/* Second half: what `vsim run --resume` does, to the scene's last frame. */
static int resume(const char *out, outcome *o) {
  vs_error e;
  char *yaml = NULL;
  vs_status rc = vs_h5_read_parameter(out, "resolved", &yaml, &e);
  if (rc) return stop(o, "vs_h5_read_parameter", rc, &e);
  vs_scene *scene;
  vs_model *model;
  vs_state *state;
  if (build(yaml, NULL, 0, &scene, &model, &state, o)) {
    vs_free_buffer(yaml);
    return 1;
  }
  int failed = 0;
  if ((rc = vs_h5_read_checkpoint(out, model, state, &e))) {
    failed = stop(o, "vs_h5_read_checkpoint", rc, &e);
  } else {
    vs_h5_run_info info = {"vsim run --resume", yaml, 0, NULL};
    vs_h5_writer *w = NULL;
    rc = vs_h5_reopen(out, model, &info, &w, &e);
    if (rc)
      failed = stop(o, "vs_h5_reopen", rc, &e);
    else
      failed = run_frames(w, model, state, model->frames, "complete", 1, o);
  }
  vs_free_buffer(yaml);
  unbuild(scene, model, state);
  return failed;
}

/* Compare against the reference and describe; both must agree with a run
 * that had all the memory it wanted. */
static int read_back(const char *out, const char *ref, outcome *o) {
  vs_error e;
  vs_compare_result r;
  const char *const only[] = {"/particles", "/observables"};
  vs_compare_opts opts = {0};
  opts.only = only;
  opts.n_only = 2;
  vs_status rc = vs_compare_files(out, ref, &opts, &r, &e);
  if (rc) return stop(o, "vs_compare_files", rc, &e);
  size_t n_diffs = r.n_diffs;
  vs_compare_result_free(&r);
  ck_assert_msg(n_diffs == 0, "the resumed file differs from the reference");
  char *text = NULL;
  if ((rc = vs_h5_describe(out, 1, &text, &e))) return stop(o, "vs_h5_describe", rc, &e);
  ck_assert_ptr_nonnull(strstr(text, "\"status\": \"complete\""));
  vs_free_buffer(text);
  return 0;
}

/* Names in dir other than `keep`, joined ("" when none). */
static void stray_files(const char *dir, const char *keep, char *buf, size_t size) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  buf[0] = '\0';
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, keep))
      continue;
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", n ? " " : "", de->d_name);
  }
  closedir(d);
}

static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(out);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
  fclose(in);
  ck_assert_int_eq(fclose(out), 0);
}

/* The files the three segments start from, made with the C library's
 * allocator (which also checks that the pipeline works at all):
 * half.h5 stops at frame 3 ("interrupted"), ref.h5 is half.h5 resumed. */
typedef struct fixture {
  char *dir;    /* where the segments write */
  char *refdir; /* half.h5, ref.h5 */
  char out[512], half[512], ref[512];
} fixture;

static void fixture_make(fixture *f) {
  f->dir = tu_tmpdir();
  f->refdir = tu_tmpdir();
  snprintf(f->out, sizeof f->out, "%s/out.h5", f->dir);
  snprintf(f->half, sizeof f->half, "%s/half.h5", f->refdir);
  snprintf(f->ref, sizeof f->ref, "%s/ref.h5", f->refdir);
  outcome o;
  memset(&o, 0, sizeof o);
  int failed = first_half(f->half, &o);
  if (!failed) {
    copy_file(f->half, f->ref);
    failed = resume(f->ref, &o);
  }
  ck_assert_msg(!failed, "%s: %s", o.stage ? o.stage : "?", o.message);
}

static void fixture_free(fixture *f) {
  tu_rmtree(f->dir);
  tu_rmtree(f->refdir);
  free(f->dir);
  free(f->refdir);
}

/* The pipeline in three segments, each failed on its own so that a run
 * does only the work up to its failure (a whole pipeline per request would
 * write and fsync two files each time): */
enum { SEG_WRITE, SEG_RESUME, SEG_READ };
static const char *const seg_names[] = {"scene to file", "resume", "compare and describe"};

static void segment(int seg, const fixture *f, outcome *o) {
  memset(o, 0, sizeof *o);
  switch (seg) {
    case SEG_WRITE:
      first_half(f->out, o);
      break;
    case SEG_RESUME:
      resume(f->out, o);
      break;
    default:
      read_back(f->ref, f->ref, o);
      break;
  }
}

/* Fail request k = 1, 1 + stride, ... of one segment until a run never
 * reaches k; returns how many requests were failed. */
static long fail_each(int seg, const fixture *f, long stride) {
  long failed = 0;
  char stray[1024];
  for (long k = 1;; k += stride) {
    /* the segment's starting point, fresh each time */
    unlink(f->out);
    if (seg == SEG_RESUME) copy_file(f->half, f->out);
    memset(&g, 0, sizeof g);
    g.fail_at = k;
    vs_set_allocator(&counting);
    outcome o;
    segment(seg, f, &o);
    vs_set_allocator(NULL);
    const char *where = o.stage ? o.stage : "no stage failed";
    ck_assert_msg(g.live == 0, "%s, k = %ld (%s): %ld blocks leaked", seg_names[seg], k, where,
                  g.live);
    /* the resumed run's sidecar: there when the file and it were written,
     * never when writing it failed */
    char xmf[600];
    snprintf(xmf, sizeof xmf, "%s/out.xmf", f->dir);
    int has_xmf = access(xmf, F_OK) == 0;
    ck_assert_msg(!has_xmf || seg == SEG_RESUME, "%s, k = %ld: a sidecar", seg_names[seg], k);
    ck_assert_msg(!has_xmf || !o.stage, "%s, k = %ld (%s): a sidecar after a failure",
                  seg_names[seg], k, where);
    ck_assert_msg(has_xmf || seg != SEG_RESUME || o.stage, "%s, k = %ld: no sidecar",
                  seg_names[seg], k);
    unlink(xmf);
    stray_files(f->dir, "out.h5", stray, sizeof stray);
    ck_assert_msg(stray[0] == '\0', "%s, k = %ld (%s): left behind: %s", seg_names[seg], k, where,
                  stray);
    if (!g.hit) {
      /* k was never reached: every request of the segment has been failed */
      ck_assert_msg(o.stage == NULL, "%s, k = %ld: %s failed without a failed allocation: %s",
                    seg_names[seg], k, where, o.message);
      break;
    }
    ck_assert_msg(o.stage != NULL, "%s, k = %ld: allocation failed but every stage succeeded",
                  seg_names[seg], k);
    ck_assert_msg(o.code == VS_ERR_NOMEM, "%s, k = %ld: %s returned '%s', not out of memory: %s",
                  seg_names[seg], k, o.stage, vs_strerror(o.code), o.message);
    failed++;
  }
  return failed;
}

START_TEST(every_allocation_failure_is_nomem) {
  fixture f;
  fixture_make(&f);
  /* Under valgrind a run costs much more: fail every 7th request there
   * (a prime, so that the pattern drifts across the stages). */
  long stride = RUNNING_ON_VALGRIND ? 7 : 1;
  /* The structure probe (io/guard/h5guard_probe.c) forks a child that walks the
   * file with the C library's allocator: it allocates nothing through the
   * hook these runs fail, so probing each of the ~2,400 runs' files (each
   * a new copy) tests nothing here and costs a fork and a walk each
   * (minutes under the sanitizers).  test_h5guard and test_hostile_read
   * test the probe. */
  vs_h5g__probe_test(-1, 0, 1);
  const char *env = getenv("VSIM_ALLOC_STRIDE");
  if (env && atol(env) > 0) stride = atol(env);
  for (int seg = SEG_WRITE; seg <= SEG_READ; seg++) {
    long n = fail_each(seg, &f, stride);
    /* each segment allocates: the scene tree, the writer's buffers, lists */
    ck_assert_int_gt(n, 50 / stride);
    printf(
        "test_alloc: %s: %ld allocation requests failed in turn (stride %ld), each one "
        "VS_ERR_NOMEM without a leak\n",
        seg_names[seg], n, stride);
  }
  fixture_free(&f);
}
END_TEST

/* The allocator really is used: a run with the counting allocator makes
 * requests in every stage, and a pipeline that succeeds leaves nothing
 * alive; NULL restores the C library's allocator. */
START_TEST(allocator_is_used_and_restored) {
  memset(&g, 0, sizeof g);
  vs_set_allocator(&counting);
  vs_scene *s = NULL;
  vs_error e;
  ck_assert_int_eq(vs_scene_load_string(scene_text, strlen(scene_text), "a.yaml", sets, 2, &s, &e),
                   VS_OK);
  long after_scene = g.requests;
  ck_assert_int_gt(after_scene, 50);
  char *yaml = NULL;
  ck_assert_int_eq(vs_scene_to_yaml(s, &yaml, &e), VS_OK);
  ck_assert_int_gt(g.requests, after_scene);
  long live_yaml = g.live;
  vs_free_buffer(yaml);
  ck_assert_int_eq(g.live, live_yaml - 1);
  vs_scene_free(s);
  ck_assert_int_eq(g.live, 0);
  vs_set_allocator(NULL);
  long before = g.requests;
  s = tu_scene(scene_text);
  vs_scene_free(s);
  ck_assert_int_eq(g.requests, before);
  /* an incomplete allocator is refused (the C library's stays) */
  vs_allocator half = {t_malloc, NULL, t_free, NULL};
  vs_set_allocator(&half);
  s = tu_scene(scene_text);
  vs_scene_free(s);
  ck_assert_int_eq(g.requests, before);
  vs_set_allocator(NULL);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("alloc");
  TCase *t = tcase_create("alloc");
  tcase_set_timeout(t, 1200);
  tcase_add_test(t, allocator_is_used_and_restored);
  tcase_add_test(t, every_allocation_failure_is_nomem);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(suite());
}
