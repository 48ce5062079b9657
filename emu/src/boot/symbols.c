/*
 * symbols.c — see symbols.h.
 */
#include "boot/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/aout.h"
#include "boot/ffs.h"
#include "boot/partitions.h"

#define N_TYPE_MASK 0x1Eu
#define N_TEXT 0x04u
#define N_STAB_MASK 0xE0u

typedef struct {
    profile_symbols *out;
    int failed;
} collect;

static void collect_text(void *ctx, const char *name, uint8_t type, uint32_t value)
{
    collect *c = ctx;
    size_t n = strlen(name);
    if ((type & N_STAB_MASK) || (type & N_TYPE_MASK) != N_TEXT || n == 0)
        return;
    if (!(type & 1) && n > 2 && strcmp(name + n - 2, ".o") == 0)
        return;   /* the linker's symbol for the start of an object file */
    if (profile_symbols_add(c->out, value, name) < 0)
        c->failed = 1;
}

int boot_aout_text_symbols(const uint8_t *file, size_t len, profile_symbols *out, char *note, size_t notelen)
{
    aout_header h;
    char why[200];
    if (aout_parse(file, len, &h, why, sizeof why) < 0) {
        snprintf(note, notelen, "%s", why);
        return -1;
    }
    collect c = { out, 0 };
    int n = aout_for_each_symbol(file, len, &h, collect_text, &c);
    if (n == 0) {
        snprintf(note, notelen, "no symbol table (stripped)");
        return -1;
    }
    if (n < 0) {
        snprintf(note, notelen, "damaged symbol table");
        return -1;
    }
    if (c.failed) {
        snprintf(note, notelen, "too many symbols (more than %u)", PROFILE_MAX_SYMBOLS);
        return -1;
    }
    if (out->n == 0) {
        snprintf(note, notelen, "no text symbols");
        return -1;
    }
    return 0;
}

int boot_read_system_file(const vax_blockdev *disk, const char *disk_type, const char *path, uint8_t **data,
                          size_t *len, char *err, size_t errlen)
{
    int part = 0;
    const char *rel = path;
    if (strncmp(path, "/usr/", 5) == 0) {   /* the lab's /usr: hp0g */
        part = 6;
        rel = path + 4;
    }
    uint64_t offset = 0, length;
    const bsd_disktype *t = bsd_disktype_find(disk_type ? disk_type : "RP06");
    if (part && (!t || bsd_partition_range(t, part, &offset, &length) < 0)) {
        snprintf(err, errlen, "no partition g on a %s", disk_type ? disk_type : "RP06");
        return -1;
    }
    ffs_fs *fs = ffs_open(disk, offset, err, errlen);
    if (!fs)
        return -1;
    int rc = ffs_read_file(fs, rel, data, len, err, errlen);
    ffs_close(fs);
    return rc;
}

int boot_program_symbols(const vax_blockdev *disk, const char *disk_type, const char *search, const char *name,
                         profile_symbols *out, char *path, size_t pathlen, char *note, size_t notelen)
{
    path[0] = 0;
    if (!disk) {
        snprintf(note, notelen, "no disk to look for it on");
        return -1;
    }
    if (strchr(name, '/')) {
        snprintf(note, notelen, "not a program name");
        return -1;
    }
    for (const char *d = search; *d;) {
        size_t dl = strcspn(d, ":");
        char file[256], err[200];
        if (dl > 0 && (size_t)snprintf(file, sizeof file, "%.*s/%s", (int)dl, d, name) < sizeof file) {
            uint8_t *data;
            size_t len;
            if (boot_read_system_file(disk, disk_type, file, &data, &len, err, sizeof err) == 0) {
                snprintf(path, pathlen, "%s", file);
                int rc = boot_aout_text_symbols(data, len, out, note, notelen);
                free(data);
                return rc;
            }
        }
        d += dl + (d[dl] == ':');
    }
    snprintf(note, notelen, "not found in %s", search);
    return -1;
}
