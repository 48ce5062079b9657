// The page's state in its parts (state/*.ts) and put together
// (controller.ts), in Node, without a browser: the worker's messages come
// over a real MessageChannel in the lab worker's protocol (the worker itself
// runs in the e2e tests), permalinks are made and read by the real codec, and
// the history is the browser's, which Node does not have (so saving says why,
// as in a private window).

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ExperimentResult } from '../../../../experiments/runner/result';
import { findExperiment } from '../../../../experiments/runner/experiments';
import { effectiveKernelName } from '../../../../experiments/kernels/variants';
import { expectedSeconds } from '../../../../experiments/runner/runner';
import { changedSettings, checkForm, experimentById, initialForm, shownChoice, type FormState } from '../config';
import {
  durationWords, estimateRun, INSTRUCTIONS_PER_780_SECOND, measuredRate, progressText, RUN_WORK, runFraction, STEP_WORK, workersWords,
} from '../status';
import { LabController } from '../controller';
import type { SharedRun } from '../permalink';
import type { FromWorker, ToWorker } from '../../worker/protocol';
import { batch, ObjectAtom } from './atom';
import { HEARTBEAT_MS, HISTORY_CAP, historyOverflow, RunHistory, type HistoryMessage, type HistoryStore } from './runHistory';
import { Form } from './form';
import { Runs } from './runs';
import { SESSION_RUNS, Shown, type PageAddress } from './shown';
import { formParams, fragmentFor, readFragment } from '../address';
import type { HistoryEntry } from '../history';
import { GUEST_TTY_LINE_MAX, longestLine, Terminal, terminalStatusWords } from './terminal';
import { WorkerLink, type WorkerPort } from './workerLink';

/** A worker's end of a MessageChannel: what the page posted, and posting as the worker does. */
function channel() {
  const { port1, port2 } = new MessageChannel();
  const posted: ToWorker[] = [];
  port2.onmessage = (e: MessageEvent<ToWorker>) => posted.push(e.data);
  ports.push(port1, port2);
  return {
    page: port1 as unknown as WorkerPort,
    posted,
    send: (m: FromWorker) => port2.postMessage(m),
  };
}
const ports: MessagePort[] = [];
after(() => ports.forEach((p) => p.close()));

/** Waits until f() holds (messages cross the channel and the inbox on timers). */
async function until(f: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (f()) return;
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Runs kept in memory, as history.ts keeps them in IndexedDB (Node has none; the e2e tests use the real one). */
function memoryStore(): { store: HistoryStore; entries: Map<string, HistoryEntry> } {
  const entries = new Map<string, HistoryEntry>();
  let n = 0;
  return {
    entries,
    store: {
      listRuns: async () => [...entries.values()].reverse(),
      saveRun: async (run, options = {}) => {
        const entry: HistoryEntry = { id: options.id ?? `h${++n}`, savedAt: new Date().toISOString(), run, ...(options.interrupted ? { interrupted: true } : {}) };
        entries.set(entry.id, entry);
        return entry;
      },
      deleteRun: async (id) => {
        entries.delete(id);
      },
    },
  };
}

/** An address bar and clipboard in memory. */
function address(start = 'https://lab.example/vaxlab/'): PageAddress & { url: string; copied: string[] } {
  const a = {
    url: start,
    copied: [] as string[],
    hash: () => (a.url.includes('#') ? a.url.slice(a.url.indexOf('#')) : ''),
    base: () => a.url.split('#')[0]!,
    replace: (url: string) => {
      a.url = url;
    },
    copy: async (text: string) => {
      a.copied.push(text);
    },
  };
  return a;
}

function result(real: number, iterations = 2000): ExperimentResult {
  return {
    format: 'vaxlab-experiment-result', version: 2, experiment: 'syscall', title: 'Table 2, syscall', group: 'g', paperRef: 'p',
    view: 'table2', machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: '', boot: 'single', direct: true },
    image: { name: '43bsd.dsk.gz' }, parameters: { iterations }, kernelSettings: {}, compare: 'ours = elapsed', status: 'ok',
    rows: [{
      test: 'syscall', command: `/bin/time ./syscall ${iterations}`, iterations, status: 'ok', limitSeconds: 120, step: 'syscall',
      kernelSettings: {}, guest: { real, user: 0.02, sys: real - 0.1, line: `${real} real` },
      paper: { elapsed: 0.46, scale: 0.02, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true },
    }],
  };
}

test('atoms: a batch is announced once per atom changed, also when it throws; the same value is no change', () => {
  const a = new ObjectAtom({ n: 0, s: 'x' });
  const b = new ObjectAtom({ n: 0, s: 'x' });
  let heardA = 0;
  let heardB = 0;
  a.subscribe(() => heardA++);
  const stop = b.subscribe(() => heardB++);
  batch(() => {
    a.patch({ n: 1 });
    a.patch({ s: 'y' });
    b.patch({ n: 2 });
  });
  assert.deepEqual([heardA, heardB], [1, 1]);
  assert.throws(() => batch(() => {
    a.patch({ n: 5 });
    throw new Error('in the middle');
  }));
  assert.equal(heardA, 2);
  a.set(a.get());
  assert.equal(heardA, 2);
  stop();
  b.patch({ n: 3 });
  assert.equal(heardB, 1);
});

test('the worker link: init on connect; loading and ready in batches; console text at once; fatal is an error', async () => {
  const w = channel();
  const link = new WorkerLink(30);
  let renders = 0;
  link.machine.subscribe(() => renders++);
  const texts: string[] = [];
  const others: string[] = [];
  link.onText((m) => texts.push(m.type));
  link.onMessage((m) => others.push(m.type));
  link.connect(w.page, [{ kernel: '4.3BSD', manifestUrl: 'https://lab.example/images/43bsd.json' }]);
  assert.equal(link.machine.get().phase, 'loading-emulator');
  await until(() => w.posted.length === 1, 'init');
  assert.deepEqual(w.posted[0], { type: 'init', images: [{ kernel: '4.3BSD', manifestUrl: 'https://lab.example/images/43bsd.json' }] });

  renders = 0;
  w.send({ type: 'loading', phase: 'image', kernel: '4.3BSD', loaded: 10, total: 100 });
  w.send({ type: 'loading', phase: 'image', kernel: '4.3BSD', loaded: 90, total: 100 });
  w.send({ type: 'run-console', runId: 1, text: 'boot' });
  w.send({ type: 'loading', phase: 'image', kernel: '4.2BSD', loaded: 5, total: 100 }); // not the page's machine
  w.send({ type: 'ready', kernel: '4.3BSD', image: { name: '43bsd.dsk.gz', bytes: 100, compressedBytes: 40 }, variants: [], wasmMs: 5, imageMs: 50 });
  await until(() => texts.length === 1, 'the console text');
  assert.equal(others.length, 0, 'state messages wait for the batch');
  await until(() => link.machine.get().phase === 'ready', 'ready');
  assert.equal(renders, 1, 'four messages, one announcement');
  assert.deepEqual(others, ['loading', 'loading', 'loading', 'ready']);
  assert.equal(link.machine.get().imageBytes, 100);

  w.send({ type: 'fatal', message: 'the disk image did not load' });
  await until(() => link.machine.get().phase === 'error', 'the error');
  assert.equal(link.machine.get().message, 'the disk image did not load');
});

