/*
 * idle.c — skipping idle loops.
 *
 * An idle kernel spins until an interrupt gives it work; 4.3BSD's is, in
 * swtch (sys/vax/locore.s),
 *
 *     idle: mtpr $0,$IPL        # must allow interrupts here
 *           tstl _whichqs       # look for non-empty queue
 *           bneq sw1
 *           brb  idle
 *
 * Run instruction by instruction, such a loop spends host time on nothing
 * while the guest waits for its disk.  So, between runs of the instruction
 * loop (machine.c, vax_run), we look at the code at the PC and work out,
 * from guest state only, whether the processor is in a loop that cannot
 * leave before the next device event:
 *
 *   - every instruction of the loop is one this file evaluates without
 *     side effects: NOP, TST, CMP, BIT, the byte and word branches and
 *     BLBS/BLBC, and MTPR to IPL of the IPL the processor already has;
 *   - their operands are literals, registers, or memory reached without
 *     changing a register (no autoincrement/decrement, no index mode) that
 *     is RAM, not I/O space, readable in kernel mode through the TB as it
 *     is (so looking has no side effect at all);
 *   - following the branches as they go now, the path comes back to the
 *     PC within IDLE_MAX_INSNS instructions with the same condition codes.
 *
 * Then one iteration leaves the machine exactly as it found it — registers,
 * memory, PSL — and so does every later one, until something outside the
 * processor changes memory or requests an interrupt.  Only device events
 * do that (a disk transfer completing, a clock tick, a typed character),
 * and nothing is deliverable now, so the iterations up to the next event
 * are all alike.  We advance the instruction count over as many whole
 * iterations as fit before it (run_limit: the next event, or the end of the
 * caller's budget) and let the processor run the few instructions left.
 *
 * The other way a processor waits is a counted delay loop, the kernel's
 * DELAY(n) (sys/vax/machparam.h: while (--N > 0);) and the boot program's
 * waits: a SOBGTR, SOBGEQ, AOBLSS or AOBLEQ on a register that branches
 * to itself.  Its iterations differ only in the register, and how many
 * remain is known, so the same skip applies: we run the count down (or
 * up) by as many iterations as fit before run_limit and before the last,
 * and set the register and condition codes as the last skipped iteration
 * would have left them.
 *
 * The skipped iterations count as executed instructions, so virtual time,
 * the instruction count and everything the guest can see are exactly what
 * running them would give, natively and in WebAssembly alike; the only
 * difference is host time.  The statistics book them as idle (stats.h).
 * Their cost (cpu/timing.h) is worked out along the walk exactly as the
 * executing processor charges it: each opcode's base cost, and for each
 * memory operand its mode's address work and a data read (every operand
 * here is read; the TB already holds every page, so no refill is due).
 */
#include "mmu/mmu.h"
#include "cpu/cpu.h"
#include "cpu/decode.h"

#define IDLE_MAX_INSNS 8   /* the longest loop recognised */

/* A page a walk has found readable: its number (va >> 9) and host
 * address. */
typedef struct {
    uint32_t vpn;
    const uint8_t *host;
} walk_page;

/* The path being followed: the PC and condition codes as the loop would
 * leave them, and the IPL every MTPR in it must write. */
typedef struct {
    vax_machine *m;
    uint32_t pc;
    uint32_t cc;
    uint32_t ipl;
    int tb_miss;   /* a look failed only because the TB lacked the page or the cache the block */
    uint64_t cost; /* what the instructions walked so far cost */
    /* The pages read_ram_as found last, one for the instruction stream
     * and one for data (a loop's test reads a variable on another page:
     * with one remembered page, every instruction looked the code page up
     * in the TB again): va >> 9 and host address, or a vpn of
     * TLB_INVALID.  A walk changes nothing, not even the TB, so what the TB
     * said of a page holds for the whole walk. */
    walk_page code, data;
} walk;

