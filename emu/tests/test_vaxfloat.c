/*
 * test_vaxfloat.c — unit test of the VAX F/D floating arithmetic
 * (src/cpu/vaxfloat.[ch]).
 *
 * Three kinds of checks:
 *   1. hand-computed known values (exact results, half-way rounding,
 *      cancellation, overflow, underflow, reserved operands, conversions,
 *      EMOD, POLY);
 *   2. randomized F_floating add/sub/mul/div/conversions against references
 *      computed with host doubles, used only where the double is exact
 *      (a product of two 24-bit fractions, a sum with exponent difference
 *      <= 29), then rounded to 24 bits by integer code here; division is
 *      checked by the defining inequality of the rounded quotient, whose
 *      terms are again exact in double;
 *   3. randomized D_floating, EMOD and POLY against an independent exact
 *      reference written here with multi-word integers ("xv": a big
 *      integer times a power of two).
 * Also prints "digest <hex>", a hash of the results of all operations on
 * random bit patterns, to compare builds across hosts (x86-64 vs wasm32).
 *
 * Ends with "N passed, M failed"; exit status 1 if anything failed.
 */
#include "cpu/vaxfloat.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ================================================================ harness */

static long n_pass, n_fail;
static long n_printed;
#define MAX_PRINTED 150

static void check_(int ok, int line, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    if (n_printed++ >= MAX_PRINTED) {
        if (n_printed == MAX_PRINTED + 1)
            printf("(further failure messages suppressed)\n");
        return;
    }
    printf("FAIL line %d: ", line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}
#define CHECK(cond, ...) check_((cond) != 0, __LINE__, __VA_ARGS__)

static const char *stname(vf_status s)
{
    switch (s) {
    case VF_OK: return "OK";
    case VF_RESERVED_OPERAND: return "RESERVED_OPERAND";
    case VF_OVERFLOW: return "OVERFLOW";
    case VF_UNDERFLOW: return "UNDERFLOW";
    case VF_DIVIDE_BY_ZERO: return "DIVIDE_BY_ZERO";
    case VF_INT_OVERFLOW: return "INT_OVERFLOW";
    }
    return "?";
}

/* Deterministic PRNG (xorshift64*). */
static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);
static uint64_t rnd64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}
static unsigned rnd_below(unsigned n) { return (unsigned)(rnd64() % n); }

/* ============================================ independent encode / decode */

/* Build F from sign, biased exponent and 24-bit significand (hidden bit
 * included). */
static uint32_t mkf(int s, int e, uint32_t sig24)
{
    uint32_t frac = sig24 & 0x7FFFFFu;
    uint32_t w0 = ((uint32_t)s << 15) | ((uint32_t)e << 7) | (frac >> 16);
    uint32_t w1 = frac & 0xFFFFu;
    return w0 | (w1 << 16);
}

/* Build D from sign, biased exponent and 56-bit significand: four 16-bit
 * words at increasing addresses, read as a little-endian quadword. */
static uint64_t mkd(int s, int e, uint64_t sig56)
{
    uint64_t frac = sig56 & ((UINT64_C(1) << 55) - 1);
    uint64_t w0 = ((uint64_t)s << 15) | ((uint64_t)e << 7) | (frac >> 48);
    uint64_t w1 = (frac >> 32) & 0xFFFF;
    uint64_t w2 = (frac >> 16) & 0xFFFF;
    uint64_t w3 = frac & 0xFFFF;
    return w0 | (w1 << 16) | (w2 << 32) | (w3 << 48);
}

static void decf(uint32_t f, int *s, int *e, uint32_t *sig24)
{
    *s = (f >> 15) & 1;
    *e = (f >> 7) & 0xFF;
    *sig24 = 0x800000u | ((f & 0x7F) << 16) | (f >> 16);
}

static void decd(uint64_t d, int *s, int *e, uint64_t *sig56)
{
    uint64_t w0 = d & 0xFFFF, w1 = (d >> 16) & 0xFFFF, w2 = (d >> 32) & 0xFFFF,
             w3 = d >> 48;
    *s = (int)((w0 >> 15) & 1);
    *e = (int)((w0 >> 7) & 0xFF);
    *sig56 = (UINT64_C(1) << 55) | ((w0 & 0x7F) << 48) | (w1 << 32) |
             (w2 << 16) | w3;
}

/* ============================================ host-double test helpers */

/* Exact value of an F datum (NaN for a reserved operand). */
double vf_f_to_host_double(uint32_t f)
{
    int s, e;
    uint32_t sig;
    double v;
    decf(f, &s, &e, &sig);
    if (e == 0) return s ? NAN : 0.0;
    v = ldexp((double)sig, e - 128 - 24);
    return s ? -v : v;
}

/* Round a double (exactly, half away from zero) to F.  *st gets VF_OK,
 * VF_OVERFLOW or VF_UNDERFLOW; the result is 0 on underflow. */
static uint32_t dbl_to_f_st(double d, vf_status *st)
{
    int ex, e, s = d < 0;
    double mant;
    uint64_t M, q;
    *st = VF_OK;
    if (d == 0) return 0;
    mant = frexp(fabs(d), &ex);                 /* [0.5, 1) */
    M = (uint64_t)ldexp(mant, 53);              /* exact, [2^52, 2^53) */
    q = (M + (UINT64_C(1) << 28)) >> 29;        /* VAX rounding to 24 bits */
    if (q == (UINT64_C(1) << 24)) {
        q >>= 1;
        ex++;
    }
    e = ex + 128;
    if (e > 255) {
        *st = VF_OVERFLOW;
        return 0;
    }
    if (e < 1) {
        *st = VF_UNDERFLOW;
        return 0;
    }
    return mkf(s, e, (uint32_t)q);
}

/* As above; an overflow gives the reserved-operand pattern 0x8000. */
uint32_t vf_host_double_to_f(double d)
{
    vf_status st;
    uint32_t r = dbl_to_f_st(d, &st);
    return st == VF_OVERFLOW ? 0x8000u : r;
}

/* Exact conversion of a double with <= 56 significant bits to D. */
static uint64_t dbl_to_d(double d)
{
    int ex;
    double mant;
    uint64_t M;
    if (d == 0) return 0;
    mant = frexp(fabs(d), &ex);
    M = (uint64_t)ldexp(mant, 53);
    return mkd(d < 0, ex + 128, M << 3);
}

static uint32_t F(double d) { return vf_host_double_to_f(d); }
static uint64_t D(double d) { return dbl_to_d(d); }

/* ================================================ exact reference (xv) */

#define NL 24 /* 768-bit integers */
typedef struct {
    uint32_t w[NL];
} bn;

static void bn_zero(bn *a) { memset(a, 0, sizeof *a); }
static void bn_from64(bn *a, uint64_t v)
{
    bn_zero(a);
    a->w[0] = (uint32_t)v;
    a->w[1] = (uint32_t)(v >> 32);
}
static int bn_is_zero(const bn *a)
{
    for (int i = 0; i < NL; i++)
        if (a->w[i]) return 0;
    return 1;
}
static int bn_bitlen(const bn *a)
{
    for (int i = NL - 1; i >= 0; i--)
        if (a->w[i]) {
            int b = 32;
            while (!(a->w[i] >> (b - 1))) b--;
            return i * 32 + b;
        }
    return 0;
}
static int bn_bit(const bn *a, int i)
{
    if (i < 0 || i >= NL * 32) return 0;
    return (a->w[i / 32] >> (i % 32)) & 1;
}
static void bn_shl(bn *a, int k)
{
    bn r;
    bn_zero(&r);
    for (int i = NL * 32 - 1; i >= k; i--)
        if (bn_bit(a, i - k)) r.w[i / 32] |= 1u << (i % 32);
    *a = r;
}
static void bn_shr(bn *a, int k)
{
    bn r;
    bn_zero(&r);
    for (int i = 0; i + k < NL * 32; i++)
        if (bn_bit(a, i + k)) r.w[i / 32] |= 1u << (i % 32);
    *a = r;
}
static int bn_cmp(const bn *a, const bn *b)
{
    for (int i = NL - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}
static void bn_add(bn *a, const bn *b)
{
    uint64_t c = 0;
    for (int i = 0; i < NL; i++) {
        c += (uint64_t)a->w[i] + b->w[i];
        a->w[i] = (uint32_t)c;
        c >>= 32;
    }
}
static void bn_sub(bn *a, const bn *b) /* a >= b */
{
    int64_t br = 0;
    for (int i = 0; i < NL; i++) {
        int64_t t = (int64_t)a->w[i] - b->w[i] - br;
        br = t < 0;
        a->w[i] = (uint32_t)(t + (br ? ((int64_t)1 << 32) : 0));
    }
}
static void bn_mul(bn *r, const bn *a, const bn *b)
{
    bn t;
    bn_zero(&t);
    for (int i = 0; i < NL; i++) {
        uint64_t c = 0;
        if (!a->w[i]) continue;
        for (int j = 0; i + j < NL; j++) {
            c += (uint64_t)a->w[i] * b->w[j] + t.w[i + j];
            t.w[i + j] = (uint32_t)c;
            c >>= 32;
        }
    }
    *r = t;
}
static uint64_t bn_low64(const bn *a)
{
    return (uint64_t)a->w[0] | ((uint64_t)a->w[1] << 32);
}

/* value = (-1)^sign * n * 2^s */
typedef struct {
    int sign;
    bn n;
    int s;
} xv;

static xv xv_zero(void)
{
    xv x;
    x.sign = 0;
    bn_zero(&x.n);
    x.s = 0;
    return x;
}
static xv xv_make(int sign, uint64_t n, int s)
{
    xv x;
    x.sign = sign;
    bn_from64(&x.n, n);
    x.s = s;
    if (!n) x.sign = 0;
    return x;
}
static xv xv_from_f(uint32_t f)
{
    int s, e;
    uint32_t sig;
    decf(f, &s, &e, &sig);
    if (e == 0) return xv_zero();
    return xv_make(s, sig, e - 128 - 24);
}
static xv xv_from_d(uint64_t d)
{
    int s, e;
    uint64_t sig;
    decd(d, &s, &e, &sig);
    if (e == 0) return xv_zero();
    return xv_make(s, sig, e - 128 - 56);
}
/* Exponent E with value in [2^(E-1), 2^E) (x nonzero). */
static int xv_exp(const xv *x) { return bn_bitlen(&x->n) + x->s; }

static int xv_cmpmag(const xv *a, const xv *b)
{
    int za = bn_is_zero(&a->n), zb = bn_is_zero(&b->n);
    bn an, bnn;
    if (za || zb) return za && zb ? 0 : (za ? -1 : 1);
    if (xv_exp(a) != xv_exp(b)) return xv_exp(a) < xv_exp(b) ? -1 : 1;
    an = a->n;
    bnn = b->n;
    if (a->s > b->s) bn_shl(&an, a->s - b->s);
    else bn_shl(&bnn, b->s - a->s);
    return bn_cmp(&an, &bnn);
}
static xv xv_add(xv a, xv b)
{
    xv r;
    int c;
    if (bn_is_zero(&a.n)) return b;
    if (bn_is_zero(&b.n)) return a;
    if (a.s > b.s) {
        bn_shl(&a.n, a.s - b.s);
        a.s = b.s;
    } else {
        bn_shl(&b.n, b.s - a.s);
        b.s = a.s;
    }
    r.s = a.s;
    if (a.sign == b.sign) {
        r.n = a.n;
        bn_add(&r.n, &b.n);
        r.sign = a.sign;
        return r;
    }
    c = bn_cmp(&a.n, &b.n);
    if (c == 0) return xv_zero();
    if (c > 0) {
        r.n = a.n;
        bn_sub(&r.n, &b.n);
        r.sign = a.sign;
    } else {
        r.n = b.n;
        bn_sub(&r.n, &a.n);
        r.sign = b.sign;
    }
    return r;
}
static xv xv_neg(xv a)
{
    if (!bn_is_zero(&a.n)) a.sign ^= 1;
    return a;
}
static xv xv_mul(xv a, xv b)
{
    xv r;
    bn_mul(&r.n, &a.n, &b.n);
    r.s = a.s + b.s;
    r.sign = bn_is_zero(&r.n) ? 0 : a.sign ^ b.sign;
    return r;
}
/* Truncate the magnitude to a multiple of 2^g. */
static xv xv_trunc(xv x, int g)
{
    if (x.s < g) {
        bn_shr(&x.n, g - x.s);
        x.s = g;
    }
    if (bn_is_zero(&x.n)) return xv_zero();
    return x;
}
/* Round half away from zero to p significant bits; sign, biased exponent,
 * p-bit significand.  Status OK / OVERFLOW / UNDERFLOW (checked on the
 * rounded exponent). */
static vf_status xv_round(xv x, int p, int *sign, int *e, uint64_t *q)
{
    int L = bn_bitlen(&x.n), E;
    bn n = x.n;
    *sign = x.sign;
    if (L == 0) {
        *e = 0;
        *q = 0;
        return VF_OK;
    }
    E = L + x.s;
    if (L > p) {
        int rb = bn_bit(&n, L - p - 1);
        bn_shr(&n, L - p);
        *q = bn_low64(&n) + (uint64_t)rb;
        if (*q == (UINT64_C(1) << p)) {
            *q >>= 1;
            E++;
        }
    } else {
        *q = bn_low64(&n) << (p - L);
    }
    *e = E + 128;
    if (*e > 255) return VF_OVERFLOW;
    if (*e < 1) {
        *e = 0;
        *q = 0;
        return VF_UNDERFLOW;
    }
    return VF_OK;
}
static vf_status xv_to_f(xv x, uint32_t *r)
{
    int s, e;
    uint64_t q;
    vf_status st = xv_round(x, 24, &s, &e, &q);
    *r = (st == VF_OK && q) ? mkf(s, e, (uint32_t)q) : 0;
    return st;
}
static vf_status xv_to_d(xv x, uint64_t *r)
{
    int s, e;
    uint64_t q;
    vf_status st = xv_round(x, 56, &s, &e, &q);
    *r = (st == VF_OK && q) ? mkd(s, e, q) : 0;
    return st;
}
/* Integer part (truncated, or rounded half away when round), as a signed
 * `bits`-bit result: low bits sign-extended, and whether it fits. */
static vf_status xv_to_int(xv x, int round, int bits, int32_t *r)
{
    bn n = x.n;
    bn lim;
    uint64_t low;
    uint32_t lo32, mask;
    int fits;
    if (x.s >= 0) {
        bn_shl(&n, x.s);
    } else {
        int rb = bn_bit(&n, -x.s - 1);
        bn one;
        bn_shr(&n, -x.s);
        bn_from64(&one, (uint64_t)(round && rb));
        bn_add(&n, &one);
    }
    bn_from64(&lim, UINT64_C(1) << (bits - 1));
    if (!x.sign) {
        bn one;
        bn_from64(&one, 1);
        bn_sub(&lim, &one);
    }
    fits = bn_cmp(&n, &lim) <= 0;
    low = bn_low64(&n);
    if (x.sign) low = 0 - low;
    lo32 = (uint32_t)low;
    mask = bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1);
    lo32 &= mask;
    if (bits < 32 && (lo32 >> (bits - 1)) & 1) lo32 |= ~mask;
    memcpy(r, &lo32, 4);
    return fits ? VF_OK : VF_INT_OVERFLOW;
}

