/*
 * snap.c — the snapshot file: its header, sections, fields, events and
 * memory (snap.h).
 */
#include "snapshot/snap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VAX_BUILD_ID_BYTES: the SHA-256 of the emulator's sources as a C
 * initializer, written by the Makefile into build/gen/build_id.h. */
#include "build_id.h"
#include "le.h"

static const char SNAP_MAGIC[8] = {'V', 'A', 'X', 'S', 'N', 'A', 'P', 0};
static const uint8_t BUILD_ID[SNAP_ID_BYTES] = VAX_BUILD_ID_BYTES;

#define MEM_PAGE 4096u

struct vax_snap {
    int restoring;
    int failed;
    char err[240];
    vax_machine *m;
    uint8_t disk_id[SNAP_ID_BYTES];

    /* Saving: the file so far, the header's room first. */
    uint8_t *buf;
    size_t len, cap;
    size_t section_at;        /* where the open section's length goes; 0 = none */
    uint32_t events_saved;    /* pending events snap_event saved */

    /* Restoring: the payload and where we are in it. */
    const uint8_t *in;
    size_t in_len, pos;
    size_t section_end;       /* the open section's end; 0 = none */
    int nevents;              /* the machine's pending events, as saved */
    uint8_t event_placed[MAX_EVENTS];
};

/* ------------------------------------------------------------- helpers */

const uint8_t *snap_build_id(void) { return BUILD_ID; }

void snap_id_hex(const uint8_t id[SNAP_ID_BYTES], char out[2 * SNAP_ID_BYTES + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < SNAP_ID_BYTES; i++) {
        out[2 * i] = digits[id[i] >> 4];
        out[2 * i + 1] = digits[id[i] & 15];
    }
    out[2 * SNAP_ID_BYTES] = 0;
}

