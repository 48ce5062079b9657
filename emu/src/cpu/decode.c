/*
 * decode.c — the operand-specifier decoder (all sixteen modes, index
 * mode, PC-relative and immediate forms) behind the inline paths of
 * decode.h.
 *
 * Two layers:
 * - decode_at: the specifier lies in the page the instruction-fetch
 *   shortcut maps, so its bytes are read from host memory directly.  It
 *   takes the modes compiled code uses; anything else it hands on.
 * - decode_spec_general: every specifier, fetched byte by byte through
 *   ifetch (page crossings, deferred modes, the PC's odd uses).
 * The exported decoders are decode_at plus the access, instantiated per
 * access type and size so that the size is a constant in each.
 *
 * UNPREDICTABLE uses of the PC (register mode, autodecrement, quadword in
 * R14/R15, PC as an index register) take a reserved addressing mode fault,
 * which is what a program that relies on them deserves.
 *
 * Timing (cpu/timing.h): a memory specifier adds its mode's address work
 * (spec_disp, spec_abs, spec_deferred, spec_index) here, when it has
 * decoded, and its data access (read, write, or both for modify) where
 * the access is made.  Register and literal specifiers are in the
 * opcode's base cost.  The same mode costs the same on both layers, and
 * cpu/idle.c charges its skipped loops the same way.
 */
#include "cpu/decode.h"

#include <string.h>

enum { K_LITERAL, K_REGISTER, K_MEMORY };   /* what a specifier decodes to */

static int decode_spec_general(vax_machine *m, int size, int in_index, int *kind, uint32_t *val);

static int decode_displacement(vax_machine *m, int n, int rn, int deferred, uint32_t *addr)
{
    uint32_t d;
    TRY(ifetch(m, n, &d));
    uint32_t a = m->cpu.r[rn] + sign_extend(d, n);   /* PC is read after the displacement */
    if (deferred)
        TRY(mem_read_l(m, a, &a));
    m->cost += m->tm.spec_disp + (deferred ? m->tm.spec_deferred : 0u);
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
        m->cost += m->tm.spec_index;
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
            m->cost += m->tm.spec_abs;
        } else {
            TRY(mem_read_l(m, r[rn], &a));
            r[rn] += 4;
            rlog_add(m, rn, 4);
            m->cost += m->tm.spec_deferred;
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


/* ---- The general path's accesses: decode_spec_general and then the
 * access, out of line (size is not constant here; this path is rare). */

static int read_general(vax_machine *m, int size, uint32_t *v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec_general(m, size, 0, &kind, &x));
    if (kind == K_MEMORY) {
        m->cost += m->tm.read;
        return mem_read(m, x, size, v);
    }
    *v = kind == K_LITERAL ? x : m->cpu.r[x] & size_mask(size);
    return 0;
}

static int write_general(vax_machine *m, int size, uint32_t v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec_general(m, size, 0, &kind, &x));
    if (kind == K_MEMORY) {
        m->cost += m->tm.write;
        return mem_write(m, x, size, v);
    }
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    reg_store(m, (int)x, size, v);
    return 0;
}

static int loc_general(vax_machine *m, int size, oploc *loc)
{
    int kind;
    uint32_t x;
    TRY(decode_spec_general(m, size, 0, &kind, &x));
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    loc->reg = kind == K_REGISTER ? (int)x : -1;
    loc->addr = kind == K_REGISTER ? 0 : x;
    return 0;
}

/* A modify operand's memory is read with write intent; see modloc. */
ALWAYS_INLINE int modify_memory(vax_machine *m, uint32_t va, int size, modloc *ml, uint32_t *v,
                                unsigned cost)
{
    uint32_t mode_key = psl_mode_key(m);   /* mmu.h: the mode in its low two bits */
    m->cost += cost;   /* the read here and the write-back (mod_write), and from decode_at the address work */
    const xlat_entry *e = XLAT_SLOT(m->xlat, va);
    if (LIKELY(e->tag == va >> 9 && xlat_allows(e->write_modes, mode_key))) {   /* write allowed, so read is too */
        /* In one cache block (mmu.h, inline_read_fits: an aligned
         * longword), the cache's test is one block's; else, across two
         * blocks of the page or one, both are tested, as cache_read charges
         * them.  Either way the write-back (mod_write) stores through
         * ml->host. */
        uint8_t *h = xlat_host(e, va);
        if (LIKELY(inline_read_fits(va, size))) {
            uint32_t blk = xlat_block(e, va);
            ml->host = h;
            if (!cache_holds_block(&m->cache, blk))   /* the miss out of line: mmu.h, mem_read_missed_block */
                return mem_read_missed_block(m, blk, h, size, v);
            *v = load_le(h, size);
            return 0;
        }
        if ((va & 511u) <= 512u - (uint32_t)size) {
            ml->host = h;
            uint32_t pa = xlat_pa(e, va);
            if (!cache_hits(&m->cache, pa, size))
                return mem_read_missed(m, pa, h, size, v);
            *v = load_le(h, size);
            return 0;
        }
    }
    ml->host = NULL;
    ml->loc.reg = -1;
    ml->loc.addr = va;
    return mem_read_modify_slow(m, va, size, (int)(mode_key & 3u), v);
}

