/*
 * applydiff -- apply the kernel variants' patches (unified diffs) to a
 * copy of the 4.3BSD kernel sources, inside the guest.
 *
 * The image has no patch(1) (it came with /usr, which the distribution we
 * have lacks), so the installer compiles this with the guest's cc.  It is
 * strict where patch(1) is forgiving: every line a hunk keeps or removes
 * must be in the file exactly as written (no fuzz, no whitespace
 * leniency); a hunk may only have moved (an earlier patch of the same
 * variant added or removed lines above it).  All the patches given are
 * applied in memory first; the files are rewritten only if every hunk of
 * every patch applied, so a failure leaves the sources as they were.
 *
 * usage: applydiff patch ...
 *	run in the top directory of the sources (the one holding h, sys,
 *	vax ...).  The patches name files as "a/sys/kern_exec.c" and
 *	"b/sys/kern_exec.c" (the first component is dropped).  Lines before
 *	the first "--- " are the patch's header and are skipped.
 * Prints one line per file patched; on a failure it names the patch, the
 * file and the hunk and shows where the hunk comes nearest to fitting: the
 * first of its lines the file has differently there (or, when none of its
 * lines is anywhere, its first line), and exits 1 (2 for a bad command
 * line or an unreadable or malformed patch).
 */

extern char *malloc(), *realloc(), *sprintf(), *strcpy(), *strncpy();
extern int close(), creat(), open(), read(), rename(), strcmp(), strlen(),
    strncmp(), unlink(), write();

#define	MAXFILES	32
#define	MAXHUNK		2000	/* lines in one hunk */

struct	srcfile {
	char	*path;		/* as named in the patch, "sys/kern_exec.c" */
	char	**line;		/* the lines, without their newlines */
	int	nline;
	int	changed;
};

struct	srcfile files[MAXFILES];
int	nfiles;

char	*pname;			/* the patch being applied, for messages */
char	msg[600];

say(fd, s)
	int fd;
	char *s;
{
	write(fd, s, strlen(s));
}

/* A message about the current patch on stderr, and exit. */
fail(code, s)
	int code;
	char *s;
{
	say(2, "applydiff: ");
	if (pname) {
		say(2, pname);
		say(2, ": ");
	}
	say(2, s);
	say(2, "\n");
	exit(code);
}

char *
getmem(n)
	int n;
{
	char *p;

	if ((p = malloc((unsigned)n)) == 0)
		fail(2, "out of memory");
	return (p);
}

/*
 * Read a whole file; its lines become strings (each newline replaced by a
 * NUL).  Returns the number of lines, -1 if it cannot be opened.
 */
readlines(path, linesp)
	char *path;
	char ***linesp;
{
	int fd, n, size, cap, nl, i;
	char *buf, **lines;

	if ((fd = open(path, 0)) < 0)
		return (-1);
	cap = 16384;
	buf = getmem(cap + 1);
	size = 0;
	for (;;) {
		if (size == cap) {
			cap *= 2;
			if ((buf = realloc(buf, (unsigned)cap + 1)) == 0)
				fail(2, "out of memory");
		}
		n = read(fd, buf + size, cap - size);
		if (n < 0) {
			sprintf(msg, "%s: read error", path);
			fail(2, msg);
		}
		if (n == 0)
			break;
		size += n;
	}
	close(fd);
	if (size > 0 && buf[size - 1] != '\n') {
		sprintf(msg, "%s: the last line has no newline", path);
		fail(2, msg);
	}
	nl = 0;
	for (i = 0; i < size; i++)
		if (buf[i] == '\n')
			nl++;
	lines = (char **)getmem((nl + 1) * sizeof (char *));
	n = 0;
	lines[0] = buf;
	for (i = 0; i < size; i++)
		if (buf[i] == '\n') {
			buf[i] = '\0';
			lines[++n] = buf + i + 1;
		}
	*linesp = lines;
	return (nl);
}

/* The file named in a patch, read in on first use. */
struct srcfile *
getfile(path)
	char *path;
{
	register int i;
	register struct srcfile *f;
	char *p;

	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, path) == 0)
			return (&files[i]);
	if (path[0] == '/' || strncmp(path, "../", 3) == 0)
		fail(2, "a patch may only name files below the current directory");
	for (p = path; *p; p++)
		if (strncmp(p, "/../", 4) == 0)
			fail(2, "a patch may only name files below the current directory");
	if (nfiles == MAXFILES)
		fail(2, "too many files");
	f = &files[nfiles];
	f->path = getmem(strlen(path) + 1);
	strcpy(f->path, path);
	if ((f->nline = readlines(path, &f->line)) < 0) {
		sprintf(msg, "%s: cannot open it", path);
		fail(1, msg);
	}
	f->changed = 0;
	nfiles++;
	return (f);
}

