// The web figures (npm run bench:web): headless Chromium (Debian's, as the
// e2e tests use it) against the production build served by `vite preview`.
//
//   node --import tsx scripts/bench-web.ts [--runs N] [--iterations N] [--ips-divisor N] [--build]
//   node --import tsx scripts/bench-web.ts --terminal-only [--runs N] [--build]
//
// Measures, each time in a fresh browser context (cold HTTP cache, no storage):
//   - the page: navigation to the worker's "ready" (emulator and 4.3BSD image loaded),
//     and again after a reload in the same context (warm HTTP cache);
//   - the lab: navigation (Run pressed as soon as the page is ready) to the
//     first boot message ("4.3 BSD UNIX") on the run's console, and to the
//     single-user shell's prompt; syscall with --iterations (default 100000, the paper's);
//   - the terminal: navigation (Terminal tab opened at once) to the first
//     output, the multi-user "login:" and, after typing root, the shell prompt;
//   - VAX instructions per host second in the worker, from the worker's own
//     meter (its "speed" messages, once a second while a machine runs) during
//     a longer run: table2 with every count divided by --ips-divisor (default 3);
//   - the size of the JS and wasm shipped (web/dist), raw and gzip.
// --terminal-only measures the terminal alone (--runs fresh contexts, default 3),
// with its steps: when the page asked for the machine, the worker's ready,
// "login:", when the first keystroke of "root" went to the worker, the prompt,
// and when "login:" and the prompt were on the screen (the xterm's rows).
// Times come from the worker's messages as the page receives them (an init
// script taps `Worker`; see web/src/worker/protocol.ts), or from
// window.__vaxlab.stats() when the page offers it.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { launchChromium, startPreview } from './pageBench';
import type { Browser, Page } from '@playwright/test';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'web/dist');
const PORT = Number(process.env.BENCH_PORT ?? 4178);
const BASE = `http://127.0.0.1:${PORT}`;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name}: a whole number >= 1`);
  return v;
}
const RUNS = arg('runs', 3);
const ITERATIONS = arg('iterations', 100_000);
const IPS_DIVISOR = arg('ips-divisor', 3);
/** Only the terminal's figures, with where its time goes (--runs fresh contexts). */
const TERMINAL_ONLY = process.argv.includes('--terminal-only');

// ---------------------------------------------------------------- sizes

interface SizeRow { file: string; raw: number; gzip: number }

function shippedSizes(): SizeRow[] {
  const out: SizeRow[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(js|mjs|wasm|css|html)$/.test(name)) {
        const bytes = readFileSync(path);
        out.push({ file: relative(dist, path), raw: bytes.length, gzip: gzipSync(bytes, { level: 6 }).length });
      }
    }
  };
  walk(dist);
  return out.sort((a, b) => b.raw - a.raw);
}

// ---------------------------------------------------------------- the server


// ---------------------------------------------------------------- the tap

interface Tap {
  marks: Record<string, number>;
  ready?: { wasmMs: number; imageMs: number; image: { bytes: number; compressedBytes: number } };
  speed: { t: number; ips: number; run: boolean; terminal: boolean }[];
  runDone?: { hostSeconds: number; status: string; instructions: number };
  stats?: unknown;
}

/**
 * Runs in the page before its scripts: records the worker's messages with
 * performance.now() (ms since navigation).  Plain JavaScript in a string:
 * tsx's helpers (__name) do not exist in the page.
 */
const TAP = `(() => {
  const T = { marks: {}, speed: [], console: '', term: '' };
  window.__bench = T;
  const mark = (k, t) => { if (T.marks[k] === undefined) T.marks[k] = t; };
  const Native = window.Worker;
  window.Worker = class extends Native {
    postMessage(m, ...rest) {
      const t = performance.now();
      if (m && m.type === 'terminal-start' && T.marks.termStart === undefined) {
        mark('termStart', t);
        // What the terminal shows (its xterm's rows), looked at every 5 ms from now on: when "login:" and the
        // prompt after root are on the screen.
        const shown = setInterval(() => {
          const rows = document.querySelector('[data-testid="terminal"] .xterm-rows');
          if (!rows) return;
          const text = Array.from(rows.children, (r) => r.textContent.trimEnd()).join('\\n').trimEnd();
          const now = performance.now();
          if (/login:$/.test(text)) mark('termLoginShown', now);
          if (/login: root[^]*# *$/.test(text)) {
            mark('termPromptShown', now);
            clearInterval(shown);
          }
        }, 5);
      }
      // The first keystroke of the login name reaching the worker.
      if (m && m.type === 'terminal-input' && T.marks.termLogin !== undefined) {
        mark('termTyped', t);
        if (m.text.includes('\\r')) mark('termEnter', t);
      }
      return super.postMessage(m, ...rest);
    }
    constructor(url, opts) {
      super(url, opts);
      mark('workerCreated', performance.now());
      this.addEventListener('message', (e) => {
        const m = e.data;
        const t = performance.now();
        if (!m || typeof m !== 'object') return;
        switch (m.type) {
          case 'loading':
            mark('loading-' + m.phase, t);
            break;
          case 'ready':
            if (m.kernel === '4.3BSD' || m.kernel === undefined) {
              mark('ready', t);
              T.ready = { wasmMs: m.wasmMs, imageMs: m.imageMs, image: m.image };
            }
            break;
          case 'run-started':
            mark('runStarted', t);
            break;
          case 'run-console': {
            mark('runConsole', t);
            T.console += m.text;
            const banner = T.console.indexOf('4.3 BSD UNIX');
            if (banner >= 0) mark('runBanner', t);
            if (banner >= 0 && T.console.indexOf('\\n# ', banner) >= 0) mark('runPrompt', t);
            break;
          }
          case 'run-done':
            mark('runDone', t);
            T.runDone = {
              hostSeconds: m.hostSeconds,
              status: m.result.status,
              instructions: m.result.rows.reduce((n, r) => n + Number((r.emulator && (r.emulator.machineInstructions || r.emulator.instructions)) || 0), 0),
            };
            break;
          case 'terminal-output': {
            mark('termOutput', t);
            T.term += m.text;
            if (T.term.includes('4.3 BSD UNIX')) mark('termBanner', t);
            if (/login: $/.test(T.term)) mark('termLogin', t);
            const login = T.term.indexOf('login: root');
            if (login >= 0 && /# $/.test(T.term.slice(login))) mark('termPrompt', t);
            break;
          }
          case 'speed':
            T.speed.push({ t, ips: m.instructionsPerSecond, run: !!(m.running && m.running.run), terminal: !!(m.running && m.running.terminal) });
            break;
        }
      });
    }
  };
})();`;

async function readTap(page: Page): Promise<Tap> {
  return page.evaluate(() => {
    const w = window as any;
    const T = w.__bench;
    return { marks: T.marks, ready: T.ready, speed: T.speed, runDone: T.runDone, stats: w.__vaxlab?.stats?.() };
  });
}

/** The mark's time, once there (looked for every `pollMs`). */
async function waitMark(page: Page, name: string, timeoutMs: number, pollMs = 20): Promise<number> {
  const handle = await page.waitForFunction((k) => (window as any).__bench?.marks[k], name, { timeout: timeoutMs, polling: pollMs });
  return (await handle.jsonValue()) as number;
}

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript({ content: TAP });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`  page error: ${e.message}`));
  return page;
}

// ---------------------------------------------------------------- the measurements

interface LabFigures { ready: number; wasmMs: number; imageMs: number; imageBytes: number; banner: number; prompt: number; done: number; hostSeconds: number }

async function labRun(browser: Browser): Promise<LabFigures> {
  const page = await freshPage(browser);
  await page.goto(`${BASE}/`);
  await page.getByTestId('experiment-syscall').click();
  await page.getByTestId('param-iterations').fill(String(ITERATIONS));
  const ready = await waitMark(page, 'ready', 120_000);
  await page.getByTestId('run-button').click();
  const banner = await waitMark(page, 'runBanner', 60_000);
  const prompt = await waitMark(page, 'runPrompt', 60_000);
  const done = await waitMark(page, 'runDone', 300_000);
  const t = await readTap(page);
  await page.context().close();
  return {
    ready, wasmMs: t.ready!.wasmMs, imageMs: t.ready!.imageMs, imageBytes: t.ready!.image.bytes, banner, prompt, done,
    hostSeconds: t.runDone!.hostSeconds,
  };
}

/** Navigation to "ready" after a reload of a page that was ready (the HTTP cache warm). */
async function warmReady(browser: Browser): Promise<number> {
  const page = await freshPage(browser);
  await page.goto(`${BASE}/`);
  await waitMark(page, 'ready', 120_000);
  await page.reload();
  const ready = await waitMark(page, 'ready', 120_000);
  await page.context().close();
  return ready;
}

interface TermFigures {
  /** From navigation start: the tab clicked (as the bench saw the click return), terminal-start posted, the worker
   *  ready, the first output, the kernel banner, "login:", the first key and the Enter of "root" posted to the
   *  worker, the shell's prompt (as their messages reach the page). */
  clicked: number; start: number; ready: number; output: number; banner: number; login: number; typed: number; enter: number;
  prompt: number;
  /** "login:" and the prompt on the screen (the xterm's rows). */
  loginShown: number; promptShown: number;
}

async function terminalRun(browser: Browser): Promise<TermFigures> {
  const page = await freshPage(browser);
  await page.goto(`${BASE}/`);
  await page.getByTestId('tab-terminal').click();
  const clicked = await page.evaluate(() => performance.now());
  // Focused while the machine comes up (the tab focuses it too), so that "root" is typed as soon as "login:" is seen.
  await page.getByTestId('terminal').click();
  const output = await waitMark(page, 'termOutput', 120_000);
  const banner = await waitMark(page, 'termBanner', 120_000);
  const login = await waitMark(page, 'termLogin', 300_000, 5);
  await page.keyboard.type('root');
  await page.keyboard.press('Enter');
  const prompt = await waitMark(page, 'termPrompt', 60_000);
  await waitMark(page, 'termPromptShown', 10_000, 5);
  const t = await readTap(page);
  await page.context().close();
  return { clicked, start: t.marks.termStart!, ready: t.marks.ready!, output, banner, login, typed: t.marks.termTyped!, enter: t.marks.termEnter!, prompt,
    loginShown: t.marks.termLoginShown!, promptShown: t.marks.termPromptShown! };
}

interface IpsFigures { median: number; max: number; samples: number; wholeRun: number; hostSeconds: number; instructions: number }

async function ipsRun(browser: Browser): Promise<IpsFigures> {
  const page = await freshPage(browser);
  await page.goto(`${BASE}/`);
  await page.getByTestId('experiment-table2').click();
  await page.getByTestId('param-divisor').fill(String(IPS_DIVISOR));
  await waitMark(page, 'ready', 120_000);
  await page.getByTestId('run-button').click();
  await waitMark(page, 'runDone', 600_000);
  const t = await readTap(page);
  await page.context().close();
  // Whole seconds with a run going (the first and last are partly idle).
  const during = t.speed.filter((s) => s.run && s.ips > 0).map((s) => s.ips);
  const inner = during.length > 2 ? during.slice(1, -1) : during;
  return {
    median: median(inner),
    max: Math.max(0, ...during),
    samples: inner.length,
    wholeRun: t.runDone!.instructions / t.runDone!.hostSeconds,
    hostSeconds: t.runDone!.hostSeconds,
    instructions: t.runDone!.instructions,
  };
}

// ---------------------------------------------------------------- printing

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

function stat(xs: number[]): string[] {
  return [sec(median(xs)), sec(Math.min(...xs)), sec(Math.max(...xs))];
}

/** --terminal-only: the terminal's start, RUNS times, with its steps. */
async function terminalOnly(browser: Browser, version: string): Promise<void> {
  const terms: TermFigures[] = [];
  for (let i = 0; i < RUNS; i++) {
    terms.push(await terminalRun(browser));
    const t = terms[i]!;
    console.log(`run ${i + 1}/${RUNS}: ready ${sec(t.ready)}, login: ${sec(t.login)}, typed ${sec(t.typed)}, prompt ${sec(t.prompt)}`);
  }
  console.log(`\nthe Terminal tab: Chromium ${version} headless, vite preview of web/dist, ${RUNS} fresh contexts (cold cache); ` +
    'the tab opened as soon as it is there, "root" typed at "login:"; from navigation start (median, min, max)\n');
  console.log(table(['', 'median', 'min', 'max'], [
    ['the tab clicked (as the bench saw it)', ...stat(terms.map((t) => t.clicked))],
    ['the page posts terminal-start', ...stat(terms.map((t) => t.start))],
    ['worker ready (emulator + image loaded)', ...stat(terms.map((t) => t.ready))],
    ['terminal: first output', ...stat(terms.map((t) => t.output))],
    ['terminal: multi-user "login:"', ...stat(terms.map((t) => t.login))],
    ['the page posts the first keystroke of "root"', ...stat(terms.map((t) => t.typed))],
    ['terminal: shell prompt after "root"', ...stat(terms.map((t) => t.prompt))],
    ['on the screen: "login:"', ...stat(terms.map((t) => t.loginShown))],
    ['on the screen: the shell prompt', ...stat(terms.map((t) => t.promptShown))],
    ['  terminal-start → "login:" on the screen', ...stat(terms.map((t) => t.loginShown - t.start))],
    ['  ready → "login:"', ...stat(terms.map((t) => t.login - t.ready))],
    ['  "login:" → first keystroke posted (the bench typing)', ...stat(terms.map((t) => t.typed - t.login))],
    ['  first keystroke → shell prompt', ...stat(terms.map((t) => t.prompt - t.typed))],
    ['  of which Enter posted → shell prompt (the guest logging in)', ...stat(terms.map((t) => t.prompt - t.enter))],
  ]));
}

async function main() {
  const build = process.argv.includes('--build') || !existsSync(join(dist, 'index.html'));
  if (build) {
    console.log('building web/dist (vite build)…');
    const b = spawn(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
    const code = await new Promise<number>((r) => b.on('exit', (c) => r(c ?? 1)));
    if (code !== 0) throw new Error('vite build failed');
  }
  if (!existsSync(join(root, 'web/public/images/43bsd.dsk.gz'))) {
    throw new Error('no 4.3BSD image (web/public/images/43bsd.dsk.gz): npm run image builds it');
  }

  const preview = await startPreview(root, PORT);
  const browser = await launchChromium();
  try {
    const version = browser.version();
    if (TERMINAL_ONLY) {
      await terminalOnly(browser, version);
      return;
    }
    const labs: LabFigures[] = [];
    const terms: TermFigures[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      process.stdout.write(`run ${i + 1}/${RUNS}: lab…`);
      labs.push(await labRun(browser));
      process.stdout.write(' terminal…');
      terms.push(await terminalRun(browser));
      process.stdout.write(' warm reload…');
      warm.push(await warmReady(browser));
      process.stdout.write(' done\n');
    }
    process.stdout.write(`instructions per second: table2, divisor ${IPS_DIVISOR}…`);
    const ips = await ipsRun(browser);
    process.stdout.write(' done\n\n');

    console.log(`vaxlab in the browser: Chromium ${version} headless, vite preview of web/dist, ${RUNS} fresh contexts ` +
      `(cold cache); times from navigation start (median, min, max)\n`);
    console.log(table(['', 'median', 'min', 'max'], [
      ['page: worker ready (emulator + image loaded)', ...stat(labs.map((l) => l.ready))],
      ['  of which: wasm compile/instantiate (worker)', ...stat(labs.map((l) => l.wasmMs))],
      ['  of which: image fetch and open (worker; beside the compile)', ...stat(labs.map((l) => l.imageMs))],
      ['page reloaded, warm HTTP cache: worker ready', ...stat(warm)],
      [`lab, syscall ${ITERATIONS}: first boot message`, ...stat(labs.map((l) => l.banner))],
      ['lab: single-user shell prompt "# "', ...stat(labs.map((l) => l.prompt))],
      ['lab: run done (boot + command)', ...stat(labs.map((l) => l.done))],
      ['  run host time (page\'s figure)', ...stat(labs.map((l) => l.hostSeconds * 1000))],
      ['terminal: first output', ...stat(terms.map((t) => t.output))],
      ['terminal: first boot message (kernel banner)', ...stat(terms.map((t) => t.banner))],
      ['terminal: multi-user "login:"', ...stat(terms.map((t) => t.login))],
      ['terminal: shell prompt after "root"', ...stat(terms.map((t) => t.prompt))],
    ]));

    console.log(`\nVAX instructions per host second in the worker (table2 / ${IPS_DIVISOR}: ` +
      `${(ips.instructions / 1e6).toFixed(0)} M instructions in ${ips.hostSeconds.toFixed(1)} s of host time)`);
    console.log(table(['', 'M instructions/s'], [
      [`worker's meter, median of ${ips.samples} whole seconds`, (ips.median / 1e6).toFixed(1)],
      ['worker\'s meter, best second', (ips.max / 1e6).toFixed(1)],
      ['whole run: machines\' instructions / host time', (ips.wholeRun / 1e6).toFixed(1)],
    ]));

    const sizes = shippedSizes();
    const sum = (re: RegExp, k: 'raw' | 'gzip') => sizes.filter((s) => re.test(s.file)).reduce((n, s) => n + s[k], 0);
    console.log('\nShipped (web/dist; gzip -6; the disk image is extra: see below)');
    console.log(table(['', 'raw', 'gzip'], [
      ...sizes.map((s) => [s.file, kb(s.raw), kb(s.gzip)]),
      ['all JavaScript', kb(sum(/\.m?js$/, 'raw')), kb(sum(/\.m?js$/, 'gzip'))],
      ['WebAssembly', kb(sum(/\.wasm$/, 'raw')), kb(sum(/\.wasm$/, 'gzip'))],
      ['JS + wasm + CSS + HTML', kb(sum(/./, 'raw')), kb(sum(/./, 'gzip'))],
    ]));
    const chunked = join(dist, 'images/43bsd.dskz');
    const image = join(dist, 'images/43bsd.dsk.gz');
    if (existsSync(chunked)) {
      console.log(`disk image: images/43bsd.dskz ${(statSync(chunked).size / 1048576).toFixed(1)} MB, fetched by the worker ` +
        `(the ${(labs[0]!.imageBytes / 1048576).toFixed(1)} MB pack deflated in 64 KB chunks, each decompressed when first read)`);
      const snaps = readdirSync(join(dist, 'images')).filter((f) => f.endsWith('.snap.gz'));
      console.log(`machine snapshots: ${snaps.map((f) => `${f} ${(statSync(join(dist, 'images', f)).size / 1024).toFixed(0)} KB`).join(', ')}`);
    } else if (existsSync(image)) {
      console.log(`disk image: images/43bsd.dsk.gz ${(statSync(image).size / 1048576).toFixed(1)} MB, fetched ` +
        `by the worker (already gzip'd; unpacked there to ${(labs[0]!.imageBytes / 1048576).toFixed(1)} MB)`);
    }
  } finally {
    await browser.close();
    preview.kill();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