uint32_t snap_crc32(uint32_t crc, const void *data, size_t n)
{
    /* Slicing by eight: table[k][b] is the CRC of byte b followed by k zero
     * bytes, so eight bytes fold in with eight look-ups that do not wait on
     * each other: half the byte-at-a-time loop's host instructions and a
     * quarter to a third of its time (docs/speed.md, round twenty-three),
     * which matters because every snapshot restore and every disk chunk
     * read checks its whole payload.  The tables are made on each call
     * (about 4,000 steps): no state outside the caller's, and short inputs
     * skip the seven derived tables. */
    uint32_t table[8][256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    const uint8_t *p = data;
    crc = ~crc;
    if (n >= 1024) {
        for (uint32_t i = 0; i < 256; i++)
            for (int k = 1; k < 8; k++)
                table[k][i] = table[0][table[k - 1][i] & 0xFF] ^ (table[k - 1][i] >> 8);
        for (; n >= 8; n -= 8, p += 8) {
            uint32_t lo = crc ^ le32_get(p), hi = le32_get(p + 4);
            crc = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24]
                ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
        }
    }
    for (; n > 0; n--, p++)
        crc = table[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void snap_fail(vax_snap *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
}

int snap_restoring(const vax_snap *s) { return s->restoring; }
int snap_failed(const vax_snap *s) { return s->failed; }
const char *snap_error(const vax_snap *s) { return s->err; }
vax_machine *snap_machine(const vax_snap *s) { return s->m; }

void snap_free(vax_snap *s)
{
    if (!s)
        return;
    free(s->buf);
    free(s);
}

/* ------------------------------------------------------------ raw bytes */

/* Room for n more bytes of output. */
static uint8_t *out_room(vax_snap *s, size_t n)
{
    if (s->failed)
        return NULL;
    if (s->cap - s->len < n) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap - s->len < n) {
            if (cap > SIZE_MAX / 2) {
                snap_fail(s, "snapshot too large");
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *b = realloc(s->buf, cap);
        if (!b) {
            snap_fail(s, "out of host memory for the snapshot");
            return NULL;
        }
        s->buf = b;
        s->cap = cap;
    }
    uint8_t *p = s->buf + s->len;
    s->len += n;
    return p;
}

/* The next n bytes of input, within the open section. */
static const uint8_t *in_take(vax_snap *s, size_t n)
{
    if (s->failed)
        return NULL;
    size_t end = s->section_end ? s->section_end : s->in_len;
    if (end - s->pos < n) {
        snap_fail(s, "snapshot damaged: a section ends early");
        return NULL;
    }
    const uint8_t *p = s->in + s->pos;
    s->pos += n;
    return p;
}

/* A little-endian integer of n bytes: out of *v, or into it. */
static void field(vax_snap *s, uint64_t *v, int n)
{
    if (s->restoring) {
        const uint8_t *p = in_take(s, (size_t)n);
        *v = p ? get_le(p, n) : 0;
    } else {
        uint8_t *p = out_room(s, (size_t)n);
        if (p)
            put_le(p, *v, n);
    }
}

/* ------------------------------------------------------------- fields */

void snap_u8(vax_snap *s, uint8_t *v)
{
    uint64_t x = *v;
    field(s, &x, 1);
    if (s->restoring && !s->failed)
        *v = (uint8_t)x;
}

void snap_u16(vax_snap *s, uint16_t *v)
{
    uint64_t x = *v;
    field(s, &x, 2);
    if (s->restoring && !s->failed)
        *v = (uint16_t)x;
}

void snap_u32(vax_snap *s, uint32_t *v)
{
    uint64_t x = *v;
    field(s, &x, 4);
    if (s->restoring && !s->failed)
        *v = (uint32_t)x;
}

void snap_u64(vax_snap *s, uint64_t *v)
{
    uint64_t x = *v;
    field(s, &x, 8);
    if (s->restoring && !s->failed)
        *v = x;
}

void snap_i8(vax_snap *s, int8_t *v)
{
    uint8_t x = (uint8_t)*v;
    snap_u8(s, &x);
    if (s->restoring && !s->failed)
        *v = (int8_t)x;
}

void snap_int(vax_snap *s, int *v, int min, int max)
{
    uint32_t x = (uint32_t)*v;
    snap_u32(s, &x);
    if (!s->restoring || s->failed)
        return;
    int32_t y = (int32_t)x;
    if (y < min || y > max) {
        snap_fail(s, "snapshot damaged: a value %ld outside %d..%d", (long)y, min, max);
        return;
    }
    *v = (int)y;
}

void snap_u16_array(vax_snap *s, uint16_t *v, size_t n)
{
    for (size_t i = 0; i < n && !s->failed; i++)
        snap_u16(s, &v[i]);
}

void snap_u32_array(vax_snap *s, uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n && !s->failed; i++)
        snap_u32(s, &v[i]);
}

void snap_u64_array(vax_snap *s, uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n && !s->failed; i++)
        snap_u64(s, &v[i]);
}

void snap_bytes(vax_snap *s, void *v, size_t n)
{
    if (s->restoring) {
        const uint8_t *p = in_take(s, n);
        if (p && n)
            memcpy(v, p, n);
    } else {
        uint8_t *p = out_room(s, n);
        if (p && n)
            memcpy(p, v, n);
    }
}

void snap_string(vax_snap *s, char *v, size_t cap)
{
    uint32_t n = s->restoring ? 0 : (uint32_t)strnlen(v, cap ? cap - 1 : 0);
    snap_u32(s, &n);
    if (s->failed)
        return;
    if (s->restoring && (cap == 0 || n > cap - 1)) {
        snap_fail(s, "snapshot damaged: a text of %u bytes where %zu fit", n, cap ? cap - 1 : 0);
        return;
    }
    snap_bytes(s, v, n);
    if (s->restoring && !s->failed)
        v[n] = 0;
}

