/* SPDX-License-Identifier: MIT */
/* render.c: `vsim render OUT.h5 -o OUT.png|DIR/|OUT.mp4|OUT.gif [options]`:
 * pictures and movies of a result file (the library draws; this file picks
 * the frames, writes under temporary names and pipes movies to ffmpeg). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "outfile.h"
#include "picture.h"
#include "vsim/frames.h"
#include "vsim/render.h"

enum {
  OPT_OUTPUT = 1,
  OPT_FRAME,
  OPT_FRAMES,
  OPT_SIZE,
  OPT_VIEW,
  OPT_COLOR,
  OPT_COMPARE,
  OPT_FPS,
  OPT_FIT,
  OPT_LOOK_AT,
  OPT_CAMERA,
  OPT_ZOOM,
  OPT_HELP
};

static const cli_opt render_opts[] = {
    {OPT_OUTPUT, "output", 'o', "PATH", "OUT.png, OUT.svg, OUT.pdf, DIR/ (numbered PNGs), OUT.mp4 or OUT.gif"},
    {OPT_FRAME, "frame", 0, "K", "the frame to draw (0 first, -1 last) [-1]"},
    {OPT_FRAMES, "frames", 0, "A:B[:S]", "frames A to B (both included) every S [all]"},
    {OPT_SIZE, "size", 0, "WxH", "image size in pixels [800x600]"},
    {OPT_VIEW, "view", 0, "VIEW", "iso, front, side or top [iso]"},
    {OPT_CAMERA, "camera", 0, "X,Y,Z", "look from this point instead of a --view"},
    {OPT_LOOK_AT, "look-at", 0, "X,Y,Z", "the point at the centre of the picture [the bodies' centre]"},
    {OPT_ZOOM, "zoom", 0, "F", "magnify F times (under 1: widen) the fitted picture [1]"},
    {OPT_FIT, "fit", 0, "run|frame", "frame the bodies over every frame, or each frame alone [run]"},
    {OPT_COLOR, "color", 0, "BY", "body, speed or strain [body]"},
    {OPT_COMPARE, "compare", 0, "GOLDEN.h5", "draw this run in grey under the other"},
    {OPT_FPS, "fps", 0, "N", "frames per second of a movie [the run's own pace, 1 to 60]"},
    {OPT_HELP, "help", 'h', NULL, "show this help and exit"},
};
#define N_RENDER_OPTS (sizeof render_opts / sizeof render_opts[0])

void cmd_render_help(void) {
  printf(
      "Usage: vsim render OUT.h5 -o PATH [options]\n"
      "\n"
      "Draw frames of a result file with an orthographic camera: shaded triangles,\n"
      "links, particles at their radius, rigid shapes, colliders (a plane as a grid)\n"
      "and the time, the nearest surface showing at every point.\n"
      "  -o OUT.png            one frame (--frame, default the last)\n"
      "  -o OUT.svg, OUT.pdf   one frame: the picture as an image, the labels as outlines\n"
      "  -o DIR/ --frames A:B  numbered PNGs DIR/frame-NNNNN.png (NNNNN = frame index)\n"
      "  -o OUT.mp4, OUT.gif   a movie, through ffmpeg (must be on PATH)\n"
      "Frames are the recorded frames of the file, 0 to F-1 (vsim info shows F).\n"
      "Outputs are written under a temporary name and renamed when complete; an\n"
      "existing file is replaced, but never a link, a device or FIFO, or the file\n"
      "drawn (docs/cli.md, Output files).\n"
      "\n"
      "Options:\n");
  cli_print_options(stdout, render_opts, N_RENDER_OPTS);
  printf(
      "\n"
      "The camera frames the bodies: particles and rigid bodies, leaving out far\n"
      "strays (of 20 bodies or more, those beyond the 5-95 percentile box widened\n"
      "by half its size), with the colliders about their size (a table, not a\n"
      "plane or a floor mesh many times larger); --fit run (default) over every\n"
      "frame, so that the camera holds still, --fit frame around each frame drawn.\n"
      "--camera X,Y,Z looks from that point towards the centre (--look-at, else\n"
      "the framed bodies' centre), y up; the picture is orthographic, so the\n"
      "distance does not change the size: --zoom does (2: twice as large).\n"
      "\n"
      "--color speed uses the recorded velocity, else the positions of consecutive\n"
      "frames; --color strain is each link's length change relative to frame 0.\n"
      "--compare draws the golden run's frame nearest in time in grey, so that a\n"
      "failing regression shows where the runs went apart.\n"
      "\n"
      "Exit status: 0 done; 1 writing failed; 2 bad usage, a missing or foreign\n"
      "file, a frame out of range, an unwritable output, or no ffmpeg for a movie.\n");
}

typedef enum { OUT_PNG, OUT_DIR, OUT_MOVIE } out_kind; /* OUT_PNG: one picture, PNG, SVG or PDF */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* "A:B[:S]" with A or B possibly empty (first, last); negative from the end. */
static int parse_range(const char *s, long long F, long long *a, long long *b, long long *step,
                       const char *path) {
  long long v[3] = {0, F - 1, 1};
  int given[3] = {0, 0, 0};
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    if (*p && *p != ':') {
      char *end;
      errno = 0;
      v[i] = strtoll(p, &end, 10);
      if (end == p || errno) goto bad;
      given[i] = 1;
      p = end;
    }
    if (*p == '\0') {
      if (i == 0) goto bad; /* needs at least one ':' */
      break;
    }
    if (*p != ':' || i == 2) goto bad;
    p++;
  }
  if (given[2] && v[2] < 1) goto bad;
  for (int i = 0; i < 2; i++)
    if (given[i] && v[i] < 0) v[i] += F;
  for (int i = 0; i < 2; i++)
    if (v[i] < 0 || v[i] >= F) {
      fprintf(stderr, "vsim: %s: frame %lld out of range: the file has frames 0 to %lld\n",
              cli_esc(path),
              given[i] && v[i] < 0 ? v[i] - F : v[i], F - 1);
      return -1;
    }
  if (v[0] > v[1]) {
    fprintf(stderr, "vsim: render: --frames %s: the first frame is after the last\n", cli_esc(s));
    return -1;
  }
  *a = v[0], *b = v[1], *step = v[2];
  return 0;
