/* SPDX-License-Identifier: MIT */
/* outfile.c: creating output files safely (outfile.h). */
#define _GNU_SOURCE /* sync_file_range */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

/* Why a file could not be created: a full disk is a failure while writing
 * (VS_ERR_IO); anything else means the path cannot be used (VS_ERR_USAGE). */
static vs_status create_failure(int e) {
  return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO ? VS_ERR_IO : VS_ERR_USAGE;
}

/* The input among inputs (NULL-terminated; may be NULL) that is the file
 * st describes (same device and inode: the same name, a hard link, a
 * symbolic link to it), or NULL. */
static const char *same_as_input(const struct stat *st, const char *const *inputs) {
  for (size_t i = 0; inputs && inputs[i]; i++) {
    struct stat in;
    if (!inputs[i][0] || strcmp(inputs[i], "-") == 0) continue; /* standard input */
    if (stat(inputs[i], &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino)
      return inputs[i];
  }
  return NULL;
}

/* Where the output goes (*target, from vs_malloc) and whether it exists;
 * every refusal of outfile.h. */
static vs_status resolve(const char *path, unsigned flags, const char *const *inputs,
                         char **target, int *exists, vs_error *err) {
  struct stat ls, st;
  *target = NULL;
  *exists = 0;
  if (!path || !path[0])
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "no output path given");
  if (lstat(path, &ls) != 0) {
    if (errno != ENOENT)
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "cannot use as output: %s",
                          strerror(errno));
    if (flags & VS_OUTFILE_REPLACE)
      return vs_error_set(err, VS_ERR_IO, path, 0, 0, "does not exist");
    *target = vs_strdup(path);
  } else if (S_ISLNK(ls.st_mode)) {
    if (stat(path, &st) != 0) {
      char to[512];
      ssize_t n = readlink(path, to, sizeof to - 1);
      to[n > 0 ? n : 0] = '\0';
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0,
                          "is a symbolic link to '%s', which does not exist: refused (remove the "
                          "link or choose another name)",
                          to);
    }
    if (!S_ISREG(st.st_mode))
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0,
                          "is a symbolic link to %s, not a regular file: refused", vs_file_kind(st.st_mode));
    const char *in = same_as_input(&st, inputs);
    if (in)
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0,
                          "is a symbolic link to '%s', an input of this command: refused "
                          "(choose another output)",
                          in);
    if ((flags & VS_OUTFILE_FORCE) && !(flags & (VS_OUTFILE_FOLLOW | VS_OUTFILE_REPLACE)))
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0,
                          "is a symbolic link: refused (this output is never written through a "
                          "link; remove the link or give the path of the file itself)");
    char *real = realpath(path, NULL);
    if (!real)
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "cannot resolve: %s", strerror(errno));
    *target = vs_strdup(real);
    free(real);
    *exists = 1;
  } else if (S_ISREG(ls.st_mode)) {
    const char *in = same_as_input(&ls, inputs);
    if (in)
      return vs_error_set(err, VS_ERR_USAGE, path, 0, 0,
                          "is '%s', an input of this command: refused (choose another output)",
                          in);
    *target = vs_strdup(path);
    *exists = 1;
  } else {
    return vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "is %s, not a regular file: refused",
                        vs_file_kind(ls.st_mode));
  }
  if (!*target) return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (*exists && !(flags & (VS_OUTFILE_FORCE | VS_OUTFILE_REPLACE))) {
    vs_free(*target);
    *target = NULL;
    return vs_error_set(err, VS_ERR_EXISTS, path, 0, 0, "exists (use --force to overwrite)");
  }
  char *dir = vs_dir_part(*target);
  vs_status rc = VS_OK;
  if (!dir)
    rc = vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
  else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    rc = vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "directory '%s' does not exist", dir);
  else if (access(dir, W_OK | X_OK) != 0)
    rc = vs_error_set(err, VS_ERR_USAGE, path, 0, 0, "directory '%s' is not writable", dir);
  vs_free(dir);
  if (rc != VS_OK) {
    vs_free(*target);
    *target = NULL;
  }
  return rc;
}

vs_status vs_outfile_check(const char *path, unsigned flags, const char *const *inputs,
                           vs_error *err) {
  char *target;
  int exists;
  vs_status rc = resolve(path, flags, inputs, &target, &exists, err);
  vs_free(target);
  return rc;
}

/* n random bytes as 2n hex digits into out (2n + 1 bytes): from the
 * kernel's generator, else /dev/urandom, else (neither there: a chroot
 * without /dev) the clock, the pid and an address mixed, which O_EXCL still
 * makes safe, only guessable. */
