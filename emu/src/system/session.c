/*
 * session.c — a whole 780 as a host drives it (see session.h).
 */
#include "system/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/aout.h"
#include "boot/boot.h"
#include "boot/kernelvars.h"
#include "boot/standalone.h"
#include "boot/symbols.h"
#include "boot/vmb.h"
#include "machine.h"
#include "massbus/rp.h"
#include "snapshot/snap.h"
#include "storage/overlay.h"
#include "system/vax780.h"
#include "system/vax780_stats.h"
#include "unibus/uda50.h"
#include "le.h"

#define NAME_MAX_LEN 64
#define PANIC_MAX 160

typedef enum {
    BOOTED_NOTHING,
    BOOTED_DISK = VAX_SESSION_BOOT_DISK,                 /* /boot from the boot disk */
    BOOTED_KERNEL = VAX_SESSION_BOOT_KERNEL,             /* the kernel loaded by the host */
    BOOTED_STANDALONE = VAX_SESSION_BOOT_STANDALONE,     /* a standalone program, the tape's boot block, or LOAD/START */
    BOOTED_VMB = VAX_SESSION_BOOT_VMB,                   /* DEC's VMB, as the console's BOOT command starts it */
} booted_kind;

struct vax_session {
    vax780 *sys;
    vax_blockdev *boot_disk;           /* the boot disk: hp0, else ra0, or NULL */
    const char *boot_disk_type;        /* its drive type ("RP06", "RA81"...) */
    uint32_t boot_disk_r10;            /* R10 naming it for /boot and the kernel (boot.h) */
    vax_blockdev *tape;            /* the TS11's, or NULL */
    int todr_ok;                   /* the boot disk holds a 4.3BSD root (the TODR came from it) */
    vax_blockdev *disk_dev[VAX_SESSION_MAX_DISKS];   /* hp0-hp7 as configured (NULL: none) */
    vax_blockdev *ra_dev[VAX_SESSION_MAX_RA];        /* ra0-ra3 */
    char todr_error[200];
    int has_ra[VAX_SESSION_MAX_RA];

    /* VMB and how it was started, to start it again at a reboot. */
    uint8_t *vmb;
    size_t vmb_len;
    vmb_boot_regs vmb_regs;
    uint32_t vmb_flags;

    /* How to boot hp0 again when the kernel asks for a reboot. */
    booted_kind reboot_kind;
    char kernel_path[256];
    uint8_t *kernel_image;         /* vax_session_set_kernel_image's copy, or NULL */
    size_t kernel_image_len;
    int nset;
    char set_name[VAX_SESSION_MAX_SETTINGS][NAME_MAX_LEN];
    uint32_t set_value[VAX_SESSION_MAX_SETTINGS], set_old[VAX_SESSION_MAX_SETTINGS];
    int booted;                    /* a first boot has happened */
    booted_kind first_kind;        /* how, and with which flags (snapshots check it) */
    uint32_t first_howto;
    uint32_t reboots;

    /* The kernel's panicstr (a kernel virtual address; 0 = not watched). */
    uint32_t panicstr_addr;
    /* The kernel's console tty (struct tty cons), for typing pace; 0 = none. */
    uint32_t cons_addr;
    char panic[PANIC_MAX];

    /* Profiling was asked for before the boot: it starts at the boot. */
    int profile_requested;
    int kernel_booted;             /* the system runs a 4.3BSD kernel (its symbols are known) */

    /* Console output ring. */
    uint8_t out[VAX_SESSION_OUTPUT_RING];
    uint32_t out_head, out_count;
    uint64_t out_dropped;

    /* The host's bytes of the snapshot last restored. */
    uint8_t *restored_host;
    uint32_t restored_host_len;

    char err[320];
};

