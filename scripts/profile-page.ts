// Where the page's time goes while it runs an experiment: CPU profiles (the
// DevTools protocol's sampling profiler) of the lab's Web Worker and of the
// page's main thread, taken together in headless Chromium (Debian's, as the
// e2e tests drive it) over one run, and each broken down by kind of work.
//
//   node --import tsx scripts/profile-page.ts [--experiment table2] [--divisor N] [--interval-us 1000]
//        [--out DIR] [--keep-minified | --dist BUILD] [--no-profile] [--trace]
//   node --import tsx scripts/profile-page.ts --analyze DIR     (the tables again, from a DIR written before)
//
// The page is built unminified, with source maps, into a directory of its own
// (web/dist is left alone) so that each sampled JavaScript frame can be put
// in its source module.  --keep-minified profiles web/dist as it is (module
// names then come only from the file: every module of a chunk counts as the
// chunk); --dist BUILD profiles another build directory as it is (say, a
// version before a change: two builds run in turn, with --no-profile, give
// the page's host time and each thread's CPU time of each).  --divisor
// fills the experiment's divisor parameter (a shorter run; the split of the
// time is what matters here).  The profiles are written to DIR (default a new
// directory under /tmp) as .cpuprofile files, which DevTools' Performance
// panel opens, with the breakdowns printed here.  Whatever is profiled, the
// CPU time of each of the browser's threads over the run is printed too (from
// /proc): the worker's against the page's own threads (main, compositor, V8's
// background work), which share the machine's cores with it.
//
// --trace records a DevTools timeline trace over the run as well (trace.json)
// and sums the page's rendering work in it (style, layout, paint): what the
// main thread's profile counts as "(program)".
//
// The worker's profile is taken through the page's own DevTools session:
// dedicated workers are auto-attached to it (non-flat sessions, commands and
// replies wrapped in Target.sendMessageToTarget / receivedMessageFromTarget).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import type { CDPSession } from '@playwright/test';
import { descendantPids, launchChromium, startPreview } from './pageBench';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    experiment: { type: 'string', default: 'table2' },
    divisor: { type: 'string' },
    'interval-us': { type: 'string', default: '1000' },
    out: { type: 'string' },
    'keep-minified': { type: 'boolean', default: false },
    dist: { type: 'string' },
    'no-profile': { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4179' },
    analyze: { type: 'string' },
  },
});
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}`;

// ---------------------------------------------------------------- the build and its server

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}`))));
  });
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A script's source map, as lines of [generated column, source index] (only what finding a frame's module needs). */
interface SourceLines { sources: string[]; lines: [number, number, number][][] }

/** Decodes a source map's mappings (base64 VLQ): per generated line, each segment's column and source. */
function decodeSourceMap(map: { sources: string[]; mappings: string }): SourceLines {
  const lines: [number, number, number][][] = [];
  let source = 0;
  let sourceLine = 0;
  for (const line of map.mappings.split(';')) {
    const segments: [number, number, number][] = [];
    let column = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = BASE64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
        } else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0]!;
      if (fields.length >= 4) {
        source += fields[1]!;
        sourceLine += fields[2]!;
        segments.push([column, source, sourceLine]);
      }
    }
    lines.push(segments);
  }
  return { sources: map.sources.map((s) => s.replace(/^(\.\.\/)+/, '')), lines };
}

/** The source maps of the build's scripts, by file name (a build made with --sourcemap). */
function sourceMaps(outDir: string): Map<string, SourceLines> {
  const byFile = new Map<string, SourceLines>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js.map')) byFile.set(e.name.slice(0, -4), decodeSourceMap(JSON.parse(readFileSync(p, 'utf8'))));
    }
  };
  walk(outDir);
  return byFile;
}

// ---------------------------------------------------------------- profiles

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; parent?: number; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** A DevTools session to the worker through the page's session (non-flat: messages wrapped). */
class WorkerSession {
  private next = 1;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  constructor(private readonly page: CDPSession, readonly sessionId: string) {
    page.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
      if (e.sessionId !== this.sessionId) return;
      const m = JSON.parse(e.message) as { id?: number; result?: unknown; error?: { message: string } };
      if (m.id === undefined) return;
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error.message));
      else p?.resolve(m.result);
    });
  }
  send<T>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      void this.page.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(reject);
    });
  }
}

