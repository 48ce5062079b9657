// Compile and run the benchmark programs of this folder in 4.3BSD on the
// emulated 780: boot a scratch copy of the reference image single-user
// (--direct), mount /usr, type every source into /usr/bench with a
// here-document, compile each with the guest's cc, print `size` of each,
// then run each test under csh's `time` with reduced iteration counts
// (and syscall once under /bin/time).  The console transcript goes to
// stdout, or to the file given with --transcript; each run's `time` line
// and any problem go to stderr.
//
//   node --import tsx experiments/guest/verify.ts [--full] [--transcript FILE]
//
// --full runs the paper's iteration counts instead (hours of guest time).
// Exit status 0 when every program compiled, ran and exited 0.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLineFor, readmeBuildTemplate } from './buildLine';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GUEST_DIR = fileURLToPath(new URL('./', import.meta.url));
export const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
export const REF_IMAGE = process.env.VAXLAB_REF_IMAGE ?? join(REPO_ROOT, 'emu/build/images/43bsd-rp06.dsk');

/** Where the programs live in the guest (on /usr: the root file system has 2.4 MB free). */
export const BENCH = '/usr/bench';

/** The programs, each built as the README's build line says, with the lab's start-up start1985.s (vforks.c and
 *  vexecs.c include forks.c and execs.c). */
export const PROGRAMS = [
  'syscall', 'csw', 'signocsw', 'pipeself', 'pipediscard', 'pipeback', 'forks', 'vforks', 'execs', 'vexecs',
  'nulljob', 'bigjob', 'seqpage', 'randpage', 'gausspage', 'countenv', 'namework',
] as const;
/** Every source typed into the guest: the programs, paging.h, which the paging programs include, and the start-up. */
const SOURCES = [...PROGRAMS.map((p) => `${p}.c`), 'paging.h', 'start1985.s'];

/** The README's build line, the one the installer builds the lab image's programs with (buildLine.ts). */
const BUILD_LINE = readmeBuildTemplate(readFileSync(join(GUEST_DIR, 'README.md'), 'utf8'));
if (BUILD_LINE === null) throw new Error(`${join(GUEST_DIR, 'README.md')} has no build line (a code block's "cc ... NAME.c")`);
export const compileCommand = (p: string): string => buildLineFor(BUILD_LINE, p);

/** The run script's value for `setenv a` ... `setenv o` (15 x 71 = 1065 bytes). */
const ENV_VALUE = '012345678901234567890123456789012345678901234567890123456780123456789';
const ENV_NAMES = 'abcdefghijklmno'.split('');

/** Commands run in the guest: the paper's (--full) or reduced iteration counts. */
export function runCommands(full: boolean): string[] {
  const k = (paper: number, quick: number) => String(full ? paper : quick);
  const cmds = [
    `./syscall ${k(100000, 10000)}`,
    `./csw ${k(10000, 500)}`,
    `./signocsw ${k(10000, 1000)}`,
    ...['4', '512'].flatMap((m) => ['pipeself', 'pipediscard', 'pipeback'].map((p) => `./${p} ${k(10000, 500)} ${m}`)),
    ...['forks', 'vforks'].flatMap((p) => ['0', '1024', '102400'].map((b) => `./${p} ${k(1000, 50)} ${b}`)),
    ...['execs', 'vexecs'].flatMap((p) => ['nulljob', 'bigjob'].flatMap((j) =>
      ['0', '1024', '102400'].map((b) => `./${p} ${k(1000, 20)} ${b} ./${j}`))),
    `./seqpage -p 7500 ${k(10, 1)}`,
    `./seqpage -v -p 7500 ${k(10, 1)}`,
    `./randpage -p 7500 ${k(30000, 2000)}`,
    `./randpage -v -p 7500 ${k(30000, 2000)}`,
    ...['1', '10', '30', '40', '50', '60', '80', '10000'].map((sd) => `./gausspage -p 7500 -s ${sd} ${k(30000, 2000)}`),
    // Not the paper's: the name cache experiment's loop (experiments/runner, namecache), here with paths of the root.
    `./namework -x ./nulljob ${k(200, 5)} /etc/passwd /bin/sh /usr/bench/namework.c`,
  ];
  return cmds;
}

/** A here-document typed a line at a time, each line waiting for the shell's "> " (see boot.test.ts). */
export function typeFile(guestPath: string, text: string): string[] {
  const lines = text.replace(/\n$/, '').split('\n');
  for (const l of lines) {
    if (l === 'EOF') throw new Error(`${guestPath}: a line "EOF" would end the here-document`);
    if (l.length > 200) throw new Error(`${guestPath}: line too long for the terminal: ${l}`);
  }
  return [`send cat > ${guestPath} <<'EOF'`, 'expect \\n> ', ...lines.flatMap((l) => [`send ${l}`, 'expect \\n> ']),
    'send EOF', 'expect \\n# '];
}

