// End-to-end tests of comparing and sharing (the lab's second pass): two
// runs compared on every figure, in the table and the charts; comparison
// links; a full Table 2 in a link of at most 8 KB; the address keeping the
// settings; a run cut short by a reload kept as interrupted; the history
// across tabs; format-1 links; tables that fit the window at 1366 and 390
// px, in both themes.  The page's data-testid contract is in e2e/README.md.

import type { Page } from '@playwright/test';

import { findExperiment } from '../experiments/runner/experiments';
import { base64urlEncode, crc32, decodeLink, MAX_LINK_CHARS, type SharedRun } from '../web/src/lab/permalink';
import { estimateRun } from '../web/src/lab/status';
import {
  chooseExperiment, downloadText, expect, fitsEverywhere, openLab, panelShot, permalinkOf, resultCells, resultRows, runAndWait, shot,
  test, waitReady,
} from './lab';

const TABLE2_STEPS = findExperiment('table2')!.steps.length;

/** The transposed comparison table (two runs of one row): its rows by figure. */
async function figureRows(page: Page): Promise<Record<string, string[]>> {
  return Object.fromEntries((await resultRows(page)).map((r) => [r[0]!, r.slice(1)]));
}

test('name cache: namework at nchsize 154 and 0 compared shows the hit rate and the system time change; its link holds both runs',
  async ({ page, freshPage }, testInfo) => {
    test.setTimeout(180_000);
    await openLab(page);

    await test.step('namework (20 iterations) with GENERIC\'s name cache, then with nchsize=0', async () => {
      await chooseExperiment(page, 'namework', { iterations: '20' });
      await runAndWait(page);
      await page.locator('details.kernel-vars summary').click();
      await page.getByTestId('toggle-nchsize').fill('0');
      // nchsize is taken (the name cache experiments of several sizes refuse it: they set it themselves).
      await expect(page.getByTestId('run-button')).toBeEnabled();
      await expect(page).toHaveURL(/#x=namework&p\.iterations=20&k\.nchsize=0$/);
      await runAndWait(page);
    });

    await test.step('compared with the previous run: the hit rate and the system time, A and B', async () => {
      const select = page.getByTestId('compare-select');
      const value = await select.locator('option', { hasText: 'Previous run' }).getAttribute('value');
      await select.selectOption(value!);
      await expect(page.getByTestId('compare-diff')).toContainText('A: nchsize=154 (GENERIC) · B: nchsize=0');
      const rows = await figureRows(page);
      const [hitA, hitB, hitDiff, hitChange] = rows['Name hits (%)']!;
      expect(Number(hitA!.replace('%', ''))).toBeGreaterThan(50);
      expect(hitB).toBe('0.0%');
      expect(hitDiff).toMatch(/^-\d+\.\d$/);
      expect(hitChange).toMatch(/^-\d+\.\d points$/);
      const [sysA, sysB] = rows['Sys (s)']!;
      expect(Number(sysB)).toBeGreaterThan(Number(sysA));
      expect(rows['Misses']![1]).not.toBe(rows['Misses']![0]);
      // What changed most, in a sentence: the hit rate, then the times.
      await expect(page.getByTestId('compare-change')).toContainText(/^What changed most: the name-cache hit rate, \d+\.\d% in A and 0\.0% in B .*system time/);
      // The counters of both: A dashed over B.
      await expect(page.getByTestId('counter-chart').locator('path.run-a').first()).toBeAttached();
      await expect(page.getByTestId('counter-chart').locator('.run-legend').first()).toContainText('B: nchsize=0');
      await shot(page, '20-namecache-compared', testInfo);
    });

    const link = await test.step('its permalink holds A and B', async () => {
      await page.getByTestId('permalink-button').click();
      await expect(page.getByTestId('permalink-button')).toHaveText('Copy permalink (A and B)');
      const url = await page.getByTestId('permalink-url').inputValue();
      const payload = await decodeLink(url);
      expect(payload.kind).toBe('comparison');
      if (payload.kind === 'comparison') {
        expect(payload.a.result.kernelSettings).toEqual({});
        expect(payload.b.result.kernelSettings).toEqual({ nchsize: 0 });
      }
      return url;
    });

    await test.step('the comparison link in a fresh context: the same comparison, without a run', async () => {
      const before = await resultRows(page);
      const other = await freshPage();
      await other.goto(link);
      await expect(other.getByTestId('compare-diff')).toContainText('A: nchsize=154 (GENERIC) · B: nchsize=0', { timeout: 30_000 });
      expect(await resultRows(other)).toEqual(before);
      await expect(other.locator('.shared-banner')).toContainText('Two runs compared, opened from their link');
      // A and B change places.
      await other.getByTestId('compare-swap').click();
      await expect(other.getByTestId('compare-diff')).toContainText('A: nchsize=0 · B: nchsize=154 (GENERIC)');
      await expect(other.getByTestId('compare-change')).toContainText(/0\.0% in A and \d+\.\d% in B/);
      await shot(other, '21-comparison-link-fresh-page', testInfo);
    });

    await test.step('no sideways page scroll at 1366 and 390 px, in both themes', async () => {
      await fitsEverywhere(page, [{ part: page.locator('section.results'), name: '22-compare' }]);
    });
  });

test('a full Table 2: its link is at most 8 KB and opens in a fresh context with the same figures and charts',
  async ({ page, freshPage }, testInfo) => {
    test.setTimeout(300_000);
    await openLab(page, '/#x=table2');
    await expect(page.getByTestId('run-estimate')).toContainText(/^Takes (about|under)/);
    await runAndWait(page, 240_000);
    const rows = await resultCells(page);
    expect(rows).toHaveLength(TABLE2_STEPS);
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    // Ours and the paper's real, user and system time, and the paper's 4.2 and 4.1 columns.
    for (const key of ['ours.real', 'ours.user', 'ours.sys', 'paper.main.real', 'paper.main.user', 'paper.main.sys',
      'paper.4.2BSD.real', 'paper.4.1BSD.sys', 'ours.cs', 'ours.faults', 'ours.disk']) {
      expect(rows[0]![key], key).toMatch(/^[\d,.]+%?$/);
    }
    expect(rows[0]!['paper.4.2BSD.real']).toBe('29.0');
    await expect(page.getByTestId('table-scroll-hint')).toBeVisible();

    const link = await test.step('the link: at most 8 KB, with the counters (thinned if need be)', async () => {
      const url = await permalinkOf(page);
      const value = url.slice(url.indexOf('r=') + 2);
      testInfo.annotations.push({ type: 'Table 2 link', description: `${value.length} characters (${url.length} with the address)` });
      expect(value.length).toBeLessThanOrEqual(MAX_LINK_CHARS);
      const payload = await decodeLink(value);
      expect(payload.kind).toBe('run');
      if (payload.kind === 'run') {
        expect(payload.run.result.rows.every((r) => (r.counters?.t.length ?? 0) >= 16)).toBe(true);
      }
      return url;
    });

    await test.step('in a fresh context: the same figures, the charts, what the link left out', async () => {
      const other = await freshPage();
      await other.goto(link);
      await expect(other.getByTestId('result-row')).toHaveCount(TABLE2_STEPS, { timeout: 30_000 });
      expect(await resultCells(other)).toEqual(rows);
      await expect(other.getByTestId('counter-chart').locator('circle.point').first()).toBeAttached();
      await expect(other.locator('.shared-banner')).toContainText(/To fit the link, the counter series/);
      await shot(other, '23-table2-link-fresh-page', testInfo);
      await fitsEverywhere(other, [{ part: other.locator('section.results'), name: '24-table2' }]);
    });
  });

test('the address keeps the settings across a reload; a reload during a run asks first and keeps the rows done as interrupted',
  async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    await openLab(page);

    await test.step('the settings in the address, and back after a reload', async () => {
      await chooseExperiment(page, 'table2');
      await page.getByTestId('toggle-cpu').selectOption('780');
      await expect(page).toHaveURL(/#x=table2&cpu=780$/);
      await page.reload();
      await waitReady(page);
      await expect(page.getByTestId('experiment-table2')).toHaveAttribute('aria-pressed', 'true');
      await expect(page.getByTestId('toggle-cpu')).toHaveValue('780');
    });

    await test.step('run table2; reload at its third step: the browser asks, the history keeps what was done', async () => {
      await page.getByTestId('run-button').click();
      await expect(page.getByTestId('run-progress')).toContainText(/^Step ([3-9]|\d\d+) of \d+/, { timeout: 90_000 });
      // The bar counts the steps done by their expected host time (status.ts runFraction), not as equal shares: at
      // the third step it is at least past the run's own work and the first two steps' (the rate cancels out), and
      // not done.
      const value = Number(await page.getByTestId('run-progress').locator('progress').getAttribute('value'));
      const estimate = estimateRun('table2', { cpu: '780', memoryMB: findExperiment('table2')!.machine.memoryMB, set: {}, parameters: {} }, 1)!;
      const firstTwo = estimate.runHostSeconds + estimate.stepHostSeconds[0]! + estimate.stepHostSeconds[1]!;
      expect(value).toBeGreaterThanOrEqual(Math.floor((1000 * firstTwo) / estimate.hostSeconds));
      expect(value).toBeLessThan(1000);
      await expect(page.getByTestId('history-list')).toContainText(/table2.*running: \d+ of 29 rows done/);
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.type());
        void d.accept();
      });
      await page.reload();
      expect(dialogs).toEqual(['beforeunload']);
      await waitReady(page);
      const entry = page.getByTestId('history-list').locator('li').first();
      await expect(entry).toContainText(/table2.*interrupted: ([2-9]|\d\d) of 29 rows done/);
      await entry.locator('.history-open').click();
      await expect(page.getByTestId('result-outcome')).toContainText(/^Interrupted after \d+ of 29 rows/);
      expect((await resultCells(page)).every((r) => r.status === 'ok')).toBe(true);
      await shot(page, '25-interrupted-after-reload', testInfo);
    });
  });

