// Sweeps (sweep.ts, sweepShard.ts, sweepView.ts, sweepNode.ts): the values
// of an axis and every refusal, the plan (points, units, a setting the steps
// set themselves), and on the emulator: the same bytes on one worker thread
// and on two, a point's units joined are the experiment run whole (also
// `run --jobs`), shards merge into the sweep's bytes and misfits are refused,
// a failing point is marked while the others go on, Stop stops every worker.
// The emulator tests are skipped, saying why, without the wasm build or the
// lab's image.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { before, test } from 'node:test';

import { findLabImage, loadDiskImage, loadSharedPack, wasmBuildExists } from '../../emu/js/vaxNode';
import type { SharedPack } from '../../emu/js/sharedPack';
import { kernelFileBeside } from '../kernels/kernelFiles';
import { KERNELS } from '../kernels/variants';
import { findExperiment } from './experiments';
import { RESULT_FORMAT, RESULT_VERSION, resultJson, type ExperimentResult, type RowResult } from './result';
import { resolveRun, runExperiment, SettingsError, stepRow } from './runner';
import {
  assembleSweep, localExecutor, MAX_SWEEP_POINTS, parseAxis, planSweep, runProgressOf, runUnits, sweepJson, sweepSetting, SweepUnitRunner,
  unitLabel, validateSweep, type SweepProgress, type SweepRequest, type SweepResult, type SweepSetting, type UnitExecutor,
  type UnitOutcome,
} from './sweep';
import type { CounterSample } from './counters';
import { threadExecutors, type ThreadLoader, type ThreadMemory, type ThreadStart } from './sweepNode';
import {
  mergeShards, parseShardSpec, readShard, SHARD_FORMAT, SHARD_VERSION, shardJsonl, shardUnits, ShardError, type ShardHeader,
} from './sweepShard';
import { findMeasure, sweepChart, sweepTable } from './sweepView';
import { useLabImage } from './testLab';

const syscall = findExperiment('syscall')!;
const setting = (name: string, spec = syscall): SweepSetting => {
  const s = sweepSetting(spec, name);
  assert.equal(typeof s, 'object', String(s));
  return s as SweepSetting;
};
const values = (name: string, raw: string) => parseAxis(setting(name), raw);
const refusal = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof SettingsError) return e.problems;
    throw e;
  }
  assert.fail('not refused');
};

// ------------------------------------------------------------ values and plans

