// The paging-thresholds-4.2 variant (experiments/kernels/patches/
// paging-thresholds-4.2.patch) on real 4.3BSD: the page daemon's constants
// as the running kernel holds them after vminit(), read from the host by the
// kernel's own symbol table, on the paging tables' machine (4.5 MB).  On
// /vmunix they must be the release's (lotsfree 512 KB but at most a quarter
// of the loop; fastscan 200 and slowscan 100 clusters a second), on the
// variant and on like-4.2, which includes it, 4.2BSD's as the CSRG SCCS
// history of vm_sched.c gives them (lotsfree a quarter of the loop; fastscan
// the loop's clusters / 200 seconds for a revolution, at least 5, slowscan
// twice that); desfree, minfree and maxpgio the same on all three.  Then the
// daemon under load: randpage keeps more memory free on the variant, whose
// daemon starts at its higher lotsfree.
//
// Uses the installer's kernels beside the lab image (`npm run image`);
// skipped, saying why, without them.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import { kernelResultName } from '../kernels/variants';
import { findExperiment } from './experiments';
import { i32 } from './kstats';
import { runExperiment } from './runner';
import { bootSingleUser, labKernels, useLabImage } from './testLab';

const lab = useLabImage('pagingthresholds.test.ts');
const { file: kernelFile, skip } = labKernels(lab, ['paging-thresholds-4.2', 'like-4.2']);

const VARIABLES = ['lotsfree', 'desfree', 'minfree', 'maxpgio', 'slowscan', 'fastscan', 'maxfree', 'firstfree', 'nswdev'] as const;
type Constants = Record<(typeof VARIABLES)[number], number>;

const NBPG = 512;
const CLSIZE = 2;

/** Boots a kernel (null: the image's /vmunix) single-user on the paging machine and reads the daemon's constants. */
async function constantsOf(name: string | null): Promise<Constants> {
  const machine = findExperiment('randpage')!.machine;
  const kernel = name === null ? undefined : gunzipSync(readFileSync(kernelFile(name)));
  const { sys } = await bootSingleUser(lab, { memoryMB: machine.memoryMB, ...(kernel ? { kernel } : {}) });
  try {
    const symbols = sys.kernelSymbols(VARIABLES.map((v) => `_${v}`));
    const out = {} as Constants;
    for (const v of VARIABLES) {
      const address = symbols[`_${v}`];
      assert.ok(typeof address === 'number', `${name ?? '/vmunix'}: no symbol _${v}`);
      out[v] = i32(sys.readKernel(address, 4), 0);
    }
    return out;
  } finally {
    sys.destroy();
  }
}

test('paging-thresholds-4.2: lotsfree a quarter of the loop and scan times from the memory size, as 4.2BSD; /vmunix as released',
  { skip }, async () => {
    const released = await constantsOf(null);
    const loop = released.maxfree - released.firstfree; // LOOPPAGES
    console.log(`/vmunix: LOOPPAGES ${loop}: ${JSON.stringify(released)}`);
    // 4.5 MB, about 0.96 MB kept by the kernel: some 3.6 MB in the loop.
    assert.ok(loop > 6000 && loop < 8000, `LOOPPAGES ${loop}`);
    const desfree = Math.min((200 * 1024) / NBPG, Math.trunc(loop / 8));
    const minfree = Math.min((64 * 1024) / NBPG, Math.trunc(desfree / 2));
    // The release: vminit() of June 1986.
    assert.deepEqual(
      { lotsfree: released.lotsfree, desfree: released.desfree, minfree: released.minfree, fastscan: released.fastscan, slowscan: released.slowscan },
      { lotsfree: Math.min((512 * 1024) / NBPG, Math.trunc(loop / 4)), desfree, minfree, fastscan: Math.min(200, Math.trunc(loop / 5)),
        slowscan: Math.trunc(Math.min(200, Math.trunc(loop / 5)) / 2) });
    assert.equal(released.lotsfree, 1024, 'here 512 KB is less than a quarter of the loop');
    for (const name of ['paging-thresholds-4.2', 'like-4.2']) {
      const k = await constantsOf(name);
      // like-4.2's kernel is smaller (no name cache): its loop is a few pages longer.
      const own = k.maxfree - k.firstfree;
      assert.ok(Math.abs(own - loop) < 100, `${name}: LOOPPAGES ${own}, /vmunix's ${loop}`);
      const fastscan = Math.max(5, Math.trunc(Math.trunc(own / CLSIZE) / 200));
      assert.deepEqual(
        { lotsfree: k.lotsfree, desfree: k.desfree, minfree: k.minfree, fastscan: k.fastscan, slowscan: k.slowscan, maxpgio: k.maxpgio },
        { lotsfree: Math.trunc(own / 4), desfree: Math.min((200 * 1024) / NBPG, Math.trunc(own / 8)),
          minfree: Math.min((64 * 1024) / NBPG, Math.trunc(Math.min((200 * 1024) / NBPG, Math.trunc(own / 8)) / 2)),
          fastscan, slowscan: 2 * fastscan, maxpgio: released.maxpgio },
        `${name}: 4.2BSD's constants`);
      console.log(`${name}: LOOPPAGES ${own}: ${JSON.stringify(k)}`);
      assert.ok(k.lotsfree > released.lotsfree, `${name}: the daemon starts earlier (${k.lotsfree} pages against ${released.lotsfree})`);
      // Seconds per revolution: the loop's clusters at 200 a second and at half that, the release's rates at either end.
      assert.ok(k.fastscan >= 15 && k.fastscan <= 20, `${name}: fastscan ${k.fastscan} s`);
    }
    // maxpgio: 2/3 of DISKRPM, half as much again with two or more swap devices (the release and 4.2BSD alike).
    assert.equal(released.maxpgio, released.nswdev >= 2 ? 60 : 40);
  });

test('paging-thresholds-4.2 under load: randpage keeps more memory free than on /vmunix', { skip }, async () => {
  const spec = findExperiment('randpage')!;
  const freeOf = async (name: string) => {
    const kernel = name === 'vmunix' ? undefined
      : { name: kernelResultName(name), bytes: gunzipSync(readFileSync(kernelFile(name))) };
    // No kernel: the image's /vmunix boots.
    const r = await runExperiment(lab.api.vax780, lab.disk, spec, { parameters: { iterations: 10000 }, counters: 'all', ...(kernel ? { kernel } : {}) });
    assert.equal(r.status, 'ok', `${name}: ${r.rows[0]?.failure?.message}`);
    const row = r.rows[0]!;
    const t = row.totals!;
    assert.ok((t.scan ?? 0) > 1000 && (t.dfree ?? 0) > 1000, `${name}: the daemon ran (${JSON.stringify(t)})`);
    // The kernel's freemem (KB), a sample a virtual second.
    const samples = row.counters!.values['memory.freemem']!.filter((x) => Number.isFinite(x));
    assert.ok(samples.length > 10, `${name}: free-memory samples`);
    // The second half of the run: the program's pages have filled memory and the daemon holds it near lotsfree.
    const late = samples.slice(Math.floor(samples.length / 2));
    return late.reduce((a, b) => a + b, 0) / late.length;
  };
  const released = await freeOf('vmunix');
  const variant = await freeOf('paging-thresholds-4.2');
  console.log(`randpage, 10,000 pages: mean free memory in the second half ${released.toFixed(0)} KB on /vmunix, ${variant.toFixed(0)} KB on paging-thresholds-4.2`);
  assert.ok(variant > released * 1.2, `mean free memory late in randpage: ${variant.toFixed(0)} on the variant, ${released.toFixed(0)} on /vmunix`);
});