static int modify_general(vax_machine *m, int size, modloc *ml, uint32_t *v)
{
    int kind;
    uint32_t x;
    TRY(decode_spec_general(m, size, 0, &kind, &x));
    if (kind == K_MEMORY)
        return modify_memory(m, x, size, ml, v, (unsigned)m->tm.read + m->tm.write);
    if (kind == K_LITERAL)
        return VAX_EXC_RESERVED_ADDRESSING_MODE;
    ml->host = (uint8_t *)&m->cpu.r[x];
    *v = m->cpu.r[x] & size_mask(size);
    return 0;
}

static int addr_general(vax_machine *m, int size, uint32_t *addr)
{
    int kind;
    TRY(decode_spec_general(m, size, 0, &kind, addr));
    return kind == K_MEMORY ? 0 : VAX_EXC_RESERVED_ADDRESSING_MODE;
}

/* ---- The common case: the whole specifier lies in the page the fetch
 * shortcut maps, with at least 10 bytes from ip to the end of the page,
 * so its bytes are read straight from host memory (ip is its host
 * address, pc its virtual address).  Sets r[15] to the PC after the
 * specifier and returns its kind, with *val the literal, register number
 * or address; or returns K_GENERAL, without side effects, for what
 * decode_spec_general must do (autoincrement deferred, UNPREDICTABLE PC
 * uses, index mode with a PC-based or deferred base).  Displacement
 * deferred, @d(Rn), returns K_DEFERRED with *val the pointer's address,
 * r[15] set past the displacement: the caller reads the pointer
 * (deferred_pointer), as decode_displacement does.  Inlined into every
 * sized decoder below, where size is a constant. */
enum { K_GENERAL = 3, K_DEFERRED = 4 };

