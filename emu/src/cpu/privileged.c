/*
 * privileged.c — the processor registers (MTPR/MFPR), mode changes
 * (CHMx, REI), process context (LDPCTX/SVPCTX), PROBER/PROBEW, HALT, BPT
 * and XFC.
 */
#include "mmu/mmu.h"
#include "profile/profile.h"
#include "cpu/exec_privileged.h"

static int is_kernel(const vax_machine *m) { return PSL_GET_CUR(m->cpu.psl_without_cc) == MODE_KERNEL; }

/* The stack pointer registers: the live one is R14. */
static uint32_t *sp_register(vax_machine *m, int slot)
{
    return psl_sp_slot(m->cpu.psl_without_cc) == slot ? &m->cpu.r[14] : &m->cpu.sp_save[slot];
}

int cpu_mtpr(vax_machine *m, uint32_t ipr, uint32_t v)
{
    vax_cpu *c = &m->cpu;
    if (ipr >= IPR_COUNT)
        return VAX_EXC_RESERVED_OPERAND;
    switch (ipr) {
    case IPR_KSP: case IPR_ESP: case IPR_SSP: case IPR_USP: case IPR_ISP:
        *sp_register(m, (int)ipr) = v;
        return 0;
    case IPR_P0BR: c->p0br = v & ~3u; mmu_flush_process(m); return 0;
    case IPR_P0LR: c->p0lr = v & 0x3FFFFFu; mmu_flush_process(m); return 0;
    case IPR_P1BR: c->p1br = v & ~3u; mmu_flush_process(m); return 0;
    case IPR_P1LR: c->p1lr = v & 0x3FFFFFu; mmu_flush_process(m); return 0;
    case IPR_SBR: c->sbr = v & 0x3FFFFFFCu; mmu_flush_all(m); return 0;
    case IPR_SLR: c->slr = v & 0x3FFFFFu; mmu_flush_all(m); return 0;
    case IPR_PCBB: c->pcbb = v & 0x3FFFFFFCu; return 0;
    case IPR_SCBB: c->scbb = v & 0x3FFFFE00u; return 0;
    case IPR_IPL:
        c->psl_without_cc = (c->psl_without_cc & ~PSL_IPL) | ((v & 31) << PSL_IPL_SHIFT);
        cpu_ipl_written(m);
        return 0;
    case IPR_ASTLVL:
        if (v > 4)   /* 0..3 a mode, 4 none; the rest is reserved (simh agrees) */
            return VAX_EXC_RESERVED_OPERAND;
        c->astlvl = v;
        return 0;
    case IPR_SIRR:
        if (v & 15) {
            c->sisr |= 1u << (v & 15);
            cpu_interrupts_changed(m);
        }
        return 0;
    case IPR_SISR: c->sisr = v & 0xFFFEu; cpu_interrupts_changed(m); return 0;
    case IPR_MAPEN: c->mapen = v & 1; mmu_flush_all(m); return 0;
    case IPR_TBIA: m->stats.tbia++; mmu_flush_all(m); return 0;
    case IPR_TBIS: m->stats.tbis++; mmu_flush_single(m, v); return 0;
    case IPR_SID: return VAX_EXC_RESERVED_OPERAND;   /* read-only */
    default:
        if (m->ipr_write_ext && m->ipr_write_ext(m, (int)ipr, v))
            return 0;
        c->ipr_misc[ipr] = v;
        return 0;
    }
}

int cpu_mfpr(vax_machine *m, uint32_t ipr, uint32_t *v)
{
    vax_cpu *c = &m->cpu;
    if (ipr >= IPR_COUNT)
        return VAX_EXC_RESERVED_OPERAND;
    switch (ipr) {
    case IPR_KSP: case IPR_ESP: case IPR_SSP: case IPR_USP: case IPR_ISP:
        *v = *sp_register(m, (int)ipr);
        return 0;
    case IPR_P0BR: *v = c->p0br; return 0;
    case IPR_P0LR: *v = c->p0lr; return 0;
    case IPR_P1BR: *v = c->p1br; return 0;
    case IPR_P1LR: *v = c->p1lr; return 0;
    case IPR_SBR: *v = c->sbr; return 0;
    case IPR_SLR: *v = c->slr; return 0;
    case IPR_PCBB: *v = c->pcbb; return 0;
    case IPR_SCBB: *v = c->scbb; return 0;
    case IPR_IPL: *v = PSL_GET_IPL(c->psl_without_cc); return 0;
    case IPR_ASTLVL: *v = c->astlvl; return 0;
    case IPR_SIRR: case IPR_TBIA: case IPR_TBIS:
        return VAX_EXC_RESERVED_OPERAND;   /* write-only */
    case IPR_SISR: *v = c->sisr; return 0;
    case IPR_MAPEN: *v = c->mapen; return 0;
    case IPR_SID: *v = VAX780_SID; return 0;
    default:
        if (m->ipr_read_ext && m->ipr_read_ext(m, (int)ipr, v))
            return 0;
        *v = c->ipr_misc[ipr];
        return 0;
    }
}

