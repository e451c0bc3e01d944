/* SPDX-License-Identifier: MIT */
/* validate.c: `vsim validate SCENE.yaml [--set KEY=VALUE]...`: load and
 * compile a scene, print what it builds, simulate nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

enum { OPT_SET = 1, OPT_FRAMES, OPT_HELP };

static const cli_opt validate_opts[] = {
    {OPT_SET, "set", 0, "KEY=VALUE",
     "override a scene value by dotted path, VALUE read as YAML (repeatable)"},
    {OPT_FRAMES, "frames", 0, "N", "override time.frames"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_VALIDATE_OPTS (sizeof validate_opts / sizeof validate_opts[0])

void cmd_validate_help(void) {
  printf(
      "Usage: vsim validate SCENE.yaml [--set KEY=VALUE]...\n"
      "\n"
      "Parse SCENE, apply the overrides, check every key, type, range and particle\n"
      "reference, compile the model and print a summary of what it builds: particles,\n"
      "constraints by kind, colliders, colours, solver and time settings.  Nothing is\n"
      "simulated and nothing is written.  SCENE '-' reads standard input.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, validate_opts, N_VALIDATE_OPTS);
  printf("\nExit status: 0 the scene is valid; 2 it is not (the message says where).\n");
}

/* Enum words from the scene format's own tables (vs_scene_name). */
static const char *name_of(vs_scene_names which, int value) {
  const char *n = vs_scene_name(which, value);
  return n ? n : "?";
}

/* What a kind's line says after its count; every kind is listed, so a new
 * row of VS_KINDS fails the build here until its line is decided. */
static void print_kind_detail(const vs_model *m, vs_kind k) {
  switch (k) {
  case VS_KIND_DISTANCE: {
    int64_t role[5] = {0}, one_sided = 0, tear = 0;
    for (int32_t i = 0; i < m->n_dist; i++) {
      if (m->dist_role[i] < 5) role[m->dist_role[i]]++;
      if (m->dist_side[i] != VS_SIDE_EQUAL) one_sided++;
      if (m->dist_tear[i] > 0) tear++;
    }
    printf(" (stretch %lld, shear %lld, bend %lld, explicit %lld, limits %lld;"
           " one-sided %lld, can tear %lld)",
           (long long)role[VS_ROLE_STRETCH], (long long)role[VS_ROLE_SHEAR],
           (long long)role[VS_ROLE_BEND], (long long)role[VS_ROLE_EXPLICIT],
           (long long)role[VS_ROLE_LIMIT], (long long)one_sided, (long long)tear);
    break;
  }
  case VS_KIND_PIN: {
    int64_t kinematic = 0;
    for (int32_t i = 0; i < m->n_pin; i++)
      if (m->pin_nkeys[i] > 0) kinematic++;
    printf(" (kinematic %lld)", (long long)kinematic);
    break;
  }
  case VS_KIND_ANGLE: break;
  }
}

