/*
 * test_interrupts.c — the outer loop's hardware interrupt requests.
 *
 * vax_run finds the highest requesting level from a mask of the levels
 * with a request (machine.h, irq_levels) instead of looking at every level
 * above the IPL.  The mask must say exactly which entries of irq_pending
 * have a source, after every request and clear and after irq_pending is
 * written wholesale (as a snapshot restore does), and the interrupt taken
 * must be the one the look at every level finds: the highest level above
 * the IPL (16 and up), its lowest-numbered source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

#include "check.h"

/* The mask as the loop over irq_pending computes it. */
static uint32_t levels_of(const vax_machine *m)
{
    uint32_t l = 0;
    for (int level = 0; level < 32; level++)
        if (m->irq_pending[level])
            l |= 1u << level;
    return l;
}

/* The request the look at every level from 31 down takes at this IPL:
 * level and source, or level -1. */
static void first_request(const vax_machine *m, int ipl, int *level, int *source)
{
    *level = -1;
    *source = -1;
    for (int l = 31; l > ipl && l >= 16; l--)
        if (m->irq_pending[l]) {
            int s = 0;
            while (!(m->irq_pending[l] & (1u << s)))
                s++;
            *level = l;
            *source = s;
            return;
        }
}

static uint32_t next_random(uint32_t *x)
{
    *x = *x * 1103515245u + 12345u;
    return *x >> 8;
}

static void test_mask_follows_requests(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create");
    if (!m)
        return;
    uint32_t x = 1;
    int bad = 0;
    for (int i = 0; i < 20000 && !bad; i++) {
        uint32_t r = next_random(&x);
        int ipl = (int)(r % 40) - 4;   /* also out of range: the machine masks it */
        int src = (int)((r >> 6) % 36);
        if ((r >> 12) & 1)
            machine_irq_raise(m, ipl, src, 0x100);
        else
            machine_irq_clear(m, ipl, src);
        if (i % 997 == 0) {   /* written wholesale, as a snapshot restore writes it */
            for (int l = 0; l < 32; l++)
                m->irq_pending[l] = (next_random(&x) & 3) ? 0 : next_random(&x);
            machine_irq_levels_refresh(m);
        }
        if (m->irq_levels != levels_of(m)) {
            CHECK(0, "step %d: irq_levels %08X, pending levels %08X", i, m->irq_levels, levels_of(m));
            bad = 1;
        }
    }
    vax_reset(m);
    CHECK(m->irq_levels == 0 && levels_of(m) == 0, "after reset: irq_levels %08X", m->irq_levels);
    vax_destroy(m);
}

/* Requests at several levels and sources; the processor, at IPL 0, takes
 * them one after the other, each handler a HALT.  Each time the taken
 * vector must be that of the request the full look picks, and the mask
 * must follow the acknowledgement. */
static void test_taken_in_order(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create");
    if (!m)
        return;
    static const struct {
        int level, source;
    } requests[] = {{0x15, 3}, {0x17, 5}, {0x17, 2}, {0x14, 0}, {0x1F, 31}, {0x10, 7}, {0x0F, 1}, {0x15, 0}};
    const int n = (int)(sizeof requests / sizeof requests[0]);
    for (int i = 0; i < n; i++) {
        uint32_t scb = 0x100u + 4u * (uint32_t)i;
        uint32_t handler = 0x3000u + 0x10u * (uint32_t)i;
        uint32_t vector = handler | 1u;   /* on the interrupt stack */
        uint8_t halt = 0x00;
        vax_phys_write(m, scb, &vector, 4);
        vax_phys_write(m, handler, &halt, 1);
        machine_irq_raise(m, requests[i].level, requests[i].source, scb);
    }
    static const uint8_t brb_self[] = {0x11, 0xFE};
    vax_phys_write(m, 0x2000, brb_self, sizeof brb_self);
    /* Level 0x0F is below the hardware levels: never taken. */
    for (int taken = 0; taken < n - 1; taken++) {
        int level, source;
        first_request(m, 0, &level, &source);
        CHECK(level >= 16, "round %d: nothing left to take", taken);
        if (level < 16)
            break;
        int which = -1;
        for (int i = 0; i < n; i++)
            if (requests[i].level == level && requests[i].source == source)
                which = i;
        vax_set_ipr(m, IPR_ISP, 0xA000);
        vax_set_ipr(m, IPR_KSP, 0x9000);
        vax_set_psl(m, 0);   /* kernel, IPL 0 */
        vax_set_reg(m, 15, 0x2000);
        vax_stop_reason stop = vax_run(m, 1000);
        uint32_t pc = vax_get_reg(m, 15);
        CHECK(stop == VAX_STOP_HALT && pc == 0x3000u + 0x10u * (uint32_t)which + 1u,
              "round %d: expected level %02X source %d's handler, stop %d at %08X", taken, level, source, stop, pc);
        CHECK(PSL_GET_IPL(vax_get_psl(m)) == (uint32_t)level, "round %d: IPL %u, level %02X", taken,
              PSL_GET_IPL(vax_get_psl(m)), level);
        CHECK(!(m->irq_pending[level] & (1u << source)) && m->irq_levels == levels_of(m),
              "round %d: request not acknowledged, or mask %08X against %08X", taken, m->irq_levels,
              levels_of(m));
    }
    CHECK(m->irq_levels == 1u << 0x0F, "left: %08X", m->irq_levels);
    vax_destroy(m);
}

