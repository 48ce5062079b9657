/*
 * test_timing.c — the processor's cost model (src/cpu/timing.h): each part
 * is charged where timing.h says, once, and virtual time is the sum scaled
 * by the CPU preset.
 *
 * Each case runs a few instructions on a bare machine (memory management
 * off, kernel mode on the interrupt stack as after reset) one at a time and
 * compares the cost each adds with the figures in m->tm, so the test checks
 * the accounting, not the figures themselves (those are documented
 * estimates, emu/docs/timing.md).  Cache misses are checked apart
 * (test_cache), and left out of the other cases' sums.
 */
#include <stdio.h>
#include <string.h>

#include "asm/vasm.h"
#include "bus/bus.h"
#include "machine.h"
#include "vax.h"

#include "check.h"

static vax_machine *new_machine(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create");
    return m;
}

static int load(vax_machine *m, const char *src, vasm_result *r)
{
    if (vasm_assemble(src, 0x1000, r) != 0) {
        printf("assembler: line %d: %s\n", r->error_line, r->error);
        return -1;
    }
    vax_set_reg(m, 14, 0x8000);
    vax_set_reg(m, 15, 0x1000);
    return vax_phys_write(m, 0x1000, r->bytes, r->len);
}

/* Run one instruction; the cost it added, less its cache misses (their
 * cost depends on what the simulated cache held: test_cache checks it). */
static uint64_t step_cost(vax_machine *m)
{
    uint64_t c0 = m->cost, miss0 = m->cache.misses;
    vax_run(m, 1);
    return m->cost - c0 - (m->cache.misses - miss0) * m->tm.read_miss;
}

/* MOVC3 of n bytes: the opcode's base (register and register-deferred
 * operands add nothing) plus n times the per-byte cost; MOVC5 with fill:
 * the moved bytes and the fill bytes at their own rates. */
static void test_movc(void)
{
    static const uint32_t lens[] = {0, 1, 7, 512, 4096};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        vax_machine *m = new_machine();
        vasm_result r = {0};
        if (!m || load(m, "movc3 r6, (r7), (r8)\nmovc5 r6, (r7), #32, r9, (r8)\nhalt\n", &r) != 0)
            goto out;
        vax_set_reg(m, 6, lens[k]);
        vax_set_reg(m, 7, 0x20000);
        vax_set_reg(m, 8, 0x40000);
        vax_set_reg(m, 9, lens[k] + 100);
        uint64_t c = step_cost(m);
        uint64_t want = m->tm.op[0x28] + (uint64_t)lens[k] * m->tm.move_byte;
        CHECK(c == want, "MOVC3 of %u bytes cost %llu, want %llu", lens[k], (unsigned long long)c,
              (unsigned long long)want);
        vax_set_reg(m, 6, lens[k]);
        vax_set_reg(m, 7, 0x20000);
        vax_set_reg(m, 8, 0x40000);
        c = step_cost(m);
        /* #32 is a short literal: no specifier cost. */
        want = m->tm.op[0x2C] + (uint64_t)lens[k] * m->tm.move_byte + 100u * m->tm.fill_byte;
        CHECK(c == want, "MOVC5 of %u bytes + 100 fill cost %llu, want %llu", lens[k], (unsigned long long)c,
              (unsigned long long)want);
    out:
        vasm_free(&r);
        vax_destroy(m);
    }
}

/* LOCC: each byte examined before the one found is progress; the found
 * byte is not (R0 still counts it). */
static void test_locc_progress(void)
{
    vax_machine *m = new_machine();
    vasm_result r = {0};
    if (!m || load(m, "locc #65, r6, (r7)\nhalt\n", &r) != 0)
        goto out;
    static const char text[] = "xxxxxxxxxxA";
    vax_phys_write(m, 0x20000, text, sizeof text - 1);
    vax_set_reg(m, 6, sizeof text - 1);
    vax_set_reg(m, 7, 0x20000);
    uint64_t c = step_cost(m);
    /* #65 does not fit a short literal: an immediate, charged as a read. */
    uint64_t want = m->tm.op[0x3A] + m->tm.read + 10u * m->tm.locc_byte;
    CHECK(c == want && vax_get_reg(m, 0) == 1, "LOCC cost %llu, want %llu (R0 %u)", (unsigned long long)c,
          (unsigned long long)want, vax_get_reg(m, 0));
out:
    vasm_free(&r);
    vax_destroy(m);
}

/* CALLS with k registers in the entry mask and its RET: the base costs
 * plus k times call_reg each; PUSHR/POPR likewise with pushr_reg. */
static void test_calls_registers(void)
{
    static const uint32_t masks[] = {0x0000, 0x0004, 0x00FC, 0x0FFF};
    static const unsigned counts[] = {0, 1, 6, 12};
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++) {
        vax_machine *m = new_machine();
        vasm_result r = {0};
        char src[256];
        snprintf(src, sizeof src,
                 "calls #0, (r9)\npushr #0x%X\npopr #0x%X\nhalt\n.align 2\nproc: .word 0x%X\nret\n",
                 (unsigned)masks[k], (unsigned)masks[k], (unsigned)masks[k]);
        if (!m || load(m, src, &r) != 0)
            goto out;
        uint32_t proc = 0;
        CHECK(vasm_symbol(&r, "proc", &proc) == 0, "no symbol proc");
        vax_set_reg(m, 9, proc);
        uint64_t c = step_cost(m);
        uint64_t want = m->tm.op[0xFB] + counts[k] * m->tm.call_reg;
        CHECK(c == want, "CALLS saving %u registers cost %llu, want %llu", counts[k], (unsigned long long)c,
              (unsigned long long)want);
        c = step_cost(m);   /* RET */
        want = m->tm.op[0x04] + counts[k] * m->tm.call_reg;
        CHECK(c == want, "RET restoring %u registers cost %llu, want %llu", counts[k], (unsigned long long)c,
              (unsigned long long)want);
        /* PUSHR/POPR: a mask over 63 is an immediate, charged as a read. */
        uint64_t imm = masks[k] > 63 ? m->tm.read : 0;
        c = step_cost(m);
        want = m->tm.op[0xBB] + imm + counts[k] * m->tm.pushr_reg;
        CHECK(c == want, "PUSHR of %u registers cost %llu, want %llu", counts[k], (unsigned long long)c,
              (unsigned long long)want);
        c = step_cost(m);   /* POPR */
        want = m->tm.op[0xBA] + imm + counts[k] * m->tm.pushr_reg;
        CHECK(c == want, "POPR of %u registers cost %llu, want %llu", counts[k], (unsigned long long)c,
              (unsigned long long)want);
    out:
        vasm_free(&r);
        vax_destroy(m);
    }
}

