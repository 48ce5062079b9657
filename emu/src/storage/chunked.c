/*
 * chunked.c — the chunked disk image (chunked.h).
 */
#include "storage/chunked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/snap.h"   /* snap_crc32 */
#include "storage/inflate.h"

static const char MAGIC[8] = {'V', 'A', 'X', 'D', 'S', 'K', 'Z', 0};

struct chunked_image {
    uint8_t *file;          /* the file, or (index_only) its header and index */
    size_t file_len;        /* the file's length (index_only: as the caller gave it) */
    int index_only;         /* chunked_open_index: the stored bytes come with each chunked_inflate_stored */
    int own;
    uint32_t chunk_bytes;
    uint64_t size;
    uint32_t nchunks;
    uint8_t sha256[32];
    const uint8_t *index;   /* in file */
    uint8_t **chunk;        /* decompressed chunks (NULL: not yet, or all zeros) */
    uint64_t inflated, inflated_bytes;
    char error[160];
};

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static size_t chunk_len(const chunked_image *ci, uint32_t i)
{
    uint64_t left = ci->size - (uint64_t)i * ci->chunk_bytes;
    return left < ci->chunk_bytes ? (size_t)left : ci->chunk_bytes;
}

/* The header and index at file (have bytes of it), of a file of len bytes. */
static chunked_image *open_common(uint8_t *file, size_t have, size_t len, int own, char *err, size_t errlen)
{
    if (!file || have < CHUNKED_HEADER_BYTES || have > len || memcmp(file, MAGIC, 8) != 0) {
        snprintf(err, errlen, "not a chunked disk image");
        return NULL;
    }
    uint8_t h[CHUNKED_HEADER_BYTES];
    memcpy(h, file, sizeof h);
    memset(h + 64, 0, 4);
    if (le(file + 64, 4) != snap_crc32(0, h, 64)) {
        snprintf(err, errlen, "chunked disk image damaged: its header's checksum is wrong");
        return NULL;
    }
    uint32_t version = (uint32_t)le(file + 8, 4), chunk = (uint32_t)le(file + 12, 4), n = (uint32_t)le(file + 24, 4);
    uint64_t size = le(file + 16, 8);
    if (version != 1) {
        snprintf(err, errlen, "chunked disk image format %u; this emulator reads format 1", version);
        return NULL;
    }
    if (chunk < 512 || chunk > (1u << 24) || chunk % 512 || size == 0 || size > (1ull << 40) ||
        n != size / chunk + (size % chunk != 0)) {
        snprintf(err, errlen, "chunked disk image damaged: %llu bytes in %u chunks of %u", (unsigned long long)size, n,
                 chunk);
        return NULL;
    }
    if ((have - CHUNKED_HEADER_BYTES) / CHUNKED_INDEX_ENTRY < n) {
        snprintf(err, errlen, "chunked disk image damaged: the index is cut off");
        return NULL;
    }
    const uint8_t *index = file + CHUNKED_HEADER_BYTES;
    size_t index_bytes = (size_t)n * CHUNKED_INDEX_ENTRY;
    if (le(file + 28, 4) != snap_crc32(0, index, index_bytes)) {
        snprintf(err, errlen, "chunked disk image damaged: its index's checksum is wrong");
        return NULL;
    }
    size_t data_from = CHUNKED_HEADER_BYTES + index_bytes;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = index + (size_t)i * CHUNKED_INDEX_ENTRY;
        uint64_t at = le(e, 8), stored = le(e + 8, 4);
        uint64_t want = size - (uint64_t)i * chunk < chunk ? size - (uint64_t)i * chunk : chunk;
        if (stored && (at < data_from || at > len || stored > len - at || stored > want)) {
            snprintf(err, errlen, "chunked disk image damaged: chunk %u lies outside the file", i);
            return NULL;
        }
    }
    chunked_image *ci = calloc(1, sizeof *ci);
    uint8_t **table = calloc(n, sizeof *table);
    if (!ci || !table) {
        free(ci);
        free(table);
        snprintf(err, errlen, "out of host memory");
        return NULL;
    }
    ci->file = file;
    ci->file_len = len;
    ci->own = own;
    ci->chunk_bytes = chunk;
    ci->size = size;
    ci->nchunks = n;
    memcpy(ci->sha256, file + 32, 32);
    ci->index = index;
    ci->chunk = table;
    ci->index_only = have < len;
    return ci;
}

chunked_image *chunked_open(uint8_t *file, size_t len, int own, char *err, size_t errlen)
{
    return open_common(file, len, len, own, err, errlen);
}

chunked_image *chunked_open_index(uint8_t *head, size_t head_len, size_t file_len, int own, char *err, size_t errlen)
{
    if (head_len >= file_len) {
        snprintf(err, errlen, "chunked disk image: %zu bytes of header and index of a %zu-byte file", head_len, file_len);
        return NULL;
    }
    return open_common(head, head_len, file_len, own, err, errlen);
}

void chunked_close(chunked_image *ci)
{
    if (!ci)
        return;
    for (uint32_t i = 0; i < ci->nchunks; i++)
        free(ci->chunk[i]);
    free(ci->chunk);
    if (ci->own)
        free(ci->file);
    free(ci);
}

