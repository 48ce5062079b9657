/*
 * exec_branch.h — bodies of the frequent control-transfer instructions:
 * conditional branches, BRB/BRW, BSBx/JSB/RSB, JMP and the AOB/SOB loop
 * instructions.  Inline so that execute.c's dispatch switch expands them
 * in place (PC in a register: see dctx in decode.h); exec_branch.c builds
 * every branch opcode from the same bodies for the group path, and has
 * the rest (ACBx, CASEx).
 */
#ifndef VAX_EXEC_BRANCH_H
#define VAX_EXEC_BRANCH_H

#include "profile/profile.h"
#include "cpu/exec.h"

/* Is the branch condition of opcode 0x12..0x1F true for the current
 * CCs?  Read straight from the parts of the PSL that hold them (cpu.h,
 * vax_cpu): N is cc_nz < 0, Z is cc_nz's low 32 bits zero, and, because
 * a positive cc_nz never has those zero, neither N nor Z is cc_nz > 0. */
ALWAYS_INLINE int condition(int opcode, const vax_cpu *cpu)
{
    int64_t nz = cpu->cc_nz;
    int z = (uint32_t)nz == 0;
    switch (opcode) {
    case 0x12: return !z;
    case 0x13: return z;
    case 0x14: return nz > 0;    /* BGTR: !(N | Z) */
    case 0x15: return nz <= 0;   /* BLEQ: N | Z */
    case 0x18: return nz >= 0;   /* BGEQ: !N */
    case 0x19: return nz < 0;    /* BLSS: N */
    case 0x1A: return !(cpu->cc_c | (uint32_t)z);
    case 0x1B: return (cpu->cc_c | (uint32_t)z) != 0;
    case 0x1C: return !cpu->cc_v;
    case 0x1D: return cpu->cc_v != 0;
    case 0x1E: return !cpu->cc_c;
    default: return cpu->cc_c != 0;   /* 0x1F BLSSU */
    }
}

/* Fetch a displacement and branch by it if `taken`.  The displacement is
 * fetched either way: its fetch can fault. */
ALWAYS_INLINE int branch_b(dctx *d, int taken)
{
    uint32_t disp;
    TRY(dc_branch_b(d, &disp));
    if (taken)
        d->pc += disp;
    return dc_done(d);
}

ALWAYS_INLINE int branch_w(dctx *d, int taken)
{
    uint32_t disp;
    TRY(dc_branch_w(d, &disp));
    if (taken)
        d->pc += disp;
    return dc_done(d);
}

/* Bxx: the condition of the opcode on the current CCs. */
ALWAYS_INLINE int op_bcond(dctx *d, int opcode)
{
    return branch_b(d, condition(opcode, &d->m->cpu));
}

ALWAYS_INLINE int op_bsb(dctx *d, int size)
{
    uint32_t disp;
    TRY(size == 1 ? dc_branch_b(d, &disp) : dc_branch_w(d, &disp));
    TRY(push_l(d->m, d->pc));
    d->pc += disp;
    if (UNLIKELY(d->m->prof != NULL))
        profile_call(d->m, d->pc, d->m->cpu.r[14], 1);
    return dc_done(d);
}

ALWAYS_INLINE int op_jsb(dctx *d)
{
    uint32_t a;
    TRY(dc_addr(d, 1, &a));
    TRY(push_l(d->m, d->pc));
    d->pc = a;
    if (UNLIKELY(d->m->prof != NULL))
        profile_call(d->m, a, d->m->cpu.r[14], 1);
    return dc_done(d);
}

ALWAYS_INLINE int op_jmp(dctx *d)
{
    uint32_t a;
    TRY(dc_addr(d, 1, &a));
    d->pc = a;
    return dc_done(d);
}

ALWAYS_INLINE int op_rsb(dctx *d)
{
    vax_machine *m = d->m;
    uint32_t a;
    TRY(mem_read_l(m, m->cpu.r[14], &a));
    m->cpu.r[14] += 4;
    d->pc = a;
    if (UNLIKELY(m->prof != NULL))
        profile_return(m, m->cpu.r[14] - 4, a);
    return dc_done(d);
}

/* AOBLSS/AOBLEQ limit, index, displacement (byte). */
ALWAYS_INLINE int op_aob(dctx *d, int le)
{
    uint32_t limit, idx, disp;
    modloc l;
    TRY(dc_read(d, 4, &limit));
    TRY(dc_modify(d, 4, &l, &idx));
    TRY(dc_branch_b(d, &disp));
    uint32_t r = idx + 1;
    TRY(mod_write(d->m, &l, 4, r));
    uint32_t v_bit = 0;
    int st = VAX_OK;
    if (UNLIKELY(r == 0x80000000u)) {
        v_bit = PSL_V;
        st = cpu_trap_status(d->m, ARITH_INT_OVERFLOW);
    }
    cc_result_keep_c(d->m, r, 4, v_bit);
    if (le ? (int32_t)r <= (int32_t)limit : (int32_t)r < (int32_t)limit)
        d->pc += disp;
    dc_done(d);
    return st;
}

/* SOBGEQ/SOBGTR index, displacement (byte). */
ALWAYS_INLINE int op_sob(dctx *d, int gtr)
{
    uint32_t idx, disp;
    modloc l;
    TRY(dc_modify(d, 4, &l, &idx));
    TRY(dc_branch_b(d, &disp));
    uint32_t r = idx - 1;
    TRY(mod_write(d->m, &l, 4, r));
    uint32_t v_bit = 0;
    int st = VAX_OK;
    if (UNLIKELY(r == 0x7FFFFFFFu)) {
        v_bit = PSL_V;
        st = cpu_trap_status(d->m, ARITH_INT_OVERFLOW);
    }
    cc_result_keep_c(d->m, r, 4, v_bit);
    if (gtr ? (int32_t)r > 0 : (int32_t)r >= 0)
        d->pc += disp;
    dc_done(d);
    return st;
}

#endif
