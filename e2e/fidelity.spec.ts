// End-to-end test of "How close are we?" (issue 12's page view): with no
// runs it offers to run each table's experiment as the paper ran it; after a
// run it shows that table — ours against the paper, the held-out rows'
// median and largest |error|, the calibration rows apart — with the same
// figures `npx vaxlab fidelity` computes from the same result (the runner's
// functions, run here in Node on the run's own link); after a reload it
// reads the runs from the history.

import type { Page } from '@playwright/test';

import { formatFidelity, nameCacheFidelity, table2Fidelity } from '../experiments/runner/fidelity';
import { decodeLink } from '../web/src/lab/permalink';
import { chooseExperiment, expect, fitsEverywhere, openLab, permalinkOf, test } from './lab';

async function waitFinished(page: Page, timeout = 180_000): Promise<void> {
  await expect(page.getByTestId('run-progress')).toContainText(/^Finished/, { timeout });
  await expect(page.getByTestId('machine-status')).toContainText(/ready/i);
}

/** The result shown, as its permalink holds it. */
async function shownResult(page: Page) {
  const payload = await decodeLink(await permalinkOf(page));
  if (payload.kind !== 'run') throw new Error('a run link');
  return payload.run.result;
}

/** The summary lines as formatFidelity prints them ("elapsed: 26 held-out rows, …"). */
const cliLines = (text: string) => text.split('\n').filter((l) => /held-out rows?, median/.test(l));

test('How close are we?: offers the runs, then shows each table as `vaxlab fidelity` does, calibration rows apart; read back from the history',
  async ({ page }) => {
    test.setTimeout(420_000);
    await openLab(page);
    const panel = page.getByTestId('fidelity-panel');
    for (const key of ['table2', 'table7', 'table8', 'namecache']) await expect(panel.getByTestId(`fidelity-missing-${key}`)).toBeVisible();

    await test.step('the name cache: run from the view, at the paper\'s settings', async () => {
      await panel.getByTestId('fidelity-run-namecache').click();
      await waitFinished(page);
      const cli = cliLines(formatFidelity(nameCacheFidelity(await shownResult(page))));
      expect(cli).toHaveLength(1);
      const summary = panel.getByTestId('fidelity-summary-namecache').locator('li');
      await expect(summary).toHaveText([cli[0]!.replace(/^system/, 'System')]);
      await expect(panel.getByTestId('fidelity-source-namecache')).toContainText('From this page’s run of');
    });

    await test.step('Table 2 (divided by 20): the calibration rows apart and marked, the held-out rows summed up', async () => {
      await chooseExperiment(page, 'table2', { divisor: '20' });
      await page.getByTestId('run-button').click();
      await waitFinished(page, 300_000);
      const result = await shownResult(page);
      const cli = cliLines(formatFidelity(table2Fidelity(result)));
      expect(cli).toHaveLength(2);
      await expect(panel.getByTestId('fidelity-summary-table2').locator('li')).toHaveText(
        cli.map((l) => l.replace(/^elapsed/, 'Elapsed').replace(/^system/, 'System')));
      await expect(panel.getByTestId('fidelity-source-table2')).toContainText('counts divided by 20');
      await panel.getByTestId('fidelity-part-table2').locator('summary').click();
      const labels = await panel.getByTestId('fidelity-table2-row').locator('th').allTextContents();
      const head = labels.indexOf('Calibration (not counted)');
      const calibration = result.rows.filter((r) => r.calibration).map((r) => `${r.test} (calibration)`);
      expect(calibration.length).toBeGreaterThan(0);
      expect(labels.slice(head + 1)).toEqual(calibration);
      expect(head).toBe(result.rows.filter((r) => r.status === 'ok' && !r.calibration).length);
      // The other tables still offer their runs (Table 7 at the paper's counts is long: not run here).
      await expect(panel.getByTestId('fidelity-run-table7')).toBeEnabled();
    });

    await test.step('in a new visit the view reads the runs from the history', async () => {
      // (Not a reload: the address holds the last permalink made, whose run would be read from the link.)
      await openLab(page);
      await expect(panel.getByTestId('fidelity-source-table2')).toContainText('From your history, saved');
      await expect(panel.getByTestId('fidelity-source-namecache')).toContainText('From your history, saved');
    });

    await test.step('the page fits at 1366 and 390 px in both themes', async () => {
      await panel.getByTestId('fidelity-part-table2').locator('summary').click();
      await fitsEverywhere(page, [{ part: panel, name: '50-fidelity' }]);
    });
  });
