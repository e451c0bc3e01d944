/* SPDX-License-Identifier: MIT */
/* reduce.c: one number from a dataset of a result file (vsim/sweep.h,
 * reductions): the `collect` columns of a sweep's summary.csv.
 *
 * "OP PATH[I, J]" is parsed once (vs_reduction_parse), its names turned
 * into numbers against the run's model (vs_reduction_bind), then read from
 * each point's file (vs_reduction_eval): the dataset is streamed a few
 * megabytes at a time along axis 0, the selected elements of each row fed
 * to the reduction, so a long trajectory costs no more memory than a short
 * one. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "vsim/sweep.h"

#define BUF_BYTES ((size_t)8 << 20)
#define MAX_OBJECTS ((size_t)1 << 20)

static const char *const op_names[] = {"final", "first", "max", "min", "mean"};
#define N_OPS (sizeof op_names / sizeof op_names[0])

static vs_status bad(char *why, size_t size, size_t *at, size_t where, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static vs_status bad(char *why, size_t size, size_t *at, size_t where, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  if (at) *at = where;
  return VS_ERR_USAGE;
}

static int blank(char c) {
  return c == ' ' || c == '\t';
}

vs_status vs_reduction_parse(const char *text, vs_reduction *out, char *why, size_t why_size,
                             size_t *at) {
  memset(out, 0, sizeof *out);
  if (at) *at = 0;
  size_t i = 0;
  while (blank(text[i])) i++;
  size_t w0 = i;
  while (text[i] && !blank(text[i]) && text[i] != '/') i++;
  size_t wl = i - w0;
  int op = -1;
  for (size_t k = 0; k < N_OPS; k++)
    if (strlen(op_names[k]) == wl && !strncmp(text + w0, op_names[k], wl)) op = (int)k;
  if (op < 0) {
    if (wl == 0)
      return bad(why, why_size, at, w0,
                 "expected a reduction (final, first, max, min or mean) before the path, as in "
                 "\"max /observables/energy_kinetic\"");
    char word[40];
    snprintf(word, sizeof word, "%.*s", (int)(wl < 32 ? wl : 32), text + w0);
    const char *near = NULL;
    for (size_t k = 0; k < N_OPS && !near; k++)
      if (vs_edit_distance(word, op_names[k], 2) <= 2) near = op_names[k];
    if (near)
      return bad(why, why_size, at, w0,
                 "unknown reduction '%s', did you mean '%s'? (final, first, max, min, mean)",
                 word, near);
    return bad(why, why_size, at, w0, "unknown reduction '%s' (final, first, max, min, mean)",
               word);
  }
  out->op = (vs_reduce_op)op;
  while (blank(text[i])) i++;
  size_t p0 = i;
  if (text[i] != '/')
    return bad(why, why_size, at, i,
               "expected the absolute path of a dataset after '%s', such as "
               "/observables/energy_kinetic",
               op_names[op]);
  while (text[i] && text[i] != '[' && !blank(text[i])) i++;
  size_t pl = i - p0;
  if (pl >= sizeof out->path) return bad(why, why_size, at, p0, "path longer than %zu bytes",
                                         sizeof out->path - 1);
  memcpy(out->path, text + p0, pl);
  out->path[pl] = '\0';
  while (pl > 1 && out->path[pl - 1] == '/') out->path[--pl] = '\0';
  if (strstr(out->path, "//"))
    return bad(why, why_size, at, p0, "'%s': an empty component in the path", out->path);
  while (blank(text[i])) i++;
  if (text[i] == '[') {
    size_t open = i++;
    for (;;) {
      while (blank(text[i])) i++;
      size_t q0 = i;
      while (text[i] && text[i] != ',' && text[i] != ']') i++;
      if (!text[i]) return bad(why, why_size, at, open, "'[' without its ']'");
      size_t q1 = i;
      while (q1 > q0 && blank(text[q1 - 1])) q1--;
      if (out->n_index == VS_MAX_REDUCE_INDEX)
        return bad(why, why_size, at, q0, "more than %d index items", VS_MAX_REDUCE_INDEX);
      if (q1 - q0 >= sizeof out->index[0])
        return bad(why, why_size, at, q0, "an index item longer than %zu bytes",
                   sizeof out->index[0] - 1);
      char *item = out->index[out->n_index];
      memcpy(item, text + q0, q1 - q0);
      item[q1 - q0] = '\0';
      if (!strcmp(item, ":")) item[0] = '\0';
      for (const char *c = item; *c; c++)
        if (*c == '[' || blank(*c))
          return bad(why, why_size, at, q0, "index item '%s': expected a number, a name or ':'",
                     item);
      out->n_index++;
      if (text[i] == ']') break;
      i++; /* ',' */
    }
    i++;
    while (blank(text[i])) i++;
  }
  if (text[i])
    return bad(why, why_size, at, i, "unexpected '%.20s' after the %s", text + i,
               out->n_index ? "index" : "path");
  return VS_OK;
}

