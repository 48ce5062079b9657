/*
 * mmu.c — address translation, protection checks and the slow paths of
 * the memory accessors.
 *
 * Order of checks follows the architecture: length violation, then
 * protection (checked even when the PTE is not valid), then validity; a
 * process-space translation first fetches its PTE through the system page
 * table, and a failure there is reported with the "PTE reference" bit.
 */
#include "mmu/mmu.h"

#include "bus/bus.h"

/* Modes (bit per mode: K=1, E=2, S=4, U=8) allowed to read / write for
 * each 4-bit protection code.  Code 1 is reserved: no access. */
static const uint8_t prot_read[16] = {0, 0, 1, 1, 15, 3, 3, 3, 7, 7, 7, 7, 15, 15, 15, 15};
static const uint8_t prot_write[16] = {0, 0, 1, 0, 15, 3, 1, 0, 7, 3, 1, 0, 7, 3, 1, 0};

static int mm_fault(vax_machine *m, int code, uint32_t param, uint32_t va)
{
    m->cpu.fault_param = param;
    m->cpu.fault_va = va;
    return code;
}

/* A read of I/O space by the processor.  I/O space is never cached (a
 * register read has side effects, and its value is the device's now), so
 * it is a read over the memory interconnect (the 780's SBI, the 750's CMI)
 * to the adapter: at least what a read that misses the cache costs,
 * charged as that (cpu/timing.h, read_miss) on top of the data access the
 * instruction pays as for memory.  A MASSBUS drive register also takes a
 * cycle of the MASSBUS control bus behind the adapter, a UNIBUS register a
 * UNIBUS cycle: not modelled (no figure for either adapter found;
 * emu/docs/timing.md, "What a page fault and a null exec cost").  Writes
 * cost what memory writes cost (the write path is the same). */
static int io_read(vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    m->cost += m->tm.read_miss;
    return bus_read(m, pa, size, value);
}

/* phys_read_l's path for a miss, a read across two blocks, or I/O space
 * (pa masked): not inlined, so that the common path, a hit, makes no call
 * and saves no registers. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int phys_read_l_other(vax_machine *m, uint32_t pa, uint32_t *value)
{
    if (pa < m->bus.mem_size && m->bus.mem_size - pa >= 4) {
        m->cost += cache_read(&m->cache, pa, 4);   /* page tables, SCB, PCB: through the cache */
        *value = load_le(m->bus.mem + pa, 4);
        return 0;
    }
    return io_read(m, pa, 4, value);
}

int phys_read_l(vax_machine *m, uint32_t pa, uint32_t *value)
{
    pa &= PA_MASK;
    /* RAM, one cache block, a hit: cache_read would charge nothing and
     * change nothing. */
    if (pa < m->bus.mem_size && m->bus.mem_size - pa >= 4 && in_one_block(pa, 4) && cache_hits_block(&m->cache, pa)) {
        *value = load_le(m->bus.mem + pa, 4);
        return 0;
    }
    return phys_read_l_other(m, pa, value);
}

int phys_write_l(vax_machine *m, uint32_t pa, uint32_t value)
{
    pa &= PA_MASK;
    if (pa < m->bus.mem_size && m->bus.mem_size - pa >= 4) {
        store_le(m->bus.mem + pa, 4, value);
        return 0;
    }
    return bus_write(m, pa, 4, value);
}

/* The host's look-up (tlb.h, xlat_entry): copy a TB entry in, or drop
 * the copy of a page the TB no longer holds. */
static void xlat_copy(vax_machine *m, const tlb_entry *e)
{
    xlat_entry *x = XLAT_SLOT(m->xlat, e->tag << 9);
    if (e->host) {
        x->tag = e->tag;
        x->block_delta = (e->pa >> 3) - (e->tag << 6);
        x->read_modes = (e->access & 15u) * XLAT_MODES_REPEAT;
        x->write_modes = ((e->access >> 4) & 15u) * XLAT_MODES_REPEAT;
        x->host_bias = (uintptr_t)e->host - (uintptr_t)(e->tag << 9);
    } else if (x->tag == e->tag) {
        x->tag = XLAT_INVALID;
    }
}

static void xlat_drop(vax_machine *m, uint32_t tag)
{
    xlat_entry *x = XLAT_SLOT(m->xlat, tag << 9);
    if (x->tag == tag)
        x->tag = XLAT_INVALID;
}

void mmu_xlat_rebuild(vax_machine *m)
{
    for (uint32_t i = 0; i < XLAT_SIZE; i++)
        m->xlat[i].tag = XLAT_INVALID;
    for (uint32_t i = 0; i < TLB_MAX_SETS * TLB_WAYS; i++)
        if (m->tlb.e[i].tag != TLB_INVALID)
            xlat_copy(m, &m->tlb.e[i]);
}

