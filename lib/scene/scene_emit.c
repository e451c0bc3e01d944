/* scene_emit.c: vs_scene -> YAML that loads back into an equal scene.
 *
 * Every key is written, defaults included, so the text documents exactly
 * what ran (it is stored as /parameters/vsim@resolved).  Doubles are written
 * with the fewest of 15..17 significant digits that read back to the same
 * bits (17 always does), so the round trip is exact. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "scene/scene_internal.h"

typedef struct sbuf {
  char *p;
  size_t n, cap;
  int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if ((size_t)k < b->cap - b->n) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap * 2 + (size_t)k + 1;
    char *np = vs_realloc(b->p, cap);
    if (!np) {
      b->oom = 1;
      return;
    }
    b->p = np;
    b->cap = cap;
  }
}

static void num(sbuf *b, double v) {
  char t[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(t, sizeof t, "%.*g", prec, v);
    if (strtod(t, NULL) == v) break;
  }
  if (v == 0 && 1 / v < 0) snprintf(t, sizeof t, "-0.0"); /* keep the sign of -0 */
  /* YAML 1.1 resolvers (PyYAML, for one) read 1e-300 as a string: write 1.0e-300. */
  char *e = strchr(t, 'e');
  if (e && !strchr(t, '.')) {
    char tail[16];
    snprintf(tail, sizeof tail, "%s", e);
    snprintf(e, sizeof t - (size_t)(e - t), ".0%s", tail);
  }
  put(b, "%s", t);
}

static void vec(sbuf *b, const double *v, size_t n) {
  put(b, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) put(b, ", ");
    num(b, v[i]);
  }
  put(b, "]");
}

/* The code point of the UTF-8 sequence at p (its length in *n), or -1 for
 * a byte that starts no valid sequence. */
