/*
 * signocsw -- the cost of a signal without a context switch (Table 1:
 * "send 10,000 signals to yourself"): kill(2) to our own pid, the
 * handler runs on the way out of each kill.  Its time is deducted from
 * csw's to leave the cost of the context switches.  As in the paper's
 * signocsw (Appendix A), the handler re-installs itself with signal(3),
 * a sigvec(2) system call per signal.
 * usage: signocsw nsignals
 */
#include <signal.h>

extern int atoi(), getpid(), kill(), strlen(), write();

int	caught;

die(msg)
	char *msg;
{
	write(2, msg, strlen(msg));
	exit(1);
}

onsig()
{
	signal(SIGUSR1, onsig);
	caught++;
}

main(argc, argv)
	int argc;
	char **argv;
{
	register int i, n, me;

	if (argc != 2)
		die("usage: signocsw nsignals\n");
	n = atoi(argv[1]);
	signal(SIGUSR1, onsig);
	me = getpid();
	for (i = 0; i < n; i++)
		kill(me, SIGUSR1);
	if (caught != n)
		die("signocsw: signals lost\n");
	exit(0);
}
