/*
 * execute.c — the instruction loop: trace, opcode fetch, dispatch, and
 * delivery of faults and traps.
 *
 * The loop's only per-instruction bookkeeping is the fault-undo log, the
 * trace check, the instruction count and the opcode's cost; everything else (interrupts,
 * stop requests) is handled by the caller (machine.c) when something sets
 * run_limit to 0.
 *
 * Dispatch is one switch on the opcode.  The instructions compiled code
 * executes most (moves, compares, integer arithmetic, branches, loops,
 * subroutine linkage) are expanded right in it from the inline bodies in
 * exec_integer.h and exec_branch.h, in the fast form of the decoding
 * context (decode.h, dctx): PC in a register, instruction bytes read from
 * the page without checks.  That needs the opcode at least DC_WINDOW bytes
 * before the end of the page the instruction-fetch shortcut maps; other
 * instructions, and every opcode the switch does not expand, go to their
 * group's function (dispatch_group).  Which opcodes are expanded is only a
 * matter of speed: the group functions handle all of their opcodes.  (A
 * native gcc build may replicate the switch's dispatch instead: below,
 * EXEC_REPLICATED.)
 */
#include "mmu/mmu.h"
#include "cpu/exec_branch.h"
#include "cpu/exec_field.h"
#include "cpu/exec_integer.h"
#include "cpu/exec_privileged.h"
#include "cpu/opcodes.h"
#if defined(VAX_JIT) && VAX_JIT
#include "jit/jit.h"
#endif

/* Every opcode to its group (the opcode table's group column): the path
 * of the opcodes cpu_execute's switch does not expand itself. */
static int dispatch_group(vax_machine *m, int opcode)
{
    switch (vax_opcodes[opcode].group) {
    case OPG_INTEGER: return exec_integer(m, opcode);
    case OPG_BRANCH: return exec_branch(m, opcode);
    case OPG_FIELD: return exec_field(m, opcode);
    case OPG_CALL: return exec_call(m, opcode);
    case OPG_QUEUE: return exec_queue(m, opcode);
    case OPG_STRING: return exec_string(m, opcode);
    case OPG_FLOAT: return exec_float(m, opcode);
    case OPG_PRIVILEGED: return exec_privileged(m, opcode);
    case OPG_DECIMAL: return exec_decimal(m, opcode);
    default:
        /* Reserved opcodes and the FD/FE/FF escapes (G/H floating, absent
         * on this 780). */
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}

/* The page's last DC_WINDOW bytes.  An instruction whose opcode lies there
 * runs in the checked form (below, checked_form), through its group: the
 * fast form reads its bytes without checks, and they might run past the
 * page.  Of the simplest ones, and the most frequent there (TST, CMP, MOV,
 * CLR, PUSHL, the branches: 3.3% of the 4.3BSD script's instructions
 * start in those bytes, three in four of them one of these), one whose
 * longest encoding still fits in the page runs here instead, in the third
 * form of the decoding context (decode.h, DC_FAST_CHECKED_IMM): bytes
 * read from the page while the fetch shortcut maps it, immediates and
 * everything else through the same decoders and accessors the checked
 * form reaches, in the same order, so that it costs exactly what it did
 * (as execute.c's BBx, MOVQ and MTPR do).  The whole instruction lies in
 * the page, so the checked form would never have fetched across it.
 *
 * page_tail_last[op]: the last page offset at which opcode op is taken
 * here, 512 less its longest encoding (1 byte of opcode, at most 6 per
 * operand of up to a longword: an index prefix and a base with a longword
 * displacement or an absolute address; a branch displacement's 1 or 2);
 * 0 for the opcodes left to their groups (the test is made only above
 * 512 - DC_WINDOW). */
#define TAIL_OPS(n, disp) ((uint16_t)(512 - 1 - 6 * (n) - (disp)))
static const uint16_t page_tail_last[256] = {
    [0x95] = TAIL_OPS(1, 0), [0xB5] = TAIL_OPS(1, 0), [0xD5] = TAIL_OPS(1, 0),   /* TSTB, TSTW, TSTL */
    [0x94] = TAIL_OPS(1, 0), [0xD4] = TAIL_OPS(1, 0), [0xDD] = TAIL_OPS(1, 0),   /* CLRB, CLRL, PUSHL */
    [0x90] = TAIL_OPS(2, 0), [0xD0] = TAIL_OPS(2, 0),                            /* MOVB, MOVL */
    [0x91] = TAIL_OPS(2, 0), [0xD1] = TAIL_OPS(2, 0),                            /* CMPB, CMPL */
    [0xC0] = TAIL_OPS(2, 0), [0xC1] = TAIL_OPS(3, 0),                            /* ADDL2, ADDL3 */
    [0xC2] = TAIL_OPS(2, 0), [0xC3] = TAIL_OPS(3, 0),                            /* SUBL2, SUBL3 */
    [0x11] = TAIL_OPS(0, 1), [0x31] = TAIL_OPS(0, 2),                            /* BRB, BRW */
    [0x12] = TAIL_OPS(0, 1), [0x13] = TAIL_OPS(0, 1), [0x14] = TAIL_OPS(0, 1),   /* BNEQ, BEQL, BGTR */
    [0x15] = TAIL_OPS(0, 1), [0x18] = TAIL_OPS(0, 1), [0x19] = TAIL_OPS(0, 1),   /* BLEQ, BGEQ, BLSS */
    [0x1A] = TAIL_OPS(0, 1), [0x1B] = TAIL_OPS(0, 1), [0x1E] = TAIL_OPS(0, 1),   /* BGTRU, BLEQU, BCC */
    [0x1F] = TAIL_OPS(0, 1),                                                     /* BCS */
};

/* One of those (page_tail_last[opcode] >= pc's offset, the page mapped by
 * the fetch shortcut): the checked form's opcode fetch, its accounting and
 * base cost, then the body.  Out of the loop's function, which grows only
 * by the test (docs/speed.md, round five: a larger loop slows V8). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int execute_page_tail(vax_machine *m, uint32_t pc, size_t opcode)
{
    dctx d = {m, pc + 1, m->ib_bias, DC_FAST_CHECKED_IMM};
    ifetch_account_mapped(m, pc);
    m->cost += m->tm.op[opcode];
    switch (opcode) {
    case 0x95: return op_tst(&d, 1);
    case 0xB5: return op_tst(&d, 2);
    case 0xD5: return op_tst(&d, 4);
    case 0x94: return op_clr(&d, 1);
    case 0xD4: return op_clr(&d, 4);
    case 0xDD: return op_pushl(&d);
    case 0x90: return op_mov(&d, 1);
    case 0xD0: return op_mov(&d, 4);
    case 0x91: return op_cmp(&d, 1);
    case 0xD1: return op_cmp(&d, 4);
    case 0xC0: return op2(&d, ALU_ADD, 4);
    case 0xC1: return op3(&d, ALU_ADD, 4);
    case 0xC2: return op2(&d, ALU_SUB, 4);
    case 0xC3: return op3(&d, ALU_SUB, 4);
    case 0x11: return branch_b(&d, 1);
    case 0x31: return branch_w(&d, 1);
    default: return op_bcond(&d, (int)opcode);   /* the conditional branches of the table */
    }
}