/* ======================================================== check helpers */

#define SENT32 0xDEADBEEFu
#define SENT64 UINT64_C(0xDEADBEEFCAFEF00D)

/* Compare a (status, F result) against the expectation.  On statuses that
 * must not write, got must still hold the sentinel. */
static void cmp_f(int line, const char *what, vf_status st, uint32_t got,
                  vf_status est, uint32_t exp)
{
    int ok = st == est;
    if (ok) {
        if (est == VF_OK || est == VF_UNDERFLOW)
            ok = got == exp;
        else if (est != VF_INT_OVERFLOW)
            ok = got == SENT32;
    }
    check_(ok, line, "%s: got %s %08X (%.9g), want %s %08X (%.9g)", what,
           stname(st), (unsigned)got, vf_f_to_host_double(got), stname(est),
           (unsigned)exp, vf_f_to_host_double(exp));
}

static void cmp_d(int line, const char *what, vf_status st, uint64_t got,
                  vf_status est, uint64_t exp)
{
    int ok = st == est;
    if (ok) {
        if (est == VF_OK || est == VF_UNDERFLOW)
            ok = got == exp;
        else if (est != VF_INT_OVERFLOW)
            ok = got == SENT64;
    }
    check_(ok, line, "%s: got %s %016llX, want %s %016llX", what, stname(st),
           (unsigned long long)got, stname(est), (unsigned long long)exp);
}

#define T_F2(fn, a, b, est, exp)                                              \
    do {                                                                      \
        uint32_t r_ = SENT32;                                                 \
        vf_status s_ = fn((a), (b), &r_);                                     \
        char w_[96];                                                          \
        snprintf(w_, sizeof w_, "%s(%08X,%08X)", #fn, (unsigned)(a),          \
                 (unsigned)(b));                                              \
        cmp_f(__LINE__, w_, s_, r_, (est), (exp));                            \
    } while (0)

#define T_D2(fn, a, b, est, exp)                                              \
    do {                                                                      \
        uint64_t r_ = SENT64;                                                 \
        vf_status s_ = fn((a), (b), &r_);                                     \
        char w_[96];                                                          \
        snprintf(w_, sizeof w_, "%s(%016llX,%016llX)", #fn,                   \
                 (unsigned long long)(a), (unsigned long long)(b));           \
        cmp_d(__LINE__, w_, s_, r_, (est), (exp));                            \
    } while (0)

/* ===================================================== known-value tests */

static void test_encoding(void)
{
    CHECK(F(1.0) == 0x00004080u, "1.0 = %08X", (unsigned)F(1.0));
    CHECK(F(0.5) == 0x00004000u, "0.5 = %08X", (unsigned)F(0.5));
    CHECK(F(2.0) == 0x00004100u, "2.0 = %08X", (unsigned)F(2.0));
    CHECK(F(-1.0) == 0x0000C080u, "-1.0 = %08X", (unsigned)F(-1.0));
    CHECK(F(3.0) == 0x00004140u, "3.0 = %08X", (unsigned)F(3.0));
    CHECK(F(1.0 + ldexp(1, -23)) == 0x00014080u, "1+2^-23 = %08X",
          (unsigned)F(1.0 + ldexp(1, -23)));
    CHECK(D(1.0) == UINT64_C(0x0000000000004080), "D 1.0");
    CHECK(D(1.0 + ldexp(1, -52)) == UINT64_C(0x0008000000004080),
          "D 1+2^-52 = %016llX", (unsigned long long)D(1.0 + ldexp(1, -52)));
    CHECK(mkd(0, 129, (UINT64_C(1) << 55) | 1) == UINT64_C(0x0001000000004080),
          "D 1+2^-55 layout");
    CHECK(vf_f_to_host_double(0x00004080u) == 1.0, "f_to_host 1.0");
    CHECK(vf_f_to_host_double(0x0000C0C0u) == -1.5, "f_to_host -1.5");
    CHECK(vf_f_is_reserved(0x8000u) && !vf_f_is_reserved(0x8080u) &&
              !vf_f_is_reserved(0x0000u) && vf_f_is_zero(0x12340005u),
          "reserved/zero predicates");
    /* Short literals: e = bits 5:3, f = bits 2:0, 0.5 .. 120. */
    for (unsigned lit = 0; lit < 64; lit++) {
        double want = ldexp(8 + (lit & 7), (int)(lit >> 3) - 4);
        uint32_t f = vf_from_short_literal_f((uint8_t)lit);
        uint64_t d = vf_from_short_literal_d((uint8_t)lit);
        CHECK(vf_f_to_host_double(f) == want && d == (uint64_t)f,
              "short literal %u -> %08X, want %g", lit, (unsigned)f, want);
    }
    CHECK(vf_from_short_literal_f(0) == 0x4000u, "literal 0 = 0.5");
    CHECK(vf_f_to_host_double(vf_from_short_literal_f(63)) == 120.0,
          "literal 63 = 120");
}

static void test_addsub(void)
{
    const double u23 = ldexp(1, -23), u24 = ldexp(1, -24);
    uint32_t one = 0x4080, half = 0x4000, two = 0x4100, mone = 0xC080;
    uint32_t fmax = mkf(0, 255, 0xFFFFFF), fmin = mkf(0, 1, 0x800000);

    T_F2(vf_addf, one, one, VF_OK, two);
    T_F2(vf_addf, half, half, VF_OK, one);
    T_F2(vf_addf, one, mone, VF_OK, 0);
    T_F2(vf_addf, mone, mone, VF_OK, F(-2.0));
    T_F2(vf_subf, two, one, VF_OK, one);
    T_F2(vf_subf, one, two, VF_OK, mone);
    T_F2(vf_subf, one, one, VF_OK, 0);
    T_F2(vf_subf, F(1.5), F(1.25), VF_OK, F(0.25));
    T_F2(vf_addf, F(3.0), F(-4.5), VF_OK, F(-1.5));
    /* zero operands, dirty zeros (exp 0, sign 0, fraction != 0) */
    T_F2(vf_addf, 0, one, VF_OK, one);
    T_F2(vf_addf, one, 0x12340005u, VF_OK, one);
    T_F2(vf_addf, 0x00010001u, 0x00000070u, VF_OK, 0);
    T_F2(vf_subf, 0, one, VF_OK, mone);
    T_F2(vf_subf, 0x00010001u, one, VF_OK, mone);
    /* half-way: 1 + 2^-24 is exactly half an ulp above 1 -> away from 0 */
    T_F2(vf_addf, one, F(u24), VF_OK, F(1.0 + u23));
    T_F2(vf_addf, mone, F(-u24), VF_OK, F(-1.0 - u23));
    T_F2(vf_subf, mone, F(u24), VF_OK, F(-1.0 - u23));
    /* just below half-way -> down */
    T_F2(vf_addf, one, F(u24 * (1 - u23)), VF_OK, one);
    /* 3 + 2^-22: ulp at 3 is 2^-22 -> exact; 3 + 2^-23 is half -> up */
    T_F2(vf_addf, F(3.0), F(ldexp(1, -23)), VF_OK, F(3.0 + ldexp(1, -22)));
    /* 1.5 + (1 + 2^-23) = 2.5 + 2^-23: ulp at 2.5 is 2^-22, half -> up */
    T_F2(vf_addf, F(1.5), F(1 + u23), VF_OK, F(2.5 + ldexp(1, -22)));
    /* cancellation / borrow: 1 - 2^-25 rounds (half-way) up to 1 */
    T_F2(vf_subf, one, F(ldexp(1, -25)), VF_OK, one);
    /* 1 - 3*2^-26 = 0.111..1(24) 01 -> down to 1 - 2^-24 */
    T_F2(vf_subf, one, F(3 * ldexp(1, -26)), VF_OK, F(1 - u24));
    /* 1 - 2^-24 exact */
    T_F2(vf_subf, one, F(u24), VF_OK, F(1 - u24));
    /* massive cancellation */
    T_F2(vf_subf, F(1 + u23), one, VF_OK, F(u23));
    T_F2(vf_subf, F(1 + 3 * u23), F(1 + 2 * u23), VF_OK, F(u23));
    T_F2(vf_addf, F(-(1 - u24)), one, VF_OK, F(u24));
    /* large exponent differences */
    T_F2(vf_addf, F(ldexp(1, 100)), one, VF_OK, F(ldexp(1, 100)));
    T_F2(vf_subf, F(ldexp(1, 100)), one, VF_OK, F(ldexp(1, 100)));
    T_F2(vf_addf, F(ldexp(1, 20)), F(ldexp(1, -5)), VF_OK, F(ldexp(1, 20)));
    T_F2(vf_addf, F(ldexp(1, 20)), F(ldexp(1, -4)), VF_OK,
         F(ldexp(1, 20) + ldexp(1, -3)));                     /* half -> up */
    T_F2(vf_addf, fmax, fmin, VF_OK, fmax);
    T_F2(vf_subf, fmin, fmax, VF_OK, fmax ^ 0x8000u);
    /* overflow (exponent > 255 after rounding) */
    T_F2(vf_addf, fmax, fmax, VF_OVERFLOW, 0);
    T_F2(vf_addf, F(ldexp(1, 126)), F(ldexp(1, 126)), VF_OVERFLOW, 0);
    T_F2(vf_addf, fmax, F(ldexp(1, 127 - 25)), VF_OVERFLOW, 0); /* rounds up */
    T_F2(vf_addf, fmax, F(ldexp(1, 127 - 26)), VF_OK, fmax);
    T_F2(vf_subf, fmax ^ 0x8000u, fmax, VF_OVERFLOW, 0);
    /* underflow: difference below 2^-128 */
    T_F2(vf_subf, mkf(0, 1, 0x800001), fmin, VF_UNDERFLOW, 0);
    T_F2(vf_subf, mkf(0, 2, 0x800000), mkf(0, 1, 0xFFFFFF), VF_UNDERFLOW, 0);
    T_F2(vf_subf, mkf(0, 2, 0xC00000), mkf(0, 1, 0x800000), VF_OK,
         mkf(0, 2, 0x800000));
    /* reserved operands */
    T_F2(vf_addf, 0x8000u, one, VF_RESERVED_OPERAND, 0);
    T_F2(vf_addf, one, 0x8000u, VF_RESERVED_OPERAND, 0);
    T_F2(vf_subf, 0xFFFF807Fu, 0, VF_RESERVED_OPERAND, 0);
    T_F2(vf_subf, 0, 0x8000u, VF_RESERVED_OPERAND, 0);

    /* D */
    {
        uint64_t d1 = D(1.0), dm1 = D(-1.0), d2 = D(2.0);
        uint64_t dmax = mkd(0, 255, (UINT64_C(1) << 56) - 1);
        uint64_t u55 = mkd(0, 129 - 55, UINT64_C(1) << 55); /* 2^-55 */
        uint64_t u56 = mkd(0, 129 - 56, UINT64_C(1) << 55); /* 2^-56 */
        T_D2(vf_addd, d1, d1, VF_OK, d2);
        T_D2(vf_addd, d1, dm1, VF_OK, 0);
        T_D2(vf_subd, d2, d1, VF_OK, d1);
        T_D2(vf_subd, d1, d2, VF_OK, dm1);
        /* double 0.1 + double 0.2 is exact in 56 bits (checked with Python) */
        T_D2(vf_addd, D(0.1), D(0.2), VF_OK, mkd(0, 127, UINT64_C(0x9999999999999C)));
        T_D2(vf_addd, d1, u56, VF_OK, mkd(0, 129, (UINT64_C(1) << 55) | 1));
        T_D2(vf_addd, d1, u55, VF_OK, mkd(0, 129, (UINT64_C(1) << 55) | 1));
        T_D2(vf_addd, dm1, u56 | 0x8000u, VF_OK,
             mkd(1, 129, (UINT64_C(1) << 55) | 1));
        T_D2(vf_subd, d1, mkd(0, 129 - 57, UINT64_C(1) << 55), VF_OK, d1);
        T_D2(vf_subd, d1, u56, VF_OK, mkd(0, 128, (UINT64_C(1) << 56) - 1));
        T_D2(vf_subd, mkd(0, 129, (UINT64_C(1) << 55) | 1), d1, VF_OK, u55);
        T_D2(vf_addd, D(ldexp(1, 100)), d1, VF_OK, D(ldexp(1, 100)));
        T_D2(vf_addd, dmax, dmax, VF_OVERFLOW, 0);
        T_D2(vf_addd, dmax, mkd(0, 255 - 56, UINT64_C(1) << 55), VF_OVERFLOW, 0);
        T_D2(vf_subd, mkd(0, 1, (UINT64_C(1) << 55) | 7),
             mkd(0, 1, UINT64_C(1) << 55), VF_UNDERFLOW, 0);
        T_D2(vf_addd, UINT64_C(0x8000), d1, VF_RESERVED_OPERAND, 0);
        T_D2(vf_subd, d1, UINT64_C(0xFFFFFFFF00008000), VF_RESERVED_OPERAND, 0);
        T_D2(vf_addd, UINT64_C(0x1234567800000000), d1, VF_OK, d1); /* dirty 0 */
    }
}

