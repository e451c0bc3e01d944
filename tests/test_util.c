/* SPDX-License-Identifier: MIT */
/* test_util.c: lib/util's text buffer, JSON string literal, the escaping of
 * paths for messages, edit distance and whole-file reader: the one copy of
 * each that the library and the program share. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/text.h"

static void expect_json(const char *in, const char *want) {
  char out[256];
  size_t n = vs_json_escape(out, sizeof out, in);
  ck_assert_str_eq(out, want);
  ck_assert_uint_eq(n, strlen(want));
  if (!in) return; /* vs_sbuf_json writes null for NULL (below) */
  vs_sbuf b = {0};
  vs_sbuf_json(&b, in);
  ck_assert_int_eq(b.bad, 0);
  ck_assert_str_eq(b.p, want);
  vs_sbuf_free(&b);
}

START_TEST(json_escapes_every_control_character) {
  expect_json("", "\"\"");
  expect_json(NULL, "\"\"");
  expect_json("plain text", "\"plain text\"");
  expect_json("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
  expect_json("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"");
  expect_json("\x01\x1f", "\"\\u0001\\u001f\"");
  expect_json("del\x7f!", "\"del\\u007f!\"");
  expect_json(" ~", "\" ~\"");                     /* 0x20 and 0x7e stand for themselves */
  expect_json("caf\xc3\xa9", "\"caf\xc3\xa9\""); /* UTF-8 copied as it is */
  /* Every byte from 1 to 0x7f: controls and DEL escaped, nothing else but " and \. */
  char all[128];
  for (int i = 1; i < 128; i++) all[i - 1] = (char)i;
  all[127] = '\0';
  char out[1024];
  size_t n = vs_json_escape(out, sizeof out, all);
  ck_assert_uint_lt(n, sizeof out);
  size_t raw = 0;
  for (const char *p = out + 1; *p && p[1]; p++) {
    unsigned char c = (unsigned char)*p;
    ck_assert_msg(c >= 0x20 && c != 0x7f, "raw control 0x%02x in the JSON literal", c);
    if (c == '\\') {
      p++;
      if (*p == 'u') p += 4;
    } else {
      raw++;
    }
  }
  ck_assert_uint_eq(raw, 0x7f - 0x20 - 2); /* printable ASCII but " and \ */
  ck_assert_ptr_nonnull(strstr(out, "\\u000b"));
  ck_assert_ptr_nonnull(strstr(out, "\\u007f"));
  ck_assert_ptr_null(strstr(out, "\\u000d")); /* \r has its short form */
}
END_TEST

START_TEST(json_escape_truncates_like_snprintf) {
  char out[6];
  size_t n = vs_json_escape(out, sizeof out, "a\rbcdef");
  ck_assert_uint_eq(n, strlen("\"a\\rbcdef\""));
  ck_assert_str_eq(out, "\"a\\rb");
  ck_assert_uint_eq(vs_json_escape(NULL, 0, "x\x7f"), strlen("\"x\\u007f\""));
  vs_sbuf b = {0};
  vs_sbuf_json(&b, NULL);
  ck_assert_str_eq(b.p, "null");
  vs_sbuf_free(&b);
}
END_TEST

START_TEST(sbuf_grows_and_keeps_every_byte) {
  vs_sbuf b = {0};
  ck_assert_ptr_null(b.p);
  for (int i = 0; i < 5000; i++) vs_sbuf_printf(&b, "%d,", i);
  vs_sbuf_puts(&b, "end");
  vs_sbuf_add(&b, "xyz", 2);
  ck_assert_int_eq(b.bad, 0);
  ck_assert_uint_eq(strlen(b.p), b.n);
  ck_assert_uint_lt(b.n, b.cap);
  ck_assert(strncmp(b.p, "0,1,2,3,", 8) == 0);
  ck_assert_ptr_nonnull(strstr(b.p, ",4998,4999,endxy"));
  ck_assert_str_eq(b.p + b.n - 5, "endxy");
  /* One long printf at once (more than the buffer has room for). */
  vs_sbuf c = {0};
  vs_sbuf_printf(&c, "%s", "ab");
  vs_sbuf_printf(&c, "%0300d", 7);
  ck_assert_uint_eq(c.n, 302);
  ck_assert_str_eq(c.p + 299, "007");
  vs_sbuf_free(&c);
  vs_sbuf_free(&b);
  ck_assert_ptr_null(b.p);
  ck_assert_uint_eq(b.n, 0);
}
END_TEST

START_TEST(sbuf_limit_stops_appending) {
  vs_sbuf b = {0};
  b.limit = 8;
  vs_sbuf_puts(&b, "1234567"); /* 7 bytes: shorter than the limit */
  ck_assert_int_eq(b.bad, 0);
  vs_sbuf_puts(&b, "8"); /* 8: not shorter */
  ck_assert_int_eq(b.bad, VS_SBUF_LIMIT);
  ck_assert_str_eq(b.p, "1234567");
  vs_sbuf_printf(&b, "%s", "more");
  vs_sbuf_puts(&b, "");
  ck_assert_str_eq(b.p, "1234567");
  vs_sbuf_free(&b);
  vs_sbuf d = {0};
  d.limit = 8;
  vs_sbuf_printf(&d, "%d", 123456789);
  ck_assert_int_eq(d.bad, VS_SBUF_LIMIT);
  vs_sbuf_free(&d);
}
END_TEST

START_TEST(edit_distance_counts_edits_up_to_the_cap) {
  ck_assert_int_eq(vs_edit_distance("", "", 2), 0);
  ck_assert_int_eq(vs_edit_distance("frames", "frames", 2), 0);
  ck_assert_int_eq(vs_edit_distance("frame", "frames", 2), 1);   /* insertion */
  ck_assert_int_eq(vs_edit_distance("framse", "frames", 2), 1);  /* transposition */
  ck_assert_int_eq(vs_edit_distance("frxmes", "frames", 2), 1);  /* substitution */
  ck_assert_int_eq(vs_edit_distance("fames", "frames", 2), 1);   /* deletion */
  ck_assert_int_eq(vs_edit_distance("kitten", "sitting", 5), 3);
  ck_assert_int_eq(vs_edit_distance("kitten", "sitting", 2), 3); /* capped: max + 1 */
  ck_assert_int_eq(vs_edit_distance("ca", "abc", 5), 3);         /* OSA, not Damerau: 3 */
  ck_assert_int_eq(vs_edit_distance("a", "abcd", 2), 3);         /* lengths alone say > 2 */
  ck_assert_int_eq(vs_edit_distance("grid", "zip", 9), 3);
  ck_assert_int_eq(vs_edit_distance("abc", "xyz", 0), 1);
  ck_assert_int_eq(vs_edit_distance("abc", "abc", 0), 0);
  char longer[80];
  memset(longer, 'a', sizeof longer - 1);
  longer[79] = '\0';
  ck_assert_int_eq(vs_edit_distance(longer, longer, 2), 3); /* over 64 bytes: no answer */
  longer[64] = '\0';
  ck_assert_int_eq(vs_edit_distance(longer, longer, 2), 0);
}
END_TEST

START_TEST(read_file_reads_all_and_enforces_the_limit) {
  char *dir = tu_tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/in.yaml", dir);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  char body[10000];
  for (size_t i = 0; i < sizeof body; i++) body[i] = (char)('a' + i % 26);
  body[5000] = '\0'; /* a NUL inside is kept: the length says how much */
  ck_assert_uint_eq(fwrite(body, 1, sizeof body, f), sizeof body);
  fclose(f);
  char *text = NULL;
  size_t len = 0;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_read_file(path, "scene file", 10000, &text, &len, &e), VS_OK);
  ck_assert_uint_eq(len, sizeof body);
  ck_assert(memcmp(text, body, len) == 0);
  ck_assert_int_eq(text[len], '\0');
  vs_free(text);

  ck_assert_int_eq(vs_read_file(path, "scene file", 9999, &text, &len, &e), VS_ERR_LIMIT);
  ck_assert_ptr_null(text);
  char want[700];
  snprintf(want, sizeof want, "scene file '%s' is 10000 bytes, over the limit of 9999 bytes", path);
  ck_assert_str_eq(e.message, want);
  ck_assert_str_eq(e.file, path);

  ck_assert_int_eq(vs_read_file(dir, "sweep file", 100, &text, &len, &e), VS_ERR_IO);
  snprintf(want, sizeof want, "cannot read sweep file '%s': it is a directory", dir);
  ck_assert_str_eq(e.message, want);

  snprintf(path, sizeof path, "%s/missing.yaml", dir);
  ck_assert_int_eq(vs_read_file(path, "scene file", 100, &text, &len, &e), VS_ERR_IO);
  snprintf(want, sizeof want, "cannot read scene file '%s': No such file or directory", path);
  ck_assert_str_eq(e.message, want);

  /* An empty file is an empty text, not an error. */
  snprintf(path, sizeof path, "%s/empty.yaml", dir);
  f = fopen(path, "wb");
  fclose(f);
  ck_assert_int_eq(vs_read_file(path, "scene file", 100, &text, &len, &e), VS_OK);
  ck_assert_uint_eq(len, 0);
  ck_assert_str_eq(text, "");
  vs_free(text);
  tu_rmtree(dir);
  free(dir);
}
END_TEST

/* A pipe has no size to check up front: the reader stops one byte past the
 * limit and says so. */
START_TEST(read_file_catches_a_pipe_over_the_limit) {
  char *dir = tu_tmpdir();
  char path[512];
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fd = open(path, O_WRONLY);
    char chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    for (int i = 0; i < 64; i++)
      if (write(fd, chunk, sizeof chunk) < 0) break;
    _exit(0);
  }
  char *text = NULL;
  size_t len = 0;
  vs_error e;
  vs_error_clear(&e);
  ck_assert_int_eq(vs_read_file(path, "sweep file", 100000, &text, &len, &e), VS_ERR_LIMIT);
  ck_assert_ptr_null(text);
  char want[700];
  snprintf(want, sizeof want, "sweep file '%s' is over the limit of 100000 bytes", path);
  ck_assert_str_eq(e.message, want);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  tu_rmtree(dir);
  free(dir);
}
END_TEST

