/* SPDX-License-Identifier: MIT */
/* h5guard_attr.c: attributes, walking a file and escaping text, for the
 * validating reader (h5guard.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/guard/h5guard_int.h"
#include "util/alloc.h"

/* ---- attributes ----------------------------------------------------------------- */

/* Open attribute name of obj after checking the path; VS_OK and *a, or the
 * error.  *ftype is the attribute's file type, checked to hold one value. */
static vs_status open_attr(const vs_h5g_file *f, const char *obj, const char *name, hid_t *a,
                           hid_t *ftype, vs_error *err) {
  char so[300], sn[200];
  *a = *ftype = H5I_INVALID_HID;
  vs_h5g_escape(obj ? obj : "", so, sizeof so);
  vs_h5g_escape(name ? name : "", sn, sizeof sn);
  if (!f || f->file < 0 || !obj || !name)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "reading an attribute: missing argument");
  int ex = strcmp(obj, "/") == 0 ? 1 : vs_h5g_path(f, obj, err);
  if (ex < 0) return VS_ERR_FORMAT;
  if (ex == 0 || H5Aexists_by_name(f->file, obj, name, f->lapl) <= 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s has no attribute '%s'", so, sn);
  *a = H5Aopen_by_name(f->file, obj, name, H5P_DEFAULT, f->lapl);
  char what[520];
  snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
  if (*a < 0) return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, what);
  *ftype = H5Aget_type(*a);
  hid_t space = H5Aget_space(*a);
  H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
  hssize_t np = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (space >= 0) H5Sclose(space);
  if (*ftype < 0 || (sc != H5S_SCALAR && sc != H5S_SIMPLE) || np != 1) {
    if (*ftype >= 0) H5Tclose(*ftype);
    H5Aclose(*a);
    *a = *ftype = H5I_INVALID_HID;
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s does not hold one value", what);
  }
  return VS_OK;
}

/* The global heap objects behind obj's variable-length attributes, read
 * from the file (h5guard_oh.c) before H5Aread follows them. */
static vs_status heap_check(const vs_h5g_file *f, const char *obj, const char *sn, const char *so,
                            vs_error *err) {
  H5O_type_t t;
  uint64_t addr;
  if (vs_h5g__obj_info(f, f->file, obj, &t, &addr) < 0)
    return vs_h5g__fail(err, VS_ERR_FORMAT, f->name, so);
  vs_h5g__oh_scan scan;
  memset(&scan, 0, sizeof scan);
  scan.f = f;
  scan.space_rank = -1;
  scan.zero_axis = UINT64_MAX;
  scan.check_vlen = 1;
  int r = vs_h5g__oh_check(&scan, addr);
  if (r == 4) return vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
  if (r == 5)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s: corrupt global heap (variable-length data)", sn,
                        so);
  if (r != 0)
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "%s: corrupt object header", so);
  return VS_OK;
}

vs_status vs_h5g_attr_string(const vs_h5g_file *f, const char *obj, const char *name,
                             size_t max_len, char **out, vs_error *err) {
  *out = NULL;
  hid_t a, ft;
  vs_status rc = open_attr(f, obj, name, &a, &ft, err);
  if (rc != VS_OK) return rc;
  char so[300], sn[200];
  vs_h5g_escape(obj, so, sizeof so);
  vs_h5g_escape(name, sn, sizeof sn);
  hid_t mt = H5Tcopy(H5T_C_S1);
  char *s = NULL;
  if (H5Tget_class(ft) != H5T_STRING) {
    rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "attribute '%s' of %s is not a string",
                      sn, so);
  } else if (mt < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0) {
    rc = vs_h5g__fail(err, VS_ERR_IO, f->name, "reading an attribute");
  } else if (H5Tis_variable_str(ft) > 0 && (rc = heap_check(f, obj, sn, so, err)) != VS_OK) {
    /* refused before H5Aread reads the heap */
  } else if (H5Tis_variable_str(ft) > 0) {
    char *v = NULL;
    if (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &v) < 0) {
      char what[520];
      snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
      rc = vs_h5g__fail(err, VS_ERR_FORMAT, f->name, what);
    } else {
      size_t len = v ? strnlen(v, max_len + 1) : 0;
      if (len > max_len)
        rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                          "attribute '%s' of %s is longer than %zu bytes", sn, so, max_len);
      else if (!(s = vs_malloc(len + 1)))
        rc = vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
      else {
        if (len) memcpy(s, v, len);
        s[len] = '\0';
      }
    }
    if (v) H5free_memory(v);
  } else {
    size_t sz = H5Tget_size(ft);
    if (sz == 0 || sz > max_len)
      rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is a string of %zu bytes (1 to %zu accepted)", sn, so,
                        sz, max_len);
    else if (!(s = vs_calloc(sz + 1, 1)))
      rc = vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
    else if (H5Tset_size(mt, sz + 1) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
             H5Aread(a, mt, s) < 0) {
      char what[520];
      snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
      rc = vs_h5g__fail(err, VS_ERR_FORMAT, f->name, what);
    } else {
      s[sz] = '\0';
    }
  }
  if (mt >= 0) H5Tclose(mt);
  H5Tclose(ft);
  H5Aclose(a);
  if (rc != VS_OK) {
    vs_free(s);
    return rc;
  }
  *out = s;
  return VS_OK;
}

