// The file-system mutation fuzzer: damaged 4.3BSD file systems must never
// crash the host.  Each case takes the pristine RP06 pack, changes a few
// bytes of the metadata of its root file system (sometimes of /usr's) —
// superblock, cylinder-summary area, cylinder-group headers and maps,
// inodes, indirect blocks, directory blocks — then runs on that pack the
// host's own FFS reader (the ASan/UBSan `bsdfs`: ls, stat, cat, sum) and a
// whole boot on the ASan/UBSan `vax780` (the kernel loaded by the host, or
// through the real /boot; single-user with a script that lists, mounts and
// reads, or multi-user with fsck).  What the guest makes of the damage (a
// panic, fsck's complaints, an error from ls) is its own business; the host
// must only ever end with one of its documented exit codes, without a
// signal, without a sanitizer report, and within a wall-clock bound.
//
// Everything a case does follows from its seed (a splitmix64 stream, as
// emu/tests/test_fuzz.c uses): the same seed on the same image makes the
// same damage and the same runs.  Where the metadata is comes from parsing
// the image here (4.3BSD's <sys/fs.h>, <sys/inode.h>, <sys/dir.h>; offsets
// below), independently of the C reader under test.

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync,
  ftruncateSync } from 'node:fs';
import { join } from 'node:path';

// ------------------------------------------------------------------ seeds

/** splitmix64 (Steele, Lea and Flood), the same generator as test_fuzz.c. */
export class SplitMix64 {
  private state: bigint;
  constructor(seed: bigint) { this.state = BigInt.asUintN(64, seed); }
  next(): bigint {
    this.state = BigInt.asUintN(64, this.state + 0x9E3779B97F4A7C15n);
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94D049BB133111EBn);
    return z ^ (z >> 31n);
  }
  /** An integer in [0, n), n < 2^32. */
  below(n: number): number { return Number((this.next() >> 32n) % BigInt(n)); }
  u32(): number { return Number(this.next() >> 32n); }
  chance(p: number): boolean { return this.below(1 << 30) < p * (1 << 30); }
  pick<T>(items: readonly T[]): T { return items[this.below(items.length)]; }
  /** One of the keys, with the given weights. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const keys = Object.keys(weights) as K[];
    const total = keys.reduce((s, k) => s + weights[k], 0);
    let x = this.below(total);
    for (const k of keys) {
      if (x < weights[k]) return k;
      x -= weights[k];
    }
    return keys[keys.length - 1];
  }
}

// ------------------------------------------------------------ the format

const SECTOR = 512;
const SBOFF = 8192;
const FS_MAGIC = 0x011954;
const DINODE = 128;
const NDADDR = 12;
const ROOTINO = 2;
const IFMT = 0o170000;
const IFDIR = 0o040000;
const IFREG = 0o100000;

/** RP06 partitions (4.3BSD's hp driver, rp06_sizes): a = root, g = /usr. */
export const RP06_PARTITIONS = {
  root: { letter: 'a', offset: 0 },
  usr: { letter: 'g', offset: 118 * 418 * SECTOR },
} as const;
export type FsName = keyof typeof RP06_PARTITIONS;

/** struct fs (h/fs.h): offsets of the fields, for naming what a case hits. */
const SB_FIELDS: [number, string][] = [
  [0, 'fs_link'], [4, 'fs_rlink'], [8, 'fs_sblkno'], [12, 'fs_cblkno'], [16, 'fs_iblkno'], [20, 'fs_dblkno'],
  [24, 'fs_cgoffset'], [28, 'fs_cgmask'], [32, 'fs_time'], [36, 'fs_size'], [40, 'fs_dsize'], [44, 'fs_ncg'],
  [48, 'fs_bsize'], [52, 'fs_fsize'], [56, 'fs_frag'], [60, 'fs_minfree'], [64, 'fs_rotdelay'], [68, 'fs_rps'],
  [72, 'fs_bmask'], [76, 'fs_fmask'], [80, 'fs_bshift'], [84, 'fs_fshift'], [88, 'fs_maxcontig'],
  [92, 'fs_maxbpg'], [96, 'fs_fragshift'], [100, 'fs_fsbtodb'], [104, 'fs_sbsize'], [108, 'fs_csmask'],
  [112, 'fs_csshift'], [116, 'fs_nindir'], [120, 'fs_inopb'], [124, 'fs_nspf'], [128, 'fs_optim'],
  [132, 'fs_sparecon'], [152, 'fs_csaddr'], [156, 'fs_cssize'], [160, 'fs_cgsize'], [164, 'fs_ntrak'],
  [168, 'fs_nsect'], [172, 'fs_spc'], [176, 'fs_ncyl'], [180, 'fs_cpg'], [184, 'fs_ipg'], [188, 'fs_fpg'],
  [192, 'fs_cstotal'], [208, 'fs_fmod'], [209, 'fs_clean'], [210, 'fs_ronly'], [211, 'fs_flags'],
  [212, 'fs_fsmnt'], [724, 'fs_cgrotor'], [728, 'fs_csp'], [856, 'fs_cpc'], [860, 'fs_postbl'],
  [1372, 'fs_magic'], [1376, 'fs_rotbl'],
];
/** struct cg (h/fs.h). */
const CG_FIELDS: [number, string][] = [
  [0, 'cg_link'], [4, 'cg_rlink'], [8, 'cg_time'], [12, 'cg_cgx'], [16, 'cg_ncyl'], [18, 'cg_niblk'],
  [20, 'cg_ndblk'], [24, 'cg_cs'], [40, 'cg_rotor'], [44, 'cg_frotor'], [48, 'cg_irotor'], [52, 'cg_frsum'],
  [84, 'cg_btot'], [212, 'cg_b'], [724, 'cg_iused'], [980, 'cg_magic'], [984, 'cg_free'],
];
/** The fields of the superblock that the parameters live in (the rest is
 *  summary, names and rotational tables). */