/** Each sample's stack, leaf first, with the time it stands for (µs). */
/** A span of a profile's clock (µs; the worker's and the page's profilers share it: one process). */
interface Span { from: number; to: number }

/** When the worker was busy: from its first sample that is not idle to its last (before, the run had not started;
 *  after, it was over and the page had not yet noticed). */
function busySpan(profile: Profile): Span {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let t = profile.startTime;
  let from = Infinity;
  let to = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (idle.has(profile.samples[i]!)) continue;
    from = Math.min(from, t);
    to = t;
  }
  return { from, to };
}

/** Each sample's stack within `span`, leaf first, with the time it stands for (µs). */
function* stacks(profile: Profile, span: Span): Generator<{ stack: ProfileNode[]; us: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, ProfileNode[]>();
  const stackOf = (id: number): ProfileNode[] => {
    let s = cache.get(id);
    if (!s) {
      s = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) s.push(byId.get(at)!);
      s.pop(); // (root)
      cache.set(id, s);
    }
    return s;
  };
  // timeDeltas[i] is the time before sample i: sample i stands for the time up to the next one.
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < span.from || t > span.to) continue;
    const us = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1]! : 0;
    yield { stack: stackOf(profile.samples[i]!), us };
  }
}

type Modules = Map<string, SourceLines>;
/** Where a frame's function is: its source module and line (from the source map), else its script. */
function placeOf(frame: CallFrame, modules: Modules): { module: string; line: number } {
  if (frame.url.startsWith('wasm://') || /\.wasm(\?|$)/.test(frame.url)) return { module: 'wasm', line: 0 };
  if (!frame.url) return { module: '', line: 0 };
  const file = frame.url.split('/').pop()!.split('?')[0]!;
  const map = modules.get(file);
  const segments = map?.lines[frame.lineNumber];
  let found: [number, number, number] | undefined;
  for (const segment of segments ?? []) {
    if (segment[0] > frame.columnNumber) break;
    found = segment;
  }
  if (!found) return { module: file, line: frame.lineNumber + 1 };
  return { module: (map!.sources[found[1]] ?? file).replace(/^.*?\/(web|experiments|emu|node_modules)\//, '$1/'), line: found[2] + 1 };
}

/** A frame's source module ('wasm' for the emulator's functions, '' for a native one). */
function moduleOf(frame: CallFrame, modules: Modules): string {
  return placeOf(frame, modules).module;
}

/** A frame as the tables name it: function (module:line). */
function frameName(frame: CallFrame, modules: Modules): string {
  const { module, line } = placeOf(frame, modules);
  return `${frame.functionName || '(anonymous)'} (${module || 'native'}${module ? `:${line}` : ''})`;
}

function table(title: string, totals: Map<string, number>, all: number): void {
  console.log(`\n${title}  (total ${(all / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    if (us / all < 0.001) continue;
    console.log(`  ${((100 * us) / all).toFixed(1).padStart(5)} %  ${(us / 1e6).toFixed(2).padStart(7)} s  ${k}`);
  }
}

function add(m: Map<string, number>, k: string, us: number): void {
  m.set(k, (m.get(k) ?? 0) + us);
}

/** The worker's time: the emulator (wasm), JavaScript by module (leaf frame's module; a native function called from
 *  JavaScript, e.g. postMessage, counts as itself), GC, idle (waiting for a message), and the rest. */
function workerBreakdown(profile: Profile, modules: Modules, span: Span): void {
  const kinds = new Map<string, number>();
  const js = new Map<string, number>();
  const natives = new Map<string, number>();
  const jsFunctions = new Map<string, number>();
  let all = 0;
  for (const { stack, us } of stacks(profile, span)) {
    all += us;
    const leaf = stack[0];
    if (!leaf) continue;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)' || name === '(garbage collector)' || name === '(program)') {
      add(kinds, name, us);
      continue;
    }
    const mod = moduleOf(leaf.callFrame, modules);
    if (mod === 'wasm') {
      add(kinds, 'WebAssembly (the emulator)', us);
      continue;
    }
    if (mod === '') {
      // A native function or builtin called from JavaScript: named, and put with its caller's module.
      const caller = stack.find((f) => f.callFrame.url);
      add(natives, `${name || '(anonymous native)'} ← ${caller ? moduleOf(caller.callFrame, modules) : '?'}`, us);
      add(kinds, 'native functions called from JavaScript', us);
      continue;
    }
    add(kinds, 'JavaScript', us);
    add(js, mod, us);
    add(jsFunctions, frameName(leaf.callFrame, modules), us);
  }
  table('Worker: kinds of work (leaf frame of each sample)', kinds, all);
  table('Worker: JavaScript by source module', js, all);
  table('Worker: JavaScript functions (self time)', new Map([...jsFunctions].sort((a, b) => b[1] - a[1]).slice(0, 25)), all);
  table('Worker: native functions called from JavaScript', natives, all);
  inclusive('Worker', profile, all, modules, span);
}

/** Inclusive time of the functions a sample's stack holds (each counted once per sample), the 30 largest that are
 *  not the emulator's. */
function inclusive(thread: string, profile: Profile, all: number, modules: Modules, span: Span): void {
  const inc = new Map<string, number>();
  for (const { stack, us } of stacks(profile, span)) {
    const seen = new Set<string>();
    for (const f of stack) {
      if (moduleOf(f.callFrame, modules) === 'wasm') continue;
      const k = frameName(f.callFrame, modules);
      if (seen.has(k)) continue;
      seen.add(k);
      add(inc, k, us);
    }
  }
  table(`${thread}: inclusive time of JavaScript and native functions (top 30)`,
    new Map([...inc].sort((a, b) => b[1] - a[1]).slice(0, 30)), all);
}

/** The main thread's areas of code, by source module: a sample counts for the innermost frame of its stack that is
 *  in one (the chart's own code and d3 before React, which calls it from an effect). */
const MAIN_AREAS: [RegExp, string][] = [
  [/node_modules\/d3|web\/src\/lab\/charts|ChartViews/, 'D3 charts (d3 and lab/charts)'],
  [/node_modules\/@xterm|XtermView|TerminalPanel/, 'xterm'],
  [/node_modules\/(react|react-dom|scheduler)\//, 'React (react-dom, scheduler)'],
  [/web\/src\/lab\/components/, 'React components (lab/components)'],
  [/web\/src\/lab\/state|web\/src\/lab\/controller/, 'lab state and message handling (lab/state, controller)'],
  [/web\/src|experiments\//, 'other app code'],
];

/** The main thread's time by what it was doing: its areas of code (MAIN_AREAS), GC, idle, and "(program)" (the
 *  browser's own work outside JavaScript: style, layout, paint; --trace splits it). */
function mainBreakdown(profile: Profile, modules: Modules, span: Span): void {
  const areas = new Map<string, number>();
  const innermost = new Map<string, number>();
  const functions = new Map<string, number>();
  let all = 0;
  for (const { stack, us } of stacks(profile, span)) {
    all += us;
    const leaf = stack[0];
    if (!leaf) continue;
    add(functions, frameName(leaf.callFrame, modules), us);
    const name = leaf.callFrame.functionName;
    if (name === '(idle)' || name === '(garbage collector)' || name === '(program)') {
      add(areas, name, us);
      continue;
    }
    const mods = stack.map((f) => moduleOf(f.callFrame, modules)).filter((m) => m !== '');
    add(innermost, mods[0] ?? `${name} (native)`, us);
    const area = mods.map((m) => MAIN_AREAS.find(([re]) => re.test(m))?.[1]).find((a) => a !== undefined);
    add(areas, area ?? `other JavaScript (${mods[0] ?? (name || 'a native function')})`, us);
  }
  table('Main thread: by area (innermost frame of a known area)', areas, all);
  table('Main thread: functions (self time, top 30)', new Map([...functions].sort((a, b) => b[1] - a[1]).slice(0, 30)), all);
  table('Main thread: JavaScript by source module (innermost JavaScript frame)', innermost, all);
  inclusive('Main thread', profile, all, modules, span);
}

// ---------------------------------------------------------------- threads' CPU time

/** CPU time (s, user + system) of every thread of every process below `root`, by process type and thread name
 *  (Chromium names its threads: the page's is CrRendererMain, a worker's DedicatedWorker thread). */
function threadTimes(rootPid: number): Map<string, number> {
  const tick = 100; // USER_HZ on Linux
  const out = new Map<string, number>();
  for (const c of descendantPids(rootPid)) {
    try {
      const cmd = readFileSync(`/proc/${c}/cmdline`, 'utf8');
      const type = /--type=([\w-]+)/.exec(cmd)?.[1] ?? (cmd.includes('chrom') ? 'browser' : cmd.split('\0')[0]!.split('/').pop()!);
      for (const t of readdirSync(`/proc/${c}/task`)) {
        const stat = readFileSync(`/proc/${c}/task/${t}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const seconds = (Number(f[11]) + Number(f[12])) / tick; // utime, stime
        // Each worker on its own line (a pool's workers too); other threads by kind.
        const key = `${type} ${c}: ${name.startsWith('DedicatedWorker') ? `${name} ${t}` : name.replace(/\d+$/, '')}`;
        out.set(key, (out.get(key) ?? 0) + seconds);
      }
    } catch {
      // gone
    }
  }
  return out;
}

