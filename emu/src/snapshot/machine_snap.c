/*
 * machine_snap.c — the machine's own state in a snapshot (snap.h): the
 * processor's registers and per-instruction bookkeeping, the translation
 * buffer and the cache simulation (their contents decide what later
 * accesses cost, so virtual time depends on them), the instruction-fetch
 * shortcut, interrupt requests, virtual time and its accounting by mode,
 * the statistics and guest memory.
 *
 * Every field of vax_machine that can change while the machine runs is
 * here, or is derived from what is here (host pointers into memory), or is
 * reset by vax_run at every call (run_limit, cost_limit, budget_end, the
 * stop reason).  A field added to vax_machine, vax_cpu, vax_tlb or
 * vax_cache must be added here too; the tests that run a restored system
 * beside the original (test_snapshot, emu/wasm/snapshot.test.ts) notice
 * when one is missing.
 */
#include "machine.h"
#include "mmu/mmu.h"
#include "snapshot/snap.h"

#include <string.h>

static void cpu_snap(vax_cpu *c, vax_snap *s)
{
    snap_u32_array(s, c->r, 16);
    /* The PSL whole, as the format has always held it: composed for a save,
     * split again for a restore (cpu.h, vax_cpu). */
    uint32_t psl = cpu_psl(c);
    snap_u32(s, &psl);
    cpu_store_psl(c, psl);
    snap_u32_array(s, c->sp_save, 5);
    snap_u32(s, &c->p0br);
    snap_u32(s, &c->p0lr);
    snap_u32(s, &c->p1br);
    snap_u32(s, &c->p1lr);
    snap_u32(s, &c->sbr);
    snap_u32(s, &c->slr);
    snap_u32(s, &c->pcbb);
    snap_u32(s, &c->scbb);
    snap_u32(s, &c->astlvl);
    snap_u32(s, &c->sisr);
    snap_u32(s, &c->mapen);
    snap_u32_array(s, c->ipr_misc, IPR_COUNT);
    snap_u32(s, &c->instr_pc);
    snap_u8(s, &c->rlog_n);
    snap_bytes(s, c->rlog_reg, sizeof c->rlog_reg);
    for (int i = 0; i < 8; i++)
        snap_i8(s, &c->rlog_delta[i]);
    snap_u8(s, &c->trap_pending);
    snap_u8(s, &c->arith_code);
    snap_u8(s, &c->compat_code);
    snap_u32(s, &c->fault_param);
    snap_u32(s, &c->fault_va);
    snap_u32(s, &c->mchk_summary);
    snap_u32(s, &c->mchk_address);
    if (snap_restoring(s) && c->rlog_n > 8)
        snap_fail(s, "snapshot damaged: %u logged register changes", c->rlog_n);
}

/* The TB: each entry's tag, page and access bits (its host pointer is made
 * again by restore_host_caches). */
static void tlb_snap(vax_machine *m, vax_snap *s)
{
    vax_tlb *t = &m->tlb;
    snap_same_u32(s, t->half_mask, "translation buffer sets");
    snap_same_u32(s, t->half_shift, "translation buffer halves");
    for (unsigned i = 0; i < TLB_MAX_SETS * TLB_WAYS; i++) {
        tlb_entry *e = &t->e[i];
        snap_u32(s, &e->tag);
        snap_u32(s, &e->pa);
        snap_u32(s, &e->access);
    }
    snap_bytes(s, t->next_victim, sizeof t->next_victim);
    if (snap_restoring(s))
        for (unsigned i = 0; i < TLB_MAX_SETS; i++)
            t->next_victim[i] &= 1u;
}

static void cache_snap(vax_cache *c, vax_snap *s)
{
    snap_same_u32(s, c->set_mask, "cache sets");
    snap_same_u32(s, c->ways, "cache ways");
    snap_same_u32(s, c->miss_cost, "cache miss cost");
    snap_u32_array(s, c->tag, CACHE_MAX_SETS * 2);
    snap_u32(s, &c->random);
    snap_u64(s, &c->misses);
}

/* The counters are all uint64_t (stats.h), saved in their order. */
_Static_assert(sizeof(vax_stats) % sizeof(uint64_t) == 0, "vax_stats holds only uint64_t counters");
#define STATS_WORDS (sizeof(vax_stats) / sizeof(uint64_t))

static void stats_snap(vax_stats *st, vax_snap *s)
{
    uint64_t w[STATS_WORDS];
    memcpy(w, st, sizeof w);
    snap_same_u32(s, (uint32_t)STATS_WORDS, "statistics counters");
    snap_u64_array(s, w, STATS_WORDS);
    if (snap_restoring(s) && !snap_failed(s))
        memcpy(st, w, sizeof w);
}

