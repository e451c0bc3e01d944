/* SPDX-License-Identifier: MIT */
/* h5check.c: what --resume checks before it trusts or writes a result file
 * (h5check.h): the checkpoint against its checksum and its values, and that
 * every object the resumed run writes lies in the file itself. */
#include "io/write/h5check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "io/guard/h5guard.h"
#include "io/write/h5write.h"
#include "model/model_private.h"
#include "util/alloc.h"
#include "vsim/vsim.h"

#define SLAB_BYTES ((size_t)1 << 20)

uint64_t h5c_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t h5c_hash_text(const char *text) {
  return h5c_hash(H5C_HASH_INIT, text ? text : "", text ? strlen(text) : 0);
}

static uint64_t hash_counters(uint64_t h, int64_t frame, int64_t step, double time,
                              int64_t n_alive) {
  h = h5c_hash(h, &frame, sizeof frame);
  h = h5c_hash(h, &step, sizeof step);
  h = h5c_hash(h, &time, sizeof time);
  return h5c_hash(h, &n_alive, sizeof n_alive);
}

/* Every array of the state table in its order, its element count first;
 * the arrays added after the first release (from rjoint_more on) only when
 * they are not empty, so that a checkpoint written before they existed, which
 * has none of them, keeps its checksum and resumes. */
uint64_t h5c_state_checksum(uint64_t h, const vs_state *s, const hsize_t *rows) {
#define CK_HASH(name, type, width, count)                              \
  {                                                                    \
    uint64_t n = (uint64_t)rows[CK_##name] * (uint64_t)(width);        \
    if (n != 0 || CK_##name < CK_rjoint_more) {                        \
      h = h5c_hash(h, &n, sizeof n);                                   \
      h = h5c_hash(h, s->name, (size_t)n * sizeof(type));              \
    }                                                                  \
  }
  VS_STATE_FIELDS(CK_HASH)
#undef CK_HASH
  return hash_counters(h, s->frame, s->step, s->time, s->n_alive);
}

/* The h5guard type bit of a state array's element type. */
#define CK_GTYPE(type) \
  _Generic((type *)0, double *: VS_H5G_F64, uint8_t *: VS_H5G_U8, int32_t *: VS_H5G_I32, \
           int64_t *: VS_H5G_I64)
#define CK_MEMTYPE(type) \
  _Generic((type *)0, double *: H5T_NATIVE_DOUBLE, uint8_t *: H5T_NATIVE_UINT8,           \
           int32_t *: H5T_NATIVE_INT32, int64_t *: H5T_NATIVE_INT64)

/* What is wrong with the values of a checkpoint array (first problem), and
 * what the counters are checked against. */
typedef struct ck_values {
  char what[160];
  uint64_t alive_ones; /* links of /checkpoint/alive that are 1 */
} ck_values;

static void check_values(const char *name, int width, const void *buf, size_t esize, uint64_t n,
                         uint64_t first, ck_values *v) {
  if (v->what[0]) return;
  if (esize == sizeof(double) && strcmp(name, "alive") != 0) {
    const double *d = buf;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t k = first + i;
      if (!isfinite(d[i])) {
        snprintf(v->what, sizeof v->what, "/checkpoint/%s holds a non-finite value (row %llu)",
                 name, (unsigned long long)(k / (uint64_t)width));
        return;
      }
      /* x = (x, y, z, inverse mass) */
      if (strcmp(name, "x") == 0 && width == 4 && k % 4 == 3 && d[i] < 0) {
        snprintf(v->what, sizeof v->what,
                 "/checkpoint/x gives particle %llu a negative inverse mass",
                 (unsigned long long)(k / 4));
        return;
      }
    }
  } else if (esize == 1) {
    const uint8_t *b = buf;
    for (uint64_t i = 0; i < n; i++) {
      if (b[i] > 1) {
        snprintf(v->what, sizeof v->what, "/checkpoint/%s holds %u at row %llu (0 or 1)", name,
                 b[i], (unsigned long long)(first + i));
        return;
      }
      v->alive_ones += b[i];
    }
  }
}

