/* SPDX-License-Identifier: MIT */
/* test_fuzz_inputs.c: the fuzz harness's checks on every input kept in the
 * repository, without libFuzzer.
 *
 * tests/data/fuzz/ holds every input that ever crashed the harness or broke
 * one of its invariants (each fixed, each kept so that it stays fixed);
 * tests/fuzz/seeds/, configs/ and tests/data/bad/ are the corpus seeds.  A
 * broken invariant aborts, which check reports as a failed test (make
 * sanitize runs it under ASan + UBSan as well). */
#include <dirent.h>

#include "testutil.h"
/* the harness itself: LLVMFuzzerTestOneInput and its checks */
#include "fuzz/fuzz_scene.c"

/* Every regular file of dir (relative to the repository) through the
 * harness; returns how many. */
static int replay_dir(const char *rel) {
  char *dir = tu_repo_path(rel);
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0) continue;
    size_t plen = strlen(dir) + strlen(e->d_name) + 2;
    char *path = malloc(plen);
    ck_assert_ptr_nonnull(path);
    snprintf(path, plen, "%s/%s", dir, e->d_name);
    size_t len;
    char *data = tu_read_file(path, &len);
    /* a name on stderr first: an abort in the harness then says which */
    fprintf(stderr, "%s/%s\n", rel, e->d_name);
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    free(path);
    n++;
  }
  closedir(d);
  free(dir);
  return n;
}

START_TEST(crashes_found_by_fuzzing_stay_fixed) {
  int n = replay_dir("tests/data/fuzz");
  ck_assert_int_ge(n, 0);
}
END_TEST

START_TEST(seeds_pass_the_harness) {
  ck_assert_int_ge(replay_dir("tests/fuzz/seeds"), 3);
  ck_assert_int_ge(replay_dir("configs"), 6);
  ck_assert_int_ge(replay_dir("tests/data/bad"), 11);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("fuzz_inputs");
  TCase *t = tcase_create("fuzz_inputs");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, crashes_found_by_fuzzing_stay_fixed);
  tcase_add_test(t, seeds_pass_the_harness);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(suite());
}
