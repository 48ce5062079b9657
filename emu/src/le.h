/*
 * le.h — little-endian fields: the VAX's byte order, and that of every
 * on-disk and on-tape structure the emulator reads (a.out headers, FFS,
 * tp archives, SIMH tape images, MSCP packets).  One definition, so that no
 * file has its own, and the host's byte order never matters.
 */
#ifndef VAX_LE_H
#define VAX_LE_H

#include <stdint.h>
#include <string.h>

static inline uint16_t le16_get(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline uint32_t le32_get(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void le16_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void le32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A byte, word or longword of guest memory at p, by size (1, 2 or 4): the
 * hot path's form (the memory and the instruction stream, mmu.h, bus.c).
 * A memcpy is one host load or store, so it is the host's byte order: the
 * hosts we build for (x86-64, WebAssembly) are little-endian, as the check
 * below makes sure.  The le16/le32 helpers above are the portable form for
 * everything off the hot path. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "load_le/store_le read guest memory in the host's byte order: a little-endian host is required"
#endif

static inline uint32_t load_le(const uint8_t *p, int size)
{
    if (size == 1)
        return p[0];
    if (size == 2) {
        uint16_t w;
        memcpy(&w, p, 2);
        return w;
    }
    uint32_t l;
    memcpy(&l, p, 4);
    return l;
}

static inline void store_le(uint8_t *p, int size, uint32_t v)
{
    if (size == 1)
        p[0] = (uint8_t)v;
    else if (size == 2) {
        uint16_t w = (uint16_t)v;
        memcpy(p, &w, 2);
    } else
        memcpy(p, &v, 4);
}

#endif