/* Stream one checkpoint array into the hash. */
static vs_status hash_array(const vs_h5g_file *f, const char *name, unsigned gtype, hid_t mtype,
                            size_t esize, int width, int later, uint64_t *h, uint64_t *rows_out,
                            unsigned char *buf, ck_values *v, vs_error *err) {
  char p[96];
  snprintf(p, sizeof p, "/checkpoint/%s", name);
  /* an empty array may be left out (h5checkpoint.c): 0 elements; one added
   * after the first release (later) is not hashed then (h5c_state_checksum) */
  int present = vs_h5g_path(f, p, err);
  if (present < 0) return VS_ERR_FORMAT;
  if (present == 0) {
    const uint64_t none = 0;
    *rows_out = 0;
    if (!later) *h = h5c_hash(*h, &none, sizeof none);
    return VS_OK;
  }
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, gtype, width > 1 ? 2 : 1, UINT64_MAX);
  if (width > 1) vs_h5g_spec_dim(&spec, 1, (uint64_t)width, (uint64_t)width);
  vs_h5g_dset d;
  vs_status rc = vs_h5g_dset_open(f, p, &spec, &d, err);
  if (rc != VS_OK) return rc;
  *rows_out = d.dims[0];
  if (d.n_elems > 0 || !later) *h = h5c_hash(*h, &d.n_elems, sizeof d.n_elems);
  uint64_t per = vs_h5g_rows_per(&d, mtype, SLAB_BYTES);
  for (uint64_t a = 0; rc == VS_OK && a < d.dims[0]; a += per) {
    uint64_t b = a + per < d.dims[0] ? a + per : d.dims[0];
    rc = vs_h5g_read_rows(f, &d, mtype, a, b, buf, SLAB_BYTES, err);
    if (rc != VS_OK) break;
    size_t bytes = (size_t)((b - a) * d.row_elems) * esize;
    *h = h5c_hash(*h, buf, bytes);
    check_values(name, width, buf, esize, (b - a) * d.row_elems, a * d.row_elems, v);
  }
  vs_h5g_dset_close(&d);
  return rc;
}

/* The recorded frames the checkpoint must be the last of: the step (frame
 * number) and time of the penetration series, which every file has
 * (h5series.h), streamed through buf.  Steps strictly increasing from 0 or
 * more, each a multiple of `every` (when > 0), the last one `frame`, the
 * last time `time` to the bit.  A checkpoint that says frame 2 in a file
 * that records 5 frames would resume from frame 2 and append frames after
 * the fifth under the wrong numbers. */