static int fail(vax_session *s, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(vax_session *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return code;
}

static int hold_console_input(void *ctx);

static void console_out(void *ctx, uint8_t ch)
{
    vax_session *s = ctx;
    if (ch == 0)   /* the kernel's fill characters */
        return;
    if (s->out_count == VAX_SESSION_OUTPUT_RING) {   /* full: drop the oldest */
        s->out_head = (s->out_head + 1) % VAX_SESSION_OUTPUT_RING;
        s->out_count--;
        s->out_dropped++;
    }
    s->out[(s->out_head + s->out_count) % VAX_SESSION_OUTPUT_RING] = ch;
    s->out_count++;
}

int vax_session_disk_timing_known(const char *name) { return name && rp_timing_find(name) != NULL; }
const char *vax_session_disk_timing_names(void) { return rp_timing_names(); }

uint64_t vax_session_ra_bytes(const char *type)
{
    const ra_type *t = ra_type_find(type);
    return t ? ra_type_bytes(t) : 0;
}

const char *vax_session_ra_name(const char *type)
{
    const ra_type *t = ra_type_find(type);
    return t ? t->name : NULL;
}

const char *vax_session_ra_names(void) { return ra_type_names(); }

vax_session *vax_session_create(const vax_session_config *cfg, char *err, size_t errlen)
{
    vax_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory");
        return NULL;
    }
    vax780_config c;
    memset(&c, 0, sizeof c);
    c.memory_kb = cfg->memory_kb;
    c.cpu_model = cfg->cpu_model;
    c.ns_per_instruction = cfg->ns_per_instruction;
    c.disk_spin_seed = cfg->disk_spin_seed;
    c.flat_timing = cfg->flat_timing;
    c.no_idle_skip = cfg->no_idle_skip;
    c.disk_timing = cfg->disk_timing;
    c.tape = cfg->tape;
    for (int u = 0; u < VAX_SESSION_MAX_DISKS && u < VAX780_MAX_DISKS; u++) {
        c.disk[u].type = cfg->disk[u].type;
        c.disk[u].image = cfg->disk[u].image;
        s->disk_dev[u] = cfg->disk[u].type ? cfg->disk[u].image : NULL;
    }
    for (int u = 0; u < VAX_SESSION_MAX_RA && u < VAX780_MAX_RA; u++) {
        c.ra[u].type = cfg->ra[u].type;
        c.ra[u].image = cfg->ra[u].image;
        s->has_ra[u] = cfg->ra[u].type != NULL;
        s->ra_dev[u] = cfg->ra[u].type ? cfg->ra[u].image : NULL;
    }
    /* The boot disk: hp0, or else ra0 (ra is major device 9 to /boot and
     * the kernel: 4.3BSD's stand/conf.c devsw and vax/autoconf.c). */
    if (cfg->disk[0].type) {
        s->boot_disk = cfg->disk[0].image;
        s->boot_disk_type = cfg->disk[0].type;
    } else if (cfg->ra[0].type) {
        s->boot_disk = cfg->ra[0].image;
        s->boot_disk_type = cfg->ra[0].type;
        s->boot_disk_r10 = BOOT_DEVICE(9, 0, 0, 0);
    }
    s->tape = cfg->tape;
    /* The battery-backed TODR of a real 780 would hold the date; ours is set
     * from the time the root file system was last written, so the kernel's
     * clock check agrees and every run starts at the same time. */
    if (!s->boot_disk)
        snprintf(s->todr_error, sizeof s->todr_error, "no disk hp0 or ra0 to boot from");
    else if (boot_todr_from_disk(s->boot_disk, &c.todr_initial, s->todr_error, sizeof s->todr_error) == 0)
        s->todr_ok = 1;
    else
        c.todr_initial = 0;
    if (!(s->sys = vax780_create(&c, err, errlen))) {
        free(s);
        return NULL;
    }
    vax780_set_console_output(s->sys, console_out, s);
    s->sys->console.hold_input = hold_console_input;
    s->sys->console.hold_ctx = s;
    return s;
}

void vax_session_destroy(vax_session *s)
{
    if (!s)
        return;
    vax780_destroy(s->sys);
    free(s->kernel_image);
    free(s->vmb);
    free(s->restored_host);
    free(s);
}

int vax_session_set_kernel_image(vax_session *s, const uint8_t *kernel, size_t len, const char *name)
{
    if (s->booted)
        return fail(s, -1, "the kernel: only before booting");
    if (len == 0)
        return fail(s, -1, "the kernel %s is empty", name ? name : "");
    uint8_t *copy = malloc(len);
    if (!copy)
        return fail(s, -1, "kernel of %zu bytes: out of host memory", len);
    memcpy(copy, kernel, len);
    free(s->kernel_image);
    s->kernel_image = copy;
    s->kernel_image_len = len;
    snprintf(s->kernel_path, sizeof s->kernel_path, "%s", name && *name ? name : "kernel");
    return 0;
}

/* Symbols of the kernel the session boots: the host's image, or a file of
 * the boot disk's root. */
static int lookup_symbols(vax_session *s, const char *kernel, const char *const *names, uint32_t *out, int n,
                          char *err, size_t errlen)
{
    if (s->kernel_image && s->reboot_kind != BOOTED_DISK)
        return boot_lookup_kernel_symbols_image(s->kernel_image, s->kernel_image_len, kernel, names, out, n, err,
                                                errlen);
    return boot_lookup_kernel_symbols(s->boot_disk, kernel, names, out, n, err, errlen);
}

const char *vax_session_unbootable(const vax_session *s) { return s->todr_ok ? NULL : s->todr_error; }

