/*
 * decode.h — operand-specifier decoding.
 *
 * Each instruction decodes its specifiers in order with the function for
 * the operand's access type and size, exactly as the opcode table lists
 * them.  There are two interfaces to the same decoder:
 *
 * - The m-based one (op_read, op_write, op_loc, ...) keeps the PC in
 *   cpu.r[15].  The group functions (exec_*.c) use it.
 * - The dctx one (dc_read, dc_write, ...) keeps the PC in a local variable
 *   for the whole instruction.  The bodies of the frequent instructions
 *   (exec_integer.h, exec_branch.h) use it, expanded in execute.c's
 *   dispatch switch.  See "The decoding context" below.
 *
 * Register and short-literal specifiers, the common case, are handled
 * inline; everything else goes to decode.c, which has one out-of-line
 * function per access type and operand size (so the size is a constant
 * there too, and a memory operand costs one call).
 *
 * Autoincrement/autodecrement side effects are logged in cpu.rlog so a
 * fault can undo them (cpu_restore_for_fault) and the instruction can be
 * restarted.
 */
#ifndef VAX_DECODE_H
#define VAX_DECODE_H

#include "mmu/mmu.h"
#include "cpu/cpu.h"

/* Force inlining of small workers that take constant size/operation
 * arguments, so each opcode gets its own specialised body. */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define ALWAYS_INLINE static inline
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* A register modify operand is written back through a byte pointer to the
 * low end of cpu.r[n] (modloc below), which, like load_le/store_le in
 * mmu.h, assumes a little-endian host: true of x86-64 and wasm32. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vaxlab needs a little-endian host"
#endif

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

/* Where a write or modify operand lives. */
typedef struct {
    uint32_t addr;   /* virtual address, when reg < 0 */
    int reg;         /* register number, or -1 for memory */
} oploc;

/* A modify operand located and read in one step (op_modify, dc_modify):
 * host points at the operand's bytes — the low end of a register, or RAM
 * whose TB entry allows writing in the current mode — so that the
 * write-back (mod_write) is a plain store.  When host is NULL (TB miss,
 * I/O space, a page crossing) the write-back goes through loc. */
typedef struct {
    uint8_t *host;
    oploc loc;
} modloc;

/* ---- Out-of-line decoders (decode.c) ----
 *
 * One per access type and size: _b, _w, _l, _q for 1, 2, 4, 8 bytes.  They
 * take every specifier, including the register and literal ones the inline
 * paths below also take.  The _at forms are the dctx fast form's: ip is
 * the host address of the specifier, which must have 10 bytes after it in
 * its page, and pc its virtual address; they leave the PC after the
 * specifier in r[15]. */
int op_read_b(vax_machine *m, uint32_t *v);
int op_read_w(vax_machine *m, uint32_t *v);
int op_read_l(vax_machine *m, uint32_t *v);
int op_write_b(vax_machine *m, uint32_t v);
int op_write_w(vax_machine *m, uint32_t v);
int op_write_l(vax_machine *m, uint32_t v);
int op_loc_b(vax_machine *m, oploc *loc);
int op_loc_w(vax_machine *m, oploc *loc);
int op_loc_l(vax_machine *m, oploc *loc);
int op_modify_b(vax_machine *m, modloc *ml, uint32_t *v);
int op_modify_w(vax_machine *m, modloc *ml, uint32_t *v);
int op_modify_l(vax_machine *m, modloc *ml, uint32_t *v);
int op_addr_b(vax_machine *m, uint32_t *addr);
int op_addr_w(vax_machine *m, uint32_t *addr);
int op_addr_l(vax_machine *m, uint32_t *addr);
int op_addr_q(vax_machine *m, uint32_t *addr);
int op_addr_sized(vax_machine *m, int size, uint32_t *addr);   /* any other size */

int op_read_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v);
int op_read_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v);
int op_read_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *v);
int op_write_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v);
int op_write_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v);
int op_write_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t v);
int op_modify_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v);
int op_modify_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v);
int op_modify_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, modloc *ml, uint32_t *v);
int op_addr_at_b(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *addr);
int op_addr_at_w(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *addr);
int op_addr_at_l(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *addr);
int op_addr_at_q(vax_machine *m, const uint8_t *ip, uint32_t pc, uint32_t *addr);

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

/* Bit-field base (access type v): a register (loc->reg) or an address. */
int op_vfield(vax_machine *m, oploc *loc);

/* Is spec a general-register specifier R0..R14?  (PC in register mode is
 * UNPREDICTABLE: the out-of-line decoder faults on it.) */
ALWAYS_INLINE int spec_is_reg(int spec)
{
    return (unsigned)(spec - 0x50) < 15u;
}

/* ---- The m-based interface (PC in r[15]) ---- */