static void fill_entry(vax_machine *m, tlb_entry *e, uint32_t va, uint32_t pa_page, uint32_t access)
{
    e->tag = va >> 9;
    e->pa = pa_page;
    e->host = pa_page < m->bus.mem_size ? m->bus.mem + pa_page : NULL;
    e->access = access;
    xlat_copy(m, e);
}

/* The entry to load va's translation into: the one that holds its page
 * already, else a victim in its set (tlb.h: an invalid way, else the way
 * filled least recently) — a TB miss, counted and charged the refill's
 * microcode (timing.h; its page-table reads are charged as they happen). */
static tlb_entry *tb_slot(vax_machine *m, uint32_t va)
{
    tlb_entry *e = tlb_find(&m->tlb, va);
    if (e)
        return e;
    uint32_t set = tlb_set(&m->tlb, va);
    tlb_entry *s = &m->tlb.e[set * TLB_WAYS];
    if (s[0].tag == TLB_INVALID) {
        e = &s[0];
    } else if (s[1].tag == TLB_INVALID) {
        e = &s[1];
    } else {
        e = &s[m->tlb.next_victim[set]];
        m->tlb.next_victim[set] ^= 1u;
    }
    if (e->tag == m->ib_tag)   /* the instruction-fetch shortcut rode on it */
        ib_invalidate(m);
    if (e->tag != TLB_INVALID)
        xlat_drop(m, e->tag);
    e->tag = TLB_INVALID;
    if (m->cpu.mapen) {
        m->stats.tb_miss++;
        m->cost += m->tm.tb_miss;   /* cpu/timing.h: the microcode's refill */
    }
    return e;
}

/* Physical address of the PTE that maps va, for a process-space va whose
 * PTE lives at system virtual address pteva.  When the TB lacks the
 * page-table page, the refill translates it through the system page table
 * and loads that translation too (a second miss), as the microcode does. */
static int process_pte_address(vax_machine *m, uint32_t pteva, uint32_t va, int write, uint32_t *pte_pa)
{
    uint32_t wbit = write ? MM_WRITE : 0;
    const tlb_entry *e = tlb_find(&m->tlb, pteva);
    if (e && (e->access & 1)) {   /* the page-table page is in the TB */
        *pte_pa = e->pa | (pteva & 511u);
        return 0;
    }
    uint32_t svpn = (pteva >> 9) & 0x1FFFFFu;
    if ((pteva >> 30) != 2 || svpn >= m->cpu.slr)
        return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_LENGTH | MM_PTE_REF | wbit, va);
    uint32_t spte;
    int st = phys_read_l(m, m->cpu.sbr + svpn * 4, &spte);
    if (st)
        return st;
    /* The PTE fetch is a kernel-mode read of system space, so the system
     * PTE's protection is checked for kernel read (simh does the same). */
    if (!(prot_read[(spte >> PTE_PROT_SHIFT) & 15] & 1))
        return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_PTE_REF | wbit, va);
    if (!(spte & PTE_V))
        return mm_fault(m, VAX_EXC_TRANSLATION_NOT_VALID, MM_PTE_REF | wbit, va);
    uint32_t prot = (spte >> PTE_PROT_SHIFT) & 15;
    uint32_t access = prot_read[prot] | ((spte & PTE_M) ? (uint32_t)prot_write[prot] << 4 : 0u);
    fill_entry(m, tb_slot(m, pteva), pteva, ((spte & PTE_PFN) << 9) & PA_MASK, access);
    *pte_pa = ((spte & PTE_PFN) << 9) | (pteva & 511u);
    return 0;
}

/* Find the PTE for va: its physical address and value. */
static int find_pte(vax_machine *m, uint32_t va, int write, uint32_t *pte_pa, uint32_t *pte)
{
    vax_cpu *c = &m->cpu;
    uint32_t vpn = (va >> 9) & 0x1FFFFFu;
    uint32_t wbit = write ? MM_WRITE : 0;
    int st;
    switch (va >> 30) {
    case 2:
        if (vpn >= c->slr)
            return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_LENGTH | wbit, va);
        *pte_pa = (c->sbr + vpn * 4) & PA_MASK;
        break;
    case 0:
        if (vpn >= c->p0lr)
            return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_LENGTH | wbit, va);
        st = process_pte_address(m, c->p0br + vpn * 4, va, write, pte_pa);
        if (st)
            return st;
        break;
    case 1:
        if (vpn < c->p1lr)
            return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_LENGTH | wbit, va);
        st = process_pte_address(m, c->p1br + vpn * 4, va, write, pte_pa);
        if (st)
            return st;
        break;
    default:   /* S1 space does not exist on the 780 */
        return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, MM_LENGTH | wbit, va);
    }
    return phys_read_l(m, *pte_pa, pte);
}

