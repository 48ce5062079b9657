// The distributions the installer knows: 4.3BSD (June 1986), which it has
// built and checked, and 4.2BSD (August 1983), whose files are not
// reachable from here: for 4.2BSD the installer finds and verifies the
// files, writes the tape in 4.2BSD's order and runs the same procedure,
// but it has never been run, and when the files are absent it says so and
// builds 4.3BSD only.  No 4.2BSD image is ever made from anything but a
// 4.2BSD distribution.
//
// Tape order, from each release's /sys/dist/maketape:
//   4.3BSD (4.31 6/6/86): stand, miniroot, rootdump, usr.tar, srcsys.tar
//   4.2BSD (4.14 8/14/83): stand, miniroot, rootdump, srcsys.tar, usr.tar
//     ("Add tar image of system sources" comes before "Add tar image of
//     /usr"; "Installing and Operating 4.2BSD" 1.2: the fourth file holds
//     /sys, the fifth /usr), then vfont.tar, which the installer does not use.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { DEFAULT_DIST_URL, DIST_FILES, KNOWN_SHA256 } from './dist';
import type { DistFile } from './dist';
import { TAPE_LAYOUT } from './tape';
import type { TapeFileSpec } from './tape';

export type VersionId = '4.3' | '4.2';

export interface DistVersion {
  id: VersionId;
  /** "4.3BSD" */
  name: string;
  release: string;
  /** base name of the outputs: IMAGE.dsk.gz, IMAGE.json, IMAGE.log */
  imageName: string;
  /** the files in the distribution directory (gzipped tape files) */
  files: readonly DistFile[];
  /** sums built into the installer (checked when there is no SHA256SUMS) */
  known: Readonly<Record<string, string>>;
  /** where missing files are downloaded from; null: never downloaded */
  downloadUrl: string | null;
  tape: readonly TapeFileSpec[];
  /** where the kernel sources go (/sys is a symbolic link to it in the root dump) */
  sysDir: string;
  /** the environment variable and default folder (beside the repository) of the distribution */
  dirEnv: string;
  defaultSubdir: string;
  /** true when the installer has been run on this version's files */
  tested: boolean;
}

const USR_TAR: DistFile = { name: 'usr.tar.gz', unpacked: 'usr.tar', optional: true };

export const BSD43: DistVersion = {
  id: '4.3',
  name: '4.3BSD',
  release: 'June 1986',
  imageName: '43bsd',
  files: [...DIST_FILES, USR_TAR],
  known: KNOWN_SHA256,
  downloadUrl: DEFAULT_DIST_URL,
  tape: TAPE_LAYOUT,
  sysDir: '/usr/src/sys',
  dirEnv: 'VAXLAB_DIST',
  defaultSubdir: '4.3BSD',
  tested: true,
};

export const TAPE_LAYOUT_42: readonly TapeFileSpec[] = [
  { name: 'stand', recordSize: 512, what: 'tape boot blocks + tp archive (boot, copy, format)' },
  { name: 'miniroot', recordSize: 10240, what: 'mini-root file system' },
  { name: 'rootdump', recordSize: 10240, what: 'dump of the root file system' },
  { name: 'srcsys.tar', recordSize: 10240, what: 'tar of /sys (kernel sources)' },
  { name: 'usr.tar', recordSize: 10240, what: 'tar of /usr', optional: true },
];

export const BSD42: DistVersion = {
  id: '4.2',
  name: '4.2BSD',
  release: 'August 1983',
  imageName: '42bsd',
  files: [
    { name: 'stand.gz', unpacked: 'stand' },
    { name: 'miniroot.gz', unpacked: 'miniroot' },
    { name: 'rootdump.gz', unpacked: 'rootdump' },
    { name: 'srcsys.tar.gz', unpacked: 'srcsys.tar' },
    USR_TAR,
  ],
  known: {},
  downloadUrl: null,
  tape: TAPE_LAYOUT_42,
  sysDir: '/usr/sys',
  dirEnv: 'VAXLAB_DIST42',
  defaultSubdir: '4.2BSD',
  tested: false,
};

export const VERSIONS: readonly DistVersion[] = [BSD43, BSD42];

export function versionById(id: string): DistVersion {
  const v = VERSIONS.find((x) => x.id === id || x.name === id);
  if (!v) throw new Error(`unknown distribution version ${JSON.stringify(id)} (4.3, 4.2 or all)`);
  return v;
}

export function versionDistDir(v: DistVersion, repoRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[v.dirEnv];
  return fromEnv ? resolve(fromEnv) : resolve(repoRoot, '../shared/bsd', v.defaultSubdir);
}

export interface Presence {
  version: DistVersion;
  dir: string;
  /** every required file is there */
  complete: boolean;
  /** the required files that are not */
  missing: string[];
  /** the optional files that are */
  optionalPresent: string[];
}

export function findDistribution(v: DistVersion, dir: string): Presence {
  const required = v.files.filter((f) => !f.optional).map((f) => f.name);
  const missing = required.filter((n) => !existsSync(join(dir, n)));
  const optionalPresent = v.files.filter((f) => f.optional && existsSync(join(dir, f.name))).map((f) => f.name);
  return { version: v, dir, complete: missing.length === 0, missing, optionalPresent };
}

/** What is said when a version's files are not all there. */
export function absentMessage(p: Presence, others: readonly string[]): string {
  const looked = p.version.files.filter((f) => !f.optional).map((f) => f.name).join(', ');
  const what = p.missing.length === p.version.files.filter((f) => !f.optional).length
    ? `${p.version.name} distribution not found in ${p.dir} (looked for ${looked})`
    : `${p.version.name} distribution incomplete in ${p.dir} (missing ${p.missing.join(', ')} of ${looked})`;
  const rest = others.length === 0 ? 'nothing else to build' : `building ${others.join(' and ')} only`;
  return `${what}: skipping ${p.version.name}, ${rest}`;
}
