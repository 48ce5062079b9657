/*
 * test_snapshot — machine snapshots (snapshot/snap.h, session.h): a system
 * restored from a snapshot runs on exactly as the saved one does.
 *
 * Without a disk: a program with interval-clock interrupts printing on the
 * console, saved at many points (events pending or not, characters on the
 * wire, input typed and unread); each restored copy and the original run
 * the same number of instructions further and must end in the same state —
 * the same snapshot bytes, which hold every register, device, event,
 * counter and memory byte — and print the same.  Then the refusals: not a
 * snapshot, a damaged one (each byte of a small one changed in turn, with
 * its checksums made right again, must be refused or restored, never
 * crash: the ASan build runs this too), another emulator build, another
 * disk, another configuration, a second boot.
 *
 * With the reference 4.3BSD pack (build/images/43bsd-rp06.dsk, `make
 * images`; skipped without it): booted single-user, saved at the prompt,
 * then the original and a restored copy run the same commands (disk
 * transfers, the DZ11 and TS11 probed at boot, clock, console) and must end
 * with the same output and the same snapshot bytes; and a restored system
 * reboots multi-user as the original does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "asm/vasm.h"
#include "check.h"
#include "snapshot/snap.h"
#include "storage/blockdev.h"
#include "storage/blockdev_file.h"
#include "storage/overlay.h"
#include "system/session.h"
#include "vax.h"

/* The interval clock interrupts every 3 ms (its handler counts the ticks
 * and clears INT); the main loop prints a letter chosen by the tick count,
 * and echoes what is typed, forever. */
static const char *const ticker =
    "start:  movab scb, r1\n"
    "        mtpr r1, #17\n"            /* SCBB */
    "        movab tick, r0\n"
    "        movl r0, 0xC0(r1)\n"       /* interval clock vector */
    "        mtpr #-3000, #25\n"        /* NICR: 3000 us */
    "        mtpr #0x51, #24\n"         /* ICCS: RUN | TRANS | IE */
    "        mtpr #1, #18\n"            /* IPL 1 (on the interrupt stack REI wants IPL > 0) */
    "loop:   mfpr #32, r2\n"            /* RXCS: something typed? */
    "        bbc #7, r2, out\n"
    "        mfpr #33, r3\n"
    "        brb send\n"
    "out:    divl3 #7, ticks, r3\n"
    "        bicl2 #-16, r3\n"
    "        addl2 #97, r3\n"
    "send:   mfpr #34, r2\n"            /* TXCS */
    "        bbc #7, r2, send\n"
    "        mtpr r3, #35\n"
    "        incl count\n"
    "        brb loop\n"
    "        .align 4\n"
    "tick:   incl ticks\n"
    "        mtpr #0xC1, #24\n"         /* clear INT, keep RUN | IE */
    "        rei\n"
    "ticks:  .long 0\n"
    "count:  .long 0\n"
    "        .align 512\n"
    "scb:    .space 512\n";

static vax_session *ticker_session(uint32_t memory_kb)
{
    vax_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = memory_kb;
    char err[320];
    vax_session *s = vax_session_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "create: %s", err);
    return s;
}

static vax_session *ticker_started(void)
{
    vax_session *s = ticker_session(512);
    if (!s)
        return NULL;
    vasm_result a;
    int rc = vasm_assemble(ticker, 0x1000, &a);
    CHECK(rc == 0, "assemble: %s (line %d)", a.error, a.error_line);
    if (rc == 0) {
        CHECK(vax_session_console_load(s, 0x1000, a.bytes, a.len) == 0, "LOAD: %s", vax_session_error(s));
        CHECK(vax_session_console_start(s, 0x1000) == 0, "START: %s", vax_session_error(s));
    }
    vasm_free(&a);
    return s;
}

