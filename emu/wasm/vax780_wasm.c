/*
 * vax780_wasm.c — the whole VAX-11/780 (system/vax780.h) for the
 * WebAssembly build: create a system with one disk held in wasm memory,
 * boot 4.3BSD from it, run, type on the console and collect its output.
 *
 * No globals: everything lives in a heap-allocated vax780w context whose
 * pointer JavaScript holds (emu/js/vax780.ts, Vax780System).
 *
 * The disk: an "image" is the pristine pack, a buffer JavaScript gets from
 * vax780w_image_alloc and fills (in one copy, or chunk by chunk as a
 * download decompresses).  Any number of systems share one image without
 * owning it: each system's hp0 is a copy-on-write overlay over it
 * (storage/overlay.h), so guest writes land in the system's own chunks and
 * the image never changes.  JavaScript frees the image (vax780w_image_free)
 * only after the last system using it is destroyed.
 *
 * The disk may instead be an RA drive on the UDA50 (vax780w_create_ra): ra0,
 * its overlay as long as the pack (an image shorter than the pack is its
 * start, the rest zeros: DEC's diagnostic disk), 4.3BSD booted from it with
 * R10 = ra; and instead of /boot such a system may boot as the 780 console's
 * BOOT command does, through DEC's VMB (vax780w_set_vmb; boot/vmb.h).
 *
 * Or the image is a chunked one (vax780w_chunked_open; storage/chunked.h):
 * the compressed file in wasm memory, each 64 KB chunk decompressed the
 * first time a system reads it and kept for every system over that image
 * (vax780w_create_chunked), so the 174 MB pack is never decompressed whole.
 *
 * Instead of booting, a system may be restored from a machine snapshot
 * (vax780w_restore; snapshot/snap.h, system/session.h) that another system
 * over the same image saved (vax780w_snapshot): created with the same
 * settings, it takes the saved state and runs on exactly as that one would
 * have.  The snapshot names the image by an identity the host gives (32
 * bytes: the pack's SHA-256), and a restore over another image is refused.
 *
 * Or the image stays in JavaScript memory (vax780w_create_js): a
 * SharedArrayBuffer that the workers of a sweep share, one copy of the pack
 * for all of them instead of one in each worker's wasm memory.  The overlay
 * then reads its clean chunks through vax780w_js_image_read, an import that
 * copies the bytes asked for into wasm memory (emu/js/diskImage.ts).
 *
 * Booting, reboots (console INIT and a multi-user boot the same way as the
 * first one, settings included: VAX780W_REBOOTED), panics (known from the
 * kernel's panicstr: VAX780W_PANICKED, message from vax780w_panic), the
 * console's output ring and the counters are the session's
 * (system/session.h), the same code the command-line machine runs.
 */
#include <emscripten/emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "storage/chunked.h"
#include "storage/overlay.h"
#include "system/session.h"
#include "vax.h"

/* vax780w_run's results beyond a vax_stop_reason (session.h). */
#define VAX780W_REBOOTED VAX_SESSION_REBOOTED
#define VAX780W_PANICKED VAX_SESSION_PANICKED

typedef struct {
    vax_session *s;
    vax_blockdev image;   /* read-only, over the shared image's bytes (or JavaScript's) */
    uint32_t js_source;   /* vax780w_create_js: JavaScript's number for its image, else 0 */
    vax_blockdev disk;    /* hp0 or ra0: this system's overlay over image */
    vax_blockdev disk1;   /* hp1 (vax780w_add_second_drive): another overlay over image */
    int second;           /* hp1 is attached */
    int diskless;         /* created without a disk (vax780w_console_load/start) */
    int direct;           /* boot the kernel from the host (not through /boot) */
    int ra;               /* the disk is ra0 on the UDA50 */
    uint32_t howto;
    uint8_t *vmb;         /* DEC's VMB to boot through (vax780w_set_vmb), or NULL */
    uint32_t vmb_len, vmb_flags;
    char *profile;        /* the last vax780w_profile_json, kept until the next or destroy */
    size_t profile_len;
    uint8_t *snapshot;    /* the last vax780w_snapshot, kept until the next, _snapshot_free or destroy */
    size_t snapshot_len;
    char err[320];
} vax780w;

