/*
 * vmb.h — booting a VAX-11/780 the way its console's BOOT command does:
 * DEC's primary bootstrap VMB (VMB.EXE, a VMS image file) loaded whole at
 * physical 0x200 and started there, with the boot device described in
 * R0-R3 and the boot flags in R5.
 *
 * The console's convention (DEC, "VAX-11/780 Console ... DEFBOO.CMD" and
 * the per-device xxxBOO.CMD files; "VAX/VMS System Manager's Reference",
 * booting): after HALT, UNJAM and INIT,
 *   R0  = boot device type: 0 a MASSBUS disk, 17 a UDA50 (MSCP) disk
 *   R1  = the adapter's TR number (3: UBA0; 8: MBA0)
 *   R2  = for a UNIBUS device: (1 << 24) | (CSR & 0x3FFFF), the UDA50 at
 *         772150 giving 0x0103F468
 *   R3  = the unit, R4 = 0 (the boot block's logical block number)
 *   R5  = the boot flags (RPB$L_BOOTR5: 1 conversational, 0x10 stop in
 *         the Diagnostic Supervisor, ...)
 *   SP  = PC = 0x200, PSL = kernel, interrupt stack, IPL 31, MAPEN 0.
 * VMB then sizes memory, builds the restart parameter block, initialises
 * the adapter and the device and reads what the flags and the disk say.
 */
#ifndef VAX_BOOT_VMB_H
#define VAX_BOOT_VMB_H

#include <stddef.h>
#include <stdint.h>

#include "vax.h"

#define VMB_LOAD_ADDR 0x200u
#define VMB_DEV_MASSBUS 0u
#define VMB_DEV_UDA50 17u
#define VMB_FLAG_DIAG 0x10u    /* boot the Diagnostic Supervisor */

/* The registers VMB reads: R0-R5 as above. */
typedef struct {
    uint32_t r[6];
} vmb_boot_regs;

/* Parse a console device name, "duaN" (the UDA50 at 772150 on UBA0, unit
 * N 0..3), into R0-R4.  Returns 0, or -1 with a message. */
int vmb_boot_device(const char *name, vmb_boot_regs *regs, char *err, size_t errlen);

/* Load the VMB image (len bytes: a non-empty whole number of 512-byte
 * blocks, as a VMS image file is) at VMB_LOAD_ADDR and set the processor
 * up as above with R5 = flags.  Returns 0, or -1 with a message (an
 * image that is empty, truncated or does not fit in memory). */
int vax_boot_vmb(vax_machine *m, const uint8_t *vmb, size_t len, const vmb_boot_regs *regs, uint32_t flags,
                 char *err, size_t errlen);

#endif
