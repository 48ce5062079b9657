/*
 * drives.h -- which of the kernel's disk statistics slots (h/dk.h: the
 * DK_NDRIVE entries of dk_xfer, dk_wds, dk_seek, dk_time, dk_mspw) hold
 * a drive, and its name, for vmstat and iostat.  A MASSBUS drive's
 * driver gives it a slot when autoconfiguration finds it: the slot is
 * mi_dk in the drive's entry of the kernel's table mbdinit, whose driver
 * names the device ("hp").  Also the header line both build, a drive's
 * name centred over its columns.  Needs kmem.h, <types.h> and <dk.h> first.
 */
#include <buf.h>
#include <../vaxmba/mbavar.h>

int	ndrives;		/* drives found */
int	drive_dk[DK_NDRIVE];	/* their slots, in slot order */
char	drive_name[DK_NDRIVE][8];	/* "hp0" */

/*
 * Fills the table from mbdinit at address mbdinit (0: the kernel has no
 * MASSBUS table) and the transfer-time factors dk_mspw: a slot that a
 * driver set up (dk_mspw nonzero) but that mbdinit does not name (a
 * UNIBUS drive, say) is shown as "dkN".
 */
finddrives(mbdinit, mspw)
	unsigned long mbdinit;
	float *mspw;
{
	struct mba_device md;
	struct mba_driver drv;
	char dname[2], have[DK_NDRIVE][8];
	register int i, dk;

	for (dk = 0; dk < DK_NDRIVE; dk++)
		have[dk][0] = 0;
	for (i = 0; mbdinit && i < 64; i++) {
		kread(mbdinit + i * sizeof md, (char *)&md, sizeof md, "_mbdinit");
		if (md.mi_driver == 0)
			break;
		dk = md.mi_dk;
		if (dk < 0 || dk >= DK_NDRIVE || md.mi_alive == 0)
			continue;
		kread((unsigned long)md.mi_driver, (char *)&drv, sizeof drv, "_mbdinit's driver");
		kread((unsigned long)drv.md_dname, dname, 2, "_mbdinit's driver name");
		if (dname[0] < 'a' || dname[0] > 'z' || dname[1] < 'a' || dname[1] > 'z')
			continue;
		sprintf(have[dk], "%c%c%d", dname[0], dname[1], md.mi_unit);
	}
	ndrives = 0;
	for (dk = 0; dk < DK_NDRIVE; dk++) {
		if (have[dk][0] == 0 && mspw[dk] == 0.0)
			continue;
		drive_dk[ndrives] = dk;
		if (have[dk][0])
			strcpy(drive_name[ndrives], have[dk]);
		else
			sprintf(drive_name[ndrives], "dk%d", dk);
		ndrives++;
	}
}

/* The header line being built. */
char	line[256];

/* name centred in width columns, at the end of line. */
centre(name, width)
	char *name;
	int width;
{
	register char *p = line + strlen(line);
	register int n = strlen(name), left, i;

	left = (width - n) / 2;
	if (left < 0)
		left = 0;
	for (i = 0; i < left; i++)
		*p++ = ' ';
	strcpy(p, name);
	p += n;
	for (i = left + n; i < width; i++)
		*p++ = ' ';
	*p = 0;
}

/* line without its trailing blanks. */
trim(s)
	char *s;
{
	register char *p = s + strlen(s);

	while (p > s && p[-1] == ' ')
		p--;
	*p = 0;
}
