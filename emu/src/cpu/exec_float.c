/*
 * exec_float.c — F_floating and D_floating instructions: arithmetic,
 * compare/test/move/negate, conversions, ACBF/ACBD, EMODF/EMODD and
 * POLYF/POLYD.  The arithmetic itself is in vaxfloat.c (exact integer
 * implementation, identical on every host); this file decodes operands,
 * sets condition codes and turns vaxfloat's statuses into the 780's
 * exceptions.
 *
 * On the 780 floating overflow, divide by zero and (with PSL<FU>)
 * underflow are TRAPS, arithmetic codes 3, 4 and 5: the instruction
 * completes and the trap is taken with the PC past it.  What it stores:
 * overflow and divide by zero the reserved operand (sign 1, exponent 0:
 * 0x8000), with N and V set and Z, C clear; underflow a true zero, with
 * Z set (and only then a trap if FU is set).  ACBF/ACBD keep C and do not
 * branch after an overflow; after an underflow they compare the zero
 * with the limit as usual.  POLYF/POLYD replace an underflowed
 * intermediate result by zero and go on; an overflow stops them with
 * R0 = the reserved operand, R1 = 0 (the other registers as when they
 * complete) and traps like the others.  All of this is what DEC's EVKAC
 * (the floating point exerciser) checks on a KA780; the first version of
 * this file had the later VAXes' faults (codes 8-10).
 */
#include "cpu/exec.h"
#include "cpu/vaxfloat.h"

/* Floating values travel as uint64_t: F in the low 32 bits; D with its
 * first longword in the low 32 bits. */

#define FP_RESERVED 0x8000u   /* the reserved operand an overflow stores (F, and D's first longword) */

/* Reserved operands fault; anything else goes on. */
static int check(vax_machine *m, vf_status s)
{
    (void)m;
    return s == VF_RESERVED_OPERAND ? VAX_EXC_RESERVED_OPERAND : 0;
}

static uint32_t fp_cc(uint64_t v);

/* A floating result and what the 780 makes of its status (see above):
 * the value to store (*r), the condition codes (*cc) and the trap to take
 * once the result is stored (*trap, 0 for none).  Returns
 * VAX_EXC_RESERVED_OPERAND for a reserved operand, else 0. */
static int fp_result(vax_machine *m, vf_status s, uint64_t *r, uint32_t *cc, int *trap)
{
    *trap = 0;
    switch (s) {
    case VF_OK:
    case VF_INT_OVERFLOW:   /* callers handle V themselves */
        *cc = fp_cc(*r);
        return 0;
    case VF_OVERFLOW:
    case VF_DIVIDE_BY_ZERO:
        *r = FP_RESERVED;
        *cc = PSL_N | PSL_V;
        *trap = s == VF_OVERFLOW ? ARITH_FLT_OVERFLOW_TRAP : ARITH_FLT_DIVIDE_TRAP;
        return 0;
    case VF_UNDERFLOW:
        *r = 0;
        *cc = PSL_Z;
        if (m->cpu.psl_without_cc & PSL_FU)
            *trap = ARITH_FLT_UNDERFLOW_TRAP;
        return 0;
    case VF_RESERVED_OPERAND:
        break;
    }
    return VAX_EXC_RESERVED_OPERAND;
}

static void fp_trap(vax_machine *m, int trap)
{
    if (trap)
        cpu_set_trap(m, trap);
}

static int read_fp(vax_machine *m, int dbl, uint64_t *v)
{
    uint32_t w[2];
    if (dbl) {
        TRY(op_read_d(m, w));
        *v = ((uint64_t)w[1] << 32) | w[0];
    } else {
        TRY(op_read_f(m, w));
        *v = w[0];
    }
    return 0;
}

static int loc_read_fp(vax_machine *m, const oploc *l, int dbl, uint64_t *v)
{
    uint32_t w[2] = {0, 0};
    if (dbl)
        TRY(loc_read_q(m, l, w));
    else
        TRY(loc_read(m, l, 4, &w[0]));
    *v = ((uint64_t)w[1] << 32) | w[0];
    return 0;
}

static int loc_write_fp(vax_machine *m, const oploc *l, int dbl, uint64_t v)
{
    uint32_t w[2] = {(uint32_t)v, (uint32_t)(v >> 32)};
    return dbl ? loc_write_q(m, l, w) : loc_write(m, l, 4, w[0]);
}

static int loc_fp(vax_machine *m, int dbl, oploc *l)
{
    return dbl ? op_loc_q(m, l) : op_loc(m, 4, l);
}

