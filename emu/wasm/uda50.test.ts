// The UDA50 and DEC's VMB in the WebAssembly build (Vax780 in
// emu/js/vax780.ts with diskType and consoleBoot): 4.3BSD from
// the RA81 image, and the Diagnostic Supervisor booted through VMB from
// DEC's diagnostic disk, each reaching its prompt at the same instruction
// count and virtual time, with the same transcript, as the native
// emu/build/native/vax780 (the CLI's stopping rule: 200,000-instruction
// slices, an expect stopping at the first slice boundary that shows its
// text).  Skipped, saying why, without the RA81 image (npm run image) or
// DEC's files (../shared/diag, $VAXLAB_DIAG).  The refusals of bad options
// need neither.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { diagDir, diagMissing, readDiagFile } from '../diag/dist';
import { ATTACH_COMMANDS, BOOT_FLAGS_SUPERVISOR, DISK_FILE, runSupervisorWasm, VMB_FILE } from '../diag/supervisor';
import { Vax780Stop, type Vax780Options } from '../js/vax780';
import type { VaxMachineApi } from '../js/vaxModule';
import { loadDiskImage, loadVaxNode, REPO_ROOT, wasmBuildExists } from '../js/vaxNode';

const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const SLICE = 200_000;
const RA81_GZ = process.env.VAXLAB_RA81_IMAGE ?? join(REPO_ROOT, 'web/public/images/43bsd-ra81.dsk.gz');
const DIAG = diagDir();
const noBuild = !existsSync(VAX780) ? `${VAX780} not built (make -C emu native)`
  : !wasmBuildExists() ? 'no wasm build (make -C emu wasm)' : false;
const skipBsd = noBuild || (existsSync(RA81_GZ) ? false : `RA81 image ${RA81_GZ} absent (npm run image builds it)`);
const skipDiag = noBuild || (diagMissing() ?? false);

let api: VaxMachineApi;
const work = mkdtempSync(join(tmpdir(), 'vaxlab-uda50-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(async () => {
  if (!noBuild) api = await loadVaxNode();
});

type Step = { expect: string } | { send: string };
interface Outcome { transcript: string; marks: [bigint, string][] }

function wasmRun(options: Vax780Options, steps: Step[], limitSeconds: number): Outcome {
  const sys = api.vax780.create(options);
  try {
    let transcript = '';
    let mark = 0;
    const marks: Outcome['marks'] = [];
    for (const step of steps) {
      if ('send' in step) {
        sys.type(`${step.send}\r`);
        continue;
      }
      const deadline = sys.timeNs() + BigInt(limitSeconds * 1e9);
      for (;;) {
        const at = transcript.indexOf(step.expect, mark);
        if (at >= 0) {
          mark = at + step.expect.length;
          break;
        }
        assert.ok(sys.timeNs() <= deadline, `expect ${JSON.stringify(step.expect)} timed out:\n${transcript.slice(-2000)}`);
        const r = sys.run(SLICE);
        transcript += sys.readConsole();
        assert.equal(r, Vax780Stop.Budget, `stopped: ${sys.stopDetail()}\n${transcript.slice(-2000)}`);
      }
      marks.push([sys.instructionCount(), (Number(sys.timeNs()) / 1e9).toFixed(3)]);
    }
    return { transcript, marks };
  } finally {
    sys.destroy();
  }
}