test('an axis: lists, ranges (whole steps by default, or FROM..TO:STEP), both, and named values', () => {
  assert.deepEqual(values('nchsize', '0,32,64,154,500,1000').axis?.values, [0, 32, 64, 154, 500, 1000]);
  assert.deepEqual(values('memoryMB', '1..8').axis?.values, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(values('memoryMB', '1..2:0.25, 4.5').axis?.values, [1, 1.25, 1.5, 1.75, 2, 4.5]);
  assert.deepEqual(values('hz', '50,60,100..1000:300').axis?.values, [50, 60, 100, 400, 700, 1000]);
  assert.deepEqual(values('cpu', '750,780').axis?.values, [750, 780]);
  assert.deepEqual(values('disk', 'rp06,Eagle,ideal').axis?.values, [0, 1, 2]);
  assert.deepEqual(values('iterations', '1000..3000:1000').axis?.values, [1000, 2000, 3000]);
  assert.equal(setting('disk').label(1), 'eagle');
  // The disks' rotation is a setting with named values too, so a sweep turns it.
  assert.deepEqual(values('spin', 'drifting,locked').axis?.values, [0, 1]);
  assert.equal(setting('spin').label(1), 'locked');
  // A negative value where the variable takes one: maxtextcache's -1 (the release's, every text cached) against 0.
  assert.deepEqual(values('maxtextcache', '-1,0').axis?.values, [-1, 0]);
  assert.match(values('maxtextcache', '-2').problems[0]!, /^maxtextcache=-2: -2 is out of range -1\.\.1000/);
});

test('the paper\'s figures: for its machine and kernel, or beside the lab\'s default where the paper gives no value (disk, spin)', () => {
  const notesOf = (axes: SweepRequest['axes']) =>
    sweepTable(assembleSweep(planSweep({ experiment: 'execs0null', axes, base: { parameters: {}, set: {} } }), new Map(), true),
      findMeasure('elapsed')!).notes;
  assert.deepEqual(notesOf([{ setting: 'hz', values: [100, 250] }]).filter((n) => n.startsWith('The paper')),
    ['The paper’s figures are for its machine and kernel: hz=100.']);
  const both = notesOf([{ setting: 'hz', values: [100, 250] }, { setting: 'spin', values: [0, 1] }]).filter((n) => n.startsWith('The paper'));
  assert.equal(both[0], 'The paper’s figures are for its machine and kernel: hz=100.');
  assert.match(both[1]!, /^The paper’s figures are set beside spin=drifting, the lab’s default: the paper does not say how its disks turned/);
  assert.match(notesOf([{ setting: 'disk', values: [0, 3] }]).join(' '), /set beside disk=rp06, the lab’s default: the paper does not name its 750's two disks\./);
});

test('an axis refuses each bad value by name, a huge range with its count, and nothing else', () => {
  assert.deepEqual(values('hz', '').problems, ['hz: no values (give a list such as hz=1,2,3 or a range such as hz=1..8)']);
  const mixed = values('hz', '50,abc,5000,50,60,,').problems;
  assert.deepEqual(mixed.map((p) => p.replace(/ \(below 50.*$/, '')), [
    'hz=abc: not a value of hz (a whole number from 50 to 1000)',
    'hz=50,abc,5000,50,60,,: an empty value between commas',
    'hz=5000: 5000 is out of range 50..1000',
    'hz=50: listed twice',
  ]);
  assert.deepEqual(values('hz', '0..100000').problems, [`hz=0..100000: 100,001 values; a sweep has at most ${MAX_SWEEP_POINTS} points`]);
  assert.deepEqual(values('hz', '100..50').problems, ['hz=100..50: an empty range (100 is above 50)']);
  assert.deepEqual(values('memoryMB', '1..2:0').problems, ['memoryMB=1..2:0: the step must be more than 0']);
  assert.deepEqual(values('memoryMB', '0.5,1.1').problems, [
    'memoryMB=0.5: 0.5 is out of range 0.75..64 (0.75 MB is the least 4.3BSD boots in (0.5 MB stops the boot with a machine check); 4.3BSD sizes memory by probing, so any multiple of 256 KB works)',
    'memoryMB=1.1: a multiple of 0.25 from 0.75 to 64, got 1.1',
  ]);
  assert.match(values('disk', 'rp06..ideal').problems[0]!, /^disk=rp06\.\.ideal: disk takes names, not a range/);
  assert.match(values('disk', 'ssd').problems[0]!, /^disk=ssd: not a value of disk \(one of rp06 \(0\), eagle \(1\), ideal \(2\), rm05 \(3\)\)/);
  assert.deepEqual(values('iterations', '1000,4294967297').problems,
    ['iterations=4294967297: at most 2147483647 (the guest\'s program reads it as a C int), got 4294967297']);
  assert.match(String(sweepSetting(syscall, 'nchsiz')), /^unknown setting "nchsiz" \(did you mean "nchsize"\?\).*syscall's iterations$/);
});

test('a plan: points with the first setting outermost, a unit per step of each point; every refusal before anything runs', () => {
  const base = { parameters: { iterations: 2000 }, set: {} };
  const plan = planSweep({ experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100] }, { setting: 'cpu', values: [750, 780] }], base });
  assert.deepEqual(plan.points.map((p) => p.values), [{ hz: 50, cpu: 750 }, { hz: 50, cpu: 780 }, { hz: 100, cpu: 750 }, { hz: 100, cpu: 780 }]);
  assert.deepEqual(plan.points[1]!.options.set, { hz: 50, cpu: 780 });
  assert.deepEqual(plan.units.map((u) => [u.point, u.step]), [[0, 'syscall'], [1, 'syscall'], [2, 'syscall'], [3, 'syscall']]);
  const table2 = planSweep({ experiment: 'table2', axes: [{ setting: 'memoryMB', values: [2, 8] }], base: { parameters: {}, set: {} } });
  assert.equal(table2.units.length, 2 * 29);
  assert.deepEqual([table2.units[29]!.point, table2.units[29]!.step], [1, 'syscall']);
  // A unit is RunOptions.steps: one step of the experiment, by id.
  assert.deepEqual(refusal(() => resolveRun(syscall, { steps: ['nosuch'] })), ['step nosuch: syscall has no such step (syscall)']);
  assert.deepEqual(resolveRun(findExperiment('table7')!, { steps: ['randpage', 'seqpage'] }).steps.map((s) => [s.index, s.step.id]),
    [[0, 'seqpage'], [2, 'randpage']]);
  // No axis: one point, the experiment as run runs it (run --jobs).
  assert.equal(planSweep({ experiment: 'table2', axes: [], base: { parameters: {}, set: {} } }).units.length, 29);

  const ax = (setting: string, v: number[]) => ({ setting, values: v });
  const refused = (r: Partial<SweepRequest>) => refusal(() => planSweep({ experiment: 'syscall', axes: [], base, ...r }));
  assert.deepEqual(refused({ experiment: 'nosuch' }), ['no experiment "nosuch" (vaxlab list shows them)']);
  assert.deepEqual(refused({ axes: [ax('hz', [50]), ax('cpu', [750]), ax('nproc', [40])] }),
    ['3 settings swept (hz, cpu, nproc); a sweep turns one or two']);
  assert.deepEqual(refused({ axes: [ax('hz', [50]), ax('hz', [60])] }), ['hz: swept twice']);
  assert.deepEqual(refused({ axes: [ax('hz', [50, 100])], base: { ...base, set: { hz: 100 } } }),
    ['hz: both swept and fixed (--set hz=100); give it once']);
  assert.deepEqual(refused({ axes: [ax('iterations', [10, 20])] }),
    ['iterations: both swept and fixed (--param iterations=2000); give it once']);
  assert.deepEqual(refused({ axes: [ax('spin', [0, 1])], base: { ...base, spin: 'locked' } }),
    ['spin: both swept and fixed (--spin locked); give it once']);
  const hz = Array.from({ length: 20 }, (_, i) => 50 + i * 10);
  const mem = Array.from({ length: 11 }, (_, i) => 1 + i);
  assert.deepEqual(refused({ axes: [ax('hz', hz), ax('memoryMB', mem)] }), ['220 points (20 hz × 11 memoryMB); a sweep has at most 200']);
  // A point's settings together, named by the point when only some have the problem.
  assert.deepEqual(refused({ axes: [ax('memoryMB', [0.75, 1, 8])], base: { ...base, set: { bufpages: 200 } } }), [
    'memoryMB=0.75: --set: bufpages: 200 KB of buffer cache does not fit beside the kernel in 0.75 MB (at most 128: memoryMB * 512 - 256)',
  ]);
  assert.deepEqual(refused({ axes: [ax('tick', [5000, 10000])] }), [
    'tick=5000: --set: tick: 5000 does not match hz 100 (the kernel\'s): tick must be 1000000 / hz = 10000 µs, or leave tick out and it is set from hz',
  ]);
});

test('a setting the steps set themselves: each family of steps becomes one row, the paper\'s figures where a member ran', () => {
  const namecache = findExperiment('namecache')!;
  assert.deepEqual(setting('nchsize', namecache).paper, 'rows');
  assert.deepEqual(setting('hz', namecache).paper, { at: 100 });
  assert.deepEqual(setting('nbuf', namecache).paper, null);
  assert.deepEqual(setting('memoryMB', namecache).paper, { at: 4.5 });
  const plan = planSweep({ experiment: 'namecache', axes: [{ setting: 'nchsize', values: [0, 64, 154, 1000] }], base: { parameters: {}, set: {} } });
  assert.deepEqual(plan.points[0]!.spec.steps.map((s) => [s.id, s.label, s.kernel]), [['ls', 'ls -l', {}], ['namework', 'namework', {}]]);
  assert.deepEqual(plan.points.map((p) => p.spec.steps[0]!.paper?.system ?? null), [3.3, null, 3.7, 3.7]);
  assert.deepEqual(plan.points.map((p) => p.options.set), [{ nchsize: 0 }, { nchsize: 64 }, { nchsize: 154 }, { nchsize: 1000 }]);
  assert.deepEqual(plan.units.map((u) => u.step), ['ls', 'namework', 'ls', 'namework', 'ls', 'namework', 'ls', 'namework']);
  // Without a sweep over it, namecache still refuses a --set of what it varies.
  assert.match(refusal(() => planSweep({ experiment: 'namecache', axes: [], base: { parameters: {}, set: { nchsize: 5 } } }))[0]!,
    /namecache sets nchsize itself/);
});

test('the kernel variants are a setting like any other: by name, the paper\'s at the experiment\'s own kernel, not both swept and fixed', () => {
  const k = setting('kernel');
  assert.deepEqual(parseAxis(k, 'generic,no-name-cache').axis?.values, [KERNELS.findIndex((x) => x.name === 'generic'), KERNELS.findIndex((x) => x.name === 'no-name-cache')]);
  assert.match(parseAxis(k, 'generic,vms').problems[0]!, /^kernel=vms: not a value of kernel \(one of generic, /);
  assert.match(parseAxis(k, 'generic..like-4.2').problems[0]!, /^kernel=generic\.\.like-4\.2: kernel takes names, not a range/);
  // The paper's point: each table's own kernel, the lab's closest to the paper's column it is compared with —
  // Table 2's rows the paper's kernel as the CSRG history dates it, the paging rows like-4.2 (the 4.2BSD column),
  // the name cache /vmunix.
  assert.deepEqual(k.paper, { at: KERNELS.findIndex((x) => x.name === 'paper-1985') });
  const names = [...KERNELS.map((x) => x.name), 'vmunix'];
  assert.deepEqual(setting('kernel', findExperiment('namecache')!).paper, { at: names.indexOf('vmunix') });
  for (const id of ['randpage', 'seqpage-v', 'gausspage.inf', 'table7', 'table8']) {
    assert.deepEqual(setting('kernel', findExperiment(id)!).paper, { at: names.indexOf('like-4.2') }, id);
  }
  const plan = planSweep({ experiment: 'syscall', axes: [{ setting: 'kernel', values: [0, 2] }], base: { parameters: {}, set: {}, spinSeeds: 2 } });
  assert.deepEqual(plan.points.map((p) => p.kernel), [KERNELS[0]!.name, KERNELS[2]!.name]);
  assert.equal(plan.points[0]!.options.spinSeeds, 2);
  assert.deepEqual(refusal(() => planSweep({ experiment: 'syscall', axes: [{ setting: 'kernel', values: [0] }], base: { parameters: {}, set: {}, kernel: 'generic' } })),
    ['kernel: both swept and fixed (--kernel generic); give it once']);
  assert.match(refusal(() => planSweep({ experiment: 'syscall', axes: [], base: { parameters: {}, set: {}, kernel: '/tmp/vmunix' } }))[0]!,
    /^--kernel \/tmp\/vmunix: a sweep boots the kernel variants by name/);
  // Each point boots the experiment's own kernel unless the request names one: Table 2's rows the paper's
  // (paper-1985), the paging rows like-4.2, the name cache the image's /vmunix (null); vmunix by name is
  // /vmunix, and an axis value too.
  const kernelOf = (experiment: string, kernel?: string) =>
    planSweep({ experiment, axes: [], base: { parameters: {}, set: {}, ...(kernel ? { kernel } : {}) } }).points[0]!.kernel;
  assert.equal(kernelOf('syscall'), 'paper-1985');
  assert.equal(kernelOf('table2'), 'paper-1985');
  assert.equal(kernelOf('table2', 'ofile-scans-1985'), 'ofile-scans-1985');
  assert.equal(kernelOf('syscall', 'vmunix'), null);
  assert.equal(kernelOf('syscall', 'no-name-cache'), 'no-name-cache');
  assert.equal(kernelOf('table7'), 'like-4.2');
  assert.equal(kernelOf('table8'), 'like-4.2');
  assert.equal(kernelOf('gausspage.50'), 'like-4.2');
  assert.equal(kernelOf('randpage', 'vmunix'), null);
  assert.equal(kernelOf('randpage', 'one-hand-clock'), 'one-hand-clock');
  assert.equal(kernelOf('namecache'), null);
  const paging = planSweep({ experiment: 'randpage', axes: [parseAxis(k, 'like-4.2,vmunix').axis!], base: { parameters: {}, set: {} } });
  assert.deepEqual(paging.points.map((p) => p.kernel), ['like-4.2', null]);
  const both = planSweep({ experiment: 'syscall', axes: [parseAxis(k, 'generic,vmunix').axis!], base: { parameters: {}, set: {} } });
  assert.deepEqual(both.points.map((p) => p.kernel), ['generic', null]);
});

test('with several seeds a unit is one seed of one step: a step\'s seeds in turn, then the next step, point by point', () => {
  const base = { parameters: { divisor: 40 }, set: {}, spinSeeds: 2 };
  const plan = planSweep({ experiment: 'namecache-work', axes: [{ setting: 'hz', values: [50, 100] }], base });
  const steps = ['namework.nch0', 'namework.nch154', 'namework.nch1000'];
  const expected = [0, 1].flatMap((point) => steps.flatMap((step) => [1, 2].map((seed) => [point, step, seed])));
  assert.deepEqual(plan.units.map((u) => [u.point, u.step, u.seed]), expected);
  assert.deepEqual(plan.units.map((u) => u.index), expected.map((_, i) => i));
  assert.equal(unitLabel(plan, 3), 'hz=50: namework, nchsize=154 (GENERIC), seed 2 of 2');
  // No axis: the experiment's steps and seeds (run --jobs, the page's runs over its workers).
  const one = planSweep({ experiment: 'syscall', axes: [], base: { parameters: {}, set: {}, spinSeeds: 5 } });
  assert.deepEqual(one.units.map((u) => [u.step, u.seed]), [1, 2, 3, 4, 5].map((seed) => ['syscall', seed]));
  assert.equal(unitLabel(one, 4), 'syscall, seed 5 of 5');
  // One seed: a unit is the step's row, as before (no seed).
  for (const spinSeeds of [undefined, 1]) {
    const single = planSweep({ experiment: 'namecache-work', axes: [], base: { parameters: {}, set: {}, ...(spinSeeds ? { spinSeeds } : {}) } });
    assert.deepEqual(single.units, steps.map((step, index) => ({ index, point: 0, step })));
    assert.equal(unitLabel(single, 0), 'namework, nchsize=0 (off)');
  }
});

/** A seed's run of syscall as a unit gives it (RunOptions.seed): its result with the one row. */
function seedResult(real: number, user: number, status: 'ok' | 'failed' = 'ok'): ExperimentResult {
  const row: RowResult = {
    test: 'syscall', command: '/bin/time ./syscall 2000', iterations: 2000, status, limitSeconds: 120, paper: null,
    step: 'syscall', kernelSettings: {},
    ...(status === 'ok' ? { guest: { real, user, sys: 4, line: `${real} real ${user} user 4.0 sys` } }
      : { failure: { kind: 'stopped', message: 'stopped: stopped by the user', output: '' } }),
  };
  return {
    format: RESULT_FORMAT, version: RESULT_VERSION, experiment: 'syscall', title: 't',
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: '', boot: 'single', direct: true, spinSeeds: 3 },
    image: null, parameters: { iterations: 2000 }, kernelSettings: {}, compare: 'c', status, rows: [row], group: 'g', paperRef: 'p', view: 'table2',
  };
}

test('a step\'s row from its seeds\' units: the row runExperiment makes of them (stepRow), in any order of arrival; a seed missing or failed', () => {
  const plan = planSweep({ experiment: 'syscall', axes: [], base: { parameters: { iterations: 2000 }, set: {}, spinSeeds: 3 } });
  const step = plan.points[0]!.spec.steps[0]!;
  assert.ok(step.calibration, 'syscall is a calibration row: the mark comes after the range, as in a run on one machine');
  const seeds = [seedResult(5.3, 0.6), seedResult(5.1, 0.5), seedResult(5.2, 0.7)];
  const before = JSON.stringify(seeds);
  const inOrder = new Map<number, UnitOutcome>(seeds.map((r, i) => [i, { result: r }]));
  const backwards = new Map<number, UnitOutcome>([...inOrder].reverse());
  const assembled = assembleSweep(plan, inOrder, false);
  assert.equal(assembled.status, 'ok');
  const row = assembled.points[0]!.result!.rows[0]!;
  // The row is stepRow's of the seeds' rows in seed order, the median (seed 3's 5.2) with the range over the three.
  assert.equal(JSON.stringify(row), JSON.stringify(stepRow(step, seeds.map((r) => r.rows[0]!), 3)));
  assert.equal(row.guest!.real, 5.2);
  assert.deepEqual(row.spread, { seeds: 3, real: { min: 5.1, max: 5.3 }, user: { min: 0.5, max: 0.7 }, sys: { min: 4, max: 4 } });
  assert.deepEqual(Object.keys(row).slice(-2), ['spread', 'calibration']);
  assert.equal(sweepJson(assembleSweep(plan, backwards, false)), sweepJson(assembled));
  assert.equal(JSON.stringify(seeds), before, 'the units\' results are not changed');
  // Stopped before seed 3 began: no row (the step did not finish), the run stopped.
  const two = assembleSweep(plan, new Map([...inOrder].slice(0, 2)), true);
  assert.equal(two.status, 'stopped');
  assert.equal(two.points[0]!.result, null);
  // Stopped in seed 2 (seed 3 never began): the stopped row, as a run on one machine ends.
  const stopped = assembleSweep(plan, new Map<number, UnitOutcome>([[0, { result: seeds[0]! }], [1, { result: seedResult(0, 0, 'failed') }]]), true);
  assert.equal(stopped.points[0]!.result!.rows[0]!.failure?.kind, 'stopped');
  assert.equal(stopped.points[0]!.result!.status, 'failed');
  // A seed that could not run at all: said, with its seed, and no row.
  const error = assembleSweep(plan, new Map<number, UnitOutcome>([...inOrder].slice(0, 2).concat([[2, { error: 'the worker thread exited' }]])), false);
  assert.equal(error.status, 'failed');
  assert.deepEqual(error.points[0]!.errors, [{ step: 'syscall', message: 'seed 3: the worker thread exited' }]);
  assert.equal(error.points[0]!.result, null);
});

test('a run over several workers says its progress as a run on one machine: the units ended, a step\'s seeds in turn', () => {
  const plan = planSweep({ experiment: 'namecache-work', axes: [], base: { parameters: {}, set: {}, spinSeeds: 2 } });
  const worker = (unit: number | null, virtualSeconds = 0) => ({ unit, label: unit === null ? '' : unitLabel(plan, unit), done: 0, virtualSeconds });
  const progress = (done: number, workers: SweepProgress['workers']): SweepProgress =>
    ({ total: plan.units.length, done, failed: 0, workers, elapsedSeconds: 1, remainingSeconds: null, stopping: false });
  assert.deepEqual(runProgressOf(plan, progress(0, [worker(0, 2.5), worker(1, 3)])),
    { step: 1, steps: 3, label: 'namework, nchsize=0 (off)', virtualSeconds: 3, instructions: 0, seed: { n: 1, of: 2 } });
  assert.deepEqual(runProgressOf(plan, progress(3, [worker(null), worker(4, 1)])),
    { step: 2, steps: 3, label: 'namework, nchsize=1000', virtualSeconds: 1, instructions: 0, seed: { n: 2, of: 2 } });
  assert.deepEqual(runProgressOf(plan, progress(6, [worker(null), worker(null)])),
    { step: 3, steps: 3, label: 'starting', virtualSeconds: 0, instructions: 0, seed: { n: 2, of: 2 } });
  // One seed: a unit is a step, and no seed is said.
  const single = planSweep({ experiment: 'namecache-work', axes: [], base: { parameters: {}, set: {} } });
  assert.deepEqual(runProgressOf(single, { ...progress(1, []), total: 3 }), { step: 2, steps: 3, label: 'starting', virtualSeconds: 0, instructions: 0 });
});

test('runUnits passes each unit\'s counter samples on with the worker that runs it and the unit\'s label', async () => {
  const plan = planSweep({ experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100, 250] }], base: { parameters: {}, set: {} } });
  const result = (unit: number) => ({ status: 'ok', rows: [{ status: 'ok', test: `u${unit}` }] }) as unknown as ExperimentResult;
  // Each fake worker sends two batches per unit, the unit's number in the values.
  const executor = (): UnitExecutor => ({
    check: async () => ({ problems: [], image: false }),
    run: async (unit, _onProgress, onSamples) => {
      onSamples?.([{ row: 0, t: 1, values: { unit } }]);
      await new Promise((r) => setTimeout(r, 1));
      onSamples?.([{ row: 0, t: 2, values: { unit } }, { row: 0, t: 3, values: { unit } }]);
      return result(unit);
    },
    stop: () => {},
  });
  const got: { worker: number; unit: number; label: string; t: number[]; units: number[] }[] = [];
  await runUnits(plan, [0, 1, 2], [executor(), executor()], {
    onSamples: (samples, from) => got.push({ ...from, t: samples.map((x) => x.t), units: samples.map((x) => x.values.unit!) }),
  });
  assert.equal(got.length, 6);
  for (const g of got) {
    assert.deepEqual(g.units.map(() => g.unit), g.units, 'the samples are of the unit said');
    assert.equal(g.label, unitLabel(plan, g.unit));
  }
  // Both workers sent; the first took unit 0 and the second unit 1 (each takes the next as it is free).
  assert.deepEqual(got.filter((g) => g.t[0] === 1).slice(0, 2).map((g) => [g.worker, g.unit]), [[0, 0], [1, 1]]);
  assert.deepEqual([...new Set(got.map((g) => g.unit))].sort(), [0, 1, 2]);
  // Without a listener the executors are given none.
  let given: unknown = 'unset';
  await runUnits(plan, [0], [{ ...executor(), run: async (unit, _p, onSamples) => { given = onSamples; return result(unit); } }]);
  assert.equal(given, undefined);
});

