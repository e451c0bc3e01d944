/* SPDX-License-Identifier: MIT */
/* test_outfile.c: safe output files (lib/util/outfile.c): special files
 * refused even with force, the symlink rules, long names, the mode, and
 * two processes racing to publish one new name without force (exactly one
 * wins, the file is the winner's, no temporary file is left). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"
#include "util/alloc.h"
#include "util/outfile.h"

/* Entries of dir whose name contains ".tmp-". */
static int temp_files(void) {
  DIR *d = opendir(tu_dir());
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strstr(e->d_name, ".tmp-")) n++;
  closedir(d);
  return n;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* Create, write text through the descriptor and publish. */
static vs_status produce(const char *path, unsigned flags, const char *text, vs_error *e) {
  vs_outfile o;
  vs_error_clear(e);
  vs_status rc = vs_outfile_create(path, flags, NULL, &o, e);
  if (rc != VS_OK) return rc;
  ck_assert_int_eq(write(o.fd, text, strlen(text)), (ssize_t)strlen(text));
  return vs_outfile_publish(&o, e);
}

static void expect(vs_status got, vs_status want, const vs_error *e, const char *msg) {
  ck_assert_msg(got == want && strstr(e->message, msg), "got %d '%s', want %d '%s'", got,
                e->message, want, msg);
}

START_TEST(new_and_existing) {
  vs_error e;
  ck_assert_int_eq(produce(tu_path("out.h5"), 0, "one", &e), VS_OK);
  tu_expect_file_text(tu_path("out.h5"), "one");
  expect(produce(tu_path("out.h5"), 0, "two", &e), VS_ERR_EXISTS, &e,
         "exists (use --force to overwrite)");
  tu_expect_file_text(tu_path("out.h5"), "one");
  ck_assert_int_eq(produce(tu_path("out.h5"), VS_OUTFILE_FORCE, "two", &e), VS_OK);
  tu_expect_file_text(tu_path("out.h5"), "two");
  expect(vs_outfile_check(tu_path("nodir/out.h5"), 0, NULL, &e), VS_ERR_USAGE, &e, "does not exist");
  expect(produce(tu_path("new.h5"), VS_OUTFILE_REPLACE, "x", &e), VS_ERR_IO, &e, "does not exist");
  /* discard leaves nothing */
  vs_outfile o;
  ck_assert_int_eq(vs_outfile_create(tu_path("gone.h5"), 0, NULL, &o, &e), VS_OK);
  ck_assert_int_eq(temp_files(), 1);
  vs_outfile_discard(&o);
  ck_assert_int_eq(temp_files(), 0);
  ck_assert_int_ne(access(tu_path("gone.h5"), F_OK), 0);
}
END_TEST

