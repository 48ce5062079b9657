// End-to-end test of the Seeds setting: a step run in the page with seeds
// 1..3 gives the row `npx vaxlab run STEP --seeds 3` gives in Node — the
// median run and its range over the seeds, in the results table as the
// command line's table has them, and the result's JSON byte for byte.  The
// step is short (execs0null, 100 iterations: about 6 virtual seconds a seed)
// and one whose seeds move its figures, so the range is more than one value;
// while it runs, the Counters panel draws its samples live.
// The same step on two of the pool's workers: each seed is a unit of its own,
// so the one step's seeds run on both workers, and the bytes are the same;
// while they run, the Counters panel draws a worker's seed live (the samples
// the pool's workers send), and once the run ends the row's own series.
// Then a multi-step run with seeds on two workers (each seed of each step a
// unit): the command line's bytes too.

import { resultTable } from '../experiments/runner/resultView';
import type { ExperimentResult } from '../experiments/runner/result';
import { decodeLink } from '../web/src/lab/permalink';
import {
  chooseExperiment, downloadText, expect, openLab, permalinkOf, resultCells, test, vaxlabJsonText, xtermVisible,
} from './lab';

const STEP = 'execs0null';
const ITERATIONS = '100';

test('Seeds 3: the row is the median of seeds 1..3 with its range, as `vaxlab run --seeds 3` gives it in Node', async ({ page }) => {
  await openLab(page);
  await chooseExperiment(page, STEP, { iterations: ITERATIONS });
  const seeds = page.getByTestId('seeds');
  await expect(seeds).toHaveValue('1');

  await test.step('a value the page does not run is marked under the field, and Run waits', async () => {
    await seeds.fill('12');
    await expect(page.locator('#seeds-error')).toHaveText('a whole number from 1 to 9');
    await expect(seeds).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByTestId('run-button')).toBeDisabled();
    await seeds.fill('3');
    await expect(page.locator('#seeds-error')).toHaveCount(0);
    await expect(page.getByTestId('run-button')).toBeEnabled();
    // The address holds it, as it holds every setting.
    await expect.poll(() => new URL(page.url()).hash).toContain('seeds=3');
  });

  await test.step('while the seeds run, one after the other on the page\'s worker, the Counters panel draws them live', async () => {
    await page.getByTestId('run-button').click();
    // What the page shows at one moment, read at once (every animation frame: the live view lasts a few seconds on
    // a quiet machine; in a full suite at load 10 the run once ended before three points were drawn: one point drawn
    // live is what shows the live view).
    const live = await (await page.waitForFunction(() => {
      const points = document.querySelectorAll('[data-testid="counter-chart"] circle.point').length;
      if (!document.querySelector('#counters-title .live') || points < 1) return null;
      return {
        progress: document.querySelector('[data-testid="run-progress"]')?.textContent ?? '',
        points, pool: document.querySelector('[data-testid="counter-live-note"]') !== null,
      };
    }, undefined, { timeout: 90_000, polling: 'raf' })).jsonValue();
    expect(live!.progress, 'the counters were drawn before the run ended').not.toMatch(/^(Finished|Stopped)/);
    expect(live!.pool, 'the run\'s own samples, not a pool worker\'s').toBe(false);
    await expect(page.getByTestId('run-progress')).toContainText(/^(Finished|Stopped)/, { timeout: 90_000 });
    await expect(page.getByTestId('machine-status')).toContainText(/ready/i);
  });
  const cliText = vaxlabJsonText(['run', STEP, '--param', `iterations=${ITERATIONS}`, '--seeds', '3']);
  const cli = JSON.parse(cliText) as ExperimentResult;
  const cliRow = cli.rows[0]!;
  // The step's seeds do move it: a range of more than one value, so the comparison below is of something.
  expect(cliRow.spread?.seeds).toBe(3);
  expect(cliRow.spread!.real.max).toBeGreaterThan(cliRow.spread!.real.min);

  await test.step('the results table: the median with its range, cell for cell the command line\'s', async () => {
    const expected = resultTable(cli);
    const [cells] = await resultCells(page);
    for (const key of ['ours.real', 'ours.user', 'ours.sys', 'paper.main.real', 'diff.s']) {
      const j = expected.columns.findIndex((c) => c.key === key);
      expect(cells![key], key).toBe(expected.rows[0]!.cells[j]!.text);
    }
    expect(cells!['ours.real']).toMatch(/^\d+\.\d+ \[\d+\.\d+–\d+\.\d+\]$/);
    await expect(page.locator('section.results')).toContainText('Each row is the median of 3 runs, seeds 1..3');
  });

  await test.step('the result: the same bytes as the command line\'s JSON; its link keeps the seeds', async () => {
    const exported = await downloadText(page, 'export-json');
    expect(exported.text).toBe(cliText);
    const payload = await decodeLink(await permalinkOf(page));
    if (payload.kind !== 'run') throw new Error('a run link');
    expect(payload.run.config.spinSeeds).toBe(3);
    expect(payload.run.result.machine.spinSeeds).toBe(3);
    expect(payload.run.result.rows[0]!.spread).toEqual(cliRow.spread);
    expect(payload.run.result.rows[0]!.guest).toEqual(cliRow.guest);
  });

  await test.step('on two workers: the step\'s seeds spread over both, and the result is the same bytes', async () => {
    await page.getByTestId('sweep-jobs').fill('2');
    // The Run panel says where the machines go, though the field is the Sweep panel's.
    await expect(page.getByTestId('run-workers')).toHaveText(
      'Its 3 seeds run on 2 workers at once (Workers, under Sweep), so it takes less than one worker\'s time above, as far as this computer\'s cores allow; the results are the same bytes.');
    // The rate the estimate is made from, as the run on one worker above left it: a run on the pool keeps it.
    const rateKey = 'vaxlab-instruction-rate';
    const rateBefore = await page.evaluate((k) => localStorage.getItem(k), rateKey);
    expect(rateBefore, 'the run on one worker measured a rate').not.toBeNull();
    await page.getByTestId('run-button').click();
    // While the seeds run, the Counters panel draws a worker's unit live from the samples it sends: what the page
    // shows at one moment, read at once (the run may end soon after: about 0.7 s of live view on an idle machine,
    // so the page is read every animation frame, not at an interval that could miss it).
    const live = await (await page.waitForFunction(() => {
      const chart = document.querySelector('[data-testid="counter-chart"]');
      const note = document.querySelector('[data-testid="counter-live-note"]')?.textContent ?? '';
      const points = [...(chart?.querySelectorAll('circle.point') ?? [])];
      if (!note || points.length < 3) return null;
      return {
        progress: document.querySelector('[data-testid="run-progress"]')?.textContent ?? '',
        note, title: chart!.getAttribute('aria-label') ?? '', points: points.length,
        values: points.slice(0, 5).map((c) => c.querySelector('title')?.textContent ?? ''),
        watch: [...document.querySelectorAll('[data-testid="counter-worker"] option')].map((o) => o.textContent ?? ''),
      };
    }, undefined, { timeout: 90_000, polling: 'raf' })).jsonValue();
    expect(live!.progress, 'the counters were drawn before the run ended').not.toMatch(/^(Finished|Stopped)/);
    expect(live!.note).toMatch(/^Live from worker [12] of 2: execs0null[^:]*, seed [123] of 3\. Each worker runs a unit of its own/);
    expect(live!.title).toMatch(/^Counters over virtual time for worker [12]: execs0null[^:]*, seed [123] of 3: /);
    // Each point a sample's value at its virtual time.
    for (const v of live!.values) expect(v).toMatch(/^.+: -?[\d.,]+(e-?\d+)?[kMG]? .*at [\d.]+ s$/);
    // Watch: follow the first worker running, or choose either, each named with the seed it runs.
    expect(live!.watch).toHaveLength(3);
    expect(live!.watch[0]).toMatch(/^the first worker running \(now worker [12]\)$/);
    expect(live!.watch.slice(1)).toEqual([expect.stringMatching(/^worker 1: (starting|execs0null)/), expect.stringMatching(/^worker 2: (starting|execs0null)/)]);
    await expect(page.getByTestId('run-progress')).toContainText(/^(Finished|Stopped)/, { timeout: 90_000 });
    await expect(page.getByTestId('machine-status')).toContainText(/ready/i);
    // Its host time was shared by two workers: not one worker's rate.
    expect(await page.evaluate((k) => localStorage.getItem(k), rateKey)).toBe(rateBefore);
    // Ended: the row's counters are the result's series, as a run on one worker shows them.
    await expect(page.getByTestId('counter-live-note')).toHaveCount(0);
    const kept = cliRow.counters!;
    const counter = Object.keys(kept.values)[0]!;
    expect(kept.t.length).toBeLessThanOrEqual(300);
    await expect(page.getByTestId('counter-chart').locator(`circle.point[data-counter="${counter}"]`)).toHaveCount(kept.t.length);
    await page.getByTestId('console').scrollIntoViewIfNeeded();
    // The console's lines, wrapped at its width, joined again.
    const said = async () => (await xtermVisible(page, 'console')).split('\n').join('');
    await expect.poll(said).toContain('1 step × 3 seeds: 3 units on 2 workers');
    const text = await said();
    // One line a seed, each saying which worker ran it: both did, for this one step.
    const seeds = [...text.matchAll(/seed ?(\d) ?of ?3:.*?\(worker ?(\d),/g)].map((m) => [m[1], m[2]]);
    expect(seeds.map(([seed]) => seed).sort()).toEqual(['1', '2', '3']);
    expect(new Set(seeds.map(([, worker]) => worker))).toEqual(new Set(['1', '2']));
    const exported = await downloadText(page, 'export-json');
    expect(exported.text).toBe(cliText);
  });
});