int vax_session_set_kernel_variable(vax_session *s, const char *name, uint32_t value, char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (n == 0 || n >= NAME_MAX_LEN || s->nset >= VAX_SESSION_MAX_SETTINGS) {
        snprintf(err, errlen, "kernel variable \"%.64s\": names of 1 to %d characters, at most %d variables", name,
                 NAME_MAX_LEN - 1, VAX_SESSION_MAX_SETTINGS);
        return -1;
    }
    memcpy(s->set_name[s->nset], name, n + 1);
    s->set_value[s->nset++] = value;
    return 0;
}

uint32_t vax_session_kernel_variable_old(const vax_session *s, int index)
{
    return index >= 0 && index < s->nset ? s->set_old[index] : 0;
}

static uint32_t read_kernel_long(vax_session *s, uint32_t va)
{
    uint8_t b[4];
    if (va < 0x80000000u || vax_phys_read(s->sys->m, va - 0x80000000u, b, 4) != 0)
        return 0;
    return le32_get(b);
}

/* Typing pace (console.h, hold_input).  4.3BSD's ttyinput() throws a typed
 * character away when the tty's raw and canonical queues together hold
 * TTYHOG (255) characters, and in RAW or CBREAK mode flushes both queues
 * when the raw queue passes it (sys/tty.c): a paste of a few lines into a
 * program that is still starting loses characters, which a typist watching
 * the screen would not.  So the next character waits while the reader is
 * behind: in line mode, while whole lines wait to be read (canq) and the
 * queues hold half of TTYHOG; in RAW or CBREAK, while the raw queue does.
 * A single line longer than that still goes to the kernel, which decides, as
 * it always did.  Offsets in struct tty (h/tty.h on a VAX): t_rawq.c_cc 0,
 * t_canq.c_cc 12, t_flags 60; RAW 0x20, CBREAK 0x02 (h/ioctl.h). */
#define TTY_RAWQ_CC 0
#define TTY_CANQ_CC 12
#define TTY_FLAGS 60
#define TTY_RAW_OR_CBREAK 0x22u
#define TTYHOG_HALF 128u

static int hold_console_input(void *ctx)
{
    vax_session *s = ctx;
    if (!s->cons_addr)
        return 0;
    uint32_t rawq = read_kernel_long(s, s->cons_addr + TTY_RAWQ_CC);
    uint32_t canq = read_kernel_long(s, s->cons_addr + TTY_CANQ_CC);
    uint32_t flags = read_kernel_long(s, s->cons_addr + TTY_FLAGS);
    if (rawq > 4096 || canq > 4096)   /* not a tty (a kernel we misread): never hold */
        return 0;
    if (flags & TTY_RAW_OR_CBREAK)
        return rawq >= TTYHOG_HALF;
    return canq > 0 && rawq + canq >= TTYHOG_HALF;
}

/* Find _panicstr and _cons in the kernel file that was booted: a panic is
 * recognised by the kernel's own state, and typing is paced by its console
 * queues.  A kernel without the symbols is simply not watched. */
static void watch_kernel(vax_session *s, const char *kernel_path)
{
    static const char *const names[] = { "_panicstr", "_cons" };
    uint32_t addr[2] = { 0, 0 };
    char why[200];
    s->panic[0] = 0;
    int rc = s->kernel_image && s->reboot_kind != BOOTED_DISK
                 ? boot_lookup_kernel_variables_image(s->kernel_image, s->kernel_image_len, kernel_path, names, addr, 2,
                                                      why, sizeof why)
                 : boot_lookup_kernel_variables(s->boot_disk, kernel_path, names, addr, 2, why, sizeof why);
    if (rc < 0)
        addr[0] = addr[1] = 0;
    s->panicstr_addr = addr[0];
    s->cons_addr = addr[1];
}

/* 4.3BSD's u area (h/user.h, vax/pcb.h): struct user starts with the PCB
 * (24 hardware longwords, then pcb_szpt, pcb_cmap2, pcb_sswap and
 * pcb_sigc[5]: 128 bytes), u_procp, u_ar0, then u_comm[MAXCOMLEN + 1], with
 * MAXCOMLEN 16.  PCBB is the physical address of the PCB, so a process's
 * name is at PCBB + 136. */
#define U_COMM_OFFSET 136u
#define U_COMM_LEN 16u

static int find_program(void *ctx, const char *name, profile_symbols *syms, char *path, size_t pathlen, char *note,
                        size_t notelen)
{
    vax_session *s = ctx;
    return boot_program_symbols(s->boot_disk, s->boot_disk_type, BOOT_PROGRAM_PATH, name, syms, path, pathlen, note,
                                notelen);
}

/* Profiling on: with the symbols of the 4.3BSD kernel booted (the host's
 * kernel file, or the boot disk's) and names for its processes, or
 * (anything else booted) by address only. */
