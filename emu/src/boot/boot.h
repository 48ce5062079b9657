/*
 * boot.h — start a VAX-11/780 from a 4.3BSD disk, from the host.
 *
 * Two ways:
 *
 * BOOT_VIA_BOOT_PROGRAM — what the 780 console does (its DEFBOO.CMD /
 *   HPSBOO.CMD: HALT, UNJAM, INIT, LOAD BOOT, D R10 dev, D R11 howto,
 *   START 2).  The standalone boot program /boot is read from partition a
 *   of the disk (it is /sys/floppy/boot, byte for byte, behind a 0407 a.out
 *   header), its text and data are put at physical 0 (header stripped) and
 *   its bss cleared, and the processor is left as after a console INIT:
 *     PC  = 2                (word 0 is relsrt0's entry mask)
 *     PSL = 0x041F0000       (kernel mode, interrupt stack, IPL 31)
 *     MAPEN = 0, SCBB = 0, ICCS = 0, SISR = 0, ASTLVL = 4
 *     R10 = boot_device, R11 = boot_flags, other R0..R13 = 0
 *     SP  = top of physical memory (relsrt0 sets its own at once)
 *   /boot then relocates itself to 0x70000, reads "hp(0,0)vmunix" (from
 *   R10) through the emulated MASSBUS disk and CALLS the kernel.  It needs
 *   those devices and at least 1 MB of memory (relsrt0 clears up to
 *   0x100000).
 *
 * BOOT_DIRECT_KERNEL — the same end state without running /boot: the
 *   kernel (kernel_path, "/vmunix") is read from the partition named in
 *   R10 (B_PARTITION; partition a for 0) and loaded exactly as boot.c's
 *   copyunix() does, and the processor is left as /boot leaves it at the
 *   kernel's first instruction.  See boot.c for how this was worked out.
 *     memory  text at 0; (0410/0413) zeros to the next 1024-byte boundary;
 *             data; bss and 64 KB (128*512) beyond it cleared.  The GENERIC
 *             /vmunix is 0410: text 0x44524, data 0x13be8 at 0x44800,
 *             bss 0x187e4 at 0x583e8.
 *     PC    = (a_entry & 0x7fffffff) + 2: /boot prints "start 0x12f8" and
 *             CALLS it, so the CPU skips the entry mask word; 0x12fa for
 *             GENERIC.  IV/DV set from that mask (0 for locore's start).
 *     PSL   = 0x041F0000: kernel mode, on the interrupt stack, IPL 31
 *             (srt0.c: mtpr $HIGH,$IPL), condition codes clear (CALLS).
 *     MAPEN = 0 (the kernel runs unmapped at its physical addresses until
 *             it has built Sysmap), SCBB = 0 (srt0.c), ICCS = 0 (clock
 *             off; locore clears it first anyway), SISR = 0, ASTLVL = 4.
 *     R11   = boot_flags (howto: RB_SINGLE, RB_ASKNAME, ...)
 *     R10   = boot_device | B_DEVMAGIC (boot.c ORs in 0xa0000000; the
 *             kernel's setroot() ignores a bootdev without it)
 *     R9    = 3 (copyunix's io, the first standalone file descriptor),
 *             R0..R8 = 0
 *     SP, FP, AP: a CALLS $0 frame (numarg 0, no registers saved, return
 *             PC, FP 0, AP 0, mask/PSW longword, handler 0) on a small
 *             stack in the page just above the cleared region (or, if
 *             the slop reached the end of memory, the last page); the
 *             return PC points at a zero longword (HALT) above it, so a kernel
 *             that returned would halt the machine.  The kernel never
 *             uses this stack: it loads SP (intstack) before its first
 *             push.  (Real /boot's stack is just below 0x70000, where
 *             /boot itself sits; nothing in the kernel depends on that.)
 *   Checked by running it: from this state the GENERIC kernel prints its
 *   banner, sizes memory ("real mem = 8388608"), turns on mapping and gets
 *   as far as autoconfiguration.
 *   What /boot's own run leaves behind in devices (MBA and UBA
 *   initialised, the drive's registers after the reads) is not reproduced:
 *   the kernel's autoconfiguration initialises the adapters again
 *   (mba_cr = MBCR_INIT in vax/autoconf.c).
 *
 * Boot device encoding (R10, <sys/reboot.h>): type (major device: 0 = hp)
 * in bits 7:0, partition in 15:8, unit in 23:16, adaptor in 27:24, the
 * magic 0xa in 31:28.  0 means hp, unit 0, partition a.
 * Boot flags (R11): RB_ASKNAME 1, RB_SINGLE 2, ... (0 = multi-user).
 */
