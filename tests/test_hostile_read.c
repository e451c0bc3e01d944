/* SPDX-License-Identifier: MIT */
/* test_hostile_read.c: end-to-end tests that `vsim compare` and `vsim info`
 * read a hostile result file through the validating reader (README.md,
 * Robustness: Reading result files, Memory, HDF5's own crashes):
 *
 *   - an external link, external storage (to a FIFO: info must not block)
 *     and a virtual dataset: exit 2 naming the path, promptly;
 *   - a FIFO or a device given as the file: exit 2, "not a regular file";
 *   - a 7 KB file declaring 2^50 frames, one declaring (1, 1, 2^28), one
 *     declaring [2^32, 2^32] (2^64 elements, which used to overflow to 0
 *     and compare "equal"): exit 2 within seconds, nothing allocated by the
 *     declared size;
 *   - a chunked layout of rank 0 (the layout's dimensionality patched to
 *     1): exit 2 at once instead of looping;
 *   - `status`, `name`, `command` holding terminal escapes: printed escaped;
 *   - a truncated file: HDF5's own reason, not "unknown HDF5 error";
 *   - the kept inputs that crashed HDF5 1.10.8 in H5Aread (a corrupt global
 *     heap): exit 2, no crash, no hang;
 *   - a corrupt dense-storage group that crashes HDF5's own H5Literate:
 *     info, compare, xdmf, render, plot and --resume refuse it (exit 2,
 *     "HDF5 failed reading its structure"), the file untouched;
 *   - xdmf, render and plot refuse the same files (the viewers' reader);
 *   - memory estimated before allocating: a 5-line scene with a 7000x7000
 *     cloth is refused at once saying how much it would take, and so is
 *     --resume of a file whose resolved scene is a 5000x5000 cloth with
 *     shear and bend links (the 7000x7000 one is over the constraint
 *     count limit with them, refused before the estimate; its checkpoint
 *     checksum recomputed here, so that only the scene is at fault);
 *   - a scene with a 700 x 700 grid mesh body: refused by the estimate
 *     before its OBJ is read (mesh bodies used to count as nothing).
 * The hostile files are made here with the HDF5 C API. */
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "runutil.h"