const SB_PARAMETERS_END = 192;
const CG_HEADER_END = 724;
/** struct dinode (h/inode.h, VAX). */
const INODE_FIELDS: [number, string][] = [
  [0, 'di_mode'], [2, 'di_nlink'], [4, 'di_uid'], [6, 'di_gid'], [8, 'di_size'], [16, 'di_atime'],
  [24, 'di_mtime'], [32, 'di_ctime'], [40, 'di_db'], [88, 'di_ib'], [100, 'di_flags'], [104, 'di_blocks'],
  [108, 'di_gen'], [112, 'di_spare'],
];

function fieldName(fields: [number, string][], off: number): string {
  let name = fields[0][1];
  let start = 0;
  for (const [o, n] of fields) if (o <= off) { name = n; start = o; }
  return off === start ? name : `${name}+${off - start}`;
}

/** The superblock fields this fuzzer needs (h/fs.h). */
export interface Superblock {
  sblkno: number; cblkno: number; iblkno: number; dblkno: number; cgoffset: number; cgmask: number;
  size: number; ncg: number; bsize: number; fsize: number; frag: number; sbsize: number;
  csaddr: number; cssize: number; cgsize: number; ipg: number; fpg: number; inopb: number;
}

export function parseSuperblock(image: Uint8Array, partOffset: number): Superblock {
  const v = new DataView(image.buffer, image.byteOffset + partOffset + SBOFF, 2048);
  const l = (o: number): number => v.getInt32(o, true);
  if (l(1372) !== FS_MAGIC) throw new Error(`no 4.3BSD superblock at byte ${partOffset + SBOFF}`);
  const sb: Superblock = {
    sblkno: l(8), cblkno: l(12), iblkno: l(16), dblkno: l(20), cgoffset: l(24), cgmask: l(28), size: l(36),
    ncg: l(44), bsize: l(48), fsize: l(52), frag: l(56), sbsize: l(104), csaddr: l(152), cssize: l(156),
    cgsize: l(160), ipg: l(184), fpg: l(188), inopb: l(120),
  };
  if (sb.bsize !== 8192 && sb.bsize !== 4096) throw new Error(`unexpected block size ${sb.bsize}`);
  if (sb.fsize * sb.frag !== sb.bsize || sb.inopb !== sb.bsize / DINODE) throw new Error('inconsistent superblock');
  return sb;
}

/** cgstart(fs, c): the first fragment of cylinder group c. */
function cgStart(sb: Superblock, c: number): number {
  return sb.fpg * c + sb.cgoffset * (c & ~sb.cgmask);
}

/** One stretch of metadata the fuzzer may damage, in image bytes. */
export interface Region {
  kind: 'superblock' | 'csum' | 'cg' | 'inode' | 'indirect' | 'directory' | 'aout';
  fs: FsName;
  offset: number;
  length: number;
  /** For inodes: the inode number and a path that names it. */
  ino?: number;
  path?: string;
  /** Field names (offset in the region -> name). */
  fields?: [number, string][];
}

export interface FsMetadata {
  fs: FsName;
  sb: Superblock;
  superblock: Region;
  csum: Region;
  cgs: Region[];
  /** Inodes in use (reached from the root directory), by path. */
  inodes: Region[];
  /** The inode blocks of every group (used or not), to hit free inodes too. */
  inodeBlocks: Region[];
  indirect: Region[];
  directories: Region[];
  /** Parts of /vmunix and /boot that the host's loader reads (a.out
   *  headers; /vmunix's string-table size and the symbols the session
   *  looks up), which sit in file data rather than in metadata. */
  aout: Region[];
}

