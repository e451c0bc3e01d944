/* SPDX-License-Identifier: MIT */
/* compare.c: golden comparison of two result files (docs/cli.md, vsim compare); the
 * summary behind `vsim info` is describe.c.
 *
 * Unlike h5diff, a dataset on one side only or of another shape is a
 * difference.  Values are streamed in blocks of about a million elements
 * along axis 0 (and axis 1 when one frame is bigger than that), so comparing
 * multi-gigabyte trajectories needs a few megabytes of memory. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/text.h"
#include "io/guard/h5guard.h"
#include "io/h5util.h"
#include "vsim/compare.h"
#include "vsim/vsim.h"

#define BLOCK_ELEMS ((uint64_t)1 << 20)
/* objects walked in one file (vsim writes a few hundred) */
#define MAX_OBJECTS ((size_t)1 << 20)

/* The groups whose datasets are compared; /parameters records command
 * lines and timings and is deliberately left out. */
static const char *const compared_roots[] = {"/connectivity", "/observables", "/particles",
                                             "/solver"};

/* ---- diff records ---------------------------------------------------------- */

typedef struct diff_list {
  vs_compare_diff *v;
  size_t n, cap;
} diff_list;

static vs_compare_diff *diff_add(diff_list *d, const char *path, vs_diff_kind kind) {
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 16;
    vs_compare_diff *v = vs_realloc(d->v, cap * sizeof *v);
    if (!v) return NULL;
    d->v = v;
    d->cap = cap;
  }
  vs_compare_diff *x = &d->v[d->n++];
  memset(x, 0, sizeof *x);
  snprintf(x->path, sizeof x->path, "%s", path);
  x->kind = kind;
  x->first_index = x->first_frame = x->first_particle = x->first_step = -1;
  x->first_time = NAN;
  return x;
}

static int cmp_diff(const void *a, const void *b) {
  return strcmp(((const vs_compare_diff *)a)->path, ((const vs_compare_diff *)b)->path);
}

/* ---- element comparison ---------------------------------------------------- */

/* Distance in units in the last place: the bit patterns mapped onto one
 * ordered integer line (negative values mirrored), so that neighbouring
 * floats differ by 1 and -0 == +0.  float32 data is measured in float ULPs. */
static uint64_t ulp_distance(double x, double y, int f32) {
  if (f32) {
    float fx = (float)x, fy = (float)y;
    int32_t ix, iy;
    memcpy(&ix, &fx, sizeof ix);
    memcpy(&iy, &fy, sizeof iy);
    int64_t ox = ix < 0 ? (int64_t)INT32_MIN - ix : ix;
    int64_t oy = iy < 0 ? (int64_t)INT32_MIN - iy : iy;
    return (uint64_t)(ox > oy ? ox - oy : oy - ox);
  }
  int64_t ix, iy;
  memcpy(&ix, &x, sizeof ix);
  memcpy(&iy, &y, sizeof iy);
  if (ix < 0) ix = INT64_MIN - ix;
  if (iy < 0) iy = INT64_MIN - iy;
  /* unsigned wrap-around gives the exact distance, which is < 2^64 */
  return ix > iy ? (uint64_t)ix - (uint64_t)iy : (uint64_t)iy - (uint64_t)ix;
}

typedef struct cmp_acc {
  double atol, rtol;
  int64_t ulps;
  int f32;
  double max_abs, max_rel;
  int64_t first, n_bad;
  double first_a, first_b;
} cmp_acc;

static void compare_block(cmp_acc *c, const double *a, const double *b, size_t n, int64_t base) {
  for (size_t i = 0; i < n; i++) {
    double x = a[i], y = b[i];
    if (x == y) continue; /* also inf == inf of one sign, and -0 == +0 */
    double ad, rd;
    int bad;
    if (isnan(x) || isnan(y)) {
      if (isnan(x) && isnan(y)) continue;
      ad = rd = INFINITY;
      bad = 1;
    } else if (isinf(x) || isinf(y)) {
      ad = rd = INFINITY;
      bad = 1;
    } else {
      ad = fabs(x - y);
      rd = y != 0 ? ad / fabs(y) : INFINITY;
      bad = !(ad <= c->atol + c->rtol * fabs(y));
      if (bad && c->ulps > 0 && ulp_distance(x, y, c->f32) <= (uint64_t)c->ulps) bad = 0;
    }
    if (ad > c->max_abs) c->max_abs = ad;
    if (rd > c->max_rel) c->max_rel = rd;
    if (bad) {
      if (c->first < 0) {
        c->first = base + (int64_t)i;
        c->first_a = x;
        c->first_b = y;
      }
      c->n_bad++;
    }
  }
}

