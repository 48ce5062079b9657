/*
 * vax780 — the headless VAX-11/780: boots 4.3BSD from a disk image (or
 * starts a standalone program) and drives its console from a script.  Used
 * by the tests, the benchmarks and the installer.  Everything about the
 * machine and how it boots is system/session.h; this file is the command
 * line, the files and the script.
 *
 *   vax780 --disk hp0=IMAGE[:TYPE] | --disk ra0=IMAGE[:TYPE] [--disk hpN|raN=...] [--snapshot]
 *          [--tape ts0=TAPE] [--mem MB]
 *          [--boot single|multi|askname] [--direct] [--kernel PATH] [--kernel-file FILE]
 *          [--cpu 780|750|750x0.6] [--timing model|flat] [--standalone tape|tape:NAME|FILE] [--set NAME=VALUE]
 *          [--script FILE] [--quiet] [--stats] [--no-idle-skip] [--disk-timing rp06|eagle|ideal|rm05]
 *          [--disk-spin SEED] [--profile FILE] [--restore FILE]
 *   vax780 --disk raN=IMAGE[:TYPE] --console-boot vmb=FILE [--boot-device duaN] [--boot-flags N] ...
 *   vax780 --load FILE[@ADDR] [--load ...] --start ADDR [--reg NAME=VALUE ...] [--mem MB] [--script FILE] ...
 *
 * --disk raN=IMAGE[:TYPE] (N 0-3, TYPE RA60, RA80, RA81 (the default) or
 * RA82) is an RA drive on the UDA50 (MSCP) at 772150 on UBA0; the image must
 * be exactly the pack's size.  Without hp0, ra0 is the boot disk: /boot and
 * the kernel are told R10 = ra.  --snapshot keeps every disk's writes in
 * host memory (the files are opened read-only and never change) and lets an
 * RA image be shorter than its pack, the rest reading as zeros (DEC's
 * diagnostic disk).
 * --console-boot vmb=FILE boots as the 780 console's BOOT command does:
 * DEC's primary bootstrap VMB.EXE loaded at 0x200 and started with R0-R3
 * naming --boot-device (dua0, the default, to dua3) and R5 = --boot-flags
 * (0x10: stop in the Diagnostic Supervisor); see src/boot/vmb.h.  A reboot
 * the guest asks for goes through VMB again.
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
 * --load FILE[@ADDR] and --start ADDR are the console's LOAD and START (DEC's
 * diagnostics); --reg NAME=VALUE sets a register before START.  No disk is
 * needed.
 * --stats prints, at exit, the hardware model's counters that are not zero
 * (src/system/vax780_stats.h), then one line with the instruction count,
 * virtual and host time.  --no-idle-skip runs the kernel's idle loop
 * instruction by instruction instead of skipping it (vax_set_idle_skip):
 * the guest runs the same either way, only host time differs.
 * --profile FILE profiles everything the processor runs from the boot on
 * (src/profile/profile.h; the guest runs exactly as without it) and writes
 * the profile to FILE at the end, as JSON ("vaxlab-profile-raw": the
 * TypeScript in experiments/profile reads it); the script commands
 * profile-clear and profile-write FILE zero it and write it at that point.
 * --restore FILE (with --snapshot) starts from a machine snapshot that the
 * script command `save FILE` wrote (src/snapshot/snap.h): instead of
 * booting, the machine takes the saved state and runs on exactly as the
 * saved one did.  The other options must describe the same system (memory,
 * --cpu, disks and their timing, --disk-spin, --set, the kernel, how it
 * booted) and the boot disk's image must be the same file contents (its
 * SHA-256 is in the snapshot; hashed once and then kept beside the image in
 * IMAGE.vaxlab-id, used only while the file is unchanged: src/storage/image_id.h);
 * otherwise exit 2 (another configuration) or 3
 * (not a snapshot, damaged, another emulator build or image), with the
 * reason.  What the console printed and no expect matched yet travels in
 * the snapshot too, so a script continues as it would have.
 *
 * The console transcript goes to stdout.  Script lines:
 *   expect TEXT     wait until the console output since the previous match contains TEXT
 *                   (TEXT may use the escapes of `type`, e.g. `expect \n# ` for a shell prompt)
 *   send TEXT       type TEXT and a carriage return
 *   type TEXT       type TEXT without a carriage return (C escapes: \r \n \t \\ \xHH)
 *   timeout N       limit, in virtual seconds, for each following expect (default 60)
 *   wait-halt       wait until the guest halts (a clean shutdown), within the timeout;
 *                   a typed ^P (type \x10) is the operator's ^P HALT at the 780's console
 *   profile-clear   zero the profile (--profile): what follows is profiled on its own
 *   profile-write FILE   write the profile so far to FILE
 *   report LABEL    print "vax780: report LABEL: N instructions, V virtual s, H host s" on
 *                   stderr (where the run is, e.g. before and after a diagnostic)
 *   save FILE       write a snapshot of the whole machine to FILE (needs --snapshot: the disks'
 *                   writes must be in overlays for the snapshot to hold them); --restore FILE
 *                   starts from it
 *   # ...           comment
 * Exit status: 0 when the script is done (or, without a script, when the
 * guest halts); otherwise non-zero with a one-line reason on stderr:
 *   1 an expect or wait-halt timed out       4 the guest halted unexpectedly
 *   2 bad command line or script             5 the kernel panicked
 *   3 a missing or malformed image           6 the processor stopped (double fault...)
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "boot/boot.h"
#include "boot/standalone.h"
#include "storage/image_id.h"
#include "storage/blockdev_file.h"
#include "storage/overlay.h"
#include "system/session.h"
#include "vax.h"

#define EXIT_TIMEOUT 1
#define EXIT_USAGE 2
#define EXIT_IMAGE 3
#define EXIT_HALT 4
#define EXIT_PANIC 5
#define EXIT_STOPPED 6

#define SLICE 200000u        /* instructions between looks at the console output */
#define MAX_LOADS 8
#define MAX_REGS 16
#define PANIC_DRAIN_NS 2000000000ull   /* after a panic, let the kernel finish its message */

