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
#include "io/h5util.h"
#include "vsim/compare.h"
#include "vsim/vsim.h"

#define BLOCK_ELEMS ((size_t)1 << 20)

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

/* Raw bytes, for the rare non-numeric dataset of identical type. */
static void compare_bytes(cmp_acc *c, const unsigned char *a, const unsigned char *b, size_t n,
                          size_t esize, int64_t base) {
  for (size_t i = 0; i < n; i++) {
    if (memcmp(a + i * esize, b + i * esize, esize) == 0) continue;
    if (c->first < 0) c->first = base + (int64_t)i;
    c->n_bad++;
  }
}

static int is_numeric(H5T_class_t c) { return c == H5T_INTEGER || c == H5T_FLOAT; }

/* ---- one dataset pair ----------------------------------------------------- */

/* A dataset of an H5MD time series group (value, step, time side by side). */
static int in_time_series(hid_t f, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  const char *base = slash + 1;
  if (strcmp(base, "value") && strcmp(base, "step") && strcmp(base, "time")) return 0;
  char buf[1024];
  int n = (int)(slash - path);
  snprintf(buf, sizeof buf, "%.*s/step", n, path);
  int has_step = H5Lexists(f, buf, H5P_DEFAULT) > 0;
  snprintf(buf, sizeof buf, "%.*s/value", n, path);
  return has_step && H5Lexists(f, buf, H5P_DEFAULT) > 0;
}

/* Element `row` of the series dataset `name` (step or time) beside `path`,
 * as mtype; 0 when it could be read. */
static int series_at(hid_t f, const char *path, const char *name, int64_t row, hid_t mtype,
                     void *out) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s/%s", (int)(strrchr(path, '/') - path), path, name);
  hid_t d = H5Dopen2(f, buf, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, (hsize_t[]){1}, NULL);
  hsize_t n = 0;
  int rc = -1;
  if (fs >= 0 && ms >= 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
      H5Sget_simple_extent_dims(fs, &n, NULL) == 1 && (hsize_t)row < n &&
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){(hsize_t)row}, NULL, (hsize_t[]){1},
                          NULL) >= 0 &&
      H5Dread(d, mtype, ms, fs, H5P_DEFAULT, out) >= 0)
    rc = 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return rc;
}

/* Stream both datasets in flat-contiguous blocks and feed the accumulator.
 * Returns 0, or -1 naming the side that failed in *bad_side (0 = a, 1 = b,
 * 2 = memory). */
static int stream_compare(const vs_h5_ds *a, const vs_h5_ds *b, hid_t mtype, size_t esize,
                          int numeric, cmp_acc *acc, int *bad_side) {
  int rank = a->rank;
  hsize_t total = 1, row = 1, inner = 1;
  for (int i = 0; i < rank; i++) total *= a->dims[i];
  for (int i = 1; i < rank; i++) row *= a->dims[i];
  for (int i = 2; i < rank; i++) inner *= a->dims[i];
  if (total == 0) return 0;

  /* Blocks: whole rows along axis 0 while a row fits; otherwise one row at
   * a time split along axis 1.  Either way a block is contiguous in the
   * flat (row-major) order, so flat indices are base + i. */
  int split = rank >= 2 && row > BLOCK_ELEMS;
  hsize_t rows_per = split ? 1 : (rank == 0 ? 1 : (BLOCK_ELEMS / row > 0 ? BLOCK_ELEMS / row : 1));
  hsize_t cols_per = split ? (BLOCK_ELEMS / inner > 0 ? BLOCK_ELEMS / inner : 1) : 0;
  size_t max_n = split ? (size_t)(cols_per * inner) : (size_t)(rows_per * row);
  if (max_n > total) max_n = (size_t)total;
  unsigned char *ba = vs_malloc(max_n * esize), *bb = vs_malloc(max_n * esize);
  int rc = 0;
  if (!ba || !bb) {
    *bad_side = 2;
    rc = -1;
    goto done;
  }
  hsize_t start[H5S_MAX_RANK] = {0}, count[H5S_MAX_RANK];
  for (int i = 0; i < rank; i++) count[i] = a->dims[i];
  hsize_t n0 = rank > 0 ? a->dims[0] : 1;
  for (hsize_t r0 = 0; r0 < n0 && rc == 0; r0 += rows_per) {
    hsize_t nr = n0 - r0 < rows_per ? n0 - r0 : rows_per;
    hsize_t n1 = split ? a->dims[1] : 1;
    hsize_t step1 = split ? cols_per : 1;
    for (hsize_t c0 = 0; c0 < n1 && rc == 0; c0 += step1) {
      size_t n;
      int64_t base;
      if (rank > 0) {
        start[0] = r0;
        count[0] = nr;
      }
      if (split) {
        hsize_t nc = n1 - c0 < cols_per ? n1 - c0 : cols_per;
        start[1] = c0;
        count[1] = nc;
        n = (size_t)(nc * inner);
        base = (int64_t)(r0 * row + c0 * inner);
      } else {
        n = (size_t)(nr * row);
        base = (int64_t)(r0 * row);
      }
      if (vs_h5_read_slab(a, start, count, mtype, ba) < 0) {
        *bad_side = 0;
        rc = -1;
      } else if (vs_h5_read_slab(b, start, count, mtype, bb) < 0) {
        *bad_side = 1;
        rc = -1;
      } else if (numeric) {
        compare_block(acc, (const double *)(void *)ba, (const double *)(void *)bb, n, base);
      } else {
        compare_bytes(acc, ba, bb, n, esize, base);
      }
    }
  }
done:
  vs_free(ba);
  vs_free(bb);
  return rc;
}