ALWAYS_INLINE int decode_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, uint32_t *val, int *form)
{
    uint32_t *r = m->cpu.r;
    uint32_t spec = ip[0];
    int rn = (int)(spec & 15);
    /* Where r[rn] is read below, r[15] is already the PC after the
     * specifier, as PC-relative and immediate modes need. */
    /* (The same address as byte_disp_address below, written out: calling it
     * here reads ip[0] after the store to r[15], which a byte pointer may
     * alias, and the 4.3BSD script took 0.6% more host instructions with
     * it, 6,301.9 M against 6,264.3 M, callgrind, 27 November 2026.) */
    if (LIKELY((spec >> 4) == 10)) {   /* b^d(Rn), three memory operands in four: ahead of the jump table */
        r[15] = pc + 2;
        *val = r[rn] + (uint32_t)(int32_t)(int8_t)ip[1];
        *form = SPEC_FORM_DISP;
        return K_MEMORY;
    }
    switch (spec >> 4) {
    case 0: case 1: case 2: case 3:
        r[15] = pc + 1;
        *val = spec;
        return K_LITERAL;
    case 5:
        if (rn == 15 || (size == 8 && rn >= 14))
            return K_GENERAL;
        r[15] = pc + 1;
        *val = (uint32_t)rn;
        return K_REGISTER;
    case 6:
        r[15] = pc + 1;
        *val = r[rn];
        *form = SPEC_FORM_PLAIN;
        return K_MEMORY;
    case 7:
        if (rn == 15)
            return K_GENERAL;
        r[15] = pc + 1;
        r[rn] -= (uint32_t)size;
        rlog_add(m, rn, -size);
        *val = r[rn];
        *form = SPEC_FORM_PLAIN;
        return K_MEMORY;
    case 8:
        r[15] = pc + 1;
        *val = r[rn];   /* for (PC)+ this is pc + 1: the immediate data */
        r[rn] += (uint32_t)size;
        if (rn != 15)
            rlog_add(m, rn, size);
        *form = SPEC_FORM_PLAIN;
        return K_MEMORY;
    case 10:
        r[15] = pc + 2;
        *val = r[rn] + (uint32_t)(int32_t)(int8_t)ip[1];
        *form = SPEC_FORM_DISP;
        return K_MEMORY;
    case 12: {
        int16_t d;
        memcpy(&d, ip + 1, 2);
        r[15] = pc + 3;
        *val = r[rn] + (uint32_t)(int32_t)d;
        *form = SPEC_FORM_DISP;
        return K_MEMORY;
    }
    case 14: {
        uint32_t d;
        memcpy(&d, ip + 1, 4);
        r[15] = pc + 5;
        *val = r[rn] + d;
        *form = SPEC_FORM_DISP;
        return K_MEMORY;
    }
    case 4: {   /* index mode with a simple base: (Rb), (Rb)+, -(Rb), or a displacement */
        uint32_t base_spec = ip[1];
        int rb = (int)(base_spec & 15);
        uint32_t base;
        int f = SPEC_FORM_INDEX;
        /* PC as the index, and PC as a base but in a displacement mode
         * (absolute, immediate and the UNPREDICTABLE ones) go the general
         * way.  A PC-relative base (a kernel's table[Rx]) is taken here:
         * r[15] is set to the PC after the displacement before r[rb] is
         * read, as decode_spec_general reads it. */
        if (rn == 15 || (rb == 15 && (base_spec >> 4) != 10 && (base_spec >> 4) != 12 && (base_spec >> 4) != 14))
            return K_GENERAL;
        if ((base_spec >> 4) == 6) {   /* (Rb)[Rx], the most frequent: ahead of the switch */
            r[15] = pc + 2;
            *val = r[rb] + r[rn] * (uint32_t)size;
            *form = SPEC_FORM_INDEX;
            return K_MEMORY;
        }
        switch (base_spec >> 4) {
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
            r[15] = pc + 3;
            base = r[rb] + (uint32_t)(int32_t)(int8_t)ip[2];
            f = SPEC_FORM_INDEX_DISP;
            break;
        case 12: {
            int16_t d;
            memcpy(&d, ip + 2, 2);
            r[15] = pc + 4;
            base = r[rb] + (uint32_t)(int32_t)d;
            f = SPEC_FORM_INDEX_DISP;
            break;
        }
        case 14: {
            uint32_t d;
            memcpy(&d, ip + 2, 4);
            r[15] = pc + 6;
            base = r[rb] + d;
            f = SPEC_FORM_INDEX_DISP;
            break;
        }
        default:   /* every other base mode: reserved, deferred, or absolute */
            return K_GENERAL;
        }
        *val = base + r[rn] * (uint32_t)size;
        *form = f;
        return K_MEMORY;
    }
    case 11:
        r[15] = pc + 2;
        *val = r[rn] + (uint32_t)(int32_t)(int8_t)ip[1];
        return K_DEFERRED;
    case 13: {
        int16_t d;
        memcpy(&d, ip + 1, 2);
        r[15] = pc + 3;
        *val = r[rn] + (uint32_t)(int32_t)d;
        return K_DEFERRED;
    }
    case 15: {
        uint32_t d;
        memcpy(&d, ip + 1, 4);
        r[15] = pc + 5;
        *val = r[rn] + d;
        return K_DEFERRED;
    }
    default:   /* autoincrement deferred */
        return K_GENERAL;
    }
}

/* The pointer of a displacement-deferred specifier (K_DEFERRED) at *addr,
 * read into *addr, and the specifier's address work charged after it, in
 * decode_displacement's order: the same read (its TB and cache charges,
 * its fault, with r[15] already past the displacement), then spec_disp +
 * spec_deferred.  The operand's own access is then charged and made as a
 * register deferred one's (SPEC_FORM_PLAIN: the data access alone), as
 * the general path charges it after decode_spec_general. */
ALWAYS_INLINE int deferred_pointer(vax_machine *m, uint32_t *addr)
{
    TRY(mem_read_l(m, *addr, addr));
    m->cost += m->tm.spec_disp + m->tm.spec_deferred;
    return 0;
}

/* The accesses of a K_DEFERRED specifier, out of line and reached by a
 * tail call, so that the _at decoders' other paths stay free of calls
 * (no registers saved, no stack frame: see mmu.h, mem_read_missed). */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

