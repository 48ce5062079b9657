/*
 * nulljob -- the exec tests' ``null job'': exits at once.  Its data
 * segment is what the C library brings along, about 1 kilobyte.
 */
main()
{
	exit(0);
}
