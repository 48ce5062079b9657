/*
 * compat.c — compatibility mode (PSL<CM>): the VAX-11/780 running PDP-11
 * user programs.  One PDP-11 instruction per call, from execute.c's loop.
 *
 * Entry is REI with CM set in the new PSL (privileged.c checks it as the
 * architecture asks: user mode, IPL 0, FPD, IS, DV, FU and IV clear).  The
 * registers, operands and addressing modes are compat_decode.c's (16-bit
 * registers in the low halves of R0-R6 and R15, 16-bit addresses in P0
 * space, user-mode accesses through the MMU).
 *
 * The instruction set is the PDP-11 user set the 780's compatibility mode
 * has.  Which instructions belong was settled by DEC's EVKAD (the
 * compatibility-mode exerciser), which now passes: with a first version
 * built from the PDP-11 user set, EVKAD stopped at MARK, which it expects
 * to be reserved, and at MTPI, MTPD and ASH, which it expects to run.
 *   double operand  MOV(B) CMP(B) BIT(B) BIC(B) BIS(B) ADD SUB, and XOR;
 *   single operand  CLR(B) COM(B) INC(B) DEC(B) NEG(B) ADC(B) SBC(B)
 *                   TST(B) ROR(B) ROL(B) ASR(B) ASL(B) SWAB SXT;
 *   extended        MUL DIV ASH ASHC;
 *   previous space  MFPI MTPI MFPD MTPD (user mode's one space: a push
 *                   and a pop);
 *   program control the branches, SOB, JMP, JSR, RTS, RTI, RTT, the
 *                   condition-code operators (NOP among them).
 * The PDP-11 N, Z, V and C are PSL<3:0>; PSL<T> is the PDP-11 T bit, which
 * RTI and RTT load from the popped PSW (its other bits are ignored: a
 * user program cannot change its priority or mode).  Trace is the VAX's
 * (execute.c: PSL<T> at an instruction's start sets TP, and the trace
 * fault through SCB 0x28 follows the instruction), so an RTI that sets T
 * traces the next instruction, not itself, as an RTT does: EVKAD test 1
 * expects exactly that for both.
 *
 * Everything else leaves through the compatibility-mode exception (SCB
 * 0x30, one parameter, the code), taken as a fault with the PC of the
 * instruction itself (EVKAE test 3 checks that for BPT) and the
 * instruction's autoincrements and decrements undone:
 *   0 reserved instruction: HALT, WAIT, RESET, MFPT, SPL, MARK, MTPS,
 *     MFPS, CSM, TSTSET, WRTLCK, the FIS and FP11 floating point, and the
 *     unused codes;
 *   1 BPT (000003), 2 IOT (000004), 3 EMT (104000-104377), 4 TRAP
 *     (104400-104777);
 *   5 illegal instruction: JMP or JSR with a register destination;
 *   6 odd address: an odd PC, or a word operand, pointer or stack word at
 *     an odd address.
 *
 * Time: each instruction is charged as the VAX instruction of the same
 * shape (shape_cost below; emu/docs/timing.md), plus the address work of
 * its memory operands and their reads and writes, so virtual time keeps
 * its meaning in compatibility mode.  4.3BSD never enters it.
 */
#include "cpu/compat.h"

/* The VAX instruction each PDP-11 one is charged as (its base cost,
 * timing.h op[]): a simple VAX instruction of the same shape. */
enum {
    SHAPE_NOP = 0x01, SHAPE_REI = 0x02, SHAPE_BPT = 0x03, SHAPE_RSB = 0x05, SHAPE_BRB = 0x11,
    SHAPE_BNEQ = 0x12, SHAPE_JSB = 0x16, SHAPE_JMP = 0x17, SHAPE_ASHL = 0x78, SHAPE_ROTL = 0x9C,
    SHAPE_BISPSW = 0xB8, SHAPE_BICPSW = 0xB9, SHAPE_SOBGTR = 0xF5, SHAPE_ADWC = 0xD8, SHAPE_SBWC = 0xD9,
    SHAPE_MOVW = 0xB0, SHAPE_XORW2 = 0xAC
};

static void shape_cost(vax_machine *m, int vax_opcode)
{
    m->cost += m->tm.op[vax_opcode];
}