/** Walk a file system of the pristine image and list its metadata. */
export function describeFs(image: Uint8Array, fs: FsName, limits = { directories: 4000 }): FsMetadata {
  const base = RP06_PARTITIONS[fs].offset;
  const sb = parseSuperblock(image, base);
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  const frag = (f: number): number => base + f * sb.fsize;
  const inodeAt = (ino: number): number => {
    const c = Math.floor(ino / sb.ipg);
    const f = cgStart(sb, c) + sb.iblkno + Math.floor((ino % sb.ipg) / sb.inopb) * sb.frag;
    return frag(f) + (ino % sb.inopb) * DINODE;
  };
  const cgs: Region[] = [];
  const inodeBlocks: Region[] = [];
  for (let c = 0; c < sb.ncg; c++) {
    cgs.push({ kind: 'cg', fs, offset: frag(cgStart(sb, c) + sb.cblkno), length: sb.cgsize, fields: CG_FIELDS });
    inodeBlocks.push({ kind: 'inode', fs, offset: frag(cgStart(sb, c) + sb.iblkno), length: sb.ipg * DINODE,
      fields: INODE_FIELDS });
  }
  const inodes: Region[] = [];
  const indirect: Region[] = [];
  const directories: Region[] = [];
  const aout: Region[] = [];
  const seen = new Set<number>();
  const queue: { ino: number; path: string }[] = [{ ino: ROOTINO, path: '/' }];
  while (queue.length > 0) {
    const { ino, path } = queue.shift()!;
    if (seen.has(ino) || ino < ROOTINO || ino >= sb.ncg * sb.ipg) continue;
    seen.add(ino);
    const at = inodeAt(ino);
    inodes.push({ kind: 'inode', fs, offset: at, length: DINODE, ino, path, fields: INODE_FIELDS });
    const mode = view.getUint16(at, true);
    const size = view.getInt32(at + 8, true);
    const type = mode & IFMT;
    if (type !== IFDIR && type !== IFREG) continue;
    // (blocks are collected below, then used for directories and for the
    // programs the host loads)
    // Block addresses: the direct ones and the single indirect block (the
    // directories and files here are small enough for that).
    const blocks: number[] = [];
    for (let i = 0; i < NDADDR; i++) blocks.push(view.getInt32(at + 40 + 4 * i, true));
    const ib = view.getInt32(at + 88, true);
    if (ib > 0 && ib < sb.size) {
      indirect.push({ kind: 'indirect', fs, offset: frag(ib), length: sb.bsize, ino, path });
      for (let i = 0; i < sb.bsize / 4; i++) blocks.push(view.getInt32(frag(ib) + 4 * i, true));
    }
    if (type === IFREG && fs === 'root' && (path === '/vmunix' || path === '/boot')) {
      aout.push(...aoutRegions(image, frag, sb.bsize, blocks, size, path));
    }
    if (type !== IFDIR || directories.length >= limits.directories) continue;
    const nblocks = Math.ceil(size / sb.bsize);
    for (let lbn = 0; lbn < nblocks && lbn < blocks.length; lbn++) {
      const bn = blocks[lbn];
      if (bn <= 0 || bn >= sb.size) continue;
      const len = Math.min(sb.bsize, size - lbn * sb.bsize);
      directories.push({ kind: 'directory', fs, offset: frag(bn), length: len, ino, path });
      // Entries: d_ino u32, d_reclen u16, d_namlen u16, d_name.
      for (let off = 0; off + 8 <= len;) {
        const p = frag(bn) + off;
        const dino = view.getUint32(p, true);
        const reclen = view.getUint16(p + 4, true);
        const namlen = view.getUint16(p + 6, true);
        if (reclen < 12 || off + reclen > len) break;
        if (dino !== 0 && namlen > 0 && namlen <= 255) {
          const name = Buffer.from(image.buffer, image.byteOffset + p + 8, namlen).toString('latin1');
          if (name !== '.' && name !== '..') queue.push({ ino: dino, path: path === '/' ? `/${name}` : `${path}/${name}` });
        }
        off += reclen;
      }
    }
  }
  return {
    fs, sb, cgs, inodes, inodeBlocks, indirect, directories, aout,
    superblock: { kind: 'superblock', fs, offset: base + SBOFF, length: sb.sbsize, fields: SB_FIELDS },
    csum: { kind: 'csum', fs, offset: frag(sb.csaddr), length: sb.cssize },
  };
}

/** struct exec (a.out.h, VAX). */
const AOUT_FIELDS: [number, string][] = [
  [0, 'a_magic'], [4, 'a_text'], [8, 'a_data'], [12, 'a_bss'], [16, 'a_syms'], [20, 'a_entry'], [24, 'a_trsize'],
  [28, 'a_drsize'],
];
const NLIST_FIELDS: [number, string][] = [[0, 'n_strx'], [4, 'n_type'], [5, 'n_other'], [6, 'n_desc'], [8, 'n_value']];

/** The a.out header of a program and, for the kernel, the string table's
 *  size and the symbol entries of _panicstr and _cons (which the session
 *  reads to watch for panics and to pace typing). */
function aoutRegions(image: Uint8Array, frag: (f: number) => number, bsize: number, blocks: number[], size: number,
  path: string): Region[] {
  // File offset -> image offset; a region must not cross a block.
  const at = (fo: number, len: number): number | null => {
    const bn = blocks[Math.floor(fo / bsize)];
    if (!bn || (fo % bsize) + len > bsize) return null;
    return frag(bn) + (fo % bsize);
  };
  const file = new Uint8Array(Math.min(size, blocks.length * bsize));
  for (let fo = 0; fo < file.length; fo += bsize) {
    const o = at(fo, 0);
    if (o !== null) file.set(image.subarray(o, o + Math.min(bsize, file.length - fo)), fo);
  }
  const regions: Region[] = [];
  const push = (fo: number, len: number, what: string, fields: [number, string][]): void => {
    const o = at(fo, len);
    if (o !== null) regions.push({ kind: 'aout', fs: 'root', offset: o, length: len, path: `${path} ${what}`, fields });
  };
  push(0, 32, 'header', AOUT_FIELDS);
  if (path !== '/vmunix' || file.length < 32) return regions;
  const v = new DataView(file.buffer);
  const magic = v.getUint32(0, true);
  const textOff = magic === 0o413 ? 1024 : 32;
  const symoff = textOff + v.getUint32(4, true) + v.getUint32(8, true) + v.getUint32(24, true) + v.getUint32(28, true);
  const stroff = symoff + v.getUint32(16, true);
  if (stroff + 4 > file.length) return regions;
  push(stroff, 4, 'string table size', [[0, 'size']]);
  const strsize = v.getUint32(stroff, true);
  for (let p = symoff; p + 12 <= stroff; p += 12) {
    const strx = v.getUint32(p, true);
    if (strx < 4 || strx >= strsize || stroff + strx >= file.length) continue;
    const end = file.indexOf(0, stroff + strx);
    const name = Buffer.from(file.subarray(stroff + strx, end < 0 ? stroff + strx : end)).toString('latin1');
    if (name === '_panicstr' || name === '_cons') push(p, 12, `symbol ${name}`, NLIST_FIELDS);
  }
  return regions;
}

