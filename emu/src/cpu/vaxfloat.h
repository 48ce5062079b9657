/*
 * vaxfloat.h — exact VAX F_floating and D_floating arithmetic.
 *
 * Pure functions on bit patterns: no machine state, no host floating point.
 * Everything is done with uint32_t/uint64_t integer arithmetic (the 64x64
 * multiply and 128/64 divide are written out by hand), so the results are
 * bit-identical on every host (x86-64 gcc, wasm32 clang, ...).
 *
 * Representation (exactly as the VAX stores the datum in memory, read as
 * little-endian longwords):
 *
 *   F_floating, one uint32_t:
 *     bit  15      sign
 *     bits 14:7    exponent, excess 128
 *     bits 6:0     most significant 7 fraction bits
 *     bits 31:16   least significant 16 fraction bits
 *   value = (-1)^s * 0.1fff...f (binary, hidden leading 1) * 2^(exp-128)
 *
 *   D_floating, one uint64_t: the low 32 bits are the first longword in
 *   memory (laid out exactly like F), the high 32 bits the second longword
 *   (two more 16-bit fraction words, in order of decreasing significance).
 *   55 explicit fraction bits + hidden bit = 56 significant bits.
 *
 *   exponent 0, sign 0: true zero (whatever the fraction bits hold)
 *   exponent 0, sign 1: reserved operand
 *
 * Every result that is zero is produced as all-zero bits.
 *
 * Rounding: VAX rounding adds 1 at the bit just below the last retained
 * fraction bit of the magnitude and truncates, i.e. the infinitely precise
 * result is rounded half away from zero.  All functions here compute the
 * exact result (or enough guard/sticky information to round it exactly).
 *
 * Overflow / underflow are decided on the exponent of the normalised and
 * ROUNDED result: exponent > 255 is overflow, exponent < 1 is underflow.
 *
 * Conventions of every function returning vf_status:
 *   - any reserved-operand input gives VF_RESERVED_OPERAND and nothing is
 *     written;
 *   - VF_OVERFLOW and VF_DIVIDE_BY_ZERO write nothing;
 *   - VF_UNDERFLOW writes the result 0 (all bits 0); the caller decides
 *     whether to fault (PSL<FU>) or to store it;
 *   - VF_INT_OVERFLOW (conversions to integer, EMOD) writes the low-order
 *     bits of the true integer result.
 */
#ifndef VAX_VAXFLOAT_H
#define VAX_VAXFLOAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    VF_OK = 0,
    VF_RESERVED_OPERAND,   /* an operand was a reserved operand (or POLY
                              degree > 31) */
    VF_OVERFLOW,           /* floating overflow: no result */
    VF_UNDERFLOW,          /* floating underflow: result 0 was written */
    VF_DIVIDE_BY_ZERO,     /* divisor was zero: no result */
    VF_INT_OVERFLOW        /* integer result did not fit: low-order bits of
                              the true result were written */
} vf_status;

/* ------------------------------------------------------------ bit helpers */

#define VF_F_ONE  0x00004080u            /* 1.0 in F_floating */
#define VF_D_ONE  UINT64_C(0x0000000000004080)

static inline int vf_f_exp(uint32_t f) { return (int)((f >> 7) & 0xFF); }
static inline int vf_f_sign(uint32_t f) { return (int)((f >> 15) & 1); }
/* The exponent and sign of D live in the first longword, as for F. */
static inline int vf_d_exp(uint64_t d) { return vf_f_exp((uint32_t)d); }
static inline int vf_d_sign(uint64_t d) { return vf_f_sign((uint32_t)d); }

static inline int vf_f_is_reserved(uint32_t f)
{
    return (f & 0xFF80u) == 0x8000u;
}
static inline int vf_d_is_reserved(uint64_t d)
{
    return vf_f_is_reserved((uint32_t)d);
}
/* True zero, including "dirty" zeros (exponent 0, sign 0, fraction != 0). */
static inline int vf_f_is_zero(uint32_t f) { return (f & 0xFF80u) == 0; }
static inline int vf_d_is_zero(uint64_t d) { return vf_f_is_zero((uint32_t)d); }

/* ------------------------------------------------------------ arithmetic */

/* r = a + b, rounded. */
vf_status vf_addf(uint32_t a, uint32_t b, uint32_t *r);
vf_status vf_addd(uint64_t a, uint64_t b, uint64_t *r);
/* r = minuend - subtrahend, rounded.  (SUBF2 sub,dif: dif = dif - sub, so
 * the instruction layer passes (dif, sub).) */
vf_status vf_subf(uint32_t minuend, uint32_t subtrahend, uint32_t *r);
vf_status vf_subd(uint64_t minuend, uint64_t subtrahend, uint64_t *r);
/* r = a * b, rounded. */
vf_status vf_mulf(uint32_t a, uint32_t b, uint32_t *r);
vf_status vf_muld(uint64_t a, uint64_t b, uint64_t *r);
/* r = dividend / divisor, rounded.  Reserved operands are reported before
 * a zero divisor. */
