/*
 * pipeback -- request and reply over pipes (Table 1: "exchange 10,000
 * 4-byte messages with child", and 512-byte ones).  The parent writes a
 * message down one pipe and reads the child's copy of it back up a
 * second one, niter times; the child echoes until the parent's exit
 * closes the first pipe.
 *
 * As in the paper's run the parent does not wait for the child, so
 * `time` reports the parent's time only.
 * usage: pipeback niter msgsize	(0 < msgsize <= 512)
 */
extern int atoi(), close(), fork(), pipe(), read(), strlen(), write();

die(msg)
	char *msg;
{
	write(2, msg, strlen(msg));
	exit(1);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register int i, n, size;
	int down[2], up[2];
	char buf[512];

	if (argc != 3)
		die("usage: pipeback niter msgsize\n");
	n = atoi(argv[1]);
	size = atoi(argv[2]);
	if (size <= 0 || size > sizeof buf)
		die("pipeback: message size must be 1 to 512\n");
	if (pipe(down) < 0 || pipe(up) < 0)
		die("pipeback: no pipe\n");
	for (i = 0; i < size; i++)
		buf[i] = i;
	switch (fork()) {
	case -1:
		die("pipeback: fork failed\n");
	case 0:
		close(down[1]);
		close(up[0]);
		while (read(down[0], buf, size) > 0)
			write(up[1], buf, size);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	for (i = 0; i < n; i++) {
		write(down[1], buf, size);
		read(up[0], buf, size);
	}
	exit(0);
}
