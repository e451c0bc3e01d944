/* SPDX-License-Identifier: MIT */
/* test_h5guard.c: the validating HDF5 reader (lib/io/guard/h5guard.c) against
 * hostile files the tests build themselves with the HDF5 C API: links and
 * storage that lead out of the file, virtual datasets, declared sizes the
 * file cannot hold, counts that overflow, wrong types and ranks, a chunk
 * dimension patched to 0, special files, a truncated file.  Each must be
 * refused with the right message, without a crash or a hang (check's
 * per-test timeout).  The structure probe: a child that crashes, loops or
 * allocates without bound refuses the file, this process untouched.  Then
 * the fuzz harness's checks on the golden files and on every input kept in
 * tests/data/fuzz-h5/. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <time.h>

#include "testutil.h"
#include "fuzz/fuzz_h5.c"
#include "io/guard/h5guard_int.h"

static hid_t new_file(const char *name) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fcreate(tu_path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  return f;
}

/* A dataset of rank r, written from data when given; dcpl may be H5P_DEFAULT. */
static void put(hid_t f, const char *path, hid_t ftype, hid_t mtype, int r, const hsize_t *dims,
                const hsize_t *maxdims, hid_t dcpl, const void *data) {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t s = r == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(r, dims, maxdims);
  hid_t d = H5Dcreate2(f, path, ftype, s, lcpl, dcpl, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "creating %s", path);
  if (data) ck_assert_int_ge(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
  H5Dclose(d);
  H5Sclose(s);
  H5Pclose(lcpl);
}

static void put_str_attr(hid_t f, const char *obj, const char *name, const char *v, int vlen) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, vlen ? H5T_VARIABLE : strlen(v));
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate_by_name(f, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Awrite(a, t, vlen ? (const void *)&v : (const void *)v), 0);
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

static void put_num_attr(hid_t f, const char *obj, const char *name, hid_t ftype, hid_t mtype,
                         const void *v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate_by_name(f, obj, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Awrite(a, mtype, v), 0);
  H5Aclose(a);
  H5Sclose(s);
}

/* A small valid file: /g/x float64 [10, 3] contiguous, /g/c int64 [20]
 * chunked by 8 with deflate, and attributes on /g. */
static void make_good(const char *name) {
  hid_t f = new_file(name);
  double x[30];
  for (int i = 0; i < 30; i++) x[i] = i * 0.5;
  put(f, "/g/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t[]){10, 3}, NULL, H5P_DEFAULT, x);
  int64_t c[20];
  for (int i = 0; i < 20; i++) c[i] = 100 + i;
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){8});
  H5Pset_shuffle(dcpl);
  H5Pset_deflate(dcpl, 6);
  put(f, "/g/c", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t[]){20}, (hsize_t[]){H5S_UNLIMITED},
      dcpl, c);
  H5Pclose(dcpl);
  put_str_attr(f, "/g", "fixed", "complete", 0);
  put_str_attr(f, "/g", "vlen", "name\x1b]0;pwned\x07 tab\t\xc2\x9b end", 1);
  int64_t frame = 7;
  double nan = NAN, t = 1.25;
  put_num_attr(f, "/g", "frame", H5T_STD_I64LE, H5T_NATIVE_INT64, &frame);
  put_num_attr(f, "/g", "nan", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &nan);
  put_num_attr(f, "/g", "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t);
  H5Fclose(f);
}

static vs_h5g_file open_ok(const char *path) {
  vs_h5g_file f;
  vs_error e;
  vs_error_clear(&e);
  vs_status rc = vs_h5g_open(path, &f, &e);
  ck_assert_msg(rc == VS_OK, "open %s: %s", path, e.message);
  return f;
}

/* Open dataset `path` of file `name` with spec and expect failure code
 * rc with a message containing want. */
static void expect_refused(const char *name, const char *path, const vs_h5g_spec *spec,
                           vs_status rc, const char *want) {
  vs_h5g_file f = open_ok(tu_path(name));
  vs_h5g_dset d;
  vs_error e;
  vs_error_clear(&e);
  vs_status got = vs_h5g_dset_open(&f, path, spec, &d, &e);
  ck_assert_msg(got == rc && strstr(e.message, want), "%s:%s: got %d '%s', want %d '%s'", name,
                path, got, e.message, rc, want);
  ck_assert_int_lt(d.id, 0);
  ck_assert_str_eq(e.file, tu_path(name));
  vs_h5g_close(&f);
}

static vs_h5g_spec any_spec(void) {
  vs_h5g_spec s;
  vs_h5g_spec_init(&s, VS_H5G_NUMERIC, -1, (uint64_t)1 << 30);
  return s;
}

