// End-to-end tests of sweeps in the page (web/src/lab/state/sweeps.ts,
// pool.ts): a small sweep on two Web Workers draws its line chart and table,
// exports the same JSON as on one worker, is kept in the sweep history and
// its permalink opens the same chart and table in a fresh page;
// Stop stops every worker at once; while a sweep runs the Counters panel
// draws the point of the worker it follows, live; bad values are refused by name before
// anything runs; a multi-step run on two workers gives the result of one.
// The page's data-testid contract is listed in e2e/README.md.

import type { Page } from '@playwright/test';

import { validateSweep } from '../experiments/runner/sweep';
import { chooseExperiment, downloadText, expect, openLab, shot, test, waitReady, xtermVisible } from './lab';

/** Sets the sweep's first setting and values, and the workers. */
async function sweepOf(page: Page, setting: string, values: string, jobs: string): Promise<void> {
  await page.getByTestId('sweep-setting-0').selectOption(setting);
  await page.getByTestId('sweep-values-0').fill(values);
  await page.getByTestId('sweep-jobs').fill(jobs);
}

/** The sweep table's rows, as text cells. */
async function sweepRows(page: Page): Promise<string[][]> {
  return page.getByTestId('sweep-results').getByTestId('result-row').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td, th'), (c) => (c.textContent ?? '').trim())));
}

