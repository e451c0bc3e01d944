/* SPDX-License-Identifier: MIT */
/* plot_files.c: plotting result files (vsim/render.h: vs_plot_files,
 * vs_plot_describe): the series asked for, read through the frames reader
 * (vsim/frames.h), labelled by file or by the sweep parameters that differ,
 * handed to the drawing of view.h (plot.c). */
#define _GNU_SOURCE /* memrchr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/text.h"
#include "vsim/h5.h"
#include "view/cairo_dl.h"
#include "view/view.h"
#include "vsim/render.h"

static const char *const vs_plot_default_series[3] = {"constraint_error_max", "penetration_max",
                                                "energy_kinetic"};

/* "the file has: a, b, c" into buf */
static void available(const vs_frames *f, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "it has: ");
  size_t n = vs_frames_series_count(f);
  for (size_t i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                             vs_frames_series_name(f, i));
  if (!n) snprintf(buf, size, "it has no observables");
}

/* ---- the points of a sweep ------------------------------------------------ */

/* The KEY=VALUE of each `--set` in a file's recorded command line
 * (/parameters/vsim command, shell-quoted: words, '...' and '\''), which is
 * how `vsim sweep` runs each point: n pairs into kv, pointing into the
 * returned buffer (vs_free), NULL when the file has no command. */
static char *set_pairs(const vs_frames *f, const char **kv, size_t max, size_t *n) {
  *n = 0;
  char *cmd = NULL;
  vs_error ig;
  vs_error_clear(&ig);
  if (vs_h5_read_parameter(vs_frames_path(f), "command", &cmd, &ig) != VS_OK || !cmd) return NULL;
  size_t len = strlen(cmd);
  char *buf = vs_malloc(2 * len + 2), *o = buf;
  const char **words = vs_malloc((len + 1) * sizeof *words);
  size_t nw = 0;
  if (!buf || !words) {
    vs_free(buf);
    vs_free(words);
    vs_free_buffer(cmd);
    return NULL;
  }
  for (const char *c = cmd; *c;) {
    while (*c == ' ') c++;
    if (!*c) break;
    words[nw++] = o;
    while (*c && *c != ' ') {
      if (*c == '\'') {
        for (c++; *c && *c != '\''; c++) *o++ = *c;
        if (*c) c++;
      } else if (*c == '\\' && c[1]) {
        *o++ = c[1];
        c += 2;
      } else {
        *o++ = *c++;
      }
    }
    *o++ = '\0';
  }
  for (size_t i = 0; i < nw && *n < max; i++) {
    const char *v = NULL;
    if (strcmp(words[i], "--set") == 0 && i + 1 < nw)
      v = words[++i];
    else if (strncmp(words[i], "--set=", 6) == 0)
      v = words[i] + 6;
    if (v && strchr(v, '=')) kv[(*n)++] = v;
  }
  vs_free(words);
  vs_free_buffer(cmd);
  return buf;
}

/* kv's value for key (of length kl) among a file's pairs, or NULL. */
static const char *value_of(const char *const *kv, size_t n, const char *key, size_t kl) {
  for (size_t m = 0; m < n; m++)
    if (strncmp(kv[m], key, kl) == 0 && kv[m][kl] == '=') return kv[m] + kl + 1;
  return NULL;
}

/* Each file's legend name: with several files, the `--set` parameters that
 * differ between them, each by the last part of its key when no other
 * differing key ends alike ("iterations=5, relaxation=jacobi"); else (or
 * with one file) the name given, else the path. */
