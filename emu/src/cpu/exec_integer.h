/*
 * exec_integer.h — bodies of the integer instructions that compiled code
 * uses most: moves, compares, tests, the two- and three-operand
 * arithmetic and logical instructions, INC/DEC, converts, ASHL, address
 * moves and pushes.  They are inline so that execute.c's dispatch switch can
 * expand the frequent opcodes in place (no second dispatch, no call, PC
 * in a register: see dctx in decode.h); exec_integer.c builds every
 * integer opcode from the same bodies for the group path.
 *
 * Each worker takes a constant size (and operation), so every opcode gets
 * its own specialised code.  Condition codes and traps are committed only
 * after the last store that can fault: a faulting instruction leaves the
 * PSL and the pending trap as they were.
 */
#ifndef VAX_EXEC_INTEGER_H
#define VAX_EXEC_INTEGER_H

#include "cpu/exec.h"

enum { ALU_ADD, ALU_SUB, ALU_MUL, ALU_DIV, ALU_BIS, ALU_BIC, ALU_XOR };

static inline uint32_t sign_bit(int size)
{
    return size == 1 ? 0x80u : size == 2 ? 0x8000u : 0x80000000u;
}

/* dst OP src, both of `size` bytes: returns the result and sets *vc to
 * the new V and C (0 for the logical operations, which keep the PSL's C:
 * alu_commit).  N and Z come from the result (alu_commit). */
ALWAYS_INLINE uint32_t alu(int op, int size, uint32_t src, uint32_t dst, uint32_t *vc)
{
    uint32_t mask = size_mask(size), sb = sign_bit(size);
    int vshift = 8 * size - 2;   /* moves the sign bit to PSL<V> */
    uint32_t r, c;
    src &= mask;
    dst &= mask;
    switch (op) {
    case ALU_ADD:
        r = (dst + src) & mask;
        c = (((~(src ^ dst) & (src ^ r)) >> vshift) & PSL_V) | (r < src ? PSL_C : 0);
        break;
    case ALU_SUB:   /* dst - src */
        r = (dst - src) & mask;
        c = ((((src ^ dst) & (dst ^ r)) >> vshift) & PSL_V) | (dst < src ? PSL_C : 0);
        break;
    case ALU_MUL: {
        int64_t p = (int64_t)(int32_t)sign_extend(dst, size) * (int64_t)(int32_t)sign_extend(src, size);
        r = (uint32_t)p & mask;
        c = p != (int64_t)(int32_t)sign_extend(r, size) ? PSL_V : 0;
        break;
    }
    case ALU_DIV: {   /* dst / src */
        int32_t dv = (int32_t)sign_extend(src, size), dd = (int32_t)sign_extend(dst, size);
        if (dv == 0 || (dv == -1 && (uint32_t)dd == sign_extend(sb, size))) {
            r = dst;   /* divide by zero, or most negative / -1: the dividend, V set */
            c = PSL_V;
        } else {
            r = (uint32_t)(dd / dv) & mask;
            c = 0;
        }
        break;
    }
    case ALU_BIS:
        r = dst | src;
        c = 0;
        break;
    case ALU_BIC:
        r = dst & ~src;
        c = 0;
        break;
    default:
        r = dst ^ src;
        c = 0;
        break;
    }
    *vc = c;
    return r;
}

/* Commit an alu() result's condition codes (N and Z from the result r, V
 * and C from vc; the logical operations keep C) and, with V set, its
 * trap: divide by zero always traps, overflow only with PSL<IV>.
 * Returns the instruction's status (cpu_trap_status). */
ALWAYS_INLINE int alu_commit(vax_machine *m, int op, int size, uint32_t src, uint32_t r, uint32_t vc)
{
    if (op == ALU_BIS || op == ALU_BIC || op == ALU_XOR)
        cc_result_keep_c(m, r, size, vc & PSL_V);
    else
        cc_result(m, r, size, vc & PSL_V, vc & PSL_C);
    if (UNLIKELY(vc & PSL_V))
        return cpu_trap_status(m, op == ALU_DIV && (src & size_mask(size)) == 0 ? ARITH_INT_DIVIDE
                                                                                  : ARITH_INT_OVERFLOW);
    return VAX_OK;
}

/* OPx2 src, dst (dst modified). */
ALWAYS_INLINE int op2(dctx *d, int op, int size)
{
    uint32_t src, dst, cc;
    modloc l;
    TRY(dc_read(d, size, &src));
    TRY(dc_modify(d, size, &l, &dst));
    uint32_t r = alu(op, size, src, dst, &cc);
    TRY(mod_write(d->m, &l, size, r));
    dc_done(d);
    return alu_commit(d->m, op, size, src, r, cc);
}

/* OPx3 src1, src2, dst: dst = src2 OP src1. */
ALWAYS_INLINE int op3(dctx *d, int op, int size)
{
    uint32_t a, b, cc;
    TRY(dc_read(d, size, &a));
    TRY(dc_read(d, size, &b));
    uint32_t r = alu(op, size, a, b, &cc);
    TRY(dc_write(d, size, r));
    dc_done(d);
    return alu_commit(d->m, op, size, a, r, cc);
}

ALWAYS_INLINE int op_mov(dctx *d, int size)
{
    uint32_t v;
    TRY(dc_read(d, size, &v));
    TRY(dc_write(d, size, v));
    cc_nz_keep_c(d->m, v, size);
    return dc_done(d);
}

