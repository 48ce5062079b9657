/*
 * test_stats.c — the hardware model's counters (stats.h, vax780_stats.h)
 * and idle skipping (cpu/idle.c).
 *
 * Small assembled programs whose counts are known exactly: CHMKs by code
 * and the instructions of each mode, page faults by region, access
 * violations, TB invalidations, interrupts by vector, disk transfers,
 * seeks and cylinders.  Idle skipping must leave the guest exactly where
 * running every instruction leaves it — same state digest (which includes
 * the instruction count), same virtual time, same interrupts — while
 * booking the skipped iterations as idle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/vasm.h"
#include "bus/bus.h"
#include "machine.h"
#include "massbus/mba.h"
#include "massbus/rp.h"
#include "stats.h"
#include "bus/sbi.h"
#include "system/vax780.h"
#include "system/vax780_stats.h"
#include "vax.h"

#include "check.h"

/* Assemble src at `base` (a virtual address; S0 addresses land at
 * physical base & 0x3FFFFFFF) into m's memory.  Returns 0 or -1. */
static int load(vax_machine *m, const char *src, uint32_t base, vasm_result *r)
{
    if (vasm_assemble(src, base, r) != 0) {
        printf("assembler: line %d: %s\n", r->error_line, r->error);
        return -1;
    }
    return vax_phys_write(m, base & 0x3FFFFFFFu, r->bytes, r->len);
}

static uint32_t sym(const vasm_result *r, const char *name)
{
    uint32_t v = 0;
    CHECK(vasm_symbol(r, name, &v) == 0, "no symbol %s", name);
    return v;
}

static uint32_t peek(vax_machine *m, uint32_t pa)
{
    uint32_t v = 0;
    vax_phys_read(m, pa, &v, 4);
    return v;
}

/* The mode split adds up: every instruction and every ns is in exactly
 * one of the modes or idle. */
static void check_partition(const vax_stats *st, const char *what)
{
    uint64_t i = st->instr_idle, t = st->ns_idle;
    for (int k = 0; k < VAX_STATS_NSLOTS; k++) {
        i += st->instr_mode[k];
        t += st->ns_mode[k];
    }
    CHECK(i == st->instructions, "%s: modes + idle = %llu instructions of %llu", what, (unsigned long long)i,
          (unsigned long long)st->instructions);
    CHECK(t == st->ns_total, "%s: modes + idle = %llu ns of %llu", what, (unsigned long long)t,
          (unsigned long long)st->ns_total);
}

/* ------------------------------------------------------------------ CHMK */

static const char chmk_src[] =
    ".org 0x40\n"
    "    .long chmk_handler\n"
    ".org 0x1000\n"
    "user:   movl #5, r6\n"
    "again:  chmk #20\n"
    "        sobgtr r6, again\n"
    "        chmk #300\n"
    "        chmk #0\n"
    "        chmk #999\n"
    "        .align 4\n"              /* SCB vectors need longword-aligned handlers */
    "chmk_handler:\n"
    "        cmpl (sp), #999\n"
    "        beql done\n"
    "        addl2 #4, sp\n"
    "        rei\n"
    "done:   halt\n";

static void test_chmk_and_modes(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    vasm_result r = {0};
    CHECK(m && load(m, chmk_src, 0, &r) == 0, "set-up");
    if (!m || !r.bytes)
        goto out;
    vax_set_ipr(m, IPR_KSP, 0x9000);
    vax_set_ipr(m, IPR_USP, 0x7000);
    vax_set_psl(m, 0x03C00000u);   /* user mode, previous user, IPL 0 */
    vax_set_reg(m, 15, sym(&r, "user"));
    /* The flat timing model (every instruction 2000 ns, nothing else), so
     * that the time each mode gets is a plain multiple of its instructions:
     * this test is about the attribution, test_timing.c about the costs. */
    vax_set_timing_flat(m, 2000);
    CHECK(vax_run(m, 1000) == VAX_STOP_HALT, "did not halt: %s", vax_stop_detail(m));
    vax_stats st;
    vax_stats_get(m, &st);
    CHECK(st.chmk == 8 && st.chmk_code[20] == 5 && st.chmk_code[0] == 1 && st.chmk_other == 2,
          "chmk %llu, code 20: %llu, code 0: %llu, other %llu", (unsigned long long)st.chmk,
          (unsigned long long)st.chmk_code[20], (unsigned long long)st.chmk_code[0],
          (unsigned long long)st.chmk_other);
    CHECK(st.chme + st.chms + st.chmu == 0, "other CHMx counted");
    CHECK(st.rei == 7, "rei %llu", (unsigned long long)st.rei);
    /* User: MOVL, 5 x (CHMK, SOBGTR), 3 CHMKs = 14 (a CHMK is its caller's);
     * kernel: 7 x (CMPL, BEQL, ADDL2, REI) + CMPL, BEQL, HALT = 31. */
    CHECK(st.instructions == 45 && vax_instruction_count(m) == 45, "instructions %llu",
          (unsigned long long)st.instructions);
    CHECK(st.instr_mode[VAX_STATS_USER] == 14, "user %llu", (unsigned long long)st.instr_mode[VAX_STATS_USER]);
    CHECK(st.instr_mode[VAX_STATS_KERNEL] == 31, "kernel %llu",
          (unsigned long long)st.instr_mode[VAX_STATS_KERNEL]);
    CHECK(st.ns_mode[VAX_STATS_USER] == 14ull * 2000 && st.ns_mode[VAX_STATS_KERNEL] == 31ull * 2000,
          "ns user %llu kernel %llu", (unsigned long long)st.ns_mode[VAX_STATS_USER],
          (unsigned long long)st.ns_mode[VAX_STATS_KERNEL]);
    CHECK(st.ns_total == machine_time_ns(m), "ns total");
    CHECK(st.intr_hw + st.intr_soft + st.tnv_process + st.tnv_system + st.acv + st.exc_other + st.mchk == 0,
          "no interrupt or exception expected");
    check_partition(&st, "chmk");
out:
    vasm_free(&r);
    vax_destroy(m);
}