test('shard specs: INDEX/COUNT from 0', () => {
  assert.deepEqual(parseShardSpec('0/4'), { index: 0, count: 4 });
  assert.deepEqual(parseShardSpec('3/4'), { index: 3, count: 4 });
  assert.match(String(parseShardSpec('4/4')), /counts from 0, so it must be below 4/);
  assert.match(String(parseShardSpec('1/0')), /the count must be 1 to/);
  assert.match(String(parseShardSpec('one/4')), /takes INDEX\/COUNT/);
});

// ------------------------------------------------------------ on the emulator

const lab = useLabImage('sweep.test.ts');
const skip = lab.skip || (!wasmBuildExists() ? 'no wasm build' : false);
// The pack as `vaxlab sweep` shares it: the chunked image when the installer wrote one; and the whole pack.
let pack: SharedPack;
let flatPack: SharedPack;
const IMAGE = { name: 'test image' };
before(async () => {
  if (skip) return;
  pack = await loadSharedPack(findLabImage()!);
  flatPack = await loadSharedPack(findLabImage()!, { flat: true });
});

/** Runs a request's units (all, or some) on `jobs` threads. */
async function runOnThreads(request: SweepRequest, jobs: number,
  options: {
    units?: number[]; signal?: AbortSignal; onWorkers?: (busy: number) => void; pack?: SharedPack; loader?: ThreadLoader;
    onUnit?: (unit: number, worker: number) => void;
  } = {}) {
  const plan = planSweep(request);
  const pool = threadExecutors(request, jobs, options.pack ?? pack, IMAGE, {}, options.loader);
  let starts: ThreadStart[] = [];
  let memory: ThreadMemory[] = [];
  try {
    const ran = await runUnits(plan, options.units ?? plan.units.map((u) => u.index), pool.executors, {
      signal: options.signal,
      progressMs: 0,
      // Workers whose unit has begun to run (reported virtual time).
      onProgress: (p) => options.onWorkers?.(p.workers.filter((w) => w.unit !== null && w.virtualSeconds > 0).length),
      onUnit: (unit, _outcome, info) => options.onUnit?.(unit, info.worker),
    });
    memory = await pool.memory();
    starts = pool.starts();
    return { plan, starts, memory, ...ran };
  } finally {
    await pool.close();
  }
}

