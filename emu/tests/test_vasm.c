/*
 * test_vasm.c — unit tests of the assembler (vasm_assemble) and the
 * disassembler (vdisasm): encodings checked against hand-computed bytes
 * from the VAX Architecture Reference Manual, directives, expressions,
 * error reporting, and an assemble/disassemble round trip over every
 * defined opcode.
 */
#include "asm/vasm.h"
#include "cpu/opcodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void hexdump(const char *label, const uint8_t *b, size_t n)
{
    printf("    %s:", label);
    for (size_t i = 0; i < n; i++)
        printf(" %02X", b[i]);
    printf("\n");
}

/* Assemble src at base and compare the image with exp[0..n). */
static void check_asm_at(int line, uint32_t base, const char *src, const uint8_t *exp, size_t n)
{
    vasm_result r;
    if (vasm_assemble(src, base, &r) != 0) {
        printf("FAIL (test line %d): \"%s\": error at line %d: %s\n", line, src, r.error_line, r.error);
        failed++;
    } else if (r.len != n || memcmp(r.bytes, exp, n) != 0) {
        printf("FAIL (test line %d): \"%s\"\n", line, src);
        hexdump("expected", exp, n);
        hexdump("got     ", r.bytes, r.len);
        failed++;
    } else {
        passed++;
    }
    vasm_free(&r);
}

#define ASM_AT(base, src, ...)                                                   \
    do {                                                                         \
        static const uint8_t exp_[] = {__VA_ARGS__};                             \
        check_asm_at(__LINE__, (base), (src), exp_, sizeof exp_);                \
    } while (0)
#define ASM(src, ...) ASM_AT(0, src, __VA_ARGS__)

/* Assembly must fail on source line eline with a message containing msg. */
static void check_err(int line, const char *src, int eline, const char *msg)
{
    vasm_result r;
    int rc = vasm_assemble(src, 0, &r);
    if (rc == 0) {
        printf("FAIL (test line %d): \"%s\" assembled, expected error \"%s\"\n", line, src, msg);
        failed++;
    } else if (r.error_line != eline || !strstr(r.error, msg)) {
        printf("FAIL (test line %d): \"%s\": got error at line %d \"%s\", expected line %d \"%s\"\n", line, src,
               r.error_line, r.error, eline, msg);
        failed++;
    } else {
        passed++;
    }
    vasm_free(&r);
}
#define ERR(src, eline, msg) check_err(__LINE__, src, eline, msg)

/* Disassemble bytes at pc; expect text and length. */
static void check_dis(int line, const uint8_t *b, size_t n, uint32_t pc, const char *text, int len)
{
    char out[128];
    int got = vdisasm(b, n, pc, out, sizeof out);
    if (got != len || (len >= 0 && strcmp(out, text) != 0)) {
        printf("FAIL (test line %d): disassembly: got %d \"%s\", expected %d \"%s\"\n", line, got, out, len, text);
        failed++;
    } else {
        passed++;
    }
}
#define DIS(pc, text, len, ...)                                                  \
    do {                                                                         \
        static const uint8_t b_[] = {__VA_ARGS__};                               \
        check_dis(__LINE__, b_, sizeof b_, (pc), (text), (len));                 \
    } while (0)

static void expect(int cond, int line, const char *what)
{
    if (cond) {
        passed++;
    } else {
        printf("FAIL (test line %d): %s\n", line, what);
        failed++;
    }
}
#define EXPECT(cond) expect((cond), __LINE__, #cond)

/* Assemble src at base, then disassemble the image and compare the text. */
static void check_asm_dis(int line, uint32_t base, const char *src, const char *text)
{
    vasm_result r;
    char out[128] = "";
    int n = -2;
    if (vasm_assemble(src, base, &r) == 0)
        n = vdisasm(r.bytes, r.len, base, out, sizeof out);
    if (n != (int)r.len || strcmp(out, text) != 0) {
        printf("FAIL (test line %d): \"%s\" -> \"%s\" (len %d of %zu), expected \"%s\" %s\n", line, src, out, n,
               r.len, text, r.error);
        failed++;
    } else {
        passed++;
    }
    vasm_free(&r);
}
#define ASMDIS(base, src, text) check_asm_dis(__LINE__, base, src, text)

