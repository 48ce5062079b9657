// Types of the Emscripten module built by `make -C emu wasm`
// (emu/build/wasm/vax.mjs, generated and not in git).  Keep in step with
// emu/src/vax.h, emu/wasm/*.c and WASM_LDFLAGS in emu/Makefile.
//
// Built with -sWASM_BIGINT: uint64_t travels as bigint.  Pointers, int and
// uint32_t travel as number; uint32_t results come back signed (use >>> 0).

declare module '*/emu/build/wasm/vax.mjs' {
  export interface VaxWasmModule {
    HEAPU8: Uint8Array;
    HEAPU32: Uint32Array;
    UTF8ToString(ptr: number, maxBytesToRead?: number): string;

    _malloc(size: number): number;
    _free(ptr: number): void;

    // emu/wasm/vax_wasm.c
    _vaxw_create(memoryBytes: number): number;
    _vaxw_abi_version(): number;

    // emu/src/vax.h
    _vax_create(cfgPtr: number): number;
    _vax_destroy(m: number): void;
    _vax_run(m: number, maxInstructions: bigint): number;
    _vax_stop_reason_name(reason: number): number;
    _vax_stop_detail(m: number): number;
    _vax_get_reg(m: number, n: number): number;
    _vax_set_reg(m: number, n: number, value: number): void;
    _vax_get_psl(m: number): number;
    _vax_set_psl(m: number, psl: number): void;
    _vax_get_ipr(m: number, ipr: number): number;
    _vax_set_ipr(m: number, ipr: number, value: number): void;
    _vax_phys_write(m: number, pa: number, src: number, len: number): number;
    _vax_phys_read(m: number, pa: number, dst: number, len: number): number;
    _vax_memory_bytes(m: number): number;
    _vax_instruction_count(m: number): bigint;
    _vax_state_digest(m: number): bigint;
    _vax_request_stop(m: number): void;
  }

  export interface VaxWasmModuleOptions {
    /** The .wasm bytes; when given nothing is fetched (this is how Node loads it). */
    wasmBinary?: ArrayBuffer | Uint8Array;
    /** Where to fetch files such as vax.wasm from (browser). */
    locateFile?: (path: string, scriptDirectory: string) => string;
    print?: (text: string) => void;
    printErr?: (text: string) => void;
  }

  const createVaxModule: (options?: VaxWasmModuleOptions) => Promise<VaxWasmModule>;
  export default createVaxModule;
}
