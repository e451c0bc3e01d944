/* SPDX-License-Identifier: MIT */
/* fuzz_h5.c: a libFuzzer harness for the validating HDF5 reader
 * (lib/io/guard/h5guard.c).
 *
 * The input is written to a temporary file and opened with vs_h5g_open;
 * then every dataset reachable through hard links is opened with
 * vs_h5g_dset_open (any numeric type and rank, at most 64 MiB) and read
 * whole, in slabs of at most 1 MiB, with vs_h5g_read_rows; then the string
 * and numeric attributes vsim reads (/parameters/vsim, /checkpoint) are
 * read and escaped.  Invariants (a broken one aborts, which libFuzzer
 * reports like a crash): a failure fills the error record with a code and
 * a message; an escaped text has no control character.
 *
 * Then the readers built on it, as the commands use them: the viewers'
 * (vs_frames_open with the first and last frame and every series thinned,
 * for render and plot; vs_xdmf_write, for xdmf and the sidecar) and
 * --resume's (the checkpoint verified, the scene loaded with its OBJ files
 * where the run read them, the model built under a 64 MiB limit, the
 * checkpoint read into a state and checked against it).  Each failure must
 * carry a message, like the reader's own.
 *
 * vs_h5g_open runs HDF5's walk of the file in a child process first
 * (lib/io/guard/h5guard_probe.c): HDF5's own crashes on a corrupt structure end
 * that child and refuse the input, so any crash reported here is a bug (and
 * coverage inside the child is not seen by libFuzzer).
 *
 * Built by `make fuzz-h5` with clang -fsanitize=fuzzer,address,undefined;
 * seeded from the .h5 files of tests/golden and tests/fuzz/seeds-h5 (small
 * resumed runs of a tearing cloth, rigid bodies, a mesh body and mesh
 * colliders: the layouts those readers take apart).  tests/test_h5guard.c includes this file
 * and replays the golden files and tests/data/fuzz-h5/ in `make test`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/guard/h5guard.h"
#include "io/guard/h5guard_int.h"
#include "io/write/h5check.h"
#include "util/alloc.h"
#include "vsim/frames.h"
#include "vsim/h5.h"
#include "vsim/memory.h"

#define FUZZ_SLAB_BYTES ((size_t)1 << 20)
#define FUZZ_DSET_BYTES ((uint64_t)64 << 20)
/* The probe child's time limit here: 8 s of wall time (4 s of CPU), well
 * under libFuzzer's -timeout=20 (Makefile).  With the library's 60 s, an
 * input on which HDF5 kept working in the child (CI, 2026-11-23) was
 * reported by libFuzzer as a timeout before the probe could refuse it; a
 * golden file's walk takes milliseconds, even under the sanitizers. */
#define FUZZ_PROBE_SECONDS 8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_h5_fail(const char *what, const vs_error *e) {
  fprintf(stderr, "fuzz_h5: %s (code %d, message '%s')\n", what, e ? (int)e->code : -1,
          e ? e->message : "");
  abort();
}

/* A failure must say what failed. */
static void fuzz_h5_check_error(vs_status rc, const vs_error *e) {
  if (rc == VS_OK) return;
  if (e->code != rc || !e->message[0]) fuzz_h5_fail("failure without a message", e);
}

static void fuzz_h5_check_escaped(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x20 || *p == 0x7f) fuzz_h5_fail("control character in escaped text", NULL);
}

typedef struct fuzz_h5_ctx {
  const vs_h5g_file *f;
  double *buf;
  size_t n_dsets;
} fuzz_h5_ctx;

static int fuzz_h5_dataset(const char *path, void *data) {
  fuzz_h5_ctx *c = data;
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, -1, FUZZ_DSET_BYTES);
  vs_h5g_dset d;
  vs_error e;
  vs_error_clear(&e);
  vs_status rc = vs_h5g_dset_open(c->f, path, &spec, &d, &e);
  fuzz_h5_check_error(rc, &e);
  c->n_dsets++;
  if (rc != VS_OK) return 0;
  fuzz_h5_check_escaped(d.path);
  uint64_t rows = d.rank == 0 ? 1 : d.dims[0];
  uint64_t per = vs_h5g_rows_per(&d, H5T_NATIVE_DOUBLE, FUZZ_SLAB_BYTES);
  for (uint64_t a = 0; per > 0 && a < rows;) {
    uint64_t b = rows - a < per ? rows : a + per;
    vs_error_clear(&e);
    rc = vs_h5g_read_rows(c->f, &d, H5T_NATIVE_DOUBLE, a, b, c->buf, FUZZ_SLAB_BYTES, &e);
    fuzz_h5_check_error(rc, &e);
    if (rc != VS_OK) break;
    a = b;
  }
  vs_h5g_dset_close(&d);
  return 0;
}

static void fuzz_h5_attrs(const vs_h5g_file *f) {
  static const char *const strs[] = {"status", "name", "command", "resolved", "scene", "version"};
  static char esc[4096];
  vs_error e;
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
    char *s = NULL;
    vs_error_clear(&e);
    vs_status rc = vs_h5g_attr_string(f, "/parameters/vsim", strs[i], (size_t)1 << 20, &s, &e);
    fuzz_h5_check_error(rc, &e);
    if (rc == VS_OK) {
      if (!s || strlen(s) > ((size_t)1 << 20)) fuzz_h5_fail("attribute string too long", &e);
      fuzz_h5_check_escaped(vs_h5g_escape(s, esc, sizeof esc));
    }
    vs_free(s);
  }
  static const char *const ints[] = {"frame", "step", "n_alive"};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    int64_t v;
    vs_error_clear(&e);
    vs_status rc = vs_h5g_attr_int64(f, "/checkpoint", ints[i], 0, INT64_MAX, &v, &e);
    fuzz_h5_check_error(rc, &e);
    if (rc == VS_OK && v < 0) fuzz_h5_fail("int64 attribute outside its range", &e);
  }
  double t;
  vs_error_clear(&e);
  vs_status rc = vs_h5g_attr_double(f, "/checkpoint", "time", 0, 1e300, &t, &e);
  fuzz_h5_check_error(rc, &e);
}

