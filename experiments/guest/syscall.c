/*
 * syscall -- system call overhead (Table 1: "perform 100,000 getpid
 * system calls").  usage: syscall ncalls
 */
extern int atoi(), getpid(), strlen(), write();

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
	register int n;

	if (argc != 2)
		die("usage: syscall ncalls\n");
	for (n = atoi(argv[1]); n > 0; n--)
		getpid();
	exit(0);
}
