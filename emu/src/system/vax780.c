/*
 * vax780.c — assembling the 780: memory controller at TR 1, UBA0 at TR 3,
 * MBA0 at TR 8 (the layout of a typical 780 and of 4.3BSD's GENERIC
 * configuration), console and clock registers, and SBI error registers.
 */
#include "system/vax780.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/sbi.h"
#include "massbus/mba.h"
#include "massbus/rp.h"
#include "snapshot/snap.h"
#include "unibus/dz11.h"
#include "unibus/ts11.h"
#include "unibus/uba.h"
#include "unibus/uda50.h"

#define TR_MEMCTL 1
#define TR_UBA0 3
#define TR_MBA0 8
#define TR_MBA1 9

/* Default TODR: the 780 keeps time since the start of the year in 10 ms
 * units above 1<<28 (TODRZERO in /sys/vax/clock.h); start at 1 July
 * noon, so the date the kernel derives from its root file system's time
 * lands in that file system's year. */
#define TODR_ZERO (1u << 28)
#define TODR_DEFAULT (TODR_ZERO + (181u * 86400u + 43200u) * 100u)

/* MS780 memory controller: register A holds the nexus type in its low
 * byte and, in bits 14:9, the memory size in 64 KB units less one; the
 * kernel sizes memory by probing, and only enables and reads the
 * error-logging bits of register C.  Register A says NEX_MEM16 (an
 * MS780-C with 16K-chip arrays of 256 KB), so it is as true of 4.5 MB (18
 * arrays) as of 8 for 4.3BSD, which looks only at the type.  DEC's VMB
 * reads the size field to build its map of good memory: the field says
 * the memory's size up to the 4 MB it can express (a real 780 with more
 * had a second controller or an MS780-E; modelling that would change what
 * 4.3BSD prints at boot, "mcr0 at tr1"), so VMB and the programs it boots
 * see at most 4 MB, and 4.3BSD all of it.  With the field 0, as before,
 * VMB took only the first 64 KB for good and DEC's DIAGBOOT warned of
 * "memory errors". */
static uint32_t memctl_register_a(const vax780 *s)
{
    uint32_t units = vax_memory_bytes(s->m) >> 16;   /* 64 KB */
    uint32_t field = (units > 64 ? 64 : units) - 1;
    return (s->memctl[0] & ~(0x7E00u | 0xFFu)) | field << 9 | NEX_MEM16;
}

static int memctl_read(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    (void)m;
    (void)size;
    vax780 *s = dev;
    uint32_t reg = (pa - sbi_nexus_address(TR_MEMCTL)) / 4;
    if (reg >= 8)
        return VAX_EXC_MACHINE_CHECK;
    *value = reg == 0 ? memctl_register_a(s) : s->memctl[reg];
    return 0;
}

static int memctl_write(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    (void)m;
    (void)size;
    vax780 *s = dev;
    uint32_t reg = (pa - sbi_nexus_address(TR_MEMCTL)) / 4;
    if (reg >= 8)
        return VAX_EXC_MACHINE_CHECK;
    s->memctl[reg] = value;
    return 0;
}

static int ipr_read(vax_machine *m, int ipr, uint32_t *value)
{
    vax780 *s = m->system;
    return console_ipr_read(m, &s->console, ipr, value) || clock_ipr_read(m, &s->clock, ipr, value);
}

static int ipr_write(vax_machine *m, int ipr, uint32_t value)
{
    vax780 *s = m->system;
    return console_ipr_write(m, &s->console, ipr, value) || clock_ipr_write(m, &s->clock, ipr, value);
}

static void console_command(void *ctx, uint32_t code)
{
    vax780 *s = ctx;
    if (code == 2) {   /* TXDB_BOOT: the kernel asks the console to reboot */
        s->reboot_requested = 1;
        machine_set_stop(s->m, VAX_STOP_HOST_REQUEST, "the kernel asked the console to reboot");
    }
}

/* hp0..hp3 are drives 0..3 of MBA0, hp4..hp7 drives 0..3 of MBA1. */
static mba *disk_adapter(const vax780 *s, int unit) { return unit < 4 ? s->mba0 : s->mba1; }

