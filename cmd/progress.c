/* SPDX-License-Identifier: MIT */
/* progress.c: the progress bar (see progress.h). */
#include "progress.h"

#include <string.h>

#include "cli.h"

#define BAR_WIDTH 24

void progress_start(cli_progress *p, int enabled, int64_t start, int64_t total) {
  memset(p, 0, sizeof *p);
  p->enabled = enabled;
  p->out = stderr;
  p->start = start;
  p->total = total;
  p->t0 = cli_now();
  p->last = -1.0;
}

/* "1:02:03" or "2:03". */
static void format_duration(char *buf, size_t size, double s) {
  if (!(s >= 0) || s > 359999) {
    snprintf(buf, size, "--:--");
    return;
  }
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

void progress_update(cli_progress *p, int64_t done) {
  if (!p->enabled) return;
  double now = cli_now();
  if (done < p->total && p->last >= 0 && now - p->last < 0.1) return;
  p->last = now;

  double frac = p->total > 0 ? (double)done / (double)p->total : 1.0;
  if (frac > 1) frac = 1;
  double elapsed = now - p->t0;
  double fps = elapsed > 0 ? (double)(done - p->start) / elapsed : 0.0;
  char eta[32];
  if (done >= p->total)
    format_duration(eta, sizeof eta, 0);
  else if (fps > 0)
    format_duration(eta, sizeof eta, (double)(p->total - done) / fps);
  else
    snprintf(eta, sizeof eta, "--:--");

  char bar[BAR_WIDTH + 1];
  int filled = (int)(frac * BAR_WIDTH);
  for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
  bar[BAR_WIDTH] = '\0';

  char line[256];
  int n = snprintf(line, sizeof line, "[%s] %lld/%lld %5.1f%% %8.1f fps  ETA %s", bar,
                   (long long)done, (long long)p->total, 100.0 * frac, fps, eta);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  fprintf(p->out, "\r%s", line);
  for (size_t i = len; i < p->drawn; i++) fputc(' ', p->out);
  fflush(p->out);
  p->drawn = len;
}

void progress_end(cli_progress *p) {
  if (!p->enabled || p->drawn == 0) return;
  fputc('\r', p->out);
  for (size_t i = 0; i < p->drawn; i++) fputc(' ', p->out);
  fputc('\r', p->out);
  fflush(p->out);
  p->drawn = 0;
}
