/*
 * cpu.h — processor state and the internal interface between the
 * instruction groups (exec_*.c), the operand decoder, the exception logic
 * and the rest of the machine.
 *
 * Error handling: every operation that can fault returns an int status,
 * 0 for success or one of the VAX_EXC_* codes below; callers pass it up
 * with TRY().  Nothing uses setjmp/longjmp (costly under Emscripten).
 */
#ifndef VAX_CPU_H
#define VAX_CPU_H

#include <stdint.h>

typedef struct vax_machine vax_machine;

/* ---- PSL ---- */
#define PSL_C 0x00000001u
#define PSL_V 0x00000002u
#define PSL_Z 0x00000004u
#define PSL_N 0x00000008u
#define PSL_CC 0x0000000Fu
#define PSL_T 0x00000010u
#define PSL_IV 0x00000020u
#define PSL_FU 0x00000040u
#define PSL_DV 0x00000080u
#define PSL_IPL_SHIFT 16
#define PSL_IPL 0x001F0000u
#define PSL_PRV_SHIFT 22
#define PSL_PRV 0x00C00000u
#define PSL_CUR_SHIFT 24
#define PSL_CUR 0x03000000u
#define PSL_IS 0x04000000u
#define PSL_FPD 0x08000000u
#define PSL_TP 0x40000000u
#define PSL_CM 0x80000000u
#define PSL_MBZ 0x3020FF00u

#define PSL_GET_CUR(p) (((p) >> PSL_CUR_SHIFT) & 3)
#define PSL_GET_PRV(p) (((p) >> PSL_PRV_SHIFT) & 3)
#define PSL_GET_IPL(p) (((p) >> PSL_IPL_SHIFT) & 31)

enum { MODE_KERNEL = 0, MODE_EXEC = 1, MODE_SUPER = 2, MODE_USER = 3 };

/* Stack-pointer slots: the four per-mode stacks and the interrupt stack. */
enum { SP_KERNEL = 0, SP_EXEC = 1, SP_SUPER = 2, SP_USER = 3, SP_INTERRUPT = 4 };

/* ---- Internal processor registers (MTPR/MFPR numbers) ---- */
enum {
    IPR_KSP = 0, IPR_ESP = 1, IPR_SSP = 2, IPR_USP = 3, IPR_ISP = 4,
    IPR_P0BR = 8, IPR_P0LR = 9, IPR_P1BR = 10, IPR_P1LR = 11, IPR_SBR = 12, IPR_SLR = 13,
    IPR_PCBB = 16, IPR_SCBB = 17, IPR_IPL = 18, IPR_ASTLVL = 19, IPR_SIRR = 20, IPR_SISR = 21,
    IPR_ICCS = 24, IPR_NICR = 25, IPR_ICR = 26, IPR_TODR = 27,
    IPR_RXCS = 32, IPR_RXDB = 33, IPR_TXCS = 34, IPR_TXDB = 35,
    IPR_ACCS = 40, IPR_ACCR = 41, IPR_WCSA = 44, IPR_WCSD = 45,
    IPR_SBIFS = 48, IPR_SBIS = 49, IPR_SBISC = 50, IPR_SBIMT = 51, IPR_SBIER = 52, IPR_SBITA = 53,
    IPR_SBIQC = 54, IPR_MAPEN = 56, IPR_TBIA = 57, IPR_TBIS = 58, IPR_MBRK = 60, IPR_PMR = 61,
    IPR_SID = 62, IPR_COUNT = 64
};

/* SID of a VAX-11/780: type 1 in <31:24>, ECO level and serial number. */
#define VAX780_SID 0x01002345u   /* type 1, plant 0, serial 0x345 */

/* ---- Exception status codes (return values) ----
 * Values are chosen apart from 0 so a stray boolean is never mistaken
 * for one.  The SCB offset of each is in exc_vector[] (exceptions.c). */
enum {
    VAX_OK = 0,
    VAX_EXC_RESERVED_INSTRUCTION = 0x100, /* SCB 0x10 (also privileged instr.) */
    VAX_EXC_PRIVILEGED_INSTRUCTION,       /* SCB 0x10 */
    VAX_EXC_CUSTOMER_RESERVED,            /* SCB 0x14, XFC */
    VAX_EXC_RESERVED_OPERAND,             /* SCB 0x18 */
    VAX_EXC_RESERVED_ADDRESSING_MODE,     /* SCB 0x1C */
    VAX_EXC_ACCESS_VIOLATION,             /* SCB 0x20, params fault_param/fault_va */
    VAX_EXC_TRANSLATION_NOT_VALID,        /* SCB 0x24, params fault_param/fault_va */
    VAX_EXC_BREAKPOINT,                   /* SCB 0x2C */
    VAX_EXC_COMPATIBILITY,                /* SCB 0x30 */
    VAX_EXC_ARITHMETIC_FAULT,             /* SCB 0x34, code in arith_code (fault: PC backed up) */
    VAX_EXC_MACHINE_CHECK,                /* SCB 0x04, nonexistent memory etc. */
    VAX_EXC_HALT,                         /* HALT executed in kernel mode */
    VAX_EXC_CHM,                          /* CHMx: handled by the executor itself */
    VAX_EXC_FATAL,                        /* unrecoverable: processor halts */
    /* Not an exception: the instruction completed and requested an
     * arithmetic trap (cpu.trap_pending, cpu_trap_status in exec.h),
     * which the loop takes after it (execute.c, finish). */
    VAX_TRAP_REQUESTED
};