/* The cost model's scale (ns / 2000): 2000 runs the model's costs as they
 * are (both processor models, vax780w_set_cpu_model); 3333 on the 780 model
 * is the old "a 750 is 0.6 of a 780" preset.
 * Only before the first instruction (before or just after vax780w_boot,
 * which runs none): changing it later would rescale the time already
 * elapsed.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_ns_per_instruction(vax780w *w, uint32_t ns)
{
    return vax_session_set_ns_per_instruction(w->s, ns);
}

/* The disk's timing profile (the CLI's --disk-timing): "rp06" (the RP06's
 * own figures, the default), "eagle" (a Fujitsu M2351 Eagle) or "ideal" (no
 * seek or rotational latency: not a real drive); the geometry and the pack
 * stay the RP06's (massbus/rp.c, "Timing profiles").  Only before the first
 * instruction.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_disk_timing(vax780w *w, const char *profile)
{
    return vax_session_set_disk_timing(w->s, profile);
}

/* The processor modelled (the CLI's --cpu): 780 or 750, each with its own
 * microcycle, cache and TB (cpu/timing.h).  Only before the first
 * instruction.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_cpu_model(vax780w *w, int model)
{
    return vax_session_set_cpu_model(w->s, model);
}

/* The disks' spin seed (the CLI's --disk-spin; massbus/rp.h,
 * rp_set_spin_seed): 0 turns the platters in step with virtual time, N > 0
 * puts each command at a pseudo-random angle from seed N.  Only before the
 * first instruction.  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_disk_spin_seed(vax780w *w, uint32_t seed)
{
    return vax_session_set_disk_spin_seed(w->s, seed);
}

/* After the spin seed: the platters back in step with virtual time, the
 * clock's sampling left drawn from the seed (vax_session_lock_disk_spin).
 * Only before the first instruction.  Returns 0, or -1 with a message. */
EMSCRIPTEN_KEEPALIVE int vax780w_lock_disk_spin(vax780w *w)
{
    return vax_session_lock_disk_spin(w->s);
}

/* A second RP06, hp1 on the same MASSBUS, whose pack is another
 * copy-on-write view of the same image: the guest can mount a file system
 * from it (e.g. /usr from /dev/hp1g) and so read that file system with
 * another arm than the one over root and swap, as on the paper's 750 with
 * "two disks on a MASSBUS controller".  The two views do not see each
 * other's writes: mount a file system from one drive only.  Only for an
 * RP06 system, before the first instruction, and before
 * vax780w_set_disk_timing / vax780w_set_disk_spin_seed (which time every
 * drive).  Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_add_second_drive(vax780w *w)
{
    w->err[0] = 0;
    if (w->diskless || w->ra) {
        snprintf(w->err, sizeof w->err, "a second drive needs an RP06 system");
        return -1;
    }
    if (w->second) {
        snprintf(w->err, sizeof w->err, "hp1 is already attached");
        return -1;
    }
    if (blockdev_overlay(&w->disk1, &w->image) < 0) {
        snprintf(w->err, sizeof w->err, "out of memory for the second drive's overlay");
        return -1;
    }
    if (vax_session_attach_disk(w->s, 1, "RP06", &w->disk1) < 0) {
        snprintf(w->err, sizeof w->err, "%s", vax_session_error(w->s));
        blockdev_overlay_destroy(&w->disk1);
        return -1;
    }
    w->second = 1;
    return 0;
}

/* The last error message (boot, settings); "" if none. */
EMSCRIPTEN_KEEPALIVE const char *vax780w_error(vax780w *w)
{
    if (!w)
        return "";
    return w->err[0] ? w->err : vax_session_error(w->s);
}

EMSCRIPTEN_KEEPALIVE void vax780w_destroy(vax780w *w);

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

