// What a sweep's worker thread costs, started from its bundle or through tsx
// (experiments/runner/threadBundle.ts; npm run bench:threads; emu/docs/speed.md,
// "Worker threads without tsx"):
//
//   node --import tsx scripts/bench-threads.ts [--jobs N] [--rounds R]
//
// Each round runs one fresh process per loader, in turn (bundle, tsx, bundle,
// tsx ...: a change in the machine's load hits both alike), which starts N
// threads over the shared pack and reports: the time until every thread is
// ready (wasm loaded, pack opened, plan made); the process's RSS before the
// threads, with them idle, and after each has run one step of Table 2
// (divisor 4: the first N units); each thread's own heap (V8's heapUsed and
// heapTotal) at both points.  (The image's /vmunix: the paper's kernel is a file
// the threads would need to be given.)  The steps' results must be the same bytes for
// both loaders.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { findLabImage, loadSharedPack } from '../emu/js/vaxNode';
import { resultJson } from '../experiments/runner/result';
import { planSweep, runUnits, type SweepRequest } from '../experiments/runner/sweep';
import { threadExecutors, type ThreadLoader, type ThreadMemory } from '../experiments/runner/sweepNode';

const MB = 1024 * 1024;
const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : def;
};
const jobs = Number(opt('--jobs', '2'));
const rounds = Number(opt('--rounds', '3'));

interface ChildReport {
  loader: ThreadLoader;
  startSeconds: number;
  rssBefore: number;
  rssIdle: number;
  rssAfterStep: number;
  idle: ThreadMemory[];
  afterStep: ThreadMemory[];
  stepSeconds: number;
  resultsSha256: string;
}

async function child(loader: ThreadLoader): Promise<ChildReport> {
  const request: SweepRequest = { experiment: 'table2', axes: [], base: { parameters: { divisor: 4 }, set: {}, kernel: 'vmunix' } };
  const plan = planSweep(request);
  const pack = await loadSharedPack(findLabImage()!);
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const pool = threadExecutors(request, jobs, pack, { name: 'bench' }, {}, loader);
  try {
    const idle = await pool.memory();
    const startSeconds = (performance.now() - t0) / 1000;
    const rssIdle = process.memoryUsage().rss;
    const t1 = performance.now();
    const ran = await runUnits(plan, plan.units.slice(0, jobs).map((u) => u.index), pool.executors, { progressMs: 0 });
    const stepSeconds = (performance.now() - t1) / 1000;
    const afterStep = await pool.memory();
    const rssAfterStep = process.memoryUsage().rss;
    const hash = createHash('sha256');
    for (const u of [...ran.outcomes.keys()].sort((a, b) => a - b)) {
      const o = ran.outcomes.get(u)!;
      hash.update('result' in o ? resultJson(o.result) : `error ${'error' in o ? o.error : '?'}`);
    }
    const starts = pool.starts();
    if (starts.some((s) => s.loader !== loader)) throw new Error(`asked for ${loader}, the threads started from ${starts.map((s) => s.loader).join(', ')}`);
    return { loader, startSeconds, rssBefore, rssIdle, rssAfterStep, idle, afterStep, stepSeconds, resultsSha256: hash.digest('hex') };
  } finally {
    await pool.close();
  }
}

if (args.includes('--child')) {
  console.log(JSON.stringify(await child(opt('--loader', 'bundle') as ThreadLoader)));
} else {
  const self = fileURLToPath(import.meta.url);
  const reports: ChildReport[] = [];
  const f = (x: number) => (x / MB).toFixed(1);
  const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`${jobs} threads, table2 divisor=4 (one step each), ${rounds} rounds; ${new Date().toISOString()}, load ${load()}`);
  for (let round = 1; round <= rounds; round++) {
    for (const loader of ['bundle', 'tsx'] as const) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', '--loader', loader, '--jobs', String(jobs)],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      const r = JSON.parse(out.trim().split('\n').pop()!) as ChildReport;
      reports.push(r);
      const heap = (ms: ThreadMemory[]) => ms.map((m) => `${f(m.heapUsed)}/${f(m.heapTotal)}`).join(', ');
      console.log(`round ${round} ${loader.padEnd(6)}: ${jobs} threads ready in ${r.startSeconds.toFixed(2)} s; RSS ${f(r.rssBefore)} MB -> ` +
        `${f(r.rssIdle)} idle (+${f((r.rssIdle - r.rssBefore) / jobs)} a thread) -> ${f(r.rssAfterStep)} after a step ` +
        `(+${f((r.rssAfterStep - r.rssBefore) / jobs)} a thread); heap used/total a thread, MB: idle ${heap(r.idle)}; after ${heap(r.afterStep)}; ` +
        `step ${r.stepSeconds.toFixed(2)} s; load ${load()}`);
    }
  }
  if (new Set(reports.map((r) => r.resultsSha256)).size !== 1) throw new Error('the steps\' results differ between runs');
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  for (const loader of ['bundle', 'tsx'] as const) {
    const rs = reports.filter((r) => r.loader === loader);
    const perThread = (pick: (r: ChildReport) => number) => median(rs.map(pick)) / MB;
    const heapOf = (pick: (r: ChildReport) => ThreadMemory[], key: 'heapUsed' | 'heapTotal') => median(rs.flatMap((r) => pick(r).map((m) => m[key]))) / MB;
    console.log(`${loader.padEnd(6)} medians: ready ${median(rs.map((r) => r.startSeconds)).toFixed(2)} s; RSS a thread ` +
      `${perThread((r) => (r.rssIdle - r.rssBefore) / jobs).toFixed(1)} MB idle, ${perThread((r) => (r.rssAfterStep - r.rssBefore) / jobs).toFixed(1)} MB after a step; ` +
      `heap used a thread ${heapOf((r) => r.idle, 'heapUsed').toFixed(1)} idle / ${heapOf((r) => r.afterStep, 'heapUsed').toFixed(1)} after (total ` +
      `${heapOf((r) => r.idle, 'heapTotal').toFixed(1)} / ${heapOf((r) => r.afterStep, 'heapTotal').toFixed(1)}) MB; step ${median(rs.map((r) => r.stepSeconds)).toFixed(2)} s`);
  }
  console.log('every run gave the same bytes');
}