#ifndef VAX_BOOT_BOOT_H
#define VAX_BOOT_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"
#include "vax.h"

/* <sys/reboot.h> */
#define RB_AUTOBOOT 0x00u
#define RB_ASKNAME 0x01u
#define RB_SINGLE 0x02u
#define RB_NOSYNC 0x04u
#define RB_HALT 0x08u
#define RB_INITNAME 0x10u
#define RB_DFLTROOT 0x20u

#define B_ADAPTORSHIFT 24
#define B_ADAPTORMASK 0x0fu
#define B_UNITSHIFT 16
#define B_UNITMASK 0xffu
#define B_PARTITIONSHIFT 8
#define B_PARTITIONMASK 0xffu
#define B_TYPESHIFT 0
#define B_TYPEMASK 0xffu
#define B_MAGICMASK 0xf0000000u
#define B_DEVMAGIC 0xa0000000u

/* Compose an R10 value. */
#define BOOT_DEVICE(type, adaptor, unit, part)                                   \
    ((((uint32_t)(type) & B_TYPEMASK) << B_TYPESHIFT) |                         \
     (((uint32_t)(adaptor) & B_ADAPTORMASK) << B_ADAPTORSHIFT) |                \
     (((uint32_t)(unit) & B_UNITMASK) << B_UNITSHIFT) |                         \
     (((uint32_t)(part) & B_PARTITIONMASK) << B_PARTITIONSHIFT))

/* The console's PSL after INIT and /boot's when it calls the kernel. */
#define BOOT_PSL 0x041F0000u

typedef enum { BOOT_VIA_BOOT_PROGRAM, BOOT_DIRECT_KERNEL } boot_method;

/* Load and set up the machine as described above; the caller then runs
 * it.  disk_type names the partition table ("RP06", "RM03", "RM05",
 * "RM80", "RP07", "RP04", "RP05").  kernel_path is used only by
 * BOOT_DIRECT_KERNEL (NULL means "/vmunix").  Returns 0, or -1 with a
 * message in err; on error the machine's memory may have been partly
 * written but its registers are unchanged. */
int vax_boot(vax_machine *m, const vax_blockdev *disk, const char *disk_type, boot_method how,
             uint32_t boot_flags, uint32_t boot_device, const char *kernel_path, char *err,
             size_t errlen);

/* What vax_boot loaded (for messages like /boot's "279844+80872+100324
 * start 0x12f8"); filled in by vax_boot_ex. */
typedef struct {
    uint32_t magic, text, data, bss;   /* from the a.out header */
    uint32_t entry;                    /* a_entry & 0x7fffffff */
    uint32_t pc;                       /* where execution starts */
    uint32_t end;                      /* first byte past the cleared region */
    uint64_t partition_offset;         /* of the file system read */
} vax_boot_info;

int vax_boot_ex(vax_machine *m, const vax_blockdev *disk, const char *disk_type, boot_method how,
                uint32_t boot_flags, uint32_t boot_device, const char *kernel_path,
                vax_boot_info *info, char *err, size_t errlen);

/* BOOT_DIRECT_KERNEL with the kernel from the host instead of a file of
 * the disk's root: kernel holds the whole a.out file (len bytes, e.g. one
 * of the kernel variants the installer builds in the guest), name is what
 * messages call it.  The machine is left exactly as vax_boot_ex leaves it
 * after loading the same file from the disk (same memory, registers and
 * CALLS frame); the disk is not read (the kernel mounts its root from the
 * partition boot_device names, as always).  info->partition_offset is 0.
 * Returns 0, or -1 with a message (registers unchanged, memory maybe
 * partly written). */
int vax_boot_kernel_image(vax_machine *m, const uint8_t *kernel, size_t len, const char *name,
                          uint32_t boot_flags, uint32_t boot_device, vax_boot_info *info, char *err, size_t errlen);

/* The processor as after the console's INIT (PSL = BOOT_PSL, MAPEN, SCBB,
 * ICCS, SISR 0, ASTLVL 4, the translation buffer flushed, R0..R13 = 0);
 * used by vax_boot_ex and by standalone.c. */
void vax_boot_init_processor(vax_machine *m);

/* Enter a program the way CALLS $0 would call it from nowhere: build the
 * call frame on a stack ending at top (its last longword, zero, is the
 * return PC: a HALT), load R0-R11 from r, AP, FP, SP, PC = entry + 2 (past
 * the entry mask) and the PSL (kernel, interrupt stack, IPL 31; IV and DV
 * from the mask).  Used for /boot's entry into the kernel and for
 * standalone programs. */
void boot_enter_with_calls(vax_machine *m, uint32_t top, uint32_t entry, uint32_t mask, const uint32_t r[12]);

#endif
