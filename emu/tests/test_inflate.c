/*
 * test_inflate.c — our DEFLATE decoder (storage/inflate.c) and the chunked
 * disk image (storage/chunked.c) against damaged input, natively, so that
 * `make test` runs it under ASan/UBSan as well: zlib's streams of every
 * block kind decode to their length and CRC-32; then every truncation of
 * them, thousands of copies with a few bytes or bits changed, and random
 * bytes, each decoded into a buffer of exactly the room given (so ASan sees
 * any read or write past either end): the decoder returns at most the room,
 * or -1 with a reason, never anything else.  A small chunked image is read
 * back byte for byte, then every truncation of its file and thousands of
 * damaged copies: each is refused when opened with a message, or its chunks
 * read as they were written or as -1 with the reason kept (chunked_error).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inflate_vectors.h"
#include "snapshot/snap.h"
#include "storage/chunked.h"
#include "storage/inflate.h"

static uint32_t seed = 20261126u;
static uint32_t rnd(uint32_t n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
}

/* Decodes in (in_len bytes, copied to a buffer of exactly that size) into
 * exactly cap bytes; checks the answer is a length within cap, or -1 with a
 * reason.  Returns what inflate_raw returned. */
static long decode(const uint8_t *in, size_t in_len, size_t cap, uint32_t *crc, const char *what, long n)
{
    uint8_t *src = malloc(in_len ? in_len : 1);
    uint8_t *out = malloc(cap ? cap : 1);
    if (!src || !out) {
        free(src);
        free(out);
        CHECK(0, "out of memory");
        return -1;
    }
    if (in_len)
        memcpy(src, in, in_len);
    const char *why = NULL;
    long got = inflate_raw(src, in_len, out, cap, &why);
    if (got < 0)
        CHECK(got == -1 && why && why[0], "%s #%ld: %ld with no reason", what, n, got);
    else
        CHECK((size_t)got <= cap, "%s #%ld: %ld bytes into %zu", what, n, got, cap);
    if (crc)
        *crc = got > 0 ? snap_crc32(0, out, (size_t)got) : 0;
    free(src);
    free(out);
    return got;
}

static void test_vectors(void)
{
    for (size_t v = 0; v < INFLATE_VECTOR_COUNT; v++) {
        const inflate_vector *t = &INFLATE_VECTORS[v];
        uint32_t crc;
        long got = decode(t->in, t->in_len, t->out_len, &crc, t->what, 0);
        CHECK(got == (long)t->out_len && crc == t->out_crc, "%s: %ld bytes, CRC %08x (want %zu, %08x)", t->what, got, crc,
              t->out_len, t->out_crc);
        /* One byte less room than it needs: refused, not written past. */
        got = decode(t->in, t->in_len, t->out_len - 1, NULL, t->what, 1);
        CHECK(got == -1, "%s into one byte too few: %ld", t->what, got);
        got = decode(t->in, t->in_len, t->out_len + 4096, &crc, t->what, 2);
        CHECK(got == (long)t->out_len && crc == t->out_crc, "%s with room to spare: %ld", t->what, got);
    }
}

static long truncations;
static void test_truncated(void)
{
    for (size_t v = 0; v < INFLATE_VECTOR_COUNT; v++) {
        const inflate_vector *t = &INFLATE_VECTORS[v];
        for (size_t len = 0; len < t->in_len; len++) {
            uint32_t crc;
            long got = decode(t->in, len, t->out_len, &crc, t->what, (long)len);
            /* Cut short, it may still decode a prefix of the data when a block ends there, never all of it right. */
            CHECK(!(got == (long)t->out_len && crc == t->out_crc) || len + 8 >= t->in_len,
                  "%s cut to %zu bytes decodes whole", t->what, len);
            truncations++;
        }
    }
}

