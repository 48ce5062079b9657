// The 4.3BSD distribution files the installer reads: where they are, their
// SHA-256 sums, and (when absent) where they would be downloaded from.
//
// The files are those of the TUHS archive's 4.3BSD directory: the tape
// files of the June 1986 distribution, each gzipped.  We use four of them:
// stand (tape file 0), miniroot (1), rootdump (2) and srcsys.tar (file 4 on
// the real tape).  usr.tar (file 3) is not among the files we have; it is
// used when present (lib/versions.ts lists it as optional).  The same
// functions serve 4.2BSD's files (lib/versions.ts), for which the installer
// knows no sums: they are checked against a SHA256SUMS beside them, if any.

import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface DistFile {
  /** name in the distribution directory, e.g. "stand.gz" */
  name: string;
  /** the tape file once unpacked, e.g. "stand" */
  unpacked: string;
  /** not needed: used when present (e.g. usr.tar.gz, which we do not have) */
  optional?: boolean;
}

export const DIST_FILES: readonly DistFile[] = [
  { name: 'stand.gz', unpacked: 'stand' },
  { name: 'miniroot.gz', unpacked: 'miniroot' },
  { name: 'rootdump.gz', unpacked: 'rootdump' },
  { name: 'srcsys.tar.gz', unpacked: 'srcsys.tar' },
];

/** The sums of the files this installer was written and tested with (they
 * match ../shared/bsd/4.3BSD/SHA256SUMS); used to check downloads, and to
 * say so when a SHA256SUMS names different files. */
export const KNOWN_SHA256: Readonly<Record<string, string>> = {
  'miniroot.gz': '9f3c27b7ea99cec22b22a9eb8e25f85287087d031681476158e98b6ffffdebb5',
  'rootdump.gz': '46d1ab1c41c330be47b04812f779c7e535b3e0d4d251b03670455660b212b125',
  'srcsys.tar.gz': '0c626add685ac942af39a76f0a65d0156f8590c44b6429952f18a69467b5dc71',
  'stand.gz': '8f5f38d1c141f598bf4fca16277960f463486f5d678e883a7de97af11ab148a2',
};

export const DEFAULT_DIST_URL = 'https://www.tuhs.org/Archive/Distributions/UCB/4.3BSD/';

export class DistError extends Error {}

export interface VerifiedFile extends DistFile {
  path: string;
  sha256: string;
  bytes: number;
}

export interface Distribution {
  dir: string;
  /** where the sums came from: "SHA256SUMS" or "built-in" (downloaded files) */
  sumsFrom: string;
  files: VerifiedFile[];
  /** remarks for the log */
  notes: string[];
}

export function defaultDistDir(repoRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.VAXLAB_DIST ? resolve(env.VAXLAB_DIST) : resolve(repoRoot, '../shared/bsd/4.3BSD');
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Parse a SHA256SUMS file ("HEX  NAME" or "HEX *NAME" lines). */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!m) throw new DistError(`SHA256SUMS line ${i + 1} is not "SHA256  NAME": ${JSON.stringify(line)}`);
    sums.set(m[2]!.trim(), m[1]!.toLowerCase());
  }
  return sums;
}

export interface FetchLike {
  (url: string, init?: { signal?: AbortSignal }): Promise<{ ok: boolean; status: number; statusText: string; arrayBuffer(): Promise<ArrayBuffer> }>;
}

/** Download the missing files into dir from baseUrl, checking each against
 * KNOWN_SHA256 before keeping it.  Throws DistError("cannot reach ...")
 * when the archive cannot be reached. */