static vs_status check_series(const vs_h5g_file *f, const char *path, int64_t frame, double time,
                              int64_t every, unsigned char *buf, vs_error *err) {
  h5w_series_desc sd;
  h5w_series_describe(S_PEN, NULL, &sd);
  char sp[200], tp[200];
  snprintf(sp, sizeof sp, "%s/step", sd.group);
  snprintf(tp, sizeof tp, "%s/time", sd.group);
  int ex = vs_h5g_path(f, sp, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "no %s: the checkpoint cannot be matched with the recorded frames", sp);
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_INT, 1, UINT64_MAX);
  vs_h5g_dset ds, dt;
  vs_status rc = vs_h5g_dset_open(f, sp, &spec, &ds, err);
  if (rc != VS_OK) return rc;
  vs_h5g_spec_init(&spec, VS_H5G_FLOAT, 1, UINT64_MAX);
  vs_h5g_spec_dim(&spec, 0, ds.dims[0], ds.dims[0]);
  rc = vs_h5g_dset_open(f, tp, &spec, &dt, err);
  if (rc != VS_OK) {
    vs_h5g_dset_close(&ds);
    return rc;
  }
  const uint64_t rows = ds.dims[0];
  int64_t prev = -1;
  const uint64_t per = vs_h5g_rows_per(&ds, H5T_NATIVE_INT64, SLAB_BYTES);
  for (uint64_t a = 0; rc == VS_OK && a < rows; a += per) {
    const uint64_t b = a + per < rows ? a + per : rows;
    rc = vs_h5g_read_rows(f, &ds, H5T_NATIVE_INT64, a, b, buf, SLAB_BYTES, err);
    const int64_t *st = (const int64_t *)(const void *)buf;
    for (uint64_t i = 0; rc == VS_OK && i < b - a; i++) {
      if (st[i] <= prev || (every > 0 && st[i] % every != 0))
        rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "%s holds frame %lld at row %llu after frame %lld: not the frames a "
                          "run records (0, then every %lld, increasing)",
                          sp, (long long)st[i], (unsigned long long)(a + i), (long long)prev,
                          (long long)(every > 0 ? every : 1));
      prev = st[i];
    }
  }
  double last_time = 0;
  if (rc == VS_OK && rows > 0)
    rc = vs_h5g_read_rows(f, &dt, H5T_NATIVE_DOUBLE, rows - 1, rows, &last_time,
                          sizeof last_time, err);
  if (rc == VS_OK && rows == 0)
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "%s records no frame, but the checkpoint is of frame %lld", sp,
                      (long long)frame);
  else if (rc == VS_OK && prev != frame)
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "/checkpoint@frame is %lld but the last frame recorded is %lld (%s, %llu "
                      "rows): the checkpoint is of the last recorded frame; refused",
                      (long long)frame, (long long)prev, sp, (unsigned long long)rows);
  else if (rc == VS_OK && memcmp(&last_time, &time, sizeof time) != 0)
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "/checkpoint@time is %.17g but frame %lld was recorded at %.17g (%s): "
                      "refused",
                      time, (long long)frame, last_time, tp);
  vs_h5g_dset_close(&dt);
  vs_h5g_dset_close(&ds);
  return rc;
}

/* The counters against the model: step counts substeps (frame x substeps
 * of them), time is frame x dt exactly as the stepper computes it. */
static vs_status check_counters(const char *path, const vs_model *m, int64_t frame, int64_t step,
                                double time, vs_error *err) {
  if (!m) return VS_OK;
  const int64_t sub = m->substeps > 0 ? m->substeps : 1;
  if (frame > INT64_MAX / sub || step != frame * sub)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/checkpoint@step is %lld but frame %lld of %lld substeps each ends at "
                        "step %lld: refused",
                        (long long)step, (long long)frame, (long long)sub,
                        frame > INT64_MAX / sub ? -1LL : (long long)(frame * sub));
  const double want = (double)frame * m->dt;
  if (memcmp(&want, &time, sizeof want) != 0)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/checkpoint@time is %.17g but frame %lld is at %.17g (frame x dt): "
                        "refused",
                        time, (long long)frame, want);
  return VS_OK;
}

