/*
 * w -- how long the system has been up, its load, and who is logged in
 * (our own program, in the manner of 4.3BSD's w(1) and uptime(1): the
 * distribution's /usr/ucb is not in this image).
 *	w	the uptime line, then a line per login: user, terminal,
 *		when they logged in, how long the terminal has been idle
 *	uptime	the uptime line alone (uptime.c is this file with UPTIME)
 * The uptime line: the time of day, the time since boot (the kernel's
 * boottime), the number of users (the entries of /etc/utmp with a
 * name), and the load averages over 1, 5 and 15 minutes (the kernel's
 * avenrun: the number of runnable processes, averaged by the scheduler
 * every 5 seconds).  4.3BSD's w also shows each login's cpu time and
 * current command, which live in each process's user structure (its u
 * area, in memory or on swap); this one leaves them out (ps shows the
 * commands).
 */
#include <types.h>
#include <stat.h>
#include "kmem.h"

/* <utmp.h>: a login in /etc/utmp. */
struct utmp {
	char	ut_line[8];		/* terminal, without /dev/ */
	char	ut_name[8];		/* user; empty: nobody */
	char	ut_host[16];		/* remote host */
	long	ut_time;		/* when they logged in */
};

/* <time.h>: what localtime(3) returns. */
struct tm {
	int	tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year;
	int	tm_wday, tm_yday, tm_isdst;
};
extern struct tm *localtime();
extern int close(), stat();

struct nlist nl[] = {
#define	X_BOOTTIME	0
	{ "_boottime" },
#define	X_AVENRUN	1
	{ "_avenrun" },
#define	NEED		2
	{ 0 },
};

#define	UTMP	"/etc/utmp"
#define	MAXLOGINS	100

struct	utmp logins[MAXLOGINS];
int	nlogins;
char	line[256];

/* The logins of /etc/utmp (none when it cannot be read: as after a boot
 * to single-user, where nobody has logged in). */
readutmp()
{
	struct utmp u;
	int fd;

	fd = open(UTMP, 0);
	if (fd < 0)
		return;
	while (nlogins < MAXLOGINS && read(fd, (char *)&u, sizeof u) == sizeof u)
		if (u.ut_name[0] != 0)
			logins[nlogins++] = u;
	close(fd);
}

/* "10:41am" at the end of line. */
clock12(t)
	long t;
{
	register struct tm *tm = localtime(&t);
	int h = tm->tm_hour % 12;

	sprintf(line + strlen(line), "%2d:%02d%s", h == 0 ? 12 : h, tm->tm_min, tm->tm_hour < 12 ? "am" : "pm");
}

uptimeline(now)
	long now;
{
	struct timeval boottime;
	double avenrun[3];
	long up, days, hours, mins;

	KREAD(nl, X_BOOTTIME, boottime);
	KREADARRAY(nl, X_AVENRUN, avenrun);
	up = now - boottime.tv_sec;
	if (up < 0)
		fail("the kernel's boot time is after the time of day:", "is /vmunix the running kernel?", 0);
	up += 30;	/* to the nearest minute */
	days = up / 86400;
	hours = up % 86400 / 3600;
	mins = up % 3600 / 60;
	line[0] = 0;
	clock12(now);
	strcpy(line + strlen(line), "  up");
	if (days > 0)
		sprintf(line + strlen(line), " %d day%s,", days, days == 1 ? "" : "s");
	if (hours > 0)
		sprintf(line + strlen(line), " %2d:%02d,", hours, mins);
	else
		sprintf(line + strlen(line), " %d min%s,", mins, mins == 1 ? "" : "s");
	sprintf(line + strlen(line), "  %d user%s,  load average: %.2f, %.2f, %.2f\n",
	    nlogins, nlogins == 1 ? "" : "s", avenrun[0], avenrun[1], avenrun[2]);
	out(line);
}

#ifndef UPTIME
/* A login's line: user, terminal, login time, idle time. */
loginline(u, now)
	register struct utmp *u;
	long now;
{
	struct stat st;
	char dev[32], tty[9];
	long idle;
	register struct tm *tm;

	strncpy(tty, u->ut_line, 8);
	tty[8] = 0;
	sprintf(line, "%-8.8s %-8s ", u->ut_name, tty);
	if (now - u->ut_time < 86400)
		clock12(u->ut_time);
	else {
		tm = localtime(&u->ut_time);
		sprintf(line + strlen(line), "%2d%.3s%02d", tm->tm_mday,
		    "JanFebMarAprMayJunJulAugSepOctNovDec" + 3 * tm->tm_mon, tm->tm_year % 100);
	}
	sprintf(dev, "/dev/%s", tty);
	idle = stat(dev, &st) == 0 ? now - st.st_atime : 0;
	if (idle >= 86400)
		sprintf(line + strlen(line), " %4dday", idle / 86400);
	else if (idle >= 3600)
		sprintf(line + strlen(line), " %4d:%02d", idle / 3600, idle % 3600 / 60);
	else if (idle >= 60)
		sprintf(line + strlen(line), " %7d", idle / 60);
	strcpy(line + strlen(line), "\n");
	out(line);
}
#endif

main(argc, argv)
	int argc;
	char **argv;
{
	long now;
	register int i;

#ifdef UPTIME
	progname = "uptime";
	if (argc != 1) {
		putstr(2, "usage: uptime\n");
		exit(1);
	}
#else
	progname = "w";
	if (argc != 1) {
		putstr(2, "usage: w\n");
		exit(1);
	}
#endif
	kopen(nl, NEED);
	readutmp();
	now = time((long *)0);
	uptimeline(now);
#ifndef UPTIME
	out("User     tty       login@    idle\n");
	for (i = 0; i < nlogins; i++)
		loginline(&logins[i], now);
#endif
	exit(0);
}