static int profile_on(vax_session *s, int kernel_booted)
{
    profile_config cfg;
    profile_symbols ksyms;
    memset(&cfg, 0, sizeof cfg);
    memset(&ksyms, 0, sizeof ksyms);
    const char *kernel = s->kernel_path[0] ? s->kernel_path : "/vmunix";
    uint8_t *file = NULL;
    size_t len = 0;
    int own = 0;
    char why[200];
    if (kernel_booted && s->kernel_image && s->reboot_kind != BOOTED_DISK) {
        file = s->kernel_image;
        len = s->kernel_image_len;
    } else if (kernel_booted && s->boot_disk &&
               boot_read_system_file(s->boot_disk, s->boot_disk_type, kernel, &file, &len, why, sizeof why) == 0) {
        own = 1;
    }
    if (file) {
        aout_header h;
        if (boot_aout_text_symbols(file, len, &ksyms, why, sizeof why) < 0)
            profile_symbols_free(&ksyms);
        if (aout_parse(file, len, &h, why, sizeof why) == 0 &&
            aout_find_symbol(file, len, &h, "_execve", &cfg.exec_routine) < 0)
            cfg.exec_routine = 0;
        if (own)
            free(file);
        cfg.comm_offset = U_COMM_OFFSET;
        cfg.comm_len = U_COMM_LEN;
        cfg.kernel_path = kernel;
        cfg.find_program = s->boot_disk ? find_program : NULL;
        cfg.find_ctx = s;
    }
    if (profile_enable(s->sys->m, &cfg, &ksyms) < 0)
        return fail(s, -1, "profiling: out of host memory");
    s->profile_requested = 0;
    return 0;
}

/* Boot the boot disk as `kind` (disk or kernel), the first time or on a
 * reboot. */
static int boot_bsd(vax_session *s, booted_kind kind, uint32_t howto)
{
    vax_machine *m = s->sys->m;
    char why[320];
    if (!s->todr_ok)
        return fail(s, VAX_SESSION_ERR_IMAGE, "%s", s->todr_error);
    const char *kernel = s->kernel_path[0] ? s->kernel_path : "/vmunix";
    if (kind == BOOTED_KERNEL && s->kernel_image) {
        if (vax_boot_kernel_image(m, s->kernel_image, s->kernel_image_len, kernel, howto, s->boot_disk_r10, NULL, why,
                                  sizeof why) < 0)
            return fail(s, VAX_SESSION_ERR_IMAGE, "%s", why);
    } else if (vax_boot(m, s->boot_disk, s->boot_disk_type,
                        kind == BOOTED_KERNEL ? BOOT_DIRECT_KERNEL : BOOT_VIA_BOOT_PROGRAM, howto, s->boot_disk_r10,
                        kernel, why, sizeof why) < 0) {
        return fail(s, VAX_SESSION_ERR_IMAGE, "%s", why);
    }
    if (kind == BOOTED_KERNEL && s->nset) {
        boot_kernel_setting set[VAX_SESSION_MAX_SETTINGS];
        for (int i = 0; i < s->nset; i++) {
            set[i].name = s->set_name[i];
            set[i].value = s->set_value[i];
            set[i].old = 0;
        }
        int rc = s->kernel_image ? boot_set_kernel_variables_image(m, s->kernel_image, s->kernel_image_len, kernel, set,
                                                                   s->nset, why, sizeof why)
                                 : boot_set_kernel_variables(m, s->boot_disk, kernel, set, s->nset, why, sizeof why);
        if (rc == BOOT_SET_IMAGE_ERROR)
            return fail(s, VAX_SESSION_ERR_IMAGE, "%s", why);
        if (rc < 0)
            return fail(s, VAX_SESSION_ERR_INPUT, "%s", why);
        for (int i = 0; i < s->nset; i++)
            s->set_old[i] = set[i].old;
    }
    s->reboot_kind = kind;
    s->kernel_booted = 1;
    watch_kernel(s, kernel);
    if (s->profile_requested && profile_on(s, 1) < 0)
        return -1;
    return 0;
}

static int first_boot(vax_session *s)
{
    if (s->booted)
        return fail(s, VAX_SESSION_ERR_INPUT, "the system has already been booted");
    s->err[0] = 0;
    return 0;
}

/* A boot's result: only a boot that worked counts as the first one. */
static int booted(vax_session *s, int rc, booted_kind kind, uint32_t howto)
{
    if (rc == 0) {
        s->booted = 1;
        s->first_kind = kind;
        s->first_howto = howto;
    }
    return rc;
}

int vax_session_boot_disk(vax_session *s, uint32_t howto)
{
    int rc = first_boot(s);
    if (rc == 0 && s->nset)
        rc = fail(s, VAX_SESSION_ERR_INPUT,
                  "kernel variables need the kernel loaded by the host (a direct boot): /boot loads it itself");
    return rc ? rc : booted(s, boot_bsd(s, BOOTED_DISK, howto), BOOTED_DISK, howto);
}