static long utf8_next(const unsigned char *p, int *n) {
  int len = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
                                                      : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
  *n = 1;
  if (len == 0) return -1;
  long cp = len == 1 ? p[0] : p[0] & (0x7f >> len);
  for (int i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return -1; /* also stops at the NUL */
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  static const long min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  *n = len;
  return cp;
}

/* Characters YAML will not read back as themselves inside double quotes:
 * the non-printable ones (its reader rejects them) and the line breaks
 * NEL, LS and PS (they fold like a newline). */
static int needs_escape(long cp) {
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return 1;
  return cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

/* A YAML double-quoted string: always a string, whatever it looks like, and
 * read back byte for byte (the resolved scene in a result file must load
 * for --resume). */
static void str(sbuf *b, const char *s) {
  put(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n;
    long cp = utf8_next(p, &n);
    if (cp == '"' || cp == '\\')
      put(b, "\\%c", (int)cp);
    else if (cp < 0)
      put(b, "\\x%02x", *p); /* not UTF-8: the loader never gives such text */
    else if (needs_escape(cp))
      put(b, cp < 0x100 ? "\\x%02lx" : "\\u%04lx", cp);
    else
      put(b, "%.*s", n, (const char *)p);
    p += n;
  }
  put(b, "\"");
}

static void link_desc(sbuf *b, const char *ind, const char *key, const vs_link_desc *l) {
  put(b, "%s%s: ", ind, key);
  if (!l->enabled) {
    put(b, "none\n");
    return;
  }
  put(b, "{stiffness: ");
  num(b, l->stiffness);
  put(b, ", compliance: ");
  num(b, l->compliance);
  put(b, "}\n");
}

static void pins(sbuf *b, const char *ind, const vs_body_desc *d) {
  static const char *const words[] = {[VS_PIN_NONE] = "none",
                                      [VS_PIN_TOP_EDGE] = "top-edge",
                                      [VS_PIN_TOP_CORNERS] = "top-corners",
                                      [VS_PIN_FIRST] = "first",
                                      [VS_PIN_LAST] = "last",
                                      [VS_PIN_BOTH] = "both"};
  put(b, "%spin: ", ind);
  if (d->pin_mode != VS_PIN_LIST || d->n_pins == 0) {
    put(b, "%s\n", d->pin_mode == VS_PIN_LIST ? "none" : words[d->pin_mode]);
    return;
  }
  int ar = d->pin_arity < 1 ? 1 : d->pin_arity;
  put(b, "[");
  for (size_t i = 0; i < d->n_pins; i++) {
    const int64_t *p = &d->pins[i * (size_t)ar];
    if (i) put(b, ", ");
    if (ar == 1) {
      put(b, "%lld", (long long)p[0]);
    } else {
      put(b, "[");
      for (int a = 0; a < ar; a++) put(b, "%s%lld", a ? ", " : "", (long long)p[a]);
      put(b, "]");
    }
  }
  put(b, "]\n");
}

static void kv_num(sbuf *b, const char *ind, const char *key, double v) {
  put(b, "%s%s: ", ind, key);
  num(b, v);
  put(b, "\n");
}

static void kv_vec(sbuf *b, const char *ind, const char *key, const double *v, size_t n) {
  put(b, "%s%s: ", ind, key);
  vec(b, v, n);
  put(b, "\n");
}

static void body(sbuf *b, const vs_body_desc *d) {
  static const char *const kinds[] = {"particles", "rope", "cloth", "tetra", "lattice", "ragdoll"};
  static const char *const planes[] = {"xy", "xz", "yz"};
  const char *ind = "      ";
  put(b, "  - %s:\n%sname: ", kinds[d->kind], ind);
  str(b, d->name);
  put(b, "\n");
  switch (d->kind) {
    case VS_BODY_PARTICLES:
      put(b, "%spositions: [", ind);
      for (size_t i = 0; i < d->count; i++) {
        if (i) put(b, ", ");
        vec(b, &d->positions[3 * i], 3);
      }
      put(b, "]\n");
      if (d->velocities) {
        put(b, "%svelocities: [", ind);
        for (size_t i = 0; i < d->count; i++) {
          if (i) put(b, ", ");
          vec(b, &d->velocities[3 * i], 3);
        }
        put(b, "]\n");
      }
      if (d->masses)
        kv_vec(b, ind, "masses", d->masses, d->count);
      else
        kv_num(b, ind, "mass", d->mass);
      kv_num(b, ind, "radius", d->radius);
      pins(b, ind, d);
      break;
    case VS_BODY_ROPE:
      kv_vec(b, ind, "from", d->from, 3);
      kv_vec(b, ind, "to", d->to, 3);
      put(b, "%ssegments: %lld\n", ind, (long long)d->segments);
      kv_num(b, ind, "mass", d->mass);
      kv_num(b, ind, "radius", d->radius);
      link_desc(b, ind, "stretch", &d->stretch);
      link_desc(b, ind, "bend", &d->bend);
      pins(b, ind, d);
      kv_num(b, ind, "tear", d->tear);
      break;
    case VS_BODY_CLOTH:
    case VS_BODY_LATTICE: {
      int dims = d->kind == VS_BODY_CLOTH ? 2 : 3;
      kv_vec(b, ind, "origin", d->origin, 3);
      kv_vec(b, ind, "size", d->size, (size_t)dims);
      put(b, "%sresolution: [", ind);
      for (int i = 0; i < dims; i++) put(b, "%s%lld", i ? ", " : "", (long long)d->resolution[i]);
      put(b, "]\n");
      if (d->kind == VS_BODY_CLOTH) put(b, "%splane: %s\n", ind, planes[d->plane]);
      kv_num(b, ind, "mass", d->mass);
      kv_num(b, ind, "radius", d->radius);
      link_desc(b, ind, "stretch", &d->stretch);
      link_desc(b, ind, "shear", &d->shear);
      if (d->kind == VS_BODY_CLOTH) link_desc(b, ind, "bend", &d->bend);
      pins(b, ind, d);
      kv_num(b, ind, "tear", d->tear);
      break;
    }
    case VS_BODY_TETRA:
    case VS_BODY_RAGDOLL:
      if (d->kind == VS_BODY_TETRA) {
        kv_vec(b, ind, "center", d->center, 3);
        kv_num(b, ind, "edge", d->edge);
        kv_vec(b, ind, "velocity", d->velocity, 3);
        kv_vec(b, ind, "angular_velocity", d->angular_velocity, 3);
      } else {
        kv_vec(b, ind, "origin", d->origin, 3);
        kv_num(b, ind, "height", d->height);
      }
      kv_num(b, ind, "mass", d->mass);
      kv_num(b, ind, "radius", d->radius);
      kv_num(b, ind, "stiffness", d->stretch.stiffness);
      kv_num(b, ind, "compliance", d->stretch.compliance);
      if (d->kind == VS_BODY_RAGDOLL) pins(b, ind, d);
      break;
  }
  kv_num(b, ind, "damping_rigid", d->damping_rigid);
}

static void constraint(sbuf *b, const vs_constraint_desc *d) {
  switch (d->kind) {
    case VS_CONSTRAINT_DISTANCE:
      put(b, "  - distance: {a: ");
      str(b, d->a.text);
      put(b, ", b: ");
      str(b, d->b.text);
      if (d->has_min) {
        put(b, ", min: ");
        num(b, d->min);
      } else if (d->has_max) {
        put(b, ", max: ");
        num(b, d->max);
      } else if (d->rest_auto) {
        put(b, ", rest: auto");
      } else {
        put(b, ", rest: ");
        num(b, d->rest);
      }
      break;
    case VS_CONSTRAINT_PIN:
      put(b, "  - pin: {particle: ");
      str(b, d->a.text);
      if (d->has_at) {
        put(b, ", at: ");
        vec(b, d->at, 3);
      }
      if (d->keys) {
        put(b, ", keys: [");
        for (size_t i = 0; i < d->n_keys; i++) {
          if (i) put(b, ", ");
          vec(b, &d->keys[4 * i], 4);
        }
        put(b, "]");
      }
      put(b, "}\n");
      return;
    case VS_CONSTRAINT_ANGLE:
      put(b, "  - angle: {a: ");
      str(b, d->a.text);
      put(b, ", b: ");
      str(b, d->b.text);
      put(b, ", c: ");
      str(b, d->c.text);
      if (d->has_min) {
        put(b, ", min: ");
        num(b, d->min);
      }
      if (d->has_max) {
        put(b, ", max: ");
        num(b, d->max);
      }
      break;
  }
  put(b, ", stiffness: ");
  num(b, d->stiffness);
  put(b, ", compliance: ");
  num(b, d->compliance);
  put(b, "}\n");
}

vs_status vs_scene_to_yaml(const vs_scene *s, char **out, vs_error *err) {
  static const char *const integrators[] = {"verlet", "pbd", "xpbd"};
  static const char *const relaxations[] = {"gauss-seidel", "jacobi"};
  static const char *const colliders[] = {"plane", "sphere", "box", "bounds"};
  static const char *const fields[] = {"position", "velocity", "constraint_error",
                                       "per_constraint_error"};
  if (out) *out = NULL;
  if (!s || !out)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_scene_to_yaml: bad arguments");
  sbuf b = {NULL, 0, 0, 0};
  b.cap = 4096;
  b.p = vs_malloc(b.cap);
  if (!b.p) return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  b.p[0] = '\0';

  put(&b, "# vsim scene, resolved: every default filled in and every --set applied\n");
  put(&b, "vsim: %d\nname: ", s->version ? s->version : 1);
  str(&b, s->name);
  put(&b, "\ntime:\n");
  kv_num(&b, "  ", "dt", s->dt);
  put(&b, "  frames: %lld\n  substeps: %lld\n", (long long)s->frames, (long long)s->substeps);
  put(&b, "solver:\n  integrator: %s\n  iterations: %lld\n  relaxation: %s\n",
      integrators[s->integrator], (long long)s->iterations, relaxations[s->relaxation]);
  kv_num(&b, "  ", "omega", s->omega);
  kv_num(&b, "  ", "damping", s->damping);
  put(&b, "  sqrt_approximation: %s\n", s->sqrt_approximation ? "true" : "false");
  kv_num(&b, "  ", "runaway_speed", s->runaway_speed);
  put(&b, "world:\n");
  kv_vec(&b, "  ", "gravity", s->gravity, 3);
  put(&b, "  particle_collisions: %s\n", s->particle_collisions ? "true" : "false");
  put(&b, "  swept: %s\n", s->swept ? "true" : "false");
  put(&b, "  shock_propagation: %s\n", s->shock_propagation ? "true" : "false");
  kv_num(&b, "  ", "particle_friction", s->particle_friction);
  put(&b, "  colliders:%s\n", s->n_colliders ? "" : " []");
  for (size_t i = 0; i < s->n_colliders; i++) {
    const vs_collider_desc *c = &s->colliders[i];
    put(&b, "    - %s: {", colliders[c->kind]);
    switch (c->kind) {
      case VS_COLLIDER_PLANE:
        put(&b, "point: ");
        vec(&b, c->a, 3);
        put(&b, ", normal: ");
        vec(&b, c->b, 3);
        break;
      case VS_COLLIDER_SPHERE:
        put(&b, "center: ");
        vec(&b, c->a, 3);
        put(&b, ", radius: ");
        num(&b, c->radius);
        break;
      case VS_COLLIDER_BOX:
      case VS_COLLIDER_BOUNDS:
        put(&b, "min: ");
        vec(&b, c->a, 3);
        put(&b, ", max: ");
        vec(&b, c->b, 3);
        break;
    }
    put(&b, ", friction: ");
    num(&b, c->friction);
    put(&b, ", restitution: ");
    num(&b, c->restitution);
    put(&b, "}\n");
  }
  put(&b, "bodies:%s\n", s->n_bodies ? "" : " []");
  for (size_t i = 0; i < s->n_bodies; i++) body(&b, &s->bodies[i]);
  put(&b, "constraints:%s\n", s->n_constraints ? "" : " []");
  for (size_t i = 0; i < s->n_constraints; i++) constraint(&b, &s->constraints[i]);
  put(&b, "output:\n  every: %lld\n  fields: [", (long long)s->output.every);
  int first = 1;
  for (int i = 0; i < 4; i++) {
    if (s->output.fields & (1u << i)) {
      put(&b, "%s%s", first ? "" : ", ", fields[i]);
      first = 0;
    }
  }
  put(&b, "]\n  precision: %s\n  compression: %d\n", s->output.float32 ? "float32" : "float64",
      s->output.compression);
  if (b.oom) {
    vs_free(b.p);
    return vs_error_set(err, VS_ERR_NOMEM, NULL, 0, 0, "out of memory");
  }
  *out = b.p;
  return VS_OK;
}