START_TEST(good_file_reads) {
  make_good("good.h5");
  vs_h5g_file f = open_ok(tu_path("good.h5"));
  ck_assert_uint_eq(f.size, (uint64_t)lseek(f.fd, 0, SEEK_END));
  vs_h5g_spec s;
  vs_h5g_spec_init(&s, VS_H5G_F64, 2, 1000);
  vs_h5g_spec_dim(&s, 0, 1, 100);
  vs_h5g_spec_dim(&s, 1, 3, 3);
  vs_h5g_dset d;
  vs_error e;
  ck_assert_int_eq(vs_h5g_dset_open(&f, "/g/x", &s, &d, &e), VS_OK);
  ck_assert_int_eq(d.rank, 2);
  ck_assert_uint_eq(d.n_elems, 30);
  ck_assert_uint_eq(d.row_elems, 3);
  ck_assert_uint_eq(d.type, VS_H5G_F64);
  double buf[9] = {0};
  ck_assert_uint_eq(vs_h5g_rows_per(&d, H5T_NATIVE_DOUBLE, sizeof buf), 3);
  ck_assert_int_eq(vs_h5g_read_rows(&f, &d, H5T_NATIVE_DOUBLE, 2, 5, buf, sizeof buf, &e), VS_OK);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(buf[i], (6 + i) * 0.5);
  /* a buffer one row short and a range past the end are refused */
  ck_assert_int_eq(vs_h5g_read_rows(&f, &d, H5T_NATIVE_DOUBLE, 2, 6, buf, sizeof buf, &e),
                   VS_ERR_USAGE);
  ck_assert_int_eq(vs_h5g_read_rows(&f, &d, H5T_NATIVE_DOUBLE, 9, 11, buf, sizeof buf, &e),
                   VS_ERR_USAGE);
  vs_h5g_dset_close(&d);
  /* the chunked one, read in slabs of 8 */
  vs_h5g_spec_init(&s, VS_H5G_I64 | VS_H5G_I32, 1, 1000);
  ck_assert_int_eq(vs_h5g_dset_open(&f, "/g/c", &s, &d, &e), VS_OK);
  int64_t c[8];
  for (uint64_t a = 0; a < 20; a += 8) {
    uint64_t b = a + 8 < 20 ? a + 8 : 20;
    ck_assert_int_eq(vs_h5g_read_rows(&f, &d, H5T_NATIVE_INT64, a, b, c, sizeof c, &e), VS_OK);
    for (uint64_t i = a; i < b; i++) ck_assert_int_eq(c[i - a], 100 + (int64_t)i);
  }
  vs_h5g_dset_close(&d);
  vs_h5g_close(&f);
}
END_TEST

