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
 * - Condition codes: for a result, cc_result()/cc_result_keep_c()/
 *   cc_nz_keep_c() below, which leave N and Z as the result itself (cpu.h,
 *   vax_cpu); codes worked out as bits, cc_set(), with cc_nz_bits() for the N
 *   and Z of a result.
 */
#ifndef VAX_EXEC_H
#define VAX_EXEC_H

#include "machine.h"
#include "cpu/decode.h"

/* Set NZVC from bits: no read of the PSL (cpu.h, cpu_store_cc). */
static inline void cc_set(vax_machine *m, uint32_t cc)
{
    cpu_store_cc(&m->cpu, cc);
}

/* N and Z as bits from a result of `size` bytes (bits above size
 * ignored), for the instructions that work their codes out as bits. */
static inline uint32_t cc_nz_bits(uint32_t result, int size)
{
    uint32_t n = (result >> (8 * size - 4)) & PSL_N;   /* the sign bit moved to bit 3 */
    uint32_t z = (result & size_mask(size)) == 0 ? PSL_Z : 0;
    return n | z;
}

/* N and Z from a result of `size` bytes, V as given (PSL_V or 0), C
 * kept: the result is stored sign-extended, and the bits are worked out
 * only when read (cpu.h, vax_cpu's cc_nz).  The frequent instructions
 * set their codes through these (exec_integer.h, exec_branch.h). */
static inline void cc_result_keep_c(vax_machine *m, uint32_t result, int size, uint32_t v)
{
    m->cpu.cc_nz = (int32_t)sign_extend(result, size);
    m->cpu.cc_v = v;
}

/* The same, C as given (PSL_C or 0). */
static inline void cc_result(vax_machine *m, uint32_t result, int size, uint32_t v, uint32_t c)
{
    cc_result_keep_c(m, result, size, v);
    m->cpu.cc_c = c;
}

/* The codes of a compare of a with b (sign-extended), C as given: N is
 * a < b and Z is a == b, which are the sign of the exact difference and
 * whether its low 32 bits are zero, so the difference is all cc_nz needs
 * (cpu.h, vax_cpu).  V is cleared. */
static inline void cc_set_compare(vax_machine *m, int32_t a, int32_t b, uint32_t c)
{
    m->cpu.cc_nz = (int64_t)a - b;
    m->cpu.cc_v = 0;
    m->cpu.cc_c = c;
}

/* Set N and Z from a result, clear V, keep C: the moves and logical
 * instructions. */
static inline void cc_nz_keep_c(vax_machine *m, uint32_t result, int size)
{
    cc_result_keep_c(m, result, size, 0);
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