static NOINLINE int read_deferred(vax_machine *m, uint32_t p, int size, uint32_t *v)
{
    TRY(deferred_pointer(m, &p));
    m->cost += m->tm.mem_read[SPEC_FORM_PLAIN];
    return mem_read(m, p, size, v);
}

static NOINLINE int write_deferred(vax_machine *m, uint32_t p, int size, uint32_t v)
{
    TRY(deferred_pointer(m, &p));
    m->cost += m->tm.mem_write[SPEC_FORM_PLAIN];
    return mem_write(m, p, size, v);
}

static NOINLINE int loc_deferred(vax_machine *m, uint32_t p, oploc *loc)
{
    TRY(deferred_pointer(m, &p));
    m->cost += m->tm.mem_addr[SPEC_FORM_PLAIN];
    loc->reg = -1;
    loc->addr = p;
    return 0;
}

static NOINLINE int addr_deferred(vax_machine *m, uint32_t p, uint32_t *addr)
{
    TRY(deferred_pointer(m, &p));
    m->cost += m->tm.mem_addr[SPEC_FORM_PLAIN];
    *addr = p;
    return 0;
}

/* b^d(Rn), three memory specifiers in four, is decoded by read_at below
 * before it calls decode_at: decode_at's first case (the PC past the
 * specifier first, for a PC-relative one), then the same charge and
 * access as after it, with the form a constant and a path of its own.
 * Through decode_at's shared tail, the form was a variable and the hit
 * path of op_read_at_l some 10 host instructions longer (gcc 12).  The
 * write, modify and address decoders do not gain from it (measured on the
 * 4.3BSD script: 16 M host instructions more in op_write_at_l alone), so
 * they keep decode_at's own test. */
ALWAYS_INLINE int is_byte_disp(const uint8_t *ip)
{
    return (ip[0] >> 4) == 10;
}

ALWAYS_INLINE uint32_t byte_disp_address(vax_machine *m, const uint8_t *ip, uint32_t pc)
{
    m->cpu.r[15] = pc + 2;
    return m->cpu.r[ip[0] & 15] + (uint32_t)(int32_t)(int8_t)ip[1];
}

/* decode_at plus the access, for each access type.  When decode_at hands
 * the specifier on, the general path starts over from pc, which is put in
 * r[15] first: a dctx in the fast form has not stored it there. */

ALWAYS_INLINE int read_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, uint32_t *v)
{
    if (LIKELY(is_byte_disp(ip))) {
        uint32_t a = byte_disp_address(m, ip, pc);
        m->cost += m->tm.mem_read[SPEC_FORM_DISP];
        return mem_read(m, a, size, v);
    }
    uint32_t x;
    int form = SPEC_FORM_PLAIN;
    switch (decode_at(m, ip, pc, size, &x, &form)) {
    case K_MEMORY: m->cost += m->tm.mem_read[form]; return mem_read(m, x, size, v);
    case K_DEFERRED: return read_deferred(m, x, size, v);
    case K_LITERAL: *v = x; return 0;
    case K_REGISTER: *v = m->cpu.r[x] & size_mask(size); return 0;
    default: m->cpu.r[15] = pc; return read_general(m, size, v);
    }
}

ALWAYS_INLINE int write_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, uint32_t v)
{
    uint32_t x;
    int form = SPEC_FORM_PLAIN;
    switch (decode_at(m, ip, pc, size, &x, &form)) {
    case K_MEMORY: m->cost += m->tm.mem_write[form]; return mem_write(m, x, size, v);
    case K_DEFERRED: return write_deferred(m, x, size, v);
    case K_LITERAL: return VAX_EXC_RESERVED_ADDRESSING_MODE;
    case K_REGISTER: reg_store(m, (int)x, size, v); return 0;
    default: m->cpu.r[15] = pc; return write_general(m, size, v);
    }
}

ALWAYS_INLINE int loc_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, oploc *loc)
{
    uint32_t x;
    int form = SPEC_FORM_PLAIN;
    switch (decode_at(m, ip, pc, size, &x, &form)) {
    case K_MEMORY: m->cost += m->tm.mem_addr[form]; loc->reg = -1; loc->addr = x; return 0;
    case K_DEFERRED: return loc_deferred(m, x, loc);
    case K_LITERAL: return VAX_EXC_RESERVED_ADDRESSING_MODE;
    case K_REGISTER: loc->reg = (int)x; loc->addr = 0; return 0;
    default: m->cpu.r[15] = pc; return loc_general(m, size, loc);
    }
}

