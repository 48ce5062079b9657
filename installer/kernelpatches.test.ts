// The kernel variants' sources, on the host: every patch applies to the
// distribution's kernel sources (srcsys.tar.gz), alone and in the order the
// "4.2-like" variant applies them all, with our guest applier (applydiff.c,
// compiled here by the host's cc) and with GNU patch, which must agree byte
// for byte; applydiff refuses what does not apply, changing nothing, and
// says where; every patch's header agrees with variants.ts.
//
// Needs the 4.3BSD distribution's srcsys.tar.gz (../shared/bsd/4.3BSD or
// VAXLAB_DIST) for the applying tests, gcc and patch(1); skipped, saying
// why, without them.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { defaultDistDir } from './lib/dist';
import { findKernelSources, isSpring1985Label, parsePatch } from './lib/kernels';
import { KERNELS, LIKE_42, LIKE_42_RESCHED, NOT_YET_IN_LIKE_42, kernelFileName } from '../experiments/kernels/variants';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const HERE = join(REPO_ROOT, 'experiments/kernels');
const SRCSYS = join(defaultDistDir(REPO_ROOT), 'srcsys.tar.gz');
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const skip = !existsSync(SRCSYS) ? `no ${SRCSYS} (the 4.3BSD distribution; set VAXLAB_DIST)`
  : !has('gcc') || !has('patch') ? 'gcc or patch(1) is not installed' : false;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-kernels-test-'));
after(() => rmSync(work, { recursive: true, force: true }));
const applydiff = join(work, 'applydiff');
const pristine = join(work, 'pristine');
const patches = readdirSync(join(HERE, 'patches')).filter((n) => n.endsWith('.patch')).sort();
const touched = [...new Set(patches.flatMap((p) => parsePatch(p, readFileSync(join(HERE, 'patches', p), 'latin1')).touches))];

