// The file-system mutation fuzzer (emu/tests/fuzz/fsfuzz.ts), a short run:
// a few damaged 4.3BSD packs through the ASan/UBSan bsdfs and vax780, each
// of which must end with a documented exit status, no signal and no
// sanitizer report (`npm run fuzz` runs it for longer).  Also: the same
// seed makes the same damage, the working image is put back exactly after
// every case, and the judge of a run notices what it should.  Skipped,
// saying why, without a 4.3BSD image or without the ASan build.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { findBsdImage, loadDiskImage, REPO_ROOT } from '../../js/vaxNode';
import {
  BSDFS_EXIT, describeFs, fsFuzz, type FsMetadata, missingTools, planCase, runTool, toolsIn, undo, VAX780_EXIT,
  WorkingImage,
} from '../fuzz/fsfuzz';

const tools = toolsIn(join(REPO_ROOT, 'emu/build/asan'));
const imagePath = findBsdImage();
const missing = missingTools(tools);
const skip = !imagePath ? 'no 4.3BSD image (npm run image, or make -C emu images with ../shared)'
  : missing ? `${missing}` : false;

// A fixed seed: npm test tries the same cases every time (npm run fuzz
// takes new ones from the clock).
const SEED = 20261125n;
const CASES = 12;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-fsfuzz-'));
after(() => rmSync(work, { recursive: true, force: true }));

let image: Uint8Array;
let meta: Record<'root' | 'usr', FsMetadata>;
before(async () => {
  if (skip) return;
  image = await loadDiskImage(imagePath!);
  meta = { root: describeFs(image, 'root'), usr: describeFs(image, 'usr') };
});

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

test('the metadata of / and /usr is found by parsing the pack', { skip }, () => {
  assert.equal(meta.root.sb.bsize, 8192);
  assert.equal(meta.root.cgs.length, meta.root.sb.ncg);
  const paths = new Set(meta.root.inodes.map((r) => r.path));
  for (const p of ['/', '/vmunix', '/boot', '/etc/passwd', '/bin/sh']) assert.ok(paths.has(p), `${p} not found`);
  assert.ok(meta.root.directories.length >= 5, 'too few directory blocks');
  assert.ok(meta.root.indirect.some((r) => r.path === '/vmunix'), '/vmunix has an indirect block');
  assert.ok(meta.usr.inodes.length > 1);
});

test('a seed makes the same damage every time; undo puts the bytes back', { skip }, () => {
  const before = sha(image);
  const a = planCase(SEED, image, meta);
  undo(image, a.mutations);
  const b = planCase(SEED, image, meta);
  undo(image, b.mutations);
  assert.deepEqual(b, a);
  assert.ok(a.mutations.length >= 1);
  for (const m of a.mutations) assert.notEqual(m.after, m.before, m.what);
  assert.equal(sha(image), before);
  const other = planCase(SEED + 1n, image, meta);
  undo(image, other.mutations);
  assert.notDeepEqual(other.mutations, a.mutations);
});

test('the judge: a signal, an undocumented status, a sanitizer report or too much host time is a failure', { skip }, () => {
  const sh = (script: string, wall = 30) => runTool('/bin/sh', ['-c', script], VAX780_EXIT, wall, work, false);
  assert.equal(sh('echo "vax780: kernel panic: iinit" >&2; exit 5').failure, null);
  assert.match(sh('kill -SEGV $$').failure ?? '', /killed by SIGSEGV/);
  assert.match(sh('exit 7').failure ?? '', /undocumented exit status 7/);
  assert.match(sh('echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 1').failure ?? '',
    /sanitizer report/);
  assert.match(sh('echo "ffs.c:10:5: runtime error: signed integer overflow" >&2; exit 0').failure ?? '',
    /sanitizer report/);
  assert.match(sh('exit 3').failure ?? '', /without a reason/);
  assert.match(sh('sleep 5', 1).failure ?? '', /still running after 1 s/);
  // bsdfs has fewer codes: 4-6 are not its.
  assert.match(runTool('/bin/sh', ['-c', 'echo x >&2; exit 5'], BSDFS_EXIT, 30, work, false).failure ?? '',
    /undocumented exit status 5/);
});

test(`${CASES} damaged packs: bsdfs and a boot under ASan/UBSan end as documented`, { skip }, () => {
  const before = sha(image);
  const lines: string[] = [];
  const s = fsFuzz({ image, imageName: imagePath!, tools, workDir: join(work, 'run'), keepDir: join(work, 'keep'),
    seed: SEED, cases: CASES, seconds: 0, wallSeconds: 120, verbose: (l) => lines.push(l) });
  const detail = `\n${lines.join('\n')}`;
  assert.equal(s.cases, CASES);
  assert.deepEqual(s.failed.map((f) => f.failures), [], detail);
  assert.ok(s.mutations >= CASES, detail);
  // Every case ran the host's reader six times or more, and one boot.
  assert.ok(s.processes >= CASES * 7, detail);
  const boots = [...s.outcomes.values()].reduce((a, b) => a + b, 0);
  assert.equal(boots, CASES);
  // The damage reached both the host reader and the guest: not every case
  // ends the same way.
  assert.ok(s.outcomes.size >= 2, `one outcome for all: ${[...s.outcomes.keys()]}${detail}`);
  // The pristine image in memory is untouched, and the working copy was
  // put back after the last case.
  assert.equal(sha(image), before);
  const working = readFileSync(join(work, 'run', 'fuzz.dsk'));
  assert.equal(sha(working), before);
});

test('the working image is put back where the guest or the damage wrote', { skip }, () => {
  const w = new WorkingImage(image, join(work, 'restore.dsk'));
  try {
    const plan = planCase(SEED + 7n, image, meta);
    w.apply(image, plan.mutations);
    undo(image, plan.mutations);
    // The damage is in the file, then gone.
    const fd = openSync(w.path, 'r');
    let damaged = 0;
    try {
      for (const m of plan.mutations) {
        const got = Buffer.alloc(m.after.length / 2);
        readSync(fd, got, 0, got.length, m.offset);
        if (!got.equals(image.subarray(m.offset, m.offset + got.length))) damaged++;
      }
    } finally {
      closeSync(fd);
    }
    assert.ok(damaged > 0, 'the damage did not reach the working file');
    assert.ok(w.restore() > 0);
    assert.equal(w.restore(), 0);
    assert.equal(sha(readFileSync(w.path)), sha(image));
  } finally {
    w.close();
  }
});
