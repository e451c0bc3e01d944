/* obj.c: the Wavefront OBJ reader (see model/obj.h for the accepted forms,
 * the limits and the errors).
 *
 * Two passes over the text: the first counts `v` lines and fanned triangles
 * and checks them against the limits, so that the arrays are allocated once,
 * to their final size, after the check; the second parses and validates. */
#include "model/obj.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/detmath.h"
#include "util/vec3.h"

typedef struct line_t {
  const char *s, *e; /* [s, e): the line without its LF (and CR) */
  int no;            /* 1-based */
} line_t;

typedef struct limits_t {
  int64_t bytes, vertices, triangles;
} limits_t;

static limits_t limits_of(const vs_obj_options *opt) {
  limits_t l = {VS_OBJ_MAX_BYTES, VS_OBJ_MAX_VERTICES, VS_OBJ_MAX_TRIANGLES};
  if (opt && opt->max_bytes > 0 && opt->max_bytes < l.bytes) l.bytes = opt->max_bytes;
  if (opt && opt->max_vertices > 0 && opt->max_vertices < l.vertices)
    l.vertices = opt->max_vertices;
  if (opt && opt->max_triangles > 0 && opt->max_triangles < l.triangles)
    l.triangles = opt->max_triangles;
  return l;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Next line from *p (advanced past it); 0 at the end of the text. */
static int next_line(const char **p, const char *end, line_t *ln) {
  if (*p >= end) return 0;
  const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
  const char *e = nl ? nl : end;
  *p = nl ? nl + 1 : end;
  if (e > s && e[-1] == '\r') e--;
  ln->s = s, ln->e = e, ln->no++;
  return 1;
}

/* Next token of the line from *p: [*ts, *te); 0 at the end or at a comment. */
static int next_token(const char **p, const char *e, const char **ts, const char **te) {
  const char *q = *p;
  while (q < e && is_space(*q)) q++;
  if (q >= e || *q == '#') {
    *p = e;
    return 0;
  }
  *ts = q;
  while (q < e && !is_space(*q) && *q != '#') q++;
  *te = q;
  *p = q;
  return 1;
}

static int token_is(const char *ts, const char *te, const char *word) {
  size_t n = strlen(word);
  return (size_t)(te - ts) == n && memcmp(ts, word, n) == 0;
}

static int col_of(const line_t *ln, const char *at) { return (int)(at - ln->s) + 1; }

/* Token text for a message: at most 40 bytes, non-printing bytes as '?'. */
static void quote(const char *ts, const char *te, char out[48]) {
  size_t n = (size_t)(te - ts), k;
  if (n > 40) n = 40;
  for (k = 0; k < n; k++) {
    unsigned char c = (unsigned char)ts[k];
    out[k] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  if ((size_t)(te - ts) > 40) out[k++] = '.', out[k++] = '.', out[k++] = '.';
  out[k] = '\0';
}

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int word_ci(const char *s, size_t n, const char *w) {
  if (strlen(w) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (lower(s[i]) != w[i]) return 0;
  return 1;
}

/* A decimal number: [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?.
 * 0: *out set and finite; 1: not a number; 2: NaN or infinite. */
static int parse_number(const char *ts, const char *te, double *out) {
  const char *q = ts;
  size_t n = (size_t)(te - ts);
  if (q < te && (*q == '+' || *q == '-')) q++;
  size_t rest = (size_t)(te - q);
  if (word_ci(q, rest, "nan") || word_ci(q, rest, "inf") || word_ci(q, rest, "infinity") ||
      (rest > 4 && word_ci(q, 4, "nan(") && te[-1] == ')'))
    return 2;
  int digits = 0;
  while (q < te && *q >= '0' && *q <= '9') q++, digits++;
  if (q < te && *q == '.') {
    q++;
    while (q < te && *q >= '0' && *q <= '9') q++, digits++;
  }
  if (!digits) return 1;
  if (q < te && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < te && (*q == '+' || *q == '-')) q++;
    int ed = 0;
    while (q < te && *q >= '0' && *q <= '9') q++, ed++;
    if (!ed) return 1;
  }
  if (q != te) return 1;
  char buf[256];
  if (n >= sizeof buf) return 1;
  memcpy(buf, ts, n);
  buf[n] = '\0';
  double v = strtod(buf, NULL);
  if (!isfinite(v)) return 2;
  *out = v;
  return 0;
}

/* [+-]? d+ from *q; 0 when absent.  A value beyond +-2^31 saturates. */
static int parse_int(const char **q, const char *te, int64_t *out) {
  const char *p = *q;
  int neg = 0;
  if (p < te && (*p == '+' || *p == '-')) neg = *p == '-', p++;
  int64_t v = 0;
  int d = 0;
  while (p < te && *p >= '0' && *p <= '9') {
    if (v < 4000000000LL) v = v * 10 + (*p - '0');
    p++, d++;
  }
  if (!d) return 0;
  *out = neg ? -v : v;
  *q = p;
  return 1;
}

/* A face corner v, v/vt, v//vn or v/vt/vn: the vertex index in *v.
 * 0 when the form is wrong. */
static int parse_corner(const char *ts, const char *te, int64_t *v) {
  const char *q = ts;
  int64_t ignored;
  if (!parse_int(&q, te, v)) return 0;
  if (q == te) return 1;
  if (*q++ != '/') return 0;
  if (q < te && *q == '/') { /* v//vn */
    q++;
    return parse_int(&q, te, &ignored) && q == te;
  }
  if (!parse_int(&q, te, &ignored)) return 0; /* v/vt */
  if (q == te) return 1;
  if (*q++ != '/') return 0;
  return parse_int(&q, te, &ignored) && q == te; /* v/vt/vn */
}

/* Pass 1: vertex and triangle counts, checked against the limits. */
static vs_status count(const char *text, size_t len, const char *name, const limits_t *lim,
                       int64_t *nv, int64_t *nt, vs_error *err) {
  const char *p = text, *end = text + len, *ts, *te;
  line_t ln = {0};
  *nv = *nt = 0;
  while (next_line(&p, end, &ln)) {
    const char *q = ln.s;
    if (!next_token(&q, ln.e, &ts, &te)) continue;
    if (token_is(ts, te, "v")) {
      if (++*nv > lim->vertices)
        return vs_error_set(err, VS_ERR_LIMIT, name, ln.no, col_of(&ln, ts),
                            "more than %lld vertices (the limit)", (long long)lim->vertices);
    } else if (token_is(ts, te, "f")) {
      int64_t k = 0;
      while (next_token(&q, ln.e, &ts, &te)) k++;
      if (k >= 3 && (*nt += k - 2) > lim->triangles)
        return vs_error_set(err, VS_ERR_LIMIT, name, ln.no, 1,
                            "more than %lld triangles after fanning the faces (the limit)",
                            (long long)lim->triangles);
    }
  }
  return VS_OK;
}

static int degenerate(const double *a, const double *b, const double *c) {
  double u[3], w[3], x[3];
  vs_sub3(b, a, u), vs_sub3(c, a, w), vs_cross3(u, w, x);
  return vs_dot3(x, x) <= 1e-24 * vs_dot3(u, u) * vs_dot3(w, w);
}

/* Pass 2 over one `v` line (q after the keyword). */
static vs_status vertex_line(const line_t *ln, const char *q, const char *name, double *out,
                             vs_error *err) {
  const char *ts, *te;
  int k = 0;
  char qt[48];
  while (next_token(&q, ln->e, &ts, &te)) {
    double x = 0.0;
    int r = parse_number(ts, te, &x);
    quote(ts, te, qt);
    if (r == 1)
      return vs_error_set(err, VS_ERR_SCENE, name, ln->no, col_of(ln, ts),
                          "bad number '%s' in a vertex", qt);
    if (r == 2)
      return vs_error_set(err, VS_ERR_SCENE, name, ln->no, col_of(ln, ts),
                          "'%s' in a vertex is not a finite number", qt);
    if (k < 3) out[k] = x;
    if (++k > 7) break;
  }
  if (k != 3 && k != 4 && k != 6)
    return vs_error_set(err, VS_ERR_SCENE, name, ln->no, 1,
                        "a vertex has %s%d values; expected 3 (x y z), 4 (x y z w) or 6 (x y z r g b)",
                        k > 7 ? "more than " : "", k > 7 ? 7 : k);
  return VS_OK;
}

vs_status vs_obj_parse(const char *text, size_t len, const char *name, const vs_obj_options *opt,
                       vs_obj_mesh *out, vs_error *err) {
  vs_error_clear(err);
  if (!out || (!text && len))
    return vs_error_set(err, VS_ERR_USAGE, name, 0, 0, "vs_obj_parse: bad arguments");
  memset(out, 0, sizeof *out);
  if (!name) name = "<obj>";
  const limits_t lim = limits_of(opt);
  const int skip = opt && opt->skip_degenerate;
  if ((int64_t)len > lim.bytes)
    return vs_error_set(err, VS_ERR_LIMIT, name, 0, 0, "%zu bytes, over the limit of %lld bytes",
                        len, (long long)lim.bytes);
  int64_t nv, nt;
  vs_status st = count(text, len, name, &lim, &nv, &nt, err);
  if (st != VS_OK) return st;
  /* the limits (<= 2^22) keep every size below in range */
  out->vertices = vs_malloc((size_t)(nv > 0 ? nv : 1) * 3 * sizeof(double));
  out->triangles = vs_malloc((size_t)(nt > 0 ? nt : 1) * 3 * sizeof(int32_t));
  out->tri_line = vs_malloc((size_t)(nt > 0 ? nt : 1) * sizeof(int32_t));
  if (!out->vertices || !out->triangles || !out->tri_line) {
    vs_obj_free(out);
    return vs_error_set(err, VS_ERR_NOMEM, name, 0, 0,
                        "out of memory for %lld vertices and %lld triangles", (long long)nv,
                        (long long)nt);
  }
  const char *p = text, *end = text + len, *ts, *te;
  line_t ln = {0};
  int64_t faces = 0;
  char qt[48];
  while (next_line(&p, end, &ln)) {
    const char *q = ln.s;
    if (!next_token(&q, ln.e, &ts, &te)) continue;
    if (token_is(ts, te, "v")) {
      st = vertex_line(&ln, q, name, out->vertices + 3 * (size_t)out->n_vertices, err);
      if (st != VS_OK) goto fail;
      out->n_vertices++;
      continue;
    }
    if (!token_is(ts, te, "f")) continue; /* vt vn o g s usemtl mtllib ...: ignored */
    const char *fcol = ts;
    faces++;
    int32_t first = -1, prev = -1;
    int64_t k = 0;
    while (next_token(&q, ln.e, &ts, &te)) {
      int64_t v = 0;
      quote(ts, te, qt);
      if (!parse_corner(ts, te, &v)) {
        st = vs_error_set(err, VS_ERR_SCENE, name, ln.no, col_of(&ln, ts),
                          "bad face corner '%s': expected v, v/vt, v//vn or v/vt/vn (integers)",
                          qt);
        goto fail;
      }
      if (v == 0) {
        st = vs_error_set(err, VS_ERR_SCENE, name, ln.no, col_of(&ln, ts),
                          "vertex index 0 in '%s': OBJ indices start at 1 (or -1 for the last vertex)",
                          qt);
        goto fail;
      }
      const int64_t idx = v > 0 ? v - 1 : out->n_vertices + v;
      if (idx < 0 || idx >= out->n_vertices) {
        st = vs_error_set(err, VS_ERR_SCENE, name, ln.no, col_of(&ln, ts),
                          "vertex index in '%s' out of range: %d vertices defined above this face",
                          qt, out->n_vertices);
        goto fail;
      }
      const int32_t cur = (int32_t)idx;
      if (k >= 2) {
        const double *V = out->vertices;
        if (degenerate(V + 3 * (size_t)first, V + 3 * (size_t)prev, V + 3 * (size_t)cur)) {
          if (!skip) {
            st = vs_error_set(err, VS_ERR_SCENE, name, ln.no, col_of(&ln, ts),
                              "face %lld, triangle %lld of its fan (OBJ vertices %d %d %d), has "
                              "zero area",
                              (long long)faces, (long long)(k - 1), first + 1, prev + 1, cur + 1);
            goto fail;
          }
          if (out->n_skipped++ == 0) out->skipped_line = ln.no, out->skipped_column = col_of(&ln, ts);
        } else {
          int32_t *t = out->triangles + 3 * (size_t)out->n_triangles;
          t[0] = first, t[1] = prev, t[2] = cur;
          out->tri_line[out->n_triangles++] = ln.no;
        }
      }
      if (k == 0) first = cur;
      prev = cur;
      k++;
    }
    if (k < 3) {
      st = vs_error_set(err, VS_ERR_SCENE, name, ln.no, col_of(&ln, fcol),
                        "a face needs at least 3 corners, this one has %lld", (long long)k);
      goto fail;
    }
  }
  if (out->n_triangles == 0 && out->n_skipped == 0) {
    st = vs_error_set(err, VS_ERR_SCENE, name, 0, 0, "no faces ('f' lines with 3 or more corners)");
    goto fail;
  }
  if (out->n_triangles == 0) {
    st = vs_error_set(err, VS_ERR_SCENE, name, out->skipped_line, out->skipped_column,
                      "every triangle has zero area (%d skipped)", out->n_skipped);
    goto fail;
  }
  return VS_OK;
fail:
  vs_obj_free(out);
  return st;
}

int vs_obj_count_file(const char *path, int64_t *nv, int64_t *nt, int64_t *bytes) {
  *nv = *nt = *bytes = 0;
  if (!path) return -1;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat sb;
  enum { BUF = 1 << 16 };
  char *buf = NULL;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || !(buf = vs_malloc(BUF))) {
    close(fd);
    return -1;
  }
  *bytes = (int64_t)sb.st_size;
  /* the line so far: tokens seen, the first one's length and first byte,
   * inside a token, inside a comment */
  int64_t tokens = 0, first_len = 0, left = VS_OBJ_MAX_BYTES + 1;
  char first = 0;
  int in_token = 0, comment = 0;
  for (;;) {
    ssize_t got = left > 0 ? read(fd, buf, (size_t)(left < BUF ? left : BUF)) : 0;
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    left -= got;
    for (ssize_t i = 0; i < got; i++) {
      char c = buf[i];
      if (c == '\n') {
        if (tokens >= 1 && first_len == 1 && first == 'f' && tokens - 1 >= 3) *nt += tokens - 3;
        if (tokens >= 1 && first_len == 1 && first == 'v') ++*nv;
        tokens = first_len = 0;
        in_token = comment = 0;
      } else if (comment) {
      } else if (is_space(c)) {
        in_token = 0;
      } else if (!in_token) {
        if (c == '#') {
          comment = 1;
        } else {
          in_token = 1;
          if (++tokens == 1) first = c, first_len = 1;
        }
      } else if (tokens == 1) {
        first_len++;
      }
    }
  }
  if (tokens >= 1 && first_len == 1 && first == 'f' && tokens - 1 >= 3) *nt += tokens - 3;
  if (tokens >= 1 && first_len == 1 && first == 'v') ++*nv;
  vs_free(buf);
  close(fd);
  return 0;
}

vs_status vs_obj_read(const char *path, const char *name, const vs_obj_options *opt,
                      vs_obj_mesh *out, vs_error *err) {
  vs_error_clear(err);
  if (out) memset(out, 0, sizeof *out);
  if (!name) name = path;
  if (!path || !out) return vs_error_set(err, VS_ERR_USAGE, name, 0, 0, "vs_obj_read: bad arguments");
  const limits_t lim = limits_of(opt);
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says
   * what the file is before anything is read. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return vs_error_set(err, VS_ERR_IO, name, 0, 0, "cannot read mesh file '%s': %s", path,
                        strerror(errno));
  struct stat sb;
  vs_status st = VS_OK;
  char *buf = NULL;
  if (fstat(fd, &sb) != 0) {
    st = vs_error_set(err, VS_ERR_IO, name, 0, 0, "cannot read mesh file '%s': %s", path,
                      strerror(errno));
  } else if (S_ISDIR(sb.st_mode)) {
    st = vs_error_set(err, VS_ERR_IO, name, 0, 0, "cannot read mesh file '%s': it is a directory",
                      path);
  } else if (!S_ISREG(sb.st_mode)) {
    st = vs_error_set(err, VS_ERR_IO, name, 0, 0,
                      "cannot read mesh file '%s': not a regular file", path);
  } else if ((int64_t)sb.st_size > lim.bytes) {
    st = vs_error_set(err, VS_ERR_LIMIT, name, 0, 0,
                      "mesh file '%s' is %lld bytes, over the limit of %lld bytes", path,
                      (long long)sb.st_size, (long long)lim.bytes);
  }
  if (st != VS_OK) {
    close(fd);
    return st;
  }
  /* Read up to one byte past the size (a file that grew is still caught). */
  const size_t cap = (size_t)sb.st_size + 1;
  size_t n = 0;
  buf = vs_malloc(cap);
  if (!buf) {
    close(fd);
    return vs_error_set(err, VS_ERR_NOMEM, name, 0, 0, "out of memory reading '%s'", path);
  }
  while (n < cap) {
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      st = vs_error_set(err, VS_ERR_IO, name, 0, 0, "cannot read mesh file '%s': %s", path,
                        strerror(errno));
      break;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (st == VS_OK && n == cap)
    st = vs_error_set(err, VS_ERR_IO, name, 0, 0, "mesh file '%s' changed while being read", path);
  if (st == VS_OK) st = vs_obj_parse(buf, n, name, opt, out, err);
  vs_free(buf);
  return st;
}

void vs_obj_free(vs_obj_mesh *m) {
  if (!m) return;
  vs_free(m->vertices);
  vs_free(m->triangles);
  vs_free(m->tri_line);
  memset(m, 0, sizeof *m);
}

/* sin and cos of an angle in degrees, exact at multiples of 90. */
void vs_obj_transform_apply(const vs_obj_transform *t, double *v, int32_t n) {
  double s[3], c[3];
  for (int k = 0; k < 3; k++) vs_sincos_deg(t->rotate[k], &s[k], &c[k]);
  for (int32_t i = 0; i < n; i++) {
    double *p = v + 3 * (size_t)i;
    double x = p[0] * t->scale[0], y = p[1] * t->scale[1], z = p[2] * t->scale[2], a, b;
    a = c[0] * y - s[0] * z, b = s[0] * y + c[0] * z, y = a, z = b; /* about x */
    a = c[1] * x + s[1] * z, b = -s[1] * x + c[1] * z, x = a, z = b; /* about y */
    a = c[2] * x - s[2] * y, b = s[2] * x + c[2] * y, x = a, y = b; /* about z */
    p[0] = x + t->translate[0], p[1] = y + t->translate[1], p[2] = z + t->translate[2];
  }
}