static void random_hex(char *out, size_t n) {
  unsigned char b[16];
  if (n > sizeof b) n = sizeof b;
  size_t got = 0;
#ifdef SYS_getrandom
  while (got < n) {
    long r = syscall(SYS_getrandom, b + got, n - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
#endif
  if (got < n) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && got < n) {
      ssize_t r = read(fd, b + got, n - got);
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (fd >= 0) close(fd);
  }
  if (got < n) {
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t h = 1469598103934665603ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
                 (uint64_t)(uintptr_t)&ts ^ ((uint64_t)getpid() << 16) ^
                 __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
    for (size_t i = got; i < n; i++) {
      h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
      b[i] = (unsigned char)(h >> 56);
    }
  }
  for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ".<base>.tmp-<pid>-<random>" beside target; a base too long for NAME_MAX
 * is cut (at a character boundary) and followed by "~" and a hash of the
 * whole base, so that different long names get different temporary names.
 * The pid lets `vsim sweep` find what a killed point left; the 64 random
 * bits make the name unpredictable, so that no one can plant anything at
 * it beforehand (O_EXCL|O_NOFOLLOW would refuse it, but a planted name
 * per try would make every try fail). */
static char *temp_name(const char *target) {
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
  char suffix[64], rnd[17];
  random_hex(rnd, 8);
  snprintf(suffix, sizeof suffix, ".tmp-%ld-%s", (long)getpid(), rnd);
  size_t blen = strlen(base), slen = strlen(suffix);
  char hash[24] = "";
  if (1 + blen + slen > NAME_MAX) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)base; *p; p++)
      h = (h ^ *p) * 1099511628211ull;
    snprintf(hash, sizeof hash, "~%016llx", (unsigned long long)h);
    blen = NAME_MAX - 1 - slen - strlen(hash);
    while (blen > 0 && ((unsigned char)base[blen] & 0xC0) == 0x80) blen--;
  }
  size_t len = dlen + 1 + blen + strlen(hash) + slen + 1;
  char *t = vs_malloc(len);
  if (t) snprintf(t, len, "%.*s.%.*s%s%s", (int)dlen, target, (int)blen, base, hash, suffix);
  return t;
}

static void release(vs_outfile *o) {
  if (o->fd >= 0) close(o->fd);
  o->fd = -1;
  vs_free(o->path);
  vs_free(o->tmp);
  o->path = o->tmp = NULL;
}

void vs_outfile_discard(vs_outfile *o) {
  if (!o) return;
  if (o->tmp) unlink(o->tmp);
  release(o);
}