// --------------------------------------------------------------- damage

export interface Mutation {
  /** Where, in image bytes. */
  offset: number;
  before: string;   // hex
  after: string;    // hex
  /** What was hit, e.g. "root inode 10 (/vmunix) di_size". */
  what: string;
}

/** Paths the boot script and the host tools read: their inodes are hit more often. */
const HOT_PATHS = ['/', '/vmunix', '/boot', '/etc', '/etc/passwd', '/etc/fstab', '/etc/init', '/bin', '/bin/sh',
  '/bin/ls', '/bin/cat', '/etc/mount', '/bin/sync', '/dev', '/dev/console', '/dev/hp0g', '/etc/rc', '/etc/fsck',
  '/bin/login', '/etc/getty', '/etc/ttys', '/usr', '/lab', '/lost+found'];

const INTERESTING32 = [0, 1, 2, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x8000, 0x10000, 0x100, 0xFF, 8192,
  1024, 512, 0xFFFFFFFE, 0x40000000];

function regionWhat(r: Region, off: number): string {
  const rel = off - r.offset;
  const head = r.kind === 'inode' && r.ino !== undefined ? `inode ${r.ino} (${r.path})`
    : r.kind === 'directory' || r.kind === 'indirect' ? `${r.kind} block of ${r.path}`
    : r.kind === 'aout' ? `${r.path}` : r.kind;
  if (r.kind === 'inode') return `${r.fs} ${head} ${fieldName(INODE_FIELDS, rel % DINODE)}${r.ino === undefined
    ? ` (inode slot ${Math.floor(rel / DINODE)} of the group)` : ''}`;
  if (r.fields) return `${r.fs} ${head} ${fieldName(r.fields, rel)}`;
  return `${r.fs} ${head} +${rel}`;
}

/** A byte offset inside region r, biased towards where the numbers are. */
function pickOffset(rng: SplitMix64, r: Region): number {
  let rel: number;
  switch (r.kind) {
    case 'superblock':
      rel = rng.chance(0.8) ? rng.below(SB_PARAMETERS_END) : rng.below(r.length);
      break;
    case 'cg':
      rel = rng.chance(0.5) ? rng.below(CG_HEADER_END) : rng.chance(0.1) ? 980 + rng.below(4) : rng.below(r.length);
      break;
    case 'inode':
      if (r.ino !== undefined) {
        // mode, nlink, size, the block addresses: what readers follow.
        rel = rng.chance(0.85) ? rng.pick([0, 1, 2, 8, 9, 10, 11]) + (rng.chance(0.5) ? 0 : 40 + rng.below(60))
          : rng.below(DINODE);
        rel = Math.min(rel, DINODE - 1);
      } else {
        rel = rng.below(r.length);
      }
      break;
    case 'directory': {
      // An entry header (d_ino, d_reclen, d_namlen) at a 512-byte chunk's
      // start or anywhere in the block.
      const chunk = rng.below(Math.max(1, Math.floor(r.length / 512))) * 512;
      rel = rng.chance(0.5) ? chunk + rng.below(8) : rng.below(r.length);
      break;
    }
    default:
      rel = rng.below(r.length);
  }
  return r.offset + Math.min(rel, r.length - 1);
}

