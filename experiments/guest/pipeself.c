/*
 * pipeself -- pipe throughput without a second process (Table 1: "send
 * 10,000 4-byte messages to yourself", and 512-byte ones): write a
 * message into a pipe and read it back, niter times.
 * usage: pipeself niter msgsize	(0 < msgsize <= 512)
 */
extern int atoi(), pipe(), read(), strlen(), write();

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
		die("usage: pipeself niter msgsize\n");
	n = atoi(argv[1]);
	size = atoi(argv[2]);
	if (size <= 0 || size > sizeof buf)
		die("pipeself: message size must be 1 to 512\n");
	if (pipe(fd) < 0)
		die("pipeself: no pipe\n");
	for (i = 0; i < size; i++)
		buf[i] = i;
	for (i = 0; i < n; i++) {
		write(fd[1], buf, size);
		read(fd[0], buf, size);
	}
	exit(0);
}
