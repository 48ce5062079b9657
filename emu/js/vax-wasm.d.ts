// Types of the Emscripten module built by `make -C emu wasm`
// (emu/build/wasm/vax.mjs, generated and not in git).  Keep in step with
// emu/src/vax.h, emu/wasm/*.c and WASM_LDFLAGS in emu/Makefile.
//
// Built with -sWASM_BIGINT: uint64_t travels as bigint.  Pointers, int and
// uint32_t travel as number; uint32_t results come back signed (use >>> 0).

declare module '*/build/wasm/vax.mjs' {
  export interface VaxWasmModule {
    HEAPU8: Uint8Array;
    HEAPU32: Uint32Array;
    UTF8ToString(ptr: number, maxBytesToRead?: number): string;

    _malloc(size: number): number;
    _free(ptr: number): void;

    // emu/wasm/vax_wasm.c
    _vaxw_create(memoryBytes: number): number;
    _vaxw_abi_version(): number;
    /** The emulator build's identity, 32 bytes (machine snapshots carry it). */
    _vaxw_build_id(): number;

    // emu/wasm/vax780_wasm.c (the whole 780 system)
    _vax780w_image_alloc(size: number): number;
    _vax780w_image_free(imagePtr: number): void;
    /** The image stays the caller's: the system writes an overlay over it. */
    _vax780w_create(
      memoryKB: number,
      imagePtr: number,
      imageLen: number,
      method: number,
      howto: number,
      errPtr: number,
      errLen: number,
    ): number;
    /** ra0 of the given type (a C string) on the UDA50; the image may be shorter than the pack. */
    _vax780w_create_ra(
      memoryKB: number,
      imagePtr: number,
      imageLen: number,
      typePtr: number,
      method: number,
      howto: number,
      errPtr: number,
      errLen: number,
    ): number;
    /** vax780w_create(_ra) over an image JavaScript holds: `source` is passed back to vaxImageRead;
     *  typePtr a drive's name for an RA drive, or "" for the RP06. */
    _vax780w_create_js(
      memoryKB: number,
      source: number,
      imageLen: number,
      typePtr: number,
      method: number,
      howto: number,
      errPtr: number,
      errLen: number,
    ): number;
    /** Boot through DEC's VMB (bytes copied) from dua0 with R5 = flags. */
    _vax780w_set_vmb(w: number, vmbPtr: number, len: number, flags: number): number;
    /** Set by emu/js/diskImage.ts, called by vax780w_js_image_read: copies
     *  len bytes of image `source` from offset to buf in wasm memory; 0, or -1. */
    vaxImageRead?: (source: number, offset: number, buf: number, len: number) => number;
    _vax780w_destroy(w: number): void;
    _vax780w_dirty_bytes(w: number): bigint;
    _vax780w_error(w: number): number;
    _vax780w_add_setting(w: number, namePtr: number, value: number): number;
    _vax780w_boot(w: number): number;
    _vax780w_set_kernel(w: number, bytesPtr: number, len: number): number;
    _vax780w_console_load(w: number, addr: number, dataPtr: number, len: number): number;
    _vax780w_console_start(w: number, start: number): number;
    _vax780w_set_ns_per_instruction(w: number, ns: number): number;
    _vax780w_set_disk_timing(w: number, profilePtr: number): number;
    _vax780w_set_kernel(w: number, bytesPtr: number, len: number): number;
    _vax780w_set_cpu_model(w: number, model: number): number;
    _vax780w_set_disk_spin_seed(w: number, seed: number): number;
    _vax780w_lock_disk_spin(w: number): number;
    _vax780w_add_second_drive(w: number): number;
    _vax780w_run(w: number, maxInstructions: bigint): number;
    _vax780w_stop_detail(w: number): number;
    _vax780w_panic(w: number): number;
    _vax780w_type(w: number, textPtr: number, len: number): number;
    _vax780w_console_read(w: number, bufPtr: number, max: number): number;
    _vax780w_console_pending(w: number): number;
    _vax780w_console_dropped(w: number): bigint;
    _vax780w_time_ns(w: number): bigint;
    _vax780w_instruction_count(w: number): bigint;
    _vax780w_reboots(w: number): number;
    _vax780w_stats(w: number, outPtr: number, max: number): number;
    _vax780w_stats_names(): number;
    _vax780w_machine(w: number): number;
    _vax780w_kernel_symbols(w: number, namesPtr: number, outPtr: number, n: number): number;
    _vax780w_profile_start(w: number): number;
    _vax780w_profile_clear(w: number): number;
    _vax780w_profile_stop(w: number): void;
    _vax780w_profile_json(w: number): number;
    _vax780w_profile_json_length(w: number): number;
    /** A chunked image over a buffer from _vax780w_image_alloc (taken over on success), or 0 (message in err). */
    _vax780w_chunked_open(filePtr: number, len: number, errPtr: number, errLen: number): number;
    _vax780w_chunked_close(ci: number): void;
    _vax780w_chunked_size(ci: number): bigint;
    _vax780w_chunked_sha256(ci: number): number;
    _vax780w_chunked_read(ci: number, offset: number, bufPtr: number, len: number): number;
    _vax780w_chunked_error(ci: number): number;
    _vax780w_chunked_clear_error(ci: number): void;
    /** Chunk i decompressed into out (not kept): 0, 1 for a chunk of zeros (out not written), -1 damaged. */
    _vax780w_chunked_inflate(ci: number, i: number, outPtr: number): number;
    _vax780w_chunked_chunk_bytes(ci: number): number;
    /** The header and index only (a buffer from _vax780w_image_alloc, taken over on success) of a file of fileLen bytes. */
    _vax780w_chunked_open_index(headPtr: number, headLen: number, fileLen: number, errPtr: number, errLen: number): number;
    /** Chunk i from its stored bytes into out: 0, 1 for a chunk of zeros (out not written), -1 damaged. */
    _vax780w_chunked_inflate_stored(ci: number, i: number, storedPtr: number, storedLen: number, outPtr: number): number;
    /** out: 4 uint64 — chunks, decompressed chunks, their bytes, the file's bytes. */
    _vax780w_chunked_stats(ci: number, outPtr: number): void;
    _vax780w_create_chunked(memoryKB: number, ci: number, typePtr: number, method: number, howto: number, errPtr: number,
      errLen: number): number;
    /** A snapshot of the system (disk identity: 32 bytes; host bytes carried along): its address, or 0. */
    _vax780w_snapshot(w: number, diskIdPtr: number, hostPtr: number, hostLen: number): number;
    _vax780w_snapshot_length(w: number): number;
    _vax780w_snapshot_free(w: number): void;
    /** Instead of _vax780w_boot: a snapshot's state (0, or -1: _vax780w_error). */
    _vax780w_restore(w: number, bufPtr: number, len: number, diskIdPtr: number): number;
    _vax780w_restored_host(w: number): number;
    _vax780w_restored_host_length(w: number): number;

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
    _vax_profile_start(m: number): number;
    _vax_profile_clear(m: number): void;
    _vax_profile_stop(m: number): void;
    /** A malloc'd NUL-terminated JSON text (free it), 0 when off; lenPtr may be 0. */
    _vax_profile_json(m: number, lenPtr: number): number;
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
