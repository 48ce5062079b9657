/*
 * compat.h — compatibility mode (PSL<CM>): the PDP-11's registers and
 * operands (compat_decode.c) for its instruction set (compat.c).
 *
 * PDP-11 register n (0-6) is the low 16 bits of VAX register n; R7, the
 * PC, is the low 16 bits of R15 (whose high half REI clears on the way
 * in).  Reads ignore the high halves.  A register a compatibility-mode
 * instruction writes (a result, an autoincrement or decrement, a byte
 * into its low byte) is written whole, zero-extended from 16 bits: its
 * high half is cleared.  DEC's EVKAD passes either way (it was run both
 * ways); zero-extension is what the reference simulator does when run as
 * a black box (a word result, an autoincrement and a byte result into
 * registers with their high halves set: each high half read back 0).
 * Addresses are 16 bits, wrapping, zero-extended into P0 space; every
 * access is the current (user) mode's, through the MMU, so translation
 * and protection faults are the usual VAX faults, restartable: the
 * autoincrements and autodecrements an instruction made before one are
 * undone from the rlog, in the low 16 bits (exceptions.c,
 * cpu_restore_for_fault), the high half staying clear.
 */
#ifndef VAX_COMPAT_H
#define VAX_COMPAT_H

#include "cpu/exec.h"

/* The VAX register that holds PDP-11 register n (0-7). */
static inline int cm_vax_reg(int n)
{
    return n == 7 ? 15 : n;
}

static inline uint32_t cm_reg(const vax_cpu *c, int n)
{
    return c->r[cm_vax_reg(n)] & 0xFFFFu;
}

/* Write register n: 16 bits, zero-extended (above). */
static inline void cm_set_reg(vax_cpu *c, int n, uint32_t v)
{
    uint32_t *r = &c->r[cm_vax_reg(n)];
    *r = v & 0xFFFFu;
}

/* An operand: a register, or a 16-bit address in memory. */
typedef struct {
    int is_reg;
    int reg;          /* PDP-11 register number when is_reg */
    uint32_t addr;    /* the address otherwise */
} cm_operand;

/* Decode the 6-bit operand field `spec` (mode << 3 | register) of an
 * operand of `size` bytes (1 or 2): register modes name the register,
 * the others compute the address, with the autoincrement or decrement
 * done (and logged for a fault).  An odd pointer read by a deferred mode
 * is the odd-address exception.  Charges the address work of the VAX
 * specifier of the same form (timing.h); the data accesses below charge
 * their own read or write. */
int cm_operand_decode(vax_machine *m, int spec, int size, cm_operand *op);

/* Read, write, or read for modify (write access checked) an operand of
 * `size` bytes.  A word at an odd address is the odd-address exception
 * (code 6).  A byte written to a register changes its low byte only. */
int cm_read(vax_machine *m, const cm_operand *op, int size, uint32_t *v);
int cm_read_modify(vax_machine *m, const cm_operand *op, int size, uint32_t *v);
int cm_write(vax_machine *m, const cm_operand *op, int size, uint32_t v);

/* Read the next word of the instruction stream (PC += 2). */
int cm_fetch(vax_machine *m, uint32_t *w);

/* Push and pop a word on the PDP-11 stack (R6). */
int cm_push(vax_machine *m, uint32_t v);
int cm_pop(vax_machine *m, uint32_t *v);

/* Leave through the compatibility-mode exception with `code` (COMPAT_*). */
static inline int cm_exception(vax_machine *m, int code)
{
    m->cpu.compat_code = (uint8_t)code;
    return VAX_EXC_COMPATIBILITY;
}

#endif