/* The specifier byte at PC when the instruction-fetch shortcut maps PC's
 * page (one byte never crosses it), else -1. */
ALWAYS_INLINE int spec_peek(vax_machine *m)
{
    uint32_t pc = m->cpu.r[15];
    if (LIKELY((pc >> 9) == m->ib_tag))
        return *(const uint8_t *)(m->ib_bias + pc);   /* machine.h: pc's host address */
    return -1;
}

/* Read operand of size 1, 2 or 4; the value is zero-extended. */
ALWAYS_INLINE int op_read(vax_machine *m, int size, uint32_t *v)
{
    int spec = spec_peek(m);
    if ((unsigned)spec < 0x40u) {   /* short literal (-1, not mapped, is huge) */
        *v = (uint32_t)spec;
        m->cpu.r[15]++;
        return 0;
    }
    if (spec_is_reg(spec)) {
        *v = m->cpu.r[spec & 15] & size_mask(size);
        m->cpu.r[15]++;
        return 0;
    }
    return size == 1 ? op_read_b(m, v) : size == 2 ? op_read_w(m, v) : op_read_l(m, v);
}

/* Decode a write operand and store v into it. */
ALWAYS_INLINE int op_write(vax_machine *m, int size, uint32_t v)
{
    int spec = spec_peek(m);
    if (spec_is_reg(spec)) {
        m->cpu.r[15]++;
        reg_store(m, spec & 15, size, v);
        return 0;
    }
    return size == 1 ? op_write_b(m, v) : size == 2 ? op_write_w(m, v) : op_write_l(m, v);
}

/* Decode a modify (or write) operand to its location. */
ALWAYS_INLINE int op_loc(vax_machine *m, int size, oploc *loc)
{
    int spec = spec_peek(m);
    if (spec_is_reg(spec)) {
        m->cpu.r[15]++;
        loc->reg = spec & 15;
        loc->addr = 0;
        return 0;
    }
    return size == 1 ? op_loc_b(m, loc) : size == 2 ? op_loc_w(m, loc) : op_loc_l(m, loc);
}

/* Read a modify operand located by op_loc.  Memory is read with write
 * intent: a modify operand's fault reports write access (MM_WRITE). */
static inline int loc_read(vax_machine *m, const oploc *l, int size, uint32_t *v)
{
    if (l->reg >= 0) {
        *v = m->cpu.r[l->reg] & size_mask(size);
        return 0;
    }
    m->cost += m->tm.read;   /* timing.h: the data access */
    return mem_read_modify(m, l->addr, size, v);
}

static inline int loc_write(vax_machine *m, const oploc *l, int size, uint32_t v)
{
    if (l->reg >= 0) {
        reg_store(m, l->reg, size, v);
        return 0;
    }
    m->cost += m->tm.write;
    return mem_write(m, l->addr, size, v);
}

/* Decode a modify operand and read it (with write intent), see modloc. */
ALWAYS_INLINE int op_modify(vax_machine *m, int size, modloc *ml, uint32_t *v)
{
    int spec = spec_peek(m);
    if (spec_is_reg(spec)) {
        uint32_t *r = &m->cpu.r[spec & 15];
        m->cpu.r[15]++;
        ml->host = (uint8_t *)r;
        *v = *r & size_mask(size);
        return 0;
    }
    return size == 1 ? op_modify_b(m, ml, v) : size == 2 ? op_modify_w(m, ml, v) : op_modify_l(m, ml, v);
}

/* Write a modify operand back (after op_modify or dc_modify). */
ALWAYS_INLINE int mod_write(vax_machine *m, const modloc *ml, int size, uint32_t v)
{
    if (LIKELY(ml->host != NULL)) {
        store_le(ml->host, size, v);
        return 0;
    }
    /* Memory (host is never NULL for a register); the write was charged
     * with the read, by the decoder. */
    return mem_write(m, ml->loc.addr, size, v);
}

/* Address operand (access type a): the operand's address; register mode
 * and literals are reserved addressing modes.  size (1, 2, 4, 8, ...)
 * scales index mode and steps autoincrement. */
ALWAYS_INLINE int op_addr(vax_machine *m, int size, uint32_t *addr)
{
    switch (size) {
    case 1: return op_addr_b(m, addr);
    case 2: return op_addr_w(m, addr);
    case 4: return op_addr_l(m, addr);
    case 8: return op_addr_q(m, addr);
    default: return op_addr_sized(m, size, addr);
    }
}

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

