/*
 * exec_decimal.c — the packed decimal string instructions and EDITPC:
 * ADDP4, ADDP6, SUBP4, SUBP6, MULP, DIVP, CMPP3, CMPP4, MOVP, ASHP,
 * CVTLP, CVTPL, CVTPS, CVTSP, CVTPT, CVTTP and EDITPC (VAX Architecture
 * Reference Manual, "Decimal string instructions" and "Edit instruction").
 *
 * PACKED DECIMAL STRINGS
 *
 * A string of len digits (0..31; a larger length is a reserved operand
 * fault) at addr occupies len/2 + 1 bytes.  The digits are nibbles, most
 * significant first, high nibble before low nibble; the low nibble of the
 * last byte is the sign.  When len is even, the high nibble of the first
 * byte is not part of the string (it should be 0; it is ignored when read
 * and written as 0).  Signs 0xB and 0xD are minus, every other sign value
 * (0xA, 0xC, 0xE, 0xF and, UNPREDICTABLE by the architecture, 0..9) is
 * plus.  Results are written with the preferred signs 0xC and 0xD; a zero
 * result is +0 (0xC) unless decimal overflow occurred, in which case the
 * true sign of the result is kept (a -0 can be stored: CVTLP -1000 into
 * three digits gives 000 with sign 0xD, V set, N clear, Z set — checked
 * against simh).
 *
 * Invalid digit nibbles (0xA..0xF) give UNPREDICTABLE results on the VAX
 * (the 780 does not check them).  We choose, as simh does:
 *  - the arithmetic instructions (ADDP, SUBP, MULP, DIVP, ASHP, CMPP,
 *    CVTPL) take each nibble at face value (1A3 is 1*100 + 10*10 + 3 =
 *    203);
 *  - the digit-moving instructions (MOVP, CVTPS, CVTPT, EDITPC) copy the
 *    nibbles unchanged (a digit character is '0' + nibble);
 *  - the character-to-packed conversions CVTSP and CVTTP do check their
 *    input, as the architecture requires: a byte other than '0'..'9' in a
 *    digit position, a CVTSP sign other than '+', '-', ' ', or a CVTTP
 *    table entry with an invalid digit or sign nibble is a reserved
 *    operand.
 *
 * Condition codes: N = result < 0, Z = result = 0 (of the stored
 * destination; -0 is neither negative nor nonzero), V = decimal overflow
 * (nonzero digits lost), C = 0.  Exceptions to this: MOVP keeps C; CVTPS
 * and CVTPT set N and Z from the source (checked against simh); CMPP sets
 * N and Z from the comparison; EDITPC leaves the significance in C.
 * Decimal overflow traps (arithmetic trap code 6) only when PSL<DV> is
 * set; CVTPL's overflow is an integer overflow (code 1, PSL<IV>); DIVP by
 * zero is the "floating/decimal divide by zero" trap, code 4 (the
 * architecture's code table; simh agrees): the quotient, R0-R5 and the
 * condition codes are then left unchanged (UNPREDICTABLE by the
 * architecture; as simh).
 *
 * Registers after each instruction (R4/R5 untouched by the forms that do
 * not name them):
 *   ADDP4/SUBP4   R0 = 0, R1 = addr of operand 1, R2 = 0, R3 = addr of
 *                 the sum/difference
 *   ADDP6/SUBP6/MULP/DIVP
 *                 R0 = 0, R1 = addr of operand 1, R2 = 0, R3 = addr of
 *                 operand 2, R4 = 0, R5 = addr of the result
 *   CMPP3/CMPP4, MOVP, ASHP, CVTPS, CVTSP, CVTPT, CVTTP
 *                 R0 = 0, R1 = source addr, R2 = 0, R3 = second
 *                 string's / destination addr
 *   CVTLP         R0 = R1 = R2 = 0, R3 = destination addr
 *   CVTPL         R0 = 0, R1 = source addr, R2 = R3 = 0; the destination
 *                 is written after them, so it may be one of R0-R3
 *   EDITPC        R0 = srclen, R1 = source addr, R2 = 0, R3 = addr of the
 *                 EO$END byte, R4 = 0, R5 = addr past the last byte stored
 *
 * NO RESTART STATE
 *
 * Every instruction here completes or changes nothing: all operands are
 * decoded and all source strings read first (they are at most 16 bytes),
 * the result is computed in host memory, every page of the destination is
 * translated for write (raising the TNV/ACV a store would raise), and only
 * then is anything stored and are R0-R5 set.  So no first-part-done state
 * is ever needed.  EDITPC's output length is not known in advance: its
 * whole edit runs into a host buffer first (reading the pattern from
 * memory as it goes), then the destination is checked and stored.  Its
 * reserved operand cases (an unknown pattern operator, a repeat count or
 * length of 0, running out of source digits, digits left over at EO$END,
 * EO$ADJUST_INPUT length over 31) are "aborts" in the architecture with
 * UNPREDICTABLE registers and destination: we fault with nothing changed.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/exec.h"

#define MAXLEN 31u    /* longest decimal string, in digits */
#define NDIG 32       /* digits of a normalized source: 31, and a carry out of
                         invalid nibbles taken at face value */
