/*
 * test_session — the host session (system/session.h) without a disk: the
 * console's LOAD and START, a program that prints on the console terminal
 * and halts, the output ring (and what it drops when nobody reads it), typed
 * input reaching the program, and the refusals: a second START, LOAD after
 * START, addresses outside memory, boots that need a disk, kernel variables
 * beyond the limit; an RA drive as the boot disk and VMB's start (its
 * registers, its refusals, a reboot through it again).  Booting 4.3BSD
 * through the session is tested by the
 * system tests (emu/tests/system/boot.test.ts, emu/wasm/system.test.ts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/vasm.h"
#include "check.h"
#include "storage/blockdev.h"
#include "storage/overlay.h"
#include "system/session.h"
#include "vax.h"

/* Prints "hello\r\n" through TXCS/TXDB (polling the ready bit), then reads
 * one character from RXCS/RXDB, prints it, and halts. */
static const char *const hello =
    "start:  moval msg, r1\n"
    "next:   movzbl (r1)+, r0\n"
    "        beql input\n"
    "wait:   mfpr #34, r2\n"          /* TXCS */
    "        bbc #7, r2, wait\n"
    "        mtpr r0, #35\n"          /* TXDB */
    "        brb next\n"
    "input:  mfpr #32, r2\n"          /* RXCS */
    "        bbc #7, r2, input\n"
    "        mfpr #33, r0\n"          /* RXDB */
    "wait2:  mfpr #34, r2\n"
    "        bbc #7, r2, wait2\n"
    "        mtpr r0, #35\n"
    "wait3:  mfpr #34, r2\n"          /* let the last character leave */
    "        bbc #7, r2, wait3\n"
    "        halt\n"
    "msg:    .ascii \"hello\\r\\n\"\n"
    "        .byte 0\n";

/* Prints 'x' forever. */
static const char *const chatter =
    "start:  mfpr #34, r2\n"
    "        bbc #7, r2, start\n"
    "        mtpr #120, #35\n"
    "        brb start\n";

static vax_session *make(void)
{
    vax_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 512;
    char err[320];
    vax_session *s = vax_session_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "create without a disk: %s", err);
    return s;
}

static int load(vax_session *s, const char *src, uint32_t base)
{
    vasm_result a;
    int rc = vasm_assemble(src, base, &a);
    CHECK(rc == 0, "assemble: %s (line %d)", a.error, a.error_line);
    if (rc == 0)
        rc = vax_session_console_load(s, base, a.bytes, a.len);
    vasm_free(&a);
    return rc;
}

static void test_load_start_and_console(void)
{
    vax_session *s = make();
    if (!s)
        return;
    CHECK(load(s, hello, 0x1000) == 0, "LOAD: %s", vax_session_error(s));
    CHECK(vax_session_unbootable(s) != NULL, "no hp0: it cannot be booted");
    CHECK(vax_session_console_start(s, 0x1000) == 0, "START: %s", vax_session_error(s));
    CHECK(vax_session_console_start(s, 0x1000) == VAX_SESSION_ERR_INPUT, "a second START is refused");
    CHECK(vax_session_console_load(s, 0x2000, (const uint8_t *)"x", 1) == VAX_SESSION_ERR_INPUT,
          "LOAD after START is refused");
    CHECK(vax_session_type(s, "Q", 1) == 1, "typed");
    int rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++)
        rc = vax_session_run(s, 10000);
    CHECK(rc == VAX_STOP_HALT, "the program halts: %d (%s)", rc, vax_session_stop_detail(s));
    uint8_t buf[64];
    uint32_t n = vax_session_console_read(s, buf, sizeof buf);
    CHECK(n == 8 && !memcmp(buf, "hello\r\nQ", 8), "console output: %.*s (%u bytes)", (int)n, buf, n);
    CHECK(vax_session_console_pending(s) == 0 && vax_session_console_dropped(s) == 0, "nothing more, nothing lost");
    CHECK(vax_session_panic(s) == NULL, "no kernel, no panic");
    CHECK(vax_session_time_ns(s) > 8 * 1040000ull, "9600 baud: 8 characters take over 8 ms of virtual time");
    vax_session_destroy(s);
}