/* Create a 780 with memory_kb KB (a multiple of 256, 256..65536) and an RP06
 * hp0: a copy-on-write overlay over the image's image_len bytes, which stay
 * the caller's (they are never written; keep them until vax780w_destroy).
 * With image NULL and image_len 0 the system has no disk: load a program
 * with vax780w_console_load and start it with vax780w_console_start instead
 * of booting (DEC's diagnostics).  method: 0 = via /boot, 1 = direct kernel;
 * howto: the boot flags (RB_SINGLE 2, 0 multi).  The system is not booted
 * yet: add settings, then vax780w_boot.  Returns NULL on failure, with a
 * message in err (errlen bytes, a buffer of the caller's). */
static vax780w *create(uint32_t memory_kb, uint8_t *image, uint32_t source, uint32_t image_len, chunked_image *ci,
                       const char *ra_type, uint32_t method, uint32_t howto, char *err, uint32_t errlen);

EMSCRIPTEN_KEEPALIVE vax780w *vax780w_create(uint32_t memory_kb, uint8_t *image, uint32_t image_len,
                                             uint32_t method, uint32_t howto, char *err, uint32_t errlen)
{
    return create(memory_kb, image, 0, image_len, NULL, NULL, method, howto, err, errlen);
}

/* A chunked image (storage/chunked.h) over len bytes at file, a buffer from
 * vax780w_image_alloc that it owns from then on (and frees with
 * vax780w_chunked_close); NULL with a message in err when the bytes are not
 * a valid chunked image (file stays the caller's). */
EMSCRIPTEN_KEEPALIVE chunked_image *vax780w_chunked_open(uint8_t *file, uint32_t len, char *err, uint32_t errlen)
{
    if (errlen)
        err[0] = 0;
    return chunked_open(file, len, 1, err, errlen);
}

/* The same from the file's header and index only (head_len bytes at head,
 * a buffer from vax780w_image_alloc that it owns from then on) of a file of
 * file_len bytes that JavaScript keeps (shared by several workers): each
 * chunk is decompressed from its stored bytes (vax780w_chunked_inflate_stored). */
EMSCRIPTEN_KEEPALIVE chunked_image *vax780w_chunked_open_index(uint8_t *head, uint32_t head_len, uint32_t file_len, char *err,
                                                               uint32_t errlen)
{
    if (errlen)
        err[0] = 0;
    return chunked_open_index(head, head_len, file_len, 1, err, errlen);
}

/* Chunk i from its stored bytes (stored_len at stored) into out: 0, 1 for a
 * chunk of zeros (out not written), -1 damaged (vax780w_chunked_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_chunked_inflate_stored(chunked_image *ci, uint32_t i, const uint8_t *stored,
                                                        uint32_t stored_len, uint8_t *out)
{
    return chunked_inflate_stored(ci, i, stored, stored_len, out);
}

/* Frees the image; no system may still use it. */
EMSCRIPTEN_KEEPALIVE void vax780w_chunked_close(chunked_image *ci) { chunked_close(ci); }

/* The image's size, and its SHA-256 (32 bytes) as its header gives it. */
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_chunked_size(chunked_image *ci) { return chunked_size(ci); }
EMSCRIPTEN_KEEPALIVE const uint8_t *vax780w_chunked_sha256(chunked_image *ci) { return chunked_sha256(ci); }

/* len bytes of the image from offset (a double: exact below 2^53) into buf;
 * 0, or -1 (out of range, a damaged chunk: vax780w_chunked_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_chunked_read(chunked_image *ci, double offset, uint8_t *buf, uint32_t len)
{
    if (!(offset >= 0) || offset > 9007199254740992.0)
        return -1;
    return chunked_read(ci, (uint64_t)offset, buf, len);
}

/* Chunk i decompressed into out without keeping it (chunked_inflate_chunk):
 * 0, 1 for a chunk of zeros (out not written), -1 damaged
 * (vax780w_chunked_error).  For JavaScript that keeps the chunks in memory
 * shared by several workers (emu/js/sharedChunkCache.ts). */
