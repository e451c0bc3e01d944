/* con_pin.c: explicit pins.  A pinned particle has inverse mass 0, so no
 * projection moves it; a kinematic pin is placed on its key path, linear
 * between [t, x, y, z] keys and held before the first and after the last. */
#include "solve/internal.h"

void vs_pin_target(const vs_model *m, int32_t k, double t, double out[3]) {
  const int32_t n = m->pin_nkeys[k];
  if (m->pin_key0[k] < 0 || n == 0) {
    for (int j = 0; j < 3; j++) out[j] = m->pin_at[3 * k + j];
    return;
  }
  const double *keys = &m->pin_keys[4 * (size_t)m->pin_key0[k]];
  if (t <= keys[0]) {
    for (int j = 0; j < 3; j++) out[j] = keys[1 + j];
    return;
  }
  if (t >= keys[4 * (n - 1)]) {
    for (int j = 0; j < 3; j++) out[j] = keys[4 * (n - 1) + 1 + j];
    return;
  }
  /* Binary search for the last key with t_k <= t (t_0 < t < t_last here). */
  int32_t lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (keys[4 * mid] <= t) lo = mid;
    else hi = mid;
  }
  const double *a = &keys[4 * lo], *b = &keys[4 * hi];
  const double f = (t - a[0]) / (b[0] - a[0]);
  for (int j = 0; j < 3; j++) out[j] = a[1 + j] + f * (b[1 + j] - a[1 + j]);
}
