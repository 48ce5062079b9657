/*
 * test_image_id.c — a disk image's identity kept beside it
 * (storage/image_id.h): the first time the file is hashed (and, once it has
 * been left alone long enough, the hash kept in IMAGE.vaxlab-id); then the
 * kept hash is used; and it is never used for another file's bytes: the
 * file changed in place (same size), another file put in its place with the
 * first one's record copied beside it, a record damaged or of another
 * format — each is hashed again and gets its own SHA-256.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "snapshot/sha256.h"
#include "storage/blockdev_file.h"
#include "storage/image_id.h"

#define BYTES (3u << 20)

static void sha_of(const uint8_t *b, size_t n, uint8_t out[32])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, b, n);
    sha256_final(&c, out);
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
    char buf[512];
    FILE *f = fopen(from, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(to, "wb");
    int ok = f && fwrite(buf, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* The identity of path as the tools get it: opened read-only, read through its block device. */
static int id_of(const char *path, uint8_t id[32])
{
    blockdev_file f;
    char err[320];
    if (blockdev_file_open(&f, path, 1, err, sizeof err) < 0) {
        CHECK(0, "open %s: %s", path, err);
        return -1;
    }
    int r = image_id_get(path, f.fd, &f.bd, id, err, sizeof err);
    CHECK(r >= 0, "image_id_get %s: %s", path, err);
    blockdev_file_close(&f);
    return r;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int main(void)
{
    char dir[] = "/tmp/vaxlab-image-id-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("cannot make a temporary directory\n");
        return 1;
    }
    char a[128], rec_a[160], b[128], rec_b[160];
    snprintf(a, sizeof a, "%s/a.dsk", dir);
    snprintf(rec_a, sizeof rec_a, "%s.vaxlab-id", a);
    snprintf(b, sizeof b, "%s/b.dsk", dir);
    snprintf(rec_b, sizeof rec_b, "%s.vaxlab-id", b);

    uint8_t *bytes = malloc(BYTES);
    for (uint32_t i = 0; i < BYTES; i++)
        bytes[i] = (uint8_t)(i * 2654435761u >> 24);
    uint8_t want[32], got[32];
    sha_of(bytes, BYTES, want);
    CHECK(write_file(a, bytes, BYTES) == 0, "write %s", a);

    /* Just written: hashed, and not kept (it may still be changing within the file system's clock tick). */
    CHECK(id_of(a, got) == IMAGE_ID_HASHED_ONLY, "a fresh file's hash is not kept");
    CHECK(memcmp(got, want, 32) == 0, "the identity is the SHA-256 of the bytes");
    CHECK(!exists(rec_a), "no record for a fresh file");

    /* Left alone: hashed once and kept; then the kept one is used. */
    struct timespec quiet = {IMAGE_ID_QUIET_NS / 1000000000LL, IMAGE_ID_QUIET_NS % 1000000000LL + 100000000L};
    nanosleep(&quiet, NULL);
    CHECK(id_of(a, got) == IMAGE_ID_HASHED, "hashed and kept");
    CHECK(memcmp(got, want, 32) == 0, "the same identity");
    CHECK(exists(rec_a), "the record is beside the image");
    CHECK(id_of(a, got) == IMAGE_ID_KEPT, "the kept identity is used");
    CHECK(memcmp(got, want, 32) == 0, "the kept identity is the hash");

    /* Another file in its place, the same size, with the first one's record copied beside it: not used. */
    bytes[BYTES / 2] ^= 1;
    uint8_t want_b[32];
    sha_of(bytes, BYTES, want_b);
    CHECK(write_file(b, bytes, BYTES) == 0 && copy_file(rec_a, rec_b) == 0, "write %s", b);
    CHECK(id_of(b, got) == IMAGE_ID_HASHED_ONLY, "another file with a copied record is hashed");
    CHECK(memcmp(got, want_b, 32) == 0 && memcmp(got, want, 32) != 0, "and gets its own identity");
    CHECK(rename(b, a) == 0, "rename");
    CHECK(id_of(a, got) == IMAGE_ID_HASHED_ONLY, "another file renamed over the image is hashed");
    CHECK(memcmp(got, want_b, 32) == 0, "and gets its own identity");

    /* The file changed in place, one byte, same size: hashed again. */
    int fd = open(a, O_WRONLY);
    uint8_t one = bytes[7] ^ 0x80;
    CHECK(fd >= 0 && pwrite(fd, &one, 1, 7) == 1 && close(fd) == 0, "change %s in place", a);
    bytes[7] = one;
    uint8_t want_c[32];
    sha_of(bytes, BYTES, want_c);
    CHECK(id_of(a, got) == IMAGE_ID_HASHED_ONLY, "a file changed in place is hashed again");
    CHECK(memcmp(got, want_c, 32) == 0, "and gets its new identity");

    /* A damaged record, or one of another format: not used. */
    nanosleep(&quiet, NULL);
    CHECK(id_of(a, got) == IMAGE_ID_HASHED, "kept again once left alone");
    /* One hex digit of the kept hash changed to another (still a well-formed hash: the record's CRC-32 tells). */
    FILE *f = fopen(rec_a, "r+");
    int digit = f && fseek(f, 40, SEEK_SET) == 0 ? fgetc(f) : EOF;
    CHECK(digit != EOF && fseek(f, 40, SEEK_SET) == 0 && fputc(digit == '0' ? '1' : '0', f) != EOF && fclose(f) == 0,
          "damage the record");
    int r = id_of(a, got);
    CHECK(r == IMAGE_ID_HASHED, "a damaged record is not used (%d)", r);
    CHECK(memcmp(got, want_c, 32) == 0, "the identity after a damaged record");
    CHECK(write_file(rec_a, (const uint8_t *)"vaxlab image identity 2\n", 24) == 0, "write a record of another format");
    CHECK(id_of(a, got) == IMAGE_ID_HASHED, "a record of another format is not used");
    CHECK(id_of(a, got) == IMAGE_ID_KEPT && memcmp(got, want_c, 32) == 0, "the record written again is used");

    remove(rec_a);
    remove(rec_b);
    remove(a);
    rmdir(dir);
    free(bytes);
    return check_summary();
}
