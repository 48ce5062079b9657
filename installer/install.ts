// vaxlab's 4.3BSD installer: builds an RP06 system disk from the June 1986
// distribution tape files with our own VAX-11/780 (emu/build/native/vax780),
// following "Installing and Operating 4.3BSD on the VAX", section 2.
//
//   node --import tsx installer/install.ts [--dist DIR] [--out DIR] [--force]
//        [--keep-work] [--no-download] [--verbose]
//   npm run image
//
// Output: OUT/43bsd.dsk.gz (gzip -9 of the raw RP06 image), OUT/43bsd.json
// (the manifest) and OUT/43bsd.log (every console transcript); OUT is
// web/public/images.  A re-run with the same inputs, installer version and
// console scripts finds the manifest up to date and does nothing.
// See installer/README.md for the steps.

import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { DEFAULT_DIST_URL, DistError, defaultDistDir, loadDistribution, unpack } from './lib/dist';
import { RP06, RP06_BYTES, RP06_PARTITIONS, createBlankRp06 } from './lib/disk';
import { cacheKey, gzipFile, scriptsDigest, upToDate, writeJsonAtomic } from './lib/output';
import { TAPE_LAYOUT, buildTape, readTapeLayout } from './lib/tape';
import type { TapeInfo } from './lib/tape';
import { EmulatorError, loadScript, runVax780 } from './lib/vax780';
import type { RunResult } from './lib/vax780';

const INSTALLER_VERSION = '0.1.0';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const SCRIPTS = join(import.meta.dirname, 'scripts');
const IMAGE_NAME = '43bsd';

interface Options {
  dist: string;
  out: string;
  vax780: string;
  force: boolean;
  keepWork: boolean;
  download: boolean;
  verbose: boolean;
}

class InstallError extends Error {}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    dist: defaultDistDir(REPO_ROOT),
    out: join(REPO_ROOT, 'web/public/images'),
    vax780: process.env.VAXLAB_VAX780 ?? join(REPO_ROOT, 'emu/build/native/vax780'),
    force: false,
    keepWork: false,
    download: true,
    verbose: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new InstallError(`${a} needs a value`);
      return v;
    };
    if (a === '--dist') o.dist = resolve(next());
    else if (a === '--out') o.out = resolve(next());
    else if (a === '--vax780') o.vax780 = resolve(next());
    else if (a === '--force') o.force = true;
    else if (a === '--keep-work') o.keepWork = true;
    else if (a === '--no-download') o.download = false;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: install.ts [--dist DIR] [--out DIR] [--vax780 PATH] [--force] [--keep-work] ' +
        '[--no-download] [--verbose]\n');
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

