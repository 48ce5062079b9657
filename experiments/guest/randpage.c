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
#include "paging.h"

extern long random();

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
	base = pages("randpage", npages, pagesize);
	if (vflag)
		vadvise(VA_ANOM);
	srandom(1);
	while (niter-- > 0)
		base[(random() % npages) * pagesize] = 1;
	exit(0);
}
