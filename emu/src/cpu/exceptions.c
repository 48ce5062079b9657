/*
 * exceptions.c — faults, traps, aborts and interrupts: undoing a faulting
 * instruction, pushing the exception frame, switching stacks and modes,
 * and vectoring through the system control block.
 */
#include <stdio.h>

#include "mmu/mmu.h"
#include "profile/profile.h"
#include "cpu/exec.h"

/* SCB offsets. */
enum {
    SCB_MACHINE_CHECK = 0x04, SCB_KERNEL_STACK_NOT_VALID = 0x08, SCB_RESERVED_INSTRUCTION = 0x10,
    SCB_CUSTOMER_RESERVED = 0x14, SCB_RESERVED_OPERAND = 0x18, SCB_RESERVED_ADDRESSING_MODE = 0x1C,
    SCB_ACCESS_VIOLATION = 0x20, SCB_TRANSLATION_NOT_VALID = 0x24, SCB_TRACE = 0x28,
    SCB_BREAKPOINT = 0x2C, SCB_COMPATIBILITY = 0x30, SCB_ARITHMETIC = 0x34
};

void cpu_restore_for_fault(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    /* In compatibility mode the steps were made to the registers' low 16
     * bits alone, wrapping there (cpu/compat.h). */
    uint32_t keep = (c->psl_without_cc & PSL_CM) ? 0xFFFF0000u : 0;
    while (c->rlog_n > 0) {
        c->rlog_n--;
        uint32_t *r = &c->r[c->rlog_reg[c->rlog_n]];
        uint32_t undone = *r - (uint32_t)(int32_t)c->rlog_delta[c->rlog_n];
        *r = (*r & keep) | (undone & ~keep);
    }
    c->r[15] = c->instr_pc;
}

void cpu_interrupts_changed(vax_machine *m)
{
    m->run_limit = 0;
}

/* The PSL change, with the instruction count from which the statistics
 * charge the new mode (its stack slot is also its accounting slot). */
static void set_psl_at(vax_machine *m, uint32_t newpsl, uint64_t boundary, uint32_t stop_bits)
{
    vax_cpu *c = &m->cpu;
    uint32_t old = c->psl_without_cc;
    int old_slot = psl_sp_slot(old), new_slot = psl_sp_slot(newpsl);
    if (old_slot != new_slot) {
        c->sp_save[old_slot] = c->r[14];
        c->r[14] = c->sp_save[new_slot];
    }
    if (new_slot != m->acct_slot)
        machine_account_mode(m, new_slot, boundary);
    cpu_store_psl(c, newpsl);
    if ((old ^ newpsl) & PSL_CUR)
        ib_invalidate(m);   /* the fetch shortcut was checked for the old mode */
    if ((old ^ newpsl) & stop_bits)
        cpu_interrupts_changed(m);
}

void cpu_set_psl(vax_machine *m, uint32_t newpsl)
{
    set_psl_at(m, newpsl, m->icount, PSL_IPL | PSL_T | PSL_TP);
}

void cpu_set_psl_in_instruction(vax_machine *m, uint32_t newpsl)
{
    set_psl_at(m, newpsl, m->icount + 1, PSL_IPL | PSL_T | PSL_TP);
}

void cpu_set_psl_in_rei(vax_machine *m, uint32_t newpsl)
{
    set_psl_at(m, newpsl, m->icount + 1, PSL_T | PSL_TP);
}

/* Push the frame: params[0] ends up on top of the stack, then PC, PSL. */
static int push_frame(vax_machine *m, uint32_t old_psl, uint32_t pc, int nparam, const uint32_t *params)
{
    uint32_t sp = m->cpu.r[14];
    TRY(mem_write_mode(m, sp - 4, 4, MODE_KERNEL, old_psl));
    TRY(mem_write_mode(m, sp - 8, 4, MODE_KERNEL, pc));
    sp -= 8;
    for (int i = nparam - 1; i >= 0; i--) {
        sp -= 4;
        TRY(mem_write_mode(m, sp, 4, MODE_KERNEL, params[i]));
    }
    m->cpu.r[14] = sp;
    return 0;
}

