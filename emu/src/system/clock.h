/*
 * clock.h — the 780's interval timer (ICCS, NICR, ICR: a microsecond
 * counter that interrupts at IPL 0x18 through SCB 0xC0 when it overflows)
 * and the time-of-year register (TODR, in 10 ms units).  Both run on
 * virtual time, so a boot or a benchmark sees the same clock on any host.
 */
#ifndef VAX_CLOCK_H
#define VAX_CLOCK_H

#include <stdint.h>

#include "machine.h"

typedef struct vax_clock {
    uint32_t iccs, nicr;
    uint64_t reload_ns;     /* virtual time ICR was last loaded from NICR */
    uint32_t icr_at_reload;
    vax_event tick;
    uint32_t todr_base;     /* TODR at virtual time 0 */
    uint64_t todr_set_ns;   /* virtual time TODR was last written */
    uint64_t ticks;         /* interval-timer interrupts requested */
    /* With a seed (clock_set_sample_seed), each overflow's interrupt is
     * requested after a pseudo-random delay, so that the ticks sample the
     * work at phases of their own (0: at the overflow, the default). */
    uint32_t sample_seed, sample_state;
    vax_event deliver;      /* the delayed request of the current overflow */
} vax_clock;

void clock_init(vax_clock *k, uint32_t todr_initial);
/* Console INIT: the interval clock stops and clears; the TODR, battery
 * backed, keeps its time. */
void clock_reset(vax_machine *m, vax_clock *k);

/* The seed of the interrupt delays (vax_clock.sample_seed; 0: none).  A
 * machine's seed is set before it boots: a snapshot keeps the sequence's
 * state and is restored only into a machine with the same seed. */
void clock_set_sample_seed(vax_clock *k, uint32_t seed);

/* The TODR value for a UNIX time: 10 ms units since the start of that
 * year, above 1<<28 (TODRZERO in 4.3BSD's /sys/vax/clock.h). */
uint32_t clock_todr_for_unix_time(int64_t t);
int clock_ipr_read(vax_machine *m, vax_clock *k, int ipr, uint32_t *value);
int clock_ipr_write(vax_machine *m, vax_clock *k, int ipr, uint32_t value);

/* Its state in a snapshot (snapshot/snap.h). */
struct vax_snap;
void clock_snap(vax_clock *k, struct vax_snap *s);

#endif