/* One instruction on each of a pair of machines running the same code,
 * the second with the host's look-up of the TB emptied first (not part of
 * the model: only the slow paths can run there); 1 if the two then agree
 * in cost, cache and TB misses, instruction count, registers and PSL. */
static int step_both_paths(vax_machine *pair[2])
{
    for (uint32_t i = 0; i < XLAT_SIZE; i++)
        pair[1]->xlat[i].tag = XLAT_INVALID;
    vax_run(pair[0], 1);
    vax_run(pair[1], 1);
    vax_machine *a = pair[0], *b = pair[1];
    int same = a->cost == b->cost && a->cache.misses == b->cache.misses && a->icount == b->icount &&
               a->stats.tb_miss == b->stats.tb_miss;
    for (int i = 0; i < 16; i++)
        same = same && vax_get_reg(a, i) == vax_get_reg(b, i);
    return same && vax_get_psl(a) == vax_get_psl(b);
}

/* CALLS and RET make their frame straight in the page when the host's
 * look-up of the TB holds it and the frame fits (exec_call.c), through the
 * page cursor otherwise.  The two ways must agree in everything: the
 * same frame made and unmade with the stack pointer at every byte around
 * a page boundary (aligned or not, frames inside one page, running into
 * the next, or only their argument count beyond it), once as the
 * interpreter runs it and once with the look-up emptied before each
 * instruction (which is not part of the model: only the cursor's path can
 * run then), compared instruction by instruction: cost, cache misses,
 * TB misses, registers and the frame's bytes. */
static void test_call_frame_paths(void)
{
    static const uint32_t masks[] = {0x0000, 0x0007, 0x0FFF};
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++) {
        char src[512];
        int n = snprintf(src, sizeof src,
                         "tstl -4(sp)\ntstl -80(sp)\ncalls #1, (r9)\nhalt\n.align 2\nproc: .word 0x%X\n",
                         (unsigned)masks[k]);
        for (int i = 0; i < 12; i++)
            n += snprintf(src + n, sizeof src - (size_t)n, "clrl r%d\n", i);
        snprintf(src + n, sizeof src - (size_t)n, "ret\n");
        for (uint32_t sp0 = 0x8000 - 96; sp0 <= 0x8000 + 8; sp0++) {
            vax_machine *pair[2] = {new_machine(), new_machine()};
            vasm_result r[2] = {{0}, {0}};
            uint32_t proc = 0;
            if (!pair[0] || !pair[1] || load(pair[0], src, &r[0]) != 0 || load(pair[1], src, &r[1]) != 0 ||
                vasm_symbol(&r[0], "proc", &proc) != 0) {
                CHECK(0, "set-up for SP %X", sp0);
                goto out;
            }
            for (int j = 0; j < 2; j++) {
                for (int i = 0; i < 12; i++)
                    vax_set_reg(pair[j], i, 0x1000u * (uint32_t)(i + 1) + sp0);
                vax_set_reg(pair[j], 9, proc);
                vax_set_reg(pair[j], 12, 0xA0A0u);
                vax_set_reg(pair[j], 13, 0xB0B0u);
                vax_set_reg(pair[j], 14, sp0);
                /* the argument count CALLS pushes is #1: one longword
                 * above it, which RET skips */
            }
            /* Two TSTLs load the frame's pages into the TB (as a kernel's
             * stack usually is), then CALLS, 12 CLRL, RET. */
            for (int step = 0; step < 16; step++) {
                int same = step_both_paths(pair);
                vax_machine *a = pair[0], *b = pair[1];
                same = same && memcmp(a->bus.mem + 0x7F00, b->bus.mem + 0x7F00, 0x200) == 0;
                CHECK(same, "mask %X, SP %X, step %d: the two paths differ (cost %llu / %llu)", (unsigned)masks[k],
                      sp0, step, (unsigned long long)a->cost, (unsigned long long)b->cost);
                if (!same)
                    goto out;
            }
            /* After RET: every register back, SP past the argument list. */
            for (int i = 0; i < 12; i++)
                CHECK(vax_get_reg(pair[0], i) ==
                          (!((masks[k] >> i) & 1) ? 0 : i == 9 ? proc : 0x1000u * (uint32_t)(i + 1) + sp0),
                      "mask %X, SP %X: R%d after RET is %X", (unsigned)masks[k], sp0, i, vax_get_reg(pair[0], i));
            CHECK(vax_get_reg(pair[0], 12) == 0xA0A0u && vax_get_reg(pair[0], 13) == 0xB0B0u &&
                      vax_get_reg(pair[0], 14) == sp0 + 4 && vax_get_reg(pair[0], 15) == 0x1009u,
                  "mask %X, SP %X: AP %X FP %X SP %X PC %X after RET", (unsigned)masks[k], sp0,
                  vax_get_reg(pair[0], 12), vax_get_reg(pair[0], 13), vax_get_reg(pair[0], 14),
                  vax_get_reg(pair[0], 15));
        out:
            for (int j = 0; j < 2; j++) {
                vasm_free(&r[j]);
                vax_destroy(pair[j]);
            }
        }
    }
}

/* The fast switch has cases of its own for HALT (0x00) and ESCF (0xFF)
 * (execute.c: with both ends of the byte's range listed, its jump table
 * needs no range check); everywhere else they go to their groups.  Each
 * must do exactly what the group path does.  The same code runs on two
 * machines: on the first at the start of a page (its first instruction
 * takes the refill of the fetch shortcut, the rest the fast form), on the
 * second in the last DC_WINDOW bytes of a page (the checked form, through
 * dispatch_group); compared after every instruction: cost, cache and TB
 * misses, instruction count, registers but the PC, PSL, the stop reason
 * and the PC and PSL the reserved-instruction fault pushed, each at its
 * own address.  NOP, then ESCF (a fault to the handler), whose HALT stops
 * the machine; and HALT in the code itself. */
