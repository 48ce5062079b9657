// The experiment runner (node --test, TypeScript via tsx).  Pure parts: the
// /bin/time parser, the session driver on a scripted console, the experiment
// specs against the paper's data (Tables 2, 3, 7, 8 and section 4.1.1 — the
// transcription itself is checked against the paper's text by
// experiments/experiments.test.ts), settings refused before any machine
// exists, the tables.  On the emulator (skipped, saying why, without the wasm
// build or the lab image): reduced runs of syscall (twice: identical JSON),
// the name cache off and on (hits 0 and > 0; twice: identical JSON), a
// paging run (parses, counts page faults), a time limit, Stop.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { DiskTiming } from '../../emu/js/constants';
import type { Vax780Api } from '../../emu/js/vax780';
import { LS_L_600_FILES, TABLE_3, TABLE_6, TABLE_7, TABLE_8 } from '../paper';
import { COUNTERS } from './counters';
import {
  ALL_EXPERIMENTS, EXPERIMENTS, GENERIC_NCHSIZE, TABLE2_ROWS, experimentGroups, findExperiment, stepCommand, stepCount, stepPaper,
} from './experiments';
import { type ExperimentResult, RESULT_VERSION, resultJson } from './result';
import { formatTable } from './resultText';
import { resolveRun, runExperiment, SettingsError } from './runner';
import { useLabImage } from './testLab';
import { ConsoleSession, SessionFailure, type ConsoleMachine } from './session';
import { parseTimedOutput, parseTimeLine } from './timeparse';

const lab = useLabImage('runner.test.ts');
const skip = lab.skip;

const spec = (id: string) => findExperiment(id) ?? assert.fail(`no experiment ${id}`);

// ------------------------------------------------------------ pure parts

test('/bin/time lines parse; other text does not', () => {
  assert.deepEqual(parseTimeLine('        1.5 real         0.1 user         1.3 sys'),
    { real: 1.5, user: 0.1, sys: 1.3, line: '1.5 real         0.1 user         1.3 sys' });
  assert.deepEqual(parseTimeLine('       25 real        3 user        22 sys')?.real, 25);
  assert.equal(parseTimeLine('1.7u 12.9s 0:14 99% 1+3k 0+0io 2pf+0w'), null); // csh's format: not ours
  const out = '/bin/time ./syscall 10; echo exit $?\r\n        0.1 real         0.0 user         0.0 sys\r\nexit 0\r\n# ';
  const t = parseTimedOutput(out, '/bin/time ./syscall 10');
  assert.equal(t.times.real, 0.1);
  assert.equal(t.exitStatus, 0);
  assert.deepEqual(t.other, []);
});

test('a canned transcript without a /bin/time line is a parse failure', () => {
  const canned = '/bin/time ./syscall 100000; echo exit $?\r\n1.7u 12.9s 0:14 99% 1+3k 0+0io 2pf+0w\r\nexit 0\r\n# ';
  assert.throws(() => parseTimedOutput(canned, '/bin/time ./syscall 100000'), (e: unknown) => {
    assert.ok(e instanceof SessionFailure);
    assert.equal(e.kind, 'parse failure');
    assert.match(e.message, /^parse failure: no \/bin\/time lines/);
    assert.match(e.message, /1\.7u 12\.9s/); // says what it got
    return true;
  });
  // Two time lines, or no exit line, are parse failures too.
  const twice = 'x\r\n 1.0 real 0.0 user 0.0 sys\r\n 1.0 real 0.0 user 0.0 sys\r\nexit 0\r\n# ';
  assert.throws(() => parseTimedOutput(twice, 'x'), /parse failure: 2 \/bin\/time lines/);
  assert.throws(() => parseTimedOutput('x\r\n 1.0 real 0.0 user 0.0 sys\r\n# ', 'x'), /parse failure: no "exit N"/);
});

