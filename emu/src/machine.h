/*
 * machine.h — the one struct that holds an emulated VAX-11/780: processor,
 * memory management, physical memory and bus, interrupt requests and run
 * control.  Nothing in the library keeps state anywhere else, so any
 * number of machines can exist in one process.
 */
#ifndef VAX_MACHINE_H
#define VAX_MACHINE_H

#include <stdint.h>

#include "bus/bus.h"
#include "cpu/cpu.h"
#include "cpu/timing.h"
#include "mmu/cache.h"
#include "mmu/tlb.h"
#include "stats.h"
#include "vax.h"

/* A device's timed event (a clock tick, a seek finishing, a character
 * leaving a UART).  The device owns the struct; the machine keeps a list
 * of the pending ones.  Time is virtual: nanoseconds of modelled VAX
 * time, advanced by instructions executed, never by the host clock. */
typedef struct vax_event {
    uint64_t when_ns;
    void (*fire)(vax_machine *m, void *ctx);
    void *ctx;
    int pending;
} vax_event;

#define MAX_EVENTS 32

/* vax_machine.slice_state (below). */
enum { SLICE_FULL, SLICE_CLEAN, SLICE_LIMITS_KEPT };

/* Virtual ns = cost * ns_per_instruction / MACHINE_COST_SCALE_DEN (see
 * "Virtual time" below). */
#define MACHINE_COST_SCALE_DEN 2000u

struct vax_profile;

struct vax_machine {
    vax_cpu cpu;
    vax_tlb tlb;
    xlat_entry xlat[XLAT_SIZE];   /* the host's look-up in front of the TB (mmu/tlb.h) */
    vax_cache cache;   /* the timing simulation of the processor's cache (mmu/cache.h) */
    vax_bus bus;

    /* Instruction-fetch shortcut: host address of the page the PC is in,
     * valid while ib_tag == PC >> 9 (see mmu.h, ifetch); ib_pa is that
     * page's physical address.  ifetch_block: the 8-byte block of the
     * instruction stream the instruction buffer last fetched through the
     * cache (execute.c), as a virtual address >> 3. */
    uint32_t ib_tag;
    /* The fast form's test in one compare (execute.c): while the shortcut
     * holds a page, its virtual address (ib_tag << 9); else 1 << 32, which
     * no 32-bit PC xors to below 512.  Set with ib_tag, always. */
    uint64_t ib_fast;
    const uint8_t *ib_host;
    uint32_t ib_pa;
    uint32_t ifetch_block;
    /* The instruction count of the instruction that execute.c refilled the
     * fetch shortcut for and runs in the fast form with the checked
     * form's immediate reads (decode.h, dc_read); any other value (it is
     * UINT64_MAX at first) once that instruction is done, since icount has
     * moved on.  Host state: not part of the digest; reset, with the
     * shortcut, by machine_forget_host_shortcuts whenever icount could
     * move back (vax_reset, a snapshot restore). */
    uint64_t ib_refill_icount;

    /* Hardware interrupt requests: for each IPL (0x10..0x1F used), a mask
     * of requesting sources; each source's SCB offset. */
    uint32_t irq_pending[32];
    uint16_t irq_vector[32][32];

    /* Processor registers that belong to devices (interval clock, TODR,
     * console terminal, SBI registers): the system model installs these;
     * they return 1 if they handled the register.  Without them the
     * registers just hold what was written. */
    int (*ipr_read_ext)(vax_machine *m, int ipr, uint32_t *value);
    int (*ipr_write_ext)(vax_machine *m, int ipr, uint32_t value);
    void *system;   /* the system model's own state (devices), if any */

    /* Virtual time.  Each instruction adds its modelled cost (cpu/timing.h:
     * nanoseconds of the modelled processor) to `cost`; virtual time is
     * time_base_ns + (cost - cost_base) * ns_per_instruction / 2000.  The
     * scale is 1 (2000) for both processor models; 3333 on the 780 model
     * is the old preset, "a 750 runs at 0.6 of a 780" (the paper's
     * assumption), kept for comparison.  The bases move only when the
     * scale changes.  `tm` holds the costs, of the
     * processor `cpu_model` (cpu/timing.h: a 780 or a 750, each with its
     * own cache and TB; 0 for the flat model). */
    uint64_t cost_base, time_base_ns;
    uint32_t ns_per_instruction;
    vax_timing tm;
    int cpu_model;
    int nevents;
    vax_event *events[MAX_EVENTS];

    /* Run control.  The instruction loop runs while icount < run_limit
     * (the caller's instruction budget) and cost < cost_limit (the cost at
     * which the next device event falls due); anything that needs the
     * outer loop's attention (an interrupt that may now be deliverable,
     * trace, a stop request, a new event) sets run_limit to 0. */
    uint64_t icount;
    uint64_t run_limit;
    uint64_t cost;          /* see "Virtual time" above */
    uint64_t cost_limit;
    uint64_t budget_end;
    /* What the outer loop (vax_run) must redo after the instruction loop
     * stopped.  SLICE_FULL: everything (events, interrupts, the limits).
     * SLICE_CLEAN: vax_run worked out the limits and took the interrupt
     * due, and no pending event has been cancelled since (a new one stops
     * the loop anyway).  SLICE_LIMITS_KEPT: clean, and the loop stopped
     * only for the idle look after an MTPR to IPL or an REI that left no
     * interrupt deliverable: no event is due before cost_limit and none
     * to take, so vax_run keeps its limits (cpu/idle.c, cpu_ipl_written;
     * machine.c).  Host state, not in snapshots. */
    uint8_t slice_state;
    int stop_requested;
    vax_stop_reason stop_reason;
    char stop_detail[160];

