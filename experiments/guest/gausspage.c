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
 * the paper's declarations produce.  Where our log, sqrt and cos could
 * differ from libm's is in the last bit or so of a double, which moves a
 * step only if the step lies that close to a whole number: the walk is
 * the paper's.
 *
 * usage: gausspage [ -p npages ] [ -s sd ] niter
 */

#include "paging.h"

extern int rand();
extern double atof();

#define LN2	0.69314718055994530942

/*
 * natural logarithm, x > 0: x = m * 2^e with m in [0.75, 1.5), then
 * ln m = 2 atanh t = 2 (t + t^3/3 + t^5/5 + ...), t = (m-1)/(m+1),
 * |t| <= 0.2, so twelve terms are below double precision
 */
double
log(x)
	double x;
{
	register int k, e;
	double t, t2, term, sum;

	e = 0;
	while (x >= 1.5) {
		x /= 2;
		e++;
	}
	while (x < 0.75) {
		x *= 2;
		e--;
	}
	t = (x - 1) / (x + 1);
	t2 = t * t;
	term = t;
	sum = 0;
	for (k = 1; k < 25; k += 2) {
		sum += term / k;
		term *= t2;
	}
	return (2 * sum + e * LN2);
}

/*
 * square root, x >= 0: x = m * 4^k with m in [0.25, 1), then five Newton
 * steps from a straight-line first guess (error 6% at most), each doubling
 * the correct digits: past double precision
 */
double
sqrt(x)
	double x;
{
	register int i;
	double r, scale;

	if (x <= 0)
		return (0.0);
	scale = 1;
	while (x >= 1) {
		x /= 4;
		scale *= 2;
	}
	while (x < 0.25) {
		x *= 4;
		scale /= 2;
	}
	r = 0.41 + 0.59 * x;
	for (i = 0; i < 5; i++)
		r = (r + x / r) / 2;
	return (r * scale);
}

/*
 * cosine, 0 <= x <= 4 (gauss() asks for 0 <= x < 3.14159): cos x =
 * -cos(pi - x) brings x to [0, pi/2], where the Taylor series to x^26,
 * summed by Horner's rule, is exact to double precision
 */
#define PI	3.14159265358979323846

static double cosc[] = {
	1.0, -1.0/2, 1.0/24, -1.0/720, 1.0/40320, -1.0/3628800,
	1.0/479001600, -1.0/87178291200., 1.0/20922789888000.,
	-1.0/6402373705728000., 1.0/2432902008176640000.,
	-1.0/1124000727777607680000., 1.0/620448401733239439360000.,
	-1.0/403291461126605635584000000.,
};

double
cos(x)
	double x;
{
	register int k;
	double x2, sum, sign;

	sign = 1;
	if (x > PI / 2) {
		x = PI - x;
		sign = -1;
	}
	x2 = x * x;
	sum = 0;
	for (k = 13; k >= 0; k--)
		sum = sum * x2 + cosc[k];
	return (sign * sum);
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