static void test_output_ring_drops_oldest(void)
{
    vax_session *s = make();
    if (!s)
        return;
    load(s, chatter, 0x1000);
    vax_session_console_start(s, 0x1000);
    /* 9600 baud: about 960 characters a virtual second; run well past the ring. */
    while (vax_session_time_ns(s) < 80ull * 1000000000ull)
        if (vax_session_run(s, 1000000) != VAX_STOP_BUDGET)
            break;
    CHECK(vax_session_console_pending(s) == VAX_SESSION_OUTPUT_RING, "the ring is full: %u",
          vax_session_console_pending(s));
    CHECK(vax_session_console_dropped(s) > 0, "the oldest were dropped and counted");
    vax_session_destroy(s);
}

static void test_refusals(void)
{
    vax_session *s = make();
    if (!s)
        return;
    char err[320];
    CHECK(vax_session_console_load(s, 512 * 1024 - 2, (const uint8_t *)"abcd", 4) == VAX_SESSION_ERR_INPUT,
          "a load past the end of memory");
    CHECK(strstr(vax_session_error(s), "do not fit in memory") != NULL, "says why: %s", vax_session_error(s));
    CHECK(vax_session_console_start(s, 512 * 1024) == VAX_SESSION_ERR_INPUT, "a start outside memory");
    CHECK(vax_session_boot_disk(s, 2) == VAX_SESSION_ERR_IMAGE, "no disk to boot");
    CHECK(vax_session_boot_disk(s, 2) == VAX_SESSION_ERR_IMAGE, "a failed boot does not count as the first");
    vax_session_destroy(s);

    s = make();
    if (!s)
        return;
    CHECK(vax_session_boot_kernel(s, 2, "/vmunix") == VAX_SESSION_ERR_IMAGE, "no disk: no kernel");
    CHECK(strstr(vax_session_error(s), "no disk hp0") != NULL, "says why: %s", vax_session_error(s));
    vax_session_destroy(s);

    s = make();
    if (!s)
        return;
    int ok = 0;
    for (int i = 0; i < VAX_SESSION_MAX_SETTINGS + 1; i++)
        ok += vax_session_set_kernel_variable(s, "nbuf", (uint32_t)i, err, sizeof err) == 0;
    CHECK(ok == VAX_SESSION_MAX_SETTINGS, "at most %d kernel variables (%d accepted)", VAX_SESSION_MAX_SETTINGS, ok);
    CHECK(vax_session_set_kernel_variable(s, "", 1, err, sizeof err) < 0, "an empty name is refused");
    CHECK(vax_session_set_ns_per_instruction(s, 0) < 0, "0 ns per instruction is refused");
    CHECK(vax_session_set_ns_per_instruction(s, VAX_NS_PER_INSTRUCTION_750) == 0, "the 750 preset");
    CHECK(vax_session_set_disk_timing(s, "nonsense") < 0, "an unknown disk timing is refused");
    CHECK(vax_session_disk_timing_known("eagle") && !vax_session_disk_timing_known("floppy"), "timing names");
    vax_session_destroy(s);
}

/* A stand-in for VMB (DEC's is not needed here): it counts its starts in
 * memory that INIT keeps, asks the console to reboot (TXDB 0xF02, as
 * 4.3BSD's reboot does) the first time and halts the second. */
static const char *const fake_vmb =
    "start:  incl @#0x10000\n"
    "        cmpl @#0x10000, #2\n"
    "        bgeq done\n"
    "wait:   mfpr #34, r6\n"
    "        bbc #7, r6, wait\n"
    "        mtpr #0xF02, #35\n"
    "spin:   brb spin\n"
    "done:   halt\n";

