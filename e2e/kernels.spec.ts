// End-to-end test of the Kernel choice (issue 14's page part): the variants
// the installer built, listed with their descriptions and paper sections;
// the chosen one fetched only when a run needs it (the network requests say
// so), passed to the run, the result and the history labelled with it, the
// address keeping it; and the variant compared with GENERIC, with the
// paper's 4.2 → 4.3 change beside ours.  The page's data-testid contract is
// in e2e/README.md.

import type { Page } from '@playwright/test';

import { KERNELS, LIKE_42, NO_OFFSET_CACHE } from '../experiments/kernels/variants';
import { decodeLink } from '../web/src/lab/permalink';
import { chooseExperiment, expect, fitsEverywhere, openLab, permalinkOf, runAndWait, shot, test } from './lab';

/** The rows of a table by its test id prefix ('kernel-change'), cells by their data-col. */
async function tableCells(page: Page, prefix: string): Promise<Record<string, string>[]> {
  return page.getByTestId(`${prefix}-row`).evaluateAll((rows) => rows.map((r) =>
    Object.fromEntries(Array.from(r.querySelectorAll('[data-col]'), (c) => [c.getAttribute('data-col')!, (c.textContent ?? '').trim()]))));
}

test('a kernel variant: listed, fetched only when run, labelled in the result and history, compared with GENERIC beside the paper\'s 4.2 → 4.3',
  async ({ page, freshPage }, testInfo) => {
    test.setTimeout(240_000);
    const kernelRequests: string[] = [];
    page.on('request', (r) => {
      if (/-kernel-/.test(r.url())) kernelRequests.push(new URL(r.url()).pathname);
    });
    await openLab(page);

    await test.step('the choice lists every kernel the installer builds, with its description and paper sections', async () => {
      const select = page.getByTestId('kernel-variant');
      const options = await select.locator('option').evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));
      // The experiment's own, the distributed /vmunix by name, then every variant.
      expect(options.map(([v]) => v)).toEqual(['', 'vmunix', ...KERNELS.map((k) => k.name)]);
      // "4.3BSD without ..." one of the paper's improvements, or "4.3BSD with ..., as of spring 1985".
      for (const [, text] of options.slice(3)) expect(text).toMatch(/^4\.3BSD without |^4\.3BSD with .*, as of spring 1985$/);
      for (const [, text] of options) expect(text).not.toMatch(/4\.2BSD/);
      // The page's first experiment, syscall, a Table 2 row: the paper's kernel by default.
      expect(options[0]![1]).toBe('The experiment’s: 4.3BSD with the open-file scans and without the text cache, as of spring 1985 (the paper’s kernel)');
      await expect(page.getByTestId('kernel-variant-info')).toContainText('Table 2 boots it by default');
      // A paging row (Tables 7 and 8, against the paper's 4.2BSD column): like-4.2 by default, the lab's closest
      // kernel to that column, named as the 4.3BSD it is.
      await chooseExperiment(page, 'randpage');
      const pagingOwn = (await select.locator('option').first().textContent()) ?? '';
      expect(pagingOwn).toBe(`The experiment’s: ${LIKE_42.label} (the lab’s closest to the paper’s 4.2 column)`);
      expect(pagingOwn).not.toMatch(/4\.2BSD/);
      await expect(select).toHaveValue('');
      await expect(page.getByTestId('kernel-variant-info'))
        .toContainText('Tables 7 and 8 and their paging rows boot it by default');
      // ls -l of 600 files, once: the run on the distributed /vmunix first (GENERIC), its own.
      await chooseExperiment(page, 'ls-l');
      await expect(page.getByTestId('kernel-variant-info')).toContainText('fetched only when chosen');
      await runAndWait(page);
      await expect(page.getByTestId('result-kernel')).toContainText('4.3BSD, /vmunix as distributed');
      expect(kernelRequests, 'no kernel file is fetched for the distributed /vmunix').toEqual([]);

      await select.selectOption(NO_OFFSET_CACHE.name);
      const info = page.getByTestId('kernel-variant-info');
      await expect(info).toContainText(NO_OFFSET_CACHE.label);
      await expect(info).toContainText(`paper ${NO_OFFSET_CACHE.paper}`);
      await expect(info).toContainText('22.3 s of system time before the per-process cache');
      await expect(page).toHaveURL(/#x=ls-l&variant=no-offset-cache$/);
      expect(kernelRequests, 'choosing fetches nothing yet').toEqual([]);
    });

    await test.step('the run boots the variant: fetched once, the result and the history say which kernel', async () => {
      await runAndWait(page);
      expect(kernelRequests).toEqual([`/images/43bsd-kernel-${NO_OFFSET_CACHE.name}.gz`]);
      await expect(page.getByTestId('result-kernel')).toContainText(`${NO_OFFSET_CACHE.label} (${NO_OFFSET_CACHE.name}, sha256 `);
      const sys = await tableCells(page, 'result');
      // Without the offset cache ls -l takes far more system time than the paper's 3.7 s with both caches.
      expect(Number(sys[0]!['ours.sys'])).toBeGreaterThan(10);
      await expect(page.getByTestId('history-kernel').first()).toHaveText(`kernel ${NO_OFFSET_CACHE.name}`);
      // A run again uses the kernel already fetched.
      await runAndWait(page);
      expect(kernelRequests).toHaveLength(1);
    });

    await test.step('compared with GENERIC: the paper\'s 4.2 → 4.3 change beside ours', async () => {
      const select = page.getByTestId('compare-select');
      const value = await select.locator('option', { hasText: 'kernel=/vmunix' }).first().getAttribute('value');
      await select.selectOption(value!);
      await expect(page.getByTestId('compare-diff')).toContainText('A: kernel=/vmunix · B: kernel=no-offset-cache');
      const rows = await tableCells(page, 'kernel-change');
      expect(rows).toHaveLength(1);
      const r = rows[0]!;
      expect([r['figure'], r['paper.before'], r['paper.after'], r['paper.change']]).toEqual(['System', '22.3', '3.70', '-83.4%']);
      expect(Number(r['ours.before'])).toBeGreaterThan(Number(r['ours.after']) * 3);
      expect(r['ours.change']).toMatch(/^-\d+\.\d%$/);
      await expect(page.getByTestId('kernel-change')).toContainText('ran 4.3BSD without the per-process directory offset cache');
      await shot(page, '30-kernel-compared', testInfo);
    });

    await test.step('the comparison\'s link keeps the kernel; a fresh page shows the same, fetching no kernel', async () => {
      const url = await permalinkOf(page);
      const payload = await decodeLink(url);
      expect(payload.kind).toBe('comparison');
      if (payload.kind === 'comparison') {
        expect(payload.b.config.kernel).toBe(NO_OFFSET_CACHE.name);
        expect(payload.b.result.kernel?.name).toBe(`${NO_OFFSET_CACHE.name}: ${NO_OFFSET_CACHE.label}`);
        expect(payload.a.result.kernel).toBeUndefined();
      }
      const other = await freshPage();
      const fetched: string[] = [];
      other.on('request', (r) => {
        if (/-kernel-/.test(r.url())) fetched.push(r.url());
      });
      await other.goto(url);
      await expect(other.getByTestId('kernel-change-row')).toHaveCount(1, { timeout: 30_000 });
      await expect(other.getByTestId('kernel-variant')).toHaveValue(NO_OFFSET_CACHE.name);
      // The banner over the shared run (B) names its kernel, as its Kernel line does.
      await expect(other.getByTestId('shared-machine')).toContainText(`; kernel ${NO_OFFSET_CACHE.label};`);
      expect(fetched).toEqual([]);
    });

    await test.step('the page fits at 1366 and 390 px in both themes', async () => {
      await fitsEverywhere(page, [
        { part: page.locator('section.results'), name: '31-kernel-compare' },
        { part: page.locator('section.settings'), name: '32-kernel-choice' },
      ]);
    });
  });