/* ------------------------------------------------------- memory management */

#define SBR_PA 0x10000u
#define P0BR_VA 0x80014000u
#define PTE_UW (0x80000000u | (4u << 27))   /* valid, all modes read/write */

static const char mm_src[] =
    "SPTE50 = 0x80010140\n"      /* system PTE of S0 page 0x50 (identity-mapped SPT) */
    "P0PTE3 = 0x8001400C\n"      /* PTE of P0 page 3 */
    ".org 0x80000020\n"
    "    .long acv_handler\n"
    "    .long tnv_handler\n"
    ".org 0x80001000\n"
    "start:  tstl @#0x8000A000\n"     /* S0 page 0x50 invalid: TNV, system space */
    "        tstl @#0x600\n"          /* P0 page 3 invalid: TNV, process space */
    "        movl #1, @#0x400\n"      /* P0 page 2: fine */
    "        mtpr #0x80001000, #58\n" /* TBIS */
    "        tstl @#0x8000C000\n"     /* S0 page 0x60: no access: ACV */
    "        halt\n"
    "        .align 4\n"
    "tnv_handler:\n"
    "        movl 4(sp), r0\n"
    "        tstl r0\n"
    "        blss sys\n"
    "        bisl2 #0x80000000, @#P0PTE3\n"
    "        brb fixed\n"
    "sys:    bisl2 #0x80000000, @#SPTE50\n"
    "fixed:  mtpr #0, #57\n"          /* TBIA */
    "        addl2 #8, sp\n"
    "        rei\n"
    "        .align 4\n"
    "acv_handler:\n"
    "        halt\n";

static void test_memory_management(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    vasm_result r = {0};
    CHECK(m && load(m, mm_src, 0x80000000u, &r) == 0, "set-up");
    if (!m || !r.bytes)
        goto out;
    for (uint32_t p = 0; p < 256; p++) {
        uint32_t pte = PTE_UW | p;
        if (p == 0x50)
            pte &= ~0x80000000u;
        if (p == 0x60)
            pte = 0x80000000u | p;   /* valid, protection 0: no access */
        vax_phys_write(m, SBR_PA + 4 * p, &pte, 4);
    }
    for (uint32_t p = 0; p < 16; p++) {
        uint32_t pte = (PTE_UW | (0x40 + p)) & (p == 3 ? ~0x80000000u : ~0u);
        vax_phys_write(m, (P0BR_VA & 0x3FFFFFFFu) + 4 * p, &pte, 4);
    }
    vax_set_ipr(m, IPR_SBR, SBR_PA);
    vax_set_ipr(m, IPR_SLR, 256);
    vax_set_ipr(m, IPR_P0BR, P0BR_VA);
    vax_set_ipr(m, IPR_P0LR, 16);
    vax_set_ipr(m, IPR_MAPEN, 1);
    vax_set_psl(m, 0);   /* kernel, IPL 0, kernel stack */
    vax_set_reg(m, 14, 0x80009000u);
    vax_set_reg(m, 15, sym(&r, "start"));
    CHECK(vax_run(m, 1000) == VAX_STOP_HALT, "did not halt: %s", vax_stop_detail(m));
    CHECK(vax_get_reg(m, 15) == sym(&r, "acv_handler") + 1, "stopped at %08X, not in the ACV handler",
          vax_get_reg(m, 15));
    vax_stats st;
    vax_stats_get(m, &st);
    CHECK(st.tnv_system == 1 && st.tnv_process == 1, "TNV system %llu process %llu",
          (unsigned long long)st.tnv_system, (unsigned long long)st.tnv_process);
    CHECK(st.acv == 1 && st.exc_other == 0 && st.mchk == 0, "acv %llu other %llu mchk %llu",
          (unsigned long long)st.acv, (unsigned long long)st.exc_other, (unsigned long long)st.mchk);
    CHECK(st.tbia == 2 && st.tbis == 1, "tbia %llu tbis %llu", (unsigned long long)st.tbia,
          (unsigned long long)st.tbis);
    CHECK(st.tb_miss >= 5, "tb misses %llu", (unsigned long long)st.tb_miss);
    CHECK(st.rei == 2, "rei %llu", (unsigned long long)st.rei);
    CHECK(st.instr_mode[VAX_STATS_KERNEL] == st.instructions, "all kernel");
    check_partition(&st, "mm");
out:
    vasm_free(&r);
    vax_destroy(m);
}