static void test_muldiv(void)
{
    uint32_t one = 0x4080, two = 0x4100, mone = 0xC080;
    uint32_t fmax = mkf(0, 255, 0xFFFFFF), fmin = mkf(0, 1, 0x800000);
    const double a12 = 1 + ldexp(1, -12);

    T_F2(vf_mulf, one, one, VF_OK, one);
    T_F2(vf_mulf, two, F(0.5), VF_OK, one);
    T_F2(vf_mulf, F(3.0), F(-7.0), VF_OK, F(-21.0));
    T_F2(vf_mulf, mone, mone, VF_OK, one);
    T_F2(vf_mulf, F(1.5), F(1.5), VF_OK, F(2.25));
    T_F2(vf_mulf, 0, F(5.0), VF_OK, 0);
    T_F2(vf_mulf, F(-5.0), 0x00FF0003u, VF_OK, 0); /* dirty zero */
    /* (1+2^-12)^2 = 1 + 2^-11 + 2^-24: exactly half an ulp -> up */
    T_F2(vf_mulf, F(a12), F(a12), VF_OK, F(1 + ldexp(1, -11) + ldexp(1, -23)));
    T_F2(vf_mulf, F(-a12), F(a12), VF_OK,
         F(-(1 + ldexp(1, -11) + ldexp(1, -23))));
    /* (1+2^-23)(1-2^-24) = 1 + 2^-24 - 2^-47: just below half -> down */
    T_F2(vf_mulf, F(1 + ldexp(1, -23)), F(1 - ldexp(1, -24)), VF_OK, one);
    /* overflow / underflow */
    T_F2(vf_mulf, F(ldexp(1, 126)), two, VF_OVERFLOW, 0);
    T_F2(vf_mulf, F(ldexp(1, 125)), two, VF_OK, F(ldexp(1, 126)));
    T_F2(vf_mulf, fmax, fmax, VF_OVERFLOW, 0);
    T_F2(vf_mulf, fmax, F(1 + ldexp(1, -23)), VF_OVERFLOW, 0);
    T_F2(vf_mulf, fmin, F(0.5), VF_UNDERFLOW, 0);
    T_F2(vf_mulf, fmin, one, VF_OK, fmin);
    T_F2(vf_mulf, F(ldexp(1, -100)), F(-ldexp(1, -100)), VF_UNDERFLOW, 0);
    /* (1-2^-24)*2^-128 * (1+2^-23): 2^-128*(1 + 2^-24 - 2^-47) rounds to
     * 2^-128, and a value that only reaches 2^-128 by rounding up is not an
     * underflow (the exponent is checked after rounding). */
    T_F2(vf_mulf, mkf(0, 0 + 1, 0xFFFFFF), F(0.5 + ldexp(1, -24)), VF_OK, fmin);
    T_F2(vf_mulf, 0x8000u, one, VF_RESERVED_OPERAND, 0);
    T_F2(vf_mulf, 0, 0x8000u, VF_RESERVED_OPERAND, 0);

    T_F2(vf_divf, one, two, VF_OK, F(0.5));
    T_F2(vf_divf, F(21.0), F(-7.0), VF_OK, F(-3.0));
    T_F2(vf_divf, F(-1.0), F(-4.0), VF_OK, F(0.25));
    T_F2(vf_divf, one, F(3.0), VF_OK, mkf(0, 127, 0xAAAAAB)); /* 0.0101..->up */
    T_F2(vf_divf, two, F(3.0), VF_OK, mkf(0, 128, 0xAAAAAB));
    T_F2(vf_divf, one, F(-3.0), VF_OK, mkf(1, 127, 0xAAAAAB));
    T_F2(vf_divf, one, F(7.0), VF_OK, mkf(0, 126, 0x924925)); /* .001001..->up */
    T_F2(vf_divf, F(5.0), F(3.0), VF_OK, mkf(0, 129, 0xD55555)); /* ->down */
    T_F2(vf_divf, 0, F(3.0), VF_OK, 0);
    T_F2(vf_divf, one, 0, VF_DIVIDE_BY_ZERO, 0);
    T_F2(vf_divf, 0, 0, VF_DIVIDE_BY_ZERO, 0);
    T_F2(vf_divf, one, 0x00770000u, VF_DIVIDE_BY_ZERO, 0); /* dirty zero */
    T_F2(vf_divf, 0x8000u, 0, VF_RESERVED_OPERAND, 0);
    T_F2(vf_divf, one, 0x8000u, VF_RESERVED_OPERAND, 0);
    T_F2(vf_divf, F(ldexp(1, 100)), F(ldexp(1, -100)), VF_OVERFLOW, 0);
    T_F2(vf_divf, fmax, F(0.5), VF_OVERFLOW, 0);
    T_F2(vf_divf, fmin, two, VF_UNDERFLOW, 0);
    T_F2(vf_divf, fmin, one, VF_OK, fmin);
    /* (2^-128 * (1-2^-25)) would round up to 2^-128: fmin / (1+2^-23)
     * = 2^-128 (1 - 2^-23 + 2^-46 - ...) -> 0.11..1(23)0 11.. at exp 0:
     * rounds to 24 bits at exponent 0 -> 1-2^-23 -> still exponent 0 */
    T_F2(vf_divf, fmin, F(1 + ldexp(1, -23)), VF_UNDERFLOW, 0);

    /* D */
    {
        uint64_t d3 = D(3.0), d1 = D(1.0);
        T_D2(vf_muld, D(3.0), D(-7.0), VF_OK, D(-21.0));
        T_D2(vf_muld, D(1 + ldexp(1, -28)), D(1 + ldexp(1, -28)), VF_OK,
             mkd(0, 129, (UINT64_C(1) << 55) | (UINT64_C(1) << 28) | 1)); /* half->up */
        T_D2(vf_muld, D(ldexp(1, 120)), D(ldexp(1, 10)), VF_OVERFLOW, 0);
        T_D2(vf_muld, D(ldexp(1, -120)), D(ldexp(1, -10)), VF_UNDERFLOW, 0);
        T_D2(vf_divd, d1, d3, VF_OK, mkd(0, 127, UINT64_C(0xAAAAAAAAAAAAAB)));
        T_D2(vf_divd, D(2.0), d3, VF_OK, mkd(0, 128, UINT64_C(0xAAAAAAAAAAAAAB)));
        T_D2(vf_divd, D(5.0), d3, VF_OK, mkd(0, 129, UINT64_C(0xD5555555555555)));
        T_D2(vf_divd, D(-21.0), D(7.0), VF_OK, D(-3.0));
        T_D2(vf_divd, d1, 0, VF_DIVIDE_BY_ZERO, 0);
        T_D2(vf_divd, UINT64_C(0x8000), 0, VF_RESERVED_OPERAND, 0);
        T_D2(vf_muld, d1, UINT64_C(0x8000), VF_RESERVED_OPERAND, 0);
    }
}

