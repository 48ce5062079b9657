// End-to-end test of "How close are we?" (issue 12's page view): with no
// runs it offers to run each table's experiment as the paper ran it; after a
// run it shows that table — ours against the paper, the held-out rows'
// median and largest |error|, the calibration rows apart — with the same
// figures `npx vaxlab fidelity` computes from the same result (the runner's
// functions, run here in Node on the run's own link); after a reload it
// reads the runs from the history.

import type { Page } from '@playwright/test';

import { FREE_MEMORY_PROBE_KB, formatFidelity, nameCacheFidelity, table2Fidelity } from '../experiments/runner/fidelity';
import type { ExperimentResult } from '../experiments/runner/result';
import { validateSweep } from '../experiments/runner/sweep';
import { decodeLink, encodePermalink } from '../web/src/lab/permalink';
import { chooseExperiment, expect, fitsEverywhere, openLab, permalinkOf, test, vaxlabJson } from './lab';

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
      await expect(panel.getByTestId('fidelity-source-namecache')).toContainText(/; one seed \(Seeds sets more\)\.$/);
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

test('Table 7 from a link made in Node: its worst row swept over the buffer cache in the page gives the page-ins `vaxlab sweep` ' +
  'gives; the whole table swept over the probes\' buffer caches gives every counted row its free-memory probes',
  async ({ page }) => {
    test.setTimeout(600_000);
    // Table 7 as the paper ran it (like-4.2, 4.5 MB), run by the CLI: about 20 s natively, much longer in a page.
    const result = vaxlabJson(['run', 'table7']) as ExperimentResult;
    const value = await encodePermalink({
      experiment: 'table7', result,
      config: { cpu: result.machine.cpu as '750' | '780', memoryMB: result.machine.memoryMB, set: {}, parameters: result.parameters },
    });
    await openLab(page, `/#r=${value}`);
    const panel = page.getByTestId('fidelity-panel');
    await expect(panel.getByTestId('fidelity-source-table7')).toContainText('a shared run (from its link)');
    // gausspage.40 is the row furthest from the paper's count: the offer names it and the buffer cache either side
    // of the kernel's own 332 KB.
    const own = 332;
    const values = [own - FREE_MEMORY_PROBE_KB, own, own + FREE_MEMORY_PROBE_KB];
    const sweep = panel.getByTestId('fidelity-sweep-free-memory');
    await expect(sweep).toHaveText(`Sweep gausspage.40 over bufpages ${values.join(', ')} KB`);
    await sweep.click();
    await expect(page.getByTestId('sweep-status')).toContainText(/^Finished in .*: 3 of 3 units ran/, { timeout: 180_000 });
    await expect(page.getByTestId('sweep-outcome')).toContainText(`bufpages = ${values.join(', ')}: 3 of 3 points ok`);
    const rows = await page.getByTestId('sweep-results').getByTestId('result-row').evaluateAll((trs) =>
      trs.map((r) => Array.from(r.querySelectorAll('td, th'), (c) => (c.textContent ?? '').trim())));
    expect(rows.map((r) => r[0])).toEqual(values.map(String));
    // The sweep shows the row's page-ins, the figure Table 7 compares.
    await expect(page.getByTestId('sweep-measure')).toHaveValue('faults');
    // The page's page-ins, point for point, are the CLI's: the same machine, kernel and seed give the same run.
    const cli = validateSweep(vaxlabJson(['sweep', 'gausspage.40', '--set', `bufpages=${values.join(',')}`]), 'the CLI\'s sweep');
    const cliFaults = cli.points.map((p) => p.result!.rows[0]!.derived!.pageFaults!);
    const heads = await page.getByTestId('sweep-results').locator('thead tr').last().locator('th').allTextContents();
    const at = heads.findIndex((h) => /^Page faults/.test(h.trim()));
    expect(at, heads.join(' | ')).toBeGreaterThan(0);
    expect(rows.map((r) => Number(r[at]!.replace(/,/g, '')))).toEqual(cliFaults);
    // And free memory moves the row as the CLI's probes say: fewer page-ins with 64 KB more free memory.
    expect(cliFaults[0]!).toBeLessThan(cliFaults[1]!);
    expect(cliFaults[1]!).toBeLessThan(cliFaults[2]!);

    // Every counted row's probes, as `vaxlab fidelity` prints them: the page offers the whole table at the two
    // buffer caches (more free memory first), on the link's own settings.
    await expect(panel.getByTestId('fidelity-probes-source')).toHaveCount(0);
    const probe = panel.getByTestId('fidelity-probe-free-memory');
    const steps = result.rows.length;
    await expect(probe).toHaveText(`Sweep table7 over bufpages ${values[0]}, ${values[2]} KB (${2 * steps} steps)`);
    await probe.click();
    await expect(page.getByTestId('sweep-status')).toContainText(new RegExp(`^Finished in .*: ${2 * steps} of ${2 * steps} units ran`),
      { timeout: 300_000 });
    await expect(panel.getByTestId('fidelity-probes-source')).toContainText('your sweeps');
    await expect(panel.getByTestId('fidelity-probe-free-memory')).toHaveCount(0);
    await panel.getByTestId('fidelity-part-table7').locator('summary').click();
    const table = panel.getByTestId('fidelity-table7-table');
    const probeHeads = await table.locator('thead tr').last().locator('th').allTextContents();
    const col = probeHeads.findIndex((h) => h.trim() === `${FREE_MEMORY_PROBE_KB} KB less / more free`);
    expect(col, probeHeads.join(' | ')).toBeGreaterThan(0);
    const cells = await panel.getByTestId('fidelity-table7-row').evaluateAll((trs, at) =>
      trs.map((r) => Array.from(r.querySelectorAll('td, th'), (c) => (c.textContent ?? '').trim())).map((r) => [r[0]!, r[at]!]), col);
    // gausspage.40's probes in the page are the CLI's sweep of that row at the same buffer caches (Node and the page,
    // the same machine, kernel and seed); every counted row has its two counts.
    expect(cells.find(([label]) => label === 'gausspage.40')![1]).toBe(`${cliFaults[2]} / ${cliFaults[0]}`);
    const counted = result.rows.filter((r) => (r.paper?.pageFaults ?? 0) >= 100).map((r) => r.test);
    expect(counted.length).toBe(9);
    for (const label of counted) expect(cells.find(([l]) => l === label)![1], label).toMatch(/^\d+ \/ \d+$/);
    await fitsEverywhere(page, [
      { part: panel.getByTestId('fidelity-part-table7'), name: '51-fidelity-table7' },
      { part: page.getByTestId('sweep-results'), name: '52-free-memory-sweep' },
    ]);
  });