static void test_ra_boot_disk_and_vmb(void)
{
    static uint8_t nothing[512];
    vax_blockdev base, pack;
    blockdev_memory(&base, nothing, sizeof nothing, 1);
    uint64_t bytes = vax_session_ra_bytes("ra81");
    CHECK(bytes == 891072ull * 512 && !strcmp(vax_session_ra_name("ra81"), "RA81"), "RA81: %llu bytes",
          (unsigned long long)bytes);
    CHECK(vax_session_ra_bytes("RA99") == 0 && vax_session_ra_name("RA99") == NULL, "RA99 is not a drive");
    CHECK(blockdev_overlay_sized(&pack, &base, bytes) == 0, "a blank RA81 pack");
    vax_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    cfg.ra[0].type = "RA81";
    cfg.ra[0].image = &pack;
    char err[320];
    vax_session *s = vax_session_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "create with ra0: %s", err);
    if (!s) {
        blockdev_overlay_destroy(&pack);
        return;
    }
    const char *why = vax_session_unbootable(s);
    CHECK(why != NULL && strstr(why, "no disk") == NULL, "ra0 is the boot disk, blank: %s", why ? why : "(null)");
    CHECK(vax_session_boot_disk(s, 2) == VAX_SESSION_ERR_IMAGE, "no 4.3BSD on the blank pack");

    vasm_result a;
    CHECK(vasm_assemble(fake_vmb, 0x200, &a) == 0, "assemble: %s", a.error);
    uint8_t image[1024];
    memset(image, 0, sizeof image);
    memcpy(image, a.bytes, a.len < sizeof image ? a.len : sizeof image);
    vasm_free(&a);
    CHECK(vax_session_boot_vmb(s, image, sizeof image, "dub0", 0x10) == VAX_SESSION_ERR_INPUT, "dub0 refused");
    CHECK(vax_session_boot_vmb(s, image, sizeof image, "dua1", 0x10) == VAX_SESSION_ERR_INPUT &&
              strstr(vax_session_error(s), "no drive ra1"),
          "dua1 without ra1: %s", vax_session_error(s));
    CHECK(vax_session_boot_vmb(s, image, 700, "dua0", 0x10) == VAX_SESSION_ERR_IMAGE &&
              strstr(vax_session_error(s), "700 bytes"),
          "700 bytes: %s", vax_session_error(s));
    CHECK(vax_session_boot_vmb(s, image, sizeof image, "dua0", 0x10) == 0, "VMB: %s", vax_session_error(s));
    memset(image, 0xFF, sizeof image);   /* the session keeps its own copy */
    vax_machine *m = vax_session_machine(s);
    CHECK(vax_get_reg(m, 0) == 17 && vax_get_reg(m, 1) == 3 && vax_get_reg(m, 2) == 0x0103F468u &&
              vax_get_reg(m, 3) == 0 && vax_get_reg(m, 5) == 0x10 && vax_get_reg(m, 15) == 0x200,
          "the console's registers for dua0, flags 0x10");
    int rc = 0, rebooted = 0;
    for (int i = 0; i < 100 && (rc == VAX_STOP_BUDGET || rc == VAX_SESSION_REBOOTED || rc == 0); i++) {
        rc = vax_session_run(s, 1000);
        rebooted += rc == VAX_SESSION_REBOOTED;
    }
    CHECK(rebooted == 1 && vax_session_reboots(s) == 1, "one reboot, through VMB again (%d)", rebooted);
    CHECK(rc == VAX_STOP_HALT, "the second start halts: %d (%s)", rc, vax_session_stop_detail(s));
    CHECK(vax_get_reg(m, 5) == 0x10, "the reboot kept the flags");
    vax_session_destroy(s);
    blockdev_overlay_destroy(&pack);
}

int main(void)
{
    test_ra_boot_disk_and_vmb();
    test_load_start_and_console();
    test_output_ring_drops_oldest();
    test_refusals();
    return check_summary();
}
