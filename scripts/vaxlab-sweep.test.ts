// The command line's sweeps (scripts/vaxlab.ts): bad input is refused with
// one clear line each, exit 2, nothing run and nothing written; and a sweep
// cut into shards on the command line and merged is the sweep run whole,
// byte for byte (exit 0); a step's seeds run on several threads give the
// one-thread run's bytes.  The emulator part is skipped, saying why,
// without the wasm build or the lab's image.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { findLabImage, REPO_ROOT, wasmBuildExists } from '../emu/js/vaxNode';

const work = mkdtempSync(join(tmpdir(), 'vaxlab-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function vaxlab(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/vaxlab.mjs'), ...args], { cwd: work, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('sweep and merge refuse bad input with one line each, exit 2, nothing run or written', () => {
  const out = join(work, 'never.json');
  const cases: [string[], RegExp[]][] = [
    [['sweep', 'syscall'], [/sweep needs a setting to sweep: --set NAME=V1,V2,\.\.\./]],
    [['sweep', 'syscall', '--set', 'hz='], [/hz: no values/]],
    [['sweep', 'syscall', '--set', 'hz=0..100000'], [/hz=0\.\.100000: 100,001 values; a sweep has at most 200 points/]],
    [['sweep', 'syscall', '--set', 'nchsiz=1,2'], [/unknown setting "nchsiz" \(did you mean "nchsize"\?\)/]],
    [['sweep', 'syscall', '--set', 'hz=50,abc,5000'], [/^ {2}hz=abc: not a value of hz/m, /^ {2}hz=5000: 5000 is out of range 50\.\.1000/m]],
    [['sweep', 'syscall', '--set', 'hz=50,100', '--set', 'cpu=750,780', '--set', 'nproc=40,50'], [/3 settings swept \(hz, cpu, nproc\); a sweep turns one or two/]],
    [['sweep', 'syscall', '--set', 'hz=50..1000:5', '--set', 'memoryMB=1,2'], [/382 points \(191 hz × 2 memoryMB\); a sweep has at most 200/]],
    [['sweep', 'syscall', '--set', 'hz=50,100', '--jobs', '0'], [/--jobs 0: at least 1 worker thread/]],
    [['sweep', 'syscall', '--set', 'hz=50,100', '--jobs', '33'], [/--jobs 33: at most 32 worker threads/]],
    [['run', 'table2', '--jobs', 'many'], [/--jobs takes a whole number of worker threads/]],
    [['sweep', 'syscall', '--set', 'hz=50,100', '--shard', '2/2', '--jsonl', out], [/--shard 2\/2: the index counts from 0/]],
    [['sweep', 'syscall', '--set', 'hz=50,100', '--shard', '0/2'], [/--shard writes its units as JSON Lines: give --jsonl FILE/]],
    [['sweep', 'namecache', '--set', 'hz=50,100', '--param', 'iterations=5'], [/--param iterations: namecache has divisor/]],
    [['merge'], [/merge needs the shards' files/]],
    [['sweep', 'syscall', '--set', 'kernel=generic,vms'], [/kernel=vms: not a value of kernel \(one of generic, /]],
    [['sweep', 'syscall', '--set', 'kernel=generic', '--kernel', 'generic'], [/kernel: both swept and fixed \(--kernel generic\)/]],
    [['run', 'syscall', '--jobs', '2', '--kernel', '/tmp/vmunix'], [/--jobs with --kernel \/tmp\/vmunix: the worker threads boot the kernel variants by name/]],
  ];
  for (const [args, patterns] of cases) {
    const r = vaxlab(...args, ...(args.includes('--jsonl') || args[0] === 'merge' ? [] : ['--json', out]));
    assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
    for (const p of patterns) assert.match(r.stderr, p, args.join(' '));
    assert.equal(r.stdout, '', `${args.join(' ')} printed a result`);
    assert.ok(!existsSync(out), `${args.join(' ')} wrote ${out}`);
  }
  writeFileSync(join(work, 'not-a-shard.jsonl'), '{"format":"vaxlab-experiment-result"}\n');
  const r = vaxlab('merge', 'not-a-shard.jsonl', 'missing.jsonl', '--json', out);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /refused, nothing was written:\n {2}not-a-shard\.jsonl: not a shard of vaxlab sweep --shard.*\n {2}missing\.jsonl: cannot be read \(ENOENT\)/);
  assert.ok(!existsSync(out));
});

test('merge refuses a damaged shard header at once: more shards than --shard makes (it counted through them), a request that is not a sweep\'s', () => {
  // A header claiming a billion shards: merge used to list every missing index, and ran out of memory (abort).
  const header = { format: 'vaxlab-sweep-shard', version: 2, shard: { index: 0, count: 1_000_000_000 },
    request: { experiment: 'syscall', axes: [], base: {} }, units: 1, image: null };
  writeFileSync(join(work, 'huge.jsonl'), `${JSON.stringify(header)}\n`);
  const t0 = Date.now();
  const r = vaxlab('merge', 'huge.jsonl', '--json', join(work, 'huge.json'));
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /refused, nothing was written:\n {2}huge\.jsonl: a damaged shard header \(one of 1000000000 shards; --shard cuts a sweep into at most 10000\)\n$/);
  assert.ok(!existsSync(join(work, 'huge.json')));
  assert.ok(Date.now() - t0 < 30_000, 'refused at once');
  // A request that is not a sweep's is refused where it is wrong (it was "r.axes.map is not a function", or a
  // TypeError from planning it).
  const request = { experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100] }], base: { parameters: {}, set: {} } };
  const shard = (index: number, r: unknown) => `${JSON.stringify({ ...header, shard: { index, count: 2 }, request: r, units: 2 })}\n`;
  writeFileSync(join(work, 's0.jsonl'), shard(0, request));
  for (const [bad, where] of [[{ ...request, axes: 5 }, 'at request.axes, expected a list, found the number 5'],
    [{ ...request, axes: [{ setting: 'hz' }] }, 'at request.axes\\[0\\].values, expected a value, found nothing'],
    [{ ...request, base: { parameters: { iterations: 'x' }, set: {} } }, 'at request.base.parameters.iterations, expected a number']] as const) {
    writeFileSync(join(work, 's1.jsonl'), shard(1, bad));
    const m = vaxlab('merge', 's0.jsonl', 's1.jsonl');
    assert.equal(m.status, 2, m.stderr);
    assert.match(m.stderr, new RegExp(`^vaxlab: refused, nothing was written:\\n {2}s1\\.jsonl: a damaged shard header: ${where}`), m.stderr);
  }
});

