/*
 * randpage -- random page references (Table 6: randpage, "touch random
 * page 30,000 times", and randpage-v, "as above, but first make vadvise
 * call").  Grow the data segment by npages pages with sbrk(2) (zero-fill
 * on demand), then niter times write one byte in a page chosen uniformly
 * at random with random(3) (seeded with 1, so every run touches the same
 * pages).  -v first declares random behaviour with vadvise(VA_ANOM).  The
 * paper's run uses -p 7500 and niter 30000.
 * usage: randpage [ -v ] [ -p npages ] niter
 */
#include <vadvise.h>

extern int atoi(), getpagesize(), getrlimit(), setrlimit(), strcmp(), strlen(), vadvise(), write();
extern long random();
extern char *sbrk();

/*
 * From <sys/resource.h>, which needs <sys/time.h>; that one cannot be
 * included with -I/sys/h (it includes <time.h>, itself there).
 */
#define RLIMIT_DATA	2
struct rlimit {
	int	rlim_cur;
	int	rlim_max;
};

die(msg)
	char *msg;
{
	write(2, msg, strlen(msg));
	exit(1);
}

/*
 * npages zero-filled pages, page aligned.  7500 pages is more than the
 * default data size limit (6 megabytes), so first raise the limit to
 * its maximum (16 megabytes), as csh's "limit datasize" would.
 */
char *
pages(npages, pagesize)
	int npages, pagesize;
{
	struct rlimit rl;
	char *p;

	getrlimit(RLIMIT_DATA, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_DATA, &rl);
	p = sbrk(npages * pagesize + pagesize);
	if (p == (char *)-1)
		die("randpage: cannot allocate the pages\n");
	return (p + pagesize - 1 - ((int)p + pagesize - 1) % pagesize);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register char *base;
	register int pagesize, niter, npages;
	int vflag = 0;

	npages = 7500;
	for (argc--, argv++; argc > 1; argc--, argv++) {
		if (strcmp(*argv, "-v") == 0)
			vflag = 1;
		else if (strcmp(*argv, "-p") == 0 && argc > 2) {
			argc--, argv++;
			npages = atoi(*argv);
		} else
			break;
	}
	if (argc != 1 || npages <= 0)
		die("usage: randpage [ -v ] [ -p npages ] niter\n");
	niter = atoi(*argv);
	pagesize = getpagesize();
	base = pages(npages, pagesize);
	if (vflag)
		vadvise(VA_ANOM);
	srandom(1);
	while (niter-- > 0)
		base[(random() % npages) * pagesize] = 1;
	exit(0);
}
