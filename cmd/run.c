/* SPDX-License-Identifier: MIT */
/* run.c: `vsim run [SCENE.yaml] [-o OUT.h5] [options]`.
 *
 * The pipeline of docs/architecture.md in order: scene -> model -> state -> writer, then
 * one vs_step + vs_h5_record per frame.  Everything that can be wrong with
 * the input is found before the output is opened, so that an exit-2 path
 * never leaves or touches a file.  Once the writer is open, every way out
 * (success, non-finite state, write error, a termination signal) finishes
 * the file with a status, so that what was computed stays readable.  The
 * outputs (the result file, its .xmf sidecar) go through the safe output
 * files (cmd/outfile.h), which never replace one of the run's inputs. */
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "outfile.h"
#include "progress.h"
#include "tune.h"

enum {
  OPT_OUTPUT = 1,
  OPT_FORCE,
  OPT_FRAMES,
  OPT_SET,
  OPT_THREADS,
  OPT_MAX_MEMORY,
  OPT_QUIET,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
  OPT_SUMMARY,
  OPT_RESUME,
  OPT_HELP
};

static const cli_opt run_opts[] = {
    {OPT_OUTPUT, "output", 'o', "PATH", "result file [out.h5]"},
    {OPT_FORCE, "force", 'f', NULL, "overwrite PATH if it exists (else that is an error)"},
    {OPT_FRAMES, "frames", 0, "N", "override time.frames"},
    {OPT_SET, "set", 0, "KEY=VALUE",
     "override a scene value by dotted path, VALUE read as YAML (repeatable)"},
    {OPT_THREADS, "threads", 0, "N",
     "at most N solver threads [1], N <= 1024; 0 = all cores; fewer where that is faster "
     "(busy cores, see above); never changes results"},
    {OPT_MAX_MEMORY, "max-memory", 0, "SIZE",
     "refuse a scene whose model and run would take more than SIZE (2G, 500M) "
     "[half the physical memory]"},
    {OPT_QUIET, "quiet", 'q', NULL, "nothing on stderr but errors"},
    {OPT_PROGRESS, "progress", 0, NULL, "progress bar on stderr [on when stderr is a terminal]"},
    {OPT_NO_PROGRESS, "no-progress", 0, NULL, "no progress bar"},
    {OPT_SUMMARY, "summary", 0, "json", "print one JSON object on stdout at the end"},
    {OPT_RESUME, "resume", 0, "OUT.h5",
     "continue the run in OUT.h5 to time.frames (or --frames), in place"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_RUN_OPTS (sizeof run_opts / sizeof run_opts[0])

void cmd_run_help(void) {
  printf(
      "Usage: vsim run [SCENE.yaml] [-o OUT.h5] [options]\n"
      "\n"
      "Simulate SCENE (a YAML file; '-' reads it from standard input; none = the\n"
      "embedded default scene, a cloth falling onto a sphere) and write every\n"
      "recorded frame to OUT.h5 (HDF5, H5MD layout).  The file is written under a\n"
      "temporary name beside OUT and renamed when complete; a failed or interrupted\n"
      "run still leaves a readable file whose status attribute says why, and\n"
      "--resume continues it: the result is bitwise the same as one uninterrupted run.\n"
      "\n"
      "--threads N on a busy machine: threads wait for each other many times a\n"
      "frame, so a core taken by another process can make N threads several times\n"
      "slower than one.  The run starts on the cores that are free, times its\n"
      "frames, now and then tries half or twice the threads, and keeps the faster\n"
      "(at most N; the summary's \"threads_last\" says what it ended on).  The\n"
      "result is the same bits on any number of threads.\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, run_opts, N_RUN_OPTS);
  printf(
      "\n"
      "Examples:\n"
      "  vsim run configs/cloth_sphere.yaml -o cloth.h5 --force\n"
      "  vsim run scene.yaml --set solver.iterations=20 --set world.gravity=[0,-1.62,0]\n"
      "  vsim run scene.yaml --frames 10 --summary json --quiet\n"
      "  vsim run --resume out.h5 --frames 600    (after Ctrl-C, or to run longer)\n"
      "\n"
      "Exit status: 0 complete; 1 the run failed (non-finite state, write error,\n"
      "interrupted); 2 bad usage or bad input (nothing is written).\n");
}

typedef struct run_args {
  const char *scene; /* NULL = embedded default */
  const char *output;
  int force;
  int64_t frames;    /* -1 = from the scene */
  const char **sets; /* (n_sets) */
  size_t n_sets;
  int64_t threads;
  int quiet;
  int progress; /* -1 = auto */
  int summary;
  const char *resume; /* --resume: the result file to continue */
  const char *resume_file; /* what it resolves to (vs_h5_check_resume): read and written */
  int output_given;
} run_args;

/* Returns -1 to go on, else an exit code (help or usage error). */
static int parse_run_args(int argc, char **argv, run_args *a) {
  memset(a, 0, sizeof *a);
  a->output = "out.h5";
  a->frames = -1;
  a->threads = 1;
  a->progress = -1;
  a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
  if (!a->sets) {
    fprintf(stderr, "vsim run: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  cli_parser p;
  cli_init(&p, "run", argc, argv, run_opts, N_RUN_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_BAD:
        return CLI_EXIT_USAGE;
      case CLI_OPERAND:
        if (a->scene)
          return cli_usage_error("run", "one scene at a time (got '%s' and '%s')%s%s", a->scene, v,
                                 strstr(v, ".h5") ? "; the output is given with -o: -o " : "",
                                 strstr(v, ".h5") ? v : "");
        a->scene = v;
        break;
      case OPT_OUTPUT:
        if (!*v) return cli_usage_error("run", "--output: empty path");
        a->output = v;
        a->output_given = 1;
        break;
      case OPT_FORCE:
        a->force = 1;
        break;
      case OPT_FRAMES:
        if (cli_parse_int64("run", "--frames", v, 0, VS_MAX_FRAMES, &a->frames))
          return CLI_EXIT_USAGE;
        break;
      case OPT_SET: {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) return cli_usage_error("run", "--set: expected KEY=VALUE, got '%s'", v);
        a->sets[a->n_sets++] = v;
        break;
      }
      case OPT_MAX_MEMORY: {
        uint64_t bytes;
        if (cli_parse_memory(v, &bytes) != 0)
          return cli_usage_error("run", "--max-memory: '%s' is not a size (e.g. 2G, 500M)", v);
        vs_set_max_memory(bytes);
        break;
      }
      case OPT_THREADS:
        if (cli_parse_int64("run", "--threads", v, 0, VS_CLI_MAX_THREADS, &a->threads))
          return CLI_EXIT_USAGE;
        break;
      case OPT_QUIET:
        a->quiet = 1;
        break;
      case OPT_PROGRESS:
        a->progress = 1;
        break;
      case OPT_NO_PROGRESS:
        a->progress = 0;
        break;
      case OPT_SUMMARY:
        if (strcmp(v, "json") != 0)
          return cli_usage_error("run", "--summary: the only format is 'json', got '%s'", v);
        a->summary = 1;
        break;
      case OPT_RESUME:
        if (!*v) return cli_usage_error("run", "--resume: empty path");
        a->resume = v;
        break;
      case OPT_HELP:
        cmd_run_help();
        return CLI_EXIT_OK;
      default:
        return CLI_EXIT_USAGE;
    }
  }
  if (a->resume) {
    /* The continued run must be the same run: same scene, same file. */
    if (a->scene)
      return cli_usage_error("run", "--resume takes its scene from %s; drop '%s'", a->resume,
                             a->scene);
    if (a->output_given)
      return cli_usage_error("run", "--resume writes into %s itself; drop -o", a->resume);
    if (a->n_sets)
      return cli_usage_error("run",
                             "--resume continues the same scene; --set would change it "
                             "(only --frames may)");
    a->output = a->resume;
  }
  return -1;
}

/* ---- signals: the first termination signal asks the loop to stop after
 * the current frame, and the file is finished as "interrupted" (status
 * attribute, exit 1, resumable, nothing hidden left behind).  Termination
 * signals: every signal whose default action ends the program and that can
 * be caught -- SIGINT, SIGTERM, SIGHUP (a closed terminal), SIGPIPE (a
 * closed pipe under --progress or --summary), SIGXCPU (`ulimit -t`, batch
 * schedulers before SIGKILL), SIGUSR1/2 (Slurm's --signal), SIGALRM,
 * SIGVTALRM, SIGPROF, SIGPOLL, SIGSTKFLT, SIGPWR and the real-time signals --
 * except those that report a fault of the program itself (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP) and SIGQUIT, which asks for a
 * core dump on purpose.  A signal the program was started with ignored
 * (nohup's SIGHUP), or handled by something else in the process (a
 * profiler's SIGPROF), is left as it was; SIGPIPE is taken in every case.
 *
 * A second SIGINT, SIGTERM or SIGHUP (a second Ctrl-C: someone insists)
 * removes the temporary file and dies of the signal as usual.  Any other
 * signal only asks once: timers and CPU limits repeat by themselves (SIGXCPU
 * comes every second past the soft limit), and a closed pipe raises SIGPIPE
 * at every write, so that a repeat must not throw away the frames run.
 *
 * The handlers are installed just before the writer opens (loading and
 * compiling a scene have nothing to clean up, so a signal there simply ends
 * the program) and removed once the file is finished. */

static volatile sig_atomic_t g_stop;
static char g_temp_path[4096];
static struct sigaction g_old[NSIG];
static unsigned char g_taken[NSIG];
static sigset_t g_handled;

static int insists(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP; }

static void on_signal(int sig) {
  if (g_stop && insists(sig)) {
    if (g_temp_path[0]) unlink(g_temp_path);
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if (!g_stop) g_stop = sig;
}

/* Catch sig with sa unless it was ignored at start (nohup) or is handled
 * by something else in the process (a profiler's SIGPROF); `always`:
 * SIGPIPE and SIGXFSZ, which the run must handle itself. */
static void take_signal(int sig, const struct sigaction *sa, int always) {
  if (sig <= 0 || sig >= NSIG || sigaction(sig, NULL, &g_old[sig]) != 0) return;
  if (!always && ((g_old[sig].sa_flags & SA_SIGINFO) || g_old[sig].sa_handler != SIG_DFL)) return;
  if (sigaction(sig, sa, NULL) != 0) return;
  g_taken[sig] = 1;
  sigaddset(&g_handled, sig);
}

static void install_signals(void) {
  g_temp_path[0] = '\0';
  g_stop = 0;
  memset(g_taken, 0, sizeof g_taken);
  sigemptyset(&g_handled);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < cli_stop_signal_count; i++)
    take_signal(cli_stop_signals[i], &sa, 0);
#ifdef SIGRTMIN
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) take_signal(sig, &sa, 0);
#endif
  take_signal(SIGPIPE, &sa, 1);
  /* Over a file-size limit (ulimit -f) the default action kills us and
   * leaves the temporary file; ignored, the write fails with EFBIG and the
   * run ends like any failed write: a message, exit 1, nothing left. */
  sa.sa_handler = SIG_IGN;
  take_signal(SIGXFSZ, &sa, 1);
}

/* Tell the handler which file to remove; signals are held meanwhile so that
 * it never sees half a path. */
static void set_signal_temp_path(const char *path) {
  sigset_t old;
  sigprocmask(SIG_BLOCK, &g_handled, &old);
  snprintf(g_temp_path, sizeof g_temp_path, "%s", path ? path : "");
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static void restore_signals(void) {
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  /* After an interrupt, a signal that asks only once stays ignored until
   * the program exits: a timer or a CPU limit repeats by itself, and its
   * default action would kill the program between the finished file and
   * its message and exit status (1, interrupted). */
  for (int sig = 1; sig < NSIG; sig++)
    if (g_taken[sig] && sig != SIGPIPE)
      sigaction(sig, g_stop && !insists(sig) ? &ign : &g_old[sig], NULL);
  /* the messages that follow a run stopped by a closed pipe go to that
   * pipe: they fail with EPIPE instead of killing the finished run */
  sigaction(SIGPIPE, &ign, NULL);
  memset(g_taken, 0, sizeof g_taken);
  g_temp_path[0] = '\0';
}

static vs_status load_scene(const run_args *a, const char *scene_name, const vs_override *sets,
                            size_t n_sets, vs_scene **scene, vs_error *err) {
  if (a->resume) {
    /* the scene after defaults and --set, as the interrupted run used it,
     * its OBJ files where that run read them */
    return vs_h5_resume_scene(a->resume_file, scene_name, sets, n_sets, scene, err);
  }
  if (!a->scene) {
    const char *text = vs_scene_default_text();
    return vs_scene_load_string(text, strlen(text), "<default>", sets, n_sets, scene, err);
  }
  if (strcmp(a->scene, "-") == 0) {
    size_t len = 0;
    char *text = cli_read_stdin(&len, err);
    if (!text) return err->code;
    vs_status st = vs_scene_load_string(text, len, "<stdin>", sets, n_sets, scene, err);
    free(text);
    return st;
  }
  return vs_scene_load_file(a->scene, sets, n_sets, scene, err);
}

/* What the summary reports, gathered while running. */
typedef struct run_stats {
  int observe;        /* measure constraint error every frame */
  double final_error; /* max |C| over all constraints, last frame */
  double max_error;   /* the largest of those over the run */
  double final_penetration;
} run_stats;

static void observe(const vs_model *m, const vs_state *s, run_stats *rs) {
  if (!rs->observe) return;
  vs_observables obs;
  vs_observe(m, s, &obs, NULL);
  rs->final_error = obs.all.max;
  rs->final_penetration = obs.penetration_max;
  if (obs.all.max > rs->max_error || obs.all.max != obs.all.max) rs->max_error = obs.all.max;
}

static void print_summary(const run_args *a, const vs_model *m, const vs_state *s, int64_t done,
                          const char *status, const run_stats *rs, double wall,
                          const thread_tuner *tuner, const char *message) {
  FILE *f = stdout;
  fputs("{\"status\":", f);
  cli_json_string(f, status);
  fprintf(f,
          ",\"frames\":%lld,\"frames_requested\":%lld,\"particles\":%d,\"constraints\":%d,"
          "\"colors\":%d,",
          (long long)done, (long long)m->frames, m->n_particles, m->n_constraints, m->n_colors);
  fputs("\"final_constraint_error\":", f);
  cli_json_number(f, rs->final_error);
  fputs(",\"max_constraint_error\":", f);
  cli_json_number(f, rs->max_error);
  fputs(",\"final_penetration\":", f);
  cli_json_number(f, rs->final_penetration);
  fprintf(f, ",\"constraints_alive\":%lld", (long long)s->n_alive);
  fputs(",\"wall_seconds\":", f);
  cli_json_number(f, wall);
  /* --threads (resolved), what the last frame ran on, and how often the
   * count changed between frames (see tune.h) */
  fprintf(f, ",\"threads\":%d,\"threads_last\":%d,\"thread_changes\":%ld", tuner->max,
          tuner->cur, tuner->changes);
  fputs(",\"output\":", f);
  cli_json_string(f, a->output);
  if (message) {
    fputs(",\"message\":", f);
    cli_json_string(f, message);
  }
  fputs("}\n", f);
  fflush(f);
}

/* "vsim run --resume PATH", PATH quoted for a POSIX shell when it needs it. */
static void resume_command(const char *path, char *buf, size_t size) {
  const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+,:=@%";
  if (path[0] && path[strspn(path, safe)] == '\0') {
    snprintf(buf, size, "vsim run --resume %s", path);
    return;
  }
  size_t n = (size_t)snprintf(buf, size, "vsim run --resume '");
  for (const char *p = path; *p && n + 6 < size; p++) {
    if (*p == '\'') {
      memcpy(buf + n, "'\\''", 4); /* close, escaped quote, reopen */
      n += 4;
    } else {
      buf[n++] = *p;
    }
  }
  buf[n++] = '\'';
  buf[n] = '\0';
}

/* Whether the run writes the ParaView sidecar beside its file. */
static int wants_sidecar(const vs_model *model) {
  return model->output.xdmf && (model->output.fields & VS_FIELD_POSITION) &&
         (model->n_particles > 0 || model->n_rigid > 0);
}

/* Everything from the open writer to the finished file.  Returns the exit code. */
static int simulate(const run_args *a, const char *scene_name, const vs_model *model,
                    vs_state *state, vs_h5_writer *w) {
  vs_error err;
  vs_error_clear(&err);
  run_stats rs = {.observe = a->summary};
  int show_progress = !a->quiet && (a->progress == 1 || (a->progress < 0 && isatty(2)));
  cli_progress bar;

  set_signal_temp_path(vs_h5_temp_path(w));
  double t0 = cli_now();
  const int64_t start = state->frame; /* 0, or where a resumed file ends */
  progress_start(&bar, show_progress, start, model->frames);

  const char *status = "complete";
  vs_status st = vs_h5_record(w, model, state, &err);
  int write_failed = st != VS_OK;
  int step_failed = 0;
  int64_t done = start; /* frames stepped, recorded and finite */
  observe(model, state, &rs);
  progress_update(&bar, done);
  thread_tuner tuner;
  tuner_init(&tuner, state->threads, state->threads > 1 ? tuner_free_cores() : 1);
  while (st == VS_OK && state->frame < model->frames) {
    if (g_stop) break;
    state->threads = tuner_threads(&tuner);
    const double ts = cli_now();
    st = vs_step(model, state, &err);
    tuner_frame(&tuner, cli_now() - ts);
    if (st != VS_OK) {
      step_failed = 1;
      break;
    }
    st = vs_h5_record(w, model, state, &err);
    if (st != VS_OK) {
      write_failed = 1;
      break;
    }
    done = state->frame;
    observe(model, state, &rs);
    progress_update(&bar, done);
  }
  /* the frames handed to the writer's thread: a write that failed after
   * the last vs_h5_record fails the run as it would have there */
  if (st == VS_OK) {
    st = vs_h5_wait(w, &err);
    write_failed = st != VS_OK;
  }
  double wall = cli_now() - t0;
  progress_end(&bar);
  int interrupted = st == VS_OK && g_stop && done < model->frames;
  if (write_failed || step_failed)
    status = "failed";
  else if (interrupted)
    status = "interrupted";

  char message[2048] = "";
  if (st != VS_OK) {
    vs_error_format(&err, message, sizeof message);
    cli_report(&err, write_failed ? a->output : scene_name);
  }

  vs_error ferr;
  vs_error_clear(&ferr);
  /* The ParaView sidecar, for interrupted and failed runs too: it names
   * the file under its final name, written once the file is published. */
  vs_status xst = VS_OK;
  vs_error xerr;
  vs_error_clear(&xerr);
  int sidecar = wants_sidecar(model);
  vs_status fst = vs_h5_finish_xdmf(w, status, wall, &ferr, sidecar ? &xst : NULL, &xerr);
  restore_signals();
  if (xst != VS_OK) cli_report(&xerr, a->output);

  int code = CLI_EXIT_OK;
  if (fst == VS_ERR_EXISTS) {
    /* another run published the same new name first (outfile.h): its file
     * stands, this one's is removed */
    fprintf(stderr, "vsim: %s: exists (another run created it while this one ran); "
            "use -f/--force to overwrite it\n", cli_esc(a->output));
    if (!message[0]) vs_error_format(&ferr, message, sizeof message);
    status = "failed";
    code = CLI_EXIT_USAGE;
  } else if (fst != VS_OK) {
    cli_report(&ferr, a->output);
    fprintf(stderr, "vsim: run failed after %lld of %lld frames; %s could not be written (%s)\n",
            (long long)done, (long long)model->frames, cli_esc(a->output),
            a->resume ? "it is as it was before --resume" : "no file was left there");
    if (!message[0]) vs_error_format(&ferr, message, sizeof message);
    status = "failed";
    code = CLI_EXIT_FAIL;
  } else if (st != VS_OK) {
    /* The file ends at its last good frame with a checkpoint.  A write
     * error (a full disk) can be resumed once fixed; a step that failed
     * would fail again from the same checkpoint, bit for bit. */
    char resume[4200];
    resume_command(a->output, resume, sizeof resume);
    fprintf(stderr,
            "vsim: run failed after %lld of %lld frames; %s holds them (status \"failed\"); %s%s\n",
            (long long)done, (long long)model->frames, cli_esc(a->output),
            write_failed ? "once writing works again, continue with: "
                         : "resuming would fail the same way: change the scene and run it again",
            write_failed ? cli_esc(resume) : "");
    code = CLI_EXIT_FAIL;
  } else if (interrupted) {
    snprintf(message, sizeof message, "interrupted by signal %d after frame %lld", (int)g_stop,
             (long long)done);
    char resume[4200];
    resume_command(a->output, resume, sizeof resume);
    fprintf(stderr,
            "vsim: interrupted after %lld of %lld frames; %s holds them (status \"interrupted\"); "
            "continue with: %s\n",
            (long long)done, (long long)model->frames, cli_esc(a->output), cli_esc(resume));
    code = CLI_EXIT_FAIL;
  } else if (!a->quiet) {
    if (a->resume)
      fprintf(stderr, "vsim: resumed %s from frame %lld: %lld frames, %d particles, %.3g s",
              cli_esc(a->output), (long long)start, (long long)done, model->n_particles, wall);
    else
      fprintf(stderr, "vsim: wrote %s: %lld frames, %d particles, %d constraints, %.3g s",
              cli_esc(a->output), (long long)done, model->n_particles, model->n_constraints, wall);
    if (wall > 0 && done > start)
      fprintf(stderr, " (%.4g frames/s)", (double)(done - start) / wall);
    fputc('\n', stderr);
  }
  if (xst != VS_OK && code == CLI_EXIT_OK) code = CLI_EXIT_FAIL;
  if (a->summary)
    print_summary(a, model, state, done, status, &rs, wall, &tuner, message[0] ? message : NULL);
  return code;
}

/* Errors about the resolved --resume file name it as the user gave it. */
static void name_as_given(const run_args *a, vs_error *err) {
  if (a->resume && a->resume_file && strcmp(err->file, a->resume_file) == 0)
    snprintf(err->file, sizeof err->file, "%s", a->resume);
}

/* The files the run reads, NULL-terminated (malloc'd; the strings are the
 * scene's and a's): the scene file and the meshes it names.  Neither the
 * result file nor its sidecar may replace one (`-o s.yaml --force`, a
 * scene named out.xmf, -o over a mesh), even with --force. */
static const char **run_inputs(const run_args *a, const vs_scene *scene) {
  const char **in = calloc(2 + scene->n_bodies + scene->n_colliders, sizeof *in);
  if (!in) return NULL;
  size_t n = 0;
  if (a->scene && strcmp(a->scene, "-") != 0) in[n++] = a->scene;
  for (size_t i = 0; i < scene->n_bodies; i++)
    if (scene->bodies[i].mesh.file) in[n++] = scene->bodies[i].mesh.file;
  for (size_t i = 0; i < scene->n_colliders; i++)
    if (scene->colliders[i].mesh.file) in[n++] = scene->colliders[i].mesh.file;
  return in;
}

/* The outputs are checked before the run (outfile.h): the result file
 * (--resume: vs_h5_check_resume did), then the sidecar's name (a regular
 * file is replaced; a link, a special file or an input refused), so that a
 * planted out.xmf stops the run before it starts (exit 2, nothing written)
 * instead of failing it at the end. */
static vs_status check_outputs(const run_args *a, const vs_model *model,
                               const char *const *inputs, vs_error *err) {
  vs_status st = VS_OK;
  if (!a->resume)
    st = vs_outfile_check(a->output, a->force ? VS_OUTFILE_FORCE | VS_OUTFILE_FOLLOW : 0, inputs,
                          err);
  if (st != VS_OK || !wants_sidecar(model)) return st;
  char *xmf = vs_xdmf_default_path(a->output);
  if (!xmf) return vs_error_set(err, VS_ERR_NOMEM, a->output, 0, 0, "out of memory");
  st = vs_outfile_check(xmf, VS_OUTFILE_FORCE, inputs, err);
  vs_free_buffer(xmf);
  return st;
}

/* A result file that could not be opened: one line (exit code by st). */
static void report_output(const run_args *a, vs_status st, vs_error *err) {
  if (st == VS_ERR_EXISTS) { /* one line, the way out in it (as vsim sweep says it) */
    fprintf(stderr, "vsim: %s: exists; use -f/--force to overwrite it\n", cli_esc(a->output));
  } else {
    name_as_given(a, err);
    cli_report(err, a->output);
  }
}

int cmd_run(int argc, char **argv, const char *command_line) {
  run_args a;
  int code = parse_run_args(argc, argv, &a);
  if (code >= 0) {
    free(a.sets);
    return code;
  }
  /* heap.c: first touches of memory on huge pages.  Not for --resume,
   * whose validating reader forks a child (h5guard_probe.c) that would
   * pay for the huge pages again */
  if (!a.resume) cli_heap_setup();

  /* --set in order, then --frames (so that it wins over --set time.frames). */
  vs_override *sets = calloc(a.n_sets + 1, sizeof *sets);
  char frames_set[64];
  size_t n_sets = 0;
  if (!sets) {
    free(a.sets);
    fprintf(stderr, "vsim: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  for (size_t i = 0; i < a.n_sets; i++) sets[n_sets++].text = a.sets[i];
  if (a.frames >= 0) {
    snprintf(frames_set, sizeof frames_set, "time.frames=%lld", (long long)a.frames);
    sets[n_sets++].text = frames_set;
  }

  vs_error err;
  vs_error_clear(&err);
  vs_scene *scene = NULL;
  vs_model *model = NULL;
  vs_state *state = NULL;
  vs_h5_writer *w = NULL;
  char *yaml = NULL;
  char resumed_name[600];
  snprintf(resumed_name, sizeof resumed_name, "%s (resolved scene)", a.resume ? a.resume : "");
  const char *scene_name = a.resume ? resumed_name : a.scene ? a.scene : "<default>";

  /* --resume: the path is resolved once and the file verified (regular,
   * checkpoint matches its checksum) before anything is sized by it */
  char *resume_file = NULL;
  vs_status st = VS_OK;
  if (a.resume) {
    st = vs_h5_check_resume(a.resume, &resume_file, &err);
    a.resume_file = resume_file;
  }
  if (st == VS_OK) st = load_scene(&a, scene_name, sets, n_sets, &scene, &err);
  if (st == VS_OK) st = vs_model_build(scene, &model, &err);
  if (st == VS_OK) st = vs_state_create(model, &state, &err);
  if (st == VS_OK && a.resume) {
    st = vs_h5_read_checkpoint(a.resume_file, model, state, &err);
    if (st == VS_OK && state->frame > model->frames)
      st = vs_error_set(&err, VS_ERR_USAGE, a.resume, 0, 0,
                        "already holds frame %lld; --frames %lld would not continue it",
                        (long long)state->frame, (long long)model->frames);
  }
  if (st == VS_OK) {
    state->threads = a.threads > 0 ? (int)a.threads : omp_get_num_procs();
    if (state->threads < 1) state->threads = 1;
    st = vs_scene_to_yaml(scene, &yaml, &err);
  }
  const char **inputs = NULL;
  if (st == VS_OK && !(inputs = run_inputs(&a, scene)))
    st = vs_error_set(&err, VS_ERR_NOMEM, scene_name, 0, 0, "out of memory");
  if (st != VS_OK) {
    name_as_given(&a, &err);
    cli_report(&err, scene_name);
    code = cli_exit_code(st, CLI_PHASE_INPUT);
  } else if ((st = check_outputs(&a, model, inputs, &err)) != VS_OK) {
    report_output(&a, st, &err);
    code = cli_exit_code(st, CLI_PHASE_WRITING);
  } else {
    vs_h5_run_info info = {
        .command = command_line, .resolved_yaml = yaml, .force = a.force, .inputs = inputs};
    install_signals();
    if (a.resume)
      st = vs_h5_reopen(a.resume_file, model, &info, &w, &err);
    else
      st = vs_h5_open(a.output, scene, model, &info, &w, &err);
    if (st != VS_OK) {
      restore_signals();
      report_output(&a, st, &err);
      /* The writer says VS_ERR_USAGE for a path that cannot be used (exit 2)
       * and VS_ERR_IO only when writing failed (a full disk: exit 1). */
      code = cli_exit_code(st, CLI_PHASE_WRITING);
    } else {
      code = simulate(&a, scene_name, model, state, w);
    }
  }
  free(inputs);

  vs_free_buffer(yaml);
  vs_free_buffer(resume_file);
  vs_state_free(state);
  vs_model_free(model);
  vs_scene_free(scene);
  free(sets);
  free(a.sets);
  return code;
}