/* ------------------------------------------------------------------ idle */

/* 4.3BSD's idle loop, woken by the interval clock: every fourth tick the
 * clock handler makes "a process runnable" (whichqs = 1) and requests a
 * software interrupt; the "process" spins in a DELAY loop and goes back
 * to idle, four times. */
static const char idle_src[] =
    ".org 0x84\n"
    "    .long soft\n"              /* software interrupt level 1 */
    ".org 0xC0\n"
    "    .long clock+1\n"           /* interval clock, on the interrupt stack */
    ".org 0x1000\n"
    "start:  mtpr #-10000, #25\n"   /* NICR: 10 ms */
    "        mtpr #0x51, #24\n"     /* ICCS: RUN | TRANSFER | IE */
    "idle:   mtpr #0, #18\n"
    "        tstl @#whichqs\n"
    "        bneq work\n"
    "        brb idle\n"
    "work:   mtpr #0x18, #18\n"
    "        clrl @#whichqs\n"
    "        mtpr #0, #18\n"
    "        movl #2000, r11\n"
    "delay:  sobgtr r11, delay\n"
    "        incl @#rounds\n"
    "        cmpl @#rounds, #4\n"
    "        blss idle\n"
    "        halt\n"
    "        .align 4\n"
    "clock:  mtpr #0xC1, #24\n"     /* clear INT, keep RUN | IE */
    "        incl @#ticks\n"
    "        bitl #3, @#ticks\n"
    "        bneq back\n"
    "        movl #1, @#whichqs\n"
    "        mtpr #1, #20\n"        /* SIRR 1 */
    "back:   rei\n"
    "        .align 4\n"
    "soft:   incl @#softs\n"
    "        rei\n"
    ".org 0x2000\n"
    "whichqs: .long 0\n"
    "rounds: .long 0\n"
    "ticks:  .long 0\n"
    "softs:  .long 0\n";

typedef struct {
    uint64_t digest, time_ns, icount;
    uint32_t ticks, softs, rounds, r11;
    vax_stats st;
    vax_stop_reason stop;
} run_result;

static vax780 *new_system(int idle_skip)
{
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    cfg.no_idle_skip = !idle_skip;
    char err[256];
    vax780 *s = vax780_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "vax780_create: %s", err);
    return s;
}

/* Kernel mode at IPL 0 on the kernel stack, ISP and KSP set, at label `at`. */
static void enter_kernel(vax_machine *m, const vasm_result *r, const char *at)
{
    vax_set_ipr(m, IPR_KSP, 0x9000);
    vax_set_ipr(m, IPR_ISP, 0xA000);
    vax_set_psl(m, 0);
    vax_set_reg(m, 15, sym(r, at));
}

static run_result run_idle_program(int idle_skip, uint64_t slice)
{
    run_result res;
    memset(&res, 0, sizeof res);
    vax780 *s = new_system(idle_skip);
    vasm_result r = {0};
    if (!s || load(s->m, idle_src, 0, &r) != 0)
        goto out;
    vax_machine *m = s->m;
    enter_kernel(m, &r, "start");
    for (int i = 0; i < 100000; i++) {
        res.stop = vax_run(m, slice);
        if (res.stop != VAX_STOP_BUDGET)
            break;
    }
    res.digest = vax_state_digest(m);
    res.time_ns = machine_time_ns(m);
    res.icount = vax_instruction_count(m);
    res.ticks = peek(m, sym(&r, "ticks"));
    res.softs = peek(m, sym(&r, "softs"));
    res.rounds = peek(m, sym(&r, "rounds"));
    res.r11 = vax_get_reg(m, 11);
    vax_stats_get(m, &res.st);
out:
    vasm_free(&r);
    vax780_destroy(s);
    return res;
}