vs_status vs_outfile_create(const char *path, unsigned flags, const char *const *inputs,
                            vs_outfile *o, vs_error *err) {
  memset(o, 0, sizeof *o);
  o->fd = -1;
  o->flags = flags;
  int exists;
  vs_status rc = resolve(path, flags, inputs, &o->path, &exists, err);
  if (rc != VS_OK) return rc;
  struct stat old;
  int keep = (flags & VS_OUTFILE_REPLACE) && stat(o->path, &old) == 0;
  for (int tries = 0; tries < 100; tries++) {
    vs_free(o->tmp);
    o->tmp = temp_name(o->path);
    if (!o->tmp) {
      release(o);
      return vs_error_set(err, VS_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    o->fd = open(o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (o->fd >= 0 || errno != EEXIST) break;
  }
  if (o->fd < 0) {
    int e = errno;
    rc = vs_error_set(err, create_failure(e), path, 0, 0, "cannot create '%s': %s", o->tmp,
                      strerror(e));
    release(o);
    return rc;
  }
  struct stat st;
  int bad = fstat(o->fd, &st) != 0;
  if (!bad && keep) {
    /* The file replaced in place keeps its owner and group where this
     * process may give them (root; a group it belongs to), then its
     * permission bits (after: a change of owner may clear some). */
    if ((old.st_uid != st.st_uid || old.st_gid != st.st_gid) &&
        fchown(o->fd, old.st_uid, old.st_gid) != 0 && old.st_gid != st.st_gid)
      (void)!fchown(o->fd, (uid_t)-1, old.st_gid); /* not root: the group, if a member */
    bad = fchmod(o->fd, old.st_mode & 0777) != 0;
  }
  if (bad) {
    int e = errno;
    rc = vs_error_set(err, VS_ERR_IO, path, 0, 0, "cannot set up '%s': %s", o->tmp, strerror(e));
    vs_outfile_discard(o);
    return rc;
  }
  o->dev = st.st_dev;
  o->ino = st.st_ino;
  return VS_OK;
}

int vs_outfile_same(const vs_outfile *o, int fd) {
  struct stat st;
  return o && fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

/* Make tmp appear as path without replacing anything: 0, or -1 and errno
 * (EEXIST when path exists). */
static int publish_noreplace(const char *tmp, const char *path) {
#ifdef SYS_renameat2
  if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
  if (errno != ENOSYS && errno != EINVAL && errno != ENOTSUP) return -1;
#endif
  if (link(tmp, path) == 0) {
    unlink(tmp);
    return 0;
  }
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) return -1;
  /* A file system without hard links or renameat2 (vfat, some FUSE): the
   * check and the rename are two steps there. */
  struct stat st;
  if (lstat(path, &st) == 0) {
    errno = EEXIST;
    return -1;
  }
  return rename(tmp, path);
}

static int sync_fault, sync_fault_which, sync_fault_after;

void vs_outfile__fail_syncs(int errnum, int which, int after) {
  sync_fault = errnum;
  sync_fault_which = which;
  __atomic_store_n(&sync_fault_after, after, __ATOMIC_SEQ_CST);
}

int vs_outfile_sync_fd(int fd, int data_only) {
  if (sync_fault && (sync_fault_which & (data_only ? 1 : 2)) &&
      __atomic_fetch_sub(&sync_fault_after, 1, __ATOMIC_SEQ_CST) <= 0)
    return sync_fault;
  return (data_only ? fdatasync(fd) : fsync(fd)) == 0 ? 0 : errno;
}

void vs_outfile_start_writeback(const vs_outfile *o) {
#ifdef SYNC_FILE_RANGE_WRITE
  if (o && o->fd >= 0) (void)sync_file_range(o->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)o;
#endif
}

vs_status vs_outfile_publish(vs_outfile *o, vs_error *err) {
  if (!o || !o->tmp || o->fd < 0)
    return vs_error_set(err, VS_ERR_USAGE, NULL, 0, 0, "vs_outfile_publish: nothing to publish");
  vs_status rc = VS_OK;
  struct stat st;
  int replace = (o->flags & (VS_OUTFILE_FORCE | VS_OUTFILE_REPLACE)) != 0;
  const int se = vs_outfile_sync_fd(o->fd, 0);
  if (se != 0) {
    rc = vs_error_set(err, VS_ERR_IO, o->path, 0, 0, "syncing '%s': %s", o->tmp, strerror(se));
  } else if (lstat(o->tmp, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != o->dev ||
             st.st_ino != o->ino) {
    /* removing it would remove someone else's file */
    vs_free(o->tmp);
    o->tmp = NULL;
    rc = vs_error_set(err, VS_ERR_IO, o->path, 0, 0,
                      "the temporary file was replaced by another while writing");
  } else if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
    rc = vs_error_set(err, VS_ERR_USAGE, o->path, 0, 0,
                      "became %s while writing, not a regular file: refused", vs_file_kind(st.st_mode));
  } else if (replace ? rename(o->tmp, o->path) != 0 : publish_noreplace(o->tmp, o->path) != 0) {
    int e = errno;
    if (e == EEXIST)
      rc = vs_error_set(err, VS_ERR_EXISTS, o->path, 0, 0,
                        "exists: created by another process while this one was writing (use "
                        "--force to overwrite)");
    else
      rc = vs_error_set(err, create_failure(e), o->path, 0, 0, "cannot move '%s' into place: %s",
                        o->tmp, strerror(e));
  } else {
    vs_free(o->tmp); /* published: nothing to remove */
    o->tmp = NULL;
    if (o->published) {
      snprintf(o->published, PATH_MAX, "%s", o->path);
    } else {
      vs_outfile_sync_dir(o->path, NULL);
    }
  }
  vs_outfile_discard(o);
  return rc;
}

void vs_outfile_sync_dir(const char *path, const char *other) {
  /* the directory on the stack: once published, nothing can fail for
   * want of memory (an allocation failing here went unreported) */
  char dir[PATH_MAX];
  size_t n = vs_dir_len(path);
  if (n == 0)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(n < sizeof dir - 1 ? n : sizeof dir - 1), path);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd); /* durability of the name; some file systems refuse: not an error */
    close(dfd);
  }
  if (other && other[0]) {
    size_t m = vs_dir_len(other);
    char od[PATH_MAX];
    if (m == 0)
      snprintf(od, sizeof od, ".");
    else
      snprintf(od, sizeof od, "%.*s", (int)(m < sizeof od - 1 ? m : sizeof od - 1), other);
    if (strcmp(od, dir) != 0) vs_outfile_sync_dir(other, NULL);
  }
}
