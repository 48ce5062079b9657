// A tar archive in the old (V7) format, as 4.3BSD's tar(1) writes and reads
// it: one 512-byte header per file, the data in 512-byte blocks, two zero
// blocks at the end, the whole padded to the blocking factor (20 blocks =
// 10240 bytes, the record size of the distribution tape's tar files).
//
// Header (old format, no "ustar" magic): name[100], mode[8], uid[8],
// gid[8], size[12], mtime[12], chksum[8], linkflag[1], linkname[100], the
// rest zero.  Numbers are octal ASCII as 4.3BSD's tar writes them: mode,
// uid and gid "%6o " and a NUL, size and mtime "%11lo ", the checksum
// "%6o", a NUL and a space.  The checksum is the sum of the header's bytes
// with the checksum field taken as eight spaces; 4.3BSD's tar sums them as
// signed chars, which is the same for the ASCII headers made here.
// Only regular files (linkflag NUL), with plain names.

export interface TarEntry {
  name: string;
  data: Buffer;
  /** permission bits, e.g. 0o644 */
  mode: number;
  /** seconds since 1970 */
  mtime: number;
  uid?: number;
  gid?: number;
}

export const TAR_BLOCK = 512;

function octal(n: number, digits: number): string {
  if (!Number.isInteger(n) || n < 0) throw new Error(`tar: ${n} is not a non-negative integer`);
  const s = n.toString(8);
  if (s.length > digits) throw new Error(`tar: ${n} does not fit in ${digits} octal digits`);
  return s.padStart(digits, '0');
}

function header(e: TarEntry): Buffer {
  const h = Buffer.alloc(TAR_BLOCK);
  const name = Buffer.from(e.name, 'latin1');
  if (name.length === 0 || name.length > 99) throw new Error(`tar: name ${JSON.stringify(e.name)} must be 1 to 99 bytes`);
  if (!/^[\x21-\x7e]+$/.test(e.name)) throw new Error(`tar: name ${JSON.stringify(e.name)} must be printable ASCII without spaces`);
  name.copy(h, 0);
  h.write(`${octal(e.mode & 0o7777, 6)} \0`, 100, 'latin1');
  h.write(`${octal(e.uid ?? 0, 6)} \0`, 108, 'latin1');
  h.write(`${octal(e.gid ?? 0, 6)} \0`, 116, 'latin1');
  h.write(`${octal(e.data.length, 11)} `, 124, 'latin1');
  h.write(`${octal(e.mtime, 11)} `, 136, 'latin1');
  // linkflag (156) stays NUL: a regular file.
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${octal(sum, 6)}\0 `, 148, 'latin1');
  return h;
}

/** The archive, padded to a whole number of blockingFactor-block records. */
export function makeTar(entries: readonly TarEntry[], blockingFactor = 20): Buffer {
  const names = new Set<string>();
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (names.has(e.name)) throw new Error(`tar: ${e.name} twice`);
    names.add(e.name);
    parts.push(header(e), e.data);
    const pad = (TAR_BLOCK - (e.data.length % TAR_BLOCK)) % TAR_BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * TAR_BLOCK));
  let len = parts.reduce((n, p) => n + p.length, 0);
  const record = blockingFactor * TAR_BLOCK;
  if (len % record) {
    parts.push(Buffer.alloc(record - (len % record)));
    len += record - (len % record);
  }
  return Buffer.concat(parts, len);
}

export interface TarMember {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  linkflag: string;
  data: Buffer;
}

function field(h: Buffer, at: number, len: number): string {
  const s = h.subarray(at, at + len).toString('latin1');
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

/** Read an old-format archive back, as 4.3BSD's tar would: stop at the first
 * header whose name is empty; refuse a header whose checksum is wrong. */
export function readTar(buf: Buffer): TarMember[] {
  const out: TarMember[] = [];
  let at = 0;
  while (at + TAR_BLOCK <= buf.length) {
    const h = buf.subarray(at, at + TAR_BLOCK);
    if (h[0] === 0) return out;
    const num = (off: number, len: number): number => parseInt(field(h, off, len).trim() || '0', 8);
    const want = num(148, 8);
    const copy = Buffer.from(h);
    copy.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of copy) sum += b > 127 ? b - 256 : b;
    if (sum !== want) throw new Error(`tar: directory checksum error at byte ${at} (${want} != ${sum})`);
    const size = num(124, 12);
    const data = buf.subarray(at + TAR_BLOCK, at + TAR_BLOCK + size);
    if (data.length !== size) throw new Error(`tar: ${field(h, 0, 100)} is cut short`);
    out.push({ name: field(h, 0, 100), mode: num(100, 8), uid: num(108, 8), gid: num(116, 8), mtime: num(136, 12),
      linkflag: field(h, 156, 1), data: Buffer.from(data) });
    at += TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
  }
  throw new Error('tar: no end-of-archive block');
}
