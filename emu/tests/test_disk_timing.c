/*
 * test_disk_timing.c — the disk timing profiles (massbus/rp.c, "Timing
 * profiles"): the same sequence of commands on an RP06 pack, timed as an
 * RP06, a Fujitsu Eagle and an ideal disk, takes each profile's times, worked
 * out here from the profile's own figures (rotation, slots per track, data
 * rate, seek curve) and the layout the pack's blocks take on it; and the
 * profiles are refused where they cannot apply.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus.h"
#include "machine.h"
#include "massbus/mba.h"
#include "massbus/rp.h"
#include "storage/blockdev.h"
#include "bus/sbi.h"
#include "system/vax780.h"

#include "check.h"

#define TR 8
#define BASE sbi_nexus_address(TR)
#define DRV(reg) (MBA_DRIVE_BASE + 4u * (uint32_t)(reg)) /* drive 0 */
#define MAP(i) (MBA_MAP_BASE + 4u * (uint32_t)(i))

#define HP_GO 1u
#define HP_SEEK 004u
#define HP_DCLR 010u
#define HP_PACK 022u
#define HP_RCOM 070u
#define HP_SEARCH 030u

/* RP06 geometry: what the driver sees whatever the timing. */
#define NSECT 22
#define NTRAK 19
#define NCYL 815
#define RP06_BYTES ((uint64_t)NSECT * NTRAK * NCYL * 512u)

/* Each profile's figures, as rp.c's comment gives them (ns). */
typedef struct {
    const char *name;
    int nsect, ntrak, ncyl;        /* its own layout */
    double rev, min, avg, max, data;
    int ideal;
} profile;

static const profile RP06 = {"rp06", 22, 19, 815, 16666667, 10e6, 25e6, 55e6, 512e9 / 806e3, 0};
static const profile EAGLE = {"eagle", 48, 20, 842, 60e9 / 3961, 5e6, 18e6, 35e6, 512e9 / 1.859e6, 0};
static const profile IDEAL = {"ideal", 22, 19, 815, 16666667, 0, 0, 0, 512e9 / 806e3, 1};
static const profile RM05 = {"rm05", 32, 19, 823, 16666667, 6e6, 30e6, 55e6, 512e9 / 1.2e6, 0};

static double slot(const profile *p) { return floor(p->rev / p->nsect); }

/* Seek over d cylinders: min + B sqrt(u) + C u, t(1/3) = avg, t(1) = max. */
static double seek(const profile *p, int from, int to)
{
    int d = abs(from - to);
    if (d == 0 || p->ideal)
        return 0;
    double span = p->max - p->min, b = (3 * (p->avg - p->min) - span) / (sqrt(3.0) - 1);
    if (b < 0)
        b = 0;
    double u = (double)(d - 1) / (p->ncyl - 2);
    return p->min + b * sqrt(u) + (span - b) * u;
}

/* Wait at time t for sector s of the profile's track (drive 0: no phase). */
static double wait_for(const profile *p, double t, int s)
{
    if (p->ideal)
        return 0;
    double rev = floor(p->rev + 0.5), a = fmod(t, rev);
    return fmod(s * slot(p) - a + rev, rev);
}

/* Where block b lies on the profile's layout. */
static void place(const profile *p, long b, int *c, int *h, int *s)
{
    long spc = (long)p->nsect * p->ntrak;
    *c = (int)(b / spc);
    *h = (int)(b % spc / p->nsect);
    *s = (int)(b % p->nsect);
}

/* A transfer of n sectors from block b, issued at t with the arm at *arm. */
static double transfer(const profile *p, double t0, int *arm, long b, int n)
{
    int c, h, s;
    place(p, b, &c, &h, &s);
    double t = t0 + seek(p, *arm, c);
    while (n > 0) {
        t += wait_for(p, t, s);
        int k = p->nsect - s < n ? p->nsect - s : n;
        t += k * slot(p);
        n -= k;
        s = 0;
        if (++h == p->ntrak) {
            h = 0;
            if (n > 0)
                t += seek(p, c, c + 1);
            c++;
        }
    }
    *arm = c - (h == 0 && c > 0 ? 1 : 0); /* the cylinder of the last sector */
    return t - (slot(p) - floor(p->data)) / 2 - t0;
}

