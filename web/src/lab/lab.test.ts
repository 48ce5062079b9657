// The lab page's logic without a browser: the Configure form's checks, the
// Results table and CSV, counter series, the header's words, the state's atoms.  (The page
// itself is tested in a browser by e2e/.)

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { COUNTERS, type CounterSample } from '../../../experiments/runner/counters';
import { LOCKED_SPIN_WORDS, type ExperimentResult, type RowResult } from '../../../experiments/runner/result';
import {
  compareWithPaper, failureText, formatSeconds, resultTable, runOutcome, signed,
} from '../../../experiments/runner/resultView';
import { decimate, formatValue, MAX_POINT_CIRCLES } from './charts/counterChart';
import { formParams, readFragment } from './address';
import { adoptShared, checkForm, formFor, groupedExperiments, initialForm } from './config';
import { effectiveKernelName, kernelResultName } from '../../../experiments/kernels/variants';
import { findExperiment } from '../../../experiments/runner/experiments';
import { chartPanels, counterName, counterTitle } from './counterNames';
import {
  csvCell, exportTitle, machineWords, paperLegend, resultCsv, resultSummary, runRowSeries, SeriesBuilder, seriesFromSamples,
} from './results';
import { sweepFixedSettings } from '../../../experiments/runner/sweepView';
import { batch, ObjectAtom } from './state/atom';
import { TextStream, wrapWords } from './state/textStream';

function row(over: Partial<RowResult>): RowResult {
  return {
    test: 'syscall', command: '/bin/time ./syscall 2000', iterations: 2000, status: 'ok', limitSeconds: 120,
    guest: { real: 0.7, user: 0.1, sys: 0.5, line: '0.7 real 0.1 user 0.5 sys' },
    paper: { elapsed: 0.46, user: 0.01, system: 0.45, scale: 0.02, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true },
    step: 'syscall', kernelSettings: {},
    ...over,
  };
}

function result(rows: RowResult[], view: ExperimentResult['view'] = 'table2'): ExperimentResult {
  return {
    format: 'vaxlab-experiment-result', version: 2, experiment: 'syscall', title: 'Table 2, syscall', group: 'g',
    paperRef: 'p', view, machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 5, memoryNote: '', boot: 'single', direct: true, spinSeeds: 1 },
    image: null, parameters: { iterations: 2000 }, kernelSettings: {}, compare: '', status: 'ok', rows,
  };
}