/* Run n instructions in slices of `slice`, keeping what is printed. */
static void run_for(vax_session *s, uint64_t n, uint64_t slice, char *out, size_t cap, size_t *len)
{
    while (n) {
        uint64_t k = n < slice ? n : slice;
        int rc = vax_session_run(s, k);
        CHECK(rc == VAX_STOP_BUDGET, "run: %d (%s)", rc, vax_session_stop_detail(s));
        if (rc != VAX_STOP_BUDGET)
            return;
        n -= k;
        uint32_t got = vax_session_console_read(s, (uint8_t *)out + *len, (uint32_t)(cap - 1 - *len));
        *len += got;
        out[*len] = 0;
    }
}

static uint8_t *save(vax_session *s, size_t *len, const char *host)
{
    uint8_t *snap = vax_session_snapshot(s, NULL, (const uint8_t *)host, host ? (uint32_t)strlen(host) : 0, len);
    CHECK(snap != NULL, "snapshot: %s", vax_session_error(s));
    return snap;
}

static void test_restored_runs_on_alike(void)
{
    /* Save points: right after START, then at uneven instruction counts
     * (the console transmitting or idle, a tick due soon or just taken). */
    static const uint64_t at[] = {0, 1, 7, 1001, 12345, 99999, 250003, 777777};
    for (size_t p = 0; p < sizeof at / sizeof at[0]; p++) {
        vax_session *a = ticker_started();
        if (!a)
            return;
        char out_a[16384] = "", out_b[16384] = "";
        size_t la = 0, lb = 0;
        run_for(a, at[p], 4096, out_a, sizeof out_a, &la);
        if (p % 2)
            vax_session_type(a, "typed", 5);   /* input queued, not yet read: part of the state */
        size_t n, base = la;   /* what a prints from here on, b must print */
        uint8_t *snap = save(a, &n, "host bytes");
        vax_session *b = ticker_session(512);
        if (!snap || !b) {
            free(snap);
            vax_session_destroy(a);
            vax_session_destroy(b);
            return;
        }
        CHECK(vax_session_restore(b, snap, n, NULL, VAX_SESSION_BOOT_STANDALONE, 0) == 0, "restore at %llu: %s",
              (unsigned long long)at[p], vax_session_error(b));
        uint32_t hl;
        const uint8_t *h = vax_session_restored_host(b, &hl);
        CHECK(hl == 10 && !memcmp(h, "host bytes", 10), "the host's bytes come back");
        /* Different slices on each side: a slice boundary changes nothing. */
        run_for(a, 400000, 65536, out_a, sizeof out_a, &la);
        run_for(b, 400000, 30011, out_b, sizeof out_b, &lb);
        CHECK(lb > 100 && la - base == lb && !memcmp(out_a + base, out_b, lb),
              "the same output after restoring at %llu (%zu, %zu)", (unsigned long long)at[p], la - base, lb);
        CHECK(vax_session_time_ns(a) == vax_session_time_ns(b), "the same virtual time at %llu",
              (unsigned long long)at[p]);
        CHECK(vax_state_digest(vax_session_machine(a)) == vax_state_digest(vax_session_machine(b)),
              "the same digest at %llu", (unsigned long long)at[p]);
        size_t na, nb;
        uint8_t *sa = save(a, &na, NULL), *sb = save(b, &nb, NULL);
        CHECK(sa && sb && na == nb && !memcmp(sa, sb, na), "the same state, byte for byte, after restoring at %llu",
              (unsigned long long)at[p]);
        free(sa);
        free(sb);
        free(snap);
        vax_session_destroy(a);
        vax_session_destroy(b);
    }
}

static void set_crcs(uint8_t *snap, size_t len)
{
    uint32_t c = snap_crc32(0, snap + SNAP_HEADER_BYTES, len - SNAP_HEADER_BYTES);
    for (int i = 0; i < 4; i++)
        snap[88 + i] = (uint8_t)(c >> (8 * i));
    c = snap_crc32(0, snap, 92);
    for (int i = 0; i < 4; i++)
        snap[92 + i] = (uint8_t)(c >> (8 * i));
}