EMSCRIPTEN_KEEPALIVE int vax780w_chunked_inflate(chunked_image *ci, uint32_t i, uint8_t *out)
{
    return chunked_inflate_chunk(ci, i, out);
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_chunked_chunk_bytes(chunked_image *ci) { return chunked_chunk_bytes(ci); }

EMSCRIPTEN_KEEPALIVE const char *vax780w_chunked_error(chunked_image *ci)
{
    const char *e = chunked_error(ci);
    return e ? e : "";
}

EMSCRIPTEN_KEEPALIVE void vax780w_chunked_clear_error(chunked_image *ci) { chunked_clear_error(ci); }

/* out[0..3]: chunks, chunks decompressed so far, their bytes, the file's bytes. */
EMSCRIPTEN_KEEPALIVE void vax780w_chunked_stats(chunked_image *ci, uint64_t *out)
{
    chunked_stats st;
    chunked_get_stats(ci, &st);
    out[0] = st.chunks;
    out[1] = st.chunks_inflated;
    out[2] = st.bytes_inflated;
    out[3] = st.file_bytes;
}

/* vax780w_create (type "" : an RP06 hp0) or vax780w_create_ra (type an RA
 * drive's name) over a chunked image, which stays the caller's (close it
 * only after the last system over it is destroyed). */
EMSCRIPTEN_KEEPALIVE vax780w *vax780w_create_chunked(uint32_t memory_kb, chunked_image *ci, const char *type,
                                                     uint32_t method, uint32_t howto, char *err, uint32_t errlen)
{
    const char *ra_type = type && type[0] ? type : NULL;
    if (!ci) {
        if (errlen)
            snprintf(err, errlen, "no chunked image");
        return NULL;
    }
    if (ra_type && !vax_session_ra_name(ra_type)) {
        if (errlen)
            snprintf(err, errlen, "unknown drive type \"%s\" (known: %s)", ra_type, vax_session_ra_names());
        return NULL;
    }
    uint64_t size = chunked_size(ci);
    if (size > UINT32_MAX) {
        if (errlen)
            snprintf(err, errlen, "a chunked image of %llu bytes: at most 4 GB", (unsigned long long)size);
        return NULL;
    }
    return create(memory_kb, NULL, 0, (uint32_t)size, ci, ra_type, method, howto, err, errlen);
}

/* The same with the disk an RA drive of the given type ("RA81"...) as ra0
 * on the UDA50 (no MASSBUS disk): its overlay is the pack's size, and an
 * image shorter than the pack is the pack's start (the rest reads as
 * zeros).  4.3BSD boots from it with R10 = ra.  A pack without a 4.3BSD
 * root is accepted (DEC's diagnostic disk, booted through VMB): only a
 * 4.3BSD boot of it fails. */
EMSCRIPTEN_KEEPALIVE vax780w *vax780w_create_ra(uint32_t memory_kb, uint8_t *image, uint32_t image_len,
                                                const char *type, uint32_t method, uint32_t howto, char *err,
                                                uint32_t errlen)
{
    if (!vax_session_ra_name(type)) {
        if (errlen)
            snprintf(err, errlen, "unknown drive type \"%s\" (known: %s)", type ? type : "", vax_session_ra_names());
        return NULL;
    }
    return create(memory_kb, image, 0, image_len, NULL, type, method, howto, err, errlen);
}

/* The bytes of a JavaScript-held image (source: JavaScript's number for
 * it): copied into buf by emu/js/diskImage.ts.  0, or -1 for a range the
 * image does not have.  The offset travels as a double: exact below 2^53. */
EM_JS(int, vax780w_js_image_read, (uint32_t source, double offset, uint8_t *buf, uint32_t len), {
    return Module['vaxImageRead'](source, offset, buf, len);
});

static int js_image_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    const vax780w *w = bd->ctx;
    if (off > bd->size || len > bd->size - off)
        return -1;
    return vax780w_js_image_read(w->js_source, (double)off, buf, (uint32_t)len) == 0 ? 0 : -1;
}

static int js_image_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    (void)bd, (void)off, (void)buf, (void)len;
    return -1;   /* never written: the overlay keeps the system's writes */
}

