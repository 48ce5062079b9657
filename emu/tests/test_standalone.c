/*
 * test_standalone — the tp(5) archive reader, reading a file of a SIMH
 * tape image, and the entry states of vax_boot_standalone and
 * vax_boot_tape_block (src/boot/tp.c, src/boot/standalone.c).  Synthetic data throughout; the real 4.3BSD
 * tape's boot, copy and format are run by emu/tests/system/standalone.test.ts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/aout.h"
#include "boot/standalone.h"
#include "boot/tp.h"
#include "storage/blockdev.h"
#include "vax.h"

#include "check.h"

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

/* A tp directory entry with a correct checksum. */
static void tp_put_entry(uint8_t *e, const char *name, uint32_t size, uint32_t block)
{
    memset(e, 0, TP_ENTRY_SIZE);
    memcpy(e, name, strlen(name) + 1);
    e[strlen(name) + 1] = 'J';   /* tp leaves junk after the name's NUL */
    put16(e + 32, 0100644);
    e[35] = 3;
    e[37] = (uint8_t)(size >> 16);
    put16(e + 38, size & 0xFFFF);
    put32(e + 40, 512167046u);
    put16(e + 44, block);
    uint16_t sum = 0;
    for (unsigned i = 0; i < TP_ENTRY_SIZE; i += 2)
        sum = (uint16_t)(sum + (e[i] | e[i + 1] << 8));
    put16(e + 62, (uint16_t)(0x10000u - sum));
}

/* The distribution's first-file layout: LEAD boot blocks, the archive's
 * own boot block, 62 directory blocks, then "boot" (700 bytes) and "copy"
 * (70000 bytes: a size above 16 bits would need the high byte; 70000 does). */
#define LEAD 7u
#define BOOT_SIZE 700u
#define COPY_SIZE 70000u
#define BOOT_BLOCK 63u
#define COPY_BLOCK (BOOT_BLOCK + (BOOT_SIZE + 511u) / 512u)
#define ARCH_BLOCKS (LEAD + COPY_BLOCK + (COPY_SIZE + 511u) / 512u)

static uint8_t *make_first_file(size_t *len)
{
    *len = (size_t)ARCH_BLOCKS * 512u;
    uint8_t *f = calloc(1, *len);
    if (!f)
        return NULL;
    for (unsigned i = 0; i < (LEAD + 1) * 512u; i++)
        f[i] = (uint8_t)(i * 13u + 1u);   /* boot-block junk, no valid entry */
    uint8_t *dir = f + (LEAD + 1) * 512u;
    memset(dir, 0, TP_DIR_BLOCKS * 512u);
    tp_put_entry(dir, "boot", BOOT_SIZE, BOOT_BLOCK);
    tp_put_entry(dir + TP_ENTRY_SIZE, "copy", COPY_SIZE, COPY_BLOCK);
    for (unsigned i = 0; i < BOOT_SIZE; i++)
        f[(LEAD + BOOT_BLOCK) * 512u + i] = (uint8_t)(0xB0 + i % 7);
    for (unsigned i = 0; i < COPY_SIZE; i++)
        f[(LEAD + COPY_BLOCK) * 512u + i] = (uint8_t)(0xC0 + i % 11);
    return f;
}