void snap_blob(vax_snap *s, uint8_t **data, uint32_t *len, uint32_t max)
{
    uint32_t n = *len;
    snap_u32(s, &n);
    if (s->failed)
        return;
    if (!s->restoring) {
        snap_bytes(s, *data, n);
        return;
    }
    if (n > max) {
        snap_fail(s, "snapshot damaged: %u bytes of data where at most %u fit", n, max);
        return;
    }
    uint8_t *p = NULL;
    if (n) {
        const uint8_t *src = in_take(s, n);
        if (!src)
            return;
        if (!(p = malloc(n))) {
            snap_fail(s, "out of host memory restoring the snapshot");
            return;
        }
        memcpy(p, src, n);
    }
    *data = p;
    *len = n;
}

void snap_same_u32(vax_snap *s, uint32_t live, const char *what)
{
    uint32_t v = live;
    snap_u32(s, &v);
    if (s->restoring && !s->failed && v != live)
        snap_fail(s, "%s: the snapshot's is %u, this system's %u", what, v, live);
}

void snap_same_u64(vax_snap *s, uint64_t live, const char *what)
{
    uint64_t v = live;
    snap_u64(s, &v);
    if (s->restoring && !s->failed && v != live)
        snap_fail(s, "%s: the snapshot's is %llu, this system's %llu", what, (unsigned long long)v,
                  (unsigned long long)live);
}

void snap_same_string(vax_snap *s, const char *live, const char *what)
{
    char v[160];
    snprintf(v, sizeof v, "%s", live ? live : "");
    snap_string(s, v, sizeof v);
    if (s->restoring && !s->failed && strcmp(v, live ? live : "") != 0)
        snap_fail(s, "%s: the snapshot's is \"%s\", this system's \"%s\"", what, v, live ? live : "");
}

/* ------------------------------------------------------------- sections */

void snap_begin(vax_snap *s, const char tag[4])
{
    if (s->failed)
        return;
    if (s->restoring) {
        const uint8_t *p = in_take(s, 8);
        if (!p)
            return;
        if (memcmp(p, tag, 4) != 0) {
            snap_fail(s, "snapshot damaged: section \"%.4s\" where \"%.4s\" belongs", (const char *)p, tag);
            return;
        }
        uint64_t n = get_le(p + 4, 4);
        if (n > s->in_len - s->pos) {
            snap_fail(s, "snapshot damaged: section \"%.4s\" runs past the end", tag);
            return;
        }
        s->section_end = s->pos + (size_t)n;
    } else {
        uint8_t *p = out_room(s, 8);
        if (!p)
            return;
        memcpy(p, tag, 4);
        s->section_at = s->len - 4;
    }
}

void snap_end(vax_snap *s)
{
    if (s->failed)
        return;
    if (s->restoring) {
        if (s->pos != s->section_end) {
            snap_fail(s, "snapshot damaged: %zu bytes left over in a section", s->section_end - s->pos);
            return;
        }
        s->section_end = 0;
    } else {
        size_t n = s->len - s->section_at - 4;
        if (n > UINT32_MAX) {
            snap_fail(s, "snapshot section too large");
            return;
        }
        put_le(s->buf + s->section_at, n, 4);
        s->section_at = 0;
    }
}

/* --------------------------------------------------------------- events */

void snap_event(vax_snap *s, vax_event *e)
{
    vax_machine *m = s->m;
    uint32_t slot = UINT32_MAX;   /* not pending */
    uint64_t when = e->when_ns;
    if (!s->restoring && e->pending) {
        for (int i = 0; i < m->nevents; i++)
            if (m->events[i] == e)
                slot = (uint32_t)i;
        if (slot == UINT32_MAX) {
            snap_fail(s, "internal: a pending event is not in the machine's list");
            return;
        }
        s->events_saved++;
    }
    snap_u32(s, &slot);
    snap_u64(s, &when);
    if (!s->restoring || s->failed)
        return;
    e->when_ns = when;
    e->pending = 0;
    if (slot == UINT32_MAX)
        return;
    if (slot >= (uint32_t)s->nevents || s->event_placed[slot]) {
        snap_fail(s, "snapshot damaged: event slot %u", slot);
        return;
    }
    s->event_placed[slot] = 1;
    m->events[slot] = e;
    e->pending = 1;
}

