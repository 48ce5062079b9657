/*
 * exec_branch.c — conditional and unconditional branches, subroutine
 * linkage (BSBB/BSBW/JSB/RSB, JMP), the loop instructions (ACBx, AOBxxx,
 * SOBxxx) and CASEx.
 *
 * The bodies of the frequent ones are in exec_branch.h (execute.c expands
 * those opcodes inline); this file has ACBx and CASEx, and the group
 * function that runs any branch opcode.
 */
#include "cpu/exec_branch.h"

/* ACBx limit, add, index, displacement (word). */
static int op_acb(vax_machine *m, int size)
{
    uint32_t limit, add, idx, d;
    oploc l;
    TRY(op_read(m, size, &limit));
    TRY(op_read(m, size, &add));
    TRY(op_loc(m, size, &l));
    TRY(loc_read(m, &l, size, &idx));
    TRY(op_branch_w(m, &d));
    uint32_t mask = size_mask(size), sb = size == 1 ? 0x80u : size == 2 ? 0x8000u : 0x80000000u;
    uint32_t r = (idx + add) & mask;
    TRY(loc_write(m, &l, size, r));
    uint32_t cc = cc_nz_bits(r, size) | cpu_cc_c(&m->cpu);
    if ((~(idx ^ add) & (add ^ r)) & sb)
        cc |= PSL_V;
    cc_set(m, cc);
    if (cc & PSL_V)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    int32_t sr = (int32_t)sign_extend(r, size), sl = (int32_t)sign_extend(limit, size);
    int take = (add & sb) ? sr >= sl : sr <= sl;
    if (take)
        m->cpu.r[15] += d;
    return 0;
}

/* CASEx selector, base, limit, then (limit+1) word displacements. */
static int op_case(vax_machine *m, int size)
{
    uint32_t sel, base, limit;
    TRY(op_read(m, size, &sel));
    TRY(op_read(m, size, &base));
    TRY(op_read(m, size, &limit));
    uint32_t mask = size_mask(size);
    uint32_t tmp = (sel - base) & mask;
    uint32_t cc = 0;
    if ((int32_t)sign_extend(tmp, size) < (int32_t)sign_extend(limit, size))
        cc |= PSL_N;
    if (tmp == limit)
        cc |= PSL_Z;
    if (tmp < limit)
        cc |= PSL_C;
    uint32_t table = m->cpu.r[15];
    if (tmp <= limit) {
        uint32_t d;
        TRY(mem_read_w(m, table + 2 * tmp, &d));
        m->cpu.r[15] = table + sign_extend(d, 2);
    } else {
        m->cpu.r[15] = table + 2 * (limit + 1);
    }
    cc_set(m, cc);
    return 0;
}

/* Any branch opcode.  The bodies from exec_branch.h run here in the
 * checked form of the decoding context (see decode.h). */
int exec_branch(vax_machine *m, int opcode)
{
    dctx d = dc_checked(m);
    switch (opcode) {
    case 0x11: return branch_b(&d, 1);   /* BRB */
    case 0x31: return branch_w(&d, 1);   /* BRW */
    case 0x12: case 0x13: case 0x14: case 0x15: case 0x18: case 0x19: case 0x1A: case 0x1B:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F:
        return op_bcond(&d, opcode);
    case 0x10: return op_bsb(&d, 1);
    case 0x30: return op_bsb(&d, 2);
    case 0x16: return op_jsb(&d);
    case 0x17: return op_jmp(&d);
    case 0x05: return op_rsb(&d);
    case 0x9D: return op_acb(m, 1);
    case 0x3D: return op_acb(m, 2);
    case 0xF1: return op_acb(m, 4);
    case 0xF2: return op_aob(&d, 0);
    case 0xF3: return op_aob(&d, 1);
    case 0xF4: return op_sob(&d, 0);
    case 0xF5: return op_sob(&d, 1);
    case 0x8F: return op_case(m, 1);
    case 0xAF: return op_case(m, 2);
    case 0xCF: return op_case(m, 4);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
