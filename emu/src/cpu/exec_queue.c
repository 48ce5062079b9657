/*
 * exec_queue.c — queue instructions: INSQUE/REMQUE on absolute queues and
 * the interlocked self-relative queue instructions INSQHI, INSQTI, REMQHI,
 * REMQTI (VAX Architecture Reference Manual, "Queue instructions").
 *
 * Absolute queue entry:       Self-relative queue entry:
 *   +0  forward link (addr)     +0  forward link (displacement from entry)
 *   +4  backward link (addr)    +4  backward link (displacement from entry)
 *
 * An instruction either completes or changes nothing: every location that
 * will be written is first checked for write access (which raises the
 * TNV/ACV fault), and only then is anything stored.
 *
 * The interlocked forms need no real interlock in a single-processor
 * emulator (an instruction is never interrupted half-way); the secondary
 * interlock (bit 0 of the header's forward link) is honoured as software
 * sees it: if it is set, the instruction fails with C set.  It is never
 * left set by these instructions.
 */
#include "cpu/exec.h"

/* Check that len bytes at va (len <= 512) can be written in the current
 * mode, raising the fault a write would raise. */
static int wcheck(vax_machine *m, uint32_t va, uint32_t len)
{
    int mode = (int)PSL_GET_CUR(m->cpu.psl_without_cc);
    tlb_entry *e;
    TRY(mmu_translate(m, va, mode, 1, &e));
    uint32_t last = va + len - 1;
    if ((last >> 9) != (va >> 9))
        TRY(mmu_translate(m, last, mode, 1, &e));
    return 0;
}

/* Condition codes of a longword compare a:b (as CMPL). */
static uint32_t cc_cmp_l(uint32_t a, uint32_t b)
{
    uint32_t cc = 0;
    if ((int32_t)a < (int32_t)b)
        cc |= PSL_N;
    if (a == b)
        cc |= PSL_Z;
    if (a < b)
        cc |= PSL_C;
    return cc;
}

/* INSQUE entry.ab, pred.ab */
static int op_insque(vax_machine *m)
{
    uint32_t entry, pred, succ;
    TRY(op_addr(m, 1, &entry));
    TRY(op_addr(m, 1, &pred));
    TRY(mem_read_l(m, pred, &succ));
    TRY(wcheck(m, pred, 4));
    TRY(wcheck(m, entry, 8));
    TRY(wcheck(m, succ + 4, 4));
    TRY(mem_write_l(m, entry, succ));
    TRY(mem_write_l(m, entry + 4, pred));
    TRY(mem_write_l(m, succ + 4, entry));
    TRY(mem_write_l(m, pred, entry));
    /* (entry) : (entry+4) after the insertion; Z: the entry is the only
     * one in the queue. */
    cc_set(m, cc_cmp_l(succ, pred));
    return 0;
}

/* REMQUE entry.ab, addr.wl */
static int op_remque(vax_machine *m)
{
    uint32_t entry, succ, pred;
    oploc dst;
    TRY(op_addr(m, 1, &entry));
    TRY(op_loc(m, 4, &dst));
    TRY(mem_read_l(m, entry, &succ));
    TRY(mem_read_l(m, entry + 4, &pred));
    TRY(wcheck(m, pred, 4));
    TRY(wcheck(m, succ + 4, 4));
    if (dst.reg < 0)
        TRY(wcheck(m, dst.addr, 4));
    TRY(mem_write_l(m, pred, succ));
    TRY(mem_write_l(m, succ + 4, pred));
    TRY(loc_write(m, &dst, 4, entry));
    /* Z: the queue is empty now; V: it was empty (entry is the header). */
    uint32_t cc = cc_cmp_l(succ, pred);
    if (entry == pred)
        cc |= PSL_V;
    cc_set(m, cc);
    return 0;
}

