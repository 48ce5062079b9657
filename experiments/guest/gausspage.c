/*
 * gausspage -- page references a Gaussian step apart (Table 6:
 * gausspage.1 ... gausspage.inf, "30,000 Gaussian accesses, standard
 * deviation of" 1 to 10,000).  Grow the data segment by npages pages
 * with sbrk(2) (zero-fill on demand), start at page 0 and niter times
 * move by a step drawn from a normal distribution with mean 0 and
 * standard deviation sd pages, truncated toward zero to whole pages
 * (so with sd 1 about two steps in three stay on the same page), and
 * write one byte in the page reached.  A step that would leave the
 * pages is drawn again.  The paper's run uses -p 7500, niter 30000 and
 * sd 1, 10, 30, 40, 50, 60, 80 and 10000.
 *
 * There is no libm here: the normal deviates come from Marsaglia's
 * polar method with our own logarithm and square root, in double
 * precision, from random(3) seeded with 1 (every run is the same walk).
 * usage: gausspage [ -p npages ] [ -s sd ] niter
 */

#include "paging.h"

extern long random();
extern double atof();

#define LN2	0.69314718055994530942

/* uniform on (0, 1): random()'s 31 bits, never 0 or 1 */
double
uniform()
{
	return (((double)random() + 0.5) / 2147483648.0);
}

/*
 * natural logarithm, x > 0: x = m * 2^e with m in [0.75, 1.5), then
 * ln m = 2 atanh t = 2 (t + t^3/3 + t^5/5 + ...), t = (m-1)/(m+1),
 * |t| <= 0.2, so twelve terms are below double precision
 */
double
ln(x)
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

/* square root, x >= 0: Newton's iteration from above, until it stops falling */
double
root(x)
	double x;
{
	double r, next;

	if (x <= 0)
		return (0.0);
	r = x > 1 ? x : 1;
	for (;;) {
		next = (r + x / r) / 2;
		if (next >= r)
			return (r);
		r = next;
	}
}

/* a standard normal deviate (mean 0, standard deviation 1): the polar method, two at a time */
double
normal()
{
	static int saved;
	static double other;
	double u, v, s, f;

	if (saved) {
		saved = 0;
		return (other);
	}
	do {
		u = 2 * uniform() - 1;
		v = 2 * uniform() - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	f = root(-2 * ln(s) / s);
	other = v * f;
	saved = 1;
	return (u * f);
}

main(argc, argv)
	int argc;
	char **argv;
{
	register char *base;
	register int pn, delta, pagesize, niter, npages;
	double sd;

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
	base = pages("gausspage", npages, pagesize);
	srandom(1);
	pn = 0;
	while (niter-- > 0) {
		do
			delta = normal() * sd;
		while (pn + delta < 0 || pn + delta >= npages);
		pn += delta;
		base[pn * pagesize] = 1;
	}
	exit(0);
}