#define DMAX 160      /* digits of an intermediate value: 32 shifted left
                         by ASHP's largest count 127, or a 64-digit product */

/* A decimal value: d[0] is the least significant digit. */
typedef struct {
    uint8_t d[DMAX];
    int neg;
} dnum;

/* ------------------------------------------------------------------ */
/* Memory */

/* Read a packed decimal string of len digits (len <= 31 already checked)
 * into x: the digit nibbles raw (0..15), the sign; *last gets the last
 * byte (least significant digit and sign). */
static int read_packed(vax_machine *m, uint32_t len, uint32_t addr, dnum *x, uint32_t *last)
{
    uint32_t n = len / 2 + 1;
    uint8_t b[16];
    memset(x, 0, sizeof *x);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v;
        TRY(mem_read_b(m, addr + i, &v));
        b[i] = (uint8_t)v;
    }
    uint32_t sign = b[n - 1] & 15u;
    x->neg = sign == 0xB || sign == 0xD;
    for (uint32_t k = 0; k < len; k++) {
        uint8_t byte = b[n - 1 - (k + 1) / 2];
        x->d[k] = (k & 1u) ? (byte & 15u) : (byte >> 4);
    }
    if (last)
        *last = b[n - 1];
    return 0;
}

/* Make every digit 0..9, carrying nibbles 10..15 at face value. */
static void normalize(dnum *x)
{
    unsigned carry = 0;
    for (int k = 0; k < DMAX; k++) {
        unsigned v = x->d[k] + carry;
        x->d[k] = (uint8_t)(v % 10u);
        carry = v / 10u;
    }
}

static int is_zero(const dnum *x, int from, int to)
{
    for (int k = from; k < to; k++)
        if (x->d[k])
            return 0;
    return 1;
}

/* Translate every page of len bytes at va for a write in the current
 * mode, so that the stores that follow cannot fault. */
static int probe_write(vax_machine *m, uint32_t va, uint32_t len)
{
    if (len == 0)
        return 0;
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    uint32_t last = va + len - 1;
    uint32_t p = va;
    tlb_entry *e;
    for (;;) {
        TRY(mmu_translate(m, p, mode, 1, &e));
        if ((p >> 9) == (last >> 9))
            return 0;
        p = (p | 511u) + 1;
    }
}

/* Probe, then store n bytes. */
static int store_bytes(vax_machine *m, uint32_t va, const uint8_t *b, uint32_t n)
{
    TRY(probe_write(m, va, n));
    for (uint32_t i = 0; i < n; i++)
        TRY(mem_write_b(m, va + i, b[i]));
    return 0;
}

/* A result packed for a destination of len digits. */
typedef struct {
    uint8_t b[16];
    uint32_t n;      /* bytes */
    uint32_t cc;     /* N, Z, V (C clear) */
} packed;

/* Pack the low len digits of x (digits 0..15 are stored as they are).
 * V: a nonzero digit beyond len.  The sign is minus only for a negative
 * nonzero value (-0 becomes +0 unless digits were lost). */
static void pack(const dnum *x, uint32_t len, packed *p)
{
    int z = is_zero(x, 0, (int)len);
    int v = !is_zero(x, (int)len, DMAX);
    int neg = x->neg && !(z && !v);
    p->n = len / 2 + 1;
    memset(p->b, 0, sizeof p->b);
    p->b[p->n - 1] = neg ? 0xD : 0xC;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t i = p->n - 1 - (k + 1) / 2;
        p->b[i] |= (uint8_t)((k & 1u) ? x->d[k] : x->d[k] << 4);
    }
    p->cc = (neg && !z ? PSL_N : 0) | (z ? PSL_Z : 0) | (v ? PSL_V : 0);
}

/* Set the condition codes of a decimal result and request the decimal
 * overflow trap if V and PSL<DV>. */
static void dec_cc(vax_machine *m, uint32_t cc)
{
    cc_set(m, cc);
    if ((cc & PSL_V) && (m->cpu.psl_without_cc & PSL_DV))
        cpu_set_trap(m, ARITH_DEC_OVERFLOW);
}

static void set_r0_r3(vax_machine *m, uint32_t r1, uint32_t r3)
{
    m->cpu.r[0] = 0;
    m->cpu.r[1] = r1;
    m->cpu.r[2] = 0;
    m->cpu.r[3] = r3;
}

/* ------------------------------------------------------------------ */
/* Arithmetic on normalized magnitudes */

static int mag_cmp(const dnum *a, const dnum *b)
{
    for (int k = DMAX - 1; k >= 0; k--)
        if (a->d[k] != b->d[k])
            return a->d[k] < b->d[k] ? -1 : 1;
    return 0;
}