/* "@@ -a,b +c,d @@": the old start and count, the new count. */
hunkhead(s, oldstart, oldcount, newcount)
	register char *s;
	int *oldstart, *oldcount, *newcount;
{
	int v[4], i;

	if (strncmp(s, "@@ -", 4) != 0)
		return (-1);
	s += 4;
	for (i = 0; i < 4; i += 2) {
		if (*s < '0' || *s > '9')
			return (-1);
		v[i] = 0;
		while (*s >= '0' && *s <= '9')
			v[i] = v[i] * 10 + *s++ - '0';
		v[i + 1] = 1;
		if (*s == ',') {
			s++;
			v[i + 1] = 0;
			while (*s >= '0' && *s <= '9')
				v[i + 1] = v[i + 1] * 10 + *s++ - '0';
		}
		if (i == 0) {
			if (s[0] != ' ' || s[1] != '+')
				return (-1);
			s += 2;
		}
	}
	if (strncmp(s, " @@", 3) != 0)
		return (-1);
	*oldstart = v[0];
	*oldcount = v[1];
	*newcount = v[3];
	return (0);
}

/* Does the file hold the n lines old[] at line index at? */
matches(f, at, old, n)
	register struct srcfile *f;
	int at, n;
	char **old;
{
	register int i;

	if (at < 0 || at + n > f->nline)
		return (0);
	for (i = 0; i < n; i++)
		if (strcmp(f->line[at + i], old[i]) != 0)
			return (0);
	return (1);
}

/*
 * Where the hunk comes nearest to fitting (at or after low): the place
 * where the most of its lines are as the hunk has them, the nearest to
 * guess of equals.  Returns the index in the hunk of the first line that
 * differs there (*atp: the place), or -1 if no line of the hunk is
 * anywhere in its place.
 */
nearest(f, guess, low, old, n, atp)
	register struct srcfile *f;
	int guess, low, n, *atp;
	char **old;
{
	register int at, k, same;
	int best, bestat, d, bestd, first;

	best = 0;
	bestat = low;
	bestd = 0;
	for (at = low; at < f->nline; at++) {
		same = 0;
		for (k = 0; k < n && at + k < f->nline; k++)
			if (strcmp(f->line[at + k], old[k]) == 0)
				same++;
		d = at > guess ? at - guess : guess - at;
		if (same > best || (same == best && same > 0 && d < bestd)) {
			best = same;
			bestat = at;
			bestd = d;
		}
	}
	if (best == 0)
		return (-1);
	*atp = bestat;
	for (first = 0; first < n && bestat + first < f->nline; first++)
		if (strcmp(f->line[bestat + first], old[first]) != 0)
			break;
	return (first);
}

/*
 * Replace the n lines old[] with the m lines new[] in f, at the place
 * nearest guess (at or after low) where they all are.  Returns the index
 * just past the replacement, -1 if they are nowhere.
 */
replace(f, guess, low, old, n, new, m)
	register struct srcfile *f;
	int guess, low, n, m;
	char **old, **new;
{
	register int d, at, i;
	char **lines;

	at = -1;
	if (guess < low)
		guess = low;
	for (d = 0; d <= f->nline; d++) {
		if (matches(f, guess + d, old, n)) {
			at = guess + d;
			break;
		}
		if (d > 0 && guess - d >= low && matches(f, guess - d, old, n)) {
			at = guess - d;
			break;
		}
	}
	if (at < 0)
		return (-1);
	lines = (char **)getmem((f->nline - n + m + 1) * sizeof (char *));
	for (i = 0; i < at; i++)
		lines[i] = f->line[i];
	for (i = 0; i < m; i++)
		lines[at + i] = new[i];
	for (i = at + n; i < f->nline; i++)
		lines[i - n + m] = f->line[i];
	f->line = lines;
	f->nline += m - n;
	f->changed = 1;
	return (at + m);
}

/* The file name of a "--- " or "+++ " line, its first component dropped. */
char *
diffname(s)
	char *s;
{
	register char *p, *q;
	char *name;

	s += 4;
	for (p = s; *p && *p != '/'; p++)
		;
	if (*p != '/' || p[1] == '\0')
		fail(2, "a file name in a patch must be a/PATH or b/PATH");
	p++;
	for (q = p; *q && *q != '\t' && *q != ' '; q++)
		;
	name = getmem(q - p + 1);
	strncpy(name, p, q - p);
	name[q - p] = '\0';
	return (name);
}

static	char *oldl[MAXHUNK], *newl[MAXHUNK];