test('a run: started from settings, followed by its messages, stopped, finished as a run to share; others\' messages ignored', () => {
  const posted: ToWorker[] = [];
  let clock = 1000;
  const runs = new Runs({ post: (m) => posted.push(m) }, () => clock);
  const finished: [SharedRun, number][] = [];
  runs.onFinished((s, h) => finished.push([s, h]));
  const settings = checkForm({ ...initialForm(), params: { syscall: { iterations: '2000' } }, disk: 'eagle' }).settings!;
  const id = runs.start('syscall', '4.3BSD', settings)!;
  try {
    assert.equal(runs.running, true);
    assert.equal(runs.start('syscall', '4.3BSD', settings), null, 'one run at a time');
    assert.deepEqual(posted[0], {
      type: 'run', runId: id, experiment: 'syscall',
      config: { kernel: '4.3BSD', cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 2000 }, disk: 'eagle' },
    });
    assert.match(runs.console.contents, /syscall.* on a VAX-11\/750 model, 4\.5 MB, eagle disk timing, 4\.3BSD/);

    runs.handle({ type: 'run-started', runId: id });
    assert.equal(runs.run.get()!.status, 'running');
    // This run's samples, a batch at a time; another run's, and a unit's of the same number, are not its.
    runs.handle({ type: 'counter-samples', of: { kind: 'run', runId: id }, samples: [{ row: 0, t: 1, values: { 'faults.sy': 5 } }] });
    runs.handle({ type: 'counter-samples', of: { kind: 'run', runId: id + 1 }, samples: [{ row: 0, t: 2, values: {} }] });
    runs.handle({ type: 'counter-samples', of: { kind: 'unit', id }, samples: [{ row: 0, t: 2, values: {} }] });
    runs.handle({
      type: 'counter-samples', of: { kind: 'run', runId: id },
      samples: [{ row: 0, t: 2, values: { 'faults.sy': 7 } }, { row: 0, t: 3, values: { 'faults.sy': 6 } }],
    });
    runs.handle({ type: 'run-progress', runId: id, progress: { step: 1, steps: 1, label: 'syscall', virtualSeconds: 3, instructions: 9 }, hostSeconds: 0.1 });
    runs.text({ type: 'run-console', runId: id, text: '# ' });
    runs.text({ type: 'run-console', runId: id + 1, text: 'not this run' });
    // A kernel fetch is said in the console when this run began it, not when a sweep's check did (no run id).
    runs.handle({ type: 'kernel-loading', variant: 'generic' });
    runs.handle({ type: 'kernel-loading', variant: 'generic', runId: id + 1 });
    assert.doesNotMatch(runs.console.contents, /Fetching/);
    runs.handle({ type: 'kernel-loading', variant: 'paper-1985', runId: id });
    assert.match(runs.console.contents, /Fetching the kernel paper-1985/);
    runs.text({ type: 'run-console', runId: id, text: '# ' });
    const r = runs.run.get()!;
    assert.deepEqual([r.samples.map((x) => x.t), r.samplesVersion, r.progress?.virtualSeconds], [[1, 2, 3], 2, 3]);
    assert.ok(runs.console.contents.endsWith('# '));

    runs.stop();
    assert.deepEqual(posted[1], { type: 'stop', runId: id });
    assert.equal(runs.run.get()!.status, 'stopping');
    clock += 700;
    runs.handle({ type: 'run-done', runId: id, result: result(0.62), hostSeconds: 0.7 });
    assert.equal(runs.run.get()!.status, 'done');
    assert.equal(runs.running, false);
    assert.match(runs.console.contents, /Done.* in 0\.7 s of host time/);
    assert.equal(finished.length, 1);
    const [shared, host] = finished[0]!;
    assert.equal(host, 0.7);
    assert.deepEqual(shared.config, { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 2000 }, disk: 'eagle' });
    assert.equal(shared.result.rows[0]!.guest!.real, 0.62);
  } finally {
    runs.fail('end of test'); // stops the host timer if the test failed half-way
  }

  const second = runs.start('syscall', '4.3BSD', settings)!;
  runs.handle({ type: 'run-error', runId: second, message: 'no image' });
  assert.equal(runs.run.get()!.status, 'error');
  assert.equal(runs.run.get()!.error, 'no image');
  assert.match(runs.console.contents, /The run could not go on: no image/);
});

test('a run\'s host seconds follow its progress messages, by the page\'s clock', () => {
  let clock = 1000;
  const runs = new Runs({ post: () => {} }, () => clock);
  const settings = checkForm({ ...initialForm(), params: { syscall: { iterations: '2000' } } }).settings!;
  const id = runs.start('syscall', '4.3BSD', settings)!;
  try {
    let renders = 0;
    runs.run.subscribe(() => renders++);
    clock += 300;
    runs.handle({ type: 'run-progress', runId: id, progress: { step: 1, steps: 1, label: 'syscall', virtualSeconds: 3, instructions: 9 }, hostSeconds: 0.1 });
    assert.equal(runs.run.get()!.hostSeconds, 0.3);
    assert.equal(renders, 1, 'the progress and the host seconds in one change');
    clock += 1200;
    runs.handle({ type: 'run-progress', runId: id + 1, progress: { step: 1, steps: 1, label: 'syscall', virtualSeconds: 4, instructions: 10 }, hostSeconds: 0.2 });
    assert.equal(runs.run.get()!.hostSeconds, 0.3, 'another run\'s progress is not this one\'s');
  } finally {
    runs.fail('end of test');
  }
});

test('what Results shows: a run of this page, a link\'s run (made and read by the real codec), back again', async () => {
  const shown = new Shown(() => new Date('2026-11-21T12:00:00Z'));
  const mine: SharedRun = { experiment: 'syscall', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 2000 } }, result: result(0.62) };
  shown.runFinished(mine, 0.7);
  assert.deepEqual(shown.view.get(), { source: 'run', shared: mine, hostSeconds: 0.7 });
  assert.deepEqual(shown.sessionRuns.get(), [{ shared: mine, at: '2026-11-21T12:00:00.000Z' }]);

  const copied: string[] = [];
  await shown.makeLink({ kind: 'run', run: mine }, (l) => `https://lab.example/#r=${l}`, async (t) => {
    copied.push(t);
  });
  const link = shown.link.get()!;
  assert.match(link, /^2\.[0-9a-f]{8}\./);
  assert.deepEqual(copied, [`https://lab.example/#r=${link}`]);
  assert.deepEqual(shown.share.get(), { url: copied[0], busy: false, kind: 'run', message: `Copied to the clipboard (${link.length} characters).` });

  const other = new Shown();
  assert.deepEqual(await other.read(link), { kind: 'run', run: mine });
  other.open({ source: 'permalink', shared: mine }, link);
  assert.equal(other.link.get(), link);
  assert.equal(other.shownRef()?.source, 'permalink');

  // Closing a shared run goes back to this page's last run, and takes the link away.
  const theirs: SharedRun = { ...mine, result: result(0.4) };
  shown.open({ source: 'permalink', shared: theirs }, link);
  assert.equal(shown.close(false), true);
  assert.equal(shown.view.get()!.shared, mine);
  assert.equal(shown.link.get(), null);
  assert.equal(shown.close(false), false, 'a run of this page is not closed');

  // A run that finishes while a shared one is open leaves it on screen.
  shown.open({ source: 'history', shared: theirs, historyId: 'h1' });
  shown.runFinished(mine, 0.5);
  assert.equal(shown.view.get()!.source, 'history');
  for (let i = 0; i < SESSION_RUNS + 3; i++) shown.runFinished(mine, 0.5);
  assert.equal(shown.sessionRuns.get().length, SESSION_RUNS);

  const damaged = new Shown();
  assert.equal(await damaged.read(`${link.slice(0, -6)}AAAAAA`), null);
  assert.match(damaged.permalinkError.get()!, /damaged/);
  damaged.dismissPermalinkError();
  assert.equal(damaged.permalinkError.get(), null);

  const s2 = new Shown();
  await s2.makeLink({ kind: 'run', run: mine }, (l) => l, () => Promise.reject(new Error('not allowed')));
  assert.match(s2.share.get().message!, /Select the link and copy it/);
});