int vax_session_boot_kernel(vax_session *s, uint32_t howto, const char *kernel_path)
{
    int rc = first_boot(s);
    if (rc)
        return rc;
    if (kernel_path && strlen(kernel_path) >= sizeof s->kernel_path)
        return fail(s, VAX_SESSION_ERR_INPUT, "kernel path too long");
    if (!s->kernel_image)   /* a host image keeps the name it was given */
        snprintf(s->kernel_path, sizeof s->kernel_path, "%s", kernel_path ? kernel_path : "");
    return booted(s, boot_bsd(s, BOOTED_KERNEL, howto), BOOTED_KERNEL, howto);
}

/* Something that is not a kernel the session loaded has started: nothing
 * to watch; a reboot goes the way `kind` says. */
static int not_a_kernel(vax_session *s, booted_kind kind)
{
    s->reboot_kind = kind;
    s->kernel_booted = 0;
    s->panicstr_addr = 0;
    s->cons_addr = 0;
    if (s->profile_requested && profile_on(s, 0) < 0)
        return -1;
    return 0;
}

/* After a standalone start, a reboot boots hp0 through /boot, as the
 * console would. */
static int standalone_started(vax_session *s) { return not_a_kernel(s, BOOTED_DISK); }

int vax_session_boot_standalone(vax_session *s, const uint8_t *prog, size_t len, uint32_t r10, uint32_t r11)
{
    char why[320];
    int rc = first_boot(s);
    if (rc)
        return rc;
    if (vax_boot_standalone(s->sys->m, prog, len, r10, r11, NULL, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_IMAGE, "standalone program: %s", why);
    return booted(s, standalone_started(s), BOOTED_STANDALONE, 0);
}

int vax_session_boot_tape_block(vax_session *s)
{
    char why[320];
    int rc = first_boot(s);
    if (rc)
        return rc;
    if (vax_boot_tape_block(s->sys->m, s->tape, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_IMAGE, "tape boot block: %s", why);
    return booted(s, standalone_started(s), BOOTED_STANDALONE, 0);
}

int vax_session_console_load(vax_session *s, uint32_t addr, const uint8_t *data, size_t len)
{
    char why[320];
    if (s->booted)
        return fail(s, VAX_SESSION_ERR_INPUT, "LOAD after START: the program is already running");
    if (vax_console_load(s->sys->m, addr, data, len, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_INPUT, "%s", why);
    return 0;
}

int vax_session_console_start(vax_session *s, uint32_t start)
{
    char why[320];
    int rc = first_boot(s);
    if (rc)
        return rc;
    if (vax_console_start(s->sys->m, start, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_INPUT, "%s", why);
    return booted(s, standalone_started(s), BOOTED_STANDALONE, 0);
}

/* VMB as the console's BOOT starts it (vmb.h); the first time or on a
 * reboot.  What it boots is not known to the session: nothing is watched. */
static int start_vmb(vax_session *s)
{
    char why[320];
    if (vax_boot_vmb(s->sys->m, s->vmb, s->vmb_len, &s->vmb_regs, s->vmb_flags, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_IMAGE, "%s", why);
    return not_a_kernel(s, BOOTED_VMB);
}

int vax_session_boot_vmb(vax_session *s, const uint8_t *vmb, size_t len, const char *device, uint32_t flags)
{
    char why[320];
    int rc = first_boot(s);
    if (rc)
        return rc;
    if (vmb_boot_device(device, &s->vmb_regs, why, sizeof why) < 0)
        return fail(s, VAX_SESSION_ERR_INPUT, "%s", why);
    uint32_t unit = s->vmb_regs.r[3];
    if (unit >= VAX_SESSION_MAX_RA || !s->has_ra[unit])
        return fail(s, VAX_SESSION_ERR_INPUT, "boot device %s: there is no drive ra%u", device, unit);
    if (!vmb || len == 0 || len % 512u)
        return fail(s, VAX_SESSION_ERR_IMAGE, "%zu bytes is not a VMB image (a whole number of 512-byte blocks)",
                    vmb ? len : 0);
    uint8_t *copy = malloc(len);
    if (!copy)
        return fail(s, VAX_SESSION_ERR_IMAGE, "out of host memory for VMB");
    memcpy(copy, vmb, len);
    free(s->vmb);
    s->vmb = copy;
    s->vmb_len = len;
    s->vmb_flags = flags;
    return booted(s, start_vmb(s), BOOTED_VMB, flags);
}

/* Has the kernel panicked?  panicstr is a pointer in the kernel's data; the
 * kernel runs with system space mapped to physical memory from 0, so both it
 * and the message are read at their address less 0x80000000. */
static int check_panic(vax_session *s)
{
    if (!s->panicstr_addr || s->panic[0])
        return s->panic[0] != 0;
    vax_machine *m = s->sys->m;
    uint32_t p = read_kernel_long(s, s->panicstr_addr);
    if (p == 0)
        return 0;
    size_t n = 0;
    uint8_t ch;
    while (n + 1 < sizeof s->panic && p >= 0x80000000u && vax_phys_read(m, p - 0x80000000u + (uint32_t)n, &ch, 1) == 0 &&
           ch != 0) {
        s->panic[n++] = (char)(ch >= 0x20 && ch < 0x7f ? ch : '?');
    }
    if (n == 0)
        memcpy(s->panic, "(no message)", 13);
    else
        s->panic[n] = 0;
    return 1;
}

int vax_session_run(vax_session *s, uint64_t n)
{
    int had_panic = s->panic[0] != 0;
    vax_stop_reason r = vax_run(s->sys->m, n);
    if (!had_panic && check_panic(s))
        return VAX_SESSION_PANICKED;   /* a reboot it asked for is done on the next run */
    if (r == VAX_STOP_HOST_REQUEST && s->sys->reboot_requested) {
        if (s->reboot_kind == BOOTED_VMB) {
            /* The console boots the way it did: VMB, same device and flags. */
            vax780_init(s->sys);
            s->reboots++;
            return start_vmb(s) < 0 ? -1 : VAX_SESSION_REBOOTED;
        }
        if (!s->boot_disk || !s->todr_ok)
            return fail(s, -1, "the guest asked the console to reboot, and there is no disk to boot from");
        vax780_init(s->sys);
        s->reboots++;
        /* The console restarts the system multi-user, the way it booted. */
        if (boot_bsd(s, s->reboot_kind == BOOTED_KERNEL ? BOOTED_KERNEL : BOOTED_DISK, 0) < 0)
            return -1;
        return VAX_SESSION_REBOOTED;
    }
    return (int)r;
}

const char *vax_session_panic(const vax_session *s) { return s->panic[0] ? s->panic : NULL; }

uint32_t vax_session_type(vax_session *s, const char *text, uint32_t len)
{
    return vax780_console_type(s->sys, text, len);
}

uint32_t vax_session_console_read(vax_session *s, uint8_t *buf, uint32_t max)
{
    uint32_t n = 0;
    while (n < max && s->out_count) {
        uint32_t chunk = VAX_SESSION_OUTPUT_RING - s->out_head;
        if (chunk > s->out_count)
            chunk = s->out_count;
        if (chunk > max - n)
            chunk = max - n;
        memcpy(buf + n, s->out + s->out_head, chunk);
        n += chunk;
        s->out_head = (s->out_head + chunk) % VAX_SESSION_OUTPUT_RING;
        s->out_count -= chunk;
    }
    return n;
}

uint32_t vax_session_console_pending(const vax_session *s) { return s->out_count; }
uint64_t vax_session_console_dropped(const vax_session *s) { return s->out_dropped; }
vax_machine *vax_session_machine(vax_session *s) { return s->sys->m; }
uint64_t vax_session_time_ns(const vax_session *s) { return machine_time_ns(s->sys->m); }
const char *vax_session_stop_detail(const vax_session *s) { return vax_stop_detail(s->sys->m); }
const char *vax_session_error(const vax_session *s) { return s->err; }
uint32_t vax_session_reboots(const vax_session *s) { return s->reboots; }

int vax_session_set_ns_per_instruction(vax_session *s, uint32_t ns)
{
    if (ns == 0 || ns > 1000000)
        return fail(s, -1, "ns per instruction %u: 1 to 1000000", ns);
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "ns per instruction: only before the first instruction");
    machine_set_ns_per_instruction(s->sys->m, ns);
    return 0;
}

int vax_session_set_disk_timing(vax_session *s, const char *profile)
{
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "disk timing: only before the first instruction");
    return vax780_set_disk_timing(s->sys, profile, s->err, sizeof s->err) < 0 ? -1 : 0;
}

int vax_session_set_cpu_model(vax_session *s, int model)
{
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "CPU model: only before the first instruction");
    if (vax_set_cpu_model(s->sys->m, model) != 0)
        return fail(s, -1, "CPU model %d: we model the 780 and the 750", model);
    return 0;
}

int vax_session_set_disk_spin_seed(vax_session *s, uint32_t seed)
{
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "disk spin seed: only before the first instruction");
    return vax780_set_disk_spin_seed(s->sys, seed, s->err, sizeof s->err) < 0 ? -1 : 0;
}

int vax_session_lock_disk_spin(vax_session *s)
{
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "disk spin lock: only before the first instruction");
    return vax780_lock_disk_spin(s->sys, s->err, sizeof s->err) < 0 ? -1 : 0;
}