/* ---- one dataset pair ----------------------------------------------------- */

/* Any rank, standard numeric types only (all vsim writes); the guard checks
 * layout, chunks and declared size against the file before anything is
 * read.  Values are streamed, so no bound on the dataset's bytes. */
static vs_status open_checked(const vs_h5g_file *f, const char *path, vs_h5g_dset *d,
                              vs_error *err) {
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, -1, UINT64_MAX);
  return vs_h5g_dset_open(f, path, &spec, d, err);
}

/* A dataset of an H5MD time series group (value, step, time side by side). */
static int in_time_series(const vs_h5g_file *f, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  const char *base = slash + 1;
  if (strcmp(base, "value") && strcmp(base, "step") && strcmp(base, "time")) return 0;
  char buf[1024];
  int n = (int)(slash - path);
  snprintf(buf, sizeof buf, "%.*s/step", n, path);
  int has_step = vs_h5g_path(f, buf, NULL) == 1;
  snprintf(buf, sizeof buf, "%.*s/value", n, path);
  return has_step && vs_h5g_path(f, buf, NULL) == 1;
}

/* Element `row` of the series dataset `name` (step or time) beside `path`,
 * as mtype; 0 when it could be read. */
static int series_at(const vs_h5g_file *f, const char *path, const char *name, int64_t row,
                     hid_t mtype, void *out, size_t out_size) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s/%s", (int)(strrchr(path, '/') - path), path, name);
  vs_h5g_spec spec;
  vs_h5g_spec_init(&spec, VS_H5G_NUMERIC, 1, UINT64_MAX);
  vs_h5g_dset d;
  vs_error e;
  if (row < 0 || vs_h5g_dset_open(f, buf, &spec, &d, &e) != VS_OK) return -1;
  int rc = (uint64_t)row < d.dims[0] &&
                   vs_h5g_read_rows(f, &d, mtype, (uint64_t)row, (uint64_t)row + 1, out, out_size,
                                    &e) == VS_OK
               ? 0
               : -1;
  vs_h5g_dset_close(&d);
  return rc;
}

/* Read the hyperslab (start, count) of d as mtype into buf; 0 or -1 (HDF5's
 * reason in why). */
static int read_slab(const vs_h5g_dset *d, const hsize_t *start, const hsize_t *count,
                     hid_t mtype, void *buf, char *why, size_t why_size) {
  hid_t fs = d->rank > 0 ? H5Scopy(d->space) : H5Screate(H5S_SCALAR);
  hid_t ms = d->rank > 0 ? H5Screate_simple(d->rank, count, NULL) : H5Screate(H5S_SCALAR);
  int rc = 0;
  if (fs < 0 || ms < 0 ||
      (d->rank > 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0) ||
      H5Dread(d->id, mtype, ms, fs, H5P_DEFAULT, buf) < 0) {
    char h5[320];
    vs_h5g_error_text(h5, sizeof h5);
    vs_h5g_escape(h5, why, why_size);
    rc = -1;
  }
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return rc;
}

/* Stream both datasets in flat-contiguous blocks of at most BLOCK_ELEMS
 * elements (memory does not grow with the file) and feed the accumulator.
 * Returns 0, or -1 naming the side that failed in *bad_side (0 = a, 1 = b,
 * 2 = memory) and HDF5's reason in why. */
