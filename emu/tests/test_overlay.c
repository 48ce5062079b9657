/*
 * test_overlay.c — the copy-on-write block device (storage/overlay.h):
 * reads and writes at any offset and length, across chunk boundaries,
 * agree with a plain copy of the disk; the base is never written; ranges
 * past the end are refused; overlays over one base do not see each other;
 * writing a whole chunk does not read it from the base first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/blockdev.h"
#include "storage/overlay.h"

#include "check.h"

#define CH OVERLAY_CHUNK
/* Three whole chunks and a short last one, so the short chunk is tested. */
#define SIZE (3u * CH + 1000u)

/* A base that counts its reads and can be told to fail, around a memory
 * block device. */
typedef struct {
    vax_blockdev mem;
    int reads;
    int fail;
} counting;

static int counting_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    counting *c = bd->ctx;
    c->reads++;
    if (c->fail)
        return -1;
    return c->mem.read(&c->mem, off, buf, len);
}

static int never_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    (void)bd, (void)off, (void)buf, (void)len;
    return -1;
}

static void counting_base(vax_blockdev *bd, counting *c, uint8_t *bytes, uint64_t size)
{
    memset(c, 0, sizeof *c);
    blockdev_memory(&c->mem, bytes, size, 1);
    bd->ctx = c;
    bd->size = size;
    bd->read_only = 1;
    bd->read = counting_read;
    bd->write = never_write;
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)lcg(&seed);
}

/* The overlay reads back exactly model[0..SIZE). */
static int same_as(const vax_blockdev *ov, const uint8_t *model, uint8_t *scratch)
{
    return ov->read(ov, 0, scratch, SIZE) == 0 && memcmp(scratch, model, SIZE) == 0;
}