START_TEST(special_files_refused_even_with_force) {
  vs_error e;
  ck_assert_int_eq(mkfifo(tu_path("fifo"), 0600), 0);
  ck_assert_int_eq(mkdir(tu_path("sub"), 0700), 0);
  for (unsigned flags = 0; flags <= VS_OUTFILE_FORCE; flags++) {
    expect(produce("/dev/null", flags, "x", &e), VS_ERR_USAGE, &e,
           "is a character device, not a regular file: refused");
    expect(produce(tu_path("fifo"), flags, "x", &e), VS_ERR_USAGE, &e,
           "is a FIFO (named pipe), not a regular file: refused");
    expect(produce(tu_path("sub"), flags, "x", &e), VS_ERR_USAGE, &e,
           "is a directory, not a regular file: refused");
  }
  struct stat st;
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  ck_assert_int_eq(lstat(tu_path("fifo"), &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

START_TEST(symlink_rules) {
  vs_error e;
  write_text(tu_path("target.h5"), "old");
  ck_assert_int_eq(symlink("target.h5", tu_path("link.h5")), 0);
  ck_assert_int_eq(symlink("missing.h5", tu_path("dangling.h5")), 0);
  ck_assert_int_eq(mkfifo(tu_path("fifo"), 0600), 0);
  ck_assert_int_eq(symlink(tu_path("fifo"), tu_path("link-fifo.h5")), 0);
  ck_assert_int_eq(symlink("/dev/null", tu_path("link-null.h5")), 0);
  /* to a regular file: exists without force; with force alone (an output
   * replaced without being asked: a sidecar, a picture) refused, never
   * written through; with force and FOLLOW (`run --force` naming a link)
   * the target is replaced and the link stays a link */
  expect(produce(tu_path("link.h5"), 0, "new", &e), VS_ERR_EXISTS, &e, "exists");
  expect(produce(tu_path("link.h5"), VS_OUTFILE_FORCE, "new", &e), VS_ERR_USAGE, &e,
         "is a symbolic link: refused");
  tu_expect_file_text(tu_path("target.h5"), "old");
  ck_assert_int_eq(produce(tu_path("link.h5"), VS_OUTFILE_FORCE | VS_OUTFILE_FOLLOW, "new", &e),
                   VS_OK);
  struct stat st;
  ck_assert_int_eq(lstat(tu_path("link.h5"), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  tu_expect_file_text(tu_path("target.h5"), "new");
  /* resume (REPLACE) through the link likewise */
  ck_assert_int_eq(produce(tu_path("link.h5"), VS_OUTFILE_REPLACE, "resumed", &e), VS_OK);
  ck_assert_int_eq(lstat(tu_path("link.h5"), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  tu_expect_file_text(tu_path("target.h5"), "resumed");
  /* dangling: refused with and without force, nothing created */
  for (unsigned flags = 0; flags <= VS_OUTFILE_FORCE; flags++) {
    expect(produce(tu_path("dangling.h5"), flags, "x", &e), VS_ERR_USAGE, &e,
           "is a symbolic link to 'missing.h5', which does not exist: refused");
    expect(produce(tu_path("link-fifo.h5"), flags, "x", &e), VS_ERR_USAGE, &e,
           "is a symbolic link to a FIFO (named pipe), not a regular file: refused");
    expect(produce(tu_path("link-null.h5"), flags, "x", &e), VS_ERR_USAGE, &e,
           "is a symbolic link to a character device, not a regular file: refused");
  }
  ck_assert_int_ne(access(tu_path("missing.h5"), F_OK), 0);
  ck_assert_int_eq(lstat(tu_path("dangling.h5"), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

/* A planted symlink at a temporary name is never followed: creation moves
 * on to another name.  The names vsim used before (pid and a counter) are
 * planted; the random part of today's names makes them miss. */
START_TEST(planted_temp_symlink_not_followed) {
  vs_error e;
  write_text(tu_path("victim"), "untouched");
  for (unsigned n = 0; n < 50; n++) {
    char name[128];
    snprintf(name, sizeof name, ".out.h5.tmp-%ld-%u", (long)getpid(), n);
    ck_assert_int_eq(symlink(tu_path("victim"), tu_path(name)), 0);
  }
  ck_assert_int_eq(produce(tu_path("out.h5"), 0, "mine", &e), VS_OK);
  tu_expect_file_text(tu_path("victim"), "untouched");
  tu_expect_file_text(tu_path("out.h5"), "mine");
}
END_TEST

/* A symbolic link planted at the output's name while the run writes is
 * refused at publishing, with or without force, and named as a link: the
 * output never goes where it points, and the link and its target stay. */
START_TEST(planted_output_symlink_refused) {
  vs_error e;
  write_text(tu_path("victim"), "untouched");
  for (unsigned flags = 0; flags <= VS_OUTFILE_FORCE; flags++) {
    vs_outfile o;
    vs_error_clear(&e);
    ck_assert_int_eq(vs_outfile_create(tu_path("out.h5"), flags, NULL, &o, &e), VS_OK);
    ck_assert_int_eq(write(o.fd, "mine", 4), 4);
    ck_assert_int_eq(symlink(tu_path("victim"), tu_path("out.h5")), 0);
    expect(vs_outfile_publish(&o, &e), VS_ERR_USAGE, &e,
           "became a symbolic link while writing, not a regular file: refused");
    struct stat st;
    ck_assert_int_eq(lstat(tu_path("out.h5"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    tu_expect_file_text(tu_path("victim"), "untouched");
    ck_assert_int_eq(temp_files(), 0);
    ck_assert_int_eq(unlink(tu_path("out.h5")), 0);
  }
}
END_TEST

START_TEST(long_names) {
  vs_error e;
  char name[256];
  memset(name, 'n', 248);
  strcpy(name + 248 - 3, ".h5");
  ck_assert_uint_eq(strlen(name), 248);
  vs_outfile o;
  ck_assert_int_eq(vs_outfile_create(tu_path(name), 0, NULL, &o, &e), VS_OK);
  const char *base = strrchr(o.tmp, '/') + 1;
  ck_assert_uint_le(strlen(base), NAME_MAX);
  ck_assert_ptr_nonnull(strchr(base, '~')); /* shortened and hashed */
  ck_assert_int_eq(vs_outfile_publish(&o, &e), VS_OK);
  ck_assert_int_eq(access(tu_path(name), F_OK), 0);
  /* two long names differing only at the end get different temp names */
  char other[256];
  strcpy(other, name);
  other[240] = 'm';
  vs_outfile a, b;
  ck_assert_int_eq(vs_outfile_create(tu_path(other), 0, NULL, &a, &e), VS_OK);
  name[240] = 'k';
  ck_assert_int_eq(vs_outfile_create(tu_path(name), 0, NULL, &b, &e), VS_OK);
  ck_assert_str_ne(a.tmp, b.tmp);
  vs_outfile_discard(&a);
  vs_outfile_discard(&b);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

START_TEST(mode_follows_umask) {
  vs_error e;
  mode_t old = umask(027);
  ck_assert_int_eq(produce(tu_path("m.h5"), 0, "x", &e), VS_OK);
  umask(old);
  struct stat st;
  ck_assert_int_eq(stat(tu_path("m.h5"), &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0640);
  /* REPLACE keeps the permissions of the file it replaces */
  ck_assert_int_eq(chmod(tu_path("m.h5"), 0604), 0);
  ck_assert_int_eq(produce(tu_path("m.h5"), VS_OUTFILE_REPLACE, "y", &e), VS_OK);
  ck_assert_int_eq(stat(tu_path("m.h5"), &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0604);
}
END_TEST

/* The temporary name is unpredictable: ".<base>.tmp-<pid>-" then 16 random
 * hex digits, different on every create, so that nothing can be planted
 * at it beforehand (before: the pid and a counter). */
START_TEST(temp_names_unpredictable) {
  vs_error e;
  vs_outfile a, b;
  ck_assert_int_eq(vs_outfile_create(tu_path("out.h5"), 0, NULL, &a, &e), VS_OK);
  ck_assert_int_eq(vs_outfile_create(tu_path("out.h5"), 0, NULL, &b, &e), VS_OK);
  char prefix[64];
  snprintf(prefix, sizeof prefix, ".out.h5.tmp-%ld-", (long)getpid());
  const vs_outfile *both[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    const char *base = strrchr(both[i]->tmp, '/') + 1;
    ck_assert_msg(strncmp(base, prefix, strlen(prefix)) == 0, "'%s'", base);
    const char *rnd = base + strlen(prefix);
    ck_assert_msg(strlen(rnd) == 16 && strspn(rnd, "0123456789abcdef") == 16, "'%s'", base);
  }
  ck_assert_str_ne(a.tmp, b.tmp);
  vs_outfile_discard(&a);
  vs_outfile_discard(&b);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

/* An input of the command is never replaced, even with force and FOLLOW:
 * by its name, a hard link or a symbolic link to it (same device and
 * inode); a new name and other files still work. */
START_TEST(inputs_never_replaced) {
  vs_error e;
  write_text(tu_path("scene.yaml"), "input");
  ck_assert_int_eq(link(tu_path("scene.yaml"), tu_path("hard.h5")), 0);
  ck_assert_int_eq(symlink("scene.yaml", tu_path("soft.h5")), 0);
  const char *inputs[] = {"-", tu_path("scene.yaml"), NULL};
  const unsigned all = VS_OUTFILE_FORCE | VS_OUTFILE_FOLLOW;
  const char *names[] = {"scene.yaml", "hard.h5", "soft.h5"};
  for (int i = 0; i < 3; i++) {
    vs_outfile o;
    vs_error_clear(&e);
    ck_assert_int_eq(vs_outfile_check(tu_path(names[i]), all, inputs, &e), VS_ERR_USAGE);
    ck_assert_msg(strstr(e.message, "an input of this command: refused"), "%s", e.message);
    ck_assert_int_eq(vs_outfile_create(tu_path(names[i]), all, inputs, &o, &e), VS_ERR_USAGE);
  }
  tu_expect_file_text(tu_path("scene.yaml"), "input");
  ck_assert_int_eq(temp_files(), 0);
  vs_outfile o;
  ck_assert_int_eq(vs_outfile_create(tu_path("new.h5"), 0, inputs, &o, &e), VS_OK);
  vs_outfile_discard(&o);
  ck_assert_int_eq(vs_outfile_check(tu_path("hard.h5"), all, NULL, &e), VS_OK);
}
END_TEST

/* REPLACE (resume) keeps the owner and group of the file it replaces where
 * the process may give them (as root: a user's file stays the user's, the
 * user can still read it), and its mode; the file's other hard links keep
 * the old contents (docs/cli.md, resume). */
START_TEST(replace_keeps_owner_and_mode) {
  vs_error e;
  write_text(tu_path("r.h5"), "old");
  ck_assert_int_eq(chmod(tu_path("r.h5"), 0640), 0);
  ck_assert_int_eq(link(tu_path("r.h5"), tu_path("other.h5")), 0);
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (uid == 0) {
    uid = 12345;
    gid = 23456;
    ck_assert_int_eq(chown(tu_path("r.h5"), uid, gid), 0);
  }
  ck_assert_int_eq(produce(tu_path("r.h5"), VS_OUTFILE_REPLACE, "new", &e), VS_OK);
  struct stat st;
  ck_assert_int_eq(stat(tu_path("r.h5"), &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0640);
  ck_assert_int_eq(st.st_uid, uid);
  ck_assert_int_eq(st.st_gid, gid);
  tu_expect_file_text(tu_path("r.h5"), "new");
  tu_expect_file_text(tu_path("other.h5"), "old");
  if (geteuid() != 0) TU_SKIP("not root: a file of another owner cannot be made here");
}
END_TEST

/* Two children create the same new name, write their pid, say they are
 * ready (one pipe), wait for the parent's go (another) and publish
 * together: exactly one succeeds. */
START_TEST(race_without_force) {
  for (int round = 0; round < 20; round++) {
    char name[32];
    snprintf(name, sizeof name, "race-%d.h5", round);
    const char *path = tu_path(name);
    int go[2], ready[2];
    ck_assert_int_eq(pipe(go), 0);
    ck_assert_int_eq(pipe(ready), 0);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
      kids[k] = fork();
      ck_assert_int_ge(kids[k], 0);
      if (kids[k] == 0) {
        close(go[1]);
        close(ready[0]);
        vs_outfile o;
        vs_error e;
        if (vs_outfile_create(path, 0, NULL, &o, &e) != VS_OK) {
          fprintf(stderr, "child: %s\n", e.message);
          _exit(10);
        }
        char text[32];
        int n = snprintf(text, sizeof text, "%ld", (long)getpid());
        if (write(o.fd, text, (size_t)n) != n) _exit(11);
        char c = 'r';
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(12);
        vs_status rc = vs_outfile_publish(&o, &e);
        _exit(rc == VS_OK ? 0 : rc == VS_ERR_EXISTS && strstr(e.message, "another process") ? 3 : 13);
      }
    }
    close(go[0]);
    close(ready[1]);
    char r[2];
    ck_assert_int_eq(read(ready[0], r, 1), 1);
    ck_assert_int_eq(read(ready[0], r + 1, 1), 1);
    close(ready[0]);
    ck_assert_int_eq(write(go[1], "gg", 2), 2);
    close(go[1]);
    int status[2], winner = -1, losers = 0;
    for (int k = 0; k < 2; k++) {
      ck_assert_int_eq(waitpid(kids[k], &status[k], 0), kids[k]);
      ck_assert(WIFEXITED(status[k]));
      int code = WEXITSTATUS(status[k]);
      ck_assert_msg(code == 0 || code == 3, "child exit %d", code);
      if (code == 0) winner = k;
      else losers++;
    }
    ck_assert_int_eq(losers, 1);
    char want[32];
    snprintf(want, sizeof want, "%ld", (long)kids[winner]);
    tu_expect_file_text(path, want);
    ck_assert_int_eq(temp_files(), 0);
  }
}
END_TEST

/* published: the publish leaves the directory's fsync to the caller and
 * names the file it published, a symlink's target when the output is one
 * (vs_h5_finish_xdmf then syncs that directory once for the result file and its sidecar). */
START_TEST(published_names_the_target) {
  char published[PATH_MAX] = "";
  vs_outfile o;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(mkdir(tu_path("real"), 0777), 0);
  write_text(tu_path("real/out.h5"), "old");
  ck_assert_int_eq(symlink("real/out.h5", tu_path("link.h5")), 0);
  ck_assert_int_eq(
      vs_outfile_create(tu_path("link.h5"), VS_OUTFILE_FORCE | VS_OUTFILE_FOLLOW, NULL, &o, &e),
      VS_OK);
  o.published = published;
  ck_assert_int_eq(write(o.fd, "new", 3), 3);
  ck_assert_int_eq(vs_outfile_publish(&o, &e), VS_OK);
  ck_assert_str_eq(published, tu_path("real/out.h5"));
  tu_expect_file_text(tu_path("link.h5"), "new");
  vs_outfile_sync_dir(published,
                      tu_path("link.h5")); /* both directories: nothing to see but no harm */
  ck_assert_int_eq(temp_files(), 0);
  /* a failed publish leaves it as it was */
  published[0] = '\0';
  ck_assert_int_eq(vs_outfile_create(tu_path("new.h5"), 0, NULL, &o, &e), VS_OK);
  o.published = published;
  write_text(tu_path("new.h5"), "someone else's");
  ck_assert_int_eq(vs_outfile_publish(&o, &e), VS_ERR_EXISTS);
  ck_assert_str_eq(published, "");
  tu_expect_file_text(tu_path("new.h5"), "someone else's");
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("outfile");
  TCase *tc = tcase_create("outfile");
  tcase_add_checked_fixture(tc, tu_dir_setup, tu_dir_teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, new_and_existing);
  tcase_add_test(tc, special_files_refused_even_with_force);
  tcase_add_test(tc, symlink_rules);
  tcase_add_test(tc, planted_temp_symlink_not_followed);
  tcase_add_test(tc, planted_output_symlink_refused);
  tcase_add_test(tc, long_names);
  tcase_add_test(tc, mode_follows_umask);
  tcase_add_test(tc, race_without_force);
  tcase_add_test(tc, temp_names_unpredictable);
  tcase_add_test(tc, inputs_never_replaced);
  tcase_add_test(tc, replace_keeps_owner_and_mode);
  tcase_add_test(tc, published_names_the_target);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
