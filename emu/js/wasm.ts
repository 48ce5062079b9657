// Loading the Emscripten module (emu/build/wasm/vax.mjs, made by
// `make -C emu wasm`) and the helpers every part of the binding uses to pass
// numbers and strings through wasm memory.  Registers, PSL and addresses are
// unsigned 32-bit numbers; instruction counts, virtual time and digests are
// bigint (the module is built with -sWASM_BIGINT).

import type { VaxWasmModule, VaxWasmModuleOptions } from '../build/wasm/vax.mjs';
import { ABI_VERSION } from './constants';

export type { VaxWasmModule };

export interface VaxLoadOptions {
  /** The bytes of vax.wasm.  Required in Node; in the browser omit it and
   *  the module fetches vax.wasm (its URL is rewritten by Vite). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Browser: explicit URL of vax.wasm, if not the one next to vax.mjs. */
  wasmUrl?: string | URL;
  /** Where the C side's stdout/stderr go (default: console). */
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  /** Node: the factory of another build's glue (its vax.mjs, imported by the
   *  caller), for a module whose imports are named differently from this
   *  checkout's (a link with other flags names them in another order). */
  createModule?: (options?: VaxWasmModuleOptions) => Promise<VaxWasmModule>;
}

/** The module, instantiated, after checking that its glue is the one this binding speaks. */
export async function loadWasmModule(options: VaxLoadOptions = {}): Promise<VaxWasmModule> {
  // Dynamic import: Vite bundles it (and vax.wasm as an asset); in Node it
  // fails with a clear "cannot find module" if `make -C emu wasm` was not run.
  const createVaxModule = options.createModule ?? (await import('../build/wasm/vax.mjs')).default;
  const moduleOptions: VaxWasmModuleOptions = {};
  if (options.wasmBinary) moduleOptions.wasmBinary = options.wasmBinary;
  if (options.wasmUrl) {
    const url = String(options.wasmUrl);
    moduleOptions.locateFile = (path, dir) => (path.endsWith('.wasm') ? url : dir + path);
  }
  if (options.print) moduleOptions.print = options.print;
  if (options.printErr) moduleOptions.printErr = options.printErr;
  const mod = await createVaxModule(moduleOptions);

  const abi = mod._vaxw_abi_version();
  if (abi !== ABI_VERSION) {
    throw new Error(`vax.wasm glue ABI ${abi}, expected ${ABI_VERSION}: rebuild with make -C emu wasm`);
  }
  return mod;
}

/** A 64-bit digest as 16 lowercase hex digits (the format vaxrun prints). */
export function digestHex(digest: bigint): string {
  return BigInt.asUintN(64, digest).toString(16).padStart(16, '0');
}

/** A 32-bit value as 8 uppercase hex digits (the format vaxrun prints). */
export function hex32(value: number): string {
  return (value >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

/** A count for a uint64_t argument; RangeError naming `what` outside 0 .. 2^64-1. */
export function toU64(n: number | bigint, what: string): bigint {
  const v = typeof n === 'bigint' ? n : BigInt(Math.trunc(n));
  if (v < 0n || v > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} out of range: ${n}`);
  return v;
}

/** Calls f with a NUL-terminated copy of an ASCII string in wasm memory. */
export function withString<T>(mod: VaxWasmModule, text: string, f: (ptr: number) => T): T {
  const p = mod._malloc(text.length + 1);
  if (p === 0) throw new Error('malloc failed');
  try {
    const heap = mod.HEAPU8;
    for (let i = 0; i < text.length; i++) heap[p + i] = text.charCodeAt(i) & 0xff;
    heap[p + text.length] = 0;
    return f(p);
  } finally {
    mod._free(p);
  }
}
