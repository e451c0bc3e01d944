/* SPDX-License-Identifier: MIT */
/* cairo_dl.c: the cairo table of cairo_dl.h, loaded once with dlopen. */
#define VS_CAIRO_DL_IMPL
#include "view/cairo_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static vs_cairo_api api;
static int loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *h = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, sizeof why, "%s", dlerror());
    return;
  }
#define VS_CAIRO_SYM(f)                                          \
  if (!(api.f = (__typeof__(f) *)dlsym(h, #f))) {                \
    snprintf(why, sizeof why, "libcairo.so.2 has no %s", #f);   \
    return;                                                      \
  }
  VS_CAIRO_FNS(VS_CAIRO_SYM)
#undef VS_CAIRO_SYM
#define VS_CAIRO_OPT(f) api.f = (__typeof__(f) *)dlsym(h, #f);
  VS_CAIRO_OPTIONAL_FNS(VS_CAIRO_OPT)
#undef VS_CAIRO_OPT
  loaded = 1;
}

const vs_cairo_api *vs_view_cairo(void) {
  pthread_once(&once, load);
  return loaded ? &api : NULL;
}

vs_status vs_view_cairo_load(vs_error *err) {
  if (vs_view_cairo()) return VS_OK;
  return vs_error_set(err, VS_ERR_UNSUPPORTED, NULL, 0, 0, "cannot load cairo for drawing: %s", why);
}

int vs_view_cairo_loaded(void) { return loaded; }

int vs_view_cairo_has_vector(int pdf) {
  const vs_cairo_api *a = vs_view_cairo();
  return a && (pdf ? a->cairo_pdf_surface_create_for_stream != NULL
                   : a->cairo_svg_surface_create_for_stream != NULL);
}
