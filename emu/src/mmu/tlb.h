/*
 * tlb.h — the translation buffer's data layout (kept apart from mmu.h so
 * that machine.h can embed it without pulling in the access functions).
 *
 * The emulated TB is the modelled processor's own, as built: set
 * associative, two ways, with separate halves for process space (P0, P1)
 * and system space (S0), indexed by the low bits of the virtual page
 * number within its half.  A VAX-11/780's has 128 entries (32 sets of two
 * in each half); a VAX-11/750's 512 (128 sets of two in each half).  So a
 * miss here is a miss on the machine being modelled, and costs what the
 * model says a refill costs (cpu/timing.h, mmu.c) — the TB is both the
 * emulator's translation cache and the timing simulation of the real one.
 * Software cannot tell one size from another as long as TBIA/TBIS/LDPCTX
 * invalidate what the architecture says they do.
 *
 * Replacement: a fill takes an invalid way if the set has one, else the
 * way the set filled least recently (first in, first out; one bit per set,
 * nothing to update on a hit).  DEC's descriptions give the geometry; the
 * replacement rule is our assumption (see emu/docs/timing.md).
 *
 * Each entry keeps the host address of the page so that a hit costs a
 * couple of compares and one mask test.
 */
#ifndef VAX_TLB_H
#define VAX_TLB_H

#include <stddef.h>
#include <stdint.h>

#include "host_table.h"

#define TLB_WAYS 2
#define TLB_MAX_SETS 256   /* the largest TB modelled (750: 512 entries) */
#define TLB_INVALID 0xFFFFFFFFu

typedef struct {
    uint32_t tag;      /* va >> 9, or TLB_INVALID */
    uint32_t pa;       /* physical address of the page */
    uint8_t *host;     /* host address of the page; NULL for I/O space */
    uint32_t access;   /* bit m: read allowed in mode m; bit 4+m: write
                          allowed in mode m (and the PTE's M bit is set) */
} tlb_entry;

typedef struct {
    tlb_entry e[TLB_MAX_SETS * TLB_WAYS];   /* set s: e[2s], e[2s + 1] */
    uint8_t next_victim[TLB_MAX_SETS];      /* the way the next fill of a full set replaces */
    uint32_t half_mask;                     /* sets in each half - 1 */
    uint32_t half_shift;                    /* log2(sets in each half) */
} vax_tlb;

/* The set that holds va's page: its page number's low bits within the
 * process half (va<31> = 0) or the system half. */
static inline uint32_t tlb_set(const vax_tlb *t, uint32_t va)
{
    return ((va >> 9) & t->half_mask) | ((va >> 31) << t->half_shift);
}

/* The entry holding va's page, or NULL. */
static inline tlb_entry *tlb_find(vax_tlb *t, uint32_t va)
{
    tlb_entry *s = &t->e[tlb_set(t, va) * TLB_WAYS];
    uint32_t tag = va >> 9;
    if (s[0].tag == tag)
        return &s[0];
    if (s[1].tag == tag)
        return &s[1];
    return NULL;
}

/* The host's look-up in front of the TB (not part of the model).
 *
 * A direct-mapped copy of TB entries of RAM pages, indexed by page number
 * with constant arithmetic, so that the inline accessors (mmu.h) find a
 * page with one compare, where the TB's own look-up computes the set from
 * its geometry and tries two ways.  The invariant: an entry that holds a
 * page (tag = va >> 9) is a copy of the TB entry for that page — the same
 * physical page, host address and access bits — so it hits exactly when
 * the TB lookup would hit with that access, and nothing the model keeps
 * (the TB, its replacement order, its miss count) is changed by using it.
 * It is kept so by mmu.c: every TB fill writes its copy, every eviction or
 * flush drops it, and a lookup that finds a page in the TB but not here
 * copies it in.  A page of I/O space (no host address) is never copied:
 * its accesses take the slow path, as before.  It is host state, in no
 * snapshot and no digest; a snapshot restore makes it again from the TB. */
#define XLAT_SIZE 1024u
#define XLAT_INVALID 0xFFFFFFFFu

