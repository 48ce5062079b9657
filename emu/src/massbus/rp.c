/*
 * rp.c — MASSBUS moving-head disks: registers, commands, timing.
 *
 * What 4.3BSD relies on (sys/vaxmba/hp.c, stand/hp.c, sys/vax/autoconf.c):
 *   - DS reads DPR|MOL|DRY (+VV once a pack acknowledge or read-in preset
 *     has been done); mbafind skips slots whose DS lacks DPR and whose DT
 *     reads 0; the drive type code in DT bits 8:0 selects hpst[];
 *   - CS1 reads DVA (hpustart returns MBU_BUSY without it);
 *   - DCLR, PRESET, PACK, RELEASE, NOP complete at once and raise no
 *     attention (hpustart prints "DCLR attn" if DCLR did);
 *   - SEEK, SEARCH, RECAL, OFFSET, RTC take time (DRY clear, PIP while the
 *     arm moves) and end with ATA, i.e. an attention interrupt;
 *   - LA>>6 is the sector under the heads (hpustart's search decision);
 *   - data transfers advance DA/DC past the last sector moved, and errors
 *     show in ER1 (WLE, IAE, AOE ...) with ERR and ATA set.
 *
 * Timing model (all in virtual nanoseconds from machine_time_ns, so a run
 * is the same on every host).  The figures come from the drive's timing
 * (rp_timing): its own type's, or a profile (below).  Positions are taken
 * on the timing's layout (nsect x ntrak x ncyl), which for a type's own
 * timing is its geometry:
 *   - Rotation: the angular position at virtual time t is (t + phase) mod
 *     revolution, with a fixed per-slot phase (unit * rev/8) so drives are
 *     not in lock step; with a spin seed (rp_set_spin_seed), each command
 *     adds a pseudo-random phase of its own (rp.h says why).  A track is divided into nsect equal slots; sector
 *     s starts at angle s * (rev / nsect).  Rotational latency is the wait
 *     from the current angle to the start of the target sector.
 *   - Seek time over d >= 1 cylinders: with u = (d-1)/(ncyl-2) in [0,1],
 *     t = min + B*sqrt(u) + C*u, where B and C make t(1/3) the average
 *     seek and t(1) the full-stroke seek (B is held >= 0; when the figures
 *     are those of a straight line B = 0).  A seek of 0 cylinders is free.
 *   - Transfer: one sector slot per sector (RP06: 757.6 us, so 676 KB/s
 *     sustained over a track); track changes inside a cylinder cost only
 *     the wait for sector 0 to come round; a cylinder change costs a
 *     one-cylinder seek plus that wait.  A partial last sector takes a
 *     whole sector (the drive reads or writes all of it).  Within its slot
 *     a sector's data field passes at the drive's peak rate (RP04/05/06:
 *     806 KB/s, 635 us for 512 bytes; the rest of the slot is header, ECC
 *     and gaps), taken as centred in the slot (estimate): so a transfer
 *     ends (slot - data) / 2 before its last slot does, 61 us on an RP06.
 *   - A data transfer: implied seek to DC, latency to the sector in DA,
 *     then the sectors; the data move (and DA/DC/BCR advance) when it
 *     completes.  SEARCH: seek, then latency to the sector in DA; ATA
 *     when it arrives.  OFFSET and RTC take one one-cylinder seek time;
 *     RECAL a seek to cylinder 0 (at least a one-cylinder seek).
 *   - Fast mode: every timed command completes after RP_FAST_NS.
 * Figures: RP04/05/06 one-cylinder 10 ms and full stroke 55 ms from DEC's
 * RP06 data as Columbia University's "The DEC RP06 Disk Drive" gives it
 * (track-to-track 10, average 30, maximum 55 ms; peak transfer 806 KB/s:
 * 5.6 us per 36-bit word as the PDP-10 sites list it); 3600 rpm, 8.33 ms
 * average latency.  Whether "average 30 ms" is the seek or the whole
 * access is read both ways; we take an average seek of 25 ms, between the
 * two readings, which makes the average access 33 ms and the seek curve a
 * straight line from 10 to 55 ms.  RM03/RM05: average seek 30 ms,
 * one-cylinder 6 ms, maximum 55 ms, 1.2 MB/s (DEC's RM02/03 data).  Every
 * other figure is an estimate, marked.
 *
 * Timing profiles (rp_set_timing; vax780_config.disk_timing, the CLI's
 * --disk-timing): the registers, the geometry the driver sees and the pack
 * stay the drive type's — 4.3BSD's hp driver and the lab's pack need the
 * RP06's 22 x 19 x 815 — and only the mechanism behind them changes.  The
 * pack's blocks are laid, in order, along the profile's own tracks and
 * cylinders (block b is at sector b mod nsect of track (b / nsect) mod
 * ntrak of cylinder b / (nsect * ntrak) of the profile), as a controller
 * that makes a bigger drive look like an RP06 would (an assumption: the
 * paper's Emulex SC780 showed its Eagles to 4.3BSD as Eagles).  A type's
 * cylinder (DC, CC, SEEK) is taken to be where its first block lies.  The
 * look-ahead register (LA) reports the angle in the type's sectors: the
 * driver reads it only when an adapter has more than one drive.  The disk
 * counters (seeks, cylinders) stay in the type's cylinders, so they count
 * the same work whatever the profile.
 *   - rp06: the RP06's own figures (above); the lab's drive as it always was.
 *   - eagle: Fujitsu M2351A "Eagle", the disk of the paper's Berkeley 780
 *     (Table 5, section 3.2.6: Eagles on an Emulex SC780, an "RM05-like"
 *     drive to 4.3BSD), on its own layout as 4.3BSD's hpst[] formats it,
 *     48 sectors x 20 tracks x 842 cylinders, so an RP06 pack fills its
 *     first 355 cylinders.  3961 rpm (15.15 ms a turn, 7.57 ms average
 *     latency; Wikipedia "Fujitsu Eagle") and 1.859 MB/s (275 us for a
 *     sector's data field of its 315.6 us slot; 1.62 MB/s sustained over a
 *     track): Fujitsu's figure as a secondary page quotes the IPSJ computer
 *     museum (Wikipedia: 1.8 MB/s).  Average seek 18 ms: both give 18 ms as
 *     the average positioning time ("the time required to move the heads
 *     to the desired track"); other summaries read it as the average
 *     access — we follow the sources, so the average access is about
 *     25.6 ms (with the other reading the seek would be ~10.4 ms).
 *     One-cylinder 5 ms and full stroke 35 ms: the figures usually quoted
 *     for the M2351, in none of our sources: estimates.
 *   - ideal: not a real drive.  No seek and no rotational wait, only the
 *     transfer at the RP06's rate (one 757.6 us slot per sector): what is
 *     left of a benchmark's time when the disk's latency is taken away.
 *
 * Not modelled: header and track-descriptor I/O and DIAGNOSE (ILF), ECC
 * errors and bad sectors (none ever happen), dual porting (DVA always
 * set, RELEASE does nothing), the 18-bit (576-byte sector) format: a
 * sector is always 512 bytes whatever OF.FMT22 says.
 */