// On the image's /vmunix (syscall, a Table 2 row, boots the paper's kernel by default: a variant whose bytes these
// threads are not given; the test after the next has a variant on worker units).
const SWEEP: SweepRequest = {
  experiment: 'syscall',
  axes: [{ setting: 'hz', values: [50, 1000] }, { setting: 'cpu', values: [750, 780] }],
  base: { parameters: { iterations: 2000 }, set: {}, kernel: 'vmunix' },
};
let whole: { json: string; outcomes: Map<number, UnitOutcome> } | null = null;

test('a sweep on one worker thread and on two: the same bytes; a point is the experiment run with its settings', { skip }, async () => {
  const one = await runOnThreads(SWEEP, 1);
  // Two threads over the whole pack in shared memory (no chunked image): the same bytes again.
  const two = await runOnThreads(SWEEP, 2, { pack: flatPack });
  assert.equal(pack.format, existsSync(findLabImage()!.replace(/\.dsk\.gz$/, '.dskz')) ? 'chunked' : 'flat');
  assert.equal(flatPack.format, 'flat');
  const a = assembleSweep(one.plan, one.outcomes, one.stopped);
  const b = assembleSweep(two.plan, two.outcomes, two.stopped);
  assert.equal(a.status, 'ok');
  assert.equal(sweepJson(b), sweepJson(a));
  whole = { json: sweepJson(a), outcomes: one.outcomes };
  // hz=1000 on a 780 against a direct run (in this thread, the pack in wasm memory).
  const direct = await runExperiment(lab.api.vax780, lab.disk, syscall, { parameters: { iterations: 2000 }, set: { hz: 1000, cpu: 780 }, image: IMAGE });
  assert.equal(resultJson(a.points[3]!.result!), resultJson(direct));
  // More clock interrupts cost time; the 780 is faster.
  const real = a.points.map((p) => p.result!.rows[0]!.guest!.real);
  assert.ok(real[2]! > real[0]!, `hz=1000 (${real[2]}) not slower than hz=50 (${real[0]}) on a 750`);
  assert.ok(real[1]! < real[0]!, `a 780 (${real[1]}) not faster than a 750 (${real[0]})`);
  // The file reads back (the checked copy lists the fields in the schema's order); the table and the chart have a line per cpu, the paper's figure at hz=100 only (not swept here).
  assert.deepEqual(validateSweep(JSON.parse(sweepJson(a)), 'sweep'), JSON.parse(sweepJson(a)));
  const chart = sweepChart(a, findMeasure('elapsed')!);
  assert.deepEqual(chart.lines.map((l) => [l.label, l.points.map((p) => p.x), l.paper]), [['cpu=750', [50, 1000], []], ['cpu=780', [50, 1000], []]]);
  assert.equal(sweepTable(a, findMeasure('syscalls')!).rows.length, 4);
});

