/*
 * exec_field.c — variable-length bit-field instructions: BBS/BBC and their
 * set/clear and interlocked forms, BLBS/BLBC, FFS/FFC, CMPV/CMPZV,
 * EXTV/EXTZV and INSV (VAX Architecture Reference Manual, "Variable-length
 * bit field instructions").
 *
 * A field is given by a position (signed longword), a size (0..32) and a
 * base (access type v).  In memory, the field starts at bit pos&7 of the
 * byte at base + (pos >> 3) (arithmetic shift) and spans up to five bytes;
 * only those bytes are accessed.  In a register Rn, pos must be 0..31
 * and a field with pos + size > 32 continues in the low bits of Rn+1.
 *
 * Reserved operand faults: size > 32; a register field with pos > 31
 * (unsigned) and size != 0.  A register field that would spill from R14
 * into the PC is UNPREDICTABLE; we take a reserved addressing mode fault.
 * A field of size 0 is 0 and accesses nothing.
 *
 * BBx and BLBx are in exec_field.h (execute.c expands them inline).
 */
#include "cpu/exec_field.h"

typedef struct {
    int reg;          /* register number, or -1 for memory */
    uint32_t addr;    /* memory: address of the first byte */
    int shift;        /* bit offset of the field in the raw value */
    int nbytes;       /* memory: bytes spanned (1..5) */
    int two;          /* register: the field continues in Rn+1 */
} field;

/* Locate a field of size 1..32. */
static int field_locate(const oploc *base, uint32_t pos, uint32_t size, field *f)
{
    if (base->reg >= 0) {
        if (pos > 31)
            return VAX_EXC_RESERVED_OPERAND;
        f->reg = base->reg;
        f->shift = (int)pos;
        f->two = pos + size > 32;
        if (f->two && f->reg >= 14)
            return VAX_EXC_RESERVED_ADDRESSING_MODE;
        f->addr = 0;
        f->nbytes = 0;
        return 0;
    }
    uint32_t byteoff = (pos >> 3) | ((pos & 0x80000000u) ? 0xE0000000u : 0);   /* pos >> 3, signed */
    f->reg = -1;
    f->two = 0;
    f->addr = base->addr + byteoff;
    f->shift = (int)(pos & 7u);
    f->nbytes = (f->shift + (int)size + 7) >> 3;
    return 0;
}

/* The raw bits holding the field (the field is at bit f->shift). */
static int field_read_raw(vax_machine *m, const field *f, uint64_t *raw)
{
    if (f->reg >= 0) {
        uint64_t v = m->cpu.r[f->reg];
        if (f->two)
            v |= (uint64_t)m->cpu.r[f->reg + 1] << 32;
        *raw = v;
        return 0;
    }
    uint64_t v = 0;
    int done = 0;
    while (done < f->nbytes) {
        int left = f->nbytes - done;
        int sz = left >= 4 ? 4 : left >= 2 ? 2 : 1;
        uint32_t x;
        TRY(mem_read(m, f->addr + (uint32_t)done, sz, &x));
        v |= (uint64_t)x << (8 * done);
        done += sz;
    }
    *raw = v;
    return 0;
}

/* Check that the field's bytes can be written (so a fault on the second
 * part of a split write cannot leave the first part written). */
static int field_wcheck(vax_machine *m, const field *f)
{
    if (f->reg >= 0)
        return 0;
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    tlb_entry *e;
    TRY(mmu_translate(m, f->addr, mode, 1, &e));
    uint32_t last = f->addr + (uint32_t)f->nbytes - 1;
    if ((last >> 9) != (f->addr >> 9))
        TRY(mmu_translate(m, last, mode, 1, &e));
    return 0;
}

static int field_write_raw(vax_machine *m, const field *f, uint64_t raw)
{
    if (f->reg >= 0) {
        m->cpu.r[f->reg] = (uint32_t)raw;
        if (f->two)
            m->cpu.r[f->reg + 1] = (uint32_t)(raw >> 32);
        return 0;
    }
    int done = 0;
    while (done < f->nbytes) {
        int left = f->nbytes - done;
        int sz = left >= 4 ? 4 : left >= 2 ? 2 : 1;
        TRY(mem_write(m, f->addr + (uint32_t)done, sz, (uint32_t)(raw >> (8 * done)) & size_mask(sz)));
        done += sz;
    }
    return 0;
}

static inline uint64_t field_mask(uint32_t size)
{
    return size >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << size) - 1);
}

/* Read the field (size 0..32, already checked) zero-extended. */
static int field_get(vax_machine *m, const oploc *base, uint32_t pos, uint32_t size, uint32_t *v)
{
    if (size == 0) {
        *v = 0;
        return 0;
    }
    if (base->reg >= 0 && pos <= 32u - size) {
        /* Within one register (so pos <= 31): what field_locate and
         * field_read_raw give for it, without building the field. */
        *v = (uint32_t)(((uint64_t)m->cpu.r[base->reg] >> pos) & field_mask(size));
        return 0;
    }
    field f;
    uint64_t raw;
    TRY(field_locate(base, pos, size, &f));
    TRY(field_read_raw(m, &f, &raw));
    *v = (uint32_t)((raw >> f.shift) & field_mask(size));
    return 0;
}

