/*
 * decode.c — the general operand-specifier decoder (all sixteen modes,
 * index mode, PC-relative and immediate forms).
 *
 * UNPREDICTABLE uses of the PC (register mode, autodecrement, quadword in
 * R14/R15, PC as an index register) take a reserved addressing mode fault,
 * which is what a program that relies on them deserves.
 */
#include "decode.h"

#include <string.h>

enum { K_LITERAL, K_REGISTER, K_MEMORY };

static int decode_spec_general(vax_machine *m, int size, int in_index, int *kind, uint32_t *val);

static int decode_displacement(vax_machine *m, int n, int rn, int deferred, uint32_t *addr)
{
    uint32_t d;
    TRY(ifetch(m, n, &d));
    uint32_t a = m->cpu.r[rn] + sign_extend(d, n);   /* PC is read after the displacement */
    if (deferred)
        TRY(mem_read_l(m, a, &a));
    *addr = a;
    return 0;
}

static int decode_spec_general(vax_machine *m, int size, int in_index, int *kind, uint32_t *val)
{
    uint32_t spec;
    uint32_t *r = m->cpu.r;
    TRY(ifetch(m, 1, &spec));
    int rn = (int)(spec & 15);
    int mode = (int)(spec >> 4);

    if (in_index && (mode <= 5))   /* literal, index or register as an index base */
        return VAX_EXC_RESERVED_ADDRESSING_MODE;

    switch (mode) {
    case 0: case 1: case 2: case 3:
        *kind = K_LITERAL;
        *val = spec;
        return 0;
    case 4: {   /* index: base specifier follows */
        if (rn == 15)
            return VAX_EXC_RESERVED_ADDRESSING_MODE;
        uint32_t base;
        int k;
        TRY(decode_spec_general(m, size, 1, &k, &base));
        *kind = K_MEMORY;
        *val = base + r[rn] * (uint32_t)size;
        return 0;
    }
    case 5:
        if (rn == 15 || (size == 8 && rn >= 14))
            return VAX_EXC_RESERVED_ADDRESSING_MODE;
        *kind = K_REGISTER;
        *val = (uint32_t)rn;
        return 0;
    case 6:
        *kind = K_MEMORY;
        *val = r[rn];
        return 0;
    case 7:
        if (rn == 15)
            return VAX_EXC_RESERVED_ADDRESSING_MODE;
        r[rn] -= (uint32_t)size;
        rlog_add(m, rn, -size);
        *kind = K_MEMORY;
        *val = r[rn];
        return 0;
    case 8:   /* autoincrement; (PC)+ is immediate data */
        *kind = K_MEMORY;
        *val = r[rn];
        r[rn] += (uint32_t)size;
        if (rn != 15)
            rlog_add(m, rn, size);
        return 0;
    case 9: {   /* autoincrement deferred; @(PC)+ is absolute */
        uint32_t a;
        if (rn == 15) {
            TRY(ifetch(m, 4, &a));
        } else {
            TRY(mem_read_l(m, r[rn], &a));
            r[rn] += 4;
            rlog_add(m, rn, 4);
        }
        *kind = K_MEMORY;
        *val = a;
        return 0;
    }
    case 10: case 11:
        *kind = K_MEMORY;
        return decode_displacement(m, 1, rn, mode & 1, val);
    case 12: case 13:
        *kind = K_MEMORY;
        return decode_displacement(m, 2, rn, mode & 1, val);
    default:
        *kind = K_MEMORY;
        return decode_displacement(m, 4, rn, mode & 1, val);
    }
}


/* The common case: the whole specifier lies in the page the fetch shortcut
 * maps, so its bytes are read straight from host memory.  Anything else
 * (page crossings, index mode, deferred modes, UNPREDICTABLE PC uses)
 * goes to decode_spec_general, which fetches byte by byte. */
