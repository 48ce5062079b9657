/*
 * test_clock.c — the 780's interval clock (system/clock.c) as software
 * sees it through MTPR/MFPR: ICCS, NICR, ICR.
 *
 * The rules checked (VAX-11/780 Hardware Handbook and the VAX Architecture
 * Reference Manual, interval clock): ICR counts up from NICR (loaded by
 * ICCS<XFR>); when it passes 0xFFFFFFFF it sets ICCS<INT> (ICCS<ERR> too
 * when INT was still set: a missed interrupt) and reloads from NICR; with
 * RUN clear, writing ICCS<SGL> counts ICR up by one, and an increment that
 * wraps is an overflow like any other (DEC's EVKAA, test 13, checks this).
 * The interrupt request (IPL 0x18) is INT and IE together.
 */
#include <string.h>

#include "check.h"
#include "cpu/cpu.h"
#include "system/vax780.h"
#include "vax.h"

#define RUN 0x01u
#define XFR 0x10u
#define SGL 0x20u
#define IE 0x40u
#define INT 0x80u
#define ERR 0x80000000u

static vax780 *make(void)
{
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    char err[256];
    vax780 *s = vax780_create(&cfg, err, sizeof err);
    if (!s)
        printf("vax780_create: %s\n", err);
    return s;
}

static int clock_irq(vax780 *s) { return (s->m->irq_pending[0x18] & 1u) != 0; }

static void test_single_step(void)
{
    vax780 *s = make();
    if (!s) {
        failed++;
        return;
    }
    vax_machine *m = s->m;
    vax_set_ipr(m, IPR_NICR, 0xFFFFFFFEu);
    vax_set_ipr(m, IPR_ICCS, XFR);
    CHECK(vax_get_ipr(m, IPR_ICR) == 0xFFFFFFFEu, "XFR loads ICR from NICR: %08x", vax_get_ipr(m, IPR_ICR));

    vax_set_ipr(m, IPR_ICCS, SGL);
    CHECK(vax_get_ipr(m, IPR_ICR) == 0xFFFFFFFFu, "SGL counts ICR up by one: %08x", vax_get_ipr(m, IPR_ICR));
    CHECK((vax_get_ipr(m, IPR_ICCS) & (INT | ERR)) == 0, "no overflow yet: ICCS %08x", vax_get_ipr(m, IPR_ICCS));

    /* The step that wraps: INT, ICR reloaded from NICR, no interrupt (IE clear). */
    vax_set_ipr(m, IPR_ICCS, SGL);
    CHECK((vax_get_ipr(m, IPR_ICCS) & (INT | ERR)) == INT, "a wrapping SGL sets INT only: ICCS %08x",
          vax_get_ipr(m, IPR_ICCS));
    CHECK(vax_get_ipr(m, IPR_ICR) == 0xFFFFFFFEu, "and reloads ICR from NICR: %08x", vax_get_ipr(m, IPR_ICR));
    CHECK(!clock_irq(s), "no interrupt request with IE clear");

    /* Setting IE while INT is set requests the interrupt; clearing IE withdraws it. */
    vax_set_ipr(m, IPR_ICCS, IE);
    CHECK(clock_irq(s), "IE with INT set requests the interrupt");
    vax_set_ipr(m, IPR_ICCS, 0);
    CHECK(!clock_irq(s), "clearing IE withdraws it");

    /* Overflow again while INT is still set: ERR (a missed interrupt). */
    vax_set_ipr(m, IPR_ICCS, SGL);
    vax_set_ipr(m, IPR_ICCS, SGL);
    CHECK((vax_get_ipr(m, IPR_ICCS) & (INT | ERR)) == (INT | ERR), "a second overflow sets ERR: ICCS %08x",
          vax_get_ipr(m, IPR_ICCS));

    /* Writing 1s to INT and ERR clears them. */
    vax_set_ipr(m, IPR_ICCS, INT | ERR);
    CHECK((vax_get_ipr(m, IPR_ICCS) & (INT | ERR)) == 0, "write 1 to clear: ICCS %08x", vax_get_ipr(m, IPR_ICCS));

    /* SGL does nothing while the clock runs. */
    vax_set_ipr(m, IPR_NICR, 0u - 1000u);
    vax_set_ipr(m, IPR_ICCS, RUN | XFR);
    uint32_t before = vax_get_ipr(m, IPR_ICR);
    vax_set_ipr(m, IPR_ICCS, RUN | SGL);
    CHECK(vax_get_ipr(m, IPR_ICR) == before, "SGL with RUN set does not count: %08x vs %08x",
          vax_get_ipr(m, IPR_ICR), before);
    vax780_destroy(s);
}

int main(void)
{
    test_single_step();
    return check_summary();
}