/* ------------------------------------------------------------ messages */

/* One line on stderr, whatever the text holds: control characters and
 * bytes outside ASCII (from a file name, a script, the guest) are escaped. */
static void die(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
static void die(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fputs("vax780: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", stderr);
        else if (*p >= 0x20 && *p < 0x7f)
            fputc(*p, stderr);
        else if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p == '\r')
            fputs("\\r", stderr);
        else
            fprintf(stderr, "\\x%02x", *p);
    }
    fputc('\n', stderr);
    exit(code);
}

static const char usage_text[] =
    "usage: vax780 --disk hp0=IMAGE[:TYPE] | --disk ra0=IMAGE[:TYPE] [--disk hpN|raN=...] [--snapshot]\n"
    "              [--tape ts0=TAPE] [--mem MB]\n"
    "              [--boot single|multi|askname] [--direct] [--kernel PATH] [--kernel-file FILE]\n"
    "              [--cpu 780|750|750x0.6] [--timing model|flat] [--standalone tape|tape:NAME|FILE] [--set NAME=VALUE]\n"
    "              [--script FILE] [--quiet] [--stats] [--no-idle-skip] [--disk-timing rp06|eagle|ideal|rm05]\n"
    "              [--disk-spin SEED] [--profile FILE] [--restore FILE (with --snapshot)]\n"
    "       vax780 --disk raN=IMAGE[:TYPE] --console-boot vmb=FILE [--boot-device duaN] [--boot-flags N] ...\n"
    "       vax780 --load FILE[@ADDR] [--load ...] --start ADDR [--reg NAME=VALUE ...] [--mem MB]\n"
    "              [--script FILE] [--quiet] [--stats] ...\n";

static void usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
static void usage(const char *fmt, ...)
{
    if (fmt) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "vax780: %s\n", msg);
    }
    fputs(usage_text, stderr);
    exit(EXIT_USAGE);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die(EXIT_STOPPED, "out of host memory");
    return p;
}

/* ------------------------------------------------------------ files */

typedef struct {
    blockdev_file file;
    char *path;
} image_file;

/* Open an image (storage/blockdev_file.h: locked, so two machines never
 * write one pack). */
static void image_open(image_file *f, const char *path, int read_only)
{
    char err[320];
    if (blockdev_file_open(&f->file, path, read_only, err, sizeof err) < 0)
        die(EXIT_IMAGE, "%s", err);
    f->path = strdup(path);
    if (!f->path)
        die(EXIT_STOPPED, "out of host memory");
}

static void image_close(image_file *f)
{
    if (f->path) {
        blockdev_file_close(&f->file);
        free(f->path);
        f->path = NULL;
    }
}