/* An index item as a number: 1 and *v set, 0 when it is not one. */
static int as_number(const char *s, int64_t *v) {
  if (!*s) return 0;
  char *end;
  long long x = strtoll(s, &end, 10);
  if (*end || end == s) return 0;
  *v = x;
  return 1;
}

static int under(const char *path, const char *prefix) {
  size_t n = strlen(prefix);
  return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

vs_status vs_reduction_bind(vs_reduction *r, const vs_model *m, char *why, size_t why_size) {
  r->bound = 0;
  for (int i = 0; i < r->n_index; i++) {
    const char *s = r->index[i];
    if (!*s) {
      r->at[i] = INT64_MIN; /* the whole axis */
      continue;
    }
    if (as_number(s, &r->at[i])) continue;
    /* a name: only on the axis after the frames (the first index item) */
    if (i > 0)
      return bad(why, why_size, NULL, 0,
                 "index item %d '%s': names go on the first item (the body axis); this one "
                 "takes a number",
                 i + 1, s);
    if (under(r->path, "/particles/rigid")) {
      int found = -1;
      for (int32_t b = 0; m && b < m->n_rigid && found < 0; b++)
        if (!strcmp(m->bodies[m->rigid_body[b]].name, s)) found = b;
      if (found < 0) {
        const char *near = NULL;
        for (int32_t b = 0; m && b < m->n_rigid && !near; b++)
          if (vs_edit_distance(s, m->bodies[m->rigid_body[b]].name, 2) <= 2)
            near = m->bodies[m->rigid_body[b]].name;
        if (near)
          return bad(why, why_size, NULL, 0, "'%s': no rigid body of that name, did you mean '%s'?",
                     s, near);
        return bad(why, why_size, NULL, 0, "'%s': no rigid body of that name (the scene has %d)",
                   s, m ? m->n_rigid : 0);
      }
      r->at[i] = found;
    } else if (under(r->path, "/particles/all")) {
      int32_t p = -1;
      char reason[200] = "";
      if (!strchr(s, ':'))
        return bad(why, why_size, NULL, 0,
                   "'%s': the axis of %s is the particles: name one as NAME:INDEX "
                   "(\"%s:0\" is the first of body %s)",
                   s, r->path, s, s);
      if (!m || vs_model_resolve_ref(m, s, &p, reason, sizeof reason) != VS_OK)
        return bad(why, why_size, NULL, 0, "'%s': %s", s, reason);
      r->at[i] = p;
    } else {
      return bad(why, why_size, NULL, 0,
                 "'%s': %s has no body axis (names go on /particles/rigid/... and "
                 "/particles/all/...); index it by number",
                 s, r->path);
    }
  }
  r->bound = 1;
  return VS_OK;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct near_ctx {
  const char *want;
  char best[256];
  int best_d;
} near_ctx;

/* The dataset path nearest to the one asked for (a series group's value
 * counted by its group's name too). */
static int near_visit(const char *path, void *data) {
  near_ctx *c = data;
  char alt[256];
  snprintf(alt, sizeof alt, "%s", path);
  size_t n = strlen(alt);
  for (int pass = 0; pass < 2; pass++) {
    int d = vs_edit_distance(c->want, alt, 6);
    if (d < c->best_d) {
      c->best_d = d;
      snprintf(c->best, sizeof c->best, "%s", alt);
    }
    if (n > 6 && !strcmp(alt + n - 6, "/value"))
      alt[n - 6] = '\0';
    else
      break;
  }
  return 0;
}

/* A dataset of an H5MD time series group (value with step beside it). */
static int series_value(const vs_h5g_file *f, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path || strcmp(slash + 1, "value")) return 0;
  char buf[300];
  snprintf(buf, sizeof buf, "%.*s/step", (int)(slash - path), path);
  return vs_h5g_path(f, buf, NULL) == 1;
}

vs_status vs_reduction_eval(const char *h5_path, const vs_reduction *r, double *value,
                            vs_error *err) {
  *value = NAN;
  if (!r->bound && r->n_index > 0)
    for (int i = 0; i < r->n_index; i++) {
      int64_t v;
      if (r->index[i][0] && !as_number(r->index[i], &v))
        return vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                            "%s: index '%s' is a name: bind the reduction to the run's model "
                            "first (vs_reduction_bind)",
                            r->path, r->index[i]);
    }
  vs_h5g_file f = {.file = H5I_INVALID_HID, .lapl = H5I_INVALID_HID, .fd = -1};
  vs_h5g_dset d;
  d.id = d.space = H5I_INVALID_HID;
  int64_t *offs = NULL;
  double *buf = NULL;
  vs_status st = vs_h5g_open_result(h5_path, &f, err);
  if (st != VS_OK) return st;

  /* the dataset: the path, or the value of the series group it names */
  char path[300];
  snprintf(path, sizeof path, "%s", r->path);
  vs_error e;
  int is = vs_h5g_path(&f, path, &e);
  if (is == 1 && strlen(r->path) + 7 < sizeof path) {
    /* a series group: its value */
    snprintf(path, sizeof path, "%s/value", r->path);
    if (vs_h5g_path(&f, path, &e) != 1) snprintf(path, sizeof path, "%s", r->path);
  }
  if (is != 1) {
    near_ctx c = {.want = r->path, .best = "", .best_d = 7};
    static const char *const roots[] = {"/particles", "/observables", "/connectivity", "/solver"};
    for (size_t k = 0; k < 4; k++)
      if (vs_h5g_path(&f, roots[k], NULL) == 1)
        vs_h5g_visit(&f, roots[k], MAX_OBJECTS, near_visit, &c, &e);
    if (c.best[0])
      st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0, "no dataset %s (did you mean %s?)",
                        r->path, c.best);
    else
      st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                        "no dataset %s (vsim info lists the file's datasets)", r->path);
    goto done;
  }
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, -1, UINT64_MAX);
  if ((st = vs_h5g_dset_open(&f, path, &spec, &d, err)) != VS_OK) goto done;
  int series = series_value(&f, path) && d.rank >= 1;
  int a0 = series ? 1 : 0; /* the first axis the index addresses */
  /* the shape, axis 0 of a series named for what it is (a file of any
   * length gives the same messages) */
  char shape[160];
  vs_h5g_shape_text(&d, shape, sizeof shape);
  if (series) {
    const char *rest = strchr(shape, ',');
    char tmp[160];
    snprintf(tmp, sizeof tmp, "[frames%s", rest ? rest : "]");
    snprintf(shape, sizeof shape, "%s", tmp);
  }
  if (r->n_index > d.rank - a0) {
    st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                      "%s is %s%s: at most %d index item%s, got %d", path, shape,
                      series ? " (axis 0 the frames)" : "", d.rank - a0,
                      d.rank - a0 == 1 ? "" : "s", r->n_index);
    goto done;
  }
  if ((r->op == VS_REDUCE_FINAL || r->op == VS_REDUCE_FIRST) && !series) {
    st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                      "%s: %s takes a time series (a dataset with a frame axis), and %s %s is "
                      "none; use max, min or mean",
                      r->path, op_names[r->op], path, shape);
    goto done;
  }
  /* the selection within one row (axes a0..rank-1): lo and count per axis */
  uint64_t lo[VS_H5G_MAX_RANK], cnt[VS_H5G_MAX_RANK];
  uint64_t n_sel = 1;
  for (int ax = a0; ax < d.rank; ax++) {
    int k = ax - a0;
    lo[ax] = 0;
    cnt[ax] = d.dims[ax];
    if (k < r->n_index) {
      int64_t v = 0;
      int whole;
      if (r->bound) {
        whole = r->at[k] == INT64_MIN;
        v = r->at[k];
      } else {
        whole = r->index[k][0] == '\0';
        if (!whole) as_number(r->index[k], &v);
      }
      if (!whole) {
        int64_t n = (int64_t)d.dims[ax];
        int64_t idx = v < 0 ? n + v : v;
        if (idx < 0 || idx >= n) {
          st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                            "%s: index %lld of axis %d is out of range: %s is %s", r->path,
                            (long long)v, ax, path, shape);
          goto done;
        }
        lo[ax] = (uint64_t)idx;
        cnt[ax] = 1;
      }
    }
    n_sel *= cnt[ax];
  }
  uint64_t rows = series ? d.dims[0] : 1;
  if ((r->op == VS_REDUCE_FINAL || r->op == VS_REDUCE_FIRST) && n_sel != 1) {
    st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0,
                      "%s: %s takes one number a frame, and %s %s gives %llu: index every axis "
                      "after the frames (e.g. [0%s])",
                      r->path, op_names[r->op], path, shape, (unsigned long long)n_sel,
                      d.rank - a0 > 1 ? ", 0" : "");
    goto done;
  }
  if (rows == 0 || n_sel == 0) {
    st = vs_error_set(err, VS_ERR_USAGE, h5_path, 0, 0, "%s: %s %s holds nothing to reduce",
                      r->path, path, shape);
    goto done;
  }
  /* flat offsets of the selected elements within one row (of the axes
   * after a0; a non-series dataset is one row of everything) */
  uint64_t row_elems = 1;
  for (int ax = a0; ax < d.rank; ax++) row_elems *= d.dims[ax];
  offs = vs_malloc((size_t)n_sel * sizeof *offs);
  if (!offs) goto oom;
  for (uint64_t s = 0; s < n_sel; s++) {
    uint64_t rest = s, flat = 0;
    uint64_t stride = 1;
    for (int ax = d.rank - 1; ax >= a0; ax--) {
      uint64_t c = rest % cnt[ax];
      rest /= cnt[ax];
      flat += (lo[ax] + c) * stride;
      stride *= d.dims[ax];
    }
    offs[s] = (int64_t)flat;
  }
  /* the rows to read: all of them, or the one of final/first */
  uint64_t r0 = 0, r1 = rows;
  if (r->op == VS_REDUCE_FINAL) r0 = rows - 1;
  if (r->op == VS_REDUCE_FIRST) r1 = 1;
  uint64_t per = series ? vs_h5g_rows_per(&d, H5T_NATIVE_DOUBLE, BUF_BYTES) : 1;
  size_t buf_n = (size_t)(series ? (per ? per : 1) * d.row_elems : d.n_elems);
  if (series && per == 0) {
    st = vs_error_set(err, VS_ERR_LIMIT, h5_path, 0, 0, "%s: one frame is over %zu bytes", path,
                      BUF_BYTES);
    goto done;
  }
  if (!series && (uint64_t)buf_n * sizeof(double) > ((uint64_t)1 << 31)) {
    st = vs_error_set(err, VS_ERR_LIMIT, h5_path, 0, 0, "%s: over 2 GB", path);
    goto done;
  }
  buf = vs_malloc((buf_n ? buf_n : 1) * sizeof *buf);
  if (!buf) goto oom;
  double acc = r->op == VS_REDUCE_MAX ? -INFINITY : r->op == VS_REDUCE_MIN ? INFINITY : 0;
  int nan = 0;
  uint64_t count = 0;
  for (uint64_t a = r0; a < r1;) {
    uint64_t b = series ? (a + per < r1 ? a + per : r1) : 1;
    if ((st = vs_h5g_read_rows(&f, &d, H5T_NATIVE_DOUBLE, series ? a : 0, series ? b : 1, buf,
                               buf_n * sizeof *buf, err)) != VS_OK)
      goto done;
    for (uint64_t q = 0; q < b - a; q++) {
      const double *row = buf + q * row_elems;
      for (uint64_t s = 0; s < n_sel; s++) {
        double x = row[offs[s]];
        if (isnan(x)) nan = 1;
        switch (r->op) {
          case VS_REDUCE_MAX: if (x > acc) acc = x; break;
          case VS_REDUCE_MIN: if (x < acc) acc = x; break;
          case VS_REDUCE_MEAN:
          case VS_REDUCE_FINAL:
          case VS_REDUCE_FIRST: acc += x; break;
        }
        count++;
      }
    }
    a = b;
  }
  if (r->op == VS_REDUCE_MEAN) acc /= (double)count;
  *value = nan ? NAN : acc;
  goto done;
oom:
  st = vs_error_set(err, VS_ERR_NOMEM, h5_path, 0, 0, "out of memory");
done:
  vs_free(offs);
  vs_free(buf);
  vs_h5g_dset_close(&d);
  vs_h5g_close(&f);
  return st;
}
