# start1985.s -- the C start-up the lab's programs are linked with: what
# 4.3BSD's start-up did in spring 1985, when the paper's figures were
# taken.  Our own code, written from what the start-up is documented to do.
#
# Why not the release's /lib/crt0.o: its start-up (the CSRG SCCS history
# of lib/csu/crt0.c, delta 5.2, 21 October 1985) also clears errno before
# calling main.  errno is a common symbol, which ld places at the very end
# of a program's data, so a program whose data is longer than a page (the
# big job: 251 KB) touches its last data page as it starts, and each exec
# of it fills one more page from the file: a second read of the disk, 250
# KB away from the first.  Delta 5.1 (30 May 1985), like 4.2BSD's 4.6
# (1983), set environ and called main and then exit, nothing else; so
# does this file.  See emu/docs/timing.md, "The big job's second read".
#
# The kernel enters a program at start+2, past an entry mask, with sp at
# argc; argv's pointers follow, then a 0, then the environment's, then a 0.
	.data
	.globl	_environ
_environ:
	.long	0

	.text
	.globl	start
start:
	.word	0
	movl	sp,r10			# r10: the kernel's frame, at argc
	moval	4(r10),r9		# r9: argv
	movl	r9,r8
1:	tstl	(r8)+			# r8: one past argv's 0, the environment
	bneq	1b
	cmpl	r8,(r9)			# r8 reached the strings (argv[0] points
	blssu	2f			# at the first): there was no environment
	tstl	-(r8)			# list, and environ is argv's 0
2:	movl	r8,_environ
	pushl	r8
	pushl	r9
	pushl	(r10)
	calls	$3,_main		# exit(main(argc, argv, environ))
	pushl	r0
	calls	$1,_exit
	chmk	$1			# not reached: exit does not return
