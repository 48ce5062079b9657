/*
 * boot.c — starting the machine from a 4.3BSD disk (see boot.h).
 *
 * How the kernel's entry state was worked out (4.3BSD sources):
 *   - /sys/stand/Makefile links /boot with relsrt0.o at RELOC 0x70000
 *     (ld -N, so 0407); /sys/floppy/boot is the same image without the
 *     header (checked byte for byte against the reference disk's /boot).
 *   - /sys/stand/srt0.c (REL): entry is `.word 0` then `mtpr $HIGH,$IPL`
 *     (IPL 31), SP = RELOC, copy itself to RELOC, `mtpr $0,$SCBB`,
 *     configure(), main().  Nothing in /boot lowers the IPL or turns on
 *     memory management, and the console's INIT left kernel mode on the
 *     interrupt stack.
 *   - /sys/stand/boot.c main() computes the device from R10 (devtype) and
 *     R11 (howto), ORs B_DEVMAGIC into devtype and calls
 *     copyunix(howto, devtype, io), whose register arguments are declared
 *     "howto=r11, devtype=r10" (io lands in r9).  copyunix() reads the
 *     header, the text to address 0 (from file byte 1024 for 0413), pads
 *     to CLOFSET (1023) for 0410/0413, reads the data, clears a_bss +
 *     128*512 bytes, prints " start 0x%x" of a_entry & 0x7fffffff and does
 *     (*entry)() — CALLS $0 — with r10/r11 still holding devtype/howto.
 *   - /sys/vax/locore.s start: `.word 0`; mtpr $0,ICCS; SCBB, SBR, SLR,
 *     P0BR, P0LR from physical addresses of _scb/_Sysmap; then
 *     `movl $_intstack+NISP*NBPG,sp` before any stack use; memory sized
 *     by probing with badaddr (machine checks on nonexistent memory);
 *     bss and proc 0's u. area cleared; MAPEN set; r10 -> _bootdev and
 *     r11 -> _boothowto (through the PCB).  So the kernel needs: MAPEN 0,
 *     IPL 31, kernel mode, R10/R11, its image at physical 0; not SP.
 */
#include "boot/boot.h"
#include "boot/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/aout.h"
#include "cpu/cpu.h"
#include "boot/ffs.h"
#include "boot/partitions.h"
#include "le.h"


/* Read path from the file system on partition part of the disk and check
 * its a.out header. */