vs_status h5c_verify_checkpoint(const char *path, const vs_model *m, uint64_t *resolved_hash,
                                vs_error *err) {
  vs_h5g_file f;
  vs_status rc = vs_h5g_open(path, &f, err);
  if (rc != VS_OK) return rc;
  char *resolved = NULL;
  unsigned char *buf = NULL;
  int ck = vs_h5g_path(&f, "/checkpoint", err);
  if (ck < 0) {
    rc = VS_ERR_FORMAT;
    goto done;
  }
  if (ck == 0) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "no /checkpoint (the run recorded no frame, or an older vsim wrote it)");
    goto done;
  }
  /* Appending to another format would give a file of two layouts; files
   * before format_version existed are format 1. */
  int64_t format = 1;
  if (vs_h5g_attr_int64(&f, "/parameters/vsim", "format_version", 1, INT64_MAX, &format, err) !=
          VS_OK &&
      !strstr(err->message, "has no attribute")) {
    rc = VS_ERR_FORMAT;
    goto done;
  }
  if (format != VSIM_FORMAT_VERSION) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "cannot resume: the file is in result format %lld and this vsim writes "
                      "format %d; run the scene again (its text is /parameters/vsim@scene)",
                      (long long)format, VSIM_FORMAT_VERSION);
    goto done;
  }
  int64_t stored;
  if (vs_h5g_attr_int64(&f, "/checkpoint", "checksum_fnv1a64", INT64_MIN, INT64_MAX, &stored,
                        err) != VS_OK) {
    if (!strstr(err->message, "has no attribute")) {
      rc = VS_ERR_FORMAT;
      goto done;
    }
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "/checkpoint has no checksum (written by an older vsim): it cannot be "
                      "verified, run the scene again");
    goto done;
  }
  rc = vs_h5g_attr_string(&f, "/parameters/vsim", "resolved", H5C_RESOLVED_MAX, &resolved, err);
  if (rc != VS_OK) goto done;
  uint64_t h = h5c_hash_text(resolved);
  if (resolved_hash) *resolved_hash = h;
  buf = vs_malloc(SLAB_BYTES);
  if (!buf) {
    rc = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
    goto done;
  }
  ck_values v = {"", 0};
  uint64_t rows_alive = 0, rows;
#define CK_STREAM(name, type, width, count)                                                  \
  if (rc == VS_OK) {                                                                         \
    rc = hash_array(&f, #name, CK_GTYPE(type), CK_MEMTYPE(type), sizeof(type), (width),      \
                    CK_##name >= CK_rjoint_more, &h, &rows, buf, &v, err);                   \
    if (strcmp(#name, "alive") == 0) rows_alive = rows;                                      \
  }
  VS_STATE_FIELDS(CK_STREAM)
#undef CK_STREAM
  if (rc != VS_OK) goto done;
  int64_t frame, step, n_alive;
  double time;
  if ((rc = vs_h5g_attr_int64(&f, "/checkpoint", "frame", 0, VS_MAX_FRAMES, &frame, err)) !=
          VS_OK ||
      (rc = vs_h5g_attr_int64(&f, "/checkpoint", "step", 0, INT64_MAX, &step, err)) != VS_OK ||
      (rc = vs_h5g_attr_double(&f, "/checkpoint", "time", 0, INFINITY, &time, err)) != VS_OK ||
      (rc = vs_h5g_attr_int64(&f, "/checkpoint", "n_alive", 0, INT64_MAX, &n_alive, err)) !=
          VS_OK)
    goto done;
  h = hash_counters(h, frame, step, time, n_alive);
  if (h != (uint64_t)stored) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "checkpoint does not match its checksum (the file was changed or is "
                      "corrupt): refused");
  } else if (v.what[0]) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0, "%s", v.what);
  } else if ((uint64_t)n_alive > rows_alive) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "/checkpoint@n_alive is %lld, more than its %llu links", (long long)n_alive,
                      (unsigned long long)rows_alive);
  } else if ((uint64_t)n_alive != v.alive_ones) {
    rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                      "/checkpoint@n_alive is %lld but /checkpoint/alive has %llu links alive",
                      (long long)n_alive, (unsigned long long)v.alive_ones);
  }
  if (rc == VS_OK) rc = check_counters(path, m, frame, step, time, err);
  if (rc == VS_OK)
    rc = check_series(&f, path, frame, time, m && m->output.every > 0 ? m->output.every : 0, buf,
                      err);
done:
  vs_free(buf);
  vs_free(resolved);
  vs_h5g_close(&f);
  return rc;
}

/* The VS_H5G_* bit of a standard file type the writer uses. */
static unsigned gtype_of(hid_t t) {
  if (H5Tequal(t, H5T_IEEE_F64LE) > 0) return VS_H5G_F64;
  if (H5Tequal(t, H5T_IEEE_F32LE) > 0) return VS_H5G_F32;
  if (H5Tequal(t, H5T_STD_I64LE) > 0) return VS_H5G_I64;
  if (H5Tequal(t, H5T_STD_I32LE) > 0) return VS_H5G_I32;
  if (H5Tequal(t, H5T_STD_U8LE) > 0) return VS_H5G_U8;
  return 0;
}

