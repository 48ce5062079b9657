/*
 * vax780_wasm.c — the whole VAX-11/780 (system/vax780.h) for the
 * WebAssembly build: create a system with one disk held in wasm memory,
 * boot 4.3BSD from it, run, type on the console and collect its output.
 *
 * No globals: everything lives in a heap-allocated vax780w context whose
 * pointer JavaScript holds (web/src/emulator/vaxModule.ts, Vax780).
 *
 * The disk: an "image" is the pristine pack, a buffer JavaScript gets from
 * vax780w_image_alloc and fills (in one copy, or chunk by chunk as a
 * download decompresses).  Any number of systems share one image without
 * owning it: each system's hp0 is a copy-on-write overlay over it
 * (system/overlay.h), so guest writes land in the system's own chunks and
 * the image never changes.  JavaScript frees the image (vax780w_image_free)
 * only after the last system using it is destroyed.
 *
 * Reboot: when the kernel asks the console to reboot (reboot(8)), the run
 * stops with VAX_STOP_HOST_REQUEST; vax780w_run then does what the CLI
 * (tools/vax780.c) does — console INIT and a multi-user boot the same way
 * as the first one, settings included — and reports VAX780W_REBOOTED.
 */
#include <emscripten/emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/kernelvars.h"
#include "machine.h"
#include "system/overlay.h"
#include "system/vax780.h"
#include "system/vax780_stats.h"
#include "vax.h"

#define VAX780W_MAX_SETTINGS 32
#define VAX780W_NAME_MAX 64
#define VAX780W_OUT_RING 65536u   /* console output kept until JavaScript drains it */

/* vax780w_run's result: a vax_stop_reason, or this when the guest rebooted
 * itself (not a stop: keep running). */
#define VAX780W_REBOOTED 100

typedef struct {
    vax780 *sys;
    vax_blockdev image;   /* read-only, over the shared image's bytes */
    vax_blockdev disk;    /* hp0: this system's overlay over image */
    boot_method method;
    uint32_t howto;
    uint8_t *kernel;      /* vax780w_set_kernel: the kernel to boot instead of /vmunix, or NULL */
    uint32_t kernel_len;
    int nset;
    char set_name[VAX780W_MAX_SETTINGS][VAX780W_NAME_MAX];
    uint32_t set_value[VAX780W_MAX_SETTINGS];
    uint8_t out[VAX780W_OUT_RING];
    uint32_t out_head, out_count;   /* ring buffer of console output */
    uint64_t out_dropped;           /* bytes lost because JavaScript did not drain in time */
    uint64_t out_total;             /* bytes ever written by the console */
    uint32_t reboots;
    char err[256];
} vax780w;

static void console_out(void *ctx, uint8_t ch)
{
    vax780w *w = ctx;
    if (ch == 0)   /* the CLI drops NULs (the kernel's fill characters) too */
        return;
    w->out_total++;
    if (w->out_count == VAX780W_OUT_RING) {   /* full: drop the oldest */
        w->out_head = (w->out_head + 1) % VAX780W_OUT_RING;
        w->out_count--;
        w->out_dropped++;
    }
    w->out[(w->out_head + w->out_count) % VAX780W_OUT_RING] = ch;
    w->out_count++;
}

