/*
 * iostat -- report terminal and disk i/o and cpu time, in the columns of
 * 4.3BSD's iostat(1) (our own program: the distribution's /usr/bin is
 * not in this image).
 *	iostat [interval [count]]
 * prints a line of the activity since boot, then, every interval
 * seconds, a line of the activity over that interval only, count lines
 * in all (without count, until interrupted); a header every 20 lines.
 *	tty	tin  characters read from terminals per second, tout
 *		characters written to them
 *	each configured drive (hp0 ...):
 *		bps  kilobytes transferred per second, tps  transfers per
 *		second, msps  milliseconds per seek: the time the drive was
 *		busy less the time its transfers took (its words at the
 *		driver's seconds per word, dk_mspw), over the seeks
 *	cpu	percent of the time in user, nice, system and idle
 * From the kernel's instrumentation (h/dk.h): tk_nin, tk_nout, and per
 * drive slot dk_xfer (transfers), dk_wds (64-byte units transferred),
 * dk_seek (seeks), dk_time (clock ticks the drive was busy); cp_time,
 * clock ticks by cpu state; the time of a line is its ticks over hz.
 */
#include <types.h>
#include <dk.h>
#include "kmem.h"
#include "drives.h"

struct nlist nl[] = {
#define	X_TKNIN		0
	{ "_tk_nin" },
#define	X_TKNOUT	1
	{ "_tk_nout" },
#define	X_CPTIME	2
	{ "_cp_time" },
#define	X_DKXFER	3
	{ "_dk_xfer" },
#define	X_DKWDS		4
	{ "_dk_wds" },
#define	X_DKSEEK	5
	{ "_dk_seek" },
#define	X_DKTIME	6
	{ "_dk_time" },
#define	X_DKMSPW	7
	{ "_dk_mspw" },
#define	X_HZ		8
	{ "_hz" },
#define	NEED		9	/* those above must be there */
#define	X_MBDINIT	9
	{ "_mbdinit" },
	{ 0 },
};

/* What a line is the difference of. */
struct reading {
	long	nin, nout;
	long	cp[CPUSTATES];
	long	xfer[DK_NDRIVE], wds[DK_NDRIVE], seek[DK_NDRIVE], time[DK_NDRIVE];
};

int	hz;
float	mspw[DK_NDRIVE];

takereading(r)
	register struct reading *r;
{
	KREAD(nl, X_TKNIN, r->nin);
	KREAD(nl, X_TKNOUT, r->nout);
	KREADARRAY(nl, X_CPTIME, r->cp);
	KREADARRAY(nl, X_DKXFER, r->xfer);
	KREADARRAY(nl, X_DKWDS, r->wds);
	KREADARRAY(nl, X_DKSEEK, r->seek);
	KREADARRAY(nl, X_DKTIME, r->time);
}


header()
{
	register int i;

	line[0] = 0;
	centre("tty", 10);
	for (i = 0; i < ndrives; i++)
		centre(drive_name[i], 15);
	centre("cpu", 16);
	trim(line);
	strcpy(line + strlen(line), "\n tin tout");
	for (i = 0; i < ndrives; i++)
		strcpy(line + strlen(line), "  bps tps  msps");
	strcpy(line + strlen(line), "  us  ni  sy  id\n");
	out(line);
}

/* The line of what happened between readings a (earlier) and b. */
report(a, b)
	register struct reading *a, *b;
{
	long ticks, dt[CPUSTATES];
	double secs, busy, words, moving;
	register int i, dk;
	register char *p;

	ticks = 0;
	for (i = 0; i < CPUSTATES; i++) {
		dt[i] = b->cp[i] - a->cp[i];
		ticks += dt[i];
	}
	secs = ticks > 0 ? (double)ticks / hz : 1.0;
	p = line;
	sprintf(p, "%4.0f%5.0f", (b->nin - a->nin) / secs, (b->nout - a->nout) / secs);
	p += strlen(p);
	for (i = 0; i < ndrives; i++) {
		dk = drive_dk[i];
		busy = (double)(b->time[dk] - a->time[dk]) / hz;
		words = 32.0 * (b->wds[dk] - a->wds[dk]);	/* 16-bit words */
		moving = busy - words * mspw[dk];
		if (moving < 0.0)
			moving = 0.0;
		sprintf(p, "%5.0f%4.0f%6.1f", words * 2.0 / 1024.0 / secs, (b->xfer[dk] - a->xfer[dk]) / secs,
		    b->seek[dk] != a->seek[dk] ? 1000.0 * moving / (b->seek[dk] - a->seek[dk]) : 0.0);
		p += strlen(p);
	}
	sprintf(p, "%4.0f%4.0f%4.0f%4.0f\n",
	    ticks > 0 ? 100.0 * dt[CP_USER] / ticks : 0.0, ticks > 0 ? 100.0 * dt[CP_NICE] / ticks : 0.0,
	    ticks > 0 ? 100.0 * dt[CP_SYS] / ticks : 0.0, ticks > 0 ? 100.0 * dt[CP_IDLE] / ticks : 0.0);
	out(line);
}

usage()
{
	putstr(2, "usage: iostat [interval [count]]\n");
	exit(1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	struct reading r[2];
	int interval, count, n;
	register int i;

	progname = "iostat";
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
