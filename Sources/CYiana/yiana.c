#define _GNU_SOURCE
#include "CYiana.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
/* zlib comes with libzip (libzip-dev depends on zlib1g-dev): its crc32 is the checksum
   libzip itself verifies entries with. */
#include <zlib.h>

/* CRC-32 (the ZIP/gzip polynomial) by carry-less multiplication, folding 64 bytes per
   step, as in Intel's "Fast CRC Computation Using PCLMULQDQ" and Chromium's zlib. It takes
   and returns the CRC in zlib's convention and works on whole 16-byte blocks of at least
   64 bytes; zlib's crc32 finishes the rest. */
#if defined(__x86_64__)
#include <immintrin.h>

static int crc32_fold_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
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
static int crc32_fold_available(void) { return 0; }
static uint32_t crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
    (void)buf; (void)len; return crc;
}
#endif


int yiana_crc32_accelerated(void) {
    static int accelerated = -1;  /* every thread computes the same value: a relaxed race is harmless */
    int known = __atomic_load_n(&accelerated, __ATOMIC_RELAXED);
    if (known < 0) {
        known = crc32_fold_available();
        __atomic_store_n(&accelerated, known, __ATOMIC_RELAXED);
    }
    return known;
}

uint32_t yiana_crc32_reference(uint32_t crc, const void *buf, size_t len) {
    const unsigned char *bytes = buf;
    while (len > 0) {  /* zlib takes lengths as uInt */
        uInt step = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = (uint32_t)crc32(crc, bytes, step);
        bytes += step;
        len -= step;
    }
    return crc;
}

uint32_t yiana_crc32(uint32_t crc, const void *buf, size_t len) {
    const unsigned char *bytes = buf;
    if (len >= 64 && yiana_crc32_accelerated()) {
        size_t blocks = len & ~(size_t)15;
        crc = crc32_fold(crc, bytes, blocks);
        bytes += blocks;
        len -= blocks;
    }
    return len > 0 ? yiana_crc32_reference(crc, bytes, len) : crc;
}

int yiana_preallocate(int fd, int64_t length) {
    return fallocate(fd, 0, 0, (off_t)length);
}

int yiana_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int yiana_ofd_lock_byte(int fd, int exclusive, int64_t offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = exclusive ? F_WRLCK : F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = offset;
    lock.l_len = 1;
    lock.l_pid = 0; /* must be 0 for OFD locks */
    return fcntl(fd, F_OFD_SETLK, &lock);
}
