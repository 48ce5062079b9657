/*
 * countenv -- how big is the environment?  (The paper's run script runs
 * "countenv" before the exec tests and again after filling the
 * environment with ~1024 bytes; section 3.2.1 gives 34 and 40 bytes for
 * its default environment and 1065 bytes added.)  Prints the number of
 * strings and their bytes, without and with the terminating NULs.
 * usage: countenv
 */
extern int printf(), strlen();
extern char **environ;

main()
{
	register char **e;
	register int n, bytes;

	n = 0;
	bytes = 0;
	for (e = environ; *e; e++) {
		n++;
		bytes += strlen(*e);
	}
	printf("%d strings, %d bytes, %d with NULs\n", n, bytes, bytes + n);
	exit(0);
}