static int read_vector(vax_machine *m, uint32_t scb_offset, uint32_t *vec)
{
    if (phys_read_l(m, (m->cpu.scbb & ~3u) + scb_offset, vec)) {
        machine_set_stop(m, VAX_STOP_DOUBLE_FAULT, "cannot read SCB vector %03X (SCBB %08X)", scb_offset,
                         m->cpu.scbb);
        return VAX_EXC_FATAL;
    }
    if ((*vec & 3) >= 2) {
        machine_set_stop(m, VAX_STOP_SCB_HALT, "SCB vector %03X = %08X: code %u halts the processor",
                         scb_offset, *vec, *vec & 3);
        return VAX_EXC_FATAL;
    }
    return 0;
}

/* Common tail: switch to the new PSL's stack, push, vector.  interrupt:
 * for the profiler, an interrupt rather than an exception. */
static int enter(vax_machine *m, uint32_t scb_offset, uint32_t newpsl, uint32_t old_psl, uint32_t pc,
                 int nparam, const uint32_t *params, uint32_t vec, int interrupt)
{
    vax_cpu *c = &m->cpu;
    uint32_t saved_sp[5];
    memcpy(saved_sp, c->sp_save, sizeof saved_sp);
    uint32_t saved_r14 = c->r[14];
    m->cost += m->tm.exception;   /* timing.h: the microcode's entry sequence */
    cpu_set_psl(m, newpsl);
    if (push_frame(m, old_psl, pc, nparam, params) != 0) {
        /* The new stack is not usable.  On the kernel stack this is the
         * "kernel stack not valid" abort, taken on the interrupt stack;
         * on the interrupt stack the 780 halts. */
        if ((newpsl & PSL_IS) || scb_offset == SCB_KERNEL_STACK_NOT_VALID) {
            machine_set_stop(m, VAX_STOP_DOUBLE_FAULT,
                             "interrupt stack not valid (SP %08X) taking SCB %03X at PC %08X", c->r[14],
                             scb_offset, pc);
            return VAX_EXC_FATAL;
        }
        uint32_t ksnv;
        m->stats.exc_other++;   /* the kernel-stack-not-valid abort */
        memcpy(c->sp_save, saved_sp, sizeof saved_sp);
        c->r[14] = saved_r14;
        cpu_store_psl(c, old_psl & ~PSL_TP);
        TRY(read_vector(m, SCB_KERNEL_STACK_NOT_VALID, &ksnv));
        uint32_t p = (old_psl & ~(PSL_IPL | PSL_CUR | PSL_PRV | PSL_CC | PSL_T | PSL_TP | PSL_FPD |
                                  PSL_DV | PSL_FU | PSL_IV | PSL_CM)) |
                     PSL_IS | (31u << PSL_IPL_SHIFT) | (PSL_GET_CUR(old_psl) << PSL_PRV_SHIFT);
        return enter(m, SCB_KERNEL_STACK_NOT_VALID, p, old_psl, pc, 0, NULL, ksnv, 0);
    }
    c->r[15] = vec & ~3u;
    ib_invalidate(m);
    if (UNLIKELY(m->prof != NULL))   /* its saved PC is above the parameters */
        profile_exception(m, scb_offset, vec & ~3u, c->r[14] + 4u * (uint32_t)nparam, old_psl, pc, interrupt,
                          m->icount);
    return 0;
}

static void count_exception(vax_machine *m, uint32_t scb_offset)
{
    vax_stats *st = &m->stats;
    switch (scb_offset) {
    case SCB_MACHINE_CHECK: st->mchk++; break;
    case SCB_ACCESS_VIOLATION: st->acv++; break;
    case SCB_TRANSLATION_NOT_VALID:
        if ((m->cpu.fault_va >> 30) == 2)
            st->tnv_system++;
        else
            st->tnv_process++;
        break;
    default: st->exc_other++; break;
    }
}