static uint32_t sign_bit(int size)
{
    return size == 2 ? 0x8000u : 0x80u;
}

/* The PDP-11 condition codes are PSL<3:0>, in the same order. */
static void set_cc(vax_cpu *c, uint32_t cc)
{
    cpu_store_cc(c, cc);
}

static uint32_t nz(uint32_t v, int size)
{
    return ((v & sign_bit(size)) ? PSL_N : 0) | ((v & size_mask(size)) == 0 ? PSL_Z : 0);
}

/* ---- Double operand: 01-06 and 11-16 (octal, bits 15:12). ---- */

enum { DOP_MOV = 1, DOP_CMP, DOP_BIT, DOP_BIC, DOP_BIS, DOP_ADD };

/* The VAX word and byte instructions of the same shape. */
static const uint8_t double_shape[7][2] = {
    [DOP_MOV] = {0xB0, 0x90}, [DOP_CMP] = {0xB1, 0x91}, [DOP_BIT] = {0xB3, 0x93},
    [DOP_BIC] = {0xAA, 0x8A}, [DOP_BIS] = {0xA8, 0x88},
    [DOP_ADD] = {0xA0, 0xA2},   /* ADD, and SUB (16) in the byte slot */
};

static int double_operand(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    int op = (int)(w >> 12) & 7;
    int is_sub = op == DOP_ADD && (w & 0100000u);   /* 16: SUB, a word instruction */
    int size = (w & 0100000u) && !is_sub ? 1 : 2;
    uint32_t mask = size_mask(size), sign = sign_bit(size);
    shape_cost(m, double_shape[op][is_sub || size == 1]);
    cm_operand s, d;
    uint32_t src, dst, r;
    TRY(cm_operand_decode(m, (int)(w >> 6) & 077, size, &s));
    TRY(cm_read(m, &s, size, &src));
    TRY(cm_operand_decode(m, (int)w & 077, size, &d));
    uint32_t keep_c = cpu_cc_c(c);
    switch (op) {
    case DOP_MOV:
        if (size == 1 && d.is_reg) {   /* MOVB to a register sign-extends into all 16 bits */
            r = (src & 0x80u) ? (src | 0xFF00u) : src;
            TRY(cm_write(m, &d, 2, r));
        } else {
            TRY(cm_write(m, &d, size, src));
        }
        set_cc(c, nz(src, size) | keep_c);
        return 0;
    case DOP_CMP:
        TRY(cm_read(m, &d, size, &dst));
        r = (src - dst) & mask;
        set_cc(c, nz(r, size) | (((src ^ dst) & (src ^ r) & sign) ? PSL_V : 0) | (src < dst ? PSL_C : 0));
        return 0;
    case DOP_BIT:
        TRY(cm_read(m, &d, size, &dst));
        set_cc(c, nz(src & dst, size) | keep_c);
        return 0;
    default:
        break;
    }
    TRY(cm_read_modify(m, &d, size, &dst));
    uint32_t cc;
    switch (op) {
    case DOP_BIC:
        r = dst & ~src & mask;
        cc = nz(r, size) | keep_c;
        break;
    case DOP_BIS:
        r = (dst | src) & mask;
        cc = nz(r, size) | keep_c;
        break;
    default:
        if (is_sub) {
            r = (dst - src) & mask;
            cc = nz(r, size) | (((dst ^ src) & (dst ^ r) & sign) ? PSL_V : 0) | (dst < src ? PSL_C : 0);
        } else {
            r = dst + src;
            cc = (r > mask ? PSL_C : 0);
            r &= mask;
            cc |= nz(r, size) | ((~(src ^ dst) & (src ^ r) & sign) ? PSL_V : 0);
        }
        break;
    }
    TRY(cm_write(m, &d, size, r));
    set_cc(c, cc);
    return 0;
}

/* ---- Single operand: 0050-0063 and 1050-1063, SWAB 0003, SXT 0067. ---- */

enum {
    SOP_CLR = 050, SOP_COM, SOP_INC, SOP_DEC, SOP_NEG, SOP_ADC, SOP_SBC, SOP_TST,
    SOP_ROR = 060, SOP_ROL, SOP_ASR, SOP_ASL
};

