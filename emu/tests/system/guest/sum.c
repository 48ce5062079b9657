/*
 * sum -- 4.3BSD's /bin/sum algorithm (a 16-bit rotate-right-and-add
 * checksum and the size in 1024-byte blocks).  /usr, where the real one
 * lives, is not on the distribution tapes we have, so the tests compile
 * this in the guest and compare its output with the host's reckoning.
 */
extern int printf();

main(argc, argv)
	int argc;
	char **argv;
{
	register unsigned sum;
	register int i, n;
	long nbytes;
	int fd;
	char buf[1024];

	if (argc != 2) {
		printf("usage: sum file\n");
		exit(2);
	}
	if ((fd = open(argv[1], 0)) < 0) {
		printf("sum: cannot open %s\n", argv[1]);
		exit(1);
	}
	sum = 0;
	nbytes = 0;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (i = 0; i < n; i++) {
			if (sum & 1)
				sum = (sum >> 1) + 0x8000;
			else
				sum >>= 1;
			sum += buf[i] & 0377;
			sum &= 0xFFFF;
		}
		nbytes += n;
	}
	printf("%05u%6ld\n", sum, (nbytes + 1023) / 1024);
	exit(0);
}