static void test_unaligned_across_chunks(void)
{
    uint8_t *base_bytes = malloc(SIZE), *pristine = malloc(SIZE), *model = malloc(SIZE), *scratch = malloc(SIZE);
    CHECK(base_bytes && pristine && model && scratch, "malloc");
    if (!base_bytes || !pristine || !model || !scratch)
        goto out;
    fill(base_bytes, SIZE, 1);
    memcpy(pristine, base_bytes, SIZE);
    memcpy(model, base_bytes, SIZE);
    vax_blockdev base, ov;
    counting cnt;
    counting_base(&base, &cnt, base_bytes, SIZE);
    CHECK(blockdev_overlay(&ov, &base) == 0, "blockdev_overlay failed");
    CHECK(ov.size == SIZE && !ov.read_only, "size %llu, read_only %d", (unsigned long long)ov.size, ov.read_only);
    CHECK(same_as(&ov, model, scratch), "a fresh overlay does not read as its base");
    CHECK(blockdev_overlay_dirty_bytes(&ov) == 0, "dirty before any write");
    /* The whole-device read above found every chunk clean: one base read. */
    CHECK(cnt.reads == 1, "clean stretch read in %d base calls, expected 1", cnt.reads);

    /* 300 bytes straddling the first chunk boundary, at an odd offset. */
    uint8_t data[300];
    fill(data, sizeof data, 2);
    CHECK(ov.write(&ov, CH - 101, data, sizeof data) == 0, "straddling write refused");
    memcpy(model + CH - 101, data, sizeof data);
    CHECK(same_as(&ov, model, scratch), "straddling write reads back wrong (or disturbed its neighbours)");
    CHECK(blockdev_overlay_dirty_bytes(&ov) == 2u * CH, "dirty %llu after touching 2 chunks",
          (unsigned long long)blockdev_overlay_dirty_bytes(&ov));

    /* Short reads inside, across and beside the written bytes. */
    static const struct { uint64_t off; size_t len; } reads[] = {
        {CH - 101, 300}, {CH - 102, 302}, {CH - 1, 2}, {0, 1}, {CH - 5000, 10000}, {2 * CH - 3, 7}, {SIZE - 1, 1},
    };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
        CHECK(ov.read(&ov, reads[k].off, scratch, reads[k].len) == 0 && memcmp(scratch, model + reads[k].off, reads[k].len) == 0,
              "read %llu+%zu", (unsigned long long)reads[k].off, reads[k].len);
    }

    /* One byte in the short last chunk: dirty counts its real length. */
    uint8_t b = 0x5a;
    CHECK(ov.write(&ov, SIZE - 1, &b, 1) == 0, "last byte write refused");
    model[SIZE - 1] = b;
    CHECK(blockdev_overlay_dirty_bytes(&ov) == 2u * CH + 1000u, "dirty %llu with the short chunk",
          (unsigned long long)blockdev_overlay_dirty_bytes(&ov));

    /* Past the end: refused, and nothing changes. */
    uint64_t dirty = blockdev_overlay_dirty_bytes(&ov);
    CHECK(ov.read(&ov, SIZE - 10, scratch, 20) == -1, "read past the end accepted");
    CHECK(ov.write(&ov, SIZE - 10, data, 20) == -1, "write past the end accepted");
    CHECK(ov.write(&ov, SIZE + 1, data, 0) == -1, "empty write beyond the end accepted");
    CHECK(ov.read(&ov, UINT64_MAX, scratch, 2) == -1, "read at 2^64-1 accepted");
    CHECK(ov.write(&ov, UINT64_MAX - 1, data, 4) == -1, "write wrapping past 2^64 accepted");
    CHECK(ov.read(&ov, SIZE, scratch, 0) == 0, "empty read at the end refused");
    CHECK(blockdev_overlay_dirty_bytes(&ov) == dirty, "a refused write dirtied chunks");
    CHECK(same_as(&ov, model, scratch), "a refused write changed the device");

    /* Random writes and reads against a plain copy. */
    uint32_t s = 7;
    for (int k = 0; k < 3000; k++) {
        uint64_t off = lcg(&s) % SIZE;
        size_t len = (size_t)(lcg(&s) % (k % 10 == 0 ? 3 * CH : 1500));
        if (len > SIZE - off)
            len = (size_t)(SIZE - off);
        if (lcg(&s) & 1) {
            uint8_t *src = scratch;
            fill(src, len, (uint32_t)k);
            CHECK(ov.write(&ov, off, src, len) == 0, "random write %llu+%zu", (unsigned long long)off, len);
            memcpy(model + off, src, len);
        } else {
            CHECK(ov.read(&ov, off, scratch, len) == 0 && memcmp(scratch, model + off, len) == 0,
                  "random read %llu+%zu", (unsigned long long)off, len);
        }
    }
    CHECK(same_as(&ov, model, scratch), "after random writes");
    CHECK(memcmp(base_bytes, pristine, SIZE) == 0, "the base was written");

    /* A second overlay over the same base sees the base, not the first's writes. */
    vax_blockdev ov2;
    CHECK(blockdev_overlay(&ov2, &base) == 0, "second overlay");
    CHECK(same_as(&ov2, pristine, scratch), "second overlay sees the first one's writes");
    blockdev_overlay_destroy(&ov2);

    blockdev_overlay_destroy(&ov);
    blockdev_overlay_destroy(&ov);   /* twice: harmless */
    CHECK(ov.read(&ov, 0, scratch, 1) == -1, "read after destroy accepted");
out:
    free(base_bytes);
    free(pristine);
    free(model);
    free(scratch);
}

static void test_whole_device(void)
{
    uint8_t *base_bytes = malloc(SIZE), *data = malloc(SIZE), *scratch = malloc(SIZE);
    CHECK(base_bytes && data && scratch, "malloc");
    if (!base_bytes || !data || !scratch)
        goto out;
    fill(base_bytes, SIZE, 3);
    fill(data, SIZE, 4);
    vax_blockdev base, ov;
    counting cnt;
    counting_base(&base, &cnt, base_bytes, SIZE);
    CHECK(blockdev_overlay(&ov, &base) == 0, "blockdev_overlay failed");
    CHECK(ov.write(&ov, 0, data, SIZE) == 0, "whole-device write refused");
    CHECK(cnt.reads == 0, "whole chunks were read from the base before being overwritten (%d reads)", cnt.reads);
    CHECK(blockdev_overlay_dirty_bytes(&ov) == SIZE, "dirty %llu after writing everything",
          (unsigned long long)blockdev_overlay_dirty_bytes(&ov));
    CHECK(ov.read(&ov, 0, scratch, SIZE) == 0 && memcmp(scratch, data, SIZE) == 0, "whole device reads back wrong");
    CHECK(cnt.reads == 0, "an all-dirty read went to the base");
    uint8_t *check = malloc(SIZE);
    if (check) {
        fill(check, SIZE, 3);
        CHECK(memcmp(check, base_bytes, SIZE) == 0, "the base was written");
        free(check);
    }
    blockdev_overlay_destroy(&ov);
out:
    free(base_bytes);
    free(data);
    free(scratch);
}

