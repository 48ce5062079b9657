// The experiment runner (node --test, TypeScript via tsx): `syscall` with a
// reduced count, twice, gives byte-identical result JSON; a canned transcript
// without a /bin/time line is a parse failure; a tiny virtual-time limit is a
// time-limit failure.  The emulator tests need the wasm build and a 4.3BSD
// image (npm run image) and are skipped, saying so, without them.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { type VaxMachineApi } from '../../web/src/emulator/vaxModule';
import { findLabImage, loadDiskImage, loadVaxNode, wasmBuildExists } from '../../web/src/emulator/vaxNode';
import { EXPERIMENTS, findExperiment, TABLE2_ROWS } from './experiments';
import { formatTable, resultJson, runExperiment, splitSettings } from './runner';
import { ConsoleSession, SessionFailure, type ConsoleMachine } from './session';
import { parseTimedOutput, parseTimeLine } from './timeparse';

const imagePath = findLabImage();
const skip = !wasmBuildExists()
  ? 'the WebAssembly emulator is not built (make -C emu wasm)'
  : imagePath ? false : 'no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image` (or set VAXLAB_IMAGE)';

let api: VaxMachineApi;
let disk: Uint8Array;
before(async () => {
  if (skip) {
    console.log(`runner.test.ts: emulator tests skipped: ${skip}`);
    return;
  }
  api = await loadVaxNode();
  disk = await loadDiskImage(imagePath!);
});

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
  // A fake machine whose console prints a fixed text after some slices.
  const fake = (text: string, afterSlices: number): ConsoleMachine => {
    let slices = 0;
    let pending = '';
    return {
      run() { slices++; if (slices === afterSlices) pending += text; return 0; },
      type() {},
      readConsole() { const s = pending; pending = ''; return s; },
      consoleDropped: () => 0n,
      timeNs: () => BigInt(slices) * 400_000_000n, // 0.4 virtual s per slice
      instructionCount: () => BigInt(slices) * 200_000n,
      stopDetail: () => '',
    };
  };
  assert.equal((await new ConsoleSession(fake('ok\r\n# ', 3)).expect('\n# ', 10)).output, 'ok\r\n# ');
  await assert.rejects(new ConsoleSession(fake('panic: ifree: freeing free inode\r\n', 2)).expect('\n# ', 10),
    /^SessionFailure: panic: the kernel said "panic: ifree: freeing free inode"|panic: the kernel said/);
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

test('experiments: every Table 2 row is defined, with the run script\'s commands', () => {
  assert.equal(TABLE2_ROWS.length, 29);
  const syscall = findExperiment('syscall')!;
  assert.equal(syscall.rows[0]!.iterations, 100000);
  assert.equal(syscall.machine.cpu, '750');
  assert.equal(syscall.machine.memoryMB, 5);
  assert.deepEqual(findExperiment('execs0big')!.rows[0]!.rest, ['0', './bigjob']);
  assert.ok(findExperiment('execs0null-1kenv')!.rows[0]!.largeEnvironment);
  assert.equal(EXPERIMENTS.length, 30);
  assert.deepEqual(splitSettings(syscall, { iterations: 10, nbuf: 100 }),
    { parameters: { iterations: 10 }, kernel: { nbuf: 100 } });
});

// ------------------------------------------------------------ on the emulator

test('syscall with a reduced count, twice: byte-identical JSON', { skip }, async () => {
  const spec = findExperiment('syscall')!;
  const options = { set: { iterations: 5000 }, image: { name: 'test' } };
  const a = resultJson(await runExperiment(api.vax780, disk, spec, options));
  const b = resultJson(await runExperiment(api.vax780, disk, spec, options));
  assert.equal(a, b);
  const r = JSON.parse(a);
  assert.equal(r.format, 'vaxlab-experiment-result');
  assert.equal(r.version, 1);
  assert.equal(r.status, 'ok', a);
  assert.equal(r.rows[0].command, '/bin/time ./syscall 5000');
  assert.ok(r.rows[0].guest.real > 0 && r.rows[0].guest.real < 10, a);
  assert.equal(r.rows[0].paper.elapsed, 1.15); // 23.0 s scaled by 5000 / 100000
  assert.match(formatTable(r), /syscall \|/);
  assert.equal(r.machine.nsPerInstruction, 3333);
  // The 780 preset (2000 ns per instruction) runs the same work in less virtual time.
  const fast = await runExperiment(api.vax780, disk, spec, { ...options, cpu: '780' });
  assert.equal(fast.machine.nsPerInstruction, 2000);
  assert.ok(fast.rows[0]!.guest!.real < r.rows[0].guest.real, resultJson(fast));
});

test('a tiny virtual-time limit fails the row with "time limit"', { skip }, async () => {
  const spec = findExperiment('syscall')!;
  const r = await runExperiment(api.vax780, disk, spec, { limitSeconds: 0.5 });
  assert.equal(r.status, 'failed');
  assert.equal(r.rows[0]!.failure?.kind, 'time limit');
  assert.match(r.rows[0]!.failure!.message, /^time limit: no "\\n# " within 0\.5 virtual seconds/);
});

test('counters are sampled each virtual second of the timed command; Stop ends a run', { skip }, async () => {
  const spec = findExperiment('syscall')!;
  const samples: number[] = [];
  const progress: number[] = [];
  let consoleText = '';
  const r = await runExperiment(api.vax780, disk, spec, {
    set: { iterations: 20000 },
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
  const stopped = await runExperiment(api.vax780, disk, findExperiment('table2')!, {
    signal: stop.signal,
    onProgress: (p) => { if (p.virtualSeconds > 5) stop.abort(); },
  });
  assert.equal(stopped.status, 'failed');
  assert.equal(stopped.rows.length, 1);
  assert.equal(stopped.rows[0]!.failure?.kind, 'stopped');
});
