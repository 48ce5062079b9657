// vaxlab's installer: builds RP06 system disks from the BSD distribution
// tape files with our own VAX-11/780 (emu/build/native/vax780), following
// "Installing and Operating 4.3BSD on the VAX", section 2, and adds the
// lab's programs (experiments/guest, compiled by the guest's own cc) and a
// directory of 600 files for the name-translation experiment.  4.3BSD is
// then copied to an RA81 (UDA50) as well: OUT/43bsd-ra81.dsk.gz.
//
//   node --import tsx installer/install.ts [--dist-version all|4.3|4.2]
//        [--dist DIR] [--dist42 DIR] [--guest DIR] [--out DIR] [--force]
//        [--keep-work] [--no-download] [--check] [--verbose]
//   npm run image
//
// By default every version whose distribution files are there is built:
// 4.3BSD (downloaded when missing) and 4.2BSD when its files are found
// (otherwise the installer says it is skipping it).  Output per version:
// OUT/IMAGE.dsk.gz (gzip -9 of the raw RP06 image), OUT/IMAGE.json (the
// manifest) and OUT/IMAGE.log (every console transcript), IMAGE = 43bsd or
// 42bsd; OUT is web/public/images.  A re-run with the same inputs, lab
// sources, installer version and console scripts finds the manifest up to
// date and does nothing.  For 4.3BSD it then builds kernels in the guest
// (lib/kernels.ts): GENERIC from source and the variants of
// experiments/kernels, shipped as OUT/43bsd-kernel-NAME.gz and listed in the
// manifest (cached by the image and the kernels' sources; --no-kernels skips
// them).  Every version's pack is also written as a chunked image,
// OUT/IMAGE.dskz, and the machines the page starts most are booted on the
// WebAssembly emulator and shipped as machine snapshots,
// OUT/IMAGE-boot-NAME.snap.gz (lib/shipped.ts; cached by the pack, the
// emulator build and the machines).  See installer/README.md for the steps.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync, copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync,
  rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

import { kernelFileName } from '../experiments/kernels/variants';
import { DistError, loadDistribution, sha256File, unpack } from './lib/dist';
import type { Distribution } from './lib/dist';
import { RA81, RA81_BYTES, RA81_PARTITIONS, RP06, RP06_BYTES, RP06_PARTITIONS, copyRp06ToRa81, createBlankRp06 } from './lib/disk';
import {
  LAB_BIN, LAB_MTIME, LAB_NAMES, LAB_ROOT_BIN, LAB_SRC, NAMES_COUNT, NAMES_COUNT_COMMAND, buildLines, checkLines, checkRun, extractLines,
  findLabSources, namesLoop, parseBinListing, toolLines,
} from './lib/lab';
import type { InstalledProgram, LabSources } from './lib/lab';
import {
  BUILD_SCRIPT, KERNEL_GUEST_DIR, KernelSourceError, aoutSizes, compiledFiles, findBuildFailure, findKernelSources, kernelBuildDir,
  kernelGuestPath, kernelSourcesDigest, kernelTarEntries, timeOf,
} from './lib/kernels';
import type { KernelSources } from './lib/kernels';
import { cacheKey, gzipFile, scriptsDigest, scrubHostPaths, sourceDigest, treeDigest, upToDate, writeJsonAtomic } from './lib/output';
import { buildTape, readTapeLayout } from './lib/tape';
import type { TapeFileSpec, TapeInfo } from './lib/tape';
import { buildShipped } from './lib/shipped';
import { makeTar } from './lib/tar';
import { VERSIONS, absentMessage, findDistribution, versionById, versionDistDir } from './lib/versions';
import type { DistVersion, Presence } from './lib/versions';
import { EmulatorError, loadScript, runVax780 } from './lib/vax780';
import type { RunResult } from './lib/vax780';

const INSTALLER_VERSION = '0.3.0';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const SCRIPTS = join(import.meta.dirname, 'scripts');
const INSTALLER_DIR = import.meta.dirname;

/** The tape file the installer adds after the distribution's: the lab's sources. */
const LAB_TAPE_FILE: TapeFileSpec = {
  name: 'lab.tar', recordSize: 10240, what: 'tar of the lab\'s sources (experiments/guest), made by the installer',
};

/** The kernel step's tape: one file. */
const KERNELS_TAPE_FILE: TapeFileSpec = {
  name: 'kernels.tar', recordSize: 10240, what: 'tar of the kernel sources of experiments/kernels and build-kernels.sh',
};

interface Options {
  versions: 'all' | '4.3' | '4.2';
  dist: Record<string, string>;
  guest: string;
  kernelSources: string;
  kernels: boolean;
  out: string;
  vax780: string;
  bsdfs: string;
  force: boolean;
  keepWork: boolean;
  download: boolean;
  verbose: boolean;
  check: boolean;
}

class InstallError extends Error {}

const USAGE = 'usage: install.ts [--dist-version all|4.3|4.2] [--dist DIR] [--dist42 DIR] [--guest DIR] [--out DIR]\n' +
  '                  [--kernels DIR] [--no-kernels] [--vax780 PATH] [--force] [--keep-work] [--no-download] [--check]\n' +
  '                  [--verbose]\n';

function parseArgs(argv: string[]): Options {
  const env = process.env;
  const o: Options = {
    versions: 'all',
    dist: Object.fromEntries(VERSIONS.map((v) => [v.id, versionDistDir(v, REPO_ROOT, env)])),
    guest: env.VAXLAB_GUEST ? resolve(env.VAXLAB_GUEST) : join(REPO_ROOT, 'experiments/guest'),
    kernelSources: env.VAXLAB_KERNELS ? resolve(env.VAXLAB_KERNELS) : join(REPO_ROOT, 'experiments/kernels'),
    kernels: true,
    out: join(REPO_ROOT, 'web/public/images'),
    vax780: env.VAXLAB_VAX780 ?? join(REPO_ROOT, 'emu/build/native/vax780'),
    bsdfs: env.VAXLAB_BSDFS ?? join(REPO_ROOT, 'emu/build/native/bsdfs'),
    force: false,
    keepWork: false,
    download: true,
    verbose: false,
    check: false,
  };
  const setVersions = (s: string): void => {
    if (s === 'all' || s === '4.3' || s === '4.2') o.versions = s;
    else throw new InstallError(`--dist-version takes all, 4.3 or 4.2, not ${JSON.stringify(s)}`);
  };
  if (env.VAXLAB_DIST_VERSION) setVersions(env.VAXLAB_DIST_VERSION);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new InstallError(`${a} needs a value`);
      return v;
    };
    if (a === '--dist-version') setVersions(next());
    else if (a === '--dist') o.dist['4.3'] = resolve(next());
    else if (a === '--dist42') o.dist['4.2'] = resolve(next());
    else if (a === '--guest') o.guest = resolve(next());
    else if (a === '--kernels') o.kernelSources = resolve(next());
    else if (a === '--no-kernels') o.kernels = false;
    else if (a === '--out') o.out = resolve(next());
    else if (a === '--vax780') o.vax780 = resolve(next());
    else if (a === '--force') o.force = true;
    else if (a === '--keep-work') o.keepWork = true;
    else if (a === '--no-download') o.download = false;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--check') o.check = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new InstallError(`unknown option ${a} (try --help)`);
  }
  return o;
}