test('the threads run the bundle, without tsx\'s loader; through tsx they give the same bytes', { skip }, async () => {
  assert.ok(whole, 'the sweep of the first test ran');
  const bundled = await runOnThreads(SWEEP, 2, { loader: 'bundle' });
  const typescript = await runOnThreads(SWEEP, 2, { loader: 'tsx' });
  // Each thread says whether a TypeScript loader serves it (tsx resolves an import without extension to its .ts).
  assert.deepEqual(bundled.starts.map((s) => [s.loader, s.typescriptLoader]), [['bundle', false], ['bundle', false]]);
  assert.deepEqual(typescript.starts.map((s) => [s.loader, s.typescriptLoader]), [['tsx', true], ['tsx', true]]);
  const json = (r: typeof bundled) => sweepJson(assembleSweep(r.plan, r.outcomes, r.stopped));
  assert.equal(json(bundled), whole.json);
  assert.equal(json(typescript), whole.json);
  // Each thread reports its own heap (after its units: a few MB at least, the plan and the runner's code).
  for (const m of [...bundled.memory, ...typescript.memory]) assert.ok(m.heapUsed > 1e6 && m.heapUsed < m.rss, JSON.stringify(m));
});

test('run --jobs: the steps of an experiment on two threads make the result of the experiment run whole', { skip }, async () => {
  const spec = findExperiment('namecache-work')!;
  const request: SweepRequest = { experiment: spec.id, axes: [], base: { parameters: { divisor: 40 }, set: {} } };
  const ran = await runOnThreads(request, 2);
  const joined = assembleSweep(ran.plan, ran.outcomes, ran.stopped).points[0]!.result!;
  const direct = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters: { divisor: 40 }, image: IMAGE });
  assert.equal(resultJson(joined), resultJson(direct));
  assert.equal(joined.rows.length, 3);
});

