// End-to-end tests of the lab page (production build, headless Chromium).
// The page's data-testid contract is listed in e2e/README.md.

import { decodePermalink, encodePermalink, type SharedRun } from '../web/src/lab/permalink';
import type { ExperimentResult } from '../experiments/runner/result';
import { findToggle, toggleHelp } from '../experiments/runner/toggles';
import {
  chooseExperiment, counterChartRedrawn, downloadText, expect, openLab, panelShot, permalinkOf, resultRows, shot, statusSeen, streamText, test, waitReady,
  xtermVisible,
} from './lab';

/** syscall with a reduced count: a few virtual seconds, boot included. */
const ITERATIONS = 2000;

test('the page loads the emulator and the 4.3BSD image, cross-origin isolated, and says ready', async ({ page }, testInfo) => {
  await page.goto('/');
  expect(await page.evaluate(() => crossOriginIsolated), 'COOP/COEP headers from vite preview').toBe(true);
  await expect(page.getByTestId('machine-status')).toBeVisible();
  await waitReady(page);
  await expect(page.getByTestId('experiment-syscall')).toBeVisible();
  await expect(page.getByTestId('run-button')).toBeEnabled();
  // The download's size (the chunked image's when the manifest has one, as the page fetches it), not the unpacked
  // image's, the gzipped pack's or a "100%"; no path of the machine that built it anywhere.
  const manifest = await (await page.request.get('/images/43bsd.json')).json() as { image: { bytes: number }; chunked?: { bytes: number } };
  const downloaded = manifest.chunked?.bytes ?? manifest.image.bytes;
  await expect(page.getByTestId('image-progress')).toHaveText(`disk image ${(downloaded / 1048576).toFixed(1)} MB`);
  expect(await page.evaluate(() => document.documentElement.outerHTML)).not.toMatch(/\.\.\/shared|\/work\//);
  // The address says what the page is set to.
  await expect(page).toHaveURL(/#x=syscall$/);
  // The hook scripts/bench-web.ts reads.
  expect(await page.evaluate(() => (window as unknown as { __vaxlab: { stats(): { state: string; instructionsPerSecond: number } } }).__vaxlab.stats()))
    .toMatchObject({ state: 'ready', instructionsPerSecond: expect.any(Number) });
  await shot(page, '01-ready', testInfo);

  // The kernel variables are folded away; opened, a changed one is counted in the summary, and the paper's settings clear it.
  const kernelVars = page.locator('details.kernel-vars');
  await expect(page.getByTestId('toggle-nbuf')).toBeHidden();
  await kernelVars.locator('summary').click();
  await page.getByTestId('toggle-nbuf').fill('100');
  await expect(kernelVars.locator('summary')).toContainText('1 changed: nbuf=100');
  await page.getByTestId('toggle-hz').fill('5');
  await expect(page.getByTestId('run-button')).toBeDisabled();
  await page.getByRole('button', { name: 'Paper’s settings' }).click();
  await expect(page.getByTestId('toggle-nbuf')).toHaveValue('');
  await expect(kernelVars.locator('summary')).toContainText('as distributed');
  await expect(page.getByTestId('run-button')).toBeEnabled();

  // Memory in steps of 0.25 MB: the paper's 4.5 MB is the default; 4.3 is marked on the input, 4.75 is fine.
  const memory = page.getByTestId('toggle-memoryMB');
  await expect(memory).toHaveValue('4.5');
  await memory.fill('4.3');
  await expect(memory).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#toggle-memoryMB-error')).toContainText('a multiple of 0.25 from 0.75 to 64');
  await expect(page.getByTestId('run-button')).toBeDisabled();
  await memory.fill('4.75');
  await expect(memory).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('run-button')).toBeEnabled();
  await memory.fill('');

  // The disk's timing and the rotation are described in their toggles' words, as the command line's usage says them.
  for (const name of ['disk', 'spin']) {
    const t = findToggle(name)!;
    await expect(page.locator(`#toggle-${name}-help`)).toHaveText(`${toggleHelp(t)} Paper §${t.section.split(' ')[0]}.`);
  }

  // Both themes, to look at.
  const theme = () => page.evaluate(() => `${document.documentElement.className} ${document.documentElement.dataset.theme ?? ''}`);
  const before = await theme();
  await page.getByTestId('theme-toggle').click();
  await expect.poll(theme).not.toBe(before);
  await shot(page, '02-ready-other-theme', testInfo);

  // A phone-sized window, to look at; one column, Run first after the experiments and "How close are we?" below the
  // results (a panel without its place in the narrow layout's order goes above everything).
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, '02b-ready-narrow', testInfo);
  const panelTops = await page.locator('#panel-lab section.panel').evaluateAll((panels) =>
    panels.map((p) => ({ name: p.querySelector('h2')?.id ?? p.className, top: Math.round(p.getBoundingClientRect().top) }))
      .sort((a, b) => a.top - b.top).map((p) => p.name));
  expect(panelTops).toEqual(['run-title', 'console-title', 'counters-title', 'settings-title', 'sweep-title', 'results-title',
    'sweep-results-title', 'fidelity-title', 'history-title']);
});