/* The interrupt handler of the two tests below: a HALT, so that a run
 * stops in it once the interrupt is taken. */
#define HALTING_HANDLER 0x3000u

/* A 1 MB machine with idle skipping on or off and a HALT at
 * HALTING_HANDLER; NULL (and a failed check) if it cannot be made. */
static vax_machine *machine_with_halting_handler(int idle)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create");
    if (!m)
        return NULL;
    vax_set_idle_skip(m, idle);
    uint8_t halt = 0x00;
    vax_phys_write(m, HALTING_HANDLER, &halt, 1);
    return m;
}

/* MTPR to IPL inside a run: vax_run does not stop the instruction loop
 * for one that leaves no interrupt deliverable (and no idle loop to look
 * at), and goes straight to the look when there is one (machine.h,
 * slice_state).  An interrupt must still be taken right after the MTPR
 * that makes it deliverable, and not before: a device's (level 0x15),
 * and a software one requested by MTPR to SIRR at a higher IPL.  With
 * idle skipping on and off, and with the wait loop below (TSTL, BNEQ:
 * a loop the look recognises) after each MTPR or not. */
static void test_mtpr_ipl_in_a_run(void)
{
    for (int variant = 0; variant < 4; variant++) {
        int idle = variant & 1, device = !(variant & 2);
        vax_machine *m = machine_with_halting_handler(idle);
        if (!m)
            return;
        uint32_t handler = HALTING_HANDLER, vector = handler | 1u;   /* on the interrupt stack */
        uint8_t halt = 0x00;
        /* The program, from 0x2000 at IPL 0x1F: the IPL down to 0x18, 0x16
         * and 0x15 (a device request at 0x15 stays pending), an SIRR for
         * level 3 (below the IPL: pending), a wait-loop test that falls
         * through, then the IPL to 0x14 (the device's level is above it)
         * or, in the software variants, 0x15 (still nothing) and 2 (level
         * 3 above it).  The interrupt must come right after that last
         * MTPR, which ends at `after`. */
        static const uint8_t common[] = {
            0xDA, 0x18, 0x12,               /* mtpr #0x18, #IPL */
            0xDA, 0x16, 0x12,               /* mtpr #0x16, #IPL */
            0xDA, 0x15, 0x12,               /* mtpr #0x15, #IPL */
            0xDA, 0x03, 0x14,               /* mtpr #3, #SIRR */
            0xD5, 0x9F, 0x00, 0x40, 0, 0,   /* tstl @#0x4000 (non-zero) */
            0x13, 0xF8,                     /* beql back to the tstl: not taken */
        };
        static const uint8_t to_device[] = {0xDA, 0x14, 0x12};                     /* mtpr #0x14, #IPL */
        static const uint8_t to_soft[] = {0xDA, 0x15, 0x12, 0xDA, 0x02, 0x12};     /* mtpr #0x15; mtpr #2 */
        uint32_t nonzero = 1;
        vax_phys_write(m, 0x4000, &nonzero, 4);
        vax_phys_write(m, 0x2000, common, sizeof common);
        const uint8_t *tail = device ? to_device : to_soft;
        uint32_t tail_len = device ? (uint32_t)sizeof to_device : (uint32_t)sizeof to_soft;
        vax_phys_write(m, 0x2000 + (uint32_t)sizeof common, tail, tail_len);
        uint32_t after = 0x2000u + (uint32_t)sizeof common + tail_len;
        vax_phys_write(m, after, &halt, 1);   /* reached only if nothing is taken */
        uint32_t scb_device = 0x100u, scb_soft = 0x80u + 4u * 3u;
        vax_phys_write(m, scb_device, &vector, 4);
        vax_phys_write(m, scb_soft, &vector, 4);
        vax_set_ipr(m, IPR_SCBB, 0);
        vax_set_ipr(m, IPR_ISP, 0xA000);
        vax_set_ipr(m, IPR_KSP, 0x9000);
        vax_set_psl(m, 0x1Fu << 16);   /* kernel, IPL 0x1F */
        vax_set_reg(m, 15, 0x2000);
        if (device)
            machine_irq_raise(m, 0x15, 0, scb_device);
        vax_stop_reason stop = vax_run(m, 1000);
        uint32_t pc = vax_get_reg(m, 15), sp = vax_get_reg(m, 14), saved_pc = 0, saved_psl = 0;
        vax_phys_read(m, sp, &saved_pc, 4);
        vax_phys_read(m, sp + 4, &saved_psl, 4);
        uint64_t executed = 4 + 2 + (device ? 1 : 2) + 1;   /* the MTPRs and the test, then the handler's HALT */
        CHECK(stop == VAX_STOP_HALT && pc == handler + 1u, "variant %d: stop %d at %08X", variant, stop, pc);
        CHECK(saved_pc == after, "variant %d: interrupted at %08X, not %08X", variant, saved_pc, after);
        CHECK(PSL_GET_IPL(saved_psl) == (device ? 0x14u : 2u), "variant %d: saved IPL %u", variant,
              PSL_GET_IPL(saved_psl));
        CHECK(PSL_GET_IPL(vax_get_psl(m)) == (device ? 0x15u : 3u), "variant %d: IPL %u in the handler",
              variant, PSL_GET_IPL(vax_get_psl(m)));
        CHECK(vax_instruction_count(m) == executed, "variant %d: %llu instructions, not %llu", variant,
              (unsigned long long)vax_instruction_count(m), (unsigned long long)executed);
        vax_destroy(m);
    }
}