/* The machine's part of the event list: how many are pending. */
void snap_event_count(vax_snap *s)
{
    vax_machine *m = s->m;
    uint32_t n = (uint32_t)m->nevents;
    snap_u32(s, &n);
    if (!s->restoring || s->failed)
        return;
    if (n > MAX_EVENTS) {
        snap_fail(s, "snapshot damaged: %u pending events", n);
        return;
    }
    s->nevents = (int)n;
    m->nevents = (int)n;
    for (int i = 0; i < MAX_EVENTS; i++)
        m->events[i] = NULL;
    memset(s->event_placed, 0, sizeof s->event_placed);
}

/* --------------------------------------------------------------- memory */

static int page_is_zero(const uint8_t *p)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < MEM_PAGE; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    return acc == 0;
}

void snap_memory(vax_snap *s, uint8_t *mem, uint32_t size)
{
    snap_same_u32(s, size, "memory bytes");
    if (s->failed)
        return;
    if (size % MEM_PAGE) {
        snap_fail(s, "memory of %u bytes is not whole pages", size);
        return;
    }
    uint32_t pages = size / MEM_PAGE;
    /* A bitmap of the pages stored (not all zeros), then those pages. */
    uint32_t map_bytes = (pages + 7) / 8;
    uint8_t *map = calloc(map_bytes ? map_bytes : 1, 1);
    if (!map) {
        snap_fail(s, "out of host memory for the snapshot");
        return;
    }
    if (!s->restoring)
        for (uint32_t i = 0; i < pages; i++)
            if (!page_is_zero(mem + (size_t)i * MEM_PAGE))
                map[i / 8] |= (uint8_t)(1u << (i % 8));
    snap_bytes(s, map, map_bytes);
    for (uint32_t i = 0; i < pages && !s->failed; i++) {
        uint8_t *p = mem + (size_t)i * MEM_PAGE;
        if (map[i / 8] & (1u << (i % 8)))
            snap_bytes(s, p, MEM_PAGE);
        else if (s->restoring)
            memset(p, 0, MEM_PAGE);
    }
    free(map);
}

/* ----------------------------------------------------------- the file */

vax_snap *snap_save_begin(vax_machine *m, const uint8_t disk_id[SNAP_ID_BYTES])
{
    vax_snap *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    if (disk_id)
        memcpy(s->disk_id, disk_id, SNAP_ID_BYTES);
    out_room(s, SNAP_HEADER_BYTES);   /* filled in by snap_save_finish */
    return s;
}

uint8_t *snap_save_finish(vax_snap *s, size_t *len, char *err, size_t errlen)
{
    *len = 0;
    if (!s->failed && s->events_saved != (uint32_t)s->m->nevents)
        snap_fail(s, "internal: %d events pending, %u of them saved by their devices", s->m->nevents, s->events_saved);
    if (s->failed) {
        snprintf(err, errlen, "%s", s->err);
        snap_free(s);
        return NULL;
    }
    uint8_t *h = s->buf;
    memset(h, 0, SNAP_HEADER_BYTES);
    memcpy(h, SNAP_MAGIC, 8);
    put_le(h + 8, SNAP_FORMAT_VERSION, 4);
    put_le(h + 12, SNAP_HEADER_BYTES, 4);
    memcpy(h + 16, BUILD_ID, SNAP_ID_BYTES);
    memcpy(h + 48, s->disk_id, SNAP_ID_BYTES);
    put_le(h + 80, s->len - SNAP_HEADER_BYTES, 8);
    put_le(h + 88, snap_crc32(0, h + SNAP_HEADER_BYTES, s->len - SNAP_HEADER_BYTES), 4);
    put_le(h + 92, snap_crc32(0, h, 92), 4);
    uint8_t *out = s->buf;
    *len = s->len;
    s->buf = NULL;
    snap_free(s);
    return out;
}

