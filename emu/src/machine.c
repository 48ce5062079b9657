/*
 * machine.c — creating a machine, the run loop around the instruction
 * loop (interrupt delivery, budgets, stop requests) and the public
 * accessors of vax.h.
 */
#include "machine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmu/mmu.h"
#include "profile/profile.h"
#if defined(VAX_JIT) && VAX_JIT
#include "jit/jit.h"
#endif

void machine_set_stop(vax_machine *m, vax_stop_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->stop_detail, sizeof m->stop_detail, fmt, ap);
    va_end(ap);
    m->stop_reason = r;
    m->stop_requested = 1;
    m->run_limit = 0;
}

static void reset_processor(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    memset(c, 0, sizeof *c);
    /* As after a console INIT: kernel mode on the interrupt stack, IPL 31. */
    c->psl_without_cc = PSL_IS | (31u << PSL_IPL_SHIFT);
    machine_account_mode(m, VAX_STATS_INTERRUPT, m->icount);
    c->astlvl = 4;   /* no AST pending */
    c->ipr_misc[IPR_SID] = VAX780_SID;
    mmu_flush_all(m);
}

void vax_reset(vax_machine *m)
{
    while (m->nevents > 0)
        machine_event_cancel(m, m->events[m->nevents - 1]);
    memset(m->irq_pending, 0, sizeof m->irq_pending);
    m->irq_levels = 0;
    reset_processor(m);
    machine_forget_host_shortcuts(m);
    if (m->prof)
        profile_machine_reset(m);
}

vax_machine *vax_create(const vax_config *cfg)
{
    uint32_t bytes = cfg ? cfg->memory_bytes : 8u << 20;
    bytes &= ~0xFFFFu;
    if (bytes == 0 || bytes > (512u << 20))
        return NULL;
    vax_machine *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->bus.mem = calloc(1, bytes);
    if (!m->bus.mem) {
        free(m);
        return NULL;
    }
    m->bus.mem_size = bytes;
    m->ns_per_instruction = 2000;   /* the model's costs as they are */
    vax_set_cpu_model(m, VAX_MODEL_780);
    reset_processor(m);
    machine_forget_host_shortcuts(m);
    return m;
}

void machine_forget_host_shortcuts(vax_machine *m)
{
    ib_invalidate(m);
    m->ib_refill_icount = UINT64_MAX;
}

void vax_destroy(vax_machine *m)
{
    if (!m)
        return;
    profile_disable(m);
#if defined(VAX_JIT) && VAX_JIT
    jit_enable(m, 0);   /* the compiled regions and their table slots */
#endif
    free(m->bus.mem);
    free(m);
}

void machine_irq_raise(vax_machine *m, int ipl, int source, uint32_t scb_offset)
{
    m->irq_vector[ipl & 31][source & 31] = (uint16_t)scb_offset;
    m->irq_pending[ipl & 31] |= 1u << (source & 31);
    m->irq_levels |= 1u << (ipl & 31);
    if (ipl > (int)PSL_GET_IPL(m->cpu.psl_without_cc))
        m->run_limit = 0;
}

void machine_irq_clear(vax_machine *m, int ipl, int source)
{
    m->irq_pending[ipl & 31] &= ~(1u << (source & 31));
    if (!m->irq_pending[ipl & 31])
        m->irq_levels &= ~(1u << (ipl & 31));
}

void machine_irq_levels_refresh(vax_machine *m)
{
    m->irq_levels = 0;
    for (int level = 0; level < 32; level++)
        if (m->irq_pending[level])
            m->irq_levels |= 1u << level;
}

static int highest_bit(uint32_t x)
{
    int n = -1;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
}

/* The scale is ns_per_instruction / 2000: 2000 is the 780's nominal
 * average instruction, for which the costs are written. */
#define COST_SCALE_DEN MACHINE_COST_SCALE_DEN

uint64_t machine_time_ns(const vax_machine *m)
{
    return m->time_base_ns + (m->cost - m->cost_base) * m->ns_per_instruction / COST_SCALE_DEN;
}

void machine_set_ns_per_instruction(vax_machine *m, uint32_t ns)
{
    m->time_base_ns = machine_time_ns(m);
    m->cost_base = m->cost;
    m->ns_per_instruction = ns ? ns : 1;
    m->run_limit = 0;   /* the event limit, in cost, changes with the scale */
}

/* The memory system of a model: the TB's geometry (its contents go) and
 * the cache's. */
static void set_memory_geometry(vax_machine *m, const vax_memory_geometry *g)
{
    uint32_t half = g->tb_half_sets, shift = 0;
    while ((1u << shift) < half)
        shift++;
    m->tlb.half_mask = half - 1;
    m->tlb.half_shift = shift;
    mmu_flush_all(m);
    cache_configure(&m->cache, g->cache_sets, g->cache_ways, m->tm.read_miss);
}

