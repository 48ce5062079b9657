/*
 * execute.c — the instruction loop: trace, opcode fetch, dispatch to the
 * instruction groups, and delivery of faults and traps.
 *
 * The loop's only per-instruction bookkeeping is the fault-undo log, the
 * trace check and the instruction count; everything else (interrupts,
 * stop requests) is handled by the caller (machine.c) when something sets
 * run_limit to 0.
 */
#include "../mmu/mmu.h"
#include "exec.h"

static int dispatch(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0x01: case 0x0A: case 0x32: case 0x33: case 0x3C: case 0x3E: case 0x3F: case 0x58:
    case 0x78: case 0x79: case 0x7A: case 0x7B: case 0x7C: case 0x7D: case 0x7E: case 0x7F:
    case 0x80: case 0x81: case 0x82: case 0x83: case 0x84: case 0x85: case 0x86: case 0x87:
    case 0x88: case 0x89: case 0x8A: case 0x8B: case 0x8C: case 0x8D: case 0x8E: case 0x90:
    case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96: case 0x97: case 0x98:
    case 0x99: case 0x9A: case 0x9B: case 0x9C: case 0x9E: case 0x9F: case 0xA0: case 0xA1:
    case 0xA2: case 0xA3: case 0xA4: case 0xA5: case 0xA6: case 0xA7: case 0xA8: case 0xA9:
    case 0xAA: case 0xAB: case 0xAC: case 0xAD: case 0xAE: case 0xB0: case 0xB1: case 0xB2:
    case 0xB3: case 0xB4: case 0xB5: case 0xB6: case 0xB7: case 0xB8: case 0xB9: case 0xC0:
    case 0xC1: case 0xC2: case 0xC3: case 0xC4: case 0xC5: case 0xC6: case 0xC7: case 0xC8:
    case 0xC9: case 0xCA: case 0xCB: case 0xCC: case 0xCD: case 0xCE: case 0xD0: case 0xD1:
    case 0xD2: case 0xD3: case 0xD4: case 0xD5: case 0xD6: case 0xD7: case 0xD8: case 0xD9:
    case 0xDC: case 0xDD: case 0xDE: case 0xDF: case 0xF6: case 0xF7:
        return exec_integer(m, opcode);
    case 0x05: case 0x10: case 0x11: case 0x12: case 0x13: case 0x14: case 0x15: case 0x16:
    case 0x17: case 0x18: case 0x19: case 0x1A: case 0x1B: case 0x1C: case 0x1D: case 0x1E:
    case 0x1F: case 0x30: case 0x31: case 0x3D: case 0x8F: case 0x9D: case 0xAF: case 0xCF:
    case 0xF1: case 0xF2: case 0xF3: case 0xF4: case 0xF5:
        return exec_branch(m, opcode);
    case 0xE0: case 0xE1: case 0xE2: case 0xE3: case 0xE4: case 0xE5: case 0xE6: case 0xE7:
    case 0xE8: case 0xE9: case 0xEA: case 0xEB: case 0xEC: case 0xED: case 0xEE: case 0xEF:
    case 0xF0:
        return exec_field(m, opcode);
    case 0x04: case 0xBA: case 0xBB: case 0xFA: case 0xFB:
        return exec_call(m, opcode);
    case 0x0E: case 0x0F: case 0x5C: case 0x5D: case 0x5E: case 0x5F:
        return exec_queue(m, opcode);
    case 0x0B: case 0x28: case 0x29: case 0x2A: case 0x2B: case 0x2C: case 0x2D: case 0x2E:
    case 0x2F: case 0x39: case 0x3A: case 0x3B:
        return exec_string(m, opcode);
    case 0x40: case 0x41: case 0x42: case 0x43: case 0x44: case 0x45: case 0x46: case 0x47:
    case 0x48: case 0x49: case 0x4A: case 0x4B: case 0x4C: case 0x4D: case 0x4E: case 0x4F:
    case 0x50: case 0x51: case 0x52: case 0x53: case 0x54: case 0x55: case 0x56: case 0x60:
    case 0x61: case 0x62: case 0x63: case 0x64: case 0x65: case 0x66: case 0x67: case 0x68:
    case 0x69: case 0x6A: case 0x6B: case 0x6C: case 0x6D: case 0x6E: case 0x6F: case 0x70:
    case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x76:
        return exec_float(m, opcode);
    case 0x00: case 0x02: case 0x03: case 0x06: case 0x07: case 0x0C: case 0x0D: case 0xBC:
    case 0xBD: case 0xBE: case 0xBF: case 0xDA: case 0xDB: case 0xFC:
        return exec_privileged(m, opcode);
    default:
        /* Reserved opcodes, the FD/FE/FF escapes (G/H floating, absent on
         * this 780) and packed decimal/EDITPC, which we do not implement. */
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}

void cpu_execute(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    while (m->icount < m->run_limit) {
        int st;
        c->instr_pc = c->r[15];
        c->rlog_n = 0;
        if (c->psl & (PSL_T | PSL_TP)) {
            if (c->psl & PSL_TP) {
                if (cpu_take_trace(m) == VAX_EXC_FATAL)
                    return;
                continue;
            }
            c->psl |= PSL_TP;
        }
        uint32_t opcode;
        st = ifetch(m, 1, &opcode);
        if (st == 0) {
            c->opcode = (uint8_t)opcode;
            st = dispatch(m, (int)opcode);
        }
        m->icount++;
        if (st) {
            if (st == VAX_EXC_HALT)
                m->run_limit = 0;
            if (cpu_deliver(m, st) == VAX_EXC_FATAL) {
                m->run_limit = 0;
                return;
            }
        } else if (c->trap_pending) {
            if (cpu_take_trap(m) == VAX_EXC_FATAL) {
                m->run_limit = 0;
                return;
            }
        }
    }
}