uint64_t chunked_size(const chunked_image *ci) { return ci->size; }
const uint8_t *chunked_sha256(const chunked_image *ci) { return ci->sha256; }
const char *chunked_error(const chunked_image *ci) { return ci->error[0] ? ci->error : NULL; }
void chunked_clear_error(chunked_image *ci) { ci->error[0] = 0; }

void chunked_get_stats(const chunked_image *ci, chunked_stats *out)
{
    out->chunks = ci->nchunks;
    out->chunks_inflated = ci->inflated;
    out->bytes_inflated = ci->inflated_bytes;
    out->file_bytes = ci->file_len;
}

static int damaged(chunked_image *ci, uint32_t i, const char *why)
{
    if (!ci->error[0])
        snprintf(ci->error, sizeof ci->error, "chunked disk image damaged: chunk %u: %s", i, why);
    return -1;
}

/* Chunk i's bytes into out (chunk_len bytes), checked against its CRC-32:
 * 0; 1 for a chunk of zeros (out untouched); -1 when it is damaged (the
 * reason kept). */
static int decode_chunk(chunked_image *ci, uint32_t i, const uint8_t *src, uint8_t *out)
{
    const uint8_t *e = ci->index + (size_t)i * CHUNKED_INDEX_ENTRY;
    uint32_t stored = (uint32_t)le(e + 8, 4), crc = (uint32_t)le(e + 12, 4);
    size_t n = chunk_len(ci, i);
    if (stored == 0)
        return 1;
    if (stored == n) {
        memcpy(out, src, n);
    } else {
        const char *why = "";
        long got = inflate_raw(src, stored, out, n, &why);
        if (got != (long)n)
            return damaged(ci, i, got < 0 ? why : "decompresses to the wrong length");
    }
    if (snap_crc32(0, out, n) != crc)
        return damaged(ci, i, "its checksum is wrong");
    return 0;
}

/* Where chunk i's stored bytes are in the file (validated when opened). */
static const uint8_t *stored_bytes(const chunked_image *ci, uint32_t i)
{
    return ci->file + le(ci->index + (size_t)i * CHUNKED_INDEX_ENTRY, 8);
}

int chunked_inflate_chunk(chunked_image *ci, uint32_t i, uint8_t *out)
{
    if (i >= ci->nchunks || ci->index_only)
        return -1;
    return decode_chunk(ci, i, stored_bytes(ci, i), out);
}

int chunked_inflate_stored(chunked_image *ci, uint32_t i, const uint8_t *stored, size_t stored_len, uint8_t *out)
{
    if (i >= ci->nchunks)
        return -1;
    if (stored_len != le(ci->index + (size_t)i * CHUNKED_INDEX_ENTRY + 8, 4))
        return damaged(ci, i, "its stored bytes are not as many as the index gives");
    return decode_chunk(ci, i, stored, out);
}

uint32_t chunked_chunk_bytes(const chunked_image *ci) { return ci->chunk_bytes; }
uint32_t chunked_chunks(const chunked_image *ci) { return ci->nchunks; }

/* Chunk i's bytes (decompressing it the first time), or NULL for a chunk
 * of zeros; *ok = 0 when it cannot be read. */
static const uint8_t *chunk_bytes(chunked_image *ci, uint32_t i, int *ok)
{
    *ok = 1;
    if (ci->chunk[i])
        return ci->chunk[i];
    const uint8_t *e = ci->index + (size_t)i * CHUNKED_INDEX_ENTRY;
    if (le(e + 8, 4) == 0)
        return NULL;
    if (ci->index_only) {   /* no stored bytes here: chunked_inflate_stored is the way */
        *ok = 0;
        damaged(ci, i, "only the index was opened");
        return NULL;
    }
    uint8_t *c = malloc(chunk_len(ci, i));
    if (!c) {
        *ok = 0;
        return NULL;
    }
    if (decode_chunk(ci, i, stored_bytes(ci, i), c) != 0) {
        free(c);
        *ok = 0;
        return NULL;
    }
    ci->chunk[i] = c;
    ci->inflated++;
    ci->inflated_bytes += chunk_len(ci, i);
    return c;
}

int chunked_read(chunked_image *ci, uint64_t off, void *buf, size_t len)
{
    uint8_t *out = buf;
    if (off > ci->size || len > ci->size - off)
        return -1;
    while (len) {
        uint32_t i = (uint32_t)(off / ci->chunk_bytes);
        size_t in = (size_t)(off % ci->chunk_bytes);
        size_t n = ci->chunk_bytes - in < len ? ci->chunk_bytes - in : len;
        int ok;
        const uint8_t *c = chunk_bytes(ci, i, &ok);
        if (!ok)
            return -1;
        if (c)
            memcpy(out, c + in, n);
        else
            memset(out, 0, n);
        off += n;
        out += n;
        len -= n;
    }
    return 0;
}

static int bd_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    return chunked_read(bd->ctx, off, buf, len);
}

static int bd_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    (void)bd, (void)off, (void)buf, (void)len;
    return -1;   /* read-only: a system writes into its overlay */
}

void blockdev_chunked(vax_blockdev *bd, chunked_image *ci)
{
    bd->ctx = ci;
    bd->size = ci->size;
    bd->read_only = 1;
    bd->read = bd_read;
    bd->write = bd_write;
}
