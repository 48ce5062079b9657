/*
 * compat_decode.c — compatibility mode's operands: the PDP-11's eight
 * addressing modes on 16-bit registers and addresses (compat.h).
 *
 * Mode (bits 5:3 of the field) and what it names, Rn's low 16 bits:
 *   0 Rn   1 (Rn)   2 (Rn)+   3 @(Rn)+   4 -(Rn)   5 @-(Rn)
 *   6 X(Rn)   7 @X(Rn)   (X: the next word of the instruction stream)
 * With R7, the PC, modes 2, 3, 6 and 7 are immediate #n, absolute @#a,
 * relative a and relative deferred @a: nothing special here, since the PC
 * has already moved past each word it fetched when it is used.  Modes 2
 * and 4 step by 1 for a byte operand, except on R6 and R7 (always 2);
 * the deferred modes always step by 2.
 */
#include "cpu/compat.h"

/* Step register n by delta, logging it so that a fault restores it.  The
 * PC needs no log: a fault backs it up to the instruction. */
static void step_reg(vax_cpu *c, int n, int delta)
{
    cm_set_reg(c, n, cm_reg(c, n) + (uint32_t)delta);
    if (n != 7 && (size_t)c->rlog_n < sizeof c->rlog_reg) {
        c->rlog_reg[c->rlog_n] = (uint8_t)n;
        c->rlog_delta[c->rlog_n] = (int8_t)delta;
        c->rlog_n++;
    }
}

/* A word of data or a pointer at a 16-bit address: odd is the
 * odd-address exception. */
static int read_word(vax_machine *m, uint32_t addr, uint32_t *v)
{
    if (addr & 1u)
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    return mem_read(m, addr, 2, v);
}

int cm_fetch(vax_machine *m, uint32_t *w)
{
    vax_cpu *c = &m->cpu;
    uint32_t pc = cm_reg(c, 7);
    TRY(read_word(m, pc, w));
    cm_set_reg(c, 7, pc + 2u);
    return 0;
}

int cm_operand_decode(vax_machine *m, int spec, int size, cm_operand *op)
{
    vax_cpu *c = &m->cpu;
    const vax_timing *t = &m->tm;
    int mode = (spec >> 3) & 7, n = spec & 7;
    int step = (size == 2 || n >= 6) ? 2 : 1;
    uint32_t a, x;
    op->is_reg = mode == 0;
    op->reg = n;
    switch (mode) {
    case 0:
        return 0;
    case 1:
        a = cm_reg(c, n);
        break;
    case 2:
        a = cm_reg(c, n);
        step_reg(c, n, step);
        break;
    case 3:
        m->cost += n == 7 ? t->spec_abs : t->spec_deferred;
        TRY(read_word(m, cm_reg(c, n), &a));
        step_reg(c, n, 2);
        break;
    case 4:
        step_reg(c, n, -step);
        a = cm_reg(c, n);
        break;
    case 5:
        m->cost += t->spec_deferred;
        step_reg(c, n, -2);
        TRY(read_word(m, cm_reg(c, n), &a));
        break;
    case 6:
        m->cost += t->spec_disp;
        TRY(cm_fetch(m, &x));
        a = cm_reg(c, n) + x;
        break;
    default:
        m->cost += t->spec_disp + t->spec_deferred;
        TRY(cm_fetch(m, &x));
        TRY(read_word(m, (cm_reg(c, n) + x) & 0xFFFFu, &a));
        break;
    }
    op->addr = a & 0xFFFFu;
    return 0;
}

int cm_read(vax_machine *m, const cm_operand *op, int size, uint32_t *v)
{
    if (op->is_reg) {
        *v = cm_reg(&m->cpu, op->reg) & size_mask(size);
        return 0;
    }
    if (size == 2 && (op->addr & 1u))
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    m->cost += m->tm.read;
    return mem_read(m, op->addr, size, v);
}

int cm_read_modify(vax_machine *m, const cm_operand *op, int size, uint32_t *v)
{
    if (op->is_reg)
        return cm_read(m, op, size, v);
    if (size == 2 && (op->addr & 1u))
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    m->cost += m->tm.read;
    return mem_read_modify(m, op->addr, size, v);
}

int cm_write(vax_machine *m, const cm_operand *op, int size, uint32_t v)
{
    vax_cpu *c = &m->cpu;
    if (op->is_reg) {
        if (size == 1)
            v = (cm_reg(c, op->reg) & 0xFF00u) | (v & 0xFFu);
        cm_set_reg(c, op->reg, v);
        return 0;
    }
    if (size == 2 && (op->addr & 1u))
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    m->cost += m->tm.write;
    return mem_write(m, op->addr, size, v & size_mask(size));
}

int cm_push(vax_machine *m, uint32_t v)
{
    vax_cpu *c = &m->cpu;
    uint32_t sp = (cm_reg(c, 6) - 2u) & 0xFFFFu;
    if (sp & 1u)
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    m->cost += m->tm.write;
    TRY(mem_write(m, sp, 2, v & 0xFFFFu));
    step_reg(c, 6, -2);
    return 0;
}

int cm_pop(vax_machine *m, uint32_t *v)
{
    vax_cpu *c = &m->cpu;
    m->cost += m->tm.read;
    TRY(read_word(m, cm_reg(c, 6), v));
    step_reg(c, 6, 2);
    return 0;
}
