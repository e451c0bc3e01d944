/* SPDX-License-Identifier: MIT */
/* h5series.c: what the rows of H5W_SERIES (h5series.h) say about each
 * series slot: its group, unit, and, for a model, whether it is written,
 * its shape and its types. */
#include <stdio.h>
#include <string.h>

#include "io/h5series.h"
#include "io/h5surface.h"

const char *const h5w_stat_names[H5W_STATS] = {
#define STAT_NAME(name, unit) #name,
    H5W_ERROR_STATS(STAT_NAME)
#undef STAT_NAME
};

static const char *const stat_units[H5W_STATS] = {
#define STAT_UNIT(name, unit) unit,
    H5W_ERROR_STATS(STAT_UNIT)
#undef STAT_UNIT
};

/* Creation: the particle series before mass and body, then the observables
 * (constraint_error_*, penetration, constraints_alive, energy, overlap,
 * per_constraint_error, rigid_contacts, joint errors), then /connectivity/alive with the
 * topology. */
const int h5w_create_order[H5W_ROWS] = {H5W_ROW_POS,  H5W_ROW_VEL,   H5W_ROW_RPOS, H5W_ROW_RORI,
                                        H5W_ROW_RVEL, H5W_ROW_RANG,  H5W_ROW_RSURF, H5W_ROW_ERR,  H5W_ROW_PEN,
                                        H5W_ROW_ALIVE, H5W_ROW_KIN,  H5W_ROW_POT,  H5W_ROW_OVL,
                                        H5W_ROW_PER,  H5W_ROW_RCON,  H5W_ROW_RJERR, H5W_ROW_RJANG,
                                        H5W_ROW_LIVE};
/* Recording: arrays first, then the observables. */
const int h5w_record_order[H5W_ROWS] = {H5W_ROW_POS,  H5W_ROW_VEL,  H5W_ROW_RPOS, H5W_ROW_RORI,
                                        H5W_ROW_RVEL, H5W_ROW_RANG, H5W_ROW_RSURF, H5W_ROW_PER,  H5W_ROW_LIVE,
                                        H5W_ROW_ERR,  H5W_ROW_PEN,  H5W_ROW_KIN,  H5W_ROW_POT,
                                        H5W_ROW_OVL,  H5W_ROW_ALIVE, H5W_ROW_RCON, H5W_ROW_RJERR,
                                        H5W_ROW_RJANG};

const int h5w_row_first[H5W_ROWS] = {
#define FIRST(id, ...) S_##id,
    H5W_SERIES(FIRST)
#undef FIRST
};
const int h5w_row_slots[H5W_ROWS] = {
#define SLOTS(id, slots, ...) slots,
    H5W_SERIES(SLOTS)
#undef SLOTS
};

static const struct row {
  int first, slots;
  const char *group;
  int elem, shape;
  const char *unit;
} rows[H5W_ROWS] = {
#define ROW(id, slots, group, elem, shape, written, unit, from) {S_##id, slots, group, elem, shape, unit},
    H5W_SERIES(ROW)
#undef ROW
};

int32_t h5w_kind_count(const vs_model *m, int k) { return vs_model_kind_count(m, (vs_kind)k); }

/* The `written` column of row r for m. */
static int row_written(int r, const vs_model *m) {
  unsigned f = m->output.fields;
  switch (r) {
#define WRITTEN(id, slots, group, elem, shape, written, unit, from) \
  case H5W_ROW_##id: return (written) != 0;
    H5W_SERIES(WRITTEN)
#undef WRITTEN
  default: break;
  }
  (void)f;
  return 0;
}

void h5w_series_describe(int i, const vs_model *m, h5w_series_desc *d) {
  memset(d, 0, sizeof *d);
  int r = 0;
  while (r + 1 < H5W_ROWS && i >= rows[r + 1].first) r++;
  const struct row *row = &rows[r];
  d->row = r;
  d->kind = d->stat = -1;
  d->unit = row->unit;
  if (row->slots > 1) {
    d->kind = (i - row->first) / H5W_STATS;
    d->stat = (i - row->first) % H5W_STATS;
    d->unit = stat_units[d->stat];
    snprintf(d->group, sizeof d->group, "%s%s_error_%s", row->group,
             d->kind < VS_KIND_COUNT ? vs_kind_name((vs_kind)d->kind) : "constraint",
             h5w_stat_names[d->stat]);
  } else {
    snprintf(d->group, sizeof d->group, "%s", row->group);
  }
  if (!m) return;
  d->wanted = row_written(r, m) &&
              (d->kind < 0 || d->kind == VS_KIND_COUNT || h5w_kind_count(m, d->kind) > 0);
  int f32 = row->elem == H5W_EL_REAL && m->output.float32;
  d->ftype = f32 ? H5T_IEEE_F32LE
            : row->elem == H5W_EL_I64 ? H5T_STD_I64LE
            : row->elem == H5W_EL_U8  ? H5T_STD_U8LE
                                      : H5T_IEEE_F64LE;
  d->mtype = f32 ? H5T_NATIVE_FLOAT
            : row->elem == H5W_EL_I64 ? H5T_NATIVE_INT64
            : row->elem == H5W_EL_U8  ? H5T_NATIVE_UINT8
                                      : H5T_NATIVE_DOUBLE;
  switch (row->shape) {
  case H5W_SH_PARTICLE_VEC:
    d->rank = 3;
    d->inner[0] = (hsize_t)m->n_particles;
    d->inner[1] = 3;
    break;
  case H5W_SH_RIGID3:
  case H5W_SH_RIGID4:
    d->rank = 3;
    d->inner[0] = (hsize_t)m->n_rigid;
    d->inner[1] = row->shape == H5W_SH_RIGID3 ? 3 : 4;
    break;
  case H5W_SH_SURFACE: {
    size_t nv, nt;
    h5s_model_counts(m, &nv, &nt);
    d->rank = 3;
    d->inner[0] = (hsize_t)nv;
    d->inner[1] = 3;
    break;
  }
  case H5W_SH_CONSTRAINT:
    d->rank = 2;
    d->inner[0] = (hsize_t)m->n_constraints;
    break;
  default: d->rank = 1; break;
  }
}

int h5w_series_of_value(const char *path) {
  size_t n = strlen(path);
  if (n < 6 || strcmp(path + n - 6, "/value") != 0) return -1;
  for (int i = 0; i < S_COUNT; i++) {
    h5w_series_desc d;
    h5w_series_describe(i, NULL, &d);
    if (strlen(d.group) == n - 6 && strncmp(d.group, path, n - 6) == 0) return i;
  }
  return -1;
}