static void test_fast_switch_ends(void)
{
    static const struct {
        const char *code;
        int steps;
    } cases[] = {
        {"nop\n.byte 0xFF\nnop\n", 3},   /* NOP, ESCF, the handler's HALT */
        {"nop\nhalt\n", 2},              /* NOP, HALT */
    };
    static const uint32_t at[2] = {0x1000, 0x11F4};   /* the fast form; the checked form */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vax_machine *pair[2] = {new_machine(), new_machine()};
        vasm_result r[2] = {{0}, {0}}, handler = {0};
        if (!pair[0] || !pair[1] || vasm_assemble("halt\n", 0x3000, &handler) != 0) {
            CHECK(0, "set-up of case %zu", k);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            if (vasm_assemble(cases[k].code, at[j], &r[j]) != 0) {
                CHECK(0, "assembler: %s", r[j].error);
                goto out;
            }
            vax_phys_write(pair[j], at[j], r[j].bytes, r[j].len);
            vax_phys_write(pair[j], 0x3000, handler.bytes, handler.len);
            vax_set_ipr(pair[j], IPR_SCBB, 0x2000);
            vax_phys_write(pair[j], 0x2000 + 0x10, &(uint32_t){0x3000}, 4);   /* reserved instruction */
            vax_set_reg(pair[j], 14, 0x8000);
            vax_set_reg(pair[j], 15, at[j]);
        }
        for (int step = 0; step < cases[k].steps; step++) {
            vax_stop_reason why[2];
            for (int j = 0; j < 2; j++)
                why[j] = vax_run(pair[j], 1);
            vax_machine *a = pair[0], *b = pair[1];
            int same = why[0] == why[1] && a->cost == b->cost && a->cache.misses == b->cache.misses &&
                       a->icount == b->icount && a->stats.tb_miss == b->stats.tb_miss &&
                       vax_get_psl(a) == vax_get_psl(b);
            for (int i = 0; i < 15; i++)
                same = same && vax_get_reg(a, i) == vax_get_reg(b, i);
            uint32_t pc_a = vax_get_reg(a, 15), pc_b = vax_get_reg(b, 15);
            same = same && (pc_a - at[0] == pc_b - at[1] || (pc_a == 0x3000 && pc_b == 0x3000) ||
                            (pc_a == 0x3001 && pc_b == 0x3001));
            CHECK(same, "case %zu, step %d: fast and checked forms differ (cost %llu / %llu, PC %X / %X, stop %d / %d)",
                  k, step, (unsigned long long)a->cost, (unsigned long long)b->cost, pc_a, pc_b, (int)why[0],
                  (int)why[1]);
            if (!same)
                goto out;
        }
        CHECK(vax_get_reg(pair[0], 15) == (k == 0 ? 0x3001u : at[0] + 2), "case %zu: stopped at PC %X", k,
              vax_get_reg(pair[0], 15));
        if (k == 0) {
            /* The fault's frame: the PC of ESCF itself, then the PSL. */
            uint32_t sp = vax_get_reg(pair[0], 14), frame[2][2];
            CHECK(sp == vax_get_reg(pair[1], 14), "the two frames' SP");
            for (int j = 0; j < 2; j++)
                vax_phys_read(pair[j], sp, frame[j], 8);
            CHECK(frame[0][0] == at[0] + 1 && frame[1][0] == at[1] + 1, "ESCF's fault PC %X / %X", frame[0][0],
                  frame[1][0]);
            CHECK(frame[0][1] == frame[1][1], "the pushed PSL %X / %X", frame[0][1], frame[1][1]);
        }
    out:
        for (int j = 0; j < 2; j++) {
            vasm_free(&r[j]);
            vax_destroy(pair[j]);
        }
        vasm_free(&handler);
    }
}

/* An index specifier with a PC-relative base (b^, w^ or l^ tab[Rx], how a
 * kernel reads its tables) is decoded by decode.c's fast decoder
 * (decode_at) when it lies 10 bytes or more before the end of its page,
 * and by the general one, byte by byte through the instruction stream,
 * when it lies nearer the end.  The two must agree: each instruction
 * (read, write, modify and address operands, each base width) runs on two
 * machines, at 0x1000 on one and in the last bytes of the page at 0x1000
 * on the other (its table 0x1F0 bytes on as well, filled alike), and
 * cost, cache and TB misses, count, R2, PSL and the PC's offset must be
 * the same; and the operand must be the one the index addresses. */
/* Two machines that ran the same instruction, one by the fast decoder and
 * one by the general: the same charged time, cache and TB misses, count and
 * PSL (each test compares its own registers and memory besides). */
static int same_timing(vax_machine *a, vax_machine *b)
{
    return a->cost == b->cost && a->cache.misses == b->cache.misses && a->icount == b->icount &&
           a->stats.tb_miss == b->stats.tb_miss && vax_get_psl(a) == vax_get_psl(b);
}

/* execute.c's execute_page_tail: TST, CMP, MOV, CLR, PUSHL, ADD and SUB
 * in the last DC_WINDOW bytes of a page run their bodies there (in
 * DC_FAST_CHECKED_IMM) when their longest encoding fits in the page, and
 * through their groups in the checked form when it might not; both must
 * charge the same.  Each instruction runs on two fresh machines, at an
 * offset execute_page_tail takes on the first and at one it leaves to the
 * checked form on the second, the two offsets 8 bytes apart (the same
 * place in a cache block) with the instruction inside the page at both,
 * after a NOP just before it (which fills the fetch shortcut: without it
 * the instruction would find none and go the checked way on both);
 * compared after the two: cost, cache and TB misses, count, PSL, R0-R14,
 * the PC's offset, and the longword at 0x6004 and the one pushed.  The
 * immediates are where the forms could part: the checked form reads them
 * through the TB and the cache model, the fast form charges a flat read
 * (with execute_page_tail's context made DC_FAST, the SUBL2 case fails:
 * its immediate lies in the next cache block, a miss). */