START_TEST(attributes) {
  make_good("good.h5");
  vs_h5g_file f = open_ok(tu_path("good.h5"));
  vs_error e;
  char *s = NULL;
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "fixed", 100, &s, &e), VS_OK);
  ck_assert_str_eq(s, "complete");
  vs_free(s);
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "vlen", 100, &s, &e), VS_OK);
  ck_assert_str_eq(s, "name\x1b]0;pwned\x07 tab\t\xc2\x9b end"); /* raw, as stored */
  char esc[128];
  ck_assert_str_eq(vs_h5g_escape(s, esc, sizeof esc), "name\\x1b]0;pwned\\x07 tab\\t\\xc2\\x9b end");
  vs_free(s);
  /* bounded length, for both kinds */
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "fixed", 7, &s, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "attribute 'fixed' of /g is a string of 8 bytes (1 to 7 accepted)");
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "vlen", 5, &s, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "attribute 'vlen' of /g is longer than 5 bytes");
  ck_assert_ptr_null(s);
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "frame", 100, &s, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "attribute 'frame' of /g is not a string");
  ck_assert_int_eq(vs_h5g_attr_string(&f, "/g", "nope", 100, &s, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "/g has no attribute 'nope'");
  /* numbers: NaN is no integer, ranges are enforced */
  int64_t v;
  double t;
  ck_assert_int_eq(vs_h5g_attr_int64(&f, "/g", "frame", 0, 10, &v, &e), VS_OK);
  ck_assert_int_eq(v, 7);
  ck_assert_int_eq(vs_h5g_attr_int64(&f, "/g", "frame", 8, 10, &v, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "attribute 'frame' of /g is 7, outside [8, 10]");
  ck_assert_int_eq(vs_h5g_attr_int64(&f, "/g", "nan", 0, 10, &v, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "attribute 'nan' of /g is float64, expected an integer");
  ck_assert_int_eq(vs_h5g_attr_double(&f, "/g", "nan", -1e300, 1e300, &t, &e), VS_ERR_FORMAT);
  ck_assert_int_eq(vs_h5g_attr_double(&f, "/g", "time", 0, 2, &t, &e), VS_OK);
  ck_assert_double_eq(t, 1.25);
  vs_h5g_close(&f);
}
END_TEST

START_TEST(escape_text) {
  char b[16];
  ck_assert_str_eq(vs_h5g_escape("a\\b\nc\r", b, sizeof b), "a\\\\b\\nc\\r");
  ck_assert_str_eq(vs_h5g_escape("\xff\x7f", b, sizeof b), "\\xff\\x7f");
  ck_assert_str_eq(vs_h5g_escape("caf\xc3\xa9", b, sizeof b), "caf\xc3\xa9"); /* UTF-8 kept */
  ck_assert_str_eq(vs_h5g_escape("0123456789abcdefghij", b, sizeof b), "0123456789ab...");
  ck_assert_str_eq(vs_h5g_escape("\xed\xa0\x80", b, sizeof b), "\\xed\\xa0\\x80"); /* surrogate */
}
END_TEST

/* A FIFO at the end of a link: following it would block the test. */
START_TEST(external_links_refused) {
  ck_assert_int_eq(mkfifo(tu_path("victim.h5"), 0600), 0);
  hid_t f = new_file("elink.h5");
  put(f, "/g/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t[]){3}, NULL, H5P_DEFAULT,
      (double[]){1, 2, 3});
  ck_assert_int_ge(
      H5Lcreate_external(tu_path("victim.h5"), "/data", f, "/g/value", H5P_DEFAULT, H5P_DEFAULT),
      0);
  ck_assert_int_ge(
      H5Lcreate_external(tu_path("victim.h5"), "/", f, "/outside", H5P_DEFAULT, H5P_DEFAULT), 0);
  ck_assert_int_ge(H5Lcreate_soft("/g/x", f, "/g/soft", H5P_DEFAULT, H5P_DEFAULT), 0);
  H5Fclose(f);
  vs_h5g_spec s = any_spec();
  expect_refused("elink.h5", "/g/value", &s, VS_ERR_FORMAT,
                 "/g/value is an external link (to another file): refused");
  expect_refused("elink.h5", "/outside/data", &s, VS_ERR_FORMAT,
                 "/outside is an external link (to another file): refused");
  expect_refused("elink.h5", "/g/soft", &s, VS_ERR_FORMAT, "/g/soft is a soft link: refused");
  /* attributes through links too */
  vs_h5g_file h = open_ok(tu_path("elink.h5"));
  vs_error e;
  char *str;
  ck_assert_int_eq(vs_h5g_attr_string(&h, "/outside/data", "a", 10, &str, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "/outside is an external link (to another file): refused");
  /* the walk skips the soft link (a second name) and refuses the external
   * one: data outside this file */
  fuzz_h5_ctx c = {&h, malloc(FUZZ_SLAB_BYTES), 0};
  ck_assert_int_eq(vs_h5g_visit(&h, "/", 100, fuzz_h5_dataset, &c, &e), -1);
  ck_assert_str_eq(e.message, "/g/value is an external link (to another file): refused");
  ck_assert_uint_eq(c.n_dsets, 0);
  /* and the object limit holds */
  ck_assert_int_eq(vs_h5g_visit(&h, "/", 1, fuzz_h5_dataset, &c, &e), -1);
  ck_assert_str_eq(e.message, "more objects than the limit");
  free(c.buf);
  vs_h5g_close(&h);
}
END_TEST

START_TEST(external_storage_and_virtual_refused) {
  hid_t f = new_file("ext.h5");
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  ck_assert_int_ge(H5Pset_external(dcpl, tu_path("victim.txt"), 32, 24), 0);
  put(f, "/step", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t[]){3}, NULL, dcpl, NULL);
  H5Pclose(dcpl);
  /* a virtual dataset mapping another file's /data */
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t vs = H5Screate_simple(1, (hsize_t[]){4}, NULL), ss = H5Screate_simple(1, (hsize_t[]){4}, NULL);
  ck_assert_int_ge(H5Pset_virtual(dcpl, vs, tu_path("src.h5"), "/data", ss), 0);
  put(f, "/virt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t[]){4}, NULL, dcpl, NULL);
  H5Sclose(vs);
  H5Sclose(ss);
  H5Pclose(dcpl);
  /* a filter vsim does not write */
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){4});
  H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
  put(f, "/so", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, (hsize_t[]){4}, NULL, dcpl, (int32_t[]){1, 2, 3, 4});
  H5Pclose(dcpl);
  /* deflate twice: ratios multiply, a megabyte of chunks is a terabyte */
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){4});
  H5Pset_deflate(dcpl, 9);
  H5Pset_shuffle(dcpl);
  H5Pset_deflate(dcpl, 9);
  put(f, "/dd", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t[]){4}, NULL, dcpl,
      (double[]){0, 0, 0, 0});
  H5Pclose(dcpl);
  H5Fclose(f);
  vs_h5g_spec s = any_spec();
  expect_refused("ext.h5", "/step", &s, VS_ERR_FORMAT,
                 "/step has external storage (its data in other files): refused");
  expect_refused("ext.h5", "/virt", &s, VS_ERR_FORMAT,
                 "/virt is a virtual dataset (its data in other files): refused");
  expect_refused("ext.h5", "/so", &s, VS_ERR_FORMAT,
                 "/so uses HDF5 filter 6, which vsim does not read");
  expect_refused("ext.h5", "/dd", &s, VS_ERR_FORMAT, "/dd is deflated 2 times over: refused");
  struct stat st;
  ck_assert_int_ne(stat(tu_path("victim.txt"), &st), 0); /* never created */
}
END_TEST