test('the form: defaults are valid, bad numbers are marked on their input, cross-checks come from the runner', () => {
  const form = initialForm();
  assert.equal(form.experimentId, 'syscall');
  const ok = checkForm(form);
  assert.deepEqual(ok.errors, {});
  assert.ok(ok.settings);
  assert.equal(ok.settings.cpu, '750');
  assert.equal(ok.settings.memoryMB, 4.5); // the paper's 750

  const bad = checkForm({ ...form, params: { syscall: { iterations: '0' } }, kernelToggles: { nbuf: 'x', hz: '5' } });
  assert.equal(bad.settings, null);
  assert.match(bad.errors['param-iterations']!, /1 or more/);
  assert.ok(bad.errors['toggle-nbuf']);
  assert.match(bad.errors['toggle-hz']!, /range/);
  // A value that is not a number says what the variable takes, its range too (not only "a whole number", which -5 is).
  assert.equal(bad.errors['toggle-nbuf'], 'a whole number from 16 to 1024');
  // A negative number is read as one: maxtextcache's -1 (the release's: every text cached; on Table 2's paper-1985,
  // the text cache given back) runs, and below its range is said as out of range.
  assert.equal(checkForm({ ...form, kernelToggles: { maxtextcache: '-1' } }).settings?.set.maxtextcache, -1);
  assert.match(checkForm({ ...form, kernelToggles: { maxtextcache: '-2' } }).errors['toggle-maxtextcache']!, /-2 is out of range -1\.\.1000/);
  assert.match(checkForm({ ...form, kernelToggles: { nchsize: '-5' } }).errors['toggle-nchsize']!, /-5 is out of range 0\.\.4096/);

  const cross = checkForm({ ...form, kernelToggles: { hz: '60', tick: '1000' } });
  assert.equal(cross.settings, null);
  assert.ok(cross.problems.some((p) => /tick/.test(p)));

  const completed = checkForm({ ...form, kernelToggles: { hz: '60' } });
  assert.ok(completed.settings);
  assert.ok(completed.notes.some((n) => /tick/.test(n)));

  const mem = checkForm({ ...form, memoryMB: '65' });
  assert.ok(mem.errors['toggle-memoryMB']);
  // Memory in quarter megabytes: 4.5 (the paper's 750) is fine, 4.3 and 0.5 (too small to boot) are not.
  assert.equal(checkForm({ ...form, memoryMB: '4.5' }).settings?.memoryMB, 4.5);
  assert.equal(checkForm({ ...form, memoryMB: ' .75 ' }).settings?.memoryMB, 0.75);
  assert.match(checkForm({ ...form, memoryMB: '4.3' }).errors['toggle-memoryMB']!, /memoryMB: a multiple of 0\.25 from 0\.75 to 64, got 4\.3/);
  assert.match(checkForm({ ...form, memoryMB: '0.5' }).errors['toggle-memoryMB']!, /out of range 0\.75\.\.64/);
  assert.match(checkForm({ ...form, memoryMB: '4,5' }).errors['toggle-memoryMB']!, /megabytes: a multiple of 0\.25 from 0\.75 to 64, e\.g\. 4\.5/);
  assert.match(checkForm({ ...form, cpu: '760' }).errors['toggle-cpu']!, /750, 780/);
  assert.equal(checkForm({ ...form, cpu: '780' }).settings?.cpu, '780');

  // The disk's timing: by name; rp06 (the default) is left out of the settings, as a permalink keeps them.
  assert.equal(checkForm({ ...form, disk: 'eagle' }).settings?.disk, 'eagle');
  assert.ok(!('disk' in checkForm({ ...form, disk: 'rp06' }).settings!));
  assert.match(checkForm({ ...form, disk: 'ssd' }).errors['toggle-disk']!, /one of rp06 \(0\), eagle \(1\), ideal \(2\)/);
  // The rotation alike: locked goes into the settings, drifting (the default) does not; with the disk, in the order a
  // permalink has always kept them (its bytes follow the order).
  assert.equal(checkForm({ ...form, spin: 'locked' }).settings?.spin, 'locked');
  assert.ok(!('spin' in checkForm({ ...form, spin: 'drifting' }).settings!));
  assert.equal(JSON.stringify(checkForm({ ...form, disk: 'rm05', spin: 'locked', variant: 'generic' }).settings),
    JSON.stringify({ ...checkForm(form).settings, disk: 'rm05', spin: 'locked', kernel: 'generic' }));
});