static void test_cmp_neg_tst(void)
{
    int c = 99;
    uint32_t r;
    uint64_t rd;
    CHECK(vf_cmpf(F(1.0), F(2.0), &c) == VF_OK && c == -1, "cmp 1<2 %d", c);
    CHECK(vf_cmpf(F(2.0), F(1.0), &c) == VF_OK && c == 1, "cmp 2>1 %d", c);
    CHECK(vf_cmpf(F(-2.0), F(-1.0), &c) == VF_OK && c == -1, "cmp -2<-1 %d", c);
    CHECK(vf_cmpf(F(-1.0), F(1.0), &c) == VF_OK && c == -1, "cmp -1<1 %d", c);
    CHECK(vf_cmpf(F(1.5), F(1.5), &c) == VF_OK && c == 0, "cmp eq %d", c);
    CHECK(vf_cmpf(0, 0x12340001u, &c) == VF_OK && c == 0, "cmp 0 == dirty 0");
    CHECK(vf_cmpf(0, F(-1e-30), &c) == VF_OK && c == 1, "cmp 0 > -tiny");
    CHECK(vf_cmpf(F(1.0), F(1 + ldexp(1, -23)), &c) == VF_OK && c == -1,
          "cmp lsb");
    CHECK(vf_cmpf(0x8000u, 0, &c) == VF_RESERVED_OPERAND, "cmp reserved a");
    CHECK(vf_cmpf(0, 0x8000u, &c) == VF_RESERVED_OPERAND, "cmp reserved b");
    CHECK(vf_cmpd(D(1.0), mkd(0, 129, (UINT64_C(1) << 55) | 1), &c) == VF_OK &&
              c == -1, "cmpd lsb");
    CHECK(vf_cmpd(mkd(1, 129, (UINT64_C(1) << 55) | 1), D(-1.0), &c) == VF_OK &&
              c == -1, "cmpd neg lsb");
    CHECK(vf_cmpd(D(3.0), D(3.0), &c) == VF_OK && c == 0, "cmpd eq");
    CHECK(vf_cmpd(UINT64_C(0x8000), D(3.0), &c) == VF_RESERVED_OPERAND,
          "cmpd reserved");

    r = SENT32;
    CHECK(vf_negf(F(1.5), &r) == VF_OK && r == F(-1.5), "neg 1.5");
    CHECK(vf_negf(F(-1.5), &r) == VF_OK && r == F(1.5), "neg -1.5");
    CHECK(vf_negf(0x00120000u, &r) == VF_OK && r == 0, "neg dirty zero");
    r = SENT32;
    CHECK(vf_negf(0x8000u, &r) == VF_RESERVED_OPERAND && r == SENT32,
          "neg reserved");
    CHECK(vf_negd(D(-2.5), &rd) == VF_OK && rd == D(2.5), "negd");
    CHECK(vf_negd(UINT64_C(0x55), &rd) == VF_OK && rd == 0, "negd zero");
    CHECK(vf_negd(UINT64_C(0x8000), &rd) == VF_RESERVED_OPERAND, "negd res");

    CHECK(vf_testf(F(-3.0), &c) == VF_OK && c == -1, "tst neg");
    CHECK(vf_testf(F(3.0), &c) == VF_OK && c == 1, "tst pos");
    CHECK(vf_testf(0x00000001u, &c) == VF_OK && c == 0, "tst dirty zero");
    CHECK(vf_testf(0x8000u, &c) == VF_RESERVED_OPERAND, "tst reserved");
    CHECK(vf_testd(D(-1e-20), &c) == VF_OK && c == -1, "tstd neg");
    CHECK(vf_testd(0, &c) == VF_OK && c == 0, "tstd zero");
    CHECK(vf_testd(UINT64_C(0xFFFF8000), &c) == VF_RESERVED_OPERAND,
          "tstd reserved");
}

#define T_CVI(fn, a, bits, rnd, est, exp)                                    \
    do {                                                                      \
        int32_t r_ = 0x5A5A5A5A;                                              \
        vf_status s_ = fn((a), (bits), (rnd), &r_);                           \
        CHECK(s_ == (est) && (s_ == VF_RESERVED_OPERAND ? r_ == 0x5A5A5A5A    \
                                                        : r_ == (exp)),       \
              "%s(%s, bits %d, round %d): got %s %ld, want %s %ld", #fn, #a, \
              (bits), (rnd), stname(s_), (long)r_, stname(est), (long)(exp)); \
    } while (0)

static void test_conversions(void)
{
    uint32_t r;
    uint64_t rd;
    vf_status st;

    /* int -> F (rounded) / D (exact) */
    {
        static const int32_t vals[] = {0, 1, -1, 2, 3, 100, -100, 65535,
                                       16777215, 16777216, -16777216,
                                       2147483647, -2147483647 - 1};
        for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            r = SENT32;
            st = vf_cvt_int_to_f(vals[i], &r);
            CHECK(st == VF_OK && r == F((double)vals[i]),
                  "cvt %ld -> F %08X", (long)vals[i], (unsigned)r);
            rd = SENT64;
            st = vf_cvt_int_to_d(vals[i], &rd);
            CHECK(st == VF_OK && rd == D((double)vals[i]),
                  "cvt %ld -> D %016llX", (long)vals[i], (unsigned long long)rd);
        }
        vf_cvt_int_to_f(16777217, &r); /* 2^24+1: half -> up */
        CHECK(r == F(16777218.0), "CVTLF 2^24+1 -> %08X", (unsigned)r);
        vf_cvt_int_to_f(16777219, &r); /* 2^24+3: half -> up */
        CHECK(r == F(16777220.0), "CVTLF 2^24+3 -> %08X", (unsigned)r);
        vf_cvt_int_to_f(-16777217, &r);
        CHECK(r == F(-16777218.0), "CVTLF -(2^24+1) -> %08X", (unsigned)r);
        vf_cvt_int_to_f(2147483647, &r);
        CHECK(r == F(2147483648.0), "CVTLF INT_MAX -> %08X", (unsigned)r);
        vf_cvt_int_to_f(33554435, &r); /* 2^25+3: 2^25+2 +1 -> 3/4 ulp up */
        CHECK(r == F(33554436.0), "CVTLF 2^25+3 -> %08X", (unsigned)r);
        vf_cvt_int_to_f(33554433, &r); /* 2^25+1: quarter ulp -> down */
        CHECK(r == F(33554432.0), "CVTLF 2^25+1 -> %08X", (unsigned)r);
        vf_cvt_int_to_d(2147483647, &rd);
        CHECK(rd == D(2147483647.0), "CVTLD INT_MAX exact");
    }

    /* F/D -> int: truncation vs rounding */
    T_CVI(vf_cvt_d_to_int, D(2.5), 32, 0, VF_OK, 2);
    T_CVI(vf_cvt_d_to_int, D(2.5), 32, 1, VF_OK, 3);
    T_CVI(vf_cvt_d_to_int, D(-2.5), 32, 0, VF_OK, -2);
    T_CVI(vf_cvt_d_to_int, D(-2.5), 32, 1, VF_OK, -3);
    T_CVI(vf_cvt_f_to_int, F(2.5), 32, 0, VF_OK, 2);
    T_CVI(vf_cvt_f_to_int, F(2.5), 32, 1, VF_OK, 3);
    T_CVI(vf_cvt_f_to_int, F(-2.5), 32, 0, VF_OK, -2);
    T_CVI(vf_cvt_f_to_int, F(-2.5), 32, 1, VF_OK, -3);
    T_CVI(vf_cvt_f_to_int, F(2.4999), 32, 1, VF_OK, 2);
    T_CVI(vf_cvt_f_to_int, F(0.5), 32, 0, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, F(0.5), 32, 1, VF_OK, 1);
    T_CVI(vf_cvt_f_to_int, F(-0.5), 32, 1, VF_OK, -1);
    T_CVI(vf_cvt_f_to_int, F(0.499), 32, 1, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, F(-0.999), 32, 0, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, F(1e-30), 32, 1, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, 0, 32, 1, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, 0x00120034u, 8, 1, VF_OK, 0);
    T_CVI(vf_cvt_f_to_int, F(-7.75), 16, 0, VF_OK, -7);
    T_CVI(vf_cvt_f_to_int, F(-7.75), 16, 1, VF_OK, -8);
    T_CVI(vf_cvt_d_to_int, D(1e9 + 0.5), 32, 1, VF_OK, 1000000001);
    T_CVI(vf_cvt_d_to_int, D(-1e9 - 0.49), 32, 1, VF_OK, -1000000000);
    /* byte */
    T_CVI(vf_cvt_f_to_int, F(127.9), 8, 0, VF_OK, 127);
    T_CVI(vf_cvt_f_to_int, F(127.5), 8, 1, VF_INT_OVERFLOW, -128); /* 128 */
    T_CVI(vf_cvt_f_to_int, F(128.0), 8, 0, VF_INT_OVERFLOW, -128);
    T_CVI(vf_cvt_f_to_int, F(-128.0), 8, 0, VF_OK, -128);
    T_CVI(vf_cvt_f_to_int, F(-128.9), 8, 0, VF_OK, -128);
    T_CVI(vf_cvt_f_to_int, F(-128.5), 8, 1, VF_INT_OVERFLOW, 127); /* -129 */
    T_CVI(vf_cvt_f_to_int, F(-129.0), 8, 0, VF_INT_OVERFLOW, 127);
    T_CVI(vf_cvt_f_to_int, F(300.0), 8, 0, VF_INT_OVERFLOW, 44);  /* 0x12C */
    T_CVI(vf_cvt_f_to_int, F(255.0), 8, 0, VF_INT_OVERFLOW, -1);
    /* word */
    T_CVI(vf_cvt_f_to_int, F(32767.0), 16, 0, VF_OK, 32767);
    T_CVI(vf_cvt_f_to_int, F(32767.5), 16, 1, VF_INT_OVERFLOW, -32768);
    T_CVI(vf_cvt_f_to_int, F(-32768.0), 16, 1, VF_OK, -32768);
    T_CVI(vf_cvt_f_to_int, F(-32769.0), 16, 0, VF_INT_OVERFLOW, 32767);
    T_CVI(vf_cvt_f_to_int, F(70000.0), 16, 0, VF_INT_OVERFLOW, 4464);
    T_CVI(vf_cvt_d_to_int, D(65536.0 * 3 + 5), 16, 0, VF_INT_OVERFLOW, 5);
    /* long */
    T_CVI(vf_cvt_f_to_int, F(2147483648.0), 32, 0, VF_INT_OVERFLOW,
          -2147483647 - 1);
    T_CVI(vf_cvt_f_to_int, F(-2147483648.0), 32, 0, VF_OK, -2147483647 - 1);
    T_CVI(vf_cvt_d_to_int, D(2147483647.0), 32, 1, VF_OK, 2147483647);
    T_CVI(vf_cvt_d_to_int, D(2147483647.5), 32, 1, VF_INT_OVERFLOW,
          -2147483647 - 1);
    T_CVI(vf_cvt_d_to_int, D(2147483647.5), 32, 0, VF_OK, 2147483647);
    T_CVI(vf_cvt_d_to_int, D(-2147483648.5), 32, 0, VF_OK, -2147483647 - 1);
    T_CVI(vf_cvt_d_to_int, D(-2147483648.5), 32, 1, VF_INT_OVERFLOW,
          2147483647);
    T_CVI(vf_cvt_d_to_int, D(ldexp(1, 50) + 3), 32, 0, VF_INT_OVERFLOW, 3);
    T_CVI(vf_cvt_d_to_int, D(-(ldexp(1, 50) + 3)), 32, 0, VF_INT_OVERFLOW, -3);
    T_CVI(vf_cvt_d_to_int, D(ldexp(1, 40) + 0x89ABCDEF), 32, 0,
          VF_INT_OVERFLOW, (int32_t)-1985229329); /* 0x89ABCDEF */
    T_CVI(vf_cvt_f_to_int, F(ldexp(1, 100)), 32, 1, VF_INT_OVERFLOW, 0);
    T_CVI(vf_cvt_f_to_int, mkf(0, 255, 0xFFFFFF), 32, 0, VF_INT_OVERFLOW, 0);
    T_CVI(vf_cvt_f_to_int, mkf(1, 128 + 40, 0xFFFFFF), 32, 0, VF_INT_OVERFLOW,
          65536);                              /* -(2^40-2^16): low = 2^16 */
    T_CVI(vf_cvt_f_to_int, 0x8000u, 32, 0, VF_RESERVED_OPERAND, 0);
    T_CVI(vf_cvt_d_to_int, UINT64_C(0x8000), 8, 1, VF_RESERVED_OPERAND, 0);

    /* F <-> D */
    rd = SENT64;
    CHECK(vf_cvt_f_to_d(F(1.5), &rd) == VF_OK && rd == D(1.5), "CVTFD 1.5");
    CHECK(vf_cvt_f_to_d(mkf(1, 255, 0xFFFFFF), &rd) == VF_OK &&
              rd == mkd(1, 255, (uint64_t)0xFFFFFF << 32), "CVTFD max");
    CHECK(vf_cvt_f_to_d(0x00050000u, &rd) == VF_OK && rd == 0, "CVTFD dirty");
    rd = SENT64;
    CHECK(vf_cvt_f_to_d(0x8000u, &rd) == VF_RESERVED_OPERAND && rd == SENT64,
          "CVTFD reserved");
    r = SENT32;
    st = vf_cvt_d_to_f(D(1 + ldexp(1, -24)), &r); /* half -> up */
    CHECK(st == VF_OK && r == F(1 + ldexp(1, -23)), "CVTDF half-up %08X",
          (unsigned)r);
    st = vf_cvt_d_to_f(D(-(1 + ldexp(1, -24))), &r);
    CHECK(st == VF_OK && r == F(-(1 + ldexp(1, -23))), "CVTDF -half %08X",
          (unsigned)r);
    st = vf_cvt_d_to_f(D(1 + ldexp(1, -24) - ldexp(1, -50)), &r);
    CHECK(st == VF_OK && r == F(1.0), "CVTDF below half %08X", (unsigned)r);
    st = vf_cvt_d_to_f(mkd(0, 129, (UINT64_C(1) << 55) | 1), &r);
    CHECK(st == VF_OK && r == F(1.0), "CVTDF 1+2^-55 %08X", (unsigned)r);
    st = vf_cvt_d_to_f(mkd(0, 129, UINT64_C(0xFFFFFF80000000)), &r);
    CHECK(st == VF_OK && r == F(2.0), "CVTDF carry %08X", (unsigned)r);
    r = SENT32;
    st = vf_cvt_d_to_f(mkd(0, 255, UINT64_C(0xFFFFFF80000000)), &r);
    CHECK(st == VF_OVERFLOW && r == SENT32, "CVTDF overflow %s", stname(st));
    st = vf_cvt_d_to_f(mkd(0, 255, UINT64_C(0xFFFFFF7FFFFFFF)), &r);
    CHECK(st == VF_OK && r == mkf(0, 255, 0xFFFFFF), "CVTDF max %08X",
          (unsigned)r);
    st = vf_cvt_d_to_f(mkd(0, 1, UINT64_C(1) << 55), &r);
    CHECK(st == VF_OK && r == mkf(0, 1, 0x800000), "CVTDF min");
    r = SENT32;
    st = vf_cvt_d_to_f(UINT64_C(0x8000), &r);
    CHECK(st == VF_RESERVED_OPERAND && r == SENT32, "CVTDF reserved");
}

