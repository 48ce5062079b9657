// Boot once, restore many (bootSnapshots.ts): the keys, the store, and the
// proof that matters — an experiment whose steps start from snapshots gives
// the same result bytes as one that boots every step, and the snapshots the
// installer ships are byte for byte what a boot here saves.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import type { DiskImage } from '../../emu/js/diskImage';
import { findLabImage } from '../../emu/js/vaxNode';
import type { Vax780Options } from '../../emu/js/vax780';
import {
  BootSnapshots, SINGLE_USER_BOOT, TERMINAL_BOOT, bootAndSave, bootKey, bootSnapshotFromFile, decodeHostPart, encodeHostPart,
  type BootSnapshot,
} from './bootSnapshots';
import { PAGING_KERNEL_VARIANT, PAPER_KERNEL_VARIANT, findExperiment } from './experiments';
import { kernelResultName } from '../kernels/variants';
import { resultJson } from './result';
import { runExperiment } from './runner';
import { shippedBoots } from './shippedBoots';
import { useLabImage } from './testLab';

const lab = useLabImage('bootSnapshots.test.ts');
const skip = lab.skip;

test('a boot\'s key changes with everything that decides the machine, and only with that', () => {
  const image = { sha256: 'ab'.repeat(32) } as DiskImage;
  const base: Vax780Options = { memoryMB: 4.5, boot: 'single', direct: true, set: { a: 1, b: 2 }, cpuModel: '750', diskSpinSeed: 1 };
  const k = bootKey(image, base, SINGLE_USER_BOOT);
  assert.equal(bootKey(image, { ...base, profile: true }, SINGLE_USER_BOOT), k, 'profiling is not the machine');
  assert.equal(bootKey({ sha256: 'ab'.repeat(32) } as DiskImage, base, SINGLE_USER_BOOT), k, 'the image by its SHA-256');
  const others: Vax780Options[] = [
    { ...base, memoryMB: 8 }, { ...base, boot: 'multi' }, { ...base, direct: false }, { ...base, set: { b: 2, a: 1 } },
    { ...base, set: { a: 1 } }, { ...base, cpuModel: '780' }, { ...base, diskSpinSeed: 2 }, { ...base, diskTiming: 'eagle' },
    { ...base, diskTiming: 'rp06' }, { ...base, nsPerInstruction: 3333 }, { ...base, kernel: new Uint8Array(4) },
    { ...base, secondDrive: true },
  ];
  const keys = new Set([k, ...others.map((o) => bootKey(image, o, SINGLE_USER_BOOT))]);
  assert.equal(keys.size, others.length + 1);
  assert.notEqual(bootKey(image, base, TERMINAL_BOOT), k, 'another recipe');
  assert.notEqual(bootKey({ sha256: 'cd'.repeat(32) } as DiskImage, base, SINGLE_USER_BOOT), k, 'another image');
  const anon1 = { sha256: null } as DiskImage, anon2 = { sha256: null } as DiskImage;
  assert.notEqual(bootKey(anon1, base, SINGLE_USER_BOOT), bootKey(anon2, base, SINGLE_USER_BOOT), 'images without a SHA-256 by object');
  assert.equal(bootKey(image, { ...base, kernel: new Uint8Array(4) }, SINGLE_USER_BOOT, 'ff'.repeat(32)),
    bootKey(image, { ...base, kernel: new Uint8Array(8) }, SINGLE_USER_BOOT, 'ff'.repeat(32)), 'a kernel by its SHA-256 when known');
});

test('the store keeps the most recent, fetches a source once, and forgets one that failed', async () => {
  const snap = (n: number): BootSnapshot => ({ bytes: new Uint8Array([n]), transcript: `t${n}`, mark: 0 });
  const store = new BootSnapshots(2);
  store.set('a', snap(1));
  store.set('b', snap(2));
  store.get('a');
  store.set('c', snap(3));
  assert.equal(store.get('b'), undefined, 'the least recently used went');
  assert.equal(store.get('a')?.transcript, 't1');
  let calls = 0;
  store.addSource('d', async () => {
    calls++;
    return snap(4);
  });
  assert.ok(store.has('d'));
  const [x, y] = await Promise.all([store.take('d'), store.take('d')]);
  assert.equal(x?.transcript, 't4');
  assert.equal(y, x);
  assert.equal(calls, 1);
  store.addSource('e', async () => {
    throw new Error('offline');
  });
  assert.equal(await store.take('e'), undefined);
  assert.equal(store.has('e'), false, 'a failed source is dropped');
  assert.equal(await store.take('nothing'), undefined);
});

test('the host part: what the runner saves, read back; anything else refused', () => {
  assert.deepEqual(decodeHostPart(encodeHostPart('boot\r\n# ', 8)), { transcript: 'boot\r\n# ', mark: 8 });
  assert.throws(() => decodeHostPart(null), /no boot transcript/);
  assert.throws(() => decodeHostPart(new TextEncoder().encode('{"format":"other"}')), /not a vaxlab boot transcript/);
  assert.throws(() => decodeHostPart(encodeHostPart('abc', 4)), /not a vaxlab boot transcript/);
  assert.throws(() => decodeHostPart(new TextEncoder().encode('not JSON {')), /not a vaxlab boot transcript/);
  assert.throws(() => decodeHostPart(new TextEncoder().encode('null')), /not a vaxlab boot transcript/);
});

