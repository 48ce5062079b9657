/*
 * exec.h — the instruction groups.  execute.c fetches the opcode and
 * dispatches; each group function decodes its own operands (decode.h)
 * and returns VAX_OK or an exception status.
 *
 * Rules every group follows:
 * - Decode operand specifiers strictly in the order of the opcode table.
 * - Faults: return the status; the caller restores registers changed by
 *   operand decoding (the rlog) and backs the PC up to the opcode.  Any
 *   register the instruction itself changes before it can still fault
 *   must be changed only after the last possible fault, or be restored
 *   by the instruction, unless the architecture says otherwise (FPD).
 * - Traps (integer overflow with PSL<IV>, divide by zero, subscript
 *   range): complete the instruction and call cpu_set_trap().
 * - Condition codes: cc_set()/cc_nz() below.
 */
#ifndef VAX_EXEC_H
#define VAX_EXEC_H

#include "../machine.h"
#include "decode.h"

/* Force inlining of small workers that take constant size/operation
 * arguments, so each opcode gets its own specialised body. */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* Set NZVC. */
static inline void cc_set(vax_machine *m, uint32_t cc)
{
    m->cpu.psl = (m->cpu.psl & ~PSL_CC) | cc;
}

/* N and Z from a result of `size` bytes, V from `v`, C kept. */
static inline uint32_t cc_nz(uint32_t result, int size)
{
    uint32_t sign = size == 1 ? 0x80u : size == 2 ? 0x8000u : 0x80000000u;
    uint32_t cc = 0;
    if (result & sign)
        cc |= PSL_N;
    if ((result & size_mask(size)) == 0)
        cc |= PSL_Z;
    return cc;
}

/* Request an arithmetic trap after the current instruction completes.
 * Integer overflow traps only when PSL<IV> is set: pass ARITH_INT_OVERFLOW
 * and this checks IV. */
static inline void cpu_set_trap(vax_machine *m, int code)
{
    if (code == ARITH_INT_OVERFLOW && !(m->cpu.psl & PSL_IV))
        return;
    m->cpu.trap_pending = (uint8_t)code;
}

/* Groups.  Each returns VAX_OK or an exception status. */
int exec_integer(vax_machine *m, int opcode);     /* exec_integer.c: arithmetic/logical, converts, moves */
int exec_branch(vax_machine *m, int opcode);      /* exec_branch.c: branches, loops, CASE, JSB/RSB */
int exec_field(vax_machine *m, int opcode);       /* exec_field.c: BB*, BLBx, FFS/FFC, EXTV, INSV, CMPV */
int exec_call(vax_machine *m, int opcode);        /* exec_call.c: CALLS, CALLG, RET, PUSHR, POPR */
int exec_queue(vax_machine *m, int opcode);       /* exec_queue.c: INSQUE, REMQUE, INSQHI ... */
int exec_string(vax_machine *m, int opcode);      /* exec_string.c: MOVC*, CMPC*, LOCC ..., CRC */
int exec_float(vax_machine *m, int opcode);       /* exec_float.c: F and D floating */
int exec_privileged(vax_machine *m, int opcode);  /* privileged.c: MTPR, MFPR, CHMx, REI, LDPCTX, ... */

#endif