static vs_status check_dset(const vs_h5g_file *f, const char *path, unsigned gtype, int rank,
                            const hsize_t *inner, vs_error *err) {
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, gtype, rank, UINT64_MAX);
  for (int k = 1; k < rank; k++) vs_h5g_spec_dim(&spec, k, inner[k - 1], inner[k - 1]);
  vs_h5g_dset d;
  vs_status rc = vs_h5g_dset_open(f, path, &spec, &d, err);
  if (rc == VS_OK) vs_h5g_dset_close(&d);
  return rc;
}

vs_status h5c_check_writable(const char *tmp, const char *name, const vs_model *m, vs_error *err) {
  vs_h5g_file f;
  vs_status rc = vs_h5g_open(tmp, &f, err);
  if (rc != VS_OK) return rc;
  snprintf(f.name, sizeof f.name, "%s", name); /* messages name the user's file */
  int ex = vs_h5g_path(&f, "/parameters/vsim", err);
  if (ex == 0) rc = vs_error_set(err, VS_ERR_FORMAT, name, 0, 0, "no /parameters/vsim");
  if (ex < 0) rc = VS_ERR_FORMAT;
  for (int i = 0; rc == VS_OK && i < S_COUNT; i++) {
    h5w_series_desc d;
    h5w_series_describe(i, m, &d);
    char p[200];
    snprintf(p, sizeof p, "%s/value", d.group);
    ex = vs_h5g_path(&f, p, err);
    if (ex < 0) rc = VS_ERR_FORMAT;
    if (ex <= 0 || !d.wanted) continue; /* absent: vs_h5_reopen says which */
    unsigned g = gtype_of(d.ftype);
    rc = check_dset(&f, p, g ? g : VS_H5G_NUMERIC, d.rank, d.inner, err);
    snprintf(p, sizeof p, "%s/step", d.group);
    if (rc == VS_OK) rc = check_dset(&f, p, VS_H5G_I64, 1, NULL, err);
    snprintf(p, sizeof p, "%s/time", d.group);
    if (rc == VS_OK) rc = check_dset(&f, p, VS_H5G_F64, 1, NULL, err);
  }
  vs_h5g_close(&f);
  return rc;
}

/* ---- the checkpoint against the model ------------------------------------- */

/* The warm-start cache's order (rigid_solve.c's ckey_cmp): body a, then
 * colliders by index, then bodies b, then feature. */
static int cache_key_less(const int32_t *ab, const uint32_t *feat, int32_t k, int32_t nc) {
  const int32_t a1 = ab[2 * k - 2], b1 = ab[2 * k - 1], a2 = ab[2 * k], b2 = ab[2 * k + 1];
  if (a1 != a2) return a1 < a2;
  const int64_t k1 = b1 < 0 ? (int64_t)(-1 - (int64_t)b1) : (int64_t)nc + b1;
  const int64_t k2 = b2 < 0 ? (int64_t)(-1 - (int64_t)b2) : (int64_t)nc + b2;
  if (k1 != k2) return k1 < k2;
  return feat[k - 1] <= feat[k];
}