test('the kernel: a Table 2 row boots the paper\'s by default, a paging row like-4.2; /vmunix and the variants by name; links say which ran', () => {
  const form = initialForm();
  // No choice: the settings name none, and the worker boots the experiment's own (syscall: the paper's kernel).
  assert.ok(!('kernel' in checkForm(form).settings!));
  assert.equal(findExperiment('syscall')!.kernel, 'paper-1985');
  assert.equal(findExperiment('table2')!.kernel, 'paper-1985');
  // Tables 7 and 8 and every paging row: like-4.2, the lab's closest kernel to the paper's 4.2BSD column.
  for (const id of ['table7', 'table8', 'seqpage', 'seqpage-v', 'randpage', 'randpage-v', 'gausspage.1', 'gausspage.50', 'gausspage.inf']) {
    assert.equal(findExperiment(id)!.kernel, 'like-4.2', `${id} boots like-4.2`);
  }
  for (const id of ['namecache', 'namecache-ls']) assert.equal(findExperiment(id)!.kernel, undefined, `${id} stays on /vmunix`);
  assert.equal(effectiveKernelName(findExperiment('syscall')!.kernel, null), 'paper-1985');
  assert.equal(effectiveKernelName(findExperiment('syscall')!.kernel, 'vmunix'), null);
  assert.equal(effectiveKernelName(findExperiment('syscall')!.kernel, 'no-name-cache'), 'no-name-cache');
  assert.equal(effectiveKernelName(findExperiment('table7')!.kernel, null), 'like-4.2');
  assert.equal(effectiveKernelName(findExperiment('randpage')!.kernel, 'vmunix'), null);
  // The distributed kernel by name, a variant, and nothing else.
  assert.equal(checkForm({ ...form, variant: 'vmunix' }).settings?.kernel, 'vmunix');
  assert.equal(checkForm({ ...form, variant: 'no-name-cache' }).settings?.kernel, 'no-name-cache');
  assert.match(checkForm({ ...form, variant: 'unix-v7' }).errors['kernel-variant']!, /no kernel variant "unix-v7"/);
  // Run again: the kernel the shared result ran.  A Table 2 or Table 7 result naming none ran /vmunix (before the
  // default moved); one on the experiment's own kernel asks for it by name; a name cache result naming none stays
  // on the default (/vmunix).
  const config = { cpu: '750' as const, memoryMB: 4.5, set: {}, parameters: { iterations: 2000 } };
  const r = result([]);
  assert.equal(adoptShared({ experiment: 'syscall', config, result: r }, form).form.variant, 'vmunix');
  assert.equal(adoptShared({ experiment: 'syscall', config, result: { ...r, kernel: { name: kernelResultName('paper-1985') } } }, form)
    .form.variant, 'paper-1985');
  // One made on Table 2's default before 26 November 2026 (the open-file scans, the release's text cache) runs it
  // again by name, not today's default.
  assert.equal(adoptShared({ experiment: 'syscall', config, result: { ...r, kernel: { name: kernelResultName('ofile-scans-1985') } } }, form)
    .form.variant, 'ofile-scans-1985');
  assert.equal(adoptShared({ experiment: 'table2', config: { ...config, parameters: {} }, result: { ...r, kernel: { name: kernelResultName('ofile-scans-1985') } } }, form)
    .form.variant, 'ofile-scans-1985');
  assert.equal(adoptShared({ experiment: 'syscall', config, result: { ...r, kernel: { name: kernelResultName(null) } } }, form)
    .form.variant, 'vmunix');
  assert.equal(adoptShared({ experiment: 'table7', config: { ...config, parameters: {} }, result: r }, form)
    .form.variant, 'vmunix');
  assert.equal(adoptShared({ experiment: 'randpage', config, result: r }, form).form.variant, 'vmunix');
  assert.equal(adoptShared({ experiment: 'table7', config: { ...config, parameters: {} }, result: { ...r, kernel: { name: kernelResultName('like-4.2') } } }, form)
    .form.variant, 'like-4.2');
  assert.equal(adoptShared({ experiment: 'namecache', config: { ...config, parameters: {} }, result: r }, form)
    .form.variant, null);
  // The address of a run opened from the history is the one a fresh run of the same settings has: the experiment's
  // own kernel, named by the result, is not a variant= there; another kernel is.
  const fresh = (experiment: string) => formParams(formFor(experiment, { ...config, parameters: {} }, form));
  for (const [experiment, ran] of [['syscall', 'paper-1985'], ['table2', 'paper-1985'], ['table7', 'like-4.2'], ['namecache', null]] as const) {
    const opened = adoptShared({ experiment, config: { ...config, parameters: {} }, result: { ...r, kernel: { name: kernelResultName(ran) } } }, form);
    assert.equal(formParams(opened.form), fresh(experiment), experiment);
    assert.doesNotMatch(formParams(opened.form), /variant=/);
  }
  assert.match(formParams(adoptShared({ experiment: 'table2', config: { ...config, parameters: {} }, result: { ...r, kernel: { name: kernelResultName(null) } } }, form).form),
    /&variant=vmunix/);
  // And read back as it was: /vmunix, not Table 2's own kernel.
  assert.deepEqual([readFragment('#x=table2&variant=vmunix').problems, readFragment('#x=table2&variant=vmunix').form!(form).variant], [[], 'vmunix']);
  // A result made in Node carries its machine settings in its result alone: the disk's timing and the rotation are
  // taken from there (rp06 is the default, so nothing to set); the link's own settings win where both say.
  const fromNode = adoptShared({ experiment: 'syscall', config, result: { ...r, machine: { ...r.machine, disk: 'eagle', spin: 'locked' } } }, form).form;
  assert.equal(fromNode.disk, 'eagle');
  assert.equal(fromNode.spin, 'locked');
  assert.equal(adoptShared({ experiment: 'syscall', config, result: { ...r, machine: { ...r.machine, disk: 'rp06' } } }, form).form.disk, null);
  assert.equal(adoptShared({ experiment: 'syscall', config: { ...config, disk: 'rm05' }, result: { ...r, machine: { ...r.machine, disk: 'eagle' } } }, form)
    .form.disk, 'rm05');
  // In words, never as 4.2BSD nor as the exact paper kernel.
  for (const name of [kernelResultName('paper-1985'), kernelResultName('ofile-scans-1985'), kernelResultName('like-4.2'), kernelResultName(null)]) {
    assert.doesNotMatch(name, /4\.2BSD|exact/);
  }
  assert.equal(kernelResultName('paper-1985'),
    'paper-1985: 4.3BSD with the open-file scans and without the text cache, as of spring 1985');
  assert.equal(kernelResultName('ofile-scans-1985'),
    'ofile-scans-1985: 4.3BSD with fork, exec and exit scanning all 48 open-file slots, as of spring 1985');
  assert.equal(kernelResultName(null), 'vmunix: 4.3BSD as distributed (the image\'s /vmunix, GENERIC of June 1986)');
});