/* vax780w_create (type NULL or "": an RP06 hp0) or vax780w_create_ra (an RA
 * drive's name) over an image of image_len bytes that JavaScript holds
 * (source, non-zero: its number for it, passed back to
 * vax780w_js_image_read): nothing of it is copied into wasm memory. */
EMSCRIPTEN_KEEPALIVE vax780w *vax780w_create_js(uint32_t memory_kb, uint32_t source, uint32_t image_len, const char *type,
                                                uint32_t method, uint32_t howto, char *err, uint32_t errlen)
{
    const char *ra_type = type && type[0] ? type : NULL;
    if (source == 0 || image_len == 0) {
        if (errlen)
            snprintf(err, errlen, "no JavaScript image (source %u, %u bytes)", source, image_len);
        return NULL;
    }
    if (ra_type && !vax_session_ra_name(ra_type)) {
        if (errlen)
            snprintf(err, errlen, "unknown drive type \"%s\" (known: %s)", ra_type, vax_session_ra_names());
        return NULL;
    }
    return create(memory_kb, NULL, source, image_len, NULL, ra_type, method, howto, err, errlen);
}

/* One of image (len bytes in wasm memory), source (an image JavaScript
 * holds) or ci (a chunked image) is the system's pristine disk; none of them
 * with image_len 0: a system without a disk. */
static vax780w *create(uint32_t memory_kb, uint8_t *image, uint32_t source, uint32_t image_len, chunked_image *ci,
                       const char *ra_type, uint32_t method, uint32_t howto, char *err, uint32_t errlen)
{
    if (errlen)
        err[0] = 0;
    uint64_t pack = ra_type ? vax_session_ra_bytes(ra_type) : 0;
    if (ra_type && ((!image && !source && !ci) || image_len == 0 || image_len > pack || image_len % 512u)) {
        snprintf(err, errlen, "an %s image is 512 to %llu bytes in whole 512-byte blocks, not %u",
                 vax_session_ra_name(ra_type), (unsigned long long)pack, image_len);
        return NULL;
    }
    if (method > 1) {
        snprintf(err, errlen, "boot method %u: 0 (via /boot) or 1 (direct)", method);
        return NULL;
    }
    vax780w *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->direct = method == 1;
    w->howto = howto;
    vax_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = memory_kb;
    if (!image && !source && !ci && image_len == 0) {
        w->diskless = 1;
    } else {
        if (ci) {
            blockdev_chunked(&w->image, ci);
        } else if (source) {
            w->js_source = source;
            w->image.ctx = w;
            w->image.size = image_len;
            w->image.read_only = 1;
            w->image.read = js_image_read;
            w->image.write = js_image_write;
        } else {
            blockdev_memory(&w->image, image, image_len, 1);
        }
        if ((ra_type ? blockdev_overlay_sized(&w->disk, &w->image, pack) : blockdev_overlay(&w->disk, &w->image)) < 0) {
            snprintf(err, errlen, "out of memory for the disk overlay");
            free(w);
            return NULL;
        }
        if (ra_type) {
            w->ra = 1;
            cfg.ra[0].type = vax_session_ra_name(ra_type);
            cfg.ra[0].image = &w->disk;
        } else {
            cfg.disk[0].type = "RP06";
            cfg.disk[0].image = &w->disk;
        }
    }
    if (!(w->s = vax_session_create(&cfg, err, errlen))) {
        if (!w->diskless)
            blockdev_overlay_destroy(&w->disk);
        free(w);
        return NULL;
    }
    const char *why = w->diskless || w->ra ? NULL : vax_session_unbootable(w->s);
    if (why) {   /* a pack without a 4.3BSD root: say so now, not at vax780w_boot */
        snprintf(err, errlen, "%s", why);
        vax780w_destroy(w);
        return NULL;
    }
    return w;
}

/* Frees the system and its overlay; the image is the caller's. */
EMSCRIPTEN_KEEPALIVE void vax780w_destroy(vax780w *w)
{
    if (!w)
        return;
    vax_session_destroy(w->s);
    if (!w->diskless)
        blockdev_overlay_destroy(&w->disk);
    if (w->second)
        blockdev_overlay_destroy(&w->disk1);
    free(w->vmb);
    free(w->profile);
    free(w->snapshot);
    free(w);
}

