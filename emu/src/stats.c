/*
 * stats.c — attributing instructions and virtual time to processor modes,
 * and reading the counters (stats.h).
 *
 * Time advances with the modelled cost of the instructions (machine.c,
 * cpu/timing.h); the split by mode is made at the boundaries where the
 * mode changes, never per instruction, with the time at the moment of the
 * change.
 */
#include <string.h>

#include "machine.h"
#include "profile/profile.h"

void machine_account_mode(vax_machine *m, int slot, uint64_t boundary)
{
    /* An instruction that changes mode part-way through is counted after
     * it completes; its caller passes icount + 1 as the boundary so that
     * it belongs to the mode it started in.  A boundary is never behind
     * the previous one. */
    if (boundary < m->acct_icount)
        boundary = m->acct_icount;
    if (m->prof)   /* the profile's split by mode follows this one exactly */
        profile_account(m, m->acct_slot, boundary);
    uint64_t t = machine_time_ns(m);
    m->stats.instr_mode[m->acct_slot] += boundary - m->acct_icount;
    m->stats.ns_mode[m->acct_slot] += t > m->acct_ns ? t - m->acct_ns : 0;
    m->acct_slot = slot;
    m->acct_icount = boundary;
    m->acct_ns = t;
}

void machine_account_idle(vax_machine *m, uint64_t n, uint64_t cost)
{
    machine_account_mode(m, m->acct_slot, m->icount);
    m->icount += n;
    m->cost += cost;
    if (m->prof)
        profile_idle(m);
    uint64_t t = machine_time_ns(m);
    m->stats.instr_idle += n;
    m->stats.ns_idle += t - m->acct_ns;
    m->stats.idle_skips++;
    m->acct_icount = m->icount;
    m->acct_ns = t;
}

void vax_stats_get(const vax_machine *m, vax_stats *out)
{
    memcpy(out, &m->stats, sizeof *out);
    uint64_t now = machine_time_ns(m);
    if (m->icount > m->acct_icount)
        out->instr_mode[m->acct_slot] += m->icount - m->acct_icount;
    if (now > m->acct_ns)
        out->ns_mode[m->acct_slot] += now - m->acct_ns;
    out->instructions = m->icount;
    out->ns_total = now;
}