/* Arithmetic exception type codes (pushed on the stack). */
enum {
    ARITH_INT_OVERFLOW = 1, ARITH_INT_DIVIDE = 2, ARITH_FLT_OVERFLOW_TRAP = 3,
    ARITH_FLT_DIVIDE_TRAP = 4, ARITH_FLT_UNDERFLOW_TRAP = 5, ARITH_DEC_OVERFLOW = 6,
    ARITH_SUBSCRIPT = 7, ARITH_FLT_OVERFLOW_FAULT = 8, ARITH_FLT_DIVIDE_FAULT = 9,
    ARITH_FLT_UNDERFLOW_FAULT = 10
};

/* Compatibility-mode exception codes (compat.c); every one is taken with
 * the PC of the PDP-11 instruction. */
enum {
    COMPAT_RESERVED_INSTRUCTION = 0, COMPAT_BPT = 1, COMPAT_IOT = 2, COMPAT_EMT = 3, COMPAT_TRAP = 4,
    COMPAT_ILLEGAL_INSTRUCTION = 5, COMPAT_ODD_ADDRESS = 6
};

/* Memory-management fault parameter bits. */
#define MM_LENGTH 1u      /* length violation */
#define MM_PTE_REF 2u     /* fault on the reference to the page table entry */
#define MM_WRITE 4u       /* write or modify intent */

/* Software-visible processor state.  Lives inside vax_machine. */
typedef struct vax_cpu {
    uint32_t r[16];            /* R0..R15; r[14] is the current stack */
    /* The PSL is kept in four parts, so that an instruction sets its
     * condition codes with a store or two instead of reading, masking,
     * merging and storing the whole PSL (the codes change after almost
     * every instruction, the other bits seldom), and so that N and Z are
     * left as the value they come from, not worked out as bits: most are
     * overwritten by the next instruction before anything reads them.
     * Read and write the whole PSL or its codes only through the
     * accessors below (cpu_psl, cpu_cc, cpu_store_psl, cpu_store_cc; the
     * instruction bodies' setters in exec.h and the branch conditions in
     * exec_branch.h): nothing else may compose them, so no reader can see
     * codes that are out of date. */
    uint32_t psl_without_cc;   /* the PSL with bits 3:0 (N Z V C) always zero */
    uint32_t cc_v;             /* PSL<V> in its place (PSL_V) or 0 */
    uint32_t cc_c;             /* PSL<C> (PSL_C) or 0: apart, because the moves and logical
                                  instructions set N Z V and keep C */
    /* N and Z as one value: N is its sign, Z is whether its low 32 bits
     * are zero.  An instruction stores its result sign-extended (or, for a
     * compare, the difference of its operands sign-extended to 64 bits).
     * Always in [-2^32, 2^32), and when positive its low 32 bits are not
     * zero, so that "neither N nor Z" is simply cc_nz > 0 (cpu_store_cc
     * keeps this; exec_branch.h's conditions rely on it). */
    int64_t cc_nz;
    uint32_t sp_save[5];       /* KSP ESP SSP USP ISP (the inactive copies) */
    uint32_t p0br, p0lr, p1br, p1lr, sbr, slr;
    uint32_t pcbb, scbb, astlvl, sisr, mapen;
    uint32_t ipr_misc[IPR_COUNT]; /* registers with no behaviour here (PMR, ACCS, ...) */

    /* Per-instruction bookkeeping. */
    uint32_t instr_pc;         /* address of the current opcode (faults back up to it); stored where it is read (execute.c) */
    uint8_t rlog_n;            /* autoincrement/decrement undo log for faults */
    uint8_t rlog_reg[8];
    int8_t rlog_delta[8];
    uint8_t trap_pending;      /* arithmetic trap code to take after this instruction */
    uint8_t arith_code;        /* code for VAX_EXC_ARITHMETIC_FAULT */
    uint8_t compat_code;       /* code for VAX_EXC_COMPATIBILITY (COMPAT_*) */
    uint32_t fault_param, fault_va;   /* ACV/TNV parameters */
    uint32_t mchk_summary, mchk_address;  /* machine-check parameters */
} vax_cpu;

/* ---- Functions shared by the instruction groups ---- */