static vs_status file_labels(const vs_plot_request *q, char **out, vs_error *err, const char *path) {
  enum { MAXKV = 64 };
  size_t nf = q->n_files;
  char **bufs = vs_calloc(nf + 1, sizeof *bufs);
  const char **kv = vs_calloc((nf + 1) * MAXKV, sizeof *kv);
  size_t *nkv = vs_calloc(nf + 1, sizeof *nkv);
  const char **vary = vs_calloc(nf * MAXKV + 1, sizeof *vary); /* "key=..." of each varying key */
  size_t *vlen = vs_calloc(nf * MAXKV + 1, sizeof *vlen), nv = 0;
  vs_status st = VS_OK;
  if (!bufs || !kv || !nkv || !vary || !vlen)
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  for (size_t i = 0; st == VS_OK && nf > 1 && i < nf; i++)
    bufs[i] = set_pairs(q->files[i], kv + i * MAXKV, MAXKV, &nkv[i]);
  /* the keys that vary: some file lacks them or gives another value */
  for (size_t i = 0; st == VS_OK && i < nf; i++)
    for (size_t k = 0; k < nkv[i]; k++) {
      const char *me = kv[i * MAXKV + k];
      size_t kl = (size_t)(strchr(me, '=') - me);
      int seen = 0, varies = 0;
      for (size_t v = 0; v < nv && !seen; v++) seen = vlen[v] == kl && strncmp(vary[v], me, kl) == 0;
      for (size_t j = 0; j < nf && !varies && !seen; j++) {
        const char *other = value_of(kv + j * MAXKV, nkv[j], me, kl);
        varies = !other || strcmp(other, me + kl + 1) != 0;
      }
      if (varies && !seen) vary[nv] = me, vlen[nv++] = kl;
    }
  for (size_t i = 0; st == VS_OK && i < nf; i++) {
    size_t cap = 1, used = 0;
    for (size_t k = 0; k < nkv[i]; k++) cap += strlen(kv[i * MAXKV + k]) + 2;
    char *lab = vs_malloc(cap);
    if (!lab) {
      st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
      break;
    }
    lab[0] = '\0';
    for (size_t v = 0; v < nv; v++) {
      const char *val = value_of(kv + i * MAXKV, nkv[i], vary[v], vlen[v]);
      if (!val) continue;
      /* the key's last part, when no other varying key has that last part */
      const char *key = vary[v];
      size_t kl = vlen[v];
      const char *dot = memrchr(key, '.', kl);
      if (dot) {
        size_t sl = kl - (size_t)(dot + 1 - key);
        int clash = 0;
        for (size_t w = 0; w < nv && !clash; w++) {
          if (w == v || vlen[w] < sl) continue;
          const char *tail = vary[w] + vlen[w] - sl;
          clash = strncmp(tail, dot + 1, sl) == 0 && (tail == vary[w] || tail[-1] == '.');
        }
        if (!clash) key = dot + 1, kl = sl;
      }
      used += (size_t)snprintf(lab + used, cap - used, "%s%.*s=%s", used ? ", " : "", (int)kl,
                               key, val);
    }
    if (!lab[0]) {
      const char *name = q->labels && q->labels[i] ? q->labels[i] : vs_frames_path(q->files[i]);
      vs_free(lab);
      lab = vs_malloc(strlen(name) + 1);
      if (!lab) {
        st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
        break;
      }
      strcpy(lab, name);
    }
    out[i] = lab;
  }
  for (size_t i = 0; bufs && i < nf; i++) vs_free(bufs[i]);
  vs_free(bufs);
  vs_free(kv);
  vs_free(nkv);
  vs_free(vary);
  vs_free(vlen);
  return st;
}

static int series_all_zero(const vs_plot_series *s) {
  int any = 0;
  for (size_t i = 0; i < s->n; i++)
    if (isfinite(s->y[i]) && isfinite(s->x[i])) {
      if (s->y[i] != 0) return 0;
      any = 1;
    }
  return any;
}

/* What a plot of q draws: its series, legend and options. */
typedef struct plot_prep {
  vs_plot_options o;
  vs_plot_series *s;
  size_t ns, cap, nf, nt;
  double **bufs;
  char **text; /* legend texts made here */
  char **flab; /* each file's label */
  int *name_of, *file_of;
  vs_plot_key *keys;
} plot_prep;

static void plot_release(plot_prep *p) {
  for (size_t i = 0; p->bufs && i < 2 * p->cap; i++) vs_free(p->bufs[i]);
  for (size_t i = 0; p->text && i < p->nt; i++) vs_free(p->text[i]);
  for (size_t i = 0; p->flab && i < p->nf; i++) vs_free(p->flab[i]);
  vs_free(p->bufs);
  vs_free(p->text);
  vs_free(p->flab);
  vs_free(p->name_of);
  vs_free(p->file_of);
  vs_free(p->keys);
  vs_free(p->s);
}