static long block(int c, int h, int s) { return ((long)c * NTRAK + h) * NSECT + s; }

/* ------------------------------------------------------------------ */

static uint32_t rd(vax_machine *m, uint32_t off)
{
    uint32_t v = 0;
    CHECK(bus_read(m, BASE + off, 4, &v) == 0, "bus_read of MBA+%#x", off);
    return v;
}

static void wr(vax_machine *m, uint32_t off, uint32_t v)
{
    CHECK(bus_write(m, BASE + off, 4, v) == 0, "bus_write of MBA+%#x", off);
}

/* Issue a command and run one instruction at a time until the drive is
 * ready again; the virtual time it took (to within one instruction). */
static double timed(vax_machine *m, uint32_t func)
{
    uint64_t t0 = machine_time_ns(m);
    wr(m, DRV(RP_CS1), func | HP_GO);
    while (!(rd(m, DRV(RP_DS)) & RPDS_DRY) && machine_time_ns(m) - t0 < 1000000000ull)
        vax_run(m, 1);
    wr(m, MBA_SR, rd(m, MBA_SR));       /* mbintr: clear SR and attention */
    wr(m, DRV(RP_AS), rd(m, DRV(RP_AS)) & 0xFF);
    return (double)(machine_time_ns(m) - t0);
}

static double seek_to(vax_machine *m, int cyl)
{
    wr(m, DRV(RP_DC), (uint32_t)cyl);
    return timed(m, HP_SEEK);
}

static double read_at(vax_machine *m, int c, int h, int s, int n)
{
    wr(m, MAP(0), 0x100u | MBAMAP_VALID);
    for (int i = 1; i <= (n * 512 + 511) / 512; i++)
        wr(m, MAP(i), (0x100u + (uint32_t)i) | MBAMAP_VALID);
    wr(m, MBA_SR, 0xFFFFFFFFu);
    wr(m, MBA_VAR, 0);
    wr(m, MBA_BCR, 0u - (uint32_t)(n * 512));
    wr(m, DRV(RP_DC), (uint32_t)c);
    wr(m, DRV(RP_DA), ((uint32_t)h << 8) | (uint32_t)s);
    return timed(m, HP_RCOM);
}

/* How close a measured time must be: the loop notices completion at the
 * end of an instruction, and the model rounds its seek curve to whole ns. */
#define SLACK 5000.0

static void near(const char *prof, const char *what, double got, double want)
{
    CHECK(got >= want - 50 && got <= want + SLACK, "%s, %s: took %.0f ns, the profile gives %.0f", prof, what, got,
          want);
}

/* A fresh machine spinning on BRB . with one RP06 over img at slot 0 of an
 * MBA, timed by profile `timing` (NULL: the type's own) and spin seed
 * `seed`, cleared and its pack acknowledged.  The drive reads the pack
 * through *bd, which the caller keeps for as long as the machine. */
static vax_machine *rp06_rig(uint8_t *img, vax_blockdev *bd, const char *timing, uint32_t seed, mba **out)
{
    vax_config vc = {4u << 20};
    vax_machine *m = vax_create(&vc);
    CHECK(m != NULL, "vax_create");
    static const uint8_t brb_self[] = {0x11, 0xFE};
    vax_phys_write(m, 0x1000, brb_self, sizeof brb_self);
    vax_set_reg(m, 15, 0x1000);
    mba *a = mba_create(m, TR, 0);
    blockdev_memory(bd, img, RP06_BYTES, 1);
    char err[256] = "";
    CHECK(a && rp_attach(a, 0, "RP06", bd, err, sizeof err) == 0, "attach: %s", err);
    CHECK(mba_set_disk_timing(a, 0, timing, err, sizeof err) == 0, "%s: %s", timing ? timing : "own timing", err);
    CHECK(mba_set_disk_spin_seed(a, 0, seed, err, sizeof err) == 0, "spin seed %u: %s", seed, err);
    wr(m, DRV(RP_CS1), HP_DCLR | HP_GO);
    wr(m, DRV(RP_CS1), HP_PACK | HP_GO);
    *out = a;
    return m;
}

