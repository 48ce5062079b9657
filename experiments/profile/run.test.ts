// Profiles of real 4.3BSD runs (skipped, saying why, without the wasm build
// or the lab image): Table 2's syscall row makes exactly 100,000 calls of
// the kernel's getpid handler from the program syscall, the shell's and
// /bin/time's counted apart; forks0 exactly 1,000 forks; the costs add up
// to the machine's virtual time; profiling changes nothing the guest sees;
// two runs give the same profile, and the native build the same bytes as
// WebAssembly; a step that fails and a stripped program still give a
// profile of what ran, saying so.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { CPU_NS_PER_INSTRUCTION } from '../../emu/js/constants';
import { findLabImage, loadDiskImage, REPO_ROOT } from '../../emu/js/vaxNode';
import { findExperiment, type ExperimentSpec } from '../runner/experiments';
import { resultJson, validateResult } from '../runner/result';
import { COMMON_SETUP, runExperiment } from '../runner/runner';
import { ConsoleSession } from '../runner/session';
import { buildProfile, costToNs, flatProfile, fromSummary, ns, parseRawProfile, stackOf, type Profile } from './index';
import { formatNameiComparison, NAMEI_MIX_COUNT, NAMEI_PROFILE_EXPERIMENT, NAMEI_TABLE_FOR_STEP, nameiFigures } from './namei';
import { profileExperiment, type StepProfile } from './run';
import { bootSingleUser, useLabImage } from '../runner/testLab';

const lab = useLabImage('profile/run.test.ts');
const skip = lab.skip;
const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const work = mkdtempSync(join(tmpdir(), 'vaxlab-profile-'));
after(() => rmSync(work, { recursive: true, force: true }));

const spec = (id: string): ExperimentSpec => {
  const s = findExperiment(id);
  assert.ok(s, `no experiment ${id}`);
  return s;
};

/** Calls of the tree nodes whose stack is exactly `path` (names). */
function callsAt(p: Profile, path: string[]): number {
  return p.tree.filter((t) => stackOf(p, t.id).join(';') === path.join(';')).reduce((s, t) => s + t.calls, 0);
}

/** Calls of fn everywhere under the program root [program]. */
function callsUnder(p: Profile, program: string, fn: string): number {
  return p.tree.filter((t) => t.fn === fn && stackOf(p, t.id)[0] === `[${program}]`).reduce((s, t) => s + t.calls, 0);
}

function checkAddsUp(step: StepProfile): void {
  for (const [raw, virtualNs] of [[step.setup, step.setupNs], [step.run, step.runNs]] as const) {
    assert.ok(raw && virtualNs !== undefined);
    const cost = raw.nodes.reduce((s, n) => s + n.cost.reduce((a, b) => a + b, 0), 0);
    assert.equal(cost, raw.cost, 'the nodes add up to the profile\'s cost');
    assert.equal(raw.nodes.reduce((s, n) => s + n.instructions, 0), raw.instructions);
    // Virtual time rounds down at each reading; the cost is exact.
    assert.ok(Math.abs(costToNs(raw, raw.cost) - virtualNs) <= 1, `${costToNs(raw, raw.cost)} ns vs ${virtualNs} ns of virtual time`);
  }
}

test('syscall 100000: exactly 100,000 calls of the kernel\'s getpid from the program syscall', { skip }, async () => {
  const [step] = await profileExperiment(lab.api.vax780, lab.disk, spec('syscall'));
  assert.ok(step && step.status === 'ok', JSON.stringify(step?.failure));
  checkAddsUp(step);
  const run = buildProfile(step.run!);
  assert.equal(callsAt(run, ['[syscall]', '_Xsyscall', '_syscall', '_getpid']), 100_000);
  assert.equal(callsAt(run, ['[syscall]', 'syscall`start', 'syscall`_main', 'syscall`_getpid']), 100_000, 'the libc stub, in user mode');
  // The rest of the command's getpids are the shell's and /bin/time's: apart.
  const getpid = run.functions.get('_getpid')!;
  assert.equal(getpid.calls, 100_000 + callsUnder(run, 'sh', '_getpid') + callsUnder(run, 'time', '_getpid'));
  // The boot and the shell before the command, in their own profile: no syscall there.
  const setup = buildProfile(step.setup!);
  assert.ok(!setup.functions.has('[syscall]'));
  assert.ok(setup.functions.has('[sh]') && setup.functions.has('_main'), 'the boot (the kernel\'s main) and the shell');
  // Where the time went, as gprof would say it.
  const flat = flatProfile(run, { mode: 'kernel' });
  assert.deepEqual(flat.entries.slice(0, 2).map((e) => e.name), ['_syscall', '_Xsyscall']);
  assert.ok(run.notes.some((n) => n.startsWith('sh: no symbols')), 'the stripped shell is named as such');
});