#include "massbus/rp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "massbus/mba.h"
#include "snapshot/snap.h"

#define MS(x) ((uint32_t)(x) * 1000000u)
#define REV_3600RPM 16666667u
#define REV_3961RPM 15147690u   /* 60 s / 3961 */
/* 512 bytes at the peak transfer rate: 806 KB/s (RP04/05/06), 1.2 MB/s
 * (RM03), 1.859 MB/s (Eagle). */
#define DATA_806KBS 635236u
#define DATA_1200KBS 426667u
#define DATA_1859KBS 275417u

/* The RP06's mechanism: revolution, one-cylinder/average/full-stroke seek,
 * data field (DEC, notes: above).  The RP06 type's and the "rp06" profile's. */
#define RP06_MECH REV_3600RPM, MS(10), MS(25), MS(55), DATA_806KBS

/* A type with its own timing on its own geometry. */
#define TYPE_(nm, dt, ns, nt, nc, rev, mn, av, mx, data) \
    {nm, dt, ns, nt, nc, {nm, ns, nt, nc, rev, mn, av, mx, data, 0}}
#define TYPE(...) TYPE_(__VA_ARGS__)

static const rp_type rp_types[] = {
    /*   name   dt      nsect ntrak ncyl  rev / min / avg / max seek / data */
    TYPE("RP04", 0x2010, 22, 19, 411, RP06_MECH), /* seek: as RP06 (estimate) */
    TYPE("RP05", 0x2011, 22, 19, 411, RP06_MECH), /* seek: as RP06 (estimate) */
    TYPE("RP06", 0x2012, 22, 19, 815, RP06_MECH), /* DEC, notes (above) */
    TYPE("RM03", 0x2014, 32, 5, 823, REV_3600RPM, MS(6), MS(30), MS(55), DATA_1200KBS),  /* DEC RM02/03 data */
    TYPE("RM05", 0x2017, 32, 19, 823, REV_3600RPM, MS(6), MS(30), MS(55), DATA_1200KBS), /* as RM03 (estimate) */
    TYPE("RM80", 0x2016, 31, 14, 559, REV_3600RPM, MS(6), MS(25), MS(50), 0),            /* estimate */
    TYPE("RP07", 0x2022, 50, 32, 630, REV_3600RPM, MS(5), MS(23), MS(40), 0),            /* estimate */
};

/* The timing profiles (see "Timing profiles" above for the figures and
 * their sources).  Keep rp_timing_names in step. */
static const rp_timing rp_profiles[] = {
    /* name    nsect ntrak ncyl  rev / min / avg / max seek / data        no_latency */
    {"rp06", 22, 19, 815, RP06_MECH, 0},
    {"eagle", 48, 20, 842, REV_3961RPM, MS(5), MS(18), MS(35), DATA_1859KBS, 0},
    {"ideal", 22, 19, 0, REV_3600RPM, 0, 0, 0, DATA_806KBS, 1}, /* RP06 slots, nothing else */
    {"rm05", 32, 19, 823, REV_3600RPM, MS(6), MS(30), MS(55), DATA_1200KBS, 0},
};

