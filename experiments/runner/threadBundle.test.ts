// The worker threads' bundle (threadBundle.ts): built from its sources,
// known stale when one of them changes, built again or refused (the runner
// then falls back to tsx, saying why) — never run older than its sources.
// A small tree of its own in a temporary directory, and the real thread's
// sources bundled into one (the real bundle in experiments/build/ is left
// alone: other test files' threads may be loading it).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { bundledEntryOf } from './sweepNode';
import { bundleState, ensureBundle, SWEEP_THREAD_BUNDLE, type ThreadBundlePaths } from './threadBundle';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A tree: src/entry.ts imports lib/where.ts, which says where it is (import.meta.url) and its version. */
function tree(): ThreadBundlePaths & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vaxlab-bundle-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', strict: true } }));
  writeFileSync(join(dir, 'lib', 'where.ts'),
    "import { fileURLToPath } from 'node:url';\nexport const where: string = fileURLToPath(import.meta.url);\nexport const version: number = 1;\n");
  writeFileSync(join(dir, 'src', 'entry.ts'),
    "import { version, where } from '../lib/where';\nconst self: string = import.meta.url;\nconsole.log(JSON.stringify({ version, where, self }));\n");
  return { dir, entry: join(dir, 'src', 'entry.ts'), out: join(dir, 'build', 'entry.mjs'), root: dir, tsconfig: join(dir, 'tsconfig.json') };
}

/** Runs a bundle with Node alone (no tsx: it is plain JavaScript). */
const runPlain = (out: string) => JSON.parse(execFileSync(process.execPath, [out], { encoding: 'utf8' })) as
  { version: number; where: string; self: string };

test('a missing bundle is built; it runs without tsx; each module keeps its own import.meta.url', async () => {
  const t = tree();
  assert.deepEqual(bundleState(t), { state: 'missing' });
  const r = await ensureBundle(t);
  assert.ok(r.bundle !== null && r.built !== null, JSON.stringify(r));
  assert.equal(r.built.reason, 'it was missing');
  assert.equal(r.built.inputs, 4); // entry.ts, where.ts, the tsconfig and the builder
  assert.deepEqual(bundleState(t), { state: 'fresh' });
  const ran = runPlain(t.out);
  assert.equal(ran.version, 1);
  assert.equal(ran.where, join(t.dir, 'lib', 'where.ts'));
  assert.equal(fileURLToPath(ran.self), t.entry);
  // Fresh: not built again.
  const again = await ensureBundle(t);
  assert.ok(again.bundle !== null && again.built === null);
});

test('a source edited after the build makes the bundle stale; ensureBundle builds it again with the edit', async () => {
  const t = tree();
  await ensureBundle(t);
  writeFileSync(join(t.dir, 'lib', 'where.ts'), readFileSync(join(t.dir, 'lib', 'where.ts'), 'utf8').replace('version: number = 1', 'version: number = 2'));
  assert.deepEqual(bundleState(t), { state: 'stale', reason: 'lib/where.ts changed' });
  const r = await ensureBundle(t);
  assert.ok(r.bundle !== null && r.built !== null);
  assert.equal(r.built.reason, 'it was out of date (lib/where.ts changed)');
  assert.equal(runPlain(t.out).version, 2);
  // The tsconfig counts too (esbuild compiles with it); so does a manifest that cannot be read.
  writeFileSync(t.tsconfig, JSON.stringify({ compilerOptions: { target: 'ES2022', strict: false } }));
  assert.deepEqual(bundleState(t), { state: 'stale', reason: 'tsconfig.json changed' });
  await ensureBundle(t);
  writeFileSync(`${t.out}.inputs.json`, '{');
  assert.deepEqual(bundleState(t), { state: 'stale', reason: 'its manifest is unreadable' });
  await ensureBundle(t);
  unlinkSync(t.out);
  assert.deepEqual(bundleState(t), { state: 'missing' });
});

test('a bundle that cannot be built is refused with its reason; the runner then uses tsx, saying so in one line', async () => {
  const t = tree();
  await ensureBundle(t);
  writeFileSync(join(t.dir, 'lib', 'where.ts'), 'export const where: string = ;\n');
  const r = await ensureBundle(t);
  assert.equal(r.bundle, null);
  assert.match('error' in r ? r.error : '', /^it was out of date \(lib\/where\.ts changed\), and building it failed: /);
  // Still stale: the old bundle is never taken for the new sources.
  assert.equal(bundleState(t).state, 'stale');
  const lines: string[] = [];
  const entry = await bundledEntryOf(t, (line) => lines.push(line));
  assert.equal(entry.loader, 'tsx');
  assert.match(entry.url.href, /\/experiments\/runner\/sweepThread\.mjs$/);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^vaxlab: the worker threads' bundle cannot be used: .*; the threads load their TypeScript through tsx$/);
  // import.meta.dirname would point at the bundle's directory, not the source's: refused rather than wrong.
  writeFileSync(join(t.dir, 'lib', 'where.ts'), 'export const where: string = import.meta.dirname;\nexport const version = 3;\n');
  const d = await ensureBundle(t);
  assert.equal(d.bundle, null);
  assert.match('error' in d ? d.error : '', /import\.meta\.dirname is not supported/);
});

test('the runner\'s thread: a stale bundle is detected by the source that changed and built again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vaxlab-thread-bundle-'));
  dirs.push(dir);
  const paths: ThreadBundlePaths = { ...SWEEP_THREAD_BUNDLE, out: join(dir, 'sweepThread.mjs') };
  const lines: string[] = [];
  const first = await bundledEntryOf(paths, (line) => lines.push(line));
  assert.equal(first.loader, 'bundle');
  assert.match(lines[0] ?? '', /^vaxlab: built the worker threads' bundle \(\d+ sources\): it was missing$/);
  const manifest = JSON.parse(readFileSync(`${paths.out}.inputs.json`, 'utf8')) as { inputs: Record<string, string> };
  // The sources it was built from: the thread's entry, the runner, the emulator's binding; not the wasm module.
  for (const f of ['experiments/runner/sweepThread.ts', 'experiments/runner/sweep.ts', 'emu/js/vaxNode.ts', 'tsconfig.json']) {
    assert.ok(f in manifest.inputs, `${f} is not among the bundle's inputs`);
  }
  assert.ok(!Object.keys(manifest.inputs).some((f) => f.startsWith('emu/build/')));
  // The Emscripten module is imported from its place, relative to the bundle's.
  assert.match(readFileSync(paths.out, 'utf8'), /await import\("\.\.\/[^"]*\/emu\/build\/wasm\/vax\.mjs"\)/);
  // As if sweep.ts had been edited since the build (the source itself is left alone).
  manifest.inputs['experiments/runner/sweep.ts'] = '0'.repeat(64);
  writeFileSync(`${paths.out}.inputs.json`, JSON.stringify(manifest));
  assert.deepEqual(bundleState(paths), { state: 'stale', reason: 'experiments/runner/sweep.ts changed' });
  const second = await bundledEntryOf(paths, (line) => lines.push(line));
  assert.equal(second.loader, 'bundle');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /: it was out of date \(experiments\/runner\/sweep\.ts changed\)$/);
  assert.deepEqual(bundleState(paths), { state: 'fresh' });
});
