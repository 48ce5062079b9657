// The constants the TypeScript binding shares with C (constants.ts) against
// the C sources that define them, read as text, and against the built
// module where it can say them itself.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  ABI_VERSION, CPU_NS_PER_INSTRUCTION, DISK_TIMINGS, DISK_TYPES, RA_BLOCKS, RB_SINGLE, StopReason, VAX780_PANICKED,
  VAX780_REBOOTED,
} from './constants';
import { REPO_ROOT, loadVaxNode } from './vaxNode';

const c = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

/** The one match of re in the C file, or a failure naming what was looked for where. */
function find(path: string, re: RegExp, what: string): RegExpExecArray {
  const m = re.exec(c(path));
  assert.ok(m, `${path} no longer says ${what} as ${re} expects: find where C defines it now and update constants.ts and this test`);
  return m;
}

test('StopReason is vax_stop_reason (emu/src/vax.h), member for member, and the module names them alike', async () => {
  const body = find('emu/src/vax.h', /typedef enum \{([^}]*)\} vax_stop_reason;/, 'the vax_stop_reason enum')[1]!;
  const members = [...body.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/VAX_STOP_(\w+)(?:\s*=\s*(\d+))?/g)];
  assert.equal(members[0]![2], '0', 'the enum starts at 0');
  assert.ok(members.slice(1).every((m) => m[2] === undefined), 'only the first member has a value');
  const camel = (s: string) => s.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, ch: string) => ch.toUpperCase());
  assert.deepEqual(Object.fromEntries(members.map((m, i) => [camel(m[1]!), i])), StopReason);

  const api = await loadVaxNode();
  for (const [name, code] of Object.entries(StopReason)) {
    assert.equal(api.stopReasonName(code), name.replace(/[A-Z]/g, (ch, i: number) => `${i ? '-' : ''}${ch.toLowerCase()}`));
  }
  assert.equal(api.stopReasonName(Object.keys(StopReason).length), 'unknown');
});

test('VAX780_REBOOTED and VAX780_PANICKED are the session\'s codes (emu/src/system/session.h), which the wasm glue returns', () => {
  for (const [name, code] of [['REBOOTED', VAX780_REBOOTED], ['PANICKED', VAX780_PANICKED]] as const) {
    const m = find('emu/src/system/session.h', new RegExp(`#define VAX_SESSION_${name} (\\d+)\\b`), `VAX_SESSION_${name}`);
    assert.equal(Number(m[1]), code, name);
    assert.ok(!Object.values(StopReason).includes(code as StopReason), `${name} is never a vax_stop_reason`);
  }
  find('emu/wasm/vax780_wasm.c', /#define VAX780W_REBOOTED VAX_SESSION_REBOOTED\b/, 'VAX780W_REBOOTED as the session\'s code');
});

test('CPU_NS_PER_INSTRUCTION is the presets of emu/src/system/session.h, which vax780 --cpu takes', () => {
  for (const [cpu, ns] of Object.entries(CPU_NS_PER_INSTRUCTION)) {
    const m = find('emu/src/system/session.h', new RegExp(`#define VAX_NS_PER_INSTRUCTION_${cpu} (\\d+)u?\\b`), `the ${cpu} preset`);
    assert.equal(Number(m[1]), ns, `--cpu ${cpu}`);
    find('emu/tools/vax780.c', new RegExp(`!strcmp\\(v, "${cpu}"\\)\\)\\s*[\\w.>-]*ns_per_instruction = VAX_NS_PER_INSTRUCTION_${cpu};`), `--cpu ${cpu}`);
  }
});

test('DISK_TIMINGS is rp_timing_names() (emu/src/massbus/rp.c), the default first', () => {
  const m = find('emu/src/massbus/rp.c', /rp_timing_names\(void\)\s*\{\s*return "([^"]*)";/, 'rp_timing_names()');
  assert.deepEqual(m[1]!.split(' '), [...DISK_TIMINGS]);
  const table = find('emu/src/massbus/rp.c', /\{"(\w+)", 22, 19, 815,/, 'the RP06 profile first in its table');
  assert.equal(table[1], DISK_TIMINGS[0]);
});

test('DISK_TYPES and RA_BLOCKS are the RP06 and the RA drives of emu/src/unibus/uda50.c, blocks as its table says', () => {
  const names = find('emu/src/unibus/uda50.c', /ra_type_names\(void\)\s*\{\s*return "([^"]*)";/, 'ra_type_names()')[1]!.split(' ');
  assert.deepEqual(DISK_TYPES, ['RP06', ...names]);
  assert.deepEqual(Object.keys(RA_BLOCKS), names);
  for (const name of names) {
    const row = find('emu/src/unibus/uda50.c', new RegExp(`\\{"${name}", \\d+, \\d+, (\\d+),`), `the ${name} row of ra_types[]`);
    assert.equal(Number(row[1]), RA_BLOCKS[name as keyof typeof RA_BLOCKS], name);
  }
});

test('ABI_VERSION is vaxw_abi_version() (emu/wasm/vax_wasm.c), in the source and in the built module', async () => {
  const m = find('emu/wasm/vax_wasm.c', /vaxw_abi_version\(void\)\s*\{[^}]*?return (\d+);/, 'vaxw_abi_version()');
  assert.equal(Number(m[1]), ABI_VERSION);
  assert.equal((await loadVaxNode()).module._vaxw_abi_version(), ABI_VERSION);
});

test('RB_SINGLE is the boot flag of emu/src/boot/boot.h', () => {
  const m = find('emu/src/boot/boot.h', /#define RB_SINGLE (0x[0-9a-f]+|\d+)u?\b/i, 'RB_SINGLE');
  assert.equal(Number(m[1]), RB_SINGLE);
});
