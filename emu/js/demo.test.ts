// Plumbing test of the typed wasm interface in Node (node --test via tsx).
// It checks what does not depend on the CPU being finished: memory size,
// memory round trip, register access, determinism of the digest.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEMO_ADDRESS, DEMO_MEMORY_BYTES, demoProgram, runDemo } from './demo';
import { StopReason } from './constants';
import { digestHex, hex32 } from './wasm';
import { loadVaxNode } from './vaxNode';

const api = await loadVaxNode();

test('creates a machine with the requested memory and round-trips physical memory', () => {
  const m = api.create({ memoryBytes: DEMO_MEMORY_BYTES });
  try {
    assert.equal(m.memoryBytes(), DEMO_MEMORY_BYTES);
    const bytes = demoProgram(0xdeadbeef);
    m.physWrite(DEMO_ADDRESS, bytes);
    assert.deepEqual(m.physRead(DEMO_ADDRESS, bytes.length), bytes);
    // The last byte of memory is reachable, one past it is not.
    m.physWrite(DEMO_MEMORY_BYTES - 1, new Uint8Array([0xa5]));
    assert.deepEqual(m.physRead(DEMO_MEMORY_BYTES - 1, 1), new Uint8Array([0xa5]));
    assert.throws(() => m.physWrite(DEMO_MEMORY_BYTES, new Uint8Array([1])), RangeError);
    assert.throws(() => m.physRead(DEMO_MEMORY_BYTES - 1, 2), RangeError);
  } finally {
    m.destroy();
  }
});

test('registers are unsigned 32-bit both ways', () => {
  const m = api.create({ memoryBytes: 1 << 20 });
  try {
    m.setReg(3, 0xfedcba98);
    assert.equal(m.getReg(3), 0xfedcba98);
    assert.equal(hex32(m.getReg(3)), 'FEDCBA98');
    assert.equal(m.instructionCount(), 0n);
  } finally {
    m.destroy();
  }
  assert.throws(() => m.getReg(0), /after destroy/);
});

test('the state digest is unsigned, deterministic and sees memory', () => {
  const a = api.create({ memoryBytes: 1 << 20 });
  const b = api.create({ memoryBytes: 1 << 20 });
  try {
    assert.equal(a.stateDigest(), b.stateDigest());
    assert.ok(a.stateDigest() >= 0n && a.stateDigest() < 1n << 64n);
    assert.match(digestHex(a.stateDigest()), /^[0-9a-f]{16}$/);
    b.physWrite(0x1000, new Uint8Array([1]));
    assert.notEqual(a.stateDigest(), b.stateDigest());
  } finally {
    a.destroy();
    b.destroy();
  }
});

test('the demo program runs and reports (whatever the CPU does so far)', (t) => {
  const r = runDemo(api);
  t.diagnostic(`stop=${r.stopReason} instructions=${r.instructions} R0=${r.r0} detail=${r.stopDetail}`);
  assert.equal(r.memoryBytes, DEMO_MEMORY_BYTES);
  assert.ok(r.readBackOk);
  assert.ok(Object.values(StopReason).map((c) => api.stopReasonName(c)).includes(r.stopReason));
});