vf_status vf_divf(uint32_t dividend, uint32_t divisor, uint32_t *r);
vf_status vf_divd(uint64_t dividend, uint64_t divisor, uint64_t *r);

/* *result = -1, 0 or 1 as a <, ==, > b.  All zeros compare equal. */
vf_status vf_cmpf(uint32_t a, uint32_t b, int *result);
vf_status vf_cmpd(uint64_t a, uint64_t b, int *result);

/* r = -a; the negation of zero is zero (all bits 0). */
vf_status vf_negf(uint32_t a, uint32_t *r);
vf_status vf_negd(uint64_t a, uint64_t *r);

/* TSTF/TSTD: *result = -1 (negative), 0 (zero) or 1 (positive). */
vf_status vf_testf(uint32_t a, int *result);
vf_status vf_testd(uint64_t a, int *result);

/* ----------------------------------------------------------- conversions */

/* CVTBF/CVTWF/CVTLF (rounded to 24 bits) and CVTBD/... (always exact).
 * Never fail; the status is VF_OK. */
vf_status vf_cvt_int_to_f(int32_t v, uint32_t *r);
vf_status vf_cvt_int_to_d(int32_t v, uint64_t *r);

/* CVTFB/CVTFW/CVTFL (round = 0: truncate toward zero) and CVTRFL
 * (round = 1: round half away from zero); likewise for D.  bits is the
 * destination size, 8, 16 or 32 (any other value is taken as 32).
 * *r receives the destination-sized result sign-extended to 32 bits; on
 * VF_INT_OVERFLOW it is the low-order `bits` bits of the true integer
 * result (sign-extended from bit bits-1), which is what the instruction
 * stores. */
vf_status vf_cvt_f_to_int(uint32_t a, int bits, int round, int32_t *r);
vf_status vf_cvt_d_to_int(uint64_t a, int bits, int round, int32_t *r);

/* CVTFD: exact.  CVTDF: rounded to 24 bits; may overflow (never
 * underflows). */
vf_status vf_cvt_f_to_d(uint32_t a, uint64_t *r);
vf_status vf_cvt_d_to_f(uint64_t a, uint32_t *r);

/* ------------------------------------------------------------ EMOD, POLY */

/* EMODF / EMODD.  The multiplier fraction is extended below its last bit by
 * the 8-bit mulrx (32-bit fraction for F, 64-bit for D); the product with
 * muld is truncated, before normalisation, to a 32-bit (F) / 64-bit (D)
 * fraction; its integer part (truncated toward zero) goes to *int_part and
 * its fractional part (same sign as the product), normalised and ROUNDED
 * to F / D precision, to *fract.
 *   VF_OK
 *   VF_INT_OVERFLOW  the integer part does not fit in 32 bits: *int_part is
 *                    its low 32 bits; *fract is still produced.  (The
 *                    architecture signals floating overflow this way too.)
 *   VF_UNDERFLOW     the fraction underflowed: both outputs are 0.
 *   VF_RESERVED_OPERAND  nothing written.
 * A fraction part that rounds up to 1.0 is delivered as 1.0 (see the
 * comment in vaxfloat.c). */
vf_status vf_emodf(uint32_t mulr, uint8_t mulrx, uint32_t muld,
                   int32_t *int_part, uint32_t *fract);
vf_status vf_emodd(uint64_t mulr, uint8_t mulrx, uint64_t muld,
                   int32_t *int_part, uint64_t *fract);

/* POLYF / POLYD: Horner evaluation
 *   result = coef[0]; for i = 1..degree: result = result*arg + coef[i]
 * with the VAX intermediate precision rules (see vaxfloat.c).  coef must
 * hold degree+1 elements.  degree > 31 -> VF_RESERVED_OPERAND.
 *   VF_OVERFLOW   an iteration overflowed: nothing written.
 *   VF_UNDERFLOW  some iteration underflowed; that intermediate result was
 *                 replaced by 0 and the evaluation continued, *r holds the
 *                 final result (what the instruction stores when PSL<FU>
 *                 is clear).
 */
vf_status vf_polyf(uint32_t arg, unsigned degree, const uint32_t *coef,
                   uint32_t *r);
vf_status vf_polyd(uint64_t arg, unsigned degree, const uint64_t *coef,
                   uint64_t *r);

/* ------------------------------------------------------------- literals */

/* Floating short literal (specifier mode 0..3, 6 bits): exponent e = lit
 * bits 5:3, fraction f = bits 2:0; value 0.1fff * 2^e, 0.5 .. 120.0. */
uint32_t vf_from_short_literal_f(uint8_t lit6);
uint64_t vf_from_short_literal_d(uint8_t lit6);

/* ------------------------------------------------- wide integer helpers */

/* Exposed for the unit test; used internally.
 * vf_umul64wide: *hi:*lo = a * b (full 128-bit product).
 * vf_udiv128: quotient of hi:lo / d, requires d != 0 and hi < d (so the
 * quotient fits in 64 bits); *rem gets the remainder. */
void vf_umul64wide(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo);
uint64_t vf_udiv128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem);

#ifdef __cplusplus
}
#endif

#endif /* VAX_VAXFLOAT_H */