static int restore_into_new(const uint8_t *snap, size_t len, uint32_t memory_kb, const uint8_t *disk_id, char *why,
                            size_t whylen)
{
    vax_session *b = ticker_session(memory_kb);
    if (!b)
        return -99;
    int rc = vax_session_restore(b, snap, len, disk_id, VAX_SESSION_BOOT_STANDALONE, 0);
    snprintf(why, whylen, "%s", vax_session_error(b));
    if (rc == 0) {   /* whatever was restored must run without harm */
        for (int i = 0; i < 4 && vax_session_run(b, 5000) == VAX_STOP_BUDGET; i++)
            ;
    }
    vax_session_destroy(b);
    return rc;
}

static void test_refusals(void)
{
    vax_session *a = ticker_started();
    if (!a)
        return;
    char out[4096];
    size_t len = 0;
    run_for(a, 50000, 50000, out, sizeof out, &len);
    size_t n;
    uint8_t *snap = save(a, &n, NULL);
    if (!snap) {
        vax_session_destroy(a);
        return;
    }
    char why[320];
    uint8_t *bad = malloc(n);
    if (!bad) {
        free(snap);
        vax_session_destroy(a);
        return;
    }

    CHECK(restore_into_new((const uint8_t *)"hello", 5, 512, NULL, why, sizeof why) == VAX_SESSION_ERR_IMAGE &&
              strstr(why, "not a vaxlab machine snapshot"),
          "not a snapshot: %s", why);
    CHECK(restore_into_new(snap, n - 1, 512, NULL, why, sizeof why) == VAX_SESSION_ERR_IMAGE && strstr(why, "damaged"),
          "a short one: %s", why);
    memcpy(bad, snap, n);
    bad[n / 2] ^= 0x40;
    CHECK(restore_into_new(bad, n, 512, NULL, why, sizeof why) == VAX_SESSION_ERR_IMAGE && strstr(why, "checksum"),
          "a changed byte: %s", why);
    memcpy(bad, snap, n);
    bad[20] ^= 1;   /* the build's identity */
    set_crcs(bad, n);
    CHECK(restore_into_new(bad, n, 512, NULL, why, sizeof why) == VAX_SESSION_ERR_IMAGE &&
              strstr(why, "another emulator build"),
          "another build: %s", why);
    uint8_t other_disk[SNAP_ID_BYTES];
    memset(other_disk, 0xAB, sizeof other_disk);
    CHECK(restore_into_new(snap, n, 512, other_disk, why, sizeof why) == VAX_SESSION_ERR_IMAGE &&
              strstr(why, "another disk image"),
          "another disk: %s", why);
    CHECK(restore_into_new(snap, n, 1024, NULL, why, sizeof why) == VAX_SESSION_ERR_INPUT && strstr(why, "memory bytes"),
          "another memory size: %s", why);
    vax_session *b = ticker_session(512);
    if (b) {
        CHECK(vax_session_restore(b, snap, n, NULL, VAX_SESSION_BOOT_DISK, 2) == VAX_SESSION_ERR_INPUT &&
                  strstr(vax_session_error(b), "how the system was booted"),
              "another boot: %s", vax_session_error(b));
        vax_session_destroy(b);
    }
    CHECK(vax_session_restore(a, snap, n, NULL, VAX_SESSION_BOOT_STANDALONE, 0) == VAX_SESSION_ERR_INPUT,
          "a booted system takes no snapshot");

    /* Every byte of the payload changed in turn (with its checksums made
     * right): refused with a message, or restored into something that runs;
     * never a crash.  The snapshot is cut down to its memory's start (most
     * of it is the 512 KB memory's pages, which any value fits). */
    int refused = 0, restored = 0;
    for (size_t k = 0; k < 3000; k++) {
        /* The first 4500 bytes (the processor, the TB) densely, then points all over. */
        size_t i = SNAP_HEADER_BYTES + (k < 1500 ? 3 * k : 4500 + (k - 1500) * ((n - SNAP_HEADER_BYTES - 4500) / 1500));
        if (i >= n)
            break;
        memcpy(bad, snap, n);
        bad[i] = (uint8_t)(bad[i] + 1 + (i % 251));
        set_crcs(bad, n);
        int rc = restore_into_new(bad, n, 512, NULL, why, sizeof why);
        if (rc == 0)
            restored++;
        else if (why[0])
            refused++;
        else
            CHECK(0, "byte %zu: refused without a message", i);
    }
    CHECK(refused > 50 && restored > 100, "damaged snapshots: %d refused, %d restored", refused, restored);
    free(bad);
    free(snap);
    vax_session_destroy(a);
}