/* A whole host file (--load, --standalone FILE), at most 64 MB. */
static uint8_t *read_whole(const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) < 0)
        die(EXIT_IMAGE, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        die(EXIT_IMAGE, "%s is not a regular file", path);
    if (st.st_size == 0)
        die(EXIT_IMAGE, "%s is empty", path);
    if (st.st_size > (off_t)64 << 20)
        die(EXIT_IMAGE, "%s is larger than the largest memory (64 MB)", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        die(EXIT_IMAGE, "cannot open %s: %s", path, strerror(errno));
    uint8_t *p = xmalloc((size_t)st.st_size);
    size_t n = fread(p, 1, (size_t)st.st_size, f);
    fclose(f);
    if (n != (size_t)st.st_size)
        die(EXIT_IMAGE, "cannot read %s", path);
    *len = n;
    return p;
}

/* ------------------------------------------------------------ options */

typedef enum {
    START_DISK,
    START_KERNEL,
    START_STANDALONE_FILE,
    START_TAPE_BLOCK,
    START_TAPE_PROGRAM,
    START_LOAD,
    START_VMB
} start_kind;

typedef struct {
    vax_session_config cfg;
    image_file disks[VAX_SESSION_MAX_DISKS], tape;
    image_file ras[VAX_SESSION_MAX_RA];
    /* Paths and types as given, opened once all options are known
     * (--snapshot opens them read-only). */
    char *disk_path[VAX_SESSION_MAX_DISKS], *ra_path[VAX_SESSION_MAX_RA];
    /* With --snapshot, what the machine sees: overlays over the files. */
    vax_blockdev disk_over[VAX_SESSION_MAX_DISKS], ra_over[VAX_SESSION_MAX_RA];
    int snapshot;
    int have_tape;
    const char *console_boot;   /* --console-boot vmb=FILE's FILE, or NULL */
    const char *boot_device;    /* --boot-device, or NULL (dua0) */
    int have_boot_flags;
    uint32_t boot_flags;
    start_kind start;
    uint32_t howto;
    const char *kernel;
    int kernel_given;
    const char *kernel_file;    /* --kernel-file: a kernel from the host */
    const char *standalone;     /* FILE or tape:NAME's NAME */
    int nset;
    struct {
        char name[64];
        uint32_t value;
    } set[VAX_SESSION_MAX_SETTINGS];
    int nload;
    struct {
        char *path;
        uint32_t addr;
    } load[MAX_LOADS];
    int have_start;
    uint32_t start_addr;
    int nreg;
    int reg_num[MAX_REGS];
    uint32_t reg_value[MAX_REGS];
    const char *script;
    const char *profile;
    const char *restore;        /* --restore FILE: a snapshot instead of the boot */
    int quiet, stats;
} options;

/* A number as C writes it (0x1F, 017, 31), fitting 32 bits; -1 if not. */
static int parse_u32(const char *v, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || *v == '-' || *v == '+' || *v == ' ' || errno || x > 0xFFFFFFFFull)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

/* A kernel longword as --set takes it: unsigned (0 to 4294967295) or, for a
 * C int such as maxtextcache, negative (-2147483648 to -1, stored as its
 * two's complement); -1 if not. */
static int parse_longword(const char *v, uint32_t *out)
{
    uint32_t magnitude;
    if (*v != '-')
        return parse_u32(v, out);
    if (parse_u32(v + 1, &magnitude) < 0 || magnitude > 0x80000000u)
        return -1;
    *out = (uint32_t)(0u - magnitude);
    return 0;
}

/* R0..R13, AP, FP, SP by name; -1 if unknown.  PC is --start's. */
static int parse_reg(const char *name, size_t len)
{
    static const char *const alias[] = { "ap", "fp", "sp" };
    for (int i = 0; i < 3; i++)
        if (len == 2 && !strncmp(name, alias[i], 2))
            return 12 + i;
    if (len < 2 || len > 3 || (name[0] != 'r' && name[0] != 'R'))
        return -1;
    int n = 0;
    for (size_t i = 1; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n <= 13 && !(len == 3 && name[1] == '0') ? n : -1;
}

/* --disk hpN=IMAGE[:TYPE] or raN=IMAGE[:TYPE]; opened by open_disks. */
static void option_disk(options *o, const char *v)
{
    int ra = !strncmp(v, "ra", 2);
    if (ra ? v[2] < '0' || v[2] > '3' || v[3] != '=' || !v[4]
           : strncmp(v, "hp", 2) != 0 || v[2] < '0' || v[2] > '7' || v[3] != '=' || !v[4])
        usage("--disk takes hpN=IMAGE[:TYPE] with N from 0 to 7 (4-7 are on the second MASSBUS) "
              "or raN=IMAGE[:TYPE] with N from 0 to 3 (the UDA50's drives)");
    int unit = v[2] - '0';
    char **slot = ra ? &o->ra_path[unit] : &o->disk_path[unit];
    if (*slot)
        usage("--disk %s%d given twice", ra ? "ra" : "hp", unit);
    char *path = strdup(v + 4);
    if (!path)
        die(EXIT_STOPPED, "out of host memory");
    const char *type = ra ? "RA81" : "RP06";
    char *colon = strrchr(path, ':');
    if (colon) {
        *colon = 0;
        type = colon + 1;
    }
    if (ra && !vax_session_ra_name(type))
        usage("--disk ra%d: unknown drive type \"%s\" (known: %s)", unit, type, vax_session_ra_names());
    char *type_copy = strdup(ra ? vax_session_ra_name(type) : type);   /* freed at exit */
    if (!type_copy)
        die(EXIT_STOPPED, "out of host memory");
    if (ra)
        o->cfg.ra[unit].type = type_copy;
    else
        o->cfg.disk[unit].type = type_copy;
    *slot = path;
}

/* Open the disks.  An RA image must be its pack's size; with --snapshot
 * the files are only read, the machine writing into overlays in host
 * memory, and an RA image may be the start of its pack. */
static void open_disks(options *o)
{
    for (int u = 0; u < VAX_SESSION_MAX_DISKS; u++) {
        if (!o->disk_path[u])
            continue;
        image_open(&o->disks[u], o->disk_path[u], o->snapshot);
        o->cfg.disk[u].image = &o->disks[u].file.bd;
        if (o->snapshot) {
            if (blockdev_overlay(&o->disk_over[u], &o->disks[u].file.bd) < 0)
                die(EXIT_STOPPED, "out of host memory");
            o->cfg.disk[u].image = &o->disk_over[u];
        }
    }
    for (int u = 0; u < VAX_SESSION_MAX_RA; u++) {
        if (!o->ra_path[u])
            continue;
        image_open(&o->ras[u], o->ra_path[u], o->snapshot);
        const char *type = o->cfg.ra[u].type;
        uint64_t want = vax_session_ra_bytes(type), have = o->ras[u].file.bd.size;
        if (o->snapshot ? have > want || have % 512u : have != want)
            die(EXIT_IMAGE, "ra%d: %s is %llu bytes; an %s pack is %llu bytes (%llu blocks)%s", u, o->ra_path[u],
                (unsigned long long)have, type, (unsigned long long)want, (unsigned long long)(want / 512u),
                !o->snapshot && have < want && have % 512u == 0 ? " (a shorter image needs --snapshot)" : "");
        o->cfg.ra[u].image = &o->ras[u].file.bd;
        if (o->snapshot) {
            if (blockdev_overlay_sized(&o->ra_over[u], &o->ras[u].file.bd, want) < 0)
                die(EXIT_STOPPED, "out of host memory");
            o->cfg.ra[u].image = &o->ra_over[u];
        }
    }
}

static void parse_options(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->start = START_DISK;
    o->howto = RB_SINGLE;   /* single-user, as the paper's benchmarks ran */
    o->kernel = "/vmunix";
    int direct = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const with_value[] = { "--disk", "--tape", "--mem", "--boot", "--kernel", "--kernel-file",
                                                  "--standalone", "--script", "--cpu", "--timing", "--disk-timing",
                                                  "--disk-spin", "--set", "--load", "--start", "--reg", "--console-boot",
                                                  "--boot-device", "--boot-flags", "--profile", "--restore" };
        int takes_value = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            takes_value |= !strcmp(a, with_value[k]);
        if (takes_value && !v)
            usage("%s needs a value", a);
        if (takes_value)
            i++;
        if (!strcmp(a, "--disk")) {
            option_disk(o, v);
        } else if (!strcmp(a, "--tape")) {
            if (strncmp(v, "ts0=", 4) != 0 || !v[4])
                usage("--tape takes ts0=TAPE");
            if (o->have_tape)
                usage("--tape given twice");
            image_open(&o->tape, v + 4, 1);
            o->have_tape = 1;
            o->cfg.tape = &o->tape.file.bd;
        } else if (!strcmp(a, "--mem")) {
            char *end;
            double mb = strtod(v, &end);
            double quarters = mb * 4;   /* exact for any multiple of 0.25 */
            if (end == v || *end || !(quarters >= 1 && quarters <= 256) || quarters != (double)(long)quarters)
                usage("--mem takes a size in MB from 0.25 to 64 in steps of 0.25 (e.g. 4.5)");
            o->cfg.memory_kb = (uint32_t)quarters * 256;
        } else if (!strcmp(a, "--boot")) {
            if (!strcmp(v, "single"))
                o->howto = RB_SINGLE;
            else if (!strcmp(v, "multi"))
                o->howto = 0;
            else if (!strcmp(v, "askname"))
                o->howto = RB_ASKNAME | RB_SINGLE;
            else
                usage("--boot takes single, multi or askname");
        } else if (!strcmp(a, "--direct")) {
            direct = 1;
        } else if (!strcmp(a, "--kernel")) {
            o->kernel = v;
            o->kernel_given = 1;
        } else if (!strcmp(a, "--kernel-file")) {
            o->kernel_file = v;
            direct = 1;
        } else if (!strcmp(a, "--standalone")) {
            o->standalone = v;
        } else if (!strcmp(a, "--script")) {
            o->script = v;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--cpu")) {
            /* The processor modelled (src/cpu/timing.h, emu/docs/timing.md):
             * 780 or 750, each with its own cycle, cache and TB; 750x0.6 is
             * the old preset, the 780's model stretched by 1/0.6 (the
             * paper's "a 750 runs at 60% of a 780"), to compare with. */
            if (!strcmp(v, "780"))
                o->cfg.ns_per_instruction = VAX_NS_PER_INSTRUCTION_780;
            else if (!strcmp(v, "750"))
                o->cfg.ns_per_instruction = VAX_NS_PER_INSTRUCTION_750;
            else if (!strcmp(v, "750x0.6"))
                o->cfg.ns_per_instruction = VAX_NS_PER_INSTRUCTION_750X06;
            else
                usage("--cpu takes 780, 750 or 750x0.6");
            o->cfg.cpu_model = !strcmp(v, "750") ? 750 : 780;
        } else if (!strcmp(a, "--timing")) {
            /* model: the per-instruction cost model (the default); flat:
             * the first model, 2000 ns (scaled by --cpu) for every
             * instruction and nothing else — to compare with. */
            if (!strcmp(v, "flat"))
                o->cfg.flat_timing = 1;
            else if (strcmp(v, "model"))
                usage("--timing takes model or flat");
        } else if (!strcmp(a, "--disk-timing")) {
            if (!vax_session_disk_timing_known(v))
                usage("--disk-timing takes %s", vax_session_disk_timing_names());
            o->cfg.disk_timing = v;
        } else if (!strcmp(a, "--disk-spin")) {
            /* 0: the disks turn in step with virtual time; N: each disk
             * command finds the platter at a pseudo-random angle from seed N
             * (src/massbus/rp.h, rp_set_spin_seed), and each interval-clock
             * interrupt comes a pseudo-random delay after its overflow
             * (src/system/clock.h, clock_set_sample_seed). */
            char *end;
            unsigned long seed = strtoul(v, &end, 10);
            if (*v == 0 || *end || seed > 0xFFFFFFFFul)
                usage("--disk-spin takes a seed: 0 (locked to virtual time) or a positive number");
            o->cfg.disk_spin_seed = (uint32_t)seed;
        } else if (!strcmp(a, "--set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || eq - v >= 64 || o->nset >= VAX_SESSION_MAX_SETTINGS)
                usage("--set takes NAME=VALUE (at most %d of them)", VAX_SESSION_MAX_SETTINGS);
            if (parse_longword(eq + 1, &o->set[o->nset].value) < 0)
                usage("--set NAME=VALUE: VALUE must be a number from -2147483648 to 4294967295");
            memcpy(o->set[o->nset].name, v, (size_t)(eq - v));
            o->set[o->nset++].name[eq - v] = 0;
        } else if (!strcmp(a, "--load")) {
            /* FILE[@ADDR]: the last @ separates the address, so a file
             * name may contain @ when an address is given. */
            if (o->nload >= MAX_LOADS)
                usage("--load: at most %d files", MAX_LOADS);
            char *copy = strdup(v);
            if (!copy)
                die(EXIT_STOPPED, "out of host memory");
            char *at = strrchr(copy, '@');
            uint32_t addr = 0;
            if (at) {
                *at = 0;
                if (parse_u32(at + 1, &addr) < 0)
                    usage("--load takes FILE[@ADDR] with ADDR a physical address such as 0x200");
            }
            if (!*copy)
                usage("--load takes FILE[@ADDR]");
            o->load[o->nload].path = copy;
            o->load[o->nload++].addr = addr;
        } else if (!strcmp(a, "--start")) {
            if (parse_u32(v, &o->start_addr) < 0)
                usage("--start takes a physical address such as 0x200");
            o->have_start = 1;
        } else if (!strcmp(a, "--reg")) {
            const char *eq = strchr(v, '=');
            int r = eq ? parse_reg(v, (size_t)(eq - v)) : -1;
            if (r < 0 || o->nreg >= MAX_REGS || parse_u32(eq + 1, &o->reg_value[o->nreg]) < 0)
                usage("--reg takes NAME=VALUE with NAME one of r0..r13, ap, fp, sp (at most %d)", MAX_REGS);
            o->reg_num[o->nreg++] = r;
        } else if (!strcmp(a, "--snapshot")) {
            o->snapshot = 1;
        } else if (!strcmp(a, "--console-boot")) {
            if (strncmp(v, "vmb=", 4) != 0 || !v[4])
                usage("--console-boot takes vmb=FILE (DEC's primary bootstrap, VMB.EXE)");
            o->console_boot = v + 4;
        } else if (!strcmp(a, "--boot-device")) {
            o->boot_device = v;
        } else if (!strcmp(a, "--boot-flags")) {
            if (parse_u32(v, &o->boot_flags) < 0)
                usage("--boot-flags takes a number (R5 for VMB, e.g. 0x10)");
            o->have_boot_flags = 1;
        } else if (!strcmp(a, "--profile")) {
            o->profile = v;
        } else if (!strcmp(a, "--restore")) {
            o->restore = v;
        } else if (!strcmp(a, "--stats")) {
            o->stats = 1;
        } else if (!strcmp(a, "--no-idle-skip")) {
            o->cfg.no_idle_skip = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            /* Asked for: the usage on stdout and exit 0, as `vaxlab --help`
             * does (it was exit 2 on stderr, as for a bad command line). */
            fputs(usage_text, stdout);
            exit(0);
        } else {
            usage("unknown option %s", a);
        }
    }

    if (o->kernel_file && o->kernel_given)
        usage("--kernel names a kernel on the disk, --kernel-file one on the host: give one of them");
    if (o->kernel_file && (o->standalone || o->nload || o->console_boot))
        usage("--kernel-file boots a kernel, not a standalone program, a --load or VMB: give one of them");

    /* What starts the machine. */
    if ((o->boot_device || o->have_boot_flags) && !o->console_boot)
        usage("--boot-device and --boot-flags are VMB's: they need --console-boot vmb=FILE");
    if (o->console_boot) {
        if (o->nload || o->have_start || o->nreg || o->standalone || o->nset || direct)
            usage("--console-boot boots through VMB: not with --load, --start, --reg, --standalone, --direct or --set");
        const char *dev = o->boot_device ? o->boot_device : "dua0";
        if (strlen(dev) != 4 || strncasecmp(dev, "dua", 3) != 0 || dev[3] < '0' || dev[3] > '3')
            usage("--boot-device takes dua0 to dua3 (the UDA50's drives), not \"%s\"", dev);
        if (!o->ra_path[dev[3] - '0'])
            usage("--boot-device %s: there is no --disk ra%c", dev, dev[3]);
        o->boot_device = dev;
        o->start = START_VMB;
    } else if (o->nload || o->have_start || o->nreg) {
        if (!o->nload)
            usage(o->have_start ? "--start needs --load FILE[@ADDR]"
                                : "--reg is for --load/--start (the boot methods set their own registers)");
        if (!o->have_start)
            usage("--load needs --start ADDR (where the console starts the program)");
        if (o->standalone || o->nset || direct)
            usage("--load/--start replace booting: not with --standalone, --direct or --set");
        o->start = START_LOAD;
    } else if (o->standalone) {
        if (o->nset || direct)
            usage("--standalone starts a program, not the kernel: not with --direct or --set");
        if (!strcmp(o->standalone, "tape")) {
            if (!o->have_tape)
                usage("--standalone tape needs --tape ts0=TAPE");
            o->start = START_TAPE_BLOCK;
        } else if (!strncmp(o->standalone, "tape:", 5)) {
            if (!o->have_tape)
                usage("--standalone tape:NAME needs --tape ts0=TAPE");
            o->start = START_TAPE_PROGRAM;
        } else {
            o->start = START_STANDALONE_FILE;
        }
    } else {
        if (o->nset && !direct)
            usage("--set needs --direct: only then does the host load the kernel and can patch it before it runs");
        o->start = direct ? START_KERNEL : START_DISK;
    }
    if (o->restore && !o->snapshot)
        usage("--restore needs --snapshot: a snapshot holds what the machine wrote, kept in overlays over the images");
    if (!o->cfg.disk[0].type && !o->cfg.ra[0].type && o->start != START_LOAD && o->start != START_VMB)
        usage("a boot disk is needed: --disk hp0=IMAGE or --disk ra0=IMAGE (or --load FILE@ADDR --start ADDR)");
    open_disks(o);
}

/* ------------------------------------------------------------ the console transcript */

/* What the guest printed since the last match, for `expect`.  Searching is
 * linear in the output however long the wait: a look that finds nothing
 * keeps only the last (length - 1) bytes, which a match ending in later
 * output may begin with, and a match drops everything up to its end.
 * Only a script reads it (its expects, and `save`, whose snapshot holds
 * what no expect matched yet); without a script nothing is kept, or a long
 * run would hold all it ever printed (stdout has it). */
typedef struct {
    char *buf;
    size_t len, cap;
    int quiet;
    int keep;   /* a script runs: keep what its expects have not matched */
} transcript;

static void transcript_add(transcript *t, const uint8_t *p, size_t n)
{
    if (!t->quiet)
        fwrite(p, 1, n, stdout);
    if (!t->keep)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 65536;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            die(EXIT_STOPPED, "out of host memory");
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    t->buf[t->len] = 0;
}

/* Find text (len > 0) in the output since the previous match; on a match,
 * drop everything up to its end. */
static int transcript_match(transcript *t, const char *text, size_t tlen)
{
    if (t->len < tlen)
        return 0;
    const char *hit = NULL;
    for (const char *p = t->buf; p + tlen <= t->buf + t->len; p++) {
        p = memchr(p, text[0], (size_t)(t->buf + t->len - p) - tlen + 1);
        if (!p)
            break;
        if (!memcmp(p, text, tlen)) {
            hit = p;
            break;
        }
    }
    if (!hit) {
        /* Keep the last tlen - 1 bytes: a match may end in the next output. */
        size_t keep = tlen - 1;
        if (t->len > keep) {
            memmove(t->buf, t->buf + t->len - keep, keep);
            t->len = keep;
            t->buf[t->len] = 0;
        }
        return 0;
    }
    size_t end = (size_t)(hit - t->buf) + tlen;
    memmove(t->buf, t->buf + end, t->len - end + 1);
    t->len -= end;
    return 1;
}

/* ------------------------------------------------------------ running */

typedef struct {
    options *o;
    vax_session *s;
    transcript out;
    int halted;   /* the guest has halted (a script's expect may still match what it printed) */
    struct timespec t0;   /* when the machine started, for host seconds in reports */
    uint8_t disk_id[32];  /* the boot disk's SHA-256 (disk_identity), once known */
    int have_disk_id;
} run;

static void drain_console(run *r)
{
    uint8_t buf[4096];
    uint32_t n;
    while ((n = vax_session_console_read(r->s, buf, sizeof buf)) > 0)
        transcript_add(&r->out, buf, n);
    fflush(stdout);
}

static double vseconds(run *r) { return (double)vax_session_time_ns(r->s) / 1e9; }

/* The kernel panicked: let it finish printing its message (it syncs the
 * disks and asks for a reboot or halts), then say so. */
static void panicked(run *r)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s", vax_session_panic(r->s));   /* a reboot forgets it */
    uint64_t until = vax_session_time_ns(r->s) + PANIC_DRAIN_NS;
    while (vax_session_time_ns(r->s) < until) {
        int rc = vax_session_run(r->s, SLICE);
        if (rc == VAX_SESSION_REBOOTED)
            break;
        drain_console(r);
        if (rc != VAX_STOP_BUDGET)
            break;
    }
    drain_console(r);
    die(EXIT_PANIC, "kernel panic: %s", msg);
}

/* Run one slice; handle reboots, panics and stops.  Returns 1 if the guest
 * halted (and halting is acceptable), 0 otherwise. */
static int run_slice(run *r, int halt_ok)
{
    int rc = vax_session_run(r->s, SLICE);
    drain_console(r);
    switch (rc) {
    case VAX_STOP_BUDGET:
    case VAX_SESSION_REBOOTED:
        return 0;
    case VAX_SESSION_PANICKED:
        panicked(r);
        return 1;
    case VAX_STOP_HALT:
        if (halt_ok)
            return 1;
        die(EXIT_HALT, "guest halted: %s", vax_session_stop_detail(r->s));
    case VAX_STOP_HOST_REQUEST:
        die(EXIT_STOPPED, "stopped: %s", vax_session_stop_detail(r->s));
    case -1:
        die(EXIT_IMAGE, "reboot: %s", vax_session_error(r->s));
    default:
        die(EXIT_STOPPED, "processor stopped (%s): %s", vax_stop_reason_name((vax_stop_reason)rc),
            vax_session_stop_detail(r->s));
    }
}

/* Type text: what does not fit in the console's input queue (8192
 * characters) waits for room, the guest running meanwhile, within the
 * script's current timeout: a paste of any length arrives whole. */
static void type_text(run *r, const char *text, size_t len, double limit, const char *where)
{
    double deadline = vseconds(r) + limit;
    for (;;) {
        uint32_t chunk = len > 0x10000 ? 0x10000 : (uint32_t)len;
        uint32_t n = vax_session_type(r->s, text, chunk);
        text += n;
        len -= n;
        if (len == 0)
            return;
        if (r->halted || vseconds(r) > deadline)
            die(EXIT_TIMEOUT, "%s: %zu characters still to type: the guest did not read them within %g virtual seconds",
                where, len, limit);
        if (run_slice(r, 1))
            r->halted = 1;
    }
}

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

/* A timeout: a positive, finite number of seconds, the whole argument. */
static int parse_seconds(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x <= 0 || x > 1e9)
        return -1;
    *out = x;
    return 0;
}