int vax_set_cpu_model(vax_machine *m, int model)
{
    vax_memory_geometry g;
    vax_timing t;
    if (timing_init_model(&t, &g, (vax_cpu_model)model) != 0)
        return -1;
    m->tm = t;
    m->cpu_model = model;
    set_memory_geometry(m, &g);
    m->run_limit = 0;
    return 0;
}

void vax_set_timing_flat(vax_machine *m, uint32_t ns)
{
    timing_init_flat(&m->tm, (uint16_t)(ns > 60000 ? 60000 : ns ? ns : 1));
    m->cpu_model = 0;
    /* The 780's memory system, costing nothing. */
    vax_memory_geometry g = {.cache_sets = 512, .cache_ways = 2, .tb_half_sets = 32};
    set_memory_geometry(m, &g);
    m->run_limit = 0;
}

void machine_event_cancel(vax_machine *m, vax_event *e)
{
    if (!e->pending)
        return;
    m->slice_state = SLICE_FULL;   /* the next event may be another: cost_limit must be worked out again */
    for (int i = 0; i < m->nevents; i++)
        if (m->events[i] == e) {
            m->events[i] = m->events[--m->nevents];
            break;
        }
    e->pending = 0;
}

void machine_event_schedule(vax_machine *m, vax_event *e, uint64_t delay_ns)
{
    machine_event_cancel(m, e);
    if (m->nevents >= MAX_EVENTS) {
        machine_set_stop(m, VAX_STOP_DOUBLE_FAULT, "internal: too many pending device events");
        return;
    }
    e->when_ns = machine_time_ns(m) + delay_ns;
    e->pending = 1;
    m->events[m->nevents++] = e;
    m->run_limit = 0;   /* recompute when the instruction loop must stop */
}

/* The earliest pending event, or NULL. */
static vax_event *next_event(const vax_machine *m)
{
    vax_event *best = NULL;
    for (int i = 0; i < m->nevents; i++)
        if (!best || m->events[i]->when_ns < best->when_ns)
            best = m->events[i];
    return best;
}

/* Fire every event that is due.  Returns the earliest event still
 * pending (NULL if none), as next_event would now. */
static vax_event *fire_due_events(vax_machine *m)
{
    vax_event *e;
    while ((e = next_event(m)) && e->when_ns <= machine_time_ns(m)) {
        machine_event_cancel(m, e);
        e->fire(m, e->ctx);
    }
    return e;
}

/* The cost at which the next event e (next_event's) falls due: the least
 * c with time(c) >= when (time rounds down, so c is rounded up). */
static uint64_t event_limit(const vax_machine *m, const vax_event *e)
{
    if (!e)
        return UINT64_MAX;
    if (e->when_ns <= machine_time_ns(m))
        return m->cost;
    uint64_t dt = e->when_ns - m->time_base_ns;
    return m->cost_base + (dt * COST_SCALE_DEN + m->ns_per_instruction - 1) / m->ns_per_instruction;
}

/* Deliver the highest pending interrupt above the current IPL, if any.
 * Returns 1 if one was taken, 0 if none, -1 if the processor halted. */
static int service_interrupts(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    int ipl = (int)PSL_GET_IPL(c->psl_without_cc);
    uint32_t above = machine_irq_levels_above(m, (uint32_t)ipl);
    if (above) {
        int level = highest_bit(above);
        uint32_t p = m->irq_pending[level];
        int src = 0;
        while (!(p & (1u << src)))
            src++;
        machine_irq_clear(m, level, src);   /* acknowledged: the device re-requests */
        return cpu_take_interrupt(m, m->irq_vector[level][src], level) == VAX_EXC_FATAL ? -1 : 1;
    }
    int soft = highest_bit(c->sisr & 0xFFFEu);
    if (soft > ipl) {
        c->sisr &= ~(1u << soft);
        return cpu_take_interrupt(m, 0x80u + 4u * (uint32_t)soft, soft) == VAX_EXC_FATAL ? -1 : 1;
    }
    return 0;
}