/* The CPU preset (the CLI's --cpu): the cost model's scale, 2000 for a 780
 * (its costs as they are), 3333 for a 750 (1/0.6 of them; cpu/timing.h).  Only before the first instruction (before or just
 * after vax780w_boot, which runs none): changing it later would rescale the
 * time already elapsed.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_ns_per_instruction(vax780w *w, uint32_t ns)
{
    if (ns == 0 || ns > 1000000) {
        snprintf(w->err, sizeof w->err, "ns per instruction %u: 1 to 1000000", ns);
        return -1;
    }
    if (vax_instruction_count(w->sys->m) != 0) {
        snprintf(w->err, sizeof w->err, "ns per instruction: only before the first instruction");
        return -1;
    }
    machine_set_ns_per_instruction(w->sys->m, ns);
    return 0;
}

/* The disk's timing profile (the CLI's --disk-timing): "rp06" (the RP06's
 * own figures, the default), "eagle" (a Fujitsu M2351 Eagle) or "ideal" (no
 * seek or rotational latency: not a real drive); the geometry and the pack
 * stay the RP06's (massbus/rp.c, "Timing profiles").  Only before the first
 * instruction, like vax780w_set_ns_per_instruction: a run is timed by one
 * disk from power-on.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_disk_timing(vax780w *w, const char *profile)
{
    if (vax_instruction_count(w->sys->m) != 0) {
        snprintf(w->err, sizeof w->err, "disk timing: only before the first instruction");
        return -1;
    }
    return vax780_set_disk_timing(w->sys, profile, w->err, sizeof w->err) < 0 ? -1 : 0;
}

/* The last error message (boot, settings); "" if none. */
EMSCRIPTEN_KEEPALIVE const char *vax780w_error(vax780w *w)
{
    return w ? w->err : "";
}

/* A buffer of size bytes for a disk image, for JavaScript to fill (its
 * contents are undefined until then), or NULL.  Separate from _malloc so
 * that what an image is stays the C side's business. */
EMSCRIPTEN_KEEPALIVE uint8_t *vax780w_image_alloc(uint32_t size)
{
    return size ? malloc(size) : NULL;
}

/* Free an image from vax780w_image_alloc; no system may still use it. */
EMSCRIPTEN_KEEPALIVE void vax780w_image_free(uint8_t *image)
{
    free(image);
}

/* Create a 780 with memory_kb KB (a multiple of 256, 256..65536) and an RP06 hp0: a copy-on-write overlay
 * over the image's image_len bytes, which stay the caller's (they are
 * never written; keep them until vax780w_destroy).  method: 0 = via /boot,
 * 1 = direct kernel; howto: the boot flags (RB_SINGLE 2, 0 multi).  The
 * system is not booted yet: add settings, then vax780w_boot.  Returns NULL
 * on failure, with a message in err (errlen bytes, a buffer of the
 * caller's). */
EMSCRIPTEN_KEEPALIVE vax780w *vax780w_create(uint32_t memory_kb, uint8_t *image, uint32_t image_len,
                                             uint32_t method, uint32_t howto, char *err, uint32_t errlen)
{
    if (errlen)
        err[0] = 0;
    if (method > 1) {
        snprintf(err, errlen, "boot method %u: 0 (via /boot) or 1 (direct)", method);
        return NULL;
    }
    vax780w *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    blockdev_memory(&w->image, image, image_len, 1);
    if (blockdev_overlay(&w->disk, &w->image) < 0) {
        snprintf(err, errlen, "out of memory for the disk overlay");
        free(w);
        return NULL;
    }
    w->method = method ? BOOT_DIRECT_KERNEL : BOOT_VIA_BOOT_PROGRAM;
    w->howto = howto;
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = memory_kb;
    cfg.disk[0].type = "RP06";
    cfg.disk[0].image = &w->disk;
    if (boot_todr_from_disk(&w->disk, &cfg.todr_initial, err, errlen) < 0 ||
        !(w->sys = vax780_create(&cfg, err, errlen))) {
        blockdev_overlay_destroy(&w->disk);
        free(w);
        return NULL;
    }
    vax780_set_console_output(w->sys, console_out, w);
    return w;
}

/* Frees the system and its overlay; the image is the caller's. */
EMSCRIPTEN_KEEPALIVE void vax780w_destroy(vax780w *w)
{
    if (!w)
        return;
    vax780_destroy(w->sys);
    blockdev_overlay_destroy(&w->disk);
    free(w->kernel);
    free(w);
}

/* Bytes of hp0 this system holds privately (the overlay's written chunks). */
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_dirty_bytes(vax780w *w)
{
    return blockdev_overlay_dirty_bytes(&w->disk);
}

