// bench-cpu-chromium — the CPU benchmark's workload (emu/bench/workload.s) on
// the WebAssembly build in a Web Worker of headless Chromium, as the page runs
// the emulator, each run in a fresh browser context (so V8 compiles the
// module from scratch: Liftoff first, TurboFan once a function is hot).
//
//   node --import tsx scripts/bench-cpu-chromium.ts [--instructions N] [--slice N] [--runs N] [DIR [DIR2]]
//
// DIR holds a build's vax.mjs and vax.wasm (default emu/build/wasm).  With two
// directories the runs alternate (A B A B ..., after one warm-up run of each)
// and each pair's A/B ratio is printed, so two builds can be compared on a
// noisy machine.  A run's time is the worker's own (performance.now around the
// vax_run calls, after instantiation); the first slices' times show how long
// the worker runs before V8's optimised code takes over.  Every run must end
// with the same state digest, or the script fails.

import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { launchChromium } from './pageBench';
import { REPO_ROOT } from '../emu/js/vaxNode';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    instructions: { type: 'string', default: '20000000' },
    slice: { type: 'string', default: '4000000' },
    runs: { type: 'string', default: '5' },
  },
});
function whole(v: string, what: string): number {
  if (!/^[0-9]+$/.test(v) || Number(v) < 1) throw new Error(`--${what}: a whole number >= 1, not ${JSON.stringify(v)}`);
  return Number(v);
}
const INSTRUCTIONS = whole(values.instructions, 'instructions');
const SLICE = whole(values.slice, 'slice');
const RUNS = whole(values.runs, 'runs');
const dirs = (positionals.length ? positionals : [join(REPO_ROOT, 'emu/build/wasm')]).map((d) => resolve(d));
if (dirs.length > 2) throw new Error('at most two build directories');
for (const d of dirs) {
  for (const f of ['vax.mjs', 'vax.wasm']) if (!existsSync(join(d, f))) throw new Error(`${join(d, f)} not found: run "make -C emu wasm"`);
}
const workloadBin = join(REPO_ROOT, 'emu/build/workload.bin');
if (!existsSync(workloadBin)) throw new Error(`${workloadBin} not found: run "make -C emu native"`);
const workload = JSON.parse(readFileSync(join(REPO_ROOT, 'emu/build/workload.json'), 'utf8')) as Record<string, string | number>;
const num = (v: string | number | undefined, dflt: number): number => (v === undefined ? dflt : Number(v));
const setup = { load: num(workload.load, 0), pc: num(workload.pc, 0), psl: num(workload.psl, 0x041f0000), memMB: num(workload.mem, 8) };

// The worker: instantiate (the module fetches vax.wasm beside itself, streaming,
// as in the page), load the workload, run it in slices, report.
const WORKER = `
import createVaxModule from './vax.mjs';
onmessage = async (e) => {
  const { total, slice, load, pc, psl, memMB } = e.data;
  const t0 = performance.now();
  const mod = await createVaxModule({});
  const t1 = performance.now();
  const img = new Uint8Array(await (await fetch('/workload.bin')).arrayBuffer());
  const m = mod._vaxw_create(memMB * 1024 * 1024);
  const p = mod._malloc(img.length);
  mod.HEAPU8.set(img, p);
  mod._vax_phys_write(m, load, p, img.length);
  mod._free(p);
  mod._vax_set_reg(m, 15, pc);
  mod._vax_set_psl(m, psl);
  let left = BigInt(total);
  const step = BigInt(slice);
  const count = () => BigInt.asUintN(64, mod._vax_instruction_count(m));
  const slices = [];
  let reason = 0;
  const t2 = performance.now();
  while (left > 0n) {
    const before = count();
    const ts = performance.now();
    reason = mod._vax_run(m, left < step ? left : step);
    if (slices.length < 4) slices.push(performance.now() - ts);
    const done = count() - before;
    left = done >= left ? 0n : left - done;
    if (reason !== 0 || done === 0n) break;
  }
  const t3 = performance.now();
  postMessage({ instantiateMs: t1 - t0, runSeconds: (t3 - t2) / 1000, reason, executed: String(count()),
    digest: String(BigInt.asUintN(64, mod._vax_state_digest(m))), firstSlicesMs: slices });
  mod._vax_destroy(m);
};`;
const PAGE = `<!doctype html><meta charset="utf-8"><title>bench-cpu-chromium</title>
<script type="module">
const w = new Worker('./worker.js', { type: 'module' });
w.onmessage = (e) => { window.__result = e.data; };
w.onerror = (e) => { window.__result = { error: String(e.message) }; };
w.postMessage(${JSON.stringify({ total: String(INSTRUCTIONS), slice: String(SLICE), ...setup })});
</script>`;

