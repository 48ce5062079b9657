/*
 * mmu.h — virtual memory: translation (P0, P1, S0 regions), protection by
 * access mode, the translation buffer, and the virtual-memory accessors
 * every instruction uses.
 *
 * The accessors are inline: they look the page up in the host's copy of
 * the TB (tlb.h, xlat_entry: one slot, found with constant arithmetic),
 * and a hit on an aligned-enough access to RAM costs a compare, a mask
 * test and a load.  Everything else (a page the copy lacks, TB misses, I/O
 * space, page-crossing accesses, faults) goes to the out-of-line slow path
 * in mmu.c, which ends as the inline path would for a page the TB holds.
 */
#ifndef VAX_MMU_H
#define VAX_MMU_H

#include <stdint.h>
#include <string.h>

#include "le.h"
#include "machine.h"
#include "mmu/cache.h"

/* PTE fields. */
#define PTE_V 0x80000000u
#define PTE_PROT_SHIFT 27
#define PTE_M 0x04000000u
#define PTE_PFN 0x001FFFFFu

/* Translate va for an access in `mode` (write != 0 for write or modify
 * intent) and load the TB entry.  On success *entry is the entry for va's
 * page.  Faults set cpu.fault_param/fault_va. */
int mmu_translate(vax_machine *m, uint32_t va, int mode, int write, tlb_entry **entry);

/* Is a page accessible in mode?  Used by PROBE: returns VAX_OK with
 * *ok = 0/1, or a fault that PROBE itself must take (a TNV on the page
 * table of a process page). */
int mmu_probe(vax_machine *m, uint32_t va, int mode, int write, int *ok);

/* Make the host's look-up (tlb.h, xlat_entry) again from the TB: after
 * the TB was written other than through this module (a snapshot restore). */
void mmu_xlat_rebuild(vax_machine *m);

void mmu_flush_all(vax_machine *m);
void mmu_flush_process(vax_machine *m);
void mmu_flush_single(vax_machine *m, uint32_t va);

/* Slow paths of the accessors below. */
int mem_read_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t *value);
int mem_write_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t value);
int mem_read_modify_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t *value);

/* Physical longword access (page-table entries, SCB, PCB). */
int phys_read_l(vax_machine *m, uint32_t pa, uint32_t *value);
int phys_write_l(vax_machine *m, uint32_t pa, uint32_t value);

/* Refill the instruction-fetch shortcut for the page holding pc; returns a
 * fault status if the page cannot be read in the current mode. */
int ifetch_fill(vax_machine *m, uint32_t pc);
/* Point the fetch shortcut at pc's page, at host address host, physical pa
 * (a snapshot's restore re-derives it from the saved page this way). */
void ifetch_point(vax_machine *m, uint32_t pc, uint8_t *host, uint32_t pa);
/* Fetch n (1, 2 or 4) instruction-stream bytes the slow way. */
int ifetch_slow(vax_machine *m, int n, uint32_t *value);

#if defined(__GNUC__) || defined(__clang__)
#define MMU_INLINE static inline __attribute__((always_inline))
#else
#define MMU_INLINE static inline
#endif

/* Do the size (1, 2 or 4) bytes at va lie in one 8-byte cache block?
 * Then they lie in one page too, and in one block of the physical page
 * (pages are whole blocks).  The inline read accessors take only such
 * reads, so that the cache model's test is one block's; a read that
 * straddles two blocks of a page (about 1% of them) goes to the slow
 * path, which finds the same TB entry (the host's look-up holds a copy of
 * it, so mmu_translate changes nothing) and charges the same cache_read
 * of both blocks, in the same order. */
static inline int in_one_block(uint32_t va, int size)
{
    return (va & 7u) <= 8u - (uint32_t)size;
}

/* The reads the inline accessors take: within one block, and a longword
 * aligned as well.  A longword in one block but not aligned (va & 7 of 1
 * or 2: 6 K of the 4.3BSD script's 14 M longword reads) goes to the slow
 * path with the straddling ones, which charges them the same; testing the
 * alignment is two host instructions where the block's test was four
 * (docs/speed.md, round fifteen).  Words keep the block's test: an odd
 * word in one block is 2% of the script's word reads. */