int mmu_translate(vax_machine *m, uint32_t va, int mode, int write, tlb_entry **entry)
{
    if (!m->cpu.mapen) {
        tlb_entry *e = tb_slot(m, va);
        fill_entry(m, e, va, (va & PA_MASK) & ~511u, 0xFF);
        *entry = e;
        return 0;
    }
    /* A page the TB holds with the access wanted: nothing to do (the
     * write checks of the field, queue and decimal instructions come
     * here).  Else a refill — for a write or another mode of a page the TB
     * holds, no miss — or a miss.  The slot is taken after the page-table
     * walk, which may itself load the page-table page's translation. */
    tlb_entry *held = tlb_find(&m->tlb, va);
    if (held && (held->access & ((write ? 16u : 1u) << mode))) {
        if (XLAT_SLOT(m->xlat, va)->tag != held->tag)
            xlat_copy(m, held);   /* its copy was displaced by another page's */
        *entry = held;
        return 0;
    }
    uint32_t pte_pa, pte;
    int st = find_pte(m, va, write, &pte_pa, &pte);
    if (st)
        return st;
    uint32_t prot = (pte >> PTE_PROT_SHIFT) & 15;
    uint32_t allowed = write ? prot_write[prot] : prot_read[prot];
    if (!(allowed & (1u << mode)))
        return mm_fault(m, VAX_EXC_ACCESS_VIOLATION, write ? MM_WRITE : 0, va);
    if (!(pte & PTE_V))
        return mm_fault(m, VAX_EXC_TRANSLATION_NOT_VALID, write ? MM_WRITE : 0, va);
    if (write && !(pte & PTE_M)) {
        pte |= PTE_M;
        st = phys_write_l(m, pte_pa, pte);
        if (st)
            return st;
    }
    uint32_t access = prot_read[prot];
    if (pte & PTE_M)
        access |= (uint32_t)prot_write[prot] << 4;
    tlb_entry *e = tb_slot(m, va);
    fill_entry(m, e, va, ((pte & PTE_PFN) << 9) & PA_MASK, access);
    *entry = e;
    return 0;
}

int mmu_probe(vax_machine *m, uint32_t va, int mode, int write, int *ok)
{
    *ok = 1;
    if (!m->cpu.mapen)
        return 0;
    uint32_t pte_pa, pte;
    int st = find_pte(m, va, write, &pte_pa, &pte);   /* a PROBEW's TNV has write intent */
    if (st == VAX_EXC_ACCESS_VIOLATION) {   /* length violation: not accessible */
        *ok = 0;
        return 0;
    }
    if (st)
        return st;   /* TNV on the page table itself, or machine check */
    uint32_t prot = (pte >> PTE_PROT_SHIFT) & 15;
    uint32_t allowed = write ? prot_write[prot] : prot_read[prot];
    *ok = (allowed >> mode) & 1;
    return 0;
}

void mmu_flush_all(vax_machine *m)
{
    for (uint32_t i = 0; i < TLB_MAX_SETS * TLB_WAYS; i++)
        m->tlb.e[i].tag = TLB_INVALID;
    for (uint32_t i = 0; i < XLAT_SIZE; i++)
        m->xlat[i].tag = XLAT_INVALID;
    ib_invalidate(m);
}

void mmu_flush_process(vax_machine *m)
{
    /* The process half: sets 0 .. half - 1 (tlb.h). */
    uint32_t n = (m->tlb.half_mask + 1) * TLB_WAYS;
    for (uint32_t i = 0; i < n; i++) {
        if (m->tlb.e[i].tag != TLB_INVALID)
            xlat_drop(m, m->tlb.e[i].tag);
        m->tlb.e[i].tag = TLB_INVALID;
    }
    ib_invalidate(m);
}

void mmu_flush_single(vax_machine *m, uint32_t va)
{
    tlb_entry *e = tlb_find(&m->tlb, va);
    if (e) {
        xlat_drop(m, e->tag);
        e->tag = TLB_INVALID;
    }
    ib_invalidate(m);
}

/* Physical access of size bytes within one page. */
static int phys_access(vax_machine *m, const tlb_entry *e, uint32_t va, int size, int write, uint32_t *value)
{
    uint32_t off = va & 511u;
    if (e->host) {
        if (write) {
            store_le(e->host + off, size, *value);
        } else {
            m->cost += cache_read(&m->cache, e->pa | off, size);
            *value = load_le(e->host + off, size);
        }
        return 0;
    }
    return write ? bus_write(m, e->pa | off, size, *value) : io_read(m, e->pa | off, size, value);
}

