/* SPDX-License-Identifier: MIT */
/* private.h: what every private library header needs: VS_PRIVATE (hidden
 * visibility: shared between the library's files, never exported) and the
 * allocation functions.  Not installed; not part of the API. */
#ifndef VSIM_UTIL_PRIVATE_H
#define VSIM_UTIL_PRIVATE_H

#include "util/alloc.h"

#define VS_PRIVATE __attribute__((visibility("hidden")))

#endif