static uint32_t fp_cc(uint64_t v)
{
    uint32_t w = (uint32_t)v;
    if ((w & 0xFF80u) == 0)
        return PSL_Z;
    return (w & 0x8000u) ? PSL_N : 0;
}

enum { F_ADD, F_SUB, F_MUL, F_DIV };

/* r = b OP a, the VAX operand order (dst OP= src; dif = min - sub). */
static vf_status fp_op(int op, int dbl, uint64_t a, uint64_t b, uint64_t *r)
{
    uint32_t rf = 0;
    vf_status s;
    if (dbl) {
        switch (op) {
        case F_ADD: return vf_addd(b, a, r);
        case F_SUB: return vf_subd(b, a, r);
        case F_MUL: return vf_muld(b, a, r);
        default: return vf_divd(b, a, r);
        }
    }
    switch (op) {
    case F_ADD: s = vf_addf((uint32_t)b, (uint32_t)a, &rf); break;
    case F_SUB: s = vf_subf((uint32_t)b, (uint32_t)a, &rf); break;
    case F_MUL: s = vf_mulf((uint32_t)b, (uint32_t)a, &rf); break;
    default: s = vf_divf((uint32_t)b, (uint32_t)a, &rf); break;
    }
    *r = rf;
    return s;
}

static int op2(vax_machine *m, int op, int dbl)
{
    uint64_t a, b, r = 0;
    uint32_t cc;
    int trap;
    oploc l;
    TRY(read_fp(m, dbl, &a));
    TRY(loc_fp(m, dbl, &l));
    TRY(loc_read_fp(m, &l, dbl, &b));
    TRY(fp_result(m, fp_op(op, dbl, a, b, &r), &r, &cc, &trap));
    TRY(loc_write_fp(m, &l, dbl, r));
    cc_set(m, cc);
    fp_trap(m, trap);
    return 0;
}

static int op3(vax_machine *m, int op, int dbl)
{
    uint64_t a, b, r = 0;
    uint32_t cc;
    int trap;
    oploc l;
    TRY(read_fp(m, dbl, &a));
    TRY(read_fp(m, dbl, &b));
    TRY(loc_fp(m, dbl, &l));
    TRY(fp_result(m, fp_op(op, dbl, a, b, &r), &r, &cc, &trap));
    TRY(loc_write_fp(m, &l, dbl, r));
    cc_set(m, cc);
    fp_trap(m, trap);
    return 0;
}

static int reserved(int dbl, uint64_t v)
{
    return dbl ? vf_d_is_reserved(v) : vf_f_is_reserved((uint32_t)v);
}

/* MOVF/MOVD, MNEGF/MNEGD. */
static int op_mov(vax_machine *m, int dbl, int negate)
{
    uint64_t v;
    oploc l;
    TRY(read_fp(m, dbl, &v));
    TRY(loc_fp(m, dbl, &l));
    if (reserved(dbl, v))
        return VAX_EXC_RESERVED_OPERAND;
    if (negate) {
        if (dbl)
            vf_negd(v, &v);
        else {
            uint32_t r;
            vf_negf((uint32_t)v, &r);
            v = r;
        }
    } else if ((((uint32_t)v) & 0xFF80u) == 0) {
        v = 0;   /* any zero (exponent 0) is stored as a true, all-zero zero */
    }
    TRY(loc_write_fp(m, &l, dbl, v));
    cc_set(m, fp_cc(v) | (negate ? 0 : cpu_cc_c(&m->cpu)));
    return 0;
}

static int op_cmp(vax_machine *m, int dbl)
{
    uint64_t a, b;
    int res;
    TRY(read_fp(m, dbl, &a));
    TRY(read_fp(m, dbl, &b));
    TRY(check(m, dbl ? vf_cmpd(a, b, &res) : vf_cmpf((uint32_t)a, (uint32_t)b, &res)));
    cc_set(m, res < 0 ? PSL_N : res == 0 ? PSL_Z : 0);
    return 0;
}

static int op_tst(vax_machine *m, int dbl)
{
    uint64_t a;
    TRY(read_fp(m, dbl, &a));
    if (reserved(dbl, a))
        return VAX_EXC_RESERVED_OPERAND;
    cc_set(m, fp_cc(a));
    return 0;
}