/** Change the image in place, in one of several ways; returns what changed. */
function damage(rng: SplitMix64, image: Uint8Array, r: Region): Mutation {
  let off = pickOffset(rng, r);
  const how = rng.weighted({ bit: 40, byte: 15, word: 30, zero: 8, copy: 7 });
  let len = 1;
  const end = r.offset + r.length;
  if (how === 'word' || how === 'copy') {
    off &= ~3;
    if (off < r.offset) off = r.offset;
    len = Math.min(rng.chance(0.75) ? 4 : 2, end - off);
  } else if (how === 'zero') {
    len = Math.min(4 + rng.below(60), end - off);
  }
  const before = Buffer.from(image.subarray(off, off + len)).toString('hex');
  switch (how) {
    case 'bit': image[off] ^= 1 << rng.below(8); break;
    case 'byte': image[off] = rng.below(256); break;
    case 'zero': image.fill(0, off, off + len); break;
    case 'word': {
      const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
      const old = len === 4 ? view.getUint32(off, true) : len === 2 ? view.getUint16(off, true) : image[off];
      const choice = rng.below(3);
      let v = choice === 0 ? rng.pick(INTERESTING32) : choice === 1 ? old + (rng.below(33) - 16) : rng.u32();
      v >>>= 0;
      if (len === 4) view.setUint32(off, v, true);
      else if (len === 2) view.setUint16(off, v & 0xFFFF, true);
      else image[off] = v & 0xFF;
      break;
    }
    case 'copy': {
      const from = r.offset + (rng.below(Math.max(1, r.length - len)) & ~3);
      image.copyWithin(off, from, from + len);
      break;
    }
  }
  // A change that changed nothing (a copy of equal bytes, a zero over
  // zeros) becomes a bit flip, so that every case damages something.
  let after = Buffer.from(image.subarray(off, off + len)).toString('hex');
  if (after === before) {
    image[off] ^= 1 << rng.below(8);
    after = Buffer.from(image.subarray(off, off + len)).toString('hex');
  }
  return { offset: off, before, after, what: `${regionWhat(r, off)} (${how})` };
}

/** Choose where to hit: a kind of metadata, then one of its regions. */
function chooseRegion(rng: SplitMix64, meta: FsMetadata): Region {
  const kind = rng.weighted({ superblock: 8, csum: 4, cg: 16, inode: 36, freeInode: 4, indirect: 8, directory: 24,
    aout: 6 });
  switch (kind) {
    case 'superblock': return meta.superblock;
    case 'csum': return meta.csum;
    case 'cg': return rng.pick(meta.cgs);
    case 'freeInode': return rng.pick(meta.inodeBlocks);
    case 'indirect': if (meta.indirect.length) return rng.pick(meta.indirect); break;
    case 'directory': if (meta.directories.length) return rng.pick(meta.directories); break;
    case 'aout': if (meta.aout.length) return rng.pick(meta.aout); break;
    case 'inode': break;
  }
  if (rng.chance(0.5)) {
    const hot = meta.inodes.filter((r) => r.path !== undefined && HOT_PATHS.includes(r.path));
    if (hot.length) return rng.pick(hot);
  }
  return rng.pick(meta.inodes);
}

// ------------------------------------------------------------ the runs

/** How a case boots: the kernel loaded by the host (--direct), with a
 *  kernel variable patched (--set), or through the real /boot; single-user
 *  with the listing script, multi-user (fsck -p in /etc/rc), or single-user
 *  fsck -y of both file systems, then `reboot` to multi-user (the host
 *  reads the repaired pack again). */
export type BootMode = 'direct-single' | 'direct-set' | 'boot-single' | 'boot-multi' | 'fsck-reboot';

export interface CasePlan {
  seed: bigint;
  mutations: Mutation[];
  boot: BootMode;
}

/** The damage and the boot of case `seed` (applied to `image` in place). */
export function planCase(seed: bigint, image: Uint8Array, meta: Record<FsName, FsMetadata>): CasePlan {
  const rng = new SplitMix64(seed);
  // Mostly one to three changes (a file system that still mounts takes the
  // kernel and the tools furthest), sometimes many.
  const k = rng.chance(0.8) ? 1 + rng.below(3) : 4 + rng.below(13);
  const onUsr = rng.chance(0.15);
  const mutations: Mutation[] = [];
  for (let i = 0; i < k; i++) {
    const fs: FsName = onUsr && rng.chance(0.8) ? 'usr' : 'root';
    mutations.push(damage(rng, image, chooseRegion(rng, meta[fs])));
  }
  const boot = rng.weighted<BootMode>({ 'direct-single': 50, 'direct-set': 8, 'boot-single': 17, 'boot-multi': 8,
    'fsck-reboot': 17 });
  return { seed, mutations, boot };
}

const SINGLE_USER_SCRIPT = [
  'timeout 60',
  'expect \\n# ',
  'send ls -l /', 'expect \\n# ',
  'send mount /usr', 'expect \\n# ',
  'send ls -l /usr', 'expect \\n# ',
  'send ls -lR /etc', 'expect \\n# ',
  'send cat /etc/passwd', 'expect \\n# ',
  'send sync', 'expect \\n# ',
].join('\n') + '\n';

// Multi-user: /etc/rc runs fsck -p on / and /usr (which may repair, ask
// for a reboot, or give up and leave a single-user shell), then login.
const LOGIN = [
  'timeout 300',
  'expect login: ',
  'timeout 60',
  'send root', 'expect # ',
  'send ls -l /usr/lab', 'expect # ',
  'send sync', 'expect # ',
];
const MULTI_USER_SCRIPT = LOGIN.join('\n') + '\n';

// fsck -y repairs what it can; `reboot -n` (no sync: the mounted root's
// stale buffers and inodes would undo the repairs, as fsck(8) warns) asks
// the console to boot again, multi-user through /boot: the host reads the
// repaired pack.
const FSCK_REBOOT_SCRIPT = [
  'timeout 120',
  'expect \\n# ',
  'send fsck -y /dev/rhp0a', 'expect \\n# ',
  'send fsck -y /dev/rhp0g', 'expect \\n# ',
  'send reboot -n',
  ...LOGIN,
].join('\n') + '\n';