static int upcase(int c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }

const rp_type *rp_type_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof rp_types / sizeof rp_types[0]; i++) {
        const char *a = rp_types[i].name, *b = name;
        while (*a && upcase((unsigned char)*b) == *a)
            a++, b++;
        if (!*a && !*b)
            return &rp_types[i];
    }
    return NULL;
}

uint64_t rp_type_bytes(const rp_type *t)
{
    return (uint64_t)t->nsect * (uint64_t)t->ntrak * (uint64_t)t->ncyl * 512u;
}

const rp_timing *rp_timing_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof rp_profiles / sizeof rp_profiles[0]; i++) {
        const char *a = rp_profiles[i].name, *b = name;
        while (*a && upcase((unsigned char)*a) == upcase((unsigned char)*b))
            a++, b++;
        if (!*a && !*b)
            return &rp_profiles[i];
    }
    return NULL;
}

const char *rp_timing_names(void) { return "rp06 eagle ideal rm05"; }

static uint32_t nspc(const rp_type *t) { return (uint32_t)(t->nsect * t->ntrak); }
static uint32_t total_sectors(const rp_type *t) { return nspc(t) * (uint32_t)t->ncyl; }
static uint32_t sector_ns(const rp_timing *tm) { return tm->rev_ns / (uint32_t)tm->nsect; }
static uint32_t lba_of(const rp_type *t, int c, int h, int s)
{
    return ((uint32_t)c * (uint32_t)t->ntrak + (uint32_t)h) * (uint32_t)t->nsect + (uint32_t)s;
}

/* Where block lba of the pack lies on the timing's layout. */
typedef struct {
    int c, h, s;
} rp_place;

static rp_place place_of(const rp_timing *tm, uint32_t lba)
{
    uint32_t spc = (uint32_t)(tm->nsect * tm->ntrak);
    rp_place p = {(int)(lba / spc), (int)((lba % spc) / (uint32_t)tm->nsect), (int)(lba % (uint32_t)tm->nsect)};
    return p;
}

/* ------------------------------------------------------------- timing */

static uint32_t isqrt64(uint64_t x)
{
    uint64_t r = 0, bit = (uint64_t)1 << 62;
    while (bit > x)
        bit >>= 2;
    while (bit) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)r;
}

/* Seek time between two cylinders of the timing's layout (see the model above). */
static uint64_t seek_ns(const rp_timing *tm, int from, int to)
{
    int d = from > to ? from - to : to - from;
    if (d == 0)
        return 0;
    uint64_t span = (uint64_t)(tm->seek_max_ns - tm->seek_min_ns);
    /* 3*(1/sqrt(3) - 1/3) = sqrt(3) - 1 = 0.7320508 */
    int64_t b = ((int64_t)3 * ((int64_t)tm->seek_avg_ns - tm->seek_min_ns) - (int64_t)span) * 10000000 /
                7320508;
    if (b < 0)
        b = 0;
    if ((uint64_t)b > span)
        b = (int64_t)span;
    uint64_t c = span - (uint64_t)b;
    uint64_t x = (uint64_t)(d - 1), X = (uint64_t)(tm->ncyl > 2 ? tm->ncyl - 2 : 1);
    if (x > X)
        x = X;
    uint64_t s = isqrt64((x << 32) / X); /* sqrt(u) * 2^16 */
    return tm->seek_min_ns + (((uint64_t)b * s) >> 16) + c * x / X;
}

static uint64_t phase_ns(const rp_drive *d)
{
    return (uint64_t)d->unit * (d->tm->rev_ns / 8u) + d->spin_offset_ns;
}

/* A command arrives: with a spin seed, the platter is somewhere new
 * (rp_set_spin_seed) — if the drive has been left alone for a revolution
 * or more.  A command that follows the drive's last activity (a command's
 * start or end) within a revolution keeps the phase: the driver's data
 * transfer after its SEARCH's attention, or the next request taken from
 * the queue at a transfer's interrupt, comes within microseconds, and a
 * spindle's drift over that time is nothing; drawing a new angle there
 * would add a second random rotational wait (an average half turn) to
 * every searched transfer of a two-drive MASSBUS, which is exactly what
 * the SEARCH is there to avoid.  The offset holds until the next command,
 * so the look-ahead register and the command's own timing agree. */
static void new_spin_phase(rp_drive *d)
{
    if (!d->spin_seed)
        return;
    uint64_t now = machine_time_ns(d->m), last = d->spin_touch_ns;
    d->spin_touch_ns = now;
    if (now - last < d->tm->rev_ns)
        return;
    uint32_t x = d->spin_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    d->spin_state = x;
    d->spin_offset_ns = (uint64_t)x * d->tm->rev_ns >> 32;
}

/* Angle (as time into the revolution) at virtual time t. */
static uint64_t angle_at(const rp_drive *d, uint64_t t) { return (t + phase_ns(d)) % d->tm->rev_ns; }

