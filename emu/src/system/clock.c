/*
 * clock.c — interval timer and time-of-year clock.
 */
#include "system/clock.h"

#include "cpu/cpu.h"
#include "snapshot/snap.h"

#define ICCS_RUN 0x00000001u
#define ICCS_TRANS 0x00000010u
#define ICCS_SS 0x00000020u
#define ICCS_IE 0x00000040u
#define ICCS_INT 0x00000080u
#define ICCS_ERR 0x80000000u
#define CLOCK_IPL 0x18
#define CLOCK_SCB 0xC0

/* Microseconds from a count to overflow: ICR counts up to 0xFFFFFFFF. */
static uint64_t us_to_overflow(uint32_t icr)
{
    return (uint64_t)(0xFFFFFFFFu - icr) + 1;
}

static uint32_t current_icr(const vax_machine *m, const vax_clock *k)
{
    if (!(k->iccs & ICCS_RUN))
        return k->icr_at_reload;
    uint64_t us = (machine_time_ns(m) - k->reload_ns) / 1000;
    return k->icr_at_reload + (uint32_t)us;
}

/* The next overflow falls due exactly a count's worth of microseconds after
 * ICR was last loaded, whenever this is called. */
static void schedule(vax_machine *m, vax_clock *k)
{
    if (k->iccs & ICCS_RUN) {
        uint64_t due = k->reload_ns + us_to_overflow(k->icr_at_reload) * 1000;
        uint64_t now = machine_time_ns(m);
        machine_event_schedule(m, &k->tick, due > now ? due - now : 0);
    } else {
        machine_event_cancel(m, &k->tick);
    }
}

static void reload(vax_clock *k, uint64_t at_ns)
{
    k->icr_at_reload = k->nicr;
    k->reload_ns = at_ns;
}

/* How long after an overflow its interrupt is requested: 0 without a
 * sample seed; with one, a pseudo-random delay, uniform below half the
 * period the overflow has just loaded.  Why: the interval clock's 10 ms
 * and the processor's work run on one virtual clock here, and a loop of
 * system calls falls into step with it — the ticks then land at the same
 * few points of every iteration, and the kernel's statistical clock
 * (hardclock charges the whole tick to the mode it interrupted, or to no
 * one when noproc is set) charges what those points happen to be:
 * vforks0's system time went from 11.2 to 18.0 s as hz went from 104 to
 * 108 (emu/docs/timing.md).  A real 750's work is not periodic to the
 * microsecond, and its clock is not in step with it.  Half a period: 4.3BSD's
 * microtime() counts a pending tick only while ICR is in the first half of
 * its period, so within that the time of day stays exact. */
static uint64_t sample_delay_ns(vax_clock *k)
{
    if (!k->sample_seed)
        return 0;
    uint32_t x = k->sample_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    k->sample_state = x;
    uint64_t half_period_ns = us_to_overflow(k->nicr) * 500u;
    return (uint64_t)x * half_period_ns >> 32;
}

static void request_interrupt(vax_machine *m, void *ctx)
{
    vax_clock *k = ctx;
    if ((k->iccs & (ICCS_INT | ICCS_IE)) == (ICCS_INT | ICCS_IE))
        machine_irq_raise(m, CLOCK_IPL, 0, CLOCK_SCB);
}

/* ICR passed 0xFFFFFFFF at virtual time at_ns: set INT (and ERR when the
 * previous INT was not yet cleared: a missed interrupt), reload ICR from
 * NICR as of then, and request the interrupt if IE is set (with a sample
 * seed, a little later). */
static void count_overflow(vax_machine *m, vax_clock *k, uint64_t at_ns)
{
    if (k->iccs & ICCS_INT)
        k->iccs |= ICCS_ERR;
    k->iccs |= ICCS_INT;
    reload(k, at_ns);
    if (k->iccs & ICCS_IE) {
        k->ticks++;
        uint64_t request_ns = at_ns + sample_delay_ns(k), now = machine_time_ns(m);
        if (request_ns > now)
            machine_event_schedule(m, &k->deliver, request_ns - now);
        else
            machine_irq_raise(m, CLOCK_IPL, 0, CLOCK_SCB);
    }
}

/* The overflow event runs between instructions, so after its due time by as
 * much as the instruction in progress took (a MOVC3 of a 5 KB u-area: 3 ms
 * on the 750 model).  The counter does not wait for the instruction: the
 * overflow, the reload and the next period count from the due time, so the
 * clock keeps its rate however long the instructions are.  (Reloading at
 * the event's own time made the clock lose that lateness at every tick:
 * 2.5% of the time in a loop of forks, whose /bin/time figures it shrank.) */
static void overflow(vax_machine *m, void *ctx)
{
    vax_clock *k = ctx;
    count_overflow(m, k, k->tick.when_ns);
    schedule(m, k);
}