/* The timing model is configuration (the CPU model picks it): compared, not
 * restored. */
/*
 * Host state derived from guest state, made again after a restore (never
 * saved: it is the host's, and a pointer means nothing in another process).
 * This is THE place for it: any cache the host keeps of guest state — the
 * TB's host page pointers, the instruction-fetch shortcut, and any later
 * cache of pre-decoded instructions or blocks — is rebuilt or dropped here,
 * after memory and the TB are restored.  What such a cache holds must not
 * decide virtual time (it is not in the snapshot), only how fast the host
 * gets there.
 */
static void restore_host_caches(vax_machine *m)
{
    for (unsigned i = 0; i < TLB_MAX_SETS * TLB_WAYS; i++) {
        tlb_entry *e = &m->tlb.e[i];
        e->host = e->tag != TLB_INVALID && e->pa < m->bus.mem_size && m->bus.mem_size - e->pa >= 512u
                      ? m->bus.mem + e->pa
                      : NULL;
    }
    mmu_xlat_rebuild(m);
    /* The instruction-fetch shortcut: its page, if it still has one (kept as
     * saved rather than forgotten, so that the restored machine takes the
     * same fetch path as the saved one from its first instruction on). */
    if (m->ib_tag != TLB_INVALID && m->ib_pa < m->bus.mem_size && m->bus.mem_size - m->ib_pa >= 512u)
        ifetch_point(m, m->ib_tag << 9, m->bus.mem + m->ib_pa, m->ib_pa);
    else
        ib_invalidate(m);
    /* The rest of what machine_forget_host_shortcuts forgets (machine.h): no
     * instruction of the restored run is the one after a refill. */
    m->ib_refill_icount = UINT64_MAX;
    /* Caches of decoded instructions (host state, not the guest's): drop them here. */
}

static uint64_t timing_digest(const vax_timing *t)
{
    uint64_t h = 0xCBF29CE484222325ull;
    const uint16_t *v = (const uint16_t *)(const void *)t;
    _Static_assert(sizeof(vax_timing) % sizeof(uint16_t) == 0, "vax_timing holds 16-bit costs");
    for (size_t i = 0; i < sizeof(vax_timing) / sizeof(uint16_t); i++) {
        h ^= v[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

void machine_snap(vax_machine *m, vax_snap *s)
{
    snap_begin(s, "CPU ");
    snap_same_u32(s, (uint32_t)m->cpu_model, "processor model");
    snap_same_u32(s, m->ns_per_instruction, "nanoseconds per instruction (the cost model's scale)");
    snap_same_u64(s, timing_digest(&m->tm), "timing model");
    snap_same_u32(s, (uint32_t)m->idle_skip, "idle skipping");
    cpu_snap(&m->cpu, s);
    snap_end(s);

    snap_begin(s, "TB  ");
    tlb_snap(m, s);
    snap_u32(s, &m->ib_tag);
    snap_u32(s, &m->ib_pa);
    snap_u32(s, &m->ifetch_block);
    snap_end(s);

    snap_begin(s, "CACH");
    cache_snap(&m->cache, s);
    snap_end(s);

    snap_begin(s, "TIME");
    snap_u64(s, &m->icount);
    snap_u64(s, &m->cost);
    snap_u64(s, &m->cost_base);
    snap_u64(s, &m->time_base_ns);
    snap_u32_array(s, m->irq_pending, 32);
    if (snap_restoring(s))
        machine_irq_levels_refresh(m);
    for (int i = 0; i < 32; i++)
        snap_u16_array(s, m->irq_vector[i], 32);
    snap_u32(s, &m->idle_retry_pc);
    snap_int(s, &m->acct_slot, 0, VAX_STATS_NSLOTS - 1);
    snap_u64(s, &m->acct_icount);
    snap_u64(s, &m->acct_ns);
    stats_snap(&m->stats, s);
    snap_event_count(s);
    if (snap_restoring(s)) {
        /* vax_run sets these at its start; the rest of the run control
         * starts clear, as in a machine that has just stopped. */
        m->run_limit = 0;
        m->cost_limit = 0;
        m->budget_end = m->icount;
        m->stop_requested = 0;
        m->stop_reason = VAX_STOP_BUDGET;
        m->stop_detail[0] = 0;
    }
    snap_end(s);

    snap_begin(s, "MEM ");
    snap_memory(s, m->bus.mem, m->bus.mem_size);
    snap_end(s);

    /* Even after a failed restore: the host pointers then agree with what
     * the TB holds, whatever that is. */
    if (snap_restoring(s))
        restore_host_caches(m);
}
