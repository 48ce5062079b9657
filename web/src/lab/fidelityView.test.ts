// "How close are we?" (fidelityView.ts), in Node: which run each table
// reads (the newest made as the paper ran it; the others passed over, each
// with why), the same figures as `npx vaxlab fidelity` (the runner's
// functions), held-out rows first and calibration rows apart, the summary
// lines.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { kernelResultName } from '../../../experiments/kernels/variants';
import { findExperiment } from '../../../experiments/runner/experiments';
import { formatFidelity, table2Fidelity } from '../../../experiments/runner/fidelity';
import type { ExperimentResult, RowResult } from '../../../experiments/runner/result';
import type { SweepResult } from '../../../experiments/runner/sweep';
import { fidelityReport, notAsThePaperRan, type FidelityCandidate } from './fidelityView';
import type { SharedRun } from './permalink';

/** A row of the experiment's step as the runner records it, `factor` times the paper's figures. */
function row(experiment: string, step: string, factor: number, over: Partial<RowResult> = {}): RowResult {
  const s = findExperiment(experiment)!.steps.find((x) => x.id === step)!;
  const p = s.paper!;
  return {
    test: s.label, command: s.command, iterations: p.count, status: 'ok', limitSeconds: 100, step, kernelSettings: { ...s.kernel },
    guest: { real: (p.elapsed ?? 1) * factor, user: 0, sys: (p.system ?? 1) * factor, line: '' },
    paper: {
      elapsed: p.elapsed, user: p.user, system: p.system, ...(p.pageFaults !== undefined ? { pageFaults: p.pageFaults } : {}),
      scale: 1, iterations: p.count, source: p.source, column: p.column, scaled: p.scales,
    },
    ...(s.calibration ? { calibration: true } : {}),
    ...over,
  };
}

function run(experiment: string, rows: RowResult[], over: Partial<ExperimentResult> = {}): SharedRun {
  const spec = findExperiment(experiment)!;
  const result: ExperimentResult = {
    format: 'vaxlab-experiment-result', version: 2, experiment, title: spec.title, group: 'g', paperRef: 'p', view: spec.view,
    machine: { cpu: spec.machine.cpu, nsPerInstruction: 3333, memoryMB: spec.machine.memoryMB, memoryNote: '', boot: 'single', direct: true, spinSeeds: 1 },
    image: null, parameters: { ...spec.parameters }, kernelSettings: {}, compare: '', status: 'ok', rows,
    // As the runner records a run on the experiment's own kernel (Table 2's: the paper's; Table 7's: like-4.2).
    ...(spec.kernel ? { kernel: { name: kernelResultName(spec.kernel), sha256: 'ab'.repeat(32) } } : {}),
    ...over,
  };
  return { experiment, config: { cpu: spec.machine.cpu, memoryMB: spec.machine.memoryMB, set: {}, parameters: result.parameters }, result };
}

const table2Steps = findExperiment('table2')!.steps;
/** Table 2 with every row `factor` times the paper's, one row (csw) 1.5 times. */
function table2(factor: number, over: Partial<ExperimentResult> = {}): SharedRun {
  return run('table2', table2Steps.map((s) => row('table2', s.id, s.id === 'csw' ? 1.5 : factor)), over);
}

