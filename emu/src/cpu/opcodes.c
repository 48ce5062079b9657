/*
 * opcodes.c — the one-byte VAX opcode map (VAX Architecture Reference
 * Manual, appendix of opcodes).  Two-byte (FD xx) opcodes are the G/H
 * floating and extended instructions, which a VAX-11/780 without the
 * G/H option does not have: they take a reserved-instruction fault.
 */
#include "cpu/opcodes.h"

#include <ctype.h>
#include <string.h>

#define RB SPEC(ACC_R, DT_B)
#define RW SPEC(ACC_R, DT_W)
#define RL SPEC(ACC_R, DT_L)
#define RQ SPEC(ACC_R, DT_Q)
#define RF SPEC(ACC_R, DT_F)
#define RD SPEC(ACC_R, DT_D)
#define MB SPEC(ACC_M, DT_B)
#define MW SPEC(ACC_M, DT_W)
#define ML SPEC(ACC_M, DT_L)
#define MF SPEC(ACC_M, DT_F)
#define MD SPEC(ACC_M, DT_D)
#define WB SPEC(ACC_W, DT_B)
#define WW SPEC(ACC_W, DT_W)
#define WL SPEC(ACC_W, DT_L)
#define WQ SPEC(ACC_W, DT_Q)
#define WF SPEC(ACC_W, DT_F)
#define WD SPEC(ACC_W, DT_D)
#define AB SPEC(ACC_A, DT_B)
#define AW SPEC(ACC_A, DT_W)
#define AL SPEC(ACC_A, DT_L)
#define AQ SPEC(ACC_A, DT_Q)
#define VB SPEC(ACC_V, DT_B)
#define BB SPEC(ACC_B, DT_B)
#define BW SPEC(ACC_B, DT_W)

/* OPn(code, mnemonic, n specifiers, flags, group) */
#define OP0(c, n, f, g) [c] = {n, 0, {0}, f, g}
#define OP1(c, n, a, f, g) [c] = {n, 1, {a}, f, g}
#define OP2(c, n, a, b, f, g) [c] = {n, 2, {a, b}, f, g}
#define OP3(c, n, a, b, d, f, g) [c] = {n, 3, {a, b, d}, f, g}
#define OP4(c, n, a, b, d, e, f, g) [c] = {n, 4, {a, b, d, e}, f, g}
#define OP5(c, n, a, b, d, e, h, f, g) [c] = {n, 5, {a, b, d, e, h}, f, g}
#define OP6(c, n, a, b, d, e, h, i, f, g) [c] = {n, 6, {a, b, d, e, h, i}, f, g}
#define RSV(c) [c] = {"", 0, {0}, OPF_RESERVED, OPG_RESERVED}

#define P OPF_PRIV
#define K OPF_PACKED
/* The group whose exec_*.c file executes the opcode (execute.c dispatches
 * on it). */
#define GI OPG_INTEGER
#define GB OPG_BRANCH
#define GV OPG_FIELD
#define GC OPG_CALL
#define GQ OPG_QUEUE
#define GS OPG_STRING
#define GF OPG_FLOAT
#define GP OPG_PRIVILEGED
#define GD OPG_DECIMAL