/* CVT floating -> integer of `size` bytes; round for CVTRxL. */
static int op_cvt_to_int(vax_machine *m, int dbl, int size, int round)
{
    uint64_t a;
    int32_t r = 0;
    TRY(read_fp(m, dbl, &a));
    vf_status s = dbl ? vf_cvt_d_to_int(a, size * 8, round, &r) : vf_cvt_f_to_int((uint32_t)a, size * 8, round, &r);
    if (s == VF_RESERVED_OPERAND)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(op_write(m, size, (uint32_t)r));
    uint32_t cc = cc_nz_bits((uint32_t)r, size);
    if (s == VF_INT_OVERFLOW) {
        cc |= PSL_V;
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    }
    cc_set(m, cc);
    return 0;
}

static int op_cvt_from_int(vax_machine *m, int dbl, int size)
{
    uint32_t v;
    uint64_t r;
    oploc l;
    TRY(op_read(m, size, &v));
    TRY(loc_fp(m, dbl, &l));
    int32_t i = (int32_t)sign_extend(v, size);
    if (dbl) {
        vf_cvt_int_to_d(i, &r);
    } else {
        uint32_t f;
        vf_cvt_int_to_f(i, &f);
        r = f;
    }
    TRY(loc_write_fp(m, &l, dbl, r));
    cc_set(m, fp_cc(r));
    return 0;
}

static int op_cvt_fd(vax_machine *m, int to_d)
{
    uint64_t a, r = 0;
    uint32_t cc;
    int trap;
    vf_status s;
    oploc l;
    TRY(read_fp(m, !to_d, &a));
    TRY(loc_fp(m, to_d, &l));
    if (to_d) {
        s = vf_cvt_f_to_d((uint32_t)a, &r);
    } else {
        uint32_t f = 0;
        s = vf_cvt_d_to_f(a, &f);
        r = f;
    }
    TRY(fp_result(m, s, &r, &cc, &trap));
    TRY(loc_write_fp(m, &l, to_d, r));
    cc_set(m, cc);
    fp_trap(m, trap);
    return 0;
}

static int op_acb(vax_machine *m, int dbl)
{
    uint64_t limit, add, idx, r = 0;
    uint32_t d;
    oploc l;
    int cmp;
    TRY(read_fp(m, dbl, &limit));
    TRY(read_fp(m, dbl, &add));
    TRY(loc_fp(m, dbl, &l));
    TRY(loc_read_fp(m, &l, dbl, &idx));
    TRY(op_branch_w(m, &d));
    uint32_t cc;
    int trap;
    vf_status s = fp_op(F_ADD, dbl, add, idx, &r);
    if (reserved(dbl, limit))
        return VAX_EXC_RESERVED_OPERAND;
    TRY(fp_result(m, s, &r, &cc, &trap));
    int branch = 0;
    if (s != VF_OVERFLOW) {   /* an overflowed index does not branch */
        TRY(check(m, dbl ? vf_cmpd(r, limit, &cmp) : vf_cmpf((uint32_t)r, (uint32_t)limit, &cmp)));
        int add_negative = ((uint32_t)add & 0x8000u) != 0;
        branch = add_negative ? cmp >= 0 : cmp <= 0;
    }
    TRY(loc_write_fp(m, &l, dbl, r));
    cc_set(m, cc | cpu_cc_c(&m->cpu));
    if (branch)
        m->cpu.r[15] += d;
    fp_trap(m, trap);
    return 0;
}

static int op_emod(vax_machine *m, int dbl)
{
    uint64_t mulr, muld, fract = 0;
    uint32_t mulrx;
    int32_t ip = 0;
    oploc li, lf;
    TRY(read_fp(m, dbl, &mulr));
    TRY(op_read(m, 1, &mulrx));
    TRY(read_fp(m, dbl, &muld));
    TRY(op_loc(m, 4, &li));
    TRY(loc_fp(m, dbl, &lf));
    vf_status s;
    if (dbl) {
        s = vf_emodd(mulr, (uint8_t)mulrx, muld, &ip, &fract);
    } else {
        uint32_t f = 0;
        s = vf_emodf((uint32_t)mulr, (uint8_t)mulrx, (uint32_t)muld, &ip, &f);
        fract = f;
    }
    uint32_t cc;
    int trap;
    TRY(fp_result(m, s, &fract, &cc, &trap));
    if (s == VF_UNDERFLOW)
        ip = 0;
    TRY(loc_write(m, &li, 4, (uint32_t)ip));
    TRY(loc_write_fp(m, &lf, dbl, fract));
    if (s == VF_INT_OVERFLOW) {
        cc |= PSL_V;
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    }
    cc_set(m, cc);
    fp_trap(m, trap);
    return 0;
}