static long damaged, damaged_ok;
static void test_damaged(int copies)
{
    for (int i = 0; i < copies; i++) {
        const inflate_vector *t = &INFLATE_VECTORS[rnd(INFLATE_VECTOR_COUNT)];
        uint8_t *in = malloc(t->in_len);
        if (!in)
            return;
        memcpy(in, t->in, t->in_len);
        for (int k = 1 + (int)rnd(4); k > 0; k--) {
            size_t at = rnd((uint32_t)t->in_len);
            if (rnd(2))
                in[at] ^= (uint8_t)(1u << rnd(8));   /* a bit flipped */
            else
                in[at] = (uint8_t)rnd(256);           /* a byte changed */
        }
        size_t cap = rnd(4) == 0 ? rnd((uint32_t)t->out_len + 1) : t->out_len;
        size_t len = rnd(8) == 0 ? rnd((uint32_t)t->in_len + 1) : t->in_len;
        if (decode(in, len, cap, NULL, t->what, i) >= 0)
            damaged_ok++;
        damaged++;
        free(in);
    }
    /* Bytes that were never DEFLATE. */
    for (int i = 0; i < copies / 2; i++) {
        size_t len = rnd(600);
        uint8_t *in = malloc(len ? len : 1);
        if (!in)
            return;
        for (size_t k = 0; k < len; k++)
            in[k] = (uint8_t)rnd(256);
        decode(in, len, rnd(70000), NULL, "random bytes", i);
        damaged++;
        free(in);
    }
}

/* Opens a copy of file (len bytes, in a buffer of exactly that size) and reads every chunk; checks each read
 * is right or an error with its reason.  intact: the header and index are as written, so what reads must be
 * the image's bytes.  Returns 1 when it opened. */
static uint8_t *pristine;
static long chunk_errors;
static int open_and_read(const uint8_t *file, size_t len, int intact, long n)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return 0;
    if (len)
        memcpy(copy, file, len);
    char err[160] = "";
    chunked_image *ci = chunked_open(copy, len, 1, err, sizeof err);
    if (!ci) {
        CHECK(err[0] != 0, "file #%ld refused with no message", n);
        free(copy);
        return 0;
    }
    uint64_t size = chunked_size(ci);
    const uint32_t piece = 65536;
    uint8_t *buf = malloc(piece);
    for (uint64_t at = 0; buf && at < size; at += piece) {
        size_t want = size - at < piece ? (size_t)(size - at) : piece;
        int r = chunked_read(ci, at, buf, want);
        if (r == 0) {
            if (intact && size == CHUNKED_FILE_IMAGE_BYTES)
                CHECK(memcmp(buf, pristine + at, want) == 0, "file #%ld: chunk at %llu reads wrong", n,
                      (unsigned long long)at);
        } else {
            CHECK(r == -1 && chunked_error(ci) != NULL, "file #%ld: read %d at %llu with no reason", n, r,
                  (unsigned long long)at);
            chunk_errors++;
        }
    }
    /* Out of range: refused. */
    if (buf)
        CHECK(chunked_read(ci, size, buf, 1) == -1, "file #%ld: a read past the end", n);
    free(buf);
    chunked_close(ci);
    return 1;
}

/* The same file opened by its header and index only (chunked_open_index), each chunk handed its stored bytes
 * (chunked_inflate_stored), as the workers that share the file do: each chunk decodes as written or is -1 with
 * the reason.  Returns 1 when it opened. */
static long index_errors;
static int open_index_and_inflate(const uint8_t *file, size_t len, int intact, long n)
{
    if (len < CHUNKED_HEADER_BYTES)
        return 0;
    uint32_t chunks = (uint32_t)(file[24] | file[25] << 8 | file[26] << 16 | (uint32_t)file[27] << 24);
    size_t head_len = CHUNKED_HEADER_BYTES + (size_t)(chunks < 64 ? chunks : 64) * CHUNKED_INDEX_ENTRY;
    if (head_len >= len)
        head_len = len - 1;
    uint8_t *head = malloc(head_len);
    if (!head)
        return 0;
    memcpy(head, file, head_len);
    char err[160] = "";
    chunked_image *ci = chunked_open_index(head, head_len, len, 1, err, sizeof err);
    if (!ci) {
        CHECK(err[0] != 0, "file #%ld: index refused with no message", n);
        free(head);
        return 0;
    }
    uint8_t *out = malloc(65536);
    for (uint32_t i = 0; out && i < chunked_chunks(ci); i++) {
        const uint8_t *e = file + CHUNKED_HEADER_BYTES + (size_t)i * CHUNKED_INDEX_ENTRY;
        uint64_t at = 0;
        for (int k = 0; k < 8; k++)
            at |= (uint64_t)e[k] << (8 * k);
        uint32_t stored = (uint32_t)(e[8] | e[9] << 8 | e[10] << 16 | (uint32_t)e[11] << 24);
        /* Opened, so the index says every chunk lies in the file. */
        CHECK(stored == 0 || (at <= len && stored <= len - at), "file #%ld: chunk %u outside the file opened", n, i);
        if (stored && !(at <= len && stored <= len - at))
            continue;
        uint8_t *src = malloc(stored ? stored : 1);
        memcpy(src, file + at, stored);
        int r = chunked_inflate_stored(ci, i, src, stored, out);
        size_t want = chunked_size(ci) - (uint64_t)i * 65536 < 65536 ? (size_t)(chunked_size(ci) - (uint64_t)i * 65536) : 65536;
        if (r == 0 && intact && chunked_size(ci) == CHUNKED_FILE_IMAGE_BYTES)
            CHECK(memcmp(out, pristine + (size_t)i * 65536, want) == 0, "file #%ld: chunk %u inflates wrong", n, i);
        if (r < 0) {
            CHECK(r == -1 && chunked_error(ci) != NULL, "file #%ld: chunk %u %d with no reason", n, i, r);
            index_errors++;
        }
        /* Stored bytes of another length than the index's: refused. */
        if (stored > 1)
            CHECK(chunked_inflate_stored(ci, i, src, stored - 1, out) == -1, "file #%ld: chunk %u short stored bytes", n, i);
        free(src);
    }
    /* Only the index here: a plain read of a stored chunk (the intact file's chunk 1) has nothing to read from. */
    if (out && n == -1)
        CHECK(chunked_read(ci, 65536, out, 512) == -1 && chunked_error(ci) != NULL, "a read with only the index");
    free(out);
    chunked_close(ci);
    return 1;
}

