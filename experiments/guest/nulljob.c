/*
 * nulljob -- the exec tests' ``null job'', the program of the paper's
 * Appendix A as printed: it exits at once.  Its data segment is what the
 * C library brings along, about 1 kilobyte.
 */
main(argc, argv)
	char *argv[];
{

	exit(0);
}
