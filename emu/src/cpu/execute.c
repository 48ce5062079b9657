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

/* After an instruction that returned st: deliver its fault, or take its
 * trap.  Returns 1 when the loop must stop (the processor halted). */
static inline int finish(vax_machine *m, int st)
{
    if (UNLIKELY(st)) {
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
     * where it happens (memory operands, registers saved, string bytes). */
    const uint16_t *op_cost = m->tm.op;
    /* Only vax_run sets cost_limit, between calls of this loop (what
     * needs an earlier stop sets run_limit to 0), so it is read once and
     * can stay in a register. */
    const uint64_t cost_limit = m->cost_limit;
    while (m->icount < m->run_limit && m->cost < cost_limit) {
        int st;
        uint32_t pc = c->r[15];
        c->instr_pc = pc;
        c->rlog_n = 0;
        if (UNLIKELY(c->psl & (PSL_T | PSL_TP | PSL_CM))) {
            if (c->psl & PSL_TP) {
                if (cpu_take_trace(m) == VAX_EXC_FATAL)
                    return;
                continue;
            }
            if (c->psl & PSL_T)
                c->psl |= PSL_TP;
            if (c->psl & PSL_CM) {   /* compatibility mode: compat.c */
                m->cost += op_cost[0x01];   /* as a VAX NOP */
                st = compat_execute(m);
                m->icount++;
                if (st && cpu_deliver(m, st) == VAX_EXC_FATAL) {
                    m->run_limit = 0;
                    return;
                }
                continue;
            }
        }
        if (LIKELY(ib_maps(m, pc, 512u - DC_WINDOW))) {
        fast_form:
            /* The fast form: the instruction lies in the mapped page. */
            ifetch_account_mapped(m, pc);   /* the instruction buffer's fetches through the cache */
            dctx d = {m, pc + 1, m->ib_host, 1};
            uint8_t opcode = m->ib_host[pc & 511u];
            m->cost += op_cost[opcode];
            switch (opcode) {
            /* Moves, tests and compares. */
            case 0x90: st = op_mov(&d, 1); break;       /* MOVB */
            case 0xB0: st = op_mov(&d, 2); break;       /* MOVW */
            case 0xD0: st = op_mov(&d, 4); break;       /* MOVL */
            case 0x91: st = op_cmp(&d, 1); break;       /* CMPB */
            case 0xB1: st = op_cmp(&d, 2); break;       /* CMPW */
            case 0xD1: st = op_cmp(&d, 4); break;       /* CMPL */
            case 0x93: st = op_bit(&d, 1); break;       /* BITB */
            case 0xB3: st = op_bit(&d, 2); break;       /* BITW */
            case 0xD3: st = op_bit(&d, 4); break;       /* BITL */
            case 0x94: st = op_clr(&d, 1); break;       /* CLRB */
            case 0xB4: st = op_clr(&d, 2); break;       /* CLRW */
            case 0xD4: st = op_clr(&d, 4); break;       /* CLRL */
            case 0x95: st = op_tst(&d, 1); break;       /* TSTB */
            case 0xB5: st = op_tst(&d, 2); break;       /* TSTW */
            case 0xD5: st = op_tst(&d, 4); break;       /* TSTL */
            case 0xD2: st = op_mcom(&d, 4); break;      /* MCOML */
            case 0xCE: st = op_mneg(&d, 4); break;      /* MNEGL */
            case 0x9A: st = op_movz(&d, 1, 4); break;   /* MOVZBL */
            case 0x9B: st = op_movz(&d, 1, 2); break;   /* MOVZBW */
            case 0x3C: st = op_movz(&d, 2, 4); break;   /* MOVZWL */
            case 0x98: st = op_cvt(&d, 1, 4); break;    /* CVTBL */
            case 0x32: st = op_cvt(&d, 2, 4); break;    /* CVTWL */
            case 0xF6: st = op_cvt(&d, 4, 1); break;    /* CVTLB */
            case 0xF7: st = op_cvt(&d, 4, 2); break;    /* CVTLW */
            case 0x9E: st = op_mova(&d, 1); break;      /* MOVAB */
            case 0x3E: st = op_mova(&d, 2); break;      /* MOVAW */
            case 0xDE: st = op_mova(&d, 4); break;      /* MOVAL */
            case 0x7E: st = op_mova(&d, 8); break;      /* MOVAQ */
            case 0x9F: st = op_pusha(&d, 1); break;     /* PUSHAB */
            case 0xDF: st = op_pusha(&d, 4); break;     /* PUSHAL */
            case 0xDD: st = op_pushl(&d); break;        /* PUSHL */
            /* Arithmetic and logic. */
            case 0x80: st = op2(&d, ALU_ADD, 1); break;   /* ADDB2 */
            case 0x81: st = op3(&d, ALU_ADD, 1); break;   /* ADDB3 */
            case 0x82: st = op2(&d, ALU_SUB, 1); break;   /* SUBB2 */
            case 0x83: st = op3(&d, ALU_SUB, 1); break;   /* SUBB3 */
            case 0x88: st = op2(&d, ALU_BIS, 1); break;   /* BISB2 */
            case 0x89: st = op3(&d, ALU_BIS, 1); break;   /* BISB3 */
            case 0x8A: st = op2(&d, ALU_BIC, 1); break;   /* BICB2 */
            case 0x8B: st = op3(&d, ALU_BIC, 1); break;   /* BICB3 */
            case 0x8C: st = op2(&d, ALU_XOR, 1); break;   /* XORB2 */
            case 0x8D: st = op3(&d, ALU_XOR, 1); break;   /* XORB3 */
            case 0xA0: st = op2(&d, ALU_ADD, 2); break;   /* ADDW2 */
            case 0xA1: st = op3(&d, ALU_ADD, 2); break;   /* ADDW3 */
            case 0xA2: st = op2(&d, ALU_SUB, 2); break;   /* SUBW2 */
            case 0xA3: st = op3(&d, ALU_SUB, 2); break;   /* SUBW3 */
            case 0xC0: st = op2(&d, ALU_ADD, 4); break;   /* ADDL2 */
            case 0xC1: st = op3(&d, ALU_ADD, 4); break;   /* ADDL3 */
            case 0xC2: st = op2(&d, ALU_SUB, 4); break;   /* SUBL2 */
            case 0xC3: st = op3(&d, ALU_SUB, 4); break;   /* SUBL3 */
            case 0xC8: st = op2(&d, ALU_BIS, 4); break;   /* BISL2 */
            case 0xC9: st = op3(&d, ALU_BIS, 4); break;   /* BISL3 */
            case 0xCA: st = op2(&d, ALU_BIC, 4); break;   /* BICL2 */
            case 0xCB: st = op3(&d, ALU_BIC, 4); break;   /* BICL3 */
            case 0xCC: st = op2(&d, ALU_XOR, 4); break;   /* XORL2 */
            case 0xCD: st = op3(&d, ALU_XOR, 4); break;   /* XORL3 */
            case 0xC4: st = op2(&d, ALU_MUL, 4); break;   /* MULL2 */
            case 0xC5: st = op3(&d, ALU_MUL, 4); break;   /* MULL3 */
            case 0xC6: st = op2(&d, ALU_DIV, 4); break;   /* DIVL2 */
            case 0xC7: st = op3(&d, ALU_DIV, 4); break;   /* DIVL3 */
            case 0x78: st = op_ashl(&d); break;           /* ASHL */
            case 0x96: st = op_incdec(&d, ALU_ADD, 1); break;   /* INCB */
            case 0x97: st = op_incdec(&d, ALU_SUB, 1); break;   /* DECB */
            case 0xB6: st = op_incdec(&d, ALU_ADD, 2); break;   /* INCW */
            case 0xB7: st = op_incdec(&d, ALU_SUB, 2); break;   /* DECW */
            case 0xD6: st = op_incdec(&d, ALU_ADD, 4); break;   /* INCL */
            case 0xD7: st = op_incdec(&d, ALU_SUB, 4); break;   /* DECL */
            /* Branches, loops and subroutines. */
            case 0x11: st = branch_b(&d, 1); break;     /* BRB */
            case 0x31: st = branch_w(&d, 1); break;     /* BRW */
            case 0x12: st = op_bcond(&d, 0x12); break;  /* BNEQ */
            case 0x13: st = op_bcond(&d, 0x13); break;  /* BEQL */
            case 0x14: st = op_bcond(&d, 0x14); break;  /* BGTR */
            case 0x15: st = op_bcond(&d, 0x15); break;  /* BLEQ */
            case 0x18: st = op_bcond(&d, 0x18); break;  /* BGEQ */
            case 0x19: st = op_bcond(&d, 0x19); break;  /* BLSS */
            case 0x1A: st = op_bcond(&d, 0x1A); break;  /* BGTRU */
            case 0x1B: st = op_bcond(&d, 0x1B); break;  /* BLEQU */
            case 0x1C: st = op_bcond(&d, 0x1C); break;  /* BVC */
            case 0x1D: st = op_bcond(&d, 0x1D); break;  /* BVS */
            case 0x1E: st = op_bcond(&d, 0x1E); break;  /* BCC */
            case 0x1F: st = op_bcond(&d, 0x1F); break;  /* BCS */
            case 0x10: st = op_bsb(&d, 1); break;       /* BSBB */
            case 0x30: st = op_bsb(&d, 2); break;       /* BSBW */
            case 0x16: st = op_jsb(&d); break;          /* JSB */
            case 0x17: st = op_jmp(&d); break;          /* JMP */
            case 0x05: st = op_rsb(&d); break;          /* RSB */
            case 0xF2: st = op_aob(&d, 0); break;       /* AOBLSS */
            case 0xF3: st = op_aob(&d, 1); break;       /* AOBLEQ */
            case 0xF4: st = op_sob(&d, 0); break;       /* SOBGEQ */
            case 0xF5: st = op_sob(&d, 1); break;       /* SOBGTR */
            /* Long run only through their groups, in the checked form:
             * expanded here with the checked form's immediates (decode.h,
             * DC_FAST_CHECKED_IMM), so that they cost what they did. */
            case 0xE0: case 0xE1: case 0xE2: case 0xE3:   /* BBS, BBC, BBSS, BBCS */
            case 0xE4: case 0xE5: case 0xE6: case 0xE7: { /* BBSC, BBCC, BBSSI, BBCCI */
                dctx k = dc_checked_imm(&d);
                st = op_bb(&k, opcode);
                break;
            }
            case 0xE8: { dctx k = dc_checked_imm(&d); st = op_blb(&k, 1); break; }        /* BLBS */
            case 0xE9: { dctx k = dc_checked_imm(&d); st = op_blb(&k, 0); break; }        /* BLBC */
            case 0x7D: { dctx k = dc_checked_imm(&d); st = op_movq(&k); break; }          /* MOVQ */
            case 0xA8: { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIS, 2); break; }  /* BISW2 */
            case 0xAA: { dctx k = dc_checked_imm(&d); st = op2(&k, ALU_BIC, 2); break; }  /* BICW2 */
            case 0xDA: { dctx k = dc_checked_imm(&d); st = op_mtpr(&k); break; }          /* MTPR */
            case 0xDB: { dctx k = dc_checked_imm(&d); st = op_mfpr(&k); break; }          /* MFPR */
            /* The frequent ones left to their groups, sent there without
             * dispatch_group's look-up (the same function, the same form). */
            case 0xFB:                         /* CALLS */
                c->r[15] = pc + 1;
                st = exec_calls(m);
                break;
            case 0x04:                         /* RET */
                c->r[15] = pc + 1;
                st = exec_ret(m);
                break;
            case 0x00:                         /* HALT: listed, so that the jump table starts at 0 */
            case 0x02: case 0xBC: case 0x0C:   /* REI, CHMK, PROBER */
                c->r[15] = pc + 1;
                st = exec_privileged(m, (int)opcode);
                break;
            case 0xEF: case 0xF0:              /* EXTZV, INSV */
                c->r[15] = pc + 1;
                st = exec_field(m, (int)opcode);
                break;
            case 0xFF:                         /* ESCF: reserved, as dispatch_group has it */
                /* A case of its own, so that the jump table ends at 0xFF:
                 * with both ends of the byte's range in it, the compiler
                 * drops the table's range check (a compare and a branch
                 * per instruction natively; WebAssembly's br_table checks
                 * anyway). */
                c->r[15] = pc + 1;
                st = VAX_EXC_RESERVED_INSTRUCTION;
                break;
            default:
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
        } else {
        checked_form:;
            /* Near the end of the page, or the shortcut does not map it:
             * everything the checked way, through the groups. */
            uint32_t opcode;
            st = ifetch(m, 1, &opcode);
            if (LIKELY(st == 0)) {
                ifetch_account(m, pc);
                m->cost += op_cost[opcode];
                st = dispatch_group(m, (int)opcode);
            }
        }
        m->icount++;
        if (finish(m, st))
            return;
    }
}
