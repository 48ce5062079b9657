/*
 * kernelvars.c — see kernelvars.h.
 */
#include "boot/kernelvars.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "boot/aout.h"
#include "boot/ffs.h"
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

/* Look up names in a kernel file; with vars_only, a symbol outside the
 * kernel's data and bss (a damaged table pointing elsewhere) counts as not
 * found. */
static int lookup(const uint8_t *kernel, size_t len, const char *name, const char *const *names, uint32_t *values,
                  int n, int vars_only, char *err, size_t errlen)
{
    aout_header h;
    char e[200];
    if (!kernel || aout_parse(kernel, len, &h, e, sizeof e) < 0) {
        snprintf(err, errlen, "%s: %s", name, kernel ? e : "no kernel");
        return BOOT_SET_IMAGE_ERROR;
    }
    uint32_t data_start = (h.text + AOUT_DATA_ALIGN - 1) & ~(AOUT_DATA_ALIGN - 1);
    int found = 0;
    for (int i = 0; i < n; i++) {
        values[i] = 0;
        if (aout_find_symbol(kernel, len, &h, names[i], &values[i]) != 0) {
            values[i] = 0;
            continue;
        }
        uint32_t pa = values[i] & 0x7FFFFFFFu;
        if (vars_only && (pa < data_start || pa + 4 > data_start + h.data + h.bss || (values[i] & 3u))) {
            values[i] = 0;
            continue;
        }
        found++;
    }
    return found;
}

int boot_lookup_kernel_symbols_image(const uint8_t *kernel, size_t len, const char *name, const char *const *names,
                                     uint32_t *values, int n, char *err, size_t errlen)
{
    return lookup(kernel, len, name, names, values, n, 0, err, errlen);
}

int boot_lookup_kernel_variables_image(const uint8_t *kernel, size_t len, const char *name, const char *const *names,
                                       uint32_t *values, int n, char *err, size_t errlen)
{
    return lookup(kernel, len, name, names, values, n, 1, err, errlen);
}

/* lookup() on a kernel file of the disk's root. */
static int lookup_on_disk(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                          uint32_t *values, int n, int vars_only, char *err, size_t errlen)
{
    uint8_t *file;
    size_t len;
    aout_header h;
    const char *path = kernel_path ? kernel_path : "/vmunix";
    int rc = read_kernel(disk, path, &file, &len, &h, err, errlen);
    if (rc < 0)
        return rc;
    rc = lookup(file, len, path, names, values, n, vars_only, err, errlen);
    free(file);
    return rc;
}

int boot_lookup_kernel_variables(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                                 uint32_t *values, int n, char *err, size_t errlen)
{
    return lookup_on_disk(disk, kernel_path, names, values, n, 1, err, errlen);
}

int boot_lookup_kernel_symbols(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                               uint32_t *values, int n, char *err, size_t errlen)
{
    return lookup_on_disk(disk, kernel_path, names, values, n, 0, err, errlen);
}

/* Kernel code settings (kernelvars.h): what the 4.3BSD release changed
 * in code, not in a variable, set back to what the paper's kernel did.
 *
 * sosend_cluster_min: the smallest write(2) to a socket or pipe that
 * sosend() puts into a 1 KB mbuf cluster instead of 112-byte mbufs.  The
 * release (uipc_socket.c 7.1, 1986) takes a cluster from CLBYTES / 2 = 512
 * bytes on; until 2 June 1985 (delta 6.12 of uipc_socket.c in the CSRG
 * SCCS history, "use mbuf clusters for sends of >= NBPG"; before it
 * "iov_len >= CLBYTES") only from 1024, so the paper's 4.3BSD kernel,
 * measured for a paper of spring 1985, sent a 512-byte message as five
 * small mbufs.  The release's GENERIC sosend compares the residual count
 * with the immediate longword 512 (8F 00 02 00 00) and branches on it
 * (BGEQ, 18): that literal is the one patched.  512 or 1024. */