static vs_status plot_prepare(const vs_plot_request *q, plot_prep *p, const char *path,
                              vs_error *err) {
  memset(p, 0, sizeof *p);
  const char *const *names = q->series ? q->series : vs_plot_default_series;
  size_t nn = q->series ? q->n_series : 3, nf = q->n_files;
  size_t cap = nf * nn + 1;
  p->cap = cap, p->nf = nf;
  vs_plot_series *s = p->s = vs_calloc(cap, sizeof *s);
  double **bufs = p->bufs = vs_calloc(2 * cap, sizeof *bufs);
  char **text = p->text = vs_calloc(cap + nf + nn + 1, sizeof *text);
  char **flab = p->flab = vs_calloc(nf + 1, sizeof *flab);
  int *name_of = p->name_of = vs_calloc(cap, sizeof *name_of);
  int *file_of = p->file_of = vs_calloc(cap, sizeof *file_of);
  vs_plot_key *keys = p->keys = vs_calloc(nf + nn + 1, sizeof *keys);
  vs_status st = VS_OK;
  if (!s || !bufs || !text || !flab || !name_of || !file_of || !keys)
    st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  size_t ns = 0;
  size_t *nt = &p->nt;
  char avail[1500];
  int used[64] = {0}; /* which names some file has (the first 64) */
  for (size_t fi = 0; st == VS_OK && fi < nf; fi++) {
    vs_frames *f = q->files[fi];
    size_t found = 0;
    for (size_t j = 0; st == VS_OK && j < nn; j++) {
      long i = vs_frames_series_find(f, names[j]);
      if (i < 0) {
        if (!q->series) continue;
        available(f, avail, sizeof avail);
        st = vs_error_set(err, VS_ERR_USAGE, vs_frames_path(f), 0, 0, "no series '%s' (%s)",
                          names[j], avail);
        break;
      }
      size_t n;
      /* a point or two per pixel column is all a plot shows: the memory
       * is the picture's, not the file's */
      const size_t max_points = q->width > 1024 ? 4 * (size_t)q->width : 4096;
      st = vs_frames_series_read_max(f, (size_t)i, max_points, &bufs[2 * ns], &bufs[2 * ns + 1],
                                     &n, err);
      if (st != VS_OK) break;
      s[ns].n = n;
      s[ns].x = bufs[2 * ns];
      s[ns].y = bufs[2 * ns + 1];
      s[ns].unit = vs_frames_series_unit(f, (size_t)i);
      s[ns].quantity = names[j];
      name_of[ns] = (int)j;
      file_of[ns] = (int)fi;
      if (j < 64) used[j] = 1;
      ns++;
      found++;
    }
    if (st == VS_OK && !found) {
      available(f, avail, sizeof avail);
      st = vs_error_set(err, VS_ERR_USAGE, vs_frames_path(f), 0, 0,
                        "none of the default series (%s, %s, %s); %s", vs_plot_default_series[0],
                        vs_plot_default_series[1], vs_plot_default_series[2], avail);
    }
  }
  if (st == VS_OK) st = file_labels(q, flab, err, path);
  vs_plot_options *o = &p->o;
  vs_plot_options_init(o);
  size_t n_used = 0;
  for (size_t j = 0; j < nn && j < 64; j++) n_used += used[j];
  if (st == VS_OK) {
    if (nf == 1) {
      /* one file: a colour per series */
      for (size_t k = 0; k < ns; k++) s[k].name = names[name_of[k]], s[k].color = (int)k;
    } else if (n_used <= 1) {
      /* one series of several files: a colour per file, named by its label */
      for (size_t k = 0; k < ns; k++) s[k].name = flab[file_of[k]], s[k].color = file_of[k];
    } else if (nf <= VS_PLOT_COLORS && nn <= 64) {
      /* several series of several files (a sweep's points): colour = file,
       * dash = series, and a legend of files then series */
      size_t nk = 0;
      for (size_t fi = 0; fi < nf; fi++) keys[nk++] = (vs_plot_key){flab[fi], (int)fi, 0};
      for (size_t j = 0; j < nn && st == VS_OK; j++) {
        if (!used[j]) continue;
        int zero = 1;
        for (size_t k = 0; k < ns; k++)
          if (name_of[k] == (int)j) zero &= series_all_zero(&s[k]);
        size_t len = strlen(names[j]) + 16;
        char *t = vs_malloc(len);
        if (!t) {
          st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
          break;
        }
        snprintf(t, len, "%s%s", names[j], zero ? " (all 0)" : "");
        text[(*nt)++] = t;
        keys[nk++] = (vs_plot_key){t, -1, (int)(j % 5)};
      }
      for (size_t k = 0; k < ns; k++) s[k].color = file_of[k], s[k].dash = name_of[k] % 5;
      o->keys = keys;
      o->n_keys = nk;
    } else {
      /* more files than colours: every curve its own entry */
      for (size_t k = 0; k < ns && st == VS_OK; k++) {
        const char *lab = flab[file_of[k]], *nm = names[name_of[k]];
        size_t len = strlen(lab) + strlen(nm) + 4;
        char *t = vs_malloc(len);
        if (!t) {
          st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
          break;
        }
        snprintf(t, len, "%s: %s", lab, nm);
        text[(*nt)++] = t;
        s[k].name = t;
        s[k].color = (int)k;
      }
    }
  }
  p->ns = ns;
  o->width = q->width;
  o->height = q->height;
  o->yscale = q->yscale == VS_PLOT_Y_LOG      ? VS_PLOT_LOG
              : q->yscale == VS_PLOT_Y_LINEAR ? VS_PLOT_LINEAR
                                              : VS_PLOT_AUTO;
  o->title = nf == 1 ? vs_view_base_name(q->labels && q->labels[0] ? q->labels[0]
                                                           : vs_frames_path(q->files[0]))
                     : NULL;
  o->format = vs_view_format_of(q->format);
  return st;
}