/* Whether slot hpN holds a drive. */
static int disk_present(const vax780 *s, int unit)
{
    mba_disk_stats st;
    return mba_disk_stats_get(disk_adapter(s, unit), unit % 4, &st) >= 0;
}

vax780 *vax780_create(const vax780_config *cfg, char *err, size_t errlen)
{
    uint32_t kb = cfg->memory_kb ? cfg->memory_kb : 8192;
    if (kb % 256 || kb > 65536) {
        snprintf(err, errlen, "memory size %u KB: a 780 here takes 256 KB to 64 MB in steps of 256 KB", kb);
        return NULL;
    }
    vax780 *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory");
        return NULL;
    }
    vax_config vc = {kb << 10};
    s->m = vax_create(&vc);
    if (!s->m) {
        snprintf(err, errlen, "cannot allocate %u KB of guest memory", kb);
        free(s);
        return NULL;
    }
    vax_machine *m = s->m;
    if (cfg->cpu_model && vax_set_cpu_model(m, cfg->cpu_model) != 0) {
        snprintf(err, errlen, "CPU model %d: we model the 780 and the 750", cfg->cpu_model);
        goto fail;
    }
    if (cfg->ns_per_instruction)
        machine_set_ns_per_instruction(m, cfg->ns_per_instruction);
    if (cfg->flat_timing)
        vax_set_timing_flat(m, 2000);   /* scaled by the preset like the model */
    m->system = s;
    vax_set_idle_skip(m, !cfg->no_idle_skip);
    m->ipr_read_ext = ipr_read;
    m->ipr_write_ext = ipr_write;
    console_init(&s->console, 9600);
    s->console.command = console_command;
    s->console.command_ctx = s;
    clock_init(&s->clock, cfg->todr_initial ? cfg->todr_initial : TODR_DEFAULT);

    if (bus_add_region(m, sbi_nexus_address(TR_MEMCTL), SBI_NEXUS_SIZE, s, memctl_read, memctl_write) < 0)
        goto fail_msg;
    s->uba0 = uba_create(m, TR_UBA0, 0);
    s->mba0 = mba_create(m, TR_MBA0, 0);
    s->mba1 = mba_create(m, TR_MBA1, 1);   /* the second MASSBUS, drives optional */
    if (!s->uba0 || !s->mba0 || !s->mba1)
        goto fail_msg;
    for (int u = 0; u < VAX780_MAX_DISKS; u++) {
        if (!cfg->disk[u].type)
            continue;
        if (rp_attach(disk_adapter(s, u), u % 4, cfg->disk[u].type, cfg->disk[u].image, err, errlen) < 0)
            goto fail;
    }
    if (cfg->disk_timing && vax780_set_disk_timing(s, cfg->disk_timing, err, errlen) < 0)
        goto fail;
    if (cfg->disk_spin_seed && vax780_set_disk_spin_seed(s, cfg->disk_spin_seed, err, errlen) < 0)
        goto fail;
    s->dz = dz11_create(s->uba0, 0760100, 0300);
    s->ts = ts11_create(s->uba0, 0772520, 0224);
    if (!s->dz || !s->ts)
        goto fail_msg;
    if (cfg->tape && ts11_attach(s->ts, cfg->tape, err, errlen) < 0)
        goto fail;
    for (int u = 0; u < VAX780_MAX_RA; u++) {
        if (!cfg->ra[u].type)
            continue;
        if (!s->uda && !(s->uda = uda50_create(s->uba0, UDA50_CSR)))
            goto fail_msg;
        if (uda50_attach(s->uda, u, cfg->ra[u].type, cfg->ra[u].image, err, errlen) < 0)
            goto fail;
    }
    return s;
fail_msg:
    snprintf(err, errlen, "cannot build the system's adapters");
fail:
    vax780_destroy(s);
    return NULL;
}

int vax780_attach_disk(vax780 *s, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen)
{
    if (unit < 0 || unit >= VAX780_MAX_DISKS) {
        snprintf(err, errlen, "no drive slot hp%d (hp0 to hp%d)", unit, VAX780_MAX_DISKS - 1);
        return -1;
    }
    return rp_attach(disk_adapter(s, unit), unit % 4, type, bd, err, errlen) < 0 ? -1 : 0;
}