/* Patch the kernel variable _name to value at every (direct) boot.
 * Returns 0, or -1 (too many, name too long, not a direct boot). */
EMSCRIPTEN_KEEPALIVE int vax780w_add_setting(vax780w *w, const char *name, uint32_t value)
{
    size_t n = strlen(name);
    if (w->method != BOOT_DIRECT_KERNEL) {
        snprintf(w->err, sizeof w->err, "kernel settings need a direct boot (the host loads the kernel)");
        return -1;
    }
    if (n == 0 || n >= VAX780W_NAME_MAX || w->nset >= VAX780W_MAX_SETTINGS) {
        snprintf(w->err, sizeof w->err, "setting \"%.64s\": names of 1 to %d characters, at most %d settings",
                 name, VAX780W_NAME_MAX - 1, VAX780W_MAX_SETTINGS);
        return -1;
    }
    memcpy(w->set_name[w->nset], name, n + 1);
    w->set_value[w->nset++] = value;
    return 0;
}

/* Boot this kernel, an a.out file of len bytes (copied), instead of
 * /vmunix from the disk: e.g. one of the kernel variants the installer
 * builds (web/public/images/43bsd-kernel-NAME.gz, gunzipped).  Only for a
 * direct boot, before vax780w_boot; the settings and vax780w_kernel_symbols
 * then use this kernel's symbol table, and a reboot boots it again.
 * Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_kernel(vax780w *w, const uint8_t *bytes, uint32_t len)
{
    if (w->method != BOOT_DIRECT_KERNEL) {
        snprintf(w->err, sizeof w->err, "a kernel from the host needs a direct boot");
        return -1;
    }
    if (vax_instruction_count(w->sys->m) != 0) {
        snprintf(w->err, sizeof w->err, "the kernel: only before the first instruction");
        return -1;
    }
    uint8_t *copy = len ? malloc(len) : NULL;
    if (!copy) {
        snprintf(w->err, sizeof w->err, "kernel of %u bytes: out of memory", len);
        return -1;
    }
    memcpy(copy, bytes, len);
    free(w->kernel);
    w->kernel = copy;
    w->kernel_len = len;
    return 0;
}

static int do_boot(vax780w *w, uint32_t howto)
{
    if (w->kernel) {
        if (vax_boot_kernel_image(w->sys->m, w->kernel, w->kernel_len, "kernel", howto, 0, NULL, w->err,
                                  sizeof w->err) < 0)
            return -1;
    } else if (vax_boot(w->sys->m, &w->disk, "RP06", w->method, howto, 0, "/vmunix", w->err, sizeof w->err) < 0) {
        return -1;
    }
    if (w->method == BOOT_DIRECT_KERNEL && w->nset) {
        boot_kernel_setting set[VAX780W_MAX_SETTINGS];
        for (int i = 0; i < w->nset; i++) {
            set[i].name = w->set_name[i];
            set[i].value = w->set_value[i];
            set[i].old = 0;
        }
        int rc = w->kernel ? boot_set_kernel_variables_image(w->sys->m, w->kernel, w->kernel_len, "kernel", set,
                                                             w->nset, w->err, sizeof w->err)
                           : boot_set_kernel_variables(w->sys->m, &w->disk, "/vmunix", set, w->nset, w->err,
                                                       sizeof w->err);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Boot with the flags given to vax780w_create.  Returns 0 or -1 (message:
 * vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_boot(vax780w *w)
{
    w->err[0] = 0;
    return do_boot(w, w->howto);
}

/* vax_run for at most n instructions; a reboot request is handled as the
 * CLI handles it (INIT, then a multi-user boot) and reported as
 * VAX780W_REBOOTED (or -1 if that boot failed: vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_run(vax780w *w, uint64_t n)
{
    vax_stop_reason r = vax_run(w->sys->m, n);
    if (r == VAX_STOP_HOST_REQUEST && w->sys->reboot_requested) {
        vax780_init(w->sys);
        w->reboots++;
        if (do_boot(w, 0) < 0)   /* the console restarts the system multi-user */
            return -1;
        return VAX780W_REBOOTED;
    }
    return (int)r;
}