test('the session driver: panic and time limit on a scripted console', async () => {
  // A fake machine whose console prints a fixed text after some slices; with
  // a panic message, its run() reports the kernel's panic (Vax780Stop.Panicked)
  // on that slice, as the session does when the kernel's panicstr is set.
  const fake = (text: string, afterSlices: number, panic = ''): ConsoleMachine => {
    let slices = 0;
    let pending = '';
    return {
      run() { slices++; if (slices === afterSlices) { pending += text; if (panic) return 101; } return 0; },
      type() {},
      readConsole() { const s = pending; pending = ''; return s; },
      consoleDropped: () => 0n,
      timeNs: () => BigInt(slices) * 400_000_000n, // 0.4 virtual s per slice
      instructionCount: () => BigInt(slices) * 200_000n,
      stopDetail: () => '',
      panicMessage: () => (slices >= afterSlices ? panic : ''),
    };
  };
  assert.equal((await new ConsoleSession(fake('ok\r\n# ', 3)).expect('\n# ', 10)).output, 'ok\r\n# ');
  // A match split across two slices' output is found, once, and the next expect starts after it.
  const parts = ['boot\r', '\n#', ' ', 'ls\r\n# '];
  let n = 0;
  const split: ConsoleMachine = { ...fake('', 0), run: () => { n++; return 0; }, readConsole: () => parts[n - 1] ?? '', timeNs: () => BigInt(n) };
  const splitSession = new ConsoleSession(split);
  assert.equal((await splitSession.expect('\n# ', 10)).output, 'boot\r\n# ');
  assert.equal((await splitSession.expect('\n# ', 10)).output, 'ls\r\n# ');
  await assert.rejects(new ConsoleSession(fake('panic: ifree: freeing free inode\r\n', 2, 'ifree: freeing free inode')).expect('\n# ', 10),
    (e: unknown) => e instanceof SessionFailure && e.kind === 'panic' &&
      /the kernel panicked: "panic: ifree: freeing free inode"/.test(e.message) && /freeing free inode/.test(e.output));
  // Text that only looks like a panic (a typed "echo panic: typed") is not one.
  assert.match((await new ConsoleSession(fake('echo panic: typed\r\npanic: typed\r\n# ', 2)).expect('\n# ', 10)).output,
    /panic: typed/);
  await assert.rejects(new ConsoleSession(fake('', 1)).expect('\n# ', 2), (e: unknown) =>
    e instanceof SessionFailure && e.kind === 'time limit' && /within 2 virtual seconds/.test(e.message));
  // Stop (an aborted signal) ends the wait at the next slice boundary; the hooks see every slice and the output.
  const stop = new AbortController();
  const seen: string[] = [];
  let slices = 0;
  let pauses = 0;
  const session = new ConsoleSession(fake('booting\r\n', 2), undefined, {
    signal: stop.signal,
    onConsole: (t) => seen.push(t),
    onSlice: () => { if (++slices === 5) stop.abort(); },
    pause: async () => { pauses++; },
  });
  await assert.rejects(session.expect('\n# ', 100), (e: unknown) =>
    e instanceof SessionFailure && e.kind === 'stopped' && /stopped by the user/.test(e.message));
  assert.deepEqual(seen, ['booting\r\n']);
  assert.equal(slices, 5);
  assert.equal(pauses, 0); // fewer than PAUSE_EVERY slices
});

test('the session driver keeps a chatty guest\'s output bounded: the head, the tail and how much was left out', async () => {
  // 100 KB a slice for 600 slices (60 MB), then the prompt: the wait stays
  // linear, the transcript bounded, and the output says what it left out.
  const { TRANSCRIPT_MAX, TRANSCRIPT_HEAD } = await import('./session');
  let n = 0;
  const chunk = 'x'.repeat(100 * 1024 - 2) + '\r\n';
  const machine: ConsoleMachine = {
    run: () => { n++; return 0; },
    type() {},
    readConsole: () => (n === 1 ? 'boot banner\r\n' : n <= 600 ? chunk : n === 601 ? 'end\r\n# ' : ''),
    consoleDropped: () => 0n,
    timeNs: () => BigInt(n) * 1_000_000n,
    instructionCount: () => BigInt(n),
    stopDetail: () => '',
    panicMessage: () => '',
  };
  const session = new ConsoleSession(machine);
  const t0 = performance.now();
  const r = await session.expect('\n# ', 100);
  assert.ok(performance.now() - t0 < 20_000, 'linear, not quadratic');
  assert.ok(session.transcript.length <= TRANSCRIPT_MAX + chunk.length + 200, `${session.transcript.length} characters kept`);
  assert.ok(session.omitted > 50 * 1024 * 1024, `${session.omitted} left out`);
  assert.ok(session.transcript.startsWith('boot banner'), 'the head (boot messages) is kept');
  assert.match(r.output, /\[vaxlab: [\d,]+ characters of output not kept\]/);
  assert.ok(r.output.endsWith('end\r\n# '), 'the tail is kept');
  assert.ok(TRANSCRIPT_HEAD < TRANSCRIPT_MAX);
});

