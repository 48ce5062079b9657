/*
 * pipediscard -- one-way pipe traffic to a child (Table 1: "send 10,000
 * 4-byte messages to child who discards", and 512-byte ones).  The
 * parent writes niter messages; the child reads and drops them until
 * the parent's exit closes the pipe.
 *
 * As in the paper's run the parent does not wait for the child, so
 * `time` reports the writer's time only.
 * usage: pipediscard niter msgsize	(0 < msgsize <= 512)
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
	int fd[2];
	char buf[512];

	if (argc != 3)
		die("usage: pipediscard niter msgsize\n");
	n = atoi(argv[1]);
	size = atoi(argv[2]);
	if (size <= 0 || size > sizeof buf)
		die("pipediscard: message size must be 1 to 512\n");
	if (pipe(fd) < 0)
		die("pipediscard: no pipe\n");
	for (i = 0; i < size; i++)
		buf[i] = i;
	switch (fork()) {
	case -1:
		die("pipediscard: fork failed\n");
	case 0:
		close(fd[1]);
		while (read(fd[0], buf, size) > 0)
			;
		_exit(0);
	}
	close(fd[0]);
	for (i = 0; i < n; i++)
		write(fd[1], buf, size);
	exit(0);
}