/** The documented exit codes (README, "The headless machine"; bsdfs.c). */
export const VAX780_EXIT: Record<number, string> = {
  0: 'done', 1: 'timed out', 2: 'usage', 3: 'bad image', 4: 'guest halted', 5: 'kernel panic', 6: 'processor stopped',
};
export const BSDFS_EXIT: Record<number, string> = { 0: 'ok', 1: 'read error', 3: 'bad image' };

const SANITIZER_REPORT = /ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: UndefinedBehaviorSanitizer|SUMMARY: \w+Sanitizer|AddressSanitizer:DEADLYSIGNAL/;

export interface ProcessOutcome {
  command: string;
  status: number | null;
  signal: string | null;
  hostSeconds: number;
  /** Last line of stderr (the tools' one-line reason). */
  reason: string;
  /** Why this run breaks the rules (undocumented exit, signal, sanitizer, wall clock), or null. */
  failure: string | null;
  stderr: string;
  stdoutTail: string;
}

export interface Tools {
  vax780: string;
  bsdfs: string;
}

export interface CaseResult {
  plan: CasePlan;
  runs: ProcessOutcome[];
  failures: string[];
  /** Short label of the boot's end: "0 done", "5 panic: ...", ... */
  bootOutcome: string;
  bsdfsStatuses: number[];
}

function sanitizerEnv(): NodeJS.ProcessEnv {
  // A distinct exit status for sanitizer reports (the default, 1, is also
  // vax780's "timed out"); the reports themselves are looked for in stderr.
  return {
    ...process.env,
    ASAN_OPTIONS: 'exitcode=86:detect_leaks=1:abort_on_error=0:allocator_may_return_null=1',
    UBSAN_OPTIONS: 'exitcode=86:print_stacktrace=1:halt_on_error=1',
    LSAN_OPTIONS: 'exitcode=86',
  };
}

/** Run one host program and judge how it ended (see ProcessOutcome.failure). */
export function runTool(command: string, args: string[], documented: Record<number, string>, wallSeconds: number,
  workDir: string, keepStdout: boolean): ProcessOutcome {
  const outPath = join(workDir, 'stdout.txt');
  const errPath = join(workDir, 'stderr.txt');
  const out = keepStdout ? openSync(outPath, 'w') : 'ignore';
  const err = openSync(errPath, 'w');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { stdio: ['ignore', out, err], timeout: wallSeconds * 1000, killSignal: 'SIGKILL',
    env: sanitizerEnv() });
  const hostSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (typeof out === 'number') closeSync(out);
  closeSync(err);
  const stderr = readFileSync(errPath, 'latin1');
  const stdoutTail = keepStdout ? readTail(outPath, 4000) : '';
  const name = command.split('/').slice(-1)[0];
  const shown = `${name} ${args.join(' ')}`;
  let failure: string | null = null;
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    failure = `${shown}: still running after ${wallSeconds} s of host time (killed)`;
  } else if (r.error) {
    failure = `${shown}: could not run: ${r.error.message}`;
  } else if (SANITIZER_REPORT.test(stderr)) {
    const line = stderr.split('\n').find((l) => SANITIZER_REPORT.test(l)) ?? '';
    failure = `${shown}: sanitizer report: ${line.trim()}`;
  } else if (r.signal) {
    failure = `${shown}: killed by ${r.signal}`;
  } else if (r.status === null || !(r.status in documented)) {
    failure = `${shown}: undocumented exit status ${r.status}`;
  } else if (r.status !== 0 && !/\S/.test(stderr)) {
    failure = `${shown}: exit ${r.status} without a reason on stderr`;
  }
  const lines = stderr.trim().split('\n');
  return { command: shown, status: r.status, signal: r.signal, hostSeconds, reason: lines[lines.length - 1] ?? '',
    failure, stderr, stdoutTail };
}

function readTail(path: string, n: number): string {
  const text = readFileSync(path);
  return text.subarray(Math.max(0, text.length - n)).toString('latin1');
}

/** "0 done", "5 panic: iinit", "3 bad image: bad block size in the superblock"...: the exit status and
 *  the reason, numbers folded, so that like endings count together. */
export function outcomeLabel(o: ProcessOutcome): string {
  if (o.failure) return 'FAILED';
  if (o.status === 0) return '0 done';
  const reason = o.reason.replace(/^vax780: /, '');
  // Numbers (not version numbers such as 4.3BSD) become N.
  const fold = (s: string): string => s.replace(/0x[0-9a-f]+/gi, 'N').replace(/(?<![\w.])\d+(?![\w.])/g, 'N');
  switch (o.status) {
    case 1: return '1 timed out';
    case 2: return `2 usage: ${fold(reason).slice(0, 60)}`;
    case 3: return `3 bad image: ${fold(reason.replace(/^\S+\.dsk: /, '').replace(/^not a usable 4\.3BSD file system: /, '')
      .replace(/ \(.*$/, '')).slice(0, 80)}`;
    case 4: return `4 halted: ${fold(reason.replace(/^guest halted: /, '')).replace(/ \(.*$/, '').slice(0, 60)}`;
    case 5: return `5 panic: ${fold(reason.replace(/^kernel panic: /, '')).slice(0, 60)}`;
    case 6: return `6 stopped: ${fold(reason).slice(0, 60)}`;
    default: return `${o.status}`;
  }
}