static void test_emod(void)
{
    int32_t ip;
    uint32_t fr;
    uint64_t frd;
    vf_status st;

#define T_EMODF(mr, x, md, est, eint, efr)                                    \
    do {                                                                      \
        ip = 0x5A5A5A5A;                                                      \
        fr = SENT32;                                                          \
        st = vf_emodf((mr), (x), (md), &ip, &fr);                             \
        CHECK(st == (est) && ip == (int32_t)(eint) && fr == (efr),            \
              "EMODF(%08X,%02X,%08X): got %s int %ld fract %08X (%.9g), "     \
              "want %s %ld %08X (%.9g)",                                      \
              (unsigned)(mr), (unsigned)(x), (unsigned)(md), stname(st),      \
              (long)ip, (unsigned)fr, vf_f_to_host_double(fr), stname(est),   \
              (long)(int32_t)(eint), (unsigned)(efr),                         \
              vf_f_to_host_double(efr));                                      \
    } while (0)

    T_EMODF(F(1.5), 0, F(3.0), VF_OK, 4, F(0.5));
    T_EMODF(F(-1.5), 0, F(3.0), VF_OK, -4, F(-0.5));
    T_EMODF(F(1.5), 0, F(-3.0), VF_OK, -4, F(-0.5));
    T_EMODF(F(-1.5), 0, F(-3.0), VF_OK, 4, F(0.5));
    T_EMODF(F(2.0), 0, F(3.0), VF_OK, 6, 0);
    T_EMODF(F(0.25), 0, F(0.5), VF_OK, 0, F(0.125));
    T_EMODF(F(-0.25), 0, F(0.5), VF_OK, 0, F(-0.125));
    T_EMODF(0, 0xFF, F(3.0), VF_OK, 0, 0);
    T_EMODF(F(3.0), 0xFF, 0, VF_OK, 0, 0);
    /* the extension byte: 1.0'80 = 1 + 2^-24 */
    T_EMODF(F(1.0), 0x80, F(ldexp(1, 24)), VF_OK, 16777217, 0);
    T_EMODF(F(1.0), 0x80, F(ldexp(1, 23)), VF_OK, 8388608, F(0.5));
    T_EMODF(F(-1.0), 0x80, F(ldexp(1, 23)), VF_OK, -8388608, F(-0.5));
    T_EMODF(F(1.0), 0x01, F(ldexp(1, 31) * 0.75), VF_OK, 1610612736, 0);
    /* truncation before normalisation: (1+2^-31) * 2^30 has product
     * fraction 0.0100..0(1) -- the last bit falls off the 32-bit fraction */
    T_EMODF(F(1.0), 0x01, F(ldexp(1, 30)), VF_OK, 1073741824, 0);
    T_EMODF(F(1.0), 0x02, F(ldexp(1, 30)), VF_OK, 1073741825, 0);
    T_EMODF(F(1.0), 0x02, F(ldexp(1, 29)), VF_OK, 536870912, F(0.5));
    /* fraction rounding: 0.FFFFFF'FF * 2^1 * 1.0 -> truncated product
     * 0x7FFFFFFF * 2^-30 = 1 + (1 - 2^-30): int 1, fraction 1-2^-30 rounds
     * to 24 bits -> exactly 1.0 (delivered as is) */
    T_EMODF(mkf(0, 129, 0xFFFFFF), 0xFF, F(1.0), VF_OK, 1, F(1.0));
    T_EMODF(F(1.0), 0x20, F(4.0), VF_OK, 4, F(ldexp(1, -24)));
    /* fraction 0.5 + 2^-25 has 25 bits: rounded (half-way) to 0.5 + 2^-24;
     * multiplier 1.125'10 = 1 + 2^-3 + 2^-27 */
    T_EMODF(F(1.125), 0x10, F(4.0), VF_OK, 4, F(0.5 + ldexp(1, -24)));
    T_EMODF(F(1.125), 0x10, F(-4.0), VF_OK, -4, F(-0.5 - ldexp(1, -24)));
    /* integer overflow: low 32 bits of the true integer, fraction kept */
    T_EMODF(F(ldexp(1, 31)), 0, F(1.0), VF_INT_OVERFLOW, 0x80000000u, 0);
    T_EMODF(F(-ldexp(1, 31)), 0, F(1.0), VF_OK, 0x80000000u, 0);
    T_EMODF(F(ldexp(1, 31)), 0, F(1.5), VF_INT_OVERFLOW, 0xC0000000u, 0);
    T_EMODF(F(ldexp(1, 40)), 0, F(1.0), VF_INT_OVERFLOW, 0, 0);
    T_EMODF(F(ldexp(1, 100)), 0, F(ldexp(1, 100)), VF_INT_OVERFLOW, 0, 0);
    T_EMODF(F(ldexp(1, 23) + 3), 0, F(256.0), VF_INT_OVERFLOW, 0x80000300u, 0);
    T_EMODF(F(-ldexp(1, 23) - 3), 0, F(256.0), VF_INT_OVERFLOW, 0x7FFFFD00u,
            0);
    /* 2^32 + 2^22 + 512.5: 34 significant bits, only 32 kept (down to 2^1)
     * -> int low bits 2^22 + 512, no fraction */
    T_EMODF(F(ldexp(1, 22) + 0.5), 0, F(1025.0), VF_INT_OVERFLOW, 4194816, 0);
    T_EMODF(F(ldexp(1, 20) + 0.125), 0, F(-3.0), VF_OK, -3145728, F(-0.375));
    /* underflow: both outputs zero */
    T_EMODF(F(ldexp(1, -100)), 0, F(ldexp(1, -100)), VF_UNDERFLOW, 0, 0);
    T_EMODF(mkf(0, 1, 0x800000), 0, F(0.5), VF_UNDERFLOW, 0, 0);
    T_EMODF(mkf(0, 1, 0x800000), 0, F(1.0), VF_OK, 0, mkf(0, 1, 0x800000));
    /* reserved operands: nothing written */
    T_EMODF(0x8000u, 0, F(1.0), VF_RESERVED_OPERAND, 0x5A5A5A5A, SENT32);
    T_EMODF(F(1.0), 0, 0x8000u, VF_RESERVED_OPERAND, 0x5A5A5A5A, SENT32);

#define T_EMODD(mr, x, md, est, eint, efr)                                    \
    do {                                                                      \
        ip = 0x5A5A5A5A;                                                      \
        frd = SENT64;                                                         \
        st = vf_emodd((mr), (x), (md), &ip, &frd);                            \
        CHECK(st == (est) && ip == (int32_t)(eint) && frd == (efr),           \
              "EMODD(%016llX,%02X,%016llX): got %s int %ld fract %016llX, "   \
              "want %s %ld %016llX",                                          \
              (unsigned long long)(mr), (unsigned)(x),                        \
              (unsigned long long)(md), stname(st), (long)ip,                 \
              (unsigned long long)frd, stname(est), (long)(int32_t)(eint),    \
              (unsigned long long)(efr));                                     \
    } while (0)

    T_EMODD(D(1.5), 0, D(3.0), VF_OK, 4, D(0.5));
    T_EMODD(D(-1.5), 0, D(3.0), VF_OK, -4, D(-0.5));
    T_EMODD(D(1.0), 0x80, D(ldexp(1, 30)), VF_OK, 1073741824, D(ldexp(1, -26)));
    T_EMODD(D(1.0), 0x01, D(ldexp(1, 30)), VF_OK, 1073741824, 0);
    T_EMODD(D(1.0), 0x02, D(ldexp(1, 30)), VF_OK, 1073741824, D(ldexp(1, -32)));
    T_EMODD(D(2.75), 0, D(-3.0), VF_OK, -8, D(-0.25));
    T_EMODD(D(ldexp(1, 29) + 0.125), 0, D(-3.0), VF_OK, -(3 * 536870912),
            D(-0.375));
    T_EMODD(D(ldexp(1, 31)), 0, D(1.0), VF_INT_OVERFLOW, 0x80000000u, 0);
    T_EMODD(D(ldexp(1, -80)), 0, D(ldexp(1, -80)), VF_UNDERFLOW, 0, 0);
    T_EMODD(UINT64_C(0x8000), 0, D(1.0), VF_RESERVED_OPERAND, 0x5A5A5A5A,
            SENT64);
}