test('Seeds 2 on two workers: a multi-step run spread over the pool, each seed of each step a unit, the command line\'s bytes', async ({ page }) => {
  await openLab(page);
  await chooseExperiment(page, 'namecache-work', { divisor: '40' });
  await page.getByTestId('seeds').fill('2');
  await page.getByTestId('sweep-jobs').fill('2');
  await expect(page.getByTestId('run-workers')).toHaveText(
    'Its 3 steps × 2 seeds (6 machines) run on 2 workers at once (Workers, under Sweep), so it takes less than one worker\'s time above, as far as this computer\'s cores allow; the results are the same bytes.');
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-progress')).toContainText(/^Finished: 3 rows/, { timeout: 90_000 });
  await page.getByTestId('console').scrollIntoViewIfNeeded();
  await expect.poll(() => xtermVisible(page, 'console')).toContain('3 steps × 2 seeds: 6 units on 2 workers');
  // Finished: the counters of the rows are drawn from the result (the workers' live samples were of their units).
  await expect(page.getByTestId('counter-chart')).not.toContainText('No counters were recorded');
  await expect(page.getByTestId('counter-chart').locator('circle.point').first()).toBeAttached();
  const exported = await downloadText(page, 'export-json');
  expect(exported.text).toBe(vaxlabJsonText(['run', 'namecache-work', '--param', 'divisor=40', '--seeds', '2']));
  expect((JSON.parse(exported.text) as ExperimentResult).rows.map((r) => r.spread?.seeds)).toEqual([2, 2, 2]);
});