/* After an instruction that returned st: deliver its fault, or take its
 * trap (st VAX_TRAP_REQUESTED, or 0 from a body that reports its trap
 * only in cpu.trap_pending).  Returns 1 when the loop must stop (the
 * processor halted). */
static inline int finish(vax_machine *m, int st)
{
    if (UNLIKELY(st) && st != VAX_TRAP_REQUESTED) {
        if (st == VAX_EXC_HALT)
            m->run_limit = 0;
        if (cpu_deliver(m, st) == VAX_EXC_FATAL) {
            m->run_limit = 0;
            return 1;
        }
    } else if (UNLIKELY(m->cpu.trap_pending)) {
        if (cpu_take_trap(m) == VAX_EXC_FATAL) {
            m->run_limit = 0;
            return 1;
        }
    }
    return 0;
}

/* The page test in one compare: where the fetch shortcut maps pc's page,
 * ib_fast is that page's address (its low 9 bits clear; else a value no
 * pc matches), so pc ^ ib_fast is pc's offset in the page, and the fast
 * form needs DC_WINDOW bytes of it.  (These three are macros, not inline
 * functions: as functions gcc 12 allocated the loop's registers otherwise,
 * and the loop's code is what its speed was measured on.) */
#define IN_FAST_WINDOW(m, pc) (((uint64_t)(pc) ^ (m)->ib_fast) <= 512u - DC_WINDOW)

/* The inner loop's limit test: the next instruction may start without
 * the loop's head (simple_no_trap, below). */
#ifndef EXEC_STEP
#define INNER_MAY_GO_ON(m, simple_cost_limit) \
    ((m)->icount < (m)->run_limit && (m)->cost < (simple_cost_limit))
#else
/* The one-instruction copy (jit/jit_step.c): the inner loop never goes on. */
#define INNER_MAY_GO_ON(m, simple_cost_limit) ((void)(simple_cost_limit), 0)
#endif

/* In the WebAssembly build the opcode's range (a byte, 0-255) is hidden
 * from clang (host_table.h, WASM_OPAQUE: no instruction).  Knowing every
 * value has a case, clang made HALT's case (opcode 0, shared with REI,
 * CHMK and PROBER) the br_table's default and indexed the table from 1, so every instruction paid an `opcode - 1` before V8's range
 * check; now the table is indexed by the opcode itself (one host
 * instruction fewer per instruction in V8's code: docs/speed.md, round
 * twenty-two).  Natively nothing: gcc's table starts at 0 already. */