/* Wait from time t until sector s (of the timing's layout) starts under the heads. */
static uint64_t rot_wait(const rp_drive *d, uint64_t t, int s)
{
    if (d->tm->no_latency)
        return 0;
    uint64_t rev = d->tm->rev_ns, want = (uint64_t)s * sector_ns(d->tm);
    uint64_t a = angle_at(d, t);
    return (want + rev - a) % rev;
}

/* Time from t0 for a transfer of nsec sectors from block lba of the pack,
 * heads now at d->arm.  The caller has limited nsec to what the pack holds. */
static uint64_t transfer_time(const rp_drive *d, uint64_t t0, uint32_t lba, uint32_t nsec)
{
    const rp_timing *tm = d->tm;
    rp_place p = place_of(tm, lba);
    int c = p.c, h = p.h, s = p.s;
    uint64_t t = t0 + seek_ns(tm, d->arm, c);
    while (nsec > 0) {
        t += rot_wait(d, t, s);
        uint32_t k = (uint32_t)(tm->nsect - s);
        if (k > nsec)
            k = nsec;
        t += (uint64_t)k * sector_ns(tm);
        nsec -= k;
        s = 0;
        if (++h == tm->ntrak) {
            h = 0;
            if (nsec > 0)
                t += seek_ns(tm, c, c + 1);
            c++;
        }
    }
    /* The last sector's data field ends before its slot does (see above).
     * A one-sector transfer that neither seeks nor waits keeps its whole
     * slot, as it always has on the real profiles; on ideal, where no
     * transfer waits, every one ends with its data field. */
    uint64_t sn = sector_ns(tm);
    if (tm->data_ns && tm->data_ns < sn && (t - t0 > sn || tm->no_latency))
        t -= (sn - tm->data_ns) / 2;
    return t - t0;
}

/* ------------------------------------------------------------- state */

static int has_error(const rp_drive *d) { return (d->er1 | d->er2 | d->er3) != 0; }

static void raise_attention(rp_drive *d)
{
    if (d->ata)
        return;
    d->ata = 1;
    mba_attention(d->mba);
}

static void set_error(rp_drive *d, uint16_t er1_bits)
{
    d->er1 |= er1_bits;
    raise_attention(d);
}

void rp_clear_attention(rp_drive *d)
{
    d->ata = 0;
}

uint16_t rp_status(const rp_drive *d)
{
    if (!d->type)
        return 0;
    uint16_t ds = RPDS_DPR | RPDS_MOL;
    if (d->ata)
        ds |= RPDS_ATA;
    if (has_error(d))
        ds |= RPDS_ERR;
    if (d->state != RP_IDLE && machine_time_ns(d->m) < d->pip_end_ns)
        ds |= RPDS_PIP;
    if (d->bd->read_only)
        ds |= RPDS_WRL;
    if (d->lst)
        ds |= RPDS_LST;
    if (d->state == RP_IDLE)
        ds |= RPDS_DRY;
    if (d->vv)
        ds |= RPDS_VV;
    if (d->om)
        ds |= RPDS_OM;
    return ds;
}

/* The sector under the heads, in the type's sectors of the revolution (on
 * a profile's layout that is only the angle: see "Timing profiles"). */
static uint16_t look_ahead(const rp_drive *d)
{
    const rp_type *t = d->type;
    uint64_t a = angle_at(d, machine_time_ns(d->m)), sn = d->tm->rev_ns / (uint32_t)t->nsect;
    uint64_t sec = a / sn;
    if (sec >= (uint64_t)t->nsect)
        sec = (uint64_t)t->nsect - 1; /* the gap after the last sector */
    uint64_t frac = (a - sec * sn) * 4 / sn;
    if (frac > 3)
        frac = 3;
    return (uint16_t)((sec << 6) | (frac << 4));
}

static void finish_op(rp_drive *d)
{
    uint64_t now = machine_time_ns(d->m);
    if (now > d->op_start_ns)
        d->st_busy_ns += now - d->op_start_ns;
    d->state = RP_IDLE;
    d->spin_touch_ns = now;   /* new_spin_phase: the phase holds for what follows at once */
}

/* Start a timed command taking `delay` ns. */
static void start_timed(rp_drive *d, rp_state st, int op, uint64_t delay, uint64_t pip)
{
    uint64_t now = machine_time_ns(d->m);
    if (d->fast) {
        delay = RP_FAST_NS;
        pip = pip ? RP_FAST_NS : 0;
    }
    d->state = st;
    d->op = op;
    d->op_start_ns = now;
    d->pip_end_ns = now + pip;
    machine_event_schedule(d->m, &d->ev, delay);
}

/* ------------------------------------------------------------- transfers */