static void test_poly(void)
{
    uint32_t r;
    uint64_t rd;
    vf_status st;
    {
        uint32_t c[3] = {F(1.0), F(2.0), F(3.0)};
        r = SENT32;
        st = vf_polyf(F(2.0), 2, c, &r); /* 1*4 + 2*2 + 3 = 11 */
        CHECK(st == VF_OK && r == F(11.0), "POLYF 11: %s %08X", stname(st),
              (unsigned)r);
        st = vf_polyf(F(-3.0), 2, c, &r); /* 9 - 6 + 3 = 6 */
        CHECK(st == VF_OK && r == F(6.0), "POLYF 6: %08X", (unsigned)r);
        st = vf_polyf(F(2.0), 0, c, &r);
        CHECK(st == VF_OK && r == F(1.0), "POLYF degree 0: %08X", (unsigned)r);
        st = vf_polyf(F(2.0), 1, c, &r);
        CHECK(st == VF_OK && r == F(4.0), "POLYF degree 1: %08X", (unsigned)r);
        r = SENT32;
        st = vf_polyf(F(2.0), 32, c, &r);
        CHECK(st == VF_RESERVED_OPERAND && r == SENT32, "POLYF degree 32");
        st = vf_polyf(0x8000u, 2, c, &r);
        CHECK(st == VF_RESERVED_OPERAND && r == SENT32, "POLYF reserved arg");
        c[2] = 0x8000u;
        st = vf_polyf(F(2.0), 2, c, &r);
        CHECK(st == VF_RESERVED_OPERAND && r == SENT32, "POLYF reserved coef");
        st = vf_polyf(F(2.0), 1, c, &r); /* c[2] not read */
        CHECK(st == VF_OK && r == F(4.0), "POLYF unread reserved coef");
    }
    {
        uint32_t c[3] = {F(4.0), F(-2.0), F(0.25)};
        st = vf_polyf(F(0.5), 2, c, &r); /* 1 - 1 + 0.25 */
        CHECK(st == VF_OK && r == F(0.25), "POLYF 0.25: %08X", (unsigned)r);
    }
    {
        /* 31-bit truncation of the product: x = 1+2^-23, x*x - 1 is
         * exactly 2^-22 + 2^-46, which rounds (half way) to 2^-22 + 2^-45;
         * POLY drops 2^-46 when it truncates the product -> 2^-22. */
        const double x = 1 + ldexp(1, -23);
        uint32_t c[2] = {F(x), F(-1.0)};
        st = vf_polyf(F(x), 1, c, &r);
        CHECK(st == VF_OK && r == F(ldexp(1, -22)), "POLYF truncation: %08X",
              (unsigned)r);
    }
    {
        /* product (1+2^-12)^2 = 1 + 2^-11 + 2^-24 sits exactly on the
         * half-way point; a tiny opposite-sign coefficient makes the
         * truncated sum fall below it (toward zero), a same-sign or zero one
         * does not. */
        const double x = 1 + ldexp(1, -12);
        uint32_t c[2] = {F(x), F(-ldexp(1, -110))};
        st = vf_polyf(F(x), 1, c, &r);
        CHECK(st == VF_OK && r == F(1 + ldexp(1, -11)),
              "POLYF half-way minus tiny: %08X", (unsigned)r);
        for (int e = 1; e <= 4; e++) { /* -2^(e-129), fully shifted out */
            c[1] = mkf(1, e, 0x800000 | (uint32_t)e);
            st = vf_polyf(F(x), 1, c, &r);
            CHECK(st == VF_OK && r == F(1 + ldexp(1, -11)),
                  "POLYF half-way minus 2^%d: %08X", e - 129, (unsigned)r);
        }
        c[1] = F(ldexp(1, -110));
        st = vf_polyf(F(x), 1, c, &r);
        CHECK(st == VF_OK && r == F(1 + ldexp(1, -11) + ldexp(1, -23)),
              "POLYF half-way plus tiny: %08X", (unsigned)r);
        c[1] = 0;
        st = vf_polyf(F(x), 1, c, &r);
        CHECK(st == VF_OK && r == F(1 + ldexp(1, -11) + ldexp(1, -23)),
              "POLYF half-way: %08X", (unsigned)r);
    }
    {
        /* cancellation across a power of two: x = 1 - 2^-24,
         * c0 = 1 - 2^-7 - 2^-24: product 1 - 2^-7 - 2^-23 + 2^-31 + 2^-48,
         * truncated to 31 bits 1 - 2^-7 - 2^-23 + 2^-31; minus 1.0 exactly:
         * -(2^-7 + 2^-23 - 2^-31), which needs 25 bits and rounds (half
         * away from zero) to -(2^-7 + 2^-23).  (simh's vax780 agrees; a
         * sum truncated to 31 bits would give -(2^-7 + 2^-23 - 2^-30).) */
        uint32_t c[2] = {F(1 - ldexp(1, -7) - ldexp(1, -24)), F(-1.0)};
        st = vf_polyf(F(1 - ldexp(1, -24)), 1, c, &r);
        CHECK(st == VF_OK && r == F(-(ldexp(1, -7) + ldexp(1, -23))),
              "POLYF sum after cancellation: %08X (%.17g)", (unsigned)r,
              vf_f_to_host_double(r));
    }
    {
        /* D analogue of the half-way case: (1+2^-28)^2 = 1+2^-27+2^-56 */
        uint64_t x = D(1 + ldexp(1, -28));
        uint64_t c[2] = {x, 0};
        for (int e = 1; e <= 4; e++) {
            c[1] = mkd(1, e, (UINT64_C(1) << 55) | (uint64_t)e);
            st = vf_polyd(x, 1, c, &rd);
            CHECK(st == VF_OK && rd == D(1 + ldexp(1, -27)),
                  "POLYD half-way minus 2^%d: %016llX", e - 129,
                  (unsigned long long)rd);
        }
        c[1] = 0;
        st = vf_polyd(x, 1, c, &rd);
        CHECK(st == VF_OK && rd == mkd(0, 129, (UINT64_C(1) << 55) |
                                                   (UINT64_C(1) << 28) | 1),
              "POLYD half-way: %016llX", (unsigned long long)rd);
    }
    {
        uint32_t c[2] = {F(ldexp(1, 100)), 0};
        r = SENT32;
        st = vf_polyf(F(ldexp(1, 100)), 1, c, &r);
        CHECK(st == VF_OVERFLOW && r == SENT32, "POLYF overflow %s",
              stname(st));
    }
    {
        uint32_t c[3] = {F(ldexp(1, -100)), 0, F(1.0)};
        st = vf_polyf(F(ldexp(1, -100)), 2, c, &r);
        CHECK(st == VF_UNDERFLOW && r == F(1.0), "POLYF underflow: %s %08X",
              stname(st), (unsigned)r);
        st = vf_polyf(F(ldexp(1, -100)), 1, c, &r);
        CHECK(st == VF_UNDERFLOW && r == 0, "POLYF final underflow: %s %08X",
              stname(st), (unsigned)r);
    }
    {
        uint64_t c[3] = {D(1.0), D(2.0), D(3.0)};
        rd = SENT64;
        st = vf_polyd(D(2.0), 2, c, &rd);
        CHECK(st == VF_OK && rd == D(11.0), "POLYD 11: %s %016llX", stname(st),
              (unsigned long long)rd);
        st = vf_polyd(D(2.0), 40, c, &rd);
        CHECK(st == VF_RESERVED_OPERAND, "POLYD degree 40");
    }
    {
        /* 63-bit truncation: x = 1+2^-55, x*x - 1 = 2^-54 + 2^-110 */
        uint64_t x = mkd(0, 129, (UINT64_C(1) << 55) | 1);
        uint64_t c[2] = {x, D(-1.0)};
        st = vf_polyd(x, 1, c, &rd);
        CHECK(st == VF_OK && rd == D(ldexp(1, -54)), "POLYD truncation: %016llX",
              (unsigned long long)rd);
    }
}

/* ==================================================== wide int helpers */

static void test_wide(void)
{
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t a = rnd64(), b = rnd64(), hi, lo, q, rem;
        bn A, B, P, Q, R;
        if (i % 7 == 0) a >>= rnd_below(64);
        if (i % 5 == 0) b >>= rnd_below(64);
        vf_umul64wide(a, b, &hi, &lo);
        bn_from64(&A, a);
        bn_from64(&B, b);
        bn_mul(&P, &A, &B);
        if (bn_low64(&P) != lo || (P.w[2] | ((uint64_t)P.w[3] << 32)) != hi) {
            if (bad++ < 5)
                printf("umul64wide(%016llX,%016llX) wrong\n",
                       (unsigned long long)a, (unsigned long long)b);
        }
        /* division: d random nonzero, hi < d */
        {
            uint64_t d = rnd64() >> rnd_below(64), nh, nl;
            if (!d) d = 1;
            nh = rnd64() % d;
            nl = rnd64();
            if (i % 3 == 0) nh = d - 1;
            q = vf_udiv128(nh, nl, d, &rem);
            /* check q*d + rem == nh:nl and rem < d */
            bn_from64(&Q, q);
            bn_from64(&B, d);
            bn_mul(&P, &Q, &B);
            bn_from64(&R, rem);
            bn_add(&P, &R);
            bn_from64(&A, nl);
            A.w[2] = (uint32_t)nh;
            A.w[3] = (uint32_t)(nh >> 32);
            if (bn_cmp(&P, &A) != 0 || rem >= d) {
                if (bad++ < 5)
                    printf("udiv128(%016llX:%016llX / %016llX) wrong\n",
                           (unsigned long long)nh, (unsigned long long)nl,
                           (unsigned long long)d);
            }
        }
    }
    CHECK(bad == 0, "wide multiply/divide helpers: %d bad", bad);
}

/* =============================================== randomized F vs double */

static uint32_t rand_f(int e)
{
    uint32_t sig = 0x800000u | (uint32_t)(rnd64() & 0x7FFFFF);
    switch (rnd_below(8)) { /* sparse patterns stress rounding/cancellation */
    case 0: sig &= 0xFFF000u; break;
    case 1: sig |= 0x7FF000u; break;
    case 2: sig = 0x800000u | (uint32_t)rnd_below(4); break;
    default: break;
    }
    return mkf((int)(rnd64() & 1), e, sig);
}

static int rand_exp(void)
{
    switch (rnd_below(4)) {
    case 0: return 1 + (int)rnd_below(255);             /* anywhere */
    case 1: return rnd_below(2) ? 1 + (int)rnd_below(8) /* extremes */
                                : 248 + (int)rnd_below(8);
    default: return 100 + (int)rnd_below(56);           /* moderate */
    }
}

/* Check a rounded quotient r of a/b (doubles exact, |b| != 0) by
 * lower(r)*|b| <= |a| < upper(r)*|b| where lower/upper are the midpoints to
 * r's neighbours (half-way rounds away from zero). */
static int div_ok_f(double a, double b, vf_status st, uint32_t r)
{
    double A = fabs(a), B = fabs(b);
    const double maxup = ldexp((double)0xFFFFFF + 0.5, 127 - 24);
    const double minlo = ldexp(1, -128) - ldexp(1, -153);
    if (a == 0) return st == VF_OK && r == 0;
    if (st == VF_OVERFLOW) return A >= maxup * B;
    if (st == VF_UNDERFLOW) return r == 0 && A < minlo * B;
    if (st != VF_OK) return 0;
    {
        int s, e;
        uint32_t m;
        double w, lo, up;
        decf(r, &s, &e, &m);
        if (e == 0 || s != ((a < 0) != (b < 0))) return 0;
        w = ldexp(1, e - 128 - 26); /* r = 4*m*w */
        up = (4.0 * m + 2) * w;
        lo = (m == 0x800000u ? 4.0 * m - 1 : 4.0 * m - 2) * w;
        return lo * B <= A && A < up * B;
    }
}

