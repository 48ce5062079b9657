/*
 * stats.h — what the processor model counts while it runs: instructions and
 * virtual time by processor mode, system calls (CHMK codes), interrupts by
 * SCB vector, exceptions by kind, context switches, translation-buffer
 * fills.  The lab graphs these live, the way vmstat shows a running system,
 * but from the hardware model rather than from the guest's own counters.
 *
 * Cheap by construction: nothing is counted per instruction.  Instructions
 * and time are attributed to a mode in bulk whenever the mode changes
 * (exceptions, interrupts, CHMx, REI, LDPCTX, SVPCTX), from the instruction
 * count and virtual time at the change; every other counter is bumped on a
 * path that is already slow (an exception, an interrupt, a TB miss).
 *
 * Counters run from vax_create() and survive vax_reset() (a console INIT
 * does not clear what the lab has seen so far).
 */
#ifndef VAX_STATS_H
#define VAX_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vax_machine vax_machine;

/* Where instructions run: the four access modes off the interrupt stack,
 * and the interrupt stack (PSL<IS>, always kernel mode) on its own.  The
 * five are disjoint. */
enum {
    VAX_STATS_KERNEL = 0,
    VAX_STATS_EXEC = 1,
    VAX_STATS_SUPER = 2,
    VAX_STATS_USER = 3,
    VAX_STATS_INTERRUPT = 4,
    VAX_STATS_NSLOTS = 5
};

#define VAX_STATS_NVEC 256        /* SCB offsets 0x000..0x3FC, one slot per longword */
#define VAX_STATS_NCHMK 256       /* CHMK codes 0..255 (4.3BSD system call numbers) */
#define VAX_STATS_UNIBUS_BASE 0x200u   /* UNIBUS vector v is counted at SCB offset 0x200 + v */

typedef struct vax_stats {
    /* Instructions.  total = the instruction count (vax_instruction_count);
     * total = sum of mode[] + idle.  idle: iterations of an idle loop the
     * processor skipped over (vax_set_idle_skip) — they count as executed,
     * so the guest sees the same instruction count, but belong to no mode. */
    uint64_t instructions;
    uint64_t instr_mode[VAX_STATS_NSLOTS];
    uint64_t instr_idle;

    /* Virtual nanoseconds, split the same way: every ns of virtual time
     * elapsed is in exactly one of them. */
    uint64_t ns_total;
    uint64_t ns_mode[VAX_STATS_NSLOTS];
    uint64_t ns_idle;
    uint64_t idle_skips;          /* times the processor skipped ahead */

    /* Change-mode instructions.  chmk_code[c] for codes 0..255, chmk_other
     * for the rest (the code is the CHMK operand, sign-extended; 4.3BSD's
     * system call number). */
    uint64_t chmk, chme, chms, chmu;
    uint64_t chmk_code[VAX_STATS_NCHMK];
    uint64_t chmk_other;

    /* Interrupts taken.  intr_vec[offset / 4] by SCB offset (hardware and
     * software alike); UNIBUS devices' own vectors, which the kernel reads
     * from the adapter's BRRVR after the adapter's SCB interrupt, are also
     * counted at VAX_STATS_UNIBUS_BASE + vector (4.3BSD keeps its UNIBUS
     * vector page right after the SCB).  intr_hw and intr_soft count
     * processor interrupts only: IPL 16-31 requests and SIRR levels 1-15. */
    uint64_t intr_hw, intr_soft;
    uint64_t intr_vec[VAX_STATS_NVEC];

    /* Exceptions.  tnv_*: translation-not-valid faults (page faults) by the
     * region of the faulting address (P0/P1 process space, S0 system
     * space); acv: access violations; other: every other fault, trap and
     * abort (reserved instruction/operand, arithmetic, trace, breakpoint,
     * kernel stack not valid ...); mchk: machine checks. */
    uint64_t tnv_process, tnv_system, acv, exc_other, mchk;

    /* Context switches and returns. */
    uint64_t ldpctx, svpctx, rei;

    /* Translation buffer: fills of an entry that did not hold the page
     * (with mapping on), and the invalidations software asked for. */
    uint64_t tb_miss, tbia, tbis;

    /* References to I/O space (bus.c: anything above memory — adapter and
     * device registers, the UNIBUS window), reads and writes, whatever the
     * size; a reference to nothing is counted too (it is still a bus
     * transaction, ended by the machine check). */
    uint64_t io_read, io_write;
} vax_stats;

/* The counters as of now, including the current mode's share since its
 * last mode change. */
void vax_stats_get(const vax_machine *m, vax_stats *out);

#ifdef __cplusplus
}
#endif
#endif