static void test_page_tail_form(void)
{
    static const struct {
        const char *code;
        uint32_t taken, checked;   /* page offsets: execute_page_tail's, the checked form's */
    } cases[] = {
        {"tstl #0x12345678\n", 498, 506},              /* 6 bytes; TSTL taken up to 505 */
        {"movl b^4(r2), r1\n", 498, 506},              /* MOVL up to 499 */
        {"cmpl r1, #0x12345678\n", 497, 505},          /* 7 bytes */
        {"pushl #0x12345678\n", 498, 506},
        {"clrl b^4(r2)\n", 500, 508},                  /* CLRL up to 505 */
        {"addl3 #1, b^4(r2), r3\n", 491, 507},         /* ADDL3 up to 493; 5 bytes */
        {"subl2 #0x10000, r1\n", 494, 502},            /* SUBL2 up to 499; an immediate, 7 bytes */
        {"movb #0x7F, b^4(r2)\n", 499, 507},           /* MOVB up to 499 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vax_machine *pair[2] = {new_machine(), new_machine()};
        vasm_result r[2] = {{0}, {0}};
        const uint32_t at[2] = {0x1000 + cases[k].taken, 0x1200 + cases[k].checked};   /* the instruction's */
        if (!pair[0] || !pair[1]) {
            CHECK(0, "set-up of %s", cases[k].code);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            char src[100];
            snprintf(src, sizeof src, "nop\n%s", cases[k].code);
            if (vasm_assemble(src, at[j] - 1, &r[j]) != 0) {
                CHECK(0, "assembler: %s", r[j].error);
                goto out;
            }
            CHECK(((at[j] - 1) & 511u) + r[j].len <= 512u, "%s at %X: inside its page", cases[k].code, at[j]);
            vax_phys_write(pair[j], at[j] - 1, r[j].bytes, r[j].len);
            vax_phys_write(pair[j], 0x6004, &(uint32_t){0x89ABCDEF}, 4);
            vax_set_reg(pair[j], 1, 0x12345678);
            vax_set_reg(pair[j], 2, 0x6000);
            vax_set_reg(pair[j], 14, 0x8000);
            vax_set_reg(pair[j], 15, at[j] - 1);
            vax_run(pair[j], 2);
        }
        vax_machine *a = pair[0], *b = pair[1];
        int same = same_timing(a, b) && a->icount == 2 && vax_get_reg(a, 15) - at[0] == vax_get_reg(b, 15) - at[1];
        for (int i = 0; i < 15; i++)
            same = same && vax_get_reg(a, i) == vax_get_reg(b, i);
        uint32_t mem[2][2];
        for (int j = 0; j < 2; j++) {
            vax_phys_read(pair[j], 0x6004, &mem[j][0], 4);
            vax_phys_read(pair[j], 0x7FFC, &mem[j][1], 4);
        }
        same = same && mem[0][0] == mem[1][0] && mem[0][1] == mem[1][1];
        CHECK(same, "%s: execute_page_tail and the checked form differ (cost %llu / %llu, misses %llu / %llu)",
              cases[k].code, (unsigned long long)a->cost, (unsigned long long)b->cost,
              (unsigned long long)a->cache.misses, (unsigned long long)b->cache.misses);
    out:
        for (int j = 0; j < 2; j++) {
            vasm_free(&r[j]);
            vax_destroy(pair[j]);
        }
    }
}

/* execute.c's inner loop: after an instruction of the fast switch's own,
 * the next one starts without the head's PSL test, and after one that
 * cannot request an arithmetic trap, without the trap test.  Three cases
 * where those tests must still fire, each run in one vax_run of up to 64
 * instructions on two machines, the code (and its handler) at the start of
 * a page on the first (the fast form, instruction after instruction in
 * the inner loop) and in the last DC_WINDOW bytes of a page on the second
 * (the checked form, or execute_page_tail's, every instruction through the
 * full tail), compared at
 * the end: stop reason, cost, cache and TB misses, count, PSL, R0-R14, and
 * the PC's offset from where the code or handler lies:
 *   0. a trap left pending when the loop starts (set from outside: no
 *      instruction leaves one pending when it faults, test_trap_fault.c):
 *      taken after the next instruction that completes, a MOVL;
 *   1. the same, with that next instruction a reserved one (ESCF, a
 *      fault): taken after the handler's first instruction, a MOVL;
 *   2. tracing (PSL<T> set by BISPSW): a trace trap after every
 *      instruction, counted by the handler in R6 (MOVL, INCL: fast-switch
 *      instructions, each followed by its trap);
 *   3. ADDL2 overflowing with PSL<IV> set, in the inner loop: the trap
 *      taken once, after the ADDL2 and before the next MOVL;
 *   4. the same traced: the arithmetic trap, then (its handler's REI
 *      restoring PSL<TP>) the ADDL2's trace trap.
 * In cases 3 and 4 the arithmetic trap's handler counts its traps in R7,
 * notes R2 in R8, R4 in R10 and the trap's code in R9, and returns; in
 * the others it halts.
 * (The handlers lie at longword addresses: an SCB vector's low two bits
 * choose the stack, or halt.)  Leaving out either test where it must fire
 * fails cases 0 and 1 (the trap taken after the HALT, or not at all) or
 * case 2 (no trace trap after the fast-switch instructions); leaving out
 * the `simple` tail's test of trap_pending fails case 3 (no trap at all
 * in the fast form). */