/* The sequence on a fresh machine and drive timed by profile p; returns its total. */
static double run_sequence(const profile *p, uint8_t *img)
{
    mba *a;
    vax_blockdev bd;   /* the drive keeps a pointer to it: it must outlive the machine */
    vax_machine *m = rp06_rig(img, &bd, p->name, 0, &a);
    vax_run(m, 1000); /* not at time 0 */

    int arm = 0, c, h, s;
    double total = 0, got, want;

    /* 1. seek from cylinder 0 to 500 */
    place(p, block(500, 0, 0), &c, &h, &s);
    want = seek(p, arm, c);
    arm = c;
    got = seek_to(m, 500);
    near(p->name, "seek 0 -> 500", got, want);
    total += got;

    /* 2. one sector at cylinder 500 track 0 sector 0: no seek */
    double t = (double)machine_time_ns(m);
    want = transfer(p, t, &arm, block(500, 0, 0), 1);
    if (p->ideal)
        want = slot(p) - (slot(p) - floor(p->data)) / 2;
    got = read_at(m, 500, 0, 0, 1);
    near(p->name, "1 sector", got, want);
    total += got;

    /* 3. 8 KB from cylinder 500 track 18 sector 10: on the RP06 it runs
     * over into cylinder 501; on the Eagle it starts one cylinder on. */
    t = (double)machine_time_ns(m);
    want = transfer(p, t, &arm, block(500, 18, 10), 16);
    got = read_at(m, 500, 18, 10, 16);
    near(p->name, "16 sectors", got, want);
    total += got;

    /* 4. 4 KB at cylinder 100 track 7 sector 3 */
    t = (double)machine_time_ns(m);
    want = transfer(p, t, &arm, block(100, 7, 3), 8);
    got = read_at(m, 100, 7, 3, 8);
    near(p->name, "8 sectors after a seek", got, want);
    total += got;

    /* 5. seek home */
    want = seek(p, arm, 0);
    got = seek_to(m, 0);
    near(p->name, "seek home", got, want);
    total += got;

    mba_disk_stats st;
    CHECK(mba_disk_stats_get(a, 0, &st) == 0 && st.transfers == 3 && st.sectors == 25 && st.seeks == 3,
          "%s: the counters count the RP06's work: %llu transfers, %llu sectors, %llu seeks", p->name,
          (unsigned long long)st.transfers, (unsigned long long)st.sectors, (unsigned long long)st.seeks);
    printf("%-5s: seek 0->500, 1 + 16 + 8 sectors, seek home: %.2f ms\n", p->name, total / 1e6);
    mba_destroy(a);
    vax_destroy(m);
    return total;
}