static const uint8_t single_shape[12][2] = {
    {0xB4, 0x94}, {0xB2, 0x92}, {0xB6, 0x96}, {0xB7, 0x97}, {0xAE, 0x8E}, {SHAPE_ADWC, SHAPE_ADWC},
    {SHAPE_SBWC, SHAPE_SBWC}, {0xB5, 0x95}, {SHAPE_ROTL, SHAPE_ROTL}, {SHAPE_ROTL, SHAPE_ROTL},
    {SHAPE_ASHL, SHAPE_ASHL}, {SHAPE_ASHL, SHAPE_ASHL},
};

static int single_operand(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    int op = (int)(w >> 6) & 077;
    int size = (w & 0100000u) ? 1 : 2;
    uint32_t mask = size_mask(size), sign = sign_bit(size);
    shape_cost(m, single_shape[op - SOP_CLR][size == 1]);
    cm_operand d;
    uint32_t v, r, cc;
    uint32_t cin = cpu_cc_c(c);
    TRY(cm_operand_decode(m, (int)w & 077, size, &d));
    if (op == SOP_CLR) {
        TRY(cm_write(m, &d, size, 0));
        set_cc(c, PSL_Z);
        return 0;
    }
    if (op == SOP_TST) {
        TRY(cm_read(m, &d, size, &v));
        set_cc(c, nz(v, size));
        return 0;
    }
    TRY(cm_read_modify(m, &d, size, &v));
    switch (op) {
    case SOP_COM:
        r = ~v & mask;
        cc = nz(r, size) | PSL_C;
        break;
    case SOP_INC:
        r = (v + 1u) & mask;
        cc = nz(r, size) | (v == sign - 1u ? PSL_V : 0) | cin;
        break;
    case SOP_DEC:
        r = (v - 1u) & mask;
        cc = nz(r, size) | (v == sign ? PSL_V : 0) | cin;
        break;
    case SOP_NEG:
        r = (0u - v) & mask;
        cc = nz(r, size) | (r == sign ? PSL_V : 0) | (r != 0 ? PSL_C : 0);
        break;
    case SOP_ADC:
        r = (v + cin) & mask;
        cc = nz(r, size) | (cin && v == sign - 1u ? PSL_V : 0) | (cin && v == mask ? PSL_C : 0);
        break;
    case SOP_SBC:
        r = (v - cin) & mask;
        cc = nz(r, size) | (cin && v == sign ? PSL_V : 0) | (cin && v == 0 ? PSL_C : 0);
        break;
    default: {   /* the shifts and rotates: V is N xor the new C */
        uint32_t cout;
        if (op == SOP_ROR || op == SOP_ASR) {
            cout = v & 1u;
            r = (v >> 1) | (op == SOP_ROR ? (cin ? sign : 0) : (v & sign));
        } else {
            cout = (v & sign) ? 1u : 0;
            r = ((v << 1) | (op == SOP_ROL ? cin : 0)) & mask;
        }
        cc = nz(r, size) | cout;
        if (((cc & PSL_N) != 0) != (cout != 0))
            cc |= PSL_V;
        break;
    }
    }
    TRY(cm_write(m, &d, size, r));
    set_cc(c, cc);
    return 0;
}

static int swab(vax_machine *m, uint32_t w)
{
    cm_operand d;
    uint32_t v;
    shape_cost(m, SHAPE_ROTL);
    TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
    TRY(cm_read_modify(m, &d, 2, &v));
    uint32_t r = ((v >> 8) | (v << 8)) & 0xFFFFu;
    TRY(cm_write(m, &d, 2, r));
    set_cc(&m->cpu, nz(r, 1));   /* N and Z from the low byte; V and C clear */
    return 0;
}

static int sxt(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    cm_operand d;
    shape_cost(m, SHAPE_MOVW);
    TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
    int n = (cpu_cc(c) & PSL_N) != 0;
    TRY(cm_write(m, &d, 2, n ? 0xFFFFu : 0));
    set_cc(c, (cpu_cc(c) & (PSL_N | PSL_C)) | (n ? 0 : PSL_Z));
    return 0;
}