#define OPCODE_RANGE_HIDDEN(op) WASM_OPAQUE(op)

/* The fast form's head, pc in the mapped page: the instruction buffer's
 * fetches through the cache, pc's host address (bias + pc: machine.h),
 * the decoding context, the opcode and its base cost.  (A size_t opcode,
 * not a byte: the jump table and the cost table are then indexed by the
 * register the byte was loaded into, where with a uint8_t (or a uint32_t)
 * gcc made two more copies of it, zero-extended, on every instruction:
 * docs/speed.md, round nine.)  One definition for the loop and for each
 * case's own copy in the replicated build. */
#define FAST_HEAD()                                    \
    do {                                               \
        ifetch_account_mapped(m, pc);                  \
        bias = m->ib_bias;                             \
        d = (dctx){m, pc + 1, bias, 1};                \
        opcode = *(const uint8_t *)(bias + pc);        \
        OPCODE_RANGE_HIDDEN(opcode);                   \
        m->cost += m->tm.op[opcode];                   \
    } while (0)

/* Replicated dispatch (docs/speed.md, round twenty; native gcc builds
 * only, on by default there, `make NATIVE_REPLICATED_DISPATCH=0` for the
 * switch): the fast switch's own
 * opcodes are reached through a table of label addresses (a GNU C
 * extension), and each of their cases ends with its own copy of the inner
 * loop's tail and the next instruction's head, and its own indirect jump
 * to the next opcode, so that the host's branch predictor sees one jump
 * per predecessor instead of the switch's single shared one.  The ASan
 * and WebAssembly builds keep the switch. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__EMSCRIPTEN__) && defined(VAX_REPLICATED_DISPATCH) && VAX_REPLICATED_DISPATCH && !defined(EXEC_STEP)
#define EXEC_REPLICATED 1
#else
#define EXEC_REPLICATED 0
#endif

/* The opcodes whose cases are the fast switch's own (those that end in
 * FAST_NEXT): the label table's entries.  A label here without its case,
 * or a case without its entry, is a compile error (undefined or unused
 * label) in the replicated build. */
#define FAST_OWN_OPCODES(X) \
    X(0x90) X(0xB0) X(0xD0) X(0x91) X(0xB1) X(0xD1) X(0x93) X(0xB3) \
    X(0xD3) X(0x94) X(0xB4) X(0xD4) X(0x95) X(0xB5) X(0xD5) X(0xD2) \
    X(0xCE) X(0x9A) X(0x9B) X(0x3C) X(0x98) X(0x32) X(0xF6) X(0xF7) \
    X(0x9E) X(0x3E) X(0xDE) X(0x7E) X(0x9F) X(0xDF) X(0xDD) X(0x80) \
    X(0x81) X(0x82) X(0x83) X(0x88) X(0x89) X(0x8A) X(0x8B) X(0x8C) \
    X(0x8D) X(0xA0) X(0xA1) X(0xA2) X(0xA3) X(0xC0) X(0xC1) X(0xC2) \
    X(0xC3) X(0xC8) X(0xC9) X(0xCA) X(0xCB) X(0xCC) X(0xCD) X(0xC4) \
    X(0xC5) X(0xC6) X(0xC7) X(0x78) X(0x96) X(0x97) X(0xB6) X(0xB7) \
    X(0xD6) X(0xD7) X(0x11) X(0x31) X(0x12) X(0x13) X(0x14) X(0x15) \
    X(0x18) X(0x19) X(0x1A) X(0x1B) X(0x1C) X(0x1D) X(0x1E) X(0x1F) \
    X(0x10) X(0x30) X(0x16) X(0x17) X(0x05) X(0xF2) X(0xF3) X(0xF4) \
    X(0xF5) X(0xE0) X(0xE1) X(0xE2) X(0xE3) X(0xE4) X(0xE5) X(0xE6) \
    X(0xE7) X(0xE8) X(0xE9) X(0x7D) X(0xA8) X(0xAA) X(0xDA) X(0xDB) \

/* The switch's other cases (those that leave it for the full tail). */
#define FAST_OTHER_OPCODES(X) \
    X(0xFB) X(0x04) X(0x00) X(0x02) X(0xBC) X(0x0C) X(0xEF) X(0xF0) X(0xFF)

#if EXEC_REPLICATED
#define FAST_CASE(op) case op: fast_##op:
#define FAST_DEFAULT default: fast_default:
/* simple_no_trap's tail (the fault, the count, the limits), then the
 * fast form's head for the next instruction (as at fast_form), then its
 * dispatch; whatever is not the simple path goes back to the shared
 * code. */