// The CLI with --stats, once per prefix of the script that ends in an expect.
function nativeRun(args: string[], steps: Step[], limitSeconds: number): Outcome {
  const marks: Outcome['marks'] = [];
  let transcript = '';
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  steps.forEach((step, i) => {
    if (!('expect' in step)) return;
    const script = join(work, 'script.txt');
    writeFileSync(script, [`timeout ${limitSeconds}`, ...steps.slice(0, i + 1)
      .map((s) => ('expect' in s ? `expect ${esc(s.expect)}` : `send ${s.send}`))].join('\n') + '\n');
    const r = spawnSync(VAX780, [...args, '--snapshot', '--mem', '8', '--script', script, '--stats'],
      { encoding: 'latin1', timeout: 300_000, maxBuffer: 32 << 20 });
    if (r.error) throw r.error;
    assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-2000)}`);
    const m = /vax780: (\d+) instructions, ([\d.]+) virtual s/.exec(r.stderr);
    assert.ok(m, r.stderr);
    marks.push([BigInt(m[1]!), m[2]!]);
    transcript = r.stdout;
  });
  return { transcript, marks };
}

test('identity: 4.3BSD from the RA81 through /boot, native and wasm alike', { skip: skipBsd }, async () => {
  const raw = join(work, 'ra81.dsk');
  const bytes = await loadDiskImage(RA81_GZ);
  writeFileSync(raw, bytes);
  const steps: Step[] = [{ expect: '\n# ' }, { send: 'date' }, { expect: '\n# ' }];
  const wasm = wasmRun({ memoryMB: 8, disk: bytes, diskType: 'RA81', boot: 'single' }, steps, 300);
  const native = nativeRun(['--disk', `ra0=${raw}:RA81`, '--boot', 'single'], steps, 300);
  assert.deepEqual(wasm.marks, native.marks, 'instruction count and virtual time at each match');
  assert.equal(wasm.transcript, native.transcript);
  assert.match(wasm.transcript, /: ra\(0,0\)vmunix/);
  assert.match(wasm.transcript, /Changing root device to ra0a/);
});

test('identity: the Diagnostic Supervisor through VMB, native and wasm alike; EVKAE and EVKAD in wasm', { skip: skipDiag }, () => {
  const disk = readDiagFile(DISK_FILE);
  const vmb = readDiagFile(VMB_FILE);
  const toPrompt: Step[] = [{ expect: 'DS> ' }, ...ATTACH_COMMANDS.flatMap((c): Step[] => [{ send: c }, { expect: 'DS> ' }])];
  const options: Vax780Options = { memoryMB: 8, disk, diskType: 'RA81', consoleBoot: { vmb, flags: BOOT_FLAGS_SUPERVISOR } };
  const wasm = wasmRun(options, toPrompt, 600);
  const native = nativeRun(['--disk', `ra0=${join(DIAG, DISK_FILE)}:RA81`, '--console-boot', `vmb=${join(DIAG, VMB_FILE)}`,
    '--boot-flags', '0x10'], toPrompt, 600);
  assert.deepEqual(wasm.marks, native.marks, 'instruction count and virtual time at each match');
  assert.equal(wasm.transcript, native.transcript);
  assert.match(wasm.transcript, /DIAGNOSTIC SUPERVISOR\.\s+ZZ-ESSAA-/);

  for (const program of ['EVKAE', 'EVKAD']) {   // EVKAD: compatibility mode, the PDP-11 instruction set
    const run = runSupervisorWasm(api.vax780, program);
    assert.equal(run.failure, null, run.transcript.slice(-2000));
    assert.match(run.transcript, /\.\. End of run, 0 errors detected, pass count is 1,/, `${program}: ${run.errorText ?? run.stopped}`);
    assert.equal(run.errors, 0);
  }
});

test('the wasm Vax780 refuses an RA image longer than its pack, VMB without an RA drive, a bad VMB', { skip: noBuild }, () => {
  const long = new Uint8Array(237212 * 512 + 512);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: long, diskType: 'RA80', boot: 'single' }), /at most 121452544 bytes/);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: new Uint8Array(512), boot: 'single', consoleBoot: { vmb: new Uint8Array(512) } }),
    /needs an RA diskType/);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: new Uint8Array(512), diskType: 'RA81',
    consoleBoot: { vmb: new Uint8Array(700) } }), /whole number of 512-byte blocks/);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: new Uint8Array(512), diskType: 'RA81', direct: true,
    consoleBoot: { vmb: new Uint8Array(512) } }), /not with direct/);
  // A blank RA81 has no 4.3BSD to boot: said at boot, naming what is missing.
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: new Uint8Array(512), diskType: 'RA81', boot: 'single' }), /boot: /);
});