// /b<k>/{index.html,worker.js,vax.mjs,vax.wasm}, /workload.bin; no caching.
function serve(port: number): Promise<Server> {
  const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', mjs: 'text/javascript', wasm: 'application/wasm', bin: 'application/octet-stream' };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    const m = /^\/b([01])\/(index\.html|worker\.js|vax\.mjs|vax\.wasm)$/.exec(path);
    let body: string | Buffer | null = null;
    if (path === '/workload.bin') body = readFileSync(workloadBin);
    else if (m && Number(m[1]) < dirs.length) {
      body = m[2] === 'index.html' ? PAGE : m[2] === 'worker.js' ? WORKER : readFileSync(join(dirs[Number(m[1])], m[2]));
    }
    if (body === null) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

interface RunResult { instantiateMs: number; runSeconds: number; reason: number; executed: string; digest: string; firstSlicesMs: number[]; error?: string }

const PORT = Number(process.env.BENCH_PORT ?? 4179);
const server = await serve(PORT);
const browser = await launchChromium();
let failed = false;
try {
  console.log(`chromium ${browser.version()}; ${INSTRUCTIONS} instructions in slices of ${SLICE}; ${RUNS} runs of each after one warm-up`);
  dirs.forEach((d, k) => console.log(`${'AB'[k]} = ${d}`));
  const times: number[][] = dirs.map(() => []);
  let digest: string | null = null;
  for (let i = 0; i <= RUNS; i++) {
    for (let k = 0; k < dirs.length; k++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${PORT}/b${k}/index.html`);
      await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, null, { timeout: 600_000, polling: 100 });
      const r = await page.evaluate(() => (window as unknown as { __result: RunResult }).__result);
      await context.close();
      if (r.error !== undefined) throw new Error(`worker: ${r.error}`);
      if (r.reason !== 0 || BigInt(r.executed) !== BigInt(INSTRUCTIONS)) throw new Error(`stopped early: reason ${r.reason} after ${r.executed} instructions`);
      if (digest !== null && r.digest !== digest) {
        console.error(`state digest ${r.digest} differs from the first run's ${digest}`);
        failed = true;
      }
      digest ??= r.digest;
      console.log(`${i === 0 ? 'warm-up' : `run ${i}`} ${'AB'[k]}: ${r.runSeconds.toFixed(3)} s (${(INSTRUCTIONS / r.runSeconds / 1e6).toFixed(1)} M/s); ` +
        `instantiate ${r.instantiateMs.toFixed(0)} ms; first slices ${r.firstSlicesMs.map((t) => t.toFixed(0)).join(', ')} ms`);
      if (i > 0) times[k].push(r.runSeconds);
    }
  }
  const median = (a: number[]): number => {
    const s = [...a].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  times.forEach((t, k) => console.log(`${'AB'[k]}: median ${median(t).toFixed(3)} s [${Math.min(...t).toFixed(3)}–${Math.max(...t).toFixed(3)}]`));
  if (dirs.length === 2) {
    const ratios = times[0].map((t, i) => t / times[1][i]);
    console.log(`A/B: median ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}], ${ratios.length} pairs`);
  }
  console.log(`state digest ${digest}`);
} finally {
  await browser.close();
  server.close();
}
process.exitCode = failed ? 1 : 0;
