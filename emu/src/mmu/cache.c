/*
 * cache.c — the out-of-line part of the cache timing simulation (cache.h).
 */
#include "mmu/cache.h"

void cache_invalidate_all(vax_cache *c)
{
    for (uint32_t i = 0; i < CACHE_MAX_SETS * 2; i++)
        c->tag[i] = CACHE_INVALID;
    c->random = 0x2545F491u;   /* any non-zero start: the same sequence every run */
}

void cache_configure(vax_cache *c, uint32_t sets, uint32_t ways, uint32_t miss_cost)
{
    if (sets == 0 || sets > CACHE_MAX_SETS || (sets & (sets - 1)) != 0)
        sets = CACHE_MAX_SETS;
    c->set_mask = sets - 1;
    c->ways = ways == 2 ? 2 : 1;
    c->miss_cost = miss_cost;
    cache_invalidate_all(c);
}

uint32_t cache_fill(vax_cache *c, uint32_t *set, uint32_t blk)
{
    c->misses++;
    if (c->ways == 1 || set[0] == CACHE_INVALID) {
        set[0] = blk;
    } else if (set[1] == CACHE_INVALID) {
        set[1] = blk;
    } else {
        /* Random replacement, as the 780's: a 32-bit xorshift sequence. */
        uint32_t x = c->random;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c->random = x;
        set[x >> 31] = blk;
    }
    return c->miss_cost;
}

uint32_t cache_read_blocks(vax_cache *c, uint32_t first, uint32_t last)
{
    uint32_t cost = 0;
    for (uint32_t b = first; b <= last; b++)
        if (!cache_holds_block(c, b))
            cost += cache_miss_block(c, b);
    return cost;
}

uint32_t cache_read_span(vax_cache *c, uint32_t pa, uint32_t n)
{
    if (n == 0)
        return 0;
    return cache_read_blocks(c, pa >> CACHE_BLOCK_SHIFT, (pa + n - 1) >> CACHE_BLOCK_SHIFT);
}