static inline int decode_spec(vax_machine *m, int size, int *kind, uint32_t *val)
{
    uint32_t *r = m->cpu.r;
    uint32_t pc = r[15];
    if ((pc >> 9) == m->ib_tag && (pc & 511u) <= 512u - 9u) {
        const uint8_t *ip = m->ib_host + (pc & 511u);
        uint32_t spec = ip[0];
        int rn = (int)(spec & 15);
        switch (spec >> 4) {
        case 0: case 1: case 2: case 3:
            r[15] = pc + 1;
            *kind = K_LITERAL;
            *val = spec;
            return 0;
        case 5:
            if (rn == 15 || (size == 8 && rn >= 14))
                break;
            r[15] = pc + 1;
            *kind = K_REGISTER;
            *val = (uint32_t)rn;
            return 0;
        case 6:
            r[15] = pc + 1;
            *kind = K_MEMORY;
            *val = r[rn];
            return 0;
        case 7:
            if (rn == 15)
                break;
            r[15] = pc + 1;
            r[rn] -= (uint32_t)size;
            rlog_add(m, rn, -size);
            *kind = K_MEMORY;
            *val = r[rn];
            return 0;
        case 8:
            r[15] = pc + 1;
            *kind = K_MEMORY;
            *val = r[rn];   /* for (PC)+ this is pc + 1: the immediate data */
            r[rn] += (uint32_t)size;
            if (rn != 15)
                rlog_add(m, rn, size);
            return 0;
        case 10:
            r[15] = pc + 2;
            *kind = K_MEMORY;
            *val = r[rn] + (uint32_t)(int32_t)(int8_t)ip[1];
            return 0;
        case 12: {
            int16_t d;
            memcpy(&d, ip + 1, 2);
            r[15] = pc + 3;
            *kind = K_MEMORY;
            *val = r[rn] + (uint32_t)(int32_t)d;
            return 0;
        }
        case 14: {
            uint32_t d;
            memcpy(&d, ip + 1, 4);
            r[15] = pc + 5;
            *kind = K_MEMORY;
            *val = r[rn] + d;
            return 0;
        }
        case 4: {   /* index mode with a simple base: (Rb), (Rb)+, -(Rb), or a displacement */
            if (rn == 15)
                break;
            uint32_t base_spec = ip[1];
            int rb = (int)(base_spec & 15);
            uint32_t base;
            if (rb == 15)
                break;   /* PC-relative and absolute bases: the general path */
            switch (base_spec >> 4) {
            case 6:
                base = r[rb];
                r[15] = pc + 2;
                break;
            case 7:
                r[rb] -= (uint32_t)size;
                rlog_add(m, rb, -size);
                base = r[rb];
                r[15] = pc + 2;
                break;
            case 8:
                base = r[rb];
                r[rb] += (uint32_t)size;
                rlog_add(m, rb, size);
                r[15] = pc + 2;
                break;
            case 10:
                base = r[rb] + (uint32_t)(int32_t)(int8_t)ip[2];
                r[15] = pc + 3;
                break;
            case 12: {
                int16_t d;
                memcpy(&d, ip + 2, 2);
                base = r[rb] + (uint32_t)(int32_t)d;
                r[15] = pc + 4;
                break;
            }
            case 14: {
                uint32_t d;
                memcpy(&d, ip + 2, 4);
                base = r[rb] + d;
                r[15] = pc + 6;
                break;
            }
            default:
                goto general;
            }
            *kind = K_MEMORY;
            *val = base + r[rn] * (uint32_t)size;
            return 0;
        }
        default:
            break;
        }
    }
general:
    return decode_spec_general(m, size, 0, kind, val);
}

int op_read_slow(vax_machine *m, int size, uint32_t *v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, size, &kind, &x));
    if (kind == K_LITERAL) {
        *v = x;
        return 0;
    }
    if (kind == K_REGISTER) {
        *v = m->cpu.r[x] & size_mask(size);
        return 0;
    }
    return mem_read(m, x, size, v);
}

int op_write_slow(vax_machine *m, int size, uint32_t v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, size, &kind, &x));
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    if (kind == K_REGISTER) {
        reg_store(m, (int)x, size, v);
        return 0;
    }
    return mem_write(m, x, size, v);
}

int op_loc_slow(vax_machine *m, int size, oploc *loc)
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, size, &kind, &x));
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    if (kind == K_REGISTER) {
        loc->reg = (int)x;
        loc->addr = 0;
    } else {
        loc->reg = -1;
        loc->addr = x;
    }
    return 0;
}

int op_read_q(vax_machine *m, uint32_t v[2])
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, 8, &kind, &x));
    if (kind == K_LITERAL) {
        v[0] = x;
        v[1] = 0;
        return 0;
    }
    if (kind == K_REGISTER) {
        v[0] = m->cpu.r[x];
        v[1] = m->cpu.r[x + 1];
        return 0;
    }
    return mem_read_q(m, x, v);
}

int op_loc_q(vax_machine *m, oploc *loc)
{
    return op_loc_slow(m, 8, loc);
}

int loc_read_q(vax_machine *m, const oploc *l, uint32_t v[2])
{
    if (l->reg >= 0) {
        v[0] = m->cpu.r[l->reg];
        v[1] = m->cpu.r[l->reg + 1];
        return 0;
    }
    return mem_read_q(m, l->addr, v);
}

int loc_write_q(vax_machine *m, const oploc *l, const uint32_t v[2])
{
    if (l->reg >= 0) {
        m->cpu.r[l->reg] = v[0];
        m->cpu.r[l->reg + 1] = v[1];
        return 0;
    }
    return mem_write_q(m, l->addr, v);
}

int op_write_q(vax_machine *m, const uint32_t v[2])
{
    oploc l;
    TRY(op_loc_q(m, &l));
    return loc_write_q(m, &l, v);
}

/* A floating short literal: exponent in <5:3>, fraction in <2:0>. */
static uint32_t float_literal(uint32_t lit)
{
    return ((128u + ((lit >> 3) & 7)) << 7) | ((lit & 7) << 4);
}

int op_read_f(vax_machine *m, uint32_t *v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, 4, &kind, &x));
    if (kind == K_LITERAL) {
        *v = float_literal(x);
        return 0;
    }
    if (kind == K_REGISTER) {
        *v = m->cpu.r[x];
        return 0;
    }
    return mem_read_l(m, x, v);
}

int op_read_d(vax_machine *m, uint32_t v[2])
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, 8, &kind, &x));
    if (kind == K_LITERAL) {
        v[0] = float_literal(x);
        v[1] = 0;
        return 0;
    }
    if (kind == K_REGISTER) {
        v[0] = m->cpu.r[x];
        v[1] = m->cpu.r[x + 1];
        return 0;
    }
    return mem_read_q(m, x, v);
}

int op_addr(vax_machine *m, int size, uint32_t *addr)
{
    int kind;
    TRY(decode_spec(m, size, &kind, addr));
    if (kind != K_MEMORY)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    return 0;
}

int op_vfield(vax_machine *m, oploc *loc)
{
    int kind;
    uint32_t x;
    TRY(decode_spec(m, 1, &kind, &x));
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    loc->reg = kind == K_REGISTER ? (int)x : -1;
    loc->addr = kind == K_REGISTER ? 0 : x;
    return 0;
}
