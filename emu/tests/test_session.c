/*
 * test_session — the host session (system/session.h) without a disk: the
 * console's LOAD and START, a program that prints on the console terminal
 * and halts, the output ring (and what it drops when nobody reads it), typed
 * input reaching the program, and the refusals: a second START, LOAD after
 * START, addresses outside memory, boots that need a disk, kernel variables
 * beyond the limit.  Booting 4.3BSD through the session is tested by the
 * system tests (emu/tests/system/boot.test.ts, emu/wasm/system.test.ts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/vasm.h"
#include "check.h"
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
    CHECK(vax_session_hp0_unbootable(s) != NULL, "no hp0: it cannot be booted");
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

int main(void)
{
    test_load_start_and_console();
    test_output_ring_drops_oldest();
    test_refusals();
    return check_summary();
}