static inline int inline_read_fits(uint32_t va, int size)
{
    return size == 4 ? (va & 3u) == 0 : in_one_block(va, size);
}

/* A read of size bytes of RAM at physical address pa, host address h,
 * that the TB allowed but that misses the cache (cache_hits): charge the
 * miss (cache_read) and read.  Out of line, and called last, so that the
 * inline accessors below make no call on their fast path: a function
 * that inlines them (decode.c's _at decoders) then needs no registers
 * saved on entry. */
int mem_read_missed(vax_machine *m, uint32_t pa, const uint8_t *h, int size, uint32_t *value);

/* The same for a read within one block, blk (pa >> 3), that
 * cache_holds_block has just found missing: the fill without testing the
 * block again. */
int mem_read_missed_block(vax_machine *m, uint32_t blk, const uint8_t *h, int size, uint32_t *value);

/* The instruction buffer's block at pa was just found missing in the
 * cache (execute.c, ifetch_account_mapped): cache_read_block's fill and
 * its cost, without its test again. */
void ifetch_block_missed(vax_machine *m, uint32_t pa);

/* The PSL's bits 31:24, whose low two are the current mode: what the
 * host's look-up tests an access with (tlb.h, xlat_allows), without
 * taking the mode out first. */
static inline uint32_t psl_mode_key(const vax_machine *m)
{
    return m->cpu.psl_without_cc >> PSL_CUR_SHIFT;
}

/* Read/write size (1, 2, 4) bytes at va in an explicit access mode (or
 * the current one, given as psl_mode_key: its low two bits are the mode,
 * and the look-up ignores the rest). */
MMU_INLINE int mem_read_mode(vax_machine *m, uint32_t va, int size, uint32_t mode_key, uint32_t *value)
{
    const xlat_entry *e = XLAT_SLOT(m->xlat, va);   /* tlb.h: the TB's entry, or a miss */
    if (e->tag == va >> 9 && xlat_allows(e->read_modes, mode_key) && inline_read_fits(va, size)) {
        uint32_t blk = xlat_block(e, va);   /* tlb.h: one add each from va */
        const uint8_t *h = xlat_host(e, va);
        if (!cache_holds_block(&m->cache, blk))   /* cache.h: a miss's cost */
            return mem_read_missed_block(m, blk, h, size, value);
        *value = load_le(h, size);
        return 0;
    }
    return mem_read_slow(m, va, size, (int)(mode_key & 3u), value);
}

MMU_INLINE int mem_write_mode(vax_machine *m, uint32_t va, int size, uint32_t mode_key, uint32_t value)
{
    const xlat_entry *e = XLAT_SLOT(m->xlat, va);
    if (e->tag == va >> 9 && xlat_allows(e->write_modes, mode_key) && (va & 511u) <= 512u - (uint32_t)size) {
        store_le(xlat_host(e, va), size, value);
        return 0;
    }
    return mem_write_slow(m, va, size, (int)(mode_key & 3u), value);
}

/* The read half of a modify operand: the access is checked for write, so
 * a fault reports write intent (ACV/TNV parameter bit 2), as the
 * architecture specifies for modify operands. */
MMU_INLINE int mem_read_modify(vax_machine *m, uint32_t va, int size, uint32_t *value)
{
    uint32_t mode_key = psl_mode_key(m);
    const xlat_entry *e = XLAT_SLOT(m->xlat, va);
    if (e->tag == va >> 9 && xlat_allows(e->write_modes, mode_key) && inline_read_fits(va, size)) {
        uint32_t blk = xlat_block(e, va);
        const uint8_t *h = xlat_host(e, va);
        if (!cache_holds_block(&m->cache, blk))
            return mem_read_missed_block(m, blk, h, size, value);
        *value = load_le(h, size);
        return 0;
    }
    return mem_read_modify_slow(m, va, size, (int)(mode_key & 3u), value);
}

/* In the current mode. */
MMU_INLINE int mem_read(vax_machine *m, uint32_t va, int size, uint32_t *value)
{
    return mem_read_mode(m, va, size, psl_mode_key(m), value);
}

MMU_INLINE int mem_write(vax_machine *m, uint32_t va, int size, uint32_t value)
{
    return mem_write_mode(m, va, size, psl_mode_key(m), value);
}