#define FAST_NEXT                                                            \
    do {                                                                     \
        if (UNLIKELY(st))                                                    \
            goto simple_no_trap;                                             \
        m->icount++;                                                         \
        if (UNLIKELY(!INNER_MAY_GO_ON(m, simple_cost_limit)))                \
            goto simple_limit_reached;                                       \
        pc = c->r[15];                                                       \
        c->rlog_n = 0;                                                       \
        if (UNLIKELY(!IN_FAST_WINDOW(m, pc)))                                \
            goto inner_top;                                                  \
        FAST_HEAD();                                                         \
        goto *fast_labels[opcode];                                           \
    } while (0)
#else
#define FAST_CASE(op) case op:
#define FAST_DEFAULT default:
#define FAST_NEXT goto simple_no_trap
#endif

/* The loop's own function, and the limit test at its head.  With
 * EXEC_STEP defined (jit/jit_step.c, the block compiler's build only) this
 * file compiles a second time as cpu_execute_step: the same code for
 * exactly one instruction (or one trace trap before it), which compiled
 * code calls for the instructions it does not compile itself, so that
 * they run, charge and deliver exactly as here. */
#ifndef EXEC_STEP
#define EXEC_FUNCTION cpu_execute
#define EXEC_GOES_ON(m) ((m)->icount < (m)->run_limit && (m)->cost < cost_limit)
#else
#define EXEC_FUNCTION cpu_execute_step
#define EXEC_GOES_ON(m) ((m)->icount < step_end)
#endif