static void test_idle_skip_invisible(void)
{
    /* Slices of different sizes: the skip must not depend on them. */
    static const uint64_t slices[] = {200000, 7919, 1000000000};
    for (size_t k = 0; k < sizeof slices / sizeof slices[0]; k++) {
        run_result off = run_idle_program(0, slices[k]);
        run_result on = run_idle_program(1, slices[k]);
        CHECK(off.stop == VAX_STOP_HALT && on.stop == VAX_STOP_HALT, "slice %llu: stops %d %d",
              (unsigned long long)slices[k], off.stop, on.stop);
        CHECK(off.rounds == 4 && off.ticks == 16 && off.softs == 4, "slice %llu: rounds %u ticks %u softs %u",
              (unsigned long long)slices[k], off.rounds, off.ticks, off.softs);
        CHECK(on.digest == off.digest, "slice %llu: state digest differs with idle skipping",
              (unsigned long long)slices[k]);
        CHECK(on.icount == off.icount && on.time_ns == off.time_ns,
              "slice %llu: instructions %llu vs %llu, time %llu vs %llu", (unsigned long long)slices[k],
              (unsigned long long)on.icount, (unsigned long long)off.icount, (unsigned long long)on.time_ns,
              (unsigned long long)off.time_ns);
        CHECK(on.ticks == off.ticks && on.softs == off.softs, "slice %llu: guest-visible counts differ",
              (unsigned long long)slices[k]);
        CHECK(on.st.intr_vec[0xC0 / 4] == 16 && off.st.intr_vec[0xC0 / 4] == 16 && on.st.intr_hw == 16 &&
                  on.st.intr_soft == 4 && on.st.intr_vec[0x84 / 4] == 4,
              "slice %llu: interrupts by vector: clock %llu/%llu soft %llu", (unsigned long long)slices[k],
              (unsigned long long)on.st.intr_vec[0xC0 / 4], (unsigned long long)off.st.intr_vec[0xC0 / 4],
              (unsigned long long)on.st.intr_vec[0x84 / 4]);
        CHECK(off.st.instr_idle == 0 && off.st.ns_idle == 0 && off.st.idle_skips == 0,
              "slice %llu: idle counted without skipping", (unsigned long long)slices[k]);
        /* 16 ticks of 10 ms, most of them idle: at least 12 ticks' worth
         * skipped (the idle loop's four instructions cost 4.6 us in the
         * model, cpu/timing.c: over 2000 of them a tick), and their time
         * booked as idle: at least the cheapest instruction's cost each. */
        CHECK(on.st.instr_idle > 12 * 2000 && on.st.ns_idle >= on.st.instr_idle * 700 && on.st.idle_skips >= 12,
              "slice %llu: idle %llu instructions, %llu ns, %llu skips", (unsigned long long)slices[k],
              (unsigned long long)on.st.instr_idle, (unsigned long long)on.st.ns_idle,
              (unsigned long long)on.st.idle_skips);
        check_partition(&on.st, "idle on");
        check_partition(&off.st, "idle off");
    }
}

/* The clock's first interrupt halts: with skipping, the processor gets
 * there having run only the loop's few instructions. */
static const char wake_src[] =
    ".org 0xC0\n"
    "    .long wake+1\n"
    ".org 0x1000\n"
    "start:  mtpr #-10000, #25\n"
    "        mtpr #0x51, #24\n"
    "idle:   mtpr #0, #18\n"
    "        tstl @#whichqs\n"
    "        bneq idle\n"
    "        brb idle\n"
    "        .align 4\n"
    "wake:   halt\n"
    ".org 0x2000\n"
    "whichqs: .long 0\n";

static void test_idle_skip_to_event(void)
{
    uint64_t icount[2] = {0, 0}, t[2] = {0, 0};
    for (int on = 0; on < 2; on++) {
        vax780 *s = new_system(on);
        vasm_result r = {0};
        if (!s || load(s->m, wake_src, 0, &r) != 0) {
            vasm_free(&r);
            vax780_destroy(s);
            return;
        }
        enter_kernel(s->m, &r, "start");
        CHECK(vax_run(s->m, 1000000) == VAX_STOP_HALT, "did not halt: %s", vax_stop_detail(s->m));
        CHECK(vax_get_reg(s->m, 15) == sym(&r, "wake") + 1, "halted at %08X", vax_get_reg(s->m, 15));
        vax_stats st;
        vax_stats_get(s->m, &st);
        icount[on] = st.instructions;
        t[on] = st.ns_total;
        if (on) {
            /* Two MTPRs, a few loop instructions, the HALT: everything else
             * of the 10 ms (5000 instructions) skipped in one go. */
            CHECK(st.instructions - st.instr_idle <= 12, "ran %llu instructions of %llu",
                  (unsigned long long)(st.instructions - st.instr_idle), (unsigned long long)st.instructions);
            CHECK(st.idle_skips == 1, "skips %llu", (unsigned long long)st.idle_skips);
        }
        CHECK(st.ns_total >= 10000000ull && st.ns_total < 10000000ull + 20 * 2000, "halted at %llu ns",
              (unsigned long long)st.ns_total);
        vasm_free(&r);
        vax780_destroy(s);
    }
    CHECK(icount[0] == icount[1] && t[0] == t[1], "wake-up at %llu/%llu instructions, %llu/%llu ns",
          (unsigned long long)icount[0], (unsigned long long)icount[1], (unsigned long long)t[0],
          (unsigned long long)t[1]);
}

