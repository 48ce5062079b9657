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
 * matter of speed: the group functions handle all of their opcodes.
 */
#include "mmu/mmu.h"
#include "cpu/exec_branch.h"
#include "cpu/exec_field.h"
#include "cpu/exec_integer.h"
#include "cpu/exec_privileged.h"
#include "cpu/opcodes.h"

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

void cpu_execute(vax_machine *m)
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
    while (m->icount < m->run_limit && m->cost < cost_limit) {
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
        /* The page test in one compare: where the fetch shortcut maps
         * pc's page, ib_fast is that page's address (its low 9 bits
         * clear; else a value no pc matches), so pc ^ ib_fast is pc's
         * offset in the page. */
        if (LIKELY(((uint64_t)pc ^ m->ib_fast) <= 512u - DC_WINDOW)) {
        fast_form:
            /* The fast form: the instruction lies in the mapped page. */
            ifetch_account_mapped(m, pc);   /* the instruction buffer's fetches through the cache */
            uintptr_t bias = m->ib_bias;   /* bias + pc: pc's host address (machine.h) */
            dctx d = {m, pc + 1, bias, 1};
            /* A size_t, not a byte: the jump table and the cost table
             * are then indexed by the register the byte was loaded into,
             * where with a uint8_t (or a uint32_t) gcc made two more
             * copies of it, zero-extended, on every instruction
             * (docs/speed.md, round nine). */
            size_t opcode = *(const uint8_t *)(bias + pc);
            m->cost += m->tm.op[opcode];
            switch (opcode) {
            /* Moves, tests and compares. */
            case 0x90: st = op_mov(&d, 1); goto simple_no_trap;       /* MOVB */
            case 0xB0: st = op_mov(&d, 2); goto simple_no_trap;       /* MOVW */
            case 0xD0: st = op_mov(&d, 4); goto simple_no_trap;       /* MOVL */
            case 0x91: st = op_cmp(&d, 1); goto simple_no_trap;       /* CMPB */
            case 0xB1: st = op_cmp(&d, 2); goto simple_no_trap;       /* CMPW */
            case 0xD1: st = op_cmp(&d, 4); goto simple_no_trap;       /* CMPL */
            case 0x93: st = op_bit(&d, 1); goto simple_no_trap;       /* BITB */
            case 0xB3: st = op_bit(&d, 2); goto simple_no_trap;       /* BITW */
            case 0xD3: st = op_bit(&d, 4); goto simple_no_trap;       /* BITL */
            case 0x94: st = op_clr(&d, 1); goto simple_no_trap;       /* CLRB */
            case 0xB4: st = op_clr(&d, 2); goto simple_no_trap;       /* CLRW */
            case 0xD4: st = op_clr(&d, 4); goto simple_no_trap;       /* CLRL */
            case 0x95: st = op_tst(&d, 1); goto simple_no_trap;       /* TSTB */
            case 0xB5: st = op_tst(&d, 2); goto simple_no_trap;       /* TSTW */
            case 0xD5: st = op_tst(&d, 4); goto simple_no_trap;       /* TSTL */
            case 0xD2: st = op_mcom(&d, 4); goto simple_no_trap;      /* MCOML */
            case 0xCE: st = op_mneg(&d, 4); goto simple_no_trap;      /* MNEGL */
            case 0x9A: st = op_movz(&d, 1, 4); goto simple_no_trap;   /* MOVZBL */
            case 0x9B: st = op_movz(&d, 1, 2); goto simple_no_trap;   /* MOVZBW */
            case 0x3C: st = op_movz(&d, 2, 4); goto simple_no_trap;   /* MOVZWL */
            case 0x98: st = op_cvt(&d, 1, 4); goto simple_no_trap;    /* CVTBL */
            case 0x32: st = op_cvt(&d, 2, 4); goto simple_no_trap;    /* CVTWL */
            case 0xF6: st = op_cvt(&d, 4, 1); goto simple_no_trap;    /* CVTLB */
            case 0xF7: st = op_cvt(&d, 4, 2); goto simple_no_trap;    /* CVTLW */
            case 0x9E: st = op_mova(&d, 1); goto simple_no_trap;      /* MOVAB */
            case 0x3E: st = op_mova(&d, 2); goto simple_no_trap;      /* MOVAW */
            case 0xDE: st = op_mova(&d, 4); goto simple_no_trap;      /* MOVAL */
            case 0x7E: st = op_mova(&d, 8); goto simple_no_trap;      /* MOVAQ */
            case 0x9F: st = op_pusha(&d, 1); goto simple_no_trap;     /* PUSHAB */
            case 0xDF: st = op_pusha(&d, 4); goto simple_no_trap;     /* PUSHAL */
            case 0xDD: st = op_pushl(&d); goto simple_no_trap;        /* PUSHL */
            /* Arithmetic and logic. */
            case 0x80: st = op2(&d, ALU_ADD, 1); goto simple_no_trap;   /* ADDB2 */
            case 0x81: st = op3(&d, ALU_ADD, 1); goto simple_no_trap;   /* ADDB3 */
            case 0x82: st = op2(&d, ALU_SUB, 1); goto simple_no_trap;   /* SUBB2 */
            case 0x83: st = op3(&d, ALU_SUB, 1); goto simple_no_trap;   /* SUBB3 */
            case 0x88: st = op2(&d, ALU_BIS, 1); goto simple_no_trap;   /* BISB2 */
            case 0x89: st = op3(&d, ALU_BIS, 1); goto simple_no_trap;   /* BISB3 */
            case 0x8A: st = op2(&d, ALU_BIC, 1); goto simple_no_trap;   /* BICB2 */
            case 0x8B: st = op3(&d, ALU_BIC, 1); goto simple_no_trap;   /* BICB3 */
            case 0x8C: st = op2(&d, ALU_XOR, 1); goto simple_no_trap;   /* XORB2 */
            case 0x8D: st = op3(&d, ALU_XOR, 1); goto simple_no_trap;   /* XORB3 */
            case 0xA0: st = op2(&d, ALU_ADD, 2); goto simple_no_trap;   /* ADDW2 */
            case 0xA1: st = op3(&d, ALU_ADD, 2); goto simple_no_trap;   /* ADDW3 */
            case 0xA2: st = op2(&d, ALU_SUB, 2); goto simple_no_trap;   /* SUBW2 */
            case 0xA3: st = op3(&d, ALU_SUB, 2); goto simple_no_trap;   /* SUBW3 */
            case 0xC0: st = op2(&d, ALU_ADD, 4); goto simple_no_trap;   /* ADDL2 */
            case 0xC1: st = op3(&d, ALU_ADD, 4); goto simple_no_trap;   /* ADDL3 */
            case 0xC2: st = op2(&d, ALU_SUB, 4); goto simple_no_trap;   /* SUBL2 */
            case 0xC3: st = op3(&d, ALU_SUB, 4); goto simple_no_trap;   /* SUBL3 */
            case 0xC8: st = op2(&d, ALU_BIS, 4); goto simple_no_trap;   /* BISL2 */
            case 0xC9: st = op3(&d, ALU_BIS, 4); goto simple_no_trap;   /* BISL3 */
            case 0xCA: st = op2(&d, ALU_BIC, 4); goto simple_no_trap;   /* BICL2 */
            case 0xCB: st = op3(&d, ALU_BIC, 4); goto simple_no_trap;   /* BICL3 */
            case 0xCC: st = op2(&d, ALU_XOR, 4); goto simple_no_trap;   /* XORL2 */
            case 0xCD: st = op3(&d, ALU_XOR, 4); goto simple_no_trap;   /* XORL3 */
            case 0xC4: st = op2(&d, ALU_MUL, 4); goto simple_no_trap;   /* MULL2 */
            case 0xC5: st = op3(&d, ALU_MUL, 4); goto simple_no_trap;   /* MULL3 */
            case 0xC6: st = op2(&d, ALU_DIV, 4); goto simple_no_trap;   /* DIVL2 */
            case 0xC7: st = op3(&d, ALU_DIV, 4); goto simple_no_trap;   /* DIVL3 */
            case 0x78: st = op_ashl(&d); goto simple_no_trap;           /* ASHL */
            case 0x96: st = op_incdec(&d, ALU_ADD, 1); goto simple_no_trap;   /* INCB */
            case 0x97: st = op_incdec(&d, ALU_SUB, 1); goto simple_no_trap;   /* DECB */
            case 0xB6: st = op_incdec(&d, ALU_ADD, 2); goto simple_no_trap;   /* INCW */
            case 0xB7: st = op_incdec(&d, ALU_SUB, 2); goto simple_no_trap;   /* DECW */
            case 0xD6: st = op_incdec(&d, ALU_ADD, 4); goto simple_no_trap;   /* INCL */
            case 0xD7: st = op_incdec(&d, ALU_SUB, 4); goto simple_no_trap;   /* DECL */
            /* Branches, loops and subroutines. */
            case 0x11: st = branch_b(&d, 1); goto simple_no_trap;     /* BRB */
            case 0x31: st = branch_w(&d, 1); goto simple_no_trap;     /* BRW */
            case 0x12: st = op_bcond(&d, 0x12); goto simple_no_trap;  /* BNEQ */
            case 0x13: st = op_bcond(&d, 0x13); goto simple_no_trap;  /* BEQL */
            case 0x14: st = op_bcond(&d, 0x14); goto simple_no_trap;  /* BGTR */
            case 0x15: st = op_bcond(&d, 0x15); goto simple_no_trap;  /* BLEQ */
            case 0x18: st = op_bcond(&d, 0x18); goto simple_no_trap;  /* BGEQ */
            case 0x19: st = op_bcond(&d, 0x19); goto simple_no_trap;  /* BLSS */
            case 0x1A: st = op_bcond(&d, 0x1A); goto simple_no_trap;  /* BGTRU */
            case 0x1B: st = op_bcond(&d, 0x1B); goto simple_no_trap;  /* BLEQU */
            case 0x1C: st = op_bcond(&d, 0x1C); goto simple_no_trap;  /* BVC */
            case 0x1D: st = op_bcond(&d, 0x1D); goto simple_no_trap;  /* BVS */
            case 0x1E: st = op_bcond(&d, 0x1E); goto simple_no_trap;  /* BCC */
            case 0x1F: st = op_bcond(&d, 0x1F); goto simple_no_trap;  /* BCS */
            case 0x10: st = op_bsb(&d, 1); goto simple_no_trap;       /* BSBB */
            case 0x30: st = op_bsb(&d, 2); goto simple_no_trap;       /* BSBW */
            case 0x16: st = op_jsb(&d); goto simple_no_trap;          /* JSB */
            case 0x17: st = op_jmp(&d); goto simple_no_trap;          /* JMP */
            case 0x05: st = op_rsb(&d); goto simple_no_trap;          /* RSB */
            case 0xF2: st = op_aob(&d, 0); goto simple_no_trap;       /* AOBLSS */
            case 0xF3: st = op_aob(&d, 1); goto simple_no_trap;       /* AOBLEQ */
            case 0xF4: st = op_sob(&d, 0); goto simple_no_trap;       /* SOBGEQ */
            case 0xF5: st = op_sob(&d, 1); goto simple_no_trap;       /* SOBGTR */
            /* Long run only through their groups, in the checked form:
             * expanded here with the checked form's immediates (decode.h,
             * DC_FAST_CHECKED_IMM), so that they cost what they did. */
            case 0xE0: case 0xE1: case 0xE2: case 0xE3:   /* BBS, BBC, BBSS, BBCS */
            case 0xE4: case 0xE5: case 0xE6: case 0xE7: { /* BBSC, BBCC, BBSSI, BBCCI */
                dctx k = dc_checked_imm(&d);
                st = op_bb(&k, opcode);
                goto simple_no_trap;
            }
            case 0xE8: { dctx k = dc_checked_imm(&d); st = op_blb(&k, 1); goto simple_no_trap; }        /* BLBS */
            case 0xE9: { dctx k = dc_checked_imm(&d); st = op_blb(&k, 0); goto simple_no_trap; }        /* BLBC */
            case 0x7D: { dctx k = dc_checked_imm(&d); st = op_movq(&k); goto simple_no_trap; }          /* MOVQ */
            case 0xA8: { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIS, 2); goto simple_no_trap; }  /* BISW2 */
            case 0xAA: { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIC, 2); goto simple_no_trap; }  /* BICW2 */
            case 0xDA: { dctx k = dc_checked_imm(&d); st = op_mtpr(&k); goto simple_no_trap; }          /* MTPR */
            case 0xDB: { dctx k = dc_checked_imm(&d); st = op_mfpr(&k); goto simple_no_trap; }          /* MFPR */
            /* The frequent ones left to their groups, sent there without
             * dispatch_group's look-up (the same function, the same form). */
            case 0xFB:                         /* CALLS */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_calls(m);
                break;
            case 0x04:                         /* RET */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_ret(m);
                break;
            case 0x00:                         /* HALT: listed, so that the jump table starts at 0 */
            case 0x02: case 0xBC: case 0x0C:   /* REI, CHMK, PROBER */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_privileged(m, (int)opcode);
                break;
            case 0xEF: case 0xF0:              /* EXTZV, INSV */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = exec_field(m, (int)opcode);
                break;
            case 0xFF:                         /* ESCF: reserved, as dispatch_group has it */
                /* A case of its own, so that the jump table ends at 0xFF:
                 * with both ends of the byte's range in it, the compiler
                 * drops the table's range check (a compare and a branch
                 * per instruction natively; WebAssembly's br_table checks
                 * anyway). */
                c->instr_pc = pc;
                c->r[15] = pc + 1;
                st = VAX_EXC_RESERVED_INSTRUCTION;
                break;
            default:
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
                if ((pc >> 9) == m->ib_tag)
                    goto fast_form;
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
        if (!(m->icount < m->run_limit && m->cost < simple_cost_limit)) {
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
