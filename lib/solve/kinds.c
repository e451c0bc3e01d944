/* SPDX-License-Identifier: MIT */
/* kinds.c: the solver's side of the constraint-kind table.  One entry per
 * row of VS_KINDS (vsim/kind.h), filled with that kind's functions
 * vs_<name>_project and vs_<name>_error from lib/solve/con_<name>.c. */
#include "solve/solve.h"

const vs_kind_solver_ops vs_kind_solver[VS_KIND_COUNT] = {
#define VS_KIND_OPS_(ID, name, arity, particles, count) \
  [VS_KIND_##ID] = {vs_##name##_project, vs_##name##_error},
    VS_KINDS(VS_KIND_OPS_)
#undef VS_KIND_OPS_
};

void vs_project_constraint(const vs_solve_ctx *c, int32_t id) {
  const vs_model *m = c->m;
  vs_kind_solver[m->con_kind[id]].project(c, m->con_index[id], id);
}
