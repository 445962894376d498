#ifndef YIANA_CZIP_SHIM_H
#define YIANA_CZIP_SHIM_H

#include <zip.h>
/* zlib comes with libzip (libzip-dev depends on zlib1g-dev): its crc32 is the checksum
   libzip itself verifies, so the writer computes CRCs with the same code. */
#include <zlib.h>

/* The archive writer copies PDFs in the kernel and starts their writeback early. glibc
   declares these two calls only under _GNU_SOURCE, which Swift's Glibc module is built
   without, so they are reached through syscall(2) here. */
#include <unistd.h>
#include <sys/syscall.h>
#include <stdint.h>

static inline long yiana_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len) {
    return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, 0u);
}

/* SYNC_FILE_RANGE_WRITE (2): start writing the range back to disk, do not wait. */
static inline int yiana_start_writeback(int fd, int64_t offset, int64_t length) {
    return (int)syscall(SYS_sync_file_range, fd, offset, length, 2u);
}

/* CRC-32 (the ZIP/gzip polynomial) by carry-less multiplication, folding 64 bytes per
   step, as in Intel's "Fast CRC Computation Using PCLMULQDQ" and Chromium's zlib. It takes
   and returns the CRC in zlib's convention, works on whole 16-byte blocks of at least 64
   bytes (zlib's crc32 finishes the rest), and is called only when the CPU has PCLMULQDQ
   and SSE4.1 (yiana_crc32_fast_available). Swift cannot call these intrinsics itself. */
#if defined(__x86_64__)
#include <immintrin.h>

static inline int yiana_crc32_fast_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

__attribute__((target("pclmul,sse4.1")))
static inline uint32_t yiana_crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

    crc = ~crc;
    x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(buf + 0x00)), _mm_cvtsi32_si128((int)crc));
    x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    buf += 64;
    len -= 64;
    while (len >= 64) {  /* fold four 128-bit lanes forward by 512 bits */
        x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
        x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
        x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
        x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *)(buf + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128((const __m128i *)(buf + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128((const __m128i *)(buf + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128((const __m128i *)(buf + 0x30)));
        buf += 64;
        len -= 64;
    }
    /* fold the four lanes into one */
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x2), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x3), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x4), x5);
    while (len >= 16) {  /* remaining whole 16-byte blocks */
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, _mm_loadu_si128((const __m128i *)buf)), x5);
        buf += 16;
        len -= 16;
    }
    /* 128 -> 64 bits */
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, low32);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5k0, 0x00), x2);
    /* Barrett reduction to 32 bits */
    x2 = _mm_and_si128(x1, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return ~(uint32_t)_mm_extract_epi32(x1, 1);
}
#else
static inline int yiana_crc32_fast_available(void) { return 0; }
static inline uint32_t yiana_crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
    (void)buf; (void)len; return crc;
}
#endif

/* zip_source_callback receives its seek arguments through ZIP_SOURCE_GET_ARGS,
   a macro Swift cannot call; this reads them with the same size check. */
static inline const zip_source_args_seek_t *yiana_zip_seek_args(void *data, zip_uint64_t len) {
    return len < sizeof(zip_source_args_seek_t) ? NULL : (const zip_source_args_seek_t *)data;
}

#endif