static vs_status check_rigid(const char *path, const vs_model *m, const vs_state *s,
                             vs_error *err) {
  const int32_t nb = m->n_rigid;
  if (nb <= 0) return VS_OK;
  /* the world's slot: at rest, identity pose */
  const size_t w = (size_t)nb;
  for (int k = 0; k < 3; k++)
    if (s->rx[3 * w + k] != 0 || s->rv[3 * w + k] != 0 || s->rw[3 * w + k] != 0)
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/rx, rv or rw moves the world (row %d): refused", (int)nb);
  if (s->rq[4 * w] != 1 || s->rq[4 * w + 1] != 0 || s->rq[4 * w + 2] != 0 || s->rq[4 * w + 3] != 0)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/checkpoint/rq turns the world (row %d): refused", (int)nb);
  for (int32_t i = 0; i < nb; i++) {
    const double *q = s->rq + 4 * (size_t)i;
    const double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabs(n2 - 1.0) <= 1e-6))
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/rq: body %d's orientation (%g, %g, %g, %g) is not a unit "
                          "quaternion (|q|^2 = %.9g): refused",
                          (int)i, q[0], q[1], q[2], q[3], n2);
  }
  const int32_t n = s->rn_cache[0], nc = m->n_colliders;
  if (n < 0 || n > m->rigid_max_contacts)
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/checkpoint/rn_cache holds %d contacts; the contact cache has room for "
                        "%d: refused",
                        (int)n, (int)m->rigid_max_contacts);
  const int32_t *ab = s->rcache_ab;
  const uint32_t *feat = (const uint32_t *)(const void *)s->rcache_feature;
  for (int32_t k = 0; k < n; k++) {
    const int32_t a = ab[2 * k], b = ab[2 * k + 1];
    const int body_ok = b >= 0 && b > a && b < nb;
    const int coll_ok = b < 0 && (int64_t)-1 - b < nc;
    if (a < 0 || a >= nb || (!body_ok && !coll_ok))
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/rcache_ab: contact %d is between %d and %d; the model has "
                          "%d bodies and %d colliders: refused",
                          (int)k, (int)a, (int)b, (int)nb, (int)nc);
    if (coll_ok && m->collider_mesh[-1 - b].n_triangles > 0) {
      /* a mesh collider's contacts name one of its triangles (triangle << 5
       * | point) or, with the top bit, one of its vertices (vertex << 3 |
       * box face): rigid_collide_mesh.c's feature ids */
      const vs_collider_mesh *cm = &m->collider_mesh[-1 - b];
      const int vert = (feat[k] & 0x80000000u) != 0;
      const uint32_t id = vert ? (feat[k] & 0x7fffffffu) >> 3 : feat[k] >> 5;
      const uint32_t have = (uint32_t)(vert ? cm->n_vertices : cm->n_triangles);
      if (id >= have)
        return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                            "/checkpoint/rcache_feature: contact %d names %s %u of mesh collider "
                            "%d, which has %u: refused",
                            (int)k, vert ? "vertex" : "triangle", (unsigned)id, (int)(-1 - b),
                            (unsigned)have);
    }
    if (k > 0 && !cache_key_less(ab, feat, k, nc))
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/rcache_ab: contact %d is out of the cache's order: refused",
                          (int)k);
    if (!(s->rcache_impulse[4 * (size_t)k] >= 0))
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/rcache_impulse: contact %d has a negative normal impulse "
                          "(%g): refused",
                          (int)k, s->rcache_impulse[4 * (size_t)k]);
  }
  return VS_OK;
}

vs_status h5c_check_state(const char *path, const vs_model *m, const vs_state *s, vs_error *err) {
  vs_status rc = check_counters(path, m, s->frame, s->step, s->time, err);
  if (rc != VS_OK) return rc;
  for (int32_t i = 0; i < m->n_particles; i++) {
    const double w0 = m->x0[4 * (size_t)i + 3];
    if (s->x[4 * (size_t)i + 3] != w0 || s->xprev[4 * (size_t)i + 3] != w0)
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/x gives particle %d the inverse mass %g; the scene gives "
                          "it %g: refused",
                          (int)i,
                          s->x[4 * (size_t)i + 3] != w0 ? s->x[4 * (size_t)i + 3]
                                                         : s->xprev[4 * (size_t)i + 3],
                          w0);
  }
  for (int32_t i = 0; i < m->n_dist; i++)
    if (!s->alive[i] && !(m->dist_tear[i] > 0))
      return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                          "/checkpoint/alive: link %d is torn, but it cannot tear: refused",
                          (int)i);
  return check_rigid(path, m, s, err);
}

