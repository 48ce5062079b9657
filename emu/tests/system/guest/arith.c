/*
 * arith -- integer, character-string and floating-point work, printed
 * with printf (which in 4.3BSD's libc formats through the packed-decimal
 * and D_floating instructions).
 */
extern int printf();
extern char *strcpy(), *strcat();

double
square_plus_half(x)
	double x;
{
	return x * x + 0.5;
}

main()
{
	int i, len;
	long s;
	double d;
	float f;
	char buf[32];

	s = 0;
	for (i = 1; i <= 100; i++)
		s += i * i;
	d = 1.0;
	for (i = 0; i < 10; i++)
		d = d * 1.5;
	f = 1.0 / 3.0;
	strcpy(buf, "vaxlab");
	strcat(buf, "-4.3");
	len = strlen(buf);
	printf("squares %ld quotient %d remainder %d\n", s, -7 / 2, -7 % 2);
	printf("string %s length %d\n", buf, len);
	printf("double %.4f %e %g\n", d, square_plus_half(3.0), 2.0 / 3.0);
	printf("float %.6f int %d\n", f, (int)(d * 100.0));
	exit(0);
}