/** The whole console script. Each run prints "rc=N" after it. */
export function buildScript(full: boolean): string {
  const sh = (cmd: string) => [`send ${cmd}`, 'expect \\n# '];
  const script = [
    'timeout 600',
    'expect \\n# ',
    ...sh('mount /dev/hp0g /usr'),
    ...sh(`mkdir ${BENCH}; cd ${BENCH}`),
    ...SOURCES.flatMap((f) => typeFile(`${BENCH}/${f}`, readFileSync(join(GUEST_DIR, f), 'utf8'))),
    ...PROGRAMS.flatMap((p) => sh(`${compileCommand(p)}; echo cc ${p} rc=$?`)),
    ...sh(`size ${PROGRAMS.join(' ')}`),
    ...sh('./countenv'),
    `timeout ${full ? 100000 : 3600}`,
    ...runCommands(full).flatMap((c) => sh(`csh -fc 'time ${c}'; echo rc=$?`)),
    // The 1 KB environment of Table 3 (the run script's 15 setenvs, here in sh).
    ...ENV_NAMES.flatMap((n) => sh(`${n}=${ENV_VALUE}`)),
    ...sh(`export ${ENV_NAMES.join(' ')}`),
    ...sh('./countenv'),
    ...['0', '1024'].flatMap((b) => sh(`csh -fc 'time ./execs ${full ? 1000 : 20} ${b} ./nulljob'; echo rc=$?`)),
    // `time` as /bin/time prints it.
    ...sh(`/bin/time ./syscall ${full ? 100000 : 10000}`),
    ...sh('sync'),
  ];
  return script.join('\n') + '\n';
}

export interface GuestRun { status: number | null; transcript: string; stderr: string }

/** Boot a scratch copy of the reference image and run the script; the image is never booted itself. */
export function runInGuest(script: string, workDir: string, hostTimeoutMs?: number): GuestRun {
  const disk = join(workDir, 'bench.dsk');
  copyFileSync(REF_IMAGE, disk);
  const scriptFile = join(workDir, 'bench.script');
  writeFileSync(scriptFile, script);
  const r = spawnSync(VAX780, ['--disk', `hp0=${disk}`, '--direct', '--script', scriptFile, '--stats'],
    { encoding: 'utf8', maxBuffer: 256 << 20, timeout: hostTimeoutMs });
  if (r.error) throw r.error;
  return { status: r.status, transcript: r.stdout.replace(/\r/g, ''), stderr: r.stderr };
}

/** csh's `time` line: "0.3u 1.1s 0:01 94% 1+5k 0+0io 2pf+0w". */
export const CSH_TIME = /^(\d+\.\d)u (\d+\.\d)s (\d+:\d\d(?:\.\d)?) (\d+)% (\d+)\+(\d+)k (\d+)\+(\d+)io (\d+)pf\+(\d+)w$/;

export interface Timed { command: string; time: string; rc: string; other: string[] }

/** The timed runs of a transcript: each command, its csh `time` line and its exit status. */
export function timedRuns(transcript: string): Timed[] {
  const runs: Timed[] = [];
  for (const chunk of transcript.split('\n# ').slice(1)) {
    const [cmd, ...out] = chunk.split('\n');
    const m = /^csh -fc 'time (.*)'; echo rc=\$\?$/.exec(cmd);
    if (!m) continue;
    runs.push({ command: m[1], time: out.find((l) => CSH_TIME.test(l)) ?? '', rc: out[out.length - 1],
      other: out.filter((l) => !CSH_TIME.test(l) && l !== out[out.length - 1]) });
  }
  return runs;
}

/** The guest's `size` of each program: text, data and bss bytes. */
export function sizes(transcript: string): Map<string, { text: number; data: number; bss: number }> {
  const out = new Map<string, { text: number; data: number; bss: number }>();
  for (const m of transcript.matchAll(/^(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+[0-9a-f]+\s+(\S+)$/gm))
    out.set(m[4], { text: Number(m[1]), data: Number(m[2]), bss: Number(m[3]) });
  return out;
}

/** What went wrong in a transcript: compilations that failed, runs that did not exit 0 or printed anything. */
export function problems(transcript: string): string[] {
  const found: string[] = [];
  for (const p of PROGRAMS)
    if (!transcript.includes(`cc ${p} rc=0`)) found.push(`${p} did not compile`);
  for (const r of timedRuns(transcript))
    if (r.rc !== 'rc=0' || r.time === '' || r.other.length) found.push(`${r.command}: ${[...r.other, r.rc].join(' / ')}`);
  if (timedRuns(transcript).length !== runCommands(false).length + 2) found.push('runs are missing');
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const full = args.includes('--full');
  const ti = args.indexOf('--transcript');
  if (!existsSync(REF_IMAGE) || !existsSync(VAX780)) {
    console.error(`need ${VAX780} and ${REF_IMAGE} (make -C emu native images)`);
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'vaxlab-verify-'));
  let r: GuestRun;
  try {
    r = runInGuest(buildScript(full), work);
  } finally {
    rmSync(work, { recursive: true, force: true });   // the scratch disk copy (170 MB)
  }
  if (ti >= 0) writeFileSync(args[ti + 1], r.transcript);
  else process.stdout.write(r.transcript);
  process.stderr.write(r.stderr);
  const bad = problems(r.transcript);
  for (const t of timedRuns(r.transcript)) console.error(`${t.time.padEnd(40)} ${t.command}`);
  for (const b of bad) console.error(`problem: ${b}`);
  process.exit(r.status === 0 && bad.length === 0 ? 0 : 1);
}