function check(step: string, transcript: string, c: Checks): void {
  const text = transcript.replace(/\r/g, '');
  for (const m of c.must) {
    const ok = typeof m === 'string' ? text.includes(m) : m.test(text);
    if (!ok) throw new EmulatorError(`${step}: the console output lacks ${String(m)}`, transcript);
  }
  for (const m of c.mustNot ?? []) {
    const hit = typeof m === 'string' ? text.split('\n').find((l) => l.includes(m)) : text.split('\n').find((l) => m.test(l));
    if (hit !== undefined) throw new EmulatorError(`${step}: the console output says ${JSON.stringify(hit.trim())}`, transcript);
  }
}

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

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const steps: StepRecord[] = [];
  const timed = async <T>(step: string, f: () => T | Promise<T>): Promise<T> => {
    const s = process.hrtime.bigint();
    const v = await f();
    const hostSeconds = Number(process.hrtime.bigint() - s) / 1e9;
    steps.push({ step, hostSeconds });
    say(`${step}: ${secs(hostSeconds)}`);
    return v;
  };

  if (!existsSync(o.vax780))
    throw new InstallError(`the emulator ${o.vax780} is not built: run make -C emu native (npm run image does)`);

  // 1. The distribution.
  say(`distribution: ${o.dist}`);
  const dist = await timed('1 distribution: verify sha256', () =>
    loadDistribution(o.dist, { download: o.download, baseUrl: process.env.VAXLAB_DIST_URL ?? DEFAULT_DIST_URL, log: say }));
  for (const f of dist.files) say(`  ${f.name.padEnd(14)} ${f.sha256}  ok (${dist.sumsFrom})`);
  for (const n of dist.notes) say(`  note: ${n}`);

  const key = cacheKey(dist.files, INSTALLER_VERSION, scriptsDigest(SCRIPTS));
  const manifestPath = join(o.out, `${IMAGE_NAME}.json`);
  const imagePath = join(o.out, `${IMAGE_NAME}.dsk.gz`);
  if (!o.force && (await upToDate(manifestPath, imagePath, key))) {
    say(`${imagePath} is up to date (same inputs, installer ${INSTALLER_VERSION}); nothing to do (--force rebuilds)`);
    return;
  }

  const work = mkdtempSync(join(process.env.VAXLAB_WORK ?? tmpdir(), 'vaxlab-install-'));
  logFile = join(work, 'install.log');
  writeFileSync(logFile, `vaxlab installer ${INSTALLER_VERSION}, ${new Date().toISOString()}\n`);
  say(`work directory: ${work}`);
  let ok = false;
  try {
    // 2. The tape.
    const files = await timed('2a unpack the distribution', () => unpack(dist, work));
    const tapePath = join(work, `${IMAGE_NAME}.tap`);
    const tape: TapeInfo = await timed('2b assemble the tape', () => buildTape(tapePath, files));
    for (const f of tape.files)
      say(`  tape file ${f.file}: ${f.name.padEnd(10)} ${f.records} records of ${f.recordSize} bytes — ${f.what}` +
        (f.padded ? ` (last record padded with ${f.padded} zero bytes)` : ''));
    for (const s of tape.skipped) {
      const spec = TAPE_LAYOUT.find((l) => l.name === s);
      say(`  ${s} (${spec?.what ?? ''}) is not in the distribution: skipped; the files after it move up one`);
    }
    const layout = readTapeLayout(tapePath);
    if (layout.length !== tape.files.length + 1 || layout[layout.length - 1]!.length !== 0)
      throw new InstallError(`the tape ${tapePath} does not read back as ${tape.files.length} files and an end mark`);
    const pos = (name: string): TapeInfo['files'][number] => {
      const f = tape.files.find((x) => x.name === name);
      if (!f) throw new InstallError(`no ${name} on the tape`);
      return f;
    };
    const vars = {
      MINIROOT_FILE: pos('miniroot').file,
      MINIROOT_RECORDS: pos('miniroot').records,
      ROOTDUMP_FILE: pos('rootdump').file,
      SRCSYS_FILE: pos('srcsys.tar').file,
    };
    // xtr (in the mini-root) restores "rsf 3": the dump must be the third file.
    if (vars.ROOTDUMP_FILE !== 2) throw new InstallError('the root dump must be tape file 2 for the mini-root\'s xtr');

    // 3. The empty pack.
    const partial = join(work, `${IMAGE_NAME}.dsk.partial`);
    await timed('3 blank RP06 image', () => createBlankRp06(partial));
    say(`  ${RP06_BYTES.toLocaleString('en-US')} bytes (${RP06.cylinders} x ${RP06.tracksPerCylinder} x ${RP06.sectorsPerTrack} x 512)`);

    // 4. The installation proper.
    const disk = ['--disk', `hp0=${partial}`, '--tape', `ts0=${tapePath}`];
    await emulate(o, work, '4a standalone copy: mini-root to hp0b', '1-copy-miniroot.vax',
      [...disk, '--standalone', 'tape'], vars,
      { must: [`Copy completed: ${vars.MINIROOT_RECORDS} records copied`], mustNot: FAILURE_SIGNS }, steps);
    await emulate(o, work, '4b mini-root: newfs hp0a, restore the root dump (xtr)', '2-miniroot-xtr.vax',
      [...disk, '--standalone', 'tape'], vars,
      { must: ['root device?', /\/dev\/rhp0a:\s+15884 sectors/, 'Restore the dump image of the root', 'Root filesystem extracted'],
        mustNot: FAILURE_SIGNS }, steps);
    await emulate(o, work, '4c new root: devices, fstab, bad144, /usr, /usr/src/sys', '3-finish-root.vax',
      [...disk, '--boot', 'single'], vars,
      { must: ['Changing root device to hp0a', 'cartridge serial number: 0', /\/dev\/rhp0g:\s+291192 sectors/,
        /\/sys\/h\/param\.h/, /\/dev\/hp0g\s+\d+\s+\d+/, '** Phase 5 - Check Cyl groups', 'syncing disks... done'],
        mustNot: FAILURE_SIGNS }, steps);
    const dsk = join(work, `${IMAGE_NAME}.dsk`);
    renameSync(partial, dsk);

    // 5. Acceptance, on a scratch copy (the image ships as installed, halted cleanly).
    const scratch = join(work, 'check.dsk');
    copyFileSync(dsk, scratch);
    await emulate(o, work, '5a check: boot single-user', '4-check-single.vax', ['--disk', `hp0=${scratch}`, '--boot', 'single'],
      vars, { must: ['/usr/src/sys/vax/locore.s', '/vmunix'], mustNot: ['not found', 'panic'] }, steps);
    await emulate(o, work, '5b check: boot multi-user to the login prompt', '5-check-multi.vax', ['--disk', `hp0=${scratch}`, '--boot', 'multi'],
      vars, { must: [/\/dev\/hp0a: \d+ files/, /\/dev\/rhp0g: \d+ files/, 'login:', /\/dev\/hp0g\s+\d+/],
        mustNot: ['UNEXPECTED INCONSISTENCY', 'panic', 'Automatic reboot failed'] }, steps);
    rmSync(scratch);

    // 6. The outputs.
    mkdirSync(o.out, { recursive: true });
    const gz = await timed('6 gzip -9 the image', () => gzipFile(dsk, imagePath));
    say(`  ${imagePath}: ${gz.bytes.toLocaleString('en-US')} bytes (sha256 ${gz.sha256}), ` +
      `${gz.uncompressedBytes.toLocaleString('en-US')} uncompressed (sha256 ${gz.uncompressedSha256})`);
    const totalSeconds = (Date.now() - t0) / 1000;
    const manifest = {
      name: IMAGE_NAME,
      description: '4.3BSD (June 1986) on an RP06, installed from the distribution tape files by the vaxlab installer on vaxlab\'s own 780',
      installerVersion: INSTALLER_VERSION,
      cacheKey: key,
      buildDate: new Date().toISOString(),
      emulatorCommit: gitCommit(),
      distribution: {
        name: '4.3BSD',
        release: 'June 1986',
        source: dist.dir,
        checkedAgainst: dist.sumsFrom,
        files: dist.files.map((f) => ({ name: f.name, sha256: f.sha256, bytes: f.bytes })),
        notInDistribution: tape.skipped,
      },
      tape: {
        format: 'SIMH .tap',
        files: tape.files.map((f) => ({ file: f.file, name: f.name, recordSize: f.recordSize, records: f.records, what: f.what })),
      },
      image: {
        file: `${IMAGE_NAME}.dsk.gz`,
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
          { partition: 'g', device: '/dev/hp0g', mountPoint: '/usr', contents: 'only /usr/src/sys (srcsys.tar); no usr.tar' },
        ],
        swap: 'b',
        badSectorTable: 'empty DEC-144 table (serial 0) on the last track (bad144 rp06 hp0 0)',
      },
      boot: { bootProgram: '/boot', kernel: '/vmunix', kernelConfig: 'GENERIC', rootPassword: 'none' },
      steps: steps.map((s) => ({ ...s, hostSeconds: Number(s.hostSeconds.toFixed(3)) })),
      totalHostSeconds: Number(totalSeconds.toFixed(2)),
    };
    writeJsonAtomic(manifestPath, manifest);
    copyFileSync(logFile, join(o.out, `${IMAGE_NAME}.log`));
    say(`${manifestPath} written; total ${secs(totalSeconds)}`);
    ok = true;
  } finally {
    if (ok && !o.keepWork) {
      rmSync(work, { recursive: true, force: true });
    } else if (!ok) {
      say(`failed: the work directory ${work} is kept (console transcripts in ${logFile})`);
    } else {
      say(`work directory kept: ${work}`);
    }
  }
}

main().catch((e: unknown) => {
  if (e instanceof EmulatorError) {
    const tail = e.transcript.replace(/\r/g, '').split('\n').slice(-25).join('\n');
    process.stderr.write(`[install] ERROR: ${e.message}\n----- last console output -----\n${tail}\n-------------------------------\n`);
  } else if (e instanceof DistError || e instanceof InstallError) {
    process.stderr.write(`[install] ERROR: ${e.message}\n`);
  } else {
    process.stderr.write(`[install] ERROR: ${e instanceof Error ? e.stack : String(e)}\n`);
  }
  process.exit(1);
});
