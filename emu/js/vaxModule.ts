// The one typed interface to the WebAssembly emulator, used by the browser
// worker (web/src/worker), the experiments (experiments/runner) and Node
// (tests, benchmark; vaxNode.ts only adds reading the .wasm file from disk).
// loadVax() loads the module (wasm.ts) and puts together its three parts:
// the bare machine (machine.ts, emu/src/vax.h), the disk images
// (diskImage.ts) and the whole VAX-11/780 over them (vax780.ts,
// emu/wasm/vax780_wasm.c).

import type { StopReason } from './constants';
import { diskImages } from './diskImage';
import { bareMachines, type VaxCreateOptions, type VaxMachine } from './machine';
import { vax780Systems, type Vax780Api } from './vax780';
import { loadWasmModule, type VaxLoadOptions, type VaxWasmModule } from './wasm';

export interface VaxMachineApi {
  create(options: VaxCreateOptions): VaxMachine;
  /** The whole VAX-11/780 system booting 4.3BSD. */
  readonly vax780: Vax780Api;
  stopReasonName(reason: StopReason | number): string;
  /** The emulator build (the SHA-256 of emu/src, hex): machine snapshots of
   *  another build are refused (emu/src/snapshot/snap.h). */
  readonly buildId: string;
  /** The raw Emscripten module, for whatever the typed API does not cover. */
  readonly module: VaxWasmModule;
}

export async function loadVax(options: VaxLoadOptions = {}): Promise<VaxMachineApi> {
  const mod = await loadWasmModule(options);
  const { create, stopReasonName } = bareMachines(mod);
  const vax780 = vax780Systems(mod, diskImages(mod), stopReasonName);
  const id = mod._vaxw_build_id();
  const buildId = Array.from(mod.HEAPU8.subarray(id, id + 32), (b) => b.toString(16).padStart(2, '0')).join('');
  return { create, stopReasonName, vax780, module: mod, buildId };
}