const vax_opinfo vax_opcodes[256] = {
    OP0(0x00, "HALT", P, GP), OP0(0x01, "NOP", 0, GI), OP0(0x02, "REI", 0, GP), OP0(0x03, "BPT", 0, GP),
    OP0(0x04, "RET", 0, GC), OP0(0x05, "RSB", 0, GB), OP0(0x06, "LDPCTX", P, GP), OP0(0x07, "SVPCTX", P, GP),
    OP4(0x08, "CVTPS", RW, AB, RW, AB, K, GD), OP4(0x09, "CVTSP", RW, AB, RW, AB, K, GD),
    OP6(0x0A, "INDEX", RL, RL, RL, RL, RL, WL, 0, GI), OP4(0x0B, "CRC", AB, RL, RW, AB, 0, GS),
    OP3(0x0C, "PROBER", RB, RW, AB, 0, GP), OP3(0x0D, "PROBEW", RB, RW, AB, 0, GP),
    OP2(0x0E, "INSQUE", AB, AB, 0, GQ), OP2(0x0F, "REMQUE", AB, WL, 0, GQ),

    OP1(0x10, "BSBB", BB, 0, GB), OP1(0x11, "BRB", BB, 0, GB), OP1(0x12, "BNEQ", BB, 0, GB), OP1(0x13, "BEQL", BB, 0, GB),
    OP1(0x14, "BGTR", BB, 0, GB), OP1(0x15, "BLEQ", BB, 0, GB), OP1(0x16, "JSB", AB, 0, GB), OP1(0x17, "JMP", AB, 0, GB),
    OP1(0x18, "BGEQ", BB, 0, GB), OP1(0x19, "BLSS", BB, 0, GB), OP1(0x1A, "BGTRU", BB, 0, GB), OP1(0x1B, "BLEQU", BB, 0, GB),
    OP1(0x1C, "BVC", BB, 0, GB), OP1(0x1D, "BVS", BB, 0, GB), OP1(0x1E, "BGEQU", BB, 0, GB), OP1(0x1F, "BLSSU", BB, 0, GB),

    OP4(0x20, "ADDP4", RW, AB, RW, AB, K, GD), OP6(0x21, "ADDP6", RW, AB, RW, AB, RW, AB, K, GD),
    OP4(0x22, "SUBP4", RW, AB, RW, AB, K, GD), OP6(0x23, "SUBP6", RW, AB, RW, AB, RW, AB, K, GD),
    OP5(0x24, "CVTPT", RW, AB, AB, RW, AB, K, GD), OP6(0x25, "MULP", RW, AB, RW, AB, RW, AB, K, GD),
    OP5(0x26, "CVTTP", RW, AB, AB, RW, AB, K, GD), OP6(0x27, "DIVP", RW, AB, RW, AB, RW, AB, K, GD),
    OP3(0x28, "MOVC3", RW, AB, AB, 0, GS), OP3(0x29, "CMPC3", RW, AB, AB, 0, GS),
    OP4(0x2A, "SCANC", RW, AB, AB, RB, 0, GS), OP4(0x2B, "SPANC", RW, AB, AB, RB, 0, GS),
    OP5(0x2C, "MOVC5", RW, AB, RB, RW, AB, 0, GS), OP5(0x2D, "CMPC5", RW, AB, RB, RW, AB, 0, GS),
    OP6(0x2E, "MOVTC", RW, AB, RB, AB, RW, AB, 0, GS), OP6(0x2F, "MOVTUC", RW, AB, RB, AB, RW, AB, 0, GS),

    OP1(0x30, "BSBW", BW, 0, GB), OP1(0x31, "BRW", BW, 0, GB), OP2(0x32, "CVTWL", RW, WL, 0, GI), OP2(0x33, "CVTWB", RW, WB, 0, GI),
    OP3(0x34, "MOVP", RW, AB, AB, K, GD), OP3(0x35, "CMPP3", RW, AB, AB, K, GD), OP3(0x36, "CVTPL", RW, AB, WL, K, GD),
    OP4(0x37, "CMPP4", RW, AB, RW, AB, K, GD), OP4(0x38, "EDITPC", RW, AB, AB, AB, K, GD),
    OP4(0x39, "MATCHC", RW, AB, RW, AB, 0, GS), OP3(0x3A, "LOCC", RB, RW, AB, 0, GS), OP3(0x3B, "SKPC", RB, RW, AB, 0, GS),
    OP2(0x3C, "MOVZWL", RW, WL, 0, GI), OP4(0x3D, "ACBW", RW, RW, MW, BW, 0, GB), OP2(0x3E, "MOVAW", AW, WL, 0, GI),
    OP1(0x3F, "PUSHAW", AW, 0, GI),

    OP2(0x40, "ADDF2", RF, MF, 0, GF), OP3(0x41, "ADDF3", RF, RF, WF, 0, GF), OP2(0x42, "SUBF2", RF, MF, 0, GF),
    OP3(0x43, "SUBF3", RF, RF, WF, 0, GF), OP2(0x44, "MULF2", RF, MF, 0, GF), OP3(0x45, "MULF3", RF, RF, WF, 0, GF),
    OP2(0x46, "DIVF2", RF, MF, 0, GF), OP3(0x47, "DIVF3", RF, RF, WF, 0, GF), OP2(0x48, "CVTFB", RF, WB, 0, GF),
    OP2(0x49, "CVTFW", RF, WW, 0, GF), OP2(0x4A, "CVTFL", RF, WL, 0, GF), OP2(0x4B, "CVTRFL", RF, WL, 0, GF),
    OP2(0x4C, "CVTBF", RB, WF, 0, GF), OP2(0x4D, "CVTWF", RW, WF, 0, GF), OP2(0x4E, "CVTLF", RL, WF, 0, GF),
    OP4(0x4F, "ACBF", RF, RF, MF, BW, 0, GF),

    OP2(0x50, "MOVF", RF, WF, 0, GF), OP2(0x51, "CMPF", RF, RF, 0, GF), OP2(0x52, "MNEGF", RF, WF, 0, GF),
    OP1(0x53, "TSTF", RF, 0, GF), OP5(0x54, "EMODF", RF, RB, RF, WL, WF, 0, GF), OP3(0x55, "POLYF", RF, RW, AB, 0, GF),
    OP2(0x56, "CVTFD", RF, WD, 0, GF), RSV(0x57), OP2(0x58, "ADAWI", RW, MW, 0, GI), RSV(0x59), RSV(0x5A), RSV(0x5B),
    OP2(0x5C, "INSQHI", AB, AQ, 0, GQ), OP2(0x5D, "INSQTI", AB, AQ, 0, GQ), OP2(0x5E, "REMQHI", AQ, WL, 0, GQ),
    OP2(0x5F, "REMQTI", AQ, WL, 0, GQ),

    OP2(0x60, "ADDD2", RD, MD, 0, GF), OP3(0x61, "ADDD3", RD, RD, WD, 0, GF), OP2(0x62, "SUBD2", RD, MD, 0, GF),
    OP3(0x63, "SUBD3", RD, RD, WD, 0, GF), OP2(0x64, "MULD2", RD, MD, 0, GF), OP3(0x65, "MULD3", RD, RD, WD, 0, GF),
    OP2(0x66, "DIVD2", RD, MD, 0, GF), OP3(0x67, "DIVD3", RD, RD, WD, 0, GF), OP2(0x68, "CVTDB", RD, WB, 0, GF),
    OP2(0x69, "CVTDW", RD, WW, 0, GF), OP2(0x6A, "CVTDL", RD, WL, 0, GF), OP2(0x6B, "CVTRDL", RD, WL, 0, GF),
    OP2(0x6C, "CVTBD", RB, WD, 0, GF), OP2(0x6D, "CVTWD", RW, WD, 0, GF), OP2(0x6E, "CVTLD", RL, WD, 0, GF),
    OP4(0x6F, "ACBD", RD, RD, MD, BW, 0, GF),

    OP2(0x70, "MOVD", RD, WD, 0, GF), OP2(0x71, "CMPD", RD, RD, 0, GF), OP2(0x72, "MNEGD", RD, WD, 0, GF),
    OP1(0x73, "TSTD", RD, 0, GF), OP5(0x74, "EMODD", RD, RB, RD, WL, WD, 0, GF), OP3(0x75, "POLYD", RD, RW, AB, 0, GF),
    OP2(0x76, "CVTDF", RD, WF, 0, GF), RSV(0x77), OP3(0x78, "ASHL", RB, RL, WL, 0, GI), OP3(0x79, "ASHQ", RB, RQ, WQ, 0, GI),
    OP4(0x7A, "EMUL", RL, RL, RL, WQ, 0, GI), OP4(0x7B, "EDIV", RL, RQ, WL, WL, 0, GI), OP1(0x7C, "CLRQ", WQ, 0, GI),
    OP2(0x7D, "MOVQ", RQ, WQ, 0, GI), OP2(0x7E, "MOVAQ", AQ, WL, 0, GI), OP1(0x7F, "PUSHAQ", AQ, 0, GI),

    OP2(0x80, "ADDB2", RB, MB, 0, GI), OP3(0x81, "ADDB3", RB, RB, WB, 0, GI), OP2(0x82, "SUBB2", RB, MB, 0, GI),
    OP3(0x83, "SUBB3", RB, RB, WB, 0, GI), OP2(0x84, "MULB2", RB, MB, 0, GI), OP3(0x85, "MULB3", RB, RB, WB, 0, GI),
    OP2(0x86, "DIVB2", RB, MB, 0, GI), OP3(0x87, "DIVB3", RB, RB, WB, 0, GI), OP2(0x88, "BISB2", RB, MB, 0, GI),
    OP3(0x89, "BISB3", RB, RB, WB, 0, GI), OP2(0x8A, "BICB2", RB, MB, 0, GI), OP3(0x8B, "BICB3", RB, RB, WB, 0, GI),
    OP2(0x8C, "XORB2", RB, MB, 0, GI), OP3(0x8D, "XORB3", RB, RB, WB, 0, GI), OP2(0x8E, "MNEGB", RB, WB, 0, GI),
    OP3(0x8F, "CASEB", RB, RB, RB, OPF_CASE, GB),

    OP2(0x90, "MOVB", RB, WB, 0, GI), OP2(0x91, "CMPB", RB, RB, 0, GI), OP2(0x92, "MCOMB", RB, WB, 0, GI),
    OP2(0x93, "BITB", RB, RB, 0, GI), OP1(0x94, "CLRB", WB, 0, GI), OP1(0x95, "TSTB", RB, 0, GI), OP1(0x96, "INCB", MB, 0, GI),
    OP1(0x97, "DECB", MB, 0, GI), OP2(0x98, "CVTBL", RB, WL, 0, GI), OP2(0x99, "CVTBW", RB, WW, 0, GI),
    OP2(0x9A, "MOVZBL", RB, WL, 0, GI), OP2(0x9B, "MOVZBW", RB, WW, 0, GI), OP3(0x9C, "ROTL", RB, RL, WL, 0, GI),
    OP4(0x9D, "ACBB", RB, RB, MB, BW, 0, GB), OP2(0x9E, "MOVAB", AB, WL, 0, GI), OP1(0x9F, "PUSHAB", AB, 0, GI),

    OP2(0xA0, "ADDW2", RW, MW, 0, GI), OP3(0xA1, "ADDW3", RW, RW, WW, 0, GI), OP2(0xA2, "SUBW2", RW, MW, 0, GI),
    OP3(0xA3, "SUBW3", RW, RW, WW, 0, GI), OP2(0xA4, "MULW2", RW, MW, 0, GI), OP3(0xA5, "MULW3", RW, RW, WW, 0, GI),
    OP2(0xA6, "DIVW2", RW, MW, 0, GI), OP3(0xA7, "DIVW3", RW, RW, WW, 0, GI), OP2(0xA8, "BISW2", RW, MW, 0, GI),
    OP3(0xA9, "BISW3", RW, RW, WW, 0, GI), OP2(0xAA, "BICW2", RW, MW, 0, GI), OP3(0xAB, "BICW3", RW, RW, WW, 0, GI),
    OP2(0xAC, "XORW2", RW, MW, 0, GI), OP3(0xAD, "XORW3", RW, RW, WW, 0, GI), OP2(0xAE, "MNEGW", RW, WW, 0, GI),
    OP3(0xAF, "CASEW", RW, RW, RW, OPF_CASE, GB),

    OP2(0xB0, "MOVW", RW, WW, 0, GI), OP2(0xB1, "CMPW", RW, RW, 0, GI), OP2(0xB2, "MCOMW", RW, WW, 0, GI),
    OP2(0xB3, "BITW", RW, RW, 0, GI), OP1(0xB4, "CLRW", WW, 0, GI), OP1(0xB5, "TSTW", RW, 0, GI), OP1(0xB6, "INCW", MW, 0, GI),
    OP1(0xB7, "DECW", MW, 0, GI), OP1(0xB8, "BISPSW", RW, 0, GI), OP1(0xB9, "BICPSW", RW, 0, GI), OP1(0xBA, "POPR", RW, 0, GC),
    OP1(0xBB, "PUSHR", RW, 0, GC), OP1(0xBC, "CHMK", RW, 0, GP), OP1(0xBD, "CHME", RW, 0, GP), OP1(0xBE, "CHMS", RW, 0, GP),
    OP1(0xBF, "CHMU", RW, 0, GP),

    OP2(0xC0, "ADDL2", RL, ML, 0, GI), OP3(0xC1, "ADDL3", RL, RL, WL, 0, GI), OP2(0xC2, "SUBL2", RL, ML, 0, GI),
    OP3(0xC3, "SUBL3", RL, RL, WL, 0, GI), OP2(0xC4, "MULL2", RL, ML, 0, GI), OP3(0xC5, "MULL3", RL, RL, WL, 0, GI),
    OP2(0xC6, "DIVL2", RL, ML, 0, GI), OP3(0xC7, "DIVL3", RL, RL, WL, 0, GI), OP2(0xC8, "BISL2", RL, ML, 0, GI),
    OP3(0xC9, "BISL3", RL, RL, WL, 0, GI), OP2(0xCA, "BICL2", RL, ML, 0, GI), OP3(0xCB, "BICL3", RL, RL, WL, 0, GI),
    OP2(0xCC, "XORL2", RL, ML, 0, GI), OP3(0xCD, "XORL3", RL, RL, WL, 0, GI), OP2(0xCE, "MNEGL", RL, WL, 0, GI),
    OP3(0xCF, "CASEL", RL, RL, RL, OPF_CASE, GB),

    OP2(0xD0, "MOVL", RL, WL, 0, GI), OP2(0xD1, "CMPL", RL, RL, 0, GI), OP2(0xD2, "MCOML", RL, WL, 0, GI),
    OP2(0xD3, "BITL", RL, RL, 0, GI), OP1(0xD4, "CLRL", WL, 0, GI), OP1(0xD5, "TSTL", RL, 0, GI), OP1(0xD6, "INCL", ML, 0, GI),
    OP1(0xD7, "DECL", ML, 0, GI), OP2(0xD8, "ADWC", RL, ML, 0, GI), OP2(0xD9, "SBWC", RL, ML, 0, GI),
    OP2(0xDA, "MTPR", RL, RL, P, GP), OP2(0xDB, "MFPR", RL, WL, P, GP), OP1(0xDC, "MOVPSL", WL, 0, GI),
    OP1(0xDD, "PUSHL", RL, 0, GI), OP2(0xDE, "MOVAL", AL, WL, 0, GI), OP1(0xDF, "PUSHAL", AL, 0, GI),

    OP3(0xE0, "BBS", RL, VB, BB, 0, GV), OP3(0xE1, "BBC", RL, VB, BB, 0, GV), OP3(0xE2, "BBSS", RL, VB, BB, 0, GV),
    OP3(0xE3, "BBCS", RL, VB, BB, 0, GV), OP3(0xE4, "BBSC", RL, VB, BB, 0, GV), OP3(0xE5, "BBCC", RL, VB, BB, 0, GV),
    OP3(0xE6, "BBSSI", RL, VB, BB, 0, GV), OP3(0xE7, "BBCCI", RL, VB, BB, 0, GV), OP2(0xE8, "BLBS", RL, BB, 0, GV),
    OP2(0xE9, "BLBC", RL, BB, 0, GV), OP4(0xEA, "FFS", RL, RB, VB, WL, 0, GV), OP4(0xEB, "FFC", RL, RB, VB, WL, 0, GV),
    OP4(0xEC, "CMPV", RL, RB, VB, RL, 0, GV), OP4(0xED, "CMPZV", RL, RB, VB, RL, 0, GV),
    OP4(0xEE, "EXTV", RL, RB, VB, WL, 0, GV), OP4(0xEF, "EXTZV", RL, RB, VB, WL, 0, GV),

    OP4(0xF0, "INSV", RL, RL, RB, VB, 0, GV), OP4(0xF1, "ACBL", RL, RL, ML, BW, 0, GB), OP3(0xF2, "AOBLSS", RL, ML, BB, 0, GB),
    OP3(0xF3, "AOBLEQ", RL, ML, BB, 0, GB), OP2(0xF4, "SOBGEQ", ML, BB, 0, GB), OP2(0xF5, "SOBGTR", ML, BB, 0, GB),
    OP2(0xF6, "CVTLB", RL, WB, 0, GI), OP2(0xF7, "CVTLW", RL, WW, 0, GI), OP6(0xF8, "ASHP", RB, RW, AB, RB, RW, AB, K, GD),
    OP3(0xF9, "CVTLP", RL, RW, AB, K, GD), OP2(0xFA, "CALLG", AB, AB, 0, GC), OP2(0xFB, "CALLS", RL, AB, 0, GC),
    OP0(0xFC, "XFC", 0, GP), [0xFD] = {"ESCD", 0, {0}, OPF_ESCAPE, OPG_RESERVED},
    [0xFE] = {"ESCE", 0, {0}, OPF_ESCAPE, OPG_RESERVED}, [0xFF] = {"ESCF", 0, {0}, OPF_ESCAPE, OPG_RESERVED},
};

static const struct {
    const char *alias;
    const char *name;
} aliases[] = {
    {"CLRF", "CLRL"}, {"CLRD", "CLRQ"}, {"MOVAF", "MOVAL"}, {"MOVAD", "MOVAQ"}, {"PUSHAF", "PUSHAL"},
    {"PUSHAD", "PUSHAQ"}, {"BCC", "BGEQU"}, {"BCS", "BLSSU"}, {"BNEQU", "BNEQ"}, {"BEQLU", "BEQL"},
};

static int name_equal(const char *a, const char *b)
{
    while (*a && *b) {
        if (toupper((unsigned char)*a) != toupper((unsigned char)*b))
            return 0;
        a++, b++;
    }
    return *a == 0 && *b == 0;
}

int vax_opcode_lookup(const char *name)
{
    for (unsigned i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (name_equal(name, aliases[i].alias))
            name = aliases[i].name;
    for (int op = 0; op < 256; op++)
        if (vax_opcodes[op].name && vax_opcodes[op].name[0] && name_equal(name, vax_opcodes[op].name))
            return op;
    return -1;
}
