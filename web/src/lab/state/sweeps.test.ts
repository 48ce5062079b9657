// Sweeps in the page's state (state/sweeps.ts) and the pool (pool.ts), in
// Node: the request the forms make (the same a command line makes), what is
// refused, the workers' count; the pool's protocol with its workers (started
// from the shared pack, a unit's messages, a dead worker replaced for the
// next unit) over fake ports; the first worker as an executor through the
// page's link.  The workers themselves run in e2e/sweep.spec.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { planSweep, type SweepRequest } from '../../../../experiments/runner/sweep';
import { initialForm, type FormState } from '../config';
import { cores, WorkerPool, type PoolPort } from '../pool';
import type { CounterSample, FromWorker, ImageManifest, MachineStarts, ToWorker } from '../../worker/protocol';
import type { ExperimentResult } from '../../../../experiments/runner/result';
import { TextStream } from './textStream';
import type { SharedPack } from '../../../../emu/js/sharedPack';
import { checkSweep, LinkExecutors, startsText, parseJobs, Sweeps, sweepChoices, type SweepFormState } from './sweeps';

const form = (patch: Partial<FormState> = {}): FormState => ({ ...initialForm(), experimentId: 'syscall', ...patch });
const sweep = (setting: string, values: string, jobs = '1', second?: [string, string]): SweepFormState => ({
  axes: [{ setting, values }, { setting: second?.[0] ?? '', values: second?.[1] ?? '' }], jobs,
});

test('the forms make the request the command line makes for the same sweep', () => {
  const c = checkSweep(form({ params: { syscall: { iterations: '2000' } } }), sweep('hz', '50,100'));
  assert.deepEqual(c.problems, []);
  // npx vaxlab sweep syscall --param iterations=2000 --set hz=50,100
  const cli: SweepRequest = { experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100] }], base: { parameters: { iterations: 2000 }, set: {} } };
  assert.equal(JSON.stringify(c.request), JSON.stringify(cli));
  assert.equal(c.plan!.points.length, 2);
  // The experiment's own figures are left out; a machine setting that differs is kept.
  const m = checkSweep(form({ cpu: '780', params: { syscall: { iterations: '100000' } } }), sweep('memoryMB', '1..3', '1', ['hz', '100,1000']));
  assert.deepEqual(m.request!.base, { parameters: {}, set: {}, cpu: '780' });
  assert.deepEqual(m.request!.axes, [{ setting: 'memoryMB', values: [1, 2, 3] }, { setting: 'hz', values: [100, 1000] }]);
  assert.equal(m.plan!.points.length, 6);
  // The form's seeds: every step of every point with seeds 1..N, as `--seeds N` has it; one seed is not said.
  const seeded = checkSweep(form({ params: { syscall: { iterations: '2000' } }, seeds: '3' }), sweep('hz', '50,100'));
  assert.equal(JSON.stringify(seeded.request), JSON.stringify({ ...cli, base: { ...cli.base, spinSeeds: 3 } }));
  assert.deepEqual(seeded.plan!.points.map((pt) => pt.options.spinSeeds), [3, 3]);
  assert.ok(!('spinSeeds' in checkSweep(form({ seeds: '1' }), sweep('hz', '50')).request!.base));
  assert.deepEqual(checkSweep(form({ seeds: '10' }), sweep('hz', '50')).problems, ['fix the settings marked in red']);
});

