/*
 * seqpage -- sequential page references (Table 6: seqpage, "sequentially
 * touch pages, 10 iterations", and seqpage-v, "as above, but first make
 * vadvise(2) call").  Grow the data segment by npages pages with sbrk(2)
 * (zero-fill on demand), then niter times write one byte in every page,
 * first to last.  -v first declares sequential behaviour with
 * vadvise(VA_SEQL).  The paper's run uses -p 7500 (7.3 megabytes) and
 * niter 10.
 * usage: seqpage [ -v ] [ -p npages ] niter
 */
#include "paging.h"

main(argc, argv)
	int argc;
	char **argv;
{
	register char *p, *end;
	register int pagesize, niter;
	int npages = 7500, vflag = 0;
	char *base;

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
		die("usage: seqpage [ -v ] [ -p npages ] niter\n");
	niter = atoi(*argv);
	pagesize = getpagesize();
	base = pages("seqpage", npages, pagesize);
	end = base + npages * pagesize;
	if (vflag)
		vadvise(VA_SEQL);
	while (niter-- > 0)
		for (p = base; p < end; p += pagesize)
			*p = 1;
	exit(0);
}