static void test_refusals(uint8_t *img)
{
    vax_config vc = {1u << 20};
    vax_machine *m = vax_create(&vc);
    mba *a = mba_create(m, TR, 0);
    vax_blockdev bd, big;
    blockdev_memory(&bd, img, RP06_BYTES, 1);
    char err[256] = "";
    CHECK(rp_attach(a, 0, "RP06", &bd, err, sizeof err) == 0, "attach: %s", err);
    err[0] = 0;
    CHECK(mba_set_disk_timing(a, 0, "rk07", err, sizeof err) == -1 && strstr(err, "rk07") &&
              strstr(err, "rp06 eagle ideal rm05"),
          "an unknown profile is not refused clearly: %s", err);
    CHECK(mba_set_disk_timing(a, 1, "eagle", err, sizeof err) == -1, "a profile for an empty slot");
    CHECK(mba_set_disk_timing(a, 0, "EAGLE", err, sizeof err) == 0, "names are case-insensitive: %s", err);
    CHECK(mba_set_disk_timing(a, 0, NULL, err, sizeof err) == 0, "back to the type's own: %s", err);
    CHECK(rp_timing_find("ideal") && rp_timing_find("rp06") && rp_timing_find("eagle") && !rp_timing_find("rp0"),
          "rp_timing_find");
    /* An RP07 pack (50 x 32 x 630 sectors) is bigger than an Eagle. */
    static uint8_t tiny[512];
    blockdev_memory(&big, tiny, (uint64_t)50 * 32 * 630 * 512, 1); /* never accessed */
    CHECK(rp_attach(a, 2, "RP07", &big, err, sizeof err) == 0, "attach RP07: %s", err);
    err[0] = 0;
    CHECK(mba_set_disk_timing(a, 2, "eagle", err, sizeof err) == -1 && strstr(err, "does not fit"),
          "an RP07 pack on an Eagle: %s", err);
    CHECK(mba_set_disk_timing(a, 2, "ideal", err, sizeof err) == 0, "ideal takes any pack: %s", err);
    /* Not while the drive is busy. */
    wr(m, DRV(RP_DC), 700);
    wr(m, DRV(RP_CS1), HP_SEEK | HP_GO);
    err[0] = 0;
    CHECK(mba_set_disk_timing(a, 0, "eagle", err, sizeof err) == -1 && strstr(err, "busy"),
          "a profile set on a busy drive: %s", err);
    mba_destroy(a);
    vax_destroy(m);

    /* The system's configuration names it too. */
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    cfg.disk[0].type = "RP06";
    cfg.disk[0].image = &bd;
    cfg.disk_timing = "eagle";
    vax780 *s = vax780_create(&cfg, err, sizeof err);
    CHECK(s != NULL, "vax780_create with disk_timing eagle: %s", err);
    if (s) {
        CHECK(vax780_set_disk_timing(s, "ideal", err, sizeof err) == 0, "vax780_set_disk_timing: %s", err);
        vax780_destroy(s);
    }
    cfg.disk_timing = "fast";
    err[0] = 0;
    CHECK(vax780_create(&cfg, err, sizeof err) == NULL && strstr(err, "unknown disk timing \"fast\""),
          "vax780_create with a bad profile: %s", err);
}

/* Spin seeds: the same one-sector read at the same cylinder, 40 times on
 * a drive whose heads stay put, with more than a revolution of computing
 * between them; what varies is the rotational wait.  Seed 0 is the
 * mechanics locked to virtual time (the same computing between requests,
 * the same wait each time); a seed makes each wait a fresh angle, uniform
 * over the turn (their mean is near half a turn), the same for the same
 * seed and different for another. */
