#ifndef YIANA_CYIANA_H
#define YIANA_CYIANA_H

/* The toolkit's own C: what Swift cannot express (CPU intrinsics) and the Linux calls
   glibc declares only under _GNU_SOURCE, which Swift's Glibc module is built without.
   Only the YianaSystem module imports this; everything else reaches it through there. */

#include <stddef.h>
#include <stdint.h>

/* CRC-32 as ZIP and zlib define it: `crc` (start from 0) continued over `len` bytes. On
   x86-64 CPUs the bulk is folded by carry-less multiplication: 512 bits at a time with
   VPCLMULQDQ and AVX-512F, else 128 with PCLMULQDQ and SSE4.1; zlib's crc32 does the rest,
   and everything elsewhere. */
uint32_t yiana_crc32(uint32_t crc, const void *buf, size_t len);

/* yiana_crc32 with the folding held to `level` or below (0 zlib alone, 1 128-bit, 2
   512-bit), so that each path can be tested on a CPU that has a wider one. */
uint32_t yiana_crc32_using(int level, uint32_t crc, const void *buf, size_t len);

/* zlib's crc32 alone: the reference the fast paths are tested against. */
uint32_t yiana_crc32_reference(uint32_t crc, const void *buf, size_t len);

/* The widest folding this CPU allows yiana_crc32: 2 (VPCLMULQDQ and AVX-512F), 1
   (PCLMULQDQ and SSE4.1) or 0 (zlib's alone). */
int yiana_crc32_accelerated(void);

/* fallocate(2), mode 0: reserves the first `length` bytes of the file (never glibc's
   posix_fallocate, which writes zeros where the file system cannot reserve). */
int yiana_preallocate(int fd, int64_t length);

/* sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writeback of a range, does not wait. */
int yiana_start_writeback(int fd, int64_t offset, int64_t length);

/* An open-file-description lock (F_OFD_SETLK) on one byte at `offset`: shared when
   `exclusive` is 0. Does not wait: returns 0, or -1 with errno (EAGAIN when held). */
int yiana_ofd_lock_byte(int fd, int exclusive, int64_t offset);

/* In a program linked against mimalloc: memory freed is given back to the system after 1 ms
   instead of mimalloc's 25 (unless MIMALLOC_DECOMMIT_DELAY or MIMALLOC_PURGE_DELAY says
   otherwise). Returns 1 when it set it. */
int yiana_tune_allocator(void);

/* prctl(PR_SET_CHILD_SUBREAPER, 1): the descendants of this process whose parent dies are
   handed to it, not to init (Linux; returns -1 elsewhere). Returns 0, or -1 with errno. */
int yiana_become_subreaper(void);

#endif