/* r = a + b (magnitudes); r may be a or b. */
static void mag_add(dnum *r, const dnum *a, const dnum *b)
{
    unsigned carry = 0;
    for (int k = 0; k < DMAX; k++) {
        unsigned v = a->d[k] + b->d[k] + carry;
        carry = v >= 10u;
        r->d[k] = (uint8_t)(carry ? v - 10u : v);
    }
}

/* r = a - b, a >= b (magnitudes); r may be a or b. */
static void mag_sub(dnum *r, const dnum *a, const dnum *b)
{
    int borrow = 0;
    for (int k = 0; k < DMAX; k++) {
        int v = a->d[k] - b->d[k] - borrow;
        borrow = v < 0;
        r->d[k] = (uint8_t)(borrow ? v + 10 : v);
    }
}

/* r = a + b, signed (normalized operands); r may be a or b. */
static void dec_add(dnum *r, const dnum *a, const dnum *b)
{
    if (a->neg == b->neg) {
        int neg = a->neg;
        mag_add(r, a, b);
        r->neg = neg;
    } else if (mag_cmp(a, b) >= 0) {
        int neg = a->neg;
        mag_sub(r, a, b);
        r->neg = neg;
    } else {
        int neg = b->neg;
        mag_sub(r, b, a);
        r->neg = neg;
    }
}

/* Signed comparison: -1, 0, 1 (normalized operands; -0 = +0). */
static int dec_cmp(const dnum *a, const dnum *b)
{
    int sa = is_zero(a, 0, DMAX) ? 0 : a->neg ? -1 : 1;
    int sb = is_zero(b, 0, DMAX) ? 0 : b->neg ? -1 : 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    int c = mag_cmp(a, b);
    return sa < 0 ? -c : c;
}

/* ------------------------------------------------------------------ */
/* The instructions */

/* A decimal string operand pair: its length (rw) then its address (ab). */
static int op_string(vax_machine *m, uint32_t *len, uint32_t *addr)
{
    TRY(op_read(m, 2, len));
    return op_addr(m, 1, addr);
}

/* ADDP4 addlen.rw, addaddr.ab, sumlen.rw, sumaddr.ab
 * SUBP4 sublen.rw, subaddr.ab, diflen.rw, difaddr.ab
 * ADDP6 add1len.rw, add1addr.ab, add2len.rw, add2addr.ab, sumlen.rw, sumaddr.ab
 * SUBP6 sublen.rw, subaddr.ab, minlen.rw, minaddr.ab, diflen.rw, difaddr.ab
 * MULP  mulrlen.rw, mulraddr.ab, muldlen.rw, muldaddr.ab, prodlen.rw, prodaddr.ab
 * DIVP  divrlen.rw, divraddr.ab, divdlen.rw, divdaddr.ab, quolen.rw, quoaddr.ab
 * Operand 1 is a (the addend, subtrahend, multiplier, divisor), operand 2
 * is b; the result b op a goes to operand 2 (4-operand forms) or 3. */
enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static int do_arith(vax_machine *m, int op, int six)
{
    uint32_t alen, aaddr, blen, baddr, rlen, raddr;
    TRY(op_string(m, &alen, &aaddr));
    TRY(op_string(m, &blen, &baddr));
    if (six) {
        TRY(op_string(m, &rlen, &raddr));
    } else {
        rlen = blen;
        raddr = baddr;
    }
    if (alen > MAXLEN || blen > MAXLEN || rlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;

    dnum a, b, r;
    TRY(read_packed(m, alen, aaddr, &a, NULL));
    TRY(read_packed(m, blen, baddr, &b, NULL));
    normalize(&a);
    normalize(&b);

    memset(&r, 0, sizeof r);
    switch (op) {
    case OP_ADD:
        dec_add(&r, &b, &a);
        break;
    case OP_SUB:
        a.neg = !a.neg;
        dec_add(&r, &b, &a);
        break;
    case OP_MUL:
        for (int i = 0; i < NDIG; i++) {
            unsigned carry = 0;
            if (!a.d[i])
                continue;
            for (int j = 0; j + i < DMAX; j++) {
                unsigned v = r.d[i + j] + a.d[i] * b.d[j] + carry;
                r.d[i + j] = (uint8_t)(v % 10u);
                carry = v / 10u;
            }
        }
        r.neg = a.neg != b.neg;
        break;
    case OP_DIV: {
        if (is_zero(&a, 0, DMAX)) {
            /* Divide by zero: trap, nothing changed (as simh). */
            cpu_set_trap(m, ARITH_FLT_DIVIDE_TRAP);
            return 0;
        }
        /* Long division, one quotient digit at a time from the top. */
        dnum rem;
        memset(&rem, 0, sizeof rem);
        for (int k = NDIG - 1; k >= 0; k--) {
            memmove(rem.d + 1, rem.d, DMAX - 1);   /* rem = rem * 10 + digit */
            rem.d[0] = b.d[k];
            uint8_t q = 0;
            while (mag_cmp(&rem, &a) >= 0) {
                mag_sub(&rem, &rem, &a);
                q++;
            }
            r.d[k] = q;
        }
        r.neg = a.neg != b.neg;
        break;
    }
    }

    packed p;
    pack(&r, rlen, &p);
    TRY(store_bytes(m, raddr, p.b, p.n));
    set_r0_r3(m, aaddr, baddr);
    if (six) {
        m->cpu.r[4] = 0;
        m->cpu.r[5] = raddr;
    }
    dec_cc(m, p.cc);
    return 0;
}

/* CMPP3 len.rw, src1addr.ab, src2addr.ab
 * CMPP4 src1len.rw, src1addr.ab, src2len.rw, src2addr.ab
 *   N = src1 < src2, Z = src1 = src2, V = C = 0. */
static int do_cmpp(vax_machine *m, int four)
{
    uint32_t len1, a1, len2, a2;
    TRY(op_string(m, &len1, &a1));
    if (four)
        TRY(op_read(m, 2, &len2));
    else
        len2 = len1;
    TRY(op_addr(m, 1, &a2));
    if (len1 > MAXLEN || len2 > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x, y;
    TRY(read_packed(m, len1, a1, &x, NULL));
    TRY(read_packed(m, len2, a2, &y, NULL));
    normalize(&x);
    normalize(&y);
    int c = dec_cmp(&x, &y);
    set_r0_r3(m, a1, a2);
    cc_set(m, c < 0 ? PSL_N : c == 0 ? PSL_Z : 0);
    return 0;
}

/* MOVP len.rw, srcaddr.ab, dstaddr.ab
 *   The digits are copied, the sign made preferred (-0 becomes +0).
 *   N, Z of the result, V = 0, C unchanged. */
static int do_movp(vax_machine *m)
{
    uint32_t len, src, dst;
    TRY(op_string(m, &len, &src));
    TRY(op_addr(m, 1, &dst));
    if (len > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    TRY(read_packed(m, len, src, &x, NULL));
    packed p;
    pack(&x, len, &p);
    TRY(store_bytes(m, dst, p.b, p.n));
    set_r0_r3(m, src, dst);
    cpu_store_cc(&m->cpu, (p.cc & (PSL_N | PSL_Z)) | cpu_cc_c(&m->cpu));   /* V cleared, C kept */
    return 0;
}

/* ASHP cnt.rb, srclen.rw, srcaddr.ab, round.rb, dstlen.rw, dstaddr.ab
 *   dst = src * 10^cnt (cnt a signed byte).  Shifting right, round<3:0>
 *   is added to the most significant digit shifted out, and a sum over 9
 *   adds 1 to the magnitude (round 5: round half away from zero; a round
 *   digit over 9 is used as it is, as simh does; round<7:4> is ignored).
 *   N, Z, V of the result, C = 0. */
static int do_ashp(vax_machine *m)
{
    uint32_t cnt, srclen, src, round, dstlen, dst;
    TRY(op_read(m, 1, &cnt));
    TRY(op_string(m, &srclen, &src));
    TRY(op_read(m, 1, &round));
    TRY(op_string(m, &dstlen, &dst));
    if (srclen > MAXLEN || dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x, r;
    TRY(read_packed(m, srclen, src, &x, NULL));
    normalize(&x);
    memset(&r, 0, sizeof r);
    r.neg = x.neg;
    int shift = (int8_t)cnt;
    if (shift >= 0) {
        /* Source digits are below NDIG and shift at most 127: within DMAX. */
        for (int k = 0; k + shift < DMAX; k++)
            r.d[k + shift] = x.d[k];
    } else {
        int s = -shift;   /* 1..128 */
        for (int k = s; k < DMAX; k++)
            r.d[k - s] = x.d[k];
        if (x.d[s - 1] + (round & 15u) > 9u) {
            dnum one;
            memset(&one, 0, sizeof one);
            one.d[0] = 1;
            mag_add(&r, &r, &one);
        }
    }
    packed p;
    pack(&r, dstlen, &p);
    TRY(store_bytes(m, dst, p.b, p.n));
    set_r0_r3(m, src, dst);
    dec_cc(m, p.cc);
    return 0;
}

/* CVTLP src.rl, dstlen.rw, dstaddr.ab
 *   R0 = R1 = R2 = 0, R3 = dstaddr; N, Z, V of the result, C = 0. */
static int do_cvtlp(vax_machine *m)
{
    uint32_t src, dstlen, dst;
    TRY(op_read(m, 4, &src));
    TRY(op_string(m, &dstlen, &dst));
    if (dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    memset(&x, 0, sizeof x);
    x.neg = (int32_t)src < 0;
    uint32_t mag = x.neg ? 0u - src : src;   /* 2^31 for the most negative */
    for (int k = 0; mag; k++, mag /= 10u)
        x.d[k] = (uint8_t)(mag % 10u);
    packed p;
    pack(&x, dstlen, &p);
    TRY(store_bytes(m, dst, p.b, p.n));
    set_r0_r3(m, 0, dst);
    dec_cc(m, p.cc);
    return 0;
}

/* CVTPL srclen.rw, srcaddr.ab, dst.wl
 *   dst = the value, or its low 32 bits with V set (integer overflow trap
 *   if PSL<IV>).  R0 = 0, R1 = srcaddr, R2 = R3 = 0, written before the
 *   destination (which may be one of them).  N, Z of dst, C = 0. */
static int do_cvtpl(vax_machine *m)
{
    uint32_t srclen, src;
    oploc loc;
    TRY(op_string(m, &srclen, &src));
    TRY(op_loc(m, 4, &loc));
    if (srclen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    TRY(read_packed(m, srclen, src, &x, NULL));
    normalize(&x);
    uint64_t mag = 0;   /* the low 10 digits, exactly */
    uint32_t low = 0;   /* the whole magnitude modulo 2^32 */
    for (int k = DMAX - 1; k >= 0; k--) {
        low = low * 10u + x.d[k];
        if (k < 10)
            mag = mag * 10u + x.d[k];
    }
    int v = !is_zero(&x, 10, DMAX) || mag > (x.neg ? 0x80000000u : 0x7FFFFFFFu);
    uint32_t result = x.neg ? 0u - low : low;
    if (loc.reg < 0)
        TRY(probe_write(m, loc.addr, 4));
    set_r0_r3(m, src, 0);
    TRY(loc_write(m, &loc, 4, result));
    cc_set(m, cc_nz_bits(result, 4) | (v ? PSL_V : 0));
    if (v)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    return 0;
}

/* CVTPS srclen.rw, srcaddr.ab, dstlen.rw, dstaddr.ab
 *   Leading separate numeric: a sign byte '+' or '-' (a -0 source gives
 *   '+'), then dstlen ASCII digits.  N, Z from the source, V = digits
 *   lost, C = 0 (checked against simh). */
static int do_cvtps(vax_machine *m)
{
    uint32_t srclen, src, dstlen, dst;
    TRY(op_string(m, &srclen, &src));
    TRY(op_string(m, &dstlen, &dst));
    if (srclen > MAXLEN || dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    TRY(read_packed(m, srclen, src, &x, NULL));
    int zero = is_zero(&x, 0, DMAX);
    int neg = x.neg && !zero;
    uint8_t out[32];
    out[0] = neg ? '-' : '+';
    for (uint32_t i = 0; i < dstlen; i++)
        out[1 + i] = (uint8_t)('0' + x.d[dstlen - 1 - i]);
    TRY(store_bytes(m, dst, out, dstlen + 1));
    set_r0_r3(m, src, dst);
    dec_cc(m, (neg ? PSL_N : 0) | (zero ? PSL_Z : 0) | (is_zero(&x, (int)dstlen, DMAX) ? 0 : PSL_V));
    return 0;
}

/* CVTSP srclen.rw, srcaddr.ab, dstlen.rw, dstaddr.ab
 *   From a sign byte ('+', ' ' or '-') and srclen ASCII digits; anything
 *   else is a reserved operand.  N, Z, V of the result, C = 0. */
static int do_cvtsp(vax_machine *m)
{
    uint32_t srclen, src, dstlen, dst;
    TRY(op_string(m, &srclen, &src));
    TRY(op_string(m, &dstlen, &dst));
    if (srclen > MAXLEN || dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    memset(&x, 0, sizeof x);
    uint32_t c;
    TRY(mem_read_b(m, src, &c));
    if (c == '-')
        x.neg = 1;
    else if (c != '+' && c != ' ')
        return VAX_EXC_RESERVED_OPERAND;
    for (uint32_t i = 0; i < srclen; i++) {
        TRY(mem_read_b(m, src + 1 + i, &c));
        if (c < '0' || c > '9')
            return VAX_EXC_RESERVED_OPERAND;
        x.d[srclen - 1 - i] = (uint8_t)(c - '0');
    }
    packed p;
    pack(&x, dstlen, &p);
    TRY(store_bytes(m, dst, p.b, p.n));
    set_r0_r3(m, src, dst);
    dec_cc(m, p.cc);
    return 0;
}

/* CVTPT srclen.rw, srcaddr.ab, tbladdr.ab, dstlen.rw, dstaddr.ab
 *   Trailing numeric: dstlen bytes, ASCII digits except the last, which
 *   is the table entry indexed by the source's last byte (its least
 *   significant digit and its sign, as they are).  dstlen 0 stores
 *   nothing.  N, Z from the source, V = digits lost, C = 0 (checked
 *   against simh). */
static int do_cvtpt(vax_machine *m)
{
    uint32_t srclen, src, tbl, dstlen, dst, last, t = 0;
    TRY(op_string(m, &srclen, &src));
    TRY(op_addr(m, 1, &tbl));
    TRY(op_string(m, &dstlen, &dst));
    if (srclen > MAXLEN || dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    TRY(read_packed(m, srclen, src, &x, &last));
    if (dstlen)
        TRY(mem_read_b(m, tbl + last, &t));
    int zero = is_zero(&x, 0, DMAX);
    uint8_t out[32];
    for (uint32_t i = 0; i + 1 < dstlen; i++)
        out[i] = (uint8_t)('0' + x.d[dstlen - 1 - i]);
    if (dstlen)
        out[dstlen - 1] = (uint8_t)t;
    TRY(store_bytes(m, dst, out, dstlen));
    set_r0_r3(m, src, dst);
    dec_cc(m, (x.neg && !zero ? PSL_N : 0) | (zero ? PSL_Z : 0) |
                  (is_zero(&x, (int)dstlen, DMAX) ? 0 : PSL_V));
    return 0;
}

/* CVTTP srclen.rw, srcaddr.ab, tbladdr.ab, dstlen.rw, dstaddr.ab
 *   From srclen bytes: ASCII digits, then a last byte translated through
 *   the table into a digit (high nibble) and a sign (low nibble).  A byte
 *   other than '0'..'9', or a table entry with a digit over 9 or a sign
 *   under 0xA, is a reserved operand.  N, Z, V of the result, C = 0. */
static int do_cvttp(vax_machine *m)
{
    uint32_t srclen, src, tbl, dstlen, dst;
    TRY(op_string(m, &srclen, &src));
    TRY(op_addr(m, 1, &tbl));
    TRY(op_string(m, &dstlen, &dst));
    if (srclen > MAXLEN || dstlen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    memset(&x, 0, sizeof x);
    for (uint32_t i = 0; i < srclen; i++) {
        uint32_t c;
        TRY(mem_read_b(m, src + i, &c));
        if (i + 1 == srclen) {
            TRY(mem_read_b(m, tbl + c, &c));
            uint32_t sign = c & 15u;
            if ((c >> 4) > 9u || sign < 0xAu)
                return VAX_EXC_RESERVED_OPERAND;
            x.neg = sign == 0xB || sign == 0xD;
            x.d[0] = (uint8_t)(c >> 4);
        } else {
            if (c < '0' || c > '9')
                return VAX_EXC_RESERVED_OPERAND;
            x.d[srclen - 1 - i] = (uint8_t)(c - '0');
        }
    }
    packed p;
    pack(&x, dstlen, &p);
    TRY(store_bytes(m, dst, p.b, p.n));
    set_r0_r3(m, src, dst);
    dec_cc(m, p.cc);
    return 0;
}

/* ------------------------------------------------------------------ */
/* EDITPC */

/* Pattern operators. */
enum {
    EO_END = 0x00, EO_END_FLOAT = 0x01, EO_CLEAR_SIGNIF = 0x02, EO_SET_SIGNIF = 0x03,
    EO_STORE_SIGN = 0x04, EO_LOAD_FILL = 0x40, EO_LOAD_SIGN = 0x41, EO_LOAD_PLUS = 0x42,
    EO_LOAD_MINUS = 0x43, EO_INSERT = 0x44, EO_BLANK_ZERO = 0x45, EO_REPLACE_SIGN = 0x46,
    EO_ADJUST_INPUT = 0x47, EO_FILL = 0x80, EO_MOVE = 0x90, EO_FLOAT = 0xA0
};

/* The longest output we build (an implementation limit: a pattern that
 * would store more is taken as a reserved operand). */
#define EDIT_MAX (1u << 24)

/* The edited output: buf[i] is the byte for dst + lo + i, for positions
 * lo .. hi-1 relative to dst (lo < 0 only when EO$BLANK_ZERO or
 * EO$REPLACE_SIGN reach back before dst). */
typedef struct {
    uint8_t small[256];
    uint8_t *buf;
    uint32_t cap;
    int32_t lo, hi;
} edit_out;

static int out_reserve(edit_out *o, uint32_t need)
{
    if (need <= o->cap)
        return 0;
    if (need > EDIT_MAX)
        return VAX_EXC_RESERVED_OPERAND;
    uint32_t cap = o->cap * 2;
    while (cap < need)
        cap *= 2;
    uint8_t *nb = malloc(cap);
    if (!nb)
        return VAX_EXC_RESERVED_OPERAND;
    memcpy(nb, o->buf, (size_t)(o->hi - o->lo));
    if (o->buf != o->small)
        free(o->buf);
    o->buf = nb;
    o->cap = cap;
    return 0;
}

static int out_put(edit_out *o, uint32_t ch)
{
    TRY(out_reserve(o, (uint32_t)(o->hi - o->lo) + 1));
    o->buf[o->hi - o->lo] = (uint8_t)ch;
    o->hi++;
    return 0;
}

/* Make position pos (< hi) part of the output, reading the bytes now in
 * memory for any gap opened before lo. */
static int out_reach(vax_machine *m, edit_out *o, uint32_t dst, int32_t pos)
{
    if (pos >= o->lo)
        return 0;
    uint32_t grow = (uint32_t)(o->lo - pos);
    uint32_t used = (uint32_t)(o->hi - o->lo);
    TRY(out_reserve(o, used + grow));
    memmove(o->buf + grow, o->buf, used);
    for (uint32_t i = 0; i < grow; i++) {
        uint32_t b;
        TRY(mem_read_b(m, dst + (uint32_t)(pos + (int32_t)i), &b));
        o->buf[i] = (uint8_t)b;
    }
    o->lo = pos;
    return 0;
}

typedef struct {
    uint8_t digit[MAXLEN];   /* source digits, most significant first, raw */
    uint32_t len, next;      /* digits in all, index of the next one */
    uint32_t zeros;          /* leading zeros EO$ADJUST_INPUT added, still to read */
} edit_src;

static int next_digit(edit_src *s, uint32_t *d)
{
    if (s->zeros) {
        s->zeros--;
        *d = 0;
        return 0;
    }
    if (s->next >= s->len)
        return VAX_EXC_RESERVED_OPERAND;   /* no digits left */
    *d = s->digit[s->next++];
    return 0;
}

/* The edit proper, into o.  cc holds N (source sign), Z (no nonzero
 * digit read yet), V and C (significance) as the architecture keeps them
 * in the PSL.  *end_addr gets the address of the EO$END byte. */
static int edit_run(vax_machine *m, edit_src *s, uint32_t pat, uint32_t dst, edit_out *o, uint32_t *cc,
                    uint32_t *end_addr)
{
    uint32_t fill = ' ';
    uint32_t sign = (*cc & PSL_N) ? '-' : ' ';
    for (;;) {
        uint32_t op, arg = 0, d;
        TRY(mem_read_b(m, pat, &op));
        pat++;
        if (op >= 0x40 && op <= 0x47) {   /* one operand byte */
            TRY(mem_read_b(m, pat, &arg));
            pat++;
        }
        uint32_t r = op & 15u;
        switch (op) {
        case EO_END:
            if (s->zeros || s->next < s->len)
                return VAX_EXC_RESERVED_OPERAND;   /* digits left over */
            *end_addr = pat - 1;
            return 0;
        case EO_END_FLOAT:
            if (!(*cc & PSL_C)) {
                TRY(out_put(o, sign));
                *cc |= PSL_C;
            }
            break;
        case EO_CLEAR_SIGNIF:
            *cc &= ~PSL_C;
            break;
        case EO_SET_SIGNIF:
            *cc |= PSL_C;
            break;
        case EO_STORE_SIGN:
            TRY(out_put(o, sign));
            break;
        case EO_LOAD_FILL:
            fill = arg;
            break;
        case EO_LOAD_SIGN:
            sign = arg;
            break;
        case EO_LOAD_PLUS:
            if (!(*cc & PSL_N))
                sign = arg;
            break;
        case EO_LOAD_MINUS:
            if (*cc & PSL_N)
                sign = arg;
            break;
        case EO_INSERT:
            TRY(out_put(o, (*cc & PSL_C) ? arg : fill));
            break;
        case EO_BLANK_ZERO:   /* source zero: the last arg bytes become fill */
            if (arg == 0)
                return VAX_EXC_RESERVED_OPERAND;
            if (*cc & PSL_Z) {
                TRY(out_reach(m, o, dst, o->hi - (int32_t)arg));
                for (int32_t i = o->hi - (int32_t)arg; i < o->hi; i++)
                    o->buf[i - o->lo] = (uint8_t)fill;
            }
            break;
        case EO_REPLACE_SIGN:   /* source zero: the byte arg back becomes fill */
            if (arg == 0)
                return VAX_EXC_RESERVED_OPERAND;
            if (*cc & PSL_Z) {
                TRY(out_reach(m, o, dst, o->hi - (int32_t)arg));
                o->buf[o->hi - (int32_t)arg - o->lo] = (uint8_t)fill;
            }
            break;
        case EO_ADJUST_INPUT: {   /* make the source arg digits long */
            if (arg == 0 || arg > MAXLEN)
                return VAX_EXC_RESERVED_OPERAND;
            uint32_t left = s->zeros + (s->len - s->next);
            if (left < arg) {
                s->zeros += arg - left;   /* read leading zeros first */
            } else {
                /* Skip the excess digits; a nonzero one is lost: V, and
                 * it counts as significant and nonzero (as simh). */
                for (uint32_t i = arg; i < left; i++) {
                    TRY(next_digit(s, &d));
                    if (d)
                        *cc = (*cc & ~PSL_Z) | PSL_V | PSL_C;
                }
            }
            break;
        }
        default:
            if (r == 0 || op < EO_FILL || op > EO_FLOAT + 15u)
                return VAX_EXC_RESERVED_OPERAND;
            for (uint32_t i = 0; i < r; i++) {
                if ((op & 0xF0u) == EO_FILL) {
                    TRY(out_put(o, fill));
                    continue;
                }
                TRY(next_digit(s, &d));
                /* A nonzero digit starts significance and clears Z; but
                 * EO$FLOAT clears Z only when the digit starts significance
                 * (storing the sign): a nonzero digit it meets with
                 * significance already set leaves Z as it was (DEC's EVKAB
                 * test 161, subtests 50 and 51, EO$SET_SIGNIF then
                 * EO$FLOAT over +89 and +90, expect Z set). */
                if (d && (op & 0xF0u) == EO_FLOAT) {
                    if (!(*cc & PSL_C)) {
                        TRY(out_put(o, sign));
                        *cc = (*cc & ~PSL_Z) | PSL_C;
                    }
                } else if (d) {
                    *cc = (*cc & ~PSL_Z) | PSL_C;
                }
                TRY(out_put(o, (*cc & PSL_C) ? '0' + d : fill));
            }
            break;
        }
    }
}

/* EDITPC srclen.rw, srcaddr.ab, pattern.ab, dstaddr.ab
 *   Fill starts as ' ', sign as '-' for a negative source else ' ',
 *   significance (C) clear.  Afterwards N = source < 0 (-0 is not), Z =
 *   no nonzero digit started significance or was moved outside EO$FLOAT
 *   (so source = 0, unless EO$FLOAT met its nonzero digits with
 *   significance already set), V = nonzero digits dropped by EO$ADJUST_INPUT (decimal
 *   overflow trap if PSL<DV>), C = significance.  R0 = srclen, R1 =
 *   srcaddr, R2 = 0, R3 = address of EO$END, R4 = 0, R5 = address past
 *   the last byte stored. */
static int do_editpc(vax_machine *m)
{
    uint32_t srclen, src, pat, dst;
    TRY(op_string(m, &srclen, &src));
    TRY(op_addr(m, 1, &pat));
    TRY(op_addr(m, 1, &dst));
    if (srclen > MAXLEN)
        return VAX_EXC_RESERVED_OPERAND;
    dnum x;
    TRY(read_packed(m, srclen, src, &x, NULL));
    edit_src s;
    s.len = srclen;
    s.next = 0;
    s.zeros = 0;
    for (uint32_t i = 0; i < srclen; i++)
        s.digit[i] = x.d[srclen - 1 - i];

    edit_out o;
    o.buf = o.small;
    o.cap = sizeof o.small;
    o.lo = o.hi = 0;
    uint32_t cc = (x.neg ? PSL_N : 0) | PSL_Z;
    uint32_t end_addr = 0;
    int st = edit_run(m, &s, pat, dst, &o, &cc, &end_addr);
    if (!st) {
        uint32_t start = dst + (uint32_t)o.lo;
        uint32_t n = (uint32_t)(o.hi - o.lo);
        st = store_bytes(m, start, o.buf, n);
    }
    if (o.buf != o.small)
        free(o.buf);
    if (st)
        return st;
    if (is_zero(&x, 0, DMAX))
        cc &= ~PSL_N;   /* -0 is not negative */
    m->cpu.r[0] = srclen;
    m->cpu.r[1] = src;
    m->cpu.r[2] = 0;
    m->cpu.r[3] = end_addr;
    m->cpu.r[4] = 0;
    m->cpu.r[5] = dst + (uint32_t)o.hi;
    dec_cc(m, cc);
    return 0;
}

/* ------------------------------------------------------------------ */

int exec_decimal(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0x20: return do_arith(m, OP_ADD, 0);   /* ADDP4 */
    case 0x21: return do_arith(m, OP_ADD, 1);   /* ADDP6 */
    case 0x22: return do_arith(m, OP_SUB, 0);   /* SUBP4 */
    case 0x23: return do_arith(m, OP_SUB, 1);   /* SUBP6 */
    case 0x25: return do_arith(m, OP_MUL, 1);   /* MULP */
    case 0x27: return do_arith(m, OP_DIV, 1);   /* DIVP */
    case 0x35: return do_cmpp(m, 0);            /* CMPP3 */
    case 0x37: return do_cmpp(m, 1);            /* CMPP4 */
    case 0x34: return do_movp(m);               /* MOVP */
    case 0xF8: return do_ashp(m);               /* ASHP */
    case 0xF9: return do_cvtlp(m);              /* CVTLP */
    case 0x36: return do_cvtpl(m);              /* CVTPL */
    case 0x08: return do_cvtps(m);              /* CVTPS */
    case 0x09: return do_cvtsp(m);              /* CVTSP */
    case 0x24: return do_cvtpt(m);              /* CVTPT */
    case 0x26: return do_cvttp(m);              /* CVTTP */
    case 0x38: return do_editpc(m);             /* EDITPC */
    default: return VAX_EXC_RESERVED_INSTRUCTION;
    }
}