static void finish_transfer(rp_drive *d)
{
    const rp_type *t = d->type;
    mba *a = d->mba;
    uint32_t lba = lba_of(t, d->dc, (d->da >> 8) & 0xFF, d->da & 0xFF);
    uint32_t total = total_sectors(t);
    uint8_t buf[512];
    int exc = 0;
    uint64_t moved = 0, bytes = 0;

    d->cyl = d->dc;
    d->arm = place_of(d->tm, lba).c;
    int start_cyl = d->cyl;
    while (mba_xfer_remaining(a) > 0) {
        if (lba >= total) {
            d->er1 |= RPER1_AOE;
            exc = 1;
            break;
        }
        uint32_t want = mba_xfer_remaining(a);
        if (want > 512)
            want = 512;
        uint64_t off = (uint64_t)lba * 512u;
        uint32_t got;
        d->cyl = (int)(lba / nspc(t));
        d->arm = place_of(d->tm, lba).c;
        if (d->op == RPF_WRITE) {
            memset(buf, 0, sizeof buf);
            got = mba_xfer_from_memory(a, buf, want);
            if (got < want)
                break; /* the adapter stopped: this sector is not written */
            if (d->bd->write(d->bd, off, buf, 512) != 0) {
                d->er1 |= RPER1_DCK | RPER1_ECH;
                exc = 1;
                break;
            }
        } else {
            if (off + 512 > d->bd->size) {
                memset(buf, 0, 512);   /* past a short image's end: never written, reads as zeros */
            } else if (d->bd->read(d->bd, off, buf, 512) != 0) {
                d->er1 |= RPER1_DCK | RPER1_ECH;
                exc = 1;
                break;
            }
            got = d->op == RPF_READ ? mba_xfer_to_memory(a, buf, want) : mba_xfer_compare(a, buf, want);
        }
        moved++;
        bytes += got;
        lba++;
        if (got < want || mba_xfer_aborted(a))
            break;
    }
    if (lba >= total && moved > 0)
        d->lst = 1;
    /* DA/DC name the sector after the last one moved. */
    d->dc = (uint16_t)(lba / nspc(t));
    d->da = (uint16_t)((((lba % nspc(t)) / (uint32_t)t->nsect) << 8) | (lba % (uint32_t)t->nsect));
    d->st_sectors += moved;
    if (d->op == RPF_WRITE)
        d->st_bytes_written += bytes;
    else
        d->st_bytes_read += bytes;   /* read and write check: data off the pack */
    d->st_cylinders += (uint64_t)(d->cyl - start_cyl);   /* the heads stepped along */
    finish_op(d);
    if (exc)
        raise_attention(d); /* no interrupt of its own: the adapter is still busy */
    mba_xfer_end(a, exc);
}

/* A data transfer command (read, write, write check; header I/O refused). */
static void start_transfer(rp_drive *d, int f)
{
    const rp_type *t = d->type;
    if (mba_xfer_begin(d->mba, d->unit) != 0)
        return; /* adapter busy: PGE, the command is not sent */
    if (f != RPF_READ && f != RPF_WRITE && f != RPF_WCDATA) {
        set_error(d, RPER1_ILF);
        mba_xfer_end(d->mba, 1);
        return;
    }
    int c = d->dc, h = (d->da >> 8) & 0xFF, s = d->da & 0xFF;
    if (c >= t->ncyl || h >= t->ntrak || s >= t->nsect) {
        set_error(d, RPER1_IAE);
        mba_xfer_end(d->mba, 1);
        return;
    }
    if (f == RPF_WRITE && d->bd->read_only) {
        set_error(d, RPER1_WLE);
        mba_xfer_end(d->mba, 1);
        return;
    }
    d->st_transfers++;
    if (f == RPF_WRITE)
        d->st_writes++;
    else
        d->st_reads++;
    uint32_t bytes = mba_xfer_remaining(d->mba);
    uint32_t nsec = (bytes + 511u) / 512u;
    uint32_t lba = lba_of(t, c, h, s);
    if (nsec > total_sectors(t) - lba)
        nsec = total_sectors(t) - lba;
    new_spin_phase(d);
    uint64_t now = machine_time_ns(d->m);
    int arm = place_of(d->tm, lba).c;
    uint64_t sk = seek_ns(d->tm, d->arm, arm);
    if (c != d->cyl) {
        d->st_seeks++;
        d->st_cylinders += (uint64_t)(c > d->cyl ? c - d->cyl : d->cyl - c);
    }
    d->target_cyl = c;
    d->target_arm = arm;
    start_timed(d, RP_BUSY_TRANSFER, f, transfer_time(d, now, lba, nsec), sk);
}

/* ------------------------------------------------------------- positioning */

static void finish_position(rp_drive *d)
{
    d->cyl = d->target_cyl;
    d->arm = d->target_arm;
    switch (d->op) {
    case RPF_OFFSET:
        d->om = (d->of & RPOF_OFFSET_MASK) != 0;
        break;
    case RPF_RTC:
        d->om = 0;
        break;
    case RPF_UNLOAD:
        /* The heads retracted; the emulated operator spins the pack up
         * again at once, so the drive is back on line without VV. */
        d->vv = 0;
        d->om = 0;
        break;
    default:
        break;
    }
    finish_op(d);
    raise_attention(d);
}

/* The heads go to the type's cylinder to_cyl, which is the timing's
 * to_arm, in `seek` ns; the command ends `extra` ns later. */