/* size bytes (1, 2 or 4) of RAM at va, readable in kernel mode through
 * the translation buffer; -1 for anything else (a TB miss, I/O space, an
 * access crossing a page).  Looking changes nothing, not even the TB: on a
 * miss the loop runs once for real, which fills it, and the next look
 * succeeds (cpu_idle_skip arranges for a next look soon). */
static int read_ram_as(walk *w, walk_page *pg, uint32_t va, int size, uint32_t *v, int through_cache)
{
    const uint8_t *p;
    if ((va >> 9) == pg->vpn && (va & 511u) <= 512u - (uint32_t)size) {
        p = pg->host + (va & 511u);
    } else {
        p = tlb_host(w->m, va, size, 1u << MODE_KERNEL);
        if (!p) {
            if (!tlb_find(&w->m->tlb, va))
                w->tb_miss = 1;
            return -1;
        }
        pg->vpn = va >> 9;
        pg->host = p - (va & 511u);
    }
    /* Skipped iterations are charged as if every read through the cache
     * hit; a read that would miss is like a TB miss: one real iteration
     * brings the block in, or, if the loop's blocks evict each other, it
     * is never skipped. */
    if (through_cache) {
        /* (One block, nearly always: its test alone, as cache_holds
         * would make it.) */
        uint32_t pa = host_pa(w->m, p);
        int held = in_one_block(pa, size) ? cache_holds_block(&w->m->cache, pa >> CACHE_BLOCK_SHIFT)
                                          : cache_holds(&w->m->cache, pa, size);
        if (!held) {
            w->tb_miss = 1;
            return -1;
        }
    }
    *v = load_le(p, size);
    return 0;
}

/* A data read: through the cache. */
static int read_ram(walk *w, uint32_t va, int size, uint32_t *v)
{
    return read_ram_as(w, &w->data, va, size, v, 1);
}

/* Instruction-stream bytes at the walk's PC, a byte at a time so that an
 * instruction crossing a page is no special case.  The cache simulation
 * fetches the block where an instruction starts (mmu.h, ifetch_account),
 * so only the opcode's byte (fetch_opcode) must be in the cache. */
static int fetch(walk *w, int n, uint32_t *v)
{
    /* All n bytes in the page found last: what the byte reads below would
     * give, and they would change nothing else. */
    if ((w->pc >> 9) == w->code.vpn && (w->pc & 511u) <= 512u - (uint32_t)n) {
        *v = load_le(w->code.host + (w->pc & 511u), n);
        w->pc += (uint32_t)n;
        return 0;
    }
    uint32_t r = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b;
        if (read_ram_as(w, &w->code, w->pc, 1, &b, 0) != 0)
            return -1;
        r |= b << (8 * i);
        w->pc++;
    }
    *v = r;
    return 0;
}

static int fetch_opcode(walk *w, uint32_t *op)
{
    if (read_ram_as(w, &w->code, w->pc, 1, op, 1) != 0)
        return -1;
    w->pc++;   /* (the byte fetch would read: the same page, found just now) */
    return 0;
}