static void test_tp(void)
{
    char err[256];
    size_t len;
    uint8_t *f = make_first_file(&len);
    if (!f) {
        CHECK(0, "out of memory");
        return;
    }
    tp_archive a;
    CHECK(tp_open(&a, f, len, err, sizeof err) == 0, "tp_open: %s", err);
    CHECK(a.start == LEAD, "archive found at block %u, want %u", a.start, LEAD);
    CHECK(a.slots == TP_DIR_BLOCKS * TP_ENTRIES_PER_BLOCK, "%u directory slots", a.slots);

    tp_entry e;
    const uint8_t *data = NULL;
    CHECK(tp_find(&a, "copy", &e, &data, err, sizeof err) == 0, "copy: %s", err);
    CHECK(e.size == COPY_SIZE && e.block == COPY_BLOCK && e.mode == 0100644 && e.gid == 3 && e.mtime == 512167046u,
          "copy entry: size %u block %u mode 0%o", e.size, e.block, e.mode);
    CHECK(data == f + (LEAD + COPY_BLOCK) * 512u && data[0] == 0xC0 && data[COPY_SIZE - 1] == 0xC0 + (COPY_SIZE - 1) % 11,
          "copy data");
    CHECK(tp_find(&a, "boot", &e, &data, err, sizeof err) == 0 && e.size == BOOT_SIZE && data[1] == 0xB1, "boot: %s", err);
    CHECK(tp_find(&a, "boo", &e, &data, err, sizeof err) == -1 && strstr(err, "no file \"boo\"") &&
              strstr(err, "boot, copy"),
          "a prefix is not a match: %s", err);
    CHECK(tp_slot(&a, 2, &e, err, sizeof err) == 0, "slot 2 is unused");
    CHECK(tp_slot(&a, a.slots, &e, err, sizeof err) == -1, "slot past the directory");

    /* A damaged entry: reported by tp_slot, skipped by tp_find. */
    uint8_t *dir = f + (LEAD + 1) * 512u;
    dir[40] ^= 1;
    CHECK(tp_slot(&a, 0, &e, err, sizeof err) == -1 && strstr(err, "checksum"), "bad checksum: %s", err);
    CHECK(tp_find(&a, "boot", &e, &data, err, sizeof err) == -1, "a damaged entry is not found");
    CHECK(tp_find(&a, "copy", &e, &data, err, sizeof err) == 0, "the others still are: %s", err);
    dir[40] ^= 1;

    /* Truncated: copy runs past the end. */
    CHECK(tp_find(&a, "copy", &e, &data, err, sizeof err) == 0, "restored");
    tp_archive t;
    CHECK(tp_open(&t, f, len - 512, err, sizeof err) == 0, "truncated archive still opens: %s", err);
    CHECK(tp_find(&t, "copy", &e, &data, err, sizeof err) == -1 && strstr(err, "past the end"), "truncated copy: %s",
          err);

    /* A bare archive (no lead blocks) opens at 0. */
    CHECK(tp_open(&t, f + LEAD * 512u, len - LEAD * 512u, err, sizeof err) == 0 && t.start == 0, "bare archive");
    /* No archive at all. */
    memset(dir, 0, 512);
    CHECK(tp_open(&t, f, len, err, sizeof err) == -1 && strstr(err, "no tp archive"), "no archive: %s", err);
    CHECK(tp_open(&t, NULL, 0, err, sizeof err) == -1, "no data");
    free(f);
}

/* A SIMH tape in memory. */
typedef struct {
    uint8_t *b;
    size_t n, cap;
} tapebuf;

static void tb_put(tapebuf *t, const void *p, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2;
        t->b = realloc(t->b, t->cap);
    }
    memcpy(t->b + t->n, p, n);
    t->n += n;
}

static void tb_record(tapebuf *t, const uint8_t *p, uint32_t n)
{
    uint8_t l[4];
    put32(l, n);
    tb_put(t, l, 4);
    tb_put(t, p, n);
    if (n & 1)
        tb_put(t, "", 1);
    tb_put(t, l, 4);
}

static void tb_mark(tapebuf *t)
{
    uint8_t z[4] = { 0 };
    tb_put(t, z, 4);
}

