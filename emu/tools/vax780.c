/*
 * vax780 — the headless VAX-11/780: boots 4.3BSD from a disk image and
 * drives its console from a script.  Used by the tests, the benchmarks and
 * the installer.
 *
 *   vax780 --disk hp0=IMAGE[:TYPE] [--disk hp1=...] [--tape ts0=TAPE] [--mem MB]
 *          [--boot single|multi|askname] [--direct] [--kernel PATH] [--kernel-file FILE] [--cpu 780|750]
 *          [--timing model|flat] [--standalone tape|tape:NAME|FILE] [--set NAME=VALUE] [--script FILE]
 *          [--quiet] [--stats]
 *          [--no-idle-skip] [--disk-timing rp06|eagle|ideal]
 *
 * --disk-timing times every disk as a DEC RP06 (the default for the RP06),
 * a Fujitsu Eagle, or an ideal disk with no seek or rotational latency
 * (not a real drive); the geometry and the pack stay the drive type's
 * (src/massbus/rp.c, "Timing profiles").
 * --set NAME=VALUE (with --direct) sets the kernel's longword variable _NAME
 * after loading /vmunix and before it runs, e.g. --set nchsize=0.
 * --kernel-file FILE (implies --direct) boots the kernel in the host file
 * FILE instead of one from the disk's root, e.g. a kernel variant the
 * installer built (web/public/images/43bsd-kernel-NAME.gz, gunzipped);
 * --set then patches that kernel, by its own symbol table.
 * --standalone starts a standalone program instead of booting the disk:
 * tape is the --tape's boot block (its first record, tsboot), started as
 * the operator's toggle-in program tstoggle leaves it; it prompts "=" for
 * a program of the tape's tp archive.  tape:NAME is that program NAME
 * (boot, copy, format), entered as tsboot enters it (R10 = UBA0, R11 = the
 * TS11's CSR); FILE is a host file (an a.out or a headerless image; write
 * ./tape for a file called tape) entered with R10 = 0 and R11 = the --boot
 * flags.  See src/boot/standalone.h.  The disk may then be blank (no file
 * system: the TODR keeps its default).
 * --stats prints, at exit, the hardware model's counters that are not zero
 * (src/system/vax780_stats.h), then one line with the instruction count,
 * virtual and host time.  --no-idle-skip runs the kernel's idle loop
 * instruction by instruction instead of skipping it (vax_set_idle_skip):
 * the guest runs the same either way, only host time differs.
 *
 * The console transcript goes to stdout.  Script lines:
 *   expect TEXT     wait until the console output since the previous match contains TEXT
 *                   (TEXT may use the escapes of `type`, e.g. `expect \n# ` for a shell prompt)
 *   send TEXT       type TEXT and a carriage return
 *   type TEXT       type TEXT without a carriage return (C escapes: \r \n \t \\ \xHH)
 *   timeout N       limit, in virtual seconds, for each following expect (default 60)
 *   wait-halt       wait until the guest halts (a clean shutdown), within the timeout;
 *                   a typed ^P (type \x10) is the operator's ^P HALT at the 780's console
 *   # ...           comment
 * Exit status: 0 when the script is done (or, without a script, when the
 * guest halts); otherwise non-zero with a one-line reason on stderr:
 *   1 an expect or wait-halt timed out       4 the guest halted unexpectedly
 *   2 bad command line or script             5 the kernel panicked
 *   3 a missing or malformed image           6 the processor stopped (double fault...)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot/aout.h"
#include "boot/boot.h"
#include "boot/ffs.h"
#include "boot/kernelvars.h"
#include "boot/partitions.h"
#include "boot/standalone.h"
#include "machine.h"
#include "massbus/rp.h"
#include "system/vax780.h"
#include "system/vax780_stats.h"
#include "vax.h"

#define EXIT_TIMEOUT 1
#define EXIT_USAGE 2
#define EXIT_IMAGE 3
#define EXIT_HALT 4
#define EXIT_PANIC 5
#define EXIT_STOPPED 6

#define SLICE 200000u   /* instructions between checks of the console output */

typedef struct {
    int fd;
    const char *path;
} file_ctx;

