/* SPDX-License-Identifier: MIT */
/* file.c: whole-file reading under a size limit, kinds of files and
 * directory parts (lib/util/file.h). */
#include "util/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"

vs_status vs_read_file(const char *path, const char *what, size_t limit, char **text,
                       size_t *len, vs_error *err) {
  *text = NULL;
  *len = 0;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s '%s': %s", what, path,
                        strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s '%s': it is a directory",
                        what, path);
  if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > limit)
    return vs_error_set(err, VS_ERR_LIMIT, path, 0, 0,
                        "%s '%s' is %jd bytes, over the limit of %zu bytes", what, path,
                        (intmax_t)sb.st_size, limit);
  FILE *f = fopen(path, "rb");
  if (!f)
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s '%s': %s", what, path,
                        strerror(errno));
  /* Read at most one byte past the limit, so that a pipe or a file that grew
   * since stat() is still caught. */
  size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 65536, n = 0;
  char *buf = vs_malloc(cap + 1);
  if (!buf) {
    fclose(f);
    return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory reading '%s'", path);
  }
  for (;;) {
    if (n == cap) {
      if (cap > limit) break;
      size_t nc = cap * 2;
      char *nb = vs_realloc(buf, nc + 1);
      if (!nb) {
        vs_free(buf);
        fclose(f);
        return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory reading '%s'", path);
      }
      buf = nb;
      cap = nc;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    vs_free(buf);
    return vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot read %s '%s'", what, path);
  }
  if (n > limit) {
    vs_free(buf);
    return vs_error_set(err, VS_ERR_LIMIT, path, 0, 0, "%s '%s' is over the limit of %zu bytes",
                        what, path, limit);
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return VS_OK;
}

const char *vs_file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

size_t vs_dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
}

char *vs_dir_part(const char *path) {
  const size_t n = vs_dir_len(path);
  if (n == 0) return vs_strdup(".");
  char *d = vs_malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}