static int read_program(const vax_blockdev *disk, const bsd_disktype *dt, int part,
                        const char *path, uint8_t **data, size_t *len, aout_header *h,
                        uint64_t *part_off, char *err, size_t errlen)
{
    uint64_t off, plen;
    if (bsd_partition_range(dt, part, &off, &plen) != 0) {
        boot_seterr(err, errlen, "%s has no partition %c", dt->name, 'a' + part);
        return -1;
    }
    *part_off = off;
    char why[320];
    ffs_fs *fs = ffs_open(disk, off, why, sizeof why);
    if (!fs) {
        boot_seterr(err, errlen, "partition %c of the %s: %s", 'a' + part, dt->name, why);
        return -1;
    }
    int rc = ffs_read_file(fs, path, data, len, why, sizeof why);
    ffs_close(fs);
    if (rc != 0) {
        boot_seterr(err, errlen, "partition %c of the %s: %s", 'a' + part, dt->name, why);
        return -1;
    }
    if (aout_parse(*data, *len, h, why, sizeof why) != 0) {
        boot_seterr(err, errlen, "%s: %s", path, why);
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

/* Processor state common to all methods: as after the console's INIT. */
void vax_boot_init_processor(vax_machine *m)
{
    vax_set_ipr(m, IPR_MAPEN, 0);
    vax_set_psl(m, BOOT_PSL);
    vax_set_ipr(m, IPR_SCBB, 0);
    vax_set_ipr(m, IPR_ICCS, 0);
    vax_set_ipr(m, IPR_SISR, 0);
    vax_set_ipr(m, IPR_ASTLVL, 4);
    vax_set_ipr(m, IPR_TBIA, 0);
    for (int r = 0; r < 14; r++)
        vax_set_reg(m, r, 0);
}

static void put_l(vax_machine *m, uint32_t pa, uint32_t v)
{
    uint8_t b[4];
    le32_put(b, v);
    (void)vax_phys_write(m, pa, b, 4);
}

void boot_enter_with_calls(vax_machine *m, uint32_t top, uint32_t entry, uint32_t mask, const uint32_t r[12])
{
    /* The frame exec_call.c builds for CALLS $0: numarg, the registers the
     * entry mask saves, then PC, FP, AP, the mask/PSW longword and the
     * condition handler.  The return PC is the zero longword at top-4, a
     * HALT, so a program that returns stops the machine. */
    uint32_t ret_pc = top - 4;
    uint32_t sp = ret_pc - 4;
    put_l(m, sp, 0);   /* numarg */
    uint32_t ap = sp;
    for (int i = 11; i >= 0; i--)
        if (mask & (1u << i)) {
            sp -= 4;
            put_l(m, sp, r[i]);
        }
    uint32_t psw_save = 0x20000000u | ((mask & 0x0FFFu) << 16) | (BOOT_PSL & 0xFFE0u);
    put_l(m, sp - 4, ret_pc);
    put_l(m, sp - 8, 0);    /* the caller's FP */
    put_l(m, sp - 12, 0);   /* the caller's AP */
    put_l(m, sp - 16, psw_save);
    put_l(m, sp - 20, 0);   /* condition handler */
    sp -= 20;
    for (int i = 0; i < 12; i++)
        vax_set_reg(m, i, r[i]);
    vax_set_reg(m, 12, ap);
    vax_set_reg(m, 13, sp);
    vax_set_reg(m, 14, sp);
    vax_set_reg(m, 15, (entry & 0x7FFFFFFFu) + 2);
    uint32_t psl = BOOT_PSL & ~0xFu;   /* CALLS clears N Z V C */
    if (mask & 0x4000u)
        psl |= 0x20u;   /* IV */
    if (mask & 0x8000u)
        psl |= 0x80u;   /* DV */
    vax_set_psl(m, psl);
}

/* A boot device's magic must be 0 or B_DEVMAGIC. */
static int check_boot_device(uint32_t boot_device, char *err, size_t errlen)
{
    if ((boot_device & B_MAGICMASK) != 0 && (boot_device & B_MAGICMASK) != B_DEVMAGIC) {
        boot_seterr(err, errlen, "boot device 0x%08x has a bad magic number (bits 31:28 must be 0 or 0xa)",
               boot_device);
        return -1;
    }
    return 0;
}

/* The direct boot proper, from the kernel file's bytes (already checked by
 * aout_parse into h): load it as copyunix() does and leave the processor
 * as /boot leaves it at the kernel's first instruction (boot.h).  path
 * names the kernel in messages. */
static int enter_kernel(vax_machine *m, const uint8_t *file, size_t len, const aout_header *h, const char *path,
                        uint32_t boot_flags, uint32_t boot_device, aout_layout *lay, char *err, size_t errlen)
{
    uint32_t mem = vax_memory_bytes(m);
    char why[320];
    if (aout_load(m, file, len, h, 0, AOUT_BOOT_BSS_SLOP, lay, why, sizeof why) != 0) {
        boot_seterr(err, errlen, "%s: %s", path, why);
        return -1;
    }
    /* The entry mask: CALLS reads it at the entry and starts 2 bytes on. */
    uint8_t mw[2];
    if ((uint64_t)lay->entry + 2 > mem || vax_phys_read(m, lay->entry, mw, 2) != 0) {
        boot_seterr(err, errlen, "%s: entry point 0x%x is outside memory", path, lay->entry);
        return -1;
    }
    uint32_t mask = (uint32_t)mw[0] | (uint32_t)mw[1] << 8;
    if (mask & 0x3000u) {
        boot_seterr(err, errlen, "%s: bad entry mask 0x%04x at 0x%x (bits 13:12 must be zero; CALLS "
               "would take a reserved operand fault)", path, mask, lay->entry);
        return -1;
    }
    /* A page for the CALLS frame just above the cleared region, or if
     * the slop reached the end of memory, the last page (inside the
     * slop, above the bss). */
    uint64_t page = ((uint64_t)lay->end + 511u) & ~(uint64_t)511u;
    uint64_t top = page + 512u;
    if (top > mem) {
        top = mem & ~(uint64_t)511u;
        page = top - 512u;
        if (top < 512u || page < (uint64_t)lay->bss_addr + h->bss) {
            boot_seterr(err, errlen, "%s: no memory left above the kernel's bss (ends at 0x%llx) for "
                   "the boot stack; memory is %u bytes", path,
                   (unsigned long long)((uint64_t)lay->bss_addr + h->bss), mem);
            return -1;
        }
    }
    static const uint8_t zeros[512];
    (void)vax_phys_write(m, (uint32_t)page, zeros, sizeof zeros);

    vax_boot_init_processor(m);
    uint32_t r[12] = { 0 };
    r[9] = 3;   /* /boot's file descriptor of the kernel */
    r[10] = boot_device | B_DEVMAGIC;
    r[11] = boot_flags;
    boot_enter_with_calls(m, (uint32_t)top, lay->entry, mask, r);
    return 0;
}

static void fill_info(vax_boot_info *info, const aout_header *h, const aout_layout *lay)
{
    if (!info)
        return;
    info->magic = h->magic;
    info->text = h->text;
    info->data = h->data;
    info->bss = h->bss;
    info->entry = lay->entry;
    info->end = lay->end;
}

int vax_boot_kernel_image(vax_machine *m, const uint8_t *kernel, size_t len, const char *name,
                          uint32_t boot_flags, uint32_t boot_device, vax_boot_info *info, char *err, size_t errlen)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!name || !*name)
        name = "kernel";
    if (!m || !kernel) {
        boot_seterr(err, errlen, "no machine or no kernel");
        return -1;
    }
    if (check_boot_device(boot_device, err, errlen) != 0)
        return -1;
    int part = (int)((boot_device >> B_PARTITIONSHIFT) & B_PARTITIONMASK);
    if (part >= BSD_NPARTITIONS) {
        boot_seterr(err, errlen, "boot device 0x%08x names partition %d (a to h only)", boot_device, part);
        return -1;
    }
    aout_header h;
    aout_layout lay;
    char why[320];
    if (aout_parse(kernel, len, &h, why, sizeof why) != 0) {
        boot_seterr(err, errlen, "%s: %s", name, why);
        return -1;
    }
    if (enter_kernel(m, kernel, len, &h, name, boot_flags, boot_device, &lay, err, errlen) != 0)
        return -1;
    fill_info(info, &h, &lay);
    if (info)
        info->pc = lay.entry + 2;
    return 0;
}

