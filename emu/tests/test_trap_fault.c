/*
 * test_trap_fault.c — an instruction that would request an arithmetic trap
 * and also takes a fault: the fault only.
 *
 * On the VAX a fault backs the instruction up (PC at its opcode, as if it
 * had not begun) and it is restarted from the beginning when the fault's
 * handler returns; an arithmetic trap (integer overflow with PSL<IV>,
 * divide by zero, subscript range, decimal overflow with PSL<DV>, ...) is
 * taken when the instruction that caused it has completed, with PC after
 * it (VAX Architecture Reference Manual, "Exceptions and Interrupts":
 * faults, traps and aborts; VAX Architecture Handbook, the same chapter).
 * So an instruction whose result overflows and whose destination lies in
 * an invalid page takes the translation-not-valid fault alone; restarted
 * after the handler has made the page valid, it overflows again, writes
 * its result, and then traps, once.
 *
 * Each case runs one such instruction with memory management on: the
 * destination's page (S0 page 0x30) has an invalid PTE; the TNV handler
 * records the PC it was given and the number of arithmetic traps taken so
 * far (as it leaves), makes the PTE valid, clears the TB entry and REIs;
 * the arithmetic trap's handler records its code and PC and REIs to the
 * HALT after the instruction.  Each instruction runs in two places: where
 * the loop takes it in the fast form (mid-page), and near the end of the
 * page, where it goes the checked way through its group.  The instruction
 * classes are those that request a trap: integer (ADDL3, in the fast
 * switch), EDIV (a trap whatever PSL<IV>, the fault on its second write),
 * INDEX (subscript range), a decimal one (ADDP6 with PSL<DV>) and a
 * floating conversion (CVTFL with PSL<IV>).
 *
 * The emulator gets this right by construction: every instruction calls
 * cpu_set_trap() only after its last possible fault (exec.h's rules), so
 * a faulting instruction never leaves a trap pending.  This test holds it
 * there: an instruction that requested its trap before the faulting write
 * would have the trap taken in the fault's handler, after its first
 * instruction (two traps in all, the first at a PC in that handler).
 */
#include <stdio.h>
#include <string.h>

#include "asm/vasm.h"
#include "machine.h"
#include "vax.h"

#include "check.h"

#define S0 0x80000000u
#define SPT_PA 0x10000u       /* system page table, physical */
#define SPT_PAGES 256u        /* S0 pages 0..255 map physical pages 0..255 */
#define SCB_PA 0x2000u
#define TNV_VA (S0 + 0x3000u)
#define ARITH_VA (S0 + 0x3100u)
#define DATA_PAGE 0x30u       /* the destinations' page: PTE invalid at the start */
#define DEST_VA (S0 + DATA_PAGE * 512u)
#define VARS_PA 0x7000u       /* what the handlers record (S0 + 0x7000) */
#define PACKED_PA 0x7100u     /* a packed decimal 9+ for ADDP6 */
#define STACK_VA (S0 + 0x8000u)

/* Offsets in the handlers' record, VARS_PA. */
enum { V_TNV_COUNT = 0, V_TNV_PC = 4, V_TRAPS_AT_TNV = 8, V_TRAP_COUNT = 12, V_TRAP_CODE = 16, V_TRAP_PC = 20,
       V_TNV_VA = 24 };

static const char tnv_handler[] =
    "incl @#0x80007000\n"              /* faults seen */
    "movl 8(sp), @#0x80007004\n"       /* the PC the fault saved */
    "movl 4(sp), @#0x80007018\n"       /* the faulting address */
    "bisl2 #0x80000000, @#0x800100C0\n" /* the data page's PTE (SPT_PA + 4 * DATA_PAGE): valid */
    "mtpr 4(sp), #58\n"                /* TBIS */
    "movl @#0x8000700C, @#0x80007008\n" /* arithmetic traps taken before this REI */
    "addl2 #8, sp\n"                   /* the fault's two parameters */
    "rei\n";

static const char arith_handler[] =
    "incl @#0x8000700C\n"
    "movl (sp), @#0x80007010\n"        /* the trap's code */
    "movl 4(sp), @#0x80007014\n"       /* its PC */
    "addl2 #4, sp\n"
    "rei\n";

static const struct {
    const char *insn;       /* writes DEST_VA */
    uint32_t r[6];          /* R0..R5 before it */
    uint32_t psl;
    uint32_t trap_code;
    uint32_t dest;          /* the longword at DEST_VA after it */
} cases[] = {
    /* 0x7FFFFFFF + 1: overflow. */
    {"addl3 #1, r1, @#0x80006000", {0, 0x7FFFFFFFu}, PSL_IV, ARITH_INT_OVERFLOW, 0x80000000u},
    /* Divide by zero: the quotient (R4) written, then the remainder's
     * write faults; the trap needs no PSL<IV>. */
    {"ediv #0, r2, r4, @#0x80006000", {0, 0, 7, 0}, 0, ARITH_INT_DIVIDE, 0},
    /* Subscript 5 outside 0..3: (0 + 5) * 1 written, then the trap. */
    {"index r1, #0, #3, #1, #0, @#0x80006000", {0, 5}, 0, ARITH_SUBSCRIPT, 5},
    /* 9 + 9 into one digit: 8+ (0x8C), decimal overflow. */
    {"addp6 #1, @#0x80007100, #1, @#0x80007100, #1, @#0x80006000", {0}, PSL_DV, ARITH_DEC_OVERFLOW,
     0xDEADBE8Cu},
    /* F-floating 2^40 (0x5480) to a longword: integer overflow, the low
     * 32 bits (0) written. */
    {"cvtfl r5, @#0x80006000", {0, 0, 0, 0, 0, 0x5480u}, PSL_IV, ARITH_INT_OVERFLOW, 0},
};