static void setup(void) {
  tu_dir_setup();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A small finished result file of the default scene. */
static void make_result(const char *name) {
  cu_proc p = cu_vsim(tu_dir(), "run", "--frames", "3", "-o", name, "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}

static hid_t open_rw(const char *name) {
  hid_t f = H5Fopen(tu_path(name), H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  return f;
}

/* A minimal file that passes for a vsim result: /h5md and /parameters/vsim. */
static hid_t new_result(const char *name) {
  hid_t f = H5Fcreate(tu_path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const char *groups[] = {"/h5md", "/parameters/vsim", "/particles/all/position"};
  for (int i = 0; i < 3; i++) {
    hid_t g = H5Gcreate2(f, groups[i], lcpl, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(g, 0);
    H5Gclose(g);
  }
  H5Pclose(lcpl);
  return f;
}

/* A chunked float64 dataset declared `dims`, of which only the first chunk
 * is written. */
static void declare(hid_t f, const char *path, int rank, const hsize_t *dims, const hsize_t *chunk) {
  hsize_t one[3] = {1, 1, 1}, maxd[3] = {H5S_UNLIMITED, H5S_UNLIMITED, H5S_UNLIMITED};
  hid_t s = H5Screate_simple(rank, one, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, rank, chunk);
  hid_t d = H5Dcreate2(f, path, H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  double v = 1;
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), 0);
  ck_assert_int_ge(H5Dset_extent(d, dims), 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(s);
}

/* compare f f, info, xdmf, render and plot f: exit 2 with msg on stderr, each within seconds. */
static void expect_both_refuse(const char *file, const char *msg) {
  double t0 = now();
  cu_proc p = cu_vsim(tu_dir(), "compare", file, file, NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  CU_EXPECT_NOT_IN(p.out, "equal");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", file, NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  /* the viewers' reader too (frames.c, xdmf.c): nothing written */
  p = cu_vsim(tu_dir(), "xdmf", file, "-o", "v.xmf", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "render", file, "-o", "v.png", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "plot", file, "-o", "p.png", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  ck_assert_int_ne(access(tu_path("v.xmf"), F_OK), 0);
  ck_assert_int_ne(access(tu_path("v.png"), F_OK), 0);
  ck_assert_int_ne(access(tu_path("p.png"), F_OK), 0);
  double dt = now() - t0;
  ck_assert_msg(dt < 30, "%s: %.1f s to refuse", file, dt);
}

START_TEST(external_link) {
  make_result("x.h5");
  make_result("victim.h5");
  hid_t f = open_rw("x.h5");
  ck_assert_int_ge(H5Ldelete(f, "/particles/all/position/value", H5P_DEFAULT), 0);
  ck_assert_int_ge(H5Lcreate_external(tu_path("victim.h5"), "/particles/all/position/value", f,
                                      "/particles/all/position/value", H5P_DEFAULT, H5P_DEFAULT),
                   0);
  H5Fclose(f);
  expect_both_refuse("x.h5",
                     "x.h5: /particles/all/position/value is an external link (to another file): "
                     "refused");
  /* one side only is still refused, not "only in" */
  cu_proc p = cu_vsim(tu_dir(), "compare", "victim.h5", "x.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "is an external link");
  cu_free(&p);
}
END_TEST

/* external storage in a FIFO: info used to block forever opening it */
START_TEST(external_storage_fifo) {
  make_result("x.h5");
  ck_assert_int_eq(mkfifo(tu_path("fifo"), 0600), 0);
  hid_t f = open_rw("x.h5");
  ck_assert_int_ge(H5Ldelete(f, "/particles/all/mass", H5P_DEFAULT), 0);
  hsize_t n = 1024;
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  ck_assert_int_ge(H5Pset_external(dcpl, tu_path("fifo"), 0, n * 8), 0);
  hid_t d = H5Dcreate2(f, "/particles/all/mass", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(s);
  H5Fclose(f);
  expect_both_refuse("x.h5",
                     "x.h5: /particles/all/mass has external storage (its data in other files): "
                     "refused");
}
END_TEST

START_TEST(virtual_dataset) {
  make_result("x.h5");
  make_result("src.h5");
  hid_t f = open_rw("x.h5");
  ck_assert_int_ge(H5Ldelete(f, "/particles/all/mass", H5P_DEFAULT), 0);
  hsize_t n = 1024;
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  ck_assert_int_ge(H5Pset_virtual(dcpl, s, tu_path("src.h5"), "/particles/all/mass", s), 0);
  hid_t d = H5Dcreate2(f, "/particles/all/mass", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(s);
  H5Fclose(f);
  expect_both_refuse("x.h5", "x.h5: /particles/all/mass is a virtual dataset");
}
END_TEST

START_TEST(special_files) {
  make_result("x.h5");
  ck_assert_int_eq(mkfifo(tu_path("fifo.h5"), 0600), 0);
  double t0 = now();
  cu_proc p = cu_vsim(tu_dir(), "info", "fifo.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "fifo.h5: cannot open: a FIFO (named pipe), not a regular file");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "x.h5", "fifo.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "fifo.h5: cannot open: a FIFO (named pipe), not a regular file");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "/dev/null", "x.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "/dev/null: cannot open: a character device, not a regular file");
  cu_free(&p);
  ck_assert(now() - t0 < 20);
}
END_TEST

/* Tiny files declaring huge datasets. */
START_TEST(huge_declared) {
  hid_t f = new_result("frames.h5");
  declare(f, "/particles/all/position/value", 3, (hsize_t[]){(hsize_t)1 << 50, 1, 3},
          (hsize_t[]){1, 1, 3});
  H5Fclose(f);
  f = new_result("wide.h5");
  declare(f, "/particles/all/position/value", 3, (hsize_t[]){1, 1, (hsize_t)1 << 28},
          (hsize_t[]){1, 1, 1 << 16});
  H5Fclose(f);
  f = new_result("square.h5");
  declare(f, "/particles/all/position/value", 2, (hsize_t[]){(hsize_t)1 << 32, (hsize_t)1 << 32},
          (hsize_t[]){1, 1});
  H5Fclose(f);
  struct stat st;
  ck_assert_int_eq(stat(tu_path("frames.h5"), &st), 0);
  ck_assert_int_lt(st.st_size, 16384);
  expect_both_refuse("frames.h5", "frames.h5: /particles/all/position/value declares "
                                  "1125899906842624 chunks of data but the file stores 1");
  expect_both_refuse("wide.h5", "wide.h5: /particles/all/position/value declares 4096 chunks "
                                "of data but the file stores 1");
  expect_both_refuse("square.h5", "square.h5: /particles/all/position/value is "
                                  "[4294967296, 4294967296]: more elements than can be counted");
}
END_TEST

/* A chunked layout of dimensionality 1 (a chunk of rank 0)
 * made compare loop forever; 0 divided by zero.  HDF5's API refuses both,
 * so a distinctive chunk dimension is written and its layout message (v3:
 * version 3, class 2, the dimensionality, an 8-byte address, 4-byte
 * dimensions) patched. */
START_TEST(chunk_rank_zero) {
  hid_t f = new_result("c.h5");
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, (hsize_t[]){0x123457});
  hsize_t n = 16, maxd = H5S_UNLIMITED;
  hid_t s = H5Screate_simple(1, &n, &maxd);
  hid_t d = H5Dcreate2(f, "/particles/all/mass", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  double v[16] = {1};
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Sclose(s);
  H5Pclose(dcpl);
  H5Fclose(f);
  size_t len;
  char *data = tu_read_file(tu_path("c.h5"), &len);
  static const unsigned char pat[4] = {0x57, 0x34, 0x12, 0x00};
  long at = -1;
  for (size_t i = 11; i + 4 <= len; i++)
    if (memcmp(data + i, pat, 4) == 0 && data[i - 11] == 3 && data[i - 10] == 2 &&
        data[i - 9] == 2)
      at = (long)i;
  ck_assert_int_ge(at, 11);
  static const char *const want[] = {
      "c.h5: /particles/all/mass has a chunked layout of dimensionality 0 (at least 2)",
      "c.h5: /particles/all/mass has a chunked layout of dimensionality 1 (at least 2)"};
  for (int nd = 0; nd < 2; nd++) {
    data[at - 9] = (char)nd;
    FILE *fp = fopen(tu_path("c.h5"), "wb");
    fwrite(data, 1, len, fp);
    fclose(fp);
    expect_both_refuse("c.h5", want[nd]);
  }
  free(data);
}
END_TEST

/* Terminal escapes in the file's text attributes. */
static void set_text(hid_t f, const char *name, const char *text) {
  if (H5Aexists_by_name(f, "/parameters/vsim", name, H5P_DEFAULT) > 0)
    ck_assert_int_ge(H5Adelete_by_name(f, "/parameters/vsim", name, H5P_DEFAULT), 0);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(text) + 1);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate_by_name(f, "/parameters/vsim", name, t, s, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Awrite(a, t, text), 0);
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

START_TEST(escapes_in_info) {
  make_result("x.h5");
  hid_t f = open_rw("x.h5");
  set_text(f, "status", "\x1b]0;pwned\x07");
  set_text(f, "name", "n\x1b[2J");
  set_text(f, "command", "vsim run\r\x1b]0;pwned\x07");
  H5Fclose(f);
  cu_proc p = cu_vsim(tu_dir(), "info", "x.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "status:          \\x1b]0;pwned\\x07\n");
  CU_EXPECT_IN(p.out, "scene:           n\\x1b[2J\n");
  CU_EXPECT_IN(p.out, "command:         vsim run\\r\\x1b]0;pwned\\x07\n");
  ck_assert_ptr_null(strchr(p.out, '\x1b'));
  ck_assert_ptr_null(strchr(p.out, '\x07'));
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", "x.h5", "--json", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "\"status\": \"\\u001b]0;pwned\\u0007\"");
  ck_assert_ptr_null(strchr(p.out, '\x1b'));
  cu_free(&p);
}
END_TEST

/* HDF5's own reason instead of "unknown HDF5 error". */
START_TEST(truncated_reason) {
  make_result("x.h5");
  struct stat st;
  ck_assert_int_eq(stat(tu_path("x.h5"), &st), 0);
  ck_assert_int_eq(truncate(tu_path("x.h5"), st.st_size / 2), 0);
  make_result("y.h5");
  cu_proc p = cu_vsim(tu_dir(), "compare", "x.h5", "y.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "x.h5: cannot open: truncated file");
  CU_EXPECT_NOT_IN(p.err, "unknown HDF5 error");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", "x.h5", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "x.h5: cannot open: truncated file");
  cu_free(&p);
}
END_TEST


/* Groups that link twice to the next: g0/a and g0/b are both g1, g1/a and
 * g1/b both g2, ... 27 deep, a dataset at the bottom.  Every path was
 * walked and its dataset checked again (2^27 of them, cut at a million
 * objects): xdmf, render and plot took minutes on a file of a few hundred
 * KB.  Groups are walked once now, by their address: each command answers
 * in well under a second (seconds under the sanitizers). */
START_TEST(groups_linked_twice) {
  make_result("x.h5");
  hid_t f = open_rw("x.h5");
  enum { DEPTH = 27 };
  char p[64], q[64];
  hid_t g = H5Gcreate2(f, "/observables/loop", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(g, 0);
  H5Gclose(g);
  for (int i = 0; i <= DEPTH; i++) {
    snprintf(p, sizeof p, "/observables/loop/g%d", i);
    g = H5Gcreate2(f, p, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(g, 0);
    H5Gclose(g);
  }
  for (int i = 0; i < DEPTH; i++) {
    snprintf(p, sizeof p, "/observables/loop/g%d", i + 1);
    snprintf(q, sizeof q, "/observables/loop/g%d/a", i);
    ck_assert_int_ge(H5Lcreate_hard(f, p, f, q, H5P_DEFAULT, H5P_DEFAULT), 0);
    snprintf(q, sizeof q, "/observables/loop/g%d/b", i);
    ck_assert_int_ge(H5Lcreate_hard(f, p, f, q, H5P_DEFAULT, H5P_DEFAULT), 0);
  }
  hsize_t n = 1;
  hid_t sp = H5Screate_simple(1, &n, NULL);
  snprintf(p, sizeof p, "/observables/loop/g%d/value", DEPTH);
  hid_t d = H5Dcreate2(f, p, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  const double one = 1;
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &one), 0);
  H5Dclose(d);
  H5Sclose(sp);
  for (int i = 1; i <= DEPTH; i++) { /* reachable only through the double links */
    snprintf(p, sizeof p, "/observables/loop/g%d", i);
    ck_assert_int_ge(H5Ldelete(f, p, H5P_DEFAULT), 0);
  }
  H5Fclose(f);
  static const char *const cmds[][6] = {
      {"xdmf", "x.h5", "-o", "v.xmf", NULL},
      {"render", "x.h5", "-o", "v.png", NULL},
      {"plot", "x.h5", "-o", "p.png", NULL},
      {"info", "x.h5", NULL},
      {"compare", "x.h5", "x.h5", NULL},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    double t0 = now();
    cu_proc r = cu_vsim_argv(tu_dir(), NULL, cmds[i]);
    CU_EXPECT_CODE(r, 0);
    cu_free(&r);
    ck_assert_msg(now() - t0 < 20, "vsim %s: %.1f s", cmds[i][0], now() - t0);
  }
}
END_TEST

/* A 5-line scene within the count limits: 49 million particles. */
static const char *big_cloth = "vsim: 1\nbodies:\n  - cloth:\n      origin: [0, 1, 0]\n"
                               "      size: [70, 70]\n      resolution: [7000, 7000]\n";

static long max_child_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_maxrss / 1024;
}

START_TEST(memory_estimate) {
  cu_write(tu_path("big.yaml"), big_cloth);
  double t0 = now();
  cu_proc p = cu_vsim(tu_dir(), "run", "big.yaml", "-o", "big.h5", "--max-memory", "2G", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "vsim: big.yaml:3:5: the run would take about ");
  CU_EXPECT_IN(p.err, "49000000 particles, 97986000 constraints), over the limit of 2.0 GB "
                      "(--max-memory)\n");
  cu_free(&p);
  ck_assert_msg(now() - t0 < 10, "%.1f s to refuse", now() - t0);
  ck_assert_int_lt(max_child_rss_mb(), 1024);
  ck_assert_int_ne(access(tu_path("big.h5"), F_OK), 0);
  /* the default limit, half of the physical memory, where that is below
   * the estimate (over 20 GB) */
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if ((double)pages * (double)page / 2 < 20e9) {
    p = cu_vsim(tu_dir(), "run", "big.yaml", "-o", "big.h5", NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, "(--max-memory)\n");
    cu_free(&p);
    ck_assert_int_lt(max_child_rss_mb(), 1024);
  }
  /* the limit is the user's to raise or lower; bad sizes are usage errors */
  p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", "s.h5", "--max-memory", "100K", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "vsim: <default>:25:5: the run would take about ");
  CU_EXPECT_IN(p.err, "1024 particles, 5826 constraints), over the limit of 100 KB");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", "s.h5", "--max-memory", "2X", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "--max-memory: '2X' is not a size (e.g. 2G, 500M)");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--frames", "1", "-o", "s.h5", "--max-memory", "64M", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}
END_TEST

/* Memory: a mesh body's counts are its OBJ's.  The estimate counted mesh
 * bodies as nothing, so a scene with a 700 x 700 grid mesh (490,000
 * vertices, 977,202 triangles after fanning its quads, 20 MB of OBJ,
 * generated here) ran under --max-memory 100M, climbing to 500 MB.  Now the
 * OBJ is counted without being read (vs_obj_count_file) and the scene is
 * refused at once: its vertices exactly, its links bounded above (3T
 * stretch + 3T/2 bend: 4,397,409).  On the example flag the particle count
 * is the OBJ's 192 and the bound is above the 990 links the build makes. */
/* Rigid bodies count: their solver's contacts (24 a body), state and
 * surfaces.  20000 spheres take about 600 MB (peak RSS measured); the
 * estimate said 5 MB before it counted them, and the run went ahead. */
START_TEST(memory_estimate_rigid) {
  FILE *fp = fopen(tu_path("r.yaml"), "w");
  ck_assert_ptr_nonnull(fp);
  fputs("vsim: 1\ntime: {frames: 1}\nbodies:\n", fp);
  for (int i = 0; i < 20000; i++)
    fprintf(fp, "  - rigid: {shape: sphere, radius: 0.05, position: [%g, %g, 0]}\n",
            0.2 * (i % 200), 1 + 0.2 * (i / 200));
  ck_assert_int_eq(fclose(fp), 0);
  cu_proc p = cu_vsim(tu_dir(), "run", "r.yaml", "-o", "r.h5", "--max-memory", "300M", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "vsim: r.yaml:4:5: the run would take about ");
  CU_EXPECT_IN(p.err, "0 particles, 0 constraints, 20000 rigid bodies), over the limit of 300 MB");
  cu_free(&p);
  ck_assert_int_ne(access(tu_path("r.h5"), F_OK), 0);
  /* without the surfaces for viewers it is less, and still over 300 MB */
  p = cu_vsim(tu_dir(), "run", "r.yaml", "-o", "r.h5", "--set", "output.xdmf=false", "--max-memory",
              "300M", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "20000 rigid bodies), over the limit of 300 MB");
  cu_free(&p);
}
END_TEST

START_TEST(memory_estimate_mesh) {
  const int n = 700;
  FILE *fp = fopen(tu_path("grid.obj"), "w");
  ck_assert_ptr_nonnull(fp);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) fprintf(fp, "v %d %d 0\n", i, j);
  fputs("# quads, fanned into two triangles each\n", fp);
  for (int j = 0; j + 1 < n; j++)
    for (int i = 0; i + 1 < n; i++) {
      int a = j * n + i + 1;
      fprintf(fp, "f %d %d %d %d\n", a, a + 1, a + n + 1, a + n);
    }
  ck_assert_int_eq(fclose(fp), 0);
  cu_write(tu_path("mesh.yaml"),
           "vsim: 1\ntime: {frames: 1}\nbodies:\n  - mesh:\n      name: grid\n"
           "      file: grid.obj\n"
           "      transform: {scale: [0.001, 0.001, 0.001]}\n"
           "      stretch: {compliance: 1e-6}\n      bend: {compliance: 1e-3}\n");
  double t0 = now();
  cu_proc p = cu_vsim(tu_dir(), "run", "mesh.yaml", "-o", "m.h5", "--max-memory", "100M", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "vsim: mesh.yaml:4:5: the run would take about ");
  CU_EXPECT_IN(p.err, "490000 particles, 4397409 constraints), over the limit of 100 MB "
                      "(--max-memory)\n");
  cu_free(&p);
  ck_assert_msg(now() - t0 < 10, "%.1f s to refuse", now() - t0);
  /* the OBJ was not read (20 MB of text, about 100 MB with its arrays and
   * edge sort), let alone the model built (500 MB); the sanitizers' runtime
   * alone takes about 25 MB */
  ck_assert_int_lt(max_child_rss_mb(), 64);
  ck_assert_int_ne(access(tu_path("m.h5"), F_OK), 0);
  /* the example flag: 192 vertices, 330 triangles */
  char *flag = cu_repo_path("configs/mesh_flag.yaml");
  p = cu_vsim(tu_dir(), "run", flag, "-o", "f.h5", "--max-memory", "1K", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "192 particles, 1485 constraints), over the limit of 1.0 KB");
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", flag, "-o", "f.h5", "--frames", "1", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "info", "f.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  CU_EXPECT_IN(p.out, "particles:       192\n");
  CU_EXPECT_IN(p.out, "constraints:     990\n");
  cu_free(&p);
  free(flag);
}
END_TEST

/* FNV-1a 64 (io/write/h5check.h documents the checkpoint's checksum) */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t hash_dataset(uint64_t h, hid_t f, const char *name, hid_t mtype, size_t esize) {
  if (H5Lexists(f, name, H5P_DEFAULT) == 0) { /* an empty array is left out: 0 elements */
    const uint64_t none = 0;
    return fnv(h, &none, sizeof none);
  }
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t s = H5Dget_space(d);
  uint64_t n = (uint64_t)H5Sget_simple_extent_npoints(s);
  void *buf = malloc(n * esize + 1);
  ck_assert_int_ge(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
  h = fnv(h, &n, sizeof n);
  h = fnv(h, buf, n * esize);
  free(buf);
  H5Sclose(s);
  H5Dclose(d);
  return h;
}

static void attr_read(hid_t f, const char *name, hid_t mtype, void *out) {
  hid_t a = H5Aopen_by_name(f, "/checkpoint", name, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Aread(a, mtype, out), 0);
  H5Aclose(a);
}

/* /checkpoint@name := v (int64 or, with mtype double, float64), rewritten
 * by delete and create: H5Awrite on it fails in HDF5 1.10.8 after the
 * attributes were read in some orders. */
static void ck_set(hid_t f, const char *name, hid_t ftype, hid_t mtype, const void *v) {
  ck_assert_int_ge(H5Adelete_by_name(f, "/checkpoint", name, H5P_DEFAULT), 0);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate_by_name(f, "/checkpoint", name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Awrite(a, mtype, v), 0);
  H5Aclose(a);
  H5Sclose(sp);
}

static void ck_set_i64(hid_t f, const char *name, int64_t v) {
  ck_set(f, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

/* The checkpoint's checksum recomputed (h5check.h says what it covers)
 * over the resolved scene `resolved` (NULL: the file's own) and what the
 * file holds now, and written over the old one: an edit anyone can make. */
static void rehash_checkpoint(hid_t f, const char *resolved) {
  char *own = NULL;
  if (!resolved) {
    hid_t a = H5Aopen_by_name(f, "/parameters/vsim", "resolved", H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(a, 0);
    hid_t vt = H5Tcopy(H5T_C_S1);
    H5Tset_size(vt, H5T_VARIABLE);
    H5Tset_cset(vt, H5T_CSET_UTF8);
    ck_assert_int_ge(H5Aread(a, vt, &own), 0);
    H5Aclose(a);
    H5Tclose(vt);
    resolved = own;
  }
  uint64_t h = fnv(1469598103934665603ull, resolved, strlen(resolved));
  if (own) H5free_memory(own);
  h = hash_dataset(h, f, "/checkpoint/x", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/xprev", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/v", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/lambda", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/alive", H5T_NATIVE_UINT8, 1);
  /* then the rigid-body rows of the state table, in its order */
  h = hash_dataset(h, f, "/checkpoint/rx", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/rq", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/rv", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/rw", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/rn_cache", H5T_NATIVE_INT32, 4);
  h = hash_dataset(h, f, "/checkpoint/rcache_ab", H5T_NATIVE_INT32, 4);
  h = hash_dataset(h, f, "/checkpoint/rcache_feature", H5T_NATIVE_INT32, 4);
  h = hash_dataset(h, f, "/checkpoint/rcache_impulse", H5T_NATIVE_DOUBLE, 8);
  h = hash_dataset(h, f, "/checkpoint/rjoint_impulse", H5T_NATIVE_DOUBLE, 8);
  /* arrays added later: hashed only when present (h5check.c) */
  if (H5Lexists(f, "/checkpoint/rjoint_more", H5P_DEFAULT) > 0)
    h = hash_dataset(h, f, "/checkpoint/rjoint_more", H5T_NATIVE_DOUBLE, 8);
  if (H5Lexists(f, "/checkpoint/rsleep", H5P_DEFAULT) > 0) /* sleeping on: the default */
    h = hash_dataset(h, f, "/checkpoint/rsleep", H5T_NATIVE_DOUBLE, 8);
  int64_t frame, step, n_alive;
  double time;
  attr_read(f, "frame", H5T_NATIVE_INT64, &frame);
  attr_read(f, "step", H5T_NATIVE_INT64, &step);
  attr_read(f, "time", H5T_NATIVE_DOUBLE, &time);
  attr_read(f, "n_alive", H5T_NATIVE_INT64, &n_alive);
  h = fnv(h, &frame, 8);
  h = fnv(h, &step, 8);
  h = fnv(h, &time, 8);
  h = fnv(h, &n_alive, 8);
  ck_set_i64(f, "checksum_fnv1a64", (int64_t)h);
}

/* In the file's resolved scene, the first `from` := `to`, and the
 * checksum made to match it. */
static void replace_resolved(const char *file, const char *from, const char *to) {
  hid_t f = open_rw(file);
  char *resolved = NULL;
  hid_t a = H5Aopen_by_name(f, "/parameters/vsim", "resolved", H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  hid_t vt = H5Tcopy(H5T_C_S1);
  H5Tset_size(vt, H5T_VARIABLE);
  H5Tset_cset(vt, H5T_CSET_UTF8);
  ck_assert_int_ge(H5Aread(a, vt, &resolved), 0);
  H5Aclose(a);
  char *at = strstr(resolved, from);
  ck_assert_msg(at != NULL, "'%s' is not in the resolved scene", from);
  char *text = cu_strf("%.*s%s%s", (int)(at - resolved), resolved, to, at + strlen(from));
  H5free_memory(resolved);
  ck_assert_int_ge(H5Adelete_by_name(f, "/parameters/vsim", "resolved", H5P_DEFAULT), 0);
  hid_t sp = H5Screate(H5S_SCALAR);
  a = H5Acreate_by_name(f, "/parameters/vsim", "resolved", vt, sp, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(H5Awrite(a, vt, &text), 0);
  H5Aclose(a);
  rehash_checkpoint(f, text);
  H5Sclose(sp);
  H5Tclose(vt);
  H5Fclose(f);
  free(text);
}

START_TEST(memory_estimate_resume) {
  cu_proc p = cu_vsim(tu_dir(), "run", "--frames", "2", "-o", "x.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  /* the resolved scene becomes the big cloth */
  replace_resolved("x.h5", "resolution: [32, 32]", "resolution: [5000, 5000]");
  struct stat st0, st1;
  ck_assert_int_eq(stat(tu_path("x.h5"), &st0), 0);
  double t0 = now();
  p = cu_vsim(tu_dir(), "run", "--resume", "x.h5", "--frames", "4", "--max-memory", "2G", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_NOT_IN(p.err, "checksum");
  CU_EXPECT_IN(p.err, "x.h5 (resolved scene):");
  CU_EXPECT_IN(p.err, "the run would take about ");
  CU_EXPECT_IN(p.err, "25000000 particles, ");
  CU_EXPECT_IN(p.err, "constraints), over the limit of 2.0 GB (--max-memory)");
  cu_free(&p);
  ck_assert_msg(now() - t0 < 10, "%.1f s to refuse", now() - t0);
  ck_assert_int_lt(max_child_rss_mb(), 1024);
  ck_assert_int_eq(stat(tu_path("x.h5"), &st1), 0);
  ck_assert_int_eq(st0.st_size, st1.st_size);
  ck_assert_int_eq(st0.st_mtime, st1.st_mtime);
}
END_TEST

/* Element `at` (a flat index) of the dataset at path := v, as mtype. */
static void poke(hid_t f, const char *path, hsize_t at, hid_t mtype, const void *v) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t fs = H5Dget_space(d);
  hsize_t dims[2] = {1, 1};
  int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
  hsize_t start[2] = {rank == 2 ? at / dims[1] : at, rank == 2 ? at % dims[1] : 0};
  hsize_t one[2] = {1, 1};
  ck_assert_int_ge(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL), 0);
  hid_t ms = H5Screate_simple(1, one, NULL);
  ck_assert_int_ge(H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, v), 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
}

static void peek(hid_t f, const char *path, hsize_t at, hid_t mtype, void *v) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t fs = H5Dget_space(d);
  hsize_t dims[2] = {1, 1};
  int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
  hsize_t start[2] = {rank == 2 ? at / dims[1] : at, rank == 2 ? at % dims[1] : 0};
  hsize_t one[2] = {1, 1};
  ck_assert_int_ge(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL), 0);
  hid_t ms = H5Screate_simple(1, one, NULL);
  ck_assert_int_ge(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, v), 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
}

/* One edit of a checkpoint, its checksum recomputed: --resume must refuse
 * it (exit 2, want in the message) and leave the file as it was. */
typedef void (*ck_edit)(hid_t f);

static void expect_resume_refused(const char *file, const char *frames, ck_edit edit,
                                  const char *want) {
  hid_t f = open_rw(file);
  edit(f);
  rehash_checkpoint(f, NULL);
  H5Fclose(f);
  size_t n0 = 0, n1 = 0;
  char *before = tu_read_file(tu_path(file), &n0);
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", file, "--frames", frames, "-q", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, want);
  CU_EXPECT_NOT_IN(p.err, "checksum");
  cu_free(&p);
  char *after = tu_read_file(tu_path(file), &n1);
  ck_assert_msg(n0 == n1 && memcmp(before, after, n0) == 0, "%s changed", file);
  free(before);
  free(after);
}

static void edit_rn_cache(hid_t f) {
  const int32_t n = 1000000;
  poke(f, "/checkpoint/rn_cache", 0, H5T_NATIVE_INT32, &n);
}
static void edit_cache_body(hid_t f) {
  const int32_t a = 999;
  poke(f, "/checkpoint/rcache_ab", 0, H5T_NATIVE_INT32, &a);
}
static void edit_cache_collider(hid_t f) {
  const int32_t b = -40;
  poke(f, "/checkpoint/rcache_ab", 1, H5T_NATIVE_INT32, &b);
}
static void edit_cache_impulse(hid_t f) {
  const double pn = -1;
  poke(f, "/checkpoint/rcache_impulse", 0, H5T_NATIVE_DOUBLE, &pn);
}
static void edit_quaternion(hid_t f) {
  const double w = 3;
  poke(f, "/checkpoint/rq", 0, H5T_NATIVE_DOUBLE, &w);
}
static void edit_world(hid_t f) {
  hid_t d = H5Dopen2(f, "/checkpoint/rv", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  H5Dclose(d);
  const double v = 5;
  poke(f, "/checkpoint/rv", 3 * (dims[0] - 1), H5T_NATIVE_DOUBLE, &v); /* the world's row */
}
static void edit_frame(hid_t f) { ck_set_i64(f, "frame", 2); }
static void edit_step(hid_t f) {
  int64_t step;
  attr_read(f, "step", H5T_NATIVE_INT64, &step);
  ck_set_i64(f, "step", step + 1);
}
static void edit_time(hid_t f) {
  double t;
  attr_read(f, "time", H5T_NATIVE_DOUBLE, &t);
  t *= 1.5;
  ck_set(f, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t);
}
static void edit_n_alive(hid_t f) {
  int64_t n;
  attr_read(f, "n_alive", H5T_NATIVE_INT64, &n);
  ck_set_i64(f, "n_alive", n - 1);
}
static void edit_torn(hid_t f) {
  const uint8_t zero = 0;
  poke(f, "/checkpoint/alive", 0, H5T_NATIVE_UINT8, &zero);
  int64_t n;
  attr_read(f, "n_alive", H5T_NATIVE_INT64, &n);
  ck_set_i64(f, "n_alive", n - 1);
}
static void edit_inverse_mass(hid_t f) {
  double w;
  peek(f, "/checkpoint/x", 3, H5T_NATIVE_DOUBLE, &w);
  w *= 2;
  poke(f, "/checkpoint/x", 3, H5T_NATIVE_DOUBLE, &w);
}

/* The checkpoint's checksum is plain FNV-1a, which anyone recomputes:
 * every field is checked against the others, the model and the recorded
 * frames.  A contact count beyond the cache made the rigid solver read
 * past its arrays (resumed with exit 0 in the release build); frame 2 in
 * a file that records frames 0 to 4 resumed and appended frames under the
 * wrong numbers.  Each edit here resumed before. */
START_TEST(checkpoint_edits_are_refused) {
  char *stack = cu_repo_path("configs/rigid_stack.yaml");
  static const struct {
    ck_edit edit;
    const char *want;
  } rigid[] = {
      {edit_rn_cache, "/checkpoint/rn_cache holds 1000000 contacts; the contact cache has room "
                      "for "},
      {edit_cache_body, "/checkpoint/rcache_ab: contact 0 is between 999 and "},
      {edit_cache_collider, "/checkpoint/rcache_ab: contact 0 is between 0 and -40; the model "
                            "has "},
      {edit_cache_impulse, "/checkpoint/rcache_impulse: contact 0 has a negative normal "
                           "impulse (-1)"},
      {edit_quaternion, "/checkpoint/rq: body 0's orientation (3, "},
      {edit_world, "/checkpoint/rx, rv or rw moves the world"},
  };
  for (size_t i = 0; i < sizeof rigid / sizeof rigid[0]; i++) {
    cu_proc p = cu_vsim(tu_dir(), "run", stack, "--frames", "6", "-o", "r.h5", "-q", "-f", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    if (i == 0) { /* the stack rests: its cache holds contacts to edit */
      hid_t f = open_rw("r.h5");
      int32_t n = 0;
      peek(f, "/checkpoint/rn_cache", 0, H5T_NATIVE_INT32, &n);
      H5Fclose(f);
      ck_assert_int_gt(n, 1);
    }
    expect_resume_refused("r.h5", "9", rigid[i].edit, rigid[i].want);
  }
  free(stack);
  static const struct {
    ck_edit edit;
    const char *want;
  } cloth[] = {
      {edit_frame, "/checkpoint@frame is 2 but the last frame recorded is 4 "},
      {edit_step, "/checkpoint@step is "},
      {edit_time, "/checkpoint@time is "},
      {edit_n_alive, "/checkpoint@n_alive is "},
      {edit_torn, "/checkpoint/alive: link 0 is torn, but it cannot tear"},
      {edit_inverse_mass, "/checkpoint/x gives particle 0 the inverse mass "},
  };
  for (size_t i = 0; i < sizeof cloth / sizeof cloth[0]; i++) {
    cu_proc p = cu_vsim(tu_dir(), "run", "--frames", "4", "-o", "c.h5", "-q", "-f", NULL);
    CU_EXPECT_CODE(p, 0);
    cu_free(&p);
    expect_resume_refused("c.h5", "7", cloth[i].edit, cloth[i].want);
  }
  /* untouched, both resume */
  cu_proc p = cu_vsim(tu_dir(), "run", "--resume", "c.h5", "--frames", "7", "-q", NULL);
  CU_EXPECT_CODE(p, 2); /* the last edit is still there */
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--frames", "4", "-o", "c.h5", "-q", "-f", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--resume", "c.h5", "--frames", "7", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
}
END_TEST

/* A checkpoint of vsim 0.1.0, where sleeping was off by default and the
 * resolved scene has no `sleep` key, has no /checkpoint/rsleep: resumed
 * now, with sleeping on, every body starts at rest for 0 s; the resumed
 * run writes the times, which a second resume reads. */
START_TEST(checkpoint_without_sleep_times_resumes) {
  char *stack = cu_repo_path("configs/rigid_stack.yaml");
  cu_proc p = cu_vsim(tu_dir(), "run", stack, "--frames", "6", "-o", "r.h5", "-q", "-f", "--set",
                      "solver.rigid.sleep=false", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  hid_t f = open_rw("r.h5");
  ck_assert_int_eq(H5Lexists(f, "/checkpoint/rsleep", H5P_DEFAULT), 0);
  H5Fclose(f);
  replace_resolved("r.h5", ", sleep: false", "");
  p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "9", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  f = open_rw("r.h5");
  ck_assert_int_gt(H5Lexists(f, "/checkpoint/rsleep", H5P_DEFAULT), 0);
  H5Fclose(f);
  p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "12", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  free(stack);
}
END_TEST

/* --resume reads a scene's OBJ files where the first run read them (the
 * scene file's directory, as the first run resolved them: an absolute
 * path recorded in the file) and refuses them when their contents changed
 * (their length and FNV-1a 64, recorded too).  It read them by the
 * resolved scene's path, relative to the directory the first run was
 * started in: resumed from elsewhere, or after the OBJ was edited, it went
 * on silently against another mesh. */
START_TEST(obj_files_on_resume) {
  static const char *scene =
      "vsim: 1\ntime: {dt: 0.01, frames: 40}\n"
      "world: {colliders: [{mesh: {file: floor.obj}}]}\n"
      "bodies:\n  - particles: {positions: [[0.1, 1, 0.1]], mass: 1, radius: 0.1}\n";
  static const char *floor_obj = "v -1 0.8 -1\nv 1 0.8 -1\nv 0 0.8 1\nf 1 3 2\n";
  static const char *other_obj = "v -1 0.3 -1\nv 1 0.3 -1\nv 0 0.3 1\nf 1 3 2\n";
  char *scenes = cu_strf("%s/scenes", tu_dir()), *away = cu_strf("%s/away", tu_dir());
  char *away_scenes = cu_strf("%s/away/scenes", tu_dir());
  ck_assert_int_eq(mkdir(scenes, 0777), 0);
  ck_assert_int_eq(mkdir(away, 0777), 0);
  ck_assert_int_eq(mkdir(away_scenes, 0777), 0);
  cu_write(tu_path("scenes/s.yaml"), scene);
  cu_write(tu_path("scenes/floor.obj"), floor_obj);
  /* another floor, where the resolved path points from `away` */
  cu_write(tu_path("away/scenes/floor.obj"), other_obj);
  cu_proc p = cu_vsim(tu_dir(), "run", "scenes/s.yaml", "-o", "whole.h5", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "scenes/s.yaml", "-o", "part.h5", "--frames", "10", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  /* from another directory: the same floor, the same frames as one run */
  p = cu_vsim(away, "run", "--resume", "../part.h5", "--frames", "40", "-q", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", "part.h5", "whole.h5", NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  /* the OBJ edited since: refused, the file untouched */
  p = cu_vsim(tu_dir(), "run", "scenes/s.yaml", "-o", "part.h5", "--frames", "10", "-q", "-f",
              NULL);
  CU_EXPECT_CODE(p, 0);
  cu_free(&p);
  cu_write(tu_path("scenes/floor.obj"), other_obj);
  size_t n0 = 0, n1 = 0;
  char *before = tu_read_file(tu_path("part.h5"), &n0);
  p = cu_vsim(tu_dir(), "run", "--resume", "part.h5", "--frames", "40", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "world.colliders.0.mesh.file '");
  CU_EXPECT_IN(p.err, "/scenes/floor.obj' is not what the run read: ");
  cu_free(&p);
  char *after = tu_read_file(tu_path("part.h5"), &n1);
  ck_assert(n0 == n1 && memcmp(before, after, n0) == 0);
  free(before);
  free(after);
  /* moved away: refused naming where the run read it */
  ck_assert_int_eq(unlink(tu_path("scenes/floor.obj")), 0);
  p = cu_vsim(tu_dir(), "run", "--resume", "part.h5", "--frames", "40", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "/scenes/floor.obj': No such file or directory");
  cu_free(&p);
  free(scenes);
  free(away);
  free(away_scenes);
}
END_TEST

/* The inputs that crashed or hung HDF5 1.10.8 inside
 * H5Aread of a variable-length string (a corrupt global heap), through
 * info (exit 2 with the reason) and compare: promptly, no crash. */
START_TEST(hdf5_heap_crashes) {
  static const char *const names[] = {"vlen-attr-heap-loop", "vlen-attr-heap-object-size",
                                      "vlen-attr-heap-object-size-2"};
  char *golden = cu_repo_path("tests/golden/default.h5");
  for (size_t i = 0; i < 3; i++) {
    char *rel = cu_strf("tests/data/fuzz-h5/%s", names[i]);
    char *src = cu_repo_path(rel);
    double t0 = now();
    cu_proc p = cu_vsim(tu_dir(), "info", src, NULL);
    CU_EXPECT_CODE(p, 2);
    CU_EXPECT_IN(p.err, names[i]);
    CU_EXPECT_NOT_IN(p.err, "Sanitizer");
    cu_free(&p);
    /* compare reads no string attribute: differences (1) or refused (2) */
    p = cu_vsim(tu_dir(), "compare", src, golden, NULL);
    ck_assert_msg(p.code == 1 || p.code == 2, "%s: compare exit %d", names[i], p.code);
    CU_EXPECT_NOT_IN(p.err, "Sanitizer");
    cu_free(&p);
    ck_assert_msg(now() - t0 < 30, "%s: %.1f s", names[i], now() - t0);
    free(src);
    free(rel);
  }
  free(golden);
}
END_TEST

/* A corrupt dense-storage group (found by CI's fuzz-h5 run) on
 * which HDF5 1.10's own H5Literate frees a pointer it never set
 * (H5G__dense_iterate -> H5G__link_release_table).  MALLOC_PERTURB_ fills
 * that memory with garbage, so the release build crashes every time (as
 * the sanitizer build did): with the structure probe (h5guard_probe.c)
 * info, compare, xdmf, render, plot and --resume refuse it, exit 2 naming
 * the file, and --resume leaves it as it was. */
START_TEST(hdf5_structure_crash) {
  const char *name = "dense-group-iterate-crash";
  char *src = cu_repo_path("tests/data/fuzz-h5/dense-group-iterate-crash");
  char *golden = cu_repo_path("tests/golden/default.h5");
  char *data = cu_slurp(src);
  struct stat st;
  ck_assert_int_eq(stat(src, &st), 0);
  FILE *fp = fopen(tu_path("r.h5"), "wb");
  ck_assert_ptr_nonnull(fp);
  ck_assert_uint_eq(fwrite(data, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
  fclose(fp);
  setenv("MALLOC_PERTURB_", "85", 1);
  const char *msg = "corrupt file: HDF5 failed reading its structure (signal ";
  double t0 = now();
  cu_proc p = cu_vsim(tu_dir(), "info", src, NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, name);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", src, golden, NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, name);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "compare", golden, src, NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "xdmf", src, "-o", "v.xmf", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "render", src, "-o", "v.png", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "plot", src, "-o", "p.png", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  p = cu_vsim(tu_dir(), "run", "--resume", "r.h5", "--frames", "6", NULL);
  CU_EXPECT_CODE(p, 2);
  CU_EXPECT_IN(p.err, "r.h5");
  CU_EXPECT_IN(p.err, msg);
  cu_free(&p);
  unsetenv("MALLOC_PERTURB_");
  ck_assert_msg(now() - t0 < 60, "%.1f s to refuse", now() - t0);
  /* nothing written: the resumed file byte for byte, no temp file, no picture */
  char *after = cu_slurp(tu_path("r.h5"));
  ck_assert_int_eq(memcmp(after, data, (size_t)st.st_size), 0);
  CU_EXPECT_LISTING(tu_dir(), "r.h5");
  free(after);
  free(data);
  free(golden);
  free(src);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hostile_read");
  TCase *t = tcase_create("hostile_read");
  tcase_add_checked_fixture(t, setup, tu_dir_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, external_link);
  tcase_add_test(t, external_storage_fifo);
  tcase_add_test(t, virtual_dataset);
  tcase_add_test(t, special_files);
  tcase_add_test(t, huge_declared);
  tcase_add_test(t, chunk_rank_zero);
  tcase_add_test(t, escapes_in_info);
  tcase_add_test(t, truncated_reason);
  tcase_add_test(t, hdf5_heap_crashes);
  tcase_add_test(t, hdf5_structure_crash);
  tcase_add_test(t, groups_linked_twice);
  tcase_add_test(t, checkpoint_edits_are_refused);
  tcase_add_test(t, checkpoint_without_sleep_times_resumes);
  tcase_add_test(t, obj_files_on_resume);
  tcase_add_test(t, memory_estimate);
  tcase_add_test(t, memory_estimate_resume);
  tcase_add_test(t, memory_estimate_mesh);
  tcase_add_test(t, memory_estimate_rigid);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run(suite()); }
