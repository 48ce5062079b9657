/*
 * exec_call.c — the procedure calling instructions CALLG, CALLS and RET,
 * and the register-mask stack instructions PUSHR and POPR.
 *
 * The stack frame built by CALLx (VAX Architecture Reference Manual,
 * "Procedure call instructions"), lowest address first:
 *
 *     FP ->  0                                   condition handler
 *            SPA<31:30> S<29> 0<28> mask<27:16> PSW<15:5> 0<4:0>
 *            saved AP
 *            saved FP
 *            saved PC
 *            saved R0 .. R11 (those named by the entry mask, R0 lowest)
 *            0..3 bytes of alignment (SPA)
 *            numarg longword (CALLS only)        <- AP for CALLS
 *
 * Faults: every memory access is done before any register changes, so a
 * fault (TNV, ACV) in the middle leaves the registers as they were after
 * operand decoding (which the caller's rlog undoes); the instruction can
 * simply be restarted.  Memory below the stack pointer may have been
 * written by then, which is harmless.
 */
#include "profile/profile.h"
#include "cpu/exec.h"

/* Entry mask bits. */
#define MASK_REGS 0x0FFFu
#define MASK_MBZ 0x3000u
#define MASK_IV 0x4000u
#define MASK_DV 0x8000u

/* The frame's mask/PSW longword. */
#define FRAME_SPA_SHIFT 30
#define FRAME_CALLS 0x20000000u
#define FRAME_MASK_SHIFT 16

/* Registers named by a mask (the per-register cost of timing.h). */
static unsigned popcount16(uint32_t x)
{
    unsigned n = 0;
    for (x &= 0xFFFFu; x; x &= x - 1)
        n++;
    return n;
}

/* The lowest and highest set bits of a non-zero mask: the saved-register
 * loops visit only the registers named (a kernel procedure saves two or
 * three of twelve). */