static double spin_waits(uint8_t *img, uint32_t seed, double *spread)
{
    mba *a;
    vax_blockdev bd;   /* the drive keeps a pointer to it: it must outlive the machine */
    vax_machine *m = rp06_rig(img, &bd, NULL, seed, &a);
    seek_to(m, 200);
    double sum = 0, lo = 1e18, hi = 0;
    for (int i = 0; i < 40; i++) {
        uint64_t t0 = machine_time_ns(m);
        vax_run(m, 40777); /* the same computing between requests, over a turn */
        CHECK(machine_time_ns(m) - t0 > 16666667u, "the computing between requests takes over a turn");
        double t = read_at(m, 200, 3, 5, 1);
        sum += t;
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    *spread = hi - lo;
    mba_destroy(a);
    vax_destroy(m);
    return sum / 40;
}

/* With a spin seed, a transfer issued as soon as a SEARCH has found its
 * sector keeps the platter's phase (what the 4.3BSD driver does on a
 * MASSBUS with two drives: SEARCH to a few sectors before the block, then
 * the read at the attention interrupt): the read waits the few sectors
 * between, never a fresh random part of a turn. */
static void test_spin_search(uint8_t *img)
{
    mba *a;
    vax_blockdev bd;   /* the drive keeps a pointer to it: it must outlive the machine */
    vax_machine *m = rp06_rig(img, &bd, NULL, 3, &a);
    seek_to(m, 200);
    double searches = 0, lo = 1e18, hi = 0;
    for (int i = 0; i < 20; i++) {
        vax_run(m, 40777); /* idle for over a turn: the search finds a new angle */
        wr(m, DRV(RP_DC), 200);
        wr(m, DRV(RP_DA), (3u << 8) | 5u);
        searches += timed(m, HP_SEARCH);
        double t = read_at(m, 200, 3, 12, 1); /* 7 sectors on: 7 slots' wait and the sector */
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    double want = 8 * slot(&RP06);
    CHECK(lo > want - slot(&RP06) && hi < want + slot(&RP06),
          "a read right after its SEARCH waits only the sectors between: %.0f to %.0f ns, about %.0f wanted", lo, hi,
          want);
    CHECK(searches / 20 > 16666667 / 4.0, "the searches themselves wait a random part of a turn (mean %.0f ns)",
          searches / 20);
    mba_destroy(a);
    vax_destroy(m);
}

static void test_spin_seed(uint8_t *img)
{
    double s0, s1, s1b, s2;
    double locked = spin_waits(img, 0, &s0);
    double one = spin_waits(img, 1, &s1), again = spin_waits(img, 1, &s1b), two = spin_waits(img, 2, &s2);
    CHECK(s0 < s1 / 10, "seed 0: the waits (spread over %.0f ns) nearly the same, unlike a seed's (%.0f ns)", s0, s1);
    CHECK(one == again && s1 == s1b, "seed 1 twice: the same waits");
    CHECK(one != two, "seeds 1 and 2: different waits");
    CHECK(s1 > 16666667 / 2 && s2 > 16666667 / 2, "a seed spreads the waits over the turn (%.0f, %.0f ns)", s1, s2);
    double half = 16666667 / 2.0 + slot(&RP06);
    CHECK(fabs(one - half) < 16666667 / 4.0 && fabs(two - half) < 16666667 / 4.0,
          "a seed's waits average about half a turn: %.0f and %.0f ns (locked: %.0f)", one, two, locked);
    char err[128] = "";
    vax_config vc = {1u << 20};
    vax_machine *m = vax_create(&vc);
    mba *a = mba_create(m, TR, 0);
    CHECK(mba_set_disk_spin_seed(a, 2, 1, err, sizeof err) == -1 && strstr(err, "no drive"), "no drive: %s", err);
    mba_destroy(a);
    vax_destroy(m);
}

int main(void)
{
    uint8_t *img = calloc(1, RP06_BYTES); /* untouched pages stay unallocated */
    CHECK(img != NULL, "no memory for the pack");
    if (!img)
        return 1;
    double rp06 = run_sequence(&RP06, img);
    double eagle = run_sequence(&EAGLE, img);
    double ideal = run_sequence(&IDEAL, img);
    double rm05 = run_sequence(&RM05, img);
    CHECK(rm05 < rp06, "rm05 %.0f < rp06 %.0f ns", rm05, rp06);
    CHECK(ideal < eagle && eagle < rp06, "ideal %.0f < eagle %.0f < rp06 %.0f ns", ideal, eagle, rp06);
    /* ideal: the transfers only, 25 sectors at the RP06's rate. */
    double want = 25 * slot(&IDEAL) - 3 * (slot(&IDEAL) - floor(IDEAL.data)) / 2;
    CHECK(ideal >= want - 50 && ideal <= want + 5 * SLACK, "ideal: the whole sequence took %.0f ns, its transfers %.0f",
          ideal, want);
    test_refusals(img);
    test_spin_seed(img);
    test_spin_search(img);
    free(img);
    return check_summary();
}