export function runCase(plan: CasePlan, imagePath: string, tools: Tools, workDir: string,
  wallSeconds: number): CaseResult {
  const runs: ProcessOutcome[] = [];
  const bsdfsStatuses: number[] = [];
  // The host's reader: what the boot code and the tools read.
  const onUsr = plan.mutations.some((m) => m.what.startsWith('usr '));
  const reads: [string, string][] = [['ls', '/'], ['stat', '/vmunix'], ['cat', '/vmunix'], ['sum', '/boot'],
    ['ls', '/etc'], ['cat', '/etc/passwd']];
  for (const [cmd, path] of reads) {
    const o = runTool(tools.bsdfs, [imagePath, cmd, path], BSDFS_EXIT, wallSeconds, workDir, false);
    runs.push(o);
    bsdfsStatuses.push(o.status ?? -1);
  }
  if (onUsr) {
    for (const [cmd, path] of [['ls', '/'], ['ls', '/lab'], ['stat', '/lab']]) {
      const o = runTool(tools.bsdfs, ['-p', 'g', imagePath, cmd, path], BSDFS_EXIT, wallSeconds, workDir, false);
      runs.push(o);
      bsdfsStatuses.push(o.status ?? -1);
    }
  }
  // The whole machine.
  const scriptPath = join(workDir, 'script.txt');
  writeFileSync(scriptPath, plan.boot === 'boot-multi' ? MULTI_USER_SCRIPT
    : plan.boot === 'fsck-reboot' ? FSCK_REBOOT_SCRIPT : SINGLE_USER_SCRIPT);
  const args = ['--disk', `hp0=${imagePath}`, '--script', scriptPath];
  if (plan.boot === 'direct-single') args.push('--direct');
  if (plan.boot === 'direct-set') args.push('--direct', '--set', 'nchsize=0');
  if (plan.boot === 'boot-multi') args.push('--boot', 'multi');
  const boot = runTool(tools.vax780, args, VAX780_EXIT, wallSeconds, workDir, true);
  runs.push(boot);
  const failures = runs.filter((r) => r.failure).map((r) => r.failure!);
  return { plan, runs, failures, bootOutcome: outcomeLabel(boot), bsdfsStatuses };
}

// ------------------------------------------------- the working image

/** A private, writable copy of the pack that is put back after every case:
 *  only the chunks that differ from the pristine bytes are rewritten (the
 *  damage, and whatever the guest wrote), so a case costs one read of the
 *  file from the page cache instead of a 174 MB copy. */
export class WorkingImage {
  readonly path: string;
  private readonly fd: number;
  private readonly chunk = Buffer.alloc(1 << 20);

  constructor(readonly pristine: Uint8Array, path: string) {
    this.path = path;
    writeSparse(path, pristine);
    this.fd = openSync(path, 'r+');
  }

  /** Write the damaged bytes of `damaged` (a copy of pristine) at the mutations' offsets. */
  apply(damaged: Uint8Array, mutations: Mutation[]): void {
    for (const m of mutations) {
      const len = m.after.length / 2;
      writeSync(this.fd, damaged, m.offset, len, m.offset);
    }
  }

  /** Put the pristine bytes back where the file differs; returns the bytes rewritten. */
  restore(): number {
    let rewritten = 0;
    const size = this.pristine.length;
    for (let pos = 0; pos < size; pos += this.chunk.length) {
      const n = Math.min(this.chunk.length, size - pos);
      const got = readSync(this.fd, this.chunk, 0, n, pos);
      if (got !== n) throw new Error(`short read of the working image at ${pos}`);
      const want = this.pristine.subarray(pos, pos + n);
      if (Buffer.compare(this.chunk.subarray(0, n), want) === 0) continue;
      for (let s = 0; s < n; s += 4096) {
        const e = Math.min(n, s + 4096);
        if (Buffer.compare(this.chunk.subarray(s, e), want.subarray(s, e)) !== 0) {
          writeSync(this.fd, want, s, e - s, pos + s);
          rewritten += e - s;
        }
      }
    }
    return rewritten;
  }

  close(): void { closeSync(this.fd); }
}

/** Write bytes to a file, leaving all-zero 64 KB stretches as holes. */
export function writeSparse(path: string, bytes: Uint8Array): void {
  rmSync(path, { force: true });
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, bytes.length);
    const step = 1 << 16;
    const zeros = Buffer.alloc(step);
    for (let pos = 0; pos < bytes.length; pos += step) {
      const piece = bytes.subarray(pos, Math.min(bytes.length, pos + step));
      if (!zeros.subarray(0, piece.length).equals(piece)) writeSync(fd, piece, 0, piece.length, pos);
    }
  } finally {
    closeSync(fd);
  }
}

// --------------------------------------------------------------- a run

export interface FsFuzzOptions {
  image: Uint8Array;
  imageName: string;
  tools: Tools;
  workDir: string;
  /** Where failing cases are kept (image, mutations, outputs). */
  keepDir: string;
  seed: bigint;
  cases: number;
  /** Stop starting new cases after this many host seconds (0: no limit). */
  seconds: number;
  wallSeconds: number;
  verbose?: (line: string) => void;
  /** Keep every case (image, changes, outputs), not only failing ones. */
  keepAll?: boolean;
}