int vax_session_attach_disk(vax_session *s, int unit, const char *type, vax_blockdev *bd)
{
    if (vax_instruction_count(s->sys->m) != 0)
        return fail(s, -1, "attach a disk: only before the first instruction");
    if (unit < 0 || unit >= VAX_SESSION_MAX_DISKS)
        return fail(s, -1, "attach a disk: hp%d: the units are hp0 to hp%d", unit, VAX_SESSION_MAX_DISKS - 1);
    if (vax780_attach_disk(s->sys, unit, type, bd, s->err, sizeof s->err) < 0)
        return -1;
    /* One of the session's disks from now on: a snapshot checks that it is
     * there and keeps what the machine wrote on it. */
    s->disk_dev[unit] = bd;
    return 0;
}

int vax_session_kernel_symbols(vax_session *s, const char *const *names, uint32_t *out, int n)
{
    if (!s->boot_disk && !s->kernel_image)
        return fail(s, -1, "no disk, so no kernel to read symbols from");
    const char *kernel = (s->reboot_kind == BOOTED_KERNEL || s->kernel_image) && s->kernel_path[0] ? s->kernel_path
                                                                                                : "/vmunix";
    int found = lookup_symbols(s, kernel, names, out, n, s->err, sizeof s->err);
    return found < 0 ? -1 : found;
}

