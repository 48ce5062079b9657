/*
 * exec_string.c — the character-string instructions: MOVC3, MOVC5, CMPC3,
 * CMPC5, LOCC, SKPC, SCANC, SPANC, MATCHC, MOVTC, MOVTUC and CRC.
 *
 * Results (R0-R5 and condition codes) follow the VAX Architecture
 * Reference Manual for each instruction; see the comment at each one.
 *
 * RESTARTING AFTER A FAULT ("first part done")
 *
 * A string instruction may take a memory-management fault (TNV, ACV) after
 * it has already changed memory.  As the architecture allows, it then
 * keeps its progress instead of being undone:
 *
 *   1. Operand specifiers are decoded once, at the start.  From then on the
 *      instruction's state lives in local variables.
 *   2. If a memory access faults, the state is stored in R0-R5 in the
 *      layout below, PSL<FPD> is set, and the operand decoder's undo log is
 *      emptied (cpu.rlog_n = 0) so that the autoincrements/decrements of
 *      the specifiers stay done: they will not be evaluated again.  The
 *      fault then backs the PC up to the opcode as usual and the saved PSL
 *      carries FPD.
 *   3. When the instruction starts with PSL<FPD> set (after the handler's
 *      REI), it does NOT decode its specifiers: it reloads its state from
 *      the registers, carries on, and at the end sets the PC to the opcode
 *      address plus the saved instruction length ("dPC") and clears FPD.
 *
 * The only registers written during a suspension are the ones the
 * instruction itself architecturally modifies (LOCC/SKPC: R0-R1; CMPC,
 * SCANC, SPANC, MATCHC, CRC: R0-R3; MOVC, MOVTC, MOVTUC: R0-R5), so a
 * program's other registers are never disturbed.
 *
 * Intermediate-state layout (implementation specific; <h:l> = bit field;
 * "count" fields are the unsigned 16-bit string lengths still to do;
 * dPC = length of the whole instruction in bytes, opcode included):
 *
 *   LOCC, SKPC     R0<15:0> count   R0<23:16> char   R0<31:24> dPC
 *                  R1 = address of the next byte to examine
 *   SCANC, SPANC   R0<15:0> count   R0<23:16> mask   R0<31:24> dPC
 *                  R1 = next byte   R2 = 0           R3 = table address
 *   CMPC3, CMPC5   R0<15:0> count1  R0<23:16> fill (0 for CMPC3)
 *                  R0<31:24> dPC    R1 = next byte of string 1
 *                  R2<15:0> count2  R3 = next byte of string 2
 *   MATCHC         R0<15:0> object length   R0<31:24> dPC
 *                  R1 = object address      R2<15:0> source bytes left
 *                  R3 = source position of the candidate match being tried
 *                  (a candidate interrupted by a fault is compared again)
 *   CRC            R0 = CRC so far  R1 = table address
 *                  R2<15:0> count   R2<31:24> dPC   R3 = next byte
 *   MOVC3, MOVC5   R0<15:0> bytes still to move
 *                  R0<31:16> final R0 (source bytes that will not be moved)
 *                  R1 = source: next byte (forward) / string base (backward)
 *                  R2<15:0> fill bytes still to store   R2<23:16> fill
 *                  R2<27:24> final condition codes (NZVC)
 *                  R2<28> 1 = moving backward (destination overlaps the
 *                  source from above: the move goes from the high end down)
 *                  R3 = destination: next byte (forward) / base (backward)
 *                  R4<15:0> number of bytes moved in all (min(srclen,dstlen))
 *                  R4<31:24> dPC    R5 = 0
 *   MOVTC          as MOVC5, except R3 = table address and R5 = destination
 *   MOVTUC         R0<15:0> source count   R0<23:16> escape character
 *                  R1 = next source byte   R2<3:0> final N,Z,C (V clear)
 *                  R2<31:24> dPC           R3 = table address
 *                  R4<15:0> destination count   R5 = next destination byte
 *
 * A backward move that completes switches to the forward form (R1, R3/R5
 * advanced past the moved bytes, R2<28> = 0) before it stores the fill.
 * A fault taken before any progress uses the same scheme (FPD set, nothing
 * done yet); the result after the restart is the same either way.
 *
 * STOPPING PART WAY FOR INTERRUPTS
 *
 * These instructions are interruptible (VAX Architecture Reference Manual:
 * an interrupt requested above the current IPL is taken part way through
 * a long string instruction, with the intermediate state in the registers,
 * PSL<FPD> set and the saved PC on the opcode).  Here the machine's events
 * (a clock overflow, a disk's completion) run between instructions, so an
 * instruction stops part way when one falls due: at the first unit
 * boundary, after some progress, at which its cost so far (m->cost plus
 * the bytes it has done and not yet charged) has reached cost_limit (the
 * next event's due cost), or at which run_limit is 0 (something it did
 * needs the outer loop).  It stores its state as for a fault and returns
 * to the loop, which runs the event and takes any interrupt that is now
 * deliverable; if none is, the next execution simply carries on.  The
 * stop point depends on virtual cost only.  The units: for the moves, a
 * byte (a page run is cut where the cost would cross cost_limit); for the
 * instructions that go a byte at a time (LOCC, SKPC, SCANC, SPANC,
 * MOVTUC, CRC), the bytes down to the next multiple of 8 of the count
 * left (a check per byte would cost the host more than it is worth); for
 * CMPC, 8 comparisons (of this part: its two counts need not agree in
 * their low bits); for MATCHC, one candidate match.
 *
 * Such a stop sets dPC<7> in the saved state (dPC is at most 37, so the
 * bit is free in every layout above): the resumption is not charged the
 * opcode's base cost again (the loop charges it at every start; the
 * resumption refunds it), so an instruction stopped any number of times
 * costs exactly what it costs run whole — zero restart cost, the simplest
 * choice (emu/docs/timing.md).  Only the instruction stream's refetch,
 * when a handler ran in between, is charged again, as at any return.  A
 * fault's resumption is charged the base cost again, as before.  Each part
 * counts as an instruction executed (icount, the statistics, the
 * profiler).  Trace: a stop clears PSL<TP>, as a fault does, so the
 * instruction is traced once, after its last part.
 */
