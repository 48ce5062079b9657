// `npx vaxlab profile` (scripts/vaxlab.ts) as a user runs it: the formats,
// the namei tables, a diff of two steps, and bad input refused with one line
// and exit 2 (or a failing step: exit 1 with the profile of what ran).
// Skipped, saying why, without the wasm build or the lab image.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { existsSync } from 'node:fs';

import { findLabImage, REPO_ROOT, wasmBuildExists } from '../../emu/js/vaxNode';
import { kernelFileBeside } from '../kernels/kernelFiles';

const skip = !wasmBuildExists() ? 'the WebAssembly emulator is not built (make -C emu wasm)'
  : findLabImage() ? false : 'no 4.3BSD image (npm run image)';
if (skip) console.log(`profile/cli.test.ts: emulator tests skipped: ${skip}`);

function vaxlab(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/vaxlab.ts'), 'profile', ...args],
    { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('bad input: one line saying what, exit 2, nothing run', () => {
  const cases: [string[], RegExp][] = [
    [['nosuch'], /^vaxlab: no experiment "nosuch"/],
    [['syscall', '--format', 'pdf'], /^vaxlab: --format takes text, json, speedscope, folded, got "pdf"/],
    [['syscall', '--mode', 'supervisor'], /^vaxlab: --mode takes kernel, user or all/],
    [['namecache-ls', '--step', 'ls.nch9'], /^vaxlab: namecache-ls has no step ls\.nch9 \(it has ls\.nch0, ls\.nch154, ls\.nch1000\)/],
    [['syscall', '--set', 'nchsiz=1'], /^vaxlab: refused, nothing was run:\n {2}--set: unknown setting "nchsiz"/],
    [['syscall', '--top', '0'], /^vaxlab: --top takes a whole number/],
  ];
  for (const [args, message] of cases) {
    const r = vaxlab(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
});

test('json: one entry per function with name, calls, self and total; folded and speedscope', { skip }, () => {
  const r = vaxlab('syscall', '--param', 'iterations=1000', '--format', 'json', '--mode', 'kernel');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { format: string; steps: { status: string; profile: { entries: { name: string; calls: number; selfMs: number; totalMs: number }[] } }[] };
  assert.equal(out.format, 'vaxlab-profile');
  const entries = out.steps[0]!.profile.entries;
  const getpid = entries.find((e) => e.name === '_getpid')!;
  assert.ok(getpid.calls >= 1000 && getpid.selfMs > 0 && getpid.totalMs >= getpid.selfMs);
  assert.equal(new Set(entries.map((e) => e.name)).size, entries.length, 'one entry per function');

  const folded = vaxlab('syscall', '--param', 'iterations=1000', '--format', 'folded');
  assert.equal(folded.status, 0);
  assert.match(folded.stdout, /^\[syscall\];_Xsyscall;_syscall;_getpid \d+$/m);
  const speedscope = JSON.parse(vaxlab('syscall', '--param', 'iterations=1000', '--format', 'speedscope').stdout) as { profiles: { weights: number[]; endValue: number }[] };
  assert.equal(speedscope.profiles[0]!.endValue, speedscope.profiles[0]!.weights.reduce((a, b) => a + b, 0));
});

test('text: the flat profile and call graph, a diff of two steps, the namei tables; a failing step still profiled', { skip }, () => {
  const r = vaxlab('namecache-ls', '--step', 'ls.nch0', '--step', 'ls.nch154', '--mode', 'kernel', '--diff', 'ls.nch0,ls.nch154', '--top', '5');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /namecache-ls: ls -l, nchsize=0 \(off\) — `\/bin\/time ls -l > \/dev\/null`/);
  assert.match(r.stdout, /^ time\s+seconds\s+seconds\s+calls\s+ms\/call\s+ms\/call\s+name$/m);
  assert.match(r.stdout, /^index\s+% time\s+self\s+children\s+called\s+name$/m);
  assert.match(r.stdout, /^ls\.nch0: [\d.]+ virtual s, ls\.nch154: [\d.]+ virtual s \(kernel mode\)/m);

  const namei = vaxlab('namei-profile', '--param', 'divisor=5', '--mode', 'kernel', '--top', '3');
  assert.equal(namei.status, 0, namei.stderr);
  assert.match(namei.stdout, /Table 10\. {2}Call times for namei with both caches\.\npart\s+ours ms\/call\s+paper ms\/call/);
  assert.match(namei.stdout, /Table 9\. Call times for namei with per-process cache\./);
  assert.match(namei.stdout, /Table 4\. Call times for namei in 4\.2BSD\.: run namei-profile --kernel no-offset-cache/);

  const failing = vaxlab('namecache-ls', '--step', 'ls.nch0', '--limit', '2', '--top', '3');
  assert.equal(failing.status, 1);
  assert.match(failing.stdout, /FAILED: time limit: .*; the profile is of what ran until then/);
  assert.match(failing.stdout, /_namei/);
});

const kernelFile = (name: string): string | null => {
  const image = findLabImage();
  return image ? kernelFileBeside(image, name) : null;
};
const noOffset = kernelFile('no-offset-cache');
const skipKernel = skip || (noOffset && existsSync(noOffset) ? false : 'the no-offset-cache kernel is not built (npm run image)');

test('Table 4\'s situation: the kernel without the per-process cache, the name cache off', { skip: skipKernel }, () => {
  const r = vaxlab('namei-profile', '--kernel', 'no-offset-cache', '--step', 'mix.offset', '--param', 'divisor=5', '--mode', 'kernel', '--top', '3');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /kernel no-offset-cache: 4\.3BSD without the per-process directory offset cache/);
  assert.match(r.stdout, /neither cache \(no-offset-cache kernel, nchsize=0\): namei, \d+ calls.*Table 4\. Call times for namei in 4\.2BSD\.\n/);
  assert.match(r.stdout, /^self\s+[\d.]+\s+14\.3\s+[\d.]+%\s+11\.3%$/m);
});