/* ------------------------------------------------------------ 4.3BSD */

typedef struct {
    blockdev_file file;
    vax_blockdev over;
    vax_session *s;
    char out[1 << 16];
    size_t len;
} bsd;

static int bsd_open(bsd *b, const char *image)
{
    char err[320];
    memset(b, 0, sizeof *b);
    if (blockdev_file_open(&b->file, image, 1, err, sizeof err) != 0) {
        CHECK(0, "%s: %s", image, err);
        return -1;
    }
    if (blockdev_overlay(&b->over, &b->file.bd) != 0) {
        CHECK(0, "overlay");
        return -1;
    }
    vax_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 4608;
    cfg.cpu_model = 750;
    cfg.disk_spin_seed = 1;
    cfg.disk[0].type = "RP06";
    cfg.disk[0].image = &b->over;
    b->s = vax_session_create(&cfg, err, sizeof err);
    CHECK(b->s != NULL, "create: %s", err);
    return b->s ? 0 : -1;
}

static void bsd_close(bsd *b)
{
    vax_session_destroy(b->s);
    blockdev_overlay_destroy(&b->over);
    blockdev_file_close(&b->file);
}

/* Run 200,000-instruction slices until the output since `from` holds text. */
static int bsd_expect(bsd *b, size_t *from, const char *text, double seconds)
{
    uint64_t until = vax_session_time_ns(b->s) + (uint64_t)(seconds * 1e9);
    for (;;) {
        char *hit = strstr(b->out + *from, text);
        if (hit) {
            *from = (size_t)(hit - b->out) + strlen(text);
            return 0;
        }
        if (vax_session_time_ns(b->s) > until)
            return -1;
        int rc = vax_session_run(b->s, 200000);
        if (rc != VAX_STOP_BUDGET && rc != VAX_SESSION_REBOOTED)
            return -1;
        b->len += vax_session_console_read(b->s, (uint8_t *)b->out + b->len, (uint32_t)(sizeof b->out - 1 - b->len));
        b->out[b->len] = 0;
        if (b->len > sizeof b->out - 4096) {   /* keep the tail */
            size_t cut = b->len - 8192 < *from ? b->len - 8192 : *from;
            memmove(b->out, b->out + cut, b->len - cut + 1);
            b->len -= cut;
            *from -= cut;
        }
    }
}

static int bsd_commands(bsd *b, size_t *from)
{
    static const char *const lines[] = {"mount /dev/hp0g /usr", "ls -l /etc /usr/lab/bin", "date",
                                        "ls -l /vmunix", "echo hello > /tmp/x; cat /tmp/x; sync"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        vax_session_type(b->s, lines[i], (uint32_t)strlen(lines[i]));
        vax_session_type(b->s, "\r", 1);
        if (bsd_expect(b, from, "\n# ", 120) != 0)
            return -1;
    }
    return 0;
}