/* An access that crosses a page boundary: translate both pages first (so a
 * fault leaves nothing half-done), then move the bytes one at a time.
 * `intent` is the write intent of the translation (a modify operand's read
 * has it), `write` whether bytes are stored. */
static int crossing_access(vax_machine *m, uint32_t va, int size, int mode, int intent, int write,
                           uint32_t *value)
{
    tlb_entry *e1, *e2;
    tlb_entry copy1;
    int st = mmu_translate(m, va, mode, intent, &e1);
    if (st)
        return st;
    copy1 = *e1;   /* the second translation may evict the first from the TB */
    /* Translate the second page by its first byte: a fault there reports
     * that address, as the 780's aligned second reference would. */
    st = mmu_translate(m, (va + (uint32_t)size - 1) & ~511u, mode, intent, &e2);
    if (st)
        return st;
    uint32_t result = 0;
    for (int i = 0; i < size; i++) {
        uint32_t a = va + (uint32_t)i;
        const tlb_entry *e = ((a >> 9) == (va >> 9)) ? &copy1 : e2;
        uint32_t byte = write ? (*value >> (8 * i)) & 0xFF : 0;
        st = phys_access(m, e, a, 1, write, &byte);
        if (st)
            return st;
        result |= byte << (8 * i);
    }
    if (!write)
        *value = result;
    return 0;
}

/* A read within one page that the host's look-up holds with `access`
 * allowed, but that the inline accessors sent here because it straddles
 * two cache blocks (mmu.h, in_one_block): what mmu_translate and
 * phys_access would make of it, without them.  mmu_translate would find
 * the page's TB entry (the look-up holds a copy of it), allow the access
 * and change nothing; phys_access would charge cache_read of both blocks,
 * in order, and load.  Returns 0 when it did the read, 1 when the caller
 * must take the general path. */
static inline int read_two_blocks(vax_machine *m, uint32_t va, int size, uint32_t access, uint32_t *value)
{
    const xlat_entry *x = XLAT_SLOT(m->xlat, va);
    if (x->tag != va >> 9 || !(xlat_access(x) & access) || (va & 511u) > 512u - (uint32_t)size || !m->cpu.mapen)
        return 1;
    m->cost += cache_read(&m->cache, xlat_pa(x, va), size);
    *value = load_le(xlat_host(x, va), size);
    return 0;
}

int mem_read_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t *value)
{
    if (!read_two_blocks(m, va, size, 1u << mode, value))
        return 0;
    if ((va & 511u) > 512u - (uint32_t)size)
        return crossing_access(m, va, size, mode, 0, 0, value);
    tlb_entry *e;
    int st = mmu_translate(m, va, mode, 0, &e);
    if (st)
        return st;
    return phys_access(m, e, va, size, 0, value);
}

int mem_read_modify_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t *value)
{
    if (!read_two_blocks(m, va, size, 16u << mode, value))   /* write intent: checked for write */
        return 0;
    if ((va & 511u) > 512u - (uint32_t)size)
        return crossing_access(m, va, size, mode, 1, 0, value);
    tlb_entry *e;
    int st = mmu_translate(m, va, mode, 1, &e);
    if (st)
        return st;
    return phys_access(m, e, va, size, 0, value);
}

int mem_write_slow(vax_machine *m, uint32_t va, int size, int mode, uint32_t value)
{
    if ((va & 511u) > 512u - (uint32_t)size)
        return crossing_access(m, va, size, mode, 1, 1, &value);
    tlb_entry *e;
    int st = mmu_translate(m, va, mode, 1, &e);
    if (st)
        return st;
    return phys_access(m, e, va, size, 1, &value);
}

int mem_write_q(vax_machine *m, uint32_t va, const uint32_t v[2])
{
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    /* Both longwords in one page the host's look-up holds writable: both
     * translations below would find its TB entry and change nothing, and
     * both stores would hit the look-up (MOVQ's frequent case). */
    const xlat_entry *x = XLAT_SLOT(m->xlat, va);
    if (x->tag == va >> 9 && (xlat_access(x) & (16u << mode)) && (va & 511u) <= 504u && m->cpu.mapen) {
        store_le(xlat_host(x, va), 4, v[0]);
        store_le(xlat_host(x, va) + 4, 4, v[1]);
        return 0;
    }
    tlb_entry *e;
    /* Probe both longwords for write before storing either. */
    int st = mmu_translate(m, va, mode, 1, &e);
    if (st)
        return st;
    st = mmu_translate(m, (va + 7) & ~511u, mode, 1, &e);   /* the page of the last byte */
    if (st)
        return st;
    st = mem_write_l(m, va, v[0]);
    if (st)
        return st;
    return mem_write_l(m, va + 4, v[1]);
}