test('runs syscall with a reduced count: boot, console, chart, result row; its permalink shows the same result in a fresh page; history survives a reload',
  async ({ page, freshPage }, testInfo) => {
    await openLab(page);

    await test.step('pick syscall, set iterations, run', async () => {
      await chooseExperiment(page, 'syscall', { iterations: String(ITERATIONS) });
      await page.getByTestId('run-button').click();
      await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 90_000 });
      // Done: the page is ready for another run.
      await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: 30_000 });
      expect((await statusSeen(page)).some((s) => /running/i.test(s)), 'machine-status said "running" during the run').toBe(true);
    });

    await test.step('the console shows the boot to the shell and the timed command', async () => {
      // What the console was sent (not the rows it happened to show when looked at: the banner scrolls away).
      const seen = await streamText(page, 'console');
      expect(seen).toMatch(/4\.3 BSD UNIX/); // the kernel's banner
      expect(seen).toMatch(/^# /m); // the single-user shell's prompt
      expect(seen).toContain(`syscall ${ITERATIONS}`); // the command typed
      expect(seen).toMatch(/\d+\.\d+ real\s+\d+\.\d+ user\s+\d+\.\d+ sys/); // /bin/time's line
    });

    const rows = await resultRows(page);
    await test.step('a result row, a chart with data points, the results bar chart', async () => {
      expect(rows).toHaveLength(1);
      expect(rows[0]!.join(' ')).toContain('syscall');
      expect(await page.getByTestId('counter-chart').locator('circle.point').count()).toBeGreaterThan(0);
      await expect(page.getByTestId('results-bar-chart')).toBeVisible();
    });
    const points = await page.getByTestId('counter-chart').locator('circle.point').count();
    await shot(page, '03-run-done', testInfo);

    await test.step('the chart as drawn while the run went (only what changed, each time) is the chart drawn whole', async () => {
      const { drawn, whole } = await counterChartRedrawn(page);
      expect(whole).toBe(drawn);
    });

    const exported = await test.step('Export JSON downloads the result', async () => {
      const json = JSON.parse((await downloadText(page, 'export-json')).text);
      expect(json.format).toBe('vaxlab-experiment-result');
      expect(json.experiment).toBe('syscall');
      expect(json.status).toBe('ok');
      expect(json.rows[0].iterations).toBe(ITERATIONS);
      // The row shows the guest's elapsed time.
      expect(rows[0]!.join(' ')).toContain(json.rows[0].guest.real.toFixed(1));
      return json;
    });

    const link = await test.step('the permalink', async () => {
      await page.getByTestId('permalink-button').click();
      const url = page.getByTestId('permalink-url');
      await expect(url).toHaveValue(/#x=syscall&p\.iterations=2000&r=2\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
      // The button keeps the keyboard focus.
      await expect(page.getByTestId('permalink-button')).toBeFocused();
      const value = await url.inputValue();
      // It holds the run exactly as exported (decoded here, in Node).
      const shared: SharedRun = await decodePermalink(value);
      expect(shared.experiment).toBe('syscall');
      expect(shared.config.set.iterations ?? shared.config.parameters.iterations).toBe(ITERATIONS);
      expect(shared.result).toEqual(exported);
      expect(shared.ranAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      testInfo.annotations.push({ type: 'permalink length', description: `${value.length} characters` });
      return value;
    });

    await test.step('the permalink in a fresh page shows the same result without a run', async () => {
      const other = await freshPage();
      await other.goto(link);
      await expect(other.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
      // Above the fold: what was shared, Run again, and the result.
      await expect(other.getByTestId('run-again-button')).toBeInViewport();
      await expect(other.getByTestId('result-row').first()).toBeInViewport();
      expect(await resultRows(other)).toEqual(rows);
      await expect(other.getByTestId('counter-chart').locator('circle.point')).toHaveCount(points);
      await expect(other.getByTestId('run-again-button')).toBeVisible();
      await other.waitForTimeout(1000);
      expect((await statusSeen(other)).filter((s) => /running/i.test(s)), 'no run in the permalink page').toEqual([]);
      await expect(other.getByTestId('permalink-error')).toHaveCount(0);
      await shot(other, '04-permalink-fresh-page', testInfo);
    });

    await test.step('the run is in the history, also after a reload', async () => {
      await expect(page.getByTestId('history-list')).toContainText('syscall');
      const before = await page.getByTestId('history-list').innerText();
      await page.goto('/');
      await page.reload();
      await expect(page.getByTestId('history-list')).toContainText('syscall', { timeout: 30_000 });
      expect(await page.getByTestId('history-list').innerText()).toBe(before);
      await shot(page, '05-history-after-reload', testInfo);
    });

    await test.step('a history entry opens without a run, and can be deleted', async () => {
      const list = page.getByTestId('history-list');
      await list.getByRole('button', { name: /syscall/ }).first().click();
      await expect(page.getByTestId('result-row')).toHaveCount(1);
      expect(await resultRows(page)).toEqual(rows);
      await list.getByRole('button', { name: /delete/i }).first().click();
      await expect(list).not.toContainText('syscall');
      await page.reload();
      await expect(page.getByTestId('machine-status')).toBeVisible();
      await expect(list).toContainText(/no runs/i);
      await expect(list).not.toContainText('syscall');
    });
  });

test('compares two runs: syscall on a 750, then on a 780; A, B and the paper in the table, the chart and the CSV',
  async ({ page }, testInfo) => {
    await openLab(page);
    const meta = page.locator('.result-meta');

    await test.step('run syscall (1000 iterations) on the 750, then on a 780', async () => {
      await chooseExperiment(page, 'syscall', { iterations: '1000' });
      await page.getByTestId('run-button').click();
      await expect(page.getByTestId('result-row')).toHaveCount(1, { timeout: 90_000 });
      await expect(meta).toContainText('VAX-11/750');
      await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: 30_000 });
      // Nothing else to compare with yet.
      await expect(page.getByTestId('compare-select')).toBeDisabled();

      await page.getByTestId('toggle-cpu').selectOption('780');
      await page.getByTestId('run-button').click();
      await expect(meta).toContainText('VAX-11/780', { timeout: 90_000 });
      await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: 30_000 });
      await expect(page.getByTestId('history-list').locator('.history-open')).toHaveCount(2);
    });

    await test.step('"Compare" on the 750 run in the history: A and B side by side, with what differs and changed most', async () => {
      const list = page.getByTestId('history-list');
      // The shown run's own entry cannot be compared with itself.
      await expect(list.locator('li', { hasText: 'VAX-11/780' }).getByTestId('history-compare')).toBeDisabled();
      await list.locator('li', { hasText: 'VAX-11/750' }).getByTestId('history-compare').click();
      await expect(page.getByTestId('compare-diff')).toContainText('A: cpu=750 · B: cpu=780');
      // The page scrolls Results up from the history to show the comparison: its top just below the sticky top bar
      // (main's gap between them), not under it.
      const gap = () => page.evaluate(() =>
        document.querySelector('section.results')!.getBoundingClientRect().top - document.querySelector('.topbar')!.getBoundingClientRect().bottom);
      await expect.poll(async () => { const px = await gap(); return px >= 0 && px <= 20 ? 'below the bar' : `${px} px`; },
        { message: 'the top of Results, from the bottom of the top bar' }).toBe('below the bar');
      // One row in common: a row per figure, A, B, B − A, the change and the paper's.
      const head = await page.getByTestId('result-table').locator('thead tr:last-child th').allInnerTexts();
      expect(head).toEqual(['Figure', 'A', 'B', 'B − A', 'Change', 'Paper 4.3BSD']);
      const rows = Object.fromEntries((await resultRows(page)).map((r) => [r[0], r]));
      expect(Object.keys(rows)).toEqual(expect.arrayContaining(['Real (s)', 'User (s)', 'Sys (s)', 'Ctx sw', 'Status']));
      const real = rows['Real (s)']!;
      expect(Number(real[1])).toBeGreaterThan(0);
      expect(Number(real[2])).toBeGreaterThan(0);
      // The 780 is the faster processor: B − A is negative.
      expect(real[3]).toMatch(/^-\d/);
      expect(real[4]).toMatch(/^-\d+(\.\d)?%$/);
      expect(real[5]).toMatch(/^\d+\.\d+\*$/);
      await expect(page.getByTestId('compare-change')).toContainText(/^What changed most: the (elapsed|system) time, /);
      // The counters: A's series dashed over B's.
      await expect(page.getByTestId('counter-chart').locator('path.run-a').first()).toBeAttached();
      // The select names the same run: the previous run of this page.
      await expect(page.getByTestId('compare-select').locator('option:checked')).toContainText('Previous run');
    });

    await test.step('the bar chart has three series: A, B and the paper, named in its legend', async () => {
      const chart = page.getByTestId('results-bar-chart');
      await expect(chart.locator('g.pair rect.bar-a')).toHaveCount(1);
      await expect(chart.locator('g.pair rect.bar-b')).toHaveCount(1);
      await expect(chart.locator('g.pair rect.bar-paper')).toHaveCount(1);
      await expect(chart.locator('g.pair rect.bar-ours')).toHaveCount(0);
      const legend = await chart.locator('.legend .legend-item:has(rect) text').allTextContents();
      expect(legend).toEqual(['A: cpu=750', 'B: cpu=780', 'the paper (4.3BSD)']);
    });

    await test.step('the CSV has both runs', async () => {
      const csv = await downloadText(page, 'export-csv');
      expect(csv.name).toMatch(/-compared\.csv$/);
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]!.startsWith('run,run_settings,test,')).toBe(true);
      expect(lines[1]!.startsWith('A,cpu=750,syscall,')).toBe(true);
      expect(lines[2]!.startsWith('B,cpu=780,syscall,')).toBe(true);
    });

    await test.step('screenshots of the comparison in both themes', async () => {
      await shot(page, '09-compare', testInfo);
      await panelShot(page.locator('section.results'), '09a-compare-results');
      await page.getByTestId('theme-toggle').click();
      await page.waitForTimeout(300);
      await shot(page, '09b-compare-other-theme', testInfo);
      await panelShot(page.locator('section.results'), '09c-compare-results-other-theme');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      await panelShot(page.locator('section.results'), '09d-compare-results-narrow');
      await panelShot(page.locator('section.history'), '09e-compare-history-narrow');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await test.step('"Clear comparison": the run against the paper again; the select compares once more', async () => {
      await page.getByTestId('compare-clear').click();
      await expect(page.getByTestId('compare-diff')).toHaveCount(0);
      await expect(page.getByTestId('result-table').locator('thead')).not.toContainText('Change');
      await expect(page.getByTestId('counter-chart').locator('path.run-a')).toHaveCount(0);
      await expect(page.getByTestId('results-bar-chart').locator('g.pair rect.bar-ours')).toHaveCount(1);
      await expect(page.getByTestId('results-bar-chart').locator('g.pair rect.bar-a')).toHaveCount(0);
      const select = page.getByTestId('compare-select');
      const value = await select.locator('option', { hasText: 'Previous run' }).getAttribute('value');
      await select.selectOption(value!);
      await expect(page.getByTestId('compare-diff')).toContainText('A: cpu=750 · B: cpu=780');
    });
  });

