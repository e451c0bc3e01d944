/* SPDX-License-Identifier: MIT */
/* cairo_dl.h (private to lib/view): cairo through dlopen.  The program
 * should not load cairo and the ~15 libraries it brings (fontconfig,
 * freetype, pixman, png, X11, ...) into every `vsim run` for the sake of
 * `vsim render` and `vsim plot` (docs/performance.md, start-up): lib/view
 * includes this header instead of <cairo.h>, and each cairo function it
 * calls goes through a table that vs_view_cairo() fills on first use from
 * libcairo.so.2.  Where the program already has cairo linked (tests,
 * libvsim.so), dlopen returns that copy. */
#ifndef VSIM_VIEW_CAIRO_DL_H
#define VSIM_VIEW_CAIRO_DL_H

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "vsim/error.h"

/* every cairo function lib/view calls */
#define VS_CAIRO_FNS(X) \
  X(cairo_arc) \
  X(cairo_clip) \
  X(cairo_close_path) \
  X(cairo_create) \
  X(cairo_debug_reset_static_data) \
  X(cairo_destroy) \
  X(cairo_fill) \
  X(cairo_fill_preserve) \
  X(cairo_image_surface_create) \
  X(cairo_image_surface_get_data) \
  X(cairo_image_surface_get_stride) \
  X(cairo_line_to) \
  X(cairo_move_to) \
  X(cairo_paint) \
  X(cairo_pattern_add_color_stop_rgb) \
  X(cairo_pattern_create_linear) \
  X(cairo_pattern_create_radial) \
  X(cairo_pattern_destroy) \
  X(cairo_rectangle) \
  X(cairo_restore) \
  X(cairo_rotate) \
  X(cairo_save) \
  X(cairo_select_font_face) \
  X(cairo_set_dash) \
  X(cairo_set_font_size) \
  X(cairo_set_line_cap) \
  X(cairo_set_line_join) \
  X(cairo_set_line_width) \
  X(cairo_set_source) \
  X(cairo_set_source_rgb) \
  X(cairo_set_source_surface) \
  X(cairo_show_text) \
  X(cairo_status) \
  X(cairo_status_to_string) \
  X(cairo_stroke) \
  X(cairo_surface_destroy) \
  X(cairo_surface_finish) \
  X(cairo_surface_flush) \
  X(cairo_surface_mark_dirty) \
  X(cairo_surface_status) \
  X(cairo_surface_write_to_png_stream) \
  X(cairo_text_extents) \
  X(cairo_translate) \

/* those a cairo built without a backend lacks: NULL then, and only the
 * formats that need them fail ("this cairo cannot write SVG") */
#define VS_CAIRO_OPTIONAL_FNS(X) \
  X(cairo_pdf_surface_create_for_stream) \
  X(cairo_svg_surface_create_for_stream) \

typedef struct vs_cairo_api {
#define VS_CAIRO_MEMBER(f) __typeof__(f) *f;
  VS_CAIRO_FNS(VS_CAIRO_MEMBER)
  VS_CAIRO_OPTIONAL_FNS(VS_CAIRO_MEMBER)
#undef VS_CAIRO_MEMBER
} vs_cairo_api;

/* The table, loaded on the first call (thread-safe); NULL when
 * libcairo.so.2 or one of its functions cannot be loaded. */
__attribute__((visibility("hidden"))) const vs_cairo_api *vs_view_cairo(void);
/* VS_OK once the table is loaded; else VS_ERR_UNSUPPORTED with dlerror's words.
 * The entry points of lib/view call it before any cairo function. */
__attribute__((visibility("hidden"))) vs_status vs_view_cairo_load(vs_error *err);
/* 1 when the loaded cairo can write SVG (pdf = 0) or PDF (pdf = 1). */
__attribute__((visibility("hidden"))) int vs_view_cairo_has_vector(int pdf);
/* 1 when the table was loaded (vs_render_cleanup has nothing to reset otherwise). */
__attribute__((visibility("hidden"))) int vs_view_cairo_loaded(void);

