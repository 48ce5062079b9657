/*
 * timing.h — the processor's cost model: how much virtual time each
 * instruction takes on the modelled VAX, a VAX-11/780 or a VAX-11/750.
 *
 * Costs are nanoseconds of the modelled machine (its microcycle: 200 ns on
 * a 780, 320 ns on a 750).  The machine adds them up in vax_machine.cost
 * as it runs; virtual time is that sum scaled by ns_per_instruction / 2000
 * (machine.h), which is 1 for both models — the scale is only the old
 * "0.6 of a 780" preset's knob, kept for comparison.  Where each part is
 * charged:
 *
 *   op[opcode]      once per instruction, at its start (execute.c): decode,
 *                   one cycle per operand specifier as if it named a
 *                   register or a literal, the execute microcode of its
 *                   class, and the average instruction-buffer stall that
 *                   the simulations below do not produce (fitted, timing.c);
 *   spec_*          a memory operand specifier's extra address work
 *                   (decode.c: displacement, absolute, deferred, index);
 *   read, write     its data access (decode.c and the modify/field/quad
 *                   paths): a cache hit's cycle; a write's cycle and its
 *                   average wait for the write path to memory;
 *   read_miss       a read that misses the simulated cache (mmu/cache.h;
 *                   charged by the memory accessors, the instruction
 *                   fetch in execute.c and the page-table reads of a TB
 *                   refill); and every read of I/O space, which is never
 *                   cached (mmu.c, io_read);
 *   call_reg ...    per register saved or restored by CALLx/RET/PUSHR/POPR
 *                   (exec_call.c): back-to-back writes, so the write path's
 *                   rate;
 *   *_byte          per byte processed by the character-string
 *                   instructions, charged from their progress, so a string
 *                   instruction that faults part way and resumes pays for
 *                   each byte once (exec_string.c); their source reads go
 *                   through the cache simulation as well;
 *   tb_miss         a translation-buffer refill's microcode, beyond its
 *                   page-table reads (mmu.c; the TB is simulated as built,
 *                   mmu/tlb.h);
 *   exception       taking an exception or interrupt (exceptions.c).
 *
 * The figures, their sources and what is fitted are in timing.c and
 * emu/docs/timing.md.  Nothing here depends on the host: the same sums in
 * native and WebAssembly builds.
 */
#ifndef VAX_TIMING_H
#define VAX_TIMING_H

#include <stdint.h>

/* The processors modelled (vax_set_cpu_model). */
typedef enum { VAX_MODEL_780 = 780, VAX_MODEL_750 = 750 } vax_cpu_model;

typedef struct vax_timing {
    uint16_t op[256];
    uint16_t spec_disp;       /* displacement or PC-relative: the add */
    uint16_t spec_abs;        /* absolute @#: the longword from the I-stream */
    uint16_t spec_deferred;   /* deferred modes: reading the pointer */
    uint16_t spec_index;      /* index mode: scaling and adding the index */
    uint16_t read, write;     /* a memory data operand read (a cache hit) / written */
    uint16_t read_miss;       /* a read that misses the cache: the memory's read */
    uint16_t tb_miss;
    uint16_t exception;
    uint16_t call_reg;        /* CALLS/CALLG/RET, per register in the entry mask */
    uint16_t pushr_reg;       /* PUSHR/POPR, per register in the mask */
    uint16_t move_byte;       /* MOVC3/MOVC5: per byte moved (the source's misses apart) */
    uint16_t fill_byte;       /* MOVC5: per fill byte stored */
    uint16_t movtc_byte;      /* MOVTC/MOVTUC: per byte translated */
    uint16_t cmpc_byte;       /* CMPC3/CMPC5: per byte pair compared */
    uint16_t locc_byte;       /* LOCC/SKPC: per byte examined */
    uint16_t scanc_byte;      /* SCANC/SPANC: per byte examined (table lookup) */
    uint16_t matchc_byte;     /* MATCHC: per byte comparison */
    uint16_t crc_byte;        /* CRC: per byte */
    /* Derived from the figures above by timing_init_*: a memory specifier
     * that the fast decoder (decode.c, decode_at) takes, charged in one
     * addition — the address work of its form (SPEC_FORM_*), plus, but for
     * mem_addr, its data access (read; write; read and write). */
    uint16_t mem_addr[4], mem_read[4], mem_write[4], mem_modify[4];
} vax_timing;

/* Forms of a memory specifier, for the mem_* tables: (Rn), (Rn)+, -(Rn)
 * and immediate; a displacement; index with one of those; index with a
 * displacement base. */
enum { SPEC_FORM_PLAIN, SPEC_FORM_DISP, SPEC_FORM_INDEX, SPEC_FORM_INDEX_DISP };

/* The memory system a model has (mmu/cache.h, mmu/tlb.h): its cache's
 * sets and ways and its TB's sets in each half (two ways each). */
typedef struct {
    uint32_t cache_sets, cache_ways;
    uint32_t tb_half_sets;
} vax_memory_geometry;

/* The model of a processor: its costs and its memory system.  Returns 0,
 * or -1 for a model we do not have. */
int timing_init_model(vax_timing *t, vax_memory_geometry *g, vax_cpu_model model);

/* A fixed cost per instruction and nothing else: the first timing model,
 * kept for comparison (vax_set_timing_flat).  No cache or TB costs. */
void timing_init_flat(vax_timing *t, uint16_t ns);

#endif
