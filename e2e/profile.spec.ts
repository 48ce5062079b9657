// The Profile view (web/src/lab/components/ProfilePanel.tsx) end to end: a
// profiled run of namecache-ls (ls -l of 600 files at three name cache
// sizes) shows its flame graph (hover, search, zoom), the flat table
// (sorting), the diff of two rows (the cache off against on), exports
// speedscope and folded stacks, and travels in its permalink to a fresh page.

import { decodePermalink } from '../web/src/lab/permalink';
import { chooseExperiment, downloadText, expect, openLab, pageFits, shot, test } from './lab';

test('a profiled run: flame graph, search, zoom, sorted table, the diff of the cache off and on, exports, permalink',
  async ({ page, freshPage }, testInfo) => {
    await openLab(page);

    await test.step('run namecache-ls with Profile on', async () => {
      await chooseExperiment(page, 'namecache-ls');
      await page.getByTestId('profile-toggle').check();
      await page.getByTestId('run-button').click();
      await expect(page.getByTestId('profile-panel')).toBeVisible({ timeout: 120_000 });
      await expect(page.getByTestId('machine-status')).toContainText(/ready/i, { timeout: 30_000 });
    });

    const flame = page.getByTestId('flame-graph');
    await test.step('the flame graph: frames by name, a tooltip, hover', async () => {
      await expect(flame.locator('g.frame').first()).toBeVisible();
      expect(await flame.locator('g.frame[data-name="_namei"]').count()).toBeGreaterThan(0);
      expect(await flame.locator('g.frame[data-name="[ls]"]').count()).toBe(1);
      await expect(flame.locator('g.frame[data-name="[ls]"] title')).toContainText(/total [\d.]+ ms \([\d.]+% of the run\)/);
      await flame.locator('g.frame[data-name="[ls]"] rect').hover();
      await expect(page.getByTestId('flame-hover')).toContainText(/^\[ls\] · total [\d.]+ ms/);
    });

    await test.step('search highlights the frames and says their share', async () => {
      await page.getByTestId('profile-search').fill('namei');
      await expect(page.getByTestId('profile-matched')).toContainText(/“namei”: [\d.]+ ms \([\d.]+%\)/);
      expect(await flame.locator('g.frame.matched').count()).toBeGreaterThan(0);
      expect(await flame.locator('g.frame.dimmed').count()).toBeGreaterThan(0);
      await shot(page, '20-profile-search', testInfo);
      await page.getByTestId('profile-search').fill('');
    });

    await test.step('a click zooms to a frame; Reset zoom goes back', async () => {
      const before = await flame.locator('g.frame').count();
      await flame.locator('g.frame[data-name="_namei"] rect').first().click();
      await expect(page.getByTestId('profile-unzoom')).toBeEnabled();
      // Zoomed: namei takes the whole width, with its callers above it.
      const box = await flame.locator('g.frame[data-name="_namei"]:not(.frame-above) rect').first().boundingBox();
      const width = (await flame.boundingBox())!.width;
      expect(box!.width).toBeGreaterThan(width * 0.95);
      expect(await flame.locator('g.frame.frame-above').count()).toBeGreaterThan(0);
      await page.getByTestId('profile-unzoom').click();
      await expect.poll(() => flame.locator('g.frame').count()).toBe(before);
    });

    await test.step('the flat table sorts by a column, and back', async () => {
      const calls = () => page.getByTestId('profile-flat').locator('tbody tr td:nth-child(2)').allTextContents();
      await page.getByTestId('sort-calls').click();
      const down = (await calls()).map((c) => Number(c.replace(/,/g, '') || 0));
      expect(down.slice(1).every((c, i) => c <= down[i]!)).toBe(true);
      await expect(page.getByTestId('profile-flat').locator('th', { hasText: 'calls' })).toHaveAttribute('aria-sort', 'descending');
      await page.getByTestId('sort-calls').click();
      await expect(page.getByTestId('profile-flat').locator('th', { hasText: 'calls' })).toHaveAttribute('aria-sort', 'ascending');
    });

    await test.step('the diff: the name cache off (A) against GENERIC\'s 154 entries (B)', async () => {
      await page.getByTestId('profile-row').selectOption('ls.nch154');
      await page.getByTestId('profile-diff-with').selectOption('row:ls.nch0');
      const diff = page.getByTestId('profile-diff');
      await expect(diff).toBeVisible();
      await expect(diff.locator('tbody tr').first()).toBeVisible();
      expect(await diff.locator('tbody tr', { hasText: '_namei' }).count()).toBe(1);
      await shot(page, '21-profile-diff', testInfo);
    });

    await test.step('at a phone\'s width the flat table and the diff scroll inside the panel, not the page', async () => {
      await page.setViewportSize({ width: 390, height: 900 });
      await expect.poll(async () => (await pageFits(page)).scrollWidth).toBeLessThanOrEqual((await pageFits(page)).clientWidth);
      const flat = page.getByTestId('profile-flat-box');
      expect(await flat.evaluate((box) => box.scrollWidth > box.clientWidth), 'the flat table is wider than 390 px: its box scrolls').toBe(true);
      await flat.evaluate((box) => box.scrollTo({ left: box.scrollWidth }));
      // Scrolled to its end, the last column is within the window's width.
      const last = (await page.getByTestId('profile-flat').locator('th').last().boundingBox())!;
      expect(last.x).toBeGreaterThanOrEqual(0);
      expect(last.x + last.width).toBeLessThanOrEqual(390);
      await expect(page.getByTestId('profile-diff-box')).toBeVisible();
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await test.step('exports: speedscope JSON and folded stacks', async () => {
      const file = JSON.parse((await downloadText(page, 'export-speedscope')).text);
      expect(file.$schema).toMatch(/speedscope/);
      expect(file.profiles[0].weights.length).toBeGreaterThan(0);
      expect((await downloadText(page, 'export-folded')).text).toMatch(/^\[ls\];.*_namei.* \d+$/m);
    });

    await test.step('the permalink carries the profiles to a fresh page', async () => {
      await page.getByTestId('permalink-button').click();
      const url = page.getByTestId('permalink-url');
      await expect(url).toHaveValue(/[#&]r=2\./);
      const value = await url.inputValue();
      const shared = await decodePermalink(value);
      expect(shared.result.rows.every((r) => r.profile !== undefined)).toBe(true);
      testInfo.annotations.push({ type: 'permalink length', description: `${value.length} characters with 3 profiles` });
      const other = await freshPage();
      await other.goto(value);
      await expect(other.getByTestId('profile-panel')).toBeVisible({ timeout: 30_000 });
      expect(await other.getByTestId('flame-graph').locator('g.frame[data-name="_namei"]').count()).toBeGreaterThan(0);
      await shot(other, '22-profile-permalink', testInfo);
    });
  });