export interface FsFuzzSummary {
  cases: number;
  failed: CaseResult[];
  /** Boot outcomes by label, e.g. "5 panic: iinit" -> 3. */
  outcomes: Map<string, number>;
  /** bsdfs exit statuses -> count. */
  bsdfsStatuses: Map<number, number>;
  processes: number;
  mutations: number;
  maxHostSeconds: number;
  maxHostCommand: string;
  seconds: number;
  firstSeed: bigint;
  lastSeed: bigint;
  keptFailures: string[];
}

export function fsFuzz(o: FsFuzzOptions): FsFuzzSummary {
  mkdirSync(o.workDir, { recursive: true });
  const meta = { root: describeFs(o.image, 'root'), usr: describeFs(o.image, 'usr') };
  const working = new WorkingImage(o.image, join(o.workDir, 'fuzz.dsk'));
  const summary: FsFuzzSummary = {
    cases: 0, failed: [], outcomes: new Map(), bsdfsStatuses: new Map(), processes: 0, mutations: 0,
    maxHostSeconds: 0, maxHostCommand: '', seconds: 0, firstSeed: o.seed, lastSeed: o.seed, keptFailures: [],
  };
  const t0 = Date.now();
  try {
    for (let i = 0; i < o.cases; i++) {
      if (o.seconds > 0 && (Date.now() - t0) / 1000 >= o.seconds) break;
      const seed = o.seed + BigInt(i);
      // The damage is made on the in-memory pristine image (a 174 MB copy
      // per case would cost more than the case), written to the working
      // file, and undone in memory at once.
      const plan = planCase(seed, o.image, meta);
      working.apply(o.image, plan.mutations);
      undo(o.image, plan.mutations);
      const result = runCase(plan, working.path, o.tools, o.workDir, o.wallSeconds);
      working.restore();
      summary.cases++;
      summary.lastSeed = seed;
      summary.mutations += plan.mutations.length;
      summary.processes += result.runs.length;
      for (const r of result.runs) {
        if (r.hostSeconds > summary.maxHostSeconds) {
          summary.maxHostSeconds = r.hostSeconds;
          summary.maxHostCommand = r.command.replace(working.path, 'IMAGE');
        }
      }
      summary.outcomes.set(result.bootOutcome, (summary.outcomes.get(result.bootOutcome) ?? 0) + 1);
      for (const s of result.bsdfsStatuses) summary.bsdfsStatuses.set(s, (summary.bsdfsStatuses.get(s) ?? 0) + 1);
      if (o.verbose) {
        const boot = result.runs[result.runs.length - 1];
        o.verbose(`case ${seed}: ${plan.boot}, ${plan.mutations.length} change(s) -> ${result.bootOutcome}` +
          ` (${boot.hostSeconds.toFixed(2)} s; bsdfs ${result.bsdfsStatuses.join(',')})`);
        for (const m of plan.mutations) o.verbose(`    ${m.what} @${m.offset}: ${m.before} -> ${m.after}`);
      }
      if (result.failures.length) {
        summary.failed.push(result);
        summary.keptFailures.push(keepCase(o, result, meta));
        if (o.verbose) for (const f of result.failures) o.verbose(`  FAIL ${f}`);
      } else if (o.keepAll) {
        const kept = keepCase(o, result, meta);
        if (o.verbose) o.verbose(`  kept: ${kept}`);
      }
    }
  } finally {
    working.close();
  }
  summary.seconds = (Date.now() - t0) / 1000;
  return summary;
}

/** Undo a plan's mutations on the in-memory image, last first (they may overlap). */
export function undo(bytes: Uint8Array, mutations: Mutation[]): void {
  for (let i = mutations.length - 1; i >= 0; i--) {
    const m = mutations[i];
    bytes.set(Buffer.from(m.before, 'hex'), m.offset);
  }
}

/** Keep a case: the damaged image (sparse), its mutations and the outputs. */
function keepCase(o: FsFuzzOptions, result: CaseResult, meta: Record<FsName, FsMetadata>): string {
  mkdirSync(o.keepDir, { recursive: true });
  const base = join(o.keepDir, `fs-${result.plan.seed}`);
  const again = planCase(result.plan.seed, o.image, meta);   // the same damage, from the seed
  try {
    writeSparse(`${base}.dsk`, o.image);
  } finally {
    undo(o.image, again.mutations);
  }
  writeFileSync(`${base}.json`, JSON.stringify({
    seed: result.plan.seed.toString(), image: o.imageName, boot: result.plan.boot, mutations: result.plan.mutations,
    failures: result.failures,
    runs: result.runs.map((r) => ({ command: r.command, status: r.status, signal: r.signal, hostSeconds: r.hostSeconds,
      failure: r.failure, stderr: r.stderr.slice(-20000), stdoutTail: r.stdoutTail })),
  }, null, 2));
  return `${base}.dsk`;
}

export function toolsIn(buildDir: string): Tools {
  return { vax780: join(buildDir, 'vax780'), bsdfs: join(buildDir, 'bsdfs') };
}

export function missingTools(t: Tools): string | null {
  for (const p of [t.vax780, t.bsdfs]) if (!existsSync(p)) return `${p} not built (make -C emu asan)`;
  return null;
}