// ------------------------------------------------------------------ logging

let logFile: string | null = null;

function say(msg: string): void {
  process.stdout.write(`[install] ${msg}\n`);
  if (logFile) appendFileSync(logFile, `[install] ${msg}\n`);
}

function secs(s: number): string {
  return `${s.toFixed(2)} s`;
}

function repoPath(p: string): string {
  const r = relative(REPO_ROOT, p);
  return r.startsWith('..') ? p : r;
}

// ------------------------------------------------------------------ checks

/** What an installation step's console output must and must not contain. */
interface Checks {
  must: (string | RegExp)[];
  mustNot?: (string | RegExp)[];
}

/** Signs of a failed command in an installation step's transcript. */
const FAILURE_SIGNS: (string | RegExp)[] = [
  'not found', /[Ee]rror/, /[Cc]annot /, 'No such file', 'No space', 'Permission denied', 'UNEXPECTED INCONSISTENCY',
  /\bBAD\b/, /\bDUP\b/, /\bUNREF\b/, 'panic', /usage:/i,
];

/** A build's or a check run's failure marker (lib/lab.ts), on a line of its own. */
const LAB_FAILED = /^[^#].*: FAILED$/;

function check(step: string, transcript: string, c: Checks): void {
  const text = transcript.replace(/\r/g, '');
  // Signs of failure first: they say more than a line that did not come.
  for (const m of c.mustNot ?? []) {
    const hit = typeof m === 'string' ? text.split('\n').find((l) => l.includes(m)) : text.split('\n').find((l) => m.test(l));
    if (hit !== undefined) throw new EmulatorError(`${step}: the console output says ${JSON.stringify(hit.trim())}`, transcript);
  }
  for (const m of c.must) {
    const ok = typeof m === 'string' ? text.includes(m) : m.test(text);
    if (!ok) throw new EmulatorError(`${step}: the console output lacks ${String(m)}`, transcript);
  }
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ------------------------------------------------------------------ steps

interface StepRecord {
  step: string;
  hostSeconds: number;
  virtualSeconds?: number | null;
  instructions?: number | null;
}

async function emulate(o: Options, work: string, step: string, script: string, args: string[],
  vars: Record<string, string | number>, checks: Checks, steps: StepRecord[]): Promise<RunResult> {
  const text = loadScript(SCRIPTS, script, vars);
  say(`${step} ...`);
  if (logFile) appendFileSync(logFile, `\n===== ${step}: vax780 ${args.join(' ')} --script ${script}\n`);
  let r: RunResult;
  try {
    r = await runVax780(o.vax780, args, text, join(work, script), {
      onOutput: o.verbose ? (s) => process.stdout.write(s) : undefined,
    });
  } catch (e) {
    if (e instanceof EmulatorError && logFile) appendFileSync(logFile, e.transcript);
    throw e;
  }
  if (logFile) appendFileSync(logFile, r.transcript);
  check(step, r.transcript, checks);
  steps.push({ step, hostSeconds: r.hostSeconds, virtualSeconds: r.virtualSeconds, instructions: r.instructions });
  say(`${step}: done in ${secs(r.hostSeconds)} (${r.virtualSeconds ?? '?'} virtual s, ` +
    `${r.instructions !== null ? (r.instructions / 1e6).toFixed(1) : '?'} million instructions)`);
  return r;
}

function gitCommit(): string | null {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** "/usr/src /usr/src/sys" for /usr/src/sys: the directories to make under /usr. */
function mkdirsUnderUsr(dir: string): string {
  const parts = dir.split('/').filter(Boolean);
  if (parts[0] !== 'usr' || parts.length < 2) throw new InstallError(`the kernel sources' place ${dir} is not under /usr`);
  const out: string[] = [];
  for (let i = 2; i <= parts.length; i++) out.push('/' + parts.slice(0, i).join('/'));
  return out.join(' ');
}

function usrExtractLines(usrFile: number | null): string {
  if (usrFile === null) {
    // What /etc/rc and syslogd write to at a multi-user boot would have come
    // with usr.tar; without these the boot prints a page of "No such file".
    return [
      '# usr.tar is not on the tape: /usr holds only the kernel sources, and the',
      '# log and spool files the multi-user boot writes to',
      'send mkdir /usr/adm /usr/spool /usr/spool/mqueue /usr/crash', 'expect \\n# ',
      'send cp /dev/null /usr/adm/messages; cp /dev/null /usr/adm/lpd-errs; cp /dev/null /usr/spool/mqueue/syslog',
      'expect \\n# ',
    ].join('\n');
  }
  return [
    'send cd /usr', 'expect \\n# ',
    `send mt -f /dev/rmt12 fsf ${usrFile}`, 'expect \\n# ',
    'timeout 7200',
    'send tar xpbf 20 /dev/rmt12', 'expect \\n# ',
    'send mt -f /dev/rmt12 rew', 'expect \\n# ',
  ].join('\n');
}

/** The cache key of a version's image: its distribution files, the
 * installer, the console scripts and the lab's sources with their build
 * commands (changing a benchmark's source rebuilds the image). */
function imageKey(v: DistVersion, dist: Distribution, lab: LabSources): string {
  return cacheKey(dist.files, INSTALLER_VERSION, scriptsDigest(SCRIPTS), {
    version: v.id,
    installerCode: [sourceDigest(INSTALLER_DIR, '.ts'), sourceDigest(join(INSTALLER_DIR, 'lib'), '.ts')],
    // The emulator that runs the installation: a change to its timing model
    // changes the image's bytes (times written under virtual time), so an
    // image cached from another model must not be taken as up to date.
    emulator: treeDigest(join(REPO_ROOT, 'emu/src'), ['.c', '.h']),
    lab: {
      files: lab.files.map((f) => [f.name, f.sha256]),
      programs: lab.programs.map((p) => [p.name, p.build, p.checkArgs]),
    },
  });
}

function describeLab(lab: LabSources): void {
  say(`lab sources: ${lab.dir}`);
  for (const n of lab.notes) say(`  note: ${n}`);
  if (lab.programs.length === 0) {
    say(`  no benchmark programs: nothing will be installed in ${LAB_BIN} (${LAB_NAMES} is made all the same)`);
  } else {
    const rules = new Set(lab.programs.map((p) => p.buildFrom));
    say(`  ${plural(lab.programs.length, 'program')} to build in the guest into ${LAB_BIN} (build commands from: ${[...rules].join(', ')}` +
      `${lab.readmeBuild ? `; README: ${lab.readmeBuild}` : ''}): ${lab.programs.map((p) => p.name).join(' ')}`);
  }
  const extra = lab.files.filter((f) => !lab.programs.some((p) => p.source === f.name)).map((f) => f.name);
  if (extra.length) say(`  also carried to ${LAB_SRC}, not compiled: ${extra.join(' ')}`);
  const jobs = lab.programs.filter((p) => p.role).map((p) => `${p.role} = ${p.source}`);
  say(jobs.length === 2 ? `  the exec tests' jobs from that folder: ${jobs.join(', ')}`
    : `  the exec tests' null and big jobs: ${jobs.length ? jobs.join(', ') : 'none'} in that folder (not supplied by the installer)`);
  const run = checkRun(lab);
  if (run) say(`  the acceptance check runs ${LAB_BIN}/${run.program}${run.args ? ' ' + run.args : ''}`);
}

type Outcome = { version: DistVersion; status: 'built' | 'up to date'; image: string; seconds: number };

async function buildVersion(o: Options, v: DistVersion, presence: Presence, lab: LabSources, planNotes: string[]): Promise<Outcome> {
  const t0 = Date.now();
  const steps: StepRecord[] = [];
  const timed = async <T>(step: string, f: () => T | Promise<T>): Promise<T> => {
    const s = process.hrtime.bigint();
    const val = await f();
    const hostSeconds = Number(process.hrtime.bigint() - s) / 1e9;
    steps.push({ step, hostSeconds });
    say(`${step}: ${secs(hostSeconds)}`);
    return val;
  };

  say(`===== ${v.name} (${v.release})${v.tested ? '' : ' — never run before: the files were not available to the installer\'s authors'}`);
  // 1. The distribution.
  say(`distribution: ${presence.dir}`);
  const dist: Distribution = await timed('1 distribution: verify sha256', () =>
    loadDistribution(presence.dir, {
      download: o.download && v.downloadUrl !== null,
      baseUrl: process.env.VAXLAB_DIST_URL ?? v.downloadUrl ?? '',
      files: v.files,
      known: v.known,
      log: say,
    }));
  for (const f of dist.files) say(`  ${f.name.padEnd(14)} ${f.sha256}  ${dist.sumsFrom === 'built-in' && !v.known[f.name] ? 'unverified' : `ok (${dist.sumsFrom})`}`);
  for (const n of dist.notes) say(`  note: ${n}`);

  const key = imageKey(v, dist, lab);
  const manifestPath = join(o.out, `${v.imageName}.json`);
  const imagePath = join(o.out, `${v.imageName}.dsk.gz`);
  const ra81Path = v.id === '4.3' ? join(o.out, `${v.imageName}-ra81.dsk.gz`) : null;
  if (!o.force && (await upToDate(manifestPath, imagePath, key)) && (ra81Path === null || existsSync(ra81Path))) {
    say(`${imagePath} is up to date (same inputs and lab sources, installer ${INSTALLER_VERSION}); nothing to do (--force rebuilds)`);
    return { version: v, status: 'up to date', image: imagePath, seconds: (Date.now() - t0) / 1000 };
  }

  const work = mkdtempSync(join(process.env.VAXLAB_WORK ?? tmpdir(), `vaxlab-install-${v.imageName}-`));
  logFile = join(work, 'install.log');
  writeFileSync(logFile, `vaxlab installer ${INSTALLER_VERSION}, ${v.name}, ${new Date().toISOString()}\n` +
    planNotes.map((n) => `[install] ${n}\n`).join(''));
  say(`work directory: ${work}`);
  let ok = false;
  try {
    // 2. The tape: the distribution's files in its order, then the lab's sources.
    const files = await timed('2a unpack the distribution', () => unpack(dist, work));
    let layout: readonly TapeFileSpec[] = v.tape;
    if (lab.files.length > 0) {
      const labTar = join(work, 'lab.tar');
      const entries = lab.files.map((f) => ({ name: f.name, data: f.data, mode: 0o644, mtime: LAB_MTIME }));
      await timed('2b the lab\'s sources as a tar archive', () => writeFileSync(labTar, makeTar(entries)));
      files.set(LAB_TAPE_FILE.name, labTar);
      layout = [...v.tape, LAB_TAPE_FILE];
    }
    const tapePath = join(work, `${v.imageName}.tap`);
    const tape: TapeInfo = await timed('2c assemble the tape', () => buildTape(tapePath, files, layout));
    for (const f of tape.files)
      say(`  tape file ${f.file}: ${f.name.padEnd(10)} ${f.records} records of ${f.recordSize} bytes — ${f.what}` +
        (f.padded ? ` (last record padded with ${f.padded} zero bytes)` : ''));
    for (const s of tape.skipped) {
      const spec = layout.find((l) => l.name === s);
      say(`  ${s} (${spec?.what ?? ''}) is not in the distribution: skipped; the files after it move up one`);
    }
    if (lab.files.length === 0) say(`  no lab sources: no tape file for ${LAB_SRC}`);
    const tapeLayout = readTapeLayout(tapePath);
    if (tapeLayout.length !== tape.files.length + 1 || tapeLayout[tapeLayout.length - 1]!.length !== 0)
      throw new InstallError(`the tape ${tapePath} does not read back as ${tape.files.length} files and an end mark`);
    const pos = (name: string): TapeInfo['files'][number] | undefined => tape.files.find((x) => x.name === name);
    const need = (name: string): TapeInfo['files'][number] => {
      const f = pos(name);
      if (!f) throw new InstallError(`no ${name} on the tape`);
      return f;
    };
    const labFile = pos(LAB_TAPE_FILE.name)?.file ?? null;
    const vars: Record<string, string | number> = {
      MINIROOT_FILE: need('miniroot').file,
      MINIROOT_RECORDS: need('miniroot').records,
      ROOTDUMP_FILE: need('rootdump').file,
      SRCSYS_FILE: need('srcsys.tar').file,
      SYS_DIR: v.sysDir,
      SYS_MKDIRS: mkdirsUnderUsr(v.sysDir),
      USR_EXTRACT: usrExtractLines(pos('usr.tar')?.file ?? null),
      LAB_EXTRACT: extractLines(labFile).join('\n'),
      LAB_BUILDS: buildLines(lab).join('\n'),
      LAB_TOOLS: toolLines(lab).join('\n'),
      LAB_CHECKS: checkLines(lab).join('\n'),
      NAMES_COUNT,
      LAB_ROOT_BIN,
      NAMES_LOOP: namesLoop(NAMES_COUNT),
      NAMES_COUNT_COMMAND,
    };
    // xtr (in the mini-root) restores "rsf 3": the dump must be the third file.
    if (vars.ROOTDUMP_FILE !== 2) throw new InstallError('the root dump must be tape file 2 for the mini-root\'s xtr');

    // 3. The empty pack.
    const partial = join(work, `${v.imageName}.dsk.partial`);
    await timed('3 blank RP06 image', () => createBlankRp06(partial));
    say(`  ${RP06_BYTES.toLocaleString('en-US')} bytes (${RP06.cylinders} x ${RP06.tracksPerCylinder} x ${RP06.sectorsPerTrack} x 512)`);

    // 4. The installation proper.  4.3BSD's transcripts are checked exactly;
    // 4.2BSD's (never seen) only for what any BSD of the kind prints.
    const exact = v.id === '4.3';
    const disk = ['--disk', `hp0=${partial}`, '--tape', `ts0=${tapePath}`];
    await emulate(o, work, '4a standalone copy: mini-root to hp0b', '1-copy-miniroot.vax',
      [...disk, '--standalone', 'tape'], vars,
      { must: [`Copy completed: ${vars.MINIROOT_RECORDS} records copied`], mustNot: FAILURE_SIGNS }, steps);
    await emulate(o, work, '4b mini-root: newfs hp0a, restore the root dump (xtr)', '2-miniroot-xtr.vax',
      [...disk, '--standalone', 'tape'], vars,
      { must: ['root device?', exact ? /\/dev\/rhp0a:\s+15884 sectors/ : /\/dev\/rhp0a:\s+\d+ sectors/,
        ...(exact ? ['Restore the dump image of the root'] : []), 'Root filesystem extracted'],
        mustNot: FAILURE_SIGNS }, steps);
    await emulate(o, work, `4c new root: devices, fstab, bad144, /usr, ${v.sysDir}`, '3-finish-root.vax',
      [...disk, '--boot', 'single'], vars,
      { must: [...(exact ? ['Changing root device to hp0a', 'cartridge serial number: 0', /\/dev\/rhp0g:\s+291192 sectors/]
        : [/\/dev\/rhp0g:\s+\d+ sectors/]),
        /\/sys\/h\/param\.h/, /\/dev\/hp0g\s+\d+\s+\d+/, '** Phase 5 - Check Cyl groups', 'syncing disks... done'],
        mustNot: FAILURE_SIGNS }, steps);
    const labRun = await emulate(o, work, `4d the lab's additions: ${plural(lab.programs.length, 'program')} built by the guest's cc, ` +
      `${NAMES_COUNT} files in ${LAB_NAMES}`, '4-lab-additions.vax', [...disk, '--boot', 'single'], vars,
      { must: [
        ...lab.files.map((f) => new RegExp(`\\s${escapeRe(f.name)}$`, 'm')),
        ...lab.programs.map((p) => new RegExp(`^${escapeRe(p.name)}: built$`, 'm')),
        new RegExp(`^names: ${NAMES_COUNT}$`, 'm'), '** Phase 5 - Check Cyl groups', 'syncing disks... done'],
      mustNot: [...FAILURE_SIGNS, LAB_FAILED] }, steps);
    const installed = parseBinListing(labRun.transcript);
    for (const p of lab.programs) {
      const got = installed.find((i) => i.name === p.name);
      if (!got || !/^-..x/.test(got.mode))
        throw new EmulatorError(`4d: ${LAB_BIN}/${p.name} is not in the listing as an executable file`, labRun.transcript);
    }
    for (const p of installed) say(`  ${LAB_BIN}/${p.name.padEnd(12)} ${String(p.bytes).padStart(7)} bytes  ${p.mode}`);
    // The copies on the root, where the experiments run them: each the same size as in /usr/lab/bin.
    const onRoot = parseBinListing(labRun.transcript, LAB_ROOT_BIN);
    const missing = installed.filter((p) => !onRoot.some((r) => r.name === p.name && r.bytes === p.bytes && /^-..x/.test(r.mode)));
    if (missing.length)
      throw new EmulatorError(`4d: not copied to ${LAB_ROOT_BIN}: ${missing.map((p) => p.name).join(' ')}`, labRun.transcript);
    say(`  copied to ${LAB_ROOT_BIN} on the root file system: ${plural(onRoot.length, 'program')}`);
    const dsk = join(work, `${v.imageName}.dsk`);
    renameSync(partial, dsk);

    // 5. Acceptance, on a scratch copy (the image ships as installed, halted cleanly).
    const scratch = join(work, 'check.dsk');
    copyFileSync(dsk, scratch);
    const run = checkRun(lab);
    const single = await emulate(o, work, '5a check: boot single-user; the lab\'s programs and names', '5-check-single.vax',
      ['--disk', `hp0=${scratch}`, '--boot', 'single'], vars,
      { must: [`${v.sysDir}/vax/locore.s`, '/vmunix', new RegExp(`^names: ${NAMES_COUNT}$`, 'm'),
        ...(run ? [new RegExp(`^check ${escapeRe(run.program)}: ran$`, 'm'), /\d+\.\d+ real\s+\d+\.\d+ user\s+\d+\.\d+ sys/] : [])],
      mustNot: ['not found', 'panic', /usage:/i, LAB_FAILED] }, steps);
    const listed = parseBinListing(single.transcript);
    const absent = lab.programs.filter((p) => !listed.some((l) => l.name === p.name && /^-..x/.test(l.mode)));
    if (absent.length) throw new EmulatorError(`5a: not executable in ${LAB_BIN}: ${absent.map((p) => p.name).join(' ')}`, single.transcript);
    say(run ? `  ${LAB_BIN} holds ${plural(listed.length, 'program')}; ${run.program} ran; ${LAB_NAMES} holds ${NAMES_COUNT} files`
      : `  no benchmark programs to run (${LAB_BIN} is empty); ${LAB_NAMES} holds ${NAMES_COUNT} files`);
    await emulate(o, work, '5b check: boot multi-user to the login prompt', '6-check-multi.vax', ['--disk', `hp0=${scratch}`, '--boot', 'multi'],
      vars, { must: [/\/dev\/hp0a: \d+ files/, /\/dev\/rhp0g: \d+ files/, 'login:', /\/dev\/hp0g\s+\d+/],
        mustNot: ['UNEXPECTED INCONSISTENCY', 'panic', 'Automatic reboot failed'] }, steps);
    rmSync(scratch);

    // 7-8. 4.3BSD on an RA81: the file systems copied into the uda
    // driver's partitions, fstab for the RA81, then a multi-user check.
    let ra81: { gz: Awaited<ReturnType<typeof gzipFile>>; path: string } | null = null;
    if (ra81Path !== null) {
      const raDsk = join(work, `${v.imageName}-ra81.dsk`);
      await timed('7a copy / and /usr to an RA81 (hp0a to ra0a, hp0g to ra0h)', () => copyRp06ToRa81(dsk, raDsk));
      await emulate(o, work, '7b the RA81 single-user: /etc/fstab, /usr checked', '7-ra81.vax',
        ['--disk', `ra0=${raDsk}:RA81`, '--boot', 'single'], vars,
        { must: ['uda0 at uba0 csr 172150', 'ra0 at uda0 slave 0', 'Changing root device to ra0a', '/dev/ra0h:/usr:rw:1:2',
          '** Phase 5 - Check Cyl groups', /\/dev\/ra0h\s+\d+\s+\d+/, 'syncing disks... done'],
        mustNot: FAILURE_SIGNS }, steps);
      const raScratch = join(work, 'check-ra81.dsk');
      copyFileSync(raDsk, raScratch);
      await emulate(o, work, '8 check: the RA81 multi-user to the login prompt', '8-check-ra81.vax',
        ['--disk', `ra0=${raScratch}:RA81`, '--boot', 'multi'], vars,
        { must: [/\/dev\/ra0a: \d+ files/, /\/dev\/rra0h: \d+ files/, 'login:', /\/dev\/ra0h\s+\d+/],
          mustNot: ['UNEXPECTED INCONSISTENCY', 'panic', 'Automatic reboot failed'] }, steps);
      rmSync(raScratch);
      mkdirSync(o.out, { recursive: true });
      const gzRa = await timed('8b gzip -9 the RA81 image', () => gzipFile(raDsk, ra81Path));
      say(`  ${ra81Path}: ${gzRa.bytes.toLocaleString('en-US')} bytes (sha256 ${gzRa.sha256}), ` +
        `${gzRa.uncompressedBytes.toLocaleString('en-US')} uncompressed`);
      ra81 = { gz: gzRa, path: ra81Path };
      rmSync(raDsk);
    }

    // 6. The outputs.
    mkdirSync(o.out, { recursive: true });
    const gz = await timed('6 gzip -9 the image', () => gzipFile(dsk, imagePath));
    say(`  ${imagePath}: ${gz.bytes.toLocaleString('en-US')} bytes (sha256 ${gz.sha256}), ` +
      `${gz.uncompressedBytes.toLocaleString('en-US')} uncompressed (sha256 ${gz.uncompressedSha256})`);
    const totalSeconds = (Date.now() - t0) / 1000;
    const usrFrom = pos('usr.tar') ? 'usr.tar' : 'no usr.tar';
    const manifest = {
      name: v.imageName,
      description: `${v.name} (${v.release}) on an RP06, installed from the distribution tape files by the vaxlab installer ` +
        `on vaxlab's own 780, with the lab's programs compiled in the guest`,
      installerVersion: INSTALLER_VERSION,
      cacheKey: key,
      buildDate: new Date().toISOString(),
      emulatorCommit: gitCommit(),
      distribution: {
        name: v.name,
        release: v.release,
        source: dist.dir,
        checkedAgainst: dist.sumsFrom,
        files: dist.files.map((f) => ({ name: f.name, sha256: f.sha256, bytes: f.bytes })),
        notInDistribution: tape.skipped,
        ...(v.tested ? {} : { note: 'the installer had never been run on this version before this build' }),
      },
      tape: {
        format: 'SIMH .tap',
        files: tape.files.map((f) => ({ file: f.file, name: f.name, recordSize: f.recordSize, records: f.records, what: f.what })),
      },
      image: {
        file: `${v.imageName}.dsk.gz`,
        compression: 'gzip -9',
        sha256: gz.sha256,
        bytes: gz.bytes,
        uncompressedSha256: gz.uncompressedSha256,
        uncompressedBytes: gz.uncompressedBytes,
      },
      disk: {
        model: RP06.model,
        geometry: { cylinders: RP06.cylinders, tracks: RP06.tracksPerCylinder, sectors: RP06.sectorsPerTrack, sectorBytes: RP06.sectorBytes },
        partitions: RP06_PARTITIONS,
        fileSystems: [
          { partition: 'a', device: '/dev/hp0a', mountPoint: '/', contents: 'the restored root dump' },
          { partition: 'g', device: '/dev/hp0g', mountPoint: '/usr',
            contents: `${v.sysDir} (srcsys.tar), ${usrFrom === 'usr.tar' ? 'the rest of /usr (usr.tar)' : 'no usr.tar'}, /usr/lab` },
        ],
        swap: 'b',
        badSectorTable: 'empty DEC-144 table (serial 0) on the last track (bad144 rp06 hp0 0)',
      },
      boot: { bootProgram: '/boot', kernel: '/vmunix', kernelConfig: 'GENERIC', rootPassword: 'none' },
      ...(ra81 ? {
        ra81: {
          description: 'the same system on an RA81 (UDA50 unit 0): hp0a copied to ra0a and hp0g to ra0h, /etc/fstab for ' +
            'them, /usr checked; boots single- and multi-user with vax780 --disk ra0=IMAGE:RA81',
          file: `${v.imageName}-ra81.dsk.gz`,
          compression: 'gzip -9',
          sha256: ra81.gz.sha256,
          bytes: ra81.gz.bytes,
          uncompressedSha256: ra81.gz.uncompressedSha256,
          uncompressedBytes: ra81.gz.uncompressedBytes,
          disk: {
            model: RA81.model,
            blocks: RA81_BYTES / 512,
            geometry: { cylinders: RA81.cylinders, tracks: RA81.tracksPerCylinder, sectors: RA81.sectorsPerTrack, sectorBytes: 512 },
            partitions: RA81_PARTITIONS,
            fileSystems: [
              { partition: 'a', device: '/dev/ra0a', mountPoint: '/' },
              { partition: 'h', device: '/dev/ra0h', mountPoint: '/usr' },
            ],
            swap: 'b',
          },
          bootDevice: 'R10 = 9 (ra, unit 0, partition a)',
        },
      } : {}),
      lab: labManifest(lab, installed, labFile),
      steps: steps.map((s) => ({ ...s, hostSeconds: Number(s.hostSeconds.toFixed(3)) })),
      totalHostSeconds: Number(totalSeconds.toFixed(2)),
    };
    writeJsonAtomic(manifestPath, manifest);
    writeFileSync(join(o.out, `${v.imageName}.log`), scrubHostPaths(readFileSync(logFile, 'latin1')), 'latin1');
    say(`${manifestPath} written; ${v.name} took ${secs(totalSeconds)}`);
    ok = true;
    return { version: v, status: 'built', image: imagePath, seconds: totalSeconds };
  } finally {
    if (ok && !o.keepWork) {
      rmSync(work, { recursive: true, force: true });
    } else if (!ok) {
      say(`failed: the work directory ${work} is kept (console transcripts in ${logFile})`);
    } else {
      say(`work directory kept: ${work}`);
    }
    logFile = null;
  }
}

// ------------------------------------------------------------------ kernels

/** Virtual seconds the whole kernel build may take (GENERIC alone is about
 * 2,600 on the 780 model: 43 minutes, as on a real 780). */
const KERNEL_BUILD_TIMEOUT = 6 * 3600;

/** The kernels' part of the manifest. */
interface KernelManifest {
  cacheKey: string;
  sources: string;
  builtOn: string;
  tape: string;
  reference: KernelCheck;
  kernels: {
    name: string; label: string; paper: string; description: string;
    patches: { file: string; sha256: string; touches: string[] }[];
    builtIn: string; compiled: string[];
    file: string; sha256: string; bytes: number; uncompressedSha256: string; uncompressedBytes: number;
    text: number; data: number; bss: number;
    check: KernelCheck;
  }[];
  buildStep: StepRecord;
  totalHostSeconds: number;
}

interface KernelCheck {
  kernel: string;
  banner: string;
  runs: Record<string, { real: number; user: number; sys: number } | null>;
  virtualSeconds: number | null;
  hostSeconds: number;
}

/** The commands of scripts/10-check-kernel.vax whose times are recorded. */
const CHECK_RUNS = ['/lab/bin/syscall 10000', '/lab/bin/forks 100 0', '/lab/bin/execs 100 0 /lab/bin/nulljob', 'ls -l > /dev/null'];

function kernelsKey(imageKey: string, imageSha: string, src: KernelSources): string {
  return createHash('sha256').update(JSON.stringify({ imageKey, imageSha, sources: kernelSourcesDigest(src), scripts: scriptsDigest(SCRIPTS) }))
    .digest('hex');
}

async function gunzipTo(src: string, dest: string): Promise<void> {
  await pipeline(createReadStream(src, { highWaterMark: 1 << 20 }), createGunzip(), createWriteStream(dest));
}

/** The kernels already shipped, if the manifest lists them under this key and every file is there intact. */
async function kernelsUpToDate(out: string, km: KernelManifest | undefined, key: string): Promise<boolean> {
  if (!km || km.cacheKey !== key) return false;
  for (const k of km.kernels) {
    const f = join(out, k.file);
    if (!existsSync(f) || (await sha256File(f)) !== k.sha256) return false;
  }
  return true;
}

/** --check's word on the kernels: up to date, or what would be built. */
async function kernelsPlan(o: Options, imageCurrent: Record<string, unknown> | null): Promise<string> {
  let src: KernelSources;
  try {
    src = findKernelSources(o.kernelSources);
  } catch (e) {
    if (e instanceof KernelSourceError) return `cannot be built: ${e.message}`;
    throw e;
  }
  const names = src.kernels.map((k) => k.name).join(', ');
  if (!imageCurrent) return `would be built after the image (${names})`;
  const m = imageCurrent as { cacheKey: string; image: { uncompressedSha256: string }; kernels?: KernelManifest };
  const key = kernelsKey(m.cacheKey, m.image.uncompressedSha256, src);
  return (await kernelsUpToDate(o.out, m.kernels, key)) ? `up to date (${names})` : `would be built (${names})`;
}

/** A kernel's line "4.3 BSD UNIX #N: DATE" and the next (USER@HOST:DIR). */
function bannerOf(transcript: string): string {
  const m = /4\.3 BSD UNIX #\d+: [^\r\n]*\r?\n\s*(\S+)/.exec(transcript);
  return m ? `${m[0].split(/\r?\n/)[0]!.trim()} ${m[1]}` : '';
}

async function checkKernel(o: Options, work: string, base: string, label: string, bootArgs: string[], bannerDir: string,
  steps: StepRecord[]): Promise<KernelCheck> {
  const disk = join(work, 'check.dsk');
  copyFileSync(base, disk);
  const r = await emulate(o, work, `10 check ${label}: boots, runs the lab's programs`, '10-check-kernel.vax',
    ['--disk', `hp0=${disk}`, ...bootArgs, '--boot', 'single'], { KERNEL_BANNER: `:${bannerDir}` },
    { must: [`:${bannerDir}`, ...CHECK_RUNS.map((c) => new RegExp(`# /bin/time ${escapeRe(c)}\\r?\\n[^#]*\\d+\\.\\d+ real`))],
      mustNot: ['panic', 'not found', /[Ee]rror/, 'Segmentation', 'core dumped'] }, steps);
  rmSync(disk);
  return {
    kernel: label,
    banner: bannerOf(r.transcript),
    runs: Object.fromEntries(CHECK_RUNS.map((c) => [c, timeOf(r.transcript, c)])),
    virtualSeconds: r.virtualSeconds,
    hostSeconds: Number(r.hostSeconds.toFixed(3)),
  };
}

/** GENERIC from source and the variants, built in the guest on a scratch
 * copy of the image just installed (or found up to date), read back,
 * booted and checked, then shipped beside the image and listed in its
 * manifest.  Nothing is shipped unless every kernel built and passed. */
async function buildKernels(o: Options, v: DistVersion, manifestPath: string): Promise<'built' | 'up to date'> {
  const t0 = Date.now();
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
    cacheKey: string; image: { file: string; uncompressedSha256: string }; kernels?: KernelManifest;
  };
  let src: KernelSources;
  try {
    src = findKernelSources(o.kernelSources);
  } catch (e) {
    if (e instanceof KernelSourceError) throw new InstallError(`kernels: ${e.message}`);
    throw e;
  }
  const key = kernelsKey(manifest.cacheKey, manifest.image.uncompressedSha256, src);
  say(`===== ${v.name} kernels: ${src.kernels.map((k) => k.name).join(', ')} (sources: ${repoPath(src.dir)})`);
  if (!o.force && (await kernelsUpToDate(o.out, manifest.kernels, key))) {
    say(`kernels are up to date (same image and kernel sources); nothing to do`);
    return 'up to date';
  }
  const work = mkdtempSync(join(process.env.VAXLAB_WORK ?? tmpdir(), `vaxlab-kernels-${v.imageName}-`));
  logFile = join(work, 'kernels.log');
  writeFileSync(logFile, `vaxlab installer ${INSTALLER_VERSION}, ${v.name} kernels, ${new Date().toISOString()}\n`);
  say(`work directory: ${work}`);
  const steps: StepRecord[] = [];
  let ok = false;
  try {
    const base = join(work, 'installed.dsk');
    await gunzipTo(join(o.out, manifest.image.file), base);
    if ((await sha256File(base)) !== manifest.image.uncompressedSha256)
      throw new InstallError(`${manifest.image.file} does not hold the image its manifest describes`);
    const tarPath = join(work, 'kernels.tar');
    writeFileSync(tarPath, makeTar(kernelTarEntries(src, LAB_MTIME)));
    const tapePath = join(work, 'kernels.tap');
    buildTape(tapePath, new Map([[KERNELS_TAPE_FILE.name, tarPath]]), [KERNELS_TAPE_FILE]);
    say(`  tape file 0: kernels.tar: ${src.files.map((f) => f.guestName).join(' ')} ${BUILD_SCRIPT}`);

    // 7a. Build them all in one guest session.
    const build = join(work, 'build.dsk');
    copyFileSync(base, build);
    let r: RunResult;
    try {
      r = await emulate(o, work, `9 build ${src.kernels.length} kernels in the guest: ${src.kernels.map((k) => k.name).join(', ')}`,
        '9-build-kernels.vax', ['--disk', `hp0=${build}`, '--tape', `ts0=${tapePath}`, '--boot', 'single'],
        // A glob, not the list: a typed line longer than the terminal's input queue (255) would be cut.
        { KERNEL_DIR: KERNEL_GUEST_DIR, BUILD_SCRIPT, KERNEL_PATHS: '/usr/src/sys/GENERIC/vmunix /usr/src/sys-*/GENERIC/vmunix',
          KERNEL_TIMEOUT: KERNEL_BUILD_TIMEOUT },
        { must: [/^applydiff: built\r?$/m, /^kernels: finished with status 0\r?$/m,
          ...src.kernels.map((k) => new RegExp(`^kernel ${escapeRe(k.name)}: built\\r?$`, 'm'))],
        mustNot: [/^[^#\n]*: FAILED/m, 'panic'] }, steps);
    } catch (e) {
      if (e instanceof EmulatorError) {
        const f = findBuildFailure(e.transcript);
        if (f) throw new EmulatorError(`kernel ${f.kernel}: ${f.why} (the guest's output follows)`, f.output);
      }
      throw e;
    }
    // 7b. Read them back from the scratch disk's /usr.
    const g = RP06_PARTITIONS.find((p) => p.name === 'g')!;
    const usr = join(work, 'usr.fs');
    const buf = readFileSync(build);
    writeFileSync(usr, buf.subarray(g.offset * 512, (g.offset + g.sectors) * 512));
    const listed = r.transcript.replace(/\r/g, '');
    const built = src.kernels.map((k) => {
      const path = kernelGuestPath(k);
      const res = spawnSync(o.bsdfs, [usr, 'cat', path.replace(/^\/usr/, '')], { maxBuffer: 64 << 20 });
      if (res.status !== 0) throw new InstallError(`kernel ${k.name}: cannot read ${path} from the disk: ${res.stderr.toString().trim()}`);
      const data = res.stdout;
      const sizes = aoutSizes(data);
      if (!sizes) throw new InstallError(`kernel ${k.name}: ${path} is not an a.out file`);
      const ls = new RegExp(`\\s(\\d+) \\w{3} +\\d+ [\\d:]+ ${escapeRe(path)}$`, 'm').exec(listed);
      if (!ls || Number(ls[1]) !== data.length)
        throw new InstallError(`kernel ${k.name}: ${path} read back as ${data.length} bytes; the guest's ls -l says ${ls?.[1] ?? 'nothing'}`);
      const file = join(work, `${k.name}.vmunix`);
      writeFileSync(file, data);
      say(`  ${k.name.padEnd(16)} ${path}: ${data.length} bytes, text ${sizes.text} data ${sizes.data} bss ${sizes.bss}; ` +
        `compiled: ${compiledFiles(r.transcript, k.name).length} files`);
      return { k, file, data, sizes };
    });
    rmSync(usr);
    rmSync(build);

    // 7c. Each boots and runs the lab's programs; the distributed /vmunix too, for comparison.
    const reference = await checkKernel(o, work, base, 'the distributed /vmunix', ['--direct'], '/usr/src/sys/GENERIC', steps);
    const checks: KernelCheck[] = [];
    for (const b of built) {
      const c = await checkKernel(o, work, base, `kernel ${b.k.name}`, ['--kernel-file', b.file], kernelBuildDir(b.k), steps);
      if (c.banner === reference.banner) throw new InstallError(`kernel ${b.k.name}: it booted with the distributed kernel's banner`);
      checks.push(c);
      const runs = CHECK_RUNS.map((cmd) => `${cmd.split(' ')[0]!.split('/').pop()} ${c.runs[cmd]?.sys ?? '?'}`).join(', ');
      say(`  ${b.k.name}: ${c.banner}; system seconds: ${runs}`);
    }

    // 8. Ship them: gzip -9 each, all or none.
    mkdirSync(o.out, { recursive: true });
    const shipped: KernelManifest['kernels'] = [];
    const partials: [string, string][] = [];
    for (const [i, b] of built.entries()) {
      const name = kernelFileName(v.imageName, b.k.name);
      const gz = await gzipFile(b.file, join(work, name));
      partials.push([join(work, name), join(o.out, name)]);
      shipped.push({
        name: b.k.name, label: b.k.label, paper: b.k.paper, description: b.k.description,
        patches: b.k.patches.map((p) => {
          const info = src.patches.find((x) => x.file === p)!;
          return { file: `experiments/kernels/patches/${p}`, sha256: info.sha256, touches: info.touches };
        }),
        builtIn: kernelBuildDir(b.k), compiled: compiledFiles(r.transcript, b.k.name),
        file: name, sha256: gz.sha256, bytes: gz.bytes, uncompressedSha256: gz.uncompressedSha256, uncompressedBytes: gz.uncompressedBytes,
        text: b.sizes.text, data: b.sizes.data, bss: b.sizes.bss,
        check: checks[i]!,
      });
    }
    for (const [from, to] of partials) renameSync(from, to);
    const totalHostSeconds = Number(((Date.now() - t0) / 1000).toFixed(2));
    const km: KernelManifest = {
      cacheKey: key,
      sources: repoPath(src.dir),
      builtOn: `a scratch copy of ${manifest.image.file}, single-user; sources in ${KERNEL_GUEST_DIR}; GENERIC in ` +
        `/usr/src/sys/GENERIC, each variant in /usr/src/sys-NAME/GENERIC (mkvariant.sh)`,
      tape: 'kernels.tar, the only file of its own tape',
      reference,
      kernels: shipped,
      buildStep: { ...steps[0]!, hostSeconds: Number(steps[0]!.hostSeconds.toFixed(3)) },
      totalHostSeconds,
    };
    manifest.kernels = km;
    writeJsonAtomic(manifestPath, manifest);
    writeFileSync(join(o.out, `${v.imageName}-kernels.log`), scrubHostPaths(readFileSync(logFile, 'latin1')), 'latin1');
    say(`${shipped.length} kernels written to ${repoPath(o.out)} (${shipped.map((k) => k.file).join(', ')}); ` +
      `the kernels took ${secs(totalHostSeconds)}`);
    ok = true;
    return 'built';
  } finally {
    if (ok && !o.keepWork) rmSync(work, { recursive: true, force: true });
    else if (!ok) say(`failed: the work directory ${work} is kept (console transcripts in ${logFile})`);
    else say(`work directory kept: ${work}`);
    logFile = null;
  }
}

/** After a failed kernel build: the kernels of an earlier build go too (they
 * were not built from the sources now there), and the manifest's list of them. */
function dropKernels(out: string, manifestPath: string): void {
  if (!existsSync(manifestPath)) return;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & { kernels?: KernelManifest };
  if (!manifest.kernels) return;
  for (const k of manifest.kernels.kernels) rmSync(join(out, k.file), { force: true });
  delete manifest.kernels;
  writeJsonAtomic(manifestPath, manifest);
  say(`the kernels of the earlier build were removed from ${repoPath(out)} and the manifest`);
}

function labManifest(lab: LabSources, installed: InstalledProgram[], tapeFile: number | null): unknown {
  const run = checkRun(lab);
  return {
    sourceDir: repoPath(lab.dir),
    transfer: tapeFile === null ? 'none (no sources)'
      : `tape file ${tapeFile}: a V7-format tar archive made by the installer, extracted in ${LAB_SRC} with tar xpbf 20 /dev/rmt12`,
    readmeBuildLine: lab.readmeBuild,
    sources: lab.files.map((f) => ({ name: f.name, installedAs: `${LAB_SRC}/${f.name}`, sha256: f.sha256, bytes: f.bytes })),
    programs: lab.programs.map((p) => ({
      name: p.name,
      source: p.source,
      build: p.build,
      buildFrom: p.buildFrom,
      installedAs: `${LAB_BIN}/${p.name}`,
      bytes: installed.find((i) => i.name === p.name)?.bytes ?? null,
      ...(p.role ? { role: p.role } : {}),
    })),
    names: { dir: LAB_NAMES, files: NAMES_COUNT, names: 'f000 ... f' + String(NAMES_COUNT - 1).padStart(3, '0'),
      madeBy: 'a Bourne shell loop in the guest', for: 'section 4.1.1: ls -l of a directory with 600 files' },
    acceptanceRun: run ? `/bin/time ${LAB_BIN}/${run.program}${run.args ? ' ' + run.args : ''}` : null,
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();

  // Which versions: every one asked for whose files are there.  4.3BSD is
  // always wanted when asked for (its files are downloaded when missing).
  const asked = o.versions === 'all' ? VERSIONS : [versionById(o.versions)];
  const presences = asked.map((v) => findDistribution(v, o.dist[v.id]!));
  const planNotes: string[] = [];
  const toBuild: Presence[] = [];
  for (const p of presences) {
    if (p.complete || p.version.downloadUrl !== null) toBuild.push(p);
  }
  for (const p of presences) {
    if (toBuild.includes(p)) continue;
    const msg = absentMessage(p, toBuild.map((b) => b.version.name));
    if (o.versions !== 'all') throw new InstallError(msg.replace(/: skipping .*$/, ''));
    planNotes.push(msg);
    say(msg);
  }
  for (const p of toBuild) {
    if (p.optionalPresent.length) say(`${p.version.name}: also found ${p.optionalPresent.join(', ')} in ${p.dir}`);
  }
  const lab = findLabSources(o.guest);
  describeLab(lab);

  if (o.check) {
    for (const p of toBuild) {
      const d = await loadDistribution(p.dir, { download: false, baseUrl: '', files: p.version.files, known: p.version.known, log: say })
        .catch((e: unknown) => {
          if (e instanceof DistError) return e;
          throw e;
        });
      if (d instanceof DistError) {
        say(`${p.version.name}: ${d.message}`);
        continue;
      }
      const image = join(o.out, `${p.version.imageName}.dsk.gz`);
      const current = await upToDate(join(o.out, `${p.version.imageName}.json`), image, imageKey(p.version, d, lab));
      say(`${p.version.name}: ${d.files.map((f) => f.name).join(', ')} in ${d.dir} ` +
        `${d.sumsFrom === 'built-in' && Object.keys(p.version.known).length === 0 ? 'found (no sums to check against)' : `verified (${d.sumsFrom})`}; ` +
        `${current ? `${image} is up to date` : `${image} would be built`}`);
      if (p.version.id === '4.3' && o.kernels) say(`${p.version.name} kernels: ${await kernelsPlan(o, current)}`);
    }
    return;
  }

  if (!existsSync(o.vax780))
    throw new InstallError(`the emulator ${o.vax780} is not built: run make -C emu native (npm run image does)`);

  const outcomes: Outcome[] = [];
  const failures: string[] = [];
  const kernelOutcomes: string[] = [];
  for (const p of toBuild) {
    let outcome: Outcome;
    try {
      outcome = await buildVersion(o, p.version, p, lab, planNotes);
      outcomes.push(outcome);
    } catch (e) {
      report(e);
      failures.push(p.version.name);
      continue;
    }
    const manifestPath = join(o.out, `${p.version.imageName}.json`);
    if (p.version.id !== '4.3') {
      kernelOutcomes.push(`${p.version.name} kernels: not built (the variants patch 4.3BSD's sources)`);
    } else if (!o.kernels) {
      kernelOutcomes.push(`${p.version.name} kernels: not built (--no-kernels)`);
    } else {
      try {
        kernelOutcomes.push(`${p.version.name} kernels: ${await buildKernels(o, p.version, manifestPath)}`);
      } catch (e) {
        report(e);
        dropKernels(o.out, manifestPath);
        failures.push(`${p.version.name} kernels`);
      }
    }
    // The pack in chunks and the page's machine snapshots (installer/lib/shipped.ts), after the kernels: Table 2's
    // machine boots the paper's kernel and the paging tables' like-4.2 (ExperimentSpec.kernel), two of them.
    try {
      kernelOutcomes.push(`${p.version.name} chunked image and machine snapshots: ${await buildShipped(o.out, manifestPath, say)}`);
    } catch (e) {
      report(e);
      failures.push(`${p.version.name} chunked image and machine snapshots`);
    }
  }
  const summary = [
    ...outcomes.map((r) => `${r.version.name}: ${r.status} (${repoPath(r.image)})`),
    ...kernelOutcomes,
    ...failures.map((n) => `${n}: FAILED`),
    ...presences.filter((p) => !toBuild.includes(p)).map((p) => `${p.version.name}: not built (files not found in ${p.dir})`),
  ];
  say(`summary: ${summary.join('; ')}; ${secs((Date.now() - t0) / 1000)} in all`);
  if (failures.length) process.exit(1);
}

function report(e: unknown): void {
  if (e instanceof EmulatorError) {
    const tail = e.transcript.replace(/\r/g, '').split('\n').slice(-25).join('\n');
    process.stderr.write(`[install] ERROR: ${e.message}\n----- last console output -----\n${tail}\n-------------------------------\n`);
  } else if (e instanceof DistError || e instanceof InstallError) {
    process.stderr.write(`[install] ERROR: ${e.message}\n`);
  } else {
    process.stderr.write(`[install] ERROR: ${e instanceof Error ? e.stack : String(e)}\n`);
  }
}

main().catch((e: unknown) => {
  report(e);
  process.exit(1);
});
