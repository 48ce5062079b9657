/*
 * timing.c — the figures of the cost model (timing.h) for the two
 * processors modelled, a VAX-11/780 and a VAX-11/750.
 *
 * Structure (Emer & Clark, "A Characterization of Processor Performance
 * in the VAX-11/780", ISCA 1984): an instruction's time is its decode, its
 * operand specifiers, its execute microcode, and stalls — instruction
 * buffer, cache read misses, write waits, translation-buffer misses.  The
 * cache and the TB are simulated as built (mmu/cache.h, mmu/tlb.h), so
 * their stalls fall where the misses do instead of being spread over every
 * instruction as an average; what remains averaged is the instruction
 * buffer's own stall (STALL_CYCLES below).
 *
 * Sources, and what is estimated or fitted (emu/docs/timing.md has the
 * table with every figure):
 *   - 780: 200 ns microcycle (DEC; Emer & Clark).  Cache 8 KB, two-way,
 *     8-byte blocks, write-through without write allocation, random
 *     replacement; TB 128 entries, two-way, half for process and half for
 *     system space (DEC, "VAX-11/780 Translation Buffer, Cache and SBI
 *     Control Technical Description", EK-MM780-TD; Clark, "Cache
 *     Performance in the VAX-11/780", 1983).
 *   - 750: 320 ns microcycle (DEC).  Cache 4 KB, direct mapped, 8-byte
 *     blocks, write-through; TB 512 entries, two-way, half process and
 *     half system (the sizes DEC's VAX hardware handbooks give for the
 *     KA750; the organisation within them is our assumption).
 *   - Execute cycles per opcode class (execute_cycles): estimates, the
 *     same microcycle counts for both processors (the 750 ran the same
 *     architecture in microcode of about the same length on a slower
 *     cycle; we have no per-opcode source for either).
 *   - Memory timings (read miss, write, back-to-back write rate) and the
 *     TB refill's microcode: estimates from each machine's memory
 *     interconnect, stated per model below.
 *   - STALL_TENTHS, the instruction buffer's average stall per
 *     instruction, and the 750's read-miss time are fitted on Table 2's
 *     syscall and pipeself4, the 750's string-move rate on forks100k (the
 *     calibration rows; emu/docs/timing.md).
 */
#include "cpu/timing.h"

#include "cpu/opcodes.h"

/* What distinguishes the models (cycles are the model's microcycles). */
typedef struct {
    unsigned cycle_ns;
    unsigned read_miss_cycles;    /* a read that misses the cache */
    unsigned write_cycles;        /* a write: its cycle and the average wait */
    unsigned burst_write_cycles;  /* per longword when writes come back to back */
    unsigned tb_miss_cycles;      /* the refill microcode, page-table reads apart */
    unsigned move_tenths;         /* MOVC3/MOVC5: a byte moved or filled, tenths of a cycle
                                   * (the source's cache misses apart) */
    unsigned exception_cycles;
    vax_memory_geometry geometry;
} model_figures;

/* The instruction buffer's average stall per instruction, in tenths of a
 * cycle, the same for both processors (fitted on syscall and pipeself4,
 * with the 750's read miss: emu/docs/timing.md). */
#define STALL_TENTHS 10u

static const model_figures figures_780 = {
    .cycle_ns = 200,
    /* A quadword read over the SBI (200 ns cycles): command, memory access
     * and the two data cycles: about 6 cycles (estimate). */
    .read_miss_cycles = 6,
    /* One longword write buffer: an isolated write costs its cycle, a
     * write soon after another waits (estimate: 2 on average); back to
     * back the SBI takes about 4 cycles a longword (estimate). */
    .write_cycles = 2,
    .burst_write_cycles = 4,
    .tb_miss_cycles = 18,   /* estimate; Emer & Clark count refills as a small separate share */
    /* MOVC moves longwords: per 8 bytes two reads (misses simulated) and
     * two writes back to back, 2 x 4 cycles: a cycle a byte; the MOVC5
     * fill is the writes alone, 4 cycles a longword: the same. */
    .move_tenths = 10,
    .exception_cycles = 20, /* push PSL and PC, read the SCB vector, switch stacks: estimate */
    .geometry = {.cache_sets = 512, .cache_ways = 2, .tb_half_sets = 32},
};