/* Boot (now and at every reboot) through DEC's primary bootstrap VMB, as
 * the 780 console's BOOT command does, from dua0 with R5 = flags (0x10:
 * stop in the Diagnostic Supervisor), instead of /boot.  The bytes are
 * copied.  Only for an RA system, before vax780w_boot.  Returns 0, or -1
 * (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_vmb(vax780w *w, const uint8_t *vmb, uint32_t len, uint32_t flags)
{
    w->err[0] = 0;
    if (!w->ra) {
        snprintf(w->err, sizeof w->err, "VMB boots from the UDA50: create the system with an RA drive");
        return -1;
    }
    if (w->direct) {
        snprintf(w->err, sizeof w->err, "VMB boots what the disk holds: not with a direct boot");
        return -1;
    }
    if (!vmb || len == 0 || len % 512u) {
        snprintf(w->err, sizeof w->err, "%u bytes is not a VMB image (a whole number of 512-byte blocks)", len);
        return -1;
    }
    uint8_t *copy = malloc(len);
    if (!copy) {
        snprintf(w->err, sizeof w->err, "out of memory");
        return -1;
    }
    memcpy(copy, vmb, len);
    free(w->vmb);
    w->vmb = copy;
    w->vmb_len = len;
    w->vmb_flags = flags;
    return 0;
}

/* Bytes of the pack this system holds privately (the overlays' written
 * chunks: hp0's, and hp1's when there is a second drive). */
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_dirty_bytes(vax780w *w)
{
    if (w->diskless)
        return 0;
    return blockdev_overlay_dirty_bytes(&w->disk) + (w->second ? blockdev_overlay_dirty_bytes(&w->disk1) : 0);
}

/* Patch the kernel variable _name to value at every (direct) boot.
 * Returns 0, or -1 (too many, name too long, not a direct boot). */
EMSCRIPTEN_KEEPALIVE int vax780w_add_setting(vax780w *w, const char *name, uint32_t value)
{
    w->err[0] = 0;
    if (!w->direct) {
        snprintf(w->err, sizeof w->err, "kernel settings need a direct boot (the host loads the kernel)");
        return -1;
    }
    return vax_session_set_kernel_variable(w->s, name, value, w->err, sizeof w->err);
}

/* Boot this kernel, an a.out file of len bytes (copied), instead of
 * /vmunix from the disk: e.g. one of the kernel variants the installer
 * builds (web/public/images/43bsd-kernel-NAME.gz, gunzipped).  Only for a
 * direct boot, before vax780w_boot; the settings and vax780w_kernel_symbols
 * then use this kernel's symbol table, and a reboot boots it again.
 * Returns 0, or -1 with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_set_kernel(vax780w *w, const uint8_t *bytes, uint32_t len)
{
    w->err[0] = 0;
    if (!w->direct) {
        snprintf(w->err, sizeof w->err, "a kernel from the host needs a direct boot");
        return -1;
    }
    return vax_session_set_kernel_image(w->s, bytes, len, "kernel");
}

/* Boot with the flags given to vax780w_create.  Returns 0 or -1 (message:
 * vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_boot(vax780w *w)
{
    w->err[0] = 0;
    if (w->diskless) {
        snprintf(w->err, sizeof w->err, "no disk to boot from (the system was created without one)");
        return -1;
    }
    int rc;
    if (w->vmb) {
        rc = vax_session_boot_vmb(w->s, w->vmb, w->vmb_len, "dua0", w->vmb_flags);
        if (rc == 0) {   /* the session keeps its own copy */
            free(w->vmb);
            w->vmb = NULL;
        }
    } else {
        rc = w->direct ? vax_session_boot_kernel(w->s, w->howto, "/vmunix") : vax_session_boot_disk(w->s, w->howto);
    }
    return rc < 0 ? -1 : 0;
}

