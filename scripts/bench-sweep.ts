// How much faster a sweep runs on more worker threads, and what each worker
// costs in memory (npm run bench:sweep; README, Performance):
//
//   node --import tsx scripts/bench-sweep.ts [--jobs 1,2] [--rounds 2] [EXPERIMENT [--param N=V] [--set N=LIST]]
//
// Default: table2 with divisor=4 (29 units).  The job counts are run in
// turn, round after round (A B A B), so a change in the machine's load hits
// both alike; each run's host seconds (thread start-up included), the ratio
// to the first count's, and the load average before and after.  Memory: the
// process's RSS with the pack read into shared memory (its chunked image's
// file when the installer wrote one, its chunks decompressed once for all
// workers, VAXLAB_PRIVATE_CHUNKS=1: each worker its own; VAXLAB_FLAT_PACK=1:
// the whole pack) and no worker, then
// its peak while each count of workers runs (sampled every 50 ms), per
// worker; and what one more copy of the pack in wasm memory costs (what each
// worker would hold without sharing it).  The results are checked to be
// the same bytes for every count.  The CPU time the process used says how
// many cores it had: on a machine busy with other work, two workers cannot
// be faster than the cores they get.  So each round also times a control:
// the same fixed CPU loop on 1 and on 2 threads (no emulator, no messages),
// the best ratio the machine allows at that moment.

import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';

import { findLabImage, loadDiskImage, loadSharedPack, loadVaxNode } from '../emu/js/vaxNode';
import { assembleSweep, planSweep, runUnits, sweepJson, type SweepRequest } from '../experiments/runner/sweep';
import { threadExecutors } from '../experiments/runner/sweepNode';
import { kernelFileBeside, readKernel } from '../experiments/kernels/kernelFiles';
import { kernelByName, kernelResultName } from '../experiments/kernels/variants';

const args = process.argv.slice(2);
let jobsList = [1, 2];
let rounds = 2;
let experiment = 'table2';
const parameters: Record<string, number> = {};
const axes: SweepRequest['axes'] = [];
while (args.length > 0) {
  const a = args.shift()!;
  if (a === '--jobs') jobsList = args.shift()!.split(',').map(Number);
  else if (a === '--rounds') rounds = Number(args.shift());
  else if (a === '--param') {
    const [k, v] = args.shift()!.split('=');
    parameters[k!] = Number(v);
  } else if (a === '--set') {
    const [k, v] = args.shift()!.split('=');
    axes.push({ setting: k!, values: v!.split(',').map(Number) });
  } else experiment = a;
}
if (experiment === 'table2' && Object.keys(parameters).length === 0) parameters.divisor = 4;

const MB = 1024 * 1024;
const rss = () => process.memoryUsage().rss / MB;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const request: SweepRequest = { experiment, axes, base: { parameters, set: {} } };
const plan = planSweep(request);
const rss0 = rss();
// The chunked image's file when the installer wrote one (its chunks decompressed once, for every thread),
// else the whole pack (VAXLAB_FLAT_PACK=1 asks for that: the way before chunked images).
const pack = await loadSharedPack(findLabImage()!, { flat: process.env.VAXLAB_FLAT_PACK === '1' });
const rssPack = rss();
// The kernel variants the points boot (Table 2's rows: the paper's kernel), loaded once and handed to every thread,
// as `vaxlab sweep` does.
const imagePath = findLabImage()!;
const kernels: Parameters<typeof threadExecutors>[4] = {};
for (const name of new Set(plan.points.flatMap((p) => (p.kernel === null ? [] : [p.kernel])))) {
  const variant = kernelByName(name);
  if (!variant) throw new Error(`kernel ${name}: not a variant the installer builds`);
  kernels[name] = await readKernel(kernelFileBeside(imagePath, variant.name), kernelResultName(name));
}
console.log(`${experiment} ${JSON.stringify(parameters)}${axes.length ? ` ${axes.map((x) => `${x.setting}=${x.values.join(',')}`).join(' ')}` : ''}: ` +
  `${plan.units.length} units; pack (${pack.format}) ${(pack.bytes.byteLength / MB).toFixed(0)} MB in shared memory (RSS ${rss0.toFixed(0)} -> ${rssPack.toFixed(0)} MB)`);

/** Seconds for `threads` threads each spinning the same loop: the control. */
async function control(threads: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: threads }, () => new Promise<void>((resolve, reject) => {
    const w = new Worker('let x = 0; for (let i = 0; i < 6e8; i++) x += i & 1; require("worker_threads").parentPort.postMessage(x);', { eval: true });
    w.on('message', () => void w.terminate().then(() => resolve()));
    w.on('error', reject);
  })));
  return (performance.now() - t0) / 1000;
}
const controls = new Map<number, number[]>();

const times = new Map<number, number[]>();
const peaks = new Map<number, number[]>();
let reference: string | null = null;
for (let round = 1; round <= rounds; round++) {
  for (const jobs of jobsList) {
    const before = load();
    const pool = threadExecutors(request, jobs, pack, { name: 'bench' }, kernels);
    let peak = rss();
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss());
    }, 50);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const ran = await runUnits(plan, plan.units.map((u) => u.index), pool.executors);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    await pool.close();
    const json = sweepJson(assembleSweep(plan, ran.outcomes, ran.stopped));
    reference ??= json;
    if (json !== reference) throw new Error(`the result on ${jobs} workers differs from the first run's`);
    times.set(jobs, [...(times.get(jobs) ?? []), seconds]);
    const spin = await control(jobs);
    controls.set(jobs, [...(controls.get(jobs) ?? []), spin]);
    peaks.set(jobs, [...(peaks.get(jobs) ?? []), peak]);
    console.log(`round ${round}, ${jobs} worker${jobs === 1 ? ' ' : 's'}: ${seconds.toFixed(2)} s host, ${cpuSeconds.toFixed(2)} s of CPU ` +
      `(${(cpuSeconds / seconds).toFixed(2)} cores busy); peak RSS ${peak.toFixed(0)} MB ` +
      `(${((peak - rssPack) / jobs).toFixed(0)} MB per worker above the pack); control loop ${spin.toFixed(2)} s; load ${before} -> ${load()}`);
  }
}
const base = jobsList[0]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const jobs of jobsList) {
  const t = times.get(jobs)!;
  console.log(`${jobs} worker${jobs === 1 ? ' ' : 's'}: mean ${mean(t).toFixed(2)} s, ` +
    `${(mean(t) / mean(times.get(base)!)).toFixed(2)} of ${base} worker${base === 1 ? '\'s' : 's\''} time ` +
    `(rounds: ${t.map((x, i) => (x / times.get(base)![i]!).toFixed(2)).join(', ')}); ` +
    `peak RSS ${Math.max(...peaks.get(jobs)!).toFixed(0)} MB; the control loop: ` +
    `${(mean(controls.get(jobs)!) / mean(controls.get(base)!)).toFixed(2)} of ${base} thread${base === 1 ? '\'s' : 's\''} time ` +
    `(${jobs} threads, ${jobs}x the work: 1.00 when ${jobs} cores were free, ${jobs}.00 when one was)`);
}
console.log('every run gave the same bytes');

// What a worker holding its own copy of the pack would add: one more copy in a wasm memory.
const api = await loadVaxNode();
const r1 = rss();
const copy = api.vax780.loadImage(await loadDiskImage(findLabImage()!));
const r2 = rss();
copy.dispose();
console.log(`one more copy of the pack in wasm memory: +${(r2 - r1).toFixed(0)} MB of RSS (what each worker would hold without sharing)`);