static void test_inner_loop_traps(void)
{
    static const struct {
        const char *code;
        const char *handler;   /* the reserved-instruction fault's */
        int preset_trap;
        uint32_t r6;   /* trace traps counted */
        int overflow;  /* the arithmetic trap's handler counts and returns */
    } cases[] = {
        {"movl r1, r2\nmovl r2, r3\nhalt\n", "halt\n", 1, 0, 0},
        {".byte 0xFF\nhalt\n", "movl r1, r2\nmovl r2, r3\nhalt\n", 1, 0, 0},
        {"bispsw #0x10\nmovl r1, r2\nmovl r2, r3\nincl r4\nmovl r3, r5\nhalt\n", "halt\n", 0, 4, 0},
        {"bispsw #0x20\nmovl #0x7FFFFFFF, r4\naddl2 #1, r4\nmovl r1, r2\nmovl r2, r3\nhalt\n", "halt\n", 0, 0, 1},
        {"bispsw #0x30\nmovl #0x7FFFFFFF, r4\naddl2 #1, r4\nmovl r1, r2\nhalt\n", "halt\n", 0, 3, 1},
    };
    static const uint32_t at[2] = {0x1000, 0x11E2}, handler_at[2] = {0x3000, 0x31E4};
    static const uint32_t arith_at = 0x4000, trace_at = 0x5000;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vax_machine *pair[2] = {new_machine(), new_machine()};
        vasm_result r[2] = {{0}, {0}}, h[2] = {{0}, {0}}, arith = {0}, trace = {0};
        vax_stop_reason why[2] = {VAX_STOP_BUDGET, VAX_STOP_BUDGET};
        const char *arith_src =
            cases[k].overflow ? "incl r7\nmovl r2, r8\nmovl r4, r10\nmovl (sp)+, r9\nrei\n" : "halt\n";
        if (!pair[0] || !pair[1] || vasm_assemble(arith_src, arith_at, &arith) != 0 ||
            vasm_assemble("incl r6\nrei\n", trace_at, &trace) != 0) {
            CHECK(0, "set-up of case %zu", k);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            vax_machine *m = pair[j];
            if (vasm_assemble(cases[k].code, at[j], &r[j]) != 0 ||
                vasm_assemble(cases[k].handler, handler_at[j], &h[j]) != 0) {
                CHECK(0, "assembler: %s %s", r[j].error, h[j].error);
                goto out;
            }
            vax_phys_write(m, at[j], r[j].bytes, r[j].len);
            vax_phys_write(m, handler_at[j], h[j].bytes, h[j].len);
            vax_phys_write(m, arith_at, arith.bytes, arith.len);
            vax_phys_write(m, trace_at, trace.bytes, trace.len);
            vax_set_ipr(m, IPR_SCBB, 0x2000);
            vax_phys_write(m, 0x2000 + 0x10, &handler_at[j], 4);   /* reserved instruction */
            vax_phys_write(m, 0x2000 + 0x34, &arith_at, 4);        /* arithmetic trap */
            vax_phys_write(m, 0x2000 + 0x28, &trace_at, 4);        /* trace */
            vax_set_reg(m, 1, 0x1234);
            vax_set_reg(m, 14, 0x8000);
            vax_set_reg(m, 15, at[j]);
            if (cases[k].preset_trap)
                m->cpu.trap_pending = ARITH_INT_OVERFLOW;
            why[j] = vax_run(m, 64);
        }
        vax_machine *a = pair[0], *b = pair[1];
        int same = why[0] == why[1] && same_timing(a, b);
        for (int i = 0; i < 15; i++)
            same = same && vax_get_reg(a, i) == vax_get_reg(b, i);
        uint32_t pc_a = vax_get_reg(a, 15), pc_b = vax_get_reg(b, 15);
        int same_pc = pc_a == pc_b || pc_a - at[0] == pc_b - at[1] || pc_a - handler_at[0] == pc_b - handler_at[1];
        CHECK(same && same_pc, "case %zu: fast and checked forms differ (count %llu / %llu, cost %llu / %llu, PC %X / %X)",
              k, (unsigned long long)a->icount, (unsigned long long)b->icount, (unsigned long long)a->cost,
              (unsigned long long)b->cost, pc_a, pc_b);
        CHECK(why[0] == VAX_STOP_HALT, "case %zu: stopped by %d, not the HALT", k, (int)why[0]);
        if (cases[k].preset_trap) {
            /* The trap's handler halted, having been entered after the MOVL
             * (R2 written, R3 not) with the trap's code pushed. */
            uint32_t sp = vax_get_reg(a, 14), code = 0;
            vax_phys_read(a, sp, &code, 4);
            CHECK(pc_a == arith_at + 1 && vax_get_reg(a, 2) == 0x1234 && vax_get_reg(a, 3) == 0 &&
                      code == ARITH_INT_OVERFLOW,
                  "case %zu: the pending trap was taken at PC %X with code %u, R2 %X, R3 %X", k, pc_a, code,
                  vax_get_reg(a, 2), vax_get_reg(a, 3));
            CHECK(a->cpu.trap_pending == 0, "case %zu: the trap is still pending", k);
        }
        if (cases[k].overflow) {
            CHECK(pc_a == at[0] + r[0].len && vax_get_reg(a, 7) == 1 && vax_get_reg(a, 8) == 0 &&
                      vax_get_reg(a, 10) == 0x80000000u && vax_get_reg(a, 9) == ARITH_INT_OVERFLOW &&
                      vax_get_reg(a, 2) == 0x1234 && a->cpu.trap_pending == 0,
                  "case %zu: ended at PC %X after %u arithmetic traps, taken with R2 %X, R4 %X, code %u", k, pc_a,
                  vax_get_reg(a, 7), vax_get_reg(a, 8), vax_get_reg(a, 10), vax_get_reg(a, 9));
        }
        CHECK(vax_get_reg(a, 6) == cases[k].r6, "case %zu: %u trace traps, not %u", k, vax_get_reg(a, 6),
              cases[k].r6);
    out:
        for (int j = 0; j < 2; j++) {
            vasm_free(&r[j]);
            vasm_free(&h[j]);
            vax_destroy(pair[j]);
        }
        vasm_free(&arith);
        vasm_free(&trace);
    }
}

static void test_index_pc_base(void)
{
    static const char *const code[] = {
        "movl b^tab[r1], r2\n",  "movl w^tab[r1], r2\n", "movl l^tab[r1], r2\n",
        "movl r3, b^tab[r1]\n",  "addl2 r3, w^tab[r1]\n", "moval l^tab[r1], r2\n",
        "movb b^tab[r1], r2\n",  "movzwl w^tab[r1], r2\n",
    };
    /* Where each copy starts: the fast decoder; the general one (the
     * index specifier at 0x11F7, 9 bytes before the page's end). */
    static const uint32_t at[2] = {0x1000, 0x11F6};
    for (size_t k = 0; k < sizeof code / sizeof code[0]; k++) {
        vax_machine *pair[2] = {new_machine(), new_machine()};
        vasm_result r[2] = {{0}, {0}};
        uint32_t tab[2] = {0, 0};
        if (!pair[0] || !pair[1]) {
            CHECK(0, "set-up of %s", code[k]);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            char src[160];
            /* tab at 0x1060 and 0x1260 (in reach of a byte displacement
             * from both; the same place in its cache blocks) */
            snprintf(src, sizeof src, "%shalt\n.org 0x%X\ntab: .long 0\n", code[k], 0x1060u + 0x200u * (uint32_t)j);
            if (vasm_assemble(src, at[j], &r[j]) != 0 || vasm_symbol(&r[j], "tab", &tab[j]) != 0) {
                CHECK(0, "assembler: %s: %s", code[k], r[j].error);
                goto out;
            }
            vax_phys_write(pair[j], at[j], r[j].bytes, r[j].len);
            for (uint32_t i = 0; i < 8; i++)   /* the table: 0x11223300 + index */
                vax_phys_write(pair[j], tab[j] + 4 * i, &(uint32_t){0x11223300u + i}, 4);
            vax_set_reg(pair[j], 1, 2);
            vax_set_reg(pair[j], 3, 0x55u);
            vax_set_reg(pair[j], 14, 0x8000);
            vax_set_reg(pair[j], 15, at[j]);
        }
        for (int j = 0; j < 2; j++)
            vax_run(pair[j], 1);
        vax_machine *a = pair[0], *b = pair[1];
        int same = same_timing(a, b) && vax_get_reg(a, 15) - at[0] == vax_get_reg(b, 15) - at[1];
        uint32_t r2[2] = {vax_get_reg(a, 2), vax_get_reg(b, 2)}, mem[2];
        for (int j = 0; j < 2; j++)
            vax_phys_read(pair[j], tab[j] + 8, &mem[j], 4);
        CHECK(same, "%s: the fast and the general decoder differ (cost %llu / %llu, PC %X / %X)", code[k],
              (unsigned long long)a->cost, (unsigned long long)b->cost, vax_get_reg(a, 15), vax_get_reg(b, 15));
        /* What each one did: the element the index addresses (R1 = 2). */
        uint32_t want_r2 = k == 6 ? 0x22 : k == 7 ? 0x3301 : 0x11223302u;   /* byte 2, word 2 (at 4), longword 2 */
        if (k == 0 || k == 1 || k == 2 || k == 6 || k == 7)
            CHECK(r2[0] == want_r2 && r2[1] == want_r2, "%s: R2 %X / %X, want %X", code[k], r2[0], r2[1], want_r2);
        if (k == 5)
            CHECK(r2[0] == tab[0] + 8 && r2[1] == tab[1] + 8, "%s: R2 %X / %X", code[k], r2[0], r2[1]);
        if (k == 3)
            CHECK(mem[0] == 0x55u && mem[1] == 0x55u, "%s: the element %X / %X", code[k], mem[0], mem[1]);
        if (k == 4)
            CHECK(mem[0] == 0x11223357u && mem[1] == 0x11223357u, "%s: the element %X / %X", code[k], mem[0],
                  mem[1]);
    out:
        for (int j = 0; j < 2; j++) {
            vasm_free(&r[j]);
            vax_destroy(pair[j]);
        }
    }
}