/* ---- The decoding context (PC in a local variable) ----
 *
 * A dctx keeps the PC of the next instruction byte in d->pc instead of
 * cpu.r[15], and the compiler holds it in a register for the whole
 * instruction.  A body ends with dc_done(), which stores it to r[15]; a
 * body that fails just returns the status (a fault backs r[15] up to the
 * opcode anyway).
 *
 * The fast form (fast = 1) is what execute.c's switch builds when the
 * opcode lies at least DC_WINDOW bytes before the end of the page that the
 * instruction-fetch shortcut maps: the instruction's bytes are then read
 * from that page (d->bias + pc) without any check.  That is safe because the
 * frequent instructions have at most three specifiers, and a specifier is
 * at most 10 bytes long (index, then an immediate quadword), so the last
 * one starts at most 1 + 2 * 10 bytes past the opcode, and is read at most
 * 6 bytes far (index with a longword displacement) — as a branch
 * displacement after two specifiers is — well inside the window.
 * Register, literal and immediate specifiers are decoded inline; the rest
 * go to the _at decoders, which leave the new PC in r[15].
 *
 * The checked form (fast = 0) runs the same bodies through the m-based
 * interface; the group functions (exec_integer, exec_branch) use it for
 * instructions near the end of a page or outside the shortcut.
 *
 * `fast` is a constant wherever a dctx is built, and every function here
 * is inlined, so the compiler keeps only one form's code at each use.
 *
 * fast = DC_FAST_CHECKED_IMM is the fast form for the opcodes that were
 * long run only in the checked form, through their groups, and are now
 * expanded in execute.c's switch too (BBx, BLBx, MOVQ, MTPR/MFPR, ...):
 * their bytes are read from the page like the fast form's, but their
 * immediate operands go through the _at decoders, as the checked form
 * reads them (through the TB and the cache model), so that each costs
 * exactly what it did when it ran through its group. */
#define DC_WINDOW 32
#define DC_FAST 1
#define DC_FAST_CHECKED_IMM 2

typedef struct {
    vax_machine *m;
    uint32_t pc;           /* PC of the next instruction byte */
    /* Fast form: the host address of the instruction's page minus the
     * page's virtual address, so that bias + pc is pc's host address: a
     * byte of the instruction is then one load from bias + pc + offset
     * (on x86-64 one instruction), where page[(pc + offset) & 511] took
     * four.  Unsigned arithmetic, so it wraps the same way both ways (and
     * in wasm32's 32-bit addresses); bytes are only read within the
     * window, where pc is on the page. */
    uintptr_t bias;
    int fast;
} dctx;

/* The checked form, at the current PC. */
ALWAYS_INLINE dctx dc_checked(vax_machine *m)
{
    dctx d = {m, m->cpu.r[15], 0, 0};
    return d;
}

/* Are the instruction's next bytes to be read from the page?  Always in
 * DC_FAST (its definition); in DC_FAST_CHECKED_IMM only while the fetch
 * shortcut still maps the page, as in the checked form: a data access of
 * the instruction can evict its page's TB entry, and with it the shortcut,
 * and the checked form then fetches the rest through the TB (a refill,
 * charged), so this form does too. */
ALWAYS_INLINE int dc_on_page(const dctx *d)
{
    return d->fast == DC_FAST || (d->fast == DC_FAST_CHECKED_IMM && (d->pc >> 9) == d->m->ib_tag);
}

/* The same instruction in the fast form with the checked form's
 * immediates (DC_FAST_CHECKED_IMM). */
ALWAYS_INLINE dctx dc_checked_imm(const dctx *d)
{
    dctx k = {d->m, d->pc, d->bias, DC_FAST_CHECKED_IMM};
    return k;
}

/* Fast form: the host address of the next instruction byte, and the
 * byte `offset` bytes on. */
ALWAYS_INLINE const uint8_t *dc_ip(const dctx *d)
{
    return (const uint8_t *)(d->bias + d->pc);
}

ALWAYS_INLINE uint32_t dc_byte(const dctx *d, uint32_t offset)
{
    return *(const uint8_t *)(d->bias + d->pc + offset);
}

/* Finish a successful instruction: PC to r[15]. */
ALWAYS_INLINE int dc_done(dctx *d)
{
    d->m->cpu.r[15] = d->pc;
    return 0;
}

/* The PC to r[15] before an m-based decoder; back from r[15] after it
 * (and after an _at decoder). */
ALWAYS_INLINE void dc_sync_out(dctx *d)
{
    d->m->cpu.r[15] = d->pc;
}

ALWAYS_INLINE int dc_sync_in(dctx *d, int st)
{
    d->pc = d->m->cpu.r[15];
    return st;
}