int vax_session_profile_start(vax_session *s)
{
    if (!s->booted) {
        s->profile_requested = 1;
        return 0;
    }
    if (s->sys->m->prof)
        return vax_session_profile_clear(s);
    return profile_on(s, s->kernel_booted);
}

int vax_session_profile_clear(vax_session *s)
{
    profile_clear(s->sys->m);
    return 0;
}

void vax_session_profile_stop(vax_session *s)
{
    s->profile_requested = 0;
    profile_disable(s->sys->m);
}

int vax_session_profiling(const vax_session *s) { return s->profile_requested || s->sys->m->prof != NULL; }

char *vax_session_profile_json(vax_session *s, size_t *len)
{
    *len = 0;
    return profile_json(s->sys->m, len);
}

size_t vax_session_stats(const vax_session *s, uint64_t *out, size_t max)
{
    return max ? vax780_stats_flat(s->sys, out, max) : vax780_stats_count();
}

const char *vax_session_stats_names(void) { return vax780_stats_names(); }

/* ------------------------------------------------------------ snapshots */

static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* The session's configuration (compared on restore) and state. */
static void session_snap(vax_session *s, vax_snap *snap, const uint8_t **host, uint32_t *host_len)
{
    char name[96];
    snap_begin(snap, "CONF");
    snap_same_u32(snap, (uint32_t)s->first_kind, "how the system was booted (1 /boot, 2 the kernel by the host, 3 standalone, 4 VMB)");
    snap_same_u32(snap, s->first_howto, "boot flags (2 single-user, 0 multi-user)");
    snap_same_string(snap, s->boot_disk_type, "boot disk");
    for (int u = 0; u < VAX_SESSION_MAX_DISKS; u++) {
        snprintf(name, sizeof name, "disk hp%d", u);
        snap_same_u32(snap, s->disk_dev[u] != NULL, name);
    }
    for (int u = 0; u < VAX_SESSION_MAX_RA; u++) {
        snprintf(name, sizeof name, "disk ra%d", u);
        snap_same_u32(snap, s->ra_dev[u] != NULL, name);
    }
    snap_same_u32(snap, s->tape != NULL, "a tape");
    snap_same_u64(snap, s->kernel_image ? fnv1a64(s->kernel_image, s->kernel_image_len) : 0, "kernel image (FNV-1a)");
    snap_same_u32(snap, (uint32_t)s->nset, "number of kernel variables set");
    for (int i = 0; i < s->nset && !snap_failed(snap); i++) {
        snap_same_string(snap, s->set_name[i], "kernel variable");
        snprintf(name, sizeof name, "kernel variable _%.40s", s->set_name[i]);
        snap_same_u32(snap, s->set_value[i], name);
    }
    snap_end(snap);

    vax780_snap(s->sys, snap);

    snap_begin(snap, "DISK");
    for (int u = 0; u < VAX_SESSION_MAX_DISKS + VAX_SESSION_MAX_RA && !snap_failed(snap); u++) {
        vax_blockdev *bd = u < VAX_SESSION_MAX_DISKS ? s->disk_dev[u] : s->ra_dev[u - VAX_SESSION_MAX_DISKS];
        if (!bd)
            continue;
        if (!blockdev_is_overlay(bd)) {
            snap_fail(snap, "the disk %s%d is written through to its image, not to an overlay: it cannot be saved "
                            "(the native machine's --snapshot keeps writes in an overlay)",
                      u < VAX_SESSION_MAX_DISKS ? "hp" : "ra", u % VAX_SESSION_MAX_DISKS);
            break;
        }
        blockdev_overlay_snap(bd, snap);
    }
    snap_end(snap);

    snap_begin(snap, "SESS");
    snap_string(snap, s->kernel_path, sizeof s->kernel_path);
    int kind = (int)s->reboot_kind;
    snap_int(snap, &kind, BOOTED_NOTHING, BOOTED_VMB);
    s->reboot_kind = (booted_kind)kind;
    snap_u32(snap, &s->reboots);
    snap_u32(snap, &s->panicstr_addr);
    snap_u32(snap, &s->cons_addr);
    snap_string(snap, s->panic, sizeof s->panic);
    snap_int(snap, &s->kernel_booted, 0, 1);
    snap_u32_array(snap, s->set_old, VAX_SESSION_MAX_SETTINGS);
    snap_u32_array(snap, s->vmb_regs.r, 6);
    snap_u32(snap, &s->vmb_flags);
    uint32_t vmb_len = (uint32_t)s->vmb_len;
    uint8_t *vmb = s->vmb;
    snap_blob(snap, &vmb, &vmb_len, 1u << 24);
    if (snap_restoring(snap) && !snap_failed(snap)) {
        free(s->vmb);
        s->vmb = vmb;
        s->vmb_len = vmb_len;
    }
    /* Console output not read yet, oldest first. */
    snap_u32(snap, &s->out_count);
    if (snap_restoring(snap)) {
        if (s->out_count > VAX_SESSION_OUTPUT_RING)
            snap_fail(snap, "snapshot damaged: console output");
        s->out_head = 0;
    }
    for (uint32_t i = 0; i < s->out_count && !snap_failed(snap); i++)
        snap_u8(snap, &s->out[(s->out_head + i) % VAX_SESSION_OUTPUT_RING]);
    snap_u64(snap, &s->out_dropped);
    snap_end(snap);

    snap_begin(snap, "HOST");
    uint8_t *h = (uint8_t *)(uintptr_t)*host;
    snap_blob(snap, &h, host_len, UINT32_MAX);
    *host = h;
    snap_end(snap);
}