static vs_status attr_number(const vs_h5g_file *f, const char *obj, const char *name, int want_int,
                             hid_t mtype, void *out, vs_error *err) {
  hid_t a, ft;
  vs_status rc = open_attr(f, obj, name, &a, &ft, err);
  if (rc != VS_OK) return rc;
  char have[64], so[300], sn[200];
  unsigned bit = vs_h5g__classify(ft, have, sizeof have);
  vs_h5g_escape(obj, so, sizeof so);
  vs_h5g_escape(name, sn, sizeof sn);
  unsigned ok = want_int ? VS_H5G_INT | VS_H5G_UINT : VS_H5G_NUMERIC;
  if (!(bit & ok)) {
    rc = vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0, "attribute '%s' of %s is %s, expected %s",
                      sn, so, have, want_int ? "an integer" : "a number");
  } else if (H5Aread(a, mtype, out) < 0) {
    char what[520];
    snprintf(what, sizeof what, "attribute '%s' of %s", sn, so);
    rc = vs_h5g__fail(err, VS_ERR_FORMAT, f->name, what);
  }
  H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

vs_status vs_h5g_attr_int64(const vs_h5g_file *f, const char *obj, const char *name, int64_t lo,
                            int64_t hi, int64_t *out, vs_error *err) {
  long long v = 0;
  vs_status rc = attr_number(f, obj, name, 1, H5T_NATIVE_LLONG, &v, err);
  if (rc != VS_OK) return rc;
  if (v < lo || v > hi) {
    char so[300], sn[200];
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is %lld, outside [%lld, %lld]",
                        vs_h5g_escape(name, sn, sizeof sn), vs_h5g_escape(obj, so, sizeof so), v,
                        (long long)lo, (long long)hi);
  }
  *out = (int64_t)v;
  return VS_OK;
}

vs_status vs_h5g_attr_double(const vs_h5g_file *f, const char *obj, const char *name, double lo,
                             double hi, double *out, vs_error *err) {
  double v = 0;
  vs_status rc = attr_number(f, obj, name, 0, H5T_NATIVE_DOUBLE, &v, err);
  if (rc != VS_OK) return rc;
  if (!isfinite(v) || v < lo || v > hi) {
    char so[300], sn[200];
    return vs_error_set(err, VS_ERR_FORMAT, f->name, 0, 0,
                        "attribute '%s' of %s is %.17g, outside [%.17g, %.17g]",
                        vs_h5g_escape(name, sn, sizeof sn), vs_h5g_escape(obj, so, sizeof so), v,
                        lo, hi);
  }
  *out = v;
  return VS_OK;
}

/* ---- walking a file ----------------------------------------------------------- */