/** A syscall run as the runner makes it (fabricated: no run needed; typed, so tsc -p e2e follows the schema). */
function fabricatedRun(): SharedRun {
  const result: ExperimentResult = {
    format: 'vaxlab-experiment-result',
    version: 2,
    experiment: 'syscall',
    title: 'Table 2, syscall: fabricated by e2e/lab.spec.ts',
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 5, memoryNote: 'e2e', boot: 'single', direct: true, spinSeeds: 1 },
    image: null,
    parameters: { iterations: 1234 },
    kernelSettings: {},
    compare: 'ours = elapsed (real) seconds',
    status: 'ok',
    group: 'Micro-operations (3.2.1, Table 2)',
    paperRef: '§3.2.1',
    view: 'table2',
    rows: [{
      test: 'syscall',
      step: 'syscall',
      command: '/bin/time ./syscall 1234',
      iterations: 1234,
      status: 'ok',
      kernelSettings: {},
      guest: { real: 0.3, user: 0, sys: 0.3, line: '0.3 real 0.0 user 0.3 sys' },
      emulator: { instructions: '98765', virtualSeconds: 0.329, machineInstructions: '12345678', machineVirtualSeconds: 14.5 },
      limitSeconds: 120,
      paper: { elapsed: 0.284, user: 0.021, system: 0.255, scale: 0.01234, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true },
    }],
  };
  return { experiment: 'syscall', config: { cpu: '750', memoryMB: 5, set: {}, parameters: { iterations: 1234 } }, result };
}