test('the form reproduces a shared run\'s settings', () => {
  const f = formFor('csw', { cpu: '780', memoryMB: 8, set: { nbuf: 100 }, parameters: { iterations: 500 } }, initialForm());
  assert.equal(f.experimentId, 'csw');
  assert.equal(f.cpu, '780');
  assert.equal(f.memoryMB, '8');
  assert.equal(f.params.csw!.iterations, '500');
  assert.equal(f.kernelToggles.nbuf, '100');
  assert.deepEqual(checkForm(f).settings, { cpu: '780', memoryMB: 8, set: { nbuf: 100 }, parameters: { iterations: 500 } });
  assert.equal(f.disk, null);
  const g = formFor('csw', { cpu: '750', memoryMB: 5, set: {}, parameters: {}, disk: 'ideal' }, initialForm());
  assert.equal(g.disk, 'ideal');
  assert.equal(checkForm(g).settings?.disk, 'ideal');
  // The rotation by name, as the disk: null when the run's was the default.
  assert.equal(f.spin, null);
  const h = formFor('csw', { cpu: '750', memoryMB: 5, set: {}, parameters: {}, disk: 'rp06', spin: 'locked' }, { ...initialForm(), disk: 'eagle' });
  assert.deepEqual([h.disk, h.spin], [null, 'locked']);
  assert.deepEqual(checkForm(h).settings, { cpu: '750', memoryMB: 5, set: {}, parameters: { iterations: 10000 }, spin: 'locked' });
});

test('the picker groups by paper section and filters on every word', () => {
  const all = groupedExperiments('');
  assert.ok(all.length >= 3);
  assert.ok(all[0]!.experiments.some((e) => e.id === 'syscall'));
  const pipes = groupedExperiments('pipe 512');
  assert.ok(pipes.flatMap((g) => g.experiments).every((e) => /pipe/.test(e.id + e.title + e.description)));
  assert.deepEqual(groupedExperiments('no such thing at all'), []);
});

test('a failed or stopped run in words: the row\'s failure without a repeated kind, the run\'s outcome', () => {
  const stopped = { kind: 'stopped', message: 'stopped: stopped by the user', output: '' } as const;
  assert.equal(failureText(stopped), 'stopped by the user');
  assert.equal(failureText({ kind: 'stopped', message: 'stopped: halt: the processor halted', output: '' }), 'stopped: halt: the processor halted');
  assert.equal(failureText({ kind: 'time limit', message: 'time limit: no "# " within 120 virtual seconds', output: '' }),
    'time limit: no "# " within 120 virtual seconds');
  assert.equal(failureText(undefined), 'failed');

  assert.equal(runOutcome(result([row({})])), null);
  assert.equal(runOutcome(result([row({})]), 1), null);
  const csw = row({ test: 'csw', status: 'failed', guest: undefined, failure: stopped });
  assert.equal(runOutcome(result([row({}), csw]), 29), 'Stopped by the user during csw: 1 of 29 rows done');
  assert.equal(runOutcome(result([csw])), 'Stopped by the user during csw: 0 of 1 rows done');
  const limit = row({ status: 'failed', failure: { kind: 'time limit', message: 'time limit: no', output: '' } });
  assert.equal(runOutcome(result([row({}), limit])), '1 of 2 rows failed');
  assert.equal(runOutcome(result([limit]), 3), '1 of 3 rows failed, 2 not run');
});

