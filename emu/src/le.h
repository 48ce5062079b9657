/*
 * le.h — little-endian fields: the VAX's byte order, and that of every
 * on-disk and on-tape structure the emulator reads (a.out headers, FFS,
 * tp archives, SIMH tape images, MSCP packets).  One definition, so that no
 * file has its own, and the host's byte order never matters.
 */
#ifndef VAX_LE_H
#define VAX_LE_H

#include <stdint.h>

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

#endif
