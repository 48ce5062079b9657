/*
 * exec_integer.c — integer arithmetic and logic (byte, word, longword,
 * quadword where the architecture has them), moves, integer conversions,
 * shifts and rotates, EMUL/EDIV, address moves and pushes, INDEX and the
 * PSW instructions.
 *
 * Each opcode calls a static inline worker with a constant size, so the
 * compiler builds a specialised body for every opcode.
 */
#include "exec.h"

enum { ALU_ADD, ALU_SUB, ALU_MUL, ALU_DIV, ALU_BIS, ALU_BIC, ALU_XOR };

static inline uint32_t sign_bit(int size)
{
    return size == 1 ? 0x80u : size == 2 ? 0x8000u : 0x80000000u;
}

/* dst OP src with the architecture's condition codes; may request a trap. */
ALWAYS_INLINE uint32_t alu(vax_machine *m, int op, int size, uint32_t src, uint32_t dst)
{
    uint32_t mask = size_mask(size), sb = sign_bit(size);
    uint32_t r, cc;
    src &= mask;
    dst &= mask;
    switch (op) {
    case ALU_ADD:
        r = (dst + src) & mask;
        cc = cc_nz(r, size);
        if (((~(src ^ dst)) & (src ^ r)) & sb)
            cc |= PSL_V;
        if (r < src)
            cc |= PSL_C;
        break;
    case ALU_SUB:   /* dst - src */
        r = (dst - src) & mask;
        cc = cc_nz(r, size);
        if (((src ^ dst) & (dst ^ r)) & sb)
            cc |= PSL_V;
        if (dst < src)
            cc |= PSL_C;
        break;
    case ALU_MUL: {
        int64_t p = (int64_t)(int32_t)sign_extend(dst, size) * (int64_t)(int32_t)sign_extend(src, size);
        r = (uint32_t)p & mask;
        cc = cc_nz(r, size);
        if (p != (int64_t)(int32_t)sign_extend(r, size))
            cc |= PSL_V;
        break;
    }
    case ALU_DIV: {   /* dst / src */
        int32_t dv = (int32_t)sign_extend(src, size), dd = (int32_t)sign_extend(dst, size);
        if (dv == 0) {
            r = dst;
            cc = cc_nz(r, size) | PSL_V;
            cpu_set_trap(m, ARITH_INT_DIVIDE);
        } else if (dv == -1 && (uint32_t)dd == (sign_extend(sb, size))) {
            r = dst;   /* most negative / -1 overflows */
            cc = cc_nz(r, size) | PSL_V;
        } else {
            r = (uint32_t)(dd / dv) & mask;
            cc = cc_nz(r, size);
        }
        break;
    }
    case ALU_BIS:
        r = dst | src;
        cc = cc_nz(r, size) | (m->cpu.psl & PSL_C);
        break;
    case ALU_BIC:
        r = dst & ~src;
        cc = cc_nz(r, size) | (m->cpu.psl & PSL_C);
        break;
    default:
        r = dst ^ src;
        cc = cc_nz(r, size) | (m->cpu.psl & PSL_C);
        break;
    }
    cc_set(m, cc);
    if (cc & PSL_V)
        cpu_set_trap(m, op == ALU_DIV && src == 0 ? ARITH_INT_DIVIDE : ARITH_INT_OVERFLOW);
    return r;
}

/* OPx2 src, dst (dst modified). */
ALWAYS_INLINE int op2(vax_machine *m, int op, int size)
{
    uint32_t src, dst;
    oploc l;
    TRY(op_read(m, size, &src));
    TRY(op_loc(m, size, &l));
    TRY(loc_read(m, &l, size, &dst));
    return loc_write(m, &l, size, alu(m, op, size, src, dst));
}

/* OPx3 src1, src2, dst: dst = src2 OP src1. */
ALWAYS_INLINE int op3(vax_machine *m, int op, int size)
{
    uint32_t a, b;
    TRY(op_read(m, size, &a));
    TRY(op_read(m, size, &b));
    uint32_t psl = m->cpu.psl;
    uint8_t trap = m->cpu.trap_pending;
    uint32_t r = alu(m, op, size, a, b);
    int st = op_write(m, size, r);
    if (st) {   /* a faulting store must leave the CCs and traps alone */
        m->cpu.psl = psl;
        m->cpu.trap_pending = trap;
    }
    return st;
}