/* Displacement deferred specifiers, @d(Rn) and @d(PC), taken by the fast
 * decoder (decode.c, K_DEFERRED): each access type and size, once where
 * the fast decoder takes the specifier and once 9 bytes before the end of
 * the page (the general decoder), on two fresh machines; the cost, cache
 * and TB misses, count, PSL, PC offset, R2 and the operand's memory must
 * agree.  Pointers at a cache block's end (the pointer's read across two
 * blocks) and beyond memory (the pointer's read faults: a machine check)
 * included. */
static void test_deferred_displacement(void)
{
    static const struct {
        const char *code;
        uint32_t r3;   /* the displacement's base */
    } cases[] = {
        {"movl @b^8(r3), r2\n", 0x20000},   {"movl @w^8(r3), r2\n", 0x20000},
        {"movl @l^8(r3), r2\n", 0x20000},   {"movl @b^14(r3), r2\n", 0x20000},
        {"movb @b^8(r3), r2\n", 0x20000},   {"movzwl @w^8(r3), r2\n", 0x20000},
        {"movl r4, @b^8(r3)\n", 0x20000},   {"addl2 r4, @b^8(r3)\n", 0x20000},
        {"incw @l^8(r3)\n", 0x20000},       {"moval @b^8(r3), r2\n", 0x20000},
        {"movq @b^8(r3), r6\n", 0x20000},   {"pushal @w^8(r3)\n", 0x20000},
        {"movl @b^ptr, r2\n", 0x20000},     {"movl @ptr, r2\n", 0x20000},
        {"movl r4, @w^ptr\n", 0x20000},     {"movl @b^8(r3), r2\n", 0x00F00000},
        {"addl2 r4, @b^8(r3)\n", 0x00F00000},
    };
    static const uint32_t at[2] = {0x1000, 0x11F6};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vax_machine *pair[2] = {new_machine(), new_machine()};
        vasm_result r[2] = {{0}, {0}};
        uint32_t ptr[2] = {0, 0};
        if (!pair[0] || !pair[1]) {
            CHECK(0, "set-up of %s", cases[k].code);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            char src[200];
            /* ptr (a pointer for the PC-relative cases) 0x60 after each
             * copy's page start: the same place in its cache blocks. */
            snprintf(src, sizeof src, "%shalt\n.org 0x%X\nptr: .long 0x30000\n", cases[k].code,
                     0x1060u + 0x200u * (uint32_t)j);
            if (vasm_assemble(src, at[j], &r[j]) != 0 || vasm_symbol(&r[j], "ptr", &ptr[j]) != 0) {
                CHECK(0, "assembler: %s: %s", cases[k].code, r[j].error);
                goto out;
            }
            vax_phys_write(pair[j], at[j], r[j].bytes, r[j].len);
            vax_phys_write(pair[j], 0x20008, &(uint32_t){0x30000}, 4);   /* @8(r3) */
            vax_phys_write(pair[j], 0x2000E, &(uint32_t){0x30004}, 4);   /* @14(r3): across two blocks */
            vax_phys_write(pair[j], 0x30000, &(uint32_t){0x11223344u}, 4);
            vax_phys_write(pair[j], 0x30004, &(uint32_t){0x55667788u}, 4);
            vax_set_reg(pair[j], 3, cases[k].r3);
            vax_set_reg(pair[j], 4, 0x0101u);
            vax_set_reg(pair[j], 14, 0x8000);
            vax_set_reg(pair[j], 15, at[j]);
        }
        for (int j = 0; j < 2; j++)
            vax_run(pair[j], 1);
        vax_machine *a = pair[0], *b = pair[1];
        uint32_t pc[2] = {vax_get_reg(a, 15), vax_get_reg(b, 15)};
        /* After a fault the PC is the handler's, the same in both; else
         * the instruction's end, at the same offset from its start. */
        int same_pc = pc[0] == pc[1] || pc[0] - at[0] == pc[1] - at[1];
        int same = same_timing(a, b) && same_pc &&
                   vax_get_reg(a, 2) == vax_get_reg(b, 2) && vax_get_reg(a, 6) == vax_get_reg(b, 6) &&
                   vax_get_reg(a, 7) == vax_get_reg(b, 7) && vax_get_reg(a, 14) == vax_get_reg(b, 14);
        uint32_t mem[2][2];
        for (int j = 0; j < 2; j++)
            vax_phys_read(pair[j], 0x30000, mem[j], 8);
        same = same && memcmp(mem[0], mem[1], sizeof mem[0]) == 0;
        CHECK(same, "%s (R3 %X): the fast and the general decoder differ (cost %llu / %llu, PC %X / %X, R2 %X / %X)",
              cases[k].code, cases[k].r3, (unsigned long long)a->cost, (unsigned long long)b->cost, pc[0], pc[1],
              vax_get_reg(a, 2), vax_get_reg(b, 2));
        /* What the fast one did. */
        if (k == 0 || k == 1 || k == 2 || k == 12 || k == 13)
            CHECK(vax_get_reg(a, 2) == 0x11223344u, "%s: R2 %X", cases[k].code, vax_get_reg(a, 2));
        if (k == 3)
            CHECK(vax_get_reg(a, 2) == 0x55667788u, "%s: R2 %X", cases[k].code, vax_get_reg(a, 2));
        if (k == 6 || k == 14)
            CHECK(mem[0][0] == 0x0101u, "%s: memory %X", cases[k].code, mem[0][0]);
        if (k == 7)
            CHECK(mem[0][0] == 0x11223445u, "%s: memory %X", cases[k].code, mem[0][0]);
        if (k == 9)
            CHECK(vax_get_reg(a, 2) == 0x30000u, "%s: R2 %X", cases[k].code, vax_get_reg(a, 2));
        if (k == 10)
            CHECK(vax_get_reg(a, 6) == 0x11223344u && vax_get_reg(a, 7) == 0x55667788u, "%s: R6 %X R7 %X",
                  cases[k].code, vax_get_reg(a, 6), vax_get_reg(a, 7));
        if (k == 15 || k == 16)
            CHECK(pc[0] - at[0] > 16u, "%s: the pointer's read beyond memory did not fault", cases[k].code);
    out:
        for (int j = 0; j < 2; j++) {
            vasm_free(&r[j]);
            vax_destroy(pair[j]);
        }
    }
}