test('the address: the form\'s settings as they differ from the paper\'s, read back; unknown names said', () => {
  const form = { ...initialForm(), experimentId: 'namework', params: { namework: { iterations: '50' } }, kernelToggles: { nchsize: '0' }, cpu: '780' };
  const params = formParams(form);
  assert.equal(params, 'x=namework&p.iterations=50&cpu=780&k.nchsize=0');
  assert.equal(fragmentFor(form, '2.abc.def'), `#${params}&r=2.abc.def`);
  const back = readFragment(`#${params}&r=2.abc.def`);
  assert.equal(back.link, '2.abc.def');
  assert.deepEqual(back.problems, []);
  const restored = back.form!(initialForm());
  assert.deepEqual(formParams(restored), params);
  assert.deepEqual(checkForm(restored).settings, { cpu: '780', memoryMB: 4.5, set: { nchsize: 0 }, parameters: { iterations: 50 } });
  // As typed: a half-typed value comes back, marked as the form marks it.
  const typed = readFragment('#x=syscall&p.iterations=12a').form!(initialForm());
  assert.equal(checkForm(typed).errors['param-iterations'], 'a whole number, 1 or more');
  assert.deepEqual(readFragment('#x=nosuch').problems, ['The address names an experiment this lab does not have: “nosuch”.']);
  assert.match(readFragment('#x=syscall&colour=red&p.divisor=2').problems[0]!, /does not know, left out: colour, p\.divisor/);
  assert.deepEqual(readFragment('#r=1.00000000.AAAA'), { form: null, problems: [], link: '1.00000000.AAAA' });
  assert.equal(formParams(initialForm()), 'x=syscall');
  const profiled = { ...initialForm(), profile: true };
  assert.equal(formParams(profiled), 'x=syscall&profile=1');
  assert.equal(readFragment('#x=syscall&profile=1').form!(initialForm()).profile, true);
  // The disks' rotation, held by name as the disk's timing is: locked is kept and read back into the run's settings;
  // drifting, the default, is read as not set, and named nowhere (not in the address, not in the settings), as rp06 is.
  const locked: FormState = { ...initialForm(), experimentId: 'execs0big', spin: 'locked' };
  assert.equal(formParams(locked), 'x=execs0big&spin=locked');
  const lockedBack = readFragment('#x=execs0big&spin=locked');
  assert.deepEqual(lockedBack.problems, []);
  assert.equal(lockedBack.form!(initialForm()).spin, 'locked');
  assert.equal(checkForm(lockedBack.form!(initialForm())).settings?.spin, 'locked');
  const drifting = readFragment('#x=execs0big&spin=drifting');
  assert.deepEqual(drifting.problems, []);
  const driftingForm = drifting.form!(locked);
  assert.equal(driftingForm.spin, null);
  assert.equal(formParams(driftingForm), 'x=execs0big');
  assert.ok(!('spin' in checkForm(driftingForm).settings!));
  assert.ok(!('spin' in checkForm(initialForm()).settings!));
  // An address that names no rotation is the default's, whatever the form had.
  assert.equal(readFragment('#x=execs0big').form!(locked).spin, null);
  // A rotation the lab does not have is left out and said; the disk's timing is kept as the address has it (as the
  // processor and the memory are: checkForm marks a name it does not have), and written back as it was.
  const wobbling = readFragment('#x=execs0big&spin=wobbling');
  assert.match(wobbling.problems[0]!, /does not know, left out: spin\.$/);
  assert.equal(wobbling.form!(locked).spin, null);
  const eagle = readFragment('#x=syscall&disk=Eagle').form!(initialForm());
  assert.equal(eagle.disk, 'Eagle');
  assert.equal(checkForm(eagle).settings?.disk, 'eagle');
  assert.equal(formParams(eagle), 'x=syscall&disk=Eagle');
  assert.match(checkForm(readFragment('#x=syscall&disk=ssd').form!(initialForm())).errors['toggle-disk']!, /one of rp06 \(0\)/);
  // Both with the rest of the machine, in the address's order; the defaults by name are not written.
  const machine: FormState = { ...initialForm(), experimentId: 'execs0big', memoryMB: '8', disk: 'eagle', spin: 'locked' };
  assert.equal(formParams(machine), 'x=execs0big&mem=8&disk=eagle&spin=locked');
  const machineBack = readFragment(`#${formParams(machine)}`).form!(initialForm());
  assert.deepEqual([machineBack.memoryMB, machineBack.disk, machineBack.spin], ['8', 'eagle', 'locked']);
  assert.deepEqual(checkForm(machineBack).settings, { cpu: '750', memoryMB: 8, set: {}, parameters: { iterations: 1000 }, disk: 'eagle', spin: 'locked' });
  assert.equal(formParams({ ...machine, memoryMB: null, disk: 'rp06', spin: 'drifting' }), 'x=execs0big');
  // The kernel variant: kept, read back, passed to the run; an unknown one said and left out.
  const variant = { ...initialForm(), experimentId: 'ls-l', variant: 'no-name-cache' };
  assert.equal(formParams(variant), 'x=ls-l&variant=no-name-cache');
  const read = readFragment('#x=ls-l&variant=no-name-cache').form!(initialForm());
  assert.equal(read.variant, 'no-name-cache');
  assert.equal(checkForm(read).settings?.kernel, 'no-name-cache');
  const unknown = readFragment('#x=ls-l&variant=4.2bsd-real');
  assert.deepEqual(unknown.problems, ['The address names a kernel variant this lab does not have: “4.2bsd-real”; the distributed /vmunix is used.']);
  assert.equal(unknown.form!(initialForm()).variant, null);
  // Where the experiment boots a variant of its own, that is what runs, and what the words name.
  const unknownOwn = readFragment('#x=syscall&variant=4.2bsd-real');
  assert.deepEqual(unknownOwn.problems, ['The address names a kernel variant this lab does not have: “4.2bsd-real”; the experiment’s own kernel, paper-1985, is used.']);
  assert.equal(effectiveKernelName(experimentById('syscall')?.kernel, unknownOwn.form!(initialForm()).variant), 'paper-1985');
  assert.equal(checkForm({ ...initialForm(), variant: 'nosuch' }).errors['kernel-variant'], 'no kernel variant "nosuch"');
});

test('the form holds the disk\'s timing and the rotation alike: by name, null for the default; the address, the count and the run follow', () => {
  const form = new Form();
  form.select('execs0big');
  const f = () => form.form.get();
  assert.deepEqual([f().disk, f().spin], [null, null]);
  assert.deepEqual([shownChoice(f(), 'disk'), shownChoice(f(), 'spin')], ['rp06', 'drifting']);
  assert.equal(changedSettings(f()).total, 0);

  form.setMachineChoice('spin', 'locked');
  form.setMachineChoice('disk', 'eagle');
  assert.deepEqual([f().disk, f().spin], ['eagle', 'locked']);
  assert.deepEqual([shownChoice(f(), 'disk'), shownChoice(f(), 'spin')], ['eagle', 'locked']);
  assert.equal(changedSettings(f()).total, 2);
  assert.equal(formParams(f()), 'x=execs0big&disk=eagle&spin=locked');
  const settings = checkForm(f()).settings!;
  assert.deepEqual([settings.disk, settings.spin], ['eagle', 'locked']);

  // A rotation the lab does not have changes nothing; the defaults chosen count as unchanged (the disk's held as
  // chosen, as a processor's is; the rotation's as not set).
  form.setMachineChoice('spin', 'wobbling');
  assert.equal(f().spin, 'locked');
  form.setMachineChoice('spin', 'drifting');
  form.setMachineChoice('disk', 'rp06');
  assert.deepEqual([f().disk, f().spin], ['rp06', null]);
  assert.equal(changedSettings(f()).total, 0);
  assert.equal(formParams(f()), 'x=execs0big');
  assert.deepEqual(checkForm(f()).settings, checkForm({ ...initialForm(), experimentId: 'execs0big' }).settings);

  // A disk's name in another case is the same timing (the select shows it, it counts); one the lab does not have shows
  // the default and is not counted (checkForm marks it).
  assert.equal(shownChoice({ ...f(), disk: ' Eagle ' }, 'disk'), 'eagle');
  assert.equal(changedSettings({ ...f(), disk: ' Eagle ' }).total, 1);
  assert.equal(shownChoice({ ...f(), disk: 'ssd' }, 'disk'), 'rp06');
  assert.equal(changedSettings({ ...f(), disk: 'ssd' }).total, 0);

  // The paper's settings: both back to the default.
  form.setMachineChoice('spin', 'locked');
  form.setMachineChoice('disk', 'ideal');
  form.reset();
  assert.deepEqual([f().disk, f().spin], [null, null]);
});

