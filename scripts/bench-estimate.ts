// How good the Run panel's "Takes about N here" is: runs experiments in the
// production build (vite preview, Debian's Chromium, headless) one after
// another in one browser context, as a reader would, and for each prints the
// estimate the page showed before the run, the run's real host time, and
// each step's host seconds, instructions and virtual seconds (what
// status.ts's timing model is fitted on), and how far the progress bar was
// at each quarter of the run.
//
//   node --import tsx scripts/bench-estimate.ts [--fresh] FRAGMENT...
//   e.g. 'x=table2&p.divisor=5' 'x=table8&p.divisor=4'
//
// Each FRAGMENT is a page address's fragment (web/src/lab/address.ts).  The
// first run starts from an empty storage (the page's default speed); each
// later one from what the runs before it measured (--fresh: every run from
// an empty storage).  BENCH_PORT: the port to serve on (default 4178);
// BENCH_OUTDIR: another build than web/dist to serve (vite's --outDir).
// Output: one JSON line per run after its summary, for fitting.

import { fileURLToPath } from 'node:url';

import type { Browser, BrowserContext } from '@playwright/test';

import { launchChromium, startPreview, workerMessageTap } from './pageBench';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(process.env.BENCH_PORT ?? 4178);
const BASE = `http://127.0.0.1:${PORT}`;
const FRESH = process.argv.includes('--fresh');
const FRAGMENTS = process.argv.slice(2).filter((a) => !a.startsWith('--'));

/** Before the page's scripts: the worker's run messages, with the page's clock. */
const TAP = workerMessageTap(`
  const T = { progress: [], partials: [], done: null, started: null, bar: [] };
  window.__estimate = T;`, `
        if (m.type === 'run-started') T.started = t;
        if (m.type === 'run-progress') T.progress.push({ t, host: m.hostSeconds, step: m.progress.step, steps: m.progress.steps,
          virtual: m.progress.virtualSeconds, instructions: m.progress.instructions, seed: m.progress.seed ? m.progress.seed.n : 1 });
        if (m.type === 'run-partial') T.partials.push({ t, rows: m.result.rows.length });
        if (m.type === 'run-done') T.done = { t, host: m.hostSeconds, rows: m.result.rows.map((r) => ({
          id: r.step, status: r.status, instructions: Number(r.emulator ? r.emulator.instructions : 0),
          virtual: r.emulator ? r.emulator.machineVirtualSeconds : 0, seeds: r.spread ? r.spread.seeds : 1 })) };`, `
  // The progress bar's value, every 250 ms, with the page's clock.
  setInterval(() => {
    const bar = document.querySelector('.run-panel progress');
    if (bar && bar.hasAttribute('value')) T.bar.push({ t: performance.now(), value: Number(bar.getAttribute('value')) / Number(bar.getAttribute('max') || 1) });
  }, 250);`);

/** A step's machine: its host seconds, its timed command's instructions, its machine's virtual seconds (boot included). */
interface StepFigure { step: number; host: number; instructions: number; virtual: number }

async function runOne(context: BrowserContext, fragment: string): Promise<Record<string, unknown>> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`  page error: ${e.message}`));
  await page.goto(`${BASE}/#${fragment}`);
  await page.getByTestId('machine-status').filter({ hasText: 'ready' }).waitFor({ timeout: 300_000 });
  const estimateText = (await page.getByTestId('run-estimate').textContent())?.replace(/\s+/g, ' ').trim() ?? '';
  const speed = await page.evaluate(() => ({ speed: localStorage.getItem('vaxlab-speed'), model: localStorage.getItem('vaxlab-instruction-rate') }));
  await page.getByTestId('run-button').click();
  await page.waitForFunction(() => (window as any).__estimate.done, null, { timeout: 3_600_000, polling: 500 });
  const T = await page.evaluate(() => (window as any).__estimate);
  await page.close();
  // Each step's host seconds: from its first progress to the next step's first (the last: to the run's end).
  const firsts: { step: number; host: number }[] = [];
  for (const p of T.progress) if (!firsts.length || firsts[firsts.length - 1]!.step !== p.step) firsts.push({ step: p.step, host: p.host });
  const steps: StepFigure[] = firsts.map((f, i) => {
    const row = T.done.rows[i] ?? { instructions: 0, virtual: 0, seeds: 1 };
    return { step: f.step, host: (firsts[i + 1]?.host ?? T.done.host) - f.host, instructions: row.instructions * row.seeds, virtual: row.virtual * row.seeds };
  });
  const total = T.done.host as number;
  // Where the bar was at each quarter of the run (by the page's clock, from run-started to run-done).
  const span = T.done.t - T.started;
  const quarters = [0.25, 0.5, 0.75].map((q) => {
    const at = T.started + q * span;
    const seen = (T.bar as { t: number; value: number }[]).filter((b) => b.t <= at).pop();
    return seen ? Number(seen.value.toFixed(3)) : null;
  });
  return { fragment, estimateText, stored: speed, hostSeconds: total, beforeFirstStep: firsts[0]?.host ?? null, quarters, steps };
}

async function main(): Promise<void> {
  if (FRAGMENTS.length === 0) throw new Error('usage: bench-estimate.ts [--fresh] FRAGMENT...');
  const server = await startPreview(root, PORT, process.env.BENCH_OUTDIR);
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    let context: BrowserContext | null = null;
    for (const fragment of FRAGMENTS) {
      if (!context || FRESH) {
        await context?.close();
        context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.addInitScript({ content: TAP });
      }
      const r = await runOne(context, fragment);
      const steps = r.steps as StepFigure[];
      console.log(`${fragment}: shown "${r.estimateText}" (stored ${JSON.stringify(r.stored)}); took ${(r.hostSeconds as number).toFixed(1)} s ` +
        `over ${steps.length} steps (${(r.beforeFirstStep as number)?.toFixed(1)} s before the first); bar at 1/4, 1/2, 3/4 of the time: ` +
        `${JSON.stringify(r.quarters)}`);
      console.log(JSON.stringify(r));
    }
    await context?.close();
  } finally {
    await browser?.close();
    server.kill();
  }
}

await main();
