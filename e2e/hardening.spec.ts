// End-to-end tests of issue 17's page items: "Run again" on a link with
// settings this lab cannot set says exactly which it left out; a link with
// nonsensical numbers (negative times, negative ns per instruction, absurd
// sizes) is refused with the number named, nothing drawn, and D3 logs
// nothing about NaN; the history keeps at most HISTORY_CAP runs, dropping the
// oldest with a note; an address whose processor or disk timing no select
// can show says so under each.  Links are made in Node from a real run of the page.

import { deflateRawSync } from 'node:zlib';
import type { Page } from '@playwright/test';

import { base64urlEncode, crc32, decodeLink, PAYLOAD_KINDS, PERMALINK_VERSION, type SharedRun } from '../web/src/lab/permalink';
import { encodeValue } from '../web/src/lab/linkCodec';
import { HISTORY_CAP } from '../web/src/lab/state/runHistory';
import { chooseExperiment, expect, openLab, permalinkOf, runAndWait, shot, test, waitReady } from './lab';

/** A link of any run, unchecked (as the page's encoder would never make it): the format-2 bytes by hand. */
function craftedLink(run: unknown): string {
  const body = encodeValue(run);
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = PAYLOAD_KINDS.run;
  bytes.set(body, 1);
  const data = new Uint8Array(deflateRawSync(bytes));
  return `${PERMALINK_VERSION}.${crc32(bytes).toString(16).padStart(8, '0')}.${base64urlEncode(data)}`;
}

/** A real run of this page (syscall, 500 iterations), as its permalink holds it. */
async function realRun(page: Page): Promise<SharedRun> {
  await chooseExperiment(page, 'syscall', { iterations: '500' });
  await runAndWait(page);
  const payload = await decodeLink(await permalinkOf(page));
  if (payload.kind !== 'run') throw new Error('a run link');
  return payload.run;
}

test('Run again on a link with settings this lab cannot set: said before and after, exactly which', async ({ page, freshPage }, testInfo) => {
  await openLab(page);
  const run = await realRun(page);
  const foreign = {
    ...run,
    config: { ...run.config, set: { ...run.config.set, maxusers: 48 }, parameters: { ...run.config.parameters, depth: 3 }, kernel: 'like-4.1' },
  };
  const other = await freshPage();
  await openLab(other, `/#r=${craftedLink(foreign)}`);
  const before = other.getByTestId('run-again-dropped');
  await expect(before).toContainText('Run again here would leave out what this lab cannot set:');
  await expect(before).toContainText('parameter depth=3: syscall has no such parameter here');
  await expect(before).toContainText('kernel variable maxusers=48: this lab cannot set it');
  await expect(before).toContainText('kernel like-4.1: not one of this lab\'s kernel variants; the distributed /vmunix boots instead');
  await shot(other, '40-run-again-dropped', testInfo);
  await other.getByTestId('run-again-button').click();
  await expect(other.getByTestId('run-progress')).toContainText(/^Finished/, { timeout: 120_000 });
  const note = other.getByTestId('run-again-note');
  await expect(note).toContainText('Run again left out what this lab cannot set, and ran without it:');
  await expect(note.locator('li')).toHaveText([
    'parameter depth=3: syscall has no such parameter here',
    'kernel variable maxusers=48: this lab cannot set it',
    'kernel like-4.1: not one of this lab\'s kernel variants; the distributed /vmunix boots instead',
  ]);
  // What it could take, it took: the 500 iterations, the distributed kernel.
  await expect(other.getByTestId('result-kernel')).toContainText('/vmunix as distributed');
  // A Run of one's own clears the note.
  await other.getByTestId('run-button').click();
  await expect(other.getByTestId('run-again-note')).toHaveCount(0);
});

