/*
 * fuzz_cpu.c — libFuzzer target for the whole processor: the input bytes
 * become the initial registers, PSL, memory-management registers and the
 * contents of physical memory, and the machine runs a bounded number of
 * instructions.  Any crash, hang, sanitizer report or broken invariant
 * (abort) is a bug in the emulator: whatever the guest does must end in
 * an architected fault or a clean stop.
 *
 * Not built by the Makefile (it is not tests/test_*.c).  Build and run from
 * the repository root:
 *
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 \
 *       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iemu/src -Iemu/build/gen \
 *       emu/tests/fuzz/fuzz_cpu.c $(find emu/src -name '*.c') -o /tmp/fuzz_cpu
 *   mkdir -p /tmp/fuzz_corpus && /tmp/fuzz_cpu -timeout=10 -max_total_time=300 /tmp/fuzz_corpus
 *
 * (emu/build/gen holds build_id.h, which make -C emu native writes.  On
 * Debian the compiler may be called clang-14; libFuzzer comes with
 * libclang-rt-14-dev.  -std=c11 -D_POSIX_C_SOURCE as in the Makefile:
 * in clang's default gnu mode <string.h> declares ffs(), which clashes
 * with the typedef in src/boot/ffs.h.  -fno-sanitize-recover=all makes
 * undefined behaviour a crash instead of a message.)  A crash leaves
 * crash-<sha1> (a hang: timeout-<sha1>) behind; replay it with
 * /tmp/fuzz_cpu crash-<sha1>.
 *
 * Input layout (little-endian longwords; missing bytes read as zero):
 *   0..63    R0..R15
 *   64       PSL selector (turned into a PSL the processor could have)
 *   68       flags: bit 0 MAPEN, bit 1 raise an interrupt request,
 *            bit 2 the whole 780 system (adapters, console, clock,
 *            DZ11, TS11; 1 MB) instead of a bare processor,
 *            bits 8..9 memory-size selector (bare processor)
 *   72..99   SCBB, SBR, SLR, P0BR, P0LR, P1BR, P1LR
 *   100..119 KSP, ESP, SSP, USP, ISP
 *   120      SISR (pending software interrupts)
 *   124      PCBB
 *   128..    memory image, repeated to fill physical memory
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "machine.h"
#include "system/vax780.h"
#include "vax.h"

#define HDR 128

static uint32_t rd32(const uint8_t *d, size_t n, size_t off)
{
    uint32_t v = 0;
    for (size_t i = 0; i < 4; i++)
        if (off + i < n)
            v |= (uint32_t)d[off + i] << (8 * i);
    return v;
}

/* A PSL the processor itself could be running with. */
static uint32_t make_psl(uint32_t sel)
{
    uint32_t cur = sel & 3;
    uint32_t prv = cur + ((sel >> 2) & 3);
    if (prv > 3)
        prv = 3;
    uint32_t psl = (cur << PSL_CUR_SHIFT) | (prv << PSL_PRV_SHIFT) | ((sel >> 4) & 0xFFu); /* CC T IV FU DV */
    if (sel & (1u << 12))
        psl |= PSL_FPD;
    if (cur == 3 && (sel & (1u << 14)))   /* a PDP-11 program (compatibility mode) */
        psl = (psl & ~(PSL_FPD | PSL_IV | PSL_DV | PSL_FU)) | PSL_CM;
    if (cur == 0) {
        psl |= ((sel >> 16) & 31u) << PSL_IPL_SHIFT;
        if (sel & (1u << 13))
            psl |= PSL_IS;
    }
    return psl;
}

static void sink(void *ctx, uint8_t ch)
{
    (void)ctx;
    (void)ch;
}