static void start_position(rp_drive *d, int f, int to_cyl, int to_arm, uint64_t seek, uint64_t extra)
{
    if (to_cyl != d->cyl) {
        d->st_seeks++;
        d->st_cylinders += (uint64_t)(to_cyl > d->cyl ? to_cyl - d->cyl : d->cyl - to_cyl);
    }
    d->target_cyl = to_cyl;
    d->target_arm = to_arm;
    start_timed(d, RP_BUSY_POSITION, f, seek + extra, seek);
}

static void command(rp_drive *d, int f)
{
    const rp_type *t = d->type;
    const rp_timing *tm = d->tm;
    int data = f >= RPF_WCDATA;

    d->lst = 0;
    if (has_error(d) && f != RPF_DCLR && f != RPF_NOP) {
        /* A drive with an error executes nothing but drive clear; the
         * adapter sees a data transfer end at once with an exception. */
        if (data && mba_xfer_begin(d->mba, d->unit) == 0)
            mba_xfer_end(d->mba, 1);
        return;
    }
    if (data) {
        start_transfer(d, f);
        return;
    }
    uint64_t now = machine_time_ns(d->m);
    switch (f) {
    case RPF_NOP:
    case RPF_RELEASE:
        break;
    case RPF_DCLR:
        d->er1 = d->er2 = d->er3 = 0;
        d->ata = 0;
        mba_attention_cleared(d->mba);
        break;
    case RPF_PRESET:
        d->vv = 1;
        d->da = 0;
        d->dc = 0;
        d->of = 0;
        d->om = 0;
        break;
    case RPF_PACK:
        d->vv = 1;
        break;
    case RPF_SEEK: {
        if (d->dc >= t->ncyl) {
            set_error(d, RPER1_IAE);
            break;
        }
        int arm = place_of(tm, lba_of(t, d->dc, 0, 0)).c;
        start_position(d, f, d->dc, arm, seek_ns(tm, d->arm, arm), 0);
        break;
    }
    case RPF_SEARCH: {
        int h = (d->da >> 8) & 0xFF, s = d->da & 0xFF;
        new_spin_phase(d);
        if (d->dc >= t->ncyl || h >= t->ntrak || s >= t->nsect) {
            set_error(d, RPER1_IAE);
            break;
        }
        rp_place p = place_of(tm, lba_of(t, d->dc, h, s));
        uint64_t sk = seek_ns(tm, d->arm, p.c);
        start_position(d, f, d->dc, p.c, sk, rot_wait(d, now + sk, p.s));
        break;
    }
    case RPF_RECAL: {
        uint64_t sk = seek_ns(tm, d->arm, 0);
        if (sk < tm->seek_min_ns)
            sk = tm->seek_min_ns;
        start_position(d, f, 0, 0, sk, 0);
        break;
    }
    case RPF_OFFSET:
    case RPF_RTC:
        start_position(d, f, d->cyl, d->arm, tm->seek_min_ns, 0);
        break;
    case RPF_UNLOAD:
        d->vv = 0;
        start_position(d, f, 0, 0, seek_ns(tm, d->arm, 0) + tm->rev_ns, 0);
        break;
    default: /* DIAGNOSE and the undefined codes */
        set_error(d, RPER1_ILF);
        break;
    }
}

static void rp_event(vax_machine *m, void *ctx)
{
    (void)m;
    rp_drive *d = ctx;
    if (d->state == RP_BUSY_TRANSFER)
        finish_transfer(d);
    else if (d->state == RP_BUSY_POSITION)
        finish_position(d);
}

/* ------------------------------------------------------------- registers */

uint16_t rp_read_reg(rp_drive *d, int reg)
{
    switch (reg) {
    case RP_CS1:
        return (uint16_t)(d->func | (d->state != RP_IDLE ? RPCS1_GO : 0) | RPCS1_DVA);
    case RP_DS:
        return rp_status(d);
    case RP_ER1:
        return d->er1;
    case RP_MR1:
        return d->mr1;
    case RP_DA:
        return d->da;
    case RP_DT:
        return d->type->dt;
    case RP_LA:
        return look_ahead(d);
    case RP_SN:
        return d->serial;
    case RP_OF:
        return d->of;
    case RP_DC:
        return d->dc;
    case RP_CC:
        return (uint16_t)d->cyl;
    case RP_ER2:
        return d->er2;
    case RP_ER3:
        return d->er3;
    case RP_EC1:
    case RP_EC2:
        return 0;
    default:
        set_error(d, RPER1_ILR);
        return 0;
    }
}

void rp_write_reg(rp_drive *d, int reg, uint16_t v)
{
    if (reg >= RP_NREGS) {
        set_error(d, RPER1_ILR);
        return;
    }
    if (d->state != RP_IDLE) {
        /* Registers are locked while a command runs. */
        set_error(d, RPER1_RMR);
        return;
    }
    switch (reg) {
    case RP_CS1:
        d->func = v & RPCS1_FUNC;
        if (v & RPCS1_GO)
            command(d, v & RPCS1_FUNC);
        break;
    case RP_ER1:
        d->er1 = v;
        break;
    case RP_MR1:
        d->mr1 = v;
        break;
    case RP_DA:
        d->da = v;
        break;
    case RP_OF:
        d->of = v;
        break;
    case RP_DC:
        d->dc = v;
        break;
    case RP_ER2:
        d->er2 = v;
        break;
    case RP_ER3:
        d->er3 = v;
        break;
    default: /* DS, DT, LA, SN, CC, EC1, EC2: read-only */
        break;
    }
}