int vax780_set_disk_timing(vax780 *s, const char *profile, char *err, size_t errlen)
{
    if (profile && *profile && !rp_timing_find(profile)) {
        snprintf(err, errlen, "unknown disk timing \"%s\" (known: %s)", profile, rp_timing_names());
        return -1;
    }
    for (int u = 0; u < VAX780_MAX_DISKS; u++) {
        if (disk_present(s, u) && mba_set_disk_timing(disk_adapter(s, u), u % 4, profile, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* Every drive's spin seed (0: the platters in step with virtual time). */
static int set_drives_spin_seed(vax780 *s, uint32_t seed, char *err, size_t errlen)
{
    for (int u = 0; u < VAX780_MAX_DISKS; u++) {
        if (disk_present(s, u) && mba_set_disk_spin_seed(disk_adapter(s, u), u % 4, seed, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int vax780_set_disk_spin_seed(vax780 *s, uint32_t seed, char *err, size_t errlen)
{
    if (set_drives_spin_seed(s, seed, err, errlen) < 0)
        return -1;
    /* The same seed samples the clock's ticks against the work (clock.c,
     * sample_delay_ns): a run's seed draws every phase the model would
     * otherwise hold in step with virtual time. */
    clock_set_sample_seed(&s->clock, seed);
    return 0;
}

/* The platters in step with virtual time again, the clock's sampling left
 * as the seed drew it. */
int vax780_lock_disk_spin(vax780 *s, char *err, size_t errlen) { return set_drives_spin_seed(s, 0, err, errlen); }

void vax780_destroy(vax780 *s)
{
    if (!s)
        return;
    if (s->mba0)
        mba_destroy(s->mba0);
    if (s->mba1)
        mba_destroy(s->mba1);
    if (s->uba0)
        uba_destroy(s->uba0);
    vax_destroy(s->m);
    free(s);
}

void vax780_init(vax780 *s)
{
    vax_reset(s->m);
    clock_reset(s->m, &s->clock);
    console_reset(s->m, &s->console);
    memset(s->memctl, 0, sizeof s->memctl);
    if (s->mba0)
        mba_reset(s->mba0);
    if (s->mba1)
        mba_reset(s->mba1);
    if (s->uba0)
        uba_reset(s->uba0);
    s->reboot_requested = 0;
}

int vax780_disk_stats(const vax780 *s, int unit, mba_disk_stats *out)
{
    if (unit < 0 || unit >= VAX780_MAX_DISKS)
        return -1;
    return mba_disk_stats_get(unit < 4 ? s->mba0 : s->mba1, unit % 4, out);
}

int vax780_ra_stats(const vax780 *s, int unit, uda50_disk_stats *out)
{
    if (!s->uda)
        return -1;
    return uda50_disk_stats_get(s->uda, unit, out);
}

void vax780_io_stats_get(const vax780 *s, vax780_io_stats *out)
{
    out->console_in = s->console.chars_in;
    out->console_out = s->console.chars_out;
    dz11_stats(s->dz, &out->dz_in, &out->dz_out);
    ts11_stats(s->ts, &out->ts_records_read, &out->ts_records_written);
}

void vax780_set_console_output(vax780 *s, void (*out)(void *ctx, uint8_t ch), void *ctx)
{
    s->console.output = out;
    s->console.output_ctx = ctx;
}

uint32_t vax780_console_type(vax780 *s, const char *text, uint32_t len)
{
    return console_type(s->m, &s->console, text, len);
}

void vax780_snap(vax780 *s, vax_snap *snap)
{
    machine_snap(s->m, snap);
    snap_begin(snap, "SYS ");
    snap_u32_array(snap, s->memctl, 8);
    snap_int(snap, &s->reboot_requested, 0, 1);
    console_snap(&s->console, snap);
    clock_snap(&s->clock, snap);
    snap_end(snap);
    snap_begin(snap, "UBA0");
    uba_snap(s->uba0, snap);
    dz11_snap(s->dz, snap);
    ts11_snap(s->ts, snap);
    snap_same_u32(snap, s->uda != NULL, "a UDA50");
    if (s->uda)
        uda50_snap(s->uda, snap);
    snap_end(snap);
    snap_begin(snap, "MBA ");
    mba_snap(s->mba0, snap);
    mba_snap(s->mba1, snap);
    snap_end(snap);
}