applypatch(path)
	char *path;
{
	char **pl, *oldname, *newname;
	int np, i, nhunk, nold, nnew, start, ocount, ncount, shift, low, r, k, at;
	int fileline;
	struct srcfile *f;

	pname = path;
	if ((np = readlines(path, &pl)) < 0)
		fail(2, "cannot open it");
	i = 0;
	while (i < np && strncmp(pl[i], "--- ", 4) != 0)
		i++;
	if (i == np)
		fail(2, "no \"--- \" line: not a unified diff");
	while (i < np) {
		if (strncmp(pl[i], "--- ", 4) != 0) {
			sprintf(msg, "line %d: expected \"--- \", found \"%.60s\"", i + 1, pl[i]);
			fail(2, msg);
		}
		if (i + 1 >= np || strncmp(pl[i + 1], "+++ ", 4) != 0) {
			sprintf(msg, "line %d: a \"--- \" line without its \"+++ \" line", i + 1);
			fail(2, msg);
		}
		oldname = diffname(pl[i]);
		newname = diffname(pl[i + 1]);
		if (strcmp(oldname, newname) != 0) {
			sprintf(msg, "line %d: %s and %s: a patch may not rename files", i + 1, oldname, newname);
			fail(2, msg);
		}
		f = getfile(newname);
		i += 2;
		nhunk = 0;
		shift = 0;
		low = 0;
		while (i < np && strncmp(pl[i], "@@ ", 3) == 0) {
			if (hunkhead(pl[i], &start, &ocount, &ncount) < 0) {
				sprintf(msg, "line %d: a bad hunk header \"%.60s\"", i + 1, pl[i]);
				fail(2, msg);
			}
			if (ocount > MAXHUNK || ncount > MAXHUNK)
				fail(2, "a hunk is too long");
			nhunk++;
			fileline = i + 1;
			i++;
			nold = nnew = 0;
			while (i < np && (nold < ocount || nnew < ncount)) {
				switch (pl[i][0]) {
				case ' ':
					oldl[nold++] = pl[i] + 1;
					newl[nnew++] = pl[i] + 1;
					break;
				case '-':
					oldl[nold++] = pl[i] + 1;
					break;
				case '+':
					newl[nnew++] = pl[i] + 1;
					break;
				case '\\':
					break;
				default:
					sprintf(msg, "line %d: \"%.60s\" in the middle of a hunk", i + 1, pl[i]);
					fail(2, msg);
				}
				if (nold > ocount || nnew > ncount) {
					sprintf(msg, "line %d: hunk %d is longer than its header says", i + 1, nhunk);
					fail(2, msg);
				}
				i++;
			}
			if (nold != ocount || nnew != ncount) {
				sprintf(msg, "hunk %d (line %d) ends early", nhunk, fileline);
				fail(2, msg);
			}
			while (i < np && pl[i][0] == '\\')
				i++;
			/* diff numbers an insertion at the top from line 0 */
			r = replace(f, (ocount == 0 ? start : start - 1) + shift, low, oldl, nold, newl, nnew);
			if (r < 0) {
				k = nearest(f, start - 1 + shift, low, oldl, nold, &at);
				if (k < 0)
					sprintf(msg, "%s: hunk %d (line %d of the patch, at line %d of the original) does not apply:\n    the file has no line \"%.70s\"",
					    f->path, nhunk, fileline, start, nold ? oldl[0] : "");
				else if (at + k >= f->nline)
					sprintf(msg, "%s: hunk %d (line %d of the patch, at line %d of the original) does not apply:\n    the file ends where the patch expects \"%.70s\"",
					    f->path, nhunk, fileline, start, oldl[k]);
				else
					sprintf(msg, "%s: hunk %d (line %d of the patch, at line %d of the original) does not apply:\n    line %d of the file is \"%.70s\"\n    where the patch expects \"%.70s\"",
					    f->path, nhunk, fileline, start, at + k + 1, f->line[at + k], oldl[k]);
				fail(1, msg);
			}
			shift = r - (ocount == 0 ? start : start - 1 + ocount);
			low = r;
		}
		if (nhunk == 0) {
			sprintf(msg, "%s: no hunks", f->path);
			fail(2, msg);
		}
		sprintf(msg, "applydiff: %s: %s: %d hunk%s applied\n", path, f->path, nhunk, nhunk == 1 ? "" : "s");
		say(1, msg);
	}
	pname = 0;
}

/* Write f to PATH.new and rename it over PATH. */
writefile(f)
	register struct srcfile *f;
{
	char tmp[300];
	int fd, i, len, n;
	char *buf;

	sprintf(tmp, "%s.new", f->path);
	if ((fd = creat(tmp, 0644)) < 0) {
		sprintf(msg, "%s: cannot create it", tmp);
		fail(1, msg);
	}
	len = 0;
	for (i = 0; i < f->nline; i++)
		len += strlen(f->line[i]) + 1;
	buf = getmem(len + 1);
	n = 0;
	for (i = 0; i < f->nline; i++) {
		strcpy(buf + n, f->line[i]);
		n += strlen(f->line[i]);
		buf[n++] = '\n';
	}
	if (write(fd, buf, n) != n || close(fd) < 0) {
		unlink(tmp);
		sprintf(msg, "%s: write error", tmp);
		fail(1, msg);
	}
	if (rename(tmp, f->path) < 0) {
		sprintf(msg, "%s: cannot rename it to %s", tmp, f->path);
		fail(1, msg);
	}
}

main(argc, argv)
	int argc;
	char **argv;
{
	int i;

	if (argc < 2)
		fail(2, "usage: applydiff patch ...");
	for (i = 1; i < argc; i++)
		applypatch(argv[i]);
	for (i = 0; i < nfiles; i++)
		if (files[i].changed)
			writefile(&files[i]);
	exit(0);
}
