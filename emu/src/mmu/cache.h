/*
 * cache.h — a timing simulation of the processor's memory cache: tags
 * only, no data (the data are always in guest memory), so that a read
 * costs what it would on the modelled machine — a hit nothing beyond the
 * instruction's own cycles, a miss the memory's read time (cpu/timing.h,
 * read_miss).
 *
 * Both caches modelled are physically addressed, write-through and do not
 * allocate on a write (DEC, "VAX-11/780 Translation Buffer, Cache and SBI
 * Control Technical Description"; the 750's likewise), so a write never
 * changes which blocks the cache holds: only reads are simulated — data
 * reads, instruction-stream fetches and the page-table reads of TB refills.
 * Writes cost a fixed, modelled amount (timing.h, write).
 *
 *   780: 8 KB in 8-byte blocks, two ways of 512 sets, random replacement
 *        (here a deterministic pseudo-random sequence, so runs repeat);
 *   750: 4 KB in 8-byte blocks, one way of 512 sets (direct mapped).
 *
 * The state lives in vax_machine.cache (machine.h); the model's geometry
 * is set by cache_configure (cache.c), from the CPU model.
 */
#ifndef VAX_CACHE_H
#define VAX_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define CACHE_BLOCK_SHIFT 3          /* 8-byte blocks */
#define CACHE_MAX_SETS 512
#define CACHE_INVALID 0xFFFFFFFFu

typedef struct {
    /* tag[2s], tag[2s + 1]: the block numbers (pa >> 3) held by set s's
     * two ways; a direct-mapped cache keeps its second way invalid.  (The
     * index 2s is formed as a size_t, so that the compiler can scale the
     * set number by 8 in the address instead of doubling it first in 32
     * bits.) */
    uint32_t tag[CACHE_MAX_SETS * 2];
    uint32_t set_mask;     /* sets - 1 */
    uint32_t ways;         /* 1 or 2 */
    uint32_t random;       /* the replacement sequence's state (two ways) */
    uint32_t miss_cost;    /* what a read miss costs (ns, the model's) */
    uint64_t misses;       /* (hits are not counted: one store less per read) */
} vax_cache;

struct vax_machine;

/* The geometry of a CPU model's cache (ways 1 or 2, sets a power of two
 * up to CACHE_MAX_SETS) and its miss cost; empties it. */
void cache_configure(vax_cache *c, uint32_t sets, uint32_t ways, uint32_t miss_cost);

/* Forget everything (power-on, or a model change). */
void cache_invalidate_all(vax_cache *c);

/* A miss on block blk in set `set` (out of line): fill, count, return the
 * cost. */
uint32_t cache_fill(vax_cache *c, uint32_t *set, uint32_t blk);

/* The fill and cost of block blk that the caller has just found missing
 * (cache_holds_block or cache_hits_block false, nothing in between):
 * what cache_read_block would do after its own test failed. */
static inline uint32_t cache_miss_block(vax_cache *c, uint32_t blk)
{
    return cache_fill(c, &c->tag[(size_t)(blk & c->set_mask) * 2], blk);
}

/* The cost of reading the byte at physical address pa (its block). */
static inline uint32_t cache_read_block(vax_cache *c, uint32_t pa)
{
    uint32_t blk = pa >> CACHE_BLOCK_SHIFT;
    uint32_t *s = &c->tag[(size_t)(blk & c->set_mask) * 2];
    if (s[0] == blk || s[1] == blk)
        return 0;
    return cache_fill(c, s, blk);
}

/* The cost of reading size bytes at pa: one block, or two when the
 * access straddles a block boundary. */
static inline uint32_t cache_read(vax_cache *c, uint32_t pa, int size)
{
    uint32_t cost = cache_read_block(c, pa);
    if (((pa ^ (pa + (uint32_t)size - 1)) >> CACHE_BLOCK_SHIFT) != 0)
        cost += cache_read_block(c, pa + (uint32_t)size - 1);
    return cost;
}

/* Does reading size (1, 2 or 4) bytes at pa hit in every block it
 * touches?  Looks only.  A hit changes nothing in the model (no counts, no
 * replacement state), so "if cache_hits, cost 0, else cache_read" is
 * cache_read itself; the accessors use it to keep the miss, which calls
 * cache_fill, out of their inline path (mmu.h, mem_read_missed). */
static inline int cache_hits(const vax_cache *c, uint32_t pa, int size)
{
    uint32_t blk = pa >> CACHE_BLOCK_SHIFT;
    const uint32_t *s = &c->tag[(size_t)(blk & c->set_mask) * 2];
    if (s[0] != blk && s[1] != blk)
        return 0;
    uint32_t last = (pa + (uint32_t)size - 1) >> CACHE_BLOCK_SHIFT;
    if (last == blk)
        return 1;
    s = &c->tag[(size_t)(last & c->set_mask) * 2];
    return s[0] == last || s[1] == last;
}

/* Does the cache hold block blk (a physical address >> 3)?  Looks only. */
static inline int cache_holds_block(const vax_cache *c, uint32_t blk)
{
    const uint32_t *s = &c->tag[(size_t)(blk & c->set_mask) * 2];
    return s[0] == blk || s[1] == blk;
}

/* cache_hits for a read within one block (the inline accessors' case,
 * mmu.h in_one_block). */
static inline int cache_hits_block(const vax_cache *c, uint32_t pa)
{
    uint32_t blk = pa >> CACHE_BLOCK_SHIFT;
    const uint32_t *s = &c->tag[(size_t)(blk & c->set_mask) * 2];
    return s[0] == blk || s[1] == blk;
}

/* Would reading size bytes at pa hit?  (Looks only: no count, no fill.) */
static inline int cache_holds(const vax_cache *c, uint32_t pa, int size)
{
    for (uint32_t a = pa; a <= pa + (uint32_t)size - 1; a = (a | 7u) + 1) {
        uint32_t blk = a >> CACHE_BLOCK_SHIFT;
        const uint32_t *s = &c->tag[(size_t)(blk & c->set_mask) * 2];
        if (s[0] != blk && s[1] != blk)
            return 0;
        if ((a | 7u) >= pa + (uint32_t)size - 1)
            break;
    }
    return 1;
}

/* The cost of reading the n bytes from pa on (every block they touch). */
uint32_t cache_read_span(vax_cache *c, uint32_t pa, uint32_t n);

/* The cost of reading blocks first to last (block numbers, pa >> 3), in
 * that order, each once (first <= last). */
uint32_t cache_read_blocks(vax_cache *c, uint32_t first, uint32_t last);

#endif