test('the disks locked to virtual time: the setting is in the address, runs, and the result and its link say so',
  async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    await openLab(page);
    await chooseExperiment(page, 'execs0big', { iterations: '60' });
    await page.getByTestId('toggle-spin').selectOption('locked');
    await expect(page).toHaveURL(/[#&]spin=locked(&|$)/);
    await page.getByTestId('run-button').click();
    await expect(page.getByTestId('result-row')).toHaveCount(1, { timeout: 120_000 });
    await expect(page.getByTestId('result-machine')).toContainText('the disks locked to virtual time');
    await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: 30_000 });
    // The permalink keeps the setting: it decodes (in Node) to a run made locked, in its settings and its result.
    const shared = await decodePermalink(await permalinkOf(page));
    expect(shared.config.spin).toBe('locked');
    expect(shared.result.machine.spin).toBe('locked');
    await shot(page, '26-disks-locked', testInfo);
  });

test('a link made in Node opens; a corrupted one and one from a newer vaxlab show the error', async ({ freshPage }, testInfo) => {
  const value = await encodePermalink(fabricatedRun());

  const good = await freshPage();
  await good.goto(`/#r=${value}`);
  await expect(good.getByTestId('result-row')).toHaveCount(1, { timeout: 30_000 });
  expect((await resultRows(good))[0]!.join(' ')).toContain('syscall');
  await expect(good.getByTestId('permalink-error')).toHaveCount(0);

  // One character of the data changed: the page says the link is damaged, and shows no result.
  const at = value.length - 20;
  const corrupted = value.slice(0, at) + (value[at] === 'A' ? 'B' : 'A') + value.slice(at + 1);
  const bad = await freshPage();
  await bad.goto(`/#r=${corrupted}`);
  await expect(bad.getByTestId('permalink-error')).toBeVisible({ timeout: 30_000 });
  await expect(bad.getByTestId('permalink-error')).toContainText(/damaged/i);
  await expect(bad.getByTestId('result-row')).toHaveCount(0);
  await shot(bad, '06-permalink-corrupted', testInfo);

  const newer = await freshPage();
  await newer.goto(`/#r=3${value.slice(1)}`);
  await expect(newer.getByTestId('permalink-error')).toContainText(/newer vaxlab/i, { timeout: 30_000 });
});