static uint32_t sext_field(uint32_t v, uint32_t size)
{
    if (size == 0 || size >= 32)
        return v;
    uint32_t sign = 1u << (size - 1);
    return (v ^ sign) - sign;
}

/* The position, size and base that FFS/FFC, CMPV/CMPZV and EXTV/EXTZV
 * begin with: pos.rl, size.rb, base.vb. */
static int op_field(vax_machine *m, uint32_t *pos, uint32_t *size, oploc *base)
{
    TRY(op_read(m, 4, pos));
    TRY(op_read(m, 1, size));
    return op_vfield(m, base);
}

/* FFS, FFC: startpos.rl, size.rb, base.vb, findpos.wl */
static int op_ff(vax_machine *m, int find_clear)
{
    uint32_t pos, size, v;
    oploc base, dst;
    TRY(op_field(m, &pos, &size, &base));
    TRY(op_loc(m, 4, &dst));
    if (size > 32)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(field_get(m, &base, pos, size, &v));
    if (find_clear)
        v = ~v & (uint32_t)field_mask(size);
    uint32_t found = size;
    if (v)
        found = (uint32_t)__builtin_ctz(v);
    TRY(loc_write(m, &dst, 4, pos + found));
    cc_set(m, v ? 0 : PSL_Z);
    return 0;
}

/* CMPV, CMPZV: pos.rl, size.rb, base.vb, src.rl */
static int op_cmpv(vax_machine *m, int sign)
{
    uint32_t pos, size, src, v;
    oploc base;
    TRY(op_field(m, &pos, &size, &base));
    TRY(op_read(m, 4, &src));
    if (size > 32)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(field_get(m, &base, pos, size, &v));
    if (sign)
        v = sext_field(v, size);
    uint32_t cc = 0;
    if ((int32_t)v < (int32_t)src)
        cc |= PSL_N;
    if (v == src)
        cc |= PSL_Z;
    if (v < src)
        cc |= PSL_C;
    cc_set(m, cc);
    return 0;
}

/* EXTV, EXTZV: pos.rl, size.rb, base.vb, dst.wl */
static int op_ext(vax_machine *m, int sign)
{
    uint32_t pos, size, v;
    oploc base, dst;
    TRY(op_field(m, &pos, &size, &base));
    TRY(op_loc(m, 4, &dst));
    if (size > 32)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(field_get(m, &base, pos, size, &v));
    if (sign)
        v = sext_field(v, size);
    TRY(loc_write(m, &dst, 4, v));
    /* N and Z from the result, V cleared, C unchanged (VAX Architecture
     * Reference Manual, EXTV/EXTZV: "C <- C"). */
    cc_nz_keep_c(m, v, 4);
    return 0;
}

/* INSV src.rl, pos.rl, size.rb, base.vb */
static int op_insv(vax_machine *m)
{
    uint32_t src, pos, size;
    oploc base;
    TRY(op_read(m, 4, &src));
    TRY(op_field(m, &pos, &size, &base));
    if (size > 32)
        return VAX_EXC_RESERVED_OPERAND;
    if (size == 0)
        return 0;
    if (base.reg >= 0 && pos <= 32u - size) {
        /* Within one register (so pos <= 31): the general path's read,
         * merge and write-back of it, without building the field. */
        uint64_t mask = field_mask(size) << pos;
        uint32_t *r = &m->cpu.r[base.reg];
        *r = (uint32_t)(((uint64_t)*r & ~mask) | (((uint64_t)src << pos) & mask));
        return 0;
    }
    field f;
    uint64_t raw;
    TRY(field_locate(&base, pos, size, &f));
    TRY(field_read_raw(m, &f, &raw));
    TRY(field_wcheck(m, &f));
    uint64_t mask = field_mask(size) << f.shift;
    raw = (raw & ~mask) | (((uint64_t)src << f.shift) & mask);
    return field_write_raw(m, &f, raw);
}

/* Any field opcode.  BBx and BLBx run their bodies from exec_field.h in
 * the checked form of the decoding context (decode.h). */
int exec_field(vax_machine *m, int opcode)
{
    dctx d = dc_checked(m);
    switch (opcode) {
    case 0xE0: case 0xE1: case 0xE2: case 0xE3:
    case 0xE4: case 0xE5: case 0xE6: case 0xE7:
        return op_bb(&d, opcode);
    case 0xE8:
        return op_blb(&d, 1);
    case 0xE9:
        return op_blb(&d, 0);
    case 0xEA:
        return op_ff(m, 0);
    case 0xEB:
        return op_ff(m, 1);
    case 0xEC:
        return op_cmpv(m, 1);
    case 0xED:
        return op_cmpv(m, 0);
    case 0xEE:
        return op_ext(m, 1);
    case 0xEF:
        return op_ext(m, 0);
    case 0xF0:
        return op_insv(m);
    default:
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}
