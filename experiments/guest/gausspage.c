/*
 * gausspage -- page references a Gaussian step apart (Table 6:
 * gausspage.1 ... gausspage.inf, "30,000 Gaussian accesses, standard
 * deviation of" 1 to 10,000), with the paper's own generator, so that the
 * walk is the paper's walk.  Grow the data segment by npages pages with
 * sbrk(2) (zero-fill on demand), start at page 0 and niter times move by
 * gauss(sd, 0.0) pages and write one byte in the page reached; a step that
 * would leave pages 0 .. npages (both ends included, as the paper's test
 * reads) is drawn again.  The paper's run uses -p 7500, niter 30000 and
 * sd 1, 10, 30, 40, 50, 60, 80 and 10000.
 *
 * rnd() and gauss() are the paper's (Appendix A): the C library's rand(),
 * unseeded (the sequence from seed 1), scaled to (0, 1], and one
 * Box-Muller deviate per call, sqrt(-2 log u1) cos(3.14159 u2).  What
 * 4.3BSD's cc makes of them, read from its `cc -S` output: a function
 * declared float still returns a double (in r0-r1), and a float
 * expression is evaluated in double; only the stores into qa and qb round
 * to float.  The paper declares sqrt, log and cos float and takes them
 * from libm; this guest has no libm, so they are defined here, in double
 * precision, and declared double -- which, by the rule above, is the code
 * the paper's declarations produce.
 *
 * They compute what 4.2BSD's libm computed, the way it computed it (the
 * Seventh Edition's routines, which 4.2BSD's libm kept; 4.3BSD's new libm
 * came after the paper): log and cos by rational approximations with
 * published coefficients (Hart & Cheney, "Computer Approximations", 1968,
 * #2705 and #3370), sqrt by five Newton steps from (1 + m) / 2, each
 * taking its argument apart with the C library's frexp().  So the walk's
 * user time is spent on the same arithmetic as the paper's: two divides a
 * logarithm, not the dozen a power series takes.  Their values differ
 * from any other double-precision version in the last bit or so, which
 * moves a step only if it lies that close to a whole number; the walk,
 * computed on a host with both these routines and the series this file
 * used before, is the same for every standard deviation the paper ran.
 *
 * usage: gausspage [ -p npages ] [ -s sd ] niter
 */

#include "paging.h"

extern int rand();
extern double atof(), frexp();

#define LN2		0.69314718055994530942
#define SQRT_HALF	0.70710678118654752440
#define TWO_OVER_PI	0.63661977236758134308

/*
 * natural logarithm, x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)),
 * then ln m = z P(z^2) / Q(z^2), z = (m - 1) / (m + 1): Hart & Cheney
 * #2705 (19.38 digits)
 */
#define LOG_P0	-.240139179559210510e2
#define LOG_P1	 .309572928215376501e2
#define LOG_P2	-.963769093368686593e1
#define LOG_P3	 .421087371217979714e0
#define LOG_Q0	-.120069589779605255e2
#define LOG_Q1	 .194809660700889731e2
#define LOG_Q2	-.891110902798312337e1

double
log(x)
	double x;
{
	double m, z, zz;
	int e;

	m = frexp(x, &e);		/* m in [1/2, 1) */
	if (m < SQRT_HALF) {
		m *= 2;
		e--;
	}
	z = (m - 1) / (m + 1);
	zz = z * z;
	return (z * (((LOG_P3 * zz + LOG_P2) * zz + LOG_P1) * zz + LOG_P0) /
	    (((zz + LOG_Q2) * zz + LOG_Q1) * zz + LOG_Q0) + e * LN2);
}

/*
 * square root, x >= 0: x = m * 2^e with e even and m in [1/2, 2), a
 * first guess (1 + m) / 2 * 2^(e/2), then five Newton steps
 */
double
sqrt(x)
	double x;
{
	double m, r;
	int e, i;

	if (x <= 0)
		return (0.0);
	m = frexp(x, &e);
	if (e & 1) {
		m *= 2;
		e--;
	}
	r = 0.5 * (1.0 + m);
	for (; e > 60; e -= 60)		/* 2^(e/2) a whole long at a time */
		r *= 1L << 30;
	for (; e < -60; e += 60)
		r /= 1L << 30;
	if (e >= 0)
		r *= 1L << (e / 2);
	else
		r /= 1L << (-e / 2);
	for (i = 0; i < 5; i++)
		r = 0.5 * (r + x / r);
	return (r);
}

/*
 * cosine, |x| below 32764 quarter turns (gauss() asks for 0 <= x <
 * 3.14159): cos x = sin(x + pi/2); y, the angle in quarter turns less
 * the whole ones, is folded into [-1, 1] by the quadrant, and
 * sin(y pi/2) = y P(y^2) / Q(y^2): Hart & Cheney #3370 (18.80 digits)
 */
#define SIN_P0	 .1357884097877375669092680e8
#define SIN_P1	-.4942908100902844161158627e7
#define SIN_P2	 .4401030535375266501944918e6
#define SIN_P3	-.1384727249982452873054457e5
#define SIN_P4	 .1459688406665768722226959e3
#define SIN_Q0	 .8644558652922534429915149e7
#define SIN_Q1	 .4081792252343299749395779e6
#define SIN_Q2	 .9463096101538208180571257e4
#define SIN_Q3	 .1326534908786136358911494e3

double
cos(x)
	double x;
{
	double y, yy;
	int k, quadrant;

	if (x < 0)
		x = -x;
	y = x * TWO_OVER_PI;
	k = y;
	y -= k;
	quadrant = (k + 1) & 3;		/* the + 1: a quarter turn on, sin */
	if (quadrant & 1)
		y = 1 - y;
	if (quadrant > 1)
		y = -y;
	yy = y * y;
	return (y * ((((SIN_P4 * yy + SIN_P3) * yy + SIN_P2) * yy + SIN_P1) * yy + SIN_P0) /
	    ((((yy + SIN_Q3) * yy + SIN_Q2) * yy + SIN_Q1) * yy + SIN_Q0));
}

/* The paper's generator (Appendix A, gausspage), as printed. */
double	sqrt(), log(), cos();
float	rnd(), gauss();

float
gauss(sd, mean)
	float sd, mean;
{
	register float qa, qb;

	qa = sqrt(log(rnd()) * -2.0);
	qb = 3.14159 * rnd();
	return (qa * cos(qb) * sd + mean);
}

float
rnd()
{
	static int seed = 1;
	static int biggest = 0x7fffffff;

	return ((float)rand(seed) / (float)biggest);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register char *base;
	register int pn, delta, pagesize, niter, npages;
	float sd;

	npages = 7500;
	sd = 10;
	for (argc--, argv++; argc > 1; argc--, argv++) {
		if (strcmp(*argv, "-p") == 0 && argc > 2) {
			argc--, argv++;
			npages = atoi(*argv);
		} else if (strcmp(*argv, "-s") == 0 && argc > 2) {
			argc--, argv++;
			sd = atof(*argv);
		} else
			break;
	}
	if (argc != 1 || npages <= 0 || sd <= 0)
		die("usage: gausspage [ -p npages ] [ -s sd ] niter\n");
	niter = atoi(*argv);
	pagesize = getpagesize();
	/* pages 0 .. npages: the walk may end on page npages */
	base = pages("gausspage", npages + 1, pagesize);
	pn = 0;
	while (niter-- > 0) {
		delta = gauss(sd, 0.0);
		while (pn + delta < 0 || pn + delta > npages)
			delta = gauss(sd, 0.0);
		pn += delta;
		base[pn * pagesize] = 1;
	}
	exit(0);
}
