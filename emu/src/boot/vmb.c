/*
 * vmb.c — starting DEC's primary bootstrap VMB (see vmb.h).
 */
#include "boot/vmb.h"

#include <string.h>

#include "boot/boot.h"
#include "boot/util.h"

int vmb_boot_device(const char *name, vmb_boot_regs *regs, char *err, size_t errlen)
{
    memset(regs, 0, sizeof *regs);
    if (name && (name[0] == 'd' || name[0] == 'D') && (name[1] == 'u' || name[1] == 'U') &&
        (name[2] == 'a' || name[2] == 'A') && name[3] >= '0' && name[3] <= '3' && name[4] == 0) {
        regs->r[0] = VMB_DEV_UDA50;
        regs->r[1] = 3;                                   /* UBA0's TR */
        regs->r[2] = (1u << 24) | (0772150u & 0x3FFFFu);  /* UNIBUS device, its CSR */
        regs->r[3] = (uint32_t)(name[3] - '0');
        regs->r[4] = 0;
        return 0;
    }
    boot_seterr(err, errlen, "boot device \"%s\": this 780 boots through VMB from dua0 to dua3 (the UDA50 at 772150)",
                name ? name : "");
    return -1;
}

int vax_boot_vmb(vax_machine *m, const uint8_t *vmb, size_t len, const vmb_boot_regs *regs, uint32_t flags,
                 char *err, size_t errlen)
{
    if (!m || !vmb || !regs || len == 0) {
        boot_seterr(err, errlen, "VMB image is empty");
        return -1;
    }
    if (len % 512u) {
        boot_seterr(err, errlen, "VMB image is %zu bytes, not a whole number of 512-byte blocks (truncated?)", len);
        return -1;
    }
    uint32_t mem = vax_memory_bytes(m);
    if (len > mem || VMB_LOAD_ADDR > mem - len) {
        boot_seterr(err, errlen, "VMB image (%zu bytes at 0x%x) does not fit in %u bytes of memory", len,
                    VMB_LOAD_ADDR, mem);
        return -1;
    }
    if (vax_phys_write(m, VMB_LOAD_ADDR, vmb, len) != 0) {
        boot_seterr(err, errlen, "cannot load VMB at 0x%x", VMB_LOAD_ADDR);
        return -1;
    }
    vax_boot_init_processor(m);
    for (int i = 0; i < 5; i++)
        vax_set_reg(m, i, regs->r[i]);
    vax_set_reg(m, 5, flags);
    vax_set_reg(m, 14, VMB_LOAD_ADDR);
    vax_set_reg(m, 15, VMB_LOAD_ADDR);
    vax_set_psl(m, BOOT_PSL);   /* also drops the instruction-fetch shortcut */
    return 0;
}
