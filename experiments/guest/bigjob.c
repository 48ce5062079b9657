/*
 * bigjob -- the exec tests' ``big job'', the program of the paper's
 * Appendix A as printed: nulljob with a 250-kilobyte array in the
 * initialized data segment.  The string initializer puts the whole array
 * in the a.out's data (the compiler emits the rest as .space), so exec
 * sets up every page of it to be filled from the file, as a program's
 * data is; an uninitialized array would go to bss instead.  Section
 * 3.2.1 rounds the result, with the library's data, to "256 kilobytes";
 * the program is what was run, so the program is what we run.
 */
/* 250 here is intended to approximate vi's text+data size */
char	space[1024 * 250] = "force into data segment";

main(argc, argv)
	char *argv[];
{

	exit(0);
}
