// The installer's outputs: the gzipped disk image, its manifest, and the
// cache check that makes a re-run with unchanged inputs do nothing.

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

import { sha256File } from './dist';

/** The repository (installer/lib/ is two levels down). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GzipResult {
  sha256: string;
  bytes: number;
  uncompressedSha256: string;
  uncompressedBytes: number;
}

function hashing(h: ReturnType<typeof createHash>, count: { n: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      h.update(chunk);
      count.n += chunk.length;
      cb(null, chunk);
    },
  });
}

/** gzip -9 src into dest (through dest.partial, renamed when complete). */
export async function gzipFile(src: string, dest: string): Promise<GzipResult> {
  const tmp = `${dest}.partial`;
  const hin = createHash('sha256');
  const hout = createHash('sha256');
  const nin = { n: 0 };
  const nout = { n: 0 };
  await pipeline(createReadStream(src, { highWaterMark: 1 << 20 }), hashing(hin, nin), createGzip({ level: 9 }),
    hashing(hout, nout), createWriteStream(tmp));
  renameSync(tmp, dest);
  return { sha256: hout.digest('hex'), bytes: nout.n, uncompressedSha256: hin.digest('hex'), uncompressedBytes: nin.n };
}

/** A digest of the installer's console scripts: changing one invalidates the cache. */
export function scriptsDigest(dir: string): string {
  return sourceDigest(dir, '.vax');
}

/** SHA-256 over the files of dir whose names end in suffix (tests left
 * out), so that a change to the installer's own code rebuilds the image. */
export function sourceDigest(dir: string, suffix: string): string {
  return digestFiles(dir, readdirSync(dir).filter((n) => n.endsWith(suffix) && !n.endsWith(`.test${suffix}`)));
}

/** SHA-256 over the named files of dir (paths relative to it), in sorted
 * order, each as its name, a NUL, its bytes and a NUL. */
function digestFiles(dir: string, names: string[]): string {
  const h = createHash('sha256');
  for (const name of [...names].sort()) {
    h.update(name + '\0');
    h.update(readFileSync(join(dir, name)));
    h.update('\0');
  }
  return h.digest('hex');
}

/** SHA-256 over every file under dir (recursively, paths relative to dir,
 * in sorted order) whose name ends in one of suffixes. The image is written
 * by the emulator under virtual time (inode times, the order of its writes),
 * so its bytes depend on the emulator's model as well as on the inputs: the
 * image key includes this digest of emu/src (the build identity that
 * emu/Makefile writes is the same sources, hashed otherwise). */
export function treeDigest(dir: string, suffixes: string[]): string {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && suffixes.some((x) => e.name.endsWith(x))) files.push(r);
    }
  };
  walk('');
  return digestFiles(dir, files);
}

/** The cache key: the inputs' sums, the installer version, the console
 * scripts and anything else the image depends on (extra: e.g. the lab's
 * guest sources and their build commands; left out when undefined). */
export function cacheKey(inputs: { name: string; sha256: string }[], installerVersion: string, scripts: string,
  extra?: unknown): string {
  const key = {
    inputs: [...inputs].sort((a, b) => a.name.localeCompare(b.name)).map((f) => [f.name, f.sha256]),
    installerVersion,
    scripts,
    extra,
  };
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

/** The manifest already there, if it describes an image built from the same
 * inputs by the same installer and the image is present and intact. */
export async function upToDate(manifestPath: string, imagePath: string, key: string): Promise<Record<string, unknown> | null> {
  if (!existsSync(manifestPath) || !existsSync(imagePath)) return null;
  let m: { cacheKey?: unknown; image?: { sha256?: unknown; bytes?: unknown } };
  try {
    m = JSON.parse(readFileSync(manifestPath, 'utf8')) as typeof m;
  } catch {
    return null;
  }
  if (m.cacheKey !== key || !m.image || statSync(imagePath).size !== m.image.bytes) return null;
  if ((await sha256File(imagePath)) !== m.image.sha256) return null;
  return m as Record<string, unknown>;
}

export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.partial`;
  writeFileSync(tmp, scrubHostPaths(JSON.stringify(value, null, 2)) + '\n');
  renameSync(tmp, path);
}

/** What the installer writes next to the image is shipped with the page:
 *  no path of the machine that built it may be in it.  The repository
 *  becomes "." (the distribution beside it "../shared/..."), the home
 *  directory "~" and the temporary directory "$TMPDIR". */
export function scrubHostPaths(text: string, repoRoot: string = REPO_ROOT): string {
  const root = repoRoot.replace(/\/+$/, '');
  const parent = dirname(root);
  const swaps: [string, string][] = [[`${root}/`, ''], [root, '.'], [`${parent}/`, '../'], [tmpdir().replace(/\/+$/, ''), '$TMPDIR']];
  const home = homedir();
  if (home && home !== '/') swaps.push([home, '~']);
  let out = text;
  for (const [from, to] of swaps) if (from.length > 1) out = out.split(from).join(to);
  return out;
}