/* INSQHI entry.ab, header.aq / INSQTI entry.ab, header.aq */
static int op_insqi(vax_machine *m, int tail)
{
    uint32_t entry, h, flink, blink = 0;
    TRY(op_addr(m, 1, &entry));
    TRY(op_addr(m, 8, &h));
    /* Both quadword aligned, and the entry cannot be the header itself:
     * reserved operand, nothing changed (DEC's EVKAB tests 129 and 130
     * insert a header into itself and expect the fault). */
    if (((entry | h) & 7u) || entry == h)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(mem_read_l(m, h, &flink));
    TRY(wcheck(m, h, 8));
    if (flink & 1u) {   /* secondary interlock held: fail */
        cc_set(m, PSL_C);
        return 0;
    }
    if (flink & 6u)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(wcheck(m, entry, 8));
    if (!tail) {
        uint32_t a = h + flink;   /* present first entry (h if empty) */
        TRY(wcheck(m, a + 4, 4));
        TRY(mem_write_l(m, entry, a - entry));
        TRY(mem_write_l(m, entry + 4, h - entry));
        TRY(mem_write_l(m, a + 4, entry - a));
        TRY(mem_write_l(m, h, entry - h));
    } else {
        TRY(mem_read_l(m, h + 4, &blink));
        uint32_t c = h + blink;   /* present last entry (h if empty) */
        if (c & 7u)
            return VAX_EXC_RESERVED_OPERAND;
        TRY(wcheck(m, c, 4));
        TRY(mem_write_l(m, entry, h - entry));
        TRY(mem_write_l(m, entry + 4, c - entry));
        TRY(mem_write_l(m, c, entry - c));
        TRY(mem_write_l(m, h + 4, entry - h));
    }
    /* Z: (entry) EQL (entry+4), i.e. the entry is the only one in the
     * queue (the old first/last entry was the header). */
    cc_set(m, (tail ? blink : flink) == 0 ? PSL_Z : 0);
    return 0;
}

/* REMQHI header.aq, addr.wl / REMQTI header.aq, addr.wl */
static int op_remqi(vax_machine *m, int tail)
{
    uint32_t h, flink, removed;
    oploc dst;
    TRY(op_addr(m, 8, &h));
    TRY(op_loc(m, 4, &dst));
    if (h & 7u)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(mem_read_l(m, h, &flink));
    TRY(wcheck(m, h, 8));
    if (flink & 1u) {   /* secondary interlock held: fail, nothing removed */
        cc_set(m, PSL_V | PSL_C);
        return 0;
    }
    if (flink & 6u)
        return VAX_EXC_RESERVED_OPERAND;
    if (dst.reg < 0)
        TRY(wcheck(m, dst.addr, 4));
    if (flink == 0) {   /* empty: the header's address is returned */
        TRY(loc_write(m, &dst, 4, h));
        cc_set(m, PSL_Z | PSL_V);
        return 0;
    }
    uint32_t b;   /* the entry that becomes the neighbour of the header */
    if (!tail) {
        uint32_t alink;
        removed = h + flink;
        TRY(mem_read_l(m, removed, &alink));
        b = removed + alink;
        if (b & 7u)
            return VAX_EXC_RESERVED_OPERAND;
        TRY(wcheck(m, b + 4, 4));
        TRY(mem_write_l(m, b + 4, h - b));
        TRY(mem_write_l(m, h, b - h));
    } else {
        uint32_t blink, clink;
        TRY(mem_read_l(m, h + 4, &blink));
        removed = h + blink;
        if (removed & 7u)
            return VAX_EXC_RESERVED_OPERAND;
        TRY(mem_read_l(m, removed + 4, &clink));
        b = removed + clink;
        if (b & 7u)
            return VAX_EXC_RESERVED_OPERAND;
        TRY(wcheck(m, b, 4));
        TRY(mem_write_l(m, b, h - b));
        TRY(mem_write_l(m, h + 4, b - h));
    }
    TRY(loc_write(m, &dst, 4, removed));
    /* Z: the queue is empty now. */
    cc_set(m, b == h ? PSL_Z : 0);
    return 0;
}

int exec_queue(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0x0E:
        return op_insque(m);
    case 0x0F:
        return op_remque(m);
    case 0x5C:
        return op_insqi(m, 0);
    case 0x5D:
        return op_insqi(m, 1);
    case 0x5E:
        return op_remqi(m, 0);
    case 0x5F:
        return op_remqi(m, 1);
    default:
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}
