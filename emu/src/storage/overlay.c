/*
 * overlay.c — the copy-on-write block device of overlay.h.
 *
 * A table with one pointer per OVERLAY_CHUNK of the device: NULL means
 * "still the base's bytes", otherwise the chunk's private copy.  The disk
 * controllers transfer a sector (512 bytes) at a time, so almost every
 * access falls inside one chunk; the loops below still handle any offset
 * and length.
 */
#include "storage/overlay.h"

#include <stdlib.h>
#include <string.h>

#include "snapshot/snap.h"

typedef struct {
    const vax_blockdev *base;
    uint64_t base_size;   /* bytes the base has; the device beyond them reads as zeros */
    uint64_t nchunks;
    uint8_t **chunk;   /* nchunks entries, NULL = clean */
    uint64_t dirty;    /* bytes in allocated chunks */
} overlay;

/* Read [off, off + len) of the device's clean bytes: the base's, zeros
 * past its end. */
static int base_read(const overlay *o, uint64_t off, uint8_t *buf, size_t len)
{
    size_t from_base = 0;
    if (off < o->base_size)
        from_base = o->base_size - off < len ? (size_t)(o->base_size - off) : len;
    if (from_base && o->base->read(o->base, off, buf, from_base) != 0)
        return -1;
    memset(buf + from_base, 0, len - from_base);
    return 0;
}

/* The length of chunk i: OVERLAY_CHUNK except for a short last one. */
static size_t chunk_len(uint64_t size, uint64_t i)
{
    uint64_t left = size - i * OVERLAY_CHUNK;
    return left < OVERLAY_CHUNK ? (size_t)left : OVERLAY_CHUNK;
}

static int overlay_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    const overlay *o = bd->ctx;
    uint8_t *out = buf;
    if (!o || off > bd->size || len > bd->size - off)
        return -1;
    /* Consecutive clean chunks are read from the base in one call: a
     * file-backed base pays for each call, a memory one does not care. */
    uint64_t clean_off = off;
    size_t clean_len = 0;
    while (len) {
        uint64_t i = off / OVERLAY_CHUNK;
        size_t in = (size_t)(off % OVERLAY_CHUNK);
        size_t n = OVERLAY_CHUNK - in < len ? OVERLAY_CHUNK - in : len;
        if (o->chunk[i]) {
            if (clean_len && base_read(o, clean_off, out - clean_len, clean_len) != 0)
                return -1;
            clean_len = 0;
            memcpy(out, o->chunk[i] + in, n);
        } else {
            if (clean_len == 0)
                clean_off = off;
            clean_len += n;
        }
        off += n;
        out += n;
        len -= n;
    }
    if (clean_len && base_read(o, clean_off, out - clean_len, clean_len) != 0)
        return -1;
    return 0;
}

/* Give chunk i its private copy.  When the write about to happen covers
 * the whole chunk, the base's bytes would only be overwritten, so they are
 * not read. */
static int chunk_copy(overlay *o, uint64_t size, uint64_t i, int whole)
{
    size_t n = chunk_len(size, i);
    uint8_t *c = malloc(n);
    if (!c)
        return -1;
    if (!whole && base_read(o, i * OVERLAY_CHUNK, c, n) != 0) {
        free(c);
        return -1;
    }
    o->chunk[i] = c;
    o->dirty += n;
    return 0;
}

/* On an allocation or base read error part of the range may already be
 * written, as with a real disk failing in mid-transfer; the caller sees -1. */
static int overlay_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    overlay *o = bd->ctx;
    const uint8_t *in_buf = buf;
    if (!o || off > bd->size || len > bd->size - off)
        return -1;
    while (len) {
        uint64_t i = off / OVERLAY_CHUNK;
        size_t in = (size_t)(off % OVERLAY_CHUNK);
        size_t n = OVERLAY_CHUNK - in < len ? OVERLAY_CHUNK - in : len;
        if (!o->chunk[i] && chunk_copy(o, bd->size, i, in == 0 && n == chunk_len(bd->size, i)) != 0)
            return -1;
        memcpy(o->chunk[i] + in, in_buf, n);
        off += n;
        in_buf += n;
        len -= n;
    }
    return 0;
}