test('ours against the paper: difference and %, failures, missing and incomparable figures', () => {
  const r = result([
    row({}),
    row({ test: 'csw', status: 'failed', guest: undefined, failure: { kind: 'stopped', message: 'stopped: stopped by the user', output: '' } }),
    row({ test: 'other', paper: null }),
  ]);
  const [a, b, c] = compareWithPaper(r);
  assert.equal(a!.ours, 0.7);
  assert.equal(a!.paper, 0.46);
  assert.equal(a!.difference, 0.24);
  assert.equal(a!.percent, 52.2);
  assert.equal(a!.scaled, true);
  assert.equal(b!.ours, null);
  assert.equal(b!.failure, 'stopped: stopped by the user');
  assert.equal(c!.paper, null);
  assert.equal(c!.difference, null);

  const paging = result([row({ paper: { elapsed: 569, scale: 0.1, iterations: 30000, source: 'Table 7', column: '4.2BSD', scaled: false } })], 'paging');
  const [p] = compareWithPaper(paging);
  assert.equal(p!.comparable, false);
  assert.equal(p!.difference, null);
  assert.equal(paperLegend(paging), 'the paper (4.2BSD)');

  const table = resultTable(r);
  const cell = (i: number, key: string) => table.rows[i]!.cells[table.columns.findIndex((x) => x.key === key)]!;
  assert.equal(table.columns.length, table.rows[0]!.cells.length);
  assert.equal(cell(0, 'paper.main.real').text, '0.46*');
  assert.equal(cell(0, 'diff.percent').text, '+52%');
  assert.equal(cell(1, 'status').text, 'stopped by the user');
  assert.equal(cell(1, 'status').title, 'stopped: stopped by the user');
  for (const view of ['paging', 'namecache'] as const) {
    const t = resultTable(result([row({})], view));
    assert.equal(t.columns.length, t.rows[0]!.cells.length, view);
  }
  assert.equal(signed(0.001, 2), '0.00');
  assert.equal(signed(-1.5, 1), '-1.5');
  assert.equal(signed(2, 0), '+2');
});

test('seconds are written alike everywhere: the table, the history line, the footnote for *', () => {
  assert.equal(formatSeconds(0.7), '0.70');
  assert.equal(formatSeconds(0.456), '0.46');
  assert.equal(formatSeconds(9.996), '10.0');
  assert.equal(formatSeconds(25.13), '25.1');
  assert.equal(formatSeconds(569), '569');
  const r = result([row({})]);
  const t = resultTable(r);
  const cell = (key: string) => t.rows[0]!.cells[t.columns.findIndex((x) => x.key === key)]!.text;
  assert.equal(cell('ours.real'), '0.70');
  assert.equal(cell('paper.main.real'), '0.46*');
  assert.equal(cell('diff.s'), '+0.24');
  // The * explained with the paper's own figure: 0.46 / 0.02 = 23.0 s for 100,000.
  assert.match(t.footnote!, /^\* The paper’s time for its 100,000 iterations, 23\.0 s, scaled to our 2,000/);
  assert.equal(resultSummary(r), '0.70 s (paper 0.46 s, +52%)');
  assert.equal(resultSummary(result([row({}), row({ test: 'csw', status: 'failed', guest: undefined })])), '1 of 2 rows ok');
  const unscaled = result([row({ iterations: 100000, paper: { elapsed: 23, scale: 1, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true } })]);
  assert.equal(resultTable(unscaled).footnote, null);
  const u = resultTable(unscaled);
  assert.equal(u.rows[0]!.cells[u.columns.findIndex((x) => x.key === 'paper.main.real')]!.text, '23.0');
});

test('a row of several seeds: the median with its range over them where it is more than one value, and a note saying so', () => {
  const spread = { seeds: 3, real: { min: 0.66, max: 0.75 }, user: { min: 0.1, max: 0.1 }, sys: { min: 0.48, max: 0.52 } };
  const r = result([row({ spread })]);
  r.machine.spinSeeds = 3;
  const t = resultTable(r);
  const cell = (key: string) => t.rows[0]!.cells[t.columns.findIndex((x) => x.key === key)]!;
  assert.equal(cell('ours.real').text, '0.70 [0.66–0.75]');
  assert.equal(cell('ours.real').title, 'the median of 3 runs, seeds 1..3; over them 0.66–0.75');
  assert.equal(cell('ours.sys').text, '0.50 [0.48–0.52]');
  // The same when written: no range to show.
  assert.equal(cell('ours.user').text, '0.10');
  // The paper's figures and the difference are the median's.
  assert.equal(cell('diff.s').text, '+0.24');
  assert.deepEqual(t.notes.filter((n) => /seeds/.test(n)), [
    'Each row is the median of 3 runs, seeds 1..3 (the disks\' phase, the clock\'s and the page placement); [min–max]: the range over them, where it is more than one value.',
  ]);
  // A paging row: its page-ins too (the count the spread is of).
  const paging = result([row({
    derived: { pageFaults: 240, pfstMs: 20 }, spread: { ...spread, pageFaults: { min: 231, max: 1250 } },
    paper: { elapsed: 5.6, scale: 1, iterations: 2000, source: 'Table 7', column: '4.2BSD', scaled: false },
  })], 'paging');
  paging.machine.spinSeeds = 3;
  const p = resultTable(paging);
  assert.equal(p.rows[0]!.cells[p.columns.findIndex((x) => x.key === 'ours.pgin')]!.text, '240 [231–1,250]');
  // One seed: as before, no range and no note.
  const single = resultTable(result([row({})]));
  assert.equal(single.rows[0]!.cells[single.columns.findIndex((x) => x.key === 'ours.real')]!.text, '0.70');
  assert.ok(!single.notes.some((n) => /seeds/.test(n)));
});