static void check(vax_machine *m, int st)
{
    uint32_t psl = vax_get_psl(m);
    uint32_t cur = PSL_GET_CUR(psl);
    const char *bad = NULL;
    if (st < 0 || st > VAX_STOP_SCB_HALT || st == VAX_STOP_HOST_REQUEST)
        bad = "invalid stop reason";
    else if (psl & PSL_MBZ)
        bad = "PSL MBZ bits set";
    else if ((psl & PSL_CM) && (cur != 3 || (psl & (PSL_FPD | PSL_IS | PSL_DV | PSL_FU | PSL_IV))))
        bad = "PSL compatibility mode outside user mode or with FPD/IS/DV/FU/IV";
    else if ((psl & PSL_IS) && cur != 0)
        bad = "interrupt stack outside kernel mode";
    else if (PSL_GET_PRV(psl) < cur)
        bad = "PSL previous mode more privileged than current";
    else if (cur != 0 && PSL_GET_IPL(psl) != 0)
        bad = "IPL above 0 outside kernel mode";
    if (bad) {
        fprintf(stderr, "fuzz_cpu: %s: stop %d (%s), PSL %08X PC %08X\n", bad, st, vax_stop_detail(m), psl,
                vax_get_reg(m, 15));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t flags = rd32(data, size, 68);
    static const uint32_t sizes[4] = {64u << 10, 128u << 10, 256u << 10, 64u << 10};
    vax780 *sys = NULL;
    vax_machine *m;
    if (flags & 4) {
        vax780_config scfg;
        char err[160];
        memset(&scfg, 0, sizeof scfg);
        scfg.memory_kb = 1024;
        sys = vax780_create(&scfg, err, sizeof err);
        if (!sys)
            return 0;
        vax780_set_console_output(sys, sink, NULL);
        m = sys->m;
    } else {
        vax_config cfg = {sizes[(flags >> 8) & 3]};
        m = vax_create(&cfg);
        if (!m)
            return 0;
    }
    uint32_t memsize = vax_memory_bytes(m);

    /* Memory: the image tiled over all of it. */
    if (size > HDR) {
        const uint8_t *img = data + HDR;
        size_t n = size - HDR;
        for (uint32_t pa = 0; pa < memsize; pa += (uint32_t)n) {
            size_t len = memsize - pa < n ? memsize - pa : n;
            vax_phys_write(m, pa, img, len);
        }
    }

    vax_set_ipr(m, IPR_SCBB, rd32(data, size, 72));
    vax_set_ipr(m, IPR_PCBB, rd32(data, size, 124));
    if (flags & 1) {
        vax_set_ipr(m, IPR_SBR, rd32(data, size, 76));
        vax_set_ipr(m, IPR_SLR, rd32(data, size, 80));
        vax_set_ipr(m, IPR_P0BR, rd32(data, size, 84));
        vax_set_ipr(m, IPR_P0LR, rd32(data, size, 88));
        vax_set_ipr(m, IPR_P1BR, rd32(data, size, 92));
        vax_set_ipr(m, IPR_P1LR, rd32(data, size, 96));
        vax_set_ipr(m, IPR_MAPEN, 1);
    }
    vax_set_psl(m, make_psl(rd32(data, size, 64)));
    for (int i = 0; i < 5; i++)
        vax_set_ipr(m, IPR_KSP + i, rd32(data, size, 100 + 4 * (size_t)i));
    for (int i = 0; i < 16; i++)
        if (i != 14)
            vax_set_reg(m, i, rd32(data, size, 4 * (size_t)i));
    vax_set_ipr(m, IPR_SISR, rd32(data, size, 120));
    if (flags & 2)
        machine_irq_raise(m, 16 + (int)((flags >> 16) & 15), (int)((flags >> 20) & 31),
                          (flags >> 24) * 4);

    for (int run = 0; run < 4; run++) {
        uint64_t budget = 2000, before = vax_instruction_count(m);
        int st = (int)vax_run(m, budget);
        uint64_t done = vax_instruction_count(m) - before;
        if (done > budget || (st == VAX_STOP_BUDGET && done != budget)) {
            fprintf(stderr, "fuzz_cpu: ran %llu instructions on a budget of %llu (stop %d)\n",
                    (unsigned long long)done, (unsigned long long)budget, st);
            abort();
        }
        if (st == VAX_STOP_HOST_REQUEST && sys)
            st = VAX_STOP_HALT;   /* the console's reboot request */
        check(m, st);
        if (st == VAX_STOP_BUDGET)
            break;
        /* Carry on after a HALT or a double fault, as a console would. */
    }
    if (sys)
        vax780_destroy(sys);
    else
        vax_destroy(m);
    return 0;
}