test('a unit\'s counter samples, as a worker passes them on live, are the series its row keeps', { skip }, async () => {
  const request: SweepRequest = { experiment: 'syscall', axes: [], base: { parameters: { iterations: 2000 }, set: {}, kernel: 'vmunix' } };
  const runner = new SweepUnitRunner(lab.api.vax780, lab.disk, request);
  const samples: CounterSample[] = [];
  const ran = await runUnits(runner.plan, [0], [localExecutor(runner, { image: IMAGE })], {
    onSamples: (batch, from) => {
      assert.deepEqual([from.worker, from.unit], [0, 0]);
      samples.push(...batch);
    },
  });
  const outcome = ran.outcomes.get(0)!;
  assert.ok('result' in outcome);
  const row = outcome.result.rows[0]!;
  assert.ok(row.counters && row.counters.t.length > 3, 'the row keeps a series');
  // The live samples have every counter; the row keeps the experiment's (ExperimentSpec.counters), at the same times.
  assert.deepEqual(samples.map((x) => x.t), row.counters.t);
  assert.ok(samples.every((x) => x.row === 0));
  for (const [id, values] of Object.entries(row.counters.values)) assert.deepEqual(samples.map((x) => x.values[id]), values, id);
  assert.ok(Object.keys(samples[0]!.values).length > Object.keys(row.counters.values).length);
});