#ifndef VS_CAIRO_DL_IMPL
#define cairo_arc (vs_view_cairo()->cairo_arc)
#define cairo_clip (vs_view_cairo()->cairo_clip)
#define cairo_close_path (vs_view_cairo()->cairo_close_path)
#define cairo_create (vs_view_cairo()->cairo_create)
#define cairo_debug_reset_static_data (vs_view_cairo()->cairo_debug_reset_static_data)
#define cairo_destroy (vs_view_cairo()->cairo_destroy)
#define cairo_fill (vs_view_cairo()->cairo_fill)
#define cairo_fill_preserve (vs_view_cairo()->cairo_fill_preserve)
#define cairo_image_surface_create (vs_view_cairo()->cairo_image_surface_create)
#define cairo_image_surface_get_data (vs_view_cairo()->cairo_image_surface_get_data)
#define cairo_image_surface_get_stride (vs_view_cairo()->cairo_image_surface_get_stride)
#define cairo_line_to (vs_view_cairo()->cairo_line_to)
#define cairo_move_to (vs_view_cairo()->cairo_move_to)
#define cairo_paint (vs_view_cairo()->cairo_paint)
#define cairo_pattern_add_color_stop_rgb (vs_view_cairo()->cairo_pattern_add_color_stop_rgb)
#define cairo_pattern_create_linear (vs_view_cairo()->cairo_pattern_create_linear)
#define cairo_pattern_create_radial (vs_view_cairo()->cairo_pattern_create_radial)
#define cairo_pattern_destroy (vs_view_cairo()->cairo_pattern_destroy)
#define cairo_rectangle (vs_view_cairo()->cairo_rectangle)
#define cairo_restore (vs_view_cairo()->cairo_restore)
#define cairo_rotate (vs_view_cairo()->cairo_rotate)
#define cairo_save (vs_view_cairo()->cairo_save)
#define cairo_select_font_face (vs_view_cairo()->cairo_select_font_face)
#define cairo_set_dash (vs_view_cairo()->cairo_set_dash)
#define cairo_set_font_size (vs_view_cairo()->cairo_set_font_size)
#define cairo_set_line_cap (vs_view_cairo()->cairo_set_line_cap)
#define cairo_set_line_join (vs_view_cairo()->cairo_set_line_join)
#define cairo_set_line_width (vs_view_cairo()->cairo_set_line_width)
#define cairo_set_source (vs_view_cairo()->cairo_set_source)
#define cairo_set_source_rgb (vs_view_cairo()->cairo_set_source_rgb)
#define cairo_set_source_surface (vs_view_cairo()->cairo_set_source_surface)
#define cairo_show_text (vs_view_cairo()->cairo_show_text)
#define cairo_status (vs_view_cairo()->cairo_status)
#define cairo_status_to_string (vs_view_cairo()->cairo_status_to_string)
#define cairo_stroke (vs_view_cairo()->cairo_stroke)
#define cairo_surface_destroy (vs_view_cairo()->cairo_surface_destroy)
#define cairo_surface_finish (vs_view_cairo()->cairo_surface_finish)
#define cairo_surface_flush (vs_view_cairo()->cairo_surface_flush)
#define cairo_pdf_surface_create_for_stream (vs_view_cairo()->cairo_pdf_surface_create_for_stream)
#define cairo_svg_surface_create_for_stream (vs_view_cairo()->cairo_svg_surface_create_for_stream)
#define cairo_surface_mark_dirty (vs_view_cairo()->cairo_surface_mark_dirty)
#define cairo_surface_status (vs_view_cairo()->cairo_surface_status)
#define cairo_surface_write_to_png_stream (vs_view_cairo()->cairo_surface_write_to_png_stream)
#define cairo_text_extents (vs_view_cairo()->cairo_text_extents)
#define cairo_translate (vs_view_cairo()->cairo_translate)
#endif

#endif