test('the seeds: a whole number 1..9 in the form (marked otherwise), into the run\'s settings only above 1, the address, the run, a link\'s Run again', () => {
  const form = new Form();
  const f = () => form.form.get();
  assert.equal(f().seeds, null);
  assert.ok(!('spinSeeds' in checkForm(f()).settings!), 'one seed: nothing in the settings, as before');
  form.setSeeds('3');
  assert.equal(checkForm(f()).settings!.spinSeeds, 3);
  assert.equal(formParams(f()), 'x=syscall&seeds=3');
  // Not a setting of the paper's: not counted as changed, and "Paper's settings" keeps it.
  assert.equal(changedSettings(f()).total, 0);
  form.reset();
  assert.equal(f().seeds, '3');
  for (const one of ['1', ' 1 ', '']) {
    form.setSeeds(one);
    assert.ok(!('spinSeeds' in checkForm(f()).settings!), `seeds "${one}"`);
    assert.deepEqual(checkForm(f()).errors, {});
    assert.equal(formParams(f()), 'x=syscall', `seeds "${one}" is the default, not in the address`);
  }
  // Out of the page's range or not a whole number: marked on its input, as the other fields are; nothing runs.
  for (const bad of ['0', '10', '2.5', '-1', 'x', '99']) {
    form.setSeeds(bad);
    const check = checkForm(f());
    assert.equal(check.errors.seeds, 'a whole number from 1 to 9', `seeds "${bad}"`);
    assert.equal(check.settings, null);
  }
  assert.equal(checkForm({ ...f(), seeds: '9' }).settings!.spinSeeds, 9);

  // The address: read back as typed (a value the page does not run comes back marked), with the other settings.
  const back = readFragment('#x=table7&seeds=5&p.divisor=10');
  assert.deepEqual(back.problems, []);
  const read = back.form!(initialForm());
  assert.equal(read.seeds, '5');
  assert.equal(formParams(read), 'x=table7&p.divisor=10&seeds=5');
  assert.equal(checkForm(read).settings!.spinSeeds, 5);
  assert.equal(checkForm(readFragment('#x=syscall&seeds=12').form!(initialForm())).errors.seeds, 'a whole number from 1 to 9');
  // An address without seeds is one seed, whatever the form had.
  assert.equal(readFragment('#x=syscall').form!(read).seeds, null);

  // The run: its settings to the worker, the console says it, the run as shared keeps them.
  const posted: ToWorker[] = [];
  const runs = new Runs({ post: (m) => posted.push(m) });
  const settings = checkForm({ ...initialForm(), params: { syscall: { iterations: '500' } }, seeds: '3' }).settings!;
  const id = runs.start('syscall', '4.3BSD', settings)!;
  try {
    assert.deepEqual(posted[0], {
      type: 'run', runId: id, experiment: 'syscall',
      config: { kernel: '4.3BSD', cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 500 }, spinSeeds: 3 },
    });
    assert.match(runs.console.contents, /4\.5 MB, each step with seeds 1\.\.3 \(the row: the median run\), 4\.3BSD/);
    const finished: SharedRun[] = [];
    runs.onFinished((s) => finished.push(s));
    const r = result(0.62, 500);
    r.machine.spinSeeds = 3;
    runs.handle({ type: 'run-done', runId: id, result: r, hostSeconds: 1 });
    assert.deepEqual(finished[0]!.config, { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 500 }, spinSeeds: 3 });

    // Run again takes them back into the form: from the link's settings, or from the result of a run made in Node.
    const again = new Form();
    again.adopt(finished[0]!);
    assert.equal(again.form.get().seeds, '3');
    assert.equal(checkForm(again.form.get()).settings!.spinSeeds, 3);
    const fromNode = new Form();
    assert.deepEqual(fromNode.adopt({ ...finished[0]!, config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 500 } } }), []);
    assert.equal(fromNode.form.get().seeds, '3');
    // A run of one seed, over a form with several: back to one.
    const single = new Form();
    single.setSeeds('4');
    single.adopt({ experiment: 'syscall', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 500 } }, result: result(0.6, 500) });
    assert.equal(single.form.get().seeds, null);
  } finally {
    runs.fail('end of test');
  }
});

test('the Terminal tab: boots the 780 with 8 MB, follows its status, shows its output, passes keys and speed on', () => {
  const posted: ToWorker[] = [];
  const t = new Terminal({ post: (m) => posted.push(m) });
  t.output.append('old screen');
  t.start();
  assert.equal(t.output.contents, '');
  assert.deepEqual(posted, [{ type: 'terminal-start', cpu: '780', memoryMB: 8, realtime: true }]);
  assert.deepEqual([t.state.get().phase, t.state.get().started], ['booting', true]);
  t.handle({ type: 'terminal-status', phase: 'running', virtualSeconds: 12, realtime: true });
  t.text({ type: 'terminal-output', text: 'login: ' });
  assert.deepEqual([t.state.get().phase, t.state.get().virtualSeconds, t.output.contents], ['running', 12, 'login: ']);
  t.input('root\r');
  t.setRealtime(false);
  t.stop();
  assert.deepEqual(posted.slice(1), [
    { type: 'terminal-input', text: 'root\r' }, { type: 'terminal-speed', realtime: false }, { type: 'terminal-stop' },
  ]);
  assert.equal(t.state.get().realtime, false);
  // A pasted line longer than the guest's tty takes at the shell is said, and cleared by what is typed next.
  assert.equal(t.state.get().longLine, null);
  t.input(`echo ${'x'.repeat(GUEST_TTY_LINE_MAX - 5)}\r`);
  assert.equal(t.state.get().longLine, null);
  t.input(`ls\recho ${'y'.repeat(300)}\rls\r`);
  assert.equal(t.state.get().longLine, 305);
  t.input('\x15');
  assert.equal(t.state.get().longLine, null);
  assert.deepEqual([longestLine(''), longestLine('ab\r\nabc'), longestLine('abcd')], [0, 3, 4]);
  // Powered off: the status follows the worker's (whose setting it keeps, worker/terminal.test.ts), and says how to
  // start it again; never booted, it says so.
  t.handle({ type: 'terminal-status', phase: 'off', virtualSeconds: 0, realtime: false });
  assert.deepEqual([t.state.get().phase, t.state.get().realtime], ['off', false]);
  assert.equal(terminalStatusWords(t.state.get()), 'powered off; Boot starts it again');
  assert.equal(terminalStatusWords(new Terminal({ post: () => {} }).state.get()), 'not started');
  assert.equal(terminalStatusWords({ phase: 'error', started: true, message: 'no image' }), 'error: no image');
  assert.equal(terminalStatusWords({ phase: 'running', started: true, message: 'x' }), 'running');
  // A paste of many lines (here 400,000, about 3 MB) goes to the guest whole: measuring it does not throw.
  const lines = Array.from({ length: 400_000 }, (_, i) => `echo ${i}`).join('\n');
  assert.equal(longestLine(lines), 'echo 399999'.length);
  posted.length = 0;
  t.input(lines);
  assert.deepEqual([posted.length, posted[0]], [1, { type: 'terminal-input', text: lines }]);
});