static int stream_compare(const vs_h5g_dset *a, const vs_h5g_dset *b, cmp_acc *acc,
                          int *bad_side, char *why, size_t why_size) {
  int rank = a->rank;
  uint64_t total = a->n_elems, row = a->row_elems, inner = 1;
  for (int i = 2; i < rank; i++) inner *= a->dims[i]; /* <= row: counted by the guard */
  if (total == 0) return 0;

  /* Blocks: whole rows along axis 0 while a row fits; otherwise one row at
   * a time split along axis 1 (and a slice of axis 1 holds at most
   * BLOCK_ELEMS elements, else the pair is refused as too big a slice).
   * Either way a block is contiguous in the flat (row-major) order, so flat
   * indices are base + i. */
  int split = rank >= 2 && row > BLOCK_ELEMS;
  if (split && inner > BLOCK_ELEMS) {
    *bad_side = 3;
    return -1;
  }
  uint64_t rows_per = split ? 1 : (rank == 0 ? 1 : (BLOCK_ELEMS / row > 0 ? BLOCK_ELEMS / row : 1));
  uint64_t cols_per = split ? BLOCK_ELEMS / inner : 0;
  uint64_t max_n = split ? cols_per * inner : rows_per * row;
  if (max_n > total) max_n = total;
  double *ba = vs_malloc((size_t)max_n * sizeof(double));
  double *bb = vs_malloc((size_t)max_n * sizeof(double));
  int rc = 0;
  if (!ba || !bb) {
    *bad_side = 2;
    rc = -1;
    goto done;
  }
  hsize_t start[VS_H5G_MAX_RANK] = {0}, count[VS_H5G_MAX_RANK];
  for (int i = 0; i < rank; i++) count[i] = a->dims[i];
  uint64_t n0 = rank > 0 ? a->dims[0] : 1;
  for (uint64_t r0 = 0; r0 < n0 && rc == 0; r0 += rows_per) {
    uint64_t nr = n0 - r0 < rows_per ? n0 - r0 : rows_per;
    uint64_t n1 = split ? a->dims[1] : 1;
    uint64_t step1 = split ? cols_per : 1;
    for (uint64_t c0 = 0; c0 < n1 && rc == 0; c0 += step1) {
      size_t n;
      int64_t base;
      if (rank > 0) {
        start[0] = r0;
        count[0] = nr;
      }
      if (split) {
        uint64_t nc = n1 - c0 < cols_per ? n1 - c0 : cols_per;
        start[1] = c0;
        count[1] = nc;
        n = (size_t)(nc * inner);
        base = (int64_t)(r0 * row + c0 * inner);
      } else {
        n = (size_t)(nr * row);
        base = (int64_t)(r0 * row);
      }
      if (read_slab(a, start, count, H5T_NATIVE_DOUBLE, ba, why, why_size) < 0) {
        *bad_side = 0;
        rc = -1;
      } else if (read_slab(b, start, count, H5T_NATIVE_DOUBLE, bb, why, why_size) < 0) {
        *bad_side = 1;
        rc = -1;
      } else {
        compare_block(acc, ba, bb, n, base);
      }
    }
  }
done:
  vs_free(ba);
  vs_free(bb);
  return rc;
}

