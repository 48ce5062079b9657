/*
 * exec.h — the instruction groups.  execute.c fetches the opcode and
 * dispatches: the frequent opcodes are expanded inline in its switch
 * (bodies in exec_integer.h and exec_branch.h), every other opcode goes
 * through a table to its group function, which decodes its own operands
 * (decode.h) and returns VAX_OK or an exception status.
 *
 * Rules every group follows:
 * - Decode operand specifiers strictly in the order of the opcode table.
 * - Faults: return the status; the caller restores registers changed by
 *   operand decoding (the rlog) and backs the PC up to the opcode.  Any
 *   register the instruction itself changes before it can still fault
 *   must be changed only after the last possible fault, or be restored
 *   by the instruction, unless the architecture says otherwise (FPD).
 * - Traps (integer overflow with PSL<IV>, divide by zero, subscript
 *   range, decimal overflow with PSL<DV>, the floating ones): complete
 *   the instruction and call cpu_set_trap() after its last possible
 *   fault, never before.  On the VAX a fault backs the instruction up
 *   and restarts it from the beginning when the handler returns, while
 *   an arithmetic trap is taken only when its instruction has completed,
 *   with PC after it (VAX Architecture Reference Manual, "Exceptions and
 *   Interrupts"): an instruction that overflows and then faults on its
 *   destination takes the fault alone, and traps when, restarted, it
 *   completes.  Nothing else discards a requested trap, so a body that
 *   asked for one before a fault would have it taken after the first
 *   instruction of the fault's handler (tests/test_trap_fault.c checks
 *   each class: integer, EDIV, INDEX, decimal, floating).
 * - Condition codes: cc_set()/cc_nz() below.
 */
#ifndef VAX_EXEC_H
#define VAX_EXEC_H

#include "machine.h"
#include "cpu/decode.h"

/* Set NZVC: two stores, no read of the PSL (cpu.h, vax_cpu). */
static inline void cc_set(vax_machine *m, uint32_t cc)
{
    cpu_store_cc(&m->cpu, cc);
}

/* N and Z of each byte value: one load instead of the shift, mask, test
 * and set of the general form below (a byte's condition codes are set by
 * a third of the CPU benchmark's instructions). */
#define CC_NZ_8(x) x, x, x, x, x, x, x, x
static const uint8_t cc_nz_byte[256] = {PSL_Z, [128] = CC_NZ_8(CC_NZ_8(PSL_N)), CC_NZ_8(CC_NZ_8(PSL_N))};
#undef CC_NZ_8

/* N and Z from a result of `size` bytes (bits above size ignored). */
static inline uint32_t cc_nz(uint32_t result, int size)
{
    if (size == 1)
        return cc_nz_byte[result & 0xFFu];
    uint32_t n = (result >> (8 * size - 4)) & PSL_N;   /* the sign bit moved to bit 3 */
    uint32_t z = (result & size_mask(size)) == 0 ? PSL_Z : 0;
    return n | z;
}

/* Set N and Z from a result, clear V, keep C: the moves and logical
 * instructions. */
static inline void cc_nz_keep_c(vax_machine *m, uint32_t result, int size)
{
    m->cpu.cc_nzv = cc_nz(result, size);   /* V cleared with it; C is its own field */
}

/* Request an arithmetic trap after the current instruction completes.
 * Integer overflow traps only when PSL<IV> is set: pass ARITH_INT_OVERFLOW
 * and this checks IV. */
static inline void cpu_set_trap(vax_machine *m, int code)
{
    if (code == ARITH_INT_OVERFLOW && !(m->cpu.psl_without_cc & PSL_IV))
        return;
    m->cpu.trap_pending = (uint8_t)code;
}

/* cpu_set_trap, for the bodies execute.c's fast switch expands: their
 * status then says whether a trap is pending after them, so that the loop
 * need not test cpu.trap_pending after every one (execute.c,
 * simple_no_trap).  VAX_TRAP_REQUESTED is returned when one is pending,
 * whether set here or, with PSL<IV> clear, before the instruction. */
static inline int cpu_trap_status(vax_machine *m, int code)
{
    cpu_set_trap(m, code);
    return m->cpu.trap_pending ? VAX_TRAP_REQUESTED : VAX_OK;
}

/* Push a longword on the current stack. */
static inline int push_l(vax_machine *m, uint32_t v)
{
    TRY(mem_write_l(m, m->cpu.r[14] - 4, v));
    m->cpu.r[14] -= 4;
    return 0;
}

/* Groups.  Each returns VAX_OK or an exception status. */
typedef int exec_group_fn(vax_machine *m, int opcode);
exec_group_fn exec_integer;     /* exec_integer.c: arithmetic/logical, converts, moves */
exec_group_fn exec_branch;      /* exec_branch.c: branches, loops, CASE, JSB/RSB */
exec_group_fn exec_field;       /* exec_field.c: BB*, BLBx, FFS/FFC, EXTV, INSV, CMPV */
exec_group_fn exec_call;        /* exec_call.c: CALLS, CALLG, RET, PUSHR, POPR */
exec_group_fn exec_queue;       /* exec_queue.c: INSQUE, REMQUE, INSQHI ... */
exec_group_fn exec_string;      /* exec_string.c: MOVC*, CMPC*, LOCC ..., CRC */
exec_group_fn exec_float;       /* exec_float.c: F and D floating */
exec_group_fn exec_decimal;     /* exec_decimal.c: packed decimal strings, EDITPC */
exec_group_fn exec_privileged;  /* privileged.c: MTPR, MFPR, CHMx, REI, LDPCTX, ... */

/* CALLS and RET alone (exec_call.c), as exec_call runs them: execute.c's
 * switch calls them without exec_call's own switch. */
int exec_calls(vax_machine *m);
int exec_ret(vax_machine *m);

/* One instruction in compatibility mode (PSL<CM> set): compat.c. */
int compat_execute(vax_machine *m);

#endif