vax_snap *snap_restore_begin(vax_machine *m, const uint8_t *buf, size_t len, const uint8_t disk_id[SNAP_ID_BYTES],
                             char *err, size_t errlen)
{
    char a[2 * SNAP_ID_BYTES + 1], b[2 * SNAP_ID_BYTES + 1];
    uint8_t zero[SNAP_ID_BYTES] = {0};
    if (!buf || len < SNAP_HEADER_BYTES || memcmp(buf, SNAP_MAGIC, 8) != 0) {
        snprintf(err, errlen, "not a vaxlab machine snapshot");
        return NULL;
    }
    if (get_le(buf + 92, 4) != snap_crc32(0, buf, 92)) {
        snprintf(err, errlen, "snapshot damaged: its header's checksum is wrong");
        return NULL;
    }
    uint32_t version = (uint32_t)get_le(buf + 8, 4);
    if (version != SNAP_FORMAT_VERSION || get_le(buf + 12, 4) != SNAP_HEADER_BYTES) {
        snprintf(err, errlen, "snapshot format %u; this emulator reads format %u", version, SNAP_FORMAT_VERSION);
        return NULL;
    }
    if (memcmp(buf + 16, BUILD_ID, SNAP_ID_BYTES) != 0) {
        snap_id_hex(buf + 16, a);
        snap_id_hex(BUILD_ID, b);
        snprintf(err, errlen, "snapshot made by another emulator build (%.12s…, this one is %.12s…): make it again", a, b);
        return NULL;
    }
    if (memcmp(buf + 48, disk_id ? disk_id : zero, SNAP_ID_BYTES) != 0) {
        snap_id_hex(buf + 48, a);
        snap_id_hex(disk_id ? disk_id : zero, b);
        snprintf(err, errlen, "snapshot of another disk image (sha256 %.16s…, this system's is %.16s…)", a, b);
        return NULL;
    }
    uint64_t payload = get_le(buf + 80, 8);
    if (payload != len - SNAP_HEADER_BYTES) {
        snprintf(err, errlen, "snapshot damaged: %zu bytes, its header says %llu", len,
                 (unsigned long long)(payload + SNAP_HEADER_BYTES));
        return NULL;
    }
    if (get_le(buf + 88, 4) != snap_crc32(0, buf + SNAP_HEADER_BYTES, (size_t)payload)) {
        snprintf(err, errlen, "snapshot damaged: its checksum is wrong");
        return NULL;
    }
    vax_snap *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory");
        return NULL;
    }
    s->restoring = 1;
    s->m = m;
    s->in = buf + SNAP_HEADER_BYTES;
    s->in_len = (size_t)payload;
    /* The new system's own pending events go: the snapshot's take their place. */
    while (m->nevents > 0)
        machine_event_cancel(m, m->events[m->nevents - 1]);
    return s;
}

int snap_restore_finish(vax_snap *s, char *err, size_t errlen)
{
    if (!s->failed && s->pos != s->in_len)
        snap_fail(s, "snapshot damaged: %zu bytes after its last section", s->in_len - s->pos);
    for (int i = 0; i < s->nevents && !s->failed; i++)
        if (!s->event_placed[i])
            snap_fail(s, "snapshot damaged: pending event %d belongs to no device", i);
    int rc = s->failed ? -1 : 0;
    if (rc) {
        snprintf(err, errlen, "%s", s->err);
        /* The list may have holes: leave none behind for whoever tears the
         * half-restored system down. */
        s->m->nevents = 0;
    }
    snap_free(s);
    return rc;
}