static void test_random_f(void)
{
    long cnt = 0;
    for (int i = 0; i < 40000; i++) {
        uint32_t a, b, r, exp;
        vf_status st, est;
        double da, db;
        int ea = rand_exp(), eb;
        /* add/sub: exponent difference <= 29 keeps the double sum exact */
        eb = ea + (int)rnd_below(59) - 29;
        if (eb < 1) eb = 1;
        if (eb > 255) eb = 255;
        a = rand_f(ea);
        b = rand_f(eb);
        if (rnd_below(20) == 0) b = a ^ (rnd_below(2) ? 0x8000u : 0);
        da = vf_f_to_host_double(a);
        db = vf_f_to_host_double(b);

        r = SENT32;
        st = vf_addf(a, b, &r);
        exp = dbl_to_f_st(da + db, &est);
        cmp_f(__LINE__, "rand addf", st, r, est, exp);
        r = SENT32;
        st = vf_subf(a, b, &r);
        exp = dbl_to_f_st(da - db, &est);
        cmp_f(__LINE__, "rand subf", st, r, est, exp);

        /* very large differences: the smaller operand vanishes */
        {
            uint32_t big = rand_f(60 + (int)rnd_below(196)), small;
            int eb2 = vf_f_exp(big) - 30 - (int)rnd_below(60);
            if (eb2 < 1) eb2 = 1;
            small = rand_f(eb2);
            r = SENT32;
            st = vf_addf(small, big, &r);
            CHECK(st == VF_OK && r == big, "addf far %08X+%08X -> %08X",
                  (unsigned)small, (unsigned)big, (unsigned)r);
            st = vf_subf(big, small, &r);
            CHECK(st == VF_OK && r == big, "subf far %08X-%08X -> %08X",
                  (unsigned)big, (unsigned)small, (unsigned)r);
        }

        /* mul/div over the whole exponent range */
        {
            int e1 = rand_exp(), e2 = rand_exp();
            if (rnd_below(2)) { /* aim near the range limits */
                e2 = rnd_below(2) ? 256 - e1 + (int)rnd_below(5) - 2
                                  : e1 - 128 + (int)rnd_below(5) - 2;
                if (e2 < 1) e2 = 1;
                if (e2 > 255) e2 = 255;
            }
            a = rand_f(e1);
            b = rand_f(e2);
        }
        da = vf_f_to_host_double(a);
        db = vf_f_to_host_double(b);
        r = SENT32;
        st = vf_mulf(a, b, &r);
        exp = dbl_to_f_st(da * db, &est);
        cmp_f(__LINE__, "rand mulf", st, r, est, exp);

        r = SENT32;
        st = vf_divf(a, b, &r);
        CHECK(div_ok_f(da, db, st, r),
              "rand divf %08X/%08X -> %s %08X (%.9g, true %.17g)",
              (unsigned)a, (unsigned)b, stname(st), (unsigned)r,
              vf_f_to_host_double(r), da / db);
        r = SENT32;
        st = vf_divf(b, a, &r);
        CHECK(div_ok_f(db, da, st, r), "rand divf %08X/%08X -> %s %08X",
              (unsigned)b, (unsigned)a, stname(st), (unsigned)r);

        /* cmp */
        {
            int c = 9;
            st = vf_cmpf(a, b, &c);
            CHECK(st == VF_OK && c == (da < db ? -1 : da > db ? 1 : 0),
                  "rand cmpf %08X %08X -> %d", (unsigned)a, (unsigned)b, c);
        }

        /* conversions to and from integers */
        {
            int32_t v = (int32_t)(uint32_t)rnd64(), got;
            int bits = rnd_below(3) == 0 ? 8 : rnd_below(2) ? 16 : 32;
            int rnd = (int)rnd_below(2);
            uint32_t x;
            double dx, t;
            v >>= rnd_below(32);
            st = vf_cvt_int_to_f(v, &r);
            exp = dbl_to_f_st((double)v, &est);
            cmp_f(__LINE__, "rand cvt int->f", st, r, est, exp);

            x = rand_f(100 + (int)rnd_below(70));
            dx = vf_f_to_host_double(x);
            t = rnd ? (dx < 0 ? -floor(-dx + 0.5) : floor(dx + 0.5)) : trunc(dx);
            got = 0x5A5A5A5A;
            st = vf_cvt_f_to_int(x, bits, rnd, &got);
            {
                double lim = ldexp(1, bits - 1);
                int fits = t >= -lim && t < lim;
                int32_t want;
                uint32_t low = (uint32_t)(int64_t)fmod(t, 4294967296.0);
                uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
                if (fabs(t) >= ldexp(1, 63)) low = 0;
                low &= mask;
                if (bits < 32 && (low >> (bits - 1)) & 1) low |= ~mask;
                memcpy(&want, &low, 4);
                CHECK(st == (fits ? VF_OK : VF_INT_OVERFLOW) && got == want,
                      "rand cvt %08X (%.9g) bits %d round %d -> %s %ld, want "
                      "%ld", (unsigned)x, dx, bits, rnd, stname(st),
                      (long)got, (long)want);
            }
        }
        cnt++;
    }
    printf("randomized F: %ld iterations\n", cnt);
}

/* ============================================== randomized D vs xv */

static uint64_t rand_d(int e)
{
    uint64_t sig = (UINT64_C(1) << 55) | (rnd64() & ((UINT64_C(1) << 55) - 1));
    switch (rnd_below(8)) {
    case 0: sig &= ~((UINT64_C(1) << 30) - 1); break;
    case 1: sig |= (UINT64_C(1) << 55) - (UINT64_C(1) << 20); break;
    case 2: sig = (UINT64_C(1) << 55) | rnd_below(4); break;
    default: break;
    }
    return mkd((int)(rnd64() & 1), e, sig);
}

/* Division check for D, exactly with xv. */
static int div_ok_d(uint64_t a, uint64_t b, vf_status st, uint64_t r)
{
    xv A = xv_from_d(a), B = xv_from_d(b), X, Y;
    A.sign = B.sign = 0;
    if (bn_is_zero(&A.n)) return st == VF_OK && r == 0;
    if (st == VF_OVERFLOW) {
        X = xv_make(0, (UINT64_C(1) << 57) - 1, 127 - 57); /* max + half ulp */
        X = xv_mul(X, B);
        return xv_cmpmag(&A, &X) >= 0;
    }
    if (st == VF_UNDERFLOW) {
        X = xv_make(0, (UINT64_C(1) << 57) - 1, -128 - 57);
        X = xv_mul(X, B);
        return r == 0 && xv_cmpmag(&A, &X) < 0;
    }
    if (st != VF_OK) return 0;
    {
        int s, e;
        uint64_t m;
        decd(r, &s, &e, &m);
        if (e == 0 || s != (vf_d_sign(a) ^ vf_d_sign(b))) return 0;
        /* r = 4m * 2^(E-58) */
        X = xv_make(0, 4 * m - (m == (UINT64_C(1) << 55) ? 1 : 2), e - 128 - 58);
        Y = xv_make(0, 4 * m + 2, e - 128 - 58);
        X = xv_mul(X, B);
        Y = xv_mul(Y, B);
        return xv_cmpmag(&X, &A) <= 0 && xv_cmpmag(&A, &Y) < 0;
    }
}

static void test_random_d(void)
{
    for (int i = 0; i < 12000; i++) {
        int ea = rand_exp(), eb = rnd_below(2) ? rand_exp()
                                               : ea + (int)rnd_below(121) - 60;
        uint64_t a, b, r, exp;
        vf_status st, est;
        if (eb < 1) eb = 1;
        if (eb > 255) eb = 255;
        a = rand_d(ea);
        b = rand_d(eb);
        if (rnd_below(20) == 0) b = a ^ (rnd_below(2) ? 0x8000u : 0);
        if (rnd_below(10) == 0) b = mkd(vf_d_sign(b), ea, (UINT64_C(1) << 55) |
                                  ((a >> 48) ^ rnd_below(4)));

        r = SENT64;
        st = vf_addd(a, b, &r);
        est = xv_to_d(xv_add(xv_from_d(a), xv_from_d(b)), &exp);
        cmp_d(__LINE__, "rand addd", st, r, est, exp);
        r = SENT64;
        st = vf_subd(a, b, &r);
        est = xv_to_d(xv_add(xv_from_d(a), xv_neg(xv_from_d(b))), &exp);
        cmp_d(__LINE__, "rand subd", st, r, est, exp);

        {
            int e1 = rand_exp(), e2 = rand_exp();
            if (rnd_below(2)) {
                e2 = rnd_below(2) ? 256 - e1 + (int)rnd_below(5) - 2
                                  : e1 - 128 + (int)rnd_below(5) - 2;
                if (e2 < 1) e2 = 1;
                if (e2 > 255) e2 = 255;
            }
            a = rand_d(e1);
            b = rand_d(e2);
        }
        r = SENT64;
        st = vf_muld(a, b, &r);
        est = xv_to_d(xv_mul(xv_from_d(a), xv_from_d(b)), &exp);
        cmp_d(__LINE__, "rand muld", st, r, est, exp);
        r = SENT64;
        st = vf_divd(a, b, &r);
        CHECK(div_ok_d(a, b, st, r), "rand divd %016llX/%016llX -> %s %016llX",
              (unsigned long long)a, (unsigned long long)b, stname(st),
              (unsigned long long)r);
        r = SENT64;
        st = vf_divd(b, a, &r);
        CHECK(div_ok_d(b, a, st, r), "rand divd %016llX/%016llX -> %s %016llX",
              (unsigned long long)b, (unsigned long long)a, stname(st),
              (unsigned long long)r);

        /* D -> F, F -> D, D -> int */
        {
            uint32_t f = SENT32, fexp;
            uint64_t back;
            int32_t got, want;
            int bits = rnd_below(3) == 0 ? 8 : rnd_below(2) ? 16 : 32;
            int rnd = (int)rnd_below(2);
            uint64_t x = rand_d(rnd_below(4) ? 100 + (int)rnd_below(70)
                                             : rand_exp());
            st = vf_cvt_d_to_f(x, &f);
            est = xv_to_f(xv_from_d(x), &fexp);
            cmp_f(__LINE__, "rand cvt d->f", st, f, est, fexp);
            if (st == VF_OK) {
                st = vf_cvt_f_to_d(f, &back);
                CHECK(st == VF_OK && xv_cmpmag(&(xv){0, xv_from_d(back).n,
                                                    xv_from_d(back).s},
                                               &(xv){0, xv_from_f(f).n,
                                                     xv_from_f(f).s}) == 0 &&
                          vf_d_sign(back) == vf_f_sign(f),
                      "cvt f->d %08X -> %016llX", (unsigned)f,
                      (unsigned long long)back);
            }
            got = 0x5A5A5A5A;
            st = vf_cvt_d_to_int(x, bits, rnd, &got);
            est = xv_to_int(xv_from_d(x), rnd, bits, &want);
            CHECK(st == est && got == want,
                  "rand cvt d->int %016llX bits %d round %d: %s %ld, want %s %ld",
                  (unsigned long long)x, bits, rnd, stname(st), (long)got,
                  stname(est), (long)want);
        }
    }
}

/* ======================================== randomized EMOD / POLY vs xv */

/* Reference EMOD (architecture definition, computed on exact values). */
static vf_status emod_ref(xv mr, int er_unb, uint8_t x, xv md, int ed_unb,
                          int fbits, int32_t *ip, xv *fract_exact)
{
    xv prod, ext, ipart, fpart;
    vf_status ist;
    if (bn_is_zero(&mr.n) || bn_is_zero(&md.n)) {
        *ip = 0;
        *fract_exact = xv_zero();
        return VF_OK;
    }
    /* multiplier extended by 8 bits below its last fraction bit */
    ext = mr;
    bn_shl(&ext.n, 8);
    {
        bn xb;
        bn_from64(&xb, x);
        bn_add(&ext.n, &xb);
    }
    ext.s -= 8;
    prod = xv_mul(ext, md);
    /* truncated before normalisation to fbits fraction bits relative to the
     * product exponent er + ed */
    prod = xv_trunc(prod, er_unb + ed_unb - fbits);
    ipart = xv_trunc(prod, 0);
    fpart = xv_add(prod, xv_neg(ipart));
    ist = xv_to_int(ipart, 0, 32, ip);
    *fract_exact = fpart;
    return ist;
}

static void test_random_emod(void)
{
    for (int i = 0; i < 6000; i++) {
        int isd = i & 1;
        int e1 = 110 + (int)rnd_below(40), e2 = 110 + (int)rnd_below(40);
        uint8_t x = (uint8_t)rnd64();
        int32_t ip = 0, ipw;
        vf_status st, ist;
        xv fexact;
        if (rnd_below(8) == 0) e1 = rand_exp();
        if (rnd_below(8) == 0) e2 = rand_exp();
        if (!isd) {
            uint32_t a = rand_f(e1), b = rand_f(e2), fr = 0, fw;
            st = vf_emodf(a, x, b, &ip, &fr);
            ist = emod_ref(xv_from_f(a), e1 - 128, x, xv_from_f(b), e2 - 128,
                           32, &ipw, &fexact);
            {
                vf_status fs = xv_to_f(fexact, &fw);
                vf_status want = fs == VF_UNDERFLOW ? VF_UNDERFLOW : ist;
                if (fs == VF_UNDERFLOW) ipw = 0;
                CHECK(st == want && ip == ipw && fr == fw,
                      "rand EMODF(%08X,%02X,%08X): %s %ld %08X, want %s %ld "
                      "%08X", (unsigned)a, x, (unsigned)b, stname(st),
                      (long)ip, (unsigned)fr, stname(want), (long)ipw,
                      (unsigned)fw);
            }
        } else {
            uint64_t a = rand_d(e1), b = rand_d(e2), fr = 0, fw;
            st = vf_emodd(a, x, b, &ip, &fr);
            ist = emod_ref(xv_from_d(a), e1 - 128, x, xv_from_d(b), e2 - 128,
                           64, &ipw, &fexact);
            {
                vf_status fs = xv_to_d(fexact, &fw);
                vf_status want = fs == VF_UNDERFLOW ? VF_UNDERFLOW : ist;
                if (fs == VF_UNDERFLOW) ipw = 0;
                CHECK(st == want && ip == ipw && fr == fw,
                      "rand EMODD(%016llX,%02X,%016llX): %s %ld %016llX, want "
                      "%s %ld %016llX", (unsigned long long)a, x,
                      (unsigned long long)b, stname(st), (long)ip,
                      (unsigned long long)fr, stname(want), (long)ipw,
                      (unsigned long long)fw);
            }
        }
    }
}