ALWAYS_INLINE int op_mov(vax_machine *m, int size)
{
    uint32_t v;
    TRY(op_read(m, size, &v));
    TRY(op_write(m, size, v));
    cc_set(m, cc_nz(v, size) | (m->cpu.psl & PSL_C));
    return 0;
}

ALWAYS_INLINE int op_cmp(vax_machine *m, int size)
{
    uint32_t a, b;
    TRY(op_read(m, size, &a));
    TRY(op_read(m, size, &b));
    int32_t sa = (int32_t)sign_extend(a, size), sb = (int32_t)sign_extend(b, size);
    uint32_t cc = 0;
    if (sa < sb)
        cc |= PSL_N;
    if (a == b)
        cc |= PSL_Z;
    if (a < b)
        cc |= PSL_C;
    cc_set(m, cc);
    return 0;
}

ALWAYS_INLINE int op_mcom(vax_machine *m, int size)
{
    uint32_t v;
    TRY(op_read(m, size, &v));
    v = ~v & size_mask(size);
    TRY(op_write(m, size, v));
    cc_set(m, cc_nz(v, size) | (m->cpu.psl & PSL_C));
    return 0;
}

ALWAYS_INLINE int op_bit(vax_machine *m, int size)
{
    uint32_t a, b;
    TRY(op_read(m, size, &a));
    TRY(op_read(m, size, &b));
    cc_set(m, cc_nz(a & b, size) | (m->cpu.psl & PSL_C));
    return 0;
}

ALWAYS_INLINE int op_clr(vax_machine *m, int size)
{
    TRY(op_write(m, size, 0));
    cc_set(m, PSL_Z | (m->cpu.psl & PSL_C));
    return 0;
}

ALWAYS_INLINE int op_tst(vax_machine *m, int size)
{
    uint32_t v;
    TRY(op_read(m, size, &v));
    cc_set(m, cc_nz(v, size));
    return 0;
}

ALWAYS_INLINE int op_incdec(vax_machine *m, int op, int size)
{
    oploc l;
    uint32_t v;
    TRY(op_loc(m, size, &l));
    TRY(loc_read(m, &l, size, &v));
    uint32_t psl = m->cpu.psl;
    int st = loc_write(m, &l, size, alu(m, op, size, 1, v));
    if (st) {
        m->cpu.psl = psl;
        m->cpu.trap_pending = 0;
    }
    return st;
}

ALWAYS_INLINE int op_mneg(vax_machine *m, int size)
{
    uint32_t v;
    TRY(op_read(m, size, &v));
    uint32_t psl = m->cpu.psl;
    uint32_t r = alu(m, ALU_SUB, size, v, 0);
    int st = op_write(m, size, r);
    if (st) {
        m->cpu.psl = psl;
        m->cpu.trap_pending = 0;
    }
    return st;
}

/* Integer conversions: sign-extending ones never overflow; truncating
 * ones set V (and trap if IV) when the value does not fit. */
ALWAYS_INLINE int op_cvt(vax_machine *m, int from, int to)
{
    uint32_t v;
    TRY(op_read(m, from, &v));
    uint32_t wide = sign_extend(v, from);
    uint32_t r = wide & size_mask(to);
    TRY(op_write(m, to, r));
    uint32_t cc = cc_nz(r, to);
    if (to < from && sign_extend(r, to) != wide) {
        cc |= PSL_V;
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    }
    cc_set(m, cc);
    return 0;
}

ALWAYS_INLINE int op_movz(vax_machine *m, int from, int to)
{
    uint32_t v;
    TRY(op_read(m, from, &v));
    TRY(op_write(m, to, v));
    cc_set(m, (v ? 0 : PSL_Z) | (m->cpu.psl & PSL_C));
    return 0;
}

static inline int push_l(vax_machine *m, uint32_t v)
{
    TRY(mem_write_l(m, m->cpu.r[14] - 4, v));
    m->cpu.r[14] -= 4;
    return 0;
}

ALWAYS_INLINE int op_mova(vax_machine *m, int size)
{
    uint32_t a;
    TRY(op_addr(m, size, &a));
    TRY(op_write(m, 4, a));
    cc_set(m, cc_nz(a, 4) | (m->cpu.psl & PSL_C));
    return 0;
}

ALWAYS_INLINE int op_pusha(vax_machine *m, int size)
{
    uint32_t a;
    TRY(op_addr(m, size, &a));
    TRY(push_l(m, a));
    cc_set(m, cc_nz(a, 4) | (m->cpu.psl & PSL_C));
    return 0;
}