test('the history says why when the browser keeps none; runs are kept row by row, interrupted until they end', async () => {
  const refused = () => Promise.reject(new Error('IndexedDB is not available'));
  const h = new RunHistory({ listRuns: refused, saveRun: refused, deleteRun: refused });
  await h.refresh();
  assert.equal(h.history.get().error, 'History unavailable: IndexedDB is not available');
  await h.save({ experiment: 'syscall', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: {} }, result: result(1) });
  assert.equal(h.history.get().error, 'Not saved in this browser: IndexedDB is not available');

  // Two tabs over one store and a channel between them.
  const { store, entries } = memoryStore();
  const wire = new BroadcastChannel('test-history');
  const wire2 = new BroadcastChannel('test-history');
  const tab = (c: BroadcastChannel) => ({ post: (m: HistoryMessage) => c.postMessage(m), listen: (l: (m: HistoryMessage) => void) => { c.onmessage = (e) => l(e.data); } });
  const mine = new RunHistory(store, tab(wire));
  const theirs = new RunHistory(store, tab(wire2));
  const run = { experiment: 'syscall', config: { cpu: '750' as const, memoryMB: 4.5, set: {}, parameters: {} }, result: result(1) };
  const id = await mine.keep({ ...run, result: { ...run.result, rows: [] } }, null, true);
  assert.equal(entries.size, 1);
  assert.equal(entries.get(id!)!.interrupted, true);
  assert.deepEqual([...mine.running.get()], [id]);
  await until(() => theirs.history.get().entries.length === 1 && theirs.running.get().has(id!), 'the other tab hears of it');
  assert.equal(await mine.keep(run, id, false), id);
  assert.equal(entries.size, 1);
  assert.equal(entries.get(id!)!.interrupted, undefined);
  assert.equal(mine.running.get().size, 0);
  await until(() => theirs.history.get().entries[0]!.interrupted === undefined, 'the other tab sees it finished');
  wire.close();
  wire2.close();
});

test('a run in a tab that was closed while it ran stops reading "running" in the other tabs, with the rows it wrote last', async (t) => {
  const { store, entries } = memoryStore();
  const closing = new BroadcastChannel('test-history-closed');
  const wire = new BroadcastChannel('test-history-closed');
  // Closed even when an assertion fails: an open channel keeps the test process alive.
  t.after(() => {
    closing.close();
    wire.close();
  });
  let now = 1_000_000;
  const other = new RunHistory(store, {
    post: (m: HistoryMessage) => wire.postMessage(m), listen: (l: (m: HistoryMessage) => void) => { wire.onmessage = (e) => l(e.data); },
  }, () => now, HISTORY_CAP, 5);
  const run = { experiment: 'syscall', config: { cpu: '750' as const, memoryMB: 4.5, set: {}, parameters: {} }, result: result(1) };
  // The closing tab: its entry kept with no row, said to be running, then its last row written, the tab closed before
  // it could say so (nothing more on the channel).
  const { id } = await store.saveRun({ ...run, result: { ...run.result, rows: [] } }, { interrupted: true });
  closing.postMessage({ type: 'changed' });
  closing.postMessage({ type: 'running', ids: [id] });
  await until(() => other.running.get().has(id) && other.history.get().entries.length === 1, 'the other tab hears of the run');
  await store.saveRun(run, { id, interrupted: true });
  closing.close();
  // Within LIVE_FOR_MS (three heartbeats) it may still be going; after, it is not, and its last row is read.
  now += 2 * HEARTBEAT_MS;
  await sleep(30);
  assert.ok(other.running.get().has(id));
  now += 2 * HEARTBEAT_MS;
  await until(() => !other.running.get().has(id), 'the closed tab\'s run no longer reads as running');
  await until(() => other.history.get().entries[0]!.run.result.rows.length === 1, 'the history read again');
  assert.equal(entries.get(id)!.interrupted, true);
});