static void test_bsd(const char *image)
{
    struct stat st;
    if (stat(image, &st) != 0) {
        printf("reference image %s not present: skipped the 4.3BSD snapshot tests (make images)\n", image);
        return;
    }
    uint8_t id[SNAP_ID_BYTES];
    memset(id, 0x43, sizeof id);   /* the host's name for the pack: any 32 bytes */
    bsd a, b;
    if (bsd_open(&a, image) != 0)
        return;
    char err[320];
    CHECK(vax_session_set_kernel_variable(a.s, "nchsize", 100, err, sizeof err) == 0, "set: %s", err);
    CHECK(vax_session_boot_kernel(a.s, 2, "/vmunix") == 0, "boot: %s", vax_session_error(a.s));
    size_t from_a = 0;
    CHECK(bsd_expect(&a, &from_a, "\n# ", 300) == 0, "single-user prompt: %s", a.out);
    size_t n, base = a.len;   /* a's output from here on is what b prints */
    uint8_t *snap = vax_session_snapshot(a.s, id, NULL, 0, &n);
    CHECK(snap != NULL, "snapshot at the prompt: %s", vax_session_error(a.s));
    printf("4.3BSD single-user at the prompt, 4.5 MB: a snapshot of %zu bytes\n", n);
    if (!snap || bsd_open(&b, image) != 0) {
        free(snap);
        bsd_close(&a);
        return;
    }
    CHECK(vax_session_restore(b.s, snap, n, id, VAX_SESSION_BOOT_KERNEL, 2) == VAX_SESSION_ERR_INPUT &&
              strstr(vax_session_error(b.s), "kernel variables"),
          "another kernel setting is refused: %s", vax_session_error(b.s));
    bsd_close(&b);
    bsd_open(&b, image);
    vax_session_set_kernel_variable(b.s, "nchsize", 100, err, sizeof err);
    CHECK(vax_session_restore(b.s, snap, n, id, VAX_SESSION_BOOT_KERNEL, 2) == 0, "restore: %s",
          vax_session_error(b.s));
    size_t from_b = 0;
    CHECK(bsd_commands(&a, &from_a) == 0 && bsd_commands(&b, &from_b) == 0, "commands ran: %s", b.out);
    CHECK(a.len - base == b.len && !memcmp(a.out + base, b.out, b.len), "the same output:\n%s\n---\n%s",
          a.out + base, b.out);
    CHECK(strstr(a.out, "hello") != NULL, "the commands printed: %s", a.out);
    size_t na, nb;
    uint8_t *sa = vax_session_snapshot(a.s, id, NULL, 0, &na), *sb = vax_session_snapshot(b.s, id, NULL, 0, &nb);
    CHECK(sa && sb && na == nb && !memcmp(sa, sb, na), "the same state, byte for byte, after the commands");
    free(sa);
    free(sb);

    /* A restored system reboots as the original: multi-user, its kernel and
     * variables again. */
    static const char reboot[] = "reboot\r";
    vax_session_type(a.s, reboot, 7);
    vax_session_type(b.s, reboot, 7);
    CHECK(bsd_expect(&a, &from_a, "login: ", 300) == 0 && bsd_expect(&b, &from_b, "login: ", 300) == 0,
          "multi-user after the reboot: %s", b.out);
    CHECK(vax_session_reboots(a.s) == 1 && vax_session_reboots(b.s) == 1, "one reboot each");
    CHECK(vax_session_time_ns(a.s) == vax_session_time_ns(b.s) &&
              vax_state_digest(vax_session_machine(a.s)) == vax_state_digest(vax_session_machine(b.s)),
          "the same state after the reboot");
    free(snap);
    bsd_close(&a);
    bsd_close(&b);
}

int main(int argc, char **argv)
{
    test_restored_runs_on_alike();
    test_refusals();
    const char *ref = getenv("VAXLAB_REF_IMAGE");
    test_bsd(argc > 1 ? argv[1] : ref && *ref ? ref : "build/images/43bsd-rp06.dsk");
    return check_summary();
}
