// The RP06 pack the installer builds: geometry and the 4.3BSD partition
// table (rp06_sizes in /sys/vaxmba/hp.c, as /etc/disktab's "rp06"); and
// the RA81 the same system is copied to (ra81_sizes in /sys/vaxuba/uda.c,
// as /etc/disktab's "ra81").

import { closeSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

export const RP06 = {
  model: 'RP06',
  sectorBytes: 512,
  sectorsPerTrack: 22,
  tracksPerCylinder: 19,
  cylinders: 815,
} as const;

export const RP06_SECTORS = RP06.sectorsPerTrack * RP06.tracksPerCylinder * RP06.cylinders; // 340,670
export const RP06_BYTES = RP06_SECTORS * RP06.sectorBytes; // 174,423,040

export interface Partition {
  name: string;
  /** first sector */
  offset: number;
  sectors: number;
  use: string;
}

const SPC = RP06.sectorsPerTrack * RP06.tracksPerCylinder; // 418 sectors per cylinder

export const RP06_PARTITIONS: readonly Partition[] = [
  { name: 'a', offset: 0 * SPC, sectors: 15884, use: '/ (root)' },
  { name: 'b', offset: 38 * SPC, sectors: 33440, use: 'swap (held the mini-root during installation)' },
  { name: 'c', offset: 0 * SPC, sectors: 340670, use: 'whole pack (the last track holds the bad-sector table)' },
  { name: 'd', offset: 118 * SPC, sectors: 15884, use: 'unused (overlaps g)' },
  { name: 'e', offset: 156 * SPC, sectors: 55936, use: 'unused (overlaps g)' },
  { name: 'f', offset: 290 * SPC, sectors: 219384, use: 'unused (overlaps g)' },
  { name: 'g', offset: 118 * SPC, sectors: 291280, use: '/usr' },
];

/** Create (or truncate) path as an all-zero RP06 image: a never-written pack. */
export function createBlankRp06(path: string): void {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, RP06_BYTES);
  } finally {
    closeSync(fd);
  }
}

/** The RA81 (UDA50/MSCP): 891,072 logical blocks; 4.3BSD's uda driver and
 * /etc/disktab describe it as 51 sectors x 14 tracks x 1248 cylinders. */
export const RA81 = {
  model: 'RA81',
  sectorBytes: 512,
  sectorsPerTrack: 51,
  tracksPerCylinder: 14,
  cylinders: 1248,
} as const;

export const RA81_SECTORS = 891072;
export const RA81_BYTES = RA81_SECTORS * RA81.sectorBytes; // 456,228,864

/** ra81_sizes in 4.3BSD's /sys/vaxuba/uda.c (neither UCBRA nor RA_COMPAT,
 * as GENERIC is compiled), offsets in blocks. */
export const RA81_PARTITIONS: readonly Partition[] = [
  { name: 'a', offset: 0, sectors: 15884, use: '/ (root): the RP06\'s hp0a, block for block' },
  { name: 'b', offset: 16422, sectors: 66880, use: 'swap' },
  { name: 'c', offset: 0, sectors: 891072, use: 'whole unit' },
  { name: 'd', offset: 375564, sectors: 15884, use: 'unused (overlaps g)' },
  { name: 'e', offset: 391986, sectors: 307200, use: 'unused (overlaps g)' },
  { name: 'f', offset: 699720, sectors: 191352, use: 'unused (overlaps g)' },
  { name: 'g', offset: 375564, sectors: 515508, use: 'unused (fstab.ra81 mounts it on /mnt; no file system here)' },
  { name: 'h', offset: 83538, sectors: 291346, use: '/usr: the RP06\'s hp0g (291,280 blocks), block for block' },
];

/** The RP06's file systems copied into the RA81 partitions 4.3BSD's uda
 * driver gives them: hp0a to ra0a, hp0g to ra0h (the bigger of the two
 * partitions; a file system does not care that its partition is longer or
 * its disk different).  dst becomes an RA81 image, all zeros elsewhere. */
export function copyRp06ToRa81(src: string, dst: string): void {
  const part = (t: readonly Partition[], n: string): Partition => t.find((p) => p.name === n)!;
  const pairs: [Partition, Partition][] = [
    [part(RP06_PARTITIONS, 'a'), part(RA81_PARTITIONS, 'a')],
    [part(RP06_PARTITIONS, 'g'), part(RA81_PARTITIONS, 'h')],
  ];
  const inFd = openSync(src, 'r');
  const outFd = openSync(dst, 'w');
  try {
    ftruncateSync(outFd, RA81_BYTES);
    const buf = Buffer.alloc(1 << 20);
    for (const [from, to] of pairs) {
      if (from.sectors > to.sectors) throw new Error(`${from.name} (${from.sectors} blocks) does not fit in ra0${to.name}`);
      let done = 0;
      const total = from.sectors * 512;
      while (done < total) {
        const n = Math.min(buf.length, total - done);
        const got = readSync(inFd, buf, 0, n, from.offset * 512 + done);
        if (got !== n) throw new Error(`short read from ${src}`);
        writeSync(outFd, buf, 0, n, to.offset * 512 + done);
        done += n;
      }
    }
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
}