test('seeds as units: a step\'s seeds spread over two threads, and its row is the run on one machine\'s, byte for byte', { skip }, async () => {
  // syscall is a calibration row (its mark follows the range); 3 seeds on 2 threads: the first two start at once.
  const one: SweepRequest = { experiment: 'syscall', axes: [], base: { parameters: { iterations: 2000 }, set: {}, spinSeeds: 3, kernel: 'vmunix' } };
  const workers = new Map<number, number>();
  const ran = await runOnThreads(one, 2, { onUnit: (unit, worker) => workers.set(unit, worker) });
  assert.equal(ran.plan.units.length, 3);
  assert.deepEqual([...new Set(workers.values())].sort(), [0, 1], 'the step\'s seeds ran on both threads');
  const joined = assembleSweep(ran.plan, ran.outcomes, ran.stopped).points[0]!.result!;
  const direct = await runExperiment(lab.api.vax780, lab.disk, syscall, { parameters: { iterations: 2000 }, spinSeeds: 3, image: IMAGE });
  assert.equal(resultJson(joined), resultJson(direct));
  assert.equal(joined.rows[0]!.spread?.seeds, 3);
  assert.equal(joined.rows[0]!.calibration, true);
  // In shards a step's seeds are units like any other: two shards of the three seeds merge into the same bytes.
  const header = (index: number): ShardHeader => ({
    format: SHARD_FORMAT, version: SHARD_VERSION, shard: { index, count: 2 }, request: one, units: 3, image: IMAGE,
  });
  assert.deepEqual([0, 1].map((i) => shardUnits(ran.plan, { index: i, count: 2 })), [[0, 2], [1]]);
  const shards = [0, 1].map((i) => readShard(`s${i}.jsonl`,
    shardJsonl(header(i), new Map(shardUnits(ran.plan, { index: i, count: 2 }).map((u) => [u, ran.outcomes.get(u)!])))));
  assert.equal(sweepJson(mergeShards(shards).result), sweepJson(assembleSweep(ran.plan, ran.outcomes, ran.stopped)));
  // Three steps of two seeds each: six units, joined step by step.
  const spec = findExperiment('namecache-work')!;
  const three: SweepRequest = { experiment: spec.id, axes: [], base: { parameters: { divisor: 40 }, set: {}, spinSeeds: 2 } };
  const ran3 = await runOnThreads(three, 2);
  assert.equal(ran3.plan.units.length, 6);
  const joined3 = assembleSweep(ran3.plan, ran3.outcomes, ran3.stopped).points[0]!.result!;
  const direct3 = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters: { divisor: 40 }, spinSeeds: 2, image: IMAGE });
  assert.equal(resultJson(joined3), resultJson(direct3));
  assert.deepEqual(joined3.rows.map((r) => r.spread?.seeds), [2, 2, 2]);
});

test('shards: each runs its slice; merged they are the sweep\'s bytes; shards that do not belong together are refused', { skip }, async () => {
  assert.ok(whole, 'the sweep of the first test ran');
  const plan = planSweep(SWEEP);
  const header = (index: number, count: number, h: Partial<ShardHeader> = {}): ShardHeader => ({
    format: SHARD_FORMAT, version: SHARD_VERSION, shard: { index, count }, request: SWEEP, units: plan.units.length, image: IMAGE, ...h,
  });
  const slice = (index: number, count: number) => new Map(shardUnits(plan, { index, count }).map((u) => [u, whole!.outcomes.get(u)!]));
  assert.deepEqual(shardUnits(plan, { index: 1, count: 3 }), [1]);
  assert.deepEqual(shardUnits(plan, { index: 0, count: 3 }), [0, 3]);
  const texts = [0, 1, 2].map((i) => shardJsonl(header(i, 3), slice(i, 3)));
  // A shard runs only its slice: shard 1/3 on a thread gives the line the whole sweep's unit 1 gives.
  const own = await runOnThreads(SWEEP, 1, { units: shardUnits(plan, { index: 1, count: 3 }) });
  assert.equal(shardJsonl(header(1, 3), own.outcomes), texts[1]);
  const shards = texts.map((t, i) => readShard(`s${i}.jsonl`, t));
  assert.equal(sweepJson(mergeShards([shards[2]!, shards[0]!, shards[1]!]).result), whole.json);

  const refusedWith = (f: () => unknown): string[] => {
    try {
      f();
    } catch (e) {
      if (e instanceof ShardError) return e.problems;
      throw e;
    }
    assert.fail('not refused');
  };
  assert.deepEqual(refusedWith(() => mergeShards([shards[0]!, shards[1]!])), ['shard 2/3 missing (2 of the 3 shards given)']);
  assert.deepEqual(refusedWith(() => mergeShards([shards[0]!, shards[1]!, readShard('again.jsonl', texts[1]!)])),
    ['s1.jsonl and again.jsonl are both shard 1/3', 'shard 2/3 missing (2 of the 3 shards given)']);
  const other = readShard('other.jsonl', shardJsonl(header(2, 3, { request: { ...SWEEP, axes: [SWEEP.axes[0]!] } }), new Map()));
  assert.deepEqual(refusedWith(() => mergeShards([shards[0]!, shards[1]!, other])),
    ['other.jsonl is a shard of another sweep than s0.jsonl (hz=50,1000 against hz=50,1000 cpu=750,780)']);
  const image = readShard('image.jsonl', shardJsonl(header(2, 3, { image: { name: 'x', sha256: 'abcdef0123456789' } }), slice(2, 3)));
  assert.deepEqual(refusedWith(() => mergeShards([shards[0]!, shards[1]!, image])),
    ['image.jsonl ran on another image than s0.jsonl (abcdef012345 against test image)']);
  const fourths = readShard('fourth.jsonl', shardJsonl(header(2, 4), new Map()));
  assert.deepEqual(refusedWith(() => mergeShards([shards[0]!, shards[1]!, fourths])), ['fourth.jsonl is one of 4 shards, s0.jsonl one of 3']);
  const short = readShard('short.jsonl', shardJsonl(header(0, 3), new Map([[0, whole.outcomes.get(0)!]])));
  assert.deepEqual(refusedWith(() => mergeShards([short, shards[1]!, shards[2]!])),
    ['short.jsonl (shard 0/3) lacks 1 of its units (3): it was stopped or did not finish']);
  assert.deepEqual(refusedWith(() => readShard('x.json', whole!.json)), ['x.json:1: not JSON (not a shard of vaxlab sweep --shard)']);
  assert.deepEqual(refusedWith(() => readShard('e.jsonl', '')), ['e.jsonl: empty (not a shard of vaxlab sweep --shard)']);
  // Version 1's units were whole steps with every seed: its shards of a sweep with seeds are refused, saying so; its
  // one-seed shards have the same units and lines as version 2's, so they are read and merge to the same bytes.
  const seeded = shardJsonl(header(0, 3, { request: { ...SWEEP, base: { ...SWEEP.base, spinSeeds: 2 } } }), new Map());
  assert.deepEqual(refusedWith(() => readShard('old.jsonl', seeded.replace(`"version":${SHARD_VERSION}`, '"version":1'))),
    ['old.jsonl: shard format version 1, from a vaxlab that ran a step\'s seeds as one unit; this one runs each seed as a unit ' +
      'of its own and reads version 2: run the shard again (vaxlab sweep ... --shard I/N)']);
  const version1 = texts.map((t, i) => readShard(`v1-${i}.jsonl`, t.replace(`"version":${SHARD_VERSION}`, '"version":1')));
  assert.equal(sweepJson(mergeShards(version1).result), whole.json);
  assert.deepEqual(refusedWith(() => readShard('v9.jsonl', texts[0]!.replace(`"version":${SHARD_VERSION}`, '"version":9'))),
    ['v9.jsonl: shard format version 9; this vaxlab reads 2 (and 1 without seeds)']);
  const lines = texts[0]!.split('\n');
  assert.deepEqual(refusedWith(() => readShard('dup.jsonl', [lines[0], lines[1], lines[1]].join('\n'))), ['dup.jsonl:3: unit 0 a second time']);
  assert.deepEqual(refusedWith(() => readShard('mis.jsonl', texts[0]!.replace('"unit":3', '"unit":4'))),
    ['mis.jsonl:3: unit 4 is not one of shard 0/3\'s']);
  assert.match(refusedWith(() => readShard('bad.jsonl', texts[0]!.replace('"status":"ok"', '"status":"fine"')))[0]!,
    /^bad\.jsonl:2: not a unit's result: at bad\.jsonl:2\.result\.status, expected "ok" or "failed", found the string "fine"$/);
});

test('a failing point is marked and the sweep goes on; Stop stops every worker at once', { skip }, async () => {
  // 400,000 getpids on a 750 take about 90 virtual seconds: over the 30 s limit.
  const request: SweepRequest = {
    experiment: 'syscall', axes: [{ setting: 'iterations', values: [2000, 400_000, 3000] }], base: { parameters: {}, set: {}, limitSeconds: 30, kernel: 'vmunix' },
  };
  const ran = await runOnThreads(request, 2);
  const result: SweepResult = assembleSweep(ran.plan, ran.outcomes, ran.stopped);
  assert.equal(result.status, 'failed');
  assert.deepEqual(result.points.map((p) => p.result?.status), ['ok', 'failed', 'ok']);
  assert.equal(result.points[1]!.result!.rows[0]!.failure?.kind, 'time limit');
  const table = sweepTable(result, findMeasure('elapsed')!);
  assert.deepEqual(table.rows.map((r) => r.cells.at(-1)!.text.split(':')[0]), ['ok', 'time limit', 'ok']);

  // Four long points (400,000 getpids, about 3 host seconds each) on two threads: Stop once both are running.
  const long: SweepRequest = {
    experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100, 250, 1000] }], base: { parameters: { iterations: 400_000 }, set: {}, kernel: 'vmunix' },
  };
  const abort = new AbortController();
  const t0 = performance.now();
  const stopped = await runOnThreads(long, 2, { signal: abort.signal, onWorkers: (busy) => { if (busy === 2) abort.abort(); } });
  const s = assembleSweep(stopped.plan, stopped.outcomes, stopped.stopped);
  assert.equal(s.status, 'stopped');
  const kinds = s.points.map((p) => p.result?.rows[0]?.failure?.kind ?? (p.result ? p.result.status : 'not run'));
  // Both running units end 'stopped' (one may have finished first, under load), the rest never start.
  assert.equal(kinds.filter((k) => k === 'stopped').length, 2, `points: ${kinds.join(', ')}`);
  assert.deepEqual(kinds.slice(kinds.lastIndexOf('stopped') + 1), kinds.slice(kinds.lastIndexOf('stopped') + 1).map(() => 'not run'));
  assert.ok(kinds.slice(0, kinds.indexOf('stopped')).every((k) => k === 'ok'), `points: ${kinds.join(', ')}`);
  assert.equal(s.points.find((p) => p.result?.rows[0]?.failure)!.result!.rows[0]!.failure!.message, 'stopped: stopped by the user');
  assert.ok(performance.now() - t0 < 8000, 'Stop did not stop the running units');
});