    /* Statistics (stats.h).  Instructions and time go to the accounting
     * slot acct_slot (VAX_STATS_KERNEL ... VAX_STATS_INTERRUPT) from
     * instruction count acct_icount / virtual time acct_ns on; the slot
     * changes only with the PSL's mode or IS bit (cpu_set_psl). */
    vax_stats stats;
    int acct_slot;
    uint64_t acct_icount, acct_ns;

    /* Skip over idle loops (cpu/idle.c); off unless the host turns it on.
     * idle_retry_pc: where the last look that could not decide was. */
    int idle_skip;
    uint32_t idle_retry_pc;

    /* The profiler (profile/profile.h), NULL when off: the processor calls
     * its hooks only when this is set. */
    struct vax_profile *prof;

    /* Bit L set when irq_pending[L] (above) has a source: derived from
     * irq_pending (kept by machine_irq_raise and machine_irq_clear,
     * recomputed by machine_irq_levels_refresh after anything else writes
     * it), so that the outer loop finds the highest requesting level
     * without a look at every level above the IPL.  Host state: not
     * saved, not digested.  Last in the struct, so that adding it moved
     * no other field. */
    uint32_t irq_levels;
    /* While the fetch shortcut holds a page: ib_pa's block number less
     * ib_tag's first block's (ib_pa >> 3) - (ib_tag << 6), so that the
     * physical block of a pc in the page is (pc >> 3) + ib_block_delta
     * (mmu.h, ifetch_account_mapped).  Set with ib_pa; host state, last in
     * the struct so that it moves no other field. */
    uint32_t ib_block_delta;
    /* While the fetch shortcut holds a page (ib_fast is then its address):
     * ib_host's address less ib_fast, so that ib_bias + pc is pc's host
     * address, one add (execute.c's opcode; decode.h, dctx.bias).  Set
     * with ib_host; host state, last in the struct so that it moves no
     * other field. */
    uintptr_t ib_bias;
#if defined(VAX_JIT) && VAX_JIT
    /* The block compiler's state (jit/jit.h), NULL while it is off: only
     * in the build made with WASM_JIT=1, so that the default build's
     * machine is what it was. */
    struct vax_jit *jit;
#endif
};

/* Forget the host-side shortcuts that hold for the machine's state as it
 * was: the instruction-fetch shortcut (ib_tag, ib_host, ib_pa: a host
 * pointer) and ib_refill_icount.  Neither is guest state (no digest holds
 * them); anything that replaces the machine's state wholesale or moves
 * icount back, such as vax_reset or a snapshot restore, must call this, so
 * that the next instruction refills the shortcut from the TB as it is and
 * no later instruction is taken for the one after a refill.  (Nothing else
 * is cached across instructions: the page cursors of mmu.h live within
 * one instruction.) */
void machine_forget_host_shortcuts(vax_machine *m);

/* Record why the machine stopped (printf-style detail). */
void machine_set_stop(vax_machine *m, vax_stop_reason r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Virtual time now, in nanoseconds. */
uint64_t machine_time_ns(const vax_machine *m);

/* Change the CPU preset's scale (see ns_per_instruction above) without
 * changing the time already elapsed. */
void machine_set_ns_per_instruction(vax_machine *m, uint32_t ns);

/* Schedule e to fire delay_ns from now (rescheduling it if pending);
 * cancel it.  Events fire between instructions, in time order. */
void machine_event_schedule(vax_machine *m, vax_event *e, uint64_t delay_ns);
void machine_event_cancel(vax_machine *m, vax_event *e);

/* Request/clear a hardware interrupt from source `source` (0..31) at
 * level ipl with the given SCB offset. */
void machine_irq_raise(vax_machine *m, int ipl, int source, uint32_t scb_offset);
void machine_irq_clear(vax_machine *m, int ipl, int source);
/* Recompute irq_levels from irq_pending (after a reset or a snapshot restore). */
void machine_irq_levels_refresh(vax_machine *m);

/* The device levels (16-31) above ipl with a request pending, as a mask of
 * levels: what the outer loop takes and what the idle look must not skip past. */
static inline uint32_t machine_irq_levels_above(const vax_machine *m, uint32_t ipl)
{
    return m->irq_levels & ~((2u << ipl) - 1u) & 0xFFFF0000u;
}

/* Could an interrupt be taken at this IPL now: a device's above it, or a
 * software one (SISR) above it?  (vax_run's service_interrupts takes the
 * highest of them.) */
static inline int machine_interrupt_deliverable(const vax_machine *m, uint32_t ipl)
{
    if (machine_irq_levels_above(m, ipl))
        return 1;
    uint32_t above = ipl >= 15 ? 0 : 0xFFFEu & ~((2u << ipl) - 1);
    return (m->cpu.sisr & above) != 0;
}

/* Statistics bookkeeping (stats.c).  machine_account_mode: the
 * instructions before instruction count `boundary` belong to the current
 * slot, those from it on to `slot`; the time so far (which includes the
 * current instruction's base cost, charged at its start) to the current
 * slot.  machine_account_idle: n instructions costing `cost` were skipped
 * in an idle loop (cpu/idle.c): they count as executed but belong to no
 * mode. */
void machine_account_mode(vax_machine *m, int slot, uint64_t boundary);
void machine_account_idle(vax_machine *m, uint64_t n, uint64_t cost);

#endif