MMU_INLINE int mem_read_b(vax_machine *m, uint32_t va, uint32_t *v) { return mem_read(m, va, 1, v); }
MMU_INLINE int mem_read_w(vax_machine *m, uint32_t va, uint32_t *v) { return mem_read(m, va, 2, v); }
MMU_INLINE int mem_read_l(vax_machine *m, uint32_t va, uint32_t *v) { return mem_read(m, va, 4, v); }
MMU_INLINE int mem_write_b(vax_machine *m, uint32_t va, uint32_t v) { return mem_write(m, va, 1, v); }
MMU_INLINE int mem_write_w(vax_machine *m, uint32_t va, uint32_t v) { return mem_write(m, va, 2, v); }
MMU_INLINE int mem_write_l(vax_machine *m, uint32_t va, uint32_t v) { return mem_write(m, va, 4, v); }

/* Quadwords: two longwords, low one first.  A write checks both halves
 * for access before storing either, so a fault leaves memory unchanged. */
MMU_INLINE int mem_read_q(vax_machine *m, uint32_t va, uint32_t v[2])
{
    int st = mem_read_l(m, va, &v[0]);
    if (st)
        return st;
    return mem_read_l(m, va + 4, &v[1]);
}

int mem_write_q(vax_machine *m, uint32_t va, const uint32_t v[2]);

/* A page cursor: for an instruction that makes a run of longword accesses,
 * most of them in one page (CALLS, RET, PUSHR, POPR and their stack
 * frames).  The TB entry of the page last accessed is remembered, so the
 * next access to that page skips the TB lookup and the protection check;
 * each access still costs, reads through the cache model and stores
 * exactly what mem_read_l/mem_write_l would, in the same order.
 *
 * Why that is the same: the cursor holds a page only right after an
 * access to it hit the TB with the access allowed in the current mode,
 * and the TB only changes on a miss or a fault, which go through the slow
 * paths, where the cursor is dropped.  So while it holds a page, that
 * page's entry is in the TB, unchanged, and a lookup would hit it.  The
 * cursor must not outlive the instruction (the mode, and the TB, change
 * between instructions), and every access of the run must go through it
 * (an access made around it could miss and refill the TB).  A read cursor
 * and a write cursor are separate: a page may allow one and not the
 * other. */
typedef struct {
    uint32_t vpn;          /* va >> 9 of the page held, or TLB_INVALID */
    uint32_t pa;           /* its physical address */
    uint8_t *host;         /* its host address */
} page_cursor;

#define PAGE_CURSOR_EMPTY {TLB_INVALID, 0, NULL}

MMU_INLINE int cursor_read_l(vax_machine *m, page_cursor *k, uint32_t va, uint32_t *v)
{
    uint32_t off = va & 511u;
    if ((va >> 9) == k->vpn && off <= 508u) {
        m->cost += cache_read(&m->cache, k->pa | off, 4);
        *v = load_le(k->host + off, 4);
        return 0;
    }
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    const tlb_entry *e = tlb_find(&m->tlb, va);
    if (e && (e->access & (1u << mode)) && e->host && off <= 508u) {
        k->vpn = va >> 9;
        k->pa = e->pa;
        k->host = e->host;
        m->cost += cache_read(&m->cache, e->pa | off, 4);
        *v = load_le(e->host + off, 4);
        return 0;
    }
    k->vpn = TLB_INVALID;
    return mem_read_slow(m, va, 4, mode, v);
}

/* A byte through cursor k; `other`, if not NULL, is a second cursor the
 * same instruction reads through (CMPC's two strings): a slow path empties
 * it too, since the TB miss it handles may evict the other's page. */
MMU_INLINE int cursor_read_b(vax_machine *m, page_cursor *k, page_cursor *other, uint32_t va, uint32_t *v)
{
    uint32_t off = va & 511u;
    if ((va >> 9) == k->vpn) {
        m->cost += cache_read(&m->cache, k->pa | off, 1);
        *v = k->host[off];
        return 0;
    }
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    const tlb_entry *e = tlb_find(&m->tlb, va);
    if (e && (e->access & (1u << mode)) && e->host) {
        k->vpn = va >> 9;
        k->pa = e->pa;
        k->host = e->host;
        m->cost += cache_read(&m->cache, e->pa | off, 1);
        *v = e->host[off];
        return 0;
    }
    k->vpn = TLB_INVALID;
    if (other)
        other->vpn = TLB_INVALID;
    return mem_read_slow(m, va, 1, mode, v);
}