static void test_encodings(void)
{
    /* The examples of the specification. */
    ASM("addl3 $5, r1, r2", 0xC1, 0x05, 0x51, 0x52);
    ASM("movl $0x12345678, r0", 0xD0, 0x8F, 0x78, 0x56, 0x34, 0x12, 0x50);
    ASM("movl 4(r1), r2", 0xD0, 0xA1, 0x04, 0x52);
    ASM("movl @#0x1000, r3", 0xD0, 0x9F, 0x00, 0x10, 0x00, 0x00, 0x53);
    ASM("movl (r1)+, -(sp)", 0xD0, 0x81, 0x7E);
    ASM("movab 0x200(r2)[r3], r4", 0x9E, 0x43, 0xC2, 0x00, 0x02, 0x54);
    ASM("brb .", 0x11, 0xFE);
    ASM("calls $2, @#0x2000", 0xFB, 0x02, 0x9F, 0x00, 0x20, 0x00, 0x00);
    ASM("movq $0x1122334455667788, r0", 0x7D, 0x8F, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x50);
    ASM("pushl r5", 0xDD, 0x55);
    ASM("bbs $3, (r1), lab\nlab:", 0xE0, 0x03, 0x61, 0x00);
    ASM("lab: bbs $3, (r1), lab", 0xE0, 0x03, 0x61, 0xFC);

    /* Registers, case, '#' immediates. */
    ASM("MOVL R0, R1", 0xD0, 0x50, 0x51);
    ASM("Movl Ap, Fp\nmovl sp, pc\nmovl r12, r13", 0xD0, 0x5C, 0x5D, 0xD0, 0x5E, 0x5F, 0xD0, 0x5C, 0x5D);
    ASM("movl #5, r0", 0xD0, 0x05, 0x50);
    ASM("movl #63, r0\nmovl #64, r0", 0xD0, 0x3F, 0x50, 0xD0, 0x8F, 0x40, 0x00, 0x00, 0x00, 0x50);
    ASM("movl $-1, r0", 0xD0, 0x8F, 0xFF, 0xFF, 0xFF, 0xFF, 0x50);

    /* Literal vs immediate per data type. */
    ASM("movb $-1, r0", 0x90, 0x8F, 0xFF, 0x50);
    ASM("movb $255, r0", 0x90, 0x8F, 0xFF, 0x50);
    ASM("movw $1000, r0", 0xB0, 0x8F, 0xE8, 0x03, 0x50);
    ASM("movq $5, r0", 0x7D, 0x05, 0x50);
    ASM("movq $-1, r2", 0x7D, 0x8F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x52);
    ASM("movl i^$5, r0", 0xD0, 0x8F, 0x05, 0x00, 0x00, 0x00, 0x50);
    ASM("movl I^#5, r0", 0xD0, 0x8F, 0x05, 0x00, 0x00, 0x00, 0x50);
    ASM("movl s^$7, r0", 0xD0, 0x07, 0x50);
    ASM("movf s^$8, r0", 0x50, 0x08, 0x50);
    ASM("movf $0x4080, r0", 0x50, 0x8F, 0x80, 0x40, 0x00, 0x00, 0x50);
    ASM("movf $1, r0", 0x50, 0x8F, 0x01, 0x00, 0x00, 0x00, 0x50);
    ASM("movd $0x4080, r0", 0x70, 0x8F, 0x80, 0x40, 0, 0, 0, 0, 0, 0, 0x50);
    ASM("movd s^#0, r2", 0x70, 0x00, 0x52);
    /* A write or address operand never gets an automatic literal. */
    ASM("movl r0, $5", 0xD0, 0x50, 0x8F, 0x05, 0x00, 0x00, 0x00);
    ASM("movab $5, r0", 0x9E, 0x8F, 0x05, 0x50);
    ASM("bicpsw $0x20", 0xB9, 0x20);
    ASM("pushr $0x7FFC", 0xBB, 0x8F, 0xFC, 0x7F);

    /* Register-based modes. */
    ASM("movl (r1), r2", 0xD0, 0x61, 0x52);
    ASM("movl @r1, @R2[r3]", 0xD0, 0x61, 0x43, 0x62);
    ASM("movl -(r1), r2", 0xD0, 0x71, 0x52);
    ASM("movl - ( r1 ) , r2", 0xD0, 0x71, 0x52);
    ASM("movl @(r1)+, r2", 0xD0, 0x91, 0x52);
    ASM("movl @4(r1), r2", 0xD0, 0xB1, 0x04, 0x52);
    ASM("movl @(r1), r2", 0xD0, 0xB1, 0x00, 0x52);
    ASM("movl 0(r1), r2", 0xD0, 0xA1, 0x00, 0x52);
    ASM("movl -1(fp), r0", 0xD0, 0xAD, 0xFF, 0x50);
    ASM("movl -128(fp), r0", 0xD0, 0xAD, 0x80, 0x50);
    ASM("movl -129(fp), r0", 0xD0, 0xCD, 0x7F, 0xFF, 0x50);
    ASM("movl 0x1234(r1), r2", 0xD0, 0xC1, 0x34, 0x12, 0x52);
    ASM("movl 0x12345(r1), r2", 0xD0, 0xE1, 0x45, 0x23, 0x01, 0x00, 0x52);
    ASM("movl @0x12345(r1), r2", 0xD0, 0xF1, 0x45, 0x23, 0x01, 0x00, 0x52);
    ASM("movl w^4(r1), r2", 0xD0, 0xC1, 0x04, 0x00, 0x52);
    ASM("movl L^4(r1), r2", 0xD0, 0xE1, 0x04, 0x00, 0x00, 0x00, 0x52);
    ASM("movl @b^4(r1), r2", 0xD0, 0xB1, 0x04, 0x52);
    ASM("movl @w^-2(r1), r2", 0xD0, 0xD1, 0xFE, 0xFF, 0x52);
    ASM("movl (2+2)*2(r1), r2", 0xD0, 0xA1, 0x08, 0x52);
    ASM("movl 8(pc), r0", 0xD0, 0xAF, 0x08, 0x50);
    ASM("movl (pc)+, r0", 0xD0, 0x8F, 0x50);

    /* Index mode. */
    ASM("movl (r1)[r2], r3", 0xD0, 0x42, 0x61, 0x53);
    ASM("clrl @#0x1000[r2]", 0xD4, 0x42, 0x9F, 0x00, 0x10, 0x00, 0x00);
    ASM("movl (r1)+[r2], r3", 0xD0, 0x42, 0x81, 0x53);
    ASM("movl -(r1)[r2], r3", 0xD0, 0x42, 0x71, 0x53);
    ASM("movl @(r1)+[r2], r3", 0xD0, 0x42, 0x91, 0x53);
    ASM("movl @4(r1)[ r2 ], r3", 0xD0, 0x42, 0xB1, 0x04, 0x53);
    ASM("movl 4(r1)[r2], 8(r3)[r4]", 0xD0, 0x42, 0xA1, 0x04, 0x44, 0xA3, 0x08);

    /* PC-relative (long unless b^/w^), deferred, absolute. */
    ASM("lab: jmp lab", 0x17, 0xEF, 0xFA, 0xFF, 0xFF, 0xFF);
    ASM("lab: jmp b^lab", 0x17, 0xAF, 0xFD);
    ASM("lab: jmp w^lab", 0x17, 0xCF, 0xFC, 0xFF);
    ASM("lab: jmp @lab", 0x17, 0xFF, 0xFA, 0xFF, 0xFF, 0xFF);
    ASM("lab: jmp @b^lab", 0x17, 0xBF, 0xFD);
    ASM("jmp @#lab\nlab:", 0x17, 0x9F, 0x06, 0x00, 0x00, 0x00);
    ASM("movl lab, r0\nlab: .long 5", 0xD0, 0xEF, 0x01, 0x00, 0x00, 0x00, 0x50, 0x05, 0x00, 0x00, 0x00);
    ASM("movl lab[r1], r0\nlab: .long 5", 0xD0, 0x41, 0xEF, 0x01, 0x00, 0x00, 0x00, 0x50, 0x05, 0x00, 0x00, 0x00);
    ASM_AT(0x1000, "jmp 0x1000", 0x17, 0xEF, 0xFA, 0xFF, 0xFF, 0xFF);
    ASM_AT(0x1000, "movl 0x2000, r1", 0xD0, 0xEF, 0xFA, 0x0F, 0x00, 0x00, 0x51);
    ASM("movl @#0xFFFFFFFF, r0", 0xD0, 0x9F, 0xFF, 0xFF, 0xFF, 0xFF, 0x50);

    /* Forward references: long displacement / immediate, fixed across passes. */
    ASM("movl fwd(r1), r0\nfwd = 4", 0xD0, 0xE1, 0x04, 0x00, 0x00, 0x00, 0x50);
    ASM("movl $val, r0\nval = 5", 0xD0, 0x8F, 0x05, 0x00, 0x00, 0x00, 0x50);
    ASM("val = 5\nmovl $val, r0", 0xD0, 0x05, 0x50);
    ASM("brb l2\nl1: nop\nl2: brb l1", 0x11, 0x01, 0x01, 0x11, 0xFD);
    {
        vasm_result r;
        int rc = vasm_assemble("brw l2\n.space 300\nl2: .byte 7", 0, &r);
        EXPECT(rc == 0 && r.len == 304 && r.bytes[0] == 0x31 && r.bytes[1] == 0x2C && r.bytes[2] == 0x01 &&
               r.bytes[3] == 0 && r.bytes[302] == 0 && r.bytes[303] == 7);
        vasm_free(&r);
    }

    /* Branch-type instructions. */
    ASM("loop: sobgtr r0, loop", 0xF5, 0x50, 0xFD);
    ASM("loop: aoblss $10, r1, loop", 0xF2, 0x0A, 0x51, 0xFC);
    ASM("loop: acbl $10, $1, r0, loop", 0xF1, 0x0A, 0x01, 0x50, 0xFA, 0xFF);
    ASM("l: blbs r0, l", 0xE8, 0x50, 0xFD);
    ASM("bsbw sub\nsub: rsb", 0x30, 0x00, 0x00, 0x05);
    ASM("l: bcc l\nbcs l\nbnequ l", 0x1E, 0xFE, 0x1F, 0xFC, 0x12, 0xFA);
    ASM("bbs $5, $7, l\nl:", 0xE0, 0x05, 0x8F, 0x07, 0x00);

    /* Other instructions. */
    ASM("nop\nhalt\nrei\nrsb\nret\nbpt", 0x01, 0x00, 0x02, 0x05, 0x04, 0x03);
    ASM("movc3 $10, (r1), (r2)", 0x28, 0x0A, 0x61, 0x62);
    ASM("extzv $4, $8, r0, r1", 0xEF, 0x04, 0x08, 0x50, 0x51);
    ASM("insv r0, $0, $8, (r1)", 0xF0, 0x50, 0x00, 0x08, 0x61);
    ASM("mtpr $31, $0x12", 0xDA, 0x1F, 0x12);
    ASM("mfpr $0x12, r0", 0xDB, 0x12, 0x50);
    ASM("chmk $3", 0xBC, 0x03);
    ASM("casel r0, $0, $2\ntab: .word l0-tab, l1-tab, l2-tab\nl0: nop\nl1: nop\nl2: nop", 0xCF, 0x50, 0x00, 0x02,
        0x06, 0x00, 0x07, 0x00, 0x08, 0x00, 0x01, 0x01, 0x01);
    ASM("clrf r0\nclrd r2\nmovaf (r1), r2", 0xD4, 0x50, 0x7C, 0x52, 0xDE, 0x61, 0x52);
    ASM("addp4 $1, (r1), $2, (r2)", 0x20, 0x01, 0x61, 0x02, 0x62);
    ASM("escd\n.byte 0x31", 0xFD, 0x31);
    ASM("xfc", 0xFC);
    ASM("index r0, $1, $10, $4, r1, r2", 0x0A, 0x50, 0x01, 0x0A, 0x04, 0x51, 0x52);
    ASM("emodf r0, $0, r1, r2, r3", 0x54, 0x50, 0x00, 0x51, 0x52, 0x53);
    ASM("ashq $-3, r0, r2", 0x79, 0x8F, 0xFD, 0x50, 0x52);
    ASM("calls $0, 8(r1)\ncallg (ap), @#0x100", 0xFB, 0x00, 0xA1, 0x08, 0xFA, 0x6C, 0x9F, 0x00, 0x01, 0x00, 0x00);
}