test('counters are named by what they are, with their unit; percentages of a group share a panel', () => {
  const def = (id: string) => COUNTERS.find((c) => c.id === id)!;
  assert.equal(counterTitle(def('faults.sy')), 'system calls /s (vmstat faults: sy)');
  assert.equal(counterTitle(def('faults.cs')), 'context switches /s (vmstat faults: cs)');
  assert.equal(counterTitle(def('paging.pi')), 'page-ins KB/s (vmstat page: pi)');
  assert.equal(counterName(def('disk.hp0.kbps')).name, 'hp0 data transferred');
  // Every counter the runner has gets a name of its own (not its vmstat column).
  for (const c of COUNTERS) assert.ok(counterName(c).name.length > 4 && counterName(c).name !== c.id, c.id);
  assert.equal(counterName({ id: 'new.thing', label: 'nt', unit: '/s', group: 'other', description: '' }).name, 'nt');

  const panels = chartPanels(['faults.sy', 'cpu.us', 'faults.cs', 'cpu.sy', 'cpu.id', 'hw.mips'].map(def));
  assert.deepEqual(panels.map((p) => p.ids), [['faults.sy'], ['cpu.us', 'cpu.sy', 'cpu.id'], ['faults.cs'], ['hw.mips']]);
  assert.equal(panels[1]!.title, 'CPU time % (vmstat cpu: us/sy/id)');
  assert.deepEqual(panels[1]!.legend, ['user (us)', 'system (sy)', 'idle (id)']);
  assert.equal(panels[0]!.heading, 'system calls /s');
  assert.equal(panels[0]!.axis, 'per second');
  assert.equal(chartPanels([def('cpu.sy')])[0]!.title, 'CPU in the kernel % (vmstat cpu: sy)');
});

test('the chart: values written short; thousands of samples drawn from at most two points per pixel', () => {
  assert.equal(formatValue(4012.3), '4,012');
  assert.equal(formatValue(12345), '12.3k');
  assert.equal(formatValue(0.3), '0.3');
  assert.equal(formatValue(Number.NaN), '–');
  assert.ok(MAX_POINT_CIRCLES >= 300);
  const points: [number, number][] = Array.from({ length: 5000 }, (_, i) => [i / 100, Math.sin(i)]);
  const drawn = decimate(points, (t) => t * 10); // 50 s over 500 px
  assert.ok(drawn.length <= 2 * 501 + 2, `${drawn.length} points`);
  assert.deepEqual(drawn[0], points[0]);
  assert.deepEqual(drawn.at(-1), points.at(-1));
  assert.ok(drawn.some(([, v]) => v > 0.99) && drawn.some(([, v]) => v < -0.99), 'the extremes are kept');
  for (let i = 1; i < drawn.length; i++) assert.ok(drawn[i]![0] >= drawn[i - 1]![0], 'in time order');
  assert.deepEqual(decimate(points.slice(0, 3), (t) => t), points.slice(0, 3));
});

