/* SPDX-License-Identifier: MIT */
/* fuzz_scene.c: a libFuzzer harness for the scene loader and --set.
 *
 * The input is split at every byte 0x01: the first part is the scene text
 * (any bytes, NULs included), the next ones (at most FUZZ_MAX_SETS) are
 * `--set KEY=VALUE` overrides (C strings: cut at their first NUL).  Then:
 *   - vs_scene_load_string must either load or fail with a filled error
 *     record and no scene;
 *   - a loaded scene must survive the emitter: vs_scene_to_yaml succeeds,
 *     its text loads back, and emitting that gives the same text (the
 *     resolved scene stored in every result file is what --resume runs);
 *   - a small enough scene is compiled (vs_model_build), given a state and
 *     stepped once when the step is cheap, so that the loader's output is
 *     also checked against what the model compiler expects.
 * A broken invariant aborts, which libFuzzer reports like a crash.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined
 * (libFuzzer provides main).  tests/test_fuzz_inputs.c includes this file
 * and replays the seeds and every input that ever crashed it
 * (tests/data/fuzz/) in `make test` and `make sanitize`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vsim/vsim.h"

#define FUZZ_SEP 0x01
#define FUZZ_MAX_SETS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_scene: %s\n%s\n", what, detail ? detail : "");
  abort();
}

/* Particles the scene asks for, saturating: the gate for compiling it. */
static int64_t scene_particles(const vs_scene *s) {
  int64_t n = 0;
  for (size_t i = 0; i < s->n_bodies; i++) {
    const vs_body_desc *b = &s->bodies[i];
    switch (b->kind) {
      case VS_BODY_PARTICLES:
        n += (int64_t)b->count;
        break;
      case VS_BODY_ROPE:
        n += b->segments + 1;
        break;
      case VS_BODY_CLOTH:
        n += b->resolution[0] * b->resolution[1];
        break;
      case VS_BODY_LATTICE:
        n += b->resolution[0] * b->resolution[1] * b->resolution[2];
        break;
      case VS_BODY_TETRA: /* fixed and small */
      case VS_BODY_RAGDOLL:
      case VS_BODY_MESH: /* the OBJ limits bound it */
        n += 32;
        break;
      case VS_BODY_RIGID:
        break;
    }
    if (n > INT32_MAX) return INT32_MAX;
  }
  return n;
}

/* Compile, and step once when that is cheap.  Errors are fine (a reference
 * to a missing body, a runaway): crashes are not. */
static void compile_and_step(const vs_scene *s) {
  int64_t np = scene_particles(s);
  if (np > 4096 || s->n_constraints > 4096) return;
  vs_model *m = NULL;
  vs_state *st = NULL;
  vs_error e;
  if (vs_model_build(s, &m, &e) != VS_OK) return;
  if (vs_state_create(m, &st, &e) == VS_OK) {
    /* a lattice has 13 links a particle; colliders act on every particle */
    double work =
        (double)s->substeps * (double)s->iterations *
        ((double)m->n_particles * (14.0 + (double)s->n_colliders) + (double)m->n_constraints);
    if (work < 2e6) vs_step(m, st, &e);
    vs_state_free(st);
  }
  vs_model_free(m);
}

/* The emitted text must load, and emit the same text again. */
static void round_trip(const vs_scene *s) {
  char *y1 = NULL, *y2 = NULL;
  vs_error e;
  if (vs_scene_to_yaml(s, &y1, &e) != VS_OK) fuzz_fail("vs_scene_to_yaml failed", e.message);
  vs_scene *r = NULL;
  if (vs_scene_load_string(y1, strlen(y1), "resolved.yaml", NULL, 0, &r, &e) != VS_OK) {
    char buf[2048];
    fprintf(stderr, "%s\n", y1);
    fuzz_fail("the emitted scene does not load", vs_error_format(&e, buf, sizeof buf));
  }
  if (vs_scene_to_yaml(r, &y2, &e) != VS_OK) fuzz_fail("vs_scene_to_yaml failed", e.message);
  if (strcmp(y1, y2) != 0) {
    fprintf(stderr, "first:\n%s\nsecond:\n%s\n", y1, y2);
    fuzz_fail("emitting the reloaded scene gives other text", NULL);
  }
  vs_free_buffer(y1);
  vs_free_buffer(y2);
  vs_scene_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* split at the separator: scene, then the overrides */
  size_t scene_len = size;
  const uint8_t *sep = memchr(data, FUZZ_SEP, size);
  if (sep) scene_len = (size_t)(sep - data);
  char *sets_text[FUZZ_MAX_SETS];
  vs_override sets[FUZZ_MAX_SETS];
  size_t n_sets = 0;
  while (sep && n_sets < FUZZ_MAX_SETS) {
    const uint8_t *start = sep + 1, *end = data + size;
    sep = memchr(start, FUZZ_SEP, (size_t)(end - start));
    size_t len = (size_t)((sep ? sep : end) - start);
    char *t = malloc(len + 1);
    if (!t) abort();
    memcpy(t, start, len);
    t[len] = '\0'; /* a NUL inside ends the string, as on a command line */
    sets_text[n_sets] = t;
    sets[n_sets].text = t;
    n_sets++;
  }

  vs_scene *s = NULL;
  vs_error e;
  memset(&e, 0x5a, sizeof e); /* the loader must fill it, whatever it held */
  vs_status st =
      vs_scene_load_string((const char *)data, scene_len, "fuzz.yaml", sets, n_sets, &s, &e);
  if (st != VS_OK) {
    if (s) fuzz_fail("a failed load returned a scene", NULL);
    if (e.code != st || !e.message[0] || !memchr(e.message, '\0', sizeof e.message) ||
        !memchr(e.file, '\0', sizeof e.file))
      fuzz_fail("a failed load left the error record unfilled", NULL);
    /* a position in the scene text points inside it; lines end as YAML
     * says: LF, CR, CR LF, NEL, LS, PS */
    if (strcmp(e.file, "fuzz.yaml") == 0) {
      long lines = 1;
      for (size_t i = 0; i < scene_len; i++) {
        if (data[i] == '\n' || (data[i] == '\r' && (i + 1 == scene_len || data[i + 1] != '\n')))
          lines++;
        else if (i + 1 < scene_len && data[i] == 0xc2 && data[i + 1] == 0x85)
          lines++;
        else if (i + 2 < scene_len && data[i] == 0xe2 && data[i + 1] == 0x80 &&
                 (data[i + 2] | 1) == 0xa9)
          lines++;
      }
      if (e.line < 0 || e.line > lines || e.column < 0 || (e.line == 0) != (e.column == 0))
        fuzz_fail("an error position outside the scene text", e.message);
    }
    char buf[2048];
    vs_error_format(&e, buf, sizeof buf);
  } else {
    if (!s) fuzz_fail("a successful load returned no scene", NULL);
    round_trip(s);
    compile_and_step(s);
    vs_scene_free(s);
  }
  for (size_t i = 0; i < n_sets; i++) free(sets_text[i]);
  return 0;
}
