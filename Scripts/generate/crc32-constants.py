#!/usr/bin/env python3
"""Derives the folding constants of Sources/CYiana/crc32.c.

CRC-32 (ZIP, gzip) by carry-less multiplication moves a 128-bit lane D bits further on by
multiplying its two halves by x^(D+32) mod P and x^(D-32) mod P, bit-reflected (the CRC is
computed least significant bit first) and shifted left by one (Intel, "Fast CRC
Computation for Generic Polynomials Using PCLMULQDQ", 2009). The C code uses D = 128 (lanes
into one), 512 (four lanes, or one 512-bit register, a step) and 2048 (four 512-bit
registers a step); then x^64 mod P to go from 128 bits to 64, and Barrett's mu = x^64 div P
with P itself (both 33 bits, reflected) to go from 64 to 32.
Usage: Scripts/generate/crc32-constants.py
"""

P = 0x1_04C1_1DB7  # x^32 + x^26 + ... + 1, bit i the coefficient of x^i


def x_to_the(n):
    """x^n mod P."""
    r = 1
    for _ in range(n):
        r <<= 1
        if r >> 32:
            r ^= P
    return r


def reflected(value, bits=32):
    return int(format(value, f"0{bits}b")[::-1], 2)


def constant(n):
    return reflected(x_to_the(n)) << 1


def x_to_the_div_p(n):
    """The quotient of x^n / P."""
    remainder, quotient = 1 << n, 0
    while remainder.bit_length() >= 33:
        shift = remainder.bit_length() - 33
        quotient |= 1 << shift
        remainder ^= P << shift
    return quotient


for distance in (128, 512, 2048):
    print(f"fold by {distance:4} bits: x^(D+32) 0x{constant(distance + 32):010x}, x^(D-32) 0x{constant(distance - 32):010x}")
print(f"128 to 64 bits: x^64 0x{constant(64):010x}")
print(f"Barrett: mu 0x{reflected(x_to_the_div_p(64), 33):010x}, P 0x{reflected(P, 33):010x}")