/* The console's LOAD: len bytes at data (the caller's buffer) written at
 * physical address addr, and START: the processor as after INIT with PC =
 * start (boot/standalone.h).  Registers can then be set through the bare
 * machine (vax780w_machine, vax_set_reg).  Return 0, or -1 with a message
 * (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_console_load(vax780w *w, uint32_t addr, const uint8_t *data, uint32_t len)
{
    w->err[0] = 0;
    return vax_session_console_load(w->s, addr, data, len) < 0 ? -1 : 0;
}

EMSCRIPTEN_KEEPALIVE int vax780w_console_start(vax780w *w, uint32_t start)
{
    w->err[0] = 0;
    return vax_session_console_start(w->s, start) < 0 ? -1 : 0;
}

/* At most n instructions: a vax_stop_reason, VAX780W_REBOOTED (the kernel
 * asked for a reboot and got it: keep running), VAX780W_PANICKED (the
 * kernel panicked: vax780w_panic), or -1 if a reboot failed
 * (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_run(vax780w *w, uint64_t n)
{
    w->err[0] = 0;
    return vax_session_run(w->s, n);
}

/* The kernel's panic message, or "" if it has not panicked. */
EMSCRIPTEN_KEEPALIVE const char *vax780w_panic(vax780w *w)
{
    const char *p = vax_session_panic(w->s);
    return p ? p : "";
}

EMSCRIPTEN_KEEPALIVE const char *vax780w_stop_detail(vax780w *w)
{
    return vax_session_stop_detail(w->s);
}

/* Queue typed characters; returns how many fitted (8192 pending at most). */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_type(vax780w *w, const char *text, uint32_t len)
{
    return vax_session_type(w->s, text, len);
}

