/*
 * bigjob -- the exec tests' ``big job'': nulljob with a 256-kilobyte
 * data segment (section 3.2.1: the two "differ solely in the size of
 * their data segments, 1 kilobyte versus 256 kilobytes").
 *
 * One initialized element is enough to put the whole array in the
 * initialized data segment (the compiler emits the rest as .space), so
 * all of it is in the a.out file and read in by exec, as a program's
 * data is; an uninitialized array would go to bss instead and cost
 * exec nothing.  255 kilobytes plus the library's kilobyte of
 * nulljob is 256 kilobytes.
 */
char	big[255 * 1024] = { 1 };

main()
{
	exit(0);
}