static void test_tape_file(void)
{
    char err[256];
    size_t flen;
    uint8_t *first = make_first_file(&flen);
    tapebuf t = { 0 };
    for (size_t off = 0; off < flen; off += 512)
        tb_record(&t, first + off, 512);
    tb_mark(&t);
    uint8_t rec[101];
    for (unsigned i = 0; i < sizeof rec; i++)
        rec[i] = (uint8_t)i;
    tb_record(&t, rec, 101);   /* an odd record: padded in the image */
    tb_record(&t, rec, 50);
    tb_mark(&t);
    tb_mark(&t);
    vax_blockdev bd;
    blockdev_memory(&bd, t.b, t.n, 1);

    uint8_t *data;
    size_t len;
    CHECK(standalone_tape_file(&bd, 0, &data, &len, err, sizeof err) == 0 && len == flen &&
              memcmp(data, first, flen) == 0,
          "tape file 0: %s", err);
    free(data);
    CHECK(standalone_tape_file(&bd, 1, &data, &len, err, sizeof err) == 0 && len == 151 &&
              memcmp(data, rec, 101) == 0 && memcmp(data + 101, rec, 50) == 0,
          "tape file 1: %s", err);
    free(data);
    CHECK(standalone_tape_file(&bd, 2, &data, &len, err, sizeof err) == -1 && strstr(err, "empty"),
          "file 2 (between the two end marks) is empty: %s", err);
    CHECK(standalone_tape_file(&bd, 7, &data, &len, err, sizeof err) == -1 && strstr(err, "no file 7"),
          "no file 7: %s", err);

    tp_entry e;
    CHECK(standalone_from_tape(&bd, "copy", &data, &len, &e, err, sizeof err) == 0 && len == COPY_SIZE &&
              data[5] == 0xC5 && e.block == COPY_BLOCK,
          "copy from the tape: %s", err);
    free(data);
    CHECK(standalone_from_tape(&bd, "format", &data, &len, &e, err, sizeof err) == -1 && strstr(err, "no file \"format\""),
          "format is not there: %s", err);

    /* A corrupt image: the trailing length of the first record differs. */
    t.b[4 + 512] ^= 1;
    CHECK(standalone_tape_file(&bd, 0, &data, &len, err, sizeof err) == -1 && strstr(err, "corrupt"),
          "corrupt image: %s", err);
    free(t.b);
    free(first);
}

/* Run a loaded program to its HALT. */
static vax_stop_reason run(vax_machine *m)
{
    vax_stop_reason r = VAX_STOP_BUDGET;
    for (int i = 0; i < 10 && r == VAX_STOP_BUDGET; i++)
        r = vax_run(m, 1000);
    return r;
}

static void test_boot_standalone(void)
{
    char err[256];
    vax_config cfg = { 1u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!m) {
        CHECK(0, "vax_create");
        return;
    }
    uint32_t top = vax_memory_bytes(m) & ~511u;

    /* Headerless, entry mask 0x0C00 (save R10, R11): clrl r10; clrl r11;
     * movl #5,r0; ret.  RET restores R10/R11 from the frame and returns to
     * the HALT at top-4. */
    static const uint8_t prog[] = { 0x00, 0x0C, 0xD4, 0x5A, 0xD4, 0x5B, 0xD0, 0x05, 0x50, 0x04 };
    vax_boot_info info;
    CHECK(vax_boot_standalone(m, prog, sizeof prog, TSBOOT_R10_UBA0, TSBOOT_R11_TSCSR, &info, err, sizeof err) == 0,
          "headerless: %s", err);
    CHECK(vax_get_reg(m, 15) == 2 && info.pc == 2 && info.magic == 0 && info.end == sizeof prog, "starts at 2");
    CHECK(vax_get_reg(m, 10) == TSBOOT_R10_UBA0 && vax_get_reg(m, 11) == TSBOOT_R11_TSCSR, "R10/R11 as tsboot's");
    CHECK((vax_get_psl(m) & 0xFFFF0000u) == 0x041F0000u, "kernel, interrupt stack, IPL 31: psl %08x", vax_get_psl(m));
    CHECK(vax_get_reg(m, 14) >= top - 512 && vax_get_reg(m, 14) < top, "stack in the last page: sp %08x",
          vax_get_reg(m, 14));
    vax_stop_reason r = run(m);
    CHECK(r == VAX_STOP_HALT, "halts on return: %s (%s)", vax_stop_reason_name(r), vax_stop_detail(m));
    CHECK(vax_get_reg(m, 0) == 5 && vax_get_reg(m, 10) == TSBOOT_R10_UBA0 && vax_get_reg(m, 11) == TSBOOT_R11_TSCSR,
          "ran, and RET restored R10/R11: r0 %u r10 %08x r11 %08x", vax_get_reg(m, 0), vax_get_reg(m, 10),
          vax_get_reg(m, 11));
    CHECK(vax_get_reg(m, 15) == top - 3, "the HALT is at top-4: pc %08x", vax_get_reg(m, 15));

    /* The same code behind a 0407 header: loaded at 0 without it. */
    uint8_t aout[32 + sizeof prog];
    memset(aout, 0, sizeof aout);
    put32(aout, AOUT_OMAGIC);
    put32(aout + 4, sizeof prog);
    put32(aout + 12, 0x100);   /* bss */
    memcpy(aout + 32, prog, sizeof prog);
    CHECK(vax_boot_standalone(m, aout, sizeof aout, 0, 2, &info, err, sizeof err) == 0, "a.out: %s", err);
    uint8_t mem[sizeof prog];
    vax_phys_read(m, 0, mem, sizeof mem);
    CHECK(memcmp(mem, prog, sizeof prog) == 0 && info.magic == AOUT_OMAGIC && info.end == sizeof prog + 0x100,
          "a.out text at 0, bss after it");
    r = run(m);
    CHECK(r == VAX_STOP_HALT && vax_get_reg(m, 0) == 5 && vax_get_reg(m, 11) == 2, "a.out ran: %s",
          vax_stop_reason_name(r));

    /* Refused. */
    put32(aout + 20, 0x100);
    CHECK(vax_boot_standalone(m, aout, sizeof aout, 0, 0, NULL, err, sizeof err) == -1 && strstr(err, "start at 0"),
          "a.out entry not 0: %s", err);
    static const uint8_t badmask[] = { 0x00, 0x30, 0x04 };
    CHECK(vax_boot_standalone(m, badmask, sizeof badmask, 0, 0, NULL, err, sizeof err) == -1 &&
              strstr(err, "entry mask"),
          "reserved mask bits: %s", err);
    CHECK(vax_boot_standalone(m, prog, 1, 0, 0, NULL, err, sizeof err) == -1, "one byte");
    uint8_t *huge = calloc(1, top);
    if (huge) {
        CHECK(vax_boot_standalone(m, huge, top, 0, 0, NULL, err, sizeof err) == -1 && strstr(err, "does not fit"),
              "too big: %s", err);
        free(huge);
    }
    vax_destroy(m);
}

