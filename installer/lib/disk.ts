// The RP06 pack the installer builds: geometry and the 4.3BSD partition
// table (rp06_sizes in /sys/vaxmba/hp.c, as /etc/disktab's "rp06").

import { closeSync, ftruncateSync, openSync } from 'node:fs';

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