void clock_init(vax_clock *k, uint32_t todr_initial)
{
    *k = (vax_clock){0};
    k->tick.fire = overflow;
    k->tick.ctx = k;
    k->deliver.fire = request_interrupt;
    k->deliver.ctx = k;
    k->todr_base = todr_initial;
}

void clock_set_sample_seed(vax_clock *k, uint32_t seed)
{
    k->sample_seed = seed;
    /* A non-zero xorshift state of its own (not the disks' sequence). */
    k->sample_state = seed ? (seed * 2246822519u) ^ 0x85EBCA6Bu : 0;
    if (seed && !k->sample_state)
        k->sample_state = 1;
}

void clock_reset(vax_machine *m, vax_clock *k)
{
    uint32_t todr;
    clock_ipr_read(m, k, IPR_TODR, &todr);
    uint32_t seed = k->sample_seed, state = k->sample_state;
    machine_event_cancel(m, &k->tick);
    machine_event_cancel(m, &k->deliver);
    clock_init(k, 0);
    k->sample_seed = seed;   /* the machine's, not the clock's state */
    k->sample_state = state;
    clock_ipr_write(m, k, IPR_TODR, todr);
}

int clock_ipr_read(vax_machine *m, vax_clock *k, int ipr, uint32_t *value)
{
    switch (ipr) {
    case IPR_ICCS: *value = k->iccs; return 1;
    case IPR_NICR: *value = k->nicr; return 1;
    case IPR_ICR: *value = current_icr(m, k); return 1;
    case IPR_TODR:
        *value = k->todr_base + (uint32_t)((machine_time_ns(m) - k->todr_set_ns) / 10000000u);
        return 1;
    }
    return 0;
}

int clock_ipr_write(vax_machine *m, vax_clock *k, int ipr, uint32_t v)
{
    switch (ipr) {
    case IPR_ICCS: {
        uint32_t icr = current_icr(m, k);
        uint32_t was_running = k->iccs & ICCS_RUN;
        k->iccs &= ~(v & (ICCS_INT | ICCS_ERR));   /* write 1 to clear */
        k->iccs = (k->iccs & ~(ICCS_RUN | ICCS_IE)) | (v & (ICCS_RUN | ICCS_IE));
        /* Starting or stopping the count takes ICR as it is now; a write
         * that leaves it running (hardclock's, clearing INT at every tick)
         * leaves the count alone, to the nanosecond. */
        if (!was_running || !(k->iccs & ICCS_RUN)) {
            k->icr_at_reload = icr;
            k->reload_ns = machine_time_ns(m);
        }
        if (v & ICCS_TRANS)
            reload(k, machine_time_ns(m));
        /* SGL with RUN clear counts ICR up by one; a count that wraps to
         * zero is an overflow like any other (VAX-11/780 Hardware
         * Handbook, interval clock: ICCS<SGL>; DEC's EVKAA test 13 checks
         * INT and ERR after it). */
        if ((v & ICCS_SS) && !(v & ICCS_RUN) && ++k->icr_at_reload == 0)
            count_overflow(m, k, machine_time_ns(m));
        /* The interrupt request is INT and IE together: setting IE while
         * INT is still set requests it, clearing IE withdraws it. */
        if ((k->iccs & (ICCS_INT | ICCS_IE)) == (ICCS_INT | ICCS_IE))
            machine_irq_raise(m, CLOCK_IPL, 0, CLOCK_SCB);
        else
            machine_irq_clear(m, CLOCK_IPL, 0);
        schedule(m, k);
        return 1;
    }
    case IPR_NICR: k->nicr = v; return 1;
    case IPR_ICR: return 1;   /* read-only */
    case IPR_TODR:
        k->todr_base = v;
        k->todr_set_ns = machine_time_ns(m);
        return 1;
    }
    return 0;
}

/* Seconds from 1 January 00:00 UTC of t's year to t. */
static int64_t seconds_into_year(int64_t t)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    int64_t year = 1970;
    for (;;) {
        int64_t len = ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0) ? 366 : 365;
        if (days < 0) {
            year--;
            days += ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0) ? 366 : 365;
        } else if (days >= len) {
            days -= len;
            year++;
        } else {
            break;
        }
    }
    return days * 86400 + secs;
}

uint32_t clock_todr_for_unix_time(int64_t t)
{
    return (1u << 28) + (uint32_t)seconds_into_year(t) * 100u;
}

void clock_snap(vax_clock *k, vax_snap *s)
{
    snap_u32(s, &k->iccs);
    snap_u32(s, &k->nicr);
    snap_u64(s, &k->reload_ns);
    snap_u32(s, &k->icr_at_reload);
    snap_event(s, &k->tick);
    snap_u32(s, &k->todr_base);
    snap_u64(s, &k->todr_set_ns);
    snap_u64(s, &k->ticks);
    snap_same_u32(s, k->sample_seed, "disk spin seed (the clock's sample seed)");
    snap_u32(s, &k->sample_state);
    snap_event(s, &k->deliver);
}