static int file_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    const file_ctx *f = bd->ctx;
    if (off > bd->size || len > bd->size - off)
        return -1;
    return pread(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int file_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    const file_ctx *f = bd->ctx;
    if (bd->read_only || off > bd->size || len > bd->size - off)
        return -1;
    return pwrite(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "vax780: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(code);
}

static void open_image(const char *path, int read_only, vax_blockdev *bd, file_ctx *f)
{
    int fd = open(path, read_only ? O_RDONLY : O_RDWR);
    if (fd < 0 && !read_only && errno == EACCES) {
        fd = open(path, O_RDONLY);
        read_only = 1;
    }
    if (fd < 0)
        die(EXIT_IMAGE, "cannot open image %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        die(EXIT_IMAGE, "image %s is not a regular file", path);
    f->fd = fd;
    f->path = path;
    bd->ctx = f;
    bd->size = (uint64_t)st.st_size;
    bd->read_only = read_only;
    bd->read = file_read;
    bd->write = file_write;
}

/* The console transcript, kept for expect. */
typedef struct {
    char *buf;
    size_t len, cap, mark;   /* mark: where the next expect starts looking */
    int quiet;
} transcript;

static void console_out(void *ctx, uint8_t ch)
{
    transcript *t = ctx;
    if (ch == 0)
        return;
    if (!t->quiet)
        putchar(ch);
    if (t->len + 1 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 65536;
        char *b = realloc(t->buf, cap);
        if (!b)
            die(EXIT_STOPPED, "out of host memory");
        t->buf = b;
        t->cap = cap;
    }
    t->buf[t->len++] = (char)ch;
    t->buf[t->len] = 0;
}

/* Find text in the transcript since the mark; move the mark past it. */
static int transcript_match(transcript *t, const char *text)
{
    if (!t->buf)
        return 0;
    char *p = strstr(t->buf + t->mark, text);
    if (!p)
        return 0;
    t->mark = (size_t)(p - t->buf) + strlen(text);
    return 1;
}

typedef struct {
    vax780 *sys;
    const vax_blockdev *boot_disk;
    const char *boot_type;
    boot_method method;
    uint32_t howto;
    const char *kernel;
    const uint8_t *kernel_image;   /* --kernel-file: the kernel's bytes, or NULL */
    size_t kernel_image_len;
    int nset;                    /* --set NAME=VALUE: kernel variables patched before the kernel runs */
    char set_name[32][64];
    uint32_t set_value[32];
    const uint8_t *standalone;   /* a standalone program to start, or NULL */
    size_t standalone_len;
    uint32_t standalone_r10, standalone_r11;
    const vax_blockdev *tape_boot;   /* or the tape's boot block */
    transcript out;
    size_t panic_scan;
    int halted;   /* the guest has halted (a script's expect may still match what it printed) */
} session;

/* Patch kernel variables by name, after the kernel is in memory and before
 * it runs (see boot/kernelvars.h). */
static void apply_settings(session *s)
{
    char err[256];
    if (s->nset == 0)
        return;
    boot_kernel_setting set[32];
    for (int i = 0; i < s->nset; i++) {
        set[i].name = s->set_name[i];
        set[i].value = s->set_value[i];
        set[i].old = 0;
    }
    int rc = s->kernel_image
                 ? boot_set_kernel_variables_image(s->sys->m, s->kernel_image, s->kernel_image_len, s->kernel, set,
                                                   s->nset, err, sizeof err)
                 : boot_set_kernel_variables(s->sys->m, s->boot_disk, s->kernel, set, s->nset, err, sizeof err);
    if (rc == BOOT_SET_IMAGE_ERROR)
        die(EXIT_IMAGE, "--set: %s", err);
    if (rc < 0)
        die(EXIT_USAGE, "--set %s", err);
    for (int i = 0; i < s->nset; i++)
        fprintf(stderr, "vax780: _%s = %u (was %u)\n", set[i].name, set[i].value, set[i].old);
}

static void boot(session *s, uint32_t howto)
{
    char err[256];
    if (s->tape_boot) {
        if (vax_boot_tape_block(s->sys->m, s->tape_boot, err, sizeof err) < 0)
            die(EXIT_IMAGE, "tape boot block: %s", err);
        s->tape_boot = NULL;   /* a later reboot boots the disk */
        return;
    }
    if (s->standalone) {
        if (vax_boot_standalone(s->sys->m, s->standalone, s->standalone_len, s->standalone_r10,
                                s->standalone_r11, NULL, err, sizeof err) < 0)
            die(EXIT_IMAGE, "standalone program: %s", err);
        s->standalone = NULL;   /* a later reboot boots the disk, as the console would */
        return;
    }
    if (s->kernel_image) {
        if (vax_boot_kernel_image(s->sys->m, s->kernel_image, s->kernel_image_len, s->kernel, howto, 0, NULL, err,
                                  sizeof err) < 0)
            die(EXIT_IMAGE, "%s", err);
    } else if (vax_boot(s->sys->m, s->boot_disk, s->boot_type, s->method, howto, 0, s->kernel, err, sizeof err) < 0)
        die(EXIT_IMAGE, "%s", err);
    if (s->method == BOOT_DIRECT_KERNEL)
        apply_settings(s);
}

/* Run one slice; handle reboots, panics and stops.  Returns 1 if the guest
 * halted (and halting is acceptable), 0 otherwise. */
static int run_slice(session *s, int halt_ok)
{
    vax_stop_reason r = vax_run(s->sys->m, SLICE);
    fflush(stdout);
    if (s->out.buf) {
        const char *p = strstr(s->out.buf + s->panic_scan, "panic:");
        if (p) {
            const char *e = strchr(p, '\n');
            int n = e ? (int)(e - p) : (int)strlen(p);
            die(EXIT_PANIC, "kernel %.*s", n > 0 && p[n - 1] == '\r' ? n - 1 : n, p);
        }
        s->panic_scan = s->out.len > 8 ? s->out.len - 8 : 0;
    }
    switch (r) {
    case VAX_STOP_BUDGET: return 0;
    case VAX_STOP_HALT:
        if (halt_ok)
            return 1;
        die(EXIT_HALT, "guest halted: %s", vax_stop_detail(s->sys->m));
        return 1;
    case VAX_STOP_HOST_REQUEST:
        if (s->sys->reboot_requested) {
            vax780_init(s->sys);
            boot(s, 0);   /* the console restarts the system multi-user */
            return 0;
        }
        die(EXIT_STOPPED, "stopped: %s", vax_stop_detail(s->sys->m));
        return 1;
    default:
        die(EXIT_STOPPED, "processor stopped (%s): %s", vax_stop_reason_name(r), vax_stop_detail(s->sys->m));
        return 1;
    }
}

static double vseconds(session *s) { return (double)machine_time_ns(s->sys->m) / 1e9; }

/* Decode \r \n \t \\ \xHH escapes in place. */
static size_t unescape(char *p)
{
    char *o = p, *i = p;
    while (*i) {
        if (*i == '\\' && i[1]) {
            i++;
            switch (*i) {
            case 'r': *o++ = '\r'; i++; break;
            case 'n': *o++ = '\n'; i++; break;
            case 't': *o++ = '\t'; i++; break;
            case 'x': {
                unsigned v = 0;
                int n = 0;
                i++;
                while (n < 2 && ((*i >= '0' && *i <= '9') || (*i >= 'a' && *i <= 'f') || (*i >= 'A' && *i <= 'F'))) {
                    v = v * 16 + (unsigned)(*i <= '9' ? *i - '0' : (*i | 32) - 'a' + 10);
                    i++, n++;
                }
                *o++ = (char)v;
                break;
            }
            default: *o++ = *i++; break;
            }
        } else {
            *o++ = *i++;
        }
    }
    *o = 0;
    return (size_t)(o - p);
}

static void type_text(session *s, const char *text, size_t len)
{
    if (vax780_console_type(s->sys, text, (uint32_t)len) < len)
        die(EXIT_USAGE, "console input overflow (more than %d characters pending)", CONSOLE_INPUT_MAX);
}

static void run_script(session *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die(EXIT_USAGE, "cannot open script %s: %s", path, strerror(errno));
    char line[4096];
    double limit = 60;
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == 0 || *p == '#')
            continue;
        char *arg = strchr(p, ' ');
        if (arg)
            *arg++ = 0;
        else
            arg = p + strlen(p);
        if (!strcmp(p, "expect")) {
            unescape(arg);
            double deadline = vseconds(s) + limit;
            while (!transcript_match(&s->out, arg)) {
                /* A guest that prints the text and halts within one slice
                 * (standalone copy returning when done) still matches. */
                if (s->halted)
                    die(EXIT_HALT, "guest halted: %s (%s:%d was waiting for \"%s\")", vax_stop_detail(s->sys->m),
                        path, lineno, arg);
                if (vseconds(s) > deadline)
                    die(EXIT_TIMEOUT, "%s:%d: expect \"%s\" timed out after %g virtual seconds", path, lineno,
                        arg, limit);
                if (run_slice(s, 1))
                    s->halted = 1;
            }
        } else if (!strcmp(p, "send")) {
            type_text(s, arg, strlen(arg));
            type_text(s, "\r", 1);
        } else if (!strcmp(p, "type")) {
            size_t len = unescape(arg);
            type_text(s, arg, len);
        } else if (!strcmp(p, "timeout")) {
            char *end;
            limit = strtod(arg, &end);
            if (end == arg || limit <= 0)
                die(EXIT_USAGE, "%s:%d: timeout needs a positive number of seconds", path, lineno);
        } else if (!strcmp(p, "wait-halt")) {
            double deadline = vseconds(s) + limit;
            while (!s->halted && !run_slice(s, 1))
                if (vseconds(s) > deadline)
                    die(EXIT_TIMEOUT, "%s:%d: the guest did not halt within %g virtual seconds", path, lineno,
                        limit);
            s->halted = 1;
        } else {
            die(EXIT_USAGE, "%s:%d: unknown script command \"%s\"", path, lineno, p);
        }
    }
    fclose(f);
}

