// npm run fuzz: the two fuzzers, on the ASan/UBSan builds, for a given time
// and seed; one summary line each; exit 1 if either found a failure.
//
//   npm run fuzz [-- --seconds T] [--seed S] [--cases N] [--only instr|fs] [--instr-seconds T]
//                [--image PATH] [--wall S] [--keep DIR] [--keep-all] [--verbose]
//
//   --seconds T        the whole run, host seconds (default 120): a quarter
//                      for the instruction fuzzer, the rest for the file
//                      systems (--instr-seconds sets the first part)
//   --seed S           the first case's seed (default: from the clock, and
//                      printed); case i of each fuzzer uses S + i
//   --cases N          at most N file-system cases (with no --seconds: N
//                      cases whatever the time)
//   --only instr|fs    one fuzzer only
//   --image PATH       the pack to damage (.dsk or .dsk.gz; default: the
//                      lab's image, else the reference image)
//   --wall S           host-time bound for each process (default 120 s)
//   --keep DIR         where failing file-system cases are kept (default
//                      emu/build/fuzz): the damaged image, its changes and
//                      the outputs
//   --verbose          one line per file-system case and its changes
//   --keep-all         keep every file-system case, not only failing ones
//
// A failing file-system case prints the command that repeats it alone:
//   npm run fuzz -- --only fs --seed S --cases 1 --verbose
// and an instruction-fuzzer case: emu/build/asan/test_fuzz --seed S --verbose.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { findBsdImage, loadDiskImage, REPO_ROOT } from '../emu/js/vaxNode';
import { type FsFuzzSummary, fsFuzz, missingTools, toolsIn } from '../emu/tests/fuzz/fsfuzz';

const ASAN = join(REPO_ROOT, 'emu/build/asan');

interface Options {
  seconds: number | null;
  instrSeconds: number | null;
  seed: bigint | null;
  cases: number | null;
  only: 'instr' | 'fs' | null;
  image: string | null;
  wall: number;
  keep: string;
  verbose: boolean;
  keepAll: boolean;
}