static inline int lowest_bit(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(x);
#else
    int i = 0;
    while (!(x & 1u)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

static inline int highest_bit(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return 31 - __builtin_clz(x);
#else
    int i = 31;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        i--;
    }
    return i;
#endif
}

/* CALLG arglist.ab, dst.ab / CALLS numarg.rl, dst.ab
 *
 * The frame's writes go through a page cursor (mmu.h): one TB lookup for
 * the stack page instead of one per longword, the same stores in the same
 * order. */
static int op_call(vax_machine *m, int calls)
{
    vax_cpu *c = &m->cpu;
    uint32_t arg, dst, mask;
    if (calls)
        TRY(op_read(m, 4, &arg));
    else
        TRY(op_addr(m, 1, &arg));
    TRY(op_addr(m, 1, &dst));

    TRY(mem_read_w(m, dst, &mask));
    if (mask & MASK_MBZ)
        return VAX_EXC_RESERVED_OPERAND;

    page_cursor k = PAGE_CURSOR_EMPTY;
    uint32_t sp = c->r[14];
    uint32_t ap;
    if (calls) {
        sp -= 4;
        TRY(cursor_write_l(m, &k, sp, arg));
        ap = sp;   /* the argument list starts at the pushed count */
    } else {
        ap = arg;
    }
    uint32_t spa = sp & 3u;
    sp &= ~3u;
    for (uint32_t left = mask & MASK_REGS; left; ) {   /* R11 first, down to R0 */
        int i = highest_bit(left);
        left &= ~(1u << i);
        sp -= 4;
        TRY(cursor_write_l(m, &k, sp, c->r[i]));
    }
    uint32_t psw_save = (spa << FRAME_SPA_SHIFT) | (calls ? FRAME_CALLS : 0) |
                        ((mask & MASK_REGS) << FRAME_MASK_SHIFT) | (c->psl & 0xFFE0u);
    TRY(cursor_write_l(m, &k, sp - 4, c->r[15]));   /* return PC */
    TRY(cursor_write_l(m, &k, sp - 8, c->r[13]));   /* FP */
    TRY(cursor_write_l(m, &k, sp - 12, c->r[12]));  /* AP */
    TRY(cursor_write_l(m, &k, sp - 16, psw_save));
    TRY(cursor_write_l(m, &k, sp - 20, 0));         /* condition handler */
    sp -= 20;

    /* Commit. */
    c->r[14] = sp;
    c->r[13] = sp;
    c->r[12] = ap;
    c->psl &= ~(PSL_CC | PSL_IV | PSL_FU | PSL_DV);
    if (mask & MASK_IV)
        c->psl |= PSL_IV;
    if (mask & MASK_DV)
        c->psl |= PSL_DV;
    c->r[15] = dst + 2;
    m->cost += (uint64_t)popcount16(mask & MASK_REGS) * m->tm.call_reg;   /* timing.h */
    if (UNLIKELY(m->prof != NULL))
        profile_call(m, dst, sp, 0);
    return 0;
}

static int op_ret(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t fp = c->r[13];
    uint32_t sp = fp + 4;   /* skip the condition handler */
    uint32_t save, nap, nfp, npc, regs[12];
    page_cursor k = PAGE_CURSOR_EMPTY;   /* the frame's reads: see op_call */
    TRY(cursor_read_l(m, &k, sp, &save));
    if (save & 0xFF00u)
        return VAX_EXC_RESERVED_OPERAND;
    TRY(cursor_read_l(m, &k, sp + 4, &nap));
    TRY(cursor_read_l(m, &k, sp + 8, &nfp));
    TRY(cursor_read_l(m, &k, sp + 12, &npc));
    sp += 16;
    uint32_t saved = (save >> FRAME_MASK_SHIFT) & MASK_REGS;
    for (uint32_t left = saved; left; left &= left - 1) {   /* R0 first, up to R11 */
        TRY(cursor_read_l(m, &k, sp, &regs[lowest_bit(left)]));
        sp += 4;
    }
    sp += save >> FRAME_SPA_SHIFT;
    if (save & FRAME_CALLS) {
        uint32_t numarg;
        TRY(cursor_read_l(m, &k, sp, &numarg));
        sp += 4 + 4 * (numarg & 0xFFu);
    }

    /* Commit. */
    for (uint32_t left = saved; left; left &= left - 1)
        c->r[lowest_bit(left)] = regs[lowest_bit(left)];
    c->r[12] = nap;
    c->r[13] = nfp;
    c->r[14] = sp;
    c->r[15] = npc;
    m->cost += (uint64_t)popcount16((save >> FRAME_MASK_SHIFT) & MASK_REGS) * m->tm.call_reg;
    /* PSW<15:0> from the frame: condition codes, trap enables and T
     * (which CALLx saved as 0).  Bits 15:8 were checked to be zero. */
    cpu_set_psl(m, (c->psl & ~0xFFFFu) | (save & 0xFFu));
    if (UNLIKELY(m->prof != NULL))
        profile_return(m, fp, npc);
    return 0;
}

/* PUSHR mask.rw: R14 .. R0 for mask bits 14..0 (bit 15 ignored); R14 is
 * pushed first, so the value pushed for SP is the one before the push. */
static int op_pushr(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t mask;
    TRY(op_read(m, 2, &mask));
    page_cursor k = PAGE_CURSOR_EMPTY;
    uint32_t sp = c->r[14];
    for (uint32_t left = mask & 0x7FFFu; left; ) {
        int i = highest_bit(left);
        left &= ~(1u << i);
        sp -= 4;
        TRY(cursor_write_l(m, &k, sp, c->r[i]));
    }
    c->r[14] = sp;
    m->cost += (uint64_t)popcount16(mask & 0x7FFFu) * m->tm.pushr_reg;
    return 0;
}

/* POPR mask.rw: R0 .. R14 for mask bits 0..14 (bit 15 ignored).  Popping
 * SP (the last one) replaces SP with the popped value. */
static int op_popr(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t mask, v[15];
    TRY(op_read(m, 2, &mask));
    page_cursor k = PAGE_CURSOR_EMPTY;
    uint32_t sp = c->r[14];
    for (uint32_t left = mask & 0x7FFFu; left; left &= left - 1) {
        TRY(cursor_read_l(m, &k, sp, &v[lowest_bit(left)]));
        sp += 4;
    }
    for (uint32_t left = mask & 0x3FFFu; left; left &= left - 1)
        c->r[lowest_bit(left)] = v[lowest_bit(left)];
    c->r[14] = (mask & 0x4000u) ? v[14] : sp;
    m->cost += (uint64_t)popcount16(mask & 0x7FFFu) * m->tm.pushr_reg;
    return 0;
}

int exec_call(vax_machine *m, int opcode)
{
    switch (opcode) {
    case 0xFB:
        return op_call(m, 1);
    case 0xFA:
        return op_call(m, 0);
    case 0x04:
        return op_ret(m);
    case 0xBB:
        return op_pushr(m);
    case 0xBA:
        return op_popr(m);
    default:
        return VAX_EXC_RESERVED_INSTRUCTION;
    }
}