/* Reference POLY on exact values with the documented truncation rules. */
static vf_status poly_ref(int isd, xv arg, int deg, const xv *c, xv *out)
{
    int p = isd ? 56 : 24, t = isd ? 63 : 31, uf = 0;
    xv r = c[0];
    for (int i = 1; i <= deg; i++) {
        xv prod = xv_mul(r, arg), sum;
        int sgn, e;
        uint64_t q;
        vf_status st;
        if (!bn_is_zero(&prod.n)) {
            /* unnormalised product exponent = exponent(r) + exponent(arg) */
            int ep = xv_exp(&r) + xv_exp(&arg);
            prod = xv_trunc(prod, ep - t);
        }
        sum = xv_add(prod, c[i]);   /* exact: only the product is truncated */
        st = xv_round(sum, p, &sgn, &e, &q);
        if (st == VF_OVERFLOW) return VF_OVERFLOW;
        if (st == VF_UNDERFLOW) {
            uf = 1;
            r = xv_zero();
        } else {
            r = xv_make(sgn, q, e - 128 - p);
        }
    }
    *out = r;
    return uf ? VF_UNDERFLOW : VF_OK;
}

static void test_random_poly(void)
{
    for (int i = 0; i < 4000; i++) {
        int isd = i & 1, deg = (int)rnd_below(8);
        int ex = 120 + (int)rnd_below(17);
        xv xa, xc[8], want;
        vf_status st, est;
        if (i % 50 == 0) deg = 31;
        if (rnd_below(10) == 0) ex = rand_exp();
        if (!isd) {
            uint32_t arg = rand_f(ex), c[32], r = SENT32, w;
            for (int k = 0; k <= deg; k++) {
                int ec = 118 + (int)rnd_below(20);
                c[k] = rnd_below(12) ? rand_f(ec) : 0;
                /* make cancellation likely: c[k] near -(previous * arg) */
                if (k < 8) xc[k] = xv_from_f(c[k]);
            }
            if (deg > 7) {
                xv xs[32];
                for (int k = 0; k <= deg; k++) xs[k] = xv_from_f(c[k]);
                xa = xv_from_f(arg);
                est = poly_ref(0, xa, deg, xs, &want);
            } else {
                xa = xv_from_f(arg);
                est = poly_ref(0, xa, deg, xc, &want);
            }
            st = vf_polyf(arg, (unsigned)deg, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_f(want, &w);
            else w = SENT32;
            CHECK(st == est && r == w,
                  "rand POLYF deg %d arg %08X: %s %08X, want %s %08X", deg,
                  (unsigned)arg, stname(st), (unsigned)r, stname(est),
                  (unsigned)w);
        } else {
            uint64_t arg = rand_d(ex), c[32], r = SENT64, w;
            xv xs[32];
            for (int k = 0; k <= deg; k++) {
                int ec = 118 + (int)rnd_below(20);
                c[k] = rnd_below(12) ? rand_d(ec) : 0;
                xs[k] = xv_from_d(c[k]);
            }
            xa = xv_from_d(arg);
            est = poly_ref(1, xa, deg, xs, &want);
            st = vf_polyd(arg, (unsigned)deg, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_d(want, &w);
            else w = SENT64;
            CHECK(st == est && r == w,
                  "rand POLYD deg %d arg %016llX: %s %016llX, want %s %016llX",
                  deg, (unsigned long long)arg, stname(st),
                  (unsigned long long)r, stname(est), (unsigned long long)w);
        }
    }
    /* Products just below a power of two minus that power (cancellation
     * across the exponent boundary), and tiny coefficients. */
    for (int i = 0; i < 4000; i++) {
        int isd = i & 1, k = (int)rnd_below(3);
        xv xs[2], want;
        vf_status st, est;
        if (!isd) {
            uint32_t x = mkf(0, 128, 0xFF0000u | (uint32_t)(rnd64() & 0xFFFF));
            uint32_t c[2], r = SENT32, w;
            c[0] = mkf((int)(rnd64() & 1), 128 + k,
                       0xFF0000u | (uint32_t)(rnd64() & 0xFFFF));
            if (k == 2) c[0] = rand_f(128 + (int)rnd_below(3));
            c[1] = mkf(vf_f_sign(c[0]) ^ 1, 129 + k, 0x800000);
            if (rnd_below(3) == 0) /* tiny */
                c[1] = rand_f(1 + (int)rnd_below(90));
            xs[0] = xv_from_f(c[0]);
            xs[1] = xv_from_f(c[1]);
            est = poly_ref(0, xv_from_f(x), 1, xs, &want);
            st = vf_polyf(x, 1, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_f(want, &w);
            else w = SENT32;
            CHECK(st == est && r == w,
                  "boundary POLYF x %08X c %08X %08X: %s %08X, want %s %08X",
                  (unsigned)x, (unsigned)c[0], (unsigned)c[1], stname(st),
                  (unsigned)r, stname(est), (unsigned)w);
        } else {
            uint64_t x = mkd(0, 128, (UINT64_C(0xFF) << 48) | (rnd64() >> 16));
            uint64_t c[2], r = SENT64, w;
            c[0] = mkd((int)(rnd64() & 1), 128 + k,
                       (UINT64_C(0xFF) << 48) | (rnd64() >> 16));
            if (k == 2) c[0] = rand_d(128 + (int)rnd_below(3));
            c[1] = mkd(vf_d_sign(c[0]) ^ 1, 129 + k, UINT64_C(1) << 55);
            if (rnd_below(3) == 0) c[1] = rand_d(1 + (int)rnd_below(60));
            xs[0] = xv_from_d(c[0]);
            xs[1] = xv_from_d(c[1]);
            est = poly_ref(1, xv_from_d(x), 1, xs, &want);
            st = vf_polyd(x, 1, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_d(want, &w);
            else w = SENT64;
            CHECK(st == est && r == w,
                  "boundary POLYD x %016llX c %016llX %016llX: %s %016llX, "
                  "want %s %016llX", (unsigned long long)x,
                  (unsigned long long)c[0], (unsigned long long)c[1],
                  stname(st), (unsigned long long)r, stname(est),
                  (unsigned long long)w);
        }
    }
    /* Cancellation-heavy POLYF: c[1] = -(round(c0*x)) +/- tiny */
    for (int i = 0; i < 3000; i++) {
        int isd = i & 1;
        if (!isd) {
            uint32_t x = rand_f(127 + (int)rnd_below(4)), c[2], r = SENT32, w;
            uint32_t prod;
            xv xs[2];
            vf_status st, est;
            xv want;
            c[0] = rand_f(127 + (int)rnd_below(4));
            if (vf_mulf(c[0], x, &prod) != VF_OK) continue;
            c[1] = prod ^ 0x8000u;
            if (rnd_below(2)) c[1] ^= (uint32_t)rnd_below(4) << 16;
            xs[0] = xv_from_f(c[0]);
            xs[1] = xv_from_f(c[1]);
            est = poly_ref(0, xv_from_f(x), 1, xs, &want);
            st = vf_polyf(x, 1, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_f(want, &w);
            else w = SENT32;
            CHECK(st == est && r == w,
                  "cancel POLYF x %08X c %08X %08X: %s %08X, want %s %08X",
                  (unsigned)x, (unsigned)c[0], (unsigned)c[1], stname(st),
                  (unsigned)r, stname(est), (unsigned)w);
        } else {
            uint64_t x = rand_d(127 + (int)rnd_below(4)), c[2], r = SENT64, w;
            uint64_t prod;
            xv xs[2], want;
            vf_status st, est;
            c[0] = rand_d(127 + (int)rnd_below(4));
            if (vf_muld(c[0], x, &prod) != VF_OK) continue;
            c[1] = prod ^ 0x8000u;
            if (rnd_below(2)) c[1] ^= (uint64_t)rnd_below(4) << 48;
            xs[0] = xv_from_d(c[0]);
            xs[1] = xv_from_d(c[1]);
            est = poly_ref(1, xv_from_d(x), 1, xs, &want);
            st = vf_polyd(x, 1, c, &r);
            if (est == VF_OK || est == VF_UNDERFLOW) xv_to_d(want, &w);
            else w = SENT64;
            CHECK(st == est && r == w,
                  "cancel POLYD x %016llX c %016llX %016llX: %s %016llX, want "
                  "%s %016llX", (unsigned long long)x,
                  (unsigned long long)c[0], (unsigned long long)c[1],
                  stname(st), (unsigned long long)r, stname(est),
                  (unsigned long long)w);
        }
    }
}

/* ====================================================== platform digest */

/* Hash of the results of every operation on raw random bit patterns
 * (including reserved operands and dirty zeros).  Printed so that builds
 * on different hosts (x86-64 gcc, wasm32 clang) can be compared. */
static uint64_t dig = UINT64_C(0xCBF29CE484222325);
static void dig_add(uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        dig ^= (v >> (8 * i)) & 0xFF;
        dig *= UINT64_C(0x100000001B3);
    }
}

static uint32_t raw_f(void)
{
    uint32_t v = (uint32_t)rnd64();
    if (rnd_below(16) == 0) v &= 0xFFFF807Fu; /* exponent 0 */
    return v;
}
static uint64_t raw_d(void)
{
    uint64_t v = rnd64();
    if (rnd_below(16) == 0) v &= ~UINT64_C(0x7F80);
    return v;
}

static void test_digest(void)
{
    uint64_t saved = rng_state;
    rng_state = UINT64_C(0x0123456789ABCDEF);
    for (int i = 0; i < 30000; i++) {
        uint32_t a = raw_f(), b = raw_f(), r = 0, cf[4];
        uint64_t da = raw_d(), db = raw_d(), rd = 0, cd[4];
        int32_t ip = 0;
        int c = 0;
        dig_add(vf_addf(a, b, &r)); dig_add(r);
        dig_add(vf_subf(a, b, &r)); dig_add(r);
        dig_add(vf_mulf(a, b, &r)); dig_add(r);
        dig_add(vf_divf(a, b, &r)); dig_add(r);
        dig_add(vf_cmpf(a, b, &c)); dig_add((uint64_t)(int64_t)c);
        dig_add(vf_addd(da, db, &rd)); dig_add(rd);
        dig_add(vf_subd(da, db, &rd)); dig_add(rd);
        dig_add(vf_muld(da, db, &rd)); dig_add(rd);
        dig_add(vf_divd(da, db, &rd)); dig_add(rd);
        dig_add(vf_cmpd(da, db, &c)); dig_add((uint64_t)(int64_t)c);
        dig_add(vf_cvt_f_to_int(a, 8 << rnd_below(3), (int)(i & 1), &ip));
        dig_add((uint32_t)ip);
        dig_add(vf_cvt_d_to_int(da, 8 << rnd_below(3), (int)(i & 1), &ip));
        dig_add((uint32_t)ip);
        dig_add(vf_cvt_d_to_f(da, &r)); dig_add(r);
        dig_add(vf_cvt_f_to_d(a, &rd)); dig_add(rd);
        dig_add(vf_cvt_int_to_f((int32_t)a, &r)); dig_add(r);
        dig_add(vf_emodf(a, (uint8_t)i, b, &ip, &r));
        dig_add((uint32_t)ip); dig_add(r);
        dig_add(vf_emodd(da, (uint8_t)i, db, &ip, &rd));
        dig_add((uint32_t)ip); dig_add(rd);
        for (int k = 0; k < 4; k++) {
            cf[k] = raw_f();
            cd[k] = raw_d();
        }
        dig_add(vf_polyf(a, 3, cf, &r)); dig_add(r);
        dig_add(vf_polyd(da, 3, cd, &rd)); dig_add(rd);
    }
    rng_state = saved;
    printf("digest %016llx\n", (unsigned long long)dig);
}

/* ================================================================== main */

int main(void)
{
    test_encoding();
    test_addsub();
    test_muldiv();
    test_cmp_neg_tst();
    test_conversions();
    test_emod();
    test_poly();
    test_wide();
    test_random_f();
    test_random_d();
    test_random_emod();
    test_random_poly();
    test_digest();
    printf("%ld passed, %ld failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
