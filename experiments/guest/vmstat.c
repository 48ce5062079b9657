/*
 * vmstat -- report virtual memory, disk, trap and cpu activity, in the
 * columns of 4.3BSD's vmstat(1) (our own program: the distribution's
 * /usr/ucb is not in this image).
 *	vmstat [interval [count]]
 * prints a line of the activity since boot, then, every interval
 * seconds, a line of the activity over that interval only, count lines
 * in all (without count, until interrupted); a header every 20 lines.
 *	procs	r  runnable processes in memory, b  blocked for disk or
 *		paging, w  runnable but swapped out (the kernel's vmtotal,
 *		recomputed every 5 seconds)
 *	memory	avm  active virtual memory, fre  free memory (kilobytes;
 *		vmtotal's; 4.3BSD's "page" of 1024 bytes is a cluster of
 *		two 512-byte pages)
 *	page	per second: re  page reclaims, at  reclaims of pages that
 *		were on the free list ("attaches"), pi  kilobytes paged in,
 *		po  paged out, fr  freed by the page daemon, de  the
 *		expected shortage (kilobytes, not a rate), sr  pages
 *		scanned by the page daemon's clock hand
 *	disk	transfers per second on each configured drive ("h0" = hp0)
 *	faults	per second: in  device interrupts other than the clock's,
 *		sy  system calls, cs  context switches
 *	cpu	percent of the time in user (and niced), system and idle
 * The counts come from the kernel's vmmeter counters: sum holds them up
 * to the last second and cnt the current second's, so sum + cnt is the
 * count since boot and a line is the difference of two such readings;
 * the time of a line is its clock ticks (cp_time) over hz.
 *	vmstat -s	the counts since boot, one to a line, and the name
 *			translation cache's hit rates
 *	vmstat -f	forks and vforks since boot, and their sizes
 *	vmstat -i	interrupts since boot by device, and per second
 */
#include <types.h>
#include <vmmeter.h>
#include <vmsystm.h>
#include <dk.h>
#include "kmem.h"
#include "drives.h"

/* <sys/namei.h> needs <sys/uio.h>: the name cache's counters. */
struct nchstats {
	long	ncs_goodhits, ncs_badhits, ncs_falsehits, ncs_miss;
	long	ncs_long, ncs_pass2, ncs_2passes;
};

struct nlist nl[] = {
#define	X_SUM		0
	{ "_sum" },
#define	X_CNT		1
	{ "_cnt" },
#define	X_TOTAL		2
	{ "_total" },
#define	X_DEFICIT	3
	{ "_deficit" },
#define	X_CPTIME	4
	{ "_cp_time" },
#define	X_DKXFER	5
	{ "_dk_xfer" },
#define	X_DKMSPW	6
	{ "_dk_mspw" },
#define	X_HZ		7
	{ "_hz" },
#define	X_BOOTTIME	8
	{ "_boottime" },
#define	NEED		9	/* those above must be there */
#define	X_MBDINIT	9
	{ "_mbdinit" },
#define	X_NCHSTATS	10
	{ "_nchstats" },
#define	X_FORKSTAT	11
	{ "_forkstat" },
#define	X_INTRNAMES	12
	{ "_intrnames" },
#define	X_EINTRNAMES	13
	{ "_eintrnames" },
#define	X_INTRCNT	14
	{ "_intrcnt" },
#define	X_EINTRCNT	15
	{ "_eintrcnt" },
	{ 0 },
};

#define	NCOUNTS	(sizeof (struct vmmeter) / sizeof (unsigned))

/* What a line is the difference of. */
struct reading {
	struct	vmmeter v;		/* sum + cnt: since boot */
	long	cp[CPUSTATES];
	long	xfer[DK_NDRIVE];
};

int	hz;

/* sum + cnt, read again if vmmeter() moved cnt into sum in between. */
readcounts(v)
	struct vmmeter *v;
{
	struct vmmeter sum, cnt, again;
	register unsigned *s, *c, *a, *r;
	register int i, tries;

