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
static inline unsigned popcount16(uint32_t x)
{
    /* Bits counted in pairs, nibbles, bytes, then the two bytes added:
     * no loop, no branch. */
    x &= 0xFFFFu;
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

/* Registers named by a CALLx entry mask or a frame's saved mask (12
 * bits): two look-ups of six bits, fewer host instructions than
 * popcount16's arithmetic (gcc without -mpopcnt makes __builtin_popcount
 * a library call); WebAssembly has the instruction. */
static inline unsigned popcount12(uint32_t x)
{
#if defined(__wasm__)
    return (unsigned)__builtin_popcount(x & 0xFFFu);
#else
    static const uint8_t bits6[64] = {
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
        1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
    };
    return bits6[x & 63u] + bits6[(x >> 6) & 63u];
#endif
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

/* The host's look-up entry (tlb.h, xlat_entry) of the page holding the
 * longwords [low, high] (both longword-aligned, low <= high, one page),
 * when it holds that page readable (write 0) or writable (write 1) in the
 * current mode; NULL otherwise.  Found
 * there, the page is in the modelled TB with that access, so the page
 * cursor's look-ups would have hit it (tlb_find changes nothing) and no
 * access of the frame could fault or miss: the frame is then made with
 * plain loads and stores, each read charged to the cache model exactly as
 * the cursor charges it.  Not found (including a page the TB holds that
 * the look-up lacks), the cursor path runs, as before. */
static inline const xlat_entry *frame_page(vax_machine *m, uint32_t low, uint32_t high, int write)
{
    if (((low | high) & 3u) || (low >> 9) != (high >> 9) || low > high)
        return NULL;
    const xlat_entry *e = XLAT_SLOT(m->xlat, low);
    if (e->tag == low >> 9 && xlat_allows(write ? e->write_modes : e->read_modes, psl_mode_key(m)))
        return e;
    return NULL;
}

/* The end of CALLx, once the frame is written: the registers, the PSW's
 * trap enables, the PC after the entry mask, the per-register cost. */
static inline int call_commit(vax_machine *m, uint32_t mask, uint32_t sp, uint32_t ap, uint32_t dst, uint32_t nsaved)
{
    vax_cpu *c = &m->cpu;
    c->r[14] = sp;
    c->r[13] = sp;
    c->r[12] = ap;
    c->psl_without_cc &= ~(PSL_IV | PSL_FU | PSL_DV);
    cpu_store_cc(c, 0);
    if (mask & MASK_IV)
        c->psl_without_cc |= PSL_IV;
    if (mask & MASK_DV)
        c->psl_without_cc |= PSL_DV;
    c->r[15] = dst + 2;
    m->cost += (uint64_t)nsaved * m->tm.call_reg;   /* timing.h */
    if (UNLIKELY(m->prof != NULL))
        profile_call(m, dst, sp, 0);
    return 0;
}

/* CALLG arglist.ab, dst.ab / CALLS numarg.rl, dst.ab
 *
 * The frame's writes go through a page cursor (mmu.h): one TB lookup for
 * the stack page instead of one per longword, the same stores in the same
 * order; or, when the whole frame lies in one page the host's look-up
 * holds writable (frame_page), straight to the page. */
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

    uint32_t sp = c->r[14];
    uint32_t regmask = mask & MASK_REGS;
    /* The frame: numarg (CALLS) at sp - 4, then the registers, PC, FP, AP,
     * mask/PSW and handler below; an aligned SP leaves no SPA bytes. */
    uint32_t nsaved = popcount12(regmask);
    uint32_t high = sp - 4, low = sp - (calls ? 4u : 0u) - 4u * nsaved - 20u;
    const xlat_entry *e = frame_page(m, low, high, 1);
    if (LIKELY(e != NULL)) {
        uint8_t *h = xlat_host(e, low & ~511u);   /* the page's host address */
        uint32_t ap = calls ? sp - 4 : arg;
        if (calls) {
            sp -= 4;
            store_le(h + (sp & 511u), 4, arg);
        }
        /* The saved registers, R0 lowest: stored from R0 up (plain stores
         * into the page, which nothing charges and nothing can fault, so
         * their order is free; the cursor path below pushes R11 first). */
        sp -= 4u * nsaved;
        uint8_t *p = h + (sp & 511u);
        for (uint32_t left = regmask; left; left &= left - 1) {
            store_le(p, 4, c->r[lowest_bit(left)]);
            p += 4;
        }
        uint32_t psw_save = (calls ? FRAME_CALLS : 0) | (regmask << FRAME_MASK_SHIFT) | (c->psl_without_cc & 0xFFE0u);
        uint8_t *f = h + ((sp - 20) & 511u);   /* the five longwords fit: low is on the page */
        store_le(f + 16, 4, c->r[15]);   /* return PC */
        store_le(f + 12, 4, c->r[13]);   /* FP */
        store_le(f + 8, 4, c->r[12]);    /* AP */
        store_le(f + 4, 4, psw_save);
        store_le(f, 4, 0);               /* condition handler */
        return call_commit(m, mask, sp - 20, ap, dst, nsaved);
    }

    page_cursor k = PAGE_CURSOR_EMPTY;
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
                        ((mask & MASK_REGS) << FRAME_MASK_SHIFT) | (c->psl_without_cc & 0xFFE0u);
    TRY(cursor_write_l(m, &k, sp - 4, c->r[15]));   /* return PC */
    TRY(cursor_write_l(m, &k, sp - 8, c->r[13]));   /* FP */
    TRY(cursor_write_l(m, &k, sp - 12, c->r[12]));  /* AP */
    TRY(cursor_write_l(m, &k, sp - 16, psw_save));
    TRY(cursor_write_l(m, &k, sp - 20, 0));         /* condition handler */
    return call_commit(m, mask, sp - 20, ap, dst, nsaved);
}

/* The end of RET: PSW<15:0> from the frame (condition codes, trap
 * enables and T, which CALLx saved as 0; bits 15:8 were checked to be
 * zero).  The mode, IS, IPL and TP are unchanged, so of cpu_set_psl's
 * work only the accounting slot's check and T's change can matter; when
 * neither does, the store is all it would do. */
static inline void ret_set_psw(vax_machine *m, uint32_t save)
{
    vax_cpu *c = &m->cpu;
    uint32_t newpsl = (c->psl_without_cc & ~0xFFFFu) | (save & 0xFFu);
    if (LIKELY(psl_sp_slot(newpsl) == m->acct_slot && !((c->psl_without_cc ^ newpsl) & PSL_T)))
        cpu_store_psl(c, newpsl);
    else
        cpu_set_psl(m, newpsl);
}

static int op_ret(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t fp = c->r[13];
    uint32_t sp = fp + 4;   /* skip the condition handler */
    uint32_t save, nap, nfp, npc, regs[12];
    page_cursor k = PAGE_CURSOR_EMPTY;   /* the frame's reads: see op_call */

    /* The frame's first four longwords in one page the host's look-up
     * holds readable (frame_page): read there, and the rest too when the
     * mask/PSW longword shows that the frame ends in that page.  No read
     * can then fault or miss the TB, so the registers are loaded as they
     * are read, and the reads are charged to the cache as the cursor's
     * would be, a block at a time (below).  When the frame goes on into the next
     * page, the cursor path takes over after the first read, with the
     * cursor holding the page, as its own first read would have left it. */
    const xlat_entry *e = frame_page(m, sp, sp + 12, 0);
    if (LIKELY(e != NULL)) {
        const uint8_t *h = xlat_host(e, sp & ~511u);   /* the page's host address */
        uint32_t off = sp & 511u;
        uint32_t blk = xlat_block(e, sp);   /* the mask/PSW longword's (aligned: one block) */
        if (!cache_holds_block(&m->cache, blk))   /* cache_read_block, given the block */
            m->cost += cache_miss_block(&m->cache, blk);
        save = load_le(h + off, 4);
        if (save & 0xFF00u)
            return VAX_EXC_RESERVED_OPERAND;
        uint32_t saved = (save >> FRAME_MASK_SHIFT) & MASK_REGS;
        uint32_t nsaved = popcount12(saved);
        uint32_t spa = save >> FRAME_SPA_SHIFT;
        uint32_t end = off + 16u + 4u * nsaved + spa + ((save & FRAME_CALLS) ? 4u : 0u);
        if (LIKELY(end <= 512u)) {
            /* The frame's other reads, charged a cache block at a time.
             * The reads are contiguous and ascending (the SPA gap is under
             * a block, so no block lies wholly in it): each block is first
             * read by the first read in it, which charges it (a miss fills
             * it), and the reads after that in the same block come right
             * after one that read it, so they hit, which costs nothing and
             * changes nothing.  So charging each block from the one after
             * the mask/PSW's to the frame's last once, in ascending order,
             * is the same charges and fills in the same order. */
            /* (Out of line, cache_read_blocks: a loop here with the miss's
             * call in it moved RET's registers about around it.) */
            uint32_t last = xlat_block(e, (sp & ~511u) + end - 1u);
            if (blk < last)
                m->cost += cache_read_blocks(&m->cache, blk + 1, last);
            nap = load_le(h + off + 4, 4);
            nfp = load_le(h + off + 8, 4);
            npc = load_le(h + off + 12, 4);
            off += 16;
            for (uint32_t left = saved; left; left &= left - 1) {   /* R0 first, up to R11 */
                c->r[lowest_bit(left)] = load_le(h + off, 4);
                off += 4;
            }
            off += spa;
            if (save & FRAME_CALLS) {
                uint32_t numarg = load_le(h + off, 4);
                off += 4 + 4 * (numarg & 0xFFu);
            }
            c->r[12] = nap;
            c->r[13] = nfp;
            c->r[14] = (sp & ~511u) + off;   /* (off may pass 512: the arguments are skipped, not read) */
            c->r[15] = npc;
            m->cost += (uint64_t)nsaved * m->tm.call_reg;
            ret_set_psw(m, save);
            if (UNLIKELY(m->prof != NULL))
                profile_return(m, fp, npc);
            return 0;
        }
        k.vpn = sp >> 9;
        k.pa = xlat_pa(e, sp & ~511u);
        k.host = xlat_host(e, sp & ~511u);
    } else {
        TRY(cursor_read_l(m, &k, sp, &save));
        if (save & 0xFF00u)
            return VAX_EXC_RESERVED_OPERAND;
    }
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
    m->cost += (uint64_t)popcount12(saved) * m->tm.call_reg;
    ret_set_psw(m, save);
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

int exec_calls(vax_machine *m)
{
    return op_call(m, 1);
}

int exec_ret(vax_machine *m)
{
    return op_ret(m);
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
