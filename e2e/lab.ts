// Helpers for the end-to-end tests: the page's data-testid contract, reading
// the xterm consoles, screenshots, the steps most tests begin with (open the
// page, pick an experiment, run it), downloads and permalinks, and a fixture
// that fails a test on any uncaught error in the page.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type BrowserContext, type Locator, type Page, type TestInfo } from '@playwright/test';

export { expect };

/** e2e/screenshots/, or e2e/screenshots-PORT/ for a run on another port (E2E_PORT). */
export const SCREENSHOT_DIR = fileURLToPath(new URL(`./screenshots${process.env.E2E_PORT ? `-${process.env.E2E_PORT}` : ''}/`, import.meta.url));

/** The repository's root, where `vaxlab` runs from. */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `npx vaxlab ARGS` in Node (the same WebAssembly module as the page's): the file its --json wrote, as text. */
export function vaxlabJsonText(args: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'vaxlab-e2e-'));
  try {
    const file = join(dir, 'out.json');
    execFileSync(process.execPath, [join(ROOT, 'scripts/vaxlab.mjs'), ...args, '--json', file], { cwd: ROOT, stdio: 'ignore' });
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npx vaxlab ARGS` in Node, its --json file read back. */
export function vaxlabJson(args: string[]): unknown {
  return JSON.parse(vaxlabJsonText(args));
}

/** Loading the wasm emulator and the 4.3BSD image, cold. */
export const READY_TIMEOUT = 90_000;

/**
 * Records what the page shows over time, since xterm's DOM renderer holds
 * only the rows in view (boot messages scroll out) and a status can be
 * shorter-lived than a poll: every row of every xterm ([data-testid] around
 * .xterm-rows) and every text of machine-status, in the order first seen.
 */
function recorder() {
  const w = window as unknown as { __e2e: { xterm: Record<string, string[]>; status: string[] } };
  const xterm: Record<string, Set<string>> = {};
  const status = new Set<string>();
  w.__e2e = {
    get xterm() {
      return Object.fromEntries(Object.entries(xterm).map(([k, v]) => [k, [...v]]));
    },
    get status() {
      return [...status];
    },
  } as never;
  let queued = false;
  const record = () => {
    queued = false;
    for (const rows of document.querySelectorAll('.xterm-rows')) {
      const host = rows.closest('[data-testid]');
      const id = host?.getAttribute('data-testid') ?? 'unknown';
      const seen = (xterm[id] ??= new Set());
      for (const row of rows.children) {
        const text = (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd();
        if (text) seen.add(text);
      }
    }
    const s = document.querySelector('[data-testid="machine-status"]')?.textContent?.trim();
    if (s) status.add(s);
  };
  const start = () => {
    new MutationObserver(() => {
      if (!queued) {
        queued = true;
        queueMicrotask(record);
      }
    }).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  };
  if (document.documentElement) start();
  else document.addEventListener('DOMContentLoaded', start);
}

/** Prepares a page: the recorder, and uncaught errors and console errors collected. */
export async function instrument(page: Page, errors: string[], consoleErrors: string[]): Promise<void> {
  await page.addInitScript(recorder);
  page.on('pageerror', (e) => errors.push(`${page.url().slice(0, 80)}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url().slice(0, 80)}: ${m.text()}`);
  });
}

export const test = base.extend<{ pageErrors: string[]; consoleErrors: string[]; freshPage: () => Promise<Page> }>({
  pageErrors: async ({}, use) => {
    await use([]);
  },
  consoleErrors: async ({}, use) => {
    await use([]);
  },
  page: async ({ page, pageErrors, consoleErrors }, use, testInfo) => {
    await instrument(page, pageErrors, consoleErrors);
    await use(page);
    await report(testInfo, pageErrors, consoleErrors);
  },
  /** A page in a new browser context: no shared storage, as another browser would be. */
  freshPage: async ({ browser, pageErrors, consoleErrors }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async () => {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await instrument(page, pageErrors, consoleErrors);
      return page;
    });
    for (const c of contexts) await c.close();
  },
});

async function report(testInfo: TestInfo, pageErrors: string[], consoleErrors: string[]) {
  if (consoleErrors.length) {
    await testInfo.attach('console errors', { body: consoleErrors.join('\n'), contentType: 'text/plain' });
    console.log(`[${testInfo.title}] console errors in the page:\n  ${consoleErrors.join('\n  ')}`);
  }
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
}

/** Everything the xterm with this data-testid has shown so far, one row a line. */
export async function xtermSeen(page: Page, testId: 'console' | 'terminal'): Promise<string> {
  return page.evaluate((id) => {
    const w = window as unknown as { __e2e?: { xterm: Record<string, string[]> } };
    return (w.__e2e?.xterm[id] ?? []).join('\n');
  }, testId);
}

/** The rows of the xterm now in view. */
export async function xtermVisible(page: Page, testId: 'console' | 'terminal'): Promise<string> {
  return page.getByTestId(testId).locator('.xterm-rows').evaluate((rows) =>
    Array.from(rows.children, (r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));
}

/** Every text machine-status has had since the page loaded. */
export async function statusSeen(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __e2e?: { status: string[] } }).__e2e?.status ?? []);
}

export async function waitReady(page: Page): Promise<void> {
  await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: READY_TIMEOUT });
}

/** Opens the page at an address ('/', '/#x=table2', a permalink) and waits until the machine is ready. */
export async function openLab(page: Page, address = '/'): Promise<void> {
  await page.goto(address);
  await waitReady(page);
}

/** Picks an experiment as a user finds one in the list, by typing its id into the search, and types its parameters
 *  ({ iterations: '2000' }). */
export async function chooseExperiment(page: Page, id: string, params: Record<string, string> = {}): Promise<void> {
  await page.getByTestId('experiment-search').fill(id);
  await page.getByTestId(`experiment-${id}`).click();
  for (const [name, value] of Object.entries(params)) await page.getByTestId(`param-${name}`).fill(value);
}

/** Runs the form as it is and waits for the run to end (finished or stopped) and for "ready". */
export async function runAndWait(page: Page, timeout = 120_000): Promise<void> {
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-progress')).toContainText(/^(Finished|Stopped)/, { timeout });
  await expect(page.getByTestId('machine-status')).toContainText(/ready/i);
}

/** What clicking the button with this data-testid downloads: the file's suggested name and its text. */
export async function downloadText(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
}

/** The permalink of what Results shows (a run, or two compared): Copy permalink, then the address it offers. */
export async function permalinkOf(page: Page): Promise<string> {
  await page.getByTestId('permalink-button').click();
  return page.getByTestId('permalink-url').inputValue();
}

/** A full-page screenshot in e2e/screenshots/NAME.png (also attached to the report). */
export async function shot(page: Page, name: string, testInfo?: TestInfo): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  if (testInfo) await testInfo.attach(name, { path, contentType: 'image/png' });
  return path;
}

/** One panel in e2e/screenshots/NAME.png, scrolled to the window's top as the page scrolls a panel into view: the
 *  page's scroll-padding-top puts it below the sticky top bar, so the bar, drawn at the window's top, is over
 *  neither its top nor, when the panel is taller than the window, its middle. */
export async function panelShot(part: Locator, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await part.evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
  await part.screenshot({ path });
  return path;
}

/** The cells of the result rows, as text. */
export async function resultRows(page: Page): Promise<string[][]> {
  return page.getByTestId('result-row').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td, th'), (c) => (c.textContent ?? '').trim())));
}

/**
 * Everything the experiment console or the terminal was sent (the page's own
 * record of the stream, window.__vaxlab.text): plain text, escape sequences
 * and carriage returns taken out.  Unlike the rows xterm shows, it does not
 * depend on what was on screen when the page was looked at.
 */
export async function streamText(page: Page, which: 'console' | 'terminal'): Promise<string> {
  const raw = await page.evaluate((w) => (window as unknown as { __vaxlab?: { text(w: string): string } }).__vaxlab?.text(w) ?? '', which);
  // eslint-disable-next-line no-control-regex
  return raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

/** The result rows' cells by column (the table's data-col keys: "ours.real", "status", ...). */
export async function resultCells(page: Page): Promise<Record<string, string>[]> {
  return page.getByTestId('result-row').evaluateAll((rows) =>
    rows.map((r) => Object.fromEntries(Array.from(r.querySelectorAll('td, th'), (c) => [c.getAttribute('data-col') ?? '', (c.textContent ?? '').trim()]))));
}

/**
 * The counter chart's markup as drawn (a live chart: only what changed at each new batch of samples), and again after
 * the counters shown are turned off and on in the picker, which draws it whole from the same samples.
 */
export async function counterChartRedrawn(page: Page): Promise<{ drawn: string; whole: string }> {
  const chart = page.getByTestId('counter-chart');
  const drawn = await chart.evaluate((svg) => svg.innerHTML);
  const panels = await chart.locator('g.panel').count();
  expect(panels).toBeGreaterThan(0);
  const summary = page.locator('.counter-picker summary');
  await summary.click();
  const shown = await page.locator('.counter-picker input[data-counter]:checked').evaluateAll((boxes) =>
    boxes.map((b) => b.getAttribute('data-counter')!));
  for (const id of shown) await page.locator(`.counter-picker input[data-counter="${id}"]`).uncheck();
  await expect(chart.locator('g.panel')).toHaveCount(0);
  for (const id of shown) await page.locator(`.counter-picker input[data-counter="${id}"]`).check();
  await expect(chart.locator('g.panel')).toHaveCount(panels);
  const whole = await chart.evaluate((svg) => svg.innerHTML);
  await summary.click();
  return { drawn, whole };
}

/** The page is no wider than the window (nothing scrolls the page sideways). */
export async function pageFits(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
}

/** The page fits the window (no sideways scroll) at 1366 and 390 px, in both themes; a screenshot of each part
 *  at each (SCREENSHOT_DIR, NAME-WIDTH-THEME.png); the window is 1280 px wide again after. */
export async function fitsEverywhere(page: Page, parts: { part: Locator; name: string }[]): Promise<void> {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  for (let pass = 0; pass < 2; pass++) {
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(250);
      const fit = await pageFits(page);
      const names = parts.map((p) => p.name).join(', ');
      expect(fit.scrollWidth, `${names} at ${width} px (${await theme()}): the page scrolls sideways`).toBeLessThanOrEqual(fit.clientWidth);
      for (const { part, name } of parts) await panelShot(part, `${name}-${width}-${await theme()}`);
    }
    await page.getByTestId('theme-toggle').click();
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