test('experiments: groups, ids, descriptions, steps and chart counters', () => {
  const ids = EXPERIMENTS.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'experiment ids are unique');
  assert.deepEqual(experimentGroups().map((g) => g.group),
    ['Micro-operations (3.2.1, Table 2)', 'Paging (3.2.8, Tables 6–8)', 'Name translation (4.1.1)', 'Workloads']);
  assert.deepEqual([...ALL_EXPERIMENTS], ['table2', 'table7', 'namecache']);
  const counterIds = new Set(COUNTERS.map((c) => c.id));
  for (const e of EXPERIMENTS) {
    assert.equal(e.description.split('\n').length, 2, `${e.id}: a two-line description`);
    assert.ok(e.paperRef.startsWith('§'), e.id);
    assert.ok(e.steps.length > 0, e.id);
    const stepIds = e.steps.map((s) => s.id);
    assert.equal(new Set(stepIds).size, stepIds.length, `${e.id}: step ids are unique`);
    for (const c of e.counters) assert.ok(counterIds.has(c), `${e.id}: counter ${c} is in counters.ts`);
    for (const s of e.steps) {
      assert.equal(s.count === null, !s.command.includes('{n}'), `${e.id}/${s.id}: a count exactly when {n}`);
      assert.ok(s.setup.every((l) => l.length < 250), 'set-up lines fit the terminal\'s input queue');
    }
  }
  // Table 2: all 29 rows, alone and together, with the run script's commands.
  assert.equal(TABLE2_ROWS.length, 29);
  assert.equal(spec('table2').steps.length, 29);
  const syscall = spec('syscall');
  assert.equal(syscall.machine.cpu, '750');
  assert.equal(syscall.machine.memoryMB, 4.5);
  assert.match(syscall.machine.memoryNote, /the paper's 4\.5 MB/);
  assert.equal(spec('table7').machine.memoryMB, 4.5);
  assert.equal(spec('namecache').machine.memoryMB, 4.5);
  assert.equal(stepCommand(syscall.steps[0]!, stepCount(syscall, syscall.steps[0]!, syscall.parameters)), './syscall 100000');
  assert.equal(stepCommand(spec('execs0big').steps[0]!, 1000), './execs 1000 0 ./bigjob');
  assert.equal(spec('execs0null-1kenv').steps[0]!.setup.length, 15);
  // Paging: Table 6's programs with the run script's arguments; table7 has all 12, table8 Table 8's three.
  const t7 = spec('table7');
  assert.deepEqual(t7.steps.map((s) => s.id), TABLE_6.map((p) => p.test));
  for (const s of t7.steps) {
    const run = TABLE_6.find((p) => p.test === s.id)!.run.command;
    assert.equal(stepCommand(s, s.count), `./${run}`);
  }
  assert.deepEqual(spec('table8').steps.map((s) => s.id), TABLE_8.map((r) => r.test));
  // The name cache: ls -l and namework, each off / GENERIC's (not set, read back) / larger.
  const nc = spec('namecache');
  assert.deepEqual(nc.steps.map((s) => s.id),
    ['ls.nch0', `ls.nch${GENERIC_NCHSIZE}`, 'ls.nch1000', 'namework.nch0', `namework.nch${GENERIC_NCHSIZE}`, 'namework.nch1000']);
  assert.deepEqual(nc.steps.map((s) => s.kernel.nchsize), [0, undefined, 1000, 0, undefined, 1000]);
  assert.ok(nc.steps.every((s) => s.readback.includes('nchsize')));
  assert.equal(nc.steps[0]!.command, 'ls -l > /dev/null');
  assert.deepEqual(nc.steps[0]!.setup, ['cd /usr/lab/names']);
  // ls-l and namework alone take the name cache from the settings: nchsize is accepted there, refused where the steps set it.
  for (const id of ['ls-l', 'namework']) {
    assert.equal(spec(id).steps.length, 1);
    assert.deepEqual(resolveRun(spec(id), { set: { nchsize: 0 } }).steps[0]!.kernel, { nchsize: 0 });
  }
  assert.throws(() => resolveRun(nc, { set: { nchsize: 0 } }), /namecache sets nchsize itself/);
  assert.equal(stepCount(spec('namework'), spec('namework').steps[0]!, { iterations: 50 }), 50);
});