MMU_INLINE int cursor_write_l(vax_machine *m, page_cursor *k, uint32_t va, uint32_t v)
{
    uint32_t off = va & 511u;
    if ((va >> 9) == k->vpn && off <= 508u) {
        store_le(k->host + off, 4, v);
        return 0;
    }
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    const tlb_entry *e = tlb_find(&m->tlb, va);
    if (e && (e->access & (16u << mode)) && e->host && off <= 508u) {
        k->vpn = va >> 9;
        k->pa = e->pa;
        k->host = e->host;
        store_le(e->host + off, 4, v);
        return 0;
    }
    k->vpn = TLB_INVALID;
    return mem_write_slow(m, va, 4, mode, v);
}

/* Instruction stream: n = 1, 2 or 4 bytes at PC, advancing PC. */
static inline int ifetch(vax_machine *m, int n, uint32_t *value)
{
    uint32_t pc = m->cpu.r[15];
    if ((pc >> 9) == m->ib_tag && (pc & 511u) <= 512u - (uint32_t)n) {
        *value = load_le((const uint8_t *)(m->ib_bias + pc), n);   /* machine.h: pc's host address */
        m->cpu.r[15] = pc + (uint32_t)n;
        return 0;
    }
    return ifetch_slow(m, n, value);
}

static inline void ib_invalidate(vax_machine *m)
{
    m->ib_tag = TLB_INVALID;
    m->ib_fast = (uint64_t)1 << 32;
}

/* The physical address of a host pointer into guest RAM. */
static inline uint32_t host_pa(const vax_machine *m, const uint8_t *h) { return (uint32_t)(h - m->bus.mem); }

/* The instruction buffer's fetches through the cache, at the start of the
 * instruction at pc (execute.c): when pc has moved into another 8-byte
 * block, that block is read through the cache.  (An instruction longer
 * than a block, whose middle block no instruction starts in, is the
 * simplification: the average instruction is under 4 bytes.) */

/* ifetch_account for a pc the fetch shortcut maps (execute.c's fast
 * form): the same, without testing that again. */
static inline void ifetch_account_mapped(vax_machine *m, uint32_t pc)
{
    uint32_t block = pc >> 3;
    if (block != m->ifetch_block) {
        m->ifetch_block = block;
        /* A hit costs nothing and changes nothing (cache.h), so only a
         * miss touches the cost, out of line: the hit path neither adds
         * 0 nor keeps the miss call's set-up.  The physical block is
         * (ib_pa | (pc & 511)) >> 3, one add from the virtual one. */
        uint32_t blk = block + m->ib_block_delta;
        if (!cache_holds_block(&m->cache, blk))
            ifetch_block_missed(m, blk << CACHE_BLOCK_SHIFT);
    }
}

static inline void ifetch_account(vax_machine *m, uint32_t pc)
{
    uint32_t block = pc >> 3;
    if (block != m->ifetch_block) {
        m->ifetch_block = block;
        if ((pc >> 9) == m->ib_tag)   /* else I/O space, or a crossing fetched a byte at a time */
            m->cost += cache_read_block(&m->cache, m->ib_pa | (pc & 511u));
    }
}

/* Host address of the size bytes at va if the TB maps them, within one
 * page of RAM, with the access bits `access` (tlb_entry.access: 1 << mode
 * to read, 16 << mode to write) allowed; NULL otherwise.  For operands
 * that are read and then written back in place.  Looking is free: the
 * caller charges the cache for what it reads (cache_read on host_pa). */
static inline uint8_t *tlb_host(vax_machine *m, uint32_t va, int size, uint32_t access)
{
    const tlb_entry *e = tlb_find(&m->tlb, va);
    if (e && (e->access & access) && e->host && (va & 511u) <= 512u - (uint32_t)size)
        return e->host + (va & 511u);
    return NULL;
}

#endif