/* Operand specifiers: register and literal operands are in the base;
 * memory ones add their mode's work and the access. */
static void test_specifiers(void)
{
    vax_machine *m = new_machine();
    vasm_result r = {0};
    if (!m || load(m,
                   "movl r1, r2\n"             /* base only */
                   "movl (r3), r2\n"           /* + read */
                   "movl r1, 8(r3)\n"          /* + displacement + write */
                   "addl2 #1, 4(r3)\n"         /* + displacement + read + write */
                   "movl @8(r3), r2\n"         /* + displacement + deferred + read */
                   "movl (r3)[r4], r2\n"       /* + index + read */
                   "moval 12(r3), r2\n"        /* + displacement, no access */
                   "halt\n",
                   &r) != 0)
        goto out;
    vax_set_reg(m, 3, 0x20000);
    vax_set_reg(m, 4, 1);
    vax_phys_write(m, 0x20008, &(uint32_t){0x20010}, 4);
    const vax_timing *t = &m->tm;
    uint64_t want[] = {
        t->op[0xD0],
        (uint64_t)t->op[0xD0] + t->read,
        (uint64_t)t->op[0xD0] + t->spec_disp + t->write,
        (uint64_t)t->op[0xC0] + t->spec_disp + t->read + t->write,
        (uint64_t)t->op[0xD0] + t->spec_disp + t->spec_deferred + t->read,
        (uint64_t)t->op[0xD0] + t->spec_index + t->read,
        (uint64_t)t->op[0xDE] + t->spec_disp,
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint64_t c = step_cost(m);
        CHECK(c == want[i], "instruction %zu cost %llu, want %llu", i, (unsigned long long)c,
              (unsigned long long)want[i]);
    }
out:
    vasm_free(&r);
    vax_destroy(m);
}

/* Virtual time is the cost scaled by the preset; two machines running the
 * same code agree exactly; the flat model is a fixed cost. */
static void test_scale_and_determinism(void)
{
    static const char loop[] = "movl #2000, r6\nagain: addl2 (r7)+, r8\nmovc3 #100, (r9), 400(r9)\n"
                               "sobgtr r6, again\nhalt\n";
    vax_machine *a = new_machine(), *b = new_machine();
    vasm_result ra = {0}, rb = {0};
    if (!a || !b || load(a, loop, &ra) != 0 || load(b, loop, &rb) != 0)
        goto out;
    machine_set_ns_per_instruction(b, 3333);
    for (vax_machine **p = (vax_machine *[]){a, b, NULL}; *p; p++) {
        vax_set_reg(*p, 7, 0x20000);
        vax_set_reg(*p, 9, 0x30000);
        CHECK(vax_run(*p, 100000) == VAX_STOP_HALT, "did not halt");
    }
    CHECK(a->cost == b->cost && vax_instruction_count(a) == vax_instruction_count(b), "the presets ran differently");
    CHECK(machine_time_ns(a) == a->cost, "780: time %llu, cost %llu", (unsigned long long)machine_time_ns(a),
          (unsigned long long)a->cost);
    CHECK(machine_time_ns(b) == b->cost * 3333 / 2000, "750: time %llu, cost %llu",
          (unsigned long long)machine_time_ns(b), (unsigned long long)b->cost);
    /* The average instruction of this loop (memory operands, a string
     * move) is in the range the model means: 1 to 20 us on a 780. */
    uint64_t avg = a->cost / vax_instruction_count(a);
    CHECK(avg > 1000 && avg < 20000, "average cost %llu ns", (unsigned long long)avg);

    vax_machine *f = new_machine();
    vasm_result rf = {0};
    if (f && load(f, loop, &rf) == 0) {
        vax_set_timing_flat(f, 2000);
        vax_set_reg(f, 7, 0x20000);
        vax_set_reg(f, 9, 0x30000);
        CHECK(vax_run(f, 100000) == VAX_STOP_HALT, "flat: did not halt");
        CHECK(machine_time_ns(f) == 2000 * vax_instruction_count(f), "flat: time %llu for %llu instructions",
              (unsigned long long)machine_time_ns(f), (unsigned long long)vax_instruction_count(f));
    }
    vasm_free(&rf);
    vax_destroy(f);
out:
    vasm_free(&ra);
    vasm_free(&rb);
    vax_destroy(a);
    vax_destroy(b);
}

/* Changing the preset keeps the time already elapsed. */
static void test_preset_change_keeps_time(void)
{
    vax_machine *m = new_machine();
    vasm_result r = {0};
    if (!m || load(m, "again: brb again\n", &r) != 0)
        goto out;
    vax_run(m, 1000);
    uint64_t t = machine_time_ns(m);
    machine_set_ns_per_instruction(m, 3333);
    CHECK(machine_time_ns(m) == t, "time jumped from %llu to %llu", (unsigned long long)t,
          (unsigned long long)machine_time_ns(m));
    uint64_t c0 = m->cost;
    vax_run(m, 1000);
    CHECK(machine_time_ns(m) == t + (m->cost - c0) * 3333 / 2000, "time after the change");
out:
    vasm_free(&r);
    vax_destroy(m);
}