function threadTable(before: Map<string, number>, after: Map<string, number>, wallSeconds: number): void {
  const rows = [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, d]) => d >= 0.01)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((t, [, d]) => t + d, 0);
  console.log(`\nCPU time of the browser's (and its server's) threads over the run (from /proc; ${wallSeconds.toFixed(2)} s of wall ` +
    `time, ${total.toFixed(2)} s of CPU in all)`);
  for (const [k, d] of rows) console.log(`  ${d.toFixed(2).padStart(7)} s  ${((100 * d) / wallSeconds).toFixed(0).padStart(4)} % of the wall  ${k}`);
}

// ---------------------------------------------------------------- the trace

interface TraceEvent { name: string; ph: string; pid: number; tid: number; dur?: number; args?: { name?: string } }
type TraceFile = { traceEvents: TraceEvent[] } | TraceEvent[];

/** The main thread's rendering work in a timeline trace, by kind (the events' own durations; they do not nest). */
function renderingTable(trace: TraceFile, wallSeconds: number): void {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid} ${e.tid}`));
  const kinds = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'UpdateLayer', 'HitTest', 'ParseHTML',
    'ScheduleStyleRecalculation', 'Commit'];
  const sums = new Map<string, number>();
  for (const e of events) {
    if (e.ph !== 'X' || !kinds.includes(e.name) || !mains.has(`${e.pid} ${e.tid}`)) continue;
    add(sums, e.name, e.dur ?? 0);
  }
  table(`Main thread: rendering work in the trace (of ${wallSeconds.toFixed(2)} s)`, sums, wallSeconds * 1e6);
}

// ---------------------------------------------------------------- main

/** What the page's tap of the worker's messages (the init script below) has seen: window.__profile. */
interface Tap { ready?: boolean; done?: { hostSeconds: number; status: string }; error?: string }
type TappedWindow = { __profile: Tap };

async function main(): Promise<void> {
  if (values.analyze) {
    // Profiles taken before (DIR holds them and the build they were taken of): the tables again.
    const modules = sourceMaps(join(values.analyze, 'dist'));
    const worker = JSON.parse(readFileSync(join(values.analyze, 'worker.cpuprofile'), 'utf8')) as Profile;
    const span = busySpan(worker);
    workerBreakdown(worker, modules, span);
    mainBreakdown(JSON.parse(readFileSync(join(values.analyze, 'main.cpuprofile'), 'utf8')) as Profile, modules, span);
    return;
  }
  const out = values.out ?? mkdtempSync(join(tmpdir(), 'profile-page-'));
  mkdirSync(out, { recursive: true });
  let outDir = values.dist ?? join(root, 'web/dist');
  if (!values['keep-minified'] && !values.dist) {
    outDir = join(out, 'dist');
    await run(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', '--minify', 'false', '--sourcemap', 'true', '--outDir', outDir]);
  }
  const modules = sourceMaps(outDir);
  const server = await startPreview(root, PORT, outDir);
  // However this process ends (its output's reader gone too), the server goes with it.
  process.on('exit', () => server.kill());
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript({
      content: `(() => { const T = window.__profile = {}; const N = window.Worker;
        window.Worker = class extends N { constructor(u, o) { super(u, o); this.addEventListener('message', (e) => {
          const m = e.data; if (!m || typeof m !== 'object') return;
          if (m.type === 'ready') T.ready = true;
          if (m.type === 'run-done') T.done = { hostSeconds: m.hostSeconds, status: m.result.status };
          if (m.type === 'run-error') T.error = m.message; }); } }; })();`,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const workers: WorkerSession[] = [];
    cdp.on('Target.attachedToTarget', (e: { sessionId: string; targetInfo: { type: string; url: string } }) => {
      if (e.targetInfo.type === 'worker') workers.push(new WorkerSession(cdp, e.sessionId));
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    await page.goto(`${BASE}/`);
    await page.getByTestId(`experiment-${values.experiment}`).click();
    if (values.divisor) await page.getByTestId('param-divisor').fill(values.divisor);
    // (These functions run in the page: they name the tap themselves.)
    await page.waitForFunction(() => (window as unknown as TappedWindow).__profile.ready, null, { timeout: 120_000 });
    const worker = workers[0];
    if (!worker) throw new Error('no worker attached');
    const interval = Number(values['interval-us']);
    const profiling = !values['no-profile'];
    if (profiling) {
      await worker.send('Profiler.enable');
      await worker.send('Profiler.setSamplingInterval', { interval });
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval });
      await worker.send('Profiler.start');
      await cdp.send('Profiler.start');
    }
    if (values.trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.stack', 'blink'], path: join(out, 'trace.json') });
    const started = new Date();
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const cpuBefore = threadTimes(process.pid);
    const t0 = performance.now();
    await page.getByTestId('run-button').click();
    await page.waitForFunction(() => {
      const t = (window as unknown as TappedWindow).__profile;
      return t.done ?? t.error;
    }, null, { timeout: 1_800_000, polling: 250 });
    const cpuAfter = threadTimes(process.pid);
    const wall = (performance.now() - t0) / 1000;
    const t = await page.evaluate(() => (window as unknown as TappedWindow).__profile);
    if (!t.done) throw new Error(`the run failed: ${t.error}`);
    console.log(`${values.experiment}${values.divisor ? ` / ${values.divisor}` : ''} in the page, started ${started.toISOString()} ` +
      `(load average ${load}): host ${t.done.hostSeconds.toFixed(2)} s (the worker's own figure), ${t.done.status}; ` +
      `${values.dist ?? (values['keep-minified'] ? 'web/dist' : 'unminified build')}` +
      (profiling ? `; sampling every ${interval} µs; profiles in ${out}` : '; not profiled'));
    threadTable(cpuBefore, cpuAfter, wall);
    if (values.trace) renderingTable(JSON.parse((await browser.stopTracing()).toString('utf8')) as TraceFile, wall);
    if (profiling) {
      const { profile: workerProfile } = await worker.send<{ profile: Profile }>('Profiler.stop');
      const { profile: mainProfile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      writeFileSync(join(out, 'worker.cpuprofile'), JSON.stringify(workerProfile));
      writeFileSync(join(out, 'main.cpuprofile'), JSON.stringify(mainProfile));
      const span = busySpan(workerProfile);
      workerBreakdown(workerProfile, modules, span);
      mainBreakdown(mainProfile, modules, span);
    }
    await context.close();
  } finally {
    await browser.close();
    server.kill();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