/* The TB entry's physical page and host page are kept as offsets from the
 * page's virtual address (as the fetch shortcut keeps its page: machine.h,
 * ib_block_delta and ib_bias), so that an access finds its cache block and
 * its host byte with one add each from va, without first taking va's
 * offset in the page and merging it (a host instruction fewer on every
 * memory operand's hit path: docs/speed.md, round seventeen).  Unsigned
 * arithmetic wraps alike both ways, on 64-bit hosts and on wasm32.
 *
 * The TB entry's access bits are kept as two words, one to read and one
 * to write, in which bit i says whether mode i & 3 may: the four modes'
 * bits repeated eight times.  A shift by the PSL's bits 31:24, which x86
 * and WebAssembly take modulo 32, then tests the current mode's bit
 * whatever the IS, FPD and other bits above it hold (xlat_allows): no
 * mask to take the mode out, and the write test needs no shift by four
 * either (one and two host instructions fewer on every memory operand's
 * hit path: docs/speed.md, round seventeen).  On 64-bit hosts the two
 * words fill what was padding before the 8-byte host field, so a slot is
 * still 24 bytes; on wasm32 it grows from 16 to 20. */
typedef struct {
    uint32_t tag;          /* va >> 9, or XLAT_INVALID */
    uint32_t block_delta;  /* the page's first cache block (pa >> 3) minus tag << 6, mod 2^32 */
    uint32_t read_modes;   /* the TB entry's read bits (access & 15), repeated: times 0x11111111 */
    uint32_t write_modes;  /* its write bits (access >> 4 & 15), repeated the same way */
    uintptr_t host_bias;   /* the page's host address minus tag << 9, mod the pointer's width */
} xlat_entry;

#define XLAT_MODES_REPEAT 0x11111111u

/* Does a mode word (read_modes or write_modes) allow the access in the
 * mode that mode_key's low two bits give?  mode_key is a mode (0-3) or
 * the PSL's bits 31:24 (mmu.h, psl_mode_key); `& 31` is what the hosts'
 * shift does anyway, so it costs nothing there and keeps C defined. */
static inline uint32_t xlat_allows(uint32_t modes, uint32_t mode_key)
{
    return (modes >> (mode_key & 31u)) & 1u;
}

/* The TB entry's access bits (tlb_entry.access) of the page x holds. */
static inline uint32_t xlat_access(const xlat_entry *x)
{
    return (x->read_modes & 15u) | ((x->write_modes & 15u) << 4);
}

/* The physical cache block (pa >> 3) of va, in the page x holds. */
static inline uint32_t xlat_block(const xlat_entry *x, uint32_t va)
{
    return x->block_delta + (va >> 3);
}

/* The physical address of va, in the page x holds. */
static inline uint32_t xlat_pa(const xlat_entry *x, uint32_t va)
{
    return (xlat_block(x, va) << 3) | (va & 7u);
}

/* The host address of va, in the page x holds. */
static inline uint8_t *xlat_host(const xlat_entry *x, uint32_t va)
{
    return (uint8_t *)(x->host_bias + va);
}

/* The slot of va's page: its page number plus its high bits (va<31:22>),
 * low ten bits.  A system page n (below 8192) lands in slot n + 512 (mod
 * 1024), apart from P0 page n, as when each half had its own 512 slots;
 * the P1 stack's top pages land just below slot 511, where only a P0 page
 * near 256 KB or a system page near 1022 would go.  Any function of
 * va >> 9 is exact (a slot only ever holds a copy of the TB's entry, and
 * a page not found goes to the slow path); this one costs four host
 * instructions from the page number where the halves' own bit took
 * eight, and measured on the 4.3BSD script it misses no more often than
 * the halves did (an xor in place of the add put the P1 stack on the
 * kernel's first pages: twice the fetch refills through mmu_translate). */
static inline uint32_t xlat_index(uint32_t va)
{
    return ((va >> 9) + (va >> 22)) & (XLAT_SIZE - 1);
}

/* The host look-up's slot for va in table (the machine's xlat array), as a
 * pointer: the one way in, taken through HOST_ADDRESS (host_table.h) so
 * that the WebAssembly build folds the fields' offsets into the loads. */
#define XLAT_SLOT(table, va) (&HOST_ADDRESS(table)[xlat_index(va)])

#endif
