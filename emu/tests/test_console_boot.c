/*
 * test_console_boot.c — what the 780's console does for DEC's primary
 * bootstrap VMB, without DEC's files: boot/vmb.c loading an image at 0x200
 * with the console's register convention (and refusing bad images and
 * devices), and the console terminal answering VMB's revision-level
 * queries on TXDB channel 3 while only channel 0 reaches the terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/vmb.h"
#include "cpu/cpu.h"
#include "machine.h"
#include "system/vax780.h"
#include "vax.h"

#include "check.h"

static void test_vmb_device_names(void)
{
    vmb_boot_regs r;
    char err[200];
    CHECK(vmb_boot_device("dua0", &r, err, sizeof err) == 0, "dua0");
    CHECK(r.r[0] == 17 && r.r[1] == 3 && r.r[2] == 0x0103F468u && r.r[3] == 0 && r.r[4] == 0,
          "dua0: R0..R4 = %u %u %08X %u %u", r.r[0], r.r[1], r.r[2], r.r[3], r.r[4]);
    CHECK(vmb_boot_device("DUA3", &r, err, sizeof err) == 0 && r.r[3] == 3, "DUA3 is unit 3");
    CHECK(vmb_boot_device("dua4", &r, err, sizeof err) == -1 && strstr(err, "dua0 to dua3"), "dua4: %s", err);
    CHECK(vmb_boot_device("dba0", &r, err, sizeof err) == -1, "dba0 refused");
    CHECK(vmb_boot_device(NULL, &r, err, sizeof err) == -1, "no name");
}

static void test_vmb_load(void)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "machine");
    if (!m)
        return;
    vmb_boot_regs r;
    char err[200];
    vmb_boot_device("dua1", &r, err, sizeof err);
    uint8_t img[1024];
    for (int i = 0; i < 1024; i++)
        img[i] = (uint8_t)(i * 3);
    CHECK(vax_boot_vmb(m, img, sizeof img, &r, 0x10, err, sizeof err) == 0, "boot: %s", err);
    uint8_t back[1024];
    vax_phys_read(m, 0x200, back, sizeof back);
    CHECK(memcmp(back, img, sizeof img) == 0, "the whole image at 0x200");
    CHECK(vax_get_reg(m, 0) == 17 && vax_get_reg(m, 1) == 3 && vax_get_reg(m, 2) == 0x0103F468u &&
              vax_get_reg(m, 3) == 1 && vax_get_reg(m, 4) == 0 && vax_get_reg(m, 5) == 0x10,
          "R0..R5");
    CHECK(vax_get_reg(m, 14) == 0x200 && vax_get_reg(m, 15) == 0x200, "SP = PC = 0x200");
    CHECK(vax_get_psl(m) == BOOT_PSL && vax_get_ipr(m, IPR_MAPEN) == 0, "kernel, IS, IPL 31, unmapped");
    CHECK(vax_boot_vmb(m, img, 0, &r, 0, err, sizeof err) == -1 && strstr(err, "empty"), "empty: %s", err);
    CHECK(vax_boot_vmb(m, img, 1000, &r, 0, err, sizeof err) == -1 && strstr(err, "512"), "truncated: %s", err);
    uint8_t *big = calloc(1, 1u << 20);
    CHECK(big && vax_boot_vmb(m, big, 1u << 20, &r, 0, err, sizeof err) == -1 && strstr(err, "fit"),
          "too big: %s", err);
    free(big);
    vax_destroy(m);
}

typedef struct {
    char out[64];
    int n;
} sink;

static void console_sink(void *ctx, uint8_t ch)
{
    sink *s = ctx;
    if (s->n < 63)
        s->out[s->n++] = (char)ch;
}

/* A guest that sends 'm' on channel 3, 'A' on channel 0 and 'B' on channel
 * 9, and collects what comes back in RXDB. */
static void test_console_channels(void)
{
    char err[200];
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    vax780 *s = vax780_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "system: %s", err);
    if (!s)
        return;
    sink out = {{0}, 0};
    vax780_set_console_output(s, console_sink, &out);
    vax_machine *m = s->m;
    static const uint8_t prog[] = {
        /* 200: */ 0xDA, 0x8F, 0x6D, 0x03, 0x00, 0x00, 0x23,   /* MTPR #0x36D, #TXDB ('m' on channel 3) */
        /* 207: */ 0xDB, 0x20, 0x50,                           /* MFPR #RXCS, R0 */
        /* 20A: */ 0xE1, 0x07, 0x50, 0xF9,                     /* BBC #7, R0, 207 */
        /* 20E: */ 0xDB, 0x21, 0x51,                           /* MFPR #RXDB, R1 */
        /* 211: */ 0xDB, 0x22, 0x50,                           /* MFPR #TXCS, R0 */
        /* 214: */ 0xE1, 0x07, 0x50, 0xF9,                     /* BBC #7, R0, 211 */
        /* 218: */ 0xDA, 0x8F, 0x41, 0x00, 0x00, 0x00, 0x23,   /* MTPR #'A', #TXDB */
        /* 21F: */ 0xDB, 0x22, 0x50,                           /* MFPR #TXCS, R0 */
        /* 222: */ 0xE1, 0x07, 0x50, 0xF9,                     /* BBC #7, R0, 21F */
        /* 226: */ 0xDA, 0x8F, 0x42, 0x09, 0x00, 0x00, 0x23,   /* MTPR #0x942, #TXDB ('B', channel 9) */
        /* 22D: */ 0xDB, 0x22, 0x50,                           /* MFPR #TXCS, R0 */
        /* 230: */ 0xE1, 0x07, 0x50, 0xF9,                     /* BBC #7, R0, 22D */
        /* 234: */ 0x00,                                       /* HALT */
    };
    vax_phys_write(m, 0x200, prog, sizeof prog);
    vax_set_reg(m, 15, 0x200);
    vax_stop_reason st = VAX_STOP_BUDGET;
    for (int i = 0; i < 100 && st == VAX_STOP_BUDGET; i++)
        st = vax_run(m, 10000);
    CHECK(st == VAX_STOP_HALT, "the guest ran to its HALT: %s", vax_stop_reason_name(st));
    CHECK(vax_get_reg(m, 1) == 0x30C, "the answer to 'm': RXDB %03X (channel 3, level 12)", vax_get_reg(m, 1));
    CHECK(out.n == 1 && out.out[0] == 'A', "only channel 0 reached the terminal: \"%s\"", out.out);
    vax780_destroy(s);
}

int main(void)
{
    test_vmb_device_names();
    test_vmb_load();
    test_console_channels();
    return check_summary();
}