#include <string.h>

#include "cpu/exec.h"

/* Timing (cpu/timing.h): besides the opcode's base cost, each instruction
 * pays per byte of progress, counted from its counters before and after
 * it runs; an instruction that faults part way pays for what it did, and
 * for the rest when it resumes. */
static inline void charge_bytes(vax_machine *m, uint32_t n, uint16_t per_byte)
{
    m->cost += (uint64_t)n * per_byte;
}

#define LO16(x) ((x) & 0xFFFFu)
#define BITS23_16(x) (((x) >> 16) & 0xFFu)
#define BITS31_24(x) ((x) >> 24)

/* Store nothing more: mark the instruction as partly done and hand the
 * fault up.  The caller has already stored its state in the registers. */
static int suspend(vax_machine *m, int status)
{
    m->cpu.psl_without_cc |= PSL_FPD;
    m->cpu.rlog_n = 0;   /* specifier side effects stay: they are not redone */
    return status;
}

/* Stop a long instruction part way and let the machine go on: the state is
 * already in the registers, FPD is set, and the PC stays on the opcode,
 * so the next execution resumes it (interrupts may come in between, as the
 * architecture allows for these interruptible instructions).  The caller
 * has stored dPC with DPC_STOPPED.  TP goes, as at a fault: the
 * instruction traces itself after its last part. */
static int yield_part_done(vax_machine *m)
{
    suspend(m, 0);
    m->cpu.psl_without_cc &= ~PSL_TP;
    m->cpu.r[15] = m->cpu.instr_pc;
    return 0;
}

/* dPC<7> in a saved state: the instruction stopped part way for the
 * machine (an event, an interrupt), not for a fault (see the opening
 * comment). */
#define DPC_STOPPED 0x80u

/* The dPC of a state being resumed, from its saved byte: a resumption
 * after a stop for the machine gives back the opcode's base cost, which
 * the loop has just charged again. */
static inline uint32_t resume_dpc(vax_machine *m, uint32_t saved, int opcode)
{
    if (saved & DPC_STOPPED)
        m->cost -= m->tm.op[opcode];
    return saved & ~DPC_STOPPED;
}

/* Must a long instruction stop at this unit boundary?  Its cost so far is
 * m->cost plus `owed` (the work done and not yet charged); it stops when
 * that reaches cost_limit, the cost at which the next event falls due, or
 * when run_limit is 0 (something it did needs the outer loop). */
static inline int machine_wants_stop(const vax_machine *m, uint64_t owed)
{
    return m->cost + owed >= m->cost_limit || m->run_limit <= m->icount;
}

/* At most n bytes of a run at per_byte each, whose reads (if `reads`) go
 * through the cache, cut so that the run cannot pass cost_limit by more
 * than one byte's cost (its miss included): n bytes read cost at most
 * n * per_byte and n / 8 + 2 block misses, so a run that could pass it is
 * cut to what surely fits below it, and the next run is cut again, down
 * to single bytes near the limit.  At least one byte, so that every part
 * makes progress. */
static inline uint32_t bytes_before_event(const vax_machine *m, uint64_t owed, uint32_t n, uint32_t per_byte,
                                          int reads)
{
    uint64_t spent = m->cost + owed;
    if (spent >= m->cost_limit)
        return 1;
    uint64_t room = m->cost_limit - spent;
    uint64_t miss = reads ? m->tm.read_miss : 0;
    if ((uint64_t)n * per_byte + ((uint64_t)n / 8 + 2) * miss <= room)
        return n;
    /* n' * (per_byte + miss / 8) + 2 * miss <= room, rounded down */
    uint64_t per8 = 8u * (uint64_t)per_byte + miss;
    if (per8 == 0 || room <= 2 * miss)
        return 1;
    uint64_t fit = (room - 2 * miss) * 8u / per8;
    return fit == 0 ? 1 : fit < n ? (uint32_t)fit : n;
}

/* The instruction is complete: continue after it. */
static void complete(vax_machine *m, uint32_t dpc)
{
    m->cpu.r[15] = m->cpu.instr_pc + dpc;
    m->cpu.psl_without_cc &= ~PSL_FPD;
}

static inline int resuming(const vax_machine *m)
{
    return (m->cpu.psl_without_cc & PSL_FPD) != 0;
}