static void test_chunked(int copies)
{
    size_t len = sizeof CHUNKED_FILE;
    char err[160];
    uint8_t *copy = malloc(len);
    memcpy(copy, CHUNKED_FILE, len);
    chunked_image *ci = chunked_open(copy, len, 1, err, sizeof err);
    CHECK(ci != NULL, "the chunked image does not open: %s", err);
    if (!ci)
        return;
    CHECK(chunked_size(ci) == CHUNKED_FILE_IMAGE_BYTES, "its size");
    pristine = malloc(CHUNKED_FILE_IMAGE_BYTES);
    CHECK(chunked_read(ci, 0, pristine, CHUNKED_FILE_IMAGE_BYTES) == 0, "it does not read: %s",
          chunked_error(ci) ? chunked_error(ci) : "");
    CHECK(snap_crc32(0, pristine, CHUNKED_FILE_IMAGE_BYTES) == CHUNKED_FILE_IMAGE_CRC, "it reads back wrong");
    chunked_close(ci);

    CHECK(open_index_and_inflate(CHUNKED_FILE, len, 1, -1) == 1, "its index does not open");
    CHECK(index_errors == 0, "its chunks do not inflate from their stored bytes");
    long opened = 0;
    for (size_t cut = 0; cut < len; cut++)
        opened += open_and_read(CHUNKED_FILE, cut, 1, (long)cut);
    CHECK(opened < (long)len, "every truncation opened");

    const size_t meta = CHUNKED_HEADER_BYTES + 5 * CHUNKED_INDEX_ENTRY;
    long opened_damaged = 0, errors_before = chunk_errors;
    uint8_t *f = malloc(len);
    for (int i = 0; i < copies; i++) {
        memcpy(f, CHUNKED_FILE, len);
        int intact = 1;
        for (int k = 1 + (int)rnd(4); k > 0; k--) {
            size_t at = rnd(10) == 0 ? rnd((uint32_t)meta) : rnd((uint32_t)len);
            uint8_t old = f[at];
            f[at] = rnd(2) ? (uint8_t)(old ^ (1u << rnd(8))) : (uint8_t)rnd(256);
            if (at < meta && f[at] != old)
                intact = 0;
        }
        opened_damaged += open_and_read(f, len, intact, i);
        open_index_and_inflate(f, len, intact, i);
    }
    free(f);
    printf("chunked image: %zu truncations (%ld opened), %d damaged copies (%ld opened, %ld chunk reads refused; "
           "by the index: %ld chunks refused)\n", len, opened, copies, opened_damaged, chunk_errors - errors_before,
           index_errors);
    CHECK(opened_damaged > copies / 10 && chunk_errors - errors_before > copies / 10,
          "the damage reached both checks: %ld opened, %ld read errors", opened_damaged, chunk_errors - errors_before);
    free(pristine);
}

int main(void)
{
    test_vectors();
    test_truncated();
    test_damaged(6000);
    printf("inflate: %zu streams, %ld truncations, %ld damaged or random inputs (%ld decoded something)\n",
           (size_t)INFLATE_VECTOR_COUNT, truncations, damaged, damaged_ok);
    test_chunked(4000);
    return check_summary();
}
