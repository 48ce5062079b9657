/*
 * tlb.h — the translation buffer's data layout (kept apart from mmu.h so
 * that machine.h can embed it without pulling in the access functions).
 *
 * The emulated TB is a direct-mapped cache of page translations, larger
 * than the 780's 128 entries; software cannot tell the difference as long
 * as TBIA/TBIS/LDPCTX invalidate what the architecture says they do.  Each
 * entry keeps the host address of the page so that a hit costs one compare
 * and one mask test.
 */
#ifndef VAX_TLB_H
#define VAX_TLB_H

#include <stdint.h>

#define TLB_BITS 10
#define TLB_SIZE (1u << TLB_BITS)
#define TLB_INVALID 0xFFFFFFFFu

typedef struct {
    uint32_t tag;      /* va >> 9, or TLB_INVALID */
    uint32_t pa;       /* physical address of the page */
    uint8_t *host;     /* host address of the page; NULL for I/O space */
    uint32_t access;   /* bit m: read allowed in mode m; bit 4+m: write
                          allowed in mode m (and the PTE's M bit is set) */
} tlb_entry;

typedef struct {
    tlb_entry e[TLB_SIZE];
} vax_tlb;

static inline uint32_t tlb_index(uint32_t va)
{
    /* Mix in the region bits so P0, P1 and S0 pages with equal low page
     * numbers do not evict each other. */
    return ((va >> 9) ^ (va >> 30) * 0x2B5u) & (TLB_SIZE - 1);
}

#endif