/* "[3, 2, 1]": the multi-index of a flat index. */
static void index_text(const vs_h5g_dset *x, int64_t flat, char *buf, size_t size) {
  uint64_t idx[VS_H5G_MAX_RANK];
  uint64_t f = (uint64_t)flat;
  for (int i = x->rank - 1; i >= 0; i--) {
    uint64_t d = x->dims[i] ? x->dims[i] : 1;
    idx[i] = f % d;
    f /= d;
  }
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < x->rank && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? ", " : "",
                             (unsigned long long)idx[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

static vs_status compare_pair(const vs_h5g_file *fa, const vs_h5g_file *fb, const char *path,
                              const vs_compare_opts *o, diff_list *out, vs_error *err) {
  vs_h5g_dset a, b;
  vs_status st = VS_OK;
  vs_compare_diff *d = NULL;
  b.id = b.space = H5I_INVALID_HID;
  if ((st = open_checked(fa, path, &a, err)) != VS_OK ||
      (st = open_checked(fb, path, &b, err)) != VS_OK)
    goto done;
  int same_shape = a.rank == b.rank;
  for (int i = 0; same_shape && i < a.rank; i++) same_shape = a.dims[i] == b.dims[i];
  /* integer vs float is a format change, not a value difference */
  int comparable = !!(a.type & VS_H5G_FLOAT) == !!(b.type & VS_H5G_FLOAT);
  if (!same_shape || !comparable) {
    if (!(d = diff_add(out, path, VS_DIFF_SHAPE))) goto oom;
    char sa[160], sb[160];
    vs_h5g_shape_text(&a, sa, sizeof sa);
    vs_h5g_shape_text(&b, sb, sizeof sb);
    snprintf(d->detail, sizeof d->detail, "%s %s vs %s %s%s", sa, vs_h5g_type_name(a.type), sb,
             vs_h5g_type_name(b.type), same_shape ? " (types not comparable)" : "");
    goto done;
  }
  cmp_acc acc = {0};
  acc.atol = o->atol;
  acc.rtol = o->rtol;
  acc.ulps = o->ulps;
  acc.f32 = a.type == VS_H5G_F32 && b.type == VS_H5G_F32;
  acc.first = -1;
  int side = 0;
  char why[400] = "";
  if (stream_compare(&a, &b, &acc, &side, why, sizeof why) < 0) {
    if (side == 2) goto oom;
    if (side == 3)
      st = vs_error_set(err, VS_ERR_LIMIT, fa->name, 0, 0,
                        "%s: one slice of axis 1 holds more than %zu elements", a.path,
                        (size_t)BLOCK_ELEMS);
    else
      st = vs_error_set(err, VS_ERR_IO, side == 0 ? fa->name : fb->name, 0, 0,
                        "cannot read dataset %s: %s", a.path, why);
    goto done;
  }
  if (acc.n_bad == 0) goto done;
  if (!(d = diff_add(out, path, VS_DIFF_VALUES))) goto oom;
  d->max_abs = acc.max_abs;
  d->max_rel = acc.max_rel;
  d->first_index = acc.first;
  uint64_t row = a.row_elems, inner = 1;
  for (int i = 2; i < a.rank; i++) inner *= a.dims[i];
  int series = in_time_series(fa, path);
  int particles = strncmp(path, "/particles/", 11) == 0;
  if (series && row > 0) {
    /* the row's own step and time (with output.every > 1, row != step) */
    d->first_frame = acc.first / (int64_t)row;
    if (series_at(fa, path, "step", d->first_frame, H5T_NATIVE_INT64, &d->first_step,
                  sizeof d->first_step))
      d->first_step = -1;
    if (series_at(fa, path, "time", d->first_frame, H5T_NATIVE_DOUBLE, &d->first_time,
                  sizeof d->first_time))
      d->first_time = NAN;
  }
  /* [F, N, 3] trajectories: axis 1; [N] or [N, k] particle data: axis 0 */
  if (particles && series && a.rank >= 3 && row > 0 && inner > 0)
    d->first_particle = (acc.first % (int64_t)row) / (int64_t)inner;
  else if (particles && !series && a.rank >= 1 && row > 0)
    d->first_particle = acc.first / (int64_t)row;
  char at[160];
  index_text(&a, acc.first, at, sizeof at);
  snprintf(d->detail, sizeof d->detail, "%lld of %llu elements differ; first at %s: %.17g vs %.17g",
           (long long)acc.n_bad, (unsigned long long)a.n_elems, at, acc.first_a, acc.first_b);
  goto done;
oom:
  st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
done:
  vs_h5g_dset_close(&a);
  vs_h5g_dset_close(&b);
  return st;
}

/* ---- the comparison ------------------------------------------------------- */

/* "/a/b/" -> "/a/b"; "a" -> "/a".  *out is malloc'd. */
static char *normalize_path(const char *p) {
  size_t n = strlen(p);
  char *s = vs_malloc(n + 2);
  if (!s) return NULL;
  snprintf(s, n + 2, "%s%s", p[0] == '/' ? "" : "/", p);
  n = strlen(s);
  while (n > 1 && s[n - 1] == '/') s[--n] = '\0';
  return s;
}

static int under(const char *path, const char *prefix) {
  size_t n = strlen(prefix);
  if (n == 1 && prefix[0] == '/') return 1;
  return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

vs_status vs_compare_files(const char *a, const char *b, const vs_compare_opts *opts,
                           vs_compare_result *out, vs_error *err) {
  if (!a || !b || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_compare_files: missing argument");
  memset(out, 0, sizeof *out);
  vs_compare_opts defaults = {0};
  const vs_compare_opts *o = opts ? opts : &defaults;
  if (!(o->atol >= 0) || !(o->rtol >= 0) || o->ulps < 0)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                        "tolerances must be >= 0 (atol %g, rtol %g, ulps %lld)", o->atol, o->rtol,
                        (long long)o->ulps);

  vs_h5g_file fa = {.file = H5I_INVALID_HID, .lapl = H5I_INVALID_HID, .fd = -1};
  vs_h5g_file fb = fa;
  vs_h5_path_list la = {0}, lb = {0};
  diff_list diffs = {0};
  char **only = NULL;
  unsigned char *only_hit = NULL;
  size_t n_only = o->only ? o->n_only : 0;
  vs_status st = vs_h5g_open_result(a, &fa, err);
  if (st == VS_OK) st = vs_h5g_open_result(b, &fb, err);
  if (st != VS_OK) goto done;
  size_t n_roots = sizeof compared_roots / sizeof compared_roots[0];
  if ((st = vs_h5g_list(&fa, compared_roots, n_roots, MAX_OBJECTS, &la, err)) != VS_OK ||
      (st = vs_h5g_list(&fb, compared_roots, n_roots, MAX_OBJECTS, &lb, err)) != VS_OK)
    goto done;
  if (n_only > 0) {
    only = vs_calloc(n_only, sizeof *only);
    only_hit = vs_calloc(n_only, 1);
    if (!only || !only_hit) goto oom;
    for (size_t k = 0; k < n_only; k++)
      if (!o->only[k] || !(only[k] = normalize_path(o->only[k]))) goto oom;
  }

  int64_t va = 0, vb = 0;
  vs_error ignored;
  if (vs_h5g_attr_int64(&fa, "/parameters/vsim", "format_version", 0, INT64_MAX, &va, &ignored) ==
          VS_OK &&
      vs_h5g_attr_int64(&fb, "/parameters/vsim", "format_version", 0, INT64_MAX, &vb, &ignored) ==
          VS_OK &&
      va != vb) {
    vs_compare_diff *d = diff_add(&diffs, "/parameters/vsim", VS_DIFF_SHAPE);
    if (!d) goto oom;
    snprintf(d->detail, sizeof d->detail, "format version %lld vs %lld", (long long)va,
             (long long)vb);
  }

  /* Merge the two sorted lists. */
  size_t i = 0, j = 0, paths_cap = 0;
  while (i < la.n || j < lb.n) {
    int c = i >= la.n ? 1 : j >= lb.n ? -1 : strcmp(la.v[i], lb.v[j]);
    const char *path = c <= 0 ? la.v[i] : lb.v[j];
    int wanted = n_only == 0;
    for (size_t k = 0; k < n_only; k++)
      if (under(path, only[k])) {
        wanted = 1;
        only_hit[k] = 1;
      }
    if (wanted) {
      if (out->n_paths == paths_cap) {
        size_t cap = paths_cap ? 2 * paths_cap : 64;
        char **v = vs_realloc(out->paths, cap * sizeof *v);
        if (!v) goto oom;
        out->paths = v;
        paths_cap = cap;
      }
      if (!(out->paths[out->n_paths] = vs_strdup(path))) goto oom;
      out->n_paths++;
      if (c == 0) {
        out->n_compared++;
        if ((st = compare_pair(&fa, &fb, path, o, &diffs, err)) != VS_OK) goto done;
      } else {
        vs_compare_diff *d = diff_add(&diffs, path, c < 0 ? VS_DIFF_MISSING_B : VS_DIFF_MISSING_A);
        if (!d) goto oom;
        snprintf(d->detail, sizeof d->detail, "only in %s", c < 0 ? a : b);
      }
    }
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  /* An --only path that matches nothing is most likely a typo: say so
   * instead of passing with nothing compared. */
  for (size_t k = 0; k < n_only; k++) {
    if (only_hit[k]) continue;
    vs_compare_diff *d = diff_add(&diffs, only[k], VS_DIFF_MISSING_A);
    if (!d) goto oom;
    int inside = 0;
    for (size_t q = 0; q < n_roots; q++)
      inside |= under(only[k], compared_roots[q]) || under(compared_roots[q], only[k]);
    if (inside)
      snprintf(d->detail, sizeof d->detail, "--only %s matches no dataset in either file",
               only[k]);
    else
      snprintf(d->detail, sizeof d->detail,
               "--only %s is outside the compared groups (/particles, /observables, "
               "/connectivity, /solver)",
               only[k]);
  }
  if (diffs.n > 1) qsort(diffs.v, diffs.n, sizeof *diffs.v, cmp_diff);
  out->diffs = diffs.v;
  out->n_diffs = diffs.n;
  diffs.v = NULL;
  goto done;
oom:
  st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
done:
  if (st != VS_OK) {
    out->n_compared = 0;
    for (size_t k = 0; k < out->n_paths; k++) vs_free(out->paths[k]);
    vs_free(out->paths);
    out->paths = NULL;
    out->n_paths = 0;
  }
  vs_free(diffs.v);
  for (size_t k = 0; only && k < n_only; k++) vs_free(only[k]);
  vs_free(only);
  vs_free(only_hit);
  vs_h5_list_free(&la);
  vs_h5_list_free(&lb);
  vs_h5g_close(&fa);
  vs_h5g_close(&fb);
  return st;
}

void vs_compare_result_free(vs_compare_result *r) {
  if (!r) return;
  vs_free(r->diffs);
  for (size_t k = 0; k < r->n_paths; k++) vs_free(r->paths[k]);
  vs_free(r->paths);
  memset(r, 0, sizeof *r);
}