/* Where the instruction starts: mid-page (the fast form), and 8 bytes
 * before the page's end (within DC_WINDOW of it: the checked form). */
static const uint32_t places[] = {S0 + 0x1000u, S0 + 0x11F8u};

static int put_code(vax_machine *m, const char *src, uint32_t va, uint32_t *len)
{
    vasm_result r = {0};
    int ok = vasm_assemble(src, va, &r) == 0;
    if (!ok)
        printf("assembler: line %d: %s\n", r.error_line, r.error);
    else
        ok = vax_phys_write(m, va - S0, r.bytes, r.len) == 0;
    if (ok && len)
        *len = (uint32_t)r.len;
    vasm_free(&r);
    return ok;
}

static uint32_t var(vax_machine *m, uint32_t off)
{
    uint32_t v = 0;
    vax_phys_read(m, VARS_PA + off, &v, 4);
    return v;
}

static void run_case(size_t k, uint32_t at)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create");
    if (!m)
        return;
    for (uint32_t vpn = 0; vpn < SPT_PAGES; vpn++) {
        /* V, PROT = UW (4), M; the data page without V. */
        uint32_t pte = (vpn == DATA_PAGE ? 0 : 0x80000000u) | (4u << 27) | 0x04000000u | vpn;
        vax_phys_write(m, SPT_PA + 4 * vpn, &pte, 4);
    }
    uint32_t tnv = TNV_VA, arith = ARITH_VA, fill = 0xDEADBEEFu, zero[8] = {0};
    uint8_t nine = 0x9C;
    vax_phys_write(m, SCB_PA + 0x24, &tnv, 4);     /* translation not valid */
    vax_phys_write(m, SCB_PA + 0x34, &arith, 4);   /* arithmetic trap */
    vax_phys_write(m, DEST_VA - S0, &fill, 4);
    vax_phys_write(m, VARS_PA, zero, sizeof zero);
    vax_phys_write(m, PACKED_PA, &nine, 1);
    uint32_t len = 0;
    char src[160];
    snprintf(src, sizeof src, "%s\nhalt\n", cases[k].insn);
    if (!put_code(m, src, at, &len) || !put_code(m, tnv_handler, TNV_VA, NULL) ||
        !put_code(m, arith_handler, ARITH_VA, NULL)) {
        CHECK(0, "case %zu: set-up", k);
        vax_destroy(m);
        return;
    }
    uint32_t after = at + len - 1;   /* the HALT */
    vax_set_ipr(m, IPR_SCBB, SCB_PA);
    vax_set_ipr(m, IPR_SBR, SPT_PA);
    vax_set_ipr(m, IPR_SLR, SPT_PAGES);
    vax_set_ipr(m, IPR_MAPEN, 1);
    vax_set_psl(m, cases[k].psl);   /* kernel mode, kernel stack, IPL 0 */
    for (int i = 0; i < 6; i++)
        vax_set_reg(m, i, cases[k].r[i]);
    vax_set_reg(m, 14, STACK_VA);
    vax_set_reg(m, 15, at);

    vax_stop_reason why = vax_run(m, 200);
    uint32_t dest = 0;
    vax_phys_read(m, DEST_VA - S0, &dest, 4);
    const char *name = cases[k].insn;
    CHECK(why == VAX_STOP_HALT && vax_get_reg(m, 15) == after + 1, "%s at %08X: stopped by %d at PC %08X, not the HALT",
          name, at, (int)why, vax_get_reg(m, 15));
    CHECK(var(m, V_TNV_COUNT) == 1 && var(m, V_TNV_PC) == at && var(m, V_TNV_VA) == DEST_VA,
          "%s at %08X: %u faults, PC %08X, address %08X", name, at, var(m, V_TNV_COUNT), var(m, V_TNV_PC),
          var(m, V_TNV_VA));
    CHECK(var(m, V_TRAPS_AT_TNV) == 0, "%s at %08X: %u arithmetic traps taken in the fault's handler", name, at,
          var(m, V_TRAPS_AT_TNV));
    CHECK(var(m, V_TRAP_COUNT) == 1 && var(m, V_TRAP_CODE) == cases[k].trap_code && var(m, V_TRAP_PC) == after,
          "%s at %08X: %u arithmetic traps, the last with code %u at PC %08X (expected 1, code %u, PC %08X)", name,
          at, var(m, V_TRAP_COUNT), var(m, V_TRAP_CODE), var(m, V_TRAP_PC), cases[k].trap_code, after);
    CHECK(dest == cases[k].dest, "%s at %08X: the destination holds %08X, not %08X", name, at, dest,
          cases[k].dest);
    CHECK(m->cpu.trap_pending == 0 && vax_get_reg(m, 14) == STACK_VA, "%s at %08X: trap %u pending, SP %08X",
          name, at, m->cpu.trap_pending, vax_get_reg(m, 14));
    vax_destroy(m);
}

int main(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t p = 0; p < sizeof places / sizeof places[0]; p++)
            run_case(k, places[p]);
    return check_summary();
}
