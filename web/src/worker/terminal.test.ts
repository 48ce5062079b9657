// The Terminal tab's machine is the one the image builder ships a snapshot
// of (experiments/runner/shippedBoots.ts): the page asks the worker for
// TERMINAL_MACHINE, and the worker creates it as terminalMachineOptions
// says, so a shipped snapshot of that machine is the one it restores.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CPU_NS_PER_INSTRUCTION } from '../../../emu/js/constants';
import { TERMINAL_BOOT } from '../../../experiments/runner/bootSnapshots';
import { shippedBoots, TERMINAL_MACHINE as SHIPPED } from '../../../experiments/runner/shippedBoots';
import { TERMINAL_MACHINE } from '../lab/state/terminal';

test('the page\'s terminal machine is the one shipped at its login prompt', () => {
  assert.deepEqual(TERMINAL_MACHINE, SHIPPED);
  const t = shippedBoots().find((b) => b.name === 'terminal')!;
  assert.deepEqual(t.options, {
    memoryMB: TERMINAL_MACHINE.memoryMB, boot: 'multi', cpuModel: TERMINAL_MACHINE.cpu,
    nsPerInstruction: CPU_NS_PER_INSTRUCTION[TERMINAL_MACHINE.cpu],
  });
  assert.deepEqual(t.recipe, TERMINAL_BOOT);
});
