// DEC's Diagnostic Supervisor exercisers on the emulated 780: the supervisor
// is booted through DEC's VMB from the RA81 diagnostic disk on the UDA50 and
// runs EVKAB (basic instructions), EVKAC (floating point), EVKAD
// (compatibility mode: the PDP-11 instruction set, emu/src/cpu/compat.c)
// and EVKAE (privileged architecture); each must end with 0 errors.  The
// runner: emu/diag/supervisor.ts.
// Without DEC's files (../shared/diag, or $VAXLAB_DIAG) the exercisers are
// skipped, saying why; the reading of the supervisor's reports is checked
// without them.
//
// $VAXLAB_VAX780 picks another build of the machine (npm test runs EVKAE
// and EVKAD again on the ASan/UBSan one); $VAXLAB_DIAG_PROGRAMS (comma-separated)
// picks the programs.

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { DiagFileError, diagDir, diagMissing } from '../../diag/dist';
import { DISK_FILE, parseRun, runSupervisorNative, SUPERVISOR_PROGRAMS, supervisorPassed, VMB_FILE } from '../../diag/supervisor';
import { REPO_ROOT } from '../../js/vaxNode';

const VAX780 = process.env.VAXLAB_VAX780 || join(REPO_ROOT, 'emu/build/native/vax780');
const PROGRAMS = (process.env.VAXLAB_DIAG_PROGRAMS ?? 'EVKAB,EVKAC,EVKAD,EVKAE').split(',').filter(Boolean);
const skip = !existsSync(VAX780) ? `${VAX780} not built (make -C emu native)` : diagMissing() ?? false;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-diagtest-'));
after(() => rmSync(work, { recursive: true, force: true }));

for (const name of PROGRAMS) {
  const program = SUPERVISOR_PROGRAMS.find((p) => p.name === name);
  assert.ok(program, `no supervisor program ${name}`);
  test(`${name} (${program.what}) under the Diagnostic Supervisor ends with 0 errors`, { skip }, () => {
    const r = runSupervisorNative(VAX780, name);
    const line = `${name}: passes ${r.passes}, errors ${r.errors}, ${r.instructions} instructions, ` +
      `${r.virtualSeconds.toFixed(1)} virtual s, ${r.hostSeconds.toFixed(2)} host s`;
    assert.equal(r.failure, null, `${line}\n${r.transcript.slice(-3000)}`);
    assert.equal(r.errors, 0, `${line}\n${r.failedTests.join('\n')}\n${r.errorText}`);
    assert.equal(r.stopped, null, line);
    assert.ok(r.passes >= 1, line);
    assert.ok(supervisorPassed(r, program), line);
    // The supervisor came up from our UDA50 through VMB and DIAGBOOT, with
    // no complaint about the memory it found.
    assert.match(r.transcript, /DIAGNOSTIC SUPERVISOR\.\s+ZZ-ESSAA-/);
    assert.doesNotMatch(r.transcript, /memory errors/);
    assert.ok(r.instructions > 1_000_000n, line);
  });
}

test('a diagnostic disk or VMB that is missing or short is refused by name before anything runs', { skip }, () => {
  const dir = join(work, 'diag');
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(diagDir(), 'SHA256SUMS'), join(dir, 'SHA256SUMS'));
  copyFileSync(join(diagDir(), VMB_FILE), join(dir, VMB_FILE));
  assert.throws(() => runSupervisorNative(VAX780, 'EVKAE', { dir }), (e: unknown) =>
    e instanceof DiagFileError && /VAX_MINIMUM_DIAGS\.dsk is missing/.test(e.message));
  writeFileSync(join(dir, DISK_FILE), readFileSync(join(diagDir(), DISK_FILE)).subarray(0, 65536));
  assert.throws(() => runSupervisorNative(VAX780, 'EVKAE', { dir }), /65536 bytes\) is not the expected file/);
});

test('the supervisor\'s report is read: an end of run, error lines, an abort', () => {
  const ended = parseRun([
    '.. Program:  ZZ-EVKAX, An Exerciser , revision 5.2, 161 test',
    ' Pass 1, test 96, subtest 1, error 1,  1-JUL-1986 12:00:27.24',
    ' Pass 1, test 161, subtest 50, error 2,  1-JUL-1986 12:02:50.13',
    '.. End of run, 2 errors detected, pass count is 1,',
  ].join('\r\n'));
  assert.equal(ended.revision, '5.2');
  assert.equal(ended.errors, 2);
  assert.equal(ended.passes, 1);
  assert.deepEqual(ended.failedTests, ['test 96, subtest 1', 'test 161, subtest 50']);
  assert.match(ended.errorText ?? '', /^Pass 1, test 96, subtest 1, error 1,/);
  assert.equal(ended.aborted, null);
  const stopped = parseRun([
    '.. Program: An Exerciser, EVKAY, revision 3.1, ',
    '?? Compatability mode Fault/abort through SCB vector: 30(X)',
    '        Compatability mode Fault/abort code:    Reserved opcode fault',
    'PC at error:            0000267C(X)',
  ].join('\n'));
  assert.equal(stopped.passes, 0);
  assert.equal(stopped.aborted, 'Compatability mode Fault/abort through SCB vector: 30(X); Reserved opcode fault; PC 0000267C');
  assert.equal(parseRun('.. Program: EVKAZ, revision 1.0\n').aborted, 'the run did not end with its summary');
});
