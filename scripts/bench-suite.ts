// The experiment suite's figures (npm run bench:suite): how long the paper's
// tables take to run, in Node (the CLI, one process per table) and in the
// page (headless Chromium against the production build), and how much
// memory a runner holds.
//
//   node --import tsx scripts/bench-suite.ts [--only node|web] [--tables table2,table7] [--json-dir DIR] [--build]
//
// Node: `node scripts/vaxlab.mjs run TABLE --json FILE` under /usr/bin/time:
// wall seconds from the process's start (image loading included) and its
// peak resident memory.  Chromium: a fresh context opens the page, picks the
// table, presses Run when the worker is ready and waits for the result; the
// run's host seconds are the worker's own figure (run-started to run-done),
// and the memory is the peak resident size of the page's renderer process
// (which runs its worker), sampled from /proc every 200 ms.  --json-dir keeps
// each Node result (to compare two versions byte for byte).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchChromium, rendererRss, startPreview, workerMessageTap } from './pageBench';
import type { Browser } from '@playwright/test';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(process.env.BENCH_PORT ?? 4177);
const BASE = `http://127.0.0.1:${PORT}`;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}
const ONLY = option('only');
const TABLES = (option('tables') ?? 'table2,table7').split(',').filter(Boolean);
const JSON_DIR = option('json-dir');

// ---------------------------------------------------------------- Node

interface NodeFigures { table: string; seconds: number; maxRssMB: number; status: string }

function runNode(table: string, jsonFile: string): Promise<NodeFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'BENCH %e %M', process.execPath, join(root, 'scripts/vaxlab.mjs'), 'run', table,
      '--json', jsonFile], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      const m = /BENCH ([0-9.]+) ([0-9]+)/.exec(stderr);
      if (!m) return reject(new Error(`vaxlab run ${table} (exit ${code}): ${stderr}`));
      const status = existsSync(jsonFile) ? (JSON.parse(readFileSync(jsonFile, 'utf8')) as { status: string }).status : 'no result';
      resolve({ table, seconds: Number(m[1]), maxRssMB: Number(m[2]) / 1024, status });
    });
  });
}

// ---------------------------------------------------------------- Chromium


/** Records the worker's messages with performance.now() (ms since navigation). */
const TAP = workerMessageTap(`
  const T = { marks: {} };
  window.__suite = T;`, `
        if (m.type === 'ready' && T.marks.ready === undefined) T.marks.ready = t;
        if (m.type === 'run-started') T.marks.runStarted = t;
        if (m.type === 'run-done') {
          T.marks.runDone = t;
          T.done = { hostSeconds: m.hostSeconds, status: m.result.status };
        }
        if (m.type === 'run-error') T.error = m.message;`);

interface WebFigures { table: string; ready: number; hostSeconds: number; status: string; memoryMB: number | null }

async function runWeb(browser: Browser, table: string, browserPid: number): Promise<WebFigures> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript({ content: TAP });
  const page = await context.newPage();
  // The largest renderer: the page's, which runs its worker (the page has
  // its renderer before newPage returns, so "the ones that are new" would
  // miss it; the other contexts are closed, a spare renderer is small).
  let peakKB = 0;
  const sampler = setInterval(() => {
    if (!browserPid) return;
    for (const kb of rendererRss(browserPid).values()) peakKB = Math.max(peakKB, kb);
  }, 200);
  try {
    await page.goto(`${BASE}/`);
    await page.getByTestId(`experiment-${table}`).click();
    const ready = (await (await page.waitForFunction(() => (window as any).__suite.marks.ready, null, { timeout: 120_000 })).jsonValue()) as number;
    await page.getByTestId('run-button').click();
    await page.waitForFunction(() => (window as any).__suite.done || (window as any).__suite.error, null, { timeout: 1_800_000, polling: 250 });
    const t = (await page.evaluate(() => (window as any).__suite)) as { done?: { hostSeconds: number; status: string }; error?: string };
    if (!t.done) throw new Error(`${table} in the page: ${t.error}`);
    return { table, ready, hostSeconds: t.done.hostSeconds, status: t.done.status, memoryMB: peakKB ? peakKB / 1024 : null };
  } finally {
    clearInterval(sampler);
    await context.close();
  }
}

// ---------------------------------------------------------------- main

const fmt = (x: number, digits = 1) => x.toFixed(digits);

async function main(): Promise<void> {
  const exec = (cmd: string, args: string[]) => new Promise<string>((resolve) => {
    const c = spawn(cmd, args);
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('exit', () => resolve(out.trim()));
  });
  console.log(`bench:suite ${new Date().toISOString()} — load: ${await exec('uptime', [])}`);
  const dir = JSON_DIR ?? mkdtempSync(join(tmpdir(), 'bench-suite-'));
  // vaxlab run refuses a --json file in a directory that does not exist (the
  // run then reported "no result" in about a second instead of timing it).
  mkdirSync(dir, { recursive: true });
  try {
    if (ONLY !== 'web') {
      console.log('\nNode (npx vaxlab run TABLE --json FILE; wall time from the process start, peak RSS)');
      for (const table of TABLES) {
        const f = await runNode(table, join(dir, `${table}.json`));
        console.log(`  ${table.padEnd(8)} ${fmt(f.seconds).padStart(7)} s   max RSS ${fmt(f.maxRssMB, 0).padStart(5)} MB   ${f.status}`);
      }
    }
    if (ONLY !== 'node') {
      if (process.argv.includes('--build') || !existsSync(join(root, 'web/dist/index.html'))) {
        const b = spawn(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
        if ((await new Promise<number>((r) => b.on('exit', (c) => r(c ?? 1)))) !== 0) throw new Error('vite build failed');
      }
      const preview = await startPreview(root, PORT);
      const browser = await launchChromium();
      try {
        console.log(`\nChromium ${browser.version()} headless (fresh context each; Run pressed when the worker is ready; ` +
          'the run\'s host seconds as the worker counts them; memory: the page\'s renderer process, peak RSS)');
        // Chromium is a child of this process: its renderers are below us.
        const browserPid = process.pid;
        for (const table of TABLES) {
          const f = await runWeb(browser, table, browserPid);
          console.log(`  ${table.padEnd(8)} ready ${fmt(f.ready / 1000, 2)} s   run ${fmt(f.hostSeconds).padStart(6)} s   ` +
            `renderer peak RSS ${f.memoryMB === null ? 'n/a' : `${fmt(f.memoryMB, 0)} MB`}   ${f.status}`);
        }
      } finally {
        await browser.close();
        preview.kill();
      }
    }
  } finally {
    if (!JSON_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
