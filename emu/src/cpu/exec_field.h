/*
 * exec_field.h — bodies of the frequent bit-field branches, BBx and BLBx,
 * on the decoding context (decode.h, dctx).  Inline so that execute.c's
 * dispatch switch expands them in place, in the fast form with the
 * checked form's immediates (DC_FAST_CHECKED_IMM); exec_field.c runs the
 * same bodies in the checked form, and has the other field instructions.
 */
#ifndef VAX_EXEC_FIELD_H
#define VAX_EXEC_FIELD_H

#include "cpu/exec.h"

/* BBS, BBC, BBSS, BBCS, BBSC, BBCC, BBSSI, BBCCI: pos.rl, base.vb, displ.bb */
ALWAYS_INLINE int op_bb(dctx *d, int opcode)
{
    vax_machine *m = d->m;
    uint32_t pos, disp;
    oploc base;
    TRY(dc_read(d, 4, &pos));
    TRY(dc_vfield(d, &base));
    TRY(dc_branch_b(d, &disp));

    /* Branch on set (BBS, BBSS, BBSC, BBSSI) or clear; then maybe modify. */
    int on_set = !(opcode & 1);
    int modify = opcode >= 0xE2;
    int newbit = opcode == 0xE2 || opcode == 0xE3 || opcode == 0xE6;   /* BBSS, BBCS, BBSSI */

    int bit;
    if (base.reg >= 0) {
        if (pos > 31)
            return VAX_EXC_RESERVED_OPERAND;
        uint32_t *r = &m->cpu.r[base.reg];
        bit = (int)((*r >> pos) & 1u);
        if (modify)
            *r = newbit ? (*r | (1u << pos)) : (*r & ~(1u << pos));
    } else {
        uint32_t byteoff = (pos >> 3) | ((pos & 0x80000000u) ? 0xE0000000u : 0);
        uint32_t a = base.addr + byteoff, b;
        uint32_t mask = 1u << (pos & 7u);
        TRY(mem_read_b(m, a, &b));
        bit = (b & mask) != 0;
        if (modify)
            TRY(mem_write_b(m, a, newbit ? (b | mask) : (b & ~mask)));
    }
    if (bit == on_set)
        d->pc += disp;
    return dc_done(d);
}

/* BLBS, BLBC: src.rl, displ.bb */
ALWAYS_INLINE int op_blb(dctx *d, int on_set)
{
    uint32_t src, disp;
    TRY(dc_read(d, 4, &src));
    TRY(dc_branch_b(d, &disp));
    if ((int)(src & 1u) == on_set)
        d->pc += disp;
    return dc_done(d);
}

#endif