test('each table reads the newest run made as the paper ran it; the others are passed over, saying why', () => {
  const at = (i: number) => `2026-11-2${i}T00:00:00.000Z`;
  const candidates: FidelityCandidate[] = [
    { shared: table2(1.1), origin: 'your history, saved 21 Nov', at: at(1) },
    { shared: table2(1.2, { machine: { ...table2(1).result.machine, cpu: '780' } }), origin: 'this page’s run', at: at(5) },
    { shared: table2(1.0, { kernel: { name: 'no-name-cache: 4.3BSD without the system-wide name cache' } }), origin: 'a link', at: at(4) },
    { shared: table2(1.3, { parameters: { divisor: 10 } }), origin: 'this page’s earlier run', at: at(3) },
    // Run before Table 2 booted the paper's kernel by default: no kernel in the result, the image's /vmunix.
    { shared: table2(1.0, { kernel: undefined }), origin: 'an old link', at: at(6) },
    // Asked for the distributed kernel by name (--kernel vmunix, the page's "/vmunix as distributed").
    { shared: table2(1.0, { kernel: { name: kernelResultName(null) } }), origin: 'a vmunix run', at: at(7) },
    // Run on Table 2's default before 26 November 2026 (the open-file scans, with the release's text cache).
    { shared: table2(1.0, { kernel: { name: kernelResultName('ofile-scans-1985') } }), origin: 'a run of 25 Nov', at: at(8) },
  ];
  const parts = fidelityReport(candidates);
  assert.deepEqual(parts.map((p) => p.key), ['table2', 'table7', 'table8', 'namecache']);
  const t2 = parts[0]!;
  // The divided run (its rows scaled to the paper's counts) is the newest made as the paper ran it.
  assert.equal(t2.source!.origin, 'this page’s earlier run');
  assert.equal(t2.divisor, 10);
  assert.deepEqual(t2.passedOver, [
    'a run of 25 Nov: kernel ofile-scans-1985 (the paper\'s: paper-1985)',
    'a vmunix run: kernel vmunix (the paper\'s: paper-1985)',
    'an old link: kernel vmunix (the paper\'s: paper-1985)',
    'this page’s run: cpu=780 (the paper\'s: 750)',
    'a link: kernel no-name-cache (the paper\'s: paper-1985)',
  ]);
  // Nothing for the others yet.
  assert.deepEqual(parts.slice(1).map((p) => p.source), [null, null, null]);
  assert.match(notAsThePaperRan(run('table7', [])) ?? '', /^0 of \d+ rows$/);
  // Table 7 boots like-4.2 (the lab's closest to the paper's 4.2BSD column, not called the paper's kernel): the
  // paper's Table 2 kernel there is not as the paper ran it, nor is /vmunix — asked for by name, or an old run
  // whose result names no kernel (made when Table 7 booted /vmunix by default).
  assert.match(notAsThePaperRan(run('table7', [], { kernel: { name: kernelResultName('paper-1985') } })) ?? '',
    /^kernel paper-1985 \(the experiment's: like-4\.2\), 0 of \d+ rows$/);
  assert.match(notAsThePaperRan(run('table7', [], { kernel: { name: kernelResultName(null) } })) ?? '',
    /^kernel vmunix \(the experiment's: like-4\.2\), 0 of \d+ rows$/);
  assert.match(notAsThePaperRan(run('table7', [], { kernel: undefined })) ?? '',
    /^kernel vmunix \(the experiment's: like-4\.2\), 0 of \d+ rows$/);
  // The name cache stays on /vmunix.
  assert.match(notAsThePaperRan(run('namecache-ls', [])) ?? '', /^0 of \d+ rows$/);
  assert.equal(notAsThePaperRan(table2(1)), null);
  assert.equal(notAsThePaperRan(table2(1, { kernelSettings: { nchsize: 0 } })), 'nchsize=0');
  // The lab's figures are the drifting disks' and the RP06's: a run with either changed is not the one to show.
  const machine = table2(1).result.machine;
  assert.equal(notAsThePaperRan(table2(1, { machine: { ...machine, spin: 'locked' } })), 'spin=locked');
  assert.equal(notAsThePaperRan(table2(1, { machine: { ...machine, disk: 'rm05', spin: 'locked' } })), 'disk=rm05, spin=locked');
  assert.equal(notAsThePaperRan(table2(1, { machine: { ...machine, spin: 'drifting' } })), null);
});

test('the figures are the CLI\'s: held-out rows first, calibration rows apart and marked, the summary as it prints it', () => {
  const shared = table2(1.1);
  const [t2] = fidelityReport([{ shared, origin: 'o', at: '2026-11-26T00:00:00.000Z' }]);
  const cli = table2Fidelity(shared.result);
  assert.deepEqual(t2!.table, cli);
  // The summary lines say what formatFidelity says.
  for (const line of t2!.summary) {
    const [figure, rest] = line.split(': ');
    assert.ok(formatFidelity(cli).includes(`${figure!.toLowerCase()}: ${rest}`), line);
  }
  assert.match(t2!.summary[0]!, /^Elapsed: 26 held-out rows, median \|error\| 10\.0%, max 50\.0% \(csw\)$/);
  const view = t2!.view!;
  assert.deepEqual(view.columns.map((c) => c.key), ['test', 'elapsed.ours', 'elapsed.paper', 'elapsed.error', 'system.ours', 'system.paper', 'system.error']);
  const labels = view.rows.map((r) => r.cells[0]!.text);
  const head = labels.indexOf('Calibration (not counted)');
  assert.equal(head, 26, 'the 26 held-out rows, then the calibration rows');
  assert.deepEqual(labels.slice(head + 1), ['syscall (calibration)', 'pipeself4 (calibration)', 'forks100k (calibration)']);
  const csw = view.rows.find((r) => r.test === 'csw')!;
  assert.deepEqual(csw.cells.slice(1, 4).map((c) => c.text), ['67.5', '45.0', '+50%']);
  assert.equal(csw.cells[3]!.className, 'far');
});

test('a spread over disk spin seeds is shown as a range; Table 7\'s rows with a handful of faults are marked, not counted', () => {
  const spread = { seeds: 3, real: { min: 20, max: 30 }, user: { min: 0, max: 0 }, sys: { min: 20, max: 20 } };
  const shared = run('table2', table2Steps.map((s) => row('table2', s.id, 1, s.id === 'forks0' ? { spread } : {})));
  const [t2] = fidelityReport([{ shared, origin: 'o', at: 'x' }]);
  const forks = t2!.view!.rows.find((r) => r.test === 'forks0')!;
  assert.match(forks.cells[1]!.text, /^22\.0 \[20\.0–30\.0\]$/);
  const t7rows = findExperiment('table7')!.steps.map((s) => row('table7', s.id, 1, { derived: { pageFaults: s.paper?.pageFaults ?? 0 } }));
  const parts = fidelityReport([{ shared: run('table7', t7rows), origin: 'o', at: 'x' }]);
  const t7 = parts.find((p) => p.key === 'table7')!;
  assert.ok(t7.view!.notes[0]!.startsWith('* shown, not counted'));
  assert.ok(t7.view!.rows.some((r) => r.cells.some((c) => c.text.endsWith(' *'))));
  // Table 8 reads the same run (rows with the paper's page fault service time only).
  assert.equal(parts.find((p) => p.key === 'table8')!.source, t7.source);
});

test('Table 7 offers a sweep of its worst counted row over the buffer cache, 64 KB either side of the kernel\'s own', async () => {
  const { freeMemorySweep } = await import('./fidelityView');
  // gausspage.40 45% over the paper, every other row as the paper's: the worst.
  const t7rows = findExperiment('table7')!.steps.map((s) => row('table7', s.id, 1,
    { derived: { pageFaults: Math.round((s.paper?.pageFaults ?? 0) * (s.id === 'gausspage.40' ? 1.45 : 1)) } }));
  const parts = fidelityReport([{ shared: run('table7', t7rows), origin: 'o', at: 'x' }]);
  const t7 = parts.find((p) => p.key === 'table7')!;
  // 332 KB: what 4.3BSD's startup() gives itself on the paper's 4.5 MB.
  assert.deepEqual(t7.freeMemorySweep, { experiment: 'gausspage.40', setting: 'bufpages', values: [268, 332, 396], measure: 'faults' });
  // The other tables offer none; a table without a counted row offers none either.
  assert.ok(parts.filter((p) => p.key !== 'table7').every((p) => p.freeMemorySweep === null));
  const few = { ...t7.table!, summary: {}, rows: t7.table!.rows.filter((r) => r.uncounted) };
  assert.equal(freeMemorySweep(few, 4.5), null);
  // On another memory, around that memory's own buffer cache (512 KB on 8 MB).
  assert.deepEqual(freeMemorySweep(t7.table!, 8)!.values, [448, 512, 576]);
});

test('Table 7 shows every counted row\'s free-memory probes from a kept sweep of the table over bufpages, as the CLI prints them', async () => {
  const { freeMemoryProbes, probeSweep } = await import('./fidelityView');
  const { SWEEP_FORMAT, SWEEP_VERSION } = await import('../../../experiments/runner/sweep');
  const { table7Fidelity } = await import('../../../experiments/runner/fidelity');
  const steps = findExperiment('table7')!.steps;
  const faultsRows = (factor: number) => steps.map((s) => row('table7', s.id, 1, { derived: { pageFaults: Math.round((s.paper?.pageFaults ?? 0) * factor) } }));
  const source = run('table7', faultsRows(1));
  // The table swept over bufpages 268 and 396 KB (64 KB either side of the kernel's own 332 KB on 4.5 MB): each point
  // the source run with only the buffer cache changed.
  const point = (bufpages: number, factor: number, over: Partial<ExperimentResult> = {}) => ({
    values: { bufpages }, result: { ...source.result, kernelSettings: { bufpages }, rows: faultsRows(factor), ...over },
  });
  const sweep = (points: ReturnType<typeof point>[], setting = 'bufpages'): SweepResult => ({
    format: SWEEP_FORMAT, version: SWEEP_VERSION, experiment: 'table7', title: 't', view: source.result.view,
    axes: [{ setting, values: points.map((p) => p.values.bufpages), labels: points.map((p) => String(p.values.bufpages)) }],
    base: { parameters: {}, set: {} }, status: 'ok', points,
  });
  const probes = sweep([point(268, 0.9), point(396, 1.2)]);
  const at = '2026-11-27T00:00:00.000Z';
  const parts = fidelityReport([{ shared: source, origin: 'o', at }], [{ result: probes, origin: 'your sweeps, saved today' }]);
  const t7 = parts.find((p) => p.key === 'table7')!;
  assert.equal(t7.probesFrom, 'your sweeps, saved today');
  assert.equal(t7.probeSweep, null, 'nothing to offer once the probes are there');
  // The CLI's table with the CLI's probes, figure for figure.
  const found = freeMemoryProbes(source.result, [{ result: probes, origin: 'x' }])!;
  assert.deepEqual(t7.table, table7Fidelity(source.result, found.probes));
  const g40 = t7.table!.rows.find((r) => r.label === 'gausspage.40')!.cells.faults!;
  assert.deepEqual(g40.freeMemory, { kb: 64, lessFree: Math.round(260 * 1.2), moreFree: Math.round(260 * 0.9) });
  // The view has the CLI's column after the faults' error.
  const keys = t7.view!.columns.map((c) => c.key);
  assert.deepEqual(keys.slice(1, 5), ['faults.ours', 'faults.paper', 'faults.error', 'faults.freeMemory']);
  assert.equal(t7.view!.columns[4]!.label, '64 KB less / more free');
  const g40row = t7.view!.rows.find((r) => r.test === 'gausspage.40')!;
  assert.equal(g40row.cells[4]!.text, `${Math.round(260 * 1.2)} / ${Math.round(260 * 0.9)}`);
  // Table 8 (the same run) has no such column.
  assert.ok(!parts.find((p) => p.key === 'table8')!.view!.columns.some((c) => c.key.endsWith('.freeMemory')));

  // Sweeps that are not the source run with only the buffer cache changed give no probes.
  const machine = source.result.machine;
  for (const [why, other] of [
    ['other seeds', sweep([point(268, 0.9, { machine: { ...machine, spinSeeds: 3 } }), point(396, 1.2)])],
    ['another kernel', sweep([point(268, 0.9), point(396, 1.2, { kernel: { name: kernelResultName(null) } })])],
    ['another setting besides', sweep([point(268, 0.9), { ...point(396, 1.2), result: { ...point(396, 1.2).result, kernelSettings: { bufpages: 396, hz: 50 } } }])],
    ['other values', sweep([point(204, 0.9), point(396, 1.2)])],
    ['another axis', sweep([point(268, 0.9), point(396, 1.2)], 'nbuf')],
  ] as const) {
    const [p7] = fidelityReport([{ shared: source, origin: 'o', at }], [{ result: other, origin: 'x' }]).filter((p) => p.key === 'table7');
    assert.equal(p7!.probesFrom, null, why);
    assert.ok(!p7!.table!.rows.some((r) => r.cells.faults?.freeMemory), why);
    // Instead the page offers the sweep that gives them: the whole table, more free memory first.
    assert.deepEqual(p7!.probeSweep, {
      experiment: 'table7', setting: 'bufpages', values: [268, 396], measure: 'faults', steps: 2 * steps.length, seeds: 1, notHere: null,
    }, why);
  }
  // A run with several seeds (`vaxlab fidelity --seeds 5`): the page makes its probes with the same seeds...
  const seeded = run('table7', faultsRows(1), { machine: { ...machine, spinSeeds: 5 } });
  assert.deepEqual(probeSweep(seeded.result), {
    experiment: 'table7', setting: 'bufpages', values: [268, 396], measure: 'faults', steps: 2 * steps.length, seeds: 5, notHere: null,
  });
  // ...and a sweep made so is its probes (the same seeds), one of a single seed is not.
  const seededPoint = (bufpages: number, factor: number) => point(bufpages, factor, { machine: seeded.result.machine });
  assert.ok(freeMemoryProbes(seeded.result, [{ result: sweep([seededPoint(268, 0.9), seededPoint(396, 1.2)]), origin: 'x' }]));
  assert.equal(freeMemoryProbes(seeded.result, [{ result: probes, origin: 'x' }]), null);
  // More seeds than the page's form takes: the command that makes the sweep in Node instead.
  const many = run('table7', faultsRows(1), { machine: { ...machine, spinSeeds: 20 } });
  assert.deepEqual(probeSweep(many.result)!.notHere, {
    command: 'npx vaxlab sweep table7 --set bufpages=268,396 --seeds 20 --json FILE',
  });
});