int vax_boot_ex(vax_machine *m, const vax_blockdev *disk, const char *disk_type, boot_method how,
                uint32_t boot_flags, uint32_t boot_device, const char *kernel_path,
                vax_boot_info *info, char *err, size_t errlen)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!m || !disk) {
        boot_seterr(err, errlen, "no machine or no disk");
        return -1;
    }
    const bsd_disktype *dt = bsd_disktype_find(disk_type);
    if (!dt) {
        boot_seterr(err, errlen, "unknown disk type \"%s\" (known: RP06, RM03, RM05, RM80, RP07, RP04, RP05, RA60, RA81)",
               disk_type ? disk_type : "(null)");
        return -1;
    }
    uint32_t mem = vax_memory_bytes(m);
    uint8_t *file = NULL;
    size_t len = 0;
    aout_header h;
    aout_layout lay;
    uint64_t part_off = 0;
    char why[320];

    if (how == BOOT_VIA_BOOT_PROGRAM) {
        /* /boot's relsrt0 clears memory up to 1 MB and moves /boot to
         * 0x70000: with less, it halts before it prints anything. */
        if (mem < 0x100000u) {
            /* Not "N KB boots with --direct": below 768 KB 4.3BSD's kernel
             * does not boot that way either (a machine check in its start-up). */
            boot_seterr(err, errlen, "booting through /boot needs at least 1 MB of memory (its start-up clears "
                        "memory up to 1 MB; this machine has %u KB); loaded directly (--direct), 4.3BSD's kernel "
                        "boots in 768 KB", mem >> 10);
            return -1;
        }
        if (read_program(disk, dt, 0, "/boot", &file, &len, &h, &part_off, err, errlen) != 0)
            return -1;
        if (aout_load(m, file, len, &h, 0, 0, &lay, why, sizeof why) != 0) {
            boot_seterr(err, errlen, "/boot: %s", why);
            free(file);
            return -1;
        }
        free(file);
        vax_boot_init_processor(m);
        vax_set_reg(m, 10, boot_device);
        vax_set_reg(m, 11, boot_flags);
        vax_set_reg(m, 14, mem & ~3u);   /* the interrupt stack (PSL<IS> is set) */
        vax_set_reg(m, 15, 2);
        vax_set_psl(m, BOOT_PSL);        /* also drops the fetch shortcut */
        if (info) {
            info->pc = 2;
        }
    } else if (how == BOOT_DIRECT_KERNEL) {
        const char *path = kernel_path && *kernel_path ? kernel_path : "/vmunix";
        if (check_boot_device(boot_device, err, errlen) != 0)
            return -1;
        int part = (int)((boot_device >> B_PARTITIONSHIFT) & B_PARTITIONMASK);
        if (part >= BSD_NPARTITIONS || !(dt->standalone_mask & (1u << part))) {
            /* /boot's standalone driver refuses these too ("bad partition"). */
            boot_seterr(err, errlen, "boot device 0x%08x names partition %d, which /boot cannot read on a %s",
                   boot_device, part, dt->name);
            return -1;
        }
        if (read_program(disk, dt, part, path, &file, &len, &h, &part_off, err, errlen) != 0)
            return -1;
        int rc = enter_kernel(m, file, len, &h, path, boot_flags, boot_device, &lay, err, errlen);
        free(file);
        if (rc != 0)
            return -1;
        if (info)
            info->pc = lay.entry + 2;
    } else {
        boot_seterr(err, errlen, "unknown boot method %d", (int)how);
        return -1;
    }
    if (info) {
        uint32_t pc = info->pc;
        fill_info(info, &h, &lay);
        info->pc = pc;
        info->partition_offset = part_off;
    }
    return 0;
}

int vax_boot(vax_machine *m, const vax_blockdev *disk, const char *disk_type, boot_method how,
             uint32_t boot_flags, uint32_t boot_device, const char *kernel_path, char *err,
             size_t errlen)
{
    return vax_boot_ex(m, disk, disk_type, how, boot_flags, boot_device, kernel_path, NULL, err,
                       errlen);
}