/* The wait loop of wake_src placed at every byte from 16 before a page
 * boundary to it, so that each of its instructions (and the absolute
 * address of TSTL's operand) lies across the boundary at some placement:
 * the idle look reads instruction bytes from the page it found last when
 * they lie in it and a byte at a time across pages (idle.c, fetch).  The
 * loop is skipped at every placement, and the run ends at the same
 * instruction count and time as without skipping. */
static void test_idle_skip_across_page(void)
{
    for (uint32_t at = 0x11F0; at <= 0x1200; at++) {
        char src[1024];
        snprintf(src, sizeof src,
                 ".org 0xC0\n"
                 "    .long wake+1\n"
                 ".org 0x1000\n"
                 "start:  mtpr #-10000, #25\n"
                 "        mtpr #0x51, #24\n"
                 "        brw idle\n"
                 "        .align 4\n"
                 "wake:   halt\n"
                 ".org 0x%X\n"
                 "idle:   mtpr #0, #18\n"
                 "        tstl @#whichqs\n"
                 "        bneq idle\n"
                 "        brb idle\n"
                 ".org 0x2000\n"
                 "whichqs: .long 0\n",
                 (unsigned)at);
        uint64_t icount[2] = {0, 0}, t[2] = {0, 0}, digest[2] = {0, 0};
        for (int on = 0; on < 2; on++) {
            vax780 *s = new_system(on);
            vasm_result r = {0};
            if (!s || load(s->m, src, 0, &r) != 0) {
                vasm_free(&r);
                vax780_destroy(s);
                return;
            }
            enter_kernel(s->m, &r, "start");
            CHECK(vax_run(s->m, 1000000) == VAX_STOP_HALT, "loop at %X: did not halt: %s", (unsigned)at,
                  vax_stop_detail(s->m));
            vax_stats st;
            vax_stats_get(s->m, &st);
            icount[on] = st.instructions;
            t[on] = st.ns_total;
            digest[on] = vax_state_digest(s->m);
            if (on)
                CHECK(st.idle_skips >= 1 && st.instructions - st.instr_idle <= 40,
                      "loop at %X: %llu skips, ran %llu instructions of %llu", (unsigned)at,
                      (unsigned long long)st.idle_skips, (unsigned long long)(st.instructions - st.instr_idle),
                      (unsigned long long)st.instructions);
            vasm_free(&r);
            vax780_destroy(s);
        }
        CHECK(icount[0] == icount[1] && t[0] == t[1] && digest[0] == digest[1],
              "loop at %X: wake-up at %llu/%llu instructions, %llu/%llu ns", (unsigned)at,
              (unsigned long long)icount[0], (unsigned long long)icount[1], (unsigned long long)t[0],
              (unsigned long long)t[1]);
    }
}

/* A loop with nothing pending at all: skipped to the end of the budget
 * (after the few instructions that fill the TB, so that the loop can be
 * read through it). */
static void test_idle_skip_to_budget(void)
{
    vax780 *s = new_system(1);
    if (!s)
        return;
    static const uint8_t brb_self[] = {0x11, 0xFE};
    vax_phys_write(s->m, 0x1000, brb_self, sizeof brb_self);
    vax_set_reg(s->m, 15, 0x1000);   /* kernel, interrupt stack, IPL 31 */
    CHECK(vax_run(s->m, 1000000000ull) == VAX_STOP_BUDGET, "stop");
    vax_stats st;
    vax_stats_get(s->m, &st);
    CHECK(st.instructions == 1000000000ull && st.instr_idle >= 1000000000ull - 32, "idle %llu of %llu",
          (unsigned long long)st.instr_idle, (unsigned long long)st.instructions);
    CHECK(vax_get_reg(s->m, 15) == 0x1000, "PC %08X", vax_get_reg(s->m, 15));
    vax780_destroy(s);
}