/* A read operand of size bytes whose evaluation changes nothing. */
static int operand(walk *w, int size, uint32_t *v)
{
    const vax_cpu *c = &w->m->cpu;
    uint32_t spec, disp, addr;
    if (fetch(w, 1, &spec) != 0)
        return -1;
    int reg = (int)(spec & 15);
    switch (spec >> 4) {
    case 0: case 1: case 2: case 3:   /* short literal */
        *v = spec & 63;
        return 0;
    case 5:   /* register */
        if (reg == 15)
            return -1;
        *v = c->r[reg] & size_mask(size);
        return 0;
    case 6:   /* register deferred */
        if (reg == 15)
            return -1;
        addr = c->r[reg];
        break;
    case 8:   /* (PC)+: immediate (charged as a data read, as the decoder does) */
        if (reg != 15)
            return -1;
        w->cost += w->m->tm.read;
        return fetch(w, size, v);
    case 9:   /* @(PC)+: absolute */
        if (reg != 15 || fetch(w, 4, &addr) != 0)
            return -1;
        w->cost += w->m->tm.spec_abs;
        break;
    case 0xA: case 0xB: case 0xC: case 0xD: case 0xE: case 0xF: {   /* displacement [deferred] */
        int dsize = spec >> 4 >= 0xE ? 4 : spec >> 4 >= 0xC ? 2 : 1;
        if (fetch(w, dsize, &disp) != 0)
            return -1;
        /* PC-relative: from the PC after the displacement. */
        addr = (reg == 15 ? w->pc : c->r[reg]) + sign_extend(disp, dsize);
        if ((spec >> 4) & 1 && read_ram(w, addr, 4, &addr) != 0)
            return -1;
        w->cost += w->m->tm.spec_disp + (((spec >> 4) & 1) ? w->m->tm.spec_deferred : 0u);
        break;
    }
    default:   /* index, autodecrement, autoincrement (deferred): they change registers */
        return -1;
    }
    w->cost += w->m->tm.read;
    return read_ram(w, addr, size, v);
}

static uint32_t nz(uint32_t v, int size)
{
    uint32_t n = (v >> (8 * size - 1)) & 1 ? PSL_N : 0;
    return n | ((v & size_mask(size)) == 0 ? PSL_Z : 0);
}

/* Does the branch with opcode op (0x12..0x1F) go, given the codes cc? */
static int condition(int op, uint32_t cc)
{
    int n = (cc & PSL_N) != 0, z = (cc & PSL_Z) != 0, v = (cc & PSL_V) != 0, c = (cc & PSL_C) != 0;
    int t;
    switch (op & ~1) {
    case 0x12: t = !z; break;         /* BNEQ / BEQL */
    case 0x14: t = !(n | z); break;   /* BGTR / BLEQ */
    case 0x18: t = !n; break;         /* BGEQ / BLSS */
    case 0x1A: t = !(c | z); break;   /* BGTRU / BLEQU */
    case 0x1C: t = !v; break;         /* BVC / BVS */
    default: t = !c; break;           /* 0x1E: BCC / BCS */
    }
    return (op & 1) ? !t : t;
}

static int branch(walk *w, int dsize, int taken)
{
    uint32_t disp;
    if (fetch(w, dsize, &disp) != 0)
        return -1;
    if (taken)
        w->pc += sign_extend(disp, dsize);
    return 0;
}

/* The opcodes a skipped loop may start with: LOOP_WAIT, those step()
 * evaluates (exactly its cases); LOOP_COUNTED, the counted loops' four
 * (counted_loop). */
enum { LOOP_WAIT = 1, LOOP_COUNTED = 2 };
static const uint8_t loop_opcode[256] = {
    [0x01] = LOOP_WAIT, [0x95] = LOOP_WAIT, [0xB5] = LOOP_WAIT, [0xD5] = LOOP_WAIT, [0x91] = LOOP_WAIT,
    [0xB1] = LOOP_WAIT, [0xD1] = LOOP_WAIT, [0x93] = LOOP_WAIT, [0xB3] = LOOP_WAIT, [0xD3] = LOOP_WAIT,
    [0xDA] = LOOP_WAIT, [0x11] = LOOP_WAIT, [0x31] = LOOP_WAIT, [0x12] = LOOP_WAIT, [0x13] = LOOP_WAIT,
    [0x14] = LOOP_WAIT, [0x15] = LOOP_WAIT, [0x18] = LOOP_WAIT, [0x19] = LOOP_WAIT, [0x1A] = LOOP_WAIT,
    [0x1B] = LOOP_WAIT, [0x1C] = LOOP_WAIT, [0x1D] = LOOP_WAIT, [0x1E] = LOOP_WAIT, [0x1F] = LOOP_WAIT,
    [0xE8] = LOOP_WAIT, [0xE9] = LOOP_WAIT,
    [0xF2] = LOOP_COUNTED, [0xF3] = LOOP_COUNTED, [0xF4] = LOOP_COUNTED, [0xF5] = LOOP_COUNTED,
};