test('a setting swept is taken from the sweep, not the form, and the form says so', () => {
  const c = checkSweep(form({ kernelToggles: { hz: '250', nproc: '100' }, cpu: '780' }), sweep('hz', '50,100', '1', ['cpu', '750,780']));
  assert.deepEqual(c.problems, []);
  assert.deepEqual(c.notes, ['hz: the sweep\'s values replace the settings\' 250', 'cpu: the sweep\'s values replace the settings\' 780']);
  assert.deepEqual(c.request!.base, { parameters: {}, set: { nproc: 100 } });
  const p = checkSweep(form({ params: { syscall: { iterations: '5000' } } }), sweep('iterations', '1000,2000'));
  assert.deepEqual(p.request!.base.parameters, {});
  assert.deepEqual(p.notes, ['iterations: the sweep\'s values replace the settings\' 5000']);
  // The disks' rotation is a setting like the disk's timing, held by name: swept, the form's gives way to the
  // sweep's values (and the form says so); not swept, the form's is every point's.
  const r = checkSweep(form({ spin: 'locked', disk: 'eagle' }), sweep('spin', 'drifting,locked'));
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.notes, ['spin: the sweep\'s values replace the settings\' locked']);
  assert.deepEqual(r.request!.base, { parameters: {}, set: {}, disk: 'eagle' });
  assert.deepEqual(r.plan!.points.map((pt) => pt.options.set?.spin), [0, 1]);
  const d = checkSweep(form({ spin: 'locked', disk: 'eagle' }), sweep('disk', 'rp06,ideal'));
  assert.deepEqual(d.problems, []);
  assert.deepEqual(d.notes, ['disk: the sweep\'s values replace the settings\' eagle']);
  assert.deepEqual(d.request!.base, { parameters: {}, set: {}, spin: 'locked' });
  assert.deepEqual(d.plan!.points.map((pt) => pt.options.set?.disk), [0, 2]);
  // Both swept: the form's machine is the experiment's, as if it named neither.
  const both = checkSweep(form({ spin: 'locked', disk: 'eagle' }), sweep('disk', 'rp06,ideal', '1', ['spin', 'drifting,locked']));
  assert.deepEqual(both.problems, []);
  assert.deepEqual(both.request!.base, { parameters: {}, set: {} });
  assert.equal(both.plan!.points.length, 4);
  // Not swept, the form's are every point's; the defaults by name are left out, as not set.
  assert.deepEqual(checkSweep(form({ spin: 'locked', disk: 'rm05' }), sweep('hz', '50,100')).request!.base,
    { parameters: {}, set: {}, disk: 'rm05', spin: 'locked' });
  assert.deepEqual(checkSweep(form({ spin: 'drifting', disk: 'rp06' }), sweep('hz', '50,100')).request!.base, { parameters: {}, set: {} });
});

test('the kernel variants as a sweep\'s axis (as `vaxlab sweep --set kernel=...`); a chosen variant is every point\'s otherwise', () => {
  assert.equal(sweepChoices('ls-l').at(-1)!.name, 'kernel');
  const c = checkSweep(form({ experimentId: 'ls-l', variant: 'no-name-cache' }), sweep('kernel', 'generic,no-offset-cache'));
  assert.deepEqual(c.problems, []);
  assert.deepEqual(c.request!.base, { parameters: {}, set: {} });
  assert.deepEqual(c.plan!.points.map((p) => p.kernel), ['generic', 'no-offset-cache']);
  const fixed = checkSweep(form({ experimentId: 'ls-l', variant: 'no-name-cache' }), sweep('memoryMB', '4,5'));
  assert.equal(fixed.request!.base.kernel, 'no-name-cache');
  assert.deepEqual(fixed.plan!.points.map((p) => p.kernel), ['no-name-cache', 'no-name-cache']);
  assert.match(checkSweep(form({ experimentId: 'ls-l' }), sweep('kernel', 'like-4.3')).problems[0]!, /kernel=like-4\.3: .*one of generic, no-offset-cache/);
});

