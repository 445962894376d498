#include "CYiana.h"

/* zlib comes with libzip (libzip-dev depends on zlib1g-dev): its crc32 is the checksum
   libzip itself verifies entries with. */
#include <zlib.h>

/* CRC-32 (the ZIP/gzip polynomial) by carry-less multiplication, as in Intel's "Fast CRC
   Computation Using PCLMULQDQ" and Chromium's zlib: the message is folded forward in
   128-bit lanes, each lane multiplied by x^(D+32) and x^(D-32) mod P (bit-reflected) to
   move it D bits on, then the last 128 bits are reduced to 32. Two widths:
   - narrow (PCLMULQDQ + SSE4.1, every x86-64 CPU since 2010): four lanes, 64 bytes a step;
   - wide (VPCLMULQDQ + AVX-512F, e.g. AMD Zen 4, Intel Ice Lake): sixteen lanes in four
     512-bit registers, 256 bytes a step, then folded down to the narrow path's four lanes.
   Both take and return the CRC in zlib's convention and work on whole 16-byte blocks;
   zlib's crc32 finishes the rest. Scripts/generate/crc32-constants.py derives every constant. */
#if defined(__x86_64__)
#include <immintrin.h>

enum { FOLD_NONE = 0, FOLD_NARROW = 1, FOLD_WIDE = 2 };

static int crc32_fold_available(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1")) return FOLD_NONE;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq")) return FOLD_WIDE;
    return FOLD_NARROW;
}

/* Moves a 128-bit lane 512 bits on and adds the data found there. */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold_512(__m128i lane, __m128i data) {
    const __m128i k = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(lane, k, 0x11), _mm_clmulepi64_si128(lane, k, 0x00)), data);
}

/* The end both widths share: the four lanes x1..x4 (the 64 bytes before `buf`, folded)
   into one, then `len` (< 64) more bytes in whole 16-byte blocks, then down to 32 bits. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_fold_finish(__m128i x1, __m128i x2, __m128i x3, __m128i x4,
                                  const unsigned char *buf, size_t len) {
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x5;

    /* fold the four lanes into one, 128 bits at a time */
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

/* Narrow: `len` >= 64, a multiple of 16. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
    __m128i x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(buf + 0x00)), _mm_cvtsi32_si128((int)~crc));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    for (buf += 64, len -= 64; len >= 64; buf += 64, len -= 64) {
        x1 = fold_512(x1, _mm_loadu_si128((const __m128i *)(buf + 0x00)));
        x2 = fold_512(x2, _mm_loadu_si128((const __m128i *)(buf + 0x10)));
        x3 = fold_512(x3, _mm_loadu_si128((const __m128i *)(buf + 0x20)));
        x4 = fold_512(x4, _mm_loadu_si128((const __m128i *)(buf + 0x30)));
    }
    return crc32_fold_finish(x1, x2, x3, x4, buf, len);
}

/* Moves four 128-bit lanes at once by the distance `k` is made for, adding `data`. */
__attribute__((target("avx512f,vpclmulqdq")))
static inline __m512i fold_wide(__m512i lanes, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(lanes, k, 0x11), _mm512_clmulepi64_epi128(lanes, k, 0x00),
                                     data, 0x96);  /* a ^ b ^ c */
}

/* Wide: `len` >= 256, a multiple of 16. */
__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))
static uint32_t crc32_fold_wide(uint32_t crc, const unsigned char *buf, size_t len) {
    const __m512i k2048 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01322d1430LL, 0x011542778aLL));
    const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL));
    __m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(buf), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)~crc)));
    __m512i z1 = _mm512_loadu_si512(buf + 64);
    __m512i z2 = _mm512_loadu_si512(buf + 128);
    __m512i z3 = _mm512_loadu_si512(buf + 192);
    for (buf += 256, len -= 256; len >= 256; buf += 256, len -= 256) {
        z0 = fold_wide(z0, k2048, _mm512_loadu_si512(buf));
        z1 = fold_wide(z1, k2048, _mm512_loadu_si512(buf + 64));
        z2 = fold_wide(z2, k2048, _mm512_loadu_si512(buf + 128));
        z3 = fold_wide(z3, k2048, _mm512_loadu_si512(buf + 192));
    }
    /* the four registers into one, 512 bits apart; then whole 64-byte steps */
    z1 = fold_wide(z0, k512, z1);
    z2 = fold_wide(z1, k512, z2);
    z3 = fold_wide(z2, k512, z3);
    for (; len >= 64; buf += 64, len -= 64) z3 = fold_wide(z3, k512, _mm512_loadu_si512(buf));
    return crc32_fold_finish(_mm512_extracti32x4_epi32(z3, 0), _mm512_extracti32x4_epi32(z3, 1),
                             _mm512_extracti32x4_epi32(z3, 2), _mm512_extracti32x4_epi32(z3, 3), buf, len);
}
#else
enum { FOLD_NONE = 0, FOLD_NARROW = 1, FOLD_WIDE = 2 };
static int crc32_fold_available(void) { return FOLD_NONE; }
static uint32_t crc32_fold(uint32_t crc, const unsigned char *buf, size_t len) {
    (void)buf; (void)len; return crc;
}
static uint32_t crc32_fold_wide(uint32_t crc, const unsigned char *buf, size_t len) {
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

uint32_t yiana_crc32_using(int level, uint32_t crc, const void *buf, size_t len) {
    const unsigned char *bytes = buf;
    int available = yiana_crc32_accelerated();
    if (level > available) level = available;
    size_t blocks = len & ~(size_t)15;
    if (level >= FOLD_WIDE && len >= 256) {
        crc = crc32_fold_wide(crc, bytes, blocks);
    } else if (level >= FOLD_NARROW && len >= 64) {
        crc = crc32_fold(crc, bytes, blocks);
    } else {
        blocks = 0;
    }
    return len > blocks ? yiana_crc32_reference(crc, bytes + blocks, len - blocks) : crc;
}

uint32_t yiana_crc32(uint32_t crc, const void *buf, size_t len) {
    return yiana_crc32_using(FOLD_WIDE, crc, buf, len);
}