void EXEC_FUNCTION(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    /* The loop's own costs: the instruction count, and the opcode's base
     * cost (cpu/timing.h), charged at the start so that anything the
     * instruction does (a device register read, a mode change) already
     * sees it in the time.  Everything else an instruction costs is added
     * where it happens (memory operands, registers saved, string bytes).
     * (m->tm.op is an array in the machine: indexed from m itself, it
     * needs no register of its own.) */
    /* Only vax_run sets cost_limit, between calls of this loop (what
     * needs an earlier stop sets run_limit to 0), so it is read once and
     * can stay in a register. */
    const uint64_t cost_limit = m->cost_limit;
    /* The inner loop (below, `simple_no_trap`) leaves cpu.instr_pc as it
     * was, where the profiler's hooks in BSB, JSB and RSB read it: with
     * the profiler on, every instruction starts here, and sets it. */
    const uint64_t inner_cost_limit = m->prof ? 0 : cost_limit;
#ifdef EXEC_STEP
    const uint64_t step_end = m->icount + 1;
#endif
#if EXEC_REPLICATED
    /* Every opcode not listed goes to the switch's default case. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define FAST_LABEL_ENTRY(op) [op] = &&fast_##op,
    static void *const fast_labels[256] = {
        [0 ... 255] = &&fast_default,
        FAST_OWN_OPCODES(FAST_LABEL_ENTRY)
        FAST_OTHER_OPCODES(FAST_LABEL_ENTRY)
    };
#undef FAST_LABEL_ENTRY
#pragma GCC diagnostic pop
#endif
    while (EXEC_GOES_ON(m)) {
        int st;
        uint32_t pc = c->r[15];
        /* The inner loop's cost limit (below, `simple_no_trap`): cost_limit, or 0
         * when this instruction is traced, so that the next one comes
         * back here for its trace trap. */
        uint64_t simple_cost_limit = inner_cost_limit;
        /* trap_pending is clear here after an instruction that completed
         * (its trap was taken in its tail) and after one that faulted
         * (none requests a trap before its last possible fault: exec.h,
         * tests/test_trap_fault.c).  Only something outside the loop can
         * have set it (test_timing's test_inner_loop_traps does, before
         * vax_run): then it is taken after the next instruction that
         * completes, whichever it is, so that instruction must come back
         * to a tail that tests for it (simple_no_trap's limit test
         * fails). */
        if (UNLIKELY(c->trap_pending))
            simple_cost_limit = 0;
        c->instr_pc = pc;
        c->rlog_n = 0;
        if (UNLIKELY(c->psl_without_cc & (PSL_T | PSL_TP | PSL_CM))) {
            if (c->psl_without_cc & PSL_TP) {
                if (cpu_take_trace(m) == VAX_EXC_FATAL)
                    return;
                continue;
            }
            if (c->psl_without_cc & PSL_T) {
                c->psl_without_cc |= PSL_TP;
                simple_cost_limit = 0;
            }
            if (c->psl_without_cc & PSL_CM) {   /* compatibility mode: compat.c, which charges its own cost */
                st = compat_execute(m);
                m->icount++;
                if (st && cpu_deliver(m, st) == VAX_EXC_FATAL) {
                    m->run_limit = 0;
                    return;
                }
                continue;
            }
        }
        for (;;) {
#if EXEC_REPLICATED
        inner_top:
#endif
        if (LIKELY(IN_FAST_WINDOW(m, pc))) {
        fast_form:;
            /* The fast form: the instruction lies in the mapped page. */
            uintptr_t bias;
            dctx d;
            size_t opcode;
            FAST_HEAD();
#if EXEC_REPLICATED
            goto *fast_labels[opcode];
#endif
            switch (opcode) {
            /* Moves, tests and compares. */
            FAST_CASE(0x90) st = op_mov(&d, 1); FAST_NEXT;       /* MOVB */
            FAST_CASE(0xB0) st = op_mov(&d, 2); FAST_NEXT;       /* MOVW */
            FAST_CASE(0xD0) st = op_mov(&d, 4); FAST_NEXT;       /* MOVL */
            FAST_CASE(0x91) st = op_cmp(&d, 1); FAST_NEXT;       /* CMPB */
            FAST_CASE(0xB1) st = op_cmp(&d, 2); FAST_NEXT;       /* CMPW */
            FAST_CASE(0xD1) st = op_cmp(&d, 4); FAST_NEXT;       /* CMPL */
            FAST_CASE(0x93) st = op_bit(&d, 1); FAST_NEXT;       /* BITB */
            FAST_CASE(0xB3) st = op_bit(&d, 2); FAST_NEXT;       /* BITW */
            FAST_CASE(0xD3) st = op_bit(&d, 4); FAST_NEXT;       /* BITL */
            FAST_CASE(0x94) st = op_clr(&d, 1); FAST_NEXT;       /* CLRB */
            FAST_CASE(0xB4) st = op_clr(&d, 2); FAST_NEXT;       /* CLRW */
            FAST_CASE(0xD4) st = op_clr(&d, 4); FAST_NEXT;       /* CLRL */
            FAST_CASE(0x95) st = op_tst(&d, 1); FAST_NEXT;       /* TSTB */
            FAST_CASE(0xB5) st = op_tst(&d, 2); FAST_NEXT;       /* TSTW */
            FAST_CASE(0xD5) st = op_tst(&d, 4); FAST_NEXT;       /* TSTL */
            FAST_CASE(0xD2) st = op_mcom(&d, 4); FAST_NEXT;      /* MCOML */
            FAST_CASE(0xCE) st = op_mneg(&d, 4); FAST_NEXT;      /* MNEGL */
            FAST_CASE(0x9A) st = op_movz(&d, 1, 4); FAST_NEXT;   /* MOVZBL */
            FAST_CASE(0x9B) st = op_movz(&d, 1, 2); FAST_NEXT;   /* MOVZBW */
            FAST_CASE(0x3C) st = op_movz(&d, 2, 4); FAST_NEXT;   /* MOVZWL */
            FAST_CASE(0x98) st = op_cvt(&d, 1, 4); FAST_NEXT;    /* CVTBL */
            FAST_CASE(0x32) st = op_cvt(&d, 2, 4); FAST_NEXT;    /* CVTWL */
            FAST_CASE(0xF6) st = op_cvt(&d, 4, 1); FAST_NEXT;    /* CVTLB */
            FAST_CASE(0xF7) st = op_cvt(&d, 4, 2); FAST_NEXT;    /* CVTLW */
            FAST_CASE(0x9E) st = op_mova(&d, 1); FAST_NEXT;      /* MOVAB */
            FAST_CASE(0x3E) st = op_mova(&d, 2); FAST_NEXT;      /* MOVAW */
            FAST_CASE(0xDE) st = op_mova(&d, 4); FAST_NEXT;      /* MOVAL */
            FAST_CASE(0x7E) st = op_mova(&d, 8); FAST_NEXT;      /* MOVAQ */
            FAST_CASE(0x9F) st = op_pusha(&d, 1); FAST_NEXT;     /* PUSHAB */
            FAST_CASE(0xDF) st = op_pusha(&d, 4); FAST_NEXT;     /* PUSHAL */
            FAST_CASE(0xDD) st = op_pushl(&d); FAST_NEXT;        /* PUSHL */
            /* Arithmetic and logic. */
            FAST_CASE(0x80) st = op2(&d, ALU_ADD, 1); FAST_NEXT;   /* ADDB2 */
            FAST_CASE(0x81) st = op3(&d, ALU_ADD, 1); FAST_NEXT;   /* ADDB3 */
            FAST_CASE(0x82) st = op2(&d, ALU_SUB, 1); FAST_NEXT;   /* SUBB2 */
            FAST_CASE(0x83) st = op3(&d, ALU_SUB, 1); FAST_NEXT;   /* SUBB3 */
            FAST_CASE(0x88) st = op2(&d, ALU_BIS, 1); FAST_NEXT;   /* BISB2 */
            FAST_CASE(0x89) st = op3(&d, ALU_BIS, 1); FAST_NEXT;   /* BISB3 */
            FAST_CASE(0x8A) st = op2(&d, ALU_BIC, 1); FAST_NEXT;   /* BICB2 */
            FAST_CASE(0x8B) st = op3(&d, ALU_BIC, 1); FAST_NEXT;   /* BICB3 */
            FAST_CASE(0x8C) st = op2(&d, ALU_XOR, 1); FAST_NEXT;   /* XORB2 */
            FAST_CASE(0x8D) st = op3(&d, ALU_XOR, 1); FAST_NEXT;   /* XORB3 */
            FAST_CASE(0xA0) st = op2(&d, ALU_ADD, 2); FAST_NEXT;   /* ADDW2 */
            FAST_CASE(0xA1) st = op3(&d, ALU_ADD, 2); FAST_NEXT;   /* ADDW3 */
            FAST_CASE(0xA2) st = op2(&d, ALU_SUB, 2); FAST_NEXT;   /* SUBW2 */
            FAST_CASE(0xA3) st = op3(&d, ALU_SUB, 2); FAST_NEXT;   /* SUBW3 */
            FAST_CASE(0xC0) st = op2(&d, ALU_ADD, 4); FAST_NEXT;   /* ADDL2 */
            FAST_CASE(0xC1) st = op3(&d, ALU_ADD, 4); FAST_NEXT;   /* ADDL3 */
            FAST_CASE(0xC2) st = op2(&d, ALU_SUB, 4); FAST_NEXT;   /* SUBL2 */
            FAST_CASE(0xC3) st = op3(&d, ALU_SUB, 4); FAST_NEXT;   /* SUBL3 */
            FAST_CASE(0xC8) st = op2(&d, ALU_BIS, 4); FAST_NEXT;   /* BISL2 */
            FAST_CASE(0xC9) st = op3(&d, ALU_BIS, 4); FAST_NEXT;   /* BISL3 */
            FAST_CASE(0xCA) st = op2(&d, ALU_BIC, 4); FAST_NEXT;   /* BICL2 */
            FAST_CASE(0xCB) st = op3(&d, ALU_BIC, 4); FAST_NEXT;   /* BICL3 */
            FAST_CASE(0xCC) st = op2(&d, ALU_XOR, 4); FAST_NEXT;   /* XORL2 */
            FAST_CASE(0xCD) st = op3(&d, ALU_XOR, 4); FAST_NEXT;   /* XORL3 */
            FAST_CASE(0xC4) st = op2(&d, ALU_MUL, 4); FAST_NEXT;   /* MULL2 */
            FAST_CASE(0xC5) st = op3(&d, ALU_MUL, 4); FAST_NEXT;   /* MULL3 */
            FAST_CASE(0xC6) st = op2(&d, ALU_DIV, 4); FAST_NEXT;   /* DIVL2 */
            FAST_CASE(0xC7) st = op3(&d, ALU_DIV, 4); FAST_NEXT;   /* DIVL3 */
            FAST_CASE(0x78) st = op_ashl(&d); FAST_NEXT;           /* ASHL */
            FAST_CASE(0x96) st = op_incdec(&d, ALU_ADD, 1); FAST_NEXT;   /* INCB */
            FAST_CASE(0x97) st = op_incdec(&d, ALU_SUB, 1); FAST_NEXT;   /* DECB */
            FAST_CASE(0xB6) st = op_incdec(&d, ALU_ADD, 2); FAST_NEXT;   /* INCW */
            FAST_CASE(0xB7) st = op_incdec(&d, ALU_SUB, 2); FAST_NEXT;   /* DECW */
            FAST_CASE(0xD6) st = op_incdec(&d, ALU_ADD, 4); FAST_NEXT;   /* INCL */
            FAST_CASE(0xD7) st = op_incdec(&d, ALU_SUB, 4); FAST_NEXT;   /* DECL */
            /* Branches, loops and subroutines. */
            FAST_CASE(0x11) st = branch_b(&d, 1); FAST_NEXT;     /* BRB */
            FAST_CASE(0x31) st = branch_w(&d, 1); FAST_NEXT;     /* BRW */
            FAST_CASE(0x12) st = op_bcond(&d, 0x12); FAST_NEXT;  /* BNEQ */
            FAST_CASE(0x13) st = op_bcond(&d, 0x13); FAST_NEXT;  /* BEQL */
            FAST_CASE(0x14) st = op_bcond(&d, 0x14); FAST_NEXT;  /* BGTR */
            FAST_CASE(0x15) st = op_bcond(&d, 0x15); FAST_NEXT;  /* BLEQ */
            FAST_CASE(0x18) st = op_bcond(&d, 0x18); FAST_NEXT;  /* BGEQ */
            FAST_CASE(0x19) st = op_bcond(&d, 0x19); FAST_NEXT;  /* BLSS */
            FAST_CASE(0x1A) st = op_bcond(&d, 0x1A); FAST_NEXT;  /* BGTRU */
            FAST_CASE(0x1B) st = op_bcond(&d, 0x1B); FAST_NEXT;  /* BLEQU */
            FAST_CASE(0x1C) st = op_bcond(&d, 0x1C); FAST_NEXT;  /* BVC */
            FAST_CASE(0x1D) st = op_bcond(&d, 0x1D); FAST_NEXT;  /* BVS */
            FAST_CASE(0x1E) st = op_bcond(&d, 0x1E); FAST_NEXT;  /* BCC */
            FAST_CASE(0x1F) st = op_bcond(&d, 0x1F); FAST_NEXT;  /* BCS */
            FAST_CASE(0x10) st = op_bsb(&d, 1); FAST_NEXT;       /* BSBB */
            FAST_CASE(0x30) st = op_bsb(&d, 2); FAST_NEXT;       /* BSBW */
            FAST_CASE(0x16) st = op_jsb(&d); FAST_NEXT;          /* JSB */
            FAST_CASE(0x17) st = op_jmp(&d); FAST_NEXT;          /* JMP */
            FAST_CASE(0x05) st = op_rsb(&d); FAST_NEXT;          /* RSB */
            FAST_CASE(0xF2) st = op_aob(&d, 0); FAST_NEXT;       /* AOBLSS */
            FAST_CASE(0xF3) st = op_aob(&d, 1); FAST_NEXT;       /* AOBLEQ */
            FAST_CASE(0xF4) st = op_sob(&d, 0); FAST_NEXT;       /* SOBGEQ */
            FAST_CASE(0xF5) st = op_sob(&d, 1); FAST_NEXT;       /* SOBGTR */
            /* Long run only through their groups, in the checked form:
             * expanded here with the checked form's immediates (decode.h,
             * DC_FAST_CHECKED_IMM), so that they cost what they did. */
            FAST_CASE(0xE0) FAST_CASE(0xE1) FAST_CASE(0xE2) FAST_CASE(0xE3)   /* BBS, BBC, BBSS, BBCS */
            FAST_CASE(0xE4) FAST_CASE(0xE5) FAST_CASE(0xE6) FAST_CASE(0xE7) { /* BBSC, BBCC, BBSSI, BBCCI */
                dctx k = dc_checked_imm(&d);
                st = op_bb(&k, opcode);
                FAST_NEXT;
            }
            FAST_CASE(0xE8) { dctx k = dc_checked_imm(&d); st = op_blb(&k, 1); FAST_NEXT; }        /* BLBS */
            FAST_CASE(0xE9) { dctx k = dc_checked_imm(&d); st = op_blb(&k, 0); FAST_NEXT; }        /* BLBC */
            FAST_CASE(0x7D) { dctx k = dc_checked_imm(&d); st = op_movq(&k); FAST_NEXT; }          /* MOVQ */
            FAST_CASE(0xA8) { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIS, 2); FAST_NEXT; }  /* BISW2 */
            FAST_CASE(0xAA) { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIC, 2); FAST_NEXT; }  /* BICW2 */
            FAST_CASE(0xDA) { dctx k = dc_checked_imm(&d); st = op_mtpr(&k); FAST_NEXT; }          /* MTPR */
            FAST_CASE(0xDB) { dctx k = dc_checked_imm(&d); st = op_mfpr(&k); FAST_NEXT; }          /* MFPR */
            /* The frequent ones left to their groups, sent there without
             * dispatch_group's look-up (the same function, the same form). */
            FAST_CASE(0xFB)                    /* CALLS */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_calls(m);
                break;
            FAST_CASE(0x04)                    /* RET */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_ret(m);
                break;
            FAST_CASE(0x00)                    /* HALT: listed, so that the jump table starts at 0 */
            FAST_CASE(0x02) FAST_CASE(0xBC) FAST_CASE(0x0C)   /* REI, CHMK, PROBER */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_privileged(m, (int)opcode);
                break;
            FAST_CASE(0xEF) FAST_CASE(0xF0)    /* EXTZV, INSV */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_field(m, (int)opcode);
                break;
            FAST_CASE(0xFF)                    /* ESCF: reserved, as dispatch_group has it */
                /* A case of its own, so that the jump table ends at 0xFF:
                 * with both ends of the byte's range in it, the compiler
                 * drops the table's range check (a compare and a branch
                 * per instruction natively; WebAssembly's br_table checks
                 * anyway). */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = VAX_EXC_RESERVED_INSTRUCTION;
                break;
            FAST_DEFAULT
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = dispatch_group(m, (int)opcode);
                break;
            }
        } else if ((pc >> 9) != m->ib_tag && (pc & 511u) <= 512u - DC_WINDOW) {
            /* The PC has moved to another page (a call, a return, a jump:
             * about one kernel instruction in ten).  Refill the fetch
             * shortcut here, as the checked path's opcode fetch would
             * (ifetch -> ifetch_slow -> ifetch_fill: the same translation,
             * at the same point), and run the instruction in the fast form
             * with its immediate operands read as the checked form reads
             * them (ib_refill_icount, decode.h dc_read): that is the one
             * place where the two forms charge differently, so the
             * instruction costs what it did in the checked form, which
             * is slower.  A fetch that faults is an instruction that
             * faults, as in the checked path; a page in I/O space leaves
             * the shortcut empty, and the checked path takes the
             * instruction (its own refill then finds the TB entry, at no
             * charge). */
            st = ifetch_fill(m, pc);
            if (LIKELY(st == 0)) {
                m->ib_refill_icount = m->icount;
                if ((pc >> 9) == m->ib_tag) {
#if defined(VAX_JIT) && VAX_JIT && !defined(EXEC_STEP)
                    /* The block compiler's one way in (jit/jit.c): here,
                     * where the loop has left its fast path anyway. */
                    if (UNLIKELY(m->jit != NULL)) {
                        int jst = jit_enter(m, pc);
                        if (jst == 0)
                            goto next;
                        if (jst != JIT_NOT_RUN) {
                            st = jst;
                            break;
                        }
                    }
#endif
                    goto fast_form;
                }
                goto checked_form;
            }
            c->instr_pc = pc;
        } else {
        checked_form:
            c->instr_pc = pc;
            /* Near the end of the page, or the shortcut does not map it:
             * everything the checked way, through the groups; but for the
             * opcodes execute_page_tail takes, if the instruction cannot
             * run past the page. */
            if ((pc >> 9) == m->ib_tag) {
                size_t op = *(const uint8_t *)(m->ib_bias + pc);
                if ((pc & 511u) <= page_tail_last[op]) {
                    st = execute_page_tail(m, pc, op);
                    break;
                }
            }
            uint32_t opcode;
            st = ifetch(m, 1, &opcode);
            if (LIKELY(st == 0)) {
                ifetch_account(m, pc);
                m->cost += m->tm.op[opcode];
                st = dispatch_group(m, (int)opcode);
            }
        }
        break;   /* to the loop's full tail */
    simple_no_trap:
        /* After an instruction of the fast switch's own (not CALLS, RET,
         * the privileged ones or the groups): none changes PSL<T>, <TP>
         * or <CM>, so if the head above found them clear they still are,
         * and the next instruction may start here, without the PSL test.
         * (A traced instruction made simple_cost_limit 0: the next one
         * goes back to the head, which takes the trace trap.)  The rest
         * is the full tail's, in its order: the fault, the count, the
         * trap, the limits.  No test of trap_pending is needed here: it
         * was clear when the instruction started (the head above tests it
         * when it is not: a trap set from outside the loop makes
         * simple_cost_limit 0), and the bodies that can request a trap
         * (ADD, SUB, MUL, DIV, INC/DEC, MNEG, CVT, ASHL, AOB, SOB) say so
         * in their status, VAX_TRAP_REQUESTED (exec.h, cpu_trap_status),
         * which sends them to the full tail like a fault, where finish
         * takes the trap.  Only where the limit test fails is
         * trap_pending tested, before the head's, in the full tail's
         * order.
         *
         * cpu.instr_pc is not stored for the instructions that start
         * here: only what runs outside these bodies reads it (fault and
         * trap delivery, the string instructions' restarts, CALLS's and
         * the profiler's hooks; the groups), so it is stored on the paths
         * to them: the full tail below, the fast switch's cases that are
         * not its own, the checked form, a failed refill, and the exit
         * where the limits stop the loop (where the machine's state is
         * seen from outside: snapshots and digests keep it).  One store
         * less per instruction (docs/speed.md, round fifteen). */
        if (UNLIKELY(st)) {
            c->instr_pc = pc;
            break;
        }
        m->icount++;
        if (!INNER_MAY_GO_ON(m, simple_cost_limit)) {
#if EXEC_REPLICATED
        simple_limit_reached:
#endif
            c->instr_pc = pc;
            if (UNLIKELY(c->trap_pending) && cpu_take_trap(m) == VAX_EXC_FATAL) {
                m->run_limit = 0;
                return;
            }
            goto next;
        }
        pc = c->r[15];
        c->rlog_n = 0;
        }
        m->icount++;
        if (finish(m, st))
            return;
    next:;
    }
}