test('the page put together: ready, Run sends the form\'s settings, the finished run is shown, Run again takes a link\'s settings', async () => {
  const w = channel();
  const addr = address();
  const lab = new LabController({ imageBase: 'https://lab.example/images/', address: addr, storage: null });
  lab.link.connect(w.page, []);
  assert.equal(lab.canRun(), false, 'not before the machine is ready');
  w.send({ type: 'ready', kernel: '4.3BSD', image: { name: '43bsd.dsk.gz', bytes: 100, compressedBytes: 40 }, variants: [], wasmMs: 5, imageMs: 50 });
  await until(() => lab.canRun(), 'ready');

  lab.form.select('syscall');
  lab.form.setParameter('iterations', '2000');
  lab.run();
  const run = lab.runs.run.get()!;
  assert.equal(lab.stats().state, 'running');
  await until(() => w.posted.some((m) => m.type === 'run'), 'the run message');
  const sent = w.posted.find((m) => m.type === 'run')!;
  assert.deepEqual(sent.type === 'run' && sent.config.parameters, { iterations: 2000 });
  // No kernel asked for: the worker boots the experiment's own (syscall, a Table 2 row: the paper's kernel).
  assert.equal(sent.type === 'run' && sent.config.variant, undefined);

  w.send({ type: 'run-done', runId: run.runId, result: result(0.62), hostSeconds: 0.7 });
  await until(() => lab.shown.view.get() !== null, 'the result shown');
  assert.equal(lab.shown.view.get()!.source, 'run');
  assert.equal(lab.stats().state, 'ready');
  // Node keeps no history (no IndexedDB): the page says so, and the run is still shown.
  await until(() => lab.history.history.get().error !== null, 'the history\'s answer');
  assert.match(lab.history.history.get().error!, /^Not saved in this browser/);

  // A link's run: shown, its settings put in the form; Run again runs them.
  const theirs: SharedRun = { experiment: 'syscall', config: { cpu: '780', memoryMB: 8, set: { nbuf: 100 }, parameters: { iterations: 500 } }, result: result(0.3, 500) };
  lab.shown.open({ source: 'permalink', shared: theirs });
  lab.runAgain();
  await until(() => w.posted.filter((m) => m.type === 'run').length === 2, 'the second run');
  const again = w.posted.filter((m) => m.type === 'run')[1]!;
  // The link's result names no kernel: a Table 2 row run before the paper's kernel became its default, on the
  // image's /vmunix, so Run again asks for /vmunix by name.
  assert.deepEqual(again.type === 'run' && again.config,
    { kernel: '4.3BSD', cpu: '780', memoryMB: 8, set: { nbuf: 100 }, parameters: { iterations: 500 }, variant: 'vmunix' });
  assert.equal(lab.shown.view.get(), null, 'nothing shown while it runs');
  assert.equal(lab.runAgainNote.get(), null, 'nothing was left out');
  lab.stop();
  await until(() => w.posted.some((m) => m.type === 'stop'), 'stop');
  lab.runs.fail('end of test');

  // A link with settings this lab cannot set: Run again runs without them and says exactly which; its result's
  // seeds (a run of `vaxlab run --seeds 3`) it runs with, as the command line did.
  const foreign: SharedRun = {
    experiment: 'syscall',
    config: { cpu: '750', memoryMB: 4.5, set: { nbuf: 100, maxusers: 48 }, parameters: { iterations: 500, depth: 3 }, kernel: 'like-4.1' },
    result: { ...result(0.3, 500), machine: { ...result(0.3, 500).machine, spinSeeds: 3, spin: 'locked' } },
  };
  lab.shown.open({ source: 'permalink', shared: foreign });
  lab.runAgain();
  await until(() => w.posted.filter((m) => m.type === 'run').length === 3, 'the third run');
  const third = w.posted.filter((m) => m.type === 'run')[2]!;
  // The unknown kernel: the distributed /vmunix, as the note says (not syscall's own, the paper's kernel).
  assert.deepEqual(third.type === 'run' && third.config,
    { kernel: '4.3BSD', cpu: '750', memoryMB: 4.5, set: { nbuf: 100 }, parameters: { iterations: 500 }, spin: 'locked', variant: 'vmunix', spinSeeds: 3 });
  assert.equal(lab.form.form.get().seeds, '3', 'the form has the seeds it ran with');
  assert.match(lab.runs.console.contents, /each step with seeds 1\.\.3/);
  assert.deepEqual(lab.runAgainNote.get(), {
    notRun: null,
    dropped: [
      'parameter depth=3: syscall has no such parameter here',
      'kernel variable maxusers=48: this lab cannot set it',
      'kernel like-4.1: not one of this lab\'s kernel variants; the distributed /vmunix boots instead',
    ],
  });
  assert.match(lab.runs.console.contents, /Run again left out what this lab cannot set: parameter depth=3/);
  lab.stop();
  lab.runs.fail('end of test');
  // Settings out of this lab's ranges: nothing runs, and the note says why.
  lab.shown.open({ source: 'permalink', shared: { ...theirs, config: { ...theirs.config, set: { nchsize: 99999 } } } });
  lab.runAgain();
  assert.equal(w.posted.filter((m) => m.type === 'run').length, 3, 'not run');
  assert.match(lab.runAgainNote.get()!.notRun!, /^Not run: nchsize: nchsize: 99999 is out of range 0\.\.4096/);
  // More seeds than the page runs (a run of `vaxlab fidelity --seeds 20`): held as they are, marked, and not run.
  lab.shown.open({ source: 'permalink', shared: { ...theirs, result: { ...theirs.result, machine: { ...theirs.result.machine, spinSeeds: 20 } } } });
  lab.runAgain();
  assert.equal(w.posted.filter((m) => m.type === 'run').length, 3, 'not run');
  assert.equal(lab.form.form.get().seeds, '20');
  assert.equal(lab.runAgainNote.get()!.notRun, 'Not run: seeds: a whole number from 1 to 9.');
  // The variant a link names is run again on that variant.
  lab.shown.open({ source: 'permalink', shared: { ...theirs, config: { ...theirs.config, kernel: 'no-name-cache' } } });
  lab.runAgain();
  await until(() => w.posted.filter((m) => m.type === 'run').length === 4, 'the fourth run');
  const fourth = w.posted.filter((m) => m.type === 'run')[3]!;
  assert.equal(fourth.type === 'run' && fourth.config.variant, 'no-name-cache');
  lab.stop();
  lab.runs.fail('end of test');

  // A paging row at the paper's settings: Run asks for no kernel, and the worker boots the experiment's own,
  // like-4.2 (the console says so).
  lab.form.select('randpage');
  lab.form.reset();
  lab.form.setParameter('iterations', '300');
  lab.run();
  await until(() => w.posted.filter((m) => m.type === 'run').length === 5, 'the fifth run');
  const fifth = w.posted.filter((m) => m.type === 'run')[4]!;
  assert.equal(fifth.type === 'run' && fifth.config.variant, undefined);
  assert.match(lab.runs.console.contents, /randpage.*\(kernel like-4\.2: 4\.3BSD without /);
  lab.stop();
  lab.runs.fail('end of test');
  // An old link of a paging row, made when Tables 7 and 8 booted /vmunix by default (its result names no kernel):
  // Run again asks for /vmunix by name, as the link ran, not today's default.
  const oldPaging: SharedRun = {
    experiment: 'randpage', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 300 } },
    result: { ...result(12, 300), experiment: 'randpage', view: 'paging',
      rows: [{ ...result(12, 300).rows[0]!, test: 'randpage', step: 'randpage', command: '/bin/time ./randpage -p 7500 300' }] },
  };
  lab.shown.open({ source: 'permalink', shared: oldPaging });
  lab.runAgain();
  await until(() => w.posted.filter((m) => m.type === 'run').length === 6, 'the sixth run');
  const sixth = w.posted.filter((m) => m.type === 'run')[5]!;
  assert.deepEqual(sixth.type === 'run' && sixth.config,
    { kernel: '4.3BSD', cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 300 }, variant: 'vmunix' });
  assert.equal(lab.runAgainNote.get(), null, 'nothing was left out');
  lab.stop();
  lab.runs.fail('end of test');
});

test('the history keeps HISTORY_CAP runs: a new one drops the oldest (never one still running), and says how many', async () => {
  const { store, entries } = memoryStore();
  const h = new RunHistory(store, null, () => Date.now(), 3);
  const run = { experiment: 'syscall', config: { cpu: '750' as const, memoryMB: 4.5, set: {}, parameters: {} }, result: result(1) };
  const going = await h.keep(run, null, true); // the oldest, still running
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push(await h.save(run).then(() => [...entries.keys()].at(-1)!));
  assert.equal(entries.size, 3);
  assert.ok(entries.has(going!), 'the run still going is kept');
  assert.deepEqual([...entries.keys()].filter((k) => k !== going), ids.slice(2));
  assert.equal(h.history.get().note, 'The history keeps the newest 3 runs: 2 older runs were dropped, oldest first. Keep a run for longer with its permalink or Export JSON.');
  assert.equal(h.history.get().entries.length, 3);
  // The pure rule: oldest first, the kept ones skipped.
  const e = (id: string) => ({ id, savedAt: id, run });
  assert.deepEqual(historyOverflow([e('d'), e('c'), e('b'), e('a')], 2, new Set(['a'])).map((x) => x.id), ['b', 'c']);
  assert.deepEqual(historyOverflow([e('b'), e('a')], 2, new Set()), []);
  await h.keep(run, going, false); // it ends (and its heartbeat with it)
});