/* Can step() evaluate this opcode? */
static int wait_loop_opcode(uint32_t op)
{
    return loop_opcode[op & 0xFF] == LOOP_WAIT;
}

/* Evaluate the instruction whose opcode op the walk has just fetched; -1
 * if it is not one of those this file can prove harmless. */
static int step_fetched(walk *w, uint32_t op)
{
    uint32_t a, b;
    w->cost += w->m->tm.op[op];
    int size = (op & 0xF0) == 0x90 ? 1 : (op & 0xF0) == 0xB0 ? 2 : 4;
    switch (op) {
    case 0x01:   /* NOP */
        return 0;
    case 0x95: case 0xB5: case 0xD5:   /* TSTx */
        if (operand(w, size, &a) != 0)
            return -1;
        w->cc = nz(a, size);
        return 0;
    case 0x91: case 0xB1: case 0xD1: {   /* CMPx */
        if (operand(w, size, &a) != 0 || operand(w, size, &b) != 0)
            return -1;
        int32_t sa = (int32_t)sign_extend(a, size), sb = (int32_t)sign_extend(b, size);
        w->cc = (sa < sb ? PSL_N : 0) | (a == b ? PSL_Z : 0) | (a < b ? PSL_C : 0);
        return 0;
    }
    case 0x93: case 0xB3: case 0xD3:   /* BITx */
        if (operand(w, size, &a) != 0 || operand(w, size, &b) != 0)
            return -1;
        w->cc = nz(a & b, size) | (w->cc & PSL_C);
        return 0;
    case 0xDA:   /* MTPR: only to IPL, only the IPL it already is */
        if (operand(w, 4, &a) != 0 || operand(w, 4, &b) != 0)
            return -1;
        if (b != IPR_IPL || (a & 31) != w->ipl)
            return -1;
        w->cc = nz(a, 4) | (w->cc & PSL_C);
        return 0;
    case 0x11:   /* BRB */
        return branch(w, 1, 1);
    case 0x31:   /* BRW */
        return branch(w, 2, 1);
    case 0x12: case 0x13: case 0x14: case 0x15: case 0x18: case 0x19: case 0x1A: case 0x1B:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F:
        return branch(w, 1, condition((int)op, w->cc));
    case 0xE8: case 0xE9:   /* BLBS, BLBC */
        if (operand(w, 4, &a) != 0)
            return -1;
        return branch(w, 1, (int)(a & 1) == (op == 0xE8));
    default:
        return -1;
    }
}

/* Evaluate the instruction at the walk's PC. */
static int step(walk *w)
{
    uint32_t op;
    if (fetch_opcode(w, &op) != 0)
        return -1;
    return step_fetched(w, op);
}

/* Is the instruction at pc, whose opcode op (SOBGTR, SOBGEQ, AOBLSS or
 * AOBLEQ) the walk has just fetched, one with its index in a register that
 * branches to itself?  Then *reg and *left: how many more executions of
 * it branch back (at least one). */
static int counted_loop(walk *w, uint32_t pc, const uint32_t *op, int *reg, int64_t *left)
{
    const vax_cpu *c = &w->m->cpu;
    uint32_t spec, disp, limit = 0;
    w->cost += w->m->tm.op[*op];
    if ((*op == 0xF2 || *op == 0xF3) && operand(w, 4, &limit) != 0)   /* AOBxxx's limit */
        return 0;
    if (fetch(w, 1, &spec) != 0 || (spec >> 4) != 5 || (spec & 15) >= 14 || fetch(w, 1, &disp) != 0 ||
        w->pc + sign_extend(disp, 1) != pc)
        return 0;
    *reg = (int)(spec & 15);
    int64_t v = (int32_t)c->r[*reg];
    switch (*op) {
    case 0xF2: *left = (int64_t)(int32_t)limit - v - 1; break;   /* AOBLSS: while ++v < limit */
    case 0xF3: *left = (int64_t)(int32_t)limit - v; break;       /* AOBLEQ: while ++v <= limit */
    case 0xF4: *left = v; break;                                 /* SOBGEQ: while --v >= 0 */
    default: *left = v - 1; break;                               /* SOBGTR: while --v > 0 */
    }
    return *left > 0;
}

