/*
 * csw -- context switches forced with signals (Table 1: "perform 10,000
 * context switches using signals").  A parent and a child hand a signal
 * back and forth: each process, when the signal arrives, sends it to the
 * other and waits for the next one, so every signal costs a switch from
 * one process to the other.  Each process takes nsignals signals, then
 * exits.  The signal is blocked except inside sigpause(2), so none can
 * come between the test and the wait and be missed.
 *
 * As in the paper's csw (Appendix A), the handler re-installs itself with
 * signal(3) before passing the signal on: a sigvec(2) system call per
 * signal, which the paper's run paid (4.3BSD's signal(3) is a call of
 * sigvec) although 4.3BSD's handlers stay installed without it.
 *
 * Like the paper's run, the parent does not wait for the child: `time`
 * reports the parent's own user and system time (the paper's Table 2
 * user + system for csw is about half its elapsed time).
 * usage: csw nsignals
 */
#include <signal.h>

extern int atoi(), fork(), getpid(), kill(), sigblock(), sigpause(), strlen(), write();

int	other;		/* the process to hand the signal to */
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
	kill(other, SIGUSR1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	int n, pid;

	if (argc != 2)
		die("usage: csw nsignals\n");
	n = atoi(argv[1]);
	signal(SIGUSR1, onsig);
	sigblock(sigmask(SIGUSR1));
	other = getpid();
	pid = fork();
	if (pid == -1)
		die("csw: fork failed\n");
	if (pid != 0) {
		other = pid;
		kill(other, SIGUSR1);	/* start the exchange */
	}
	while (caught < n)
		sigpause(0);
	exit(0);
}