EMSCRIPTEN_KEEPALIVE const char *vax780w_stop_detail(vax780w *w)
{
    return vax_stop_detail(w->sys->m);
}

/* Queue typed characters; returns how many fitted (CONSOLE_INPUT_MAX pending at most). */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_type(vax780w *w, const char *text, uint32_t len)
{
    return vax780_console_type(w->sys, text, len);
}

/* Move up to max bytes of console output (oldest first) to buf; returns how many. */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_console_read(vax780w *w, uint8_t *buf, uint32_t max)
{
    uint32_t n = 0;
    while (n < max && w->out_count) {
        uint32_t chunk = VAX780W_OUT_RING - w->out_head;
        if (chunk > w->out_count)
            chunk = w->out_count;
        if (chunk > max - n)
            chunk = max - n;
        memcpy(buf + n, w->out + w->out_head, chunk);
        n += chunk;
        w->out_head = (w->out_head + chunk) % VAX780W_OUT_RING;
        w->out_count -= chunk;
    }
    return n;
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_console_pending(vax780w *w) { return w->out_count; }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_console_dropped(vax780w *w) { return w->out_dropped; }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_time_ns(vax780w *w) { return machine_time_ns(w->sys->m); }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_instruction_count(vax780w *w) { return vax_instruction_count(w->sys->m); }
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_reboots(vax780w *w) { return w->reboots; }
/* The underlying vax_machine, for the bare-machine functions of vax.h. */
EMSCRIPTEN_KEEPALIVE vax_machine *vax780w_machine(vax780w *w) { return w->sys->m; }

/* Addresses of kernel symbols (names with their underscore, separated by
 * newlines) from /vmunix's symbol table on the disk (or the kernel of
 * vax780w_set_kernel's): out[i] = address, or
 * 0 when the kernel lacks the symbol.  The runner reads the kernel's own
 * statistics (_cnt, _cp_time, _nchstats...) at these addresses.  Returns
 * how many were found, or -1 (message: vax780w_error). */
#define VAX780W_MAX_SYMBOLS 64
EMSCRIPTEN_KEEPALIVE int vax780w_kernel_symbols(vax780w *w, char *names, uint32_t *out, uint32_t n)
{
    const char *name[VAX780W_MAX_SYMBOLS];
    if (n > VAX780W_MAX_SYMBOLS) {
        snprintf(w->err, sizeof w->err, "at most %d symbols at once", VAX780W_MAX_SYMBOLS);
        return -1;
    }
    char *p = names;
    for (uint32_t i = 0; i < n; i++) {   /* split in place: the buffer is the caller's scratch */
        name[i] = p;
        char *nl = strchr(p, '\n');
        if (nl) {
            *nl = 0;
            p = nl + 1;
        } else {
            p += strlen(p);
        }
    }
    int found = w->kernel ? boot_lookup_kernel_symbols_image(w->kernel, w->kernel_len, "kernel", name, out, (int)n,
                                                             w->err, sizeof w->err)
                          : boot_lookup_kernel_symbols(&w->disk, "/vmunix", name, out, (int)n, w->err, sizeof w->err);
    return found < 0 ? -1 : found;
}

/* The hardware model's counters (system/vax780_stats.h): up to max of them
 * as uint64 into out, in the order of vax780w_stats_names().  Returns how
 * many counters there are (read them all with max at least that). */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_stats(vax780w *w, uint64_t *out, uint32_t max)
{
    return (uint32_t)vax780_stats_flat(w->sys, out, max);
}

/* The counters' names, comma-separated, in array order (a constant). */
EMSCRIPTEN_KEEPALIVE const char *vax780w_stats_names(void) { return vax780_stats_names(); }