test('forks 1000 0: exactly 1,000 forks, and the children\'s return through savectx is profiled', { skip }, async () => {
  const [step] = await profileExperiment(lab.api.vax780, lab.disk, spec('forks0'));
  assert.ok(step && step.status === 'ok', JSON.stringify(step?.failure));
  checkAddsUp(step);
  const run = buildProfile(step.run!);
  assert.equal(callsAt(run, ['[forks]', '_Xsyscall', '_syscall', '_fork']), 1000);
  assert.equal(callsAt(run, ['[forks]', '_Xsyscall', '_syscall', '_fork', '_fork1']), 1000);
  assert.equal(callsUnder(run, 'forks', '_procdup'), 1000, 'one procdup per fork in the parent');
  assert.equal(callsUnder(run, 'forks', 'forks`_wait'), 1000);
  // Each child resumes in procdup (savectx's context), found by walking its
  // stack: time there, no calls counted (the walked frames merge, by name,
  // with the parent's calls in the named tree).
  const procdup = step.run!.images[0]!.symbols.find((s) => s[1] === '_procdup')![0];
  const resumed = step.run!.nodes.filter((n) => n.kind === 'resume' && n.addr === procdup);
  assert.ok(resumed.length > 0 && resumed.every((n) => n.calls === 0));
  assert.ok(resumed.reduce((s, n) => s + n.instructions, 0) >= 1000, 'every child ran in it');
  assert.equal(step.run!.overflow.nodes + step.run!.overflow.depth + step.run!.overflow.contexts, 0);
});

test('profiling changes nothing the guest sees, and two runs give the same profile', { skip }, async () => {
  const script = ['./syscall 2000', './forks 20 0', 'ls -l /usr/lab/names > /dev/null'];
  const session = async (profile: boolean) => {
    const sys = lab.api.vax780.create({ memoryMB: 4.5, disk: lab.disk, boot: 'single', direct: true, cpuModel: '750', nsPerInstruction: CPU_NS_PER_INSTRUCTION['750'], diskSpinSeed: 1, profile });
    const s = new ConsoleSession(sys);
    await s.expect('\n# ', 300);
    for (const line of [...COMMON_SETUP, ...script]) {
      s.send(line);
      await s.expect('\n# ', 300);
    }
    const out = { transcript: s.transcript, instructions: sys.instructionCount(), timeNs: sys.timeNs(), stats: sys.hardwareStats(), profile: sys.profileJson() };
    sys.destroy();
    return out;
  };
  const off = await session(false), on = await session(true), again = await session(true);
  assert.equal(off.profile, null);
  assert.equal(on.transcript, off.transcript);
  assert.equal(on.instructions, off.instructions);
  assert.equal(on.timeNs, off.timeNs);
  assert.deepEqual(on.stats, off.stats);
  assert.equal(again.profile, on.profile, 'byte for byte');
  // From power-on, the profile's modes are the hardware statistics' to the ns (a 750: rounded at each change).
  const p = buildProfile(parseRawProfile(on.profile!));
  let user = 0;
  for (const f of p.functions.values()) user += f.self[3]!;
  assert.ok(Math.abs(ns(p, user) - on.stats['ns.user']!) < 1e-3 * on.stats['ns.user']!);
});

