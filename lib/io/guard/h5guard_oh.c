/* SPDX-License-Identifier: MIT */
/* h5guard_oh.c: the object header of a dataset, read from the file before
 * HDF5 opens it (see h5guard.h): HDF5 1.10.8 divides by zero inside H5Dopen
 * on a chunked layout message of dimensionality 0, so that must be found
 * without HDF5.  Reads v1 headers (8-byte message headers) and v2 ("OHDR",
 * "OCHK" continuation blocks), following continuation messages, at most
 * OH_MAX_BLOCKS blocks of OH_MAX_BLOCK_BYTES each; checksums are left to
 * HDF5. */
#include <string.h>
#include <unistd.h>

#include "io/guard/h5guard_int.h"
#include "util/alloc.h"

#define OH_MAX_BLOCK_BYTES ((uint64_t)1 << 20)

static uint64_t le(const unsigned char *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}


static void oh_block(vs_h5g__oh_scan *s, uint64_t addr, uint64_t len) {
  if (s->n_blocks >= OH_MAX_BLOCKS || len > OH_MAX_BLOCK_BYTES) {
    s->bad = 1;
    return;
  }
  s->blk_addr[s->n_blocks] = addr;
  s->blk_len[s->n_blocks++] = len;
}

/* A layout message: a chunked one must have a dimensionality of at least 2
 * (the dataset's axes and the element size) and no chunk dimension 0. */
static void oh_layout(vs_h5g__oh_scan *s, const unsigned char *b, uint64_t n) {
  if (n < 2) {
    s->bad = 1;
    return;
  }
  unsigned version = b[0], cls, nd, w = 4;
  const unsigned char *dims;
  if (version == 1 || version == 2) {
    if (n < 8) goto corrupt;
    nd = b[1];
    cls = b[2];
    dims = b + 8 + (cls != 0 ? s->f->addr_size : 0);
  } else if (version == 3) {
    cls = b[1];
    if (cls != 2) return;
    if (n < 3) goto corrupt;
    nd = b[2];
    dims = b + 3 + s->f->addr_size;
  } else if (version == 4) {
    cls = b[1];
    if (cls != 2) return;
    if (n < 5) goto corrupt;
    nd = b[3];
    w = b[4];
    dims = b + 5;
    if (w < 1 || w > 8) goto corrupt;
  } else {
    goto corrupt;
  }
  if (cls != 2) return;
  s->chunk_nd = nd;
  if (nd < 2) {
    s->bad = 2;
    s->ndims = nd;
    s->zero_axis = UINT64_MAX;
    return;
  }
  /* the element-size dimension is last (v1-v3) or absent (v4: nd - 1 axes + it) */
  if ((uint64_t)(dims - b) + (uint64_t)nd * w > n) goto corrupt;
  /* the element size included: HDF5 checks all; reported after the rank */
  for (unsigned i = 0; i < nd; i++)
    if (le(dims + (size_t)i * w, w) == 0) {
      s->zero_axis = i;
      break;
    }
  return;
corrupt:
  s->bad = 1;
}

/* ---- global heap objects behind variable-length attributes -------------------- */

#define GCOL_MAX_BYTES ((uint64_t)64 << 20)

/* 0 when the collection at addr holds object idx of exactly len bytes and
 * every object in it lies inside it; else 1 (4: out of memory). */
static int gcol_check(vs_h5g__oh_scan *s, uint64_t addr, uint32_t idx, uint64_t len) {
  const vs_h5g_file *f = s->f;
  unsigned ls = f->len_size;
  unsigned char hdr[16];
  uint64_t at = f->base + addr;
  if (ls < 2 || ls > 8 || at > f->size || f->size - at < 8 + ls ||
      pread(f->fd, hdr, 8 + ls, (off_t)at) != (ssize_t)(8 + ls) || memcmp(hdr, "GCOL", 4) != 0 ||
      hdr[4] != 1)
    return 1;
  uint64_t size = le(hdr + 8, ls);
  if (size < 8 + ls || size > GCOL_MAX_BYTES || size > f->size - at) return 1;
  unsigned char *b = vs_malloc(size);
  if (!b) return 4;
  int rc = 1, found = 0;
  if (pread(f->fd, b, size, (off_t)at) == (ssize_t)size) {
    /* as HDF5 1.10.8 parses it (H5HG__cache_heap_deserialize): objects
     * one after another to the end, object 0 (free space) included and
     * sized by its own size field; a later object of one index overrides
     * an earlier one.  Each must fit in what is left, and a step must move
     * forward (a free-space size of 0 made HDF5 loop forever). */
    uint64_t pos = 8 + ls, oh = 8 + ls; /* index, refcount, reserved, size */
    rc = 0;
    while (pos < size) {
      if (size - pos < oh) break; /* a tail too small for an object: free space */
      unsigned i = (unsigned)le(b + pos, 2);
      uint64_t n = le(b + pos + 8, ls);
      uint64_t need = i ? oh + ((n + 7) & ~(uint64_t)7) : n;
      if (n > size || need < oh || need > size - pos) {
        rc = 1;
        break;
      }
      if (i == idx) found = n == len;
      pos += need;
    }
  }
  vs_free(b);
  return rc ? rc : !found;
}