/* Move up to max bytes of console output (oldest first) to buf; returns how many. */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_console_read(vax780w *w, uint8_t *buf, uint32_t max)
{
    return vax_session_console_read(w->s, buf, max);
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_console_pending(vax780w *w) { return vax_session_console_pending(w->s); }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_console_dropped(vax780w *w) { return vax_session_console_dropped(w->s); }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_time_ns(vax780w *w) { return vax_session_time_ns(w->s); }
EMSCRIPTEN_KEEPALIVE uint64_t vax780w_instruction_count(vax780w *w)
{
    return vax_instruction_count(vax_session_machine(w->s));
}
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_reboots(vax780w *w) { return vax_session_reboots(w->s); }
/* The underlying vax_machine, for the bare-machine functions of vax.h. */
EMSCRIPTEN_KEEPALIVE vax_machine *vax780w_machine(vax780w *w) { return vax_session_machine(w->s); }

/* Addresses of kernel symbols (names with their underscore, separated by
 * newlines) from the booted kernel's symbol table on the disk: out[i] =
 * address, or 0 when the kernel lacks the symbol.  The runner reads the
 * kernel's own statistics (_cnt, _cp_time, _nchstats...) at these
 * addresses.  Returns how many were found, or -1 (message: vax780w_error). */
#define VAX780W_MAX_SYMBOLS 64
EMSCRIPTEN_KEEPALIVE int vax780w_kernel_symbols(vax780w *w, char *names, uint32_t *out, uint32_t n)
{
    const char *name[VAX780W_MAX_SYMBOLS];
    w->err[0] = 0;
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
    return vax_session_kernel_symbols(w->s, name, out, (int)n);
}

/* The hardware model's counters (system/vax780_stats.h): up to max of them
 * as uint64 into out, in the order of vax780w_stats_names().  Returns how
 * many counters there are (read them all with max at least that). */
EMSCRIPTEN_KEEPALIVE uint32_t vax780w_stats(vax780w *w, uint64_t *out, uint32_t max)
{
    return (uint32_t)vax_session_stats(w->s, out, max);
}

/* The counters' names, comma-separated, in array order (a constant). */
EMSCRIPTEN_KEEPALIVE const char *vax780w_stats_names(void) { return vax_session_stats_names(); }

/* Profiling (session.h, profile/profile.h): on before vax780w_boot it
 * profiles from the first instruction, later from now.  0, or -1 with a
 * message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE int vax780w_profile_start(vax780w *w)
{
    w->err[0] = 0;
    return vax_session_profile_start(w->s) < 0 ? -1 : 0;
}

/* Zero the counts: what follows is profiled on its own. */
EMSCRIPTEN_KEEPALIVE int vax780w_profile_clear(vax780w *w) { return vax_session_profile_clear(w->s); }

EMSCRIPTEN_KEEPALIVE void vax780w_profile_stop(vax780w *w) { vax_session_profile_stop(w->s); }

/* The profile so far as JSON (profile.c), NUL-terminated, valid until the
 * next call or vax780w_destroy; its length is vax780w_profile_json_length.
 * NULL when profiling is off (or out of memory). */
EMSCRIPTEN_KEEPALIVE const char *vax780w_profile_json(vax780w *w)
{
    free(w->profile);
    w->profile = vax_session_profile_json(w->s, &w->profile_len);
    if (!w->profile)
        w->profile_len = 0;
    return w->profile;
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_profile_json_length(vax780w *w) { return (uint32_t)w->profile_len; }

/* A snapshot of the whole system now (between two vax780w_run calls), with
 * disk_id (32 bytes: the image's identity, which a restore must match) and
 * host_len bytes of the host's own (host) in it.  Valid until the next call,
 * vax780w_snapshot_free or vax780w_destroy; its length is
 * vax780w_snapshot_length.  NULL with a message (vax780w_error). */
EMSCRIPTEN_KEEPALIVE const uint8_t *vax780w_snapshot(vax780w *w, const uint8_t *disk_id, const uint8_t *host,
                                                     uint32_t host_len)
{
    w->err[0] = 0;
    free(w->snapshot);
    w->snapshot = vax_session_snapshot(w->s, w->diskless ? NULL : disk_id, host, host_len, &w->snapshot_len);
    if (!w->snapshot)
        w->snapshot_len = 0;
    return w->snapshot;
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_snapshot_length(vax780w *w) { return (uint32_t)w->snapshot_len; }

EMSCRIPTEN_KEEPALIVE void vax780w_snapshot_free(vax780w *w)
{
    free(w->snapshot);
    w->snapshot = NULL;
    w->snapshot_len = 0;
}

/* Instead of vax780w_boot: the state of a snapshot (len bytes at buf, read
 * during the call) that a system created with the same settings over an
 * image of the same identity (disk_id, 32 bytes) saved.  The boot that
 * vax780w_boot would have done (direct or /boot, single- or multi-user,
 * VMB) must be the one the saved system had.  Returns 0, or -1 with a
 * message (vax780w_error); after a failure, destroy the system. */
EMSCRIPTEN_KEEPALIVE int vax780w_restore(vax780w *w, const uint8_t *buf, uint32_t len, const uint8_t *disk_id)
{
    w->err[0] = 0;
    if (w->diskless) {
        snprintf(w->err, sizeof w->err, "restore: a system without a disk is started by LOAD and START");
        return -1;
    }
    int kind = w->vmb ? VAX_SESSION_BOOT_VMB : w->direct ? VAX_SESSION_BOOT_KERNEL : VAX_SESSION_BOOT_DISK;
    uint32_t howto = w->vmb ? w->vmb_flags : w->howto;
    int rc = vax_session_restore(w->s, buf, len, disk_id, kind, howto);
    if (rc == 0 && w->vmb) {   /* the session has the snapshot's copy */
        free(w->vmb);
        w->vmb = NULL;
    }
    return rc < 0 ? -1 : 0;
}

/* The host's bytes of the snapshot restored, and their length (NULL, 0 if none). */
EMSCRIPTEN_KEEPALIVE const uint8_t *vax780w_restored_host(vax780w *w)
{
    uint32_t len;
    return vax_session_restored_host(w->s, &len);
}

EMSCRIPTEN_KEEPALIVE uint32_t vax780w_restored_host_length(vax780w *w)
{
    uint32_t len;
    vax_session_restored_host(w->s, &len);
    return len;
}
