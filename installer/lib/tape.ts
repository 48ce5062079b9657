// The 4.3BSD distribution tape as a SIMH .tap image.
//
// Order and record sizes from /sys/dist/maketape (4.31, 6/6/86):
//   0  stand       tsboot htboot tmboot mtboot utboot noboot noboot and a
//                  tp archive of boot, copy, format   dd obs=512 conv=sync
//   1  miniroot    dd if=/dev/rhp0d count=205 bs=20b conv=sync   (10240)
//   2  rootdump    dump 0uf: 10 blocks of 1 KB per record        (10240)
//   3  usr.tar     tar cf (blocking factor 20)                   (10240)
//   4  srcsys.tar  tar cf of /sys                                (10240)
//   (then usr/src, vfont, new, ingres on the 6250 bpi tape: not used here)
// The miniroot's xtr script restores "restore rsf 3": the third file, so
// the dump must stay file 2.  usr.tar is not in the distribution we have;
// it is left out, and srcsys.tar becomes file 3.
//
// SIMH format: each record is its 4-byte little-endian length, the data
// (padded to an even length), the length again; a tape mark is a zero
// length word.  Every file ends with a tape mark and the tape with a second
// one (the logical end of tape).  A file whose size is not a multiple of
// its record size gets its last record padded with zeros (conv=sync).

import { closeSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';

export interface TapeFileSpec {
  /** name of the unpacked distribution file */
  name: string;
  recordSize: number;
  what: string;
  /** absent from the distribution we have: skipped, with a note */
  optional?: boolean;
}

export const TAPE_LAYOUT: readonly TapeFileSpec[] = [
  { name: 'stand', recordSize: 512, what: 'tape boot blocks + tp archive (boot, copy, format)' },
  { name: 'miniroot', recordSize: 10240, what: 'mini-root file system' },
  { name: 'rootdump', recordSize: 10240, what: 'dump of the root file system' },
  { name: 'usr.tar', recordSize: 10240, what: 'tar of /usr', optional: true },
  { name: 'srcsys.tar', recordSize: 10240, what: 'tar of /sys (kernel sources)' },
];

export interface TapeFileInfo {
  name: string;
  /** position on the tape we built (0 = first file) */
  file: number;
  recordSize: number;
  records: number;
  bytes: number;
  /** bytes of zeros added to the last record */
  padded: number;
  what: string;
}

export interface TapeInfo {
  files: TapeFileInfo[];
  skipped: string[];
  bytes: number;
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** Write the tape to out (through out.partial, renamed when complete).
 * sources maps a TAPE_LAYOUT name to a host file. */
export function buildTape(out: string, sources: Map<string, string>, layout: readonly TapeFileSpec[] = TAPE_LAYOUT): TapeInfo {
  const info: TapeInfo = { files: [], skipped: [], bytes: 0 };
  const tmp = `${out}.partial`;
  const fd = openSync(tmp, 'w');
  try {
    let pos = 0;
    const put = (b: Buffer): void => {
      writeSync(fd, b, 0, b.length, pos);
      pos += b.length;
    };
    for (const spec of layout) {
      const src = sources.get(spec.name);
      if (src === undefined) {
        if (!spec.optional) throw new Error(`tape: no file for ${spec.name} (${spec.what})`);
        info.skipped.push(spec.name);
        continue;
      }
      if (!Number.isInteger(spec.recordSize) || spec.recordSize < 2 || spec.recordSize % 2 !== 0)
        throw new Error(`tape: bad record size ${spec.recordSize} for ${spec.name}`);
      const size = statSync(src).size;
      if (size === 0) throw new Error(`tape: ${src} is empty`);
      const rfd = openSync(src, 'r');
      const rec = Buffer.alloc(spec.recordSize);
      const len = u32le(spec.recordSize);
      let records = 0;
      let padded = 0;
      try {
        for (let off = 0; off < size; off += spec.recordSize) {
          rec.fill(0);
          const want = Math.min(spec.recordSize, size - off);
          const got = readSync(rfd, rec, 0, want, off);
          if (got !== want) throw new Error(`tape: short read of ${src}`);
          padded += spec.recordSize - want;
          put(len);
          put(rec);
          put(len);
          records++;
        }
      } finally {
        closeSync(rfd);
      }
      put(u32le(0));
      info.files.push({ name: spec.name, file: info.files.length, recordSize: spec.recordSize, records, bytes: size, padded,
        what: spec.what });
    }
    put(u32le(0));
    info.bytes = pos;
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, out);
  return info;
}

/** Read a SIMH tape back: per file, the record lengths (for tests and checks). */
export function readTapeLayout(path: string): number[][] {
  const fd = openSync(path, 'r');
  const size = statSync(path).size;
  const files: number[][] = [];
  let cur: number[] = [];
  const w = Buffer.alloc(4);
  let pos = 0;
  try {
    while (pos + 4 <= size) {
      readSync(fd, w, 0, 4, pos);
      const n = w.readUInt32LE();
      pos += 4;
      if (n === 0) {
        files.push(cur);
        cur = [];
        continue;
      }
      const len = n & 0x0fffffff;
      pos += len + (len & 1);
      readSync(fd, w, 0, 4, pos);
      if (w.readUInt32LE() !== n) throw new Error(`tape ${path}: trailing length differs at byte ${pos}`);
      pos += 4;
      cur.push(len);
    }
  } finally {
    closeSync(fd);
  }
  if (pos !== size) throw new Error(`tape ${path}: ${size - pos} stray bytes at the end`);
  if (cur.length) files.push(cur);
  return files;
}