void rp_abort_transfer(rp_drive *d)
{
    if (d->state != RP_BUSY_TRANSFER)
        return;
    machine_event_cancel(d->m, &d->ev);
    d->cyl = d->target_cyl;
    d->arm = d->target_arm;
    finish_op(d);
}

void rp_massbus_init(rp_drive *d)
{
    if (!d->type)
        return;
    if (d->state != RP_IDLE) {
        machine_event_cancel(d->m, &d->ev);
        d->cyl = d->target_cyl;
        d->arm = d->target_arm;
        finish_op(d);
    }
    d->er1 = d->er2 = d->er3 = 0;
    d->ata = 0;
    d->lst = 0;
}

/* Check a pack for a drive type and set the drive up (not connected). */
static int rp_init(rp_drive *d, mba *a, vax_machine *m, int mba_number, int unit, const char *type,
                   vax_blockdev *bd, char *err, size_t errlen)
{
    const rp_type *t = rp_type_find(type);
    if (!t) {
        snprintf(err, errlen, "unknown MASSBUS disk type \"%s\" (known: RP04 RP05 RP06 RP07 RM03 RM05 RM80)",
                 type ? type : "(null)");
        return -1;
    }
    if (!bd || !bd->read || !bd->write) {
        snprintf(err, errlen, "%s on drive %d: no disk image", t->name, unit);
        return -1;
    }
    /* Images made by other emulators are sometimes a little short of the
     * full pack (4.3BSD's reference RP06 image lacks the last 12 sectors),
     * so up to one cylinder less is accepted: the missing sectors read as
     * zeros, and writing them is a data-check error. */
    uint64_t want = rp_type_bytes(t);
    uint64_t slack = (uint64_t)t->ntrak * (uint64_t)t->nsect * 512u;
    if (bd->size > want || bd->size + slack < want || bd->size % 512 != 0) {
        snprintf(err, errlen,
                 "%s on drive %d: the image is %llu bytes but an %s pack holds %llu bytes "
                 "(%d cylinders x %d tracks x %d sectors x 512); wrong size for this drive type",
                 t->name, unit, (unsigned long long)bd->size, t->name, (unsigned long long)want, t->ncyl,
                 t->ntrak, t->nsect);
        return -1;
    }
    memset(d, 0, sizeof *d);
    d->mba = a;
    d->m = m;
    d->unit = unit;
    d->type = t;
    d->tm = &t->timing;
    d->bd = bd;
    /* BCD-looking "12<mba><unit>": its high byte matches none of the
     * Systems Industries model bytes hpmaptype() looks for. */
    d->serial = (uint16_t)(0x1200u | ((unsigned)(mba_number & 0xF) << 4) | (unsigned)unit);
    d->ev.fire = rp_event;
    d->ev.ctx = d;
    return 0;
}

int rp_set_timing(rp_drive *d, const char *profile, char *err, size_t errlen)
{
    if (!d->type) {
        snprintf(err, errlen, "disk timing: no drive in slot %d", d->unit);
        return -1;
    }
    const rp_timing *tm = &d->type->timing;
    if (profile && *profile) {
        tm = rp_timing_find(profile);
        if (!tm) {
            snprintf(err, errlen, "unknown disk timing \"%s\" (known: %s)", profile, rp_timing_names());
            return -1;
        }
    }
    if (d->state != RP_IDLE) {
        snprintf(err, errlen, "disk timing: drive %d is busy; set it before the drive is used", d->unit);
        return -1;
    }
    uint64_t room = (uint64_t)tm->nsect * (uint64_t)tm->ntrak * (uint64_t)tm->ncyl;
    if (tm->ncyl != 0 && room < total_sectors(d->type)) {
        snprintf(err, errlen, "disk timing %s: an %s pack (%u sectors) does not fit on its %d x %d x %d sectors",
                 tm->name, d->type->name, total_sectors(d->type), tm->nsect, tm->ntrak, tm->ncyl);
        return -1;
    }
    d->tm = tm;
    /* The heads stay where they are, now named on the new layout. */
    d->arm = d->target_arm = place_of(tm, lba_of(d->type, d->cyl, 0, 0)).c;
    return 0;
}

int rp_set_spin_seed(rp_drive *d, uint32_t seed, char *err, size_t errlen)
{
    if (!d->type) {
        snprintf(err, errlen, "disk spin seed: no drive in slot %d", d->unit);
        return -1;
    }
    if (d->state != RP_IDLE) {
        snprintf(err, errlen, "disk spin seed: drive %d is busy; set it before the drive is used", d->unit);
        return -1;
    }
    d->spin_seed = seed;
    /* A non-zero state for xorshift, different per drive. */
    d->spin_state = seed ? seed * 2654435761u ^ (0x9E3779B9u + (uint32_t)d->unit) : 0;
    if (seed && !d->spin_state)
        d->spin_state = 1;
    d->spin_offset_ns = 0;
    return 0;
}