START_TEST(declared_sizes_refused) {
  hid_t f = new_file("huge.h5");
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){1024});
  /* 2^50 frames, nothing stored: legal and tiny on disk */
  put(f, "/frames", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t[]){(hsize_t)1 << 50},
      (hsize_t[]){H5S_UNLIMITED}, dcpl, NULL);
  H5Pclose(dcpl);
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, (hsize_t[]){1, 1024});
  put(f, "/square", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2,
      (hsize_t[]){(hsize_t)1 << 32, (hsize_t)1 << 32}, NULL, dcpl, NULL);
  H5Pclose(dcpl);
  /* a chunk of 2^28 doubles: 2 GiB in memory to read one */
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 3, (hsize_t[]){1, 1, (hsize_t)1 << 28});
  put(f, "/bigchunk", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, (hsize_t[]){1, 1, (hsize_t)1 << 28},
      NULL, dcpl, NULL);
  H5Pclose(dcpl);
  H5Fclose(f);
  struct stat st;
  ck_assert_int_eq(stat(tu_path("huge.h5"), &st), 0);
  ck_assert_int_lt(st.st_size, 20000);
  vs_h5g_spec s;
  vs_h5g_spec_init(&s, VS_H5G_NUMERIC, -1, UINT64_MAX);
  expect_refused("huge.h5", "/frames", &s, VS_ERR_FORMAT,
                 "/frames declares 1099511627776 chunks of data but the file stores 0");
  expect_refused("huge.h5", "/square", &s, VS_ERR_FORMAT,
                 "/square is [4294967296, 4294967296]: more elements than can be counted");
  expect_refused("huge.h5", "/bigchunk", &s, VS_ERR_FORMAT,
                 "/bigchunk has chunk dimension 268435456 along axis 2 (chunks must be 1 to");
  vs_h5g_spec_init(&s, VS_H5G_NUMERIC, -1, (uint64_t)1 << 30);
  expect_refused("huge.h5", "/frames", &s, VS_ERR_LIMIT,
                 "/frames is [1125899906842624]: 9007199254740992 bytes, over the limit of "
                 "1073741824");
  vs_h5g_spec_init(&s, VS_H5G_NUMERIC, 1, UINT64_MAX);
  vs_h5g_spec_dim(&s, 0, 0, 1000000);
  expect_refused("huge.h5", "/frames", &s, VS_ERR_FORMAT,
                 "/frames is [1125899906842624]; expected 0 to 1000000 along axis 0");
}
END_TEST