test('the page put together: the address follows the form, a run is kept row by row, a comparison link opens as one', async () => {
  const w = channel();
  const addr = address();
  const { store, entries } = memoryStore();
  const lab = new LabController({ imageBase: 'https://lab.example/images/', address: addr, store, channel: null, storage: null });
  lab.link.connect(w.page, []);
  w.send({ type: 'ready', kernel: '4.3BSD', image: { name: '43bsd.dsk.gz', bytes: 100, compressedBytes: 40 }, variants: [], wasmMs: 5, imageMs: 50 });
  await until(() => lab.canRun(), 'ready');

  // The address says the experiment and what differs from the paper's settings, as they are typed.
  lab.form.select('syscall');
  lab.form.setParameter('iterations', '2000');
  lab.form.setCpu('780');
  assert.equal(addr.url, 'https://lab.example/vaxlab/#x=syscall&p.iterations=2000&cpu=780');

  // Kept from its start: an entry marked interrupted, the rows as they come, then the whole result.
  lab.run();
  const run = lab.runs.run.get()!;
  const partial = { ...result(0.62), rows: [] };
  w.send({ type: 'run-partial', runId: run.runId, result: partial });
  await until(() => entries.size === 1, 'the entry made at the start');
  const [id] = [...entries.keys()];
  assert.equal(entries.get(id!)!.interrupted, true);
  assert.deepEqual(entries.get(id!)!.run.result.rows, []);
  assert.ok(lab.history.running.get().has(id!));
  w.send({ type: 'run-done', runId: run.runId, result: result(0.62), hostSeconds: 0.7 });
  await until(() => entries.get(id!)!.interrupted === undefined, 'the entry finished');
  assert.equal(entries.size, 1, 'the same entry');
  assert.equal(entries.get(id!)!.run.result.rows.length, 1);
  assert.match(entries.get(id!)!.run.ranAt!, /^\d{4}-\d\d-\d\dT/);
  assert.equal(lab.history.running.get().size, 0);

  // Compared with another run, the permalink holds both; opened in another page, it shows B compared with A.
  const other: SharedRun = { experiment: 'syscall', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { iterations: 2000 } }, result: result(0.9) };
  lab.comparison.compareWith({ shared: other, source: 'history' });
  await lab.copyPermalink();
  assert.equal(lab.shown.share.get().kind, 'comparison');
  assert.match(addr.url, /#x=syscall&p\.iterations=2000&cpu=780&r=2\./);
  assert.deepEqual(addr.copied, [addr.url]);

  const addr2 = address(addr.url);
  const opened = new LabController({ imageBase: 'https://lab.example/images/', address: addr2, store: memoryStore().store, channel: null, storage: null });
  await opened.openFromAddress();
  assert.equal(opened.shown.view.get()!.source, 'permalink');
  assert.deepEqual(opened.shown.view.get()!.shared.result, result(0.62));
  assert.deepEqual(opened.comparison.against.get()!.shared.result, result(0.9));
  assert.equal(opened.form.form.get().cpu, '780');
  assert.equal(addr2.url, addr.url, 'the address as it was');
  // A and B change places.
  opened.swapComparison();
  assert.deepEqual(opened.shown.view.get()!.shared.result, result(0.9));
  assert.deepEqual(opened.comparison.against.get()!.shared.result, result(0.62));
  // Both runs the link brought can be compared with a run of one's own.
  assert.equal(opened.shown.linkRuns.get().length, 2);
  // A run with no row in common shown next: the comparison is let go (no stale "Not compared").
  const paging: SharedRun = { ...other, experiment: 'table8', result: { ...result(1), experiment: 'table8', rows: [{ ...result(1).rows[0]!, step: 'randpage', test: 'randpage' }] } };
  opened.shown.open({ source: 'history', shared: paging, historyId: 'x' });
  assert.equal(opened.comparison.against.get(), null);

  // A settings-only address restores the form, without a result.
  const addr3 = address('https://lab.example/vaxlab/#x=namework&k.nchsize=0');
  const fresh = new LabController({ imageBase: 'https://lab.example/images/', address: addr3, store: memoryStore().store, channel: null, storage: null });
  await fresh.openFromAddress();
  assert.equal(fresh.shown.view.get(), null);
  assert.deepEqual(checkForm(fresh.form.form.get()).settings, { cpu: '750', memoryMB: 4.5, set: { nchsize: 0 }, parameters: { iterations: 200 } });
  lab.runs.fail('end of test');
});

test('a new address replaces the error the last one gave: each address read says what is wrong with it, or nothing', async () => {
  const addr = address('https://lab.example/vaxlab/#r=zzzz');
  const lab = new LabController({ imageBase: 'https://lab.example/images/', address: addr, store: memoryStore().store, channel: null, storage: null });
  await lab.openFromAddress();
  assert.match(lab.shown.permalinkError.get()!, /not a vaxlab result link/);
  // Another address typed into the same tab (a hashchange): its own problem, not the last link's.
  addr.url = 'https://lab.example/vaxlab/#x=nosuch&p.iterations=5';
  await lab.openFromAddress();
  assert.match(lab.shown.permalinkError.get()!, /experiment this lab does not have: “nosuch”/);
  // And one with nothing wrong clears it.
  addr.url = 'https://lab.example/vaxlab/#x=namework&k.nchsize=0';
  await lab.openFromAddress();
  assert.equal(lab.shown.permalinkError.get(), null);
  assert.equal(lab.form.form.get().kernelToggles.nchsize, '0');
});