test('a live series is built incrementally, and starts over for another row or run', () => {
  const b = new SeriesBuilder();
  const samples: CounterSample[] = [{ row: 0, t: 1, values: { a: 1 } }, { row: 1, t: 1, values: { a: 9 } }];
  let s = b.get(samples, 0);
  assert.deepEqual(s.t, [1]);
  samples.push({ row: 0, t: 2, values: { a: 2, b: 5 } });
  s = b.get(samples, 0);
  assert.deepEqual(s.t, [1, 2]);
  assert.deepEqual(s.values.a, [1, 2]);
  assert.ok(Number.isNaN(s.values.b![0]!));
  assert.deepEqual(s, seriesFromSamples(samples, 0));
  assert.deepEqual(b.get(samples, 1).values.a, [9]);
  assert.deepEqual(b.get([...samples], 0).t, [1, 2]);
});

test('a finished run without live samples for a row (spread over the pool) draws the series its result holds', () => {
  const held = { t: [0.5, 1], values: { 'faults.sy': [10, 20] } };
  const r = result([row({}), row({ test: 'two', counters: held })]);
  const none = new SeriesBuilder().get([], 1);
  assert.deepEqual(runRowSeries(none, r, 1), held);
  // A row the result has no series for stays empty; live samples, when there are some, are what is drawn.
  assert.equal(runRowSeries(none, r, 0), none);
  assert.equal(runRowSeries(none, null, 1), none);
  const live = new SeriesBuilder().get([{ row: 1, t: 2, values: { 'faults.sy': 7 } }], 1);
  assert.equal(runRowSeries(live, r, 1), live);
});

test('CSV: a header, a line per row, quoting', () => {
  const csv = resultCsv(result([row({}), row({ test: 'x, "y"', command: 'a,b' })]));
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^test,step,status,iterations,ours_real_s/);
  assert.match(lines[1]!, /^syscall,syscall,ok,2000,0.7,0.1,0.5,Table 2,4.3BSD,0.46,/);
  assert.ok(lines[2]!.startsWith('"x, ""y""",'));
  assert.ok(lines[2]!.includes(',"a,b",'));
});

test('CSV: text that a spreadsheet would run as a formula is neutralised (OWASP); numbers stay numbers', () => {
  for (const evil of ['=HYPERLINK("http://x","y")', '@SUM(1+1)*cmd|\' /C calc\'!A0', '+1+1', '-2+3', '\t=1', '\r=1']) {
    const cell = csvCell(evil);
    assert.ok(cell.startsWith('"\''), `${JSON.stringify(evil)} -> ${cell}`);
  }
  assert.equal(csvCell(-3.5), '-3.5');
  assert.equal(csvCell('syscall'), 'syscall');
  const csv = resultCsv(result([row({ test: '=cmd|\' /C calc\'!A0', command: '@SUM(1)' })]));
  assert.ok(!/(^|,)[=+@-][^0-9]/m.test(csv.split('\r\n').slice(1).join('\n')), csv);
});

test('counter samples become one row\'s columns, gaps as NaN', () => {
  const s = seriesFromSamples([
    { row: 0, t: 1, values: { a: 1 } },
    { row: 1, t: 1, values: { a: 9 } },
    { row: 0, t: 2, values: { a: 2, b: 5 } },
  ], 0);
  assert.deepEqual(s.t, [1, 2]);
  assert.deepEqual(s.values.a, [1, 2]);
  assert.ok(Number.isNaN(s.values.b![0]!));
  assert.equal(s.values.b![1], 5);
});

test('the exported charts\' heading: the title, with the reduced count or what two runs differ in', () => {
  const r = result([row({})]);
  assert.equal(exportTitle(r, { iterations: 100000 }, null), 'vaxlab: Table 2, syscall (iterations=2000)');
  assert.equal(exportTitle(r, { iterations: 2000 }, null), 'vaxlab: Table 2, syscall');
  assert.equal(exportTitle(r, { iterations: 100000 }, 'A: cpu=750 · B: cpu=780'), 'vaxlab: Table 2, syscall (A: cpu=750 · B: cpu=780)');
});

test('atoms batch updates; a text stream replays and resets', () => {
  const store = new ObjectAtom({ n: 0 });
  let heard = 0;
  store.subscribe(() => heard++);
  batch(() => {
    store.patch({ n: 1 });
    store.update((s) => ({ n: s.n + 1 }));
  });
  assert.equal(store.get().n, 2);
  assert.equal(heard, 1);

  const stream = new TextStream(8);
  const events: string[] = [];
  stream.append('abcdef');
  stream.subscribe((e) => events.push(`${e.reset ? 'reset:' : ''}${e.text}`));
  stream.append('ghij');
  assert.equal(stream.contents, 'cdefghij');
  stream.reset();
  assert.equal(stream.contents, '');
  assert.deepEqual(events, ['ghij', 'reset:']);
});