START_TEST(types_and_ranks_refused) {
  hid_t f = new_file("types.h5");
  put(f, "/x", H5T_STD_I8LE, H5T_NATIVE_INT8, 2, (hsize_t[]){4, 3}, NULL, H5P_DEFAULT,
      (int8_t[12]){0});
  put(f, "/scalar", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, 0, NULL, NULL, H5P_DEFAULT, (double[]){1.5});
  hid_t str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 8);
  put(f, "/name", str, str, 1, (hsize_t[]){2}, NULL, H5P_DEFAULT, "abcdefghABCDEFGH");
  H5Tclose(str);
  hid_t odd = H5Tcopy(H5T_IEEE_F64LE);
  H5Tset_ebias(odd, 1000);
  put(f, "/oddfloat", odd, H5T_NATIVE_DOUBLE, 1, (hsize_t[]){2}, NULL, H5P_DEFAULT, NULL);
  H5Tclose(odd);
  H5Gclose(H5Gcreate2(f, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Fclose(f);
  vs_h5g_spec s;
  vs_h5g_spec_init(&s, VS_H5G_F64 | VS_H5G_F32, 2, 1 << 20);
  expect_refused("types.h5", "/x", &s, VS_ERR_FORMAT, "/x is int8, expected float64 or float32");
  expect_refused("types.h5", "/name", &s, VS_ERR_FORMAT, "/name is string, expected float64");
  expect_refused("types.h5", "/oddfloat", &s, VS_ERR_FORMAT,
                 "/oddfloat is a non-standard float of 8 bytes, expected");
  expect_refused("types.h5", "/scalar", &s, VS_ERR_FORMAT,
                 "/scalar is [], of rank 0; expected rank 2");
  expect_refused("types.h5", "/grp", &s, VS_ERR_FORMAT, "/grp is not a dataset");
  expect_refused("types.h5", "/missing/x", &s, VS_ERR_FORMAT, "no /missing/x");
  expect_refused("types.h5", "/x/below", &s, VS_ERR_FORMAT, "no /x/below");
  expect_refused("types.h5", "bad//path", &s, VS_ERR_FORMAT, "bad object path 'bad//path'");
  vs_h5g_spec_init(&s, VS_H5G_INT, 2, 1 << 20);
  vs_h5g_spec_dim(&s, 1, 4, 4);
  expect_refused("types.h5", "/x", &s, VS_ERR_FORMAT, "/x is [4, 3]; expected 4 along axis 1");
  /* rank 0 read as one row, big-endian converted */
  vs_h5g_spec_init(&s, VS_H5G_F64, 0, 8);
  vs_h5g_file h = open_ok(tu_path("types.h5"));
  vs_h5g_dset d;
  vs_error e;
  ck_assert_int_eq(vs_h5g_dset_open(&h, "/scalar", &s, &d, &e), VS_OK);
  double v = 0;
  ck_assert_int_eq(vs_h5g_read_rows(&h, &d, H5T_NATIVE_DOUBLE, 0, 1, &v, sizeof v, &e), VS_OK);
  ck_assert_double_eq(v, 1.5);
  vs_h5g_dset_close(&d);
  vs_h5g_close(&h);
}
END_TEST

/* The only chunk dimension pat in a layout message v3 (version 3, class
 * chunked, dimensionality 2, an 8-byte address, then the dimensions): its
 * offset, -1 when absent, -2 when not unique. */
static long find_once(const char *path, const unsigned char pat[4], unsigned char **data,
                      size_t *len) {
  *data = (unsigned char *)tu_read_file(path, len);
  long at = -1;
  for (size_t i = 0; i + 4 <= *len; i++)
    if (i >= 11 && memcmp(*data + i, pat, 4) == 0 && (*data)[i - 11] == 3 &&
        (*data)[i - 10] == 2 && (*data)[i - 9] == 2) {
      if (at >= 0) return -2;
      at = (long)i;
    }
  return at;
}

/* HDF5's API refuses chunk dimensions of 0, so write a file with a
 * distinctive chunk dimension and patch it (layout message v3: the
 * dimensionality byte, an 8-byte address, then 4-byte dimensions). */
START_TEST(chunk_dim_zero_refused) {
  hid_t f = new_file("chunk0.h5");
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){0x123457});
  H5Pset_deflate(dcpl, 1);
  put(f, "/c", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, (hsize_t[]){16}, (hsize_t[]){H5S_UNLIMITED}, dcpl,
      (uint8_t[16]){1, 2, 3});
  H5Pclose(dcpl);
  H5Fclose(f);
  static const unsigned char pat[4] = {0x57, 0x34, 0x12, 0x00};
  unsigned char *data;
  size_t len;
  long at = find_once(tu_path("chunk0.h5"), pat, &data, &len);
  ck_assert_int_ge(at, 9);
  ck_assert_int_eq(data[at - 9], 2); /* dimensionality: rank + 1 */
  vs_h5g_spec s = any_spec();
  /* HDF5 1.10.8 checks this one itself (1.10 before did not: the guard's
   * own check says "has chunk dimension 0") */
  memset(data + at, 0, 4);
  FILE *fp = fopen(tu_path("chunk0.h5"), "wb");
  fwrite(data, 1, len, fp);
  fclose(fp);
  expect_refused("chunk0.h5", "/c", &s, VS_ERR_FORMAT, "/c has chunk dimension 0 along axis 0");
  /* the dimensionality byte: 0 makes HDF5 1.10.8 divide by zero inside
   * H5Dopen (the guard reads the object header first); 1 is a chunk of
   * rank 0 for a dataset of rank 1; 3 (HDF5 refuses it but leaks) */
  memcpy(data + at, pat, 4);
  static const char *const want[] = {
      "/c has a chunked layout of dimensionality 0 (at least 2)",
      "/c has a chunked layout of dimensionality 1 (at least 2)", NULL,
      "/c has a chunked layout of dimensionality 3 for a dataset of rank 1"};
  for (int nd = 0; nd < 4; nd++) {
    if (!want[nd]) continue;
    data[at - 9] = (unsigned char)nd;
    fp = fopen(tu_path("chunk0.h5"), "wb");
    fwrite(data, 1, len, fp);
    fclose(fp);
    expect_refused("chunk0.h5", "/c", &s, VS_ERR_FORMAT, want[nd]);
    /* the walk does not open it either */
    vs_h5g_file h = open_ok(tu_path("chunk0.h5"));
    fuzz_h5_ctx c = {&h, malloc(FUZZ_SLAB_BYTES), 0};
    vs_error e;
    ck_assert_int_eq(vs_h5g_visit(&h, "/", 100, fuzz_h5_dataset, &c, &e), 0);
    ck_assert_uint_eq(c.n_dsets, 1);
    free(c.buf);
    vs_h5g_close(&h);
  }
  free(data);
}
END_TEST