static void test_directives(void)
{
    ASM(".byte 1, 2, -1, 255, 'A', '\\n'", 0x01, 0x02, 0xFF, 0xFF, 0x41, 0x0A);
    ASM(".word 0x1234, -2", 0x34, 0x12, 0xFE, 0xFF);
    ASM(".long 0x12345678, -1", 0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF);
    ASM(".quad 0x1122334455667788", 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11);
    ASM(".ascii \"a;b\\n\\t\\\\\\\"\\0\"", 'a', ';', 'b', '\n', '\t', '\\', '"', 0);
    ASM(".asciz \"hi\", \"x\"", 'h', 'i', 0, 'x', 0);
    ASM(".ascii \"\\x41\\101\"", 'A', 'A');
    ASM(".space 3, 0xAA\n.byte 1", 0xAA, 0xAA, 0xAA, 0x01);
    ASM(".byte 1\n.align 4\n.byte 2", 0x01, 0x00, 0x00, 0x00, 0x02);
    ASM(".align 1\n.byte 7\n.align 2\n.byte 8", 0x07, 0x00, 0x08);
    ASM(".org 4\n.byte 9", 0x00, 0x00, 0x00, 0x00, 0x09);
    ASM(". = 2\n.byte 9\n.org 0\n.byte 8", 0x08, 0x00, 0x09);
    ASM(".long .\n.long ., .", 0x00, 0, 0, 0, 0x04, 0, 0, 0, 0x08, 0, 0, 0);
    ASM_AT(0x200, ".long .", 0x00, 0x02, 0x00, 0x00);
    ASM_AT(0x200, ".org 0x204\n.byte 1", 0, 0, 0, 0, 1);

    /* Expressions. */
    ASM("x = 3*(2+1) - -1\n.byte x", 10);
    ASM("x = 1\nx = x + 1\n.byte x", 2);
    ASM(".long 1<<4 | 1, 0xF0 & 0x3C, ~0, 7/2, 7%4, 0x100>>4", 0x11, 0, 0, 0, 0x30, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF,
        3, 0, 0, 0, 3, 0, 0, 0, 0x10, 0, 0, 0);
    ASM(".byte ^X1F, ^O17, ^B101, ^D10, 0b11, 010", 0x1F, 0x0F, 0x05, 0x0A, 0x03, 0x0A);
    ASM(".word end - start\nstart: .byte 1, 2, 3\nend:", 0x03, 0x00, 1, 2, 3);
    ASM("a = b + 1\nb = 4\n.byte a, b", 5, 4);
    ASM("sym.1$x = 3\n.byte sym.1$x", 3);

    /* Comments and labels. */
    ASM("# a comment line\n   # another\nmovl r0, r1 ; comment $5 #6\n; only comment", 0xD0, 0x50, 0x51);
    ASM("a: b: c:: nop\n.long a, b, c", 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    ASM("start:\n\tmovl\tr0,r1\r\n\tnop\r\n", 0xD0, 0x50, 0x51, 0x01);
    ASM(".ascii \"#;x\" ; c", '#', ';', 'x');
    ASM("movb $';', r0", 0x90, 0x3B, 0x50);
    {
        vasm_result r;
        EXPECT(vasm_assemble("", 0, &r) == 0 && r.len == 0 && r.nlines == 0);
        vasm_free(&r);
        EXPECT(vasm_assemble("; nothing\n\n", 0, &r) == 0 && r.len == 0 && r.nlines == 2);
        vasm_free(&r);
    }
}

static void test_errors(void)
{
    ERR("nop\nfoo r0", 2, "unknown instruction 'foo'");
    ERR("movl r16, r0", 1, "bad register 'r16'");
    ERR("movl (r16), r0", 1, "bad register");
    ERR("movl 4(rx), r0", 1, "bad register 'rx'");
    ERR("movl (foo)+, r0", 1, "bad register");
    ERR("movl r0[r16], r1", 1, "bad index register");
    ERR("movl (r0)[pc], r1", 1, "PC cannot be an index");
    ERR("\n\nmovl r0", 3, "MOVL takes 2 operands, got 1");
    ERR("movl r0, r1, r2", 1, "takes 2 operands, got 3");
    ERR("nop r0", 1, "NOP takes 0 operands, got 1");
    ERR("movl r0,,r1", 1, "empty operand");
    ERR("brb l\n.space 128\nl:", 1, "branch out of range");
    ERR("l: .space 127\nbrb l", 2, "branch out of range");
    ERR("brw l\n.space 40000\nl:", 1, "branch out of range");
    ERR("movl foo, r0", 1, "undefined symbol 'foo'");
    ERR("l: nop\nl: nop", 2, "duplicate label 'l'");
    ERR("l: nop\nl = 5", 2, "already a label");
    ERR("r1: nop", 1, "register name");
    ERR(".align 3", 1, "power of two");
    ERR(".byte 256", 1, "does not fit");
    ERR(".word 65536", 1, "does not fit");
    ERR("movl s^$64, r0", 1, "short literal 64 out of range");
    ERR("movb $256, r0", 1, "does not fit in 1 byte");
    ERR("movl b^200(r1), r0", 1, "does not fit");
    ERR("movl r0[r1], r2", 1, "index mode not allowed");
    ERR("movl $5[r1], r2", 1, "index mode not allowed");
    ERR(".ascii \"abc", 1, "unterminated");
    ERR(".blah 1", 1, "unknown directive");
    ERR(".org x\nx = 5", 1, "must not use symbols defined later");
    ERR("x = 1 / 0", 1, "division by zero");
    ERR("movl $(1+, r0", 1, "");
    ERR("movl r0, r1 extra", 1, "");
    ERR("brb $5", 1, "branch operand");
    ERR("movl @-(r1), r0", 1, "bad addressing mode");
    ERR(".byte 1 2", 1, "unexpected");
    ERR("movl 99999999999999999999, r0", 1, "number too large");
    ERR(".byte 0x", 1, "missing digits");
    ERR(".byte 12ab", 1, "bad digit");
    ERR("movl r0+1, r0", 1, "not allowed here");
}

static void test_base_errors(void)
{
    vasm_result r;
    EXPECT(vasm_assemble(".org 0x100", 0x200, &r) == -1 && r.error_line == 1 && strstr(r.error, ".org"));
    vasm_free(&r);
    /* The result struct can be reused after vasm_free. */
    EXPECT(vasm_assemble("nop", 0x200, &r) == 0 && r.len == 1 && r.base == 0x200 && r.error[0] == 0);
    vasm_free(&r);
}

static void test_symbols_and_lines(void)
{
    vasm_result r;
    const char *src = "start: nop\n"
                      "\n"
                      "        movl $5, r0   ; comment\n"
                      "data:   .long 1, 2\n"
                      "size = . - start\n"
                      "        .org 0x1100\n"
                      "end:\n";
    int rc = vasm_assemble(src, 0x1000, &r);
    EXPECT(rc == 0);
    if (rc == 0) {
        uint32_t v = 0;
        EXPECT(vasm_symbol(&r, "start", &v) == 0 && v == 0x1000);
        EXPECT(vasm_symbol(&r, "data", &v) == 0 && v == 0x1004);
        EXPECT(vasm_symbol(&r, "size", &v) == 0 && v == 12);
        EXPECT(vasm_symbol(&r, "end", &v) == 0 && v == 0x1100);
        EXPECT(vasm_symbol(&r, "Start", &v) == -1);
        EXPECT(vasm_symbol(&r, "nothere", NULL) == -1);
        EXPECT(r.nsyms == 4);
        EXPECT(r.len == 12); /* .org alone does not extend the image */
        EXPECT(r.nlines == 7);
        if (r.nlines == 7) {
            EXPECT(r.lines[0].line == 1 && r.lines[0].addr == 0x1000 && r.lines[0].len == 1);
            EXPECT(r.lines[2].line == 3 && r.lines[2].addr == 0x1001 && r.lines[2].len == 3);
            EXPECT(r.lines[3].addr == 0x1004 && r.lines[3].len == 8);
            EXPECT(r.lines[5].addr == 0x1100 && r.lines[5].len == 0);
        }
    }
    vasm_free(&r);
    vasm_free(&r); /* idempotent */
}

static void test_disassembler(void)
{
    DIS(0, "ADDL3 #5,R1,R2", 4, 0xC1, 0x05, 0x51, 0x52);
    DIS(0, "MOVL 8(R2),@#00001000", 8, 0xD0, 0xA2, 0x08, 0x9F, 0x00, 0x10, 0x00, 0x00);
    DIS(0, "MOVL #0x12345678,R0", 7, 0xD0, 0x8F, 0x78, 0x56, 0x34, 0x12, 0x50);
    DIS(0, "MOVL I^#5,R0", 7, 0xD0, 0x8F, 0x05, 0x00, 0x00, 0x00, 0x50);
    DIS(0, "MOVAB 0x200(R2)[R3],R4", 6, 0x9E, 0x43, 0xC2, 0x00, 0x02, 0x54);
    DIS(0, "MOVL (R1)+,-(SP)", 3, 0xD0, 0x81, 0x7E);
    DIS(0, "MOVL @(R1)+,(R2)", 3, 0xD0, 0x91, 0x62);
    DIS(0, "MOVL -0x10(FP),@-1(AP)", 5, 0xD0, 0xAD, 0xF0, 0xBC, 0xFF);
    DIS(0, "MOVL W^4(R1),L^-2(R2)", 9, 0xD0, 0xC1, 0x04, 0x00, 0xE2, 0xFE, 0xFF, 0xFF, 0xFF);
    DIS(0x1000, "BRB 00001000", 2, 0x11, 0xFE);
    DIS(0x1000, "BRW 00001103", 3, 0x31, 0x00, 0x01);
    DIS(0x1000, "JMP 00001000", 6, 0x17, 0xEF, 0xFA, 0xFF, 0xFF, 0xFF);
    DIS(0x1000, "JMP @B^00001000", 3, 0x17, 0xBF, 0xFD);
    DIS(0x1000, "BBS #3,(R1),00001000", 4, 0xE0, 0x03, 0x61, 0xFC);
    DIS(0, "CALLS #2,@#00002000", 7, 0xFB, 0x02, 0x9F, 0x00, 0x20, 0x00, 0x00);
    DIS(0, "MOVQ #0x1122334455667788,R0", 11, 0x7D, 0x8F, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x50);
    DIS(0, "MOVF S^#8,R0", 3, 0x50, 0x08, 0x50);
    DIS(0, "MOVF #0x4080,R0", 7, 0x50, 0x8F, 0x80, 0x40, 0x00, 0x00, 0x50);
    DIS(0, "CASEL R0,#0,#2", 4, 0xCF, 0x50, 0x00, 0x02, 0x06, 0x00);
    DIS(0, "CLRL @#00001000[R2]", 7, 0xD4, 0x42, 0x9F, 0x00, 0x10, 0x00, 0x00);
    DIS(0, "PUSHL AP", 2, 0xDD, 0x5C);
    DIS(0, ".BYTE 57", 1, 0x57);
    DIS(0, "ESCF", 1, 0xFF);
    DIS(0, "NOP", 1, 0x01, 0x99);
    DIS(0, "", -1, 0xD0, 0x41, 0x42, 0x50); /* index of index */
    DIS(0, "", -1, 0xD0, 0x8F, 0x78, 0x56);  /* truncated immediate */
    DIS(0, "", -1, 0x11);                    /* truncated branch */
    DIS(0, "", -1, 0xD0, 0x50);              /* missing operand */
    {
        char out[8];
        uint8_t b[] = {0xC1, 0x05, 0x51, 0x52};
        EXPECT(vdisasm(b, sizeof b, 0, out, sizeof out) == 4 && strcmp(out, "ADDL3 #") == 0);
        EXPECT(vdisasm(b, 0, 0, out, sizeof out) == -1 && out[0] == 0);
        EXPECT(vdisasm(b, sizeof b, 0, NULL, 0) == 4);
    }

    /* Assemble then disassemble. */
    ASMDIS(0, "addl3 $5, r1, r2", "ADDL3 #5,R1,R2");
    ASMDIS(0, "movl 8(r2), @#0x1000", "MOVL 8(R2),@#00001000");
    ASMDIS(0x1000, "l: sobgtr r0, l", "SOBGTR R0,00001000");
    ASMDIS(0x1000, "movl @l, r0\nl:", "MOVL @00001007,R0");
    ASMDIS(0x1000, "l: movab w^l[r1], r0", "MOVAB W^00001000[R1],R0");
    ASMDIS(0, "movl w^8(r1), r0", "MOVL W^8(R1),R0");
    ASMDIS(0, "movw $1000, r0", "MOVW #0x3E8,R0");
}

/* Generic operand texts for the round trip. */
static const char *const gen_ops[] = {
    "r1", "(r2)", "4(r3)", "@#0x1000", "$0x7F", "-(sp)", "0x1234(r4)[r5]", "@8(r6)", "(r7)+", "@(r8)+",
    "$7", "lab", "@lab", "b^lab[r9]", "0x123456(r10)", "@w^-300(r11)", "s^$3", "i^$9", "(ap)[r0]", "@#lab[r1]",
};
#define NGEN (sizeof gen_ops / sizeof gen_ops[0])

static void test_round_trip(void)
{
    int ops_done = 0, bad = 0;
    for (int op = 0; op < 256; op++) {
        const vax_opinfo *info = &vax_opcodes[op];
        if ((info->flags & OPF_RESERVED) || !info->name[0])
            continue;
        for (unsigned variant = 0; variant < 3; variant++) {
            char src[512];
            int n = snprintf(src, sizeof src, "lab: %s ", info->name);
            for (int i = 0; i < info->nspec; i++) {
                const char *t;
                if (SPEC_ACC(info->spec[i]) == ACC_B)
                    t = "lab";
                else
                    t = gen_ops[(op * 7u + (unsigned)i * 3u + variant * 5u) % NGEN];
                n += snprintf(src + n, sizeof src - (size_t)n, "%s%s", i ? ", " : "", t);
            }
            vasm_result r;
            const uint32_t base = 0x2000;
            if (vasm_assemble(src, base, &r) != 0) {
                printf("FAIL: round trip \"%s\": %s\n", src, r.error);
                bad++;
                vasm_free(&r);
                continue;
            }
            char text[160];
            int len = vdisasm(r.bytes, r.len, base, text, sizeof text);
            size_t nl = strlen(info->name);
            int ok = len == (int)r.len && strncmp(text, info->name, nl) == 0 &&
                     (text[nl] == 0 || text[nl] == ' ');
            /* Count the operands in the text: commas outside []. */
            int commas = 0;
            for (const char *p = text; *p; p++)
                commas += *p == ',';
            if (ok && info->nspec > 0 && commas != info->nspec - 1)
                ok = 0;
            /* Every shorter buffer is truncated. */
            for (size_t k = 0; ok && k < r.len; k++)
                if (vdisasm(r.bytes, k, base, text + 100, 60) != -1)
                    ok = 0;
            if (!ok) {
                printf("FAIL: round trip \"%s\": %zu bytes, disassembled %d \"%s\"\n", src, r.len, len, text);
                hexdump("bytes", r.bytes, r.len);
                bad++;
            }
            ops_done++;
            vasm_free(&r);
        }
    }
    if (bad == 0)
        passed++;
    else
        failed++;
    EXPECT(ops_done > 600);
}

/* Two results alive at once: nothing is shared between calls. */
static void test_reentrant(void)
{
    vasm_result a, b;
    int ra = vasm_assemble("x = 1\nl1: .byte x", 0x10, &a);
    int rb = vasm_assemble("x = 2\nl2: .byte x\n.byte x", 0x20, &b);
    uint32_t v;
    EXPECT(ra == 0 && rb == 0);
    EXPECT(a.len == 1 && a.bytes[0] == 1 && b.len == 2 && b.bytes[1] == 2);
    EXPECT(vasm_symbol(&a, "l2", &v) == -1 && vasm_symbol(&b, "l2", &v) == 0 && v == 0x20);
    vasm_free(&a);
    vasm_free(&b);
}

/* A larger program: many symbols (hash table growth), forward branches. */
static void test_big(void)
{
    size_t cap = 1 << 20, n = 0;
    char *src = malloc(cap);
    if (!src) {
        failed++;
        return;
    }
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(src + n, cap - n, "l%d: brw l%d\n movl $%d, r0\n", i, (i + 1) % 2000, i);
    vasm_result r;
    int rc = vasm_assemble(src, 0, &r);
    EXPECT(rc == 0);
    if (rc == 0) {
        uint32_t v;
        EXPECT(r.nsyms == 2000);
        EXPECT(vasm_symbol(&r, "l1999", &v) == 0);
        /* l0: brw (3) + movl $0,r0 (3) = 6; ... i >= 64 uses an immediate (7) */
        EXPECT(v == 64 * 6 + (1999 - 64) * 10);
        EXPECT(r.bytes[1] == 3 && r.bytes[2] == 0);
    }
    vasm_free(&r);
    free(src);
}

int main(void)
{
    test_encodings();
    test_directives();
    test_errors();
    test_base_errors();
    test_symbols_and_lines();
    test_disassembler();
    test_round_trip();
    test_reentrant();
    test_big();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
