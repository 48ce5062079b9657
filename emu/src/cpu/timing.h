/*
 * timing.h — the processor's cost model: how much virtual time each
 * instruction takes.
 *
 * Costs are in nanoseconds of a VAX-11/780 (one microcycle is 200 ns).
 * The machine adds them up in vax_machine.cost as it runs; virtual time is
 * that sum scaled by the CPU preset (machine.c: ns_per_instruction / 2000,
 * so a 780 runs the costs as they are and a 750, at 3333, takes 1/0.6 of
 * them, as the paper assumes).  Where each part is charged:
 *
 *   op[opcode]      once per instruction, at its start (execute.c): decode,
 *                   one cycle per operand specifier as if it named a
 *                   register or a literal, the execute microcode of its
 *                   class, and the average instruction-buffer and cache
 *                   stall (the calibrated part, timing.c);
 *   spec_*          a memory operand specifier's extra address work
 *                   (decode.c: displacement, absolute, deferred, index);
 *   read, write     its data access (decode.c and the modify/field/quad
 *                   paths): a cache access plus the average miss stall;
 *   call_reg ...    per register saved or restored by CALLx/RET/PUSHR/POPR
 *                   (exec_call.c);
 *   *_byte          per byte processed by the character-string
 *                   instructions, charged from their progress, so a string
 *                   instruction that faults part way and resumes pays for
 *                   each byte once (exec_string.c);
 *   tb_miss         a translation-buffer refill (mmu.c);
 *   exception       taking an exception or interrupt (exceptions.c).
 *
 * The figures, their sources and what is estimated are in timing.c and
 * emu/docs/timing.md.  Nothing here depends on the host: the same sums in
 * native and WebAssembly builds.
 */
#ifndef VAX_TIMING_H
#define VAX_TIMING_H

#include <stdint.h>

typedef struct vax_timing {
    uint16_t op[256];
    uint16_t spec_disp;       /* displacement or PC-relative: the add */
    uint16_t spec_abs;        /* absolute @#: the longword from the I-stream */
    uint16_t spec_deferred;   /* deferred modes: reading the pointer */
    uint16_t spec_index;      /* index mode: scaling and adding the index */
    uint16_t read, write;     /* a memory data operand read / written */
    uint16_t tb_miss;
    uint16_t exception;
    uint16_t call_reg;        /* CALLS/CALLG/RET, per register in the entry mask */
    uint16_t pushr_reg;       /* PUSHR/POPR, per register in the mask */
    uint16_t move_byte;       /* MOVC3/MOVC5: per byte moved */
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

/* The model (timing.c). */
void timing_init_model(vax_timing *t);

/* A fixed cost per instruction and nothing else: the first timing model,
 * kept for comparison (vax_set_timing_flat). */
void timing_init_flat(vax_timing *t, uint16_t ns);

#endif