vs_status vs_plot_files(const vs_plot_request *q, const char *path, vs_error *err) {
  plot_prep p;
  vs_status st = plot_prepare(q, &p, path, err);
  /* the plot never replaces a file it is drawn from */
  const char **inputs = st == VS_OK ? vs_calloc(q->n_files + 1, sizeof *inputs) : NULL;
  if (st == VS_OK && !inputs) st = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  for (size_t fi = 0; inputs && fi < q->n_files; fi++) inputs[fi] = vs_frames_path(q->files[fi]);
  if (st == VS_OK) st = vs_plot_file(&p.o, p.s, p.ns, path, inputs, err);
  vs_free(inputs);
  plot_release(&p);
  return st;
}

vs_status vs_plot_describe(const vs_plot_request *q, char **json, vs_error *err) {
  *json = NULL;
  if (vs_view_cairo_load(err) != VS_OK) return err->code;
  plot_prep p;
  vs_status st = plot_prepare(q, &p, NULL, err);
  int *sp = st == VS_OK ? vs_calloc(p.ns + 1, sizeof *sp) : NULL;
  if (st == VS_OK && !sp) st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  if (st == VS_OK) {
    vs_plot_geometry g;
    g.series_panel = sp;
    vs_plot_layout(&p.o, p.s, p.ns, &g);
    static const char *const scales[] = {"auto", "linear", "log", "symlog"};
    vs_sbuf b = {0};
    vs_sbuf_puts(&b, "{\"panels\": [");
    for (size_t i = 0; i < g.n_panels; i++) {
      vs_sbuf_puts(&b, i ? ", {\"unit\": " : "{\"unit\": ");
      vs_sbuf_json(&b, g.unit[i]);
      vs_sbuf_puts(&b, ", \"label\": ");
      vs_sbuf_json(&b, g.label[i]);
      vs_sbuf_printf(&b, ", \"scale\": \"%s\", \"series\": [", scales[g.scale[i]]);
      int first = 1;
      for (size_t k = 0; k < p.ns; k++) {
        if (sp[k] != (int)i) continue;
        vs_sbuf_puts(&b, first ? "" : ", ");
        first = 0;
        char buf[600];
        snprintf(buf, sizeof buf, "%s%s%s", p.nf > 1 ? p.flab[p.file_of[k]] : "",
                 p.nf > 1 ? ": " : "", p.s[k].quantity);
        vs_sbuf_json(&b, buf);
      }
      vs_sbuf_puts(&b, "]}");
    }
    vs_sbuf_puts(&b, "], \"legend\": [");
    size_t nk = 0;
    for (size_t i = 0; p.o.keys && i < p.o.n_keys; i++, nk++) {
      vs_sbuf_puts(&b, nk ? ", " : "");
      vs_sbuf_json(&b, p.o.keys[i].text);
    }
    for (size_t k = 0; !p.o.keys && k < p.ns; k++) {
      if (!p.s[k].name) continue;
      char buf[600];
      snprintf(buf, sizeof buf, "%s%s", p.s[k].name, series_all_zero(&p.s[k]) ? " (all 0)" : "");
      vs_sbuf_puts(&b, nk++ ? ", " : "");
      vs_sbuf_json(&b, buf);
    }
    vs_sbuf_puts(&b, "]}\n");
    if (b.bad) {
      vs_sbuf_free(&b);
      st = vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
    } else {
      *json = b.p;
    }
  }
  vs_free(sp);
  plot_release(&p);
  return st;
}