test('native vax780 --profile writes the same bytes as the WebAssembly build', { skip: skip || (existsSync(VAX780) ? false : `${VAX780} not built`) }, async () => {
  const command = '/bin/time ./syscall 5000';
  const wasm = await rawRun(command);
  const disk = join(work, 'native.dsk');
  writeFileSync(disk, await loadDiskImage(findLabImage()!));   // a private copy: the guest writes its disk
  const script = join(work, 'profile.script');
  writeFileSync(script, [
    'timeout 300', 'expect \\n# ', ...COMMON_SETUP.flatMap((l) => [`send ${l}`, 'expect \\n# ']),
    `profile-write ${join(work, 'setup.json')}`, 'profile-clear',
    `send ${command}; echo exit $?`, 'expect \\n# ', `profile-write ${join(work, 'run.json')}`, '',
  ].join('\n'));
  const r = spawnSync(VAX780, ['--disk', `hp0=${disk}`, '--direct', '--mem', '4.5', '--cpu', '750', '--disk-spin', '1', '--quiet',
    '--profile', join(work, 'end.json'), '--script', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(join(work, 'setup.json'), 'utf8'), wasm.setup, 'boot and set-up');
  assert.equal(readFileSync(join(work, 'run.json'), 'utf8'), wasm.run, 'the command');
});

/** A command's dumps as text, the way profileExperiment takes them: the boot
 *  and set-up, then the command from a cleared profile to its prompt. */
async function rawRun(command: string): Promise<{ setup: string; run: string }> {
  const sys = lab.api.vax780.create({ memoryMB: 4.5, disk: lab.disk, boot: 'single', direct: true, cpuModel: '750', nsPerInstruction: CPU_NS_PER_INSTRUCTION['750'], diskSpinSeed: 1, profile: true });
  const s = new ConsoleSession(sys);
  await s.expect('\n# ', 300);
  for (const line of COMMON_SETUP) {
    s.send(line);
    await s.expect('\n# ', 60);
  }
  const setup = sys.profileJson()!;
  sys.profileClear();
  s.send(`${command}; echo exit $?`);
  await s.expect('\n# ', 300);
  const run = sys.profileJson()!;
  sys.destroy();
  return { setup, run };
}

test('a failing step and a stripped program still give a profile of what ran, saying so', { skip }, async () => {
  const [step] = await profileExperiment(lab.api.vax780, lab.disk, spec('namecache-ls'), { limitSeconds: 2, steps: ['ls.nch0'] });
  assert.ok(step);
  assert.equal(step.status, 'failed');
  assert.equal(step.failure!.kind, 'time limit');
  assert.ok(step.setup && step.run && step.run.cost > 0, 'what ran before the limit');
  const run = buildProfile(step.run);
  assert.ok(run.functions.has('_namei'));
  assert.ok(run.notes.some((n) => /^ls: no symbols \(no symbol table \(stripped\)\)/.test(n)), run.notes.join('\n'));
  await assert.rejects(profileExperiment(lab.api.vax780, lab.disk, spec('syscall'), { steps: ['nosuch'] }), /syscall has no step nosuch \(it has syscall\)/);
});

test('a machine met running: profiling started after the boot rebuilds the stacks it finds', { skip }, async () => {
  const booted = await bootSingleUser(lab, { memoryMB: 4.5 });
  await booted.run('mount /dev/hp0g /usr');
  booted.sys.profileStart();
  await booted.run('/lab/bin/syscall 300');
  const p = buildProfile(parseRawProfile(booted.sys.profileJson()!));
  booted.sys.destroy();
  assert.equal(callsAt(p, ['[syscall]', '_Xsyscall', '_syscall', '_getpid']), 300);
  // The shell was inside a read (or wait) when profiling began: found by walking.
  assert.ok(p.tree.some((t) => t.kind === 'resume' && stackOf(p, t.id)[0] === '[sh]'));
});

test('the namei mix: both caches and the per-process cache alone, beside Tables 10 and 9', { skip }, async () => {
  const steps = await profileExperiment(lab.api.vax780, lab.disk, NAMEI_PROFILE_EXPERIMENT, { parameters: { divisor: NAMEI_MIX_COUNT } });
  assert.deepEqual(steps.map((s) => [s.step, s.status]), [['mix.both', 'ok'], ['mix.offset', 'ok']], JSON.stringify(steps.map((s) => s.failure)));
  const [both, offset] = steps.map((s) => nameiFigures(buildProfile(s.run!)));
  // The same commands translate the same names...
  assert.equal(both!.calls, offset!.calls);
  assert.ok(both!.calls > 100);
  // ...and the system-wide cache makes each translation cheaper, itself and in
  // what it calls (fewer directory blocks searched), as from Table 9 to 10.
  assert.ok(both!.selfMsPerCall < offset!.selfMsPerCall && both!.childMsPerCall < offset!.childMsPerCall);
  for (const [s, f] of [[steps[0]!, both!], [steps[1]!, offset!]] as const) {
    assert.match(formatNameiComparison(f, NAMEI_TABLE_FOR_STEP[s.step]!, s.label), /^total\s+\d+\.\d\d\s+\d+\.\d\s+/m);
  }
});

test('the runner: RunOptions.profile puts each row\'s profile summary in the result, and only then', { skip }, async () => {
  const spec = findExperiment('syscall')!;
  const on = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters: { iterations: 500 }, profile: true });
  const off = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters: { iterations: 500 } });
  const row = on.rows[0]!;
  assert.ok(row.profile, 'a profile');
  assert.equal(off.rows[0]!.profile, undefined);
  assert.ok(!resultJson(off).includes('"profile"'), 'a result without profiling is as it was');
  // The same run otherwise, and a result that reads back.
  assert.deepEqual({ ...row, profile: undefined }, { ...off.rows[0]!, profile: undefined });
  assert.deepEqual(validateResult(JSON.parse(resultJson(on)), 'result'), on);
  const p = fromSummary(row.profile);
  assert.ok(row.profile.top.some((e) => e.name === '_syscall' && e.calls >= 500));
  assert.equal(callsAt(p, ['[syscall]', '_Xsyscall', '_syscall', '_getpid']), 500);
});