/* render and plot: the file opened for viewers, its first and last frame
 * and every series (thinned as plot reads it); xdmf: its sidecar. */
static void fuzz_h5_viewers(const char *path) {
  vs_frames *fr = NULL;
  vs_error e;
  vs_error_clear(&e);
  vs_status rc = vs_frames_open(path, &fr, &e);
  fuzz_h5_check_error(rc, &e);
  if (rc == VS_OK) {
    const vs_frames_topology *t = vs_frames_topo(fr);
    const size_t nf = vs_frames_count(fr), np = t->n_particles, nb = t->n_rigid;
    /* a frame's rows: what render allocates for them (skipped when huge) */
    if (np <= ((size_t)8 << 20) / 3 && nb <= ((size_t)8 << 20) / 7 && nf > 0) {
      double *pos = malloc((3 * np + 1) * sizeof *pos), *rb = malloc((7 * nb + 1) * sizeof *rb);
      if (!pos || !rb) abort();
      for (size_t k = 0; k < 2; k++) {
        const size_t frame = k ? nf - 1 : 0;
        vs_error_clear(&e);
        rc = vs_frames_position(fr, frame, pos, &e);
        fuzz_h5_check_error(rc, &e);
        vs_error_clear(&e);
        rc = vs_frames_rigid(fr, frame, rb, rb + 3 * nb, &e);
        fuzz_h5_check_error(rc, &e);
      }
      free(pos);
      free(rb);
    }
    for (size_t i = 0; i < vs_frames_series_count(fr); i++) {
      double *st = NULL, *sv = NULL;
      size_t n = 0;
      vs_error_clear(&e);
      rc = vs_frames_series_read_max(fr, i, 256, &st, &sv, &n, &e);
      fuzz_h5_check_error(rc, &e);
      if (rc == VS_OK && n > 256) fuzz_h5_fail("a thinned series has more points than asked", &e);
      vs_free_buffer(st);
      vs_free_buffer(sv);
    }
    vs_frames_close(fr);
  }
  char xmf[600];
  snprintf(xmf, sizeof xmf, "%s.xmf", path);
  vs_error_clear(&e);
  rc = vs_xdmf_write(path, xmf, &e);
  fuzz_h5_check_error(rc, &e);
  unlink(xmf);
}

/* --resume up to the first step: everything it reads and checks. */
static void fuzz_h5_resume(const char *path) {
  vs_error e;
  vs_error_clear(&e);
  vs_status rc = h5c_verify_checkpoint(path, NULL, NULL, &e);
  fuzz_h5_check_error(rc, &e);
  if (rc != VS_OK) return;
  vs_scene *sc = NULL;
  vs_model *m = NULL;
  vs_state *st = NULL;
  vs_error_clear(&e);
  rc = vs_h5_resume_scene(path, "fuzz", NULL, 0, &sc, &e);
  fuzz_h5_check_error(rc, &e);
  if (rc == VS_OK) {
    const uint64_t limit = vs_max_memory();
    vs_set_max_memory((uint64_t)64 << 20);
    vs_error_clear(&e);
    rc = vs_model_build(sc, &m, &e);
    vs_set_max_memory(limit);
    fuzz_h5_check_error(rc, &e);
  }
  if (rc == VS_OK) {
    vs_error_clear(&e);
    rc = vs_state_create(m, &st, &e);
    fuzz_h5_check_error(rc, &e);
  }
  if (rc == VS_OK) {
    vs_error_clear(&e);
    rc = vs_h5_read_checkpoint(path, m, st, &e);
    fuzz_h5_check_error(rc, &e);
  }
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(sc);
}

/* The whole check on one file; also called by tests/test_h5guard.c. */
static size_t fuzz_h5_file(const char *path) {
  static double *buf;
  if (!buf && !(buf = malloc(FUZZ_SLAB_BYTES))) abort();
  vs_h5g_file f;
  vs_error e;
  vs_error_clear(&e);
  vs_status rc = vs_h5g_open(path, &f, &e);
  fuzz_h5_check_error(rc, &e);
  if (rc != VS_OK) {
    if (f.file >= 0 || f.fd >= 0) fuzz_h5_fail("failed open left the file open", &e);
    return 0;
  }
  fuzz_h5_ctx c = {&f, buf, 0};
  vs_error_clear(&e);
  int v = vs_h5g_visit(&f, "/", 100000, fuzz_h5_dataset, &c, &e);
  if (v < 0 && (e.code == VS_OK || !e.message[0])) fuzz_h5_fail("visit failed without a message", &e);
  fuzz_h5_attrs(&f);
  vs_h5g_close(&f);
  fuzz_h5_viewers(path);
  fuzz_h5_resume(path);
  return c.n_dsets;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  if (!path[0]) {
    vs_h5g__probe_test(0, FUZZ_PROBE_SECONDS, 0);
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/vsim-fuzz-h5-%ld.h5", dir, (long)getpid());
  }
  FILE *fp = fopen(path, "wb");
  if (!fp) abort();
  if (size && fwrite(data, 1, size, fp) != size) abort();
  if (fclose(fp) != 0) abort();
  fuzz_h5_file(path);
  unlink(path);
  return 0;
}