test('the page\'s lines in a console are broken at spaces to its width, never mid-word; the guest\'s are left as they are', () => {
  const header = '\x1b[1msyscall\x1b[0m on a VAX-11/750 model, 4.5 MB, 4.3BSD (kernel paper-1985: 4.3BSD with the open-file scans)\r\n';
  const rows = wrapWords(header, 40).split('\r\n');
  assert.deepEqual(rows, [
    '\x1b[1msyscall\x1b[0m on a VAX-11/750 model, 4.5 MB,', // 40 visible: the colour takes no room
    '4.3BSD (kernel paper-1985: 4.3BSD with',
    'the open-file scans)',
    '',
  ]);
  // Whole words only, none longer than the row (a word longer than a row is cut where the row ends).
  for (const width of [12, 23, 40, 61]) {
    const text = wrapWords(header, width);
    assert.equal(text.replace(/\r\n/g, ' ').replace(/ +/g, ' '), header.replace(/\r\n/g, ' ').replace(/ +/g, ' '), `${width}`);
    for (const row of text.split('\r\n')) assert.ok(row.replace(/\x1b\[[0-9;]*m/g, '').length <= width, `${width}: ${row}`);
  }
  assert.equal(wrapWords('abcdefghijklm no', 5), 'abcde\r\nfghij\r\nklm\r\nno');
  // Runs of spaces within a row stay (the guest's /bin/time line in a pooled run's unit line); short lines are kept.
  assert.equal(wrapWords('[1/3] seed 1:        0.5 real         0.0 user (worker 1)', 34), '[1/3] seed 1:        0.5 real\r\n0.0 user (worker 1)');
  assert.equal(wrapWords('\r\nDone in 0.4 s.\r\n', 80), '\r\nDone in 0.4 s.\r\n');
  // The stream: note() breaks to the width the terminal said; append() leaves text whole; no width, nothing broken.
  const stream = new TextStream();
  stream.note('one two three four\r\n');
  stream.columns = 9;
  stream.note('one two three four\r\n');
  stream.append('one two three four\r\n');
  assert.equal(stream.contents, 'one two three four\r\none two\r\nthree\r\nfour\r\none two three four\r\n');
});

test('a result\'s machine in words (the Results panel and the shared-run banner): the second drive, the disks\' timing and rotation, and the seeds, when a run had them', () => {
  const one = result([]).machine;
  // The cost model's scale (2000 for both processors) is not a speed, and is not said; an old result's other one is.
  assert.equal(machineWords({ ...one, cpu: '750', nsPerInstruction: 2000 }), `VAX-11/750 model, ${one.memoryMB} MB, ${one.boot}-user`);
  assert.equal(machineWords({ ...one, cpu: '750', nsPerInstruction: 3333 }), `VAX-11/750 model (its costs scaled by 3333/2000), ${one.memoryMB} MB, ${one.boot}-user`);
  const all = machineWords({ ...one, drives: 2, disk: 'eagle', spin: 'locked', spinSeeds: 3 });
  assert.equal(all, `${machineWords(one)}, two drives, /usr on the second, eagle disk timing, ${LOCKED_SPIN_WORDS}, each step run with seeds 1 to 3`);
  assert.equal(machineWords({ ...one, drives: 1, spinSeeds: 1 }), machineWords(one));
});

test('a sweep says what every point shares beyond the experiment\'s own settings, as its heading is the experiment\'s title', () => {
  assert.deepEqual(sweepFixedSettings({ base: { parameters: {}, set: {} } }), []);
  assert.deepEqual(sweepFixedSettings({ base: { parameters: { iterations: 20000 }, set: { nchsize: 0 } } }), ['iterations=20000', 'nchsize=0']);
  assert.deepEqual(
    sweepFixedSettings({ base: { parameters: {}, set: {}, cpu: '780', memoryMB: 8, disk: 'eagle', spin: 'locked', kernel: 'no-name-cache', spinSeeds: 3 } }),
    ['cpu=780', 'memoryMB=8', 'disk=eagle', 'spin=locked', 'kernel=no-name-cache', 'seeds=3'],
  );
  // The defaults by name, and one seed, are not said.
  assert.deepEqual(sweepFixedSettings({ base: { parameters: {}, set: {}, spin: 'drifting', spinSeeds: 1 } }), []);
});