test('what the forms refuse: each bad value by name, the settings marked in red, a setting chosen twice, the workers', () => {
  assert.deepEqual(checkSweep(form(), sweep('hz', '50,abc,5000')).problems.map((p) => p.replace(/ \(below.*$/, '')), [
    'hz=abc: not a value of hz (a whole number from 50 to 1000)', 'hz=5000: 5000 is out of range 50..1000',
  ]);
  assert.deepEqual(checkSweep(form(), sweep('hz', '')).problems, ['hz: no values (give a list such as hz=1,2,3 or a range such as hz=1..8)']);
  assert.deepEqual(checkSweep(form({ kernelToggles: { nproc: '5' } }), sweep('hz', '50')).problems, ['fix the settings marked in red']);
  assert.deepEqual(checkSweep(form(), sweep('hz', '50', '1', ['hz', '60'])).problems, ['hz: chosen twice']);
  assert.match(checkSweep(form(), sweep('hz', '50..1000:5', '1', ['memoryMB', '1,2'])).problems[0]!, /^382 points \(191 hz × 2 memoryMB\)/);
  assert.match(checkSweep(form({ experimentId: 'namecache' }), sweep('iterations', '1,2')).problems[0]!, /^unknown setting "iterations"/);
  assert.deepEqual(parseJobs('0'), { jobs: Math.max(1, cores() - 1), error: 'at least 1 worker' });
  assert.equal(parseJobs(String(cores() + 1)).error, `at most ${cores()} (this machine's cores)`);
  assert.deepEqual(parseJobs('1'), { jobs: 1, error: null });
  assert.equal(parseJobs('two').error, `a whole number from 1 to ${cores()}`);
  assert.deepEqual(sweepChoices('table2').slice(0, 2).map((c) => c.name), ['divisor', 'nchsize']);
});

/** A fake worker: what the pool posted, and replies as the worker would. */
class FakePort implements PoolPort {
  posted: ToWorker[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(m: ToWorker): void {
    this.posted.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
  send(m: FromWorker): void {
    this.onmessage?.({ data: m } as MessageEvent<FromWorker>);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test('the pool starts its workers from the shared pack, sends them units, and replaces a worker that dies', async () => {
  const ports: FakePort[] = [];
  const pool = new WorkerPool(() => {
    const p = new FakePort();
    ports.push(p);
    return p;
  });
  assert.equal(pool.availability().available, false);
  const pack: SharedPack = { format: 'chunked', bytes: new SharedArrayBuffer(16), sha256: 'ab'.repeat(32) };
  // The manifest goes to every pool worker: its shipped machine snapshots are restored there as in the first worker.
  const manifest: ImageManifest = {
    image: { file: '43bsd.dsk.gz', bytes: 9, uncompressedBytes: 16 },
    snapshots: { emulatorBuild: 'cd'.repeat(32), boots: [] },
  };
  pool.handle({ type: 'pack', kernel: '4.3BSD', pack, image: { name: '43bsd.dsk.gz', sha256: 'ab' }, images: [], manifest });
  const request: SweepRequest = { experiment: 'syscall', axes: [{ setting: 'hz', values: [50, 100] }], base: { parameters: {}, set: {} } };
  const starts: [MachineStarts, number][] = [];
  const [a, b] = pool.executors(2, '4.3BSD', request, (s, worker) => starts.push([s, worker]));
  assert.equal(ports.length, 2);
  assert.deepEqual(ports[0]!.posted, [
    { type: 'init-shared', kernel: '4.3BSD', pack, image: { name: '43bsd.dsk.gz', sha256: 'ab' }, images: [], manifest },
  ]);
  ports.forEach((p) => p.send({ type: 'ready', kernel: '4.3BSD', image: { name: 'x', bytes: 16, compressedBytes: 0 }, variants: [], wasmMs: 1, imageMs: 0 }));

  const progress: number[] = [];
  const samples: CounterSample[][] = [];
  const running = a!.run(1, (p) => progress.push(p.virtualSeconds), (batch) => samples.push(batch));
  await tick();
  const sent = ports[0]!.posted.at(-1) as Extract<ToWorker, { type: 'units-run' }>;
  assert.equal(sent.type, 'units-run');
  assert.equal(sent.unit, 1);
  assert.deepEqual(sent.request, request);
  ports[0]!.send({ type: 'units-progress', id: sent.id, progress: { step: 1, steps: 1, label: 'syscall', virtualSeconds: 3, instructions: 9 } });
  // The unit's counter samples go to its listener, a batch at a time; another request's are not its.
  const batch = [{ row: 0, t: 0.5, values: { 'faults.sy': 120 } }, { row: 0, t: 1, values: { 'faults.sy': 130 } }];
  // Nor are a run's, though its runId be the request's id (runs and units are numbered apart).
  ports[0]!.send({ type: 'counter-samples', of: { kind: 'unit', id: sent.id }, samples: batch });
  ports[0]!.send({ type: 'counter-samples', of: { kind: 'unit', id: sent.id + 100 }, samples: [{ row: 0, t: 9, values: {} }] });
  ports[0]!.send({ type: 'counter-samples', of: { kind: 'run', runId: sent.id }, samples: [{ row: 0, t: 8, values: {} }] });
  assert.deepEqual(samples, [batch]);
  const result = { rows: [] } as unknown as import('../../../../experiments/runner/result').ExperimentResult;
  ports[0]!.send({ type: 'units-done', id: sent.id, result, starts: { shipped: 1, here: 0, booted: 0 } });
  assert.equal(await running, result);
  assert.deepEqual(starts, [[{ shipped: 1, here: 0, booted: 0 }, 0]]);
  assert.equal(startsText({ shipped: 2, here: 1, booted: 3 }), '3 restored (2 shipped, 1 saved here), 3 booted');
  assert.deepEqual(progress, [3]);
  b!.stop();
  assert.deepEqual(ports[1]!.posted.at(-1), { type: 'units-stop' });

  // Worker 2 dies during a unit: the unit fails saying why; the next unit goes to a new worker.
  const dying = b!.run(0, () => {});
  await tick();
  ports[1]!.onerror?.({ message: 'out of memory' } as ErrorEvent);
  await assert.rejects(dying, /a pool worker failed: out of memory/);
  const again = b!.check();
  assert.equal(ports.length, 3);
  assert.ok(ports[1]!.terminated);
  assert.equal(ports[2]!.posted[0]!.type, 'init-shared');
  ports[2]!.send({ type: 'ready', kernel: '4.3BSD', image: { name: 'x', bytes: 16, compressedBytes: 0 }, variants: [], wasmMs: 1, imageMs: 0 });
  await tick();
  const check = ports[2]!.posted.at(-1) as Extract<ToWorker, { type: 'units-check' }>;
  ports[2]!.send({ type: 'units-checked', id: check.id, problems: ['x: no'], image: true });
  assert.deepEqual(await again, { problems: ['x: no'], image: true });
  // The plan the workers make is the page's.
  assert.equal(planSweep(check.request).units.length, 2);
});

test('without the pool, the first worker runs the units through the page\'s link', async () => {
  const posted: ToWorker[] = [];
  const link = new LinkExecutors((m) => posted.push(m));
  const request: SweepRequest = { experiment: 'syscall', axes: [], base: { parameters: {}, set: {} } };
  const ex = link.executor('4.3BSD', request);
  const checked = ex.check();
  const m = posted[0] as Extract<ToWorker, { type: 'units-check' }>;
  link.handle({ type: 'units-checked', id: m.id + 1, problems: ['not this one'], image: false });
  link.handle({ type: 'units-checked', id: m.id, problems: [], image: false });
  assert.deepEqual(await checked, { problems: [], image: false });
  const run = ex.run(0, () => {});
  const r = posted[1] as Extract<ToWorker, { type: 'units-run' }>;
  link.handle({ type: 'units-failed', id: r.id, message: 'no experiment' });
  await assert.rejects(run, /no experiment/);
  ex.stop();
  assert.deepEqual(posted[2], { type: 'units-stop' });
});

test('a sweep\'s live counters: its workers\' samples feed the Counters panel\'s state while it runs, cleared when it ends', async () => {
  // In Node the page is not cross-origin isolated: the first worker (through the link) runs the units.
  const posted: ToWorker[] = [];
  const sweeps = new Sweeps(new WorkerPool(() => new FakePort()), (m) => posted.push(m), new TextStream(), {
    saveSweep: async () => ({ id: 's1' }) as never, listSweeps: async () => [], deleteSweep: async () => {},
  });
  sweeps.form.set(sweep('hz', '50,100'));
  sweeps.start(form({ params: { syscall: { iterations: '2000' } } }));
  assert.deepEqual(sweeps.live.state.get()?.owner, { kind: 'sweep', id: 1 });
  assert.equal(sweeps.live.state.get()!.experiment, 'syscall');
  assert.equal(sweeps.live.state.get()!.workers.length, 1);
  const check = posted.at(-1) as Extract<ToWorker, { type: 'units-check' }>;
  sweeps.handle({ type: 'units-checked', id: check.id, problems: [], image: false });
  await tick();
  const unit = posted.at(-1) as Extract<ToWorker, { type: 'units-run' }>;
  assert.equal(unit.type, 'units-run');
  sweeps.handle({ type: 'counter-samples', of: { kind: 'unit', id: unit.id }, samples: [{ row: 0, t: 0.4, values: { 'faults.sy': 3100 } }] });
  sweeps.handle({ type: 'counter-samples', of: { kind: 'unit', id: unit.id }, samples: [{ row: 0, t: 0.8, values: { 'faults.sy': 3300 } }] });
  // Told after LIVE_MS, once.
  await new Promise((r) => setTimeout(r, 300));
  const live = sweeps.live.state.get()!;
  assert.deepEqual(live.workers.map((w) => [w.unit, w.label, w.running]), [[unit.unit, 'hz=50: syscall', true]]);
  assert.deepEqual(live.workers[0]!.series, { t: [0.4, 0.8], values: { 'faults.sy': [3100, 3300] } });
  // Stopped: the unit ends having run no step, and the state goes.
  sweeps.stop();
  assert.deepEqual(posted.at(-1), { type: 'units-stop' });
  sweeps.handle({ type: 'units-done', id: unit.id, result: { rows: [], status: 'failed' } as unknown as ExperimentResult, starts: { shipped: 0, here: 0, booted: 0 } });
  for (let i = 0; i < 20 && sweeps.running; i++) await tick();
  assert.equal(sweeps.running, false);
  assert.equal(sweeps.live.state.get(), null);
});