static const model_figures figures_750 = {
    .cycle_ns = 320,
    /* A read over the CMI from MS750 memory (fitted: emu/docs/timing.md). */
    .read_miss_cycles = 3,
    /* No write buffer is documented for the 750: a write holds the CMI for
     * its memory cycle (estimate: 2 cycles on average, 3 back to back). */
    .write_cycles = 2,
    .burst_write_cycles = 3,
    .tb_miss_cycles = 18,
    /* Fitted on forks100k (the paper's own measure of copying 100 KB of
     * pages, less forks0): 2 cycles a byte, about 1.6 MB/s, for the move
     * and the fill alike (the writes set the pace; emu/docs/timing.md). */
    .move_tenths = 20,
    .exception_cycles = 20,
    .geometry = {.cache_sets = 512, .cache_ways = 1, .tb_half_sets = 128},
};

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

int timing_init_model(vax_timing *t, vax_memory_geometry *g, vax_cpu_model model)
{
    const model_figures *f;
    switch (model) {
    case VAX_MODEL_780: f = &figures_780; break;
    case VAX_MODEL_750: f = &figures_750; break;
    default: return -1;
    }
    unsigned cy = f->cycle_ns;
    unsigned stall = STALL_TENTHS * cy / 10u;
    for (int op = 0; op < 256; op++) {
        const vax_opinfo *oi = &vax_opcodes[op];
        unsigned specs = 0;
        for (int i = 0; i < oi->nspec; i++)
            if (SPEC_ACC(oi->spec[i]) != ACC_B)   /* a branch displacement is no specifier */
                specs++;
        /* Reserved opcodes: decoding them and starting the fault. */
        unsigned cycles = (oi->flags & (OPF_RESERVED | OPF_ESCAPE)) ? 2 : 1 + specs + execute_cycles(op);
        t->op[op] = (uint16_t)(cycles * cy + stall);
    }
    t->spec_disp = (uint16_t)(1 * cy);
    t->spec_abs = (uint16_t)(1 * cy);
    t->read = (uint16_t)(1 * cy);
    t->write = (uint16_t)(f->write_cycles * cy);
    t->read_miss = (uint16_t)(f->read_miss_cycles * cy);
    t->spec_deferred = (uint16_t)(1 * cy + t->read);
    t->spec_index = (uint16_t)(2 * cy);
    t->tb_miss = (uint16_t)(f->tb_miss_cycles * cy);
    t->exception = (uint16_t)(f->exception_cycles * cy);
    /* Registers saved or restored: back-to-back memory accesses. */
    t->call_reg = (uint16_t)(f->burst_write_cycles * cy);
    t->pushr_reg = (uint16_t)(f->burst_write_cycles * cy);
    t->move_byte = (uint16_t)(f->move_tenths * cy / 10u);
    t->fill_byte = (uint16_t)(f->move_tenths * cy / 10u);
    /* The compare and scan instructions take a byte at a time in microcode
     * (estimates). */
    t->movtc_byte = (uint16_t)(4 * cy);
    t->cmpc_byte = (uint16_t)(3 * cy);
    t->locc_byte = (uint16_t)(2 * cy);
    t->scanc_byte = (uint16_t)(3 * cy);
    t->matchc_byte = (uint16_t)(3 * cy);
    t->crc_byte = (uint16_t)(8 * cy);
    derive_memory_costs(t);
    *g = f->geometry;
    return 0;
}

void timing_init_flat(vax_timing *t, uint16_t ns)
{
    *t = (vax_timing){0};
    for (int op = 0; op < 256; op++)
        t->op[op] = ns;
    derive_memory_costs(t);
}