vax_stop_reason vax_run(vax_machine *m, uint64_t max_instructions)
{
    m->budget_end = m->icount + max_instructions;
    m->stop_requested = 0;
    m->stop_reason = VAX_STOP_BUDGET;
    m->stop_detail[0] = 0;
    m->slice_state = SLICE_FULL;   /* the host may have done anything since the last call */
    for (;;) {
        if (m->stop_requested)
            return m->stop_reason;
        if (m->icount >= m->budget_end)
            return VAX_STOP_BUDGET;
        /* The instruction loop stopped only for the idle look: after an
         * MTPR to IPL or an REI that left no interrupt deliverable
         * (machine.h, slice_state), or at the count a look that could not
         * decide set for the next (idle.c; run_limit is otherwise 0 or
         * the budget).  No event is due before cost_limit (none was
         * cancelled; a new one, or anything that can make an interrupt
         * deliverable, makes run_limit 0), so the full pass below would
         * fire nothing, take nothing and set the same limits. */
        if (m->cost < m->cost_limit &&
            (m->slice_state == SLICE_LIMITS_KEPT ||
             (m->slice_state == SLICE_CLEAN && m->run_limit != 0 && m->icount >= m->run_limit))) {
            m->slice_state = SLICE_CLEAN;
            m->run_limit = m->budget_end;
            /* (The full pass's last lines, repeated: one tail shared by both
             * paths cost the 4.3BSD script 0.6% more host instructions,
             * 6,302.0 M against 6,264.3 M, callgrind, 27 November 2026.) */
            if (m->idle_skip && (m->cpu.psl_without_cc & PSL_CUR) == 0)
                cpu_idle_skip(m);
            cpu_execute(m);
            continue;
        }
        vax_event *next = fire_due_events(m);
        if (m->stop_requested)
            return m->stop_reason;
        int taken = service_interrupts(m);
        if (taken < 0)
            return m->stop_reason;
        if (taken)
            next = next_event(m);   /* taking it went through memory, and so maybe a device */
        uint64_t limit = event_limit(m, next);
        if (limit <= m->cost)
            limit = m->cost + 1;   /* an event firing now: still make progress */
        m->cost_limit = limit;
        m->run_limit = m->budget_end;
        m->slice_state = SLICE_CLEAN;
        /* Between instructions, with the events and interrupts due now
         * taken: an idle loop may be skipped up to run_limit (idle.c
         * checks the rest).  Only kernel mode idles. */
        if (m->idle_skip && (m->cpu.psl_without_cc & PSL_CUR) == 0)
            cpu_idle_skip(m);
        cpu_execute(m);
    }
}

const char *vax_stop_reason_name(vax_stop_reason r)
{
    switch (r) {
    case VAX_STOP_BUDGET: return "budget";
    case VAX_STOP_HALT: return "halt";
    case VAX_STOP_DOUBLE_FAULT: return "double-fault";
    case VAX_STOP_HOST_REQUEST: return "host-request";
    case VAX_STOP_SCB_HALT: return "scb-halt";
    }
    return "unknown";
}

const char *vax_stop_detail(const vax_machine *m) { return m->stop_detail; }

void vax_set_idle_skip(vax_machine *m, int on) { m->idle_skip = on != 0; }

void vax_request_stop(vax_machine *m)
{
    machine_set_stop(m, VAX_STOP_HOST_REQUEST, "stop requested by the host");
}

uint32_t vax_get_reg(const vax_machine *m, int n) { return m->cpu.r[n & 15]; }

void vax_set_reg(vax_machine *m, int n, uint32_t value)
{
    m->cpu.r[n & 15] = value;
}

uint32_t vax_get_psl(const vax_machine *m) { return cpu_psl(&m->cpu); }

void vax_set_psl(vax_machine *m, uint32_t psl)
{
    cpu_set_psl(m, psl);
    ib_invalidate(m);
}

uint32_t vax_get_ipr(vax_machine *m, int ipr)
{
    uint32_t v = 0;
    if (cpu_mfpr(m, (uint32_t)ipr, &v))
        return 0;
    return v;
}

void vax_set_ipr(vax_machine *m, int ipr, uint32_t value)
{
    (void)cpu_mtpr(m, (uint32_t)ipr, value);
}

int vax_phys_write(vax_machine *m, uint32_t pa, const void *src, size_t len)
{
    if (pa > m->bus.mem_size || len > m->bus.mem_size - pa)
        return -1;
    memcpy(m->bus.mem + pa, src, len);
    return 0;
}

int vax_phys_read(const vax_machine *m, uint32_t pa, void *dst, size_t len)
{
    if (pa > m->bus.mem_size || len > m->bus.mem_size - pa)
        return -1;
    memcpy(dst, m->bus.mem + pa, len);
    return 0;
}

uint32_t vax_memory_bytes(const vax_machine *m) { return m->bus.mem_size; }

uint64_t vax_instruction_count(const vax_machine *m) { return m->icount; }

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

static uint64_t fnv1a_u32(uint64_t h, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return fnv1a(h, b, 4);
}

uint64_t vax_state_digest(const vax_machine *m)
{
    const vax_cpu *c = &m->cpu;
    uint64_t h = 0xCBF29CE484222325ull;
    for (int i = 0; i < 16; i++)
        h = fnv1a_u32(h, c->r[i]);
    h = fnv1a_u32(h, cpu_psl(c));
    for (int i = 0; i < 5; i++)
        h = fnv1a_u32(h, c->sp_save[i]);
    const uint32_t iprs[] = {c->p0br, c->p0lr, c->p1br, c->p1lr, c->sbr, c->slr,
                             c->pcbb, c->scbb, c->astlvl, c->sisr, c->mapen};
    for (size_t i = 0; i < sizeof iprs / sizeof iprs[0]; i++)
        h = fnv1a_u32(h, iprs[i]);
    h = fnv1a_u32(h, (uint32_t)m->icount);
    h = fnv1a_u32(h, (uint32_t)(m->icount >> 32));
    return fnv1a(h, m->bus.mem, m->bus.mem_size);
}