test('the paper\'s figures the experiments compare with (Tables 2, 3, 7, 8 and section 4.1.1)', () => {
  // Table 2, 4.3BSD columns.
  assert.deepEqual(spec('syscall').steps[0]!.paper, {
    source: 'Table 2', column: '4.3BSD', count: 100000, scales: true, elapsed: 23.0, user: 3.5, system: 20.4,
    // and its 4.2 and 4.1 columns, shown beside it
    others: [{ column: '4.2BSD', elapsed: 29.0, user: 5.3, system: 23.7 }, { column: '4.1BSD', elapsed: 28.0, user: 4.5, system: 23.9 }],
  });
  assert.equal(spec('vexecs100kbig').steps[0]!.paper!.elapsed, 101.0);
  // Table 3 repeats Table 2's (1K env) rows for 4.1 and 4.2; our steps are those rows, compared in the 4.3 column.
  for (const r of TABLE_3) {
    const step = spec('table2').steps.find((s) => s.label === r.table2Test)!;
    assert.ok(step.setup.length === 15 && step.command.startsWith(`./execs {n} ${r.test === 'execs0null' ? '0' : '1024'} ./nulljob`));
    assert.equal(step.paper!.elapsed, 75.0);
  }
  // Table 7, 4.2BSD columns (there is no 4.3 column); Table 8's PFST with the three rows it has.
  assert.deepEqual(spec('seqpage').steps[0]!.paper, {
    source: 'Table 7', column: '4.2BSD', count: 10, scales: false, elapsed: 1126, user: 12.8, system: 213.0, pageFaults: 17113,
    others: [{ column: '4.1BSD', elapsed: 959, user: 16.7, system: 197.0, pageFaults: 17132 }],
  });
  assert.equal(spec('randpage').steps[0]!.paper!.others![0]!.pfst, 791);
  assert.equal(spec('gausspage.40').steps[0]!.paper!.pageFaults, 260);
  assert.equal(spec('gausspage.inf').steps[0]!.command, './gausspage -p 7500 -s 10000 {n}');
  for (const r of TABLE_8) {
    const p = spec(r.test).steps[0]!.paper!;
    assert.equal(p.pfst, r.pfst.bsd42.value);
    assert.equal(p.source, 'Tables 7 and 8');
    // The printed PFST is Table 7's system time / page faults in units of 10 µs (paging.ts).
    assert.ok(Math.abs((p.system! * 1e5) / p.pageFaults! - p.pfst!) < 1.5, `${r.test}: ${p.system} / ${p.pageFaults} vs ${p.pfst}`);
  }
  assert.equal(TABLE_7.filter((r) => spec(r.test).steps[0]!.paper!.pfst !== undefined).length, 3);
  // Section 4.1.1: ls -l of 600 files, 3.3 s with the per-process cache alone, 3.7 s with both.
  const ls = spec('namecache-ls').steps;
  assert.equal(LS_L_600_FILES.files, 600);
  assert.deepEqual(ls.map((s) => s.paper!.system), [3.3, 3.7, 3.7]);
  assert.equal(spec('namecache-work').steps[0]!.paper, null);
  // ls-l runs with the name cache the settings give: the paper's case follows nchsize.
  const one = spec('ls-l').steps[0]!;
  assert.deepEqual(one.kernel, {});
  assert.equal(stepPaper(one, {})!.column, 'both caches');
  assert.equal(stepPaper(one, { nchsize: 154 })!.system, 3.7);
  assert.equal(stepPaper(one, { nchsize: 0 })!.column, 'per-process cache only');
  assert.equal(stepPaper(one, { nchsize: 0 })!.system, 3.3);
});