int cpu_take_exception(vax_machine *m, uint32_t scb_offset, int nparam, const uint32_t *params, uint32_t pc)
{
    vax_cpu *c = &m->cpu;
    uint32_t vec;
    count_exception(m, scb_offset);
    TRY(read_vector(m, scb_offset, &vec));
    uint32_t old = cpu_psl(c);
    uint32_t ipl = PSL_GET_IPL(old);
    int on_is = (old & PSL_IS) != 0;
    if (vec & 1) {
        on_is = 1;
        ipl = 31;
    }
    uint32_t newpsl = (PSL_GET_CUR(old) << PSL_PRV_SHIFT) | (ipl << PSL_IPL_SHIFT) | (on_is ? PSL_IS : 0);
    return enter(m, scb_offset, newpsl, old, pc, nparam, params, vec, 0);
}

/* Interrupts, like exceptions, use the interrupt stack only when the
 * vector's bit 0 asks for it (or when already on it): 4.3BSD services its
 * software interrupts (ASTs at IPL 2, for one) on the kernel stack.  The
 * previous mode of an interrupt's PSL is kernel. */
int cpu_take_interrupt(vax_machine *m, uint32_t scb_offset, int ipl)
{
    uint32_t vec;
    if (ipl >= 16)
        m->stats.intr_hw++;
    else
        m->stats.intr_soft++;
    m->stats.intr_vec[(scb_offset >> 2) & (VAX_STATS_NVEC - 1)]++;
    TRY(read_vector(m, scb_offset, &vec));
    uint32_t on_is = (vec & 1) ? PSL_IS : (m->cpu.psl_without_cc & PSL_IS);
    uint32_t newpsl = on_is | ((uint32_t)ipl << PSL_IPL_SHIFT);
    return enter(m, scb_offset, newpsl, cpu_psl(&m->cpu), m->cpu.r[15], 0, NULL, vec, 1);
}

/* A fault: the instruction is undone and the saved PC is its opcode's. */
static int fault(vax_machine *m, uint32_t scb_offset, int nparam, const uint32_t *params)
{
    cpu_restore_for_fault(m);
    m->cpu.psl_without_cc &= ~PSL_TP;   /* the restarted instruction traces itself */
    return cpu_take_exception(m, scb_offset, nparam, params, m->cpu.instr_pc);
}

int cpu_deliver(vax_machine *m, int status)
{
    vax_cpu *c = &m->cpu;
    uint32_t p[12];
    switch (status) {
    case VAX_OK:
        return 0;
    case VAX_EXC_RESERVED_INSTRUCTION:
    case VAX_EXC_PRIVILEGED_INSTRUCTION:
        return fault(m, SCB_RESERVED_INSTRUCTION, 0, NULL);
    case VAX_EXC_CUSTOMER_RESERVED:
        return fault(m, SCB_CUSTOMER_RESERVED, 0, NULL);
    case VAX_EXC_RESERVED_OPERAND:
        return fault(m, SCB_RESERVED_OPERAND, 0, NULL);
    case VAX_EXC_RESERVED_ADDRESSING_MODE:
        return fault(m, SCB_RESERVED_ADDRESSING_MODE, 0, NULL);
    case VAX_EXC_ACCESS_VIOLATION:
    case VAX_EXC_TRANSLATION_NOT_VALID:
        p[0] = c->fault_param;
        p[1] = c->fault_va;
        return fault(m, status == VAX_EXC_ACCESS_VIOLATION ? SCB_ACCESS_VIOLATION : SCB_TRANSLATION_NOT_VALID,
                     2, p);
    case VAX_EXC_BREAKPOINT:
        return fault(m, SCB_BREAKPOINT, 0, NULL);
    case VAX_EXC_COMPATIBILITY:
        p[0] = c->compat_code;   /* every one with the PC of the instruction (compat.c) */
        return fault(m, SCB_COMPATIBILITY, 1, p);
    case VAX_EXC_ARITHMETIC_FAULT:
        p[0] = c->arith_code;
        return fault(m, SCB_ARITHMETIC, 1, p);
    case VAX_EXC_MACHINE_CHECK:
        /* The 780's frame: a byte count, then ten longwords (summary,
         * CPU error status, trapped micro-PC, VA, D register, TBER0/1,
         * timeout address, cache parity, SBI error). */
        memset(p, 0, sizeof p);
        p[0] = 40;
        p[1] = c->mchk_summary;
        p[4] = c->mchk_address;
        p[8] = c->mchk_address;   /* SBI timeout address */
        cpu_restore_for_fault(m);
        c->psl_without_cc &= ~PSL_TP;
        return cpu_take_exception(m, SCB_MACHINE_CHECK, 11, p, c->instr_pc);
    case VAX_EXC_HALT:
        machine_set_stop(m, VAX_STOP_HALT, "HALT at PC %08X", c->instr_pc);
        return VAX_EXC_FATAL;
    case VAX_EXC_FATAL:
        return VAX_EXC_FATAL;
    default:
        machine_set_stop(m, VAX_STOP_DOUBLE_FAULT, "internal: unknown status %d at PC %08X", status,
                         c->instr_pc);
        return VAX_EXC_FATAL;
    }
}