test('a kernel variant on worker units boots as run --kernel boots it; without its bytes the sweep is refused before it runs', { skip }, async (t) => {
  const file = kernelFileBeside(findLabImage()!, 'no-name-cache');
  if (!existsSync(file)) {
    t.skip(`${file} is not built (npm run image builds the kernels)`);
    return;
  }
  const bytes = await loadDiskImage(file);
  const kernel = { name: 'no-name-cache: test', bytes, sha256: 'k' };
  const request: SweepRequest = { experiment: 'namecache-work', axes: [], base: { parameters: { divisor: 40 }, set: {}, kernel: 'no-name-cache' } };
  const runner = new SweepUnitRunner(lab.api.vax780, lab.disk, request, (name) => (name === 'no-name-cache' ? kernel : undefined));
  const plan = runner.plan;
  const ran = await runUnits(plan, plan.units.map((u) => u.index), [localExecutor(runner, { image: IMAGE })]);
  const joined = assembleSweep(plan, ran.outcomes, ran.stopped).points[0]!.result!;
  const direct = await runExperiment(lab.api.vax780, lab.disk, findExperiment('namecache-work')!, { parameters: { divisor: 40 }, kernel, image: IMAGE });
  assert.equal(resultJson(joined), resultJson(direct));
  assert.deepEqual(joined.kernel, { name: 'no-name-cache: test', sha256: 'k' });
  // The variant has no name cache: no hits even at nchsize 1000.
  assert.deepEqual(joined.rows.map((r) => r.totals?.['namei.hits']), [0, 0, 0]);
  const without = new SweepUnitRunner(lab.api.vax780, lab.disk, request);
  await assert.rejects(runUnits(without.plan, [0], [localExecutor(without)]),
    (e: unknown) => e instanceof SettingsError && /kernel no-name-cache: not available here/.test(e.problems.join('\n')));
});