/* The wait loop at pc, whose first opcode op the walk has just fetched:
 * the number of instructions in one iteration, or 0 if it is not one (see
 * the top of the file). */
static uint64_t wait_loop_length(walk *w, uint32_t pc, uint32_t cc, uint32_t op)
{
    for (uint64_t n = 1; n <= IDLE_MAX_INSNS; n++) {
        if ((n == 1 ? step_fetched(w, op) : step(w)) != 0)
            return 0;
        if (w->pc == pc)
            /* Back where it started: the same state only if the codes
             * came round the same (else try again next time, when one
             * iteration has made them what the loop makes them). */
            return w->cc == cc ? n : 0;
    }
    return 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define IDLE_NOINLINE __attribute__((noinline))
#else
#define IDLE_NOINLINE
#endif

/* The look proper: the walks (cpu_idle_skip has checked the PSL and the
 * limits). */
static IDLE_NOINLINE uint64_t idle_look(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t ipl = PSL_GET_IPL(c->psl_without_cc), pc = c->r[15], cc = cpu_cc(c), op = 0;
    int reg = 0;
    int64_t left = 0;
    uint64_t len = 0, len_cost = 0;
    walk w = {m, pc, cc, ipl, 0, 0, {TLB_INVALID, NULL}, {TLB_INVALID, NULL}};
    /* The opcode at the PC decides which kind of loop it can be, so it is
     * read once (a walk changes nothing, so a second read would find the
     * same byte and fail or not in the same way).  An opcode neither kind
     * starts with (most looks: the kernel comes here at every IPL change)
     * ends the look at once, as the walks would end at their first step. */
    int counted = 0;
    if (fetch_opcode(&w, &op) == 0) {
        if (loop_opcode[op] == LOOP_COUNTED) {
            counted = counted_loop(&w, pc, &op, &reg, &left);
        } else if (wait_loop_opcode(op)) {
            len = wait_loop_length(&w, pc, cc, op);
            len_cost = w.cost;
        }
    }
    if (!counted && !len) {
        /* If the TB lacked a page the code at the PC uses, we could not
         * tell; a loop fills it in one iteration.  Come back for another
         * look after a couple of iterations (returning to vax_run between
         * instructions changes nothing the guest can see).  Once per PC,
         * so that code that keeps missing (no loop, or a loop whose pages
         * evict each other) is not slowed down. */
        if (w.tb_miss && pc != m->idle_retry_pc) {
            m->idle_retry_pc = pc;
            if (m->run_limit > m->icount + 2 * IDLE_MAX_INSNS)
                m->run_limit = m->icount + 2 * IDLE_MAX_INSNS;
        }
        return 0;
    }
    m->idle_retry_pc = ~pc;
    if (machine_interrupt_deliverable(m, ipl))
        return 0;
    /* Room before the instruction budget ends and before the next event's
     * cost; every skipped instruction starts below both, as it would run. */
    uint64_t room = m->run_limit - m->icount, n;
    uint64_t cost_room = m->cost_limit > m->cost ? m->cost_limit - m->cost : 0;
    uint64_t iter_cost;
    if (counted) {
        /* Executions that all branch back, so none overflows.  The walk
         * went over the instruction once: w.cost is one execution's cost. */
        iter_cost = w.cost;
        n = (uint64_t)left < room ? (uint64_t)left : room;
        if (n > cost_room / iter_cost)
            n = cost_room / iter_cost;
        uint32_t r = op <= 0xF3 ? c->r[reg] + (uint32_t)n : c->r[reg] - (uint32_t)n;
        c->r[reg] = r;
        cpu_store_cc(c, ((r >> 31) ? PSL_N : 0) | (r == 0 ? PSL_Z : 0) | cpu_cc_c(c));   /* V cleared, C kept */
        iter_cost *= n;
    } else {
        uint64_t iters = room / len;
        if (iters > cost_room / len_cost)
            iters = cost_room / len_cost;
        n = iters * len;
        iter_cost = iters * len_cost;
    }
    if (n)
        machine_account_idle(m, n, iter_cost);
    return n;
}

/* Would cpu_idle_skip, called with the instruction count at icount and the
 * rest of the machine as it is, certainly skip nothing and change nothing?
 * (Its cheap tests only; 0 means "look".) */
static inline int idle_finds_nothing(const vax_machine *m, uint64_t icount)
{
    const vax_cpu *c = &m->cpu;
    /* Kernel mode only; no trace (each instruction would trap) and no
     * instruction half done. */
    if (c->psl_without_cc & (PSL_CUR | PSL_T | PSL_TP | PSL_FPD) || m->run_limit <= icount + 1 || m->cost_limit <= m->cost)
        return 1;
    /* Most looks (the kernel comes here at every IPL change) find an
     * opcode no loop starts with, in a page the TB holds and a block the
     * cache holds: then idle_look would read that byte, find nothing and
     * change nothing (not even idle_retry_pc, which only a failed read
     * touches), so the answer is 0 without building the walk.  The page is
     * found through the host's look-up (tlb.h: a slot that holds a page is
     * a copy of the TB's entry, so it holds it exactly when tlb_host
     * would find it readable in kernel mode); a page it lacks, a block
     * the cache lacks or an opcode a loop may start with takes the whole
     * look, which decides them as before. */
    uint32_t pc = c->r[15];
    const xlat_entry *x = XLAT_SLOT(m->xlat, pc);
    return x->tag == pc >> 9 && (xlat_access(x) & (1u << MODE_KERNEL)) &&
           cache_holds_block(&m->cache, xlat_block(x, pc)) &&
           !loop_opcode[*xlat_host(x, pc)];
}

uint64_t cpu_idle_skip(vax_machine *m)
{
    if (idle_finds_nothing(m, m->icount))
        return 0;
    return idle_look(m);
}

/* After an MTPR to IPL or an REI, with r[15] the next instruction's PC:
 * vax_run must look at the interrupts again (one may now be deliverable)
 * and, in kernel mode, for an idle loop.  But where its last full pass set
 * the limits and took the interrupt due, nothing has stopped the loop since
 * (run_limit is still the budget: anything that could make an interrupt
 * deliverable or bring an event forward stops it) and no interrupt is
 * deliverable now, that pass would find nothing to fire or take and set the
 * same limits: only the idle look remains.  If that would find nothing
 * either (its cheap tests, at the next instruction, with the count after
 * this one; always, outside kernel mode), the loop need not stop at all;
 * else vax_run goes straight to the look (machine.h, slice_state).  The
 * 4.3BSD kernel writes the IPL about once in fifty instructions (spl), and
 * returns from a system call with an REI that leaves it as it was. */
void cpu_ipl_written(vax_machine *m)
{
    if (m->slice_state == SLICE_CLEAN && m->run_limit == m->budget_end &&
        !machine_interrupt_deliverable(m, PSL_GET_IPL(m->cpu.psl_without_cc))) {
        if (!m->idle_skip || idle_finds_nothing(m, m->icount + 1))
            return;
        m->slice_state = SLICE_LIMITS_KEPT;
    }
    cpu_interrupts_changed(m);
}