/* Read operand of size 1, 2 or 4; the value is zero-extended. */
ALWAYS_INLINE int dc_read(dctx *d, int size, uint32_t *v)
{
    if (dc_on_page(d)) {
        uint32_t spec = dc_byte(d, 0);
        if (spec_is_reg((int)spec)) {
            *v = d->m->cpu.r[spec & 15] & size_mask(size);
            d->pc++;
            return 0;
        }
        if (spec < 0x40) {   /* short literal */
            *v = spec;
            d->pc++;
            return 0;
        }
        /* Immediate, (PC)+: the data follows in the same page.  Except in
         * the first instruction after execute.c refilled the fetch
         * shortcut (machine.h, ib_refill_icount), which takes the _at
         * decoder below, as the checked form would. */
        if (spec == 0x8F && d->fast == DC_FAST && d->m->icount != d->m->ib_refill_icount) {
            /* Timing: charged as a data read, as the decoder does (an
             * immediate longword usually costs the IB a refill). */
            d->m->cost += d->m->tm.read;
            *v = load_le(dc_ip(d) + 1, size);
            d->pc += 1 + (uint32_t)size;
            return 0;
        }
        return dc_sync_in(d, size == 1   ? op_read_at_b(d->m, dc_ip(d), d->pc, v)
                             : size == 2 ? op_read_at_w(d->m, dc_ip(d), d->pc, v)
                                         : op_read_at_l(d->m, dc_ip(d), d->pc, v));
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_read(d->m, size, v));
}

/* Decode a write operand and store v into it. */
ALWAYS_INLINE int dc_write(dctx *d, int size, uint32_t v)
{
    if (dc_on_page(d)) {
        uint32_t spec = dc_byte(d, 0);
        if (spec_is_reg((int)spec)) {
            reg_store(d->m, (int)(spec & 15), size, v);
            d->pc++;
            return 0;
        }
        return dc_sync_in(d, size == 1   ? op_write_at_b(d->m, dc_ip(d), d->pc, v)
                             : size == 2 ? op_write_at_w(d->m, dc_ip(d), d->pc, v)
                                         : op_write_at_l(d->m, dc_ip(d), d->pc, v));
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_write(d->m, size, v));
}

/* Decode a modify operand and read it; write it back with mod_write. */
ALWAYS_INLINE int dc_modify(dctx *d, int size, modloc *ml, uint32_t *v)
{
    if (dc_on_page(d)) {
        uint32_t spec = dc_byte(d, 0);
        if (spec_is_reg((int)spec)) {
            uint32_t *r = &d->m->cpu.r[spec & 15];
            ml->host = (uint8_t *)r;
            *v = *r & size_mask(size);
            d->pc++;
            return 0;
        }
        return dc_sync_in(d, size == 1   ? op_modify_at_b(d->m, dc_ip(d), d->pc, ml, v)
                             : size == 2 ? op_modify_at_w(d->m, dc_ip(d), d->pc, ml, v)
                                         : op_modify_at_l(d->m, dc_ip(d), d->pc, ml, v));
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_modify(d->m, size, ml, v));
}

/* Address operand of size 1, 2, 4 or 8. */
ALWAYS_INLINE int dc_addr(dctx *d, int size, uint32_t *addr)
{
    if (dc_on_page(d) && (size == 1 || size == 2 || size == 4 || size == 8)) {
        vax_machine *m = d->m;
        return dc_sync_in(d, size == 1   ? op_addr_at_b(m, dc_ip(d), d->pc, addr)
                             : size == 2 ? op_addr_at_w(m, dc_ip(d), d->pc, addr)
                             : size == 4 ? op_addr_at_l(m, dc_ip(d), d->pc, addr)
                                         : op_addr_at_q(m, dc_ip(d), d->pc, addr));
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_addr(d->m, size, addr));
}

/* A bit-field base (access type v), and quadword operands: the m-based
 * decoders in either form (they are rare enough). */
ALWAYS_INLINE int dc_vfield(dctx *d, oploc *loc)
{
    dc_sync_out(d);
    return dc_sync_in(d, op_vfield(d->m, loc));
}

ALWAYS_INLINE int dc_read_q(dctx *d, uint32_t v[2])
{
    dc_sync_out(d);
    return dc_sync_in(d, op_read_q(d->m, v));
}

ALWAYS_INLINE int dc_write_q(dctx *d, const uint32_t v[2])
{
    dc_sync_out(d);
    return dc_sync_in(d, op_write_q(d->m, v));
}

/* Branch displacements, sign-extended. */
ALWAYS_INLINE int dc_branch_b(dctx *d, uint32_t *disp)
{
    if (dc_on_page(d)) {
        *disp = (uint32_t)(int32_t)(int8_t)dc_byte(d, 0);
        d->pc++;
        return 0;
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_branch_b(d->m, disp));
}

ALWAYS_INLINE int dc_branch_w(dctx *d, uint32_t *disp)
{
    if (dc_on_page(d)) {
        *disp = (uint32_t)(int32_t)(int16_t)(dc_byte(d, 0) | dc_byte(d, 1) << 8);
        d->pc += 2;
        return 0;
    }
    dc_sync_out(d);
    return dc_sync_in(d, op_branch_w(d->m, disp));
}

#endif
