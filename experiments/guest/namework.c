/*
 * namework -- translate a small set of path names over and over, for the
 * name cache experiment (section 4.1.1, "Frequent requests for a small
 * set of names are best handled with a cache of recent name
 * translations").  niter times: open and close each path given (deep
 * paths: every component is looked up each time), then, with -x, run
 * the command cmd found through PATH, as a shell does: vfork, and in the
 * child execvp(3), which tries cmd in each directory of $PATH in turn
 * until an execve(2) succeeds; the parent waits for it.
 * usage: namework [ -x cmd ] niter [ path ... ]
 */

extern int atoi(), close(), execvp(), open(), strcmp(), strlen(), vfork(), wait(), write();

fail(what, why)
	char *what, *why;
{
	write(2, "namework: ", 10);
	write(2, what, strlen(what));
	write(2, why, strlen(why));
	exit(1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register int i, fd, niter;
	int pid, status;
	char *cmd, *xargv[2];

	cmd = 0;
	for (argc--, argv++; argc > 1 && argv[0][0] == '-'; argc--, argv++) {
		if (strcmp(*argv, "-x") == 0) {
			argc--, argv++;
			cmd = *argv;
		} else
			break;
	}
	if (argc < 1 || argv[0][0] == '-')
		fail("usage: ", "namework [ -x cmd ] niter [ path ... ]\n");
	niter = atoi(*argv);
	argc--, argv++;
	if (niter <= 0 || (argc == 0 && cmd == 0))
		fail("usage: ", "namework [ -x cmd ] niter [ path ... ]\n");
	while (niter-- > 0) {
		for (i = 0; i < argc; i++) {
			if ((fd = open(argv[i], 0)) < 0)
				fail(argv[i], ": cannot open\n");
			close(fd);
		}
		if (cmd == 0)
			continue;
		xargv[0] = cmd;
		xargv[1] = 0;
		if ((pid = vfork()) < 0)
			fail("vfork", ": failed\n");
		if (pid == 0) {
			execvp(cmd, xargv);
			/* not fail(): a vforked child leaves with _exit */
			write(2, "namework: ", 10);
			write(2, cmd, strlen(cmd));
			write(2, ": not found through PATH\n", strlen(": not found through PATH\n"));
			_exit(127);
		}
		while ((i = wait(&status)) != pid)
			if (i < 0)
				fail("wait", ": failed\n");
		if (status != 0)
			fail(cmd, ": exited with a non-zero status\n");
	}
	exit(0);
}