static int op_rei(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t pc, psl;
    TRY(mem_read_l(m, c->r[14], &pc));
    TRY(mem_read_l(m, c->r[14] + 4, &psl));
    uint32_t old = c->psl_without_cc;
    int oldcur = (int)PSL_GET_CUR(old), newcur = (int)PSL_GET_CUR(psl);
    uint32_t newipl = PSL_GET_IPL(psl);
    if ((psl & PSL_MBZ) || newcur < oldcur || (int)PSL_GET_PRV(psl) < newcur ||
        newipl > PSL_GET_IPL(old) || (newcur != MODE_KERNEL && newipl != 0) ||
        ((psl & PSL_IS) && (!(old & PSL_IS) || newcur != MODE_KERNEL || newipl == 0)) ||
        ((psl & PSL_CM) && ((psl & (PSL_FPD | PSL_IS | PSL_DV | PSL_FU | PSL_IV)) || newcur != MODE_USER)))
        return VAX_EXC_RESERVED_OPERAND;
    uint32_t key = c->r[14];   /* for the profiler: where the saved PC was */
    c->r[14] += 8;
    m->stats.rei++;
    /* A trace pending for the REI itself survives into the new PSL, so the
     * REI is traced like any other instruction. */
    cpu_set_psl_in_rei(m, psl | (old & PSL_TP));
    c->r[15] = (psl & PSL_CM) ? pc & 0xFFFFu : pc;   /* the PDP-11's PC is 16 bits (compat.c) */
    if (!(psl & PSL_IS) && (uint32_t)newcur >= c->astlvl)
        c->sisr |= 1u << 2;   /* deliver the AST through IPL 2 */
    ib_invalidate(m);
    cpu_ipl_written(m);   /* (a change of the trace bits has stopped the loop already: cpu_set_psl_in_rei) */
    if (UNLIKELY(m->prof != NULL))
        profile_rei(m, key, psl_sp_slot(old));
    return 0;
}

/* The PCB, at physical PCBB. */
enum {
    PCB_KSP = 0, PCB_R0 = 16, PCB_AP = 64, PCB_FP = 68, PCB_PC = 72, PCB_PSL = 76,
    PCB_P0BR = 80, PCB_P0LR = 84, PCB_P1BR = 88, PCB_P1LR = 92, PCB_LONGS = 24
};

/* LDPCTX switches to the kernel stack (saving the ISP when called on the
 * interrupt stack, as 4.3BSD does) and pushes the PCB's PC and PSL there
 * after the new process map is loaded: the kernel stack may be in P1
 * space (the u area). */
static int op_ldpctx(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t pcb[PCB_LONGS];
    for (int i = 0; i < PCB_LONGS; i++)
        TRY(phys_read_l(m, c->pcbb + 4u * (uint32_t)i, &pcb[i]));
    if (c->psl_without_cc & PSL_IS)
        cpu_set_psl_in_instruction(m, cpu_psl(c) & ~PSL_IS);
    for (int i = 1; i < 4; i++)
        c->sp_save[i] = pcb[i];
    for (int i = 0; i < 14; i++)
        c->r[i] = pcb[PCB_R0 / 4 + i];
    c->p0br = pcb[PCB_P0BR / 4] & ~3u;
    c->p0lr = pcb[PCB_P0LR / 4] & 0x3FFFFFu;
    c->astlvl = (pcb[PCB_P0LR / 4] >> 24) & 7;
    c->p1br = pcb[PCB_P1BR / 4] & ~3u;
    c->p1lr = pcb[PCB_P1LR / 4] & 0x3FFFFFu;
    mmu_flush_process(m);
    uint32_t sp = pcb[PCB_KSP / 4];
    c->r[14] = sp;
    TRY(mem_write_mode(m, sp - 4, 4, MODE_KERNEL, pcb[PCB_PSL / 4]));
    TRY(mem_write_mode(m, sp - 8, 4, MODE_KERNEL, pcb[PCB_PC / 4]));
    c->r[14] = sp - 8;
    m->stats.ldpctx++;
    if (UNLIKELY(m->prof != NULL))
        profile_ldpctx(m);
    return 0;
}

