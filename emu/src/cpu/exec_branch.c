/*
 * exec_branch.c — conditional and unconditional branches, subroutine
 * linkage (BSBB/BSBW/JSB/RSB, JMP), the loop instructions (ACBx, AOBxxx,
 * SOBxxx) and CASEx.
 */
#include "exec.h"

/* Is the branch condition of opcode 0x12..0x1F true for these CCs? */
ALWAYS_INLINE int condition(int opcode, uint32_t psl)
{
    uint32_t n = (psl >> 3) & 1, z = (psl >> 2) & 1, v = (psl >> 1) & 1, c = psl & 1;
    switch (opcode) {
    case 0x12: return !z;
    case 0x13: return z;
    case 0x14: return !(n | z);
    case 0x15: return n | z;
    case 0x18: return !n;
    case 0x19: return n;
    case 0x1A: return !(c | z);
    case 0x1B: return c | z;
    case 0x1C: return !v;
    case 0x1D: return v;
    case 0x1E: return !c;
    default: return c;   /* 0x1F BLSSU */
    }
}

static inline int push_l(vax_machine *m, uint32_t v)
{
    TRY(mem_write_l(m, m->cpu.r[14] - 4, v));
    m->cpu.r[14] -= 4;
    return 0;
}

static int op_bsb(vax_machine *m, int size)
{
    uint32_t d = 0;
    TRY(size == 1 ? op_branch_b(m, &d) : op_branch_w(m, &d));
    uint32_t ret = m->cpu.r[15];
    TRY(push_l(m, ret));
    m->cpu.r[15] = ret + d;
    return 0;
}

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
    uint32_t cc = cc_nz(r, size) | (m->cpu.psl & PSL_C);
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

/* AOBLSS/AOBLEQ limit, index, displacement (byte). */
static int op_aob(vax_machine *m, int le)
{
    uint32_t limit, idx, d;
    oploc l;
    TRY(op_read(m, 4, &limit));
    TRY(op_loc(m, 4, &l));
    TRY(loc_read(m, &l, 4, &idx));
    TRY(op_branch_b(m, &d));
    uint32_t r = idx + 1;
    TRY(loc_write(m, &l, 4, r));
    uint32_t cc = cc_nz(r, 4) | (m->cpu.psl & PSL_C);
    if (r == 0x80000000u)
        cc |= PSL_V;
    cc_set(m, cc);
    if (cc & PSL_V)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    if (le ? (int32_t)r <= (int32_t)limit : (int32_t)r < (int32_t)limit)
        m->cpu.r[15] += d;
    return 0;
}

/* SOBGEQ/SOBGTR index, displacement (byte). */
static int op_sob(vax_machine *m, int gtr)
{
    uint32_t idx, d;
    oploc l;
    TRY(op_loc(m, 4, &l));
    TRY(loc_read(m, &l, 4, &idx));
    TRY(op_branch_b(m, &d));
    uint32_t r = idx - 1;
    TRY(loc_write(m, &l, 4, r));
    uint32_t cc = cc_nz(r, 4) | (m->cpu.psl & PSL_C);
    if (r == 0x7FFFFFFFu)
        cc |= PSL_V;
    cc_set(m, cc);
    if (cc & PSL_V)
        cpu_set_trap(m, ARITH_INT_OVERFLOW);
    if (gtr ? (int32_t)r > 0 : (int32_t)r >= 0)
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

int exec_branch(vax_machine *m, int opcode)
{
    uint32_t d, a;
    switch (opcode) {
    case 0x11:   /* BRB */
        TRY(op_branch_b(m, &d));
        m->cpu.r[15] += d;
        return 0;
    case 0x31:   /* BRW */
        TRY(op_branch_w(m, &d));
        m->cpu.r[15] += d;
        return 0;
    case 0x12: case 0x13: case 0x14: case 0x15: case 0x18: case 0x19: case 0x1A: case 0x1B:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F:
        TRY(op_branch_b(m, &d));
        if (condition(opcode, m->cpu.psl))
            m->cpu.r[15] += d;
        return 0;
    case 0x10: return op_bsb(m, 1);
    case 0x30: return op_bsb(m, 2);
    case 0x16:   /* JSB */
        TRY(op_addr(m, 1, &a));
        TRY(push_l(m, m->cpu.r[15]));
        m->cpu.r[15] = a;
        return 0;
    case 0x17:   /* JMP */
        TRY(op_addr(m, 1, &a));
        m->cpu.r[15] = a;
        return 0;
    case 0x05:   /* RSB */
        TRY(mem_read_l(m, m->cpu.r[14], &a));
        m->cpu.r[14] += 4;
        m->cpu.r[15] = a;
        return 0;
    case 0x9D: return op_acb(m, 1);
    case 0x3D: return op_acb(m, 2);
    case 0xF1: return op_acb(m, 4);
    case 0xF2: return op_aob(m, 0);
    case 0xF3: return op_aob(m, 1);
    case 0xF4: return op_sob(m, 0);
    case 0xF5: return op_sob(m, 1);
    case 0x8F: return op_case(m, 1);
    case 0xAF: return op_case(m, 2);
    case 0xCF: return op_case(m, 4);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