/* Evaluate POLY of the given degree on cf/cd (F or D coefficients). */
static vf_status poly_eval(int dbl, uint64_t arg, uint32_t degree, const uint32_t *cf, const uint64_t *cd,
                           uint64_t *r)
{
    if (dbl)
        return vf_polyd(arg, degree, cd, r);
    uint32_t f = 0;
    vf_status s = vf_polyf((uint32_t)arg, degree, cf, &f);
    *r = f;
    return s;
}

/*
 * POLYF/POLYD.  The coefficients are read from the table, then vaxfloat
 * evaluates the polynomial, replacing an underflowed intermediate result
 * by zero and going on (the 780's way: see the top of this file for what
 * an underflow or an overflow then does).  A coefficient the processor
 * cannot read only matters if the iterations before it completed: an
 * overflow in those comes first.
 */
static int op_poly(vax_machine *m, int dbl)
{
    uint64_t arg, r = 0;
    uint32_t degree, table;
    TRY(read_fp(m, dbl, &arg));
    TRY(op_read(m, 2, &degree));
    TRY(op_addr(m, 1, &table));
    if (degree > 31)
        return VAX_EXC_RESERVED_OPERAND;
    uint32_t step = dbl ? 8 : 4;
    uint32_t cf[32];
    uint64_t cd[32];
    uint32_t nread = 0;
    int read_status = 0;
    for (uint32_t i = 0; i <= degree; i++) {
        uint32_t w[2] = {0, 0};
        read_status = mem_read_l(m, table + i * step, &w[0]);
        if (!read_status && dbl)
            read_status = mem_read_l(m, table + i * step + 4, &w[1]);
        if (read_status)
            break;
        cf[i] = w[0];
        cd[i] = ((uint64_t)w[1] << 32) | w[0];
        nread++;
    }
    if (nread == 0)
        return read_status;
    vf_status s = poly_eval(dbl, arg, nread - 1, cf, cd, &r);
    if (s == VF_RESERVED_OPERAND)
        return VAX_EXC_RESERVED_OPERAND;
    if (s != VF_OVERFLOW && read_status)
        return read_status;
    uint32_t cc;
    int trap;
    if (s == VF_UNDERFLOW) {
        /* Some iteration underflowed; r is the final result all the same. */
        cc = fp_cc(r);
        trap = (m->cpu.psl_without_cc & PSL_FU) ? ARITH_FLT_UNDERFLOW_TRAP : 0;
    } else {
        TRY(fp_result(m, s, &r, &cc, &trap));
    }
    uint32_t *R = m->cpu.r;
    R[0] = (uint32_t)r;
    R[1] = dbl ? (uint32_t)(r >> 32) : 0;
    R[2] = 0;
    R[3] = table + (degree + 1) * step;
    if (dbl) {
        R[4] = 0;
        R[5] = 0;
    }
    cc_set(m, cc);
    fp_trap(m, trap);
    return 0;
}

int exec_float(vax_machine *m, int opcode)
{
    int dbl = (opcode & 0xF0) == 0x60 || (opcode & 0xF0) == 0x70;
    switch (opcode & 0x1F) {
    case 0x00: return op2(m, F_ADD, dbl);
    case 0x01: return op3(m, F_ADD, dbl);
    case 0x02: return op2(m, F_SUB, dbl);
    case 0x03: return op3(m, F_SUB, dbl);
    case 0x04: return op2(m, F_MUL, dbl);
    case 0x05: return op3(m, F_MUL, dbl);
    case 0x06: return op2(m, F_DIV, dbl);
    case 0x07: return op3(m, F_DIV, dbl);
    case 0x08: return op_cvt_to_int(m, dbl, 1, 0);
    case 0x09: return op_cvt_to_int(m, dbl, 2, 0);
    case 0x0A: return op_cvt_to_int(m, dbl, 4, 0);
    case 0x0B: return op_cvt_to_int(m, dbl, 4, 1);
    case 0x0C: return op_cvt_from_int(m, dbl, 1);
    case 0x0D: return op_cvt_from_int(m, dbl, 2);
    case 0x0E: return op_cvt_from_int(m, dbl, 4);
    case 0x0F: return op_acb(m, dbl);
    case 0x10: return op_mov(m, dbl, 0);
    case 0x11: return op_cmp(m, dbl);
    case 0x12: return op_mov(m, dbl, 1);
    case 0x13: return op_tst(m, dbl);
    case 0x14: return op_emod(m, dbl);
    case 0x15: return op_poly(m, dbl);
    case 0x16: return op_cvt_fd(m, !dbl);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
