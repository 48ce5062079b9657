/*
 * kernelvars.c — see kernelvars.h.
 */
#include "kernelvars.h"

#include <stdio.h>
#include <stdlib.h>

#include "aout.h"
#include "ffs.h"
#include "system/clock.h"

/* Read kernel_path from partition a and parse its header; *file is the
 * caller's to free.  Returns 0 or BOOT_SET_IMAGE_ERROR with a message. */
static int read_kernel(const vax_blockdev *disk, const char *kernel_path, uint8_t **file, size_t *len,
                       aout_header *h, char *err, size_t errlen)
{
    char e[200];
    ffs_fs *fs = ffs_open(disk, 0, e, sizeof e);
    if (!fs) {
        snprintf(err, errlen, "%s", e);
        return BOOT_SET_IMAGE_ERROR;
    }
    int rc = ffs_read_file(fs, kernel_path, file, len, e, sizeof e);
    ffs_close(fs);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", kernel_path, e);
        return BOOT_SET_IMAGE_ERROR;
    }
    if (aout_parse(*file, *len, h, e, sizeof e) < 0) {
        snprintf(err, errlen, "%s: %s", kernel_path, e);
        free(*file);
        return BOOT_SET_IMAGE_ERROR;
    }
    /* A damaged symbol table is a damaged image, not a missing symbol. */
    if (aout_check_symbols(*file, *len, h, e, sizeof e) < 0) {
        snprintf(err, errlen, "%s: damaged symbol table: %s", kernel_path, e);
        free(*file);
        return BOOT_SET_IMAGE_ERROR;
    }
    return 0;
}

int boot_lookup_kernel_symbols(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                               uint32_t *values, int n, char *err, size_t errlen)
{
    uint8_t *file;
    size_t len;
    aout_header h;
    int rc = read_kernel(disk, kernel_path ? kernel_path : "/vmunix", &file, &len, &h, err, errlen);
    if (rc < 0)
        return rc;
    int found = 0;
    for (int i = 0; i < n; i++) {
        values[i] = 0;
        if (aout_find_symbol(file, len, &h, names[i], &values[i]) == 0)
            found++;
        else
            values[i] = 0;
    }
    free(file);
    return found;
}

int boot_set_kernel_variables(vax_machine *m, const vax_blockdev *disk, const char *kernel_path,
                              boot_kernel_setting *set, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return 0;
    if (!kernel_path)
        kernel_path = "/vmunix";
    uint8_t *file;
    size_t len;
    aout_header h;
    int rc = read_kernel(disk, kernel_path, &file, &len, &h, err, errlen);
    if (rc < 0)
        return rc;
    uint32_t data_start = (h.text + AOUT_DATA_ALIGN - 1) & ~(AOUT_DATA_ALIGN - 1);
    for (int i = 0; i < n; i++) {
        char sym[80];
        snprintf(sym, sizeof sym, "_%s", set[i].name);
        uint32_t va;
        if (aout_find_symbol(file, len, &h, sym, &va) < 0) {
            snprintf(err, errlen, "%s: the kernel %s has no symbol %s", set[i].name, kernel_path, sym);
            free(file);
            return BOOT_SET_BAD_NAME;
        }
        uint32_t pa = va & 0x7FFFFFFFu;
        if (pa < data_start || pa + 4 > data_start + h.data + h.bss) {
            snprintf(err, errlen, "%s: %s at 0x%08X is not a kernel variable (not in data or bss)", set[i].name,
                     sym, va);
            free(file);
            return BOOT_SET_BAD_NAME;
        }
        uint32_t old = 0;
        if (vax_phys_read(m, pa, &old, 4) != 0 || vax_phys_write(m, pa, &set[i].value, 4) != 0) {
            snprintf(err, errlen, "%s: %s at 0x%08X is outside memory", set[i].name, sym, va);
            free(file);
            return BOOT_SET_BAD_NAME;
        }
        set[i].old = old;
    }
    free(file);
    return 0;
}

int boot_todr_from_disk(const vax_blockdev *disk, uint32_t *todr, char *err, size_t errlen)
{
    ffs_fs *fs = ffs_open(disk, 0, err, errlen);
    if (!fs)
        return -1;
    ffs_info info;
    ffs_get_info(fs, &info);
    *todr = clock_todr_for_unix_time((int64_t)info.time + 60);
    ffs_close(fs);
    return 0;
}