/* ---- the OBJ files a run read ------------------------------------------- */

int h5c_mesh_line(const char **p, char *key, size_t key_size, long long *bytes,
                  unsigned long long *hash, char *path, size_t path_size) {
  const char *s = *p;
  if (!*s) return 0;
  const char *eol = strchr(s, '\n');
  if (!eol) return -1;
  *p = eol + 1;
  const char *t1 = memchr(s, '\t', (size_t)(eol - s));
  if (!t1 || (size_t)(t1 - s) >= key_size || t1 == s) return -1;
  memcpy(key, s, (size_t)(t1 - s));
  key[t1 - s] = '\0';
  char *end = NULL;
  errno = 0;
  *bytes = strtoll(t1 + 1, &end, 10);
  if (errno || end == t1 + 1 || *end != '\t' || *bytes < 0) return -1;
  const char *h = end + 1;
  *hash = strtoull(h, &end, 16);
  if (errno || end != h + 16 || *end != '\t') return -1;
  size_t n = 0;
  for (const char *c = end + 1; c < eol; c++) {
    char v = *c;
    if (v == '%') {
      unsigned x = 0;
      if (eol - c < 3 || sscanf(c + 1, "%2x", &x) != 1) return -1;
      v = (char)x;
      c += 2;
    }
    if (v == '\0' || n + 1 >= path_size) return -1;
    path[n++] = v;
  }
  if (n == 0) return -1;
  path[n] = '\0';
  return 1;
}

vs_status h5c_check_meshes(const void *fp, const char *path, const vs_model *m, vs_error *err) {
  const vs_h5g_file *f = fp;
  char *rec = NULL;
  vs_status rc = vs_h5g_attr_string(f, "/parameters/vsim", "mesh_files", H5C_RESOLVED_MAX, &rec,
                                    err);
  if (rc != VS_OK && !strstr(err->message, "has no attribute")) return rc;
  const char *mine = m->priv ? m->priv->mesh_files : NULL;
  rc = VS_OK;
  if (!mine && !rec) return VS_OK;
  if (!rec) {
    return vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "the file does not record the OBJ files its run read (an older vsim "
                        "wrote it): they cannot be checked; run the scene again");
  }
  const char *a = rec, *b = mine ? mine : "";
  enum { PATH_BYTES = 2 * VS_MAX_PATH };
  char *pa = vs_malloc(2 * PATH_BYTES);
  if (!pa) {
    vs_free(rec);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  char *pb = pa + PATH_BYTES;
  for (int line = 1; rc == VS_OK; line++) {
    char ka[64], kb[64];
    long long na = 0, nb = 0;
    unsigned long long ha = 0, hb = 0;
    int ra = h5c_mesh_line(&a, ka, sizeof ka, &na, &ha, pa, PATH_BYTES);
    int rb = h5c_mesh_line(&b, kb, sizeof kb, &nb, &hb, pb, PATH_BYTES);
    if (ra < 0)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "/parameters/vsim@mesh_files: line %d is not one of vsim's", line);
    else if (ra == 0 && rb == 0)
      break;
    else if (rb <= 0 || ra == 0 || strcmp(ka, kb) != 0)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "the run read the OBJ file of %s, the scene now that of %s: not the same "
                        "scene",
                        ra > 0 ? ka : "nothing more", rb > 0 ? kb : "nothing more");
    else if (na != nb || ha != hb)
      rc = vs_error_set(err, VS_ERR_FORMAT, path, 0, 0,
                        "%s.mesh.file '%s' is not what the run read: %lld bytes of FNV-1a 64 "
                        "%016llx now, %lld bytes of %016llx then (the file was changed): refused",
                        kb, pb, nb, hb, na, ha);
  }
  vs_free(pa);
  vs_free(rec);
  return rc;
}