test('a sweep of hz on two workers: progress, a line chart with the paper\'s point, the table, the same JSON as on one worker, the history',
  async ({ page, freshPage }, testInfo) => {
    await openLab(page);
    await chooseExperiment(page, 'syscall', { iterations: '1000' });
    await sweepOf(page, 'hz', '50,100,250,1000', '2');
    const status = page.getByTestId('sweep-status');
    await page.getByTestId('sweep-run').click();
    await expect(status).toContainText(/^Finished in .* on 2 workers: 4 of 4 units ran/, { timeout: 90_000 });
    await expect(page.getByTestId('sweep-outcome')).toContainText('hz = 50, 100, 250, 1000: 4 of 4 points ok');
    // The heading is the experiment's title ("perform 100,000 getpid system calls"): the count every point ran is said.
    await expect(page.getByTestId('sweep-fixed')).toHaveText('Every point: iterations=1000.');
    // The chart: one line of four points, the paper's figure at hz=100 (its kernel's), axes named.
    const chart = page.getByTestId('sweep-chart');
    await expect(chart.locator('circle.point')).toHaveCount(4);
    await expect(chart.locator('path.paper-point')).toHaveCount(2); // the point and its legend
    await expect(chart.locator('.axis-label').first()).toHaveText('hz');
    const rows = await sweepRows(page);
    expect(rows.map((r) => r[0])).toEqual(['50', '100', '250', '1000']);
    expect(rows.map((r) => r.at(-1))).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(rows[1]![4], 'the paper\'s (scaled) figure at hz=100').toMatch(/^0\.\d\d\*$/);
    expect(rows[0]![4]).toBe('—');
    // More clock interrupts cost time: elapsed at hz=1000 above hz=50.
    expect(Number(rows[3]![1])).toBeGreaterThan(Number(rows[0]![1]));
    // The console logs each unit as it ends (xterm draws only when in view).
    await page.getByTestId('console').scrollIntoViewIfNeeded();
    await expect.poll(() => xtermVisible(page, 'console')).toMatch(/syscall sweep hz=4 values: 4 points, 4 units on 2 workers/);
    expect(await xtermVisible(page, 'console')).toMatch(/\[4\/4\] hz=\d+: syscall/);
    await shot(page, '20-sweep', testInfo);

    // The measure: system time; the table gains nothing (it is a time), the chart's axis says it.
    await page.getByTestId('sweep-measure').selectOption('syscalls');
    await expect(chart.locator('.axis-label').nth(1)).toHaveText('system calls');
    const two = await downloadText(page, 'sweep-export-json');
    expect(two.name).toBe('vaxlab-sweep-syscall-hz.json');
    const result = validateSweep(JSON.parse(two.text), 'export');
    expect(result.points.map((p) => p.result?.rows[0]?.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const csv = await downloadText(page, 'sweep-export-csv');
    expect(csv.text.split('\r\n')[0]).toBe('hz,step,test,status,real_s,user_s,sys_s,syscalls,paper_syscalls,failure');
    expect(csv.text.split('\r\n')[2]).toMatch(/^100,syscall,syscall,ok,/);
    const svg = await downloadText(page, 'sweep-export-svg');
    expect(svg.text).toContain('<svg');
    expect(svg.text).toContain('circle');

    // The same sweep on one worker: the same bytes.
    await sweepOf(page, 'hz', '50,100,250,1000', '1');
    await page.getByTestId('sweep-run').click();
    await expect(status).toContainText(/^Finished in .* on 1 worker: 4 of 4 units ran/, { timeout: 90_000 });
    const one = await downloadText(page, 'sweep-export-json');
    expect(one.text).toBe(two.text);

    // Both are kept; one opens from the history after a reload.
    await expect(page.getByTestId('sweep-history').locator('li')).toHaveCount(2);
    await page.reload();
    await waitReady(page);
    await expect(page.getByTestId('sweep-history').locator('li')).toHaveCount(2);
    await page.getByTestId('sweep-history').locator('.history-open').first().click();
    await expect(page.getByTestId('sweep-chart').locator('circle.point')).toHaveCount(4);

    // Its permalink opens in a fresh page with the same chart and table, run nowhere.
    const shownRows = await sweepRows(page);
    await page.getByTestId('sweep-permalink-button').click();
    const url = await page.getByTestId('sweep-permalink-url').inputValue();
    expect(url).toMatch(/[#&]r=2\./);
    expect(page.url()).toBe(url);
    const other = await freshPage();
    await other.goto(url);
    await expect(other.getByTestId('sweep-chart').locator('circle.point')).toHaveCount(4);
    await expect(other.getByTestId('sweep-results')).toContainText('from a link');
    // What the link was opened for is in view, not 2000 px down below the form.
    await expect(other.getByRole('heading', { name: 'Sweep results' })).toBeInViewport();
    await expect(other.getByTestId('sweep-link-note')).toContainText('without the counters’ time series');
    expect(await sweepRows(other)).toEqual(shownRows);
    await expect(other.getByTestId('sweep-fixed')).toHaveText('Every point: iterations=1000.');
    await shot(other, '20b-sweep-link', testInfo);
  });

test('Stop stops every worker at once: the running points are marked stopped, the rest not run, and a sweep runs again',
  async ({ page }, testInfo) => {
    await openLab(page);
    // 500,000 getpids at each point: about a second of host time each even on a quiet machine, now that the
    // pool's machines restore instead of booting (at 100,000 a worker could finish a second point before Stop).
    await chooseExperiment(page, 'syscall', { iterations: '500000' });
    await sweepOf(page, 'hz', '50,60,100,250,500,1000', '2');
    await page.getByTestId('sweep-run').click();
    // Both workers running a point (their virtual time reported).
    const workers = page.getByTestId('sweep-workers').locator('li');
    await expect(workers).toHaveCount(2, { timeout: 60_000 });
    await expect(workers.nth(0)).toContainText(/virtual [1-9]/, { timeout: 60_000 });
    await expect(workers.nth(1)).toContainText(/virtual [1-9]/, { timeout: 60_000 });
    const t0 = Date.now();
    await page.getByTestId('sweep-stop').click();
    await expect(page.getByTestId('sweep-status')).toContainText(/^Stopped after .* on 2 workers: [23] of 6 units ran\.$/, { timeout: 5_000 });
    const stoppedMs = Date.now() - t0;
    await expect(page.getByTestId('sweep-outcome')).toContainText(/stopped: \d of 6 points ran/);
    const status = (await sweepRows(page)).map((r) => r.at(-1));
    expect(status.filter((s) => s === 'stopped by the user'), `statuses: ${status.join(', ')}`).toHaveLength(2);
    expect(status.at(-1)).toBe('not run');
    expect(status.every((s) => s === 'ok' || s === 'stopped by the user' || s === 'not run')).toBe(true);
    await expect(page.getByTestId('sweep-chart').locator('text.sweep-failed')).not.toHaveCount(0);
    await shot(page, '21-sweep-stopped', testInfo);
    testInfo.annotations.push({ type: 'stop', description: `stopped in ${stoppedMs} ms` });
    // And again, short.
    await chooseExperiment(page, 'syscall', { iterations: '500' });
    await sweepOf(page, 'hz', '50,100', '2');
    await expect(page.getByTestId('sweep-run')).toBeEnabled();
    await page.getByTestId('sweep-run').click();
    await expect(page.getByTestId('sweep-status')).toContainText(/^Finished in .*: 2 of 2 units ran/, { timeout: 60_000 });
  });

test('while a sweep runs, the Counters panel draws a worker\'s point live, the worker chosen under Watch; Stop ends it',
  async ({ page }, testInfo) => {
    await openLab(page);
    // Points of several host seconds each, so both workers are well into their first when the panel is read; Stop
    // ends them.
    await chooseExperiment(page, 'syscall', { iterations: '2000000' });
    await sweepOf(page, 'hz', '50,1000', '2');
    await page.getByTestId('sweep-run').click();
    /** What the panel shows at one moment, once it draws at least 3 samples of `worker`'s point. */
    const livePanel = async (worker: number) => (await page.waitForFunction((w) => {
      const chart = document.querySelector('[data-testid="counter-chart"]');
      const note = document.querySelector('[data-testid="counter-live-note"]')?.textContent ?? '';
      const points = [...(chart?.querySelectorAll('circle.point') ?? [])];
      if (!note.startsWith(`Live from worker ${w} of 2`) || points.length < 3) return null;
      return {
        status: document.querySelector('[data-testid="sweep-status"]')?.textContent ?? '',
        note, title: chart!.getAttribute('aria-label') ?? '',
        values: points.slice(0, 5).map((c) => c.querySelector('title')?.textContent ?? ''),
        watch: [...document.querySelectorAll('[data-testid="counter-worker"] option')].map((o) => o.textContent ?? ''),
      };
    }, worker, { timeout: 60_000, polling: 100 })).jsonValue();

    // By default the first worker running: worker 1, on the first point.
    const first = (await livePanel(1))!;
    expect(first.status).not.toMatch(/^(Finished|Stopped)/);
    expect(first.note).toBe('Live from worker 1 of 2: hz=50: syscall. Each worker runs a unit of its own (a step, or one seed ' +
      'of it): Watch chooses whose counters are drawn.');
    expect(first.title).toMatch(/^Counters over virtual time for worker 1: hz=50: syscall: /);
    for (const v of first.values) expect(v).toMatch(/^.+: -?[\d.,]+(e-?\d+)?[kMG]? .*at [\d.]+ s$/);
    expect(first.watch).toEqual(['the first worker running (now worker 1)', 'worker 1: hz=50: syscall', 'worker 2: hz=1000: syscall']);
    // Worker 2 chosen: its point's counters.
    await page.getByTestId('counter-worker').selectOption('1');
    const second = (await livePanel(2))!;
    expect(second.status).not.toMatch(/^(Finished|Stopped)/);
    expect(second.note).toMatch(/^Live from worker 2 of 2: hz=1000: syscall\. /);
    expect(second.title).toMatch(/^Counters over virtual time for worker 2: hz=1000: syscall: /);
    await shot(page, '22-sweep-live-counters', testInfo);
    // Stopped: the live view goes with the sweep.
    await page.getByTestId('sweep-stop').click();
    await expect(page.getByTestId('sweep-status')).toContainText(/^Stopped after /, { timeout: 30_000 });
    await expect(page.getByTestId('counter-live-note')).toHaveCount(0);
    await expect(page.getByTestId('counter-worker')).toHaveCount(0);
  });

test('the disks\' rotation as a sweep\'s setting: drifting and locked, each point\'s result saying which', async ({ page }) => {
  await openLab(page);
  await chooseExperiment(page, 'execs0null', { iterations: '20' });
  await sweepOf(page, 'spin', 'drifting,locked', '2');
  await page.getByTestId('sweep-run').click();
  await expect(page.getByTestId('sweep-status')).toContainText(/^Finished in .*: 2 of 2 units ran/, { timeout: 90_000 });
  const rows = await sweepRows(page);
  expect(rows.map((r) => r[0])).toEqual(['drifting', 'locked']);
  expect(rows.map((r) => r.at(-1))).toEqual(['ok', 'ok']);
  // The result records the rotation only when it is not the default, as the CLI's does.
  const result = validateSweep(JSON.parse((await downloadText(page, 'sweep-export-json')).text), 'export');
  expect(result.points.map((p) => p.result?.machine.spin ?? 'drifting')).toEqual(['drifting', 'locked']);
});

test('bad values are refused by name before anything runs; the workers must be 1 to the cores', async ({ page }) => {
  await openLab(page);
  await chooseExperiment(page, 'syscall');
  await sweepOf(page, 'hz', '50,abc,5000,50', '2');
  const problems = page.getByTestId('sweep-problems');
  await expect(problems).toContainText('hz=abc: not a value of hz (a whole number from 50 to 1000)');
  await expect(problems).toContainText('hz=5000: 5000 is out of range 50..1000');
  await expect(problems).toContainText('hz=50: listed twice');
  await expect(page.getByTestId('sweep-run')).toBeDisabled();
  await sweepOf(page, 'memoryMB', '0.75..64:0.25', '2');
  await expect(problems).toContainText('memoryMB=0.75..64:0.25: 254 values; a sweep has at most 200 points');
  await sweepOf(page, 'hz', '50,100', '0');
  await expect(page.getByTestId('sweep-form')).toContainText('at least 1 worker');
  await expect(page.getByTestId('sweep-run')).toBeDisabled();
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.getByTestId('sweep-jobs').fill(String(cores + 1));
  await expect(page.getByTestId('sweep-form')).toContainText(`at most ${cores} (this machine's cores)`);
  await page.getByTestId('sweep-jobs').fill('1');
  await expect(page.getByTestId('sweep-run')).toBeEnabled();
  await expect(page.getByTestId('sweep-run')).toHaveText('Run sweep (2 points)');
});

test('a multi-step run on two workers: its steps spread over them, the same result as on one', async ({ page }) => {
  await openLab(page);
  await chooseExperiment(page, 'namecache-work', { divisor: '40' });
  const runOn = async (jobs: string) => {
    await page.getByTestId('sweep-jobs').fill(jobs);
    await page.getByTestId('run-button').click();
    await expect(page.getByTestId('run-progress')).toContainText(/^Finished: 3 rows/, { timeout: 90_000 });
    return (await downloadText(page, 'export-json')).text;
  };
  const two = await runOn('2');
  await page.getByTestId('console').scrollIntoViewIfNeeded();
  await expect.poll(() => xtermVisible(page, 'console')).toContain('3 steps on 2 workers');
  const one = await runOn('1');
  expect(one).toBe(two);
  expect(JSON.parse(one).rows.map((r: { status: string }) => r.status)).toEqual(['ok', 'ok', 'ok']);
});

test('a sweep\'s pool workers start their machines from the image\'s shipped snapshots, as the first worker does, with the same result',
  async ({ page }) => {
    await openLab(page);
    // syscall runs on Table 2's machine, which the image ships at its single-user prompt: no point boots.
    await chooseExperiment(page, 'syscall');
    await sweepOf(page, 'iterations', '1000,2000,3000,4000', '2');
    await page.getByTestId('sweep-run').click();
    const status = page.getByTestId('sweep-status');
    await expect(status).toContainText(/^Finished in .* on 2 workers: 4 of 4 units ran/, { timeout: 90_000 });
    const machines = page.getByTestId('sweep-machines');
    // Worker 2 is a pool worker (started from the shared pack): it restored, it never booted.
    await expect(machines).toContainText(/worker 2 [1-9]\d* restored \([1-9]\d* shipped, 0 saved here\), 0 booted/);
    await expect(machines).toContainText(/worker 1 \d+ restored \(\d+ shipped, 0 saved here\), 0 booted/);
    const two = await downloadText(page, 'sweep-export-json');
    // The same sweep on one worker: the same bytes.
    await sweepOf(page, 'iterations', '1000,2000,3000,4000', '1');
    await page.getByTestId('sweep-run').click();
    await expect(status).toContainText(/^Finished in .* on 1 worker: 4 of 4 units ran/, { timeout: 90_000 });
    await expect(machines).toHaveText('Machines: worker 1 4 restored (4 shipped, 0 saved here), 0 booted.');
    expect((await downloadText(page, 'sweep-export-json')).text).toBe(two.text);
  });