static int op_svpctx(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t pc, psl;
    TRY(mem_read_l(m, c->r[14], &pc));
    TRY(mem_read_l(m, c->r[14] + 4, &psl));
    uint32_t pcb = c->pcbb;
    uint32_t sp_after = c->r[14] + 8;
    uint32_t ksp = (c->psl_without_cc & PSL_IS) ? c->sp_save[SP_KERNEL] : sp_after;
    TRY(phys_write_l(m, pcb + PCB_KSP, ksp));
    for (int i = 1; i < 4; i++)
        TRY(phys_write_l(m, pcb + 4u * (uint32_t)i, c->sp_save[i]));
    for (int i = 0; i < 14; i++)
        TRY(phys_write_l(m, pcb + PCB_R0 + 4u * (uint32_t)i, c->r[i]));
    TRY(phys_write_l(m, pcb + PCB_PC, pc));
    TRY(phys_write_l(m, pcb + PCB_PSL, psl));
    c->r[14] = sp_after;
    if (!(c->psl_without_cc & PSL_IS)) {
        uint32_t ipl = PSL_GET_IPL(c->psl_without_cc);
        uint32_t np = (cpu_psl(c) & ~PSL_IPL) | PSL_IS | ((ipl < 1 ? 1 : ipl) << PSL_IPL_SHIFT);
        cpu_set_psl_in_instruction(m, np);
    }
    m->stats.svpctx++;
    return 0;
}

static int op_probe(vax_machine *m, int write)
{
    uint32_t mode, len, base;
    TRY(op_read(m, 1, &mode));
    TRY(op_read(m, 2, &len));
    TRY(op_addr(m, 1, &base));
    int pmode = (int)(mode & 3), prv = (int)PSL_GET_PRV(m->cpu.psl_without_cc);
    if (prv > pmode)
        pmode = prv;
    int ok1, ok2 = 1;
    TRY(mmu_probe(m, base, pmode, write, &ok1));
    if (len != 1)   /* the last byte is base + len - 1, so base - 1 for a length of 0 */
        TRY(mmu_probe(m, base + len - 1, pmode, write, &ok2));
    cc_set(m, (ok1 && ok2 ? 0 : PSL_Z) | cpu_cc_c(&m->cpu));
    return 0;
}

int exec_privileged(vax_machine *m, int opcode)
{
    uint32_t code;
    switch (opcode) {
    case 0x00:   /* HALT */
        return is_kernel(m) ? VAX_EXC_HALT : VAX_EXC_PRIVILEGED_INSTRUCTION;
    case 0x03: return VAX_EXC_BREAKPOINT;
    case 0xFC: return VAX_EXC_CUSTOMER_RESERVED;
    case 0x02: return op_rei(m);
    case 0x0C: return op_probe(m, 0);
    case 0x0D: return op_probe(m, 1);
    case 0xBC: case 0xBD: case 0xBE: case 0xBF:
        TRY(op_read(m, 2, &code));
        return cpu_change_mode(m, opcode - 0xBC, sign_extend(code, 2));
    }
    if (!is_kernel(m))
        return VAX_EXC_PRIVILEGED_INSTRUCTION;
    switch (opcode) {
    case 0x06: return op_ldpctx(m);
    case 0x07: return op_svpctx(m);
    }
    /* MTPR and MFPR: their bodies (exec_privileged.h) in the checked form;
     * they check the mode themselves. */
    dctx d = dc_checked(m);
    switch (opcode) {
    case 0xDA: return op_mtpr(&d);
    case 0xDB: return op_mfpr(&d);
    }
    return VAX_EXC_RESERVED_INSTRUCTION;
}
