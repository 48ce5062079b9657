/*
 * timing.c — the figures of the cost model (timing.h), for a VAX-11/780.
 *
 * Structure (Emer & Clark, "A Characterization of Processor Performance
 * in the VAX-11/780", ISCA 1984): an instruction's time is its decode, its
 * operand specifiers, its execute microcode, and stalls (instruction
 * buffer, cache read misses, write-buffer waits, translation-buffer
 * misses).  The machine runs on a 200 ns microcycle; on a time-sharing
 * mix the average instruction takes about 10.6 cycles, about 0.5 million
 * instructions a second (Emer & Clark; /work/shared/notes/vax-timing.md).
 *
 * Which figures are facts and which are estimates (every cycle count of a
 * class below is an estimate unless a source is named; the sources give
 * the structure and the averages, not a figure for every opcode):
 *   - 200 ns cycle: fact (780 hardware; the notes).
 *   - decode 1 cycle and 1 cycle per specifier in the simple case: the
 *     780's I-box/microcode structure as Emer & Clark describe it; the
 *     exact split is an estimate.
 *   - data read: 1 cycle plus the average miss stall: the notes give a
 *     data read hit ratio of about 83% (Clark 1983); a miss costs about 6
 *     cycles (estimate), so 0.17 * 6 = 1 cycle on average: 2 cycles.
 *   - data write: the cache is write-through with a one-longword write
 *     buffer; 1 cycle plus an estimated average wait of 1: 2 cycles.
 *   - string instructions, per byte (estimates from the memory system
 *     above): MOVC moves longwords, reading through the cache (8-byte
 *     blocks: one miss per 8 bytes, about 6 cycles) and writing through
 *     the buffer (about 4 cycles a longword on the SBI when writes come
 *     back to back): (2 * 4 + 6) / 8 = 1.75 cycles a byte, about 2.9 MB/s;
 *     the MOVC5 fill is writes only, 4 cycles a longword: 1 cycle a byte;
 *     the compare/scan instructions take a byte at a time in microcode.
 *   - translation-buffer miss: a microcode routine that reads a PTE,
 *     about 20 cycles (estimate; Emer & Clark count TB-miss service as a
 *     separate, small share of the average).
 *   - exception and interrupt entry (push PSL and PC, read the SCB vector,
 *     switch stacks): 20 cycles, estimate.
 *   - STALL_NS, the average instruction-buffer and other stalls charged to
 *     every instruction, is the one calibrated figure: chosen so that the
 *     paper's syscall and pipeself4 rows (Table 2, 4.3BSD, on a 750 at 0.6
 *     of a 780) come out right; see emu/docs/timing.md for the
 *     calibration and for the rows checked without tuning.
 */
#include "timing.h"

#include "opcodes.h"

#define CYCLE_NS 200u

/* The calibrated average stall per instruction, ns (see above). */
#define STALL_NS 280u