/* The one directory-part helper of the input and output checks: the same
 * answers that outfile.c and xdmf.c each computed with their own copy. */
START_TEST(dir_part_and_file_kind) {
  static const char *const cases[][2] = {{"x.h5", "."}, {"/x.h5", "/"}, {"a/x.h5", "a"},
                                         {"a/b/x.h5", "a/b"}, {"a/b/", "a/b"}, {"a//x", "a/"},
                                         {"/a/x", "/a"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *d = vs_dir_part(cases[i][0]);
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(d, cases[i][1]);
    ck_assert_uint_eq(vs_dir_len(cases[i][0]), strcmp(cases[i][1], ".") ? strlen(cases[i][1]) : 0);
    vs_free(d);
  }
  ck_assert_str_eq(vs_file_kind(S_IFDIR), "a directory");
  ck_assert_str_eq(vs_file_kind(S_IFIFO), "a FIFO (named pipe)");
  ck_assert_str_eq(vs_file_kind(S_IFLNK), "a symbolic link");
  ck_assert_str_eq(vs_file_kind(S_IFREG), "not a regular file");
}
END_TEST

/* What a message may show of a path (vs_text_escape): printable ASCII and
 * well-formed UTF-8 above the C1 controls as they are, every other byte as
 * \xNN; the length returned like snprintf's. */
static void expect_text(const char *in, const char *want) {
  char out[256];
  size_t n = vs_text_escape(out, sizeof out, in);
  ck_assert_str_eq(out, want);
  ck_assert_uint_eq(n, strlen(want));
}

START_TEST(text_escape_shows_non_printable_bytes) {
  expect_text(NULL, "");
  expect_text("plain/path-1.h5 ~", "plain/path-1.h5 ~");
  expect_text("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"); /* a terminal's colour */
  expect_text("a\nvsim: b\r\t\x7f", "a\\x0avsim: b\\x0d\\x09\\x7f");
  expect_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  expect_text("\xc2\x9b" "2J", "\\xc2\\x9b" "2J"); /* U+009B: CSI of C1, not printable */
  expect_text("\x9b" "2J", "\\x9b" "2J");           /* a lone CSI byte */
  expect_text("\xc3(\xe2\x82", "\\xc3(\\xe2\\x82");   /* malformed, cut short */
  expect_text("\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80"); /* overlong, surrogate */
  char small[6];
  ck_assert_uint_eq(vs_text_escape(small, sizeof small, "ab\x1b"), 6);
  ck_assert_str_eq(small, "ab\\x1");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("util");
  TCase *t = tcase_create("util");
  tcase_add_test(t, json_escapes_every_control_character);
  tcase_add_test(t, text_escape_shows_non_printable_bytes);
  tcase_add_test(t, json_escape_truncates_like_snprintf);
  tcase_add_test(t, sbuf_grows_and_keeps_every_byte);
  tcase_add_test(t, sbuf_limit_stops_appending);
  tcase_add_test(t, edit_distance_counts_edits_up_to_the_cap);
  tcase_add_test(t, read_file_reads_all_and_enforces_the_limit);
  tcase_add_test(t, read_file_catches_a_pipe_over_the_limit);
  tcase_add_test(t, dir_part_and_file_kind);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_run(suite());
}