	for (tries = 0; tries < 5; tries++) {
		KREAD(nl, X_SUM, sum);
		KREAD(nl, X_CNT, cnt);
		KREAD(nl, X_SUM, again);
		s = (unsigned *)&sum;
		a = (unsigned *)&again;
		for (i = 0; i < NCOUNTS; i++)
			if (s[i] != a[i])
				break;
		if (i == NCOUNTS)
			break;
	}
	s = (unsigned *)&sum;
	c = (unsigned *)&cnt;
	r = (unsigned *)v;
	for (i = 0; i < NCOUNTS; i++)
		r[i] = s[i] + c[i];
}

takereading(r)
	struct reading *r;
{
	readcounts(&r->v);
	KREADARRAY(nl, X_CPTIME, r->cp);
	KREADARRAY(nl, X_DKXFER, r->xfer);
}



header()
{
	register int i;

	line[0] = 0;
	centre("procs", 6);
	centre("memory", 12);
	centre("page", 27);
	if (ndrives > 0)
		centre("disk", ndrives == 1 ? 4 : 3 * ndrives);
	centre("faults", 15);
	centre("cpu", 12);
	trim(line);
	strcpy(line + strlen(line), "\n r b w   avm   fre  re at  pi  po  fr  de  sr");
	for (i = 0; i < ndrives; i++)
		sprintf(line + strlen(line), " %c%c", drive_name[i][0], drive_name[i][2]);
	if (ndrives == 1)
		strcpy(line + strlen(line), " ");
	strcpy(line + strlen(line), "   in   sy   cs  us  sy  id\n");
	out(line);
}

/* The line of what happened between readings a (earlier) and b. */
report(a, b)
	register struct reading *a, *b;
{
	struct vmtotal total;
	int deficit;
	long ticks, dt[CPUSTATES];
	double secs, pct;
	register int i;
	register char *p;

#define	D(f)	((double)(b->v.f - a->v.f))
#define	RATE(x)	((x) / secs)
#define	KB(x)	((x) / 2.0)		/* 512-byte pages to kilobytes */
	KREAD(nl, X_TOTAL, total);
	KREAD(nl, X_DEFICIT, deficit);
	ticks = 0;
	for (i = 0; i < CPUSTATES; i++) {
		dt[i] = b->cp[i] - a->cp[i];
		ticks += dt[i];
	}
	secs = ticks > 0 ? (double)ticks / hz : 1.0;
	p = line;
	sprintf(p, "%2d%2d%2d%6d%6d", total.t_rq, total.t_dw + total.t_pw, total.t_sw,
	    (int)KB(total.t_avm), (int)KB(total.t_free));
	p += strlen(p);
	sprintf(p, "%4.0f%3.0f%4.0f%4.0f%4.0f%4d%4.0f",
	    RATE(D(v_pgrec) - (D(v_xsfrec) + D(v_xifrec))), RATE(D(v_xsfrec) + D(v_xifrec)),
	    RATE(KB(D(v_pgpgin))), RATE(KB(D(v_pgpgout))), RATE(KB(D(v_dfree))),
	    (int)KB(deficit), RATE(D(v_scan)));
	p += strlen(p);
	for (i = 0; i < ndrives; i++) {
		sprintf(p, "%3.0f", RATE((double)(b->xfer[drive_dk[i]] - a->xfer[drive_dk[i]])));
		p += strlen(p);
	}
	if (ndrives == 1)
		*p++ = ' ';
	/* v_intr counts the clock's interrupts too: one per tick. */
	sprintf(p, "%5.0f%5.0f%5.0f", RATE(D(v_intr) - ticks), RATE(D(v_syscall)), RATE(D(v_swtch)));
	p += strlen(p);
	for (i = 0; i < CPUSTATES; i++) {
		if (i == CP_NICE)
			continue;
		pct = dt[i];
		if (i == CP_USER)
			pct += dt[CP_NICE];
		sprintf(p, "%4.0f", ticks > 0 ? 100.0 * pct / ticks : 0.0);
		p += strlen(p);
	}
	strcpy(p, "\n");
	out(line);
}