/* An attribute message: for a variable-length type (strings included),
 * every heap ID in its data is checked. */
static void oh_attribute(vs_h5g__oh_scan *s, const unsigned char *b, uint64_t n) {
  if (n < 8) return;
  unsigned version = b[0], flags = b[1];
  if (version < 1 || version > 3 || (flags & 3)) return; /* shared type or space: HDF5's */
  uint64_t nn = le(b + 2, 2), dn = le(b + 4, 2), sn = le(b + 6, 2), pos = version == 3 ? 9 : 8;
  if (version == 1) {
    nn = (nn + 7) & ~(uint64_t)7;
    dn = (dn + 7) & ~(uint64_t)7;
    sn = (sn + 7) & ~(uint64_t)7;
  }
  if (pos + nn + dn + sn > n || dn < 8) return;
  const unsigned char *dt = b + pos + nn;
  if ((dt[0] & 0x0f) != 9) return; /* not variable-length */
  unsigned as = s->f->addr_size;
  uint64_t esize = 4 + as + 4;
  if (as < 2 || as > 8) return;
  for (uint64_t d = pos + nn + dn + sn; d + esize <= n; d += esize) {
    uint64_t len = le(b + d, 4), addr = le(b + d + 4, as);
    uint32_t idx = (uint32_t)le(b + d + 4 + as, 4);
    if (len == 0 && addr == 0) continue; /* an empty value */
    int r = gcol_check(s, addr, idx, len);
    if (r == 4) s->bad = 4;
    if (r == 1) s->bad_heap = 1;
    if (r) return;
  }
}

/* The messages of one block: v1 (8-byte headers, 8-aligned) or v2. */
static void oh_messages(vs_h5g__oh_scan *s, const unsigned char *p, uint64_t n, int v2, int crt_order) {
  uint64_t pos = 0, hdr = v2 ? 4u + (crt_order ? 2u : 0u) : 8u;
  while (!s->bad && pos + hdr <= n) {
    unsigned type = v2 ? p[pos] : (unsigned)le(p + pos, 2);
    uint64_t size = le(p + pos + (v2 ? 1 : 2), 2);
    const unsigned char *body = p + pos + hdr;
    if (pos + hdr + size > n) {
      s->bad = 1;
      return;
    }
    if (type == 0x08) oh_layout(s, body, size);
    if (type == 0x0C && s->check_vlen) oh_attribute(s, body, size);
    if (type == 0x01 && size >= 2) s->space_rank = body[1];
    if (type == 0x10) {
      unsigned as = s->f->addr_size, ls = s->f->len_size;
      if (size < as + ls || as > 8 || ls > 8) {
        s->bad = 1;
        return;
      }
      oh_block(s, le(body, as), le(body + as, ls));
    }
    pos += hdr + size;
  }
}

/* Read every block of the object header at addr; 0 when the header is
 * readable and has no bad chunked layout, else s->bad says why. */
int vs_h5g__oh_check(vs_h5g__oh_scan *s, uint64_t addr) {
  unsigned char pre[32];
  uint64_t at = s->f->base + addr;
  if (at > s->f->size || s->f->size - at < 16 || pread(s->f->fd, pre, 16, (off_t)at) != 16)
    return s->bad = 1;
  int v2 = memcmp(pre, "OHDR", 4) == 0, crt = 0;
  uint64_t start;
  if (v2) {
    unsigned flags = pre[5];
    crt = (flags & 0x04) != 0;
    start = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
    unsigned w = 1u << (flags & 3);
    if (s->f->size - at < start + w || pread(s->f->fd, pre, w, (off_t)(at + start)) != (ssize_t)w)
      return s->bad = 1;
    start += w;
    oh_block(s, at + start, le(pre, w)); /* the checksum follows */
  } else {
    if (pre[0] != 1) return s->bad = 1;
    oh_block(s, at + 16, le(pre + 8, 4));
  }
  for (int i = 0; i < s->n_blocks && !s->bad; i++) {
    uint64_t a = i == 0 ? s->blk_addr[i] : s->f->base + s->blk_addr[i], n = s->blk_len[i];
    if (a > s->f->size || n > s->f->size - a) return s->bad = 1;
    unsigned char *buf = vs_malloc(n + 1);
    if (!buf) return s->bad = 4; /* out of memory: not the file's fault */
    if (pread(s->f->fd, buf, n, (off_t)a) != (ssize_t)n) {
      vs_free(buf);
      return s->bad = 1;
    }
    if (!v2 || i == 0)
      oh_messages(s, buf, n, v2, crt);
    else if (n >= 8 && memcmp(buf, "OCHK", 4) == 0)
      oh_messages(s, buf + 4, n - 8, v2, crt);
    else
      s->bad = 1;
    vs_free(buf);
  }
  /* HDF5 1.10.8 leaks while refusing this itself */
  if (!s->bad && s->chunk_nd && s->space_rank >= 0 && s->chunk_nd != (unsigned)s->space_rank + 1) {
    s->bad = 3;
    s->ndims = s->chunk_nd;
  } else if (!s->bad && s->zero_axis != UINT64_MAX) {
    s->bad = 2;
    s->ndims = s->chunk_nd;
  } else if (!s->bad && s->bad_heap) {
    s->bad = 5;
  }
  return s->bad;
}