int mem_read_missed(vax_machine *m, uint32_t pa, const uint8_t *h, int size, uint32_t *value)
{
    m->cost += cache_read(&m->cache, pa, size);
    *value = load_le(h, size);
    return 0;
}

/* These two charge a miss's cost (cache_fill returns the model's
 * miss_cost, whatever it fills) before the fill rather than adding
 * cache_fill's result after it: the same sum, and nothing is left to do
 * after the call, so the fill is a tail call and neither function saves
 * registers. */
int mem_read_missed_block(vax_machine *m, uint32_t blk, const uint8_t *h, int size, uint32_t *value)
{
    *value = load_le(h, size);
    m->cost += m->cache.miss_cost;
    (void)cache_miss_block(&m->cache, blk);
    return 0;
}

void ifetch_block_missed(vax_machine *m, uint32_t pa)
{
    m->cost += m->cache.miss_cost;
    (void)cache_miss_block(&m->cache, pa >> CACHE_BLOCK_SHIFT);
}

/* The fetch shortcut onto pc's page, given as the host's look-up keeps a
 * page (tlb.h, xlat_entry): its first cache block less (pc >> 9) << 6, and
 * its host address less the page's virtual address. */
static inline void ib_set_offsets(vax_machine *m, uint32_t pc, uint32_t block_delta, uintptr_t bias)
{
    uint32_t page = pc & ~511u;
    m->ib_tag = pc >> 9;
    m->ib_fast = page;
    m->ib_host = (uint8_t *)(bias + page);
    m->ib_pa = (block_delta + (page >> 3)) << 3;
    m->ib_block_delta = block_delta;
    m->ib_bias = bias;
}

/* The fetch shortcut onto the page at host address host, physical pa. */
static inline void ib_set(vax_machine *m, uint32_t pc, uint8_t *host, uint32_t pa)
{
    uint32_t page = pc & ~511u;
    ib_set_offsets(m, pc, (pa >> 3) - (page >> 3), (uintptr_t)host - (uintptr_t)page);
}

void ifetch_point(vax_machine *m, uint32_t pc, uint8_t *host, uint32_t pa)
{
    ib_set(m, pc, host, pa);
}

/* ifetch_fill for a page the host's look-up lacks: through the TB.  A
 * function of its own, reached by a tail call, so that ifetch_fill's
 * common path makes no call and saves no registers. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int ifetch_fill_translate(vax_machine *m, uint32_t pc, int mode)
{
    tlb_entry *e;
    int st = mmu_translate(m, pc, mode, 0, &e);
    if (st)
        return st;
    if (e->host)
        ib_set(m, pc, e->host, e->pa);
    else
        ib_invalidate(m);
    return 0;
}

int ifetch_fill(vax_machine *m, uint32_t pc)
{
    /* A page the host's copy of the TB holds, readable: mmu_translate
     * would find its TB entry, the same, and change nothing (with mapping
     * on; with it off, it writes the entry again). */
    uint32_t mode_key = psl_mode_key(m);
    const xlat_entry *x = XLAT_SLOT(m->xlat, pc);
    if (m->cpu.mapen && x->tag == pc >> 9 && xlat_allows(x->read_modes, mode_key)) {
        ib_set_offsets(m, pc, x->block_delta, x->host_bias);
        return 0;
    }
    return ifetch_fill_translate(m, pc, (int)(mode_key & 3u));
}

int ifetch_slow(vax_machine *m, int n, uint32_t *value)
{
    uint32_t pc = m->cpu.r[15];
    int st;
    if ((pc & 511u) <= 512u - (uint32_t)n) {
        st = ifetch_fill(m, pc);
        if (st)
            return st;
        if ((pc >> 9) == m->ib_tag) {
            *value = load_le(m->ib_host + (pc & 511u), n);
            m->cpu.r[15] = pc + (uint32_t)n;
            return 0;
        }
    }
    /* Crossing a page, or instructions in I/O space: a byte at a time. */
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b;
        st = mem_read_slow(m, pc + (uint32_t)i, 1, (int)PSL_GET_CUR(m->cpu.psl_without_cc), &b);
        if (st)
            return st;
        v |= b << (8 * i);
    }
    *value = v;
    m->cpu.r[15] = pc + (uint32_t)n;
    return 0;
}