static void print_model(const vs_scene *s, const vs_model *m) {
  int64_t pinned = 0;
  for (int32_t i = 0; i < m->n_particles; i++)
    if (m->x0[4 * i + 3] == 0.0) pinned++;
  printf("scene        %s\n", s->file ? s->file : "?");
  printf("name         %s\n", s->name);
  printf("particles    %d (%lld pinned)\n", m->n_particles, (long long)pinned);

  printf("bodies       %d\n", m->n_bodies);
  for (int32_t b = 0; b < m->n_bodies; b++) {
    const vs_body_info *bi = &m->bodies[b];
    if (bi->kind == VS_BODY_RIGID) {
      int32_t r = 0;
      while (r < m->n_rigid && m->rigid_body[r] != b) r++;
      if (r < m->n_rigid) {
        const double *sz = &m->rigid_size[3 * r];
        printf("  %-10s %-9s %s [%g, %g, %g], mass %g kg\n", bi->name, name_of(VS_NAMES_BODY, (int)bi->kind),
               name_of(VS_NAMES_SHAPE, m->rigid_shape[r]), sz[0], sz[1], sz[2], m->rigid_mass[r]);
        continue;
      }
    }
    printf("  %-10s %-9s %d particle%s", bi->name, name_of(VS_NAMES_BODY, (int)bi->kind), bi->count,
           bi->count == 1 ? "" : "s");
    if (bi->nw > 0)
      printf(", grid %dx%dx%d", bi->nu, bi->nv, bi->nw);
    else if (bi->nu > 0)
      printf(", grid %dx%d", bi->nu, bi->nv);
    putchar('\n');
  }

  printf("constraints  %d\n", m->n_constraints);
  for (int k = 0; k < VS_KIND_COUNT; k++) {
    printf("  %-10s %d", vs_kind_name((vs_kind)k), vs_model_kind_count(m, (vs_kind)k));
    print_kind_detail(m, (vs_kind)k);
    putchar('\n');
  }
  if (m->n_rigid > 0)
    printf("rigid        %d bodies, %d joints, %d attached particles; solver.rigid: iterations "
           "%lld, substeps %lld, baumgarte %g, slop %g m, restitution_threshold %g m/s, warm_start "
           "%s, sleep %s\n",
           m->n_rigid, m->n_rjoints, m->n_attach, (long long)s->rigid.iterations,
           (long long)s->rigid.substeps, s->rigid.baumgarte, s->rigid.slop,
           s->rigid.restitution_threshold, s->rigid.warm_start ? "true" : "false",
           s->rigid.sleep ? "true" : "false");

  /* by the kind table: every kind, mesh colliders included */
  int64_t ck[VS_COLLIDER_KIND_COUNT] = {0};
  for (int32_t i = 0; i < m->n_colliders; i++)
    if ((unsigned)m->colliders[i].kind < VS_COLLIDER_KIND_COUNT) ck[m->colliders[i].kind]++;
  printf("colliders    %d (", m->n_colliders);
  for (int k = 0; k < VS_COLLIDER_KIND_COUNT; k++)
    printf("%s%s %lld", k ? ", " : "", vs_collider_kind_name((vs_collider_kind)k),
           (long long)ck[k]);
  printf(")\n");
  /* each mesh collider: what of its OBJ it keeps, and what it leaves out */
  for (int32_t i = 0; i < m->n_colliders; i++) {
    const vs_collider_mesh *cm = &m->collider_mesh[i];
    if (m->colliders[i].kind != VS_COLLIDER_MESH) continue;
    printf("  mesh %-5d %d triangles, %d vertices", (int)i, cm->n_triangles, cm->n_vertices);
    if (cm->n_duplicate || cm->n_zero_area)
      printf(" (left out: %d repeated, %d of zero area)", cm->n_duplicate, cm->n_zero_area);
    putchar('\n');
  }
  printf("particle collisions  %s\n", m->particle_collisions ? "on" : "off");
  printf("colors       %d\n", m->n_colors);
  printf("integrator   %s\n", name_of(VS_NAMES_INTEGRATOR, (int)m->integrator));
  printf("relaxation   %s (omega %g)\n", name_of(VS_NAMES_RELAXATION, (int)m->relaxation),
         m->omega);
  printf("iterations   %lld per substep\n", (long long)m->iterations);
  printf("time         dt %g s, %lld frames (%g s), substeps %lld (h = %g s)\n", m->dt,
         (long long)m->frames, m->dt * (double)m->frames, (long long)m->substeps, m->h);
  printf("damping      %g 1/s\n", m->damping);
  printf("gravity      [%g, %g, %g] m/s^2\n", m->gravity[0], m->gravity[1], m->gravity[2]);

  const vs_output_desc *o = &m->output;
  printf("output       every %lld frame%s, ", (long long)o->every, o->every == 1 ? "" : "s");
  int first = 1;
  for (int i = 0; vs_scene_name(VS_NAMES_FIELD, i); i++) {
    if (o->fields & (1u << i)) {
      printf("%s%s", first ? "" : "+", name_of(VS_NAMES_FIELD, i));
      first = 0;
    }
  }
  if (first) printf("no fields");
  printf(", %s, gzip %d\n", name_of(VS_NAMES_PRECISION, o->float32), o->compression);
}

int cmd_validate(int argc, char **argv, const char *command_line) {
  const char *path = NULL;
  vs_override *sets = calloc((size_t)argc + 1, sizeof *sets);
  size_t n_sets = 0;
  char frames_set[64];
  int64_t frames = -1;
  if (!sets) {
    fprintf(stderr, "vsim validate: out of memory\n");
    return CLI_EXIT_FAIL;
  }

  cli_parser p;
  cli_init(&p, "validate", argc, argv, validate_opts, N_VALIDATE_OPTS);
  const char *v;
  int id, code = -1;
  while (code < 0 && (id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        if (path)
          code = cli_usage_error("validate", "one scene at a time (got '%s' and '%s')", path, v);
        path = v;
        break;
      case OPT_SET:
        if (!strchr(v, '=') || v[0] == '=')
          code = cli_usage_error("validate", "--set: expected KEY=VALUE, got '%s'", v);
        else
          sets[n_sets++].text = v;
        break;
      case OPT_FRAMES:
        if (cli_parse_int64("validate", "--frames", v, 0, VS_MAX_FRAMES, &frames))
          code = CLI_EXIT_USAGE;
        break;
      case OPT_HELP:
        cmd_validate_help();
        code = CLI_EXIT_OK;
        break;
      default:
        code = CLI_EXIT_USAGE;
        break;
    }
  }
  if (code < 0 && !path)
    code = cli_usage_error("validate", "which scene? (vsim validate SCENE.yaml)");
  if (code >= 0) {
    free(sets);
    return code;
  }
  if (frames >= 0) {
    snprintf(frames_set, sizeof frames_set, "time.frames=%lld", (long long)frames);
    sets[n_sets++].text = frames_set;
  }

  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  vs_status st;
  if (strcmp(path, "-") == 0) {
    size_t len = 0;
    char *text = cli_read_stdin(&len, &err);
    st = text ? vs_scene_load_string(text, len, "<stdin>", sets, n_sets, &scene, &err) : err.code;
    free(text);
  } else {
    st = vs_scene_load_file(path, sets, n_sets, &scene, &err);
  }
  if (st == VS_OK) st = vs_model_build(scene, &model, &err);
  if (st != VS_OK) {
    cli_report(&err, path);
    code = cli_exit_code(st, CLI_PHASE_INPUT);
  } else {
    print_model(scene, model);
    code = CLI_EXIT_OK;
  }
  vs_model_free(model);
  vs_scene_free(scene);
  free(sets);
  return code;
}