/* The cache simulation: a read misses once and then hits; two blocks 4 KB
 * apart evict each other in the 750's direct-mapped 4 KB cache and both
 * stay in the 780's two-way 8 KB one; a miss costs read_miss. */
static void test_cache(void)
{
    static const int models[] = {780, 750};
    for (int k = 0; k < 2; k++) {
        vax_machine *m = new_machine();
        vasm_result r = {0};
        CHECK(m && vax_set_cpu_model(m, models[k]) == 0, "model %d", models[k]);
        if (!m || load(m,
                       "movl (r7), r2\nmovl (r7), r2\nmovl (r8), r2\nmovl (r7), r2\nmovl (r8), r2\nhalt\n",
                       &r) != 0)
            goto out;
        vax_set_reg(m, 7, 0x20040);
        vax_set_reg(m, 8, 0x21040);   /* 4 KB on: the same set in both caches (not the code's) */
        int want_miss[] = {1, 0, 1, models[k] == 750, models[k] == 750};
        for (int i = 0; i < 5; i++) {
            uint64_t c0 = m->cost, miss0 = m->cache.misses;
            vax_run(m, 1);
            uint64_t misses = m->cache.misses - miss0, c = m->cost - c0;
            /* The instruction stream's misses apart: the instructions are
             * 3 bytes long from 0x1000, so the first and the fourth start
             * a new 8-byte block. */
            uint64_t data = misses - (i == 0 || i == 3);
            CHECK((int)data == want_miss[i], "%d: read %d missed %llu times, want %d", models[k], i,
                  (unsigned long long)data, want_miss[i]);
            CHECK(c == m->tm.op[0xD0] + m->tm.read + misses * m->tm.read_miss, "%d: read %d cost %llu", models[k],
                  i, (unsigned long long)c);
        }
    out:
        vasm_free(&r);
        vax_destroy(m);
    }
    vax_machine *m = new_machine();
    CHECK(m && vax_set_cpu_model(m, 730) == -1, "a model we do not have is refused");
    vax_destroy(m);
}

/* A device register for test_io: reads give 0x1234, writes are kept. */
typedef struct {
    uint32_t last_write;
    int reads, writes;
} test_register;

static int register_read(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    (void)m, (void)pa, (void)size;
    ((test_register *)dev)->reads++;
    *value = 0x1234;
    return 0;
}

static int register_write(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    (void)m, (void)pa, (void)size;
    ((test_register *)dev)->writes++;
    ((test_register *)dev)->last_write = value;
    return 0;
}

/* I/O space is never cached: every read of a device register costs what a
 * read that misses the cache costs (on both models), the same register
 * read twice as well, while memory read twice hits the second time; a
 * register write costs what a memory write costs.  The statistics count
 * the references to I/O space (io_read, io_write), and not as cache
 * misses. */
static void test_io(void)
{
    static const int models[] = {780, 750};
    for (int k = 0; k < 2; k++) {
        vax_machine *m = new_machine();
        vasm_result r = {0};
        test_register reg = {0, 0, 0};
        CHECK(m && vax_set_cpu_model(m, models[k]) == 0, "model %d", models[k]);
        if (!m || bus_add_region(m, 0x20000000u, 0x100, &reg, register_read, register_write) != 0 ||
            load(m,
                 "movl (r7), r2\nmovl (r7), r2\nmovl (r8), r3\nmovl (r8), r3\n"
                 "movl r3, (r7)\nmovl r3, (r8)\nhalt\n",
                 &r) != 0)
            goto out;
        vax_set_reg(m, 7, 0x20040);        /* memory */
        vax_set_reg(m, 8, 0x20000004u);    /* the register */
        uint64_t cost[6], misses[6];
        uint64_t io_read0 = m->stats.io_read, io_write0 = m->stats.io_write;
        for (int i = 0; i < 6; i++) {
            uint64_t miss0 = m->cache.misses, c0 = m->cost;
            vax_run(m, 1);
            misses[i] = m->cache.misses - miss0;
            /* The instruction stream's misses apart (3-byte instructions
             * from 0x1000: the first and the fourth start a block). */
            misses[i] -= (i == 0 || i == 3);
            cost[i] = m->cost - c0 - (i == 0 || i == 3) * (uint64_t)m->tm.read_miss;
        }
        uint64_t hit = m->tm.op[0xD0] + m->tm.read;
        CHECK(misses[0] == 1 && cost[0] == hit + m->tm.read_miss, "%d: memory, first read: %llu", models[k],
              (unsigned long long)cost[0]);
        CHECK(misses[1] == 0 && cost[1] == hit, "%d: memory, second read hits: %llu", models[k],
              (unsigned long long)cost[1]);
        CHECK(misses[2] == 0 && misses[3] == 0, "%d: a register read is no cache miss", models[k]);
        CHECK(cost[2] == hit + m->tm.read_miss && cost[3] == cost[2], "%d: register reads cost %llu, %llu, want %llu",
              models[k], (unsigned long long)cost[2], (unsigned long long)cost[3],
              (unsigned long long)(hit + m->tm.read_miss));
        CHECK(vax_get_reg(m, 2) == 0 && vax_get_reg(m, 3) == 0x1234 && reg.reads == 2, "%d: the register was read",
              models[k]);
        CHECK(cost[4] == cost[5] && cost[4] == m->tm.op[0xD0] + m->tm.write, "%d: writes cost %llu (memory), %llu",
              models[k], (unsigned long long)cost[4], (unsigned long long)cost[5]);
        CHECK(reg.writes == 1 && reg.last_write == 0x1234, "%d: the register was written", models[k]);
        CHECK(m->stats.io_read - io_read0 == 2 && m->stats.io_write - io_write0 == 1,
              "%d: I/O references counted: %llu reads, %llu writes", models[k],
              (unsigned long long)(m->stats.io_read - io_read0), (unsigned long long)(m->stats.io_write - io_write0));
    out:
        vasm_free(&r);
        vax_destroy(m);
    }
}

int main(void)
{
    test_cache();
    test_io();
    test_movc();
    test_locc_progress();
    test_calls_registers();
    test_call_frame_paths();
    test_fast_switch_ends();
    test_page_tail_form();
    test_inner_loop_traps();
    test_index_pc_base();
    test_deferred_displacement();
    test_specifiers();
    test_scale_and_determinism();
    test_preset_change_keeps_time();
    return check_summary();
}
