// Node-only: loads the wasm emulator with the .wasm bytes read from disk
// (Emscripten's own Node path does not work for this ES-module build; see
// emu/Makefile).  Never import this from browser code.

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { loadVax, type VaxLoadOptions, type VaxMachineApi } from './vaxModule';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEFAULT_WASM_PATH = fileURLToPath(new URL('../../../emu/build/wasm/vax.wasm', import.meta.url));
export const DEFAULT_WASM_MJS_PATH = fileURLToPath(new URL('../../../emu/build/wasm/vax.mjs', import.meta.url));

/** True when `make -C emu wasm` has produced the module. */
export function wasmBuildExists(): boolean {
  return existsSync(DEFAULT_WASM_PATH) && existsSync(DEFAULT_WASM_MJS_PATH);
}

export async function loadVaxNode(
  wasmPath: string = DEFAULT_WASM_PATH,
  options: Omit<VaxLoadOptions, 'wasmBinary' | 'wasmUrl'> = {},
): Promise<VaxMachineApi> {
  for (const f of [wasmPath, DEFAULT_WASM_MJS_PATH]) {
    if (!existsSync(f)) throw new Error(`${f} not found: run "make -C emu wasm" (or npm run setup) first`);
  }
  const wasmBinary = await readFile(wasmPath);
  return loadVax({ ...options, wasmBinary });
}