/* Seconds since boot, from the kernel's boottime and the time of day. */
long
uptime()
{
	struct timeval boottime;
	long up;

	KREAD(nl, X_BOOTTIME, boottime);
	up = time((long *)0) - boottime.tv_sec;
	if (up <= 0)
		fail("the kernel's boot time is after the time of day:", "is /vmunix the running kernel?", 0);
	return (up);
}

/* (The old preprocessor replaces a macro's parameters inside strings too:
 * hence no "n" among them.) */
#define	PR(count, text)	{ sprintf(line, "%9d %s\n", (int)(count), text); out(line); }

/* vmstat -s */
dosum()
{
	struct reading r;
	struct nchstats nch;
	long lookups;

	readcounts(&r.v);
	PR(r.v.v_swpin, "swap ins");
	PR(r.v.v_swpout, "swap outs");
	PR(r.v.v_pswpin, "pages swapped in");
	PR(r.v.v_pswpout, "pages swapped out");
	PR(r.v.v_faults, "total address translation faults taken");
	PR(r.v.v_pgin, "page ins");
	PR(r.v.v_pgout, "page outs");
	PR(r.v.v_pgpgin, "pages paged in");
	PR(r.v.v_pgpgout, "pages paged out");
	PR(r.v.v_seqfree, "sequential process pages freed");
	sprintf(line, "%9d total reclaims (%d%% fast)\n", (int)r.v.v_pgrec,
	    r.v.v_pgrec ? (int)(100.0 * r.v.v_fastpgrec / r.v.v_pgrec + 0.5) : 0);
	out(line);
	PR(r.v.v_pgfrec, "reclaims from free list");
	PR(r.v.v_intrans, "intransit blocking page faults");
	PR(r.v.v_nzfod, "zero fill pages created");
	PR(r.v.v_zfod, "zero fill page faults");
	PR(r.v.v_nexfod, "executable fill pages created");
	PR(r.v.v_exfod, "executable fill page faults");
	PR(r.v.v_xsfrec, "swap text pages found in free list");
	PR(r.v.v_xifrec, "inode text pages found in free list");
	PR(r.v.v_nvrfod, "file fill pages created");
	PR(r.v.v_vrfod, "file fill page faults");
	PR(r.v.v_rev, "revolutions of the clock hand");
	PR(r.v.v_scan, "pages scanned for page out");
	PR(r.v.v_dfree, "pages freed by the clock daemon");
	PR(r.v.v_swtch, "cpu context switches");
	PR(r.v.v_intr, "device interrupts");
	PR(r.v.v_soft, "software interrupts");
	PR(r.v.v_pdma, "pseudo-dma dz interrupts");
	PR(r.v.v_trap, "traps");
	PR(r.v.v_syscall, "system calls");
	if (nl[X_NCHSTATS].n_value == 0)
		return;
	KREAD(nl, X_NCHSTATS, nch);
	lookups = nch.ncs_goodhits + nch.ncs_badhits + nch.ncs_falsehits + nch.ncs_miss + nch.ncs_long;
	PR(lookups, "total name lookups");
	sprintf(line, "%9s cache hits (%d%% system %d%% per-process)\n", "",
	    lookups ? (int)(100.0 * nch.ncs_goodhits / lookups + 0.5) : 0,
	    lookups ? (int)(100.0 * nch.ncs_pass2 / lookups + 0.5) : 0);
	out(line);
}