static NOINLINE int modify_deferred(vax_machine *m, uint32_t p, int size, modloc *ml, uint32_t *v)
{
    TRY(deferred_pointer(m, &p));
    return modify_memory(m, p, size, ml, v, m->tm.mem_modify[SPEC_FORM_PLAIN]);
}

ALWAYS_INLINE int modify_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, modloc *ml, uint32_t *v)
{
    uint32_t x;
    int form = SPEC_FORM_PLAIN;
    switch (decode_at(m, ip, pc, size, &x, &form)) {
    case K_MEMORY: return modify_memory(m, x, size, ml, v, m->tm.mem_modify[form]);
    case K_DEFERRED: return modify_deferred(m, x, size, ml, v);
    case K_LITERAL: return VAX_EXC_RESERVED_ADDRESSING_MODE;
    case K_REGISTER:
        ml->host = (uint8_t *)&m->cpu.r[x];
        *v = m->cpu.r[x] & size_mask(size);
        return 0;
    default: m->cpu.r[15] = pc; return modify_general(m, size, ml, v);
    }
}

ALWAYS_INLINE int addr_at(vax_machine *m, const uint8_t *ip, uint32_t pc, int size, uint32_t *addr)
{
    int form = SPEC_FORM_PLAIN;
    switch (decode_at(m, ip, pc, size, addr, &form)) {
    case K_MEMORY: m->cost += m->tm.mem_addr[form]; return 0;
    case K_DEFERRED: return addr_deferred(m, *addr, addr);
    case K_GENERAL: m->cpu.r[15] = pc; return addr_general(m, size, addr);
    default: return VAX_EXC_RESERVED_ADDRESSING_MODE;
    }
}

/* Does the fetch shortcut hold the specifier at PC with 10 bytes to
 * spare?  Then *ip is its host address. */
ALWAYS_INLINE int spec_mapped(vax_machine *m, uint32_t pc, const uint8_t **ip)
{
    if (LIKELY((pc >> 9) == m->ib_tag && (pc & 511u) <= 512u - 10u)) {
        *ip = (const uint8_t *)(m->ib_bias + pc);   /* machine.h: pc's host address */
        return 1;
    }
    return 0;
}

/* The _at decoders, one per access type and size. */
int op_read_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v) { return read_at(m, ip, pc, 1, v); }
int op_read_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v) { return read_at(m, ip, pc, 2, v); }
int op_read_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v) { return read_at(m, ip, pc, 4, v); }
int op_write_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v) { return write_at(m, ip, pc, 1, v); }
int op_write_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v) { return write_at(m, ip, pc, 2, v); }
int op_write_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v) { return write_at(m, ip, pc, 4, v); }
int op_modify_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v)
{
    return modify_at(m, ip, pc, 1, ml, v);
}
int op_modify_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v)
{
    return modify_at(m, ip, pc, 2, ml, v);
}
int op_modify_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v)
{
    return modify_at(m, ip, pc, 4, ml, v);
}
int op_addr_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *a) { return addr_at(m, ip, pc, 1, a); }
int op_addr_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *a) { return addr_at(m, ip, pc, 2, a); }
int op_addr_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *a) { return addr_at(m, ip, pc, 4, a); }
int op_addr_at_q(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *a) { return addr_at(m, ip, pc, 8, a); }

/* The m-based decoders: the _at decoder when the fetch shortcut maps the
 * specifier (a tail call), else the general path. */
#define AT_OR_GENERAL(at_call, general_call)                  \
    do {                                                      \
        const uint8_t *ip;                                    \
        uint32_t pc = m->cpu.r[15];                           \
        return spec_mapped(m, pc, &ip) ? at_call : general_call; \
    } while (0)