typedef struct walk {
  const vs_h5g_file *f;
  vs_h5g_visit_fn fn;
  void *data;
  size_t left;
  int depth;
  int stop;     /* fn's non-zero answer */
  int failed;   /* a limit or an HDF5 failure (err filled) */
  vs_error *err;
  /* the groups walked, by object address (open addressing, 0 = empty):
   * a group reached again by another link is not walked again.  Without
   * it, 30 groups each linking twice to the next made 2^30 paths, every
   * one checked in full (minutes for a 66 KB file); with it every link
   * record of the file is looked at once. */
  uint64_t *seen;
  size_t seen_cap, seen_n;
  char path[1024];
} walk;

/* 1 when the group at addr was walked before, 0 when not (now remembered),
 * -1 out of memory. */
static int seen_group(walk *w, uint64_t addr) {
  if (2 * (w->seen_n + 1) > w->seen_cap) {
    size_t cap = w->seen_cap ? 2 * w->seen_cap : 64;
    uint64_t *t = vs_calloc(cap, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < w->seen_cap; i++) {
      uint64_t key = w->seen[i];
      if (!key) continue;
      size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull) & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = key;
    }
    vs_free(w->seen);
    w->seen = t;
    w->seen_cap = cap;
  }
  const uint64_t key = addr + 1; /* 0 marks an empty slot */
  size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull) & (w->seen_cap - 1);
  for (; w->seen[j]; j = (j + 1) & (w->seen_cap - 1))
    if (w->seen[j] == key) return 1;
  w->seen[j] = key;
  w->seen_n++;
  return 0;
}

static herr_t walk_cb(hid_t group, const char *name, const H5L_info_t *info, void *data);

static int walk_group(walk *w, hid_t g) {
  if (++w->depth > 32) {
    vs_error_set(w->err, VS_ERR_FORMAT, w->f->name, 0, 0, "groups nested deeper than 32 levels");
    w->failed = 1;
    return -1;
  }
  herr_t r = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, walk_cb, w);
  w->depth--;
  if (r < 0 && !w->failed && !w->stop) {
    vs_h5g__fail(w->err, VS_ERR_FORMAT, w->f->name, "listing the file's groups");
    w->failed = 1;
  }
  return w->failed || w->stop ? -1 : 0;
}

static herr_t walk_cb(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  walk *w = data;
  if (info->type == H5L_TYPE_SOFT) return 0; /* a name for data seen elsewhere, or nothing */
  if (w->left == 0) {
    vs_error_set(w->err, VS_ERR_LIMIT, w->f->name, 0, 0, "more objects than the limit");
    w->failed = 1;
    return -1;
  }
  if (info->type != H5L_TYPE_HARD) {
    /* an external or user-defined link: data (or code) outside this file */
    char p[1100], safe[1200];
    size_t len = strlen(w->path);
    snprintf(p, sizeof p, "%s%s%s", w->path, len == 1 ? "" : "/", name);
    vs_error_set(w->err, VS_ERR_FORMAT, w->f->name, 0, 0, "%s is %s: refused",
                 vs_h5g_escape(p, safe, sizeof safe),
                 info->type == H5L_TYPE_EXTERNAL ? "an external link (to another file)"
                                                 : "a user-defined link");
    w->failed = 1;
    return -1;
  }
  w->left--;
  size_t len = strlen(w->path), nl = strlen(name);
  int root = len == 1;
  if (len + nl + 2 > sizeof w->path) {
    vs_error_set(w->err, VS_ERR_FORMAT, w->f->name, 0, 0, "an object path is over %zu bytes",
                 sizeof w->path);
    w->failed = 1;
    return -1;
  }
  snprintf(w->path + len, sizeof w->path - len, "%s%s", root ? "" : "/", name);
  /* not H5Oopen: opening a dataset decodes its layout (vs_h5g_dset_open
   * checks that first) */
  H5O_type_t t;
  uint64_t addr;
  int rc = 0;
  hid_t g = H5I_INVALID_HID;
  int again = 0;
  if (vs_h5g__obj_info(w->f, group, name, &t, &addr) < 0) {
    vs_h5g__fail(w->err, VS_ERR_FORMAT, w->f->name, w->path);
    w->failed = 1;
    rc = -1;
  } else if (t == H5O_TYPE_GROUP && (again = seen_group(w, addr)) != 0) {
    if (again < 0) {
      vs_error_set(w->err, VS_ERR_NOMEM, w->f->name, 0, 0, "out of memory");
      w->failed = 1;
      rc = -1;
    } /* else walked already, by another link */
  } else if (t == H5O_TYPE_GROUP && (g = H5Gopen2(group, name, H5P_DEFAULT)) < 0) {
    vs_h5g__fail(w->err, VS_ERR_FORMAT, w->f->name, w->path);
    w->failed = 1;
    rc = -1;
  } else if (t == H5O_TYPE_GROUP) {
    rc = walk_group(w, g);
  } else if (t == H5O_TYPE_DATASET) {
    int s = w->fn(w->path, w->data);
    if (s) {
      w->stop = s;
      rc = -1;
    }
  }
  if (g >= 0) H5Gclose(g);
  w->path[len] = '\0';
  return rc;
}

