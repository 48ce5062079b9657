/*
 * tp.c — a tp(5) archive reader (see tp.h).
 */
#include "boot/tp.h"
#include "boot/util.h"
#include "le.h"

#include <stdio.h>
#include <string.h>


/* Decode the entry at p; 1 well-formed, 0 unused, -1 malformed (why set). */
static int decode(const uint8_t *p, tp_entry *e, const char **why)
{
    memset(e, 0, sizeof *e);
    if (p[0] == 0)
        return 0;
    size_t n = 0;
    while (n < TP_NAME_MAX && p[n] != 0) {
        if (p[n] < 0x20 || p[n] > 0x7e) {
            *why = "a non-printable character in the name";
            return -1;
        }
        n++;
    }
    if (n == TP_NAME_MAX) {
        *why = "a name without its terminating NUL";
        return -1;
    }
    uint16_t sum = 0;
    for (unsigned i = 0; i < TP_ENTRY_SIZE; i += 2)
        sum = (uint16_t)(sum + le16_get(p + i));
    if (sum != 0) {
        *why = "a bad checksum";
        return -1;
    }
    memcpy(e->name, p, n);
    e->name[n] = 0;
    e->mode = le16_get(p + 32);
    e->uid = p[34];
    e->gid = p[35];
    e->size = (uint32_t)p[37] << 16 | le16_get(p + 38);
    e->mtime = le32_get(p + 40);
    e->block = le16_get(p + 44);
    return 1;
}

/* Does the file of e lie inside buf, for an archive starting at block s? */
static int fits(const tp_entry *e, uint32_t s, size_t len)
{
    uint64_t off = ((uint64_t)s + e->block) * TP_BLOCK;
    return e->block > 0 && off <= len && e->size <= len - off;
}

int tp_open(tp_archive *a, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (!buf) {
        boot_seterr(err, errlen, "no data");
        return -1;
    }
    size_t blocks = len / TP_BLOCK;
    for (uint32_t s = 0; s < TP_MAX_LEAD && (size_t)s + 2 <= blocks; s++) {
        tp_entry e;
        const char *why = NULL;
        if (decode(buf + ((size_t)s + 1) * TP_BLOCK, &e, &why) != 1 || !fits(&e, s, len))
            continue;
        size_t dir = blocks - s - 1;
        if (dir > TP_DIR_BLOCKS)
            dir = TP_DIR_BLOCKS;
        a->buf = buf;
        a->len = len;
        a->start = s;
        a->slots = (uint32_t)dir * TP_ENTRIES_PER_BLOCK;
        return 0;
    }
    boot_seterr(err, errlen,
                "no tp archive found: no directory entry at the start of blocks 1 to %u of the %zu bytes",
                TP_MAX_LEAD, len);
    return -1;
}

int tp_slot(const tp_archive *a, uint32_t i, tp_entry *e, char *err, size_t errlen)
{
    if (i >= a->slots) {
        boot_seterr(err, errlen, "directory slot %u out of range (%u slots)", i, a->slots);
        return -1;
    }
    const char *why = NULL;
    int rc = decode(a->buf + ((size_t)a->start + 1) * TP_BLOCK + (size_t)i * TP_ENTRY_SIZE, e, &why);
    if (rc < 0)
        boot_seterr(err, errlen, "directory slot %u: %s", i, why);
    return rc;
}

int tp_find(const tp_archive *a, const char *name, tp_entry *e, const uint8_t **data, char *err,
            size_t errlen)
{
    char names[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < a->slots; i++) {
        char why[128];
        int rc = tp_slot(a, i, e, why, sizeof why);
        if (rc <= 0)
            continue;   /* unused or malformed slots cannot be the one asked for */
        if (strcmp(e->name, name) == 0) {
            if (!fits(e, a->start, a->len)) {
                boot_seterr(err, errlen, "tp archive: %s (%u bytes at block %u) runs past the end of the %zu bytes",
                            name, e->size, e->block, a->len);
                return -1;
            }
            *data = a->buf + ((size_t)a->start + e->block) * TP_BLOCK;
            return 0;
        }
        int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", e->name);
        if (n > 0 && (size_t)n < sizeof names - used)
            used += (size_t)n;
    }
    memset(e, 0, sizeof *e);
    boot_seterr(err, errlen, "tp archive has no file \"%s\" (it has: %s)", name, used ? names : "nothing");
    return -1;
}