/* Counted delay loops (SOBGTR, SOBGEQ, AOBLSS, AOBLEQ branching to
 * themselves) end with the same registers, codes and counts. */
static const char delay_src[] =
    ".org 0x1000\n"
    "start:  movl #1000000, r11\n"
    "l1:     sobgtr r11, l1\n"
    "        movl #30000, r9\n"
    "l2:     sobgeq r9, l2\n"
    "        movl #-500, r10\n"
    "l3:     aoblss #40000, r10, l3\n"
    "        clrl r8\n"
    "l4:     aobleq @#limit, r8, l4\n"
    "        movpsl r7\n"
    "        halt\n"
    "limit:  .long 50000\n";

static void test_counted_loops(void)
{
    uint64_t digest[2] = {0, 0};
    for (int on = 0; on < 2; on++) {
        vax780 *s = new_system(on);
        vasm_result r = {0};
        if (!s || load(s->m, delay_src, 0, &r) != 0) {
            vasm_free(&r);
            vax780_destroy(s);
            return;
        }
        vax_set_reg(s->m, 15, sym(&r, "start"));
        vax_stop_reason stop = VAX_STOP_BUDGET;
        for (int i = 0; i < 1000 && stop == VAX_STOP_BUDGET; i++)
            stop = vax_run(s->m, 50000);
        CHECK(stop == VAX_STOP_HALT, "did not halt");
        vax_machine *m = s->m;
        CHECK(vax_get_reg(m, 11) == 0 && vax_get_reg(m, 9) == 0xFFFFFFFFu && vax_get_reg(m, 10) == 40000 &&
                  vax_get_reg(m, 8) == 50001,
              "registers %u %d %u %u", vax_get_reg(m, 11), (int)vax_get_reg(m, 9), vax_get_reg(m, 10),
              vax_get_reg(m, 8));
        uint64_t want = 1 + 1000000 + 1 + 30001 + 1 + 40500 + 1 + 50001 + 2;
        CHECK(vax_instruction_count(m) == want, "instructions %llu, want %llu",
              (unsigned long long)vax_instruction_count(m), (unsigned long long)want);
        vax_stats st;
        vax_stats_get(m, &st);
        if (on)
            CHECK(st.instr_idle > want - 4 * 50000, "idle %llu", (unsigned long long)st.instr_idle);
        else
            CHECK(st.instr_idle == 0, "idle without skipping");
        check_partition(&st, "delay");
        digest[on] = vax_state_digest(m);
        vasm_free(&r);
        vax780_destroy(s);
    }
    CHECK(digest[0] == digest[1], "delay loops: state differs with skipping");
}

/* Random wait loops: bodies drawn from what the detector accepts (tests
 * of a flag the clock handler sets, conditional exits, MTPR to IPL, NOP,
 * delay loops) and from what it must refuse (register and memory writes,
 * autoincrement, I/O-free but side-effecting instructions), with random
 * clock rates and slices.  Skipping on and off must end identically. */
static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void random_loop_program(uint64_t *seed, char *src, size_t cap)
{
    static const char *const pure[] = {
        "tstl @#flag", "tstb flag", "tstl (r2)", "tstl 4(r3)", "cmpl @#flag, #0", "cmpl @#flag, r4",
        "bitl #1, @#flag", "tstw @#other", "cmpw other, #7", "mtpr #0, #18", "nop", "tstl r7",
        "bneq exit", "beql next%d", "bgtr next%d", "blbs @#flag, exit", "blbc @#other, next%d",
        "bcs next%d", "bvs exit",
    };
    static const char *const impure[] = {
        "incl r5", "movl r5, @#scratch", "tstl (r8)+", "mtpr #1, #18", "addl2 #1, @#scratch", "mfpr #24, r9",
    };
    size_t n = 0;
    n += (size_t)snprintf(src + n, cap - n,
                          ".org 0xC0\n    .long clock+1\n.org 0x1000\n"
                          "start: mtpr #-%u, #25\n        mtpr #0x51, #24\n"
                          "        moval @#flag, r2\n        moval @#flag-4, r3\n        movl #%u, r4\n"
                          "        moval @#scratch, r8\n        mtpr #0, #18\n"
                          "loop:\n",
                          500 + rnd(seed) % 20000, rnd(seed) % 3);
    int len = 1 + (int)(rnd(seed) % 6);
    for (int i = 0; i < len; i++) {
        uint32_t r = rnd(seed) % 100;
        char ins[64];
        if (r < 8)
            snprintf(ins, sizeof ins, "%s", impure[rnd(seed) % (sizeof impure / sizeof impure[0])]);
        else if (r < 14)
            snprintf(ins, sizeof ins, "movl #%u, r6\nd%d:     sobgtr r6, d%d", 1 + rnd(seed) % 3000, i, i);
        else if (r < 18)
            snprintf(ins, sizeof ins, "clrl r6\nd%d:     aoblss #%u, r6, d%d", i, 1 + rnd(seed) % 3000, i);
        else
            snprintf(ins, sizeof ins, pure[rnd(seed) % (sizeof pure / sizeof pure[0])], i);
        n += (size_t)snprintf(src + n, cap - n, "        %s\nnext%d:\n", ins, i);
    }
    n += (size_t)snprintf(src + n, cap - n,
                          "        %s loop\n"
                          "exit:   halt\n"
                          "        .align 4\n"
                          "clock:  mtpr #0xC1, #24\n        incl @#ticks\n        cmpl @#ticks, #%u\n"
                          "        blss back\n        movl #1, @#flag\n        incl @#other\n"
                          "back:   rei\n"
                          ".org 0x2000\n"
                          "flag:   .long 0\nother:  .long 6\nticks:  .long 0\nscratch: .long 0\n",
                          (rnd(seed) & 1) ? "brb" : "brw", 1 + rnd(seed) % 6);
}