int vs_h5g_visit(const vs_h5g_file *f, const char *root, size_t max_objects, vs_h5g_visit_fn fn,
                 void *data, vs_error *err) {
  walk w = {f, fn, data, max_objects, 0, 0, 0, err, NULL, 0, 0, ""};
  if (!f || f->file < 0 || !root || !fn) {
    vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_h5g_visit: missing argument");
    return -1;
  }
  if (strcmp(root, "/") != 0) {
    int ex = vs_h5g_path(f, root, err);
    if (ex < 0) return -1;
    if (ex == 0) return 0;
  }
  snprintf(w.path, sizeof w.path, "%s", root);
  H5O_type_t t;
  uint64_t addr;
  if (vs_h5g__obj_info(f, f->file, root, &t, &addr) < 0) {
    vs_h5g__fail(err, VS_ERR_FORMAT, f->name, root);
    return -1;
  }
  if (t != H5O_TYPE_GROUP) return 0;
  if (seen_group(&w, addr) < 0) {
    vs_error_set(err, VS_ERR_NOMEM, f->name, 0, 0, "out of memory");
    return -1;
  }
  hid_t g = H5Gopen2(f->file, root, H5P_DEFAULT);
  if (g < 0) {
    vs_h5g__fail(err, VS_ERR_FORMAT, f->name, root);
    vs_free(w.seen);
    return -1;
  }
  walk_group(&w, g);
  H5Gclose(g);
  vs_free(w.seen);
  return w.failed ? -1 : w.stop;
}

/* ---- escaping ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (!n) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))) return 0;
  return n;
}

char *vs_h5g_escape(const char *text, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  size_t used = 0;
  while (*s) {
    char piece[8];
    int n = utf8_len(s), plen;
    if (n == 1 && *s >= 0x20 && *s != 0x7F && *s != '\\') {
      piece[0] = (char)*s;
      plen = 1;
    } else if (n == 1 && (*s == '\n' || *s == '\t' || *s == '\r' || *s == '\\')) {
      piece[0] = '\\';
      piece[1] = *s == '\n' ? 'n' : *s == '\t' ? 't' : *s == '\r' ? 'r' : '\\';
      plen = 2;
    } else if (n >= 2 && !(n == 2 && s[0] == 0xC2 && s[1] < 0xA0)) {
      memcpy(piece, s, (size_t)n);
      plen = n;
    } else {
      /* C0, DEL, a UTF-8 C1 control (its first byte here, then the next),
       * or a byte that is not UTF-8 */
      snprintf(piece, sizeof piece, "\\x%02x", *s);
      plen = 4;
      n = 1;
    }
    if (used + (size_t)plen + 1 > size) {
      /* no room: end with "..." when it fits */
      size_t keep = size > 4 ? size - 4 : 0, old = used;
      if (used > keep) used = keep;
      /* cut before a whole character */
      while (used > 0 && used < old && ((unsigned char)buf[used] & 0xC0) == 0x80) used--;
      if (size > 4) memcpy(buf + used, "...", 3), used += 3;
      break;
    }
    memcpy(buf + used, piece, (size_t)plen);
    used += (size_t)plen;
    s += n;
  }
  buf[used < size ? used : size - 1] = '\0';
  return buf;
}

