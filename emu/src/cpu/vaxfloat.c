/*
 * vaxfloat.c — exact VAX F_floating / D_floating arithmetic (see vaxfloat.h).
 *
 * Internal form: every operand is unpacked into
 *
 *     sign, e (biased exponent, plain int, may leave 1..255 temporarily),
 *     m    (uint64_t significand, bit 63 set for nonzero values, 0 for zero)
 *
 * with value = (-1)^sign * (m / 2^64) * 2^(e - 128), which matches the VAX
 * "0.1fff... * 2^(exp-128)" convention: an unpacked F or D datum has the
 * same e as its exponent field.  F uses the top 24 bits of m, D the top 56.
 *
 * Intermediate results carry up to 64 significant bits.  Where precision is
 * thrown away before the final rounding (sums with a large exponent
 * difference, products, quotients) the lost bits are ORed into bit 0 of the
 * result ("sticky" / round-to-odd).  The final rounding is at bit 39 (F) or
 * bit 7 (D), far above bit 0, and every rounding or truncation boundary is
 * an even multiple of the unit in bit 0, so the sticky bit always makes the
 * approximation fall on the same side of each boundary as the exact value:
 * the rounded results are those of the infinitely precise results.
 * (For VAX round-half-away alone, a value truncated one bit below the
 * rounding position would already do; the sticky bit is what makes POLY's
 * truncation toward zero of a difference exact, and is kept everywhere for
 * uniformity.)
 *
 * Only integer arithmetic is used; 128-bit quantities are pairs of
 * uint64_t, with hand-written multiply and divide.
 */
#include "cpu/vaxfloat.h"

#include <stddef.h>

/* ====================================================== 128-bit helpers */

typedef struct {
    uint64_t hi, lo;
} u128;

/* Leading zeros of a nonzero 64-bit value. */
static int clz64(uint64_t x)
{
    int n = 0;
    if (!(x >> 32)) { n += 32; x <<= 32; }
    if (!(x >> 48)) { n += 16; x <<= 16; }
    if (!(x >> 56)) { n += 8;  x <<= 8; }
    if (!(x >> 60)) { n += 4;  x <<= 4; }
    if (!(x >> 62)) { n += 2;  x <<= 2; }
    if (!(x >> 63)) { n += 1; }
    return n;
}

static int u128_is_zero(u128 x) { return (x.hi | x.lo) == 0; }

/* Leading zeros of a nonzero 128-bit value. */
static int clz128(u128 x)
{
    return x.hi ? clz64(x.hi) : 64 + clz64(x.lo);
}

static u128 shl128(u128 x, int n) /* 0 <= n < 128 */
{
    u128 r;
    if (n == 0) return x;
    if (n >= 64) {
        r.hi = x.lo << (n - 64);
        r.lo = 0;
    } else {
        r.hi = (x.hi << n) | (x.lo >> (64 - n));
        r.lo = x.lo << n;
    }
    return r;
}

/* Shift right by n >= 0; any 1 bits shifted out are ORed into bit 0. */
static u128 shr128_sticky(u128 x, int n)
{
    u128 r;
    uint64_t lost;
    if (n == 0) return x;
    if (n >= 128) {
        r.hi = 0;
        r.lo = u128_is_zero(x) ? 0 : 1;
        return r;
    }
    if (n >= 64) {
        int s = n - 64;
        lost = x.lo | (s ? (x.hi << (64 - s)) : 0);
        r.lo = s ? (x.hi >> s) : x.hi;
        r.hi = 0;
    } else {
        lost = x.lo << (64 - n);
        r.lo = (x.lo >> n) | (x.hi << (64 - n));
        r.hi = x.hi >> n;
    }
    if (lost) r.lo |= 1;
    return r;
}

