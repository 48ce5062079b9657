/*
 * exec_integer.c — integer arithmetic and logic (byte, word, longword,
 * quadword where the architecture has them), moves, integer conversions,
 * shifts and rotates, EMUL/EDIV, address moves and pushes, INDEX and the
 * PSW instructions.
 *
 * The bodies of the frequent instructions are in exec_integer.h (execute.c
 * expands those opcodes inline); this file has the rest, and the group
 * function that runs any integer opcode.
 */
#include "cpu/exec_integer.h"

static int op_clrq(vax_machine *m)
{
    static const uint32_t zero[2] = {0, 0};
    TRY(op_write_q(m, zero));
    cc_set(m, PSL_Z | cpu_cc_c(&m->cpu));
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
    cc_set(m, cc_nz_bits(r, 4) | cpu_cc_c(&m->cpu));
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
    cc_set(m, cc_nz_bits(quo, 4) | (trap ? PSL_V : 0));
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
    uint32_t c = cpu_cc_c(&m->cpu);
    uint64_t wide;
    uint32_t r, cc;
    if (!subtract) {
        wide = (uint64_t)dst + src + c;
        r = (uint32_t)wide;
        cc = cc_nz_bits(r, 4) | ((wide >> 32) ? PSL_C : 0);
        if ((~(src ^ dst) & (src ^ r)) & 0x80000000u)
            cc |= PSL_V;
    } else {
        r = dst - src - c;
        cc = cc_nz_bits(r, 4) | (((uint64_t)src + c > dst) ? PSL_C : 0);
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
    uint32_t cc;
    uint32_t r = alu(ALU_ADD, 2, src, dst, &cc);
    TRY(loc_write(m, &l, 2, r));
    return alu_commit(m, ALU_ADD, 2, src, r, cc);
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
    cc_set(m, cc_nz_bits(r, 4));
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
    uint32_t psl = cpu_psl(&m->cpu);   /* the mask may name N Z V C as well as T and the enables */
    cpu_store_psl(&m->cpu, set ? psl | mask : psl & ~mask);
    if (mask & PSL_T)
        cpu_interrupts_changed(m);
    return 0;
}

/* Any integer opcode.  The bodies from exec_integer.h run here in the
 * checked form of the decoding context (see decode.h). */
int exec_integer(vax_machine *m, int opcode)
{
    dctx dd = dc_checked(m);
    dctx *d = &dd;
    switch (opcode) {
    case 0x01: return 0;   /* NOP */
    case 0x80: return op2(d, ALU_ADD, 1);
    case 0x81: return op3(d, ALU_ADD, 1);
    case 0x82: return op2(d, ALU_SUB, 1);
    case 0x83: return op3(d, ALU_SUB, 1);
    case 0x84: return op2(d, ALU_MUL, 1);
    case 0x85: return op3(d, ALU_MUL, 1);
    case 0x86: return op2(d, ALU_DIV, 1);
    case 0x87: return op3(d, ALU_DIV, 1);
    case 0x88: return op2(d, ALU_BIS, 1);
    case 0x89: return op3(d, ALU_BIS, 1);
    case 0x8A: return op2(d, ALU_BIC, 1);
    case 0x8B: return op3(d, ALU_BIC, 1);
    case 0x8C: return op2(d, ALU_XOR, 1);
    case 0x8D: return op3(d, ALU_XOR, 1);
    case 0x8E: return op_mneg(d, 1);
    case 0xA0: return op2(d, ALU_ADD, 2);
    case 0xA1: return op3(d, ALU_ADD, 2);
    case 0xA2: return op2(d, ALU_SUB, 2);
    case 0xA3: return op3(d, ALU_SUB, 2);
    case 0xA4: return op2(d, ALU_MUL, 2);
    case 0xA5: return op3(d, ALU_MUL, 2);
    case 0xA6: return op2(d, ALU_DIV, 2);
    case 0xA7: return op3(d, ALU_DIV, 2);
    case 0xA8: return op2(d, ALU_BIS, 2);
    case 0xA9: return op3(d, ALU_BIS, 2);
    case 0xAA: return op2(d, ALU_BIC, 2);
    case 0xAB: return op3(d, ALU_BIC, 2);
    case 0xAC: return op2(d, ALU_XOR, 2);
    case 0xAD: return op3(d, ALU_XOR, 2);
    case 0xAE: return op_mneg(d, 2);
    case 0xC0: return op2(d, ALU_ADD, 4);
    case 0xC1: return op3(d, ALU_ADD, 4);
    case 0xC2: return op2(d, ALU_SUB, 4);
    case 0xC3: return op3(d, ALU_SUB, 4);
    case 0xC4: return op2(d, ALU_MUL, 4);
    case 0xC5: return op3(d, ALU_MUL, 4);
    case 0xC6: return op2(d, ALU_DIV, 4);
    case 0xC7: return op3(d, ALU_DIV, 4);
    case 0xC8: return op2(d, ALU_BIS, 4);
    case 0xC9: return op3(d, ALU_BIS, 4);
    case 0xCA: return op2(d, ALU_BIC, 4);
    case 0xCB: return op3(d, ALU_BIC, 4);
    case 0xCC: return op2(d, ALU_XOR, 4);
    case 0xCD: return op3(d, ALU_XOR, 4);
    case 0xCE: return op_mneg(d, 4);
    case 0x90: return op_mov(d, 1);
    case 0x91: return op_cmp(d, 1);
    case 0x92: return op_mcom(d, 1);
    case 0x93: return op_bit(d, 1);
    case 0x94: return op_clr(d, 1);
    case 0x95: return op_tst(d, 1);
    case 0x96: return op_incdec(d, ALU_ADD, 1);
    case 0x97: return op_incdec(d, ALU_SUB, 1);
    case 0xB0: return op_mov(d, 2);
    case 0xB1: return op_cmp(d, 2);
    case 0xB2: return op_mcom(d, 2);
    case 0xB3: return op_bit(d, 2);
    case 0xB4: return op_clr(d, 2);
    case 0xB5: return op_tst(d, 2);
    case 0xB6: return op_incdec(d, ALU_ADD, 2);
    case 0xB7: return op_incdec(d, ALU_SUB, 2);
    case 0xD0: return op_mov(d, 4);
    case 0xD1: return op_cmp(d, 4);
    case 0xD2: return op_mcom(d, 4);
    case 0xD3: return op_bit(d, 4);
    case 0xD4: return op_clr(d, 4);
    case 0xD5: return op_tst(d, 4);
    case 0xD6: return op_incdec(d, ALU_ADD, 4);
    case 0xD7: return op_incdec(d, ALU_SUB, 4);
    case 0x98: return op_cvt(d, 1, 4);
    case 0x99: return op_cvt(d, 1, 2);
    case 0x32: return op_cvt(d, 2, 4);
    case 0x33: return op_cvt(d, 2, 1);
    case 0xF6: return op_cvt(d, 4, 1);
    case 0xF7: return op_cvt(d, 4, 2);
    case 0x9A: return op_movz(d, 1, 4);
    case 0x9B: return op_movz(d, 1, 2);
    case 0x3C: return op_movz(d, 2, 4);
    case 0x9E: return op_mova(d, 1);
    case 0x3E: return op_mova(d, 2);
    case 0xDE: return op_mova(d, 4);
    case 0x7E: return op_mova(d, 8);
    case 0x9F: return op_pusha(d, 1);
    case 0x3F: return op_pusha(d, 2);
    case 0xDF: return op_pusha(d, 4);
    case 0x7F: return op_pusha(d, 8);
    case 0xDD: return op_pushl(d);
    case 0x7C: return op_clrq(m);
    case 0x7D: return op_movq(d);
    case 0x9C: return op_rotl(m);
    case 0x78: return op_ashl(d);
    case 0x79: return op_ashq(m);
    case 0x7A: return op_emul(m);
    case 0x7B: return op_ediv(m);
    case 0xD8: return op_adwc_sbwc(m, 0);
    case 0xD9: return op_adwc_sbwc(m, 1);
    case 0x58: return op_adawi(m);
    case 0x0A: return op_index(m);
    case 0xDC: return op_write(m, 4, cpu_psl(&m->cpu));   /* MOVPSL: CCs unchanged */
    case 0xB8: return op_psw(m, 1);
    case 0xB9: return op_psw(m, 0);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