static int code_setting(vax_machine *m, const uint8_t *file, size_t len, const aout_header *h,
                        boot_kernel_setting *set, const char *kernel_path, char *err, size_t errlen)
{
    if (strcmp(set->name, "sosend_cluster_min") != 0)
        return 0;
    if (set->value != 512 && set->value != 1024) {
        snprintf(err, errlen, "sosend_cluster_min: %u is neither 512 (the 4.3BSD release) nor 1024 (the paper's kernel)",
                 set->value);
        return BOOT_SET_BAD_NAME;
    }
    uint32_t fn;
    if (aout_find_symbol(file, len, h, "_sosend", &fn) < 0) {
        snprintf(err, errlen, "sosend_cluster_min: the kernel %s has no _sosend", kernel_path);
        return BOOT_SET_BAD_NAME;
    }
    enum { WINDOW = 1024 };
    uint8_t code[WINDOW];
    uint32_t pa = fn & 0x7FFFFFFFu;
    if (vax_phys_read(m, pa, code, WINDOW) != 0) {
        snprintf(err, errlen, "sosend_cluster_min: _sosend at 0x%08X is outside memory", fn);
        return BOOT_SET_BAD_NAME;
    }
    static const uint8_t at512[] = {0x8F, 0x00, 0x02, 0x00, 0x00, 0x18};
    int found = -1, count = 0;
    for (int i = 0; i + (int)sizeof at512 <= WINDOW; i++)
        if (!memcmp(code + i, at512, sizeof at512)) {
            found = i;
            count++;
        }
    if (count != 1) {
        snprintf(err, errlen,
                 "sosend_cluster_min: %s's sosend is not the 4.3BSD release's (%d places compare with 512)",
                 kernel_path, count);
        return BOOT_SET_BAD_NAME;
    }
    uint32_t old = 0;
    vax_phys_read(m, pa + (uint32_t)found + 1, &old, 4);
    if (vax_phys_write(m, pa + (uint32_t)found + 1, &set->value, 4) != 0) {
        snprintf(err, errlen, "sosend_cluster_min: cannot patch _sosend");
        return BOOT_SET_BAD_NAME;
    }
    set->old = old;
    return 1;
}

int boot_set_kernel_variables_image(vax_machine *m, const uint8_t *kernel, size_t len, const char *name,
                                    boot_kernel_setting *set, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return 0;
    aout_header h;
    char e[200];
    if (!kernel || aout_parse(kernel, len, &h, e, sizeof e) < 0) {
        snprintf(err, errlen, "%s: %s", name, kernel ? e : "no kernel");
        return BOOT_SET_IMAGE_ERROR;
    }
    uint32_t data_start = (h.text + AOUT_DATA_ALIGN - 1) & ~(AOUT_DATA_ALIGN - 1);
    for (int i = 0; i < n; i++) {
        int code = code_setting(m, kernel, len, &h, &set[i], name, err, errlen);
        if (code < 0)
            return code;
        if (code)
            continue;
        char sym[80];
        snprintf(sym, sizeof sym, "_%s", set[i].name);
        uint32_t va;
        if (aout_find_symbol(kernel, len, &h, sym, &va) < 0) {
            snprintf(err, errlen, "%s: the kernel %s has no symbol %s", set[i].name, name, sym);
            return BOOT_SET_BAD_NAME;
        }
        uint32_t pa = va & 0x7FFFFFFFu;
        if (pa < data_start || pa + 4 > data_start + h.data + h.bss) {
            snprintf(err, errlen, "%s: %s at 0x%08X is not a kernel variable (not in data or bss)", set[i].name,
                     sym, va);
            return BOOT_SET_BAD_NAME;
        }
        uint32_t old = 0;
        if (vax_phys_read(m, pa, &old, 4) != 0 || vax_phys_write(m, pa, &set[i].value, 4) != 0) {
            snprintf(err, errlen, "%s: %s at 0x%08X is outside memory", set[i].name, sym, va);
            return BOOT_SET_BAD_NAME;
        }
        set[i].old = old;
    }
    return 0;
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
    rc = boot_set_kernel_variables_image(m, file, len, kernel_path, set, n, err, errlen);
    free(file);
    return rc;
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