/* Undo autoincrement/decrement side effects of the aborted instruction
 * and back the PC up to its opcode. */
void cpu_restore_for_fault(vax_machine *m);

/* Take an exception or interrupt: push PSL, PC and params, switch stack
 * and mode, jump through the SCB.  Returns VAX_OK, or VAX_EXC_FATAL if the
 * processor would halt (the detail goes to the machine's stop text). */
int cpu_take_exception(vax_machine *m, uint32_t scb_offset, int nparam, const uint32_t *params,
                       uint32_t pc);
int cpu_take_interrupt(vax_machine *m, uint32_t scb_offset, int ipl);

/* After an instruction: take the pending arithmetic trap / trace trap. */
int cpu_take_trap(vax_machine *m);
int cpu_take_trace(vax_machine *m);

/* Run instructions until icount reaches run_limit (execute.c). */
void cpu_execute(vax_machine *m);

/* CHMx to `target` mode with the sign-extended code (exceptions.c). */
int cpu_change_mode(vax_machine *m, int target, uint32_t code);

/* Deliver a status returned by an instruction: faults, traps, CHM... */
int cpu_deliver(vax_machine *m, int status);

/* Change the PSL, switching the stack pointer between the saved slots
 * when the mode or the interrupt-stack bit changes. */
void cpu_set_psl(vax_machine *m, uint32_t newpsl);
/* The same, called by an instruction that changes mode part-way through
 * (CHMx, REI, LDPCTX, SVPCTX): for the statistics, that instruction still
 * belongs to the mode it started in. */
void cpu_set_psl_in_instruction(vax_machine *m, uint32_t newpsl);
/* The same for REI, whose change of IPL alone does not stop the
 * instruction loop here: REI decides that itself, once its AST request
 * is made (idle.c, cpu_ipl_written). */
void cpu_set_psl_in_rei(vax_machine *m, uint32_t newpsl);

/* Software interrupts and other interrupt conditions changed: make the
 * run loop look at them before the next instruction. */
void cpu_interrupts_changed(vax_machine *m);

/* Idle skipping (idle.c): if the processor is in a loop that cannot end
 * before the next device event, advance the instruction count (and with it
 * virtual time) over as many whole iterations as fit before
 * m->run_limit.  Returns the number of instructions skipped. */
uint64_t cpu_idle_skip(vax_machine *m);
/* After an MTPR to IPL or an REI (privileged.c), with r[15] the next
 * instruction's PC: stop the instruction loop for vax_run, unless its
 * outer pass would find nothing to do (idle.c). */
void cpu_ipl_written(vax_machine *m);

/* Internal processor registers (privileged.c). */
int cpu_mtpr(vax_machine *m, uint32_t ipr, uint32_t value);
int cpu_mfpr(vax_machine *m, uint32_t ipr, uint32_t *value);

/* ---- The PSL and its condition codes (see vax_cpu) ---- */

/* N Z V C as in PSL<3:0>. */
static inline uint32_t cpu_cc(const vax_cpu *c)
{
    uint32_t n = (uint32_t)((uint64_t)c->cc_nz >> 63) << 3;
    uint32_t z = (uint32_t)c->cc_nz == 0 ? PSL_Z : 0;
    return n | z | c->cc_v | c->cc_c;
}

/* The whole PSL, as MOVPSL, an exception's frame, SVPCTX, the state
 * digest and a snapshot see it. */
static inline uint32_t cpu_psl(const vax_cpu *c)
{
    return c->psl_without_cc | cpu_cc(c);
}

/* PSL<C> alone (0 or 1): the instructions that keep C or read it. */
static inline uint32_t cpu_cc_c(const vax_cpu *c)
{
    return c->cc_c;
}

/* Set N Z V C from PSL<3:0> (other bits of `cc` ignored). */
static inline void cpu_store_cc(vax_cpu *c, uint32_t cc)
{
    /* A cc_nz for each of N Z = 00, 01, 10, 11 (both can be set: REI,
     * BISPSW and the rest load them as bits). */
    static const int64_t nz_value[4] = {1, 0, -1, -INT64_C(0x100000000)};
    c->cc_nz = nz_value[(cc >> 2) & 3];
    c->cc_v = cc & PSL_V;
    c->cc_c = cc & PSL_C;
}

/* Store a whole PSL as it is: no stack switch, no accounting (that is
 * cpu_set_psl's work, which ends here). */
static inline void cpu_store_psl(vax_cpu *c, uint32_t psl)
{
    c->psl_without_cc = psl & ~PSL_CC;
    cpu_store_cc(c, psl);
}

/* Stack-pointer slot of a PSL. */
static inline int psl_sp_slot(uint32_t psl)
{
    return (psl & PSL_IS) ? SP_INTERRUPT : (int)PSL_GET_CUR(psl);
}

#endif