/* The same for REI, which leaves the IPL as it was (a system call's
 * return) or lowers it: from kernel mode at IPL 0x18, with a device
 * request at 0x15 pending, an REI to kernel mode at IPL 0x16 (nothing
 * deliverable: the loop goes on), then one to IPL 0x14, after which the
 * request is taken at once, before the instruction the REI returned to. */
static void test_rei_in_a_run(void)
{
    for (int idle = 0; idle < 2; idle++) {
        vax_machine *m = machine_with_halting_handler(idle);
        if (!m)
            return;
        uint32_t handler = HALTING_HANDLER, vector = handler | 1u, scb_device = 0x100u;
        uint8_t halt = 0x00;
        vax_phys_write(m, scb_device, &vector, 4);
        /* 0x2000: rei (to 0x2010, IPL 0x16); 0x2010: rei (to 0x2020, IPL
         * 0x14); 0x2020: halt, reached only if nothing is taken.  The
         * stack holds both frames: PC, PSL, PC, PSL. */
        static const uint8_t rei = 0x02;
        vax_phys_write(m, 0x2000, &rei, 1);
        vax_phys_write(m, 0x2010, &rei, 1);
        vax_phys_write(m, 0x2020, &halt, 1);
        const uint32_t frames[4] = {0x2010u, 0x16u << 16, 0x2020u, 0x14u << 16};
        vax_phys_write(m, 0x8000, frames, sizeof frames);
        vax_set_ipr(m, IPR_SCBB, 0);
        vax_set_ipr(m, IPR_ISP, 0xA000);
        vax_set_psl(m, 0x18u << 16);   /* kernel, IPL 0x18, on the kernel stack */
        vax_set_reg(m, 14, 0x8000);
        vax_set_reg(m, 15, 0x2000);
        machine_irq_raise(m, 0x15, 0, scb_device);
        vax_stop_reason stop = vax_run(m, 1000);
        uint32_t pc = vax_get_reg(m, 15), sp = vax_get_reg(m, 14), saved_pc = 0, saved_psl = 0;
        vax_phys_read(m, sp, &saved_pc, 4);
        vax_phys_read(m, sp + 4, &saved_psl, 4);
        CHECK(stop == VAX_STOP_HALT && pc == handler + 1u, "idle %d: stop %d at %08X", idle, stop, pc);
        CHECK(saved_pc == 0x2020u && PSL_GET_IPL(saved_psl) == 0x14u, "idle %d: interrupted at %08X, IPL %u",
              idle, saved_pc, PSL_GET_IPL(saved_psl));
        CHECK(vax_instruction_count(m) == 3, "idle %d: %llu instructions, not 3", idle,
              (unsigned long long)vax_instruction_count(m));
        vax_destroy(m);
    }
}

int main(void)
{
    test_mask_follows_requests();
    test_taken_in_order();
    test_mtpr_ipl_in_a_run();
    test_rei_in_a_run();
    return check_summary();
}