static double host_seconds(const run *r)
{
    /* Host time only reports speed; it never reaches the guest. */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) * 1e-9;
}

/* A script's `report LABEL`: where the run is, on stderr. */
static void report(run *r, const char *label)
{
    fflush(stdout);
    fprintf(stderr, "vax780: report %s: %llu instructions, %.3f virtual s, %.3f host s\n", label,
            (unsigned long long)vax_instruction_count(vax_session_machine(r->s)), vseconds(r), host_seconds(r));
}

/* The profile so far to path (--profile, profile-write). */
static void write_profile(vax_session *s, const char *path)
{
    size_t len;
    char *json = vax_session_profile_json(s, &len);
    if (!json)
        die(EXIT_USAGE, "--profile: no profile (out of host memory)");
    FILE *f = fopen(path, "w");
    if (!f || fwrite(json, 1, len, f) != len || fclose(f) != 0)
        die(EXIT_USAGE, "--profile: cannot write %s: %s", path, strerror(errno));
    free(json);
}

/* The identity a snapshot records for the disks: the SHA-256 of the boot
 * disk's image file (hp0, else ra0), as the browser's manifest gives it for
 * the same pack.  Found once, when a snapshot is first saved or read: kept
 * beside the image after the first time it is hashed (IMAGE.vaxlab-id,
 * storage/image_id.h: used only while the file is unchanged since). */