/* ------------------------------------------------------------ on the MASSBUS */

static uint16_t op_read_reg(void *d, int reg) { return rp_read_reg(d, reg); }
static void op_write_reg(void *d, int reg, uint16_t v) { rp_write_reg(d, reg, v); }
static int op_attention(const void *d) { return ((const rp_drive *)d)->ata != 0; }
static void op_clear_attention(void *d) { rp_clear_attention(d); }
static void op_massbus_init(void *d) { rp_massbus_init(d); }
static void op_abort_transfer(void *d) { rp_abort_transfer(d); }
static void op_set_fast(void *d, int on) { ((rp_drive *)d)->fast = on; }
static int op_set_timing(void *d, const char *p, char *err, size_t n) { return rp_set_timing(d, p, err, n); }
static int op_set_spin_seed(void *d, uint32_t seed, char *err, size_t n) { return rp_set_spin_seed(d, seed, err, n); }

static void op_destroy(void *dev)
{
    rp_drive *d = dev;
    machine_event_cancel(d->m, &d->ev);
    free(d);
}

static void op_stats(const void *dev, mba_disk_stats *out)
{
    const rp_drive *d = dev;
    out->transfers = d->st_transfers;
    out->sectors = d->st_sectors;
    out->seeks = d->st_seeks;
    out->busy_ns = d->st_busy_ns;
    out->reads = d->st_reads;
    out->writes = d->st_writes;
    out->bytes_read = d->st_bytes_read;
    out->bytes_written = d->st_bytes_written;
    out->cylinders = d->st_cylinders;
    /* A command in progress counts up to now. */
    if (d->state != RP_IDLE) {
        uint64_t now = machine_time_ns(d->m);
        if (now > d->op_start_ns)
            out->busy_ns += now - d->op_start_ns;
    }
}

static void op_snap(void *dev, vax_snap *s)
{
    rp_drive *d = dev;
    snap_same_string(s, d->type->name, "drive type");
    snap_same_string(s, d->tm->name, "disk timing");
    snap_same_u32(s, d->spin_seed, "disk spin seed");
    snap_same_u32(s, (uint32_t)d->fast, "fast disk timing");
    snap_u16(s, &d->func);
    snap_u16(s, &d->er1);
    snap_u16(s, &d->mr1);
    snap_u16(s, &d->da);
    snap_u16(s, &d->of);
    snap_u16(s, &d->dc);
    snap_u16(s, &d->er2);
    snap_u16(s, &d->er3);
    snap_u16(s, &d->serial);
    snap_int(s, &d->cyl, 0, d->type->ncyl);
    snap_int(s, &d->arm, 0, 1 << 20);
    snap_int(s, &d->ata, 0, 1);
    snap_int(s, &d->vv, 0, 1);
    snap_int(s, &d->lst, 0, 1);
    snap_int(s, &d->om, 0, 1);
    int st = (int)d->state;
    snap_int(s, &st, RP_IDLE, RP_BUSY_TRANSFER);
    d->state = (rp_state)st;
    snap_int(s, &d->op, 0, 077);
    snap_event(s, &d->ev);
    snap_u64(s, &d->op_start_ns);
    snap_u64(s, &d->pip_end_ns);
    snap_int(s, &d->target_cyl, 0, d->type->ncyl);
    snap_int(s, &d->target_arm, 0, 1 << 20);
    snap_u32(s, &d->spin_state);
    snap_u64(s, &d->spin_offset_ns);
    snap_u64(s, &d->spin_touch_ns);
    snap_u64(s, &d->st_transfers);
    snap_u64(s, &d->st_sectors);
    snap_u64(s, &d->st_seeks);
    snap_u64(s, &d->st_busy_ns);
    snap_u64(s, &d->st_reads);
    snap_u64(s, &d->st_writes);
    snap_u64(s, &d->st_bytes_read);
    snap_u64(s, &d->st_bytes_written);
    snap_u64(s, &d->st_cylinders);
}

static const mba_drive_ops rp_ops = {
    .read_reg = op_read_reg,
    .write_reg = op_write_reg,
    .attention = op_attention,
    .clear_attention = op_clear_attention,
    .massbus_init = op_massbus_init,
    .abort_transfer = op_abort_transfer,
    .destroy = op_destroy,
    .set_fast = op_set_fast,
    .set_timing = op_set_timing,
    .set_spin_seed = op_set_spin_seed,
    .stats = op_stats,
    .snap = op_snap,
};

int rp_attach(mba *a, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (mba_slot_free(a, unit, err, errlen) != 0)
        return -1;
    rp_drive *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    if (rp_init(d, a, mba_machine(a), mba_number(a), unit, type, bd, err, errlen) != 0 ||
        mba_connect(a, unit, &rp_ops, d, err, errlen) != 0) {
        free(d);
        return -1;
    }
    return 0;
}
