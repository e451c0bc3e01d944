/* SPDX-License-Identifier: MIT */
/* sweep_paths.c: the files of a sweep: DIR (made, or named after the sweep
 * file), point-NNNN.h5 / .csv, summary.csv, and what a killed run left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

/* ---- paths ------------------------------------------------------------------ */

void point_path(char *buf, size_t size, const char *dir, size_t k, const char *ext) {
  if (snprintf(buf, size, "%s/point-%04zu.%s", dir, k, ext) >= (int)size) buf[size - 1] = '\0';
}

void summary_path(char *buf, size_t size, const char *dir) {
  if (snprintf(buf, size, "%s/summary.csv", dir) >= (int)size) buf[size - 1] = '\0';
}

int exists(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0;
}

/* mkdir -p */
int make_dirs(const char *dir) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat sb;
  if (stat(buf, &sb) != 0) return -1;
  if (!S_ISDIR(sb.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

/* The default DIR: the sweep file's base name without .yaml / .yml, in the
 * current directory ("sweeps/iters.yaml" -> "iters"); -1 when that would be
 * "." or ".." ("..yml", "...yaml"), buf then holding it for the message. */
int default_dir(const char *file, char *buf, size_t size) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".yaml"))
    n -= 5;
  else if (n > 4 && !strcmp(base + n - 4, ".yml"))
    n -= 4;
  else if (n == 0)
    base = "sweep", n = 5;
  snprintf(buf, size, "%.*s", (int)n, base);
  return strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0 ? -1 : 0;
}

/* A file the run left behind when it was killed: .point-NNNN.h5.tmp-PID-* */
void remove_temp_files(const char *dir, size_t k, pid_t pid) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, ".point-%04zu.h5.tmp-%ld-", k, (long)pid);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path) unlink(path);
  }
  closedir(d);
}