export async function downloadMissing(dir: string, missing: string[], baseUrl: string, log: (s: string) => void,
  fetchFn: FetchLike = fetch as unknown as FetchLike): Promise<void> {
  for (const name of missing) {
    const url = new URL(name, baseUrl.endsWith('/') ? baseUrl : baseUrl + '/').toString();
    log(`downloading ${url}`);
    let body: Buffer;
    try {
      const res = await fetchFn(url, { signal: AbortSignal.timeout(120_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
      body = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      const why = e instanceof Error ? (e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message) : String(e);
      throw new DistError(`cannot reach ${url} (${why}); put the distribution files ${missing.join(', ')} in ${dir} ` +
        `(or point VAXLAB_DIST at a directory holding them)`);
    }
    const sum = createHash('sha256').update(body).digest('hex');
    const want = KNOWN_SHA256[name];
    if (want && sum !== want) throw new DistError(`${url}: SHA-256 ${sum}, expected ${want}; not kept`);
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${name}.download`);
      writeFileSync(tmp, body);
      renameSync(tmp, join(dir, name));
    } catch (e) {
      throw new DistError(`cannot keep the download of ${name} in ${dir} (${e instanceof Error ? e.message : String(e)}); ` +
        `set VAXLAB_DIST to a writable directory`);
    }
  }
}

export interface LoadOptions {
  download: boolean;
  baseUrl: string;
  log: (s: string) => void;
  fetchFn?: FetchLike;
  /** the files to look for (default: 4.3BSD's DIST_FILES) */
  files?: readonly DistFile[];
  /** sums known to the installer, used without a SHA256SUMS (default: 4.3BSD's KNOWN_SHA256) */
  known?: Readonly<Record<string, string>>;
}

/** Find and verify the distribution in dir.  Missing files are downloaded
 * from baseUrl when download is true; otherwise (or when that fails) the
 * error names what is missing and where the installer looked.  Optional
 * files are used when present and never downloaded.  Each file is checked
 * against dir/SHA256SUMS, or, without one, against the installer's own
 * sums; a file neither knows is used unverified, with a note. */
export async function loadDistribution(dir: string, opts: LoadOptions): Promise<Distribution> {
  const wanted = opts.files ?? DIST_FILES;
  const known = opts.known ?? KNOWN_SHA256;
  const notes: string[] = [];
  const missing = wanted.filter((f) => !f.optional).map((f) => f.name).filter((n) => !existsSync(join(dir, n)));
  if (missing.length > 0) {
    const where = `${dir}${process.env.VAXLAB_DIST ? ' (from VAXLAB_DIST)' : ''}`;
    if (!opts.download)
      throw new DistError(`distribution files missing in ${where}: ${missing.join(', ')}`);
    opts.log(`distribution files missing in ${where}: ${missing.join(', ')}`);
    await downloadMissing(dir, missing, opts.baseUrl, opts.log, opts.fetchFn);
  }
  const sumsPath = join(dir, 'SHA256SUMS');
  let sums: Map<string, string>;
  let sumsFrom: string;
  if (existsSync(sumsPath)) {
    sums = parseSums(readFileSync(sumsPath, 'utf8'));
    sumsFrom = sumsPath;
  } else {
    sums = new Map(Object.entries(known));
    sumsFrom = 'built-in';
    if (sums.size > 0) notes.push(`no SHA256SUMS in ${dir}: checked against the installer's own sums`);
  }
  const files: VerifiedFile[] = [];
  const unverified: string[] = [];
  for (const f of wanted) {
    const path = join(dir, f.name);
    if (f.optional && !existsSync(path)) continue;
    const want = sums.get(f.name);
    const got = await sha256File(path);
    if (!want) {
      if (sumsFrom !== 'built-in') throw new DistError(`${sumsFrom} has no line for ${f.name}`);
      unverified.push(f.name);
    } else {
      if (got !== want) throw new DistError(`${path}: SHA-256 ${got} does not match ${sumsFrom} (${want})`);
      if (known[f.name] !== undefined && known[f.name] !== want)
        notes.push(`${f.name} is not the file this installer was tested with (sha256 ${want})`);
    }
    files.push({ ...f, path, sha256: got, bytes: statSync(path).size });
  }
  if (unverified.length)
    notes.push(`not verified: ${unverified.join(', ')} (no SHA256SUMS in ${dir}, and the installer knows no sum for ` +
      `${unverified.length === 1 ? 'it' : 'them'}; their sums are in the manifest)`);
  return { dir, sumsFrom, files, notes };
}

/** Unpack each file (gunzip) into dir; returns unpacked name -> path. */
export function unpack(dist: Distribution, dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of dist.files) {
    const path = join(dir, f.unpacked);
    writeFileSync(path, gunzipSync(readFileSync(f.path)));
    out.set(f.unpacked, path);
  }
  return out;
}
