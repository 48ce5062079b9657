/*
 * decode.h — operand-specifier decoding.
 *
 * Each instruction decodes its specifiers in order with the function for
 * the operand's access type and size, exactly as the opcode table lists
 * them.  Register and short-literal specifiers, the common case, are
 * handled inline; everything else goes to decode.c.
 *
 * Autoincrement/autodecrement side effects are logged in cpu.rlog so a
 * fault can undo them (cpu_restore_for_fault) and the instruction can be
 * restarted.
 */
#ifndef VAX_DECODE_H
#define VAX_DECODE_H

#include "../mmu/mmu.h"
#include "cpu.h"

/* Where a write or modify operand lives. */
typedef struct {
    uint32_t addr;   /* virtual address, when reg < 0 */
    int reg;         /* register number, or -1 for memory */
} oploc;

#define TRY(expr)                      \
    do {                               \
        int try_status_ = (expr);      \
        if (try_status_)               \
            return try_status_;        \
    } while (0)

static inline uint32_t size_mask(int size)
{
    return size == 1 ? 0xFFu : size == 2 ? 0xFFFFu : 0xFFFFFFFFu;
}

static inline uint32_t sign_extend(uint32_t v, int size)
{
    return size == 1 ? (uint32_t)(int32_t)(int8_t)v : size == 2 ? (uint32_t)(int32_t)(int16_t)v : v;
}

/* Store v into the low `size` bytes of a register, keeping the rest. */
static inline void reg_store(vax_machine *m, int n, int size, uint32_t v)
{
    uint32_t mask = size_mask(size);
    m->cpu.r[n] = (m->cpu.r[n] & ~mask) | (v & mask);
}

int op_read_slow(vax_machine *m, int size, uint32_t *v);
int op_write_slow(vax_machine *m, int size, uint32_t v);
int op_loc_slow(vax_machine *m, int size, oploc *loc);

/* Peek at the next specifier byte if the instruction-fetch shortcut has it. */
static inline int spec_peek(vax_machine *m, uint32_t *spec)
{
    uint32_t pc = m->cpu.r[15];
    if ((pc >> 9) != m->ib_tag)
        return 0;
    *spec = m->ib_host[pc & 511u];
    return 1;
}

/* Read operand of size 1, 2 or 4; the value is zero-extended. */
static inline int op_read(vax_machine *m, int size, uint32_t *v)
{
    uint32_t spec;
    if (spec_peek(m, &spec)) {
        if (spec < 0x40) {
            *v = spec;
            m->cpu.r[15]++;
            return 0;
        }
        if ((spec >> 4) == 5 && spec != 0x5F) {
            *v = m->cpu.r[spec & 15] & size_mask(size);
            m->cpu.r[15]++;
            return 0;
        }
    }
    return op_read_slow(m, size, v);
}

/* Decode a write operand and store v into it. */
static inline int op_write(vax_machine *m, int size, uint32_t v)
{
    uint32_t spec;
    if (spec_peek(m, &spec) && (spec >> 4) == 5 && spec != 0x5F) {
        m->cpu.r[15]++;
        reg_store(m, (int)(spec & 15), size, v);
        return 0;
    }
    return op_write_slow(m, size, v);
}

/* Decode a modify (or write) operand to its location. */
static inline int op_loc(vax_machine *m, int size, oploc *loc)
{
    uint32_t spec;
    if (spec_peek(m, &spec) && (spec >> 4) == 5 && spec != 0x5F) {
        m->cpu.r[15]++;
        loc->reg = (int)(spec & 15);
        loc->addr = 0;
        return 0;
    }
    return op_loc_slow(m, size, loc);
}

static inline int loc_read(vax_machine *m, const oploc *l, int size, uint32_t *v)
{
    if (l->reg >= 0) {
        *v = m->cpu.r[l->reg] & size_mask(size);
        return 0;
    }
    return mem_read(m, l->addr, size, v);
}

static inline int loc_write(vax_machine *m, const oploc *l, int size, uint32_t v)
{
    if (l->reg >= 0) {
        reg_store(m, l->reg, size, v);
        return 0;
    }
    return mem_write(m, l->addr, size, v);
}

/* Quadword (and D_floating bit pattern) operands: v[0] low, v[1] high.
 * In registers a quadword occupies Rn and Rn+1. */
int op_read_q(vax_machine *m, uint32_t v[2]);
int op_write_q(vax_machine *m, const uint32_t v[2]);
int op_loc_q(vax_machine *m, oploc *loc);
int loc_read_q(vax_machine *m, const oploc *l, uint32_t v[2]);
int loc_write_q(vax_machine *m, const oploc *l, const uint32_t v[2]);

/* Floating read operands: a short literal is expanded to a floating
 * value (0.5 .. 120.0) instead of an integer. */
int op_read_f(vax_machine *m, uint32_t *v);
int op_read_d(vax_machine *m, uint32_t v[2]);

/* Address operand (access type a): the operand's address; register mode
 * and literals are reserved addressing modes.  size scales index mode and
 * steps autoincrement. */
int op_addr(vax_machine *m, int size, uint32_t *addr);

/* Bit-field base (access type v): a register (loc->reg) or an address. */
int op_vfield(vax_machine *m, oploc *loc);

/* Branch displacements in the instruction stream, sign-extended. */
static inline int op_branch_b(vax_machine *m, uint32_t *disp)
{
    uint32_t d;
    TRY(ifetch(m, 1, &d));
    *disp = sign_extend(d, 1);
    return 0;
}

static inline int op_branch_w(vax_machine *m, uint32_t *disp)
{
    uint32_t d;
    TRY(ifetch(m, 2, &d));
    *disp = sign_extend(d, 2);
    return 0;
}

/* Record a register change to undo if the instruction faults. */
static inline void rlog_add(vax_machine *m, int reg, int delta)
{
    vax_cpu *c = &m->cpu;
    if (c->rlog_n < 8) {
        c->rlog_reg[c->rlog_n] = (uint8_t)reg;
        c->rlog_delta[c->rlog_n] = (int8_t)delta;
        c->rlog_n++;
    }
}

#endif