test('settings: parameters apart from kernel variables, all refused before a machine exists', async () => {
  const syscall = spec('syscall');
  // --param; and --set iterations, deprecated, still taken as the parameter.
  assert.equal(resolveRun(syscall, { parameters: { iterations: 10 } }).steps[0]!.count, 10);
  const old = resolveRun(syscall, { set: { iterations: 10, nbuf: 100 } });
  assert.deepEqual([old.parameters, old.kernel, old.steps[0]!.count], [{ iterations: 10 }, { nbuf: 100 }, 10]);
  assert.match(old.notes.join('\n'), /deprecated/);
  // Machine toggles through --set; hz brings its tick.
  const m = resolveRun(syscall, { set: { memoryMB: 8, cpu: 780, hz: 50 } });
  assert.deepEqual([m.memoryMB, m.cpu, m.kernel], [8, '780', { hz: 50, tick: 20000 }]);
  // Every step has its own kernel: the experiment's settings over --set's.
  const nc = resolveRun(spec('namecache'), { set: { nbuf: 100 }, parameters: { divisor: 10 } });
  assert.deepEqual(nc.steps.map((s) => s.kernel), [
    { nbuf: 100, nchsize: 0 }, { nbuf: 100 }, { nbuf: 100, nchsize: 1000 },
    { nbuf: 100, nchsize: 0 }, { nbuf: 100 }, { nbuf: 100, nchsize: 1000 },
  ]);
  assert.deepEqual(nc.steps.map((s) => s.count), [null, null, null, 20, 20, 20]);

  const refused = (s: ReturnType<typeof spec>, o: Parameters<typeof resolveRun>[1], re: RegExp) =>
    assert.throws(() => resolveRun(s, o), (e: unknown) => e instanceof SettingsError && re.test(e.message));
  refused(syscall, { set: { nchsiz: 10 } }, /unknown setting "nchsiz" \(did you mean "nchsize"\?\)/);
  refused(syscall, { set: { nchsize: 99999 } }, /nchsize: 99999 is out of range 0\.\.4096/);
  refused(syscall, { parameters: { divisor: 2 } }, /parameter divisor: syscall has only iterations/);
  refused(syscall, { parameters: { iterations: 0 } }, /parameter iterations: a whole number, 1 or more/);
  // The guest's programs read a count as a C int: 2^32 + 1 ran as 1, under a result that said 4,294,967,297.
  refused(syscall, { parameters: { iterations: 2 ** 32 + 1 } }, /parameter iterations: at most 2147483647 \(the guest's program reads it as a C int\), got 4294967297/);
  refused(spec('namecache'), { parameters: { divisor: 2 ** 31 } }, /parameter divisor: at most 2147483647/);
  assert.equal(resolveRun(syscall, { parameters: { iterations: 2 ** 31 - 1 } }).steps[0]!.count, 2 ** 31 - 1);
  refused(syscall, { cpu: '750', set: { cpu: 780 } }, /cpu: given twice/);
  refused(spec('namecache'), { set: { nchsize: 10 } }, /--set nchsize: namecache sets nchsize itself, step by step \(0, 1000 and the kernel's own\)/);

  // runExperiment refuses them before creating any machine.
  const noMachines = { create() { throw new Error('a machine was created'); }, loadImage() { throw new Error('loadImage'); } } as unknown as Vax780Api;
  await assert.rejects(runExperiment(noMachines, new Uint8Array(1), syscall, { set: { nchsiz: 1 } }), SettingsError);
});

test('the disk knob: --disk or --set disk, a name or its number, refused when it is neither', async () => {
  const syscall = spec('syscall');
  assert.equal(resolveRun(syscall).disk, 'rp06');
  assert.equal(resolveRun(syscall, { disk: 'eagle' }).disk, 'eagle');
  assert.equal(resolveRun(syscall, { set: { disk: 2 } }).disk, 'ideal');
  assert.equal(resolveRun(syscall, { disk: 'ideal', set: { disk: 2 } }).disk, 'ideal');
  // A machine knob, not a kernel variable.
  assert.deepEqual(resolveRun(syscall, { set: { disk: 1 } }).kernel, {});
  const refused = (o: Parameters<typeof resolveRun>[1], re: RegExp) =>
    assert.throws(() => resolveRun(syscall, o), (e: unknown) => e instanceof SettingsError && re.test(e.message), JSON.stringify(o));
  refused({ set: { disk: 4 } }, /--set: disk: one of rp06 \(0\), eagle \(1\), ideal \(2\), rm05 \(3\), got 4/);
  refused({ disk: 'ssd' as DiskTiming }, /disk: "ssd" is not one of rp06, eagle, ideal, rm05/);
  refused({ disk: 'eagle', set: { disk: 2 } }, /disk: given twice, as eagle and as --set disk=ideal/);
  const noMachines = { create() { throw new Error('a machine was created'); }, loadImage() { throw new Error('loadImage'); } } as unknown as Vax780Api;
  await assert.rejects(runExperiment(noMachines, new Uint8Array(1), syscall, { disk: 'fast' as DiskTiming }), SettingsError);
});

test('tables: each view lays out its rows, failures say why', () => {
  const base = (id: string): ExperimentResult => ({
    format: 'vaxlab-experiment-result', version: RESULT_VERSION, experiment: id, title: spec(id).title,
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 5, memoryNote: 'n', boot: 'single', direct: true, spinSeeds: 1 },
    image: null, parameters: {}, kernelSettings: {}, compare: spec(id).compare, status: 'ok', rows: [],
    group: spec(id).group, paperRef: spec(id).paperRef, view: spec(id).view,
  });
  const row = { status: 'ok' as const, limitSeconds: 120, kernelSettings: {}, iterations: 1, command: 'x' };
  const paging = base('table8');
  paging.rows = [{
    ...row, test: 'randpage', step: 'randpage', paper: { elapsed: 569, user: 7.6, system: 77.2, pageFaults: 9776, pfst: 789,
      scale: 1, iterations: 30000, source: 'Tables 7 and 8', column: '4.2BSD', scaled: false },
    guest: { real: 369.4, user: 2.8, sys: 50.0, line: '' }, totals: { pgin: 7892 },
    derived: { pageFaults: 7892, pfstMs: 6.336, paperPfstMs: 7.89 },
  }, {
    ...row, test: 'randpage-v', step: 'randpage-v', status: 'failed', paper: null,
    failure: { kind: 'time limit', message: 'time limit: no "\\n# " within 2 virtual seconds', output: '' },
  }];
  const p = formatTable(paging);
  // The page's table (resultView.ts), as text: ours, || the paper's, the difference, the status.
  assert.match(p, /randpage\s+\|\s+1 \|\|\s+369 \|\s+2\.80 \|\s+50\.0 \|\s+7,892 \|\s+6\.34 \|\|\s+569 \|\s+7\.60 \|\s+77\.2 \|\s+9,776 \|\s+7\.89 \|\s+-200 \|\s+-35% \|\| ok\s+\|\|\s+— \|\|\s+571 \|\s+6\.70 \|\s+64\.0 \|\s+8,085 \|\s+7\.91$/m);
  assert.match(p, /randpage-v\s+\|.*\|\| time limit: no "\\n# " within 2 virtual seconds \|\|/m);
  const nc = base('namecache');
  nc.rows = [{
    ...row, test: 'ls -l, nchsize=0 (off)', step: 'ls.nch0', readback: { nchsize: 0 },
    paper: { system: 3.3, scale: 1, iterations: 1, source: '§4.1.1', column: 'per-process cache only', scaled: false },
    guest: { real: 14.0, user: 10.1, sys: 3.3, line: '' }, totals: { 'namei.hits': 0, 'namei.misses': 622, 'namei.hitRate': 0, 'namei.pass2': 602 },
  }];
  assert.match(formatTable(nc), /ls -l, nchsize=0 \(off\) \|\s+0 \|\|\s+3\.30 \|\s+10\.1 \|\s+14\.0 \|\|\s+0 \|\s+622 \|\s+0\.0% \|\s+602 \|\|\s+3\.30 \| per-process cache only \|\s+0\.00 \|\s+0% \|\| ok/);
});

// ------------------------------------------------------------ on the emulator

test('syscall with a reduced count, twice: byte-identical JSON', { skip }, async () => {
  const syscall = spec('syscall');
  const options = { parameters: { iterations: 5000 }, image: { name: 'test' } };
  const partials: ExperimentResult[] = [];
  const a = resultJson(await runExperiment(lab.api.vax780, lab.disk, syscall, { ...options, onPartial: (p) => partials.push(p) }));
  // The result so far: before the first step (no rows), then after it (the whole result).
  assert.deepEqual(partials.map((p) => p.rows.length), [0, 1]);
  assert.equal(partials[0]!.status, 'failed');
  assert.equal(resultJson(partials[1]!), a);
  const b = resultJson(await runExperiment(lab.api.vax780, lab.disk, syscall, options));
  assert.equal(a, b);
  // Without a live listener the samples read only what the kept series need; with one, everything: the same bytes.
  let live = 0;
  assert.equal(resultJson(await runExperiment(lab.api.vax780, lab.disk, syscall, { ...options, onSample: () => { live++; } })), a);
  assert.ok(live > 0);
  const r = JSON.parse(a);
  assert.equal(r.format, 'vaxlab-experiment-result');
  assert.equal(r.version, 2);
  assert.equal(r.status, 'ok', a);
  assert.equal(r.rows[0].command, '/bin/time ./syscall 5000');
  assert.equal(r.rows[0].step, 'syscall');
  assert.ok(r.rows[0].guest.real > 0 && r.rows[0].guest.real < 10, a);
  assert.equal(r.rows[0].paper.elapsed, 1.15); // 23.0 s scaled by 5000 / 100000
  assert.ok(r.rows[0].totals.syscalls >= 5000, a);
  assert.deepEqual(Object.keys(r.rows[0].counters.values).sort(), [...syscall.counters].sort());
  assert.match(formatTable(r), /syscall +\|/);
  // Each processor model runs its own costs unscaled; the 780 model runs the same work in less virtual time.
  assert.equal(r.machine.nsPerInstruction, 2000);
  assert.equal(r.machine.cpu, '750');
  assert.equal(r.machine.spinSeeds, 1);
  assert.equal(r.rows[0].calibration, true);   // syscall is a calibration row
  const fast = await runExperiment(lab.api.vax780, lab.disk, syscall, { ...options, cpu: '780' });
  assert.equal(fast.machine.nsPerInstruction, 2000);
  assert.ok(fast.rows[0]!.guest!.real < r.rows[0].guest.real, resultJson(fast));
});

test('execs0null (reduced) by disk timing: eagle faster than rp06, ideal fastest; recorded only when not rp06', { skip }, async () => {
  const execs = spec('execs0null');
  const options = { parameters: { iterations: 100 }, image: { name: 'test' } };
  const runs = new Map<DiskTiming, ExperimentResult>();
  for (const disk of ['rp06', 'eagle', 'ideal'] as const) {
    const r = await runExperiment(lab.api.vax780, lab.disk, execs, { ...options, disk });
    assert.equal(r.status, 'ok', resultJson(r));
    runs.set(disk, r);
  }
  const row = (d: DiskTiming) => runs.get(d)!.rows[0]!;
  const virtual = (d: DiskTiming) => row(d).emulator!.virtualSeconds;
  const times = `rp06 ${virtual('rp06')} s, eagle ${virtual('eagle')} s, ideal ${virtual('ideal')} s`;
  assert.ok(virtual('eagle') < virtual('rp06') && virtual('ideal') < virtual('eagle'), times);
  assert.ok(row('eagle').guest!.real < row('rp06').guest!.real && row('ideal').guest!.real < row('eagle').guest!.real, times);
  // The same work: the same exec count and disk transfers, only their timing differs.
  for (const d of ['eagle', 'ideal'] as const) {
    for (const k of ['syscalls', 'hw.disk.hp0.xfers']) assert.equal(row(d).totals![k], row('rp06').totals![k], `${d}: ${k}`);
  }
  // The result says so only when the knob is not rp06, so older results stay as they were.
  assert.equal(runs.get('rp06')!.machine.disk, undefined);
  assert.ok(!('disk' in runs.get('rp06')!.machine));
  assert.equal(runs.get('eagle')!.machine.disk, 'eagle');
  assert.equal(runs.get('ideal')!.machine.disk, 'ideal');
  assert.match(formatTable(runs.get('eagle')!), /disk timing eagle \(Fujitsu Eagle; the pack stays an RP06's\)/);
  assert.doesNotMatch(formatTable(runs.get('rp06')!), /disk timing/);
  // --set disk=1 is --disk eagle, byte for byte.
  const viaSet = await runExperiment(lab.api.vax780, lab.disk, execs, { ...options, set: { disk: 1 } });
  assert.equal(resultJson(viaSet), resultJson(runs.get('eagle')!));
});

test('--spin locked: a big job\'s exec loop lasts whole turns of the disk, from every seed; recorded only when locked', { skip }, async () => {
  const execs = spec('execs0big');
  const iterations = 200;
  const options = { parameters: { iterations }, image: { name: 'test' }, spinSeeds: 2 };
  const locked = await runExperiment(lab.api.vax780, lab.disk, execs, { ...options, spin: 'locked' });
  assert.equal(locked.status, 'ok', resultJson(locked));
  const row = locked.rows[0]!;
  // 3600 rpm: a turn is 16.67 ms.  Each exec reads the same blocks and computes the same, so once the loop has
  // locked onto the rotation every iteration waits what its computing leaves of a whole number of turns.
  const turns = (row.guest!.real * 1000) / iterations / (60000 / 3600);
  assert.ok(Math.abs(turns - Math.round(turns)) < 0.05, `${turns.toFixed(3)} turns an exec`);
  // The seeds draw the clock's phase and the page placement but not the platters': both seeds lock alike.
  assert.ok(row.spread!.real.max - row.spread!.real.min <= 0.1, JSON.stringify(row.spread));
  assert.equal(locked.machine.spin, 'locked');
  assert.match(formatTable(locked), /the disks turn in step with virtual time/);
  // Drifting, the default, says nothing, so older results stay as they were.
  const drifting = await runExperiment(lab.api.vax780, lab.disk, execs, options);
  assert.equal(drifting.status, 'ok', resultJson(drifting));
  assert.ok(!('spin' in drifting.machine));
  assert.doesNotMatch(formatTable(drifting), /in step with virtual time/);
  await assert.rejects(runExperiment(lab.api.vax780, lab.disk, execs, { ...options, spin: 'stopped' as never }),
    (e: unknown) => e instanceof SettingsError && /spin: "stopped" is not one of drifting, locked/.test(e.message));
  // The rotation is a machine setting (toggles.ts) as the disk is: --set spin=1 is --spin locked, byte for byte,
  // and the two given differently are refused.
  const few = { parameters: { iterations: 20 }, image: { name: 'test' } };
  const viaSet = await runExperiment(lab.api.vax780, lab.disk, execs, { ...few, set: { spin: 1 } });
  assert.equal(viaSet.machine.spin, 'locked');
  assert.equal(resultJson(viaSet), resultJson(await runExperiment(lab.api.vax780, lab.disk, execs, { ...few, spin: 'locked' })));
  await assert.rejects(runExperiment(lab.api.vax780, lab.disk, execs, { ...few, spin: 'drifting', set: { spin: 1 } }),
    (e: unknown) => e instanceof SettingsError && /spin: given twice, as drifting and as --set spin=locked/.test(e.message));
});

test('the name cache off and on: hits 0 and > 0, nchsize read back; twice: identical JSON', { skip }, async () => {
  const work = spec('namecache-work');
  const options = { parameters: { divisor: 40 }, image: { name: 'test' } }; // namework's 200 / 40 = 5 iterations
  const a = await runExperiment(lab.api.vax780, lab.disk, work, options);
  assert.equal(a.status, 'ok', resultJson(a));
  assert.deepEqual(a.rows.map((r) => r.readback?.nchsize), [0, GENERIC_NCHSIZE, 1000]);
  assert.deepEqual(a.rows.map((r) => r.kernelSettings), [{ nchsize: 0 }, {}, { nchsize: 1000 }]);
  const [off, generic, large] = a.rows.map((r) => r.totals!);
  assert.equal(off!['namei.hits'], 0);
  assert.ok(off!['namei.misses']! > 100, JSON.stringify(off));
  for (const on of [generic!, large!]) {
    assert.ok(on['namei.hits']! > 0 && on['namei.hitRate']! > 50, JSON.stringify(on));
    assert.equal(on['namei.lookups'], off!['namei.lookups']); // the same lookups, only the cache differs
  }
  assert.match(formatTable(a), /namework, nchsize=0 \(off\)\s+\|\s+0 \|/);
  assert.equal(resultJson(await runExperiment(lab.api.vax780, lab.disk, work, options)), resultJson(a));
  // Read whole for a live listener (above: only what the name cache's series need): the same bytes.
  assert.equal(resultJson(await runExperiment(lab.api.vax780, lab.disk, work, { ...options, onSample: () => {} })), resultJson(a));
  // namework alone, with nchsize from the settings: the same figures as namecache-work's own steps.
  const one = spec('namework');
  const off1 = await runExperiment(lab.api.vax780, lab.disk, one, { parameters: { iterations: 5 }, set: { nchsize: 0 }, image: { name: 'test' } });
  const on1 = await runExperiment(lab.api.vax780, lab.disk, one, { parameters: { iterations: 5 }, image: { name: 'test' } });
  assert.deepEqual([off1.rows[0]!.readback?.nchsize, on1.rows[0]!.readback?.nchsize], [0, GENERIC_NCHSIZE]);
  assert.deepEqual([off1.rows[0]!.guest, on1.rows[0]!.guest], [a.rows[0]!.guest, a.rows[1]!.guest]);
  assert.deepEqual([off1.rows[0]!.totals, on1.rows[0]!.totals], [off, generic]);
});

test('a reduced paging run completes, parses and counts page faults', { skip }, async () => {
  const r = await runExperiment(lab.api.vax780, lab.disk, spec('seqpage'), { parameters: { iterations: 2 } });
  assert.equal(r.status, 'ok', resultJson(r));
  const row = r.rows[0]!;
  assert.equal(row.command, '/bin/time ./seqpage -p 7500 2');
  assert.ok(row.guest!.sys > 0);
  // The second pass pages back in what the first pushed out of 4.5 MB.
  assert.ok(row.derived!.pageFaults! > 1000, JSON.stringify(row.derived));
  assert.ok(row.derived!.pfstMs! > 0);
  assert.equal(row.paper!.elapsed, 1126); // the paper's, for its count of 10: not scaled
  assert.equal(row.paper!.scale, 0.2);
  assert.match(formatTable(r), /not comparable/);
  // Its samples read only what the paging series need; read whole (a live listener), the same bytes.
  const whole = await runExperiment(lab.api.vax780, lab.disk, spec('seqpage'), { parameters: { iterations: 2 }, onSample: () => {} });
  assert.equal(resultJson(whole), resultJson(r));
});

test('a tiny virtual-time limit fails the step with "time limit"', { skip }, async () => {
  const r = await runExperiment(lab.api.vax780, lab.disk, spec('syscall'), { limitSeconds: 0.5 });
  assert.equal(r.status, 'failed');
  assert.equal(r.rows[0]!.failure?.kind, 'time limit');
  assert.match(r.rows[0]!.failure!.message, /^time limit: no "\\n# " within 0\.5 virtual seconds .*--limit/);
});

test('settings the kernel lacks are refused before a machine runs', { skip }, async () => {
  await assert.rejects(runExperiment(lab.api.vax780, lab.disk, spec('syscall'), { set: { nchsize: 5000 } }),
    (e: unknown) => e instanceof SettingsError && /out of range/.test(e.message));
  await assert.rejects(runExperiment(lab.api.vax780, lab.disk, spec('namecache'), { set: { nchsize: 5 } }),
    (e: unknown) => e instanceof SettingsError && /namecache sets nchsize itself/.test(e.message));
});

test('counters are sampled each virtual second of the timed command; Stop ends a run', { skip }, async () => {
  const syscall = spec('syscall');
  const samples: number[] = [];
  const progress: number[] = [];
  let consoleText = '';
  const r = await runExperiment(lab.api.vax780, lab.disk, syscall, {
    parameters: { iterations: 20000 },
    onSample: (s) => samples.push(s.t),
    onProgress: (p) => progress.push(p.virtualSeconds),
    onConsole: (t) => { consoleText += t; },
  });
  assert.equal(r.status, 'ok', resultJson(r));
  const series = r.rows[0]!.counters!;
  assert.deepEqual(series.t, samples);
  assert.ok(series.t.length >= Math.floor(r.rows[0]!.emulator!.virtualSeconds), JSON.stringify(series.t));
  assert.ok(series.values['hw.mips']!.every((v) => v > 0));
  assert.ok(progress.length > 2 && progress.every((v, i) => i === 0 || v >= progress[i - 1]!));
  assert.match(consoleText, /\/bin\/time \.\/syscall 20000/);

  const stop = new AbortController();
  const stopped = await runExperiment(lab.api.vax780, lab.disk, spec('table2'), {
    signal: stop.signal,
    onProgress: (p) => { if (p.virtualSeconds > 5) stop.abort(); },
  });
  assert.equal(stopped.status, 'failed');
  assert.equal(stopped.rows.length, 1);
  assert.equal(stopped.rows[0]!.failure?.kind, 'stopped');

  // A Stop between two steps (just as one ends): the next step is the stopped row, and nothing after it runs.
  const between = new AbortController();
  const cut = await runExperiment(lab.api.vax780, lab.disk, spec('table2'), {
    signal: between.signal,
    parameters: { divisor: 100 },
    onStep: (e) => { if (e.phase === 'end' && e.index === 0) between.abort(); },
  });
  assert.equal(cut.status, 'failed');
  assert.deepEqual(cut.rows.map((r) => r.status), ['ok', 'failed']);
  assert.equal(cut.rows[1]!.failure?.kind, 'stopped');
  assert.match(cut.rows[1]!.failure!.message, /stopped by the user/);
});