static u128 add128(u128 a, u128 b)
{
    u128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

static u128 sub128(u128 a, u128 b) /* a >= b */
{
    u128 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

void vf_umul64wide(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
    uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    /* Middle column: at most 3 * (2^32 - 1), no overflow. */
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static u128 mul64(uint64_t a, uint64_t b)
{
    u128 r;
    vf_umul64wide(a, b, &r.hi, &r.lo);
    return r;
}

/*
 * 128-by-64 division, schoolbook with two 32-bit quotient digits.  The
 * divisor is normalised (top bit set) so that each digit estimate from the
 * divisor's top 32 bits is at most 2 too large; it is corrected using the
 * divisor's next 32 bits.  Requires d != 0 and hi < d.
 */
uint64_t vf_udiv128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
    const uint64_t M32 = 0xFFFFFFFFu;
    int s = clz64(d);
    uint64_t nhi, nlo, d1, d0, n1, n0, q1, q0, rhat, u, rm;

    d <<= s;
    nhi = s ? (hi << s) | (lo >> (64 - s)) : hi; /* < d (as hi < d) */
    nlo = lo << s;
    d1 = d >> 32;
    d0 = d & M32;
    n1 = nlo >> 32;
    n0 = nlo & M32;

    /* First digit: (nhi:n1) / d. */
    q1 = nhi / d1;
    rhat = nhi - q1 * d1;
    while (q1 > M32 || q1 * d0 > ((rhat << 32) | n1)) {
        q1--;
        rhat += d1;
        if (rhat > M32) break;
    }
    /* The true partial remainder is < d < 2^64, so mod-2^64 is exact. */
    u = (nhi << 32 | n1) - q1 * d;

    /* Second digit: (u:n0) / d. */
    q0 = u / d1;
    rhat = u - q0 * d1;
    while (q0 > M32 || q0 * d0 > ((rhat << 32) | n0)) {
        q0--;
        rhat += d1;
        if (rhat > M32) break;
    }
    rm = (u << 32 | n0) - q0 * d;

    if (rem) *rem = rm >> s;
    return (q1 << 32) | q0;
}

/* Two's-complement reinterpretation without implementation-defined casts. */
static int32_t u32_to_i32(uint32_t x)
{
    if (x <= 0x7FFFFFFFu) return (int32_t)x;
    return (int32_t)(x - 0x80000000u) - 0x7FFFFFFF - 1;
}

/* ==================================================== unpack / round / pack */

typedef struct {
    int sign;
    int e;
    uint64_t m;
} vfu;

static const vfu VFU_ZERO = {0, 0, 0};

/* Returns nonzero for a reserved operand.  Zeros (dirty or not) -> m = 0. */
static int unpack_f(uint32_t x, vfu *u)
{
    uint32_t frac;
    u->sign = vf_f_sign(x);
    u->e = vf_f_exp(x);
    if (u->e == 0) {
        u->m = 0;
        u->sign = 0;
        return vf_f_is_reserved(x);
    }
    frac = ((x & 0x7Fu) << 16) | (x >> 16);          /* 23 bits */
    u->m = (uint64_t)(frac | 0x800000u) << 40;
    return 0;
}

static int unpack_d(uint64_t x, vfu *u)
{
    uint32_t lw0 = (uint32_t)x, lw1 = (uint32_t)(x >> 32);
    uint64_t frac;
    u->sign = vf_f_sign(lw0);
    u->e = vf_f_exp(lw0);
    if (u->e == 0) {
        u->m = 0;
        u->sign = 0;
        return vf_f_is_reserved(lw0);
    }
    frac = ((uint64_t)(lw0 & 0x7Fu) << 48) | ((uint64_t)(lw0 >> 16) << 32) |
           ((uint64_t)(lw1 & 0xFFFFu) << 16) | (uint64_t)(lw1 >> 16);
    u->m = (frac | (UINT64_C(1) << 55)) << 8;
    return 0;
}

/* Pack an already rounded, in-range value (m == 0 -> true zero). */
static uint32_t pack_f(const vfu *u)
{
    uint32_t frac;
    if (u->m == 0) return 0;
    frac = (uint32_t)(u->m >> 40) & 0x7FFFFFu;
    return (frac >> 16) | ((uint32_t)u->e << 7) | ((uint32_t)u->sign << 15) |
           ((frac & 0xFFFFu) << 16);
}

static uint64_t pack_d(const vfu *u)
{
    uint64_t frac;
    uint32_t lw0, lw1;
    if (u->m == 0) return 0;
    frac = (u->m >> 8) & ((UINT64_C(1) << 55) - 1);
    lw0 = (uint32_t)(frac >> 48) | ((uint32_t)u->e << 7) |
          ((uint32_t)u->sign << 15) | ((uint32_t)((frac >> 32) & 0xFFFFu) << 16);
    lw1 = (uint32_t)((frac >> 16) & 0xFFFFu) | ((uint32_t)(frac & 0xFFFFu) << 16);
    return (uint64_t)lw0 | ((uint64_t)lw1 << 32);
}

/* Normalise (shift the leading 1 to bit 63, value unchanged). */
static void normalise(vfu *u)
{
    int lz;
    if (u->m == 0) {
        *u = VFU_ZERO;
        return;
    }
    lz = clz64(u->m);
    u->m <<= lz;
    u->e -= lz;
}

/*
 * Round a normalised value to p significant bits, VAX style: add 1 at the
 * bit below the last kept bit and truncate.  Then check the exponent of
 * the rounded result: > 255 overflow, < 1 underflow (u becomes zero).
 */
static vf_status round_to(vfu *u, int p)
{
    uint64_t half, m;
    if (u->m == 0) {
        *u = VFU_ZERO;
        return VF_OK;
    }
    half = UINT64_C(1) << (63 - p);
    m = u->m + half;
    if (m < half) {                 /* carried out of bit 63 */
        m = UINT64_C(1) << 63;
        u->e++;
    }
    u->m = m & ~((half << 1) - 1);
    if (u->e > 255) return VF_OVERFLOW;
    if (u->e < 1) {
        *u = VFU_ZERO;
        return VF_UNDERFLOW;
    }
    return VF_OK;
}

static vf_status finish_f(vfu u, uint32_t *r)
{
    vf_status st = round_to(&u, 24);
    if (st == VF_OK || st == VF_UNDERFLOW) *r = pack_f(&u);
    return st;
}

static vf_status finish_d(vfu u, uint64_t *r)
{
    vf_status st = round_to(&u, 56);
    if (st == VF_OK || st == VF_UNDERFLOW) *r = pack_d(&u);
    return st;
}

/* ===================================================== arithmetic cores */

/*
 * a + b.  trunc_bits == 0: result with sticky bit (for rounding).
 * trunc_bits == t > 0: the exact sum is truncated toward zero (magnitude)
 * to t fraction bits relative to the larger operand's exponent, i.e. to a
 * multiple of 2^(E-t) where the larger operand is 0.1xxx * 2^E ("truncated
 * before normalisation", as POLY requires); the result is then exact.
 */
static vfu add_core(vfu a, vfu b, int trunc_bits)
{
    vfu r;
    u128 L, S, R;
    int d, lz;

    if (a.m == 0) return b;
    if (b.m == 0) return a;
    /* Make |a| >= |b| (normalised, so the exponent decides first). */
    if (a.e < b.e || (a.e == b.e && a.m < b.m)) {
        vfu t = a;
        a = b;
        b = t;
    }
    d = a.e - b.e;
    /* Bit 127 of L/S/R has weight 2^(a.e-128): a.m sits in bits 126..63,
     * leaving bit 127 free for a carry and 63 bits below for alignment. */
    L.hi = a.m >> 1;
    L.lo = a.m << 63;
    S.hi = b.m >> 1;
    S.lo = b.m << 63;
    S = shr128_sticky(S, d);
    R = (a.sign == b.sign) ? add128(L, S) : sub128(L, S);
    if (trunc_bits > 0) {
        int g = 127 - trunc_bits; /* lowest kept bit, >= 64 for t <= 63 */
        if (g >= 64) {
            R.hi &= ~((UINT64_C(1) << (g - 64)) - 1);
            R.lo = 0;
        } else {
            R.lo &= ~((UINT64_C(1) << g) - 1);
        }
    }
    if (u128_is_zero(R)) return VFU_ZERO;
    lz = clz128(R);
    R = shl128(R, lz);
    r.sign = a.sign;
    r.e = a.e + 1 - lz;
    r.m = R.hi | (R.lo != 0);
    return r;
}

static vfu mul_core(vfu a, vfu b)
{
    vfu r;
    u128 P;
    if (a.m == 0 || b.m == 0) return VFU_ZERO;
    P = mul64(a.m, b.m); /* in [2^126, 2^128) */
    r.sign = a.sign ^ b.sign;
    r.e = a.e + b.e - 128;
    if (!(P.hi >> 63)) {
        P = shl128(P, 1);
        r.e--;
    }
    r.m = P.hi | (P.lo != 0);
    return r;
}

static vfu div_core(vfu a, vfu b) /* b nonzero */
{
    vfu r;
    uint64_t q, rem;
    if (a.m == 0) return VFU_ZERO;
    r.sign = a.sign ^ b.sign;
    if (a.m < b.m) {
        /* a.m * 2^64 / b.m in [2^63, 2^64) */
        q = vf_udiv128(a.m, 0, b.m, &rem);
        r.e = a.e - b.e + 128;
    } else {
        /* a.m * 2^63 / b.m in [2^63, 2^64) */
        q = vf_udiv128(a.m >> 1, a.m << 63, b.m, &rem);
        r.e = a.e - b.e + 129;
    }
    r.m = q | (rem != 0);
    return r;
}

/* Signed comparison of unpacked values: -1, 0, 1. */
static int cmp_core(vfu a, vfu b)
{
    int sa = a.m == 0 ? 0 : (a.sign ? -1 : 1);
    int sb = b.m == 0 ? 0 : (b.sign ? -1 : 1);
    int c;
    if (sa != sb) return sa < sb ? -1 : 1;
    if (sa == 0) return 0;
    if (a.e != b.e)
        c = a.e < b.e ? -1 : 1;
    else if (a.m != b.m)
        c = a.m < b.m ? -1 : 1;
    else
        c = 0;
    return sa < 0 ? -c : c;
}

/* ================================================== F / D arithmetic API */

vf_status vf_addf(uint32_t a, uint32_t b, uint32_t *r)
{
    vfu ua, ub;
    if (unpack_f(a, &ua) | unpack_f(b, &ub)) return VF_RESERVED_OPERAND;
    return finish_f(add_core(ua, ub, 0), r);
}

vf_status vf_addd(uint64_t a, uint64_t b, uint64_t *r)
{
    vfu ua, ub;
    if (unpack_d(a, &ua) | unpack_d(b, &ub)) return VF_RESERVED_OPERAND;
    return finish_d(add_core(ua, ub, 0), r);
}

vf_status vf_subf(uint32_t minuend, uint32_t subtrahend, uint32_t *r)
{
    vfu ua, ub;
    if (unpack_f(minuend, &ua) | unpack_f(subtrahend, &ub))
        return VF_RESERVED_OPERAND;
    ub.sign ^= (ub.m != 0);
    return finish_f(add_core(ua, ub, 0), r);
}

vf_status vf_subd(uint64_t minuend, uint64_t subtrahend, uint64_t *r)
{
    vfu ua, ub;
    if (unpack_d(minuend, &ua) | unpack_d(subtrahend, &ub))
        return VF_RESERVED_OPERAND;
    ub.sign ^= (ub.m != 0);
    return finish_d(add_core(ua, ub, 0), r);
}

vf_status vf_mulf(uint32_t a, uint32_t b, uint32_t *r)
{
    vfu ua, ub;
    if (unpack_f(a, &ua) | unpack_f(b, &ub)) return VF_RESERVED_OPERAND;
    return finish_f(mul_core(ua, ub), r);
}

vf_status vf_muld(uint64_t a, uint64_t b, uint64_t *r)
{
    vfu ua, ub;
    if (unpack_d(a, &ua) | unpack_d(b, &ub)) return VF_RESERVED_OPERAND;
    return finish_d(mul_core(ua, ub), r);
}

vf_status vf_divf(uint32_t dividend, uint32_t divisor, uint32_t *r)
{
    vfu ua, ub;
    if (unpack_f(dividend, &ua) | unpack_f(divisor, &ub))
        return VF_RESERVED_OPERAND;
    if (ub.m == 0) return VF_DIVIDE_BY_ZERO;
    return finish_f(div_core(ua, ub), r);
}

vf_status vf_divd(uint64_t dividend, uint64_t divisor, uint64_t *r)
{
    vfu ua, ub;
    if (unpack_d(dividend, &ua) | unpack_d(divisor, &ub))
        return VF_RESERVED_OPERAND;
    if (ub.m == 0) return VF_DIVIDE_BY_ZERO;
    return finish_d(div_core(ua, ub), r);
}

vf_status vf_cmpf(uint32_t a, uint32_t b, int *result)
{
    vfu ua, ub;
    if (unpack_f(a, &ua) | unpack_f(b, &ub)) return VF_RESERVED_OPERAND;
    *result = cmp_core(ua, ub);
    return VF_OK;
}

vf_status vf_cmpd(uint64_t a, uint64_t b, int *result)
{
    vfu ua, ub;
    if (unpack_d(a, &ua) | unpack_d(b, &ub)) return VF_RESERVED_OPERAND;
    *result = cmp_core(ua, ub);
    return VF_OK;
}

vf_status vf_negf(uint32_t a, uint32_t *r)
{
    if (vf_f_is_reserved(a)) return VF_RESERVED_OPERAND;
    *r = vf_f_is_zero(a) ? 0 : (a ^ 0x8000u);
    return VF_OK;
}

vf_status vf_negd(uint64_t a, uint64_t *r)
{
    if (vf_d_is_reserved(a)) return VF_RESERVED_OPERAND;
    *r = vf_d_is_zero(a) ? 0 : (a ^ 0x8000u);
    return VF_OK;
}

vf_status vf_testf(uint32_t a, int *result)
{
    if (vf_f_is_reserved(a)) return VF_RESERVED_OPERAND;
    *result = vf_f_is_zero(a) ? 0 : (vf_f_sign(a) ? -1 : 1);
    return VF_OK;
}

vf_status vf_testd(uint64_t a, int *result)
{
    return vf_testf((uint32_t)a, result);
}

/* ========================================================== conversions */

static vfu from_int(int32_t v)
{
    vfu u;
    uint32_t mag;
    if (v == 0) return VFU_ZERO;
    u.sign = v < 0;
    mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    u.m = (uint64_t)mag;
    u.e = 128 + 64;
    normalise(&u);
    return u;
}

vf_status vf_cvt_int_to_f(int32_t v, uint32_t *r)
{
    return finish_f(from_int(v), r);
}

vf_status vf_cvt_int_to_d(int32_t v, uint64_t *r)
{
    return finish_d(from_int(v), r); /* <= 32 significant bits: exact */
}

/*
 * Integer (low-order `bits` bits, sign-extended) of a signed magnitude, and
 * whether the true value fits in a signed `bits`-bit integer.  `big` says
 * the true magnitude is >= 2^64 (mag then holds its low 64 bits).
 */
static vf_status int_result(int sign, uint64_t mag, int big, int bits,
                            int32_t *r)
{
    uint64_t lim = UINT64_C(1) << (bits - 1); /* max magnitude if negative */
    uint64_t val = sign ? (0 - mag) : mag;
    uint32_t low = (uint32_t)val;
    int ovf = big || (sign ? mag > lim : mag > lim - 1);
    if (bits < 32) {
        uint32_t mask = (UINT32_C(1) << bits) - 1;
        low &= mask;
        if (low & (UINT32_C(1) << (bits - 1))) low |= ~mask; /* sign-extend */
    }
    *r = u32_to_i32(low);
    return ovf ? VF_INT_OVERFLOW : VF_OK;
}

static vf_status to_int(vfu u, int bits, int round, int32_t *r)
{
    int k;
    uint64_t mag;
    int big = 0;
    if (bits != 8 && bits != 16) bits = 32;
    if (u.m == 0) {
        *r = 0;
        return VF_OK;
    }
    k = u.e - 128; /* number of integer bits in 0.1xxx * 2^k */
    if (k <= 0) {
        /* |value| < 1; it is >= 0.5 exactly when k == 0. */
        mag = (round && k == 0) ? 1 : 0;
    } else if (k < 64) {
        mag = u.m >> (64 - k);
        if (round) mag += (u.m >> (63 - k)) & 1;
    } else {
        big = 1; /* k <= 127, so the shift below is < 64 */
        mag = u.m << (k - 64);
    }
    return int_result(u.sign, mag, big, bits, r);
}

vf_status vf_cvt_f_to_int(uint32_t a, int bits, int round, int32_t *r)
{
    vfu u;
    if (unpack_f(a, &u)) return VF_RESERVED_OPERAND;
    return to_int(u, bits, round, r);
}

vf_status vf_cvt_d_to_int(uint64_t a, int bits, int round, int32_t *r)
{
    vfu u;
    if (unpack_d(a, &u)) return VF_RESERVED_OPERAND;
    return to_int(u, bits, round, r);
}

vf_status vf_cvt_f_to_d(uint32_t a, uint64_t *r)
{
    vfu u;
    if (unpack_f(a, &u)) return VF_RESERVED_OPERAND;
    *r = pack_d(&u);
    return VF_OK;
}

vf_status vf_cvt_d_to_f(uint64_t a, uint32_t *r)
{
    vfu u;
    if (unpack_d(a, &u)) return VF_RESERVED_OPERAND;
    return finish_f(u, r);
}

/* ================================================================= EMOD */

/*
 * EMOD, as the VAX Architecture Reference Manual defines it:
 *   "The multiplication is such that the result is equivalent to the exact
 *    product truncated (before normalization) to a fraction field of 32 bits
 *    in F_floating and 64 bits in D_floating.  Regarding the result as the
 *    sum of an integer and fraction of the same sign, the integer operand
 *    is replaced by the integer part of the result and the fraction operand
 *    is replaced by the rounded fractional part of the result."
 *
 * So: the 32-bit (24 + 8) or 64-bit (56 + 8) extended multiplier fraction
 * times the multiplicand fraction is an exact product fraction in
 * [1/4, 1); it is TRUNCATED to 32 / 64 bits after the binary point while
 * still unnormalised (a product fraction below 1/2 thus keeps only 31 / 63
 * significant bits).  The integer part is that truncated product truncated
 * toward zero; the fraction part is the rest, exact, then normalised and
 * ROUNDED (VAX rounding) to 24 / 56 bits.
 *
 * Consequences of taking this literally (uncertain what a real 780 does in
 * these corner cases):
 *   - a fraction part just below 1 can round up to exactly 1.0, which is
 *     then delivered as 1.0 (the integer part is not adjusted);
 *   - the fraction underflows only when the whole product is below
 *     2^-128 (integer part 0): both outputs are then 0 (VF_UNDERFLOW);
 *   - integer part >= 2^31 (or < -2^31): VF_INT_OVERFLOW with the low 32
 *     bits of the true integer part; the fraction is still produced (it is
 *     0 once the product has 64 or more integer bits).
 */
static vf_status emod_core(vfu mr, vfu md, int trunc_bits, int p,
                           int32_t *int_part, vfu *fract)
{
    u128 P;
    uint64_t T, mag, fr;
    int e, k, big = 0, sign;
    vf_status ist, fst;
    vfu f;

    if (mr.m == 0 || md.m == 0) {
        *int_part = 0;
        *fract = VFU_ZERO;
        return VF_OK;
    }
    sign = mr.sign ^ md.sign;
    P = mul64(mr.m, md.m);                 /* product fraction = P / 2^128 */
    T = P.hi;                              /* truncated to 64 bits */
    if (trunc_bits < 64) T &= ~((UINT64_C(1) << (64 - trunc_bits)) - 1);
    e = mr.e + md.e - 128;                 /* value = T/2^64 * 2^(e-128) */
    k = e - 128;                           /* integer bits */

    if (k <= 0) {
        mag = 0;
        fr = T;
    } else if (k < 64) {
        mag = T >> (64 - k);
        fr = T << k;
        e = 128;
    } else {
        big = 1;
        mag = (k - 64 < 64) ? T << (k - 64) : 0;
        fr = 0;
    }

    f.sign = sign;
    f.e = e;
    f.m = fr;
    normalise(&f);
    fst = round_to(&f, p);                 /* cannot overflow: |f| <= 1 */
    if (fst == VF_UNDERFLOW) {             /* only possible when k <= 0 */
        *int_part = 0;
        *fract = VFU_ZERO;
        return VF_UNDERFLOW;
    }
    ist = int_result(sign, mag, big, 32, int_part);
    *fract = f;
    return ist;
}

vf_status vf_emodf(uint32_t mulr, uint8_t mulrx, uint32_t muld,
                   int32_t *int_part, uint32_t *fract)
{
    vfu ur, ud, f;
    vf_status st;
    int32_t ip;
    if (unpack_f(mulr, &ur) | unpack_f(muld, &ud)) return VF_RESERVED_OPERAND;
    if (ur.m) ur.m |= (uint64_t)mulrx << 32; /* bits 39..32, below F's 24 */
    st = emod_core(ur, ud, 32, 24, &ip, &f);
    *int_part = ip;
    *fract = pack_f(&f);
    return st;
}

vf_status vf_emodd(uint64_t mulr, uint8_t mulrx, uint64_t muld,
                   int32_t *int_part, uint64_t *fract)
{
    vfu ur, ud, f;
    vf_status st;
    int32_t ip;
    if (unpack_d(mulr, &ur) | unpack_d(muld, &ud)) return VF_RESERVED_OPERAND;
    if (ur.m) ur.m |= (uint64_t)mulrx;       /* bits 7..0, below D's 56 */
    st = emod_core(ur, ud, 64, 56, &ip, &f);
    *int_part = ip;
    *fract = pack_d(&f);
    return st;
}

/* ================================================================= POLY */

/*
 * POLY, following the VAX Architecture Reference Manual's description of
 * each Horner step "result = result * arg + coef[i]":
 *   - the product is computed and "an extended floating fraction of 31 bits
 *     (POLYF) or 63 bits (POLYD)" is retained, "the fraction is truncated
 *     before normalization": the exact product fraction (in [1/4, 1)) is
 *     truncated to 31 / 63 bits after the binary point, then normalised
 *     (exactly).  No overflow/underflow check on the product alone.
 *   - the extended product is added to the next coefficient exactly; the
 *     sum is normalised and ROUNDED to 24 / 56 bits, and only then checked
 *     for overflow and underflow.  (The manual truncates only the product.
 *     Truncating the sum to 31 / 63 bits relative to the larger addend
 *     changes the last bit after cancellation, e.g. POLYF with arg
 *     0xFFFFC07D, coefficients 0xFFFF42FF 0x4300 gives 0x00803F80 on simh's
 *     vax780 and with this exact sum, 0x007F3F80 with the truncated one.)
 *   - overflow stops the instruction (VF_OVERFLOW).  Underflow replaces the
 *     intermediate result by 0, is remembered, and the loop continues; the
 *     function then returns VF_UNDERFLOW with the final result in *r.
 * The exact sum in the second step is of the truncated product (not of the
 * exact product) with the coefficient.
 * Reserved operands: arg and coef[0] are checked first, coef[i] when step i
 * reads it (a step that overflows before a later reserved coefficient is
 * read reports VF_OVERFLOW).
 */
static vf_status poly_core(int is_d, uint64_t argbits, unsigned degree,
                           const void *coef, uint64_t *out)
{
    const int p = is_d ? 56 : 24, t = is_d ? 63 : 31;
    const uint32_t *cf = (const uint32_t *)coef;
    const uint64_t *cd = (const uint64_t *)coef;
    vfu x, r, c, prod;
    unsigned i;
    int uf = 0;

    if (degree > 31) return VF_RESERVED_OPERAND;
    if (is_d ? unpack_d(argbits, &x) : unpack_f((uint32_t)argbits, &x))
        return VF_RESERVED_OPERAND;
    if (is_d ? unpack_d(cd[0], &r) : unpack_f(cf[0], &r))
        return VF_RESERVED_OPERAND;

    for (i = 1; i <= degree; i++) {
        vf_status st;
        if (is_d ? unpack_d(cd[i], &c) : unpack_f(cf[i], &c))
            return VF_RESERVED_OPERAND;
        if (r.m == 0 || x.m == 0) {
            prod = VFU_ZERO;
        } else {
            u128 P = mul64(r.m, x.m);
            prod.sign = r.sign ^ x.sign;
            prod.e = r.e + x.e - 128;
            prod.m = P.hi & ~((UINT64_C(1) << (64 - t)) - 1);
            normalise(&prod);
        }
        r = add_core(prod, c, 0);
        st = round_to(&r, p);
        if (st == VF_OVERFLOW) return VF_OVERFLOW;
        if (st == VF_UNDERFLOW) uf = 1; /* r is now 0 */
    }
    *out = is_d ? pack_d(&r) : (uint64_t)pack_f(&r);
    return uf ? VF_UNDERFLOW : VF_OK;
}

vf_status vf_polyf(uint32_t arg, unsigned degree, const uint32_t *coef,
                   uint32_t *r)
{
    uint64_t out;
    vf_status st = poly_core(0, arg, degree, coef, &out);
    if (st == VF_OK || st == VF_UNDERFLOW) *r = (uint32_t)out;
    return st;
}

vf_status vf_polyd(uint64_t arg, unsigned degree, const uint64_t *coef,
                   uint64_t *r)
{
    uint64_t out;
    vf_status st = poly_core(1, arg, degree, coef, &out);
    if (st == VF_OK || st == VF_UNDERFLOW) *r = out;
    return st;
}

/* ============================================================= literals */

uint32_t vf_from_short_literal_f(uint8_t lit6)
{
    uint32_t e = (lit6 >> 3) & 7u, f = lit6 & 7u;
    return ((128u + e) << 7) | (f << 4);
}

uint64_t vf_from_short_literal_d(uint8_t lit6)
{
    return vf_from_short_literal_f(lit6);
}
