/*
 * paging.h -- what the paging benchmarks (seqpage, randpage, gausspage)
 * share: an error exit, and npages zero-fill-on-demand pages, page
 * aligned, past a raised data-size limit.
 */
#include <vadvise.h>

extern int atoi(), getpagesize(), getrlimit(), setrlimit(), strcmp(), strlen(), vadvise(), write();
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
pages(prog, npages, pagesize)
	char *prog;
	int npages, pagesize;
{
	struct rlimit rl;
	char *p;

	getrlimit(RLIMIT_DATA, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_DATA, &rl);
	p = sbrk(npages * pagesize + pagesize);
	if (p == (char *)-1) {
		write(2, prog, strlen(prog));
		die(": cannot allocate the pages\n");
	}
	return (p + pagesize - 1 - ((int)p + pagesize - 1) % pagesize);
}