/* The object header reader accepts what HDF5 writes: v1 and v2 headers
 * (libver latest: layout v4), with continuation blocks (many attributes
 * added after the dataset). */
START_TEST(object_headers_read) {
  for (int latest = 0; latest < 2; latest++) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(tu_path("hdr.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, (hsize_t[]){3, 2});
    H5Pset_deflate(dcpl, 1);
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    put(f, "/a/c", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t[]){4, 2},
        (hsize_t[]){H5S_UNLIMITED, 2}, dcpl, x);
    put(f, "/a/k", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t[]){4, 2}, NULL, H5P_DEFAULT, x);
    H5Pclose(dcpl);
    for (int i = 0; i < 40; i++) {
      char name[32];
      snprintf(name, sizeof name, "attribute_number_%d", i);
      put_str_attr(f, "/a/c", name, "a value long enough to fill the object header", 0);
      put_str_attr(f, "/a/k", name, "a value long enough to fill the object header", 0);
    }
    H5Fclose(f);
    vs_h5g_file h = open_ok(tu_path("hdr.h5"));
    vs_h5g_spec s = any_spec();
    vs_h5g_dset d;
    vs_error e;
    double buf[8];
    const char *paths[] = {"/a/c", "/a/k"};
    for (int k = 0; k < 2; k++) {
      ck_assert_msg(vs_h5g_dset_open(&h, paths[k], &s, &d, &e) == VS_OK, "latest=%d %s: %s", latest,
                    paths[k], e.message);
      ck_assert_int_eq(vs_h5g_read_rows(&h, &d, H5T_NATIVE_DOUBLE, 0, 4, buf, sizeof buf, &e), VS_OK);
      ck_assert_double_eq(buf[7], 8);
      vs_h5g_dset_close(&d);
    }
    vs_h5g_close(&h);
  }
}
END_TEST

