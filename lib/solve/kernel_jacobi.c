/* SPDX-License-Identifier: MIT */
/* kernel_jacobi.c: which coloured-Jacobi kernel path runs (kernel_jacobi.h).
 * The CPU is asked once per state, when the state is created; the
 * environment variable VSIM_KERNEL may force a path, for the tests that
 * hold every path to the scalar reference and for measurements. */
#include <stdlib.h>
#include <string.h>

#include "solve/kernel_jacobi.h"

VS_PRIVATE extern const int vs_jacobi_built_sse2, vs_jacobi_built_avx2, vs_jacobi_built_avx512;

#define ONE4 1.0, 1.0, 1.0, 1.0
#define ONE16 ONE4, ONE4, ONE4, ONE4
const double vs_jk_ones[VS_JBLOCK] = {ONE16, ONE16, ONE16, ONE16};
_Static_assert(VS_JBLOCK == 64, "vs_jk_ones holds VS_JBLOCK ones");

static const char *const path_names[VS_JPATH_COUNT] = {"scalar", "sse2", "avx2", "avx512"};

const char *vs_jacobi_path_name(vs_jacobi_path p) {
  return (unsigned)p < VS_JPATH_COUNT ? path_names[p] : "?";
}

int vs_jacobi_path_supported(vs_jacobi_path p) {
  switch (p) {
    case VS_JPATH_SCALAR: return 1;
#if defined(__x86_64__) || defined(__i386__)
    case VS_JPATH_SSE2: return vs_jacobi_built_sse2 && __builtin_cpu_supports("sse2");
    case VS_JPATH_AVX2: return vs_jacobi_built_avx2 && __builtin_cpu_supports("avx2");
    case VS_JPATH_AVX512: return vs_jacobi_built_avx512 && __builtin_cpu_supports("avx512f");
#else
    case VS_JPATH_SSE2:
    case VS_JPATH_AVX2:
    case VS_JPATH_AVX512: return 0;
#endif
    case VS_JPATH_COUNT: break;
  }
  return 0;
}

vs_jacobi_block_fn *vs_jacobi_path_fn(vs_jacobi_path p) {
  switch (p) {
    case VS_JPATH_SSE2: return vs_jacobi_block_sse2;
    case VS_JPATH_AVX2: return vs_jacobi_block_avx2;
    case VS_JPATH_AVX512: return vs_jacobi_block_avx512;
    case VS_JPATH_SCALAR:
    case VS_JPATH_COUNT: break;
  }
  return vs_jacobi_block_scalar;
}

vs_status vs_jacobi_path_select(vs_jacobi_path *out, vs_error *err) {
  const char *want = getenv("VSIM_KERNEL");
  if (!want || !*want || !strcmp(want, "auto")) {
    vs_jacobi_path p = VS_JPATH_AVX512;
    while (p > VS_JPATH_SCALAR && !vs_jacobi_path_supported(p)) p--;
    *out = p;
    return VS_OK;
  }
  for (int p = 0; p < VS_JPATH_COUNT; p++)
    if (!strcmp(want, path_names[p])) {
      if (!vs_jacobi_path_supported((vs_jacobi_path)p))
        return vs_error_set(err, VS_ERR_UNSUPPORTED, NULL, 0, 0,
                            "VSIM_KERNEL=%s: this CPU (or this build) has no %s kernel; "
                            "unset VSIM_KERNEL or use auto to take the widest it has", want, want);
      *out = (vs_jacobi_path)p;
      return VS_OK;
    }
  return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0,
                      "VSIM_KERNEL=%s: unknown kernel path (auto, scalar, sse2, avx2 or avx512)", want);
}