/* Execute cycles of an opcode beyond the simple case (estimates). */
static unsigned execute_cycles(int op)
{
    switch (op) {
    case 0x01: return 0;                                      /* NOP */
    case 0x00: case 0x03: case 0xFC: return 2;                /* HALT, BPT, XFC (then the exception) */
    case 0x02: return 16;                                     /* REI: pop PC/PSL, checks, stack switch */
    case 0x04: return 15;                                     /* RET (+ call_reg per register) */
    case 0x05: return 3;                                      /* RSB: pop, refill the IB */
    case 0x06: return 40;                                     /* LDPCTX: 20 longwords, process TB flush */
    case 0x07: return 30;                                     /* SVPCTX */
    case 0x0A: return 10;                                     /* INDEX */
    case 0x0C: case 0x0D: return 8;                           /* PROBER/PROBEW */
    case 0x0E: case 0x0F: return 10;                          /* INSQUE/REMQUE */
    case 0x5C: case 0x5D: case 0x5E: case 0x5F: return 15;    /* interlocked queues */
    case 0x10: case 0x30: case 0x16: return 3;                /* BSBB/BSBW/JSB: push, refill */
    case 0x11: case 0x31: case 0x17: return 2;                /* BRB/BRW/JMP: refill */
    case 0x12: case 0x13: case 0x14: case 0x15: case 0x18: case 0x19:
    case 0x1A: case 0x1B: case 0x1C: case 0x1D: case 0x1E: case 0x1F:
        return 2;                                             /* Bcc: average of taken and not */
    case 0xF2: case 0xF3: case 0xF4: case 0xF5: return 2;     /* AOBxxx, SOBxxx */
    case 0x9D: case 0x3D: case 0xF1: return 3;                /* ACBB/W/L */
    case 0x4F: case 0x6F: return 6;                           /* ACBF/ACBD */
    case 0xE8: case 0xE9: return 2;                           /* BLBS/BLBC */
    case 0xE0: case 0xE1: return 3;                           /* BBS/BBC */
    case 0xE2: case 0xE3: case 0xE4: case 0xE5: return 4;     /* BBSS ... BBCC */
    case 0xE6: case 0xE7: return 6;                           /* BBSSI/BBCCI: interlocked */
    case 0xEA: case 0xEB: case 0xEC: case 0xED: case 0xEE: case 0xEF: case 0xF0:
        return 6;                                             /* FFS ... INSV: field extraction */
    case 0x8F: case 0xAF: case 0xCF: return 6;                /* CASEx: table read, branch */
    case 0x84: case 0x85: case 0xA4: case 0xA5: case 0xC4: case 0xC5:
        return 12;                                            /* MULx */
    case 0x86: case 0x87: case 0xA6: case 0xA7: case 0xC6: case 0xC7:
        return 25;                                            /* DIVx */
    case 0x7A: return 15;                                     /* EMUL */
    case 0x7B: return 30;                                     /* EDIV */
    case 0x78: case 0x9C: return 2;                           /* ASHL, ROTL */
    case 0x79: return 4;                                      /* ASHQ */
    case 0x7C: case 0x7D: return 2;                           /* CLRQ, MOVQ: two longwords */
    case 0x58: return 3;                                      /* ADAWI */
    case 0xB8: case 0xB9: return 2;                           /* BISPSW/BICPSW */
    case 0xBA: case 0xBB: return 4;                           /* POPR/PUSHR (+ pushr_reg per register) */
    case 0xBC: case 0xBD: case 0xBE: case 0xBF: return 20;    /* CHMx: like an exception */
    case 0xDA: case 0xDB: return 6;                           /* MTPR/MFPR */
    case 0xFA: case 0xFB: return 20;                          /* CALLG/CALLS (+ call_reg per register) */
    /* Character strings: set-up; the bytes are charged per byte. */
    case 0x28: case 0x29: case 0x2A: case 0x2B: case 0x2C: case 0x2D: case 0x2E: case 0x2F:
    case 0x39: case 0x3A: case 0x3B: case 0x0B:
        return 10;
    /* F_ and D_floating (the 780 with its floating-point accelerator). */
    case 0x40: case 0x41: case 0x42: case 0x43: return 4;     /* ADDF/SUBF */
    case 0x44: case 0x45: return 6;                           /* MULF */
    case 0x46: case 0x47: return 12;                          /* DIVF */
    case 0x60: case 0x61: case 0x62: case 0x63: return 6;     /* ADDD/SUBD */
    case 0x64: case 0x65: return 10;                          /* MULD */
    case 0x66: case 0x67: return 20;                          /* DIVD */
    case 0x48: case 0x49: case 0x4A: case 0x4B: case 0x4C: case 0x4D: case 0x4E: case 0x56:
    case 0x68: case 0x69: case 0x6A: case 0x6B: case 0x6C: case 0x6D: case 0x6E: case 0x76:
        return 4;                                             /* conversions */
    case 0x54: case 0x74: return 20;                          /* EMODF/EMODD */
    case 0x55: case 0x75: return 30;                          /* POLYF/POLYD */
    case 0x70: case 0x71: case 0x72: case 0x73: return 2;     /* MOVD, CMPD, MNEGD, TSTD */
    /* Packed decimal and EDITPC: microcode loops over the digits. */
    case 0x08: case 0x09: case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25:
    case 0x26: case 0x27: case 0x34: case 0x35: case 0x36: case 0x37: case 0xF8: case 0xF9:
        return 40;
    case 0x38: return 60;                                     /* EDITPC */
    default: return 1;                                        /* simple: move, compare, arithmetic */
    }
}

/* The mem_* tables from the figures (timing.h). */
static void derive_memory_costs(vax_timing *t)
{
    const uint16_t form[4] = {
        0, t->spec_disp, t->spec_index, (uint16_t)(t->spec_index + t->spec_disp),
    };
    for (int f = 0; f < 4; f++) {
        t->mem_addr[f] = form[f];
        t->mem_read[f] = (uint16_t)(form[f] + t->read);
        t->mem_write[f] = (uint16_t)(form[f] + t->write);
        t->mem_modify[f] = (uint16_t)(form[f] + t->read + t->write);
    }
}

void timing_init_model(vax_timing *t)
{
    for (int op = 0; op < 256; op++) {
        const vax_opinfo *oi = &vax_opcodes[op];
        unsigned specs = 0;
        for (int i = 0; i < oi->nspec; i++)
            if (SPEC_ACC(oi->spec[i]) != ACC_B)   /* a branch displacement is no specifier */
                specs++;
        /* Reserved opcodes: decoding them and starting the fault. */
        unsigned cycles = (oi->flags & (OPF_RESERVED | OPF_ESCAPE)) ? 2 : 1 + specs + execute_cycles(op);
        t->op[op] = (uint16_t)(cycles * CYCLE_NS + STALL_NS);
    }
    t->spec_disp = 1 * CYCLE_NS;
    t->spec_abs = 1 * CYCLE_NS;
    t->read = 2 * CYCLE_NS;
    t->write = 2 * CYCLE_NS;
    t->spec_deferred = 1 * CYCLE_NS + t->read;
    t->spec_index = 2 * CYCLE_NS;
    t->tb_miss = 20 * CYCLE_NS;
    t->exception = 20 * CYCLE_NS;
    t->call_reg = 2 * CYCLE_NS;
    t->pushr_reg = 2 * CYCLE_NS;
    t->move_byte = 350;    /* 1.75 cycles */
    t->fill_byte = 1 * CYCLE_NS;
    t->movtc_byte = 4 * CYCLE_NS;
    t->cmpc_byte = 3 * CYCLE_NS;
    t->locc_byte = 2 * CYCLE_NS;
    t->scanc_byte = 3 * CYCLE_NS;
    t->matchc_byte = 3 * CYCLE_NS;
    t->crc_byte = 8 * CYCLE_NS;
    derive_memory_costs(t);
}

void timing_init_flat(vax_timing *t, uint16_t ns)
{
    *t = (vax_timing){0};
    for (int op = 0; op < 256; op++)
        t->op[op] = ns;
    derive_memory_costs(t);
}