static int op_pushl(vax_machine *m)
{
    uint32_t v;
    TRY(op_read(m, 4, &v));
    TRY(push_l(m, v));
    cc_set(m, cc_nz(v, 4) | (m->cpu.psl & PSL_C));
    return 0;
}

static int op_movq(vax_machine *m)
{
    uint32_t v[2];
    TRY(op_read_q(m, v));
    TRY(op_write_q(m, v));
    cc_set(m, ((v[1] & 0x80000000u) ? PSL_N : 0) | ((v[0] | v[1]) ? 0 : PSL_Z) | (m->cpu.psl & PSL_C));
    return 0;
}

static int op_clrq(vax_machine *m)
{
    static const uint32_t zero[2] = {0, 0};
    TRY(op_write_q(m, zero));
    cc_set(m, PSL_Z | (m->cpu.psl & PSL_C));
    return 0;
}

static int op_rotl(vax_machine *m)
{
    uint32_t cnt, src;
    TRY(op_read(m, 1, &cnt));
    TRY(op_read(m, 4, &src));
    unsigned n = cnt & 31;   /* a negative count rotates right: the same modulo 32 */
    uint32_t r = n ? (src << n) | (src >> (32 - n)) : src;
    TRY(op_write(m, 4, r));
    cc_set(m, cc_nz(r, 4) | (m->cpu.psl & PSL_C));
    return 0;
}

static int op_ashl(vax_machine *m)
{
    uint32_t cnt, src;
    TRY(op_read(m, 1, &cnt));
    TRY(op_read(m, 4, &src));
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
    TRY(op_write(m, 4, r));
    cc_set(m, cc_nz(r, 4) | (v ? PSL_V : 0));
    if (v)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    return 0;
}

static int op_ashq(vax_machine *m)
{
    uint32_t cnt, q[2];
    TRY(op_read(m, 1, &cnt));
    TRY(op_read_q(m, q));
    int n = (int8_t)cnt;
    uint64_t src = ((uint64_t)q[1] << 32) | q[0];
    int64_t s = (int64_t)src;
    uint64_t r;
    int v = 0;
    if (n >= 64) {
        r = 0;
        v = src != 0;
    } else if (n >= 0) {
        r = src << n;
        v = ((int64_t)r >> n) != s;
    } else if (n > -64) {
        r = (uint64_t)(s >> -n);
    } else {
        r = s < 0 ? ~0ull : 0;
    }
    uint32_t out[2] = {(uint32_t)r, (uint32_t)(r >> 32)};
    TRY(op_write_q(m, out));
    cc_set(m, ((r >> 63) ? PSL_N : 0) | (r ? 0 : PSL_Z) | (v ? PSL_V : 0));
    if (v)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    return 0;
}

static int op_emul(vax_machine *m)
{
    uint32_t a, b, add;
    TRY(op_read(m, 4, &a));
    TRY(op_read(m, 4, &b));
    TRY(op_read(m, 4, &add));
    int64_t p = (int64_t)(int32_t)a * (int64_t)(int32_t)b + (int64_t)(int32_t)add;
    uint64_t u = (uint64_t)p;
    uint32_t out[2] = {(uint32_t)u, (uint32_t)(u >> 32)};
    TRY(op_write_q(m, out));
    cc_set(m, (p < 0 ? PSL_N : 0) | (p == 0 ? PSL_Z : 0));
    return 0;
}

static int op_ediv(vax_machine *m)
{
    uint32_t divr, q[2];
    TRY(op_read(m, 4, &divr));
    TRY(op_read_q(m, q));
    int64_t divd = (int64_t)(((uint64_t)q[1] << 32) | q[0]);
    int32_t dv = (int32_t)divr;
    uint32_t quo, rem;
    int trap = 0;
    if (dv == 0) {
        quo = q[0];
        rem = 0;
        trap = ARITH_INT_DIVIDE;
    } else if (dv == -1 && divd == INT64_MIN) {
        quo = q[0];
        rem = 0;
        trap = ARITH_INT_OVERFLOW;
    } else {
        int64_t qq = divd / dv;
        if (qq > INT32_MAX || qq < INT32_MIN) {
            quo = q[0];
            rem = 0;
            trap = ARITH_INT_OVERFLOW;
        } else {
            quo = (uint32_t)(int32_t)qq;
            rem = (uint32_t)(int32_t)(divd % dv);
        }
    }
    TRY(op_write(m, 4, quo));
    TRY(op_write(m, 4, rem));
    cc_set(m, cc_nz(quo, 4) | (trap ? PSL_V : 0));
    if (trap)
        cpu_set_trap(m, trap);
    return 0;
}

