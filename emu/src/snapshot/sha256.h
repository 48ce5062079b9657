/*
 * sha256.h — SHA-256 (FIPS 180-4), for the identity of a disk image that a
 * machine snapshot records (snap.h): the native machine hashes the image
 * file it was given; the browser and Node take the figure from the image's
 * manifest or header, so both name a pack by the same digest.
 */
#ifndef VAX_SNAPSHOT_SHA256_H
#define VAX_SNAPSHOT_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t bytes;        /* hashed so far */
    uint8_t block[64];     /* a partial block */
    size_t fill;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);

#endif