/* "[3, 2, 1]": the multi-index of a flat index. */
static void index_text(const vs_h5_ds *x, int64_t flat, char *buf, size_t size) {
  hsize_t idx[H5S_MAX_RANK];
  uint64_t f = (uint64_t)flat;
  for (int i = x->rank - 1; i >= 0; i--) {
    hsize_t d = x->dims[i] ? x->dims[i] : 1;
    idx[i] = f % d;
    f /= d;
  }
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < x->rank && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? ", " : "",
                             (unsigned long long)idx[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

static vs_status compare_pair(hid_t fa, hid_t fb, const char *na, const char *nb,
                              const char *path, const vs_compare_opts *o, diff_list *out,
                              vs_error *err) {
  vs_h5_ds a, b;
  vs_status st = VS_OK;
  vs_compare_diff *d = NULL;
  int oa = vs_h5_ds_open(fa, path, &a), ob = vs_h5_ds_open(fb, path, &b);
  if (oa < 0 || ob < 0) {
    st = vs_error_set(err, VS_ERR_IO, oa < 0 ? na : nb, 0, 0, "cannot read dataset %s", path);
    goto done;
  }
  int same_shape = a.rank == b.rank;
  for (int i = 0; same_shape && i < a.rank; i++) same_shape = a.dims[i] == b.dims[i];
  int numeric = is_numeric(a.cls) && is_numeric(b.cls);
  /* integer vs float is a format change, not a value difference */
  int comparable = numeric ? a.cls == b.cls
                           : (a.cls == b.cls && H5Tequal(a.type, b.type) > 0 &&
                              H5Tdetect_class(a.type, H5T_VLEN) == 0 &&
                              H5Tis_variable_str(a.type) == 0 && a.cls != H5T_REFERENCE);
  if (!same_shape || !comparable) {
    if (!(d = diff_add(out, path, VS_DIFF_SHAPE))) goto oom;
    snprintf(d->detail, sizeof d->detail, "%s %s vs %s %s%s", a.shape, a.tname, b.shape, b.tname,
             same_shape ? " (types not comparable)" : "");
    goto done;
  }
  cmp_acc acc = {0};
  acc.atol = o->atol;
  acc.rtol = o->rtol;
  acc.ulps = o->ulps;
  acc.f32 = a.cls == H5T_FLOAT && H5Tget_size(a.type) == 4 && H5Tget_size(b.type) == 4;
  acc.first = -1;
  hid_t mtype = numeric ? H5T_NATIVE_DOUBLE : H5Tget_native_type(a.type, H5T_DIR_ASCEND);
  size_t esize = numeric ? sizeof(double) : H5Tget_size(mtype);
  int side = 0;
  int rc = mtype < 0 ? -1 : stream_compare(&a, &b, mtype, esize, numeric, &acc, &side);
  if (!numeric && mtype >= 0) H5Tclose(mtype);
  if (rc < 0) {
    if (side == 2) goto oom;
    st = vs_error_set(err, VS_ERR_IO, side == 0 ? na : nb, 0, 0, "cannot read dataset %s", path);
    goto done;
  }
  if (acc.n_bad == 0) goto done;
  if (!(d = diff_add(out, path, VS_DIFF_VALUES))) goto oom;
  d->max_abs = numeric ? acc.max_abs : NAN;
  d->max_rel = numeric ? acc.max_rel : NAN;
  d->first_index = acc.first;
  hsize_t row = 1, inner = 1;
  for (int i = 1; i < a.rank; i++) row *= a.dims[i];
  for (int i = 2; i < a.rank; i++) inner *= a.dims[i];
  int series = in_time_series(fa, path);
  int particles = strncmp(path, "/particles/", 11) == 0;
  if (series) {
    /* the row's own step and time (with output.every > 1, row != step) */
    d->first_frame = acc.first / (int64_t)row;
    if (series_at(fa, path, "step", d->first_frame, H5T_NATIVE_INT64, &d->first_step))
      d->first_step = -1;
    if (series_at(fa, path, "time", d->first_frame, H5T_NATIVE_DOUBLE, &d->first_time))
      d->first_time = NAN;
  }
  /* [F, N, 3] trajectories: axis 1; [N] or [N, k] particle data: axis 0 */
  if (particles && series && a.rank >= 3)
    d->first_particle = (acc.first % (int64_t)row) / (int64_t)inner;
  else if (particles && !series && a.rank >= 1)
    d->first_particle = acc.first / (int64_t)row;
  char at[128];
  index_text(&a, acc.first, at, sizeof at);
  if (numeric)
    snprintf(d->detail, sizeof d->detail, "%lld of %lld elements differ; first at %s: %.17g vs %.17g",
             (long long)acc.n_bad, (long long)H5Sget_simple_extent_npoints(a.space), at,
             acc.first_a, acc.first_b);
  else
    snprintf(d->detail, sizeof d->detail, "%lld of %lld elements differ; first at %s",
             (long long)acc.n_bad, (long long)H5Sget_simple_extent_npoints(a.space), at);
  goto done;
oom:
  st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
done:
  vs_h5_ds_close(&a);
  vs_h5_ds_close(&b);
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

  hid_t fa = H5I_INVALID_HID, fb = H5I_INVALID_HID;
  vs_h5_path_list la = {0}, lb = {0};
  diff_list diffs = {0};
  char **only = NULL;
  unsigned char *only_hit = NULL;
  size_t n_only = o->only ? o->n_only : 0;
  vs_status st = vs_h5_open_result(a, &fa, err);
  if (st == VS_OK) st = vs_h5_open_result(b, &fb, err);
  if (st != VS_OK) goto done;
  size_t n_roots = sizeof compared_roots / sizeof compared_roots[0];
  if ((st = vs_h5_list_datasets(fa, a, compared_roots, n_roots, &la, err)) != VS_OK ||
      (st = vs_h5_list_datasets(fb, b, compared_roots, n_roots, &lb, err)) != VS_OK)
    goto done;
  if (n_only > 0) {
    only = vs_calloc(n_only, sizeof *only);
    only_hit = vs_calloc(n_only, 1);
    if (!only || !only_hit) goto oom;
    for (size_t k = 0; k < n_only; k++)
      if (!o->only[k] || !(only[k] = normalize_path(o->only[k]))) goto oom;
  }

  int64_t va = 0, vb = 0;
  if (vs_h5_attr_int64(fa, "/parameters/vsim", "format_version", &va) == 0 &&
      vs_h5_attr_int64(fb, "/parameters/vsim", "format_version", &vb) == 0 && va != vb) {
    vs_compare_diff *d = diff_add(&diffs, "/parameters/vsim", VS_DIFF_SHAPE);
    if (!d) goto oom;
    snprintf(d->detail, sizeof d->detail, "format version %lld vs %lld", (long long)va,
             (long long)vb);
  }

  /* Merge the two sorted lists. */
  size_t i = 0, j = 0;
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
      if (c == 0) {
        out->n_compared++;
        if ((st = compare_pair(fa, fb, a, b, path, o, &diffs, err)) != VS_OK) goto done;
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
  if (st != VS_OK) out->n_compared = 0;
  vs_free(diffs.v);
  for (size_t k = 0; only && k < n_only; k++) vs_free(only[k]);
  vs_free(only);
  vs_free(only_hit);
  vs_h5_list_free(&la);
  vs_h5_list_free(&lb);
  if (fa >= 0) H5Fclose(fa);
  if (fb >= 0) H5Fclose(fb);
  return st;
}

void vs_compare_result_free(vs_compare_result *r) {
  if (!r) return;
  vs_free(r->diffs);
  memset(r, 0, sizeof *r);
}