function usage(msg: string): never {
  console.error(`fuzz: ${msg}`);
  console.error('usage: npm run fuzz -- [--seconds T] [--seed S] [--cases N] [--only instr|fs] [--instr-seconds T] ' +
    '[--image PATH] [--wall S] [--keep DIR] [--keep-all] [--verbose]');
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const o: Options = { seconds: null, instrSeconds: null, seed: null, cases: null, only: null, image: null, wall: 120,
    keep: join(REPO_ROOT, 'emu/build/fuzz'), verbose: false, keepAll: false };
  const num = (name: string, v: string | undefined, min: number): number => {
    const x = Number(v);
    if (v === undefined || !/^\d+(\.\d+)?$/.test(v) || !(x >= min)) usage(`${name} takes a number >= ${min}`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    switch (a) {
      case '--seconds': o.seconds = num(a, v, 1); i++; break;
      case '--instr-seconds': o.instrSeconds = num(a, v, 0); i++; break;
      case '--cases': o.cases = num(a, v, 1); i++; break;
      case '--wall': o.wall = num(a, v, 1); i++; break;
      case '--seed':
        if (v === undefined || !/^\d{1,19}$/.test(v)) usage('--seed takes a number');
        o.seed = BigInt(v); i++; break;
      case '--only':
        if (v !== 'instr' && v !== 'fs') usage('--only takes instr or fs');
        o.only = v; i++; break;
      case '--image': if (!v) usage('--image takes a path'); o.image = v; i++; break;
      case '--keep': if (!v) usage('--keep takes a directory'); o.keep = v; i++; break;
      case '--verbose': o.verbose = true; break;
      case '--keep-all': o.keepAll = true; break;
      default: usage(`unknown argument ${a}`);
    }
  }
  return o;
}

interface InstrSummary { line: string; failed: boolean }

/** emu/build/asan/test_fuzz for `seconds` (its --seconds ends the run; the
 *  iteration count is only a ceiling). */
function instructionFuzzer(seed: bigint, seconds: number, wall: number): InstrSummary {
  const bin = join(ASAN, 'test_fuzz');
  if (!existsSync(bin)) return { line: `fuzz: instructions: ${bin} not built (make -C emu asan)`, failed: true };
  const r = spawnSync(bin, ['--seed', String(seed), '--iterations', '1000000000', '--seconds', String(seconds)],
    { encoding: 'utf8', timeout: (seconds + wall) * 1000, killSignal: 'SIGKILL', maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const cases = /fuzz: (\d+) cases \(seeds (\d+)\.\.(\d+)\), (\d+) instructions in ([\d.]+) s/.exec(out);
  const stops = /fuzz: stops: (.*)/.exec(out);
  const passFail = /(\d+) passed, (\d+) failed/.exec(out);
  const fails = [...out.matchAll(/FAIL seed=(\d+): (.*)/g)];
  const failed = r.status !== 0 || !cases || !passFail || Number(passFail[2]) > 0;
  let line = cases
    ? `fuzz: instructions (ASan/UBSan test_fuzz): ${cases[1]} cases (seeds ${cases[2]}..${cases[3]}), ` +
      `${passFail ? passFail[2] : '?'} failed, ${Number(cases[4]).toLocaleString('en-US')} instructions in ${cases[5]} s` +
      (stops ? `; stops: ${stops[1]}` : '')
    : `fuzz: instructions: test_fuzz ended with status ${r.status}${r.signal ? ` (${r.signal})` : ''} and no summary`;
  for (const f of fails) line += `\n  FAIL seed ${f[1]}: ${f[2]}\n  reproduce: emu/build/asan/test_fuzz --seed ${f[1]} --verbose`;
  if (failed && fails.length === 0) line += `\n${out.split('\n').slice(-15).join('\n')}`;
  return { line, failed };
}

function fsLine(s: FsFuzzSummary, keepRel: (p: string) => string): string {
  const boots = [...s.outcomes.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  const byCode = new Map<string, number>();
  for (const [label, n] of boots) {
    const code = label.split(' ')[0];
    byCode.set(code, (byCode.get(code) ?? 0) + n);
  }
  const codeNames: Record<string, string> = { 0: 'done', 1: 'timed out', 2: 'usage', 3: 'bad image', 4: 'halted',
    5: 'panic', 6: 'stopped', FAILED: 'FAILED' };
  const codes = [...byCode.entries()].map(([c, n]) => `${codeNames[c] ?? c} ${n}`).join(', ');
  const bsdfs = [...s.bsdfsStatuses.entries()].sort((a, b) => a[0] - b[0])
    .map(([c, n]) => `exit ${c} ${n}`).join(', ');
  let line = `fuzz: file systems (ASan/UBSan bsdfs + vax780): ${s.cases} cases (seeds ${s.firstSeed}..${s.lastSeed}), ` +
    `${s.failed.length} failed, ${s.mutations} changes, ${s.processes} processes in ${s.seconds.toFixed(1)} s; ` +
    `boots: ${codes}; bsdfs: ${bsdfs}; slowest process ${s.maxHostSeconds.toFixed(2)} s`;
  const details = boots.filter(([l]) => / /.test(l) && !/^[01] /.test(l)).map(([l, n]) => `${n} × ${l}`);
  if (details.length) line += `\n  boot endings: ${details.join('; ')}`;
  s.failed.forEach((f, i) => {
    line += `\n  FAIL seed ${f.plan.seed}: ${f.failures.join('; ')}` +
      `\n  kept: ${keepRel(s.keptFailures[i])} (and .json)` +
      `\n  reproduce: npm run fuzz -- --only fs --seed ${f.plan.seed} --cases 1 --verbose`;
  });
  return line;
}

const o = parseArgs(process.argv.slice(2));
// The default seed comes from the clock so that every run tries new cases;
// it is printed, and a given --seed repeats a run exactly.
const seed = o.seed ?? BigInt(Date.now()) % 1000000000n;
const total = o.seconds ?? (o.cases !== null ? 0 : 120);
const instrSeconds = o.only === 'fs' ? 0 : o.only === 'instr' ? (o.instrSeconds ?? (total || 30))
  : (o.instrSeconds ?? Math.max(1, Math.round((total || 120) / 4)));
const fsSeconds = o.only === 'instr' ? 0 : total > 0 ? Math.max(1, total - instrSeconds) : 0;
console.log(`fuzz: seed ${seed}${o.seed === null ? ' (from the clock; --seed repeats this run)' : ''}`);

let failed = false;
if (o.only !== 'fs') {
  const r = instructionFuzzer(seed, instrSeconds, o.wall);
  console.log(r.line);
  failed ||= r.failed;
}
if (o.only !== 'instr') {
  const tools = toolsIn(ASAN);
  const missing = missingTools(tools);
  const imagePath = o.image ?? findBsdImage();
  if (missing) {
    console.log(`fuzz: file systems: ${missing}`);
    failed = true;
  } else if (!imagePath || !existsSync(imagePath)) {
    console.log(`fuzz: file systems: skipped: no 4.3BSD image (${o.image ?? 'npm run image builds one'})`);
  } else {
    const image = await loadDiskImage(imagePath);
    const sha = createHash('sha256').update(image).digest('hex').slice(0, 16);
    console.log(`fuzz: file systems: ${relative(REPO_ROOT, imagePath) || imagePath} (sha256 ${sha}…), ` +
      `${fsSeconds ? `${fsSeconds} s` : 'no time limit'}${o.cases !== null ? `, at most ${o.cases} cases` : ''}`);
    const work = mkdtempSync(join(tmpdir(), 'vaxlab-fuzz-'));
    try {
      const s = fsFuzz({ image, imageName: imagePath, tools, workDir: work, keepDir: o.keep, seed,
        cases: o.cases ?? Number.MAX_SAFE_INTEGER, seconds: fsSeconds, wallSeconds: o.wall,
        verbose: o.verbose ? (l) => console.log(l) : undefined, keepAll: o.keepAll });
      console.log(fsLine(s, (p) => relative(process.cwd(), p) || p));
      failed ||= s.failed.length > 0 || s.cases === 0;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
process.exit(failed ? 1 : 0);