test('a link with nonsensical numbers is refused with the number named; nothing is drawn, D3 logs no NaN', async ({ page, freshPage }, testInfo) => {
  await openLab(page);
  const run = await realRun(page);
  const row = run.result.rows[0]!;
  const cases: [string, SharedRun, RegExp][] = [
    ['negative time', { ...run, result: { ...run.result, rows: [{ ...row, guest: { ...row.guest!, real: -5 } }] } },
      /result\.rows\[0\]\.guest\.real, expected a time in seconds \(from 0 to 1000000\), found the number -5/],
    ['negative ns per instruction', { ...run, result: { ...run.result, machine: { ...run.result.machine, nsPerInstruction: -3333 } } },
      /result\.machine\.nsPerInstruction, expected nanoseconds per instruction \(above 0, up to 1000000\), found the number -3333/],
    ['absurdly large', { ...run, result: { ...run.result, rows: [{ ...row, guest: { ...row.guest!, sys: 1e300 } }] } },
      /guest\.sys, expected a time in seconds \(from 0 to 1000000\), found the number 1e\+300/],
    ['negative sample time', { ...run, result: { ...run.result, rows: [{ ...row, counters: { ...row.counters!, t: row.counters!.t.map((t, i) => (i === 1 ? -t : t)) } }] } },
      /counters\.t\[1\], expected a time in seconds/],
  ];
  const other = await freshPage();
  const logs: string[] = [];
  other.on('console', (m) => logs.push(m.text()));
  await openLab(other);
  for (const [name, bad, pattern] of cases) {
    await other.goto(`/#r=${craftedLink(bad)}`);
    const error = other.getByTestId('permalink-error');
    await expect(error, name).toContainText('This link could not be opened.');
    await expect(error, name).toContainText(pattern);
    await expect(other.getByTestId('result-table'), name).toHaveCount(0);
    await expect(other.locator('.shared-banner'), name).toHaveCount(0);
    if (name === 'negative time') await shot(other, '41-link-nonsense-refused', testInfo);
    await error.getByRole('button', { name: 'Dismiss' }).click();
  }
  // The real run's link, and one with every time zero (legal, if odd): drawn, with no NaN anywhere.
  const zero = { ...run, result: { ...run.result, rows: [{ ...row, guest: { ...row.guest!, real: 0, user: 0, sys: 0 } }] } };
  for (const good of [run, zero]) {
    await other.goto(`/#r=${craftedLink(good)}`);
    await expect(other.getByTestId('result-row')).toHaveCount(1);
    await expect(other.getByTestId('results-bar-chart')).toBeVisible();
    expect(await other.locator('svg [transform*="NaN"], svg [d*="NaN"], svg [x*="NaN"], svg [y*="NaN"]').count()).toBe(0);
  }
  expect(logs.filter((l) => /NaN/.test(l)), 'the console says nothing about NaN').toEqual([]);
});

test('an address with a processor or disk timing the lab has not: each select says which value and asks for a choice; picking one lets Run go', async ({ page }, testInfo) => {
  await openLab(page, '/#x=syscall&cpu=123&disk=ssd');
  for (const [id, value, what] of [['toggle-cpu', '123', 'a processor'], ['toggle-disk', 'ssd', 'a disk timing']] as const) {
    const select = page.getByTestId(id);
    await expect(select).toHaveAttribute('aria-invalid', 'true');
    await expect(select).toHaveValue('');
    await expect(page.locator(`#${id}-error`)).toHaveText(`“${value}”, from the address, is not ${what} here: pick one`);
  }
  await expect(page.getByTestId('run-button')).toBeDisabled();
  await expect(page.getByText('Fix the settings marked in red.')).toBeVisible();
  await shot(page, '43-address-bad-choices', testInfo);
  // The value the select showed before it said so (the experiment's own) is a change now, and it clears the error.
  await page.getByTestId('toggle-cpu').selectOption('750');
  await page.getByTestId('toggle-disk').selectOption('rp06');
  await expect(page.locator('#toggle-cpu-error')).toHaveCount(0);
  await expect(page.locator('#toggle-disk-error')).toHaveCount(0);
  await expect(page.getByTestId('run-button')).toBeEnabled();
  await expect(page).toHaveURL(/#x=syscall$/);
});

test(`the history keeps at most ${HISTORY_CAP} runs: the next run drops the oldest and says so`, async ({ page }, testInfo) => {
  await openLab(page);
  await realRun(page);
  await expect(page.getByTestId('history-list').locator('li')).toHaveCount(1);
  // Fill the history to its cap with older copies of that run (in the browser's own IndexedDB).
  await page.evaluate(async (cap) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('vaxlab');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const store = () => db.transaction('runs', 'readwrite').objectStore('runs');
    const [entry] = await new Promise<{ id: string; savedAt: string }[]>((resolve) => {
      const r = store().getAll();
      r.onsuccess = () => resolve(r.result as { id: string; savedAt: string }[]);
    });
    const tx = db.transaction('runs', 'readwrite');
    for (let i = 1; i < cap; i++) {
      tx.objectStore('runs').put({ ...entry, id: `old-${String(i).padStart(3, '0')}`, savedAt: new Date(Date.UTC(2020, 0, 1, 0, i)).toISOString() });
    }
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
  }, HISTORY_CAP);
  await page.reload();
  await waitReady(page);
  const entries = page.getByTestId('history-list').locator('li');
  await expect(entries).toHaveCount(HISTORY_CAP);
  await expect(page.getByTestId('history-note')).toHaveCount(0);
  // One more run: the oldest goes, and the note says how many were dropped.
  await chooseExperiment(page, 'syscall', { iterations: '400' });
  await runAndWait(page);
  await expect(page.getByTestId('history-note')).toHaveText(
    `The history keeps the newest ${HISTORY_CAP} runs: 1 older run was dropped, oldest first. Keep a run for longer with its permalink or Export JSON.`);
  await expect(entries).toHaveCount(HISTORY_CAP);
  // The oldest (2020-01-01 00:01) is the one gone; the next oldest is still there.
  const times = await page.getByTestId('history-list').locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  expect(times).not.toContain('2020-01-01T00:01:00.000Z');
  expect(times).toContain('2020-01-01T00:02:00.000Z');
  await page.getByTestId('history-note').scrollIntoViewIfNeeded();
  await shot(page, '42-history-capped', testInfo);
});