ALWAYS_INLINE int op_cmp(dctx *d, int size)
{
    uint32_t a, b;
    TRY(dc_read(d, size, &a));
    TRY(dc_read(d, size, &b));
    cc_set_compare(d->m, (int32_t)sign_extend(a, size), (int32_t)sign_extend(b, size), a < b ? PSL_C : 0);
    return dc_done(d);
}

ALWAYS_INLINE int op_mcom(dctx *d, int size)
{
    uint32_t v;
    TRY(dc_read(d, size, &v));
    v = ~v & size_mask(size);
    TRY(dc_write(d, size, v));
    cc_nz_keep_c(d->m, v, size);
    return dc_done(d);
}

ALWAYS_INLINE int op_bit(dctx *d, int size)
{
    uint32_t a, b;
    TRY(dc_read(d, size, &a));
    TRY(dc_read(d, size, &b));
    cc_nz_keep_c(d->m, a & b, size);
    return dc_done(d);
}

ALWAYS_INLINE int op_clr(dctx *d, int size)
{
    TRY(dc_write(d, size, 0));
    cc_nz_keep_c(d->m, 0, size);   /* Z set, N and V cleared, C kept */
    return dc_done(d);
}

ALWAYS_INLINE int op_tst(dctx *d, int size)
{
    uint32_t v;
    TRY(dc_read(d, size, &v));
    cc_result(d->m, v, size, 0, 0);
    return dc_done(d);
}

/* INCx/DECx: ADD/SUB of 1 to a modify operand. */
ALWAYS_INLINE int op_incdec(dctx *d, int op, int size)
{
    uint32_t v, cc;
    modloc l;
    TRY(dc_modify(d, size, &l, &v));
    uint32_t r = alu(op, size, 1, v, &cc);
    TRY(mod_write(d->m, &l, size, r));
    dc_done(d);
    return alu_commit(d->m, op, size, 1, r, cc);
}

ALWAYS_INLINE int op_mneg(dctx *d, int size)
{
    uint32_t v, cc;
    TRY(dc_read(d, size, &v));
    uint32_t r = alu(ALU_SUB, size, v, 0, &cc);
    TRY(dc_write(d, size, r));
    dc_done(d);
    return alu_commit(d->m, ALU_SUB, size, v, r, cc);
}

/* Integer conversions: sign-extending ones never overflow; truncating
 * ones set V (and trap if IV) when the value does not fit. */
ALWAYS_INLINE int op_cvt(dctx *d, int from, int to)
{
    uint32_t v;
    TRY(dc_read(d, from, &v));
    uint32_t wide = sign_extend(v, from);
    uint32_t r = wide & size_mask(to);
    TRY(dc_write(d, to, r));
    uint32_t v_bit = 0;
    int st = VAX_OK;
    if (to < from && sign_extend(r, to) != wide) {
        v_bit = PSL_V;
        st = cpu_trap_status(d->m, ARITH_INT_OVERFLOW);
    }
    cc_result(d->m, r, to, v_bit, 0);
    dc_done(d);
    return st;
}

/* MOVZxy: the result is never negative. */
ALWAYS_INLINE int op_movz(dctx *d, int from, int to)
{
    uint32_t v;
    TRY(dc_read(d, from, &v));
    TRY(dc_write(d, to, v));
    cc_nz_keep_c(d->m, v, to);
    return dc_done(d);
}

ALWAYS_INLINE int op_mova(dctx *d, int size)
{
    uint32_t a;
    TRY(dc_addr(d, size, &a));
    TRY(dc_write(d, 4, a));
    cc_nz_keep_c(d->m, a, 4);
    return dc_done(d);
}

ALWAYS_INLINE int op_pusha(dctx *d, int size)
{
    uint32_t a;
    TRY(dc_addr(d, size, &a));
    TRY(push_l(d->m, a));
    cc_nz_keep_c(d->m, a, 4);
    return dc_done(d);
}

/* ASHL count.rb, src.rl, dst.wl: arithmetic shift, left for a positive
 * count; V when a left shift loses significant bits. */
ALWAYS_INLINE int op_ashl(dctx *d)
{
    uint32_t cnt, src;
    TRY(dc_read(d, 1, &cnt));
    TRY(dc_read(d, 4, &src));
    int n = (int8_t)cnt;
    int32_t s = (int32_t)src;
    uint32_t r;
    int v = 0;
    if (n >= 32) {
        r = 0;
        v = src != 0;
    } else if (n >= 0) {
        r = src << n;
        v = ((int32_t)r >> n) != s;
    } else if (n > -32) {
        r = (uint32_t)(s >> -n);
    } else {
        r = s < 0 ? 0xFFFFFFFFu : 0;
    }
    TRY(dc_write(d, 4, r));
    cc_result(d->m, r, 4, v ? PSL_V : 0, 0);
    dc_done(d);
    return v ? cpu_trap_status(d->m, ARITH_INT_OVERFLOW) : VAX_OK;
}

/* MOVQ src.rq, dst.wq. */
ALWAYS_INLINE int op_movq(dctx *d)
{
    uint32_t v[2];
    TRY(dc_read_q(d, v));
    TRY(dc_write_q(d, v));
    cc_set(d->m, ((v[1] & 0x80000000u) ? PSL_N : 0) | ((v[0] | v[1]) ? 0 : PSL_Z) | cpu_cc_c(&d->m->cpu));
    return dc_done(d);
}

ALWAYS_INLINE int op_pushl(dctx *d)
{
    uint32_t v;
    TRY(dc_read(d, 4, &v));
    TRY(push_l(d->m, v));
    cc_nz_keep_c(d->m, v, 4);
    return dc_done(d);
}

#endif