const skip = !wasmBuildExists() ? 'the WebAssembly emulator is not built (make -C emu wasm)'
  : findLabImage() ? false : 'no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image`';

test('run --seeds 3 --jobs 2: the step\'s seeds run on both threads, and the result is the one-thread run\'s, byte for byte', { skip }, () => {
  const run = ['run', 'syscall', '--param', 'iterations=2000', '--seeds', '3'];
  const one = vaxlab(...run, '--json', 'seeds-one.json');
  assert.equal(one.status, 0, one.stderr);
  const two = vaxlab(...run, '--jobs', '2', '--json', 'seeds-two.json');
  assert.equal(two.status, 0, two.stderr);
  assert.equal(readFileSync(join(work, 'seeds-two.json'), 'utf8'), readFileSync(join(work, 'seeds-one.json'), 'utf8'));
  assert.match(two.stderr, /^syscall: 3 units on 2 worker threads$/m);
  // Each seed is a unit: the first two start at once, one on each thread.
  const workers = [...two.stderr.matchAll(/^\[\d\/3\] syscall, seed \d of 3 \.\.\. .*\(worker (\d),/gm)].map((m) => m[1]);
  assert.equal(workers.length, 3, two.stderr);
  assert.deepEqual([...new Set(workers)].sort(), ['1', '2'], two.stderr);
  assert.match(two.stdout, /syscall: 1 of 1 steps ok; .* on 2 worker threads$/m);
});

test('a sweep in two shards, run as a Kubernetes Indexed Job and a Slurm array would run them, merged: the sweep run whole, byte for byte', { skip }, () => {
  const sweep = ['syscall', '--param', 'iterations=500', '--set', 'hz=50,100,1000'];
  const whole = vaxlab('sweep', ...sweep, '--jobs', '2', '--json', 'whole.json');
  assert.equal(whole.status, 0, whole.stderr);
  assert.match(whole.stdout, /^ *100 \|\| .* \|\| +0\.\d\d\* +\|\| ok$/m, 'the paper\'s (scaled) figure at hz=100');
  assert.match(whole.stdout, /syscall: 3 of 3 points ok/);
  // batch/run-shard.sh as each engine starts it: the index from the engine's variable.
  const results = join(work, 'results');
  const engines: Record<string, string>[] = [{ JOB_COMPLETION_INDEX: '0' }, { SLURM_ARRAY_TASK_ID: '1' }];
  for (const [i, engine] of engines.entries()) {
    const r = spawnSync(join(REPO_ROOT, 'batch/run-shard.sh'), [...sweep, '--jobs', '1'], {
      cwd: work, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...engine, SHARD_COUNT: '2', RESULTS: results },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`shard ${i}/2: ${i === 0 ? 2 : 1} of its ${i === 0 ? 2 : 1} units ran`));
    assert.ok(existsSync(join(results, `shard-${i}-of-2.jsonl`)));
  }
  const merged = spawnSync(join(REPO_ROOT, 'batch/merge.sh'), [], { cwd: work, encoding: 'utf8', env: { ...process.env, RESULTS: results } });
  assert.equal(merged.status, 0, merged.stderr);
  assert.equal(readFileSync(join(results, 'sweep.json'), 'utf8'), readFileSync(join(work, 'whole.json'), 'utf8'));
  assert.equal(merged.stdout.split('\n').slice(0, 12).join('\n'), whole.stdout.split('\n').slice(0, 12).join('\n'));
  // One shard alone is refused, nothing written.
  const alone = vaxlab('merge', join(results, 'shard-0-of-2.jsonl'), '--json', 'alone.json');
  assert.equal(alone.status, 2);
  assert.match(alone.stderr, /shard 1\/2 missing \(1 of the 2 shards given\)/);
  assert.ok(!existsSync(join(work, 'alone.json')));
  const none = spawnSync(join(REPO_ROOT, 'batch/run-shard.sh'), sweep, { encoding: 'utf8', env: { ...process.env, SHARD_COUNT: '2' } });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no shard index: set JOB_COMPLETION_INDEX \(Kubernetes\), SLURM_ARRAY_TASK_ID \(Slurm\) or SHARD_INDEX/);
});