/* The hardware model's counters that are not zero, "name=value" packed
 * into lines of about 100 characters on stderr. */
static void print_counters(const vax780 *sys)
{
    size_t n = vax780_stats_count();
    uint64_t *v = calloc(n, sizeof *v);
    if (!v)
        return;
    vax780_stats_flat(sys, v, n);
    const char *name = vax780_stats_names();
    int col = 0;
    for (size_t i = 0; i < n && *name; i++) {
        size_t len = strcspn(name, ",");
        if (v[i]) {
            char item[96];
            int w = snprintf(item, sizeof item, " %.*s=%llu", (int)len, name, (unsigned long long)v[i]);
            if (col > 0 && col + w > 100) {
                fputc('\n', stderr);
                col = 0;
            }
            if (col == 0)
                col = fprintf(stderr, "vax780: stats:");
            fputs(item, stderr);
            col += w;
        }
        name += len + (name[len] == ',');
    }
    if (col > 0)
        fputc('\n', stderr);
    free(v);
}

static void usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "vax780: %s\n", msg);
    fprintf(stderr,
            "usage: vax780 --disk hp0=IMAGE[:TYPE] [--disk hpN=...] [--tape ts0=TAPE] [--mem MB]\n"
            "              [--boot single|multi|askname] [--direct] [--kernel PATH] [--kernel-file FILE] [--cpu 780|750]\n"
            "              [--timing model|flat] [--standalone tape|tape:NAME|FILE] [--set NAME=VALUE] [--script FILE]\n"
            "              [--quiet] [--stats]\n"
            "              [--no-idle-skip] [--disk-timing rp06|eagle|ideal]\n");
    exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    static vax_blockdev disks[VAX780_MAX_DISKS], tape;
    static file_ctx disk_files[VAX780_MAX_DISKS], tape_file;
    const char *script = NULL;
    const char *standalone = NULL;
    const char *kernel_file = NULL;
    int kernel_given = 0;
    int stats = 0;
    session s;
    memset(&s, 0, sizeof s);
    s.method = BOOT_VIA_BOOT_PROGRAM;
    s.howto = 2;   /* single-user, as the paper's benchmarks ran */
    s.kernel = "/vmunix";
    int have_disk = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--disk") && v) {
            i++;
            unsigned unit;
            char path[4096];
            char type[16] = "RP06";
            if (sscanf(v, "hp%u=%4095s", &unit, path) != 2 || unit >= VAX780_MAX_DISKS)
                usage("--disk takes hpN=IMAGE[:TYPE] with N from 0 to 7 (4-7 are on the second MASSBUS)");
            char *colon = strrchr(path, ':');
            if (colon) {
                snprintf(type, sizeof type, "%s", colon + 1);
                *colon = 0;
            }
            char *keep = strdup(path), *tkeep = strdup(type);
            if (!keep || !tkeep)
                die(EXIT_STOPPED, "out of host memory");
            open_image(keep, 0, &disks[unit], &disk_files[unit]);
            cfg.disk[unit].type = tkeep;
            cfg.disk[unit].image = &disks[unit];
            if (unit == 0)
                have_disk = 1;
        } else if (!strcmp(a, "--tape") && v) {
            i++;
            if (strncmp(v, "ts0=", 4) != 0)
                usage("--tape takes ts0=TAPE");
            open_image(v + 4, 1, &tape, &tape_file);
            cfg.tape = &tape;
        } else if (!strcmp(a, "--mem") && v) {
            i++;
            char *end;
            double mb = strtod(v, &end);
            double quarters = mb * 4;   /* exact for any multiple of 0.25 */
            if (end == v || *end || !(quarters >= 1 && quarters <= 256) || quarters != (double)(long)quarters)
                usage("--mem takes a size in MB from 0.25 to 64 in steps of 0.25 (e.g. 4.5)");
            cfg.memory_kb = (uint32_t)quarters * 256;
        } else if (!strcmp(a, "--boot") && v) {
            i++;
            if (!strcmp(v, "single"))
                s.howto = 2;
            else if (!strcmp(v, "multi"))
                s.howto = 0;
            else if (!strcmp(v, "askname"))
                s.howto = 3;
            else
                usage("--boot takes single, multi or askname");
        } else if (!strcmp(a, "--direct")) {
            s.method = BOOT_DIRECT_KERNEL;
        } else if (!strcmp(a, "--kernel") && v) {
            i++;
            s.kernel = v;
            kernel_given = 1;
        } else if (!strcmp(a, "--kernel-file") && v) {
            i++;
            kernel_file = v;
            s.method = BOOT_DIRECT_KERNEL;
        } else if (!strcmp(a, "--standalone") && v) {
            i++;
            standalone = v;
        } else if (!strcmp(a, "--script") && v) {
            i++;
            script = v;
        } else if (!strcmp(a, "--quiet")) {
            s.out.quiet = 1;
        } else if (!strcmp(a, "--cpu") && v) {
            i++;
            /* The presets scale the cost model (src/cpu/timing.h), which is
             * a 780's: 2000 runs it as it is (about 0.5 million instructions
             * a second on a typical mix); the paper takes a 750 as 0.6 of a
             * 780, so 3333 (2000 / 0.6) stretches every cost by 1/0.6. */
            if (!strcmp(v, "780"))
                cfg.ns_per_instruction = 2000;
            else if (!strcmp(v, "750"))
                cfg.ns_per_instruction = 3333;
            else
                usage("--cpu takes 780 or 750");
        } else if (!strcmp(a, "--timing") && v) {
            i++;
            /* model: the per-instruction cost model (the default); flat:
             * the first model, 2000 ns (scaled by --cpu) for every
             * instruction and nothing else — to compare with. */
            if (!strcmp(v, "flat"))
                cfg.flat_timing = 1;
            else if (strcmp(v, "model"))
                usage("--timing takes model or flat");
        } else if (!strcmp(a, "--disk-timing") && v) {
            i++;
            /* The disks' mechanism (src/massbus/rp.c, "Timing profiles"):
             * rp06 (the RP06's own figures), eagle (a Fujitsu M2351 Eagle)
             * or ideal (no seek or rotational latency: not a real drive). */
            if (!rp_timing_find(v))
                usage("--disk-timing takes rp06, eagle or ideal");
            cfg.disk_timing = v;
        } else if (!strcmp(a, "--set") && v) {
            i++;
            const char *eq = strchr(v, '=');
            char *end;
            if (!eq || eq == v || eq - v >= 64 || s.nset >= 32)
                usage("--set takes NAME=VALUE (at most 32 of them)");
            unsigned long val = strtoul(eq + 1, &end, 0);
            if (*end || eq[1] == 0 || eq[1] == '-' || val > 0xFFFFFFFFul)
                usage("--set NAME=VALUE: VALUE must be a number from 0 to 4294967295");
            memcpy(s.set_name[s.nset], v, (size_t)(eq - v));
            s.set_name[s.nset][eq - v] = 0;
            s.set_value[s.nset++] = (uint32_t)val;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (!strcmp(a, "--no-idle-skip")) {
            cfg.no_idle_skip = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(NULL);
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown option %s", a);
            usage(msg);
        }
    }
    if (kernel_file && kernel_given)
        usage("--kernel names a kernel on the disk, --kernel-file one on the host: give one of them");
    if (kernel_file && standalone)
        usage("--kernel-file boots a kernel, --standalone a standalone program: give one of them");
    if (s.nset && s.method != BOOT_DIRECT_KERNEL)
        usage("--set needs --direct: only then does the host load the kernel and can patch it before it runs");
    if (!have_disk)
        usage("a boot disk is needed: --disk hp0=IMAGE");

    char err[256];
    /* The battery-backed TODR of a real 780 would hold the date; ours is
     * set from the time the root file system was last written, so the
     * kernel's clock check agrees and every run starts at the same time.
     * A standalone program may run on a blank disk: the TODR keeps its
     * default then. */
    if (boot_todr_from_disk(&disks[0], &cfg.todr_initial, err, sizeof err) < 0) {
        cfg.todr_initial = 0;
        if (!standalone)
            die(EXIT_IMAGE, "%s: %s", disk_files[0].path, err);
    }
    uint8_t *kernel_prog = NULL;
    if (kernel_file) {
        vax_blockdev bd;
        file_ctx f;
        open_image(kernel_file, 1, &bd, &f);
        if (bd.size == 0 || bd.size > (64u << 20))
            die(EXIT_IMAGE, "--kernel-file %s: %llu bytes is not a kernel", kernel_file, (unsigned long long)bd.size);
        kernel_prog = malloc((size_t)bd.size);
        if (!kernel_prog)
            die(EXIT_STOPPED, "out of host memory");
        if (bd.read(&bd, 0, kernel_prog, (size_t)bd.size) != 0)
            die(EXIT_IMAGE, "cannot read %s", kernel_file);
        close(f.fd);
        s.kernel_image = kernel_prog;
        s.kernel_image_len = (size_t)bd.size;
        s.kernel = kernel_file;
    }
    uint8_t *standalone_prog = NULL;
    if (standalone) {
        if (!strcmp(standalone, "tape")) {
            if (!cfg.tape)
                usage("--standalone tape needs --tape ts0=TAPE");
            s.tape_boot = cfg.tape;
        } else if (!strncmp(standalone, "tape:", 5)) {
            if (!cfg.tape)
                usage("--standalone tape:NAME needs --tape ts0=TAPE");
            if (standalone_from_tape(cfg.tape, standalone + 5, &standalone_prog, &s.standalone_len, NULL, err,
                                     sizeof err) != 0)
                die(EXIT_IMAGE, "%s: %s", tape_file.path, err);
            s.standalone_r10 = TSBOOT_R10_UBA0;
            s.standalone_r11 = TSBOOT_R11_TSCSR;
        } else {
            vax_blockdev bd;
            file_ctx f;
            open_image(standalone, 1, &bd, &f);
            s.standalone_len = (size_t)bd.size;
            standalone_prog = malloc(s.standalone_len ? s.standalone_len : 1);
            if (!standalone_prog)
                die(EXIT_STOPPED, "out of host memory");
            if (bd.size == 0 || bd.read(&bd, 0, standalone_prog, s.standalone_len) != 0)
                die(EXIT_IMAGE, "cannot read %s", standalone);
            close(f.fd);
            s.standalone_r10 = 0;
            s.standalone_r11 = s.howto;
        }
        s.standalone = standalone_prog;
    }
    s.sys = vax780_create(&cfg, err, sizeof err);
    if (!s.sys)
        die(EXIT_IMAGE, "%s", err);
    vax780_set_console_output(s.sys, console_out, &s.out);
    s.boot_disk = &disks[0];
    s.boot_type = cfg.disk[0].type;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    boot(&s, s.howto);

    if (script) {
        run_script(&s, script);
    } else {
        while (!run_slice(&s, 1))
            ;
    }
    fflush(stdout);
    if (stats) {
        /* Host time is measured here only to report speed; it never
         * influences the guest, whose time is virtual. */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double host = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        print_counters(s.sys);
        uint64_t n = vax_instruction_count(s.sys->m);
        fprintf(stderr, "vax780: %llu instructions, %.3f virtual s, %.3f host s, %.1f million instructions/s\n",
                (unsigned long long)n, vseconds(&s), host, host > 0 ? (double)n / host / 1e6 : 0.0);
    }
    vax780_destroy(s.sys);
    free(standalone_prog);
    free(kernel_prog);
    return 0;
}