int blockdev_overlay(vax_blockdev *bd, const vax_blockdev *base)
{
    return blockdev_overlay_sized(bd, base, base ? base->size : 0);
}

int blockdev_overlay_sized(vax_blockdev *bd, const vax_blockdev *base, uint64_t size)
{
    memset(bd, 0, sizeof *bd);
    bd->read = overlay_read;
    bd->write = overlay_write;
    if (!base || size < base->size)
        return -1;
    uint64_t nchunks = size / OVERLAY_CHUNK + (size % OVERLAY_CHUNK != 0);
    if (nchunks > SIZE_MAX / sizeof(uint8_t *))   /* only reachable on a 32-bit host */
        return -1;
    overlay *o = calloc(1, sizeof *o);
    /* calloc(0, ...) may return NULL: an empty device still gets a table. */
    uint8_t **table = calloc(nchunks ? (size_t)nchunks : 1, sizeof *table);
    if (!o || !table) {
        free(o);
        free(table);
        return -1;
    }
    o->base = base;
    o->base_size = base->size;
    o->nchunks = nchunks;
    o->chunk = table;
    bd->ctx = o;
    bd->size = size;
    bd->read_only = 0;   /* the whole point: writable over a base that is not */
    return 0;
}

void blockdev_overlay_destroy(vax_blockdev *bd)
{
    overlay *o = bd->ctx;
    if (!o)
        return;
    for (uint64_t i = 0; i < o->nchunks; i++)
        free(o->chunk[i]);
    free(o->chunk);
    free(o);
    bd->ctx = NULL;
}

uint64_t blockdev_overlay_dirty_bytes(const vax_blockdev *bd)
{
    const overlay *o = bd->ctx;
    return o ? o->dirty : 0;
}

int blockdev_is_overlay(const vax_blockdev *bd) { return bd && bd->read == overlay_read && bd->ctx; }

void blockdev_overlay_snap(vax_blockdev *bd, vax_snap *s)
{
    overlay *o = bd->ctx;
    snap_same_u64(s, bd->size, "disk bytes");
    snap_same_u64(s, o->base_size, "disk image bytes");
    uint32_t n = 0;
    if (!snap_restoring(s))
        for (uint64_t i = 0; i < o->nchunks; i++)
            n += o->chunk[i] != NULL;
    snap_u32(s, &n);
    if (snap_failed(s))
        return;
    if (snap_restoring(s)) {
        if (n > o->nchunks) {
            snap_fail(s, "snapshot damaged: %u written chunks of a %llu-chunk disk", n, (unsigned long long)o->nchunks);
            return;
        }
        for (uint64_t i = 0; i < o->nchunks; i++) {
            free(o->chunk[i]);
            o->chunk[i] = NULL;
        }
        o->dirty = 0;
    }
    uint64_t next = 0;   /* chunks come in increasing order */
    for (uint32_t k = 0; k < n && !snap_failed(s); k++) {
        uint64_t i = 0;
        if (!snap_restoring(s)) {
            while (!o->chunk[next])
                next++;
            i = next++;
        }
        snap_u64(s, &i);
        if (snap_failed(s))
            return;
        if (snap_restoring(s)) {
            if (i < next || i >= o->nchunks) {
                snap_fail(s, "snapshot damaged: written chunk %llu", (unsigned long long)i);
                return;
            }
            next = i + 1;
            if (!(o->chunk[i] = malloc(chunk_len(bd->size, i)))) {
                snap_fail(s, "out of host memory restoring the disk");
                return;
            }
            o->dirty += chunk_len(bd->size, i);
        }
        snap_bytes(s, o->chunk[i], chunk_len(bd->size, i));
    }
}