// Experiments whose steps share a machine: table2's 29 rows (one kernel
// setting), the name cache's (three), at reduced counts.
for (const [id, parameters] of [['table2', { divisor: 40 }], ['namecache', {}]] as const) {
  test(`${id}: restoring each step's machine gives the same result bytes as booting it`, { skip }, async () => {
    const spec = findExperiment(id)!;
    let boots = 0;
    const store = new BootSnapshots();
    const set = store.set.bind(store);
    store.set = (k, s) => {
      boots++;
      set(k, s);
    };
    const restored = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters, bootSnapshots: store });
    const booted = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters, bootSnapshots: null });
    assert.equal(restored.status, 'ok');
    assert.equal(resultJson(restored), resultJson(booted));
    const machines = new Set(spec.steps.map((s) => JSON.stringify(s.kernel))).size;
    assert.equal(boots, machines, `${id}: one boot per distinct machine`);
    // The store counts how each step's machine started: the rest restored from what was saved here.
    assert.deepEqual(store.starts, { shipped: 0, here: spec.steps.length - machines, booted: machines });
  });
}

test('the snapshots the installer ships are what a boot here saves, and restore', { skip }, async () => {
  const manifestPath = join(dirname(findLabImage()!), '43bsd.json');
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    snapshots?: { emulatorBuild: string; boots: {
      name: string; file: string; options: Omit<Vax780Options, 'disk'>; recipe: typeof SINGLE_USER_BOOT;
      kernel?: { name: string; file: string; uncompressedSha256: string };
    }[] };
  } : {};
  const s = manifest.snapshots;
  if (!s) {
    console.log('bootSnapshots.test.ts: the installer shipped no snapshots (no wasm build when it ran): nothing to compare');
    return;
  }
  assert.equal(s.emulatorBuild, lab.api.buildId, 'shipped by another emulator build: npm run image makes them again');
  const defined = shippedBoots();
  assert.deepEqual(s.boots.map((b) => b.name), defined.map((b) => b.name));
  // Each machine boots its tables' default kernel: Table 2's the paper's, the paging tables' like-4.2 (the lab's
  // closest to the paper's 4.2BSD column); the Terminal tab's the image's /vmunix.
  assert.equal(defined.find((d) => d.name === 'table2')!.kernel, PAPER_KERNEL_VARIANT);
  assert.equal(defined.find((d) => d.name === 'paging')!.kernel, PAGING_KERNEL_VARIANT);
  assert.equal(PAGING_KERNEL_VARIANT, 'like-4.2');
  assert.equal(defined.find((d) => d.name === 'terminal')!.kernel, undefined);
  for (const boot of s.boots) {
    const def = defined.find((d) => d.name === boot.name)!;
    assert.deepEqual(boot.options, def.options, `${boot.name}: as shippedBoots defines it`);
    assert.equal(boot.kernel?.name, def.kernel, `${boot.name}: the kernel shippedBoots names`);
    let kernel: Uint8Array | undefined;
    if (boot.kernel) {
      kernel = gunzipSync(readFileSync(join(dirname(manifestPath), boot.kernel.file)));
      assert.equal(createHash('sha256').update(kernel).digest('hex'), boot.kernel.uncompressedSha256, `${boot.name}: the kernel's SHA-256`);
    }
    const shipped = bootSnapshotFromFile(gunzipSync(readFileSync(join(dirname(manifestPath), boot.file))));
    const here = await bootAndSave(lab.api.vax780, { ...boot.options, disk: lab.disk, ...(kernel ? { kernel } : {}) }, boot.recipe);
    assert.ok(Buffer.from(here.bytes).equals(shipped.bytes), `${boot.name}: not what a boot saves`);
    assert.equal(shipped.transcript, here.transcript);
    assert.ok(shipped.transcript.slice(0, shipped.mark).endsWith(boot.recipe.prompt));
  }

  // A Table 2 row and a paging row on their default kernels start from the shipped snapshots, offered as the page
  // offers them (keyed by the kernel's SHA-256 from the manifest, before any kernel bytes are at hand), and give
  // the bytes a boot gives.
  for (const [machine, experiment, parameters, kernelName] of [
    ['table2', 'syscall', { iterations: 2000 },
      'paper-1985: 4.3BSD with the open-file scans and without the text cache, as of spring 1985'],
    ['paging', 'randpage', { iterations: 300 },
      'like-4.2: 4.3BSD without the name caches, string exec copying, the process lists, the clock\'s savings, the reschedule cancel at a context switch, the two-handed page clock and the 1985 paging thresholds'],
  ] as const) {
    const shippedBoot: (typeof s.boots)[number] = s.boots.find((b) => b.name === machine)!;
    const spec = findExperiment(experiment)!;
    assert.equal(shippedBoot.kernel!.name, spec.kernel, `${experiment} boots the kernel ${machine}'s machine booted`);
    const kernelBytes = gunzipSync(readFileSync(join(dirname(manifestPath), shippedBoot.kernel!.file)));
    const kernel = { name: kernelResultName(shippedBoot.kernel!.name), bytes: kernelBytes, sha256: shippedBoot.kernel!.uncompressedSha256 };
    const store = new BootSnapshots();
    store.addSource(bootKey(lab.disk, { ...shippedBoot.options, disk: lab.disk }, shippedBoot.recipe, shippedBoot.kernel!.uncompressedSha256),
      async () => bootSnapshotFromFile(gunzipSync(readFileSync(join(dirname(manifestPath), shippedBoot.file)))));
    const restored = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters, kernel, bootSnapshots: store });
    assert.deepEqual(store.starts, { shipped: 1, here: 0, booted: 0 }, `${experiment} restored the shipped machine`);
    const booted = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters, kernel, bootSnapshots: null });
    assert.equal(restored.status, 'ok');
    assert.equal(resultJson(restored), resultJson(booted));
    assert.equal(restored.kernel?.name, kernelName);
  }
});
