/* body_ragdoll.c: Jakobsen's articulated humanoid (§6).  Not built yet: the
 * joint limits need the angle constraint of issue 5, so a ragdoll answers a
 * clear "not available" error instead of a half-made body. */
#include "bodies.h"

vs_status vs_ragdoll_count(const vs_body_desc *b, vs_body_counts *out, const char *file,
                           vs_error *err) {
  return vs_error_set(err, VS_ERR_UNSUPPORTED, file, b->loc.line, b->loc.column,
                      "bodies.%s: ragdoll bodies are not available in this build yet", b->name);
}

vs_status vs_ragdoll_generate(vs_builder *bld, const vs_body_desc *b, int32_t body,
                              vs_error *err) {
  return vs_ragdoll_count(b, NULL, bld->file, err);
}
