/*
 * forks -- fork, exit and wait (Table 1: forks0, forks1k, forks100k:
 * "sbrk(102400), fault pages, fork-exit-wait 1,000 times").  First grow
 * the data segment by brksize bytes with sbrk(2) and touch every page of
 * the new space, so the child has that much more to copy; then nforks
 * times fork a child that exits at once and wait for it.
 * vforks.c builds the same program with vfork(2).
 * usage: forks nforks brksize
 */
#ifndef FORK
#define FORK	fork
#endif

extern int atoi(), FORK(), getpagesize(), printf(), wait();
extern char *sbrk();

/*
 * Messages go through printf, as the paper's forks (Appendix A) printed
 * them with printf and perror: the C library's stdio comes along (its
 * text is shared; its data and bss make the child's data segment a little
 * over 1 kilobyte, so fork copies two 1-kilobyte clusters of it, not one).
 */
die(msg)
	char *msg;
{
	printf("%s", msg);
	exit(1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register int i, n, pid;
	int brksize, pagesize, child, status;
	char *space;

	if (argc != 3)
		die("usage: forks nforks brksize\n");
	n = atoi(argv[1]);
	brksize = atoi(argv[2]);
	if (n < 0 || brksize < 0)
		die("forks: bad argument\n");
	space = sbrk(brksize);
	if (space == (char *)-1)
		die("forks: sbrk failed\n");
	pagesize = getpagesize();
	for (i = 0; i < brksize; i += pagesize)
		space[i] = 1;
	while (n-- > 0) {
		child = FORK();
		if (child == -1)
			die("forks: fork failed\n");
		if (child == 0)
			_exit(0);
		while ((pid = wait(&status)) != child && pid != -1)
			;
	}
	exit(0);
}