/* Length of the instruction just decoded. */
static inline uint32_t decoded_length(const vax_machine *m)
{
    return (m->cpu.r[15] - m->cpu.instr_pc) & 0xFFu;
}

/* Condition codes of CMPx a, b for size 1 or 2 (N signed, C unsigned). */
static uint32_t cc_compare(uint32_t a, uint32_t b, int size)
{
    uint32_t cc = 0;
    a &= size_mask(size);
    b &= size_mask(size);
    if ((int32_t)sign_extend(a, size) < (int32_t)sign_extend(b, size))
        cc |= PSL_N;
    if (a == b)
        cc |= PSL_Z;
    if (a < b)
        cc |= PSL_C;
    return cc;
}

/* Host address of va when the translation buffer already holds it with the
 * needed access in the current mode (the same test as the inline memory
 * accessors), else NULL.  Valid up to the end of va's page. */
static inline uint8_t *tb_host(vax_machine *m, uint32_t va, int write)
{
    const tlb_entry *e = tlb_find(&m->tlb, va);
    uint32_t mode = PSL_GET_CUR(m->cpu.psl_without_cc);
    uint32_t bit = write ? (16u << mode) : (1u << mode);
    if (e && (e->access & bit) && e->host)
        return e->host + (va & 511u);
    return NULL;
}

static inline uint32_t page_left(uint32_t va)
{
    return 512u - (va & 511u);
}

/* ------------------------------------------------------------------ */
/* MOVC3, MOVC5, MOVTC: the move engine. */

typedef struct {
    uint32_t k;          /* bytes still to move */
    uint32_t unmoved;    /* final R0 */
    uint32_t src, dst;   /* forward: next byte; backward: string bases */
    uint32_t fill_n;     /* fill bytes still to store */
    uint32_t fill;
    uint32_t cc;         /* final NZVC */
    uint32_t backward;
    uint32_t total;      /* bytes moved in all */
    uint32_t dpc;
    uint32_t tbl;        /* MOVTC: translation table */
    int translate;
    /* This execution's part, not saved: k and fill_n when it began, and
     * the cost of a byte moved and of a byte filled. */
    uint32_t k_start, fill_start;
    uint32_t per_byte, per_fill;
} move_state;

/* The cost of this execution's bytes so far (charged when it ends). */
static inline uint64_t move_owed(const move_state *s)
{
    return (uint64_t)(s->k_start - s->k) * s->per_byte + (uint64_t)(s->fill_start - s->fill_n) * s->per_fill;
}

/* move_run's status when it stops part way for the machine (statuses of
 * faults are VAX_EXC_*, 0x100 and up). */
enum { MOVE_STOPPED = 1 };

/* After a unit of a move: stop here? (Only if work is left.) */
static inline int move_should_stop(const vax_machine *m, const move_state *s)
{
    return (s->k | s->fill_n) != 0 && machine_wants_stop(m, move_owed(s));
}

static void move_save(vax_machine *m, const move_state *s)
{
    uint32_t *r = m->cpu.r;
    r[0] = (s->k & 0xFFFFu) | (s->unmoved << 16);
    r[1] = s->src;
    r[2] = (s->fill_n & 0xFFFFu) | ((s->fill & 0xFFu) << 16) | ((s->cc & 15u) << 24) | (s->backward << 28);
    r[4] = (s->total & 0xFFFFu) | (s->dpc << 24);
    if (s->translate) {
        r[3] = s->tbl;
        r[5] = s->dst;
    } else {
        r[3] = s->dst;
        r[5] = 0;
    }
}

static void move_load(const vax_machine *m, move_state *s, int translate)
{
    const uint32_t *r = m->cpu.r;
    s->k = LO16(r[0]);
    s->unmoved = r[0] >> 16;
    s->src = r[1];
    s->fill_n = LO16(r[2]);
    s->fill = BITS23_16(r[2]);
    s->cc = (r[2] >> 24) & 15u;
    s->backward = (r[2] >> 28) & 1u;
    s->total = LO16(r[4]);
    s->dpc = BITS31_24(r[4]);
    s->translate = translate;
    if (translate) {
        s->tbl = r[3];
        s->dst = r[5];
    } else {
        s->tbl = 0;
        s->dst = r[3];
    }
}

/* Set up a fresh move: srclen bytes at src into dstlen bytes at dst. */
static void move_init(move_state *s, uint32_t srclen, uint32_t src, uint32_t fill, uint32_t dstlen, uint32_t dst,
                      uint32_t cc)
{
    uint32_t n = srclen < dstlen ? srclen : dstlen;
    s->k = n;
    s->total = n;
    s->unmoved = srclen - n;
    s->fill_n = dstlen - n;
    s->fill = fill & 0xFFu;
    s->src = src;
    s->dst = dst;
    s->cc = cc;
    /* The destination starts inside the source above its first byte: a
     * forward move would overwrite source bytes before reading them. */
    s->backward = (dst != src && (uint32_t)(dst - src) < n) ? 1u : 0u;
}