static void test_base_errors_and_edges(void)
{
    uint8_t bytes[4096];
    fill(bytes, sizeof bytes, 5);
    vax_blockdev base, ov;
    counting cnt;
    counting_base(&base, &cnt, bytes, sizeof bytes);
    CHECK(blockdev_overlay(&ov, &base) == 0, "small overlay");
    uint8_t buf[16];
    cnt.fail = 1;
    CHECK(ov.read(&ov, 10, buf, sizeof buf) == -1, "a base read error was not passed on");
    CHECK(ov.write(&ov, 10, buf, sizeof buf) == -1, "a partial-chunk write over a failing base succeeded");
    CHECK(blockdev_overlay_dirty_bytes(&ov) == 0, "a failed copy-in left a chunk behind");
    cnt.fail = 0;
    CHECK(ov.write(&ov, 10, buf, sizeof buf) == 0, "write after the base recovered");
    cnt.fail = 1;
    uint8_t back[16];
    CHECK(ov.read(&ov, 10, back, sizeof back) == 0 && memcmp(back, buf, sizeof buf) == 0,
          "a dirty chunk needed the base");
    blockdev_overlay_destroy(&ov);

    /* No base: refused, and destroy is harmless. */
    CHECK(blockdev_overlay(&ov, NULL) == -1, "overlay over NULL accepted");
    blockdev_overlay_destroy(&ov);

    /* An empty base: an empty device. */
    vax_blockdev empty;
    blockdev_memory(&empty, bytes, 0, 1);
    CHECK(blockdev_overlay(&ov, &empty) == 0 && ov.size == 0, "empty overlay");
    CHECK(ov.read(&ov, 0, buf, 0) == 0 && ov.read(&ov, 0, buf, 1) == -1, "empty device bounds");
    blockdev_overlay_destroy(&ov);
}

/* A device longer than its base: the tail reads as zeros until written,
 * a write across the base's end keeps both sides right, the base is never
 * written, and a size below the base's is refused. */
static void test_sized(void)
{
    uint8_t bytes[3 * 512];
    fill(bytes, sizeof bytes, 9);
    uint8_t keep[sizeof bytes];
    memcpy(keep, bytes, sizeof bytes);
    vax_blockdev base, ov;
    blockdev_memory(&base, bytes, sizeof bytes, 1);
    uint64_t size = 3ull * OVERLAY_CHUNK + 1024;
    CHECK(blockdev_overlay_sized(&ov, &base, size) == 0 && ov.size == size, "sized overlay");
    uint8_t buf[1024];
    CHECK(ov.read(&ov, 1024, buf, 1024) == 0 && memcmp(buf, bytes + 1024, 512) == 0, "the base's last sector");
    int zeros = 1;
    for (int i = 512; i < 1024; i++)
        zeros &= buf[i] == 0;
    CHECK(zeros, "past the base: zeros");
    CHECK(ov.read(&ov, size - 1024, buf, 1024) == 0, "the device's last bytes read");
    memset(buf, 0xAB, sizeof buf);
    CHECK(ov.write(&ov, 1024, buf, 1024) == 0, "a write across the base's end");
    uint8_t back[2048];
    CHECK(ov.read(&ov, 0, back, 2048) == 0 && memcmp(back, bytes, 1024) == 0 && back[1024] == 0xAB &&
              back[2047] == 0xAB,
          "read back across the base's end");
    CHECK(ov.write(&ov, size - 10, buf, 10) == 0 && ov.read(&ov, size - 10, back, 10) == 0 && back[9] == 0xAB,
          "the last chunk (short) written");
    CHECK(ov.read(&ov, size - 10, back, 11) == -1, "past the device");
    CHECK(memcmp(bytes, keep, sizeof bytes) == 0, "the base is never written");
    blockdev_overlay_destroy(&ov);
    CHECK(blockdev_overlay_sized(&ov, &base, 512) == -1, "a device shorter than its base");
    blockdev_overlay_destroy(&ov);
}

int main(void)
{
    test_sized();
    test_unaligned_across_chunks();
    test_whole_device();
    test_base_errors_and_edges();
    return check_summary();
}