uint8_t *vax_session_snapshot(vax_session *s, const uint8_t *disk_id, const uint8_t *host, uint32_t host_len,
                              size_t *len)
{
    *len = 0;
    if (!s->booted) {
        fail(s, -1, "snapshot: the system has not been booted");
        return NULL;
    }
    vax_snap *snap = snap_save_begin(s->sys->m, disk_id);
    if (!snap) {
        fail(s, -1, "snapshot: out of host memory");
        return NULL;
    }
    const uint8_t *h = host;
    char why[300];
    session_snap(s, snap, &h, &host_len);
    uint8_t *out = snap_save_finish(snap, len, why, sizeof why);
    if (!out)
        fail(s, -1, "snapshot: %s", why);
    return out;
}

int vax_session_restore(vax_session *s, const uint8_t *buf, size_t len, const uint8_t *disk_id, int boot,
                        uint32_t howto)
{
    char why[300];
    if (s->booted)
        return fail(s, VAX_SESSION_ERR_INPUT, "restore: the system has already been booted");
    vax_snap *snap = snap_restore_begin(s->sys->m, buf, len, disk_id, why, sizeof why);
    if (!snap)
        return fail(s, VAX_SESSION_ERR_IMAGE, "restore: %s", why);
    /* The snapshot's boot must be the one the host asked for. */
    s->first_kind = (booted_kind)boot;
    s->first_howto = howto;
    const uint8_t *h = NULL;
    uint32_t hl = 0;
    session_snap(s, snap, &h, &hl);
    int damaged = snap_failed(snap) && strncmp(snap_error(snap), "snapshot damaged", 16) == 0;
    if (snap_restore_finish(snap, why, sizeof why) < 0) {
        free((void *)(uintptr_t)h);
        return fail(s, damaged ? VAX_SESSION_ERR_IMAGE : VAX_SESSION_ERR_INPUT, "restore: %s", why);
    }
    free(s->restored_host);
    s->restored_host = (uint8_t *)(uintptr_t)h;
    s->restored_host_len = hl;
    s->booted = 1;
    s->err[0] = 0;
    if (s->profile_requested && profile_on(s, s->kernel_booted) < 0)
        return -1;
    return 0;
}

const uint8_t *vax_session_restored_host(const vax_session *s, uint32_t *len)
{
    *len = s->restored_host_len;
    return s->restored_host;
}