test('without IndexedDB (private browsing), the history says why and runs still work', async ({ freshPage }, testInfo) => {
  const page = await freshPage();
  await page.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', { get: () => undefined, configurable: true });
  });
  await page.goto('/');
  await expect(page.getByText(/Run history is not available/)).toBeVisible({ timeout: 30_000 });
  await waitReady(page);
  await chooseExperiment(page, 'syscall', { iterations: '500' });
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('result-row')).toHaveCount(1, { timeout: 90_000 });
  await expect(page.getByText(/Run history is not available/).first()).toBeVisible();
  await expect(page.getByTestId('results-bar-chart')).toBeVisible();
  await shot(page, '08-no-indexeddb', testInfo);
});

test('the terminal boots 4.3BSD and accepts `ls /`', async ({ page }, testInfo) => {
  await openLab(page);
  await page.getByTestId('tab-terminal').click();
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toBeVisible();

  // Multi-user asks for a login; single-user goes straight to the prompt ("# ", "myname# ").
  await expect.poll(() => xtermVisible(page, 'terminal'), { timeout: 90_000 }).toMatch(/login: *$|# *$/m);
  await terminal.click();
  if (/login: *$/m.test(await xtermVisible(page, 'terminal'))) {
    await page.keyboard.type('root');
    await page.keyboard.press('Enter');
    await expect.poll(() => xtermVisible(page, 'terminal'), { timeout: 30_000 }).toMatch(/# *$/m);
    // Logged in by the guest itself: root's /.login (the distribution's) says its piece before the shell's prompt.
    expect(await xtermVisible(page, 'terminal')).toMatch(/login: root\s*\n[^]*Don't login as root, use su\s*\n[^\n]*# *$/m);
  }
  await page.keyboard.type('ls /');
  await page.keyboard.press('Enter');
  // What follows the command, up to the next prompt: 4.3BSD's root, the kernel and the usual directories.
  const listing = async () => {
    const text = await xtermVisible(page, 'terminal');
    const m = /# *ls \/ *\n([^]*?)\n[^\n]*# *$/m.exec(text);
    // (Names as ls -F marks them: bin/, copy*.)
    return m ? m[1]!.split(/\s+/).filter(Boolean).map((n) => n.replace(/[/*@=]$/, '')).sort() : [];
  };
  await expect.poll(listing, { timeout: 30_000 }).toEqual(expect.arrayContaining(['bin', 'dev', 'etc', 'usr', 'vmunix']));
  await shot(page, '07-terminal-ls', testInfo);

  // Where one types is in view without scrolling, in a laptop's window and a phone's: the shell's prompt, the
  // terminal's last row with text, lies within the window with the page at its top.
  for (const [width, height] of [[1366, 768], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect.poll(() => xtermVisible(page, 'terminal')).toMatch(/# *$/);
    const prompt = await page.getByTestId('terminal').evaluate((el) => {
      const rows = [...el.querySelectorAll('.xterm-rows > div')].filter((r) => (r.textContent ?? '').trim() !== '');
      const last = rows.at(-1)!;
      return { text: (last.textContent ?? '').replace(/\u00a0/g, ' ').trim(), bottom: last.getBoundingClientRect().bottom, window: innerHeight };
    });
    expect(prompt.text, `the last row at ${width} x ${height}`).toMatch(/#$/);
    expect(prompt.bottom, `the prompt at ${width} x ${height} is below the fold`).toBeLessThanOrEqual(prompt.window);
  }
  await shot(page, '07b-terminal-narrow', testInfo);
});