/* XOR R,dst (074RDD). */
static int xor_reg(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    cm_operand d;
    uint32_t v;
    shape_cost(m, SHAPE_XORW2);
    uint32_t src = cm_reg(c, (int)(w >> 6) & 7);
    TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
    TRY(cm_read_modify(m, &d, 2, &v));
    uint32_t r = v ^ src;
    TRY(cm_write(m, &d, 2, r));
    set_cc(c, nz(r, 2) | cpu_cc_c(c));
    return 0;
}

/* ---- The extended instruction set: MUL, DIV, ASH, ASHC (070-073). ----
 * Register R and a word source; a pair is R (high half) and R+1 (low
 * half), R even. */

static uint32_t sext16(uint32_t v)
{
    return (uint32_t)(int32_t)(int16_t)(v & 0xFFFFu);
}

/* ASH and ASHC: shift a `bits`-wide value by the source's low 6 bits,
 * signed (positive left, negative right, arithmetic).  V: the sign
 * changed on the way; C: the last bit shifted out. */
static uint32_t shift_arith(uint32_t v, int bits, uint32_t count6, uint32_t *cc)
{
    uint32_t sign = 1u << (bits - 1), mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
    int n = (int)(count6 & 037u) - ((count6 & 040u) ? 32 : 0);
    uint32_t cy = 0, ov = 0;
    v &= mask;
    for (; n > 0; n--) {
        cy = (v & sign) ? 1u : 0;
        uint32_t r = (v << 1) & mask;
        if ((r ^ v) & sign)
            ov = PSL_V;
        v = r;
    }
    for (; n < 0; n++) {
        cy = v & 1u;
        v = (v >> 1) | (v & sign);
    }
    *cc = ((v & sign) ? PSL_N : 0) | (v == 0 ? PSL_Z : 0) | ov | cy;
    return v;
}

static int extended(vax_machine *m, uint32_t w)
{
    static const uint8_t shape[4] = {0xC4, 0xC6, 0x78, 0x79};   /* MULL2, DIVL2, ASHL, ASHQ */
    vax_cpu *c = &m->cpu;
    int op = (int)(w >> 9) & 3, reg = (int)(w >> 6) & 7, pair = reg | 1;
    cm_operand s;
    uint32_t src, cc;
    shape_cost(m, shape[op]);
    TRY(cm_operand_decode(m, (int)w & 077, 2, &s));
    TRY(cm_read(m, &s, 2, &src));
    switch (op) {
    case 0: {   /* MUL: the 32-bit product in the pair, or its low half in an odd R */
        int32_t p = (int32_t)sext16(cm_reg(c, reg)) * (int32_t)sext16(src);
        if (!(reg & 1))
            cm_set_reg(c, reg, (uint32_t)p >> 16);
        cm_set_reg(c, pair, (uint32_t)p);
        cc = (p < 0 ? PSL_N : 0) | (p == 0 ? PSL_Z : 0) | (p < -32768 || p > 32767 ? PSL_C : 0);
        break;
    }
    case 1: {   /* DIV: the pair by the source, quotient to R, remainder to R+1 */
        int64_t dividend = (int32_t)((cm_reg(c, reg) << 16) | cm_reg(c, pair));
        int64_t divisor = (int32_t)sext16(src);
        if (divisor == 0) {
            cc = PSL_V | PSL_C;   /* N and Z clear, as in the reference simulator */
            break;
        }
        int64_t q = dividend / divisor, r = dividend % divisor;
        if (q < -32768 || q > 32767) {
            cc = PSL_V;
            break;
        }
        cm_set_reg(c, reg, (uint32_t)q);
        cm_set_reg(c, pair, (uint32_t)r);
        cc = (q < 0 ? PSL_N : 0) | (q == 0 ? PSL_Z : 0);
        break;
    }
    case 2:   /* ASH: R shifted */
        cm_set_reg(c, reg, shift_arith(cm_reg(c, reg), 16, src, &cc));
        break;
    default: {   /* ASHC: the pair shifted (an odd R is both halves; R gets the low half) */
        uint32_t v = shift_arith((cm_reg(c, reg) << 16) | cm_reg(c, pair), 32, src, &cc);
        if (!(reg & 1))
            cm_set_reg(c, reg, v >> 16);
        cm_set_reg(c, pair, v);
        break;
    }
    }
    set_cc(c, cc);
    return 0;
}

