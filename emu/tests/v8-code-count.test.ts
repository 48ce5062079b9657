// The parsers of emu/bench/v8-code-count.ts on small made-up outputs of
// callgrind (--dump-instr=yes) and V8's --print-wasm-code.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { countByFunction, parseCallgrind, parseWasmCode } from '../bench/v8-code-count';

const CALLGRIND = [
  'version: 1',
  'creator: callgrind-3.19.0',
  'positions: instr line',
  'events: Ir',
  'fl=(1) ???',
  'fn=(1) 0x0000000000001000',
  '0x1000 0 5',
  '+2 * 3',
  'cfn=(2) elsewhere',
  'calls=1 0x2000 0',
  '* * 100',
  '+3 * 7',
  '+5 * 2',
  'fn=(2)',
  '0x2000 0 4',
  '0x3000 0 9',
  '',
  'totals: 30',
].join('\n');

const CODE = [
  'some other output',
  '--- WebAssembly code ---',
  'name: foo',
  'index: 1',
  'kind: wasm function',
  'compiler: TurboFan',
  'Instructions (size = 14)',
  '0x1000     0  55                   push rbp',
  '0x1001     1  4889e5               REX.W movq rbp,rsp',
  '0x1004     4  c3                   retl',
  '0x1005     5  90                   nop',
  '0x1006     6  1000                 jump table entry 0',
  '',
  '--- WebAssembly code ---',
  'name: bar',
  'compiler: TurboFan',
  '0x2000     0  c3                   retl',
].join('\n');

test('callgrind: absolute, relative and repeated positions, the call cost line skipped', () => {
  const { byAddress, total } = parseCallgrind(CALLGRIND);
  assert.equal(total, 5 + 3 + 7 + 2 + 4 + 9);
  assert.deepEqual(
    [...byAddress].sort((a, b) => Number(a[0] - b[0])),
    [
      [0x1000n, 5],
      [0x1002n, 3],
      [0x1005n, 7],
      [0x100an, 2],
      [0x2000n, 4],
      [0x3000n, 9],
    ],
  );
});

test('print-wasm-code: functions with their address ranges (a jump table entry is 8 bytes)', () => {
  const blocks = parseWasmCode(CODE);
  assert.deepEqual(
    blocks.map((b) => [b.name, b.compiler, b.start, b.end, b.instructions.length]),
    [
      ['foo', 'TurboFan', 0x1000n, 0x100en, 5],
      ['bar', 'TurboFan', 0x2000n, 0x2001n, 1],
    ],
  );
});

test('counts added up by the function holding each address; the rest outside', () => {
  const { byAddress } = parseCallgrind(CALLGRIND);
  const { functions, outside } = countByFunction(parseWasmCode(CODE), byAddress);
  assert.deepEqual(
    functions.map((f) => [f.name, f.count]),
    [
      ['foo', 5 + 3 + 7 + 2],
      ['bar', 4],
    ],
  );
  assert.equal(outside, 9);
});