static void test_tape_block(void)
{
    char err[256];
    vax_config cfg = { 1u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!m) {
        CHECK(0, "vax_create");
        return;
    }
    tapebuf t = { 0 };
    uint8_t block[512];
    for (unsigned i = 0; i < sizeof block; i++)
        block[i] = (uint8_t)(i ^ 0x5A);
    tb_record(&t, block, 512);
    tb_record(&t, block, 512);
    tb_mark(&t);
    vax_blockdev bd;
    blockdev_memory(&bd, t.b, t.n, 1);
    vax_set_reg(m, 3, 77);
    CHECK(vax_boot_tape_block(m, &bd, err, sizeof err) == 0, "boot block: %s", err);
    uint8_t mem[512];
    vax_phys_read(m, 0, mem, sizeof mem);
    CHECK(memcmp(mem, block, sizeof mem) == 0, "the first record at 0");
    CHECK(vax_get_reg(m, 15) == 0 && vax_get_reg(m, 10) == TSBOOT_R10_UBA0 && vax_get_reg(m, 11) == TSBOOT_R11_TSCSR &&
              vax_get_reg(m, 3) == 0 && (vax_get_psl(m) & 0xFFFF0000u) == 0x041F0000u,
          "as tstoggle leaves it: pc %08x", vax_get_reg(m, 15));

    tapebuf u = { 0 };
    tb_mark(&u);
    blockdev_memory(&bd, u.b, u.n, 1);
    CHECK(vax_boot_tape_block(m, &bd, err, sizeof err) == -1 && strstr(err, "tape mark"), "a tape mark first: %s", err);
    u.n = 0;
    tb_record(&u, block, 100);
    blockdev_memory(&bd, u.b, u.n, 1);
    CHECK(vax_boot_tape_block(m, &bd, err, sizeof err) == -1 && strstr(err, "100 bytes"), "a short record: %s", err);
    free(t.b);
    free(u.b);
    vax_destroy(m);
}

int main(void)
{
    test_tp();
    test_tape_file();
    test_boot_standalone();
    test_tape_block();
    return check_summary();
}