test('a sweep over the kernel variants on two workers: only the variants swept are fetched, every point labelled',
  async ({ page }) => {
    test.setTimeout(180_000);
    const kernelRequests: string[] = [];
    page.on('request', (r) => {
      if (/-kernel-/.test(r.url())) kernelRequests.push(new URL(r.url()).pathname);
    });
    await openLab(page);
    await chooseExperiment(page, 'ls-l');
    await page.getByTestId('sweep-setting-0').selectOption('kernel');
    await page.getByTestId('sweep-values-0').fill('generic,no-offset-cache,no-name-cache');
    await page.getByTestId('sweep-jobs').fill('2');
    expect(kernelRequests).toEqual([]);
    await page.getByTestId('sweep-run').click();
    await expect(page.getByTestId('sweep-outcome')).toContainText('kernel = generic, no-offset-cache, no-name-cache: 3 of 3 points ok', { timeout: 120_000 });
    // Only the three chosen (each worker fetches the sweep's variants once, before its first point).
    expect(new Set(kernelRequests)).toEqual(new Set(['generic', 'no-offset-cache', 'no-name-cache'].map((n) => `/images/43bsd-kernel-${n}.gz`)));
    const rows = await page.getByTestId('sweep-results').getByTestId('result-row').evaluateAll((rs) =>
      rs.map((r) => Array.from(r.querySelectorAll('td, th'), (c) => (c.textContent ?? '').trim())));
    expect(rows.map((r) => r[0])).toEqual(['generic', 'no-offset-cache', 'no-name-cache']);
  });