static int move_run(vax_machine *m, move_state *s)
{
    uint32_t b;
    int st;

    if (s->backward) {
        while (s->k) {
            uint32_t i = s->k - 1;
            if (!s->translate) {
                /* Copy the part of the tail that lies in one page of each. */
                uint32_t sa = s->src + i, da = s->dst + i;
                uint32_t n = s->k;
                if ((sa & 511u) + 1 < n)
                    n = (sa & 511u) + 1;
                if ((da & 511u) + 1 < n)
                    n = (da & 511u) + 1;
                n = bytes_before_event(m, move_owed(s), n, s->per_byte, 1);
                if (n > 1) {
                    uint8_t *hs = tb_host(m, sa - (n - 1), 0);
                    uint8_t *hd = tb_host(m, da - (n - 1), 1);
                    if (hs && hd) {
                        m->cost += cache_read_span(&m->cache, host_pa(m, hs), n);   /* the source's blocks */
                        memmove(hd, hs, n);
                        s->k -= n;
                        if (move_should_stop(m, s))
                            return MOVE_STOPPED;
                        continue;
                    }
                }
            }
            if ((st = mem_read_b(m, s->src + i, &b)) != 0)
                return st;
            if (s->translate && (st = mem_read_b(m, s->tbl + b, &b)) != 0)
                return st;
            if ((st = mem_write_b(m, s->dst + i, b)) != 0)
                return st;
            s->k = i;
            if (move_should_stop(m, s))
                return MOVE_STOPPED;
        }
        /* Switch to the forward form for the fill. */
        s->backward = 0;
        s->src += s->total;
        s->dst += s->total;
    }

    while (s->k) {
        if (!s->translate) {
            uint8_t *hs = tb_host(m, s->src, 0);
            uint8_t *hd = hs ? tb_host(m, s->dst, 1) : NULL;
            if (hd) {
                uint32_t n = s->k;
                if (page_left(s->src) < n)
                    n = page_left(s->src);
                if (page_left(s->dst) < n)
                    n = page_left(s->dst);
                n = bytes_before_event(m, move_owed(s), n, s->per_byte, 1);
                m->cost += cache_read_span(&m->cache, host_pa(m, hs), n);   /* the source's blocks */
                memmove(hd, hs, n);
                s->src += n;
                s->dst += n;
                s->k -= n;
                if (move_should_stop(m, s))
                    return MOVE_STOPPED;
                continue;
            }
        }
        if ((st = mem_read_b(m, s->src, &b)) != 0)
            return st;
        if (s->translate && (st = mem_read_b(m, s->tbl + b, &b)) != 0)
            return st;
        if ((st = mem_write_b(m, s->dst, b)) != 0)
            return st;
        s->src++;
        s->dst++;
        s->k--;
        if (move_should_stop(m, s))
            return MOVE_STOPPED;
    }

    while (s->fill_n) {
        uint8_t *hd = tb_host(m, s->dst, 1);
        if (hd) {
            uint32_t n = s->fill_n;
            if (page_left(s->dst) < n)
                n = page_left(s->dst);
            n = bytes_before_event(m, move_owed(s), n, s->per_fill, 0);
            memset(hd, (int)s->fill, n);
            s->dst += n;
            s->fill_n -= n;
            if (move_should_stop(m, s))
                return MOVE_STOPPED;
            continue;
        }
        if ((st = mem_write_b(m, s->dst, s->fill)) != 0)
            return st;
        s->dst++;
        s->fill_n--;
        if (move_should_stop(m, s))
            return MOVE_STOPPED;
    }
    return 0;
}

/* MOVC3 len.rw, srcaddr.ab, dstaddr.ab
 *   R0 = 0, R1 = srcaddr + len, R2 = 0, R3 = dstaddr + len, R4 = R5 = 0;
 *   N = 0, Z = 1, V = 0, C = 0.
 * MOVC5 srclen.rw, srcaddr.ab, fill.rb, dstlen.rw, dstaddr.ab
 *   R0 = source bytes not moved, R1 = address past the last source byte
 *   moved, R2 = 0, R3 = dstaddr + dstlen, R4 = R5 = 0;
 *   condition codes as CMPW srclen, dstlen.
 * MOVTC srclen.rw, srcaddr.ab, fill.rb, tbladdr.ab, dstlen.rw, dstaddr.ab
 *   R0 = source bytes not translated, R1 = address past the last source
 *   byte translated, R2 = 0, R3 = tbladdr, R4 = 0, R5 = dstaddr + dstlen;
 *   condition codes as CMPW srclen, dstlen.
 * Overlap of source and destination does not affect the result (MOVTC:
 * overlap with the table is UNPREDICTABLE). */