int op_read_b(vax_machine *m, uint32_t *v) { AT_OR_GENERAL(op_read_at_b(m, ip, pc, v), read_general(m, 1, v)); }
int op_read_w(vax_machine *m, uint32_t *v) { AT_OR_GENERAL(op_read_at_w(m, ip, pc, v), read_general(m, 2, v)); }
int op_read_l(vax_machine *m, uint32_t *v) { AT_OR_GENERAL(op_read_at_l(m, ip, pc, v), read_general(m, 4, v)); }
int op_write_b(vax_machine *m, uint32_t v) { AT_OR_GENERAL(op_write_at_b(m, ip, pc, v), write_general(m, 1, v)); }
int op_write_w(vax_machine *m, uint32_t v) { AT_OR_GENERAL(op_write_at_w(m, ip, pc, v), write_general(m, 2, v)); }
int op_write_l(vax_machine *m, uint32_t v) { AT_OR_GENERAL(op_write_at_l(m, ip, pc, v), write_general(m, 4, v)); }
int op_loc_b(vax_machine *m, oploc *loc) { AT_OR_GENERAL(loc_at(m, ip, pc, 1, loc), loc_general(m, 1, loc)); }
int op_loc_w(vax_machine *m, oploc *loc) { AT_OR_GENERAL(loc_at(m, ip, pc, 2, loc), loc_general(m, 2, loc)); }
int op_loc_l(vax_machine *m, oploc *loc) { AT_OR_GENERAL(loc_at(m, ip, pc, 4, loc), loc_general(m, 4, loc)); }
int op_loc_q(vax_machine *m, oploc *loc) { AT_OR_GENERAL(loc_at(m, ip, pc, 8, loc), loc_general(m, 8, loc)); }
int op_modify_b(vax_machine *m, modloc *ml, uint32_t *v)
{
    AT_OR_GENERAL(op_modify_at_b(m, ip, pc, ml, v), modify_general(m, 1, ml, v));
}
int op_modify_w(vax_machine *m, modloc *ml, uint32_t *v)
{
    AT_OR_GENERAL(op_modify_at_w(m, ip, pc, ml, v), modify_general(m, 2, ml, v));
}
int op_modify_l(vax_machine *m, modloc *ml, uint32_t *v)
{
    AT_OR_GENERAL(op_modify_at_l(m, ip, pc, ml, v), modify_general(m, 4, ml, v));
}
int op_addr_b(vax_machine *m, uint32_t *a) { AT_OR_GENERAL(op_addr_at_b(m, ip, pc, a), addr_general(m, 1, a)); }
int op_addr_w(vax_machine *m, uint32_t *a) { AT_OR_GENERAL(op_addr_at_w(m, ip, pc, a), addr_general(m, 2, a)); }
int op_addr_l(vax_machine *m, uint32_t *a) { AT_OR_GENERAL(op_addr_at_l(m, ip, pc, a), addr_general(m, 4, a)); }
int op_addr_q(vax_machine *m, uint32_t *a) { AT_OR_GENERAL(op_addr_at_q(m, ip, pc, a), addr_general(m, 8, a)); }

/* Other sizes (octaword address operands): not specialised. */
int op_addr_sized(vax_machine *m, int size, uint32_t *addr)
{
    return addr_general(m, size, addr);
}

/* The less frequent decoders below share this: the fast path when the
 * specifier is mapped, else the general one. */
ALWAYS_INLINE int decode_spec(vax_machine *m, int size, int *kind, uint32_t *val)
{
    const uint8_t *ip;
    uint32_t pc = m->cpu.r[15];
    if (spec_mapped(m, pc, &ip)) {
        int form = SPEC_FORM_PLAIN;
        *kind = decode_at(m, ip, pc, size, val, &form);
        if (*kind == K_MEMORY)
            m->cost += m->tm.mem_addr[form];
        if (*kind == K_DEFERRED) {
            *kind = K_MEMORY;
            TRY(deferred_pointer(m, val));
            m->cost += m->tm.mem_addr[SPEC_FORM_PLAIN];
        }
        if (*kind != K_GENERAL)
            return 0;
    }
    return decode_spec_general(m, size, 0, kind, val);
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
    m->cost += m->tm.read;   /* one access: a quadword is one 8-byte cache block */
    return mem_read_q(m, x, v);
}

int loc_read_q(vax_machine *m, const oploc *l, uint32_t v[2])
{
    if (l->reg >= 0) {
        v[0] = m->cpu.r[l->reg];
        v[1] = m->cpu.r[l->reg + 1];
        return 0;
    }
    m->cost += m->tm.read;
    TRY(mem_read_modify(m, l->addr, 4, &v[0]));   /* modify operands read with write intent */
    return mem_read_modify(m, l->addr + 4, 4, &v[1]);
}

int loc_write_q(vax_machine *m, const oploc *l, const uint32_t v[2])
{
    if (l->reg >= 0) {
        m->cpu.r[l->reg] = v[0];
        m->cpu.r[l->reg + 1] = v[1];
        return 0;
    }
    m->cost += m->tm.write;
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
    m->cost += m->tm.read;
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
    m->cost += m->tm.read;
    return mem_read_q(m, x, v);
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
    if (kind == K_MEMORY)
        m->cost += m->tm.read;   /* the field's longword(s) */
    return 0;
}
