/*
 * kmem.h -- what the lab's tools for watching the system (vmstat,
 * iostat, uptime, w) share: the kernel's variables found by name in the
 * symbol table of /vmunix with nlist(3) and read from /dev/kmem at those
 * addresses, the way 4.3BSD's own vmstat and iostat find them.  When
 * /vmunix has no symbol table, a symbol the tool needs is not in it, or
 * /dev/kmem cannot be opened or read, the tool says so in one line on
 * the standard error and exits 1.
 *
 * Lines are formatted with sprintf and written with write(2), not through
 * stdio's buffer, so that each line of an interval report shows as soon
 * as it is complete.
 */

/* <nlist.h> (absent from this image): one symbol to look up. */
struct nlist {
	char	*n_name;
	unsigned char n_type;
	char	n_other;
	short	n_desc;
	unsigned long n_value;
};

/* <sys/time.h> cannot be included with -I/sys/h: it includes <time.h>,
 * which is itself there. */
struct timeval {
	long	tv_sec;
	long	tv_usec;
};

extern int atoi(), nlist(), open(), read(), sleep(), strlen(), write();
extern long lseek(), time();
extern char *sprintf(), *strcpy(), *strncpy();
extern int errno, sys_nerr;
extern char *sys_errlist[];

char	*progname;
int	kmem = -1;

/* s on file descriptor fd, as it is. */
putstr(fd, s)
	int fd;
	char *s;
{
	write(fd, s, strlen(s));
}

/* s on the standard output. */
out(s)
	char *s;
{
	putstr(1, s);
}

/* "progname: what name" (and the system's reason when why is set) on
 * the standard error, and exit 1. */
fail(what, name, why)
	char *what, *name;
	int why;
{
	int e = errno;

	putstr(2, progname);
	putstr(2, ": ");
	putstr(2, what);
	if (name) {
		putstr(2, " ");
		putstr(2, name);
	}
	if (why && e > 0 && e < sys_nerr) {
		putstr(2, ": ");
		putstr(2, sys_errlist[e]);
	}
	putstr(2, "\n");
	exit(1);
}

/*
 * Looks up the symbols of nl (ended by a null name) in /vmunix and opens
 * /dev/kmem.  The first `need' symbols must be there; the others may be
 * missing (their n_value stays 0) and the tool goes without them.
 */
kopen(nl, need)
	struct nlist *nl;
	int need;
{
	register int i;

	if (nlist("/vmunix", nl) < 0)
		fail("cannot read the symbol table of", "/vmunix", 1);
	for (i = 0; i < need && nl[i].n_name; i++)
		if (nl[i].n_value == 0)
			fail("/vmunix has no symbol", nl[i].n_name, 0);
	kmem = open("/dev/kmem", 0);
	if (kmem < 0)
		fail("cannot open", "/dev/kmem", 1);
}

/* len bytes of kernel memory at addr (the symbol's name, for a message). */
kread(addr, buf, len, name)
	unsigned long addr;
	char *buf;
	int len;
	char *name;
{
	errno = 0;
	lseek(kmem, (long)addr, 0);
	if (errno != 0 || read(kmem, buf, len) != len)
		fail("cannot read /dev/kmem at", name, 1);
}

/* The kernel variable of symbol nl[i], sizeof v bytes of it, into v. */
#define	KREAD(nl, i, v)	kread((nl)[i].n_value, (char *)&(v), sizeof (v), (nl)[i].n_name)
/* The same for an array a. */
#define	KREADARRAY(nl, i, a)	kread((nl)[i].n_value, (char *)(a), sizeof (a), (nl)[i].n_name)