START_TEST(special_files_refused) {
  ck_assert_int_eq(mkfifo(tu_path("fifo.h5"), 0600), 0);
  ck_assert_int_eq(mkdir(tu_path("dir.h5"), 0700), 0);
  struct {
    const char *path, *msg;
  } cases[] = {
      {tu_path("fifo.h5"), "cannot open: a FIFO (named pipe), not a regular file"},
      {tu_path("dir.h5"), "cannot open: a directory, not a regular file"},
      {"/dev/null", "cannot open: a character device, not a regular file"},
      {tu_path("missing.h5"), "cannot open: No such file or directory"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vs_h5g_file f;
    vs_error e;
    vs_error_clear(&e);
    ck_assert_int_eq(vs_h5g_open(cases[i].path, &f, &e), VS_ERR_IO);
    ck_assert_str_eq(e.message, cases[i].msg);
    ck_assert_str_eq(e.file, cases[i].path);
    ck_assert_int_lt(f.fd, 0);
    ck_assert_int_lt(f.file, 0);
  }
  /* a symbolic link to a regular file is followed; to a FIFO refused */
  make_good("good.h5");
  ck_assert_int_eq(symlink(tu_path("good.h5"), tu_path("link.h5")), 0);
  ck_assert_int_eq(symlink(tu_path("fifo.h5"), tu_path("link-fifo.h5")), 0);
  vs_h5g_file f = open_ok(tu_path("link.h5"));
  vs_h5g_close(&f);
  vs_error e;
  ck_assert_int_eq(vs_h5g_open(tu_path("link-fifo.h5"), &f, &e), VS_ERR_IO);
  ck_assert_str_eq(e.message, "cannot open: a FIFO (named pipe), not a regular file");
}
END_TEST

START_TEST(corrupt_files_explained) {
  make_good("good.h5");
  struct stat st;
  ck_assert_int_eq(stat(tu_path("good.h5"), &st), 0);
  ck_assert_int_eq(truncate(tu_path("good.h5"), st.st_size / 2), 0);
  vs_h5g_file f;
  vs_error e;
  ck_assert_int_eq(vs_h5g_open(tu_path("good.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_msg(strstr(e.message, "cannot open: truncated file: eof = ") != NULL, "%s", e.message);
  ck_assert_ptr_null(strstr(e.message, "unknown HDF5 error"));
  FILE *fp = fopen(tu_path("text.h5"), "w");
  fputs("not hdf5 at all\n", fp);
  fclose(fp);
  ck_assert_int_eq(vs_h5g_open(tu_path("text.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_msg(strncmp(e.message, "cannot open: not an HDF5 file (", 31) == 0, "%s", e.message);
  fp = fopen(tu_path("empty.h5"), "w");
  fclose(fp);
  ck_assert_int_eq(vs_h5g_open(tu_path("empty.h5"), &f, &e), VS_ERR_FORMAT);
}
END_TEST

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The structure probe (h5guard_probe.c): HDF5 walks the file in a child
 * first; when that child crashes, runs out of time or fails, the file is
 * refused and nothing is left open here.  A clean probe is remembered
 * until the file changes. */
START_TEST(structure_probe) {
  make_good("good.h5");
  vs_h5g_file f;
  vs_error e;
  vs_h5g__probe_test(1, 0, 1);
  ck_assert_int_eq(vs_h5g_open(tu_path("good.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "corrupt file: HDF5 failed reading its structure (signal 11)");
  ck_assert_str_eq(e.file, tu_path("good.h5"));
  ck_assert_int_lt(f.fd, 0);
  ck_assert_int_lt(f.file, 0);
  /* a hang: the child's alarm (2 s) or CPU limit (1 s) */
  vs_h5g__probe_test(2, 2, 1);
  double t0 = seconds_now();
  ck_assert_int_eq(vs_h5g_open(tu_path("good.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_msg(strstr(e.message, "corrupt file: HDF5 did not finish reading its structure in ") ==
                    e.message, "%s", e.message);
  ck_assert_msg(seconds_now() - t0 < 10, "%.1f s", seconds_now() - t0);
  /* unbounded allocation: the child's address space is limited, so its
   * malloc fails (it then exits 0, the file opens) or, under a sanitizer
   * that dies when out of memory, the file is refused; never a timeout */
  vs_h5g__probe_test(3, 30, 1);
  t0 = seconds_now();
  vs_status rc = vs_h5g_open(tu_path("good.h5"), &f, &e);
  if (rc == VS_OK)
    vs_h5g_close(&f);
  else
    ck_assert_msg(strstr(e.message, "(exit status ") != NULL, "%s", e.message);
  ck_assert_msg(seconds_now() - t0 < 20, "%.1f s", seconds_now() - t0);
  /* the same where RLIMIT_AS does not take (qemu-user says yes to it and
   * sets nothing): the child's size is watched, and the walk ends as a
   * failed allocation would end it, the file opens; never a timeout */
  vs_h5g__probe_test(4, 30, 1);
  t0 = seconds_now();
  rc = vs_h5g_open(tu_path("good.h5"), &f, &e);
  if (rc == VS_OK)
    vs_h5g_close(&f);
  else
    ck_assert_msg(strstr(e.message, "(exit status ") != NULL, "%s", e.message);
  ck_assert_msg(seconds_now() - t0 < 20, "%.1f s", seconds_now() - t0);
  /* remembered: probed clean once, not probed again until the file changes */
  vs_h5g__probe_test(0, 0, 1);
  f = open_ok(tu_path("good.h5"));
  vs_h5g_close(&f);
  vs_h5g__probe_test(1, 0, 0);
  f = open_ok(tu_path("good.h5"));
  vs_h5g_close(&f);
  struct timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  times[1].tv_sec = 1000000000; /* mtime: 2001 */
  times[1].tv_nsec = 0;
  ck_assert_int_eq(utimensat(AT_FDCWD, tu_path("good.h5"), times, 0), 0);
  ck_assert_int_eq(vs_h5g_open(tu_path("good.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "corrupt file: HDF5 failed reading its structure (signal 11)");
  vs_h5g__probe_test(0, 0, 1);
}
END_TEST

/* The fuzz harness's checks on every golden file and fuzz seed (each must
 * open and read whole) and on every input kept in tests/data/fuzz-h5/. */
START_TEST(fuzz_inputs_replay) {
  const char *root = getenv("VSIM_ROOT");
  const char *dirs[] = {"tests/golden", "tests/fuzz/seeds-h5", "tests/data/fuzz-h5"};
  int golden = 0, seeds = 0;
  for (int k = 0; k < 3; k++) {
    char d[1024];
    snprintf(d, sizeof d, "%s/%s", root && *root ? root : ".", dirs[k]);
    DIR *dp = opendir(d);
    if (!dp && k == 2) continue;
    ck_assert_msg(dp != NULL, "cannot open %s", d);
    struct dirent *ent;
    while ((ent = readdir(dp)) != NULL) {
      size_t n = strlen(ent->d_name);
      if (ent->d_name[0] == '.' || strcmp(ent->d_name, "README") == 0) continue;
      if (k < 2 && (n < 3 || strcmp(ent->d_name + n - 3, ".h5") != 0)) continue;
      char p[2048];
      snprintf(p, sizeof p, "%s/%s", d, ent->d_name);
      struct stat st;
      if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) continue;
      fprintf(stderr, "fuzz_h5 replay: %s\n", p);
      size_t nd = fuzz_h5_file(p);
      if (k < 2) {
        ck_assert_msg(nd > 20, "%s: only %zu datasets", p, nd);
        if (k == 0) golden++;
        else seeds++;
      }
    }
    closedir(dp);
  }
  ck_assert_int_ge(golden, 10);
  ck_assert_int_ge(seeds, 4);
}
END_TEST

/* Every golden file passes the strict checks: the guard refuses nothing
 * vsim writes. */
START_TEST(golden_files_pass) {
  const char *root = getenv("VSIM_ROOT");
  char p[1024];
  snprintf(p, sizeof p, "%s/tests/golden/default.h5", root && *root ? root : ".");
  vs_h5g_file f = open_ok(p);
  vs_h5g_spec s;
  vs_h5g_spec_init(&s, VS_H5G_F64 | VS_H5G_F32, 3, (uint64_t)1 << 30);
  vs_h5g_spec_dim(&s, 2, 3, 3);
  vs_h5g_dset d;
  vs_error e;
  ck_assert_int_eq(vs_h5g_dset_open(&f, "/particles/all/position/value", &s, &d, &e), VS_OK);
  vs_h5g_dset_close(&d);
  char *status = NULL;
  ck_assert_msg(vs_h5g_attr_string(&f, "/parameters/vsim", "status", 64, &status, &e) == VS_OK, "%s", e.message);
  ck_assert_str_eq(status, "complete");
  vs_free(status);
  vs_h5g_close(&f);
}
END_TEST

/* A file this thread has just written and published (vs_h5_finish) is not
 * probed again: the ParaView sidecar that `vsim run` writes from it cost a
 * fork and a walk, 20 ms of a tiny run's 45.  With the probe's child set to
 * crash, the fresh result opens; a copy of it (another inode) is refused;
 * and once the file changes it is probed again. */
START_TEST(own_output_is_trusted) {
  vs_scene *sc = tu_scene("time: {dt: 0.01, frames: 3}\n"
                          "bodies: [{particles: {name: p, positions: [[0, 1, 0]]}}]\n");
  vs_model *m = tu_model(sc);
  vs_state *st = tu_state(m);
  vs_error e;
  vs_h5_run_info info = {"vsim run", "", 1, NULL};
  vs_h5_writer *w = NULL;
  vs_h5g__probe_test(1, 0, 1);
  ck_assert_msg(vs_h5_open(tu_path("own.h5"), sc, m, &info, &w, &e) == VS_OK, "%s", e.message);
  ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  for (int f = 0; f < 3; f++) {
    ck_assert_int_eq(vs_step(m, st, &e), VS_OK);
    ck_assert_int_eq(vs_h5_record(w, m, st, &e), VS_OK);
  }
  ck_assert_int_eq(vs_h5_finish(w, "finished", 0.1, &e), VS_OK);
  vs_h5g_file f = open_ok(tu_path("own.h5"));
  vs_h5g_close(&f);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", tu_path("own.h5"), tu_path("copy.h5"));
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(vs_h5g_open(tu_path("copy.h5"), &f, &e), VS_ERR_FORMAT);
  ck_assert_str_eq(e.message, "corrupt file: HDF5 failed reading its structure (signal 11)");
  struct timespec times[2] = {{0, UTIME_NOW}, {1000000000, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, tu_path("own.h5"), times, 0), 0);
  ck_assert_int_eq(vs_h5g_open(tu_path("own.h5"), &f, &e), VS_ERR_FORMAT);
  vs_h5g__probe_test(0, 0, 1);
  vs_state_free(st);
  vs_model_free(m);
  vs_scene_free(sc);
}
END_TEST

int main(void) {
  Suite *s = suite_create("h5guard");
  TCase *tc = tcase_create("h5guard");
  tcase_add_checked_fixture(tc, tu_dir_setup, tu_dir_teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, good_file_reads);
  tcase_add_test(tc, attributes);
  tcase_add_test(tc, escape_text);
  tcase_add_test(tc, external_links_refused);
  tcase_add_test(tc, external_storage_and_virtual_refused);
  tcase_add_test(tc, declared_sizes_refused);
  tcase_add_test(tc, types_and_ranks_refused);
  tcase_add_test(tc, chunk_dim_zero_refused);
  tcase_add_test(tc, object_headers_read);
  tcase_add_test(tc, special_files_refused);
  tcase_add_test(tc, corrupt_files_explained);
  tcase_add_test(tc, structure_probe);
  tcase_add_test(tc, own_output_is_trusted);
  tcase_add_test(tc, golden_files_pass);
  /* every golden file and kept input, each probed in a child and read whole:
   * about a second a file under the sanitizers on a loaded machine */
  TCase *replay = tcase_create("replay");
  tcase_set_timeout(replay, 300);
  tcase_add_test(replay, fuzz_inputs_replay);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, replay);
  return tu_run(s);
}