/* MFPI src (0065SS), MTPI dst (0066DD) and the D-space forms MFPD
 * (1065SS) and MTPD (1066DD): the previous space is the current one (user
 * mode, one address space for instructions and data), so these are a push
 * of the word operand and a pop into it; N and Z from the word, V clear,
 * C kept.  EVKAD runs them (and wants MARK reserved). */
static int move_previous(vax_machine *m, uint32_t w, int to_previous)
{
    vax_cpu *c = &m->cpu;
    cm_operand d;
    uint32_t v;
    shape_cost(m, SHAPE_MOVW);
    if (to_previous) {
        TRY(cm_pop(m, &v));
        TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
        TRY(cm_write(m, &d, 2, v));
    } else {
        TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
        TRY(cm_read(m, &d, 2, &v));
        TRY(cm_push(m, v));
    }
    set_cc(c, nz(v, 2) | cpu_cc_c(c));
    return 0;
}

/* ---- Program control. ---- */

/* The branches: bits 15 and 10:8 choose the condition, the low byte is a
 * signed word offset from the updated PC. */
static int branch(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    uint32_t p = cpu_cc(c);
    int n = (p & PSL_N) != 0, z = (p & PSL_Z) != 0, v = (p & PSL_V) != 0, cy = (p & PSL_C) != 0;
    int taken;
    int which = (int)((w >> 8) & 7) | ((w & 0100000u) ? 8 : 0);
    shape_cost(m, which == 1 ? SHAPE_BRB : SHAPE_BNEQ);
    switch (which) {
    case 1: taken = 1; break;              /* BR */
    case 2: taken = !z; break;             /* BNE */
    case 3: taken = z; break;              /* BEQ */
    case 4: taken = n == v; break;         /* BGE */
    case 5: taken = n != v; break;         /* BLT */
    case 6: taken = !z && n == v; break;   /* BGT */
    case 7: taken = z || n != v; break;    /* BLE */
    case 8: taken = !n; break;             /* BPL */
    case 9: taken = n; break;              /* BMI */
    case 10: taken = !cy && !z; break;     /* BHI */
    case 11: taken = cy || z; break;       /* BLOS */
    case 12: taken = !v; break;            /* BVC */
    case 13: taken = v; break;             /* BVS */
    case 14: taken = !cy; break;           /* BCC */
    default: taken = cy; break;            /* BCS */
    }
    if (taken)
        cm_set_reg(c, 7, cm_reg(c, 7) + 2u * (uint32_t)(int32_t)(int8_t)(w & 0xFFu));
    return 0;
}

/* SOB R,nn (077RNN): decrement, and branch back nn words unless zero. */
static int sob(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    int reg = (int)(w >> 6) & 7;
    shape_cost(m, SHAPE_SOBGTR);
    uint32_t v = (cm_reg(c, reg) - 1u) & 0xFFFFu;
    cm_set_reg(c, reg, v);
    if (v != 0)
        cm_set_reg(c, 7, cm_reg(c, 7) - 2u * (w & 077u));
    return 0;
}

/* JMP dst (0001DD) and JSR R,dst (004RDD): the destination's address;
 * a register is no address (illegal instruction, code 5). */
static int jump(vax_machine *m, uint32_t w, int is_jsr)
{
    vax_cpu *c = &m->cpu;
    cm_operand d;
    shape_cost(m, is_jsr ? SHAPE_JSB : SHAPE_JMP);
    if ((w & 070u) == 0)
        return cm_exception(m, COMPAT_ILLEGAL_INSTRUCTION);
    TRY(cm_operand_decode(m, (int)w & 077, 2, &d));
    if (is_jsr) {
        int reg = (int)(w >> 6) & 7;
        TRY(cm_push(m, cm_reg(c, reg)));
        cm_set_reg(c, reg, cm_reg(c, 7));
    }
    cm_set_reg(c, 7, d.addr);
    return 0;
}

/* RTS R (00020R): PC = R, R = (SP)+. */
static int rts(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    int reg = (int)w & 7;
    uint32_t v, target = cm_reg(c, reg);
    shape_cost(m, SHAPE_RSB);
    TRY(cm_pop(m, &v));
    cm_set_reg(c, 7, target);
    cm_set_reg(c, reg, v);
    return 0;
}

