// The tiny program the start page runs, shared by the browser worker and
// the Node test (demo.test.ts), so both exercise exactly the same plumbing.

import type { VaxMachineApi } from './vaxModule';
import { digestHex, hex32 } from './wasm';

export const DEMO_MEMORY_BYTES = 8 * 1024 * 1024;
export const DEMO_ADDRESS = 0x200;
export const DEMO_VALUE = 0x1234_5678;

/** MOVL #DEMO_VALUE, R0 ; HALT */
export function demoProgram(value: number = DEMO_VALUE): Uint8Array {
  const v = value >>> 0;
  return new Uint8Array([
    0xd0, 0x8f, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff, 0x50, // MOVL #v, R0
    0x00, // HALT
  ]);
}

export interface DemoResult {
  memoryBytes: number;
  programBytes: number;
  /** The program read back from guest memory matched what was written. */
  readBackOk: boolean;
  stopReason: string;
  stopDetail: string;
  instructions: string; // bigint as decimal, so it can be posted/serialized
  r0: string; // hex
  pc: string; // hex
  psl: string; // hex
  digest: string; // 16 hex digits
  expectedR0: string;
}

export function runDemo(api: VaxMachineApi, maxInstructions = 1000): DemoResult {
  const machine = api.create({ memoryBytes: DEMO_MEMORY_BYTES });
  try {
    const program = demoProgram();
    machine.physWrite(DEMO_ADDRESS, program);
    const back = machine.physRead(DEMO_ADDRESS, program.length);
    machine.setReg(15, DEMO_ADDRESS);
    const reason = machine.run(maxInstructions);
    return {
      memoryBytes: machine.memoryBytes(),
      programBytes: program.length,
      readBackOk: back.every((b, i) => b === program[i]),
      stopReason: api.stopReasonName(reason),
      stopDetail: machine.stopDetail(),
      instructions: machine.instructionCount().toString(),
      r0: hex32(machine.getReg(0)),
      pc: hex32(machine.getReg(15)),
      psl: hex32(machine.getPsl()),
      digest: digestHex(machine.stateDigest()),
      expectedR0: hex32(DEMO_VALUE),
    };
  } finally {
    machine.destroy();
  }
}