static void test_random_loops(void)
{
    uint64_t seed = 12345;
    int halted = 0, skipped = 0;
    for (int t = 0; t < 200; t++) {
        char src[4096];
        random_loop_program(&seed, src, sizeof src);
        uint64_t slice = 1000 + rnd(&seed) % 100000;
        uint64_t digest[2] = {0, 0}, time[2] = {0, 0};
        vax_stop_reason stop[2] = {VAX_STOP_BUDGET, VAX_STOP_BUDGET};
        for (int on = 0; on < 2; on++) {
            vax780 *s = new_system(on);
            vasm_result r = {0};
            if (!s || load(s->m, src, 0, &r) != 0) {
                printf("%s", src);
                vasm_free(&r);
                vax780_destroy(s);
                return;
            }
            enter_kernel(s->m, &r, "start");
            for (uint64_t done = 0; done < 600000 && stop[on] == VAX_STOP_BUDGET; done += slice)
                stop[on] = vax_run(s->m, slice);
            digest[on] = vax_state_digest(s->m);
            time[on] = machine_time_ns(s->m);
            if (on) {
                vax_stats st;
                vax_stats_get(s->m, &st);
                skipped += st.idle_skips > 0;
            }
            vasm_free(&r);
            vax780_destroy(s);
        }
        halted += stop[0] == VAX_STOP_HALT;
        CHECK(digest[0] == digest[1] && time[0] == time[1] && stop[0] == stop[1],
              "random loop %d: skipping changed the outcome (stop %d/%d)\n%s", t, stop[0], stop[1], src);
    }
    /* The generator must actually produce both kinds of run. */
    CHECK(halted > 20 && skipped > 30, "random loops: %d halted, %d skipped", halted, skipped);
}

/* ------------------------------------------------------------------ disks */

/* A pack that holds nothing: reads give zeros, writes vanish. */
static int null_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    (void)bd;
    (void)off;
    memset(buf, 0, len);
    return 0;
}

static int null_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    (void)bd;
    (void)off;
    (void)buf;
    (void)len;
    return 0;
}

#define MBA1 sbi_nexus_address(9)   /* hp5 is drive 1 of MBA1 (TR 9) */
#define DRV(unit, reg) (MBA_DRIVE_BASE + (uint32_t)(unit) * MBA_DRIVE_STRIDE + 4u * (uint32_t)(reg))

static void mba_wr(vax_machine *m, uint32_t off, uint32_t v) { bus_write(m, MBA1 + off, 4, v); }

static uint32_t mba_rd(vax_machine *m, uint32_t off)
{
    uint32_t v = 0;
    bus_read(m, MBA1 + off, 4, &v);
    return v;
}

/* A transfer of `bytes` to/from memory page 0x40 on, from (cyl, trk, sec);
 * the processor idles in BRB . until the adapter is done. */
static void transfer(vax_machine *m, uint32_t func, uint32_t bytes, int cyl, int trk, int sec)
{
    for (uint32_t i = 0; i < 4; i++)
        mba_wr(m, MBA_MAP_BASE + 4 * i, (0x40 + i) | MBAMAP_VALID);
    mba_wr(m, MBA_SR, 0xFFFFFFFFu);
    mba_wr(m, MBA_VAR, 0);
    mba_wr(m, MBA_BCR, 0u - bytes);
    mba_wr(m, DRV(1, RP_DC), (uint32_t)cyl);
    mba_wr(m, DRV(1, RP_DA), ((uint32_t)trk << 8) | (uint32_t)sec);
    mba_wr(m, DRV(1, RP_CS1), func | RPCS1_GO);
    for (int i = 0; i < 1000 && !(mba_rd(m, MBA_SR) & MBASR_DTCMP); i++)
        vax_run(m, 10000);
    CHECK(mba_rd(m, MBA_SR) & MBASR_DTCMP, "transfer did not complete");
}