before(() => {
  if (skip) return;
  // The guest's applier, compiled as the host's cc takes K&R C.
  const cc = spawnSync('gcc', ['-std=gnu89', '-w', '-o', applydiff, join(HERE, 'applydiff.c')], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  mkdirSync(pristine);
  const x = spawnSync('tar', ['xzf', SRCSYS, '-C', pristine, ...touched.map((t) => `./${t}`)], { encoding: 'utf8' });
  assert.equal(x.status, 0, x.stderr);
});

/** A fresh copy of the touched sources. */
function tree(name: string): string {
  const dir = join(work, name);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

function run(cmd: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'latin1' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(touched.map((t) => [t, readFileSync(join(dir, t), 'latin1')]));

test('every patch applies to the distribution\'s sources, alone and in every variant\'s set in order, as GNU patch applies it', { skip }, () => {
  const sets = [...patches.map((p) => [p]), ...KERNELS.filter((k) => k.patches.length > 1).map((k) => [...k.patches])];
  for (const set of sets) {
    const ours = tree(`ours-${set.length}-${set[0]}`);
    const gnu = tree(`gnu-${set.length}-${set[0]}`);
    const r = run(applydiff, set.map((p) => join(HERE, 'patches', p)), ours);
    assert.equal(r.status, 0, `${set.join(' ')}: ${r.stderr}`);
    for (const p of set) assert.match(r.stdout, new RegExp(`${p}: \\S+: \\d+ hunks? applied`));
    for (const p of set) {
      const g = spawnSync('patch', ['-p1', '-s', '-N', '--no-backup-if-mismatch', '-F', '0', '-i', join(HERE, 'patches', p)],
        { cwd: gnu, encoding: 'utf8' });
      assert.equal(g.status, 0, `GNU patch ${p}: ${g.stdout}${g.stderr}`);
    }
    assert.deepEqual(snapshot(ours), snapshot(gnu), `${set.join(' + ')}: applydiff and GNU patch give the same files`);
    assert.notDeepEqual(snapshot(ours), snapshot(pristine));
  }
});

test('applydiff changes nothing when a hunk does not apply, and names the patch, the file and the hunk', { skip }, () => {
  const dir = tree('refused');
  const good = join(HERE, 'patches', 'no-offset-cache.patch');
  // The same patch twice: the second finds its lines gone.
  let r = run(applydiff, [good, good], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /applydiff: .*no-offset-cache\.patch: sys\/ufs_namei\.c: hunk 1 \(line \d+ of the patch, at line 371 of the original\) does not apply/);
  assert.match(r.stderr, /\n {4}line 374 of the file is "\t \* Without the per-process directory offset cache every"\n {4}where the patch expects "\t \* If this is the same directory that this process"/);
  assert.deepEqual(snapshot(dir), snapshot(pristine), 'nothing written: the first (good) application is not kept either');
  // A hunk whose context was edited.
  const bad = join(work, 'bad.patch');
  writeFileSync(bad, readFileSync(join(HERE, 'patches', 'exec-bytes.patch'), 'latin1').replace('\tregister char *cp;', '\tregister char *cq;'), 'latin1');
  r = run(applydiff, [bad], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /bad\.patch: sys\/kern_exec\.c: hunk 1 .* does not apply:\n {4}line 52 of the file is "\tregister char \*cp;"\n {4}where the patch expects "\tregister char \*cq;"/);
  writeFileSync(bad, '--- a/sys/kern_exec.c\n+++ b/sys/kern_exec.c\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n');
  r = run(applydiff, [bad], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /hunk 1 .* does not apply:\n {4}the file has no line "nothing like this"/);
  // Malformed patches and paths outside the tree: exit 2.
  writeFileSync(bad, 'header only\n');
  r = run(applydiff, [bad], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /not a unified diff/);
  writeFileSync(bad, '--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1,1 +1,1 @@\n-x\n+y\n');
  r = run(applydiff, [bad], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /only name files below the current directory/);
  writeFileSync(bad, '--- a/sys/kern_exec.c\n+++ b/sys/kern_exec.c\n@@ -1,3 +1,3 @@\n /*\n');
  r = run(applydiff, [bad], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /hunk 1 \(line 3\) ends early/);
  r = run(applydiff, [join(work, 'nonexistent.patch')], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /cannot open it/);
  assert.deepEqual(snapshot(dir), snapshot(pristine));
});

test('each patch\'s header names its variant, a "4.3BSD without" label and the paper\'s section, as variants.ts does', () => {
  const src = findKernelSources(HERE);
  assert.deepEqual(src.patches.map((p) => p.file), patches);
  for (const k of KERNELS) {
    if (k.name === 'generic') {
      assert.equal(k.patches.length, 0);
      continue;
    }
    if (isSpring1985Label(k.label)) continue; // the next test
    assert.match(k.label, /^4\.3BSD without /);
    assert.doesNotMatch(k.label, /4\.2BSD/);
    assert.match(k.paper, /sections? \d\.\d/);
    for (const p of k.patches) {
      const info = src.patches.find((x) => x.file === p)!;
      assert.match(info.paper, /sections? \d\.\d/);
      const text = readFileSync(join(HERE, 'patches', p), 'latin1');
      assert.match(text, /^What it changes\./m);
      assert.match(text, /^Why this is 4\.2BSD's behaviour\./m);
      assert.match(text, /4\.2BSD's\s+sources\s+were\s+not\s+available/, `${p} says where its 4.2BSD behaviour comes from`);
    }
  }
  const without = KERNELS.filter((k) => k.name !== 'generic' && !isSpring1985Label(k.label)).flatMap((k) => k.patches);
  const pending = new Set(NOT_YET_IN_LIKE_42);
  assert.deepEqual([...LIKE_42.patches].sort(), [...new Set(without)].filter((p) => !pending.has(p)).sort(),
    'the 4.2-like kernel has every "without" patch but those named as not yet in it');
  for (const p of pending) {
    assert.ok(without.includes(p) && !LIKE_42.patches.includes(p), `${p}: a "without" patch, not in like-4.2`);
    assert.deepEqual(LIKE_42_RESCHED.patches, [...LIKE_42.patches, ...NOT_YET_IN_LIKE_42],
      'like-4.2-resched is like-4.2 with the pending reverts on top, in order');
  }
  assert.equal(kernelFileName('43bsd', 'no-name-cache'), '43bsd-kernel-no-name-cache.gz');
});

test('a spring-1985 variant says so, cites the CSRG SCCS history\'s deltas and dates, and is neither 4.2BSD nor the paper\'s kernel', () => {
  const src = findKernelSources(HERE);
  const spring = KERNELS.filter((k) => isSpring1985Label(k.label));
  assert.ok(spring.length >= 1, 'at least one "as of spring 1985" variant');
  for (const k of spring) {
    assert.match(k.label, /^4\.3BSD with .*, as of spring 1985$/);
    assert.doesNotMatch(`${k.label} ${k.description}`, /4\.2BSD|the paper's kernel/);
    assert.match(k.paper, /Table \d/);
    assert.ok(!LIKE_42.patches.some((p) => k.patches.includes(p)), `${k.name}: not part of the 4.2-like kernel`);
    for (const p of k.patches) {
      const info = src.patches.find((x) => x.file === p)!;
      assert.match(info.paper, /Table \d/);
      const text = readFileSync(join(HERE, 'patches', p), 'latin1');
      const header = text.slice(0, text.indexOf('\n--- '));
      assert.match(header, /^What it changes\./m);
      assert.match(header, /^Why this is the spring-1985 kernel's behaviour[.,]/m);
      assert.match(header, /CSRG SCCS history/);
      // Each delta it takes back, with its date.
      assert.match(header, /delta \d+\.\d+/);
      assert.match(header, /\d+ [A-Z][a-z]+ 198[456]/);
    }
  }
});