test('the history follows other tabs; a format-1 link still opens; a reduced paging run says n/c', async ({ page, context }, testInfo) => {
  test.setTimeout(180_000);
  await openLab(page);
  const second = await context.newPage();
  await second.goto('/');
  await expect(second.getByTestId('history-list')).toContainText(/no runs/i);

  await test.step('a run in one tab appears in the other\'s history', async () => {
    await chooseExperiment(page, 'table8', { divisor: '10' });
    await runAndWait(page);
    // Table 8 boots like-4.2 by default (the lab's closest kernel to the paper's 4.2BSD column), and says so.
    await expect(page.getByTestId('result-kernel')).toContainText('(like-4.2, sha256 ');
    await expect(page.getByTestId('result-kernel'))
      .toContainText('this experiment’s default, the lab’s closest kernel to the paper’s 4.2BSD column');
    await expect(second.getByTestId('history-list')).toContainText('table8', { timeout: 10_000 });
  });

  await test.step('reduced: the paper\'s figures say n/c, not a number beside ours', async () => {
    const rows = await resultCells(page);
    expect(rows.length).toBe(3);
    for (const r of rows) {
      for (const key of ['paper.main.real', 'paper.main.sys', 'diff.s', 'diff.percent', 'paper.4.1BSD.real']) expect(r[key], key).toBe('n/c');
      expect(r['ours.pfst']).toBe('—');
    }
    await expect(page.locator('section.results')).toContainText('n/c: not comparable — our counts are reduced (divisor 10)');
    await panelShot(page.locator('section.results'), '26-paging-reduced');
  });

  await test.step('a link of the first format (the deflated JSON of a run) opens', async () => {
    const result = JSON.parse((await downloadText(page, 'export-json')).text);
    const run: SharedRun = { experiment: 'table8', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { divisor: 10 } }, result };
    const json = new TextEncoder().encode(JSON.stringify(run));
    const deflated = new Uint8Array(await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer());
    await second.goto(`/#r=1.${crc32(json).toString(16).padStart(8, '0')}.${base64urlEncode(deflated)}`);
    await expect(second.getByTestId('result-row')).toHaveCount(3, { timeout: 30_000 });
    expect(await resultCells(second)).toEqual(await resultCells(page));
    await expect(second.getByTestId('permalink-error')).toHaveCount(0);
    await shot(second, '27-format-1-link', testInfo);
  });

  await test.step('a run of one\'s own is compared with the link\'s run', async () => {
    await waitReady(second);
    await second.getByTestId('toggle-cpu').selectOption('780');
    await runAndWait(second);
    const select = second.getByTestId('compare-select');
    const option = select.locator('optgroup[label="Shared runs opened here"] option').first();
    await select.selectOption((await option.getAttribute('value'))!);
    await expect(second.getByTestId('compare-diff')).toContainText('A: cpu=750 · B: cpu=780');
    await expect(second.getByTestId('result-row')).toHaveCount(3);
  });
});