static uint64_t flat(const vax780 *s, const char *name)
{
    size_t n = vax780_stats_count();
    uint64_t *v = calloc(n, sizeof *v);
    uint64_t found = UINT64_MAX;
    if (!v)
        return found;
    vax780_stats_flat(s, v, n);
    const char *p = vax780_stats_names();
    for (size_t i = 0; i < n && *p; i++) {
        size_t len = strcspn(p, ",");
        if (len == strlen(name) && !memcmp(p, name, len))
            found = v[i];
        p += len + (p[len] == ',');
    }
    free(v);
    return found;
}

static void test_disk(void)
{
    vax_blockdev pack = {NULL, 22ull * 19 * 815 * 512, 0, null_read, null_write};
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    cfg.disk[5].type = "RP06";
    cfg.disk[5].image = &pack;
    char err[256];
    vax780 *s = vax780_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "vax780_create: %s", err);
    if (!s)
        return;
    vax_machine *m = s->m;
    static const uint8_t brb_self[] = {0x11, 0xFE};
    vax_phys_write(m, 0x1000, brb_self, sizeof brb_self);
    vax_set_reg(m, 15, 0x1000);
    transfer(m, RPF_READ, 1024, 10, 0, 0);    /* seek 0 -> 10 */
    transfer(m, RPF_WRITE, 512, 12, 3, 4);    /* seek 10 -> 12 */
    transfer(m, RPF_READ, 1000, 20, 18, 21);  /* seek 12 -> 20, then on to cylinder 21 */
    mba_disk_stats d;
    CHECK(vax780_disk_stats(s, 5, &d) == 0, "no stats for hp5");
    CHECK(vax780_disk_stats(s, 0, &d) == -1, "stats for an absent hp0");
    vax780_disk_stats(s, 5, &d);
    CHECK(d.transfers == 3 && d.reads == 2 && d.writes == 1, "xfers %llu reads %llu writes %llu",
          (unsigned long long)d.transfers, (unsigned long long)d.reads, (unsigned long long)d.writes);
    CHECK(d.bytes_read == 2024 && d.bytes_written == 512 && d.sectors == 5, "bytes %llu/%llu sectors %llu",
          (unsigned long long)d.bytes_read, (unsigned long long)d.bytes_written, (unsigned long long)d.sectors);
    CHECK(d.seeks == 3 && d.cylinders == 10 + 2 + 8 + 1, "seeks %llu cylinders %llu", (unsigned long long)d.seeks,
          (unsigned long long)d.cylinders);
    CHECK(d.busy_ns > 3 * 10000000ull, "busy %llu ns", (unsigned long long)d.busy_ns);
    CHECK(flat(s, "disk.hp5.cylinders") == 21 && flat(s, "disk.hp5.bytes_written") == 512 &&
              flat(s, "disk.hp0.xfers") == 0 && flat(s, "disk.hp5.busy_ns") == d.busy_ns,
          "flat disk counters");
    vax780_destroy(s);
}

/* ------------------------------------------------------------ flat names */

static void test_flat_names(void)
{
    const char *names = vax780_stats_names();
    size_t n = 1;
    for (const char *p = names; *p; p++)
        n += *p == ',';
    CHECK(n == vax780_stats_count(), "%zu names for %zu counters", n, vax780_stats_count());
    CHECK(strstr(names, "instr.user,") && strstr(names, ",chmk.255,") && strstr(names, ",intr.vec.0x0c0,") &&
              strstr(names, "disk.hp7.busy_ns") && strstr(names, ",io.reads,io.writes,") && !strcmp(names + strlen(names) - 14, "intr.vec.0x3fc"),
          "names: %.60s...", names);
    CHECK(names[0] == 'i' && !strstr(names, ",,"), "empty name");
    vax780 *s = new_system(1);
    if (!s)
        return;
    uint64_t small[3] = {7, 7, 7};
    CHECK(vax780_stats_flat(s, small, 2) == vax780_stats_count() && small[2] == 7, "max is respected");
    CHECK(flat(s, "chmk.20") == 0 && flat(s, "intr.vec.0x3fc") == 0 && flat(s, "no.such") == UINT64_MAX,
          "lookup by name");
    vax780_destroy(s);
}

int main(void)
{
    test_chmk_and_modes();
    test_memory_management();
    test_idle_skip_invisible();
    test_idle_skip_to_event();
    test_idle_skip_across_page();
    test_idle_skip_to_budget();
    test_counted_loops();
    test_random_loops();
    test_disk();
    test_flat_names();
    return check_summary();
}
