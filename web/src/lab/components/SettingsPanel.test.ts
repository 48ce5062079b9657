// The Machine and kernel panel rendered to HTML without a browser (react-dom/server, a real LabController): the
// disk timing select offers each of toggles.ts' DISK_TIMING_NAMES by its label, in DISK_TIMINGS' order, and its
// help is the disk toggle's own words.  (The page itself is tested in a browser by e2e/.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

import { DISK_TIMINGS } from '../../../../emu/js/constants';
import { DISK_TIMING_NAMES, findToggle, toggleHelp } from '../../../../experiments/runner/toggles';
import { LabController } from '../controller';
import type { PageAddress } from '../state/shown';
import { SettingsPanel } from './SettingsPanel';

function renderedPanel(seeds: string | null = null): string {
  const address: PageAddress = { hash: () => '', base: () => 'https://lab.example/vaxlab/', replace: () => {}, copy: async () => {} };
  const lab = new LabController({ imageBase: 'https://lab.example/images/', address, storage: null, channel: null });
  if (seeds !== null) lab.form.setSeeds(seeds);
  return renderToStaticMarkup(createElement(SettingsPanel, { lab }));
}

/** The options of the select with this id in the markup, as [value, text]. */
function selectOptions(html: string, id: string): [string, string][] {
  const select = new RegExp(`<select[^>]* id="${id}"[^>]*>(.*?)</select>`).exec(html);
  assert.ok(select, `a select #${id}`);
  return [...select[1]!.matchAll(/<option[^>]* value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1]!, m[2]!]);
}

test('the disk timing select offers every DISK_TIMINGS id by its DISK_TIMING_NAMES label, and says the toggle\'s help', () => {
  const html = renderedPanel();
  const options = selectOptions(html, 'toggle-disk');
  assert.deepEqual(options, DISK_TIMINGS.map((id) => [id, DISK_TIMING_NAMES[id].label]));
  assert.equal(options.length, 4);
  assert.deepEqual(options[2], ['ideal', 'Ideal (no latency)']);
  const help = /<span[^>]* id="toggle-disk-help"[^>]*>([^<]*)<\/span>/.exec(html);
  assert.ok(help, 'the select\'s help');
  const escaped = toggleHelp(findToggle('disk')!).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
  assert.ok(help[1]!.startsWith(escaped), help[1]);
});

test('the Seeds field: 1 by default; a value the page does not run is marked under it as the other fields are', () => {
  const input = (html: string) => /<input[^>]* id="seeds"[^>]*>/.exec(html)?.[0] ?? '';
  const plain = renderedPanel();
  assert.match(input(plain), /value="1"/);
  assert.doesNotMatch(input(plain), /aria-invalid/);
  assert.doesNotMatch(plain, /id="seeds-error"/);
  assert.match(input(renderedPanel('3')), /value="3"/);
  const bad = renderedPanel('12');
  assert.match(input(bad), /value="12"/);
  assert.match(input(bad), /aria-invalid="true"/);
  assert.match(input(bad), /aria-describedby="seeds-help seeds-error"/);
  assert.match(bad, /<span class="field-error" id="seeds-error">a whole number from 1 to 9<\/span>/);
});