bad:
  cli_usage_error("render", "--frames: expected A:B or A:B:S (S >= 1), got '%s'", s);
  return -1;
}

/* Is prog an executable file in one of PATH's directories? */
static int on_path(const char *prog) {
  const char *path = getenv("PATH");
  if (!path || !*path) return 0;
  char *copy = strdup(path);
  int found = 0;
  for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
       d = strtok_r(NULL, ":", &save)) {
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", *d ? d : ".", prog);
    struct stat st;
    found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
  }
  free(copy);
  return found;
}

typedef struct job {
  vs_frames *f;
  vs_renderer *r;
  long long a, b, step;
  int w, h;
} job;

static int fail(const vs_error *err, const char *file, cli_phase phase) {
  cli_report(err, file);
  return cli_exit_code(err->code, phase);
}

/* The library writes the picture through the safe output files
 * (cmd/outfile.h): a temporary file beside it, renamed over it. */
static int render_png(job *j, long long k, const char *out) {
  vs_error err;
  vs_error_clear(&err);
  if (vs_renderer_write(j->r, (size_t)k, out, &err) != VS_OK)
    return fail(&err, out, err.code == VS_ERR_IO ? CLI_PHASE_WRITING : CLI_PHASE_INPUT);
  return CLI_EXIT_OK;
}

