// DEC's EVKAA ("Hardcore Instruction Test") on our 780, natively and in the
// WebAssembly build: ten passes with no error report (issue: correct by DEC's
// own diagnostics).  Skipped, saying why, when DEC's files are not beside the
// repository.  Also: the console LOAD/START options refuse bad input with one
// line and their documented exit codes.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { diagDir, diagMissing, DiagFileError, readDiagFile } from '../../diag/dist';
import { EVKAA_FILE, passed, runEvkaaNative, runEvkaaWasm } from '../../diag/evkaa';
import { loadVaxNode, REPO_ROOT, wasmBuildExists } from '../../js/vaxNode';

// $VAXLAB_VAX780 picks another build of the machine: npm test runs these
// tests again with the ASan/UBSan one (emu/build/asan/vax780).
const VAX780 = process.env.VAXLAB_VAX780 || join(REPO_ROOT, 'emu/build/native/vax780');
const PASSES = 10;
const missing = diagMissing();
const skip = missing ?? false;
const work = mkdtempSync(join(tmpdir(), 'vaxlab-diag-'));
after(() => rmSync(work, { recursive: true, force: true }));

test(`EVKAA: ${PASSES} passes without an error, native`, { skip }, () => {
  const r = runEvkaaNative(VAX780, PASSES);
  assert.equal(r.errorText, null, `EVKAA reported an error:\n${r.errorText}`);
  assert.equal(r.stopped, null);
  assert.ok(r.passes >= PASSES, `${r.passes} passes`);
  assert.ok(passed(r, PASSES));
  assert.match(r.transcript, /EVKAA V8\.0 Hardcore Instruction Test/);
  // About 7 million instructions a reported pass (SIMH: 73 million for ten).
  assert.ok(r.instructions > 40_000_000n && r.instructions < 120_000_000n, `${r.instructions} instructions`);
});

test(`EVKAA: ${PASSES} passes without an error, WebAssembly; its console output, instructions and virtual time equal the native run's`, {
  skip: skip || (!wasmBuildExists() && 'no wasm build (make -C emu wasm)'),
}, async () => {
  const api = await loadVaxNode();
  const r = runEvkaaWasm(api.vax780, PASSES);
  assert.equal(r.errorText, null, `EVKAA reported an error:\n${r.errorText}`);
  assert.equal(r.stopped, null);
  assert.ok(passed(r, PASSES), `${r.passes} passes`);
  const native = runEvkaaNative(VAX780, PASSES);
  const upTo = (t: string): string => t.slice(0, t.split('done!', PASSES).join('done!').length + 5);
  assert.equal(upTo(r.transcript), upTo(native.transcript));
  // Looking at the output as often as the native machine's script does, the two builds type the key and stop at the
  // same instruction: the same count and virtual time (slices ten times longer made them differ by up to 2 M).
  assert.equal(r.instructions, native.instructions);
  assert.equal(r.virtualSeconds.toFixed(3), native.virtualSeconds.toFixed(3));   // the native line prints three decimals
});

test('a diagnostic file that is missing, unlisted or short is refused by name', { skip }, () => {
  const dir = join(work, 'diag');
  spawnSync('mkdir', ['-p', dir]);
  copyFileSync(join(diagDir(), 'SHA256SUMS'), join(dir, 'SHA256SUMS'));
  assert.throws(() => readDiagFile(EVKAA_FILE, dir), (e: unknown) => e instanceof DiagFileError && /evkaa\.exe is missing/.test(e.message));
  assert.throws(() => readDiagFile('evkab.exe', dir), /not listed/);
  writeFileSync(join(dir, EVKAA_FILE), readFileSync(join(diagDir(), EVKAA_FILE)).subarray(0, 4096));
  assert.throws(() => readDiagFile(EVKAA_FILE, dir), /4096 bytes\) is not the expected file/);
  assert.throws(() => runEvkaaNative(VAX780, 1, dir), DiagFileError);
});

// The reason is the first line of stderr (the usage text may follow it).
function vax780(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(VAX780, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr.split('\n')[0]! };
}

test('--load/--start: bad input gets one line and its exit code', () => {
  const prog = join(work, 'halt.bin');
  writeFileSync(prog, Buffer.from([0x00]));   // HALT
  let r = vax780(['--load', join(work, 'absent.bin'), '--start', '0']);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^vax780: cannot open .*absent\.bin: No such file/);
  r = vax780(['--load', `${prog}@0x7FFFFF0`, '--start', '0']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /do not fit in memory/);
  r = vax780(['--load', `${prog}@0x1000`, '--start', '0x900000']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /start address 0x900000 is outside memory/);
  r = vax780(['--load', `${prog}@zz`, '--start', '0']);
  assert.equal(r.status, 2);
  r = vax780(['--load', prog]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--load needs --start/);
  r = vax780(['--load', prog, '--start', '0', '--reg', 'pc=4']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--reg takes NAME=VALUE with NAME one of r0\.\.r13, ap, fp, sp/);
  // A good one: HALT at 0x1000 with R5 set; a halt without a script is a clean end.
  const ok = spawnSync(VAX780, ['--load', `${prog}@0x1000`, '--start', '0x1000', '--reg', 'r5=0x10', '--stats'],
    { encoding: 'utf8', timeout: 60_000 });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /vax780: 1 instructions/);
});