/* After an instruction completed: pending arithmetic trap. */
int cpu_take_trap(vax_machine *m)
{
    uint32_t code = m->cpu.trap_pending;
    m->cpu.trap_pending = 0;
    return cpu_take_exception(m, SCB_ARITHMETIC, 1, &code, m->cpu.r[15]);
}

/* Trace: PSL<TP> at the start of an instruction. */
int cpu_take_trace(vax_machine *m)
{
    m->cpu.psl_without_cc &= ~PSL_TP;
    return cpu_take_exception(m, SCB_TRACE, 0, NULL, m->cpu.r[15]);
}

/* CHMK/CHME/CHMS/CHMU: change to the more privileged of the target mode
 * and the current one, on that mode's stack, pushing PSL, PC and the
 * sign-extended code. */
int cpu_change_mode(vax_machine *m, int target, uint32_t code)
{
    vax_cpu *c = &m->cpu;
    uint32_t old = cpu_psl(c);   /* pushed whole */
    int cur = (int)PSL_GET_CUR(old);
    int newmode = target < cur ? target : cur;
    if (old & PSL_IS) {
        machine_set_stop(m, VAX_STOP_DOUBLE_FAULT, "CHMx on the interrupt stack at PC %08X", c->instr_pc);
        return VAX_EXC_FATAL;
    }
    uint32_t scb = 0x40u + 4u * (uint32_t)target, vec;
    TRY(read_vector(m, scb, &vec));
    if (vec & 1) {
        machine_set_stop(m, VAX_STOP_SCB_HALT, "CHM vector %03X asks for the interrupt stack", scb);
        return VAX_EXC_FATAL;
    }
    uint32_t sp = newmode == cur ? c->r[14] : c->sp_save[newmode];
    uint32_t saved_pc = c->r[15];
    TRY(mem_write_mode(m, sp - 4, 4, newmode, old));
    TRY(mem_write_mode(m, sp - 8, 4, newmode, c->r[15]));
    TRY(mem_write_mode(m, sp - 12, 4, newmode, code));
    uint32_t newpsl = ((uint32_t)newmode << PSL_CUR_SHIFT) | ((uint32_t)cur << PSL_PRV_SHIFT) | (old & PSL_IPL);
    cpu_set_psl_in_instruction(m, newpsl);
    c->r[14] = sp - 12;
    c->r[15] = vec & ~3u;
    ib_invalidate(m);
    if (UNLIKELY(m->prof != NULL))
        profile_exception(m, scb, vec & ~3u, sp - 8, old, saved_pc, 0, m->icount + 1);
    switch (target) {
    case MODE_KERNEL:
        m->stats.chmk++;
        if (code < VAX_STATS_NCHMK)
            m->stats.chmk_code[code]++;
        else
            m->stats.chmk_other++;
        break;
    case MODE_EXEC: m->stats.chme++; break;
    case MODE_SUPER: m->stats.chms++; break;
    default: m->stats.chmu++; break;
    }
    return 0;
}