test('how long a run takes: each step\'s fixed work and its busy instructions at the measured rate, idle time nearly free', () => {
  const rate = 20e6;
  const settings = { cpu: '750' as const, memoryMB: 4.5, set: {}, parameters: { iterations: 100000 } };
  const syscall = estimateRun('syscall', settings, rate)!;
  // 10 s of boot and set-up and the paper's 23 s on its 750: the virtual time the progress line says.
  assert.equal(syscall.virtualSeconds, 33);
  // The host's: the run's work, the step's machine, and the command's paper seconds (0.6 of a 780's each on the 750)
  // as instructions.
  const step = findExperiment('syscall')!.steps[0]!;
  assert.equal(expectedSeconds(step, 100000), 23);
  assert.equal(Number(syscall.hostSeconds.toFixed(6)),
    Number(((RUN_WORK + STEP_WORK + 23 * 0.6 * INSTRUCTIONS_PER_780_SECOND) / rate).toFixed(6)));
  // Twice the rate, half the time; the same program on a 780 takes 0.6 of the virtual time, and as long on the host.
  assert.equal(Number(estimateRun('syscall', settings, 2 * rate)!.hostSeconds.toFixed(6)), Number((syscall.hostSeconds / 2).toFixed(6)));
  const fast = estimateRun('syscall', { ...settings, cpu: '780' }, rate)!;
  assert.equal(Number(fast.virtualSeconds.toFixed(3)), Number((33 * 0.6).toFixed(3)));
  assert.equal(Number(fast.hostSeconds.toFixed(4)), Number(syscall.hostSeconds.toFixed(4)));
  // Every step's machine costs its fixed work however little its command does: Table 2 at a thousandth of its counts
  // takes at least its 29 machines' restoring, set-up and counters.
  const tiny = estimateRun('table2', { ...settings, parameters: { divisor: 1000 } }, rate)!;
  assert.equal(tiny.steps.length, 29);
  assert.ok(tiny.hostSeconds >= (RUN_WORK + 29 * STEP_WORK) / rate);
  // Measured in the page (status.ts): Table 2 divided by 5 (732 virtual seconds, 29 machines) took 20 s, Table 8
  // divided by 2 (906 virtual seconds, 3 machines) 13 s; the estimate has them so, and near those times at the
  // rate measured then.
  const table2 = estimateRun('table2', { ...settings, parameters: { divisor: 5 } }, 24.5e6)!;
  const table8 = estimateRun('table8', { ...settings, parameters: { divisor: 2 } }, 24.5e6)!;
  assert.ok(table2.virtualSeconds < table8.virtualSeconds && table2.hostSeconds > table8.hostSeconds);
  assert.ok(Math.abs(table2.hostSeconds / 20 - 1) < 0.2, `table2/5: ${table2.hostSeconds} s`);
  assert.ok(Math.abs(table8.hostSeconds / 13 - 1) < 0.2, `table8/2: ${table8.hostSeconds} s`);
  // The rate a finished run measures is the one at which the model gives its host time back.
  const measured = result(0.62);
  measured.rows[0]!.emulator = { instructions: '30000000', virtualSeconds: 60, machineInstructions: '32000000', machineVirtualSeconds: 70 };
  const r2 = measuredRate(measured, 2)!;
  assert.equal(r2, (RUN_WORK + STEP_WORK + 30e6) / 2);
  assert.equal(measuredRate(measured, 0.1), null);
  // A row of 3 seeds keeps the median's instructions: the run's machines did about 3 times the work.
  measured.rows[0]!.spread = { seeds: 3, real: { min: 0.6, max: 0.7 }, user: { min: 0, max: 0 }, sys: { min: 0.5, max: 0.6 } };
  assert.equal(measuredRate(measured, 2), (RUN_WORK + 3 * (STEP_WORK + 30e6)) / 2);
  // Several seeds: each step's machines that many times.
  const seeded = estimateRun('syscall', { ...settings, spinSeeds: 3 }, rate)!;
  assert.deepEqual([seeded.virtualSeconds, seeded.steps, seeded.seeds], [99, syscall.steps, 3]);
  assert.equal(Number(seeded.hostSeconds.toFixed(4)), Number((syscall.runHostSeconds + 3 * syscall.stepHostSeconds[0]!).toFixed(4)));
  // How far a run is: in expected host time, each step its own share (Table 2's steps differ a hundredfold), the
  // current step by the host seconds it has taken, at most 95% of what it should until it ends.
  const at = (step: number, taken: number) =>
    runFraction({ hostSeconds: 100 + taken, unitStartedAt: 100, progress: { step, steps: 29, label: 's', virtualSeconds: 1, instructions: 1 } } as never, table2)!;
  const before = (step: number) => table2.runHostSeconds + table2.stepHostSeconds.slice(0, step - 1).reduce((a, b) => a + b, 0);
  assert.equal(at(1, 0), table2.runHostSeconds / table2.hostSeconds);
  assert.equal(Number(at(17, table2.stepHostSeconds[16]! / 2).toFixed(9)),
    Number(((before(17) + table2.stepHostSeconds[16]! / 2) / table2.hostSeconds).toFixed(9)));
  assert.equal(Number(at(17, 1e6).toFixed(9)), Number(((before(17) + 0.95 * table2.stepHostSeconds[16]!) / table2.hostSeconds).toFixed(9)));
  const second = { hostSeconds: 5, unitStartedAt: 5, progress: { step: 1, steps: 1, label: 'syscall', virtualSeconds: 16.5, instructions: 1, seed: { n: 2, of: 3 } } } as never;
  assert.equal(Number(runFraction(second, seeded)!.toFixed(9)),
    Number(((seeded.runHostSeconds + syscall.stepHostSeconds[0]!) / seeded.hostSeconds).toFixed(9)));
  assert.match(progressText({ ...(second as object), status: 'running', hostSeconds: 2 } as never, seeded)!,
    /^Step 1 of 1: syscall, seed 2 of 3 — virtual 16\.5 s of about 33, host 2\.0 s$/);
  assert.equal(durationWords(estimateRun('syscall', { ...settings, parameters: { iterations: 99_999_999 } }, rate)!.hostSeconds).startsWith('about '), true);
  assert.deepEqual([durationWords(0.5), durationWords(42), durationWords(3725)], ['under a second', 'about 42 s', 'about 1 h 2 min']);
  // Rounding up carries into the next unit: never "1 min 60 s", "60 s" or "1 h 60 min".
  assert.deepEqual([59.6, 115, 119, 170, 599.9, 3599, 7190].map(durationWords),
    ['about 1 min', 'about 2 min', 'about 2 min', 'about 2 min 50 s', 'about 10 min', 'about 1 h', 'about 2 h']);
  // A finished run's line: the emulator's time from typing to the prompt, told apart from /bin/time's; a stopped run
  // counts the rows done as the results' outcome does, the stopped one not among them.
  const ok = { status: 'ok', emulator: { virtualSeconds: 0.6 } };
  const finishedRun = (rows: unknown[]) => ({ status: 'done', hostSeconds: 0.24, progress: { step: 3, steps: 29 }, result: { rows } }) as never;
  assert.equal(progressText(finishedRun([ok])),
    'Finished: 1 row; 0.6 virtual s from typing the command to the next prompt (the table has /bin/time\'s figures), host 0.2 s');
  assert.equal(progressText(finishedRun([ok, ok, { status: 'failed', failure: { kind: 'stopped' }, emulator: { virtualSeconds: 0.1 } }])),
    'Stopped: 2 of 29 rows done; 1.3 virtual s from typing the commands to the next prompt (the table has /bin/time\'s figures), host 0.2 s');
  // Where the machines go: nothing to say for one unit or without a pool; otherwise the workers, or how to get them.
  assert.equal(workersWords({ steps: [1], seeds: 1 }, null, true), null);
  assert.equal(workersWords({ steps: [1, 2], seeds: 1 }, 2, false), null);
  assert.equal(workersWords({ steps: [1, 2, 3], seeds: 1 }, null, true),
    'Its 3 steps run in turn on one worker; Workers, under Sweep, spreads them over several.');
  assert.equal(workersWords({ steps: [1], seeds: 3 }, 2, true),
    'Its 3 seeds run on 2 workers at once (Workers, under Sweep), so it takes less than one worker\'s time above, as far as this computer\'s cores allow; the results are the same bytes.');
  assert.equal(workersWords({ steps: [1, 2], seeds: 2 }, 3, true),
    'Its 2 steps × 2 seeds (4 machines) run on 3 workers at once (Workers, under Sweep), so it takes less than one worker\'s time above, as far as this computer\'s cores allow; the results are the same bytes.');
  // Under another experiment than the run's (picked in the list while it ran), the line names the run's.
  const table2Run = { experiment: 'table2', status: 'running', hostSeconds: 6.8, progress: { step: 17, steps: 29, label: 'execs0null', virtualSeconds: 2.5, instructions: 1 } } as never;
  assert.match(progressText(table2Run, null, 'ls-l')!, /^table2: Step 17 of 29: execs0null — virtual 2\.5 s, host 6\.8 s$/);
  assert.match(progressText(table2Run, null, 'table2')!, /^Step 17 of 29: execs0null/);
  assert.match(progressText({ ...(finishedRun([ok]) as object), experiment: 'syscall' } as never, null, 'namework')!, /^syscall: Finished: 1 row;/);
});

test('"Sweep over bufpages" from How close are we?: the row with its own settings, the sweep form set, the sweep run', async () => {
  const w = channel();
  const lab = new LabController({ imageBase: 'https://lab.example/images/', address: address(), storage: null });
  lab.link.connect(w.page, []);
  lab.sweepSettingOf('gausspage.40', 'bufpages', [268, 332, 396]);
  assert.equal(lab.sweeps.running, false, 'nothing before the machine is ready');
  w.send({ type: 'ready', kernel: '4.3BSD', image: { name: '43bsd.dsk.gz', bytes: 100, compressedBytes: 40 }, variants: [], wasmMs: 5, imageMs: 50 });
  await until(() => lab.canRun(), 'ready');
  lab.form.select('syscall');
  lab.form.setParameter('iterations', '2000');
  lab.sweepSettingOf('gausspage.40', 'bufpages', [268, 332, 396], 'faults');
  const form = lab.form.form.get();
  assert.equal(form.experimentId, 'gausspage.40');
  assert.deepEqual(lab.sweeps.form.get().axes, [{ setting: 'bufpages', values: '268,332,396' }, { setting: '', values: '' }]);
  assert.equal(lab.sweeps.running, true);
  assert.match(lab.runs.console.contents, /gausspage\.40 sweep/);
  // Once one runs, another is not started over it.
  lab.sweepSettingOf('gausspage.50', 'bufpages', [1, 2]);
  assert.equal(lab.form.form.get().experimentId, 'gausspage.40');
  lab.stop();

  // Table 7's probes for a run of 5 seeds: the sweep with the run's seeds, whatever the form had (2 points x 12 steps x
  // 5 seeds: a unit each).
  const w2 = channel();
  const probing = new LabController({ imageBase: 'https://lab.example/images/', address: address(), storage: null });
  probing.link.connect(w2.page, []);
  w2.send({ type: 'ready', kernel: '4.3BSD', image: { name: '43bsd.dsk.gz', bytes: 100, compressedBytes: 40 }, variants: [], wasmMs: 5, imageMs: 50 });
  await until(() => probing.canRun(), 'ready');
  probing.form.setSeeds('2');
  probing.sweepSettingOf('table7', 'bufpages', [268, 396], 'faults', 5);
  assert.equal(probing.form.form.get().seeds, '5');
  assert.equal(probing.sweeps.running, true);
  assert.match(probing.runs.console.contents, /table7 sweep.*: 2 points, 120 units \(each step's seeds 1\.\.5 a unit each\)/);
  await until(() => w2.posted.some((m) => m.type === 'units-check'), 'the sweep\'s check');
  const check = w2.posted.find((m) => m.type === 'units-check')!;
  assert.equal(check.type === 'units-check' && check.request.base.spinSeeds, 5);
  probing.stop();
});