/* RTI (000002) and RTT (000006): PC = (SP)+, PSW = (SP)+, of which only
 * the condition codes and T are loaded. */
static int rti(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t pc, psw;
    shape_cost(m, SHAPE_REI);
    TRY(cm_pop(m, &pc));
    TRY(cm_pop(m, &psw));
    cm_set_reg(c, 7, pc);
    cpu_store_psl(c, (cpu_psl(c) & ~(PSL_CC | PSL_T)) | (psw & (PSL_CC | PSL_T)));
    return 0;
}

/* 000000-000377: the operate group. */
static int operate(vax_machine *m, uint32_t w)
{
    vax_cpu *c = &m->cpu;
    switch (w) {
    case 0000002u:
    case 0000006u:
        return rti(m);
    case 0000003u: shape_cost(m, SHAPE_BPT); return cm_exception(m, COMPAT_BPT);
    case 0000004u: shape_cost(m, SHAPE_BPT); return cm_exception(m, COMPAT_IOT);
    default: break;
    }
    if (w >= 0000100u && w <= 0000177u)
        return jump(m, w, 0);
    if (w >= 0000200u && w <= 0000207u)
        return rts(m, w);
    if (w >= 0000240u && w <= 0000277u) {   /* CLx/SEx: bit 4 sets, else clears, the NZVC in 3:0 */
        shape_cost(m, (w & 020u) ? SHAPE_BISPSW : SHAPE_BICPSW);
        uint32_t cc = cpu_cc(c);
        cpu_store_cc(c, (w & 020u) ? cc | (w & PSL_CC) : cc & ~(w & PSL_CC));
        return 0;
    }
    if (w >= 0000300u)
        return swab(m, w);
    /* HALT, WAIT, RESET, MFPT, SPL and the unused codes. */
    shape_cost(m, SHAPE_NOP);
    return cm_exception(m, COMPAT_RESERVED_INSTRUCTION);
}

int compat_execute(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t w;
    if (c->r[15] & 1u) {
        shape_cost(m, SHAPE_NOP);
        return cm_exception(m, COMPAT_ODD_ADDRESS);
    }
    int st = cm_fetch(m, &w);
    if (st) {   /* a fault on the instruction word: charged as a VAX opcode's fetch that faults */
        shape_cost(m, SHAPE_NOP);
        return st;
    }
    uint32_t group = w >> 12;   /* the top octal digit and bit 15 */
    if ((group & 7u) >= 1 && (group & 7u) <= 6)
        return double_operand(m, w);
    if (group == 07u) {
        switch ((w >> 9) & 7u) {
        case 0: case 1: case 2: case 3: return extended(m, w);
        case 4: return xor_reg(m, w);
        case 7: return sob(m, w);
        default: break;   /* FIS (075), 076 */
        }
    } else if (group == 0u || group == 010u) {
        uint32_t low = w & 077777u;   /* without bit 15 */
        if (group == 0u && w <= 0000377u)
            return operate(m, w);
        if (low <= 0003777u)
            return branch(m, w);
        if (group == 0u) {
            if (w >= 0004000u && w <= 0004777u)
                return jump(m, w, 1);
            if (w >= 0005000u && w <= 0006377u)
                return single_operand(m, w);
            if (w >= 0006500u && w <= 0006677u)
                return move_previous(m, w, w >= 0006600u);
            if (w >= 0006700u && w <= 0006777u)
                return sxt(m, w);
        } else {
            if (low >= 0004000u && low <= 0004377u) {
                shape_cost(m, SHAPE_BPT);
                return cm_exception(m, COMPAT_EMT);
            }
            if (low >= 0004400u && low <= 0004777u) {
                shape_cost(m, SHAPE_BPT);
                return cm_exception(m, COMPAT_TRAP);
            }
            if (low >= 0005000u && low <= 0006377u)
                return single_operand(m, w);
            if (low >= 0006500u && low <= 0006677u)   /* MFPD, MTPD */
                return move_previous(m, w, low >= 0006600u);
        }
    }
    /* MARK, the privileged ones, the floating point and the unused codes. */
    shape_cost(m, SHAPE_NOP);
    return cm_exception(m, COMPAT_RESERVED_INSTRUCTION);
}
