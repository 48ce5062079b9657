/*
 * csw -- context switches forced with signals (Table 1: "perform 10,000
 * context switches using signals").  A parent and a child hand a signal
 * back and forth: the handler passes the signal on to the other process,
 * and each process waits in sigpause(2) for the next one.  Each process
 * takes nsignals signals, then exits from its handler.
 *
 * The control flow is the paper's csw (Appendix A), and it matters for the
 * time: the signal is never blocked outside the handler, so a signal that
 * arrives while a process is still in its handler (the other process sent
 * it while this one was switched out inside its kill) is taken as the
 * handler returns, by sigreturn(2), without another sigpause.  A version
 * that blocked the signal outside sigpause, to count signals in main,
 * paid a second sigpause per exchange -- a system call, a sleep that finds
 * the signal pending and a longjmp out of it: 0.55 ms, 5.5 s of the run
 * on the 750 model (emu/docs/timing.md, "Switching through pipes and
 * through signals").
 *
 * As in the paper's program, the handler re-installs itself with signal(3)
 * before passing the signal on: a sigvec(2) system call per signal, which
 * the paper's run paid (4.3BSD's signal(3) is a call of sigvec) although
 * 4.3BSD's handlers stay installed without it.
 *
 * Like the paper's run, the parent does not wait for the child: `time`
 * reports the parent's own user and system time (the paper's Table 2
 * user + system for csw is about half its elapsed time).
 * usage: csw nsignals
 */
#include <signal.h>

extern int atoi(), fork(), getpid(), kill(), sigpause(), strlen(), write();

int	other;		/* the process to hand the signal to */
int	left;		/* signals still to take */

die(msg)
	char *msg;
{
	write(2, msg, strlen(msg));
	exit(1);
}

onsig()
{
	signal(SIGALRM, onsig);
	kill(other, SIGALRM);
	if (--left <= 0)
		exit(0);
}

main(argc, argv)
	int argc;
	char **argv;
{
	int pid;

	if (argc != 2)
		die("usage: csw nsignals\n");
	left = atoi(argv[1]);
	if (left <= 0)
		die("csw: nsignals must be positive\n");
	signal(SIGALRM, onsig);
	other = getpid();
	pid = fork();
	if (pid == -1)
		die("csw: fork failed\n");
	if (pid != 0) {
		other = pid;
		kill(other, SIGALRM);	/* start the exchange */
	}
	for (;;)
		sigpause(0);
}