test('the batch manifests agree with themselves: as many shards as tasks, the scripts they run exist', () => {
  const job = readFileSync(join(REPO_ROOT, 'batch/kubernetes/sweep-job.yaml'), 'utf8');
  const completions = /^\s*completions: (\d+)$/m.exec(job)?.[1];
  assert.ok(completions, 'completions');
  assert.match(job, /^\s*completionMode: Indexed$/m);
  assert.equal(/^\s*parallelism: (\d+)$/m.exec(job)?.[1], completions);
  assert.match(job, new RegExp(`name: SHARD_COUNT\\s+value: "${completions}"`));
  assert.match(job, /command: \["\/vaxlab\/batch\/run-shard\.sh"\]/);
  assert.match(readFileSync(join(REPO_ROOT, 'batch/kubernetes/sweep-merge.yaml'), 'utf8'), /command: \["\/vaxlab\/batch\/merge\.sh"\]/);
  const sbatch = readFileSync(join(REPO_ROOT, 'batch/slurm/sweep.sbatch'), 'utf8');
  const array = /^#SBATCH --array=0-(\d+)$/m.exec(sbatch)?.[1];
  assert.ok(array, '--array');
  assert.equal(/^export SHARD_COUNT=(\d+)$/m.exec(sbatch)?.[1], String(Number(array) + 1));
  assert.match(sbatch, /batch\/run-shard\.sh/);
  assert.match(readFileSync(join(REPO_ROOT, 'batch/slurm/merge.sbatch'), 'utf8'), /batch\/merge\.sh/);
  assert.match(readFileSync(join(REPO_ROOT, 'batch/Dockerfile'), 'utf8'), /^WORKDIR \/vaxlab$/m);
});