static int render_dir(job *j, const char *dir) {
  struct stat st;
  int made = 0;
  if (stat(dir, &st) != 0) {
    if (mkdir(dir, 0777) != 0) {
      fprintf(stderr, "vsim: %s: cannot create: %s\n", cli_esc(dir), strerror(errno));
      return CLI_EXIT_USAGE;
    }
    made = 1;
  } else if (!S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
    fprintf(stderr, "vsim: %s: cannot write: %s\n", cli_esc(dir),
            S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
    return CLI_EXIT_USAGE;
  }
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/') dl--;
  int code = CLI_EXIT_OK;
  long long k;
  for (k = j->a; k <= j->b && code == CLI_EXIT_OK; k += j->step) {
    char path[4200];
    snprintf(path, sizeof path, "%.*s/frame-%05lld.png", (int)dl, dir, k);
    code = render_png(j, k, path);
  }
  if (code != CLI_EXIT_OK) {
    /* nothing left behind: the frames of this run, and the directory it made */
    for (long long i = j->a; i < k - j->step; i += j->step) {
      char path[4200];
      snprintf(path, sizeof path, "%.*s/frame-%05lld.png", (int)dl, dir, i);
      unlink(path);
    }
    if (made) rmdir(dir);
  }
  return code;
}

/* Write all of buf to fd; 0, or -1 with errno. */
static int write_all(int fd, const uint8_t *buf, size_t n) {
  while (n) {
    ssize_t w = write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* ffmpeg writes the movie into the temporary file of the safe output
 * files (cmd/outfile.h), created beside it exclusively under a name no one
 * can guess, and published over it when ffmpeg succeeded. */
static int render_movie(job *j, const char *out, double fps, const char *const *inputs) {
  int gif = ends_with(out, ".gif");
  char size[32], rate[32];
  snprintf(size, sizeof size, "%dx%d", j->w, j->h);
  snprintf(rate, sizeof rate, "%g", fps);
  vs_outfile of;
  vs_error err;
  vs_error_clear(&err);
  vs_status st = vs_outfile_create(out, VS_OUTFILE_FORCE, inputs, &of, &err);
  if (st != VS_OK) return fail(&err, out, st == VS_ERR_IO ? CLI_PHASE_WRITING : CLI_PHASE_INPUT);
  const char *tmp = of.tmp;
  uint8_t *rgb = malloc((size_t)j->w * j->h * 3);
  if (!rgb) {
    vs_outfile_discard(&of);
    return fprintf(stderr, "vsim: out of memory\n"), CLI_EXIT_FAIL;
  }
  const char *argv_gif[] = {"ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                            "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-r", rate, "-i",
                            "-", "-vf", "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-f",
                            "gif", tmp, NULL};
  const char *argv_mp4[] = {"ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                            "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-r", rate, "-i",
                            "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264",
                            "-pix_fmt", "yuv420p", "-f", "mp4", tmp, NULL};
  int fds[2];
  if (pipe(fds) != 0) {
    fprintf(stderr, "vsim: render: pipe: %s\n", strerror(errno));
    vs_outfile_discard(&of);
    free(rgb);
    return CLI_EXIT_FAIL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[1]);
    if (dup2(fds[0], 0) < 0) _exit(127);
    close(fds[0]);
    execvp("ffmpeg", (char *const *)(gif ? argv_gif : argv_mp4));
    _exit(127);
  }
  close(fds[0]);
  int code = CLI_EXIT_OK;
  if (pid < 0) {
    fprintf(stderr, "vsim: render: cannot start ffmpeg: %s\n", strerror(errno));
    close(fds[1]);
    vs_outfile_discard(&of);
    free(rgb);
    return CLI_EXIT_FAIL;
  }
  void (*old)(int) = signal(SIGPIPE, SIG_IGN);
  for (long long k = j->a; k <= j->b && code == CLI_EXIT_OK; k += j->step) {
    if (vs_renderer_rgb(j->r, (size_t)k, rgb, &err) != VS_OK) {
      code = fail(&err, vs_frames_path(j->f), CLI_PHASE_WRITING);
    } else if (write_all(fds[1], rgb, (size_t)j->w * j->h * 3) != 0) {
      fprintf(stderr, "vsim: %s: ffmpeg stopped reading: %s\n", cli_esc(out), strerror(errno));
      code = CLI_EXIT_FAIL;
    }
  }
  close(fds[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  signal(SIGPIPE, old);
  if (code == CLI_EXIT_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    fprintf(stderr, "vsim: %s: ffmpeg failed (%s %d)\n", cli_esc(out),
            WIFEXITED(status) ? "exit status" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    code = CLI_EXIT_FAIL;
  }
  if (code == CLI_EXIT_OK) {
    st = vs_outfile_publish(&of, &err);
    if (st != VS_OK) code = fail(&err, out, st == VS_ERR_IO ? CLI_PHASE_WRITING : CLI_PHASE_INPUT);
  } else {
    vs_outfile_discard(&of);
  }
  free(rgb);
  return code;
}

/* "X,Y,Z": three finite numbers. */
static int parse_vec3(const char *opt, const char *v, double out[3]) {
  const char *p = v;
  for (int i = 0; i < 3; i++) {
    char *end;
    errno = 0;
    out[i] = strtod(p, &end);
    if (end == p || errno || !isfinite(out[i]) || *end != (i < 2 ? ',' : '\0')) {
      cli_usage_error("render", "%s: expected X,Y,Z (three numbers), got '%s'", opt, v);
      return -1;
    }
    p = end + 1;
  }
  return 0;
}

static int parse_enum(const char *opt, const char *v, const char *const *names, int n, int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(v, names[i]) == 0) return *out = i, 0;
  char list[128] = "";
  for (int i = 0; i < n; i++) {
    strcat(list, i ? (i == n - 1 ? " or " : ", ") : "");
    strcat(list, names[i]);
  }
  cli_usage_error("render", "%s: expected %s, got '%s'", opt, list, v);
  return -1;
}

int cmd_render(int argc, char **argv, const char *command_line) {
  const char *in = NULL, *out = NULL, *golden = NULL, *frame_s = NULL, *frames_s = NULL;
  vs_render_opts o = {.width = 800, .height = 600, .view = VS_RENDER_ISO, .color = VS_RENDER_BODY};
  int view_given = 0;
  double fps = 0;
  static const char *const views[] = {"iso", "front", "side", "top"};
  static const char *const colors[] = {"body", "speed", "strain"};
  int e;
  cli_parser p;
  cli_init(&p, "render", argc, argv, render_opts, N_RENDER_OPTS);
  const char *v;
  int id;
  while ((id = cli_next(&p, &v)) != CLI_DONE) {
    switch (id) {
      case CLI_OPERAND:
        if (in) return cli_usage_error("render", "one file at a time (got '%s' and '%s')", in, v);
        in = v;
        break;
      case OPT_OUTPUT: out = v; break;
      case OPT_FRAME: frame_s = v; break;
      case OPT_FRAMES: frames_s = v; break;
      case OPT_SIZE:
        if (pic_parse_size("render", v, 1, 16384, &o.width, &o.height) != 0) return CLI_EXIT_USAGE;
        break;
      case OPT_VIEW:
        if (parse_enum("--view", v, views, 4, &e) != 0) return CLI_EXIT_USAGE;
        o.view = (vs_render_view)e;
        view_given = 1;
        break;
      case OPT_CAMERA:
        if (parse_vec3("--camera", v, o.camera) != 0) return CLI_EXIT_USAGE;
        o.has_camera = 1;
        break;
      case OPT_LOOK_AT:
        if (parse_vec3("--look-at", v, o.look_at) != 0) return CLI_EXIT_USAGE;
        o.has_look_at = 1;
        break;
      case OPT_ZOOM: {
        char *end;
        errno = 0;
        o.zoom = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(o.zoom) || o.zoom <= 0)
          return cli_usage_error("render", "--zoom: expected a number > 0, got '%s'", v);
        break;
      }
      case OPT_FIT: {
        static const char *const fits[] = {"run", "frame"};
        if (parse_enum("--fit", v, fits, 2, &e) != 0) return CLI_EXIT_USAGE;
        o.fit = (vs_render_fit)e;
        break;
      }
      case OPT_COLOR:
        if (parse_enum("--color", v, colors, 3, &e) != 0) return CLI_EXIT_USAGE;
        o.color = (vs_render_color)e;
        break;
      case OPT_COMPARE: golden = v; break;
      case OPT_FPS:
        if (cli_parse_double("render", "--fps", v, 0.01, &fps) != 0) return CLI_EXIT_USAGE;
        break;
      case OPT_HELP: cmd_render_help(); return CLI_EXIT_OK;
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!in) return cli_usage_error("render", "which file? (vsim render OUT.h5 -o OUT.png)");
  if (!out || !*out) return cli_usage_error("render", "where to? (-o OUT.png, -o DIR/, -o OUT.mp4)");
  if (frame_s && frames_s) return cli_usage_error("render", "--frame and --frames: one or the other");
  if (view_given && o.has_camera)
    return cli_usage_error("render", "--view and --camera: one or the other");
  struct stat st;
  out_kind kind = ends_with(out, ".mp4") || ends_with(out, ".gif") ? OUT_MOVIE
                  : out[strlen(out) - 1] == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
                      ? OUT_DIR
                      : OUT_PNG;
  if (kind == OUT_PNG) {
    int fmt = pic_format_of(out);
    if (fmt < 0)
      return pic_bad_format("render", out,
                            "OUT.png, OUT.svg, OUT.pdf, DIR/ (numbered PNGs), OUT.mp4 or OUT.gif");
    o.format = (vs_render_format)fmt;
  }
  if (kind == OUT_PNG && frames_s)
    return cli_usage_error("render", "--frames writes several pictures: give -o DIR/ or a .mp4 "
                                     "or .gif");
  if (kind != OUT_PNG && frame_s)
    return cli_usage_error("render", "--frame draws one picture: give -o OUT.png");

  int code = CLI_EXIT_OK;
  vs_error err;
  vs_error_clear(&err);
  job j = {0};
  j.w = o.width, j.h = o.height;
  vs_frames *g = NULL;
  vs_status s = vs_frames_open(in, &j.f, &err);
  if (s == VS_OK) s = vs_frames_check_drawable(j.f, &err);
  if (s == VS_OK && golden) s = vs_frames_open(golden, &g, &err);
  if (s == VS_OK && golden) s = vs_frames_check_drawable(g, &err);
  if (s != VS_OK) {
    code = fail(&err, in, CLI_PHASE_INPUT);
    goto done;
  }
  long long F = (long long)vs_frames_count(j.f);
  j.a = j.b = F - 1, j.step = 1;
  if (frame_s) {
    int64_t k;
    if (cli_parse_int64("render", "--frame", frame_s, INT64_MIN / 2, INT64_MAX / 2, &k) != 0) {
      code = CLI_EXIT_USAGE;
      goto done;
    }
    if (k < -F || k >= F) {
      fprintf(stderr, "vsim: %s: frame %lld out of range: the file has frames 0 to %lld\n",
              cli_esc(in),
              (long long)k, F - 1);
      code = CLI_EXIT_USAGE;
      goto done;
    }
    j.a = j.b = k < 0 ? k + F : k;
  } else if (frames_s) {
    if (parse_range(frames_s, F, &j.a, &j.b, &j.step, in) != 0) {
      code = CLI_EXIT_USAGE;
      goto done;
    }
  } else if (kind != OUT_PNG) {
    j.a = 0;
  }
  if (kind == OUT_MOVIE && !on_path("ffmpeg")) {
    fprintf(stderr,
            "vsim: %s: ffmpeg not found on PATH: it is needed to write a movie (install "
            "ffmpeg, e.g. apt-get install ffmpeg, or write numbered PNGs with -o DIR/)\n",
            cli_esc(out));
    code = CLI_EXIT_USAGE;
    goto done;
  }
  /* the output: a new name or a regular file, never a link, a special file
   * or a file drawn from (checked again as each is written) */
  const char *const inputs[] = {in, golden, NULL};
  if (kind != OUT_DIR && (code = pic_check_output(out, inputs)) != 0) goto done;
  if ((s = vs_renderer_new(j.f, g, &o, &j.r, &err)) != VS_OK) {
    code = fail(&err, in, CLI_PHASE_INPUT);
    goto done;
  }
  if (kind == OUT_PNG) {
    code = render_png(&j, j.a, out);
  } else if (kind == OUT_DIR) {
    code = render_dir(&j, out);
  } else {
    if (fps <= 0) {
      /* the run's own pace: one recorded frame per its time step */
      double dt = F > 1 ? vs_frames_time(j.f, 1) - vs_frames_time(j.f, 0) : 0;
      fps = dt > 0 ? 1.0 / (dt * (double)j.step) : 10;
      fps = fps < 1 ? 1 : fps > 60 ? 60 : (double)(long)(fps + 0.5);
    }
    code = render_movie(&j, out, fps, inputs);
  }
done:
  vs_renderer_free(j.r);
  vs_frames_close(g);
  vs_frames_close(j.f);
  vs_render_cleanup();
  (void)command_line;
  return code;
}
