/*
 * execs -- fork, exec, exit and wait (Table 1: execs0null ...
 * execs100kbig: "sbrk(102400), fault pages, fork-exec ``big job''-exit-
 * wait 1,000 times").  First grow the data segment by brksize bytes with
 * sbrk(2) and touch every page of it; then nexecs times fork a child
 * that execs job (nulljob or bigjob, a path: the PATH is not searched)
 * and wait for it.  The job gets this program's own arguments and
 * environment, so a larger environment (Table 3) is passed on each exec.
 * vexecs.c builds the same program with vfork(2).
 * usage: execs nexecs brksize job
 */
#ifndef FORK
#define FORK	fork
#endif

extern int atoi(), execv(), FORK(), getpagesize(), printf(), wait();
extern char *sbrk();

/*
 * Messages go through printf, unlike the other programs': the C
 * library's stdio makes this program's text (about 6 kilobytes) larger
 * than the jobs' (1 kilobyte), as section 3.2.1 says the parent's was
 * ("In both cases the text segment of the parent is larger than that
 * of the child").
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

	if (argc != 4)
		die("usage: execs nexecs brksize job\n");
	n = atoi(argv[1]);
	brksize = atoi(argv[2]);
	if (n < 0 || brksize < 0)
		die("execs: bad argument\n");
	space = sbrk(brksize);
	if (space == (char *)-1)
		die("execs: sbrk failed\n");
	pagesize = getpagesize();
	for (i = 0; i < brksize; i += pagesize)
		space[i] = 1;
	while (n-- > 0) {
		child = FORK();
		if (child == -1)
			die("execs: fork failed\n");
		if (child == 0) {
			execv(argv[3], argv);
			_exit(127);
		}
		while ((pid = wait(&status)) != child && pid != -1)
			;
		if (status != 0)
			die("execs: the job failed (no such job?)\n");
	}
	exit(0);
}
