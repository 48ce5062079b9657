/*
 * image_id.c — a disk image file's identity, kept beside it (image_id.h).
 */
#include "storage/image_id.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "snapshot/sha256.h"
#include "snapshot/snap.h"   /* snap_crc32 */

#define RECORD_MAGIC "vaxlab image identity 1\n"

/* What the file system says of the file, as the record keeps it. */
typedef struct {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} file_status;

static int status_of(int fd, file_status *s)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    s->dev = (uint64_t)st.st_dev;
    s->ino = (uint64_t)st.st_ino;
    s->size = (uint64_t)st.st_size;
    s->mtime_s = (int64_t)st.st_mtim.tv_sec;
    s->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
    s->ctime_s = (int64_t)st.st_ctim.tv_sec;
    s->ctime_ns = (int64_t)st.st_ctim.tv_nsec;
    return 0;
}

static int same_status(const file_status *a, const file_status *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_s == b->mtime_s &&
           a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

static char *record_path(const char *path)
{
    size_t n = strlen(path);
    char *p = malloc(n + sizeof ".vaxlab-id");
    if (p) {
        memcpy(p, path, n);
        memcpy(p + n, ".vaxlab-id", sizeof ".vaxlab-id");
    }
    return p;
}

static void format_record(char *out, size_t cap, const uint8_t id[32], const file_status *s)
{
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    int n = snprintf(out, cap,
                     RECORD_MAGIC "sha256 %s\nbytes %" PRIu64 " device %" PRIu64 " inode %" PRIu64 " modified %" PRId64
                                  ".%09" PRId64 " changed %" PRId64 ".%09" PRId64 "\n",
                     hex, s->size, s->dev, s->ino, s->mtime_s, s->mtime_ns, s->ctime_s, s->ctime_ns);
    /* A CRC-32 of the lines above: a record damaged on disk is not taken for another hash. */
    if (n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, "crc32 %08x\n", (unsigned)snap_crc32(0, out, (size_t)n));
}

/* The kept identity, when the record is there, well formed, and describes the file as it is now. */
static int read_record(const char *rpath, const file_status *now, uint8_t id[32])
{
    FILE *f = fopen(rpath, "r");
    if (!f)
        return -1;
    char text[512];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    /* Parse the hash, then check the whole record is exactly what this file would give. */
    const char *h = strstr(text, "\nsha256 ");
    if (strncmp(text, RECORD_MAGIC, sizeof RECORD_MAGIC - 1) != 0 || h != text + sizeof RECORD_MAGIC - 2)
        return -1;
    h += 8;
    uint8_t got[32];
    for (int i = 0; i < 32; i++) {
        unsigned v;
        char pair[3] = {h[2 * i], h[2 * i + 1], 0};
        if (!pair[0] || !pair[1] || sscanf(pair, "%2x", &v) != 1 || strchr("0123456789abcdef", pair[0]) == NULL ||
            strchr("0123456789abcdef", pair[1]) == NULL)
            return -1;
        got[i] = (uint8_t)v;
    }
    char expect[512];
    format_record(expect, sizeof expect, got, now);
    if (strcmp(text, expect) != 0)
        return -1;
    memcpy(id, got, 32);
    return 0;
}

/* Best effort: the record, through a temporary file renamed into place. */
static int write_record(const char *rpath, const uint8_t id[32], const file_status *s)
{
    char text[512];
    format_record(text, sizeof text, id, s);
    size_t n = strlen(rpath);
    char *tmp = malloc(n + 32);
    if (!tmp)
        return -1;
    snprintf(tmp, n + 32, "%s.%ld.tmp", rpath, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (ok && rename(tmp, rpath) != 0)
        ok = 0;
    if (!ok && f)
        remove(tmp);
    free(tmp);
    return ok ? 0 : -1;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int image_id_get(const char *path, int fd, const vax_blockdev *bd, uint8_t id[32], char *err, size_t errlen)
{
    file_status before, after;
    if (status_of(fd, &before) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *rpath = record_path(path);
    if (rpath && read_record(rpath, &before, id) == 0) {
        free(rpath);
        return IMAGE_ID_KEPT;
    }
    int64_t began = now_ns();
    sha256_ctx c;
    sha256_init(&c);
    uint8_t *buf = malloc(1u << 20);
    if (!buf) {
        free(rpath);
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    for (uint64_t off = 0; off < bd->size;) {
        size_t n = bd->size - off < (1u << 20) ? (size_t)(bd->size - off) : (1u << 20);
        if (bd->read(bd, off, buf, n) != 0) {
            free(buf);
            free(rpath);
            snprintf(err, errlen, "%s: cannot read the disk image to identify it", path);
            return -1;
        }
        sha256_update(&c, buf, n);
        off += n;
    }
    free(buf);
    sha256_final(&c, id);
    int kept = 0;
    int64_t changed = before.ctime_s * 1000000000LL + before.ctime_ns;
    if (rpath && status_of(fd, &after) == 0 && same_status(&before, &after) && before.size == bd->size &&
        began - changed >= IMAGE_ID_QUIET_NS)
        kept = write_record(rpath, id, &before) == 0;
    free(rpath);
    return kept ? IMAGE_ID_HASHED : IMAGE_ID_HASHED_ONLY;
}
