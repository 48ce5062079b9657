/*
 * exec_privileged.h — bodies of MTPR and MFPR on the decoding context
 * (decode.h, dctx): the kernel moves to and from processor registers
 * about one instruction in fifty, mostly the IPL.  Inline so that
 * execute.c's dispatch switch expands them in place, in the fast form with
 * the checked form's immediates (DC_FAST_CHECKED_IMM); privileged.c runs
 * the same bodies in the checked form.  The registers themselves are
 * privileged.c's (cpu_mtpr, cpu_mfpr).
 */
#ifndef VAX_EXEC_PRIVILEGED_H
#define VAX_EXEC_PRIVILEGED_H

#include "cpu/exec.h"

/* MTPR src.rl, procreg.rl (kernel mode only). */
ALWAYS_INLINE int op_mtpr(dctx *d)
{
    vax_machine *m = d->m;
    uint32_t v, ipr;
    if (PSL_GET_CUR(m->cpu.psl_without_cc) != MODE_KERNEL)
        return VAX_EXC_PRIVILEGED_INSTRUCTION;
    TRY(dc_read(d, 4, &v));
    TRY(dc_read(d, 4, &ipr));
    dc_sync_out(d);   /* what cpu_mtpr does may look at the PC (an interrupt request) */
    TRY(cpu_mtpr(m, ipr, v));
    cc_nz_keep_c(m, v, 4);
    return dc_done(d);
}

/* MFPR procreg.rl, dst.wl (kernel mode only). */
ALWAYS_INLINE int op_mfpr(dctx *d)
{
    vax_machine *m = d->m;
    uint32_t v, ipr;
    if (PSL_GET_CUR(m->cpu.psl_without_cc) != MODE_KERNEL)
        return VAX_EXC_PRIVILEGED_INSTRUCTION;
    TRY(dc_read(d, 4, &ipr));
    dc_sync_out(d);
    TRY(cpu_mfpr(m, ipr, &v));
    TRY(dc_write(d, 4, v));
    cc_nz_keep_c(m, v, 4);
    return dc_done(d);
}

#endif