static const uint8_t *disk_identity(run *r)
{
    if (r->have_disk_id)
        return r->disk_id;
    const image_file *f = r->o->disk_path[0] ? &r->o->disks[0] : r->o->ra_path[0] ? &r->o->ras[0] : NULL;
    if (!f)
        return NULL;
    char err[320];
    if (image_id_get(f->path, f->file.fd, &f->file.bd, r->disk_id, err, sizeof err) < 0)
        die(EXIT_IMAGE, "%s", err);
    r->have_disk_id = 1;
    return r->disk_id;
}

/* `save FILE`: the machine, and the output no expect has matched yet. */
static void save_snapshot(run *r, const char *path)
{
    size_t len;
    uint8_t *snap = vax_session_snapshot(r->s, disk_identity(r), (const uint8_t *)r->out.buf, (uint32_t)r->out.len, &len);
    if (!snap)
        die(EXIT_USAGE, "save %s: %s", path, vax_session_error(r->s));
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(snap, 1, len, f) != len || fclose(f) != 0)
        die(EXIT_USAGE, "save: cannot write %s: %s", path, strerror(errno));
    free(snap);
}

static void run_script(run *r, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        die(EXIT_USAGE, "cannot open script %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        die(EXIT_USAGE, "script %s is not a regular file", path);
    FILE *f = fopen(path, "r");
    if (!f)
        die(EXIT_USAGE, "cannot open script %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    double limit = 60;
    int lineno = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {   /* lines of any length */
        lineno++;
        size_t n = (size_t)got;
        if (memchr(line, 0, n))
            die(EXIT_USAGE, "%s:%d: a NUL byte in the script", path, lineno);
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
            size_t tlen = unescape(arg);
            if (tlen == 0)
                die(EXIT_USAGE, "%s:%d: expect needs text", path, lineno);
            double deadline = vseconds(r) + limit;
            while (!transcript_match(&r->out, arg, tlen)) {
                /* A guest that prints the text and halts within one slice
                 * (standalone copy returning when done) still matches. */
                if (r->halted)
                    die(EXIT_HALT, "guest halted: %s (%s:%d was waiting for \"%s\")", vax_session_stop_detail(r->s),
                        path, lineno, arg);
                if (vseconds(r) > deadline)
                    die(EXIT_TIMEOUT, "%s:%d: expect \"%s\" timed out after %g virtual seconds", path, lineno, arg,
                        limit);
                if (run_slice(r, 1))
                    r->halted = 1;
            }
        } else if (!strcmp(p, "send") || !strcmp(p, "type")) {
            char where[300];
            snprintf(where, sizeof where, "%s:%d", path, lineno);
            if (!strcmp(p, "send")) {
                type_text(r, arg, strlen(arg), limit, where);
                type_text(r, "\r", 1, limit, where);
            } else {
                type_text(r, arg, unescape(arg), limit, where);
            }
        } else if (!strcmp(p, "profile-clear") || !strcmp(p, "profile-write")) {
            if (!r->o->profile)
                die(EXIT_USAGE, "%s:%d: %s needs --profile", path, lineno, p);
            if (!strcmp(p, "profile-clear"))
                vax_session_profile_clear(r->s);
            else if (!*arg)
                die(EXIT_USAGE, "%s:%d: profile-write needs a file name", path, lineno);
            else
                write_profile(r->s, arg);
        } else if (!strcmp(p, "timeout")) {
            if (parse_seconds(arg, &limit) < 0)
                die(EXIT_USAGE, "%s:%d: timeout needs a positive, finite number of seconds (up to 1e9), not \"%s\"",
                    path, lineno, arg);
        } else if (!strcmp(p, "report")) {
            report(r, arg);
        } else if (!strcmp(p, "save")) {
            if (!*arg)
                die(EXIT_USAGE, "%s:%d: save needs a file name", path, lineno);
            if (!r->o->snapshot)
                die(EXIT_USAGE, "%s:%d: save needs --snapshot (the disks' writes kept in overlays)", path, lineno);
            save_snapshot(r, arg);
        } else if (!strcmp(p, "wait-halt")) {
            double deadline = vseconds(r) + limit;
            while (!r->halted && !run_slice(r, 1))
                if (vseconds(r) > deadline)
                    die(EXIT_TIMEOUT, "%s:%d: the guest did not halt within %g virtual seconds", path, lineno, limit);
            r->halted = 1;
        } else {
            die(EXIT_USAGE, "%s:%d: unknown script command \"%s\"", path, lineno, p);
        }
    }
    free(line);
    fclose(f);
}

/* The hardware model's counters that are not zero, "name=value" packed
 * into lines of about 100 characters on stderr. */
static void print_counters(const vax_session *s)
{
    size_t n = vax_session_stats(s, NULL, 0);
    uint64_t *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return;
    vax_session_stats(s, v, n);
    const char *name = vax_session_stats_names();
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

/* --restore FILE: the machine as saved, instead of a boot (the kernel and
 * its variables are given first: the snapshot checks they are the same). */
static int restore(run *r)
{
    options *o = r->o;
    int kind = o->start == START_DISK ? VAX_SESSION_BOOT_DISK
             : o->start == START_KERNEL ? VAX_SESSION_BOOT_KERNEL
             : o->start == START_VMB ? VAX_SESSION_BOOT_VMB : VAX_SESSION_BOOT_STANDALONE;
    uint32_t howto = o->start == START_VMB ? o->boot_flags
                   : o->start == START_DISK || o->start == START_KERNEL ? o->howto : 0;
    size_t len;
    uint8_t *snap = read_whole(o->restore, &len);
    int rc = vax_session_restore(r->s, snap, len, disk_identity(r), kind, howto);
    free(snap);
    if (rc == 0) {
        uint32_t hl;
        const uint8_t *h = vax_session_restored_host(r->s, &hl);
        r->out.len = 0;
        if (hl) {
            int quiet = r->out.quiet;
            r->out.quiet = 1;   /* printed when it was saved */
            transcript_add(&r->out, h, hl);
            r->out.quiet = quiet;
        }
        return 0;
    }
    die(rc == VAX_SESSION_ERR_INPUT ? EXIT_USAGE : EXIT_IMAGE, "--restore %s: %s", o->restore, vax_session_error(r->s));
}

/* Start the machine the way the options say. */
static void start(run *r)
{
    options *o = r->o;
    vax_session *s = r->s;
    char err[320];
    int rc = 0;
    if (o->restore && o->start != START_KERNEL) {
        restore(r);
        return;
    }
    switch (o->start) {
    case START_DISK:
        rc = vax_session_boot_disk(s, o->howto);
        break;
    case START_KERNEL:
        if (o->kernel_file) {
            size_t len;
            uint8_t *k = read_whole(o->kernel_file, &len);
            rc = vax_session_set_kernel_image(s, k, len, o->kernel_file);
            free(k);
            if (rc < 0)
                die(EXIT_IMAGE, "--kernel-file %s: %s", o->kernel_file, vax_session_error(s));
        }
        for (int i = 0; i < o->nset; i++)
            if (vax_session_set_kernel_variable(s, o->set[i].name, o->set[i].value, err, sizeof err) < 0)
                usage("--set %s", err);
        if (o->restore) {
            restore(r);
            return;
        }
        rc = vax_session_boot_kernel(s, o->howto, o->kernel);
        if (rc == 0)
            for (int i = 0; i < o->nset; i++)
                fprintf(stderr, "vax780: _%s = %u (was %u)\n", o->set[i].name, o->set[i].value,
                        vax_session_kernel_variable_old(s, i));
        break;
    case START_TAPE_BLOCK:
        rc = vax_session_boot_tape_block(s);
        break;
    case START_TAPE_PROGRAM: {
        uint8_t *prog;
        size_t len;
        if (standalone_from_tape(&o->tape.file.bd, o->standalone + 5, &prog, &len, NULL, err, sizeof err) != 0)
            die(EXIT_IMAGE, "%s: %s", o->tape.path, err);
        rc = vax_session_boot_standalone(s, prog, len, TSBOOT_R10_UBA0, TSBOOT_R11_TSCSR);
        free(prog);
        break;
    }
    case START_STANDALONE_FILE: {
        size_t len;
        uint8_t *prog = read_whole(o->standalone, &len);
        rc = vax_session_boot_standalone(s, prog, len, 0, o->howto);
        free(prog);
        break;
    }
    case START_VMB: {
        size_t len;
        uint8_t *vmb = read_whole(o->console_boot, &len);
        rc = vax_session_boot_vmb(s, vmb, len, o->boot_device, o->boot_flags);
        free(vmb);
        if (rc == VAX_SESSION_ERR_IMAGE)
            die(EXIT_IMAGE, "%s: %s", o->console_boot, vax_session_error(s));
        break;
    }
    case START_LOAD:
        for (int i = 0; i < o->nload && rc == 0; i++) {
            size_t len;
            uint8_t *data = read_whole(o->load[i].path, &len);
            rc = vax_session_console_load(s, o->load[i].addr, data, len);
            free(data);
            if (rc)
                die(EXIT_USAGE, "--load %s: %s", o->load[i].path, vax_session_error(s));
        }
        rc = vax_session_console_start(s, o->start_addr);
        if (rc)
            die(EXIT_USAGE, "--start: %s", vax_session_error(s));
        for (int i = 0; i < o->nreg; i++)
            vax_set_reg(vax_session_machine(s), o->reg_num[i], o->reg_value[i]);
        break;
    }
    if (rc == VAX_SESSION_ERR_INPUT)
        die(EXIT_USAGE, "%s%s", o->nset ? "--set " : "", vax_session_error(s));
    if (rc < 0) {
        const char *disk = o->disks[0].path ? o->disks[0].path : o->ras[0].path;
        int name_it = disk && o->start <= START_KERNEL;
        die(EXIT_IMAGE, "%s%s%s", name_it ? disk : "", name_it ? ": " : "", vax_session_error(s));
    }
}

int main(int argc, char **argv)
{
    static options o;
    parse_options(&o, argc, argv);
    char err[320];
    run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.out.quiet = o.quiet;
    r.out.keep = o.script != NULL;
    r.s = vax_session_create(&o.cfg, err, sizeof err);
    if (!r.s)
        die(EXIT_IMAGE, "%s", err);
    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    if (o.profile && vax_session_profile_start(r.s) < 0)
        die(EXIT_USAGE, "--profile: %s", vax_session_error(r.s));
    start(&r);

    if (o.script) {
        run_script(&r, o.script);
    } else {
        while (!run_slice(&r, 1))
            ;
    }
    fflush(stdout);
    if (o.profile)
        write_profile(r.s, o.profile);
    if (o.stats) {
        double host = host_seconds(&r);
        print_counters(r.s);
        uint64_t n = vax_instruction_count(vax_session_machine(r.s));
        fprintf(stderr, "vax780: %llu instructions, %.3f virtual s, %.3f host s, %.1f million instructions/s\n",
                (unsigned long long)n, vseconds(&r), host, host > 0 ? (double)n / host / 1e6 : 0.0);
    }
    vax_session_destroy(r.s);
    free(r.out.buf);
    for (int i = 0; i < VAX_SESSION_MAX_DISKS; i++) {
        if (o.snapshot && o.disk_path[i])
            blockdev_overlay_destroy(&o.disk_over[i]);
        image_close(&o.disks[i]);
        free((void *)o.cfg.disk[i].type);
        free(o.disk_path[i]);
    }
    for (int i = 0; i < VAX_SESSION_MAX_RA; i++) {
        if (o.snapshot && o.ra_path[i])
            blockdev_overlay_destroy(&o.ra_over[i]);
        image_close(&o.ras[i]);
        free((void *)o.cfg.ra[i].type);
        free(o.ra_path[i]);
    }
    image_close(&o.tape);
    for (int i = 0; i < o.nload; i++)
        free(o.load[i].path);
    return 0;
}