static int op_adwc_sbwc(vax_machine *m, int subtract)
{
    uint32_t src, dst;
    oploc l;
    TRY(op_read(m, 4, &src));
    TRY(op_loc(m, 4, &l));
    TRY(loc_read(m, &l, 4, &dst));
    uint32_t c = m->cpu.psl & PSL_C;
    uint64_t wide;
    uint32_t r, cc;
    if (!subtract) {
        wide = (uint64_t)dst + src + c;
        r = (uint32_t)wide;
        cc = cc_nz(r, 4) | ((wide >> 32) ? PSL_C : 0);
        if ((~(src ^ dst) & (src ^ r)) & 0x80000000u)
            cc |= PSL_V;
    } else {
        r = dst - src - c;
        cc = cc_nz(r, 4) | (((uint64_t)src + c > dst) ? PSL_C : 0);
        if (((src ^ dst) & (dst ^ r)) & 0x80000000u)
            cc |= PSL_V;
    }
    TRY(loc_write(m, &l, 4, r));
    cc_set(m, cc);
    if (cc & PSL_V)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    return 0;
}

static int op_adawi(vax_machine *m)
{
    uint32_t src, dst;
    oploc l;
    TRY(op_read(m, 2, &src));
    TRY(op_loc(m, 2, &l));
    if (l.reg < 0 && (l.addr & 1))
        return VAX_EXC_RESERVED_OPERAND;
    TRY(loc_read(m, &l, 2, &dst));
    uint32_t psl = m->cpu.psl;
    int st = loc_write(m, &l, 2, alu(m, ALU_ADD, 2, src, dst));
    if (st) {
        m->cpu.psl = psl;
        m->cpu.trap_pending = 0;
    }
    return st;
}

static int op_index(vax_machine *m)
{
    uint32_t sub, low, high, size, in;
    TRY(op_read(m, 4, &sub));
    TRY(op_read(m, 4, &low));
    TRY(op_read(m, 4, &high));
    TRY(op_read(m, 4, &size));
    TRY(op_read(m, 4, &in));
    uint32_t r = (in + sub) * size;
    TRY(op_write(m, 4, r));
    cc_set(m, cc_nz(r, 4));
    if ((int32_t)sub < (int32_t)low || (int32_t)sub > (int32_t)high)
        cpu_set_trap(m, ARITH_SUBSCRIPT);
    return 0;
}

static int op_psw(vax_machine *m, int set)
{
    uint32_t mask;
    TRY(op_read(m, 2, &mask));
    if (mask & 0xFF00u)
        return VAX_EXC_RESERVED_OPERAND;
    if (set)
        m->cpu.psl |= mask;
    else
        m->cpu.psl &= ~mask;
    if (mask & PSL_T)
        cpu_interrupts_changed(m);
    return 0;
}