/* vmstat -f */
doforks()
{
	struct forkstat fk;

	if (nl[X_FORKSTAT].n_value == 0)
		fail("/vmunix has no symbol", "_forkstat", 0);
	KREAD(nl, X_FORKSTAT, fk);
	sprintf(line, "%d forks, %d pages, average %.2f\n", fk.cntfork, fk.sizfork,
	    fk.cntfork ? (double)fk.sizfork / fk.cntfork : 0.0);
	out(line);
	sprintf(line, "%d vforks, %d pages, average %.2f\n", fk.cntvfork, fk.sizvfork,
	    fk.cntvfork ? (double)fk.sizvfork / fk.cntvfork : 0.0);
	out(line);
}

/* vmstat -i */
dointr()
{
	char names[1024], *name;
	long counts[128], total, up;
	int nnames, ncounts;
	register int i;

	for (i = X_INTRNAMES; i <= X_EINTRCNT; i++)
		if (nl[i].n_value == 0)
			fail("/vmunix has no symbol", nl[i].n_name, 0);
	nnames = nl[X_EINTRNAMES].n_value - nl[X_INTRNAMES].n_value;
	ncounts = (nl[X_EINTRCNT].n_value - nl[X_INTRCNT].n_value) / sizeof (long);
	if (nnames <= 0 || nnames > sizeof names || ncounts <= 0 || ncounts > 128)
		fail("the kernel's interrupt tables make no sense:", "is /vmunix the running kernel?", 0);
	kread(nl[X_INTRNAMES].n_value, names, nnames, "_intrnames");
	names[nnames - 1] = 0;
	kread(nl[X_INTRCNT].n_value, (char *)counts, ncounts * sizeof (long), "_intrcnt");
	up = uptime();
	out("interrupt      total      rate\n");
	total = 0;
	name = names;
	for (i = 0; i < ncounts && name < names + nnames; i++) {
		if (counts[i] != 0) {
			sprintf(line, "%-12s %7d %9d\n", name, (int)counts[i], (int)(counts[i] / up));
			out(line);
		}
		total += counts[i];
		name += strlen(name) + 1;
	}
	sprintf(line, "%-12s %7d %9d\n", "Total", (int)total, (int)(total / up));
	out(line);
}

usage()
{
	putstr(2, "usage: vmstat [-s | -f | -i] [interval [count]]\n");
	exit(1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	struct reading r[2];
	float mspw[DK_NDRIVE];
	int interval, count, n, flag;
	register int i;

	progname = "vmstat";
	flag = 0;
	if (argc > 1 && argv[1][0] == '-') {
		flag = argv[1][1];
		if ((flag != 's' && flag != 'f' && flag != 'i') || argv[1][2] != 0 || argc > 2)
			usage();
		argc--, argv++;
	}
	interval = 0;
	count = 1;
	if (argc > 3)
		usage();
	if (argc > 1) {
		interval = atoi(argv[1]);
		if (interval <= 0)
			usage();
		count = 0;
	}
	if (argc > 2) {
		count = atoi(argv[2]);
		if (count <= 0)
			usage();
	}
	kopen(nl, NEED);
	KREAD(nl, X_HZ, hz);
	if (hz <= 0)
		fail("the kernel's hz is not positive:", "is /vmunix the running kernel?", 0);
	if (flag == 's') {
		dosum();
		exit(0);
	}
	if (flag == 'f') {
		doforks();
		exit(0);
	}
	if (flag == 'i') {
		dointr();
		exit(0);
	}
	uptime();
	KREADARRAY(nl, X_DKMSPW, mspw);
	finddrives(nl[X_MBDINIT].n_value, mspw);
	/* r[0] all zero: the first line is since boot */
	for (i = 0; i < sizeof r[0]; i++)
		((char *)&r[0])[i] = 0;
	for (n = 0; count == 0 || n < count; n++) {
		if (n % 20 == 0)
			header();
		takereading(&r[(n + 1) % 2]);
		report(&r[n % 2], &r[(n + 1) % 2]);
		if (count == 0 || n + 1 < count)
			sleep(interval);
	}
	exit(0);
}