static int do_move(vax_machine *m, int opcode)
{
    move_state s;
    int translate = opcode == 0x2E;

    if (resuming(m)) {
        move_load(m, &s, translate);
        s.dpc = resume_dpc(m, s.dpc, opcode);
    } else {
        uint32_t srclen, src, fill = 0, tbl = 0, dstlen, dst;
        TRY(op_read(m, 2, &srclen));
        TRY(op_addr(m, 1, &src));
        if (opcode == 0x28) {
            TRY(op_addr(m, 1, &dst));
            dstlen = srclen;
        } else {
            TRY(op_read(m, 1, &fill));
            if (translate)
                TRY(op_addr(m, 1, &tbl));
            TRY(op_read(m, 2, &dstlen));
            TRY(op_addr(m, 1, &dst));
        }
        move_init(&s, srclen, src, fill, dstlen, dst, opcode == 0x28 ? PSL_Z : cc_compare(srclen, dstlen, 2));
        s.translate = translate;
        s.tbl = tbl;
        s.dpc = decoded_length(m);
    }

    s.k_start = s.k;
    s.fill_start = s.fill_n;
    s.per_byte = translate ? m->tm.movtc_byte : m->tm.move_byte;
    s.per_fill = m->tm.fill_byte;
    int st = move_run(m, &s);
    charge_bytes(m, s.k_start - s.k, (uint16_t)s.per_byte);
    charge_bytes(m, s.fill_start - s.fill_n, (uint16_t)s.per_fill);
    if (st == MOVE_STOPPED) {
        s.dpc |= DPC_STOPPED;
        move_save(m, &s);
        return yield_part_done(m);
    }
    if (st) {
        move_save(m, &s);
        return suspend(m, st);
    }

    uint32_t *r = m->cpu.r;
    r[0] = s.unmoved;
    r[1] = s.src;
    r[2] = 0;
    r[4] = 0;
    if (translate) {
        r[3] = s.tbl;
        r[5] = s.dst;
    } else {
        r[3] = s.dst;
        r[5] = 0;
    }
    cc_set(m, s.cc);
    complete(m, s.dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

/* MOVTUC srclen.rw, srcaddr.ab, esc.rb, tbladdr.ab, dstlen.rw, dstaddr.ab
 *   Translates until a translated byte equals esc or either string runs out.
 *   R0 = source bytes left (including the one that escaped), R1 = address
 *   of that byte (or past the last translated one), R2 = 0, R3 = tbladdr,
 *   R4 = destination bytes left, R5 = next destination byte;
 *   N, Z, C as CMPW srclen, dstlen; V = 1 if stopped by the escape. */
static int do_movtuc(vax_machine *m)
{
    uint32_t *r = m->cpu.r;
    uint32_t sn, sp, esc, tbl, dn, dp, cc, dpc;

    if (resuming(m)) {
        sn = LO16(r[0]);
        esc = BITS23_16(r[0]);
        sp = r[1];
        cc = r[2] & (PSL_N | PSL_Z | PSL_C);
        dpc = BITS31_24(r[2]);
        tbl = r[3];
        dn = LO16(r[4]);
        dp = r[5];
        dpc = resume_dpc(m, dpc, 0x2F);
    } else {
        TRY(op_read(m, 2, &sn));
        TRY(op_addr(m, 1, &sp));
        TRY(op_read(m, 1, &esc));
        TRY(op_addr(m, 1, &tbl));
        TRY(op_read(m, 2, &dn));
        TRY(op_addr(m, 1, &dp));
        cc = cc_compare(sn, dn, 2);
        dpc = decoded_length(m);
    }

    uint32_t sn0 = sn;
    while (sn && dn) {
        uint32_t b, t;
        int st = mem_read_b(m, sp, &b);
        if (st == 0)
            st = mem_read_b(m, tbl + b, &t);
        if (st == 0 && t == esc) {
            cc |= PSL_V;
            break;
        }
        if (st == 0)
            st = mem_write_b(m, dp, t);
        int stop = 0;
        if (st == 0) {
            sp++;
            dp++;
            sn--;
            dn--;
            stop = sn && dn && (sn & 7u) == 0 && machine_wants_stop(m, (uint64_t)(sn0 - sn) * m->tm.movtc_byte);
        }
        if (st || stop) {
            r[0] = sn | (esc << 16);
            r[1] = sp;
            r[2] = cc | ((dpc | (stop ? DPC_STOPPED : 0)) << 24);
            r[3] = tbl;
            r[4] = dn;
            r[5] = dp;
            charge_bytes(m, sn0 - sn, m->tm.movtc_byte);
            return stop ? yield_part_done(m) : suspend(m, st);
        }
    }
    charge_bytes(m, sn0 - sn, m->tm.movtc_byte);

    r[0] = sn;
    r[1] = sp;
    r[2] = 0;
    r[3] = tbl;
    r[4] = dn;
    r[5] = dp;
    cc_set(m, cc);
    complete(m, dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

/* CMPC compares its strings a byte at a time, each byte read through the
 * cache model: eight reads of the same block in a row for each string.
 * The loop below reads each string's first byte in a block the model's way
 * (cursor_read_b: the cache's test, a fill on a miss) and remembers that
 * block (cmpc_block); while both strings stay in the blocks so remembered,
 * the cache has filled no block since and their cursors still hold their
 * pages, it compares the bytes straight from the pages.  That is exact: the
 * cache's tags change only in cache_fill, which counts a miss each time
 * (cache.c), so with the count unchanged each block is still held and its
 * test would have found it, and a hit costs nothing and changes nothing
 * (cache.h); a cursor's page is its TB entry, unchanged (mmu.h,
 * page_cursor), so the physical block is the same too. */
typedef struct {
    uint32_t vblock;    /* va >> 3 of the string's last read through the cache, or CMPC_NO_BLOCK */
    uint64_t misses;    /* the cache's miss count after that read */
} cmpc_block;

#define CMPC_NO_BLOCK 0xFFFFFFFFu   /* no va >> 3 is this */

/* A byte through cursor k, the model's way, and the block remembered.  A
 * read the cursor made went through cache_read; one it left to the slow
 * path emptied the cursor, so the block is not taken as known (the page
 * test fails). */
static inline int cmpc_read_b(vax_machine *m, page_cursor *k, page_cursor *other, cmpc_block *seen, uint32_t va,
                              uint32_t *v)
{
    int st = cursor_read_b(m, k, other, va, v);
    seen->vblock = va >> 3;
    seen->misses = m->cache.misses;
    return st;
}

ALWAYS_INLINE int cmpc_block_known(const vax_machine *m, const page_cursor *k, const cmpc_block *seen, uint32_t va)
{
    return (va >> 3) == seen->vblock && (va >> 9) == k->vpn && m->cache.misses == seen->misses;
}

/* CMPC3 len.rw, src1addr.ab, src2addr.ab
 * CMPC5 src1len.rw, src1addr.ab, fill.rb, src2len.rw, src2addr.ab
 *   Compares until the bytes differ or both strings are used up (CMPC5:
 *   the shorter string is extended with fill).
 *   R0 = bytes left in string 1 (including the one that differed),
 *   R1 = address of that byte (or past string 1), R2/R3 likewise for
 *   string 2; condition codes as CMPB of the last bytes compared
 *   (Z = 1, N = C = 0 if the strings are equal). */
static int do_cmpc(vax_machine *m, int five)
{
    uint32_t *r = m->cpu.r;
    uint32_t n1, p1, n2, p2, fill = 0, dpc;

    if (resuming(m)) {
        n1 = LO16(r[0]);
        fill = BITS23_16(r[0]);
        dpc = BITS31_24(r[0]);
        p1 = r[1];
        n2 = LO16(r[2]);
        p2 = r[3];
        dpc = resume_dpc(m, dpc, five ? 0x2D : 0x29);
    } else {
        TRY(op_read(m, 2, &n1));
        TRY(op_addr(m, 1, &p1));
        if (five) {
            TRY(op_read(m, 1, &fill));
            TRY(op_read(m, 2, &n2));
        } else {
            n2 = n1;
        }
        TRY(op_addr(m, 1, &p2));
        dpc = decoded_length(m);
    }

    uint32_t cc = PSL_Z;
    uint32_t n10 = n1, n20 = n2;
    page_cursor k1 = PAGE_CURSOR_EMPTY, k2 = PAGE_CURSOR_EMPTY;   /* the strings' pages (mmu.h) */
    cmpc_block seen1 = {CMPC_NO_BLOCK, 0}, seen2 = {CMPC_NO_BLOCK, 0};
#define CMPC_CHARGE() charge_bytes(m, (n10 - n1) > (n20 - n2) ? n10 - n1 : n20 - n2, m->tm.cmpc_byte)
    uint32_t check_in = 8;   /* comparisons to the next unit boundary */
    while (n1 || n2) {
        if (n1 && n2 && cmpc_block_known(m, &k1, &seen1, p1) && cmpc_block_known(m, &k2, &seen2, p2)) {
            /* Both bytes in known blocks: compare to the end of the first
             * block to end, of either count, or of the eight comparisons
             * to the next stop test, straight from the pages. */
            uint32_t run = 8u - (p1 & 7u);
            if (8u - (p2 & 7u) < run)
                run = 8u - (p2 & 7u);
            if (n1 < run)
                run = n1;
            if (n2 < run)
                run = n2;
            if (check_in < run)
                run = check_in;
            const uint8_t *s1 = k1.host + (p1 & 511u), *s2 = k2.host + (p2 & 511u);
            uint32_t i = 0;
            while (i < run && s1[i] == s2[i])
                i++;
            p1 += i;
            n1 -= i;
            p2 += i;
            n2 -= i;
            if (i < run) {
                cc = cc_compare(s1[i], s2[i], 1);
                break;
            }
            check_in -= i;
        } else {
            uint32_t b1 = fill, b2 = fill;
            int st = 0;
            if (n1)
                st = cmpc_read_b(m, &k1, &k2, &seen1, p1, &b1);
            if (st == 0 && n2)
                st = cmpc_read_b(m, &k2, &k1, &seen2, p2, &b2);
            if (st) {
                r[0] = n1 | (fill << 16) | (dpc << 24);
                r[1] = p1;
                r[2] = n2;
                r[3] = p2;
                CMPC_CHARGE();
                return suspend(m, st);
            }
            if (b1 != b2) {
                cc = cc_compare(b1, b2, 1);
                break;
            }
            if (n1) {
                p1++;
                n1--;
            }
            if (n2) {
                p2++;
                n2--;
            }
            check_in--;
        }
        if (UNLIKELY(check_in == 0)) {
            check_in = 8;
            if ((n1 || n2) && machine_wants_stop(m, (uint64_t)((n10 - n1) > (n20 - n2) ? n10 - n1 : n20 - n2) *
                                                        m->tm.cmpc_byte)) {
                r[0] = n1 | (fill << 16) | ((dpc | DPC_STOPPED) << 24);
                r[1] = p1;
                r[2] = n2;
                r[3] = p2;
                CMPC_CHARGE();
                return yield_part_done(m);
            }
        }
    }

    CMPC_CHARGE();
#undef CMPC_CHARGE
    r[0] = n1;
    r[1] = p1;
    r[2] = n2;
    r[3] = p2;
    cc_set(m, cc);
    complete(m, dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

/* LOCC char.rb, len.rw, addr.ab: find the first byte equal to char.
 * SKPC char.rb, len.rw, addr.ab: find the first byte not equal to char.
 *   R0 = bytes left including the byte found (0 if none), R1 = its address
 *   (or past the string); N = 0, Z = (R0 == 0), V = 0, C = 0. */
static int do_locc(vax_machine *m, int skip)
{
    uint32_t *r = m->cpu.r;
    uint32_t ch, n, p, dpc;

    if (resuming(m)) {
        n = LO16(r[0]);
        ch = BITS23_16(r[0]);
        dpc = resume_dpc(m, BITS31_24(r[0]), skip ? 0x3B : 0x3A);
        p = r[1];
    } else {
        TRY(op_read(m, 1, &ch));
        TRY(op_read(m, 2, &n));
        TRY(op_addr(m, 1, &p));
        dpc = decoded_length(m);
    }

    uint32_t n0 = n;
    page_cursor k = PAGE_CURSOR_EMPTY;   /* the string's page (mmu.h) */
    while (n) {
        uint32_t b;
        int st = cursor_read_b(m, &k, NULL, p, &b);
        int stop = 0;
        if (st == 0) {
            if ((b == ch) != skip)
                break;
            p++;
            n--;
            stop = n && (n & 7u) == 0 && machine_wants_stop(m, (uint64_t)(n0 - n) * m->tm.locc_byte);
        }
        if (st || stop) {
            r[0] = n | (ch << 16) | ((dpc | (stop ? DPC_STOPPED : 0)) << 24);
            r[1] = p;
            charge_bytes(m, n0 - n, m->tm.locc_byte);
            return stop ? yield_part_done(m) : suspend(m, st);
        }
    }

    charge_bytes(m, n0 - n, m->tm.locc_byte);
    r[0] = n;
    r[1] = p;
    cc_set(m, n ? 0 : PSL_Z);
    complete(m, dpc);
    return 0;
}

/* SCANC len.rw, addr.ab, tbladdr.ab, mask.rb: find the first byte whose
 *   table entry ANDed with mask is nonzero.
 * SPANC: the first byte whose table entry ANDed with mask is zero.
 *   R0 = bytes left including the byte found (0 if none), R1 = its address
 *   (or past the string), R2 = 0, R3 = tbladdr;
 *   N = 0, Z = (R0 == 0), V = 0, C = 0. */
static int do_scanc(vax_machine *m, int span)
{
    uint32_t *r = m->cpu.r;
    uint32_t n, p, tbl, mask, dpc;

    if (resuming(m)) {
        n = LO16(r[0]);
        mask = BITS23_16(r[0]);
        dpc = resume_dpc(m, BITS31_24(r[0]), span ? 0x2B : 0x2A);
        p = r[1];
        tbl = r[3];
    } else {
        TRY(op_read(m, 2, &n));
        TRY(op_addr(m, 1, &p));
        TRY(op_addr(m, 1, &tbl));
        TRY(op_read(m, 1, &mask));
        dpc = decoded_length(m);
    }

    uint32_t n0 = n;
    while (n) {
        uint32_t b, t;
        int st = mem_read_b(m, p, &b);
        if (st == 0)
            st = mem_read_b(m, tbl + b, &t);
        int stop = 0;
        if (st == 0) {
            if (((t & mask) != 0) != span)
                break;
            p++;
            n--;
            stop = n && (n & 7u) == 0 && machine_wants_stop(m, (uint64_t)(n0 - n) * m->tm.scanc_byte);
        }
        if (st || stop) {
            r[0] = n | (mask << 16) | ((dpc | (stop ? DPC_STOPPED : 0)) << 24);
            r[1] = p;
            r[2] = 0;
            r[3] = tbl;
            charge_bytes(m, n0 - n, m->tm.scanc_byte);
            return stop ? yield_part_done(m) : suspend(m, st);
        }
    }

    charge_bytes(m, n0 - n, m->tm.scanc_byte);
    r[0] = n;
    r[1] = p;
    r[2] = 0;
    r[3] = tbl;
    cc_set(m, n ? 0 : PSL_Z);
    complete(m, dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

/* MATCHC objlen.rw, objaddr.ab, srclen.rw, srcaddr.ab: find the object
 * string in the source string.
 *   Found: R0 = 0, R1 = objaddr + objlen, R2 = source bytes left after the
 *   match, R3 = address past the match.
 *   Not found: R0 = objlen, R1 = objaddr, R2 = 0, R3 = srcaddr + srclen.
 *   An empty object is found at once.  N = 0, Z = (R0 == 0), V = 0, C = 0. */
static int do_matchc(vax_machine *m)
{
    uint32_t *r = m->cpu.r;
    uint32_t on, op, sn, sp, dpc;

    if (resuming(m)) {
        on = LO16(r[0]);
        dpc = resume_dpc(m, BITS31_24(r[0]), 0x39);
        op = r[1];
        sn = LO16(r[2]);
        sp = r[3];
    } else {
        TRY(op_read(m, 2, &on));
        TRY(op_addr(m, 1, &op));
        TRY(op_read(m, 2, &sn));
        TRY(op_addr(m, 1, &sp));
        dpc = decoded_length(m);
    }

    /* MATCHC is quadratic (object length x source length, up to 2^32 byte
     * comparisons): it also stops after MATCHC_WORK comparisons so that one
     * instruction can never hold the host for seconds.  It stops between
     * candidates only: its state cannot hold a place within one. */
    enum { MATCHC_WORK = 1 << 16 };
    uint32_t work = 0;
    int found = on == 0;
    while (!found && sn >= on) {
        if (work != 0 && (work >= MATCHC_WORK || machine_wants_stop(m, (uint64_t)work * m->tm.matchc_byte))) {
            charge_bytes(m, work, m->tm.matchc_byte);
            r[0] = on | ((dpc | DPC_STOPPED) << 24);
            r[1] = op;
            r[2] = sn;
            r[3] = sp;
            return yield_part_done(m);
        }
        work += on;
        uint32_t i;
        int st = 0;
        for (i = 0; i < on; i++) {
            uint32_t a, b;
            st = mem_read_b(m, sp + i, &b);
            if (st == 0)
                st = mem_read_b(m, op + i, &a);
            if (st || a != b)
                break;
        }
        if (st) {
            charge_bytes(m, work, m->tm.matchc_byte);
            r[0] = on | (dpc << 24);
            r[1] = op;
            r[2] = sn;
            r[3] = sp;
            return suspend(m, st);
        }
        if (i == on) {
            found = 1;
            break;
        }
        sp++;
        sn--;
    }

    charge_bytes(m, work, m->tm.matchc_byte);
    if (found) {
        r[0] = 0;
        r[1] = op + on;
        r[2] = sn - on;
        r[3] = sp + on;
    } else {
        r[0] = on;
        r[1] = op;
        r[2] = 0;
        r[3] = sp + sn;
    }
    cc_set(m, found ? PSL_Z : 0);
    complete(m, dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

/* CRC tbl.ab, inicrc.rl, strlen.rw, stream.ab
 *   For each byte: crc ^= byte, then twice crc = (crc >> 4) ^ tbl[crc & 15]
 *   (tbl: 16 longwords).  R0 = the CRC, R1 = 0, R2 = 0, R3 = address past
 *   the stream; N = (R0 < 0), Z = (R0 == 0), V = 0, C = 0. */
static int do_crc(vax_machine *m)
{
    uint32_t *r = m->cpu.r;
    uint32_t tbl, crc, n, p, dpc;

    if (resuming(m)) {
        crc = r[0];
        tbl = r[1];
        n = LO16(r[2]);
        dpc = resume_dpc(m, BITS31_24(r[2]), 0x0B);
        p = r[3];
    } else {
        TRY(op_addr(m, 1, &tbl));
        TRY(op_read(m, 4, &crc));
        TRY(op_read(m, 2, &n));
        TRY(op_addr(m, 1, &p));
        dpc = decoded_length(m);
    }

    uint32_t n0 = n;
    while (n) {
        uint32_t b, e1, e2, t = 0;
        int st = mem_read_b(m, p, &b);
        if (st == 0) {
            t = crc ^ b;
            st = mem_read_l(m, tbl + 4u * (t & 15u), &e1);
            if (st == 0) {
                t = (t >> 4) ^ e1;
                st = mem_read_l(m, tbl + 4u * (t & 15u), &e2);
                t = (t >> 4) ^ e2;
            }
        }
        int stop = 0;
        if (st == 0) {
            crc = t;
            p++;
            n--;
            stop = n && (n & 7u) == 0 && machine_wants_stop(m, (uint64_t)(n0 - n) * m->tm.crc_byte);
        }
        if (st || stop) {
            r[0] = crc;
            r[1] = tbl;
            r[2] = n | ((dpc | (stop ? DPC_STOPPED : 0)) << 24);
            r[3] = p;
            charge_bytes(m, n0 - n, m->tm.crc_byte);
            return stop ? yield_part_done(m) : suspend(m, st);
        }
    }

    charge_bytes(m, n0 - n, m->tm.crc_byte);
    r[0] = crc;
    r[1] = 0;
    r[2] = 0;
    r[3] = p;
    cc_set(m, cc_nz_bits(crc, 4));
    complete(m, dpc);
    return 0;
}

/* ------------------------------------------------------------------ */

int exec_string(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0x28:   /* MOVC3 */
    case 0x2C:   /* MOVC5 */
    case 0x2E:   /* MOVTC */
        return do_move(m, opcode);
    case 0x2F:
        return do_movtuc(m);
    case 0x29:
        return do_cmpc(m, 0);
    case 0x2D:
        return do_cmpc(m, 1);
    case 0x3A:
        return do_locc(m, 0);
    case 0x3B:
        return do_locc(m, 1);
    case 0x2A:
        return do_scanc(m, 0);
    case 0x2B:
        return do_scanc(m, 1);
    case 0x39:
        return do_matchc(m);
    case 0x0B:
        return do_crc(m);
    default:
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}