int exec_integer(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0x01: return 0;   /* NOP */
    case 0x80: return op2(m, ALU_ADD, 1);
    case 0x81: return op3(m, ALU_ADD, 1);
    case 0x82: return op2(m, ALU_SUB, 1);
    case 0x83: return op3(m, ALU_SUB, 1);
    case 0x84: return op2(m, ALU_MUL, 1);
    case 0x85: return op3(m, ALU_MUL, 1);
    case 0x86: return op2(m, ALU_DIV, 1);
    case 0x87: return op3(m, ALU_DIV, 1);
    case 0x88: return op2(m, ALU_BIS, 1);
    case 0x89: return op3(m, ALU_BIS, 1);
    case 0x8A: return op2(m, ALU_BIC, 1);
    case 0x8B: return op3(m, ALU_BIC, 1);
    case 0x8C: return op2(m, ALU_XOR, 1);
    case 0x8D: return op3(m, ALU_XOR, 1);
    case 0x8E: return op_mneg(m, 1);
    case 0xA0: return op2(m, ALU_ADD, 2);
    case 0xA1: return op3(m, ALU_ADD, 2);
    case 0xA2: return op2(m, ALU_SUB, 2);
    case 0xA3: return op3(m, ALU_SUB, 2);
    case 0xA4: return op2(m, ALU_MUL, 2);
    case 0xA5: return op3(m, ALU_MUL, 2);
    case 0xA6: return op2(m, ALU_DIV, 2);
    case 0xA7: return op3(m, ALU_DIV, 2);
    case 0xA8: return op2(m, ALU_BIS, 2);
    case 0xA9: return op3(m, ALU_BIS, 2);
    case 0xAA: return op2(m, ALU_BIC, 2);
    case 0xAB: return op3(m, ALU_BIC, 2);
    case 0xAC: return op2(m, ALU_XOR, 2);
    case 0xAD: return op3(m, ALU_XOR, 2);
    case 0xAE: return op_mneg(m, 2);
    case 0xC0: return op2(m, ALU_ADD, 4);
    case 0xC1: return op3(m, ALU_ADD, 4);
    case 0xC2: return op2(m, ALU_SUB, 4);
    case 0xC3: return op3(m, ALU_SUB, 4);
    case 0xC4: return op2(m, ALU_MUL, 4);
    case 0xC5: return op3(m, ALU_MUL, 4);
    case 0xC6: return op2(m, ALU_DIV, 4);
    case 0xC7: return op3(m, ALU_DIV, 4);
    case 0xC8: return op2(m, ALU_BIS, 4);
    case 0xC9: return op3(m, ALU_BIS, 4);
    case 0xCA: return op2(m, ALU_BIC, 4);
    case 0xCB: return op3(m, ALU_BIC, 4);
    case 0xCC: return op2(m, ALU_XOR, 4);
    case 0xCD: return op3(m, ALU_XOR, 4);
    case 0xCE: return op_mneg(m, 4);
    case 0x90: return op_mov(m, 1);
    case 0x91: return op_cmp(m, 1);
    case 0x92: return op_mcom(m, 1);
    case 0x93: return op_bit(m, 1);
    case 0x94: return op_clr(m, 1);
    case 0x95: return op_tst(m, 1);
    case 0x96: return op_incdec(m, ALU_ADD, 1);
    case 0x97: return op_incdec(m, ALU_SUB, 1);
    case 0xB0: return op_mov(m, 2);
    case 0xB1: return op_cmp(m, 2);
    case 0xB2: return op_mcom(m, 2);
    case 0xB3: return op_bit(m, 2);
    case 0xB4: return op_clr(m, 2);
    case 0xB5: return op_tst(m, 2);
    case 0xB6: return op_incdec(m, ALU_ADD, 2);
    case 0xB7: return op_incdec(m, ALU_SUB, 2);
    case 0xD0: return op_mov(m, 4);
    case 0xD1: return op_cmp(m, 4);
    case 0xD2: return op_mcom(m, 4);
    case 0xD3: return op_bit(m, 4);
    case 0xD4: return op_clr(m, 4);
    case 0xD5: return op_tst(m, 4);
    case 0xD6: return op_incdec(m, ALU_ADD, 4);
    case 0xD7: return op_incdec(m, ALU_SUB, 4);
    case 0x98: return op_cvt(m, 1, 4);
    case 0x99: return op_cvt(m, 1, 2);
    case 0x32: return op_cvt(m, 2, 4);
    case 0x33: return op_cvt(m, 2, 1);
    case 0xF6: return op_cvt(m, 4, 1);
    case 0xF7: return op_cvt(m, 4, 2);
    case 0x9A: return op_movz(m, 1, 4);
    case 0x9B: return op_movz(m, 1, 2);
    case 0x3C: return op_movz(m, 2, 4);
    case 0x9E: return op_mova(m, 1);
    case 0x3E: return op_mova(m, 2);
    case 0xDE: return op_mova(m, 4);
    case 0x7E: return op_mova(m, 8);
    case 0x9F: return op_pusha(m, 1);
    case 0x3F: return op_pusha(m, 2);
    case 0xDF: return op_pusha(m, 4);
    case 0x7F: return op_pusha(m, 8);
    case 0xDD: return op_pushl(m);
    case 0x7C: return op_clrq(m);
    case 0x7D: return op_movq(m);
    case 0x9C: return op_rotl(m);
    case 0x78: return op_ashl(m);
    case 0x79: return op_ashq(m);
    case 0x7A: return op_emul(m);
    case 0x7B: return op_ediv(m);
    case 0xD8: return op_adwc_sbwc(m, 0);
    case 0xD9: return op_adwc_sbwc(m, 1);
    case 0x58: return op_adawi(m);
    case 0x0A: return op_index(m);
    case 0xDC: return op_write(m, 4, m->cpu.psl);   /* MOVPSL: CCs unchanged */
    case 0xB8: return op_psw(m, 1);
    case 0xB9: return op_psw(m, 0);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
